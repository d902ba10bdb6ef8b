//! The one library entry of generation, in the manner of prost-build:
//! [`generate`] turns an extended schema and its IR into every output
//! folder (each language's package with its extras, the extended schema, the
//! checked vectors) and returns them; [`generate_into`] hands each file to a
//! [`Sink`] as it is rendered, so that a writer can stage folders without
//! holding them in memory. Nothing here writes a file.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use acp_schema_source::ExtendedSchema;

use crate::emit::{self, PackageNames, LANGUAGES};
use acp_ir::error::CodegenError;
use acp_ir::ir::Ir;

/// Relative path -> contents, sorted: one output folder held in memory.
pub type Folder = BTreeMap<PathBuf, String>;

/// What to generate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// What the packages are called and their version.
    pub names: PackageNames,
    /// Languages by [`emit::Language::id`] (their folder names); empty: all.
    pub languages: Vec<String>,
    /// Open every closed tagged union on decode ([`acp_ir::tolerant`]).
    pub tolerant: bool,
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Codegen(#[from] CodegenError),
    #[error("unknown language `{0}` (known: {known})", known = emit::ids().join(", "))]
    UnknownLanguage(String),
    /// The validator disagrees with the vectors made from the IR.
    #[error("{0}")]
    Vectors(String),
    /// The sink refused a file.
    #[error("{0}")]
    Sink(String),
    #[error("the {0} generator panicked")]
    Panicked(String),
}

/// Where one folder's files go as they are rendered.
pub trait Sink {
    fn add(&mut self, relative: PathBuf, contents: String) -> Result<(), Error>;
}

impl Sink for Folder {
    fn add(&mut self, relative: PathBuf, contents: String) -> Result<(), Error> {
        self.insert(relative, contents);
        Ok(())
    }
}

/// Every output folder of `schema` (lowered to `ir`), by folder name:
/// each language's (those `options` picks, [`emit::LANGUAGES`]), `schema`,
/// `vectors`.
pub fn generate(schema: &ExtendedSchema, ir: &Ir, options: &Options) -> Result<Vec<(String, Folder)>, Error> {
    generate_into(schema, ir, options, &|_| Ok(Folder::new()))
}

/// [`generate`] into sinks that `open` gives by folder name. The emitters
/// and the vectors only read the IR: each runs on a thread of its own and
/// fills its own sink, and the folders keep a fixed order whatever finishes
/// first.
pub fn generate_into<S: Sink + Send>(
    schema: &ExtendedSchema,
    ir: &Ir,
    options: &Options,
    open: &(dyn Fn(&str) -> Result<S, Error> + Sync),
) -> Result<Vec<(String, S)>, Error> {
    if let Some(unknown) = options
        .languages
        .iter()
        .find(|language| emit::language(language).is_none())
    {
        return Err(Error::UnknownLanguage(unknown.clone()));
    }
    let ir = if options.tolerant {
        Cow::Owned(acp_ir::tolerant::tolerant(ir))
    } else {
        Cow::Borrowed(ir)
    };
    let wanted = LANGUAGES.iter().filter(|language| {
        options.languages.is_empty() || options.languages.iter().any(|wanted| wanted == language.id)
    });
    // Printed by the first emitter that needs it, while the others go on.
    let schema_text = std::sync::OnceLock::new();
    let names = &options.names;
    std::thread::scope(|scope| {
        let (ir, schema_text) = (ir.as_ref(), &schema_text);
        let bindings: Vec<_> = wanted
            .map(|language| {
                let emitting = scope.spawn(move || -> Result<S, Error> {
                    let mut sink = open(language.id)?;
                    for (path, text) in (language.emit)(ir, names)? {
                        sink.add(path, text)?;
                    }
                    for (path, text) in
                        emit::package::extras(ir, names, language, schema_text.get_or_init(|| schema.to_pretty_json()))?
                    {
                        sink.add(path, text)?;
                    }
                    Ok(sink)
                });
                (language.id, emitting)
            })
            .collect();
        let vectors = scope.spawn(|| {
            let mut sink = open("vectors")?;
            checked_vectors_into(schema, ir, &mut sink)?;
            Ok::<_, Error>(sink)
        });
        let mut outputs = Vec::new();
        for (language, emitting) in bindings {
            outputs.push((
                language.to_owned(),
                emitting.join().map_err(|_| Error::Panicked(language.to_owned()))??,
            ));
        }
        let mut schema_sink = open("schema")?;
        schema_sink.add(
            PathBuf::from("acp.schema.json"),
            schema_text.get_or_init(|| schema.to_pretty_json()).clone(),
        )?;
        outputs.push(("schema".to_owned(), schema_sink));
        outputs.push((
            "vectors".to_owned(),
            vectors.join().map_err(|_| Error::Panicked("vector".to_owned()))??,
        ));
        Ok(outputs)
    })
}

/// The packages of every language for `ir`, without schema and vectors.
pub fn bindings(ir: &Ir, names: &PackageNames) -> Result<Vec<(String, Folder)>, Error> {
    LANGUAGES
        .iter()
        .map(|language| {
            Ok((
                language.id.to_owned(),
                (language.emit)(ir, names)?.into_iter().collect(),
            ))
        })
        .collect()
}

/// The vectors of `ir`, refused if the validator disagrees with any of them.
pub fn checked_vectors(schema: &ExtendedSchema, ir: &Ir) -> Result<Folder, Error> {
    let mut files = Folder::new();
    checked_vectors_into(schema, ir, &mut files)?;
    Ok(files)
}

/// [`checked_vectors`] into `sink`. Each type's vectors are made, checked
/// and printed before the next, and handed over, so that at most one type's
/// are held in memory.
fn checked_vectors_into(schema: &ExtendedSchema, ir: &Ir, sink: &mut dyn Sink) -> Result<(), Error> {
    let names: Vec<&String> = ir.types.keys().collect();
    let checker = acp_vectors::validate::Checker::new(&schema.document, ir, &names)
        .map_err(|finding| Error::Vectors(finding.message))?;
    let mut report = acp_vectors::validate::Report::default();
    for definition in ir.types.values() {
        let file = acp_vectors::vectors::of_type(ir, definition);
        checker.check(&definition.name, &file, &mut report);
        sink.add(
            PathBuf::from(format!("{}.json", definition.name)),
            acp_vectors::vectors::to_pretty_json(&file),
        )?;
    }
    match report.findings.first() {
        Some(finding) => Err(Error::Vectors(format!(
            "{} of {} vector checks disagree with the schema; first: {} / {}: {}",
            report.findings.len(),
            report.checked,
            finding.type_name,
            finding.vector,
            finding.message
        ))),
        None => Ok(()),
    }
}
