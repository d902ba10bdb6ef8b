//! The command itself: the default schema's bindings and the seeds
//! written, then each registered language's fuzzer ([`super::Fuzzer`])
//! run in turn, and the table of what they did.

use anyhow::{bail, Context, Result};

use acp_generate::emit::PackageNames;
use acp_schema_source::SourceOptions;

use super::{seeds, Outcome, Run};
use crate::commands::generate;
use crate::registry::LANGUAGES;
use crate::support::tools::workspace_root;

/// What to run.
pub struct Options {
    /// How long each language's fuzzer runs.
    pub minutes: u64,
    /// Only these languages, by id; all when empty.
    pub languages: Vec<String>,
}

/// Runs what `options` asks for.
pub fn run(options: &Options) -> Result<()> {
    if options.minutes == 0 {
        bail!("--minutes 0: give each fuzzer at least a minute");
    }
    let workspace = workspace_root();
    let root = workspace.join("target").join("fuzz");
    let bindings = root.join("bindings");
    let outputs = generate::render(&SourceOptions::default(), &PackageNames::default(), &[], false, false)
        .context("generating the default schema's bindings")?;
    generate::write(&bindings, &outputs)?;
    let seeds = root.join("seeds");
    let count = seeds::write(&workspace, &seeds)?;
    eprintln!("fuzz: {count} seeds in {}", seeds.display());
    let mut rows = Vec::new();
    for language in LANGUAGES {
        if !options.languages.is_empty() && !options.languages.iter().any(|id| id == language.id()) {
            continue;
        }
        let Some(fuzzer) = language.fuzz else {
            language.skipping("fuzz target", "cargo xtask fuzz");
            continue;
        };
        let folder = root.join(language.id());
        std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
        eprintln!(
            "== fuzzing {}'s connection for {} minute(s), in {}",
            language.name(),
            options.minutes,
            folder.display()
        );
        let outcome = fuzzer(&Run {
            workspace: &workspace,
            bindings: &bindings,
            seeds: &seeds,
            folder: &folder,
            seconds: options.minutes * 60,
        })
        .with_context(|| format!("fuzzing {}", language.name()))?;
        rows.push((language.name(), outcome));
    }
    print!("{}", table(options.minutes, &rows));
    let findings: Vec<String> = rows
        .iter()
        .flat_map(|(name, outcome)| {
            outcome
                .findings
                .iter()
                .map(move |path| format!("{name}: {} (log: {})", path.display(), outcome.log.display()))
        })
        .collect();
    if !findings.is_empty() {
        bail!(
            "the fuzzers found {} failing input(s); make each a case of tests/hostile-wire.json once fixed:\n{}",
            findings.len(),
            findings.join("\n")
        );
    }
    Ok(())
}

/// The Markdown table of what each fuzzer did.
fn table(minutes: u64, rows: &[(&str, Outcome)]) -> String {
    let mut text = format!(
        "\n{minutes} minute(s) per language\n\n| language | fuzzer | executions | coverage | corpus | findings |\n| --- | --- | ---: | --- | ---: | ---: |\n"
    );
    for (name, outcome) in rows {
        text.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} |\n",
            outcome.fuzzer,
            outcome.executions,
            outcome.coverage,
            outcome.corpus,
            outcome.findings.len()
        ));
    }
    text
}
