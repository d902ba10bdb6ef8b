//! How the Go emitter writes the pieces of its code: the Go type and the
//! runtime codec of each IR type expression, a field's rules, string
//! literals and doc comments. Every name comes from [`acp_ir::naming`].

use acp_ir::ir::{DecodeRules, Fallback, Field, IntegerFormat, TypeExpr};
use acp_ir::naming;

use crate::emit::prose::prose;

/// `text` as a Go string literal (a JSON string is one: the escapes JSON
/// writes are Go's, and the text is valid UTF-8).
pub(super) fn go_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// `[]string{"a", "b"}`, or `nil` when empty.
pub(super) fn go_strings(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    if items.is_empty() {
        "nil".to_owned()
    } else {
        format!("[]string{{{}}}", items.join(", "))
    }
}

/// The doc comment of a declaration, one `//` line per entry (without
/// indentation), in the form gofmt leaves as it is: lines trimmed (an
/// indented line would become a code block), one blank line between
/// paragraphs, none at the ends, doubled quotes (two backquotes, two
/// apostrophes) as the typographic quotes gofmt writes for them, and a line
/// gofmt reads as a heading written as one (`# Heading`).
pub(super) fn doc(description: Option<&str>) -> Vec<String> {
    let Some(text) = description.map(str::trim).filter(|text| !text.is_empty()) else {
        return Vec::new();
    };
    let mut lines: Vec<String> = Vec::new();
    for line in prose(text).lines() {
        let line = line.trim();
        if line.is_empty() {
            if lines.last().is_some_and(|last| last != "//") {
                lines.push("//".to_owned());
            }
            continue;
        }
        // gofmt writes doubled quotes as typographic ones in doc comments.
        let line = line.replace("``", "\u{201C}").replace("''", "\u{201D}");
        lines.push(format!("// {line}"));
    }
    while lines.last().is_some_and(|last| last == "//") {
        lines.pop();
    }
    let headings: Vec<usize> = (1..lines.len().saturating_sub(2))
        .filter(|&index| {
            lines[index - 1] == "//"
                && lines[index + 1] == "//"
                && lines[index].strip_prefix("// ").is_some_and(implicit_heading)
        })
        .collect();
    for index in headings {
        lines[index] = lines[index].replacen("// ", "// # ", 1);
    }
    lines
}

/// Whether gofmt reads the line of text, alone between blank lines and
/// followed by more text, as a heading of the old style, which it rewrites
/// as `# Heading` (go/doc/comment's rule): it starts with an upper-case
/// letter, ends with a letter or digit, holds none of the characters a
/// sentence would, an apostrophe only in a possessive `'s`, and a period
/// only followed by a non-space.
fn implicit_heading(text: &str) -> bool {
    let starts = text
        .chars()
        .next()
        .is_some_and(|first| first.is_alphabetic() && first.is_uppercase());
    let ends = text
        .chars()
        .last()
        .is_some_and(|last| last.is_alphabetic() || last.is_ascii_digit());
    let after = |separator: char| text.split(separator).skip(1).collect::<Vec<_>>();
    starts
        && ends
        && !text.contains(|character: char| ";:!?+*/=[]{}_^°&§~%#@<\">\\".contains(character))
        && after('\'').iter().all(|rest| *rest == "s" || rest.starts_with("s "))
        && after('.').iter().all(|rest| !rest.is_empty() && !rest.starts_with(' '))
}

/// The Go integer type of a format (the widest signed when unspecified).
pub(super) fn integer_type(format: IntegerFormat) -> &'static str {
    match format {
        IntegerFormat::Int8 => "int8",
        IntegerFormat::Int16 => "int16",
        IntegerFormat::Int32 => "int32",
        IntegerFormat::Int64 | IntegerFormat::Unspecified => "int64",
        IntegerFormat::Uint8 => "uint8",
        IntegerFormat::Uint16 => "uint16",
        IntegerFormat::Uint32 => "uint32",
        IntegerFormat::Uint64 => "uint64",
    }
}

/// The codec of integers of the Go type `go_type` within `minimum` and `maximum`.
pub(super) fn integer_codec(go_type: &str, minimum: Option<String>, maximum: Option<String>) -> String {
    format!(
        "integerCodec[{go_type}]({}, {})",
        go_strings(minimum.map(|minimum| go_string(&minimum))),
        go_strings(maximum.map(|maximum| go_string(&maximum)))
    )
}

/// Whether a named type held directly (not through a slice) must be held
/// through a pointer: a cycle of such references is no Go type.
pub(super) type Boxed<'a> = &'a dyn Fn(&str) -> bool;

/// What nothing inside a slice needs: a slice already holds its items
/// through a pointer.
fn unboxed(_: &str) -> bool {
    false
}

/// The Go type of a value of `expression`.
pub(super) fn go_type(expression: &TypeExpr, boxed: Boxed) -> String {
    match expression {
        TypeExpr::Named { name } if boxed(name) => format!("*{}", naming::go_type(name)),
        TypeExpr::Named { name } => naming::go_type(name),
        TypeExpr::Any | TypeExpr::Untyped { .. } => "Value".to_owned(),
        TypeExpr::Null => "Null".to_owned(),
        TypeExpr::Boolean => "bool".to_owned(),
        TypeExpr::String(_) => "string".to_owned(),
        TypeExpr::Integer(integer) => integer_type(integer.format).to_owned(),
        TypeExpr::Number(_) => "Number".to_owned(),
        TypeExpr::Array(array) => format!("[]{}", go_type(&array.items, &unboxed)),
        TypeExpr::Map { values } => format!("[]Entry[{}]", go_type(values, &unboxed)),
        TypeExpr::Nullable { inner } => format!("Nullable[{}]", go_type(inner, boxed)),
    }
}

/// The runtime codec of `expression`; `skip_invalid` drops array items that fail.
pub(super) fn codec(expression: &TypeExpr, skip_invalid: bool, boxed: Boxed) -> String {
    let bound = |value: Option<u64>| value.map_or_else(|| "-1".to_owned(), |value| value.to_string());
    match expression {
        TypeExpr::Named { name } if boxed(name) => format!("pointerCodec({})", named_codec(&naming::go_type(name))),
        TypeExpr::Named { name } => named_codec(&naming::go_type(name)),
        TypeExpr::Any | TypeExpr::Untyped { .. } => "anyCodec()".to_owned(),
        TypeExpr::Null => "nullCodec()".to_owned(),
        TypeExpr::Boolean => "boolCodec()".to_owned(),
        TypeExpr::String(string) => format!(
            "stringCodec({}, {}, {})",
            bound(string.min_length),
            bound(string.max_length),
            go_string(string.pattern.as_deref().unwrap_or_default())
        ),
        TypeExpr::Integer(integer) => integer_codec(
            integer_type(integer.format),
            integer.minimum.as_ref().map(ToString::to_string),
            integer.maximum.as_ref().map(ToString::to_string),
        ),
        TypeExpr::Number(number) => format!(
            "numberCodec({}, {})",
            go_strings(number.minimum.iter().map(|minimum| go_string(&minimum.to_string()))),
            go_strings(number.maximum.iter().map(|maximum| go_string(&maximum.to_string())))
        ),
        TypeExpr::Array(array) => format!(
            "arrayCodec({}, {}, {}, {skip_invalid})",
            codec(&array.items, false, &unboxed),
            bound(array.min_items),
            bound(array.max_items)
        ),
        TypeExpr::Map { values } => format!("mapCodec({})", codec(values, false, &unboxed)),
        TypeExpr::Nullable { inner } => format!("nullableCodec({})", codec(inner, false, boxed)),
    }
}

/// The codec of the generated type `go_type`, from its two functions.
pub(super) fn named_codec(go_type: &str) -> String {
    let [decode, encode] = naming::go_codec_functions(go_type);
    format!("codec[{go_type}]{{{decode}, {encode}}}")
}

/// A field's value type and codec: `Nullable` when `null` is a value (the
/// field's Go type puts `Optional` around it when the field may be absent;
/// the runtime's `optional` handles absence).
pub(super) fn field_type(field: &Field, boxed: Boxed) -> (String, String) {
    let mut value_type = go_type(&field.ty, boxed);
    let mut value_codec = codec(&field.ty, field.decode.skip_invalid_items, boxed);
    if field.nullable {
        value_type = format!("Nullable[{value_type}]");
        value_codec = format!("nullableCodec({value_codec})");
    }
    (value_type, value_codec)
}

/// The runtime `rules` literal of a field.
pub(super) fn rules(field: &Field) -> String {
    let DecodeRules {
        default_on_error,
        default_on_null,
        ..
    } = field.decode;
    let mut members = Vec::new();
    for (name, on) in [
        ("nullable", field.nullable),
        ("onError", default_on_error),
        ("onNull", default_on_null),
    ] {
        if on {
            members.push(format!("{name}: true"));
        }
    }
    if default_on_error || default_on_null {
        match &field.fallback {
            Fallback::Absent => members.push("fallback: absentFallback".to_owned()),
            Fallback::Value(value) => {
                members.push("fallback: valueFallback".to_owned());
                members.push(format!("value: {}", go_string(&value.to_string())));
            }
            Fallback::Reject => {}
        }
    }
    format!("rules{{{}}}", members.join(", "))
}

/// A name two Go declarations would share.
pub(super) fn collision(message: String) -> acp_ir::error::CodegenError {
    acp_ir::error::CodegenError {
        kind: acp_ir::error::ErrorKind::NameCollision,
        file: "go bindings".to_owned(),
        pointer: String::new(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_lines_are_left_alone_by_gofmt() {
        assert_eq!(
            doc(Some("First line.  \n\n\n- an item\n  2. second\n")),
            ["// First line.", "//", "// - an item", "// 2. second"]
        );
        assert!(doc(Some("  ")).is_empty());
        assert_eq!(doc(Some("''' and ``x``")), ["// \u{201D}' and \u{201C}x\u{201C}"]);
        assert_eq!(
            doc(Some(
                "Text.\n\nACP transport configuration\n\nMore, (it's) ok.\n\nLast line\n\nend"
            )),
            [
                "// Text.",
                "//",
                "// # ACP transport configuration",
                "//",
                "// More, (it's) ok.",
                "//",
                "// # Last line",
                "//",
                "// end"
            ]
        );
        assert_eq!(doc(Some("A.\n\nNot a heading.\n\nb"))[2], "// Not a heading.");
    }

    #[test]
    fn codecs_of_expressions() {
        let array = TypeExpr::Array(acp_ir::ir::ArrayType {
            items: Box::new(TypeExpr::named("ContentBlock")),
            min_items: Some(1),
            max_items: None,
        });
        let all: Boxed = &|_| true;
        assert_eq!(go_type(&array, all), "[]ContentBlock");
        assert_eq!(
            codec(&array, true, all),
            "arrayCodec(codec[ContentBlock]{decodeContentBlock, encodeContentBlock}, 1, -1, true)"
        );
        assert_eq!(go_type(&TypeExpr::named("Value"), &unboxed), "Value_");
        assert_eq!(go_type(&TypeExpr::named("Tree"), all), "*Tree");
        assert_eq!(
            codec(&TypeExpr::named("Tree"), false, all),
            "pointerCodec(codec[Tree]{decodeTree, encodeTree})"
        );
    }
}
