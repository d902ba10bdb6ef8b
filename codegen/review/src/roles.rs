//! Which messages carry each type, and in which direction: a type reached
//! from a request's params travels towards the side that handles the
//! request, its result back; a notification's params towards its handler.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::ir::{Ir, Side};

pub use crate::ir::Direction;

/// One message that carries a type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Flow {
    pub direction: Direction,
    /// `session/prompt params`, `session/prompt result`, `session/update`.
    pub message: String,
}

fn away_from(side: Side) -> Vec<Direction> {
    Direction::towards(side).into_iter().map(Direction::reverse).collect()
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
    for method in ir.methods.values() {
        if let Some(request) = &method.request {
            carry(
                &request.params,
                format!("{} params", method.name),
                Direction::towards(request.side),
            );
            carry(
                &request.result,
                format!("{} result", method.name),
                away_from(request.side),
            );
        }
        if let Some(notification) = &method.notification {
            carry(
                &notification.params,
                method.name.clone(),
                Direction::towards(notification.side),
            );
        }
    }
    flows
}

/// The directions a method's messages travel in: its params and, for a
/// request, its result.
pub fn method_directions(ir: &Ir, method: &str) -> BTreeSet<Direction> {
    let mut directions = BTreeSet::new();
    if let Some(method) = ir.methods.get(method) {
        if let Some(request) = &method.request {
            directions.extend(Direction::towards(request.side));
            directions.extend(away_from(request.side));
        }
        if let Some(notification) = &method.notification {
            directions.extend(Direction::towards(notification.side));
        }
    }
    directions
}
