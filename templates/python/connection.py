"""One end of a JSON-RPC connection over any transport that carries JSON text.

What arrives is routed to the local side's implementation (requests
answered, notifications delivered), responses settle the requests this end
sent, and calls to the other side are encoded and their results decoded.
No I/O of its own: the caller passes an async `send` and hands every
received text to `receive`. `connect_agent` and `connect_client` open a
typed end for each side. Generated: do not edit.
"""

from __future__ import annotations

import asyncio
import json
import math
import typing as _t

import pydantic as _p

from . import _runtime as _rt
{%- if session_ready %}
from . import helpers as _helpers
{%- endif %}
from . import methods as _methods
{%- if has_methods %}
from . import models as _m
{%- endif %}
from .protocols import (
{%- for name in protocol_names %}
    {{ name }},
{%- endfor %}
)

Send = _t.Callable[[str], _t.Awaitable[None]]
"""Writes one message, as JSON text, to the transport."""

Dropped = _t.Callable[[str | None, _rt.RequestError], None]
"""Told about a received message that gets no answer and was not handled: a
notification that is unknown, invalid or whose handler raised (with its
method), or a response to no request in flight (with `None`)."""

_Dispatch = _t.Callable[[_t.Any, str, _t.Any, bool], _t.Awaitable[_t.Any]]


class Lifecycle(_t.Protocol):
    """What a connection does around the messages it routes: the RFD helpers'
    `session/ready` handling. Every method sees and returns wire JSON messages."""

    def settled(self, method: str, params: _t.Any, result: _t.Any) -> list[dict[str, _t.Any]]:
        """A request this end sent got its result; returns messages to send once the caller has it."""
        ...

    def answered(self, method: str, params: _t.Any, result: _t.Any) -> None:
        """This end answered the peer's request of `method` with `result`."""
        ...

    def received(self, method: str, params: _t.Any) -> list[dict[str, _t.Any]]:
        """A notification from the peer was delivered; returns messages this end held, to send now."""
        ...

    def outgoing(self, method: str, message: dict[str, _t.Any]) -> list[dict[str, _t.Any]]:
        """This end sends the notification `message`; returns what to send now."""
        ...


class Connection:
    """One end of a connection; `connect_agent` and `connect_client` make the typed ones."""

    def __init__(
        self, implementation: _t.Any, dispatch_request: _Dispatch, dispatch_notification: _Dispatch, send: Send, dropped: Dropped | None, lifecycle: Lifecycle | None = None
    ) -> None:
        self._dispatch_request = dispatch_request
        self._dispatch_notification = dispatch_notification
        self._reader = _rt.WireReader()
        self._send = send
        self._dropped = dropped
        self._lifecycle = lifecycle
        self._pending: dict[int, tuple[str, _t.Any, asyncio.Future[_t.Any]]] = {}
        self._answering: set[asyncio.Task[None]] = set()
        self._next_id = 1
        self._closed: BaseException | None = None
        self._implementation = implementation(self)

    async def receive(self, text: str) -> None:
        """Handles one received message (JSON text). A notification is delivered
        and a response settles its request before this returns; a request is
        answered by a task of its own, so that a read loop awaiting `receive`
        goes on reading while a handler waits for the other side. Text that is
        not JSON, or nested too deeply for the json module, is answered with a
        parse error (-32700), a malformed id with an invalid request (-32600),
        and a call holding JSON that no binding takes back (nested deeper than
        `MAX_DEPTH`, a number that is not finite, a lone surrogate) as
        `_checked` says."""
        try:
            message, walk = self._reader.read(text)
        except ValueError as error:
            await self._write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": f"not JSON: {error}"}})
            return
        except RecursionError:
            # The json module parses recursively: text nested about a thousand
            # levels deep exhausts Python's recursion limit before it is read.
            await self._write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "not JSON this end can read: nested too deeply"}})
            return
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            await self._write({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "not a JSON-RPC 2.0 message"}})
        elif "method" not in message and ("result" in message or "error" in message):
            self._settle(message)
        elif "id" in message and not _is_id(message["id"]):
            await self._write({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "the id is not a string, a number or null"}})
        elif not isinstance(message.get("method"), str):
            await self._write({"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32600, "message": "the method is not a string"}})
        elif not await self._checked(message, walk):
            return
        elif "id" in message:
            task = asyncio.ensure_future(self._answer(message))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)
        else:
            await self._deliver(message["method"], message.get("params"))

    async def _checked(self, message: dict[str, _t.Any], walk: bool) -> bool:
        """Whether a request or notification passes `check_wire`, its params
        counted from depth 1 as when they are decoded (walked only when its
        text could fail, `walk`). One that does not is answered (a request) or
        reported to `dropped` (a notification): a failure in its params as
        invalid params (-32602, the pointer relative to the params), anywhere
        else as an invalid request (-32600)."""
        try:
            if walk:
                _rt.check_wire(message, depth=0)
        except _rt.DecodeError as failure:
            method = message["method"]
            inner = failure.path[len("/params") :]
            if failure.path == "/params" or failure.path.startswith("/params/"):
                error: _rt.RequestError = _rt.InvalidParams(method, _rt.DecodeError(inner, failure.message))
            else:
                error = _rt.RequestError(-32600, f"not a message this end takes: {failure}", {"pointer": failure.path})
            if "id" in message:
                await self._write({"jsonrpc": "2.0", "id": message["id"] if isinstance(error, _rt.InvalidParams) else None, "error": error.to_json()})
            else:
                self._report(method, error)
            return False
        return True

    async def _answer(self, message: dict[str, _t.Any]) -> None:
        try:
            answer: dict[str, _t.Any] = {"result": await self._dispatch_request(self._implementation, message["method"], message.get("params"), True)}
        except _rt.RequestError as error:
            answer = {"error": error.to_json()}
        except Exception as error:  # noqa: BLE001 (any other failure of a handler answers -32603)
            answer = {"error": {"code": -32603, "message": str(error)}}
        await self._write({"jsonrpc": "2.0", "id": message["id"], **answer})
        if self._lifecycle is not None and "result" in answer:
            self._lifecycle.answered(message["method"], message.get("params"), answer["result"])

    async def _deliver(self, method: str, params: _t.Any) -> None:
        try:
            await self._dispatch_notification(self._implementation, method, params, True)
        except _rt.RequestError as error:
            self._report(method, error)
        except Exception as error:  # noqa: BLE001 (a notification gets no answer: its failure is reported)
            self._report(method, _rt.RequestError(-32603, str(error)))
        for held in self._lifecycle.received(method, params) if self._lifecycle is not None else []:
            await self._write(held)

    def _report(self, method: str | None, error: _rt.RequestError) -> None:
        if self._dropped is not None:
            self._dropped(method, error)

    def _settle(self, response: dict[str, _t.Any]) -> None:
        request_id = response.get("id")
        pending = self._pending.pop(request_id, None) if isinstance(request_id, int) and not isinstance(request_id, bool) else None
        if pending is None:
            self._report(None, _rt.RequestError(-32600, f"a response to no request in flight: id {request_id!r}"))
            return
        method, params, future = pending
        if future.done():
            return
        error = response.get("error")
        if "error" in response:
            if isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str):
                future.set_exception(_rt.RequestError(error["code"], error["message"], error.get("data")))
            else:
                future.set_exception(_rt.RequestError(-32603, f"a malformed error for {method}"))
            return
        try:
            future.set_result(_methods.decode_result(method, response["result"]))
        except _rt.DecodeError as failure:
            future.set_exception(failure)
            return
        follow = self._lifecycle.settled(method, params, response["result"]) if self._lifecycle is not None else []
        if follow:
            # A task of its own runs after the code awaiting the result has run to its next await.
            task = asyncio.ensure_future(self._write_all(follow))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)

    async def _call(self, method: str, params: _t.Any) -> _t.Any:
        if self._closed is not None:
            raise self._closed
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[_t.Any] = asyncio.get_running_loop().create_future()
        wire = _wire(params)
        self._pending[request_id] = (method, wire, future)
        await self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": wire})
        return await future

    async def _tell(self, method: str, params: _t.Any) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": _wire(params)}
        await self._write_all(self._lifecycle.outgoing(method, message) if self._lifecycle is not None else [message])

    async def request_extension(self, method: str, params: _t.Any) -> _t.Any:
        """Sends a request of a `_`-prefixed extension method with JSON params; returns its JSON result."""
        if not _rt.is_extension(method):
            raise ValueError(f"{method} is not an extension method (those start with `_`)")
        return await self._call(method, params)

    async def notify_extension(self, method: str, params: _t.Any) -> None:
        """Sends a notification of a `_`-prefixed extension method with JSON params."""
        if not _rt.is_extension(method):
            raise ValueError(f"{method} is not an extension method (those start with `_`)")
        await self._tell(method, params)

    def close(self, reason: BaseException | None = None) -> None:
        """Fails every request in flight, and every later one, with `reason` (the transport closed)."""
        self._closed = reason if reason is not None else ConnectionError("the connection is closed")
        for _, _, future in self._pending.values():
            if not future.done():
                future.set_exception(self._closed)
        self._pending.clear()

    async def _write(self, message: dict[str, _t.Any]) -> None:
        await self._send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    async def _write_all(self, messages: list[dict[str, _t.Any]]) -> None:
        for message in messages:
            await self._write(message)


def _is_id(value: _t.Any) -> bool:
    """Whether `value` is a JSON-RPC id this end can write back: a string
    (without a lone surrogate), a finite number or null."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return value.isascii() or not any("\ud800" <= character <= "\udfff" for character in value)
    return value is None or isinstance(value, int) and not isinstance(value, bool)


def _wire(params: _t.Any) -> _t.Any:
    """The JSON of params given as a model (its wire form) or as JSON already."""
    return _rt.to_json(params) if isinstance(params, _p.BaseModel) else params
{%- for side in sides %}


class {{ side.name }}(Connection):
    """The {{ side.label }}'s end of a connection: calls what the {{ side.peer }} handles,
    its params encoded and its result decoded by method, and answers the
    {{ side.peer }}'s calls with the {{ side.label }} implementation."""
{%- if side.requests.len() == 1 %}
{%- for call in side.requests %}

    async def request(self, method: _t.Literal[{{ call.method }}], params: _m.{{ call.params }}) -> _m.{{ call.result }}:
        """Sends a request and returns its decoded result; raises `RequestError`
        for an error response and `DecodeError` for a result that does not decode."""
        return _t.cast(_m.{{ call.result }}, await self._call(method, params))
{%- endfor %}
{%- else %}
{%- for call in side.requests %}

    @_t.overload
    async def request(self, method: _t.Literal[{{ call.method }}], params: _m.{{ call.params }}) -> _m.{{ call.result }}: ...
{%- endfor %}

    async def request(self, method: str, params: _t.Any) -> _t.Any:
        """Sends a request and returns its decoded result; raises `RequestError`
        for an error response and `DecodeError` for a result that does not decode."""
        return await self._call(method, params)
{%- endif %}
{%- if side.notifications.len() == 1 %}
{%- for call in side.notifications %}

    async def notify(self, method: _t.Literal[{{ call.method }}], params: _m.{{ call.params }}) -> None:
        """Sends a notification."""
        await self._tell(method, params)
{%- endfor %}
{%- else %}
{%- for call in side.notifications %}

    @_t.overload
    async def notify(self, method: _t.Literal[{{ call.method }}], params: _m.{{ call.params }}) -> None: ...
{%- endfor %}

    async def notify(self, method: str, params: _t.Any) -> None:
        """Sends a notification."""
        await self._tell(method, params)
{%- endif %}


def {{ side.connect }}(implementation: _t.Callable[[{{ side.name }}], {{ side.handler }}], send: Send, dropped: Dropped | None = None) -> {{ side.name }}:
    """Opens the {{ side.label }}'s end of a connection over a transport that carries
    JSON text: `send` writes one message, and the caller hands every received
    message to `receive`. `implementation` is called once with the connection,
    so that its handlers can call the {{ side.peer }}; `dropped` hears of a received
    message that was not handled and gets no answer.
{%- if session_ready %}

    When `initialize` negotiates `session/ready` (rule R1), the client's end sends
    it after each session-opening response, and the agent's end holds its
    session-scoped notifications for a session until it arrives.
{%- endif %}"""
    return {{ side.name }}(implementation, {{ side.dispatch_request }}, {{ side.dispatch_notification }}, send, dropped{% if session_ready %}, _helpers.SessionReadyLifecycle(){% endif %})
{%- endfor %}

