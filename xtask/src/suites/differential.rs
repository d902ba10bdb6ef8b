//! The differential harness against the official `agent-client-protocol-schema`
//! crate, run by the Rust suite on the default schema's bindings. It writes a
//! crate that dispatches type names to the official types, the base schema's
//! vectors, and the member graph the committed `tests/rust/differential.rs`
//! checks every difference against: what the official crate adds must be the
//! schema's default there, and what it drops must be allowed to be absent.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};

use acp_ir::ir::{AdditionalProperties, Field, Payload, TypeExpr, TypeKind, UnionStyle};
use acp_ir::lower::{lower, Unsupported};
use acp_ir::Ir;

use crate::support::tools::cargo;
use crate::support::tools::run_checked;

/// The `$defs` names the JSON-RPC envelopes of the schema root use: the
/// official crate models those as generic wrappers, not as payload types.
fn envelope_names(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut collect = |node: &Value| {
        if let Some(reference) = node
            .pointer("/allOf/0/$ref")
            .or_else(|| node.get("$ref"))
            .and_then(Value::as_str)
        {
            names.insert(reference.trim_start_matches("#/$defs/").to_owned());
        }
    };
    for side in schema["anyOf"].as_array().into_iter().flatten() {
        collect(side);
        for role in side["anyOf"].as_array().into_iter().flatten() {
            collect(role);
        }
    }
    names
}

/// Public type names the official crate's `v1` module declares, read from
/// the pinned crate's source.
fn official_type_names(workspace: &Path) -> Result<BTreeSet<String>> {
    let metadata = cargo()
        .args(["metadata", "--format-version", "1", "--quiet"])
        .current_dir(workspace)
        .output()
        .context("running cargo metadata")?;
    let metadata: Value = serde_json::from_slice(&metadata.stdout).context("reading cargo metadata")?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "agent-client-protocol-schema")
        .and_then(|package| package["manifest_path"].as_str())
        .context("the official crate is not a dependency of the workspace")?;
    let source = Path::new(manifest)
        .parent()
        .context("manifest path")?
        .join("src")
        .join("v1");
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(&source).with_context(|| format!("reading {}", source.display()))? {
        let text = std::fs::read_to_string(entry?.path())?;
        for line in text.lines() {
            let declared = line
                .strip_prefix("pub struct ")
                .or_else(|| line.strip_prefix("pub enum "));
            if let Some(rest) = declared {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                names.insert(name);
            }
        }
    }
    Ok(names)
}

/// Where a value leads in the member graph: `{"type": name}` (a named type),
/// `{"items": node}` (an array), `{"other": node}` (members the schema does
/// not name, of a map or of an object that keeps them), or `{}` (a leaf).
fn node(ty: &TypeExpr) -> Value {
    match ty {
        TypeExpr::Named { name } => json!({"type": name}),
        TypeExpr::Nullable { inner } => node(inner),
        TypeExpr::Array(array) => json!({"items": node(&array.items)}),
        TypeExpr::Map { values } => json!({"other": node(values)}),
        _ => json!({}),
    }
}

/// Adds `fields` to `members` (wire name -> every field of that name, as
/// variants of a union may each declare one).
fn add_fields(members: &mut Map<String, Value>, fields: &[Field]) {
    for field in fields {
        let mut member = json!({"required": field.required, "value": node(&field.ty)});
        if let Some(default) = &field.default {
            member["default"] = default.clone();
        }
        members
            .entry(field.wire_name.clone())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .expect("members are arrays")
            .push(member);
    }
}

/// The member graph of `ir`: type name -> a shape, `{"members": {wire name:
/// [{"required", "default" (when the schema has one), "value": node}]},
/// "same": [node]}`, where `same` lists what else the type's values are
/// (flattened bases, an alias's target). A union's shape adds `"variants"`,
/// one shape each, with its `"tag"` value when the union is tagged by the
/// union's `"tag"` member, and `"defaultOpen"` when its variant without a
/// tag takes the values whose tag no variant claims.
fn member_graph(ir: &Ir) -> Value {
    let mut graph = Map::new();
    for (name, definition) in &ir.types {
        let mut members = Map::new();
        let mut same = Vec::new();
        let mut entry = Map::new();
        match &definition.kind {
            TypeKind::Struct(structure) => {
                add_fields(&mut members, &structure.fields);
                same.extend(structure.flatten.iter().map(|base| json!({"type": base})));
                if let AdditionalProperties::Kept(ty) = &structure.additional {
                    same.push(json!({"other": node(ty)}));
                }
            }
            TypeKind::Alias { target } => same.push(node(target)),
            TypeKind::Enum(_) => {}
            TypeKind::Union(union) => {
                if let UnionStyle::Tagged { property } = &union.style {
                    entry.insert("tag".to_owned(), json!(property));
                    if union.default_open {
                        entry.insert("defaultOpen".to_owned(), json!(true));
                    }
                }
                // A tagged variant's object keeps what its union keeps.
                let kept = match (&union.style, &union.additional) {
                    (UnionStyle::Tagged { .. }, AdditionalProperties::Kept(ty)) => Some(json!({"other": node(ty)})),
                    _ => None,
                };
                let variants = union.variants.iter().map(|variant| {
                    let (mut members, mut same) = (Map::new(), Vec::new());
                    same.extend(kept.clone());
                    match &variant.payload {
                        Payload::Unit => {}
                        Payload::Struct { base, fields } => {
                            add_fields(&mut members, fields);
                            same.extend(base.iter().map(|base| json!({"type": base})));
                        }
                        Payload::Type { ty } => same.push(node(ty)),
                    }
                    json!({"tag": variant.tag, "members": members, "same": same})
                });
                entry.insert("variants".to_owned(), variants.collect());
            }
        }
        entry.insert("members".to_owned(), Value::Object(members));
        entry.insert("same".to_owned(), Value::Array(same));
        graph.insert(name.clone(), Value::Object(entry));
    }
    Value::Object(graph)
}

/// Builds and runs the differential harness against the official crate.
pub fn run(workspace: &Path, bindings: &Path, target: &Path) -> Result<()> {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(
        bindings.join("schema").join("acp.schema.json"),
    )?)?;
    let base = acp_schema_source::upstream::default_schema();
    let envelopes = envelope_names(&base);
    let official = official_type_names(workspace)?;
    let compared: Vec<&String> = schema["$defs"]
        .as_object()
        .context("the schema has no $defs")?
        .keys()
        .filter(|name| {
            base["$defs"].get(name.as_str()).is_some() && official.contains(*name) && !envelopes.contains(*name)
        })
        .collect();
    let arms: String = compared
        .iter()
        .map(|name| {
            format!("        \"{name}\" => Some(roundtrip::<::agent_client_protocol_schema::v1::{name}>(json)),\n")
        })
        .collect();
    let harness = bindings.join("rust-differential");
    std::fs::create_dir_all(harness.join("src"))?;
    std::fs::create_dir_all(harness.join("tests"))?;
    std::fs::write(
        harness.join("Cargo.toml"),
        include_str!("../../../tests/rust/harness/differential.Cargo.toml")
            .replace("{upstream}", acp_schema_source::upstream::UPSTREAM_VERSION),
    )?;
    std::fs::write(
        harness.join("src").join("lib.rs"),
        format!(
            "//! Type name -> the official crate's type, for the types both sides have.\n\n\
             use serde_json::Value;\n\n\
             fn roundtrip<T: serde::de::DeserializeOwned + serde::Serialize>(json: &Value) -> Result<Value, String> {{\n\
             \x20   let decoded: T = serde_json::from_value(json.clone()).map_err(|error| error.to_string())?;\n\
             \x20   serde_json::to_value(&decoded).map_err(|error| error.to_string())\n}}\n\n\
             /// `None` when the official crate has no type of that name.\n\
             pub fn official_roundtrip(name: &str, json: &Value) -> Option<Result<Value, String>> {{\n    match name {{\n{arms}        _ => None,\n    }}\n}}\n"
        ),
    )?;
    std::fs::copy(
        workspace.join("tests").join("rust").join("differential.rs"),
        harness.join("tests").join("differential.rs"),
    )?;
    // The official crate knows the base schema, not the RFDs: compare on the
    // base's vectors (which the extended bindings accept too), and judge what
    // it adds or drops by the base's members.
    let base_schema = acp_schema_source::load(&acp_schema_source::SourceOptions {
        schema_file: None,
        rfds: acp_schema_source::RfdSelection::Nothing,
    })?;
    let base_ir = lower(&base_schema, Unsupported::Fail)?;
    crate::support::output::replace_directory(
        &harness.join("vectors"),
        &crate::commands::generate::checked_vectors(&base_schema, &base_ir)?,
    )?;
    std::fs::write(
        harness.join("members.json"),
        serde_json::to_string_pretty(&member_graph(&base_ir))? + "\n",
    )?;
    run_checked(
        cargo()
            .args(["test", "--quiet", "--", "--nocapture"])
            .env("CARGO_TARGET_DIR", target)
            .env("ACP_VECTORS", harness.join("vectors"))
            .env("ACP_MEMBERS", harness.join("members.json"))
            .current_dir(&harness),
        "the differential test against the official crate",
    )
}
