//! Rust policy questions, answered once over the IR: which type names each IR
//! type gets, which references must be boxed to break recursion, which Rust
//! type a type expression becomes.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use crate::error::{CodegenError, ErrorKind};
use crate::ir::*;
use crate::naming;

pub(crate) struct RustContext<'a> {
    pub ir: &'a Ir,
    /// Type name -> the types it contains without indirection.
    direct: BTreeMap<&'a str, BTreeSet<&'a str>>,
    /// Rust-only payload structs of union variants with inline fields:
    /// (union, variant) -> struct name.
    pub variant_structs: BTreeMap<(String, String), String>,
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
            match &definition.kind {
                TypeKind::Struct(structure) => {
                    edges.extend(structure.flatten.iter().map(String::as_str));
                    for field in &structure.fields {
                        direct_names(&field.ty, edges);
                    }
                }
                TypeKind::Alias { target } => direct_names(target, edges),
                TypeKind::Enum(_) => {}
                TypeKind::Union(union) => {
                    for variant in &union.variants {
                        match &variant.payload {
                            Payload::Unit => {}
                            Payload::Type { ty } => direct_names(ty, edges),
                            Payload::Struct { base, fields } => {
                                edges.extend(base.iter().map(String::as_str));
                                for field in fields {
                                    direct_names(&field.ty, edges);
                                }
                                if !fields.is_empty() {
                                    let name = naming::member_type_name(&definition.name, &variant.name);
                                    if ir.types.contains_key(&name) {
                                        return Err(CodegenError {
                                            kind: ErrorKind::NameCollision,
                                            file: ir.origin.clone(),
                                            pointer: definition.pointer.clone(),
                                            message: format!("the Rust payload struct `{name}` of variant `{}` collides with a schema type", variant.name),
                                        });
                                    }
                                    variant_structs.insert((definition.name.clone(), variant.name.clone()), name);
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(RustContext { ir, direct, variant_structs })
    }

    /// Whether a direct reference from `from` to `to` must be boxed: `to`
    /// contains `from` again without indirection.
    pub fn boxed(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![to];
        while let Some(current) = stack.pop() {
            if current == from {
                return true;
            }
            if seen.insert(current) {
                stack.extend(self.direct.get(current).into_iter().flatten().copied());
            }
        }
        false
    }

    /// The Rust type of `expression` as used inside type `owner`.
    pub fn rust_type(&self, owner: &str, expression: &TypeExpr) -> TokenStream {
        self.rust_type_inner(owner, expression, true)
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

fn direct_names<'a>(expression: &'a TypeExpr, into: &mut BTreeSet<&'a str>) {
    match expression {
        TypeExpr::Named { name } => {
            into.insert(name);
        }
        TypeExpr::Nullable { inner } => direct_names(inner, into),
        _ => {}
    }
}
