//! The turn tracker of the Rust crate for protocol v2 (the latest release's
//! stable schema) on the v2 scenarios of `tests/helpers.json`: the
//! `session/update` params decoded as `UpdateSessionNotification`, turns
//! ended by the `idle` state update, and the agent's reply after it
//! reported. The TypeScript and Python helpers run the same scenarios.

use acp_bindings::helpers::{Observation, TurnTracker};
use acp_bindings::types::{RequestId, UpdateSessionNotification};
use serde_json::{json, Value};

const TABLE: &str = include_str!("../helpers.json");

/// The scenarios of this schema's bindings.
const SCHEMA: &str = "v2-stable";

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

#[test]
fn the_tracker_follows_the_v2_lifecycle_as_the_table_says() {
    let table: Value = serde_json::from_str(TABLE).unwrap();
    let scenarios: Vec<&Value> = table["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|scenario| scenario["schema"] == SCHEMA)
        .collect();
    assert!(scenarios.len() >= 5, "the table has v2 scenarios");
    for scenario in scenarios {
        let name = scenario["name"].as_str().unwrap();
        assert_eq!(
            scenario["helper"], "turns",
            "{name}: v2 scenarios are the turn tracker's"
        );
        let mut tracker = TurnTracker::new();
        let mut checked = 0;
        for (index, step) in scenario["steps"].as_array().unwrap().iter().enumerate() {
            let observed = if let Some(prompt) = step.get("prompt") {
                let session = prompt["session"].as_str().unwrap();
                let request: RequestId = decoded(&prompt["request"]);
                tracker.prompt(session, request.clone());
                assert_eq!(tracker.pending(session), Some(&request));
                continue;
            } else if let Some(update) = step.get("update") {
                tracker.update(&decoded::<UpdateSessionNotification>(update))
            } else if let Some(response) = step.get("response") {
                tracker.response(&decoded(&response["request"]), response["accepted"].as_bool().unwrap())
            } else {
                panic!("{name}: unknown turn step {step}")
            };
            assert_eq!(observation(observed), step["expect"], "{name}, step {index}");
            checked += 1;
        }
        assert!(checked > 0, "{name}: a scenario checks something");
    }
}
