//! Which messages carry each type, and in which direction: a type reached
//! from a message's payload travels the ways the IR's messages
//! ([`acp_ir::messages`]) say that message travels.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use acp_ir::ir::Ir;
use acp_ir::messages::MessageKind;

pub use acp_ir::ir::Direction;

/// One message that carries a type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Flow {
    pub direction: Direction,
    /// `session/prompt params`, `session/prompt result`, `session/update`.
    pub message: String,
}

/// The flows of every type of `ir` that some method carries.
pub fn flows(ir: &Ir) -> BTreeMap<String, BTreeSet<Flow>> {
    let mut flows: BTreeMap<String, BTreeSet<Flow>> = BTreeMap::new();
    let mut carry = |root: &str, message: String, directions: Vec<Direction>| {
        for name in ir.reachable(root) {
            for direction in &directions {
                flows.entry(name.clone()).or_default().insert(Flow {
                    direction: *direction,
                    message: message.clone(),
                });
            }
        }
    };
    for message in ir.messages() {
        let name = match message.kind {
            MessageKind::Request => format!("{} params", message.method),
            MessageKind::Response => format!("{} result", message.method),
            MessageKind::Notification => message.method.to_owned(),
        };
        carry(message.payload, name, message.directions);
    }
    flows
}

/// The directions a method's messages travel in: its params and, for a
/// request, its result.
pub fn method_directions(ir: &Ir, method: &str) -> BTreeSet<Direction> {
    ir.messages()
        .into_iter()
        .filter(|message| message.method == method)
        .flat_map(|message| message.directions)
        .collect()
}
