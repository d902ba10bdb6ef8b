//! The agent's end keeps the handshake on protocol v1
//! (`docs/connection.md`, "The handshake"): nothing but `initialize` before
//! `initialize` was answered, the version it answers whatever its handler
//! says (v1 has no unsupported-version error: the latest, 1), the
//! `agentCapabilities` member always present, and the one answer to an
//! unknown session.

use std::sync::{Arc, Mutex};

use acp_bindings::connection::{connect_agent, ConnectOptions, Dropped};
use acp_bindings::methods::{Agent, Client, FsReadTextFileHandler, LoadSessionHandler, ModesHandler};
use acp_bindings::types::*;
use serde_json::{json, Value};

/// An agent that answers `initialize` with a version of its own and no
/// capabilities, and counts the requests its handlers got.
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
        Ok(serde_json::from_value(json!({ "protocolVersion": 7 })).unwrap())
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        self.got("session/new");
        Ok(NewSessionResponse::new("s"))
    }
    async fn session_cancel(&self, _: CancelNotification) {
        self.got("session/cancel");
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        Err(acp_bindings::ends::session_not_found(params.session_id.as_str()))
    }
}

/// Feeds `lines` to an agent's end (each handler finishes before the next
/// line is read): what it wrote, what it reported, what its handlers got.
fn exchange(lines: &[Value]) -> (Vec<Value>, Vec<Dropped>, Vec<String>) {
    let mut input = Vec::new();
    for line in lines {
        input.extend(serde_json::to_vec(line).unwrap());
        input.push(b'\n');
    }
    let written = Arc::new(Mutex::new(Vec::new()));
    let dropped = Arc::new(Mutex::new(Vec::new()));
    let reports = dropped.clone();
    let agent = Counting::default();
    let handler = agent.clone();
    let (_, driver) = connect_agent(
        |_| handler,
        futures::io::Cursor::new(input),
        futures::io::AllowStdIo::new(Written(written.clone())),
        ConnectOptions::default().dropped(move |report| reports.lock().unwrap().push(report)),
    );
    futures::executor::block_on(driver).expect("the end reads its input to the end");
    let answers = written
        .lock()
        .unwrap()
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("the end writes JSON"))
        .collect();
    let dropped = dropped.lock().unwrap().clone();
    let got = agent.0.lock().unwrap().clone();
    (answers, dropped, got)
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
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": { "protocolVersion": version } })
}

fn new_session(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "session/new", "params": { "cwd": "/tmp", "mcpServers": [] } })
}

#[test]
fn nothing_but_initialize_is_taken_before_initialize_was_answered() {
    let cancel = json!({ "jsonrpc": "2.0", "method": "session/cancel", "params": { "sessionId": "s" } });
    let (answers, dropped, got) = exchange(&[new_session(1), cancel.clone(), initialize(2, 1), new_session(3), cancel]);
    assert_eq!(
        answers[0],
        json!({ "jsonrpc": "2.0", "id": 1, "error": {
            "code": -32600, "message": "initialize has not been answered", "data": { "method": "session/new" } } })
    );
    assert_eq!(answers[1]["id"], 2);
    assert_eq!(
        answers[2],
        json!({ "jsonrpc": "2.0", "id": 3, "result": { "sessionId": "s" } })
    );
    assert_eq!(got, ["initialize", "session/new", "session/cancel"]);
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(
        (
            dropped[0].method.as_deref(),
            dropped[0].line,
            dropped[0].error.code.value()
        ),
        (Some("session/cancel"), 2, -32600)
    );
}

#[test]
fn the_answer_names_the_version_the_end_supports_and_carries_capabilities() {
    for requested in [0, 1, 2, 65535] {
        let (answers, dropped, _) = exchange(&[initialize(1, requested)]);
        assert!(dropped.is_empty(), "{dropped:?}");
        let result = &answers[0]["result"];
        assert_eq!(result["protocolVersion"], 1, "asked for {requested}: {result}");
        assert!(result["agentCapabilities"].is_object(), "{result}");
        let request = &initialize(1, requested)["params"];
        if requested >= 1 {
            let negotiated = acp_bindings::negotiation::negotiate(request, result).expect("the client accepts it");
            assert_eq!(serde_json::to_value(&negotiated).unwrap()["protocolVersion"], 1);
        }
    }
}

#[test]
fn an_unknown_session_is_answered_with_the_schemas_resource_not_found() {
    let prompt = json!({ "jsonrpc": "2.0", "id": 2, "method": "session/prompt",
        "params": { "sessionId": "nowhere", "prompt": [{ "type": "text", "text": "hi" }] } });
    let (answers, _, _) = exchange(&[initialize(1, 1), prompt]);
    assert_eq!(
        answers[1]["error"],
        json!({ "code": -32002, "message": "Resource not found", "data": { "sessionId": "nowhere" } })
    );
}

/// An agent whose `initialize` writes `capabilities`, and that gives the
/// handler of `session/load` when `loads`.
struct Loader {
    capabilities: Value,
    loads: bool,
}

impl Agent for Loader {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(serde_json::from_value(json!({ "protocolVersion": 1, "agentCapabilities": self.capabilities })).unwrap())
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Ok(NewSessionResponse::new("s"))
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        Err(acp_bindings::ends::session_not_found(params.session_id.as_str()))
    }
    fn load_session_handler(&self) -> Option<&impl LoadSessionHandler> {
        self.loads.then_some(self)
    }
}

impl LoadSessionHandler for Loader {
    async fn session_load(&self, _: LoadSessionRequest) -> Result<LoadSessionResponse, Error> {
        Ok(LoadSessionResponse::new())
    }
}

/// What an agent's end given `agent` writes when it reads `lines`, one
/// JSON value per line written.
fn agent_answers<A: Agent + Send + Sync, const N: usize>(agent: A, lines: [Value; N]) -> Vec<Value> {
    let mut input = Vec::new();
    for line in lines {
        input.extend(serde_json::to_vec(&line).unwrap());
        input.push(b'\n');
    }
    let written = Arc::new(Mutex::new(Vec::new()));
    let (_, driver) = connect_agent(
        |_| agent,
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
    answers
}

/// What the agent's end answers `initialize` with, and then `session/load`.
fn answers_of(agent: Loader) -> (Value, Value) {
    let load = json!({ "jsonrpc": "2.0", "id": 2, "method": "session/load",
        "params": { "sessionId": "s", "cwd": "/", "mcpServers": [] } });
    let answers = agent_answers(agent, [initialize(1, 1), load]);
    (answers[0]["result"]["agentCapabilities"].clone(), answers[1].clone())
}

/// The agent's end advertises `loadSession` from the handler it was given
/// (`docs/connection.md`, "Capabilities from handlers"), whatever its
/// `initialize` wrote.
#[test]
fn the_agents_end_advertises_load_session_exactly_when_it_has_the_handler() {
    let (capabilities, load) = answers_of(Loader {
        capabilities: json!({ "loadSession": true, "promptCapabilities": { "image": true } }),
        loads: false,
    });
    assert_eq!(capabilities, json!({ "promptCapabilities": { "image": true } }));
    assert_eq!(load["error"]["code"], -32601, "{load}");
    let (capabilities, load) = answers_of(Loader {
        capabilities: json!({}),
        loads: true,
    });
    assert_eq!(capabilities, json!({ "loadSession": true }));
    assert_eq!(load["result"], json!({}), "{load}");
}

/// A client that handles what it must and nothing it may leave out.
struct Bare;

impl Client for Bare {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        Err(serde_json::from_value(json!({"code": -32603, "message": "not asked here"})).unwrap())
    }
    async fn session_update(&self, _: SessionNotification) {}
}

/// Once `initialize` is done, the client's end refuses a call the agent did
/// not advertise (v1's `loadSession` gates `session/load`), before it is
/// written.
#[test]
fn a_clients_call_the_agent_did_not_advertise_fails_before_it_is_written() {
    use futures::TryStreamExt;
    let (to_client, incoming) = futures::channel::mpsc::unbounded::<std::io::Result<Vec<u8>>>();
    let written = Arc::new(Mutex::new(Vec::new()));
    let (end, driver) = acp_bindings::connection::connect_client(
        |_| Bare,
        incoming.into_async_read(),
        futures::io::AllowStdIo::new(Written(written.clone())),
        ConnectOptions::default(),
    );
    let script = async {
        // The Rust end numbers its requests from 0.
        let answer = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}\n".to_vec();
        let request = serde_json::from_value(json!({"protocolVersion": 1})).unwrap();
        let (initialized, ()) = futures::join!(end.initialize(request), async {
            to_client.unbounded_send(Ok(answer)).unwrap();
        });
        initialized.expect("the agent answered initialize");
        let load = serde_json::from_value(json!({"sessionId": "s", "cwd": "/", "mcpServers": []})).unwrap();
        let refused = end.session_load(load).await;
        to_client.close_channel();
        end.close();
        refused
    };
    let (refused, driven) = futures::executor::block_on(futures::future::join(script, driver));
    driven.expect("the end reads its input to the end");
    let Err(acp_bindings::connection::CallError::Refused(error)) = refused else {
        panic!("session/load was not refused: {refused:?}");
    };
    assert_eq!(
        (
            error.method.as_str(),
            error.pointer.as_str(),
            error.side,
            error.capability.as_str()
        ),
        ("session/load", "", "agent", "/agentCapabilities/loadSession")
    );
    let lines = written
        .lock()
        .unwrap()
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.is_empty())
        .count();
    assert_eq!(lines, 1, "nothing but initialize was written");
}

/// A client that reads files, and writes `capabilities` in its `initialize`.
struct Reader;

impl Client for Reader {
    async fn session_request_permission(
        &self,
        _: RequestPermissionRequest,
    ) -> Result<RequestPermissionResponse, Error> {
        Err(serde_json::from_value(json!({"code": -32603, "message": "not asked here"})).unwrap())
    }
    async fn session_update(&self, _: SessionNotification) {}
    fn fs_read_text_file_handler(&self) -> Option<&impl FsReadTextFileHandler> {
        Some(self)
    }
}

impl FsReadTextFileHandler for Reader {
    async fn fs_read_text_file(&self, _: ReadTextFileRequest) -> Result<ReadTextFileResponse, Error> {
        Ok(ReadTextFileResponse::new(""))
    }
}

/// The `initialize` a client's end sends for `capabilities` written by the
/// caller (`None`: left out).
fn initialize_sent<C: Client + Send + Sync>(client: C, capabilities: Option<Value>) -> Value {
    use futures::TryStreamExt;
    let (to_client, incoming) = futures::channel::mpsc::unbounded::<std::io::Result<Vec<u8>>>();
    let written = Arc::new(Mutex::new(Vec::new()));
    let (end, driver) = acp_bindings::connection::connect_client(
        |_| client,
        incoming.into_async_read(),
        futures::io::AllowStdIo::new(Written(written.clone())),
        ConnectOptions::default(),
    );
    let mut params = json!({"protocolVersion": 1});
    if let Some(capabilities) = capabilities {
        params["clientCapabilities"] = capabilities;
    }
    let script = async {
        let answer = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":1}}\n".to_vec();
        let (initialized, ()) = futures::join!(end.initialize(serde_json::from_value(params).unwrap()), async {
            to_client.unbounded_send(Ok(answer)).unwrap();
        });
        initialized.expect("the agent answered initialize");
        to_client.close_channel();
        end.close();
    };
    let ((), driven) = futures::executor::block_on(futures::future::join(script, driver));
    driven.expect("the end reads its input to the end");
    let line = written
        .lock()
        .unwrap()
        .split(|byte| *byte == b'\n')
        .next()
        .unwrap()
        .to_vec();
    serde_json::from_slice::<Value>(&line).unwrap()["params"].clone()
}

/// The client's end advertises the file system and terminal gates from the
/// handlers it was given, whatever its `initialize` wrote; with nothing
/// written and nothing to advertise, it leaves the member out.
#[test]
fn the_clients_end_advertises_exactly_the_gates_it_has_handlers_for() {
    let written = json!({ "terminal": true, "fs": { "writeTextFile": true }, "elicitation": { "form": {} } });
    assert_eq!(
        initialize_sent(Reader, Some(written))["clientCapabilities"],
        json!({ "fs": { "readTextFile": true } })
    );
    assert_eq!(
        initialize_sent(Reader, None)["clientCapabilities"],
        json!({ "fs": { "readTextFile": true } })
    );
    assert_eq!(initialize_sent(Bare, None), json!({ "protocolVersion": 1 }));
}

/// Per-session gates: the client's end refuses `session/set_mode` and
/// `session/set_config_option` on a session whose `session/new` answer did
/// not offer `modes` (`configOptions`), before anything is written; it
/// sends them on a session whose answer offered them, and on one it did
/// not see opened.
#[test]
fn the_client_refuses_per_session_methods_its_session_was_not_offered() {
    use futures::{FutureExt, TryStreamExt};
    let (to_client, incoming) = futures::channel::mpsc::unbounded::<std::io::Result<Vec<u8>>>();
    let written = Arc::new(Mutex::new(Vec::new()));
    let (end, driver) = acp_bindings::connection::connect_client(
        |_| Bare,
        incoming.into_async_read(),
        futures::io::AllowStdIo::new(Written(written.clone())),
        ConnectOptions::default(),
    );
    let lines = || {
        written
            .lock()
            .unwrap()
            .split(|byte| *byte == b'\n')
            .filter(|line| !line.is_empty())
            .count()
    };
    let script = async {
        // The Rust end numbers its requests from 0; each is answered as it is made.
        let call = |id: u64, method: &'static str, params: Value, result: Value| {
            let end = &end;
            let to_client = &to_client;
            async move {
                let answer = format!("{}\n", json!({"jsonrpc": "2.0", "id": id, "result": result}));
                let (called, ()) = futures::join!(end.request(method, params), async {
                    to_client.unbounded_send(Ok(answer.into_bytes())).unwrap();
                });
                called
            }
        };
        call(
            0,
            "initialize",
            json!({"protocolVersion": 1}),
            json!({"protocolVersion": 1}),
        )
        .await
        .expect("initialize");
        let new = json!({"cwd": "/", "mcpServers": []});
        call(1, "session/new", new.clone(), json!({"sessionId": "a"}))
            .await
            .expect("session/new");
        let set_mode = |session: &str| json!({"sessionId": session, "modeId": "m"});
        let set_option = json!({"sessionId": "a", "configId": "o", "value": "v"});
        // A refusal is immediate; a call that is written would wait for an
        // answer that never comes.
        let refused = [
            end.request("session/set_mode", set_mode("a")).now_or_never(),
            end.request("session/set_config_option", set_option).now_or_never(),
        ];
        // Checked here: a call that was not refused would take the ids the
        // answers below are written for.
        let refusals: Vec<(String, String, &str, String)> = refused
            .into_iter()
            .map(|outcome| match outcome {
                Some(Err(acp_bindings::connection::CallError::Refused(error))) => {
                    (error.method, error.pointer, error.side, error.capability)
                }
                other => panic!("not refused: {other:?}"),
            })
            .collect();
        assert_eq!(
            refusals,
            [
                ("session/set_mode".into(), String::new(), "agent", "/modes".into()),
                (
                    "session/set_config_option".into(),
                    String::new(),
                    "agent",
                    "/configOptions".into()
                ),
            ]
        );
        let written_after_refusals = lines();
        let modes = json!({"currentModeId": "m", "availableModes": [{"id": "m", "name": "M"}]});
        call(2, "session/new", new, json!({"sessionId": "b", "modes": modes}))
            .await
            .expect("session/new");
        let offered = call(3, "session/set_mode", set_mode("b"), json!({})).await;
        let elsewhere = call(4, "session/set_mode", set_mode("elsewhere"), json!({})).await;
        to_client.close_channel();
        end.close();
        (written_after_refusals, offered, elsewhere)
    };
    let ((written_after_refusals, offered, elsewhere), driven) =
        futures::executor::block_on(futures::future::join(script, driver));
    driven.expect("the end reads its input to the end");
    assert_eq!(
        written_after_refusals, 2,
        "nothing but initialize and session/new was written"
    );
    offered.expect("set_mode on a session offered modes");
    elsewhere.expect("set_mode on a session not seen opened");
    assert_eq!(lines(), 5);
}

/// An agent whose `session/new` answer writes `modes` and `configOptions`,
/// and that gives the handler of `session/set_mode` when `sets_modes`.
struct Moded {
    sets_modes: bool,
}

impl Agent for Moded {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(serde_json::from_value(json!({ "protocolVersion": 1 })).unwrap())
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let modes = json!({ "currentModeId": "m", "availableModes": [{ "id": "m", "name": "M" }] });
        let options = json!([{ "id": "o", "name": "O", "type": "select", "currentValue": "a",
            "options": [{ "value": "a", "name": "A" }] }]);
        Ok(serde_json::from_value(json!({ "sessionId": "s", "modes": modes, "configOptions": options })).unwrap())
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        Err(acp_bindings::ends::session_not_found(params.session_id.as_str()))
    }
    fn modes_handler(&self) -> Option<&impl ModesHandler> {
        self.sets_modes.then_some(self)
    }
}

impl ModesHandler for Moded {
    async fn session_set_mode(&self, _: SetSessionModeRequest) -> Result<SetSessionModeResponse, Error> {
        Ok(SetSessionModeResponse::new())
    }
}

/// The members of the agent's `session/new` answer (after `initialize`), sorted.
fn opening_answer_members(agent: Moded) -> Vec<String> {
    let answers = agent_answers(agent, [initialize(1, 1), new_session(2)]);
    let result = answers[1]["result"]
        .as_object()
        .expect("session/new is answered with a result");
    let mut members: Vec<String> = result.keys().cloned().collect();
    members.sort();
    members
}

/// Per-session gates at the agent's end (`docs/connection.md`, "Per-session
/// gates"): without the handler of `session/set_mode` (nor that of
/// `session/set_config_option`), the `session/new` answer its handler wrote
/// goes out without `modes` (`configOptions`), so the end never offers what
/// it cannot answer.
#[test]
fn the_agents_end_removes_the_offers_it_has_no_handler_for() {
    assert_eq!(opening_answer_members(Moded { sets_modes: false }), ["sessionId"]);
}

/// With the handler of `session/set_mode`, the `modes` its handler wrote
/// stay in the answer (`configOptions`, still without a handler, does not).
#[test]
fn the_agents_end_keeps_the_offers_it_has_the_handler_for() {
    assert_eq!(
        opening_answer_members(Moded { sets_modes: true }),
        ["modes", "sessionId"]
    );
}
