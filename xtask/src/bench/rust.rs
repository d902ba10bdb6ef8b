//! The Rust measurements: a small program (`programs/decode_encode.rs`)
//! in its own crate under `target/bench/rust/`, built with `--release`,
//! linking the generated crate and the official `agent-client-protocol-schema`
//! at the version the schema comes from. It runs once per implementation, in
//! its own process: ours, the official crate, and the floor, a
//! `serde_json::Value` round trip. The connections (`programs/connection.rs`,
//! in `target/bench/rust-connection/`) are measured against the official
//! Rust SDK, which depends on a schema crate of its own version.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::measure::{measure_interleaved, write_if_changed, Contender, Measurement, Setup};
use crate::support::tools::cargo;

const PROGRAM: &str = include_str!("programs/decode_encode.rs");
const CONNECTION: &str = include_str!("programs/connection.rs");
/// The Rust test agent, written next to the connection program as its
/// module `scripted_agent`: the round trips' agent.
const SCRIPTED_AGENT: &str = include_str!("../../../tests/rust/scripted_agent/mod.rs");

/// The official Rust SDK the connection is measured against.
pub const SDK_VERSION: &str = "5.2.0";

/// The bench crate's manifest: the bindings by path, the official crate pinned.
fn manifest() -> String {
    format!(
        "[package]\nname = \"acp-bench\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [[bin]]\nname = \"decode-encode\"\npath = \"src/main.rs\"\n\n\
         [dependencies]\nacp-bindings = {{ path = \"../bindings/rust\" }}\n\
         agent-client-protocol-schema = {{ version = \"={}\", default-features = false }}\n\
         serde = \"1\"\nserde_json = \"1\"\n\n[workspace]\n",
        acp_schema_source::upstream::UPSTREAM_VERSION
    )
}

/// Writes the crate `folder` under `target/bench/` with `manifest` and
/// `program`, builds it (release, in `target/bench/rust-target/`) and
/// returns the binary `binary`.
fn build(setup: &Setup, folder: &str, manifest: &str, program: &str, binary: &str) -> Result<PathBuf> {
    let crate_folder = setup.folder.join(folder);
    write_if_changed(&crate_folder.join("Cargo.toml"), manifest)?;
    write_if_changed(&crate_folder.join("src").join("main.rs"), program)?;
    let target = setup.folder.join("rust-target");
    eprintln!("bench: building the Rust program {binary} (release)");
    crate::support::tools::run_checked(
        cargo()
            .args(["build", "--quiet", "--release"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(&crate_folder),
        &format!("building the Rust bench program {binary}"),
    )?;
    Ok(target.join("release").join(binary))
}

/// Rust's contenders: [`measure`], then [`measure_connection`].
pub fn contenders(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let mut measurements = measure(setup, corpus)?;
    measurements.extend(measure_connection(setup, corpus)?);
    Ok(measurements)
}

pub fn measure(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let program = build(setup, "rust", &manifest(), PROGRAM, "decode-encode")?;
    let version = acp_schema_source::upstream::UPSTREAM_VERSION;
    let contenders = [
        (
            "ours",
            "ours",
            "generated crate (serde_json::from_str + to_string)".to_owned(),
        ),
        (
            "official",
            "official",
            format!("agent-client-protocol-schema {version}"),
        ),
        ("floor", "value", "serde_json::Value round trip".to_owned()),
    ]
    .map(|(role, implementation, label)| {
        let (program, corpus) = (program.clone(), corpus.to_path_buf());
        Contender {
            role,
            label,
            command: Box::new(move |runs| {
                let mut command = std::process::Command::new(&program);
                command.arg(implementation).arg(&corpus).arg(runs.to_string());
                command
            }),
        }
    });
    measure_interleaved("Rust", setup, &contenders)
}

/// The connection crate's manifest: the bindings by path, the official SDK pinned.
fn connection_manifest() -> String {
    format!(
        "[package]\nname = \"acp-bench-connection\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [[bin]]\nname = \"connection\"\npath = \"src/main.rs\"\n\n\
         [dependencies]\nacp-bindings = {{ path = \"../bindings/rust\", features = [\"connection\"] }}\n\
         agent-client-protocol = \"={SDK_VERSION}\"\nfutures = {{ version = \"0.3\", features = [\"executor\"] }}\n\
         serde_json = \"1\"\ntokio = {{ version = \"1\", features = [\"rt\", \"time\", \"sync\"] }}\n\n[workspace]\n"
    )
}

/// The connections: receiving the corpus's `session/update` notifications
/// (`Rust connection`) and request round trips (`Rust round trip`), ours
/// against the official SDK's.
pub fn measure_connection(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let module = setup
        .folder
        .join("rust-connection")
        .join("src")
        .join("scripted_agent.rs");
    write_if_changed(&module, SCRIPTED_AGENT)?;
    let program = build(
        setup,
        "rust-connection",
        &connection_manifest(),
        CONNECTION,
        "connection",
    )?;
    let mut measurements = Vec::new();
    for (language, mode, ours, official, floor) in [
        (
            "Rust connection",
            "receive",
            "generated crate (ClientEnd over the corpus's text)",
            "ByteStreams client",
            "serde_json::Value per line",
        ),
        (
            "Rust round trip",
            "round-trip",
            "generated crate (ClientEnd and AgentEnd, session/new one after another)",
            "Client connected to Agent, session/new",
            "print and parse request and response",
        ),
    ] {
        let contenders = [
            ("ours", "ours", ours.to_owned()),
            (
                "official",
                "official",
                format!("agent-client-protocol {SDK_VERSION} ({official})"),
            ),
            ("floor", "floor", floor.to_owned()),
        ]
        .map(|(role, implementation, label)| {
            let (program, corpus) = (program.clone(), corpus.to_path_buf());
            Contender {
                role,
                label,
                command: Box::new(move |runs| {
                    let mut command = std::process::Command::new(&program);
                    command.arg(implementation).arg(mode).arg(&corpus).arg(runs.to_string());
                    command
                }),
            }
        });
        measurements.extend(measure_interleaved(language, setup, &contenders)?);
    }
    Ok(measurements)
}
