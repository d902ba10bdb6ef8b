//! TypeScript's fuzzer: Jazzer.js (libFuzzer for Node, its version pinned
//! in `tests/typescript/fuzz/package-lock.json`, installed there with
//! `npm ci`), on the harness `tests/typescript/fuzz/connection.fuzz.mjs`,
//! which loads the default schema's package as built in
//! `target/fuzz/bindings/typescript/dist` (built here with the package's
//! locked compiler); Jazzer.js instruments those files as they load. Where
//! the C library is older than its prebuilt addon wants, [`super::compat`]
//! makes it load.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use super::libfuzzer::{self, Folders};
use super::{compat, Outcome, Run};
use crate::support::tools::run_checked;

/// The files under the package that Jazzer.js instruments.
const INSTRUMENTED: &str = "typescript/dist/";

/// The per-input time limit Jazzer.js enforces itself, in milliseconds.
const TIMEOUT_MS: u64 = 30_000;

/// Runs TypeScript's fuzzer for `run`.
pub fn run(run: &Run) -> Result<Outcome> {
    let tools = run.workspace.join("tests").join("typescript").join("fuzz");
    let jazzer = tools.join("node_modules").join(".bin").join("jazzer");
    if !jazzer.is_file() {
        run_checked(
            Command::new("npm")
                .args(["ci", "--silent", "--no-audit", "--no-fund"])
                .current_dir(&tools),
            "npm ci in tests/typescript/fuzz",
        )?;
    }
    let addon = tools
        .join("node_modules")
        .join("@jazzer.js")
        .join("fuzzer")
        .join("prebuilds")
        .join("fuzzer-linux-x64.node");
    let preload = compat::prepare(&addon, &tools.join("glibc-compat.c"), run.folder)?;
    build(&run.bindings.join("typescript"))?;
    let folders = Folders::fresh(run)?;
    let mut command = Command::new(&jazzer);
    command
        .arg(tools.join("connection.fuzz.mjs"))
        .arg(&folders.corpus)
        .arg(run.seeds)
        .args(["--includes", INSTRUMENTED])
        .arg(format!("--timeout={TIMEOUT_MS}"))
        .arg("--")
        .args(libfuzzer::flags(run, &folders))
        .env("ACP_BINDINGS", run.bindings)
        .current_dir(run.folder);
    if let Some(library) = &preload {
        command.env("LD_PRELOAD", library);
    }
    libfuzzer::run_logged(&mut command, "jazzer", &folders.log, &folders.findings)?;
    let version = jazzer_version(&tools)?;
    libfuzzer::outcome(format!("Jazzer.js {version} (libFuzzer)"), &folders)
}

/// Builds the package in `package` with its locked compiler.
fn build(package: &Path) -> Result<()> {
    run_checked(
        Command::new("npm")
            .args(["ci", "--silent", "--no-audit", "--no-fund"])
            .current_dir(package),
        "npm ci in the TypeScript package",
    )?;
    run_checked(
        Command::new("npm")
            .args(["run", "--silent", "build"])
            .current_dir(package),
        "npm run build (tsc) in the TypeScript package",
    )
}

/// The installed Jazzer.js's version.
fn jazzer_version(tools: &Path) -> Result<String> {
    let manifest = tools
        .join("node_modules")
        .join("@jazzer.js")
        .join("core")
        .join("package.json");
    let text = std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    let manifest: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("reading {}", manifest.display()))?;
    Ok(manifest["version"].as_str().unwrap_or("?").to_owned())
}
