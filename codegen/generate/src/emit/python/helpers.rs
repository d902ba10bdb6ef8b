//! The Python helpers module (`helpers.py`): the [`acp_ir::rfd`]
//! model printed into `templates/python/helpers.py`: the session-ready gate
//! and `next_step`, and the turn rules (`TURN_RULES`, the wire names and
//! tags the turn machine of `templates/python/turns.py` reads) with the typed
//! `TurnTracker` over that machine; the client's end of a connection
//! (`connection.rs`) feeds the same machine with the same rules.

use askama::Template;

use super::text::string_literal;
use acp_ir::naming::{python_class, python_constant};
use acp_ir::rfd::{Helpers, UpdateVariant};

pub struct TurnsView {
    pub notification: String,
    pub request_type: String,
    /// v1's; absent in v2, whose prompt response carries none.
    pub stop_reason_type: Option<String>,
    /// The wire names the machine reads, as string literals: the
    /// notification's session and update members, the update's tag member.
    pub session: String,
    pub update: String,
    pub tag: String,
    /// The tags of the update variants that are turn output, and of those
    /// that are the agent's reply, as `frozenset` expressions.
    pub output: String,
    pub replies: String,
    pub complete: Option<CompleteView>,
    pub lifecycle: Option<LifecycleView>,
}

/// v2's `state_update`, as string literals: its tag, the member holding
/// the state, and the idle state's tag.
pub struct LifecycleView {
    pub tag: String,
    pub state: String,
    pub idle: String,
}

/// v1's `turn_complete`, as string literals: its tag and the wire names of
/// its members naming the prompt request and the stop reason.
pub struct CompleteView {
    pub tag: String,
    pub request: String,
    pub stop_reason: String,
}

pub struct StatusView {
    pub type_name: String,
    pub live: String,
}

#[derive(Template)]
#[template(path = "python/helpers.py", escape = "none")]
pub struct HelpersPy {
    turns: Option<TurnsView>,
    status: Option<StatusView>,
    /// What the module imports from `models.py`, sorted.
    imports: Vec<String>,
}

impl HelpersPy {
    /// The names this schema's module exports.
    pub fn exports(&self) -> Vec<String> {
        let mut names = vec!["NextStep", "SessionReadyGate"];
        if self.turns.is_some() {
            names.extend(["Observation", "TurnTracker", "Violation", "ViolationKind"]);
        }
        if self.status.is_some() {
            names.push("next_step");
        }
        names.into_iter().map(str::to_owned).collect()
    }
}

/// The template's view of `model`.
pub fn view(model: &Helpers) -> HelpersPy {
    let turns = model.turns.as_ref().map(|turns| {
        let tags = |variants: &[UpdateVariant]| {
            if variants.is_empty() {
                return "frozenset()".to_owned();
            }
            let tags: Vec<String> = variants.iter().map(|variant| string_literal(&variant.tag)).collect();
            format!("frozenset({{{}}})", tags.join(", "))
        };
        TurnsView {
            notification: python_class(&turns.notification),
            request_type: python_class(&turns.request_type),
            stop_reason_type: turns.stop_reason_type.as_deref().map(python_class),
            session: string_literal(&turns.session.wire),
            update: string_literal(&turns.update.wire),
            tag: string_literal(&turns.tag_property),
            output: tags(&turns.output),
            replies: tags(&turns.replies),
            complete: turns.complete.as_ref().map(|complete| CompleteView {
                tag: string_literal(&complete.variant.tag),
                request: string_literal(&complete.request.wire),
                stop_reason: string_literal(&complete.stop_reason.wire),
            }),
            lifecycle: turns.lifecycle.as_ref().map(|lifecycle| LifecycleView {
                tag: string_literal(&lifecycle.variant.tag),
                state: string_literal(&lifecycle.tag_property),
                idle: string_literal(&lifecycle.idle.tag),
            }),
        }
    });
    let status = model.status.as_ref().map(|status| StatusView {
        type_name: python_class(&status.type_name),
        live: python_constant(&status.live),
    });
    let mut imports: Vec<String> = Vec::new();
    if let Some(turns) = &turns {
        imports.extend([&turns.notification, &turns.request_type].into_iter().cloned());
        imports.extend(turns.stop_reason_type.iter().cloned());
    }
    imports.extend(status.iter().map(|status| status.type_name.clone()));
    imports.sort_by_cached_key(|name| super::text::import_order(name));
    imports.dedup();
    HelpersPy { turns, status, imports }
}
