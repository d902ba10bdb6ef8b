//! The fuzz harness's check (`fuzz_harness::run`, the body of the fuzz
//! target `tests/rust/fuzz_connection.rs`) on every fuzz seed, without
//! libFuzzer and without mutation: each file of the folder `ACP_FUZZ_SEEDS`
//! names (written by `cargo xtask test` from the hostile wire table and the
//! real captures) must leave both ends neither crashed, hung, grown without
//! bound nor with a line unanswered and unreported. A failure names each
//! failing seed's file with what the check said.

mod fuzz_harness;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

/// The seed files, by name.
fn seeds() -> Vec<PathBuf> {
    let folder = std::env::var_os("ACP_FUZZ_SEEDS")
        .expect("set ACP_FUZZ_SEEDS to the folder of fuzz seeds `cargo xtask test` writes");
    let mut seeds: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("reading the seeds in {}: {error}", folder.to_string_lossy()))
        .map(|entry| entry.expect("reading an entry of the seeds' folder").path())
        .filter(|path| path.is_file())
        .collect();
    seeds.sort();
    assert!(!seeds.is_empty(), "no fuzz seeds in {}", folder.to_string_lossy());
    seeds
}

#[test]
fn the_fuzz_harness_passes_on_every_seed() {
    let seeds = seeds();
    let failed: Vec<String> = seeds
        .iter()
        .filter_map(|seed| {
            let input = std::fs::read(seed).unwrap_or_else(|error| panic!("reading {}: {error}", seed.display()));
            let panic = catch_unwind(AssertUnwindSafe(|| fuzz_harness::run(&input))).err()?;
            let said = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(a panic without a message)");
            Some(format!("{}: {said}", seed.display()))
        })
        .collect();
    assert!(
        failed.is_empty(),
        "the fuzz harness failed on {} of {} seeds:\n{}",
        failed.len(),
        seeds.len(),
        failed.join("\n")
    );
    eprintln!("rust: the fuzz harness passed on all {} seeds", seeds.len());
}
