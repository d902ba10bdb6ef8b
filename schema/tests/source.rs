//! The single source: the extended schema carries the three RFDs exactly as
//! `shared/rfd-semantics.md` fixes them, overlays fail loudly, and the
//! capability annotations agree with the schema.

use std::path::{Path, PathBuf};

use acp_schema_source::capabilities::prose::{self, Subject};
use acp_schema_source::capabilities::{CapabilityAnnotations, Stability};
use acp_schema_source::{extend, load, upstream, Overlay, RfdSelection, SourceError, SourceOptions};
use serde_json::{json, Value};

fn extended() -> Value {
    load(&SourceOptions::default())
        .expect("the default source assembles")
        .document
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The `$ref` targets of the alternatives of a union node.
fn member_refs(node: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for keyword in ["anyOf", "oneOf"] {
        for member in node.get(keyword).and_then(Value::as_array).into_iter().flatten() {
            let reference = member
                .get("$ref")
                .or_else(|| member.pointer("/allOf/0/$ref"))
                .and_then(Value::as_str)
                .map(|r| r.trim_start_matches("#/$defs/").to_owned());
            found.extend(reference);
        }
    }
    found
}

#[test]
fn session_ready_is_a_client_notification_handled_by_the_agent() {
    let schema = extended();
    let notification = &schema["$defs"]["SessionReadyNotification"];
    assert_eq!(notification["x-method"], "session/ready");
    assert_eq!(notification["x-side"], "agent");
    assert_eq!(notification["required"], json!(["sessionId"]));
    assert_eq!(
        notification.pointer("/properties/sessionId/allOf/0/$ref"),
        Some(&json!("#/$defs/SessionId"))
    );
    assert!(notification.pointer("/properties/_meta").is_some());
    let params = &schema["$defs"]["ClientNotification"]["properties"]["params"]["anyOf"][0];
    assert!(member_refs(params).contains(&"SessionReadyNotification".to_owned()));
    let capability = &schema["$defs"]["SessionCapabilities"]["properties"]["ready"];
    assert_eq!(member_refs(capability), vec!["SessionReadyCapabilities".to_owned()]);
    assert_eq!(schema["$defs"]["SessionReadyCapabilities"]["type"], "object");
}

#[test]
fn turn_complete_is_a_session_update_variant() {
    let schema = extended();
    let update = &schema["$defs"]["TurnCompleteUpdate"];
    assert_eq!(update["required"], json!(["promptRequestId", "stopReason"]));
    assert_eq!(
        update.pointer("/properties/promptRequestId/allOf/0/$ref"),
        Some(&json!("#/$defs/RequestId"))
    );
    assert_eq!(
        update.pointer("/properties/stopReason/allOf/0/$ref"),
        Some(&json!("#/$defs/StopReason"))
    );
    let variants = schema["$defs"]["SessionUpdate"]["oneOf"].as_array().unwrap();
    let variant = variants
        .iter()
        .find(|variant| variant.pointer("/properties/sessionUpdate/const") == Some(&json!("turn_complete")))
        .expect("a turn_complete variant");
    assert_eq!(variant["required"], json!(["sessionUpdate"]));
    assert_eq!(
        variant.pointer("/allOf/0/$ref"),
        Some(&json!("#/$defs/TurnCompleteUpdate"))
    );
    let capability = &schema["$defs"]["SessionCapabilities"]["properties"]["turnComplete"];
    assert_eq!(member_refs(capability), vec!["TurnCompleteCapabilities".to_owned()]);
}

#[test]
fn session_status_is_an_agent_method_with_an_open_status() {
    let schema = extended();
    let request = &schema["$defs"]["SessionStatusRequest"];
    let response = &schema["$defs"]["SessionStatusResponse"];
    for definition in [request, response] {
        assert_eq!(definition["x-method"], "session/status");
        assert_eq!(definition["x-side"], "agent");
    }
    assert_eq!(request["required"], json!(["sessionId"]));
    assert_eq!(response["required"], json!(["status"]));
    let status = schema["$defs"]["SessionStatus"]["anyOf"].as_array().unwrap();
    let constants: Vec<&Value> = status.iter().filter_map(|member| member.get("const")).collect();
    assert_eq!(constants, vec![&json!("live"), &json!("not_found")]);
    assert!(
        status
            .iter()
            .any(|member| member.get("const").is_none() && member["type"] == "string"),
        "open: a catch-all string"
    );
    let requests = &schema["$defs"]["ClientRequest"]["properties"]["params"]["anyOf"][0];
    assert!(member_refs(requests).contains(&"SessionStatusRequest".to_owned()));
    let results = &schema["$defs"]["AgentResponse"]["anyOf"][0]["properties"]["result"];
    assert!(member_refs(results).contains(&"SessionStatusResponse".to_owned()));
    let capability = &schema["$defs"]["SessionCapabilities"]["properties"]["status"];
    assert_eq!(member_refs(capability), vec!["SessionStatusCapabilities".to_owned()]);
}

#[test]
fn overlays_carry_their_metadata_and_seed() {
    let overlays = Overlay::builtin();
    let ids: Vec<&str> = overlays.iter().map(|overlay| overlay.id.as_str()).collect();
    assert_eq!(ids, ["session-ready", "turn-complete", "session-status"]);
    let seeds = repository().parent().unwrap().join("shared").join("seeds");
    for overlay in &overlays {
        assert!(!overlay.title.is_empty() && !overlay.status.is_empty());
        assert!(
            seeds.join(&overlay.seed).is_file(),
            "{} names a missing seed {}",
            overlay.id,
            overlay.seed
        );
        let first = serde_json::to_value(&overlay.patch.0[0]).unwrap();
        assert_eq!(first["op"], "test", "{} starts with a precondition", overlay.id);
    }
}

#[test]
fn rfd_selection_picks_a_subset_and_rejects_unknown_names() {
    let only = RfdSelection::Only(vec!["turn-complete".into()]).resolve().unwrap();
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].id, "turn-complete");
    assert!(RfdSelection::Nothing.resolve().unwrap().is_empty());
    let error = RfdSelection::Only(vec!["session-teleport".into()])
        .resolve()
        .unwrap_err();
    assert!(error.to_string().contains("session-teleport"), "{error}");
    let schema = load(&SourceOptions {
        schema_file: None,
        rfds: RfdSelection::Only(vec!["session-ready".into()]),
    })
    .unwrap();
    assert!(schema.document["$defs"].get("SessionReadyNotification").is_some());
    assert!(schema.document["$defs"].get("TurnCompleteUpdate").is_none());
}

#[test]
fn applying_an_overlay_twice_is_a_conflict_naming_file_and_pointer() {
    let mut schema = upstream::default_schema();
    let overlay = &Overlay::builtin()[0];
    overlay.apply(&mut schema).unwrap();
    let error = overlay.apply(&mut schema).unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, SourceError::OverlayConflict { .. }), "{message}");
    assert!(message.contains("schema/rfd/session-ready.json"), "{message}");
    assert!(message.contains("/$defs/SessionReadyNotification"), "{message}");
    assert!(message.contains("session/ready"), "{message}");
}

#[test]
fn session_status_against_a_base_with_its_own_session_status_is_reported() {
    let mut base = upstream::default_schema();
    base["$defs"]["SessionStatusRequest"] = json!({
        "type": "object", "properties": {"sessionId": {"type": "string"}},
        "x-method": "session/status", "x-side": "agent"
    });
    let status = Overlay::builtin()
        .into_iter()
        .find(|overlay| overlay.id == "session-status")
        .unwrap();
    let error = status.apply(&mut base).unwrap_err().to_string();
    assert!(error.contains("session-status.json"), "{error}");
    assert!(error.contains("already defines method `session/status`"), "{error}");
}

#[test]
fn a_missing_path_names_the_operation_index_and_pointer() {
    let text = r#"{"id": "broken", "title": "Broken", "status": "draft", "seed": "none",
        "patch": [{"op": "test", "path": "/$defs/SessionId/type", "value": "string"},
                  {"op": "add", "path": "/$defs/NoSuchType/properties/field", "value": {}}]}"#;
    let overlay = Overlay::parse("schema/rfd/broken.json", text).unwrap();
    let error = overlay.apply(&mut upstream::default_schema()).unwrap_err().to_string();
    assert!(error.contains("schema/rfd/broken.json: operation 1"), "{error}");
    assert!(error.contains("/$defs/NoSuchType/properties/field"), "{error}");
}

#[test]
fn a_failed_precondition_is_reported() {
    let text = r#"{"id": "broken", "title": "Broken", "status": "draft", "seed": "none",
        "patch": [{"op": "test", "path": "/$defs/SessionId/type", "value": "integer"}]}"#;
    let overlay = Overlay::parse("broken.json", text).unwrap();
    let error = overlay.apply(&mut upstream::default_schema()).unwrap_err().to_string();
    assert!(
        error.contains("operation 0") && error.contains("precondition failed"),
        "{error}"
    );
}

#[test]
fn a_malformed_overlay_names_the_file_and_line() {
    let error = Overlay::parse("schema/rfd/bad.json", "{\"id\": ")
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("schema/rfd/bad.json: not valid JSON (line 1"),
        "{error}"
    );
}

#[test]
fn the_default_schema_is_deterministic() {
    let first = load(&SourceOptions::default()).unwrap().to_pretty_json();
    let second = load(&SourceOptions::default()).unwrap().to_pretty_json();
    assert_eq!(first, second);
}

#[test]
fn the_upstream_pin_matches_the_workspace_manifest() {
    let manifest = std::fs::read_to_string(repository().join("Cargo.toml")).unwrap();
    let pin = format!(
        "agent-client-protocol-schema = {{ version = \"={}\"",
        upstream::UPSTREAM_VERSION
    );
    assert!(manifest.contains(&pin), "Cargo.toml must pin {pin}");
}

#[test]
fn the_default_root_lists_the_method_unions() {
    let schema = extended();
    let titles: Vec<&str> = schema["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|side| side["title"].as_str())
        .collect();
    assert_eq!(titles, ["Agent", "Client", "ProtocolLevel"]);
    for side in &schema["anyOf"].as_array().unwrap()[..2] {
        let roles: Vec<&str> = side["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|role| role["title"].as_str())
            .collect();
        assert_eq!(roles, ["Request", "Response", "Notification"]);
    }
}

#[test]
fn schema_files_with_bad_json_or_no_defs_are_rejected() {
    // Under the target folder (Cargo's folder for integration tests' files),
    // so that a failed run leaves nothing in the system's temporary folder
    // and the files stay where the failure's message names them.
    let folder = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bad-schema-files");
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let broken = folder.join("broken.json");
    std::fs::write(&broken, "{\n  \"$defs\": {,\n}").unwrap();
    let error = load(&SourceOptions {
        schema_file: Some(broken.clone()),
        rfds: RfdSelection::Nothing,
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("broken.json: not valid JSON (line 2"), "{error}");
    let empty = folder.join("empty.json");
    std::fs::write(&empty, "{\"title\": \"no defs\"}").unwrap();
    let error = load(&SourceOptions {
        schema_file: Some(empty),
        rfds: RfdSelection::Nothing,
    })
    .unwrap_err()
    .to_string();
    assert!(error.contains("empty.json#/$defs"), "{error}");
}

#[test]
fn a_document_its_meta_schema_rejects_is_refused_at_the_pointer() {
    let mut document = upstream::default_schema();
    document["$defs"]["SessionId"]["type"] = json!(5);
    let error = extend("bad.json".to_owned(), document, &[], false)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("bad.json#/$defs/SessionId/type: not a JSON Schema: "),
        "{error}"
    );
    let mut document = upstream::default_schema();
    document["$defs"]["SessionId"]["required"] = json!("sessionId");
    let error = extend("bad.json".to_owned(), document, &[], false)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("bad.json#/$defs/SessionId/required: not a JSON Schema: "),
        "{error}"
    );
}

// ---- capability annotations -------------------------------------------

#[test]
fn every_stable_and_rfd_gate_resolves_in_the_default_schema() {
    let schema = load(&SourceOptions::default()).unwrap();
    let annotations = CapabilityAnnotations::builtin().unwrap();
    for (method, gate) in &annotations.methods {
        if gate.stability != Stability::Unstable && gate.paths.contains_key("v1") {
            assert!(
                schema.gates.methods.contains_key(method),
                "gate of {method} did not resolve"
            );
        }
    }
    for (variant, gate) in &annotations.variants {
        if gate.stability != Stability::Unstable && gate.paths.contains_key("v1") {
            assert!(
                schema.gates.variants.contains_key(variant),
                "gate of {variant} did not resolve"
            );
        }
    }
    for method in [
        "session/ready",
        "session/status",
        "session/load",
        "fs/read_text_file",
        "terminal/create",
    ] {
        assert!(schema.gates.methods.contains_key(method), "{method} has no gate");
    }
    assert!(schema.gates.variants.contains_key("SessionUpdate/turn_complete"));
}

#[test]
fn a_gate_whose_path_does_not_resolve_is_an_error_in_strict_mode() {
    let mut annotations = CapabilityAnnotations::builtin().unwrap();
    annotations
        .methods
        .get_mut("session/list")
        .unwrap()
        .paths
        .insert("v1".into(), "/sessionCapabilities/listing".into());
    let error = annotations
        .resolve(&upstream::default_schema(), &[], true)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("schema/capabilities.json#/methods/session~1list"),
        "{error}"
    );
    assert!(error.contains("listing"), "{error}");
}

#[test]
fn a_gate_for_a_method_that_does_not_exist_is_an_error_in_strict_mode() {
    let mut annotations = CapabilityAnnotations::builtin().unwrap();
    let gate = annotations.methods["session/list"].clone();
    annotations.methods.insert("session/teleport".into(), gate);
    let error = annotations
        .resolve(&upstream::default_schema(), &[], true)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("session/teleport") && error.contains("does not exist"),
        "{error}"
    );
}

#[test]
fn every_gate_the_prose_states_has_an_annotation() {
    let schema = extended();
    let annotations = CapabilityAnnotations::builtin().unwrap();
    let stated = prose::scan(&schema);
    for expected in [
        Subject::Method("session/load".into()),
        Subject::Variant("SessionUpdate/plan_update".into()),
        Subject::Variant("ContentBlock/image".into()),
        Subject::Variant("McpServer/http".into()),
        Subject::Field("NewSessionRequest/systemPrompt".into()),
    ] {
        assert!(
            stated.iter().any(|gate| gate.subject == expected),
            "the scan finds the prose of {expected:?}"
        );
    }
    let missing = annotations.unannotated(&schema);
    assert!(missing.is_empty(), "gated by prose but not annotated: {missing:#?}");
}

#[test]
fn the_prose_scan_knows_every_phrasing() {
    for sentence in [
        "Only available if the agent advertises `modes`",
        "Only available when the Agent capabilities include `session.mcp.http`",
        "Agents MUST NOT send this update unless the Client advertised `plan`",
        "Agents MUST only send this update when the Client advertised the `x` Client capability",
        "Requires the `image` prompt capability when included in prompts",
        "Only sent by agents that advertise the `auth.status` capability",
        "Clients MUST only send this when the Agent advertises `session.systemPrompt`",
    ] {
        assert!(prose::states_gate(sentence), "{sentence}");
    }
    assert!(!prose::states_gate("Agents MUST support this method for any session"));
}

#[test]
fn the_prose_scan_fails_for_each_kind_of_unannotated_gate() {
    let annotations = CapabilityAnnotations::builtin().unwrap();
    let mut schema = extended();
    schema["$defs"]["InitializeRequest"]["description"] = json!("Only available if the agent advertises `modes`.");
    schema["$defs"]["PromptRequest"]["properties"]["prompt"]["description"] =
        json!("Clients MUST only send this when the Agent advertises `x`.");
    let index = schema["$defs"]["SessionUpdate"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .position(|m| m["properties"]["sessionUpdate"]["const"] == "usage_update")
        .unwrap();
    schema["$defs"]["SessionUpdate"]["oneOf"][index]["description"] =
        json!("Agents MUST NOT send this update unless the Client advertised `usage`.");
    let missing: Vec<Subject> = annotations
        .unannotated(&schema)
        .into_iter()
        .map(|gate| gate.subject)
        .collect();
    assert!(missing.contains(&Subject::Method("initialize".into())), "{missing:?}");
    assert!(
        missing.contains(&Subject::Field("PromptRequest/prompt".into())),
        "{missing:?}"
    );
    assert!(
        missing.contains(&Subject::Variant("SessionUpdate/usage_update".into())),
        "{missing:?}"
    );
}

#[test]
fn gates_carry_their_sites_and_initialize_pointers() {
    let schema = load(&SourceOptions::default()).unwrap();
    assert_eq!(schema.gates.layout.as_ref().unwrap().name, "v1");
    let image = &schema.gates.variants["ContentBlock/image"];
    assert_eq!(image.initialize_pointer, "/agentCapabilities/promptCapabilities/image");
    assert_eq!(image.sites[0].method, "session/prompt");
    assert_eq!(image.sites[0].pointer, "/prompt/*");
    assert_eq!(image.sites[0].tag.as_ref().unwrap().property.as_deref(), Some("type"));
    let http = &schema.gates.variants["McpServer/http"];
    let methods: Vec<&str> = http.sites.iter().map(|site| site.method.as_str()).collect();
    assert_eq!(methods, ["session/new", "session/load", "session/resume"]);
    let plan = &schema.gates.variants["SessionUpdate/plan_update"];
    assert_eq!(plan.initialize_pointer, "/clientCapabilities/plan");
    let system_prompt = &schema.gates.fields["NewSessionRequest/systemPrompt"];
    assert_eq!(system_prompt.sites[0].method, "session/new");
    assert_eq!(schema.gates.methods["authenticate"].initialize_pointer, "/authMethods");
    assert!(schema.gates.unresolved.is_empty(), "{:?}", schema.gates.unresolved);
}

#[test]
fn extend_reports_capability_errors_for_strict_bases() {
    let mut base = upstream::default_schema();
    base["$defs"]["AgentCapabilities"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("loadSession");
    let error = extend("base.json".into(), base, &[], true).unwrap_err().to_string();
    assert!(error.contains("loadSession"), "{error}");
}
