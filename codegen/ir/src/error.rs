//! Typed errors of the codegen stage: each carries the schema file and the
//! JSON pointer of the node at fault.

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// A shape the IR does not represent (yet).
    Unsupported,
    /// A `$ref` that does not resolve, or points outside `$defs`.
    UnknownReference,
    /// A `$ref` chain that only points back to itself.
    ReferenceCycle,
    /// Two schema entries that map to one canonical name.
    NameCollision,
    /// A keyword with a value of the wrong JSON type or an impossible value.
    Malformed,
}

/// An error of the lowering stage.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}#{pointer}: {message}")]
pub struct CodegenError {
    pub kind: ErrorKind,
    pub file: String,
    pub pointer: String,
    pub message: String,
}
