# pyright: strict
"""The program of `usage.py` written with the official SDK
(`agent-client-protocol`, pinned in `requirements.txt`), kept to compare the
two: the same agent, client, messages and checks. Run by `test_usage.py`."""

from __future__ import annotations

import asyncio
from typing import Any

from acp import (
    RequestError,
    plan_entry,
    session_notification,
    start_tool_call,
    text_block,
    tool_content,
    update_agent_message_text,
    update_plan,
    update_tool_call,
)
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    AgentPlanUpdate,
    CreateElicitationRequest,
    CreateElicitationResponse,
    CreateFormSessionElicitationRequest,
    ElicitationSchema,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PromptRequest,
    PromptResponse,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionNotification,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)
from pydantic import BaseModel, TypeAdapter

Json = dict[str, Any]
AGENT_REQUESTS: dict[str, type[InitializeRequest] | type[NewSessionRequest] | type[PromptRequest]] = {
    "initialize": InitializeRequest,
    "session/new": NewSessionRequest,
    "session/prompt": PromptRequest,
}
ELICITATION_REQUEST: TypeAdapter[CreateElicitationRequest] = TypeAdapter(CreateElicitationRequest)
ELICITATION_RESPONSE: TypeAdapter[CreateElicitationResponse] = TypeAdapter(CreateElicitationResponse)


def to_json(value: BaseModel) -> Json:
    return value.model_dump(mode="json", by_alias=True, exclude_none=True)


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
        if message["method"] == "elicitation/create":
            ELICITATION_REQUEST.validate_python(message["params"])
            answer = AcceptElicitationResponse(action="accept", content={"branch": "main"})
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": to_json(answer)})
        raise RequestError.method_not_found(message["method"])

    async def on_notification(self, message: Json) -> None:
        if message["method"].startswith("_"):
            self.seen.append(f"extension {message['method']}")
        elif message["method"] == "session/update":
            notification = SessionNotification.model_validate(message["params"])
            match notification.update:
                case AgentMessageChunk(content=TextContentBlock(text=text)):
                    self.seen.append(f"message {text}")
                case ToolCallStart(title=title):
                    self.seen.append(f"tool {title}")
                case ToolCallProgress(status=status):
                    self.seen.append(f"tool update {status}")
                case AgentPlanUpdate(entries=entries):
                    self.seen.append(f"plan of {len(entries)}")
                case other:
                    self.seen.append(f"unknown {other.session_update}")


class Agent:
    def __init__(self, wire: Wire, client: Client) -> None:
        self.wire = wire
        self.client = client

    async def on_request(self, message: Json) -> Json:
        try:
            model = AGENT_REQUESTS.get(message["method"])
            if model is None:
                raise RequestError.method_not_found(message["method"])
            request = model.model_validate(message["params"])
            match request:
                case InitializeRequest(protocol_version=version):
                    result = to_json(InitializeResponse(protocol_version=version))
                case NewSessionRequest():
                    result = to_json(await self.new_session())
                case PromptRequest():
                    result = to_json(await self.prompt(request))
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        except RequestError as error:
            return self.wire.send({"jsonrpc": "2.0", "id": message["id"], "error": error.to_error_obj()})

    async def new_session(self) -> NewSessionResponse:
        options = [
            SessionConfigSelectOption(value="fast", name="Fast"),
            SessionConfigSelectOption(value="deep", name="Deep"),
        ]
        select = SessionConfigOptionSelect(
            id="model", name="Model", type="select", current_value="fast", options=options
        )
        return NewSessionResponse(session_id="s1", config_options=[select])

    async def update(self, session_id: str, update: Any) -> None:
        notification = session_notification(session_id, update)
        await self.client.on_notification(
            self.wire.send({"jsonrpc": "2.0", "method": "session/update", "params": to_json(notification)})
        )

    async def prompt(self, request: PromptRequest) -> PromptResponse:
        session = request.session_id
        await self.update(session, update_agent_message_text("Looking at the branch."))
        await self.update(session, start_tool_call("t1", "git status", kind="execute", status="pending"))
        output = tool_content(text_block("nothing to commit"))
        await self.update(session, update_tool_call("t1", status="completed", content=[output]))
        await self.update(session, update_plan([plan_entry("Merge the branch", priority="high", status="pending")]))
        await self.client.on_notification(
            self.wire.send({"jsonrpc": "2.0", "method": "_zed/cursor", "params": {"line": 3}})
        )
        ask = CreateFormSessionElicitationRequest(
            message="Which branch?", mode="form", requested_schema=ElicitationSchema(), session_id=session
        )
        answer = await self.client.on_request(self.wire.request("elicitation/create", to_json(ask)))
        if isinstance(ELICITATION_RESPONSE.validate_python(answer["result"]), AcceptElicitationResponse):
            await self.update(session, update_agent_message_text("Merged."))
        return PromptResponse(stop_reason="end_turn")


async def run() -> tuple[Wire, Client]:
    """Opens a session and sends one prompt; returns the wire and the client."""
    wire = Wire()
    client = Client(wire)
    agent = Agent(wire, client)
    await agent.on_request(wire.request("initialize", to_json(InitializeRequest(protocol_version=1))))
    session = NewSessionResponse.model_validate(
        (await agent.on_request(wire.request("session/new", to_json(NewSessionRequest(cwd="/repo", mcp_servers=[])))))[
            "result"
        ]
    )
    prompt = PromptRequest(session_id=session.session_id, prompt=[text_block("Merge my branch")])
    answer = await agent.on_request(wire.request("session/prompt", to_json(prompt)))
    assert PromptResponse.model_validate(answer["result"]).stop_reason == "end_turn"
    return wire, client


if __name__ == "__main__":
    print(asyncio.run(run())[1].seen)
