"""What `check_wire` refuses, placed in a `session/update` notification where
the params' schema takes any value or where a rule would repair it, gives at
a client's end exactly what the general way gives: the same params handled,
or the same report to `dropped` (code and JSON pointer), or the same answer
written. The general way is the same end with its one-pass reader
(`_reader.NotificationReader`) left out. An ordinary value at each place is
still read in one pass.

Collected only for the default schema's bindings (`ACP_DEFAULT_SCHEMA`,
`conftest.DEFAULT_SCHEMA_ONLY`): the places are members of its types."""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

PACKAGE = installed_package(bindings_folder())
RUNTIME = importlib.import_module(f"{PACKAGE.__name__}._runtime")
READER = importlib.import_module(f"{PACKAGE.__name__}._reader")
PROTOCOLS = importlib.import_module(f"{PACKAGE.__name__}.protocols")

METHOD = "session/update"
CHUNK = '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"'

PLACES = {
    # `_meta` (an object of any values) of the params.
    "meta": ('{"sessionId":"s","update":' + CHUNK + '}},"_meta":{"n":@}}', ("_meta", "n"), "1.5"),
    # A tool call's `rawInput`, of any type.
    "any": (
        '{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t","title":"run","rawInput":@}}',
        ("update", "rawInput"),
        '{"a":[1.5,null]}',
    ),
    # An optional member whose value, when it does not decode, is left out.
    "left_out": ('{"sessionId":"s","update":' + CHUNK + '},"messageId":@}}', ("update", "messageId"), '"m"'),
    # An item of a list whose items that do not decode are dropped.
    "dropped_item": (
        '{"sessionId":"s","update":' + CHUNK + ',"annotations":{"audience":["user",@]}}}}',
        ("update", "content", "annotations", "audience", "1"),
        '"assistant"',
    ),
    # A number, optional, left out when it does not decode.
    "number": (
        '{"sessionId":"s","update":' + CHUNK + ',"annotations":{"priority":@}}}}',
        ("update", "content", "annotations", "priority"),
        "0.5",
    ),
    # A member that no type declares.
    "unknown": ('{"sessionId":"s","update":' + CHUNK + '}},"unknownMember":@}', ("unknownMember",), "1.5"),
}
"""Place -> (params with `@` where the value goes, the value's keys from the
params, an ordinary value there)."""

TAKING_ANY = ("meta", "any", "unknown")
"""The places whose type takes any JSON value."""


def nested(keys: tuple[str, ...], extra: int) -> str:
    """Arrays around `1` at the place of `keys`, whose innermost is `MAX_DEPTH + extra`
    deep (the message 0, its params 1, a member of the params 2)."""
    levels = RUNTIME.MAX_DEPTH + extra - (len(keys) + 1) + 1
    return "[" * levels + "1" + "]" * levels


HOSTILE = {
    "nan": lambda _: "NaN",
    "infinity": lambda _: "Infinity",
    "minus_infinity": lambda _: "-Infinity",
    "beyond_double": lambda _: "1e400",
    "beyond_double_without_exponent": lambda _: "1" + "0" * 400 + ".5",
    "integer_of_400_digits": lambda _: "1" + "0" * 400,
    "integer_longer_than_json_reads": lambda _: "1" + "0" * 5000,
    "nested_128_deep": lambda keys: nested(keys, 1),
}
"""Values that `check_wire` or the `json` module refuses (an integer of 400
digits only where a rule would take it), by name: the value at a place's keys."""


def outcome(text: str, one_pass: bool) -> tuple[list[Any], list[Any], list[Any]]:
    """What a client's end does with `text`: the params its handler got (as
    JSON), its reports to `dropped` and what it wrote; without its one-pass
    reader unless `one_pass`."""
    handled: list[Any] = []
    dropped: list[Any] = []
    written: list[Any] = []

    class Recording(PACKAGE.Client):  # type: ignore[misc, name-defined]
        async def session_update(self, params: Any) -> None:
            handled.append(PACKAGE.to_json(params))

    async def send(message: str) -> None:
        written.append(json.loads(message))

    async def exchange() -> None:
        end = PACKAGE.connect_client(
            lambda _: Recording(), send, PACKAGE.ConnectOptions(dropped=lambda report: dropped.append(report))
        )
        if not one_pass:
            end._direct = None
        await end.receive(text)

    asyncio.run(exchange())
    reports = [(report.line, report.error.code, report.error.data) for report in dropped]
    return handled, reports, written


def notification(params: str) -> str:
    return '{"jsonrpc":"2.0","method":"' + METHOD + '","params":' + params + "}"


CASES = [pytest.param(place, name, id=f"{place}/{name}") for place in PLACES for name in HOSTILE]


@pytest.mark.parametrize(("place", "name"), CASES)
def test_a_hostile_value_gives_what_the_general_way_gives(place: str, name: str) -> None:
    template, keys, _ = PLACES[place]
    text = notification(template.replace("@", HOSTILE[name](keys)))
    assert outcome(text, one_pass=True) == outcome(text, one_pass=False), text


@pytest.mark.parametrize("place", list(PLACES))
def test_an_ordinary_value_at_each_place_is_read_in_one_pass(place: str) -> None:
    template, keys, ordinary = PLACES[place]
    reader = READER.NotificationReader({METHOD: PROTOCOLS.CLIENT_NOTIFICATION_HANDLERS[METHOD][1]})
    # Arrays as deep as `MAX_DEPTH` where any value is taken.
    for value in (ordinary, nested(keys, 0)) if place in TAKING_ANY else (ordinary,):
        text = notification(template.replace("@", value))
        handled, reports, written = outcome(text, one_pass=False)
        assert len(handled) == 1 and not reports and not written, text
        read = reader.read(text)
        assert read is not None, f"{text}: not read in one pass"
        assert [PACKAGE.to_json(read[1])] == handled, text


def test_a_strict_copy_keeps_the_failure_a_union_would_repair() -> None:
    """`McpServer`'s variant without a tag takes an object whose tagged
    variant fails (`default_on_failure`): a strict copy keeps the failure."""
    server = PACKAGE.McpServer
    copy = READER._StrictCopy()
    strict = copy.validator(copy.copy(RUNTIME.adapter(server).core_schema, 1, {}))
    repaired = '{"type":"http","name":"n","command":"c","args":[],"env":[]}'
    assert type(RUNTIME.read(server, json.loads(repaired))).__name__ == "McpServerStdioVariant"
    with pytest.raises(ValueError):
        strict.validate_json(repaired)
    taken = '{"type":"http","name":"n","url":"u","headers":[]}'
    assert PACKAGE.to_json(strict.validate_json(taken)) == PACKAGE.to_json(RUNTIME.read(server, json.loads(taken)))


class Node(RUNTIME.WireModel):  # type: ignore[misc, name-defined]
    """A type nested in itself."""

    children: list[Node] = []


def test_a_schema_that_holds_itself_is_searched_instead() -> None:
    """A type nested in itself has no depth bound a strict copy could give
    (`_reader._Unsure`): its reader searches the text for what `check_wire`
    refuses, as before there were strict copies."""
    reader = READER.NotificationReader({"tree": Node})
    for member, taken in (("[]", True), ("[{}]", True), ('[{"n":NaN}]', False), ('[{"n":1e400}]', False)):
        text = '{"jsonrpc":"2.0","method":"tree","params":{"children":' + member + "}}"
        assert (reader.read(text) is not None) == taken, text
    assert reader._searched, "a strict copy was made of a type nested in itself"
