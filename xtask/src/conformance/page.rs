//! The kit's verdicts as Markdown: per protocol version, a table of the
//! requirement tiers per agent, then the MANDATORY and CAPABILITY
//! requirements each agent left unpassed with the kit's reason (marked
//! where an exception excuses one of ours); and the page `--out` writes,
//! the tables after `intro.md` (beside this file).

use super::exceptions::Exceptions;
use super::report::{Run, TIERS};

/// The tables of every protocol version run.
pub fn tables(runs: &[Run], exceptions: &Exceptions) -> String {
    let mut text = String::new();
    for version in [1, 2] {
        let runs: Vec<&Run> = runs.iter().filter(|run| run.agent.version == version).collect();
        if runs.is_empty() {
            continue;
        }
        text.push_str(&format!("### Protocol v{version} (`--protocol-version {version}`)\n\n"));
        text.push_str("| agent | kit's verdict |");
        for tier in TIERS {
            text.push_str(&format!(" {tier} |"));
        }
        text.push_str("\n|---|---|");
        text.push_str(&"---|".repeat(TIERS.len()));
        text.push('\n');
        for run in &runs {
            text.push_str(&format!("| {} |", run.agent.label));
            match &run.report {
                Err(error) => {
                    text.push_str(&format!(" **no report**: {} |", cell(error)));
                    text.push_str(&" |".repeat(TIERS.len()));
                }
                Ok(report) => {
                    let mut verdict = if report.conformant {
                        "conformant"
                    } else {
                        "not conformant"
                    }
                    .to_owned();
                    if report.version_mismatch {
                        verdict.push_str(" (another version negotiated)");
                    }
                    text.push_str(&format!(" {verdict} |"));
                    for tier in TIERS {
                        let [passed, failed, skipped] = report.counts(tier);
                        text.push_str(&format!(" {passed} / {failed} / {skipped} |"));
                    }
                }
            }
            text.push('\n');
        }
        text.push_str("\nCounts: passed / failed / skipped or not tested.\n\n");
        for run in &runs {
            let Ok(report) = &run.report else { continue };
            let unpassed: Vec<_> = report
                .requirements
                .iter()
                .filter(|requirement| requirement.required() && !requirement.passed())
                .collect();
            if unpassed.is_empty() {
                continue;
            }
            text.push_str(&format!(
                "<details><summary>{}: {} MANDATORY or CAPABILITY requirements not passed</summary>\n\n",
                run.agent.label,
                unpassed.len()
            ));
            for requirement in unpassed {
                let excepted = if run.agent.ours && exceptions.find(&requirement.id, version).is_some() {
                    " (excepted)"
                } else {
                    ""
                };
                text.push_str(&format!(
                    "- `{}` {} {}{excepted}: {}\n",
                    requirement.id,
                    requirement.tier,
                    requirement.status,
                    cell(&requirement.reason)
                ));
            }
            text.push_str("\n</details>\n\n");
        }
    }
    text
}

/// `text` fit for one line of a Markdown table or list.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ").replace('<', "&lt;")
}

/// The page: the tables after the introduction.
pub fn page(tables: &str) -> String {
    format!("{}\n\n{tables}", include_str!("intro.md").trim_end())
}
