//! Rust's fuzzer: `cargo fuzz` (libFuzzer, with the address and leak
//! sanitizers it builds with by default), pinned ([`CARGO_FUZZ`]) and
//! installed with `cargo install` into `.tools/cargo-fuzz/`, run on the
//! nightly toolchain, which its sanitizers need. The fuzz project is
//! written into `target/fuzz/rust/project/`: the manifest
//! `tests/rust/harness/fuzz.Cargo.toml` (on the default schema's crate) and
//! the fuzz target `tests/rust/fuzz_connection.rs` with its check, the
//! module [`HARNESS`] (which the Rust suite's seed replay runs too), and the
//! test agent it serves, [`SCRIPTED_AGENT`].

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::libfuzzer::{self, Folders};
use super::{Outcome, Run};
use crate::support::tools::{cargo, copy_tree, run_checked};

/// The pinned cargo-fuzz.
const CARGO_FUZZ: (&str, &str) = ("cargo-fuzz", "0.13.2");

/// The fuzz project's manifest; `{bindings}` is the crate's folder.
const MANIFEST: &str = include_str!("../../../tests/rust/harness/fuzz.Cargo.toml");

/// The fuzz target's check, a module folder in `tests/rust/`.
pub const HARNESS: &str = "fuzz_harness";

/// The test agent the check's agent end serves, a module folder in
/// `tests/rust/` beside [`HARNESS`].
pub const SCRIPTED_AGENT: &str = "scripted_agent";

/// The fuzz target's name in the manifest.
const TARGET: &str = "connection";

/// The toolchain the sanitizers need.
const TOOLCHAIN: &str = "nightly";

/// The cargo-fuzz of `.tools/cargo-fuzz/bin`, installed on first use.
fn cargo_fuzz(workspace: &Path) -> Result<PathBuf> {
    let root = workspace.join(".tools").join("cargo-fuzz");
    let program = root.join("bin").join("cargo-fuzz");
    let stamp = root.join("version");
    if !program.is_file() || std::fs::read_to_string(&stamp).ok().as_deref() != Some(CARGO_FUZZ.1) {
        let (name, version) = CARGO_FUZZ;
        run_checked(
            cargo()
                .args(["install", "--locked", "--version", version, "--root"])
                .arg(&root)
                .arg(name),
            &format!("cargo install {name} {version}"),
        )?;
        std::fs::write(&stamp, version).with_context(|| format!("writing {}", stamp.display()))?;
    }
    Ok(program)
}

/// Runs Rust's fuzzer for `run`.
pub fn run(run: &Run) -> Result<Outcome> {
    let program = cargo_fuzz(run.workspace)?;
    let project = run.folder.join("project");
    let targets = project.join("fuzz_targets");
    std::fs::create_dir_all(&targets).with_context(|| format!("creating {}", targets.display()))?;
    let crate_folder = run.bindings.join("rust");
    std::fs::write(
        project.join("Cargo.toml"),
        MANIFEST.replace("{bindings}", &crate_folder.display().to_string()),
    )
    .context("writing the fuzz project's manifest")?;
    std::fs::copy(
        run.workspace.join("tests").join("rust").join("fuzz_connection.rs"),
        targets.join(format!("{TARGET}.rs")),
    )
    .context("copying tests/rust/fuzz_connection.rs")?;
    for module in [HARNESS, SCRIPTED_AGENT] {
        copy_tree(
            &run.workspace.join("tests").join("rust").join(module),
            &targets.join(module),
        )?;
    }
    let folders = Folders::fresh(run)?;
    let mut command = Command::new(&program);
    command
        .args(["fuzz", "run", "--fuzz-dir"])
        .arg(&project)
        .arg(TARGET)
        .arg(&folders.corpus)
        .arg(run.seeds)
        .arg("--")
        .args(libfuzzer::flags(run, &folders))
        // The nightly toolchain, through rustup's proxies, whatever cargo
        // started the xtask.
        .env("RUSTUP_TOOLCHAIN", TOOLCHAIN)
        .env_remove("CARGO")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .current_dir(&project);
    libfuzzer::run_logged(&mut command, "cargo fuzz run", &folders.log, &folders.findings)?;
    libfuzzer::outcome(format!("cargo fuzz {} (libFuzzer, ASan)", CARGO_FUZZ.1), &folders)
}
