//! Which generated types can derive `Eq`: those with no floating-point
//! number anywhere below them (a `serde_json::Value` is `Eq`). Decided once
//! over the IR and the Rust-only variant payload structs, for
//! [`super::context::RustContext::is_eq`].

use std::collections::{BTreeMap, BTreeSet};

use acp_ir::ir::*;

/// Every named type `expression` mentions, through any indirection, and
/// whether it holds a floating-point number itself.
fn mentions<'a>(expression: &'a TypeExpr, names: &mut BTreeSet<&'a str>) -> bool {
    match expression {
        TypeExpr::Named { name } => {
            names.insert(name);
            false
        }
        TypeExpr::Number(_) => true,
        TypeExpr::Array(array) => mentions(&array.items, names),
        TypeExpr::Map { values } => mentions(values, names),
        TypeExpr::Nullable { inner } => mentions(inner, names),
        _ => false,
    }
}

/// What one type holds: whether it holds an `f64` itself, and the named
/// types (IR types or variant payload structs) it holds.
#[derive(Default)]
struct Holds<'a> {
    float: bool,
    names: BTreeSet<&'a str>,
}

impl<'a> Holds<'a> {
    fn expression(&mut self, expression: &'a TypeExpr) {
        self.float |= mentions(expression, &mut self.names);
    }

    fn fields(&mut self, fields: &'a [Field]) {
        for field in fields {
            self.expression(&field.ty);
        }
    }
}

/// The types (IR types and variant payload structs) that hold an `f64`
/// anywhere below them.
pub(crate) fn not_eq_types<'a>(
    ir: &'a Ir,
    variant_structs: &'a BTreeMap<(String, String), String>,
) -> BTreeSet<&'a str> {
    let mut holds: BTreeMap<&str, Holds> = BTreeMap::new();
    for definition in ir.types.values() {
        let mut own = Holds::default();
        match &definition.kind {
            TypeKind::Struct(structure) => {
                own.fields(&structure.fields);
                own.names.extend(structure.flatten.iter().map(String::as_str));
                if let AdditionalProperties::Kept(values) = &structure.additional {
                    own.expression(values);
                }
            }
            TypeKind::Alias { target } => own.expression(target),
            TypeKind::Enum(_) => {}
            TypeKind::Union(union) => {
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Unit => {}
                        Payload::Type { ty } => own.expression(ty),
                        Payload::Struct { base, fields } => {
                            let mut payload = Holds::default();
                            payload.fields(fields);
                            payload.names.extend(base.iter().map(String::as_str));
                            match variant_structs.get(&(definition.name.clone(), variant.name.clone())) {
                                Some(name) => {
                                    own.names.insert(name);
                                    holds.insert(name, payload);
                                }
                                None => {
                                    own.float |= payload.float;
                                    own.names.extend(payload.names);
                                }
                            }
                        }
                    }
                }
            }
        }
        holds.insert(&definition.name, own);
    }
    // Whatever holds a type that is not `Eq` is not `Eq` either: spread it
    // backwards along what-holds-what once, from the types that hold an `f64`.
    let mut held_by: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (name, held) in &holds {
        for used in &held.names {
            held_by.entry(used).or_default().push(name);
        }
    }
    let mut not_eq: BTreeSet<&str> = holds
        .iter()
        .filter(|(_, held)| held.float)
        .map(|(name, _)| *name)
        .collect();
    let mut pending: Vec<&str> = not_eq.iter().copied().collect();
    while let Some(name) = pending.pop() {
        for holder in held_by.get(name).into_iter().flatten() {
            if not_eq.insert(holder) {
                pending.push(holder);
            }
        }
    }
    not_eq
}
