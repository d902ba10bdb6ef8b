//! Capability negotiation: what one `initialize` exchange allows, from the schema's capability gates.

// Copied as text into every generated crate, comments kept. The schema's
// part (the protocol version, the initialize message types and the gate
// tables) is the generated `negotiation_tables` module, which this one
// reads; acp-generate compiles this file in its tests with stand-ins for it.

use crate::negotiation_tables::SESSION_GATES;
use crate::negotiation_tables::{Request, Response, AGENT_METHODS, CHECKS, CLIENT_METHODS, FEATURES, RULES, SECTIONS};
use crate::negotiation_tables::{REQUEST_NAME, RESPONSE_NAME};

pub use crate::negotiation_tables::PROTOCOL_VERSION;

/// What an entry needs: baseline, absent from the schema, or a rule.
/// (`Never` is only used by schemas that lack an RFD feature.)
#[derive(::std::clone::Clone, ::std::marker::Copy)]
#[allow(dead_code)]
pub(crate) enum Needs {
    Always,
    Never,
    Rule(usize),
}

/// A gate: the side whose initialize message carries it, where, and
/// whether it is an offer (a non-empty list) rather than a capability.
pub(crate) struct Rule {
    pub(crate) agent: bool,
    pub(crate) pointer: &'static [&'static str],
    pub(crate) offered: bool,
}

/// Where a variant (`tag_value`) or member (no tag) gate applies.
pub(crate) struct Check {
    pub(crate) method: &'static str,
    pub(crate) pointer: &'static [&'static str],
    pub(crate) tag_property: ::std::option::Option<&'static str>,
    pub(crate) tag_value: ::std::option::Option<&'static str>,
    pub(crate) rule: usize,
}

/// A method offered per session rather than at initialize: the member of
/// the opening results that offers it (present and not null), the member
/// naming the session, and the methods that open one (`true`: the session
/// is named in the result, else in the params).
pub(crate) struct SessionGate {
    pub(crate) method: &'static str,
    pub(crate) member: &'static str,
    pub(crate) session: &'static str,
    pub(crate) openers: &'static [(&'static str, bool)],
}

/// An initialize message, decoded or as raw JSON (decoded by `negotiate`).
pub enum Message<'a, T> {
    Decoded(&'a T),
    Json(&'a ::serde_json::Value),
}

impl<'a> ::std::convert::From<&'a Request> for Message<'a, Request> {
    fn from(message: &'a Request) -> Self {
        Message::Decoded(message)
    }
}

impl<'a> ::std::convert::From<&'a Response> for Message<'a, Response> {
    fn from(message: &'a Response) -> Self {
        Message::Decoded(message)
    }
}

impl<'a, T> ::std::convert::From<&'a ::serde_json::Value> for Message<'a, T> {
    fn from(message: &'a ::serde_json::Value) -> Self {
        Message::Json(message)
    }
}

/// Negotiates from the client's `initialize` params and the agent's
/// result, each decoded or raw JSON (decoded here).
///
/// # Errors
///
/// [`NegotiationError::Decode`] when a message does not decode;
/// [`NegotiationError::VersionAboveRequested`] or
/// [`NegotiationError::UnsupportedVersion`] when the agent's version is
/// above the client's or not the one these bindings implement.
pub fn negotiate<'a>(
    request: impl ::std::convert::Into<Message<'a, Request>>,
    response: impl ::std::convert::Into<Message<'a, Response>>,
) -> ::std::result::Result<Negotiated, NegotiationError> {
    let request = wire(request.into(), REQUEST_NAME)?;
    let response = wire(response.into(), RESPONSE_NAME)?;
    let requested = version(&request);
    let answered = version(&response);
    if answered > requested {
        return ::std::result::Result::Err(NegotiationError::VersionAboveRequested { requested, answered });
    }
    if answered != i64::from(PROTOCOL_VERSION) {
        return ::std::result::Result::Err(NegotiationError::UnsupportedVersion { requested, answered });
    }
    ::std::result::Result::Ok(Negotiated {
        protocol_version: answered,
        request,
        response,
    })
}

fn wire<T: ::serde::Serialize + ::serde::de::DeserializeOwned>(
    message: Message<'_, T>,
    type_name: &'static str,
) -> ::std::result::Result<::serde_json::Value, NegotiationError> {
    let failed = |error: crate::codec::DecodeError| NegotiationError::Decode { type_name, error };
    let encode = |decoded: &T| {
        ::serde_json::to_value(decoded).map_err(|error| {
            failed(crate::codec::DecodeError {
                path: ::std::string::String::new(),
                message: error.to_string(),
            })
        })
    };
    match message {
        Message::Decoded(decoded) => encode(decoded),
        Message::Json(json) => encode(&crate::codec::decode::<T>(json.clone()).map_err(failed)?),
    }
}

fn version(message: &::serde_json::Value) -> i64 {
    message
        .get("protocolVersion")
        .and_then(::serde_json::Value::as_i64)
        .unwrap_or(-1)
}

/// Why an initialize exchange does not negotiate.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq)]
pub enum NegotiationError {
    /// A message does not decode as its type.
    Decode {
        type_name: &'static str,
        error: crate::codec::DecodeError,
    },
    /// The agent answered a version above the one the client asked for.
    VersionAboveRequested { requested: i64, answered: i64 },
    /// The agent answered a version these bindings do not implement.
    UnsupportedVersion { requested: i64, answered: i64 },
}

impl ::std::fmt::Display for NegotiationError {
    fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match self {
            NegotiationError::Decode { type_name, error } => write!(formatter, "cannot decode {type_name}: {error}"),
            NegotiationError::VersionAboveRequested { requested, answered } => {
                write!(
                    formatter,
                    "the agent answered protocol version {answered}, above the {requested} the client asked for"
                )
            }
            NegotiationError::UnsupportedVersion { answered, .. } => {
                write!(
                    formatter,
                    "the agent answered protocol version {answered}; these bindings implement {PROTOCOL_VERSION}"
                )
            }
        }
    }
}

impl ::std::error::Error for NegotiationError {}

/// An outgoing message the negotiated capabilities do not allow.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq)]
pub struct CapabilityError {
    pub method: ::std::string::String,
    /// JSON pointer of the offending part of the params (empty for the method itself).
    pub pointer: ::std::string::String,
    /// The side that did not advertise the capability: `agent` or `client`.
    pub side: &'static str,
    /// JSON pointer of the capability in that side's initialize message.
    pub capability: ::std::string::String,
}

impl ::std::fmt::Display for CapabilityError {
    fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        let part = if self.pointer.is_empty() {
            "the method"
        } else {
            self.pointer.as_str()
        };
        write!(
            formatter,
            "{}: {} needs the {} to advertise {}",
            self.method, part, self.side, self.capability
        )
    }
}

impl ::std::error::Error for CapabilityError {}

/// What one initialize exchange allows; serializes to the view every
/// language's bindings print.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq)]
pub struct Negotiated {
    protocol_version: i64,
    request: ::serde_json::Value,
    response: ::serde_json::Value,
}

impl Negotiated {
    /// The agreed protocol version.
    pub fn protocol_version(&self) -> i64 {
        self.protocol_version
    }

    fn holds(&self, rule: usize) -> bool {
        let ::std::option::Option::Some(gate) = RULES.get(rule) else {
            return false;
        };
        let mut value = ::std::option::Option::Some(if gate.agent { &self.response } else { &self.request });
        for token in gate.pointer {
            value = value.and_then(|value| value.get(*token));
        }
        match value {
            ::std::option::Option::Some(::serde_json::Value::Array(items)) => gate.offered && !items.is_empty(),
            ::std::option::Option::Some(::serde_json::Value::Bool(supported)) => !gate.offered && *supported,
            ::std::option::Option::Some(::serde_json::Value::Object(_)) => !gate.offered,
            _ => false,
        }
    }

    fn needs(&self, needs: Needs) -> bool {
        match needs {
            Needs::Always => true,
            Needs::Never => false,
            Needs::Rule(rule) => self.holds(rule),
        }
    }

    fn lookup(&self, entries: &[(&str, Needs)], name: &str) -> bool {
        entries
            .iter()
            .any(|(known, needs)| *known == name && self.needs(*needs))
    }

    /// Whether the agent may be called with `method` (every agent-side method; unknown ones are false).
    pub fn agent_handles(&self, method: &str) -> bool {
        self.lookup(AGENT_METHODS, method)
    }

    /// Whether the client may be called with `method` (every client-side method; unknown ones are false).
    pub fn client_handles(&self, method: &str) -> bool {
        self.lookup(CLIENT_METHODS, method)
    }

    /// One entry of a section: `prompt` (image, audio, embeddedContext), `mcp`, `updates`, `elicitation`.
    pub fn allows(&self, section: &str, name: &str) -> bool {
        SECTIONS
            .iter()
            .any(|(known, entries)| *known == section && self.lookup(entries, name))
    }

    /// The agent requires `session/ready` after each session is set up (RFD session-ready).
    pub fn session_ready(&self) -> bool {
        self.lookup(FEATURES, "sessionReady")
    }

    /// The agent ends every prompt turn with a `turn_complete` update (RFD turn-complete).
    pub fn turn_complete(&self) -> bool {
        self.lookup(FEATURES, "turnComplete")
    }

    /// The agent answers `session/status` (RFD session-status).
    pub fn session_status(&self) -> bool {
        self.lookup(FEATURES, "sessionStatus")
    }

    /// Checks an outgoing `method` call with `params` (any value that
    /// serializes to the params, or their JSON).
    ///
    /// # Errors
    ///
    /// The first part the negotiated capabilities do not allow.
    pub fn check_outgoing<P: ::serde::Serialize>(
        &self,
        method: &str,
        params: &P,
    ) -> ::std::result::Result<(), CapabilityError> {
        let refuse = |rule: usize, pointer: ::std::string::String| {
            let gate = &RULES[rule];
            CapabilityError {
                method: method.to_owned(),
                pointer,
                side: if gate.agent { "agent" } else { "client" },
                capability: gate
                    .pointer
                    .iter()
                    .map(|token| ::std::format!("/{}", crate::codec::escape_token(token)))
                    .collect(),
            }
        };
        if let ::std::option::Option::Some(rule) = self.refused_method(method) {
            return ::std::result::Result::Err(refuse(rule, ::std::string::String::new()));
        }
        let params = ::serde_json::to_value(params).unwrap_or(::serde_json::Value::Null);
        for check in CHECKS
            .iter()
            .filter(|check| check.method == method && !self.holds(check.rule))
        {
            let mut found = ::std::vec![(::std::string::String::new(), &params)];
            for token in check.pointer {
                let mut next = ::std::vec::Vec::new();
                for (pointer, value) in found {
                    if *token == "*" {
                        for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                            next.push((::std::format!("{pointer}/{index}"), item));
                        }
                    } else if let ::std::option::Option::Some(member) = value.get(*token) {
                        next.push((
                            ::std::format!("{pointer}/{}", crate::codec::escape_token(token)),
                            member,
                        ));
                    }
                }
                found = next;
            }
            for (pointer, value) in found {
                let gated = match (check.tag_value, check.tag_property) {
                    (::std::option::Option::None, _) => !value.is_null(),
                    (::std::option::Option::Some(tag), ::std::option::Option::None) => {
                        value.as_str() == ::std::option::Option::Some(tag)
                    }
                    (::std::option::Option::Some(tag), ::std::option::Option::Some(property)) => {
                        value.get(property).and_then(::serde_json::Value::as_str) == ::std::option::Option::Some(tag)
                    }
                };
                if gated {
                    return ::std::result::Result::Err(refuse(check.rule, pointer));
                }
            }
        }
        ::std::result::Result::Ok(())
    }

    /// The rule refusing `method` itself, whatever its params: its own
    /// gate when the exchange does not allow it.
    fn refused_method(&self, method: &str) -> ::std::option::Option<usize> {
        let entry = AGENT_METHODS
            .iter()
            .chain(CLIENT_METHODS)
            .find(|(known, _)| *known == method);
        match entry {
            ::std::option::Option::Some((_, Needs::Rule(rule))) if !self.holds(*rule) => {
                ::std::option::Option::Some(*rule)
            }
            _ => ::std::option::Option::None,
        }
    }

    /// Checks an outgoing `method` against its own gate only, looking at
    /// nothing in its params: what [`Negotiated::check_outgoing`] says of
    /// `method` with `null` params, without building them.
    ///
    /// # Errors
    ///
    /// The method's gate, when the negotiated capabilities do not allow it.
    pub fn check_method(&self, method: &str) -> ::std::result::Result<(), CapabilityError> {
        match self.refused_method(method) {
            ::std::option::Option::Some(_) => self.check_outgoing(method, &::serde_json::Value::Null),
            ::std::option::Option::None => ::std::result::Result::Ok(()),
        }
    }

    fn entries(&self, entries: &[(&str, Needs)]) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
        entries
            .iter()
            .map(|(name, needs)| ((*name).to_owned(), ::serde_json::Value::Bool(self.needs(*needs))))
            .collect()
    }
}

impl ::serde::Serialize for Negotiated {
    fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
        use ::serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(::std::option::Option::None)?;
        map.serialize_entry("protocolVersion", &self.protocol_version)?;
        map.serialize_entry("agentHandles", &self.entries(AGENT_METHODS))?;
        map.serialize_entry("clientHandles", &self.entries(CLIENT_METHODS))?;
        for (name, entries) in SECTIONS {
            map.serialize_entry(name, &self.entries(entries))?;
        }
        for (name, needs) in FEATURES {
            map.serialize_entry(name, &self.needs(*needs))?;
        }
        map.end()
    }
}

/// What the answers that opened sessions offered, per session: a method
/// offered per session (`session/set_mode` by `modes`) may be sent only on
/// a session whose opening answer offered it. A session not seen opened
/// here is not judged (another connection may have opened it).
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::default::Default)]
pub struct SessionOffers {
    /// Session id -> what its opening answers said of each gate.
    sessions: ::std::collections::HashMap<::std::string::String, Offers>,
}

/// What a session's opening answers said of the session gates, one bit per
/// gate of `SESSION_GATES` (by position): whether an answer said, and
/// whether the last one offered it.
#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy)]
struct Offers {
    said: u64,
    offered: u64,
}

// One bit per session gate.
const _: () = ::std::assert!(SESSION_GATES.len() <= 64);

impl SessionOffers {
    /// Notes what the answer `result` to `method` with `params` (their
    /// JSON) offered, when `method` opens a session.
    pub fn record(&mut self, method: &str, params: &::serde_json::Value, result: &::serde_json::Value) {
        for (index, gate) in SESSION_GATES.iter().enumerate() {
            let ::std::option::Option::Some((_, in_result)) = gate.openers.iter().find(|(opener, _)| *opener == method)
            else {
                continue;
            };
            let named_by = if *in_result { result } else { params };
            let ::std::option::Option::Some(session) = named_by.get(gate.session).and_then(::serde_json::Value::as_str)
            else {
                continue;
            };
            let bit = 1u64 << index;
            let offered = if result.get(gate.member).is_some_and(|offer| !offer.is_null()) {
                bit
            } else {
                0
            };
            self.note(session, Offers { said: bit, offered });
        }
    }

    /// Merges what one answer said of `session`'s gates into what the
    /// earlier answers said: the gates it said replace theirs.
    fn note(&mut self, session: &str, answer: Offers) {
        if let ::std::option::Option::Some(offers) = self.sessions.get_mut(session) {
            offers.offered = (offers.offered & !answer.said) | answer.offered;
            offers.said |= answer.said;
        } else {
            self.sessions.insert(session.to_owned(), answer);
        }
    }

    /// Whether [`SessionOffers::record`] or [`SessionOffers::check`] look
    /// at the params of `method`: the session gates' own methods, and the
    /// openers whose session is named in their params.
    pub fn reads_params(method: &str) -> bool {
        SESSION_GATES.iter().any(|gate| {
            gate.method == method
                || gate
                    .openers
                    .iter()
                    .any(|(opener, in_result)| *opener == method && !in_result)
        })
    }

    /// Checks an outgoing `method` call with `params` (their JSON).
    ///
    /// # Errors
    ///
    /// `params` name a session opened here without the offer of `method`.
    pub fn check(&self, method: &str, params: &::serde_json::Value) -> ::std::result::Result<(), CapabilityError> {
        let ::std::option::Option::Some(index) = SESSION_GATES.iter().position(|gate| gate.method == method) else {
            return ::std::result::Result::Ok(());
        };
        let gate = &SESSION_GATES[index];
        let bit = 1u64 << index;
        let offers = params
            .get(gate.session)
            .and_then(::serde_json::Value::as_str)
            .and_then(|session| self.sessions.get(session));
        if offers.is_some_and(|offers| offers.said & bit != 0 && offers.offered & bit == 0) {
            return ::std::result::Result::Err(CapabilityError {
                method: method.to_owned(),
                pointer: ::std::string::String::new(),
                side: "agent",
                capability: ::std::format!("/{}", crate::codec::escape_token(gate.member)),
            });
        }
        ::std::result::Result::Ok(())
    }
}

/// The methods offered per session rather than at initialize.
pub fn offered_per_session() -> impl ::std::iter::Iterator<Item = &'static str> {
    SESSION_GATES.iter().map(|gate| gate.method)
}

/// Removes from `result`, the agent's answer to `method`, the members that
/// offer per session the methods `handles` says the agent does not handle.
pub fn without_unhandled_offers(method: &str, result: &mut ::serde_json::Value, handles: impl Fn(&str) -> bool) {
    let ::serde_json::Value::Object(members) = result else {
        return;
    };
    for gate in SESSION_GATES {
        if !handles(gate.method) && gate.openers.iter().any(|(opener, _)| *opener == method) {
            members.remove(gate.member);
        }
    }
}
