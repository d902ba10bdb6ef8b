//! Helpers shared by the emitters' unit tests.

use std::path::PathBuf;

use serde_json::{json, Value};

use crate::emit::Files;
use acp_ir::ir::Ir;
use acp_ir::lower::{lower, Unsupported};

/// The IR of a schema whose `$defs` are `definitions`.
pub(crate) fn ir_of(definitions: Value) -> Ir {
    let document = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": definitions});
    let schema = acp_schema_source::extend("inline.json".into(), document, &[], false).unwrap();
    lower(&schema, Unsupported::Fail).unwrap()
}

/// The IR of the embedded default schema, every RFD overlay applied.
pub(crate) fn default_ir() -> Ir {
    lower(
        &acp_schema_source::load(&acp_schema_source::SourceOptions::default()).unwrap(),
        Unsupported::Fail,
    )
    .unwrap()
}

/// The contents of the emitted file at `path`.
pub(crate) fn file<'a>(files: &'a Files, path: &str) -> &'a str {
    files
        .iter()
        .find(|(name, _)| name == &PathBuf::from(path))
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("no {path}"))
}
