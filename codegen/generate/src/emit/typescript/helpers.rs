//! The TypeScript helpers module (`src/helpers.ts`): the
//! [`acp_ir::rfd`] model's names and wire members printed into the
//! state machines of `templates/typescript/helpers.ts` (`SessionReadyGate`,
//! `TurnTracker`, `nextStep`, and the connections' `SessionReadyLifecycle`).

use askama::Template;

use super::text::json_string;
use acp_ir::naming;
use acp_ir::rfd::Helpers;

/// Names the module adds to the package root, with and without the parts
/// a schema may lack.
pub const EXPORTS: [&str; 8] = [
    "SessionReadyGate",
    "SessionReadyLifecycle",
    "TurnTracker",
    "nextStep",
    "NextStep",
    "Observation",
    "Violation",
    "ViolationKind",
];

pub struct TurnsView {
    pub notification: String,
    pub request_type: String,
    /// v1's; absent in v2, whose prompt response carries none.
    pub stop_reason_type: Option<String>,
    /// Member names and tags as string literals, the output and reply tags as array literals.
    pub session: String,
    pub update: String,
    pub tag_property: String,
    pub output: String,
    pub replies: String,
    pub complete: Option<CompleteView>,
    pub lifecycle: Option<LifecycleView>,
}

/// v2's `state_update`: its tag, the state member and `idle`, as string literals.
pub struct LifecycleView {
    pub tag: String,
    pub state: String,
    pub idle: String,
}

pub struct CompleteView {
    pub tag: String,
    pub request: String,
    pub stop_reason: String,
}

pub struct ReadyView {
    /// String literals, and the openers and scoped notifications as array literals.
    pub method: String,
    pub method_text: String,
    pub member: String,
    pub openers: String,
    pub scoped: String,
}

pub struct StatusView {
    pub type_name: String,
    pub live: String,
}

#[derive(Template)]
#[template(path = "typescript/helpers.ts", escape = "none")]
pub struct HelpersTs {
    turns: Option<TurnsView>,
    status: Option<StatusView>,
    ready: Option<ReadyView>,
    /// The initialize method as a string literal ([`super::methods::initialize_method`]).
    initialize: String,
}

impl HelpersTs {
    /// The values and the types this schema's module exports.
    pub fn exports(&self) -> (Vec<&'static str>, Vec<&'static str>) {
        let mut values = vec!["SessionReadyGate"];
        let mut types = vec!["NextStep"];
        if self.turns.is_some() {
            values.push("TurnTracker");
            types.extend(["Observation", "Violation", "ViolationKind"]);
        }
        if self.status.is_some() {
            values.push("nextStep");
        }
        if self.ready.is_some() {
            values.push("SessionReadyLifecycle");
        }
        (values, types)
    }
}

/// The template's view of `model`.
pub fn view(model: &Helpers, initialize: &str) -> HelpersTs {
    let turns = model.turns.as_ref().map(|turns| TurnsView {
        notification: naming::typescript_type(&turns.notification),
        request_type: naming::typescript_type(&turns.request_type),
        stop_reason_type: turns.stop_reason_type.as_deref().map(naming::typescript_type),
        session: json_string(&turns.session.wire),
        update: json_string(&turns.update.wire),
        tag_property: json_string(&turns.tag_property),
        output: serde_json::Value::from(
            turns
                .output
                .iter()
                .map(|variant| variant.tag.as_str())
                .collect::<Vec<_>>(),
        )
        .to_string(),
        replies: serde_json::Value::from(
            turns
                .replies
                .iter()
                .map(|variant| variant.tag.as_str())
                .collect::<Vec<_>>(),
        )
        .to_string(),
        complete: turns.complete.as_ref().map(|complete| CompleteView {
            tag: json_string(&complete.variant.tag),
            request: json_string(&complete.request.wire),
            stop_reason: json_string(&complete.stop_reason.wire),
        }),
        lifecycle: turns.lifecycle.as_ref().map(|lifecycle| LifecycleView {
            tag: json_string(&lifecycle.variant.tag),
            state: json_string(&lifecycle.tag_property),
            idle: json_string(&lifecycle.idle.tag),
        }),
    });
    let status = model.status.as_ref().map(|status| StatusView {
        type_name: naming::typescript_type(&status.type_name),
        live: json_string(acp_ir::rfd::LIVE),
    });
    let ready = model.ready.as_ref().map(|ready| ReadyView {
        method: json_string(&ready.notification.method),
        method_text: format!("`{}`", ready.notification.method),
        member: json_string(&ready.notification.member),
        openers: serde_json::Value::from(
            ready
                .openers
                .iter()
                .map(|opener| serde_json::json!([opener.method, opener.in_result, opener.member]))
                .collect::<Vec<_>>(),
        )
        .to_string(),
        scoped: serde_json::Value::from(
            ready
                .scoped
                .iter()
                .map(|scoped| serde_json::json!([scoped.method, scoped.member]))
                .collect::<Vec<_>>(),
        )
        .to_string(),
    });
    HelpersTs {
        turns,
        status,
        ready,
        initialize: json_string(initialize),
    }
}
