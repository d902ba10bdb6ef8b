//! Enums of the generated `types` module: string or integer constants with
//! their wire values, serde impls that keep an open enum's unknown values in
//! its catch-all, `Copy` unless that catch-all holds a string, and `From`
//! the integer for open integer enums.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{integer_type, type_ident};
use super::shared::doc;
use acp_ir::ir::*;

pub(crate) fn enum_item(name: &str, enumeration: &EnumType, documentation: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    let variants: Vec<proc_macro2::Ident> = enumeration.values.iter().map(|value| type_ident(&value.name)).collect();
    let docs = enumeration.values.iter().map(|value| doc(value.description.as_deref()));
    let (repr, wire_values, read, write): (TokenStream, Vec<TokenStream>, TokenStream, TokenStream) =
        match enumeration.repr {
            EnumRepr::String => (
                quote!(::std::string::String),
                enumeration
                    .values
                    .iter()
                    .map(|value| {
                        let text = value.value.as_str().unwrap_or_default();
                        quote!(#text)
                    })
                    .collect(),
                // Borrowed from the input where it can be: a known value costs no copy.
                quote!(<crate::codec::Key<'de> as ::serde::Deserialize>::deserialize(
                    deserializer
                )?),
                quote!(serializer.serialize_str(self.as_str())),
            ),
            EnumRepr::Integer { format } => {
                let integer = integer_type(format);
                (
                    integer.clone(),
                    enumeration
                        .values
                        .iter()
                        .map(|value| {
                            let literal: TokenStream = value.value.to_string().parse().unwrap_or_default();
                            quote!(#literal)
                        })
                        .collect(),
                    quote!(<#integer as ::serde::Deserialize>::deserialize(deserializer)?),
                    quote!(::serde::Serialize::serialize(&self.value(), serializer)),
                )
            }
        };
    let string_repr = enumeration.repr == EnumRepr::String;
    let other_variant = enumeration.other.as_ref().map(|other| {
        let other_name = type_ident(&other.name);
        let other_doc = doc(other
            .description
            .as_deref()
            .or(Some("A value this version does not know, kept as it came.")));
        (other_name, other_doc)
    });
    let other_definition = other_variant
        .as_ref()
        .map(|(other_name, other_doc)| quote!(#other_doc #other_name(#repr),));
    let accessor = if string_repr {
        let other_arm = other_variant
            .as_ref()
            .map(|(other_name, _)| quote!(Self::#other_name(value) => value.as_str(),));
        quote! {
            /// The value on the wire.
            pub fn as_str(&self) -> &str {
                match self { #(Self::#variants => #wire_values,)* #other_arm }
            }
        }
    } else {
        let other_arm = other_variant
            .as_ref()
            .map(|(other_name, _)| quote!(Self::#other_name(value) => *value,));
        quote! {
            /// The value on the wire.
            pub fn value(&self) -> #repr {
                match self { #(Self::#variants => #wire_values,)* #other_arm }
            }
        }
    };
    let match_subject = if string_repr {
        quote!(value.as_str())
    } else {
        quote!(value)
    };
    let kept = if string_repr {
        quote!(value.into_owned())
    } else {
        quote!(value)
    };
    let shown = if string_repr {
        quote!(value.as_str())
    } else {
        quote!(value)
    };
    let fallback_arm = match &other_variant {
        Some((other_name, _)) => quote!(_ => ::std::result::Result::Ok(Self::#other_name(#kept)),),
        None => {
            let message = if string_repr {
                format!("unknown value {{:?}} of the closed enum `{name}`")
            } else {
                format!("unknown value {{}} of the closed enum `{name}`")
            };
            quote!(_ => ::std::result::Result::Err(::serde::de::Error::custom(::std::format!(#message, #shown))),)
        }
    };
    // Only a catch-all holding a `String` keeps an enum from being `Copy`.
    let copy = (!string_repr || other_variant.is_none()).then(|| quote!(::std::marker::Copy,));
    // An open integer enum converts from any integer, and decodes through that.
    let from_repr = match (&enumeration.repr, &other_variant) {
        (EnumRepr::Integer { .. }, Some((other_name, _))) => Some(quote! {
            impl ::std::convert::From<#repr> for #type_name {
                /// The named value, or the catch-all.
                fn from(value: #repr) -> Self {
                    match value {
                        #(#wire_values => Self::#variants,)*
                        _ => Self::#other_name(value),
                    }
                }
            }
        }),
        _ => None,
    };
    let decode = match &from_repr {
        Some(_) => quote!(::std::result::Result::Ok(<Self as ::std::convert::From<#repr>>::from(#read))),
        None => quote! {
            let value = #read;
            match #match_subject {
                #(#wire_values => ::std::result::Result::Ok(Self::#variants),)*
                #fallback_arm
            }
        },
    };
    quote! {
        #documentation
        #[derive(::std::fmt::Debug, ::std::clone::Clone, #copy ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
        #[non_exhaustive]
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
                #decode
            }
        }
        #from_repr
    }
}
