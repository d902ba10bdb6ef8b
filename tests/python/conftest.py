"""Locates the bindings under test and imports their package as installed:
`ACP_BINDINGS` names a folder written by `cargo xtask generate`, holding
`python/` (the package's sources) and `vectors/`. The package is imported by
name from the environment's site-packages, where `cargo xtask test` installs
the wheel built from `python/`; the sources are never put on `sys.path`.

A test that skips fails, unless its id is in `ALLOWED_SKIPS` with the reason
it may skip: a skip must be a reviewed decision, never a silent pass."""

from __future__ import annotations

import importlib
import os
import sysconfig
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ALLOWED_SKIPS: dict[str, str] = {
    "tests/python/test_usage.py::test_the_usage_program_runs_and_its_messages_round_trip": (
        "the usage program sends `session/update`, which v2 schemas do not have; "
        "`cargo xtask test` type-checks it on the default schema, where it cannot skip unnoticed"
    ),
    "tests/python/test_connection.py::test_a_cancelled_turn_is_answered_cancelled_after_its_updates": (
        "protocol v2's prompt result has no stop reason (a cancelled turn's idle state update says `cancelled`); "
        "the test runs on the default schema's bindings"
    ),
    "tests/python/test_connection.py::test_v2_a_cancelled_turn_ends_with_an_idle_that_says_cancelled": (
        "protocol v1 answers a cancelled prompt `cancelled`, which the test before it checks; this one runs on the "
        "v2 stable schema's bindings"
    ),
}
"""Test id -> why that test may skip."""

DEFAULT_SCHEMA_ONLY = ("test_hostile_wire.py", "test_helpers.py", "test_fuzz_seeds.py", "test_one_pass_hostile.py")
"""Suites whose tables (`tests/hostile-wire.json`, `tests/helpers.json`, the
fuzz seeds) are written for the default schema: collected only when `ACP_DEFAULT_SCHEMA` is
set, which `cargo xtask test` does for the default schema's bindings."""


SCHEMA_SUITES: dict[str, tuple[str, ...]] = {
    "test_connection.py": ("default", "v2-stable"),
    "test_helpers_v2.py": ("v2-stable",),
}
"""Suites with a scenario for the named schemas only (the default schema's
v1 with the RFDs, the latest release's v2): collected only when
`ACP_SCHEMA_LABEL`, which `cargo xtask test` sets, is one of them."""


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name in DEFAULT_SCHEMA_ONLY and not os.environ.get("ACP_DEFAULT_SCHEMA"):
        return True
    if (
        collection_path.name in SCHEMA_SUITES
        and os.environ.get("ACP_SCHEMA_LABEL") not in SCHEMA_SUITES[collection_path.name]
    ):
        return True
    return None


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
    """The bindings folder."""
    value = os.environ.get("ACP_BINDINGS")
    if not value:
        raise RuntimeError("ACP_BINDINGS must name a folder written by `cargo xtask generate`")
    folder = Path(value).resolve()
    if not (folder / "python").is_dir() or not (folder / "vectors").is_dir():
        raise RuntimeError(f"{folder} holds no python/ and vectors/ folders")
    return folder


def site_packages() -> Path:
    """The site-packages folder of the running environment."""
    return Path(sysconfig.get_path("purelib")).resolve()


def changed_files(folder: Path, package: ModuleType) -> list[str]:
    """The files of the package's sources in `folder` that `package` lacks or
    holds with other bytes."""
    sources = folder / "python" / package_name()
    installed = Path(str(package.__file__)).resolve().parent
    changed = []
    for path in sorted(sources.rglob("*")):
        relative = path.relative_to(sources)
        if path.is_file() and "__pycache__" not in relative.parts:
            copy = installed / relative
            if not copy.is_file() or copy.read_bytes() != path.read_bytes():
                changed.append(str(relative))
    return changed


def installed_package(folder: Path) -> ModuleType:
    """The package, imported by name; an error unless it comes from
    site-packages and holds exactly the sources generated into `folder`."""
    package = importlib.import_module(package_name())
    location = Path(str(package.__file__)).resolve()
    if not location.is_relative_to(site_packages()):
        raise RuntimeError(f"{package_name()} was imported from {location}, not from {site_packages()}")
    changed = changed_files(folder, package)
    if changed:
        sources = folder / "python"
        raise RuntimeError(
            f"{package_name()} in {site_packages()} is not the one in {sources}: {', '.join(changed)} differ"
        )
    return package
