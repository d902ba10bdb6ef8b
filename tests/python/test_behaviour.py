"""Behaviour the vectors do not spell out, on types every ACP release has."""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

import pytest

from conftest import bindings_folder, installed_package, package_name

PACKAGE = installed_package(bindings_folder())
MODELS = importlib.import_module(f"{package_name()}.models")
METHODS = importlib.import_module(f"{package_name()}.methods")
RUNTIME = importlib.import_module(f"{package_name()}._runtime")


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


def test_wire_json_is_read_by_wire_names_only() -> None:
    """An unknown member spelled like another member's attribute stays an
    unknown member, and does not make that member written out: `meta` is
    not `_meta` on the wire (a real client's `clientCapabilities` carried one)."""
    wire = {"text": "x", "meta": {"k": 1}}
    for decoded in (MODELS.TextContent.model_validate(wire), RUNTIME.read(MODELS.TextContent, wire)):
        assert decoded.meta is None
        assert decoded.model_extra == {"meta": {"k": 1}}
        assert RUNTIME.encode(MODELS.TextContent, decoded) == wire


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


def flattening_vectors() -> list[Any]:
    """The valid vectors of every model that flattens a union beside its own
    members, but those with unknown members spelled like attributes
    (`name_twins`): a constructor takes attributes, so it cannot be given them."""
    cases = []
    for path in sorted((bindings_folder() / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        model = MODELS.TYPES.get(document["type"])
        if isinstance(model, type) and issubclass(model, RUNTIME.FlatModel):
            for vector in document["valid"]:
                if vector["name"] != "name_twins":
                    cases.append(pytest.param(model, vector["value"], id=f"{document['type']}/{vector['name']}"))
    return cases


@pytest.mark.parametrize(("model", "value"), flattening_vectors())
def test_models_that_flatten_are_built_from_their_attributes(model: Any, value: Any) -> None:
    decoded = RUNTIME.read(model, value)
    rebuilt = model(**{name: getattr(decoded, name) for name in decoded.model_fields_set})
    assert rebuilt == decoded
    assert RUNTIME.encode(model, rebuilt) == RUNTIME.encode(model, decoded)


def test_a_variant_tag_defaults_to_its_value_and_is_written() -> None:
    block = MODELS.ContentBlockText(text="hi")
    assert block.type_ == "text"
    assert RUNTIME.encode(MODELS.ContentBlock, block) == {"type": "text", "text": "hi"}


def test_field_docstrings_are_field_descriptions() -> None:
    assert MODELS.TextContent.model_fields["text"].description or MODELS.TextContent.model_fields["meta"].description


def test_docstrings_indent_their_continuation_lines() -> None:
    """Every line of a class body, docstrings included, is indented (PEP 257)."""
    source = inspect.getsource(MODELS)
    for block in source.split("\n\n\nclass ")[1:]:
        body = block.split("\n\n\n")[0].split("\n")[1:]
        assert all(line == "" or line.startswith("    ") for line in body), block.split("(")[0]


def test_a_member_a_rule_leaves_out_reads_as_its_default() -> None:
    """A lenient vector whose expected value lacks one of its members: the
    decoded model leaves it out (not set, not written) and reads its default."""
    checked = 0
    for path in sorted((bindings_folder() / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        model = MODELS.TYPES.get(document["type"])
        if not (inspect.isclass(model) and issubclass(model, RUNTIME.WireModel)):
            continue
        fields = {field.alias or attr: (attr, field) for attr, field in model.model_fields.items()}
        for vector in document["lenient"]:
            dropped = [key for key in vector["value"] if key not in vector["expected"] and key in fields]
            if not isinstance(vector["expected"], dict) or not dropped:
                continue
            decoded = model.model_validate(vector["value"])
            for key in dropped:
                attr, field = fields[key]
                assert attr not in decoded.model_fields_set, (document["type"], vector["name"])
                assert getattr(decoded, attr) == field.get_default(call_default_factory=True), (document["type"], vector["name"])
            assert RUNTIME.to_json(decoded) == vector["expected"], (document["type"], vector["name"])
            checked += 1
    assert checked > 0
