//! The performance page, `docs/performance.md`, as `cargo xtask bench
//! --out docs/performance.md` writes it: what the benchmark measures
//! (`page/intro.md`), the machine and the run, the run's tables
//! ([`super::report::markdown`]) and what limits each ratio
//! (`page/limits.md`). The prose is kept beside this module; the numbers
//! are always the run's own.

use std::process::Command;

use super::report::{self, Results};

const INTRO: &str = include_str!("page/intro.md");
const LIMITS: &str = include_str!("page/limits.md");

/// The page for `results`.
pub fn markdown(results: &Results) -> String {
    let run = if results.quick {
        "`cargo xtask bench --quick`"
    } else {
        "`cargo xtask bench --peers`"
    };
    format!(
        "{INTRO}\nThis run ({run}, {}; {}; this machine's speed varies from run to run by up to a fifth, which moves all the columns of a run together, the ratios far less):\n\n{}\n{LIMITS}",
        today(),
        machine(),
        report::markdown(results).trim()
    )
}

/// The machine: cores, processor, Node and Python versions.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let processor = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                line.strip_prefix("model name")
                    .and_then(|rest| rest.split_once(':'))
                    .map(|(_, name)| name.trim().to_owned())
            })
        })
        .unwrap_or_else(|| "an unknown processor".to_owned());
    let version = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .map(|output| {
                String::from_utf8_lossy(if output.stdout.is_empty() {
                    &output.stderr
                } else {
                    &output.stdout
                })
                .trim()
                .to_owned()
            })
            .unwrap_or_else(|| "none".to_owned())
    };
    format!(
        "{cores} cores, {processor}, Node {}, {}",
        version("node").trim_start_matches('v'),
        version("python3")
    )
}

/// Today's date (UTC).
fn today() -> String {
    chrono::DateTime::<chrono::Utc>::from(std::time::SystemTime::now())
        .format("%Y-%m-%d")
        .to_string()
}
