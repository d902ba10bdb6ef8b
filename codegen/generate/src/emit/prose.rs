//! Schema prose (descriptions and titles) made safe for the comments and
//! docstrings of every language: line breaks become `\n`, and every other
//! control character, and the Unicode line and paragraph separators, are
//! written as a visible `\u{XXXX}` escape. No text is dropped, and none can
//! end a comment, a docstring or a line early, or make source unreadable to
//! a compiler (a NUL byte, a bare carriage return).

/// `text` with its line breaks normalized and its control characters escaped.
pub(crate) fn prose(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let mut safe = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '\n' | '\t' => safe.push(character),
            '\u{2028}' | '\u{2029}' => safe.push_str(&format!("\\u{{{:04X}}}", u32::from(character))),
            _ if character.is_control() => safe.push_str(&format!("\\u{{{:04X}}}", u32::from(character))),
            _ => safe.push(character),
        }
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::prose;

    #[test]
    fn control_characters_are_escaped_and_line_breaks_normalized() {
        assert_eq!(prose("a\r\nb\rc\nd"), "a\nb\nc\nd");
        assert_eq!(
            prose("nul \u{0} bell \u{7} tab\tok"),
            "nul \\u{0000} bell \\u{0007} tab\tok"
        );
        assert_eq!(prose("line\u{2028}para\u{2029}"), "line\\u{2028}para\\u{2029}");
        assert_eq!(prose("*/ \"\"\" ${x} ünï"), "*/ \"\"\" ${x} ünï");
    }
}
