//! `cargo xtask generate`: everything generated from one schema, rendered in
//! memory first (so bad input writes nothing), then written folder by folder.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use acp_codegen::emit::{PackageNames, LANGUAGES};
use acp_codegen::lower::Unsupported;
use acp_schema_source::{ExtendedSchema, SourceOptions};

use crate::output::{self, Files};

/// Output folder name -> its files.
pub type Outputs = Vec<(String, Files)>;

/// Renders the bindings of every language (each package with its README and
/// the extended schema, [`acp_codegen::emit::package`]), the extended schema
/// and the vectors.
/// `languages` picks emitters by folder name (`rust`, `typescript`,
/// `python`); empty means all. `tolerant` opens every closed tagged union
/// on decode ([`acp_codegen::tolerant`]); `strict_names` refuses a name the
/// collision rule would change ([`crate::lowering`]).
pub fn render(source: &SourceOptions, names: &PackageNames, languages: &[String], tolerant: bool, strict_names: bool) -> Result<Outputs> {
    for language in languages {
        if !LANGUAGES.iter().any(|(known, _)| known == language) {
            bail!("unknown language `{language}` (known: rust, typescript, python)");
        }
    }
    render_schema(&acp_schema_source::load(source)?, names, languages, tolerant, strict_names)
}

/// [`render`] for a schema already assembled.
pub fn render_schema(schema: &ExtendedSchema, names: &PackageNames, languages: &[String], tolerant: bool, strict_names: bool) -> Result<Outputs> {
    let ir = crate::lowering::lower_told(schema, Unsupported::Fail, strict_names)?;
    let ir = if tolerant { acp_codegen::tolerant::tolerant(&ir) } else { ir };
    let wanted = LANGUAGES.into_iter().filter(|(language, _)| languages.is_empty() || languages.iter().any(|wanted| wanted == language));
    // Printed by the first emitter that needs it, while the others go on.
    let schema_text = std::sync::OnceLock::new();
    // The emitters and the vectors only read the IR: each runs on a thread of
    // its own, and the outputs keep this fixed order whatever finishes first.
    std::thread::scope(|scope| {
        let (ir, schema_text) = (&ir, &schema_text);
        let bindings: Vec<_> = wanted
            .map(|(language, emit)| {
                let emitting = scope.spawn(move || -> Result<Files> {
                    let mut files: Files = emit(ir, names)?.into_iter().collect();
                    files.extend(acp_codegen::emit::package::extras(ir, names, language, schema_text.get_or_init(|| schema.to_pretty_json()))?);
                    Ok(files)
                });
                (language, emitting)
            })
            .collect();
        let vectors = scope.spawn(|| checked_vectors(schema, ir));
        let mut outputs = Outputs::new();
        for (language, emitting) in bindings {
            outputs.push((language.to_owned(), emitting.join().map_err(|_| anyhow::anyhow!("the {language} emitter panicked"))??));
        }
        outputs.push(("schema".to_owned(), [(PathBuf::from("acp.schema.json"), schema_text.get_or_init(|| schema.to_pretty_json()).clone())].into_iter().collect()));
        outputs.push(("vectors".to_owned(), vectors.join().map_err(|_| anyhow::anyhow!("the vector generator panicked"))??));
        Ok(outputs)
    })
}

/// The packages of every language for `ir`, without schema and vectors.
pub fn render_bindings(ir: &acp_codegen::Ir, names: &PackageNames) -> Result<Outputs> {
    LANGUAGES.into_iter().map(|(language, emit)| Ok((language.to_owned(), emit(ir, names)?.into_iter().collect()))).collect()
}

/// Writes every rendered folder under `out`, each on a thread of its own
/// (most of the work, when regenerating, is reading what is there to compare).
pub fn write(out: &Path, outputs: &Outputs) -> Result<()> {
    std::thread::scope(|scope| {
        let writing: Vec<_> = outputs.iter().map(|(folder, files)| (folder, scope.spawn(move || output::replace_directory(&out.join(folder), files)))).collect();
        writing.into_iter().try_for_each(|(folder, written)| written.join().map_err(|_| anyhow::anyhow!("writing {folder} panicked"))?)
    })
}

/// The vectors of `ir`, refused if the validator disagrees with any of them.
/// Each type's vectors are made, checked and printed before the next, so
/// that only their text stays in memory.
pub fn checked_vectors(schema: &ExtendedSchema, ir: &acp_codegen::Ir) -> Result<Files> {
    let names: Vec<&String> = ir.types.keys().collect();
    let checker = acp_codegen::validate::Checker::new(&schema.document, ir, &names).map_err(|finding| anyhow::anyhow!("{}", finding.message))?;
    let mut report = acp_codegen::validate::Report::default();
    let mut files = Files::new();
    for definition in ir.types.values() {
        let file = acp_codegen::vectors::of_type(ir, definition);
        checker.check(&definition.name, &file, &mut report);
        files.insert(PathBuf::from(format!("{}.json", definition.name)), acp_codegen::vectors::to_pretty_json(&file));
    }
    if let Some(finding) = report.findings.first() {
        bail!(
            "{} of {} vector checks disagree with the schema; first: {} / {}: {}",
            report.findings.len(),
            report.checked,
            finding.type_name,
            finding.vector,
            finding.message
        );
    }
    Ok(files)
}
