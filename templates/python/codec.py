"""The by-name codec shared by every language's bindings."""

from __future__ import annotations

from typing import Any

from ._runtime import DecodeError, decode_with, encode
from .models import TYPES


def roundtrip(type_name: str, value: Any) -> Any:
    """Decodes `value` (parsed JSON) as the type `type_name` and encodes it back.

    Raises `DecodeError` naming the JSON pointer of the failure.
    """
    annotation = TYPES.get(type_name)
    if annotation is None:
        raise DecodeError("", f"unknown type {type_name!r}")
    return encode(annotation, decode_with(annotation, value), decoded=True)
