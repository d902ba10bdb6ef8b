//! Unions of the generated `types` module: an enum with a variant per
//! alternative (plus the catch-all of an extensible union), `From` each
//! payload type only one variant carries, and payload structs for variants
//! with inline members. Tagged unions dispatch on their tag and encode it
//! first; untagged ones pick the alternative that re-encodes to the input.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{type_ident, RustContext};
use super::shared::{derives, doc};
use super::structs::struct_item;
use acp_ir::ir::*;
use acp_ir::naming;

/// The Rust payload type of a variant.
fn payload_type(context: &RustContext, union_name: &str, variant: &Variant) -> Option<TokenStream> {
    match &variant.payload {
        Payload::Type { ty } => Some(context.rust_type(union_name, ty)),
        Payload::Struct {
            base: Some(base),
            fields,
        } if fields.is_empty() => Some(context.rust_type(union_name, &TypeExpr::named(base.clone()))),
        Payload::Unit | Payload::Struct { .. } => {
            let struct_name = context
                .variant_structs
                .get(&(union_name.to_owned(), variant.name.clone()))?;
            let struct_ident = type_ident(struct_name);
            Some(quote!(crate::types::#struct_ident))
        }
    }
}

/// Payload structs for variants with inline fields, and for unit variants
/// of a union that keeps members it does not name.
fn variant_structs(context: &RustContext, union_name: &str, union: &UnionType) -> Vec<TokenStream> {
    union
        .variants
        .iter()
        .filter_map(|variant| {
            let struct_name = context
                .variant_structs
                .get(&(union_name.to_owned(), variant.name.clone()))?;
            let structure = match &variant.payload {
                Payload::Struct { base, fields } => StructType {
                    fields: fields.clone(),
                    flatten: base.iter().cloned().collect(),
                    additional: union.additional.clone(),
                },
                Payload::Unit => StructType {
                    fields: Vec::new(),
                    flatten: Vec::new(),
                    additional: union.additional.clone(),
                },
                Payload::Type { .. } => return None,
            };
            let text = format!(
                " The payload of [`{}::{}`].",
                naming::rust_type(union_name),
                naming::rust_type(&variant.name)
            );
            Some(struct_item(context, struct_name, &structure, &quote!(#[doc = #text])))
        })
        .collect()
}

pub(crate) fn union_item(
    context: &RustContext,
    name: &str,
    union: &UnionType,
    documentation: &TokenStream,
) -> TokenStream {
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
        let other_doc = doc(other
            .description
            .as_deref()
            .or(Some("A variant this version does not know, kept whole.")));
        quote!(#other_doc #other_name(::serde_json::Map<::std::string::String, ::serde_json::Value>),)
    });
    let impls = match &union.style {
        UnionStyle::Tagged { property } => tagged_impls(context, name, property, union),
        UnionStyle::Untagged | UnionStyle::ByMethod => untagged_impls(context, name, union),
    };
    let derive = derives(context.is_eq(name));
    let conversions = conversions(context, name, union);
    quote! {
        #documentation
        #derive
        #[non_exhaustive]
        pub enum #type_name {
            #(#definitions)*
            #other
        }
        #impls
        #(#conversions)*
        #(#payload_structs)*
    }
}

/// `From` each payload type that only one variant carries.
fn conversions(context: &RustContext, name: &str, union: &UnionType) -> Vec<TokenStream> {
    let type_name = type_ident(name);
    let payloads: Vec<(&Variant, TokenStream)> = union
        .variants
        .iter()
        .filter(|variant| !matches!(variant.payload, Payload::Type { ty: TypeExpr::Null }))
        .filter_map(|variant| Some((variant, payload_type(context, name, variant)?)))
        .collect();
    let count = |payload: &TokenStream| {
        payloads
            .iter()
            .filter(|(_, other)| other.to_string() == payload.to_string())
            .count()
    };
    payloads
        .iter()
        .filter(|(_, payload)| count(payload) == 1)
        .map(|(variant, payload)| {
            let variant_name = type_ident(&variant.name);
            let text = format!(
                " [`{}::{}`] with this payload.",
                naming::rust_type(name),
                naming::rust_type(&variant.name)
            );
            quote! {
                impl ::std::convert::From<#payload> for #type_name {
                    #[doc = #text]
                    fn from(payload: #payload) -> Self {
                        Self::#variant_name(payload)
                    }
                }
            }
        })
        .collect()
}

/// Whether the union `name` sits flattened in some object: serde then reads
/// it from its buffer, as a struct of the members its alternatives can have.
fn flattened_somewhere(context: &RustContext, name: &str) -> bool {
    context.ir.types.values().any(|definition| matches!(&definition.kind, TypeKind::Struct(structure) if structure.flatten.iter().any(|base| base == name)))
}

fn tagged_impls(context: &RustContext, name: &str, property: &str, union: &UnionType) -> TokenStream {
    let type_name = type_ident(name);
    let mut serialize_arms = Vec::new();
    let mut mirror_variants = Vec::new();
    let mut borrows = false;
    let mut tag_arms = Vec::new();
    let mut stream_arms = Vec::new();
    // The variant without a tag, read from the whole object; with an open
    // default it also takes what no tagged variant decodes.
    let untagged_arm = union
        .variants
        .iter()
        .find(|variant| variant.tag.is_none())
        .map(|variant| {
            let variant_name = type_ident(&variant.name);
            quote!(crate::codec::payload(::serde_json::Value::Object(members)).map(Self::#variant_name))
        });
    let open_default = untagged_arm.as_ref().filter(|_| union.default_open);
    for variant in &union.variants {
        let variant_name = type_ident(&variant.name);
        match (&variant.tag, payload_type(context, name, variant)) {
            (Some(tag), Some(payload)) => {
                mirror_variants.push(quote!(#[serde(rename = #tag)] #variant_name(&'a #payload),));
                borrows = true;
                serialize_arms.push(quote!(Self::#variant_name(payload) => ::serde::Serialize::serialize(&Tagged::#variant_name(payload), serializer),));
                tag_arms.push(match open_default {
                    // The variant's error is the one told when neither decodes.
                    Some(default) => quote! {
                        ::std::option::Option::Some(#tag) => crate::codec::payload(crate::codec::untag(members.clone(), #property))
                            .map(Self::#variant_name)
                            .or_else(|error| #default.map_err(|_| error)),
                    },
                    None => quote!(::std::option::Option::Some(#tag) => crate::codec::payload(crate::codec::untag(members, #property)).map(Self::#variant_name),),
                });
                stream_arms.push(quote! {
                    if tag == #tag {
                        return <#payload as ::serde::Deserialize>::deserialize(::serde::de::value::MapAccessDeserializer::new(map)).map(#type_name::#variant_name);
                    }
                });
            }
            (Some(tag), None) => {
                mirror_variants.push(quote!(#[serde(rename = #tag)] #variant_name,));
                serialize_arms.push(
                    quote!(Self::#variant_name => ::serde::Serialize::serialize(&Tagged::#variant_name, serializer),),
                );
                tag_arms
                    .push(quote!(::std::option::Option::Some(#tag) => ::std::result::Result::Ok(Self::#variant_name),));
                stream_arms.push(quote! {
                    if tag == #tag {
                        while map.next_entry::<::serde::de::IgnoredAny, ::serde::de::IgnoredAny>()?.is_some() {}
                        return ::std::result::Result::Ok(#type_name::#variant_name);
                    }
                });
            }
            (None, _) => {
                serialize_arms
                    .push(quote!(Self::#variant_name(payload) => ::serde::Serialize::serialize(payload, serializer),));
            }
        }
    }
    // The derive of an internally tagged enum writes the tag first, then the
    // payload's members in their order.
    let lifetime = borrows.then(|| quote!(<'a>));
    let mirror = (!mirror_variants.is_empty()).then(|| {
        quote! {
            #[derive(::serde::Serialize)]
            #[serde(tag = #property)]
            enum Tagged #lifetime {
                #(#mirror_variants)*
            }
        }
    });
    // Errors about the tag are located at the tag member: the message
    // starts with its pointer, which `codec::located` joins to the outer one.
    let tag_pointer = format!("/{}", acp_schema_source::pointer::escape_token(property));
    let unknown_tag = match &union.other {
        Some(other) => {
            let other_name = type_ident(&other.name);
            serialize_arms
                .push(quote!(Self::#other_name(members) => ::serde::Serialize::serialize(members, serializer),));
            quote!(::std::option::Option::Some(_) => ::std::result::Result::Ok(Self::#other_name(members)),)
        }
        None => match open_default {
            Some(default) => quote!(::std::option::Option::Some(_) => #default,),
            None => {
                let message = format!("{tag_pointer}: unknown `{property}` {{:?}} of `{name}`");
                quote!(::std::option::Option::Some(other) => ::std::result::Result::Err(::std::format!(#message, other)),)
            }
        },
    };
    let not_string = format!("{tag_pointer}: `{property}` must be a string");
    let not_string = match open_default {
        Some(default) => quote!(return #default),
        None => quote!(return ::std::result::Result::Err(#not_string.to_owned())),
    };
    let missing_tag = untagged_arm.clone().unwrap_or_else(|| {
        let message = format!("{tag_pointer}: missing field `{property}`");
        quote!(::std::result::Result::Err(#message.to_owned()))
    });
    let not_object = format!("an object for `{name}`");
    // A known tag first (as peers write it): the rest of the object is the
    // variant's payload, read as it streams. An open default takes a tag of
    // any JSON type, and a variant read as it streams could not fall back to
    // it; a union flattened into an object is read from serde's buffer,
    // which no error path follows: there the object is always gathered
    // whole, and an error inside it keeps its whole pointer.
    let flattened = flattened_somewhere(context, name);
    let first_tag = (open_default.is_none() && !flattened).then(|| {
        quote! {
            if let ::std::option::Option::Some(key) = map.next_key::<crate::codec::Key<'de>>()? {
                if key.as_str() == #property {
                    match map.next_value::<::std::option::Option<crate::codec::Key<'de>>>()? {
                        ::std::option::Option::Some(tag) => {
                            let tag = tag.as_str();
                            #(#stream_arms)*
                            members.insert(key.into_owned(), ::serde_json::Value::String(tag.to_owned()));
                        }
                        ::std::option::Option::None => {
                            members.insert(key.into_owned(), ::serde_json::Value::Null);
                        }
                    }
                } else {
                    let value: ::serde_json::Value = map.next_value()?;
                    members.insert(key.into_owned(), value);
                }
            }
        }
    });
    let members = context.ir.member_names(name);
    quote! {
        impl ::serde::Serialize for #type_name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                #mirror
                match self {
                    #(#serialize_arms)*
                }
            }
        }
        impl #type_name {
            /// Decodes the union from the members of its object.
            #[inline]
            fn decode_members(members: ::serde_json::Map<::std::string::String, ::serde_json::Value>) -> ::std::result::Result<Self, ::std::string::String> {
                let tag = match members.get(#property) {
                    ::std::option::Option::None | ::std::option::Option::Some(::serde_json::Value::Null) => ::std::option::Option::None,
                    ::std::option::Option::Some(::serde_json::Value::String(tag)) => ::std::option::Option::Some(tag.clone()),
                    ::std::option::Option::Some(_) => #not_string,
                };
                match tag.as_deref() {
                    ::std::option::Option::None => #missing_tag,
                    #(#tag_arms)*
                    #unknown_tag
                }
            }
        }
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                struct Members;
                impl<'de> ::serde::de::Visitor<'de> for Members {
                    type Value = #type_name;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        formatter.write_str(#not_object)
                    }
                    // The object is told apart whole unless `first_tag` read a variant.
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<#type_name, A::Error> {
                        let mut members = ::serde_json::Map::new();
                        #first_tag
                        while let ::std::option::Option::Some((key, value)) = map.next_entry::<::std::string::String, ::serde_json::Value>()? {
                            members.insert(key, value);
                        }
                        #type_name::decode_members(members).map_err(::serde::de::Error::custom)
                    }
                }
                // As a struct with these members: where the union sits
                // flattened in an object, it takes only its own members and
                // leaves the rest to the object (its kept members).
                const MEMBERS: &[&str] = &[#(#members),*];
                deserializer.deserialize_struct(#name, MEMBERS, Members)
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
                serialize_arms
                    .push(quote!(Self::#variant_name(payload) => ::serde::Serialize::serialize(payload, serializer),));
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
    let flattened = flattened_somewhere(context, name);
    let read = if flattened {
        // Flattened into an object, the union reads as a struct with the
        // member names its alternatives can have: it takes only those and
        // leaves the rest to the object's kept members, which would
        // otherwise repeat them (`ElicitationFormMode` wrote `sessionId`
        // twice; found by the decoder fuzzing).
        let members = context.ir.member_names(name);
        let expecting = format!("an object for `{name}`");
        quote! {
            struct Members;
            impl<'de> ::serde::de::Visitor<'de> for Members {
                type Value = ::serde_json::Value;
                fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    formatter.write_str(#expecting)
                }
                fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<::serde_json::Value, A::Error> {
                    let mut members = ::serde_json::Map::new();
                    while let ::std::option::Option::Some((key, value)) = map.next_entry::<::std::string::String, ::serde_json::Value>()? {
                        members.insert(key, value);
                    }
                    ::std::result::Result::Ok(::serde_json::Value::Object(members))
                }
            }
            const MEMBERS: &[&str] = &[#(#members),*];
            let value = deserializer.deserialize_struct(#name, MEMBERS, Members)?;
        }
    } else {
        quote!(let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(deserializer)?;)
    };
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
                #read
                let mut first: ::std::option::Option<Self> = ::std::option::Option::None;
                #(#attempts)*
                first.ok_or_else(|| ::serde::de::Error::custom(#message))
            }
        }
    }
}
