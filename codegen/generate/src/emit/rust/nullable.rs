//! The generated crate's `nullable` module (`templates/rust/nullable.rs`,
//! copied as it is): `Nullable<T>`, the type of every
//! member that may be absent and may also be `null`, so the two stay apart
//! and re-encode as they came (`Option<Option<T>>` would do the same but
//! reads as two unwraps and says nothing about which `None` is which).

use proc_macro2::TokenStream;

use acp_ir::error::CodegenError;

/// The module's source, a real file beside the templates that this crate
/// compiles in its tests.
const SOURCE: &str = include_str!("../../../../../templates/rust/nullable.rs");

pub(crate) fn emit() -> Result<TokenStream, CodegenError> {
    SOURCE.parse().map_err(|error: proc_macro2::LexError| {
        CodegenError::internal("templates/rust/nullable.rs", format!("does not parse: {error}"))
    })
}
