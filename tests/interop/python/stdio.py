"""What our Python interop programs share, whatever the protocol version:
the clients' command line, the trace they record, the permission answer,
and the stdio plumbing of both ends (a client runs its agent as a child
process in a group of its own; an agent serves its own stdio). The
protocol's own turn lives in each program, on the generated package of its
protocol version (importable as `acp_bindings`)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import acp_bindings as acp


def arguments(authenticate: bool) -> argparse.Namespace:
    """`--cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...`"""
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True, type=Path)
    parser.add_argument("--trace", type=Path)
    if authenticate:
        parser.add_argument("--authenticate")
    parser.add_argument("--prompt", action="append", default=[])
    parser.add_argument("agent", nargs=argparse.REMAINDER)
    parsed = parser.parse_args()
    parsed.agent = [part for part in parsed.agent if part != "--"] if parsed.agent[:1] == ["--"] else parsed.agent
    if not parsed.agent or not parsed.cwd.is_absolute():
        parser.error("--cwd ABSOLUTE_DIR and an agent command after -- are required")
    if not parsed.prompt:
        parsed.prompt = ["Read notes.txt, then update it."]
    return parsed


class Recorder:
    """Writes each message with its direction, one JSON line each, as `check-trace` reads them."""

    def __init__(self, path: Path | None) -> None:
        self.file = path.open("w") if path else None

    def record(self, direction: str, text: str) -> None:
        if self.file is None:
            return
        try:
            message: Any = json.loads(text)
        except ValueError:
            message = text
        self.file.write(json.dumps({"direction": direction, "message": message}) + "\n")
        self.file.flush()


def permission_outcome(params: acp.RequestPermissionRequest) -> acp.RequestPermissionResponse:
    """The first "allow once" option (else the first), or `cancelled` without options."""
    options = acp.to_json(params)["options"]
    chosen = next((option for option in options if option["kind"] == "allow_once"), options[0] if options else None)
    outcome = {"outcome": "cancelled"} if chosen is None else {"outcome": "selected", "optionId": chosen["optionId"]}
    return acp.decode_result("session/request_permission", {"outcome": outcome})


async def run_client(
    options: argparse.Namespace, client: Any, dropped: list[str], play: Callable[[Any], Awaitable[dict[str, Any]]]
) -> None:
    """Runs the agent command of `options`, connects `client`'s end to it,
    plays the session (`play` returns the summary printed as JSON) and exits
    0, or 1 naming the first failure and what the connection dropped."""
    recorder = Recorder(options.trace)
    # A process group of its own, so that its children stop with it.
    agent = await asyncio.create_subprocess_exec(
        *options.agent,
        cwd=options.cwd,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=2**26,
        start_new_session=True,
    )
    assert agent.stdin is not None and agent.stdout is not None
    stdin, stdout = agent.stdin, agent.stdout

    async def send(text: str) -> None:
        recorder.record("client-to-agent", text)
        stdin.write(text.encode() + b"\n")
        await stdin.drain()

    end = acp.connect_client(
        lambda _: client,
        send,
        acp.ConnectOptions(dropped=lambda report: dropped.append(f"{report.method}: {report.error}")),
    )

    async def read() -> None:
        received: list[asyncio.Task[None]] = []
        while line := await stdout.readline():
            text = line.decode().strip()
            if text:
                recorder.record("agent-to-client", text)
                # A task per text, in order: a handler may wait for the agent.
                received.append(asyncio.ensure_future(end.receive(text)))
        end.close(ConnectionError("the agent exited"))

    asyncio.ensure_future(read())
    try:
        print(json.dumps(await play(end)))
        code = 0
    except Exception as error:  # noqa: BLE001 (the first failure is the cell's result)
        print(f"FAIL: {type(error).__name__}: {error} (dropped: {dropped})", file=sys.stderr)
        code = 1
    # The agent's children may keep its output open: the session is over, so
    # the whole group is stopped and this process ends without waiting.
    try:
        os.killpg(agent.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    sys.stdout.flush()
    os._exit(code)


async def serve_agent(agent: Callable[[Any], Any]) -> None:
    """Serves the agent `agent` makes from its end over this process's
    stdio, recording every message to `ACP_INTEROP_TRACE` when it is set."""
    trace = os.environ.get("ACP_INTEROP_TRACE")
    recorder = Recorder(Path(trace) if trace else None)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def send(text: str) -> None:
        recorder.record("agent-to-client", text)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    end = acp.connect_agent(agent, send)
    received: list[asyncio.Task[None]] = []
    while line := await reader.readline():
        text = line.decode().strip()
        if text:
            recorder.record("client-to-agent", text)
            received.append(asyncio.ensure_future(end.receive(text)))
