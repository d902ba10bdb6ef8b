//! Emitters: one per language, each a function from the IR to the files of
//! one package. Emitters return files and never write them (the xtask does),
//! make no schema decisions (the IR did) and take every name from
//! [`acp_ir::naming`]. [`package`] adds what every language's package
//! carries besides its code (README, schema) and owns the version scheme.
//! A language is its folder here, whose `language.rs` registers it
//! ([`Language`]), and one line of [`LANGUAGES`].

mod cycles;
mod files;
pub mod go;
mod language;
pub mod package;
mod prose;
pub mod python;
pub mod rust;
pub mod typescript;

pub use files::{Emitter, Files, PackageNames};
pub use language::{Language, Package};

/// Every language, in the order their packages are generated and tested.
pub const LANGUAGES: &[&Language] = &[&rust::LANGUAGE, &typescript::LANGUAGE, &python::LANGUAGE, &go::LANGUAGE];

/// Every language's [`Language::id`], in [`LANGUAGES`] order.
pub fn ids() -> Vec<&'static str> {
    LANGUAGES.iter().map(|language| language.id).collect()
}

/// The language whose [`Language::id`] is `id`.
pub fn language(id: &str) -> Option<&'static Language> {
    LANGUAGES.iter().copied().find(|language| language.id == id)
}
