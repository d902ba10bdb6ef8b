//! What every interop module shares: where the matrix works ([`Setup`]), a
//! program of the matrix and how to start it ([`Program`]), and one played
//! session's outcome ([`Cell`]).

use std::path::{Path, PathBuf};
use std::process::Command;

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
            env: env.iter().map(|(key, value)| ((*key).to_owned(), value.display().to_string())).collect(),
        }
    }

    /// The program with its environment, ready for more arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.command[0]);
        command.args(&self.command[1..]).envs(self.env.iter().map(|(key, value)| (key, value)));
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
