//! The IR: one typed, language-free model of an ACP schema.
//!
//! Every ACP meaning is decided here once (open enums, tagged and extensible
//! unions, nullable versus optional, defaults, the `x-deserialize-*` rules,
//! constraints, methods and sides, capability gates) so emitters only print.
//! The IR is plain data: ordered maps keyed by canonical names, serializable
//! and comparable, built once by [`crate::lower`] and never mutated after.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The whole model of one (extended) schema.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ir {
    /// Where the base schema came from (a path or `crate@version`).
    pub origin: String,
    /// The RFD overlays applied to the base, by id.
    pub overlays: Vec<String>,
    /// Every named type, keyed by canonical name.
    pub types: BTreeMap<String, TypeDef>,
    /// Every method, keyed by its JSON-RPC method name.
    pub methods: BTreeMap<String, Method>,
    /// Gated union variants, keyed `Union/tag`.
    pub gated_variants: BTreeMap<String, Gate>,
    /// The names the collision rule ([`crate::naming::distinct`]) gave
    /// instead of the ones their wire names map to, in schema order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renamed: Vec<Renamed>,
    /// Gated request members, keyed `Type/member`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub gated_fields: BTreeMap<String, Gate>,
    /// Where each side's capabilities sit in the initialize messages, when
    /// the schema has a known layout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability_layout: Option<CapabilityLayout>,
}

/// A name the collision rule changed: the schema node, its wire name, the
/// name it maps to and the name it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Renamed {
    pub pointer: String,
    pub wire: String,
    pub base: String,
    pub name: String,
}

/// Where the capabilities sit in the initialize messages, and the protocol
/// version schemas of that layout speak.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapabilityLayout {
    /// `v1` or `v2`.
    pub name: String,
    pub protocol_version: u16,
    /// The `InitializeResponse` member holding the agent's capabilities.
    pub agent: String,
    /// The `InitializeRequest` member holding the client's capabilities.
    pub client: String,
}

/// How upstream schemas open the description of a method, type, member or
/// value that is not part of the protocol yet (`schema.unstable.json`).
pub const UNSTABLE_MARKER: &str = "**UNSTABLE**";

/// Whether a description marks its subject unstable ([`UNSTABLE_MARKER`]).
pub fn marked_unstable(description: Option<&str>) -> bool {
    description.is_some_and(|text| text.trim_start().starts_with(UNSTABLE_MARKER))
}

/// A named type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TypeDef {
    /// Canonical (PascalCase) name; equal to its key in [`Ir::types`].
    pub name: String,
    /// JSON pointer of the schema node it was lowered from.
    pub pointer: String,
    /// Present when the type is a `$defs` entry: that key. Synthesized types
    /// (inline unions and objects given a name of their own) have none.
    pub definition: Option<String>,
    pub description: Option<String>,
    pub kind: TypeKind,
}

/// What a named type is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TypeKind {
    Struct(StructType),
    /// A newtype or alias of another type expression (`SessionId` = string).
    Alias {
        target: TypeExpr,
    },
    Enum(EnumType),
    Union(UnionType),
}

/// An object with known fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StructType {
    /// Fields in schema order.
    pub fields: Vec<Field>,
    /// Named types whose members are merged into this object (`allOf` bases
    /// and unions that sit beside `properties`).
    pub flatten: Vec<String>,
    /// What happens to members the schema does not name.
    pub additional: AdditionalProperties,
}

/// Members an object does not name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "policy", content = "values", rename_all = "snake_case")]
pub enum AdditionalProperties {
    /// Unknown members are allowed and kept in decode order, each of this
    /// type, and re-encoded unchanged: `Any` when the schema says nothing,
    /// so that a peer's newer members survive a decode and re-encode.
    Kept(TypeExpr),
    /// `additionalProperties: false`.
    Denied,
}

/// One member of a struct or of an inline variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Field {
    /// The member name on the wire.
    pub wire_name: String,
    /// Its name in code (snake_case), distinct among the object's members in
    /// every language; emitters derive their identifiers from it.
    pub name: String,
    pub description: Option<String>,
    /// The value type, without the outer `null` (see [`Field::nullable`]).
    pub ty: TypeExpr,
    /// Must be present on the wire.
    pub required: bool,
    /// `null` is a valid value, kept as `null`.
    pub nullable: bool,
    /// The schema default. Bindings expose it through an accessor; an omitted
    /// field is never written out with it.
    pub default: Option<Value>,
    pub decode: DecodeRules,
    /// What is left when a decode rule discards the wire value.
    pub fallback: Fallback,
}

/// The outcome of `default-on-error` / `default-on-null` for one field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fallback", content = "value", rename_all = "snake_case")]
pub enum Fallback {
    /// The field is treated as absent (optional fields; the default, if any,
    /// is then exposed through an accessor).
    Absent,
    /// The field takes this value (required fields: the schema default, or
    /// the empty array or object).
    Value(Value),
    /// No value satisfies the field's constraints: the rule cannot apply and
    /// the message fails to decode.
    Reject,
}

/// The `x-deserialize-*` rules of a field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecodeRules {
    /// `x-deserialize-default-on-error`: an invalid value falls back instead of failing.
    pub default_on_error: bool,
    /// `x-deserialize-default-on-null`: `null` falls back.
    pub default_on_null: bool,
    /// `x-deserialize-skip-invalid-items`: invalid array items are dropped.
    pub skip_invalid_items: bool,
}

impl DecodeRules {
    pub fn any(&self) -> bool {
        self.default_on_error || self.default_on_null || self.skip_invalid_items
    }
}

/// A type in a field, an alias, an array item or a variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TypeExpr {
    /// A named type.
    Named {
        name: String,
    },
    /// Any JSON value, because the schema leaves it open on purpose (`{}`,
    /// `true`, `_meta` contents, raw tool input).
    Any,
    /// Structure the IR could not represent, kept as any JSON only when
    /// lowering was asked to fall back (`inspect`); never produced otherwise.
    Untyped {
        pointer: String,
        reason: String,
    },
    /// Exactly `null`.
    Null,
    Boolean,
    String(StringType),
    Integer(IntegerType),
    Number(NumberType),
    Array(ArrayType),
    /// An object used as a map from string keys to values of one type.
    Map {
        values: Box<TypeExpr>,
    },
    /// The inner type or `null`.
    Nullable {
        inner: Box<TypeExpr>,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StringType {
    pub format: Option<String>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub pattern: Option<String>,
    pub content_encoding: Option<String>,
}

/// Integer width and signedness from the schema's `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IntegerFormat {
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    /// No format: any integer (bindings use their widest signed integer).
    Unspecified,
}

impl IntegerFormat {
    /// The smallest and largest value of the format (those of a signed
    /// 64-bit integer when unspecified).
    pub fn range(self) -> (i128, i128) {
        match self {
            IntegerFormat::Int8 => (i8::MIN.into(), i8::MAX.into()),
            IntegerFormat::Int16 => (i16::MIN.into(), i16::MAX.into()),
            IntegerFormat::Int32 => (i32::MIN.into(), i32::MAX.into()),
            IntegerFormat::Int64 | IntegerFormat::Unspecified => (i64::MIN.into(), i64::MAX.into()),
            IntegerFormat::Uint8 => (0, u8::MAX.into()),
            IntegerFormat::Uint16 => (0, u16::MAX.into()),
            IntegerFormat::Uint32 => (0, u32::MAX.into()),
            IntegerFormat::Uint64 => (0, u64::MAX.into()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntegerType {
    pub format: IntegerFormat,
    pub minimum: Option<serde_json::Number>,
    pub maximum: Option<serde_json::Number>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberFormat {
    Float,
    Double,
    Unspecified,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NumberType {
    pub format: NumberFormat,
    pub minimum: Option<serde_json::Number>,
    pub maximum: Option<serde_json::Number>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArrayType {
    pub items: Box<TypeExpr>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
}

/// A set of constants, closed or open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumType {
    pub repr: EnumRepr,
    pub values: Vec<EnumValue>,
    /// Present for an open enum: the catch-all that keeps any other value.
    pub other: Option<CatchAll>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "repr", rename_all = "snake_case")]
pub enum EnumRepr {
    String,
    Integer { format: IntegerFormat },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnumValue {
    /// Canonical (PascalCase) name.
    pub name: String,
    /// The constant on the wire (a string or an integer).
    pub value: Value,
    pub description: Option<String>,
}

/// The member of an open enum or extensible union that takes every value the
/// schema does not name, keeping it whole so it re-encodes unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CatchAll {
    pub name: String,
    pub description: Option<String>,
}

/// A choice between alternatives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnionType {
    pub style: UnionStyle,
    /// `oneOf` (exactly one alternative matches) rather than `anyOf`.
    pub exclusive: bool,
    pub variants: Vec<Variant>,
    /// Present for an extensible tagged union: unknown tags keep their payload.
    pub other: Option<CatchAll>,
    /// Tagged unions: the variant without a tag leaves the tag member
    /// unconstrained (its branch neither names the tag nor denies unknown
    /// members), so it also takes every object the tagged variants do not: a
    /// tag no variant or catch-all claims, a tag that is not a string, and a
    /// claimed tag whose variant's payload does not decode. The tag is then
    /// one of its unknown members, kept and written back.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default_open: bool,
    /// The catch-all was added by tolerant reading ([`crate::tolerant`]), a
    /// deviation from the schema, which closes this union.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tolerant: bool,
    /// Tagged unions: what a variant's object does with members neither the
    /// tag nor its payload names. Untagged and by-method unions leave that to
    /// each variant's own type (`Kept(Any)` here, unused).
    pub additional: AdditionalProperties,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "style", rename_all = "snake_case")]
pub enum UnionStyle {
    /// Alternatives are told apart by the string in `property`.
    Tagged { property: String },
    /// Alternatives are told apart by shape, tried in order.
    Untagged,
    /// Alternatives are method payloads: the JSON-RPC method picks one, and a
    /// decoder must not guess from the shape.
    ByMethod,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Variant {
    /// Canonical name: from the tag value, else the title, else the payload's type.
    pub name: String,
    /// The tag value; `None` in an untagged union, or for the one alternative
    /// of a tagged union that carries no tag (decoded when no tag is present).
    pub tag: Option<String>,
    pub description: Option<String>,
    pub payload: Payload,
}

impl Variant {
    /// What tells the variant apart across schemas: its tag, else its name.
    pub fn label(&self) -> &str {
        self.tag.as_deref().unwrap_or(&self.name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "payload", rename_all = "snake_case")]
pub enum Payload {
    /// Nothing but the tag.
    Unit,
    /// An object: the members of `base` (a named type) plus inline `fields`.
    Struct { base: Option<String>, fields: Vec<Field> },
    /// A value of this type (untagged unions).
    Type { ty: TypeExpr },
}

/// Which side handles a method (`x-side`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Agent,
    Client,
    Proxy,
    /// Protocol-level methods (`$/cancel_request`) that every side handles.
    Protocol,
    /// Methods either side may handle (older releases' `mcp/message`).
    Both,
}

impl Side {
    /// The sides an implementation can take, each with its own handlers:
    /// the agent, the client and a proxy.
    pub const ENDPOINTS: [Side; 3] = [Side::Agent, Side::Client, Side::Proxy];

    /// Whether a method of this side is handled by the endpoint `endpoint`:
    /// its own, and every protocol-level or either-side method.
    pub fn handled_by(self, endpoint: Side) -> bool {
        self == endpoint || matches!(self, Side::Protocol | Side::Both)
    }

    /// The other end of a connection, for the two sides that have one: the
    /// agent's peer is the client and the client's the agent. A proxy is one
    /// of each, and protocol-level or either-side methods have no side.
    pub fn peer(self) -> Option<Side> {
        match self {
            Side::Agent => Some(Side::Client),
            Side::Client => Some(Side::Agent),
            Side::Proxy | Side::Protocol | Side::Both => None,
        }
    }

    /// The `x-side` value on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Agent => "agent",
            Side::Client => "client",
            Side::Proxy => "proxy",
            Side::Protocol => "protocol",
            Side::Both => "both",
        }
    }
}

/// Which way a message goes on an ACP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    ClientToAgent,
    AgentToClient,
}

impl Direction {
    pub const BOTH: [Direction; 2] = [Direction::ClientToAgent, Direction::AgentToClient];

    /// `client-to-agent`, `agent-to-client`: the name in reports and traces.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToAgent => "client-to-agent",
            Direction::AgentToClient => "agent-to-client",
        }
    }

    /// The direction named `name`.
    pub fn parse(name: &str) -> Option<Direction> {
        Direction::BOTH.into_iter().find(|direction| direction.as_str() == name)
    }

    /// The other way.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::ClientToAgent => Direction::AgentToClient,
            Direction::AgentToClient => Direction::ClientToAgent,
        }
    }

    /// The side that receives, and handles, what goes this way.
    pub fn receiver(self) -> &'static str {
        match self {
            Direction::ClientToAgent => "agent",
            Direction::AgentToClient => "client",
        }
    }

    /// The side that sends what goes this way.
    pub fn sender(self) -> &'static str {
        self.reverse().receiver()
    }
}

/// What a message is on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// A request's params.
    Request,
    /// A notification's params.
    Notification,
    /// A request's result, going back to the side that called.
    Response,
}

impl MessageKind {
    /// `request`, `notification`, `response`.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Notification => "notification",
            MessageKind::Response => "response",
        }
    }
}

/// A JSON-RPC method name and what it is used for. One name can be both a
/// request handled by one side and a notification handled by the other
/// (`mcp/message`), so each use is kept apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Method {
    pub name: String,
    pub request: Option<RequestMethod>,
    pub notification: Option<NotificationMethod>,
    /// The capability that must be advertised before the method may be used.
    pub gate: Option<Gate>,
    /// The per-session offer that gates the method (`modes` for
    /// `session/set_mode`): a peer may call it only on sessions whose
    /// opening answer offered it, so its handler is optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_gate: Option<SessionGate>,
    /// Why the method's use is decided after initialize by something the
    /// IR does not model (a per-terminal offer): a peer may never call it,
    /// so its handler is optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_negotiated: Option<String>,
    /// The schema marks the method `**UNSTABLE**` (not part of the spec yet),
    /// in the description of its request, response or notification.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unstable: bool,
    /// The connection of the side that handles the notification acts on it
    /// by itself, so a handler only adds to that: the turn-cancel
    /// notification of the RFD turn rules ([`crate::rfd::TurnCancel`],
    /// `session/cancel`), set at lowering from what the schema says of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub acted_on: bool,
}

/// Why an implementation of a side may leave a method out: the dispatcher
/// then answers method-not-found (a request) or drops it (a notification;
/// the connection does not report one it acts on itself,
/// [`Optional::ActedOn`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optional<'a> {
    /// The handling side's connection acts on the notification itself
    /// ([`Method::acted_on`]): without a handler it is not dropped.
    ActedOn,
    /// The handling side advertises the method in its capabilities.
    Gated(&'a Gate),
    /// The handling side offers the method per session, in the answers
    /// that open it.
    SessionGated(&'a SessionGate),
    /// The peer learns after initialize whether it may call the method.
    NotNegotiated(&'a str),
    /// The schema marks the method unstable.
    Unstable,
    /// Every side handles it at the protocol level (`$/cancel_request`).
    ProtocolLevel,
}

impl Method {
    /// Whether, and why, a side that handles this method as `handled_by`
    /// may leave it out. Every emitter's handler interface follows this.
    /// The first reason that applies counts, [`Optional::ActedOn`] first: it
    /// holds even for a side that advertises a gated method (v2 gates
    /// `session/cancel` by the `session` capability).
    pub fn optional(&self, handled_by: Side) -> Option<Optional<'_>> {
        if self.acted_on
            && self
                .notification
                .as_ref()
                .is_some_and(|notification| notification.side == handled_by)
        {
            return Some(Optional::ActedOn);
        }
        if let Some(gate) = &self.gate {
            return Some(Optional::Gated(gate));
        }
        if let Some(gate) = &self.session_gate {
            return Some(Optional::SessionGated(gate));
        }
        if let Some(reason) = &self.not_negotiated {
            return Some(Optional::NotNegotiated(reason));
        }
        if self.unstable {
            return Some(Optional::Unstable);
        }
        (handled_by == Side::Protocol).then_some(Optional::ProtocolLevel)
    }
}

/// A request: `params` from the caller, `result` back from `side`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestMethod {
    /// The side that handles the request.
    pub side: Side,
    pub params: String,
    pub result: String,
}

/// A notification handled by `side`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationMethod {
    pub side: Side,
    pub params: String,
}

/// A capability gate: the side whose initialize message carries it, the
/// `$defs` name of the object its path starts at and a JSON pointer inside
/// it, what that path means, and where in params it applies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    pub advertised_by: Side,
    pub root: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "GateKind::is_capability")]
    pub kind: GateKind,
    /// The full JSON pointer inside the advertising side's initialize
    /// message (the agent's `InitializeResponse`, the client's
    /// `InitializeRequest`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub initialize_pointer: String,
    /// Where a variant or member gate applies inside params; empty for a
    /// method gate (it applies to the whole method).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<GateSite>,
}

/// A method offered per session rather than at initialize: the answer
/// that opened a session offers it there by a member (present and not
/// `null`). A session this end did not see opened is not judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionGate {
    /// The side whose opening answers carry the offer (the agent).
    pub advertised_by: Side,
    /// JSON pointer of the offering member in the opening results
    /// (`/modes`, `/configOptions`).
    pub member: String,
    /// The member naming the session, in the gated method's params and in
    /// each opener's result or params.
    pub session: String,
    /// The methods whose answer opens a session and may carry the offer.
    pub openers: Vec<SessionOpener>,
}

/// A method that opens a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionOpener {
    pub method: String,
    /// The session is named in its result (a new one: `session/new`,
    /// `session/fork`), else in its params (`session/load`, `session/resume`).
    pub session_in_result: bool,
}

impl SessionGate {
    /// The member's name (the pointer's only token).
    pub fn member_name(&self) -> &str {
        self.member.trim_start_matches('/')
    }

    /// What the handler docs say of it: "offered per session by `modes` in
    /// the answer that opened it (`session/new`, ...)".
    pub fn describe(&self) -> String {
        let openers: Vec<String> = self
            .openers
            .iter()
            .map(|opener| format!("`{}`", opener.method))
            .collect();
        format!(
            "offered per session by `{}` in the answer that opened it ({})",
            self.member_name(),
            openers.join(", ")
        )
    }
}

/// What a gate's pointer designates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateKind {
    /// A capability the side advertises: omitted, `null` and `false` mean
    /// unsupported, `true` and any object supported.
    #[default]
    Capability,
    /// Offered by the side's initialize message itself: a non-empty array
    /// (`authMethods`) offers the method; not a capability.
    Offered,
}

impl Gate {
    /// A capability gate on a whole method, with no initialize pointer
    /// (for hand-built IRs in tests).
    pub fn capability(advertised_by: Side, root: &str, path: &str) -> Gate {
        Gate {
            advertised_by,
            root: root.to_owned(),
            path: path.to_owned(),
            kind: GateKind::Capability,
            initialize_pointer: String::new(),
            sites: Vec::new(),
        }
    }
}

impl GateKind {
    pub fn is_capability(&self) -> bool {
        *self == GateKind::Capability
    }
}

/// One place a gate applies: a method and a JSON pointer into its params
/// (`*` is every array item), and for a variant gate how the variant is
/// recognised there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateSite {
    pub method: String,
    pub pointer: String,
    /// The tag member (`None`: the value itself is the constant) and value
    /// of the gated variant; `None` for a member gate (its presence).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantTag>,
}

/// How a gated variant is recognised.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariantTag {
    pub property: Option<String>,
    pub value: String,
}

impl Ir {
    /// Every member name an object of the type `name` can have, through
    /// flattened bases, variant payloads (a tagged union's tag included) and
    /// nested unions; a catch-all's unknown members aside.
    pub fn member_names(&self, name: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        self.collect_member_names(name, &mut BTreeSet::new(), &mut names);
        names
    }

    fn collect_member_names(&self, name: &str, seen: &mut BTreeSet<String>, into: &mut BTreeSet<String>) {
        if !seen.insert(name.to_owned()) {
            return;
        }
        match self.get(name).map(|definition| &definition.kind) {
            Some(TypeKind::Struct(structure)) => {
                into.extend(structure.fields.iter().map(|field| field.wire_name.clone()));
                for base in &structure.flatten {
                    self.collect_member_names(base, seen, into);
                }
            }
            Some(TypeKind::Union(union)) => {
                if let UnionStyle::Tagged { property } = &union.style {
                    into.insert(property.clone());
                }
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Struct { base, fields } => {
                            into.extend(fields.iter().map(|field| field.wire_name.clone()));
                            if let Some(base) = base {
                                self.collect_member_names(base, seen, into);
                            }
                        }
                        Payload::Type {
                            ty: TypeExpr::Named { name },
                        } => self.collect_member_names(name, seen, into),
                        _ => {}
                    }
                }
            }
            Some(TypeKind::Alias {
                target: TypeExpr::Named { name },
            }) => self.collect_member_names(name, seen, into),
            _ => {}
        }
    }

    /// The type called `name`.
    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.types.get(name)
    }

    /// The JSON-RPC error object: the struct with exactly a required
    /// `code` (an integer, or an integer enum of named codes), a required
    /// string `message` and an optional `data`, when the schema has one.
    pub fn error_object(&self) -> Option<ErrorObject> {
        self.types.values().find_map(|definition| {
            let TypeKind::Struct(structure) = &definition.kind else {
                return None;
            };
            let member = |name: &str| structure.fields.iter().find(|field| field.wire_name == name);
            let (code, message, data) = (member("code")?, member("message")?, member("data"));
            let shape = structure.fields.len() == 2 + usize::from(data.is_some())
                && structure.flatten.is_empty()
                && code.required
                && message.required
                && matches!(message.ty, TypeExpr::String(_))
                && data.is_none_or(|data| !data.required);
            let codes = match &code.ty {
                TypeExpr::Integer(_) => None,
                TypeExpr::Named { name } => match self.get(name).map(|definition| &definition.kind) {
                    Some(TypeKind::Enum(EnumType {
                        repr: EnumRepr::Integer { .. },
                        ..
                    })) => Some(name.clone()),
                    _ => return None,
                },
                _ => return None,
            };
            shape.then(|| ErrorObject {
                name: definition.name.clone(),
                codes,
            })
        })
    }
}

/// The JSON-RPC error object of a schema ([`Ir::error_object`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorObject {
    /// Its type.
    pub name: String,
    /// The integer enum of its `code`, when `code` is one.
    pub codes: Option<String>,
}

impl TypeExpr {
    pub fn named(name: impl Into<String>) -> TypeExpr {
        TypeExpr::Named { name: name.into() }
    }

    /// Every named type a value of `self` may contain, each with whether
    /// the value holds it directly (not inside an array or a map).
    pub fn references(&self) -> Vec<Reference<'_>> {
        let mut found = Vec::new();
        self.collect_references(true, &mut found);
        found
    }

    fn collect_references<'a>(&'a self, direct: bool, into: &mut Vec<Reference<'a>>) {
        match self {
            TypeExpr::Named { name } => into.push(Reference { name, direct }),
            TypeExpr::Nullable { inner } => inner.collect_references(direct, into),
            TypeExpr::Array(array) => array.items.collect_references(false, into),
            TypeExpr::Map { values } => values.collect_references(false, into),
            _ => {}
        }
    }
}

/// A reference from one type to a named type ([`TypeExpr::references`],
/// [`TypeDef::references`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reference<'a> {
    pub name: &'a str,
    /// The referring value holds the named one itself, with no array or
    /// map in between (a cycle of direct references needs a box in Rust).
    pub direct: bool,
}

impl TypeDef {
    /// Every named type the definition refers to: member types, flattened
    /// bases, alias targets and variant payloads, in schema order.
    pub fn references(&self) -> Vec<Reference<'_>> {
        fn fields<'a>(fields: &'a [Field], found: &mut Vec<Reference<'a>>) {
            for field in fields {
                field.ty.collect_references(true, found);
            }
        }
        let mut found = Vec::new();
        match &self.kind {
            TypeKind::Struct(structure) => {
                found.extend(structure.flatten.iter().map(|name| Reference { name, direct: true }));
                fields(&structure.fields, &mut found);
            }
            TypeKind::Alias { target } => target.collect_references(true, &mut found),
            TypeKind::Enum(_) => {}
            TypeKind::Union(union) => {
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Unit => {}
                        Payload::Type { ty } => ty.collect_references(true, &mut found),
                        Payload::Struct { base, fields: members } => {
                            found.extend(base.iter().map(|name| Reference { name, direct: true }));
                            fields(members, &mut found);
                        }
                    }
                }
            }
        }
        found
    }
}

/// The `$defs` name of the params of the request that opens a connection.
/// The schema's `x-method` on it names the method, and its capability
/// layout is read off it (`acp_schema_source::capabilities`).
pub const INITIALIZE_PARAMS: &str = "InitializeRequest";

impl Ir {
    /// The method that opens a connection and whose exchange decides what
    /// it allows: the request whose params are the schema's
    /// [`INITIALIZE_PARAMS`] (`initialize`); `None` for a schema without it.
    pub fn initialize(&self) -> Option<&Method> {
        self.methods.values().find(|method| {
            method.request.as_ref().is_some_and(|request| {
                self.get(&request.params)
                    .and_then(|definition| definition.definition.as_deref())
                    == Some(INITIALIZE_PARAMS)
            })
        })
    }

    /// The endpoints this schema has: the agent and the client always, a
    /// proxy when some method is a proxy's to handle.
    pub fn endpoints(&self) -> Vec<Side> {
        let proxy = self.methods.values().any(|method| {
            method
                .request
                .as_ref()
                .is_some_and(|request| request.side == Side::Proxy)
                || method
                    .notification
                    .as_ref()
                    .is_some_and(|notification| notification.side == Side::Proxy)
        });
        Side::ENDPOINTS
            .into_iter()
            .filter(|side| *side != Side::Proxy || proxy)
            .collect()
    }

    /// `root` and every named type its values may contain.
    pub fn reachable(&self, root: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut pending = vec![root.to_owned()];
        while let Some(name) = pending.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(definition) = self.get(&name) {
                pending.extend(
                    definition
                        .references()
                        .into_iter()
                        .map(|reference| reference.name.to_owned()),
                );
            }
        }
        seen
    }
}
