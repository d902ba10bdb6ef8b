"""Every shared vector through the generated Python bindings: valid values
round-trip unchanged, invalid ones fail with an error whose `path` is exactly
the vector's `pointer`, lenient ones decode to their `expected`."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import bindings_folder, changed_files, installed_package, package_name, site_packages

BINDINGS = bindings_folder()
PACKAGE = installed_package(BINDINGS)


def canonical(value: Any) -> str:
    """JSON text that tells `1` from `1.0` and `true`, key order aside."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def load_cases() -> list[Any]:
    cases = []
    for path in sorted((BINDINGS / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        for kind in ("valid", "invalid", "lenient"):
            for vector in document[kind]:
                case = (document["type"], kind, vector)
                cases.append(pytest.param(*case, id=f"{document['type']}/{kind}/{vector['name']}"))
    if not cases:
        raise RuntimeError(f"no vectors in {BINDINGS / 'vectors'}")
    return cases


@pytest.mark.parametrize(("type_name", "kind", "vector"), load_cases())
def test_vector(type_name: str, kind: str, vector: dict[str, Any]) -> None:
    value = vector["value"]
    if kind == "valid":
        assert canonical(PACKAGE.roundtrip(type_name, value)) == canonical(value)
    elif kind == "lenient":
        assert canonical(PACKAGE.roundtrip(type_name, value)) == canonical(vector["expected"])
    else:
        with pytest.raises(PACKAGE.DecodeError) as raised:
            PACKAGE.roundtrip(type_name, value)
        error = raised.value
        assert error.path == vector["pointer"], (
            f"the error is at {error.path!r}, expected {vector['pointer']!r}: {error}"
        )
        assert str(error).startswith(f"{error.path or '/'}: "), str(error)


def test_unknown_type_is_an_error() -> None:
    with pytest.raises(PACKAGE.DecodeError, match="unknown type"):
        PACKAGE.roundtrip("NoSuchType", {})


def test_package_is_installed_from_the_bindings_under_test() -> None:
    assert Path(PACKAGE.__file__).resolve().is_relative_to(site_packages()), PACKAGE.__file__
    assert changed_files(BINDINGS, PACKAGE) == []


def accessor_cases() -> list[Any]:
    """Minimal valid values of the types whose fields have schema defaults."""
    types = importlib.import_module(f"{package_name()}.models").TYPES
    cases = []
    for path in sorted((BINDINGS / "vectors").glob("*.json")):
        document = json.loads(path.read_text(encoding="utf-8"))
        model = types.get(document["type"])
        accessors = (
            sorted(name for name in dir(model) if name.endswith("_or_default")) if isinstance(model, type) else []
        )
        for vector in document["valid"]:
            if accessors and vector["name"] == "minimal":
                cases.append(pytest.param(document["type"], vector["value"], accessors, id=document["type"]))
    return cases


@pytest.mark.parametrize(("type_name", "value", "accessors"), accessor_cases())
def test_default_accessors_never_write_the_default(type_name: str, value: Any, accessors: list[str]) -> None:
    runtime = importlib.import_module(f"{package_name()}._runtime")
    annotation = importlib.import_module(f"{package_name()}.models").TYPES[type_name]
    decoded = runtime.decode_with(annotation, value)
    for accessor in accessors:
        getattr(decoded, accessor)()
    assert canonical(runtime.encode(annotation, decoded)) == canonical(value)
