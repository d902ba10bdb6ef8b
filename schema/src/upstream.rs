//! The default base schema: the ACP v1 JSON Schema produced in process from the
//! pinned `agent-client-protocol-schema` crate through `schemars`.
//!
//! The root is laid out the way upstream releases lay it out: an `anyOf` of
//! JSON-RPC 2.0 messages per side, each an `anyOf` of that side's request,
//! response and notification unions, whose members carry `x-method` and
//! `x-side`. Nothing here is copied from an upstream schema file.

use agent_client_protocol_schema::rpc::Notification;
use agent_client_protocol_schema::v1::{
    AgentNotification, AgentRequest, AgentResponse, ClientNotification, ClientRequest, ClientResponse,
    ProtocolLevelNotification, Request, Response,
};
use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

/// The exact release of the upstream crate the default schema comes from.
pub const UPSTREAM_CRATE: &str = "agent-client-protocol-schema";
/// Kept equal to the `=` pin in the workspace `Cargo.toml` (a test checks it).
pub const UPSTREAM_VERSION: &str = "1.20.0";

const JSON_RPC_DESCRIPTION: &str = "A message (request, response, or notification) with \
`\"jsonrpc\": \"2.0\"` specified as required by the JSON-RPC 2.0 specification.";

/// Builds the default base schema (draft 2020-12) from the pinned crate.
pub fn default_schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    let side_message = |title: &str, request: Value, response: Value, notification: Value| {
        json!({
            "title": title,
            "description": JSON_RPC_DESCRIPTION,
            "type": "object",
            "properties": {"jsonrpc": {"type": "string", "enum": ["2.0"]}},
            "required": ["jsonrpc"],
            "anyOf": [
                {"title": "Request", "allOf": [request]},
                {"title": "Response", "allOf": [response]},
                {"title": "Notification", "allOf": [notification]},
            ],
        })
    };
    let agent = side_message(
        "Agent",
        generator.subschema_for::<Request<AgentRequest>>().to_value(),
        generator.subschema_for::<Response<AgentResponse>>().to_value(),
        generator.subschema_for::<Notification<AgentNotification>>().to_value(),
    );
    let client = side_message(
        "Client",
        generator.subschema_for::<Request<ClientRequest>>().to_value(),
        generator.subschema_for::<Response<ClientResponse>>().to_value(),
        generator.subschema_for::<Notification<ClientNotification>>().to_value(),
    );
    let protocol_level = generator
        .subschema_for::<Notification<ProtocolLevelNotification>>()
        .to_value();
    let protocol_level = json!({
        "title": "ProtocolLevel",
        "description": JSON_RPC_DESCRIPTION,
        "type": "object",
        "properties": {"jsonrpc": {"type": "string", "enum": ["2.0"]}},
        "required": ["jsonrpc"],
        "allOf": [protocol_level],
    });
    let definitions: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Agent Client Protocol",
        "anyOf": [agent, client, protocol_level],
        "$defs": definitions,
    })
}

/// The schema of one type of the pinned crate, for tests that compare shapes.
pub fn schema_of<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}
