//! `cargo xtask inspect`: what the IR holds (counts per kind, untyped
//! fallbacks) and the capability annotations that did not apply.

use anyhow::Result;

use acp_ir::lower::Unsupported;

use crate::support::lowering;
use crate::SourceArgs;

/// Prints the summary of the IR of `source`, as JSON when `json`.
pub fn run(source: &SourceArgs, json: bool) -> Result<()> {
    let schema = acp_schema_source::load(&source.options())?;
    let ir = lowering::lower_told(&schema, Unsupported::FallBack, source.strict_names)?;
    let summary = acp_ir::inspect::summarize(&ir);
    if json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print!("{summary}");
        for skipped in &schema.gates.skipped {
            println!("capability annotation not applied: {skipped}");
        }
        for unresolved in &schema.gates.unresolved {
            println!("capability annotation unresolved: {unresolved}");
        }
    }
    Ok(())
}
