# pyright: strict
"""A small agent and client written against the bindings as a programmer
would, each one end of a connection, joined by an in-memory wire that
carries JSON text: the client opens a session (whose config options the
agent builds) and sends a prompt; the agent streams a message chunk, a tool
call, its update and a plan, asks the client to fill a form, and answers
with a `PromptResponse`; the client matches on each update's kind.
Type-checked by `mypy --strict` and pyright (strict) and run by
`test_usage.py`, on the default schema; `usage_official.py` is the same
program written with the official SDK."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from acp_bindings import (
    Agent,
    AgentConnection,
    Client,
    ContentBlockText,
    CreateElicitationRequest,
    CreateElicitationRequestModeForm,
    CreateElicitationResponse,
    CreateElicitationResponseActionAccept,
    ElicitationSchema,
    ElicitationSessionScope,
    InitializeRequest,
    InitializeResponse,
    NewSessionRequest,
    NewSessionResponse,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PromptRequest,
    PromptResponse,
    RequestPermissionRequest,
    RequestPermissionResponse,
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
    connect_agent,
    connect_client,
)

Json = dict[str, Any]


class DemoClient(Client):
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def elicitation_create(self, params: CreateElicitationRequest) -> CreateElicitationResponse:
        return CreateElicitationResponse(action=CreateElicitationResponseActionAccept(content={"branch": "main"}))

    async def session_request_permission(self, params: RequestPermissionRequest) -> RequestPermissionResponse:
        raise NotImplementedError

    async def extension_notification(self, method: str, params: Any) -> None:
        self.seen.append(f"extension {method}")

    async def session_update(self, params: SessionNotification) -> None:
        match params.update:
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


class DemoAgent(Agent):
    def __init__(self, client: AgentConnection) -> None:
        self.client = client

    async def initialize(self, params: InitializeRequest) -> InitializeResponse:
        return InitializeResponse(protocol_version=params.protocol_version)

    async def session_new(self, params: NewSessionRequest) -> NewSessionResponse:
        select = SessionConfigOptionTypeSelect(
            current_value="fast",
            options=[
                SessionConfigSelectOption(value="fast", name="Fast"),
                SessionConfigSelectOption(value="deep", name="Deep"),
            ],
        )
        return NewSessionResponse(
            session_id="s1", config_options=[SessionConfigOption(id="model", name="Model", type_=select)]
        )

    async def update(self, session_id: str, update: SessionUpdate) -> None:
        await self.client.notify("session/update", SessionNotification(session_id=session_id, update=update))

    async def session_prompt(self, params: PromptRequest) -> PromptResponse:
        session = params.session_id
        await self.update(
            session, SessionUpdateAgentMessageChunk(content=ContentBlockText(text="Looking at the branch."))
        )
        await self.update(
            session,
            SessionUpdateToolCall(
                tool_call_id="t1", title="git status", kind=ToolKind.EXECUTE, status=ToolCallStatus.PENDING
            ),
        )
        output = ToolCallContentContent(content=ContentBlockText(text="nothing to commit"))
        await self.update(
            session, SessionUpdateToolCallUpdate(tool_call_id="t1", status=ToolCallStatus.COMPLETED, content=[output])
        )
        entry = PlanEntry(content="Merge the branch", priority=PlanEntryPriority.HIGH, status=PlanEntryStatus.PENDING)
        await self.update(session, SessionUpdatePlan(entries=[entry]))
        await self.client.notify_extension("_zed/cursor", {"line": 3})
        form = CreateElicitationRequestModeForm(
            requested_schema=ElicitationSchema(), kind=ElicitationSessionScope(session_id=session)
        )
        answer = await self.client.request(
            "elicitation/create", CreateElicitationRequest(message="Which branch?", mode=form)
        )
        if isinstance(answer.action, CreateElicitationResponseActionAccept):
            await self.update(session, SessionUpdateAgentMessageChunk(content=ContentBlockText(text="Merged.")))
        return PromptResponse(stop_reason=StopReason.END_TURN)


async def run() -> tuple[list[Json], DemoClient]:
    """Opens a session and sends one prompt; returns every message on the wire, in order, and the client."""
    wire: list[Json] = []
    client = DemoClient()

    async def to_agent(text: str) -> None:
        wire.append(json.loads(text))
        await agent_end.receive(text)

    async def to_client(text: str) -> None:
        wire.append(json.loads(text))
        await client_end.receive(text)

    agent_end = connect_agent(DemoAgent, to_client)
    client_end = connect_client(lambda _: client, to_agent)
    await client_end.request("initialize", InitializeRequest(protocol_version=1))
    session = await client_end.request("session/new", NewSessionRequest(cwd="/repo", mcp_servers=[]))
    answer = await client_end.request(
        "session/prompt",
        PromptRequest(session_id=session.session_id, prompt=[ContentBlockText(text="Merge my branch")]),
    )
    assert answer.stop_reason == StopReason.END_TURN
    return wire, client


if __name__ == "__main__":
    print(asyncio.run(run())[1].seen)
