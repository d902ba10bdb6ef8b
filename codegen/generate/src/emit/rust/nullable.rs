//! The generated crate's `nullable` module (`templates/rust/nullable.rs`,
//! copied as text, comments kept): `Nullable<T>`, the type of every
//! member that may be absent and may also be `null`, so the two stay apart
//! and re-encode as they came (`Option<Option<T>>` would do the same but
//! reads as two unwraps and says nothing about which `None` is which).

/// The module's source, a real file beside the templates that this crate
/// compiles in its tests, written into every generated crate as it is.
pub(crate) const SOURCE: &str = include_str!("../../../../../templates/rust/nullable.rs");
