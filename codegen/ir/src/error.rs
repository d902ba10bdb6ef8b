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
    /// A failure of the generator itself, not of the schema: a template
    /// that does not render, generated Rust that does not parse, a worker
    /// that panicked. A bug to report.
    Internal,
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

impl CodegenError {
    /// A failure of the generator itself in `part` (a template, an
    /// emitter): no schema location, and said to be a bug.
    pub fn internal(part: impl Into<String>, message: impl std::fmt::Display) -> CodegenError {
        CodegenError {
            kind: ErrorKind::Internal,
            file: part.into(),
            pointer: String::new(),
            message: format!("internal error (a bug of the generator, not of the schema): {message}"),
        }
    }
}
