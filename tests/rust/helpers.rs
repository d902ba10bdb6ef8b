//! The RFD helpers of the Rust crate on every scenario of
//! `tests/helpers.json` (copied beside this harness by `cargo xtask test`):
//! the session-ready gate, the turn tracker fed `session/update` params
//! decoded as `SessionNotification`, and `next_step` on a decoded
//! `SessionStatus`, each built from a negotiated initialize pair and
//! deciding as the table says (the TypeScript and Python helpers run the
//! same table). The scenarios of protocol v2 run in `helpers_v2.rs`.

use acp_bindings::helpers::{next_step, NextStep, Observation, SessionReadyGate, TurnTracker};
use acp_bindings::types::{RequestId, SessionNotification, SessionStatus, StopReason};
use acp_bindings::{negotiate, Negotiated};
use serde_json::{json, Value};

const TABLE: &str = include_str!("../helpers.json");

/// A negotiated view with the setup's features, from a v1 initialize pair.
fn negotiated(setup: &Value) -> Negotiated {
    let mut session = serde_json::Map::new();
    for (feature, capability) in [
        ("sessionReady", "ready"),
        ("turnComplete", "turnComplete"),
        ("sessionStatus", "status"),
    ] {
        if setup[feature].as_bool() == Some(true) {
            session.insert(capability.to_owned(), json!({}));
        }
    }
    let request = json!({"protocolVersion": 1, "clientCapabilities": {}});
    let response = json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": setup["load"].as_bool().unwrap_or(false), "sessionCapabilities": session}});
    negotiate(&request, &response).expect("the pair negotiates")
}

fn decoded<T: serde::de::DeserializeOwned>(value: &Value) -> T {
    serde_json::from_value(value.clone()).unwrap_or_else(|error| panic!("{value} does not decode: {error}"))
}

fn observation(observed: Observation) -> Value {
    let violations: Vec<Value> = observed
        .violations
        .iter()
        .map(|violation| json!({"rule": violation.kind.rule(), "kind": violation.kind.as_str(), "session": violation.session, "request": violation.request}))
        .collect();
    json!({"turn": observed.turn, "drained": observed.drained, "violations": violations})
}

fn run_gate(setup: &Value, steps: &[Value]) -> Vec<(usize, Value, Value)> {
    let mut gate = SessionReadyGate::from_negotiated(&negotiated(setup));
    assert_eq!(gate.required(), setup["sessionReady"].as_bool().unwrap());
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

fn run_turns(setup: &Value, steps: &[Value]) -> Vec<(usize, Value, Value)> {
    let mut tracker = TurnTracker::from_negotiated(&negotiated(setup));
    let mut checked = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let observed = if let Some(prompt) = step.get("prompt") {
            let session = prompt["session"].as_str().unwrap();
            let request: RequestId = decoded(&prompt["request"]);
            tracker.prompt(session, request.clone());
            assert_eq!(tracker.pending(session), Some(&request));
            continue;
        } else if let Some(update) = step.get("update") {
            tracker.update(&decoded::<SessionNotification>(update))
        } else if let Some(response) = step.get("response") {
            let stop = Some(&response["stopReason"])
                .filter(|stop| !stop.is_null())
                .map(decoded::<StopReason>);
            tracker.response(&decoded(&response["request"]), stop)
        } else {
            panic!("unknown turn step {step}")
        };
        checked.push((index, observation(observed), step["expect"].clone()));
    }
    checked
}

#[test]
fn the_helpers_decide_every_scenario_as_the_table_says() {
    let table: Value = serde_json::from_str(TABLE).unwrap();
    // The scenarios of other schemas run on their bindings (`helpers_v2.rs`).
    let scenarios: Vec<&Value> = table["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|scenario| scenario.get("schema").is_none())
        .collect();
    assert!(!scenarios.is_empty());
    for scenario in scenarios {
        let name = scenario["name"].as_str().unwrap();
        let (setup, steps) = (&scenario["setup"], scenario["steps"].as_array().unwrap());
        let checked = match scenario["helper"].as_str().unwrap() {
            "gate" => run_gate(setup, steps),
            "turns" => run_turns(setup, steps),
            "status" => {
                let view = negotiated(setup);
                steps
                    .iter()
                    .enumerate()
                    .map(|(index, step)| {
                        (
                            index,
                            json!(next_step(&view, &decoded::<SessionStatus>(&step["status"])).as_str()),
                            step["expect"].clone(),
                        )
                    })
                    .collect()
            }
            other => panic!("{name}: unknown helper {other}"),
        };
        assert!(!checked.is_empty(), "{name}: a scenario checks something");
        for (index, got, expected) in checked {
            assert_eq!(got, expected, "{name}, step {index}");
        }
    }
}

/// The helpers as an agent and a client use them: seed 000's early
/// `available_commands_update` held until `session/ready`, seed 004's late
/// chunk reported.
#[test]
fn an_agent_and_a_client_use_the_helpers() {
    let request = json!({"protocolVersion": 1, "clientCapabilities": {}});
    let response =
        json!({"protocolVersion": 1, "agentCapabilities": {"sessionCapabilities": {"ready": {}, "turnComplete": {}}}});
    let negotiated = negotiate(&request, &response).unwrap();

    let mut gate = SessionReadyGate::from_negotiated(&negotiated);
    gate.responded("sess_1", 0);
    assert!(gate.send("sess_1", "available_commands_update", 1).is_empty());
    assert_eq!(gate.ready("sess_1"), ["available_commands_update"]);

    let mut turns = TurnTracker::from_negotiated(&negotiated);
    turns.prompt("sess_1", RequestId::Integer(2));
    let done: SessionNotification = decoded(
        &json!({"sessionId": "sess_1", "update": {"sessionUpdate": "turn_complete", "promptRequestId": 2, "stopReason": "end_turn"}}),
    );
    assert!(turns.update(&done).violations.is_empty());
    let answered = turns.response(&RequestId::Integer(2), Some(StopReason::EndTurn));
    assert_eq!(answered.drained, Some(RequestId::Integer(2)));
    let late: SessionNotification = decoded(
        &json!({"sessionId": "sess_1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Done."}}}),
    );
    let violation = &turns.update(&late).violations[0];
    assert_eq!(
        (violation.kind.rule(), violation.kind.as_str()),
        ("R4", "update_after_response")
    );

    assert_eq!(next_step(&negotiated, &SessionStatus::Live), NextStep::NotNegotiated);
}
