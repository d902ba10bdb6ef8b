"""Hostile wire input through the Python package: every case of
`tests/hostile-wire.json` parsed with the json module and decoded as its type
(`roundtrip`), by method name (`decode_<side>_<kind>`), with pydantic's own
parser (`model_validate_json`, on text and on bytes) and through one end of a
connection (`connect_agent` / `connect_client`, whose answer or `dropped`
report is checked; a `line` case as the whole line it reads), each giving the
outcome the table states for Python.

Collected only for the default schema's bindings (`ACP_DEFAULT_SCHEMA`,
`conftest.DEFAULT_SCHEMA_ONLY`)."""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from typing import Any

import pydantic
import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())
TABLE = json.loads((Path(__file__).resolve().parent.parent / "hostile-wire.json").read_text(encoding="utf-8"))
CASES = TABLE["cases"]


def wire(case: dict[str, Any]) -> str | bytes:
    """The wire of a case: its template with `@` filled; bytes for `bytes`."""
    template, fill = case["wire"]["template"], case["wire"]["fill"]
    before, _, after = template.partition("@")
    if fill is None:
        return str(template)
    if "nest" in fill:
        return before + "[" * fill["nest"] + "1" + "]" * fill["nest"] + after
    if "string" in fill:
        return before + '"' + fill["string"] * fill["times"] + '"' + after
    if "text" in fill:
        return before + fill["text"] * fill.get("times", 1) + after
    return before.encode() + bytes.fromhex(fill["bytes"]) + after.encode()


def built(case: dict[str, Any]) -> Any:
    """The value of a case built in memory, for text nested too deeply for the json module."""
    value = json.loads(case["wire"]["template"].replace("@", '"@hole"'))
    nested: Any = 1
    for _ in range(case["wire"]["fill"]["nest"]):
        nested = [nested]
    pending = [value]
    while pending:
        current = pending.pop()
        members = (
            current.items() if isinstance(current, dict) else enumerate(current) if isinstance(current, list) else ()
        )
        for key, member in list(members):
            if member == "@hole":
                current[key] = nested
                return value
            pending.append(member)
    raise AssertionError("the template has no hole")


def pointer(spec: Any) -> str:
    """A pointer as the table writes it: a string, JSON text (`json`), or `prefix` then `repeat` `times` times."""
    if isinstance(spec, str):
        return spec
    if "json" in spec:
        return str(json.loads(spec["json"]))
    return str(spec["prefix"] + spec["repeat"] * spec["times"])


def wanted(expected: dict[str, Any], value: Any) -> Any:
    return json.loads(expected["encodes"]) if "encodes" in expected else value


def by_method(case: dict[str, Any], params: Any) -> Any:
    decode = getattr(PACKAGE, f"decode_{case['side']}_{case['kind']}")
    return decode(case["method"], params)


def check_value(case: dict[str, Any], expected: dict[str, Any], value: Any) -> None:
    """Decoding `value` by type and by method gives `expected`."""
    name = case["name"]
    outcome = expected["outcome"]
    if outcome == "accepted":
        assert PACKAGE.roundtrip(case["type"], value) == wanted(expected, value), name
        if case["wire"].get("exact"):
            assert case["wire"]["fill"]["text"] in json.dumps(PACKAGE.roundtrip(case["type"], value)), (
                f"{name}: not written back as it came"
            )
        assert PACKAGE.to_json(by_method(case, value)) == wanted(expected, value), name
    elif outcome == "error":
        with pytest.raises(PACKAGE.DecodeError) as failure:
            PACKAGE.roundtrip(case["type"], value)
        assert failure.value.path == pointer(expected["pointer"]), f"{name}: {failure.value}"
        with pytest.raises(PACKAGE.InvalidParams) as invalid:
            by_method(case, value)
        assert invalid.value.to_json()["code"] == -32602 and invalid.value.path == pointer(expected["pointer"]), name
    elif outcome == "extension":
        call = by_method(case, value)
        assert isinstance(call, (PACKAGE.ExtensionRequest, PACKAGE.ExtensionNotification)), name
        assert call.method == case["method"] and call.params == value, name
    elif outcome == "method-not-found":
        with pytest.raises(PACKAGE.MethodNotFound):
            by_method(case, value)
    else:
        raise AssertionError(f"{name}: no outcome {outcome} for a value")


class Recorder:
    """Both sides' handlers of the methods the table calls: each records its params and answers validly."""

    def __init__(self, seen: list[Any]) -> None:
        self.seen = seen

    async def initialize(self, params: Any) -> Any:
        return PACKAGE.InitializeResponse(protocol_version=params.protocol_version)

    async def session_prompt(self, params: Any) -> Any:
        self.seen.append(params)
        return PACKAGE.PromptResponse(stop_reason=PACKAGE.StopReason.END_TURN)

    async def session_update(self, params: Any) -> None:
        self.seen.append(params)

    async def terminal_create(self, params: Any) -> Any:
        self.seen.append(params)
        return PACKAGE.CreateTerminalResponse(terminal_id="t")


class AgentRecorder(Recorder, PACKAGE.Agent):  # type: ignore[misc, name-defined]
    pass


class ClientRecorder(Recorder, PACKAGE.Client):  # type: ignore[misc, name-defined]
    pass


# The `initialize` an agent's end gets before a case's message (id 0), unless
# the case says `initialized: false`.
INITIALIZE = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}'


async def written(sent: list[Any]) -> None:
    """Waits (up to two seconds) until the end wrote something."""
    for _ in range(200):
        if sent:
            return
        await asyncio.sleep(0.01)


async def through_connection(case: dict[str, Any], text: str) -> tuple[list[Any], list[Any], list[Any]]:
    """Sends `text` as the params of one message to a connection end of the
    case's side, an agent's end after `initialize` unless the case says
    otherwise; what the end answered (besides the answer to `initialize`),
    reported and handled."""
    sent: list[Any] = []
    dropped: list[Any] = []
    seen: list[Any] = []

    async def send(message: str) -> None:
        sent.append(json.loads(message))

    recorder = AgentRecorder if case["side"] == "agent" else ClientRecorder
    connect = PACKAGE.connect_agent if case["side"] == "agent" else PACKAGE.connect_client
    end = connect(
        lambda _: recorder(seen),
        send,
        PACKAGE.ConnectOptions(dropped=lambda report: dropped.append(report.error.to_json())),
    )
    line = case.get("line", False)
    if case["side"] == "agent" and case.get("initialized", True) and not line:
        await end.receive(INITIALIZE)
        await written(sent)
        sent.clear()
    request = case.get("kind") == "request"
    envelope = (
        '{"jsonrpc":"2.0",'
        + ('"id":7,' if request else "")
        + f'"method":{json.dumps(case.get("method"))},"params":{text}}}'
    )
    await end.receive(text if line else envelope)
    if request or line:
        await written(sent)
    return sent, dropped, seen


def check_connection(case: dict[str, Any], expected: dict[str, Any], text: str, value: Any = None) -> None:
    """Sends `text` (parsed: `value`) through a connection: the answer, report or handled value the table states."""
    name = case["name"]
    connection = expected["connection"]
    sent, dropped, seen = asyncio.run(through_connection(case, text))
    errors = [message["error"] for message in sent if "error" in message] + dropped
    if connection["code"] is None:
        assert errors == [], f"{name}: {errors}"
        assert len(seen) == 1, f"{name}: the handler was not called"
        assert PACKAGE.to_json(seen[0]) == wanted(expected, value), name
        return
    assert seen == [], f"{name}: the handler was called"
    assert len(errors) == 1 and errors[0]["code"] == connection["code"], f"{name}: {errors}"
    if "pointer" in connection:
        assert errors[0]["data"]["pointer"] == pointer(connection["pointer"]), f"{name}: {errors}"
    if case.get("kind") == "request" and connection["code"] != -32700:
        assert sent[0]["id"] == 7, f"{name}: the answer does not name the request"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_a_hostile_case_gives_its_documented_outcome(case: dict[str, Any]) -> None:
    expected = case["expect"]["python"]
    data = wire(case)
    if case.get("line"):
        # A whole line states only what a connection does with it.
        assert isinstance(data, str)
        check_connection(case, expected, data)
        return
    model = getattr(PACKAGE, case["type"])
    if expected["outcome"] == "parse-error":
        with pytest.raises((ValueError, RecursionError)):
            json.loads(data)
        with pytest.raises(pydantic.ValidationError):
            model.model_validate_json(data)
        if "built" in expected:
            check_value(case, expected["built"], built(case))
        if isinstance(data, str):
            check_connection(case, expected, data)
        else:
            assert "why" in expected, f"{case['name']}: bytes reach no connection, and the table says not why"
        return
    assert isinstance(data, str)
    value = json.loads(data)
    check_value(case, expected, value)
    check_connection(case, expected, data, value)


def test_the_depth_limit_is_the_tables() -> None:
    at_limit: Any = []
    for _ in range(TABLE["maxDepth"] - 1):
        at_limit = [at_limit]
    assert PACKAGE.roundtrip("ExtRequest", at_limit) == at_limit
    with pytest.raises(PACKAGE.DecodeError) as failure:
        PACKAGE.roundtrip("ExtRequest", [at_limit])
    assert failure.value.path == "/0" * TABLE["maxDepth"]


def test_a_connection_answers_only_with_ids_it_can_write_back() -> None:
    """Ids that JSON cannot carry back (`1e400` reads as infinity, a lone
    surrogate) are refused with a null id, and `true` settles no request:
    it is no id, so its response is refused too."""

    async def exchange() -> tuple[list[Any], list[Any], Any]:
        sent: list[Any] = []
        dropped: list[Any] = []

        async def send(message: str) -> None:
            message.encode("utf-8")
            sent.append(json.loads(message))

        end = PACKAGE.connect_client(
            lambda _: ClientRecorder([]),
            send,
            PACKAGE.ConnectOptions(dropped=lambda report: dropped.append((report.method, report.error.to_json()))),
        )
        for text in [
            '{"jsonrpc":"2.0","id":1e400,"method":"x"}',
            '{"jsonrpc":"2.0","id":"\\ud800","method":"x"}',
            '{"jsonrpc":"2.0","id":1,"method":"\\ud800"}',
        ]:
            await end.receive(text)
        answer = asyncio.ensure_future(end.request("session/prompt", PACKAGE.PromptRequest(session_id="s", prompt=[])))
        await asyncio.sleep(0)
        await end.receive('{"jsonrpc":"2.0","id":true,"result":{"stopReason":"end_turn"}}')
        await end.receive('{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn","_meta":{"n":1e400}}}')
        with pytest.raises(PACKAGE.DecodeError) as failure:
            await answer
        return sent, dropped, failure.value

    sent, dropped, failure = asyncio.run(exchange())
    errors = [message for message in sent if "error" in message]
    assert [(message["id"], message["error"]["code"]) for message in errors] == [
        (None, -32600),
        (None, -32600),
        (None, -32600),
        (None, -32600),
    ], errors
    assert errors[3]["error"]["message"] == "the id is not a string, a number or null", "`true` is no request's id"
    assert dropped == []
    assert failure.path == "/_meta/n"


def test_a_connection_walks_every_text_whose_value_check_wire_refuses() -> None:
    """A connection walks a message with `check_wire` only when its
    `WireReader` says the text could fail: that is every case here whose
    value `check_wire` refuses, and not a plain message (nor one whose text
    holds escapes, numbers and brackets well within the limits)."""
    runtime = importlib.import_module(f"{PACKAGE.__name__}._runtime")
    wire_reader = importlib.import_module(f"{PACKAGE.__name__}._reader").WireReader
    refused = []
    for case in CASES:
        data = wire(case)
        try:
            value = json.loads(data)
        except (ValueError, RecursionError):
            continue
        try:
            runtime.check_wire(value)
        except runtime.DecodeError:
            assert isinstance(data, str)
            refused.append(case["name"])
            assert wire_reader().read(data)[1], (
                f"{case['name']}: the text is not walked, so check_wire's refusal is lost"
            )
    assert {"depth_over_limit", "number_beyond_double_range", "lone_surrogate", "lone_surrogate_member_name"} <= set(
        refused
    )
    plain = json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {
                        "type": "text",
                        "text": '数据 "quoted"\n\\u 😀',
                        "_meta": {"n": [1.5e300, -2, {"x": [[]]}]},
                    },
                },
            },
        },
        ensure_ascii=False,
    )
    assert wire_reader().read(plain) == (json.loads(plain), False)
