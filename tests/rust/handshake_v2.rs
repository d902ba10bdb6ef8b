//! The agent's end keeps the handshake on protocol v2
//! (`docs/connection.md`, "The handshake"): nothing but `initialize` before
//! `initialize` was answered, the version it answers whatever its handler
//! says, the schema's unsupported-version error (-32022, with the requested
//! and the supported versions) to a request below every version it
//! supports, and the `capabilities` member always present.

use std::sync::{Arc, Mutex};

use acp_bindings::connection::{connect_agent, ConnectOptions};
use acp_bindings::methods::{Agent, SessionHandler};
use acp_bindings::*;
use serde_json::{json, Value};

/// An agent that answers `initialize` with a version of its own and no
/// capabilities, handles the session methods (so its end advertises
/// `session`), and records the requests its handlers got.
#[derive(Clone, Default)]
struct Counting(Arc<Mutex<Vec<String>>>);

impl Counting {
    fn got(&self, method: &str) {
        self.0.lock().unwrap().push(method.to_owned());
    }
}

impl Agent for Counting {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        self.got("initialize");
        Ok(serde_json::from_value(json!({ "protocolVersion": 7, "info": { "name": "a", "version": "1" } })).unwrap())
    }

    fn session_handler(&self) -> Option<&impl SessionHandler> {
        Some(self)
    }
}

impl SessionHandler for Counting {
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        self.got("session/new");
        Ok(NewSessionResponse::new("s"))
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        Err(ends::session_not_found(params.session_id.as_str()))
    }

    async fn session_list(&self, _: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
        Ok(ListSessionsResponse::new(vec![]))
    }

    async fn session_resume(&self, params: ResumeSessionRequest) -> Result<ResumeSessionResponse, Error> {
        Err(ends::session_not_found(params.session_id.as_str()))
    }

    async fn session_close(&self, params: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        Err(ends::session_not_found(params.session_id.as_str()))
    }
}

/// Feeds `lines` to an agent's end (each handler finishes before the next
/// line is read): what it wrote and what its handlers got.
fn exchange(lines: &[Value]) -> (Vec<Value>, Vec<String>) {
    let mut input = Vec::new();
    for line in lines {
        input.extend(serde_json::to_vec(line).unwrap());
        input.push(b'\n');
    }
    let written = Arc::new(Mutex::new(Vec::new()));
    let agent = Counting::default();
    let handler = agent.clone();
    let (_, driver) = connect_agent(
        |_| handler,
        futures::io::Cursor::new(input),
        futures::io::AllowStdIo::new(Written(written.clone())),
        ConnectOptions::default(),
    );
    futures::executor::block_on(driver).expect("the end reads its input to the end");
    let answers = written
        .lock()
        .unwrap()
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("the end writes JSON"))
        .collect();
    let got = agent.0.lock().unwrap().clone();
    (answers, got)
}

/// A `std::io::Write` into a shared buffer.
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

fn initialize(id: u64, version: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": { "protocolVersion": version, "info": { "name": "c", "version": "1" } } })
}

fn new_session(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "session/new", "params": { "cwd": "/tmp" } })
}

#[test]
fn a_request_below_every_supported_version_gets_the_schemas_error() {
    let (answers, got) = exchange(&[initialize(1, 1), new_session(2)]);
    assert_eq!(
        answers[0]["error"],
        json!({ "code": -32022, "message": "Unsupported protocol version",
            "data": { "requested": 1, "supported": [2] } })
    );
    assert!(got.is_empty(), "the handler was called: {got:?}");
    assert_eq!(
        answers[1]["error"]["code"], -32600,
        "the failed initialize leaves the end uninitialized"
    );
}

#[test]
fn the_answer_names_the_version_the_end_supports_and_carries_capabilities() {
    for requested in [2, 3, 65535] {
        let (answers, got) = exchange(&[initialize(1, requested), new_session(2)]);
        let result = &answers[0]["result"];
        assert_eq!(result["protocolVersion"], 2, "asked for {requested}: {result}");
        // Nothing written, and `session` from the handlers.
        assert_eq!(result["capabilities"], json!({"session": {}}), "{result}");
        let negotiated =
            negotiation::negotiate(&initialize(1, requested)["params"], result).expect("the client accepts the answer");
        assert_eq!(serde_json::to_value(&negotiated).unwrap()["protocolVersion"], 2);
        assert_eq!(got, ["initialize", "session/new"]);
        assert_eq!(answers[1]["result"]["sessionId"], "s");
    }
}

#[test]
fn an_unknown_session_is_answered_with_the_schemas_resource_not_found() {
    let prompt = json!({ "jsonrpc": "2.0", "id": 2, "method": "session/prompt",
        "params": { "sessionId": "nowhere", "prompt": [{ "type": "text", "text": "hi" }] } });
    let (answers, _) = exchange(&[initialize(1, 2), prompt]);
    assert_eq!(
        answers[1]["error"],
        json!({ "code": -32002, "message": "Resource not found", "data": { "sessionId": "nowhere" } })
    );
}
