"""The RFD helpers, as pure state machines: no I/O and no clock of their own.

The caller passes the time in (any monotonic unit). The session-ready gate
holds an agent's session-scoped notifications until `session/ready` (rule
R1); the turn tracker correlates a client's prompt turns with their updates,
their end (`turn_complete`, or in protocol v2 the `idle` state update) and
response (R2, R4): a typed facade over the wire-level machine of `_turns.py`
with this schema's `TURN_RULES`, the machine the client's end of a
connection feeds too; `next_step` turns a `session/status` into what to do
(R3). The Rust, TypeScript and Go bindings implement the same machines and
decide alike. Generated: do not edit.
"""

from __future__ import annotations

from typing import Generic, Literal, TypeVar

{% if turns.is_some() -%}
from . import _runtime as _rt
from . import _turns
{% endif -%}
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


ViolationKind = _turns.ViolationKind
"""A rule the agent broke: R4 for an update after the prompt response, R2 for the rest."""
Violation = _turns.Violation
"""One violation: what, in which session, for which prompt request."""
Observation = _turns.Observation
"""What the tracker made of one message: its turn, the turn it drained, the rules broken."""

TURN_RULES = _turns.TurnRules(
    session={{ turns.session }},
    update={{ turns.update }},
    tag={{ turns.tag }},
    output={{ turns.output }},
    replies={{ turns.replies }},
    {%- if let Some(complete) = turns.complete %}
    complete=_turns.CompleteRules(tag={{ complete.tag }}, request={{ complete.request }}, stop_reason={{ complete.stop_reason }}),
    {%- endif %}
    {%- if let Some(lifecycle) = turns.lifecycle %}
    lifecycle=_turns.LifecycleRules(tag={{ lifecycle.tag }}, state={{ lifecycle.state }}, idle={{ lifecycle.idle }}),
    {%- endif %}
)
"""The schema's turn rules, as the turn machine reads them from the wire (the client's end of a connection feeds the same machine)."""
{%- if turns.lifecycle.is_some() %}


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
        self._machine = _turns.TurnMachine(TURN_RULES, False)

    @classmethod
    def from_negotiated(cls, negotiated: Negotiated) -> TurnTracker:
        """A tracker for this exchange: v2 negotiates nothing about turns."""
        return cls()
{%- else %}


class TurnTracker:
    """Correlates the client's prompt turns with their updates, `turn_complete` and response (R2, R4)."""

    def __init__(self, turn_complete: bool) -> None:
        self._machine = _turns.TurnMachine(TURN_RULES, turn_complete)

    @property
    def turn_complete(self) -> bool:
        """Whether the agent advertised `turn_complete`: without it a turn is drained by its response alone."""
        return self._machine.turn_complete

    @classmethod
    def from_negotiated(cls, negotiated: Negotiated) -> TurnTracker:
        """A tracker for what this exchange negotiated."""
        return cls(negotiated.turn_complete)
{%- endif %}

    def prompt(self, session: str, request: {{ turns.request_type }}) -> None:
        """The client sent `session/prompt` with id `request` for `session`."""
        self._machine.prompt(session, request)

    def update(self, notification: {{ turns.notification }}) -> Observation[{{ turns.request_type }}]:
        """A `session/update` arrived."""
        return self._machine.update(_rt.to_json(notification))
{%- if turns.lifecycle.is_some() %}

    def response(self, request: {{ turns.request_type }}, accepted: bool) -> Observation[{{ turns.request_type }}]:
        """The response to the prompt `request` arrived: `accepted`, or refused with an error response."""
        return self._machine.response(request, not accepted)
{%- else if let Some(stop_reason_type) = turns.stop_reason_type %}

    def response(self, request: {{ turns.request_type }}, stop_reason: {{ stop_reason_type }} | None) -> Observation[{{ turns.request_type }}]:
        """The response to the prompt `request` arrived: its stop reason, or `None` for an error response."""
        return self._machine.response(request, stop_reason is None, stop_reason)
{%- endif %}

    def pending(self, session: str) -> {{ turns.request_type }} | None:
        """The prompt request of `session`'s turn that is not drained yet (`None` when there is none)."""
        pending: {{ turns.request_type }} | None = self._machine.pending(session)
        return pending
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
