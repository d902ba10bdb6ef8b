//! RFD helpers: what the IR says about prompt turns and session status,
//! as the model every emitter prints typed wrappers from, and the state
//! machines themselves ([`machines`], plain Rust that the Rust emitter
//! copies into each crate and `cargo xtask check-trace` runs).
//!
//! The model decides, once for every language: which `session/update`
//! variants are a prompt turn's output ([`TURN_OUTPUT`]), where a
//! notification's session id, update and the `turn_complete` members sit,
//! which `SessionStatus` value means `live`, and, for the connections'
//! handling of `session/ready`, which responses open a session and which
//! notifications are session-scoped.

pub mod machines;

/// The machines' source, the same text this crate compiles: the Rust
/// emitter prints it into every generated crate.
pub const MACHINES_SOURCE: &str = include_str!("helpers/machines.rs");

use serde::Serialize;
use serde_json::Value;

use machines::Scope;

use crate::ir::{Field, Ir, Payload, Side, TypeExpr, TypeKind, UnionStyle};

/// The `session/update` tags that are a prompt turn's output, as ACP's
/// prompt-turn section describes the agent reporting it (chunks of the
/// messages and thoughts, tool calls and their updates, plans). Every other
/// update (commands, modes, configuration, session info, usage, notices,
/// unknown ones) is about the session and may come at any time.
pub const TURN_OUTPUT: [&str; 8] =
    ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan", "plan_update", "plan_removed"];

/// The `turn_complete` tag (RFD turn-complete).
pub const TURN_COMPLETE: &str = "turn_complete";

/// The `SessionStatus` value that means the agent handles the session
/// (RFD session-status); every other value counts as `not_found`.
pub const LIVE: &str = "live";

/// A member of an object: its code name (as in [`Field::name`]) and wire
/// name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Member {
    pub name: String,
    pub wire: String,
}

impl Member {
    fn of(field: &Field) -> Self {
        Member { name: field.name.clone(), wire: field.wire_name.clone() }
    }
}

/// A variant of the update union: canonical name and tag.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UpdateVariant {
    pub name: String,
    pub tag: String,
}

/// The `turn_complete` variant and its members.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Complete {
    pub variant: UpdateVariant,
    /// Its payload type, when the variant's members come from one.
    pub payload: Option<String>,
    pub request: Member,
    pub stop_reason: Member,
}

/// The prompt turn's notification stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Turns {
    /// The canonical type of `session/update` params.
    pub notification: String,
    pub session: Member,
    pub update: Member,
    /// The update union and its tag member.
    pub union: String,
    pub tag_property: String,
    /// The union's variants that are turn output, in schema order.
    pub output: Vec<UpdateVariant>,
    /// Absent without the turn-complete RFD.
    pub complete: Option<Complete>,
    /// Canonical names of the JSON-RPC request id type and of the type of
    /// the `session/prompt` result's `stopReason`.
    pub request_type: String,
    pub stop_reason_type: String,
}

/// `session/status` and its open enum.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    /// The canonical enum type.
    pub type_name: String,
    /// The canonical name of its `live` value.
    pub live: String,
}

/// A method and the wire name of its session id member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionMember {
    pub method: String,
    /// The member is in the result rather than the params.
    pub in_result: bool,
    pub member: String,
}

/// What the connections need for rule R1 (RFD session-ready).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ready {
    /// `session/ready`, the client's notification, and its session member.
    pub notification: SessionMember,
    /// The requests after whose response the client sends it
    /// ([`OPENERS`]), with where the response's session id is.
    pub openers: Vec<SessionMember>,
    /// The agent's session-scoped notifications: every notification the
    /// client handles whose params require a session id.
    pub scoped: Vec<SessionMember>,
}

/// The requests whose response makes a session the client must confirm
/// with `session/ready` (RFD session-ready).
pub const OPENERS: [&str; 2] = ["session/new", "session/load"];

/// The session id member of every session-scoped message.
const SESSION_ID: &str = "sessionId";

/// What the helpers of one schema can use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Helpers {
    /// Absent where a `session/prompt` response does not end its turn with
    /// a `stopReason` (protocol v2 acknowledges the prompt and the turn's
    /// updates follow), or there is no `session/update` stream.
    pub turns: Option<Turns>,
    pub status: Option<Status>,
    pub ready: Option<Ready>,
}

/// The model for `ir`.
pub fn model(ir: &Ir) -> Helpers {
    Helpers { turns: turns(ir), status: status(ir), ready: ready(ir) }
}

fn has_session(ir: &Ir, type_name: &str) -> bool {
    struct_fields(ir, type_name).iter().any(|field| field.wire_name == SESSION_ID && field.required)
}

fn ready(ir: &Ir) -> Option<Ready> {
    let method = ir.methods.get("session/ready")?;
    method.notification.as_ref().filter(|notification| has_session(ir, &notification.params))?;
    let openers = OPENERS
        .iter()
        .filter_map(|name| {
            let request = ir.methods.get(*name)?.request.as_ref()?;
            let in_result = has_session(ir, &request.result);
            (in_result || has_session(ir, &request.params)).then(|| SessionMember { method: (*name).to_owned(), in_result, member: SESSION_ID.to_owned() })
        })
        .collect();
    let scoped = ir
        .methods
        .values()
        .filter_map(|method| {
            let notification = method.notification.as_ref().filter(|notification| notification.side == Side::Client)?;
            has_session(ir, &notification.params).then(|| SessionMember { method: method.name.clone(), in_result: false, member: SESSION_ID.to_owned() })
        })
        .collect();
    Some(Ready { notification: SessionMember { method: method.name.clone(), in_result: false, member: SESSION_ID.to_owned() }, openers, scoped })
}

fn struct_fields<'a>(ir: &'a Ir, name: &str) -> Vec<&'a Field> {
    let Some(TypeKind::Struct(structure)) = ir.get(name).map(|definition| &definition.kind) else { return Vec::new() };
    let mut fields: Vec<&Field> = structure.fields.iter().collect();
    for base in &structure.flatten {
        fields.extend(struct_fields(ir, base));
    }
    fields
}

fn named(expression: &TypeExpr) -> Option<&str> {
    match expression {
        TypeExpr::Named { name } => Some(name),
        _ => None,
    }
}

/// The JSON-RPC request id type of every ACP schema.
const REQUEST_ID: &str = "RequestId";

fn turns(ir: &Ir) -> Option<Turns> {
    let prompt = ir.methods.get("session/prompt")?.request.as_ref()?;
    let stop_reason_type = struct_fields(ir, &prompt.result).into_iter().find(|field| field.wire_name == "stopReason").and_then(|field| named(&field.ty))?.to_owned();
    ir.get(REQUEST_ID)?;
    let notification = ir.methods.get("session/update")?.notification.as_ref()?.params.clone();
    let fields = struct_fields(ir, &notification);
    let session = fields.iter().find(|field| field.wire_name == SESSION_ID && field.required)?;
    let (update, union_name, union) = fields.iter().filter(|field| field.required).find_map(|field| {
        let name = named(&field.ty)?;
        match &ir.get(name)?.kind {
            TypeKind::Union(union) if matches!(union.style, UnionStyle::Tagged { .. }) => Some((*field, name.to_owned(), union)),
            _ => None,
        }
    })?;
    let UnionStyle::Tagged { property } = &union.style else { return None };
    let variant = |variant: &crate::ir::Variant| variant.tag.as_ref().map(|tag| UpdateVariant { name: variant.name.clone(), tag: tag.clone() });
    let output = union.variants.iter().filter(|candidate| candidate.tag.as_deref().is_some_and(|tag| TURN_OUTPUT.contains(&tag))).filter_map(variant).collect();
    let complete = union.variants.iter().find(|candidate| candidate.tag.as_deref() == Some(TURN_COMPLETE)).and_then(|found| {
        let Payload::Struct { base, fields } = &found.payload else { return None };
        let mut members: Vec<&Field> = fields.iter().collect();
        if let Some(base) = base {
            members.extend(struct_fields(ir, base));
        }
        let request = members.iter().find(|field| field.wire_name == "promptRequestId" && field.required && named(&field.ty) == Some(REQUEST_ID))?;
        let stop_reason = members.iter().find(|field| field.wire_name == "stopReason" && field.required && named(&field.ty) == Some(stop_reason_type.as_str()))?;
        Some(Complete { variant: variant(found)?, payload: base.clone(), request: Member::of(request), stop_reason: Member::of(stop_reason) })
    });
    Some(Turns {
        notification,
        session: Member::of(session),
        update: Member::of(update),
        union: union_name,
        tag_property: property.clone(),
        output,
        complete,
        request_type: REQUEST_ID.to_owned(),
        stop_reason_type,
    })
}

fn status(ir: &Ir) -> Option<Status> {
    let result = &ir.methods.get("session/status")?.request.as_ref()?.result;
    let field = struct_fields(ir, result).into_iter().find(|field| field.wire_name == "status" && field.required)?;
    let type_name = named(&field.ty)?;
    let TypeKind::Enum(enumeration) = &ir.get(type_name)?.kind else { return None };
    enumeration.other.as_ref()?;
    let live = enumeration.values.iter().find(|value| value.value == LIVE)?;
    Some(Status { type_name: type_name.to_owned(), live: live.name.clone() })
}

impl Turns {
    /// The session and scope of a `session/update` notification's params
    /// as JSON (what `cargo xtask check-trace` reads); `None` when they lack
    /// the session id or the update tag. Request ids compare as JSON values,
    /// so `2` and `"2"` are different requests.
    pub fn scope_of(&self, params: &Value) -> Option<(String, Scope<Value, Value>)> {
        let session = params.get(&self.session.wire)?.as_str()?.to_owned();
        let update = params.get(&self.update.wire)?;
        let tag = update.get(&self.tag_property)?.as_str()?;
        let scope = match &self.complete {
            Some(complete) if complete.variant.tag == tag => Scope::Complete {
                request: update.get(&complete.request.wire)?.clone(),
                stop_reason: update.get(&complete.stop_reason.wire)?.clone(),
            },
            _ if self.output.iter().any(|variant| variant.tag == tag) => Scope::Turn,
            _ => Scope::Session,
        };
        Some((session, scope))
    }
}
