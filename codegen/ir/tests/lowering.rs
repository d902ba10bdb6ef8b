//! Lowering alone: what it makes of the default schema (the RFDs' methods
//! and gates, variant names, unstable methods, the turn-cancel
//! notification), that its IR round-trips through JSON, and small inline
//! schemas it must refuse or rename by the collision rule. The fixtures'
//! IR and vectors are checked together in `codegen/tests/lowering.rs`.

use acp_ir::inspect::summarize;
use acp_ir::ir::*;
use acp_ir::lower::{lower, Unsupported};
use acp_ir::{ErrorKind, Ir};
use acp_schema_source::{load, ExtendedSchema, SourceOptions};
use serde_json::{json, Value};

fn from_value(document: Value) -> ExtendedSchema {
    acp_schema_source::extend("inline.json".into(), document, &[], false).unwrap()
}

fn kind<'a>(ir: &'a Ir, name: &str) -> &'a TypeKind {
    &ir.get(name).unwrap_or_else(|| panic!("no type {name}")).kind
}

#[test]
fn two_any_json_members_of_one_union_are_an_error() {
    let error = lowering_error(json!({
        "$defs": {"Two": {"anyOf": [{"description": "a"}, {"description": "b"}]}}
    }));
    assert!(error.to_string().contains("/$defs/Two/anyOf/1"), "{error}");
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
