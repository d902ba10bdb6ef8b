//! The review stage: golden reports of each RFD against the default base
//! (re-approve with `UPDATE_SNAPSHOTS=1`), and synthetic changes with known
//! verdicts, made on the IR of a small fixture with methods in both
//! directions.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::path::Path;

use acp_codegen::ir::*;
use acp_codegen::lower::{lower, Unsupported};
use acp_codegen::review::{report, review, roles::Direction, rules::Level, rules::Rule, Finding, Review};
use acp_schema_source::{load, RfdSelection, SourceOptions};
use serde_json::json;

fn default_ir(rfds: RfdSelection) -> Ir {
    lower(&load(&SourceOptions { schema_file: None, rfds }).unwrap(), Unsupported::Fail).unwrap()
}

#[test]
fn each_rfd_against_the_default_base() {
    let base = default_ir(RfdSelection::Nothing);
    for rfd in ["session-ready", "turn-complete", "session-status"] {
        let head = default_ir(RfdSelection::Only(vec![rfd.to_owned()]));
        let reviewed = review("default", &base, &format!("default+{rfd}"), &head, Vec::new());
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("snapshots").join(format!("review-{rfd}.md"));
        snapshots::assert_snapshot(&path, &report::markdown(&reviewed));
        // Every RFD only adds, behind its capability: nothing breaks.
        assert_eq!(reviewed.worst(), Level::Safe, "{rfd}:\n{}", report::markdown(&reviewed));
        let gated = reviewed.findings.iter().filter(|finding| finding.rule.ends_with("_GATED")).count();
        assert!(gated >= 1, "{rfd} adds nothing gated");
    }
}

/// A base with a request handled by the agent and a notification handled
/// by the client, carrying closed and open enums and unions.
fn fixture() -> Ir {
    let document = json!({"$defs": {
        "PromptRequest": {"type": "object", "x-method": "session/prompt", "x-side": "agent", "properties": {
            "sessionId": {"type": "string"},
            "mode": {"$ref": "#/$defs/Mode"},
            "status": {"$ref": "#/$defs/Status"},
            "note": {"type": "string", "default": "none"}
        }, "required": ["sessionId"]},
        "PromptResponse": {"type": "object", "x-method": "session/prompt", "x-side": "agent", "properties": {
            "stopReason": {"type": "string"}
        }},
        "UpdateNotification": {"type": "object", "x-method": "session/update", "x-side": "client", "properties": {
            "update": {"$ref": "#/$defs/Update"},
            "state": {"$ref": "#/$defs/State"},
            "settings": {"$ref": "#/$defs/Settings"},
            "title": {"type": ["string", "null"]}
        }, "required": ["update"]},
        "Spare": {"type": "object", "properties": {"a": {"type": "string"}}},
        "Settings": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}},
        "State": {"anyOf": [
            {"type": "object", "properties": {"state": {"type": "string", "const": "running"}}, "required": ["state"]},
            {"type": "object", "properties": {"state": {"type": "string", "const": "idle"}}, "required": ["state"]},
            {"title": "other", "type": "object", "properties": {"state": {"type": "string"}}, "required": ["state"],
             "not": {"anyOf": [{"type": "object", "properties": {"state": {"type": "string", "enum": ["running", "idle"]}}, "required": ["state"]}]},
             "additionalProperties": true}
        ]},
        "Mode": {"oneOf": [{"type": "string", "const": "ask"}, {"type": "string", "const": "code"}]},
        "Status": {"anyOf": [{"type": "string", "const": "live"}, {"title": "other", "type": "string"}]},
        "Text": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
        "Update": {"oneOf": [
            {"type": "object", "properties": {"kind": {"type": "string", "const": "chunk"}}, "required": ["kind"], "allOf": [{"$ref": "#/$defs/Text"}]},
            {"type": "object", "properties": {"kind": {"type": "string", "const": "done"}}, "required": ["kind"]}
        ], "discriminator": {"propertyName": "kind"}}
    }});
    lower(&acp_schema_source::extend("inline.json".into(), document, &[], false).unwrap(), Unsupported::Fail).unwrap()
}

fn changed(edit: impl FnOnce(&mut Ir)) -> Review {
    changed_from(|_| {}, edit)
}

/// Reviews the fixture changed by `before` against it changed by `after` too.
fn changed_from(before: impl FnOnce(&mut Ir), after: impl FnOnce(&mut Ir)) -> Review {
    let mut base = fixture();
    before(&mut base);
    let mut head = base.clone();
    after(&mut head);
    review("base", &base, "head", &head, Vec::new())
}

fn only(review: &Review) -> &Finding {
    assert_eq!(review.findings.len(), 1, "{}", report::markdown(review));
    &review.findings[0]
}

fn directions(finding: &Finding) -> Vec<Direction> {
    finding.directions.keys().copied().collect()
}

fn structure<'a>(ir: &'a mut Ir, name: &str) -> &'a mut StructType {
    match &mut ir.types.get_mut(name).unwrap().kind {
        TypeKind::Struct(structure) => structure,
        _ => panic!("{name} is not a struct"),
    }
}

fn field<'a>(ir: &'a mut Ir, name: &str, member: &str) -> &'a mut Field {
    structure(ir, name).fields.iter_mut().find(|field| field.wire_name == member).unwrap()
}

fn enumeration<'a>(ir: &'a mut Ir, name: &str) -> &'a mut EnumType {
    match &mut ir.types.get_mut(name).unwrap().kind {
        TypeKind::Enum(enumeration) => enumeration,
        _ => panic!("{name} is not an enum"),
    }
}

fn union<'a>(ir: &'a mut Ir, name: &str) -> &'a mut UnionType {
    match &mut ir.types.get_mut(name).unwrap().kind {
        TypeKind::Union(union) => union,
        _ => panic!("{name} is not a union"),
    }
}

fn assert_finding(review: &Review, rule: Rule, level: Level, towards: &[Direction]) {
    let finding = only(review);
    assert_eq!((finding.rule, finding.level), (rule.id(), level), "{}", report::markdown(review));
    assert_eq!(directions(finding), towards, "{}", report::markdown(review));
}

#[test]
fn removing_an_optional_member_is_a_warning_where_it_travels() {
    let reviewed = changed(|ir| structure(ir, "PromptRequest").fields.retain(|field| field.wire_name != "note"));
    assert_finding(&reviewed, Rule::FieldOptionalRemoved, Level::Warning, &[Direction::ClientToAgent]);
}

#[test]
fn making_a_member_required_breaks_old_senders_in_either_direction() {
    let reviewed = changed(|ir| field(ir, "PromptRequest", "note").required = true);
    assert_finding(&reviewed, Rule::FieldNowRequired, Level::Breaking, &[Direction::ClientToAgent]);
    assert_eq!(only(&reviewed).new_reader, Level::Breaking);
    assert_eq!(only(&reviewed).old_reader, Level::Safe);
    let reviewed = changed(|ir| field(ir, "PromptResponse", "stopReason").required = true);
    assert_finding(&reviewed, Rule::FieldNowRequired, Level::Breaking, &[Direction::AgentToClient]);
}

#[test]
fn a_variant_added_to_a_closed_union_breaks_unless_gated() {
    let chunk = |ir: &mut Ir| {
        let update = union(ir, "Update");
        let mut variant = update.variants[1].clone();
        variant.tag = Some("plan".to_owned());
        variant.name = "Plan".to_owned();
        update.variants.push(variant);
    };
    let reviewed = changed(chunk);
    assert_finding(&reviewed, Rule::VariantAddedClosed, Level::Breaking, &[Direction::AgentToClient]);
    let reviewed = changed(|ir| {
        chunk(ir);
        let gate = Gate::capability(Side::Client, "ClientCapabilities", "/plan");
        ir.gated_variants.insert("Update/plan".to_owned(), gate);
    });
    assert_finding(&reviewed, Rule::VariantAddedGated, Level::Safe, &[Direction::AgentToClient]);
}

#[test]
fn a_value_added_to_an_open_enum_is_safe_and_to_a_closed_one_breaking() {
    let value = |name: &str| EnumValue { name: name.to_owned(), value: json!(name.to_lowercase()), description: None };
    let reviewed = changed(|ir| enumeration(ir, "Status").values.push(value("Paused")));
    assert_finding(&reviewed, Rule::EnumValueAddedOpen, Level::Safe, &[Direction::ClientToAgent]);
    let reviewed = changed(|ir| enumeration(ir, "Mode").values.push(value("Plan")));
    assert_finding(&reviewed, Rule::EnumValueAddedClosed, Level::Breaking, &[Direction::ClientToAgent]);
}

#[test]
fn closing_an_open_enum_breaks_new_readers() {
    let reviewed = changed(|ir| enumeration(ir, "Status").other = None);
    assert_finding(&reviewed, Rule::EnumClosed, Level::Breaking, &[Direction::ClientToAgent]);
    assert_eq!(only(&reviewed).new_reader, Level::Breaking);
}

#[test]
fn a_changed_type_breaks_and_a_changed_default_warns() {
    let reviewed = changed(|ir| field(ir, "PromptRequest", "note").ty = TypeExpr::Boolean);
    assert_finding(&reviewed, Rule::FieldTypeChanged, Level::Breaking, &[Direction::ClientToAgent]);
    let reviewed = changed(|ir| field(ir, "PromptRequest", "note").default = Some(json!("all")));
    assert_finding(&reviewed, Rule::FieldDefaultChanged, Level::Warning, &[Direction::ClientToAgent]);
}

#[test]
fn renaming_or_removing_a_method_breaks_it() {
    let reviewed = changed(|ir| {
        let mut method = ir.methods.remove("session/prompt").unwrap();
        method.name = "session/ask".to_owned();
        ir.methods.insert(method.name.clone(), method);
    });
    assert_finding(&reviewed, Rule::MethodRenamed, Level::Breaking, &[Direction::ClientToAgent, Direction::AgentToClient]);
    let reviewed = changed(|ir| {
        ir.methods.remove("session/update");
    });
    assert_finding(&reviewed, Rule::MethodRemoved, Level::Breaking, &[Direction::AgentToClient]);
}

#[test]
fn a_renamed_type_changes_no_member_that_refers_to_it() {
    let reviewed = changed(|ir| {
        let mut text = ir.types.remove("Mode").unwrap();
        text.name = "SessionMode".to_owned();
        ir.types.insert(text.name.clone(), text);
        field(ir, "PromptRequest", "mode").ty = TypeExpr::named("SessionMode");
    });
    assert_finding(&reviewed, Rule::TypeRenamed, Level::Safe, &[Direction::ClientToAgent]);
}

#[test]
fn every_rule_has_a_unique_id() {
    let mut ids: Vec<&str> = Rule::ALL.iter().map(|rule| rule.id()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), Rule::ALL.len());
}

fn gate(path: &str) -> Gate {
    Gate::capability(Side::Agent, "AgentCapabilities", path)
}

fn catch_all() -> Option<CatchAll> {
    Some(CatchAll { name: "Other".to_owned(), description: None })
}

fn optional(wire_name: &str, required: bool) -> Field {
    Field {
        wire_name: wire_name.to_owned(),
        name: acp_codegen::naming::member_name(wire_name),
        description: None,
        ty: TypeExpr::Boolean,
        required,
        nullable: false,
        default: None,
        decode: DecodeRules::default(),
        fallback: Fallback::Absent,
    }
}

type Edit = Box<dyn Fn(&mut Ir)>;

/// One edit per rule not proven above, each with the only finding it must give.
fn edits() -> Vec<(Rule, Edit, Edit)> {
    let none = || -> Edit { Box::new(|_: &mut Ir| {}) };
    let variant = |ir: &mut Ir, union_name: &str, tag: &str| {
        let target = union(ir, union_name);
        let mut added = target.variants[0].clone();
        added.tag = Some(tag.to_owned());
        added.name = naming_of(tag);
        target.variants.push(added);
    };
    vec![
        (Rule::TypeAdded, none(), Box::new(|ir| {
            let mut spare = ir.types["Spare"].clone();
            spare.name = "Extra".to_owned();
            ir.types.insert("Extra".to_owned(), spare);
            structure(ir, "Extra").fields.clear();
        })),
        (Rule::TypeRemoved, none(), Box::new(|ir| {
            ir.types.remove("Spare");
        })),
        (Rule::TypeKindChanged, none(), Box::new(|ir| ir.types.get_mut("Spare").unwrap().kind = TypeKind::Alias { target: TypeExpr::Boolean })),
        (Rule::FieldOptionalAdded, none(), Box::new(|ir| structure(ir, "PromptRequest").fields.push(optional("extra", false)))),
        (Rule::FieldRequiredAdded, none(), Box::new(|ir| structure(ir, "PromptRequest").fields.push(optional("extra", true)))),
        (Rule::FieldRequiredRemoved, none(), Box::new(|ir| structure(ir, "PromptRequest").fields.retain(|field| field.wire_name != "sessionId"))),
        (Rule::FieldNowOptional, none(), Box::new(|ir| field(ir, "PromptRequest", "sessionId").required = false)),
        (Rule::FieldNowNullable, none(), Box::new(|ir| field(ir, "PromptRequest", "note").nullable = true)),
        (Rule::FieldNoLongerNullable, none(), Box::new(|ir| field(ir, "UpdateNotification", "title").nullable = false)),
        (Rule::FieldDecodeRuleChanged, none(), Box::new(|ir| field(ir, "PromptRequest", "note").decode.default_on_null = true)),
        (Rule::FieldConstraintChanged, none(), Box::new(|ir| field(ir, "PromptRequest", "sessionId").ty = TypeExpr::String(StringType { max_length: Some(10), ..StringType::default() }))),
        (Rule::ObjectClosed, none(), Box::new(|ir| structure(ir, "PromptRequest").additional = AdditionalProperties::Denied)),
        (Rule::ObjectOpened, none(), Box::new(|ir| structure(ir, "Settings").additional = AdditionalProperties::Kept(TypeExpr::Any))),
        (Rule::EnumValueRemovedOpen, none(), Box::new(|ir| enumeration(ir, "Status").values.clear())),
        (Rule::EnumValueRemovedClosed, none(), Box::new(|ir| enumeration(ir, "Mode").values.truncate(1))),
        (Rule::EnumOpened, none(), Box::new(|ir| enumeration(ir, "Mode").other = catch_all())),
        (Rule::VariantAddedExtensible, none(), Box::new(move |ir| variant(ir, "State", "paused"))),
        (Rule::VariantRemovedExtensible, none(), Box::new(|ir| union(ir, "State").variants.truncate(1))),
        (Rule::VariantRemovedClosed, none(), Box::new(|ir| union(ir, "Update").variants.truncate(1))),
        (Rule::UnionClosed, none(), Box::new(|ir| union(ir, "State").other = None)),
        (Rule::UnionOpened, none(), Box::new(|ir| union(ir, "Update").other = catch_all())),
        (Rule::VariantGateAdded, none(), Box::new(|ir| {
            ir.gated_variants.insert("Update/done".to_owned(), gate("/done"));
        })),
        (Rule::VariantGateRemoved, Box::new(|ir| {
            ir.gated_variants.insert("Update/done".to_owned(), gate("/done"));
        }), Box::new(|ir| {
            ir.gated_variants.clear();
        })),
        (Rule::MethodAdded, none(), Box::new(|ir| {
            let mut method = ir.methods["session/prompt"].clone();
            method.name = "session/ask".to_owned();
            ir.methods.insert(method.name.clone(), method);
        })),
        (Rule::MethodAddedGated, none(), Box::new(|ir| {
            let mut method = ir.methods["session/prompt"].clone();
            method.name = "session/ask".to_owned();
            method.gate = Some(gate("/ask"));
            ir.methods.insert(method.name.clone(), method);
        })),
        (Rule::MethodSideChanged, none(), Box::new(|ir| ir.methods.get_mut("session/prompt").unwrap().request.as_mut().unwrap().side = Side::Client)),
        (Rule::MethodKindChanged, none(), Box::new(|ir| {
            let method = ir.methods.get_mut("session/update").unwrap();
            let params = method.notification.take().unwrap().params;
            method.request = Some(RequestMethod { side: Side::Client, params, result: "Spare".to_owned() });
        })),
        (Rule::MethodPayloadChanged, none(), Box::new(|ir| ir.methods.get_mut("session/prompt").unwrap().request.as_mut().unwrap().result = "Spare".to_owned())),
        (Rule::MethodGateAdded, none(), Box::new(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt")))),
        (Rule::MethodGateRemoved, Box::new(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt"))), Box::new(|ir| {
            ir.methods.get_mut("session/prompt").unwrap().gate = None;
        })),
        (Rule::GateChanged, Box::new(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt"))), Box::new(|ir| {
            ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/ask"));
        })),
    ]
}

fn naming_of(tag: &str) -> String {
    acp_codegen::naming::pascal_case(tag)
}

#[test]
fn every_rule_is_proven_by_a_change() {
    let mut proven: Vec<Rule> = vec![
        Rule::FieldOptionalRemoved,
        Rule::FieldNowRequired,
        Rule::VariantAddedClosed,
        Rule::VariantAddedGated,
        Rule::EnumValueAddedOpen,
        Rule::EnumValueAddedClosed,
        Rule::EnumClosed,
        Rule::FieldTypeChanged,
        Rule::FieldDefaultChanged,
        Rule::MethodRenamed,
        Rule::MethodRemoved,
        Rule::TypeRenamed,
    ];
    for (rule, before, after) in edits() {
        let reviewed = changed_from(before, after);
        let finding = only(&reviewed);
        assert_eq!(finding.rule, rule.id(), "{}", report::markdown(&reviewed));
        assert_eq!((finding.old_reader, finding.new_reader), (rule.old_reader(), rule.new_reader()));
        proven.push(rule);
    }
    let conflict = acp_codegen::review::Conflict { overlay: "x".to_owned(), message: "conflicts".to_owned() };
    let reviewed = review("base", &fixture(), "head", &fixture(), vec![conflict]);
    assert_eq!((only(&reviewed).rule, reviewed.worst()), (Rule::OverlayConflict.id(), Level::Breaking));
    proven.push(Rule::OverlayConflict);
    let missing: Vec<&str> = Rule::ALL.iter().filter(|rule| !proven.contains(rule)).map(|rule| rule.id()).collect();
    assert!(missing.is_empty(), "rules no test proves: {missing:?}");
}
