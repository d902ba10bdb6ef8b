//! The negotiation model: its model of a small fixture (one gated method
//! per side, one gated content block; `codegen/tests/fixtures`) as a
//! reviewed snapshot (re-approve with `UPDATE_SNAPSHOTS=1`), its reference
//! evaluator on that fixture, the gate counts of the default schema, and
//! proof that `tests/negotiation.json` covers every gate of the default
//! and release schemas. The files each language prints for the fixture
//! are checked in `codegen/tests/negotiation.rs`.

#[path = "../../tests/support/snapshots.rs"]
mod snapshots;

use std::path::{Path, PathBuf};

use acp_ir::lower::{lower, Unsupported};
use acp_ir::negotiation::{self, NegotiationError, Refusal, Requirement};
use acp_ir::Ir;
use serde_json::json;

/// This crate's tests folder.
fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// The workspace's root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The negotiation fixture, named by its path relative to `codegen/tests`
/// as the cross-stage tests name it.
fn fixture() -> Ir {
    let path = workspace().join("codegen/tests/fixtures/negotiation.json");
    let document = acp_schema_source::read_schema_file(&path).unwrap();
    let schema = acp_schema_source::extend("fixtures/negotiation.json".into(), document, &[], false).unwrap();
    lower(&schema, Unsupported::Fail).unwrap()
}

#[test]
fn the_model_of_the_fixture() {
    let model = negotiation::model(&fixture()).expect("the fixture has a v1 layout");
    let text = serde_json::to_string_pretty(&model).unwrap();
    snapshots::assert_snapshot(
        &here().join("snapshots").join("negotiation.model.json"),
        &format!("{text}\n"),
    );
    let load = model
        .agent_methods
        .iter()
        .find(|entry| entry.name == "session/load")
        .unwrap();
    assert!(matches!(load.needs, Requirement::Rule(_)));
    assert!(
        model.features.iter().all(|feature| feature.needs == Requirement::Never),
        "the fixture has no RFD"
    );
}

#[test]
fn the_reference_evaluator_on_the_fixture() {
    let model = negotiation::model(&fixture()).unwrap();
    let request = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}});
    let response = json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": false, "promptCapabilities": {"image": null}}});
    let view = model.view(&request, &response).unwrap();
    assert_eq!(
        view["agentHandles"],
        json!({"initialize": true, "session/load": false, "session/prompt": true})
    );
    assert_eq!(view["clientHandles"], json!({"fs/read_text_file": true}));
    assert_eq!(view["prompt"], json!({"image": false}));
    let prompt = json!({"prompt": [{"type": "text", "text": "a"}, {"type": "image", "data": ""}]});
    let refusal = model
        .check_outgoing(&request, &response, "session/prompt", &prompt)
        .unwrap();
    assert_eq!(
        refusal,
        Refusal {
            method: "session/prompt".into(),
            pointer: "/prompt/1".into(),
            side: acp_ir::ir::Side::Agent,
            capability: "/agentCapabilities/promptCapabilities/image".into()
        }
    );
    assert!(model
        .check_outgoing(&request, &response, "fs/read_text_file", &json!({"path": "/a"}))
        .is_none());
    let above = model.view(&request, &json!({"protocolVersion": 2})).unwrap_err();
    assert_eq!(
        above,
        NegotiationError::VersionAboveRequested {
            requested: 1,
            answered: 2
        }
    );
}

#[test]
fn the_default_schema_gates() {
    let ir = lower(
        &acp_schema_source::load(&Default::default()).unwrap(),
        Unsupported::Fail,
    )
    .unwrap();
    let gated_methods = ir.methods.values().filter(|method| method.gate.is_some()).count();
    // 18 methods (2 of them RFD), 21 variants (3 prompt blocks, 2 MCP
    // transports, 8 client-advertised updates, turn_complete, 2 elicitation
    // modes, the override mode, the boolean config option and its
    // `session/set_config_option` value, the `session` tool call content,
    // the `terminal` auth method) and 3 systemPrompt members.
    assert_eq!(
        (gated_methods, ir.gated_variants.len(), ir.gated_fields.len()),
        (18, 21, 3)
    );
}

/// The reference evaluator on `tests/negotiation.json` for one schema, and
/// proof that the table covers every gate of it: each rule flips between the
/// `none` and `all` views, or some outgoing case is refused for it.
fn table_covers(label: &str, ir: &Ir) {
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(workspace().join("tests/negotiation.json")).unwrap()).unwrap();
    let cases = &table["schemas"][label];
    let model = negotiation::model(ir).unwrap();
    let view_of = |pair: &str| {
        model
            .view(&cases["pairs"][pair]["request"], &cases["pairs"][pair]["response"])
            .unwrap()
    };
    let mut covered = std::collections::BTreeSet::new();
    for view in cases["views"].as_array().unwrap() {
        let document = view_of(view["pair"].as_str().unwrap());
        let listed = |key: &str| {
            view[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|path| path.as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        let (on, off) = (listed("true"), listed("false"));
        for (key, value) in document.as_object().unwrap() {
            let flags: Vec<(String, bool)> = match value {
                serde_json::Value::Object(members) => members
                    .iter()
                    .map(|(name, flag)| (format!("{key}/{name}"), flag.as_bool().unwrap()))
                    .collect(),
                serde_json::Value::Bool(flag) => vec![(key.clone(), *flag)],
                _ => Vec::new(),
            };
            for (path, flag) in flags {
                let expected = if on.contains(&path) {
                    true
                } else if off.contains(&path) {
                    false
                } else {
                    view["others"].as_bool().unwrap()
                };
                assert_eq!(flag, expected, "{label} {}: {path}", view["pair"]);
            }
        }
    }
    let (none, all) = (view_of("none"), view_of("all"));
    let entries = model
        .agent_methods
        .iter()
        .map(|entry| ("agentHandles", entry))
        .chain(model.client_methods.iter().map(|entry| ("clientHandles", entry)));
    let sections = model
        .sections
        .iter()
        .flat_map(|section| section.entries.iter().map(move |entry| (section.name, entry)));
    for (member, entry) in entries.chain(sections) {
        if let Requirement::Rule(rule) = entry.needs {
            if none[member][&entry.name] == false && all[member][&entry.name] == true {
                covered.insert(rule);
            }
        }
    }
    let partials = cases["partial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|partial| (&partial["pair"], &partial["outgoing"]));
    let outgoing: Vec<(&serde_json::Value, &serde_json::Value)> =
        std::iter::once((&cases["pairs"]["none"], &cases["outgoing"]))
            .chain(partials)
            .collect();
    let all_pair = &cases["pairs"]["all"];
    for (pair, messages) in outgoing {
        for message in messages.as_array().unwrap() {
            let method = message["method"].as_str().unwrap();
            assert_eq!(
                model.check_outgoing(&all_pair["request"], &all_pair["response"], method, &message["params"]),
                None,
                "{label}: {method}"
            );
            let refusal = model
                .check_outgoing(&pair["request"], &pair["response"], method, &message["params"])
                .unwrap_or_else(|| panic!("{label}: {method} passes"));
            assert_eq!(
                (refusal.pointer.as_str(), refusal.capability.as_str()),
                (
                    message["pointer"].as_str().unwrap(),
                    message["capability"].as_str().unwrap()
                ),
                "{label}: {method}"
            );
            covered.extend(model.rules.iter().position(|rule| rule.pointer == refusal.capability));
        }
    }
    let uncovered: Vec<&str> = (0..model.rules.len())
        .filter(|rule| !covered.contains(rule))
        .map(|rule| model.rules[rule].pointer.as_str())
        .collect();
    assert!(
        uncovered.is_empty(),
        "{label}: no case of tests/negotiation.json exercises the gates {uncovered:?}"
    );
}

#[test]
fn the_table_covers_every_gate_of_the_default_schema() {
    table_covers(
        "default",
        &lower(
            &acp_schema_source::load(&Default::default()).unwrap(),
            Unsupported::Fail,
        )
        .unwrap(),
    );
    let options = acp_schema_source::SourceOptions {
        schema_file: None,
        rfds: acp_schema_source::RfdSelection::Nothing,
    };
    table_covers(
        "default-no-rfd",
        &lower(&acp_schema_source::load(&options).unwrap(), Unsupported::Fail).unwrap(),
    );
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn the_table_covers_every_gate_of_the_latest_release_schemas() {
    let root = PathBuf::from(
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`"),
    );
    for (label, file) in [
        ("v1-stable", "v1/schema.json"),
        ("v1-unstable", "v1/schema.unstable.json"),
        ("v2-stable", "v2/schema.json"),
        ("v2-unstable", "v2/schema.unstable.json"),
    ] {
        let path = root.join("sdk-2.4.0/package/schema").join(file);
        let options = acp_schema_source::SourceOptions {
            schema_file: Some(path),
            rfds: acp_schema_source::RfdSelection::Nothing,
        };
        table_covers(
            label,
            &lower(&acp_schema_source::load(&options).unwrap(), Unsupported::Fail).unwrap(),
        );
    }
}
