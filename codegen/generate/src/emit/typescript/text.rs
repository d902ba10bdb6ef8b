//! How the TypeScript emitter writes text: its templates, string literals and
//! TSDoc.

use askama::Template;

use crate::emit::prose::prose;
use acp_ir::error::CodegenError;

/// Renders `templates/typescript/{file}`.
pub(super) fn render(template: &impl Template, file: &str) -> Result<String, CodegenError> {
    super::super::files::render(template, &format!("typescript/{file}"))
}

/// `text` as a JSON (and JavaScript) string literal.
pub(super) fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// A TSDoc block for `description` and `notes`, one output line per entry
/// (without indentation), or nothing. `*/` never survives into the text, so
/// no description can close the comment.
pub(super) fn tsdoc(description: Option<&str>, notes: &[String]) -> Vec<String> {
    let mut paragraphs: Vec<String> = description
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(prose)
        .into_iter()
        .collect();
    paragraphs.extend(notes.iter().map(|note| prose(note)));
    if paragraphs.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["/**".to_owned()];
    for (index, paragraph) in paragraphs.iter().enumerate() {
        if index > 0 {
            lines.push(" *".to_owned());
        }
        for line in paragraph.lines() {
            let escaped = line.trim_end().replace("*/", "*\\/");
            lines.push(if escaped.is_empty() {
                " *".to_owned()
            } else {
                format!(" * {escaped}")
            });
        }
    }
    lines.push(" */".to_owned());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsdoc_cannot_be_closed_by_a_description() {
        let lines = tsdoc(Some("ends */ here\n\nsecond"), &["note".to_owned()]);
        assert_eq!(
            lines,
            ["/**", " * ends *\\/ here", " *", " * second", " *", " * note", " */"]
        );
        assert!(tsdoc(None, &[]).is_empty());
    }
}
