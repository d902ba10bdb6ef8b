"""Our Python agent on protocol v2, for the interop matrix: the same turn as
`tests/interop/rust-v2/src/bin/agent_v2.rs`, on the connection of the v2
stable bindings' package (importable as `acp_bindings`) over its own stdio.
A prompt is acknowledged at once (`running`, then the response) and its turn
is played by a task: the user message echoed, a chunk, a tool call (in
progress), a permission request, the tool call's end, a closing chunk and
`idle`. `ACP_INTEROP_TRACE` names a file that records every message."""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import acp_bindings as acp

import stdio


class Interop(acp.Agent):
    def __init__(self, end: Any) -> None:
        self.end = end
        self.sessions: set[str] = set()
        self.messages = 0
        self.turns: set[asyncio.Task[None]] = set()

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        info = {"name": "acp-codegen interop agent (Python, v2)", "version": "0.1.0"}
        return acp.decode_result(
            "initialize", {"protocolVersion": acp.PROTOCOL_VERSION, "info": info, "capabilities": {"session": {}}}
        )

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session = f"session-{len(self.sessions) + 1}"
        self.sessions.add(session)
        return acp.decode_result("session/new", {"sessionId": session})

    # `session` offers these with `session/new` and `session/prompt`: the end
    # advertises it only when the agent answers them all.
    async def session_list(self, params: acp.ListSessionsRequest) -> acp.ListSessionsResponse:
        return acp.decode_result("session/list", {"sessions": []})

    async def session_resume(self, params: acp.ResumeSessionRequest) -> acp.ResumeSessionResponse:
        session = acp.to_json(params)["sessionId"]
        if session not in self.sessions:
            raise acp.session_not_found(session)
        return acp.decode_result("session/resume", {})

    async def session_close(self, params: acp.CloseSessionRequest) -> acp.CloseSessionResponse:
        return acp.decode_result("session/close", {})

    async def update(self, session: str, update: dict[str, Any]) -> None:
        await self.end.notify("session/update", {"sessionId": session, "update": update})

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        request = acp.to_json(params)
        if request["sessionId"] not in self.sessions:
            raise acp.session_not_found(request["sessionId"])
        self.messages += 1
        message = f"message-{self.messages}"
        await self.update(request["sessionId"], {"sessionUpdate": "state_update", "state": "running"})
        task = asyncio.ensure_future(self.turn(request["sessionId"], request["prompt"], message))
        self.turns.add(task)
        task.add_done_callback(self.turns.discard)
        return acp.decode_result("session/prompt", {"messageId": message})

    async def turn(self, session: str, prompt: list[Any], message: str) -> None:
        """The turn after its acknowledgement, ended by `idle` (`error` when a call failed)."""
        reply = f"reply-to-{message}"
        stop_reason = "end_turn"
        try:
            await self.update(session, {"sessionUpdate": "user_message", "messageId": message, "content": prompt})
            await self.update(
                session,
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": reply,
                    "content": {"type": "text", "text": "Editing notes.txt."},
                },
            )
            call = {"sessionUpdate": "tool_call_update", "toolCallId": "call-1"}
            await self.update(session, {**call, "title": "Edit notes.txt", "kind": "edit", "status": "in_progress"})
            options = [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ]
            subject = {"type": "tool_call", "toolCall": {"toolCallId": "call-1"}}
            request = {"sessionId": session, "title": "Edit notes.txt?", "subject": subject, "options": options}
            answer = acp.to_json(await self.end.request("session/request_permission", request))
            allowed = answer["outcome"].get("outcome") == "selected" and answer["outcome"].get("optionId") == "allow"
            await self.update(session, {**call, "status": "completed" if allowed else "failed"})
            closing = {"type": "text", "text": "Edited." if allowed else "Left as it was."}
            await self.update(session, {"sessionUpdate": "agent_message_chunk", "messageId": reply, "content": closing})
        except Exception as error:  # noqa: BLE001 (a failed call ends the turn with `error`)
            print(f"the turn of {message} failed: {error}", file=sys.stderr)
            stop_reason = "error"
        await self.update(session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason})


if __name__ == "__main__":
    asyncio.run(stdio.serve_agent(Interop))
