//! Checks of the packaged artifacts, run by `cargo xtask test`.
