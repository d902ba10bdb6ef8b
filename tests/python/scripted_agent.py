"""The Python test agent: the one implementation of the generated package's
`Agent` protocol that the connection tests (`test_connection.py`), the
interop agents (`tests/interop/python/agent.py`, `agent_v2.py`) and the fuzz
harness (`fuzz_connection.py`) serve. It plays either protocol version, the
one of the package it is given (whose `PROTOCOL_VERSION` it reads): each
program imports its package its own way and hands it over.

`scripted_agent(package, ...)` returns the `(end) -> agent` that
`connect_agent` takes. The agent opens a session per `session/new`
(`session-1`, `session-2`, ...) and answers a prompt on any other session with
the schema's resource-not-found. A prompt plays a turn: on v1 inside the
prompt call, answered `end_turn`; on v2 after the call was acknowledged
(`running`, then the response with the prompt's message id), in a task of
its own, ended by `idle`. The turn is one of:

- `echo` (the default): chunks of the prompt's first text, `"<text> part
  <n>"`, as many as `chunks()` says, then (v1) a permission request when
  `ask()` says so; on v2 all of its chunks answer one message,
  `reply-<text>`.
- `notes`: the interop turn on `notes.txt` in the session's folder. v1: a
  chunk, a tool call that reads the file (when the client can), a
  permission request to edit it, the edit (when allowed and the client can
  write), a closing chunk. v2: the prompt echoed as the user's message, a
  chunk, a tool call in progress, a permission request on it, the tool
  call's end (completed when allowed, else failed), a closing chunk; a
  failed call ends the turn with `error`.

Options, each for the program that needs it:

- `info`: the agent's name and version in its `initialize` answer.
- `capabilities`: what its `initialize` answer advertises (none by default).
- `commands`: `session/new` sends the session's available commands before it
  answers (session-scoped: rule R1 holds them until the client's
  `session/ready`).
- `chunks`, `ask`: the `echo` turn's choices (1 chunk, no permission).
- `pause(most)`: awaited between the turn's steps, and after `session/new`'s
  commands (the connection tests' random waits).
- `played(text, chunks)`: told when an `echo` turn sent all its chunks.
- `completes(text)` (v1): after `played`, the request id of a `turn_complete`
  the handler sends itself, or `None` for none.
- `snapshot()` (v2): whether a prompt first repeats the session's `idle`
  state (a snapshot from before the turn, which must not end it).
- `any_session`: a prompt on any session plays its turn (the fuzz harness,
  whose inputs prompt without opening a session).
- `notified()`: the agent handles every notification and answers extension
  requests with `None`, calling `notified` for each notification (the fuzz
  harness accounts for every line it reads).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

OPTIONS = [
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]

INFO = {"name": "acp-codegen test agent (Python)", "version": "0.1.0"}


async def no_pause(_: int) -> None:
    return None


def allowed(answer: dict[str, Any]) -> bool:
    """Whether a permission answer selected "allow"."""
    return bool(answer["outcome"].get("outcome") == "selected" and answer["outcome"].get("optionId") == "allow")


def scripted_agent(
    package: Any,
    *,
    turn: str = "echo",
    info: dict[str, str] | None = None,
    capabilities: dict[str, Any] | None = None,
    commands: bool = False,
    chunks: Callable[[], int] = lambda: 1,
    ask: Callable[[], bool] = lambda: False,
    pause: Callable[[int], Awaitable[None]] = no_pause,
    played: Callable[[str, int], None] = lambda text, chunks: None,
    completes: Callable[[str], Any] = lambda text: None,
    snapshot: Callable[[], bool] = lambda: False,
    any_session: bool = False,
    notified: Callable[[], None] | None = None,
) -> Callable[[Any], Any]:
    """The agent factory `connect_agent` takes, on `package`'s protocol."""
    acp = package
    v2 = acp.PROTOCOL_VERSION == 2

    class ScriptedAgent(acp.Agent):  # type: ignore[misc, name-defined]
        def __init__(self, end: Any) -> None:
            self.end = end
            self.client: dict[str, Any] = {}
            self.opened = 0
            self.messages = 0
            self.sessions: dict[str, Path] = {}
            self.turns: set[asyncio.Task[None]] = set()

        async def initialize(self, params: Any) -> Any:
            self.client = acp.to_json(params).get("clientCapabilities") or {}
            answer: dict[str, Any] = {
                "protocolVersion": acp.PROTOCOL_VERSION,
                "info" if v2 else "agentInfo": info or INFO,
            }
            if capabilities is not None:
                answer["capabilities" if v2 else "agentCapabilities"] = capabilities
            return acp.decode_result("initialize", answer)

        async def update(self, session: str, update: dict[str, Any]) -> None:
            await self.end.notify("session/update", {"sessionId": session, "update": update})

        async def permission(self, session: str, tool_call: str, title: str) -> bool:
            if v2:
                subject = {"type": "tool_call", "toolCall": {"toolCallId": tool_call}}
                request = {"sessionId": session, "title": f"{title}?", "subject": subject, "options": OPTIONS}
            else:
                call = {"toolCallId": tool_call, "title": title, "kind": "edit"}
                request = {"sessionId": session, "toolCall": call, "options": OPTIONS}
            return allowed(acp.to_json(await self.end.request("session/request_permission", request)))

        async def session_new(self, params: Any) -> Any:
            self.opened += 1
            session = f"session-{self.opened}"
            self.sessions[session] = Path(acp.to_json(params)["cwd"])
            if commands:
                available = [{"name": "explain", "description": "Explains the code"}]
                await self.update(
                    session, {"sessionUpdate": "available_commands_update", "availableCommands": available}
                )
                await pause(3)
            return acp.decode_result("session/new", {"sessionId": session})

        if v2:
            # `session` offers these with `session/new` and `session/prompt`:
            # the end advertises it only when the agent answers them all.

            async def session_list(self, params: Any) -> Any:
                return acp.decode_result("session/list", {"sessions": []})

            async def session_resume(self, params: Any) -> Any:
                session = acp.to_json(params)["sessionId"]
                if not any_session and session not in self.sessions:
                    raise acp.session_not_found(session)
                return acp.decode_result("session/resume", {})

            async def session_close(self, params: Any) -> Any:
                self.sessions.pop(acp.to_json(params)["sessionId"], None)
                return acp.decode_result("session/close", {})

        async def session_prompt(self, params: Any) -> Any:
            request = acp.to_json(params)
            session = request["sessionId"]
            if not any_session and session not in self.sessions:
                raise acp.session_not_found(session)
            prompt = request["prompt"]
            text = prompt[0]["text"] if prompt and prompt[0].get("type") == "text" else ""
            if not v2:
                await (self.notes_v1(session) if turn == "notes" else self.echo_v1(session, text))
                return acp.decode_result("session/prompt", {"stopReason": "end_turn"})
            self.messages += 1
            message = f"message-{self.messages}" if turn == "notes" else f"message-{text}"
            if snapshot():
                await self.update(session, {"sessionUpdate": "state_update", "state": "idle"})
            await self.update(session, {"sessionUpdate": "state_update", "state": "running"})
            work = self.notes_v2(session, prompt, message) if turn == "notes" else self.echo_v2(session, text)
            task = asyncio.ensure_future(work)
            self.turns.add(task)
            task.add_done_callback(self.turns.discard)
            return acp.decode_result("session/prompt", {"messageId": message})

        async def echo_v1(self, session: str, text: str) -> None:
            count = chunks()
            for index in range(count):
                await pause(3)
                chunk = {"type": "text", "text": f"{text} part {index}"}
                await self.update(session, {"sessionUpdate": "agent_message_chunk", "content": chunk})
            if ask():
                await self.permission(session, "call-1", "Edit")
            played(text, count)
            request = completes(text)
            if request is not None:
                # The handler is not given its request id: `completes` read it off the wire.
                complete = {"sessionUpdate": "turn_complete", "promptRequestId": request, "stopReason": "end_turn"}
                await self.update(session, complete)

        async def notes_v1(self, session: str) -> None:
            notes = str(self.sessions[session] / "notes.txt")
            fs = self.client.get("fs") or {}
            reading = {"type": "text", "text": "Reading notes.txt."}
            await self.update(session, {"sessionUpdate": "agent_message_chunk", "content": reading})
            call = {"sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Read notes.txt", "kind": "read"}
            await self.update(session, {**call, "status": "in_progress"})
            read = {"sessionId": session, "path": notes}
            text = (
                acp.to_json(await self.end.request("fs/read_text_file", read))["content"]
                if fs.get("readTextFile")
                else ""
            )
            content = [{"type": "content", "content": {"type": "text", "text": text}}]
            await self.update(
                session,
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "call-1",
                    "status": "completed",
                    "content": content,
                },
            )
            edit = await self.permission(session, "call-2", "Edit notes.txt")
            if edit and fs.get("writeTextFile"):
                write = {"sessionId": session, "path": notes, "content": f"{text}edited\n"}
                await self.end.request("fs/write_text_file", write)
            closing = {"type": "text", "text": "Edited." if edit else "Left as it was."}
            await self.update(session, {"sessionUpdate": "agent_message_chunk", "content": closing})

        async def echo_v2(self, session: str, text: str) -> None:
            count = chunks()
            for index in range(count):
                await pause(3)
                chunk = {"type": "text", "text": f"{text} part {index}"}
                reply = {"sessionUpdate": "agent_message_chunk", "messageId": f"reply-{text}", "content": chunk}
                await self.update(session, reply)
            played(text, count)
            await self.update(session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})

        async def notes_v2(self, session: str, prompt: list[Any], message: str) -> None:
            """The turn after its acknowledgement, ended by `idle` (`error` when a call failed)."""
            reply = f"reply-to-{message}"
            stop_reason = "end_turn"
            try:
                await self.update(session, {"sessionUpdate": "user_message", "messageId": message, "content": prompt})
                editing = {"type": "text", "text": "Editing notes.txt."}
                await self.update(
                    session, {"sessionUpdate": "agent_message_chunk", "messageId": reply, "content": editing}
                )
                call = {"sessionUpdate": "tool_call_update", "toolCallId": "call-1"}
                await self.update(session, {**call, "title": "Edit notes.txt", "kind": "edit", "status": "in_progress"})
                edit = await self.permission(session, "call-1", "Edit notes.txt")
                await self.update(session, {**call, "status": "completed" if edit else "failed"})
                closing = {"type": "text", "text": "Edited." if edit else "Left as it was."}
                await self.update(
                    session, {"sessionUpdate": "agent_message_chunk", "messageId": reply, "content": closing}
                )
            except Exception as error:  # noqa: BLE001 (a failed call ends the turn with `error`)
                print(f"the turn of {message} failed: {error}", file=sys.stderr)
                stop_reason = "error"
            await self.update(session, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason})

    if notified is None:
        return ScriptedAgent
    counted = notified

    class CountingAgent(ScriptedAgent):
        async def session_cancel(self, params: Any) -> None:
            counted()

        async def session_ready(self, params: Any) -> None:
            counted()

        async def cancel_request(self, params: Any) -> None:
            counted()

        async def extension_request(self, method: str, params: Any) -> Any:
            return None

        async def extension_notification(self, method: str, params: Any) -> None:
            counted()

    return CountingAgent
