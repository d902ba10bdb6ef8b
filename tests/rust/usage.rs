//! A small agent and client written against the generated bindings, as a
//! programmer would: the agent implements the `Agent` trait and answers
//! `session/prompt` (dispatched by method name) with a message chunk, a tool
//! call, its update with content, and a plan; the client decodes each
//! `session/update` by method, shows it by kind, and turns away a kind it
//! does not know. Every message crosses the wire as JSON. `usage_official.rs`
//! is the same program written with the official
//! `agent-client-protocol-schema` crate.

use std::sync::Mutex;

use acp_bindings::methods::{self, agent, client, Agent};
use acp_bindings::*;
use serde_json::{json, Value};

#[derive(Default)]
struct Agent1 {
    sent: Mutex<Vec<SessionNotification>>,
}

impl Agent for Agent1 {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(params.protocol_version))
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Ok(NewSessionResponse::new("session-1"))
    }
    async fn session_prompt(&self, params: PromptRequest) -> Result<PromptResponse, Error> {
        let updates: [SessionUpdate; 4] = [
            SessionUpdate::AgentMessageChunk(ContentChunk::new(TextContent::new("Let me read it."))),
            ToolCall::new("call-1", "Read main.rs")
                .kind(ToolKind::Read)
                .status(ToolCallStatus::Pending)
                .into(),
            ToolCallUpdate::new("call-1")
                .status(ToolCallStatus::Completed)
                .content(vec![Content::new(TextContent::new("fn main() {}")).into()])
                .into(),
            Plan::new(vec![PlanEntry::new(
                "Explain main.rs",
                PlanEntryPriority::High,
                PlanEntryStatus::InProgress,
            )])
            .into(),
        ];
        let notifications = updates.map(|update| SessionNotification::new(params.session_id.clone(), update));
        self.sent.lock().unwrap().extend(notifications);
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

#[derive(Default)]
struct Client1 {
    shown: Vec<String>,
}

impl Client1 {
    fn handle_notification(&mut self, method: &str, params: Value) -> Result<(), Error> {
        let client::Notification::SessionUpdate(params) = client::Notification::decode(method, params)? else {
            return Ok(());
        };
        let line = match params.update {
            SessionUpdate::AgentMessageChunk(ContentChunk {
                content: ContentBlock::Text(text),
                ..
            }) => text.text,
            SessionUpdate::ToolCall(call) => format!("{} {}", call.tool_call_id, call.title),
            SessionUpdate::ToolCallUpdate(update) => format!("{} {:?}", update.tool_call_id, update.status.value()),
            SessionUpdate::Plan(plan) => format!("plan: {}", plan.entries[0].content),
            other => format!("not shown: {other:?}"),
        };
        self.shown.push(line);
        Ok(())
    }
}

#[test]
fn an_agent_and_a_client_talk() {
    let (agent, mut client) = (Agent1::default(), Client1::default());
    let prompt = json!({"sessionId": "session-1", "prompt": [{"type": "text", "text": "What does main.rs do?"}]});
    let result = pollster::block_on(agent::dispatch_request(&agent, methods::SESSION_PROMPT, prompt)).unwrap();
    assert_eq!(result, json!({"stopReason": "end_turn"}));

    for notification in agent.sent.lock().unwrap().drain(..) {
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
            .handle_notification(methods::SESSION_UPDATE, serde_json::from_str(&wire).unwrap())
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
    let error = client
        .handle_notification(methods::SESSION_UPDATE, unknown)
        .unwrap_err();
    assert_eq!(
        (error.code, error.data),
        (
            ErrorCode::InvalidParams,
            Some(json!({"pointer": "/update/sessionUpdate"}))
        )
    );
}
