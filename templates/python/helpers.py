"""The RFD helpers, as pure state machines: no I/O and no clock of their own.

The caller passes the time in (any monotonic unit). The session-ready gate
holds an agent's session-scoped notifications until `session/ready` (rule
R1); the turn tracker correlates a client's prompt turns with their updates,
their end (`turn_complete`, or in protocol v2 the `idle` state update) and
response (R2, R4); `next_step` turns a `session/status`
into what to do (R3). The Rust and TypeScript bindings implement the same
machines and decide alike. Generated: do not edit.
"""

from __future__ import annotations

{% if turns.is_some() -%}
import json
{% endif -%}
{% if turns.is_some() -%}
from dataclasses import dataclass
{% endif -%}
from typing import Generic, Literal, TypeVar

{% if !imports.is_empty() -%}
from .models import (
{%- for name in imports %}
    {{ name }},
{%- endfor %}
)
{% endif -%}
from .negotiation import Negotiated

T = TypeVar("T")

NextStep = Literal["prompt", "load", "new", "not_negotiated"]
"""What to do with a session, from its `session/status`."""


class SessionReadyGate(Generic[T]):
    """Holds what an agent would send for a session until the client's `session/ready` for it."""

    def __init__(self, required: bool) -> None:
        self.required = required
        """Whether the agent advertised `session/ready`: without it every item passes at once."""
        self._waiting: dict[str, tuple[int, list[T]]] = {}
        self._ready: set[str] = set()

    @classmethod
    def from_negotiated(cls, negotiated: Negotiated) -> SessionReadyGate[T]:
        """A gate for what this exchange negotiated."""
        return cls(negotiated.session_ready)

    def responded(self, session: str, now: int) -> None:
        """The agent answered `session/new` or `session/load` for `session` at `now`."""
        if not self.required:
            return
        self._ready.discard(session)
        self._waiting.setdefault(session, (now, []))

    def send(self, session: str, item: T, now: int) -> list[T]:
        """A session-scoped notification to send at `now`: what may be sent now."""
        if not self.required or session in self._ready:
            return [item]
        self._waiting.setdefault(session, (now, []))[1].append(item)
        return []

    def ready(self, session: str) -> list[T]:
        """`session/ready` arrived for `session`: what was held, in order."""
        if not self.required:
            return []
        self._ready.add(session)
        return self._waiting.pop(session, (0, []))[1]

    def expire(self, now: int, timeout: int) -> list[tuple[str, list[T]]]:
        """The caller's fallback: sessions waiting `timeout` or longer count as ready; longest waiting first."""
        due = sorted((since, session) for session, (since, _) in self._waiting.items() if since + timeout <= now)
        return [(session, self.ready(session)) for _, session in due]

    def closed(self, session: str) -> list[T]:
        """The session ended: forgets it and returns what it still held, never sent."""
        self._ready.discard(session)
        return self._waiting.pop(session, (0, []))[1]

    def held(self, session: str) -> int:
        """How many items `session` holds."""
        return len(self._waiting.get(session, (0, []))[1])
{%- if let Some(turns) = turns %}


ViolationKind = Literal["update_after_response", "update_after_turn_complete", "duplicate_turn_complete", "stop_reason_mismatch", "unknown_turn", "update_after_idle"]
"""A rule the agent broke: R4 for an update after the prompt response, R2 for the rest."""


@dataclass(frozen=True)
class Violation:
    """One violation: what, in which session, for which prompt request."""

    kind: ViolationKind
    session: str
    request: {{ turns.request_type }}

    @property
    def rule(self) -> Literal["R2", "R4"]:
        """The rule id of the extended schema's ordering rules."""
        return "R4" if self.kind == "update_after_response" else "R2"


@dataclass(frozen=True)
class Observation:
    """What the tracker made of one message: its turn, the turn it drained, the rules broken."""

    turn: {{ turns.request_type }} | None
    drained: {{ turns.request_type }} | None
    violations: tuple[Violation, ...] = ()


_NOTHING = Observation(None, None)
{%- if let Some(lifecycle) = turns.lifecycle %}


@dataclass
class _Turn:
    request: {{ turns.request_type }}
    key: str
    responded: tuple[bool] | None = None
    """`(False,)`: an error response."""
    working: bool = False
    """A non-idle state of the session came after the prompt."""
    idled: bool = False
    """The `idle` that ended the turn came."""


class TurnTracker:
    """Correlates the client's prompt turns with their updates, their `idle` state update and response (R2).

    The response only acknowledges the prompt; a turn is drained by its
    response and the session's `idle` after a non-idle state of its own or
    after the response (an `idle` before both may be a snapshot of the work
    before the prompt). The agent's message or thought after the `idle` that
    ended its turn, before new foreground work, breaks R2; tool calls and
    plans may be background work and are not judged.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, list[_Turn]] = {}
        self._working: set[str] = set()
        """The sessions whose last state was not `idle`."""

    @classmethod
    def from_negotiated(cls, negotiated: Negotiated) -> TurnTracker:
        """A tracker for this exchange: v2 negotiates nothing about turns."""
        return cls()

    @staticmethod
    def _drained(turn: _Turn) -> bool:
        if turn.responded is None:
            return False
        return not turn.responded[0] or turn.idled
{%- else if let Some(stop_reason_type) = turns.stop_reason_type %}


@dataclass
class _Turn:
    request: {{ turns.request_type }}
    key: str
    completed: tuple[{{ stop_reason_type }}] | None = None
    responded: tuple[{{ stop_reason_type }} | None] | None = None
    """`(None,)`: an error response."""


class TurnTracker:
    """Correlates the client's prompt turns with their updates, `turn_complete` and response (R2, R4)."""

    def __init__(self, turn_complete: bool) -> None:
        self.turn_complete = turn_complete
        """Whether the agent advertised `turn_complete`: without it a turn is drained by its response alone."""
        self._sessions: dict[str, list[_Turn]] = {}

    @classmethod
    def from_negotiated(cls, negotiated: Negotiated) -> TurnTracker:
        """A tracker for what this exchange negotiated."""
        return cls(negotiated.turn_complete)

    def _drained(self, turn: _Turn) -> bool:
        if turn.responded is None:
            return False
        return turn.responded[0] is None or turn.completed is not None or not self.turn_complete
{%- endif %}

    def prompt(self, session: str, request: {{ turns.request_type }}) -> None:
        """The client sent `session/prompt` with id `request` for `session`."""
        turns = [turn for turn in self._sessions.get(session, []) if not self._drained(turn)]
        turns.append(_Turn(request, json.dumps(request)))
        self._sessions[session] = turns
{%- if let Some(lifecycle) = turns.lifecycle %}

    def update(self, notification: {{ turns.notification }}) -> Observation:
        """A `session/update` arrived."""
        session = str(notification.{{ turns.session }})
        update = notification.{{ turns.update }}
        if isinstance(update, {{ lifecycle.class }}):
            return self._state(session, isinstance(update.{{ lifecycle.state }}, {{ lifecycle.idle }}))
        {%- if turns.output.is_empty() %}
        return _NOTHING
        {%- else %}
        if not isinstance(update, ({{ turns.output.join(", ") }},)):
            return _NOTHING
        turns = self._sessions.get(session)
        if not turns:
            return _NOTHING
        turn = turns[-1]
        if not turn.idled:
            return Observation(turn.request, None)
        {%- if turns.replies.is_empty() %}
        return _NOTHING
        {%- else %}
        if not isinstance(update, ({{ turns.replies.join(", ") }},)) or session in self._working:
            return _NOTHING
        return Observation(turn.request, None, (Violation("update_after_idle", session, turn.request),))
        {%- endif %}
        {%- endif %}

    def _state(self, session: str, idle: bool) -> Observation:
        """A state snapshot: a non-idle state marks the open turns as working; `idle` ends those that worked or were answered."""
        if idle:
            self._working.discard(session)
        else:
            self._working.add(session)
        turn: {{ turns.request_type }} | None = None
        drained: {{ turns.request_type }} | None = None
        for candidate in self._sessions.get(session, []):
            if candidate.idled:
                continue
            if not idle:
                candidate.working = True
                turn = candidate.request
            elif candidate.working or candidate.responded is not None:
                was_drained = self._drained(candidate)
                candidate.idled = True
                turn = candidate.request
                if not was_drained and self._drained(candidate):
                    drained = candidate.request
        return Observation(turn, drained)

    def response(self, request: {{ turns.request_type }}, accepted: bool) -> Observation:
        """The response to the prompt `request` arrived: `accepted`, or refused with an error response."""
        key = json.dumps(request)
        for turns in self._sessions.values():
            turn = next((candidate for candidate in turns if candidate.key == key), None)
            if turn is None:
                continue
            if turn.responded is not None:
                return Observation(request, None)
            turn.responded = (accepted,)
            return Observation(request, request if self._drained(turn) else None)
        return _NOTHING
{%- else if let Some(stop_reason_type) = turns.stop_reason_type %}

    def update(self, notification: {{ turns.notification }}) -> Observation:
        """A `session/update` arrived."""
        session = str(notification.{{ turns.session }})
        update = notification.{{ turns.update }}
        {%- if let Some(complete) = turns.complete %}
        if isinstance(update, {{ complete.class }}):
            return self._complete(session, update.{{ complete.request }}, update.{{ complete.stop_reason }})
        {%- endif %}
        {%- if turns.output.is_empty() %}
        return _NOTHING
        {%- else %}
        if not isinstance(update, ({{ turns.output.join(", ") }},)):
            return _NOTHING
        turns = self._sessions.get(session)
        if not turns:
            return _NOTHING
        turn = turns[-1]
        if turn.responded is not None:
            return Observation(turn.request, None, (Violation("update_after_response", session, turn.request),))
        if turn.completed is not None:
            return Observation(turn.request, None, (Violation("update_after_turn_complete", session, turn.request),))
        return Observation(turn.request, None)
        {%- endif %}
    {%- if turns.complete.is_some() %}

    def _complete(self, session: str, request: {{ turns.request_type }}, stop_reason: {{ stop_reason_type }}) -> Observation:
        key = json.dumps(request)
        turn = next((candidate for candidate in self._sessions.get(session, []) if candidate.key == key), None)
        if turn is None:
            return Observation(None, None, (Violation("unknown_turn", session, request),))
        violations: list[Violation] = []
        if turn.responded is not None:
            violations.append(Violation("update_after_response", session, request))
        if turn.completed is not None:
            violations.append(Violation("duplicate_turn_complete", session, request))
            return Observation(request, None, tuple(violations))
        if turn.responded is not None and turn.responded[0] is not None and turn.responded[0] != stop_reason:
            violations.append(Violation("stop_reason_mismatch", session, request))
        was_drained = self._drained(turn)
        turn.completed = (stop_reason,)
        return Observation(request, request if not was_drained and self._drained(turn) else None, tuple(violations))
    {%- endif %}

    def response(self, request: {{ turns.request_type }}, stop_reason: {{ stop_reason_type }} | None) -> Observation:
        """The response to the prompt `request` arrived: its stop reason, or `None` for an error response."""
        key = json.dumps(request)
        for session, turns in self._sessions.items():
            turn = next((candidate for candidate in turns if candidate.key == key), None)
            if turn is None:
                continue
            if turn.responded is not None:
                return Observation(request, None)
            violations: tuple[Violation, ...] = ()
            if turn.completed is not None and stop_reason is not None and turn.completed[0] != stop_reason:
                violations = (Violation("stop_reason_mismatch", session, request),)
            turn.responded = (stop_reason,)
            return Observation(request, request if self._drained(turn) else None, violations)
        return _NOTHING
{%- endif %}

    def pending(self, session: str) -> {{ turns.request_type }} | None:
        """The prompt request of `session`'s turn that is not drained yet (`None` when there is none)."""
        return next((turn.request for turn in reversed(self._sessions.get(session, [])) if not self._drained(turn)), None)
{%- endif %}
{%- if let Some(status) = status %}


def next_step(negotiated: Negotiated, status: {{ status.type_name }}) -> NextStep:
    """Prompt a `live` session; load any other (unknown values count as `not_found`), or start anew when the agent cannot load.

    Without the negotiated capability: `not_negotiated`, never a guess.
    """
    if not negotiated.session_status:
        return "not_negotiated"
    if status == {{ status.type_name }}.{{ status.live }}:
        return "prompt"
    return "load" if negotiated.agent_handles("session/load") else "new"
{%- endif %}
