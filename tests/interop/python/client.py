"""Our Python client, for the interop matrix: the same session as
`tests/interop/rust/src/bin/client.rs`, on the generated package's connection
(importable as `acp_bindings`). It runs the agent command given after `--`
over its stdio, answers permission requests with the first "allow once"
option, serves file reads and writes inside `--cwd`, prints what it saw as
JSON and exits 0 when every prompt ended with a stop reason, else names the
first failure. `--trace FILE` records every message.

python client.py --cwd DIR [--trace FILE] [--authenticate METHOD] [--prompt TEXT]... -- AGENT [ARGS]...
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


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cwd", required=True, type=Path)
    parser.add_argument("--trace", type=Path)
    parser.add_argument("--authenticate")
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
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd.resolve()
        self.seen: dict[str, Any] = {"updates": {}, "permissions": 0, "reads": 0, "writes": 0, "dropped": []}

    def inside(self, path: str) -> Path:
        full = (self.cwd / path).resolve()
        if not full.is_relative_to(self.cwd):
            raise acp.RequestError(-32602, "Invalid params", {"outside": str(full)})
        return full

    async def session_request_permission(self, params: acp.RequestPermissionRequest) -> acp.RequestPermissionResponse:
        self.seen["permissions"] += 1
        options = acp.to_json(params)["options"]
        chosen = next((option for option in options if option["kind"] == "allow_once"), options[0] if options else None)
        outcome = {"outcome": "cancelled"} if chosen is None else {"outcome": "selected", "optionId": chosen["optionId"]}
        return acp.decode_result("session/request_permission", {"outcome": outcome})

    async def session_update(self, params: acp.SessionNotification) -> None:
        kind = acp.to_json(params)["update"]["sessionUpdate"]
        self.seen["updates"][kind] = self.seen["updates"].get(kind, 0) + 1

    async def fs_read_text_file(self, params: acp.ReadTextFileRequest) -> acp.ReadTextFileResponse:
        request = acp.to_json(params)
        text = self.inside(request["path"]).read_text()
        self.seen["reads"] += 1
        if request.get("line") is not None or request.get("limit") is not None:
            lines = text.split("\n")[max((request.get("line") or 1) - 1, 0) :]
            text = "".join(f"{line}\n" for line in lines[: request.get("limit") or len(lines)])
        return acp.decode_result("fs/read_text_file", {"content": text})

    async def fs_write_text_file(self, params: acp.WriteTextFileRequest) -> acp.WriteTextFileResponse:
        request = acp.to_json(params)
        self.inside(request["path"]).write_text(request["content"])
        self.seen["writes"] += 1
        return acp.decode_result("fs/write_text_file", {})


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
    client = Interop(options.cwd)

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
        initialize = acp.InitializeRequest.model_validate(
            {
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False},
                "clientInfo": {"name": "acp-codegen interop client (Python)", "version": "0.1.0"},
            }
        )
        initialized = acp.to_json(await end.request("initialize", initialize))
        if options.authenticate:
            await end.request("authenticate", acp.AuthenticateRequest.model_validate({"methodId": options.authenticate}))
        session = await end.request("session/new", acp.NewSessionRequest.model_validate({"cwd": str(options.cwd), "mcpServers": []}))
        stop_reasons = []
        for text in prompts:
            prompt = acp.PromptRequest.model_validate({"sessionId": session.session_id, "prompt": [{"type": "text", "text": text}]})
            response = acp.to_json(await end.request("session/prompt", prompt))
            stop_reasons.append(response["stopReason"])
        print(json.dumps({"agent": initialized.get("agentInfo"), "stopReasons": stop_reasons, **client.seen}))
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
