//! The JSON-RPC 2.0 layer of a trace: what kind of message each is (rule
//! `JSONRPC` when it is none), and the requests in flight each way, so that
//! a response finds its request (`UNKNOWN_ID`) and an id is not reused while
//! its request is open (`DUPLICATE_ID`). A request is forgotten when it is
//! answered; ids compare as JSON, so `2` and `"2"` are different ids.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::finding::Place;
use acp_ir::ir::Direction;

/// One message, taken apart.
#[derive(Debug)]
pub(super) enum Envelope {
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: Value,
        outcome: Outcome,
    },
}

/// What a response carries.
#[derive(Debug)]
pub(super) enum Outcome {
    Result(Value),
    /// An error, and what is wrong with its shape, if anything.
    Error(Option<String>),
}

fn error_problem(error: &Value) -> Option<String> {
    let Some(error) = error.as_object() else {
        return Some("`error` is not an object".to_owned());
    };
    if !error.get("code").is_some_and(|code| code.is_i64() || code.is_u64()) {
        return Some("`error.code` is not an integer".to_owned());
    }
    if !error.get("message").is_some_and(Value::is_string) {
        return Some("`error.message` is not a string".to_owned());
    }
    None
}

impl Envelope {
    /// Takes `message` apart, or says why it is no JSON-RPC 2.0 message.
    pub(super) fn read(message: Value) -> Result<Envelope, String> {
        let Value::Object(mut members) = message else {
            return Err("the message is not a JSON object".to_owned());
        };
        if members.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err("`jsonrpc` is not \"2.0\"".to_owned());
        }
        let params = members.remove("params");
        if params
            .as_ref()
            .is_some_and(|params| !params.is_object() && !params.is_array())
        {
            return Err("`params` is neither an object nor an array".to_owned());
        }
        match members.remove("method") {
            Some(Value::String(method)) => match members.remove("id") {
                None => Ok(Envelope::Notification { method, params }),
                Some(id) if is_request_id(&id) => Ok(Envelope::Request { id, method, params }),
                Some(_) => Err(format!(
                    "the id of request `{method}` is neither a string nor an integer"
                )),
            },
            Some(_) => Err("`method` is not a string".to_owned()),
            None => response(members),
        }
    }
}

fn is_request_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

fn response(mut members: Map<String, Value>) -> Result<Envelope, String> {
    let Some(id) = members.remove("id") else {
        return Err("neither `method` nor `id`".to_owned());
    };
    if !is_request_id(&id) && !id.is_null() {
        return Err("the response id is neither a string, an integer nor null".to_owned());
    }
    match (members.remove("result"), members.remove("error")) {
        (Some(result), None) => Ok(Envelope::Response {
            id,
            outcome: Outcome::Result(result),
        }),
        (None, Some(error)) => Ok(Envelope::Response {
            id,
            outcome: Outcome::Error(error_problem(&error)),
        }),
        (Some(_), Some(_)) => Err("a response with both `result` and `error`".to_owned()),
        (None, None) => Err("a response with neither `result` nor `error`".to_owned()),
    }
}

/// A request in flight.
#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub method: String,
    pub session: Option<String>,
    pub at: Place,
}

/// The requests in flight each way, by id.
#[derive(Debug, Default)]
pub(super) struct Requests {
    open: HashMap<(Direction, String), Pending>,
}

/// The key of an id: its JSON text.
fn key(id: &Value) -> String {
    id.to_string()
}

impl Requests {
    /// A request went `direction`: what is wrong with its id, if anything.
    pub(super) fn request(
        &mut self,
        direction: Direction,
        id: &Value,
        method: &str,
        session: Option<&str>,
        at: Place,
    ) -> Option<String> {
        let pending = Pending {
            method: method.to_owned(),
            session: session.map(str::to_owned),
            at,
        };
        let earlier = self.open.insert((direction, key(id)), pending)?;
        Some(format!(
            "id {id} is already in flight for `{}` (line {}), unanswered",
            earlier.method, earlier.at.line
        ))
    }

    /// A response went `direction`: the request it answers, which is then
    /// forgotten.
    pub(super) fn response(&mut self, direction: Direction, id: &Value) -> Option<Pending> {
        self.open.remove(&(direction.reverse(), key(id)))
    }

    /// How many requests are in flight.
    #[cfg(test)]
    pub(super) fn in_flight(&self) -> usize {
        self.open.len()
    }
}

/// The `sessionId` of params, when they carry one.
pub(crate) fn session_of(params: Option<&Value>) -> Option<&str> {
    params?.get("sessionId")?.as_str()
}
