//! The hand-shaped `Deserialize` of a struct that keeps the members its
//! schema does not name and flattens no other type: one pass over the
//! object's members (`codec::FromMembers`), each named member read as it
//! streams, every other one put in the kept-members map. (`#[serde(flatten)]` of that map would
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
    /// How the member is decoded under its rules, when it has rules or checks.
    pub rule: Option<Rule>,
    /// For an optional member that may not be `null`, its value type: read
    /// as that type, so that `null` is an error rather than absence.
    pub not_null: Option<TokenStream>,
}

/// What a member's decode function takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Input {
    /// A `serde_json::Value`: errors keep their text and pointer.
    Value,
    /// A `codec::Buffer`: for lenient members, whose errors are dropped.
    Buffer,
}

/// The decode function of a member with rules or checks.
pub(crate) struct Rule {
    /// The function's path, a `fn(Input) -> Result<T, String>`.
    pub function: TokenStream,
    pub input: Input,
}

impl Rule {
    /// The `DeserializeSeed` that reads the member's value and applies the function.
    pub fn seed(&self) -> TokenStream {
        let function = &self.function;
        match self.input {
            Input::Value => quote!(crate::codec::Rule(#function)),
            Input::Buffer => quote!(crate::codec::Lenient(#function)),
        }
    }
}

/// The kept-members map of the struct.
pub(crate) struct Kept {
    /// The Rust field holding it.
    pub name: Ident,
    /// Whether the field holds the map boxed.
    pub boxed: bool,
}

/// `impl Deserialize` for the struct `type_name` with named members `slots`
/// and the rest in `kept`: `codec::Members` visits the object and calls
/// the struct's `codec::FromMembers`.
pub(crate) fn deserialize_impl(type_name: &Ident, slots: &[&Slot], kept: &Kept) -> TokenStream {
    let expecting = format!("struct {type_name}");
    let kept_name = &kept.name;
    let kept_local = format_ident!("kept");
    // Each local's type follows from the field it ends in.
    let declarations = slots.iter().map(|slot| {
        let name = local(&slot.name);
        quote!(let mut #name = ::std::option::Option::None;)
    });
    let arms = slots.iter().map(|slot| {
        let (name, wire) = (local(&slot.name), &slot.wire);
        match &slot.rule {
            Some(rule) => {
                let seed = rule.seed();
                quote!(#wire => crate::codec::fill_with(&mut #name, #wire, &mut map, #seed)?,)
            }
            None => match &slot.not_null {
                Some(value_type) => quote!(#wire => crate::codec::fill_with(&mut #name, #wire, &mut map, crate::codec::NotNull::<#value_type>::new())?,),
                None => quote!(#wire => crate::codec::fill(&mut #name, #wire, &mut map)?,),
            },
        }
    });
    let read_members = if slots.is_empty() {
        quote! {
            while let ::std::option::Option::Some((key, value)) = map.next_entry()? {
                #kept_local.insert(key, value);
            }
        }
    } else {
        quote! {
            while let ::std::option::Option::Some(key) = map.next_key::<crate::codec::Key<'de>>()? {
                match key.as_str() {
                    #(#arms)*
                    _ => {
                        #kept_local.insert(key.into_owned(), map.next_value()?);
                    }
                }
            }
        }
    };
    let fields = slots.iter().map(|slot| {
        let (name, found, wire) = (&slot.name, local(&slot.name), &slot.wire);
        if slot.required {
            quote!(#name: crate::codec::required(#found, #wire)?,)
        } else {
            quote!(#name: #found.unwrap_or_default(),)
        }
    });
    let kept_value = if kept.boxed {
        quote!(::std::boxed::Box::new(#kept_local))
    } else {
        quote!(#kept_local)
    };
    quote! {
        impl<'de> ::serde::Deserialize<'de> for #type_name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                deserializer.deserialize_map(crate::codec::Members::<Self>::new())
            }
        }
        impl<'de> crate::codec::FromMembers<'de> for #type_name {
            const EXPECTING: &'static str = #expecting;
            fn from_members<A: ::serde::de::MapAccess<'de>>(mut map: A) -> ::std::result::Result<Self, A::Error> {
                #(#declarations)*
                let mut #kept_local = ::std::collections::BTreeMap::new();
                #read_members
                ::std::result::Result::Ok(Self {
                    #(#fields)*
                    #kept_name: #kept_value,
                })
            }
        }
    }
}
