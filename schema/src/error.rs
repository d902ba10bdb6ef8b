//! Typed errors of the source stage. Every error names the file it concerns
//! and, where there is one, the JSON pointer inside the document at fault.

use std::fmt;

/// Where in which document something went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file (or built-in source name, such as `agent-client-protocol-schema@1.20.0`).
    pub file: String,
    /// An RFC 6901 JSON pointer into that file's document; empty for the root.
    pub pointer: String,
}

impl fmt::Display for Location {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(formatter, "{}#{}", self.file, pointer)
    }
}

/// Errors raised while reading or assembling the extended schema.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{file}: cannot read: {message}")]
    Read { file: String, message: String },
    #[error("{file}: not valid JSON (line {line}, column {column}): {message}")]
    Parse {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{location}: {message}")]
    Shape { location: Location, message: String },
    #[error("{overlay}: operation {index} ({op} {pointer}): {message}")]
    Overlay {
        overlay: String,
        index: usize,
        op: String,
        pointer: String,
        message: String,
    },
    #[error("{overlay}: conflicts with the base schema at {pointer}: {message}")]
    OverlayConflict {
        overlay: String,
        pointer: String,
        message: String,
    },
    #[error("unknown RFD overlay `{name}` (known: {known})")]
    UnknownRfd { name: String, known: String },
    #[error("{file}#{pointer}: capability annotation: {message}")]
    Capability {
        file: String,
        pointer: String,
        message: String,
    },
}

impl SourceError {
    pub(crate) fn shape(file: &str, pointer: &str, message: impl Into<String>) -> Self {
        SourceError::Shape {
            location: Location {
                file: file.to_owned(),
                pointer: pointer.to_owned(),
            },
            message: message.into(),
        }
    }
}
