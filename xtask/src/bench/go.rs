//! The Go measurements: one program (`programs/go/main.go`) in its own
//! module under `target/bench/go/`, whose `go.mod` pins the official SDK,
//! `github.com/coder/acp-go-sdk` (with its `go.sum`), and takes the
//! generated module from the bindings folder by a `replace`. It is built
//! with the local toolchain and runs once per implementation, in its own
//! process: ours (the generated types' `UnmarshalJSON` and `MarshalJSON`),
//! the official SDK's generated types through `encoding/json`, and the
//! floor, `json.Unmarshal` into `any` and `json.Marshal`. A second program
//! (`programs/go/connection/main.go`, in the same module) measures the
//! connections: a client's end receiving the corpus's `session/update`
//! notifications, and `session/new` round trips between two ends, whose
//! agent is the Go test agent (`tests/go/scripted_agent/`, written into the
//! module as `internal/scriptedagent`).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::measure::{measure_interleaved, write_if_changed, Contender, Measurement, Setup};
use crate::support::coder::{sdk_version, SDK, SUMS};
use crate::support::tools::run_checked;

const PROGRAM: &str = include_str!("programs/go/main.go");
const CONNECTION: &str = include_str!("programs/go/connection/main.go");
const PROCESS: &str = include_str!("programs/go/internal/process/process.go");
const MODULE: &str = include_str!("programs/go/go.mod");
/// The Go test agent on protocol v1, the round trips' agent.
const SCRIPTED_AGENT: &str = include_str!("../../../tests/go/scripted_agent/scripted_agent.go");

/// Go's contenders: decode + encode, then the connections.
pub fn contenders(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let folder = setup.folder.join("go");
    for (name, text) in [
        ("main.go", PROGRAM),
        ("connection/main.go", CONNECTION),
        ("internal/process/process.go", PROCESS),
        ("internal/scriptedagent/scripted_agent.go", SCRIPTED_AGENT),
        ("go.mod", MODULE),
        ("go.sum", SUMS),
    ] {
        write_if_changed(&folder.join(name), text)?;
    }
    let decode_encode = build(&folder, "decode-encode", ".")?;
    let contenders = [
        ("ours", "generated module (UnmarshalJSON + MarshalJSON)".to_owned()),
        (
            "official",
            format!("{SDK} {} (json.Unmarshal + json.Marshal)", sdk_version()?),
        ),
        (
            "floor",
            "encoding/json: json.Unmarshal into any + json.Marshal".to_owned(),
        ),
    ]
    .map(|(role, label)| program(&decode_encode, role, None, corpus, label));
    let mut measurements = measure_interleaved("Go", setup, &contenders)?;
    let connection = build(&folder, "connection-bench", "./connection")?;
    for (language, mode, ours_label, official_label, floor_label) in [
        (
            "Go connection",
            "receive",
            "generated module (ConnectClient, Run over one reader)",
            "NewClientSideConnection over one reader",
            "bufio.Scanner + json.Unmarshal into any",
        ),
        (
            "Go round trip",
            "round-trip",
            "generated module (ConnectClient and ConnectAgent over pipes, session/new one after another)",
            "NewClientSideConnection and NewAgentSideConnection over pipes, NewSession",
            "json.Marshal and json.Unmarshal of request and response",
        ),
    ] {
        let contenders = [
            ("ours", ours_label.to_owned()),
            ("official", format!("{SDK} {} ({official_label})", sdk_version()?)),
            ("floor", floor_label.to_owned()),
        ]
        .map(|(role, label)| program(&connection, role, Some(mode), corpus, label));
        measurements.extend(measure_interleaved(language, setup, &contenders)?);
    }
    Ok(measurements)
}

/// Builds the package `package` of the bench module in `folder` into the
/// program `name` there.
fn build(folder: &Path, name: &str, package: &str) -> Result<PathBuf> {
    let program = folder.join(name);
    eprintln!("bench: building the Go program {name}");
    run_checked(
        crate::support::tools::go(folder)
            .args(["build", "-o"])
            .arg(&program)
            .arg(package),
        &format!("building the Go bench program {name}"),
    )?;
    Ok(program)
}

/// A contender run as `program ROLE [MODE] CORPUS RUNS`.
fn program(program: &Path, role: &'static str, mode: Option<&'static str>, corpus: &Path, label: String) -> Contender {
    let (program, corpus) = (program.to_path_buf(), corpus.to_path_buf());
    Contender {
        role,
        label,
        command: Box::new(move |runs| {
            let mut command = std::process::Command::new(&program);
            command.arg(role).args(mode).arg(&corpus).arg(runs.to_string());
            command
        }),
    }
}
