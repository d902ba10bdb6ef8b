//! What the test and bench commands share: the workspace root, running a
//! command and capturing how it ended, `cargo` as the running cargo names
//! itself, this xtask as a program to start again, `go` and the pinned
//! staticcheck, Python virtual environments, and copying a folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask sits in the workspace")
        .to_path_buf()
}

/// This xtask's executable, as a path that starts it even after a build
/// replaced the file it was started from (`cargo xtask test` rebuilds the
/// xtask binary with the test profile's features while it runs): on Linux
/// the kernel's link to this process's own image, elsewhere the file.
pub fn running_xtask() -> Result<PathBuf> {
    let own = PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    if own.exists() {
        return Ok(own);
    }
    std::env::current_exe().context("locating the running xtask")
}

/// How a test suite ended, and what it printed (stdout, then stderr).
pub struct SuiteOutcome {
    pub passed: bool,
    pub output: String,
}

impl SuiteOutcome {
    /// Runs `command` (described as `what`) to the end, capturing its output.
    pub fn of(command: &mut Command, what: &str) -> Result<SuiteOutcome> {
        let output = command.output().with_context(|| format!("starting {what}"))?;
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        Ok(SuiteOutcome {
            passed: output.status.success(),
            output: text,
        })
    }
}

/// Runs `command`, failing with its description when it fails. In a lane
/// ([`super::lanes`]) its output goes to the lane's log.
pub fn run_checked(command: &mut Command, what: &str) -> Result<()> {
    if let Some((stdout, stderr)) = super::lanes::log_handles().context("opening the lane's log")? {
        command.stdout(stdout).stderr(stderr);
    }
    let status = command.status().with_context(|| format!("starting {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// `cargo`, as the running cargo names itself.
pub fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// `go` with the local toolchain (`GOTOOLCHAIN=local`), outside any
/// workspace, in `module`.
pub fn go(module: &Path) -> Command {
    let mut command = Command::new("go");
    command
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .current_dir(module);
    command
}

/// Where a module that uses a Go test agent (`tests/go/scripted_agent/` on
/// protocol v1, `tests/go/scripted_agent_v2/` on v2) holds it: the
/// generated module for its connection tests, the interop programs' module
/// and the bench's.
pub const GO_TEST_AGENT_PACKAGE: &str = "internal/scriptedagent";

/// Copies the test agent `tests/go/<agent>/` into `module` as its package
/// [`GO_TEST_AGENT_PACKAGE`].
pub fn copy_go_test_agent(workspace: &Path, agent: &str, module: &Path) -> Result<()> {
    copy_tree(
        &workspace.join("tests").join("go").join(agent),
        &module.join(GO_TEST_AGENT_PACKAGE),
    )
}

/// The pinned staticcheck, installed with `go install`.
const STATICCHECK: &str = "honnef.co/go/tools/cmd/staticcheck@v0.8.2";

/// The staticcheck of `.tools/go/bin`, installed on first use.
pub fn staticcheck(workspace: &Path) -> Result<PathBuf> {
    let bin = workspace.join(".tools").join("go").join("bin");
    let program = bin.join("staticcheck");
    if !program.is_file() {
        run_checked(
            go(workspace).env("GOBIN", &bin).args(["install", STATICCHECK]),
            &format!("go install {STATICCHECK}"),
        )?;
    }
    Ok(program)
}

/// The interpreter of the virtual environment `venv` in `folder` (the
/// tests' is `.tools/venv`), created on first use; the pinned requirements
/// are installed again whenever the file changes.
pub fn virtual_environment(folder: &Path, requirements: &Path) -> Result<PathBuf> {
    let venv = folder.join("venv");
    let python = venv.join("bin").join("python");
    if !python.is_file() {
        run_checked(
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
            &format!("python3 -m venv {}", venv.display()),
        )?;
    }
    let wanted =
        std::fs::read_to_string(requirements).with_context(|| format!("reading {}", requirements.display()))?;
    let stamp = venv.join("installed-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        run_checked(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(requirements),
            &format!("pip install -r {}", requirements.display()),
        )?;
        std::fs::write(&stamp, &wanted).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(python)
}

/// Copies the folder `from` to `to`, recursively, leaving out installed
/// dependencies (`node_modules`).
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_name() == "node_modules" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}
