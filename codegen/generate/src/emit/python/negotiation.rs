//! The Python negotiation module (`negotiation.py`): the
//! [`acp_ir::negotiation`] model's tables printed as typed tuples beside the
//! evaluator in `templates/python/negotiation.py` (`negotiate`,
//! `Negotiated`, `NegotiationError`, `CapabilityError`), and the
//! per-session gates' ([`acp_ir::sessions::rules_json`], objects printed as
//! dicts) beside `SessionOffers` and `without_unhandled_offers`.

use askama::Template;
use serde_json::{json, Value};

use acp_ir::ir::Side;
use acp_ir::naming;
use acp_ir::negotiation::{entries_json, pointer_tokens, Negotiation};

/// Names the module adds to the package root.
pub const EXPORTS: [&str; 7] = [
    "PROTOCOL_VERSION",
    "CapabilityError",
    "Negotiated",
    "NegotiationError",
    "SessionOffers",
    "negotiate",
    "without_unhandled_offers",
];

#[derive(Template)]
#[template(path = "python/negotiation.py", escape = "none")]
pub struct NegotiationPy {
    protocol_version: u16,
    request_type: String,
    response_type: String,
    rules: String,
    agent_methods: String,
    client_methods: String,
    sections: String,
    features: String,
    checks: String,
    session_gates: String,
}

/// The template's view of `model`.
pub fn view(model: &Negotiation) -> NegotiationPy {
    let entries = entries_json;
    let tokens = pointer_tokens;
    let rules = Value::Array(
        model
            .rules
            .iter()
            .map(|rule| json!([rule.side == Side::Agent, tokens(&rule.pointer), rule.offered]))
            .collect(),
    );
    let sections = Value::Array(
        model
            .sections
            .iter()
            .map(|section| json!([section.name, entries(&section.entries)]))
            .collect(),
    );
    let checks = Value::Array(
        model
            .checks
            .iter()
            .map(|check| {
                json!([
                    check.method,
                    tokens(&check.pointer),
                    check.tag_property,
                    check.tag_value,
                    check.rule
                ])
            })
            .collect(),
    );
    NegotiationPy {
        protocol_version: model.protocol_version,
        request_type: naming::python_class(&model.request_type),
        response_type: naming::python_class(&model.response_type),
        rules: top_level(&rules),
        agent_methods: top_level(&entries(&model.agent_methods)),
        client_methods: top_level(&entries(&model.client_methods)),
        sections: top_level(&sections),
        features: top_level(&entries(&model.features)),
        checks: top_level(&checks),
        session_gates: top_level(&acp_ir::sessions::rules_json(&model.session_gates)),
    }
}

/// A JSON array as a Python tuple, one item per line.
fn top_level(value: &Value) -> String {
    match value.as_array() {
        Some(items) if !items.is_empty() => {
            let lines: Vec<String> = items.iter().map(|item| format!("    {},", tuple(item))).collect();
            format!("(\n{}\n)", lines.join("\n"))
        }
        _ => "()".to_owned(),
    }
}

/// A JSON value as a Python literal, arrays as tuples, objects as dicts.
/// JSON string escapes are valid Python string escapes.
fn tuple(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Array(items) if items.len() == 1 => format!("({},)", tuple(&items[0])),
        Value::Array(items) => format!("({})", items.iter().map(tuple).collect::<Vec<_>>().join(", ")),
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(key, value)| format!("{}: {}", Value::from(key.as_str()), tuple(value)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        other => other.to_string(),
    }
}
