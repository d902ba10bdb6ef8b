//! The Rust measurements: a small program (`programs/decode_encode.rs`)
//! in its own crate under `target/bench/rust/`, built with `--release`,
//! linking the generated crate and the official `agent-client-protocol-schema`
//! at the version the schema comes from. It runs once per implementation, in
//! its own process: ours, the official crate, and the floor, a
//! `serde_json::Value` round trip.

use std::path::Path;

use anyhow::Result;

use super::measure::{measure_interleaved, write_if_changed, Contender, Measurement, Setup};
use crate::tools::cargo;

const PROGRAM: &str = include_str!("programs/decode_encode.rs");

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

pub fn measure(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let crate_folder = setup.folder.join("rust");
    write_if_changed(&crate_folder.join("Cargo.toml"), &manifest())?;
    write_if_changed(&crate_folder.join("src").join("main.rs"), PROGRAM)?;
    let target = setup.folder.join("rust-target");
    eprintln!("bench: building the Rust program (release)");
    crate::tools::run_checked(
        cargo().args(["build", "--quiet", "--release"]).env("CARGO_TARGET_DIR", &target).current_dir(&crate_folder),
        "building the Rust bench program",
    )?;
    let program = target.join("release").join("decode-encode");
    let version = acp_schema_source::upstream::UPSTREAM_VERSION;
    let contenders = [
        ("ours", "ours", "generated crate (serde_json::from_str + to_string)".to_owned()),
        ("official", "official", format!("agent-client-protocol-schema {version}")),
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
