//! The wire-trace checker: the rules a capture of one ACP connection must
//! keep, checked one message at a time in memory that does not grow with the
//! trace, and the record formats a capture comes in ([`input`]: JSON Lines,
//! a JSON array, or one stdio tee per direction), read one record at a time
//! (`cargo xtask check-trace` opens the files and prints the findings).
//!
//! [`Checker`] takes each captured JSON-RPC message with its direction, or
//! each frame of a NATS reply stream, and returns what it broke. Its parts,
//! one module each: `rpc` reads the JSON-RPC envelope and keeps the
//! requests in flight (the id rules); `schema`
//! validates params and results by method and direction with the
//! `jsonschema` oracle of [`crate::validate`]; `peers` holds the view the
//! `initialize` exchange negotiated ([`crate::negotiation`]) and what each
//! side advertised; `order` feeds the RFD helpers' reference machines
//! ([`crate::helpers::machines`]) for R1, R2 and R4; `stream` checks reply
//! streams (R5). This module checks the order of the `initialize`
//! exchange (`BEFORE_INIT`) and ties the parts together. Finished requests,
//! drained turns and ended streams are forgotten; what stays is per session
//! and per open stream, not per message.

pub mod input;
mod order;
mod peers;
mod rpc;
mod schema;
mod stream;

use serde_json::Value;

#[cfg(test)]
use acp_ir::lower;
use acp_ir::{helpers, ir, negotiation};
use acp_vectors::validate;
use ir::Ir;

pub use ir::Direction;

/// Where a message is in the capture: the index of its input (the caller's
/// numbering, for traces split across files) and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub input: usize,
    pub line: u64,
}

/// One broken rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub at: Place,
    /// One of [`RULES`].
    pub rule: &'static str,
    pub session: Option<String>,
    /// The JSON-RPC id of the request it concerns (a prompt's, for R2 and
    /// R4), or the reply stream's name (R5).
    pub request: Option<Value>,
    pub message: String,
}

/// Every rule id with what it checks, in the order reports list them.
pub const RULES: [(&str, &str); 13] = [
    (
        "SCHEMA",
        "params, a result or a notification does not validate against the extended schema",
    ),
    ("JSONRPC", "not a JSON-RPC 2.0 request, notification or response"),
    (
        "UNKNOWN_METHOD",
        "a method the receiving side does not handle in this schema",
    ),
    (
        "NOT_ADVERTISED",
        "a method, or a part of its params, the receiving side did not advertise in `initialize`",
    ),
    ("BEFORE_INIT", "a message before the `initialize` exchange completed"),
    (
        "NEGOTIATION",
        "the `initialize` exchange agrees on no protocol version these rules know",
    ),
    ("UNKNOWN_ID", "a response whose id matches no request in flight"),
    ("DUPLICATE_ID", "a request whose id is already in flight the same way"),
    (
        "R1",
        "a session-scoped notification before `session/ready`, or no `session/ready` at all (when negotiated)",
    ),
    (
        "R2",
        "not exactly one `turn_complete` per prompt, after every other update, with the response's stop reason",
    ),
    ("R4", "an update of a turn after its `session/prompt` response"),
    (
        "R5",
        "a reply stream that does not open with exactly one status/ack, or acks a request that failed to decode",
    ),
    (
        "FRAME",
        "a reply-stream frame that is not `{\"type\": ..., \"data\": ...}`",
    ),
];

/// The checker of one connection.
pub struct Checker {
    schema: schema::Catalog,
    rpc: rpc::Requests,
    peers: peers::Peers,
    order: order::Order,
    streams: stream::Streams,
}

/// A finding without its place: the parts push these and [`Checker`]
/// places them.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    rule: &'static str,
    session: Option<String>,
    request: Option<Value>,
    message: String,
}

impl Found {
    fn new(rule: &'static str, message: String) -> Self {
        Found {
            rule,
            session: None,
            request: None,
            message,
        }
    }

    fn session(mut self, session: Option<&str>) -> Self {
        self.session = session.map(str::to_owned);
        self
    }

    fn request(mut self, request: Option<&Value>) -> Self {
        self.request = request.cloned();
        self
    }

    fn at(self, at: Place) -> Finding {
        Finding {
            at,
            rule: self.rule,
            session: self.session,
            request: self.request,
            message: self.message,
        }
    }
}

/// The `sessionId` of params, when they carry one.
fn session_of(params: Option<&Value>) -> Option<&str> {
    params?.get("sessionId")?.as_str()
}

impl Checker {
    /// A checker for the schema `document` and its IR; fails when the
    /// validator refuses the schema.
    pub fn new(document: &Value, ir: &Ir) -> Result<Checker, String> {
        Ok(Checker {
            schema: schema::Catalog::new(document, ir)?,
            rpc: rpc::Requests::default(),
            peers: peers::Peers::new(ir),
            order: order::Order::new(ir),
            streams: stream::Streams::default(),
        })
    }

    /// R1 allows an agent to stop waiting for `session/ready` after a
    /// timeout: sessions that waited `timeout` milliseconds (by the times
    /// given to [`Checker::clock`]) count as ready.
    pub fn fall_back_after(&mut self, timeout: u64) {
        self.order.fall_back_after(timeout);
    }

    /// The time of the next message or frame, in milliseconds.
    pub fn clock(&mut self, now: u64) {
        self.order.clock(now);
    }

    /// Checks one message that went `direction`.
    pub fn message(&mut self, at: Place, direction: Direction, message: Value) -> Vec<Finding> {
        let mut found = Vec::new();
        self.check(at, direction, message, &mut found);
        found.into_iter().map(|finding| finding.at(at)).collect()
    }

    fn check(&mut self, at: Place, direction: Direction, message: Value, found: &mut Vec<Found>) {
        match rpc::Envelope::read(message) {
            Err(problem) => found.push(Found::new("JSONRPC", problem)),
            Ok(rpc::Envelope::Request { id, method, params }) => self.request(at, direction, id, method, params, found),
            Ok(rpc::Envelope::Notification { method, params }) => self.notification(direction, method, params, found),
            Ok(rpc::Envelope::Response { id, outcome }) => self.response(at, direction, id, outcome, found),
        }
    }

    fn request(
        &mut self,
        at: Place,
        direction: Direction,
        id: Value,
        method: String,
        mut params: Option<Value>,
        found: &mut Vec<Found>,
    ) {
        let session = session_of(params.as_ref()).map(str::to_owned);
        let finding = |rule, message| Found::new(rule, message).session(session.as_deref()).request(Some(&id));
        if let Some(duplicate) = self.rpc.request(direction, &id, &method, session.as_deref(), at) {
            found.push(finding("DUPLICATE_ID", duplicate));
        }
        let opens = self.peers.is_initialize(&method) && direction == Direction::ClientToAgent;
        if !self.peers.initialized() && !opens {
            found.push(finding(
                "BEFORE_INIT",
                format!(
                    "{} request `{method}` before `initialize` completed",
                    direction.sender()
                ),
            ));
        }
        found.extend(
            self.schema
                .request(direction, &method, &mut params)
                .into_iter()
                .map(|(rule, message)| finding(rule, message)),
        );
        found.extend(
            self.peers
                .advertised(direction, &method, params.as_ref())
                .map(|message| finding("NOT_ADVERTISED", message)),
        );
        self.peers.request(direction, &method, params.as_ref());
        self.order.request(direction, &id, &method, session.as_deref());
    }

    fn notification(
        &mut self,
        direction: Direction,
        method: String,
        mut params: Option<Value>,
        found: &mut Vec<Found>,
    ) {
        let session = session_of(params.as_ref()).map(str::to_owned);
        let finding = |rule, message| Found::new(rule, message).session(session.as_deref());
        if !self.peers.initialized() {
            found.push(finding(
                "BEFORE_INIT",
                format!(
                    "{} notification `{method}` before `initialize` completed",
                    direction.sender()
                ),
            ));
        }
        found.extend(
            self.schema
                .notification(direction, &method, &mut params)
                .into_iter()
                .map(|(rule, message)| finding(rule, message)),
        );
        found.extend(
            self.peers
                .advertised(direction, &method, params.as_ref())
                .map(|message| finding("NOT_ADVERTISED", message)),
        );
        found.extend(self.order.notification(direction, &method, params.as_ref()));
    }

    fn response(&mut self, at: Place, direction: Direction, id: Value, outcome: rpc::Outcome, found: &mut Vec<Found>) {
        let Some(request) = self.rpc.response(direction, &id) else {
            if !id.is_null() {
                let message = format!(
                    "{} answered id {id}, which is no {} request in flight",
                    direction.sender(),
                    direction.receiver()
                );
                found.push(Found::new("UNKNOWN_ID", message).request(Some(&id)));
            }
            return;
        };
        let finding = |rule, message| {
            Found::new(rule, message)
                .session(request.session.as_deref())
                .request(Some(&id))
        };
        if !self.peers.initialized() && !self.peers.is_initialize(&request.method) {
            found.push(finding(
                "BEFORE_INIT",
                format!(
                    "{} answered `{}` before `initialize` completed",
                    direction.sender(),
                    request.method
                ),
            ));
        }
        let result = match outcome {
            rpc::Outcome::Result(mut result) => {
                found.extend(
                    self.schema
                        .result(direction, &request.method, &mut result)
                        .into_iter()
                        .map(|(rule, message)| finding(rule, message)),
                );
                Some(result)
            }
            rpc::Outcome::Error(problem) => {
                found.extend(problem.map(|problem| finding("JSONRPC", problem)));
                None
            }
        };
        match self.peers.response(&request.method, result.as_ref()) {
            Some(Ok(features)) => self.order.negotiated(features),
            Some(Err(problem)) => found.push(finding("NEGOTIATION", problem)),
            None => {}
        }
        found.extend(self.order.response(direction, &id, &request, result.as_ref(), at));
    }

    /// Checks one frame of the reply stream `stream`; `None` is the stream's
    /// end (its empty terminating message).
    pub fn frame(&mut self, at: Place, stream: &str, frame: Option<&Value>) -> Vec<Finding> {
        self.streams
            .frame(stream, frame)
            .into_iter()
            .map(|finding| finding.at(at))
            .collect()
    }

    /// The findings only the end of the capture shows (turns answered but
    /// never completed), in the order of their responses.
    pub fn finish(self) -> Vec<Finding> {
        self.order.finish()
    }
}

#[cfg(test)]
mod tests;
