//! The ordering rules of the RFDs, judged by the RFD helpers' reference
//! machines ([`acp_ir::rfd::machines`]) exactly as the generated helpers
//! run them: the session-ready gate for R1 (a notification the gate would
//! hold is one sent before `session/ready`) and the turn tracker for R2 and
//! R4 (its violations are the findings), on the lifecycle of the schema's
//! protocol version.
//!
//! The only bookkeeping here: which sessions the gate watches (those the
//! agent answered `session/new` or `session/load` for, until their
//! `session/ready`, which the client must send: a session still watched
//! when the capture ends is R1 at its response); which sessions are being
//! loaded or resumed (the agent replays their history as updates before it
//! answers `session/load` or `session/resume`, which is no turn's output, so
//! the tracker sees only their state snapshots); and which answered turns
//! still wait for their end, reported when the capture ends.
//! With a fallback timeout and record times, the gate's `expire` releases
//! the sessions that waited that long, as an agent that falls back after a
//! timeout (the RFD allows it) does.
//!
//! In v1 the `session/prompt` response ends its turn, carrying its
//! `stopReason` (R4: the turn's updates come before it; R2: its
//! `turn_complete` when negotiated). In v2 the response only acknowledges
//! the prompt, so R4 has nothing to judge; the turn ends with an `idle`
//! state update, which every accepted prompt must see (R2), and after
//! which the agent's reply does not come until new foreground work is
//! reported (R2).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::finding::{Finding, Found, Place};
use super::peers::Features;
use super::rpc::Pending;
use acp_ir::ir::Direction;
use acp_ir::ir::Ir;
use acp_ir::rfd::machines::{Scope, SessionReadyGate, TurnTracker, ViolationKind};
use acp_ir::rfd::{self, Turns};

/// A prompt answered before its end (`turn_complete`, or v2's `idle`).
struct Awaiting {
    session: String,
    request: Value,
    at: Place,
}

pub(super) struct Order {
    turns: Option<Turns>,
    gate: SessionReadyGate<()>,
    /// By session, the place of the response that opened it.
    watched: HashMap<String, Place>,
    loading: HashSet<String>,
    tracker: TurnTracker<Value, Value>,
    features: Features,
    /// The fallback timeout and the current time, in milliseconds.
    timeout: Option<u64>,
    now: Option<u64>,
    /// By the request id's JSON text.
    awaiting: BTreeMap<String, Awaiting>,
}

fn explain(kind: ViolationKind, request: Option<&Value>, tag: &str) -> String {
    let request = request.map_or_else(|| "?".to_owned(), Value::to_string);
    match kind {
        ViolationKind::UpdateAfterResponse => {
            format!("`{tag}` of the turn of prompt {request} came after its `session/prompt` response")
        }
        ViolationKind::UpdateAfterTurnComplete => {
            format!("`{tag}` of the turn of prompt {request} came after its `turn_complete`")
        }
        ViolationKind::DuplicateTurnComplete => format!("a second `turn_complete` for prompt {request}"),
        ViolationKind::StopReasonMismatch => {
            format!("`turn_complete` and the `session/prompt` response of prompt {request} give different stop reasons")
        }
        ViolationKind::UnknownTurn => {
            format!("`turn_complete` names prompt {request}, which has no turn in flight in this session")
        }
        ViolationKind::UpdateAfterIdle => {
            format!("`{tag}` came after the `idle` state update that ended the turn of prompt {request}, with no `running` or `requires_action` before it")
        }
    }
}

impl Order {
    pub(super) fn new(ir: &Ir) -> Order {
        let features = Features::default();
        let turns = rfd::model(ir).turns;
        Order {
            tracker: tracker(&turns, features),
            turns,
            gate: SessionReadyGate::new(features.session_ready),
            watched: HashMap::new(),
            loading: HashSet::new(),
            features,
            timeout: None,
            now: None,
            awaiting: BTreeMap::new(),
        }
    }

    /// The `initialize` exchange agreed on `features`.
    pub(super) fn negotiated(&mut self, features: Features) {
        self.features = features;
        self.gate = SessionReadyGate::new(features.session_ready);
        self.tracker = tracker(&self.turns, features);
    }

    /// Sessions that waited `timeout` milliseconds for `session/ready` are
    /// treated as ready.
    pub(super) fn fall_back_after(&mut self, timeout: u64) {
        self.timeout = Some(timeout);
    }

    /// The time of the next message, in milliseconds.
    pub(super) fn clock(&mut self, now: u64) {
        self.now = Some(now);
    }

    /// A request went `direction`: a client's `session/prompt` starts a
    /// turn, its `session/load` a replay.
    pub(super) fn request(&mut self, direction: Direction, id: &Value, method: &str, session: Option<&str>) {
        match (direction, method, session) {
            (Direction::ClientToAgent, "session/prompt", Some(session)) => self.tracker.prompt(session, id.clone()),
            (Direction::ClientToAgent, "session/load" | "session/resume", Some(session)) => {
                self.loading.insert(session.to_owned());
            }
            _ => {}
        }
    }

    /// A notification went `direction`.
    pub(super) fn notification(&mut self, direction: Direction, method: &str, params: Option<&Value>) -> Vec<Found> {
        let Some(session) = super::rpc::session_of(params) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        if direction == Direction::ClientToAgent {
            if method == "session/ready" && self.watched.remove(session).is_some() {
                self.gate.ready(session);
                self.gate.closed(session);
            }
            return found;
        }
        if let (Some(timeout), Some(now)) = (self.timeout, self.now) {
            self.gate.expire(now, timeout);
        }
        let tag = params
            .and_then(|params| params.get("update"))
            .and_then(|update| update.get("sessionUpdate"))
            .and_then(Value::as_str);
        if self.watched.contains_key(session) && self.gate.send(session, (), self.now.unwrap_or_default()).is_empty() {
            let what = tag.map_or_else(|| format!("`{method}`"), |tag| format!("`{method}` (`{tag}`)"));
            found.push(
                Found::new(
                    "R1",
                    format!("the agent sent {what} for session {session} before the client's `session/ready`"),
                )
                .session(Some(session)),
            );
        }
        if method != "session/update" {
            return found;
        }
        let Some((_, scope)) = self
            .turns
            .as_ref()
            .and_then(|turns| params.and_then(|params| turns.scope_of(params)))
        else {
            return found;
        };
        if self.loading.contains(session) && !matches!(scope, Scope::State { .. }) {
            return found;
        }
        let observation = self.tracker.update(session, scope);
        for violation in &observation.violations {
            let message = explain(violation.kind, violation.request.as_ref(), tag.unwrap_or("?"));
            found.push(
                Found::new(violation.kind.rule(), message)
                    .session(Some(session))
                    .request(violation.request.as_ref()),
            );
        }
        if observation.drained.is_some() {
            let tracker = &self.tracker;
            self.awaiting
                .retain(|_, awaiting| !tracker.is_drained(&awaiting.request));
        }
        found
    }

    /// The response that went `direction` to `request` (id `id`) arrived at
    /// `at`, with `result` (`None`: an error response).
    pub(super) fn response(
        &mut self,
        direction: Direction,
        id: &Value,
        request: &Pending,
        result: Option<&Value>,
        at: Place,
    ) -> Vec<Found> {
        if direction != Direction::AgentToClient {
            return Vec::new();
        }
        if let ("session/load" | "session/resume", Some(session)) =
            (request.method.as_str(), request.session.as_deref())
        {
            self.loading.remove(session);
        }
        match request.method.as_str() {
            "session/new" | "session/load" if self.features.session_ready => {
                let answered = result
                    .and_then(|result| result.get("sessionId"))
                    .and_then(Value::as_str)
                    .or(request.session.as_deref());
                if let (Some(_), Some(session)) = (result, answered) {
                    self.gate.responded(session, self.now.unwrap_or_default());
                    self.watched.insert(session.to_owned(), at);
                }
                Vec::new()
            }
            "session/prompt" => {
                let lifecycle = self.turns.as_ref().is_some_and(|turns| turns.lifecycle.is_some());
                // v2: any value for an accepted prompt.
                let stop_reason = result.map(|result| {
                    if lifecycle {
                        Value::Bool(true)
                    } else {
                        result.get("stopReason").cloned().unwrap_or(Value::Null)
                    }
                });
                let answered = stop_reason.is_some();
                let observation = self.tracker.response(id, stop_reason);
                let session = request.session.as_deref();
                let found = observation
                    .violations
                    .iter()
                    .map(|violation| {
                        Found::new(
                            violation.kind.rule(),
                            explain(violation.kind, violation.request.as_ref(), "session/prompt response"),
                        )
                        .session(session)
                        .request(Some(id))
                    })
                    .collect();
                if let (true, true, Some(_), None, Some(session)) = (
                    answered,
                    lifecycle || self.features.turn_complete,
                    observation.turn,
                    observation.drained,
                    session,
                ) {
                    self.awaiting.insert(
                        id.to_string(),
                        Awaiting {
                            session: session.to_owned(),
                            request: id.clone(),
                            at,
                        },
                    );
                }
                found
            }
            _ => Vec::new(),
        }
    }

    /// How many answered turns wait for their end.
    #[cfg(test)]
    pub(super) fn awaiting(&self) -> usize {
        self.awaiting.len()
    }

    /// Every session the client never sent `session/ready` for, and every
    /// prompt answered without its end, at their responses.
    pub(super) fn finish(self) -> Vec<Finding> {
        let lifecycle = self.turns.as_ref().is_some_and(|turns| turns.lifecycle.is_some());
        let unready = self.watched.into_iter().map(|(session, at)| {
            let message = format!("the client never sent `session/ready` for session {session}, answered here");
            Found::new("R1", message).session(Some(&session)).at(at)
        });
        let incomplete = self.awaiting.into_values().map(|awaiting| {
            let message = if lifecycle {
                format!(
                    "prompt {} was accepted but no `idle` state update ended its turn",
                    awaiting.request
                )
            } else {
                format!(
                    "prompt {} was answered but no `turn_complete` for it ever came",
                    awaiting.request
                )
            };
            Found::new("R2", message)
                .session(Some(&awaiting.session))
                .request(Some(&awaiting.request))
                .at(awaiting.at)
        });
        let mut found: Vec<Finding> = unready.chain(incomplete).collect();
        found.sort_by_key(|finding| finding.at);
        found
    }
}

/// The tracker of the schema's lifecycle: v2's `idle`, or v1's response and
/// negotiated `turn_complete`.
fn tracker(turns: &Option<Turns>, features: Features) -> TurnTracker<Value, Value> {
    if turns.as_ref().is_some_and(|turns| turns.lifecycle.is_some()) {
        TurnTracker::lifecycle()
    } else {
        TurnTracker::new(features.turn_complete)
    }
}
