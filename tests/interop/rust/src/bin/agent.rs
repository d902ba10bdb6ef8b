//! Our Rust agent, for the interop matrix: the `Agent` trait of the
//! generated crate over its own stdio. Each prompt is one full turn: a
//! message chunk, a tool call that reads `notes.txt` through the client
//! (when the client offers file reads), a permission request to edit it,
//! the edit through the client (when allowed and offered), the tool call's
//! update, a closing chunk, and `end_turn`. `ACP_INTEROP_TRACE` names a
//! file that records every message.

use std::path::PathBuf;
use std::sync::Mutex;

use acp_bindings::connection::{connect_agent, AgentEnd, ConnectOptions};
use acp_bindings::methods::Agent;
use acp_bindings::*;
use acp_interop::{reader, Trace, Writer};

struct Interop {
    end: AgentEnd,
    client: Mutex<Option<ClientCapabilities>>,
    sessions: Mutex<Vec<(String, PathBuf)>>,
}

impl Interop {
    fn update(&self, session: &SessionId, update: SessionUpdate) -> Result<(), Error> {
        self.end
            .session_update(SessionNotification::new(session.clone(), update))
            .map_err(|error| Error::internal_error().data(serde_json::json!(error.to_string())))
    }

    fn offered(&self, read: bool) -> bool {
        let client = self.client.lock().unwrap();
        let fs = client.as_ref().and_then(|client| client.fs.as_ref());
        fs.and_then(|fs| if read { fs.read_text_file } else { fs.write_text_file })
            .unwrap_or(false)
    }
}

fn failed(error: acp_bindings::connection::CallError) -> Error {
    Error::internal_error().data(serde_json::json!(error.to_string()))
}

impl Agent for Interop {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        *self.client.lock().unwrap() = params.client_capabilities.clone();
        let mut response = InitializeResponse::new(PROTOCOL_VERSION);
        response.agent_info = Nullable::Value(Implementation::new("acp-codegen interop agent (Rust)", "0.1.0"));
        Ok(response)
    }

    async fn session_new(&self, params: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        let mut sessions = self.sessions.lock().unwrap();
        let id = format!("session-{}", sessions.len() + 1);
        sessions.push((id.clone(), PathBuf::from(params.cwd.to_string())));
        Ok(NewSessionResponse::new(id))
    }

    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let session = params.session_id.clone();
        let cwd = self
            .sessions
            .lock()
            .unwrap()
            .iter()
            .find(|(id, _)| *id == session.as_str())
            .map(|(_, cwd)| cwd.clone())
            .ok_or_else(|| ends::session_not_found(session.as_str()))?;
        let notes = cwd.join("notes.txt").display().to_string();
        self.update(
            &session,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new("Reading notes.txt."))),
        )?;
        self.update(
            &session,
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
            &session,
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
            self.end
                .fs_write_text_file(WriteTextFileRequest::new(
                    session.clone(),
                    notes,
                    format!("{text}edited\n"),
                ))
                .await
                .map_err(failed)?;
        }
        self.update(
            &session,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new(if allowed {
                "Edited."
            } else {
                "Left as it was."
            }))),
        )?;
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

fn main() {
    let trace = Trace::create(std::env::var("ACP_INTEROP_TRACE").ok().as_deref()).expect("the trace file");
    let input = reader(std::io::stdin(), trace.clone(), "client-to-agent");
    let output = Writer::new(std::io::stdout(), trace, "agent-to-client");
    let (_, driver) = connect_agent(
        |end| Interop {
            end,
            client: Mutex::new(None),
            sessions: Mutex::new(Vec::new()),
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
