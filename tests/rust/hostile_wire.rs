//! Hostile wire input through the Rust bindings: every case of
//! `tests/hostile-wire.json` (copied beside this harness by `cargo xtask
//! test`) decoded from bytes with `serde_json::from_slice` as its type, from a
//! `serde_json::Value` with `codec::decode`, by method name with the
//! `methods` enums, and as the params of one message (or a whole line) to
//! one end of a connection (`connect_agent` / `connect_client`, whose answer or `dropped`
//! report is checked), each giving the outcome the table states for Rust.

use std::sync::{Arc, Mutex};

use acp_bindings::connection::{connect_agent, connect_client, ConnectOptions, Dropped};
use acp_bindings::methods::{agent, client, Agent, Client, TerminalHandler};
use acp_bindings::types::*;
use serde_json::Value;

const TABLE: &str = include_str!("../hostile-wire.json");

/// The wire bytes of a case: its template with `@` filled.
fn wire(case: &Value) -> Vec<u8> {
    let template = case["wire"]["template"].as_str().expect("a template");
    let fill = &case["wire"]["fill"];
    let (before, after) = template.split_once('@').unwrap_or((template, ""));
    let mut bytes = before.as_bytes().to_vec();
    if let Some(depth) = fill["nest"].as_u64() {
        bytes.extend(std::iter::repeat_n(b'[', depth as usize));
        bytes.push(b'1');
        bytes.extend(std::iter::repeat_n(b']', depth as usize));
    } else if let Some(unit) = fill["string"].as_str() {
        bytes.push(b'"');
        bytes.extend(
            unit.repeat(fill["times"].as_u64().expect("times") as usize)
                .into_bytes(),
        );
        bytes.push(b'"');
    } else if let Some(text) = fill["text"].as_str() {
        bytes.extend(text.repeat(fill["times"].as_u64().unwrap_or(1) as usize).into_bytes());
    } else if let Some(hex) = fill["bytes"].as_str() {
        bytes.extend(
            (0..hex.len())
                .step_by(2)
                .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex")),
        );
    }
    bytes.extend(after.as_bytes());
    bytes
}

/// The value of a case built in memory (for text the parser refuses to read
/// this deep): the template parsed with the hole as a marker, the marker
/// replaced by the nested arrays.
fn built(case: &Value) -> Value {
    let template = case["wire"]["template"]
        .as_str()
        .expect("a template")
        .replace('@', "\"@hole\"");
    let mut value: Value = serde_json::from_str(&template).expect("the template parses");
    let depth = case["wire"]["fill"]["nest"]
        .as_u64()
        .expect("only nesting is built in memory");
    let mut nested = Value::from(1);
    for _ in 0..depth {
        nested = Value::Array(vec![nested]);
    }
    let mut pending = vec![&mut value];
    while let Some(current) = pending.pop() {
        if current == "@hole" {
            *current = nested;
            break;
        }
        match current {
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(members) => pending.extend(members.values_mut()),
            _ => {}
        }
    }
    value
}

/// A JSON pointer as the table writes it: a string, or `prefix` then `repeat` `times` times.
fn pointer(spec: &Value) -> String {
    match spec {
        Value::String(text) => text.clone(),
        _ => format!(
            "{}{}",
            spec["prefix"].as_str().expect("prefix"),
            spec["repeat"]
                .as_str()
                .expect("repeat")
                .repeat(spec["times"].as_u64().expect("times") as usize)
        ),
    }
}

/// `serde_json::from_slice` as the case's type, re-encoded.
fn from_slice(type_name: &str, bytes: &[u8]) -> Result<Value, serde_json::Error> {
    fn typed<T: serde::de::DeserializeOwned + serde::Serialize>(bytes: &[u8]) -> Result<Value, serde_json::Error> {
        serde_json::to_value(serde_json::from_slice::<T>(bytes)?)
    }
    match type_name {
        "SessionNotification" => typed::<SessionNotification>(bytes),
        "PromptRequest" => typed::<PromptRequest>(bytes),
        "CreateTerminalRequest" => typed::<CreateTerminalRequest>(bytes),
        "CancelNotification" => typed::<CancelNotification>(bytes),
        other => panic!("no type {other} in this test"),
    }
}

/// Decodes `params` by method name on the case's side, re-encoded; the error as JSON.
fn by_method(case: &Value, params: Value) -> Result<Value, Value> {
    let method = case["method"].as_str().expect("a method");
    let decoded = match (case["side"].as_str(), case["kind"].as_str()) {
        (Some("agent"), Some("request")) => agent::Request::decode(method, params).map(|call| call.params()),
        (Some("agent"), _) => agent::Notification::decode(method, params).map(|call| call.params()),
        (Some("client"), Some("request")) => client::Request::decode(method, params).map(|call| call.params()),
        _ => client::Notification::decode(method, params).map(|call| call.params()),
    };
    decoded
        .map(|encoded| encoded.expect("a decoded value encodes"))
        .map_err(|error| serde_json::to_value(error).expect("errors encode"))
}

/// What decoding the value `input` (by type and by method) must give under `expected`.
fn check_value(case: &Value, expected: &Value, input: Value) {
    let name = case["name"].as_str().unwrap_or_default();
    let type_name = case["type"].as_str().expect("a type");
    match expected["outcome"].as_str() {
        Some("accepted") => {
            let wanted = match expected["encodes"].as_str() {
                Some(text) => serde_json::from_str(text).expect("`encodes` parses"),
                None => input.clone(),
            };
            let encoded = acp_bindings::roundtrip(type_name, &input).unwrap_or_else(|error| panic!("{name}: {error}"));
            assert!(encoded == wanted, "{name}: re-encoded to something else");
            assert!(
                by_method(case, input).is_ok_and(|encoded| encoded == wanted),
                "{name}: by method, not the same value"
            );
        }
        Some("error") => {
            let at = pointer(&expected["pointer"]);
            let error = acp_bindings::roundtrip(type_name, &input).expect_err(name);
            assert_eq!(error.path, at, "{name}: {}", error.message);
            let error = by_method(case, input).expect_err(name);
            assert_eq!(error["code"], -32602, "{name}: {error}");
            assert_eq!(error["data"]["pointer"], at.as_str(), "{name}");
        }
        Some("method-not-found") => {
            let error = by_method(case, input).expect_err(name);
            assert_eq!(error["code"], -32601, "{name}: {error}");
        }
        Some("extension") => {
            assert!(
                by_method(case, input.clone()).is_ok_and(|params| params == input),
                "{name}: not an extension call with the params as they came"
            );
        }
        other => panic!("{name}: no value outcome {other:?}"),
    }
}

/// The error of `from_slice` says what the table's `message` says, if it says anything.
fn says(case: &Value, expected: &Value, error: &serde_json::Error) {
    if let Some(message) = expected["message"].as_str() {
        assert!(error.to_string().contains(message), "{}: {error}", case["name"]);
    }
}

fn check(case: &Value) {
    let name = case["name"].as_str().unwrap_or_default();
    let expected = &case["expect"]["rust"];
    let bytes = wire(case);
    let type_name = case["type"].as_str().expect("a type");
    match expected["outcome"].as_str() {
        Some("parse-error") => {
            let error = serde_json::from_slice::<Value>(&bytes).expect_err(name);
            assert!(error.is_syntax() || error.is_data(), "{name}: {error}");
            says(case, expected, &from_slice(type_name, &bytes).expect_err(name));
            if !expected["built"].is_null() {
                check_value(case, &expected["built"], built(case));
            }
        }
        Some("error") => {
            says(case, expected, &from_slice(type_name, &bytes).expect_err(name));
            let value = serde_json::from_slice::<Value>(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            check_value(case, expected.get("value").unwrap_or(expected), value);
        }
        Some("accepted") => {
            let value: Value = serde_json::from_slice(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            let encoded = from_slice(type_name, &bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
            let wanted = match expected["encodes"].as_str() {
                Some(text) => serde_json::from_str(text).expect("`encodes` parses"),
                None => value.clone(),
            };
            assert!(encoded == wanted, "{name}: from_slice re-encoded to something else");
            if case["wire"]["exact"] == true {
                let text = case["wire"]["fill"]["text"]
                    .as_str()
                    .expect("an exact case fills in text");
                assert!(
                    serde_json::to_string(&encoded).expect("encodes").contains(text),
                    "{name}: {text} was not written back as it came"
                );
            }
            check_value(case, expected, value);
        }
        Some("method-not-found" | "extension") => check_value(
            case,
            expected,
            serde_json::from_slice(&bytes).expect("the params parse"),
        ),
        other => panic!("{name}: no outcome {other:?} for Rust"),
    }
}

/// What the handlers of a connection end were given, encoded.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Value>>>);

impl Seen {
    fn push(&self, params: &impl serde::Serialize) {
        let encoded = serde_json::to_value(params).expect("handled params encode");
        self.0.lock().unwrap().push(encoded);
    }
}

impl Agent for Seen {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(params.protocol_version))
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Err(Error::method_not_found())
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        self.push(&params);
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

impl Client for Seen {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        Err(Error::method_not_found())
    }
    async fn session_update(&self, params: SessionNotification) {
        self.push(&params);
    }

    fn terminal_handler(&self) -> Option<&impl TerminalHandler> {
        Some(self)
    }
}

/// The cases create terminals; the rest of the capability's methods know of
/// none.
impl TerminalHandler for Seen {
    async fn terminal_create(&self, params: CreateTerminalRequest) -> Result<CreateTerminalResponse, Error> {
        self.push(&params);
        Ok(CreateTerminalResponse::new("t"))
    }
    async fn terminal_output(&self, _: TerminalOutputRequest) -> Result<TerminalOutputResponse, Error> {
        Err(Error::invalid_params())
    }
    async fn terminal_wait_for_exit(
        &self,
        _: WaitForTerminalExitRequest,
    ) -> Result<WaitForTerminalExitResponse, Error> {
        Err(Error::invalid_params())
    }
    async fn terminal_kill(&self, _: KillTerminalRequest) -> Result<KillTerminalResponse, Error> {
        Err(Error::invalid_params())
    }
    async fn terminal_release(&self, _: ReleaseTerminalRequest) -> Result<ReleaseTerminalResponse, Error> {
        Err(Error::invalid_params())
    }
}

/// A `std::io::Write` into a shared buffer.
#[derive(Clone, Default)]
struct Written(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Written {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buffer);
        Ok(buffer.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The `initialize` an agent's end gets before a case's message (id 0), unless
/// the case says `initialized: false`.
const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}
"#;

/// Whether the case's message goes to an agent's end that answered `initialize` first.
fn initialized_first(case: &Value) -> bool {
    case["side"] == "agent" && case["initialized"] != false && case["line"] != true
}

/// Sends `bytes` as the params of one message (a request with id 7, or a
/// notification), or as the whole line (a `line` case), to an end of the
/// case's side, an agent's end after `initialize` unless the case says
/// otherwise: what the end answered
/// (besides the answer to `initialize`), reported and handed to its handler.
fn through_connection(case: &Value, bytes: &[u8]) -> (Vec<Value>, Vec<Dropped>, Vec<Value>) {
    let request = case["kind"] == "request";
    let method = serde_json::to_string(&case["method"]).expect("a method");
    let id = if request { r#""id":7,"# } else { "" };
    let mut line = if initialized_first(case) {
        INITIALIZE.to_vec()
    } else {
        Vec::new()
    };
    if case["line"] == true {
        line.extend_from_slice(bytes);
        line.push(b'\n');
    } else {
        line.extend_from_slice(format!(r#"{{"jsonrpc":"2.0",{id}"method":{method},"params":"#).as_bytes());
        line.extend_from_slice(bytes);
        line.extend_from_slice(b"}\n");
    }
    let (seen, written, dropped) = (Seen::default(), Written::default(), Arc::new(Mutex::new(Vec::new())));
    let reports = dropped.clone();
    let options = ConnectOptions::default().dropped(move |report| reports.lock().unwrap().push(report));
    let (reader, writer) = (
        futures::io::Cursor::new(line),
        futures::io::AllowStdIo::new(written.clone()),
    );
    let handler = seen.clone();
    let driven = if case["side"] == "agent" {
        futures::executor::block_on(connect_agent(|_| handler, reader, writer, options).1)
    } else {
        futures::executor::block_on(connect_client(|_| handler, reader, writer, options).1)
    };
    driven.expect("the end reads its input to the end");
    let answers = written
        .0
        .lock()
        .unwrap()
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice::<Value>(line).expect("the end writes JSON"))
        .filter(|answer| !(initialized_first(case) && answer["id"] == 0))
        .collect();
    let dropped = dropped.lock().unwrap().clone();
    let seen = seen.0.lock().unwrap().clone();
    (answers, dropped, seen)
}

/// What the connection must do with the case's bytes: the table's
/// `connection` for Rust.
fn check_connection(case: &Value, expected: &Value, bytes: &[u8]) {
    let name = case["name"].as_str().unwrap_or_default();
    let connection = &expected["connection"];
    assert!(
        connection.is_object(),
        "{name}: the table gives no connection outcome for Rust"
    );
    let (answers, dropped, seen) = through_connection(case, bytes);
    let errors: Vec<Value> = answers
        .iter()
        .filter_map(|answer| answer.get("error").cloned())
        .chain(
            dropped
                .iter()
                .map(|report| serde_json::to_value(&report.error).expect("errors encode")),
        )
        .collect();
    if connection["code"].is_null() {
        assert!(
            errors.is_empty(),
            "{name}: an error for a message the handler should get: {errors:?}"
        );
        assert_eq!(seen.len(), 1, "{name}: the handler was not called");
        let source = expected.get("value").unwrap_or(expected);
        let wanted = match source["encodes"].as_str() {
            Some(text) => serde_json::from_str(text).expect("`encodes` parses"),
            None => serde_json::from_slice::<Value>(bytes).expect("accepted text parses"),
        };
        assert!(seen[0] == wanted, "{name}: the handler got another value");
        return;
    }
    assert!(seen.is_empty(), "{name}: the handler was called");
    assert_eq!(errors.len(), 1, "{name}: {errors:?}");
    assert_eq!(
        errors[0]["code"], connection["code"],
        "{name}: {}",
        errors[0]["message"]
    );
    if !connection["pointer"].is_null() {
        assert_eq!(
            errors[0]["data"]["pointer"],
            pointer(&connection["pointer"]).as_str(),
            "{name}"
        );
    }
    if case["kind"] == "request" && connection["code"] != -32700 {
        assert_eq!(answers[0]["id"], 7, "{name}: the answer names the request");
    }
    if let Some(report) = dropped.first() {
        let line = 1 + u64::from(initialized_first(case));
        assert_eq!(report.line, line, "{name}: the report names the message's line");
    }
}

#[test]
fn every_hostile_case_gives_its_documented_outcome() {
    let table: Value = serde_json::from_str(TABLE).expect("the table parses");
    assert_eq!(
        table["maxDepth"],
        acp_bindings::codec::MAX_DEPTH,
        "the table's depth limit is the crate's"
    );
    let cases = table["cases"].as_array().expect("cases");
    assert!(cases.len() >= 20, "the table lost cases");
    for case in cases {
        // A whole line states only what a connection does with it.
        if case["line"] != true {
            check(case);
        }
        check_connection(case, &case["expect"]["rust"], &wire(case));
    }
}

/// The end scans a line in chunks before it parses only what it acts on:
/// a number beyond a double's range is refused as not JSON wherever it
/// falls, its digit and its exponent on either side of a chunk's edge too.
#[test]
fn a_number_beyond_a_double_is_refused_wherever_it_falls_in_the_line() {
    let case = serde_json::json!({"kind": "notification", "side": "client", "method": "session/update"});
    for padding in 150..450 {
        let params = format!(
            r#"{{"sessionId":"s","update":{{"sessionUpdate":"agent_message_chunk","content":{{"type":"text","text":"{}"}}}},"_meta":{{"n":1e400}}}}"#,
            "x".repeat(padding)
        );
        let (answers, dropped, seen) = through_connection(&case, params.as_bytes());
        assert!(seen.is_empty(), "padding {padding}: the handler was called");
        let codes: Vec<Value> = answers
            .iter()
            .map(|answer| answer["error"]["code"].clone())
            .chain(
                dropped
                    .iter()
                    .map(|report| serde_json::to_value(&report.error).expect("errors encode")["code"].clone()),
            )
            .collect();
        assert_eq!(codes, [serde_json::json!(-32700)], "padding {padding}");
    }
}

#[test]
fn a_value_as_deep_as_the_parser_allows_decodes_and_one_deeper_does_not() {
    let at_limit = "[".repeat(acp_bindings::codec::MAX_DEPTH) + &"]".repeat(acp_bindings::codec::MAX_DEPTH);
    serde_json::from_str::<Value>(&at_limit).expect("serde_json reads MAX_DEPTH levels");
    let over = format!("[{at_limit}]");
    serde_json::from_str::<Value>(&over).expect_err("serde_json stops one level deeper");
}
