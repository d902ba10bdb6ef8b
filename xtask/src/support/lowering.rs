//! Lowering as the commands do it: the IR of a schema, with every name the
//! collision rule changed ([`acp_ir::naming::distinct`]) told on stderr
//! as a note, or refused as an error under `--strict-names`.

use anyhow::{bail, Result};

use acp_ir::lower::{lower, Unsupported};
use acp_ir::Ir;
use acp_schema_source::ExtendedSchema;

/// The IR of `schema`; `strict_names` makes a renamed name an error.
pub fn lower_told(schema: &ExtendedSchema, mode: Unsupported, strict_names: bool) -> Result<Ir> {
    let ir = lower(schema, mode)?;
    if let (true, Some(first)) = (strict_names, ir.renamed.first()) {
        bail!(
            "{}#{}: `{}` maps to the name `{}`, which another wire name takes first (--strict-names; without it, it is named `{}`)",
            schema.origin,
            first.pointer,
            first.wire,
            first.base,
            first.name
        );
    }
    for renamed in &ir.renamed {
        eprintln!(
            "note: {}#{}: `{}` is named `{}`: `{}` is taken first",
            schema.origin, renamed.pointer, renamed.wire, renamed.name, renamed.base
        );
    }
    Ok(ir)
}
