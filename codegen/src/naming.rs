//! Every name decision of the generator, in one place.
//!
//! Canonical names are PascalCase, derived from `$defs` keys, tag values,
//! enum constants and titles; synthesized types are named from their owner
//! and the member they sit in. The wire name is always kept beside a
//! canonical name so that renames are emitted only where the two differ.

/// Splits `text` into words at separators, case changes and digit runs.
fn words(text: &str) -> Vec<String> {
    let mut result = Vec::new();
    let mut current = String::new();
    let characters: Vec<char> = text.chars().collect();
    for (index, &character) in characters.iter().enumerate() {
        if !character.is_alphanumeric() {
            if !current.is_empty() {
                result.push(std::mem::take(&mut current));
            }
            continue;
        }
        if let Some(&previous) = current.chars().last().as_ref() {
            let next = characters.get(index + 1).copied();
            let lower_to_upper = previous.is_lowercase() && character.is_uppercase();
            let acronym_end = previous.is_uppercase()
                && character.is_uppercase()
                && next.is_some_and(char::is_lowercase);
            let digit_boundary = previous.is_ascii_digit() != character.is_ascii_digit()
                && !previous.is_ascii_digit();
            if lower_to_upper || acronym_end || digit_boundary {
                result.push(std::mem::take(&mut current));
            }
        }
        current.push(character);
    }
    if !current.is_empty() {
        result.push(current);
    }
    result
}

/// `agent_message_chunk` -> `AgentMessageChunk`, `Parse error` -> `ParseError`,
/// `TextResourceContents` stays. A name that would start with a digit gets a
/// `Value` prefix; an empty one becomes `Empty`.
pub fn pascal_case(text: &str) -> String {
    let mut name: String = words(text)
        .iter()
        .map(|word| {
            let mut characters = word.chars();
            match characters.next() {
                Some(first) => first.to_uppercase().chain(characters).collect::<String>(),
                None => String::new(),
            }
        })
        .collect();
    if name.is_empty() {
        return "Empty".to_owned();
    }
    if name.starts_with(|character: char| character.is_ascii_digit()) {
        name.insert_str(0, "Value");
    }
    name
}

/// `sessionUpdate` -> `session_update`, `_meta` -> `meta`.
pub fn snake_case(text: &str) -> String {
    words(text).iter().map(|word| word.to_lowercase()).collect::<Vec<_>>().join("_")
}

/// The canonical name of a `$defs` entry.
pub fn definition_name(key: &str) -> String {
    pascal_case(key)
}

/// The name of a type synthesized for the member `member` of `owner`.
pub fn member_type_name(owner: &str, member: &str) -> String {
    format!("{owner}{}", pascal_case(member))
}

/// The name of a union that sits beside `properties` in `owner`: named after
/// its tag property when it has one (`SessionConfigOption` + `type`), else `Kind`.
pub fn flattened_union_name(owner: &str, tag_property: Option<&str>) -> String {
    member_type_name(owner, tag_property.unwrap_or("kind"))
}

/// The name of an integer enum constant without a title.
pub fn integer_constant_name(value: i64) -> String {
    if value < 0 {
        format!("Minus{}", value.unsigned_abs())
    } else {
        format!("Value{value}")
    }
}

/// The name of a catch-all member: its title, made distinct from `taken`.
pub fn catch_all_name(title: Option<&str>, taken: &[String]) -> String {
    let mut name = pascal_case(title.unwrap_or("other"));
    while taken.contains(&name) {
        name.push_str("Value");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_table() {
        let table = [
            ("agent_message_chunk", "AgentMessageChunk"),
            ("turn_complete", "TurnComplete"),
            ("Parse error", "ParseError"),
            ("TextResourceContents", "TextResourceContents"),
            ("http", "Http"),
            ("_meta", "Meta"),
            ("session/load", "SessionLoad"),
            ("not_found", "NotFound"),
            ("2.0", "Value20"),
            ("HTTPServer", "HTTPServer"),
            ("McpServerHttp", "McpServerHttp"),
            ("uint16", "Uint16"),
            ("", "Empty"),
        ];
        for (input, expected) in table {
            assert_eq!(pascal_case(input), expected, "pascal_case({input:?})");
        }
    }

    #[test]
    fn snake_case_table() {
        let table = [
            ("sessionUpdate", "session_update"),
            ("_meta", "meta"),
            ("promptRequestId", "prompt_request_id"),
            ("mcpServers", "mcp_servers"),
            ("readTextFile", "read_text_file"),
        ];
        for (input, expected) in table {
            assert_eq!(snake_case(input), expected, "snake_case({input:?})");
        }
    }

    #[test]
    fn catch_all_avoids_known_names() {
        assert_eq!(catch_all_name(Some("other"), &["Read".into()]), "Other");
        assert_eq!(catch_all_name(Some("other"), &["Other".into()]), "OtherValue");
        assert_eq!(catch_all_name(None, &[]), "Other");
    }

    #[test]
    fn synthesized_names() {
        assert_eq!(member_type_name("AgentRequest", "params"), "AgentRequestParams");
        assert_eq!(flattened_union_name("SessionConfigOption", Some("type")), "SessionConfigOptionType");
        assert_eq!(flattened_union_name("ElicitationFormMode", None), "ElicitationFormModeKind");
        assert_eq!(integer_constant_name(-32700), "Minus32700");
    }
}
