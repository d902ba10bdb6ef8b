"""Runtime support of the generated package: decode rules, tags and error
paths of the models; JSON-RPC errors, extension methods and decoding by
method name for the method tables and protocols."""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import math
import operator
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import Enum
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
)

from pydantic import (
    MISSING,
    BaseModel,
    ConfigDict,
    GetCoreSchemaHandler,
    ModelWrapValidatorHandler,
    RootModel,
    SerializerFunctionWrapHandler,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from pydantic_core import (
    CoreSchema,
    PydanticOmit,
    core_schema,
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
class Member:
    """How one member decodes beyond its type: whether `null` is one of its
    values, and its `x-deserialize-*` rules. Placed in the member's
    `Annotated`, it shapes the member's pydantic-core schema, so that reading
    an object never leaves pydantic-core (`codegen/DECODING.md`).

    - not `nullable`: the member is optional, so its attribute is `X | None`,
      but `null` on the wire is refused (checked as `X`);
    - `on_error`: a value that does not decode takes the `fallback`;
    - `on_null`: `null` takes the `fallback`;
    - `skip_items`: the items of the list that do not decode are dropped.

    The fallback `ABSENT` leaves the member out, as if it had not been sent
    (the attribute then reads as its default); `VALUE` puts `value` there;
    `REJECT` (no value satisfies the member) keeps the failure."""

    nullable: bool
    on_error: bool
    on_null: bool
    skip_items: bool
    fallback: str
    value: Any = None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        read = handler(source)
        if not self.nullable:
            stripped = _without_none(source)
            if stripped is not source:
                # Read as the type without `None`; written as declared, so
                # that an absent member's `None` stays writable.
                read = {**handler.generate_schema(stripped), "serialization": read}
        if self.skip_items:
            read = _skipping(read)
        # `REJECT`: no value satisfies the member, so no rule applies.
        applies = self.fallback != REJECT
        if applies and self.on_error:
            if self.fallback == VALUE:
                # Only for a value that fails: an absent member stays absent
                # (pydantic-core would take a default for a missing member).
                fallback = core_schema.with_default_schema(
                    read, default=self.value, on_error="default", validate_default=True
                )
                read = core_schema.json_or_python_schema(
                    json_schema=fallback, python_schema=fallback
                )
            else:
                read = core_schema.with_default_schema(read, on_error="omit")
        elif applies and self.on_null:
            read = core_schema.no_info_before_validator_function(self._on_null, read)
        return read

    def _on_null(self, value: Any) -> Any:
        if value is not None:
            return value
        if self.fallback == VALUE:
            return copy.deepcopy(self.value)
        raise PydanticOmit


class WrittenByClass:
    """A union's values are written each by its own class's serializer,
    straight to JSON. pydantic-core's union serializers, given JSON to
    write, first build the value as Python objects (a dictionary per
    object, a string per member) and then write those, and look the
    variant's tag up on the value; the value's own class already knows how
    it is written."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return by_class(handler(source))


def by_class(schema: CoreSchema) -> CoreSchema:
    """`schema`, written as its value's class writes it (`WrittenByClass`)."""
    return {**schema, "serialization": core_schema.simple_ser_schema("any")}


def _without_none(source: Any) -> Any:
    """`source` without `None` among its options."""
    if get_origin(source) in (Union, UnionType):
        options = tuple(
            option for option in get_args(source) if option is not type(None)
        )
        return functools.reduce(operator.or_, options)
    return source


def _skipping(schema: CoreSchema) -> CoreSchema:
    """`schema` with the items of its list that do not decode dropped."""
    if schema["type"] == "nullable":
        return {**schema, "schema": _skipping(schema["schema"])}
    if schema["type"] == "list":
        return {
            **schema,
            "items_schema": core_schema.with_default_schema(
                schema["items_schema"], on_error="omit"
            ),
        }
    raise TypeError(f"skipping invalid items needs a list, not {schema['type']}")


_FLATTENED: set[str] = set()
"""The attributes of flattened values: an error's location passes through
one, though on the wire its members sit in the object itself."""

_TAG_MEMBERS: set[str] = set()
"""The tag members of the tagged unions pydantic-core tells apart: an error
inside a variant is located after the variant's tag value."""


@dataclass(frozen=True)
class Tagged:
    """A tagged union told apart by pydantic-core: the member `wire`
    (attribute `attr`) holds the tag; `tags` are the variants' tags in the
    order of the union's options. A tag that is missing, not a string or
    names no variant is the error `acp_union_tag:<wire>`."""

    wire: str
    attr: str
    tags: tuple[str, ...]
    message: str

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        _TAG_MEMBERS.add(self.wire)
        union = handler(source)
        if union["type"] != "union" or len(union["choices"]) != len(self.tags):
            raise TypeError(
                f"the tagged union on `{self.wire}` needs one option per tag"
            )
        choices: dict[Hashable, CoreSchema] = {}
        for tag, choice in zip(self.tags, union["choices"]):
            choices[tag] = choice[0] if isinstance(choice, tuple) else choice
        # The wire name first: on the wire, a member spelled like the
        # attribute (`type_` beside `type`) is an unknown member.
        discriminator: str | list[list[str | int]] = (
            self.wire if self.wire == self.attr else [[self.wire], [self.attr]]
        )
        return by_class(
            core_schema.tagged_union_schema(
                choices,
                discriminator,
                custom_error_type=TAG_ERROR + self.wire,
                custom_error_message=self.message,
                strict=True,
            )
        )


_adapters: dict[Any, TypeAdapter[Any]] = {}


def adapter(annotation: Any) -> TypeAdapter[Any]:
    """The (cached) adapter of a type."""
    found = _adapters.get(annotation)
    if found is None:
        found = TypeAdapter(annotation)
        _adapters[annotation] = found
    return found


def read(annotation: Any, value: Any) -> Any:
    """`value`, wire JSON, validated as `annotation`: members are matched by
    their wire names only (`WireModel`'s configuration), so a member the
    schema does not name that is spelled like another member's attribute
    (`meta` beside `_meta`) stays an unknown member."""
    # pydantic-core's validator itself: `TypeAdapter.validate_python` hands
    # it every option by keyword, given or not.
    return adapter(annotation).validator.validate_python(value)


def encode(annotation: Any, value: Any, *, decoded: bool = False) -> Any:
    """The wire JSON of `value`. A `decoded` value was checked as it was
    read, so pydantic's serializer warnings are left out for it: they would
    be false alarms, as for a member that a rule left out of its object
    (`Member`), which the serializer of a union counts as a missing field
    before it writes the object as its own class."""
    return adapter(annotation).serializer.to_python(
        value, mode="json", by_alias=True, warnings=not decoded
    )


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


class Absent:
    """The attribute of a member with a default: its value, or its default
    while the object holds `MISSING` for it.

    A model's core schema gives such a member `MISSING` when it is absent
    (`absent_as_missing`), which pydantic-core leaves out of what it writes:
    writing then needs no `exclude_unset`, which copies each object's
    dictionary to filter it by `__pydantic_fields_set__`."""

    __slots__ = ("default", "name")

    def __init__(self, name: str, default: Any) -> None:
        self.name = name
        self.default = default

    def __get__(self, model: Any, owner: Any = None) -> Any:
        if model is None:
            return self.default
        value = model.__dict__.get(self.name, MISSING)
        if value is MISSING:
            return copy.copy(self.default)
        return value

    def __set__(self, model: Any, value: Any) -> None:
        model.__dict__[self.name] = value


def absent_as_missing(schema: CoreSchema) -> CoreSchema:
    """`schema`, a model's, with `MISSING` as the default of each member that has one."""
    inner: Any = schema
    while inner.get("type") in (
        "model",
        "function-wrap",
        "function-before",
        "function-after",
    ):
        inner = inner["schema"]
    if inner.get("type") == "model-fields":
        for field in inner["fields"].values():
            read = field["schema"]
            if read["type"] == "default" and "default" in read:
                read["default"] = MISSING
    return schema


def read_absent_as_default(classes: dict[str, Any]) -> None:
    """Gives each member with a default of the models among `classes` its
    `Absent` attribute, once they are all built."""
    for cls in classes.values():
        if isinstance(cls, type) and issubclass(cls, WireModel):
            for name, field in cls.__pydantic_fields__.items():
                if not field.is_required():
                    type.__setattr__(
                        cls,
                        name,
                        Absent(name, field.get_default(call_default_factory=True)),
                    )


class WireModel(BaseModel):
    """Base of every generated object: wire names as aliases, each member's
    decode rules in its `Member`; a tagged variant built in Python gets its tag."""

    model_config = ConfigDict(
        # Wire JSON names members by wire name only (`model_validate` too);
        # building in Python takes attributes as well (`__init__`).
        validate_by_name=False,
        validate_by_alias=True,
        # The fields' descriptions are their docstrings, read by
        # `describe_fields` in one parse of `models.py`: pydantic's own
        # reading (`use_attribute_docstrings`) parses each class's source
        # anew, a third of the import.
        regex_engine="python-re",
        # The parser keeps one copy of each short string it reads, values
        # too: a session's id, a tool call's id, a path come back message
        # after message (pydantic's default; member names only was slower on
        # the benchmark's corpus).
        cache_strings="all",
        # Built by `models.py` once every class is defined, each after the
        # classes it refers to, so that it reuses what they have built.
        defer_build=True,
        # naming.rs suffixes every name pydantic reserves (`model_*` too), so
        # no attribute shadows pydantic's own.
        protected_namespaces=(),
    )

    __acp_variant_tag__: ClassVar[tuple[str, str, str] | None] = None
    """A tagged variant's tag: its wire name, attribute and value."""

    def __init__(self, /, **data: Any) -> None:
        tag = self.__acp_variant_tag__
        if tag is not None and tag[0] not in data and tag[1] not in data:
            # Set, so that it is written out like any member given.
            data[tag[1]] = tag[2]
        self.__pydantic_validator__.validate_python(
            data, self_instance=self, by_alias=True, by_name=True
        )

    # Only for building in Python: pydantic-core decodes without calling it.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        tag = vars(cls).get("__acp_variant_tag__")
        if (
            tag is not None
            and tag[0] != tag[1]
            and tag[0] not in cls.__pydantic_fields__
            and not hasattr(cls, tag[0])
        ):
            # A tagged union given a built value (a variant passed to a
            # constructor) looks the tag up by its wire name first
            # (`_runtime.Tagged`): a class attribute of that name holding
            # the tag answers at once, where a miss would run `__getattr__`
            # and raise.
            type.__setattr__(cls, tag[0], tag[2])

    if not TYPE_CHECKING:
        # pydantic's `model_validate_json` and `model_dump_json` hand every
        # one of their options to pydantic-core by keyword, given or not
        # (sixteen for a dump), and pydantic-core matches each by name: about
        # a twentieth of reading and writing a message. These hand over only
        # the options given: the same names, the same defaults
        # (`tests/python/test_api.py` checks both against pydantic's).

        @classmethod
        def __get_pydantic_core_schema__(
            cls, source: Any, handler: GetCoreSchemaHandler
        ) -> CoreSchema:
            return absent_as_missing(handler(source))

        @classmethod
        def model_validate_json(cls, json_data: Any, **options: Any) -> Any:
            if options:
                return super().model_validate_json(json_data, **options)
            return cls.__pydantic_validator__.validate_json(json_data)

        def model_dump_json(self, **options: Any) -> str:
            # An absent member holds `MISSING`, which is never written.
            options.pop("exclude_unset", None)
            return self.__pydantic_serializer__.to_json(self, **options).decode()

        @classmethod
        def model_construct(
            cls, _fields_set: set[str] | None = None, **values: Any
        ) -> Any:
            model = super().model_construct(_fields_set, **values)
            # A member not given is absent, as when decoded (`Absent`).
            state = model.__dict__
            for name in cls.__pydantic_fields__:
                if name not in model.__pydantic_fields_set__ and name in state:
                    state[name] = MISSING
            return model

        def __repr_args__(self) -> Any:
            for name, value in super().__repr_args__():
                yield name, getattr(self, name) if value is MISSING else value

        def __getattr__(self, name: str) -> Any:
            # A member its rules left out of a decoded object reads as its default.
            field = type(self).__pydantic_fields__.get(name)
            if field is not None:
                return field.get_default(call_default_factory=True)
            return super().__getattr__(name)


class FlatModel(WireModel):
    """An object whose flattened members (`__acp_flattened__`) sit in its own JSON object.

    With `__acp_closed__`, a member that neither it nor the flattened values
    declare is an error (`additionalProperties: false`).
    """

    __acp_flattened__: ClassVar[tuple[str, ...]] = ()
    __acp_closed__: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _FLATTENED.update(vars(cls).get("__acp_flattened__", ()))

    @model_validator(mode="wrap")
    @classmethod
    def acp_read(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if not isinstance(data, dict):
            return handler(data)
        # The flattened values get the members this object does not declare itself.
        own = _own_members(cls)
        members = {key: value for key, value in data.items() if key not in own}
        prepared = dict(data)
        for attr in inherited(cls, "__acp_flattened__"):
            # A value built in Python arrives as a model under its attribute;
            # on the wire, the flattened members sit in the object itself.
            if not isinstance(prepared.get(attr), BaseModel):
                prepared[attr] = members
        model = handler(prepared)
        if cls.__acp_closed__:
            known = _declared(model)
            unknown = [
                key
                for key in data
                if known is not None
                and key not in known
                and key not in cls.__pydantic_fields__
            ]
            if unknown:
                raise FieldError(unknown[0], "is not a member of this object")
        extra = model.__pydantic_extra__
        if extra:
            # A member a flattened value reads is its own, as that value read
            # it (a rule may have repaired or dropped it), not an unknown one.
            for attr in inherited(cls, "__acp_flattened__"):
                inner = getattr(model, attr)
                declared = _declared(inner)
                taken = declared if declared is not None else _whole_members(inner)
                for key in [key for key in extra if key in taken]:
                    del extra[key]
                    model.__pydantic_fields_set__.discard(key)
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


_owned: dict[type, frozenset[str]] = {}


def _own_members(cls: type[BaseModel]) -> frozenset[str]:
    """The wire and attribute names of the members `cls` declares, flattened values aside."""
    found = _owned.get(cls)
    if found is None:
        flattened = inherited(cls, "__acp_flattened__")
        names = {
            name
            for attr, field in cls.__pydantic_fields__.items()
            if attr not in flattened
            for name in (attr, field.alias or attr)
        }
        found = _owned[cls] = frozenset(names)
    return found


def _whole_members(model: Any) -> set[str]:
    """The members of a value a catch-all kept whole (a model that keeps them all)."""
    if isinstance(model, RootModel) and isinstance(model.root, dict):
        return set(model.root)
    if isinstance(model, BaseModel):
        return {
            field.alias or name
            for name, field in type(model).__pydantic_fields__.items()
        } | set(model.__pydantic_extra__ or ())
    return set()


def _declared(model: Any) -> set[str] | None:
    """The wire names `model` declares, flattened values included; `None`
    when a flattened value keeps any member (a catch-all)."""
    if isinstance(model, RootModel):
        return None
    if not isinstance(model, BaseModel):
        return set()
    names = {
        field.alias or name for name, field in type(model).__pydantic_fields__.items()
    }
    for attr in inherited(type(model), "__acp_flattened__"):
        inner = _declared(getattr(model, attr))
        if inner is None:
            return None
        names |= inner
    return names


def describe_fields(module: str, classes: dict[str, Any]) -> None:
    """Gives each field of the models among `classes` (the namespace of the
    module `module`) the docstring that follows its declaration in that
    module's text as its description (`inspect.cleandoc`, as pydantic
    does); an inherited field, its base's. Nothing without the source."""
    get_source = getattr(classes.get("__loader__"), "get_source", None)
    source = get_source(module) if get_source is not None else None
    if not isinstance(source, str):
        return
    docs: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef):
            continue
        found = docs[node.name] = {}
        for before, item in zip(node.body, node.body[1:]):
            if (
                isinstance(before, ast.AnnAssign)
                and isinstance(before.target, ast.Name)
                and isinstance(item, ast.Expr)
                and isinstance(item.value, ast.Constant)
                and isinstance(item.value.value, str)
            ):
                found[before.target.id] = inspect.cleandoc(item.value.value)
    for name in docs:
        cls = classes.get(name)
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
            continue
        for attr, field in cls.__pydantic_fields__.items():
            if field.description is not None:
                continue
            for klass in cls.__mro__:
                text = docs.get(klass.__name__, {}).get(attr)
                if text is not None and classes.get(klass.__name__) is klass:
                    field.description = text
                    break


def value_or_default(model: BaseModel, attr: str, default: Any) -> Any:
    """The value of `attr`, or the schema default decoded as the field's type when absent."""
    # A member left out of the object's dictionary (by a rule) or holding
    # `MISSING` (not given) is absent.
    if model.__dict__.get(attr, MISSING) is not MISSING:
        return getattr(model, attr)
    return read(type(model).__pydantic_fields__[attr].annotation, default)


def attribute(cls: Any, wire: str) -> str | None:
    """The attribute of the member of the model class `cls` whose wire name
    is `wire` (`None` when it has none)."""
    fields = getattr(cls, "__pydantic_fields__", {})
    return next(
        (name for name, field in fields.items() if (field.alias or name) == wire),
        None,
    )


def variant_tag(value: Any) -> str | None:
    """The tag of a tagged union's variant, as its class has it (`None`
    for a value of no such class)."""
    tag = getattr(type(value), "__acp_variant_tag__", None)
    return tag[2] if tag is not None else None


class CatchAll(RootModel[dict[str, Any]]):
    """The variant of an extensible union that keeps an unknown tag's object whole."""

    __acp_tag__: ClassVar[str] = ""

    @model_validator(mode="after")
    def acp_check_tag(self) -> CatchAll:
        if not isinstance(self.root.get(self.__acp_tag__), str):
            raise FieldError(self.__acp_tag__, "the tag must be a string")
        return self


def tag_of(
    wire: str,
    labels: dict[str, str],
    untagged: str | None,
    other: str | None,
    default_open: bool,
) -> Callable[[Any], str | None]:
    """The discriminator of a tagged union: the variant label for a value.
    With `default_open`, the variant without a tag (`untagged`) also takes a
    tag that is not a string or that no variant or catch-all claims."""

    fallback = untagged if default_open else None

    # Decoding asks with a dict, encoding with a model (RootModel included).
    def pick(value: Any) -> str | None:
        if isinstance(value, dict):
            tag = value.get(wire)
            if tag is None:
                return untagged
            if tag.__class__ is not str and not isinstance(tag, str):
                return fallback
            found = labels.get(tag)
            if found is not None:
                return found
            if other is not None:
                return other
            return fallback if fallback is not None else tag
        if isinstance(value, BaseModel):
            return value.__class__.__name__
        return None

    return pick


def default_on_failure(
    default: Callable[[], Any],
) -> Callable[[Any, ValidatorFunctionWrapHandler], Any]:
    """The validator of a tagged union whose variant without a tag leaves the
    tag open: an object whose tagged variant does not decode is read as that
    variant (`default()`) when it can be; otherwise the variant's error stands."""
    return _ReadAsDefault(default)


class _ReadAsDefault:
    """`default_on_failure`'s validator, a class of its own so that a
    `_StrictCopy` knows it and keeps the variant's failure."""

    def __init__(self, default: Callable[[], Any]) -> None:
        self.default = default

    def __call__(self, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as error:
            if not isinstance(value, dict):
                raise
            try:
                return read(self.default(), value)
            except ValidationError:
                raise error from None


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
                decoded = read(annotation, value)
            except (ValidationError, ValueError):
                continue
            if encode(annotation, decoded, decoded=True) == value:
                return decoded
            if not found:
                first, found = decoded, True
        if not found:
            raise ValueError("no alternative of the union matches")
        return first

    return pick


def pointer(value: Any, error: ValidationError) -> str:
    """The JSON pointer into `value` of the first error in `error`."""
    details = error.errors()[0]
    loc = details["loc"]
    path = ""
    current = value
    # Whether the location passed the variant a tagged union picked at `current`.
    picked = False
    for index, part in enumerate(loc):
        if isinstance(current, dict) and isinstance(part, str):
            if not picked and any(current.get(wire) == part for wire in _TAG_MEMBERS):
                picked = True
                continue
            if (
                part in _FLATTENED
                and index + 1 < len(loc)
                and not isinstance(current.get(part), (dict, list))
            ):
                continue
            if part in current:
                current, picked = current[part], False
                path += "/" + escape_token(part)
                continue
        elif (
            isinstance(current, list)
            and isinstance(part, int)
            and 0 <= part < len(current)
        ):
            current, picked = current[part], False
            path += f"/{part}"
            continue
        if (
            details["type"] == "missing"
            and index == len(loc) - 1
            and isinstance(part, str)
        ):
            path += "/" + escape_token(part)
    cause = details.get("ctx", {}).get("error")
    if isinstance(cause, FieldError):
        path += "/" + escape_token(cause.wire)
    if details["type"].startswith(TAG_ERROR) and isinstance(current, dict):
        path += "/" + escape_token(details["type"][len(TAG_ERROR) :])
    return path


MAX_DEPTH = 127
"""The most arrays and objects a decoded value may nest, itself included: the
limit of Rust's `serde_json` parser, so that every binding takes the same
documents (`codegen/DECODING.md`)."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_surrogate(text: str) -> bool:
    # `isascii` reads a flag CPython keeps: most strings skip the search.
    return not text.isascii() and _SURROGATE.search(text) is not None


def escape_token(key: Any) -> str:
    """A member name (or index) as a JSON pointer segment (RFC 6901): the
    package's one escape."""
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
                raise DecodeError(
                    _pointer(trail),
                    f"nested more than {MAX_DEPTH} arrays and objects deep",
                )
            members = (
                list(current.items())
                if isinstance(current, dict)
                else list(enumerate(current))
            )
            for key, member in reversed(members):
                if isinstance(key, str) and _has_surrogate(key):
                    raise DecodeError(
                        _pointer((trail, key)), "the member name holds a lone surrogate"
                    )
                pending.append((member, depth + 1, (trail, key)))
        elif isinstance(current, float) and not math.isfinite(current):
            raise DecodeError(_pointer(trail), f"{current} is not a finite number")
        elif isinstance(current, str) and _has_surrogate(current):
            raise DecodeError(_pointer(trail), "the string holds a lone surrogate")


def _pointer(trail: tuple[Any, ...]) -> str:
    keys: list[str] = []
    while trail:
        trail, key = trail
        keys.append("/" + escape_token(key))
    return "".join(reversed(keys))


def decode_with(annotation: Any, value: Any, checked: bool = False) -> Any:
    """Decodes `value` as `annotation`, raising a `DecodeError` with the path;
    `checked` when `check_wire` has passed it already (a connection's)."""
    if not checked:
        check_wire(value)
    try:
        return read(annotation, value)
    except ValidationError as error:
        details = error.errors()[0]
        cause = details.get("ctx", {}).get("error")
        message = str(cause) if isinstance(cause, ValueError) else details["msg"]
        raise DecodeError(pointer(value, error), message) from error


def _written_as(schema: CoreSchema, kind: Any) -> CoreSchema:
    """An enum's schema that writes a member as the `str` or `int` it is
    (pydantic-core reads it without calling Python), not through `.value`."""
    return {**schema, "serialization": core_schema.simple_ser_schema(kind)}


class StrEnum(str, Enum):
    """A string enum whose members print as their wire value (`str()`, f-strings)."""

    def __str__(self) -> str:
        return str.__str__(self)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return _written_as(handler(source), "str")


class IntEnum(int, Enum):
    """An integer enum whose members print as their wire value (`str()`, f-strings)."""

    def __str__(self) -> str:
        return int.__repr__(self)

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return _written_as(handler(source), "int")


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
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not low <= value <= high
        ):
            return None
        member: Any = int.__new__(cls, value)
        member._name_ = str(value)
        member._value_ = value
        return member


def to_json(value: BaseModel) -> Any:
    """The wire JSON of a model: wire names, and only the members it was given or decoded with."""
    return value.model_dump(mode="json", by_alias=True)


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
        super().__init__(
            -32602, f"invalid params of {method}: {error}", {"pointer": error.path}
        )
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


def decode_params(
    method: str, annotation: Any, params: Any, checked: bool = False
) -> Any:
    """The params of `method` decoded as `annotation`; `InvalidParams` when
    they do not decode (`checked` as for `decode_with`)."""
    try:
        return decode_with(annotation, params, checked)
    except DecodeError as error:
        raise InvalidParams(method, error) from error


def decode_by_method(
    table: dict[str, Any],
    method: str,
    params: Any,
    extension: Callable[[str, Any], Any],
) -> Any:
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
    `optional` when the method is capability-gated, not negotiated at
    initialize, unstable, acted on by the connection itself or protocol-level."""

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
