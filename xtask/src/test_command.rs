//! `cargo xtask test`: every test of every language. It fetches what the
//! tests need into ignored folders, then runs the suites; the first failing
//! suite fails the command.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::upstream;

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

pub fn run() -> Result<()> {
    let workspace = workspace_root();
    let schemas = upstream::fetch(&workspace)?;
    eprintln!("upstream release schemas in {}", schemas.display());
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["test", "--workspace", "--", "--include-ignored"])
        .env("ACP_UPSTREAM_SCHEMAS", &schemas)
        .current_dir(&workspace)
        .status()
        .context("running cargo test")?;
    if !status.success() {
        bail!("cargo test failed");
    }
    Ok(())
}
