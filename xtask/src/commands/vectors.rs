//! `cargo xtask vectors`: the shared test vectors, one `<TypeName>.json` per
//! type, checked with the validator before the folder is brought up to date.

use std::path::Path;

use anyhow::Result;

use acp_ir::lower::Unsupported;

use crate::commands::generate;
use crate::support::{lowering, output};
use crate::SourceArgs;

/// Writes the vectors of `source` to `out`, which ends holding exactly them.
pub fn run(source: &SourceArgs, out: &Path) -> Result<()> {
    let schema = acp_schema_source::load(&source.options())?;
    let ir = lowering::lower_told(&schema, Unsupported::Fail, source.strict_names)?;
    let files = generate::checked_vectors(&schema, &ir)?;
    output::replace_directory(out, &files)?;
    eprintln!("wrote {} vector files to {}", files.len(), out.display());
    Ok(())
}
