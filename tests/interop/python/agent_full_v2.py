"""Our full-surface Python agent on protocol v2, for `cargo xtask conformance`:
it advertises every capability of the v2 schema and implements each handler
simply, on the connection of the v2 stable bindings' package (importable as
`acp_bindings`) over its own stdio.

Sessions live in memory: `session/new`, `session/list` (with the `cwd`
filter), `session/resume` (replaying the conversation before it answers when
`replayFrom` is `start`), `session/close`, `session/delete`, and config
options (a mode, a model and a boolean). `capabilities.session` advertises
image, audio and embedded-context prompts, stdio and HTTP MCP servers,
`delete` and `additionalDirectories`. An agent-handled authentication method
that always succeeds, a terminal one (offered when the client can run it:
`--login`, which always succeeds) and `auth/logout`.

A prompt is acknowledged at once (`running`, then its message id) and its
turn is played by a task: the user message, a plan, a tool call that asks
permission (the connection reports `requires_action` meanwhile) and runs in
a terminal, the prompt's words streamed back one chunk at a time, and `idle`.
`session/cancel` is the connection's: once the turn's cancellation event is
set, the turn ends at its next step with an `idle` the connection marks
`cancelled` (the permission request it waits on fails first); `session/close`
ends it at once with `idle` and the `cancelled` stop reason of its own.
Nothing of the turn follows it.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import sys
from dataclasses import dataclass, field
from typing import Any

import acp_bindings as acp

import stdio

MODES = [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}]
MODELS = [{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}]
# The pause between two steps of a turn, so that a turn lasts long enough to be cancelled.
PAUSE = 0.05


@dataclass
class Turn:
    """The turn in flight in a session: its prompt's message id and the reply streamed so far."""

    message: str
    text: list[str] = field(default_factory=list)
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    # The connection's cancellation event of the turn.
    cancelled: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def reply(self) -> str:
        return f"reply-to-{self.message}"


@dataclass
class Session:
    cwd: str
    directories: list[str]
    mode: str = "ask"
    model: str = "small"
    brief: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)
    updated: str = ""
    turn: Turn | None = None


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat().replace("+00:00", "Z")


def invalid(message: str) -> acp.RequestError:
    return acp.RequestError(-32602, message)


def state(name: str, stop_reason: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "state_update", "state": name}
    if stop_reason is not None:
        update["stopReason"] = stop_reason
    return update


class Full(acp.Agent):
    def __init__(self, end: Any) -> None:
        self.end = end
        self.sessions: dict[str, Session] = {}
        self.created = 0
        self.messages = 0
        self.turns: set[asyncio.Task[None]] = set()

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        client = acp.to_json(params).get("capabilities") or {}
        methods: list[dict[str, Any]] = [
            {"type": "agent", "methodId": "none", "name": "No credentials", "description": "Always succeeds."}
        ]
        if (client.get("auth") or {}).get("terminal") is not None:
            methods.append(
                {
                    "type": "terminal",
                    "methodId": "terminal",
                    "name": "Terminal login",
                    "description": "Runs this agent with --login, which always succeeds.",
                    "args": ["--login"],
                }
            )
        session: dict[str, Any] = {
            "prompt": {"image": {}, "audio": {}, "embeddedContext": {}},
            "mcp": {"stdio": {}, "http": {}},
            "delete": {},
            "additionalDirectories": {},
        }
        return acp.decode_result(
            "initialize",
            {
                "protocolVersion": acp.PROTOCOL_VERSION,
                "info": {"name": "acp-codegen full-surface agent (Python, v2)", "version": "0.1.0"},
                "capabilities": {"session": session},
                "authMethods": methods,
            },
        )

    async def auth_login(self, params: acp.LoginAuthRequest) -> acp.LoginAuthResponse:
        method = acp.to_json(params)["methodId"]
        if method != "none":
            raise invalid(f"no authentication method {method} for auth/login")
        return acp.decode_result("auth/login", {})

    async def auth_logout(self, params: acp.LogoutAuthRequest) -> acp.LogoutAuthResponse:
        return acp.decode_result("auth/logout", {})

    def config_options(self, session: Session) -> list[dict[str, Any]]:
        return [
            {
                "configId": "mode",
                "name": "Mode",
                "category": "mode",
                "type": "select",
                "currentValue": session.mode,
                "options": MODES,
            },
            {
                "configId": "model",
                "name": "Model",
                "category": "model",
                "type": "select",
                "currentValue": session.model,
                "options": MODELS,
            },
            {"configId": "brief", "name": "Brief answers", "type": "boolean", "currentValue": session.brief},
        ]

    def session(self, params: Any) -> tuple[str, Session]:
        session_id = acp.to_json(params)["sessionId"]
        if session_id not in self.sessions:
            raise acp.session_not_found(session_id)
        return session_id, self.sessions[session_id]

    async def update(self, session_id: str, update: dict[str, Any]) -> None:
        await self.end.notify("session/update", {"sessionId": session_id, "update": update})

    async def end_turn(self, session_id: str, session: Session, turn: Turn, stop_reason: str | None) -> None:
        """Ends `turn`, unless it has ended: its reply joins the history, then `idle` with `stop_reason`."""
        if session.turn is not turn:
            return
        session.turn = None
        if turn.text:
            content = [{"type": "text", "text": "".join(turn.text)}]
            session.history.append({"sessionUpdate": "agent_message", "messageId": turn.reply, "content": content})
        session.updated = now()
        turn.woken.set()
        await self.update(session_id, state("idle", stop_reason))

    async def cancel(self, session_id: str, session: Session | None) -> None:
        """Ends the turn in flight in `session`, if any, as cancelled."""
        if session is not None and session.turn is not None:
            await self.end_turn(session_id, session, session.turn, "cancelled")

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        request = acp.to_json(params)
        self.created += 1
        session_id = f"session-{self.created}"
        session = Session(request["cwd"], list(request.get("additionalDirectories") or []), updated=now())
        self.sessions[session_id] = session
        return acp.decode_result(
            "session/new", {"sessionId": session_id, "configOptions": self.config_options(session)}
        )

    async def session_resume(self, params: acp.ResumeSessionRequest) -> acp.ResumeSessionResponse:
        session_id, session = self.session(params)
        request = acp.to_json(params)
        if request["cwd"] != session.cwd:
            raise invalid(f"the session's cwd is {session.cwd}")
        start = request.get("replayFrom")
        if start is not None and start.get("type") != "start":
            raise invalid(f"no replay from {start.get('type')!r}")
        session.directories = list(request.get("additionalDirectories") or [])
        if start is not None:
            for update in session.history:
                await self.update(session_id, update)
        await self.update(session_id, state("idle" if session.turn is None else "running"))
        return acp.decode_result("session/resume", {"configOptions": self.config_options(session)})

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
        await self.cancel(session_id, session)
        del self.sessions[session_id]
        return acp.decode_result("session/close", {})

    async def session_delete(self, params: acp.DeleteSessionRequest) -> acp.DeleteSessionResponse:
        session_id = acp.to_json(params)["sessionId"]
        await self.cancel(session_id, self.sessions.get(session_id))
        self.sessions.pop(session_id, None)
        return acp.decode_result("session/delete", {})

    async def session_set_config_option(
        self, params: acp.SetSessionConfigOptionRequest
    ) -> acp.SetSessionConfigOptionResponse:
        _, session = self.session(params)
        request = acp.to_json(params)
        option, kind, value = request["configId"], request.get("type"), request.get("value")
        if option == "mode" and kind == "id" and value in {mode["value"] for mode in MODES}:
            session.mode = value
        elif option == "model" and kind == "id" and value in {model["value"] for model in MODELS}:
            session.model = value
        elif option == "brief" and kind == "boolean" and isinstance(value, bool):
            session.brief = value
        else:
            raise invalid(f"no value {value!r} ({kind}) for {option}")
        return acp.decode_result("session/set_config_option", {"configOptions": self.config_options(session)})

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session_id, session = self.session(params)
        if session.turn is not None:
            raise invalid(f"a turn is in progress in {session_id}")
        prompt = acp.to_json(params)["prompt"]
        self.messages += 1
        turn = Turn(f"message-{self.messages}", cancelled=self.end.cancellation(session_id))
        session.turn = turn
        session.history.append({"sessionUpdate": "user_message", "messageId": turn.message, "content": prompt})
        session.updated = now()
        await self.update(session_id, state("running"))
        task = asyncio.ensure_future(self.play(session_id, session, turn, prompt))
        self.turns.add(task)
        task.add_done_callback(self.turns.discard)
        return acp.decode_result("session/prompt", {"messageId": turn.message})

    # No terminal or tool call of this agent advertises `capabilities.cancel`.
    async def terminal_cancel(self, params: acp.CancelTerminalRequest) -> acp.CancelTerminalResponse:
        self.session(params)
        terminal = acp.to_json(params)["terminalId"]
        raise invalid(f"terminal {terminal} is unknown, has exited or cannot be cancelled")

    async def tool_call_cancel(self, params: acp.CancelToolCallRequest) -> acp.CancelToolCallResponse:
        self.session(params)
        call = acp.to_json(params)["toolCallId"]
        raise invalid(f"tool call {call} is unknown, final or cannot be cancelled")

    async def play(self, session_id: str, session: Session, turn: Turn, prompt: list[Any]) -> None:
        """The turn after its acknowledgement; each step only while the turn lasts."""

        async def live() -> bool:
            """Whether the turn lasts; a cancelled one ends here, with an `idle` the connection marks `cancelled`."""
            if session.turn is turn and turn.cancelled.is_set():
                await self.end_turn(session_id, session, turn, None)
            return session.turn is turn

        async def step(update: dict[str, Any], pause: bool = True) -> bool:
            if not await live():
                return False
            await self.update(session_id, update)
            if pause:
                try:
                    await asyncio.wait_for(turn.woken.wait(), PAUSE)
                except TimeoutError:
                    pass
            return await live()

        def plan(status: str) -> dict[str, Any]:
            entries = [
                {"content": "Count the words", "priority": "high", "status": status},
                {"content": "Say them back", "priority": "medium", "status": status},
            ]
            return {
                "sessionUpdate": "plan_update",
                "plan": {"type": "items", "planId": f"plan-{turn.message}", "entries": entries},
            }

        words = " ".join(block.get("text", f"[{block['type']}]") for block in prompt).split()
        call = {"sessionUpdate": "tool_call_update", "toolCallId": f"call-{turn.message}"}
        terminal = f"terminal-{turn.message}"
        try:
            before = [
                {"sessionUpdate": "user_message", "messageId": turn.message, "content": prompt},
                plan("pending"),
                {**call, "title": "Count the words", "kind": "execute", "status": "pending"},
            ]
            for update in before:
                if not await step(update):
                    return
            # The connection reports `requires_action` while the client decides, and `running` after.
            options = [
                {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ]
            subject = {"type": "tool_call", "toolCall": {"toolCallId": call["toolCallId"]}}
            asked = {"sessionId": session_id, "title": "Run `wc -w`?", "subject": subject, "options": options}
            answer = acp.to_json(await self.end.request("session/request_permission", asked))
            if not await live():
                return
            allowed = answer["outcome"].get("outcome") == "selected" and answer["outcome"].get("optionId") == "allow"
            ran: list[dict[str, Any]] = [{**call, "status": "failed"}]
            if allowed:
                output = base64.b64encode(f"{len(words)}\n".encode()).decode("ascii")
                ran = [
                    {**call, "status": "in_progress", "content": [{"type": "terminal", "terminalId": terminal}]},
                    {
                        "sessionUpdate": "terminal_update",
                        "terminalId": terminal,
                        "command": "wc -w",
                        "cwd": session.cwd,
                    },
                    {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal, "data": output},
                    {"sessionUpdate": "terminal_update", "terminalId": terminal, "exitStatus": {"exitCode": 0}},
                    {**call, "status": "completed"},
                    plan("in_progress"),
                ]
            for update in ran:
                if not await step(update):
                    return
            for word in words if allowed else ["Not", "counted."]:
                chunk = {"type": "text", "text": f"{word} "}
                if session.turn is turn:
                    turn.text.append(chunk["text"])
                if not await step({"sessionUpdate": "agent_message_chunk", "messageId": turn.reply, "content": chunk}):
                    return
            if await step(plan("completed"), pause=False):
                await self.end_turn(session_id, session, turn, "end_turn")
        except Exception as error:  # noqa: BLE001 (a failed call ends the turn with `error`)
            print(f"the turn of {turn.message} failed: {error}", file=sys.stderr)
            await self.end_turn(session_id, session, turn, None if turn.cancelled.is_set() else "error")


if __name__ == "__main__":
    # The terminal authentication method runs the agent with `--login`: nothing to log in to.
    if "--login" in sys.argv[1:]:
        print("Logged in: this agent needs no credentials.")
        sys.exit(0)
    asyncio.run(stdio.serve_agent(Full))
