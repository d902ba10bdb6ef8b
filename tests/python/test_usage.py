"""Runs `usage.py` (an agent and a client written as a programmer
would) and checks that every message it put on the wire round-trips, and
runs its twin on the official SDK, which must show the same. The
program is written against the default schema's session updates, which v2
releases replaced, so it runs where the package has them."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())

#: What the client of either program shows, in order.
SEEN = [
    "message Looking at the branch.",
    "tool git status",
    "tool update completed",
    "plan of 1",
    "extension _zed/cursor",
    "message Merged.",
]


def type_of(message: dict[str, Any], requests: dict[str, str]) -> str | None:
    """The schema type of a message's params or result; `None` for an extension."""
    methods = importlib.import_module(f"{PACKAGE.__name__}.methods")
    if "method" in message and message["method"].startswith("_"):
        return None
    if "method" not in message:
        return str(methods.REQUESTS[requests[message["id"]]].result.__name__)
    if "id" in message:
        requests[message["id"]] = message["method"]
        return str(methods.REQUESTS[message["method"]].params.__name__)
    return str(methods.NOTIFICATIONS[message["method"]].params.__name__)


def test_the_usage_program_runs_and_its_messages_round_trip() -> None:
    if "SessionNotification" not in PACKAGE.__all__:
        pytest.skip("the usage program is written against the session updates of v1 schemas")
    usage = importlib.import_module("usage")
    wire, client = asyncio.run(usage.run())
    assert client.seen == SEEN
    requests: dict[str, str] = {}
    for message in wire:
        body = message.get("params", message.get("result"))
        type_name = type_of(message, requests)
        if type_name is not None:
            assert PACKAGE.roundtrip(type_name, body) == body, message
    assert [message.get("method") for message in wire] == METHODS


#: The method of each message on the wire, `None` for a response.
METHODS = [
    "initialize",
    None,
    "session/new",
    None,
    "session/prompt",
    *["session/update"] * 4,
    "_zed/cursor",
    "elicitation/create",
    None,
    "session/update",
    None,
]


def test_the_official_sdk_twin_shows_the_same() -> None:
    """`usage_official.py`, the same program on the official SDK, sends the same methods and shows the same."""
    wire, client = asyncio.run(importlib.import_module("usage_official").run())
    assert client.seen == SEEN
    assert [message.get("method") for message in wire.messages] == METHODS
