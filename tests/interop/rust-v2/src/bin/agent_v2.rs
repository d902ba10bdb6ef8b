//! Our Rust agent on protocol v2, for the interop matrix: the `Agent` trait
//! of the v2 stable bindings over its own stdio. A prompt is acknowledged at
//! once (`running`, then the response with the prompt's message id) and its
//! turn is played by a worker: the prompt echoed as the user message, a
//! message chunk, a tool call to edit `notes.txt` (in progress), a
//! permission request for it, the tool call's end (completed when allowed,
//! failed when not), a closing chunk, and `idle` with `end_turn`. Protocol
//! v2 has no client file system: the edit is a stand-in. `ACP_INTEROP_TRACE`
//! names a file that records every message.

use std::sync::Mutex;

use acp_bindings::connection::{connect_agent, AgentEnd, CallError, ConnectOptions};
use acp_bindings::methods::Agent;
use acp_bindings::*;
use acp_interop::{reader, Trace, Writer};
use futures::channel::mpsc;
use futures::StreamExt;

/// A prompt's turn, for the worker: its session, prompt and message id.
type Work = (SessionId, Vec<ContentBlock>, String);

struct Interop {
    end: AgentEnd,
    counts: Mutex<(usize, usize)>,
    work: mpsc::UnboundedSender<Work>,
}

fn failed(error: CallError) -> Error {
    Error::internal_error().data(serde_json::json!(error.to_string()))
}

fn chunk(id: &str, text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(id, TextContent::new(text)))
}

impl Agent for Interop {
    async fn initialize(&self, _: InitializeRequest) -> Result<InitializeResponse, Error> {
        let mut capabilities = AgentCapabilities::new();
        capabilities.session = Nullable::Value(SessionCapabilities::new());
        Ok(InitializeResponse::new(
            PROTOCOL_VERSION,
            Implementation::new("acp-codegen interop agent (Rust, v2)", "0.1.0"),
        )
        .capabilities(capabilities))
    }

    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let mut counts = self.counts.lock().unwrap();
        counts.0 += 1;
        Ok(NewSessionResponse::new(format!("session-{}", counts.0)))
    }

    async fn session_close(&self, _: CloseSessionRequest) -> Result<CloseSessionResponse, Error> {
        Ok(CloseSessionResponse::new())
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let message = {
            let mut counts = self.counts.lock().unwrap();
            if !(1..=counts.0).any(|session| format!("session-{session}") == params.session_id.as_str()) {
                return Err(ends::session_not_found(params.session_id.as_str()));
            }
            counts.1 += 1;
            format!("message-{}", counts.1)
        };
        let running = UpdateSessionNotification::new(
            params.session_id.clone(),
            StateUpdate::Running(RunningStateUpdate::new()),
        );
        self.end.session_update(running).map_err(failed)?;
        self.work
            .unbounded_send((params.session_id, params.prompt, message.clone()))
            .map_err(|_| Error::internal_error())?;
        Ok(PromptResponse::new(message))
    }
}

/// One turn after its acknowledgement; whether the edit was allowed, or
/// the call that failed.
async fn play(end: &AgentEnd, session: &SessionId, prompt: Vec<ContentBlock>, message: &str) -> Result<bool, String> {
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
    update(chunk(&reply, if allowed { "Edited." } else { "Left as it was." }))?;
    Ok(allowed)
}

/// A turn, ended by `idle`: `end_turn`, or `error` when a call failed.
async fn turn(end: AgentEnd, (session, prompt, message): Work) {
    let stop = match play(&end, &session, prompt, &message).await {
        Ok(_) => IdleStateUpdateStopReason::EndTurn(IdleStateUpdateStopReasonEndTurn::new()),
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

/// The worker: each acknowledged prompt's turn, several at once.
async fn worker(end: AgentEnd, mut work: mpsc::UnboundedReceiver<Work>) {
    let mut running = futures::stream::FuturesUnordered::new();
    loop {
        futures::select! {
            next = work.next() => match next {
                Some(next) => running.push(turn(end.clone(), next)),
                None => break,
            },
            () = running.select_next_some() => {}
        }
    }
    while running.next().await.is_some() {}
}

fn main() {
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let (sender, queue) = mpsc::unbounded();
    let (end, driver) = connect_agent(
        |end| Interop {
            end,
            counts: Mutex::new((0, 0)),
            work: sender,
        },
        input,
        output,
        ConnectOptions::default(),
    );
    // The connection decides: when its input ends, so does the agent.
    let driven = futures::executor::block_on(async {
        let (driver, worker) = (Box::pin(driver), Box::pin(worker(end, queue)));
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
