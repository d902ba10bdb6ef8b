"""Reading JSON-RPC text, for the connection: `WireReader` parses a message
the general way and tells whether `check_wire` must walk its value;
`NotificationReader` reads a notification and decodes its params in one
pass of pydantic-core, with a `_StrictCopy` of their schema that refuses
what the general way would refuse or repair."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Hashable
from typing import Any, ClassVar, cast

from pydantic import BaseModel
from pydantic_core import CoreSchema, SchemaValidator, core_schema, from_json

from ._runtime import (
    MAX_DEPTH,
    FlatModel,
    _has_surrogate,
    _ReadAsDefault,
    adapter,
)

_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


# A text that parsed may still hold what `check_wire` refuses and the parser
# took: more arrays and objects than `MAX_DEPTH`, or a number beyond a
# double's range (about 1.8e308), which parses as an infinity. Its bytes are
# looked at with `+` and digits as `0`, `E` as `e` and `[` as `{`: one count
# finds the brackets (those in strings too), one search an exponent of three
# digits or more (`e000`), and one a run of 64 digits: a number beyond a
# double's range has one or the other (with an exponent below 100, its
# integer part has at least 309 - 99 digits). The searches are `find`, not
# `in`: `bytes.__contains__` first tries its operand as an integer, and the
# error it builds costs more than the search.
_SHAPE = bytes.maketrans(b"+123456789E[", b"0000000000e{")
_EXPONENT = b"e000"
_LONG_NUMBER = b"0" * 64


def _may_exceed(encoded: bytes) -> bool:
    """Whether parsed JSON text (its UTF-8 bytes) may hold more arrays and
    objects than `MAX_DEPTH` or a number beyond a double's range. Text
    shorter than twice `MAX_DEPTH` cannot nest deeper: each bracket that
    opens is closed."""
    shape = encoded.translate(_SHAPE)
    return (
        (len(shape) > 2 * MAX_DEPTH and shape.count(b"{") > MAX_DEPTH)
        or shape.find(_EXPONENT) >= 0
        or shape.find(_LONG_NUMBER) >= 0
    )


class WireReader:
    """Reads JSON text as `json.loads` does, and tells whether the value may
    hold what `check_wire` refuses, so that text which cannot is not walked:
    a number that is not finite, more arrays and objects than `MAX_DEPTH`
    (counted as brackets, those in strings too) or a surrogate. Most
    messages have none of these, and this costs a fraction of a walk.

    The text is first parsed by pydantic-core's parser, which refuses a lone
    surrogate (escaped, or in the text itself), `NaN` and the infinities,
    and nesting past its own limit, and whose value is taken unless the
    text `_may_exceed` the limits. Any other text is read again by the
    `json` module, whose number hooks tell the numbers that are not finite,
    and which decides what the text holds, or that it is not JSON."""

    def __init__(self) -> None:
        self._odd = False
        self._decoder = json.JSONDecoder(
            parse_float=self._float, parse_constant=self._constant
        )

    def _float(self, literal: str) -> float:
        value = float(literal)
        self._odd = self._odd or not math.isfinite(value)
        return value

    def _constant(self, literal: str) -> float:
        # `NaN`, `Infinity`, `-Infinity`: never finite.
        self._odd = True
        return float(literal)

    def read(self, text: str) -> tuple[Any, bool]:
        """The value of `text` (`ValueError` when it is not JSON), and whether
        `check_wire` must walk it."""
        try:
            encoded = text.encode()
            value = from_json(encoded, allow_inf_nan=False)
        except ValueError:
            return self._read_exactly(text)
        if _may_exceed(encoded):
            return self._read_exactly(text)
        return value, False

    def _read_exactly(self, text: str) -> tuple[Any, bool]:
        """`read` by the `json` module."""
        self._odd = False
        value = self._decoder.decode(text)
        walk = (
            self._odd
            or text.count("[") + text.count("{") > MAX_DEPTH
            or ("\\u" in text and _ESCAPED_SURROGATE.search(text) is not None)
            or _has_surrogate(text)
        )
        return value, walk


_WIDEST = 10**308
"""The largest integer (in magnitude) the one pass takes: at most 309
digits, within a double's range. The `json` module, which reads the general
way's odd text, refuses integers of more than 4300 digits."""


class _Unsure(Exception):
    """A core schema `_StrictCopy` cannot make refuse all that `check_wire`
    refuses: a type it does not know, an object whose unknown members are
    not read, or a definition that holds itself (unbounded depth)."""


def _json_value(depth: int) -> CoreSchema:
    """The strict schema of an `Any` value `depth` deep (a reference to one of `_json_values`)."""
    return core_schema.definition_reference_schema(f"acp_json_{depth}")


def _json_values() -> list[CoreSchema]:
    """The schemas `_json_value` names: a JSON value as `any` reads it, but
    no number that is not finite or beyond `_WIDEST`, and no array or object
    deeper than `MAX_DEPTH` (each level is a definition of its own, the last
    without arrays and objects). The union takes its first match, the most
    common kinds first: a strict `int` refuses a `float` and a `bool`, so an
    integer stays one."""
    found: list[CoreSchema] = []
    for depth in range(MAX_DEPTH + 2):
        choices: list[CoreSchema | tuple[CoreSchema, str]] = [
            core_schema.str_schema(strict=True)
        ]
        if depth <= MAX_DEPTH:
            inner = _json_value(depth + 1)
            choices += [
                core_schema.dict_schema(core_schema.str_schema(), inner),
                core_schema.list_schema(inner),
            ]
        choices += [
            core_schema.int_schema(strict=True, ge=-_WIDEST, le=_WIDEST),
            core_schema.float_schema(strict=True, allow_inf_nan=False),
            core_schema.bool_schema(strict=True),
            core_schema.none_schema(),
        ]
        found.append(
            core_schema.union_schema(
                choices, mode="left_to_right", ref=f"acp_json_{depth}"
            )
        )
    return found


_WRAPPERS = ("default", "nullable", "function-after", "function-before")
"""The schema types that read their value with the `schema` they wrap
(before or after a function, which cannot catch its failure)."""

_READS_FLATTENED = getattr(FlatModel.acp_read, "__func__", None)
"""`FlatModel`'s wrap validator, which hands its object on to be read."""


class _StrictCopy:
    """Copies a core schema for `NotificationReader`'s one pass so that a
    value it takes is one the general way takes, with the same result:

    - no fallback repairs a value that does not decode: `on_error` (`omit`,
      `default`) and the dropped items of a list become failures, so a
      message that needs one fails the one pass and goes the general way,
      which applies it (`on_null` stays: it takes only `null`);
    - every value `check_wire` refuses fails: a `float` is finite, an `int`
      within `_WIDEST`, and an `Any` value or unknown member is read as
      `_json_values`, which bounds its depth by where it sits;
    - an untagged union's `pick` (which reads with the ordinary schemas)
      is only given what `_json_values` takes, and `default_on_failure`'s
      fallback is left out; any other wrap validator but `FlatModel`'s,
      which could repair a failure, is `_Unsure`.

    Definitions are written out where they are used, each at its depth.
    `models` collects the model classes of the copy (see `validator`)."""

    def __init__(self) -> None:
        self.models: set[type[BaseModel]] = set()

    def copy(
        self,
        schema: CoreSchema,
        depth: int,
        definitions: dict[str, CoreSchema],
        extra: str = "ignore",
    ) -> CoreSchema:
        """The strict copy of `schema`, whose value sits `depth` deep (the
        message 0); `extra` is the enclosing model's `extra` behavior."""
        kind = schema["type"]
        if kind == "definitions":
            found = {item["ref"]: item for item in schema["definitions"]}
            return self.copy(schema["schema"], depth, {**definitions, **found})
        if kind == "definition-ref":
            ref = schema["schema_ref"]
            if ref not in definitions:
                raise _Unsure(f"{ref} holds itself")
            # Each definition is written out once per use: one that is
            # reached from itself is not in `definitions` any more.
            inside = {key: item for key, item in definitions.items() if key != ref}
            return self.copy(definitions[ref], depth, inside, extra)
        if kind == "any":
            return _json_value(depth)
        copied: dict[str, Any] = {
            key: value
            for key, value in schema.items()
            if key not in ("ref", "serialization", "metadata")
        }

        def inner(item: CoreSchema, at: int = depth) -> CoreSchema:
            return self.copy(item, at, definitions)

        if kind == "function-plain":
            return core_schema.chain_schema(
                [_json_value(depth), cast(CoreSchema, copied)]
            )
        if kind in ("model-fields", "typed-dict", "dict", "list") and depth > MAX_DEPTH:
            raise _Unsure("typed members nested deeper than `MAX_DEPTH`")
        if kind == "int":
            copied["ge"] = max(schema.get("ge", -_WIDEST), -_WIDEST)
            copied["le"] = min(schema.get("le", _WIDEST), _WIDEST)
        elif kind == "float":
            copied["allow_inf_nan"] = False
        elif kind == "model":
            self.models.add(schema["cls"])
            behavior = schema.get("config", {}).get("extra_fields_behavior", "ignore")
            copied["schema"] = self.copy(schema["schema"], depth, definitions, behavior)
        elif kind == "function-wrap":
            function = schema["function"]["function"]
            if isinstance(function, _ReadAsDefault):
                # Its fallback reads with the ordinary schema: the failure stands.
                return inner(schema["schema"])
            reads = getattr(function, "__func__", None)
            if reads is None or reads is not _READS_FLATTENED:
                raise _Unsure("a wrap validator that may repair a failure")
            copied["schema"] = inner(schema["schema"])
        elif kind in _WRAPPERS:
            copied["schema"] = inner(schema["schema"])
            copied.pop("on_error", None)
        elif kind in ("model-fields", "typed-dict"):
            copied["fields"] = {
                name: {**field, "schema": inner(field["schema"], depth + 1)}
                for name, field in schema["fields"].items()
            }
            behavior = schema.get("extra_behavior") or (
                extra
                if kind == "model-fields"
                else schema.get("config", {}).get("extra_fields_behavior", "ignore")
            )
            if behavior == "allow":
                extras = schema.get("extras_schema", core_schema.any_schema())
                copied["extras_schema"] = inner(extras, depth + 1)
            elif behavior != "forbid":
                raise _Unsure("an object whose unknown members are not read")
        elif kind == "dict":
            for key in ("keys_schema", "values_schema"):
                copied[key] = inner(
                    schema.get(key, core_schema.any_schema()), depth + 1
                )
        elif kind == "list":
            items = schema.get("items_schema", core_schema.any_schema())
            copied["items_schema"] = inner(items, depth + 1)
        elif kind == "union":
            copied["choices"] = [
                (inner(choice[0]), choice[1])
                if isinstance(choice, tuple)
                else inner(choice)
                for choice in schema["choices"]
            ]
        elif kind == "tagged-union":
            copied["choices"] = {
                tag: inner(choice) for tag, choice in schema["choices"].items()
            }
        elif kind == "json-or-python":
            copied["json_schema"] = inner(schema["json_schema"])
            copied["python_schema"] = inner(schema["python_schema"])
        elif kind == "chain":
            copied["steps"] = [inner(step) for step in schema["steps"]]
        elif kind not in ("str", "bool", "none", "literal", "enum"):
            raise _Unsure(f"a {kind} schema")
        return cast(CoreSchema, copied)

    def validator(self, schema: CoreSchema) -> SchemaValidator:
        """The validator of `schema`, a strict copy. pydantic-core builds a
        `model` node of a class whose `__pydantic_complete__` is set from
        the class's own validator (prebuilt), which would drop the copy's
        strictness: the flag is cleared while this validator is built, as
        pydantic's `model_rebuild` does while it rebuilds a class."""
        complete = [
            cls for cls in self.models if cls.__dict__.get("__pydantic_complete__")
        ]
        try:
            for cls in complete:
                cls.__pydantic_complete__ = False
            # Without pydantic's cache of the strings it builds: looking each
            # up costs more than the repeats it saves (3% of a read).
            return SchemaValidator(
                core_schema.definitions_schema(schema, _json_values()),
                core_schema.CoreConfig(cache_strings=False),
            )
        finally:
            for cls in complete:
                cls.__pydantic_complete__ = True


class NotificationReader:
    """Reads the text of a notification of one of `methods` (their params'
    types by method name) and decodes its params in one pass of
    pydantic-core (`validate_json` of the whole message, told apart by its
    method), so that no Python value of the JSON is built on the way: that
    was most of what reading the text and then decoding its params cost.

    It takes only a message that is exactly `jsonrpc` `"2.0"`, a `method`
    among `methods` and `params` that decode with a `_StrictCopy` of their
    schema: no fallback repairs a member, and no member holds what
    `check_wire` refuses (`NaN`, the infinities and numbers beyond a double,
    which this parser, unlike `from_json`'s, takes, or nesting deeper than
    `MAX_DEPTH`); the parser refuses lone surrogates. Anything else (`None`)
    is read the general way, `WireReader` and then decoding the params with
    the ordinary schema, which gives what this would have and the answer or
    report a message that fails is owed. Where no strict copy can be made
    (`_Unsure`), the ordinary schema is used and the text is searched for
    what `check_wire` refuses instead. The validator is built at the first
    read, once per set of methods."""

    _validators: ClassVar[
        dict[frozenset[tuple[str, Any]], tuple[SchemaValidator, bool]]
    ] = {}

    def __init__(self, methods: dict[str, Any]) -> None:
        self._methods = frozenset(methods.items())
        self._validator: SchemaValidator | None = None
        # Whether the text must be searched: no strict copy was made.
        self._searched = True

    def read(self, text: str) -> tuple[str, Any] | None:
        """The method and decoded params of the notification `text`, or `None`."""
        validator = self._validator
        if validator is None:
            validator = self._validator = self._build()
        try:
            message = validator.validate_json(text)
        except Exception:  # noqa: BLE001 (whatever it is, the general way tells)
            return None
        if self._searched:
            encoded = text.encode()
            if (
                _may_exceed(encoded)
                # `N` is rare, and one `find` of a byte is cheap.
                or (encoded.find(b"N") >= 0 and encoded.find(b"NaN") >= 0)
                or encoded.find(b"Infinity") >= 0
            ):
                return None
        return message["method"], message["params"]

    def _build(self) -> SchemaValidator:
        found = self._validators.get(self._methods)
        if found is None:
            found = self._validators[self._methods] = self._strict_or_searched()
        validator, self._searched = found
        return validator

    def _strict_or_searched(self) -> tuple[SchemaValidator, bool]:
        """The validator of the messages, and whether their text must be searched."""
        choices: dict[Hashable, CoreSchema] = {}
        for method, annotation in self._methods:
            # The schema `read` validates the params with, built at its first use.
            params_adapter = adapter(annotation)
            params_adapter.rebuild()
            params = params_adapter.core_schema
            choices[method] = core_schema.typed_dict_schema(
                {
                    "jsonrpc": core_schema.typed_dict_field(
                        core_schema.literal_schema(["2.0"])
                    ),
                    "method": core_schema.typed_dict_field(
                        core_schema.literal_schema([method])
                    ),
                    "params": core_schema.typed_dict_field(params),
                },
                extra_behavior="forbid",
            )
        schema = core_schema.tagged_union_schema(choices, "method")
        strict = _StrictCopy()
        try:
            copied = strict.copy(schema, 0, {})
        except _Unsure:
            return SchemaValidator(schema), True
        return strict.validator(copied), False
