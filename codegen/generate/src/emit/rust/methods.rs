//! The generated crate's `methods` module: a constant per method, and per
//! side a module with request, response and notification enums that decode
//! from `(method, params)` and encode back, `_`-prefixed extension methods
//! included. The traits and their dispatch functions come from
//! [`super::traits`].

use std::collections::BTreeMap;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::{ident, type_ident, RustContext};
use super::error::{error_type, standard_error, INTERNAL_ERROR, METHOD_NOT_FOUND};
use super::traits::side_traits;
use acp_ir::error::CodegenError;
use acp_ir::ir::*;
use acp_ir::messages::Message;
use acp_ir::naming;

pub(crate) fn emit(context: &RustContext) -> Result<TokenStream, CodegenError> {
    let ir = context.ir;
    if ir.methods.is_empty() {
        return Ok(quote!());
    }
    let constants = ir.methods.keys().map(|method| {
        let constant = format_ident!("{}", naming::rust_constant(method));
        let text = format!(" `{method}`");
        quote!(#[doc = #text] pub const #constant: &str = #method;)
    });
    let mut by_side: BTreeMap<Side, Vec<Message>> = BTreeMap::new();
    for message in ir.messages() {
        if message.kind != MessageKind::Response {
            by_side.entry(message.side).or_default().push(message);
        }
    }
    let error = error_type(context)?;
    let method_not_found = standard_error(context, METHOD_NOT_FOUND)?;
    let internal_error = standard_error(context, INTERNAL_ERROR)?;
    let traits = side_traits(ir, &by_side, &error);
    let modules = by_side
        .iter()
        .map(|(side, handled)| side_module(*side, handled, traits.dispatch.get(side), &error));
    let trait_items = &traits.items;
    Ok(quote! {
        #(#constants)*

        /// Method-not-found for `method`, naming it in `data.method`.
        fn method_not_found(method: &str) -> #error {
            #method_not_found.data(::serde_json::json!({ "method": method }))
        }

        /// Encodes a handler's result; a failure is an internal error.
        fn encode<T: ::serde::Serialize>(result: T) -> ::std::result::Result<::serde_json::Value, #error> {
            ::serde_json::to_value(result).map_err(|error| #internal_error.data(::serde_json::Value::from(error.to_string())))
        }

        #(#modules)*
        #(#trait_items)*
    })
}

/// The enum variant of a method (`session/prompt` -> `SessionPrompt`).
pub(crate) fn variant_of(method: &str) -> proc_macro2::Ident {
    type_ident(&naming::pascal_case(method))
}

/// Which of a side's three enums: what it decodes, and from what.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Request,
    Response,
    Notification,
}

fn method_enum(role: Role, items: &[&Message], error_type: &TokenStream) -> TokenStream {
    let (enum_name, payload_label) = match role {
        Role::Request => ("Request", "params"),
        Role::Response => ("Response", "result"),
        Role::Notification => ("Notification", "params"),
    };
    let enum_name = format_ident!("{}", enum_name);
    let payload_name = format_ident!("{}", payload_label);
    let entries: Vec<(proc_macro2::Ident, &str, proc_macro2::Ident)> = items
        .iter()
        .filter_map(|handled| {
            let payload = if role == Role::Response {
                handled.result()?
            } else {
                handled.payload
            };
            Some((variant_of(handled.method), handled.method, type_ident(payload)))
        })
        .collect();
    let variants = entries.iter().map(|(variant, method, payload_type)| {
        let text = format!(" `{method}`");
        quote!(#[doc = #text] #variant(crate::types::#payload_type),)
    });
    let method_arms = entries
        .iter()
        .map(|(variant, method, _)| quote!(Self::#variant(_) => #method,));
    let encode_arms = entries
        .iter()
        .map(|(variant, _, _)| quote!(Self::#variant(payload) => ::serde_json::to_value(payload),));
    let (error, decode_arm, unknown, decode_doc) = if role == Role::Response {
        (
            quote!(crate::codec::DecodeError),
            quote!(crate::codec::decode(#payload_name)),
            quote!(::std::result::Result::Err(crate::codec::DecodeError {
                path: ::std::string::String::new(),
                message: ::std::format!("unknown method `{method}`")
            })),
            " Decodes the result of a call to `method`; a `_`-prefixed method's result is kept as [`Self::Extension`].",
        )
    } else {
        (
            error_type.clone(),
            quote!(crate::codec::decode(#payload_name).map_err(::std::convert::From::from)),
            quote!(::std::result::Result::Err(super::method_not_found(method))),
            " Decodes the params of `method`: an unknown method is method-not-found, params that do not decode are invalid params naming the JSON pointer, and a `_`-prefixed method is kept as [`Self::Extension`].",
        )
    };
    let decode_arms = entries
        .iter()
        .map(|(variant, method, _)| quote!(#method => #decode_arm.map(Self::#variant),));
    let enum_doc = match role {
        Role::Request => " A request this side handles, by method.",
        Role::Response => " The result of a request this side handles, by method.",
        Role::Notification => " A notification this side handles, by method.",
    };
    let encode_doc = format!(" Encodes the {payload_label} back.");
    let member_doc = format!(" The {payload_label}.");
    quote! {
        #[doc = #enum_doc]
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
        #[non_exhaustive]
        pub enum #enum_name {
            #(#variants)*
            /// A `_`-prefixed extension method, as it came.
            Extension {
                /// The method name.
                method: ::std::string::String,
                #[doc = #member_doc]
                #payload_name: ::serde_json::Value,
            },
        }
        impl #enum_name {
            #[doc = #decode_doc]
            #[inline]
            pub fn decode(method: &str, #payload_name: ::serde_json::Value) -> ::std::result::Result<Self, #error> {
                match method {
                    #(#decode_arms)*
                    _ if method.starts_with('_') => ::std::result::Result::Ok(Self::Extension { method: method.to_owned(), #payload_name }),
                    _ => #unknown,
                }
            }
            /// The method name.
            pub fn method(&self) -> &str {
                match self {
                    #(#method_arms)*
                    Self::Extension { method, .. } => method,
                }
            }
            #[doc = #encode_doc]
            #[inline]
            pub fn #payload_name(&self) -> ::std::result::Result<::serde_json::Value, ::serde_json::Error> {
                match self {
                    #(#encode_arms)*
                    Self::Extension { #payload_name, .. } => ::std::result::Result::Ok(#payload_name.clone()),
                }
            }
        }
    }
}

fn side_module(
    side: Side,
    handled: &[Message],
    dispatch: Option<&TokenStream>,
    error_type: &TokenStream,
) -> TokenStream {
    let module = ident(side.as_str());
    let requests: Vec<&Message> = handled
        .iter()
        .filter(|entry| entry.kind == MessageKind::Request)
        .collect();
    let notifications: Vec<&Message> = handled
        .iter()
        .filter(|entry| entry.kind == MessageKind::Notification)
        .collect();
    let mut enums = Vec::new();
    if !requests.is_empty() {
        enums.push(method_enum(Role::Request, &requests, error_type));
        enums.push(method_enum(Role::Response, &requests, error_type));
    }
    if !notifications.is_empty() {
        enums.push(method_enum(Role::Notification, &notifications, error_type));
    }
    let text = format!(" Methods handled by the {} side.", side.as_str());
    quote! {
        #[doc = #text]
        pub mod #module {
            #(#enums)*
            #dispatch
        }
    }
}
