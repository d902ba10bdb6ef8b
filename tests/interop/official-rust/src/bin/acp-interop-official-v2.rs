//! A small agent on the official Rust SDK's protocol v2 API (its
//! `unstable_protocol_v2` feature), for the interop matrix: the same v2 turn
//! as our v2 agents, written the way the SDK's `simple_agent_v2` example
//! writes an agent. A prompt is acknowledged with its message id and its
//! turn runs after: the user message echoed, `running`, a chunk, a tool call
//! (in progress), a permission request, the tool call's end (completed when
//! allowed, failed when not), a closing chunk and `idle` with `end_turn`.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use agent_client_protocol::v2::{schema, ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Result, Stdio};

fn send(connection: &ConnectionTo<Client>, session: &schema::SessionId, update: schema::SessionUpdate) -> Result<()> {
    connection.send_notification(schema::UpdateSessionNotification::new(session.clone(), update))
}

fn chunk(message: &schema::MessageId, text: &str) -> schema::SessionUpdate {
    schema::SessionUpdate::AgentMessageChunk(schema::ContentChunk::new(text.into(), message.clone()))
}

fn state(state: schema::StateUpdate) -> schema::SessionUpdate {
    schema::SessionUpdate::StateUpdate(state)
}

/// The turn after its acknowledgement, up to its closing chunk.
async fn turn(
    connection: &ConnectionTo<Client>,
    request: schema::PromptRequest,
    message: schema::MessageId,
) -> Result<()> {
    let session = &request.session_id;
    let reply = schema::MessageId::new(format!("reply-to-{message}"));
    send(
        connection,
        session,
        schema::SessionUpdate::UserMessage(schema::UserMessage::new(message).content(request.prompt.clone())),
    )?;
    send(
        connection,
        session,
        state(schema::StateUpdate::Running(schema::RunningStateUpdate::new())),
    )?;
    send(connection, session, chunk(&reply, "Editing notes.txt."))?;
    let call = schema::ToolCallUpdate::new("call-1")
        .title("Edit notes.txt")
        .kind(schema::ToolKind::Edit)
        .status(schema::ToolCallStatus::InProgress);
    send(connection, session, schema::SessionUpdate::ToolCallUpdate(call))?;
    let options = vec![
        schema::PermissionOption::new("allow", "Allow", schema::PermissionOptionKind::AllowOnce),
        schema::PermissionOption::new("reject", "Reject", schema::PermissionOptionKind::RejectOnce),
    ];
    let subject = schema::RequestPermissionSubject::ToolCall(Box::new(schema::ToolCallPermissionSubject::new(
        schema::ToolCallUpdate::new("call-1"),
    )));
    let asked = schema::RequestPermissionRequest::new(session.clone(), "Edit notes.txt?", options).subject(subject);
    let answer = connection.send_request(asked).block_task().await?;
    let allowed = matches!(&answer.outcome, schema::RequestPermissionOutcome::Selected(selected) if selected.option_id.0.as_ref() == "allow");
    let status = if allowed {
        schema::ToolCallStatus::Completed
    } else {
        schema::ToolCallStatus::Failed
    };
    send(
        connection,
        session,
        schema::SessionUpdate::ToolCallUpdate(schema::ToolCallUpdate::new("call-1").status(status)),
    )?;
    send(
        connection,
        session,
        chunk(&reply, if allowed { "Edited." } else { "Left as it was." }),
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let (sessions, messages) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    Agent
        .v2()
        .name("official-sdk-interop-agent-v2")
        .on_receive_request(
            async |request: schema::InitializeRequest,
                   responder: Responder<schema::InitializeResponse>,
                   _connection: ConnectionTo<Client>| {
                let info = schema::Implementation::new("official Rust SDK interop agent (v2)", "5.2.0");
                let capabilities = schema::AgentCapabilities::new().session(schema::SessionCapabilities::new());
                responder
                    .respond(schema::InitializeResponse::new(request.protocol_version, info).capabilities(capabilities))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |_: schema::NewSessionRequest,
                        responder: Responder<schema::NewSessionResponse>,
                        _connection: ConnectionTo<Client>| {
                let id = sessions.fetch_add(1, Ordering::Relaxed) + 1;
                responder.respond(schema::NewSessionResponse::new(format!("official-session-{id}")))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async |_: schema::CloseSessionRequest,
                   responder: Responder<schema::CloseSessionResponse>,
                   _connection: ConnectionTo<Client>| {
                responder.respond(schema::CloseSessionResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: schema::PromptRequest,
                        responder: Responder<schema::PromptResponse>,
                        connection: ConnectionTo<Client>| {
                let message =
                    schema::MessageId::new(format!("message-{}", messages.fetch_add(1, Ordering::Relaxed) + 1));
                responder.respond(schema::PromptResponse::new(message.clone()))?;
                let worker = connection.clone();
                connection.spawn(async move {
                    let session = request.session_id.clone();
                    let stop = match turn(&worker, request, message).await {
                        Ok(()) => schema::StopReason::EndTurn,
                        Err(error) => {
                            eprintln!("the turn failed: {error}");
                            schema::StopReason::Error(Default::default())
                        }
                    };
                    send(
                        &worker,
                        &session,
                        state(schema::StateUpdate::Idle(
                            schema::IdleStateUpdate::new().stop_reason(stop),
                        )),
                    )
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await
}
