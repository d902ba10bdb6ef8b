//! The generated crate's `types` module: one item per IR type.
//!
//! Structs derive serde with renames and `Option`s; a field whose decoding
//! the derive cannot express (a rule, `null` kept beside absence, a
//! constraint) gets a small decode function built on `crate::codec`.
//! Enums and unions get hand-shaped impls: open enums keep unknown values,
//! tagged unions dispatch on their tag and keep unknown variants whole,
//! untagged unions pick the alternative that re-encodes to the input.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::context::{ident, integer_type, type_ident, RustContext};
use crate::error::CodegenError;
use crate::ir::*;
use crate::naming;

fn derives() -> TokenStream {
    quote!(#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)])
}

fn doc(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) if !text.trim().is_empty() => {
            let lines = text.lines().map(|line| format!(" {line}"));
            quote!(#(#[doc = #lines])*)
        }
        _ => quote!(),
    }
}

pub(crate) fn emit(context: &RustContext) -> Result<TokenStream, CodegenError> {
    let mut items = Vec::new();
    for definition in context.ir.types.values() {
        let documentation = doc(definition.description.as_deref());
        let item = match &definition.kind {
            TypeKind::Struct(structure) => struct_item(context, &definition.name, structure, &documentation),
            TypeKind::Alias { target } => alias_item(context, &definition.name, target, &documentation),
            TypeKind::Enum(enumeration) => enum_item(&definition.name, enumeration, &documentation),
            TypeKind::Union(union) => union_item(context, &definition.name, union, &documentation),
        };
        items.push(item);
    }
    Ok(quote! {
        #(#items)*
    })
}

// ---- structs and fields -------------------------------------------------

/// The check a field's own constraints need, as a `fn(&T)` closure body.
fn constraint_check(expression: &TypeExpr) -> Option<TokenStream> {
    let option_u64 = |value: Option<u64>| match value {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    };
    let option_f64 = |value: &Option<serde_json::Number>| match value.as_ref().and_then(serde_json::Number::as_f64) {
        Some(value) => quote!(::std::option::Option::Some(#value)),
        None => quote!(::std::option::Option::None),
    };
    match expression {
        TypeExpr::String(string) if string.min_length.is_some() || string.max_length.is_some() || string.pattern.is_some() => {
            let (min, max) = (option_u64(string.min_length), option_u64(string.max_length));
            let pattern = match &string.pattern {
                Some(pattern) => quote!(::std::option::Option::Some(#pattern)),
                None => quote!(::std::option::Option::None),
            };
            Some(quote!(crate::codec::check_string(value, #min, #max, #pattern)))
        }
        TypeExpr::Integer(integer) if integer.minimum.is_some() || integer.maximum.is_some() => {
            let (min, max) = (option_f64(&integer.minimum), option_f64(&integer.maximum));
            Some(quote!(crate::codec::check_number(*value as f64, #min, #max)))
        }
        TypeExpr::Number(number) if number.minimum.is_some() || number.maximum.is_some() => {
            let (min, max) = (option_f64(&number.minimum), option_f64(&number.maximum));
            Some(quote!(crate::codec::check_number(*value, #min, #max)))
        }
        TypeExpr::Array(array) if array.min_items.is_some() || array.max_items.is_some() => {
            let (min, max) = (option_u64(array.min_items), option_u64(array.max_items));
            Some(quote!(crate::codec::check_items(value.len(), #min, #max)))
        }
        _ => None,
    }
}

struct FieldTokens {
    definition: TokenStream,
    decoder: Option<TokenStream>,
    accessor: Option<TokenStream>,
}

fn field_tokens(context: &RustContext, owner: &str, field: &Field) -> FieldTokens {
    let rust_name = naming::rust_field(&field.wire_name);
    let name = ident(&rust_name);
    let inner = context.rust_type(owner, &field.ty);
    let value_type = if field.nullable { quote!(::std::option::Option<#inner>) } else { inner.clone() };
    let field_type = if field.required { value_type.clone() } else { quote!(::std::option::Option<#value_type>) };
    let mut attributes = Vec::new();
    if rust_name.trim_start_matches("r#") != field.wire_name {
        let wire = &field.wire_name;
        attributes.push(quote!(rename = #wire));
    }
    if !field.required {
        attributes.push(quote!(default, skip_serializing_if = "::std::option::Option::is_none"));
    }
    let check = constraint_check(&field.ty);
    // `null` kept beside absence needs more than the derive's `Option`.
    let custom = field.decode.any() || field.nullable || field.ty == TypeExpr::Null || check.is_some();
    let decoder = custom.then(|| {
        let function = format_ident!("decode_{}_{}", naming::snake_case(owner), naming::snake_case(&field.wire_name));
        let function_name = function.to_string();
        attributes.push(quote!(deserialize_with = #function_name));
        let (on_error, on_null) = (field.decode.default_on_error, field.decode.default_on_null);
        let check_body = match (&check, field.nullable) {
            (Some(check), false) => quote!(|value| #check),
            (Some(check), true) => quote!(|value| match value { ::std::option::Option::Some(value) => #check, ::std::option::Option::None => ::std::result::Result::Ok(()) }),
            (None, _) => quote!(|_| ::std::result::Result::Ok(())),
        };
        let items_check = match &check {
            Some(check) => quote!(|value| #check),
            None => quote!(|_| ::std::result::Result::Ok(())),
        };
        let decode = match (&field.ty, field.decode.skip_invalid_items, field.nullable) {
            (TypeExpr::Array(array), true, false) => {
                let item = context.rust_type(owner, &array.items);
                quote!(crate::codec::items::<#item>(value, rules, #items_check))
            }
            (TypeExpr::Array(array), true, true) => {
                let item = context.rust_type(owner, &array.items);
                quote!(crate::codec::nullable_items::<#item>(value, rules, #items_check))
            }
            _ => quote!(crate::codec::field::<#value_type>(value, rules, #check_body)),
        };
        let result = if field.required {
            let literal = match &field.fallback {
                Fallback::Value(value) => {
                    let text = value.to_string();
                    quote!(::std::option::Option::Some(#text))
                }
                Fallback::Absent | Fallback::Reject => quote!(::std::option::Option::None),
            };
            quote!(match decoded {
                ::std::option::Option::Some(decoded) => ::std::result::Result::Ok(decoded),
                ::std::option::Option::None => crate::codec::fallback::<#value_type>(#literal).map_err(::serde::de::Error::custom),
            })
        } else {
            quote!(::std::result::Result::Ok(decoded))
        };
        quote! {
            fn #function<'de, D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<#field_type, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let rules = crate::codec::Rules { on_error: #on_error, on_null: #on_null };
                let decoded = #decode.map_err(::serde::de::Error::custom)?;
                #result
            }
        }
    });
    let serde_attribute = if attributes.is_empty() { quote!() } else { quote!(#[serde(#(#attributes),*)]) };
    let documentation = doc(field.description.as_deref());
    let accessor = default_accessor(field, &name, &rust_name);
    FieldTokens { definition: quote!(#documentation #serde_attribute pub #name: #field_type,), decoder, accessor }
}

/// `<field>_or_default()` for optional scalar fields with a schema default:
/// the default is exposed, never written.
fn default_accessor(field: &Field, name: &proc_macro2::Ident, rust_name: &str) -> Option<TokenStream> {
    if field.required || field.nullable {
        return None;
    }
    let default = field.default.as_ref()?;
    let (value_type, value) = match (&field.ty, default) {
        (TypeExpr::Boolean, serde_json::Value::Bool(flag)) => (quote!(bool), quote!(#flag)),
        (TypeExpr::String(_), serde_json::Value::String(text)) => (quote!(&str), quote!(#text)),
        (TypeExpr::Integer(integer), serde_json::Value::Number(number)) => {
            let literal: proc_macro2::TokenStream = number.to_string().parse().ok()?;
            (integer_type(integer.format), literal)
        }
        _ => return None,
    };
    let accessor = format_ident!("{}_or_default", rust_name.trim_start_matches("r#"));
    let text = format!(" The value of `{}`, or its schema default when absent.", field.wire_name);
    let read = if matches!(field.ty, TypeExpr::String(_)) { quote!(self.#name.as_deref()) } else { quote!(self.#name) };
    Some(quote! {
        #[doc = #text]
        pub fn #accessor(&self) -> #value_type {
            #read.unwrap_or(#value)
        }
    })
}

fn struct_item(context: &RustContext, name: &str, structure: &StructType, documentation: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    let fields: Vec<FieldTokens> = structure.fields.iter().map(|field| field_tokens(context, name, field)).collect();
    let definitions = fields.iter().map(|field| &field.definition);
    let decoders = fields.iter().filter_map(|field| field.decoder.as_ref());
    let accessors: Vec<&TokenStream> = fields.iter().filter_map(|field| field.accessor.as_ref()).collect();
    let flattened = structure.flatten.iter().map(|base| {
        let field_name = ident(&naming::rust_field(base));
        let base_type = context.rust_type(name, &TypeExpr::named(base.clone()));
        quote!(#[serde(flatten)] pub #field_name: #base_type,)
    });
    let additional = match &structure.additional {
        AdditionalProperties::Kept(values) => {
            let values = context.rust_type(name, values);
            quote!(
                /// Members the schema does not name, kept as they came.
                #[serde(flatten)]
                pub additional: ::std::collections::BTreeMap<::std::string::String, #values>,
            )
        }
        _ => quote!(),
    };
    let deny = if structure.additional == AdditionalProperties::Denied && structure.flatten.is_empty() {
        quote!(#[serde(deny_unknown_fields)])
    } else {
        quote!()
    };
    let derive = derives();
    let accessor_block = if accessors.is_empty() {
        quote!()
    } else {
        quote!(impl #type_name { #(#accessors)* })
    };
    quote! {
        #documentation
        #derive
        #[derive(::serde::Serialize, ::serde::Deserialize)]
        #deny
        pub struct #type_name {
            #(#definitions)*
            #(#flattened)*
            #additional
        }
        #accessor_block
        #(#decoders)*
    }
}

// ---- aliases ---------------------------------------------------------------

fn alias_item(context: &RustContext, name: &str, target: &TypeExpr, documentation: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    let inner = context.rust_type(name, target);
    let derive = derives();
    match constraint_check(target) {
        None => quote! {
            #documentation
            #derive
            #[derive(::serde::Serialize, ::serde::Deserialize)]
            #[serde(transparent)]
            pub struct #type_name(pub #inner);
        },
        Some(check) => quote! {
            #documentation
            #derive
            #[derive(::serde::Serialize)]
            #[serde(transparent)]
            pub struct #type_name(pub #inner);
            impl<'de> ::serde::Deserialize<'de> for #type_name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    let value = <#inner as ::serde::Deserialize>::deserialize(deserializer)?;
                    let checked: ::std::result::Result<(), ::std::string::String> = { let value = &value; #check };
                    checked.map_err(::serde::de::Error::custom)?;
                    ::std::result::Result::Ok(Self(value))
                }
            }
        },
    }
}

// ---- enums -----------------------------------------------------------------

fn enum_item(name: &str, enumeration: &EnumType, documentation: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    let variants: Vec<proc_macro2::Ident> = enumeration.values.iter().map(|value| type_ident(&value.name)).collect();
    let docs = enumeration.values.iter().map(|value| doc(value.description.as_deref()));
    let (repr, wire_values, read, write): (TokenStream, Vec<TokenStream>, TokenStream, TokenStream) = match enumeration.repr {
        EnumRepr::String => (
            quote!(::std::string::String),
            enumeration.values.iter().map(|value| { let text = value.value.as_str().unwrap_or_default(); quote!(#text) }).collect(),
            quote!(<::std::string::String as ::serde::Deserialize>::deserialize(deserializer)?),
            quote!(serializer.serialize_str(self.as_str())),
        ),
        EnumRepr::Integer { format } => {
            let integer = integer_type(format);
            (
                integer.clone(),
                enumeration.values.iter().map(|value| {
                    let literal: TokenStream = value.value.to_string().parse().unwrap_or_default();
                    quote!(#literal)
                }).collect(),
                quote!(<#integer as ::serde::Deserialize>::deserialize(deserializer)?),
                quote!(::serde::Serialize::serialize(&self.value(), serializer)),
            )
        }
    };
    let string_repr = enumeration.repr == EnumRepr::String;
    let other_variant = enumeration.other.as_ref().map(|other| {
        let other_name = type_ident(&other.name);
        let other_doc = doc(other.description.as_deref().or(Some("A value this version does not know, kept as it came.")));
        (other_name, other_doc)
    });
    let other_definition = other_variant.as_ref().map(|(other_name, other_doc)| quote!(#other_doc #other_name(#repr),));
    let accessor = if string_repr {
        let other_arm = other_variant.as_ref().map(|(other_name, _)| quote!(Self::#other_name(value) => value.as_str(),));
        quote! {
            /// The value on the wire.
            pub fn as_str(&self) -> &str {
                match self { #(Self::#variants => #wire_values,)* #other_arm }
            }
        }
    } else {
        let other_arm = other_variant.as_ref().map(|(other_name, _)| quote!(Self::#other_name(value) => *value,));
        quote! {
            /// The value on the wire.
            pub fn value(&self) -> #repr {
                match self { #(Self::#variants => #wire_values,)* #other_arm }
            }
        }
    };
    let match_subject = if string_repr { quote!(value.as_str()) } else { quote!(value) };
    let fallback_arm = match &other_variant {
        Some((other_name, _)) => quote!(_ => ::std::result::Result::Ok(Self::#other_name(value)),),
        None => {
            let message = if string_repr {
                format!("unknown value {{:?}} of the closed enum `{name}`")
            } else {
                format!("unknown value {{}} of the closed enum `{name}`")
            };
            quote!(_ => ::std::result::Result::Err(::serde::de::Error::custom(::std::format!(#message, value))),)
        }
    };
    quote! {
        #documentation
        #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
        pub enum #type_name {
            #(#docs #variants,)*
            #other_definition
        }
        impl #type_name {
            #accessor
        }
        impl ::serde::Serialize for #type_name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                #write
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = #read;
                match #match_subject {
                    #(#wire_values => ::std::result::Result::Ok(Self::#variants),)*
                    #fallback_arm
                }
            }
        }
    }
}

// ---- unions ----------------------------------------------------------------

/// The Rust payload type of a variant.
fn payload_type(context: &RustContext, union_name: &str, variant: &Variant) -> Option<TokenStream> {
    match &variant.payload {
        Payload::Unit => None,
        Payload::Type { ty } => Some(context.rust_type(union_name, ty)),
        Payload::Struct { base: Some(base), fields } if fields.is_empty() => Some(context.rust_type(union_name, &TypeExpr::named(base.clone()))),
        Payload::Struct { .. } => {
            let struct_name = context.variant_structs.get(&(union_name.to_owned(), variant.name.clone()))?;
            let struct_ident = type_ident(struct_name);
            Some(quote!(crate::types::#struct_ident))
        }
    }
}

/// Payload structs for variants with inline fields.
fn variant_structs(context: &RustContext, union_name: &str, union: &UnionType) -> Vec<TokenStream> {
    union
        .variants
        .iter()
        .filter_map(|variant| {
            let Payload::Struct { base, fields } = &variant.payload else { return None };
            let struct_name = context.variant_structs.get(&(union_name.to_owned(), variant.name.clone()))?;
            let structure = StructType { fields: fields.clone(), flatten: base.iter().cloned().collect(), additional: union.additional.clone() };
            let text = format!(" The payload of [`{}::{}`].", naming::rust_type(union_name), naming::rust_type(&variant.name));
            Some(struct_item(context, struct_name, &structure, &quote!(#[doc = #text])))
        })
        .collect()
}

fn union_item(context: &RustContext, name: &str, union: &UnionType, documentation: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    let payload_structs = variant_structs(context, name, union);
    let definitions = union.variants.iter().map(|variant| {
        let variant_name = type_ident(&variant.name);
        let variant_doc = doc(variant.description.as_deref());
        match payload_type(context, name, variant) {
            Some(payload) => quote!(#variant_doc #variant_name(#payload),),
            None => quote!(#variant_doc #variant_name,),
        }
    });
    let other = union.other.as_ref().map(|other| {
        let other_name = type_ident(&other.name);
        let other_doc = doc(other.description.as_deref().or(Some("A variant this version does not know, kept whole.")));
        quote!(#other_doc #other_name(::serde_json::Map<::std::string::String, ::serde_json::Value>),)
    });
    let impls = match &union.style {
        UnionStyle::Tagged { property } => tagged_impls(name, property, union),
        UnionStyle::Untagged | UnionStyle::ByMethod => untagged_impls(context, name, union),
    };
    let derive = derives();
    quote! {
        #documentation
        #derive
        pub enum #type_name {
            #(#definitions)*
            #other
        }
        #impls
        #(#payload_structs)*
    }
}

fn tagged_impls(name: &str, property: &str, union: &UnionType) -> TokenStream {
    let type_name = type_ident(name);
    let mut serialize_arms = Vec::new();
    let mut tag_arms = Vec::new();
    let mut untagged_arm = None;
    for variant in &union.variants {
        let variant_name = type_ident(&variant.name);
        let has_payload = !matches!(variant.payload, Payload::Unit);
        match (&variant.tag, has_payload) {
            (Some(tag), true) => {
                serialize_arms.push(quote!(Self::#variant_name(payload) => crate::codec::tagged(#property, #tag, payload),));
                tag_arms.push(quote!(#tag => crate::codec::payload(crate::codec::untag(members, #property)).map(Self::#variant_name),));
            }
            (Some(tag), false) => {
                serialize_arms.push(quote!(Self::#variant_name => crate::codec::tagged(#property, #tag, &::serde_json::Map::<::std::string::String, ::serde_json::Value>::new()),));
                tag_arms.push(quote!(#tag => ::std::result::Result::Ok(Self::#variant_name),));
            }
            (None, _) => {
                serialize_arms.push(quote!(Self::#variant_name(payload) => ::serde_json::to_value(payload).map_err(|error| error.to_string()),));
                untagged_arm = Some(quote!(crate::codec::payload(value.clone()).map(Self::#variant_name)));
            }
        }
    }
    // Errors about the tag are located at the tag member: the message
    // starts with its pointer, which `codec::located` joins to the outer one.
    let tag_pointer = format!("/{}", property.replace('~', "~0").replace('/', "~1"));
    let unknown_tag = match &union.other {
        Some(other) => {
            let other_name = type_ident(&other.name);
            serialize_arms.push(quote!(Self::#other_name(members) => ::std::result::Result::Ok(::serde_json::Value::Object(members.clone())),));
            quote!(_ => ::std::result::Result::Ok(Self::#other_name(members.clone())),)
        }
        None => {
            let message = format!("{tag_pointer}: unknown `{property}` {{:?}} of `{name}`");
            quote!(other => ::std::result::Result::Err(::std::format!(#message, other)),)
        }
    };
    let missing_tag = untagged_arm.unwrap_or_else(|| {
        let message = format!("{tag_pointer}: missing field `{property}`");
        quote!(::std::result::Result::Err(#message.to_owned()))
    });
    let not_object = format!("expected an object for `{name}`");
    let not_string = format!("{tag_pointer}: `{property}` must be a string");
    quote! {
        impl ::serde::Serialize for #type_name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                let encoded: ::std::result::Result<::serde_json::Value, ::std::string::String> = match self {
                    #(#serialize_arms)*
                };
                ::serde::Serialize::serialize(&encoded.map_err(::serde::ser::Error::custom)?, serializer)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let ::serde_json::Value::Object(members) = &value else {
                    return ::std::result::Result::Err(::serde::de::Error::custom(#not_object));
                };
                let decoded: ::std::result::Result<Self, ::std::string::String> = match members.get(#property) {
                    ::std::option::Option::None | ::std::option::Option::Some(::serde_json::Value::Null) => #missing_tag,
                    ::std::option::Option::Some(::serde_json::Value::String(tag)) => match tag.as_str() {
                        #(#tag_arms)*
                        #unknown_tag
                    },
                    ::std::option::Option::Some(_) => ::std::result::Result::Err(#not_string.to_owned()),
                };
                decoded.map_err(::serde::de::Error::custom)
            }
        }
    }
}

fn untagged_impls(context: &RustContext, name: &str, union: &UnionType) -> TokenStream {
    let type_name = type_ident(name);
    let mut serialize_arms = Vec::new();
    let mut attempts = Vec::new();
    for variant in &union.variants {
        let variant_name = type_ident(&variant.name);
        match payload_type(context, name, variant) {
            Some(payload) => {
                serialize_arms.push(quote!(Self::#variant_name(payload) => ::serde::Serialize::serialize(payload, serializer),));
                attempts.push(quote! {
                    if let ::std::result::Result::Ok(candidate) = crate::codec::payload::<#payload>(value.clone()) {
                        let candidate = Self::#variant_name(candidate);
                        if crate::codec::encodes_to(&candidate, &value) {
                            return ::std::result::Result::Ok(candidate);
                        }
                        first.get_or_insert(candidate);
                    }
                });
            }
            None => {
                serialize_arms.push(quote!(Self::#variant_name => serializer.serialize_unit(),));
            }
        }
    }
    let message = format!("the value matches no alternative of `{name}`");
    quote! {
        impl ::serde::Serialize for #type_name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    #(#serialize_arms)*
                }
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;
                let mut first: ::std::option::Option<Self> = ::std::option::Option::None;
                #(#attempts)*
                first.ok_or_else(|| ::serde::de::Error::custom(#message))
            }
        }
    }
}
