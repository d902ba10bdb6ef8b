//! Where a type sits in the messages of one schema, and whole messages built
//! around a value put there: the frames a witness is searched in.
//!
//! A [`Slot`] is a path from a method's payload (a request's params or
//! result, a notification's params) down to a named type, through members,
//! merged bases, union variants, array items and map values. [`Slot::message`]
//! fills the path with the schema's own minimal samples and puts the given
//! value at its end, giving the payload and the JSON pointer of the value in
//! it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::{json, Map, Value};

use acp_ir::ir::*;
use acp_ir::messages::{Message, MessageKind};
use acp_schema_source::pointer::escape_token;

use acp_vectors::vectors;

/// One step of a path through values.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// Into the member with this wire name.
    Member(String),
    /// Into a base whose members are merged into the object (same JSON level).
    Merged(String),
    /// Into the variant at this index of a union (same JSON level).
    Variant(usize),
    /// Into the first item of an array.
    Item,
    /// Into the value of one key of a map.
    Entry,
}

/// The key a path through a map takes.
const MAP_KEY: &str = "example.com/key";

/// What part of a method a payload is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Params,
    Result,
    Notification,
}

/// A method's payload: which method, which part, its type and the direction
/// it travels in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carrier {
    pub method: String,
    pub role: Role,
    pub payload: String,
    pub direction: Direction,
}

impl Carrier {
    /// `session/prompt params`, `session/prompt result`, `session/update`.
    pub fn describe(&self) -> String {
        match self.role {
            Role::Params => format!("{} params", self.method),
            Role::Result => format!("{} result", self.method),
            Role::Notification => self.method.clone(),
        }
    }

    /// The payload's type in `ir`, when `ir` has the same method with a
    /// payload in the same role.
    pub fn payload_in(&self, ir: &Ir) -> Option<String> {
        let method = ir.methods.get(&self.method)?;
        match self.role {
            Role::Params => method.request.as_ref().map(|request| request.params.clone()),
            Role::Result => method.request.as_ref().map(|request| request.result.clone()),
            Role::Notification => method
                .notification
                .as_ref()
                .map(|notification| notification.params.clone()),
        }
    }

    /// The whole JSON-RPC message carrying `payload`, and where the payload
    /// sits in it.
    pub fn envelope(&self, payload: Value) -> (Value, &'static str) {
        match self.role {
            Role::Params => (
                json!({"jsonrpc": "2.0", "id": 1, "method": self.method, "params": payload}),
                "/params",
            ),
            Role::Result => (json!({"jsonrpc": "2.0", "id": 1, "result": payload}), "/result"),
            Role::Notification => (
                json!({"jsonrpc": "2.0", "method": self.method, "params": payload}),
                "/params",
            ),
        }
    }
}

/// A path from a carrier's payload to a type.
#[derive(Debug, Clone)]
pub struct Slot {
    pub carrier: Carrier,
    steps: Vec<Step>,
}

/// Every payload of `ir`, in method order, one per way the IR's messages
/// ([`acp_ir::messages`]) travel: a request's params each way beside its
/// result the other way back, then the notification's params.
pub fn carriers(ir: &Ir) -> Vec<Carrier> {
    let mut carriers = Vec::new();
    let carrier = |message: &Message, direction: Direction| Carrier {
        method: message.method.to_owned(),
        role: match message.kind {
            MessageKind::Request => Role::Params,
            MessageKind::Response => Role::Result,
            MessageKind::Notification => Role::Notification,
        },
        payload: message.payload.to_owned(),
        direction,
    };
    for method in ir.methods.values() {
        let messages = acp_ir::messages::of_method(method);
        let request = messages.iter().find(|message| message.kind == MessageKind::Request);
        let response = messages.iter().find(|message| message.kind == MessageKind::Response);
        if let (Some(request), Some(response)) = (request, response) {
            for (there, back) in request.directions.iter().zip(&response.directions) {
                carriers.push(carrier(request, *there));
                carriers.push(carrier(response, *back));
            }
        }
        for notification in messages
            .iter()
            .filter(|message| message.kind == MessageKind::Notification)
        {
            for direction in &notification.directions {
                carriers.push(carrier(notification, *direction));
            }
        }
    }
    carriers
}

/// The shortest paths to every type of `ir` from each payload, at most
/// `per_type` per type, each from a different payload.
pub fn slots(ir: &Ir, per_type: usize) -> BTreeMap<String, Vec<Slot>> {
    let mut found: BTreeMap<String, Vec<Slot>> = BTreeMap::new();
    for carrier in carriers(ir) {
        let mut seen = BTreeSet::new();
        let mut pending = VecDeque::from([(carrier.payload.clone(), Vec::new())]);
        while let Some((name, steps)) = pending.pop_front() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let slots = found.entry(name.clone()).or_default();
            if slots.len() < per_type
                && !slots
                    .iter()
                    .any(|slot| slot.carrier.method == carrier.method && slot.carrier.role == carrier.role)
            {
                slots.push(Slot {
                    carrier: carrier.clone(),
                    steps: steps.clone(),
                });
            }
            let Some(definition) = ir.get(&name) else { continue };
            for (next, more) in children(&definition.kind) {
                let mut path = steps.clone();
                path.extend(more);
                pending.push_back((next, path));
            }
        }
    }
    found
}

/// The named types one step below a type, with the steps that reach them.
fn children(kind: &TypeKind) -> Vec<(String, Vec<Step>)> {
    let mut children = Vec::new();
    let fields = |fields: &[Field], prefix: Vec<Step>, into: &mut Vec<(String, Vec<Step>)>| {
        for field in fields {
            let mut steps = prefix.clone();
            steps.push(Step::Member(field.wire_name.clone()));
            named(&field.ty, steps, into);
        }
    };
    match kind {
        TypeKind::Struct(structure) => {
            children.extend(
                structure
                    .flatten
                    .iter()
                    .map(|base| (base.clone(), vec![Step::Merged(base.clone())])),
            );
            fields(&structure.fields, Vec::new(), &mut children);
        }
        TypeKind::Alias { target } => named(target, Vec::new(), &mut children),
        TypeKind::Enum(_) => {}
        TypeKind::Union(union) => {
            for (index, variant) in union.variants.iter().enumerate() {
                match &variant.payload {
                    Payload::Unit => {}
                    Payload::Type { ty } => named(ty, vec![Step::Variant(index)], &mut children),
                    Payload::Struct { base, fields: members } => {
                        if let Some(base) = base {
                            children.push((base.clone(), vec![Step::Variant(index), Step::Merged(base.clone())]));
                        }
                        fields(members, vec![Step::Variant(index)], &mut children);
                    }
                }
            }
        }
    }
    children
}

fn named(expression: &TypeExpr, steps: Vec<Step>, into: &mut Vec<(String, Vec<Step>)>) {
    let deeper = |step: Step| {
        let mut steps = steps.clone();
        steps.push(step);
        steps
    };
    match expression {
        TypeExpr::Named { name } => into.push((name.clone(), steps)),
        TypeExpr::Array(array) => named(&array.items, deeper(Step::Item), into),
        TypeExpr::Map { values } => named(values, deeper(Step::Entry), into),
        TypeExpr::Nullable { inner } => named(inner, steps, into),
        _ => {}
    }
}

impl Slot {
    /// The payload with `value` at the end of the path, and the pointer of
    /// `value` in the payload; `None` where the schema gives no sample.
    pub fn message(&self, ir: &Ir, value: Value) -> Option<(Value, String)> {
        let payload = fill_named(ir, &self.carrier.payload, &self.steps, value)?;
        let pointer = self
            .steps
            .iter()
            .filter_map(|step| match step {
                Step::Member(name) => Some(format!("/{}", escape_token(name))),
                Step::Item => Some("/0".to_owned()),
                Step::Entry => Some(format!("/{}", escape_token(MAP_KEY))),
                Step::Merged(_) | Step::Variant(_) => None,
            })
            .collect();
        Some((payload, pointer))
    }
}

fn fill_named(ir: &Ir, name: &str, steps: &[Step], value: Value) -> Option<Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(value);
    };
    match (&ir.get(name)?.kind, step) {
        (TypeKind::Alias { target }, _) => fill_expression(ir, target, steps, value),
        (TypeKind::Struct(structure), _) => {
            let mut object = vectors::sample(ir, &TypeExpr::Named { name: name.to_owned() }, false)?
                .as_object()?
                .clone();
            fill_object(ir, &mut object, &structure.fields, step, rest, value)?;
            Some(Value::Object(object))
        }
        (TypeKind::Union(union), Step::Variant(index)) => {
            let variant = union.variants.get(*index)?;
            match &variant.payload {
                Payload::Type { ty } => fill_expression(ir, ty, rest, value),
                Payload::Unit => None,
                Payload::Struct { fields, .. } => {
                    let mut object = vectors::sample_variant(ir, union, variant, false)?.as_object()?.clone();
                    let (step, rest) = rest.split_first()?;
                    fill_object(ir, &mut object, fields, step, rest, value)?;
                    Some(Value::Object(object))
                }
            }
        }
        _ => None,
    }
}

/// Puts what the path below `step` gives into `object`: a member's value, or
/// a merged base's members in place of the sample's.
fn fill_object(
    ir: &Ir,
    object: &mut Map<String, Value>,
    fields: &[Field],
    step: &Step,
    rest: &[Step],
    value: Value,
) -> Option<()> {
    match step {
        Step::Member(wire_name) => {
            let field = fields.iter().find(|field| &field.wire_name == wire_name)?;
            object.insert(wire_name.clone(), fill_expression(ir, &field.ty, rest, value)?);
        }
        Step::Merged(base) => {
            let sample = vectors::sample(ir, &TypeExpr::Named { name: base.clone() }, false)?;
            for member in sample.as_object()?.keys().cloned().chain(member_names(ir, base)) {
                object.remove(&member);
            }
            object.extend(fill_named(ir, base, rest, value)?.as_object()?.clone());
        }
        _ => return None,
    }
    Some(())
}

/// The wire names a struct declares, its merged bases' included.
fn member_names(ir: &Ir, name: &str) -> Vec<String> {
    let Some(TypeKind::Struct(structure)) = ir.get(name).map(|definition| &definition.kind) else {
        return Vec::new();
    };
    let mut members: Vec<String> = structure.fields.iter().map(|field| field.wire_name.clone()).collect();
    for base in &structure.flatten {
        members.extend(member_names(ir, base));
    }
    members
}

fn fill_expression(ir: &Ir, expression: &TypeExpr, steps: &[Step], value: Value) -> Option<Value> {
    if steps.is_empty() {
        return Some(value);
    }
    match (expression, steps.first()) {
        (TypeExpr::Named { name }, _) => fill_named(ir, name, steps, value),
        (TypeExpr::Nullable { inner }, _) => fill_expression(ir, inner, steps, value),
        (TypeExpr::Array(array), Some(Step::Item)) => {
            let mut items = vec![fill_expression(ir, &array.items, &steps[1..], value)?];
            for _ in 1..array.min_items.unwrap_or(1).max(1) {
                items.push(vectors::sample(ir, &array.items, false)?);
            }
            Some(Value::Array(items))
        }
        (TypeExpr::Map { values }, Some(Step::Entry)) => {
            Some(json!({ MAP_KEY: fill_expression(ir, values, &steps[1..], value)? }))
        }
        _ => None,
    }
}
