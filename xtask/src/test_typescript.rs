//! The typescript bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: install the locked compiler, build
//! the package, check it under the strict compiler options with no output,
//! compile the type-level checks against it, then run every shared vector
//! through it with Node's test runner (`tests/typescript/`).

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use crate::test_command::run_checked;

/// The type-level checks' compiler settings: the package's own, without output.
const TYPECHECK_CONFIG: &str = r#"{
  "extends": "../typescript/tsconfig.json",
  "compilerOptions": { "noEmit": true, "rootDir": ".." },
  "include": ["typecheck.ts"]
}
"#;

/// Runs the typescript suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `typescript/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let package = bindings.join("typescript");
    ensure!(package.join("package.json").is_file(), "{label}: no TypeScript package in {}", package.display());
    let tests = workspace.join("tests").join("typescript");
    run_checked(
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&package),
        &format!("{label}: npm ci in {}", package.display()),
    )?;
    run_checked(Command::new("npm").args(["run", "build"]).current_dir(&package), &format!("{label}: npm run build (tsc)"))?;
    run_checked(
        Command::new("npm").args(["exec", "--no", "--", "tsc", "-p", "tsconfig.json", "--noEmit", "--strict"]).current_dir(&package),
        &format!("{label}: tsc --noEmit --strict"),
    )?;
    let typecheck = bindings.join("typecheck");
    std::fs::create_dir_all(&typecheck).with_context(|| format!("creating {}", typecheck.display()))?;
    std::fs::copy(tests.join("typecheck.ts"), typecheck.join("typecheck.ts")).context("copying the type-level checks")?;
    std::fs::write(typecheck.join("tsconfig.json"), TYPECHECK_CONFIG).context("writing the type-level checks' tsconfig.json")?;
    run_checked(
        Command::new("npm").args(["exec", "--no", "--", "tsc", "-p"]).arg(typecheck.join("tsconfig.json")).current_dir(&package),
        &format!("{label}: tsc on the type-level checks"),
    )?;
    let suite = tests.join("vectors.test.mjs");
    run_checked(
        Command::new("node").arg("--test").arg(&suite).env("ACP_BINDINGS", bindings).current_dir(workspace),
        &format!("{label}: node --test {}", suite.display()),
    )
}
