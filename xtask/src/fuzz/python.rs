//! Python's fuzzer: atheris (libFuzzer for CPython), pinned in
//! `tests/python/fuzz-requirements.txt` with the package's pydantic and
//! installed into a virtual environment of its own, `.tools/fuzz/venv`,
//! running the harness `tests/python/fuzz_connection.py`, which imports
//! the default schema's package from its sources under atheris's
//! instrumentation.

use std::process::Command;

use anyhow::{Context, Result};

use super::libfuzzer::{self, Folders};
use super::{Outcome, Run};
use crate::support::tools::virtual_environment;

/// Runs Python's fuzzer for `run`.
pub fn run(run: &Run) -> Result<Outcome> {
    let tests = run.workspace.join("tests").join("python");
    let python = virtual_environment(
        &run.workspace.join(".tools").join("fuzz"),
        &tests.join("fuzz-requirements.txt"),
    )?;
    let folders = Folders::fresh(run)?;
    let mut command = Command::new(&python);
    command
        .arg(tests.join("fuzz_connection.py"))
        .args(libfuzzer::flags(run, &folders))
        .arg(&folders.corpus)
        .arg(run.seeds)
        .env("ACP_BINDINGS", run.bindings)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(run.folder);
    libfuzzer::run_logged(&mut command, "atheris", &folders.log, &folders.findings)?;
    let version = Command::new(&python)
        .args(["-c", "import importlib.metadata as m; print(m.version('atheris'))"])
        .output()
        .context("asking the environment for atheris's version")?;
    libfuzzer::outcome(
        format!(
            "atheris {} (libFuzzer)",
            String::from_utf8_lossy(&version.stdout).trim()
        ),
        &folders,
    )
}
