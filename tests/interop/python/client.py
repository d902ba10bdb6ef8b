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

import asyncio
from pathlib import Path
from typing import Any

import acp_bindings as acp

import stdio


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
        return stdio.permission_outcome(params)

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
    options = stdio.arguments(authenticate=True)
    client = Interop(options.cwd)

    async def play(end: Any) -> dict[str, Any]:
        initialize = acp.InitializeRequest.model_validate(
            {
                "protocolVersion": 1,
                "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False},
                "clientInfo": {"name": "acp-codegen interop client (Python)", "version": "0.1.0"},
            }
        )
        initialized = acp.to_json(await end.request("initialize", initialize))
        if options.authenticate:
            await end.request(
                "authenticate", acp.AuthenticateRequest.model_validate({"methodId": options.authenticate})
            )
        session = await end.request(
            "session/new", acp.NewSessionRequest.model_validate({"cwd": str(options.cwd), "mcpServers": []})
        )
        stop_reasons = []
        for text in options.prompt:
            prompt = acp.PromptRequest.model_validate(
                {"sessionId": session.session_id, "prompt": [{"type": "text", "text": text}]}
            )
            response = acp.to_json(await end.request("session/prompt", prompt))
            stop_reasons.append(response["stopReason"])
        return {"agent": initialized.get("agentInfo"), "stopReasons": stop_reasons, **client.seen}

    await stdio.run_client(options, client, client.seen["dropped"], play)


if __name__ == "__main__":
    asyncio.run(main())
