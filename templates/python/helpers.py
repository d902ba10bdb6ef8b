"""The RFD helpers, as pure state machines: no I/O and no clock of their own.

The caller passes the time in (any monotonic unit). The session-ready gate
holds an agent's session-scoped notifications until `session/ready` (rule
R1); the turn tracker correlates a client's prompt turns with their updates,
`turn_complete` and response (R2, R4); `next_step` turns a `session/status`
into what to do (R3). The Rust and TypeScript bindings implement the same
machines and decide alike. Generated: do not edit.
"""

from __future__ import annotations

{% if turns.is_some() -%}
import json
{% endif -%}
{% if ready.is_some() -%}
import time
{% endif -%}
{% if turns.is_some() -%}
from dataclasses import dataclass
{% endif -%}
from typing import {% if ready.is_some() %}Any, {% endif %}Generic, Literal, TypeVar

{% if !imports.is_empty() -%}
from .models import (
{%- for name in imports %}
    {{ name }},
{%- endfor %}
)
{% endif -%}
from .negotiation import Negotiated{% if ready.is_some() %}, NegotiationError, negotiate{% endif %}

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


ViolationKind = Literal["update_after_response", "update_after_turn_complete", "duplicate_turn_complete", "stop_reason_mismatch", "unknown_turn"]
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


@dataclass
class _Turn:
    request: {{ turns.request_type }}
    key: str
    completed: tuple[{{ turns.stop_reason_type }}] | None = None
    responded: tuple[{{ turns.stop_reason_type }} | None] | None = None
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

    def prompt(self, session: str, request: {{ turns.request_type }}) -> None:
        """The client sent `session/prompt` with id `request` for `session`."""
        turns = [turn for turn in self._sessions.get(session, []) if not self._drained(turn)]
        turns.append(_Turn(request, json.dumps(request)))
        self._sessions[session] = turns

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

    def _complete(self, session: str, request: {{ turns.request_type }}, stop_reason: {{ turns.stop_reason_type }}) -> Observation:
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

    def response(self, request: {{ turns.request_type }}, stop_reason: {{ turns.stop_reason_type }} | None) -> Observation:
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
{%- if let Some(ready) = ready %}


_OPENERS: tuple[tuple[str, bool, str], ...] = {{ ready.openers }}
"""The requests after whose response a client confirms a session: method, whether the session id is in the result, its member."""

_SCOPED: tuple[tuple[str, str], ...] = {{ ready.scoped }}
"""The agent's session-scoped notifications and their session id member."""


def _member(value: Any, name: str) -> str | None:
    found = value.get(name) if isinstance(value, dict) else None
    return found if isinstance(found, str) else None


class SessionReadyLifecycle:
    """Rule R1 at both ends of a connection, once `initialize` has negotiated `session/ready`.

    The client's end sends {{ ready.method_text }} after each session-opening response
    (once the code awaiting it has run), and the agent's end holds its
    session-scoped notifications for a session until that notification arrives.
    Every connection gets one; without the capability, or when `initialize` does
    not negotiate, it does nothing.
    """

    def __init__(self) -> None:
        self._negotiated: Negotiated | None = None
        self._gate: SessionReadyGate[dict[str, Any]] = SessionReadyGate(False)

    def _negotiate(self, params: Any, result: Any) -> None:
        try:
            self._negotiated = negotiate(params, result)
        except (NegotiationError, ValueError):
            self._negotiated = None
        self._gate = SessionReadyGate(self._negotiated is not None and self._negotiated.session_ready)

    @staticmethod
    def _opened(method: str, params: Any, result: Any) -> str | None:
        opener = next((entry for entry in _OPENERS if entry[0] == method), None)
        return None if opener is None else _member(result if opener[1] else params, opener[2])

    def settled(self, method: str, params: Any, result: Any) -> list[dict[str, Any]]:
        """A request this end sent got its result; returns messages to send once the caller has it."""
        if method == "initialize":
            self._negotiate(params, result)
        session = self._opened(method, params, result) if self._negotiated is not None and self._negotiated.session_ready else None
        return [] if session is None else [{"jsonrpc": "2.0", "method": {{ ready.method }}, "params": { {{ ready.member }}: session }}]

    def answered(self, method: str, params: Any, result: Any) -> None:
        """This end answered the peer's request of `method` with `result`."""
        if method == "initialize":
            self._negotiate(params, result)
        session = self._opened(method, params, result)
        if session is not None:
            self._gate.responded(session, time.monotonic_ns())

    def received(self, method: str, params: Any) -> list[dict[str, Any]]:
        """A notification from the peer was delivered; returns messages this end held, to send now."""
        session = _member(params, {{ ready.member }}) if method == {{ ready.method }} else None
        return [] if session is None else self._gate.ready(session)

    def outgoing(self, method: str, message: dict[str, Any]) -> list[dict[str, Any]]:
        """This end sends the notification `message`; returns what to send now."""
        scoped = next((entry for entry in _SCOPED if entry[0] == method), None)
        session = None if scoped is None else _member(message.get("params"), scoped[1])
        return [message] if session is None else self._gate.send(session, message, time.monotonic_ns())
{%- endif %}
