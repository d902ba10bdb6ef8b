"""One end of a JSON-RPC connection over any transport that carries JSON text.

The design the three languages' connections share (names, options, the
report of dropped input, the answer to each fault) is `docs/connection.md`.
`connect_agent` and `connect_client` open the typed end of each side. No I/O
of its own: the caller passes an async `send` that writes one message, and
hands every received text to `receive`. Requests from the peer are answered
by a task each, so that they run concurrently with each other and with the
reading; notifications are handled one at a time, in the order they
arrived, by the end itself (a queue), whether or not the caller awaits
`receive`; responses settle the requests this end sent, whose params are
encoded and results decoded by method.

The connection removes the races the RFDs are about, by construction:

- Prompts end when their turn is drained. The client's end feeds the
  package's turn machine (`_turns.TurnMachine` with `helpers.TURN_RULES`,
  what the exported `TurnTracker` runs) as it reads: each prompt it sends,
  each `session/update` and each prompt's response, in read order. A
  `session/prompt` call returns once the machine says its turn is drained
  and every notification read up to the message that drained it has been
  handled (its handler returned): its response, and, when the exchange
  negotiated it, the `turn_complete` update naming the prompt (protocol v1
  with the RFD) or the session's `idle` state update (protocol v2: read
  after a state that is not `idle` since the prompt was sent, or after the
  response; an `idle` read before either is a snapshot of the work before
  the prompt). Without either, the response and the notifications before it
  are all the protocol offers. An error response drains the turn at once. A
  timeout is the caller's (`asyncio.wait_for`).
- The agent's end answers a prompt after its updates. Everything it sends
  leaves through one queue, in the order it was made, written by one task
  that awaits `send`: every notification a handler sent (or started
  sending) before returning precedes its response. When `turn_complete` was
  negotiated and the prompt's handler sent none, the end sends it, with the
  response's stop reason, just before the response.
- `session/ready` (rule R1). When the agent advertised it, the client's end
  sends it once a `session/new` or `session/load` result has been decoded,
  before the call returns, and the agent's end holds that session's scoped
  notifications until it arrives, then releases them in order. There is no
  timer to fall back on.

- `session/cancel` ends the turn it names as cancelled. From the moment the
  agent's end reads it, the turn's `cancellation(session_id)` event is set,
  the turn's pending requests to the client (those whose params name its
  session) raise `TurnCancelled`, and new ones raise it at once. In protocol
  v1, whatever the prompt's handler ends with, an exception or a late
  result, is answered with the `cancelled` stop reason, after every update
  the handler sent. In v2 the turn is the session's foreground work, from a
  prompt (or a state that is not `idle`) to the `idle` state update the
  agent sends, and that update carries the `cancelled` stop reason, whatever
  the agent wrote in it (`_TurnCancel.end`). The client's end, sending `session/cancel`, answers the session's pending
  `session/request_permission` requests with the `cancelled` outcome, after
  it.

`ConnectOptions(unordered=True)` opens an end without the ordering, as connections without it
behave: prompts return on their response, nothing is held for
`session/ready`, no `turn_complete` is added, and the agent's responses are
written ahead of the notifications still queued. It exists to show what the
ordering prevents.

The agent's end keeps the schema's handshake (`_Handshake`): it answers any
request before `initialize` was answered with -32600 (invalid request) and
reports such a notification as dropped; its `initialize` answer names the
highest version it supports at or below the requested one (or fails with the
schema's unsupported-version error, when it has one) and always carries the
agent's capabilities. Each end sets the method gates of its own
capabilities from its handlers (`_Advertised`): the agent's in that answer,
the client's in the `initialize` it sends. Once the exchange is done (the
agent answered it, the client got its result), every request and
notification this end sends is checked against the gate of its method
first: one the exchange does not allow raises the negotiation's
`CapabilityError`, and nothing is written.

Cancelling the task of a call before its answer forgets the request and,
when the schema has `$/cancel_request`, tells the peer; the peer's
`$/cancel_request` cancels the matching handler, and its request is answered
with -32800 (request cancelled). Generated: do not edit.
"""

from __future__ import annotations

import asyncio
import collections
import json
import math
import typing as _t
from dataclasses import dataclass, field

import pydantic as _p

from . import _reader, _turns
from . import _runtime as _rt
{%- if session_ready || turn_rules %}
from . import helpers as _helpers
{%- endif %}
from . import methods as _methods
{%- if has_methods %}
from . import models as _m
{%- endif %}
{%- if negotiated %}
from . import negotiation as _negotiation
{%- endif %}
from .protocols import (
{%- for name in protocol_names %}
    {{ name }},
{%- endfor %}
)

Send = _t.Callable[[str], _t.Awaitable[None]]
"""Writes one message, as JSON text, to the transport."""



@dataclass(frozen=True)
class Dropped:
    """A received message that got neither an answer nor a handler: a
    notification that is unknown, invalid or whose handler raised, or a
    response to no request in flight."""

    method: str | None
    """The notification's method; `None` for a response."""
    error: _rt.RequestError
    """The JSON-RPC error the message would have been answered with."""
    line: int
    """The message's position: the `line`th message this end received (`receive` calls), from 1."""


class TurnCancelled(Exception):
    """A call of a cancelled prompt turn: the client's `session/cancel` named
    its session (the agent's end)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"the prompt turn of session {session_id} was cancelled")
        self.session_id = session_id


@dataclass(frozen=True)
class ConnectOptions:
    """How an end behaves beyond the schema's rules."""

    dropped: _t.Callable[[Dropped], None] | None = None
    """Told of what the peer sent that got neither an answer nor a handler."""
    unordered: bool = False
    """Turns off the ordering the module describes, as connections without it
    behave; it exists to show what the ordering prevents."""


_Dispatch = _t.Callable[[_t.Any, str, _t.Any, bool], _t.Awaitable[_t.Any]]


@dataclass(frozen=True)
class _Ready:
    """Rule R1's messages: `session/ready` (the client's notification) and its
    session id member, the requests whose result opens a session (with
    whether the session id is in the result, else in the params), and the
    agent's session-scoped notifications."""

    notification: str
    session: str
    openers: tuple[tuple[str, bool], ...]
    scoped: tuple[str, ...]


@dataclass(frozen=True)
class _Complete:
    """A turn ends with the update tagged `tag` whose `request` member is the
    prompt's request id (protocol v1 with the turn-complete RFD, once
    negotiated); its `stop_reason` member is the prompt result's."""

    tag: str
    request: str
    stop_reason: str


@dataclass(frozen=True)
class _Idle:
    """A turn ends with the update tagged `tag` whose `state` member is `idle`
    (protocol v2)."""

    tag: str
    state: str
    idle: str


@dataclass(frozen=True)
class _Turns:
    """A prompt turn's messages: the prompt request, the update notification
    with its session id, update and update tag members, and what ends a turn
    besides its response (`None`: nothing)."""

    prompt: str
    update: str
    session: str
    payload: str
    tag: str
    end: _Complete | _Idle | None


@dataclass(frozen=True)
class _TurnCancel:
    """What `session/cancel` asks of each end: `session/cancel` (the client's
    notification) and `session/prompt`, the session id member of both and of
    the requests in `scoped`, the stop reason member and its cancelled value,
    where they go when a cancelled turn ends (`end`: `result`, the prompt's
    result in protocol v1, or `idle`, the `idle` state update that ends the
    session's foreground work in v2, which runs from a prompt, or from a
    state that is not `idle`, to that update), the client's requests whose
    params name a session (those the agent makes during a turn belong to
    it), and `session/request_permission` with the result that answers it
    `cancelled`."""

    notification: str
    prompt: str
    session: str
    stop_reason: str
    cancelled: str
    end: _t.Literal["result", "idle"]
    scoped: tuple[str, ...]
    permission: tuple[str, _t.Any] | None
    awaiting: _Awaiting | None


@dataclass(frozen=True)
class _Awaiting:
    """Protocol v2: while the turn's permission requests (`request`) wait for
    the user, the agent's end reports `requires_action`, then `running` once
    the last is answered, unless the agent reported a state meanwhile."""

    request: str
    requires_action: str
    running: str


@dataclass
class _TurnInFlight:
    """The agent's end: a prompt being handled (protocol v1), or the
    session's foreground work (v2): the prompt's request id (empty for work
    the agent started by itself), its cancellation, and (v2) whether the
    agent reported the work with a state that is not `idle`, the last state
    sent for it, the permission requests waiting for the user, and whether
    this end reported `requires_action` itself."""

    id: str
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)
    active: bool = False
    state: _t.Any = None
    asking: int = 0
    reported: bool = False


# What this schema says about the messages a connection treats specially.
_INITIALIZE = {{ initialize }}
_READY: _Ready | None = {{ ready }}
_TURNS: _Turns | None = {{ turns }}
_TURN_RULES: _turns.TurnRules | None = {% if turn_rules %}_helpers.TURN_RULES{% else %}None{% endif %}
"""What the client's turn machine reads (`None`: prompts end on their response)."""
_CANCEL: tuple[str, str] | None = {{ cancel }}
"""`$/cancel_request` and its member naming the request."""
_TURN_CANCEL: _TurnCancel | None = {{ turn_cancel }}
_ACTED_ON = frozenset(
    method
    for method in (
        _CANCEL[0] if _CANCEL is not None else None,
        _READY.notification if _READY is not None else None,
        _TURN_CANCEL.notification if _TURN_CANCEL is not None else None,
    )
    if method is not None
)
"""The notifications an end acts on as it reads them (`Connection._on_read`)."""


@dataclass(frozen=True)
class _Unsupported:
    """The error for an `initialize` below every supported version: its code
    and message, and the data members of the requested and the supported
    versions."""

    code: int
    message: str
    requested: str
    supported: str


@dataclass(frozen=True)
class _Advertised:
    """The method gates a side's initialize message carries, set from its
    handlers: each gate (a pointer's tokens, its "on" value, the requests it
    needs) is on when the side handles every one of them (its value kept
    when on, else the "on" value, objects on the way created), and removed
    otherwise. A gate's requests include those of the gates enclosing it."""

    member: str
    gates: tuple[tuple[tuple[str, ...], _t.Any, tuple[str, ...]], ...]

    def apply(self, capabilities: _t.Any, handled: _t.Callable[[str], bool]) -> dict[str, _t.Any]:
        """A copy of `capabilities` (JSON) with the gates set as `handled` says."""
        copied: dict[str, _t.Any] = json.loads(json.dumps(capabilities)) if isinstance(capabilities, dict) else {}
        for pointer, on_value, methods in self.gates:
            on = all(handled(method) for method in methods)
            parent: dict[str, _t.Any] | None = copied
            for token in pointer[:-1]:
                inner = parent.get(token) if parent is not None else None
                if parent is None or not isinstance(inner, dict) and not on:
                    parent = None
                    break
                if not isinstance(inner, dict):
                    inner = parent[token] = {}
                parent = inner
            if parent is None:
                continue
            current = parent.get(pointer[-1])
            if not on:
                parent.pop(pointer[-1], None)
            elif current is not True and not isinstance(current, dict):
                parent[pointer[-1]] = json.loads(json.dumps(on_value))
        return copied


@dataclass(frozen=True)
class _Handshake:
    """What the agent's end decides about `initialize` itself, whatever its
    handler answers: the method, its version member (params and result), the
    versions this end supports (oldest first), the result member holding the
    agent's capabilities, and the unsupported-version error (`None`: the
    latest supported version is answered instead)."""

    method: str
    version: str
    supported: tuple[int, ...]
    capabilities: str
    unsupported: _Unsupported | None
    advertises: tuple[_Advertised, _Advertised]
    """The gates the agent's end and the client's end set from their handlers."""

    def answer(self, requested: int) -> int | None:
        """The version answered to a request for `requested`: the highest
        supported one at or below it, else the latest when there is no
        unsupported-version error; `None`: that error."""
        below = [version for version in self.supported if version <= requested]
        if below:
            return below[-1]
        return self.supported[-1] if self.unsupported is None else None


_HANDSHAKE: _Handshake | None = {{ handshake }}
_NOT_INITIALIZED = "initialize has not been answered"
"""The message of the answer to a request before `initialize` was answered
(-32600, with `data.method`)."""
{%- if let Some([code, message, data]) = session_not_found %}


def session_not_found(session_id: str) -> _rt.RequestError:
    """The error a request naming a session this agent does not know is
    answered with, the session id as `data`."""
    return _rt.RequestError({{ code }}, {{ message }}, {{ data }})
{%- endif %}


@dataclass(frozen=True)
class Features:
    """The RFD features an `initialize` exchange turned on."""

    session_ready: bool = False
    turn_complete: bool = False


_Check = _t.Callable[[str], "Exception | None"]
"""The negotiation's `check_outgoing` on a method's own gate: why a message
of the method may not be sent (a `CapabilityError`), or `None`."""


def _outgoing(params: _t.Any, result: _t.Any) -> _Check | None:
    """What one `initialize` exchange (its params and result, as JSON) allows
    an end to send: `check_outgoing` on the method's own gate (given no
    params, it looks at nothing inside them); `None` when it does not
    negotiate."""
{%- if negotiated %}
    try:
        negotiated = _negotiation.negotiate(params, result)
    except (_negotiation.NegotiationError, ValueError):
        return None
    return lambda method: negotiated.check_outgoing(method, None)
{%- else %}
    return None
{%- endif %}


class _Offers(_t.Protocol):
    """What the answers opening sessions offered (the negotiation's `SessionOffers`)."""

    def record(self, method: str, params: _t.Any, result: _t.Any) -> None: ...

    def check(self, method: str, params: _t.Any) -> Exception | None: ...


def _session_offers() -> _Offers | None:
    """A new record of what the answers opening sessions offered, per
    session; `None` when the schema offers nothing per session."""
{%- if session_gates %}
    return _negotiation.SessionOffers()
{%- else %}
    return None
{%- endif %}


def _without_unhandled_offers(method: str, result: _t.Any, handles: _t.Callable[[str], bool]) -> _t.Any:
    """The agent's answer to `method` without the offers of the methods
    offered per session that it does not handle."""
{%- if session_gates %}
    return _negotiation.without_unhandled_offers(method, result, handles)
{%- else %}
    return result
{%- endif %}


def _features(params: _t.Any, result: _t.Any) -> Features:
    """What one `initialize` exchange (its params and result, as JSON)
    negotiated; nothing when it does not negotiate."""
{%- if negotiated %}
    try:
        negotiated = _negotiation.negotiate(params, result)
    except (_negotiation.NegotiationError, ValueError):
        return Features()
    return Features(negotiated.session_ready, negotiated.turn_complete)
{%- else %}
    return Features()
{%- endif %}


class _Gate(_t.Protocol):
    """Rule R1's gate (`helpers.SessionReadyGate`) over message texts."""

    def responded(self, session: str, now: int) -> None: ...

    def send(self, session: str, item: str, now: int) -> list[str]: ...

    def ready(self, session: str) -> list[str]: ...


def _gate() -> _Gate | None:
    """A gate that holds session-scoped texts until `session/ready`."""
{%- if session_ready %}
    return _helpers.SessionReadyGate[str](True)
{%- else %}
    return None
{%- endif %}


_Outcome = tuple[bool, _t.Any]
"""A call's outcome: `(True, decoded result)` or `(False, exception)`."""

_Queued = tuple[str, _t.Any, int, "str | None", "asyncio.Future[None] | None"]
"""A notification waiting to be handled: its method, params, line, the name
of its handler when the params are decoded already, and the future set once
it is handled (when a `receive` waits for it)."""


@dataclass
class _Prompt:
    """A prompt call of the client's end whose turn the machine follows: its
    outcome once the response arrived, and how many notifications had been
    read when the machine said the turn was drained (counting the message
    that drained it)."""

    answer: _Outcome | None = None
    drained: int | None = None


@dataclass
class _Pending:
    """A request this end sent that is not answered yet."""

    method: str
    params: _t.Any
    future: asyncio.Future[_t.Any]
    turn: _Prompt | None
    follow: list[dict[str, _t.Any]] = field(default_factory=list)
    """What to send once its result is decoded, before the call returns (`session/ready`)."""
    session: str | None = None
    """The agent's end: the session whose turn the request belongs to."""


class Connection:
    """One end of a connection; `connect_agent` and `connect_client` make the typed ones."""

    def __init__(
        self,
        handler: _t.Any,
        role: _t.Literal["agent", "client"],
        dispatch_request: _Dispatch,
        dispatch_notification: _Dispatch,
        handles: _t.Callable[[_t.Any, str], bool],
        notification_handlers: dict[str, tuple[str, _t.Any]],
        send: Send,
        options: ConnectOptions | None,
    ) -> None:
        settings = options if options is not None else ConnectOptions()
        self._role = role
        self._dispatch_request = dispatch_request
        self._dispatch_notification = dispatch_notification
        self._handles = handles
        # Once the `initialize` exchange is done: what the peer allows this end to send.
        self._outgoing: _Check | None = None
        # The client's end: what the answers opening sessions offered, per session.
        self._offers = _session_offers()
        self._reader = _reader.WireReader()
        self._send = send
        self._dropped = settings.dropped
        self._unordered = settings.unordered
        self._pending: dict[int, _Pending] = {}
        self._next_id = 1
        self._closed: BaseException | None = None
        self._features = Features()
        # The tasks answering the peer's requests (and this end's other tasks);
        # by request id, those whose handler has not returned; those running
        # their handler; those the peer cancelled.
        self._answering: set[asyncio.Task[None]] = set()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._handling: set[asyncio.Task[_t.Any]] = set()
        self._stopping: set[asyncio.Task[_t.Any]] = set()
        # The messages received (the position in `Dropped.line`).
        self._lines = 0
        # The peer's notifications not handled yet (each with its line, its
        # handler's name when its params are decoded already, and the future
        # set once it is handled, when a `receive` waits for it), whether one
        # is being handled, the future `join` waits for, and how many were
        # read and handled.
        self._inbox: collections.deque[_Queued] = collections.deque()
        self._consuming = False
        self._emptied: asyncio.Future[None] | None = None
        self._read = 0
        self._handled = 0
        # The agent's end: what it sends, in order (responses that overtake
        # first, when unordered), and the task writing it.
        self._outbox: collections.deque[str] = collections.deque()
        self._overtaking: collections.deque[str] = collections.deque()
        self._writer: asyncio.Task[None] | None = None
        # The agent's end: rule R1's gate, and the prompts whose
        # `turn_complete` its handler sent.
        self._gate: _Gate | None = None
        # The client's end: the turn machine its prompts end on (ordered only).
        self._machine: _turns.TurnMachine | None = None
        if role == "client" and not self._unordered and _TURN_RULES is not None:
            self._machine = _turns.TurnMachine(_TURN_RULES, False)
        self._completed: set[str] = set()
        # The notifications read and decoded in one pass, by their handler's
        # name: those the end does not act on as it reads (`_on_read`). The
        # client's end: the update notification its machine follows as it is
        # read so (`_follow`), the attribute of its params holding the
        # update, and whether the machine watches updates of each class.
        self._handlers = {
            method: name for method, (name, _) in notification_handlers.items() if method not in _ACTED_ON
        }
        self._followed: str | None = None
        self._payload = ""
        self._watched: dict[type, bool] = {}
        if self._machine is not None and _TURNS is not None and _TURNS.update in self._handlers:
            payload = _rt.attribute(notification_handlers[_TURNS.update][1], _TURNS.payload)
            if payload is None:
                # Not a class the machine's members can be found in: read the general way.
                del self._handlers[_TURNS.update]
            else:
                self._followed, self._payload = _TURNS.update, payload
        # Their reader, and the same once this end takes notifications (the
        # agent's end: after `initialize`, `_uninitialized`).
        self._one_pass = (
            _reader.NotificationReader({method: notification_handlers[method][1] for method in self._handlers})
            if self._handlers
            else None
        )
        self._direct = self._one_pass if role == "client" or _HANDSHAKE is None else None
        # The agent's end: `initialize` was answered with a result.
        self._initialized = False
        # The agent's end: the prompt turns being handled, by session (the
        # prompt's request id and its cancellation). The client's end: the
        # sessions of the permission requests being handled, by request id,
        # and the tasks `session/cancel` stopped, to answer `cancelled`.
        self._turns: dict[str, _TurnInFlight] = {}
        self._permissions: dict[str, str] = {}
        self._withdrawn: set[asyncio.Task[_t.Any]] = set()
        self._implementation = handler(self)

    @property
    def features(self) -> Features:
        """What this end's `initialize` exchange negotiated so far."""
        return self._features

    def cancellation(self, session_id: str) -> asyncio.Event:
        """The agent's end: the event of the prompt turn `session_id` has in
        flight, set when the client's `session/cancel` names the session (one
        never set when there is none). The end acts on it by itself: a handler
        watches it only to stop its own work."""
        turn = self._turns.get(session_id)
        return turn.cancelled if turn is not None else asyncio.Event()

    async def receive(self, text: str) -> None:
        """Handles one received message (JSON text). A response settles its
        request (a prompt's call returns once its turn is drained); a request
        is answered by a task of its own, so that a read loop awaiting
        `receive` goes on reading while a handler waits for the other side;
        a notification joins the end's queue, whose notifications are handled
        one at a time in the order they arrived, whether or not the caller
        awaits `receive`, and this returns once it was handled. (A read loop
        whose notification handlers wait for the peer hands each text to
        `receive` in a task of its own, in order.) A message this end cannot
        take is answered as `docs/connection.md`'s table of faults says, in
        its order; a call holding JSON that no binding takes back (nested
        deeper than `MAX_DEPTH`, a number that is not finite, a lone
        surrogate) as `_checked` says. A notification this end handles
        without acting on it as it reads is first tried in one pass of
        pydantic-core (`_reader.NotificationReader`), which gives what the
        general way would."""
        self._lines += 1
        line = self._lines
        handler: str | None = None
        direct = self._direct.read(text) if self._direct is not None else None
        if direct is not None:
            method, params = direct
            handler = self._handlers[method]
            self._read += 1
            if method == self._followed and self._watched.get(type(getattr(params, self._payload))) is not False:
                self._follow(params, text)
        else:
            notification = await self._read_message(text, line)
            if notification is None:
                return
            method, params = notification
        if self._consuming or self._inbox:
            # One is being handled: this one waits its turn.
            handled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._inbox.append((method, params, line, handler, handled))
            await asyncio.shield(handled)
            return
        self._consuming = True
        try:
            await self._handle(method, params, line, handler)
        finally:
            self._consuming = False
            if self._inbox or self._emptied is not None:
                self._release()

    async def _handle(self, method: str, params: _t.Any, line: int, handler: str | None) -> None:
        """Handles one notification: calls its handler (by name, when the
        one-pass reader named it) or the dispatcher; a failure is reported,
        since a notification gets no answer. Counts it handled, and returns
        the prompts that were waiting for it."""
        try:
            if handler is not None:
                await getattr(self._implementation, handler)(params)
            else:
                await self._dispatch_notification(self._implementation, method, params, True)
        except Exception as error:  # noqa: BLE001 (a notification gets no answer: its failure is reported)
            self._report(method, _failure(error), line)
        finally:
            self._handled += 1
            self._return_prompts()

    async def _read_message(self, text: str, line: int) -> tuple[str, _t.Any] | None:
        """`receive`'s general way: reads the `line`th message, answers or
        settles what is not a notification to handle, and returns the method
        and JSON params of one that is (`None`: nothing left to do)."""
        try:
            message, walk = self._reader.read(text)
        except (ValueError, RecursionError):
            # The json module parses recursively: text nested about a thousand
            # levels deep exhausts Python's recursion limit before it is read.
            await self._fault(None, -32700, "not JSON")
            return None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            await self._fault(None, -32600, "not a JSON-RPC 2.0 message")
        elif "id" in message and not _is_id(message["id"]):
            await self._fault(None, -32600, "the id is not a string, a number or null")
        elif "method" not in message:
            if "result" in message or "error" in message:
                self._settle(message, line)
            else:
                await self._fault(message.get("id"), -32600, "neither a call nor an answer")
        elif not isinstance(message["method"], str):
            await self._fault(message.get("id"), -32600, "the method is not a string")
        elif walk and not await self._checked(message, line):
            pass
        elif "id" in message and (refusal := self._refusal(message["method"], message.get("params"))):
            await self._write({"jsonrpc": "2.0", "id": message["id"], "error": refusal})
        elif "id" in message:
            key = _key(message["id"])
            self._start_turn(key, message["method"], message.get("params"))
            self._running[key] = self._spawn(self._answer(message))
        elif self._uninitialized(message["method"]):
            method = message["method"]
            self._report(method, _rt.RequestError(-32600, _NOT_INITIALIZED, {"method": method}), line)
        else:
            method, params = message["method"], message.get("params")
            self._notified(method, params)
            return method, params
        return None

    async def _fault(self, request_id: _t.Any, code: int, message: str) -> None:
        """Answers a message this end cannot take (`docs/connection.md`'s faults)."""
        await self._write({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})

    async def join(self) -> None:
        """Waits until every notification received so far, and any received
        meanwhile, has been handled."""
        while self._consuming or self._inbox:
            if self._emptied is None:
                self._emptied = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._emptied)

    async def _checked(self, message: dict[str, _t.Any], line: int) -> bool:
        """Whether a request or notification passes `check_wire`, its params
        counted from depth 1 as when they are decoded (`receive` walks only
        text that could fail). One that does not is answered (a request) or
        reported to `dropped` (a notification): a failure in its params as
        invalid params (-32602, the pointer relative to the params), anywhere
        else as an invalid request (-32600)."""
        try:
            _rt.check_wire(message, depth=0)
        except _rt.DecodeError as failure:
            method = message["method"]
            inner = failure.path[len("/params") :]
            if failure.path == "/params" or failure.path.startswith("/params/"):
                error: _rt.RequestError = _rt.InvalidParams(method, _rt.DecodeError(inner, failure.message))
            else:
                error = _rt.RequestError(-32600, "not a message this end takes", {"pointer": failure.path})
            if "id" in message:
                await self._write({"jsonrpc": "2.0", "id": message["id"] if isinstance(error, _rt.InvalidParams) else None, "error": error.to_json()})
            else:
                self._report(method, error, line)
            return False
        return True

    # The peer's requests.

    def _uninitialized(self, method: str) -> bool:
        """Whether the agent's end takes no `method` yet: only `initialize`
        comes before `initialize` was answered."""
        return (
            self._role == "agent"
            and _HANDSHAKE is not None
            and method != _HANDSHAKE.method
            and not self._initialized
        )

    def _refusal(self, method: str, params: _t.Any) -> dict[str, _t.Any] | None:
        """The agent's end's answer to the peer's request `method` without
        its handler: -32600 before `initialize` was answered, and the
        unsupported-version error to an `initialize` below every supported
        version."""
        if self._uninitialized(method):
            return {"code": -32600, "message": _NOT_INITIALIZED, "data": {"method": method}}
        handshake = _HANDSHAKE
        if self._role != "agent" or handshake is None or method != handshake.method:
            return None
        requested = _get(params, handshake.version)
        unsupported = handshake.unsupported
        if unsupported is None or not _is_version(requested) or handshake.answer(requested) is not None:
            return None
        data = {unsupported.requested: requested, unsupported.supported: list(handshake.supported)}
        return {"code": unsupported.code, "message": unsupported.message, "data": data}

    def _handshake_result(self, method: str, params: _t.Any, result: _t.Any) -> _t.Any:
        """The agent's answer to `initialize`, as the handshake makes it: the
        agreed version (when the params name one) and the capabilities member,
        `{}` when the handler left it out."""
        handshake = _HANDSHAKE
        if self._role != "agent" or handshake is None or method != handshake.method or not isinstance(result, dict):
            return result
        requested = _get(params, handshake.version)
        agreed = handshake.answer(requested) if _is_version(requested) else None
        answered = dict(result)
        if agreed is not None:
            answered[handshake.version] = agreed
        answered[handshake.capabilities] = handshake.advertises[0].apply(
            answered.get(handshake.capabilities), lambda request: self._handles(self._implementation, request)
        )
        return answered

    def _advertise(self, method: str, params: _t.Any) -> _t.Any:
        """The client's end: the `initialize` it sends carries the capabilities its handlers allow."""
        handshake = _HANDSHAKE
        if self._role != "client" or handshake is None or method != handshake.method or not isinstance(params, dict):
            return params
        advertised = handshake.advertises[1]
        written = params.get(advertised.member)
        capabilities = advertised.apply(written, lambda request: self._handles(self._implementation, request))
        if advertised.member not in params and not capabilities:
            # Left out, and nothing to advertise: still left out (the schema's default).
            return params
        return {**params, advertised.member: capabilities}

    def _check(self, method: str) -> None:
        """Raises the negotiation's `CapabilityError` when the `initialize`
        exchange does not allow sending `method`."""
        refused = self._outgoing(method) if self._outgoing is not None else None
        if refused is not None:
            raise refused

    async def _answer(self, message: dict[str, _t.Any]) -> None:
        """Runs the handler of the peer's request, which the peer's
        `$/cancel_request` may cancel while it runs, then answers it."""
        method, params, request_id = message["method"], message.get("params"), message["id"]
        key = _key(request_id)
        # `receive` runs this as a task of its own.
        task = _t.cast("asyncio.Task[_t.Any]", asyncio.current_task())
        stopped = False
        try:
            if task in self._stopping:
                # Cancelled before it started.
                raise asyncio.CancelledError
            self._handling.add(task)
            try:
                result = await self._dispatch_request(self._implementation, method, params, True)
                result = self._handshake_result(method, params, result)
                if self._role == "agent":
                    result = _without_unhandled_offers(
                        method, result, lambda request: self._handles(self._implementation, request)
                    )
            finally:
                self._handling.discard(task)
                if self._running.get(key) is task:
                    del self._running[key]
            answer: dict[str, _t.Any] = {"result": result}
        except asyncio.CancelledError:
            if task not in self._stopping:
                raise
            self._stopping.discard(task)
            # The peer's cancellation ends here (`cancelling` and `uncancel` are Python 3.11's).
            if getattr(task, "cancelling", lambda: 0)():
                getattr(task, "uncancel", lambda: 0)()
            if task in self._withdrawn and _TURN_CANCEL is not None and _TURN_CANCEL.permission is not None:
                # A permission request of a turn this client cancelled.
                self._withdrawn.discard(task)
                answer = {"result": _TURN_CANCEL.permission[1]}
            else:
                stopped = True
                answer = {"error": {"code": -32800, "message": "Request cancelled"}}
        except _rt.RequestError as error:
            answer = {"error": error.to_json()}
        except Exception as error:  # noqa: BLE001 (any other failure of a handler answers -32603)
            answer = {"error": {"code": -32603, "message": str(error)}}
        self._permissions.pop(key, None)
        # The turn ends either way; the peer's `$/cancel_request` keeps its answer.
        ended = self._end_turn(key, method, params, answer)
        if not stopped:
            answer = ended
        if "result" in answer:
            self._before_response(request_id, method, params, answer["result"])
        response = {"jsonrpc": "2.0", "id": request_id, **answer}
        if self._role == "agent":
            self._queue(_text(response), overtaking=self._unordered)
        else:
            await self._write(response)
        if "result" in answer:
            self._after_response(method, params, answer["result"])

    def _before_response(self, request_id: _t.Any, method: str, params: _t.Any, result: _t.Any) -> None:
        """The agent's end, before its answer is queued: `initialize` decides
        the features (and opens rule R1's gate); a prompt whose handler sent
        no `turn_complete` gets one, when negotiated."""
        if self._role != "agent":
            return
        if method == _INITIALIZE:
            self._features = _features(params, result)
            self._outgoing = _outgoing(params, result)
            self._initialized = True
            self._direct = self._one_pass
            if self._features.session_ready and not self._unordered:
                self._gate = _gate()
            return
        turns = _TURNS
        if turns is None or method != turns.prompt or not isinstance(turns.end, _Complete):
            return
        key = _key(request_id)
        if key in self._completed:
            self._completed.discard(key)
            return
        reason = _get(result, turns.end.stop_reason)
        if self._features.turn_complete and not self._unordered and reason is not None:
            update = {turns.tag: turns.end.tag, turns.end.request: request_id, turns.end.stop_reason: reason}
            self._post_notification(turns.update, {turns.session: _get(params, turns.session), turns.payload: update})

    def _start_turn(self, key: str, method: str, params: _t.Any) -> None:
        """A request of the peer arrives: on the agent's end, a prompt for a
        session starts a turn, which `session/cancel` may cancel; on the
        client's, a permission request is noted with its session."""
        rules = _TURN_CANCEL
        session = _member(params, rules.session) if rules is not None else None
        if rules is None or session is None:
            return
        if self._role == "agent" and method == rules.prompt:
            # In v2, a prompt joins the session's foreground work still going.
            going = session in self._turns and not self._turns[session].cancelled.is_set()
            if rules.end == "result" or not going:
                self._turns[session] = _TurnInFlight(key)
        elif self._role == "client" and rules.permission is not None and method == rules.permission[0]:
            self._permissions[key] = session

    def _end_turn(self, key: str, method: str, params: _t.Any, answer: dict[str, _t.Any]) -> dict[str, _t.Any]:
        """The agent's end: in v1, the answer to a prompt whose turn was
        cancelled is the `cancelled` stop reason, whatever its handler ended
        with (the result's other members kept); the turn ends. In v2 the
        answer only accepts the prompt: a refused prompt ends a turn no state
        reported, and the `idle` state ends the others."""
        rules = _TURN_CANCEL
        if self._role != "agent" or rules is None or method != rules.prompt:
            return answer
        session = _member(params, rules.session)
        turn = self._turns.get(session) if session is not None else None
        if session is None or turn is None or turn.id != key:
            return answer
        if rules.end == "idle":
            if "error" in answer and not turn.active:
                del self._turns[session]
            return answer
        del self._turns[session]
        if not turn.cancelled.is_set():
            return answer
        result = answer.get("result")
        return {"result": {**(result if isinstance(result, dict) else {}), rules.stop_reason: rules.cancelled}}

    def _cancel_turn(self, method: str, params: _t.Any) -> None:
        """The agent's end read `session/cancel`: the turn of the session it
        names is cancelled, and its pending requests raise `TurnCancelled`.
        Their entries stay until the client's answer, which then settles
        nothing and is not reported."""
        rules = _TURN_CANCEL
        if self._role != "agent" or rules is None or method != rules.notification:
            return
        session = _member(params, rules.session)
        turn = self._turns.get(session) if session is not None else None
        if session is None or turn is None or turn.cancelled.is_set():
            return
        turn.cancelled.set()
        for pending in self._pending.values():
            if pending.session == session:
                _resolve(pending.future, (False, TurnCancelled(session)))

    def _withdraw_permissions(self, method: str, params: _t.Any) -> None:
        """The client's end sent `session/cancel`: the session's permission
        requests being handled stop, to be answered `cancelled` (`_answer`)."""
        rules = _TURN_CANCEL
        if self._role != "client" or rules is None or method != rules.notification:
            return
        session = _member(params, rules.session)
        for key, asked in list(self._permissions.items()):
            task = self._running.pop(key, None) if asked == session else None
            if task is not None:
                del self._permissions[key]
                self._withdrawn.add(task)
                self._stopping.add(task)
                if task in self._handling:
                    task.cancel()

    def _after_response(self, method: str, params: _t.Any, result: _t.Any) -> None:
        """The agent's end answered a request that opens a session: from now
        on its scoped notifications wait for `session/ready`."""
        if self._gate is None or _READY is None:
            return
        for opener, in_result in _READY.openers:
            session = _member(result if in_result else params, _READY.session) if opener == method else None
            if session is not None:
                self._gate.responded(session, 0)

    # The peer's notifications.

    def _notified(self, method: str, params: _t.Any) -> None:
        """A notification (its params as JSON) was read: what it does before
        its handler runs, and the client's turn machine reads it."""
        self._on_read(method, params)
        self._read += 1
        if self._machine is not None and _TURNS is not None and method == _TURNS.update:
            self._machine.update(params)
            self._mark_drained()

    def _follow(self, params: _t.Any, text: str) -> None:
        """The client's end read the update notification `text`, decoded in
        one pass (`params`): its turn machine reads each update that can change
        what it decides (`TurnMachine.watches`, known by the update's class),
        as the notification's JSON params; it only observes the others."""
        machine = self._machine
        if machine is None:
            return
        update = getattr(params, self._payload)
        watched = self._watched.get(type(update))
        if watched is None:
            watched = self._watched[type(update)] = machine.watches(_rt.variant_tag(update))
        if watched:
            message, _ = self._reader.read(text)
            machine.update(message["params"])
            self._mark_drained()

    def _on_read(self, method: str, params: _t.Any) -> None:
        """What a notification does as soon as it is read, before its handler
        runs: `$/cancel_request` cancels the handler it names, `session/cancel`
        the turn, `session/ready` releases what the agent's end held."""
        self._cancel_turn(method, params)
        if _CANCEL is not None and method == _CANCEL[0] and isinstance(params, dict) and _CANCEL[1] in params:
            running = self._running.pop(_key(params[_CANCEL[1]]), None)
            if running is not None:
                self._stopping.add(running)
                if running in self._handling:
                    running.cancel()
        if _READY is not None and method == _READY.notification and self._gate is not None:
            session = _member(params, _READY.session)
            for text in self._gate.ready(session) if session is not None else []:
                self._queue(text)

    async def _consume(self) -> None:
        """Handles the queued notifications in order, until none is left;
        one call at a time does."""
        if self._consuming:
            return
        self._consuming = True
        try:
            while self._inbox:
                method, params, line, handler, handled = self._inbox.popleft()
                try:
                    await self._handle(method, params, line, handler)
                finally:
                    if handled is not None and not handled.done():
                        handled.set_result(None)
        finally:
            self._consuming = False
            self._release()

    def _release(self) -> None:
        """No notification is being handled any more: a task of its own
        handles those queued meanwhile (their `receive` calls wait for them,
        or were cancelled); `join` hears when none is left."""
        if self._inbox:
            self._spawn(self._consume())
        elif self._emptied is not None:
            self._emptied.set_result(None)
            self._emptied = None

    def _report(self, method: str | None, error: _rt.RequestError, line: int) -> None:
        """Tells `dropped` of the `line`th message, which got neither an answer nor a handler."""
        if self._dropped is not None:
            self._dropped(Dropped(method, error, line))

    # The requests this end sent.

    async def _call(self, method: str, params: _t.Any) -> _t.Any:
        if self._closed is not None:
            raise self._closed
        wire = self._advertise(method, _wire(params))
        self._check(method)
        refused = self._offers.check(method, wire) if self._offers is not None else None
        if refused is not None:
            raise refused
        session = self._turn_session(method, wire)
        turn = self._turns.get(session) if session is not None else None
        if session is not None and turn is not None and turn.cancelled.is_set():
            raise TurnCancelled(session)
        asking = self._ask(method, wire)
        try:
            request_id = self._next_id
            self._next_id += 1
            future = asyncio.get_running_loop().create_future()
            pending = _Pending(method, wire, future, self._prompt(method, wire, request_id), session=session)
            self._pending[request_id] = pending
            try:
                await self._write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": wire})
            except BaseException:
                self._pending.pop(request_id, None)
                raise
            try:
                result = await pending.future
            except asyncio.CancelledError:
                abandoned = self._pending.pop(request_id, None)
                if abandoned is not None and abandoned.turn is not None and self._machine is not None:
                    # An abandoned prompt's turn ends for this end: the machine
                    # forgets it at its session's next prompt.
                    self._machine.response(request_id, True)
                if abandoned is not None and _CANCEL is not None:
                    self._post({"jsonrpc": "2.0", "method": _CANCEL[0], "params": {_CANCEL[1]: request_id}})
                # The result arrived, but not its caller: what follows it is still owed.
                for message in pending.follow:
                    self._post(message)
                raise
            follow, pending.follow = pending.follow, []
            for message in follow:
                await self._write(message)
            return result
        finally:
            # The permission request was answered, failed or abandoned.
            if asking is not None:
                self._answered(asking)

    def _ask(self, method: str, params: _t.Any) -> str | None:
        """The agent's end asks the user through `method` (v2): the first
        permission request of a session's work reports `requires_action`,
        unless that was the last state sent. Returns the session whose work
        waits, when this is such a request."""
        rules = _TURN_CANCEL
        awaiting = rules.awaiting if rules is not None else None
        if self._role != "agent" or rules is None or awaiting is None or method != awaiting.request:
            return None
        session = _member(params, rules.session)
        turn = self._turns.get(session) if session is not None else None
        if session is None or turn is None or not turn.active or turn.cancelled.is_set():
            return None
        turn.asking += 1
        if turn.asking == 1 and turn.state != awaiting.requires_action:
            self._report_state(session, awaiting.requires_action)
            turn.reported = True
        return session

    def _answered(self, session: str) -> None:
        """A permission request of `session`'s work was answered or failed:
        once none waits, work this end reported waiting resumes (`running`),
        unless it was cancelled or the agent reported a state."""
        awaiting = _TURN_CANCEL.awaiting if _TURN_CANCEL is not None else None
        turn = self._turns.get(session)
        if awaiting is None or turn is None:
            return
        turn.asking = max(0, turn.asking - 1)
        if turn.asking == 0 and turn.reported and not turn.cancelled.is_set():
            self._report_state(session, awaiting.running)

    def _report_state(self, session: str, value: str) -> None:
        """Sends the `state_update` of `session` saying `value`."""
        turns = _TURNS
        if turns is None or not isinstance(turns.end, _Idle):
            return
        update = {turns.tag: turns.end.tag, turns.end.state: value}
        self._post_notification(turns.update, {turns.session: session, turns.payload: update})

    def _turn_session(self, method: str, params: _t.Any) -> str | None:
        """The agent's end: the session whose turn its request `method` belongs to."""
        rules = _TURN_CANCEL
        if self._role != "agent" or rules is None or method not in rules.scoped:
            return None
        return _member(params, rules.session)

    def _prompt(self, method: str, params: _t.Any, request_id: int) -> _Prompt | None:
        """The client's end sends a prompt: its turn machine follows it from
        now on (`None`: the call ends on its response)."""
        if self._machine is None or _TURNS is None or method != _TURNS.prompt:
            return None
        self._machine.prompt(_member(params, _TURNS.session) or "", request_id)
        return _Prompt()

    def _settle(self, response: dict[str, _t.Any], line: int) -> None:
        """The peer answered a request in the `line`th message: its call
        returns, or a prompt's waits for its turn to drain."""
        request_id = response.get("id")
        # This end's ids count from 1: -1 finds nothing.
        key: int = request_id if isinstance(request_id, int) and not isinstance(request_id, bool) else -1
        pending = self._pending.get(key)
        if pending is None or (pending.turn is not None and pending.turn.answer is not None):
            self._report(None, _rt.RequestError(-32600, "a response to no request in flight", {"id": request_id}), line)
            return
        outcome = self._outcome(pending, response)
        if pending.turn is None or self._machine is None:
            del self._pending[key]
            _resolve(pending.future, outcome)
            return
        pending.turn.answer = outcome
        complete = self._machine.rules.complete
        stop_reason = _get(response.get("result"), complete.stop_reason) if complete is not None else None
        self._machine.response(key, not outcome[0], stop_reason)
        self._mark_drained()
        self._return_prompts()

    def _outcome(self, pending: _Pending, response: dict[str, _t.Any]) -> _Outcome:
        """The error of a response, or its decoded result; a result that
        decodes may change the features or owe a `session/ready`."""
        if "error" in response:
            error = response["error"]
            if isinstance(error, dict) and isinstance(error.get("code"), int) and isinstance(error.get("message"), str):
                return False, _rt.RequestError(error["code"], error["message"], error.get("data"))
            return False, _rt.RequestError(-32603, f"a malformed error for {pending.method}")
        try:
            decoded = _methods.decode_result(pending.method, response["result"])
        except _rt.DecodeError as failure:
            return False, failure
        result = response["result"]
        if self._offers is not None:
            self._offers.record(pending.method, pending.params, result)
        if pending.method == _INITIALIZE:
            self._features = _features(pending.params, result)
            if self._machine is not None and self._machine.rules.complete is not None:
                self._machine.turn_complete = self._features.turn_complete
            self._outgoing = _outgoing(pending.params, result)
        elif _READY is not None and self._features.session_ready and not self._unordered:
            for opener, in_result in _READY.openers:
                session = _member(result if in_result else pending.params, _READY.session) if opener == pending.method else None
                if session is not None:
                    pending.follow.append({"jsonrpc": "2.0", "method": _READY.notification, "params": {_READY.session: session}})
        return True, decoded

    def _mark_drained(self) -> None:
        """The machine was fed a message: the prompts whose turn it drained
        are drained at this read position (every notification read so far)."""
        if self._machine is None or not self._pending:
            return
        for request_id, pending in self._pending.items():
            turn = pending.turn
            if turn is not None and turn.drained is None and self._machine.is_drained(request_id):
                turn.drained = self._read

    def _return_prompts(self) -> None:
        """Every prompt whose turn is drained, and whose notifications read up
        to the message that drained it were handled, returns."""
        if not self._pending:
            return
        for request_id, pending in list(self._pending.items()):
            turn = pending.turn
            if turn is None or turn.answer is None or turn.drained is None or self._handled < turn.drained:
                continue
            del self._pending[request_id]
            _resolve(pending.future, turn.answer)

    # Sending.

    async def _tell(self, method: str, params: _t.Any) -> None:
        wire = _wire(params)
        self._check(method)
        if self._role == "agent":
            self._post_notification(method, wire)
        else:
            await self._write({"jsonrpc": "2.0", "method": method, "params": wire})
            self._withdraw_permissions(method, wire)

    def _post_notification(self, method: str, params: _t.Any) -> None:
        """The agent's end queues a notification, or its gate holds it (rule R1)."""
        turns = _TURNS
        if turns is not None and method == turns.update and isinstance(turns.end, _Complete):
            update = _get(params, turns.payload)
            if _get(update, turns.tag) == turns.end.tag and isinstance(update, dict) and turns.end.request in update:
                self._completed.add(_key(update[turns.end.request]))
        params = self._note_state(method, params)
        text = _text({"jsonrpc": "2.0", "method": method, "params": params})
        session = _member(params, _READY.session) if _READY is not None and method in _READY.scoped else None
        for queued in self._gate.send(session, text, 0) if self._gate is not None and session is not None else [text]:
            self._queue(queued)

    def _note_state(self, method: str, params: _t.Any) -> _t.Any:
        """The agent's end sends a `session/update` (protocol v2): a state that
        is not `idle` makes foreground work of the session, which
        `session/cancel` may cancel; `idle` ends it, with the `cancelled` stop
        reason written in when it was cancelled. Returns the params to send."""
        rules, turns = _TURN_CANCEL, _TURNS
        if rules is None or rules.end != "idle" or turns is None or not isinstance(turns.end, _Idle):
            return params
        update = _get(params, turns.payload)
        session = _member(params, turns.session)
        if method != turns.update or session is None or not isinstance(update, dict):
            return params
        if update.get(turns.tag) != turns.end.tag:
            return params
        if update.get(turns.end.state) != turns.end.idle:
            work = self._turns.setdefault(session, _TurnInFlight(""))
            work.active, work.state, work.reported = True, update.get(turns.end.state), False
            return params
        turn = self._turns.pop(session, None)
        if turn is None or not turn.cancelled.is_set():
            return params
        return {**params, turns.payload: {**update, rules.stop_reason: rules.cancelled}}

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
        for pending in self._pending.values():
            _resolve(pending.future, (False, self._closed))
        self._pending.clear()

    async def _write(self, message: dict[str, _t.Any]) -> None:
        """Sends `message`: the agent's end queues it after everything it made
        before; the client's end writes it at once."""
        if self._role == "agent":
            self._queue(_text(message))
        else:
            await self._send(_text(message))

    def _post(self, message: dict[str, _t.Any]) -> None:
        """Sends `message` from code that cannot wait for it."""
        if self._role == "agent":
            self._queue(_text(message))
        else:
            self._spawn(self._write(message))

    def _queue(self, text: str, overtaking: bool = False) -> None:
        """The agent's end: `text` leaves after everything queued before it
        (`overtaking`: before every text not overtaking)."""
        (self._overtaking if overtaking else self._outbox).append(text)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        """Writes what is queued, in order, until nothing is left; a `send`
        that fails closes the end."""
        while self._overtaking or self._outbox:
            text = self._overtaking.popleft() if self._overtaking else self._outbox.popleft()
            try:
                await self._send(text)
            except Exception as error:  # noqa: BLE001 (the transport is gone: every call fails with its error)
                self._overtaking.clear()
                self._outbox.clear()
                self.close(error)
                return

    def _spawn(self, work: _t.Coroutine[_t.Any, _t.Any, None]) -> asyncio.Task[None]:
        """Runs `work` as a task this end keeps until it is done."""
        task = asyncio.ensure_future(work)
        self._answering.add(task)
        task.add_done_callback(self._answering.discard)
        return task


def _text(message: dict[str, _t.Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _key(request_id: _t.Any) -> str:
    """A request id as a key: ids compare as JSON values, so `2` and `"2"` differ."""
    return json.dumps(request_id)


def _get(value: _t.Any, name: str) -> _t.Any:
    return value.get(name) if isinstance(value, dict) else None


def _member(value: _t.Any, name: str) -> str | None:
    found = _get(value, name)
    return found if isinstance(found, str) else None


def _failure(error: Exception) -> _rt.RequestError:
    """The error a notification's handler failed with, as the `Dropped` report says it."""
    return error if isinstance(error, _rt.RequestError) else _rt.RequestError(-32603, str(error))


def _resolve(future: asyncio.Future[_t.Any], outcome: _Outcome) -> None:
    if future.done():
        return
    if outcome[0]:
        future.set_result(outcome[1])
    else:
        future.set_exception(outcome[1])


def _is_version(value: _t.Any) -> _t.TypeGuard[int]:
    """Whether `value` is a protocol version: a non-negative integer."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


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


def {{ side.connect }}(handler: _t.Callable[[{{ side.name }}], {{ side.handler }}], send: Send, options: ConnectOptions | None = None) -> {{ side.name }}:
    """Opens the {{ side.label }}'s end of a connection over a transport that carries
    JSON text: `send` writes one message, and the caller hands every received
    message to `receive`. `handler` is called once with the connection and
    returns the {{ side.label }}'s implementation, so that its handlers can call
    the {{ side.peer }}; `options.dropped` hears of a received message that was not
    handled and gets no answer (a `Dropped`). The end keeps the ordering the
    module describes; `ConnectOptions(unordered=True)` turns it off."""
    return {{ side.name }}(
        handler,
        "{{ side.label }}",
        {{ side.dispatch_request }},
        {{ side.dispatch_notification }},
        {{ side.handles }},
        {{ side.notification_handlers }},
        send,
        options,
    )
{%- endfor %}

