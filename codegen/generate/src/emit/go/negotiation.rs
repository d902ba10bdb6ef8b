//! `negotiation_tables.go`: the [`acp_ir::negotiation`] model's tables as
//! Go literals, the protocol version, and `Negotiate` over the schema's
//! initialize types, beside the evaluator copied from
//! `templates/go/negotiation.go` (`Negotiated`, `NegotiationError`,
//! `CapabilityError`, and the per-session gates' `SessionOffers`).
//! Emitted only when the schema negotiates.

use askama::Template;

use super::exprs::go_string;
use acp_ir::ir::Side;
use acp_ir::naming;
use acp_ir::negotiation::{Entry, Negotiation, Requirement};
use acp_schema_source::pointer::unescape_token;

#[derive(Template)]
#[template(path = "go/negotiation_tables.go.tmpl", escape = "none")]
pub(super) struct NegotiationFile {
    protocol_version: u16,
    request_type: String,
    response_type: String,
    request_encode: String,
    response_encode: String,
    rules: Vec<String>,
    agent_methods: String,
    client_methods: String,
    /// `(name literal, entries literal)`.
    sections: Vec<(String, String)>,
    features: String,
    checks: Vec<String>,
    /// `{method, member, session, []sessionOpener{...}}` literals.
    session_gates: Vec<String>,
}

/// A JSON pointer's unescaped tokens as a Go `[]string` literal.
fn tokens(pointer: &str) -> String {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|token| go_string(&unescape_token(token)))
        .collect();
    format!("[]string{{{}}}", tokens.join(", "))
}

/// A `[]negotiationEntry` literal, an entry per line, closed at `indent` tabs.
fn entries(entries: &[Entry], indent: usize) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|entry| {
            let needs = match entry.needs {
                Requirement::Always => "needsNothing".to_owned(),
                Requirement::Never => "needsAbsent".to_owned(),
                Requirement::Rule(rule) => rule.to_string(),
            };
            format!("{}{{{}, {needs}}},\n", "\t".repeat(indent + 1), go_string(&entry.name))
        })
        .collect();
    if items.is_empty() {
        return "[]negotiationEntry{}".to_owned();
    }
    format!("[]negotiationEntry{{\n{}{}}}", items.concat(), "\t".repeat(indent))
}

fn optional_string(value: Option<&str>) -> String {
    value.map_or_else(
        || "Optional[string]{}".to_owned(),
        |value| format!("Some({})", go_string(value)),
    )
}

/// The template's view of `model`.
pub(super) fn view(model: &Negotiation) -> NegotiationFile {
    // negotiation.go's SessionOffers keeps a bit per session gate in a uint64.
    assert!(
        model.session_gates.len() <= 64,
        "the Go runtime records at most 64 methods offered per session, the schema has {}",
        model.session_gates.len()
    );
    let request_type = naming::go_type(&model.request_type);
    let response_type = naming::go_type(&model.response_type);
    let [_, request_encode] = naming::go_codec_functions(&request_type);
    let [_, response_encode] = naming::go_codec_functions(&response_type);
    NegotiationFile {
        protocol_version: model.protocol_version,
        request_type,
        response_type,
        request_encode,
        response_encode,
        rules: model
            .rules
            .iter()
            .map(|rule| {
                format!(
                    "{{{}, {}, {}}}",
                    rule.side == Side::Agent,
                    tokens(&rule.pointer),
                    rule.offered
                )
            })
            .collect(),
        agent_methods: entries(&model.agent_methods, 0),
        client_methods: entries(&model.client_methods, 0),
        sections: model
            .sections
            .iter()
            .map(|section| (go_string(section.name), entries(&section.entries, 1)))
            .collect(),
        features: entries(&model.features, 0),
        checks: model
            .checks
            .iter()
            .map(|check| {
                format!(
                    "{{{}, {}, {}, {}, {}}}",
                    go_string(&check.method),
                    tokens(&check.pointer),
                    optional_string(check.tag_property.as_deref()),
                    optional_string(check.tag_value.as_deref()),
                    check.rule
                )
            })
            .collect(),
        session_gates: model
            .session_gates
            .iter()
            .map(|rule| {
                let openers: Vec<String> = rule
                    .gate
                    .openers
                    .iter()
                    .map(|opener| format!("{{{}, {}}}", go_string(&opener.method), opener.session_in_result))
                    .collect();
                format!(
                    "{{{}, {}, {}, []sessionOpener{{{}}}}}",
                    go_string(&rule.method),
                    go_string(rule.gate.member_name()),
                    go_string(&rule.gate.session),
                    openers.join(", ")
                )
            })
            .collect(),
    }
}
