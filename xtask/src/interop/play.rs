//! Playing one cell: a session between a client and an agent in a scratch
//! project under `target/interop/sessions/`, recorded and passed through
//! `check-trace` with the schema of the cell's protocol version. Four kinds
//! of client: one with our clients' command line (ours and those on the
//! official TypeScript and Python SDKs), the official Rust SDK's example
//! clients, `github.com/coder/acp-go-sdk`'s example client (fed its
//! permission answer on standard input), and ours against a real agent
//! through `capture.py`. Each cell's client runs in a process group of its
//! own ([`processes::run`]): what it leaves behind (an agent, or an agent's
//! child) is killed and fails the cell.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use crate::support::processes;

use super::program::{Cell, Program, Protocol, Setup};

/// A scratch project with `notes.txt`, as the agents expect.
fn project(setup: &Setup, protocol: &Protocol, client: &Program, agent: &Program) -> Result<PathBuf, String> {
    let folder = setup.folder.join("sessions").join(file_name(&format!(
        "{}-{}-{}",
        protocol.name, client.label, agent.label
    )));
    let _ = std::fs::remove_dir_all(&folder);
    crate::support::output::write_file(&folder.join("notes.txt"), b"hello\n").map_err(|error| format!("{error:#}"))?;
    Ok(folder)
}

/// `name` with every character but ASCII letters and digits made `-`.
fn file_name(name: &str) -> String {
    name.replace(|c: char| !c.is_ascii_alphanumeric(), "-")
}

/// Whether `check-trace` finds nothing in `trace` under the protocol's
/// schema: its first finding otherwise.
fn check(protocol: &Protocol, trace: &Path) -> Result<(), String> {
    let exe = crate::support::tools::running_xtask().map_err(|error| format!("{error:#}"))?;
    let mut command = Command::new(exe);
    command.arg("check-trace");
    if let Some(schema) = &protocol.schema {
        command.arg("--schema").arg(schema).arg("--no-rfd");
    }
    let output = command.arg(trace).output().map_err(|error| error.to_string())?;
    if output.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    Err(format!("check-trace: {}", text.lines().next().unwrap_or("failed")))
}

/// How long a cell may take: a session of a few turns ends in seconds, so
/// a client still running after this waits for something that never comes
/// (a peer that never answers, a client asking its user again and again).
const CELL_LIMIT: Duration = Duration::from_secs(240);

/// Runs a cell's client to the end ([`processes::run`]); a process it left
/// behind, or a client past [`CELL_LIMIT`], fails the cell.
fn play(command: &mut Command) -> Result<Output, String> {
    play_with_input(command, None)
}

/// [`play`], with `input` on the client's standard input.
fn play_with_input(command: &mut Command, input: Option<&[u8]>) -> Result<Output, String> {
    let ended = processes::run(command, input, CELL_LIMIT).map_err(|error| error.to_string())?;
    if ended.timed_out {
        return Err(format!(
            "did not end within {} s (killed); {}",
            CELL_LIMIT.as_secs(),
            last_line(&ended.output.stderr)
        ));
    }
    if !ended.left_behind.is_empty() {
        return Err(format!(
            "left behind (killed): {}; {}",
            ended.left_behind.join(", "),
            last_line(&ended.output.stderr)
        ));
    }
    Ok(ended.output)
}

/// The last line of what a program wrote, for a failure's message.
fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("")
        .to_owned()
}

/// A client with our clients' command line (`--cwd DIR --trace FILE --
/// AGENT...`) against an agent; the client's summary is the cell's.
pub fn client_against(setup: &Setup, protocol: &Protocol, client: &Program, agent: &Program) -> Cell {
    let outcome = (|| {
        let folder = project(setup, protocol, client, agent)?;
        let trace = folder.with_extension("jsonl");
        let mut command = client.command();
        command
            .arg("--cwd")
            .arg(&folder)
            .arg("--trace")
            .arg(&trace)
            .arg("--")
            .args(&agent.command)
            .envs(agent.env.iter().map(|(key, value)| (key, value)));
        let output = play(&mut command)?;
        if !output.status.success() {
            return Err(last_line(&output.stderr));
        }
        check(protocol, &trace)?;
        Ok(last_line(&output.stdout))
    })();
    Cell {
        client: client.label.clone(),
        agent: agent.label.clone(),
        outcome,
    }
}

/// An official Rust SDK's example client against an agent, which records
/// the session itself (`ACP_INTEROP_TRACE`).
pub fn rust_example_client(setup: &Setup, protocol: &Protocol, client: &Program, agent: &Program) -> Cell {
    let outcome = (|| {
        let folder = project(setup, protocol, client, agent)?;
        let trace = folder.with_extension("jsonl");
        let output = play(
            client
                .command()
                .args(["--command", &agent.command.join(" "), "Read notes.txt, then update it."])
                .envs(agent.env.iter().map(|(key, value)| (key, value)))
                .env("ACP_INTEROP_TRACE", &trace)
                .current_dir(&folder),
        )?;
        let printed = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || !printed.contains(protocol.example_done) {
            return Err(last_line(&output.stderr));
        }
        check(protocol, &trace)?;
        Ok(protocol.example_done.to_owned())
    })();
    Cell {
        client: client.label.clone(),
        agent: agent.label.clone(),
        outcome,
    }
}

/// What the example client of `github.com/coder/acp-go-sdk` prints (on
/// standard output) once its prompt returned a result.
const CODER_DONE: &str = "Agent completed";

/// The example client of `github.com/coder/acp-go-sdk` against an agent,
/// which records the session itself (`ACP_INTEROP_TRACE`). It runs the
/// agent command it is given from its own folder (the project), sends one
/// prompt and asks the user on its standard input which option answers a
/// permission request: it gets `1` (our agents' first option is "allow
/// once"; they ask once a turn).
pub fn coder_example_client(setup: &Setup, protocol: &Protocol, client: &Program, agent: &Program) -> Cell {
    let outcome = (|| {
        let folder = project(setup, protocol, client, agent)?;
        let trace = folder.with_extension("jsonl");
        let output = play_with_input(
            client
                .command()
                .args(&agent.command)
                .envs(agent.env.iter().map(|(key, value)| (key, value)))
                .env("ACP_INTEROP_TRACE", &trace)
                .current_dir(&folder),
            Some(b"1\n"),
        )?;
        let printed = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() || !printed.contains(CODER_DONE) {
            return Err(last_line(&output.stderr));
        }
        check(protocol, &trace)?;
        Ok(CODER_DONE.to_owned())
    })();
    Cell {
        client: client.label.clone(),
        agent: agent.label.clone(),
        outcome,
    }
}

/// One of our clients against a real agent from the npm registry, through
/// `capture.py`'s recipe and mock model.
pub fn real_agent(setup: &Setup, protocol: &Protocol, client: &Program, name: &str) -> Cell {
    let outcome = (|| {
        let trace =
            setup
                .folder
                .join("sessions")
                .join(format!("{}-{}-{name}.jsonl", protocol.name, file_name(&client.label)));
        let capture = setup.workspace.join("tests").join("agents").join("capture.py");
        let output = play(
            Command::new("python3")
                .arg(capture)
                .args(["--agent", name, "--client", &client.command.join(" "), "--trace"])
                .arg(&trace)
                .arg("--cache")
                .arg(setup.workspace.join("target").join("agents"))
                .envs(client.env.iter().map(|(key, value)| (key, value))),
        )?;
        if !output.status.success() {
            return Err(last_line(&output.stderr));
        }
        check(protocol, &trace)?;
        Ok(last_line(&output.stdout))
    })();
    Cell {
        client: client.label.clone(),
        agent: format!("{name} (npm, mock model)"),
        outcome,
    }
}
