//! `cargo xtask review`: the semantic review of a schema change. A source
//! (`SRC`) is `default` (the embedded base, no overlay) or a schema file,
//! followed by `+`-joined RFD overlays, each a built-in name
//! (`default+turn-complete`) or an overlay file (`default+./my-rfd.json`).
//! An overlay that conflicts with its base is reported, not fatal. The
//! report goes to stdout; `--out DIR` also writes `review.md`,
//! `review.json` and `bindings.diff`, the unified diff of the generated
//! Rust, TypeScript and Python packages.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use acp_codegen::emit::PackageNames;
use acp_codegen::lower::{lower, Unsupported};
use acp_codegen::review::{self, report, rules::Level, Conflict, Review};
use acp_schema_source::{ExtendedSchema, Overlay, SourceError};

use crate::output::{self, Files};

/// One side of a review, assembled.
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
        "default" => (acp_schema_source::default_origin(), acp_schema_source::upstream::default_schema(), true),
        "" => bail!("`{text}`: a source starts with `default` or a schema file"),
        file => (file.to_owned(), acp_schema_source::read_schema_file(Path::new(file))?, false),
    };
    let builtin = Overlay::builtin();
    let mut overlays: Vec<Overlay> = Vec::new();
    let mut conflicts = Vec::new();
    for part in parts {
        let overlay = match builtin.iter().find(|overlay| overlay.id == part) {
            Some(overlay) => overlay.clone(),
            None if part.ends_with(".json") || part.contains('/') => {
                let contents = std::fs::read_to_string(part).map_err(|error| SourceError::Read { file: part.to_owned(), message: error.to_string() })?;
                Overlay::parse(part, &contents)?
            }
            None => {
                let known: Vec<&str> = builtin.iter().map(|overlay| overlay.id.as_str()).collect();
                bail!("`{text}`: unknown RFD overlay `{part}` (known: {}; or give an overlay file path)", known.join(", "));
            }
        };
        let mut trial = base.clone();
        let applied = overlays.iter().try_for_each(|earlier| earlier.apply(&mut trial)).and_then(|()| overlay.apply(&mut trial));
        match applied {
            Ok(()) => overlays.push(overlay),
            Err(error @ (SourceError::OverlayConflict { .. } | SourceError::Overlay { .. })) => {
                conflicts.push(Conflict { overlay: overlay.id.clone(), message: error.to_string() });
            }
            Err(error) => return Err(error.into()),
        }
    }
    let schema = acp_schema_source::extend(origin, base, &overlays, strict)?;
    Ok(Side { label: text.to_owned(), schema, conflicts })
}

/// What a review run produced.
pub struct Outcome {
    pub review: Review,
    pub files: Files,
}

/// Reviews `head` against `base`; `with_bindings` also renders the diff of
/// the generated packages.
pub fn run(base: &str, head: &str, with_bindings: bool) -> Result<Outcome> {
    let base = assemble(base).with_context(|| format!("the base `{base}`"))?;
    let head = assemble(head).with_context(|| format!("the head `{head}`"))?;
    let base_ir = lower(&base.schema, Unsupported::Fail).with_context(|| format!("lowering the base `{}`", base.label))?;
    let head_ir = lower(&head.schema, Unsupported::Fail).with_context(|| format!("lowering the head `{}`", head.label))?;
    let mut conflicts = base.conflicts;
    conflicts.extend(head.conflicts);
    let review = review::review(&base.label, &base_ir, &head.label, &head_ir, conflicts);
    let mut files = Files::new();
    files.insert(PathBuf::from("review.md"), report::markdown(&review));
    files.insert(PathBuf::from("review.json"), report::json(&review));
    if with_bindings {
        let names = PackageNames::default();
        let old = crate::generate::render_bindings(&base_ir, &names)?;
        let new = crate::generate::render_bindings(&head_ir, &names)?;
        files.insert(PathBuf::from("bindings.diff"), unified_diff(&old, &new));
    }
    Ok(Outcome { review, files })
}

/// The unified diff of two rendered package sets, file by file.
fn unified_diff(old: &crate::generate::Outputs, new: &crate::generate::Outputs) -> String {
    let flatten = |outputs: &crate::generate::Outputs| -> Files {
        outputs.iter().flat_map(|(folder, files)| files.iter().map(move |(path, text)| (Path::new(folder).join(path), text.clone()))).collect()
    };
    let (old, new) = (flatten(old), flatten(new));
    let mut paths: Vec<&PathBuf> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut text = String::new();
    for path in paths {
        let (before, after) = (old.get(path).map_or("", String::as_str), new.get(path).map_or("", String::as_str));
        if before == after {
            continue;
        }
        let name = path.display().to_string();
        let diff = similar::TextDiff::from_lines(before, after);
        text.push_str(&diff.unified_diff().context_radius(3).header(&format!("base/{name}"), &format!("head/{name}")).to_string());
    }
    text
}

/// The level `--fail-on` names.
pub fn fail_level(name: &str) -> Result<Level> {
    match name {
        "breaking" => Ok(Level::Breaking),
        "warning" => Ok(Level::Warning),
        other => bail!("--fail-on takes `breaking` or `warning`, not `{other}`"),
    }
}

/// Writes the files of a review under `out` (replaced as a whole).
pub fn write(out: &Path, files: &Files) -> Result<()> {
    output::replace_directory(out, files)
}
