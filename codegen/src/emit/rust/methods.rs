//! The generated crate's `methods` module: a constant per method, per-side
//! request, response and notification enums that decode from `(method,
//! params)` and encode back, and one trait per side with one async method
//! per method that side handles.

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::{ident, type_ident, RustContext};
use crate::ir::*;
use crate::naming;

/// One method use handled by a side.
struct Handled<'a> {
    method: &'a str,
    params: &'a str,
    result: Option<&'a str>,
}

pub(crate) fn emit(context: &RustContext) -> TokenStream {
    let ir = context.ir;
    let constants = ir.methods.keys().map(|method| {
        let constant = format_ident!("{}", naming::rust_constant(method));
        let text = format!(" `{method}`");
        quote!(#[doc = #text] pub const #constant: &str = #method;)
    });
    let mut by_side: BTreeMap<Side, Vec<Handled>> = BTreeMap::new();
    for method in ir.methods.values() {
        if let Some(request) = &method.request {
            by_side.entry(request.side).or_default().push(Handled { method: &method.name, params: &request.params, result: Some(&request.result) });
        }
        if let Some(notification) = &method.notification {
            by_side.entry(notification.side).or_default().push(Handled { method: &method.name, params: &notification.params, result: None });
        }
    }
    let modules = by_side.iter().map(|(side, handled)| side_module(*side, handled));
    // Protocol-level and either-side methods belong to every side's trait.
    let shared: Vec<&Handled> = [Side::Protocol, Side::Both].iter().flat_map(|side| by_side.get(side).into_iter().flatten()).collect();
    let traits = [(Side::Agent, "Agent"), (Side::Client, "Client"), (Side::Proxy, "Proxy")].into_iter().filter_map(|(side, trait_name)| {
        let own: Vec<&Handled> = by_side.get(&side)?.iter().collect();
        Some(side_trait(trait_name, own.into_iter().chain(shared.iter().copied())))
    });
    quote! {
        #(#constants)*

        /// A JSON-RPC error a handler returns.
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        pub struct MethodError {
            pub code: i64,
            pub message: ::std::string::String,
            #[serde(default, skip_serializing_if = "::std::option::Option::is_none")]
            pub data: ::std::option::Option<::serde_json::Value>,
        }

        #(#modules)*
        #(#traits)*
    }
}

fn variant_of(method: &str) -> proc_macro2::Ident {
    type_ident(&naming::pascal_case(method))
}

fn method_enum(kind: &str, items: &[&Handled], payload: impl Fn(&Handled) -> Option<String>, payload_label: &str) -> TokenStream {
    let enum_name = format_ident!("{}", kind);
    let entries: Vec<(proc_macro2::Ident, &str, proc_macro2::Ident)> =
        items.iter().filter_map(|handled| Some((variant_of(handled.method), handled.method, type_ident(&payload(handled)?)))).collect();
    let variants = entries.iter().map(|(variant, method, payload_type)| {
        let text = format!(" `{method}`");
        quote!(#[doc = #text] #variant(crate::types::#payload_type),)
    });
    let decode_arms = entries.iter().map(|(variant, method, _)| {
        quote!(#method => crate::codec::decode(value).map(Self::#variant),)
    });
    let method_arms = entries.iter().map(|(variant, method, _)| quote!(Self::#variant(_) => #method,));
    let encode_arms = entries.iter().map(|(variant, _, _)| quote!(Self::#variant(payload) => ::serde_json::to_value(payload),));
    let decode_doc = format!(" Decodes the {payload_label} of `method`.");
    let encode = format_ident!("{}", payload_label);
    let encode_doc = format!(" Encodes the {payload_label} back.");
    let unknown = quote!(other => ::std::result::Result::Err(crate::codec::DecodeError {
        path: ::std::string::String::new(),
        message: ::std::format!("unknown method `{other}`"),
    }),);
    quote! {
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
        pub enum #enum_name {
            #(#variants)*
        }
        impl #enum_name {
            #[doc = #decode_doc]
            pub fn decode(method: &str, value: ::serde_json::Value) -> ::std::result::Result<Self, crate::codec::DecodeError> {
                match method {
                    #(#decode_arms)*
                    #unknown
                }
            }
            /// The method name.
            pub fn method(&self) -> &'static str {
                match self {
                    #(#method_arms)*
                }
            }
            #[doc = #encode_doc]
            pub fn #encode(&self) -> ::std::result::Result<::serde_json::Value, ::serde_json::Error> {
                match self {
                    #(#encode_arms)*
                }
            }
        }
    }
}

fn side_module(side: Side, handled: &[Handled]) -> TokenStream {
    let module = ident(side.as_str());
    let requests: Vec<&Handled> = handled.iter().filter(|entry| entry.result.is_some()).collect();
    let notifications: Vec<&Handled> = handled.iter().filter(|entry| entry.result.is_none()).collect();
    let mut enums = Vec::new();
    if !requests.is_empty() {
        enums.push(method_enum("Request", &requests, |entry| Some(entry.params.to_owned()), "params"));
        enums.push(method_enum("Response", &requests, |entry| entry.result.map(str::to_owned), "result"));
    }
    if !notifications.is_empty() {
        enums.push(method_enum("Notification", &notifications, |entry| Some(entry.params.to_owned()), "params"));
    }
    let text = format!(" Methods handled by the {} side.", side.as_str());
    quote! {
        #[doc = #text]
        pub mod #module {
            #(#enums)*
        }
    }
}

fn side_trait<'a>(trait_name: &str, handled: impl Iterator<Item = &'a Handled<'a>>) -> TokenStream {
    let trait_ident = format_ident!("{}", trait_name);
    let handled: Vec<&Handled> = handled.collect();
    let requests: Vec<&str> = handled.iter().filter(|entry| entry.result.is_some()).map(|entry| entry.method).collect();
    let methods = handled.iter().map(|entry| {
        // A name used for both a request and a notification (`proxy/successor`)
        // gives the notification handler a suffix.
        let base = naming::rust_field(entry.method);
        let function = if entry.result.is_none() && requests.contains(&entry.method) {
            ident(&format!("{}_notification", base.trim_start_matches("r#")))
        } else {
            ident(&base)
        };
        let params = type_ident(entry.params);
        let text = format!(" Handles `{}`.", entry.method);
        match entry.result {
            Some(result) => {
                let result = type_ident(result);
                quote! {
                    #[doc = #text]
                    fn #function(&self, params: crate::types::#params)
                        -> impl ::std::future::Future<Output = ::std::result::Result<crate::types::#result, MethodError>> + ::std::marker::Send;
                }
            }
            None => quote! {
                #[doc = #text]
                fn #function(&self, params: crate::types::#params) -> impl ::std::future::Future<Output = ()> + ::std::marker::Send;
            },
        }
    });
    let text = format!(" The methods the {} side handles: the stubs an SDK implements.", trait_name.to_lowercase());
    quote! {
        #[doc = #text]
        pub trait #trait_ident {
            #(#methods)*
        }
    }
}
