"""Our Python client on protocol v2, for the interop matrix: the same session
as `tests/interop/rust-v2/src/bin/client_v2.rs`, on the connection of the v2
stable bindings' package (importable as `acp_bindings`). A prompt call
returns once its turn is drained (the acknowledgement, then the `idle` that
ends the turn, handled); the turn's stop reason is that `idle`'s. It runs
the agent command given after `--` over its stdio, answers permission
requests with the first "allow once" option, prints what it saw as JSON and
exits 0 when every prompt's turn ended, else names the first failure.
`--trace FILE` records every message.

python client_v2.py --cwd DIR [--trace FILE] [--prompt TEXT]... -- AGENT [ARGS]...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import acp_bindings as acp

UNSEEN = object()
"""No `idle` handled since the prompt went out."""


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True, type=Path)
    parser.add_argument("--trace", type=Path)
    parser.add_argument("--prompt", action="append", default=[])
    parser.add_argument("agent", nargs=argparse.REMAINDER)
    parsed = parser.parse_args()
    parsed.agent = [part for part in parsed.agent if part != "--"] if parsed.agent[:1] == ["--"] else parsed.agent
    if not parsed.agent or not parsed.cwd.is_absolute():
        parser.error("--cwd ABSOLUTE_DIR and an agent command after -- are required")
    return parsed


class Recorder:
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


class Interop(acp.Client):
    def __init__(self) -> None:
        self.seen: dict[str, Any] = {"updates": {}, "permissions": 0, "dropped": []}
        self.idle: Any = UNSEEN
        """The stop reason of the last `idle` handled (`None` when it gave none)."""

    async def session_request_permission(self, params: acp.RequestPermissionRequest) -> acp.RequestPermissionResponse:
        self.seen["permissions"] += 1
        options = acp.to_json(params)["options"]
        chosen = next((option for option in options if option["kind"] == "allow_once"), options[0] if options else None)
        outcome = {"outcome": "cancelled"} if chosen is None else {"outcome": "selected", "optionId": chosen["optionId"]}
        return acp.decode_result("session/request_permission", {"outcome": outcome})

    async def session_update(self, params: acp.UpdateSessionNotification) -> None:
        update = acp.to_json(params)["update"]
        kind = update["sessionUpdate"]
        self.seen["updates"][kind] = self.seen["updates"].get(kind, 0) + 1
        if kind == "state_update" and update.get("state") == "idle":
            self.idle = update.get("stopReason")


async def main() -> None:
    options = arguments()
    prompts = options.prompt or ["Read notes.txt, then update it."]
    recorder = Recorder(options.trace)
    # A process group of its own, so that its children stop with it.
    agent = await asyncio.create_subprocess_exec(
        *options.agent, cwd=options.cwd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**26, start_new_session=True
    )
    assert agent.stdin is not None and agent.stdout is not None
    stdin, stdout = agent.stdin, agent.stdout
    client = Interop()

    async def send(text: str) -> None:
        recorder.record("client-to-agent", text)
        stdin.write(text.encode() + b"\n")
        await stdin.drain()

    end = acp.connect_client(lambda _: client, send, lambda method, error: client.seen["dropped"].append(f"{method}: {error}"))

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
        info = {"name": "acp-codegen interop client (Python, v2)", "version": "0.1.0"}
        initialize = acp.InitializeRequest.model_validate({"protocolVersion": acp.PROTOCOL_VERSION, "info": info})
        initialized = acp.to_json(await end.request("initialize", initialize))
        session = await end.request("session/new", acp.NewSessionRequest.model_validate({"cwd": str(options.cwd)}))
        stop_reasons = []
        for text in prompts:
            client.idle = UNSEEN
            prompt = acp.PromptRequest.model_validate({"sessionId": session.session_id, "prompt": [{"type": "text", "text": text}]})
            await end.request("session/prompt", prompt)
            if client.idle is UNSEEN:
                raise RuntimeError("session/prompt: the call returned before an idle ended its turn")
            stop_reasons.append(client.idle)
        print(json.dumps({"agent": initialized.get("info"), "stopReasons": stop_reasons, **client.seen}))
        code = 0
    except Exception as error:  # noqa: BLE001 (the first failure is the cell's result)
        print(f"FAIL: {type(error).__name__}: {error} (dropped: {client.seen['dropped']})", file=sys.stderr)
        code = 1
    # The agent's children may keep its output open: the session is over, so
    # the whole group is stopped and this process ends without waiting.
    try:
        os.killpg(agent.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    sys.stdout.flush()
    os._exit(code)


if __name__ == "__main__":
    asyncio.run(main())
