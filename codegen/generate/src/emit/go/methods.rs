//! `methods.go`: a constant per method name, the `Methods` table (side,
//! payload types, gate, as the IR decides them), and per side that handles
//! methods (`ir.endpoints()`) its interface and its two dispatchers over the
//! runtime of `templates/go/rpc.go`. A method [`Method::optional`] lets a
//! side leave out is not in the side's interface but in a small interface
//! of its own (`SessionLoadHandler`), which the dispatcher looks for by type
//! assertion; one such interface serves every side that handles the
//! method. Protocol and either-side methods go to every side, as in the
//! other languages.

use std::collections::BTreeMap;

use askama::Template;

use super::exprs::collision;
use super::exprs::{doc, go_string};
use acp_ir::error::CodegenError;
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;

#[derive(Template)]
#[template(path = "go/methods.go.tmpl", escape = "none")]
pub(super) struct MethodsFile {
    methods: Vec<MethodView>,
    /// The small interfaces of optional handlers, by name.
    optional: Vec<OptionalView>,
    sides: Vec<SideView>,
}

struct MethodView {
    doc: Vec<String>,
    constant: String,
    wire: String,
    /// The `MethodInfo` literal.
    info: String,
}

struct OptionalView {
    interface: String,
    /// `the `session/load` request`, for its doc comment.
    what: String,
    /// Why an implementation may leave it out ([`Method::optional`]), as
    /// doc comment lines.
    why: Vec<String>,
    notification: bool,
    signature: String,
}

struct SideView {
    label: &'static str,
    interface: String,
    dispatch_request: String,
    dispatch_notification: String,
    /// The dispatchers' twins that take the params a connection parsed.
    dispatch_request_parsed: String,
    dispatch_notification_parsed: String,
    /// `handlesAgentRequest`: whether an implementation answers a request itself.
    handles: String,
    required: Vec<CallView>,
    optional: Vec<CallView>,
    requests: Vec<CallView>,
    notifications: Vec<CallView>,
}

#[derive(Clone)]
struct CallView {
    doc: Vec<String>,
    constant: String,
    function: String,
    signature: String,
    /// The small interface that holds the handler, when it is optional.
    optional: Option<String>,
    /// Why it is optional, in a sentence.
    why: Option<String>,
    interface: String,
    /// `the session/load request`, for the doc comments.
    what: String,
    /// The params type's canonical name as a Go string, for errors.
    params_name: String,
    decode: String,
    encode: String,
}

/// Who handles a method, in a sentence.
fn handler_phrase(side: Side) -> &'static str {
    match side {
        Side::Agent => "the agent",
        Side::Client => "the client",
        Side::Proxy => "a proxy",
        Side::Protocol => "every side",
        Side::Both => "either side",
    }
}

fn optional_literal<T>(value: Option<T>, kind: &str, literal: impl Fn(T) -> String) -> String {
    value.map_or_else(
        || format!("Optional[{kind}]{{}}"),
        |value| format!("Some({})", literal(value)),
    )
}

/// The `MethodInfo` literal of `method`.
fn info(method: &Method) -> String {
    let request = optional_literal(method.request.as_ref(), "RequestInfo", |request| {
        format!(
            "RequestInfo{{Side: {}, Params: {}, Result: {}}}",
            go_string(request.side.as_str()),
            go_string(&request.params),
            go_string(&request.result)
        )
    });
    let notification = optional_literal(method.notification.as_ref(), "NotificationInfo", |notification| {
        format!(
            "NotificationInfo{{Side: {}, Params: {}}}",
            go_string(notification.side.as_str()),
            go_string(&notification.params)
        )
    });
    let gate = optional_literal(method.gate.as_ref(), "GateInfo", |gate| {
        format!(
            "GateInfo{{AdvertisedBy: {}, Root: {}, Path: {}, InitializePointer: {}, Offered: {}}}",
            go_string(gate.advertised_by.as_str()),
            go_string(&gate.root),
            go_string(&gate.path),
            go_string(&gate.initialize_pointer),
            gate.kind == GateKind::Offered
        )
    });
    format!(
        "{{Name: {}, Request: {request}, Notification: {notification}, Gate: {gate}, NotNegotiated: {}, Unstable: {}, ActedOn: {}}}",
        go_string(&method.name),
        go_string(&not_negotiated(method)),
        method.unstable,
        method.acted_on
    )
}

/// Why the method's use is decided after initialize, for `NotNegotiated`:
/// the IR's reason, or its per-session offer; empty when it is not.
fn not_negotiated(method: &Method) -> String {
    match (&method.not_negotiated, &method.session_gate) {
        (Some(reason), _) => reason.clone(),
        (None, Some(gate)) => gate.describe(),
        (None, None) => String::new(),
    }
}

fn method_doc(method: &Method) -> Vec<String> {
    let mut uses = Vec::new();
    if let Some(request) = &method.request {
        uses.push(format!(
            "a request {} handles ({} -> {})",
            handler_phrase(request.side),
            request.params,
            request.result
        ));
    }
    if let Some(notification) = &method.notification {
        uses.push(format!(
            "a notification {} handles ({})",
            handler_phrase(notification.side),
            notification.params
        ));
    }
    let mut text = format!("{}: {}.", naming::go_method_constant(&method.name), uses.join("; "));
    if let Some(gate) = &method.gate {
        text.push_str(&format!(
            " Callable only once {} advertised {} in its {}.",
            handler_phrase(gate.advertised_by),
            gate.path,
            gate.root
        ));
    }
    doc(Some(&text))
}

/// The note of a handler the connection acts on by itself ([`Optional::ActedOn`]).
const ACTED_ON: &str =
    "Acted on by the connection itself: a handler only adds to that, and without one nothing is reported dropped.";

/// The handler of one use of `method` by an endpoint: its view, with the
/// doc that says why it may be left out.
fn call(message: &Message) -> CallView {
    let (method, kind, params, result) = (message.definition, message.kind, message.payload, message.result());
    let function = naming::go_handler(&message.handler);
    let params_type = naming::go_type(params);
    let signature = match result {
        Some(result) => format!(
            "{function}(ctx context.Context, params {params_type}) ({}, error)",
            naming::go_type(result)
        ),
        None => format!("{function}(ctx context.Context, params {params_type}) error"),
    };
    let [decode, _] = naming::go_codec_functions(&params_type);
    let encode = result.map_or_else(String::new, |result| {
        let [_, encode] = naming::go_codec_functions(&naming::go_type(result));
        encode
    });
    let what = format!("the {} {}", method.name, kind.as_str());
    let text = format!("{function} handles {what}.");
    let optional = method.optional(message.side);
    let why = optional.map(|reason| match reason {
        Optional::Gated(gate) => format!(
            "Callable only once {} advertised {} in its {}.",
            handler_phrase(gate.advertised_by),
            gate.path,
            gate.root
        ),
        Optional::SessionGated(gate) => format!("Not negotiated at initialize: {}.", gate.describe()),
        Optional::NotNegotiated(reason) => format!("Not negotiated at initialize: {reason}."),
        Optional::Unstable => "Unstable: not part of the protocol yet.".to_owned(),
        Optional::ActedOn => ACTED_ON.to_owned(),
        Optional::ProtocolLevel => "Protocol-level: handled by every side.".to_owned(),
    });
    let interface = naming::go_handler_interface(&naming::handler_interface(method, kind));
    CallView {
        doc: doc(Some(&text)),
        constant: naming::go_method_constant(&method.name),
        function,
        signature,
        optional: optional.map(|_| interface.clone()),
        why,
        interface,
        what,
        params_name: go_string(params),
        decode,
        encode,
    }
}

fn side_view(ir: &Ir, endpoint: Side) -> SideView {
    let side = endpoint.as_str();
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for message in ir.handled_by(endpoint) {
        match message.kind {
            MessageKind::Request => requests.push(call(&message)),
            MessageKind::Notification => notifications.push(call(&message)),
            MessageKind::Response => {}
        }
    }
    let (optional, required): (Vec<CallView>, Vec<CallView>) = requests
        .iter()
        .chain(&notifications)
        .cloned()
        .partition(|call| call.optional.is_some());
    SideView {
        label: side,
        interface: naming::endpoint_type(endpoint),
        dispatch_request: naming::go_side_function("dispatch", side, "request"),
        dispatch_notification: naming::go_side_function("dispatch", side, "notification"),
        dispatch_request_parsed: naming::go_side_function_parsed("dispatch", side, "request"),
        dispatch_notification_parsed: naming::go_side_function_parsed("dispatch", side, "notification"),
        handles: handles_function(side),
        required,
        optional,
        requests,
        notifications,
    }
}

/// `handlesAgentRequest`: the unexported function telling whether an
/// implementation of `side` answers a request itself.
pub(super) fn handles_function(side: &str) -> String {
    let exported = naming::go_side_function("handles", side, "request");
    let mut letters = exported.chars();
    let first = letters.next().map(|letter| letter.to_ascii_lowercase());
    first.into_iter().chain(letters).collect()
}

/// Builds `methods.go` for `ir`; fails when a name it declares is a type's.
pub(super) fn view(ir: &Ir) -> Result<MethodsFile, CodegenError> {
    let mut declared: BTreeMap<String, String> = ir
        .types
        .keys()
        .map(|name| (naming::go_type(name), format!("the type {name}")))
        .collect();
    let mut declare = |name: &str, what: String| match declared.insert(name.to_owned(), what.clone()) {
        Some(previous) => Err(collision(format!(
            "{previous} and {what} both take the Go name `{name}`"
        ))),
        None => Ok(()),
    };
    let mut methods = Vec::new();
    for method in ir.methods.values() {
        let constant = naming::go_method_constant(&method.name);
        declare(&constant, format!("the method {}", method.name))?;
        methods.push(MethodView {
            doc: method_doc(method),
            constant,
            wire: go_string(&method.name),
            info: info(method),
        });
    }
    let sides: Vec<SideView> = ir.endpoints().into_iter().map(|side| side_view(ir, side)).collect();
    let mut optional: BTreeMap<String, OptionalView> = BTreeMap::new();
    for side in &sides {
        for function in [
            &side.interface,
            &side.dispatch_request,
            &side.dispatch_notification,
            &side.dispatch_request_parsed,
            &side.dispatch_notification_parsed,
            &side.handles,
        ] {
            declare(function, format!("the {} side", side.label))?;
        }
        for call in &side.optional {
            if let Some(existing) = optional.get(&call.interface) {
                if existing.signature != call.signature {
                    return Err(collision(format!(
                        "`{}` and `{}` both need the Go interface `{}`",
                        existing.signature, call.signature, call.interface
                    )));
                }
                continue;
            }
            optional.insert(
                call.interface.clone(),
                OptionalView {
                    interface: call.interface.clone(),
                    what: call.what.clone(),
                    why: doc(call.why.as_deref()),
                    notification: call.encode.is_empty(),
                    signature: call.signature.clone(),
                },
            );
        }
    }
    for name in optional.keys() {
        declare(name, format!("the handler interface {name}"))?;
    }
    Ok(MethodsFile {
        methods,
        optional: optional.into_values().collect(),
        sides,
    })
}
