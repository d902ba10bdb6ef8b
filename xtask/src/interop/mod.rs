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
//! our clients' command line; the example agent and client of
//! `github.com/coder/acp-go-sdk` (`example/agent`, `example/client`, built
//! from the module proxy at the benchmark's pin; the client is interactive
//! and gets its permission answer on standard input); and real agents
//! published on the npm registry, run by `tests/agents/capture.py` against
//! its mock model on 127.0.0.1. Ours: the clients and agents of
//! `tests/interop/rust`, `tests/interop/typescript`, `tests/interop/python`
//! and `tests/interop/go`, on the bindings of the default schema (Python's
//! run by the interpreter of the tests' environment, `.tools/venv`). Every
//! client of ours plays every agent; each other client plays our agents,
//! and our full-surface agents too (those `cargo xtask conformance` runs,
//! which advertise every capability and stream their turns).
//!
//! Protocol v2 has a table of its own: our v2 clients and agents
//! (`tests/interop/rust-v2`, the `-v2`/`_v2` scripts beside the v1 ones,
//! and Go's `cmd/client_v2` and `cmd/agent_v2`), on the bindings of the v2
//! stable schema of the latest pinned upstream release, play each other,
//! the official Rust SDK's v2 agent (on its `unstable_protocol_v2` feature)
//! and v2 example client (`v2_one_shot_client`), and a small v2 agent and
//! client on the official TypeScript SDK's v2 API (`agent-v2.mjs`,
//! `client-v2.mjs` beside its v1 ones; that client plays the official Rust
//! SDK's v2 agent too); the official clients play our v2 full-surface
//! agents too; `check-trace` judges those sessions by that schema.
//! `github.com/coder/acp-go-sdk` speaks protocol v1 only.
//!
//! The cells play a few at a time ([`crate::support::pool`]); a real
//! agent's cells one after another, since its first cell installs it.
//!
//! [`ours`] generates the bindings and builds our programs on them (each
//! language's with its builder of [`our_programs`]), [`build`] builds and
//! installs the other implementations' under `target/interop/`, [`check`]
//! type-checks the Python programs of both, [`play`] plays a cell, [`page`]
//! prints the matrix (pass, or the first failure and whose it is) and, with
//! `--out`, writes it as Markdown; the command fails unless every cell
//! passes.

pub(crate) mod build;
pub(crate) mod check;
pub(crate) mod our_programs;
pub(crate) mod ours;
mod page;
mod play;
pub(crate) mod program;

use std::path::Path;

use anyhow::{bail, Result};

use crate::support::pool::{self, Job};
use crate::support::tools::{virtual_environment, workspace_root};
use crate::support::upstream;
use program::{Cell, Program, Protocol, Setup};

/// The real agents of the matrix (names of `capture.py`'s recipes).
const REAL_AGENTS: [&str; 2] = ["codex", "claude-code"];

/// How many cells play at once: a cell mostly waits on its two processes
/// (about one core's work between them), and the matrix's 113 cells took
/// 4 min 25 s one at a time on two cores.
const CELLS_AT_ONCE: usize = 3;

/// Where the matrix (and `cargo xtask conformance`, which runs the same
/// programs) builds: `target/interop/`.
pub(crate) fn setup() -> Setup {
    let workspace = workspace_root();
    let folder = workspace.join("target").join("interop");
    Setup {
        target: folder.join("target"),
        folder,
        workspace,
    }
}

/// The protocol versions our programs speak: v1 on the default schema, v2
/// on the v2 stable schema of the latest pinned upstream release.
pub(crate) fn protocols(setup: &Setup) -> Result<(Protocol, Protocol)> {
    let release = upstream::SDK_RELEASES[upstream::SDK_RELEASES.len() - 1];
    let schemas = upstream::fetch(&setup.workspace)?
        .join(format!("sdk-{release}"))
        .join("package")
        .join("schema");
    let v1 = Protocol {
        name: "v1",
        heading: "Protocol v1 (the default schema)".to_owned(),
        schema: None,
        example_done: "Stop reason: EndTurn",
    };
    let v2 = Protocol {
        name: "v2",
        heading: format!("Protocol v2 (the v2 stable schema of `@agentclientprotocol/sdk` {release})"),
        schema: Some(schemas.join("v2").join("schema.json")),
        example_done: "Session is idle: Some(EndTurn)",
    };
    Ok((v1, v2))
}

/// The interpreter of the tests' Python environment (`.tools/venv`), which
/// runs our Python programs and has the checkers.
pub(crate) fn tools_python(setup: &Setup) -> Result<std::path::PathBuf> {
    virtual_environment(
        &setup.workspace.join(".tools"),
        &setup.workspace.join("tests").join("python").join("requirements.txt"),
    )
}

pub fn run(out: Option<&Path>) -> Result<()> {
    let setup = setup();
    let (v1, v2) = protocols(&setup)?;
    let python = tools_python(&setup)?;
    // v1 first: the v2 Rust programs share the v1 harness's stdio helpers.
    let ours_v1 = ours::build(&setup, &v1, &python)?;
    let ours_v2 = ours::build(&setup, &v2, &python)?;
    let official_rust = build::official_rust(&setup)?;
    let official_typescript = build::official_typescript(&setup)?;
    let official_python = build::official_python(&setup, &python)?;
    let coder_go = build::coder_go(&setup)?;

    let mut v1_jobs: Vec<Job<Cell>> = Vec::new();
    let official_agents = [
        &official_rust.v1.agent,
        &official_typescript.v1.agent,
        &official_python.agent,
        &coder_go.agent,
    ];
    let (setup, v1, v2) = (&setup, &v1, &v2);
    for client in &ours_v1.clients {
        for agent in ours_v1.agents.iter().chain(official_agents) {
            v1_jobs.push(Job::alone(move || play::client_against(setup, v1, client, agent)));
        }
        for name in REAL_AGENTS {
            v1_jobs.push(Job::in_group(name, move || play::real_agent(setup, v1, client, name)));
        }
    }
    // The other implementations' clients play our agents, the full-surface
    // ones (those of `cargo xtask conformance`) too.
    let our_v1_agents: Vec<&Program> = ours_v1.agents.iter().chain(&ours_v1.full_agents).collect();
    for &agent in &our_v1_agents {
        let client = &official_rust.v1.client;
        v1_jobs.push(Job::alone(move || play::rust_example_client(setup, v1, client, agent)));
    }
    for client in [&official_typescript.v1.client, &official_python.client] {
        for &agent in &our_v1_agents {
            v1_jobs.push(Job::alone(move || play::client_against(setup, v1, client, agent)));
        }
    }
    for &agent in &our_v1_agents {
        let client = &coder_go.client;
        v1_jobs.push(Job::alone(move || play::coder_example_client(setup, v1, client, agent)));
    }
    let mut v2_jobs: Vec<Job<Cell>> = Vec::new();
    for client in &ours_v2.clients {
        for agent in ours_v2
            .agents
            .iter()
            .chain([&official_rust.v2.agent, &official_typescript.v2.agent])
        {
            v2_jobs.push(Job::alone(move || play::client_against(setup, v2, client, agent)));
        }
    }
    let our_v2_agents: Vec<&Program> = ours_v2.agents.iter().chain(&ours_v2.full_agents).collect();
    for &agent in &our_v2_agents {
        let client = &official_rust.v2.client;
        v2_jobs.push(Job::alone(move || play::rust_example_client(setup, v2, client, agent)));
    }
    for agent in our_v2_agents.iter().copied().chain([&official_rust.v2.agent]) {
        let client = &official_typescript.v2.client;
        v2_jobs.push(Job::alone(move || play::client_against(setup, v2, client, agent)));
    }
    let v1_count = v1_jobs.len();
    let mut v1_cells = pool::run(v1_jobs.into_iter().chain(v2_jobs).collect(), CELLS_AT_ONCE);
    let v2_cells = v1_cells.split_off(v1_count);

    let tables = format!(
        "{}\n{}",
        page::matrix(&v1.heading, &v1_cells),
        page::matrix(&v2.heading, &v2_cells)
    );
    print!("{tables}");
    if let Some(out) = out {
        crate::support::output::write_file(out, page::page(&tables).as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let cells: Vec<&Cell> = v1_cells.iter().chain(&v2_cells).collect();
    let failed = cells.iter().filter(|cell| cell.outcome.is_err()).count();
    if failed > 0 {
        bail!("{failed} of {} interop cells failed", cells.len());
    }
    Ok(())
}
