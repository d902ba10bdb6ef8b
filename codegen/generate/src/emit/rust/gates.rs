//! The handlers of the requests a capability offers (a method gate of
//! [`acp_ir::advertising`]) or an opening answer offers per session (a
//! session gate of [`acp_ir::sessions`]), which the side traits of
//! [`super::traits`] do not hold: per gate a trait holding them, without
//! default bodies (`LoadSessionHandler`, `ModesHandler`), and on the side
//! trait a function that gives them (`load_session_handler`,
//! `modes_handler`, `None` by default, [`UNHANDLED`]), both named from the
//! gate's pointer. The dispatcher runs a gated request on what that
//! function gives, or answers method-not-found. The end offers the gate
//! exactly when its handlers are given: it advertises a method gate when
//! those of the gates enclosing it are given too, and leaves a session
//! gate's member out of its opening answers unless they are. An end cannot
//! offer a request it cannot answer, and a handler that answers it cannot
//! be written without the rest of its gate.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::ident;
use acp_ir::advertising::{self, MethodGate};
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;
use acp_ir::sessions;

/// The type a side trait's gate functions give by default: no handlers.
pub(crate) const UNHANDLED: &str = "Unhandled";

/// One gate's handlers.
pub(crate) struct GateHandlers {
    /// Its pointer: inside the side's capabilities (`/loadSession`), or of
    /// the member of the opening answers (`/modes`).
    pub pointer: String,
    /// Where the side offers it.
    pub offer: Offer,
    /// `LoadSessionHandler`.
    pub trait_ident: Ident,
    /// `load_session_handler`.
    pub accessor: Ident,
    /// The requests the gate offers itself, not through an enclosing gate.
    pub requests: Vec<String>,
}

/// Where a side offers a gate's requests.
pub(crate) enum Offer {
    /// In its initialize message.
    Capability {
        /// The member holding the side's capabilities.
        member: String,
        /// The pointers of the gates enclosing it, outermost first.
        enclosing: Vec<String>,
    },
    /// Per session, in the answers that open one.
    Session {
        /// The methods whose answers carry the offer.
        openers: Vec<String>,
    },
}

/// The gates `side` offers from its handlers: those it advertises, in
/// pointer order, then those it offers per session, in member order.
pub(crate) fn of(ir: &Ir, side: Side) -> Vec<GateHandlers> {
    let mut gates = capability_gates(ir, side);
    gates.extend(session_gates(ir, side));
    gates
}

/// The method gates `side` advertises, in pointer order.
fn capability_gates(ir: &Ir, side: Side) -> Vec<GateHandlers> {
    let Some(advertised) = advertising::model(ir, side) else {
        return Vec::new();
    };
    let gates = &advertised.gates;
    gates
        .iter()
        .map(|gate| {
            let enclosing: Vec<&MethodGate> = gates
                .iter()
                .filter(|other| gate.pointer.starts_with(&format!("{}/", other.pointer)))
                .collect();
            GateHandlers {
                pointer: gate.pointer.clone(),
                offer: Offer::Capability {
                    member: advertised.member.clone(),
                    enclosing: enclosing.iter().map(|other| other.pointer.clone()).collect(),
                },
                trait_ident: format_ident!("{}", naming::rust_gate_trait(&gate.pointer)),
                accessor: ident(&naming::rust_gate_accessor(&gate.pointer)),
                requests: gate
                    .methods
                    .iter()
                    .filter(|method| !enclosing.iter().any(|other| other.methods.contains(method)))
                    .cloned()
                    .collect(),
            }
        })
        .collect()
}

/// The session gates `side` offers, one per member (the methods it offers).
fn session_gates(ir: &Ir, side: Side) -> Vec<GateHandlers> {
    let mut gates: Vec<GateHandlers> = Vec::new();
    let mut rules = sessions::model(ir);
    rules.retain(|rule| rule.gate.advertised_by == side);
    rules.sort_by(|a, b| a.gate.member.cmp(&b.gate.member));
    for rule in rules {
        if let Some(gate) = gates.iter_mut().find(|gate| gate.pointer == rule.gate.member) {
            gate.requests.push(rule.method);
            continue;
        }
        gates.push(GateHandlers {
            trait_ident: format_ident!("{}", naming::rust_gate_trait(&rule.gate.member)),
            accessor: ident(&naming::rust_gate_accessor(&rule.gate.member)),
            offer: Offer::Session {
                openers: rule.gate.openers.iter().map(|opener| opener.method.clone()).collect(),
            },
            pointer: rule.gate.member,
            requests: vec![rule.method],
        });
    }
    gates
}

/// The gate whose trait holds the handler of `entry`: a request one of
/// `gates` offers itself.
pub(crate) fn holding<'g>(gates: &'g [GateHandlers], entry: &Message) -> Option<&'g GateHandlers> {
    if entry.kind != MessageKind::Request {
        return None;
    }
    gates
        .iter()
        .find(|gate| gate.requests.iter().any(|request| request == entry.method))
}

/// A gate's trait, holding `functions` (each a handler's signature and doc).
pub(crate) fn gate_trait(side: Side, gate: &GateHandlers, functions: &[TokenStream]) -> TokenStream {
    let GateHandlers {
        pointer,
        offer,
        trait_ident,
        accessor,
        requests,
    } = gate;
    let side_trait = naming::endpoint_type(side);
    let side = side.as_str();
    let requests = quoted(requests);
    let text = match offer {
        Offer::Capability { member, enclosing } => {
            let needs = match enclosing.as_slice() {
                [] => String::new(),
                enclosing => format!(" and the handlers of {} are given too", quoted(enclosing)),
            };
            format!(
                " The handlers of the requests the {side} side offers at `{pointer}` in its `{member}`: {requests}. [`{side_trait}::{accessor}`] gives them; the {side}'s end advertises the capability exactly when it does{needs}."
            )
        }
        Offer::Session { openers } => format!(
            " The handlers of the requests the {side} side offers per session by `{pointer}` in the answers that open one ({}): {requests}. [`{side_trait}::{accessor}`] gives them; unless it does, the {side}'s end leaves that member out of those answers, whatever their handlers wrote.",
            quoted(openers)
        ),
    };
    quote! {
        #[doc = #text]
        pub trait #trait_ident {
            #(#functions)*
        }
    }
}

/// `items` in backquotes, joined by commas.
fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The side trait's function that gives a gate's handlers.
pub(crate) fn accessor(gate: &GateHandlers) -> TokenStream {
    let GateHandlers {
        pointer,
        trait_ident,
        accessor,
        ..
    } = gate;
    let unhandled = format_ident!("{}", UNHANDLED);
    let (at, offered) = match gate.offer {
        Offer::Capability { .. } => ("at", "the capability is advertised exactly when they are given"),
        Offer::Session { .. } => (
            "per session by",
            "the opening answers carry that member only when they are given",
        ),
    };
    let text = format!(
        " The handlers of the requests offered {at} `{pointer}` ([`{trait_ident}`]), when this side has them: {offered}. Unless implemented, none: those requests are answered method-not-found."
    );
    quote! {
        #[doc = #text]
        fn #accessor(&self) -> ::std::option::Option<&impl #trait_ident> {
            ::std::option::Option::None::<&#unhandled>
        }
    }
}

/// [`UNHANDLED`], and its implementation of every gate's trait: each
/// trait's functions, which never run (it has no value).
pub(crate) fn unhandled(implementations: &[(Ident, Vec<TokenStream>)]) -> TokenStream {
    let unhandled = format_ident!("{}", UNHANDLED);
    let implementations = implementations.iter().map(|(trait_ident, functions)| {
        quote! {
            impl #trait_ident for #unhandled {
                #(#functions)*
            }
        }
    });
    quote! {
        /// No handlers: what a side trait's capability functions give
        /// unless implemented (`None`). It has no value.
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy)]
        pub enum #unhandled {}
        #(#implementations)*
    }
}
