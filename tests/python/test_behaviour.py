"""Behaviour the vectors do not spell out, on types every ACP release has."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest

from conftest import bindings_folder, installed_package, package_name

PACKAGE = installed_package(bindings_folder())
MODELS = importlib.import_module(f"{package_name()}.models")
METHODS = importlib.import_module(f"{package_name()}.methods")


def error_of(type_name: str, value: Any) -> Any:
    with pytest.raises(PACKAGE.DecodeError) as raised:
        PACKAGE.roundtrip(type_name, value)
    return raised.value


def test_open_integer_enum_keeps_other_values_within_its_format() -> None:
    assert PACKAGE.roundtrip("ErrorCode", 12) == 12
    assert PACKAGE.roundtrip("ErrorCode", -32700) == -32700
    for value in (2**31, True, "12", 12.5):
        error_of("ErrorCode", value)


def test_attributes_are_snake_case_and_accept_both_names() -> None:
    by_wire = MODELS.TextContent.model_validate({"text": "x", "_meta": {"k": 1}})
    by_attribute = MODELS.TextContent(text="x", meta={"k": 1})
    assert by_wire == by_attribute
    assert by_attribute.model_dump(mode="json", by_alias=True, exclude_unset=True) == {"text": "x", "_meta": {"k": 1}}


def test_every_model_is_documented() -> None:
    for name, value in vars(MODELS).items():
        if inspect.isclass(value) and value.__module__ == MODELS.__name__:
            assert (value.__doc__ or "").strip(), name


def test_protocols_have_one_method_per_handled_method() -> None:
    agent = {name for name, _ in inspect.getmembers(PACKAGE.Agent, inspect.isfunction)}
    client = {name for name, _ in inspect.getmembers(PACKAGE.Client, inspect.isfunction)}
    assert "initialize" in agent and "initialize" not in client
    assert "session_update" in client and "session_update" not in agent
    assert METHODS.REQUESTS["initialize"].side == "agent"
    assert METHODS.NOTIFICATIONS["session/update"].side == "client"
