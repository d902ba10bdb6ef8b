//! `methods.py`: a constant per method name, the method tables, and per side
//! the union of the params it handles and their decoding by method name.
//!
//! Sides: a method whose side is `agent` or `client` is handled by that side;
//! `protocol` and `both` methods are handled by every side; `proxy` methods
//! are handled by neither endpoint and only appear in the tables. A method is
//! optional when [`Method::optional`] gives a reason: capability-gated, not
//! negotiated at initialize, unstable, acted on by the connection itself or
//! protocol-level (which an implementation may ignore).

use askama::Template;

use super::text::string_literal;
use acp_ir::ir::{Ir, MessageKind, Method, Optional, Side};
use acp_ir::naming::{python_class, python_constant, python_handled_union, python_side_function, python_side_table};

#[derive(Template)]
#[template(path = "python/methods.py", escape = "none")]
pub(super) struct MethodsView {
    imports: Vec<String>,
    /// One constant per method name: `(CONSTANT, "name")`.
    constants: Vec<(String, String)>,
    requests: Vec<RequestView>,
    notifications: Vec<NotificationView>,
    sides: Vec<SideView>,
}

struct RequestView {
    name: String,
    side: String,
    params: String,
    result: String,
    optional: &'static str,
}

struct NotificationView {
    name: String,
    side: String,
    params: String,
    optional: &'static str,
}

/// What one side handles, for one role (requests or notifications).
struct SideView {
    side: &'static str,
    role: &'static str,
    /// `AgentHandledRequest`.
    union: String,
    /// `_m.A | _m.B | _rt.ExtensionRequest`.
    members: String,
    /// `AGENT_REQUESTS`.
    table: String,
    /// `("name", "_m.Params")` of each method the side handles.
    entries: Vec<(String, String)>,
    /// `decode_agent_request`.
    decode: String,
    /// `_rt.ExtensionRequest`.
    extension: &'static str,
}

/// Why a method is optional, or `None` when every implementation must handle it.
pub(super) fn optional(method: &Method, side: Side) -> Option<String> {
    method.optional(side).map(|reason| match reason {
        Optional::Gated(gate) => format!(
            "gated by the {} capability `{}`",
            gate.advertised_by.as_str(),
            gate.path
        ),
        Optional::SessionGated(gate) => format!("not negotiated at initialize: {}", gate.describe()),
        Optional::NotNegotiated(reason) => format!("not negotiated at initialize: {reason}"),
        Optional::Unstable => "unstable".to_owned(),
        Optional::ActedOn => "the connection acts on it itself".to_owned(),
        Optional::ProtocolLevel => "protocol-level".to_owned(),
    })
}

fn flag(on: bool) -> &'static str {
    if on {
        "True"
    } else {
        "False"
    }
}

pub(super) fn methods_view(ir: &Ir) -> MethodsView {
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for (name, method) in &ir.methods {
        if let Some(request) = &method.request {
            requests.push(RequestView {
                name: string_literal(name),
                side: string_literal(request.side.as_str()),
                params: python_class(&request.params),
                result: python_class(&request.result),
                optional: flag(optional(method, request.side).is_some()),
            });
        }
        if let Some(notification) = &method.notification {
            notifications.push(NotificationView {
                name: string_literal(name),
                side: string_literal(notification.side.as_str()),
                params: python_class(&notification.params),
                optional: flag(optional(method, notification.side).is_some()),
            });
        }
    }
    let mut sides = Vec::new();
    for side in ir.endpoints() {
        let handled = ir.handled_by(side);
        let requests = handled
            .iter()
            .filter(|message| message.kind == MessageKind::Request)
            .map(|message| (message.method, message.payload));
        sides.push(side_view(
            side.as_str(),
            "request",
            requests.collect(),
            "_rt.ExtensionRequest",
        ));
        let notifications = handled
            .iter()
            .filter(|message| message.kind == MessageKind::Notification)
            .map(|message| (message.method, message.payload));
        sides.push(side_view(
            side.as_str(),
            "notification",
            notifications.collect(),
            "_rt.ExtensionNotification",
        ));
    }
    let imports = if ir.methods.is_empty() {
        Vec::new()
    } else {
        vec!["from . import models as _m".to_owned()]
    };
    let constants = ir
        .methods
        .keys()
        .map(|name| (python_constant(name), string_literal(name)))
        .collect();
    MethodsView {
        imports,
        constants,
        requests,
        notifications,
        sides,
    }
}

fn side_view(side: &'static str, role: &'static str, handled: Vec<(&str, &str)>, extension: &'static str) -> SideView {
    let entries: Vec<(String, String)> = handled
        .iter()
        .map(|(name, params)| (string_literal(name), format!("_m.{}", python_class(params))))
        .collect();
    let mut members: Vec<String> = Vec::new();
    for (_, params) in &entries {
        if !members.contains(params) {
            members.push(params.clone());
        }
    }
    members.push(extension.to_owned());
    SideView {
        side,
        role,
        union: python_handled_union(side, role),
        members: members.join(" | "),
        table: python_side_table(side, role),
        entries,
        decode: python_side_function("decode", side, role),
        extension,
    }
}

/// The names `methods.py` defines that the package root re-exports.
pub(super) fn exports(view: &MethodsView) -> Vec<String> {
    let mut names = vec!["decode_result".to_owned()];
    for side in &view.sides {
        names.push(side.union.clone());
        names.push(side.decode.clone());
    }
    names
}
