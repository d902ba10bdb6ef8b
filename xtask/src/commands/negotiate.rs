//! `cargo xtask negotiate`: the negotiated view of two captured initialize
//! messages, as every binding's `negotiate` serializes it, printed as pretty
//! JSON. Bad input is one error naming the file and the JSON pointer.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use acp_ir::lower::Unsupported;
use acp_ir::negotiation::{self, NegotiationError};
use acp_schema_source::SourceOptions;

/// Reads one initialize message: readable, JSON, an object.
fn read_message(path: &Path) -> Result<Value> {
    let file = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("{file}: cannot read"))?;
    let value: Value = serde_json::from_str(&text).map_err(|error| {
        anyhow::anyhow!(
            "{file}: not valid JSON (line {}, column {}): {error}",
            error.line(),
            error.column()
        )
    })?;
    if !value.is_object() {
        bail!("{file}#(root): an initialize message must be a JSON object");
    }
    Ok(value)
}

/// The view of `request` and `response` under the schema `source` selects,
/// as pretty JSON with a final newline; `strict_names` refuses a name the
/// collision rule changed.
pub fn run(source: &SourceOptions, strict_names: bool, request: &Path, response: &Path) -> Result<String> {
    let schema = acp_schema_source::load(source)?;
    let ir = crate::support::lowering::lower_told(&schema, Unsupported::Fail, strict_names)?;
    let Some(model) = negotiation::model(&ir) else {
        bail!(
            "{}: the schema's initialize messages match no capability layout",
            schema.origin
        );
    };
    let request_message = read_message(request)?;
    let response_message = read_message(response)?;
    let view = model.view(&request_message, &response_message).map_err(|error| {
        let file = match &error {
            NegotiationError::MissingVersion {
                message: "InitializeRequest",
            } => request,
            _ => response,
        };
        anyhow::anyhow!("{}#/protocolVersion: {error}", file.display())
    })?;
    let mut text = serde_json::to_string_pretty(&view)?;
    text.push('\n');
    Ok(text)
}
