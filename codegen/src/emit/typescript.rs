//! The TypeScript emitter: an ESM package with the schema's types
//! (`src/types.ts`), zero-dependency decoders (`src/decode.ts`), the method
//! tables and side interfaces (`src/methods.ts`) and the by-name codec
//! (`src/index.ts`), rendered from the askama templates in
//! `templates/typescript/`.
//!
//! Decoded values have the wire shape, so encoding is a copy: the decoders
//! do all the work (rules, constraints, catch-alls) and the types describe
//! the JSON exactly. Everything a template prints is resolved here.

mod codecs;
mod methods;
mod types;

use std::collections::BTreeSet;
use std::path::PathBuf;

use askama::Template;

use super::{Files, PackageNames};
use crate::error::{CodegenError, ErrorKind};
use crate::ir::Ir;
use crate::naming;

/// The TypeScript compiler the package is built with (exact, as locked).
const TYPESCRIPT_VERSION: &str = "5.9.3";

/// Names the package exports besides the schema's types.
const FIXED_EXPORTS: &[&str] =
    &["JsonValue", "DecodeIssue", "DecodeResult", "DecodeError", "decodeByName", "encode", "roundtrip", "METHODS", "MethodName"];

#[derive(Template)]
#[template(path = "typescript/package.json", escape = "none")]
struct PackageJson {
    /// The package name as a JSON string.
    name: String,
    typescript: &'static str,
}

#[derive(Template)]
#[template(path = "typescript/package-lock.json", escape = "none")]
struct PackageLock {
    name: String,
    typescript: &'static str,
}

#[derive(Template)]
#[template(path = "typescript/tsconfig.json", escape = "none")]
struct TsConfig;

#[derive(Template)]
#[template(path = "typescript/index.ts", escape = "none")]
struct Index;

/// Emits the TypeScript package for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    check_exports(ir)?;
    let name = json_string(&names.npm_package);
    let package = PackageJson { name: name.clone(), typescript: TYPESCRIPT_VERSION };
    let lock = PackageLock { name, typescript: TYPESCRIPT_VERSION };
    Ok(vec![
        (PathBuf::from("package.json"), render(&package, "package.json")?),
        (PathBuf::from("package-lock.json"), render(&lock, "package-lock.json")?),
        (PathBuf::from("tsconfig.json"), render(&TsConfig, "tsconfig.json")?),
        (PathBuf::from("src/types.ts"), render(&types::view(ir), "types.ts")?),
        (PathBuf::from("src/decode.ts"), render(&codecs::view(ir), "decode.ts")?),
        (PathBuf::from("src/methods.ts"), render(&methods::view(ir)?, "methods.ts")?),
        (PathBuf::from("src/index.ts"), render(&Index, "index.ts")?),
    ])
}

/// Every name the entry point re-exports must be unique: a schema type may
/// not take a name the package itself defines.
fn check_exports(ir: &Ir) -> Result<(), CodegenError> {
    let mut taken: BTreeSet<String> = FIXED_EXPORTS.iter().map(|name| (*name).to_owned()).collect();
    for side in methods::SIDES {
        for role in methods::ROLES {
            taken.insert(naming::typescript_side_type(side, role));
        }
    }
    let type_names: BTreeSet<String> = ir.types.keys().map(|name| naming::typescript_type(name)).collect();
    for definition in ir.types.values() {
        let defaults = naming::typescript_defaults(&naming::typescript_type(&definition.name));
        if types::has_defaults(definition) && type_names.contains(&defaults) {
            return Err(collision(definition, &defaults));
        }
    }
    for definition in ir.types.values() {
        let name = naming::typescript_type(&definition.name);
        if taken.contains(&name) {
            return Err(collision(definition, &name));
        }
    }
    Ok(())
}

fn collision(definition: &crate::ir::TypeDef, name: &str) -> CodegenError {
    CodegenError {
        kind: ErrorKind::NameCollision,
        file: "typescript bindings".to_owned(),
        pointer: definition.pointer.clone(),
        message: format!("the TypeScript name `{name}` is also defined by the package itself"),
    }
}

fn render(template: &impl Template, file: &str) -> Result<String, CodegenError> {
    template.render().map_err(|error| CodegenError {
        kind: ErrorKind::Unsupported,
        file: format!("templates/typescript/{file}"),
        pointer: String::new(),
        message: error.to_string(),
    })
}

/// `text` as a JSON (and JavaScript) string literal.
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// A TSDoc block for `description` and `notes`, one output line per entry
/// (without indentation), or nothing. `*/` never survives into the text, so
/// no description can close the comment.
fn tsdoc(description: Option<&str>, notes: &[String]) -> Vec<String> {
    let mut paragraphs: Vec<&str> = description.map(str::trim).filter(|text| !text.is_empty()).into_iter().collect();
    paragraphs.extend(notes.iter().map(String::as_str));
    if paragraphs.is_empty() {
        return Vec::new();
    }
    let mut lines = vec!["/**".to_owned()];
    for (index, paragraph) in paragraphs.iter().enumerate() {
        if index > 0 {
            lines.push(" *".to_owned());
        }
        for line in paragraph.lines() {
            let escaped = line.trim_end().replace("*/", "*\\/");
            lines.push(if escaped.is_empty() { " *".to_owned() } else { format!(" * {escaped}") });
        }
    }
    lines.push(" */".to_owned());
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsdoc_cannot_be_closed_by_a_description() {
        let lines = tsdoc(Some("ends */ here\n\nsecond"), &["note".to_owned()]);
        assert_eq!(lines, ["/**", " * ends *\\/ here", " *", " * second", " *", " * note", " */"]);
        assert!(tsdoc(None, &[]).is_empty());
    }
}
