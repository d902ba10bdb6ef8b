//! Tolerant reading opens every closed tagged union, marks it, and the
//! vector check confirms the deviation: the unknown variant it accepts is
//! one the schema refuses.

use acp_ir::ir::{TypeKind, UnionType};
use acp_ir::lower::{lower, Unsupported};
use acp_ir::{tolerant, Ir};
use acp_schema_source::{load, SourceOptions};
use acp_vectors::{validate, vectors};

fn union<'a>(ir: &'a Ir, name: &str) -> &'a UnionType {
    match &ir.get(name).unwrap().kind {
        TypeKind::Union(union) => union,
        _ => panic!("{name} is not a union"),
    }
}

#[test]
fn closed_tagged_unions_are_opened_and_marked() {
    let schema = load(&SourceOptions::default()).unwrap();
    let strict = lower(&schema, Unsupported::Fail).unwrap();
    let opened = tolerant::tolerant(&strict);
    assert!(union(&strict, "SessionUpdate").other.is_none());
    let update = union(&opened, "SessionUpdate");
    assert!(update.other.is_some() && update.tolerant);
    // Unions the schema already opens, and those with an untagged member, stay.
    for definition in strict.types.values() {
        let TypeKind::Union(before) = &definition.kind else {
            continue;
        };
        let after = union(&opened, &definition.name);
        if before.other.is_some() || before.variants.iter().any(|variant| variant.tag.is_none()) {
            assert_eq!(before, after, "{}", definition.name);
        }
    }
    let vectors = vectors::generate(&opened);
    assert!(vectors["SessionUpdate"]
        .valid
        .iter()
        .any(|vector| vector.name == "custom_variant"));
    assert!(!vectors["SessionUpdate"]
        .invalid
        .iter()
        .any(|vector| vector.name == "unknown_tag"));
    let report = validate::check(&schema.document, &opened, &vectors);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}

#[test]
fn the_vector_check_refuses_an_opened_union_the_schema_accepts() {
    let schema = load(&SourceOptions::default()).unwrap();
    let mut opened = tolerant::tolerant(&lower(&schema, Unsupported::Fail).unwrap());
    // Marking an extensible union tolerant claims a deviation there is not.
    let TypeKind::Union(extensible) = &mut opened.types.get_mut("StateUpdate").unwrap().kind else {
        panic!("StateUpdate is a union")
    };
    assert!(extensible.other.is_some());
    extensible.tolerant = true;
    let vectors = vectors::generate(&opened);
    let findings = validate::check(&schema.document, &opened, &vectors).findings;
    assert_eq!(
        findings
            .iter()
            .map(|finding| (finding.type_name.as_str(), finding.vector.as_str()))
            .collect::<Vec<_>>(),
        [("StateUpdate", "custom_variant")]
    );
}
