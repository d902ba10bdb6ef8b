//! The mutation check: proof that each language's vector suite bites. For
//! every language, a copy of the default schema's bindings is broken on
//! purpose in one generated file (a `roundtrip` that returns its input, an
//! error that names no JSON pointer), and that language's vector suite must
//! fail on it. A mutation whose text no longer occurs exactly once in the
//! generated file is an error, so the check cannot quietly test nothing.
//! `cargo xtask test` runs it after the suites passed on the real bindings,
//! and prints how many vectors each mutant failed.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::test_command::SuiteOutcome;

/// One deliberate bug in one generated file.
struct Mutant {
    language: &'static str,
    name: &'static str,
    /// The file, relative to the bindings folder.
    file: &'static str,
    find: &'static str,
    replace: &'static str,
}

const MUTANTS: &[Mutant] = &[
    Mutant {
        language: "rust",
        name: "roundtrip returns its input",
        file: "rust/src/codec.rs",
        find: "    let decoded: T = decode(json.clone())?;\n",
        replace: "    return Ok(json.clone());\n    let decoded: T = decode(json.clone())?;\n",
    },
    Mutant {
        language: "rust",
        name: "errors name no pointer",
        file: "rust/src/codec.rs",
        find: "located(path, error.into_inner().to_string())",
        replace: "DecodeError { path: ::std::string::String::new(), ..located(path, error.into_inner().to_string()) }",
    },
];

/// One mutant's result: the suite's verdict and its summary line.
pub struct Caught {
    pub language: &'static str,
    pub mutant: &'static str,
    pub summary: String,
}

/// Runs every mutant of the bindings in `bindings` (the default schema's,
/// already tested) and fails if a suite passes on a mutant.
pub fn run(workspace: &Path, bindings: &Path) -> Result<Vec<Caught>> {
    let mut caught = Vec::new();
    for (index, mutant) in MUTANTS.iter().enumerate() {
        let folder = workspace.join("target").join("mutants").join(format!("{index}-{}", mutant.language));
        if folder.exists() {
            std::fs::remove_dir_all(&folder).with_context(|| format!("removing {}", folder.display()))?;
        }
        copy_tree(&bindings.join(mutant.language), &folder.join(mutant.language))?;
        copy_tree(&bindings.join("vectors"), &folder.join("vectors"))?;
        let path = folder.join(mutant.file);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let occurrences = text.matches(mutant.find).count();
        if occurrences != 1 {
            bail!("mutant `{}` ({}): its text occurs {occurrences} times in {}, not once: update the mutant", mutant.name, mutant.language, mutant.file);
        }
        std::fs::write(&path, text.replacen(mutant.find, mutant.replace, 1)).with_context(|| format!("writing {}", path.display()))?;
        let outcome = match mutant.language {
            "rust" => crate::test_rust::vector_suite(workspace, &folder)?,
            other => bail!("no vector suite for the language {other}"),
        };
        let summary = summary_line(mutant.language, &outcome.output);
        if outcome.passed {
            bail!("the {} vector suite passes on the mutant `{}`: it does not test what it claims\n{}", mutant.language, mutant.name, outcome.output);
        }
        eprintln!("mutant {} / {}: caught ({summary})", mutant.language, mutant.name);
        caught.push(Caught { language: mutant.language, mutant: mutant.name, summary });
    }
    Ok(caught)
}

/// The line of a suite's output that counts passed and failed vectors.
fn summary_line(language: &str, output: &str) -> String {
    let marker = match language {
        "rust" => "rust vectors:",
        _ => "",
    };
    output.lines().find(|line| !marker.is_empty() && line.contains(marker)).map_or_else(|| "no summary line".to_owned(), |line| line.trim().to_owned())
}

/// Copies the folder `from` to `to`, recursively, leaving out build output.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    #[ignore]
    fn scratch() {
        super::run(std::path::Path::new("/work/main"), std::path::Path::new("/tmp/g1")).unwrap();
    }
}
