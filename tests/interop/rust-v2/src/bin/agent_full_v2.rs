//! Our full-surface Rust agent on protocol v2, for `cargo xtask
//! conformance`: the same agent as `tests/interop/python/agent_full_v2.py`,
//! on the `Agent` trait of the v2 stable bindings over its own stdio. It
//! advertises every capability of the v2 schema (`capabilities.session`
//! with its prompt content, MCP transports and `additionalDirectories`
//! written by its `initialize`; `session` and `session.delete` from the
//! handlers it gives) and implements each simply: sessions in memory
//! (new, list with the `cwd` filter, resume with `replayFrom: start`
//! replaying the conversation, close, delete), config options (a mode, a
//! model and a boolean), an agent-handled authentication method that always
//! succeeds, a terminal one (offered when the client can run it: `--login`,
//! which always succeeds) and `auth/logout`. A prompt is acknowledged at once
//! (`running`, then its message id) and its turn is played by a worker: the
//! user message, a plan, a tool call that asks permission (the connection
//! reports `requires_action` meanwhile) and runs in a terminal, the prompt's
//! words streamed back one chunk at a time, and `idle`. `session/cancel` is
//! the connection's: once the turn's `Cancellation` fires, the turn ends at
//! its next step with an `idle` the connection marks `cancelled` (the
//! permission request it waits on fails first); `session/close` ends it at
//! once with `idle` and the `cancelled` stop reason of its own. Nothing of
//! the turn follows it. Payloads are written as JSON
//! and decoded into the generated types (`codec::decode`), as the Python
//! twin does.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_bindings::codec::decode;
use acp_bindings::connection::{connect_agent, AgentEnd, Cancellation, ConnectOptions};
use acp_bindings::methods::{Agent, ConfigOptionsHandler, SessionDeleteHandler, SessionHandler};
use acp_bindings::*;
use acp_interop::{reader, Trace, Writer};
use futures::channel::mpsc;
use futures::StreamExt;
use serde_json::{json, Value};

/// The pause between two steps of a turn, so that a turn lasts long enough to be cancelled.
const PAUSE: Duration = Duration::from_millis(50);

/// The turn in flight in a session: its prompt's message id and the reply streamed so far.
struct Turn {
    message: String,
    text: String,
    /// The connection's cancellation of the turn.
    cancellation: Cancellation,
}

struct Session {
    cwd: String,
    directories: Value,
    mode: String,
    model: String,
    brief: bool,
    history: Vec<Value>,
    updated: String,
    turn: Option<Turn>,
}

type Sessions = Arc<Mutex<BTreeMap<String, Session>>>;

/// A prompt's turn, for the worker: its session, message id and prompt.
type Work = (String, String, Value);

struct Full {
    end: AgentEnd,
    sessions: Sessions,
    /// Sessions created, prompts acknowledged.
    counts: Mutex<(u64, u64)>,
    work: mpsc::UnboundedSender<Work>,
}

fn choices(values: &[(&str, &str)]) -> Value {
    values
        .iter()
        .map(|(value, name)| json!({"value": value, "name": name}))
        .collect()
}

const MODES: [(&str, &str); 2] = [("ask", "Ask"), ("code", "Code")];
const MODELS: [(&str, &str); 2] = [("small", "Small"), ("large", "Large")];

fn now() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or(0);
    // A civil date from days since the epoch (Howard Hinnant's algorithm).
    let (days, rest) = ((seconds / 86_400) as i64, seconds % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60
    )
}

/// Standard base64 (RFC 4648) of `bytes`.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let word = chunk
            .iter()
            .enumerate()
            .fold(0u32, |word, (index, byte)| word | u32::from(*byte) << (16 - 8 * index));
        for index in 0..4 {
            if index <= chunk.len() {
                out.push(char::from(ALPHABET[(word >> (18 - 6 * index) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A payload of the generated types as JSON.
macro_rules! to_json {
    ($value:expr) => {
        serde_json::to_value($value).unwrap_or(Value::Null)
    };
}

/// JSON decoded into a payload of the generated types.
macro_rules! decoded {
    ($value:expr) => {
        decode($value).map_err(|error| Error::internal_error().data(json!(error.to_string())))
    };
}

fn invalid(message: String) -> Error {
    Error::invalid_params().data(json!(message))
}

/// Sends `update` for `session`. (The generated crate allows its large `Error`, too.)
#[allow(clippy::result_large_err)]
fn send(end: &AgentEnd, session: &str, update: Value) -> Result<(), Error> {
    let notification: UpdateSessionNotification = decoded!(json!({"sessionId": session, "update": update}))?;
    end.session_update(notification)
        .map_err(|error| Error::internal_error().data(json!(error.to_string())))
}

fn state(state: &str, stop: Option<&str>) -> Value {
    let mut update = json!({"sessionUpdate": "state_update", "state": state});
    if let Some(stop) = stop {
        update["stopReason"] = json!(stop);
    }
    update
}

/// Ends the turn of `message` in `session`, unless it has ended: its reply
/// joins the history, then `idle` with `stop` (none: the connection's).
fn end_turn(end: &AgentEnd, sessions: &mut BTreeMap<String, Session>, id: &str, message: &str, stop: Option<&str>) {
    let Some(session) = sessions.get_mut(id) else {
        return;
    };
    if session.turn.as_ref().is_none_or(|turn| turn.message != message) {
        return;
    }
    if let Some(turn) = session.turn.take() {
        if !turn.text.is_empty() {
            session.history.push(json!({
                "sessionUpdate": "agent_message", "messageId": format!("reply-to-{message}"),
                "content": [{"type": "text", "text": turn.text}],
            }));
        }
    }
    session.updated = now();
    let _ = send(end, id, state("idle", stop));
}

/// Ends the turn in flight in `id`, if any, as cancelled.
fn cancel(end: &AgentEnd, sessions: &mut BTreeMap<String, Session>, id: &str) {
    let message = sessions
        .get(id)
        .and_then(|session| session.turn.as_ref())
        .map(|turn| turn.message.clone());
    if let Some(message) = message {
        end_turn(end, sessions, id, &message, Some("cancelled"));
    }
}

impl Full {
    fn config_options(session: &Session) -> Value {
        json!([
            {"configId": "mode", "name": "Mode", "category": "mode", "type": "select",
             "currentValue": session.mode, "options": choices(&MODES)},
            {"configId": "model", "name": "Model", "category": "model", "type": "select",
             "currentValue": session.model, "options": choices(&MODELS)},
            {"configId": "brief", "name": "Brief answers", "type": "boolean", "currentValue": session.brief},
        ])
    }
}

impl Agent for Full {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        let terminal = !to_json!(&params)["capabilities"]["auth"]["terminal"].is_null();
        let mut methods = vec![
            json!({"type": "agent", "methodId": "none", "name": "No credentials", "description": "Always succeeds."}),
        ];
        if terminal {
            methods.push(json!({
                "type": "terminal", "methodId": "terminal", "name": "Terminal login",
                "description": "Runs this agent with --login, which always succeeds.", "args": ["--login"],
            }));
        }
        decoded!(json!({
            "protocolVersion": PROTOCOL_VERSION,
            "info": {"name": "acp-codegen full-surface agent (Rust, v2)", "version": "0.1.0"},
            "capabilities": {
                "session": {
                    "prompt": {"image": {}, "audio": {}, "embeddedContext": {}},
                    "mcp": {"stdio": {}, "http": {}},
                    "additionalDirectories": {},
                },
            },
            "authMethods": methods,
        }))
    }

    async fn auth_login(&self, params: LoginAuthRequest) -> Result<LoginAuthResponse, Error> {
        let method = to_json!(&params)["methodId"].clone();
        if method != "none" {
            return Err(invalid(format!("no authentication method {method} for auth/login")));
        }
        decoded!(json!({}))
    }

    async fn auth_logout(&self, _: LogoutAuthRequest) -> Result<LogoutAuthResponse, Error> {
        decoded!(json!({}))
    }

    // No terminal or tool call of this agent advertises `capabilities.cancel`.
    async fn terminal_cancel(&self, params: CancelTerminalRequest) -> Result<CancelTerminalResponse, Error> {
        let params = to_json!(&params);
        let id = params["sessionId"].as_str().unwrap_or_default();
        if !self.sessions.lock().unwrap().contains_key(id) {
            return Err(ends::session_not_found(id));
        }
        Err(invalid(format!(
            "terminal {} is unknown, has exited or cannot be cancelled",
            params["terminalId"]
        )))
    }

    async fn tool_call_cancel(&self, params: CancelToolCallRequest) -> Result<CancelToolCallResponse, Error> {
        let params = to_json!(&params);
        let id = params["sessionId"].as_str().unwrap_or_default();
        if !self.sessions.lock().unwrap().contains_key(id) {
            return Err(ends::session_not_found(id));
        }
        Err(invalid(format!(
            "tool call {} is unknown, final or cannot be cancelled",
            params["toolCallId"]
        )))
    }

    fn session_handler(&self) -> Option<&impl SessionHandler> {
        Some(self)
    }

    fn session_delete_handler(&self) -> Option<&impl SessionDeleteHandler> {
        Some(self)
    }

    fn config_options_handler(&self) -> Option<&impl ConfigOptionsHandler> {
        Some(self)
    }
}

impl ConfigOptionsHandler for Full {
    async fn session_set_config_option(
        &self,
        params: SetSessionConfigOptionRequest,
    ) -> Result<SetSessionConfigOptionResponse, Error> {
        let params = to_json!(&params);
        let id = params["sessionId"].as_str().unwrap_or_default();
        let mut sessions = self.sessions.lock().unwrap();
        let session = sessions.get_mut(id).ok_or_else(|| ends::session_not_found(id))?;
        let among = |values: &[(&str, &str)]| {
            params["type"] == "id" && values.iter().any(|(value, _)| params["value"] == *value)
        };
        let value = &params["value"];
        match (params["configId"].as_str(), value) {
            (Some("mode"), Value::String(mode)) if among(&MODES) => session.mode = mode.clone(),
            (Some("model"), Value::String(model)) if among(&MODELS) => session.model = model.clone(),
            (Some("brief"), Value::Bool(brief)) if params["type"] == "boolean" => session.brief = *brief,
            (option, _) => {
                return Err(invalid(format!(
                    "no value {value} ({}) for {}",
                    params["type"],
                    option.unwrap_or_default()
                )))
            }
        }
        decoded!(json!({"configOptions": Self::config_options(session)}))
    }
}

impl SessionHandler for Full {
    async fn session_new(&self, params: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let params = to_json!(&params);
        let id = {
            let mut counts = self.counts.lock().unwrap();
            counts.0 += 1;
            format!("session-{}", counts.0)
        };
        let session = Session {
            cwd: params["cwd"].as_str().unwrap_or_default().to_owned(),
            directories: params.get("additionalDirectories").cloned().unwrap_or(json!([])),
            mode: "ask".to_owned(),
            model: "small".to_owned(),
            brief: false,
            history: Vec::new(),
            updated: now(),
            turn: None,
        };
        let options = Self::config_options(&session);
        self.sessions.lock().unwrap().insert(id.clone(), session);
        decoded!(json!({"sessionId": id, "configOptions": options}))
    }

    async fn session_resume(&self, params: ResumeSessionRequest) -> Result<ResumeSessionResponse, Error> {
        let params = to_json!(&params);
        let id = params["sessionId"].as_str().unwrap_or_default();
        let mut sessions = self.sessions.lock().unwrap();
        let session = sessions.get_mut(id).ok_or_else(|| ends::session_not_found(id))?;
        if params["cwd"] != session.cwd.as_str() {
            return Err(invalid(format!("the session's cwd is {}", session.cwd)));
        }
        let from = &params["replayFrom"];
        if !from.is_null() && from["type"] != "start" {
            return Err(invalid(format!("no replay from {}", from["type"])));
        }
        session.directories = params.get("additionalDirectories").cloned().unwrap_or(json!([]));
        if !from.is_null() {
            for update in &session.history {
                send(&self.end, id, update.clone())?;
            }
        }
        let now = if session.turn.is_some() { "running" } else { "idle" };
        send(&self.end, id, state(now, None))?;
        decoded!(json!({"configOptions": Self::config_options(session)}))
    }

    async fn session_list(&self, params: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
        let wanted = to_json!(&params)["cwd"].as_str().map(str::to_owned);
        let sessions: Vec<Value> = self
            .sessions
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, session)| wanted.as_ref().is_none_or(|cwd| *cwd == session.cwd))
            .map(|(id, session)| {
                let mut info = json!({
                    "sessionId": id, "cwd": session.cwd, "title": format!("Session {id}"), "updatedAt": session.updated,
                });
                if session
                    .directories
                    .as_array()
                    .is_some_and(|directories| !directories.is_empty())
                {
                    info["additionalDirectories"] = session.directories.clone();
                }
                info
            })
            .collect();
        decoded!(json!({"sessions": sessions}))
    }

    async fn session_close(&self, params: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        let id = params.session_id.to_string();
        let mut sessions = self.sessions.lock().unwrap();
        if !sessions.contains_key(&id) {
            return Err(ends::session_not_found(&id));
        }
        cancel(&self.end, &mut sessions, &id);
        sessions.remove(&id);
        decoded!(json!({}))
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let id = params.session_id.to_string();
        let prompt = to_json!(&params)["prompt"].clone();
        let message = {
            let mut sessions = self.sessions.lock().unwrap();
            let session = sessions.get_mut(&id).ok_or_else(|| ends::session_not_found(&id))?;
            if session.turn.is_some() {
                return Err(invalid(format!("a turn is in progress in {id}")));
            }
            let message = {
                let mut counts = self.counts.lock().unwrap();
                counts.1 += 1;
                format!("message-{}", counts.1)
            };
            session.turn = Some(Turn {
                message: message.clone(),
                text: String::new(),
                cancellation: self.end.cancellation(&id),
            });
            session
                .history
                .push(json!({"sessionUpdate": "user_message", "messageId": message, "content": prompt}));
            session.updated = now();
            send(&self.end, &id, state("running", None))?;
            message
        };
        self.work
            .unbounded_send((id, message.clone(), prompt))
            .map_err(|_| Error::internal_error())?;
        decoded!(json!({"messageId": message}))
    }
}

impl SessionDeleteHandler for Full {
    async fn session_delete(&self, params: DeleteSessionRequest) -> Result<DeleteSessionResponse, Error> {
        let id = params.session_id.to_string();
        let mut sessions = self.sessions.lock().unwrap();
        cancel(&self.end, &mut sessions, &id);
        sessions.remove(&id);
        decoded!(json!({}))
    }
}

/// Sleeps `PAUSE` on a thread of its own, without blocking the connection.
async fn pause() {
    let (sender, receiver) = futures::channel::oneshot::channel::<()>();
    std::thread::spawn(move || {
        std::thread::sleep(PAUSE);
        let _ = sender.send(());
    });
    let _ = receiver.await;
}

/// Sends `update` while the turn of `message` lasts, adding `text` to its
/// reply; whether it lasts.
fn step(end: &AgentEnd, sessions: &Sessions, id: &str, message: &str, update: Value, text: Option<&str>) -> bool {
    let mut sessions = sessions.lock().unwrap();
    if !lasts(&mut sessions, end, id, message) {
        return false;
    }
    if let Some(turn) = sessions.get_mut(id).and_then(|session| session.turn.as_mut()) {
        turn.text.push_str(text.unwrap_or_default());
    }
    send(end, id, update).is_ok()
}

/// Whether the turn of `message` is still the one in flight in `id`; a
/// cancelled one ends here, with an `idle` the connection marks `cancelled`.
fn lasts(sessions: &mut BTreeMap<String, Session>, end: &AgentEnd, id: &str, message: &str) -> bool {
    let turn = sessions
        .get(id)
        .and_then(|session| session.turn.as_ref())
        .filter(|turn| turn.message == message);
    match turn {
        Some(turn) if turn.cancellation.is_cancelled() => {
            end_turn(end, sessions, id, message, None);
            false
        }
        Some(_) => true,
        None => false,
    }
}

/// One turn after its acknowledgement; each step only while the turn lasts.
async fn play(end: AgentEnd, sessions: Sessions, (id, message, prompt): Work) {
    let blocks = prompt.as_array().cloned().unwrap_or_default();
    let text: Vec<String> = blocks
        .iter()
        .map(|block| match block["text"].as_str() {
            Some(text) => text.to_owned(),
            None => format!("[{}]", block["type"].as_str().unwrap_or_default()),
        })
        .collect();
    let words: Vec<String> = text.join(" ").split_whitespace().map(str::to_owned).collect();
    let plan = |status: &str| {
        json!({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": format!("plan-{message}"), "entries": [
            {"content": "Count the words", "priority": "high", "status": status},
            {"content": "Say them back", "priority": "medium", "status": status},
        ]}})
    };
    let call = format!("call-{message}");
    let terminal = format!("terminal-{message}");
    let reply = format!("reply-to-{message}");
    let cwd = sessions
        .lock()
        .unwrap()
        .get(&id)
        .map(|session| session.cwd.clone())
        .unwrap_or_default();
    let before = [
        json!({"sessionUpdate": "user_message", "messageId": message, "content": prompt}),
        plan("pending"),
        json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "title": "Count the words", "kind": "execute", "status": "pending"}),
    ];
    for update in before {
        if !step(&end, &sessions, &id, &message, update, None) {
            return;
        }
        pause().await;
    }
    // The connection reports `requires_action` while the client decides, and `running` after.
    let asked = decode::<RequestPermissionRequest>(json!({
        "sessionId": id, "title": "Run `wc -w`?",
        "subject": {"type": "tool_call", "toolCall": {"toolCallId": call}},
        "options": [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ],
    }));
    let answer = match asked {
        Ok(asked) => end
            .session_request_permission(asked)
            .await
            .map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    };
    let outcome = match answer {
        Ok(answer) => to_json!(&answer)["outcome"].clone(),
        Err(error) => {
            eprintln!("the turn of {message} failed: {error}");
            let mut sessions = sessions.lock().unwrap();
            if lasts(&mut sessions, &end, &id, &message) {
                end_turn(&end, &mut sessions, &id, &message, Some("error"));
            }
            return;
        }
    };
    if !lasts(&mut sessions.lock().unwrap(), &end, &id, &message) {
        return;
    }
    let allowed = outcome["outcome"] == "selected" && outcome["optionId"] == "allow";
    let ran = if allowed {
        vec![
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "in_progress",
                   "content": [{"type": "terminal", "terminalId": terminal}]}),
            json!({"sessionUpdate": "terminal_update", "terminalId": terminal, "command": "wc -w", "cwd": cwd}),
            json!({"sessionUpdate": "terminal_output_chunk", "terminalId": terminal,
                   "data": base64(format!("{}\n", words.len()).as_bytes())}),
            json!({"sessionUpdate": "terminal_update", "terminalId": terminal, "exitStatus": {"exitCode": 0}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"}),
            plan("in_progress"),
        ]
    } else {
        vec![json!({"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"})]
    };
    for update in ran {
        if !step(&end, &sessions, &id, &message, update, None) {
            return;
        }
        pause().await;
    }
    let said = if allowed {
        words
    } else {
        vec!["Not".to_owned(), "counted.".to_owned()]
    };
    for word in said {
        let chunk = format!("{word} ");
        let update = json!({"sessionUpdate": "agent_message_chunk", "messageId": reply, "content": {"type": "text", "text": chunk}});
        if !step(&end, &sessions, &id, &message, update, Some(&chunk)) {
            return;
        }
        pause().await;
    }
    if step(&end, &sessions, &id, &message, plan("completed"), None) {
        end_turn(&end, &mut sessions.lock().unwrap(), &id, &message, Some("end_turn"));
    }
}

/// The worker: each acknowledged prompt's turn, several at once.
async fn worker(end: AgentEnd, sessions: Sessions, mut work: mpsc::UnboundedReceiver<Work>) {
    let mut running = futures::stream::FuturesUnordered::new();
    loop {
        futures::select! {
            next = work.next() => match next {
                Some(next) => running.push(play(end.clone(), sessions.clone(), next)),
                None => break,
            },
            () = running.select_next_some() => {}
        }
    }
    while running.next().await.is_some() {}
}

fn main() {
    // The terminal authentication method runs the agent with `--login`: nothing to log in to.
    if std::env::args().any(|argument| argument == "--login") {
        println!("Logged in: this agent needs no credentials.");
        return;
    }
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let (sender, queue) = mpsc::unbounded();
    let sessions: Sessions = Arc::default();
    let (end, driver) = connect_agent(
        {
            let sessions = sessions.clone();
            |end| Full {
                end,
                sessions,
                counts: Mutex::new((0, 0)),
                work: sender,
            }
        },
        input,
        output,
        ConnectOptions::default(),
    );
    // The connection decides: when its input ends, so does the agent.
    let driven = futures::executor::block_on(async {
        let (driver, worker) = (Box::pin(driver), Box::pin(worker(end, sessions, queue)));
        match futures::future::select(driver, worker).await {
            futures::future::Either::Left((driven, _)) => driven,
            futures::future::Either::Right(((), driver)) => driver.await,
        }
    });
    if let Err(error) = driven {
        eprintln!("the connection failed: {error}");
        std::process::exit(1);
    }
}
