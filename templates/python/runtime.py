"""Runtime support of the generated package: decode rules, tags and error
paths of the models; JSON-RPC errors, extension methods and decoding by
method name for the method tables and protocols."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import Any, ClassVar, Generic, TypeVar, Union, cast, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    RootModel,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    model_serializer,
    model_validator,
)

TAG_ERROR = "acp_union_tag:"
"""The error type of a tag that picks no variant of a tagged union, before the tag's member name."""

ABSENT = "absent"
VALUE = "value"
REJECT = "reject"


class DecodeError(ValueError):
    """A value that does not decode; `path` is the JSON pointer of the failure."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or '/'}: {message}")
        self.path = path
        self.message = message


class FieldError(ValueError):
    """A failure of the member `wire` of the object being decoded."""

    def __init__(self, wire: str, message: str) -> None:
        super().__init__(message)
        self.wire = wire


@dataclass(frozen=True)
class Rule:
    """How one member is read: nullability and its `x-deserialize-*` rules."""

    wire: str
    attr: str
    nullable: bool
    on_error: bool
    on_null: bool
    skip_items: bool
    fallback: str
    value: Any = None


_adapters: dict[Any, TypeAdapter[Any]] = {}


def adapter(annotation: Any) -> TypeAdapter[Any]:
    """The (cached) adapter of a type."""
    found = _adapters.get(annotation)
    if found is None:
        found = TypeAdapter(annotation)
        _adapters[annotation] = found
    return found


def encode(annotation: Any, value: Any) -> Any:
    """The wire JSON of a decoded value."""
    return adapter(annotation).dump_python(value, mode="json", by_alias=True, exclude_unset=True)


def _decodes(annotation: Any, value: Any) -> bool:
    try:
        adapter(annotation).validate_python(value)
    except (ValidationError, ValueError):
        return False
    return True


def _item_type(annotation: Any) -> Any:
    """The item type of the list inside `annotation` (through Optional and Annotated)."""
    if get_origin(annotation) is list:
        return get_args(annotation)[0]
    if hasattr(annotation, "__metadata__"):
        return _item_type(annotation.__origin__)
    if get_origin(annotation) in (Union, UnionType):
        for option in get_args(annotation):
            found = _item_type(option)
            if found is not Any:
                return found
    return Any


_inherited: dict[tuple[type, str], tuple[Any, ...]] = {}


def inherited(cls: type, name: str) -> tuple[Any, ...]:
    """The entries of the tuple `name` that `cls` and its bases declare, bases first (cached per class)."""
    found = _inherited.get((cls, name))
    if found is None:
        entries: list[Any] = []
        for klass in reversed(cls.__mro__):
            for entry in vars(klass).get(name, ()):
                if entry not in entries:
                    entries.append(entry)
        found = _inherited[(cls, name)] = tuple(entries)
    return found


@dataclass(frozen=True)
class _Reading:
    """What reading an object of one class involves, worked out once per class."""

    rules: tuple[Rule, ...]
    flattened: tuple[str, ...]
    # Whether the object is validated as it came unless it fails: no
    # variant tag to set, no member that refuses `null`, nothing flattened.
    as_it_came: bool
    # The wire and attribute names of the members whose rules may discard a
    # value that fails to decode (`on_error`, `skip_items`).
    discarding: frozenset[str]


_readings: dict[type, _Reading] = {}


def _reading(cls: type) -> _Reading:
    found = _readings.get(cls)
    if found is None:
        rules: tuple[Rule, ...] = inherited(cls, "__acp_rules__")
        discarding = frozenset(name for rule in rules if rule.on_error or rule.skip_items for name in (rule.wire, rule.attr))
        flattened: tuple[str, ...] = inherited(cls, "__acp_flattened__")
        tagged = getattr(cls, "__acp_variant_tag__", None) is not None
        as_it_came = not tagged and not flattened and all(rule.nullable for rule in rules)
        found = _readings[cls] = _Reading(rules, flattened, as_it_came, discarding)
    return found


class WireModel(BaseModel):
    """Base of every generated object: wire names as aliases, rules applied."""

    model_config = ConfigDict(
        validate_by_name=True,
        validate_by_alias=True,
        use_attribute_docstrings=True,
        regex_engine="python-re",
        # naming.rs suffixes every name pydantic reserves (`model_*` too), so
        # no attribute shadows pydantic's own.
        protected_namespaces=(),
    )

    __acp_rules__: ClassVar[tuple[Rule, ...]] = ()
    __acp_flattened__: ClassVar[tuple[str, ...]] = ()
    __acp_variant_tag__: ClassVar[tuple[str, str, str] | None] = None
    """A tagged variant's tag: its wire name, attribute and value."""

    @model_validator(mode="wrap")
    @classmethod
    def acp_read(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        """Reads an object: first as it came (with only the changes no
        decoding decides: the variant tag, `null` on members that refuse it,
        the flattened members); only when that fails at a member whose rule
        discards what does not decode, again with those rules applied. A
        valid object is thus validated once, by pydantic-core alone."""
        if not isinstance(data, dict):
            return handler(data)
        reading = _reading(cls)
        try:
            return handler(data if reading.as_it_came else cls._acp_prepare(data, reading, False))
        except ValidationError as error:
            if not reading.discarding or not any(detail["loc"] and detail["loc"][0] in reading.discarding for detail in error.errors()):
                raise
        return handler(cls._acp_prepare(data, reading, True))

    @classmethod
    def _acp_prepare(cls, data: dict[str, Any], reading: _Reading, discard: bool) -> dict[str, Any]:
        """The object to validate: `data` with the variant tag set, the
        `null` rules applied and, with `discard`, the values that do not
        decode discarded as their rules say; a copy when anything changed."""
        prepared: dict[str, Any] | None = None
        if cls.__acp_variant_tag__ is not None:
            wire, attr, tag = cls.__acp_variant_tag__
            if wire not in data and attr not in data:
                # Set, so that it is written out like any member given.
                prepared = dict(data)
                prepared[wire] = tag
        for rule in reading.rules:
            source = data if prepared is None else prepared
            key = rule.wire if rule.wire in source else rule.attr
            if key not in source:
                continue
            value = source[key]
            if value is None and not rule.nullable:
                if rule.on_null or rule.on_error:
                    prepared = dict(source)
                    _fall_back(prepared, key, rule)
                    continue
                raise FieldError(rule.wire, "null is not allowed")
            if not discard:
                continue
            if rule.skip_items and isinstance(value, list):
                item = _item_type(cls.model_fields[rule.attr].annotation)
                value = [entry for entry in value if _decodes(item, entry)]
                prepared = dict(source)
                prepared[key] = value
            if rule.on_error and not _decodes(cls.model_fields[rule.attr].annotation, value):
                prepared = dict(data if prepared is None else prepared)
                _fall_back(prepared, key, rule)
        if reading.flattened:
            prepared = dict(data if prepared is None else prepared)
            members = dict(prepared)
            for attr in reading.flattened:
                # A value built in Python arrives as a model under its attribute;
                # on the wire, the flattened members sit in the object itself.
                if not isinstance(prepared.get(attr), BaseModel):
                    prepared[attr] = members
        return data if prepared is None else prepared


class FlatModel(WireModel):
    """An object whose flattened members (`__acp_flattened__`) sit in its own JSON object.

    With `__acp_closed__`, a member that neither it nor the flattened values
    declare is an error (`additionalProperties: false`).
    """

    __acp_closed__: ClassVar[bool] = False

    @model_validator(mode="wrap")
    @classmethod
    def acp_check_members(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        model = handler(data)
        if cls.__acp_closed__ and isinstance(data, dict):
            known = _declared(model)
            unknown = [key for key in data if known is not None and key not in known and key not in cls.model_fields]
            if unknown:
                raise FieldError(unknown[0], "is not a member of this object")
        return model

    @model_serializer(mode="wrap")
    def acp_write(self, handler: SerializerFunctionWrapHandler) -> Any:
        result = handler(self)
        flattened = inherited(type(self), "__acp_flattened__")
        if not isinstance(result, dict):
            return result
        merged: dict[str, Any] = {}
        for attr in flattened:
            inner = result.pop(attr, None)
            if isinstance(inner, dict):
                merged.update(inner)
        merged.update(result)
        return merged


def _declared(model: Any) -> set[str] | None:
    """The wire names `model` declares, flattened values included; `None`
    when a flattened value keeps any member (a catch-all)."""
    if isinstance(model, RootModel):
        return None
    if not isinstance(model, BaseModel):
        return set()
    names = {field.alias or name for name, field in type(model).model_fields.items()}
    for attr in inherited(type(model), "__acp_flattened__"):
        inner = _declared(getattr(model, attr))
        if inner is None:
            return None
        names |= inner
    return names


def value_or_default(model: BaseModel, attr: str, default: Any) -> Any:
    """The value of `attr`, or the schema default decoded as the field's type when absent."""
    if attr in model.model_fields_set:
        return getattr(model, attr)
    return adapter(type(model).model_fields[attr].annotation).validate_python(default)


def _fall_back(data: dict[str, Any], key: str, rule: Rule) -> None:
    if rule.fallback == ABSENT:
        del data[key]
    elif rule.fallback == VALUE:
        data[key] = rule.value


class CatchAll(RootModel[dict[str, Any]]):
    """The variant of an extensible union that keeps an unknown tag's object whole."""

    __acp_tag__: ClassVar[str] = ""

    @model_validator(mode="after")
    def acp_check_tag(self) -> CatchAll:
        if not isinstance(self.root.get(self.__acp_tag__), str):
            raise FieldError(self.__acp_tag__, "the tag must be a string")
        return self


def tag_of(wire: str, labels: dict[str, str], untagged: str | None, other: str | None) -> Callable[[Any], str | None]:
    """The discriminator of a tagged union: the variant label for a value."""

    # Decoding asks with a dict, encoding with a model (RootModel included).
    def pick(value: Any) -> str | None:
        if isinstance(value, dict):
            tag = value.get(wire)
            if tag is None:
                return untagged
            if tag.__class__ is not str and not isinstance(tag, str):
                return None
            found = labels.get(tag)
            if found is not None:
                return found
            return other if other is not None else tag
        if isinstance(value, BaseModel):
            return value.__class__.__name__
        return None

    return pick


def check_tag(wire: str, tag: str, message: str) -> Callable[[Any], Any]:
    """The check of a tagged union with a single variant: the tag must be `tag`."""

    def check(value: Any) -> Any:
        if isinstance(value, dict) and value.get(wire) != tag:
            raise FieldError(wire, message)
        return value

    return check


def untagged(options: Callable[[], tuple[Any, ...]]) -> Callable[[Any], Any]:
    """The validator of an untagged union: the first option whose re-encoding
    equals the input, else the first that decodes."""

    def pick(value: Any) -> Any:
        first: Any = None
        found = False
        for annotation in options():
            try:
                decoded = adapter(annotation).validate_python(value)
            except (ValidationError, ValueError):
                continue
            if encode(annotation, decoded) == value:
                return decoded
            if not found:
                first, found = decoded, True
        if not found:
            raise ValueError("no alternative of the union matches")
        return first

    return pick


def as_is(value: Any) -> Any:
    """The serializer of an untagged union: each value encodes as its own type."""
    return value


def pointer(value: Any, error: ValidationError) -> str:
    """The JSON pointer into `value` of the first error in `error`."""
    details = error.errors()[0]
    path = ""
    current = value
    for part in details["loc"]:
        if isinstance(current, dict) and isinstance(part, str) and part in current:
            current = current[part]
            path += "/" + part.replace("~", "~0").replace("/", "~1")
        elif isinstance(current, list) and isinstance(part, int) and 0 <= part < len(current):
            current = current[part]
            path += f"/{part}"
        elif details["type"] == "missing" and part == details["loc"][-1] and isinstance(part, str):
            path += "/" + part.replace("~", "~0").replace("/", "~1")
    cause = details.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):
        path += "/" + cause.wire.replace("~", "~0").replace("/", "~1")
    if details["type"].startswith(TAG_ERROR) and isinstance(current, dict):
        path += "/" + details["type"][len(TAG_ERROR) :].replace("~", "~0").replace("/", "~1")
    return path


MAX_DEPTH = 127
"""The most arrays and objects a decoded value may nest, itself included: the
limit of Rust's `serde_json` parser, so that every binding takes the same
documents (`codegen/DECODING.md`)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    # `isascii` reads a flag CPython keeps: most strings skip the search.
    return not text.isascii() and _SURROGATE.search(text) is not None


def _escape(key: Any) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")


def check_wire(value: Any, depth: int = 1) -> None:
    """Raises a `DecodeError` at the first array or object nested deeper than
    `MAX_DEPTH`, number that is not finite (`1e400` parses as infinity, which
    JSON cannot write back) or string or member name holding a lone surrogate
    (`"\\ud800"`, which UTF-8 cannot write back), in document order; `value`
    itself is `depth` deep. It walks with a stack of its own: no depth of
    input exhausts Python's."""
    pending: list[tuple[Any, int, tuple[Any, ...]]] = [(value, depth, ())]
    while pending:
        current, depth, trail = pending.pop()
        if isinstance(current, (dict, list)):
            if depth > MAX_DEPTH:
                raise DecodeError(_pointer(trail), f"nested more than {MAX_DEPTH} arrays and objects deep")
            members = list(current.items()) if isinstance(current, dict) else list(enumerate(current))
            for key, member in reversed(members):
                if isinstance(key, str) and _has_surrogate(key):
                    raise DecodeError(_pointer((trail, key)), "the member name holds a lone surrogate")
                pending.append((member, depth + 1, (trail, key)))
        elif isinstance(current, float) and not math.isfinite(current):
            raise DecodeError(_pointer(trail), f"{current} is not a finite number")
        elif isinstance(current, str) and _has_surrogate(current):
            raise DecodeError(_pointer(trail), "the string holds a lone surrogate")


def _pointer(trail: tuple[Any, ...]) -> str:
    keys: list[str] = []
    while trail:
        trail, key = trail
        keys.append("/" + _escape(key))
    return "".join(reversed(keys))


def decode_with(annotation: Any, value: Any) -> Any:
    """Decodes `value` as `annotation`, raising a `DecodeError` with the path."""
    check_wire(value)
    try:
        return adapter(annotation).validate_python(value)
    except ValidationError as error:
        details = error.errors()[0]
        cause = details.get("ctx", {}).get("error")
        message = str(cause) if isinstance(cause, ValueError) else details["msg"]
        raise DecodeError(pointer(value, error), message) from error



class StrEnum(str, Enum):
    """A string enum whose members print as their wire value (`str()`, f-strings)."""

    def __str__(self) -> str:
        return str.__str__(self)


class IntEnum(int, Enum):
    """An integer enum whose members print as their wire value (`str()`, f-strings)."""

    def __str__(self) -> str:
        return int.__repr__(self)


class OpenStrEnum(StrEnum):
    """A string enum that keeps any other string as a member of its own."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member: Any = str.__new__(cls, value)
        member._name_ = value
        member._value_ = value
        return member


class OpenIntEnum(IntEnum):
    """An integer enum that keeps any other integer in `__acp_range__` as a member of its own."""

    __acp_range__: ClassVar[tuple[int, int]] = (-(2**63), 2**63 - 1)

    @classmethod
    def _missing_(cls, value: object) -> Any:
        low, high = cls.__acp_range__
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            return None
        member: Any = int.__new__(cls, value)
        member._name_ = str(value)
        member._value_ = value
        return member


def to_json(value: BaseModel) -> Any:
    """The wire JSON of a model: wire names, and only the members it was given or decoded with."""
    return value.model_dump(mode="json", by_alias=True, exclude_unset=True)


class RequestError(Exception):
    """A JSON-RPC error answer; `to_json()` is its `error` object."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


class MethodNotFound(RequestError):
    """-32601: the method is not one this side handles."""

    def __init__(self, method: str) -> None:
        super().__init__(-32601, f"method not found: {method}", {"method": method})
        self.method = method


class InvalidParams(RequestError):
    """-32602: the params do not decode; `data` names the JSON pointer of the failure."""

    def __init__(self, method: str, error: DecodeError) -> None:
        super().__init__(-32602, f"invalid params of {method}: {error}", {"pointer": error.path})
        self.method = method
        self.path = error.path


@dataclass(frozen=True)
class ExtensionRequest:
    """A request whose method starts with `_`: an extension, kept undecoded."""

    method: str
    params: Any


@dataclass(frozen=True)
class ExtensionNotification:
    """A notification whose method starts with `_`: an extension, kept undecoded."""

    method: str
    params: Any


def is_extension(method: str) -> bool:
    """Whether `method` names an extension (it starts with `_`)."""
    return method.startswith("_")


def decode_params(method: str, annotation: Any, params: Any) -> Any:
    """The params of `method` decoded as `annotation`; `InvalidParams` when they do not decode."""
    try:
        return decode_with(annotation, params)
    except DecodeError as error:
        raise InvalidParams(method, error) from error


def decode_by_method(table: dict[str, Any], method: str, params: Any, extension: Callable[[str, Any], Any]) -> Any:
    """The params of `method`, decoded as `table` says; an extension method's
    kept whole by `extension`; `MethodNotFound` for any other method."""
    annotation = table.get(method)
    if annotation is not None:
        return decode_params(method, annotation, params)
    if is_extension(method):
        try:
            check_wire(params)
        except DecodeError as error:
            raise InvalidParams(method, error) from error
        return extension(method, params)
    raise MethodNotFound(method)


P = TypeVar("P")
R = TypeVar("R")


@dataclass(frozen=True)
class RequestMethod(Generic[P, R]):
    """A request: `params` from the caller, `result` back from `side`;
    `optional` when the method is capability-gated, unstable or protocol-level."""

    name: str
    side: str
    params: Any
    result: Any
    optional: bool

    def decode_params(self, value: Any) -> P:
        return cast(P, decode_params(self.name, self.params, value))

    def decode_result(self, value: Any) -> R:
        return cast(R, decode_with(self.result, value))


@dataclass(frozen=True)
class NotificationMethod(Generic[P]):
    """A notification handled by `side`; `optional` as for requests."""

    name: str
    side: str
    params: Any
    optional: bool

    def decode_params(self, value: Any) -> P:
        return cast(P, decode_params(self.name, self.params, value))
