//! `cargo xtask fuzz --minutes N [--lang L]`: coverage-guided fuzzing of
//! each language's connection ends on the receive path
//! ([docs/fuzzing.md](../../../docs/fuzzing.md)). It generates the default
//! schema's bindings into `target/fuzz/bindings/`, writes the seeds
//! ([`seeds`]) into `target/fuzz/seeds/`, then runs each language's fuzzer
//! for N minutes, one language after the other: the one its registration
//! names ([`crate::languages::LanguageTests::fuzz`], a [`Fuzzer`]), each
//! working in `target/fuzz/<language>/` (its corpus, its findings, its
//! log). It prints a table of executions, coverage (each fuzzer's own
//! measure) and findings per language, and fails when a fuzzer found an
//! input that crashed or hung an end, grew it without bound or went
//! unanswered and unreported (what each harness checks), naming the
//! input's file. The fuzzing is not part of `cargo xtask test` nor of CI,
//! whose time is short; the hostile wire table, where each finding ends
//! up, runs there, and so does each harness's check, once per seed and
//! without a fuzzer ([`seeds::replay_folder`]), so that no harness rots.
//!
//! [`command`] is the command; this module holds what a fuzzer is given
//! and gives back, which each registration's fuzzer names without
//! importing the list of languages back.
//!
//! The fuzzers built on libFuzzer (Rust's `cargo fuzz`, Python's atheris,
//! TypeScript's Jazzer.js) share [`libfuzzer`]: their flags and the
//! reading of their statistics.

pub mod command;
mod compat;
pub mod go;
pub mod libfuzzer;
pub mod python;
pub mod rust;
pub mod seeds;
pub mod typescript;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// What one language's fuzzer is given.
pub struct Run<'a> {
    pub workspace: &'a Path,
    /// The default schema's bindings (`rust/`, `typescript/`, `python/`, `go/`).
    pub bindings: &'a Path,
    /// The seeds, one input a file, for the fuzzer to read (not to write).
    pub seeds: &'a Path,
    /// The language's own folder: its corpus, findings and log.
    pub folder: &'a Path,
    /// How long to fuzz.
    pub seconds: u64,
}

/// Runs a language's fuzzer on its connection's receive path.
pub type Fuzzer = fn(&Run) -> Result<Outcome>;

/// What a fuzzer did.
pub struct Outcome {
    /// The fuzzer, with its version (`cargo fuzz 0.13.2 (libFuzzer)`).
    pub fuzzer: String,
    pub executions: u64,
    /// Its own measure of coverage (`cov: 2103, ft: 8817`).
    pub coverage: String,
    /// The inputs in its corpus at the end (seeds and what it kept).
    pub corpus: u64,
    /// The inputs that failed the harness.
    pub findings: Vec<PathBuf>,
    /// Everything the fuzzer printed.
    pub log: PathBuf,
}

/// The files in `folder` (none when it does not exist), sorted.
pub fn files(folder: &Path) -> Result<Vec<PathBuf>> {
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|path| path.is_file());
    files.sort();
    Ok(files)
}

/// Empties `folder`, creating it when missing.
pub fn fresh(folder: &Path) -> Result<()> {
    if folder.exists() {
        std::fs::remove_dir_all(folder).with_context(|| format!("removing {}", folder.display()))?;
    }
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))
}
