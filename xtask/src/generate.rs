//! `cargo xtask generate`: everything generated from one schema. Each
//! folder is rendered into a sink: in memory ([`render`], for the commands
//! that use the files themselves), or staged beside its output folder and
//! committed once all of them are rendered ([`generate`]), so that bad
//! input writes nothing and no folder is held in memory whole.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use acp_codegen::emit::{PackageNames, LANGUAGES};
use acp_codegen::lower::Unsupported;
use acp_schema_source::{ExtendedSchema, SourceOptions};

use crate::output::{self, Files, Sink};

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
    check_languages(languages)?;
    render_schema(&acp_schema_source::load(source)?, names, languages, tolerant, strict_names)
}

fn check_languages(languages: &[String]) -> Result<()> {
    for language in languages {
        if !LANGUAGES.iter().any(|(known, _)| known == language) {
            bail!("unknown language `{language}` (known: rust, typescript, python)");
        }
    }
    Ok(())
}

/// [`render`] for a schema already assembled.
pub fn render_schema(schema: &ExtendedSchema, names: &PackageNames, languages: &[String], tolerant: bool, strict_names: bool) -> Result<Outputs> {
    render_into(schema, names, languages, tolerant, strict_names, &|_| Ok(Files::new()))
}

/// Generates from `source` into `out`: each folder is staged as it is
/// rendered ([`output::Update`]) and all of them are committed only once
/// every one has been rendered, so bad input writes nothing.
pub fn generate(source: &SourceOptions, names: &PackageNames, languages: &[String], tolerant: bool, strict_names: bool, out: &Path) -> Result<()> {
    check_languages(languages)?;
    let schema = acp_schema_source::load(source)?;
    let updates = render_into(&schema, names, languages, tolerant, strict_names, &|folder| output::Update::begin(&out.join(folder)))?;
    updates.into_iter().try_for_each(|(_, update)| update.commit())
}

/// Renders every folder into a sink that `open` gives by folder name. The
/// emitters and the vectors only read the IR: each runs on a thread of its
/// own and fills its own sink, and the folders keep a fixed order whatever
/// finishes first.
fn render_into<S: Sink + Send>(
    schema: &ExtendedSchema,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    strict_names: bool,
    open: &(dyn Fn(&str) -> Result<S> + Sync),
) -> Result<Vec<(String, S)>> {
    let ir = crate::lowering::lower_told(schema, Unsupported::Fail, strict_names)?;
    let ir = if tolerant { acp_codegen::tolerant::tolerant(&ir) } else { ir };
    let wanted = LANGUAGES.into_iter().filter(|(language, _)| languages.is_empty() || languages.iter().any(|wanted| wanted == language));
    // Printed by the first emitter that needs it, while the others go on.
    let schema_text = std::sync::OnceLock::new();
    std::thread::scope(|scope| {
        let (ir, schema_text) = (&ir, &schema_text);
        let bindings: Vec<_> = wanted
            .map(|(language, emit)| {
                let emitting = scope.spawn(move || -> Result<S> {
                    let mut sink = open(language)?;
                    for (path, text) in emit(ir, names)? {
                        sink.add(path, text)?;
                    }
                    for (path, text) in acp_codegen::emit::package::extras(ir, names, language, schema_text.get_or_init(|| schema.to_pretty_json()))? {
                        sink.add(path, text)?;
                    }
                    Ok(sink)
                });
                (language, emitting)
            })
            .collect();
        let vectors = scope.spawn(|| {
            let mut sink = open("vectors")?;
            checked_vectors_into(schema, ir, &mut sink)?;
            Ok::<_, anyhow::Error>(sink)
        });
        let mut outputs = Vec::new();
        for (language, emitting) in bindings {
            outputs.push((language.to_owned(), emitting.join().map_err(|_| anyhow::anyhow!("the {language} emitter panicked"))??));
        }
        let mut schema_sink = open("schema")?;
        schema_sink.add(PathBuf::from("acp.schema.json"), schema_text.get_or_init(|| schema.to_pretty_json()).clone())?;
        outputs.push(("schema".to_owned(), schema_sink));
        outputs.push(("vectors".to_owned(), vectors.join().map_err(|_| anyhow::anyhow!("the vector generator panicked"))??));
        Ok(outputs)
    })
}

/// The packages of every language for `ir`, without schema and vectors.
pub fn render_bindings(ir: &acp_codegen::Ir, names: &PackageNames) -> Result<Outputs> {
    LANGUAGES.into_iter().map(|(language, emit)| Ok((language.to_owned(), emit(ir, names)?.into_iter().collect()))).collect()
}

/// Writes every rendered folder under `out`.
pub fn write(out: &Path, outputs: &Outputs) -> Result<()> {
    outputs.iter().try_for_each(|(folder, files)| output::replace_directory(&out.join(folder), files))
}

/// The vectors of `ir`, refused if the validator disagrees with any of them.
pub fn checked_vectors(schema: &ExtendedSchema, ir: &acp_codegen::Ir) -> Result<Files> {
    let mut files = Files::new();
    checked_vectors_into(schema, ir, &mut files)?;
    Ok(files)
}

/// [`checked_vectors`] into `sink`. Each type's vectors are made, checked
/// and printed before the next, and handed over, so that at most one type's
/// are held in memory.
fn checked_vectors_into(schema: &ExtendedSchema, ir: &acp_codegen::Ir, sink: &mut dyn Sink) -> Result<()> {
    let names: Vec<&String> = ir.types.keys().collect();
    let checker = acp_codegen::validate::Checker::new(&schema.document, ir, &names).map_err(|finding| anyhow::anyhow!("{}", finding.message))?;
    let mut report = acp_codegen::validate::Report::default();
    for definition in ir.types.values() {
        let file = acp_codegen::vectors::of_type(ir, definition);
        checker.check(&definition.name, &file, &mut report);
        sink.add(PathBuf::from(format!("{}.json", definition.name)), acp_codegen::vectors::to_pretty_json(&file))?;
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
    Ok(())
}
