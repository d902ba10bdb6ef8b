//! Per-session gates (`schema/capabilities.json`'s `sessionGates`): what
//! they resolve to in every schema the suite uses (the default one, the
//! hostile fixture on it, and the latest release's four with
//! `ACP_UPSTREAM_SCHEMAS`), and the reference evaluator the languages'
//! helpers follow.

use std::path::{Path, PathBuf};

use acp_ir::ir::{Optional, Side};
use acp_ir::lower::{lower, Unsupported};
use acp_ir::sessions::{self, SessionOffers};
use acp_ir::Ir;
use serde_json::json;

fn default_ir() -> Ir {
    lower(
        &acp_schema_source::load(&Default::default()).unwrap(),
        Unsupported::Fail,
    )
    .unwrap()
}

/// Each gated method of `ir`, its member and its openers (`+`: the session
/// is named in the result).
fn summary(ir: &Ir) -> Vec<(String, String, Vec<String>)> {
    sessions::model(ir)
        .into_iter()
        .map(|rule| {
            let openers = rule
                .gate
                .openers
                .iter()
                .map(|opener| format!("{}{}", opener.method, if opener.session_in_result { "+" } else { "" }))
                .collect();
            (rule.method, rule.gate.member, openers)
        })
        .collect()
}

fn gates(entries: &[(&str, &str, &[&str])]) -> Vec<(String, String, Vec<String>)> {
    entries
        .iter()
        .map(|(method, member, openers)| {
            (
                (*method).to_owned(),
                (*member).to_owned(),
                openers.iter().map(|opener| (*opener).to_owned()).collect(),
            )
        })
        .collect()
}

const V1_STABLE: [&str; 3] = ["session/new+", "session/load", "session/resume"];

#[test]
fn the_default_schema_gates_set_mode_and_set_config_option_per_session() {
    let ir = default_ir();
    assert_eq!(
        summary(&ir),
        gates(&[
            ("session/set_config_option", "/configOptions", &V1_STABLE),
            ("session/set_mode", "/modes", &V1_STABLE),
        ])
    );
    for name in ["session/set_mode", "session/set_config_option"] {
        let method = &ir.methods[name];
        assert!(method.gate.is_none() && method.not_negotiated.is_none(), "{name}");
        let gate = method.session_gate.as_ref().unwrap();
        assert_eq!((gate.advertised_by, gate.session.as_str()), (Side::Agent, "sessionId"));
        assert_eq!(method.optional(Side::Agent), Some(Optional::SessionGated(gate)));
    }
}

#[test]
fn the_hostile_fixture_keeps_the_default_gates() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hostile.overlay.json");
    let text = std::fs::read_to_string(path).unwrap();
    let overlay = acp_schema_source::overlay::Overlay::parse("fixtures/hostile.overlay.json", &text).unwrap();
    let schema = acp_schema_source::extend(
        acp_schema_source::default_origin(),
        acp_schema_source::upstream::default_schema(),
        &[overlay],
        true,
    )
    .unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    assert_eq!(summary(&ir), summary(&default_ir()));
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn the_release_schemas_gate_what_their_opening_results_carry() {
    let root = PathBuf::from(
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`"),
    );
    let v1_unstable = ["session/new+", "session/load", "session/resume", "session/fork+"];
    // v2 has no `session/set_mode`, and only `configOptions` on the openers
    // it has (no `session/load`).
    let v2_stable = ["session/new+", "session/resume"];
    let v2_unstable = ["session/new+", "session/resume", "session/fork+"];
    let expected = [
        (
            "v1/schema.json",
            gates(&[
                ("session/set_config_option", "/configOptions", &V1_STABLE),
                ("session/set_mode", "/modes", &V1_STABLE),
            ]),
        ),
        (
            "v1/schema.unstable.json",
            gates(&[
                ("session/set_config_option", "/configOptions", &v1_unstable),
                ("session/set_mode", "/modes", &v1_unstable),
            ]),
        ),
        (
            "v2/schema.json",
            gates(&[("session/set_config_option", "/configOptions", &v2_stable)]),
        ),
        (
            "v2/schema.unstable.json",
            gates(&[("session/set_config_option", "/configOptions", &v2_unstable)]),
        ),
    ];
    for (file, gates) in expected {
        let options = acp_schema_source::SourceOptions {
            schema_file: Some(root.join("sdk-2.4.0/package/schema").join(file)),
            rfds: acp_schema_source::RfdSelection::Nothing,
        };
        let schema = acp_schema_source::load(&options).unwrap();
        assert!(
            schema.gates.unresolved.is_empty(),
            "{file}: {:?}",
            schema.gates.unresolved
        );
        let ir = lower(&schema, Unsupported::Fail).unwrap();
        assert_eq!(summary(&ir), gates, "{file}");
    }
}

#[test]
fn the_reference_evaluator_records_checks_and_strips() {
    let rules = sessions::model(&default_ir());
    let mut offers = SessionOffers::default();
    let set_mode = |session: &str| json!({"sessionId": session, "modeId": "code"});
    // What a refusal names: the method, the side and the member's pointer.
    let refusal = |refused: Option<&sessions::SessionRule>| {
        refused.map(|rule| (rule.method.clone(), rule.gate.advertised_by, rule.gate.member.clone()))
    };
    // A session this end did not see opened is not judged.
    assert_eq!(
        refusal(offers.check(&rules, "session/set_mode", &set_mode("elsewhere"))),
        None
    );
    offers.record(
        &rules,
        "session/new",
        &json!({"cwd": "/", "mcpServers": []}),
        &json!({"sessionId": "a", "modes": {"currentModeId": "code", "availableModes": []}}),
    );
    assert_eq!(refusal(offers.check(&rules, "session/set_mode", &set_mode("a"))), None);
    let set_option = json!({"sessionId": "a", "configId": "x", "value": "y"});
    assert_eq!(
        refusal(offers.check(&rules, "session/set_config_option", &set_option)),
        Some((
            "session/set_config_option".to_owned(),
            Side::Agent,
            "/configOptions".to_owned()
        ))
    );
    // `session/load` names the session in its params; `null` offers nothing.
    offers.record(
        &rules,
        "session/load",
        &json!({"sessionId": "b", "cwd": "/", "mcpServers": []}),
        &json!({"modes": null}),
    );
    assert_eq!(
        offers
            .check(&rules, "session/set_mode", &set_mode("b"))
            .map(|rule| rule.gate.member.as_str()),
        Some("/modes")
    );
    // Methods that open nothing record nothing.
    offers.record(
        &rules,
        "session/prompt",
        &json!({"sessionId": "c"}),
        &json!({"modes": {}}),
    );
    assert_eq!(refusal(offers.check(&rules, "session/set_mode", &set_mode("c"))), None);

    assert_eq!(
        sessions::unoffered(&rules, Side::Agent, "session/new", |method| method
            == "session/set_mode"),
        vec!["configOptions"]
    );
    assert!(sessions::unoffered(&rules, Side::Agent, "session/prompt", |_| false).is_empty());
}
