"""Capability negotiation on the initialize pairs of `tests/negotiation.json`
(`cargo xtask test` writes this schema's entry to `<bindings>/negotiation.json`):
every view as the table expects, the typed errors, every outgoing check
passing and refused, accessors agreeing with the document. The compact JSON
of each view goes to `<bindings>/negotiation-python.txt`, which `cargo xtask
test` compares byte for byte with the other languages'."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())
CASES: dict[str, Any] = json.loads((bindings_folder() / "negotiation.json").read_text(encoding="utf-8"))


def booleans(document: dict[str, Any]) -> dict[str, bool]:
    """Every boolean of a view by its path (`section/name` or `name`)."""
    found: dict[str, bool] = {}
    for key, value in document.items():
        if isinstance(value, dict):
            found.update({f"{key}/{name}": flag for name, flag in value.items()})
        elif isinstance(value, bool):
            found[key] = value
    return found


def negotiated(pair: dict[str, Any]) -> Any:
    return PACKAGE.negotiate(pair["request"], pair["response"])


def test_every_view_is_as_the_table_says_and_is_written_for_comparison() -> None:
    assert CASES["views"], "the table has views for this schema"
    lines = []
    for view in CASES["views"]:
        pair = CASES["pairs"][view["pair"]]
        result = negotiated(pair)
        document = result.to_json()
        assert document["protocolVersion"] == view["protocolVersion"] == result.protocol_version
        flags = booleans(document)
        for path in view["true"] + view["false"]:
            assert path in flags, f"{view['pair']}: the view has no {path}"
        for path, flag in flags.items():
            expected = True if path in view["true"] else False if path in view["false"] else view["others"]
            assert flag is expected, f"{view['pair']}: {path} is {flag}"
        for method, flag in document["agentHandles"].items():
            assert result.agent_handles(method) is flag
        for method, flag in document["clientHandles"].items():
            assert result.client_handles(method) is flag
        assert not result.agent_handles("no/such_method") and not result.client_handles("no/such_method")
        for section in ("prompt", "mcp", "updates", "elicitation"):
            for name, flag in document[section].items():
                assert result.allows(section, name) is flag
        assert (result.session_ready, result.turn_complete, result.session_status) == (
            document["sessionReady"],
            document["turnComplete"],
            document["sessionStatus"],
        )
        decoded = PACKAGE.negotiate(
            PACKAGE.InitializeRequest.model_validate(pair["request"]),
            PACKAGE.InitializeResponse.model_validate(pair["response"]),
        )
        assert decoded.to_json() == document, "decoded models negotiate as their JSON does"
        lines.append(view["pair"] + "\t" + json.dumps(document, separators=(",", ":")))
    (bindings_folder() / "negotiation-python.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("case", CASES["errors"], ids=lambda case: case["name"])
def test_bad_pairs_fail_with_typed_errors(case: dict[str, Any]) -> None:
    expected = PACKAGE.DecodeError if case["error"] == "decode" else PACKAGE.NegotiationError
    with pytest.raises(expected) as raised:
        negotiated(case)
    if case["error"] != "decode":
        assert raised.value.kind == case["error"]


def refusals(pair: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    assert messages
    allowed = negotiated(CASES["pairs"]["all"])
    refused = negotiated(pair)
    for message in messages:
        assert allowed.check_outgoing(message["method"], message["params"]) is None, message["method"]
        error = refused.check_outgoing(message["method"], message["params"])
        assert isinstance(error, PACKAGE.CapabilityError), message
        assert (error.method, error.pointer, error.capability, error.side) == (
            message["method"],
            message["pointer"],
            message["capability"],
            message["side"],
        )


def test_outgoing_messages_pass_when_advertised_and_are_refused_when_not() -> None:
    assert CASES["outgoing"]
    refusals(CASES["pairs"]["none"], CASES["outgoing"])


def test_parts_of_allowed_methods_are_refused_when_not_advertised() -> None:
    assert CASES["partial"]
    for partial in CASES["partial"]:
        refusals(partial["pair"], partial["outgoing"])


def test_the_readme_example_a_client_checks_before_it_sends() -> None:
    request = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}
    response = {"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": {"image": True}}}
    if PACKAGE.PROTOCOL_VERSION != 1:
        with pytest.raises(PACKAGE.DecodeError):  # v1 messages do not negotiate with v2 bindings
            PACKAGE.negotiate(request, response)
        return
    negotiated = PACKAGE.negotiate(request, response)
    assert negotiated.client_handles("fs/read_text_file")
    assert not negotiated.agent_handles("session/load")
    prompt = {"sessionId": "s1", "prompt": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]}
    refused = negotiated.check_outgoing("session/prompt", prompt)
    assert refused is not None
    assert refused.pointer == "/prompt/0"
    assert refused.capability == "/agentCapabilities/promptCapabilities/audio"
    view = json.dumps(negotiated.to_json(), indent=2)
    assert '"image": true' in view
