//! What the fuzzers built on libFuzzer share (Rust's `cargo fuzz`, Python's
//! atheris, TypeScript's Jazzer.js): the flags each run gets, the folders
//! it reads and writes, and the reading of the statistics libFuzzer prints
//! (`#4096 pulse cov: 1191 ft: 4380 corp: 390/51Kb ...`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use super::{files, fresh, Outcome, Run};

/// The per-input time limit, in seconds: the harnesses report a hang after
/// 10 seconds themselves; this catches one they cannot see.
const TIMEOUT: u64 = 30;

/// The memory limit, in megabytes: an input that takes more is a finding
/// (unbounded growth).
const RSS_LIMIT: u64 = 2048;

/// A run's folders under the language's: the corpus it grows from the
/// seeds (emptied first, so that every run starts from the seeds), and
/// where its failing inputs go.
pub struct Folders {
    pub corpus: PathBuf,
    pub findings: PathBuf,
    pub log: PathBuf,
}

impl Folders {
    /// The folders of `run`, emptied.
    pub fn fresh(run: &Run) -> Result<Folders> {
        let folders = Folders {
            corpus: run.folder.join("corpus"),
            findings: run.folder.join("findings"),
            log: run.folder.join("fuzz.log"),
        };
        fresh(&folders.corpus)?;
        fresh(&folders.findings)?;
        Ok(folders)
    }
}

/// The libFuzzer flags of `run`: its time, the limits, where failing
/// inputs go.
pub fn flags(run: &Run, folders: &Folders) -> Vec<String> {
    vec![
        format!("-max_total_time={}", run.seconds),
        format!("-timeout={TIMEOUT}"),
        format!("-rss_limit_mb={RSS_LIMIT}"),
        format!("-artifact_prefix={}/", folders.findings.display()),
        "-print_final_stats=1".to_owned(),
    ]
}

/// Runs `command` (described as `what`), everything it prints going to
/// `log`; fails when it ended badly without leaving a failing input in
/// `findings` (the fuzzer did not run).
pub fn run_logged(command: &mut Command, what: &str, log: &Path, findings: &Path) -> Result<()> {
    let file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let status = command
        .stdout(Stdio::from(file.try_clone()?))
        .stderr(Stdio::from(file))
        .status()
        .with_context(|| format!("starting {what}"))?;
    if !status.success() && files(findings)?.is_empty() {
        bail!(
            "{what} failed ({status}) without a failing input; see {}",
            log.display()
        );
    }
    Ok(())
}

/// The outcome of a libFuzzer run of `fuzzer` whose output is in the log.
pub fn outcome(fuzzer: String, folders: &Folders) -> Result<Outcome> {
    let log = std::fs::read_to_string(&folders.log).with_context(|| format!("reading {}", folders.log.display()))?;
    let Some(last) = log
        .lines()
        .rev()
        .find(|line| line.starts_with('#') && line.contains(" cov: "))
    else {
        bail!("{} holds no libFuzzer statistics line", folders.log.display());
    };
    let field = |name: &str| -> Option<&str> {
        let mut words = last.split_whitespace();
        words.find(|word| *word == name)?;
        words.next()
    };
    let executions = log
        .lines()
        .find_map(|line| line.strip_prefix("stat::number_of_executed_units:"))
        .or_else(|| last.split_whitespace().next().and_then(|count| count.strip_prefix('#')))
        .and_then(|count| count.trim().parse().ok())
        .with_context(|| format!("{}: no execution count", folders.log.display()))?;
    let corpus = field("corp:")
        .and_then(|corpus| corpus.split('/').next())
        .and_then(|count| count.parse().ok())
        .unwrap_or(0);
    Ok(Outcome {
        fuzzer,
        executions,
        coverage: format!(
            "cov: {}, ft: {}",
            field("cov:").unwrap_or("?"),
            field("ft:").unwrap_or("?")
        ),
        corpus,
        findings: files(&folders.findings)?,
        log: folders.log.clone(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_statistics_are_read_from_the_last_line_and_the_final_stats() {
        let folder = tempfile::tempdir().unwrap();
        let folders = super::Folders {
            corpus: folder.path().join("corpus"),
            findings: folder.path().join("findings"),
            log: folder.path().join("fuzz.log"),
        };
        std::fs::write(
            &folders.log,
            "#2\tINITED cov: 10 ft: 12 corp: 3/1Kb exec/s: 0 rss: 30Mb\n\
             #4096\tpulse  cov: 1191 ft: 4380 corp: 390/51Kb lim: 4096 exec/s: 2048 rss: 73Mb\n\
             Done 5000 runs in 2 second(s)\nstat::number_of_executed_units: 5000\n",
        )
        .unwrap();
        let outcome = super::outcome("libFuzzer".to_owned(), &folders).unwrap();
        assert_eq!(outcome.executions, 5000);
        assert_eq!(outcome.coverage, "cov: 1191, ft: 4380");
        assert_eq!(outcome.corpus, 390);
        assert!(outcome.findings.is_empty());
    }
}
