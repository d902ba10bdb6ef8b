"""Our Python agent, for the interop matrix: the same turn as
`tests/interop/rust/src/bin/agent.rs`, on the generated package's connection
(importable as `acp_bindings`) over its own stdio. `ACP_INTEROP_TRACE` names
a file that records every message."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import acp_bindings as acp

import stdio


class Interop(acp.Agent):
    def __init__(self, end: Any) -> None:
        self.end = end
        self.client: dict[str, Any] = {}
        self.sessions: dict[str, Path] = {}

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        self.client = acp.to_json(params).get("clientCapabilities") or {}
        return acp.decode_result(
            "initialize",
            {"protocolVersion": 1, "agentInfo": {"name": "acp-codegen interop agent (Python)", "version": "0.1.0"}},
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session = f"session-{len(self.sessions) + 1}"
        self.sessions[session] = Path(acp.to_json(params)["cwd"])
        return acp.decode_result("session/new", {"sessionId": session})

    async def update(self, session: str, update: dict[str, Any]) -> None:
        await self.end.notify("session/update", {"sessionId": session, "update": update})

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session = acp.to_json(params)["sessionId"]
        if session not in self.sessions:
            raise acp.session_not_found(session)
        notes = str(self.sessions[session] / "notes.txt")
        fs = self.client.get("fs") or {}
        await self.update(
            session, {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Reading notes.txt."}}
        )
        await self.update(
            session,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "call-1",
                "title": "Read notes.txt",
                "kind": "read",
                "status": "in_progress",
            },
        )
        text = (
            acp.to_json(await self.end.request("fs/read_text_file", {"sessionId": session, "path": notes}))["content"]
            if fs.get("readTextFile")
            else ""
        )
        content = [{"type": "content", "content": {"type": "text", "text": text}}]
        await self.update(
            session,
            {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed", "content": content},
        )
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        tool_call = {"toolCallId": "call-2", "title": "Edit notes.txt", "kind": "edit"}
        answer = acp.to_json(
            await self.end.request(
                "session/request_permission", {"sessionId": session, "toolCall": tool_call, "options": options}
            )
        )
        allowed = answer["outcome"].get("outcome") == "selected" and answer["outcome"].get("optionId") == "allow"
        if allowed and fs.get("writeTextFile"):
            await self.end.request(
                "fs/write_text_file", {"sessionId": session, "path": notes, "content": f"{text}edited\n"}
            )
        await self.update(
            session,
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "Edited." if allowed else "Left as it was."},
            },
        )
        return acp.decode_result("session/prompt", {"stopReason": "end_turn"})


if __name__ == "__main__":
    asyncio.run(stdio.serve_agent(Interop))
