//! The handlers of the requests a capability offers (a method gate of
//! [`acp_ir::advertising`]), which the side traits of [`super::traits`] do
//! not hold: per gate a trait holding them, without default bodies
//! (`LoadSessionHandler`), and on the side trait a function that gives
//! them (`load_session_handler`, `None` by default, [`UNHANDLED`]). The
//! dispatcher runs a gated request on what that function gives, or answers
//! method-not-found, and the end advertises the gate exactly when its
//! handlers, and those of the gates enclosing it, are given: an end cannot
//! advertise a request it cannot answer, and a handler that answers it
//! cannot be written without the rest of its gate.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::ident;
use acp_ir::advertising::{self, MethodGate};
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;

/// The type a side trait's gate functions give by default: no handlers.
pub(crate) const UNHANDLED: &str = "Unhandled";

/// One gate's handlers.
pub(crate) struct GateHandlers {
    /// Its pointer inside the side's capabilities (`/loadSession`).
    pub pointer: String,
    /// The capabilities member of the side's initialize message.
    pub member: String,
    /// `LoadSessionHandler`.
    pub trait_ident: Ident,
    /// `load_session_handler`.
    pub accessor: Ident,
    /// The requests the gate offers itself, not through an enclosing gate.
    pub requests: Vec<String>,
    /// The pointers of the gates enclosing it, outermost first.
    pub enclosing: Vec<String>,
}

/// The gates `side` advertises from its handlers, in pointer order.
pub(crate) fn of(ir: &Ir, side: Side) -> Vec<GateHandlers> {
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
                member: advertised.member.clone(),
                trait_ident: format_ident!("{}", naming::rust_gate_trait(&gate.pointer)),
                accessor: ident(&naming::rust_gate_accessor(&gate.pointer)),
                requests: gate
                    .methods
                    .iter()
                    .filter(|method| !enclosing.iter().any(|other| other.methods.contains(method)))
                    .cloned()
                    .collect(),
                enclosing: enclosing.iter().map(|other| other.pointer.clone()).collect(),
            }
        })
        .collect()
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
        member,
        trait_ident,
        accessor,
        requests,
        enclosing,
    } = gate;
    let side_trait = naming::endpoint_type(side);
    let quoted = |items: &[String]| {
        items
            .iter()
            .map(|item| format!("`{item}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let needs = match enclosing.as_slice() {
        [] => String::new(),
        enclosing => format!(" and the handlers of {} are given too", quoted(enclosing)),
    };
    let text = format!(
        " The handlers of the requests the {side} side offers at `{pointer}` in its `{member}`: {}. [`{side_trait}::{accessor}`] gives them; the {side}'s end advertises the capability exactly when it does{needs}.",
        quoted(requests),
        side = side.as_str(),
    );
    quote! {
        #[doc = #text]
        pub trait #trait_ident {
            #(#functions)*
        }
    }
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
    let text = format!(
        " The handlers of the requests offered at `{pointer}` ([`{trait_ident}`]), when this side has them: the capability is advertised exactly when they are given. Unless implemented, none: those requests are answered method-not-found."
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
