//! Lowering and vectors together on small schema fixtures (reviewed
//! snapshots of the IR and the vectors), on the embedded default schema and
//! on a recursive type. Set `UPDATE_SNAPSHOTS=1` to re-approve snapshots.
//! Lowering alone (bad schemas, names, the default schema's methods) is
//! tested in `codegen/ir/tests/lowering.rs`.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acp_ir::inspect::summarize;
use acp_ir::ir::*;
use acp_ir::lower::{lower, Unsupported};
use acp_ir::Ir;
use acp_schema_source::{load, ExtendedSchema, SourceOptions};
use acp_vectors::{validate, vectors};
use serde_json::{json, Value};

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A fixture, named by its path relative to `codegen/tests` so snapshots do
/// not depend on where the repository is checked out.
fn fixture(name: &str) -> ExtendedSchema {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join(name)).unwrap();
    acp_schema_source::extend(format!("fixtures/{name}"), document, &[], false).unwrap()
}

fn from_value(document: Value) -> ExtendedSchema {
    acp_schema_source::extend("inline.json".into(), document, &[], false).unwrap()
}

fn assert_snapshot(name: &str, actual: &str) {
    snapshots::assert_snapshot(&here().join("snapshots").join(name), actual);
}

fn check_fixture(name: &str) -> Ir {
    let schema = fixture(&format!("{name}.json"));
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    assert_snapshot(
        &format!("{name}.ir.json"),
        &(serde_json::to_string_pretty(&ir).unwrap() + "\n"),
    );
    let vectors = vectors::generate(&ir);
    let rendered: Vec<Value> = vectors
        .values()
        .map(|file| serde_json::to_value(file).unwrap())
        .collect();
    assert_snapshot(
        &format!("{name}.vectors.json"),
        &(serde_json::to_string_pretty(&rendered).unwrap() + "\n"),
    );
    let report = validate::check(&schema.document, &ir, &vectors);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    ir
}

fn kind<'a>(ir: &'a Ir, name: &str) -> &'a TypeKind {
    &ir.get(name).unwrap_or_else(|| panic!("no type {name}")).kind
}

#[test]
fn enums_and_unions_fixture() {
    let ir = check_fixture("open-enum-and-unions");
    let TypeKind::Enum(status) = kind(&ir, "Status") else {
        panic!("Status is an enum")
    };
    assert_eq!(
        status
            .values
            .iter()
            .map(|value| value.name.as_str())
            .collect::<Vec<_>>(),
        ["Live", "NotFound"]
    );
    assert_eq!(status.other.as_ref().map(|other| other.name.as_str()), Some("Other"));
    let TypeKind::Enum(kind_enum) = kind(&ir, "Kind") else {
        panic!("Kind is an enum")
    };
    assert!(kind_enum.other.is_none(), "a oneOf of constants is closed");
    let TypeKind::Enum(code) = kind(&ir, "Code") else {
        panic!("Code is an enum")
    };
    assert_eq!(
        code.repr,
        EnumRepr::Integer {
            format: IntegerFormat::Int32
        }
    );
    assert_eq!(code.values[0].name, "ParseError");
    assert_eq!(code.other.as_ref().unwrap().name, "Other");
    let TypeKind::Union(update) = kind(&ir, "Update") else {
        panic!("Update is a union")
    };
    assert_eq!(
        update.style,
        UnionStyle::Tagged {
            property: "kind".into()
        }
    );
    let names: Vec<&str> = update.variants.iter().map(|variant| variant.name.as_str()).collect();
    assert_eq!(names, ["AgentMessageChunk", "UserMessageChunk", "Done"]);
    assert_eq!(
        update.variants[0].payload, update.variants[1].payload,
        "`allOf` wrapper and `$ref` sibling lower alike"
    );
    assert_eq!(update.variants[2].payload, Payload::Unit);
    let TypeKind::Union(extensible) = kind(&ir, "Extensible") else {
        panic!("Extensible is a union")
    };
    assert!(extensible.other.is_some());
    let TypeKind::Union(id) = kind(&ir, "Id") else {
        panic!("Id is a union")
    };
    assert_eq!(id.style, UnionStyle::Untagged);
    assert_eq!(
        id.variants
            .iter()
            .map(|variant| variant.name.as_str())
            .collect::<Vec<_>>(),
        ["Null", "Number", "Str"]
    );
}

#[test]
fn an_annotation_only_union_member_is_an_any_json_variant_tried_last() {
    let ir = check_fixture("any-json-member");
    let names = |union: &str| {
        let TypeKind::Union(union) = kind(&ir, union) else {
            panic!("{union} is a union")
        };
        assert_eq!(union.style, UnionStyle::Untagged);
        union
            .variants
            .iter()
            .map(|variant| {
                let any = matches!(&variant.payload, Payload::Type { ty: TypeExpr::Any });
                (variant.name.clone(), any)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names("AgentNotification"),
        [("SessionNotification".to_owned(), false), ("Other".to_owned(), true)]
    );
    assert_eq!(
        names("ClientNotification"),
        [
            ("Other".to_owned(), false),
            ("String".to_owned(), false),
            ("Other2".to_owned(), true)
        ]
    );
}

#[test]
fn fields_fixture() {
    let ir = check_fixture("fields");
    let TypeKind::Struct(holder) = kind(&ir, "Holder") else {
        panic!("Holder is a struct")
    };
    let field = |name: &str| holder.fields.iter().find(|field| field.wire_name == name).unwrap();
    assert_eq!(field("sessionId").ty, TypeExpr::named("SessionId"));
    assert_eq!(
        field("wrapped").ty,
        field("sessionId").ty,
        "`allOf` wrapper and `$ref` sibling lower alike"
    );
    assert!(
        field("maybeAnyOf").nullable && field("maybeTyped").nullable,
        "both nullable shapes"
    );
    assert_eq!(field("maybeAnyOf").ty, TypeExpr::named("Item"));
    assert!(field("maybeAnyOf").decode.default_on_error);
    assert_eq!(field("enabled").default, Some(json!(false)));
    assert_eq!(field("enabled").fallback, Fallback::Absent);
    let items = field("items");
    assert!(items.decode.skip_invalid_items && items.required);
    assert_eq!(items.fallback, Fallback::Value(json!([])));
    assert!(field("args").decode.default_on_null);
    assert_eq!(field("raw").ty, TypeExpr::Any, "`{{}}` is any JSON on purpose");
    assert_eq!(
        field("env").ty,
        TypeExpr::Map {
            values: Box::new(TypeExpr::String(StringType::default()))
        }
    );
    let TypeKind::Alias {
        target: TypeExpr::Integer(version),
    } = kind(&ir, "Version")
    else {
        panic!("Version is an integer alias")
    };
    assert_eq!(version.format, IntegerFormat::Uint16);
    assert_eq!(version.maximum, Some(65535.into()));
}

#[test]
fn lenient_vectors_carry_the_decoded_value() {
    let ir = check_fixture("fields");
    let files = vectors::generate(&ir);
    let lenient: Vec<&str> = files["Holder"]
        .lenient
        .iter()
        .map(|vector| vector.name.as_str())
        .collect();
    for expected in [
        "default_on_error_enabled",
        "default_on_error_items",
        "skip_invalid_items_items",
        "default_on_null_args",
    ] {
        assert!(lenient.contains(&expected), "{expected} missing from {lenient:?}");
    }
    let skip = files["Holder"]
        .lenient
        .iter()
        .find(|vector| vector.name == "skip_invalid_items_items")
        .unwrap();
    assert_eq!(skip.value["items"].as_array().unwrap().len(), 2);
    assert_eq!(skip.expected["items"].as_array().unwrap().len(), 1);
    let null_args = files["Holder"]
        .lenient
        .iter()
        .find(|vector| vector.name == "default_on_null_args")
        .unwrap();
    assert_eq!(
        null_args.expected["args"],
        json!([]),
        "a required field falls back to its empty value"
    );
    let invalid: Vec<&str> = files["Holder"]
        .invalid
        .iter()
        .map(|vector| vector.name.as_str())
        .collect();
    assert!(
        invalid.contains(&"missing_sessionId") && invalid.contains(&"wrong_type_sessionId"),
        "{invalid:?}"
    );
    assert!(files["Version"]
        .invalid
        .iter()
        .any(|vector| vector.name == "above_maximum" && vector.value == json!(65536)));
}

// ---- the embedded default schema ---------------------------------------

#[test]
fn the_default_schema_lowers_without_fallbacks_and_every_type_has_valid_vectors() {
    let schema = load(&SourceOptions::default()).unwrap();
    let ir = lower(&schema, Unsupported::FallBack).unwrap();
    let summary = summarize(&ir);
    assert!(summary.untyped.is_empty(), "{:#?}", summary.untyped);
    let vectors = vectors::generate(&ir);
    for definition in ir.types.values() {
        assert!(
            !vectors[&definition.name].valid.is_empty(),
            "{} has no valid vector",
            definition.name
        );
    }
    let report = validate::check(&schema.document, &ir, &vectors);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(report.checked > 1000, "checked {}", report.checked);
}

#[test]
fn the_validator_rejects_an_invalid_vector_that_names_the_wrong_pointer() {
    let schema = load(&SourceOptions::default()).unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    let mut vectors = vectors::generate(&ir);
    let file = vectors.get_mut("SessionNotification").unwrap();
    let missing = file
        .invalid
        .iter_mut()
        .find(|vector| vector.name == "missing_sessionId")
        .unwrap();
    assert_eq!(missing.pointer, "/sessionId");
    missing.pointer = "/update".to_owned();
    let wrong = file
        .invalid
        .iter_mut()
        .find(|vector| vector.name == "wrong_type_update")
        .unwrap();
    assert_eq!(wrong.pointer, "/update");
    wrong.pointer = "/sessionId".to_owned();
    let findings: Vec<String> = validate::check(&schema.document, &ir, &vectors)
        .findings
        .into_iter()
        .map(|finding| finding.vector)
        .collect();
    assert_eq!(findings, ["missing_sessionId", "wrong_type_update"]);
}

#[test]
fn lowering_is_deterministic() {
    let schema = load(&SourceOptions::default()).unwrap();
    let first = serde_json::to_string(&lower(&schema, Unsupported::Fail).unwrap()).unwrap();
    let second = serde_json::to_string(&lower(&schema, Unsupported::Fail).unwrap()).unwrap();
    assert_eq!(first, second);
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    assert_eq!(
        serde_json::to_string(&vectors::generate(&ir)).unwrap(),
        serde_json::to_string(&vectors::generate(&ir)).unwrap()
    );
}

#[test]
fn a_recursive_type_through_a_field_is_fine() {
    let schema = from_value(
        json!({"$defs": {"Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}}}}}),
    );
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    let vectors = vectors::generate(&ir);
    assert!(validate::check(&schema.document, &ir, &vectors).findings.is_empty());
}

/// The hostile fixture (`fixtures/hostile.overlay.json`, applied to the
/// default base): how its names, renames and shapes lower. `cargo xtask
/// test` builds its bindings in every language and runs their suites.
#[test]
fn hostile_fixture() {
    let text = std::fs::read_to_string(here().join("fixtures").join("hostile.overlay.json")).unwrap();
    let overlay = acp_schema_source::overlay::Overlay::parse("fixtures/hostile.overlay.json", &text).unwrap();
    let schema = acp_schema_source::extend(
        "default+hostile".into(),
        acp_schema_source::upstream::default_schema(),
        &[overlay],
        false,
    )
    .unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    let hostile: BTreeMap<&String, &TypeDef> = ir
        .types
        .iter()
        .filter(|(name, _)| name.starts_with("Hostile"))
        .collect();
    let snapshot = json!({"types": hostile, "renamed": ir.renamed});
    assert_snapshot(
        "hostile.ir.json",
        &(serde_json::to_string_pretty(&snapshot).unwrap() + "\n"),
    );
    let vectors = vectors::generate(&ir);
    let report = validate::check(&schema.document, &ir, &vectors);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
}
