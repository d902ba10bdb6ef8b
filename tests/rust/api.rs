//! What the generated Rust API promises beyond decoding, checked against the
//! default schema's crate: dispatch answers with JSON-RPC's codes, gated and
//! extension methods have defaults, `Nullable` keeps `null` apart from
//! absence, newtypes are keys, unions encode their tag first.

use std::collections::BTreeMap;
use std::collections::HashSet;

use acp_bindings::methods::{self, agent, Agent};
use acp_bindings::*;
use serde_json::{json, Value};

/// Runs a future that never waits (every handler here is immediate).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::future::Future::poll(std::pin::pin!(future), &mut context) {
        std::task::Poll::Ready(output) => output,
        std::task::Poll::Pending => unreachable!("the handlers never wait"),
    }
}

/// An agent that implements only what it must.
struct Minimal;

impl Agent for Minimal {
    async fn initialize(&self, params: InitializeRequest) -> Result<InitializeResponse, Error> {
        Ok(InitializeResponse::new(params.protocol_version))
    }
    async fn session_new(&self, _: NewSessionRequest) -> Result<NewSessionResponse, Error> {
        Ok(NewSessionResponse::new("session-1"))
    }
    async fn session_prompt(&self, _: PromptRequest) -> Result<PromptResponse, Error> {
        Ok(PromptResponse::new(StopReason::EndTurn))
    }
}

fn request(method: &str, params: Value) -> Result<Value, Error> {
    block_on(agent::dispatch_request(&Minimal, method, params))
}

#[test]
fn dispatch_answers_with_json_rpc_codes() {
    assert_eq!(
        request(methods::SESSION_PROMPT, json!({"sessionId": "s", "prompt": []})).unwrap(),
        json!({"stopReason": "end_turn"})
    );

    let unknown = request("session/unknown", json!({})).unwrap_err();
    assert_eq!(
        (unknown.code, unknown.code.value()),
        (ErrorCode::MethodNotFound, -32601)
    );
    assert_eq!(unknown.data, Some(json!({"method": "session/unknown"})));

    let invalid = request(
        methods::SESSION_PROMPT,
        json!({"sessionId": "s", "prompt": [{"type": "text", "text": 5}]}),
    )
    .unwrap_err();
    assert_eq!(
        (invalid.code, invalid.data.clone()),
        (ErrorCode::InvalidParams, Some(json!({"pointer": "/prompt/0/text"})))
    );
    assert!(
        invalid
            .to_string()
            .starts_with("Invalid params: /prompt/0/text: invalid type"),
        "{invalid}"
    );

    let gated = request(
        methods::SESSION_LOAD,
        json!({"sessionId": "s", "cwd": "/", "mcpServers": []}),
    )
    .unwrap_err();
    assert_eq!(gated.code, ErrorCode::MethodNotFound);
    assert_eq!(
        request("_zed/cursor", json!({"line": 3})).unwrap_err().code,
        ErrorCode::MethodNotFound
    );
    assert_eq!(
        block_on(agent::dispatch_notification(&Minimal, "_zed/ping", json!({}))),
        Ok(())
    );
    // The connection acts on `session/cancel` itself: the handler's default does nothing.
    assert_eq!(
        block_on(agent::dispatch_notification(
            &Minimal,
            methods::SESSION_CANCEL,
            json!({"sessionId": "s"})
        )),
        Ok(())
    );
}

#[test]
fn requests_decode_by_method() {
    let decoded = agent::Request::decode("_zed/cursor", json!({"line": 3})).unwrap();
    assert_eq!(
        decoded,
        agent::Request::Extension {
            method: "_zed/cursor".to_owned(),
            params: json!({"line": 3})
        }
    );
    assert_eq!(decoded.method(), "_zed/cursor");
    assert_eq!(
        agent::Request::decode("nope", json!({})).unwrap_err(),
        Error::method_not_found().data(json!({"method": "nope"}))
    );
    let Ok(agent::Request::SessionPrompt(prompt)) =
        agent::Request::decode(methods::SESSION_PROMPT, json!({"sessionId": "s", "prompt": []}))
    else {
        panic!("session/prompt decodes to its variant");
    };
    assert_eq!(prompt, PromptRequest::new("s", Vec::new()));
}

#[test]
fn nullable_keeps_null_apart_from_absence() {
    let absent: ToolCallUpdate = serde_json::from_value(json!({"toolCallId": "t"})).unwrap();
    let null: ToolCallUpdate = serde_json::from_value(json!({"toolCallId": "t", "title": null})).unwrap();
    let value: ToolCallUpdate = serde_json::from_value(json!({"toolCallId": "t", "title": "Read"})).unwrap();
    assert!(absent.title.is_absent() && null.title.is_null() && value.title.is_value());
    assert_eq!(
        (absent.title.value(), null.title.value(), value.title.as_deref()),
        (None, None, Some("Read"))
    );
    assert_eq!(
        serde_json::to_value(&null).unwrap(),
        json!({"toolCallId": "t", "title": null})
    );
    assert_eq!(serde_json::to_value(&absent).unwrap(), json!({"toolCallId": "t"}));
    assert_eq!(Nullable::<String>::from(None), Nullable::Null);
    assert_eq!(ToolCallUpdate::new("t").title("Read"), value);
}

#[test]
fn newtypes_and_enums_are_keys() {
    let sessions: HashSet<SessionId> = ["a".into(), SessionId::from("b".to_owned()), SessionId::new("a")]
        .into_iter()
        .collect();
    assert_eq!(sessions.len(), 2);
    assert!(sessions.contains("a"));
    let ordered: BTreeMap<ToolCallId, ToolKind> = [("z".into(), ToolKind::Read), ("y".into(), ToolKind::Edit)]
        .into_iter()
        .collect();
    assert_eq!(
        ordered.keys().map(ToolCallId::to_string).collect::<Vec<_>>(),
        ["y", "z"]
    );
    let kind = ToolKind::Read;
    let copied = kind;
    assert_eq!((kind, copied.as_str()), (ToolKind::Read, "read"));
    assert_eq!(ErrorCode::from(-32601), ErrorCode::MethodNotFound);
}

#[test]
fn unions_encode_their_tag_first_and_members_in_order() {
    let block = ContentBlock::from(TextContent::new("hi"));
    assert_eq!(serde_json::to_string(&block).unwrap(), r#"{"type":"text","text":"hi"}"#);
    let update = SessionUpdate::from(ToolCall::new("t", "Read").status(ToolCallStatus::Pending));
    assert_eq!(
        serde_json::to_string(&update).unwrap(),
        r#"{"sessionUpdate":"tool_call","toolCallId":"t","title":"Read","status":"pending"}"#
    );
}

#[test]
fn structs_without_required_members_default() {
    assert_eq!(AuthenticateResponse::default(), AuthenticateResponse::new());
    assert_eq!(serde_json::to_value(ClientCapabilities::default()).unwrap(), json!({}));
}
