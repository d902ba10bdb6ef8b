"""The package's connection, end to end (the Python twin of
`tests/rust/connection.rs` and `tests/rust/connection_v2.rs`): an agent and a
client of the installed package, each written on the `Agent` / `Client`
protocols, talk in one event loop through an in-memory transport that keeps
the order of messages but delivers each after a random number of loop turns,
with handlers and a `send` that yield at random too, all from one seed.

Every message each end writes and reads is logged in the order it happened,
and the log is checked for the rules the connection exists to keep: R1 (no
`session/update` leaves the agent before it read that session's
`session/ready`), R2 and R4 (the package's `TurnTracker` on what the client
sent and read, and prompts that got no `turn_complete`), and that a prompt
call returns only when every update of its turn has been handled
("undrained"). Thousands of turns with the ordering on find none; the same
schedules with `unordered=True` (`ConnectOptions`) on both ends find each kind, and an ordered
client against an unordered agent still returns no prompt undrained. Smaller
tests cover a turn that ends after its response, an error response, and
cancellation both ways.

The scenario follows the schema (`ACP_SCHEMA_LABEL`, set by `cargo xtask
test`; `conftest.SCHEMA_SUITES` collects this file for these two only):
`default`, protocol v1 with the RFDs, where the agent advertises
`session/ready` and `turn_complete`; `v2-stable`, protocol v2, where a
prompt's response only acknowledges it and the agent's worker sends the
turn's chunks and then its `idle` state after the response (and the prompt
handler sometimes first repeats the session's `idle`, a snapshot from before
the turn, which must not end it).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from typing import Any

import pytest

from conftest import bindings_folder, installed_package
from scripted_agent import scripted_agent

PACKAGE = installed_package(bindings_folder())
LABEL = os.environ.get("ACP_SCHEMA_LABEL", "")
V2 = LABEL == "v2-stable"


class V2Sessions:
    """Protocol v2's `session` capability offers `session/list`,
    `session/resume` and `session/close` with `session/new` and
    `session/prompt`: an agent's end advertises it when its agent answers
    them all, and the client's end calls none of them otherwise."""

    if V2:

        async def session_list(self, params: Any) -> Any:
            return PACKAGE.ListSessionsResponse(sessions=[])

        async def session_resume(self, params: Any) -> Any:
            return PACKAGE.ResumeSessionResponse()

        async def session_close(self, params: Any) -> Any:
            return PACKAGE.CloseSessionResponse()

        async def session_new(self, params: Any) -> Any:
            return PACKAGE.NewSessionResponse(session_id="s")


SEEDS = 40
SESSIONS = 3
PROMPTS = 20
"""Seeds per mode, sessions per run and prompts per session: 2,400 turns."""

RUN_TIMEOUT = 10.0
"""Seconds one run may take before it counts as stuck."""


def test_the_package_is_the_schema_the_scenario_is_written_for() -> None:
    """The v1 scenario needs `session/ready` and `turn_complete`, the v2 one
    the `state_update` of protocol v2: a package without them fails here
    rather than passing a scenario that cannot fit it."""
    assert LABEL in ("default", "v2-stable"), LABEL
    assert PACKAGE.PROTOCOL_VERSION == (2 if V2 else 1)
    updates = json.dumps(PACKAGE.roundtrip("SessionUpdate", chunk("x", "probe")))
    assert "agent_message_chunk" in updates
    if V2:
        idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        assert PACKAGE.roundtrip("SessionUpdate", idle) == idle
        assert "session/ready" not in PACKAGE.methods.NOTIFICATIONS
    else:
        complete = {"sessionUpdate": "turn_complete", "promptRequestId": 1, "stopReason": "end_turn"}
        assert PACKAGE.roundtrip("SessionUpdate", complete) == complete
        assert "session/ready" in PACKAGE.methods.NOTIFICATIONS


# Messages, built from JSON through the package's method tables.


def params_for(method: str, value: dict[str, Any]) -> Any:
    table = PACKAGE.methods.REQUESTS if method in PACKAGE.methods.REQUESTS else PACKAGE.methods.NOTIFICATIONS
    return table[method].decode_params(value)


def result(method: str, value: dict[str, Any]) -> Any:
    return PACKAGE.methods.REQUESTS[method].decode_result(value)


def chunk(text: str, prompt: str) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    if V2:
        update["messageId"] = f"reply-{prompt}"
    return update


def initialize_params() -> Any:
    if V2:
        return params_for("initialize", {"protocolVersion": 2, "info": {"name": "test client", "version": "1"}})
    return params_for("initialize", {"protocolVersion": 1, "clientCapabilities": {}})


def new_session_params() -> Any:
    return params_for("session/new", {"cwd": "/tmp"} if V2 else {"cwd": "/tmp", "mcpServers": []})


def prompt_params(session: str, text: str) -> Any:
    return params_for("session/prompt", {"sessionId": session, "prompt": [{"type": "text", "text": text}]})


def permission_params(session: str) -> Any:
    options = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
    if V2:
        return params_for("session/request_permission", {"sessionId": session, "title": "Run it?", "options": options})
    return params_for(
        "session/request_permission", {"sessionId": session, "toolCall": {"toolCallId": "call-1"}, "options": options}
    )


def prompt_of(text: str) -> str:
    """The prompt a chunk answers: `s0 t3 part 1` answers `s0 t3`."""
    return text.rsplit(" part ", 1)[0]


# The schedule: one seeded generator, and a transport that keeps order.


class Dice:
    """The seeded randomness every part of one run draws from."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def below(self, bound: int) -> int:
        return self.random.randrange(bound)

    async def pause(self, most: int) -> None:
        """Yields to the event loop a random number of times (up to `most`)."""
        for _ in range(self.random.randint(0, most)):
            await asyncio.sleep(0)


Log = list[tuple[str, dict[str, Any]]]
"""Every message: where it happened (`agent_wrote`, `agent_read`,
`client_wrote`, `client_read`) and the message, in order."""


class Pipe:
    """One direction of the transport: `send` waits at random, then puts the
    message on the wire; the pump hands each to the reading end, in order,
    after a random number of loop turns, whether or not the reading end
    has handled the one before."""

    def __init__(self, dice: Dice, log: Log, wrote: str, read: str) -> None:
        self.dice = dice
        self.log = log
        self.wrote = wrote
        self.read = read
        self.wire: asyncio.Queue[str] = asyncio.Queue()
        self.in_flight = 0
        self.prompts: dict[str, Any] = {}
        """The request id of each prompt on the wire, by its text."""
        self.answered: set[str] = set()
        """The ids (as JSON) of the responses on the wire."""

    async def send(self, text: str) -> None:
        self.in_flight += 1
        await self.dice.pause(2)
        message = json.loads(text)
        self.log.append((self.wrote, message))
        if message.get("method") == "session/prompt":
            self.prompts[message["params"]["prompt"][0]["text"]] = message["id"]
        elif "method" not in message:
            self.answered.add(json.dumps(message.get("id")))
        self.wire.put_nowait(text)

    async def pump(self, end: Any) -> None:
        """Hands each text to `receive` in a task of its own, in order, and
        at random waits for it (a notification's `receive` returns once it
        was handled) or goes on reading."""
        receiving: set[asyncio.Task[None]] = set()
        while True:
            text = await self.wire.get()
            await self.dice.pause(3)
            self.log.append((self.read, json.loads(text)))
            task = asyncio.ensure_future(end.receive(text))
            receiving.add(task)
            task.add_done_callback(self.received)
            task.add_done_callback(receiving.discard)
            if self.dice.below(2) == 0:
                await task

    def received(self, task: asyncio.Task[None]) -> None:
        self.in_flight -= 1


@dataclass
class Run:
    """Both ends of one connection over two pipes, with their pumps."""

    agent: Any
    client: Any
    pipes: tuple[Pipe, Pipe]
    tasks: list[asyncio.Task[Any]]

    async def quiet(self) -> None:
        """Waits until nothing is on the wire or being written for a while,
        and every notification read was handled; then stops the pumps."""
        idle = 0
        while idle < 100:
            await asyncio.sleep(0)
            idle = idle + 1 if all(pipe.in_flight == 0 for pipe in self.pipes) else 0
        await self.client.join()
        await self.agent.join()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


@dataclass(frozen=True)
class Mode:
    """Which ends keep the ordering (the others are opened `unordered`)."""

    agent: bool
    client: bool


ORDERED = Mode(agent=True, client=True)
UNORDERED = Mode(agent=False, client=False)
CLIENT_ONLY = Mode(agent=False, client=True)


def connect(
    dice: Dice,
    log: Log,
    agent: Callable[[Any, tuple[Pipe, Pipe]], Any],
    client: Callable[[Any], Any],
    mode: Mode,
    dropped: Any = None,
    agent_dropped: Any = None,
) -> Run:
    """Both ends, as `mode` says, the client's telling `dropped` and the
    agent's `agent_dropped` of what they drop; `agent` gets its end and the
    pipes (to the agent, to the client), whose wire it may look at."""
    to_agent = Pipe(dice, log, "client_wrote", "agent_read")
    to_client = Pipe(dice, log, "agent_wrote", "client_read")
    agent_end = PACKAGE.connect_agent(
        lambda end: agent(end, (to_agent, to_client)),
        to_client.send,
        PACKAGE.ConnectOptions(dropped=agent_dropped, unordered=not mode.agent),
    )
    client_end = PACKAGE.connect_client(
        client, to_agent.send, PACKAGE.ConnectOptions(dropped=dropped, unordered=not mode.client)
    )
    tasks = [asyncio.ensure_future(to_agent.pump(agent_end)), asyncio.ensure_future(to_client.pump(client_end))]
    return Run(agent_end, client_end, (to_agent, to_client), tasks)


# The agents and the client.

Counts = dict[str, int]


@dataclass
class Tally:
    """What one run's agent sent and its client handled."""

    sent: Counts = field(default_factory=dict)
    """Per prompt text, the chunks of its turn the agent sent."""
    handled: Counts = field(default_factory=dict)
    """Per prompt text, the chunks the client handled."""
    owed: set[str] = field(default_factory=set)
    """The prompt texts whose turn ends with a `turn_complete` (v1): the
    agent sent it, or its end adds it."""
    completed: set[str] = field(default_factory=set)
    """The request ids (as JSON) of the `turn_complete` updates the client handled."""

    def drained(self, text: str, request: Any) -> bool:
        """Whether the client handled every update the agent sent for the prompt."""
        expected = self.sent.get(text)
        if expected is None or self.handled.get(text) != expected:
            return False
        return text not in self.owed or json.dumps(request) in self.completed


def v1_agent(
    dice: Dice, tally: Tally, pipes: tuple[Pipe, Pipe], ordered: bool, completes: bool
) -> Callable[[Any], Any]:
    """The test agent on v1 with the RFDs: it advertises `session/ready` and
    `turn_complete`; each session's `session/new` handler sends a
    session-scoped update before answering (rule R1 holds it); each prompt's
    handler sends its chunks, sometimes asks for permission, and sometimes
    sends its own `turn_complete` (the end adds it otherwise); always, when
    its end is unordered and `completes`."""

    def complete(text: str) -> Any:
        if (completes and not ordered) or dice.below(4) == 0:
            tally.owed.add(text)
            return pipes[0].prompts[text]
        if ordered:
            # The end adds it.
            tally.owed.add(text)
        return None

    return scripted_agent(
        PACKAGE,
        capabilities={"sessionCapabilities": {"ready": {}, "turnComplete": {}}},
        commands=True,
        chunks=lambda: 1 + dice.below(5),
        ask=lambda: dice.below(3) == 0,
        pause=dice.pause,
        played=tally.sent.__setitem__,
        completes=complete,
    )


def v2_agent(dice: Dice, tally: Tally, snapshots: bool) -> Callable[[Any], Any]:
    """The test agent on v2: it acknowledges each prompt (reports `running`
    and answers) and plays the turn in a task of its own: the chunks, then
    `idle`. When `snapshots`, a prompt's handler sometimes first repeats the
    session's `idle` state (a snapshot of the work before the prompt, which
    does not end its turn)."""
    return scripted_agent(
        PACKAGE,
        chunks=lambda: 1 + dice.below(5),
        pause=dice.pause,
        played=tally.sent.__setitem__,
        snapshot=lambda: snapshots and dice.below(4) == 0,
    )


class CountingClient(PACKAGE.Client):  # type: ignore[misc, name-defined]
    """Counts the chunks and `turn_complete` updates it handled, each after a random pause."""

    def __init__(self, dice: Dice, tally: Tally) -> None:
        self.dice = dice
        self.tally = tally

    async def session_request_permission(self, params: Any) -> Any:
        await self.dice.pause(2)
        return result("session/request_permission", {"outcome": {"outcome": "selected", "optionId": "allow"}})

    async def session_update(self, params: Any) -> None:
        await self.dice.pause(4)
        update = PACKAGE.to_json(params)["update"]
        if update["sessionUpdate"] == "agent_message_chunk":
            prompt = prompt_of(update["content"]["text"])
            self.tally.handled[prompt] = self.tally.handled.get(prompt, 0) + 1
        elif update["sessionUpdate"] == "turn_complete":
            self.tally.completed.add(json.dumps(update["promptRequestId"]))


# One run, and what its log shows.


@dataclass
class Found:
    """Violations of each kind found in one run (or added up)."""

    r1: int = 0
    """Sessions with a `session/update` that left the agent before it read their `session/ready`."""
    r2: int = 0
    """The turn tracker's R2 violations, and prompts that got no `turn_complete`."""
    r4: int = 0
    undrained: int = 0
    """Prompt calls that returned before the client handled every update the
    agent sent for their turn (its chunks, and its `turn_complete` in v1)."""
    turns: int = 0

    def __iadd__(self, other: Found) -> Found:
        for member in fields(self):
            setattr(self, member.name, getattr(self, member.name) + getattr(other, member.name))
        return self


async def prompt_sessions(run: Run, dice: Dice, tally: Tally, found: Found) -> None:
    """Opens `SESSIONS` sessions and prompts each `PROMPTS` times, the
    sessions concurrently; counts the calls that returned undrained."""

    async def session(index: int) -> None:
        created = await run.client.request("session/new", new_session_params())
        for turn in range(PROMPTS):
            await dice.pause(2)
            text = f"s{index} t{turn}"
            await run.client.request("session/prompt", prompt_params(created.session_id, text))
            if not tally.drained(text, run.pipes[0].prompts[text]):
                found.undrained += 1
            found.turns += 1

    await asyncio.gather(*(session(index) for index in range(SESSIONS)))


async def run_v1(seed: int, mode: Mode) -> Found:
    dice = Dice(seed)
    log: Log = []
    tally = Tally()
    # Against an unordered agent, an ordered client relies on the agent's own `turn_complete`.
    completes = mode.client
    run = connect(
        dice,
        log,
        lambda end, pipes: v1_agent(dice, tally, pipes, mode.agent, completes)(end),
        lambda _: CountingClient(dice, tally),
        mode,
    )
    found = Found()
    await run.client.request("initialize", initialize_params())
    await prompt_sessions(run, dice, tally, found)
    await run.quiet()
    checked = check_v1(log)
    checked.undrained = found.undrained
    checked.turns = found.turns
    return checked


def check_v1(log: Log) -> Found:
    """R1 on the agent's side of the log; R2 and R4 by the turn tracker on
    the client's side (prompts as it wrote them, the rest as it read it)."""
    found = Found()
    ready: set[str] = set()
    early: set[str] = set()
    tracker = PACKAGE.TurnTracker(True)
    prompts: dict[str, Any] = {}
    sent: set[str] = set()
    completed: set[str] = set()
    update = PACKAGE.methods.NOTIFICATIONS["session/update"]
    for event, message in log:
        method = message.get("method")
        session = (message.get("params") or {}).get("sessionId", "")
        if event == "agent_read" and method == "session/ready":
            ready.add(session)
        elif event == "agent_wrote" and method == "session/update" and session not in ready:
            early.add(session)
        elif event == "client_wrote" and method == "session/prompt":
            key = json.dumps(message["id"])
            sent.add(key)
            prompts[key] = message["id"]
            tracker.prompt(session, message["id"])
        elif event == "client_read" and method == "session/update":
            if message["params"]["update"]["sessionUpdate"] == "turn_complete":
                completed.add(json.dumps(message["params"]["update"]["promptRequestId"]))
            count(found, tracker.update(update.decode_params(message["params"])))
        elif event == "client_read" and method is None:
            request = prompts.pop(json.dumps(message.get("id")), None)
            if request is not None:
                stop_reason = (message.get("result") or {}).get("stopReason")
                count(
                    found, tracker.response(request, None if stop_reason is None else PACKAGE.StopReason(stop_reason))
                )
    found.r1 = len(early)
    found.r2 += len(sent - completed)
    return found


def count(found: Found, observation: Any) -> None:
    for violation in observation.violations:
        if violation.rule == "R2":
            found.r2 += 1
        else:
            found.r4 += 1


async def run_v2(seed: int, mode: Mode) -> Found:
    dice = Dice(seed)
    log: Log = []
    tally = Tally()
    # Only an ordered agent's snapshots come before its acknowledgement for sure.
    run = connect(
        dice, log, lambda end, _: v2_agent(dice, tally, mode.agent)(end), lambda _: CountingClient(dice, tally), mode
    )
    found = Found()
    await run.client.request("initialize", initialize_params())
    await prompt_sessions(run, dice, tally, found)
    await run.quiet()
    return found


def total(mode: Mode, each: Callable[[int, Found], None]) -> Found:
    """Every seed's run of the schema's scenario, added up; `each` sees each run."""
    scenario = run_v2 if V2 else run_v1
    added = Found()
    for seed in range(SEEDS):
        # A run takes a fraction of a second: one that waits for ever fails.
        found = asyncio.run(asyncio.wait_for(scenario(seed, mode), RUN_TIMEOUT))
        each(seed, found)
        added += found
    return added


def show(capsys: pytest.CaptureFixture[str], line: str) -> None:
    """Prints the counts past pytest's capture, so that `cargo xtask test` shows them."""
    with capsys.disabled():
        print(f"\n{line}")


def test_with_the_ordering_no_schedule_breaks_a_rule(capsys: pytest.CaptureFixture[str]) -> None:
    def each(seed: int, found: Found) -> None:
        assert (found.r1, found.r2, found.r4, found.undrained) == (0, 0, 0, 0), f"seed {seed}: {found}"

    added = total(ORDERED, each)
    show(capsys, f"{LABEL} ordered: {added}")
    assert added.turns == SEEDS * SESSIONS * PROMPTS


def test_a_client_with_the_ordering_drains_the_prompts_of_an_agent_without_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The client's end waits for the turn's end itself: against an agent
    whose responses overtake its updates, and that sends its own
    `turn_complete` (v1), no prompt call returns undrained (the rules the
    agent breaks on the wire are its own)."""

    def each(seed: int, found: Found) -> None:
        assert found.undrained == 0, f"seed {seed}: {found}"

    added = total(CLIENT_ONLY, each)
    show(capsys, f"{LABEL} ordered client, unordered agent: {added}")
    assert added.turns == SEEDS * SESSIONS * PROMPTS
    if not V2:
        assert added.r4 > 0, f"the agent's responses overtook its updates: {added}"


def test_without_the_ordering_the_same_schedules_break_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    added = total(UNORDERED, lambda seed, found: None)
    show(capsys, f"{LABEL} unordered: {added}")
    assert added.turns == SEEDS * SESSIONS * PROMPTS
    if V2:
        assert added.undrained > 0, added
    else:
        assert added.r1 > 0 and added.r2 > 0 and added.r4 > 0 and added.undrained > 0, added


# Errors and cancellation.


class StuckAgent(V2Sessions, PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Refuses sessions; its prompt handler never finishes, and counts how
    often it was stopped."""

    def __init__(self) -> None:
        self.stopped = 0

    async def initialize(self, params: Any) -> Any:
        if V2:
            return result("initialize", {"protocolVersion": 2, "info": {"name": "stuck", "version": "1"}})
        return result("initialize", {"protocolVersion": 1})

    async def session_new(self, params: Any) -> Any:
        raise PACKAGE.RequestError(-32602, "Invalid params", {"why": "no sessions here"})

    async def session_prompt(self, params: Any) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            self.stopped += 1


class StuckClient(PACKAGE.Client):  # type: ignore[misc, name-defined]
    """Its permission handler never finishes, and counts how often it was stopped."""

    def __init__(self) -> None:
        self.stopped = 0

    async def session_request_permission(self, params: Any) -> Any:
        try:
            await asyncio.Event().wait()
        finally:
            self.stopped += 1


async def cancelled(call: Awaitable[Any]) -> None:
    """Starts `call`, gives it time to reach the peer's handler, then cancels it."""
    task = asyncio.ensure_future(call)
    for _ in range(40):
        await asyncio.sleep(0)
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


def test_errors_and_cancellation_cross_the_connection() -> None:
    async def scenario() -> tuple[Log, StuckAgent, StuckClient, list[tuple[str | None, int]]]:
        dice = Dice(7)
        log: Log = []
        agent = StuckAgent()
        client = StuckClient()
        dropped: list[tuple[str | None, int]] = []
        run = connect(
            dice,
            log,
            lambda _, __: agent,
            lambda _: client,
            ORDERED,
            lambda report: dropped.append((report.method, report.error.code)),
        )
        await run.client.request("initialize", initialize_params())
        # The agent's error comes back as it was sent.
        with pytest.raises(PACKAGE.RequestError) as error:
            await run.client.request("session/new", new_session_params())
        assert (error.value.code, error.value.data) == (-32602, {"why": "no sessions here"})
        # A prompt whose caller stops waiting: the agent's handler is stopped and
        # its cancelled answer, to a request nobody waits for, is reported.
        await cancelled(run.client.request("session/prompt", prompt_params("s", "stuck")))
        # And the other way: the agent stops waiting for the client.
        await cancelled(run.agent.request("session/request_permission", permission_params("s")))
        # Extension methods the agent does not handle answer method-not-found.
        with pytest.raises(PACKAGE.RequestError) as unknown:
            await run.client.request_extension("_x/unknown", {})
        assert unknown.value.code == -32601
        await run.quiet()
        return log, agent, client, dropped

    log, agent, client, dropped = asyncio.run(scenario())
    assert (agent.stopped, client.stopped) == (1, 1), "the cancelled handlers were stopped"
    for reader, answerer in (("agent_read", "client_read"), ("client_read", "agent_read")):
        cancel = next(
            message for event, message in log if event == reader and message.get("method") == "$/cancel_request"
        )
        answer = next(
            message
            for event, message in log
            if event == answerer and (message.get("error") or {}).get("code") == -32800
        )
        assert cancel["params"]["requestId"] == answer["id"]
    assert dropped == [(None, -32600)], "the client's cancelled answer is to no request in flight"


class FailingAgent(V2Sessions, PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Negotiates the turn's end where the schema has it; its prompt handler
    sends a few chunks, then fails."""

    def __init__(self, end: Any, dice: Dice, tally: Tally) -> None:
        self.end = end
        self.dice = dice
        self.tally = tally

    async def initialize(self, params: Any) -> Any:
        if V2:
            return result("initialize", {"protocolVersion": 2, "info": {"name": "test agent", "version": "1"}})
        return result(
            "initialize", {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"turnComplete": {}}}}
        )

    async def session_new(self, params: Any) -> Any:
        return result("session/new", {"sessionId": "session-1"})

    async def session_prompt(self, params: Any) -> Any:
        text = params.prompt[0].text
        chunks = 1 + self.dice.below(4)
        for index in range(chunks):
            await self.end.notify(
                "session/update",
                params_for("session/update", {"sessionId": "session-1", "update": chunk(f"{text} part {index}", text)}),
            )
        self.tally.sent[text] = chunks
        raise PACKAGE.RequestError(-32603, "the model is gone")


def test_an_error_response_ends_a_prompt_once_the_updates_before_it_were_handled() -> None:
    """No `turn_complete` (v1) or `idle` (v2) follows a failed prompt: the
    call raises once the chunks sent before the error were handled."""

    async def scenario(seed: int) -> Found:
        dice = Dice(seed)
        tally = Tally()
        found = Found()
        run = connect(
            dice, [], lambda end, _: FailingAgent(end, dice, tally), lambda _: CountingClient(dice, tally), ORDERED
        )
        await run.client.request("initialize", initialize_params())
        assert run.client.features.turn_complete == (not V2)
        created = await run.client.request("session/new", new_session_params())
        for turn in range(PROMPTS):
            text = f"failing t{turn}"
            with pytest.raises(PACKAGE.RequestError) as error:
                await run.client.request("session/prompt", prompt_params(created.session_id, text))
            assert error.value.code == -32603
            found.undrained += not tally.drained(text, None)
            found.turns += 1
        await run.quiet()
        return found

    for seed in range(5):
        found = asyncio.run(asyncio.wait_for(scenario(seed), RUN_TIMEOUT))
        assert (found.undrained, found.turns) == (0, PROMPTS), f"seed {seed}: {found}"


class LateAgent(V2Sessions, PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Answers each prompt at once, and once the answer is on the wire ends
    its turn from a task of its own: a chunk, then `turn_complete` (v1) or,
    never having reported `running`, `idle` (v2). Its end is unordered, which
    does not add a `turn_complete` of its own."""

    def __init__(self, end: Any, dice: Dice, tally: Tally, pipes: tuple[Pipe, Pipe]) -> None:
        self.end = end
        self.dice = dice
        self.tally = tally
        self.pipes = pipes
        self.later: set[asyncio.Task[None]] = set()

    async def initialize(self, params: Any) -> Any:
        if V2:
            return result("initialize", {"protocolVersion": 2, "info": {"name": "test agent", "version": "1"}})
        return result(
            "initialize", {"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"turnComplete": {}}}}
        )

    async def session_new(self, params: Any) -> Any:
        return result("session/new", {"sessionId": "session-1"})

    async def session_prompt(self, params: Any) -> Any:
        session = params.session_id
        text = params.prompt[0].text
        request = self.pipes[0].prompts[text]
        end = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        if not V2:
            end = {"sessionUpdate": "turn_complete", "promptRequestId": request, "stopReason": "end_turn"}
            self.tally.owed.add(text)

        async def finish() -> None:
            while json.dumps(request) not in self.pipes[1].answered:
                await asyncio.sleep(0)
            await self.dice.pause(5)
            for update in (chunk(f"{text} part 0", text), end):
                await self.end.notify(
                    "session/update", params_for("session/update", {"sessionId": session, "update": update})
                )

        self.tally.sent[text] = 1
        task = asyncio.ensure_future(finish())
        self.later.add(task)
        task.add_done_callback(self.later.discard)
        return result("session/prompt", {"messageId": f"message-{text}"} if V2 else {"stopReason": "end_turn"})


def test_a_turn_that_ends_after_the_response_is_waited_for() -> None:
    """A prompt's response may come first: its call returns once the turn's
    end that follows was handled (for v2, an `idle` read after the response
    ends the turn even without a `running` before it)."""

    async def scenario(seed: int) -> Found:
        dice = Dice(seed)
        tally = Tally()
        found = Found()
        run = connect(
            dice,
            [],
            lambda end, pipes: LateAgent(end, dice, tally, pipes),
            lambda _: CountingClient(dice, tally),
            CLIENT_ONLY,
        )
        await run.client.request("initialize", initialize_params())
        created = await run.client.request("session/new", new_session_params())
        for turn in range(PROMPTS):
            text = f"late t{turn}"
            await run.client.request("session/prompt", prompt_params(created.session_id, text))
            found.undrained += not tally.drained(text, run.pipes[0].prompts[text])
            found.turns += 1
        await run.quiet()
        return found

    for seed in range(5):
        found = asyncio.run(asyncio.wait_for(scenario(seed), RUN_TIMEOUT))
        assert (found.undrained, found.turns) == (0, PROMPTS), f"seed {seed}: {found}"


# The handshake (`docs/connection.md`).


class HandshakeAgent(PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Answers `initialize` with a version of its own and no capabilities,
    an unknown session with `session_not_found`, and records what its
    handlers got."""

    def __init__(self) -> None:
        self.got: list[str] = []

    async def initialize(self, params: Any) -> Any:
        self.got.append("initialize")
        if V2:
            return result("initialize", {"protocolVersion": 7, "info": {"name": "a", "version": "1"}})
        return result("initialize", {"protocolVersion": 7})

    async def session_new(self, params: Any) -> Any:
        self.got.append("session/new")
        return result("session/new", {"sessionId": "s"})

    async def session_cancel(self, params: Any) -> None:
        self.got.append("session/cancel")

    async def session_prompt(self, params: Any) -> Any:
        raise PACKAGE.session_not_found(params.session_id)


def handshake(messages: list[dict[str, Any]]) -> tuple[list[Any], list[Any], list[str]]:
    """Feeds `messages` to an agent's end in turn (each answer awaited before
    the next request): what it wrote and reported, and what its handlers got."""
    written: list[Any] = []
    dropped: list[Any] = []
    agent = HandshakeAgent()

    async def send(text: str) -> None:
        written.append(json.loads(text))

    async def scenario() -> None:
        end = PACKAGE.connect_agent(lambda _: agent, send, PACKAGE.ConnectOptions(dropped=dropped.append))
        for message in messages:
            before = len(written)
            await end.receive(json.dumps(message))
            while "id" in message and len(written) == before:
                await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(scenario(), RUN_TIMEOUT))
    return written, dropped, agent.got


VERSION = 2 if V2 else 1


def initialize(request_id: int, version: int) -> dict[str, Any]:
    wire = {"protocolVersion": version, "info": {"name": "c", "version": "1"}} if V2 else {"protocolVersion": version}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": wire}


def new_session(request_id: int) -> dict[str, Any]:
    params = {"cwd": "/tmp", "mcpServers": []}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/new", "params": params}


CANCEL = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}


def test_the_agents_end_takes_nothing_but_initialize_before_initialize_was_answered() -> None:
    written, dropped, got = handshake([new_session(1), CANCEL, initialize(2, VERSION), new_session(3), CANCEL])
    assert written[0] == {
        "jsonrpc": "2.0",
        "id": 1,
        "error": {"code": -32600, "message": "initialize has not been answered", "data": {"method": "session/new"}},
    }
    assert written[1]["id"] == 2
    assert written[2] == {"jsonrpc": "2.0", "id": 3, "result": {"sessionId": "s"}}
    assert got == ["initialize", "session/new", "session/cancel"]
    assert [(report.method, report.error.code, report.line) for report in dropped] == [("session/cancel", -32600, 2)]


def test_the_initialize_answer_names_the_version_the_end_supports_and_carries_capabilities() -> None:
    capabilities = "capabilities" if V2 else "agentCapabilities"
    for requested in (VERSION, VERSION + 1, 65535):
        written, _, _ = handshake([initialize(1, requested)])
        answer = written[0]["result"]
        assert answer["protocolVersion"] == VERSION, f"asked for {requested}: {answer}"
        assert answer[capabilities] == {}, answer
        negotiated = PACKAGE.negotiate(initialize(1, requested)["params"], answer)
        assert negotiated.to_json()["protocolVersion"] == VERSION


def test_an_initialize_below_every_supported_version() -> None:
    written, _, got = handshake([initialize(1, 0), new_session(2)])
    if V2:
        assert written[0]["error"] == {
            "code": -32022,
            "message": "Unsupported protocol version",
            "data": {"requested": 0, "supported": [2]},
        }
        assert got == [], "the handler is not called and the end stays uninitialized"
        assert written[1]["error"]["code"] == -32600
    else:
        assert written[0]["result"]["protocolVersion"] == 1, "v1 answers its latest version"
        assert got == ["initialize", "session/new"]


def test_an_unknown_session_is_answered_with_the_schemas_resource_not_found() -> None:
    params = {"sessionId": "nowhere", "prompt": [{"type": "text", "text": "hi"}]}
    prompt = {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": params}
    written, _, _ = handshake([initialize(1, VERSION), prompt])
    assert written[1]["error"] == {"code": -32002, "message": "Resource not found", "data": {"sessionId": "nowhere"}}


# A cancelled prompt turn (protocol v1: v2 ends one with its `idle` state).


class CancelledAgent(PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Its prompt handler sends an update, then waits on two calls the client
    holds, and fails with what they fail with. It has no `session/cancel`
    handler: its end acts on the notification itself."""

    def __init__(self, end: Any) -> None:
        self.end = end
        self.saw: list[Any] = []

    async def initialize(self, params: Any) -> Any:
        return result("initialize", {"protocolVersion": 1})

    async def session_prompt(self, params: Any) -> Any:
        session = params.session_id
        update = {"sessionId": session, "update": chunk("reading", "cancelled")}
        await self.end.notify("session/update", params_for("session/update", update))
        read = params_for("fs/read_text_file", {"sessionId": session, "path": "/etc/hosts"})
        calls = await asyncio.gather(
            self.end.request("fs/read_text_file", read),
            self.end.request("session/request_permission", permission_params(session)),
            return_exceptions=True,
        )
        self.saw = [type(call).__name__ for call in calls] + [self.end.cancellation(session).is_set()]
        raise RuntimeError("the turn failed")


class HoldingClient(PACKAGE.Client):  # type: ignore[misc, name-defined]
    """Holds every file read and permission request, counting them."""

    def __init__(self) -> None:
        self.held = 0

    async def session_request_permission(self, params: Any) -> Any:
        self.held += 1
        await asyncio.Event().wait()

    async def fs_read_text_file(self, params: Any) -> Any:
        self.held += 1
        await asyncio.Event().wait()

    async def session_update(self, params: Any) -> None:
        pass


@dataclass
class Cancelled:
    """What a cancelled turn left: the wire log, the agent, the prompt's
    response and what each end reported dropped (the end, the method, the
    code)."""

    log: Log
    agent: Any
    response: Any
    dropped: list[tuple[str, str | None, int]]


def cancel_while_held(seed: int, make_agent: Any, client: Any, held: int) -> Cancelled:
    """Prompts session `s` of the agent `make_agent(end)` makes, sends
    `session/cancel` once `client` holds `held` calls of the turn, and
    returns once the prompt was answered and the ends are quiet."""

    async def scenario() -> Cancelled:
        log: Log = []
        agents: list[Any] = []
        dropped: list[tuple[str, str | None, int]] = []

        def report(end: str) -> Any:
            return lambda report: dropped.append((end, report.method, report.error.code))

        def agent(end: Any, _: Any) -> Any:
            agents.append(make_agent(end))
            return agents[0]

        run = connect(
            Dice(seed),
            log,
            agent,
            lambda _: client,
            ORDERED,
            report("client"),
            report("agent"),
        )
        await run.client.request("initialize", initialize_params())
        prompt = asyncio.ensure_future(run.client.request("session/prompt", prompt_params("s", "cancelled")))

        async def all_held() -> None:
            while client.held < held:
                await asyncio.sleep(0)

        await asyncio.wait_for(all_held(), RUN_TIMEOUT)
        await run.client.notify("session/cancel", params_for("session/cancel", {"sessionId": "s"}))
        response = await asyncio.wait_for(prompt, RUN_TIMEOUT)
        await run.quiet()
        return Cancelled(log, agents[0], response, dropped)

    return asyncio.run(scenario())


def assert_permission_withdrawn(ended: Cancelled) -> None:
    """The client answered its pending permission request `cancelled`, after
    `session/cancel`; the agent, no longer waiting, took the answer silently."""
    wrote = [message for event, message in ended.log if event == "client_wrote"]
    cancel = next(index for index, message in enumerate(wrote) if message.get("method") == "session/cancel")
    withdrawn = next(
        index for index, message in enumerate(wrote) if message.get("result") == {"outcome": {"outcome": "cancelled"}}
    )
    assert cancel < withdrawn, wrote
    assert ended.dropped == []


@pytest.mark.skipif(V2, reason="v2 ends a cancelled turn with its idle state")
def test_a_cancelled_turn_is_answered_cancelled_after_its_updates() -> None:
    ended = cancel_while_held(11, CancelledAgent, HoldingClient(), 2)
    assert PACKAGE.to_json(ended.response) == {"stopReason": "cancelled"}
    assert ended.agent.saw == ["TurnCancelled", "TurnCancelled", True]
    read = [message for event, message in ended.log if event == "client_read"]
    update = next(index for index, message in enumerate(read) if message.get("method") == "session/update")
    answer = next(index for index, message in enumerate(read) if message.get("result") == {"stopReason": "cancelled"})
    assert update < answer, read
    assert_permission_withdrawn(ended)


# A cancelled turn of protocol v2: the session's foreground work, whose
# `idle` says `cancelled` whatever the agent wrote; while a permission
# request waits, the agent's end reports `requires_action`, and `running`
# once it is answered.


class CancelledWorkAgent(V2Sessions, PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Its prompt starts foreground work that asks permission twice, then
    waits for its cancellation and ends the work with `idle`, saying
    `end_turn` as if nothing happened. It reports no state but `running` and
    `idle`, and has no `session/cancel` handler: its end acts on the
    notification itself."""

    def __init__(self, end: Any) -> None:
        self.end = end
        self.saw: list[Any] = []

    async def initialize(self, params: Any) -> Any:
        return result("initialize", {"protocolVersion": 2, "info": {"name": "test agent", "version": "1"}})

    async def session_prompt(self, params: Any) -> Any:
        session = params.session_id
        running = {"sessionId": session, "update": {"sessionUpdate": "state_update", "state": "running"}}
        await self.end.notify("session/update", params_for("session/update", running))
        cancellation = self.end.cancellation(session)
        asked = [
            *await asyncio.gather(
                self.end.request("session/request_permission", permission_params(session)), return_exceptions=True
            ),
            *await asyncio.gather(
                self.end.request("session/request_permission", permission_params(session)), return_exceptions=True
            ),
        ]
        await cancellation.wait()
        idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        await self.end.notify("session/update", params_for("session/update", {"sessionId": session, "update": idle}))
        # The work ended: the session's next work is not cancelled.
        self.saw = [type(call).__name__ for call in asked] + [self.end.cancellation(session).is_set()]
        return result("session/prompt", {"messageId": "message-1"})


class HoldingStateClient(PACKAGE.Client):  # type: ignore[misc, name-defined]
    """Allows the first permission request and holds the others, counting
    them, and keeps each state it handled (an `idle` with its stop reason)."""

    def __init__(self) -> None:
        self.asked = 0
        self.held = 0
        self.states: list[str] = []

    async def session_request_permission(self, params: Any) -> Any:
        self.asked += 1
        if self.asked == 1:
            return result("session/request_permission", {"outcome": {"outcome": "selected", "optionId": "allow"}})
        self.held += 1
        await asyncio.Event().wait()

    async def session_update(self, params: Any) -> None:
        update = PACKAGE.to_json(params)["update"]
        if "state" in update:
            self.states.append(" ".join(filter(None, [update["state"], update.get("stopReason")])))


@pytest.mark.skipif(not V2, reason="v1 answers a cancelled prompt `cancelled`")
def test_v2_a_cancelled_turn_ends_with_an_idle_that_says_cancelled() -> None:
    client = HoldingStateClient()
    ended = cancel_while_held(5, CancelledWorkAgent, client, 1)
    assert PACKAGE.to_json(ended.response) == {"messageId": "message-1"}
    assert ended.agent.saw == ["RequestPermissionResponse", "TurnCancelled", False]
    assert client.states == ["running", "requires_action", "running", "requires_action", "idle cancelled"]
    assert_permission_withdrawn(ended)


# Capabilities from handlers (v1's `loadSession` gates `session/load`): the
# agent's end advertises what its handlers answer, whatever its `initialize`
# handler wrote, and once `initialize` is done the client's end refuses a
# call the agent did not advertise, before it is written.


class WritingAgent(PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Answers `initialize` with the capabilities it is given."""

    def __init__(self, written: dict[str, Any]) -> None:
        self.written = written

    async def initialize(self, params: Any) -> Any:
        return result("initialize", {"protocolVersion": 1, "agentCapabilities": self.written})

    async def session_new(self, params: Any) -> Any:
        return result("session/new", {"sessionId": "s"})

    async def session_prompt(self, params: Any) -> Any:
        return result("session/prompt", {"stopReason": "end_turn"})


class LoadingAgent(WritingAgent):
    """Also loads sessions."""

    async def session_load(self, params: Any) -> Any:
        return result("session/load", {})


class BareClient(PACKAGE.Client):  # type: ignore[misc, name-defined]
    """Handles what a client must, and nothing it may leave out."""

    async def session_request_permission(self, params: Any) -> Any:
        raise PACKAGE.RequestError(-32603, "not asked here")

    async def session_update(self, params: Any) -> None:
        return


def advertised(agent: Any) -> Any:
    """The capabilities an agent's end answers `initialize` with."""
    written: list[Any] = []

    async def send(text: str) -> None:
        written.append(json.loads(text))

    async def scenario() -> None:
        end = PACKAGE.connect_agent(lambda _: agent, send)
        await end.receive(json.dumps(initialize(1, 1)))
        while not written:
            await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(scenario(), RUN_TIMEOUT))
    return written[0]["result"]["agentCapabilities"]


if not V2:
    # v1: `loadSession` gates `session/load`.

    def test_an_agent_without_a_session_load_handler_does_not_advertise_load_session() -> None:
        written = {"loadSession": True, "promptCapabilities": {"image": True}}
        assert advertised(WritingAgent(written)) == {"promptCapabilities": {"image": True}}

    def test_an_agent_with_a_session_load_handler_advertises_load_session() -> None:
        assert advertised(LoadingAgent({})) == {"loadSession": True}
        assert advertised(LoadingAgent({"loadSession": False})) == {"loadSession": True}

    def test_a_clients_call_the_agent_did_not_advertise_fails_before_it_is_written() -> None:
        sent: list[Any] = []

        async def send(text: str) -> None:
            sent.append(json.loads(text))

        async def scenario() -> None:
            end = PACKAGE.connect_client(lambda _: BareClient(), send)
            answered = asyncio.ensure_future(end.request("initialize", PACKAGE.InitializeRequest(protocol_version=1)))
            while not sent:
                await asyncio.sleep(0)
            await end.receive(json.dumps({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"protocolVersion": 1}}))
            await answered
            load = PACKAGE.LoadSessionRequest(session_id="s", cwd="/tmp", mcp_servers=[])
            with pytest.raises(PACKAGE.CapabilityError) as refused:
                await end.request("session/load", load)
            error = refused.value
            assert (error.method, error.pointer, error.side, error.capability) == (
                "session/load",
                "",
                "agent",
                "/agentCapabilities/loadSession",
            )

        asyncio.run(asyncio.wait_for(scenario(), RUN_TIMEOUT))
        assert [message.get("method") for message in sent] == ["initialize"], "nothing but initialize was written"


# Per-session gates (`schema/capabilities.json`'s `sessionGates`):
# `session/set_config_option` (and v1's `session/set_mode`) may be called
# only on a session whose opening answer offered `configOptions` (`modes`).
# The client's end refuses it, before it is written, on a session it saw
# opened without the offer; the agent's end leaves out of its opening
# answers the offers of the methods it has no handler for.

OPTIONS = [{"id": "o", "name": "O", "type": "select", "currentValue": "a", "options": [{"value": "a", "name": "A"}]}]
MODES = {"currentModeId": "m", "availableModes": [{"id": "m", "name": "M"}]}


def set_option(session: str) -> dict[str, Any]:
    return {"sessionId": session, "configId": "o", "value": "a"}


def client_calls(opened: dict[str, Any], method: str, params: dict[str, Any]) -> tuple[Any, list[Any]]:
    """A client's end past `initialize`, with `session/new` answered by
    `opened` (its session `a`), calls `method`: the error it raised (or
    None) and the messages it wrote after `session/new`."""
    sent: list[Any] = []
    v2 = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {"session": {}}}
    initialized = v2 if V2 else {"protocolVersion": 1}

    async def send(text: str) -> None:
        sent.append(json.loads(text))

    async def answer(end: Any, count: int, value: dict[str, Any]) -> None:
        """Answers the `count`th message sent, once it was."""
        while len(sent) < count:
            await asyncio.sleep(0)
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": sent[count - 1]["id"], "result": value}))

    async def scenario() -> Any:
        end = PACKAGE.connect_client(lambda _: BareClient(), send)
        call = asyncio.ensure_future(end.request("initialize", initialize_params()))
        await answer(end, 1, initialized)
        await call
        call = asyncio.ensure_future(end.request("session/new", new_session_params()))
        await answer(end, 2, {"sessionId": "a", **opened})
        await call
        before = len(sent)
        call = asyncio.ensure_future(end.request(method, params))
        for _ in range(100):
            await asyncio.sleep(0)
        if call.done():
            return call.exception(), sent[before:]
        call.cancel()
        return None, sent[before:]

    refused, written = asyncio.run(asyncio.wait_for(scenario(), RUN_TIMEOUT))
    return refused, [message.get("method") for message in written]


def test_the_client_refuses_set_config_option_on_a_session_opened_without_config_options() -> None:
    refused, written = client_calls({}, "session/set_config_option", set_option("a"))
    assert isinstance(refused, PACKAGE.CapabilityError), refused
    assert (refused.method, refused.pointer, refused.side, refused.capability) == (
        "session/set_config_option",
        "",
        "agent",
        "/configOptions",
    )
    assert written == [], "nothing was written"
    # A session this end did not see opened is not judged.
    refused, written = client_calls({}, "session/set_config_option", set_option("elsewhere"))
    assert refused is None and written == ["session/set_config_option"]


def test_the_client_sends_set_config_option_on_a_session_opened_with_config_options() -> None:
    refused, written = client_calls({"configOptions": OPTIONS}, "session/set_config_option", set_option("a"))
    assert refused is None and written == ["session/set_config_option"]


if not V2:

    def test_the_client_refuses_set_mode_on_a_session_opened_without_modes() -> None:
        set_mode = {"sessionId": "a", "modeId": "m"}
        refused, written = client_calls({"configOptions": OPTIONS}, "session/set_mode", set_mode)
        assert isinstance(refused, PACKAGE.CapabilityError) and refused.capability == "/modes", refused
        assert written == []
        refused, written = client_calls({"modes": MODES}, "session/set_mode", set_mode)
        assert refused is None and written == ["session/set_mode"]


class OfferingAgent(PACKAGE.Agent):  # type: ignore[misc, name-defined]
    """Offers every per-session method in its `session/new` answers, and handles none of them."""

    async def initialize(self, params: Any) -> Any:
        return result(
            "initialize",
            {"protocolVersion": 2, "info": {"name": "a", "version": "1"}} if V2 else {"protocolVersion": 1},
        )

    async def session_new(self, params: Any) -> Any:
        return result("session/new", {"sessionId": "s", "configOptions": OPTIONS, **({} if V2 else {"modes": MODES})})

    async def session_prompt(self, params: Any) -> Any:
        return result("session/prompt", {"stopReason": "end_turn"})


class ConfiguringAgent(OfferingAgent):
    """Handles `session/set_config_option`."""

    async def session_set_config_option(self, params: Any) -> Any:
        return result("session/set_config_option", {"configOptions": OPTIONS})


def opened(agent: Any) -> Any:
    """The result of an agent's end's answer to `session/new`."""
    written: list[Any] = []

    async def send(text: str) -> None:
        written.append(json.loads(text))

    async def scenario() -> None:
        end = PACKAGE.connect_agent(lambda _: agent, send)
        for message in [initialize(1, PACKAGE.PROTOCOL_VERSION), new_session(2)]:
            before = len(written)
            await end.receive(json.dumps(message))
            while len(written) == before:
                await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(scenario(), RUN_TIMEOUT))
    return next(message for message in written if message.get("id") == 2)["result"]


def test_the_agent_leaves_out_the_offers_of_the_per_session_methods_it_does_not_handle() -> None:
    assert list(opened(OfferingAgent())) == ["sessionId"]
    assert list(opened(ConfiguringAgent())) == ["sessionId", "configOptions"]
