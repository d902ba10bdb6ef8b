//! Capability annotations: the machine-readable map, kept in
//! `schema/capabilities.json`, from every capability-gated method, union
//! variant and request member to its gate, and the check that each gate
//! resolves in a given schema.
//!
//! A schema's *layout* says where each side's capabilities sit in the
//! initialize messages (v1: `agentCapabilities` / `clientCapabilities`; v2:
//! `capabilities` on both); it is read off the schema's `InitializeRequest`
//! and `InitializeResponse`, and picks which of a gate's paths applies. The
//! prose scan that keeps these annotations complete lives in [`prose`].

pub mod prose;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::SourceError;
use crate::pointer::{escape_token, unescape_token};

/// The file the annotations are read from, relative to the repository root.
pub const FILE: &str = "schema/capabilities.json";
const TEXT: &str = include_str!("../capabilities.json");

/// Which side's initialize message carries a gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Agent,
    Client,
}

/// How strictly a gate must resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stability {
    /// Must resolve in the default schema.
    Stable,
    /// Must resolve whenever its overlay (`source`) is applied.
    Rfd,
    /// Resolves only in schemas that have the gated target.
    Unstable,
}

/// What a gate's path points at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateKind {
    /// A capability inside the side's capabilities object: omitted, `null`
    /// and `false` mean unsupported; `true` and any object mean supported.
    #[default]
    Capability,
    /// A member of the initialize message itself that offers the target
    /// when it is a non-empty array (`authMethods`).
    Offered,
}

/// Where a variant gate applies: a method and a JSON pointer into its
/// params, `*` standing for every item of an array.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Site {
    pub method: String,
    pub pointer: String,
}

/// One gate as written in the annotations file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Gate {
    pub advertised_by: Side,
    #[serde(default)]
    pub kind: GateKind,
    /// Layout name -> JSON pointer (into the capabilities object, or into
    /// the initialize message for offered gates). No entry: the gate does
    /// not exist in that layout.
    pub paths: BTreeMap<String, String>,
    /// Layout name -> the paths earlier releases of that layout gave the
    /// same capability (`planCapabilities` before `plan`), tried in order
    /// when the path does not resolve.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub former_paths: BTreeMap<String, Vec<String>>,
    pub stability: Stability,
    /// The overlay id for RFD gates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where a variant gate applies (variants only); none for a variant
    /// that travels only in results and notifications, which the outgoing
    /// check does not cover.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<Site>,
    /// Releases older than the capability carried the target without it:
    /// in a schema other than the default one, a path that does not resolve
    /// leaves the target ungated there (listed in `skipped`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ungated_before: bool,
}

/// Where each side's capabilities sit in the initialize messages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Layout {
    pub name: String,
    /// The ACP protocol version of schemas with this layout.
    pub protocol_version: u16,
    /// The `InitializeResponse` member holding the agent's capabilities.
    pub agent: String,
    /// The `InitializeRequest` member holding the client's capabilities.
    pub client: String,
}

/// The annotations file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapabilityAnnotations {
    pub description: String,
    /// The `$defs` name of each side's capabilities object.
    pub capability_roots: BTreeMap<Side, String>,
    /// The known layouts, tried in order.
    pub layouts: Vec<Layout>,
    /// Method name -> gate.
    pub methods: BTreeMap<String, Gate>,
    /// `Union/tag` -> gate, for gated variants such as `ContentBlock/image`.
    pub variants: BTreeMap<String, Gate>,
    /// `Type/member` -> gate, for request members only some peers accept.
    pub fields: BTreeMap<String, Gate>,
    /// Method name -> the per-session offer that gates it.
    pub session_gates: BTreeMap<String, SessionGate>,
    /// Method, `Union/tag`, `Type/member` or type name -> why the schema's
    /// gate is not decided at initialize (and so has no annotation).
    pub not_negotiated: BTreeMap<String, String>,
}

/// A method offered per session rather than at initialize: the answer that
/// opened the session offers it by one of its members (`modes` offers
/// `session/set_mode`); present and not `null` means offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SessionGate {
    /// The side whose opening answers carry the offer.
    pub advertised_by: Side,
    /// Layout name -> JSON pointer of the offering member in the opening
    /// results. No entry: the gate does not exist in that layout.
    pub paths: BTreeMap<String, String>,
    /// The methods that open a session; those the schema lacks, or whose
    /// result has no offering member, are left out where it resolves.
    pub opened_by: Vec<String>,
    /// The member naming the session, in the gated method's params and in
    /// each opener's result (a session it creates) or params (one it
    /// loads or resumes).
    pub session: String,
    pub stability: Stability,
}

/// A method that opens a session, as a session gate resolved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedOpener {
    pub method: String,
    /// The session it opens is named in its result (`session/new`,
    /// `session/fork`); otherwise in its params (`session/load`,
    /// `session/resume`).
    pub session_in_result: bool,
}

/// A session gate that resolved in a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedSessionGate {
    pub advertised_by: Side,
    /// JSON pointer of the offering member in the opening results.
    pub member: String,
    /// The member naming the session.
    pub session: String,
    /// The openers whose result has the member, in the annotation's order.
    pub openers: Vec<ResolvedOpener>,
}

/// How a site recognises the gated variant: by the value of its tag
/// member, or (`property: None`) by the value itself (a string constant).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tag {
    pub property: Option<String>,
    pub value: String,
}

/// A site that resolved in a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedSite {
    pub method: String,
    /// JSON pointer into the params, `*` for every array item.
    pub pointer: String,
    /// For variant gates: how the gated variant is recognised there.
    pub tag: Option<Tag>,
}

/// A gate that resolved in a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedGate {
    pub gate: Gate,
    /// The `$defs` name the path starts at (the initialize message's, for
    /// offered gates).
    pub root: String,
    /// The path that applies in this schema's layout.
    pub path: String,
    /// The full JSON pointer inside the advertising side's initialize
    /// message (`InitializeResponse` for the agent, `InitializeRequest` for
    /// the client).
    pub initialize_pointer: String,
    /// Where the gate applies inside params (variants and members).
    pub sites: Vec<ResolvedSite>,
}

/// Gates that resolved in one schema, and those that did not apply to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedAnnotations {
    /// The schema's layout; `None` when its initialize messages match none.
    pub layout: Option<Layout>,
    pub methods: BTreeMap<String, ResolvedGate>,
    pub variants: BTreeMap<String, ResolvedGate>,
    pub fields: BTreeMap<String, ResolvedGate>,
    /// Methods offered per session, by method name.
    pub session_gates: BTreeMap<String, ResolvedSessionGate>,
    /// Methods of the schema whose gate initialize cannot decide, with why
    /// (from [`CapabilityAnnotations::not_negotiated`]).
    pub not_negotiated: BTreeMap<String, String>,
    /// Annotations that do not apply: the target is not in the schema, or
    /// the gate has no path in its layout.
    pub skipped: Vec<String>,
    /// Annotations whose target exists but whose gate did not resolve (only
    /// where that is not an error).
    pub unresolved: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Method,
    Variant,
    Field,
}

impl CapabilityAnnotations {
    /// The annotations shipped in `schema/capabilities.json`.
    pub fn builtin() -> Result<CapabilityAnnotations, SourceError> {
        serde_json::from_str(TEXT).map_err(|error| SourceError::Parse {
            file: FILE.to_owned(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })
    }

    /// The layout of `schema`: the first whose capability members both
    /// initialize messages have.
    pub fn layout_of(&self, schema: &Value) -> Option<&Layout> {
        let has = |definition: &str, member: &str| {
            let Some(node) = definitions(schema).and_then(|defs| defs.get(definition)) else {
                return false;
            };
            dereference(schema, node)
                .ok()
                .and_then(|node| node.get("properties"))
                .is_some_and(|properties| properties.get(member.trim_start_matches('/')).is_some())
        };
        self.layouts
            .iter()
            .find(|layout| has("InitializeResponse", &layout.agent) && has("InitializeRequest", &layout.client))
    }

    /// Resolves every gate in `schema`. `strict` (used for the embedded
    /// default schema) makes an unresolved stable gate an error; RFD gates of
    /// applied overlays are always strict. Other misses are listed in
    /// `skipped` (not applicable) or `unresolved`.
    pub fn resolve(
        &self,
        schema: &Value,
        applied_rfds: &[String],
        strict: bool,
    ) -> Result<ResolvedAnnotations, SourceError> {
        let methods_in_schema = methods_in(schema);
        let layout = self.layout_of(schema).cloned();
        let mut resolved = ResolvedAnnotations {
            layout: layout.clone(),
            ..ResolvedAnnotations::default()
        };
        resolved.not_negotiated = self
            .not_negotiated
            .iter()
            .filter(|(name, _)| methods_in_schema.contains(name.as_str()))
            .map(|(name, reason)| (name.clone(), reason.clone()))
            .collect();
        let entries = self
            .methods
            .iter()
            .map(|(name, gate)| ("methods", name, gate, Target::Method))
            .chain(
                self.variants
                    .iter()
                    .map(|(name, gate)| ("variants", name, gate, Target::Variant)),
            )
            .chain(
                self.fields
                    .iter()
                    .map(|(name, gate)| ("fields", name, gate, Target::Field)),
            );
        for (group, name, gate, target) in entries {
            let annotation_pointer = format!("/{group}/{}", escape_token(name));
            let must_resolve = match gate.stability {
                Stability::Stable => strict,
                Stability::Rfd => gate.source.as_ref().is_some_and(|id| applied_rfds.contains(id)),
                Stability::Unstable => false,
            };
            let fail = |message: String| SourceError::Capability {
                file: FILE.to_owned(),
                pointer: annotation_pointer.clone(),
                message,
            };
            let Some(layout) = &layout else {
                if must_resolve {
                    return Err(fail(
                        "the schema's initialize messages match no capability layout".to_owned(),
                    ));
                }
                resolved.skipped.push(format!("{name}: no capability layout"));
                continue;
            };
            let Some(path) = gate.paths.get(&layout.name) else {
                resolved.skipped.push(format!("{name}: no {} path", layout.name));
                continue;
            };
            let target_exists = match target {
                Target::Method => methods_in_schema.contains(name.as_str()),
                Target::Variant => variant_tag(schema, name).is_some(),
                Target::Field => field_exists(schema, name),
            };
            if !target_exists {
                if must_resolve {
                    return Err(fail(format!("`{name}` does not exist in the schema")));
                }
                resolved.skipped.push(format!("{name}: not in this schema"));
                continue;
            }
            let former = gate.former_paths.get(&layout.name).into_iter().flatten();
            let outcome = former.fold(
                self.resolve_one(schema, layout, name, gate, path, target, &methods_in_schema),
                |outcome, former| {
                    outcome.or_else(|error| {
                        self.resolve_one(schema, layout, name, gate, former, target, &methods_in_schema)
                            .map_err(|_| error)
                    })
                },
            );
            match outcome {
                Ok(entry) => {
                    let map = match target {
                        Target::Method => &mut resolved.methods,
                        Target::Variant => &mut resolved.variants,
                        Target::Field => &mut resolved.fields,
                    };
                    map.insert(name.clone(), entry);
                }
                Err(message) if must_resolve || gate.stability != Stability::Unstable && strict => {
                    return Err(fail(message))
                }
                Err(message) if gate.ungated_before => resolved
                    .skipped
                    .push(format!("{name}: ungated in this release ({message})")),
                Err(message) => resolved.unresolved.push(format!("{name}: {message}")),
            }
        }
        for (name, gate) in &self.session_gates {
            let must_resolve = gate.stability == Stability::Stable && strict;
            let fail = |message: String| SourceError::Capability {
                file: FILE.to_owned(),
                pointer: format!("/sessionGates/{}", escape_token(name)),
                message,
            };
            let path = layout.as_ref().and_then(|layout| gate.paths.get(&layout.name));
            let Some(path) = path else {
                if must_resolve && layout.is_none() {
                    return Err(fail(
                        "the schema's initialize messages match no capability layout".to_owned(),
                    ));
                }
                resolved.skipped.push(format!("{name}: no session gate in this layout"));
                continue;
            };
            if !methods_in_schema.contains(name.as_str()) {
                if must_resolve {
                    return Err(fail(format!("`{name}` does not exist in the schema")));
                }
                resolved.skipped.push(format!("{name}: not in this schema"));
                continue;
            }
            match resolve_session_gate(schema, name, gate, path, &methods_in_schema) {
                Ok(entry) => {
                    resolved.session_gates.insert(name.clone(), entry);
                }
                Err(message) if must_resolve || strict => return Err(fail(message)),
                Err(message) => resolved.unresolved.push(format!("{name}: {message}")),
            }
        }
        Ok(resolved)
    }

    #[allow(clippy::too_many_arguments)]
    fn resolve_one(
        &self,
        schema: &Value,
        layout: &Layout,
        name: &str,
        gate: &Gate,
        path: &str,
        target: Target,
        methods_in_schema: &std::collections::BTreeSet<&str>,
    ) -> Result<ResolvedGate, String> {
        let (message, member) = match gate.advertised_by {
            Side::Agent => ("InitializeResponse", &layout.agent),
            Side::Client => ("InitializeRequest", &layout.client),
        };
        let (root, initialize_pointer) = match gate.kind {
            GateKind::Capability => {
                let root = self
                    .capability_roots
                    .get(&gate.advertised_by)
                    .ok_or("no capability root for this side")?;
                resolve_capability_path(schema, root, path)?;
                (root.clone(), format!("{member}{path}"))
            }
            GateKind::Offered => {
                resolve_offered_path(schema, message, path)?;
                (message.to_owned(), path.to_owned())
            }
        };
        let sites = match target {
            Target::Method => Vec::new(),
            Target::Variant => {
                let (union, _) = name.split_once('/').ok_or("a variant is named `Union/tag`")?;
                let tag = variant_tag(schema, name).ok_or("the variant has no tag")?;
                let mut sites = Vec::new();
                for site in &gate.sites {
                    if !methods_in_schema.contains(site.method.as_str()) {
                        continue;
                    }
                    let node = params_node(schema, &site.method, &site.pointer)?;
                    if !reaches(schema, node, union) {
                        return Err(format!("{} params {} is not a `{union}`", site.method, site.pointer));
                    }
                    sites.push(ResolvedSite {
                        method: site.method.clone(),
                        pointer: site.pointer.clone(),
                        tag: Some(tag.clone()),
                    });
                }
                if sites.is_empty() && !gate.sites.is_empty() {
                    return Err("none of its sites is in the schema".to_owned());
                }
                sites
            }
            Target::Field => {
                let (owner, member) = name.split_once('/').ok_or("a member is named `Type/member`")?;
                methods_with_params(schema, owner)
                    .into_iter()
                    .map(|method| ResolvedSite {
                        method,
                        pointer: format!("/{}", escape_token(member)),
                        tag: None,
                    })
                    .collect()
            }
        };
        Ok(ResolvedGate {
            gate: gate.clone(),
            root,
            path: path.to_owned(),
            initialize_pointer,
            sites,
        })
    }
}

/// A session gate in `schema`: the gated method's params name the session,
/// and at least one opener's result has the offering member.
fn resolve_session_gate(
    schema: &Value,
    name: &str,
    gate: &SessionGate,
    path: &str,
    methods_in_schema: &std::collections::BTreeSet<&str>,
) -> Result<ResolvedSessionGate, String> {
    let has_member = |key: &str, member: &str| {
        definitions(schema)
            .and_then(|defs| defs.get(key))
            .and_then(|node| dereference(schema, node).ok())
            .and_then(|node| node.get("properties"))
            .is_some_and(|properties| properties.get(member).is_some())
    };
    let params = params_key(schema, name).ok_or_else(|| format!("`{name}` has no params definition"))?;
    if !has_member(params, &gate.session) {
        return Err(format!("{name} params have no `{}`", gate.session));
    }
    let mut openers = Vec::new();
    for opener in gate
        .opened_by
        .iter()
        .filter(|opener| methods_in_schema.contains(opener.as_str()))
    {
        let result = result_key(schema, opener).ok_or_else(|| format!("`{opener}` has no result definition"))?;
        let root = &definitions(schema).expect("result_key found $defs")[result];
        if walk(schema, root, result, path).is_err() {
            continue;
        }
        let session_in_result = has_member(result, &gate.session);
        let opener_params = params_key(schema, opener).ok_or_else(|| format!("`{opener}` has no params definition"))?;
        if !session_in_result && !has_member(opener_params, &gate.session) {
            return Err(format!(
                "{opener} names its session in neither its params nor its result"
            ));
        }
        openers.push(ResolvedOpener {
            method: opener.clone(),
            session_in_result,
        });
    }
    if openers.is_empty() {
        return Err(format!("no opening method's result has {path}"));
    }
    Ok(ResolvedSessionGate {
        advertised_by: gate.advertised_by,
        member: path.to_owned(),
        session: gate.session.clone(),
        openers,
    })
}

/// The `$defs` key of a method's result: the definition with that
/// `x-method` whose name ends in `Response`.
fn result_key<'a>(schema: &'a Value, method: &str) -> Option<&'a str> {
    definitions(schema)?.iter().find_map(|(key, definition)| {
        (definition.get("x-method").and_then(Value::as_str) == Some(method) && key.ends_with("Response"))
            .then_some(key.as_str())
    })
}

/// Every `x-method` value declared in `$defs`.
pub fn methods_in(schema: &Value) -> std::collections::BTreeSet<&str> {
    definitions(schema)
        .into_iter()
        .flat_map(|definitions| definitions.values())
        .filter_map(|definition| definition.get("x-method").and_then(Value::as_str))
        .collect()
}

pub(crate) fn definitions(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

/// The members of a union definition.
pub(crate) fn union_members(definition: &Value) -> impl Iterator<Item = &Value> {
    ["oneOf", "anyOf"]
        .into_iter()
        .filter_map(|keyword| definition.get(keyword).and_then(Value::as_array))
        .flatten()
}

/// The tag a union member carries: a member whose value is a constant,
/// or the constant of one of its properties.
pub(crate) fn member_tag(member: &Value) -> Option<Tag> {
    if let Some(value) = member.get("const").and_then(Value::as_str) {
        return Some(Tag {
            property: None,
            value: value.to_owned(),
        });
    }
    member
        .get("properties")
        .and_then(Value::as_object)?
        .iter()
        .find_map(|(property, schema)| {
            schema.get("const").and_then(Value::as_str).map(|value| Tag {
                property: Some(property.clone()),
                value: value.to_owned(),
            })
        })
}

fn variant_tag(schema: &Value, name: &str) -> Option<Tag> {
    let (union, tag) = name.split_once('/')?;
    let definition = definitions(schema)?.get(union)?;
    union_members(definition)
        .filter_map(member_tag)
        .find(|found| found.value == tag)
}

fn field_exists(schema: &Value, name: &str) -> bool {
    let Some((owner, member)) = name.split_once('/') else {
        return false;
    };
    definitions(schema)
        .and_then(|defs| defs.get(owner))
        .and_then(|node| dereference(schema, node).ok())
        .and_then(|node| node.get("properties"))
        .is_some_and(|properties| properties.get(member).is_some())
}

/// The `$defs` key of a method's params: the definition with that
/// `x-method` that is not its response.
fn params_key<'a>(schema: &'a Value, method: &str) -> Option<&'a str> {
    definitions(schema)?.iter().find_map(|(key, definition)| {
        (definition.get("x-method").and_then(Value::as_str) == Some(method) && !key.ends_with("Response"))
            .then_some(key.as_str())
    })
}

fn methods_with_params(schema: &Value, owner: &str) -> Vec<String> {
    let mut methods: Vec<String> = methods_in(schema)
        .into_iter()
        .filter(|method| params_key(schema, method) == Some(owner))
        .map(str::to_owned)
        .collect();
    methods.sort();
    methods
}

/// The schema node at `pointer` (`*` = array items) inside a method's params.
fn params_node<'a>(schema: &'a Value, method: &str, pointer: &str) -> Result<&'a Value, String> {
    let key = params_key(schema, method).ok_or_else(|| format!("`{method}` has no params definition"))?;
    let mut node = &definitions(schema).expect("params_key found $defs")[key];
    if pointer.is_empty() {
        return Ok(node);
    }
    let tokens = pointer
        .strip_prefix('/')
        .ok_or_else(|| format!("site pointer `{pointer}` is not a JSON pointer"))?;
    for token in tokens.split('/') {
        node = dereference(schema, node)?;
        node = if token == "*" {
            node.get("items")
                .ok_or_else(|| format!("{method} params {pointer}: not an array at `*`"))?
        } else {
            let token = unescape_token(token);
            node.get("properties")
                .and_then(|properties| properties.get(&token))
                .ok_or_else(|| format!("{method} params {pointer}: no `{token}`"))?
        };
    }
    Ok(node)
}

/// Whether `node` is, through `$ref`, `allOf` and nullable wrappers, the
/// `$defs` entry `name`.
fn reaches<'a>(schema: &'a Value, mut node: &'a Value, name: &str) -> bool {
    let target = format!("#/$defs/{name}");
    let definition = definitions(schema).and_then(|defs| defs.get(name));
    for _ in 0..32 {
        if definition.is_some_and(|definition| std::ptr::eq(definition, node)) {
            return true;
        }
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            if reference == target {
                return true;
            }
        }
        match dereference_step(schema, node) {
            Some(next) => node = next,
            None => return false,
        }
    }
    false
}

/// One step of [`dereference`], or `None` at a node it does not unwrap.
fn dereference_step<'a>(schema: &'a Value, node: &'a Value) -> Option<&'a Value> {
    if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
        return definitions(schema)?.get(reference.strip_prefix("#/$defs/")?);
    }
    if let Some([single]) = node.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
        return Some(single);
    }
    let members = node.get("anyOf").and_then(Value::as_array)?;
    let non_null: Vec<&Value> = members
        .iter()
        .filter(|member| member.get("type") != Some(&Value::from("null")))
        .collect();
    match non_null.as_slice() {
        [single] => Some(single),
        _ => None,
    }
}

/// Follows `$ref`, single-`allOf` wrappers and `anyOf [X, null]` to the object
/// or boolean a capability path step lands on.
pub(crate) fn dereference<'a>(schema: &'a Value, mut node: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..32 {
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let name = reference
                .strip_prefix("#/$defs/")
                .ok_or_else(|| format!("unsupported $ref {reference}"))?;
            if definitions(schema).and_then(|defs| defs.get(name)).is_none() {
                return Err(format!("$ref {reference} does not resolve"));
            }
        }
        match dereference_step(schema, node) {
            Some(next) => node = next,
            None => return Ok(node),
        }
    }
    Err("reference chain too deep".to_owned())
}

fn resolve_capability_path(schema: &Value, root: &str, path: &str) -> Result<(), String> {
    let node = definitions(schema)
        .and_then(|defs| defs.get(root))
        .ok_or_else(|| format!("capability root `{root}` is not in $defs"))?;
    let leaf = walk(schema, node, root, path)?;
    let leaf_type = leaf.get("type");
    if leaf_type == Some(&Value::from("boolean")) || leaf_type == Some(&Value::from("object")) {
        Ok(())
    } else {
        Err(format!(
            "capability path {path} ends at neither a boolean nor an object"
        ))
    }
}

fn resolve_offered_path(schema: &Value, message: &str, path: &str) -> Result<(), String> {
    let node = definitions(schema)
        .and_then(|defs| defs.get(message))
        .ok_or_else(|| format!("`{message}` is not in $defs"))?;
    let leaf = walk(schema, node, message, path)?;
    if leaf.get("type") == Some(&Value::from("array")) {
        Ok(())
    } else {
        Err(format!("offering member {path} of `{message}` is not an array"))
    }
}

fn walk<'a>(schema: &'a Value, mut node: &'a Value, root: &str, path: &str) -> Result<&'a Value, String> {
    let tokens = path
        .strip_prefix('/')
        .ok_or_else(|| format!("path `{path}` is not a JSON pointer"))?;
    for token in tokens.split('/') {
        let token = unescape_token(token);
        node = dereference(schema, node)?;
        node = node
            .get("properties")
            .and_then(|properties| properties.get(&token))
            .ok_or_else(|| format!("capability path {path} does not resolve in `{root}` (no `{token}`)"))?;
    }
    dereference(schema, node)
}
