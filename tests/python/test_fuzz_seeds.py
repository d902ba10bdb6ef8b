"""The fuzz harness's check (`fuzz_connection.test_one_input`) on every
fuzz seed, without atheris and without mutation: each file of the folder
`ACP_FUZZ_SEEDS` names (written by `cargo xtask test` from the hostile wire
table and the real captures) must leave both ends neither crashed, hung,
grown without bound nor with a line unanswered and unreported. A failure is
the seed's test, named by its file.

Collected only for the default schema's bindings (`ACP_DEFAULT_SCHEMA`,
`conftest.DEFAULT_SCHEMA_ONLY`), the schema the harness is written on."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import bindings_folder, installed_package

installed_package(bindings_folder())

# Imported once the package is known to be the installed one.
import fuzz_connection


def seeds() -> list[Path]:
    """The seed files, by name; an error when the folder is not set or empty."""
    folder = os.environ.get("ACP_FUZZ_SEEDS")
    if not folder:
        raise RuntimeError("set ACP_FUZZ_SEEDS to the folder of fuzz seeds `cargo xtask test` writes")
    files = sorted(path for path in Path(folder).iterdir() if path.is_file())
    if not files:
        raise RuntimeError(f"no fuzz seeds in {folder}")
    return files


@pytest.fixture(scope="module", autouse=True)
def close_loop() -> Iterator[None]:
    """Closes the harness's event loop once every seed ran."""
    yield
    fuzz_connection.LOOP.close()


@pytest.mark.parametrize("seed", seeds(), ids=lambda path: path.name)
def test_the_fuzz_harness_passes_on_the_seed(seed: Path) -> None:
    fuzz_connection.test_one_input(seed.read_bytes())
