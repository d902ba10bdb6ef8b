//! The Rust test agent on protocol v2: the one implementation of the v2
//! bindings' `Agent` trait that the connection's v2 race tests
//! (`tests/rust/connection_v2.rs`) and the v2 interop agent
//! (`tests/interop/rust-v2/src/bin/agent_v2.rs`, which the interop build
//! copies next to its programs) serve. Its v1 counterpart is
//! `scripted_agent`.
//!
//! [`script`] gives the handler `connect_agent` takes and the agent's
//! [`Worker`], which the program runs beside the connection on the end
//! `connect_agent` returned. The agent opens a session per `session/new`
//! (`session-1`, `session-2`, ...) and answers a prompt on any other session
//! with resource-not-found. A prompt is acknowledged at once (`running`,
//! then the response with the prompt's message id, `message-<n>`) and its
//! turn, one of [`Turn`], is played by the worker, several at once, each
//! ended by `idle`.
//!
//! Each program sets the [`Options`] it needs; the rest are inert.
#![allow(dead_code)] // Each program uses the options it needs.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use acp_bindings::connection::AgentEnd;
use acp_bindings::methods::{Agent, SessionHandler};
use acp_bindings::*;
use futures::channel::mpsc;
use futures::StreamExt;

/// What a prompt plays, after its acknowledgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// Chunks of the prompt's first text, `"<text> part <n>"`, as many as
    /// [`Options::chunks`] says, all answering `reply-to-message-<n>`, then
    /// `idle` with `end_turn`.
    Echo,
    /// The interop turn on `notes.txt`: the prompt echoed as the user's
    /// message, a chunk, a tool call to edit the file (in progress), a
    /// permission request on it, the tool call's end (completed when
    /// allowed, failed when not), a closing chunk, and `idle` with
    /// `end_turn`, or `error` when a call failed. Protocol v2 has no client
    /// file system: the edit is a stand-in.
    Notes,
}

/// A pause: awaited with the most executor turns it may yield.
pub type Pause = Box<dyn Fn(usize) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// A choice, drawn when the turn comes to it.
pub type Draw<T> = Box<dyn Fn() -> T + Send + Sync>;

/// Told of a played turn: its text and chunks.
pub type Played = Box<dyn Fn(&str, usize) + Send + Sync>;

/// The agent's choices, each for the program that needs it.
pub struct Options {
    /// The agent's name and version in its `initialize` answer.
    pub info: Implementation,
    /// What its `initialize` answer writes in its capabilities (none when
    /// `None`); the end adds `session`, whose methods it handles.
    pub capabilities: Option<AgentCapabilities>,
    pub turn: Turn,
    /// The [`Turn::Echo`] turn's chunks (1 by default).
    pub chunks: Draw<usize>,
    /// Whether a prompt sends a snapshot of the state before its turn
    /// starts, `idle` without a stop reason: not the turn's end (no by
    /// default).
    pub early_idle: Draw<bool>,
    /// Awaited before each [`Turn::Echo`] chunk (at most 3 turns).
    pub pause: Pause,
    /// Told when a [`Turn::Echo`] turn sent its chunks: its text and chunks.
    pub played: Played,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            info: Implementation::new("scripted agent", "1"),
            capabilities: None,
            turn: Turn::Echo,
            chunks: Box::new(|| 1),
            early_idle: Box::new(|| false),
            pause: Box::new(|_| Box::pin(async {})),
            played: Box::new(|_, _| {}),
        }
    }
}

/// A prompt's turn, for the worker: its session, prompt and message id.
type Work = (SessionId, Vec<ContentBlock>, String);

/// The handler for `connect_agent`, and the worker that plays its turns.
pub fn script(options: Options) -> (impl FnOnce(AgentEnd) -> ScriptedAgent, Worker) {
    let options = Arc::new(options);
    let (work, queue) = mpsc::unbounded();
    let worker = Worker {
        options: options.clone(),
        queue,
    };
    let agent = move |end| ScriptedAgent {
        end,
        options,
        counts: Mutex::new((Vec::new(), 0)),
        work,
    };
    (agent, worker)
}

pub struct ScriptedAgent {
    end: AgentEnd,
    options: Arc<Options>,
    /// The working directory of each session opened (`session-<n>` is the
    /// nth), and the prompts acknowledged.
    counts: Mutex<(Vec<String>, usize)>,
    work: mpsc::UnboundedSender<Work>,
}

impl ScriptedAgent {
    /// Whether this agent opened `session`.
    fn opened(&self, session: &SessionId) -> bool {
        let opened = self.counts.lock().unwrap().0.len();
        (1..=opened).any(|number| format!("session-{number}") == session.as_str())
    }
}

fn failed(error: impl std::fmt::Display) -> Error {
    Error::internal_error().data(serde_json::json!(error.to_string()))
}

impl Agent for ScriptedAgent {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        let response = InitializeResponse::new(PROTOCOL_VERSION, self.options.info.clone());
        Ok(match &self.options.capabilities {
            Some(capabilities) => response.capabilities(capabilities.clone()),
            None => response,
        })
    }

    fn session_handler(&self) -> Option<&impl SessionHandler> {
        Some(self)
    }
}

impl SessionHandler for ScriptedAgent {
    async fn session_new(&self, params: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let mut counts = self.counts.lock().unwrap();
        counts.0.push(params.cwd.to_string());
        Ok(NewSessionResponse::new(format!("session-{}", counts.0.len())))
    }

    async fn session_list(&self, _: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
        let counts = self.counts.lock().unwrap();
        let sessions = counts.0.iter().enumerate();
        Ok(ListSessionsResponse::new(
            sessions
                .map(|(index, cwd)| SessionInfo::new(format!("session-{}", index + 1), cwd.as_str()))
                .collect(),
        ))
    }

    async fn session_resume(&self, params: ResumeSessionRequest) -> Result<ResumeSessionResponse, Error> {
        if !self.opened(&params.session_id) {
            return Err(ends::session_not_found(params.session_id.as_str()));
        }
        Ok(ResumeSessionResponse::new())
    }

    async fn session_close(&self, _: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        Ok(CloseSessionResponse::new())
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let message = {
            if !self.opened(&params.session_id) {
                return Err(ends::session_not_found(params.session_id.as_str()));
            }
            let mut counts = self.counts.lock().unwrap();
            counts.1 += 1;
            format!("message-{}", counts.1)
        };
        let state = |state: StateUpdate| UpdateSessionNotification::new(params.session_id.clone(), state);
        if (self.options.early_idle)() {
            let idle = serde_json::json!({"sessionUpdate": "state_update", "state": "idle"});
            let idle: SessionUpdate = serde_json::from_value(idle).map_err(failed)?;
            self.end
                .session_update(UpdateSessionNotification::new(params.session_id.clone(), idle))
                .map_err(failed)?;
        }
        self.end
            .session_update(state(StateUpdate::Running(RunningStateUpdate::new())))
            .map_err(failed)?;
        self.work
            .unbounded_send((params.session_id, params.prompt, message.clone()))
            .map_err(failed)?;
        Ok(PromptResponse::new(message))
    }
}

/// Plays the acknowledged prompts' turns, several at once, until the agent
/// is gone.
pub struct Worker {
    options: Arc<Options>,
    queue: mpsc::UnboundedReceiver<Work>,
}

impl Worker {
    pub async fn run(self, end: AgentEnd) {
        let Worker { options, mut queue } = self;
        let mut running = futures::stream::FuturesUnordered::new();
        loop {
            futures::select! {
                next = queue.next() => match next {
                    Some(next) => running.push(turn(&end, &options, next)),
                    None => break,
                },
                () = running.select_next_some() => {}
            }
        }
        while running.next().await.is_some() {}
    }
}

/// A turn, ended by `idle`: `end_turn`, or `error` when a call failed.
async fn turn(end: &AgentEnd, options: &Options, (session, prompt, message): Work) {
    let played = match options.turn {
        Turn::Echo => echo(end, options, &session, &prompt, &message).await,
        Turn::Notes => notes(end, &session, prompt, &message).await,
    };
    let stop = match played {
        Ok(()) => IdleStateUpdateStopReason::EndTurn(IdleStateUpdateStopReasonEndTurn::new()),
        Err(error) => {
            eprintln!("the turn of {message} failed: {error}");
            ErrorStopReason::new().into()
        }
    };
    let _ = end.session_update(UpdateSessionNotification::new(
        session,
        StateUpdate::Idle(IdleStateUpdate::new(stop)),
    ));
}

fn chunk(id: &str, text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(id, TextContent::new(text)))
}

async fn echo(
    end: &AgentEnd,
    options: &Options,
    session: &SessionId,
    prompt: &[ContentBlock],
    message: &str,
) -> Result<(), String> {
    let text = prompt
        .first()
        .and_then(|block| serde_json::to_value(block).ok())
        .and_then(|block| block["text"].as_str().map(str::to_owned))
        .unwrap_or_default();
    let reply = format!("reply-to-{message}");
    let chunks = (options.chunks)();
    for index in 0..chunks {
        (options.pause)(3).await;
        end.session_update(UpdateSessionNotification::new(
            session.clone(),
            chunk(&reply, &format!("{text} part {index}")),
        ))
        .map_err(|error| error.to_string())?;
    }
    (options.played)(&text, chunks);
    Ok(())
}

async fn notes(end: &AgentEnd, session: &SessionId, prompt: Vec<ContentBlock>, message: &str) -> Result<(), String> {
    let update = |update: SessionUpdate| {
        end.session_update(UpdateSessionNotification::new(session.clone(), update))
            .map_err(|error| error.to_string())
    };
    let reply = format!("reply-to-{message}");
    update(UserMessage::new(message).content(prompt).into())?;
    update(chunk(&reply, "Editing notes.txt."))?;
    update(
        ToolCallUpdate::new("call-1")
            .title("Edit notes.txt")
            .kind(ToolKind::Edit)
            .status(ToolCallStatus::InProgress)
            .into(),
    )?;
    let options = vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ];
    let subject = RequestPermissionSubject::ToolCall(ToolCallPermissionSubject::new(ToolCallUpdate::new("call-1")));
    let asked = RequestPermissionRequest::new(session.clone(), "Edit notes.txt?", options).subject(subject);
    let answer = end
        .session_request_permission(asked)
        .await
        .map_err(|error| format!("session/request_permission: {error}"))?;
    let allowed = matches!(answer.outcome, RequestPermissionOutcome::Selected(ref selected) if selected.option_id.as_str() == "allow");
    update(
        ToolCallUpdate::new("call-1")
            .status(if allowed {
                ToolCallStatus::Completed
            } else {
                ToolCallStatus::Failed
            })
            .into(),
    )?;
    update(chunk(&reply, if allowed { "Edited." } else { "Left as it was." }))
}
