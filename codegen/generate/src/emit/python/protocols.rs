//! `protocols.py`: one `typing.Protocol` per endpoint side with a handler per
//! method that side handles (optional ones answer method-not-found, or ignore
//! a notification, until overridden), and the dispatchers that decode a
//! request or notification by method name, call the handler and encode its
//! answer.

use acp_ir::messages::MessageKind;
use askama::Template;

use super::methods::optional;
use super::text::{docstring, string_literal};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::Ir;
use acp_ir::naming::{python_class, python_handler, python_side_function, python_side_table};

/// Handler names of the runtime's extension methods.
const EXTENSION_HANDLERS: [&str; 2] = ["extension_request", "extension_notification"];

#[derive(Template)]
#[template(path = "python/protocols.py", escape = "none")]
pub(super) struct ProtocolsView {
    imports: Vec<String>,
    sides: Vec<ProtocolView>,
}

struct ProtocolView {
    name: String,
    /// The side, as in prose: `agent`.
    label: &'static str,
    doc: String,
    handlers: Vec<HandlerView>,
    /// `dispatch_agent_request`, `dispatch_agent_notification`.
    dispatch_request: String,
    dispatch_notification: String,
    /// `AGENT_NOTIFICATION_HANDLERS`: the handler name and params type of
    /// each notification, by method.
    notification_handlers: String,
    /// `handles_agent_request`: whether an implementation answers a request itself.
    handles: String,
}

struct HandlerView {
    /// The method name as a string literal.
    method: String,
    name: String,
    params: String,
    /// The result class; `None` for a notification.
    result: Option<String>,
    doc: String,
    /// `...` for a required handler, else the default answer.
    body: String,
}

pub(super) fn protocols_view(ir: &Ir) -> Result<ProtocolsView, CodegenError> {
    let mut sides = Vec::new();
    for side in ir.endpoints() {
        let class = acp_ir::naming::endpoint_type(side);
        let mut handlers = Vec::new();
        for message in ir.handled_by(side) {
            let name = message.method;
            let optional = optional(message.definition, message.side);
            if message.kind == MessageKind::Request {
                handlers.push(HandlerView {
                    method: string_literal(name),
                    name: python_handler(&message.handler),
                    params: python_class(message.payload),
                    result: message.result().map(python_class),
                    doc: handler_doc(
                        &format!("Handles the `{name}` request."),
                        optional.as_deref(),
                        "answers method-not-found",
                    ),
                    body: if optional.is_some() {
                        format!("raise _rt.MethodNotFound({})", string_literal(name))
                    } else {
                        "...".to_owned()
                    },
                });
            } else {
                handlers.push(HandlerView {
                    method: string_literal(name),
                    name: python_handler(&message.handler),
                    params: python_class(message.payload),
                    result: None,
                    doc: handler_doc(
                        &format!("Handles the `{name}` notification."),
                        optional.as_deref(),
                        "ignores it",
                    ),
                    body: if optional.is_some() {
                        "return".to_owned()
                    } else {
                        "...".to_owned()
                    },
                });
            }
        }
        if let Some(handler) = handlers
            .iter()
            .find(|handler| EXTENSION_HANDLERS.contains(&handler.name.as_str()))
        {
            return Err(CodegenError {
                kind: ErrorKind::NameCollision,
                file: "python bindings".to_owned(),
                pointer: String::new(),
                message: format!(
                    "the handler of {} is `{}`, the name of the extension handler",
                    handler.method, handler.name
                ),
            });
        }
        let label = side.as_str();
        sides.push(ProtocolView {
            name: class,
            label,
            doc: docstring(
                &format!(
                    "The methods the {label} handles. Subclass it: an optional method (capability-gated, not negotiated at \
                     initialize, unstable, acted on by the connection itself or protocol-level) answers \
                     method-not-found, or ignores a notification, until overridden."
                ),
                4,
            ),
            handlers,
            dispatch_request: python_side_function("dispatch", label, "request"),
            dispatch_notification: python_side_function("dispatch", label, "notification"),
            notification_handlers: python_side_table(label, "notification handler"),
            handles: python_side_function("handles", label, "request"),
        })
    }
    let imports = if ir.methods.is_empty() {
        Vec::new()
    } else {
        vec!["from . import models as _m".to_owned()]
    };
    Ok(ProtocolsView { imports, sides })
}

fn handler_doc(summary: &str, optional: Option<&str>, default: &str) -> String {
    match optional {
        Some(reason) => docstring(
            &format!("{summary}\n\nOptional ({reason}): unless overridden, {default}."),
            8,
        ),
        None => docstring(summary, 8),
    }
}

/// The names `protocols.py` defines that the package root re-exports.
pub(super) fn exports(view: &ProtocolsView) -> Vec<String> {
    view.sides
        .iter()
        .flat_map(|side| {
            [
                side.name.clone(),
                side.dispatch_request.clone(),
                side.dispatch_notification.clone(),
            ]
        })
        .collect()
}
