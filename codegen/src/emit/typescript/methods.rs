//! `src/methods.ts`: method-name constants, per-side request and
//! notification maps, and one interface per side with a method for each
//! JSON-RPC method that side handles.
//!
//! Sides: `agent` and `client` methods go to their side; `protocol` methods
//! (`$/cancel_request`) and `both` methods are handled by every side, so they
//! go to each side's maps and interface; `proxy` methods get a `Proxy` side
//! of their own (with the protocol methods), emitted only when the schema
//! has proxy methods.

use std::collections::BTreeMap;

use askama::Template;

use super::{json_string, tsdoc};
use crate::error::{CodegenError, ErrorKind};
use crate::ir::*;
use crate::naming;

/// The sides that get maps and an interface.
pub const SIDES: [&str; 3] = ["agent", "client", "proxy"];
/// The names each side's maps and interface are derived from.
pub const ROLES: [&str; 3] = ["", "requests", "notifications"];

#[derive(Template)]
#[template(path = "typescript/methods.ts", escape = "none")]
pub struct MethodsFile {
    names: Vec<NameView>,
    sides: Vec<SideView>,
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
    requests: Vec<CallView>,
    notifications: Vec<CallView>,
}

struct CallView {
    doc: Vec<String>,
    wire: String,
    function: String,
    params: String,
    /// What the handler resolves to: the result type, `void` for notifications.
    result: String,
}

/// Whether the maps and interface of `side` list a method `handler` handles.
fn handles(side: &str, handler: Side) -> bool {
    matches!(handler, Side::Protocol | Side::Both) || handler.as_str() == side
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

pub fn view(ir: &Ir) -> Result<MethodsFile, CodegenError> {
    let mut functions: BTreeMap<String, &str> = BTreeMap::new();
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
    let has_proxy = ir.methods.values().any(|method| {
        method.request.as_ref().is_some_and(|request| request.side == Side::Proxy)
            || method.notification.as_ref().is_some_and(|notification| notification.side == Side::Proxy)
    });
    let sides = SIDES
        .into_iter()
        .filter(|side| *side != "proxy" || has_proxy)
        .map(|side| side_view(ir, side))
        .collect();
    Ok(MethodsFile { names, sides })
}

fn side_view(ir: &Ir, side: &'static str) -> SideView {
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for method in ir.methods.values() {
        let wire = json_string(&method.name);
        let function = naming::typescript_function(&method.name);
        let request_here = method.request.as_ref().is_some_and(|request| handles(side, request.side));
        if let Some(request) = method.request.as_ref().filter(|request| handles(side, request.side)) {
            requests.push(CallView {
                doc: tsdoc(Some(&format!("Handles the `{}` request.", method.name)), &gate_note(method)),
                wire: wire.clone(),
                function: function.clone(),
                params: type_reference(&request.params),
                result: type_reference(&request.result),
            });
        }
        if let Some(notification) = method.notification.as_ref().filter(|notification| handles(side, notification.side)) {
            notifications.push(CallView {
                doc: tsdoc(Some(&format!("Handles the `{}` notification.", method.name)), &gate_note(method)),
                wire,
                // A side that also handles the request of that name keeps the
                // two apart.
                function: if request_here { naming::typescript_function(&format!("{} notification", method.name)) } else { function },
                params: type_reference(&notification.params),
                result: "void".to_owned(),
            });
        }
    }
    let [interface, requests_map, notifications_map] = ROLES.map(|role| naming::typescript_side_type(side, role));
    SideView { label: side, interface, requests_map, notifications_map, requests, notifications }
}
