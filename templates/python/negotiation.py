"""Capability negotiation: what one `initialize` exchange allows.

The tables come from the schema's capability gates; the functions only read
them. Omitted, `null` and `false` capabilities mean unsupported; `true` and
any object mean supported; an offered method needs a non-empty list.
Generated: do not edit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypedDict

from pydantic import BaseModel

from ._runtime import decode_with, escape_token, to_json
from .models import {{ request_type }}, {{ response_type }}

PROTOCOL_VERSION = {{ protocol_version }}
"""The protocol version these bindings implement."""

_Needs = bool | int
"""`True`: baseline; `False`: not in this schema; an int: the rule that decides."""
_Entries = tuple[tuple[str, _Needs], ...]

# (the agent's message?, pointer tokens, offered as a non-empty list?)
_RULES: tuple[tuple[bool, tuple[str, ...], bool], ...] = {{ rules }}
_AGENT_METHODS: _Entries = {{ agent_methods }}
_CLIENT_METHODS: _Entries = {{ client_methods }}
_SECTIONS: tuple[tuple[str, _Entries], ...] = {{ sections }}
_FEATURES: _Entries = {{ features }}
# (method, pointer tokens ("*" = every item), tag member, tag value, rule)
_CHECKS: tuple[tuple[str, tuple[str, ...], str | None, str | None, int], ...] = {{ checks }}


class _SessionGate(TypedDict):
    """A method offered per session rather than at initialize."""

    method: str
    member: str
    """The member of the opening results that offers it (present and not null)."""
    session: str
    """The member naming the session."""
    openers: tuple[tuple[str, bool], ...]
    """The methods that open a session, each with whether it is named in their result."""


_SESSION_GATES: tuple[_SessionGate, ...] = {{ session_gates }}


class NegotiationError(Exception):
    """Why an initialize exchange does not negotiate."""

    def __init__(self, kind: Literal["version_above_requested", "unsupported_version"], requested: int, answered: int) -> None:
        if kind == "version_above_requested":
            message = f"the agent answered protocol version {answered}, above the {requested} the client asked for"
        else:
            message = f"the agent answered protocol version {answered}; these bindings implement {PROTOCOL_VERSION}"
        super().__init__(message)
        self.kind = kind
        self.requested = requested
        self.answered = answered


class CapabilityError(Exception):
    """An outgoing message the negotiated capabilities do not allow."""

    def __init__(self, method: str, pointer: str, side: Literal["agent", "client"], capability: str) -> None:
        part = pointer if pointer else "the method"
        super().__init__(f"{method}: {part} needs the {side} to advertise {capability}")
        self.method = method
        self.pointer = pointer
        """JSON pointer of the offending part of the params ("" for the method itself)."""
        self.side = side
        """The side that did not advertise the capability."""
        self.capability = capability
        """JSON pointer of the capability in that side's initialize message."""


def _member(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _locate(value: Any, pattern: tuple[str, ...]) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = [("", value)]
    for token in pattern:
        following: list[tuple[str, Any]] = []
        for pointer, current in found:
            if token == "*":
                if isinstance(current, list):
                    following.extend((f"{pointer}/{index}", item) for index, item in enumerate(current))
            elif isinstance(current, dict) and token in current:
                following.append((f"{pointer}/{escape_token(token)}", current[token]))
        found = following
    return found


class Negotiated:
    """What one initialize exchange allows; `to_json()` gives the shared document."""

    def __init__(self, protocol_version: int, request: Any, response: Any) -> None:
        self.protocol_version = protocol_version
        self._request = request
        self._response = response

    def _holds(self, rule: int) -> bool:
        agent, pointer, offered = _RULES[rule]
        value: Any = self._response if agent else self._request
        for token in pointer:
            value = _member(value, token)
        if offered:
            return isinstance(value, list) and len(value) > 0
        return value is True or isinstance(value, dict)

    def _needs(self, needs: _Needs) -> bool:
        if isinstance(needs, bool):
            return needs
        return self._holds(needs)

    def _lookup(self, entries: _Entries, name: str) -> bool:
        return any(known == name and self._needs(needs) for known, needs in entries)

    def agent_handles(self, method: str) -> bool:
        """Whether the agent may be called with `method` (every agent-side method; unknown ones are False)."""
        return self._lookup(_AGENT_METHODS, method)

    def client_handles(self, method: str) -> bool:
        """Whether the client may be called with `method` (every client-side method; unknown ones are False)."""
        return self._lookup(_CLIENT_METHODS, method)

    def allows(self, section: str, name: str) -> bool:
        """One entry of a section: `prompt` (image, audio, embeddedContext), `mcp`, `updates`, `elicitation`."""
        return any(known == section and self._lookup(entries, name) for known, entries in _SECTIONS)

    @property
    def session_ready(self) -> bool:
        """The agent requires `session/ready` after each session is set up (RFD session-ready)."""
        return self._lookup(_FEATURES, "sessionReady")

    @property
    def turn_complete(self) -> bool:
        """The agent ends every prompt turn with a `turn_complete` update (RFD turn-complete)."""
        return self._lookup(_FEATURES, "turnComplete")

    @property
    def session_status(self) -> bool:
        """The agent answers `session/status` (RFD session-status)."""
        return self._lookup(_FEATURES, "sessionStatus")

    def check_outgoing(self, method: str, params: Any) -> CapabilityError | None:
        """The first part of an outgoing `method` call with `params` (a model or parsed JSON) the capabilities do not allow, or None."""
        wire = to_json(params) if isinstance(params, BaseModel) else params

        def refuse(rule: int, pointer: str) -> CapabilityError:
            agent, tokens, _ = _RULES[rule]
            return CapabilityError(method, pointer, "agent" if agent else "client", "".join(f"/{escape_token(token)}" for token in tokens))

        for known, needs in (*_AGENT_METHODS, *_CLIENT_METHODS):
            if known == method:
                if not isinstance(needs, bool) and not self._holds(needs):
                    return refuse(needs, "")
                break
        for check_method, pattern, tag_property, tag_value, rule in _CHECKS:
            if check_method != method or self._holds(rule):
                continue
            for pointer, value in _locate(wire, pattern):
                if tag_value is None:
                    gated = value is not None
                elif tag_property is None:
                    gated = value == tag_value
                else:
                    gated = _member(value, tag_property) == tag_value
                if gated:
                    return refuse(rule, pointer)
        return None

    def to_json(self) -> dict[str, Any]:
        """The shared JSON document (`json.dumps` prints it)."""
        document: dict[str, Any] = {
            "protocolVersion": self.protocol_version,
            "agentHandles": {name: self._needs(needs) for name, needs in _AGENT_METHODS},
            "clientHandles": {name: self._needs(needs) for name, needs in _CLIENT_METHODS},
        }
        for section, entries in _SECTIONS:
            document[section] = {name: self._needs(needs) for name, needs in entries}
        for name, needs in _FEATURES:
            document[name] = self._needs(needs)
        return document


class SessionOffers:
    """What the answers that opened sessions offered, per session.

    A method offered per session (`session/set_mode` by `modes`) may be sent
    only on a session whose opening answer offered it. A session not seen
    opened here is not judged (another connection may have opened it).
    """

    def __init__(self) -> None:
        # Session id -> gated method -> offered.
        self._sessions: dict[str, dict[str, bool]] = {}

    def record(self, method: str, params: Any, result: Any) -> None:
        """Notes what the answer `result` to `method` with `params` (parsed JSON) offered, when `method` opens a session."""
        for gate in _SESSION_GATES:
            in_result = next((named for opener, named in gate["openers"] if opener == method), None)
            if in_result is None:
                continue
            session = _member(result if in_result else params, gate["session"])
            if isinstance(session, str):
                self._sessions.setdefault(session, {})[gate["method"]] = _member(result, gate["member"]) is not None

    def check(self, method: str, params: Any) -> CapabilityError | None:
        """A `CapabilityError` when `method` with `params` (parsed JSON) names a session opened here without its offer, else None."""
        for gate in _SESSION_GATES:
            if gate["method"] != method:
                continue
            session = _member(params, gate["session"])
            offered = self._sessions.get(session, {}).get(method) if isinstance(session, str) else None
            return CapabilityError(method, "", "agent", f"/{escape_token(gate['member'])}") if offered is False else None
        return None


def without_unhandled_offers(method: str, result: Any, handles: Callable[[str], bool]) -> Any:
    """`result`, the agent's answer to `method` (parsed JSON), without the
    members that offer per session the methods `handles` says the agent does
    not handle (a copy when one is removed)."""
    if not isinstance(result, dict):
        return result
    for gate in _SESSION_GATES:
        member = gate["member"]
        if handles(gate["method"]) or member not in result or all(opener != method for opener, _ in gate["openers"]):
            continue
        result = {key: value for key, value in result.items() if key != member}
    return result


def _wire(annotation: Any, message: Any) -> Any:
    decoded = message if isinstance(message, annotation) else decode_with(annotation, message)
    return to_json(decoded)


def _version(message: Any) -> int:
    value = _member(message, "protocolVersion")
    return value if isinstance(value, int) else -1


def negotiate(request: {{ request_type }} | Any, response: {{ response_type }} | Any) -> Negotiated:
    """Negotiates from the client's `initialize` params and the agent's result, models or parsed JSON (decoded here).

    Raises `DecodeError` when a message does not decode, and `NegotiationError` when the
    agent answered a version above the client's or one these bindings do not implement.
    """
    wire_request = _wire({{ request_type }}, request)
    wire_response = _wire({{ response_type }}, response)
    requested = _version(wire_request)
    answered = _version(wire_response)
    if answered > requested:
        raise NegotiationError("version_above_requested", requested, answered)
    if answered != PROTOCOL_VERSION:
        raise NegotiationError("unsupported_version", requested, answered)
    return Negotiated(answered, wire_request, wire_response)
