//! The matrix as a Markdown table, and the page `--out` writes: the table
//! between `intro.md` and `limits.md` (beside this file).

use super::program::Cell;

/// What a client's summary says, in words: the turns and their stop
/// reasons, and what the agent asked of the client.
fn described(summary: &str) -> String {
    let Ok(summary) = serde_json::from_str::<serde_json::Value>(summary) else { return summary.to_owned() };
    let stops: Vec<&str> = summary["stopReasons"].as_array().into_iter().flatten().filter_map(serde_json::Value::as_str).collect();
    let updates: u64 = summary["updates"].as_object().into_iter().flatten().filter_map(|(_, count)| count.as_u64()).sum();
    let count = |key: &str| summary[key].as_u64().unwrap_or(0);
    format!(
        "turns: {} ({}); updates: {updates}; permission requests: {}; file reads: {}; file writes: {}",
        stops.len(),
        stops.join(", "),
        count("permissions"),
        count("reads"),
        count("writes")
    )
}

pub fn matrix(cells: &[Cell]) -> String {
    let mut table = String::from("| client | agent | result |\n|---|---|---|\n");
    for cell in cells {
        let result = match &cell.outcome {
            Ok(summary) => format!("pass: {}; check-trace: no findings", described(summary)),
            Err(failure) => format!("**fail**: {failure}"),
        };
        table.push_str(&format!("| {} | {} | {} |\n", cell.client, cell.agent, result));
    }
    table
}

pub fn page(table: &str) -> String {
    format!("{}\n\n{table}\n{}", include_str!("intro.md").trim_end(), include_str!("limits.md"))
}
