"""ACP bindings: pydantic v2 models, method tables, side protocols and the by-name codec.

Generated: do not edit.
"""

from ._runtime import DecodeError
from .codec import roundtrip
from .protocols import Agent, Client

__all__ = ["Agent", "Client", "DecodeError", "roundtrip"]
