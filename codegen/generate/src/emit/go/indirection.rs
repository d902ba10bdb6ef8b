//! Which values a Go type holds through a pointer or an interface: a union
//! (or an alias of one) is an interface, and a type that contains itself
//! without a slice or an interface in between is held through a pointer at
//! each reference on the cycle.

use std::collections::{BTreeMap, BTreeSet};

use acp_ir::ir::{Ir, TypeExpr, TypeKind};

/// Which direct references need a pointer: those inside a cycle of direct
/// references between Go types that hold their values inline (structs and
/// aliases; a union is an interface, which holds its value through a
/// pointer already).
pub(super) struct Cycles<'a> {
    component: BTreeMap<&'a str, usize>,
}

impl<'a> Cycles<'a> {
    pub(super) fn new(ir: &'a Ir) -> Self {
        let graph: BTreeMap<&str, BTreeSet<&str>> = ir
            .types
            .values()
            .filter(|definition| !matches!(definition.kind, TypeKind::Union(_)))
            .map(|definition| {
                let edges = definition
                    .references()
                    .into_iter()
                    .filter(|reference| reference.direct && !is_interface(ir, &TypeExpr::named(reference.name)))
                    .map(|reference| reference.name)
                    .collect();
                (definition.name.as_str(), edges)
            })
            .collect();
        Cycles {
            component: crate::emit::cycles::components(&graph),
        }
    }

    /// Whether `owner` holds `name` through a pointer.
    pub(super) fn boxed(&self, owner: &str, name: &str) -> bool {
        self.component
            .get(owner)
            .is_some_and(|component| self.component.get(name) == Some(component))
    }
}

/// Whether values of `expression` are a Go interface (a union, or an alias of one).
pub(super) fn is_interface(ir: &Ir, expression: &TypeExpr) -> bool {
    let mut seen = BTreeSet::new();
    let mut current = expression;
    while let TypeExpr::Named { name } = current {
        if !seen.insert(name.as_str()) {
            return false;
        }
        match ir.get(name).map(|definition| &definition.kind) {
            Some(TypeKind::Union(_)) => return true,
            Some(TypeKind::Alias { target }) => current = target,
            _ => return false,
        }
    }
    false
}
