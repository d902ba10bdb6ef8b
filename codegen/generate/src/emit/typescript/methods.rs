//! `src/methods.ts`: method-name constants, and for each side its request
//! and notification maps, the decoded-call unions, the interface an
//! implementation provides (a member per method it handles; gated and
//! unstable methods optional, like the extension-method handlers), and its
//! typed functions over the JSON-RPC runtime of `src/rpc.ts`: decode a call
//! or a result by method name, dispatch to an implementation, encode a call.
//!
//! Sides: `agent` and `client` methods go to their side; `protocol` methods
//! (`$/cancel_request`) and `both` methods are handled by every side, so they
//! go to each side's maps and interface; `proxy` methods get a `Proxy` side
//! of their own (with the protocol methods), emitted only when the schema
//! has proxy methods.

use std::collections::BTreeMap;

use askama::Template;

use super::text::{json_string, tsdoc};
use crate::error::{CodegenError, ErrorKind};
use crate::ir::*;
use crate::naming;

/// The sides that get maps and an interface.
pub const SIDES: [Side; 3] = [Side::Agent, Side::Client, Side::Proxy];
/// The names each side's types are derived from: its interface, its maps and
/// its decoded-call unions.
pub const ROLES: [&str; 6] = ["", "requests", "notifications", "incoming request", "incoming notification", "connection"];
/// The (verb, role) names of each side's functions.
pub const FUNCTIONS: [(&str, &str); 9] = [
    ("decode", "incoming request"),
    ("decode", "incoming notification"),
    ("decode", "result"),
    ("dispatch", "request"),
    ("dispatch", "notification"),
    ("dispatch", "message"),
    ("encode", "request"),
    ("encode", "notification"),
    ("connect", ""),
];
/// The two sides of a connection: each side's peer, whose methods it calls.
const PEERS: [(&str, &str); 2] = [("agent", "client"), ("client", "agent")];
/// The interface members that handle extension requests and notifications.
const EXTENSION_HANDLERS: [&str; 2] = ["extension request", "extension notification"];

#[derive(Template)]
#[template(path = "typescript/methods.ts", escape = "none")]
pub struct MethodsFile {
    names: Vec<NameView>,
    sides: Vec<SideView>,
    /// Connections handle `session/ready` (`SessionReadyLifecycle`).
    session_ready: bool,
}

struct NameView {
    doc: Vec<String>,
    key: String,
    wire: String,
    /// `{ request: { side, params, result }, notification: { side, params } }`
    /// with canonical type names, for `decodeByName`.
    payloads: String,
}

struct SideView {
    label: &'static str,
    interface: String,
    requests_map: String,
    notifications_map: String,
    incoming_request: String,
    incoming_notification: String,
    decode_request: String,
    decode_notification: String,
    decode_result: String,
    dispatch_request: String,
    dispatch_notification: String,
    dispatch_message: String,
    encode_request: String,
    encode_notification: String,
    /// The module-private routes constant.
    routes: String,
    extension_request: String,
    extension_notification: String,
    requests: Vec<CallView>,
    notifications: Vec<CallView>,
    /// The side's end of a connection, for the two sides that have a peer.
    connection: Option<ConnectionView>,
}

/// A side's end of a connection: its own names and its peer's, whose
/// methods it calls and whose results it decodes.
struct ConnectionView {
    interface: String,
    connect: String,
    peer: &'static str,
    peer_requests_map: String,
    peer_notifications_map: String,
    peer_routes: String,
}

struct CallView {
    doc: Vec<String>,
    wire: String,
    function: String,
    /// `?` when an implementation may leave the method out, else empty.
    mark: &'static str,
    params: String,
    /// What the handler resolves to: the result type, `void` for notifications.
    result: String,
    /// The route: payload types by canonical name and the handling member.
    route: String,
}

/// Who handles a method, in a sentence.
fn handler(side: Side) -> &'static str {
    match side {
        Side::Agent => "the agent",
        Side::Client => "the client",
        Side::Proxy => "a proxy",
        Side::Protocol => "every side",
        Side::Both => "either side",
    }
}

fn type_reference(name: &str) -> String {
    format!("types.{}", naming::typescript_type(name))
}

fn gate_note(method: &Method) -> Vec<String> {
    method
        .gate
        .iter()
        .map(|gate| format!("Callable only once {} advertised `{}` in its `{}`.", handler(gate.advertised_by), gate.path, gate.root))
        .collect()
}

/// The notes of an interface member, and its optional mark: what
/// [`Method::optional`] allows to leave out (the dispatcher then answers
/// method-not-found, or drops the notification).
fn member_notes(method: &Method, handled_by: Side) -> (Vec<String>, &'static str) {
    let mut notes = gate_note(method);
    match method.optional(handled_by) {
        None => (notes, ""),
        Some(reason) => {
            match reason {
                Optional::Gated(_) => {}
                Optional::NotNegotiated(reason) => notes.push(format!("Not negotiated at initialize: {reason}.")),
                Optional::Unstable => notes.push("Unstable: not part of the protocol yet.".to_owned()),
                Optional::ProtocolLevel => notes.push("Protocol-level: handled by every side.".to_owned()),
            }
            notes.push("Optional: without it, the dispatcher answers method-not-found (a request) or drops it (a notification).".to_owned());
            (notes, "?")
        }
    }
}

fn route(params: &str, result: Option<&str>, function: &str) -> String {
    let result = result.map(|result| format!(", result: {}", json_string(result))).unwrap_or_default();
    format!("{{ params: {}{result}, handler: {} }}", json_string(params), json_string(function))
}

pub fn view(ir: &Ir) -> Result<MethodsFile, CodegenError> {
    let mut functions: BTreeMap<String, &str> =
        EXTENSION_HANDLERS.iter().map(|role| (naming::typescript_function(role), "(extension methods)")).collect();
    let mut names = Vec::new();
    for method in ir.methods.values() {
        let function = naming::typescript_function(&method.name);
        if let Some(previous) = functions.insert(function.clone(), &method.name) {
            return Err(CodegenError {
                kind: ErrorKind::NameCollision,
                file: "typescript bindings".to_owned(),
                pointer: String::new(),
                message: format!("methods `{previous}` and `{}` both map to the TypeScript name `{function}`", method.name),
            });
        }
        let mut uses = Vec::new();
        let mut payloads = Vec::new();
        if let Some(request) = &method.request {
            let side = request.side.as_str();
            uses.push(format!("a request {} handles (`{}` -> `{}`)", handler(request.side), request.params, request.result));
            payloads.push(format!(
                "request: {{ side: {}, params: {}, result: {} }}",
                json_string(side),
                json_string(&request.params),
                json_string(&request.result)
            ));
        }
        if let Some(notification) = &method.notification {
            let side = notification.side.as_str();
            uses.push(format!("a notification {} handles (`{}`)", handler(notification.side), notification.params));
            payloads.push(format!("notification: {{ side: {}, params: {} }}", json_string(side), json_string(&notification.params)));
        }
        names.push(NameView {
            doc: tsdoc(Some(&format!("`{}`: {}.", method.name, uses.join("; "))), &gate_note(method)),
            key: function,
            wire: json_string(&method.name),
            payloads: format!("{{ {} }}", payloads.join(", ")),
        });
    }
    let sides = ir.endpoints().into_iter().map(|side| side_view(ir, side)).collect();
    let session_ready = crate::negotiation::model(ir).is_some() && crate::helpers::model(ir).ready.is_some();
    Ok(MethodsFile { names, sides, session_ready })
}

fn side_view(ir: &Ir, endpoint: Side) -> SideView {
    let side = endpoint.as_str();
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for method in ir.methods.values() {
        let wire = json_string(&method.name);
        let function = naming::typescript_function(&method.name);
        let request_here = method.request.as_ref().is_some_and(|request| request.side.handled_by(endpoint));
        if let Some(request) = method.request.as_ref().filter(|request| request.side.handled_by(endpoint)) {
            let (notes, mark) = member_notes(method, request.side);
            requests.push(CallView {
                doc: tsdoc(Some(&format!("Handles the `{}` request.", method.name)), &notes),
                wire: wire.clone(),
                function: function.clone(),
                mark,
                params: type_reference(&request.params),
                result: type_reference(&request.result),
                route: route(&request.params, Some(&request.result), &function),
            });
        }
        if let Some(notification) = method.notification.as_ref().filter(|notification| notification.side.handled_by(endpoint)) {
            // A side that also handles the request of that name keeps the
            // two apart.
            let function = naming::typescript_handler(&method.name, request_here);
            let (notes, mark) = member_notes(method, notification.side);
            notifications.push(CallView {
                doc: tsdoc(Some(&format!("Handles the `{}` notification.", method.name)), &notes),
                wire,
                route: route(&notification.params, None, &function),
                function,
                mark,
                params: type_reference(&notification.params),
                result: "void".to_owned(),
            });
        }
    }
    let [interface, requests_map, notifications_map, incoming_request, incoming_notification, connection] =
        ROLES.map(|role| naming::typescript_side_type(side, role));
    let [decode_request, decode_notification, decode_result, dispatch_request, dispatch_notification, dispatch_message, encode_request, encode_notification, connect] =
        FUNCTIONS.map(|(verb, role)| naming::typescript_side_function(verb, side, role));
    let connection = PEERS.iter().find(|(this, _)| *this == side).map(|(_, peer)| ConnectionView {
        interface: connection,
        connect,
        peer,
        peer_requests_map: naming::typescript_side_type(peer, "requests"),
        peer_notifications_map: naming::typescript_side_type(peer, "notifications"),
        peer_routes: naming::typescript_function(&format!("{peer} routes")),
    });
    let [extension_request, extension_notification] = EXTENSION_HANDLERS.map(naming::typescript_function);
    SideView {
        label: side,
        interface,
        requests_map,
        notifications_map,
        incoming_request,
        incoming_notification,
        decode_request,
        decode_notification,
        decode_result,
        dispatch_request,
        dispatch_notification,
        dispatch_message,
        encode_request,
        encode_notification,
        routes: naming::typescript_function(&format!("{side} routes")),
        extension_request,
        extension_notification,
        requests,
        notifications,
        connection,
    }
}
