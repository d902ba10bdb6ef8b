//! The RFD helpers (of `session/ready`, `turn_complete` and
//! `session/status`): what the IR says about prompt turns and session
//! status, as the model every emitter prints typed wrappers from, and the state
//! machines themselves ([`machines`], plain Rust that the Rust emitter
//! copies into each crate and `cargo xtask check-trace` runs).
//!
//! The model decides, once for every language: which `session/update`
//! variants are a prompt turn's output ([`TURN_OUTPUT`]) and which of them
//! are the agent's own reply ([`REPLY`]), where a
//! notification's session id, update and the `turn_complete` members sit,
//! which `SessionStatus` value means `live`, how v2's `state_update`
//! reports foreground work and its end ([`Lifecycle`]), and, for the connections'
//! handling of `session/ready`, which responses open a session and which
//! notifications are session-scoped; for their prompts, what ends a turn
//! ([`Drain`]: `turn_complete` in v1 with the RFD, the idle state update in
//! v2), and what cancelling a turn with `session/cancel` asks of each end
//! ([`TurnCancel`]).

pub mod machines;

/// The machines' source, the same text this crate compiles: the Rust
/// emitter prints it into every generated crate.
pub const MACHINES_SOURCE: &str = include_str!("rfd/machines.rs");

use serde::Serialize;
use serde_json::Value;

use machines::Scope;

use crate::ir::{Field, Ir, Payload, Side, TypeExpr, TypeKind, UnionStyle};

/// The `session/update` tags that are a prompt turn's output, as ACP's
/// prompt-turn section describes the agent reporting it (the messages and
/// thoughts, whole or in chunks, tool calls and their updates, plans); the
/// last four are v2's. Every other update (commands, modes, configuration,
/// session info, usage, notices, terminals, unknown ones) is about the
/// session and may come at any time.
pub const TURN_OUTPUT: [&str; 12] = [
    "user_message_chunk",
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "plan_update",
    "plan_removed",
    "user_message",
    "agent_message",
    "agent_thought",
    "tool_call_content_chunk",
];

/// The turn output that is the agent's own reply, its message and thought:
/// foreground work by v2's definition, so never sent while the session is
/// idle (tool calls and plans may belong to background work).
pub const REPLY: [&str; 4] = [
    "agent_message_chunk",
    "agent_message",
    "agent_thought_chunk",
    "agent_thought",
];

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
        Member {
            name: field.name.clone(),
            wire: field.wire_name.clone(),
        }
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

/// Protocol v2's foreground lifecycle: the `state_update` variant of the
/// update union, whose payload is the state union.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lifecycle {
    pub variant: UpdateVariant,
    /// The canonical name of the state union and its tag member.
    pub union: String,
    pub tag_property: String,
    /// The state union's `idle` variant.
    pub idle: UpdateVariant,
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
    /// The union's variants that are turn output, in schema order, and
    /// those of them that are the agent's reply ([`REPLY`]).
    pub output: Vec<UpdateVariant>,
    pub replies: Vec<UpdateVariant>,
    /// Absent without the turn-complete RFD.
    pub complete: Option<Complete>,
    /// Protocol v2's `state_update` (then the response has no stop reason).
    pub lifecycle: Option<Lifecycle>,
    /// Canonical names of the JSON-RPC request id type and of the type of
    /// the `session/prompt` result's `stopReason` (v1; absent in v2).
    pub request_type: String,
    pub stop_reason_type: Option<String>,
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
pub(crate) const SESSION_ID: &str = "sessionId";

/// What the helpers of one schema can use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Helpers {
    /// Absent where there is no `session/update` stream, or neither a
    /// `stopReason` in the `session/prompt` result (v1) nor a
    /// `state_update` lifecycle (v2) ends a turn.
    pub turns: Option<Turns>,
    pub status: Option<Status>,
    pub ready: Option<Ready>,
    /// Absent without `session/prompt` and `session/update`.
    pub drain: Option<Drain>,
    /// Absent without `$/cancel_request`.
    pub cancel: Option<Cancel>,
    /// Absent without `session/cancel`, or a `cancelled` stop reason either
    /// in the `session/prompt` result (v1) or in the `idle` state update
    /// (v2).
    pub turn_cancel: Option<TurnCancel>,
}

/// What `session/cancel` asks of the two ends of a connection: the agent's
/// ends the cancelled turn with the `cancelled` stop reason (whatever its
/// handler did), where [`CancelEnd`] says, and the turn's requests to the
/// client stop waiting; the client's answers the turn's pending permission
/// requests with the `cancelled` outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TurnCancel {
    /// `session/cancel`, the client's notification, and `session/prompt`.
    pub notification: String,
    pub prompt: String,
    /// The session id member of both params and of the requests below.
    pub session: String,
    /// The stop reason member and its `cancelled` value, and the message
    /// that carries them when a cancelled turn ends.
    pub stop_reason: String,
    pub cancelled: String,
    pub end: CancelEnd,
    /// The requests the client handles whose params name a session: those
    /// the agent makes during a turn belong to it.
    pub scoped: Vec<String>,
    /// `session/request_permission`, with the result that answers it
    /// `cancelled`, when the schema has both.
    pub permission: Option<(String, Value)>,
    /// Protocol v2: the states the agent's end reports by itself while the
    /// turn's permission requests wait for the user.
    pub awaiting: Option<Awaiting>,
}

/// While foreground work waits for the user's answer to a permission
/// request, v2's agent reports `requires_action`, and `running` once it
/// resumes: the `state_update` values ([`TurnEnd::Idle`] names the update
/// and its state member) the agent's end sends when the agent did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Awaiting {
    /// `session/request_permission`.
    pub request: String,
    pub requires_action: String,
    pub running: String,
}

/// The `state_update` values of work blocked on the user and of work
/// going on (protocol v2).
pub const REQUIRES_ACTION: &str = "requires_action";
pub const RUNNING: &str = "running";

/// Where a cancelled turn's `cancelled` stop reason goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CancelEnd {
    /// Protocol v1: the prompt's result (then the whole result of a
    /// cancelled prompt); the turn is the prompt's handling.
    Result,
    /// Protocol v2: the `idle` state update that ends the session's
    /// foreground work ([`TurnEnd::Idle`]), which runs from a prompt, or
    /// from a state that is not `idle`, to that update; the prompt's
    /// result only accepts the prompt.
    Idle,
}

impl CancelEnd {
    /// The name the TypeScript and Python rules give it.
    pub fn name(self) -> &'static str {
        match self {
            CancelEnd::Result => "result",
            CancelEnd::Idle => "idle",
        }
    }
}

/// The member that carries why a turn stopped, in v1's prompt result and
/// v2's `idle` state update alike.
pub const STOP_REASON: &str = "stopReason";

/// The client's notification that cancels a prompt turn ([`TurnCancel`]).
pub const TURN_CANCEL: &str = "session/cancel";

/// The client's request whose pending calls a cancelled turn answers
/// `cancelled` (ACP's prompt-turn section).
pub const PERMISSION: &str = "session/request_permission";

/// The value of a cancelled prompt's stop reason, and of a permission
/// request's outcome tag.
pub const CANCELLED: &str = "cancelled";

/// The turn rules of `ir`, when it has them (read at lowering too, which
/// marks their notification [`crate::ir::Method::acted_on`]).
pub(crate) fn turn_cancel(ir: &Ir) -> Option<TurnCancel> {
    let notification = ir.methods.get(TURN_CANCEL)?.notification.as_ref()?;
    if notification.side != Side::Agent || !has_session(ir, &notification.params) {
        return None;
    }
    let prompt = ir.methods.get("session/prompt")?.request.as_ref()?;
    let end = if struct_fields(ir, &prompt.result)
        .into_iter()
        .any(|field| field.wire_name == STOP_REASON && field.required && admits_cancelled(ir, &field.ty))
    {
        CancelEnd::Result
    } else {
        idle_admits_cancelled(ir).then_some(CancelEnd::Idle)?
    };
    let scoped = ir
        .methods
        .values()
        .filter(|method| {
            method
                .request
                .as_ref()
                .is_some_and(|request| request.side == Side::Client && has_session(ir, &request.params))
        })
        .map(|method| method.name.clone())
        .collect();
    Some(TurnCancel {
        notification: TURN_CANCEL.to_owned(),
        prompt: "session/prompt".to_owned(),
        session: SESSION_ID.to_owned(),
        stop_reason: STOP_REASON.to_owned(),
        cancelled: CANCELLED.to_owned(),
        end,
        scoped,
        awaiting: (end == CancelEnd::Idle).then(|| awaiting(ir)).flatten(),
        permission: permission(ir),
    })
}

/// v2's permission request, when the lifecycle's state union has the
/// `requires_action` and `running` states.
fn awaiting(ir: &Ir) -> Option<Awaiting> {
    let (_, _, _, union) = update_union(ir)?;
    let lifecycle = lifecycle(ir, union)?;
    let TypeKind::Union(states) = &ir.get(&lifecycle.union)?.kind else {
        return None;
    };
    let has = |state: &str| {
        states
            .variants
            .iter()
            .any(|variant| variant.tag.as_deref() == Some(state))
    };
    let (request, _) = permission(ir)?;
    (has(REQUIRES_ACTION) && has(RUNNING)).then(|| Awaiting {
        request,
        requires_action: REQUIRES_ACTION.to_owned(),
        running: RUNNING.to_owned(),
    })
}

/// Whether `ty` names an enum with the `cancelled` value.
fn admits_cancelled(ir: &Ir, ty: &TypeExpr) -> bool {
    let Some(TypeKind::Enum(reasons)) = named(ty)
        .and_then(|name| ir.get(name))
        .map(|definition| &definition.kind)
    else {
        return false;
    };
    reasons.values.iter().any(|value| value.value == CANCELLED)
}

/// Whether v2's `idle` state update ends the prompt turn ([`drain`]) and
/// can say `cancelled` in its stop reason: a member whose enum has that
/// value, or a flattened union tagged by the member with such a variant.
fn idle_admits_cancelled(ir: &Ir) -> bool {
    let Some((_, _, _, union)) = update_union(ir) else {
        return false;
    };
    let Some(lifecycle) = lifecycle(ir, union) else {
        return false;
    };
    let Some(TypeKind::Union(states)) = ir.get(&lifecycle.union).map(|definition| &definition.kind) else {
        return false;
    };
    let Some(Payload::Struct { base, fields }) = states
        .variants
        .iter()
        .find(|variant| variant.tag.as_deref() == Some(IDLE))
        .map(|variant| &variant.payload)
    else {
        return false;
    };
    let mut members: Vec<&Field> = fields.iter().collect();
    let mut flattened: Vec<&str> = Vec::new();
    if let Some(base) = base {
        members.extend(struct_fields(ir, base));
        if let Some(TypeKind::Struct(structure)) = ir.get(base).map(|definition| &definition.kind) {
            flattened.extend(structure.flatten.iter().map(String::as_str));
        }
    }
    members
        .iter()
        .any(|field| field.wire_name == STOP_REASON && admits_cancelled(ir, &field.ty))
        || flattened.iter().any(|name| {
            matches!(ir.get(name).map(|definition| &definition.kind), Some(TypeKind::Union(reasons))
                if matches!(&reasons.style, UnionStyle::Tagged { property } if property == STOP_REASON)
                    && reasons.variants.iter().any(|variant| variant.tag.as_deref() == Some(CANCELLED)))
        })
}

/// `session/request_permission` and its cancelled answer: the result's
/// required member whose tagged union has a `cancelled` variant that needs
/// nothing but the tag.
fn permission(ir: &Ir) -> Option<(String, Value)> {
    let request = ir.methods.get(PERMISSION)?.request.as_ref()?;
    if request.side != Side::Client {
        return None;
    }
    struct_fields(ir, &request.result)
        .into_iter()
        .filter(|field| field.required)
        .find_map(|field| {
            let TypeKind::Union(union) = &ir.get(named(&field.ty)?)?.kind else {
                return None;
            };
            let UnionStyle::Tagged { property } = &union.style else {
                return None;
            };
            union
                .variants
                .iter()
                .find(|variant| variant.tag.as_deref() == Some(CANCELLED) && bare(ir, &variant.payload))?;
            let result = serde_json::json!({ field.wire_name.clone(): { property.clone(): CANCELLED } });
            Some((PERMISSION.to_owned(), result))
        })
}

/// The protocol-level notification that cancels a request, and its member
/// naming the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cancel {
    pub method: String,
    pub member: String,
}

/// The method that cancels a request (protocol v1 unstable and v2).
pub const CANCEL_REQUEST: &str = "$/cancel_request";

fn cancel(ir: &Ir) -> Option<Cancel> {
    let params = &ir.methods.get(CANCEL_REQUEST)?.notification.as_ref()?.params;
    let member = struct_fields(ir, params)
        .into_iter()
        .find(|field| field.required && named(&field.ty) == Some(REQUEST_ID))?;
    Some(Cancel {
        method: CANCEL_REQUEST.to_owned(),
        member: member.wire_name.clone(),
    })
}

/// What the client's end of a connection waits for before a prompt call
/// completes, besides its response and the notifications read before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drain {
    /// `session/prompt`, whose params carry `session`.
    pub prompt: String,
    /// `session/update`, and the wire names of its session id, its update
    /// and the update's tag.
    pub update: String,
    pub session: String,
    pub payload: String,
    pub tag: String,
    pub end: TurnEnd,
}

/// What marks the end of a prompt turn in a `session/update`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum TurnEnd {
    /// Protocol v1 with the turn-complete RFD (when negotiated): the
    /// `turn_complete` update, its member naming the prompt's request id,
    /// and its stop reason member (the prompt result's, too).
    Complete {
        tag: String,
        request: String,
        stop_reason: String,
    },
    /// Protocol v2: the update whose `state` member says `idle`.
    Idle { tag: String, state: String, idle: String },
    /// Neither: the response ends the turn.
    Response,
}

/// The `state_update` value that ends foreground work (protocol v2).
pub const IDLE: &str = "idle";

/// The model for `ir`.
pub fn model(ir: &Ir) -> Helpers {
    Helpers {
        turns: turns(ir),
        status: status(ir),
        ready: ready(ir),
        drain: drain(ir),
        cancel: cancel(ir),
        turn_cancel: turn_cancel(ir),
    }
}

/// The update union of `session/update`: the params type, the member that
/// holds the update, the union's name and definition.
fn update_union(ir: &Ir) -> Option<(String, &Field, &Field, &crate::ir::UnionType)> {
    let notification = ir.methods.get("session/update")?.notification.as_ref()?.params.clone();
    let fields = struct_fields(ir, &notification);
    let session = fields
        .iter()
        .find(|field| field.wire_name == SESSION_ID && field.required)?;
    fields.iter().filter(|field| field.required).find_map(|field| {
        let name = named(&field.ty)?;
        match &ir.get(name)?.kind {
            TypeKind::Union(union) if matches!(union.style, UnionStyle::Tagged { .. }) => {
                Some((notification.clone(), *session, *field, union))
            }
            _ => None,
        }
    })
}

fn drain(ir: &Ir) -> Option<Drain> {
    ir.methods.get("session/prompt")?.request.as_ref()?;
    let (_, session, update, union) = update_union(ir)?;
    let UnionStyle::Tagged { property } = &union.style else {
        return None;
    };
    let complete = turns(ir)
        .and_then(|turns| turns.complete)
        .map(|complete| TurnEnd::Complete {
            tag: complete.variant.tag,
            request: complete.request.wire,
            stop_reason: complete.stop_reason.wire,
        });
    let idle = lifecycle(ir, union).map(|lifecycle| TurnEnd::Idle {
        tag: lifecycle.variant.tag,
        state: lifecycle.tag_property,
        idle: lifecycle.idle.tag,
    });
    Some(Drain {
        prompt: "session/prompt".to_owned(),
        update: "session/update".to_owned(),
        session: session.wire_name.clone(),
        payload: update.wire_name.clone(),
        tag: property.clone(),
        end: complete.or(idle).unwrap_or(TurnEnd::Response),
    })
}

/// The update union's variant whose payload is, with no member of its
/// own, a tagged union with an `idle` variant: v2's `state_update`.
fn lifecycle(ir: &Ir, union: &crate::ir::UnionType) -> Option<Lifecycle> {
    union.variants.iter().find_map(|variant| {
        let Payload::Struct {
            base: Some(base),
            fields,
        } = &variant.payload
        else {
            return None;
        };
        if !fields.is_empty() {
            return None;
        }
        let TypeKind::Union(states) = &ir.get(base)?.kind else {
            return None;
        };
        let UnionStyle::Tagged { property } = &states.style else {
            return None;
        };
        let idle = states
            .variants
            .iter()
            .find(|candidate| candidate.tag.as_deref() == Some(IDLE))?;
        Some(Lifecycle {
            variant: UpdateVariant {
                name: variant.name.clone(),
                tag: variant.tag.clone()?,
            },
            union: base.clone(),
            tag_property: property.clone(),
            idle: UpdateVariant {
                name: idle.name.clone(),
                tag: IDLE.to_owned(),
            },
        })
    })
}

fn has_session(ir: &Ir, type_name: &str) -> bool {
    struct_fields(ir, type_name)
        .iter()
        .any(|field| field.wire_name == SESSION_ID && field.required)
}

fn ready(ir: &Ir) -> Option<Ready> {
    let method = ir.methods.get("session/ready")?;
    method
        .notification
        .as_ref()
        .filter(|notification| has_session(ir, &notification.params))?;
    let openers = OPENERS
        .iter()
        .filter_map(|name| {
            let request = ir.methods.get(*name)?.request.as_ref()?;
            let in_result = has_session(ir, &request.result);
            (in_result || has_session(ir, &request.params)).then(|| SessionMember {
                method: (*name).to_owned(),
                in_result,
                member: SESSION_ID.to_owned(),
            })
        })
        .collect();
    let scoped = ir
        .methods
        .values()
        .filter_map(|method| {
            let notification = method
                .notification
                .as_ref()
                .filter(|notification| notification.side == Side::Client)?;
            has_session(ir, &notification.params).then(|| SessionMember {
                method: method.name.clone(),
                in_result: false,
                member: SESSION_ID.to_owned(),
            })
        })
        .collect();
    Some(Ready {
        notification: SessionMember {
            method: method.name.clone(),
            in_result: false,
            member: SESSION_ID.to_owned(),
        },
        openers,
        scoped,
    })
}

/// Whether a variant's payload can be nothing but its tag: it requires no
/// member (v2's cancelled outcome takes an optional `_meta`).
fn bare(ir: &Ir, payload: &Payload) -> bool {
    match payload {
        Payload::Unit => true,
        Payload::Struct { base, fields } => {
            fields.iter().all(|field| !field.required)
                && base.as_deref().is_none_or(|base| {
                    matches!(
                        ir.get(base).map(|definition| &definition.kind),
                        Some(TypeKind::Struct(_))
                    ) && struct_fields(ir, base).iter().all(|field| !field.required)
                })
        }
        _ => false,
    }
}

fn struct_fields<'a>(ir: &'a Ir, name: &str) -> Vec<&'a Field> {
    let Some(TypeKind::Struct(structure)) = ir.get(name).map(|definition| &definition.kind) else {
        return Vec::new();
    };
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
    let stop_reason_type = struct_fields(ir, &prompt.result)
        .into_iter()
        .find(|field| field.wire_name == "stopReason")
        .and_then(|field| named(&field.ty))
        .map(str::to_owned);
    ir.get(REQUEST_ID)?;
    let (notification, session, update, union) = update_union(ir)?;
    let union_name = named(&update.ty)?.to_owned();
    let UnionStyle::Tagged { property } = &union.style else {
        return None;
    };
    let lifecycle = stop_reason_type.is_none().then(|| lifecycle(ir, union)).flatten();
    if stop_reason_type.is_none() && lifecycle.is_none() {
        return None;
    }
    let variant = |variant: &crate::ir::Variant| {
        variant.tag.as_ref().map(|tag| UpdateVariant {
            name: variant.name.clone(),
            tag: tag.clone(),
        })
    };
    let output: Vec<UpdateVariant> = union
        .variants
        .iter()
        .filter(|candidate| candidate.tag.as_deref().is_some_and(|tag| TURN_OUTPUT.contains(&tag)))
        .filter_map(variant)
        .collect();
    let replies = output
        .iter()
        .filter(|variant| REPLY.contains(&variant.tag.as_str()))
        .cloned()
        .collect();
    let complete = union
        .variants
        .iter()
        .find(|candidate| candidate.tag.as_deref() == Some(TURN_COMPLETE))
        .and_then(|found| {
            let Payload::Struct { base, fields } = &found.payload else {
                return None;
            };
            let mut members: Vec<&Field> = fields.iter().collect();
            if let Some(base) = base {
                members.extend(struct_fields(ir, base));
            }
            let request = members.iter().find(|field| {
                field.wire_name == "promptRequestId" && field.required && named(&field.ty) == Some(REQUEST_ID)
            })?;
            let stop_reason = members.iter().find(|field| {
                field.wire_name == "stopReason"
                    && field.required
                    && stop_reason_type.is_some()
                    && named(&field.ty) == stop_reason_type.as_deref()
            })?;
            Some(Complete {
                variant: variant(found)?,
                payload: base.clone(),
                request: Member::of(request),
                stop_reason: Member::of(stop_reason),
            })
        });
    Some(Turns {
        notification,
        session: Member::of(session),
        update: Member::of(update),
        union: union_name,
        tag_property: property.clone(),
        output,
        replies,
        complete,
        lifecycle,
        request_type: REQUEST_ID.to_owned(),
        stop_reason_type,
    })
}

fn status(ir: &Ir) -> Option<Status> {
    let result = &ir.methods.get("session/status")?.request.as_ref()?.result;
    let field = struct_fields(ir, result)
        .into_iter()
        .find(|field| field.wire_name == "status" && field.required)?;
    let type_name = named(&field.ty)?;
    let TypeKind::Enum(enumeration) = &ir.get(type_name)?.kind else {
        return None;
    };
    enumeration.other.as_ref()?;
    let live = enumeration.values.iter().find(|value| value.value == LIVE)?;
    Some(Status {
        type_name: type_name.to_owned(),
        live: live.name.clone(),
    })
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
        let scope = match (&self.complete, &self.lifecycle) {
            (Some(complete), _) if complete.variant.tag == tag => Scope::Complete {
                request: update.get(&complete.request.wire)?.clone(),
                stop_reason: update.get(&complete.stop_reason.wire)?.clone(),
            },
            (_, Some(lifecycle)) if lifecycle.variant.tag == tag => Scope::State {
                idle: update.get(&lifecycle.tag_property).and_then(Value::as_str) == Some(&lifecycle.idle.tag),
            },
            _ if self.replies.iter().any(|variant| variant.tag == tag) => Scope::Reply,
            _ if self.output.iter().any(|variant| variant.tag == tag) => Scope::Turn,
            _ => Scope::Session,
        };
        Some((session, scope))
    }
}
