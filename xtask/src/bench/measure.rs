//! What every bench module shares: where the benchmark works ([`Setup`]),
//! what a language's registration names to measure it ([`Contenders`]),
//! the contenders of one language measured in interleaved rounds, their
//! measurements, medians, and writing a file only when it changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

/// Measures one language's contenders on the corpus file: ours, the
/// official SDK's and the bare JSON round trip, decoding and encoding and
/// over a connection (the registration's
/// [`crate::languages::LanguageTests::bench`]).
pub type Contenders = fn(&Setup, &Path) -> Result<Vec<Measurement>>;

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
pub fn measure_interleaved(
    language: &'static str,
    setup: &Setup,
    contenders: &[Contender],
) -> Result<Vec<Measurement>> {
    let mut measurements: Vec<Option<Measurement>> = contenders.iter().map(|_| None).collect();
    for round in 0..setup.runs() {
        for (contender, slot) in contenders.iter().zip(measurements.iter_mut()) {
            eprintln!(
                "bench: {language} {} (round {} of {})",
                contender.role,
                round + 1,
                setup.runs()
            );
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
        let count = |key: &str| {
            report[key]
                .as_u64()
                .with_context(|| format!("the {language} {role} program reported no `{key}`"))
        };
        let seconds: Vec<f64> = report["seconds"]
            .as_array()
            .map(|runs| runs.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        ensure!(
            !seconds.is_empty(),
            "the {language} {role} program reported no timed run"
        );
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
        bail!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
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
    crate::support::output::write_file(path, contents.as_bytes())?;
    Ok(true)
}
