//! Which type each message of a trace must be, by method and direction, as
//! the IR's messages say ([`acp_ir::messages`]: a request's params, its
//! response's result, a notification's params), and the check of it by the
//! `jsonschema` oracle of [`acp_vectors::validate`] (rule `SCHEMA`, with the JSON
//! pointer of the first error). A method the receiving side does not handle
//! is `UNKNOWN_METHOD`; `_`-prefixed extension methods are not checked.

use std::collections::HashMap;

use serde_json::Value;

use acp_ir::ir::Ir;
use acp_ir::messages::MessageKind;

use acp_ir::ir::Direction;
use acp_vectors::validate::Oracle;

/// The message types of a schema and their validator.
pub(super) struct Catalog {
    oracle: Oracle,
    /// (direction, method) -> payload type, per kind of message.
    requests: HashMap<(Direction, String), String>,
    notifications: HashMap<(Direction, String), String>,
    results: HashMap<(Direction, String), String>,
}

type Problems = Vec<(&'static str, String)>;

impl Catalog {
    pub(super) fn new(document: &Value, ir: &Ir) -> Result<Catalog, String> {
        let mut requests = HashMap::new();
        let mut notifications = HashMap::new();
        let mut results = HashMap::new();
        for message in ir.messages() {
            for direction in &message.directions {
                let key = (*direction, message.method.to_owned());
                let payload = message.payload.to_owned();
                match message.kind {
                    MessageKind::Request => requests.insert(key, payload),
                    MessageKind::Notification => notifications.insert(key, payload),
                    MessageKind::Response => results.insert(key, payload),
                };
            }
        }
        let mut names: Vec<&String> = requests
            .values()
            .chain(results.values())
            .chain(notifications.values())
            .collect();
        names.sort();
        names.dedup();
        let (oracle, unresolved) = Oracle::new(document, ir, &names)?;
        if let Some((name, reason)) = unresolved.into_iter().next() {
            return Err(format!("the validator cannot check `{name}`: {reason}"));
        }
        Ok(Catalog {
            oracle,
            requests,
            notifications,
            results,
        })
    }

    fn validate(&self, what: &str, type_name: &str, value: &mut Value) -> Problems {
        let errors = self.oracle.errors_in_place(type_name, value);
        let Some((pointer, error)) = errors.first() else {
            return Vec::new();
        };
        let more = match errors.len() {
            1 => String::new(),
            count => format!(" (and {} more)", count - 1),
        };
        let pointer = if pointer.is_empty() { "(root)" } else { pointer };
        vec![(
            "SCHEMA",
            format!("{what} is no {type_name}: {error} at {pointer}{more}"),
        )]
    }

    fn unknown(&self, direction: Direction, kind: &str, method: &str) -> Problems {
        if method.starts_with('_') {
            return Vec::new();
        }
        let other = self.requests.contains_key(&(direction.reverse(), method.to_owned()))
            || self
                .notifications
                .contains_key(&(direction.reverse(), method.to_owned()));
        let hint = if other {
            format!(" (the {} does)", direction.sender())
        } else {
            String::new()
        };
        vec![(
            "UNKNOWN_METHOD",
            format!("the {} handles no {kind} `{method}`{hint}", direction.receiver()),
        )]
    }

    /// Checks the params of a request that went `direction`.
    pub(super) fn request(&self, direction: Direction, method: &str, params: &mut Option<Value>) -> Problems {
        match self.requests.get(&(direction, method.to_owned())) {
            Some(params_type) => self.validate(
                &format!("`{method}` params"),
                params_type,
                params.get_or_insert(Value::Null),
            ),
            None => self.unknown(direction, "request", method),
        }
    }

    /// Checks the params of a notification that went `direction`.
    pub(super) fn notification(&self, direction: Direction, method: &str, params: &mut Option<Value>) -> Problems {
        match self.notifications.get(&(direction, method.to_owned())) {
            Some(params_type) => self.validate(
                &format!("`{method}` params"),
                params_type,
                params.get_or_insert(Value::Null),
            ),
            None => self.unknown(direction, "notification", method),
        }
    }

    /// Checks the result of a response that went `direction` to a request
    /// for `method` (already found known or not when it was sent).
    pub(super) fn result(&self, direction: Direction, method: &str, result: &mut Value) -> Problems {
        match self.results.get(&(direction, method.to_owned())) {
            Some(result_type) => self.validate(&format!("the `{method}` result"), result_type, result),
            None => Vec::new(),
        }
    }
}
