"""Coverage-guided fuzzing of the connection's receive path with atheris
(`cargo xtask fuzz`, docs/fuzzing.md), on the default schema's package,
imported from its sources (`ACP_BINDINGS`/python) under atheris's
instrumentation. Run as `python fuzz_connection.py [libFuzzer flags]
[corpus folders]`. Imported as a module (`test_fuzz_seeds.py`, which
`cargo xtask test` runs on every seed), it needs no atheris and uses the
package as installed.

The fuzzer's bytes are the peer's side of a connection, one message a line
(decoded as UTF-8, a bad byte replaced, as a text transport reads it): each
non-blank line (blank: JSON whitespace only) goes to `receive` of an agent's
end (`connect_agent`) and of a client's end (`connect_client`), in one event
loop, with a small handler. The client's end has called `initialize`,
`session/new` and `session/prompt` first (ids 1 to 3), so that responses
have calls to settle. An input fails (an exception, which atheris keeps)
when an end raises, does not finish within HANG seconds (a hang), leaves a
task running once closed or writes more than `output_bound` allows
(unbounded growth), writes what is not a JSON-RPC message, or loses a line:
every line must be answered, reported to `dropped`, handed to a
notification handler, or settle a call. Only the prompt call may end
closed with its response taken (its turn was still being drained), so one
line fewer may be accounted for then.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from scripted_agent import scripted_agent

NAME = os.environ.get("ACP_PYTHON_PACKAGE", "acp_bindings")
if __name__ == "__main__":
    import atheris

    sys.path.insert(0, str(Path(os.environ["ACP_BINDINGS"]) / "python"))
    with atheris.instrument_imports(include=[NAME]):
        PACKAGE: Any = importlib.import_module(NAME)
else:
    PACKAGE = importlib.import_module(NAME)

HANG = 10.0
"""Seconds an end may take to handle an input."""

TURNS = 10_000
"""Event loop turns an end may take to finish its work once its input was read."""

LOOP = asyncio.new_event_loop()


def output_bound(lines: int, size: int) -> tuple[int, int]:
    """The most an end may write for `lines` messages read from `size` bytes:
    a bounded answer per message, each at most a constant plus a multiple of
    what it answers (messages, bytes)."""
    return 3 * lines + 8, 8 * size + 2048 * (lines + 3)


class Tally:
    """What became of the messages an end read."""

    def __init__(self) -> None:
        self.handled = 0
        self.dropped = 0
        self.settled = 0

    def drop(self, _: Any) -> None:
        self.dropped += 1


def params(method: str, value: dict[str, Any]) -> Any:
    table = PACKAGE.methods.REQUESTS if method in PACKAGE.methods.REQUESTS else PACKAGE.methods.NOTIFICATIONS
    return table[method].decode_params(value)


def result(method: str, value: dict[str, Any]) -> Any:
    return PACKAGE.methods.REQUESTS[method].decode_result(value)


def fuzz_agent(tally: Tally) -> Any:
    """The test agent (`scripted_agent.py`): it answers `initialize`
    (advertising session/ready and turn_complete), `session/new` and
    `session/prompt` on any session (after one update), and counts every
    notification it is handed."""

    def handled() -> None:
        tally.handled += 1

    return scripted_agent(
        PACKAGE,
        capabilities={"sessionCapabilities": {"ready": {}, "turnComplete": {}}},
        any_session=True,
        notified=handled,
    )


class FuzzClient(PACKAGE.Client):  # type: ignore[misc]
    """Refuses permission requests (the `cancelled` outcome) and counts every
    notification it is handed."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally

    async def session_request_permission(self, params: Any) -> Any:
        return result("session/request_permission", {"outcome": {"outcome": "cancelled"}})

    async def session_update(self, params: Any) -> None:
        self.tally.handled += 1

    async def cancel_request(self, params: Any) -> None:
        self.tally.handled += 1

    async def elicitation_complete(self, params: Any) -> None:
        self.tally.handled += 1

    async def extension_request(self, method: str, params: Any) -> Any:
        return None

    async def extension_notification(self, method: str, params: Any) -> None:
        self.tally.handled += 1


def lines(data: bytes) -> list[str]:
    """The non-blank lines of `data`, as text."""
    return [line.decode("utf-8", errors="replace") for line in data.split(b"\n") if line.strip(b" \t\r")]


async def quiet(side: str, waiting: set[asyncio.Task[Any]]) -> None:
    """Lets the loop run (one turn at least) until no task but this one and
    `waiting` is left."""
    current = asyncio.current_task()
    for _ in range(TURNS):
        await asyncio.sleep(0)
        if all(task is current or task in waiting for task in asyncio.all_tasks()):
            return
    raise AssertionError(f"hang: the {side}'s end still works after {TURNS} loop turns")


def check(side: str, received: list[str], data: bytes, sent: list[str], tally: Tally, allowance: int) -> None:
    """Checks what the end of `side` wrote and accounted for."""
    most_messages, most_bytes = output_bound(len(received), len(data))
    size = sum(len(text.encode("utf-8", errors="surrogatepass")) + 1 for text in sent)
    if size > most_bytes:
        raise AssertionError(f"growth: the {side}'s end wrote {size} bytes for {len(data)} (at most {most_bytes})")
    if len(sent) > most_messages:
        raise AssertionError(f"growth: the {side}'s end wrote {len(sent)} messages (at most {most_messages})")
    answered = 0
    for text in sent:
        message = json.loads(text)
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            raise AssertionError(f"the {side}'s end wrote what is not a JSON-RPC 2.0 message: {text!r}")
        if "method" not in message:
            answered += 1
    accounted = answered + tally.dropped + tally.handled + tally.settled
    if not len(received) - allowance <= accounted <= len(received):
        raise AssertionError(
            f"the {side}'s end read {len(received)} messages and accounted for {accounted}: {answered} answered, "
            f"{tally.dropped} reported, {tally.handled} handled, {tally.settled} settled a call"
        )


async def agent_end(data: bytes) -> None:
    tally = Tally()
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    end = PACKAGE.connect_agent(fuzz_agent(tally), send, PACKAGE.ConnectOptions(dropped=tally.drop))
    received = lines(data)
    for text in received:
        await end.receive(text)
    await quiet("agent", set())
    end.close()
    await quiet("agent", set())
    check("agent", received, data, sent, tally, 0)


async def client_end(data: bytes) -> None:
    tally = Tally()
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    end = PACKAGE.connect_client(lambda _: FuzzClient(tally), send, PACKAGE.ConnectOptions(dropped=tally.drop))
    calls = [
        asyncio.ensure_future(end.request("initialize", params("initialize", {"protocolVersion": 1}))),
        asyncio.ensure_future(end.request("session/new", params("session/new", {"cwd": "/", "mcpServers": []}))),
        asyncio.ensure_future(
            end.request("session/prompt", params("session/prompt", {"sessionId": "s", "prompt": []}))
        ),
    ]
    await quiet("client", set(calls))
    received = lines(data)
    for text in received:
        await end.receive(text)
    await quiet("client", set(calls))
    end.close()
    await quiet("client", set())
    closed = [isinstance(call.exception(), ConnectionError) for call in calls]
    tally.settled += closed.count(False)
    check("client", received, data, sent, tally, 1 if closed[2] else 0)


async def both(data: bytes) -> None:
    try:
        async with asyncio.timeout(HANG):
            await agent_end(data)
            await client_end(data)
    except TimeoutError as timeout:
        raise AssertionError(f"hang: the ends did not finish within {HANG} seconds") from timeout


def test_one_input(data: bytes) -> None:
    LOOP.run_until_complete(both(data))


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
