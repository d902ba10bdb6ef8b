//! The RFD helpers' state machines, for rules R1, R2, R3 and R4 of the
//! extended schema: the session-ready gate (agent side), the turn tracker
//! and the session-status advice (client side).
//!
//! They are pure: no I/O and no clock. The caller passes the time in (any
//! monotonic count, such as milliseconds) and sends what they return.
//! This file uses `std` only: it is compiled into `acp-codegen`, where
//! `cargo xtask check-trace` runs it on captured traffic, and copied as it
//! is into every generated Rust crate, where typed wrappers feed it decoded
//! messages. The TypeScript and Python helpers implement the same machines;
//! `tests/helpers.json` holds every one to the same decisions.

use std::collections::{BTreeMap, BTreeSet};

/// Holds an agent's session-scoped notifications for a session until the
/// client's `session/ready` for it arrives (rule R1), then releases them in
/// order. Without the negotiated capability every item passes at once.
#[derive(Debug, Clone)]
pub struct SessionReadyGate<T> {
    required: bool,
    waiting: BTreeMap<String, Waiting<T>>,
    ready: BTreeSet<String>,
}

#[derive(Debug, Clone)]
struct Waiting<T> {
    since: u64,
    held: Vec<T>,
}

impl<T> SessionReadyGate<T> {
    /// A gate; `required` is whether the agent advertised `session/ready`.
    pub fn new(required: bool) -> Self {
        SessionReadyGate { required, waiting: BTreeMap::new(), ready: BTreeSet::new() }
    }

    /// Whether the gate holds anything at all.
    pub fn required(&self) -> bool {
        self.required
    }

    /// The agent answered `session/new` or `session/load` for `session` at
    /// `now`: its notifications wait for `session/ready` from here on.
    pub fn responded(&mut self, session: &str, now: u64) {
        if !self.required {
            return;
        }
        self.ready.remove(session);
        self.waiting.entry(session.to_owned()).or_insert_with(|| Waiting { since: now, held: Vec::new() });
    }

    /// A session-scoped notification the agent wants to send at `now`:
    /// what may be sent now (the item, or nothing while it is held).
    pub fn send(&mut self, session: &str, item: T, now: u64) -> Vec<T> {
        if !self.required || self.ready.contains(session) {
            return vec![item];
        }
        self.waiting.entry(session.to_owned()).or_insert_with(|| Waiting { since: now, held: Vec::new() }).held.push(item);
        Vec::new()
    }

    /// `session/ready` arrived for `session`: what was held, in order.
    pub fn ready(&mut self, session: &str) -> Vec<T> {
        if !self.required {
            return Vec::new();
        }
        self.ready.insert(session.to_owned());
        self.waiting.remove(session).map_or_else(Vec::new, |waiting| waiting.held)
    }

    /// The fallback the caller chooses: every session that has waited
    /// `timeout` or longer at `now` is treated as ready. Returns those
    /// sessions with what they held, longest waiting first.
    pub fn expire(&mut self, now: u64, timeout: u64) -> Vec<(String, Vec<T>)> {
        let mut due: Vec<(u64, String)> = self
            .waiting
            .iter()
            .filter(|(_, waiting)| waiting.since.saturating_add(timeout) <= now)
            .map(|(session, waiting)| (waiting.since, session.clone()))
            .collect();
        due.sort();
        due.into_iter()
            .map(|(_, session)| {
                let held = self.ready(&session);
                (session, held)
            })
            .collect()
    }

    /// The session ended: forgets it and returns what it still held, which
    /// was never sent.
    pub fn closed(&mut self, session: &str) -> Vec<T> {
        self.ready.remove(session);
        self.waiting.remove(session).map_or_else(Vec::new, |waiting| waiting.held)
    }

    /// How many items `session` holds.
    pub fn held(&self, session: &str) -> usize {
        self.waiting.get(session).map_or(0, |waiting| waiting.held.len())
    }
}

/// What a `session/update` is to the turn tracker.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope<R, S> {
    /// Part of a prompt turn's output (message and thought chunks, tool
    /// calls, plans).
    Turn,
    /// About the session, not a turn (commands, modes, usage, unknown
    /// updates).
    Session,
    /// The `turn_complete` update of the turn `request`.
    Complete { request: R, stop_reason: S },
}

/// A rule a peer broke, as the turn tracker saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ViolationKind {
    /// R4: an update of a turn arrived after its `session/prompt` response.
    UpdateAfterResponse,
    /// R2: an update of a turn arrived after its `turn_complete`.
    UpdateAfterTurnComplete,
    /// R2: a second `turn_complete` for one turn.
    DuplicateTurnComplete,
    /// R2: `turn_complete` and the response give different stop reasons.
    StopReasonMismatch,
    /// R2: a `turn_complete` names no prompt of its session.
    UnknownTurn,
}

impl ViolationKind {
    /// The rule id of `rfd-semantics.md`.
    pub fn rule(self) -> &'static str {
        match self {
            ViolationKind::UpdateAfterResponse => "R4",
            _ => "R2",
        }
    }

    /// The name every language's helpers give it.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::UpdateAfterResponse => "update_after_response",
            ViolationKind::UpdateAfterTurnComplete => "update_after_turn_complete",
            ViolationKind::DuplicateTurnComplete => "duplicate_turn_complete",
            ViolationKind::StopReasonMismatch => "stop_reason_mismatch",
            ViolationKind::UnknownTurn => "unknown_turn",
        }
    }
}

/// One violation: what, in which session, for which prompt request.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation<R> {
    pub kind: ViolationKind,
    pub session: String,
    pub request: Option<R>,
}

/// What the tracker made of one message.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation<R> {
    /// The prompt request whose turn the message belongs to.
    pub turn: Option<R>,
    /// The turn this message drained (its response and, when negotiated,
    /// its `turn_complete` both seen).
    pub drained: Option<R>,
    pub violations: Vec<Violation<R>>,
}

impl<R> Observation<R> {
    fn new(turn: Option<R>) -> Self {
        Observation { turn, drained: None, violations: Vec::new() }
    }
}

#[derive(Debug, Clone)]
struct Turn<R, S> {
    request: R,
    completed: Option<S>,
    /// `Some(None)`: an error response.
    responded: Option<Option<S>>,
}

/// Correlates a client's prompt turns with their updates, `turn_complete`
/// and response (rules R2 and R4). Without the negotiated `turnComplete`
/// capability a turn is drained by its response alone.
#[derive(Debug, Clone)]
pub struct TurnTracker<R, S> {
    turn_complete: bool,
    sessions: BTreeMap<String, Vec<Turn<R, S>>>,
}

impl<R: Clone + PartialEq, S: Clone + PartialEq> TurnTracker<R, S> {
    /// A tracker; `turn_complete` is whether the agent advertised it.
    pub fn new(turn_complete: bool) -> Self {
        TurnTracker { turn_complete, sessions: BTreeMap::new() }
    }

    fn drained(&self, turn: &Turn<R, S>) -> bool {
        drained(self.turn_complete, turn)
    }

    /// The client sent `session/prompt` with id `request` for `session`.
    pub fn prompt(&mut self, session: &str, request: R) {
        let turn_complete = self.turn_complete;
        let turns = self.sessions.entry(session.to_owned()).or_default();
        turns.retain(|turn| !drained(turn_complete, turn));
        turns.push(Turn { request, completed: None, responded: None });
    }

    /// A `session/update` for `session` arrived.
    pub fn update(&mut self, session: &str, scope: Scope<R, S>) -> Observation<R> {
        let violation = |kind, request: &R| Violation { kind, session: session.to_owned(), request: Some(request.clone()) };
        match scope {
            Scope::Session => Observation::new(None),
            Scope::Turn => {
                let Some(turn) = self.sessions.get(session).and_then(|turns| turns.last()) else { return Observation::new(None) };
                let mut observation = Observation::new(Some(turn.request.clone()));
                if turn.responded.is_some() {
                    observation.violations.push(violation(ViolationKind::UpdateAfterResponse, &turn.request));
                } else if turn.completed.is_some() {
                    observation.violations.push(violation(ViolationKind::UpdateAfterTurnComplete, &turn.request));
                }
                observation
            }
            Scope::Complete { request, stop_reason } => {
                let position = self.sessions.get(session).and_then(|turns| turns.iter().position(|turn| turn.request == request));
                let Some(position) = position else {
                    let mut observation = Observation::new(None);
                    observation.violations.push(violation(ViolationKind::UnknownTurn, &request));
                    return observation;
                };
                let mut observation = Observation::new(Some(request.clone()));
                let turn = &self.sessions[session][position];
                if turn.responded.is_some() {
                    observation.violations.push(violation(ViolationKind::UpdateAfterResponse, &request));
                }
                if turn.completed.is_some() {
                    observation.violations.push(violation(ViolationKind::DuplicateTurnComplete, &request));
                    return observation;
                }
                if matches!(&turn.responded, Some(Some(answered)) if *answered != stop_reason) {
                    observation.violations.push(violation(ViolationKind::StopReasonMismatch, &request));
                }
                let was_drained = self.drained(turn);
                let turns = self.sessions.get_mut(session).expect("the turn was found in this session");
                turns[position].completed = Some(stop_reason);
                if !was_drained && self.drained(&self.sessions[session][position]) {
                    observation.drained = Some(request);
                }
                observation
            }
        }
    }

    /// The response to the prompt `request` arrived: its stop reason, or
    /// `None` for an error response. A request the tracker was not told of
    /// gives an empty observation.
    pub fn response(&mut self, request: &R, stop_reason: Option<S>) -> Observation<R> {
        let found = self.sessions.iter().find_map(|(session, turns)| turns.iter().position(|turn| turn.request == *request).map(|position| (session.clone(), position)));
        let Some((session, position)) = found else { return Observation::new(None) };
        let mut observation = Observation::new(Some(request.clone()));
        let turn = &self.sessions[&session][position];
        if turn.responded.is_some() {
            return observation;
        }
        if let (Some(completed), Some(answered)) = (&turn.completed, &stop_reason) {
            if completed != answered {
                observation.violations.push(Violation { kind: ViolationKind::StopReasonMismatch, session: session.clone(), request: Some(request.clone()) });
            }
        }
        let turns = self.sessions.get_mut(&session).expect("the turn was found in this session");
        turns[position].responded = Some(stop_reason);
        if self.drained(&self.sessions[&session][position]) {
            observation.drained = Some(request.clone());
        }
        observation
    }

    /// The prompt request of `session`'s turn that is not drained yet.
    pub fn pending(&self, session: &str) -> Option<&R> {
        self.sessions.get(session)?.iter().rev().find(|turn| !self.drained(turn)).map(|turn| &turn.request)
    }
}

/// A turn is drained by an error response, or by its response and, when
/// negotiated, its `turn_complete`.
fn drained<R, S>(turn_complete: bool, turn: &Turn<R, S>) -> bool {
    match &turn.responded {
        None => false,
        Some(None) => true,
        Some(Some(_)) => turn.completed.is_some() || !turn_complete,
    }
}

/// What a client should do with a session, from its `session/status`
/// (rule R3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NextStep {
    /// The agent is handling it: prompt.
    Prompt,
    /// The agent is not handling it: `session/load` it first.
    Load,
    /// The agent is not handling it and cannot load sessions: start anew.
    New,
    /// The agent did not advertise `session/status`: nothing to go on.
    NotNegotiated,
}

impl NextStep {
    /// The name every language's helpers give it.
    pub fn as_str(self) -> &'static str {
        match self {
            NextStep::Prompt => "prompt",
            NextStep::Load => "load",
            NextStep::New => "new",
            NextStep::NotNegotiated => "not_negotiated",
        }
    }
}

/// The next step for a session whose status is `live` or not: every value
/// but `live`, unknown ones included, counts as `not_found`.
pub fn next_step(status_negotiated: bool, load_negotiated: bool, live: bool) -> NextStep {
    if !status_negotiated {
        NextStep::NotNegotiated
    } else if live {
        NextStep::Prompt
    } else if load_negotiated {
        NextStep::Load
    } else {
        NextStep::New
    }
}
