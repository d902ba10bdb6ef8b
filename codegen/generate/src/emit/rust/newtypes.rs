//! Newtypes of the generated `types` module (IR aliases): a transparent
//! tuple struct over the target, checked on decode when the target has
//! constraints. A string newtype (`SessionId`) is an ordered, hashable key
//! that prints, borrows and converts like the string it holds; an integer
//! or boolean one is `Copy`; every newtype converts from its target.

use proc_macro2::TokenStream;
use quote::quote;

use super::context::{type_ident, RustContext};
use super::shared::{constraint_check, derives};
use acp_ir::ir::*;
use acp_ir::naming;

pub(crate) fn newtype_item(
    context: &RustContext,
    name: &str,
    target: &TypeExpr,
    documentation: &TokenStream,
) -> TokenStream {
    let type_name = type_ident(name);
    let inner = context.rust_type(name, target);
    let as_str = matches!(target, TypeExpr::String(_)).then(|| {
        quote! {
            /// The string.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    });
    let (derive, conversions) = match target {
        TypeExpr::String(_) => (
            quote!(#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash, ::std::cmp::PartialOrd, ::std::cmp::Ord)]),
            string_conversions(name),
        ),
        TypeExpr::Integer(_) | TypeExpr::Boolean => (
            quote!(#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash, ::std::cmp::PartialOrd, ::std::cmp::Ord)]),
            from_target(name, &inner),
        ),
        _ => (derives(context.is_eq(name)), from_target(name, &inner)),
    };
    let parameter = context.parameter(name, target);
    let parameter_type = &parameter.ty;
    let stored = parameter.store(&quote::format_ident!("value"));
    let (serde_derive, checked_deserialize) = match constraint_check(target) {
        None => (quote!(#[derive(::serde::Serialize, ::serde::Deserialize)]), None),
        Some(check) => (
            quote!(#[derive(::serde::Serialize)]),
            Some(quote! {
                impl<'de> ::serde::Deserialize<'de> for #type_name {
                    fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                        let value = <#inner as ::serde::Deserialize>::deserialize(deserializer)?;
                        let checked: ::std::result::Result<(), ::std::string::String> = { let value = &value; #check };
                        checked.map_err(::serde::de::Error::custom)?;
                        ::std::result::Result::Ok(Self(value))
                    }
                }
            }),
        ),
    };
    let new_doc = format!(" A new `{}` holding `value`.", naming::rust_type(name));
    quote! {
        #documentation
        #derive
        #serde_derive
        #[serde(transparent)]
        pub struct #type_name(pub #inner);
        impl #type_name {
            #[doc = #new_doc]
            pub fn new(value: #parameter_type) -> Self {
                Self(#stored)
            }
            #as_str
        }
        #conversions
        #checked_deserialize
    }
}

/// `From` the target.
fn from_target(name: &str, inner: &TokenStream) -> TokenStream {
    let type_name = type_ident(name);
    quote! {
        impl ::std::convert::From<#inner> for #type_name {
            fn from(value: #inner) -> Self {
                Self(value)
            }
        }
    }
}

/// What makes a string newtype read like its string.
fn string_conversions(name: &str) -> TokenStream {
    let type_name = type_ident(name);
    quote! {
        impl ::std::fmt::Display for #type_name {
            fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                formatter.write_str(&self.0)
            }
        }
        impl ::std::convert::From<::std::string::String> for #type_name {
            fn from(value: ::std::string::String) -> Self {
                Self(value)
            }
        }
        impl ::std::convert::From<&str> for #type_name {
            fn from(value: &str) -> Self {
                Self(value.to_owned())
            }
        }
        impl ::std::convert::AsRef<str> for #type_name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl ::std::borrow::Borrow<str> for #type_name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }
    }
}
