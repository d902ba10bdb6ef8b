//! What every interop module shares: where the matrix works ([`Setup`]), the
//! protocol version a cell plays ([`Protocol`]), a program of the matrix and
//! how to start it ([`Program`]), and one played session's outcome
//! ([`Cell`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use acp_schema_source::{RfdSelection, SourceOptions};

/// Where everything is built.
pub struct Setup {
    pub workspace: PathBuf,
    /// `target/interop/`.
    pub folder: PathBuf,
    /// The cargo target folder of the Rust programs.
    pub target: PathBuf,
}

impl Setup {
    /// The folder of the interop programs in the repository (`tests/interop/<name>`).
    pub fn sources(&self, name: &str) -> PathBuf {
        self.workspace.join("tests").join("interop").join(name)
    }
}

/// A protocol version the matrix plays: the schema our programs' bindings
/// are generated from and `check-trace` judges its sessions by.
pub struct Protocol {
    /// `v1`, `v2`: in its sessions' folders, and in the names of our
    /// programs on a schema other than the default.
    pub name: &'static str,
    /// The heading of its table.
    pub heading: String,
    /// The schema file, read without RFD overlays (`None`: the default
    /// schema with its RFDs).
    pub schema: Option<PathBuf>,
    /// What the official Rust SDK's example client on this version prints
    /// (on standard error) when its turn ended with `end_turn`.
    pub example_done: &'static str,
}

impl Protocol {
    pub fn source(&self) -> SourceOptions {
        match &self.schema {
            Some(file) => SourceOptions {
                schema_file: Some(file.clone()),
                rfds: RfdSelection::Nothing,
            },
            None => SourceOptions::default(),
        }
    }

    /// A name of one of our programs on this version: `stem` on the default
    /// schema, else `stem`, `separator` and the version's name (`client_v2`).
    pub fn named(&self, stem: &str, separator: char) -> String {
        match self.schema {
            Some(_) => format!("{stem}{separator}{}", self.name),
            None => stem.to_owned(),
        }
    }
}

/// A program of the matrix: what it is and how to start it.
pub struct Program {
    pub label: String,
    /// The executable, then its arguments.
    pub command: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl Program {
    pub fn new(label: &str, command: &[&Path], env: &[(&str, &Path)]) -> Program {
        Program {
            label: label.to_owned(),
            command: command.iter().map(|part| part.display().to_string()).collect(),
            env: env
                .iter()
                .map(|(key, value)| ((*key).to_owned(), value.display().to_string()))
                .collect(),
        }
    }

    /// The program with its environment, ready for more arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.command[0]);
        command
            .args(&self.command[1..])
            .envs(self.env.iter().map(|(key, value)| (key, value)));
        command
    }
}

/// One cell: who played the client and the agent, and how it ended (what
/// the client printed last, or the first failure).
pub struct Cell {
    pub client: String,
    pub agent: String,
    pub outcome: Result<String, String>,
}
