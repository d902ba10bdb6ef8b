//! The RFD helpers stage: its model of the default schema with and without
//! the RFDs, and the reference state machines ([`rfd::machines`], the
//! ones the Rust crate copies and `check-trace` runs) on every scenario of
//! `tests/helpers.json`, fed through the model's JSON reading: the
//! default schema's scenarios here, those of protocol v2's lifecycle on
//! the v2 stable release schema (`ACP_UPSTREAM_SCHEMAS`). The generated
//! helpers of each language run the same table in `cargo xtask test`.

use std::path::{Path, PathBuf};

use acp_ir::ir::{Optional, Side};
use acp_ir::lower::{lower, Unsupported};
use acp_ir::rfd::machines::{next_step, Observation, SessionReadyGate, TurnTracker};
use acp_ir::rfd::{self, Turns};
use acp_ir::Ir;
use acp_schema_source::{load, RfdSelection, SourceOptions};
use serde_json::{json, Value};

fn default_ir(rfds: RfdSelection) -> Ir {
    lower(
        &load(&SourceOptions {
            schema_file: None,
            rfds,
        })
        .unwrap(),
        Unsupported::Fail,
    )
    .unwrap()
}

fn scenarios() -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/helpers.json");
    let table: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    table["scenarios"].as_array().unwrap().clone()
}

#[test]
fn the_model_of_the_default_schema_follows_its_rfds() {
    let model = rfd::model(&default_ir(RfdSelection::All));
    let turns = model.turns.expect("the default schema has prompt turns");
    assert_eq!(
        (
            turns.notification.as_str(),
            turns.union.as_str(),
            turns.tag_property.as_str()
        ),
        ("SessionNotification", "SessionUpdate", "sessionUpdate")
    );
    assert_eq!(
        (turns.session.wire.as_str(), turns.update.wire.as_str()),
        ("sessionId", "update")
    );
    let tags: Vec<&str> = turns.output.iter().map(|variant| variant.tag.as_str()).collect();
    assert_eq!(
        tags,
        rfd::TURN_OUTPUT[..8],
        "every v1 turn output tag is a variant of the default schema"
    );
    let replies: Vec<&str> = turns.replies.iter().map(|variant| variant.tag.as_str()).collect();
    assert_eq!(replies, ["agent_message_chunk", "agent_thought_chunk"]);
    assert!(turns.lifecycle.is_none(), "v1 has no state updates");
    let complete = turns.complete.expect("turn-complete is applied");
    assert_eq!(
        (complete.request.wire.as_str(), complete.stop_reason.wire.as_str()),
        ("promptRequestId", "stopReason")
    );
    assert_eq!(
        (turns.request_type.as_str(), turns.stop_reason_type.as_deref()),
        ("RequestId", Some("StopReason"))
    );
    assert_eq!(
        model.status.expect("session-status is applied").type_name,
        "SessionStatus"
    );
    let ready = model.ready.expect("session-ready is applied");
    let openers: Vec<(&str, bool)> = ready
        .openers
        .iter()
        .map(|opener| (opener.method.as_str(), opener.in_result))
        .collect();
    assert_eq!(openers, [("session/new", true), ("session/load", false)]);
    let scoped: Vec<&str> = ready.scoped.iter().map(|scoped| scoped.method.as_str()).collect();
    assert_eq!(
        scoped,
        ["session/update"],
        "the agent's only session-scoped notification in v1"
    );

    let bare = rfd::model(&default_ir(RfdSelection::Nothing));
    assert!(bare
        .turns
        .expect("prompt turns exist without the RFDs")
        .complete
        .is_none());
    assert!(bare.status.is_none());
    assert!(bare.ready.is_none());
}

fn observation(observed: Observation<Value>) -> Value {
    let violations: Vec<Value> = observed
        .violations
        .iter()
        .map(|violation| json!({"rule": violation.kind.rule(), "kind": violation.kind.as_str(), "session": violation.session, "request": violation.request}))
        .collect();
    json!({"turn": observed.turn, "drained": observed.drained, "violations": violations})
}

fn run_gate(setup: &Value, steps: &[Value]) -> Vec<(usize, Value, Value)> {
    let mut gate = SessionReadyGate::new(setup["sessionReady"].as_bool().unwrap());
    let mut checked = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let got = if let Some(session) = step["responded"].as_str() {
            gate.responded(session, step["now"].as_u64().unwrap());
            continue;
        } else if let Some(session) = step["send"].as_str() {
            json!(gate.send(session, step["item"].clone(), step["now"].as_u64().unwrap()))
        } else if let Some(session) = step["ready"].as_str() {
            json!(gate.ready(session))
        } else if let Some(session) = step["closed"].as_str() {
            json!(gate.closed(session))
        } else if let Some(now) = step["expire"].as_u64() {
            let released = gate.expire(now, step["timeout"].as_u64().unwrap());
            json!(released
                .into_iter()
                .map(|(session, items)| json!({"session": session, "items": items}))
                .collect::<Vec<_>>())
        } else {
            panic!("unknown gate step {step}")
        };
        checked.push((index, got, step["expect"].clone()));
    }
    checked
}

fn run_turns(model: &Turns, setup: &Value, steps: &[Value]) -> Vec<(usize, Value, Value)> {
    let mut tracker = if model.lifecycle.is_some() {
        TurnTracker::lifecycle()
    } else {
        TurnTracker::new(setup["turnComplete"].as_bool().unwrap())
    };
    let mut checked = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let observed = if let Some(prompt) = step.get("prompt") {
            tracker.prompt(prompt["session"].as_str().unwrap(), prompt["request"].clone());
            continue;
        } else if let Some(update) = step.get("update") {
            let (session, scope) = model
                .scope_of(update)
                .expect("the scenario's update has a session and a tag");
            tracker.update(&session, scope)
        } else if let Some(response) = step.get("response") {
            let stop = match response.get("accepted") {
                Some(accepted) => Some(accepted.clone()).filter(|accepted| *accepted == json!(true)),
                None => Some(response["stopReason"].clone()).filter(|stop| !stop.is_null()),
            };
            tracker.response(&response["request"], stop)
        } else {
            panic!("unknown turn step {step}")
        };
        checked.push((index, observation(observed), step["expect"].clone()));
    }
    checked
}

#[test]
fn the_reference_machines_decide_every_scenario_as_the_table_says() {
    let model = rfd::model(&default_ir(RfdSelection::All));
    let turns = model.turns.expect("the default schema has prompt turns");
    let counts = run_scenarios(&turns, None);
    assert!(
        counts.values().all(|count| *count >= 3),
        "every helper has scenarios: {counts:?}"
    );
}

/// The v2 stable release schema, as `cargo xtask test` fetched it.
fn v2_ir() -> Ir {
    let root = PathBuf::from(
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`"),
    );
    let schema_file = Some(root.join("sdk-2.4.0/package/schema/v2/schema.json"));
    lower(
        &load(&SourceOptions {
            schema_file,
            rfds: RfdSelection::Nothing,
        })
        .unwrap(),
        Unsupported::Fail,
    )
    .unwrap()
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn the_model_of_v2_reads_the_state_updates_and_the_reference_machines_follow_its_lifecycle() {
    let ir = v2_ir();
    let model = rfd::model(&ir);
    let cancel = model.turn_cancel.expect("v2 cancels a turn with `session/cancel`");
    let method = &ir.methods[&cancel.notification];
    assert!(
        method.gate.is_some(),
        "v2 gates `session/cancel` by the `session` capability"
    );
    assert_eq!(
        method.optional(Side::Agent),
        Some(Optional::ActedOn),
        "the agent's end acts on it, even for an agent that advertises the capability"
    );
    assert_eq!(
        (cancel.end, cancel.stop_reason.as_str(), cancel.cancelled.as_str()),
        (rfd::CancelEnd::Idle, "stopReason", "cancelled"),
        "a cancelled v2 turn ends with an `idle` state update saying `cancelled`"
    );
    assert_eq!(
        cancel
            .permission
            .as_ref()
            .map(|(method, answer)| (method.as_str(), answer.to_string())),
        Some((
            "session/request_permission",
            r#"{"outcome":{"outcome":"cancelled"}}"#.to_owned()
        ))
    );
    assert_eq!(
        cancel.awaiting,
        Some(rfd::Awaiting {
            request: "session/request_permission".to_owned(),
            requires_action: "requires_action".to_owned(),
            running: "running".to_owned(),
        }),
        "a v2 agent's end reports the work that waits for a permission"
    );
    let turns = model.turns.expect("v2 has prompt turns");
    let lifecycle = turns
        .lifecycle
        .as_ref()
        .expect("v2 reports foreground work with state updates");
    assert_eq!(
        (
            lifecycle.variant.tag.as_str(),
            lifecycle.union.as_str(),
            lifecycle.tag_property.as_str(),
            lifecycle.idle.tag.as_str()
        ),
        ("state_update", "StateUpdate", "state", "idle")
    );
    assert!(
        turns.complete.is_none() && turns.stop_reason_type.is_none(),
        "a v2 prompt response carries no stop reason"
    );
    let replies: Vec<&str> = turns.replies.iter().map(|variant| variant.tag.as_str()).collect();
    assert_eq!(replies, rfd::REPLY);
    let counts = run_scenarios(&turns, Some("v2-stable"));
    assert!(
        counts.get("turns").is_some_and(|count| *count >= 5),
        "v2 has its turn scenarios: {counts:?}"
    );
}

/// Runs the scenarios of `schema` (`None`: the default schema's).
fn run_scenarios(turns: &Turns, schema: Option<&str>) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for scenario in scenarios()
        .iter()
        .filter(|scenario| scenario["schema"].as_str() == schema)
    {
        let name = scenario["name"].as_str().unwrap();
        let steps = scenario["steps"].as_array().unwrap();
        let setup = &scenario["setup"];
        let helper = scenario["helper"].as_str().unwrap();
        let checked = match helper {
            "gate" => run_gate(setup, steps),
            "turns" => run_turns(turns, setup, steps),
            "status" => steps
                .iter()
                .enumerate()
                .map(|(index, step)| {
                    let live = step["status"] == rfd::LIVE;
                    let got = next_step(
                        setup["sessionStatus"].as_bool().unwrap(),
                        setup["load"].as_bool().unwrap(),
                        live,
                    );
                    (index, json!(got.as_str()), step["expect"].clone())
                })
                .collect(),
            other => panic!("{name}: unknown helper {other}"),
        };
        assert!(!checked.is_empty(), "{name}: a scenario checks something");
        for (index, got, expected) in checked {
            assert_eq!(got, expected, "{name}, step {index}");
        }
        *counts.entry(helper.to_owned()).or_insert(0) += 1;
    }
    counts
}
