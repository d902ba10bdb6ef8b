//! The generated crate's `negotiation` module: the [`acp_ir::negotiation`]
//! model's tables as constants, the message type and `negotiate`, put at the
//! marker of the fixed part (`templates/rust/negotiation.rs`: `Negotiated`,
//! which serializes to the shared view, `NegotiationError`,
//! `CapabilityError` and the evaluator reading the tables).

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use acp_ir::error::CodegenError;
use acp_ir::ir::Side;
use acp_ir::naming;
use acp_ir::negotiation::{Entry, Negotiation, Requirement};

fn tokens(pointer: &str) -> Vec<String> {
    pointer
        .split('/')
        .skip(1)
        .map(acp_schema_source::pointer::unescape_token)
        .collect()
}

fn entries(entries: &[Entry]) -> TokenStream {
    let items = entries.iter().map(|entry| {
        let name = &entry.name;
        let needs = match entry.needs {
            Requirement::Always => quote! { Needs::Always },
            Requirement::Never => quote! { Needs::Never },
            Requirement::Rule(rule) => {
                let rule = proc_macro2::Literal::usize_unsuffixed(rule);
                quote! { Needs::Rule(#rule) }
            }
        };
        quote! { (#name, #needs) }
    });
    quote! { &[#(#items),*] }
}

fn option(value: Option<&str>) -> TokenStream {
    match value {
        Some(value) => quote! { ::std::option::Option::Some(#value) },
        None => quote! { ::std::option::Option::None },
    }
}

/// The tables of `model`.
fn tables(model: &Negotiation) -> TokenStream {
    let rules = model.rules.iter().map(|rule| {
        let agent = rule.side == Side::Agent;
        let pointer = tokens(&rule.pointer);
        let offered = rule.offered;
        quote! { Rule { agent: #agent, pointer: &[#(#pointer),*], offered: #offered } }
    });
    let agent_methods = entries(&model.agent_methods);
    let client_methods = entries(&model.client_methods);
    let sections = model.sections.iter().map(|section| {
        let name = section.name;
        let entries = entries(&section.entries);
        quote! { (#name, #entries) }
    });
    let features = entries(&model.features);
    let checks = model.checks.iter().map(|check| {
        let method = &check.method;
        let pointer = tokens(&check.pointer);
        let tag_property = option(check.tag_property.as_deref());
        let tag_value = option(check.tag_value.as_deref());
        let rule = proc_macro2::Literal::usize_unsuffixed(check.rule);
        quote! { Check { method: #method, pointer: &[#(#pointer),*], tag_property: #tag_property, tag_value: #tag_value, rule: #rule } }
    });
    let version = proc_macro2::Literal::u16_unsuffixed(model.protocol_version);
    quote! {
        /// The protocol version these bindings implement.
        pub const PROTOCOL_VERSION: u16 = #version;
        const RULES: &[Rule] = &[#(#rules),*];
        const AGENT_METHODS: &[(&str, Needs)] = #agent_methods;
        const CLIENT_METHODS: &[(&str, Needs)] = #client_methods;
        const SECTIONS: &[(&str, &[(&str, Needs)])] = &[#(#sections),*];
        const FEATURES: &[(&str, Needs)] = #features;
        const CHECKS: &[Check] = &[#(#checks),*];
    }
}

/// The fixed part's source, a real file beside the templates that this
/// crate compiles in its tests.
const SOURCE: &str = include_str!("../../../../../templates/rust/negotiation.rs");
/// The line where the schema's part goes.
const MARKER: &str = "// @generated: the tables, `Message` and `negotiate` go here.";

pub(crate) fn emit(model: &Negotiation) -> Result<TokenStream, CodegenError> {
    let (head, runtime) = SOURCE
        .split_once(MARKER)
        .ok_or_else(|| CodegenError::internal("templates/rust/negotiation.rs", "the marker line is missing"))?;
    let parse = |text: &str| {
        text.parse::<TokenStream>().map_err(|error| {
            CodegenError::internal("templates/rust/negotiation.rs", format!("does not parse: {error}"))
        })
    };
    let (head, runtime) = (parse(head)?, parse(runtime)?);
    let request = Ident::new(&naming::rust_type(&model.request_type), Span::call_site());
    let response = Ident::new(&naming::rust_type(&model.response_type), Span::call_site());
    let request_name = &model.request_type;
    let response_name = &model.response_type;
    let tables = tables(model);
    Ok(quote! {
        #head

        #tables

        /// An initialize message, decoded or as raw JSON (decoded by `negotiate`).
        pub enum Message<'a, T> {
            Decoded(&'a T),
            Json(&'a ::serde_json::Value),
        }

        impl<'a> ::std::convert::From<&'a crate::types::#request> for Message<'a, crate::types::#request> {
            fn from(message: &'a crate::types::#request) -> Self {
                Message::Decoded(message)
            }
        }

        impl<'a> ::std::convert::From<&'a crate::types::#response> for Message<'a, crate::types::#response> {
            fn from(message: &'a crate::types::#response) -> Self {
                Message::Decoded(message)
            }
        }

        impl<'a, T> ::std::convert::From<&'a ::serde_json::Value> for Message<'a, T> {
            fn from(message: &'a ::serde_json::Value) -> Self {
                Message::Json(message)
            }
        }

        /// Negotiates from the client's `initialize` params and the agent's
        /// result, each decoded or raw JSON (decoded here).
        ///
        /// # Errors
        ///
        /// [`NegotiationError::Decode`] when a message does not decode;
        /// [`NegotiationError::VersionAboveRequested`] or
        /// [`NegotiationError::UnsupportedVersion`] when the agent's version is
        /// above the client's or not the one these bindings implement.
        pub fn negotiate<'a>(
            request: impl ::std::convert::Into<Message<'a, crate::types::#request>>,
            response: impl ::std::convert::Into<Message<'a, crate::types::#response>>,
        ) -> ::std::result::Result<Negotiated, NegotiationError> {
            let request = wire(request.into(), #request_name)?;
            let response = wire(response.into(), #response_name)?;
            let requested = version(&request);
            let answered = version(&response);
            if answered > requested {
                return ::std::result::Result::Err(NegotiationError::VersionAboveRequested { requested, answered });
            }
            if answered != i64::from(PROTOCOL_VERSION) {
                return ::std::result::Result::Err(NegotiationError::UnsupportedVersion { requested, answered });
            }
            ::std::result::Result::Ok(Negotiated { protocol_version: answered, request, response })
        }

        #runtime
    })
}
