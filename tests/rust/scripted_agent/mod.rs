//! The Rust test agent on protocol v1: the one implementation of the
//! generated crate's `Agent` trait that the connection's race tests
//! (`tests/rust/connection.rs`), the interop agent
//! (`tests/interop/rust/src/bin/agent.rs`, which the interop build copies
//! next to its programs) and the bench's round trips
//! (`xtask/src/bench/programs/connection.rs`, which the bench writes next to
//! a copy of this module) and the fuzz target's check
//! (`tests/rust/fuzz_harness/`) serve. Its v2 counterpart is
//! `scripted_agent_v2`.
//!
//! [`ScriptedAgent`] opens a session per `session/new` (`session-1`,
//! `session-2`, ...) and answers a prompt on any other session with
//! resource-not-found. A prompt plays a turn, answered `end_turn`; the turn
//! is one of [`Turn`].
//!
//! Each program sets the [`Options`] it needs; the rest are inert.
#![allow(dead_code)] // Each program uses the options it needs.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Mutex;

use acp_bindings::connection::{AgentEnd, CallError};
use acp_bindings::methods::Agent;
use acp_bindings::*;

/// What a prompt plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Chunks of the prompt's first text, `"<text> part <n>"`, as many as
    /// [`Options::chunks`] says, then a permission request when
    /// [`Options::ask`] says so.
    Echo,
    /// The interop turn on `notes.txt` in the session's folder: a chunk, a
    /// tool call that reads the file (when the client can), a permission
    /// request to edit it, the edit (when allowed and the client can
    /// write), a closing chunk.
    Notes,
}

/// A pause: awaited with the most executor turns it may yield.
pub type Pause = Box<dyn Fn(usize) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A choice, drawn when the turn comes to it.
pub type Draw<T> = Box<dyn Fn() -> T + Send + Sync>;

/// Told of a played turn: its text and chunks.
pub type Played = Box<dyn Fn(&str, usize) + Send + Sync>;

/// Told of a notification handled: its method.
pub type Notified = Box<dyn Fn(&str) + Send + Sync>;

/// The agent's choices, each for the program that needs it.
pub struct Options {
    /// The agent's name and version in its `initialize` answer.
    pub info: Option<Implementation>,
    /// What its `initialize` answer advertises (the defaults when `None`).
    pub capabilities: Option<AgentCapabilities>,
    /// `session/new` sends the session's available commands before it
    /// answers (session-scoped: rule R1 holds them until the client's
    /// `session/ready`).
    pub commands: bool,
    pub turn: Turn,
    /// The [`Turn::Echo`] turn's chunks (1 by default).
    pub chunks: Draw<usize>,
    /// Whether a [`Turn::Echo`] turn asks permission (no by default).
    pub ask: Draw<bool>,
    /// Awaited before each [`Turn::Echo`] chunk (at most 3 turns), and
    /// after `session/new`'s commands (the race tests' random waits).
    pub pause: Pause,
    /// Told when a [`Turn::Echo`] turn played: its text and chunks.
    pub played: Played,
    /// A prompt on any session plays its turn (the fuzz harness, whose
    /// inputs prompt without opening a session).
    pub any_session: bool,
    /// The agent handles every notification and answers extension requests
    /// with `null`, telling `notified` of each notification (the fuzz
    /// harness accounts for every line it reads). Without it, extension
    /// requests are answered method-not-found.
    pub notified: Option<Notified>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            info: None,
            capabilities: None,
            commands: false,
            turn: Turn::Echo,
            chunks: Box::new(|| 1),
            ask: Box::new(|| false),
            pause: Box::new(|_| Box::pin(async {})),
            played: Box::new(|_, _| {}),
            any_session: false,
            notified: None,
        }
    }
}

pub struct ScriptedAgent {
    end: AgentEnd,
    options: Options,
    /// What the client offered in `initialize`.
    client: Mutex<Option<ClientCapabilities>>,
    /// Each session and its folder.
    sessions: Mutex<Vec<(String, PathBuf)>>,
}

impl ScriptedAgent {
    pub fn new(end: AgentEnd, options: Options) -> Self {
        ScriptedAgent {
            end,
            options,
            client: Mutex::new(None),
            sessions: Mutex::new(Vec::new()),
        }
    }

    fn update(&self, session: &SessionId, update: SessionUpdate) -> Result<(), Error> {
        self.end
            .session_update(SessionNotification::new(session.clone(), update))
            .map_err(|error| Error::internal_error().data(serde_json::json!(error.to_string())))
    }

    fn notify(&self, method: &str) {
        if let Some(notified) = &self.options.notified {
            notified(method);
        }
    }

    fn offered(&self, read: bool) -> bool {
        let client = self.client.lock().unwrap();
        let fs = client.as_ref().and_then(|client| client.fs.as_ref());
        fs.and_then(|fs| if read { fs.read_text_file } else { fs.write_text_file })
            .unwrap_or(false)
    }

    async fn echo(&self, session: &SessionId, prompt: &[ContentBlock]) -> Result<(), Error> {
        let text = match prompt.first() {
            Some(ContentBlock::Text(text)) => text.text.clone(),
            _ => String::new(),
        };
        let chunks = (self.options.chunks)();
        for index in 0..chunks {
            (self.options.pause)(3).await;
            let chunk = ContentChunk::new(TextContent::new(format!("{text} part {index}")));
            self.update(session, SessionUpdate::AgentMessageChunk(chunk))?;
        }
        if (self.options.ask)() {
            let options = vec![PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce)];
            let asked = RequestPermissionRequest::new(session.clone(), ToolCallUpdate::new("call-1"), options);
            self.end.session_request_permission(asked).await.map_err(failed)?;
        }
        (self.options.played)(&text, chunks);
        Ok(())
    }

    async fn notes(&self, session: &SessionId, cwd: PathBuf) -> Result<(), Error> {
        let notes = cwd.join("notes.txt").display().to_string();
        self.update(
            session,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new("Reading notes.txt."))),
        )?;
        self.update(
            session,
            ToolCall::new("call-1", "Read notes.txt")
                .kind(ToolKind::Read)
                .status(ToolCallStatus::InProgress)
                .into(),
        )?;
        let text = if self.offered(true) {
            self.end
                .fs_read_text_file(ReadTextFileRequest::new(session.clone(), notes.clone()))
                .await
                .map_err(failed)?
                .content
        } else {
            String::new()
        };
        self.update(
            session,
            ToolCallUpdate::new("call-1")
                .status(ToolCallStatus::Completed)
                .content(vec![Content::new(TextContent::new(text.clone())).into()])
                .into(),
        )?;
        let options = vec![
            PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
        ];
        let edit = ToolCallUpdate::new("call-2")
            .title("Edit notes.txt")
            .kind(ToolKind::Edit);
        let answer = self
            .end
            .session_request_permission(RequestPermissionRequest::new(session.clone(), edit, options))
            .await
            .map_err(failed)?;
        let allowed = matches!(answer.outcome, RequestPermissionOutcome::Selected(ref selected) if selected.option_id.as_str() == "allow");
        if allowed && self.offered(false) {
            let edited = WriteTextFileRequest::new(session.clone(), notes, format!("{text}edited\n"));
            self.end.fs_write_text_file(edited).await.map_err(failed)?;
        }
        let closing = if allowed { "Edited." } else { "Left as it was." };
        self.update(
            session,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new(closing))),
        )
    }
}

fn failed(error: CallError) -> Error {
    Error::internal_error().data(serde_json::json!(error.to_string()))
}

impl Agent for ScriptedAgent {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        *self.client.lock().unwrap() = params.client_capabilities.clone();
        let mut response = InitializeResponse::new(PROTOCOL_VERSION);
        if let Some(info) = &self.options.info {
            response.agent_info = Nullable::Value(info.clone());
        }
        if let Some(capabilities) = &self.options.capabilities {
            response.agent_capabilities = Some(capabilities.clone());
        }
        Ok(response)
    }

    async fn session_new(&self, params: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let session = {
            let mut sessions = self.sessions.lock().unwrap();
            let session = format!("session-{}", sessions.len() + 1);
            sessions.push((session.clone(), PathBuf::from(params.cwd.to_string())));
            session
        };
        if self.options.commands {
            let explain = AvailableCommand::new("explain", "Explains the code");
            let commands = SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(vec![explain]));
            self.update(&session.clone().into(), commands)?;
        }
        (self.options.pause)(3).await;
        Ok(NewSessionResponse::new(session))
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let session = params.session_id;
        let cwd = self
            .sessions
            .lock()
            .unwrap()
            .iter()
            .find(|(id, _)| *id == session.as_str())
            .map(|(_, cwd)| cwd.clone())
            .or_else(|| self.options.any_session.then(PathBuf::new))
            .ok_or_else(|| ends::session_not_found(session.as_str()))?;
        match self.options.turn {
            Turn::Echo => self.echo(&session, &params.prompt).await?,
            Turn::Notes => self.notes(&session, cwd).await?,
        }
        Ok(PromptResponse::new(StopReason::EndTurn))
    }

    async fn session_cancel(&self, _: CancelNotification) {
        self.notify("session/cancel");
    }

    async fn session_ready(&self, _: SessionReadyNotification) {
        self.notify("session/ready");
    }

    async fn cancel_request(&self, _: CancelRequestNotification) {
        self.notify("$/cancel_request");
    }

    async fn extension_request(&self, method: &str, _: serde_json::Value) -> Result<serde_json::Value, Error> {
        match self.options.notified {
            Some(_) => Ok(serde_json::Value::Null),
            None => Err(Error::method_not_found().data(serde_json::json!({ "method": method }))),
        }
    }

    async fn extension_notification(&self, method: &str, _: serde_json::Value) {
        self.notify(method);
    }
}
