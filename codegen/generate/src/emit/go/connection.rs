//! `ends.go`: the rules the connection of `templates/go/connection.go`
//! acts on, printed from the IR (rule R1's messages, a prompt turn's
//! messages and the turn tracker's rules the client's end feeds, request
//! cancellation, `session/cancel` from the RFD helpers'
//! model [`acp_ir::rfd`]; what the agent's end decides about `initialize`
//! from [`acp_ir::handshake`]), the features an `initialize` exchange
//! negotiated, and for the agent and the client a typed end
//! (`AgentConnection`, `ClientConnection`) with a method per request and
//! notification the peer handles, opened by `ConnectAgent` /
//! `ConnectClient`. The runtime only reads the rules.

use askama::Template;

use super::exprs::collision;
use super::exprs::{go_string, go_strings};
use acp_ir::error::CodegenError;
use acp_ir::handshake::Handshake;
use acp_ir::ir::{Ir, Side};
use acp_ir::naming;
use acp_ir::rfd::{Cancel, CancelEnd, Drain, Ready, TurnCancel, TurnEnd};

/// The embedded `Connection` and its methods, which a typed call must not
/// shadow.
const RUNTIME_METHODS: [&str; 6] = [
    "Connection",
    "Run",
    "Features",
    "Cancellation",
    "RequestExtension",
    "NotifyExtension",
];

#[derive(Template)]
#[template(path = "go/ends.go.tmpl", escape = "none")]
pub(super) struct EndsFile {
    /// The schema's initialize method, a Go string.
    initialize: String,
    /// `negotiatedFeatures` reads `NegotiateJSON`.
    negotiated: bool,
    /// `newSessionOffers` makes the negotiation's `SessionOffers`.
    session_gates: bool,
    /// Go expressions of the rules, `nil` when the schema has none.
    ready: String,
    turns: String,
    /// The turn tracker's rules (`schemaTurnRules`, printed into
    /// `helpers.go` from the same [`acp_ir::rfd::Turns`]), `nil` without them.
    turn_rules: String,
    cancel: String,
    turn_cancel: String,
    handshake: String,
    /// `SessionNotFound`'s error, a Go expression of `sessionID`.
    session_not_found: Option<String>,
    sides: Vec<SideView>,
}

struct SideView {
    /// `AgentConnection`, `ConnectAgent`, `Agent`, `DispatchAgentRequest`...
    name: String,
    connect: String,
    interface: String,
    label: &'static str,
    peer: &'static str,
    /// The agent's end (its calls may belong to a cancelled turn).
    agent: bool,
    /// The dispatchers the end calls with the params it parsed.
    dispatch_request_parsed: String,
    /// `handlesAgentRequest`: what the end advertises from.
    handles: String,
    dispatch_notification_parsed: String,
    calls: Vec<CallView>,
}

struct CallView {
    function: String,
    constant: String,
    params: String,
    encode: String,
    /// The result type and its decoder; absent for a notification.
    result: Option<(String, String)>,
}

fn side_view(ir: &Ir, side: Side, peer: Side) -> Result<SideView, CodegenError> {
    let mut calls = Vec::new();
    for message in ir.handled_by(peer) {
        let function = naming::go_handler(&message.handler);
        if RUNTIME_METHODS.contains(&function.as_str()) {
            return Err(collision(format!(
                "the call of {} and the connection's method both take the Go name `{function}`",
                message.method
            )));
        }
        let params = naming::go_type(message.payload);
        let [_, encode] = naming::go_codec_functions(&params);
        calls.push(CallView {
            function,
            constant: naming::go_method_constant(message.method),
            params,
            encode,
            result: message.result().map(|result| {
                let result = naming::go_type(result);
                let [decode, _] = naming::go_codec_functions(&result);
                (result, decode)
            }),
        });
    }
    let label = side.as_str();
    let interface = naming::endpoint_type(side);
    Ok(SideView {
        name: format!("{interface}Connection"),
        connect: naming::go_side_function("connect", label, ""),
        interface,
        label,
        peer: peer.as_str(),
        agent: side == Side::Agent,
        dispatch_request_parsed: naming::go_side_function_parsed("dispatch", label, "request"),
        dispatch_notification_parsed: naming::go_side_function_parsed("dispatch", label, "notification"),
        handles: super::methods::handles_function(label),
        calls,
    })
}

/// Builds `ends.go` for `ir`.
pub(super) fn view(ir: &Ir) -> Result<EndsFile, CodegenError> {
    let endpoints = ir.endpoints();
    let sides = endpoints
        .iter()
        .filter_map(|side| Some((*side, side.peer()?)))
        .filter(|(_, peer)| endpoints.contains(peer))
        .map(|(side, peer)| side_view(ir, side, peer))
        .collect::<Result<Vec<_>, _>>()?;
    let model = acp_ir::rfd::model(ir);
    let negotiation = acp_ir::negotiation::model(ir);
    let negotiated = negotiation.is_some();
    let handshake = acp_ir::handshake::model(ir);
    Ok(EndsFile {
        initialize: go_string(&ir.initialize().map(|method| method.name.clone()).unwrap_or_default()),
        negotiated,
        session_gates: negotiation.is_some_and(|model| !model.session_gates.is_empty()),
        ready: model
            .ready
            .as_ref()
            .filter(|_| negotiated)
            .map_or_else(nil, ready_literal),
        turns: model.drain.as_ref().map_or_else(nil, turns_literal),
        turn_rules: model.turns.as_ref().map_or_else(nil, |_| "&schemaTurnRules".to_owned()),
        cancel: model.cancel.as_ref().map_or_else(nil, cancel_literal),
        turn_cancel: model.turn_cancel.as_ref().map_or_else(nil, turn_cancel_literal),
        handshake: handshake.as_ref().map_or_else(nil, handshake_literal),
        session_not_found: handshake
            .and_then(|handshake| handshake.unknown_session)
            .map(|error| {
                format!(
                    "&RequestError{{Code: {}, Message: {}, Data: Some(ObjectValue([]Member{{{{Name: {}, Value: StringValue(sessionID)}}}}))}}",
                    error.code,
                    go_string(&error.message),
                    go_string(&error.member)
                )
            }),
        sides,
    })
}

fn nil() -> String {
    "nil".to_owned()
}

/// `&readyRules{...}`: rule R1's messages.
fn ready_literal(ready: &Ready) -> String {
    let openers: Vec<String> = ready
        .openers
        .iter()
        .map(|opener| format!("{{{}, {}}}", go_string(&opener.method), opener.in_result))
        .collect();
    format!(
        "&readyRules{{notification: {}, session: {}, openers: []readyOpener{{{}}}, scoped: {}}}",
        go_string(&ready.notification.method),
        go_string(&ready.notification.member),
        openers.join(", "),
        go_strings(ready.scoped.iter().map(|scoped| go_string(&scoped.method)))
    )
}

/// `&promptTurns{...}`: a prompt turn's messages and what ends it.
fn turns_literal(drain: &Drain) -> String {
    let end = match &drain.end {
        TurnEnd::Complete {
            tag,
            request,
            stop_reason,
        } => format!(
            ", end: turnEndComplete, endTag: {}, request: {}, stopReason: {}",
            go_string(tag),
            go_string(request),
            go_string(stop_reason)
        ),
        TurnEnd::Idle { tag, state, idle } => format!(
            ", end: turnEndIdle, endTag: {}, state: {}, idle: {}",
            go_string(tag),
            go_string(state),
            go_string(idle)
        ),
        TurnEnd::Response => String::new(),
    };
    format!(
        "&promptTurns{{prompt: {}, update: {}, session: {}, payload: {}, tag: {}{end}}}",
        go_string(&drain.prompt),
        go_string(&drain.update),
        go_string(&drain.session),
        go_string(&drain.payload),
        go_string(&drain.tag)
    )
}

/// `&cancelRules{"$/cancel_request", "requestId"}`.
fn cancel_literal(cancel: &Cancel) -> String {
    format!(
        "&cancelRules{{method: {}, member: {}}}",
        go_string(&cancel.method),
        go_string(&cancel.member)
    )
}

/// `&turnCancelRules{...}`: what `session/cancel` asks of each end; the
/// permission's cancelled result as JSON text.
fn turn_cancel_literal(rules: &TurnCancel) -> String {
    let (permission, result) = rules
        .permission
        .as_ref()
        .map_or_else(Default::default, |(method, result)| {
            (go_string(method), go_string(&result.to_string()))
        });
    let awaiting = rules.awaiting.as_ref().map_or_else(nil, |awaiting| {
        format!(
            "&awaitingRules{{request: {}, requiresAction: {}, running: {}}}",
            go_string(&awaiting.request),
            go_string(&awaiting.requires_action),
            go_string(&awaiting.running)
        )
    });
    let permission = if permission.is_empty() {
        String::new()
    } else {
        format!(", permission: {permission}, permissionResult: {result}")
    };
    format!(
        "&turnCancelRules{{notification: {}, prompt: {}, session: {}, stopReason: {}, cancelled: {}, idleEnd: {}, scoped: {}{permission}, awaiting: {awaiting}}}",
        go_string(&rules.notification),
        go_string(&rules.prompt),
        go_string(&rules.session),
        go_string(&rules.stop_reason),
        go_string(&rules.cancelled),
        rules.end == CancelEnd::Idle,
        go_strings(rules.scoped.iter().map(|method| go_string(method)))
    )
}

/// `&handshakeRules{...}`: what the agent's end decides about `initialize`.
fn handshake_literal(handshake: &Handshake) -> String {
    let unsupported = handshake.unsupported.as_ref().map_or_else(nil, |error| {
        format!(
            "&unsupportedRules{{code: {}, message: {}, requested: {}, supported: {}}}",
            error.code,
            go_string(&error.message),
            go_string(&error.requested),
            go_string(&error.supported)
        )
    });
    let supported: Vec<String> = handshake.supported.iter().map(u16::to_string).collect();
    format!(
        "&handshakeRules{{method: {}, version: {}, supported: []int64{{{}}}, capabilities: {}, unsupported: {unsupported}, advertises: [2]advertisedRules{{{}, {}}}}}",
        go_string(&handshake.method),
        go_string(&handshake.version),
        supported.join(", "),
        go_string(&handshake.capabilities),
        advertised_literal(&handshake.agent_advertises),
        advertised_literal(&handshake.client_advertises)
    )
}

/// `{member: ..., gates: []advertisedGate{...}}`: one side's gates, each
/// "on" value as JSON text.
fn advertised_literal(advertised: &acp_ir::advertising::Advertised) -> String {
    let gates: Vec<String> = advertised
        .gates
        .iter()
        .map(|gate| {
            let tokens = gate
                .pointer
                .split('/')
                .skip(1)
                .map(|token| go_string(&acp_schema_source::pointer::unescape_token(token)));
            format!(
                "{{pointer: {}, on: {}, methods: {}}}",
                go_strings(tokens),
                go_string(&gate.on.to_string()),
                go_strings(gate.methods.iter().map(|method| go_string(method)))
            )
        })
        .collect();
    format!(
        "{{member: {}, gates: []advertisedGate{{{}}}}}",
        go_string(&advertised.member),
        gates.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_are_the_helpers_model_of_the_default_schema() {
        let view = view(&crate::test_support::default_ir()).unwrap();
        assert!(view.negotiated);
        assert_eq!(
            view.ready,
            "&readyRules{notification: \"session/ready\", session: \"sessionId\", openers: []readyOpener{{\"session/new\", true}, {\"session/load\", false}}, scoped: []string{\"session/update\"}}"
        );
        assert_eq!(
            view.turns,
            "&promptTurns{prompt: \"session/prompt\", update: \"session/update\", session: \"sessionId\", payload: \"update\", tag: \"sessionUpdate\", end: turnEndComplete, endTag: \"turn_complete\", request: \"promptRequestId\", stopReason: \"stopReason\"}"
        );
        assert_eq!(view.turn_rules, "&schemaTurnRules");
        assert_eq!(
            view.cancel,
            "&cancelRules{method: \"$/cancel_request\", member: \"requestId\"}"
        );
        assert!(
            view.turn_cancel.starts_with("&turnCancelRules{notification: \"session/cancel\", prompt: \"session/prompt\", session: \"sessionId\", stopReason: \"stopReason\", cancelled: \"cancelled\", idleEnd: false, scoped: []string{")
                && view.turn_cancel.ends_with(", permission: \"session/request_permission\", permissionResult: \"{\\\"outcome\\\":{\\\"outcome\\\":\\\"cancelled\\\"}}\", awaiting: nil}"),
            "{}",
            view.turn_cancel
        );
        let names: Vec<&str> = view.sides.iter().map(|side| side.name.as_str()).collect();
        assert_eq!(names, ["AgentConnection", "ClientConnection"]);
    }

    #[test]
    fn an_idle_turn_end_and_no_end() {
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
        assert!(turns_literal(&drain)
            .ends_with("end: turnEndIdle, endTag: \"state_update\", state: \"state\", idle: \"idle\"}"));
        assert!(turns_literal(&Drain {
            end: TurnEnd::Response,
            ..drain
        })
        .ends_with("tag: \"sessionUpdate\"}"));
    }
}
