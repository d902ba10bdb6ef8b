"""Locates the bindings under test: `ACP_BINDINGS` names a folder written by
`cargo xtask generate`, holding `python/` (the package) and `vectors/`."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def package_name() -> str:
    """The import name of the package under test (`ACP_PYTHON_PACKAGE`)."""
    return os.environ.get("ACP_PYTHON_PACKAGE") or "acp_bindings"


def bindings_folder() -> Path:
    """The bindings folder; its Python package is imported before any other."""
    value = os.environ.get("ACP_BINDINGS")
    if not value:
        raise RuntimeError("ACP_BINDINGS must name a folder written by `cargo xtask generate`")
    folder = Path(value).resolve()
    if not (folder / "python").is_dir() or not (folder / "vectors").is_dir():
        raise RuntimeError(f"{folder} holds no python/ and vectors/ folders")
    package = str(folder / "python")
    if package not in sys.path:
        sys.path.insert(0, package)
    return folder
