//! The order in which `models.py` builds its classes at import: each class
//! after every class it refers to (through its members, the structs it
//! flattens or inherits, aliases and unions), so that pydantic reuses the
//! validator and serializer it has already built for each of them instead
//! of building them again inside the class that refers to them. Classes that
//! refer to each other in a cycle are built in the order the cycle is met.

use std::collections::{BTreeMap, BTreeSet};

use super::classes::{variant_class, VariantClasses};
use acp_ir::ir::*;
use acp_ir::naming::python_class;

/// Every class of `models.py` (structs, union variants, catch-alls), each
/// after the classes it depends on.
pub(super) fn build_order(ir: &Ir, classes: &VariantClasses) -> Vec<String> {
    let dependencies = dependencies(ir, classes);
    let mut done = BTreeSet::new();
    let mut order = Vec::new();
    for class in dependencies.keys() {
        visit(class, &dependencies, &mut done, &mut order);
    }
    order
}

/// Depth first, each class after what it depends on; `done` also marks the
/// classes being visited, which breaks cycles.
fn visit<'a>(
    class: &'a str,
    dependencies: &'a BTreeMap<String, BTreeSet<String>>,
    done: &mut BTreeSet<&'a str>,
    order: &mut Vec<String>,
) {
    if !done.insert(class) {
        return;
    }
    for dependency in dependencies.get(class).into_iter().flatten() {
        visit(dependency, dependencies, done, order);
    }
    order.push(class.to_owned());
}

/// Each class and the classes it refers to directly.
fn dependencies(ir: &Ir, classes: &VariantClasses) -> BTreeMap<String, BTreeSet<String>> {
    let mut found = BTreeMap::new();
    for (name, definition) in &ir.types {
        match &definition.kind {
            TypeKind::Struct(object) => {
                found.insert(
                    python_class(name),
                    members(ir, classes, &object.fields, &object.flatten),
                );
            }
            TypeKind::Union(union) => {
                for variant in &union.variants {
                    let Payload::Struct { base, fields } = &variant.payload else {
                        if matches!(variant.payload, Payload::Unit) {
                            found.insert(variant_class(classes, name, &variant.name), BTreeSet::new());
                        }
                        continue;
                    };
                    let flattened: Vec<String> = base
                        .iter()
                        .filter(|base| {
                            !matches!(
                                ir.get(base).map(|definition| &definition.kind),
                                Some(TypeKind::Struct(_))
                            )
                        })
                        .cloned()
                        .collect();
                    let mut needs = members(ir, classes, fields, &flattened);
                    // A variant whose payload is a struct inherits that struct's class.
                    needs.extend(
                        base.iter()
                            .filter(|base| !flattened.contains(base))
                            .map(|base| python_class(base)),
                    );
                    found.insert(variant_class(classes, name, &variant.name), needs);
                }
                if let (Some(other), UnionStyle::Tagged { .. }) = (&union.other, &union.style) {
                    found.insert(variant_class(classes, name, &other.name), BTreeSet::new());
                }
            }
            TypeKind::Alias { .. } | TypeKind::Enum(_) => {}
        }
    }
    found
}

/// The classes that the members `fields` and the flattened types `flatten` refer to.
fn members(ir: &Ir, classes: &VariantClasses, fields: &[Field], flatten: &[String]) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for field in fields {
        names.extend(
            field
                .ty
                .references()
                .into_iter()
                .map(|reference| reference.name.to_owned()),
        );
    }
    names.extend(flatten.iter().cloned());
    let mut found = BTreeSet::new();
    for name in names {
        classes_of(ir, classes, &name, &mut BTreeSet::new(), &mut found);
    }
    found
}

/// The classes a value of the named type `name` is one of: its own for a
/// struct, through aliases their targets', through unions their variants'.
fn classes_of(
    ir: &Ir,
    classes: &VariantClasses,
    name: &str,
    seen: &mut BTreeSet<String>,
    found: &mut BTreeSet<String>,
) {
    if !seen.insert(name.to_owned()) {
        return;
    }
    let refer = |expr: &TypeExpr, seen: &mut BTreeSet<String>, found: &mut BTreeSet<String>| {
        for reference in expr.references() {
            classes_of(ir, classes, reference.name, seen, found);
        }
    };
    match ir.get(name).map(|definition| &definition.kind) {
        Some(TypeKind::Struct(_)) => {
            found.insert(python_class(name));
        }
        Some(TypeKind::Alias { target }) => refer(target, seen, found),
        Some(TypeKind::Union(union)) => {
            for variant in &union.variants {
                match &variant.payload {
                    Payload::Type { ty } => refer(ty, seen, found),
                    Payload::Unit | Payload::Struct { .. } => {
                        found.insert(variant_class(classes, name, &variant.name));
                    }
                }
            }
            if let (Some(other), UnionStyle::Tagged { .. }) = (&union.other, &union.style) {
                found.insert(variant_class(classes, name, &other.name));
            }
        }
        Some(TypeKind::Enum(_)) | None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::python::classes::variant_classes;

    #[test]
    fn every_class_comes_once_and_after_the_classes_it_refers_to() {
        let ir = crate::test_support::default_ir();
        let classes = variant_classes(&ir);
        let order = build_order(&ir, &classes);
        let position: BTreeMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(index, class)| (class.as_str(), index))
            .collect();
        assert_eq!(position.len(), order.len(), "a class is built twice");
        let dependencies = dependencies(&ir, &classes);
        assert_eq!(position.len(), dependencies.len());
        let mut checked = 0;
        for (class, needs) in &dependencies {
            for need in needs {
                // Within a cycle one of the two must come first.
                let cycle = dependencies.get(need).is_some_and(|back| back.contains(class));
                assert!(
                    cycle || position[need.as_str()] < position[class.as_str()],
                    "{class} is built before {need}, which it refers to"
                );
                checked += 1;
            }
        }
        assert!(position["SessionUpdateAgentMessageChunk"] < position["SessionNotification"]);
        assert!(position["ContentBlockText"] < position["SessionUpdateAgentMessageChunk"]);
        assert!(checked > 200, "only {checked} references were checked");
    }
}
