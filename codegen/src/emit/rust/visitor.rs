//! The hand-shaped `Deserialize` of a struct that keeps the members its
//! schema does not name and flattens no other type: one pass over the
//! object's members, each named member read as it streams, every other
//! one put in the kept-members map. (`#[serde(flatten)]` of that map would
//! make the derive gather the whole object into a buffer first.) It
//! behaves as the derive did: the same `deserialize_map`, "missing field",
//! "duplicate field" and "expected struct X" errors, and rules read through
//! [`Slot::rule`] inside the member's value, so errors name the member.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The visitor's local for a member's value: `member_<field>`, which no
/// other local name can be.
fn local(name: &Ident) -> Ident {
    format_ident!("member_{}", name.to_string().trim_start_matches("r#"))
}

/// One named member as the visitor reads it.
pub(crate) struct Slot {
    /// The Rust field.
    pub name: Ident,
    /// The member's name on the wire.
    pub wire: String,
    /// Whether an absent member is an error (otherwise the field's default).
    pub required: bool,
    /// The `fn(Value) -> Result<T, String>` that decodes the member under
    /// its rules, when the member has rules or checks.
    pub rule: Option<Ident>,
}

/// The kept-members map of the struct.
pub(crate) struct Kept {
    /// The Rust field holding it.
    pub name: Ident,
    /// The map's value type.
    pub values: TokenStream,
    /// Whether the field holds the map boxed.
    pub boxed: bool,
}

/// `impl Deserialize` for the struct `type_name` with named members `slots`
/// and the rest in `kept`.
pub(crate) fn deserialize_impl(type_name: &Ident, slots: &[&Slot], kept: &Kept) -> TokenStream {
    let expecting = format!("struct {type_name}");
    let kept_name = &kept.name;
    let kept_local = format_ident!("kept");
    let values = &kept.values;
    // Each local's type follows from the field it ends in.
    let declarations = slots.iter().map(|slot| {
        let name = local(&slot.name);
        quote!(let mut #name = ::std::option::Option::None;)
    });
    let arms = slots.iter().map(|slot| {
        let (name, wire) = (local(&slot.name), &slot.wire);
        let read = match &slot.rule {
            Some(rule) => quote!(map.next_value_seed(crate::codec::Rule(#rule))?),
            None => quote!(map.next_value()?),
        };
        quote! {
            #wire => {
                if #name.is_some() {
                    return ::std::result::Result::Err(<A::Error as ::serde::de::Error>::duplicate_field(#wire));
                }
                #name = ::std::option::Option::Some(#read);
            }
        }
    });
    let read_members = if slots.is_empty() {
        quote! {
            while let ::std::option::Option::Some((key, value)) = map.next_entry::<::std::string::String, #values>()? {
                #kept_local.insert(key, value);
            }
        }
    } else {
        quote! {
            while let ::std::option::Option::Some(key) = map.next_key::<crate::codec::Key<'de>>()? {
                match key.as_str() {
                    #(#arms)*
                    _ => {
                        let value: #values = map.next_value()?;
                        #kept_local.insert(key.into_owned(), value);
                    }
                }
            }
        }
    };
    let fields = slots.iter().map(|slot| {
        let (name, found, wire) = (&slot.name, local(&slot.name), &slot.wire);
        if slot.required {
            quote!(#name: #found.ok_or_else(|| <A::Error as ::serde::de::Error>::missing_field(#wire))?,)
        } else {
            quote!(#name: #found.unwrap_or_default(),)
        }
    });
    let kept_value = if kept.boxed { quote!(::std::boxed::Box::new(#kept_local)) } else { quote!(#kept_local) };
    quote! {
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                struct Members;
                impl<'de> ::serde::de::Visitor<'de> for Members {
                    type Value = #type_name;
                    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        formatter.write_str(#expecting)
                    }
                    fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<#type_name, A::Error> {
                        #(#declarations)*
                        let mut #kept_local: ::std::collections::BTreeMap<::std::string::String, #values> = ::std::collections::BTreeMap::new();
                        #read_members
                        ::std::result::Result::Ok(#type_name {
                            #(#fields)*
                            #kept_name: #kept_value,
                        })
                    }
                }
                deserializer.deserialize_map(Members)
            }
        }
    }
}
