"""The package's API beyond what the vectors spell out, on types and methods
every ACP release has: decoding details, names and docstrings, decoding by
method name (`initialize`, `session/new`) and dispatching to a side's
protocol."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import unicodedata
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


@pytest.mark.parametrize(
    "wire",
    [
        {"text": "x", "_meta": None, "meta": {"k": 1}},
        {"text": "x", "_meta": {"a": 1}, "meta": {"k": 1}},
        {"text": "x", "_meta": None, "meta": None},
    ],
)
def test_an_unknown_member_spelled_like_an_attribute_leaves_its_twin_as_read(wire: Any) -> None:
    """Beside a member that was read, `null` included, an unknown member
    spelled like its attribute changes nothing: both are written back as
    they came."""
    assert PACKAGE.roundtrip("TextContent", wire) == wire
    decoded = MODELS.TextContent.model_validate_json(json.dumps(wire))
    assert json.loads(decoded.model_dump_json(by_alias=True, exclude_unset=True)) == wire


def test_a_required_member_read_as_null_keeps_its_twin_beside_it() -> None:
    """The same for every required member whose wire name differs from its
    attribute and that takes `null` (`requestId` of `CancelRequestNotification`
    in the default schema), in each type's minimal vector."""
    checked = 0
    for document, model in vector_documents(RUNTIME.WireModel):
        if model.model_config.get("extra") != "allow":
            continue
        minimal = next(vector["value"] for vector in document["valid"] if vector["name"] == "minimal")
        for attr, field in model.model_fields.items():
            if not field.is_required() or field.alias in (None, attr) or attr in minimal:
                continue
            wire = {**minimal, field.alias: None}
            try:
                nullable = PACKAGE.roundtrip(document["type"], wire) == wire
            except PACKAGE.DecodeError:
                nullable = False
            if nullable:
                twins = {**wire, attr: 7}
                assert PACKAGE.roundtrip(document["type"], twins) == twins, (document["type"], attr)
                checked += 1
    if os.environ.get("ACP_DEFAULT_SCHEMA"):
        assert checked > 0


def test_json_reading_and_writing_take_pydantics_options() -> None:
    """The models' `model_validate_json` and `model_dump_json` hand pydantic-core
    only the options given (`_runtime.WireModel`): each of pydantic's own
    options, at its default and not, gives what pydantic's methods give."""
    from pydantic import BaseModel

    text = '{"text":"hi","_meta":{"a":[1,null]}}'
    model = MODELS.TextContent
    decoded = model.model_validate_json(text)
    assert decoded == BaseModel.model_validate_json.__func__(model, text)
    assert model.model_validate_json(text, strict=True, by_alias=True) == decoded
    with pytest.raises(Exception, match="by_alias"):
        model.model_validate_json(text, by_alias=False)
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(BaseModel.model_dump_json).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }
    assert decoded.model_dump_json(**defaults) == BaseModel.model_dump_json(decoded, **defaults)
    for options in ({}, {"by_alias": True, "exclude_unset": True}, {"indent": 2, "exclude_none": True}):
        assert decoded.model_dump_json(**options) == BaseModel.model_dump_json(decoded, **options)


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


def vector_documents(base: type) -> list[tuple[Any, Any]]:
    """The shared vectors' documents of every model class derived from
    `base`, with that class, in file order."""
    documents = []
    for path in sorted((bindings_folder() / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        model = MODELS.TYPES.get(document["type"])
        if inspect.isclass(model) and issubclass(model, base):
            documents.append((document, model))
    return documents


def flattening_vectors() -> list[Any]:
    """The valid vectors of every model that flattens a union beside its own
    members, but those with unknown members spelled like attributes
    (`name_twins`): a constructor takes attributes, so it cannot be given them."""
    cases = []
    for document, model in vector_documents(RUNTIME.FlatModel):
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


def prose(text: str) -> str:
    """Schema prose as every package's docs carry it (`codegen/generate/src/emit/prose.rs`):
    line breaks as `\\n`, other control characters and the Unicode line and paragraph
    separators as visible `\\u{XXXX}` escapes; docstrings then lose their common indent
    and the white space that ends a line, which these lines leave out of the comparison."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    visible = "".join(
        character
        if character in "\n\t" or not (unicodedata.category(character) == "Cc" or character in "\u2028\u2029")
        else f"\\u{{{ord(character):04X}}}"
        for character in text
    )
    return "\n".join(line.rstrip() for line in inspect.cleandoc(visible).split("\n"))


def test_field_descriptions_are_the_schema_descriptions() -> None:
    """Every field of a model named after a definition whose member has a
    description carries that text, as the prose rule writes it."""
    schema = json.loads((bindings_folder() / "schema" / "acp.schema.json").read_text(encoding="utf-8"))
    compared = 0
    for name, node in schema["$defs"].items():
        model = MODELS.TYPES.get(name)
        if not (inspect.isclass(model) and issubclass(model, RUNTIME.WireModel)) or "properties" not in node:
            continue
        for attribute, field in model.model_fields.items():
            member = node["properties"].get(field.alias or attribute)
            if member is None:
                continue
            expected = member.get("description")
            found = (
                None
                if field.description is None
                else "\n".join(line.rstrip() for line in field.description.split("\n"))
            )
            assert found == (None if expected is None else prose(expected)), f"{name}.{attribute}"
            compared += 1
    assert compared > 100, compared


def test_docstrings_indent_their_continuation_lines() -> None:
    """Every line of a class body, docstrings included, is indented (PEP 257)."""
    source = inspect.getsource(MODELS)
    for block in source.split("\n\n\nclass ")[1:]:
        body = block.split("\n\n\n")[0].split("\n")[1:]
        assert all(line == "" or line.startswith("    ") for line in body), block.split("(")[0]


def test_an_absent_member_reads_as_its_default_and_is_never_written() -> None:
    """An absent member holds `MISSING` (`_runtime.Absent`): its attribute and
    `repr` read its default, and it is not written, `exclude_unset` or not;
    one given `None` is written."""
    decoded = MODELS.TextContent.model_validate_json('{"text": "x"}')
    built = MODELS.TextContent(text="x")
    constructed = MODELS.TextContent.model_construct(text="x")
    for value in (decoded, built, constructed):
        assert value.meta is None
        assert "meta=None" in repr(value)
        for options in ({}, {"exclude_unset": True}):
            assert json.loads(value.model_dump_json(by_alias=True, **options)) == {"text": "x"}
        assert RUNTIME.to_json(value) == {"text": "x"}
    given = MODELS.TextContent(text="x", meta=None)
    assert json.loads(given.model_dump_json(by_alias=True)) == {"text": "x", "_meta": None}


def test_a_member_a_rule_leaves_out_reads_as_its_default() -> None:
    """A lenient vector whose expected value lacks one of its members: the
    decoded model leaves it out (not set, not written) and reads its default."""
    checked = 0
    for document, model in vector_documents(RUNTIME.WireModel):
        fields = {field.alias or attr: (attr, field) for attr, field in model.model_fields.items()}
        for vector in document["lenient"]:
            dropped = [key for key in vector["value"] if key not in vector["expected"] and key in fields]
            if not isinstance(vector["expected"], dict) or not dropped:
                continue
            decoded = model.model_validate(vector["value"])
            for key in dropped:
                attr, field = fields[key]
                assert attr not in decoded.model_fields_set, (document["type"], vector["name"])
                assert getattr(decoded, attr) == field.get_default(call_default_factory=True), (
                    document["type"],
                    vector["name"],
                )
            assert RUNTIME.to_json(decoded) == vector["expected"], (document["type"], vector["name"])
            checked += 1
    assert checked > 0


def minimal(type_name: str) -> Any:
    """The minimal valid vector of `type_name`."""
    document = json.loads((bindings_folder() / "vectors" / f"{type_name}.json").read_text(encoding="utf-8"))
    return next(vector["value"] for vector in document["valid"] if vector["name"] == "minimal")


def test_a_request_decodes_by_method_to_its_params_class() -> None:
    params = minimal("InitializeRequest")
    decoded = PACKAGE.decode_agent_request("initialize", params)
    assert isinstance(decoded, PACKAGE.InitializeRequest)
    assert PACKAGE.to_json(decoded) == params


def test_an_unknown_method_and_invalid_params_are_told_apart() -> None:
    with pytest.raises(PACKAGE.MethodNotFound) as unknown:
        PACKAGE.decode_agent_request("no/such_method", {})
    assert unknown.value.to_json()["code"] == -32601
    with pytest.raises(PACKAGE.MethodNotFound):
        PACKAGE.decode_client_request("initialize", minimal("InitializeRequest"))
    with pytest.raises(PACKAGE.InvalidParams) as invalid:
        PACKAGE.decode_agent_request("initialize", {"protocolVersion": "one"})
    error = invalid.value.to_json()
    assert error["code"] == -32602 and error["data"] == {"pointer": "/protocolVersion"}, error


def test_extension_methods_are_kept_undecoded() -> None:
    request = PACKAGE.decode_client_request("_zed/cursor", {"line": 1})
    assert request == PACKAGE.ExtensionRequest("_zed/cursor", {"line": 1})
    notification = PACKAGE.decode_agent_notification("_zed/ping", None)
    assert notification == PACKAGE.ExtensionNotification("_zed/ping", None)


def test_a_result_decodes_by_method() -> None:
    result = minimal("InitializeResponse")
    assert isinstance(PACKAGE.decode_result("initialize", result), PACKAGE.InitializeResponse)
    with pytest.raises(PACKAGE.DecodeError):
        PACKAGE.decode_result("initialize", {})


class Agent(PACKAGE.Agent):
    """Answers `initialize`; every other required method is left to the protocol."""

    async def initialize(self, params: Any) -> Any:
        return PACKAGE.decode_result("initialize", minimal("InitializeResponse"))


def test_the_dispatcher_calls_the_handler_and_encodes_its_answer() -> None:
    agent = Agent()
    answer = asyncio.run(PACKAGE.dispatch_agent_request(agent, "initialize", minimal("InitializeRequest")))
    assert answer == minimal("InitializeResponse")
    with pytest.raises(PACKAGE.MethodNotFound):
        asyncio.run(PACKAGE.dispatch_agent_request(agent, "no/such_method", {}))
    with pytest.raises(PACKAGE.MethodNotFound):
        asyncio.run(PACKAGE.dispatch_agent_request(agent, "_zed/cursor", {}))
    assert asyncio.run(PACKAGE.dispatch_agent_notification(agent, "_zed/ping", {})) is None


def test_optional_methods_answer_method_not_found_or_ignore_by_default() -> None:
    agent = Agent()
    handled = ("agent", "protocol", "both")
    requests = [method for method in PACKAGE.methods.REQUESTS.values() if method.optional and method.side in handled]
    notifications = [
        method for method in PACKAGE.methods.NOTIFICATIONS.values() if method.optional and method.side in handled
    ]
    assert notifications, "every release has the protocol-level `$/cancel_request`"
    for request in requests:
        with pytest.raises(PACKAGE.MethodNotFound):
            asyncio.run(PACKAGE.dispatch_agent_request(agent, request.name, minimal(request.params.__name__)))
    for notification in notifications:
        assert (
            asyncio.run(
                PACKAGE.dispatch_agent_notification(agent, notification.name, minimal(notification.params.__name__))
            )
            is None
        )


def test_the_agent_may_leave_out_session_cancel_which_its_connection_acts_on() -> None:
    assert PACKAGE.methods.NOTIFICATIONS["session/cancel"].optional
    assert "the connection acts on it itself" in (PACKAGE.Agent.session_cancel.__doc__ or "")


def test_the_method_tables_decode_params_and_results() -> None:
    initialize = PACKAGE.methods.REQUESTS["initialize"]
    assert isinstance(initialize.decode_params(minimal("InitializeRequest")), PACKAGE.InitializeRequest)
    assert isinstance(initialize.decode_result(minimal("InitializeResponse")), PACKAGE.InitializeResponse)
    with pytest.raises(PACKAGE.InvalidParams):
        initialize.decode_params({})


def test_a_connection_pairs_requests_with_responses_decodes_results_and_reports_what_it_cannot_handle() -> None:
    async def scenario() -> None:
        sent: list[dict[str, Any]] = []
        dropped: list[tuple[str | None, int, int]] = []

        async def send(text: str) -> None:
            sent.append(json.loads(text))

        class Quiet(PACKAGE.Client):  # type: ignore[name-defined,misc]
            pass

        end = PACKAGE.connect_client(
            lambda _: Quiet(),
            send,
            PACKAGE.ConnectOptions(
                dropped=lambda report: dropped.append((report.method, report.error.code, report.line))
            ),
        )
        params = minimal("InitializeRequest")
        answered = asyncio.ensure_future(end.request("initialize", PACKAGE.InitializeRequest.model_validate(params)))
        failed = asyncio.ensure_future(end.request("initialize", params))
        malformed = asyncio.ensure_future(end.request("initialize", params))
        await asyncio.sleep(0)
        assert [(message["id"], message["method"]) for message in sent] == [
            (1, "initialize"),
            (2, "initialize"),
            (3, "initialize"),
        ]
        assert sent[0]["params"] == params and sent[1]["params"] == params
        result = minimal("InitializeResponse")
        await end.receive(
            json.dumps(
                {"jsonrpc": "2.0", "id": 2, "error": {"code": -32000, "message": "auth required", "data": {"hint": 1}}}
            )
        )
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}))
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {**result, "protocolVersion": "one"}}))
        assert PACKAGE.to_json(await answered) == result
        with pytest.raises(PACKAGE.RequestError) as error:
            await failed
        assert (error.value.code, error.value.data) == (-32000, {"hint": 1})
        with pytest.raises(PACKAGE.DecodeError) as undecodable:
            await malformed
        assert undecodable.value.path == "/protocolVersion"

        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 9, "result": {}}))
        await end.receive("{not json")
        await end.receive(json.dumps({"jsonrpc": "2.0", "id": 4, "method": "no/such_method", "params": {}}))
        await end.receive(json.dumps({"jsonrpc": "2.0", "method": "no/such_notification", "params": {}}))
        await asyncio.sleep(0)
        assert dropped == [(None, -32600, 4), ("no/such_notification", -32601, 7)]
        assert sent[-2]["error"]["code"] == -32700
        assert (sent[-1]["id"], sent[-1]["error"]["code"]) == (4, -32601)

        pending = asyncio.ensure_future(end.request("initialize", params))
        await asyncio.sleep(0)
        end.close(ConnectionError("gone"))
        for call in (pending, end.request("initialize", params)):
            with pytest.raises(ConnectionError, match="gone"):
                await call

    asyncio.run(scenario())
