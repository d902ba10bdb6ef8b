//! The Python helpers module (`helpers.py`): the [`crate::helpers`]
//! model's classes and attributes printed into the state machines of
//! `templates/python/helpers.py` (`SessionReadyGate`, `TurnTracker`,
//! `next_step`, and the connections' `SessionReadyLifecycle`).

use askama::Template;

use super::text::string_literal;
use super::classes::VariantClasses;
use crate::helpers::Helpers;
use crate::naming::{python_attribute, python_class, python_constant};

pub struct TurnsView {
    pub notification: String,
    pub request_type: String,
    pub stop_reason_type: String,
    pub session: String,
    pub update: String,
    /// The classes of the update variants that are turn output.
    pub output: Vec<String>,
    pub complete: Option<CompleteView>,
}

pub struct CompleteView {
    pub class: String,
    pub request: String,
    pub stop_reason: String,
}

pub struct ReadyView {
    /// String literals, and the openers and scoped notifications as tuple literals.
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
#[template(path = "python/helpers.py", escape = "none")]
pub struct HelpersPy {
    turns: Option<TurnsView>,
    status: Option<StatusView>,
    ready: Option<ReadyView>,
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
        if self.ready.is_some() {
            names.push("SessionReadyLifecycle");
        }
        names.into_iter().map(str::to_owned).collect()
    }
}

/// The template's view of `model`; `classes` names the variant classes.
pub fn view(model: &Helpers, classes: &VariantClasses) -> HelpersPy {
    let turns = model.turns.as_ref().map(|turns| {
        let class = |name: &str| classes.get(&(turns.union.clone(), name.to_owned())).cloned().unwrap_or_else(|| python_class(name));
        let output: Vec<String> = turns.output.iter().map(|variant| class(&variant.name)).collect();
        let complete = turns.complete.as_ref().map(|complete| CompleteView {
            class: class(&complete.variant.name),
            request: python_attribute(&complete.request.name),
            stop_reason: python_attribute(&complete.stop_reason.name),
        });
        TurnsView {
            notification: python_class(&turns.notification),
            request_type: python_class(&turns.request_type),
            stop_reason_type: python_class(&turns.stop_reason_type),
            session: python_attribute(&turns.session.name),
            update: python_attribute(&turns.update.name),
            output,
            complete,
        }
    });
    let status = model.status.as_ref().map(|status| StatusView { type_name: python_class(&status.type_name), live: python_constant(&status.live) });
    let mut imports: Vec<String> = Vec::new();
    if let Some(turns) = &turns {
        imports.extend([&turns.notification, &turns.request_type, &turns.stop_reason_type].into_iter().cloned());
        imports.extend(turns.output.iter().cloned());
        imports.extend(turns.complete.iter().map(|complete| complete.class.clone()));
    }
    imports.extend(status.iter().map(|status| status.type_name.clone()));
    imports.sort_by_cached_key(|name| super::text::import_order(name));
    imports.dedup();
    let ready = model.ready.as_ref().map(|ready| ReadyView {
        method: string_literal(&ready.notification.method),
        method_text: format!("`{}`", ready.notification.method),
        member: string_literal(&ready.notification.member),
        openers: tuple(ready.openers.iter().map(|opener| format!("({}, {}, {})", string_literal(&opener.method), if opener.in_result { "True" } else { "False" }, string_literal(&opener.member)))),
        scoped: tuple(ready.scoped.iter().map(|scoped| format!("({}, {})", string_literal(&scoped.method), string_literal(&scoped.member)))),
    });
    HelpersPy { turns, status, ready, imports }
}

/// Items as a Python tuple literal.
fn tuple(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.len() {
        0 => "()".to_owned(),
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}
