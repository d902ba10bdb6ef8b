//! Capability annotations: the machine-readable map, kept in
//! `schema/capabilities.json`, from every capability-gated method (and gated
//! union variant) to its gate, and the check that each gate resolves in a
//! given schema.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{escape_pointer_token, SourceError};

/// The file the annotations are read from, relative to the repository root.
pub const FILE: &str = "schema/capabilities.json";
const TEXT: &str = include_str!("../capabilities.json");

/// Which side's capabilities object carries a gate.
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
    /// Resolves only in schemas that have the method.
    Unstable,
}

/// One gate as written in the annotations file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Gate {
    pub advertised_by: Side,
    /// JSON pointer into the side's capabilities object, e.g. `/sessionCapabilities/list`.
    pub path: String,
    pub stability: Stability,
    /// The overlay id for RFD gates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

/// The annotations file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CapabilityAnnotations {
    pub description: String,
    /// The `$defs` name of each side's capabilities object.
    pub capability_roots: BTreeMap<Side, String>,
    /// Method name -> gate.
    pub methods: BTreeMap<String, Gate>,
    /// `Union/tag` -> gate, for gated variants such as `SessionUpdate/turn_complete`.
    pub variants: BTreeMap<String, Gate>,
}

/// A gate that resolved in a schema: its capability path ends at a boolean or
/// an object whose presence means "supported".
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedGate {
    pub gate: Gate,
    /// The `$defs` name the path starts at.
    pub root: String,
}

/// Gates that resolved in one schema, and those that did not apply to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResolvedAnnotations {
    pub methods: BTreeMap<String, ResolvedGate>,
    pub variants: BTreeMap<String, ResolvedGate>,
    /// Annotations skipped because the schema lacks the method or the path.
    pub skipped: Vec<String>,
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

    /// Resolves every gate in `schema`. `strict` (used for the embedded
    /// default schema) makes an unresolved stable gate an error; RFD gates of
    /// applied overlays are always strict. Other misses are listed in `skipped`.
    pub fn resolve(
        &self,
        schema: &Value,
        applied_rfds: &[String],
        strict: bool,
    ) -> Result<ResolvedAnnotations, SourceError> {
        let methods_in_schema = methods_in(schema);
        let mut resolved = ResolvedAnnotations::default();
        let entries = self
            .methods
            .iter()
            .map(|(name, gate)| (format!("/methods/{}", escape_pointer_token(name)), name, gate, true))
            .chain(self.variants.iter().map(|(name, gate)| {
                (format!("/variants/{}", escape_pointer_token(name)), name, gate, false)
            }));
        for (annotation_pointer, name, gate, is_method) in entries {
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
            let target_exists = if is_method {
                methods_in_schema.contains(name.as_str())
            } else {
                variant_exists(schema, name)
            };
            if !target_exists {
                if must_resolve {
                    return Err(fail(format!("`{name}` does not exist in the schema")));
                }
                resolved.skipped.push(format!("{name}: not in this schema"));
                continue;
            }
            let root = self
                .capability_roots
                .get(&gate.advertised_by)
                .ok_or_else(|| fail("no capability root for this side".to_owned()))?;
            match resolve_capability_path(schema, root, &gate.path) {
                Ok(()) => {
                    let entry = ResolvedGate { gate: gate.clone(), root: root.clone() };
                    if is_method {
                        resolved.methods.insert(name.clone(), entry);
                    } else {
                        resolved.variants.insert(name.clone(), entry);
                    }
                }
                Err(message) if must_resolve || gate.stability != Stability::Unstable && strict => {
                    return Err(fail(message))
                }
                Err(message) => resolved.skipped.push(format!("{name}: {message}")),
            }
        }
        Ok(resolved)
    }
}

/// Every `x-method` value declared in `$defs`.
pub fn methods_in(schema: &Value) -> std::collections::BTreeSet<&str> {
    definitions(schema)
        .into_iter()
        .flat_map(|definitions| definitions.values())
        .filter_map(|definition| definition.get("x-method").and_then(Value::as_str))
        .collect()
}

fn definitions(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

fn variant_exists(schema: &Value, name: &str) -> bool {
    let Some((union, tag)) = name.split_once('/') else { return false };
    let Some(definition) = definitions(schema).and_then(|defs| defs.get(union)) else { return false };
    ["oneOf", "anyOf"]
        .iter()
        .filter_map(|keyword| definition.get(*keyword).and_then(Value::as_array))
        .flatten()
        .any(|member| {
            member
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| {
                    properties.values().any(|property| property.get("const").and_then(Value::as_str) == Some(tag))
                })
        })
}

/// Follows `$ref`, single-`allOf` wrappers and `anyOf [X, null]` to the object
/// or boolean a capability path step lands on.
fn dereference<'a>(schema: &'a Value, mut node: &'a Value) -> Result<&'a Value, String> {
    for _ in 0..32 {
        if let Some(reference) = node.get("$ref").and_then(Value::as_str) {
            let name = reference.strip_prefix("#/$defs/").ok_or_else(|| format!("unsupported $ref {reference}"))?;
            node = definitions(schema)
                .and_then(|defs| defs.get(name))
                .ok_or_else(|| format!("$ref {reference} does not resolve"))?;
        } else if let Some([single]) = node.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
            node = single;
        } else if let Some(members) = node.get("anyOf").and_then(Value::as_array) {
            let non_null: Vec<&Value> =
                members.iter().filter(|member| member.get("type") != Some(&Value::from("null"))).collect();
            match non_null.as_slice() {
                [single] => node = single,
                _ => return Ok(node),
            }
        } else {
            return Ok(node);
        }
    }
    Err("reference chain too deep".to_owned())
}

fn resolve_capability_path(schema: &Value, root: &str, path: &str) -> Result<(), String> {
    let mut node = definitions(schema)
        .and_then(|defs| defs.get(root))
        .ok_or_else(|| format!("capability root `{root}` is not in $defs"))?;
    let tokens = path.strip_prefix('/').ok_or_else(|| format!("path `{path}` is not a JSON pointer"))?;
    for token in tokens.split('/') {
        let token = token.replace("~1", "/").replace("~0", "~");
        node = dereference(schema, node)?;
        node = node
            .get("properties")
            .and_then(|properties| properties.get(&token))
            .ok_or_else(|| format!("capability path {path} does not resolve in `{root}` (no `{token}`)"))?;
    }
    let leaf = dereference(schema, node)?;
    let leaf_type = leaf.get("type");
    if leaf_type == Some(&Value::from("boolean")) || leaf_type == Some(&Value::from("object")) {
        Ok(())
    } else {
        Err(format!("capability path {path} ends at neither a boolean nor an object"))
    }
}
