//! Emitters: one per language, each a function from the IR to the files of
//! one package. Emitters return files and never write them (the xtask does),
//! make no schema decisions (the IR did) and take every name from
//! [`acp_ir::naming`]. [`package`] adds what every language's package
//! carries besides its code (README, schema) and owns the version scheme.

mod files;
pub mod package;
mod prose;
pub mod python;
pub mod rust;
pub mod typescript;

pub use files::{Emitter, Files, PackageNames};

/// Every language, with the folder its package goes to.
pub const LANGUAGES: [(&str, Emitter); 3] = [
    ("rust", rust::emit),
    ("typescript", typescript::emit),
    ("python", python::emit),
];
