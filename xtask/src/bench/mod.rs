//! `cargo xtask bench`: how fast the generated bindings decode and encode
//! realistic ACP traffic next to the official SDKs and the bare JSON
//! round trip of each language, and how long generation takes next to a
//! plain parse of the schema (and, with `--peers`, other generators).
//! Prints a Markdown table, writes the performance page (`--out
//! docs/performance.md`, [`page`]) or JSON with `--out`, and fails when one of
//! our bindings does not re-encode every corpus message exactly. A program,
//! not a test: nothing here asserts a speed. The implementations of a
//! language take turns, run by run, so that a busy machine slows them alike.
//!
//! Everything it installs or builds lives under `target/bench/` (ignored):
//! the corpus ([`corpus`]), the default bindings, the release-built Rust
//! program ([`rust`]), the pinned official SDKs for TypeScript
//! ([`typescript`]), Python ([`python`]) and Go ([`go`], with its program), the generator peers
//! ([`generation`]); a full run also times compiling the generated Rust
//! crate next to the official one ([`compile`]); [`report`] prints and writes the results, and
//! [`targets`] warns of a ratio below its target. [`measure`] holds what
//! they share, and the type of the contenders each language's registration
//! names ([`measure::Contenders`]).

mod compile;
mod corpus;
mod generation;
pub mod go;
pub mod measure;
mod page;
pub mod python;
mod report;
pub mod rust;
mod scale;
mod size;
mod startup;
mod targets;
pub mod typescript;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Result};

use acp_generate::emit::PackageNames;
use acp_schema_source::SourceOptions;

use crate::commands::generate;
use measure::Setup;

/// What to run.
pub struct Options {
    /// A small corpus and few runs, without peers: a few seconds, for `cargo xtask test`.
    pub quick: bool,
    /// Also time the peer generators.
    pub peers: bool,
    /// Where to write the results: the performance page when the name ends
    /// in `.md`, else JSON.
    pub out: Option<PathBuf>,
    /// Only these languages' contenders (their ids), without loading,
    /// generation and scale; empty: everything.
    pub languages: Vec<String>,
}

/// The corpus seed: the same corpus on every machine and every run.
const SEED: u64 = 0xAC9_2026;

/// Writes the default schema's bindings to `target/bench/bindings/` unless
/// the same bindings are there already; returns whether they changed.
fn bindings(folder: &Path) -> Result<bool> {
    let outputs = generate::render(&SourceOptions::default(), &PackageNames::default(), &[], false, false)?;
    let mut hasher = DefaultHasher::new();
    outputs.hash(&mut hasher);
    let stamp = format!("{:016x}\n", hasher.finish());
    let stamp_file = folder.join(".bench-stamp");
    if std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(false);
    }
    generate::write(folder, &outputs)?;
    crate::support::output::write_file(&stamp_file, stamp.as_bytes())?;
    Ok(true)
}

/// Checks the options before any work: `--out` must name a file.
pub fn check(options: &Options) -> Result<()> {
    if let Some(out) = &options.out {
        ensure!(
            !out.is_dir(),
            "--out {}: is a directory; name the JSON file to write",
            out.display()
        );
    }
    Ok(())
}

pub fn run(options: &Options) -> Result<()> {
    check(options)?;
    let workspace = crate::support::tools::workspace_root();
    let folder = workspace.join("target").join("bench");
    let bindings_folder = folder.join("bindings");
    let bindings_changed = bindings(&bindings_folder)?;
    let setup = Setup {
        workspace,
        bindings: bindings_folder,
        folder,
        bindings_changed,
        quick: options.quick,
    };

    let schema = acp_schema_source::load(&SourceOptions::default())?;
    let (size, name) = if setup.quick {
        (300_000, "corpus-quick.tsv")
    } else {
        (10_500_000, "corpus.tsv")
    };
    let corpus_path = setup.folder.join("corpus").join(name);
    let corpus = corpus::build(&schema, SEED, size, &corpus_path)?;
    eprintln!(
        "bench: corpus of {} messages, {} bytes, validated, in {}",
        corpus.messages.len(),
        corpus.bytes,
        corpus_path.display()
    );

    let mut measurements = Vec::new();
    let chosen = |id: &str| options.languages.is_empty() || options.languages.iter().any(|wanted| wanted == id);
    for language in crate::registry::LANGUAGES
        .iter()
        .filter(|language| chosen(language.id()))
    {
        match language.bench {
            Some(contenders) => measurements.extend(contenders(&setup, &corpus_path)?),
            None => language.skipping("benchmark contenders", "the benchmark"),
        }
    }
    let chosen_rust = options.languages.is_empty() || chosen("rust");
    let compile = if chosen_rust && !setup.quick {
        compile::measure(&setup)?
    } else {
        Vec::new()
    };
    let bundles = if options.languages.is_empty() {
        size::measure(&setup)?
    } else {
        Vec::new()
    };
    let (startup, generation, scale) = if options.languages.is_empty() {
        let startup = startup::measure(&setup)?;
        let (xtask, build) = generation::xtask(&setup)?;
        let generation = generation::measure(&setup, (&xtask, build), options.peers)?;
        let scale = scale::measure(&setup, &xtask, if setup.quick { 1 } else { 3 })?;
        (startup, generation, scale)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };

    let results = report::Results {
        quick: setup.quick,
        seed: SEED,
        corpus_messages: corpus.messages.len(),
        corpus_bytes: corpus.bytes,
        measurements,
        compile,
        startup,
        bundles,
        generation,
        scale,
    };
    print!("{}", report::markdown(&results));
    for warning in targets::warnings(&results) {
        eprintln!("{warning}");
    }
    if let Some(out) = &options.out {
        let text = if out.extension().is_some_and(|extension| extension == "md") {
            page::markdown(&results)
        } else {
            report::json(&results)
        };
        crate::support::output::write_file(out, text.as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let inexact: Vec<String> = results
        .measurements
        .iter()
        .filter(|measurement| measurement.role == "ours" && !measurement.exact())
        .map(|measurement| {
            format!(
                "{}: {}",
                measurement.language,
                measurement.first_difference.as_deref().unwrap_or("?")
            )
        })
        .collect();
    if !inexact.is_empty() {
        bail!(
            "our bindings do not re-encode every corpus message exactly: {}",
            inexact.join("; ")
        );
    }
    // A peer may fail (it is reported as such); our own runs may not.
    let ours = results
        .generation
        .iter()
        .filter(|timing| timing.tool.starts_with("xtask"));
    let scaled = results.scale.iter().map(|point| &point.timing);
    let loaded = results.startup.iter().filter_map(|startup| startup.timings.first());
    let compiled = results.compile.iter().filter(|timing| timing.output == "acp-bindings");
    let failed: Vec<String> = ours
        .chain(scaled)
        .chain(loaded)
        .chain(compiled)
        .filter_map(|timing| {
            timing
                .failure
                .as_ref()
                .map(|failure| format!("{}: {failure}", timing.tool))
        })
        .collect();
    if !failed.is_empty() {
        bail!("our own timed runs failed: {}", failed.join("; "));
    }
    Ok(())
}
