//! What the two peers agreed on: the trace's `initialize` exchange read by
//! the negotiation stage ([`acp_ir::negotiation`], the evaluator behind every
//! binding's `negotiate`), whether it has completed (`BEFORE_INIT` is
//! judged from that), and whether the receiving side advertised each
//! method, and each gated part of its params, it is sent
//! (`NOT_ADVERTISED`, from the view's `agentHandles`/`clientHandles` and
//! `check_outgoing`). An exchange that does not negotiate (`NEGOTIATION`)
//! leaves nothing advertised to judge by and the RFD features off.

use serde_json::Value;

use acp_ir::ir::Direction;
use acp_ir::ir::Ir;
use acp_ir::negotiation::{self, Negotiation};

/// The negotiated RFD features the ordering rules depend on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Features {
    pub session_ready: bool,
    pub turn_complete: bool,
}

/// The agreed exchange: the view and the two messages it came from.
struct Agreed {
    view: Value,
    request: Value,
    response: Value,
}

pub(super) struct Peers {
    model: Option<Negotiation>,
    /// The schema's initialize method ([`Ir::initialize`]).
    initialize: Option<String>,
    /// The client's `initialize` params, until the agent answers.
    request: Option<Value>,
    initialized: bool,
    agreed: Option<Agreed>,
}

impl Peers {
    pub(super) fn new(ir: &Ir) -> Peers {
        Peers {
            model: negotiation::model(ir),
            initialize: ir.initialize().map(|method| method.name.clone()),
            request: None,
            initialized: false,
            agreed: None,
        }
    }

    /// Whether `method` is the schema's initialize method.
    pub(super) fn is_initialize(&self, method: &str) -> bool {
        self.initialize.as_deref() == Some(method)
    }

    /// Whether the agent has answered `initialize` with a result.
    pub(super) fn initialized(&self) -> bool {
        self.initialized
    }

    /// A request went `direction`; the client's `initialize` is kept.
    pub(super) fn request(&mut self, direction: Direction, method: &str, params: Option<&Value>) {
        if self.is_initialize(method) && direction == Direction::ClientToAgent {
            self.request = Some(params.cloned().unwrap_or(Value::Null));
        }
    }

    /// A request for `method` was answered with `result` (`None`: an
    /// error). For `initialize`, the negotiated features, or why there are
    /// none.
    pub(super) fn response(&mut self, method: &str, result: Option<&Value>) -> Option<Result<Features, String>> {
        if !self.is_initialize(method) {
            return None;
        }
        let result = result?;
        self.initialized = true;
        let request = self.request.take().unwrap_or(Value::Null);
        let Some(model) = &self.model else {
            return Some(Ok(Features::default()));
        };
        match model.view(&request, result) {
            Ok(view) => {
                let feature = |name: &str| view.get(name).and_then(Value::as_bool).unwrap_or(false);
                let features = Features {
                    session_ready: feature("sessionReady"),
                    turn_complete: feature("turnComplete"),
                };
                self.agreed = Some(Agreed {
                    view,
                    request,
                    response: result.clone(),
                });
                Some(Ok(features))
            }
            Err(error) => Some(Err(format!("the initialize exchange does not negotiate: {error}"))),
        }
    }

    /// Why the receiving side of `direction` did not advertise `method` or
    /// a part of its `params`; `None` when it did, or nothing is known.
    pub(super) fn advertised(&self, direction: Direction, method: &str, params: Option<&Value>) -> Option<String> {
        let (model, agreed) = (self.model.as_ref()?, self.agreed.as_ref()?);
        let handles = match direction {
            Direction::ClientToAgent => "agentHandles",
            Direction::AgentToClient => "clientHandles",
        };
        let handled = agreed.view.get(handles)?.get(method)?.as_bool()?;
        let params = params.unwrap_or(&Value::Null);
        let receiver = direction.receiver();
        match model.check_outgoing(&agreed.request, &agreed.response, method, params) {
            Some(refusal) if refusal.pointer.is_empty() => Some(format!(
                "`{method}` is not allowed: the {} did not advertise `{}`",
                refusal.side.as_str(),
                refusal.capability
            )),
            Some(refusal) => Some(format!(
                "`{method}` params at {} are not allowed: the {} did not advertise `{}`",
                refusal.pointer,
                refusal.side.as_str(),
                refusal.capability
            )),
            None if !handled => Some(format!("the {receiver} did not advertise `{method}`")),
            None => None,
        }
    }
}
