//! What the checker reports: the [`Place`] of a message in a capture, a
//! [`Finding`] (one broken rule there), every rule id ([`RULES`]), and the
//! [`Found`] the parts push before the checker places it. A leaf: every
//! part imports it, it imports none of them.

use serde_json::Value;

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

/// A finding without its place: the parts push these and [`Checker`]
/// places them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    pub(crate) rule: &'static str,
    pub(crate) session: Option<String>,
    pub(crate) request: Option<Value>,
    pub(crate) message: String,
}

impl Found {
    pub(crate) fn new(rule: &'static str, message: String) -> Self {
        Found {
            rule,
            session: None,
            request: None,
            message,
        }
    }

    pub(crate) fn session(mut self, session: Option<&str>) -> Self {
        self.session = session.map(str::to_owned);
        self
    }

    pub(crate) fn request(mut self, request: Option<&Value>) -> Self {
        self.request = request.cloned();
        self
    }

    pub(crate) fn at(self, at: Place) -> Finding {
        Finding {
            at,
            rule: self.rule,
            session: self.session,
            request: self.request,
            message: self.message,
        }
    }
}
