"""The RFD helpers of the Python package on every scenario of `tests/helpers.json`.

The session-ready gate, the turn tracker fed `session/update` params decoded
as `SessionNotification`, and `next_step` on a negotiated view each decide as
the table says (the Rust and TypeScript helpers run the same table); each
helper is built from a negotiated initialize pair, so it follows the
capability.

Collected only for the default schema's bindings (`ACP_DEFAULT_SCHEMA`,
`conftest.DEFAULT_SCHEMA_ONLY`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())
TABLE = json.loads((Path(__file__).resolve().parent.parent / "helpers.json").read_text(encoding="utf-8"))


def negotiated(setup: dict[str, bool]) -> Any:
    """A negotiated view with the setup's features, from a v1 initialize pair."""
    names = {"sessionReady": "ready", "turnComplete": "turnComplete", "sessionStatus": "status"}
    session = {capability: {} for feature, capability in names.items() if setup.get(feature)}
    request = {"protocolVersion": 1, "clientCapabilities": {}}
    response = {
        "protocolVersion": 1,
        "agentCapabilities": {"loadSession": setup.get("load", False), "sessionCapabilities": session},
    }
    return PACKAGE.negotiate(request, response)


def plain(value: Any) -> Any:
    """A helper's result as JSON: observations and violations as the table writes them."""
    if isinstance(value, PACKAGE.Observation):
        return {
            "turn": value.turn,
            "drained": value.drained,
            "violations": [plain(violation) for violation in value.violations],
        }
    if isinstance(value, PACKAGE.Violation):
        return {"rule": value.rule, "kind": value.kind, "session": value.session, "request": value.request}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def run_gate(setup: dict[str, bool], steps: list[dict[str, Any]]) -> list[tuple[int, Any, Any]]:
    gate = PACKAGE.SessionReadyGate.from_negotiated(negotiated(setup))
    assert gate.required == setup["sessionReady"]
    checked: list[tuple[int, Any, Any]] = []
    for index, step in enumerate(steps):
        if "responded" in step:
            gate.responded(step["responded"], step["now"])
            continue
        if "send" in step:
            got: Any = gate.send(step["send"], step["item"], step["now"])
        elif "ready" in step:
            got = gate.ready(step["ready"])
        elif "closed" in step:
            got = gate.closed(step["closed"])
        elif "expire" in step:
            got = [
                {"session": session, "items": items} for session, items in gate.expire(step["expire"], step["timeout"])
            ]
        else:
            raise AssertionError(f"unknown gate step {step}")
        checked.append((index, got, step["expect"]))
    return checked


def run_turns(setup: dict[str, bool], steps: list[dict[str, Any]]) -> list[tuple[int, Any, Any]]:
    tracker = PACKAGE.TurnTracker.from_negotiated(negotiated(setup))
    assert tracker.turn_complete == setup["turnComplete"]
    checked: list[tuple[int, Any, Any]] = []
    for index, step in enumerate(steps):
        if "prompt" in step:
            tracker.prompt(step["prompt"]["session"], step["prompt"]["request"])
            assert tracker.pending(step["prompt"]["session"]) == step["prompt"]["request"]
            continue
        if "update" in step:
            got = tracker.update(PACKAGE.SessionNotification.model_validate(step["update"]))
        elif "response" in step:
            stop = step["response"]["stopReason"]
            got = tracker.response(step["response"]["request"], None if stop is None else PACKAGE.StopReason(stop))
        else:
            raise AssertionError(f"unknown turn step {step}")
        checked.append((index, plain(got), step["expect"]))
    return checked


def run_status(setup: dict[str, bool], steps: list[dict[str, Any]]) -> list[tuple[int, Any, Any]]:
    view = negotiated(setup)
    return [
        (index, PACKAGE.next_step(view, PACKAGE.SessionStatus(step["status"])), step["expect"])
        for index, step in enumerate(steps)
    ]


RUNNERS = {"gate": run_gate, "turns": run_turns, "status": run_status}


# The scenarios of other schemas run on their bindings (`test_helpers_v2.py`).
@pytest.mark.parametrize(
    "scenario",
    [scenario for scenario in TABLE["scenarios"] if "schema" not in scenario],
    ids=lambda scenario: f"{scenario['helper']}: {scenario['name']}",
)
def test_scenario(scenario: dict[str, Any]) -> None:
    checked = RUNNERS[scenario["helper"]](scenario["setup"], scenario["steps"])
    assert checked, "a scenario checks something"
    for index, got, expected in checked:
        assert json.loads(json.dumps(plain(got))) == expected, f"step {index}"


def test_an_agent_and_a_client_use_the_helpers() -> None:
    """Seed 000's early `available_commands_update` held until `session/ready`, seed 004's late chunk reported."""
    request = {"protocolVersion": 1, "clientCapabilities": {}}
    response = {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"ready": {}, "turnComplete": {}}}}
    negotiated = PACKAGE.negotiate(request, response)

    gate = PACKAGE.SessionReadyGate.from_negotiated(negotiated)
    gate.responded("sess_1", 0)
    assert gate.send("sess_1", "available_commands_update", 1) == []
    assert gate.ready("sess_1") == ["available_commands_update"]

    turns = PACKAGE.TurnTracker.from_negotiated(negotiated)
    turns.prompt("sess_1", 2)
    done = PACKAGE.SessionNotification.model_validate(
        {
            "sessionId": "sess_1",
            "update": {"sessionUpdate": "turn_complete", "promptRequestId": 2, "stopReason": "end_turn"},
        }
    )
    assert turns.update(done).violations == ()
    assert turns.response(2, PACKAGE.StopReason.END_TURN).drained == 2
    late = PACKAGE.SessionNotification.model_validate(
        {
            "sessionId": "sess_1",
            "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Done."}},
        }
    )
    (violation,) = turns.update(late).violations
    assert (violation.rule, violation.kind) == ("R4", "update_after_response")

    assert PACKAGE.next_step(negotiated, PACKAGE.SessionStatus.LIVE) == "not_negotiated"


COMMANDS = {"sessionId": "sess_1", "update": {"sessionUpdate": "available_commands_update", "availableCommands": []}}


async def wired_session(agent_capabilities: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]], list[str]]:
    """An agent's end and a client's end wired to each other, each message
    delivered in order by a task of its own; the agent's `session/new` handler
    sends `available_commands_update` before answering. Returns the order of
    the messages, the messages, and the updates the client saw."""
    log: list[tuple[str, dict[str, Any]]] = []
    updates: list[str] = []
    tasks: list[asyncio.Task[None]] = []
    ends: dict[str, Any] = {}
    queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()

    def deliver(direction: str, to: str) -> Any:
        async def send(text: str) -> None:
            log.append((direction, json.loads(text)))
            await queue.put((to, text))

        return send

    async def pump() -> None:
        while True:
            to, text = await queue.get()
            await ends[to].receive(text)
            queue.task_done()

    class Client:
        async def session_update(self, params: Any) -> None:
            updates.append(str(params.update.session_update))

    class Agent:
        def __init__(self, connection: Any) -> None:
            self.connection = connection

        async def initialize(self, params: Any) -> Any:
            return PACKAGE.InitializeResponse.model_validate(
                {"protocolVersion": 1, "agentCapabilities": agent_capabilities}
            )

        async def session_new(self, params: Any) -> Any:
            await self.connection.notify("session/update", PACKAGE.SessionNotification.model_validate(COMMANDS))
            return PACKAGE.NewSessionResponse.model_validate({"sessionId": "sess_1"})

    ends["client"] = PACKAGE.connect_client(lambda _: Client(), deliver("client-to-agent", "agent"))
    ends["agent"] = PACKAGE.connect_agent(Agent, deliver("agent-to-client", "client"))
    tasks.append(asyncio.ensure_future(pump()))
    await ends["client"].request(
        "initialize", PACKAGE.InitializeRequest.model_validate({"protocolVersion": 1, "clientCapabilities": {}})
    )
    created = await ends["client"].request(
        "session/new", PACKAGE.NewSessionRequest.model_validate({"cwd": "/", "mcpServers": []})
    )
    assert created.session_id == "sess_1"
    for _ in range(20):
        await queue.join()
        await asyncio.sleep(0)
    tasks[0].cancel()
    order = [
        f"{direction} {message['method']}" if "method" in message else f"{direction} response {message['id']}"
        for direction, message in log
    ]
    return order, [message for _, message in log], updates


def test_the_connections_send_session_ready_and_hold_session_update_until_it_arrives() -> None:
    """Rule R1, negotiated: the client's end confirms the session, the agent's end holds its update until then."""
    order, messages, updates = asyncio.run(wired_session({"sessionCapabilities": {"ready": {}}}))
    assert order == [
        "client-to-agent initialize",
        "agent-to-client response 1",
        "client-to-agent session/new",
        "agent-to-client response 2",
        "client-to-agent session/ready",
        "agent-to-client session/update",
    ]
    assert messages[4]["params"] == {"sessionId": "sess_1"}
    assert updates == ["available_commands_update"]


def test_without_the_capability_the_connections_neither_confirm_nor_hold() -> None:
    order, _, updates = asyncio.run(wired_session({}))
    assert order[2:] == ["client-to-agent session/new", "agent-to-client session/update", "agent-to-client response 2"]
    assert updates == ["available_commands_update"]
