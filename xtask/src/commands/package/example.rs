//! What every usage example prints, the same in every language, and how
//! its output is read back: the package check ([`super::check`]) and the
//! Go suite, which runs the example against the generated module, compare
//! the two.

use anyhow::{Context, Result};
use serde_json::{json, Value};

/// What every usage example prints, line by line: a label, `: `, a JSON value.
pub fn expected() -> Vec<(String, Value)> {
    vec![
        ("ContentBlock".to_owned(), json!({"type": "text", "text": "hello"})),
        (
            "session/update".to_owned(),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}),
        ),
        ("client handles fs/read_text_file".to_owned(), json!(true)),
        ("agent handles session/load".to_owned(), json!(true)),
        ("refused session/prompt at".to_owned(), json!("/prompt/0")),
    ]
}

/// Each line `label: JSON` of an example's output.
pub fn parse(output: &str) -> Result<Vec<(String, Value)>> {
    output
        .lines()
        .map(|line| {
            let (label, value) = line
                .split_once(": ")
                .with_context(|| format!("`{line}` is not `label: JSON`"))?;
            Ok((
                label.to_owned(),
                serde_json::from_str(value).with_context(|| format!("`{value}` is not JSON"))?,
            ))
        })
        .collect()
}
