//! `connection.py`: one end of a JSON-RPC connection over any text
//! transport (the `Connection` class, fixed text of the template), and for
//! the agent and the client a typed end (`AgentConnection`,
//! `ClientConnection`) whose `request` and `notify` are overloaded by the
//! methods the other side handles, with `connect_agent` / `connect_client`
//! to open one.

use askama::Template;

use super::text::string_literal;
use crate::ir::{Ir, Side};
use crate::naming::{python_class, python_side_function};

#[derive(Template)]
#[template(path = "python/connection.py", escape = "none")]
pub(super) struct ConnectionView {
    has_methods: bool,
    /// Connections handle `session/ready` (`helpers.SessionReadyLifecycle`).
    session_ready: bool,
    /// The names imported from `protocols.py`, in isort's order.
    protocol_names: Vec<String>,
    sides: Vec<SideView>,
}

struct SideView {
    /// The typed end: `AgentConnection`.
    name: String,
    /// The side and its peer, as in prose: `agent`, `client`.
    label: &'static str,
    peer: &'static str,
    /// The protocol class the implementation provides: `Agent`.
    handler: String,
    /// `connect_agent`.
    connect: String,
    /// The side's dispatchers, from `protocols.py`.
    dispatch_request: String,
    dispatch_notification: String,
    /// What the peer handles, so what this end calls.
    requests: Vec<CallView>,
    notifications: Vec<CallView>,
}

struct CallView {
    /// The method name as a string literal.
    method: String,
    params: String,
    /// The result class; empty for a notification.
    result: String,
}

/// The peer of each side that has one.
fn peer(side: Side) -> Side {
    if side == Side::Agent { Side::Client } else { Side::Agent }
}

pub(super) fn connection_view(ir: &Ir) -> ConnectionView {
    // A connection joins the agent and the client; a proxy is one of each.
    let sides: Vec<SideView> = [Side::Agent, Side::Client]
        .into_iter()
        .map(|side| {
            let handler = crate::naming::endpoint_type(side);
            let other = peer(side);
            let mut requests = Vec::new();
            let mut notifications = Vec::new();
            for (name, method) in &ir.methods {
                if let Some(request) = method.request.as_ref().filter(|request| request.side.handled_by(other)) {
                    requests.push(CallView { method: string_literal(name), params: python_class(&request.params), result: python_class(&request.result) });
                }
                if let Some(notification) = method.notification.as_ref().filter(|notification| notification.side.handled_by(other)) {
                    notifications.push(CallView { method: string_literal(name), params: python_class(&notification.params), result: String::new() });
                }
            }
            let label = side.as_str();
            SideView {
                name: python_class(&format!("{handler}Connection")),
                label,
                peer: other.as_str(),
                handler,
                connect: python_side_function("connect", label, ""),
                dispatch_request: python_side_function("dispatch", label, "request"),
                dispatch_notification: python_side_function("dispatch", label, "notification"),
                requests,
                notifications,
            }
        })
        .collect();
    let mut protocol_names: Vec<String> = sides.iter().map(|side| side.handler.clone()).collect();
    protocol_names.extend(sides.iter().flat_map(|side| [side.dispatch_notification.clone(), side.dispatch_request.clone()]));
    protocol_names.sort_by_cached_key(|name| super::text::import_order(name));
    let session_ready = crate::negotiation::model(ir).is_some() && crate::helpers::model(ir).ready.is_some();
    ConnectionView { has_methods: !ir.methods.is_empty(), session_ready, protocol_names, sides }
}

/// The names `connection.py` defines that the package root re-exports.
pub(super) fn exports(view: &ConnectionView) -> Vec<String> {
    let mut names = vec!["Connection".to_owned(), "Dropped".to_owned(), "Send".to_owned()];
    names.extend(view.sides.iter().flat_map(|side| [side.name.clone(), side.connect.clone()]));
    names
}
