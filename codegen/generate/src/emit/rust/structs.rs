//! Structs of the generated `types` module: the struct with serde derives,
//! a decode function per member whose decoding the derive cannot express (a
//! rule, `null` kept beside absence on a required member, a constraint),
//! `new` with the required members, a chained setter per optional member,
//! `<member>_or_default` accessors, and `Default` when nothing is required.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::context::{ident, integer_type, type_ident, Parameter, Presence, RustContext};
use super::shared::{constraint_check, derives, doc};
use super::visitor::{deserialize_impl, Input, Kept, Rule, Slot};
use acp_ir::ir::*;
use acp_ir::naming;

/// What one member adds to its struct.
struct Member {
    definition: TokenStream,
    /// How the hand-shaped `Deserialize` reads it.
    slot: Slot,
    /// The decode function (and for a derived struct its adapter).
    decoder: Option<TokenStream>,
    accessor: Option<TokenStream>,
    /// The constructor parameter (required members) or the value (optional ones).
    initializer: TokenStream,
    parameter: Option<TokenStream>,
    setter: Option<TokenStream>,
}

/// The decode function of `field`, when the derive cannot decode it: a
/// `fn(Value) -> Result<T, String>` applying the member's rules and checks
/// (`fn(Buffer)` for a lenient member), and which input it takes.
fn decoder(context: &RustContext, owner: &str, field: &Field, function: &Ident) -> Option<Decoder> {
    let check = constraint_check(&field.ty);
    let presence = Presence::of(field);
    // Any JSON decodes as a `serde_json::Value`: `default_on_error` never applies to one.
    let any_json = matches!(field.ty, TypeExpr::Any | TypeExpr::Untyped { .. });
    let rules =
        field.decode.default_on_null || field.decode.skip_invalid_items || (field.decode.default_on_error && !any_json);
    // Any JSON takes `null` too, which `Option`'s own reading would make absent.
    if any_json && !rules && presence == Presence::Optional {
        return Some(Decoder::Shared(quote!(crate::codec::present), Input::Value));
    }
    let custom =
        rules || check.is_some() || field.ty == TypeExpr::Null || (field.nullable && presence == Presence::Required);
    if !custom {
        return None;
    }
    let value_type = context.value_type(owner, field);
    let field_type = context.field_type(owner, field);
    let (on_error, on_null) = (field.decode.default_on_error, field.decode.default_on_null);
    // The commonest shape (every `_meta`): an optional member whose invalid
    // value leaves it absent, decoded by one generic function of the codec.
    if on_error && !on_null && check.is_none() && !field.decode.skip_invalid_items {
        match presence {
            Presence::Optional => return Some(Decoder::Shared(quote!(crate::codec::lenient_optional), Input::Buffer)),
            Presence::OptionalNullable => {
                return Some(Decoder::Shared(
                    quote!(crate::codec::lenient_optional_nullable),
                    Input::Buffer,
                ))
            }
            Presence::Required => {}
        }
    }
    let check_body = match (&check, field.nullable) {
        (Some(check), false) => quote!(|value| #check),
        (Some(check), true) => {
            quote!(|value| match value { ::std::option::Option::Some(value) => #check, ::std::option::Option::None => ::std::result::Result::Ok(()) })
        }
        (None, _) => quote!(|_| ::std::result::Result::Ok(())),
    };
    let items_check = match &check {
        Some(check) => quote!(|value| #check),
        None => quote!(|_| ::std::result::Result::Ok(())),
    };
    // A member whose invalid value falls back (or is dropped item by item)
    // needs no error text: it is read into a `codec::Buffer`, not a `Value`.
    let (decode, input) = match (&field.ty, field.decode.skip_invalid_items, field.nullable) {
        (TypeExpr::Array(array), true, false) => {
            let item = context.rust_type(owner, &array.items);
            (
                quote!(crate::codec::lenient_items::<#item>(value, rules, #items_check)),
                Input::Buffer,
            )
        }
        (TypeExpr::Array(array), true, true) => {
            let item = context.rust_type(owner, &array.items);
            (
                quote!(crate::codec::lenient_nullable_items::<#item>(value, rules, #items_check)),
                Input::Buffer,
            )
        }
        _ if on_error => (
            quote!(crate::codec::lenient_field::<#value_type>(value, rules, #check_body)),
            Input::Buffer,
        ),
        _ => (
            quote!(crate::codec::field::<#value_type>(value, rules, #check_body)),
            Input::Value,
        ),
    };
    let result = match presence {
        Presence::Required => {
            let literal = match &field.fallback {
                Fallback::Value(value) => {
                    let text = value.to_string();
                    quote!(::std::option::Option::Some(#text))
                }
                Fallback::Absent | Fallback::Reject => quote!(::std::option::Option::None),
            };
            quote!(match decoded {
                ::std::option::Option::Some(decoded) => ::std::result::Result::Ok(decoded),
                ::std::option::Option::None => crate::codec::fallback::<#value_type>(#literal),
            })
        }
        Presence::Optional => quote!(::std::result::Result::Ok(decoded)),
        Presence::OptionalNullable => quote!(::std::result::Result::Ok(crate::codec::nullable(decoded))),
    };
    let parameter = match input {
        Input::Value => quote!(::serde_json::Value),
        Input::Buffer => quote!(crate::codec::Buffer<'_>),
    };
    let code = quote! {
        #[inline]
        fn #function(value: #parameter) -> ::std::result::Result<#field_type, ::std::string::String> {
            let rules = crate::codec::Rules { on_error: #on_error, on_null: #on_null };
            let decoded = #decode?;
            #result
        }
    };
    Some(Decoder::Own(code, input))
}

/// How a member with rules or checks is decoded.
enum Decoder {
    /// By a function of its own (its code), taking this input.
    Own(TokenStream, Input),
    /// By a generic function of the codec (its path), taking this input.
    Shared(TokenStream, Input),
}

/// The `deserialize_with` function of a member of a derived struct: its
/// decode function as a `Deserialize` seed.
fn derive_adapter(context: &RustContext, owner: &str, field: &Field, rule: &Rule, adapter: &Ident) -> TokenStream {
    let field_type = context.field_type(owner, field);
    let seed = rule.seed();
    quote! {
        fn #adapter<'de, D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<#field_type, D::Error> {
            ::serde::de::DeserializeSeed::deserialize(#seed, deserializer)
        }
    }
}

/// One member of a struct: the field with its serde attributes, and what
/// it adds to the decoders, accessors, `new` and setters. `derived`: the
/// struct derives `Deserialize` (else [`super::visitor`] shapes it).
fn member(context: &RustContext, owner: &str, field: &Field, derived: bool) -> Member {
    let rust_name = naming::rust_field(&field.name);
    let name = ident(&rust_name);
    let field_type = context.field_type(owner, field);
    let presence = Presence::of(field);
    let mut attributes = Vec::new();
    if rust_name.trim_start_matches("r#") != field.wire_name {
        let wire = &field.wire_name;
        attributes.push(quote!(rename = #wire));
    }
    match presence {
        Presence::Required => {}
        Presence::Optional => attributes.push(quote!(default, skip_serializing_if = "::std::option::Option::is_none")),
        Presence::OptionalNullable => attributes.push(quote!(
            default,
            skip_serializing_if = "crate::nullable::Nullable::is_absent"
        )),
    }
    let function = format_ident!(
        "decode_{}_{}",
        naming::snake_case(owner),
        naming::snake_case(&field.name)
    );
    let (mut decoder, rule) = match decoder(context, owner, field, &function) {
        Some(Decoder::Own(code, input)) => (
            Some(code),
            Some(Rule {
                function: quote!(#function),
                input,
            }),
        ),
        Some(Decoder::Shared(path, input)) => (None, Some(Rule { function: path, input })),
        None => (None, None),
    };
    if let (Some(rule), true) = (&rule, derived) {
        let adapter = format_ident!("{function}_with");
        let adapter_name = adapter.to_string();
        attributes.push(quote!(deserialize_with = #adapter_name));
        let adapter = derive_adapter(context, owner, field, rule, &adapter);
        decoder = Some(quote!(#decoder #adapter));
    }
    // An optional member the schema does not let be `null`: `Option`'s own
    // reading would take `null` for absence and drop it.
    let not_null = (rule.is_none() && presence == Presence::Optional).then(|| context.value_type(owner, field));
    if not_null.is_some() && derived {
        attributes.push(quote!(deserialize_with = "crate::codec::not_null"));
    }
    let serde_attribute = if attributes.is_empty() {
        quote!()
    } else {
        quote!(#[serde(#(#attributes),*)])
    };
    let documentation = doc(field.description.as_deref());
    let (initializer, parameter, setter) = construction(context, owner, field, &name);
    let slot = Slot {
        name: name.clone(),
        wire: field.wire_name.clone(),
        required: presence == Presence::Required,
        rule,
        not_null,
    };
    Member {
        definition: quote!(#documentation #serde_attribute pub #name: #field_type,),
        slot,
        decoder,
        accessor: default_accessor(field, &name, &rust_name),
        initializer,
        parameter,
        setter,
    }
}

/// How `new` and the setters treat one member: its initializer in `new`,
/// and either the parameter of `new` (a required member) or a setter.
fn construction(
    context: &RustContext,
    owner: &str,
    field: &Field,
    name: &Ident,
) -> (TokenStream, Option<TokenStream>, Option<TokenStream>) {
    let presence = Presence::of(field);
    let parameter = if presence == Presence::Required && field.nullable {
        Parameter {
            ty: context.value_type(owner, field),
            converts: false,
            boxed: false,
        }
    } else {
        context.parameter(owner, &field.ty)
    };
    let parameter_type = &parameter.ty;
    let value = format_ident!("value");
    let (empty, stored) = match presence {
        Presence::Required => {
            let initializer = if parameter.converts || parameter.boxed {
                let stored = parameter.store(name);
                quote!(#name: #stored,)
            } else {
                quote!(#name,)
            };
            return (initializer, Some(quote!(#name: #parameter_type)), None);
        }
        Presence::Optional => {
            let stored = parameter.store(&value);
            (
                quote!(::std::option::Option::None),
                quote!(::std::option::Option::Some(#stored)),
            )
        }
        Presence::OptionalNullable => {
            let stored = parameter.store(&value);
            (
                quote!(crate::nullable::Nullable::Absent),
                quote!(crate::nullable::Nullable::Value(#stored)),
            )
        }
    };
    // A member called `new` cannot have a setter of that name.
    let setter_name = if *name == "new" {
        format_ident!("with_new")
    } else {
        name.clone()
    };
    let text = format!(" Sets `{}`.", field.wire_name);
    let setter = quote! {
        #[doc = #text]
        #[must_use]
        pub fn #setter_name(mut self, #value: #parameter_type) -> Self {
            self.#name = #stored;
            self
        }
    };
    (quote!(#name: #empty,), None, Some(setter))
}

/// `<field>_or_default()` for optional scalar fields with a schema default:
/// the default is exposed, never written.
fn default_accessor(field: &Field, name: &Ident, rust_name: &str) -> Option<TokenStream> {
    if field.required || field.nullable {
        return None;
    }
    let default = field.default.as_ref()?;
    let (value_type, value) = match (&field.ty, default) {
        (TypeExpr::Boolean, serde_json::Value::Bool(flag)) => (quote!(bool), quote!(#flag)),
        (TypeExpr::String(_), serde_json::Value::String(text)) => (quote!(&str), quote!(#text)),
        (TypeExpr::Integer(integer), serde_json::Value::Number(number)) => {
            let literal: TokenStream = number.to_string().parse().ok()?;
            (integer_type(integer.format), literal)
        }
        _ => return None,
    };
    let accessor = format_ident!("{}_or_default", rust_name.trim_start_matches("r#"));
    let text = format!(
        " The value of `{}`, or its schema default when absent.",
        field.wire_name
    );
    let read = if matches!(field.ty, TypeExpr::String(_)) {
        quote!(self.#name.as_deref())
    } else {
        quote!(self.#name)
    };
    Some(quote! {
        #[doc = #text]
        pub fn #accessor(&self) -> #value_type {
            #read.unwrap_or(#value)
        }
    })
}

pub(crate) fn struct_item(
    context: &RustContext,
    name: &str,
    structure: &StructType,
    documentation: &TokenStream,
) -> TokenStream {
    let type_name = type_ident(name);
    // A struct that keeps unknown members and flattens nothing reads them
    // with a visitor of its own; the others derive `Deserialize`.
    let derived = !(matches!(structure.additional, AdditionalProperties::Kept(_)) && structure.flatten.is_empty());
    let members: Vec<Member> = structure
        .fields
        .iter()
        .map(|field| member(context, name, field, derived))
        .collect();
    let definitions = members.iter().map(|member| &member.definition);
    let decoders = members.iter().filter_map(|member| member.decoder.as_ref());
    let accessors = members.iter().filter_map(|member| member.accessor.as_ref());
    let setters: Vec<&TokenStream> = members.iter().filter_map(|member| member.setter.as_ref()).collect();
    let mut parameters: Vec<TokenStream> = members.iter().filter_map(|member| member.parameter.clone()).collect();
    let mut initializers: Vec<TokenStream> = members.iter().map(|member| member.initializer.clone()).collect();
    let mut flattened = Vec::new();
    let taken: Vec<String> = structure
        .fields
        .iter()
        .map(|field| naming::rust_field(&field.name))
        .collect();
    for base in &structure.flatten {
        let field_name = ident(&naming::rust_flattened_field(name, base, |field| {
            taken.iter().any(|known| known == field)
        }));
        let base_type = context.rust_type(name, &TypeExpr::named(base.clone()));
        let text = format!(" The members of `{}`, in the same object.", naming::rust_type(base));
        flattened.push(quote!(#[doc = #text] #[serde(flatten)] pub #field_name: #base_type,));
        if context.takes_arguments(base) {
            let parameter = context.parameter(name, &TypeExpr::named(base.clone()));
            let parameter_type = &parameter.ty;
            let stored = parameter.store(&field_name);
            parameters.push(quote!(#field_name: #parameter_type));
            initializers.push(quote!(#field_name: #stored,));
        } else {
            initializers.push(quote!(#field_name: ::std::default::Default::default(),));
        }
    }
    let mut boxed_kept = false;
    let additional = match &structure.additional {
        AdditionalProperties::Kept(values) => {
            let values = context.rust_type(name, values);
            let map = quote!(::std::collections::BTreeMap<::std::string::String, #values>);
            initializers.push(quote!(additional: ::std::default::Default::default(),));
            // The JSON-RPC error object is what `Result`s carry: boxed, its
            // kept members do not make every `Result<T, Error>` larger.
            let boxed = context.error_object.as_ref().is_some_and(|error| error.name == name);
            boxed_kept = boxed;
            let map = if boxed { quote!(::std::boxed::Box<#map>) } else { map };
            quote!(
                /// Members the schema does not name, kept as they came.
                #[serde(flatten)]
                pub additional: #map,
            )
        }
        _ => quote!(),
    };
    let deny = if structure.additional == AdditionalProperties::Denied && structure.flatten.is_empty() {
        quote!(#[serde(deny_unknown_fields)])
    } else {
        quote!()
    };
    let derive = derives(context.is_eq(name));
    let rust_name = naming::rust_type(name);
    let new_doc = match (parameters.is_empty(), setters.len()) {
        (true, _) => format!(" A new `{rust_name}` with every member absent."),
        (false, 0) => format!(" A new `{rust_name}` from its members."),
        (false, _) => format!(" A new `{rust_name}` from its required members; the optional ones start absent."),
    };
    let many = (parameters.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
    let (derive_deserialize, deserialize) = if derived {
        (quote!(, ::serde::Deserialize), None)
    } else {
        let slots: Vec<&Slot> = members.iter().map(|member| &member.slot).collect();
        let kept = Kept {
            name: format_ident!("additional"),
            boxed: boxed_kept,
        };
        (quote!(), Some(deserialize_impl(&type_name, &slots, &kept)))
    };
    let default = parameters.is_empty().then(|| {
        quote! {
            impl ::std::default::Default for #type_name {
                fn default() -> Self {
                    Self::new()
                }
            }
        }
    });
    quote! {
        #documentation
        #derive
        #[derive(::serde::Serialize #derive_deserialize)]
        #deny
        #[non_exhaustive]
        pub struct #type_name {
            #(#definitions)*
            #(#flattened)*
            #additional
        }
        impl #type_name {
            #[doc = #new_doc]
            #many
            pub fn new(#(#parameters),*) -> Self {
                Self { #(#initializers)* }
            }
            #(#setters)*
            #(#accessors)*
        }
        #default
        #deserialize
        #(#decoders)*
    }
}
