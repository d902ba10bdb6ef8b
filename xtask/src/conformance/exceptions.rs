//! The checked-in exceptions (`tests/conformance/exceptions.json`): the
//! requirements of the kit that our agents may leave unpassed, because the
//! schema the project follows (`@agentclientprotocol/sdk` 2.4.0) says
//! otherwise than the kit's older draft. Each entry names the requirement,
//! the protocol version, the kit's words and the schema's words that
//! justify it; an entry without them is refused.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "$comment", default)]
    _comment: Option<String>,
    exceptions: Vec<Exception>,
}

/// One excepted requirement.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Exception {
    pub id: String,
    pub protocol_version: u8,
    /// The kit's requirement text (its registry's words).
    pub kit: String,
    /// The words of the 2.4.0 schema that disagree, and where they are.
    pub schema: String,
    /// Why these words justify the exception, in a sentence.
    pub why: String,
}

pub struct Exceptions(pub Vec<Exception>);

impl Exceptions {
    pub fn read(file: &Path) -> Result<Exceptions> {
        let text = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
        let parsed: File = serde_json::from_slice(&text).with_context(|| format!("parsing {}", file.display()))?;
        for exception in &parsed.exceptions {
            if ![1, 2].contains(&exception.protocol_version) {
                bail!(
                    "{}: {} names protocol version {}, not 1 or 2",
                    file.display(),
                    exception.id,
                    exception.protocol_version
                );
            }
            for (field, value) in [
                ("kit", &exception.kit),
                ("schema", &exception.schema),
                ("why", &exception.why),
            ] {
                if value.trim().is_empty() {
                    bail!("{}: {} has no `{field}` words", file.display(), exception.id);
                }
            }
        }
        Ok(Exceptions(parsed.exceptions))
    }

    /// The exception for requirement `id` on `version`, if any.
    pub fn find(&self, id: &str, version: u8) -> Option<&Exception> {
        self.0
            .iter()
            .find(|exception| exception.id == id && exception.protocol_version == version)
    }
}
