//! `cargo xtask interop`: our connections against other implementations,
//! over real processes and stdio. Each cell plays one session (initialize,
//! `session/new`, prompts with tool calls, a permission request and file
//! reads and writes where the agent makes them) between a client and an
//! agent, records it, and passes when the client saw every prompt end with
//! a stop reason and `check-trace` finds nothing in the recording.
//!
//! The peers: the official Rust SDK's example client
//! (`yolo_one_shot_client`, built from the published crate) and a small
//! agent written on its own API (`tests/interop/official-rust`); a small
//! agent and client on each of the official TypeScript and Python SDKs'
//! APIs (`tests/interop/official-typescript`, `tests/interop/official-python`,
//! since neither SDK ships an example that plays a turn), whose clients take
//! our clients' command line; and real agents published on the npm
//! registry, run by `tests/agents/capture.py` against its mock model on
//! 127.0.0.1. Ours: the clients and agents of `tests/interop/rust`,
//! `tests/interop/typescript` and `tests/interop/python`, on the bindings of
//! the default schema (Python's run by the interpreter of the tests'
//! environment, `.tools/venv`). Every client of ours plays every agent; each
//! official client plays our agents.
//!
//! [`build`] builds and installs everything under `target/interop/`,
//! [`play`] plays a cell, [`page`] prints the matrix (pass, or the first
//! failure and whose it is) and, with `--out`, writes it as Markdown; the
//! command fails unless every cell passes.

mod build;
mod page;
mod play;
mod program;

use std::path::Path;

use anyhow::{bail, Result};

use crate::tools::{virtual_environment, workspace_root};
use program::{Program, Setup};

/// The real agents of the matrix (names of `capture.py`'s recipes).
const REAL_AGENTS: [&str; 2] = ["codex", "claude-code"];

pub fn run(out: Option<&Path>) -> Result<()> {
    let workspace = workspace_root();
    let folder = workspace.join("target").join("interop");
    let setup = Setup { target: folder.join("target"), folder, workspace };
    let bindings = build::generate(&setup)?;
    let rust = build::ours_rust(&setup, &bindings)?;
    let typescript_entry = build::typescript_package(&bindings)?;
    let python = virtual_environment(&setup.workspace.join(".tools"), &setup.workspace.join("tests").join("python").join("requirements.txt"))?;
    let official_rust = build::official_rust(&setup)?;
    let official_typescript = build::official_typescript(&setup)?;
    let official_python = build::official_python(&setup)?;

    let python_bindings = bindings.join("python");
    let python_path = [("PYTHONPATH", python_bindings.as_path())];
    let package = [("ACP_PACKAGE", typescript_entry.as_path())];
    let typescript = setup.sources("typescript");
    let python_scripts = setup.sources("python");
    let node = Path::new("node");
    let ours_clients = [
        Program::new("ours (Rust)", &[&rust.join("client")], &[]),
        Program::new("ours (TypeScript)", &[node, &typescript.join("client.mjs")], &package),
        Program::new("ours (Python)", &[&python, &python_scripts.join("client.py")], &python_path),
    ];
    let ours_agents = [
        Program::new("ours (Rust)", &[&rust.join("agent")], &[]),
        Program::new("ours (TypeScript)", &[node, &typescript.join("agent.mjs")], &package),
        Program::new("ours (Python)", &[&python, &python_scripts.join("agent.py")], &python_path),
    ];
    let official_agents = [&official_rust.agent, &official_typescript.agent, &official_python.agent];

    let mut cells = Vec::new();
    for client in &ours_clients {
        for agent in ours_agents.iter().chain(official_agents) {
            cells.push(play::client_against(&setup, client, agent));
        }
        for name in REAL_AGENTS {
            cells.push(play::real_agent(&setup, client, name));
        }
    }
    for agent in &ours_agents {
        cells.push(play::rust_example_client(&setup, &official_rust.client, agent));
    }
    for client in [&official_typescript.client, &official_python.client] {
        for agent in &ours_agents {
            cells.push(play::client_against(&setup, client, agent));
        }
    }
    let table = page::matrix(&cells);
    print!("{table}");
    if let Some(out) = out {
        crate::output::write_file(out, page::page(&table).as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let failed = cells.iter().filter(|cell| cell.outcome.is_err()).count();
    if failed > 0 {
        bail!("{failed} of {} interop cells failed", cells.len());
    }
    Ok(())
}
