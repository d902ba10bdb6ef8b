//! Rust policy questions, answered once over the IR: which type names each IR
//! type gets, which references must be boxed to break recursion, which Rust
//! type a type expression or a struct member becomes, what a constructor or
//! setter takes for it, which types can derive `Eq` (computed by
//! [`super::eq`]), and which struct is the JSON-RPC error object.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::*;
use acp_ir::naming;

pub(crate) struct RustContext<'a> {
    pub ir: &'a Ir,
    /// Type name -> its strongly connected component in the graph of
    /// references without indirection: a type that reaches itself that way
    /// shares a component with each type on the way.
    component: BTreeMap<&'a str, usize>,
    /// Rust-only payload structs of union variants with inline fields:
    /// (union, variant) -> struct name.
    pub variant_structs: BTreeMap<(String, String), String>,
    /// Types that hold a floating-point number somewhere, so cannot derive `Eq`.
    not_eq: BTreeSet<String>,
    /// The JSON-RPC error object, when the schema has one.
    pub error_object: Option<ErrorObject>,
}

/// How a struct member is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Always present: the value type itself (`Option` when it may be `null`).
    Required,
    /// May be absent: `Option<T>`.
    Optional,
    /// May be absent or `null`: `crate::nullable::Nullable<T>`.
    OptionalNullable,
}

impl Presence {
    pub fn of(field: &Field) -> Presence {
        match (field.required, field.nullable) {
            (true, _) => Presence::Required,
            (false, false) => Presence::Optional,
            (false, true) => Presence::OptionalNullable,
        }
    }
}

/// What a constructor or setter takes for a value, and how it stores it.
pub(crate) struct Parameter {
    /// The parameter type (`impl Into<T>` where a conversion helps).
    pub ty: TokenStream,
    /// Whether the argument is converted with `.into()`.
    pub converts: bool,
    /// Whether the stored value is boxed.
    pub boxed: bool,
}

impl Parameter {
    /// The stored value made from the argument `name`.
    pub fn store(&self, name: &Ident) -> TokenStream {
        let value = if self.converts {
            quote!(#name.into())
        } else {
            quote!(#name)
        };
        if self.boxed {
            quote!(::std::boxed::Box::new(#value))
        } else {
            value
        }
    }
}

pub(crate) fn ident(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// The identifier of an IR type.
pub(crate) fn type_ident(name: &str) -> Ident {
    ident(&naming::rust_type(name))
}

impl<'a> RustContext<'a> {
    pub fn new(ir: &'a Ir) -> Result<Self, CodegenError> {
        let mut direct: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut variant_structs = BTreeMap::new();
        for definition in ir.types.values() {
            let edges = direct.entry(definition.name.as_str()).or_default();
            edges.extend(
                definition
                    .references()
                    .into_iter()
                    .filter(|reference| reference.direct)
                    .map(|reference| reference.name),
            );
            let TypeKind::Union(union) = &definition.kind else {
                continue;
            };
            // A unit variant of a union that keeps unknown members needs a
            // payload struct to keep them in, as a variant with members does.
            let kept = matches!(
                (&union.style, &union.additional),
                (UnionStyle::Tagged { .. }, AdditionalProperties::Kept(_))
            );
            for variant in &union.variants {
                let needs_struct = match &variant.payload {
                    Payload::Unit => kept && variant.tag.is_some(),
                    Payload::Struct { fields, .. } => !fields.is_empty(),
                    Payload::Type { .. } => false,
                };
                if needs_struct {
                    variant_structs.insert(
                        (definition.name.clone(), variant.name.clone()),
                        payload_struct_name(ir, definition, variant)?,
                    );
                }
            }
        }
        let not_eq = super::eq::not_eq_types(ir, &variant_structs)
            .into_iter()
            .map(str::to_owned)
            .collect();
        let error_object = ir.error_object();
        Ok(RustContext {
            ir,
            component: super::super::cycles::components(&direct),
            variant_structs,
            not_eq,
            error_object,
        })
    }

    /// Whether a direct reference from `from` to `to` must be boxed: `to`
    /// contains `from` again without indirection, which for a reference
    /// that exists means the two share a strongly connected component.
    pub fn boxed(&self, from: &str, to: &str) -> bool {
        self.component
            .get(from)
            .is_some_and(|component| self.component.get(to) == Some(component))
    }

    /// Whether the type called `name` (an IR type or a variant payload
    /// struct) can derive `Eq`.
    pub fn is_eq(&self, name: &str) -> bool {
        !self.not_eq.contains(name)
    }

    /// The Rust type of `expression` as used inside type `owner`.
    pub fn rust_type(&self, owner: &str, expression: &TypeExpr) -> TokenStream {
        self.rust_type_inner(owner, expression, true)
    }

    /// The Rust type of a member's value, `null` included when it may be `null`.
    pub fn value_type(&self, owner: &str, field: &Field) -> TokenStream {
        let inner = self.rust_type(owner, &field.ty);
        if field.nullable {
            quote!(::std::option::Option<#inner>)
        } else {
            inner
        }
    }

    /// The Rust type of a struct member.
    pub fn field_type(&self, owner: &str, field: &Field) -> TokenStream {
        match Presence::of(field) {
            Presence::Required => self.value_type(owner, field),
            Presence::Optional => {
                let inner = self.rust_type(owner, &field.ty);
                quote!(::std::option::Option<#inner>)
            }
            Presence::OptionalNullable => {
                let inner = self.rust_type(owner, &field.ty);
                quote!(crate::nullable::Nullable<#inner>)
            }
        }
    }

    /// What a constructor or setter takes for a value of `expression` inside
    /// `owner`: named types, strings and any-JSON values through `Into`;
    /// numbers, booleans and collections as they are.
    pub fn parameter(&self, owner: &str, expression: &TypeExpr) -> Parameter {
        match expression {
            TypeExpr::Named { name } => {
                let name_ident = type_ident(name);
                Parameter {
                    ty: quote!(impl ::std::convert::Into<crate::types::#name_ident>),
                    converts: true,
                    boxed: self.boxed(owner, name),
                }
            }
            TypeExpr::String(_) => Parameter {
                ty: quote!(impl ::std::convert::Into<::std::string::String>),
                converts: true,
                boxed: false,
            },
            TypeExpr::Any | TypeExpr::Untyped { .. } => Parameter {
                ty: quote!(impl ::std::convert::Into<::serde_json::Value>),
                converts: true,
                boxed: false,
            },
            _ => Parameter {
                ty: self.rust_type(owner, expression),
                converts: false,
                boxed: false,
            },
        }
    }

    /// Whether `new` of the struct (or union) called `name` takes arguments:
    /// unions, enums and aliases always do; a struct does when it has a
    /// required member or a flattened base that takes arguments.
    pub fn takes_arguments(&self, name: &str) -> bool {
        match self.ir.get(name).map(|definition| &definition.kind) {
            Some(TypeKind::Struct(structure)) => {
                structure.fields.iter().any(|field| field.required)
                    || structure.flatten.iter().any(|base| self.takes_arguments(base))
            }
            _ => true,
        }
    }

    fn rust_type_inner(&self, owner: &str, expression: &TypeExpr, direct: bool) -> TokenStream {
        match expression {
            TypeExpr::Named { name } => {
                let name_ident = type_ident(name);
                if direct && self.boxed(owner, name) {
                    quote!(::std::boxed::Box<crate::types::#name_ident>)
                } else {
                    quote!(crate::types::#name_ident)
                }
            }
            TypeExpr::Any | TypeExpr::Untyped { .. } => quote!(::serde_json::Value),
            TypeExpr::Null => quote!(()),
            TypeExpr::Boolean => quote!(bool),
            TypeExpr::String(_) => quote!(::std::string::String),
            TypeExpr::Integer(integer) => integer_type(integer.format),
            TypeExpr::Number(_) => quote!(f64),
            TypeExpr::Array(array) => {
                let items = self.rust_type_inner(owner, &array.items, false);
                quote!(::std::vec::Vec<#items>)
            }
            TypeExpr::Map { values } => {
                let values = self.rust_type_inner(owner, values, false);
                quote!(::std::collections::BTreeMap<::std::string::String, #values>)
            }
            TypeExpr::Nullable { inner } => {
                let inner = self.rust_type_inner(owner, inner, direct);
                quote!(::std::option::Option<#inner>)
            }
        }
    }
}

pub(crate) fn integer_type(format: IntegerFormat) -> TokenStream {
    match format {
        IntegerFormat::Int8 => quote!(i8),
        IntegerFormat::Int16 => quote!(i16),
        IntegerFormat::Int32 => quote!(i32),
        IntegerFormat::Int64 | IntegerFormat::Unspecified => quote!(i64),
        IntegerFormat::Uint8 => quote!(u8),
        IntegerFormat::Uint16 => quote!(u16),
        IntegerFormat::Uint32 => quote!(u32),
        IntegerFormat::Uint64 => quote!(u64),
    }
}

/// The name of the Rust-only payload struct of a union variant, which must
/// not be a schema type's.
fn payload_struct_name(ir: &Ir, union: &TypeDef, variant: &Variant) -> Result<String, CodegenError> {
    let name = naming::member_type_name(&union.name, &variant.name);
    if ir.types.contains_key(&name) {
        return Err(CodegenError {
            kind: ErrorKind::NameCollision,
            file: ir.origin.clone(),
            pointer: union.pointer.clone(),
            message: format!(
                "the Rust payload struct `{name}` of variant `{}` collides with a schema type",
                variant.name
            ),
        });
    }
    Ok(name)
}
