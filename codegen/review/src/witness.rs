//! Witnesses: a change is breaking for a reader only when a concrete message
//! shows it. A witness is a whole JSON-RPC message that the writer's schema
//! accepts, sent in a direction that message travels, that the reader's
//! schema rejects; both are decided by the `jsonschema` crate on the raw
//! schema documents, not by the IR. A method the reader lacks, handles on
//! the other side or knows as another kind is read from its method table.
//!
//! Candidates come from the structural rules ([`super::diff`]); messages
//! come from the writer's own samples and vectors of the changed type, put
//! at each place a payload carries it ([`super::slots`]), and, for a member,
//! from a search of that member alone: removed, or set to every kind of JSON
//! value and to the vectors of its type. A message only counts when the
//! reader accepts the same message with a value of its own there (the
//! control): the rejection is then caused by the changed place and nothing
//! else.
//!
//! A message that uses a variant or member the writer's schema gates, at
//! one of the gate's sites, where the reader's schema has no such gate,
//! is no witness: the writer sends it only once the gate holds, and a
//! reader that never knew the gate never makes it hold (the reasoning
//! behind `VARIANT_ADDED_GATED`, for changes the structural rules see as a
//! type changing around the gated variant).

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Value};

use super::diff::{Change, Subject};
use super::roles::Direction;
use super::rules::Rule;
use super::slots::{self, Carrier, Role, Slot};
use acp_ir::ir::*;
use acp_ir::messages::MessageKind;
use acp_vectors::validate::Oracle;
use acp_vectors::vectors;

/// A schema as the review sees it: the raw document and its IR.
#[derive(Debug, Clone, Copy)]
pub struct Schema<'a> {
    pub document: &'a Value,
    pub ir: &'a Ir,
}

/// Which peers a witness breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Reader {
    /// Peers built on the base, reading what peers built on the head send.
    Old,
    /// Peers built on the head, reading what peers built on the base send.
    New,
}

impl Reader {
    pub fn as_str(self) -> &'static str {
        match self {
            Reader::Old => "old",
            Reader::New => "new",
        }
    }
}

/// A message that proves a change breaking for one reader.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Witness {
    pub reader: Reader,
    pub direction: Direction,
    /// `session/prompt params`.
    pub carried_by: String,
    /// The whole JSON-RPC message.
    pub message: Value,
    /// Where in the message the reader's schema rejects it.
    pub pointer: String,
    /// What the reader's validator says.
    pub error: String,
    /// Which candidate found it (`vector variant_text`, `member removed`).
    pub found_by: String,
    /// The schema node the writer's payload is checked against (a pointer
    /// into the writer's document).
    pub writer_schema: String,
    /// The reader's node, or none when its method table refuses the
    /// message first.
    pub reader_schema: Option<String>,
}

/// How many places, controls and values one search tries at most.
const SLOTS: usize = 3;
const CONTROLS: usize = 6;
const VALUES: usize = 24;

/// Every kind of JSON value, and integers past each common format's range.
fn kinds() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
        json!(4_294_967_296_u64),
        json!(18_446_744_073_709_551_615_u64),
    ]
}

/// One schema of the two, ready to judge messages.
struct Party<'a> {
    ir: &'a Ir,
    oracle: Oracle,
    slots: BTreeMap<String, Vec<Slot>>,
    vectors: RefCell<BTreeMap<String, Vec<(String, Value)>>>,
}

impl<'a> Party<'a> {
    fn new(schema: Schema<'a>) -> Result<Party<'a>, String> {
        let payloads: Vec<String> = slots::carriers(schema.ir)
            .into_iter()
            .map(|carrier| carrier.payload)
            .collect();
        let names: Vec<&String> = payloads.iter().collect();
        let (oracle, _) = Oracle::new(schema.document, schema.ir, &names)?;
        Ok(Party {
            ir: schema.ir,
            oracle,
            slots: slots::slots(schema.ir, SLOTS),
            vectors: RefCell::new(BTreeMap::new()),
        })
    }

    /// Why this schema refuses `payload` as a `type_name`, told at the
    /// deepest place; `None` when it accepts it.
    fn rejection(&self, type_name: &str, payload: &Value) -> Option<(String, String)> {
        self.oracle.rejection(type_name, payload)
    }

    fn accepts(&self, type_name: &str, payload: &Value) -> bool {
        self.oracle.is_valid(type_name, payload)
    }

    /// The valid vectors of a type, made once.
    fn valid(&self, name: &str) -> Vec<(String, Value)> {
        if let Some(known) = self.vectors.borrow().get(name) {
            return known.clone();
        }
        let values: Vec<(String, Value)> = match self.ir.get(name) {
            Some(definition) => vectors::of_type(self.ir, definition)
                .valid
                .into_iter()
                .map(|vector| (format!("vector {}", vector.name), vector.value))
                .collect(),
            None => Vec::new(),
        };
        self.vectors.borrow_mut().insert(name.to_owned(), values.clone());
        values
    }

    /// Values of `name`, of one variant when `variant` is given.
    fn values(&self, name: &str, variant: Option<&str>) -> Vec<(String, Value)> {
        let union = match self.ir.get(name).map(|definition| &definition.kind) {
            Some(TypeKind::Union(union)) => Some(union),
            _ => None,
        };
        match (variant, union) {
            (Some(label), Some(union)) => {
                let Some(variant) = union.variants.iter().find(|variant| variant.label() == label) else {
                    return Vec::new();
                };
                [false, true]
                    .into_iter()
                    .filter_map(|full| {
                        vectors::sample_variant(self.ir, union, variant, full).map(|value| {
                            (
                                format!("vector variant_{label}{}", if full { "_full" } else { "" }),
                                value,
                            )
                        })
                    })
                    .collect()
            }
            _ => self.valid(name),
        }
    }

    /// The values a member may take here: its type's vectors and samples.
    fn member_values(&self, field: &Field) -> Vec<(String, Value)> {
        let mut values = Vec::new();
        match &field.ty {
            TypeExpr::Named { name } => values.extend(self.valid(name)),
            TypeExpr::Array(array) => {
                if let TypeExpr::Named { name } = array.items.as_ref() {
                    values.extend(
                        self.valid(name)
                            .into_iter()
                            .map(|(found_by, value)| (format!("{found_by} as the only item"), json!([value]))),
                    );
                }
            }
            _ => {}
        }
        for full in [false, true] {
            if let Some(value) = vectors::sample(self.ir, &field.ty, full) {
                values.push(("sample".to_owned(), value));
            }
        }
        if field.nullable {
            values.push(("null".to_owned(), Value::Null));
        }
        values.truncate(VALUES);
        values
    }
}

/// Searches witnesses for the changes between two schemas.
pub struct Searcher<'a> {
    base: Party<'a>,
    head: Party<'a>,
}

impl<'a> Searcher<'a> {
    /// A searcher of `base` and `head`; an error when the validator cannot
    /// compile either document.
    pub fn new(base: Schema<'a>, head: Schema<'a>) -> Result<Searcher<'a>, String> {
        Ok(Searcher {
            base: Party::new(base).map_err(|error| format!("the base: {error}"))?,
            head: Party::new(head).map_err(|error| format!("the head: {error}"))?,
        })
    }

    /// A message that shows `change` breaking for `reader`, if one exists.
    pub fn search(&self, change: &Change, reader: Reader) -> Option<Witness> {
        let (writer, read_by) = match reader {
            Reader::Old => (&self.head, &self.base),
            Reader::New => (&self.base, &self.head),
        };
        let witness = match &change.subject {
            Subject::Method { name } => {
                let name = match (change.rule, reader) {
                    (Rule::MethodRenamed, Reader::New) => {
                        change.detail.strip_prefix("renamed from ").unwrap_or(name).to_owned()
                    }
                    _ => name.clone(),
                };
                method_witness(writer, read_by, &name)
            }
            Subject::Type { name, variant, member } => {
                type_witness(writer, read_by, name, variant.as_deref(), member.as_deref())
            }
        };
        witness.map(|found| Witness { reader, ..found })
    }
}

/// Where the writer's and the reader's schemas define a payload.
struct Nodes {
    writer: String,
    reader: Option<String>,
}

impl Nodes {
    fn of(writer: &Party, reader: &Party, carrier: &Carrier, read_as: Option<&str>) -> Nodes {
        let pointer = |ir: &Ir, name: &str| ir.get(name).map(|definition| definition.pointer.clone());
        Nodes {
            writer: pointer(writer.ir, &carrier.payload).unwrap_or_default(),
            reader: read_as.and_then(|name| pointer(reader.ir, name)),
        }
    }
}

/// The message a reader sees: the writer's payload in its envelope, with
/// `pointer` inside the payload (or, without a reader's node, inside the
/// message: its method table refused it).
fn witness(
    carrier: &Carrier,
    payload: Value,
    (pointer, error): (String, String),
    found_by: String,
    nodes: Nodes,
) -> Witness {
    let (message, at) = carrier.envelope(payload);
    let pointer = if nodes.reader.is_none() {
        pointer
    } else {
        format!("{at}{pointer}")
    };
    Witness {
        reader: Reader::Old,
        direction: carrier.direction,
        carried_by: carrier.describe(),
        message,
        pointer,
        error,
        found_by,
        writer_schema: nodes.writer,
        reader_schema: nodes.reader,
    }
}

fn method_witness(writer: &Party, reader: &Party, name: &str) -> Option<Witness> {
    for carrier in slots::carriers(writer.ir)
        .into_iter()
        .filter(|carrier| carrier.method == name)
    {
        let payloads = writer.valid(&carrier.payload);
        for (found_by, payload) in payloads.into_iter().take(VALUES) {
            if !writer.accepts(&carrier.payload, &payload) || gated_away(writer.ir, reader.ir, &carrier, &payload) {
                continue;
            }
            if let Some(rejection) = method_rejection(reader.ir, &carrier) {
                return Some(witness(
                    &carrier,
                    payload,
                    rejection,
                    found_by,
                    Nodes::of(writer, reader, &carrier, None),
                ));
            }
            let Some(read_as) = carrier.payload_in(reader.ir) else {
                continue;
            };
            if let Some(rejection) = reader.rejection(&read_as, &payload) {
                return Some(witness(
                    &carrier,
                    payload,
                    rejection,
                    found_by,
                    Nodes::of(writer, reader, &carrier, Some(&read_as)),
                ));
            }
        }
    }
    None
}

/// Whether `payload`, carried by `carrier`, uses a variant or member that
/// `writer` gates at one of the gate's sites while `reader` has no such
/// gate: a message only a gate the reader never advertises lets through.
fn gated_away(writer: &Ir, reader: &Ir, carrier: &Carrier, payload: &Value) -> bool {
    if !matches!(carrier.role, Role::Params | Role::Notification) {
        return false;
    }
    let variant_used = unknown_gates(&writer.gated_variants, &reader.gated_variants)
        .flat_map(|(_, gate)| &gate.sites)
        .filter(|site| site.method == carrier.method)
        .any(|site| {
            site.variant.as_ref().is_some_and(|tag| {
                values_at(payload, &site.pointer).into_iter().any(|value| {
                    let found = match &tag.property {
                        Some(property) => value.get(property),
                        None => Some(value),
                    };
                    found.and_then(Value::as_str) == Some(tag.value.as_str())
                })
            })
        });
    // A member gate applies to the methods whose params are its type.
    let member_used = unknown_gates(&writer.gated_fields, &reader.gated_fields).any(|(key, _)| {
        key.split_once('/')
            .is_some_and(|(owner, member)| owner == carrier.payload && payload.get(member).is_some())
    });
    variant_used || member_used
}

/// The gates of `gates` that `known` does not have.
fn unknown_gates<'g>(
    gates: &'g BTreeMap<String, Gate>,
    known: &'g BTreeMap<String, Gate>,
) -> impl Iterator<Item = (&'g String, &'g Gate)> {
    gates.iter().filter(|(key, _)| !known.contains_key(*key))
}

/// The values at `pointer` in `value`, a `*` step standing for every item
/// of an array.
fn values_at<'v>(value: &'v Value, pointer: &str) -> Vec<&'v Value> {
    let mut found = vec![value];
    for step in pointer.split('/').skip(1) {
        let step = acp_schema_source::pointer::unescape_token(step);
        found = found
            .into_iter()
            .flat_map(|value| match value {
                Value::Array(items) if step == "*" => items.iter().collect(),
                Value::Array(items) => step
                    .parse()
                    .ok()
                    .and_then(|index: usize| items.get(index))
                    .into_iter()
                    .collect(),
                Value::Object(members) => members.get(&step).into_iter().collect(),
                _ => Vec::new(),
            })
            .collect();
    }
    found
}

/// Why the reader's method table refuses a message before its payload is
/// read: no such method, another kind, or handled by the other side.
fn method_rejection(reader: &Ir, carrier: &Carrier) -> Option<(String, String)> {
    if !reader.methods.contains_key(&carrier.method) {
        return Some((
            "/method".to_owned(),
            format!("the reader's schema has no method `{}`", carrier.method),
        ));
    }
    let kind = match carrier.role {
        Role::Params => MessageKind::Request,
        Role::Result => MessageKind::Response,
        Role::Notification => MessageKind::Notification,
    };
    let Some(message) = reader.message(&carrier.method, kind) else {
        return Some(match kind {
            MessageKind::Request | MessageKind::Response => (
                "/id".to_owned(),
                format!(
                    "`{}` is a notification in the reader's schema: a request is refused",
                    carrier.method
                ),
            ),
            MessageKind::Notification => (
                "/method".to_owned(),
                format!(
                    "`{}` is a request in the reader's schema: a notification is refused",
                    carrier.method
                ),
            ),
        });
    };
    // The side that handles the method: the receiver of its params, the
    // sender of its result.
    let handler = match kind {
        MessageKind::Response => carrier.direction.sender(),
        MessageKind::Request | MessageKind::Notification => carrier.direction.receiver(),
    };
    (!message.travels(carrier.direction)).then(|| {
        (
            "/method".to_owned(),
            format!(
                "the reader's schema has the {} handle `{}`, not the {}",
                message.side.as_str(),
                carrier.method,
                handler
            ),
        )
    })
}

fn type_witness(
    writer: &Party,
    reader: &Party,
    name: &str,
    variant: Option<&str>,
    member: Option<&str>,
) -> Option<Witness> {
    for slot in writer.slots.get(name).into_iter().flatten() {
        let Some(read_as) = slot.carrier.payload_in(reader.ir) else {
            continue;
        };
        let framed = |value: &Value| slot.message(writer.ir, value.clone());
        // A change inside a variant is framed by that variant; a variant of
        // its own by any value the reader takes there.
        let around = if member.is_some() { variant } else { None };
        let mut controls: Vec<Value> = writer
            .values(name, around)
            .into_iter()
            .chain(reader.values(name, around))
            .map(|(_, value)| value)
            .collect();
        if let Some(member) = member {
            // A member the reader requires and the writer lacks: the
            // control carries the reader's value of it.
            if let Some(field) = find_member(reader.ir, name, variant, member) {
                let with_member: Vec<Value> = controls
                    .iter()
                    .filter_map(Value::as_object)
                    .flat_map(|object| {
                        reader
                            .member_values(&field)
                            .into_iter()
                            .map(move |(_, value)| with(object, member, Some(value)))
                    })
                    .collect();
                controls.extend(with_member);
            }
        }
        let controls: Vec<Value> = controls
            .into_iter()
            .filter(|control| framed(control).is_some_and(|(payload, _)| reader.accepts(&read_as, &payload)))
            .take(CONTROLS)
            .collect();
        for control in &controls {
            let candidates: Vec<(String, Value)> = match member {
                None => writer.values(name, variant),
                Some(member) => member_candidates(writer, name, variant, member, control),
            };
            for (found_by, candidate) in candidates {
                let Some((payload, at)) = framed(&candidate) else {
                    continue;
                };
                if !writer.accepts(&slot.carrier.payload, &payload)
                    || gated_away(writer.ir, reader.ir, &slot.carrier, &payload)
                {
                    continue;
                }
                if let Some(rejection) = reader.rejection(&read_as, &payload) {
                    let found_by = format!("{found_by} at {}", if at.is_empty() { "the payload" } else { &at });
                    return Some(witness(
                        &slot.carrier,
                        payload,
                        rejection,
                        found_by,
                        Nodes::of(writer, reader, &slot.carrier, Some(&read_as)),
                    ));
                }
            }
        }
    }
    None
}

/// The control changed at `member` alone: removed, or, where the writer
/// declares it, set to each value its type takes and to every kind of JSON
/// value.
fn member_candidates(
    writer: &Party,
    name: &str,
    variant: Option<&str>,
    member: &str,
    control: &Value,
) -> Vec<(String, Value)> {
    let Some(object) = control.as_object() else {
        return Vec::new();
    };
    let key = if member == "*" { "x_witness_member" } else { member };
    let mut candidates = vec![(format!("`{key}` left out"), with(object, key, None))];
    // A member the writer does not declare is only left out: an extension
    // member of any value would pass an open object, but says nothing.
    let Some(declared) = find_member(writer.ir, name, variant, member).or_else(|| (member == "*").then(any_member))
    else {
        return candidates;
    };
    for (found_by, value) in writer
        .member_values(&declared)
        .into_iter()
        .chain(kinds().into_iter().map(|value| (format!("search: {value}"), value)))
    {
        candidates.push((format!("`{key}` set by {found_by}"), with(object, key, Some(value))));
    }
    candidates
}

/// The members an object keeps beyond those it names (`*`): any JSON.
fn any_member() -> Field {
    Field {
        wire_name: "*".to_owned(),
        name: "other".to_owned(),
        description: None,
        ty: TypeExpr::Any,
        required: false,
        nullable: false,
        default: None,
        decode: DecodeRules::default(),
        fallback: Fallback::Absent,
    }
}

fn with(object: &serde_json::Map<String, Value>, member: &str, value: Option<Value>) -> Value {
    let mut object = object.clone();
    match value {
        Some(value) => object.insert(member.to_owned(), value),
        None => object.remove(member),
    };
    Value::Object(object)
}

/// The member `member` of a type (or of one of its variants), its merged
/// bases searched too.
fn find_member(ir: &Ir, name: &str, variant: Option<&str>, member: &str) -> Option<Field> {
    let in_fields = |fields: &[Field]| fields.iter().find(|field| field.wire_name == member).cloned();
    match (&ir.get(name)?.kind, variant) {
        (TypeKind::Struct(structure), _) => in_fields(&structure.fields).or_else(|| {
            structure
                .flatten
                .iter()
                .find_map(|base| find_member(ir, base, None, member))
        }),
        (
            TypeKind::Alias {
                target: TypeExpr::Named { name },
            },
            _,
        ) => find_member(ir, name, variant, member),
        (TypeKind::Union(union), Some(label)) => {
            let variant = union.variants.iter().find(|variant| variant.label() == label)?;
            match &variant.payload {
                Payload::Struct { base, fields } => {
                    in_fields(fields).or_else(|| base.as_ref().and_then(|base| find_member(ir, base, None, member)))
                }
                Payload::Type {
                    ty: TypeExpr::Named { name },
                } => find_member(ir, name, None, member),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(method: Method) -> Ir {
        Ir {
            methods: [(method.name.clone(), method)].into(),
            ..Ir::default()
        }
    }

    fn carrier(method: &str, role: Role, direction: Direction) -> Carrier {
        Carrier {
            method: method.to_owned(),
            role,
            payload: "Payload".to_owned(),
            direction,
        }
    }

    fn prompt() -> Method {
        Method {
            name: "session/prompt".to_owned(),
            request: Some(RequestMethod {
                side: Side::Agent,
                params: "PromptRequest".to_owned(),
                result: "PromptResponse".to_owned(),
            }),
            notification: None,
            gate: None,
            session_gate: None,
            not_negotiated: None,
            unstable: false,
            acted_on: false,
        }
    }

    #[test]
    fn the_readers_method_table_refuses_what_it_cannot_take() {
        let reader = reader(prompt());
        let refused = |method: &str, role: Role, direction: Direction| {
            method_rejection(&reader, &carrier(method, role, direction))
        };
        assert_eq!(refused("session/prompt", Role::Params, Direction::ClientToAgent), None);
        assert_eq!(refused("session/prompt", Role::Result, Direction::AgentToClient), None);
        assert_eq!(
            refused("session/unknown", Role::Params, Direction::ClientToAgent),
            Some((
                "/method".to_owned(),
                "the reader's schema has no method `session/unknown`".to_owned()
            ))
        );
        assert_eq!(
            refused("session/prompt", Role::Notification, Direction::ClientToAgent),
            Some((
                "/method".to_owned(),
                "`session/prompt` is a request in the reader's schema: a notification is refused".to_owned()
            ))
        );
        assert_eq!(
            refused("session/prompt", Role::Params, Direction::AgentToClient),
            Some((
                "/method".to_owned(),
                "the reader's schema has the agent handle `session/prompt`, not the client".to_owned()
            ))
        );
        let cancel = Method {
            name: "session/cancel".to_owned(),
            request: None,
            notification: Some(NotificationMethod {
                side: Side::Agent,
                params: "CancelNotification".to_owned(),
            }),
            ..prompt()
        };
        let reader = super::tests::reader(cancel);
        assert_eq!(
            method_rejection(
                &reader,
                &carrier("session/cancel", Role::Params, Direction::ClientToAgent)
            ),
            Some((
                "/id".to_owned(),
                "`session/cancel` is a notification in the reader's schema: a request is refused".to_owned()
            ))
        );
    }
}
