//! A review as Markdown fit for a pull-request comment (a summary table,
//! then the findings grouped by level, then the binding impact) or as JSON.

use std::fmt::Write;

use super::roles::Direction;
use super::rules::Level;
use super::{Finding, Review};

const LEVELS: [Level; 3] = [Level::Breaking, Level::Warning, Level::Safe];

/// The review as pretty JSON, with a final newline.
pub fn json(review: &Review) -> String {
    let mut text = serde_json::to_string_pretty(review).expect("a review serializes");
    text.push('\n');
    text
}

/// Table cells cannot hold `|` or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn directions(finding: &Finding) -> String {
    if finding.directions.is_empty() {
        return "bindings only".to_owned();
    }
    finding.directions.keys().map(|direction| direction.as_str()).collect::<Vec<_>>().join(", ")
}

/// The review as Markdown.
pub fn markdown(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# Schema review\n\n- base: `{}`\n- head: `{}`\n- verdict: **{}**\n", review.base, review.head, review.worst().as_str());
    let _ = writeln!(out, "| level | changes | client-to-agent | agent-to-client | bindings only |\n| --- | ---: | ---: | ---: | ---: |");
    for level in LEVELS {
        let of_level: Vec<&Finding> = review.findings.iter().filter(|finding| finding.level == level).collect();
        let in_direction = |direction: Direction| of_level.iter().filter(|finding| finding.directions.contains_key(&direction)).count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            level.as_str(),
            of_level.len(),
            in_direction(Direction::ClientToAgent),
            in_direction(Direction::AgentToClient),
            of_level.iter().filter(|finding| finding.directions.is_empty()).count()
        );
    }
    for conflict in &review.conflicts {
        let _ = writeln!(out, "\n> **Conflict**: overlay `{}` cannot apply to the base: {}", conflict.overlay, cell(&conflict.message));
    }
    for level in LEVELS {
        let of_level: Vec<&Finding> = review.findings.iter().filter(|finding| finding.level == level).collect();
        if of_level.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {} ({})\n", capitalized(level.as_str()), of_level.len());
        let _ = writeln!(out, "| rule | change | detail | old readers | new readers | directions | carried by |\n| --- | --- | --- | --- | --- | --- | --- |");
        for finding in of_level {
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {} | {} | {} | {} |",
                finding.rule,
                cell(&finding.subject),
                cell(&finding.detail),
                finding.old_reader.as_str(),
                finding.new_reader.as_str(),
                directions(finding),
                cell(&carried_by(finding)),
            );
        }
    }
    let touched: Vec<&Finding> = review.findings.iter().filter(|finding| !finding.api.rust.is_empty()).collect();
    if !touched.is_empty() {
        let _ = writeln!(out, "\n## Binding impact\n\n| change | Rust | TypeScript | Python |\n| --- | --- | --- | --- |");
        for finding in touched {
            let _ = writeln!(
                out,
                "| `{}` {} | `{}` | `{}` | `{}` |",
                finding.rule,
                cell(&finding.subject),
                cell(&finding.api.rust),
                cell(&finding.api.typescript),
                cell(&finding.api.python)
            );
        }
    }
    out
}

/// The first few messages that carry a finding.
fn carried_by(finding: &Finding) -> String {
    const SHOWN: usize = 3;
    let mut text = finding.messages.iter().take(SHOWN).map(|message| format!("`{message}`")).collect::<Vec<_>>().join(", ");
    if finding.messages.len() > SHOWN {
        let _ = write!(text, " and {} more", finding.messages.len() - SHOWN);
    }
    text
}

fn capitalized(text: &str) -> String {
    let mut characters = text.chars();
    characters.next().map(|first| first.to_uppercase().chain(characters).collect()).unwrap_or_default()
}
