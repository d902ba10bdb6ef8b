//! Our full-surface Rust agent, for `cargo xtask conformance`: the same
//! agent as `tests/interop/python/agent_full.py`, on the `Agent` trait of
//! the generated crate over its own stdio. It advertises every capability
//! of the v1 schema the conformance kit checks: sessions in memory (load
//! with replay, resume, list, close, delete), modes, config options, a
//! streamed turn around a tool call that ends `cancelled` on
//! `session/cancel` or `session/close`, an authentication method that
//! always succeeds, and `logout`. Payloads are written as JSON and decoded
//! into the generated types (`codec::decode`), as the Python twin does.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use acp_bindings::codec::decode;
use acp_bindings::connection::{connect_agent, AgentEnd, ConnectOptions};
use acp_bindings::methods::{
    Agent, AuthLogoutHandler, ConfigOptionsHandler, LoadSessionHandler, ModesHandler, SessionCapabilitiesCloseHandler,
    SessionCapabilitiesDeleteHandler, SessionCapabilitiesListHandler, SessionCapabilitiesResumeHandler,
};
use acp_bindings::*;
use acp_interop::{reader, Trace, Writer};
use serde_json::{json, Value};

/// The pause between two streamed chunks, so that a turn lasts long enough to be cancelled.
const PAUSE: Duration = Duration::from_millis(50);

struct Session {
    cwd: String,
    directories: Value,
    mode: String,
    model: String,
    brief: bool,
    history: Vec<Value>,
    updated: String,
    cancelled: Option<Arc<AtomicBool>>,
}

struct Full {
    end: AgentEnd,
    client: Mutex<Value>,
    sessions: Mutex<BTreeMap<String, Session>>,
    created: Mutex<u64>,
}

fn modes() -> Value {
    json!([
        {"id": "ask", "name": "Ask", "description": "Asks before acting."},
        {"id": "code", "name": "Code", "description": "Acts without asking."},
    ])
}

fn models() -> Value {
    json!([{"value": "small", "name": "Small"}, {"value": "large", "name": "Large"}])
}

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

fn unknown(session: &str) -> Error {
    Error::resource_not_found().data(json!(format!("no session {session}")))
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

impl Full {
    fn config_options(&self, session: &Session) -> Value {
        let mut options = vec![json!({
            "id": "model", "name": "Model", "category": "model", "type": "select",
            "currentValue": session.model, "options": models(),
        })];
        let client = self.client.lock().unwrap();
        if !client["session"]["configOptions"]["boolean"].is_null() {
            options.push(
                json!({"id": "brief", "name": "Brief answers", "type": "boolean", "currentValue": session.brief}),
            );
        }
        Value::Array(options)
    }

    fn state(&self, session: &Session) -> Value {
        json!({
            "modes": {"currentModeId": session.mode, "availableModes": modes()},
            "configOptions": self.config_options(session),
        })
    }

    /// Sends `update` for `session`, recorded in its history when `record`.
    fn update(&self, session: &str, update: Value, record: bool) -> Result<(), Error> {
        if record {
            if let Some(stored) = self.sessions.lock().unwrap().get_mut(session) {
                stored.history.push(update.clone());
                stored.updated = now();
            }
        }
        let notification: SessionNotification = decoded!(json!({"sessionId": session, "update": update}))?;
        self.end
            .session_update(notification)
            .map_err(|error| Error::internal_error().data(json!(error.to_string())))
    }

    /// Sets the cancel flag of `session`'s turn in flight, if any.
    fn stop(session: Option<&Session>) {
        if let Some(flag) = session.and_then(|session| session.cancelled.as_ref()) {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// The state of an existing session, its `cwd` set to `params`'.
    fn reopen(&self, params: &Value) -> Result<Value, Error> {
        let id = params["sessionId"].as_str().unwrap_or_default();
        let mut sessions = self.sessions.lock().unwrap();
        let session = sessions.get_mut(id).ok_or_else(|| unknown(id))?;
        session.cwd = params["cwd"].as_str().unwrap_or_default().to_owned();
        Ok(self.state(session))
    }
}

impl Agent for Full {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        *self.client.lock().unwrap() = to_json!(&params)["clientCapabilities"].clone();
        decoded!(json!({
            "protocolVersion": 1,
            // `loadSession`, the session methods and `auth.logout` come
            // from the handlers it gives.
            "agentCapabilities": {
                "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true},
                "mcpCapabilities": {"http": true, "sse": true},
                "sessionCapabilities": {"additionalDirectories": {}},
            },
            "authMethods": [{"id": "none", "name": "No credentials", "description": "Always succeeds."}],
            "agentInfo": {"name": "acp-codegen full-surface agent (Rust)", "version": "0.1.0"},
        }))
    }

    async fn authenticate(&self, params: AuthenticateRequest) -> Result<AuthenticateResponse, Error> {
        if to_json!(&params)["methodId"] != "none" {
            return Err(invalid("unknown authentication method".to_owned()));
        }
        decoded!(json!({}))
    }

    async fn session_new(&self, params: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let params = to_json!(&params);
        let id = {
            let mut created = self.created.lock().unwrap();
            *created += 1;
            format!("session-{created}")
        };
        let session = Session {
            cwd: params["cwd"].as_str().unwrap_or_default().to_owned(),
            directories: params.get("additionalDirectories").cloned().unwrap_or(json!([])),
            mode: "ask".to_owned(),
            model: "small".to_owned(),
            brief: false,
            history: Vec::new(),
            updated: now(),
            cancelled: None,
        };
        let mut response = self.state(&session);
        response["sessionId"] = json!(id);
        self.sessions.lock().unwrap().insert(id, session);
        decoded!(response)
    }

    async fn session_cancel(&self, params: CancelNotification) {
        Self::stop(self.sessions.lock().unwrap().get(params.session_id.as_str()));
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let id = params.session_id.to_string();
        let prompt = to_json!(&params)["prompt"].clone();
        let blocks = prompt.as_array().cloned().unwrap_or_default();
        let cancelled = Arc::new(AtomicBool::new(false));
        let call = {
            let mut sessions = self.sessions.lock().unwrap();
            let session = sessions.get_mut(&id).ok_or_else(|| unknown(&id))?;
            session.cancelled = Some(cancelled.clone());
            for block in &blocks {
                session
                    .history
                    .push(json!({"sessionUpdate": "user_message_chunk", "content": block}));
            }
            format!("call-{}", session.history.len())
        };
        let text: Vec<String> = blocks
            .iter()
            .map(|block| match block["text"].as_str() {
                Some(text) => text.to_owned(),
                None => format!("[{}]", block["type"].as_str().unwrap_or_default()),
            })
            .collect();
        let words: Vec<String> = text.join(" ").split_whitespace().map(str::to_owned).collect();
        let mut steps = vec![
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "Reading the prompt."}}),
            json!({"sessionUpdate": "tool_call", "toolCallId": call, "title": "Count the words", "kind": "think"}),
            json!({
                "sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": format!("{} words", words.len())}}],
            }),
        ];
        steps.extend(
            words
                .iter()
                .map(|word| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": format!("{word} ")}})),
        );
        let mut outcome = Ok(());
        for step in steps {
            if cancelled.load(Ordering::SeqCst) {
                break;
            }
            outcome = self.update(&id, step, true);
            if outcome.is_err() {
                break;
            }
            pause().await;
        }
        if let Some(session) = self.sessions.lock().unwrap().get_mut(&id) {
            if session
                .cancelled
                .as_ref()
                .is_some_and(|flag| Arc::ptr_eq(flag, &cancelled))
            {
                session.cancelled = None;
            }
        }
        outcome?;
        let stop = if cancelled.load(Ordering::SeqCst) {
            "cancelled"
        } else {
            "end_turn"
        };
        decoded!(json!({"stopReason": stop}))
    }

    fn auth_logout_handler(&self) -> Option<&impl AuthLogoutHandler> {
        Some(self)
    }

    fn load_session_handler(&self) -> Option<&impl LoadSessionHandler> {
        Some(self)
    }

    fn modes_handler(&self) -> Option<&impl ModesHandler> {
        Some(self)
    }

    fn config_options_handler(&self) -> Option<&impl ConfigOptionsHandler> {
        Some(self)
    }

    fn session_capabilities_list_handler(&self) -> Option<&impl SessionCapabilitiesListHandler> {
        Some(self)
    }

    fn session_capabilities_resume_handler(&self) -> Option<&impl SessionCapabilitiesResumeHandler> {
        Some(self)
    }

    fn session_capabilities_close_handler(&self) -> Option<&impl SessionCapabilitiesCloseHandler> {
        Some(self)
    }

    fn session_capabilities_delete_handler(&self) -> Option<&impl SessionCapabilitiesDeleteHandler> {
        Some(self)
    }
}

impl AuthLogoutHandler for Full {
    async fn logout(&self, _: LogoutRequest) -> Result<LogoutResponse, Error> {
        decoded!(json!({}))
    }
}

impl ModesHandler for Full {
    async fn session_set_mode(&self, params: SetSessionModeRequest) -> Result<SetSessionModeResponse, Error> {
        let params = to_json!(&params);
        let id = params["sessionId"].as_str().unwrap_or_default();
        let mode = params["modeId"].as_str().unwrap_or_default();
        if !modes()
            .as_array()
            .into_iter()
            .flatten()
            .any(|known| known["id"] == mode)
        {
            return Err(invalid(format!("no mode {mode}")));
        }
        self.sessions
            .lock()
            .unwrap()
            .get_mut(id)
            .ok_or_else(|| unknown(id))?
            .mode = mode.to_owned();
        self.update(
            id,
            json!({"sessionUpdate": "current_mode_update", "currentModeId": mode}),
            false,
        )?;
        decoded!(json!({}))
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
        let session = sessions.get_mut(id).ok_or_else(|| unknown(id))?;
        let value = &params["value"];
        match (params["configId"].as_str(), value) {
            (Some("model"), Value::String(model))
                if models()
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|known| known["value"] == *model) =>
            {
                session.model = model.clone();
            }
            (Some("brief"), Value::Bool(brief)) => session.brief = *brief,
            (option, _) => return Err(invalid(format!("no value {value} for {}", option.unwrap_or_default()))),
        }
        let options = self.config_options(session);
        decoded!(json!({"configOptions": options}))
    }
}

impl LoadSessionHandler for Full {
    async fn session_load(&self, params: LoadSessionRequest) -> Result<LoadSessionResponse, Error> {
        let params = to_json!(&params);
        let state = self.reopen(&params)?;
        let id = params["sessionId"].as_str().unwrap_or_default();
        let history = self
            .sessions
            .lock()
            .unwrap()
            .get(id)
            .map(|session| session.history.clone());
        for update in history.unwrap_or_default() {
            self.update(id, update, false)?;
        }
        decoded!(state)
    }
}

impl SessionCapabilitiesListHandler for Full {
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
}

impl SessionCapabilitiesResumeHandler for Full {
    async fn session_resume(&self, params: ResumeSessionRequest) -> Result<ResumeSessionResponse, Error> {
        decoded!(self.reopen(&to_json!(&params))?)
    }
}

impl SessionCapabilitiesCloseHandler for Full {
    async fn session_close(&self, params: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        let id = params.session_id.to_string();
        let removed = self.sessions.lock().unwrap().remove(&id).ok_or_else(|| unknown(&id))?;
        Self::stop(Some(&removed));
        decoded!(json!({}))
    }
}

impl SessionCapabilitiesDeleteHandler for Full {
    async fn session_delete(&self, params: DeleteSessionRequest) -> Result<DeleteSessionResponse, Error> {
        let removed = self.sessions.lock().unwrap().remove(params.session_id.as_str());
        Self::stop(removed.as_ref());
        decoded!(json!({}))
    }
}

fn main() {
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let (_, driver) = connect_agent(
        |end| Full {
            end,
            client: Mutex::new(Value::Null),
            sessions: Mutex::new(BTreeMap::new()),
            created: Mutex::new(0),
        },
        input,
        output,
        ConnectOptions::default(),
    );
    if let Err(error) = futures::executor::block_on(driver) {
        eprintln!("the connection failed: {error}");
        std::process::exit(1);
    }
}
