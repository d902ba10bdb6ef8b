//! `methods.py` and `protocols.py`: the method tables and one protocol per
//! side. Sides: a method whose side is `agent` or `client` goes to that
//! protocol; `protocol` and `both` methods are handled by every side, so they
//! go to both; `proxy` methods are handled by neither endpoint and only
//! appear in the method tables.

use askama::Template;

use super::{docstring, string_literal};
use crate::ir::{Ir, Side};
use crate::naming::{python_attribute, python_class, python_constant};

#[derive(Template)]
#[template(path = "python/methods.py", escape = "none")]
pub(super) struct MethodsView {
    imports: Vec<String>,
    /// One constant per method name: `(CONSTANT, "name")`.
    constants: Vec<(String, String)>,
    requests: Vec<RequestView>,
    notifications: Vec<NotificationView>,
}

struct RequestView {
    name: String,
    side: String,
    params: String,
    result: String,
}

struct NotificationView {
    name: String,
    side: String,
    params: String,
}

#[derive(Template)]
#[template(path = "python/protocols.py", escape = "none")]
pub(super) struct ProtocolsView {
    imports: Vec<String>,
    sides: Vec<ProtocolView>,
}

struct ProtocolView {
    name: String,
    doc: String,
    methods: Vec<ProtocolMethodView>,
}

struct ProtocolMethodView {
    name: String,
    params: String,
    result: String,
    doc: String,
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
            });
        }
        if let Some(notification) = &method.notification {
            notifications.push(NotificationView {
                name: string_literal(name),
                side: string_literal(notification.side.as_str()),
                params: python_class(&notification.params),
            });
        }
    }
    let imports = models_import(!requests.is_empty() || !notifications.is_empty());
    let constants = ir.methods.keys().map(|name| (python_constant(name), string_literal(name))).collect();
    MethodsView { imports, constants, requests, notifications }
}

fn handles(side: Side, protocol: Side) -> bool {
    side == protocol || matches!(side, Side::Protocol | Side::Both)
}

pub(super) fn protocols_view(ir: &Ir) -> ProtocolsView {
    let sides = [(Side::Agent, "Agent"), (Side::Client, "Client")]
        .into_iter()
        .map(|(side, label)| {
            let mut methods = Vec::new();
            for (name, method) in &ir.methods {
                if let Some(request) = method.request.as_ref().filter(|request| handles(request.side, side)) {
                    methods.push(ProtocolMethodView {
                        name: python_attribute(name),
                        params: python_class(&request.params),
                        result: format!("_m.{}", python_class(&request.result)),
                        doc: docstring(&format!("Handles the `{name}` request."), 8),
                    });
                }
                if let Some(notification) = method.notification.as_ref().filter(|notification| handles(notification.side, side)) {
                    let method_name = if method.request.as_ref().is_some_and(|request| handles(request.side, side)) {
                        python_attribute(&format!("{name}_notification"))
                    } else {
                        python_attribute(name)
                    };
                    methods.push(ProtocolMethodView {
                        name: method_name,
                        params: python_class(&notification.params),
                        result: "None".to_owned(),
                        doc: docstring(&format!("Handles the `{name}` notification."), 8),
                    });
                }
            }
            ProtocolView { name: label.to_owned(), doc: docstring(&format!("The methods the {} side handles.", side.as_str()), 4), methods }
        })
        .collect::<Vec<ProtocolView>>();
    let imports = models_import(sides.iter().any(|side| !side.methods.is_empty()));
    ProtocolsView { imports, sides }
}

/// The import of the models module, when a file refers to it.
fn models_import(used: bool) -> Vec<String> {
    if used { vec!["from . import models as _m".to_owned()] } else { Vec::new() }
}

