//! The handshake: what the agent's end of a connection decides about
//! `initialize` itself, whatever its handler answers, taken from the
//! schema once and printed into every language's connection.
//!
//! - **Version negotiation.** The agent answers the highest protocol
//!   version it supports at or below the requested one. The bindings
//!   support one version, the capability layout's ([`crate::ir::CapabilityLayout`]).
//!   When none is at or below the request, a schema whose error codes name
//!   the unsupported-version error (v2's `-32022`, with its
//!   `UnsupportedProtocolVersionErrorData` of `requested` and `supported`)
//!   fails `initialize` with it; a schema without one (v1) answers its
//!   latest version.
//! - **Capabilities.** The answer always carries the agent's capabilities
//!   member (`agentCapabilities` in v1, `capabilities` in v2), `{}` when the
//!   handler left it out.
//! - **Capabilities from handlers.** Each end sets the method gates of its
//!   own capabilities from the handlers it was given
//!   ([`crate::advertising`]): the agent's in its answer, the client's in
//!   its request.
//! - **Unknown sessions.** The error a session-scoped request naming an
//!   unknown session gets: the error code whose data the schema describes
//!   as `SessionNotFoundErrorData` (v2), else its resource-not-found code
//!   (v1), with the session id as `data`.
//!
//! A code's message is the title the schema gives it (`Unsupported protocol
//! version`, `Resource not found`), as the official SDKs write them.

use serde::Serialize;

use crate::advertising::{self, Advertised};
use crate::ir::{Ir, Side, TypeKind};
use crate::rfd::SESSION_ID;

/// The request member naming a protocol version, in both messages of
/// `initialize` (as the negotiation reads it).
pub const VERSION_MEMBER: &str = "protocolVersion";
/// The error-code constants the handshake's errors are found by.
const UNSUPPORTED_VERSION: &str = "UnsupportedProtocolVersion";
const RESOURCE_NOT_FOUND: &str = "ResourceNotFound";
/// The data types of those errors (v2).
const UNSUPPORTED_VERSION_DATA: &str = "UnsupportedProtocolVersionErrorData";
const SESSION_NOT_FOUND_DATA: &str = "SessionNotFoundErrorData";

/// What the agent's end does with `initialize`, for one schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Handshake {
    /// `initialize`.
    pub method: String,
    /// `protocolVersion`, in the params and the result.
    pub version: String,
    /// The protocol versions the bindings support, oldest first.
    pub supported: Vec<u16>,
    /// The result member holding the agent's capabilities.
    pub capabilities: String,
    /// The error for a request below every supported version; `None`: the
    /// latest supported version is answered instead.
    pub unsupported: Option<UnsupportedVersion>,
    /// The error for a request naming a session the agent does not know.
    pub unknown_session: Option<SchemaError>,
    /// The gates the agent's end derives from its handlers.
    pub agent_advertises: Advertised,
    /// The gates the client's end derives from its handlers.
    pub client_advertises: Advertised,
}

/// A JSON-RPC error the schema names: its code and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SchemaError {
    pub code: i64,
    pub message: String,
    /// The `data` member naming the subject (the session id's member for
    /// an unknown session).
    pub member: String,
}

/// The unsupported-version error and the members of its data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnsupportedVersion {
    pub code: i64,
    pub message: String,
    /// The data member holding the requested version.
    pub requested: String,
    /// The data member holding the supported versions.
    pub supported: String,
}

/// The handshake of `ir`; `None` without an `initialize` method or a known
/// capability layout.
pub fn model(ir: &Ir) -> Option<Handshake> {
    let layout = ir.capability_layout.as_ref()?;
    let method = ir.initialize()?.name.clone();
    let capabilities = layout.agent.strip_prefix('/')?.to_owned();
    let unsupported = error_code(ir, UNSUPPORTED_VERSION).and_then(|(code, message)| {
        let members = required_members(ir, UNSUPPORTED_VERSION_DATA)?;
        let [requested, supported] = members.as_slice() else {
            return None;
        };
        Some(UnsupportedVersion {
            code,
            message,
            requested: requested.clone(),
            supported: supported.clone(),
        })
    });
    let unknown_session = error_code(ir, RESOURCE_NOT_FOUND).map(|(code, message)| {
        // v1 describes no data for it: `sessionId`, as v2's data and the
        // session-scoped requests name it.
        let member = required_members(ir, SESSION_NOT_FOUND_DATA)
            .and_then(|members| members.into_iter().next())
            .unwrap_or_else(|| SESSION_ID.to_owned());
        SchemaError { code, message, member }
    });
    Some(Handshake {
        method,
        version: VERSION_MEMBER.to_owned(),
        supported: vec![layout.protocol_version],
        capabilities,
        unsupported,
        unknown_session,
        agent_advertises: advertising::model(ir, Side::Agent)?,
        client_advertises: advertising::model(ir, Side::Client)?,
    })
}

/// The code and message (the schema's title, from the bold lead of the
/// constant's description) of the error-code constant named `name`.
fn error_code(ir: &Ir, name: &str) -> Option<(i64, String)> {
    let TypeKind::Enum(codes) = &ir.get(&ir.error_object()?.codes?)?.kind else {
        return None;
    };
    let value = codes.values.iter().find(|value| value.name == name)?;
    let code = value.value.as_i64()?;
    let message = value
        .description
        .as_deref()
        .and_then(|description| description.strip_prefix("**")?.split_once("**"))
        .map(|(title, _)| title.to_owned())?;
    Some((code, message))
}

/// The wire names of the required members of the struct `name`, in schema order.
fn required_members(ir: &Ir, name: &str) -> Option<Vec<String>> {
    let TypeKind::Struct(object) = &ir.get(name)?.kind else {
        return None;
    };
    Some(
        object
            .fields
            .iter()
            .filter(|field| field.required)
            .map(|field| field.wire_name.clone())
            .collect(),
    )
}
