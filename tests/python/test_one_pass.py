"""A notification read in one pass (`_reader.NotificationReader`, which a
connection's end tries first) gives exactly what the general way gives: the
params `WireReader` reads and the dispatcher decodes, or nothing, so that
the general way reads the text and answers or reports it. Every shared
vector of a handled notification's params goes through both, written as a
peer writes it and with its non-ASCII escaped, and every valid one is read
in one pass (a lenient one, which a rule repairs, may go the general way);
what `check_wire` refuses (`NaN`, the infinities, a number beyond a
double's range, nesting deeper than `MAX_DEPTH`, a lone surrogate) is never
read in one pass, and a client's end reports it as the general way does
(`test_one_pass_hostile.py` puts it where a rule would hide it)."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import bindings_folder, installed_package

BINDINGS = bindings_folder()
PACKAGE = installed_package(BINDINGS)
RUNTIME = importlib.import_module(f"{PACKAGE.__name__}._runtime")
READER = importlib.import_module(f"{PACKAGE.__name__}._reader")
PROTOCOLS = importlib.import_module(f"{PACKAGE.__name__}.protocols")
CONNECTION = importlib.import_module(f"{PACKAGE.__name__}.connection")

TABLES: dict[str, dict[str, tuple[str, Any]]] = {
    name: table for name, table in vars(PROTOCOLS).items() if name.endswith("_NOTIFICATION_HANDLERS")
}
"""Each side's handled notifications: method -> (handler name, params type)."""


def vectors(type_name: str) -> dict[str, Any]:
    path = BINDINGS / "vectors" / f"{type_name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def notification(method: str, params: str) -> str:
    return '{"jsonrpc":"2.0","method":' + json.dumps(method) + ',"params":' + params + "}"


def general(method: str, params_type: Any, text: str) -> Any:
    """The params as a connection's general way reads and decodes them;
    `None` when they do not decode."""
    value, walk = READER.WireReader().read(text)
    if walk:
        try:
            RUNTIME.check_wire(value, depth=0)
        except RUNTIME.DecodeError:
            return None
    try:
        return RUNTIME.decode_params(method, params_type, value["params"], True)
    except RUNTIME.InvalidParams:
        return None


def cases() -> Iterator[Any]:
    for table, handlers in sorted(TABLES.items()):
        for method, (_, params_type) in sorted(handlers.items()):
            document = vectors(params_type.__name__)
            for kind in ("valid", "lenient", "invalid"):
                for vector in document.get(kind, []):
                    yield pytest.param(
                        method, params_type, kind, vector["value"], id=f"{table}/{method}/{kind}/{vector['name']}"
                    )


CASES = list(cases())


def test_every_side_has_vectors_of_a_notification_it_reads_in_one_pass() -> None:
    assert TABLES, "protocols.py has no notification handler tables"
    assert CASES, "no vectors of any handled notification's params"


@pytest.mark.parametrize(("method", "params_type", "kind", "value"), CASES)
def test_one_pass_reads_a_vector_as_the_general_way(method: str, params_type: Any, kind: str, value: Any) -> None:
    reader = READER.NotificationReader({method: params_type})
    for ascii_only in (False, True):
        text = notification(method, json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":")))
        expected = general(method, params_type, text)
        read = reader.read(text)
        if expected is None:
            assert read is None, f"{text}: read in one pass, though the general way refuses it"
            continue
        if read is None:
            assert kind == "lenient", f"{text}: decodes, yet was not read in one pass"
            continue
        assert read[0] == method
        request = '{"jsonrpc":"2.0","id":1,' + text[len('{"jsonrpc":"2.0",') :]
        assert reader.read(request) is None, f"{request}: a request read as a notification"
        assert type(read[1]) is type(expected)
        assert PACKAGE.to_json(read[1]) == PACKAGE.to_json(expected), text


def injected(value: dict[str, Any], member: str) -> str:
    """`value`'s JSON with `"_meta":{"n":@}` in front, `@` left to fill."""
    rest = json.dumps({key: item for key, item in value.items() if key != "_meta"}, separators=(",", ":"))
    return '{"_meta":{"n":' + member + "}" + ("," + rest[1:] if rest != "{}" else "}")


REFUSED = {
    "nan": "NaN",
    "infinity": "Infinity",
    "minus_infinity": "-Infinity",
    "beyond_double": "1e400",
    "beyond_double_with_plus": "-2.5E+308",
    "beyond_double_without_exponent": "1" + "0" * 400 + ".5",
    # `n` is 3 deep (the message 0, its params 1): its arrays reach 128.
    "too_deep": "[" * (RUNTIME.MAX_DEPTH - 1) + "1" + "]" * (RUNTIME.MAX_DEPTH - 1),
    "lone_surrogate": '"\\ud800"',
}
"""Members that `check_wire` refuses at `_meta.n` of a notification's params."""

TAKEN = ("1.5", "[[1]]")
"""Members, at the same place, that a text read in one pass may hold."""


def with_meta() -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """Each handled notification whose params have `_meta`, with a valid vector."""
    for handlers in TABLES.values():
        for method, (_, params_type) in sorted(handlers.items()):
            aliases = {field.alias or name for name, field in params_type.__pydantic_fields__.items()}
            valid = vectors(params_type.__name__).get("valid", [])
            if "_meta" in aliases and valid and isinstance(valid[0]["value"], dict):
                yield method, params_type, valid[0]["value"]


def test_what_check_wire_refuses_is_never_read_in_one_pass() -> None:
    found = list(with_meta())
    assert found, "no handled notification has `_meta`"
    for method, params_type, value in found:
        reader = READER.NotificationReader({method: params_type})
        for name, member in REFUSED.items():
            text = notification(method, injected(value, member))
            assert general(method, params_type, text) is None, f"{name}: the general way takes {text}"
            assert reader.read(text) is None, f"{name}: read in one pass: {text}"
        for member in TAKEN:
            text = notification(method, injected(value, member))
            read = reader.read(text)
            assert read is not None, f"{text}: not read in one pass"
            assert PACKAGE.to_json(read[1]) == PACKAGE.to_json(general(method, params_type, text)), text


def test_a_clients_end_reports_nan_and_the_infinities_in_a_notification() -> None:
    handled = [
        (method, name, params_type, value)
        for method, params_type, value in with_meta()
        for handler_method, (name, _) in TABLES["CLIENT_NOTIFICATION_HANDLERS"].items()
        if handler_method == method and method not in CONNECTION._ACTED_ON
    ]
    assert handled, "the client's end reads no notification with `_meta` in one pass"
    method, name, _, value = handled[0]
    seen: list[Any] = []

    async def record(_self: Any, params: Any) -> None:
        seen.append(params)

    class Recording(PACKAGE.Client):  # type: ignore[misc, name-defined]
        pass

    setattr(Recording, name, record)

    async def exchange() -> list[Any]:
        dropped: list[Any] = []

        async def send(_text: str) -> None:
            return None

        end = PACKAGE.connect_client(
            lambda _: Recording(), send, PACKAGE.ConnectOptions(dropped=lambda report: dropped.append(report))
        )
        for member in ("NaN", "Infinity", "-Infinity", "1.5"):
            await end.receive(notification(method, injected(value, member)))
        return dropped

    dropped = asyncio.run(exchange())
    assert [(report.line, report.error.code, report.error.data) for report in dropped] == [
        (line, -32602, {"pointer": "/_meta/n"}) for line in (1, 2, 3)
    ]
    assert len(seen) == 1 and PACKAGE.to_json(seen[0])["_meta"] == {"n": 1.5}
