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
//! `jsonschema` oracle of [`acp_vectors::validate`]; `peers` holds the view the
//! `initialize` exchange negotiated ([`acp_ir::negotiation`]) and what each
//! side advertised; `order` feeds the RFD helpers' reference machines
//! ([`acp_ir::rfd::machines`]) for R1, R2 and R4; `stream` checks reply
//! streams (R5). This module checks the order of the `initialize`
//! exchange (`BEFORE_INIT`) and ties the parts together. Finished requests,
//! drained turns and ended streams are forgotten; what stays is per session
//! and per open stream, not per message.

mod finding;
pub mod input;
mod order;
mod peers;
mod rpc;
mod schema;
mod stream;

use serde_json::Value;

use acp_ir::ir::Ir;

pub use acp_ir::ir::Direction;
use finding::Found;
pub use finding::{Finding, Place, RULES};

/// The checker of one connection.
pub struct Checker {
    schema: schema::Catalog,
    rpc: rpc::Requests,
    peers: peers::Peers,
    order: order::Order,
    streams: stream::Streams,
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
        let session = rpc::session_of(params.as_ref()).map(str::to_owned);
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
        let session = rpc::session_of(params.as_ref()).map(str::to_owned);
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
