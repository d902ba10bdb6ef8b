//! The review stage: golden reports of each RFD against the default base
//! (re-approve with `UPDATE_SNAPSHOTS=1`), and synthetic changes with known
//! verdicts, made on the schema of a small fixture with methods in both
//! directions (methods and gates on its IR), each breaking verdict with the
//! witness message that proves it.

#[path = "../../tests/support/snapshots.rs"]
mod snapshots;

use std::path::Path;

use acp_ir::ir::*;
use acp_ir::lower::{lower, Unsupported};
use acp_review::bump::{self, Bump};
use acp_review::tiers::Tier;
use acp_review::witness::{Reader, Schema};
use acp_review::{report, review, roles::Direction, rules::Level, rules::Rule, Finding, Review};
use acp_schema_source::{load, ExtendedSchema, RfdSelection, SourceOptions};
use serde_json::{json, Value};

fn default_schema(rfds: RfdSelection) -> (ExtendedSchema, Ir) {
    let schema = load(&SourceOptions {
        schema_file: None,
        rfds,
    })
    .unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    (schema, ir)
}

#[test]
fn each_rfd_against_the_default_base() {
    let (base_schema, base) = default_schema(RfdSelection::Nothing);
    for rfd in ["session-ready", "turn-complete", "session-status"] {
        let (head_schema, head) = default_schema(RfdSelection::Only(vec![rfd.to_owned()]));
        let reviewed = review(
            "default",
            Schema {
                document: &base_schema.document,
                ir: &base,
            },
            &format!("default+{rfd}"),
            Schema {
                document: &head_schema.document,
                ir: &head,
            },
            Vec::new(),
        )
        .unwrap();
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests")
            .join("snapshots")
            .join(format!("review-{rfd}.md"));
        snapshots::assert_snapshot(&path, &report::markdown(&reviewed));
        // Every RFD only adds, behind its capability: nothing breaks.
        assert_eq!(reviewed.worst(), Level::Safe, "{rfd}:\n{}", report::markdown(&reviewed));
        let gated = reviewed
            .findings
            .iter()
            .filter(|finding| finding.rule.ends_with("_GATED"))
            .count();
        assert!(gated >= 1, "{rfd} adds nothing gated");
    }
}

/// A base with a request handled by the agent and a notification handled
/// by the client, carrying closed and open enums and unions.
fn fixture() -> Value {
    json!({"$defs": {
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
        "Stop": {"type": "object", "properties": {"stopReason": {"type": "integer"}}, "required": ["stopReason"]},
        "ClientRequest": {"anyOf": [{"$ref": "#/$defs/PromptRequest", "title": "PromptRequest"}, {"title": "ExtMethodRequest"}]},
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
    }})
}

fn lowered(document: &Value) -> Ir {
    lower(
        &acp_schema_source::extend("inline.json".into(), document.clone(), &[], false).unwrap(),
        Unsupported::Fail,
    )
    .unwrap()
}

/// A change of the fixture: of its document (the messages change), then of
/// its IR (methods and gates, which witnesses read from the method table).
struct Edit {
    document: Box<dyn Fn(&mut Value)>,
    ir: Box<dyn Fn(&mut Ir)>,
}

fn document(edit: impl Fn(&mut Value) + 'static) -> Edit {
    Edit {
        document: Box::new(edit),
        ir: Box::new(|_| {}),
    }
}

fn model(edit: impl Fn(&mut Ir) + 'static) -> Edit {
    Edit {
        document: Box::new(|_| {}),
        ir: Box::new(edit),
    }
}

fn none() -> Edit {
    model(|_| {})
}

fn changed(edit: Edit) -> Review {
    changed_from(none(), edit)
}

/// Reviews the fixture changed by `before` against it changed by `after` too.
fn changed_from(before: Edit, after: Edit) -> Review {
    let mut base_document = fixture();
    (before.document)(&mut base_document);
    let mut head_document = base_document.clone();
    (after.document)(&mut head_document);
    let (mut base, mut head) = (lowered(&base_document), lowered(&head_document));
    (before.ir)(&mut base);
    (before.ir)(&mut head);
    (after.ir)(&mut head);
    review(
        "base",
        Schema {
            document: &base_document,
            ir: &base,
        },
        "head",
        Schema {
            document: &head_document,
            ir: &head,
        },
        Vec::new(),
    )
    .unwrap()
}

fn only(review: &Review) -> &Finding {
    assert_eq!(review.findings.len(), 1, "{}", report::markdown(review));
    &review.findings[0]
}

fn directions(finding: &Finding) -> Vec<Direction> {
    finding.directions.keys().copied().collect()
}

fn definition<'a>(document: &'a mut Value, name: &str) -> &'a mut Value {
    &mut document["$defs"][name]
}

fn property<'a>(document: &'a mut Value, name: &str, member: &str) -> &'a mut Value {
    &mut document["$defs"][name]["properties"][member]
}

fn require(document: &mut Value, name: &str, member: &str) {
    let required = document["$defs"][name]
        .as_object_mut()
        .unwrap()
        .entry("required")
        .or_insert(json!([]));
    required.as_array_mut().unwrap().push(json!(member));
}

fn unrequire(document: &mut Value, name: &str, member: &str) {
    document["$defs"][name]["required"]
        .as_array_mut()
        .unwrap()
        .retain(|required| required != member);
}

fn branches<'a>(document: &'a mut Value, name: &str, keyword: &str) -> &'a mut Vec<Value> {
    document["$defs"][name][keyword].as_array_mut().unwrap()
}

/// The finding is the only one, of `rule` at `level`, travelling `towards`,
/// and every reader it breaks has a witness the reader's schema rejects.
fn assert_finding(review: &Review, rule: Rule, level: Level, towards: &[Direction]) {
    let finding = only(review);
    assert_eq!(
        (finding.rule, finding.level),
        (rule.id(), level),
        "{}",
        report::markdown(review)
    );
    assert_eq!(directions(finding), towards, "{}", report::markdown(review));
    assert_witnessed(finding, review);
}

fn assert_witnessed(finding: &Finding, review: &Review) {
    let breaking: Vec<Reader> = [(Reader::Old, finding.old_reader), (Reader::New, finding.new_reader)]
        .into_iter()
        .filter(|(_, level)| *level == Level::Breaking)
        .map(|(reader, _)| reader)
        .collect();
    let witnessed: Vec<Reader> = finding.witnesses.iter().map(|witness| witness.reader).collect();
    assert_eq!(witnessed, breaking, "{}", report::markdown(review));
}

#[test]
fn removing_an_optional_member_is_a_warning_where_it_travels() {
    let reviewed = changed(document(|document| {
        definition(document, "PromptRequest")["properties"]
            .as_object_mut()
            .unwrap()
            .remove("note");
    }));
    assert_finding(
        &reviewed,
        Rule::FieldOptionalRemoved,
        Level::Warning,
        &[Direction::ClientToAgent],
    );
}

#[test]
fn making_a_member_required_breaks_old_senders_in_either_direction() {
    let reviewed = changed(document(|document| require(document, "PromptRequest", "note")));
    assert_finding(
        &reviewed,
        Rule::FieldNowRequired,
        Level::Breaking,
        &[Direction::ClientToAgent],
    );
    assert_eq!(
        (only(&reviewed).old_reader, only(&reviewed).new_reader),
        (Level::Safe, Level::Breaking)
    );
    let witness = &only(&reviewed).witnesses[0];
    assert_eq!(
        (witness.carried_by.as_str(), witness.pointer.as_str()),
        ("session/prompt params", "/params")
    );
    assert!(witness.message["params"].get("note").is_none(), "{:?}", witness.message);
    let reviewed = changed(document(|document| require(document, "PromptResponse", "stopReason")));
    assert_finding(
        &reviewed,
        Rule::FieldNowRequired,
        Level::Breaking,
        &[Direction::AgentToClient],
    );
}

#[test]
fn a_variant_added_to_a_closed_union_breaks_unless_gated() {
    let plan = |document: &mut Value| {
        branches(document, "Update", "oneOf").push(json!({"type": "object", "properties": {"kind": {"type": "string", "const": "plan"}}, "required": ["kind"]}));
    };
    let reviewed = changed(document(plan));
    assert_finding(
        &reviewed,
        Rule::VariantAddedClosed,
        Level::Breaking,
        &[Direction::AgentToClient],
    );
    assert_eq!(
        only(&reviewed).witnesses[0].message["params"]["update"],
        json!({"kind": "plan"})
    );
    let reviewed = changed(Edit {
        document: Box::new(plan),
        ir: Box::new(|ir| {
            ir.gated_variants.insert(
                "Update/plan".to_owned(),
                Gate::capability(Side::Client, "ClientCapabilities", "/plan"),
            );
        }),
    });
    assert_finding(
        &reviewed,
        Rule::VariantAddedGated,
        Level::Safe,
        &[Direction::AgentToClient],
    );
}

#[test]
fn a_message_only_a_gate_the_reader_lacks_lets_through_is_no_witness() {
    // `Settings` becomes a union whose new variant (`b: "x"`) the old,
    // closed object refuses: breaking, unless the writer gates the variant
    // where `session/update` carries it.
    let widened = |document: &mut Value| {
        let settings = definition(document, "Settings").clone();
        let definitions = document["$defs"].as_object_mut().unwrap();
        definitions.insert("Narrow".to_owned(), settings);
        definitions.insert(
            "Wide".to_owned(),
            json!({"type": "object", "additionalProperties": false,
                   "properties": {"b": {"type": "string", "const": "x"}}, "required": ["b"]}),
        );
        *definition(document, "Settings") = json!({"anyOf": [
            {"$ref": "#/$defs/Narrow", "title": "narrow"},
            {"$ref": "#/$defs/Wide", "title": "wide"}
        ]});
    };
    let reviewed = changed(document(widened));
    let kind_changed = reviewed
        .findings
        .iter()
        .find(|finding| finding.rule == Rule::TypeKindChanged.id())
        .expect("the object became a union");
    assert_eq!(kind_changed.level, Level::Breaking);
    assert_eq!(
        kind_changed.witnesses[0].message["params"]["settings"],
        json!({"b": "x"})
    );
    let reviewed = changed(Edit {
        document: Box::new(widened),
        ir: Box::new(|ir| {
            let mut gate = gate("/wide");
            gate.sites.push(GateSite {
                method: "session/update".to_owned(),
                pointer: "/settings".to_owned(),
                variant: Some(VariantTag {
                    property: Some("b".to_owned()),
                    value: "x".to_owned(),
                }),
            });
            ir.gated_variants.insert("Settings/wide".to_owned(), gate);
        }),
    });
    let kind_changed = reviewed
        .findings
        .iter()
        .find(|finding| finding.rule == Rule::TypeKindChanged.id())
        .expect("the object became a union");
    assert_ne!(kind_changed.level, Level::Breaking, "{:?}", kind_changed.witnesses);
    assert!(kind_changed.witnesses.is_empty());
}

#[test]
fn a_value_added_to_an_open_enum_is_safe_and_to_a_closed_one_breaking() {
    let reviewed = changed(document(|document| {
        branches(document, "Status", "anyOf").insert(0, json!({"type": "string", "const": "paused"}))
    }));
    assert_finding(
        &reviewed,
        Rule::EnumValueAddedOpen,
        Level::Safe,
        &[Direction::ClientToAgent],
    );
    let reviewed = changed(document(|document| {
        branches(document, "Mode", "oneOf").push(json!({"type": "string", "const": "plan"}))
    }));
    assert_finding(
        &reviewed,
        Rule::EnumValueAddedClosed,
        Level::Breaking,
        &[Direction::ClientToAgent],
    );
    assert_eq!(only(&reviewed).witnesses[0].pointer, "/params/mode");
}

#[test]
fn closing_an_open_enum_breaks_new_readers() {
    let reviewed = changed(document(|document| branches(document, "Status", "anyOf").truncate(1)));
    assert_finding(
        &reviewed,
        Rule::EnumClosed,
        Level::Breaking,
        &[Direction::ClientToAgent],
    );
    assert_eq!(only(&reviewed).new_reader, Level::Breaking);
}

#[test]
fn a_changed_type_breaks_and_a_changed_default_warns() {
    let reviewed = changed(document(|document| {
        *property(document, "PromptRequest", "note") = json!({"type": "boolean", "default": true})
    }));
    let finding = reviewed
        .findings
        .iter()
        .find(|finding| finding.rule == Rule::FieldTypeChanged.id())
        .unwrap();
    assert_eq!(finding.level, Level::Breaking);
    assert_witnessed(finding, &reviewed);
    let reviewed = changed(document(|document| {
        property(document, "PromptRequest", "note")["default"] = json!("all")
    }));
    assert_finding(
        &reviewed,
        Rule::FieldDefaultChanged,
        Level::Warning,
        &[Direction::ClientToAgent],
    );
}

/// The same values written another way: an alias of `string` for `string`,
/// an inline object for a `$ref` to one with the same members, a title
/// added to a union member, a required member moved into every branch,
/// an open union whose catch-all is the old type. No message tells the two
/// apart, so nothing breaks (the bindings may still change: a warning).
#[test]
fn a_change_of_form_alone_is_equivalent() {
    let forms: Vec<(&str, Edit)> = vec![
        (
            "alias",
            document(|document| {
                definition(document, "SessionId")["type"] = json!("string");
                *property(document, "PromptRequest", "sessionId") = json!({"$ref": "#/$defs/SessionId"});
            }),
        ),
        (
            "inline to $ref",
            document(|document| {
                let text = definition(document, "Text").clone();
                branches(document, "Update", "oneOf")[0] = json!({"type": "object", "properties": {"kind": {"type": "string", "const": "chunk"}, "text": text["properties"]["text"]}, "required": ["kind", "text"]});
            }),
        ),
        (
            "title",
            document(|document| branches(document, "Mode", "oneOf")[0]["title"] = json!("Ask")),
        ),
        (
            "required in every branch",
            document(|document| {
                unrequire(document, "PromptRequest", "sessionId");
                definition(document, "PromptRequest")["properties"]
                    .as_object_mut()
                    .unwrap()
                    .remove("sessionId");
                definition(document, "PromptRequest")["anyOf"] = json!([
                    {"type": "object", "properties": {"type": {"type": "string", "const": "ask"}, "sessionId": {"type": "string"}}, "required": ["type", "sessionId"]},
                    {"type": "object", "title": "plain", "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"]}
                ]);
            }),
        ),
        (
            "union opened by its old type",
            document(|document| {
                *property(document, "PromptResponse", "stopReason") =
                    json!({"anyOf": [{"type": "string", "const": "end_turn"}, {"title": "other", "type": "string"}]});
            }),
        ),
    ];
    for (form, edit) in forms {
        let reviewed = changed(edit);
        assert!(
            reviewed.worst() < Level::Breaking,
            "{form}:\n{}",
            report::markdown(&reviewed)
        );
        assert!(
            reviewed.findings.iter().all(|finding| finding.witnesses.is_empty()),
            "{form}"
        );
    }
}

#[test]
fn renaming_or_removing_a_method_breaks_it() {
    let reviewed = changed(model(|ir| {
        let mut method = ir.methods.remove("session/prompt").unwrap();
        method.name = "session/ask".to_owned();
        ir.methods.insert(method.name.clone(), method);
    }));
    assert_finding(
        &reviewed,
        Rule::MethodRenamed,
        Level::Breaking,
        &[Direction::ClientToAgent, Direction::AgentToClient],
    );
    let witnesses = &only(&reviewed).witnesses;
    assert_eq!(
        (
            witnesses[0].message["method"].as_str(),
            witnesses[1].message["method"].as_str()
        ),
        (Some("session/ask"), Some("session/prompt"))
    );
    let reviewed = changed(model(|ir| {
        ir.methods.remove("session/update");
    }));
    assert_finding(
        &reviewed,
        Rule::MethodRemoved,
        Level::Breaking,
        &[Direction::AgentToClient],
    );
    assert_eq!(only(&reviewed).witnesses[0].pointer, "/method");
}

/// A routing union (every alternative a method payload) changes with its
/// methods: a method added is one finding, not one more per union.
#[test]
fn a_method_added_is_one_finding() {
    let reviewed = changed(document(|document| {
        document["$defs"]["AskRequest"] =
            json!({"type": "object", "x-method": "session/ask", "x-side": "agent", "properties": {}});
        document["$defs"]["AskResponse"] =
            json!({"type": "object", "x-method": "session/ask", "x-side": "agent", "properties": {}});
        branches(document, "ClientRequest", "anyOf")
            .insert(1, json!({"$ref": "#/$defs/AskRequest", "title": "AskRequest"}));
    }));
    let rules: Vec<(&str, &str)> = reviewed
        .findings
        .iter()
        .map(|finding| (finding.rule, finding.subject.as_str()))
        .collect();
    assert_eq!(
        rules,
        [
            ("TYPE_ADDED", "AskRequest"),
            ("TYPE_ADDED", "AskResponse"),
            ("METHOD_ADDED", "method session/ask")
        ],
        "{}",
        report::markdown(&reviewed)
    );
}

#[test]
fn a_renamed_type_changes_no_member_that_refers_to_it() {
    let reviewed = changed(document(|document| {
        let mode = document["$defs"].as_object_mut().unwrap().remove("Mode").unwrap();
        document["$defs"]["SessionMode"] = mode;
        *property(document, "PromptRequest", "mode") = json!({"$ref": "#/$defs/SessionMode"});
    }));
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

fn state_variants(document: &mut Value, tags: &[&str]) {
    let other = branches(document, "State", "anyOf").pop().unwrap();
    let variants = branches(document, "State", "anyOf");
    variants.clear();
    for tag in tags {
        variants.push(
            json!({"type": "object", "properties": {"state": {"type": "string", "const": tag}}, "required": ["state"]}),
        );
    }
    let mut other = other;
    other["not"]["anyOf"][0]["properties"]["state"]["enum"] = json!(tags);
    variants.push(other);
}

/// One edit per rule not proven above, each with the only finding it must give.
fn edits() -> Vec<(Rule, Edit, Edit)> {
    let add_method = |ir: &mut Ir, gated: bool| {
        let mut method = ir.methods["session/prompt"].clone();
        method.name = "session/ask".to_owned();
        method.gate = gated.then(|| gate("/ask"));
        ir.methods.insert(method.name.clone(), method);
    };
    vec![
        (
            Rule::TypeAdded,
            none(),
            document(|document| document["$defs"]["Extra"] = json!({"type": "object", "properties": {}})),
        ),
        (
            Rule::TypeRemoved,
            none(),
            document(|document| {
                document["$defs"].as_object_mut().unwrap().remove("Spare");
            }),
        ),
        (
            Rule::TypeKindChanged,
            none(),
            document(|document| *definition(document, "Settings") = json!({"type": "boolean"})),
        ),
        (
            Rule::FieldOptionalAdded,
            none(),
            document(|document| *property(document, "PromptRequest", "extra") = json!({"type": "boolean"})),
        ),
        (
            Rule::FieldRequiredAdded,
            none(),
            document(|document| {
                *property(document, "PromptRequest", "extra") = json!({"type": "boolean"});
                require(document, "PromptRequest", "extra");
            }),
        ),
        (
            Rule::FieldRequiredRemoved,
            none(),
            document(|document| {
                definition(document, "PromptRequest")["properties"]
                    .as_object_mut()
                    .unwrap()
                    .remove("sessionId");
                unrequire(document, "PromptRequest", "sessionId");
            }),
        ),
        (
            Rule::FieldNowOptional,
            none(),
            document(|document| unrequire(document, "PromptRequest", "sessionId")),
        ),
        (
            Rule::FieldNowNullable,
            none(),
            document(|document| property(document, "PromptRequest", "note")["type"] = json!(["string", "null"])),
        ),
        (
            Rule::FieldNoLongerNullable,
            none(),
            document(|document| property(document, "UpdateNotification", "title")["type"] = json!("string")),
        ),
        (
            Rule::FieldDecodeRuleChanged,
            none(),
            document(|document| {
                property(document, "PromptRequest", "note")["x-deserialize-default-on-null"] = json!(true)
            }),
        ),
        (
            Rule::FieldConstraintChanged,
            none(),
            document(|document| property(document, "PromptRequest", "sessionId")["maxLength"] = json!(10)),
        ),
        (
            Rule::ObjectClosed,
            none(),
            document(|document| definition(document, "PromptRequest")["additionalProperties"] = json!(false)),
        ),
        (
            Rule::ObjectOpened,
            none(),
            document(|document| {
                definition(document, "Settings")
                    .as_object_mut()
                    .unwrap()
                    .remove("additionalProperties");
            }),
        ),
        (
            Rule::EnumValueRemovedOpen,
            document(|document| {
                branches(document, "Status", "anyOf").insert(0, json!({"type": "string", "const": "paused"}))
            }),
            document(|document| {
                branches(document, "Status", "anyOf").remove(0);
            }),
        ),
        (
            Rule::EnumValueRemovedClosed,
            none(),
            document(|document| branches(document, "Mode", "oneOf").truncate(1)),
        ),
        (
            Rule::EnumOpened,
            none(),
            document(|document| branches(document, "Mode", "oneOf").push(json!({"title": "other", "type": "string"}))),
        ),
        (
            Rule::VariantAddedExtensible,
            none(),
            document(|document| state_variants(document, &["running", "idle", "paused"])),
        ),
        (
            Rule::VariantRemovedExtensible,
            none(),
            document(|document| state_variants(document, &["running"])),
        ),
        (
            Rule::VariantRemovedClosed,
            none(),
            document(|document| branches(document, "Update", "oneOf").truncate(1)),
        ),
        (
            Rule::UnionClosed,
            none(),
            document(|document| {
                branches(document, "State", "anyOf").pop();
            }),
        ),
        (
            Rule::UnionOpened,
            none(),
            document(|document| {
                let other = json!({"title": "other", "type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"],
                "not": {"anyOf": [{"type": "object", "properties": {"kind": {"type": "string", "enum": ["chunk", "done"]}}, "required": ["kind"]}]}});
                let update = definition(document, "Update");
                let mut members = update["oneOf"].as_array().unwrap().clone();
                members.push(other);
                update.as_object_mut().unwrap().remove("oneOf");
                update.as_object_mut().unwrap().remove("discriminator");
                update["anyOf"] = json!(members);
            }),
        ),
        (
            Rule::VariantGateAdded,
            none(),
            model(|ir| {
                ir.gated_variants.insert("Update/done".to_owned(), gate("/done"));
            }),
        ),
        (
            Rule::VariantGateRemoved,
            model(|ir| {
                ir.gated_variants.insert("Update/done".to_owned(), gate("/done"));
            }),
            model(|ir| ir.gated_variants.clear()),
        ),
        (Rule::MethodAdded, none(), model(move |ir| add_method(ir, false))),
        (Rule::MethodAddedGated, none(), model(move |ir| add_method(ir, true))),
        (
            Rule::MethodSideChanged,
            none(),
            model(|ir| {
                ir.methods
                    .get_mut("session/prompt")
                    .unwrap()
                    .request
                    .as_mut()
                    .unwrap()
                    .side = Side::Client
            }),
        ),
        (
            Rule::MethodKindChanged,
            none(),
            model(|ir| {
                let method = ir.methods.get_mut("session/update").unwrap();
                let params = method.notification.take().unwrap().params;
                method.request = Some(RequestMethod {
                    side: Side::Client,
                    params,
                    result: "Spare".to_owned(),
                });
            }),
        ),
        (
            Rule::MethodPayloadChanged,
            none(),
            model(|ir| {
                ir.methods
                    .get_mut("session/prompt")
                    .unwrap()
                    .request
                    .as_mut()
                    .unwrap()
                    .result = "Stop".to_owned()
            }),
        ),
        (
            Rule::MethodGateAdded,
            none(),
            model(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt"))),
        ),
        (
            Rule::MethodGateRemoved,
            model(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt"))),
            model(|ir| {
                ir.methods.get_mut("session/prompt").unwrap().gate = None;
            }),
        ),
        (
            Rule::GateChanged,
            model(|ir| ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/prompt"))),
            model(|ir| {
                ir.methods.get_mut("session/prompt").unwrap().gate = Some(gate("/ask"));
            }),
        ),
    ]
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
        // Every breaking verdict of a rule is shown by a message here.
        assert_eq!(
            (finding.old_reader, finding.new_reader),
            (rule.old_reader(), rule.new_reader()),
            "{}",
            report::markdown(&reviewed)
        );
        assert_witnessed(finding, &reviewed);
        proven.push(rule);
    }
    let conflict = acp_review::Conflict {
        overlay: "x".to_owned(),
        message: "conflicts".to_owned(),
    };
    let (base, head) = (fixture(), fixture());
    let (base_ir, head_ir) = (lowered(&base), lowered(&head));
    let reviewed = review(
        "base",
        Schema {
            document: &base,
            ir: &base_ir,
        },
        "head",
        Schema {
            document: &head,
            ir: &head_ir,
        },
        vec![conflict],
    )
    .unwrap();
    assert_eq!(
        (only(&reviewed).rule, reviewed.worst()),
        (Rule::OverlayConflict.id(), Level::Breaking)
    );
    proven.push(Rule::OverlayConflict);
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .filter(|rule| !proven.contains(rule))
        .map(|rule| rule.id())
        .collect();
    assert!(missing.is_empty(), "rules no test proves: {missing:?}");
}

/// A change is tagged with the tier of what it touches: stable by default,
/// unstable when only unstable methods carry the type or the schema marks
/// the member, draft in a schema of the v2 layout. Only a break of the
/// stable tier asks for a major version, and `worst_from` leaves out the
/// less binding tiers.
#[test]
fn a_break_is_tagged_with_its_tier_and_only_a_stable_one_is_major() {
    let stable = changed(document(|document| require(document, "PromptRequest", "note")));
    assert_eq!(
        (only(&stable).level, only(&stable).tier),
        (Level::Breaking, Tier::Stable)
    );
    assert_eq!(bump::bump(&stable).0, Bump::Major);
    assert_eq!(stable.worst_from(Tier::Stable), Level::Breaking);

    let unstable_method = || {
        model(|ir: &mut Ir| {
            ir.methods.get_mut("session/prompt").unwrap().unstable = true;
        })
    };
    let unstable = changed_from(
        unstable_method(),
        document(|document| require(document, "PromptRequest", "note")),
    );
    assert_eq!(
        (only(&unstable).level, only(&unstable).tier),
        (Level::Breaking, Tier::Unstable),
        "{}",
        report::markdown(&unstable)
    );
    assert_witnessed(only(&unstable), &unstable);
    assert_eq!(bump::bump(&unstable).0, Bump::Minor);
    assert_eq!(
        (unstable.worst_from(Tier::Stable), unstable.worst()),
        (Level::Safe, Level::Breaking)
    );

    let marked = changed_from(
        document(|document| {
            property(document, "PromptRequest", "note")["description"] = json!("**UNSTABLE** not in the spec yet");
        }),
        document(|document| require(document, "PromptRequest", "note")),
    );
    assert_eq!(only(&marked).tier, Tier::Unstable, "{}", report::markdown(&marked));

    let draft = changed_from(
        model(|ir: &mut Ir| {
            ir.capability_layout = Some(CapabilityLayout {
                name: "v2".to_owned(),
                protocol_version: 2,
                agent: "/capabilities".to_owned(),
                client: "/capabilities".to_owned(),
            });
        }),
        document(|document| require(document, "PromptRequest", "note")),
    );
    assert_eq!(only(&draft).tier, Tier::Draft);
    assert_eq!(bump::bump(&draft).0, Bump::Minor);

    let form_only = changed(none());
    assert_eq!(bump::bump(&form_only).0, Bump::Patch);
    assert_eq!(Bump::Major.apply("1.20.3-dev.7").as_deref(), Some("2.0.0"));
    assert_eq!(Bump::Minor.apply("1.20.3").as_deref(), Some("1.21.0"));
    assert_eq!(Bump::Patch.apply("1.20.3").as_deref(), Some("1.20.4"));
    assert_eq!(Bump::Patch.apply("one"), None);
}
