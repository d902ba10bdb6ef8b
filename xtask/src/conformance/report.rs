//! The kit's `--report-json`, read into what the tables need: each
//! requirement's id, tier and aggregated status, and the one-line reason of
//! the first test that did not pass it (the kit's own message).
//!
//! The kit (`src/tck/common/report.py`) writes `requirements`: one entry
//! per registered requirement, `{"id", "tier", "capability", "text",
//! "citation", "status", "tests": [{"nodeid", "status", "message", ...}]}`,
//! the status `PASS`, `FAIL`, `SKIPPED` or `NOT_TESTED` (no test bound to
//! it ran); and `verdict`: `{"conformant", "tier_counts",
//! "blocked_by_auth", "blocked_by_version_mismatch"}`. Also the agent a
//! report is of, and a run: the agent with its report.

use std::path::Path;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::interop::program::Program;

/// The tiers the tables count, in order (the kit's fourth, INFORMATIONAL,
/// never fails and is left out).
pub const TIERS: [&str; 3] = ["MANDATORY", "CAPABILITY", "ADVISORY"];

/// One requirement's verdict.
pub struct Requirement {
    pub id: String,
    pub tier: String,
    /// `PASS`, `FAIL`, `SKIPPED` or `NOT_TESTED`.
    pub status: String,
    /// Why it did not pass, in the kit's words (first line), or empty.
    pub reason: String,
}

impl Requirement {
    pub fn passed(&self) -> bool {
        self.status == "PASS"
    }

    /// MANDATORY or CAPABILITY: the tiers an agent of ours must pass.
    pub fn required(&self) -> bool {
        self.tier == "MANDATORY" || self.tier == "CAPABILITY"
    }
}

/// An agent the kit plays.
pub struct Agent {
    pub label: String,
    pub program: Program,
    /// Ours (its unpassed requirements fail the command) or an official SDK's.
    pub ours: bool,
    pub version: u8,
    /// The file name of its report.
    pub slug: String,
    /// More options for the kit: our full-surface agents advertise an
    /// authentication method that always succeeds and `logout`, which the
    /// kit exercises only when told (`--auth-method`, `--allow-logout`).
    pub kit_options: Vec<String>,
}

/// One run: the agent and the kit's report, or why there is none.
pub struct Run {
    pub agent: Agent,
    pub report: Result<Report, String>,
}

/// One run of the kit against one agent.
pub struct Report {
    pub requirements: Vec<Requirement>,
    /// The kit's verdict.
    pub conformant: bool,
    /// Tests were skipped because `initialize` negotiated another version.
    pub version_mismatch: bool,
}

impl Report {
    pub fn read(file: &Path) -> Result<Report> {
        let text = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
        let json: Value = serde_json::from_slice(&text).with_context(|| format!("parsing {}", file.display()))?;
        let requirements = json["requirements"]
            .as_array()
            .with_context(|| format!("{}: no `requirements` array", file.display()))?
            .iter()
            .map(requirement)
            .collect::<Result<Vec<_>>>()
            .with_context(|| format!("reading {}", file.display()))?;
        Ok(Report {
            requirements,
            conformant: json["verdict"]["conformant"].as_bool().unwrap_or(false),
            version_mismatch: json["verdict"]["blocked_by_version_mismatch"]
                .as_bool()
                .unwrap_or(false),
        })
    }

    /// Passed, failed and skipped (or not tested) requirements of `tier`.
    pub fn counts(&self, tier: &str) -> [usize; 3] {
        let mut counts = [0; 3];
        for requirement in self.requirements.iter().filter(|requirement| requirement.tier == tier) {
            let slot = match requirement.status.as_str() {
                "PASS" => 0,
                "FAIL" => 1,
                _ => 2,
            };
            counts[slot] += 1;
        }
        counts
    }
}

fn requirement(entry: &Value) -> Result<Requirement> {
    let field = |key: &str| {
        entry[key]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("a requirement without `{key}`: {entry}"))
    };
    let status = field("status")?;
    let tests = entry["tests"].as_array().map(Vec::as_slice).unwrap_or_default();
    let reason = match status.as_str() {
        "PASS" => String::new(),
        "NOT_TESTED" => "no test of the kit ran it".to_owned(),
        _ => tests
            .iter()
            .find(|test| test["status"] == status.as_str())
            .and_then(|test| test["message"].as_str())
            .map(one_line)
            .unwrap_or_default(),
    };
    Ok(Requirement {
        id: field("id")?,
        tier: field("tier")?,
        status,
        reason,
    })
}

/// The kit's reason in one line, at most 200 characters: pytest's first
/// `E ` line of a failure (the assertion's message), the text after
/// `Skipped: ` of a skip (pytest gives a skip as `(file, line, 'Skipped:
/// ...')`), else the first non-empty line.
fn one_line(message: &str) -> String {
    let lines = || message.lines().map(str::trim).filter(|line| !line.is_empty());
    let line = if let Some(error) = lines().find_map(|line| line.strip_prefix("E ")) {
        error.trim().to_owned()
    } else if let Some((_, skipped)) = message.split_once("Skipped: ") {
        let skipped = skipped.lines().next().unwrap_or_default().trim();
        skipped
            .strip_suffix("')")
            .or_else(|| skipped.strip_suffix("\")"))
            .unwrap_or(skipped)
            .to_owned()
    } else {
        lines().next().unwrap_or_default().to_owned()
    };
    match line.char_indices().nth(200) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_kits_report() {
        let folder = tempfile::tempdir().unwrap();
        let file = folder.path().join("report.json");
        let report = serde_json::json!({
            "requirements": [
                {"id": "ACP-A", "tier": "MANDATORY", "status": "PASS", "tests": []},
                {"id": "ACP-B", "tier": "MANDATORY", "status": "FAIL", "tests": [
                    {"status": "PASS", "message": ""},
                    {"status": "FAIL", "message": "    def test():\n>       assert x\nE       AssertionError: no response\nE       assert False"}]},
                {"id": "ACP-C", "tier": "CAPABILITY", "status": "SKIPPED", "tests": [
                    {"status": "SKIPPED", "message": "('/kit/test_session.py', 64, 'Skipped: loadSession not advertised')"}]},
                {"id": "ACP-D", "tier": "CAPABILITY", "status": "NOT_TESTED", "tests": []},
            ],
            "verdict": {"conformant": false, "blocked_by_version_mismatch": false},
        });
        std::fs::write(&file, report.to_string()).unwrap();
        let report = Report::read(&file).unwrap();
        assert_eq!(report.counts("MANDATORY"), [1, 1, 0]);
        assert_eq!(report.counts("CAPABILITY"), [0, 0, 2]);
        let reasons: Vec<&str> = report.requirements.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "",
                "AssertionError: no response",
                "loadSession not advertised",
                "no test of the kit ran it"
            ]
        );
    }
}
