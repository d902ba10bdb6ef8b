//! The traits of the generated `methods` module, one per side that handles
//! methods (`Agent`, `Client`, `Proxy`), and the dispatch functions that
//! decode a call by its method name, run it on a trait object, and encode
//! the answer. The methods [`Method::optional`] lets a side leave out (it
//! must advertise them in its capabilities, they are negotiated later or
//! unstable, its connection acts on them by itself, or they are
//! protocol-level) have default bodies (method-not-found for requests,
//! nothing for notifications); so do `_`-prefixed extension methods.

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{ident, type_ident};
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;

/// The trait items, and each side's dispatch functions (placed in the side's module).
pub(crate) struct Traits {
    pub items: Vec<TokenStream>,
    pub dispatch: BTreeMap<Side, TokenStream>,
}

/// `by_side` holds the requests and notifications of each `x-side`.
pub(crate) fn side_traits(by_side: &BTreeMap<Side, Vec<Message>>, error: &TokenStream) -> Traits {
    let mut traits = Traits {
        items: Vec::new(),
        dispatch: BTreeMap::new(),
    };
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
        traits
            .items
            .push(side_trait(side, &trait_name, &handled, &functions, error));
        traits
            .dispatch
            .insert(side, dispatch_functions(side, &trait_name, &handled, &functions, error));
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

/// Whether a method has a default body ([`Method::optional`]).
fn optional(entry: &Message) -> bool {
    entry.definition.optional(entry.side).is_some()
}

fn side_trait(
    side: Side,
    trait_name: &str,
    handled: &[&Message],
    functions: &[Ident],
    error: &TokenStream,
) -> TokenStream {
    let trait_ident = format_ident!("{}", trait_name);
    let methods = handled.iter().zip(functions).map(|(entry, function)| {
        let params = type_ident(entry.payload);
        let name = &entry.method;
        let optional = optional(entry);
        let mut text = match &entry.definition.gate {
            Some(gate) => format!(" Handles `{name}`, which the {} side advertises at `{}` in its `{}`.", gate.advertised_by.as_str(), gate.path, gate.root),
            None if entry.definition.unstable => format!(" Handles `{name}`, which the schema marks unstable."),
            None => format!(" Handles `{name}`."),
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
        match (optional, entry.result()) {
            (false, _) => quote!(#[doc = #text] #signature;),
            (true, Some(_)) => quote! {
                #[doc = #text]
                /// Unless implemented, answers method-not-found.
                #signature {
                    let _ = params;
                    let error = method_not_found(#name);
                    async move { ::std::result::Result::Err(error) }
                }
            },
            (true, None) => quote! {
                #[doc = #text]
                /// Unless implemented, does nothing.
                #signature {
                    let _ = params;
                    async {}
                }
            },
        }
    });
    let module = ident(side.as_str());
    let text = format!(
        " The methods the {} side handles. Those it may leave out (advertised in its capabilities, negotiated later, unstable, acted on by the connection, protocol-level) and extensions have defaults; [`{module}::dispatch_request`] and [`{module}::dispatch_notification`] decode a call and run it here.",
        side.as_str()
    );
    quote! {
        #[doc = #text]
        pub trait #trait_ident {
            #(#methods)*
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
    error: &TokenStream,
) -> TokenStream {
    let trait_ident = format_ident!("{}", trait_name);
    let mut request_arms = Vec::new();
    let mut notification_arms = Vec::new();
    for (entry, function) in handled.iter().zip(functions) {
        let name = &entry.method;
        if entry.result().is_some() {
            request_arms.push(quote!(#name => super::encode(handler.#function(crate::codec::decode(params)?).await?),));
        } else {
            notification_arms.push(quote!(#name => handler.#function(crate::codec::decode(params)?).await,));
        }
    }
    let request_doc = format!(
        " Decodes a request to the {} side by its method name, runs it on `handler` and encodes the result. An unknown method is method-not-found, params that do not decode are invalid params naming the JSON pointer, and a `_`-prefixed method goes to [`super::{trait_name}::extension_request`].",
        side.as_str()
    );
    let notification_doc = format!(
        " Decodes a notification to the {} side by its method name and runs it on `handler`; errors as for [`dispatch_request`], and a `_`-prefixed method goes to [`super::{trait_name}::extension_notification`].",
        side.as_str()
    );
    quote! {
        #[doc = #request_doc]
        pub async fn dispatch_request<H: super::#trait_ident + ?::std::marker::Sized>(handler: &H, method: &str, params: ::serde_json::Value) -> ::std::result::Result<::serde_json::Value, #error> {
            match method {
                #(#request_arms)*
                _ if method.starts_with('_') => handler.extension_request(method, params).await,
                _ => ::std::result::Result::Err(super::method_not_found(method)),
            }
        }
        #[doc = #notification_doc]
        pub async fn dispatch_notification<H: super::#trait_ident + ?::std::marker::Sized>(handler: &H, method: &str, params: ::serde_json::Value) -> ::std::result::Result<(), #error> {
            match method {
                #(#notification_arms)*
                _ if method.starts_with('_') => handler.extension_notification(method, params).await,
                _ => return ::std::result::Result::Err(super::method_not_found(method)),
            }
            ::std::result::Result::Ok(())
        }
    }
}
