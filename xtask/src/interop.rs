//! `cargo xtask interop`: our connections against other implementations,
//! over real processes and stdio. Each cell plays one session (initialize,
//! `session/new`, prompts with tool calls, a permission request and file
//! reads and writes where the agent makes them) between a client and an
//! agent, records it, and passes when the client saw every prompt end with
//! a stop reason and `check-trace` finds nothing in the recording.
//!
//! The peers: the official Rust SDK's example client
//! (`yolo_one_shot_client`, built from the published crate), a small agent
//! written on the official Rust SDK's own API (`tests/interop/official-rust`,
//! since its examples have no agent that plays a turn), and real agents
//! published on the npm registry, run by `tests/agents/capture.py` against
//! its mock model on 127.0.0.1. Ours: the clients and agents of
//! `tests/interop/rust`, `tests/interop/typescript` and
//! `tests/interop/python`, on the bindings of the default schema (Python's
//! run by the interpreter of the tests' environment, `.tools/venv`).
//!
//! It prints the matrix (pass, or the first failure and whose it is) and,
//! with `--out`, writes it as Markdown; it fails unless every cell passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use acp_codegen::emit::PackageNames;
use acp_schema_source::SourceOptions;

use crate::tools::{cargo, run_checked, workspace_root};

/// The real agents of the matrix (names of `capture.py`'s recipes).
const REAL_AGENTS: [&str; 2] = ["codex", "claude-code"];

/// One cell: who played the client and the agent, and how it ended.
struct Cell {
    client: String,
    agent: String,
    outcome: Result<String, String>,
}

/// Where everything is built.
struct Setup {
    workspace: PathBuf,
    folder: PathBuf,
    target: PathBuf,
}

/// A program of the matrix: what it is and how to start it.
struct Program {
    label: String,
    command: Vec<String>,
    env: Vec<(String, String)>,
}

impl Program {
    fn new(label: &str, command: &[&Path], env: &[(&str, &Path)]) -> Program {
        Program {
            label: label.to_owned(),
            command: command.iter().map(|part| part.display().to_string()).collect(),
            env: env.iter().map(|(key, value)| ((*key).to_owned(), value.display().to_string())).collect(),
        }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.command[0]);
        command.args(&self.command[1..]).envs(self.env.iter().map(|(key, value)| (key, value)));
        command
    }
}

pub fn run(out: Option<&Path>) -> Result<()> {
    let workspace = workspace_root();
    let folder = workspace.join("target").join("interop");
    let setup = Setup { target: folder.join("target"), folder, workspace };
    let bindings = generate(&setup)?;
    let rust = build_rust(&setup, &bindings)?;
    let typescript = build_typescript(&bindings)?;
    let official = build_official(&setup)?;
    let python = crate::tools::virtual_environment(&setup.workspace.join(".tools"), &setup.workspace.join("tests").join("python").join("requirements.txt"))?;
    let python_folder = bindings.join("python");
    let python_path = [("PYTHONPATH", python_folder.as_path())];
    let python_scripts = setup.workspace.join("tests").join("interop").join("python");
    let node = Path::new("node");
    let package = [("ACP_PACKAGE", typescript.as_path())];
    let scripts = setup.workspace.join("tests").join("interop").join("typescript");
    let clients = [
        Program::new("ours (Rust)", &[&rust.join("client")], &[]),
        Program::new("ours (TypeScript)", &[node, &scripts.join("client.mjs")], &package),
        Program::new("ours (Python)", &[&python, &python_scripts.join("client.py")], &python_path),
    ];
    let agents = [
        Program::new("ours (Rust)", &[&rust.join("agent")], &[]),
        Program::new("ours (TypeScript)", &[node, &scripts.join("agent.mjs")], &package),
        Program::new("ours (Python)", &[&python, &python_scripts.join("agent.py")], &python_path),
        Program::new("official Rust SDK 5.2.0 (a small agent on its API)", &[&official.agent], &[]),
    ];
    let mut cells = Vec::new();
    for client in &clients {
        for agent in &agents {
            cells.push(ours_against(&setup, client, agent));
        }
        for name in REAL_AGENTS {
            cells.push(real_agent(&setup, client, name));
        }
    }
    for agent in agents.iter().take(3) {
        cells.push(official_client(&setup, &official.client, agent));
    }
    let table = matrix(&cells);
    print!("{table}");
    if let Some(out) = out {
        crate::output::write_file(out, page(&table).as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let failed = cells.iter().filter(|cell| cell.outcome.is_err()).count();
    if failed > 0 {
        bail!("{failed} of {} interop cells failed", cells.len());
    }
    Ok(())
}

/// The default schema's bindings.
fn generate(setup: &Setup) -> Result<PathBuf> {
    let bindings = setup.folder.join("bindings");
    let languages = ["rust".to_owned(), "typescript".to_owned(), "python".to_owned()];
    crate::generate::generate(&SourceOptions::default(), &PackageNames::default(), &languages, false, false, &bindings)?;
    Ok(bindings)
}

/// Builds the TypeScript package; returns its entry point.
fn build_typescript(bindings: &Path) -> Result<PathBuf> {
    let package = bindings.join("typescript");
    run_checked(Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--silent"]).current_dir(&package), "npm ci in the TypeScript package")?;
    run_checked(Command::new("npm").args(["run", "--silent", "build"]).current_dir(&package), "building the TypeScript package")?;
    Ok(package.join("dist").join("index.js"))
}

/// Builds our Rust client and agent on the bindings; returns their folder.
fn build_rust(setup: &Setup, bindings: &Path) -> Result<PathBuf> {
    let harness = setup.folder.join("rust");
    let source = setup.workspace.join("tests").join("interop").join("rust");
    let manifest = std::fs::read_to_string(source.join("Cargo.toml"))?.replace("{bindings}", &bindings.join("rust").display().to_string());
    crate::output::write_file(&harness.join("Cargo.toml"), manifest.as_bytes())?;
    crate::tools::copy_tree(&source.join("src"), &harness.join("src"))?;
    run_checked(cargo().args(["build", "--quiet", "--bins"]).env("CARGO_TARGET_DIR", &setup.target).current_dir(&harness), "building our Rust interop client and agent")?;
    Ok(setup.target.join("debug"))
}

/// The official Rust SDK's programs.
struct Official {
    client: PathBuf,
    agent: PathBuf,
}

/// Builds the agent written on the official SDK, then the SDK's own example
/// client from the published crate's sources (which that build fetched).
fn build_official(setup: &Setup) -> Result<Official> {
    let crate_folder = setup.workspace.join("tests").join("interop").join("official-rust");
    let built = setup.folder.join("official-rust");
    crate::output::write_file(&built.join("Cargo.toml"), &std::fs::read(crate_folder.join("Cargo.toml"))?)?;
    crate::tools::copy_tree(&crate_folder.join("src"), &built.join("src"))?;
    run_checked(cargo().args(["build", "--quiet"]).env("CARGO_TARGET_DIR", &setup.target).current_dir(&built), "building the agent on the official Rust SDK")?;
    let metadata = cargo().args(["metadata", "--format-version", "1"]).current_dir(&built).output().context("cargo metadata")?;
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).context("reading cargo metadata")?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "agent-client-protocol")
        .and_then(|package| package["manifest_path"].as_str())
        .context("the official SDK is not among the agent's dependencies")?;
    let sources = Path::new(manifest).parent().context("the SDK's folder")?;
    let sdk = setup.folder.join("official-rust-sdk");
    if !sdk.join("Cargo.toml").is_file() {
        crate::tools::copy_tree(sources, &sdk)?;
        // Its lock pins versions the registry may no longer serve; inside
        // this repository's target folder it must be a workspace of its own.
        let _ = std::fs::remove_file(sdk.join("Cargo.lock"));
        let manifest = std::fs::read_to_string(sdk.join("Cargo.toml"))?;
        crate::output::write_file(&sdk.join("Cargo.toml"), format!("{manifest}\n[workspace]\n").as_bytes())?;
    }
    run_checked(
        cargo().args(["build", "--quiet", "--example", "yolo_one_shot_client", "--features", "process"]).env("CARGO_TARGET_DIR", &setup.target).current_dir(&sdk),
        "building the official Rust SDK's example client",
    )?;
    let debug = setup.target.join("debug");
    Ok(Official { client: debug.join("examples").join("yolo_one_shot_client"), agent: debug.join("acp-interop-official") })
}

/// A scratch project with `notes.txt`, as the agents expect.
fn project(setup: &Setup, name: &str) -> Result<PathBuf> {
    let folder = setup.folder.join("sessions").join(name);
    let _ = std::fs::remove_dir_all(&folder);
    crate::output::write_file(&folder.join("notes.txt"), b"hello\n")?;
    Ok(folder)
}

/// Whether `check-trace` finds nothing in `trace`: its first finding otherwise.
fn check(trace: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    let output = Command::new(exe).arg("check-trace").arg(trace).output().map_err(|error| error.to_string())?;
    let text = String::from_utf8_lossy(&output.stdout);
    if output.status.success() {
        return Ok(());
    }
    Err(format!("check-trace: {}", text.lines().next().unwrap_or("failed")))
}

/// The last line of what a program wrote, for a failure's message.
fn last_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).lines().rev().find(|line| !line.trim().is_empty()).unwrap_or("").to_owned()
}

/// One of our clients against an agent.
fn ours_against(setup: &Setup, client: &Program, agent: &Program) -> Cell {
    let outcome = (|| {
        let folder = project(setup, &format!("{}-{}", client.label, agent.label).replace(|c: char| !c.is_ascii_alphanumeric(), "-")).map_err(|error| error.to_string())?;
        let trace = folder.with_extension("jsonl");
        let mut command = client.command();
        command.arg("--cwd").arg(&folder).arg("--trace").arg(&trace).arg("--").args(&agent.command).envs(agent.env.iter().map(|(key, value)| (key, value)));
        let output = command.output().map_err(|error| error.to_string())?;
        if !output.status.success() {
            return Err(last_line(&output.stderr));
        }
        check(&trace)?;
        Ok(last_line(&output.stdout))
    })();
    Cell { client: client.label.clone(), agent: agent.label.clone(), outcome }
}

/// The official Rust SDK's example client against one of our agents.
fn official_client(setup: &Setup, client: &Path, agent: &Program) -> Cell {
    let outcome = (|| {
        let folder = project(setup, &format!("official-client-{}", agent.label).replace(|c: char| !c.is_ascii_alphanumeric(), "-")).map_err(|error| error.to_string())?;
        let trace = folder.with_extension("jsonl");
        let output = Command::new(client)
            .args(["--command", &agent.command.join(" "), "Read notes.txt, then update it."])
            .envs(agent.env.iter().map(|(key, value)| (key, value)))
            .env("ACP_INTEROP_TRACE", &trace)
            .current_dir(&folder)
            .output()
            .map_err(|error| error.to_string())?;
        let printed = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || !printed.contains("Stop reason: EndTurn") {
            return Err(last_line(&output.stderr));
        }
        check(&trace)?;
        Ok("Stop reason: EndTurn".to_owned())
    })();
    Cell { client: "official Rust SDK 5.2.0 (its example client)".to_owned(), agent: agent.label.clone(), outcome }
}

/// One of our clients against a real agent from the npm registry, through
/// `capture.py`'s recipe and mock model.
fn real_agent(setup: &Setup, client: &Program, name: &str) -> Cell {
    let outcome = (|| {
        let trace = setup.folder.join("sessions").join(format!("{}-{name}.jsonl", client.label.replace(|c: char| !c.is_ascii_alphanumeric(), "-")));
        let capture = setup.workspace.join("tests").join("agents").join("capture.py");
        let output = Command::new("python3")
            .arg(capture)
            .args(["--agent", name, "--client", &client.command.join(" "), "--trace"])
            .arg(&trace)
            .arg("--cache")
            .arg(setup.workspace.join("target").join("agents"))
            .envs(client.env.iter().map(|(key, value)| (key, value)))
            .output()
            .map_err(|error| error.to_string())?;
        if !output.status.success() {
            return Err(last_line(&output.stderr));
        }
        check(&trace)?;
        Ok(last_line(&output.stdout))
    })();
    Cell { client: client.label.clone(), agent: format!("{name} (npm, mock model)"), outcome }
}

/// What our client's summary says, in words: the turns and their stop
/// reasons, and what the agent asked of the client.
fn described(summary: &str) -> String {
    let Ok(summary) = serde_json::from_str::<serde_json::Value>(summary) else { return summary.to_owned() };
    let stops: Vec<&str> = summary["stopReasons"].as_array().into_iter().flatten().filter_map(serde_json::Value::as_str).collect();
    let updates: u64 = summary["updates"].as_object().into_iter().flatten().filter_map(|(_, count)| count.as_u64()).sum();
    let count = |key: &str| summary[key].as_u64().unwrap_or(0);
    format!(
        "turns: {} ({}); updates: {updates}; permission requests: {}; file reads: {}; file writes: {}",
        stops.len(),
        stops.join(", "),
        count("permissions"),
        count("reads"),
        count("writes")
    )
}

fn matrix(cells: &[Cell]) -> String {
    let mut table = String::from("| client | agent | result |\n|---|---|---|\n");
    for cell in cells {
        let result = match &cell.outcome {
            Ok(summary) => format!("pass: {}; check-trace: no findings", described(summary)),
            Err(failure) => format!("**fail**: {failure}"),
        };
        table.push_str(&format!("| {} | {} | {} |\n", cell.client, cell.agent, result));
    }
    table
}

fn page(table: &str) -> String {
    format!("{}\n\n{table}\n{}", include_str!("interop/intro.md").trim_end(), include_str!("interop/limits.md"))
}
