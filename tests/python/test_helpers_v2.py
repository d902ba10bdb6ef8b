"""The turn tracker of the Python package for protocol v2 on the v2 scenarios of `tests/helpers.json`.

The `session/update` params are decoded as `UpdateSessionNotification`;
turns end with the `idle` state update, and the agent's reply after it is
reported (the Rust and TypeScript helpers run the same scenarios).

Collected only for the latest release's v2 stable bindings
(`ACP_SCHEMA_LABEL`, `conftest.SCHEMA_SUITES`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())
TABLE = json.loads((Path(__file__).resolve().parent.parent / "helpers.json").read_text(encoding="utf-8"))
SCENARIOS = [scenario for scenario in TABLE["scenarios"] if scenario.get("schema") == "v2-stable"]


def plain(observation: Any) -> dict[str, Any]:
    """An observation as the table writes it."""
    violations = [
        {"rule": violation.rule, "kind": violation.kind, "session": violation.session, "request": violation.request}
        for violation in observation.violations
    ]
    return {"turn": observation.turn, "drained": observation.drained, "violations": violations}


def test_the_table_has_v2_scenarios_all_of_the_turn_tracker() -> None:
    assert len(SCENARIOS) >= 5
    assert all(scenario["helper"] == "turns" for scenario in SCENARIOS)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: f"turns: {scenario['name']}")
def test_scenario(scenario: dict[str, Any]) -> None:
    info = {"protocolVersion": 2, "info": {"name": "peer", "version": "1"}}
    tracker = PACKAGE.TurnTracker.from_negotiated(PACKAGE.negotiate(info, info))
    checked = 0
    for index, step in enumerate(scenario["steps"]):
        if "prompt" in step:
            tracker.prompt(step["prompt"]["session"], step["prompt"]["request"])
            assert tracker.pending(step["prompt"]["session"]) == step["prompt"]["request"]
            continue
        if "update" in step:
            got = tracker.update(PACKAGE.UpdateSessionNotification.model_validate(step["update"]))
        elif "response" in step:
            got = tracker.response(step["response"]["request"], step["response"]["accepted"])
        else:
            raise AssertionError(f"unknown turn step {step}")
        assert json.loads(json.dumps(plain(got))) == step["expect"], f"step {index}"
        checked += 1
    assert checked, "a scenario checks something"
