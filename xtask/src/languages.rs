//! What a language is to the xtask: one [`LanguageTests`] value per
//! language, declared beside its bindings suite (`suites/<language>.rs`),
//! names everything the xtask does with that language (its suite, its
//! vector suite and the mutants it must catch, its step of the chain, our
//! interop programs, its benchmark contenders, its package build and the
//! check of its installed package) next to the generator's registration
//! ([`acp_codegen::emit::Language`]). [`LANGUAGES`] lists them in the
//! generator's order, one line each; every list of languages of the xtask
//! derives from it.

use std::path::{Path, PathBuf};

use anyhow::Result;

use acp_codegen::emit::{Language, PackageNames};

use crate::support::tools::SuiteOutcome;

/// Every language the xtask tests, in [`acp_codegen::emit::LANGUAGES`] order.
pub const LANGUAGES: &[&LanguageTests] = &[
    &crate::suites::rust::LANGUAGE,
    &crate::suites::typescript::LANGUAGE,
    &crate::suites::python::LANGUAGE,
];

/// The language whose id (`--lang`) is `id`.
pub fn language(id: &str) -> Option<&'static LanguageTests> {
    LANGUAGES.iter().copied().find(|language| language.id() == id)
}

/// Every language by name, as prose lists them (`Rust, TypeScript and Python`).
pub fn names() -> String {
    let names: Vec<&str> = LANGUAGES.iter().map(|language| language.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// One language's registration on the xtask side.
pub struct LanguageTests {
    /// The generator's registration: id (the bindings folder), name, emitter.
    pub generated: &'static Language,
    /// Its suite on one schema's bindings: `(workspace, bindings, label)`.
    pub suite: fn(&Path, &Path, &str) -> Result<()>,
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
    /// Builds our client and agent of `tests/interop/` ([`crate::interop::ours`]).
    pub interop: crate::interop::ours::Build,
    /// Its contenders in the benchmark ([`crate::bench`]).
    pub bench: crate::bench::Contenders,
    /// Builds its package's artifacts ([`crate::commands::package`]):
    /// `(package folder, names, version, artifacts folder)`.
    pub package: fn(&Path, &PackageNames, &str, &Path) -> Result<Vec<PathBuf>>,
    /// How [`crate::commands::package::check`] installs and uses its artifacts.
    pub installs: &'static [Install],
}

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
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_generated_language_is_tested_in_the_same_order() {
        let tested: Vec<&str> = super::LANGUAGES.iter().map(|language| language.id()).collect();
        assert_eq!(tested, acp_codegen::emit::ids());
    }
}
