//! The program of `usage.rs` written with the official
//! `agent-client-protocol-schema` crate, kept to compare the two: the same
//! agent, client, messages and checks. The official crate has no handler
//! traits, so each side matches on its decoded request or notification.

use agent_client_protocol_schema::v1::*;
use agent_client_protocol_schema::MethodDispatchError;
use serde_json::{json, Value};

/// JSON-RPC's errors for a call that does not decode.
fn dispatch_error(error: MethodDispatchError) -> Error {
    match error {
        MethodDispatchError::UnknownMethod { .. } => Error::method_not_found(),
        error => Error::invalid_params().data(error.to_string()),
    }
}

#[derive(Default)]
struct Agent1 {
    sent: Vec<SessionNotification>,
}

impl Agent1 {
    fn handle_request(&mut self, method: &str, params: &Value) -> Result<Value, Error> {
        let response = match ClientRequest::from_method_and_params(method, params).map_err(dispatch_error)? {
            ClientRequest::InitializeRequest(params) => {
                AgentResponse::InitializeResponse(InitializeResponse::new(params.protocol_version))
            }
            ClientRequest::AuthenticateRequest(_) => AgentResponse::AuthenticateResponse(AuthenticateResponse::new()),
            ClientRequest::NewSessionRequest(_) => {
                AgentResponse::NewSessionResponse(NewSessionResponse::new("session-1"))
            }
            ClientRequest::PromptRequest(params) => AgentResponse::PromptResponse(self.prompt(params)),
            _ => return Err(Error::method_not_found()),
        };
        serde_json::to_value(response).map_err(Error::into_internal_error)
    }

    fn prompt(&mut self, params: PromptRequest) -> PromptResponse {
        let updates: [SessionUpdate; 4] = [
            SessionUpdate::AgentMessageChunk(ContentChunk::new("Let me read it.".into())),
            SessionUpdate::ToolCall(
                ToolCall::new("call-1", "Read main.rs")
                    .kind(ToolKind::Read)
                    .status(ToolCallStatus::Pending),
            ),
            SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                "call-1",
                ToolCallUpdateFields::new()
                    .status(ToolCallStatus::Completed)
                    .content(vec!["fn main() {}".into()]),
            )),
            SessionUpdate::Plan(Plan::new(vec![PlanEntry::new(
                "Explain main.rs",
                PlanEntryPriority::High,
                PlanEntryStatus::InProgress,
            )])),
        ];
        self.sent
            .extend(updates.map(|update| SessionNotification::new(params.session_id.clone(), update)));
        PromptResponse::new(StopReason::EndTurn)
    }
}

#[derive(Default)]
struct Client1 {
    shown: Vec<String>,
}

impl Client1 {
    fn handle_notification(&mut self, method: &str, params: &Value) -> Result<(), Error> {
        let AgentNotification::SessionNotification(params) =
            AgentNotification::from_method_and_params(method, params).map_err(dispatch_error)?
        else {
            return Ok(());
        };
        let line = match params.update {
            SessionUpdate::AgentMessageChunk(ContentChunk {
                content: ContentBlock::Text(text),
                ..
            }) => text.text,
            SessionUpdate::ToolCall(call) => format!("{} {}", call.tool_call_id, call.title),
            SessionUpdate::ToolCallUpdate(update) => format!("{} {:?}", update.tool_call_id, update.fields.status),
            SessionUpdate::Plan(plan) => format!("plan: {}", plan.entries[0].content),
            other => format!("not shown: {other:?}"),
        };
        self.shown.push(line);
        Ok(())
    }
}

#[test]
fn an_agent_and_a_client_talk() {
    let (mut agent, mut client) = (Agent1::default(), Client1::default());
    let prompt = json!({"sessionId": "session-1", "prompt": [{"type": "text", "text": "What does main.rs do?"}]});
    let result = agent.handle_request("session/prompt", &prompt).unwrap();
    assert_eq!(result, json!({"stopReason": "end_turn"}));

    for notification in agent.sent.drain(..) {
        let wire = serde_json::to_string(&notification).unwrap();
        assert!(
            wire.starts_with(r#"{"sessionId":"session-1","update":{"sessionUpdate":"#),
            "{wire}"
        );
        assert_eq!(
            serde_json::from_str::<SessionNotification>(&wire).unwrap(),
            notification
        );
        client
            .handle_notification("session/update", &serde_json::from_str(&wire).unwrap())
            .unwrap();
    }
    assert_eq!(
        client.shown,
        [
            "Let me read it.",
            "call-1 Read main.rs",
            "call-1 Some(Completed)",
            "plan: Explain main.rs"
        ]
    );

    let unknown = json!({"sessionId": "session-1", "update": {"sessionUpdate": "_zed/cursor", "line": 3}});
    let error = client.handle_notification("session/update", &unknown).unwrap_err();
    assert_eq!(error.code, ErrorCode::InvalidParams);
}
