//! The TypeScript measurements (Node): ours is the generated package, built
//! with its own locked compiler; the official one is the zod schemas of
//! `@agentclientprotocol/sdk` (pinned, with the zod it names as a peer,
//! installed into `target/bench/node/`); the floor is `JSON.parse` +
//! `JSON.stringify`. Each runs `programs/decode_encode.mjs` in its own
//! process. The connections (`programs/connection.mjs`) are our package's
//! ends, its agent the TypeScript test agent (`tests/typescript/scripted-agent.mjs`,
//! written next to the program), against the official SDK's client and
//! agent apps.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use super::measure::{measure_interleaved, write_if_changed, Contender, Measurement, Setup};
use crate::support::tools::run_checked;

const PROGRAM: &str = include_str!("programs/decode_encode.mjs");
const CONNECTION: &str = include_str!("programs/connection.mjs");
const TEST_AGENT: &str = include_str!("../../../tests/typescript/scripted-agent.mjs");

/// The official SDK and the zod it is measured with.
pub const SDK_VERSION: &str = "2.4.0";
const ZOD_VERSION: &str = "4.6.7";

/// Installs the official SDK once per manifest; returns its folder.
pub fn official_sdk(setup: &Setup) -> Result<std::path::PathBuf> {
    let folder = setup.folder.join("node");
    let manifest = format!(
        "{{\n  \"private\": true,\n  \"type\": \"module\",\n  \"dependencies\": {{\n    \"@agentclientprotocol/sdk\": \"{SDK_VERSION}\",\n    \"zod\": \"{ZOD_VERSION}\"\n  }}\n}}\n"
    );
    let changed = write_if_changed(&folder.join("package.json"), &manifest)?;
    let sdk = folder.join("node_modules").join("@agentclientprotocol").join("sdk");
    if changed || !sdk.is_dir() {
        eprintln!("bench: installing @agentclientprotocol/sdk@{SDK_VERSION}");
        run_checked(
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&folder),
            "npm install of the official SDK",
        )?;
    }
    Ok(sdk)
}

/// Builds the generated package when it changed; returns its entry point.
pub fn ours(setup: &Setup) -> Result<std::path::PathBuf> {
    let package = setup.bindings.join("typescript");
    let entry = package.join("dist").join("index.js");
    if setup.bindings_changed || !entry.is_file() {
        eprintln!("bench: building the TypeScript bindings");
        run_checked(
            Command::new("npm")
                .args(["ci", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&package),
            "npm ci in the TypeScript bindings",
        )?;
        run_checked(
            Command::new("npm")
                .args(["run", "--silent", "build"])
                .current_dir(&package),
            "building the TypeScript bindings",
        )?;
    }
    Ok(entry)
}

/// TypeScript's contenders: [`measure`], then [`measure_connection`].
pub fn contenders(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let mut measurements = measure(setup, corpus)?;
    measurements.extend(measure_connection(setup, corpus)?);
    Ok(measurements)
}

pub fn measure(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let program = setup.folder.join("programs").join("decode_encode.mjs");
    write_if_changed(&program, PROGRAM)?;
    let ours = ours(setup)?;
    // The v1 zod schemas.
    let official = official_sdk(setup)?
        .join("dist")
        .join("v1")
        .join("schema")
        .join("zod.gen.js");
    let contenders = [
        (
            "ours",
            ours,
            "generated package (JSON.parse, decodeX, encode, JSON.stringify)".to_owned(),
        ),
        (
            "official",
            official,
            format!("@agentclientprotocol/sdk {SDK_VERSION} zod schemas (zod {ZOD_VERSION})"),
        ),
        (
            "floor",
            std::path::PathBuf::from("-"),
            "JSON.parse + JSON.stringify".to_owned(),
        ),
    ]
    .map(|(role, module, label)| node(&program, role, None, module, corpus, label));
    measure_interleaved("TypeScript", setup, &contenders)
}

/// The connections: receiving the corpus's `session/update` notifications
/// (`TypeScript connection`) and request round trips (`TypeScript round
/// trip`), ours against the official SDK's.
pub fn measure_connection(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let program = setup.folder.join("programs").join("connection.mjs");
    write_if_changed(&program, CONNECTION)?;
    write_if_changed(&program.with_file_name("scripted-agent.mjs"), TEST_AGENT)?;
    let ours = ours(setup)?;
    let official = official_sdk(setup)?
        .join("dist")
        .join("v1")
        .join("stable")
        .join("acp.js");
    let mut measurements = Vec::new();
    for (language, mode, ours_label, official_label, floor_label) in [
        (
            "TypeScript connection",
            "receive",
            "generated package (connectClient, receive)",
            "client app over a stream, JSON.parse per message",
            "JSON.parse",
        ),
        (
            "TypeScript round trip",
            "round-trip",
            "generated package (connectClient and connectAgent, session/new one after another)",
            "client app connected to agent app, session/new",
            "print and parse request and response",
        ),
    ] {
        let contenders = [
            ("ours", ours.clone(), ours_label.to_owned()),
            (
                "official",
                official.clone(),
                format!("@agentclientprotocol/sdk {SDK_VERSION} ({official_label})"),
            ),
            ("floor", std::path::PathBuf::from("-"), floor_label.to_owned()),
        ]
        .map(|(role, module, label)| node(&program, role, Some(mode), module, corpus, label));
        measurements.extend(measure_interleaved(language, setup, &contenders)?);
    }
    Ok(measurements)
}

/// A contender run by Node: `program ROLE [MODE] MODULE CORPUS RUNS`, where
/// `MODULE` is what the contender imports (`-` for none).
fn node(
    program: &Path,
    role: &'static str,
    mode: Option<&'static str>,
    module: PathBuf,
    corpus: &Path,
    label: String,
) -> Contender {
    let (program, corpus) = (program.to_path_buf(), corpus.to_path_buf());
    Contender {
        role,
        label,
        command: Box::new(move |runs| {
            let mut command = Command::new("node");
            command
                .arg(&program)
                .arg(role)
                .args(mode)
                .arg(&module)
                .arg(&corpus)
                .arg(runs.to_string());
            command
        }),
    }
}
