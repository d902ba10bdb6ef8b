//! The real agents' captures of `tests/captures/` (real ACP agents from the
//! npm registry against a mock model; see `tests/agents/`): which files
//! they are, and their messages, read by the trace checker's own reader
//! ([`acp_trace::input`]). The captures suite and the fuzzers'
//! seeds both read them from here.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use acp_trace::input::{Inputs, Reader, Record};
use acp_trace::{Direction, Place};

/// The captures, in name order; an error when there is none.
pub fn files(workspace: &Path) -> Result<Vec<PathBuf>> {
    let folder = workspace.join("tests").join("captures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|path| path.extension().is_some_and(|extension| extension == "jsonl"));
    files.sort();
    if files.is_empty() {
        bail!("no capture in {}", folder.display());
    }
    Ok(files)
}

/// One message of a capture: where it is, which way it went, and what it was.
pub struct Captured {
    pub at: Place,
    pub direction: Direction,
    pub message: Value,
}

/// The messages of the capture at `path`, in order; a record that is not
/// a message (a NATS frame) is an error naming its line.
pub fn messages(path: &Path) -> Result<Vec<Captured>> {
    let mut reader = Reader::open(&Inputs::Records(path.to_path_buf()))?;
    let mut messages = Vec::new();
    while let Some(entry) = reader.read()? {
        match entry.record {
            Record::Message { direction, message } => messages.push(Captured {
                at: entry.at,
                direction,
                message,
            }),
            Record::Frame { .. } => bail!("{}:{}: a frame, not a message", path.display(), entry.at.line),
        }
    }
    Ok(messages)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_capture_reads_as_messages_of_both_directions() {
        let workspace = crate::support::tools::workspace_root();
        let files = super::files(&workspace).unwrap();
        assert!(files.len() >= 5, "{files:?}");
        for path in files {
            let messages = super::messages(&path).unwrap();
            for direction in acp_trace::Direction::BOTH {
                assert!(
                    messages.iter().any(|captured| captured.direction == direction),
                    "{}: no message {}",
                    path.display(),
                    direction.as_str()
                );
            }
        }
    }
}
