//! `cargo xtask review`: the semantic review of a schema change between two
//! sources ([`crate::support::source`]). An overlay that conflicts with its base is
//! reported, not fatal. The
//! report goes to stdout; `--out DIR` also writes `review.md`,
//! `review.json` and `bindings.diff`, the unified diff of the generated
//! Rust, TypeScript and Python packages.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use acp_generate::emit::PackageNames;
use acp_ir::lower::Unsupported;
use acp_review::{report, rules::Level, tiers::Tier, witness::Schema, Review};

use crate::support::lowering::lower_told;
use crate::support::output::{self, Files};
use crate::support::source::assemble;

/// What a review run produced.
pub struct Outcome {
    pub review: Review,
    pub files: Files,
}

/// Reviews `head` against `base`; `with_bindings` also renders the diff of
/// the generated packages; `strict_names` refuses a name the collision rule
/// changed.
pub fn run(base: &str, head: &str, with_bindings: bool, strict_names: bool) -> Result<Outcome> {
    let base = assemble(base).with_context(|| format!("the base `{base}`"))?;
    let head = assemble(head).with_context(|| format!("the head `{head}`"))?;
    let base_ir = lower_told(&base.schema, Unsupported::Fail, strict_names)
        .with_context(|| format!("lowering the base `{}`", base.label))?;
    let head_ir = lower_told(&head.schema, Unsupported::Fail, strict_names)
        .with_context(|| format!("lowering the head `{}`", head.label))?;
    let mut conflicts = base.conflicts;
    conflicts.extend(head.conflicts);
    let (base_schema, head_schema) = (
        Schema {
            document: &base.schema.document,
            ir: &base_ir,
        },
        Schema {
            document: &head.schema.document,
            ir: &head_ir,
        },
    );
    let review = acp_review::review(&base.label, base_schema, &head.label, head_schema, conflicts)
        .map_err(|error| anyhow::anyhow!("the validator cannot confirm witnesses: {error}"))?;
    let mut files = Files::new();
    files.insert(PathBuf::from("review.md"), report::markdown(&review));
    files.insert(PathBuf::from("review.json"), report::json(&review));
    if with_bindings {
        let names = PackageNames::default();
        let old = crate::commands::generate::render_bindings(&base_ir, &names)?;
        let new = crate::commands::generate::render_bindings(&head_ir, &names)?;
        files.insert(PathBuf::from("bindings.diff"), unified_diff(&old, &new));
    }
    Ok(Outcome { review, files })
}

/// The unified diff of two rendered package sets, file by file.
fn unified_diff(old: &crate::commands::generate::Outputs, new: &crate::commands::generate::Outputs) -> String {
    let flatten = |outputs: &crate::commands::generate::Outputs| -> Files {
        outputs
            .iter()
            .flat_map(|(folder, files)| {
                files
                    .iter()
                    .map(move |(path, text)| (Path::new(folder).join(path), text.clone()))
            })
            .collect()
    };
    let (old, new) = (flatten(old), flatten(new));
    let mut paths: Vec<&PathBuf> = old.keys().chain(new.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut text = String::new();
    for path in paths {
        let (before, after) = (
            old.get(path).map_or("", String::as_str),
            new.get(path).map_or("", String::as_str),
        );
        if before == after {
            continue;
        }
        let name = path.display().to_string();
        let diff = similar::TextDiff::from_lines(before, after);
        text.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("base/{name}"), &format!("head/{name}"))
                .to_string(),
        );
    }
    text
}

/// The level and the least binding tier `--fail-on` names: `breaking` or
/// `warning`, optionally followed by `:stable`, `:unstable` or `:draft`.
/// A tier counts the findings of that tier and of the more binding ones;
/// without one, every tier counts (`:draft`).
pub fn fail_level(name: &str) -> Result<(Level, Tier)> {
    let (level, tier) = name
        .split_once(':')
        .map_or((name, None), |(level, tier)| (level, Some(tier)));
    let level = match level {
        "breaking" => Level::Breaking,
        "warning" => Level::Warning,
        other => bail!("--fail-on takes `breaking` or `warning`, optionally with `:stable`, `:unstable` or `:draft`, not `{other}`"),
    };
    let tier = match tier {
        None => Tier::Draft,
        Some(tier) => Tier::parse(tier)
            .with_context(|| format!("--fail-on: the tier is `stable`, `unstable` or `draft`, not `{tier}`"))?,
    };
    Ok((level, tier))
}

/// Writes the files of a review under `out` (replaced as a whole).
pub fn write(out: &Path, files: &Files) -> Result<()> {
    output::replace_directory(out, files)
}

/// The command: reviews `base` against `head`, prints the report in
/// `format` (`md` or `json`), writes the files to `out` when given, and
/// exits 2 when a change reaches `fail_on` ([`fail_level`]).
pub fn command(
    base: &str,
    head: &str,
    format: &str,
    out: Option<&Path>,
    fail_on: Option<&str>,
    strict_names: bool,
) -> Result<()> {
    let threshold = fail_on.map(fail_level).transpose()?;
    let outcome = run(base, head, out.is_some(), strict_names)?;
    if let Some(out) = out {
        write(out, &outcome.files)?;
        eprintln!("wrote {}", out.display());
    }
    let printed = if format == "json" { "review.json" } else { "review.md" };
    print!("{}", outcome.files[Path::new(printed)]);
    if let Some((level, tier)) = threshold {
        let worst = outcome.review.worst_from(tier);
        if worst >= level {
            eprintln!(
                "review: a change of the {} tier or a more binding one reaches `{}`",
                tier.as_str(),
                worst.as_str()
            );
            std::process::exit(2);
        }
    }
    Ok(())
}
