"""Our full-surface Python agent, for `cargo xtask conformance`: it
advertises every capability of the v1 schema the conformance kit checks and
implements each handler simply, on the generated package's connection
(importable as `acp_bindings`) over its own stdio.

Sessions live in memory: `session/new`, `session/load` (replaying the
conversation before it answers), `session/resume`, `session/list` (with the
`cwd` filter), `session/close`, `session/delete`, modes, a select config
option and, when the client offers it, a boolean one. A prompt is a turn that
streams the prompt's words back one chunk at a time around a tool call, and
ends `cancelled` as soon as `session/cancel` (or `session/close`) arrives.
An agent-handled authentication method that always succeeds, and `logout`.
"""

from __future__ import annotations

import asyncio
import datetime
from dataclasses import dataclass, field
from typing import Any

import acp_bindings as acp

import stdio

MODES = [
    {"id": "ask", "name": "Ask", "description": "Asks before acting."},
    {"id": "code", "name": "Code", "description": "Acts without asking."},
]
MODELS = [{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}]
# The pause between two streamed chunks, so that a turn lasts long enough to be cancelled.
PAUSE = 0.05


@dataclass
class Session:
    cwd: str
    directories: list[str]
    mode: str = "ask"
    model: str = "small"
    brief: bool | None = None
    history: list[dict[str, Any]] = field(default_factory=list)
    updated: str = ""
    cancelled: asyncio.Event | None = None


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


class Full(acp.Agent):
    def __init__(self, end: Any) -> None:
        self.end = end
        self.client: dict[str, Any] = {}
        self.sessions: dict[str, Session] = {}
        self.created = 0

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        self.client = acp.to_json(params).get("clientCapabilities") or {}
        capabilities = {
            "loadSession": True,
            "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True},
            "mcpCapabilities": {"http": True, "sse": True},
            "sessionCapabilities": {"list": {}, "delete": {}, "additionalDirectories": {}, "resume": {}, "close": {}},
            "auth": {"logout": {}},
        }
        return acp.decode_result(
            "initialize",
            {
                "protocolVersion": 1,
                "agentCapabilities": capabilities,
                "authMethods": [{"id": "none", "name": "No credentials", "description": "Always succeeds."}],
                "agentInfo": {"name": "acp-codegen full-surface agent (Python)", "version": "0.1.0"},
            },
        )

    async def authenticate(self, params: acp.AuthenticateRequest) -> acp.AuthenticateResponse:
        if acp.to_json(params)["methodId"] != "none":
            raise acp.RequestError(-32602, "unknown authentication method")
        return acp.decode_result("authenticate", {})

    async def logout(self, params: acp.LogoutRequest) -> acp.LogoutResponse:
        return acp.decode_result("logout", {})

    def config_options(self, session: Session) -> list[dict[str, Any]]:
        options: list[dict[str, Any]] = [
            {
                "id": "model",
                "name": "Model",
                "category": "model",
                "type": "select",
                "currentValue": session.model,
                "options": MODELS,
            }
        ]
        boolean = ((self.client.get("session") or {}).get("configOptions") or {}).get("boolean")
        if boolean is not None:
            options.append(
                {"id": "brief", "name": "Brief answers", "type": "boolean", "currentValue": bool(session.brief)}
            )
        return options

    def state(self, session: Session) -> dict[str, Any]:
        return {
            "modes": {"currentModeId": session.mode, "availableModes": MODES},
            "configOptions": self.config_options(session),
        }

    def session(self, params: Any) -> tuple[str, Session]:
        session_id = acp.to_json(params)["sessionId"]
        if session_id not in self.sessions:
            raise acp.RequestError(-32002, f"no session {session_id}")
        return session_id, self.sessions[session_id]

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        request = acp.to_json(params)
        self.created += 1
        session_id = f"session-{self.created}"
        session = Session(request["cwd"], list(request.get("additionalDirectories") or []), updated=now())
        self.sessions[session_id] = session
        return acp.decode_result("session/new", {"sessionId": session_id, **self.state(session)})

    async def session_load(self, params: acp.LoadSessionRequest) -> acp.LoadSessionResponse:
        session_id, session = self.session(params)
        session.cwd = acp.to_json(params)["cwd"]
        for update in session.history:
            await self.update(session_id, update, record=False)
        return acp.decode_result("session/load", self.state(session))

    async def session_resume(self, params: acp.ResumeSessionRequest) -> acp.ResumeSessionResponse:
        _, session = self.session(params)
        session.cwd = acp.to_json(params)["cwd"]
        return acp.decode_result("session/resume", self.state(session))

    async def session_list(self, params: acp.ListSessionsRequest) -> acp.ListSessionsResponse:
        cwd = acp.to_json(params).get("cwd")
        sessions = [
            {
                "sessionId": session_id,
                "cwd": session.cwd,
                "title": f"Session {session_id}",
                "updatedAt": session.updated,
            }
            | ({"additionalDirectories": session.directories} if session.directories else {})
            for session_id, session in self.sessions.items()
            if cwd is None or session.cwd == cwd
        ]
        return acp.decode_result("session/list", {"sessions": sessions})

    async def session_close(self, params: acp.CloseSessionRequest) -> acp.CloseSessionResponse:
        session_id, session = self.session(params)
        if session.cancelled is not None:
            session.cancelled.set()
        del self.sessions[session_id]
        return acp.decode_result("session/close", {})

    async def session_delete(self, params: acp.DeleteSessionRequest) -> acp.DeleteSessionResponse:
        session = self.sessions.pop(acp.to_json(params)["sessionId"], None)
        if session is not None and session.cancelled is not None:
            session.cancelled.set()
        return acp.decode_result("session/delete", {})

    async def session_set_mode(self, params: acp.SetSessionModeRequest) -> acp.SetSessionModeResponse:
        session_id, session = self.session(params)
        mode = acp.to_json(params)["modeId"]
        if mode not in {m["id"] for m in MODES}:
            raise acp.RequestError(-32602, f"no mode {mode}")
        session.mode = mode
        await self.update(session_id, {"sessionUpdate": "current_mode_update", "currentModeId": mode}, record=False)
        return acp.decode_result("session/set_mode", {})

    async def session_set_config_option(
        self, params: acp.SetSessionConfigOptionRequest
    ) -> acp.SetSessionConfigOptionResponse:
        _, session = self.session(params)
        request = acp.to_json(params)
        value = request.get("value")
        if request["configId"] == "model" and value in {model["value"] for model in MODELS}:
            session.model = value
        elif request["configId"] == "brief" and isinstance(value, bool):
            session.brief = value
        else:
            raise acp.RequestError(-32602, f"no value {value!r} for {request['configId']}")
        return acp.decode_result("session/set_config_option", {"configOptions": self.config_options(session)})

    async def session_cancel(self, params: acp.CancelNotification) -> None:
        session = self.sessions.get(acp.to_json(params)["sessionId"])
        if session is not None and session.cancelled is not None:
            session.cancelled.set()

    async def update(self, session_id: str, update: dict[str, Any], record: bool = True) -> None:
        session = self.sessions.get(session_id)
        if record and session is not None:
            session.history.append(update)
            session.updated = now()
        await self.end.notify("session/update", {"sessionId": session_id, "update": update})

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session_id, session = self.session(params)
        prompt = acp.to_json(params)["prompt"]
        cancelled = asyncio.Event()
        session.cancelled = cancelled
        try:
            for block in prompt:
                session.history.append({"sessionUpdate": "user_message_chunk", "content": block})
            words = " ".join(block.get("text", f"[{block['type']}]") for block in prompt).split()
            call = f"call-{len(session.history)}"
            steps: list[dict[str, Any]] = [
                {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Reading the prompt."}},
                {"sessionUpdate": "tool_call", "toolCallId": call, "title": "Count the words", "kind": "think"},
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": f"{len(words)} words"}}],
                },
            ]
            steps += [
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": word + " "}}
                for word in words
            ]
            for step in steps:
                if cancelled.is_set():
                    break
                await self.update(session_id, step)
                try:
                    await asyncio.wait_for(cancelled.wait(), PAUSE)
                except TimeoutError:
                    pass
            stop = "cancelled" if cancelled.is_set() else "end_turn"
            return acp.decode_result("session/prompt", {"stopReason": stop})
        finally:
            if session.cancelled is cancelled:
                session.cancelled = None


if __name__ == "__main__":
    asyncio.run(stdio.serve_agent(Full))
