//! The python bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: a virtual environment in
//! `.tools/venv` with the pinned tools (`tests/python/requirements.txt`), the
//! package installed with pip from a copy of `python/`, `ruff check` and
//! `mypy --strict` (with the pydantic plugin, from the package's
//! `pyproject.toml`) on it, then pytest on every shared vector
//! (`tests/python/`), warnings counted as errors. pytest exits 5 when it ran
//! no test, which fails like any other non-zero exit.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context, Result};

use acp_codegen::emit::PackageNames;

use crate::test_command::run_checked;

/// Runs the python suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `python/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let package = bindings.join("python");
    ensure!(package.join("pyproject.toml").is_file(), "{label}: no Python package in {}", package.display());
    let import_name = PackageNames::default().python_package;
    let tests = workspace.join("tests").join("python");
    let tools = workspace.join(".tools");
    let python = virtual_environment(&tools, &tests.join("requirements.txt"))?;

    let copy = workspace.join("target").join("python-install").join(label);
    if copy.exists() {
        std::fs::remove_dir_all(&copy).with_context(|| format!("removing {}", copy.display()))?;
    }
    copy_tree(&package, &copy)?;
    run_checked(
        Command::new(&python).args(["-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--force-reinstall"]).arg(&copy),
        &format!("{label}: pip install {}", package.display()),
    )?;
    run_checked(
        Command::new(&python).args(["-m", "ruff", "check", "--no-cache", &import_name]).current_dir(&package),
        &format!("{label}: ruff check"),
    )?;
    run_checked(
        Command::new(&python)
            .args(["-m", "mypy", "--strict", "--cache-dir"])
            .arg(tools.join("mypy-cache").join(label))
            .arg(&import_name)
            .current_dir(&package),
        &format!("{label}: mypy --strict"),
    )?;
    run_checked(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-W", "error", "-p", "no:cacheprovider"])
            .arg(&tests)
            .env("ACP_BINDINGS", bindings)
            .env("ACP_PYTHON_PACKAGE", &import_name)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(workspace),
        &format!("{label}: pytest {} (exit 5 means no test ran)", tests.display()),
    )
}

/// The interpreter of `.tools/venv`, created on first use; the pinned
/// requirements are installed again whenever the file changes.
fn virtual_environment(tools: &Path, requirements: &Path) -> Result<PathBuf> {
    let venv = tools.join("venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        run_checked(Command::new("python3").args(["-m", "venv"]).arg(&venv), "python3 -m venv .tools/venv")?;
    }
    let wanted = std::fs::read_to_string(requirements).with_context(|| format!("reading {}", requirements.display()))?;
    let stamp = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        run_checked(
            Command::new(&python).args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"]).arg(requirements),
            "pip install -r tests/python/requirements.txt",
        )?;
        std::fs::write(&stamp, &wanted).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(python)
}

/// Copies the folder `from` to `to`, recursively.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
