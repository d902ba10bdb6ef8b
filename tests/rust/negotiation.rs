//! Capability negotiation on the initialize pairs of `tests/negotiation.json`
//! (`cargo xtask test` writes this schema's entry to
//! `<bindings>/negotiation.json`, beside the `ACP_VECTORS` folder): every
//! view as the table expects, the typed errors, every outgoing check passing
//! and refused, accessors agreeing with the document. The compact JSON of
//! each view goes to `<bindings>/negotiation-rust.txt`, which `cargo xtask
//! test` compares byte for byte with the other languages'.

use std::path::PathBuf;

use acp_bindings::{negotiate, CapabilityError, Negotiated, NegotiationError};
use serde_json::Value;

fn folder() -> PathBuf {
    let vectors = PathBuf::from(std::env::var("ACP_VECTORS").expect("ACP_VECTORS names the vector folder"));
    vectors
        .parent()
        .expect("the vectors sit in the bindings folder")
        .to_path_buf()
}

fn cases() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(folder().join("negotiation.json")).expect("cargo xtask test writes negotiation.json"),
    )
    .unwrap()
}

fn negotiated(pair: &Value) -> Result<Negotiated, NegotiationError> {
    negotiate(&pair["request"], &pair["response"])
}

/// Every boolean of a view by its path (`section/name` or `name`).
fn booleans(document: &Value) -> Vec<(String, bool)> {
    let mut found = Vec::new();
    for (key, value) in document.as_object().unwrap() {
        match value {
            Value::Object(members) => found.extend(
                members
                    .iter()
                    .map(|(name, flag)| (format!("{key}/{name}"), flag.as_bool().unwrap())),
            ),
            Value::Bool(flag) => found.push((key.clone(), *flag)),
            _ => {}
        }
    }
    found
}

fn listed(view: &Value, key: &str) -> Vec<String> {
    view[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| path.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_view_is_as_the_table_says_and_is_written_for_comparison() {
    let cases = cases();
    let views = cases["views"].as_array().unwrap();
    assert!(!views.is_empty(), "the table has views for this schema");
    let mut lines = Vec::new();
    for view in views {
        let name = view["pair"].as_str().unwrap();
        let pair = &cases["pairs"][name];
        let result = negotiated(pair).unwrap();
        let document = serde_json::to_value(&result).unwrap();
        assert_eq!(document["protocolVersion"], view["protocolVersion"]);
        assert_eq!(Value::from(result.protocol_version()), view["protocolVersion"]);
        let flags = booleans(&document);
        let (on, off) = (listed(view, "true"), listed(view, "false"));
        for path in on.iter().chain(&off) {
            assert!(
                flags.iter().any(|(known, _)| known == path),
                "{name}: the view has no {path}"
            );
        }
        for (path, flag) in &flags {
            let expected = if on.contains(path) {
                true
            } else if off.contains(path) {
                false
            } else {
                view["others"].as_bool().unwrap()
            };
            assert_eq!(*flag, expected, "{name}: {path} is {flag}");
        }
        for (method, flag) in document["agentHandles"].as_object().unwrap() {
            assert_eq!(result.agent_handles(method), flag.as_bool().unwrap());
        }
        for (method, flag) in document["clientHandles"].as_object().unwrap() {
            assert_eq!(result.client_handles(method), flag.as_bool().unwrap());
        }
        assert!(!result.agent_handles("no/such_method") && !result.client_handles("no/such_method"));
        for section in ["prompt", "mcp", "updates", "elicitation"] {
            for (entry, flag) in document[section].as_object().unwrap() {
                assert_eq!(result.allows(section, entry), flag.as_bool().unwrap());
            }
        }
        assert_eq!(Value::from(result.session_ready()), document["sessionReady"]);
        assert_eq!(Value::from(result.turn_complete()), document["turnComplete"]);
        assert_eq!(Value::from(result.session_status()), document["sessionStatus"]);
        let request: acp_bindings::InitializeRequest = serde_json::from_value(pair["request"].clone()).unwrap();
        let response: acp_bindings::InitializeResponse = serde_json::from_value(pair["response"].clone()).unwrap();
        let decoded = negotiate(&request, &response).unwrap();
        assert_eq!(
            serde_json::to_string(&decoded).unwrap(),
            serde_json::to_string(&result).unwrap(),
            "decoded values negotiate as their JSON does"
        );
        lines.push(format!("{name}\t{}", serde_json::to_string(&result).unwrap()));
    }
    std::fs::write(folder().join("negotiation-rust.txt"), format!("{}\n", lines.join("\n"))).unwrap();
}

#[test]
fn bad_pairs_fail_with_typed_errors() {
    let cases = cases();
    let errors = cases["errors"].as_array().unwrap();
    assert!(!errors.is_empty());
    for pair in errors {
        let error = negotiated(pair).expect_err(pair["name"].as_str().unwrap());
        let kind = match error {
            NegotiationError::Decode { .. } => "decode",
            NegotiationError::VersionAboveRequested { .. } => "version_above_requested",
            NegotiationError::UnsupportedVersion { .. } => "unsupported_version",
        };
        assert_eq!(kind, pair["error"], "{}", pair["name"]);
    }
}

fn refusals(pair: &Value, messages: &Value) {
    let cases = cases();
    let messages = messages.as_array().unwrap();
    assert!(!messages.is_empty());
    let allowed = negotiated(&cases["pairs"]["all"]).unwrap();
    let refused = negotiated(pair).unwrap();
    for message in messages {
        let method = message["method"].as_str().unwrap();
        assert_eq!(allowed.check_outgoing(method, &message["params"]), Ok(()), "{method}");
        let error: CapabilityError = refused.check_outgoing(method, &message["params"]).expect_err(method);
        assert_eq!(
            (
                error.method.as_str(),
                error.pointer.as_str(),
                error.capability.as_str(),
                error.side
            ),
            (
                method,
                message["pointer"].as_str().unwrap(),
                message["capability"].as_str().unwrap(),
                message["side"].as_str().unwrap()
            )
        );
    }
}

#[test]
fn outgoing_messages_pass_when_advertised_and_are_refused_when_not() {
    let cases = cases();
    refusals(&cases["pairs"]["none"], &cases["outgoing"]);
}

#[test]
fn parts_of_allowed_methods_are_refused_when_not_advertised() {
    let cases = cases();
    let partials = cases["partial"].as_array().unwrap();
    assert!(!partials.is_empty());
    for partial in partials {
        refusals(&partial["pair"], &partial["outgoing"]);
    }
}

/// The README's example: a client negotiates, asks, and checks a prompt before sending it.
#[test]
fn example_a_client_checks_before_it_sends() {
    let request = serde_json::json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}});
    let response =
        serde_json::json!({"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": {"image": true}}});
    if acp_bindings::PROTOCOL_VERSION != 1 {
        assert!(
            negotiate(&request, &response).is_err(),
            "v1 messages do not negotiate with v2 bindings"
        );
        return;
    }
    let negotiated = negotiate(&request, &response).expect("both decode and agree on version 1");
    assert!(negotiated.client_handles("fs/read_text_file"));
    assert!(!negotiated.agent_handles("session/load"));
    let prompt =
        serde_json::json!({"sessionId": "s1", "prompt": [{"type": "audio", "data": "", "mimeType": "audio/wav"}]});
    let refused = negotiated.check_outgoing("session/prompt", &prompt).unwrap_err();
    assert_eq!(refused.pointer, "/prompt/0");
    assert_eq!(refused.capability, "/agentCapabilities/promptCapabilities/audio");
    let view = serde_json::to_string_pretty(&negotiated).unwrap();
    assert!(view.contains("\"image\": true"));
}
