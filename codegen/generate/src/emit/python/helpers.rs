//! The Python helpers module (`helpers.py`): the [`acp_ir::rfd`]
//! model's classes and attributes printed into the state machines of
//! `templates/python/helpers.py` (`SessionReadyGate`, `TurnTracker`,
//! `next_step`); the connections apply them (`connection.rs`).

use askama::Template;

use super::classes::VariantClasses;
use acp_ir::naming::{python_attribute, python_class, python_constant, python_flattened_attribute};
use acp_ir::rfd::Helpers;

pub struct TurnsView {
    pub notification: String,
    pub request_type: String,
    /// v1's; absent in v2, whose prompt response carries none.
    pub stop_reason_type: Option<String>,
    pub session: String,
    pub update: String,
    /// The classes of the update variants that are turn output, and of
    /// those that are the agent's reply.
    pub output: Vec<String>,
    pub replies: Vec<String>,
    pub complete: Option<CompleteView>,
    pub lifecycle: Option<LifecycleView>,
}

/// v2's `state_update`: its variant class, the attribute holding the
/// state, and the state's idle class.
pub struct LifecycleView {
    pub class: String,
    pub state: String,
    pub idle: String,
}

pub struct CompleteView {
    pub class: String,
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

/// The template's view of `model`; `classes` names the variant classes.
pub fn view(model: &Helpers, classes: &VariantClasses) -> HelpersPy {
    let turns = model.turns.as_ref().map(|turns| {
        let class = |name: &str| {
            classes
                .get(&(turns.union.clone(), name.to_owned()))
                .cloned()
                .unwrap_or_else(|| python_class(name))
        };
        let output: Vec<String> = turns.output.iter().map(|variant| class(&variant.name)).collect();
        let replies: Vec<String> = turns.replies.iter().map(|variant| class(&variant.name)).collect();
        let lifecycle = turns.lifecycle.as_ref().map(|lifecycle| {
            let variant = class(&lifecycle.variant.name);
            let tag = python_attribute(&turns.tag_property);
            let state = python_flattened_attribute(&variant, &lifecycle.union, |attr| attr == tag);
            let idle = classes
                .get(&(lifecycle.union.clone(), lifecycle.idle.name.clone()))
                .cloned()
                .unwrap_or_else(|| python_class(&lifecycle.idle.name));
            LifecycleView {
                class: variant,
                state,
                idle,
            }
        });
        let complete = turns.complete.as_ref().map(|complete| CompleteView {
            class: class(&complete.variant.name),
            request: python_attribute(&complete.request.name),
            stop_reason: python_attribute(&complete.stop_reason.name),
        });
        TurnsView {
            notification: python_class(&turns.notification),
            request_type: python_class(&turns.request_type),
            stop_reason_type: turns.stop_reason_type.as_deref().map(python_class),
            session: python_attribute(&turns.session.name),
            update: python_attribute(&turns.update.name),
            output,
            replies,
            complete,
            lifecycle,
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
        imports.extend(turns.output.iter().cloned());
        imports.extend(turns.complete.iter().map(|complete| complete.class.clone()));
        imports.extend(
            turns
                .lifecycle
                .iter()
                .flat_map(|lifecycle| [lifecycle.class.clone(), lifecycle.idle.clone()]),
        );
    }
    imports.extend(status.iter().map(|status| status.type_name.clone()));
    imports.sort_by_cached_key(|name| super::text::import_order(name));
    imports.dedup();
    HelpersPy { turns, status, imports }
}
