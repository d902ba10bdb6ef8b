//! `cargo xtask check-trace` as a user meets it: the captures of
//! `tests/traces/` (the seeds' bugs, the RFD rules, JSON-RPC hygiene, clean
//! connections with and without each capability), the three input forms,
//! both output formats, and bad input (one error naming file and line,
//! exit 1, nothing on standard output).

#[path = "support/cli.rs"]
mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{scratch, stderr, xtask};
use serde_json::{json, Value};

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/traces")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

/// The JSON report of a run with `arguments` and its exit code.
fn report(arguments: &[&str]) -> (Option<i32>, Value) {
    let output = xtask(&[&["check-trace", "--format", "json"], arguments].concat());
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    let report =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("not JSON ({error}): {text}\n{}", stderr(&output)));
    (output.status.code(), report)
}

/// The (line, rule) of every finding of a run with `arguments`; the exit
/// code must be 2 with findings and 0 without.
fn findings(arguments: &[&str]) -> Vec<(u64, String)> {
    let (code, report) = report(arguments);
    let found: Vec<(u64, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| {
            (
                finding["line"].as_u64().unwrap(),
                finding["rule"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(code, Some(if found.is_empty() { 0 } else { 2 }), "{report}");
    found
}

fn rules(found: &[(u64, &str)]) -> Vec<(u64, String)> {
    found.iter().map(|(line, rule)| (*line, (*rule).to_owned())).collect()
}

#[test]
fn seed_000_commands_before_session_ready_is_r1() {
    assert_eq!(
        findings(&[&fixture("seed000-commands-before-ready.jsonl")]),
        rules(&[(5, "R1")])
    );
}

#[test]
fn seed_004_a_chunk_after_the_end_turn_response_is_r4() {
    assert_eq!(
        findings(&[&fixture("seed004-chunk-after-end-turn.jsonl")]),
        rules(&[(10, "R4")])
    );
}

#[test]
fn seed_003_a_stream_without_a_leading_ack_and_an_ack_before_a_400_are_r5() {
    assert_eq!(
        findings(&[&fixture("seed003-no-leading-ack.jsonl")]),
        rules(&[(1, "R5")])
    );
    assert_eq!(
        findings(&[&fixture("seed003-ack-before-400.jsonl")]),
        rules(&[(2, "R5")])
    );
    assert_eq!(findings(&[&fixture("seed003-clean-streams.jsonl")]), rules(&[]));
    let folder = scratch("frames");
    let path = folder.join("frames.jsonl");
    std::fs::write(
        &path,
        "{\"stream\": \"s\", \"frame\": \"ack\"}\n{\"stream\": \"s\", \"frame\": {\"data\": 1}}\n",
    )
    .unwrap();
    assert_eq!(
        findings(&[path.to_str().unwrap()]),
        rules(&[(1, "FRAME"), (2, "FRAME")])
    );
}

#[test]
fn a_duplicate_turn_complete_is_r2() {
    assert_eq!(
        findings(&[&fixture("duplicate-turn-complete.jsonl")]),
        rules(&[(8, "R2")])
    );
}

#[test]
fn a_missing_turn_complete_and_a_different_stop_reason_are_r2() {
    let (_, report) = report(&[&fixture("missing-turn-complete.jsonl")]);
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|finding| finding["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        findings(&[&fixture("missing-turn-complete.jsonl")]),
        rules(&[(10, "R2"), (7, "R2")]),
        "{messages:?}"
    );
    assert!(
        messages[0].contains("different stop reasons") && messages[1].contains("no `turn_complete`"),
        "{messages:?}"
    );
}

#[test]
fn calls_the_peer_did_not_advertise_are_not_advertised() {
    let (_, report) = report(&[&fixture("not-advertised.jsonl")]);
    assert_eq!(
        findings(&[&fixture("not-advertised.jsonl")]),
        rules(&[(5, "NOT_ADVERTISED"), (8, "NOT_ADVERTISED")])
    );
    assert_eq!(report["findings"][0]["request"], 2);
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("/agentCapabilities/loadSession"),
        "{report}"
    );
    assert!(
        report["findings"][1]["message"]
            .as_str()
            .unwrap()
            .contains("/clientCapabilities/fs/writeTextFile"),
        "{report}"
    );
}

#[test]
fn json_rpc_hygiene_and_schema_findings() {
    let expected = [
        (1, "BEFORE_INIT"),
        (7, "DUPLICATE_ID"),
        (9, "UNKNOWN_ID"),
        (10, "SCHEMA"),
        (12, "UNKNOWN_METHOD"),
        (13, "JSONRPC"),
    ];
    assert_eq!(findings(&[&fixture("hygiene.jsonl")]), rules(&expected));
    let (_, report) = report(&[&fixture("hygiene.jsonl")]);
    let schema = &report["findings"][3];
    assert_eq!(
        (schema["session"].as_str(), schema["request"].as_u64()),
        (Some("sess_1"), Some(3))
    );
    assert!(
        schema["message"].as_str().unwrap().contains("at /prompt"),
        "the JSON pointer: {schema}"
    );
    let summary: Value = expected
        .iter()
        .map(|(_, rule)| ((*rule).to_owned(), json!(1)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    assert_eq!(report["summary"], summary);
}

#[test]
fn clean_connections_pass_with_and_without_each_capability() {
    for name in [
        "clean-all-capabilities.jsonl",
        "clean-no-capabilities.jsonl",
        "clean-ready-only.jsonl",
        "clean-turn-complete-only.jsonl",
    ] {
        assert_eq!(findings(&[&fixture(name)]), rules(&[]), "{name}");
        let output = xtask(&["check-trace", &fixture(name)]);
        assert_eq!(output.status.code(), Some(0));
        assert!(
            String::from_utf8_lossy(&output.stdout).starts_with("summary: no findings in "),
            "{name}"
        );
    }
}

#[test]
fn the_schema_decides_what_a_message_is() {
    // Without the turn-complete overlay, `turn_complete` is no update.
    let found = findings(&["--no-rfd", &fixture("clean-turn-complete-only.jsonl")]);
    assert!(
        !found.is_empty() && found.iter().all(|(_, rule)| rule == "SCHEMA"),
        "{found:?}"
    );
    let found = findings(&["--rfd", "session-ready", &fixture("clean-ready-only.jsonl")]);
    assert_eq!(found, rules(&[]));
}

#[test]
fn text_output_has_a_line_per_finding_and_a_summary() {
    let output = xtask(&["check-trace", &fixture("seed000-commands-before-ready.jsonl")]);
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].ends_with("seed000-commands-before-ready.jsonl:5: R1 session=sess_1 request=-: the agent sent `session/update` (`available_commands_update`) for session sess_1 before the client's `session/ready`"), "{text}");
    assert_eq!(
        lines[1],
        "summary: 1 finding in 7 messages, 0 reply-stream frames: R1 1"
    );
}

/// The records of a JSON Lines fixture.
fn records(name: &str) -> Vec<Value> {
    std::fs::read_to_string(fixture(name))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn a_json_array_gives_the_findings_of_its_json_lines_with_the_lines_of_its_elements() {
    let folder = scratch("array");
    let array = folder.join("trace.json");
    std::fs::write(
        &array,
        serde_json::to_string_pretty(&records("seed004-chunk-after-end-turn.jsonl")).unwrap(),
    )
    .unwrap();
    let found = findings(&[array.to_str().unwrap()]);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, "R4");
    let text = std::fs::read_to_string(&array).unwrap();
    let line = text.lines().nth(found[0].0 as usize - 1).unwrap();
    assert_eq!(line.trim(), "{", "the finding points at the start of the last element");
    assert_eq!(
        text.lines()
            .skip(found[0].0 as usize)
            .filter(|line| line.trim_start().starts_with("\"direction\""))
            .count(),
        1
    );
}

/// Splits a fixture into the two tees, each line a bare message or one
/// with its time.
fn tees(folder: &Path, name: &str, with_time: bool) -> (String, String) {
    let mut sides = (String::new(), String::new());
    for record in records(name) {
        let line = if with_time {
            json!({"message": record["message"], "time": record["time"]})
        } else {
            record["message"].clone()
        };
        let side = if record["direction"] == "client-to-agent" {
            &mut sides.0
        } else {
            &mut sides.1
        };
        side.push_str(&format!("{line}\n"));
    }
    let (client, agent) = (folder.join("client.jsonl"), folder.join("agent.jsonl"));
    std::fs::write(&client, sides.0).unwrap();
    std::fs::write(&agent, sides.1).unwrap();
    (client.to_str().unwrap().to_owned(), agent.to_str().unwrap().to_owned())
}

#[test]
fn two_tees_are_merged_by_time_and_findings_name_their_file() {
    let folder = scratch("tees");
    let (client, agent) = tees(&folder, "clean-all-capabilities.jsonl", true);
    assert_eq!(
        findings(&["--client-to-agent", &client, "--agent-to-client", &agent]),
        rules(&[])
    );
    let (client, agent) = tees(&folder, "seed004-chunk-after-end-turn.jsonl", false);
    let (code, report) = report(&["--client-to-agent", &client, "--agent-to-client", &agent]);
    assert_eq!(code, Some(2));
    assert_eq!(report["findings"].as_array().unwrap().len(), 1, "{report}");
    let finding = &report["findings"][0];
    assert_eq!(
        (
            finding["rule"].as_str(),
            finding["line"].as_u64(),
            finding["file"].as_str()
        ),
        (Some("R4"), Some(7), Some(agent.as_str()))
    );
}

#[test]
fn a_v2_exchange_negotiates_under_a_v2_schema() {
    let folder = scratch("v2");
    let schema = folder.join("v2.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2-minimal.schema.json"),
        &schema,
    )
    .unwrap();
    let trace = |session: &str| {
        let lines = [
            json!({"direction": "client-to-agent", "message": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2, "capabilities": {}}}}),
            json!({"direction": "agent-to-client", "message": {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 2, "capabilities": {"session": serde_json::from_str::<Value>(session).unwrap()}}}}),
            json!({"direction": "client-to-agent", "message": {"jsonrpc": "2.0", "id": 1, "method": "session/delete", "params": {}}}),
            json!({"direction": "agent-to-client", "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}),
        ];
        let path = folder.join("trace.jsonl");
        std::fs::write(&path, lines.iter().map(|line| format!("{line}\n")).collect::<String>()).unwrap();
        findings(&["--schema", schema.to_str().unwrap(), "--no-rfd", path.to_str().unwrap()])
    };
    assert_eq!(trace(r#"{"delete": {}}"#), rules(&[]));
    assert_eq!(trace("{}"), rules(&[(3, "NOT_ADVERTISED")]));
    // The default schema implements version 1: the exchange does not
    // negotiate (nothing is judged advertised), and its `session/delete`
    // needs a `sessionId`.
    let path = folder.join("trace.jsonl");
    assert_eq!(
        findings(&[path.to_str().unwrap()]),
        rules(&[(2, "NEGOTIATION"), (3, "SCHEMA")])
    );
}

/// `check-trace` fails with one error line naming `expected`, exit 1 and
/// nothing on standard output.
fn assert_rejected(arguments: &[&str], expected: &[&str]) {
    let output = xtask(&[&["check-trace"], arguments].concat());
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        output.stdout.is_empty(),
        "no partial output: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    let message = stderr(&output);
    assert!(
        message.starts_with("error: ") && message.trim_end().lines().count() == 1,
        "one error line: {message}"
    );
    for part in expected {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
}

#[test]
fn unreadable_input_is_one_error_naming_file_and_line() {
    let folder = scratch("bad");
    let write = |name: &str, text: &str| {
        let path = folder.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let first = std::fs::read_to_string(fixture("seed000-commands-before-ready.jsonl")).unwrap();
    // Findings before the bad line are not printed either.
    assert_rejected(
        &[&write("json.jsonl", &format!("{first}{{oops\n"))],
        &["json.jsonl:8: not valid JSON"],
    );
    assert_rejected(
        &[&write(
            "direction.jsonl",
            "\n{\"direction\": \"sideways\", \"message\": {}}\n",
        )],
        &["direction.jsonl:2:", "`direction`"],
    );
    assert_rejected(
        &[&write("record.jsonl", "{\"jsonrpc\": \"2.0\", \"method\": \"x\"}\n")],
        &["record.jsonl:1:", "`direction` and `message`, or `stream` and `frame`"],
    );
    assert_rejected(
        &[&write(
            "time.jsonl",
            "{\"direction\": \"client-to-agent\", \"message\": {}, \"time\": \"yesterday\"}\n",
        )],
        &["time.jsonl:1:", "not RFC 3339"],
    );
    assert_rejected(
        &[&write(
            "array.json",
            "[\n  {\"stream\": \"s\", \"frame\": null},\n  {\"stream\": \n",
        )],
        &["array.json:", "not closed"],
    );
    assert_rejected(
        &[folder.join("absent.jsonl").to_str().unwrap()],
        &["absent.jsonl: cannot read"],
    );
    let client = write(
        "client.jsonl",
        "{\"jsonrpc\": \"2.0\", \"id\": 0, \"method\": \"initialize\", \"params\": {\"protocolVersion\": 1}}\n",
    );
    assert_rejected(
        &[
            "--client-to-agent",
            &client,
            "--agent-to-client",
            &write("agent.jsonl", "\n\nnot json\n"),
        ],
        &["agent.jsonl:3: not valid JSON"],
    );
}

#[test]
fn a_generated_trace_is_clean_and_the_same_for_the_same_seed() {
    let folder = scratch("generated");
    let generate = |name: &str, seed: &str| {
        let path = folder.join(name);
        let output = xtask(&[
            "gen-trace",
            "--out",
            path.to_str().unwrap(),
            "--bytes",
            "300k",
            "--seed",
            seed,
        ]);
        assert!(output.status.success(), "{}", stderr(&output));
        path
    };
    let (first, again, other) = (
        generate("a.jsonl", "7"),
        generate("b.jsonl", "7"),
        generate("c.jsonl", "8"),
    );
    let bytes = std::fs::read(&first).unwrap();
    assert!(bytes.len() >= 300 * 1024);
    assert_eq!(bytes, std::fs::read(&again).unwrap());
    assert_ne!(bytes, std::fs::read(&other).unwrap());
    assert_eq!(findings(&[first.to_str().unwrap()]), rules(&[]));
    let text = String::from_utf8(bytes).unwrap();
    for part in [
        "\"turn_complete\"",
        "\"session/ready\"",
        "\"session/request_permission\"",
        "\"tool_call_update\"",
    ] {
        assert!(text.contains(part), "the generated trace exercises {part}");
    }
}

#[test]
fn the_documented_example_is_r1_and_its_table_lists_every_rule() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/trace-checker.md")).unwrap();
    let example = readme
        .split("```jsonl\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a jsonl example in docs/trace-checker.md");
    assert_eq!(example.lines().count(), 5);
    let folder = scratch("readme");
    let path = folder.join("example.jsonl");
    std::fs::write(&path, example).unwrap();
    assert_eq!(findings(&[path.to_str().unwrap()]), rules(&[(5, "R1"), (4, "R1")]));
    for (rule, _) in acp_trace::RULES {
        assert!(
            readme.contains(&format!("`{rule}`")),
            "docs/trace-checker.md's rule table lacks {rule}"
        );
    }
}

#[test]
fn a_ready_timeout_allows_the_agent_s_fallback_by_record_times() {
    let folder = scratch("timeout");
    // seed 000 with times: the agent answers session/new at 10:00:00 and
    // sends its commands six seconds later, without session/ready.
    let mut lines: Vec<Value> = records("seed000-commands-before-ready.jsonl");
    for (index, line) in lines.iter_mut().enumerate() {
        line["time"] = json!(if index < 4 {
            "2026-05-11T10:00:00Z"
        } else {
            "2026-05-11T12:00:06+02:00"
        });
    }
    let path = folder.join("timed.jsonl");
    std::fs::write(&path, lines.iter().map(|line| format!("{line}\n")).collect::<String>()).unwrap();
    let path = path.to_str().unwrap();
    assert_eq!(findings(&["--ready-timeout", "5000", path]), rules(&[]));
    assert_eq!(findings(&["--ready-timeout", "10000", path]), rules(&[(5, "R1")]));
    assert_eq!(findings(&[path]), rules(&[(5, "R1")]));
    assert_eq!(
        findings(&[
            "--ready-timeout",
            "5000",
            &fixture("seed000-commands-before-ready.jsonl")
        ]),
        rules(&[(5, "R1")]),
        "no times, no fallback"
    );
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn upstream_v1_and_v2_schemas_judge_their_own_prompt_lifecycle() {
    let root = PathBuf::from(
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`"),
    );
    let schema = |version: &str| {
        root.join("sdk-2.4.0/package/schema")
            .join(version)
            .join("schema.json")
            .to_str()
            .unwrap()
            .to_owned()
    };
    let v2 = schema("v2");
    // In v2 the prompt response only acknowledges the prompt: the turn's
    // updates follow it, and that is no R4.
    assert_eq!(
        findings(&["--schema", &v2, "--no-rfd", &fixture("v2-clean.jsonl")]),
        rules(&[])
    );
    let folder = scratch("upstream-v2");
    let mut lines = records("v2-clean.jsonl");
    lines[1]["message"]["result"]["capabilities"] = json!({});
    let path = folder.join("no-session.jsonl");
    std::fs::write(&path, lines.iter().map(|line| format!("{line}\n")).collect::<String>()).unwrap();
    assert_eq!(
        findings(&["--schema", &v2, "--no-rfd", path.to_str().unwrap()]),
        rules(&[
            (3, "NOT_ADVERTISED"),
            (5, "NOT_ADVERTISED"),
            (7, "NOT_ADVERTISED"),
            (8, "NOT_ADVERTISED"),
            (9, "NOT_ADVERTISED")
        ]),
        "v2: without the agent's `session` capability, no session method and no session/update"
    );
    assert_eq!(
        findings(&[
            "--schema",
            &schema("v1"),
            "--no-rfd",
            &fixture("seed004-chunk-after-end-turn.jsonl")
        ]),
        rules(&[(10, "R4")])
    );
    // v2's R2: the agent's reply after the `idle` that ended its turn (a
    // background tool call update after it is no finding), and a prompt
    // accepted whose turn no `idle` ends, charged to its response.
    assert_eq!(
        findings(&["--schema", &v2, "--no-rfd", &fixture("v2-reply-after-idle.jsonl")]),
        rules(&[(10, "R2")])
    );
    assert_eq!(
        findings(&["--schema", &v2, "--no-rfd", &fixture("v2-no-idle.jsonl")]),
        rules(&[(6, "R2")])
    );
}
