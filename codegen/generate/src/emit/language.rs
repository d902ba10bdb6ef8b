//! What a language is to the generator: one [`Language`] value per
//! language, declared in that language's emitter folder
//! (`emit/<language>/language.rs`), names every piece of it (its name, its
//! output folder, its emitter and what its package carries besides its
//! code). [`super::LANGUAGES`] lists them; every list of languages, here and
//! in the xtask, derives from it.

use std::path::PathBuf;

use acp_ir::error::CodegenError;

use super::files::{Emitter, PackageNames};

/// One language's registration.
#[derive(Debug)]
pub struct Language {
    /// The name `--lang` takes, and the folder its package is written to
    /// (`rust`).
    pub id: &'static str,
    /// The name people call it by (`Rust`).
    pub name: &'static str,
    /// The emitter of its package's code.
    pub emit: Emitter,
    /// What its package carries besides the code ([`super::package`]).
    pub package: Package,
    /// The public name of a schema type, of one of its variants (by label)
    /// or of one of its members (by wire name), as the review's binding
    /// impact shows it: `(type, variant, member)`.
    pub api_name: fn(&str, Option<&str>, Option<&str>) -> String,
}

/// The language's answers to [`super::package`]: how its package is named,
/// installed and shown in its README.
#[derive(Debug)]
pub struct Package {
    /// The name the package is published under.
    pub name: fn(&PackageNames) -> String,
    /// The command that installs the package at its version.
    pub install: fn(&PackageNames) -> String,
    /// The Markdown fence of the README's usage example.
    pub fence: &'static str,
    /// Where the package keeps the extended schema.
    pub schema_path: fn(&PackageNames) -> PathBuf,
    /// The usage example: a whole program that imports the package by its
    /// name (as rendered, before [`super::package::example`] trims it).
    pub example: fn(&PackageNames) -> Result<String, CodegenError>,
    /// Where the package also ships the usage example as a file, if it does.
    pub example_file: Option<&'static str>,
    /// Whether the package's name can be published at its version, or why
    /// not (Go's module path carries the major version from v2 on).
    pub publishable: fn(&PackageNames) -> Result<(), String>,
    /// What the package holds, as the README's first paragraph ends.
    pub contents: &'static str,
    /// What the usage example does, as the README introduces it.
    pub usage: &'static str,
    /// What the package exports for every schema, as the README says when
    /// the example is left out.
    pub exports: &'static str,
}

/// [`Package::publishable`] of a package whose name fits every version.
pub fn any_version(_: &PackageNames) -> Result<(), String> {
    Ok(())
}

/// The README's answers ([`Package::contents`], [`Package::usage`],
/// [`Package::exports`]) of a package with the whole surface: types,
/// method tables and negotiation.
pub const FULL_CONTENTS: &str = "a type per schema type with its decoder\nand encoder, the method tables of both sides (agent and client) with\ndispatchers, and capability negotiation";
pub const FULL_USAGE: &str =
    "Decode a value by its type name, decode a notification by its method, and\nnegotiate capabilities from an `initialize` exchange";
pub const FULL_EXPORTS: &str = "a decoder and encoder per type, `roundtrip` by type name,\ndecoding by method name, the dispatchers and `negotiate`";
