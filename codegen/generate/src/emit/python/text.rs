//! How the Python emitter writes text: its templates, literals, docstrings
//! and the order isort keeps imported names in.

use askama::Template;
use serde_json::Value;

use crate::emit::prose::prose;
use acp_ir::error::CodegenError;

/// Renders `templates/python/{file}`.
pub(super) fn render(template: &impl Template, file: &str) -> Result<String, CodegenError> {
    super::super::files::render(template, &format!("python/{file}"))
}

/// The order isort (and ruff) keeps the names of one import in: constants,
/// classes, then the rest, each by name without case, digit runs by value.
pub(super) fn import_order(name: &str) -> (u8, Vec<(String, u64)>) {
    let kind = if name.len() > 1 && name.chars().all(|c| !c.is_lowercase()) {
        0
    } else if name.starts_with(|c: char| c.is_uppercase()) {
        1
    } else {
        2
    };
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut digits = String::new();
    for character in name.to_lowercase().chars() {
        if character.is_ascii_digit() {
            digits.push(character);
        } else {
            if !digits.is_empty() {
                parts.push((std::mem::take(&mut text), digits.parse().unwrap_or(u64::MAX)));
                digits.clear();
            }
            text.push(character);
        }
    }
    parts.push((text, digits.parse().unwrap_or(0)));
    (kind, parts)
}

/// `text` as a Python docstring whose opening quotes sit `indent` spaces in:
/// one line stays on one line; otherwise its lines after the first are
/// indented as far as the quotes, which close on a line of their own (PEP
/// 257). Backslashes, and quotes that would end it early, are escaped.
pub(super) fn docstring(text: &str, indent: usize) -> String {
    let text = prose(text);
    let text = text.trim();
    let last = text.chars().count().saturating_sub(1);
    let mut escaped = String::new();
    let mut quotes = 0;
    for (index, character) in text.chars().enumerate() {
        quotes = match character {
            '\\' => {
                escaped.push_str("\\\\");
                0
            }
            '"' if quotes == 2 || index == last => {
                escaped.push_str("\\\"");
                0
            }
            '"' => {
                escaped.push('"');
                quotes + 1
            }
            _ => {
                escaped.push(character);
                0
            }
        };
    }
    let margin = " ".repeat(indent);
    let mut lines = escaped.lines();
    let first = lines.next().unwrap_or_default();
    let rest: Vec<String> = lines
        .map(|line| line.trim_end())
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("{margin}{line}")
            }
        })
        .collect();
    if rest.is_empty() {
        format!("\"\"\"{first}\"\"\"")
    } else {
        format!("\"\"\"{first}\n{}\n{margin}\"\"\"", rest.join("\n"))
    }
}

/// `description`, else `fallback`, as a docstring.
pub(super) fn describe(description: Option<&str>, fallback: &str, indent: usize) -> String {
    match description.map(str::trim).filter(|text| !text.is_empty()) {
        Some(text) => docstring(text, indent),
        None => docstring(fallback, indent),
    }
}

/// A JSON value as a Python literal.
pub(super) fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => Value::String(text.clone()).to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        Value::Object(members) => format!(
            "{{{}}}",
            members
                .iter()
                .map(|(key, item)| format!("{}: {}", literal(&Value::String(key.clone())), literal(item)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// `text` as a Python string literal.
pub(super) fn string_literal(text: &str) -> String {
    literal(&Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_cannot_end_the_docstring() {
        assert_eq!(docstring("a \"\"\" b \\", 0), r#""""a ""\" b \\""""#);
        assert_eq!(docstring("say \"hi\"", 0), r#""""say "hi\"""""#);
        assert_eq!(
            docstring("\\\"", 0),
            r#""""\\\"""""#,
            "a quote after an escaped backslash is still escaped at the end"
        );
    }
}
