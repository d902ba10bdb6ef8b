//! The checker driven message by message on the default schema: what it
//! forgets (so memory stays flat), where it draws the line for R1, and
//! gated parts of params. The rules on whole captures are tested through
//! `cargo xtask check-trace` (xtask/tests/check_trace.rs).

use serde_json::{json, Value};

use super::{Checker, Direction, Place};
use acp_ir::lower::{lower, Unsupported};

const C: Direction = Direction::ClientToAgent;
const A: Direction = Direction::AgentToClient;

fn checker() -> Checker {
    let schema = acp_schema_source::load(&acp_schema_source::SourceOptions::default()).unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    Checker::new(&schema.document, &ir).unwrap()
}

/// Feeds `messages`, numbering lines from 1; returns the (line, rule) of
/// every finding, the end's included.
fn run(checker: &mut Checker, messages: &[(Direction, Value)]) -> Vec<(u64, &'static str)> {
    let mut found = Vec::new();
    for (index, (direction, message)) in messages.iter().enumerate() {
        let at = Place {
            input: 0,
            line: index as u64 + 1,
        };
        found.extend(
            checker
                .message(at, *direction, message.clone())
                .into_iter()
                .map(|finding| (finding.at.line, finding.rule)),
        );
    }
    found
}

fn opening(agent_capabilities: Value) -> Vec<(Direction, Value)> {
    vec![
        (
            C,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1, "clientCapabilities": {}}}),
        ),
        (
            A,
            json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1, "agentCapabilities": agent_capabilities}}),
        ),
        (
            C,
            json!({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}}),
        ),
        (A, json!({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s"}})),
    ]
}

fn update(session: &str, update: Value) -> (Direction, Value) {
    (
        A,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session, "update": update}}),
    )
}

fn chunk() -> Value {
    json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}})
}

#[test]
fn answered_requests_and_drained_turns_are_forgotten() {
    let mut checker = checker();
    let mut messages = opening(json!({"sessionCapabilities": {"turnComplete": {}}}));
    for id in 2..1002 {
        messages.push((
            C,
            json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
        ));
        messages.push(update("s", chunk()));
        messages.push(update(
            "s",
            json!({"sessionUpdate": "turn_complete", "promptRequestId": id, "stopReason": "end_turn"}),
        ));
        messages.push((
            A,
            json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": "end_turn"}}),
        ));
    }
    assert_eq!(run(&mut checker, &messages), Vec::new());
    assert_eq!(checker.rpc.in_flight(), 0, "every request was answered");
    assert_eq!(checker.order.awaiting(), 0, "every turn drained");
    assert!(checker.finish().is_empty());
}

#[test]
fn r1_watches_only_sessions_the_agent_answered_new_or_load_for() {
    let mut checker = checker();
    let mut messages = opening(json!({"sessionCapabilities": {"ready": {}}}));
    messages.push(update("other", chunk()));
    messages.push(update(
        "s",
        json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
    ));
    messages.push((
        C,
        json!({"jsonrpc": "2.0", "method": "session/ready", "params": {"sessionId": "s"}}),
    ));
    messages.push(update(
        "s",
        json!({"sessionUpdate": "available_commands_update", "availableCommands": []}),
    ));
    assert_eq!(run(&mut checker, &messages), vec![(6, "R1")]);
}

#[test]
fn a_session_never_made_ready_is_r1_at_its_response_when_the_capture_ends() {
    let mut checker = checker();
    let messages = opening(json!({"sessionCapabilities": {"ready": {}}}));
    assert_eq!(run(&mut checker, &messages), Vec::new());
    let found: Vec<(u64, &str)> = checker
        .finish()
        .into_iter()
        .map(|finding| (finding.at.line, finding.rule))
        .collect();
    assert_eq!(found, vec![(4, "R1")]);
}

#[test]
fn the_history_replayed_by_session_load_is_no_turn_output() {
    let mut checker = checker();
    let mut messages = opening(json!({"loadSession": true}));
    messages.push((
        C,
        json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s", "prompt": []}}),
    ));
    messages.push((
        A,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}),
    ));
    messages.push((C, json!({"jsonrpc": "2.0", "id": 3, "method": "session/load", "params": {"sessionId": "s", "cwd": "/", "mcpServers": []}})));
    messages.push(update("s", chunk()));
    messages.push((A, json!({"jsonrpc": "2.0", "id": 3, "result": {}})));
    assert_eq!(run(&mut checker, &messages), Vec::new());
    messages.push(update("s", chunk()));
    let mut checker = self::checker();
    assert_eq!(
        run(&mut checker, &messages),
        vec![(10, "R4")],
        "after the load, a chunk is the last turn's again"
    );
}

#[test]
fn gated_parts_of_params_and_missing_params_are_found() {
    let mut checker = checker();
    let mut messages = opening(json!({}));
    // An image block without promptCapabilities.image, and a turn_complete
    // the agent did not advertise.
    messages.push((C, json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": {"sessionId": "s", "prompt": [{"type": "image", "data": "", "mimeType": "image/png"}]}})));
    messages.push(update(
        "s",
        json!({"sessionUpdate": "turn_complete", "promptRequestId": 2, "stopReason": "end_turn"}),
    ));
    messages.push((C, json!({"jsonrpc": "2.0", "id": 3, "method": "session/cancel"})));
    let found = run(&mut checker, &messages);
    assert_eq!(
        found,
        vec![(5, "NOT_ADVERTISED"), (6, "NOT_ADVERTISED"), (7, "UNKNOWN_METHOD")]
    );
    let mut checker = self::checker();
    let mut messages = opening(json!({}));
    messages.push((C, json!({"jsonrpc": "2.0", "method": "session/cancel"})));
    assert_eq!(
        run(&mut checker, &messages),
        vec![(5, "SCHEMA")],
        "absent params are no CancelNotification"
    );
}

#[test]
fn every_rule_is_listed_once() {
    let mut names: Vec<&str> = super::RULES.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), super::RULES.len());
}
