//! Hostile wire input through the Rust bindings: every case of
//! `tests/hostile-wire.json` (copied beside this harness by `cargo xtask
//! test`) decoded from bytes with `serde_json::from_slice` as its type, from a
//! `serde_json::Value` with `codec::decode`, and by method name with the
//! `methods` enums, each giving the outcome the table states for Rust.

use acp_bindings::methods::{agent, client};
use acp_bindings::types::{CreateTerminalRequest, PromptRequest, SessionNotification};
use serde_json::Value;

const TABLE: &str = include_str!("../hostile-wire.json");

/// The wire bytes of a case: its template with `@` filled.
fn wire(case: &Value) -> Vec<u8> {
    let template = case["wire"]["template"].as_str().expect("a template");
    let fill = &case["wire"]["fill"];
    let (before, after) = template.split_once('@').unwrap_or((template, ""));
    let mut bytes = before.as_bytes().to_vec();
    if let Some(depth) = fill["nest"].as_u64() {
        bytes.extend(std::iter::repeat_n(b'[', depth as usize));
        bytes.push(b'1');
        bytes.extend(std::iter::repeat_n(b']', depth as usize));
    } else if let Some(unit) = fill["string"].as_str() {
        bytes.push(b'"');
        bytes.extend(
            unit.repeat(fill["times"].as_u64().expect("times") as usize)
                .into_bytes(),
        );
        bytes.push(b'"');
    } else if let Some(text) = fill["text"].as_str() {
        bytes.extend(text.repeat(fill["times"].as_u64().unwrap_or(1) as usize).into_bytes());
    } else if let Some(hex) = fill["bytes"].as_str() {
        bytes.extend(
            (0..hex.len())
                .step_by(2)
                .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex")),
        );
    }
    bytes.extend(after.as_bytes());
    bytes
}

/// The value of a case built in memory (for text the parser refuses to read
/// this deep): the template parsed with the hole as a marker, the marker
/// replaced by the nested arrays.
fn built(case: &Value) -> Value {
    let template = case["wire"]["template"]
        .as_str()
        .expect("a template")
        .replace('@', "\"@hole\"");
    let mut value: Value = serde_json::from_str(&template).expect("the template parses");
    let depth = case["wire"]["fill"]["nest"]
        .as_u64()
        .expect("only nesting is built in memory");
    let mut nested = Value::from(1);
    for _ in 0..depth {
        nested = Value::Array(vec![nested]);
    }
    let mut pending = vec![&mut value];
    while let Some(current) = pending.pop() {
        if current == "@hole" {
            *current = nested;
            break;
        }
        match current {
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(members) => pending.extend(members.values_mut()),
            _ => {}
        }
    }
    value
}

/// A JSON pointer as the table writes it: a string, or `prefix` then `repeat` `times` times.
fn pointer(spec: &Value) -> String {
    match spec {
        Value::String(text) => text.clone(),
        _ => format!(
            "{}{}",
            spec["prefix"].as_str().expect("prefix"),
            spec["repeat"]
                .as_str()
                .expect("repeat")
                .repeat(spec["times"].as_u64().expect("times") as usize)
        ),
    }
}

/// `serde_json::from_slice` as the case's type, re-encoded.
fn from_slice(type_name: &str, bytes: &[u8]) -> Result<Value, serde_json::Error> {
    fn typed<T: serde::de::DeserializeOwned + serde::Serialize>(bytes: &[u8]) -> Result<Value, serde_json::Error> {
        serde_json::to_value(serde_json::from_slice::<T>(bytes)?)
    }
    match type_name {
        "SessionNotification" => typed::<SessionNotification>(bytes),
        "PromptRequest" => typed::<PromptRequest>(bytes),
        "CreateTerminalRequest" => typed::<CreateTerminalRequest>(bytes),
        other => panic!("no type {other} in this test"),
    }
}

/// Decodes `params` by method name on the case's side, re-encoded; the error as JSON.
fn by_method(case: &Value, params: Value) -> Result<Value, Value> {
    let method = case["method"].as_str().expect("a method");
    let decoded = match (case["side"].as_str(), case["kind"].as_str()) {
        (Some("agent"), Some("request")) => agent::Request::decode(method, params).map(|call| call.params()),
        (Some("agent"), _) => agent::Notification::decode(method, params).map(|call| call.params()),
        (Some("client"), Some("request")) => client::Request::decode(method, params).map(|call| call.params()),
        _ => client::Notification::decode(method, params).map(|call| call.params()),
    };
    decoded
        .map(|encoded| encoded.expect("a decoded value encodes"))
        .map_err(|error| serde_json::to_value(error).expect("errors encode"))
}

/// What decoding the value `input` (by type and by method) must give under `expected`.
fn check_value(case: &Value, expected: &Value, input: Value) {
    let name = case["name"].as_str().unwrap_or_default();
    let type_name = case["type"].as_str().expect("a type");
    match expected["outcome"].as_str() {
        Some("accepted") => {
            let wanted = match expected["encodes"].as_str() {
                Some(text) => serde_json::from_str(text).expect("`encodes` parses"),
                None => input.clone(),
            };
            let encoded = acp_bindings::roundtrip(type_name, &input).unwrap_or_else(|error| panic!("{name}: {error}"));
            assert!(encoded == wanted, "{name}: re-encoded to something else");
            assert!(
                by_method(case, input).is_ok_and(|encoded| encoded == wanted),
                "{name}: by method, not the same value"
            );
        }
        Some("error") => {
            let at = pointer(&expected["pointer"]);
            let error = acp_bindings::roundtrip(type_name, &input).expect_err(name);
            assert_eq!(error.path, at, "{name}: {}", error.message);
            let error = by_method(case, input).expect_err(name);
            assert_eq!(error["code"], -32602, "{name}: {error}");
            assert_eq!(error["data"]["pointer"], at.as_str(), "{name}");
        }
        Some("method-not-found") => {
            let error = by_method(case, input).expect_err(name);
            assert_eq!(error["code"], -32601, "{name}: {error}");
        }
        Some("extension") => {
            assert!(
                by_method(case, input.clone()).is_ok_and(|params| params == input),
                "{name}: not an extension call with the params as they came"
            );
        }
        other => panic!("{name}: no value outcome {other:?}"),
    }
}

/// The error of `from_slice` says what the table's `message` says, if it says anything.
fn says(case: &Value, expected: &Value, error: &serde_json::Error) {
    if let Some(message) = expected["message"].as_str() {
        assert!(error.to_string().contains(message), "{}: {error}", case["name"]);
    }
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap_or_default();
    let expected = &case["expect"]["rust"];
    let bytes = wire(case);
    let type_name = case["type"].as_str().expect("a type");
    match expected["outcome"].as_str() {
        Some("parse-error") => {
            let error = serde_json::from_slice::<Value>(&bytes).expect_err(name);
            assert!(error.is_syntax() || error.is_data(), "{name}: {error}");
            says(case, expected, &from_slice(type_name, &bytes).expect_err(name));
            if !expected["built"].is_null() {
                check_value(case, &expected["built"], built(case));
            }
        }
        Some("error") => {
            says(case, expected, &from_slice(type_name, &bytes).expect_err(name));
            let value = serde_json::from_slice::<Value>(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            check_value(case, expected.get("value").unwrap_or(expected), value);
        }
        Some("accepted") => {
            let value: Value = serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            let encoded = from_slice(type_name, &bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            let wanted = match expected["encodes"].as_str() {
                Some(text) => serde_json::from_str(text).expect("`encodes` parses"),
                None => value.clone(),
            };
            assert!(encoded == wanted, "{name}: from_slice re-encoded to something else");
            if case["wire"]["exact"] == true {
                let text = case["wire"]["fill"]["text"]
                    .as_str()
                    .expect("an exact case fills in text");
                assert!(
                    serde_json::to_string(&encoded).expect("encodes").contains(text),
                    "{name}: {text} was not written back as it came"
                );
            }
            check_value(case, expected, value);
        }
        Some("method-not-found" | "extension") => check_value(
            case,
            expected,
            serde_json::from_slice(&bytes).expect("the params parse"),
        ),
        other => panic!("{name}: no outcome {other:?} for Rust"),
    }
}

#[test]
fn every_hostile_case_gives_its_documented_outcome() {
    let table: Value = serde_json::from_str(TABLE).expect("the table parses");
    assert_eq!(
        table["maxDepth"],
        acp_bindings::codec::MAX_DEPTH,
        "the table's depth limit is the crate's"
    );
    let cases = table["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20, "the table lost cases");
    for case in cases {
        check(case);
    }
}

#[test]
fn a_value_as_deep_as_the_parser_allows_decodes_and_one_deeper_does_not() {
    let at_limit = "[".repeat(acp_bindings::codec::MAX_DEPTH) + &"]".repeat(acp_bindings::codec::MAX_DEPTH);
    serde_json::from_str::<Value>(&at_limit).expect("serde_json reads MAX_DEPTH levels");
    let over = format!("[{at_limit}]");
    serde_json::from_str::<Value>(&over).expect_err("serde_json stops one level deeper");
}
