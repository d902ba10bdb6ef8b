//! What a language is to the xtask: the shape of one language's
//! registration. A [`LanguageTests`] value, declared beside the language's
//! bindings suite (`suites/<language>.rs`), names everything the xtask does
//! with that language (its suite, its vector suite and the [`Mutant`]s it
//! must catch, its step of the chain, its [`Usage`] programs, our interop
//! programs, its benchmark contenders, its package build and each
//! [`Install`] the package check makes) next to the generator's registration
//! ([`acp_generate::emit::Language`]). The list of them is
//! [`crate::registry`]'s; this module holds only the types, so that the
//! registrations import from here without importing the list back.
//!
//! A language may not have everything at first: its usage programs, interop
//! programs, benchmark contenders and package build are `Option`s and its installs
//! may be empty, and every command that reads one of them says, loudly,
//! which language it skips and why ([`LanguageTests::skipping`]), so
//! nothing is dropped in silence.

use std::path::{Path, PathBuf};

use anyhow::Result;

use acp_generate::emit::{Language, PackageNames};

use crate::support::tools::SuiteOutcome;

/// One language's registration on the xtask side.
pub struct LanguageTests {
    /// The generator's registration: id (the bindings folder), name, emitter.
    pub generated: &'static Language,
    /// Its suite on one schema's bindings: `(workspace, bindings, label,
    /// seeds)`, where `seeds`, on the schema the fuzz harnesses are written
    /// on, is the folder of fuzz seeds ([`crate::fuzz::seeds`]) whose every
    /// file its fuzz harness's check must pass.
    pub suite: fn(&Path, &Path, &str, Option<&Path>) -> Result<()>,
    /// Its vector suite alone, for the mutants: `(workspace, bindings, label)`.
    pub vector_suite: fn(&Path, &Path, &str) -> Result<SuiteOutcome>,
    /// The line of the vector suite's output that counts its tests.
    pub summary: fn(&str) -> Option<&str>,
    /// The deliberate bugs its vector suite must catch ([`crate::suites::mutation`]).
    pub mutants: &'static [Mutant],
    /// Its step of the chain: the command before `in.jsonl out.jsonl`, given
    /// `(workspace, bindings)` ([`crate::suites::chain`]).
    pub chain_step: fn(&Path, &Path) -> (PathBuf, Vec<PathBuf>),
    /// Whether it reads every number as a double, so that the chain compares
    /// its numbers as doubles and passes on what it cannot hold.
    pub numbers_as_doubles: bool,
    /// Whether its suite writes the negotiated views that
    /// [`crate::suites::negotiation`] compares; false while the language
    /// has no negotiation helpers.
    pub negotiates: bool,
    /// Its usage program and the same program written with the official
    /// SDK of the language, which its suite builds and runs and
    /// `suites/usage_size.rs` compares by size; none while it has none.
    pub usage: Option<Usage>,
    /// Builds our client, agent and full-surface agent of `tests/interop/`
    /// ([`crate::interop::our_programs`]); none while the language has none.
    pub interop: Option<crate::interop::our_programs::Build>,
    /// Its contenders in the benchmark ([`crate::bench`]); none while it has none.
    pub bench: Option<crate::bench::measure::Contenders>,
    /// Builds its package's artifacts ([`crate::commands::package`]):
    /// `(package folder, names, version, artifacts folder)`; none while it
    /// has no package build.
    pub package: Option<PackageBuild>,
    /// How [`crate::commands::package::check`] installs and uses its artifacts
    /// ([`crate::commands::package::install`]); empty while it has none.
    pub installs: &'static [Install],
    /// Fuzzes its connection's receive path ([`crate::fuzz`]); none while
    /// it has no fuzz target.
    pub fuzz: Option<crate::fuzz::Fuzzer>,
}

/// Builds a language's package artifacts: `(package folder, names,
/// version, artifacts folder)`.
pub type PackageBuild = fn(&Path, &PackageNames, &str, &Path) -> Result<Vec<PathBuf>>;

/// One artifact of the language's package, installed and used by the
/// package check.
pub struct Install {
    /// What the check calls it (`python wheel`).
    pub what: &'static str,
    /// How the artifact's file name ends (`.whl`).
    pub suffix: &'static str,
    /// The folder it is installed in, under the check's scratch folder;
    /// none: that folder itself.
    pub folder: Option<&'static str>,
    /// Installs the artifact and runs the usage example against it:
    /// `(artifact, names, version, folder)`; gives what the example printed.
    pub run: fn(&Path, &PackageNames, &str, &Path) -> Result<String>,
}

/// A language's usage program (an agent and a client, as a programmer
/// would write them on our bindings) and its twin, the same program
/// written with the language's official SDK; both paths are relative to
/// the language's tests (`tests/<id>/`).
pub struct Usage {
    pub ours: &'static str,
    pub official: &'static str,
    /// Why ours may take more lines of code than the twin, a reviewed
    /// decision; none: it may not.
    pub longer: Option<&'static str>,
}

/// One deliberate bug in one generated file of the language's package.
pub struct Mutant {
    pub name: &'static str,
    /// The file, relative to the bindings folder.
    pub file: &'static str,
    pub find: &'static str,
    pub replace: &'static str,
}

impl LanguageTests {
    /// The name `--lang` takes and the bindings folder (`rust`).
    pub fn id(&self) -> &'static str {
        self.generated.id
    }

    /// The name people call it by (`Rust`).
    pub fn name(&self) -> &'static str {
        self.generated.name
    }

    /// Says on stderr that `what` leaves this language out, and why: it
    /// has no `missing` yet (`Go: no package build yet, skipped by cargo
    /// xtask package`).
    pub fn skipping(&self, missing: &str, what: &str) {
        eprintln!("{}: no {missing} yet, skipped by {what}", self.name());
    }
}
