//! The TypeScript negotiation module (`src/negotiation.ts`): the
//! [`acp_ir::negotiation`] model's tables printed as typed constants beside
//! the evaluator in `templates/typescript/negotiation.ts` (`negotiate`,
//! `Negotiated`, `NegotiationError`, `CapabilityError`), and the
//! per-session gates' ([`acp_ir::sessions`]) beside `SessionOffers` and
//! `withoutUnhandledOffers`.

use askama::Template;
use serde_json::{json, Value};

use acp_ir::ir::Side;
use acp_ir::naming;
use acp_ir::negotiation::{entries_json, pointer_tokens, Negotiation};

/// Names the module adds to the package's exports.
pub const EXPORTS: [&str; 8] = [
    "PROTOCOL_VERSION",
    "NegotiationError",
    "CapabilityError",
    "Negotiated",
    "NegotiatedJson",
    "negotiate",
    "SessionOffers",
    "withoutUnhandledOffers",
];

#[derive(Template)]
#[template(path = "typescript/negotiation.ts", escape = "none")]
pub struct NegotiationTs {
    protocol_version: u16,
    request_type: String,
    response_type: String,
    request_decoder: String,
    response_decoder: String,
    request_name: String,
    response_name: String,
    rules: String,
    agent_methods: String,
    client_methods: String,
    sections: String,
    features: String,
    checks: String,
    session_gates: String,
}

/// The model's tables as JSON values, shared by the TypeScript and Python
/// emitters (both print JSON-shaped literals).
pub(crate) fn tables(model: &Negotiation) -> [(&'static str, Value); 6] {
    let entries = entries_json;
    let tokens = pointer_tokens;
    [
        ("rules", Value::Array(model.rules.iter().map(|rule| json!({"agent": rule.side == Side::Agent, "pointer": tokens(&rule.pointer), "offered": rule.offered})).collect())),
        ("agent_methods", entries(&model.agent_methods)),
        ("client_methods", entries(&model.client_methods)),
        ("sections", Value::Array(model.sections.iter().map(|section| json!([section.name, entries(&section.entries)])).collect())),
        ("features", entries(&model.features)),
        (
            "checks",
            Value::Array(
                model
                    .checks
                    .iter()
                    .map(|check| json!({"method": check.method, "pointer": tokens(&check.pointer), "tagProperty": check.tag_property, "tagValue": check.tag_value, "rule": check.rule}))
                    .collect(),
            ),
        ),
    ]
}

/// The template's view of `model`.
pub fn view(model: &Negotiation) -> NegotiationTs {
    let [rules, agent_methods, client_methods, sections, features, checks] =
        tables(model).map(|(_, value)| literal(&value));
    let request_type = naming::typescript_type(&model.request_type);
    let response_type = naming::typescript_type(&model.response_type);
    NegotiationTs {
        protocol_version: model.protocol_version,
        request_decoder: naming::typescript_decoder(&request_type),
        response_decoder: naming::typescript_decoder(&response_type),
        request_name: super::text::json_string(&model.request_type),
        response_name: super::text::json_string(&model.response_type),
        request_type,
        response_type,
        rules,
        agent_methods,
        client_methods,
        sections,
        features,
        checks,
        session_gates: literal(&acp_ir::sessions::rules_json(&model.session_gates)),
    }
}

/// A JSON value as a TypeScript literal, one array item per line at the top.
fn literal(value: &Value) -> String {
    match value {
        Value::Array(items) if !items.is_empty() => {
            let lines: Vec<String> = items.iter().map(|item| format!("  {item},")).collect();
            format!("[\n{}\n]", lines.join("\n"))
        }
        other => other.to_string(),
    }
}
