//! The generated crate's connection: the fixed `connection` module (the
//! runtime of `templates/rust/connection.rs`, copied as text) and the
//! `ends` module the schema decides: the rules the connection follows
//! (`RULES`, from the RFD helpers' model and the negotiation; `HANDSHAKE`
//! and `session_not_found`, from the IR's handshake) and the typed calls of
//! each end, one per method the other side handles.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{ident, type_ident};
use acp_ir::advertising::Advertised;
use acp_ir::handshake::{Handshake, UnsupportedVersion};
use acp_ir::ir::*;
use acp_ir::naming;
use acp_ir::rfd::{Drain, Helpers, TurnEnd};

/// `connection.rs`, the runtime, copied as text, comments kept.
pub(crate) const SOURCE: &str = include_str!("../../../../../templates/rust/connection.rs");

/// `ends.rs`: the rules and the typed calls.
pub(crate) fn ends(ir: &Ir, model: &Helpers) -> TokenStream {
    let ready = match &model.ready {
        Some(ready) => {
            let notification = &ready.notification.method;
            let session = &ready.notification.member;
            let openers = ready.openers.iter().map(|opener| {
                let (method, in_result) = (&opener.method, opener.in_result);
                quote!((#method, #in_result))
            });
            let scoped = ready.scoped.iter().map(|scoped| &scoped.method);
            quote!(::std::option::Option::Some(crate::connection::ReadyRules {
                notification: #notification,
                session: #session,
                openers: &[#(#openers),*],
                scoped: &[#(#scoped),*],
            }))
        }
        None => quote!(::std::option::Option::None),
    };
    let turns = match &model.drain {
        Some(drain) => turn_rules(drain),
        None => quote!(::std::option::Option::None),
    };
    let cancel = match &model.cancel {
        Some(cancel) => {
            let (method, member) = (&cancel.method, &cancel.member);
            quote!(::std::option::Option::Some((#method, #member)))
        }
        None => quote!(::std::option::Option::None),
    };
    let turn_cancel = match &model.turn_cancel {
        Some(cancel) => turn_cancel_rules(cancel),
        None => quote!(::std::option::Option::None),
    };
    // The schema's initialize method; empty, matching none, without one.
    let initialize = ir.initialize().map_or("", |method| method.name.as_str());
    let (handshake, session_not_found) = handshake(ir);
    // Each end calls what its peer handles.
    let [client_calls, agent_calls] =
        [Side::Client, Side::Agent].map(|side| side.peer().map(|peer| calls(ir, model, peer)).unwrap_or_default());
    quote! {
        use crate::connection::{AgentEnd, CallError, ClientEnd, Features, Rules};

        /// What this schema says about the messages the connection treats
        /// specially: `session/ready` (rule R1), what ends a prompt turn,
        /// request cancellation and `session/cancel`.
        pub static RULES: Rules = Rules {
            initialize: #initialize,
            features,
            outgoing,
            ready: #ready,
            turns: #turns,
            cancel: #cancel,
            turn_cancel: #turn_cancel,
        };

        /// What the agent's end decides about `initialize` itself.
        pub static HANDSHAKE: ::std::option::Option<crate::connection::Handshake> = #handshake;

        #session_not_found

        /// The RFD features an `initialize` exchange negotiated (none when
        /// it does not negotiate).
        fn features(params: &::serde_json::Value, result: &::serde_json::Value) -> Features {
            match crate::negotiation::negotiate(params, result) {
                ::std::result::Result::Ok(negotiated) => Features { session_ready: negotiated.session_ready(), turn_complete: negotiated.turn_complete() },
                ::std::result::Result::Err(_) => Features::default(),
            }
        }

        /// What an `initialize` exchange allows an end to send: the
        /// negotiated view, whose `check_outgoing` every later message
        /// passes (none when it does not negotiate).
        fn outgoing(params: &::serde_json::Value, result: &::serde_json::Value) -> ::std::option::Option<crate::negotiation::Negotiated> {
            crate::negotiation::negotiate(params, result).ok()
        }

        /// The client's calls: what the agent handles.
        impl ClientEnd {
            #(#client_calls)*
        }

        /// The agent's calls: what the client handles.
        impl AgentEnd {
            #(#agent_calls)*
        }
    }
}

/// `HANDSHAKE`'s value, from the IR's handshake, and `session_not_found`,
/// the error an agent answers a request naming an unknown session with.
fn handshake(ir: &Ir) -> (TokenStream, TokenStream) {
    let Some(handshake) = acp_ir::handshake::model(ir) else {
        return (quote!(::std::option::Option::None), quote!());
    };
    let Handshake {
        method,
        version,
        supported,
        capabilities,
        unsupported,
        unknown_session,
        agent_advertises,
        client_advertises,
    } = &handshake;
    let [agent_advertises, client_advertises] = [agent_advertises, client_advertises].map(advertised);
    let unsupported = match unsupported {
        Some(UnsupportedVersion {
            code,
            message,
            requested,
            supported,
        }) => quote!(::std::option::Option::Some((#code, #message, #requested, #supported))),
        None => quote!(::std::option::Option::None),
    };
    let value = quote!(::std::option::Option::Some(crate::connection::Handshake {
        method: #method,
        version: #version,
        supported: &[#(#supported),*],
        capabilities: #capabilities,
        unsupported: #unsupported,
        agent_advertises: #agent_advertises,
        client_advertises: #client_advertises,
    }));
    // The error object's constructor of the code (`Error::resource_not_found()`).
    let constructor = unknown_session.as_ref().and_then(|unknown| {
        let error = ir.error_object()?;
        let TypeKind::Enum(codes) = &ir.get(error.codes.as_deref()?)?.kind else {
            return None;
        };
        let code = codes
            .values
            .iter()
            .find(|value| value.value.as_i64() == Some(unknown.code))?;
        Some((
            type_ident(&error.name),
            ident(&naming::rust_field(&code.name)),
            &unknown.member,
        ))
    });
    let session_not_found = match constructor {
        Some((error, constructor, member)) => quote! {
            /// The error a request naming a session this agent does not know
            /// is answered with, the session id as `data`.
            pub fn session_not_found(session: &str) -> crate::types::#error {
                crate::types::#error::#constructor().data(::serde_json::json!({ #member: session }))
            }
        },
        None => quote!(),
    };
    (value, session_not_found)
}

/// One side's gates, as the connection's `Advertised`: each pointer as its
/// tokens, its "on" value as JSON text.
fn advertised(advertised: &Advertised) -> TokenStream {
    let member = &advertised.member;
    let gates = advertised.gates.iter().map(|gate| {
        let tokens = gate
            .pointer
            .split('/')
            .skip(1)
            .map(acp_schema_source::pointer::unescape_token);
        let on = gate.on.to_string();
        let methods = &gate.methods;
        quote!(crate::connection::MethodGate { pointer: &[#(#tokens),*], on: #on, methods: &[#(#methods),*] })
    });
    quote!(crate::connection::Advertised { member: #member, gates: &[#(#gates),*] })
}

fn turn_rules(drain: &Drain) -> TokenStream {
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
            quote!(crate::connection::TurnEnd::Complete { tag: #tag, request: #request, stop_reason: #stop_reason })
        }
        TurnEnd::Idle { tag, state, idle } => {
            quote!(crate::connection::TurnEnd::Idle { tag: #tag, state: #state, idle: #idle })
        }
        TurnEnd::Response => quote!(crate::connection::TurnEnd::Response),
    };
    quote!(::std::option::Option::Some(crate::connection::TurnRules {
        prompt: #prompt,
        update: #update,
        session: #session,
        payload: #payload,
        tag: #tag,
        end: #end,
    }))
}

fn turn_cancel_rules(cancel: &acp_ir::rfd::TurnCancel) -> TokenStream {
    let acp_ir::rfd::TurnCancel {
        notification,
        prompt,
        session,
        stop_reason,
        cancelled,
        end,
        scoped,
        permission,
        awaiting,
    } = cancel;
    let awaiting = match awaiting {
        Some(acp_ir::rfd::Awaiting {
            request,
            requires_action,
            running,
        }) => quote!(::std::option::Option::Some(crate::connection::Awaiting {
            request: #request,
            requires_action: #requires_action,
            running: #running,
        })),
        None => quote!(::std::option::Option::None),
    };
    let end = match end {
        acp_ir::rfd::CancelEnd::Result => quote!(crate::connection::CancelEnd::Result),
        acp_ir::rfd::CancelEnd::Idle => quote!(crate::connection::CancelEnd::Idle),
    };
    let permission = match permission {
        Some((method, result)) => {
            let result = result.to_string();
            quote!(::std::option::Option::Some((#method, #result)))
        }
        None => quote!(::std::option::Option::None),
    };
    quote!(::std::option::Option::Some(crate::connection::TurnCancelRules {
        notification: #notification,
        prompt: #prompt,
        session: #session,
        stop_reason: #stop_reason,
        cancelled: #cancelled,
        end: #end,
        scoped: &[#(#scoped),*],
        permission: #permission,
        awaiting: #awaiting,
    }))
}

/// A typed function for each request and notification `handler` handles.
fn calls(ir: &Ir, model: &Helpers, handler: Side) -> Vec<TokenStream> {
    let mut found = Vec::new();
    for message in ir.handled_by(handler) {
        let wire = message.method;
        let function = ident(&naming::rust_handler(&message.handler));
        let params = type_ident(message.payload);
        if let Some(result) = message.result() {
            let result = type_ident(result);
            let doc = if model.drain.as_ref().is_some_and(|drain| drain.prompt == wire) {
                format!("Calls `{wire}`; completes when the turn is drained (see [`crate::connection`]).")
            } else {
                format!("Calls `{wire}`.")
            };
            found.push(quote! {
                #[doc = #doc]
                pub async fn #function(&self, params: crate::types::#params) -> ::std::result::Result<crate::types::#result, CallError> {
                    self.0.call(#wire, &params).await
                }
            });
        } else {
            let doc = format!("Sends `{wire}`, after every message this end made before it.");
            found.push(quote! {
                #[doc = #doc]
                pub fn #function(&self, params: crate::types::#params) -> ::std::result::Result<(), CallError> {
                    self.0.notify(#wire, &params)
                }
            });
        }
    }
    found
}
