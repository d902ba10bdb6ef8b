//! The names of the classes `models.py` gives union variants (struct and
//! unit payloads, and the catch-alls of tagged unions), chosen once so that
//! the models, the codecs, the build order and the helpers agree.

use std::collections::{BTreeMap, BTreeSet};

use acp_ir::ir::{Ir, Payload, TypeKind, UnionStyle};
use acp_ir::naming::{python_class, python_variant_class};

/// The class of each variant that gets one, keyed by union and variant name.
pub(super) type VariantClasses = BTreeMap<(String, String), String>;

/// Names every variant class (struct and unit payloads, and catch-alls of
/// tagged unions), away from the names of types and of each other.
pub(super) fn variant_classes(ir: &Ir) -> VariantClasses {
    let mut taken: BTreeSet<String> = ir.types.keys().map(|name| python_class(name)).collect();
    let mut classes = VariantClasses::new();
    for (name, definition) in &ir.types {
        let TypeKind::Union(union) = &definition.kind else {
            continue;
        };
        let mut members: Vec<&str> = union
            .variants
            .iter()
            .filter(|variant| !matches!(variant.payload, Payload::Type { .. }))
            .map(|variant| variant.name.as_str())
            .collect();
        if let (Some(other), UnionStyle::Tagged { .. }) = (&union.other, &union.style) {
            members.push(&other.name);
        }
        for member in members {
            let class = python_variant_class(name, member, |candidate| taken.contains(candidate));
            taken.insert(class.clone());
            classes.insert((name.clone(), member.to_owned()), class);
        }
    }
    classes
}

/// The class of `variant` of `union`.
pub(super) fn variant_class(classes: &VariantClasses, union: &str, variant: &str) -> String {
    classes
        .get(&(union.to_owned(), variant.to_owned()))
        .cloned()
        .unwrap_or_else(|| python_class(variant))
}
