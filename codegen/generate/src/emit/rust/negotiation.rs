//! The generated crate's `negotiation` module, `templates/rust/negotiation.rs`
//! copied as text, comments kept (`Message`, `negotiate`, `Negotiated`,
//! which serializes to the shared view, `NegotiationError`,
//! `CapabilityError`, `SessionOffers` and the evaluator reading the
//! tables), and the schema's
//! part in a module of its own, `negotiation_tables`: the
//! [`acp_ir::negotiation`] model's tables as constants, the protocol version
//! and the initialize message types.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

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
    let session_gates = model.session_gates.iter().map(|rule| {
        let method = &rule.method;
        let member = rule.gate.member_name();
        let session = &rule.gate.session;
        let openers = rule.gate.openers.iter().map(|opener| {
            let opener_method = &opener.method;
            let in_result = opener.session_in_result;
            quote! { (#opener_method, #in_result) }
        });
        quote! { SessionGate { method: #method, member: #member, session: #session, openers: &[#(#openers),*] } }
    });
    let version = proc_macro2::Literal::u16_unsuffixed(model.protocol_version);
    quote! {
        /// The protocol version these bindings implement.
        pub const PROTOCOL_VERSION: u16 = #version;
        pub(crate) const RULES: &[Rule] = &[#(#rules),*];
        pub(crate) const AGENT_METHODS: &[(&str, Needs)] = #agent_methods;
        pub(crate) const CLIENT_METHODS: &[(&str, Needs)] = #client_methods;
        pub(crate) const SECTIONS: &[(&str, &[(&str, Needs)])] = &[#(#sections),*];
        pub(crate) const FEATURES: &[(&str, Needs)] = #features;
        pub(crate) const CHECKS: &[Check] = &[#(#checks),*];
        pub(crate) const SESSION_GATES: &[SessionGate] = &[#(#session_gates),*];
    }
}

/// The fixed part's source, a real file beside the templates that this
/// crate compiles in its tests, written into every generated crate as it is.
pub(crate) const SOURCE: &str = include_str!("../../../../../templates/rust/negotiation.rs");

/// `negotiation_tables.rs`: the protocol version, the initialize message
/// types and the tables of `model`, which the fixed `negotiation` module reads.
pub(crate) fn tables_module(model: &Negotiation) -> TokenStream {
    let request = Ident::new(&naming::rust_type(&model.request_type), Span::call_site());
    let response = Ident::new(&naming::rust_type(&model.response_type), Span::call_site());
    let request_name = &model.request_type;
    let response_name = &model.response_type;
    let tables = tables(model);
    quote! {
        use crate::negotiation::{Check, Needs, Rule, SessionGate};

        /// The params of the initialize request.
        pub type Request = crate::types::#request;
        /// The result of the initialize request.
        pub type Response = crate::types::#response;
        /// Their schema names, for decode errors.
        pub(crate) const REQUEST_NAME: &str = #request_name;
        pub(crate) const RESPONSE_NAME: &str = #response_name;

        #tables
    }
}
