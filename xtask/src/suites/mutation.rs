//! The mutation check: proof that each language's vector suite bites. For
//! every language, a copy of the default schema's bindings is broken on
//! purpose in one generated file (a `roundtrip` that returns its input, an
//! error that names no JSON pointer, and the bug classes real agents'
//! messages showed: `null` in any JSON written back as absent, a tag no
//! variant claims refused by the default variant that takes it, a member
//! read by its attribute name), and that language's vector suite must
//! fail on it. Each language's registration lists its mutants
//! ([`crate::languages::LanguageTests::mutants`]). A mutation whose text no longer occurs exactly once in the
//! generated file is an error, so the check cannot quietly test nothing.
//! `cargo xtask test` runs it after the suites passed on the real bindings,
//! and prints how many vectors each mutant failed and the first line of
//! the suite's output that names a failure (the test that caught it, when
//! another test than the vectors did).

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::languages::{LanguageTests, Mutant};
use crate::registry::LANGUAGES;
use crate::support::lanes::{self, Lane, Timings};
use crate::support::tools::copy_tree;

/// Runs every mutant of the bindings in `bindings` (the default schema's,
/// already tested) and fails if a suite passes on a mutant. Each
/// language's mutants run in a lane of their own ([`lanes`]), one after
/// another, beside the other languages'.
pub fn run(workspace: &Path, bindings: &Path, timings: &Timings) -> Result<()> {
    let mut index = 0;
    let mut lanes = Vec::new();
    for language in LANGUAGES {
        let numbered: Vec<(usize, &Mutant)> = language
            .mutants
            .iter()
            .map(|mutant| {
                index += 1;
                (index - 1, mutant)
            })
            .collect();
        if numbered.is_empty() {
            continue;
        }
        lanes.push(Lane {
            name: format!("mutants of {}", language.id()),
            work: Box::new(move || {
                numbered
                    .into_iter()
                    .try_for_each(|(index, mutant)| run_mutant(workspace, bindings, language, index, mutant))
            }),
        });
    }
    lanes::run(lanes, &lanes::logs_folder(workspace, "mutants"), timings)
}

/// Runs the mutant numbered `index` of `language` and fails if its vector
/// suite passes on it.
fn run_mutant(
    workspace: &Path,
    bindings: &Path,
    language: &LanguageTests,
    index: usize,
    mutant: &Mutant,
) -> Result<()> {
    let folder = workspace
        .join("target")
        .join("mutants")
        .join(format!("{index}-{}", language.id()));
    if folder.exists() {
        std::fs::remove_dir_all(&folder).with_context(|| format!("removing {}", folder.display()))?;
    }
    copy_tree(&bindings.join(language.id()), &folder.join(language.id()))?;
    copy_tree(&bindings.join("vectors"), &folder.join("vectors"))?;
    std::fs::copy(bindings.join("negotiation.json"), folder.join("negotiation.json"))
        .context("copying the negotiation cases")?;
    let label = format!("mutant {index}");
    let path = folder.join(mutant.file);
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let occurrences = text.matches(mutant.find).count();
    if occurrences != 1 {
        bail!(
            "mutant `{}` ({}): its text occurs {occurrences} times in {}, not once: update the mutant",
            mutant.name,
            language.id(),
            mutant.file
        );
    }
    std::fs::write(&path, text.replacen(mutant.find, mutant.replace, 1))
        .with_context(|| format!("writing {}", path.display()))?;
    let outcome = (language.vector_suite)(workspace, &folder, &label)?;
    let summary = (language.summary)(&outcome.output).map_or_else(
        || "no summary line".to_owned(),
        |line| line.trim_start_matches("# ").trim().to_owned(),
    );
    if outcome.passed {
        bail!(
            "the {} vector suite passes on the mutant `{}`: it does not test what it claims\n{}",
            language.id(),
            mutant.name,
            outcome.output
        );
    }
    lanes::show(&format!(
        "mutant {} / {}: caught ({summary}); first failure: {}\n",
        language.id(),
        mutant.name,
        first_failure(&outcome.output)
    ));
    Ok(())
}

/// The first line of a suite's output that names a failed test, as the
/// test runners write one (`test x ... FAILED`, `--- FAIL: TestX`, `not ok
/// 3 - x`, `FAILED tests/x.py::test_x`), else the first that names an
/// error; shortened.
fn first_failure(output: &str) -> String {
    const SHOWN: usize = 160;
    let lines = || output.lines().map(str::trim);
    let line = lines()
        .find(|line| {
            line.starts_with("not ok")
                || line.starts_with("--- FAIL")
                || line.starts_with("FAILED ")
                || line.ends_with("FAILED")
        })
        .or_else(|| lines().find(|line| !line.starts_with('#') && line.to_lowercase().contains("error")))
        .unwrap_or("none named");
    match line.char_indices().nth(SHOWN) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_first_failure_is_the_first_line_that_names_one() {
        let output = "# Subtest: an error\nok 1 - a\nnot ok 2 - b refuses null\n--- FAIL: TestC\n";
        assert_eq!(super::first_failure(output), "not ok 2 - b refuses null");
        let pytest = "==== FAILURES ====\n____ test_x ____\nFAILED tests/python/test_x.py::test_x - AssertionError\n";
        assert_eq!(
            super::first_failure(pytest),
            "FAILED tests/python/test_x.py::test_x - AssertionError"
        );
        assert_eq!(
            super::first_failure("test every_vector ... FAILED"),
            "test every_vector ... FAILED"
        );
        assert_eq!(
            super::first_failure("    --- FAIL: TestX (0.01s)"),
            "--- FAIL: TestX (0.01s)"
        );
        assert_eq!(super::first_failure("all good"), "none named");
        assert_eq!(super::first_failure(&"error ".repeat(100)).chars().count(), 161);
    }
}
