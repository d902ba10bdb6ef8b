//! The pinned `github.com/coder/acp-go-sdk`, the Go SDK our Go bindings
//! are compared with: its pin and sums are those of the Go bench program's
//! module (`xtask/src/bench/programs/go/go.mod` and `go.sum`), which the
//! bench ([`crate::bench::go`]), the interop matrix
//! ([`crate::interop::build::coder_go`]) and the Go suite's usage twin
//! ([`crate::suites::go`]) all build on.

use std::path::Path;

use anyhow::{Context, Result};

use crate::support::output::write_file;

/// The module file that pins the SDK.
const MODULE: &str = include_str!("../bench/programs/go/go.mod");
/// The sums of the pinned modules.
pub const SUMS: &str = include_str!("../bench/programs/go/go.sum");

/// The SDK's module path.
pub const SDK: &str = "github.com/coder/acp-go-sdk";

/// The SDK's version, as the pinning `go.mod` gives it.
pub fn sdk_version() -> Result<&'static str> {
    MODULE
        .lines()
        .find_map(|line| line.trim().strip_prefix(SDK)?.trim().strip_prefix('v'))
        .with_context(|| format!("xtask/src/bench/programs/go/go.mod pins no {SDK}"))
}

/// Writes, in `folder`, the `go.mod` of a Go module named `name` that
/// requires only the SDK at its pin, and its `go.sum`.
pub fn sdk_module(folder: &Path, name: &str) -> Result<()> {
    let module = format!("module {name}\n\ngo 1.26\n\nrequire {SDK} v{}\n", sdk_version()?);
    write_file(&folder.join("go.mod"), module.as_bytes())?;
    write_file(&folder.join("go.sum"), SUMS.as_bytes())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_pin_is_read_from_the_bench_module() {
        assert_eq!(super::sdk_version().unwrap(), "0.13.0");
    }
}
