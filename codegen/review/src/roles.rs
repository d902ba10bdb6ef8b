//! Which messages carry each type, and in which direction: a type reached
//! from a request's params travels towards the side that handles the
//! request, its result back; a notification's params towards its handler.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::ir::{Ir, Payload, Side, TypeExpr, TypeKind};

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
        for name in reachable(ir, root) {
            for direction in &directions {
                flows.entry(name.clone()).or_default().insert(Flow { direction: *direction, message: message.clone() });
            }
        }
    };
    for method in ir.methods.values() {
        if let Some(request) = &method.request {
            carry(&request.params, format!("{} params", method.name), Direction::towards(request.side));
            carry(&request.result, format!("{} result", method.name), away_from(request.side));
        }
        if let Some(notification) = &method.notification {
            carry(&notification.params, method.name.clone(), Direction::towards(notification.side));
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

/// `root` and every named type its values may contain.
fn reachable(ir: &Ir, root: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut pending = vec![root.to_owned()];
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(definition) = ir.get(&name) else { continue };
        let mut expressions: Vec<&TypeExpr> = Vec::new();
        match &definition.kind {
            TypeKind::Struct(structure) => {
                pending.extend(structure.flatten.iter().cloned());
                expressions.extend(structure.fields.iter().map(|field| &field.ty));
            }
            TypeKind::Alias { target } => expressions.push(target),
            TypeKind::Enum(_) => {}
            TypeKind::Union(union) => {
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Unit => {}
                        Payload::Struct { base, fields } => {
                            pending.extend(base.iter().cloned());
                            expressions.extend(fields.iter().map(|field| &field.ty));
                        }
                        Payload::Type { ty } => expressions.push(ty),
                    }
                }
            }
        }
        for expression in expressions {
            named_in(expression, &mut pending);
        }
    }
    seen
}

fn named_in(expression: &TypeExpr, into: &mut Vec<String>) {
    match expression {
        TypeExpr::Named { name } => into.push(name.clone()),
        TypeExpr::Array(array) => named_in(&array.items, into),
        TypeExpr::Map { values } => named_in(values, into),
        TypeExpr::Nullable { inner } => named_in(inner, into),
        _ => {}
    }
}
