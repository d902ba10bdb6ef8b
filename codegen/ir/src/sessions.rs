//! Per-session gates: methods a side offers per session, in the answers
//! that open one, rather than at `initialize` (`session/set_mode` by
//! `modes`, `session/set_config_option` by `configOptions`). The IR's
//! [`SessionGate`]s, read from `schema/capabilities.json`'s
//! `sessionGates`, turned into the tables every language's negotiation
//! module prints, with [`SessionOffers`] as the reference evaluator the
//! printed helpers follow.
//!
//! The rules, the same in every language:
//! - **Recording.** When an opener's answer arrives (a result of
//!   `session/new`, `session/load`, `session/resume`, `session/fork`, as
//!   the schema has them), the session it names (in the result for a new
//!   session, else in the params) is offered each gated method whose
//!   member the result carries, not `null`; the others are not offered
//!   there. A later opening answer for the same session replaces it.
//! - **Checking.** An outgoing gated method naming a session this end saw
//!   opened without the offer is refused: each language's capability error
//!   names the method, the rule's side and its member's pointer (`/modes`),
//!   with an empty params pointer. A session this end did not see
//!   opened is not judged (another connection may have opened it), and one
//!   opened with the offer is allowed.
//! - **Stripping.** The side that answers the openers offers only what it
//!   handles: without a handler for a gated method, its member is removed
//!   from the opening answers.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use crate::ir::{Ir, SessionGate, Side};

/// One gated method and its gate, in method-name order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionRule {
    pub method: String,
    pub gate: SessionGate,
}

/// The session gates of `ir`, in method-name order.
pub fn model(ir: &Ir) -> Vec<SessionRule> {
    ir.methods
        .values()
        .filter_map(|method| {
            method.session_gate.as_ref().map(|gate| SessionRule {
                method: method.name.clone(),
                gate: gate.clone(),
            })
        })
        .collect()
}

/// `rules` as the JSON the emitters print: one object per gated method,
/// `method`, `member` (the offering member's name), `session` (the member
/// naming the session) and `openers`, each `[method, sessionInResult]`.
pub fn rules_json(rules: &[SessionRule]) -> Value {
    Value::Array(
        rules
            .iter()
            .map(|rule| {
                let openers: Vec<Value> = rule
                    .gate
                    .openers
                    .iter()
                    .map(|opener| json!([opener.method, opener.session_in_result]))
                    .collect();
                json!({
                    "method": rule.method,
                    "member": rule.gate.member_name(),
                    "session": rule.gate.session,
                    "openers": openers,
                })
            })
            .collect(),
    )
}

/// What the opening answers one end received offered, per session.
#[derive(Debug, Clone, Default)]
pub struct SessionOffers {
    /// Session id -> gated method -> offered.
    sessions: BTreeMap<String, BTreeMap<String, bool>>,
}

impl SessionOffers {
    /// Notes what the answer `result` to the request `method` with `params`
    /// offered, when `method` opens a session.
    pub fn record(&mut self, rules: &[SessionRule], method: &str, params: &Value, result: &Value) {
        for rule in rules {
            let Some(opener) = rule.gate.openers.iter().find(|opener| opener.method == method) else {
                continue;
            };
            let named_in = if opener.session_in_result { result } else { params };
            let Some(session) = named_in.get(&rule.gate.session).and_then(Value::as_str) else {
                continue;
            };
            let offered = result
                .get(rule.gate.member_name())
                .is_some_and(|value| !value.is_null());
            self.sessions
                .entry(session.to_owned())
                .or_default()
                .insert(rule.method.clone(), offered);
        }
    }

    /// The rule refusing the outgoing `method` with `params`: its session
    /// was opened here without the offer.
    pub fn check<'a>(&self, rules: &'a [SessionRule], method: &str, params: &Value) -> Option<&'a SessionRule> {
        let rule = rules.iter().find(|rule| rule.method == method)?;
        let session = params.get(&rule.gate.session).and_then(Value::as_str)?;
        let offered = self.sessions.get(session)?.get(method)?;
        (!offered).then_some(rule)
    }
}

/// The members an answer to `method` leaves out, for the gated methods the
/// answering side (`side`) does not handle.
pub fn unoffered<'a>(
    rules: &'a [SessionRule],
    side: Side,
    method: &str,
    handles: impl Fn(&str) -> bool,
) -> Vec<&'a str> {
    rules
        .iter()
        .filter(|rule| rule.gate.advertised_by == side && !handles(&rule.method))
        .filter(|rule| rule.gate.openers.iter().any(|opener| opener.method == method))
        .map(|rule| rule.gate.member_name())
        .collect()
}
