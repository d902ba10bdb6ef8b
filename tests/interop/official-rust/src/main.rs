//! A small agent on the official Rust SDK (`agent-client-protocol`), for the
//! interop matrix: the same turn as our interop agent, written the way the
//! SDK's examples write an agent. Each prompt: a message chunk, a tool call
//! that reads `notes.txt` through the client (when offered), a permission
//! request to edit it, the edit (when allowed and offered), the tool call's
//! update, a closing chunk and `end_turn`.

use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    AgentCapabilities, ClientCapabilities, Content, ContentBlock, ContentChunk, Implementation, InitializeRequest,
    InitializeResponse, NewSessionRequest, NewSessionResponse, PermissionOption, PermissionOptionKind, PromptRequest,
    PromptResponse, ReadTextFileRequest, RequestPermissionOutcome, RequestPermissionRequest, SessionNotification,
    SessionUpdate, StopReason, TextContent, ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind, WriteTextFileRequest,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Responder, Result, Stdio, V1};

#[derive(Default)]
struct State {
    client: Option<ClientCapabilities>,
    sessions: Vec<(String, std::path::PathBuf)>,
}

fn chunk(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::Text(TextContent::new(text))))
}

async fn turn(
    state: Arc<Mutex<State>>,
    request: PromptRequest,
    connection: ConnectionTo<Client>,
) -> Result<PromptResponse> {
    let session = request.session_id.clone();
    let (cwd, read, write) = {
        let state = state.lock().unwrap();
        let cwd = state
            .sessions
            .iter()
            .find(|(id, _)| *id == session.0.as_ref())
            .map(|(_, cwd)| cwd.clone())
            .unwrap_or_default();
        let fs = state.client.as_ref().map(|client| client.fs.clone());
        (
            cwd,
            fs.as_ref().is_some_and(|fs| fs.read_text_file),
            fs.as_ref().is_some_and(|fs| fs.write_text_file),
        )
    };
    let notes = cwd.join("notes.txt");
    connection.send_notification(SessionNotification::new(session.clone(), chunk("Reading notes.txt.")))?;
    let call = ToolCall::new("call-1", "Read notes.txt")
        .kind(ToolKind::Read)
        .status(ToolCallStatus::InProgress);
    connection.send_notification(SessionNotification::new(session.clone(), SessionUpdate::ToolCall(call)))?;
    let text = if read {
        connection
            .send_request(ReadTextFileRequest::new(session.clone(), notes.clone()))
            .block_task()
            .await?
            .content
    } else {
        String::new()
    };
    let fields = ToolCallUpdateFields::new()
        .status(ToolCallStatus::Completed)
        .content(vec![ToolCallContent::Content(Content::new(ContentBlock::Text(
            TextContent::new(text.clone()),
        )))]);
    connection.send_notification(SessionNotification::new(
        session.clone(),
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new("call-1", fields)),
    ))?;
    let options = vec![
        PermissionOption::new("allow", "Allow", PermissionOptionKind::AllowOnce),
        PermissionOption::new("reject", "Reject", PermissionOptionKind::RejectOnce),
    ];
    let edit = ToolCallUpdate::new(
        "call-2",
        ToolCallUpdateFields::new().title("Edit notes.txt").kind(ToolKind::Edit),
    );
    let answer = connection
        .send_request(RequestPermissionRequest::new(session.clone(), edit, options))
        .block_task()
        .await?;
    let allowed = matches!(&answer.outcome, RequestPermissionOutcome::Selected(selected) if selected.option_id.0.as_ref() == "allow");
    if allowed && write {
        connection
            .send_request(WriteTextFileRequest::new(
                session.clone(),
                notes,
                format!("{text}edited\n"),
            ))
            .block_task()
            .await?;
    }
    connection.send_notification(SessionNotification::new(
        session,
        chunk(if allowed { "Edited." } else { "Left as it was." }),
    ))?;
    Ok(PromptResponse::new(StopReason::EndTurn))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let state = Arc::new(Mutex::new(State::default()));
    let (on_initialize, on_new, on_prompt) = (state.clone(), state.clone(), state);
    Agent
        .v1()
        .name("official-sdk-interop-agent")
        .on_receive_request(
            async move |initialize: InitializeRequest,
                        responder: Responder<InitializeResponse, V1>,
                        _connection: ConnectionTo<Client>| {
                on_initialize.lock().unwrap().client = Some(initialize.client_capabilities.clone());
                responder.respond(
                    InitializeResponse::new(initialize.protocol_version)
                        .agent_capabilities(AgentCapabilities::new())
                        .agent_info(Implementation::new("official Rust SDK interop agent", "5.2.0")),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest,
                        responder: Responder<NewSessionResponse, V1>,
                        _connection: ConnectionTo<Client>| {
                let mut state = on_new.lock().unwrap();
                let id = format!("official-session-{}", state.sessions.len() + 1);
                state.sessions.push((id.clone(), request.cwd.clone()));
                responder.respond(NewSessionResponse::new(id))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest,
                        responder: Responder<PromptResponse, V1>,
                        connection: ConnectionTo<Client>| {
                let state = on_prompt.clone();
                let worker = connection.clone();
                connection.spawn(async move {
                    match turn(state, request, worker).await {
                        Ok(response) => responder.respond(response),
                        Err(error) => responder.respond_with_error(error),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}
