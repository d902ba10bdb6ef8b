//! One end of an ACP connection over any byte stream that carries
//! newline-delimited JSON-RPC 2.0, as ACP's stdio transport does.
//!
//! The design the three languages' connections share (names, options, the
//! report of dropped input, the answer to each fault) is `docs/connection.md`.
//!
//! No async runtime is assumed. [`connect_client`] and [`connect_agent`]
//! open an end (the typed calls of each are in [`super::ends`]) and return it
//! with a future that drives it: it reads the peer's messages, runs the handlers of
//! the peer's requests concurrently with each other and with the reading,
//! hands notifications to their handler one at a time in the order they
//! arrived, and writes (each message and its newline in one write, flushed
//! whenever nothing more is queued). Await it, or spawn it on any executor; it ends when
//! the peer closes its side (or [`Connection::close`] was called and the
//! peer followed), failing the calls still in flight with
//! [`CallError::Closed`].
//!
//! The connection removes the races the RFDs are about, by construction:
//! - **Prompts end when their turn is drained.** The client's end feeds
//!   the crate's turn tracker ([`TurnTracker`] of
//!   [`super::helpers::machines`], what the typed `helpers::TurnTracker`
//!   runs) as it reads: each prompt it sends, each `session/update` and
//!   each prompt's response, in read order, as JSON. A `session/prompt`
//!   call completes once the tracker says its turn is drained and every
//!   notification read up to the message that drained it has been handled
//!   (the handler returned): its response, and, when the exchange
//!   negotiated it, the `turn_complete` update naming the prompt (protocol
//!   v1 with the RFD) or the session's `idle` state update (protocol v2:
//!   read after a state that is not `idle` since the prompt was sent, or
//!   after the response). Without either, the response and the
//!   notifications before it are all the protocol offers. An error response
//!   drains the turn at once. A timeout is the caller's, with their
//!   runtime's timer.
//! - **The agent's end answers a prompt after its updates.** Notifications
//!   and responses leave through one queue in the order they were made, so
//!   every update a handler sent before returning precedes its response;
//!   when `turn_complete` was negotiated and the handler sent none, the end
//!   sends it, with the response's stop reason, just before the response.
//! - **`session/ready` (rule R1).** When the agent advertised it, the
//!   client's end sends it once a `session/new` or `session/load` result has
//!   been decoded, and the agent's end holds that session's scoped
//!   notifications until it arrives, then releases them in order. There is
//!   no timer to fall back on: an agent that must, sends after its own
//!   timeout through an end opened with [`ConnectOptions::unordered`].
//! - **`session/cancel` ends the turn it names as cancelled.** From the
//!   moment the agent's end reads it, the turn's [`Cancellation`] (from
//!   [`Connection::cancellation`]) fires, the calls the turn made to the
//!   client (the requests whose params name its session) fail with
//!   [`CallError::Cancelled`], and new ones fail at once. In protocol v1,
//!   whatever the prompt's handler returns, an error or a late result, is
//!   answered with the `cancelled` stop reason, after every update the
//!   handler sent. In protocol v2 the turn is the session's foreground work,
//!   from a prompt (or a state that is not `idle`) to the `idle` state
//!   update the agent sends, and that update carries the `cancelled` stop
//!   reason, whatever the agent wrote in it ([`CancelEnd`]). The
//!   client's end, sending `session/cancel`, answers the session's pending
//!   `session/request_permission` requests with the `cancelled` outcome, after it.
//!
//! The agent's end keeps the handshake ([`Handshake`]): it answers any
//! request before `initialize` was answered with -32600 (invalid request)
//! and reports such a notification as dropped; its `initialize` answer
//! names the highest version it supports at or below the requested one
//! (or fails with the schema's unsupported-version error, when it has one)
//! and always carries the agent's capabilities. Each end sets the method
//! gates of its own capabilities from its handlers ([`Advertised`]): the
//! agent's in that answer, the client's in the `initialize` it sends. A
//! gate is on when the side trait's function for it gives its handlers
//! (`load_session_handler`, ...), and those of the gates enclosing it, and
//! removed otherwise, whatever the handler wrote. Once the exchange is done
//! (the agent answered it, the client got its result), every request and
//! notification an end sends is checked against the gate of its method
//! first: one the exchange does not allow fails with [`CallError::Refused`],
//! the negotiation's `CapabilityError`, unsent. Methods offered per
//! session (`session/set_mode` by `modes`) are checked the same way against
//! the answer that opened the session named, when this end received it (the
//! negotiation's `SessionOffers`); the agent's end leaves the member out of
//! its opening answers unless the side trait's function for it gives its
//! handlers (`modes_handler`, ...), whatever the handler wrote (the
//! negotiation's `without_unhandled_offers`).
//!
//! Dropping a call's future before its answer forgets the request and, when
//! the schema has `$/cancel_request`, tells the peer; the peer's
//! `$/cancel_request` stops the matching handler, which is answered with
//! -32800 (request cancelled). Nothing the peer sends is lost silently: what
//! gets no answer and no handler is reported to the end's
//! [`ConnectOptions::dropped`].

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;

use futures::channel::{mpsc, oneshot};
use futures::future::{AbortHandle, Abortable, Aborted, FutureExt};
use futures::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use super::helpers::machines::{Scope, SessionReadyGate, TurnTracker};

/// A boxed future that may move between threads.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + ::std::marker::Send + 'a>>;

/// Why a call to the peer gave no result.
#[derive(Debug)]
pub enum CallError {
    /// The peer answered with this error.
    Remote(super::types::Error),
    /// The peer's answer is not what the method returns.
    Decode(super::codec::DecodeError),
    /// The params did not encode as JSON.
    Encode(String),
    /// The connection closed before the answer arrived.
    Closed,
    /// The prompt turn the call belongs to was cancelled (`session/cancel`):
    /// the call was not sent, or its answer is no longer awaited.
    Cancelled,
    /// What the peer advertised at `initialize` does not allow the call or
    /// notification: it was not sent.
    Refused(super::negotiation::CapabilityError),
}

impl ::std::fmt::Display for CallError {
    fn fmt(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        match self {
            CallError::Remote(error) => write!(
                formatter,
                "the peer answered with an error: {}",
                serde_json::to_string(error).unwrap_or_default()
            ),
            CallError::Decode(error) => write!(formatter, "the peer's answer does not decode: {error}"),
            CallError::Encode(error) => write!(formatter, "the params do not encode: {error}"),
            CallError::Closed => formatter.write_str("the connection is closed"),
            CallError::Cancelled => formatter.write_str("the prompt turn was cancelled"),
            CallError::Refused(error) => write!(formatter, "not sent: {error}"),
        }
    }
}

impl ::std::error::Error for CallError {}

/// A message the peer sent that got neither an answer nor a handler: a
/// notification that no handler takes, whose params do not decode or whose
/// handler failed, or a response to no request in flight (late, repeated or
/// unknown).
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    /// The notification's method; `None` for a response.
    pub method: Option<String>,
    /// The JSON-RPC error the message would have been answered with.
    pub error: super::types::Error,
    /// The message's position: the `line`th message this end read, from 1.
    pub line: u64,
}

/// What the schema says about the messages an end treats specially
/// ([`super::ends::RULES`], written by the generator).
#[derive(Debug)]
pub struct Rules {
    /// `initialize`, whose exchange decides [`Features`].
    pub initialize: &'static str,
    /// What one `initialize` exchange (its params and result) negotiated.
    pub features: fn(&Value, &Value) -> Features,
    /// What one `initialize` exchange allows an end to send; `None` when it
    /// does not negotiate.
    pub outgoing: fn(&Value, &Value) -> Option<super::negotiation::Negotiated>,
    pub ready: Option<ReadyRules>,
    pub turns: Option<TurnRules>,
    /// `$/cancel_request` and its member naming the request.
    pub cancel: Option<(&'static str, &'static str)>,
    pub turn_cancel: Option<TurnCancelRules>,
}

/// What `session/cancel` asks of each end.
#[derive(Debug)]
pub struct TurnCancelRules {
    /// `session/cancel`, the client's notification, and `session/prompt`.
    pub notification: &'static str,
    pub prompt: &'static str,
    /// The session id member of both, and of the requests in `scoped`.
    pub session: &'static str,
    /// The stop reason member and its cancelled value, and the message
    /// that carries them when a cancelled turn ends.
    pub stop_reason: &'static str,
    pub cancelled: &'static str,
    pub end: CancelEnd,
    /// The client's requests whose params name a session: those the agent
    /// makes during a turn belong to it.
    pub scoped: &'static [&'static str],
    /// `session/request_permission` and the JSON text of the result that
    /// answers it `cancelled`.
    pub permission: Option<(&'static str, &'static str)>,
    pub awaiting: Option<Awaiting>,
}

/// Protocol v2: while the turn's permission requests wait for the user, the
/// agent's end reports `requires_action`, then `running` once the last is
/// answered, unless the agent reported a state of its own meanwhile.
#[derive(Debug)]
pub struct Awaiting {
    /// `session/request_permission`.
    pub request: &'static str,
    pub requires_action: &'static str,
    pub running: &'static str,
}

/// Where a cancelled turn's stop reason goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelEnd {
    /// Protocol v1: the prompt's result; the turn is the prompt's handling.
    Result,
    /// Protocol v2: the `idle` state update ([`TurnEnd::Idle`] of
    /// [`Rules::turns`]) that ends the session's foreground work; the
    /// prompt's result only accepts the prompt.
    Idle,
}

/// The cancellation of one prompt turn, which fires when the client's
/// `session/cancel` names the turn's session ([`Connection::cancellation`]).
/// A clone watches the same turn.
#[derive(Clone)]
pub struct Cancellation(futures::future::Shared<oneshot::Receiver<()>>);

impl Cancellation {
    /// A cancellation of no turn, which never fires.
    fn never() -> Self {
        Cancellation(oneshot::channel().1.shared())
    }

    /// Whether the turn was cancelled.
    pub fn is_cancelled(&self) -> bool {
        matches!(self.0.peek(), Some(Ok(())))
    }

    /// Completes once the turn is cancelled; never, for a turn that ends
    /// otherwise.
    pub async fn cancelled(&self) {
        if self.0.clone().await.is_err() {
            futures::future::pending::<()>().await;
        }
    }
}

/// The RFD features an `initialize` exchange turned on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    pub session_ready: bool,
    pub turn_complete: bool,
}

/// Rule R1's messages.
#[derive(Debug)]
pub struct ReadyRules {
    /// `session/ready`, the client's notification.
    pub notification: &'static str,
    /// The session id member of the messages below.
    pub session: &'static str,
    /// The requests whose result opens a session, with whether the session
    /// id is in the result (else in the params).
    pub openers: &'static [(&'static str, bool)],
    /// The agent's session-scoped notifications.
    pub scoped: &'static [&'static str],
}

/// A prompt turn's messages.
#[derive(Debug)]
pub struct TurnRules {
    /// `session/prompt`.
    pub prompt: &'static str,
    /// `session/update`, and its session id, update and update tag members.
    pub update: &'static str,
    pub session: &'static str,
    pub payload: &'static str,
    pub tag: &'static str,
    pub end: TurnEnd,
}

impl TurnRules {
    /// The session and scope of a `session/update`'s params, as the turn
    /// tracker takes them: only the updates that may end a turn are told
    /// apart from the rest. The members it needs are read from the text
    /// ([`UpdateView`]); params of another shape are parsed whole.
    fn scope(&self, params: &RawValue) -> (String, Scope<Value, Value>) {
        // The tracker takes any other update as the session's, whichever
        // it is: an update that cannot be the end of a turn is not read.
        let end = match self.end {
            TurnEnd::Complete { tag, .. } | TurnEnd::Idle { tag, .. } => tag,
            TurnEnd::Response => return (String::new(), Scope::Session),
        };
        if !params.get().contains(end) && !params.get().contains("\\u") {
            return (String::new(), Scope::Session);
        }
        let mut text = serde_json::Deserializer::from_str(params.get());
        let view = serde::de::DeserializeSeed::deserialize(UpdateSeed(self), &mut text).unwrap_or_else(|_| {
            let params = serde_json::from_str::<Value>(params.get()).unwrap_or_default();
            UpdateView::of(self, &params)
        });
        let tag = view.tag.as_ref().and_then(Value::as_str);
        let [first, second] = view.members;
        let scope = match self.end {
            TurnEnd::Complete { tag: end, .. } if tag == Some(end) => Scope::Complete {
                request: first,
                stop_reason: second,
            },
            TurnEnd::Idle { tag: end, idle, .. } if tag == Some(end) => Scope::State {
                idle: first.as_str() == Some(idle),
            },
            _ => Scope::Session,
        };
        let session = match view.session {
            Value::String(session) => session,
            _ => String::new(),
        };
        (session, scope)
    }

    /// The update's members the scope reads, by the end of a turn: the
    /// request and stop reason, or the state.
    fn members(&self) -> [Option<&'static str>; 2] {
        match self.end {
            TurnEnd::Complete {
                request, stop_reason, ..
            } => [Some(request), Some(stop_reason)],
            TurnEnd::Idle { state, .. } => [Some(state), None],
            TurnEnd::Response => [None, None],
        }
    }
}

/// What [`TurnRules::scope`] reads of a `session/update`'s params: the
/// session member, the update's tag and its [`TurnRules::members`] (`null`
/// when absent).
#[derive(Default)]
struct UpdateView {
    session: Value,
    tag: Option<Value>,
    members: [Value; 2],
}

impl UpdateView {
    /// The view of parsed params.
    fn of(rules: &TurnRules, params: &Value) -> Self {
        let update = params.get(rules.payload);
        let member = |name: Option<&str>| {
            name.and_then(|name| update.and_then(|update| update.get(name)))
                .cloned()
                .unwrap_or(Value::Null)
        };
        let [first, second] = rules.members();
        UpdateView {
            session: params.get(rules.session).cloned().unwrap_or(Value::Null),
            tag: update.and_then(|update| update.get(rules.tag)).cloned(),
            members: [member(first), member(second)],
        }
    }
}

/// Reads an [`UpdateView`] from the params' text: an object whose update
/// is an object; the other members are skipped unparsed. Anything else
/// fails, and [`TurnRules::scope`] parses the params whole.
struct UpdateSeed<'r>(&'r TurnRules);

impl<'de> serde::de::DeserializeSeed<'de> for UpdateSeed<'_> {
    type Value = UpdateView;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<UpdateView, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for UpdateSeed<'_> {
    type Value = UpdateView;

    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut members: A) -> Result<UpdateView, A::Error> {
        let rules = self.0;
        let mut view = UpdateView::default();
        while let Some(name) = members.next_key::<super::codec::Key<'de>>()? {
            if name.as_str() == rules.session {
                view.session = members.next_value()?;
            } else if name.as_str() == rules.payload {
                let (tag, found) = members.next_value_seed(PayloadSeed(rules))?;
                view.tag = tag;
                view.members = found;
            } else {
                members.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(view)
    }
}

/// Reads the tag and the [`TurnRules::members`] of a `session/update`'s
/// update, an object.
struct PayloadSeed<'r>(&'r TurnRules);

impl<'de> serde::de::DeserializeSeed<'de> for PayloadSeed<'_> {
    type Value = (Option<Value>, [Value; 2]);

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for PayloadSeed<'_> {
    type Value = (Option<Value>, [Value; 2]);

    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        formatter.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut members: A) -> Result<Self::Value, A::Error> {
        let rules = self.0;
        let wanted = rules.members();
        let (mut tag, mut found) = (None, [Value::Null, Value::Null]);
        while let Some(name) = members.next_key::<super::codec::Key<'de>>()? {
            let name = name.as_str();
            if name == rules.tag {
                tag = Some(members.next_value()?);
            } else if let Some(slot) = wanted.iter().position(|member| *member == Some(name)) {
                found[slot] = members.next_value()?;
            } else {
                members.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok((tag, found))
    }
}

/// What marks the end of a prompt turn.
#[derive(Debug)]
pub enum TurnEnd {
    /// Protocol v1 with the turn-complete RFD, once negotiated: the update
    /// tagged `tag` whose `request` member is the prompt's id. Its
    /// `stop_reason` member is the response's.
    Complete {
        tag: &'static str,
        request: &'static str,
        stop_reason: &'static str,
    },
    /// Protocol v2: the update tagged `tag` whose `state` member is `idle`.
    Idle {
        tag: &'static str,
        state: &'static str,
        idle: &'static str,
    },
    /// Neither: the response and the notifications before it.
    Response,
}

/// What the agent's end decides about `initialize` itself, whatever its
/// handler answers ([`super::ends::HANDSHAKE`], written by the generator):
/// no other request is handled before `initialize` is answered, the answer
/// names the version the two ends agree on and always carries the agent's
/// capabilities.
#[derive(Debug)]
pub struct Handshake {
    /// `initialize`.
    pub method: &'static str,
    /// `protocolVersion`, in its params and its result.
    pub version: &'static str,
    /// The protocol versions this end supports, oldest first.
    pub supported: &'static [u16],
    /// The result member holding the agent's capabilities.
    pub capabilities: &'static str,
    /// The error for a request below every supported version (code, message,
    /// and the data members of the requested and the supported versions);
    /// without one, the latest supported version is answered.
    pub unsupported: Option<(i64, &'static str, &'static str, &'static str)>,
    /// The gates the agent's end sets from its handlers.
    pub agent_advertises: Advertised,
    /// The gates the client's end sets from its handlers.
    pub client_advertises: Advertised,
}

/// The method gates a side's initialize message carries, set from its
/// handlers: each is on when the side handles every one of its methods
/// (its value kept when on, else [`MethodGate::on`], objects on the way
/// created), and removed otherwise, whatever the handler wrote. A gate's
/// methods include those of the gates enclosing it.
#[derive(Debug)]
pub struct Advertised {
    /// The member of the initialize message holding the side's capabilities.
    pub member: &'static str,
    /// Its gates, an enclosing gate first.
    pub gates: &'static [MethodGate],
}

/// A capability that offers requests of the side that advertises it.
#[derive(Debug)]
pub struct MethodGate {
    /// The tokens of its JSON pointer inside the capabilities.
    pub pointer: &'static [&'static str],
    /// What turns it on, as JSON text: `true`, or `{}`.
    pub on: &'static str,
    /// The requests the side must handle for it to be on.
    pub methods: &'static [&'static str],
}

impl Advertised {
    /// `capabilities` (what the handler wrote, if anything) with the gates
    /// set as `handled` says.
    fn apply(&self, capabilities: Option<&Value>, handled: impl Fn(&str) -> bool) -> Value {
        let mut members = match capabilities {
            Some(Value::Object(members)) => members.clone(),
            _ => serde_json::Map::new(),
        };
        for gate in self.gates {
            let on = gate.methods.iter().all(|method| handled(method));
            set_gate(&mut members, gate.pointer, on, gate.on);
        }
        Value::Object(members)
    }
}

/// Turns the gate at `pointer` inside `members` on (kept when it is `true`
/// or an object, else `on`, objects on the way created) or removes it.
fn set_gate(members: &mut serde_json::Map<String, Value>, pointer: &[&str], on: bool, on_text: &str) {
    let [first, rest @ ..] = pointer else {
        return;
    };
    if rest.is_empty() {
        if !on {
            members.remove(*first);
        } else if !matches!(members.get(*first), Some(Value::Bool(true) | Value::Object(_))) {
            // The generator writes the text from a JSON value.
            members.insert((*first).to_owned(), serde_json::from_str(on_text).unwrap_or_default());
        }
        return;
    }
    match members.get_mut(*first) {
        Some(Value::Object(inner)) => set_gate(inner, rest, on, on_text),
        _ if on => {
            let mut inner = serde_json::Map::new();
            set_gate(&mut inner, rest, on, on_text);
            members.insert((*first).to_owned(), Value::Object(inner));
        }
        _ => {}
    }
}

impl Handshake {
    /// The version answered to a request for `requested`: the highest
    /// supported one at or below it, else the latest when there is no
    /// unsupported-version error; `None`: that error.
    fn answer(&self, requested: u64) -> Option<u16> {
        let at_or_below = self
            .supported
            .iter()
            .rev()
            .find(|version| u64::from(**version) <= requested);
        match (at_or_below, self.unsupported) {
            (Some(version), _) => Some(*version),
            (None, Some(_)) => None,
            (None, None) => self.supported.last().copied(),
        }
    }
}

/// The message of the answer to a request that comes before `initialize`
/// was answered (-32600, with `data.method`).
const NOT_INITIALIZED: &str = "initialize has not been answered";

/// How an end behaves beyond the schema's rules.
#[derive(Default)]
pub struct ConnectOptions {
    /// Told of what the peer sent that got neither an answer nor a handler.
    pub dropped: Option<Box<dyn Fn(Dropped) + ::std::marker::Send + ::std::marker::Sync>>,
    /// Whether the ordering the module describes is off ([`ConnectOptions::unordered`]).
    pub unordered: bool,
}

impl ConnectOptions {
    /// These options, reporting what is dropped to `dropped`.
    pub fn dropped(mut self, dropped: impl Fn(Dropped) + ::std::marker::Send + ::std::marker::Sync + 'static) -> Self {
        self.dropped = Some(Box::new(dropped));
        self
    }

    /// These options, with the ordering the module describes off when
    /// `unordered`, as connections without it behave: prompts end on their
    /// response, the agent's notifications are never held for
    /// `session/ready`, no `turn_complete` is added, and responses are
    /// written ahead of queued notifications. It exists to show what the
    /// ordering prevents.
    pub fn unordered(mut self, unordered: bool) -> Self {
        self.unordered = unordered;
        self
    }
}

/// What one side does with the peer's requests and notifications.
pub trait Handler: ::std::marker::Sync {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<Value, super::types::Error>>;
    fn notification<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<(), super::types::Error>>;
    /// Whether it answers the request `method` itself (what its end
    /// advertises from).
    fn handles(&self, method: &str) -> bool;
}

/// The agent's implementation, as its end calls it.
pub struct AgentHandler<A>(pub A);

impl<A: super::methods::Agent + ::std::marker::Send + ::std::marker::Sync> Handler for AgentHandler<A> {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<Value, super::types::Error>> {
        Box::pin(super::methods::agent::dispatch_request(&self.0, method, params))
    }

    fn notification<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<(), super::types::Error>> {
        Box::pin(super::methods::agent::dispatch_notification(&self.0, method, params))
    }

    fn handles(&self, method: &str) -> bool {
        super::methods::agent::handles(&self.0, method)
    }
}

/// The client's implementation, as its end calls it.
pub struct ClientHandler<C>(pub C);

impl<C: super::methods::Client + ::std::marker::Send + ::std::marker::Sync> Handler for ClientHandler<C> {
    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<Value, super::types::Error>> {
        Box::pin(super::methods::client::dispatch_request(&self.0, method, params))
    }

    fn notification<'a>(
        &'a self,
        method: &'a str,
        params: Box<RawValue>,
    ) -> BoxFuture<'a, Result<(), super::types::Error>> {
        Box::pin(super::methods::client::dispatch_notification(&self.0, method, params))
    }

    fn handles(&self, method: &str) -> bool {
        super::methods::client::handles(&self.0, method)
    }
}

/// Which side an end is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Agent,
    Client,
}

/// A cloneable handle on one end: calls and notifications to the peer.
#[derive(Clone)]
pub struct Connection {
    shared: Arc<Shared>,
}

/// The client's end: calls what the agent handles (the typed functions
/// below), while the agent's calls go to the client's implementation.
#[derive(Clone)]
pub struct ClientEnd(pub Connection);

/// The agent's end: calls what the client handles, while the client's
/// calls go to the agent's implementation.
#[derive(Clone)]
pub struct AgentEnd(pub Connection);

impl ::std::ops::Deref for ClientEnd {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}

impl ::std::ops::Deref for AgentEnd {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        &self.0
    }
}

/// Opens the client's end over `reader` and `writer`; `handler` builds the
/// client's implementation, which may keep the end to call the agent.
/// Returns the end and the future that drives it.
pub fn connect_client<C, R, W>(
    handler: impl FnOnce(ClientEnd) -> C,
    reader: R,
    writer: W,
    options: ConnectOptions,
) -> (ClientEnd, impl Future<Output = ::std::io::Result<()>>)
where
    C: super::methods::Client + ::std::marker::Sync + ::std::marker::Send,
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    open(
        Role::Client,
        ClientEnd,
        |end| ClientHandler(handler(end)),
        reader,
        writer,
        options,
    )
}

/// Opens the agent's end over `reader` and `writer`; `handler` builds the
/// agent's implementation, which may keep the end to send updates and call
/// the client. Returns the end and the future that drives it.
pub fn connect_agent<A, R, W>(
    handler: impl FnOnce(AgentEnd) -> A,
    reader: R,
    writer: W,
    options: ConnectOptions,
) -> (AgentEnd, impl Future<Output = ::std::io::Result<()>>)
where
    A: super::methods::Agent + ::std::marker::Sync + ::std::marker::Send,
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    open(
        Role::Agent,
        AgentEnd,
        |end| AgentHandler(handler(end)),
        reader,
        writer,
        options,
    )
}

/// Opens one end as `role`: the typed end `end` makes, its `handler`, and
/// the future that drives them.
fn open<E: Clone, H: Handler, R: AsyncBufRead + Unpin, W: AsyncWrite + Unpin>(
    role: Role,
    end: fn(Connection) -> E,
    handler: impl FnOnce(E) -> H,
    reader: R,
    writer: W,
    options: ConnectOptions,
) -> (E, impl Future<Output = ::std::io::Result<()>>) {
    let (connection, outgoing) = Connection::new(role, &super::ends::RULES, options);
    let typed = end(connection.clone());
    let handler = handler(typed.clone());
    let advertised = connection
        .shared
        .advertised()
        .map_or(&[][..], |advertised| advertised.gates);
    connection.shared.lock().handled_gates = advertised
        .iter()
        .flat_map(|gate| gate.methods)
        .copied()
        .chain(super::negotiation::offered_per_session())
        .filter(|method| handler.handles(method))
        .collect();
    (typed, drive(connection.shared, handler, reader, writer, outgoing))
}

struct Shared {
    role: Role,
    rules: &'static Rules,
    options: ConnectOptions,
    /// Everything this end writes, in order: each message's text and its newline.
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    /// Responses, when they may overtake notifications ([`ConnectOptions::unordered`]).
    overtaking: mpsc::UnboundedSender<Vec<u8>>,
    state: Mutex<State>,
}

/// Its maps are ordered: nothing is hashed per message, and keys the peer
/// picks (ids, sessions) cannot make them slow.
#[derive(Default)]
struct State {
    next_id: i64,
    closed: bool,
    features: Features,
    /// The requests this end sent that are not answered yet.
    pending: BTreeMap<i64, Pending>,
    /// Messages read from the peer (the position in [`Dropped::line`]).
    lines: u64,
    /// Notifications read from the peer, and those whose handler returned.
    read: u64,
    handled: u64,
    /// The client's end: the turn tracker its prompts end on (ordered
    /// only), fed request ids and stop reasons as JSON.
    tracker: Option<TurnTracker<Value, Value>>,
    /// The agent's end: held session-scoped notifications (rule R1).
    gate: Option<SessionReadyGate<Vec<u8>>>,
    /// The agent's end: prompts whose `turn_complete` its handler sent.
    completed: BTreeSet<String>,
    /// The peer's requests being handled, by id.
    running: BTreeMap<String, Running>,
    /// The agent's end: `initialize` was answered with a result.
    initialized: bool,
    /// Once the `initialize` exchange is done: what the peer allows this
    /// end to send.
    negotiated: Option<super::negotiation::Negotiated>,
    /// The requests of this end's gates ([`Advertised`], and those offered
    /// per session) its handler answers, found when the end opened.
    handled_gates: BTreeSet<&'static str>,
    /// The client's end: what the answers opening sessions offered.
    offers: super::negotiation::SessionOffers,
    /// The agent's end: the prompt turns being handled, by session.
    turns: BTreeMap<String, TurnInFlight>,
    /// The client's end: the permission requests answered `cancelled`
    /// (their handler was stopped), by id.
    withdrawn: BTreeSet<String>,
}

/// A peer's request being handled.
struct Running {
    abort: AbortHandle,
    /// The client's end: the session of a permission request, which
    /// `session/cancel` answers.
    permission: Option<String>,
}

/// The agent's end: a prompt being handled (protocol v1), or the session's
/// foreground work (v2).
struct TurnInFlight {
    /// The prompt's request id (JSON text); empty for foreground work the
    /// agent started by itself (v2).
    id: String,
    /// Protocol v2: the agent reported the work with a state that is not
    /// `idle`; the last state sent for it; the permission requests waiting
    /// for the user; whether this end reported `requires_action` itself.
    active: bool,
    state: Option<String>,
    asking: usize,
    reported: bool,
    /// Fires the turn's [`Cancellation`]; taken once it has.
    trigger: Option<oneshot::Sender<()>>,
    cancellation: Cancellation,
}

impl TurnInFlight {
    fn new(id: String) -> Self {
        let (trigger, receiver) = oneshot::channel();
        TurnInFlight {
            id,
            active: false,
            state: None,
            asking: 0,
            reported: false,
            trigger: Some(trigger),
            cancellation: Cancellation(receiver.shared()),
        }
    }

    fn cancelled(&self) -> bool {
        self.trigger.is_none()
    }
}

/// What a call's decoded result settles.
enum Settled {
    Nothing,
    /// `initialize` negotiated these, and allows what the view allows.
    Features(Features, Option<super::negotiation::Negotiated>),
    /// A session opened: `session/ready`, with these params, follows.
    Ready(Value),
}

struct Pending {
    reply: Option<oneshot::Sender<Result<Value, CallError>>>,
    /// A prompt whose turn the tracker follows.
    turn: Option<Turn>,
    /// The agent's end: the session whose turn this request belongs to.
    session: Option<String>,
}

/// A prompt call of the client's end whose turn the tracker follows.
#[derive(Default)]
struct Turn {
    /// The answer, once it arrived.
    answer: Option<Result<Value, CallError>>,
    /// How many notifications had been read when the tracker said the turn
    /// was drained (counting the message that drained it).
    drained: Option<u64>,
}

impl Connection {
    fn new(role: Role, rules: &'static Rules, options: ConnectOptions) -> (Connection, Queues) {
        let (outgoing, ordered) = mpsc::unbounded();
        let (overtaking, first) = mpsc::unbounded();
        let unordered = options.unordered;
        let tracker = rules
            .turns
            .as_ref()
            .filter(|_| role == Role::Client && !options.unordered)
            .map(|turns| match turns.end {
                TurnEnd::Idle { .. } => TurnTracker::lifecycle(),
                _ => TurnTracker::new(false),
            });
        let shared = Shared {
            role,
            rules,
            options,
            outgoing,
            overtaking,
            state: Mutex::new(State {
                tracker,
                ..State::default()
            }),
        };
        (
            Connection {
                shared: Arc::new(shared),
            },
            Queues {
                ordered,
                first: unordered.then_some(first),
            },
        )
    }

    /// What this end's `initialize` exchange negotiated so far.
    pub fn features(&self) -> Features {
        self.shared.lock().features
    }

    /// The agent's end: the cancellation of the prompt turn `session` has
    /// in flight, which its prompt handler may await or poll (one that
    /// never fires when there is none). The end acts on it by itself (the
    /// module says how): a handler only stops its own work.
    pub fn cancellation(&self, session: &str) -> Cancellation {
        self.shared
            .lock()
            .turns
            .get(session)
            .map_or_else(Cancellation::never, |turn| turn.cancellation.clone())
    }

    /// Calls `method` with `params` and decodes its result. `initialize`
    /// decides the RFD features; a `session/new` or `session/load` result
    /// is followed by `session/ready` when negotiated; a `session/prompt`
    /// completes when its turn is drained (the module says when).
    pub async fn call<P: serde::Serialize, R: serde::de::DeserializeOwned>(
        &self,
        method: &str,
        params: &P,
    ) -> Result<R, CallError> {
        let text = serde_json::value::to_raw_value(params).map_err(|error| CallError::Encode(error.to_string()))?;
        let text = self.shared.advertising(method, text)?;
        let params = RuleParams::new(&text);
        let result = self.exchange(method, &params).await?;
        let settled = self.shared.settling(method, &params, &result);
        let decoded = super::codec::decode(result).map_err(CallError::Decode)?;
        self.shared.settle(settled);
        Ok(decoded)
    }

    /// Sends the request `method` with JSON `params` and returns its JSON
    /// result (extension methods, or methods this schema does not know).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, CallError> {
        let text = serde_json::value::to_raw_value(&params).map_err(|error| CallError::Encode(error.to_string()))?;
        let text = self.shared.advertising(method, text)?;
        self.exchange(method, &RuleParams::new(&text)).await
    }

    /// Sends a request with `params` and waits for its answer.
    async fn exchange(&self, method: &str, params: &RuleParams<'_>) -> Result<Value, CallError> {
        // Dropped once the call ends, however it ends.
        let _asking = self.shared.ask(method, params).map(|session| Asking {
            shared: &self.shared,
            session,
        });
        let (receiver, guard) = self.shared.send_request(method, params)?;
        let answer = receiver.await.unwrap_or(Err(CallError::Closed));
        guard.disarm();
        if let Ok(result) = &answer {
            let params = params.value_if(super::negotiation::SessionOffers::reads_params(method));
            self.shared.lock().offers.record(method, params, result);
        }
        answer
    }

    /// Sends the notification `method` with `params`, after every message
    /// this end made before it.
    pub fn notify<P: serde::Serialize>(&self, method: &str, params: &P) -> Result<(), CallError> {
        let params = serde_json::to_value(params).map_err(|error| CallError::Encode(error.to_string()))?;
        self.shared.send_notification(method, params)
    }

    /// Closes this end's writing side once everything queued is written;
    /// the peer sees the end of its input. Calls in flight fail when the
    /// peer closes its side in turn.
    pub fn close(&self) {
        self.shared.outgoing.close_channel();
        self.shared.overtaking.close_channel();
    }
}

/// A permission request of a turn's work waiting for the user (v2).
struct Asking<'a> {
    shared: &'a Shared,
    session: String,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.shared.answered(&self.session);
    }
}

/// Forgets a request whose caller stopped waiting, and tells the peer.
struct Guard<'a> {
    shared: &'a Shared,
    id: i64,
    armed: bool,
}

impl Guard<'_> {
    fn disarm(mut self) {
        self.armed = false;
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let forgotten = {
            let mut state = self.shared.lock();
            let pending = state.pending.remove(&self.id);
            if let Some(tracker) = state
                .tracker
                .as_mut()
                .filter(|_| pending.as_ref().is_some_and(|pending| pending.turn.is_some()))
            {
                // An abandoned prompt's turn ends for this end: the tracker
                // forgets it at its session's next prompt.
                tracker.response(&Value::from(self.id), None);
            }
            pending.is_some()
        };
        if let (true, Some((method, member))) = (forgotten, self.shared.rules.cancel) {
            let _ = self.shared.send_notification(method, json!({ member: self.id }));
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(::std::sync::PoisonError::into_inner)
    }

    /// Tells [`ConnectOptions::dropped`] of the `line`th message, which got
    /// neither an answer nor a handler.
    #[cold]
    #[inline(never)]
    fn report(&self, method: Option<String>, error: super::types::Error, line: u64) {
        if let Some(report) = &self.options.dropped {
            report(Dropped { method, error, line });
        }
    }

    /// Queues a message for the writer.
    fn write(&self, message: &Value) -> Result<(), CallError> {
        self.send(line(message)?)
    }

    /// Queues a line for the writer.
    fn send(&self, line: Vec<u8>) -> Result<(), CallError> {
        self.outgoing.unbounded_send(line).map_err(|_| CallError::Closed)
    }

    fn send_request(
        &self,
        method: &str,
        params: &RuleParams<'_>,
    ) -> Result<(oneshot::Receiver<Result<Value, CallError>>, Guard<'_>), CallError> {
        self.check_outgoing(method)?;
        let checked = params.value_if(super::negotiation::SessionOffers::reads_params(method));
        self.lock().offers.check(method, checked).map_err(CallError::Refused)?;
        let (sender, receiver) = oneshot::channel();
        let id = {
            let mut state = self.lock();
            if state.closed {
                return Err(CallError::Closed);
            }
            let session = self.turn_session(method, params);
            if session
                .as_ref()
                .and_then(|session| state.turns.get(session))
                .is_some_and(TurnInFlight::cancelled)
            {
                return Err(CallError::Cancelled);
            }
            let id = state.next_id;
            state.next_id += 1;
            let turn = self.prompt(&mut state, method, params, id);
            state.pending.insert(
                id,
                Pending {
                    reply: Some(sender),
                    turn,
                    session,
                },
            );
            id
        };
        let guard = Guard {
            shared: self,
            id,
            armed: true,
        };
        self.send(line(&Request {
            jsonrpc: "2.0",
            id,
            method,
            params: params.text,
        })?)?;
        Ok((receiver, guard))
    }

    /// The agent's end: the session whose turn its request `method` belongs to.
    fn turn_session(&self, method: &str, params: &RuleParams<'_>) -> Option<String> {
        let rules = self
            .rules
            .turn_cancel
            .as_ref()
            .filter(|rules| self.role == Role::Agent && rules.scoped.contains(&method))?;
        Some(params.value().get(rules.session)?.as_str()?.to_owned())
    }

    /// The agent's end asks the user through `method` (v2): the first
    /// permission request of a session's work reports `requires_action`,
    /// unless that was the last state sent. Returns the session whose work
    /// waits, when this is such a request.
    fn ask(&self, method: &str, params: &RuleParams<'_>) -> Option<String> {
        let rules = self.rules.turn_cancel.as_ref().filter(|_| self.role == Role::Agent)?;
        let awaiting = rules.awaiting.as_ref().filter(|awaiting| awaiting.request == method)?;
        let session = params.value().get(rules.session)?.as_str()?.to_owned();
        let report = {
            let mut state = self.lock();
            let turn = state
                .turns
                .get_mut(&session)
                .filter(|turn| turn.active && !turn.cancelled())?;
            turn.asking += 1;
            turn.asking == 1 && turn.state.as_deref() != Some(awaiting.requires_action)
        };
        if report {
            self.report_state(&session, awaiting.requires_action);
            if let Some(turn) = self.lock().turns.get_mut(&session) {
                turn.reported = true;
            }
        }
        Some(session)
    }

    /// A permission request of `session`'s work was answered, failed or
    /// abandoned: once none waits, work this end reported waiting resumes
    /// (`running`), unless it was cancelled or the agent reported a state.
    fn answered(&self, session: &str) {
        let Some(awaiting) = self
            .rules
            .turn_cancel
            .as_ref()
            .and_then(|rules| rules.awaiting.as_ref())
        else {
            return;
        };
        let resume = {
            let mut state = self.lock();
            let Some(turn) = state.turns.get_mut(session) else {
                return;
            };
            turn.asking = turn.asking.saturating_sub(1);
            turn.asking == 0 && turn.reported && !turn.cancelled()
        };
        if resume {
            self.report_state(session, awaiting.running);
        }
    }

    /// Sends the `state_update` of `session` saying `value`.
    fn report_state(&self, session: &str, value: &str) {
        let Some(turns) = self.rules.turns.as_ref() else {
            return;
        };
        let TurnEnd::Idle { tag, state, .. } = turns.end else {
            return;
        };
        let update = json!({ turns.tag: tag, state: value });
        let _ = self.send_notification(turns.update, json!({ turns.session: session, turns.payload: update }));
    }

    /// The client's end sends the prompt `id`: its turn tracker follows it
    /// from now on (`None`: the call ends on its answer).
    fn prompt(&self, state: &mut State, method: &str, params: &RuleParams<'_>, id: i64) -> Option<Turn> {
        let turns = self.rules.turns.as_ref().filter(|turns| turns.prompt == method)?;
        let session = params
            .value()
            .get(turns.session)
            .and_then(Value::as_str)
            .unwrap_or_default();
        state.tracker.as_mut()?.prompt(session, Value::from(id));
        Some(Turn::default())
    }

    /// Fails with [`CallError::Refused`] when the `initialize` exchange
    /// does not allow sending `method`: the view's `check_method`, on the
    /// method's own gate (it looks at nothing inside the params).
    fn check_outgoing(&self, method: &str) -> Result<(), CallError> {
        match &self.lock().negotiated {
            Some(negotiated) => negotiated.check_method(method).map_err(CallError::Refused),
            None => Ok(()),
        }
    }

    fn send_notification(&self, method: &str, mut params: Value) -> Result<(), CallError> {
        self.check_outgoing(method)?;
        // Either this text now, or what the gate releases (rule R1).
        let (now, released) = {
            let mut state = self.lock();
            if self.role == Role::Agent {
                self.note_completion(&mut state, method, &params);
                self.note_state(&mut state, method, &mut params);
            }
            let text = line(&Message {
                method: Some(method),
                params: Some(&params),
                ..Message::default()
            })?;
            let session = state.gate.as_ref().and_then(|_| self.scoped_session(method, &params));
            match (&mut state.gate, session) {
                (Some(gate), Some(session)) => (None, gate.send(&session, text, 0)),
                _ => (Some(text), Vec::new()),
            }
        };
        for text in now.into_iter().chain(released) {
            self.send(text)?;
        }
        self.withdraw_permissions(method, &params);
        Ok(())
    }

    /// The session a `session/cancel` names, when `method` is that
    /// notification and this end is `role`.
    fn cancelled_session<'p>(&self, role: Role, method: &str, params: &'p Value) -> Option<&'p str> {
        let rules = self
            .rules
            .turn_cancel
            .as_ref()
            .filter(|rules| self.role == role && rules.notification == method)?;
        params.get(rules.session).and_then(Value::as_str)
    }

    /// The client's end sent `session/cancel`: the session's permission
    /// requests being handled stop, to be answered `cancelled` ([`Shared::respond`]).
    fn withdraw_permissions(&self, method: &str, params: &Value) {
        let Some(session) = self.cancelled_session(Role::Client, method, params) else {
            return;
        };
        let mut state = self.lock();
        let ids: Vec<String> = state
            .running
            .iter()
            .filter(|(_, running)| running.permission.as_deref() == Some(session))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(running) = state.running.remove(&id) {
                running.abort.abort();
                state.withdrawn.insert(id);
            }
        }
    }

    /// The session of an agent's session-scoped notification, when R1 holds it.
    fn scoped_session(&self, method: &str, params: &Value) -> Option<String> {
        let ready = self
            .rules
            .ready
            .as_ref()
            .filter(|ready| ready.scoped.contains(&method))?;
        Some(params.get(ready.session)?.as_str()?.to_owned())
    }

    /// The agent's handler sent a `turn_complete` itself.
    fn note_completion(&self, state: &mut State, method: &str, params: &Value) {
        let Some(turns) = self.rules.turns.as_ref().filter(|turns| turns.update == method) else {
            return;
        };
        let TurnEnd::Complete { tag, request, .. } = turns.end else {
            return;
        };
        let update = params.get(turns.payload);
        if update.and_then(|update| update.get(turns.tag)).and_then(Value::as_str) == Some(tag) {
            if let Some(id) = update.and_then(|update| update.get(request)) {
                state.completed.insert(id_text(id));
            }
        }
    }

    /// What a call this end made settles once its result decodes, taken
    /// from its params and result before the result is decoded.
    fn settling(&self, method: &str, params: &RuleParams<'_>, result: &Value) -> Settled {
        if method == self.rules.initialize {
            return Settled::Features(
                (self.rules.features)(params.value(), result),
                (self.rules.outgoing)(params.value(), result),
            );
        }
        let Some(ready) = &self.rules.ready else {
            return Settled::Nothing;
        };
        let Some((_, in_result)) = ready.openers.iter().find(|(opener, _)| *opener == method) else {
            return Settled::Nothing;
        };
        if !self.lock().features.session_ready || self.options.unordered {
            return Settled::Nothing;
        }
        let session = if *in_result {
            result.get(ready.session)
        } else {
            params.value().get(ready.session)
        };
        session.map_or(Settled::Nothing, |session| {
            Settled::Ready(json!({ ready.session: session }))
        })
    }

    /// A call this end made got its decoded result.
    fn settle(&self, settled: Settled) {
        match (settled, &self.rules.ready) {
            (Settled::Features(features, negotiated), _) => {
                let complete = matches!(
                    self.rules.turns,
                    Some(TurnRules {
                        end: TurnEnd::Complete { .. },
                        ..
                    })
                );
                let mut state = self.lock();
                state.features = features;
                state.negotiated = negotiated;
                if let Some(tracker) = state.tracker.as_mut().filter(|_| complete) {
                    tracker.negotiated(features.turn_complete);
                }
            }
            (Settled::Ready(params), Some(ready)) => {
                let _ = self.send_notification(ready.notification, params);
            }
            _ => {}
        }
    }

    /// Reads one line from the peer.
    fn receive<'h, H: Handler>(
        &self,
        line: &[u8],
        handler: &'h H,
        requests: &mut FuturesUnordered<BoxFuture<'h, Done>>,
        lane: &mpsc::UnboundedSender<Inbound>,
    ) {
        // Blank: JSON whitespace only (a form feed is text that is not JSON).
        let json_whitespace = |byte: &u8| matches!(byte, b' ' | b'\t' | b'\r' | b'\n');
        let start = line.iter().position(|byte| !json_whitespace(byte));
        let end = line.iter().rposition(|byte| !json_whitespace(byte));
        let (Some(start), Some(end)) = (start, end) else {
            return;
        };
        let text = &line[start..=end];
        let line = {
            let mut state = self.lock();
            state.lines += 1;
            state.lines
        };
        // Bytes that are not UTF-8 are not JSON.
        let message = match serde_json::from_slice::<Envelope>(text) {
            // The params were only scanned: text that may hold what a
            // `Value` refuses is parsed whole, to be refused as before.
            Ok(message)
                if message
                    .params
                    .as_deref()
                    .is_some_and(|params| beyond_scan(params.get()))
                    && serde_json::from_slice::<Value>(text).is_err() =>
            {
                return self.fault(Value::Null, -32700, "not JSON");
            }
            Ok(message) => Some(message),
            // Not a JSON object: parsed again as a `Value` to tell whether it is JSON at all.
            Err(_) => match serde_json::from_slice::<Value>(text) {
                Ok(_) => None,
                Err(_) => return self.fault(Value::Null, -32700, "not JSON"),
            },
        };
        let Some(message) = message.filter(|message| message.jsonrpc.as_ref().and_then(Value::as_str) == Some("2.0"))
        else {
            return self.fault(Value::Null, -32600, "not a JSON-RPC 2.0 message");
        };
        let valid_id = message
            .id
            .as_ref()
            .is_none_or(|id| id.is_string() || id.is_number() || id.is_null());
        if !valid_id {
            return self.fault(Value::Null, -32600, "the id is not a string, a number or null");
        }
        let Envelope {
            method,
            id,
            params,
            result,
            error,
            ..
        } = message;
        match (method, id) {
            (None, id) if result.is_some() || error.is_some() => {
                self.answer(id.unwrap_or(Value::Null), result, error, line);
            }
            (Some(Value::String(method)), Some(id)) => {
                let params = params.unwrap_or_else(|| RawValue::NULL.to_owned());
                // The handler decodes the text; the end reads the params of a few methods.
                let read = RuleParams::new(&params);
                if let Some(refusal) = self.refusal(&method, &read) {
                    let _ = self.write(&json!({ "jsonrpc": "2.0", "id": id, "error": refusal }));
                    return;
                }
                let (abort, registration) = AbortHandle::new_pair();
                let permission = self.permission_session(&method, &read);
                self.start_turn(&id, &method, &read);
                let key = id_text(&id);
                self.lock().running.insert(key.clone(), Running { abort, permission });
                let kept = if self.answer_reads_params(&method) {
                    read.into_value()
                } else {
                    Value::Null
                };
                requests.push(Box::pin(async move {
                    let outcome = Abortable::new(handler.request(&method, params), registration).await;
                    Done {
                        id,
                        key,
                        method,
                        params: kept,
                        outcome,
                    }
                }));
            }
            (Some(Value::String(method)), None) => {
                if self.uninitialized(&method) {
                    let error = json!({ "code": -32600, "message": NOT_INITIALIZED, "data": { "method": method } });
                    if let Ok(error) = serde_json::from_value(error) {
                        self.report(Some(method), error, line);
                    }
                    return;
                }
                let params = params.unwrap_or_else(|| RawValue::NULL.to_owned());
                self.received(&method, &params);
                self.read(&method, &params);
                let _ = lane.unbounded_send(Inbound { method, params, line });
            }
            (Some(_), id) => self.fault(id.unwrap_or(Value::Null), -32600, "the method is not a string"),
            (None, id) => self.fault(id.unwrap_or(Value::Null), -32600, "neither a call nor an answer"),
        }
    }

    /// The client's end: the session of the peer's permission request.
    fn permission_session(&self, method: &str, params: &RuleParams<'_>) -> Option<String> {
        let rules = self.rules.turn_cancel.as_ref().filter(|rules| {
            self.role == Role::Client && rules.permission.is_some_and(|(permission, _)| permission == method)
        })?;
        Some(params.value().get(rules.session)?.as_str()?.to_owned())
    }

    /// The agent's end: a prompt `id` for a session starts a turn, which
    /// `session/cancel` may cancel.
    fn start_turn(&self, id: &Value, method: &str, params: &RuleParams<'_>) {
        let Some(rules) = self
            .rules
            .turn_cancel
            .as_ref()
            .filter(|rules| self.role == Role::Agent && rules.prompt == method)
        else {
            return;
        };
        let Some(session) = params.value().get(rules.session).and_then(Value::as_str) else {
            return;
        };
        let mut state = self.lock();
        // In v2, a prompt joins the session's foreground work still going.
        let going = state.turns.get(session).is_some_and(|turn| !turn.cancelled());
        if rules.end == CancelEnd::Result || !going {
            state.turns.insert(session.to_owned(), TurnInFlight::new(id_text(id)));
        }
    }

    /// The agent's end sends a `session/update` (protocol v2): a state that
    /// is not `idle` makes foreground work of the session, which
    /// `session/cancel` may cancel; `idle` ends it, with the `cancelled`
    /// stop reason written in when it was cancelled.
    fn note_state(&self, state: &mut State, method: &str, params: &mut Value) {
        let (Some(rules), Some(turns)) = (self.rules.turn_cancel.as_ref(), self.rules.turns.as_ref()) else {
            return;
        };
        let TurnEnd::Idle {
            tag,
            state: member,
            idle,
        } = turns.end
        else {
            return;
        };
        if rules.end != CancelEnd::Idle || turns.update != method {
            return;
        }
        let Some(session) = params.get(turns.session).and_then(Value::as_str).map(str::to_owned) else {
            return;
        };
        let Some(Value::Object(update)) = params.get_mut(turns.payload) else {
            return;
        };
        if update.get(turns.tag).and_then(Value::as_str) != Some(tag) {
            return;
        }
        let value = update.get(member).and_then(Value::as_str);
        if value != Some(idle) {
            let turn = state
                .turns
                .entry(session)
                .or_insert_with(|| TurnInFlight::new(String::new()));
            turn.active = true;
            turn.state = value.map(str::to_owned);
            turn.reported = false;
        } else if state.turns.remove(&session).is_some_and(|turn| turn.cancelled()) {
            update.insert(rules.stop_reason.to_owned(), Value::from(rules.cancelled));
        }
    }

    /// The agent's end read `session/cancel`: the turn of the session it
    /// names is cancelled, and the calls the turn made stop waiting.
    fn cancel_turn(&self, method: &str, params: &Value) {
        let Some(session) = self.cancelled_session(Role::Agent, method, params) else {
            return;
        };
        let mut state = self.lock();
        let Some(trigger) = state.turns.get_mut(session).and_then(|turn| turn.trigger.take()) else {
            return;
        };
        let _ = trigger.send(());
        // The entries stay until the client's answer, which is then not reported.
        for pending in state.pending.values_mut() {
            if pending.session.as_deref() == Some(session) {
                if let Some(reply) = pending.reply.take() {
                    let _ = reply.send(Err(CallError::Cancelled));
                }
            }
        }
    }

    /// The agent's end: in v1, the answer to a prompt whose turn was
    /// cancelled is the `cancelled` stop reason, whatever its handler
    /// returned (the result's other members kept); the turn ends. In v2 the
    /// answer only accepts the prompt: a refused prompt ends a turn that no
    /// state reported, and the `idle` state ends the others.
    fn end_turn(&self, id: &Value, method: &str, params: &Value, outcome: Outcome) -> Outcome {
        let Some(rules) = self
            .rules
            .turn_cancel
            .as_ref()
            .filter(|rules| self.role == Role::Agent && rules.prompt == method)
        else {
            return outcome;
        };
        let Some(session) = params.get(rules.session).and_then(Value::as_str) else {
            return outcome;
        };
        let mut state = self.lock();
        let key = id_text(id);
        if state.turns.get(session).is_none_or(|turn| turn.id != key) {
            return outcome;
        }
        if rules.end == CancelEnd::Idle {
            if !matches!(outcome, Ok(Ok(_))) && state.turns.get(session).is_some_and(|turn| !turn.active) {
                state.turns.remove(session);
            }
            return outcome;
        }
        let cancelled = state.turns.remove(session).is_some_and(|turn| turn.cancelled());
        let reason = Value::from(rules.cancelled);
        match outcome {
            Ok(Ok(Value::Object(mut result))) if cancelled => {
                result.insert(rules.stop_reason.to_owned(), reason);
                Ok(Ok(Value::Object(result)))
            }
            Ok(_) if cancelled => Ok(Ok(json!({ rules.stop_reason: reason }))),
            outcome => outcome,
        }
    }

    /// Answers a message this end cannot take with the error `code` and
    /// `message` (`docs/connection.md`'s faults).
    #[cold]
    #[inline(never)]
    fn fault(&self, id: Value, code: i64, message: &str) {
        let _ = self.write(&json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }));
    }

    /// Whether the agent's end takes no `method` yet: only `initialize`
    /// comes before `initialize` was answered.
    fn uninitialized(&self, method: &str) -> bool {
        self.role == Role::Agent
            && super::ends::HANDSHAKE
                .as_ref()
                .is_some_and(|handshake| handshake.method != method && !self.lock().initialized)
    }

    /// The agent's end's answer to the peer's request `method` without its
    /// handler: -32600 before `initialize` was answered, and the
    /// unsupported-version error to an `initialize` below every supported
    /// version.
    fn refusal(&self, method: &str, params: &RuleParams<'_>) -> Option<Value> {
        if self.uninitialized(method) {
            return Some(json!({ "code": -32600, "message": NOT_INITIALIZED, "data": { "method": method } }));
        }
        let handshake = super::ends::HANDSHAKE
            .as_ref()
            .filter(|handshake| self.role == Role::Agent && handshake.method == method)?;
        let requested = params.value().get(handshake.version).and_then(Value::as_u64)?;
        let (code, message, requested_member, supported_member) = handshake.unsupported?;
        let data = json!({ requested_member: requested, supported_member: handshake.supported });
        handshake
            .answer(requested)
            .is_none()
            .then(|| json!({ "code": code, "message": message, "data": data }))
    }

    /// The agent's answer to `initialize`, as the handshake makes it: the
    /// agreed version (when the params name one) and the capabilities
    /// member, `{}` when the handler left it out.
    fn handshake_result(&self, method: &str, params: &Value, mut result: Value) -> Value {
        let Some(handshake) = super::ends::HANDSHAKE
            .as_ref()
            .filter(|handshake| self.role == Role::Agent && handshake.method == method)
        else {
            return result;
        };
        let agreed = params
            .get(handshake.version)
            .and_then(Value::as_u64)
            .and_then(|requested| handshake.answer(requested));
        if let Value::Object(members) = &mut result {
            if let Some(version) = agreed {
                members.insert(handshake.version.to_owned(), Value::from(version));
            }
            let handled = &self.lock().handled_gates;
            let capabilities = handshake
                .agent_advertises
                .apply(members.get(handshake.capabilities), |method| handled.contains(method));
            members.insert(handshake.capabilities.to_owned(), capabilities);
        }
        result
    }

    /// The agent's answer to `method`, without the members that offer per
    /// session the methods its handler does not answer.
    fn offered_result(&self, method: &str, mut result: Value) -> Value {
        if self.role == Role::Agent {
            let handled = &self.lock().handled_gates;
            super::negotiation::without_unhandled_offers(method, &mut result, |method| handled.contains(method));
        }
        result
    }

    /// The gates this end sets from its handlers.
    fn advertised(&self) -> Option<&'static Advertised> {
        let handshake = super::ends::HANDSHAKE.as_ref()?;
        Some(match self.role {
            Role::Agent => &handshake.agent_advertises,
            Role::Client => &handshake.client_advertises,
        })
    }

    /// The client's end: the `initialize` it sends carries the capabilities
    /// its handlers allow (left out when it wrote none and there is nothing
    /// to advertise).
    fn advertising(&self, method: &str, text: Box<RawValue>) -> Result<Box<RawValue>, CallError> {
        let Some(handshake) = super::ends::HANDSHAKE
            .as_ref()
            .filter(|handshake| self.role == Role::Client && handshake.method == method)
        else {
            return Ok(text);
        };
        let advertised = &handshake.client_advertises;
        let encode = |error: serde_json::Error| CallError::Encode(error.to_string());
        let mut params: Value = serde_json::from_str(text.get()).map_err(encode)?;
        if let Value::Object(members) = &mut params {
            let written = members.get(advertised.member);
            let capabilities = {
                let handled = &self.lock().handled_gates;
                advertised.apply(written, |method| handled.contains(method))
            };
            if written.is_some() || capabilities.as_object().is_some_and(|members| !members.is_empty()) {
                members.insert(advertised.member.to_owned(), capabilities);
            }
        }
        serde_json::value::to_raw_value(&params).map_err(encode)
    }

    /// Whether answering the peer's request `method` reads its params: the
    /// agent's end acts on `initialize`, prompts, and the requests that open
    /// the session their params name; the other params go to the handler
    /// uncopied.
    fn answer_reads_params(&self, method: &str) -> bool {
        self.role == Role::Agent
            && (method == self.rules.initialize
                || self.rules.turns.as_ref().is_some_and(|turns| turns.prompt == method)
                || self.rules.ready.as_ref().is_some_and(|ready| {
                    ready
                        .openers
                        .iter()
                        .any(|(opener, in_result)| *opener == method && !in_result)
                }))
    }

    /// What a notification does as soon as it is read, before its handler
    /// runs: `session/ready` releases what was held, `$/cancel_request`
    /// stops the request it names, `session/cancel` cancels the turn.
    fn received(&self, method: &str, params: &RawValue) {
        let acts = self.rules.cancel.is_some_and(|(cancel, _)| cancel == method)
            || self
                .rules
                .turn_cancel
                .as_ref()
                .is_some_and(|rules| rules.notification == method)
            || self
                .rules
                .ready
                .as_ref()
                .is_some_and(|ready| ready.notification == method);
        if !acts {
            return;
        }
        let params = &serde_json::from_str::<Value>(params.get()).unwrap_or_default();
        if let Some((_, member)) = self.rules.cancel.filter(|(cancel, _)| *cancel == method) {
            if let Some(running) = params
                .get(member)
                .and_then(|id| self.lock().running.remove(&id_text(id)))
            {
                running.abort.abort();
            }
        }
        self.cancel_turn(method, params);
        let Some(ready) = self
            .rules
            .ready
            .as_ref()
            .filter(|ready| ready.notification == method && self.role == Role::Agent)
        else {
            return;
        };
        let Some(session) = params.get(ready.session).and_then(Value::as_str) else {
            return;
        };
        let released = self
            .lock()
            .gate
            .as_mut()
            .map(|gate| gate.ready(session))
            .unwrap_or_default();
        for text in released {
            let _ = self.outgoing.unbounded_send(text);
        }
    }

    /// The peer answered the request `id` with `result` or `error`, in the
    /// `line`th message.
    fn answer(&self, id: Value, result: Option<Value>, error: Option<Value>, line: u64) {
        let answer = match error {
            Some(error) => Err(serde_json::from_value(error).map_or_else(
                |error| CallError::Encode(format!("a malformed error: {error}")),
                CallError::Remote,
            )),
            None => Ok(result.unwrap_or(Value::Null)),
        };
        let stop_reason = match (&self.rules.turns, &answer) {
            (
                Some(TurnRules {
                    end: TurnEnd::Complete { stop_reason, .. },
                    ..
                }),
                Ok(result),
            ) => Some(result.get(*stop_reason).cloned().unwrap_or(Value::Null)),
            (_, Ok(_)) => Some(Value::Null),
            (_, Err(_)) => None,
        };
        let mut state = self.lock();
        let Some((key, pending)) = id.as_i64().and_then(|key| Some((key, state.pending.get_mut(&key)?))) else {
            drop(state);
            self.unanswerable(id, line);
            return;
        };
        match &mut pending.turn {
            Some(turn) if turn.answer.is_none() => turn.answer = Some(answer),
            Some(_) => {
                drop(state);
                self.unanswerable(id, line);
                return;
            }
            None => {
                if let Some(reply) = pending.reply.take() {
                    let _ = reply.send(answer);
                }
                state.pending.remove(&key);
                return;
            }
        }
        if let Some(tracker) = state.tracker.as_mut() {
            tracker.response(&Value::from(key), stop_reason);
        }
        Self::mark_drained(&mut state);
        Self::return_prompts(&mut state);
    }

    /// Reports the response `id`, the `line`th message, to no request in flight.
    #[cold]
    #[inline(never)]
    fn unanswerable(&self, id: Value, line: u64) {
        let error = json!({ "code": -32600, "message": "a response to no request in flight", "data": { "id": id } });
        if let Ok(error) = serde_json::from_value(error) {
            self.report(None, error, line);
        }
    }

    /// A notification was read: the client's end feeds a `session/update`
    /// to its turn tracker, and the prompts whose turn it drained are
    /// drained at this read position.
    fn read(&self, method: &str, params: &RawValue) {
        let mut state = self.lock();
        state.read += 1;
        let Some(turns) = self.rules.turns.as_ref().filter(|turns| turns.update == method) else {
            return;
        };
        if let Some(tracker) = state.tracker.as_mut() {
            let (session, scope) = turns.scope(params);
            tracker.update(session.as_str(), scope);
            Self::mark_drained(&mut state);
        }
    }

    /// The tracker was fed a message: every prompt whose turn it drained is
    /// drained at the current read position.
    fn mark_drained(state: &mut State) {
        let read = state.read;
        let Some(tracker) = &state.tracker else {
            return;
        };
        for (id, pending) in &mut state.pending {
            if let Some(turn) = pending.turn.as_mut().filter(|turn| turn.drained.is_none()) {
                if tracker.is_drained(&Value::from(*id)) {
                    turn.drained = Some(read);
                }
            }
        }
    }

    /// The handler of a notification returned: prompts whose turn is
    /// drained complete once every notification read up to the message
    /// that drained it was handled.
    fn handled(&self) {
        let mut state = self.lock();
        state.handled += 1;
        Self::return_prompts(&mut state);
    }

    /// Completes every prompt that has its answer, whose turn is drained,
    /// and whose notifications read up to the message that drained it were
    /// handled.
    fn return_prompts(state: &mut State) {
        let handled = state.handled;
        let done: Vec<i64> = state
            .pending
            .iter()
            .filter(|(_, pending)| {
                pending
                    .turn
                    .as_ref()
                    .is_some_and(|turn| turn.answer.is_some() && turn.drained.is_some_and(|drained| handled >= drained))
            })
            .map(|(id, _)| *id)
            .collect();
        for id in done {
            let Some(mut pending) = state.pending.remove(&id) else {
                continue;
            };
            if let (Some(reply), Some(answer)) = (pending.reply.take(), pending.turn.and_then(|turn| turn.answer)) {
                let _ = reply.send(answer);
            }
        }
    }

    /// This end's handler of the peer's request finished: answer it.
    fn respond(&self, done: Done) {
        let Done {
            id,
            key,
            method,
            params,
            outcome,
        } = done;
        let withdrawn = {
            let mut state = self.lock();
            state.running.remove(&key);
            state.withdrawn.remove(&key)
        };
        let outcome = match (
            outcome,
            self.rules.turn_cancel.as_ref().and_then(|rules| rules.permission),
        ) {
            // A permission request of a turn the client cancelled.
            (Err(Aborted), Some((_, cancelled))) if withdrawn => {
                // The generator writes the text from a JSON value.
                Ok(Ok(serde_json::from_str(cancelled).unwrap_or_default()))
            }
            (outcome, _) => self.end_turn(&id, &method, &params, outcome),
        };
        let (text, result) = match outcome {
            Ok(Ok(result)) => {
                let result = self.handshake_result(&method, &params, result);
                let result = self.offered_result(&method, result);
                self.before_response(&id, &method, &params, &result);
                (
                    line(&Message {
                        id: Some(&id),
                        result: Some(&result),
                        ..Message::default()
                    }),
                    Some(result),
                )
            }
            Ok(Err(error)) => (line(&json!({ "jsonrpc": "2.0", "id": id, "error": error })), None),
            Err(Aborted) => (
                line(
                    &json!({ "jsonrpc": "2.0", "id": id, "error": { "code": -32800, "message": "Request cancelled" } }),
                ),
                None,
            ),
        };
        let queue = if self.options.unordered {
            &self.overtaking
        } else {
            &self.outgoing
        };
        if let Ok(text) = text {
            let _ = queue.unbounded_send(text);
        }
        if let Some(result) = result {
            self.after_response(&method, &params, &result);
        }
    }

    /// The agent's end, before its answer leaves: `initialize` decides the
    /// features; a prompt gets its `turn_complete` when its handler sent none.
    fn before_response(&self, id: &Value, method: &str, params: &Value, result: &Value) {
        if self.role != Role::Agent {
            return;
        }
        if method == self.rules.initialize {
            let features = (self.rules.features)(params, result);
            let negotiated = (self.rules.outgoing)(params, result);
            let mut state = self.lock();
            state.features = features;
            state.negotiated = negotiated;
            state.initialized = true;
            if features.session_ready && !self.options.unordered {
                state.gate = Some(SessionReadyGate::new(true));
            }
            return;
        }
        let Some(turns) = self.rules.turns.as_ref().filter(|turns| turns.prompt == method) else {
            return;
        };
        let TurnEnd::Complete {
            tag,
            request,
            stop_reason,
        } = turns.end
        else {
            return;
        };
        let owed = {
            let state = self.lock();
            state.features.turn_complete && !self.options.unordered && !state.completed.contains(&id_text(id))
        };
        if let (true, Some(reason)) = (owed, result.get(stop_reason)) {
            let session = params.get(turns.session).cloned().unwrap_or(Value::Null);
            let update =
                json!({ turns.session: session, turns.payload: { turns.tag: tag, request: id, stop_reason: reason } });
            let _ = self.send_notification(turns.update, update);
        }
    }

    /// The agent's end answered a request that opens a session: from now
    /// on its scoped notifications wait for `session/ready`.
    fn after_response(&self, method: &str, params: &Value, result: &Value) {
        let Some(ready) = self.rules.ready.as_ref().filter(|_| self.role == Role::Agent) else {
            return;
        };
        let Some((_, in_result)) = ready.openers.iter().find(|(opener, _)| *opener == method) else {
            return;
        };
        let session = if *in_result {
            result.get(ready.session)
        } else {
            params.get(ready.session)
        };
        if let (Some(session), Some(gate)) = (session.and_then(Value::as_str), self.lock().gate.as_mut()) {
            gate.responded(session, 0);
        }
    }

    /// The peer is gone: every call in flight fails.
    fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        for (_, mut pending) in ::std::mem::take(&mut state.pending) {
            if let Some(reply) = pending.reply.take() {
                let _ = reply.send(Err(CallError::Closed));
            }
        }
        drop(state);
        self.outgoing.close_channel();
        self.overtaking.close_channel();
    }
}

/// A notification of the peer, waiting for its handler: its method, its
/// params and its position among the messages read.
struct Inbound {
    method: String,
    params: Box<RawValue>,
    line: u64,
}

/// What a handler of the peer's request came to: its result or error, or
/// stopped.
type Outcome = Result<Result<Value, super::types::Error>, Aborted>;

/// A handled request of the peer.
struct Done {
    id: Value,
    /// The id's JSON text, its key in [`State::running`].
    key: String,
    method: String,
    params: Value,
    outcome: Outcome,
}

/// The members of a received JSON object that make a JSON-RPC message,
/// taken apart as it is parsed: a member named twice counts as its last,
/// as in a parsed [`Value`], and the others are parsed and dropped.
#[derive(Default)]
struct Envelope {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    /// Kept as text: the handler decodes it into the typed value.
    params: Option<Box<RawValue>>,
    result: Option<Value>,
    error: Option<Value>,
}

impl<'de> serde::Deserialize<'de> for Envelope {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EnvelopeVisitor)
    }
}

/// Reads an [`Envelope`] from a JSON object (and nothing else).
struct EnvelopeVisitor;

impl<'de> serde::de::Visitor<'de> for EnvelopeVisitor {
    type Value = Envelope;

    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut members: A) -> Result<Envelope, A::Error> {
        let mut envelope = Envelope::default();
        while let Some(name) = members.next_key::<MemberName>()? {
            if let MemberName::Params = name {
                envelope.params = Some(members.next_value()?);
                continue;
            }
            let value = members.next_value::<Value>()?;
            let slot = match name {
                MemberName::Jsonrpc => &mut envelope.jsonrpc,
                MemberName::Id => &mut envelope.id,
                MemberName::Method => &mut envelope.method,
                MemberName::Result => &mut envelope.result,
                MemberName::Error => &mut envelope.error,
                MemberName::Params | MemberName::Other => continue,
            };
            *slot = Some(value);
        }
        Ok(envelope)
    }
}

/// A member name of an [`Envelope`], read without copying it.
enum MemberName {
    Jsonrpc,
    Id,
    Method,
    Params,
    Result,
    Error,
    Other,
}

impl<'de> serde::Deserialize<'de> for MemberName {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_identifier(MemberNameVisitor)
    }
}

struct MemberNameVisitor;

impl serde::de::Visitor<'_> for MemberNameVisitor {
    type Value = MemberName;

    fn expecting(&self, formatter: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
        formatter.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<MemberName, E> {
        Ok(match name {
            "jsonrpc" => MemberName::Jsonrpc,
            "id" => MemberName::Id,
            "method" => MemberName::Method,
            "params" => MemberName::Params,
            "result" => MemberName::Result,
            "error" => MemberName::Error,
            _ => MemberName::Other,
        })
    }
}

/// Whether params read as text only (a [`RawValue`] checks the JSON
/// grammar) may hold what a parsed [`Value`] refuses: a `\u` escape of a
/// surrogate, which may be a lone one, as many arrays and objects as the
/// depth a message may nest, which may be too deep, or a number beyond a
/// double's range (an exponent, or as many digits as the largest double
/// has). Each is rare, and the message is then parsed whole.
fn beyond_scan(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |byte: u8| byte.wrapping_sub(b'0') < 10;
    let (mut openers, mut digits, mut exponents) = (0, 0, 0);
    // Counted in byte counters, a chunk at a time, in loops without
    // branches that the compiler runs on many bytes at once; `[` and `{`
    // differ in one bit, and so do `e` and `E`.
    for start in (0..bytes.len()).step_by(255) {
        let end = bytes.len().min(start + 255);
        let (mut chunk_openers, mut chunk_digits, mut chunk_exponents) = (0u8, 0u8, 0u8);
        for &byte in &bytes[start..end] {
            chunk_openers += u8::from(byte | 0x20 == b'{');
            chunk_digits += u8::from(digit(byte));
        }
        // The pairs that start in the chunk, the last one ending after it.
        let following = &bytes[start + 1..bytes.len().min(end + 1)];
        for (&byte, &next) in bytes[start..end].iter().zip(following) {
            chunk_exponents += u8::from(digit(byte) & (next | 0x20 == b'e'));
        }
        openers += usize::from(chunk_openers);
        digits += usize::from(chunk_digits);
        exponents += usize::from(chunk_exponents);
    }
    let surrogate = |(at, _): (usize, &str)| {
        let hex = &bytes[at + 2..];
        matches!(hex.first(), Some(b'd' | b'D')) && matches!(hex.get(1), Some(b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F'))
    };
    openers >= super::codec::MAX_DEPTH
        || exponents > 0
        || digits > f64::MAX_10_EXP as usize
        || (text.contains("\\u") && text.match_indices("\\u").any(surrogate))
}

/// A request this end writes, its params already JSON text.
#[derive(serde::Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: i64,
    method: &'a str,
    params: &'a RawValue,
}

/// A request's params, sent or received, as the end's rules read them
/// (not [`super::codec::Params`], the dispatchers' decoding): their
/// text, parsed the first time a rule of the end looks inside (most
/// methods' params are never parsed here: their handler or the peer
/// decodes the text). Text that does not parse reads as `null`.
struct RuleParams<'a> {
    text: &'a RawValue,
    value: std::sync::OnceLock<Value>,
}

/// What a reader that does not look sees of the params.
static UNREAD: Value = Value::Null;

impl<'a> RuleParams<'a> {
    fn new(text: &'a RawValue) -> RuleParams<'a> {
        RuleParams {
            text,
            value: std::sync::OnceLock::new(),
        }
    }

    fn value(&self) -> &Value {
        self.value.get_or_init(|| parse_params(self.text))
    }

    /// The params for a reader that looks at them only when it `reads`.
    fn value_if(&self, reads: bool) -> &Value {
        if reads {
            self.value()
        } else {
            &UNREAD
        }
    }

    fn into_value(self) -> Value {
        self.value.into_inner().unwrap_or_else(|| parse_params(self.text))
    }
}

fn parse_params(text: &RawValue) -> Value {
    serde_json::from_str(text.get()).unwrap_or_default()
}

/// A notification or result this end writes, borrowing its
/// parts, so that it is written without building a [`Value`] of it.
#[derive(serde::Serialize)]
struct Message<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
}

impl Default for Message<'_> {
    fn default() -> Self {
        Message {
            jsonrpc: "2.0",
            id: None,
            method: None,
            params: None,
            result: None,
        }
    }
}

/// A JSON-RPC id's JSON text, the key of the requests it names.
fn id_text(id: &Value) -> String {
    // A `Value` always encodes.
    serde_json::to_string(id).unwrap_or_default()
}

/// `message` as the writer takes it: its JSON text and a newline.
fn line(message: &impl serde::Serialize) -> Result<Vec<u8>, CallError> {
    // Room for most messages an end writes, so that few grow as written.
    let mut text = Vec::with_capacity(256);
    serde_json::to_writer(&mut text, message).map_err(|error| CallError::Encode(error.to_string()))?;
    text.push(b'\n');
    Ok(text)
}

/// The queues the writer drains: responses that may overtake (only
/// [`ConnectOptions::unordered`] ends have them), then the rest.
struct Queues {
    ordered: mpsc::UnboundedReceiver<Vec<u8>>,
    first: Option<mpsc::UnboundedReceiver<Vec<u8>>>,
}

/// Reads, handles and writes until the peer closes its side.
async fn drive<H: Handler, R: AsyncBufRead + Unpin, W: AsyncWrite + Unpin>(
    shared: Arc<Shared>,
    handler: H,
    reader: R,
    writer: W,
    queues: Queues,
) -> ::std::io::Result<()> {
    let (lane, notifications) = mpsc::unbounded::<Inbound>();
    let reading = read(&shared, &handler, reader, lane);
    let handling = handle_notifications(&shared, &handler, notifications);
    let writing = write(queues, writer);
    let (read, (), written) = futures::join!(reading, handling, writing);
    read.and(written)
}

/// Reads lines and answers the peer's requests as their handlers finish.
/// A line read whole is taken from the reader's buffer where it lies; one
/// buffer of its own gathers a line the reader delivers in parts.
async fn read<H: Handler, R: AsyncBufRead + Unpin>(
    shared: &Shared,
    handler: &H,
    mut reader: R,
    lane: mpsc::UnboundedSender<Inbound>,
) -> ::std::io::Result<()> {
    let mut requests: FuturesUnordered<BoxFuture<'_, Done>> = FuturesUnordered::new();
    let mut line = Vec::new();
    // Lines read since reading last let the other work of the end run.
    let mut burst = 0;
    let result = futures::future::poll_fn(|context| loop {
        while let Poll::Ready(Some(done)) = requests.poll_next_unpin(context) {
            shared.respond(done);
        }
        if burst == BURST {
            // A turn for the handlers, so that input that is always ready
            // is handled as it is read instead of queued whole.
            burst = 0;
            context.waker().wake_by_ref();
            return Poll::Pending;
        }
        let available = match Pin::new(&mut reader).poll_fill_buf(context) {
            Poll::Ready(Ok(available)) => available,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
            Poll::Pending => return Poll::Pending,
        };
        if available.is_empty() {
            if !line.is_empty() {
                shared.receive(&line, handler, &mut requests, &lane);
            }
            return Poll::Ready(Ok(()));
        }
        let taken = line_length(available);
        let ended = available[taken - 1] == b'\n';
        burst += usize::from(ended);
        if ended && line.is_empty() {
            shared.receive(&available[..taken], handler, &mut requests, &lane);
        } else {
            line.extend_from_slice(&available[..taken]);
        }
        Pin::new(&mut reader).consume(taken);
        if ended && !line.is_empty() {
            shared.receive(&line, handler, &mut requests, &lane);
            line.clear();
        }
    })
    .await;
    shared.close();
    result
}

/// How many lines are read in a row, at most, before reading yields.
const BURST: usize = 32;

/// The bytes of `available` (not empty) up to and including its first
/// newline, or all of them when it has none.
fn line_length(mut available: &[u8]) -> usize {
    // Reading from a slice cannot fail.
    ::std::io::BufRead::skip_until(&mut available, b'\n').unwrap_or_default()
}

async fn handle_notifications<H: Handler>(
    shared: &Shared,
    handler: &H,
    mut notifications: mpsc::UnboundedReceiver<Inbound>,
) {
    while let Some(Inbound { method, params, line }) = notifications.next().await {
        if let Err(error) = handler.notification(&method, params).await {
            shared.report(Some(method), error, line);
        }
        shared.handled();
    }
}

/// Writes the queued lines in order, flushing whenever no more is queued.
async fn write<W: AsyncWrite + Unpin>(queues: Queues, writer: W) -> ::std::io::Result<()> {
    match queues.first {
        Some(first) => {
            let merged = futures::stream::select_with_strategy(first, queues.ordered, |_: &mut ()| {
                futures::stream::PollNext::Left
            });
            write_lines(merged, writer).await
        }
        None => write_lines(queues.ordered, writer).await,
    }
}

/// Writes `lines` in order, flushing whenever no more is ready.
async fn write_lines<S: futures::Stream<Item = Vec<u8>> + Unpin, W: AsyncWrite + Unpin>(
    mut lines: S,
    mut writer: W,
) -> ::std::io::Result<()> {
    while let Some(text) = lines.next().await {
        writer.write_all(&text).await?;
        while let Some(Some(text)) = lines.next().now_or_never() {
            writer.write_all(&text).await?;
        }
        writer.flush().await?;
    }
    writer.close().await
}
