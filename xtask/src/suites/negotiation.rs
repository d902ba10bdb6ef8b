//! The cross-language negotiation check of `cargo xtask test`: before the
//! suites run on a schema's bindings, the schema's entry of
//! `tests/negotiation.json` is written to `<bindings>/negotiation.json`
//! (each language's negotiation tests read it); after them, the compact
//! views every language that negotiates ([`crate::registry`],
//! `negotiates`) wrote to `negotiation-<language>.txt` must be
//! byte-identical; a language that does not yet is named as skipped.

use std::path::Path;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use acp_generate::emit::ids;

use crate::registry::LANGUAGES;

/// The table entry a label's bindings are tested with: the tolerant
/// bindings negotiate as the default's do, the hostile fixture (the default
/// base without the RFD overlays) as that base does.
fn entry(label: &str) -> &str {
    match label {
        "default-tolerant" => "default",
        "hostile" => "default-no-rfd",
        other => other,
    }
}

/// Writes the label's cases into the bindings folder and removes earlier outputs.
pub fn prepare(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let file = workspace.join("tests").join("negotiation.json");
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?)
            .with_context(|| format!("{}: not valid JSON", file.display()))?;
    let Some(cases) = table.pointer(&format!("/schemas/{}", entry(label))) else {
        bail!("{}: no entry for the schema `{}`", file.display(), entry(label));
    };
    std::fs::write(bindings.join("negotiation.json"), serde_json::to_string_pretty(cases)?)?;
    for language in ids() {
        let output = bindings.join(format!("negotiation-{language}.txt"));
        if output.exists() {
            std::fs::remove_file(&output).with_context(|| format!("removing {}", output.display()))?;
        }
    }
    Ok(())
}

/// Fails unless every language that negotiates wrote the same non-empty views.
pub fn compare(bindings: &Path, label: &str) -> Result<()> {
    let mut first: Option<(&str, Vec<u8>)> = None;
    let mut compared = Vec::new();
    for tested in LANGUAGES {
        if !tested.negotiates {
            tested.skipping("negotiation helpers", "the negotiation comparison");
            continue;
        }
        let language = tested.id();
        compared.push(language);
        let output = bindings.join(format!("negotiation-{language}.txt"));
        let bytes = std::fs::read(&output).with_context(|| {
            format!(
                "{label}: the {language} negotiation tests wrote no {}",
                output.display()
            )
        })?;
        ensure!(!bytes.is_empty(), "{label}: {} is empty", output.display());
        match &first {
            None => first = Some((language, bytes)),
            Some((other, expected)) => ensure!(
                *expected == bytes,
                "{label}: the {language} negotiated views differ from the {other} ones (compare negotiation-*.txt in {})",
                bindings.display()
            ),
        }
    }
    eprintln!(
        "{label}: the negotiated views are byte-identical in {}",
        compared.join(", ")
    );
    Ok(())
}
