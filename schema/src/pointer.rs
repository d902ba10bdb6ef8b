//! JSON pointer reference tokens (RFC 6901): the one escape and unescape
//! every stage uses when it builds or reads a pointer.

/// Escapes one reference token for use in a JSON pointer: `~` -> `~0`,
/// `/` -> `~1`.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Reads one escaped reference token back: `~1` -> `/`, `~0` -> `~`.
pub fn unescape_token(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_in_rfc_6901_order() {
        assert_eq!(escape_token("a/b~c"), "a~1b~0c");
        assert_eq!(unescape_token("a~1b~0c"), "a/b~c");
        // `~01` is an escaped `~` followed by `1`, never a `/`.
        assert_eq!(unescape_token("~01"), "~1");
        assert_eq!(escape_token("~1"), "~01");
    }
}
