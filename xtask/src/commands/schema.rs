//! `cargo xtask schema`: the extended schema (base + RFD overlays) written as
//! JSON, the same bytes every run, once the IR has shown it can represent it.

use std::path::Path;

use anyhow::Result;

use acp_ir::lower::Unsupported;

use crate::support::{lowering, output};
use crate::SourceArgs;

/// Writes the extended schema of `source` to `out`.
pub fn run(source: &SourceArgs, out: &Path) -> Result<()> {
    let schema = acp_schema_source::load(&source.options())?;
    // Only a schema the IR can represent is written out.
    lowering::lower_told(&schema, Unsupported::Fail, source.strict_names)?;
    output::write_file(out, schema.to_pretty_json().as_bytes())?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
