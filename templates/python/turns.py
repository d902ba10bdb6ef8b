"""The turn tracker's machine (RFD turn-complete, rules R2 and R4; protocol
v2's `idle` state update), copied into every generated package as
`_turns.py` (the source is `templates/python/turns.py`).

It reads `session/update` params as their wire JSON through the members the
schema names (`TurnRules`, which the generated `helpers.py` holds). Two
callers feed it: the typed `TurnTracker` of `helpers.py`, a thin facade, and
the client's end of a connection, which ends its prompt calls on what it
observes. Request ids are JSON values and compare as JSON, so `2` and `"2"`
are different requests. A pure state machine, no I/O and no clock: the Rust,
TypeScript and Go bindings implement the same and decide alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

R = TypeVar("R")

ViolationKind = Literal[
    "update_after_response",
    "update_after_turn_complete",
    "duplicate_turn_complete",
    "stop_reason_mismatch",
    "unknown_turn",
    "update_after_idle",
]
"""A rule the agent broke: R4 for an update after the prompt response, R2 for the rest."""


@dataclass(frozen=True)
class Violation(Generic[R]):
    """One violation: what, in which session, for which prompt request."""

    kind: ViolationKind
    session: str
    request: R

    @property
    def rule(self) -> Literal["R2", "R4"]:
        """The rule id of the extended schema's ordering rules."""
        return "R4" if self.kind == "update_after_response" else "R2"


@dataclass(frozen=True)
class Observation(Generic[R]):
    """What the tracker made of one message: its turn, the turn it drained, the rules broken."""

    turn: R | None
    drained: R | None
    violations: tuple[Violation[R], ...] = ()


@dataclass(frozen=True)
class CompleteRules:
    """The `turn_complete` update (v1): its tag, and its members naming the
    prompt request and the stop reason."""

    tag: str
    request: str
    stop_reason: str


@dataclass(frozen=True)
class LifecycleRules:
    """The state update (v2): its tag, its state member and the `idle` state."""

    tag: str
    state: str
    idle: str


@dataclass(frozen=True)
class TurnRules:
    """The schema's members and tags the machine reads: the notification's
    session and update members, the update's tag member, the tags of turn
    output and of the agent's reply, and what ends a turn: `turn_complete`
    (v1) or the `idle` state update (v2)."""

    session: str
    update: str
    tag: str
    output: frozenset[str]
    replies: frozenset[str]
    complete: CompleteRules | None = None
    lifecycle: LifecycleRules | None = None


@dataclass
class _Turn:
    request: Any
    key: str
    responded: bool = False
    refused: bool = False
    """An error response (v1), or a prompt not accepted (v2)."""
    stop_reason: str = ""
    """The response's stop reason, as JSON text (v1)."""
    completed: str | None = None
    """The `turn_complete` stop reason, as JSON text (v1)."""
    working: bool = False
    """A non-idle state of the session came after the prompt (v2)."""
    idled: bool = False
    """The `idle` that ended the turn came (v2)."""


_NOTHING: Observation[Any] = Observation(None, None)


class TurnMachine:
    """Correlates the client's prompt turns with their updates, their end
    (`turn_complete` or, in v2, `idle`) and response (R2, R4).

    In v1 a turn is drained by its response and, when `turn_complete` was
    negotiated, its `turn_complete`. In v2 the response only acknowledges
    the prompt; a turn is drained by its response and the session's `idle`
    after a non-idle state of its own or after the response (an `idle`
    before both may be a snapshot of the work before the prompt). The
    agent's message or thought after the `idle` that ended its turn, before
    new foreground work, breaks R2; tool calls and plans may be background
    work and are not judged. An error response drains its turn at once.
    """

    def __init__(self, rules: TurnRules, turn_complete: bool) -> None:
        self.rules = rules
        self.turn_complete = turn_complete
        """Whether the agent advertised `turn_complete` (v1): without it a turn is drained by its response alone."""
        self._sessions: dict[str, list[_Turn]] = {}
        self._working: set[str] = set()
        """The sessions whose last state was not `idle` (v2)."""

    def _drained(self, turn: _Turn) -> bool:
        if not turn.responded:
            return False
        if turn.refused:
            return True
        if self.rules.lifecycle is not None:
            return turn.idled
        return turn.completed is not None or not self.turn_complete

    def prompt(self, session: str, request: Any) -> None:
        """The client sent the prompt with id `request` for `session`."""
        turns = [
            turn for turn in self._sessions.get(session, []) if not self._drained(turn)
        ]
        turns.append(_Turn(request, _key(request)))
        self._sessions[session] = turns

    def update(self, notification: Any) -> Observation[Any]:
        """A `session/update` arrived: its params, as wire JSON."""
        rules = self.rules
        session = _string(notification, rules.session)
        update = _get(notification, rules.update)
        tag = _string(update, rules.tag)
        if rules.lifecycle is not None:
            if tag == rules.lifecycle.tag:
                return self._state(
                    session, _get(update, rules.lifecycle.state) == rules.lifecycle.idle
                )
            return self._reply(session, tag)
        if rules.complete is not None and tag == rules.complete.tag:
            return self._complete(
                session,
                _get(update, rules.complete.request),
                _get(update, rules.complete.stop_reason),
            )
        turns = self._sessions.get(session)
        if tag not in rules.output or not turns:
            return _NOTHING
        turn = turns[-1]
        if turn.responded:
            return Observation(
                turn.request,
                None,
                (Violation("update_after_response", session, turn.request),),
            )
        if turn.completed is not None:
            return Observation(
                turn.request,
                None,
                (Violation("update_after_turn_complete", session, turn.request),),
            )
        return Observation(turn.request, None)

    def _complete(
        self, session: str, request: Any, stop_reason: Any
    ) -> Observation[Any]:
        """The `turn_complete` of the prompt `request` (v1)."""
        key = _key(request)
        turn = next(
            (
                candidate
                for candidate in self._sessions.get(session, [])
                if candidate.key == key
            ),
            None,
        )
        if turn is None:
            return Observation(
                None, None, (Violation("unknown_turn", session, request),)
            )
        violations: list[Violation[Any]] = []
        if turn.responded:
            violations.append(Violation("update_after_response", session, turn.request))
        if turn.completed is not None:
            violations.append(
                Violation("duplicate_turn_complete", session, turn.request)
            )
            return Observation(turn.request, None, tuple(violations))
        completed = _key(stop_reason)
        if turn.responded and not turn.refused and turn.stop_reason != completed:
            violations.append(Violation("stop_reason_mismatch", session, turn.request))
        was_drained = self._drained(turn)
        turn.completed = completed
        drained = turn.request if not was_drained and self._drained(turn) else None
        return Observation(turn.request, drained, tuple(violations))

    def _reply(self, session: str, tag: str) -> Observation[Any]:
        """Turn output in v2: the agent's message or thought after the `idle`
        that ended its turn, before new foreground work, breaks R2."""
        turns = self._sessions.get(session)
        if tag not in self.rules.output or not turns:
            return _NOTHING
        turn = turns[-1]
        if not turn.idled:
            return Observation(turn.request, None)
        if tag not in self.rules.replies or session in self._working:
            return _NOTHING
        return Observation(
            turn.request, None, (Violation("update_after_idle", session, turn.request),)
        )

    def _state(self, session: str, idle: bool) -> Observation[Any]:
        """A state snapshot (v2): a non-idle state marks the open turns as
        working; `idle` ends those that worked or were answered."""
        if idle:
            self._working.discard(session)
        else:
            self._working.add(session)
        turn: Any = None
        drained: Any = None
        for candidate in self._sessions.get(session, []):
            if candidate.idled:
                continue
            if not idle:
                candidate.working = True
                turn = candidate.request
            elif candidate.working or candidate.responded:
                was_drained = self._drained(candidate)
                candidate.idled = True
                turn = candidate.request
                if not was_drained and self._drained(candidate):
                    drained = candidate.request
        return Observation(turn, drained)

    def response(
        self, request: Any, refused: bool, stop_reason: Any = None
    ) -> Observation[Any]:
        """The response to the prompt `request` arrived: `refused` for an
        error response (v1) or a prompt not accepted (v2); its stop reason,
        as JSON, otherwise (v1)."""
        key = _key(request)
        for session, turns in self._sessions.items():
            turn = next(
                (candidate for candidate in turns if candidate.key == key), None
            )
            if turn is None:
                continue
            if turn.responded:
                return Observation(turn.request, None)
            answered = _key(stop_reason)
            violations: tuple[Violation[Any], ...] = ()
            mismatch = turn.completed is not None and turn.completed != answered
            if mismatch and not refused and self.rules.lifecycle is None:
                violations = (Violation("stop_reason_mismatch", session, turn.request),)
            turn.responded, turn.refused, turn.stop_reason = True, refused, answered
            return Observation(
                turn.request, turn.request if self._drained(turn) else None, violations
            )
        return _NOTHING

    def watches(self, tag: str | None) -> bool:
        """Whether an update tagged `tag` (`None`: not known) can change
        what the machine decides: `turn_complete` (v1) or the state update
        (v2). The machine only observes the others, so a caller that does
        not look at their observations need not feed them."""
        rules = self.rules
        return (
            tag is None
            or (rules.complete is not None and tag == rules.complete.tag)
            or (rules.lifecycle is not None and tag == rules.lifecycle.tag)
        )

    def pending(self, session: str) -> Any:
        """The prompt request of `session`'s turn that is not drained yet (`None` when there is none)."""
        return next(
            (
                turn.request
                for turn in reversed(self._sessions.get(session, []))
                if not self._drained(turn)
            ),
            None,
        )

    def is_drained(self, request: Any) -> bool:
        """Whether the turn of the prompt `request` is drained (or unknown)."""
        key = _key(request)
        turn = next(
            (
                turn
                for turns in self._sessions.values()
                for turn in turns
                if turn.key == key
            ),
            None,
        )
        return turn is None or self._drained(turn)


def _key(value: Any) -> str:
    """A JSON value as a key: its JSON text."""
    return json.dumps(value)


def _get(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else None


def _string(value: Any, name: str) -> str:
    """The string member `name` of `value`, or ""."""
    found = _get(value, name)
    return found if isinstance(found, str) else ""
