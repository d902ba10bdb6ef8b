//! The Python programs of the matrix pass `ruff check` and `mypy --strict`
//! before they play, as a user's code would be checked: ours against the
//! generated package of their protocol version, the official SDK's against
//! its pinned release (mypy reading that environment's packages). Both run
//! with the tests' environment (`.tools/venv`), which has the checkers.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::support::tools::run_checked;

/// Checks `scripts` (of one folder) with the checkers of `tools` (a Python interpreter):
/// `packages` is the interpreter whose installed packages mypy reads, and
/// `path` a folder added to the import path (the generated package's).
pub fn python(tools: &Path, scripts: &[&Path], packages: &Path, path: Option<&Path>, what: &str) -> Result<()> {
    // Run where the scripts are, with that folder and `tests/python` (the
    // test agent's) as ruff's source roots (the root's ruff.toml would make
    // it the workspace), so that ruff counts their sibling modules and the
    // test agent as their own (first-party) imports.
    let folder = scripts
        .first()
        .and_then(|script| script.parent())
        .unwrap_or(Path::new("."));
    run_checked(
        Command::new(tools)
            .args([
                "-m",
                "ruff",
                "check",
                "--no-cache",
                "--quiet",
                "--config",
                "src = ['.', '../../python']",
            ])
            .args(scripts)
            .current_dir(folder),
        &format!("ruff check on {what}"),
    )?;
    let mut mypy = Command::new(tools);
    mypy.args(["-m", "mypy", "--strict", "--no-incremental", "--python-executable"])
        .arg(packages)
        .args(scripts)
        .env_remove("PYTHONPATH");
    if let Some(path) = path {
        mypy.env("MYPYPATH", path);
    }
    run_checked(&mut mypy, &format!("mypy --strict on {what}"))
}
