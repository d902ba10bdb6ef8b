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
//! ([`typescript`]) and Python ([`python`]), the generator peers
//! ([`generation`]); [`report`] prints and writes the results.

pub(crate) mod corpus;
mod generation;
mod page;
mod python;
mod report;
mod rust;
mod scale;
mod startup;
mod typescript;

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use acp_codegen::emit::PackageNames;
use acp_schema_source::SourceOptions;

use crate::generate;

/// What to run.
pub struct Options {
    /// A small corpus and few runs, without peers: a few seconds, for `cargo xtask test`.
    pub quick: bool,
    /// Also time the peer generators.
    pub peers: bool,
    /// Where to write the results: the performance page when the name ends
    /// in `.md`, else JSON.
    pub out: Option<PathBuf>,
}

/// The corpus seed: the same corpus on every machine and every run.
const SEED: u64 = 0xAC9_2026;

/// Where the benchmark works, and in which mode.
pub struct Setup {
    pub workspace: PathBuf,
    /// `target/bench/`.
    pub folder: PathBuf,
    /// The default schema's bindings, as `generate` writes them.
    pub bindings: PathBuf,
    /// Whether the bindings changed since the last run (builds must redo).
    pub bindings_changed: bool,
    pub quick: bool,
}

impl Setup {
    /// Timed runs per measurement (the median is reported).
    pub fn runs(&self) -> usize {
        if self.quick {
            2
        } else {
            5
        }
    }
}

/// One implementation to measure: its role, what it is, and the command
/// that runs its decode-encode program for a number of timed runs.
pub struct Contender {
    pub role: &'static str,
    pub label: String,
    pub command: Box<dyn Fn(usize) -> Command>,
}

/// Measures `contenders` in rounds: each round runs every one of them once,
/// in a fresh process, for one timed run, so that on a busy machine each
/// of them meets the same load and their ratios hold. The median is over
/// the rounds; peak memory is the largest any of its processes reached.
pub fn measure_interleaved(language: &'static str, setup: &Setup, contenders: &[Contender]) -> Result<Vec<Measurement>> {
    let mut measurements: Vec<Option<Measurement>> = contenders.iter().map(|_| None).collect();
    for round in 0..setup.runs() {
        for (contender, slot) in contenders.iter().zip(measurements.iter_mut()) {
            eprintln!("bench: {language} {} (round {} of {})", contender.role, round + 1, setup.runs());
            let what = format!("the {language} bench program ({})", contender.role);
            let report = run_program(&mut (contender.command)(1), &what)?;
            let measured = Measurement::from_report(language, contender.role, contender.label.clone(), &report)?;
            match slot {
                None => *slot = Some(measured),
                Some(earlier) => {
                    earlier.seconds.extend(measured.seconds);
                    earlier.peak_kib = earlier.peak_kib.max(measured.peak_kib);
                    ensure!(
                        (earlier.failures, earlier.differ) == (measured.failures, measured.differ),
                        "{what} counted different failures from one run to the next"
                    );
                }
            }
        }
    }
    Ok(measurements.into_iter().flatten().collect())
}

/// One decode + encode measurement: an implementation on the whole corpus.
pub struct Measurement {
    pub language: &'static str,
    /// `ours`, `official` or `floor`.
    pub role: &'static str,
    /// What was measured, with its version.
    pub label: String,
    pub messages: u64,
    pub bytes: u64,
    pub seconds: Vec<f64>,
    /// Messages that did not decode.
    pub failures: u64,
    /// Messages whose re-encoding differs from the input.
    pub differ: u64,
    pub first_difference: Option<String>,
    /// What a message that went through rightly is (`equal`: decoded and
    /// re-encoded to its input; `handled`: delivered to the handler).
    pub outcome: String,
    /// Peak resident memory of the measuring process, KiB.
    pub peak_kib: Option<u64>,
}

impl Measurement {
    /// Reads the JSON object a decode-encode program prints.
    fn from_report(language: &'static str, role: &'static str, label: String, report: &Value) -> Result<Measurement> {
        let count = |key: &str| report[key].as_u64().with_context(|| format!("the {language} {role} program reported no `{key}`"));
        let seconds: Vec<f64> = report["seconds"].as_array().map(|runs| runs.iter().filter_map(Value::as_f64).collect()).unwrap_or_default();
        ensure!(!seconds.is_empty(), "the {language} {role} program reported no timed run");
        Ok(Measurement {
            language,
            role,
            label,
            messages: count("messages")?,
            bytes: count("bytes")?,
            seconds,
            failures: count("failures")?,
            differ: count("differ")?,
            first_difference: report["first_difference"].as_str().map(str::to_owned),
            outcome: report["outcome"].as_str().unwrap_or("equal").to_owned(),
            peak_kib: report["peak_kib"].as_u64(),
        })
    }

    pub fn median(&self) -> f64 {
        median(&self.seconds)
    }

    pub fn megabytes_per_second(&self) -> f64 {
        self.bytes as f64 / 1e6 / self.median()
    }

    pub fn messages_per_second(&self) -> f64 {
        self.messages as f64 / self.median()
    }

    /// Every message decoded and re-encoded equal to its input.
    pub fn exact(&self) -> bool {
        self.failures == 0 && self.differ == 0
    }
}

/// The median of some timings.
pub fn median(seconds: &[f64]) -> f64 {
    let mut sorted = seconds.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        length if length % 2 == 1 => sorted[length / 2],
        length => (sorted[length / 2 - 1] + sorted[length / 2]) / 2.0,
    }
}

/// Runs a decode-encode program and reads the JSON object it prints last.
pub fn run_program(command: &mut Command, what: &str) -> Result<Value> {
    let output = command.output().with_context(|| format!("starting {what}"))?;
    if !output.status.success() {
        bail!("{what} failed ({}): {}", output.status, String::from_utf8_lossy(&output.stderr).trim());
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).with_context(|| format!("reading what {what} printed: {last:.200}"))
}

/// Writes `contents` to `path` unless it already holds exactly that (so
/// build tools keep their caches); returns whether it wrote.
pub fn write_if_changed(path: &Path, contents: &str) -> Result<bool> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(contents) {
        return Ok(false);
    }
    crate::output::write_file(path, contents.as_bytes())?;
    Ok(true)
}

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
    crate::output::write_file(&stamp_file, stamp.as_bytes())?;
    Ok(true)
}

/// Checks the options before any work: `--out` must name a file.
pub fn check(options: &Options) -> Result<()> {
    if let Some(out) = &options.out {
        ensure!(!out.is_dir(), "--out {}: is a directory; name the JSON file to write", out.display());
    }
    Ok(())
}

pub fn run(options: &Options) -> Result<()> {
    check(options)?;
    let workspace = crate::test_command::workspace_root();
    let folder = workspace.join("target").join("bench");
    let bindings_folder = folder.join("bindings");
    let bindings_changed = bindings(&bindings_folder)?;
    let setup = Setup { workspace, bindings: bindings_folder, folder, bindings_changed, quick: options.quick };

    let schema = acp_schema_source::load(&SourceOptions::default())?;
    let (size, name) = if setup.quick { (300_000, "corpus-quick.tsv") } else { (10_500_000, "corpus.tsv") };
    let corpus_path = setup.folder.join("corpus").join(name);
    let corpus = corpus::build(&schema, SEED, size, &corpus_path)?;
    eprintln!("bench: corpus of {} messages, {} bytes, validated, in {}", corpus.messages.len(), corpus.bytes, corpus_path.display());

    let mut measurements = Vec::new();
    measurements.extend(rust::measure(&setup, &corpus_path)?);
    measurements.extend(typescript::measure(&setup, &corpus_path)?);
    measurements.extend(python::measure(&setup, &corpus_path)?);
    measurements.extend(python::measure_connection(&setup, &corpus_path)?);
    let startup = startup::measure(&setup)?;
    let (xtask, build) = generation::xtask(&setup)?;
    let generation = generation::measure(&setup, (&xtask, build), options.peers)?;
    let scale = scale::measure(&setup, &xtask, if setup.quick { 1 } else { 3 })?;

    let results =
        report::Results { quick: setup.quick, seed: SEED, corpus_messages: corpus.messages.len(), corpus_bytes: corpus.bytes, measurements, startup, generation, scale };
    print!("{}", report::markdown(&results));
    if let Some(out) = &options.out {
        let text = if out.extension().is_some_and(|extension| extension == "md") { page::markdown(&results) } else { report::json(&results) };
        crate::output::write_file(out, text.as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let inexact: Vec<String> = results
        .measurements
        .iter()
        .filter(|measurement| measurement.role == "ours" && !measurement.exact())
        .map(|measurement| format!("{}: {}", measurement.language, measurement.first_difference.as_deref().unwrap_or("?")))
        .collect();
    if !inexact.is_empty() {
        bail!("our bindings do not re-encode every corpus message exactly: {}", inexact.join("; "));
    }
    // A peer may fail (it is reported as such); our own runs may not.
    let ours = results.generation.iter().filter(|timing| timing.tool.starts_with("xtask"));
    let scaled = results.scale.iter().map(|point| &point.timing);
    let loaded = results.startup.iter().filter_map(|startup| startup.timings.first());
    let failed: Vec<String> = ours.chain(scaled).chain(loaded).filter_map(|timing| timing.failure.as_ref().map(|failure| format!("{}: {failure}", timing.tool))).collect();
    if !failed.is_empty() {
        bail!("our own timed runs failed: {}", failed.join("; "));
    }
    Ok(())
}
