//! `cargo xtask generate`: everything generated from one schema. Each
//! folder is rendered into a sink: in memory ([`render`], for the commands
//! that use the files themselves), or staged beside its output folder and
//! committed once all of them are rendered ([`generate`]), so that bad
//! input writes nothing and no folder is held in memory whole.

use std::path::Path;

use anyhow::Result;

use acp_generate::emit::PackageNames;
use acp_ir::lower::Unsupported;
use acp_schema_source::{ExtendedSchema, SourceOptions};

use crate::support::output::{self, Files};

/// Output folder name -> its files.
pub type Outputs = Vec<(String, Files)>;

/// Renders the bindings of every language (each package with its README and
/// the extended schema, [`acp_generate::emit::package`]), the extended schema
/// and the vectors.
/// `languages` picks emitters by their registered id; empty means all. `tolerant` opens every closed tagged union
/// on decode ([`acp_ir::tolerant`]); `strict_names` refuses a name the
/// collision rule would change ([`crate::support::lowering`]).
pub fn render(
    source: &SourceOptions,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    strict_names: bool,
) -> Result<Outputs> {
    render_schema(
        &acp_schema_source::load(source)?,
        names,
        languages,
        tolerant,
        strict_names,
    )
}

/// [`render`] for a schema already assembled.
pub fn render_schema(
    schema: &ExtendedSchema,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    strict_names: bool,
) -> Result<Outputs> {
    render_into(schema, names, languages, tolerant, strict_names, &|_| Ok(Files::new()))
}

/// Generates from `source` into `out`: each folder is staged as it is
/// rendered ([`output::Update`]) and all of them are committed only once
/// every one has been rendered, so bad input writes nothing.
pub fn generate(
    source: &SourceOptions,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    strict_names: bool,
    out: &Path,
) -> Result<()> {
    let schema = acp_schema_source::load(source)?;
    let updates = render_into(&schema, names, languages, tolerant, strict_names, &|folder| {
        output::Update::begin(&out.join(folder))
    })?;
    updates.into_iter().try_for_each(|(_, update)| update.commit())
}

/// The command: generates from `source` into `out` and says so.
pub fn command(
    source: &crate::SourceArgs,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    out: &Path,
) -> Result<()> {
    generate(&source.options(), names, languages, tolerant, source.strict_names, out)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// Lowers `schema` (telling renamed names, [`crate::support::lowering`]) and has
/// [`acp_generate::generate_into`] render every folder into a sink that
/// `open` gives by folder name.
fn render_into<S: acp_generate::Sink + Send>(
    schema: &ExtendedSchema,
    names: &PackageNames,
    languages: &[String],
    tolerant: bool,
    strict_names: bool,
    open: &(dyn Fn(&str) -> Result<S> + Sync),
) -> Result<Vec<(String, S)>> {
    let ir = crate::support::lowering::lower_told(schema, Unsupported::Fail, strict_names)?;
    let options = acp_generate::Options {
        names: names.clone(),
        languages: languages.to_vec(),
        tolerant,
    };
    let open = |folder: &str| open(folder).map_err(|error| acp_generate::Error::Sink(format!("{error:#}")));
    Ok(acp_generate::generate_into(schema, &ir, &options, &open)?)
}

/// The packages of every language for `ir`, without schema and vectors.
pub fn render_bindings(ir: &acp_ir::Ir, names: &PackageNames) -> Result<Outputs> {
    Ok(acp_generate::pipeline::bindings(ir, names)?)
}

/// Writes every rendered folder under `out`.
pub fn write(out: &Path, outputs: &Outputs) -> Result<()> {
    outputs
        .iter()
        .try_for_each(|(folder, files)| output::replace_directory(&out.join(folder), files))
}

/// The vectors of `ir`, refused if the validator disagrees with any of them.
pub fn checked_vectors(schema: &ExtendedSchema, ir: &acp_ir::Ir) -> Result<Files> {
    Ok(acp_generate::pipeline::checked_vectors(schema, ir)?)
}
