//! A schema source given as text, as `cargo xtask review` takes it:
//! `default` (the embedded base, no overlay) or a schema file, followed by
//! `+`-joined RFD overlays, each a built-in name (`default+turn-complete`)
//! or an overlay file (`default+./my-rfd.json`).

use std::path::Path;

use anyhow::{bail, Result};

use acp_review::Conflict;
use acp_schema_source::{ExtendedSchema, Overlay, SourceError};

/// A source, assembled.
pub struct Side {
    pub label: String,
    pub schema: ExtendedSchema,
    pub conflicts: Vec<Conflict>,
}

/// Assembles the source `text` (see the module docs); overlays that cannot
/// apply to the base are left out and returned as conflicts.
pub fn assemble(text: &str) -> Result<Side> {
    let mut parts = text.split('+');
    let base_part = parts.next().unwrap_or_default();
    let (origin, base, strict) = match base_part {
        "default" => (
            acp_schema_source::default_origin(),
            acp_schema_source::upstream::default_schema(),
            true,
        ),
        "" => bail!("`{text}`: a source starts with `default` or a schema file"),
        file => (
            file.to_owned(),
            acp_schema_source::read_schema_file(Path::new(file))?,
            false,
        ),
    };
    let builtin = Overlay::builtin();
    let mut overlays: Vec<Overlay> = Vec::new();
    let mut conflicts = Vec::new();
    for part in parts {
        let overlay = match builtin.iter().find(|overlay| overlay.id == part) {
            Some(overlay) => overlay.clone(),
            None if part.ends_with(".json") || part.contains('/') => {
                let contents = std::fs::read_to_string(part).map_err(|error| SourceError::Read {
                    file: part.to_owned(),
                    message: error.to_string(),
                })?;
                Overlay::parse(part, &contents)?
            }
            None => {
                let known: Vec<&str> = builtin.iter().map(|overlay| overlay.id.as_str()).collect();
                bail!(
                    "`{text}`: unknown RFD overlay `{part}` (known: {}; or give an overlay file path)",
                    known.join(", ")
                );
            }
        };
        let mut trial = base.clone();
        let applied = overlays
            .iter()
            .try_for_each(|earlier| earlier.apply(&mut trial))
            .and_then(|()| overlay.apply(&mut trial));
        match applied {
            Ok(()) => overlays.push(overlay),
            Err(error @ (SourceError::OverlayConflict { .. } | SourceError::Overlay { .. })) => {
                conflicts.push(Conflict {
                    overlay: overlay.id.clone(),
                    message: error.to_string(),
                });
            }
            Err(error) => return Err(error.into()),
        }
    }
    let schema = acp_schema_source::extend(origin, base, &overlays, strict)?;
    Ok(Side {
        label: text.to_owned(),
        schema,
        conflicts,
    })
}
