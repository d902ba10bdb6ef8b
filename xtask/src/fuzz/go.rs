//! Go's fuzzer: the toolchain's own (`go test -fuzz`), on the harness
//! `tests/go/fuzz_connection_test.go` copied into the default schema's
//! module as an internal test, its seeds added from the seed folder
//! (`ACP_FUZZ_SEEDS`). One worker (`-parallel=1`: the machine is shared);
//! the inputs it keeps go to `target/fuzz/go/cache/` (`-test.fuzzcachedir`).
//! `GODEBUG=fuzzdebug=1` makes it print its coverage bits, the measure
//! reported with its count of new interesting inputs. A failing input is
//! written into the module's `testdata/fuzz/FuzzConnection/`, copied to
//! `target/fuzz/go/findings/`; a seed that fails is named by its seed file.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use anyhow::{bail, Context, Result};

use super::{files, fresh, Outcome, Run};
use crate::support::tools::go;

/// The harness, in `tests/go/`, and its fuzz test.
pub const HARNESS: &str = "fuzz_connection_test.go";
pub const TARGET: &str = "FuzzConnection";

/// Runs Go's fuzzer for `run`.
pub fn run(run: &Run) -> Result<Outcome> {
    let module = run.bindings.join("go");
    std::fs::copy(
        run.workspace.join("tests").join("go").join(HARNESS),
        module.join(HARNESS),
    )
    .with_context(|| format!("copying tests/go/{HARNESS}"))?;
    let cache = run.folder.join("cache");
    let findings = run.folder.join("findings");
    fresh(&cache)?;
    fresh(&findings)?;
    let log = run.folder.join("fuzz.log");
    let file = std::fs::File::create(&log).with_context(|| format!("creating {}", log.display()))?;
    let status = go(&module)
        .args(["test", "-run=^$", &format!("-fuzz=^{TARGET}$")])
        .arg(format!("-fuzztime={}s", run.seconds))
        .arg("-parallel=1")
        // Minimizing a new input can take the worker's whole minute by default.
        .arg("-fuzzminimizetime=10s")
        .arg(format!("-test.fuzzcachedir={}", cache.display()))
        .env("ACP_FUZZ_SEEDS", run.seeds)
        .env("GODEBUG", "fuzzdebug=1")
        .stdout(Stdio::from(file.try_clone()?))
        .stderr(Stdio::from(file))
        .status()
        .context("starting go test -fuzz")?;
    let text = std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let failing = failing_inputs(&text, &module, &files(run.seeds)?);
    for input in &failing {
        let name = input.file_name().context("a failing input without a name")?;
        std::fs::copy(input, findings.join(name)).with_context(|| format!("copying {}", input.display()))?;
    }
    if !status.success() && failing.is_empty() {
        bail!(
            "go test -fuzz failed ({status}) without a failing input; see {}",
            log.display()
        );
    }
    let version = go(&module).arg("version").output().context("starting go version")?;
    let version = String::from_utf8_lossy(&version.stdout);
    let (executions, interesting, corpus) = progress(&text).unwrap_or((0, 0, 0));
    Ok(Outcome {
        fuzzer: format!("go test -fuzz ({})", version.split_whitespace().nth(2).unwrap_or("go")),
        executions,
        coverage: format!(
            "{} bits, {interesting} new inputs",
            coverage_bits(&text).map_or("?".to_owned(), |bits| bits.to_string())
        ),
        corpus,
        findings: files(&findings)?,
        log,
    })
}

/// The last progress line's executions, new interesting inputs and corpus
/// size (`fuzz: elapsed: 3s, execs: 1234 (411/sec), new interesting: 5 (total: 105)`).
fn progress(log: &str) -> Option<(u64, u64, u64)> {
    let line = log.lines().rev().find(|line| line.contains(", execs: "))?;
    let number = |after: &str| -> Option<u64> {
        let rest = &line[line.find(after)? + after.len()..];
        rest.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    let executions = number("execs: ")?;
    Some((
        executions,
        number("new interesting: ").unwrap_or(0),
        number("(total: ").unwrap_or(0),
    ))
}

/// The coverage bits the coordinator last counted (`fuzzdebug`'s `total
/// bits: N`, or the baseline's `initial coverage bits: N`).
fn coverage_bits(log: &str) -> Option<u64> {
    log.lines().rev().find_map(|line| {
        let at = line
            .find("total bits: ")
            .map(|at| at + "total bits: ".len())
            .or_else(|| {
                line.find("initial coverage bits: ")
                    .map(|at| at + "initial coverage bits: ".len())
            })?;
        line[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    })
}

/// The inputs the log names as failing: those written under the module's
/// `testdata/`, and the seeds ([`seed`]).
fn failing_inputs(log: &str, module: &Path, seeds: &[PathBuf]) -> Vec<PathBuf> {
    let mut failing = Vec::new();
    for line in log.lines() {
        if let Some(at) = line.find("Failing input written to ") {
            failing.push(module.join(line[at + "Failing input written to ".len()..].trim()));
        }
        failing.extend(seed(line, seeds));
    }
    failing.sort();
    failing.dedup();
    failing
}

/// The seed a line names (`FuzzConnection/seed#N`: the Nth of `seeds` in
/// name order, as the harness adds them).
pub fn seed(line: &str, seeds: &[PathBuf]) -> Option<PathBuf> {
    let at = line.find(&format!("{TARGET}/seed#"))?;
    let index: usize = line[at + TARGET.len() + "/seed#".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .next()?
        .parse()
        .ok()?;
    seeds.get(index).cloned()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    #[test]
    fn the_progress_coverage_and_failing_inputs_are_read_from_the_log() {
        let log = "fuzz: elapsed: 0s, gathering baseline coverage: 0/185 completed\n\
                   DEBUG finished processing input corpus, entries: 185, initial coverage bits: 1500\n\
                   DEBUG new interesting input, id: x, parent: y, gen: 1, new bits: 2, total bits: 1502, size: 9, exec time: 1ms\n\
                   fuzz: elapsed: 3s, execs: 1234 (411/sec), new interesting: 5 (total: 190)\n\
                   --- FAIL: FuzzConnection/seed#1 (0.00s)\n\
                   Failing input written to testdata/fuzz/FuzzConnection/abc\n";
        assert_eq!(super::progress(log), Some((1234, 5, 190)));
        assert_eq!(super::coverage_bits(log), Some(1502));
        let seeds = [PathBuf::from("/s/a"), PathBuf::from("/s/b")];
        assert_eq!(
            super::failing_inputs(log, Path::new("/m"), &seeds),
            [
                PathBuf::from("/m/testdata/fuzz/FuzzConnection/abc"),
                PathBuf::from("/s/b")
            ]
        );
    }
}
