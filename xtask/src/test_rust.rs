//! The Rust bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: the generated crate must pass
//! `clippy -D warnings` and `cargo doc` without warnings, and a harness crate
//! (the committed `tests/rust/vectors.rs` with a manifest written here) runs
//! every vector through it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::test_command::run_checked;

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// The batch round-trip program `run` builds for the bindings it tested last.
pub fn batch_program(workspace: &Path) -> std::path::PathBuf {
    workspace.join("target").join("bindings-target").join("debug").join("roundtrip-batch")
}

/// Runs the Rust suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `rust/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let target = workspace.join("target").join("bindings-target");
    let crate_folder = bindings.join("rust");
    run_checked(
        cargo().args(["clippy", "--quiet", "--", "-D", "warnings"]).env("CARGO_TARGET_DIR", &target).current_dir(&crate_folder),
        &format!("clippy on the Rust bindings for {label}"),
    )?;
    run_checked(
        cargo().args(["doc", "--quiet", "--no-deps"]).env("CARGO_TARGET_DIR", &target).env("RUSTDOCFLAGS", "-D warnings").current_dir(&crate_folder),
        &format!("cargo doc on the Rust bindings for {label}"),
    )?;
    let harness = bindings.join("rust-vectors");
    std::fs::create_dir_all(harness.join("tests")).context("creating the Rust harness")?;
    std::fs::write(
        harness.join("Cargo.toml"),
        "[package]\nname = \"acp-bindings-vectors\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [[bin]]\nname = \"roundtrip-batch\"\npath = \"src/main.rs\"\n\n\
         [dependencies]\nacp-bindings = { path = \"../rust\" }\nserde_json = \"1\"\n\n[workspace]\n",
    )?;
    std::fs::create_dir_all(harness.join("src"))?;
    std::fs::copy(workspace.join("tests").join("rust").join("roundtrip_batch.rs"), harness.join("src").join("main.rs"))?;
    std::fs::copy(workspace.join("tests").join("rust").join("vectors.rs"), harness.join("tests").join("vectors.rs"))?;
    run_checked(
        cargo()
            .args(["test", "--quiet", "--", "--nocapture"])
            .env("CARGO_TARGET_DIR", &target)
            .env("ACP_VECTORS", bindings.join("vectors"))
            .current_dir(&harness),
        &format!("Rust vectors for {label}"),
    )?;
    run_checked(
        cargo().args(["build", "--quiet", "--bin", "roundtrip-batch"]).env("CARGO_TARGET_DIR", &target).current_dir(&harness),
        &format!("the Rust batch round-trip for {label}"),
    )?;
    if label == "default" {
        differential(workspace, bindings, &target)?;
    }
    Ok(())
}

/// The `$defs` names the JSON-RPC envelopes of the schema root use: the
/// official crate models those as generic wrappers, not as payload types.
fn envelope_names(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut collect = |node: &Value| {
        if let Some(reference) = node.pointer("/allOf/0/$ref").or_else(|| node.get("$ref")).and_then(Value::as_str) {
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
    let metadata = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
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
    let source = Path::new(manifest).parent().context("manifest path")?.join("src").join("v1");
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(&source).with_context(|| format!("reading {}", source.display()))? {
        let text = std::fs::read_to_string(entry?.path())?;
        for line in text.lines() {
            let declared = line.strip_prefix("pub struct ").or_else(|| line.strip_prefix("pub enum "));
            if let Some(rest) = declared {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                names.insert(name);
            }
        }
    }
    Ok(names)
}

/// Builds and runs the differential harness against the official crate.
fn differential(workspace: &Path, bindings: &Path, target: &Path) -> Result<()> {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(bindings.join("schema").join("acp.schema.json"))?)?;
    let base = acp_schema_source::upstream::default_schema();
    let envelopes = envelope_names(&base);
    let official = official_type_names(workspace)?;
    let compared: Vec<&String> = schema["$defs"]
        .as_object()
        .context("the schema has no $defs")?
        .keys()
        .filter(|name| base["$defs"].get(name.as_str()).is_some() && official.contains(*name) && !envelopes.contains(*name))
        .collect();
    let arms: String = compared
        .iter()
        .map(|name| format!("        \"{name}\" => Some(roundtrip::<::agent_client_protocol_schema::v1::{name}>(json)),\n"))
        .collect();
    let harness = bindings.join("rust-differential");
    std::fs::create_dir_all(harness.join("src"))?;
    std::fs::create_dir_all(harness.join("tests"))?;
    std::fs::write(
        harness.join("Cargo.toml"),
        format!(
            "[package]\nname = \"acp-bindings-differential\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
             [dependencies]\nacp-bindings = {{ path = \"../rust\" }}\nagent-client-protocol-schema = {{ version = \"={}\", default-features = false }}\n\
             serde = \"1\"\nserde_json = \"1\"\n\n[workspace]\n",
            acp_schema_source::upstream::UPSTREAM_VERSION
        ),
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
    std::fs::copy(workspace.join("tests").join("rust").join("differential.rs"), harness.join("tests").join("differential.rs"))?;
    // The official crate knows the base schema, not the RFDs: compare on the
    // base's vectors (which the extended bindings accept too).
    let base_source = acp_schema_source::SourceOptions { schema_file: None, rfds: acp_schema_source::RfdSelection::Nothing };
    let base_outputs = crate::generate::render(&base_source, &acp_codegen::emit::PackageNames::default(), &["rust".to_owned()])?;
    let base_vectors = base_outputs.iter().find(|(folder, _)| folder == "vectors").context("no vectors rendered")?;
    crate::output::replace_directory(&harness.join("vectors"), &base_vectors.1)?;
    run_checked(
        cargo()
            .args(["test", "--quiet", "--", "--nocapture"])
            .env("CARGO_TARGET_DIR", target)
            .env("ACP_VECTORS", harness.join("vectors"))
            .current_dir(&harness),
        "the differential test against the official crate",
    )
}
