//! The matrix as Markdown, a table per protocol version, and the page
//! `--out` writes: the tables between `intro.md` and `limits.md` (beside
//! this file).

use super::program::Cell;

/// What a client's summary says, in words: the turns and their stop
/// reasons, and what the agent asked of the client (file reads and writes
/// where the protocol has them).
fn described(summary: &str) -> String {
    let Ok(summary) = serde_json::from_str::<serde_json::Value>(summary) else {
        return summary.to_owned();
    };
    let stops: Vec<&str> = summary["stopReasons"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let updates: u64 = summary["updates"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, count)| count.as_u64())
        .sum();
    let count = |key: &str| summary[key].as_u64().unwrap_or(0);
    let mut described = format!(
        "turns: {} ({}); updates: {updates}; permission requests: {}",
        stops.len(),
        stops.join(", "),
        count("permissions")
    );
    for (key, what) in [("reads", "file reads"), ("writes", "file writes")] {
        if summary.get(key).is_some() {
            described.push_str(&format!("; {what}: {}", count(key)));
        }
    }
    described
}

/// One protocol version's cells, under `heading`.
pub fn matrix(heading: &str, cells: &[Cell]) -> String {
    let mut table = format!("### {heading}\n\n| client | agent | result |\n|---|---|---|\n");
    for cell in cells {
        let result = match &cell.outcome {
            Ok(summary) => format!("pass: {}; check-trace: no findings", described(summary)),
            Err(failure) => format!("**fail**: {failure}"),
        };
        table.push_str(&format!("| {} | {} | {} |\n", cell.client, cell.agent, result));
    }
    table
}

/// The page: `tables`, the matrices of every protocol version.
pub fn page(tables: &str) -> String {
    format!(
        "{}\n\n{tables}\n{}",
        include_str!("intro.md").trim_end(),
        include_str!("limits.md")
    )
}
