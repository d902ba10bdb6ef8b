//! Coverage-guided fuzzing of the connection's receive path (`cargo xtask
//! fuzz`, docs/fuzzing.md): the fuzz target of a `cargo fuzz` project on
//! the default schema's crate (`tests/rust/harness/fuzz.Cargo.toml`). Each
//! input goes through the check of `fuzz_harness` (`tests/rust/fuzz_harness/`,
//! copied beside it), which panics, and libFuzzer keeps the input, when an
//! end crashes, hangs, grows without bound or loses a line.

#![no_main]

mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|input: &[u8]| fuzz_harness::run(input));
