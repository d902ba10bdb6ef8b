use {{ module }}::methods::client::Notification;
use {{ module }}::{negotiate, roundtrip};
use serde_json::json;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Decode a value by its schema type name and encode it back.
    let block = roundtrip("ContentBlock", &json!({"type": "text", "text": "hello"}))?;
    println!("ContentBlock: {block}");

    // Decode the params of a notification the client receives, by method.
    let params = json!({"sessionId": "s-1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}});
    if let Notification::SessionUpdate(notification) = Notification::decode("session/update", params)? {
        println!("session/update: {}", serde_json::to_string(&notification.update)?);
    }

    // Negotiate from one initialize exchange, then check what may be sent.
    let request = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}}});
    let response = json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true}});
    let negotiated = negotiate(&request, &response)?;
    println!("client handles fs/read_text_file: {}", negotiated.client_handles("fs/read_text_file"));
    println!("agent handles session/load: {}", negotiated.agent_handles("session/load"));
    let prompt = json!({"sessionId": "s-1", "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]});
    if let Err(refused) = negotiated.check_outgoing("session/prompt", &prompt) {
        println!("refused session/prompt at: {}", json!(refused.pointer));
    }
    Ok(())
}
