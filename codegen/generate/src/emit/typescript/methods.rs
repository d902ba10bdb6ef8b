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

use acp_ir::messages::MessageKind;
use std::collections::BTreeMap;

use askama::Template;

use super::text::{json_string, tsdoc};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::*;
use acp_ir::naming;
use acp_ir::rfd::{CancelEnd, Drain, Helpers, TurnEnd};

/// The sides that get maps and an interface.
pub const SIDES: [Side; 3] = [Side::Agent, Side::Client, Side::Proxy];
/// The names each side's types are derived from: its interface, its maps and
/// its decoded-call unions.
pub const ROLES: [&str; 6] = [
    "",
    "requests",
    "notifications",
    "incoming request",
    "incoming notification",
    "connection",
];
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
/// The interface members that handle extension requests and notifications.
const EXTENSION_HANDLERS: [&str; 2] = ["extension request", "extension notification"];

#[derive(Template)]
#[template(path = "typescript/methods.ts", escape = "none")]
pub struct MethodsFile {
    names: Vec<NameView>,
    sides: Vec<SideView>,
    /// Connections handle `session/ready` (`SessionReadyLifecycle`).
    session_ready: bool,
    /// The schema negotiates at `initialize` (`src/negotiation.ts` exists).
    negotiated: bool,
    /// It also has per-session gates (`CONNECTION_RULES.sessions`).
    session_gates: bool,
    /// `CONNECTION_RULES`, from the RFD helpers' model.
    rules: RulesView,
    /// `src/helpers.ts` holds the turn tracker's rules (`TURN_RULES`, from
    /// [`acp_ir::rfd::Turns`]): `CONNECTION_RULES.tracker`.
    tracker: bool,
    /// `CONNECTION_RULES.handshake`, from the IR's handshake: a `Handshake`
    /// object literal, or `null`.
    handshake: String,
    /// `sessionNotFound`'s code, message and data member, as literals.
    session_not_found: Option<[String; 3]>,
}

/// The members of `CONNECTION_RULES` as TypeScript literals.
struct RulesView {
    initialize: String,
    /// A `TurnRules` object literal, or `null`.
    turns: String,
    /// `session/ready` as a string literal, or `null` (also when the
    /// schema does not negotiate it).
    ready: String,
    /// `{ method, member }`, or `null`.
    cancel: String,
    /// A `TurnCancelRules` object literal, or `null`.
    turn_cancel: String,
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
    /// `"agent"` or `"client"`, the `Role` of the end.
    role: String,
    /// The end has `cancellation(sessionId)`: the agent's, when the schema
    /// has `session/cancel`.
    cancellation: bool,
    peer: &'static str,
    /// Doc lines of `request` (indented, with their `*`): when the end's
    /// prompt call resolves, for the end that calls one.
    prompt: Vec<String>,
    /// Doc lines of the `connect` function (with their `*`): what the
    /// schema's rules make it do, each paragraph after an empty line.
    notes: Vec<String>,
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
        .map(|gate| {
            format!(
                "Callable only once {} advertised `{}` in its `{}`.",
                handler(gate.advertised_by),
                gate.path,
                gate.root
            )
        })
        .collect()
}

/// The note of a handler the connection acts on by itself ([`Optional::ActedOn`]).
pub(super) const ACTED_ON: &str =
    "Acted on by the connection itself: a handler only adds to that, and without one nothing is reported dropped.";

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
                Optional::SessionGated(gate) => {
                    notes.push(format!("Not negotiated at initialize: {}.", gate.describe()))
                }
                Optional::NotNegotiated(reason) => notes.push(format!("Not negotiated at initialize: {reason}.")),
                Optional::Unstable => notes.push("Unstable: not part of the protocol yet.".to_owned()),
                Optional::ActedOn => notes.push(ACTED_ON.to_owned()),
                Optional::ProtocolLevel => notes.push("Protocol-level: handled by every side.".to_owned()),
            }
            notes.push("Optional: without it, the dispatcher answers method-not-found (a request) or drops it (a notification).".to_owned());
            (notes, "?")
        }
    }
}

fn route(params: &str, result: Option<&str>, function: &str) -> String {
    let result = result
        .map(|result| format!(", result: {}", json_string(result)))
        .unwrap_or_default();
    format!(
        "{{ params: {}{result}, handler: {} }}",
        json_string(params),
        json_string(function)
    )
}

pub fn view(ir: &Ir) -> Result<MethodsFile, CodegenError> {
    let mut functions: BTreeMap<String, &str> = EXTENSION_HANDLERS
        .iter()
        .map(|role| (naming::typescript_function(role), "(extension methods)"))
        .collect();
    let mut names = Vec::new();
    for method in ir.methods.values() {
        let function = naming::typescript_function(&method.name);
        if let Some(previous) = functions.insert(function.clone(), &method.name) {
            return Err(CodegenError {
                kind: ErrorKind::NameCollision,
                file: "typescript bindings".to_owned(),
                pointer: String::new(),
                message: format!(
                    "methods `{previous}` and `{}` both map to the TypeScript name `{function}`",
                    method.name
                ),
            });
        }
        let mut uses = Vec::new();
        let mut payloads = Vec::new();
        if let Some(request) = &method.request {
            let side = request.side.as_str();
            uses.push(format!(
                "a request {} handles (`{}` -> `{}`)",
                handler(request.side),
                request.params,
                request.result
            ));
            payloads.push(format!(
                "request: {{ side: {}, params: {}, result: {} }}",
                json_string(side),
                json_string(&request.params),
                json_string(&request.result)
            ));
        }
        if let Some(notification) = &method.notification {
            let side = notification.side.as_str();
            uses.push(format!(
                "a notification {} handles (`{}`)",
                handler(notification.side),
                notification.params
            ));
            payloads.push(format!(
                "notification: {{ side: {}, params: {} }}",
                json_string(side),
                json_string(&notification.params)
            ));
        }
        names.push(NameView {
            doc: tsdoc(
                Some(&format!("`{}`: {}.", method.name, uses.join("; "))),
                &gate_note(method),
            ),
            key: function,
            wire: json_string(&method.name),
            payloads: format!("{{ {} }}", payloads.join(", ")),
        });
    }
    let model = acp_ir::rfd::model(ir);
    let negotiation = acp_ir::negotiation::model(ir);
    let negotiated = negotiation.is_some();
    let session_gates = negotiation.is_some_and(|model| !model.session_gates.is_empty());
    let session_ready = negotiated && model.ready.is_some();
    let handshake = acp_ir::handshake::model(ir);
    let sides = ir
        .endpoints()
        .into_iter()
        .map(|side| side_view(ir, side, &model, session_ready))
        .collect();
    Ok(MethodsFile {
        names,
        sides,
        session_ready,
        negotiated,
        session_gates,
        rules: rules_view(&model, session_ready, &initialize_method(ir)),
        tracker: negotiated && model.turns.is_some(),
        handshake: handshake_literal(handshake.as_ref()),
        session_not_found: handshake.and_then(|handshake| handshake.unknown_session).map(|error| {
            [
                error.code.to_string(),
                json_string(&error.message),
                json_string(&error.member),
            ]
        }),
    })
}

/// `handshake` as a TypeScript `Handshake` literal, or `null`.
fn handshake_literal(handshake: Option<&acp_ir::handshake::Handshake>) -> String {
    let Some(handshake) = handshake else {
        return "null".to_owned();
    };
    let unsupported = handshake.unsupported.as_ref().map_or_else(
        || "null".to_owned(),
        |error| {
            format!(
                "{{ code: {}, message: {}, requested: {}, supported: {} }}",
                error.code,
                json_string(&error.message),
                json_string(&error.requested),
                json_string(&error.supported)
            )
        },
    );
    let supported: Vec<String> = handshake.supported.iter().map(u16::to_string).collect();
    format!(
        "{{\n    method: {},\n    version: {},\n    supported: [{}],\n    capabilities: {},\n    unsupported: {},\n    advertises: {{ agent: {}, client: {} }},\n  }}",
        json_string(&handshake.method),
        json_string(&handshake.version),
        supported.join(", "),
        json_string(&handshake.capabilities),
        unsupported,
        advertised_literal(&handshake.agent_advertises),
        advertised_literal(&handshake.client_advertises)
    )
}

/// One side's derived gates as an `Advertised` literal (pointers as tokens).
fn advertised_literal(advertised: &acp_ir::advertising::Advertised) -> String {
    let gates: Vec<String> = advertised
        .gates
        .iter()
        .map(|gate| {
            format!(
                "{{ pointer: {}, on: {}, methods: {} }}",
                acp_ir::negotiation::pointer_tokens(&gate.pointer),
                gate.on,
                serde_json::Value::from(gate.methods.clone())
            )
        })
        .collect();
    format!(
        "{{ member: {}, gates: [{}] }}",
        json_string(&advertised.member),
        gates.join(", ")
    )
}

/// The method whose exchange decides the RFD features ([`Ir::initialize`]);
/// empty, matching no method, for a schema without one.
pub(super) fn initialize_method(ir: &Ir) -> String {
    ir.initialize().map(|method| method.name.clone()).unwrap_or_default()
}

fn rules_view(model: &Helpers, session_ready: bool, initialize: &str) -> RulesView {
    let turns = model.drain.as_ref().map_or_else(
        || "null".to_owned(),
        |drain| {
            let Drain {
                prompt,
                update,
                session,
                payload,
                tag,
                end,
            } = drain;
            let end = match end {
                TurnEnd::Complete {
                    tag,
                    request,
                    stop_reason,
                } => {
                    format!(
                        "{{ kind: \"complete\", tag: {}, request: {}, stopReason: {} }}",
                        json_string(tag),
                        json_string(request),
                        json_string(stop_reason)
                    )
                }
                TurnEnd::Idle { tag, state, idle } => format!(
                    "{{ kind: \"idle\", tag: {}, state: {}, idle: {} }}",
                    json_string(tag),
                    json_string(state),
                    json_string(idle)
                ),
                TurnEnd::Response => "{ kind: \"response\" }".to_owned(),
            };
            let members = [
                ("prompt", prompt),
                ("update", update),
                ("session", session),
                ("payload", payload),
                ("tag", tag),
            ]
            .map(|(name, value)| format!("    {name}: {},", json_string(value)))
            .join("\n");
            format!("{{\n{members}\n    end: {end},\n  }}")
        },
    );
    let cancel = model.cancel.as_ref().map_or_else(
        || "null".to_owned(),
        |cancel| {
            format!(
                "{{ method: {}, member: {} }}",
                json_string(&cancel.method),
                json_string(&cancel.member)
            )
        },
    );
    let ready = model
        .ready
        .as_ref()
        .filter(|_| session_ready)
        .map_or_else(|| "null".to_owned(), |ready| json_string(&ready.notification.method));
    let turn_cancel = model.turn_cancel.as_ref().map_or_else(
        || "null".to_owned(),
        |rules| {
            let scoped: Vec<String> = rules.scoped.iter().map(|method| json_string(method)).collect();
            let permission = rules.permission.as_ref().map_or_else(
                || "null".to_owned(),
                |(method, result)| format!("{{ method: {}, result: {result} }}", json_string(method)),
            );
            let members = [
                ("notification", &rules.notification),
                ("prompt", &rules.prompt),
                ("session", &rules.session),
                ("stopReason", &rules.stop_reason),
                ("cancelled", &rules.cancelled),
                ("end", &rules.end.name().to_owned()),
            ]
            .map(|(name, value)| format!("    {name}: {},", json_string(value)))
            .join("\n");
            let awaiting = rules.awaiting.as_ref().map_or_else(
                || "null".to_owned(),
                |awaiting| {
                    format!(
                        "{{ request: {}, requiresAction: {}, running: {} }}",
                        json_string(&awaiting.request),
                        json_string(&awaiting.requires_action),
                        json_string(&awaiting.running)
                    )
                },
            );
            format!(
                "{{\n{members}\n    scoped: [{}],\n    permission: {permission},\n    awaiting: {awaiting},\n  }}",
                scoped.join(", ")
            )
        },
    );
    RulesView {
        initialize: json_string(initialize),
        turns,
        ready,
        cancel,
        turn_cancel,
    }
}

/// `text` cut into lines of at most `width` characters, at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.len() + 1 + word.len() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_owned()),
        }
    }
    lines
}

/// Doc comment lines (` * text`, ` *` between paragraphs) of `paragraphs`,
/// each after `indent`.
fn doc_lines(paragraphs: &[String], indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for (index, paragraph) in paragraphs.iter().enumerate() {
        if index > 0 {
            lines.push(format!("{indent} *"));
        }
        lines.extend(wrap(paragraph, 72).into_iter().map(|line| format!("{indent} * {line}")));
    }
    lines
}

/// What an end's `connect` function says the schema's rules make it do,
/// and, for the end that calls the prompt, when the prompt call resolves
/// (doc lines, see [`ConnectionView`]).
fn connection_notes(side: &str, model: &Helpers, session_ready: bool) -> (Vec<String>, Vec<String>) {
    let mut notes = Vec::new();
    let ready = model.ready.as_ref().filter(|_| session_ready);
    let drain = model.drain.as_ref();
    let mut prompt = Vec::new();
    if side == "client" {
        if let Some(ready) = ready {
            notes.push(format!(
                "When `initialize` negotiated `{}` (rule R1), this end sends it after each session-opening response, once the code awaiting the response has run to its next await and before anything that code sends.",
                ready.notification.method
            ));
        }
        if let Some(drain) = drain {
            let turn_end = match &drain.end {
                TurnEnd::Complete { tag, request, .. } => format!(", and, once `initialize` negotiated it, the `{tag}` update whose `{request}` is this request's id was handled"),
                TurnEnd::Idle { tag, state, idle } => {
                    format!(", and a `{tag}` of its session whose `{state}` is `{idle}` was handled after a non-idle one since the call, or after the response")
                }
                TurnEnd::Response => String::new(),
            };
            let text = format!("A `{}` call resolves once its turn is drained: its response arrived and every notification before it was handled{turn_end}.", drain.prompt);
            prompt = doc_lines(&[text], "  ");
        }
    } else {
        if let Some(ready) = ready {
            notes.push(format!(
                "When `initialize` negotiated `{}` (rule R1), this end holds a session's scoped notifications until the client's `{}` for it arrives.",
                ready.notification.method, ready.notification.method
            ));
        }
        if let Some(TurnEnd::Complete { tag, .. }) = drain.map(|drain| &drain.end) {
            let prompt = drain.map_or("", |drain| drain.prompt.as_str());
            notes.push(format!("When `initialize` negotiated `{tag}` and a `{prompt}` handler sent none for its request, this end sends it, with the result's stop reason, just before the response."));
        }
    }
    match (&model.turn_cancel, side) {
        (Some(rules), "client") => {
            if let Some((permission, _)) = &rules.permission {
                notes.push(format!("Sending `{}` answers the session's pending `{permission}` requests with the `{}` outcome, after it.", rules.notification, rules.cancelled));
            }
        }
        (Some(rules), _) => {
            let end = match rules.end {
                CancelEnd::Result => format!("the `{}` is answered with the `{}` stop reason whatever its handler does, after every update the handler sent", rules.prompt, rules.cancelled),
                CancelEnd::Idle => format!("the `idle` state update that ends the session's foreground work says `{}` whatever the agent wrote in it", rules.cancelled),
            };
            notes.push(format!("The client's `{}` cancels the turn of the session it names: `cancellation(sessionId)` aborts, the turn's pending requests to the client reject with a `TurnCancelled`, and {end}.", rules.notification));
        }
        (None, _) => {}
    }
    notes.push(match &model.cancel {
        Some(cancel) => format!("A request whose `options.signal` aborts is forgotten and the peer told (`{}`); the peer's `{}` answers the request it names with -32800 at once.", cancel.method, cancel.method),
        None => "A request whose `options.signal` aborts is forgotten (this schema has no way to tell the peer).".to_owned(),
    });
    (prompt, doc_lines(&notes, ""))
}

fn side_view(ir: &Ir, endpoint: Side, model: &Helpers, session_ready: bool) -> SideView {
    let side = endpoint.as_str();
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for message in ir.handled_by(endpoint) {
        let function = naming::typescript_handler(&message.handler);
        let (notes, mark) = member_notes(message.definition, message.side);
        let call = CallView {
            doc: tsdoc(
                Some(&format!("Handles the `{}` {}.", message.method, message.kind.as_str())),
                &notes,
            ),
            wire: json_string(message.method),
            route: route(message.payload, message.result(), &function),
            function,
            mark,
            params: type_reference(message.payload),
            result: message.result().map_or_else(|| "void".to_owned(), type_reference),
        };
        if message.kind == MessageKind::Request {
            requests.push(call);
        } else {
            notifications.push(call);
        }
    }
    let [interface, requests_map, notifications_map, incoming_request, incoming_notification, connection] =
        ROLES.map(|role| naming::typescript_side_type(side, role));
    let [decode_request, decode_notification, decode_result, dispatch_request, dispatch_notification, dispatch_message, encode_request, encode_notification, connect] =
        FUNCTIONS.map(|(verb, role)| naming::typescript_side_function(verb, side, role));
    let connection = endpoint.peer().map(|peer| {
        let peer = peer.as_str();
        let (prompt, notes) = connection_notes(side, model, session_ready);
        ConnectionView {
            interface: connection,
            connect,
            role: json_string(side),
            cancellation: endpoint == Side::Agent && model.turn_cancel.is_some(),
            peer,
            prompt,
            notes,
            peer_requests_map: naming::typescript_side_type(peer, "requests"),
            peer_notifications_map: naming::typescript_side_type(peer, "notifications"),
            peer_routes: naming::typescript_function(&format!("{peer} routes")),
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use acp_ir::rfd::{Cancel, Ready, SessionMember};

    fn drain(end: TurnEnd) -> Drain {
        Drain {
            prompt: "session/prompt".to_owned(),
            update: "session/update".to_owned(),
            session: "sessionId".to_owned(),
            payload: "update".to_owned(),
            tag: "sessionUpdate".to_owned(),
            end,
        }
    }

    fn model(end: TurnEnd) -> Helpers {
        let session = |method: &str| SessionMember {
            method: method.to_owned(),
            in_result: false,
            member: "sessionId".to_owned(),
        };
        Helpers {
            turns: None,
            status: None,
            ready: Some(Ready {
                notification: session("session/ready"),
                openers: vec![],
                scoped: vec![session("session/update")],
            }),
            drain: Some(drain(end)),
            cancel: Some(Cancel {
                method: "$/cancel_request".to_owned(),
                member: "requestId".to_owned(),
            }),
            turn_cancel: None,
        }
    }

    #[test]
    fn the_connection_rules_come_from_the_model() {
        let complete = TurnEnd::Complete {
            tag: "turn_complete".to_owned(),
            request: "promptRequestId".to_owned(),
            stop_reason: "stopReason".to_owned(),
        };
        let rules = rules_view(&model(complete), true, "initialize");
        assert_eq!(
            rules.turns,
            "{\n    prompt: \"session/prompt\",\n    update: \"session/update\",\n    session: \"sessionId\",\n    payload: \"update\",\n    tag: \"sessionUpdate\",\n    \
             end: { kind: \"complete\", tag: \"turn_complete\", request: \"promptRequestId\", stopReason: \"stopReason\" },\n  }"
        );
        assert_eq!(
            (rules.ready.as_str(), rules.cancel.as_str()),
            (
                "\"session/ready\"",
                "{ method: \"$/cancel_request\", member: \"requestId\" }"
            )
        );
        // Without the negotiation of `session/ready`, the connection does not act on it.
        assert_eq!(rules_view(&model(TurnEnd::Response), false, "initialize").ready, "null");
        let idle = rules_view(
            &model(TurnEnd::Idle {
                tag: "state_update".to_owned(),
                state: "state".to_owned(),
                idle: "idle".to_owned(),
            }),
            false,
            "initialize",
        );
        assert!(
            idle.turns
                .contains("end: { kind: \"idle\", tag: \"state_update\", state: \"state\", idle: \"idle\" },"),
            "{}",
            idle.turns
        );
        let none = Helpers {
            turns: None,
            status: None,
            ready: None,
            drain: None,
            cancel: None,
            turn_cancel: None,
        };
        let rules = rules_view(&none, false, "initialize");
        assert_eq!([rules.turns, rules.ready, rules.cancel], ["null", "null", "null"]);
    }

    #[test]
    fn each_end_documents_what_the_rules_make_it_do() {
        let complete = TurnEnd::Complete {
            tag: "turn_complete".to_owned(),
            request: "promptRequestId".to_owned(),
            stop_reason: "stopReason".to_owned(),
        };
        let (prompt, notes) = connection_notes("client", &model(complete), true);
        let prompt = prompt.join("\n");
        assert!(
            prompt.starts_with("   * A `session/prompt` call resolves once its turn is drained"),
            "{prompt}"
        );
        assert!(
            prompt.contains("`turn_complete`") && prompt.contains("`promptRequestId`"),
            "{prompt}"
        );
        assert!(
            notes
                .iter()
                .all(|line| line.len() <= 80 && (line == " *" || line.starts_with(" * "))),
            "{notes:?}"
        );
        assert!(notes.join(" ").contains("`session/ready`"), "{notes:?}");
        let complete = TurnEnd::Complete {
            tag: "turn_complete".to_owned(),
            request: "promptRequestId".to_owned(),
            stop_reason: "stopReason".to_owned(),
        };
        let (prompt, notes) = connection_notes("agent", &model(complete), true);
        assert!(prompt.is_empty(), "the agent's end calls no prompt");
        assert!(notes.join(" ").contains("just before the response"), "{notes:?}");
        let (prompt, _) = connection_notes("client", &model(TurnEnd::Response), false);
        assert!(prompt.join(" ").ends_with("was handled."), "{prompt:?}");
    }

    #[test]
    fn wrap_cuts_at_spaces() {
        assert_eq!(wrap("aa bb cc", 5), ["aa bb", "cc"]);
        assert_eq!(wrap("averylongword x", 5), ["averylongword", "x"]);
    }
}
