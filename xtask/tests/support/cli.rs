//! What the command-line tests share: running the built `xtask`, a fresh
//! scratch folder per test, and its standard error as text.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the built `xtask` with `arguments`.
pub fn xtask(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(arguments)
        .output()
        .expect("xtask runs")
}

/// An empty folder of its own for the test `name` of this process.
pub fn scratch(name: &str) -> PathBuf {
    let folder = std::env::temp_dir().join(format!(
        "acp-xtask-{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    folder
}

/// The standard error of `output`.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
