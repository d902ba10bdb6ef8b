//! The traits of the generated `methods` module, one per side that handles
//! methods (`Agent`, `Client`, `Proxy`), and the dispatch functions that
//! decode a call by its method name, run it on a trait object, and encode
//! the answer. The methods [`Method::optional`] lets a side leave out (it
//! must advertise them in its capabilities, they are negotiated later or
//! unstable, its connection acts on them by itself, or they are
//! protocol-level) have default bodies (method-not-found for requests,
//! nothing for notifications); so do `_`-prefixed extension methods. The
//! requests a capability or an opening answer offers are held by the gate's
//! own trait instead ([`super::gates`]), which the side trait gives.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{ident, type_ident};
use super::gates::{self, GateHandlers};
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;

/// The trait items, and each side's dispatch functions (placed in the side's module).
pub(crate) struct Traits {
    pub items: Vec<TokenStream>,
    pub dispatch: BTreeMap<Side, TokenStream>,
}

/// `by_side` holds the requests and notifications of each `x-side`.
pub(crate) fn side_traits(ir: &Ir, by_side: &BTreeMap<Side, Vec<Message>>, error: &TokenStream) -> Traits {
    let mut traits = Traits {
        items: Vec::new(),
        dispatch: BTreeMap::new(),
    };
    let mut unhandled = Vec::new();
    for side in Side::ENDPOINTS {
        let trait_name = naming::endpoint_type(side);
        if !by_side.contains_key(&side) {
            continue;
        }
        // Its own methods, then the protocol-level and either-side ones.
        let handled: Vec<&Message> = by_side
            .values()
            .flatten()
            .filter(|message| message.handled_by(side))
            .collect();
        let functions = function_names(&handled);
        let gates = gates::of(ir, side);
        for gate in &gates {
            let held: Vec<(&&Message, &Ident)> = handled
                .iter()
                .zip(&functions)
                .filter(|(entry, _)| {
                    gates::holding(&gates, entry).is_some_and(|holder| holder.trait_ident == gate.trait_ident)
                })
                .collect();
            let [required, never] = [Body::Required, Body::Never].map(|body| {
                held.iter()
                    .map(|(entry, function)| handler_function(entry, function, error, body))
                    .collect::<Vec<_>>()
            });
            traits.items.push(gates::gate_trait(side, gate, &required));
            unhandled.push((gate.trait_ident.clone(), never));
        }
        traits
            .items
            .push(side_trait(side, &trait_name, &handled, &functions, &gates, error));
        traits.dispatch.insert(
            side,
            dispatch_functions(side, &trait_name, &handled, &functions, &gates, error),
        );
    }
    if !unhandled.is_empty() {
        traits.items.push(gates::unhandled(&unhandled));
    }
    traits
}

/// The trait function of each method use ([`Message::handler`]: a name used
/// for both a request and a notification, `proxy/successor`, gives the
/// notification a suffix).
fn function_names(handled: &[&Message]) -> Vec<Ident> {
    handled
        .iter()
        .map(|entry| ident(&naming::rust_handler(&entry.handler)))
        .collect()
}

/// What a handler function's body is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// None: the implementation writes it.
    Required,
    /// The default the schema allows a side to leave out
    /// ([`Method::optional`]): method-not-found for a request, nothing for
    /// a notification.
    Default,
    /// One that never runs, on a type without values ([`gates::UNHANDLED`]).
    Never,
}

/// The trait function handling `entry`, with its doc and `body`.
fn handler_function(entry: &Message, function: &Ident, error: &TokenStream, body: Body) -> TokenStream {
    let params = type_ident(entry.payload);
    let name = &entry.method;
    let mut text = match &entry.definition.gate {
        Some(gate) => format!(
            " Handles `{name}`, which the {} side advertises at `{}` in its `{}`.",
            gate.advertised_by.as_str(),
            gate.path,
            gate.root
        ),
        None => match &entry.definition.session_gate {
            Some(gate) => format!(" Handles `{name}`, {}.", gate.describe()),
            None if entry.definition.unstable => format!(" Handles `{name}`, which the schema marks unstable."),
            None => format!(" Handles `{name}`."),
        },
    };
    if entry.definition.optional(entry.side) == Some(Optional::ActedOn) {
        text.push_str(" The connection acts on it by itself: a handler only adds to that.");
    }
    let output = match entry.result() {
        Some(result) => {
            let result = type_ident(result);
            quote!(::std::result::Result<crate::types::#result, #error>)
        }
        None => quote!(()),
    };
    let signature = quote!(fn #function(&self, params: crate::types::#params) -> impl ::std::future::Future<Output = #output> + ::std::marker::Send);
    match (body, entry.result()) {
        (Body::Required, _) => quote!(#[doc = #text] #signature;),
        (Body::Never, _) => quote! {
            #signature {
                let _ = params;
                async move { match *self {} }
            }
        },
        (Body::Default, Some(_)) => quote! {
            #[doc = #text]
            /// Unless implemented, answers method-not-found.
            #signature {
                let _ = params;
                let error = method_not_found(#name);
                async move { ::std::result::Result::Err(error) }
            }
        },
        (Body::Default, None) => quote! {
            #[doc = #text]
            /// Unless implemented, does nothing.
            #signature {
                let _ = params;
                async {}
            }
        },
    }
}

fn side_trait(
    side: Side,
    trait_name: &str,
    handled: &[&Message],
    functions: &[Ident],
    gates: &[GateHandlers],
    error: &TokenStream,
) -> TokenStream {
    let trait_ident = format_ident!("{}", trait_name);
    let methods = handled
        .iter()
        .zip(functions)
        .filter(|(entry, _)| gates::holding(gates, entry).is_none())
        .map(|(entry, function)| {
            // Whether the schema lets the side leave it out ([`Method::optional`]).
            let body = if entry.definition.optional(entry.side).is_some() {
                Body::Default
            } else {
                Body::Required
            };
            handler_function(entry, function, error, body)
        });
    let accessors = gates.iter().map(gates::accessor);
    let module = ident(side.as_str());
    let text = format!(
        " The methods the {} side handles. Those it may leave out (advertised in its capabilities, negotiated later, unstable, acted on by the connection, protocol-level) and extensions have defaults; the requests a capability or an opening answer offers are given by the gate's function (`None`, unless implemented), and the side offers them from that. [`{module}::dispatch_request`] and [`{module}::dispatch_notification`] decode a call and run it here.",
        side.as_str()
    );
    quote! {
        #[doc = #text]
        pub trait #trait_ident {
            #(#methods)*
            #(#accessors)*
            /// Handles a `_`-prefixed extension request. Unless implemented,
            /// answers method-not-found.
            fn extension_request(&self, method: &str, params: ::serde_json::Value) -> impl ::std::future::Future<Output = ::std::result::Result<::serde_json::Value, #error>> + ::std::marker::Send {
                let _ = params;
                let error = method_not_found(method);
                async move { ::std::result::Result::Err(error) }
            }
            /// Handles a `_`-prefixed extension notification. Unless
            /// implemented, does nothing.
            fn extension_notification(&self, method: &str, params: ::serde_json::Value) -> impl ::std::future::Future<Output = ()> + ::std::marker::Send {
                let _ = (method, params);
                async {}
            }
        }
    }
}

fn dispatch_functions(
    side: Side,
    trait_name: &str,
    handled: &[&Message],
    functions: &[Ident],
    gates: &[GateHandlers],
    error: &TokenStream,
) -> TokenStream {
    let trait_ident = format_ident!("{}", trait_name);
    let mut request_arms = Vec::new();
    let mut notification_arms = Vec::new();
    let mut gated_arms = Vec::new();
    let mut ungated = Vec::new();
    for (entry, function) in handled.iter().zip(functions) {
        let name = &entry.method;
        if let Some(gate) = gates::holding(gates, entry) {
            let (gate_trait, accessor) = (&gate.trait_ident, &gate.accessor);
            // The future is made in a statement of its own: what the
            // accessor gave is not held across the await.
            request_arms.push(quote! {
                #name => {
                    let answer = match handler.#accessor() {
                        ::std::option::Option::Some(gate) => super::#gate_trait::#function(gate, crate::codec::Params::decode(params)?),
                        ::std::option::Option::None => return ::std::result::Result::Err(super::method_not_found(method)),
                    };
                    super::encode(answer.await?)
                }
            });
            gated_arms.push(quote!(#name => handler.#accessor().is_some(),));
        } else if entry.result().is_some() {
            request_arms
                .push(quote!(#name => super::encode(handler.#function(crate::codec::Params::decode(params)?).await?),));
            ungated.push(name);
        } else {
            notification_arms.push(quote!(#name => handler.#function(crate::codec::Params::decode(params)?).await,));
        }
    }
    let request_doc = format!(
        " Decodes a request to the {} side by its method name, runs it on `handler` and encodes the result; `params` is a `serde_json::Value` or the text a connection read ([`crate::codec::Params`]). An unknown method is method-not-found, params that do not decode are invalid params naming the JSON pointer, and a `_`-prefixed method goes to [`super::{trait_name}::extension_request`].",
        side.as_str()
    );
    let notification_doc = format!(
        " Decodes a notification to the {} side by its method name and runs it on `handler`; errors as for [`dispatch_request`], and a `_`-prefixed method goes to [`super::{trait_name}::extension_notification`].",
        side.as_str()
    );
    let handles_doc = format!(
        " Whether `handler` answers the request `method` of the {} side itself: a request a capability or an opening answer offers when the gate's function gives its handlers (what the end offers from), any other request of the side (a default body cannot be told from an implementation), no unknown or `_`-prefixed one.",
        side.as_str()
    );
    // What the clippy of a generated crate accepts: no `match` that only
    // says whether the method is among some.
    let handles = match (gated_arms.is_empty(), ungated.as_slice()) {
        (false, []) => quote! {
            match method {
                #(#gated_arms)*
                _ => false,
            }
        },
        (false, names) => quote! {
            match method {
                #(#gated_arms)*
                _ => ::std::matches!(method, #(#names)|*),
            }
        },
        (true, []) => quote!(let _ = (handler, method); false),
        (true, names) => quote!(let _ = handler; ::std::matches!(method, #(#names)|*)),
    };
    quote! {
        #[doc = #handles_doc]
        pub fn handles<H: super::#trait_ident + ?::std::marker::Sized>(handler: &H, method: &str) -> bool {
            #handles
        }
        #[doc = #request_doc]
        pub async fn dispatch_request<H: super::#trait_ident + ?::std::marker::Sized, P: crate::codec::Params>(handler: &H, method: &str, params: P) -> ::std::result::Result<::serde_json::Value, #error> {
            match method {
                #(#request_arms)*
                _ if method.starts_with('_') => handler.extension_request(method, crate::codec::Params::into_value(params)?).await,
                _ => ::std::result::Result::Err(super::method_not_found(method)),
            }
        }
        #[doc = #notification_doc]
        pub async fn dispatch_notification<H: super::#trait_ident + ?::std::marker::Sized, P: crate::codec::Params>(handler: &H, method: &str, params: P) -> ::std::result::Result<(), #error> {
            match method {
                #(#notification_arms)*
                _ if method.starts_with('_') => handler.extension_notification(method, crate::codec::Params::into_value(params)?).await,
                _ => return ::std::result::Result::Err(super::method_not_found(method)),
            }
            ::std::result::Result::Ok(())
        }
    }
}
