"""A small agent on the official Python SDK (`agent-client-protocol`, imported
as `acp`), for the interop matrix: the same turn as
`tests/interop/official-rust`, written the way the SDK's examples write an
agent (a subclass of `acp.Agent`, the client's connection from `on_connect`,
the helpers for updates, `acp.run_agent`). `ACP_INTEROP_TRACE` names a file
that records every message (see `recorded.py`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    AudioContentBlock,
    ClientCapabilities,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    Implementation,
    PermissionOption,
    ResourceContentBlock,
    TextContentBlock,
    ToolCallUpdate,
)

from recorded import RecordedStdio


class Interop(acp.Agent):
    client: acp.Client

    def __init__(self) -> None:
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, Path] = {}

    def on_connect(self, conn: acp.Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> acp.InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        return acp.InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="official Python SDK interop agent", version="0.12.1"),
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[Any] | None = None,
        **kwargs: Any,
    ) -> acp.NewSessionResponse:
        session_id = f"official-session-{len(self.sessions) + 1}"
        self.sessions[session_id] = Path(cwd)
        return acp.NewSessionResponse(session_id=session_id)

    async def prompt(
        self,
        session_id: str,
        prompt: list[
            TextContentBlock
            | ImageContentBlock
            | AudioContentBlock
            | ResourceContentBlock
            | EmbeddedResourceContentBlock
        ],
        **kwargs: Any,
    ) -> acp.PromptResponse:
        notes = str(self.sessions.get(session_id, Path()) / "notes.txt")
        fs = self.capabilities.fs
        await self.client.session_update(session_id, acp.update_agent_message_text("Reading notes.txt."))
        await self.client.session_update(
            session_id, acp.start_tool_call("call-1", "Read notes.txt", kind="read", status="in_progress")
        )
        text = (
            (await self.client.read_text_file(session_id, notes)).content
            if fs is not None and fs.read_text_file
            else ""
        )
        done = acp.update_tool_call("call-1", status="completed", content=[acp.tool_content(acp.text_block(text))])
        await self.client.session_update(session_id, done)
        options = [
            PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
            PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
        ]
        edit = ToolCallUpdate(tool_call_id="call-2", title="Edit notes.txt", kind="edit")
        answer = await self.client.request_permission(session_id, edit, options)
        allowed = answer.outcome.outcome == "selected" and answer.outcome.option_id == "allow"
        if allowed and fs is not None and fs.write_text_file:
            await self.client.write_text_file(session_id, notes, f"{text}edited\n")
        await self.client.session_update(
            session_id, acp.update_agent_message_text("Edited." if allowed else "Left as it was.")
        )
        return acp.PromptResponse(stop_reason="end_turn")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        pass


async def main() -> None:
    reader, writer = await acp.stdio_streams()
    trace = Path(os.environ["ACP_INTEROP_TRACE"]) if os.environ.get("ACP_INTEROP_TRACE") else None
    # acp.Agent is a Protocol whose methods have no bodies: mypy counts those this agent leaves out as abstract.
    agent = Interop()  # type: ignore[abstract]
    await acp.run_agent(agent, RecordedStdio(reader, writer, trace, sent="agent-to-client", received="client-to-agent"))


if __name__ == "__main__":
    asyncio.run(main())
