//! The single source of the project.
//!
//! This crate owns everything that decides *which* schema the generator reads:
//! the pinned upstream base ([`upstream`]), the RFD overlays under `schema/rfd/`
//! ([`overlay`]), the capability annotations in `schema/capabilities.json`
//! ([`capabilities`]) and their assembly into one extended schema ([`load`]);
//! [`pointer`] escapes and unescapes JSON pointer tokens for every stage.
//! It knows nothing about the IR or any target language.

pub mod capabilities;
pub mod error;
pub mod overlay;
pub mod pointer;
pub mod upstream;

use std::path::PathBuf;

use serde_json::Value;

pub use capabilities::{CapabilityAnnotations, ResolvedAnnotations};
pub use error::{Location, SourceError};
pub use overlay::{Overlay, RfdSelection};

/// The options every schema-reading command shares.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// Replaces the embedded base schema (`--schema FILE`).
    pub schema_file: Option<PathBuf>,
    /// Which RFD overlays to apply (`--rfd NAME ...` / `--no-rfd`).
    pub rfds: RfdSelection,
}

/// Metadata of an applied overlay, kept with the extended schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedOverlay {
    pub id: String,
    pub title: String,
    pub status: String,
    pub seed: String,
    pub file: String,
}

/// The base schema with the selected overlays applied and the capability
/// annotations resolved against it.
#[derive(Debug, Clone)]
pub struct ExtendedSchema {
    /// The base's name: a file path, or `agent-client-protocol-schema@VERSION`.
    pub origin: String,
    pub document: Value,
    pub overlays: Vec<AppliedOverlay>,
    pub gates: ResolvedAnnotations,
}

impl ExtendedSchema {
    /// The schema as written by `cargo xtask schema`: pretty JSON, key order as
    /// assembled, a final newline. The same input gives the same bytes.
    pub fn to_pretty_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(&self.document).expect("a JSON value always serializes");
        text.push('\n');
        text
    }
}

/// The origin name of the embedded default base.
pub fn default_origin() -> String {
    format!("{}@{}", upstream::UPSTREAM_CRATE, upstream::UPSTREAM_VERSION)
}

/// Reads a schema file: readable, JSON, an object with a `$defs` object.
pub fn read_schema_file(path: &std::path::Path) -> Result<Value, SourceError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| SourceError::Read {
        file: file.clone(),
        message: error.to_string(),
    })?;
    let document: Value = serde_json::from_str(&text).map_err(|error| SourceError::Parse {
        file: file.clone(),
        line: error.line(),
        column: error.column(),
        message: error.to_string(),
    })?;
    if !document.is_object() {
        return Err(SourceError::shape(&file, "", "the schema root must be a JSON object"));
    }
    if !document.get("$defs").is_some_and(Value::is_object) {
        return Err(SourceError::shape(
            &file,
            "/$defs",
            "the schema must have a `$defs` object",
        ));
    }
    Ok(document)
}

/// Assembles the extended schema the options describe.
pub fn load(options: &SourceOptions) -> Result<ExtendedSchema, SourceError> {
    let (origin, base, strict) = match &options.schema_file {
        Some(path) => (path.display().to_string(), read_schema_file(path)?, false),
        None => (default_origin(), upstream::default_schema(), true),
    };
    extend(origin, base, &options.rfds.resolve()?, strict)
}

/// The document is a JSON Schema: its own meta-schema (the draft its
/// `$schema` names, 2020-12 by default) accepts it. A document that is not
/// one cannot be lowered faithfully, nor judged by the validator the vectors
/// and the trace checker rely on.
fn check_meta_schema(origin: &str, document: &Value) -> Result<(), SourceError> {
    jsonschema::meta::validate(document).map_err(|error| {
        SourceError::shape(
            origin,
            &error.instance_path().to_string(),
            format!("not a JSON Schema: {error}"),
        )
    })
}

/// Applies `overlays` to `base` and resolves the capability annotations.
/// `strict` makes every stable gate mandatory (used for the embedded default).
pub fn extend(
    origin: String,
    mut document: Value,
    overlays: &[Overlay],
    strict: bool,
) -> Result<ExtendedSchema, SourceError> {
    for overlay in overlays {
        overlay.apply(&mut document)?;
    }
    check_meta_schema(&origin, &document)?;
    let applied: Vec<String> = overlays.iter().map(|overlay| overlay.id.clone()).collect();
    let gates = CapabilityAnnotations::builtin()?.resolve(&document, &applied, strict)?;
    Ok(ExtendedSchema {
        origin,
        document,
        overlays: overlays
            .iter()
            .map(|overlay| AppliedOverlay {
                id: overlay.id.clone(),
                title: overlay.title.clone(),
                status: overlay.status.clone(),
                seed: overlay.seed.clone(),
                file: overlay.file.clone(),
            })
            .collect(),
        gates,
    })
}
