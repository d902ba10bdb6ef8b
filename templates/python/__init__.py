"""ACP bindings: pydantic v2 models, method tables, side protocols and the by-name codec.

Generated: do not edit.
"""

from .codec import roundtrip
from .protocols import Agent, Client
from ._runtime import DecodeError

__all__ = ["Agent", "Client", "DecodeError", "roundtrip"]
