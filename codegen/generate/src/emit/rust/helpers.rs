//! The generated crate's `helpers` module: the state machines of
//! [`acp_ir::rfd::machines`], copied as they are into
//! `helpers/machines.rs`, and typed wrappers over the crate's own types
//! that the [`acp_ir::rfd`] model names: the session-ready gate built
//! from a `Negotiated`, the `TurnTracker` fed decoded `session/update`
//! params (v1's `turn_complete` or v2's `state_update` lifecycle), and
//! `next_step` on a decoded `SessionStatus`.

use proc_macro2::TokenStream;
use quote::quote;

use acp_ir::ir::{Ir, TypeKind};
use acp_ir::naming;
use acp_ir::rfd::{Helpers, Status, Turns};

use super::context::{ident, type_ident};

/// `helpers/machines.rs`: the machines' source, the same text `acp-ir`
/// compiles, copied as text, comments kept.
pub(crate) const MACHINES: &str = acp_ir::rfd::MACHINES_SOURCE;

/// `helpers.rs`.
pub(crate) fn emit(ir: &Ir, model: &Helpers) -> TokenStream {
    let turns = model.turns.as_ref().and_then(|turns| tracker(ir, turns));
    let status = model.status.as_ref().map(status);
    quote! {
        pub mod machines;

        pub use machines::{NextStep, Scope, SessionReadyGate, ViolationKind};

        impl<T> SessionReadyGate<T> {
            /// A gate that holds notifications when the agent advertised
            /// `session/ready` in this exchange.
            pub fn from_negotiated(negotiated: &crate::negotiation::Negotiated) -> Self {
                Self::new(negotiated.session_ready())
            }
        }

        #turns
        #status
    }
}

fn tracker(ir: &Ir, turns: &Turns) -> Option<TokenStream> {
    let complete = turns.complete.as_ref();
    let lifecycle = turns.lifecycle.as_ref();
    let request_type = type_ident(&turns.request_type);
    let stop_type = match &turns.stop_reason_type {
        Some(stop_reason) => {
            let name = type_ident(stop_reason);
            quote! { crate::types::#name }
        }
        None => quote! { () },
    };
    let TypeKind::Union(union) = &ir.get(&turns.union)?.kind else {
        return None;
    };
    let notification = type_ident(&turns.notification);
    let union_type = type_ident(&turns.union);
    let update = ident(&naming::rust_field(&turns.update.name));
    let session = ident(&naming::rust_field(&turns.session.name));
    let arm = |variants: Vec<&acp_ir::rfd::UpdateVariant>, scope: TokenStream| {
        let patterns = variants.iter().map(|variant| {
            let name = type_ident(&variant.name);
            quote! { crate::types::#union_type::#name(_) }
        });
        (!variants.is_empty()).then(|| quote! { #(#patterns)|* => machines::Scope::#scope, })
    };
    let reply_arm = arm(turns.replies.iter().collect(), quote! { Reply });
    let output_arm = arm(
        turns
            .output
            .iter()
            .filter(|variant| !turns.replies.contains(variant))
            .collect(),
        quote! { Turn },
    );
    let complete_arm = complete.map(|complete| {
        let name = type_ident(&complete.variant.name);
        let request = ident(&naming::rust_field(&complete.request.name));
        let stop = ident(&naming::rust_field(&complete.stop_reason.name));
        quote! {
            crate::types::#union_type::#name(update) => machines::Scope::Complete { request: update.#request.clone(), stop_reason: update.#stop.clone() },
        }
    });
    let state_arm = lifecycle.map(|lifecycle| {
        let name = type_ident(&lifecycle.variant.name);
        let states = type_ident(&lifecycle.union);
        let idle = type_ident(&lifecycle.idle.name);
        quote! {
            crate::types::#union_type::#name(state) => machines::Scope::State { idle: matches!(state, crate::types::#states::#idle(_)) },
        }
    });
    let covered = turns.output.len() + usize::from(complete.is_some()) + usize::from(lifecycle.is_some());
    let rest = (union.variants.len() + usize::from(union.other.is_some()) > covered)
        .then(|| quote! { _ => machines::Scope::Session, });
    let (constructors, response) = if lifecycle.is_some() {
        (
            quote! {
                /// A tracker: in protocol v2 `idle` state updates end turns.
                pub fn new() -> Self {
                    TurnTracker(machines::TurnTracker::lifecycle())
                }

                /// A tracker for this exchange (v2 negotiates nothing about turns).
                pub fn from_negotiated(_negotiated: &crate::negotiation::Negotiated) -> Self {
                    Self::new()
                }
            },
            quote! {
                /// The response to the prompt `request` arrived: `accepted`,
                /// or refused with an error response.
                pub fn response(&mut self, request: &crate::types::#request_type, accepted: bool) -> Observation {
                    self.0.response(request, accepted.then_some(()))
                }
            },
        )
    } else {
        (
            quote! {
                /// A tracker; `turn_complete` is whether the agent advertised it.
                pub fn new(turn_complete: bool) -> Self {
                    TurnTracker(machines::TurnTracker::new(turn_complete))
                }

                /// A tracker for what this exchange negotiated.
                pub fn from_negotiated(negotiated: &crate::negotiation::Negotiated) -> Self {
                    Self::new(negotiated.turn_complete())
                }
            },
            quote! {
                /// The response to the prompt `request` arrived: its stop
                /// reason, or `None` for an error response.
                pub fn response(&mut self, request: &crate::types::#request_type, stop_reason: ::std::option::Option<#stop_type>) -> Observation {
                    self.0.response(request, stop_reason)
                }
            },
        )
    };
    let default = lifecycle.map(|_| {
        quote! {
            impl ::std::default::Default for TurnTracker {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
    });
    let end = if lifecycle.is_some() {
        "their `idle` state update"
    } else {
        "`turn_complete`"
    };
    let doc =
        format!(" Correlates the client's prompt turns with their updates, {end} and response (rules R2 and R4).");
    Some(quote! {
        /// What the turn tracker made of one message.
        pub type Observation = machines::Observation<crate::types::#request_type>;
        /// A rule the agent broke, as the turn tracker saw it.
        pub type Violation = machines::Violation<crate::types::#request_type>;

        #[doc = #doc]
        #[derive(::std::fmt::Debug, ::std::clone::Clone)]
        pub struct TurnTracker(machines::TurnTracker<crate::types::#request_type, #stop_type>);

        #default

        impl TurnTracker {
            #constructors

            /// The client sent `session/prompt` with id `request` for `session`.
            pub fn prompt(&mut self, session: &str, request: crate::types::#request_type) {
                self.0.prompt(session, request)
            }

            /// A `session/update` arrived.
            // The stop reason is `Copy` in some schemas and not in others.
            #[allow(clippy::clone_on_copy)]
            pub fn update(&mut self, notification: &crate::types::#notification) -> Observation {
                let scope = match &notification.#update {
                    #complete_arm
                    #state_arm
                    #reply_arm
                    #output_arm
                    #rest
                };
                self.0.update(notification.#session.as_str(), scope)
            }

            #response

            /// The prompt request of `session`'s turn that is not drained yet.
            pub fn pending(&self, session: &str) -> ::std::option::Option<&crate::types::#request_type> {
                self.0.pending(session)
            }
        }
    })
}

fn status(status: &Status) -> TokenStream {
    let type_name = type_ident(&status.type_name);
    let live = type_ident(&status.live);
    quote! {
        /// What to do with a session whose `session/status` is `status`
        /// (rule R3): prompt it when `live`, else load it (or start anew
        /// when the agent cannot load); unknown values count as
        /// `not_found`. Without the negotiated capability, `NotNegotiated`.
        pub fn next_step(negotiated: &crate::negotiation::Negotiated, status: &crate::types::#type_name) -> NextStep {
            machines::next_step(negotiated.session_status(), negotiated.agent_handles("session/load"), matches!(status, crate::types::#type_name::#live))
        }
    }
}
