"""Locates the bindings under test: `ACP_BINDINGS` names a folder written by
`cargo xtask generate`, holding `python/` (the package) and `vectors/`.

A test that skips fails, unless its id is in `ALLOWED_SKIPS` with the reason
it may skip: a skip must be a reviewed decision, never a silent pass."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

ALLOWED_SKIPS: dict[str, str] = {}
"""Test id -> why that test may skip. Empty: no test may skip."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.nodeid not in ALLOWED_SKIPS:
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} skipped, and it is not in conftest.ALLOWED_SKIPS: {report.longrepr}"


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
