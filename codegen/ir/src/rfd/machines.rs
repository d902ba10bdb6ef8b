//! The RFD helpers' state machines, for rules R1, R2, R3 and R4 of the
//! extended schema: the session-ready gate (agent side), the turn tracker
//! and the session-status advice (client side).
//!
//! The turn tracker follows both prompt lifecycles. In protocol v1 the
//! `session/prompt` response ends its turn (R4: every update of the turn
//! comes before it) and, with the turn-complete RFD, `turn_complete` is the
//! turn's last update (R2). In protocol v2 the response only acknowledges
//! the prompt; `state_update` snapshots report foreground work (`running`,
//! `requires_action`, unknown states) and its end (`idle`). The schema
//! requires the agent to send a cancelled turn's updates "before the idle
//! `state_update`" and to report `running` when foreground work starts, so
//! the agent's own message or thought arriving after a turn's `idle` and
//! before the next non-idle state breaks R2 as v2 words it. Tool calls,
//! terminals and plans may belong to background work, which goes on while
//! the session is idle: they are never judged.
//!
//! They are pure: no I/O and no clock. The caller passes the time in (any
//! monotonic count, such as milliseconds) and sends what they return.
//! This file uses `std` only: it is compiled into `acp-ir`, where
//! `cargo xtask check-trace` runs it on captured traffic, and copied as it
//! is into every generated Rust crate, where typed wrappers feed it decoded
//! messages, and the client's end of a connection feeds its turn tracker
//! the wire JSON it reads (request ids and stop reasons as JSON values).
//! The TypeScript, Python and Go helpers implement the same machines;
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
        SessionReadyGate {
            required,
            waiting: BTreeMap::new(),
            ready: BTreeSet::new(),
        }
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
        self.waiting.entry(session.to_owned()).or_insert_with(|| Waiting {
            since: now,
            held: Vec::new(),
        });
    }

    /// A session-scoped notification the agent wants to send at `now`:
    /// what may be sent now (the item, or nothing while it is held).
    pub fn send(&mut self, session: &str, item: T, now: u64) -> Vec<T> {
        if !self.required || self.ready.contains(session) {
            return vec![item];
        }
        self.waiting
            .entry(session.to_owned())
            .or_insert_with(|| Waiting {
                since: now,
                held: Vec::new(),
            })
            .held
            .push(item);
        Vec::new()
    }

    /// `session/ready` arrived for `session`: what was held, in order.
    pub fn ready(&mut self, session: &str) -> Vec<T> {
        if !self.required {
            return Vec::new();
        }
        self.ready.insert(session.to_owned());
        self.waiting
            .remove(session)
            .map_or_else(Vec::new, |waiting| waiting.held)
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
        self.waiting
            .remove(session)
            .map_or_else(Vec::new, |waiting| waiting.held)
    }

    /// How many items `session` holds.
    pub fn held(&self, session: &str) -> usize {
        self.waiting.get(session).map_or(0, |waiting| waiting.held.len())
    }
}

/// What a `session/update` is to the turn tracker.
#[derive(Debug, Clone, PartialEq)]
pub enum Scope<R, S> {
    /// Part of a prompt turn's output that may also come from background
    /// work (tool calls, plans, the user's message).
    Turn,
    /// The agent's own message or thought (chunks or whole): in v1 turn
    /// output like any other; in v2 foreground work by definition.
    Reply,
    /// About the session, not a turn (commands, modes, usage, unknown
    /// updates).
    Session,
    /// The `turn_complete` update of the turn `request`.
    Complete { request: R, stop_reason: S },
    /// Protocol v2: a `state_update`, `idle` or not (`running`,
    /// `requires_action` and unknown states, which never count as idle).
    State { idle: bool },
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
    /// R2 (v2): the agent's message or thought arrived after the `idle`
    /// that ended its turn, before any new foreground work.
    UpdateAfterIdle,
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
            ViolationKind::UpdateAfterIdle => "update_after_idle",
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
    /// its `turn_complete` both seen; in v2 its response and its `idle`).
    /// An `idle` may end several turns of a session: the latest is named.
    pub drained: Option<R>,
    pub violations: Vec<Violation<R>>,
}

impl<R> Observation<R> {
    fn new(turn: Option<R>) -> Self {
        Observation {
            turn,
            drained: None,
            violations: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct Turn<R, S> {
    request: R,
    completed: Option<S>,
    /// `Some(None)`: an error response.
    responded: Option<Option<S>>,
    /// v2: a non-idle state of the session came after the prompt.
    working: bool,
    /// v2: the `idle` that ended the turn came.
    idled: bool,
}

/// What ends a prompt turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// v1 without `turn_complete`: the response.
    Response,
    /// v1 with the negotiated `turn_complete`: it and the response.
    TurnComplete,
    /// v2: the response and an `idle` state after the turn's own non-idle
    /// state, or after the response (an `idle` read before both may be a
    /// snapshot of the work before the prompt).
    Idle,
}

/// Correlates a client's prompt turns with their updates, their end
/// (`turn_complete` or, in v2, `idle`) and response (rules R2 and R4).
/// Without the negotiated `turnComplete` capability a v1 turn is drained
/// by its response alone.
#[derive(Debug, Clone)]
pub struct TurnTracker<R, S> {
    end: End,
    sessions: BTreeMap<String, Vec<Turn<R, S>>>,
    /// v2: the sessions whose last state was not `idle`.
    working: BTreeSet<String>,
}

impl<R: Clone + PartialEq, S: Clone + PartialEq> TurnTracker<R, S> {
    /// A protocol v1 tracker; `turn_complete` is whether the agent
    /// advertised it.
    pub fn new(turn_complete: bool) -> Self {
        TurnTracker::ending(if turn_complete {
            End::TurnComplete
        } else {
            End::Response
        })
    }

    /// A protocol v2 tracker: `idle` state updates end turns, and a
    /// response's stop reason is only whether the prompt was accepted
    /// (`Some`) or refused (`None`).
    pub fn lifecycle() -> Self {
        TurnTracker::ending(End::Idle)
    }

    fn ending(end: End) -> Self {
        TurnTracker {
            end,
            sessions: BTreeMap::new(),
            working: BTreeSet::new(),
        }
    }

    /// A protocol v1 tracker made before its `initialize` exchange learns
    /// whether the agent advertised `turn_complete`: from now on turns end
    /// as [`TurnTracker::new`] with it would. A v2 tracker stays as it is.
    pub fn negotiated(&mut self, turn_complete: bool) {
        if self.end != End::Idle {
            self.end = if turn_complete {
                End::TurnComplete
            } else {
                End::Response
            };
        }
    }

    fn drained(&self, turn: &Turn<R, S>) -> bool {
        drained(self.end, turn)
    }

    /// The client sent `session/prompt` with id `request` for `session`.
    pub fn prompt(&mut self, session: &str, request: R) {
        let end = self.end;
        let turns = self.sessions.entry(session.to_owned()).or_default();
        turns.retain(|turn| !drained(end, turn));
        turns.push(Turn {
            request,
            completed: None,
            responded: None,
            working: false,
            idled: false,
        });
    }

    /// A `session/update` for `session` arrived.
    pub fn update(&mut self, session: &str, scope: Scope<R, S>) -> Observation<R> {
        let violation = |kind, request: &R| Violation {
            kind,
            session: session.to_owned(),
            request: Some(request.clone()),
        };
        match scope {
            Scope::Session => Observation::new(None),
            Scope::State { idle } if self.end == End::Idle => self.state(session, idle),
            Scope::State { .. } => Observation::new(None),
            Scope::Turn | Scope::Reply if self.end == End::Idle => {
                let Some(turn) = self.sessions.get(session).and_then(|turns| turns.last()) else {
                    return Observation::new(None);
                };
                if !turn.idled {
                    return Observation::new(Some(turn.request.clone()));
                }
                // After the turn's `idle`: new foreground work the agent
                // reported is no prompt's; the agent's reply without it
                // still belongs to the ended turn.
                let mut observation = Observation::new(None);
                if matches!(scope, Scope::Reply) && !self.working.contains(session) {
                    observation.turn = Some(turn.request.clone());
                    observation
                        .violations
                        .push(violation(ViolationKind::UpdateAfterIdle, &turn.request));
                }
                observation
            }
            Scope::Turn | Scope::Reply => {
                let Some(turn) = self.sessions.get(session).and_then(|turns| turns.last()) else {
                    return Observation::new(None);
                };
                let mut observation = Observation::new(Some(turn.request.clone()));
                if turn.responded.is_some() {
                    observation
                        .violations
                        .push(violation(ViolationKind::UpdateAfterResponse, &turn.request));
                } else if turn.completed.is_some() {
                    observation
                        .violations
                        .push(violation(ViolationKind::UpdateAfterTurnComplete, &turn.request));
                }
                observation
            }
            Scope::Complete { request, stop_reason } => {
                let position = self
                    .sessions
                    .get(session)
                    .and_then(|turns| turns.iter().position(|turn| turn.request == request));
                let Some(position) = position else {
                    let mut observation = Observation::new(None);
                    observation
                        .violations
                        .push(violation(ViolationKind::UnknownTurn, &request));
                    return observation;
                };
                let mut observation = Observation::new(Some(request.clone()));
                let turn = &self.sessions[session][position];
                if turn.responded.is_some() {
                    observation
                        .violations
                        .push(violation(ViolationKind::UpdateAfterResponse, &request));
                }
                if turn.completed.is_some() {
                    observation
                        .violations
                        .push(violation(ViolationKind::DuplicateTurnComplete, &request));
                    return observation;
                }
                if matches!(&turn.responded, Some(Some(answered)) if *answered != stop_reason) {
                    observation
                        .violations
                        .push(violation(ViolationKind::StopReasonMismatch, &request));
                }
                let was_drained = self.drained(turn);
                let turns = self
                    .sessions
                    .get_mut(session)
                    .expect("the turn was found in this session");
                turns[position].completed = Some(stop_reason);
                if !was_drained && self.drained(&self.sessions[session][position]) {
                    observation.drained = Some(request);
                }
                observation
            }
        }
    }

    /// v2: a state snapshot of `session`. A non-idle state marks the open
    /// turns as working; `idle` ends those that worked or were answered.
    fn state(&mut self, session: &str, idle: bool) -> Observation<R> {
        if idle {
            self.working.remove(session);
        } else {
            self.working.insert(session.to_owned());
        }
        let end = self.end;
        let mut observation = Observation::new(None);
        for turn in self
            .sessions
            .get_mut(session)
            .into_iter()
            .flatten()
            .filter(|turn| !turn.idled)
        {
            if !idle {
                turn.working = true;
                observation.turn = Some(turn.request.clone());
            } else if turn.working || turn.responded.is_some() {
                let was_drained = drained(end, turn);
                turn.idled = true;
                observation.turn = Some(turn.request.clone());
                if !was_drained && drained(end, turn) {
                    observation.drained = Some(turn.request.clone());
                }
            }
        }
        observation
    }

    /// The response to the prompt `request` arrived: its stop reason (in
    /// v2 any `Some` for an accepted prompt), or `None` for an error
    /// response. A request the tracker was not told of gives an empty
    /// observation.
    pub fn response(&mut self, request: &R, stop_reason: Option<S>) -> Observation<R> {
        let found = self.sessions.iter().find_map(|(session, turns)| {
            turns
                .iter()
                .position(|turn| turn.request == *request)
                .map(|position| (session.clone(), position))
        });
        let Some((session, position)) = found else {
            return Observation::new(None);
        };
        let mut observation = Observation::new(Some(request.clone()));
        let turn = &self.sessions[&session][position];
        if turn.responded.is_some() {
            return observation;
        }
        if let (Some(completed), Some(answered)) = (&turn.completed, &stop_reason) {
            if completed != answered {
                observation.violations.push(Violation {
                    kind: ViolationKind::StopReasonMismatch,
                    session: session.clone(),
                    request: Some(request.clone()),
                });
            }
        }
        let turns = self
            .sessions
            .get_mut(&session)
            .expect("the turn was found in this session");
        turns[position].responded = Some(stop_reason);
        if self.drained(&self.sessions[&session][position]) {
            observation.drained = Some(request.clone());
        }
        observation
    }

    /// The prompt request of `session`'s turn that is not drained yet.
    pub fn pending(&self, session: &str) -> Option<&R> {
        self.sessions
            .get(session)?
            .iter()
            .rev()
            .find(|turn| !self.drained(turn))
            .map(|turn| &turn.request)
    }

    /// Whether the turn of the prompt `request` is drained (or unknown).
    pub fn is_drained(&self, request: &R) -> bool {
        self.sessions
            .values()
            .flatten()
            .find(|turn| turn.request == *request)
            .is_none_or(|turn| self.drained(turn))
    }
}

/// A turn is drained by an error response, or by its response and its
/// end: nothing more (v1 without `turn_complete`), its `turn_complete`, or
/// its `idle` (v2).
fn drained<R, S>(end: End, turn: &Turn<R, S>) -> bool {
    match &turn.responded {
        None => false,
        Some(None) => true,
        Some(Some(_)) => match end {
            End::Response => true,
            End::TurnComplete => turn.completed.is_some(),
            End::Idle => turn.idled,
        },
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
