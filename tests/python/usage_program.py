# pyright: strict
"""A small agent and client written against the bindings as a programmer
would, talking JSON-RPC over an in-memory wire: the client opens a session
(whose config options the agent builds) and sends a prompt; the agent decodes
it by method, streams a message chunk, a tool call, its update and a plan,
asks the client to fill a form, and answers with a `PromptResponse`; the
client matches on each update's kind. Type-checked by `mypy --strict` and
pyright (strict) and run by `test_usage.py`, on the default schema."""

from __future__ import annotations

import asyncio
from typing import Any

from acp_bindings import (
    ContentBlockText,
    CreateElicitationRequest,
    CreateElicitationRequestModeForm,
    CreateElicitationResponse,
    CreateElicitationResponseActionAccept,
    ElicitationSchema,
    ElicitationSessionScope,
    ExtensionNotification,
    NewSessionRequest,
    NewSessionResponse,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PromptRequest,
    PromptResponse,
    RequestError,
    SessionConfigOption,
    SessionConfigOptionTypeSelect,
    SessionConfigSelectOption,
    SessionNotification,
    SessionUpdate,
    SessionUpdateAgentMessageChunk,
    SessionUpdatePlan,
    SessionUpdateToolCall,
    SessionUpdateToolCallUpdate,
    StopReason,
    ToolCallContentContent,
    ToolCallStatus,
    ToolKind,
    decode_agent_request,
    decode_client_notification,
    decode_client_request,
    decode_result,
    to_json,
)

Json = dict[str, Any]


class Wire:
    """Every JSON-RPC message sent, in order, for the test to check."""

    def __init__(self) -> None:
        self.messages: list[Json] = []
        self.next_id = 0

    def request(self, method: str, params: Json) -> Json:
        self.next_id += 1
        return self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})

    def send(self, message: Json) -> Json:
        self.messages.append(message)
        return message


class Client:
    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.seen: list[str] = []

    async def on_request(self, message: Json) -> Json:
        request = decode_client_request(message["method"], message["params"])
        if isinstance(request, CreateElicitationRequest):
            answer = CreateElicitationResponse(action=CreateElicitationResponseActionAccept(content={"branch": "main"}))
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": to_json(answer)})
        raise RequestError(-32601, f"unexpected {message['method']}")

    async def on_notification(self, message: Json) -> None:
        notification = decode_client_notification(message["method"], message["params"])
        if isinstance(notification, ExtensionNotification):
            self.seen.append(f"extension {notification.method}")
        elif isinstance(notification, SessionNotification):
            match notification.update:
                case SessionUpdateAgentMessageChunk(content=ContentBlockText(text=text)):
                    self.seen.append(f"message {text}")
                case SessionUpdateToolCall(title=title):
                    self.seen.append(f"tool {title}")
                case SessionUpdateToolCallUpdate(status=status):
                    self.seen.append(f"tool update {status}")
                case SessionUpdatePlan(entries=entries):
                    self.seen.append(f"plan of {len(entries)}")
                case other:
                    self.seen.append(f"unknown {other.session_update}")


class Agent:
    def __init__(self, wire: Wire, client: Client) -> None:
        self.wire = wire
        self.client = client

    async def on_request(self, message: Json) -> Json:
        try:
            request = decode_agent_request(message["method"], message["params"])
            match request:
                case NewSessionRequest():
                    result = to_json(await self.new_session())
                case PromptRequest():
                    result = to_json(await self.prompt(request))
                case _:
                    raise RequestError(-32601, f"unsupported {message['method']}")
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        except RequestError as error:
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "error": error.to_json()})

    async def new_session(self) -> NewSessionResponse:
        select = SessionConfigOptionTypeSelect(
            current_value="fast", options=[SessionConfigSelectOption(value="fast", name="Fast"), SessionConfigSelectOption(value="deep", name="Deep")]
        )
        return NewSessionResponse(session_id="s1", config_options=[SessionConfigOption(id="model", name="Model", type_=select)])

    async def update(self, session_id: str, update: SessionUpdate) -> None:
        notification = SessionNotification(session_id=session_id, update=update)
        await self.client.on_notification(self.wire.send({"jsonrpc": "2.0", "method": "session/update", "params": to_json(notification)}))

    async def prompt(self, request: PromptRequest) -> PromptResponse:
        session = request.session_id
        await self.update(session, SessionUpdateAgentMessageChunk(content=ContentBlockText(text="Looking at the branch.")))
        await self.update(session, SessionUpdateToolCall(tool_call_id="t1", title="git status", kind=ToolKind.EXECUTE, status=ToolCallStatus.PENDING))
        output = ToolCallContentContent(content=ContentBlockText(text="nothing to commit"))
        await self.update(session, SessionUpdateToolCallUpdate(tool_call_id="t1", status=ToolCallStatus.COMPLETED, content=[output]))
        entry = PlanEntry(content="Merge the branch", priority=PlanEntryPriority.HIGH, status=PlanEntryStatus.PENDING)
        await self.update(session, SessionUpdatePlan(entries=[entry]))
        await self.client.on_notification(self.wire.send({"jsonrpc": "2.0", "method": "_zed/cursor", "params": {"line": 3}}))
        form = CreateElicitationRequestModeForm(requested_schema=ElicitationSchema(), kind=ElicitationSessionScope(session_id=session))
        ask = CreateElicitationRequest(message="Which branch?", mode=form)
        answer = await self.client.on_request(self.wire.request("elicitation/create", to_json(ask)))
        if isinstance(decode_result("elicitation/create", answer["result"]).action, CreateElicitationResponseActionAccept):
            await self.update(session, SessionUpdateAgentMessageChunk(content=ContentBlockText(text="Merged.")))
        return PromptResponse(stop_reason=StopReason.END_TURN)


async def run() -> tuple[Wire, Client]:
    """Opens a session and sends one prompt; returns the wire and the client."""
    wire = Wire()
    client = Client(wire)
    agent = Agent(wire, client)
    session = decode_result("session/new", (await agent.on_request(wire.request("session/new", to_json(NewSessionRequest(cwd="/repo", mcp_servers=[])))))["result"])
    prompt = PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text="Merge my branch")])
    answer = await agent.on_request(wire.request("session/prompt", to_json(prompt)))
    assert decode_result("session/prompt", answer["result"]).stop_reason == StopReason.END_TURN
    return wire, client


if __name__ == "__main__":
    print(asyncio.run(run())[1].seen)
