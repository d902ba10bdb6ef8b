//! `connection.py`: one end of a JSON-RPC connection over any text
//! transport (the `Connection` class, fixed text of the template), and for
//! the agent and the client a typed end (`AgentConnection`,
//! `ClientConnection`) whose `request` and `notify` are overloaded by the
//! methods the other side handles, with `connect_agent` / `connect_client`
//! to open one. What the connection treats specially (rule R1's messages,
//! what ends a prompt turn, request cancellation, `session/cancel`) comes
//! from the RFD helpers' model ([`acp_ir::rfd`]: `ready`, `drain`, `cancel`,
//! `turn_cancel`) as the constants `_READY`, `_TURNS`, `_CANCEL` and
//! `_TURN_CANCEL`, and the turn rules the client's end feeds its turn
//! machine with (`_TURN_RULES`, the helpers' `TURN_RULES`); what the agent's end decides about `initialize` itself
//! from the IR's handshake ([`acp_ir::handshake`]) as `_HANDSHAKE` and
//! `session_not_found`; the template only reads them.

use askama::Template;

use super::text::string_literal;
use acp_ir::advertising::Advertised;
use acp_ir::handshake::Handshake;
use acp_ir::ir::{Ir, MessageKind, Side};
use acp_ir::naming::{python_class, python_side_function, python_side_table};
use acp_ir::rfd::{Cancel, Drain, Ready, TurnCancel, TurnEnd};

#[derive(Template)]
#[template(path = "python/connection.py", escape = "none")]
pub(super) struct ConnectionView {
    has_methods: bool,
    /// The schema's initialize method, a string literal ([`Ir::initialize`]).
    initialize: String,
    /// The package has `negotiation.py`: `initialize` decides the features.
    negotiated: bool,
    /// It also has per-session gates (`SessionOffers`).
    session_gates: bool,
    /// Rule R1 applies (`helpers.SessionReadyGate`): `_READY` is set.
    session_ready: bool,
    /// Python expressions: `_READY`, `_TURNS`, `_CANCEL` and `_TURN_CANCEL`
    /// (or `None`).
    ready: String,
    turns: String,
    cancel: String,
    /// `_HANDSHAKE`, a `_Handshake(...)` expression or `None`.
    handshake: String,
    /// `session_not_found`'s code, message and data, as Python expressions.
    session_not_found: Option<[String; 3]>,
    turn_cancel: String,
    /// The package's `helpers.TURN_RULES` exists: the client's end feeds
    /// the turn machine with them (`_TURN_RULES`).
    turn_rules: bool,
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
    /// `AGENT_NOTIFICATION_HANDLERS`: the handlers the end calls itself.
    notification_handlers: String,
    /// `handles_agent_request`: what the end advertises from.
    handles: String,
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

pub(super) fn connection_view(ir: &Ir) -> ConnectionView {
    // A connection joins the agent and the client; a proxy is one of each.
    let sides: Vec<SideView> = Side::ENDPOINTS
        .into_iter()
        .filter_map(|side| Some((side, side.peer()?)))
        .map(|(side, other)| {
            let handler = acp_ir::naming::endpoint_type(side);
            let mut requests = Vec::new();
            let mut notifications = Vec::new();
            for message in ir.handled_by(other) {
                let call = CallView {
                    method: string_literal(message.method),
                    params: python_class(message.payload),
                    result: message.result().map(python_class).unwrap_or_default(),
                };
                if message.kind == MessageKind::Request {
                    requests.push(call);
                } else {
                    notifications.push(call);
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
                notification_handlers: python_side_table(label, "notification handler"),
                handles: python_side_function("handles", label, "request"),
                requests,
                notifications,
            }
        })
        .collect();
    let mut protocol_names: Vec<String> = sides.iter().map(|side| side.handler.clone()).collect();
    protocol_names.extend(sides.iter().flat_map(|side| {
        [
            side.dispatch_notification.clone(),
            side.dispatch_request.clone(),
            side.handles.clone(),
            side.notification_handlers.clone(),
        ]
    }));
    protocol_names.sort_by_cached_key(|name| super::text::import_order(name));
    let model = acp_ir::rfd::model(ir);
    let negotiation = acp_ir::negotiation::model(ir);
    let negotiated = negotiation.is_some();
    let ready = model.ready.as_ref().filter(|_| negotiated);
    let handshake = acp_ir::handshake::model(ir);
    ConnectionView {
        has_methods: !ir.methods.is_empty(),
        initialize: string_literal(&ir.initialize().map(|method| method.name.clone()).unwrap_or_default()),
        negotiated,
        session_gates: negotiation.is_some_and(|model| !model.session_gates.is_empty()),
        session_ready: ready.is_some(),
        turn_rules: negotiated && model.turns.is_some(),
        ready: ready.map_or_else(none, ready_literal),
        turns: model.drain.as_ref().map_or_else(none, turns_literal),
        cancel: model.cancel.as_ref().map_or_else(none, cancel_literal),
        handshake: handshake.as_ref().map_or_else(none, handshake_literal),
        session_not_found: handshake.and_then(|handshake| handshake.unknown_session).map(|error| {
            let data = format!("{{{}: session_id}}", string_literal(&error.member));
            [error.code.to_string(), string_literal(&error.message), data]
        }),
        turn_cancel: model.turn_cancel.as_ref().map_or_else(none, turn_cancel_literal),
        protocol_names,
        sides,
    }
}

fn none() -> String {
    "None".to_owned()
}

/// `_Ready(...)`: rule R1's messages.
fn ready_literal(ready: &Ready) -> String {
    let openers = tuple(ready.openers.iter().map(|opener| {
        format!(
            "({}, {})",
            string_literal(&opener.method),
            if opener.in_result { "True" } else { "False" }
        )
    }));
    let scoped = tuple(ready.scoped.iter().map(|scoped| string_literal(&scoped.method)));
    format!(
        "_Ready(notification={}, session={}, openers={openers}, scoped={scoped})",
        string_literal(&ready.notification.method),
        string_literal(&ready.notification.member)
    )
}

/// `_Turns(...)`: a prompt turn's messages and what ends it.
fn turns_literal(drain: &Drain) -> String {
    let end = match &drain.end {
        TurnEnd::Complete {
            tag,
            request,
            stop_reason,
        } => {
            format!(
                "_Complete(tag={}, request={}, stop_reason={})",
                string_literal(tag),
                string_literal(request),
                string_literal(stop_reason)
            )
        }
        TurnEnd::Idle { tag, state, idle } => format!(
            "_Idle(tag={}, state={}, idle={})",
            string_literal(tag),
            string_literal(state),
            string_literal(idle)
        ),
        TurnEnd::Response => none(),
    };
    format!(
        "_Turns(prompt={}, update={}, session={}, payload={}, tag={}, end={end})",
        string_literal(&drain.prompt),
        string_literal(&drain.update),
        string_literal(&drain.session),
        string_literal(&drain.payload),
        string_literal(&drain.tag)
    )
}

/// `_Handshake(...)`: what the agent's end decides about `initialize`.
fn handshake_literal(handshake: &Handshake) -> String {
    let unsupported = handshake.unsupported.as_ref().map_or_else(none, |error| {
        format!(
            "_Unsupported({}, {}, {}, {})",
            error.code,
            string_literal(&error.message),
            string_literal(&error.requested),
            string_literal(&error.supported)
        )
    });
    format!(
        "_Handshake({}, {}, {}, {}, {}, ({}, {}))",
        string_literal(&handshake.method),
        string_literal(&handshake.version),
        tuple(handshake.supported.iter().map(u16::to_string)),
        string_literal(&handshake.capabilities),
        unsupported,
        advertised_literal(&handshake.agent_advertises),
        advertised_literal(&handshake.client_advertises)
    )
}

/// `_Advertised(...)`: one side's gates, each `(pointer tokens, on, requests)`;
/// an "on" value as JSON text the template parses.
fn advertised_literal(advertised: &Advertised) -> String {
    let gates = tuple(advertised.gates.iter().map(|gate| {
        let tokens = tuple(
            gate.pointer
                .split('/')
                .skip(1)
                .map(|token| string_literal(&acp_schema_source::pointer::unescape_token(token))),
        );
        let methods = tuple(gate.methods.iter().map(|method| string_literal(method)));
        format!(
            "({tokens}, json.loads({}), {methods})",
            string_literal(&gate.on.to_string())
        )
    }));
    format!("_Advertised({}, {gates})", string_literal(&advertised.member))
}

/// `("$/cancel_request", "requestId")`.
fn cancel_literal(cancel: &Cancel) -> String {
    format!(
        "({}, {})",
        string_literal(&cancel.method),
        string_literal(&cancel.member)
    )
}

/// `_TurnCancel(...)`: what `session/cancel` asks of each end; the
/// permission's cancelled result as JSON text, which the template parses.
fn turn_cancel_literal(rules: &TurnCancel) -> String {
    let scoped = tuple(rules.scoped.iter().map(|method| string_literal(method)));
    let permission = rules.permission.as_ref().map_or_else(none, |(method, result)| {
        format!(
            "({}, json.loads({}))",
            string_literal(method),
            string_literal(&result.to_string())
        )
    });
    let awaiting = rules.awaiting.as_ref().map_or_else(none, |awaiting| {
        format!(
            "_Awaiting(request={}, requires_action={}, running={})",
            string_literal(&awaiting.request),
            string_literal(&awaiting.requires_action),
            string_literal(&awaiting.running)
        )
    });
    format!(
        "_TurnCancel(notification={}, prompt={}, session={}, stop_reason={}, cancelled={}, end={}, scoped={scoped}, permission={permission}, awaiting={awaiting})",
        string_literal(&rules.notification),
        string_literal(&rules.prompt),
        string_literal(&rules.session),
        string_literal(&rules.stop_reason),
        string_literal(&rules.cancelled),
        string_literal(rules.end.name())
    )
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

/// The names `connection.py` defines that the package root re-exports.
pub(super) fn exports(view: &ConnectionView) -> Vec<String> {
    let mut names = vec![
        "Connection".to_owned(),
        "ConnectOptions".to_owned(),
        "Dropped".to_owned(),
        "Send".to_owned(),
        "TurnCancelled".to_owned(),
    ];
    if view.session_not_found.is_some() {
        names.push("session_not_found".to_owned());
    }
    names.extend(
        view.sides
            .iter()
            .flat_map(|side| [side.name.clone(), side.connect.clone()]),
    );
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_are_the_helpers_model_of_the_default_schema() {
        let view = connection_view(&crate::test_support::default_ir());
        assert!(view.negotiated && view.session_ready);
        assert_eq!(
            view.ready,
            "_Ready(notification=\"session/ready\", session=\"sessionId\", openers=((\"session/new\", True), (\"session/load\", False)), scoped=(\"session/update\",))"
        );
        assert_eq!(
            view.turns,
            "_Turns(prompt=\"session/prompt\", update=\"session/update\", session=\"sessionId\", payload=\"update\", tag=\"sessionUpdate\", end=_Complete(tag=\"turn_complete\", request=\"promptRequestId\", stop_reason=\"stopReason\"))"
        );
        assert_eq!(view.cancel, "(\"$/cancel_request\", \"requestId\")");
        assert!(
            view.turn_cancel.starts_with("_TurnCancel(notification=\"session/cancel\", prompt=\"session/prompt\", session=\"sessionId\", stop_reason=\"stopReason\", cancelled=\"cancelled\", end=\"result\", scoped=(")
                && view.turn_cancel.ends_with(", permission=(\"session/request_permission\", json.loads(\"{\\\"outcome\\\":{\\\"outcome\\\":\\\"cancelled\\\"}}\")), awaiting=None)"),
            "{}",
            view.turn_cancel
        );
    }

    #[test]
    fn an_idle_turn_end_and_a_tuple_of_one() {
        let drain = Drain {
            prompt: "session/prompt".into(),
            update: "session/update".into(),
            session: "sessionId".into(),
            payload: "update".into(),
            tag: "sessionUpdate".into(),
            end: TurnEnd::Idle {
                tag: "state_update".into(),
                state: "state".into(),
                idle: "idle".into(),
            },
        };
        assert!(turns_literal(&drain).ends_with("end=_Idle(tag=\"state_update\", state=\"state\", idle=\"idle\"))"));
        assert_eq!(
            turns_literal(&Drain {
                end: TurnEnd::Response,
                ..drain
            })
            .rsplit_once(", ")
            .unwrap()
            .1,
            "end=None)"
        );
        assert_eq!(tuple(std::iter::empty()), "()");
        assert_eq!(tuple(["\"a\"".to_owned()].into_iter()), "(\"a\",)");
    }
}
