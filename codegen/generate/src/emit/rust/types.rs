//! The generated crate's `types` module: one item per IR type, each built by
//! the module that owns its kind ([`super::structs`], [`super::newtypes`],
//! [`super::enums`], [`super::unions`]; the JSON-RPC error object gets more
//! from [`super::error`]).

use proc_macro2::TokenStream;

use super::context::RustContext;
use super::shared::doc;
use super::{enums, error, newtypes, structs, unions};
use acp_ir::error::CodegenError;
use acp_ir::ir::*;
use acp_ir::naming;

/// The items of the types in `range` (positions in the IR's type order), so
/// that consecutive ranges printed apart and joined give the whole module.
pub(crate) fn emit(context: &RustContext, range: std::ops::Range<usize>) -> Result<TokenStream, CodegenError> {
    let mut items = Vec::new();
    for definition in context.ir.types.values().skip(range.start).take(range.len()) {
        let documentation = match &definition.description {
            Some(description) => doc(Some(description)),
            None => doc(flattened_into(context, &definition.name).as_deref()),
        };
        let item = match &definition.kind {
            TypeKind::Struct(structure) => structs::struct_item(context, &definition.name, structure, &documentation),
            TypeKind::Alias { target } => newtypes::newtype_item(context, &definition.name, target, &documentation),
            TypeKind::Enum(enumeration) => enums::enum_item(&definition.name, enumeration, &documentation),
            TypeKind::Union(union) => unions::union_item(context, &definition.name, union, &documentation),
        };
        items.push(item);
        if context
            .error_object
            .as_ref()
            .is_some_and(|error| error.name == definition.name)
        {
            items.push(error::error_impls(context));
        }
    }
    // Moved into one stream: interpolating them with `quote!` would copy
    // every token of the chunk once more.
    Ok(items.into_iter().collect())
}

/// What a type without a description is for, when a struct flattens it.
fn flattened_into(context: &RustContext, name: &str) -> Option<String> {
    context.ir.types.values().find_map(|owner| match &owner.kind {
        TypeKind::Struct(structure) if structure.flatten.iter().any(|base| base == name) => Some(format!(
            "The members of [`{}`] that depend on which alternative it is.",
            naming::rust_type(&owner.name)
        )),
        _ => None,
    })
}
