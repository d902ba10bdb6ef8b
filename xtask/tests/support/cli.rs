//! What the command-line tests share: running the built `xtask`, a fresh
//! scratch folder per test ([`scratch`]), and its standard error as text.

use std::process::{Command, Output};

#[path = "scratch.rs"]
mod scratch_folder;
pub use scratch_folder::scratch;

/// Runs the built `xtask` with `arguments`.
pub fn xtask(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(arguments)
        .output()
        .expect("xtask runs")
}

/// The standard error of `output`.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
