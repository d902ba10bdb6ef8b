//! Lowering and vectors on small schema fixtures (reviewed snapshots of the
//! IR and the vectors), on the embedded default schema, and the errors bad
//! schemas must produce. Set `UPDATE_SNAPSHOTS=1` to re-approve snapshots.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use acp_ir::inspect::summarize;
use acp_ir::ir::*;
use acp_ir::lower::{lower, Unsupported};
use acp_ir::{ErrorKind, Ir};
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
fn two_any_json_members_of_one_union_are_an_error() {
    let error = lowering_error(json!({
        "$defs": {"Two": {"anyOf": [{"description": "a"}, {"description": "b"}]}}
    }));
    assert!(error.to_string().contains("/$defs/Two/anyOf/1"), "{error}");
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
fn variant_names_do_not_repeat_their_union_name() {
    let ir = lower(&load(&SourceOptions::default()).unwrap(), Unsupported::Fail).unwrap();
    let variants = |name: &str| -> Vec<String> {
        let Some(TypeKind::Union(union)) = ir.get(name).map(|definition| &definition.kind) else {
            panic!("{name} is not a union")
        };
        union.variants.iter().map(|variant| variant.name.clone()).collect()
    };
    assert!(
        variants("AuthMethod").contains(&"Agent".to_owned()),
        "{:?}",
        variants("AuthMethod")
    );
    assert!(
        variants("McpServer").contains(&"Stdio".to_owned()),
        "{:?}",
        variants("McpServer")
    );
    assert!(
        variants("MultiSelectItems").contains(&"Titled".to_owned()),
        "{:?}",
        variants("MultiSelectItems")
    );
}

#[test]
fn the_default_ir_carries_the_rfds_methods_and_gates() {
    let ir = lower(&load(&SourceOptions::default()).unwrap(), Unsupported::Fail).unwrap();
    let ready = &ir.methods["session/ready"];
    assert_eq!(
        ready.notification,
        Some(NotificationMethod {
            side: Side::Agent,
            params: "SessionReadyNotification".into()
        })
    );
    assert_eq!(ready.gate.as_ref().unwrap().path, "/sessionCapabilities/ready");
    let status = &ir.methods["session/status"];
    assert_eq!(
        status.request,
        Some(RequestMethod {
            side: Side::Agent,
            params: "SessionStatusRequest".into(),
            result: "SessionStatusResponse".into()
        })
    );
    assert_eq!(status.gate.as_ref().unwrap().advertised_by, Side::Agent);
    assert_eq!(
        ir.methods["fs/read_text_file"].gate.as_ref().unwrap().advertised_by,
        Side::Client
    );
    assert_eq!(ir.methods["session/prompt"].gate, None);
    assert_eq!(
        ir.gated_variants["SessionUpdate/turn_complete"].path,
        "/sessionCapabilities/turnComplete"
    );
    let TypeKind::Union(update) = kind(&ir, "SessionUpdate") else {
        panic!("SessionUpdate is a union")
    };
    let turn = update
        .variants
        .iter()
        .find(|variant| variant.tag.as_deref() == Some("turn_complete"))
        .unwrap();
    assert_eq!(turn.name, "TurnComplete");
    assert_eq!(
        turn.payload,
        Payload::Struct {
            base: Some("TurnCompleteUpdate".into()),
            fields: vec![]
        }
    );
    let TypeKind::Enum(session_status) = kind(&ir, "SessionStatus") else {
        panic!("SessionStatus is an enum")
    };
    assert!(session_status.other.is_some(), "SessionStatus is open");
    let TypeKind::Union(requests) = kind(&ir, "ClientRequestParams") else {
        panic!("params is a union")
    };
    assert_eq!(requests.style, UnionStyle::ByMethod);
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
fn the_ir_round_trips_through_json() {
    let ir = lower(&load(&SourceOptions::default()).unwrap(), Unsupported::Fail).unwrap();
    let back: Ir = serde_json::from_str(&serde_json::to_string(&ir).unwrap()).unwrap();
    assert_eq!(back, ir);
}

#[test]
fn methods_the_schema_marks_unstable_are_unstable() {
    let request = |method: &str, description: &str| json!({"type": "object", "x-method": method, "x-side": "agent", "description": description});
    let ir = lower(
        &from_value(json!({"$defs": {
            "ForkRequest": request("session/fork", "**UNSTABLE**\n\nForks a session."),
            "ForkResponse": request("session/fork", "Response to `session/fork`."),
            "PromptRequest": request("session/prompt", "Sends a prompt; not **UNSTABLE**."),
            "PromptResponse": request("session/prompt", "Response to `session/prompt`.")
        }})),
        Unsupported::Fail,
    )
    .unwrap();
    assert!(ir.methods["session/fork"].unstable);
    assert!(!ir.methods["session/prompt"].unstable);
    let stable = lower(&load(&SourceOptions::default()).unwrap(), Unsupported::Fail).unwrap();
    assert!(stable.methods.values().all(|method| !method.unstable));
}

#[test]
fn the_turn_cancel_notification_is_optional_for_the_side_whose_connection_acts_on_it() {
    let ir = lower(&load(&SourceOptions::default()).unwrap(), Unsupported::Fail).unwrap();
    let turn_cancel = acp_ir::rfd::model(&ir)
        .turn_cancel
        .expect("the default schema cancels turns");
    let acted: Vec<&str> = ir
        .methods
        .values()
        .filter(|method| method.acted_on)
        .map(|method| method.name.as_str())
        .collect();
    assert_eq!(acted, [turn_cancel.notification.as_str()]);
    let method = &ir.methods[&turn_cancel.notification];
    assert_eq!(method.optional(Side::Agent), Some(Optional::ActedOn));
    assert_eq!(method.optional(Side::Client), None, "the client does not handle it");
    // The same notification without a prompt turn to cancel: no turn rules, nothing acted on.
    let alone = lower(
        &from_value(json!({"$defs": {"CancelNotification": {
            "type": "object",
            "properties": {"sessionId": {"type": "string"}},
            "required": ["sessionId"],
            "x-method": "session/cancel",
            "x-side": "agent"
        }}})),
        Unsupported::Fail,
    )
    .unwrap();
    assert!(!alone.methods["session/cancel"].acted_on);
    assert_eq!(alone.methods["session/cancel"].optional(Side::Agent), None);
}

// ---- bad schemas ------------------------------------------------------------

fn lowering_error(document: Value) -> acp_ir::CodegenError {
    lower(&from_value(document), Unsupported::Fail).unwrap_err()
}

#[test]
fn an_unknown_reference_names_its_pointer() {
    let error =
        lowering_error(json!({"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Missing"}}}}}));
    assert_eq!(error.kind, ErrorKind::UnknownReference);
    assert_eq!(error.pointer, "/$defs/A/properties/b/$ref");
    assert!(
        error.to_string().starts_with("inline.json#/$defs/A/properties/b/$ref:"),
        "{error}"
    );
}

#[test]
fn a_reference_outside_defs_is_rejected() {
    let error = lowering_error(json!({"$defs": {"A": {"$ref": "other.json#/B"}}}));
    assert_eq!(error.kind, ErrorKind::UnknownReference);
}

#[test]
fn a_reference_chain_back_to_itself_is_an_error() {
    let error = lowering_error(json!({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/A"}]}}}));
    assert_eq!(error.kind, ErrorKind::ReferenceCycle);
    assert_eq!(error.pointer, "/$defs/A");
    let error = lowering_error(json!({"$defs": {"Self": {"$ref": "#/$defs/Self"}}}));
    assert_eq!(error.kind, ErrorKind::ReferenceCycle);
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

#[test]
fn an_unsupported_keyword_is_an_error_or_a_recorded_fallback() {
    let document =
        json!({"$defs": {"A": {"type": "object", "properties": {"b": {"if": {"type": "string"}, "then": {}}}}}});
    let error = lowering_error(document.clone());
    assert_eq!(error.kind, ErrorKind::Unsupported);
    assert_eq!(error.pointer, "/$defs/A/properties/b");
    let ir = lower(&from_value(document), Unsupported::FallBack).unwrap();
    let summary = summarize(&ir);
    assert_eq!(summary.untyped.len(), 1);
    assert_eq!(summary.untyped[0].1, "/$defs/A/properties/b");
}

#[test]
fn an_unknown_decoding_rule_is_not_ignored() {
    let error = lowering_error(
        json!({"$defs": {"A": {"type": "object", "properties": {"b": {"type": "string", "x-deserialize-guess": true}}}}}),
    );
    assert_eq!(error.kind, ErrorKind::Unsupported);
    assert_eq!(error.pointer, "/$defs/A/properties/b/x-deserialize-guess");
}

#[test]
fn colliding_names_are_reported() {
    // Union variants name their payload types, so two that map to one name stay an error.
    let error = lowering_error(json!({"$defs": {"U": {"oneOf": [
        {"type": "object", "properties": {"t": {"type": "string", "const": "a_b"}}, "required": ["t"]},
        {"type": "object", "properties": {"t": {"type": "string", "const": "aB"}}, "required": ["t"]}
    ]}}}));
    assert_eq!(error.kind, ErrorKind::NameCollision);
    assert_eq!(error.pointer, "/$defs/U/oneOf/1");
}

fn renamed(ir: &acp_ir::ir::Ir) -> Vec<(String, String, String)> {
    ir.renamed
        .iter()
        .map(|rename| (rename.pointer.clone(), rename.wire.clone(), rename.name.clone()))
        .collect()
}

#[test]
fn names_that_collide_are_numbered_by_one_rule() {
    let lowered = |document: Value| lower(&from_value(document), Unsupported::Fail).unwrap();
    // Definitions: the first wire name in byte order keeps the name; a later one gets the first numbered name no other takes.
    let ir = lowered(
        json!({"$defs": {"tool_kind": {"type": "string"}, "ToolKind": {"type": "string"}, "ToolKind2": {"type": "string"}}}),
    );
    assert_eq!(
        ir.types.keys().collect::<Vec<_>>(),
        ["ToolKind", "ToolKind2", "ToolKind3"]
    );
    assert_eq!(ir.types["ToolKind3"].definition.as_deref(), Some("tool_kind"));
    assert_eq!(
        renamed(&ir),
        [(
            "/$defs/tool_kind".to_owned(),
            "tool_kind".to_owned(),
            "ToolKind3".to_owned()
        )]
    );
    // Members, distinct in every language: `self` and `Self` are both `self_` in Rust and Python.
    let ir = lowered(
        json!({"$defs": {"Me": {"type": "object", "properties": {"self": {"type": "string"}, "Self": {"type": "string"}, "fooBar": {}, "foo_bar": {}}}}}),
    );
    let TypeKind::Struct(structure) = &ir.types["Me"].kind else {
        panic!("{:?}", ir.types["Me"])
    };
    let names: Vec<(&str, &str)> = structure
        .fields
        .iter()
        .map(|field| (field.wire_name.as_str(), field.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("self", "self_2"),
            ("Self", "self"),
            ("fooBar", "foo_bar"),
            ("foo_bar", "foo_bar_2")
        ]
    );
    assert_eq!(renamed(&ir).len(), 2);
    // Enum constants.
    let ir = lowered(json!({"$defs": {"E": {"type": "string", "enum": ["a_b", "aB"]}}}));
    let TypeKind::Enum(enumeration) = &ir.types["E"].kind else {
        panic!("{:?}", ir.types["E"])
    };
    assert_eq!(
        enumeration
            .values
            .iter()
            .map(|value| value.name.as_str())
            .collect::<Vec<_>>(),
        ["AB2", "AB"]
    );
    // The same schema gives the same names whatever the order of its members.
    let forward = lowered(json!({"$defs": {"Me": {"type": "object", "properties": {"b": {}, "B": {}}}}}));
    let backward = lowered(json!({"$defs": {"Me": {"type": "object", "properties": {"B": {}, "b": {}}}}}));
    assert_eq!(renamed(&forward), renamed(&backward));
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    let mut node = json!({"type": "string"});
    for _ in 0..200 {
        node = json!({"type": "array", "items": node});
    }
    let error = lowering_error(json!({"$defs": {"Deep": node}}));
    assert_eq!(error.kind, ErrorKind::Malformed);
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
