//! Compiling the generated Rust crate, next to the official schema crate:
//! each built alone in debug, as a user's `cargo build` after a change to
//! the bindings rebuilds them, with every dependency already built. Ours is
//! built twice, with only the types (the default: types, codec, negotiation
//! and RFD helpers) and with the `connection` feature; the official crate,
//! `agent-client-protocol-schema` at the version the schema comes from,
//! without its default features, as the decode + encode bench links it. One
//! empty crate under `target/bench/compile/` depends on both, with a target
//! folder of its own, and turns ours's `connection` on through a feature of
//! its own (cargo takes features only for workspace members); before each
//! timed build, `cargo clean -p` removes the timed package's artifacts,
//! nothing else, so that the build compiles that package (and the empty
//! crate) alone. The builds take turns, run by
//! run, so that a busy machine slows them alike.

use std::path::Path;
use std::process::Command;

use anyhow::Result;

use super::generation::{time, Timing};
use super::measure::{write_if_changed, Setup};
use crate::support::tools::cargo;

/// The empty crate that depends on both.
const BENCH_CRATE: &str = "acp-compile-bench";

/// Its manifest.
fn manifest() -> String {
    format!(
        "[package]\nname = \"{BENCH_CRATE}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [lib]\npath = \"src/lib.rs\"\n\n\
         [dependencies]\nacp-bindings = {{ path = \"../bindings/rust\" }}\n\
         agent-client-protocol-schema = {{ version = \"={}\", default-features = false }}\n\n\
         [features]\nconnection = [\"acp-bindings/connection\"]\n\n[workspace]\n",
        acp_schema_source::upstream::UPSTREAM_VERSION
    )
}

/// One timed build: its label, the package it cleans, the package it
/// builds and the features it builds with.
struct Build {
    label: String,
    package: &'static str,
    built: &'static str,
    features: &'static [&'static str],
}

/// The three builds, ours (types only) first: the ratios are against it.
fn builds() -> [Build; 3] {
    [
        Build {
            label: "ours, types only (default features)".to_owned(),
            package: "acp-bindings",
            built: BENCH_CRATE,
            features: &[],
        },
        Build {
            label: "ours, with the connection (`--features connection`)".to_owned(),
            package: "acp-bindings",
            built: BENCH_CRATE,
            features: &["connection"],
        },
        Build {
            label: format!(
                "official: agent-client-protocol-schema {} (no default features)",
                acp_schema_source::upstream::UPSTREAM_VERSION
            ),
            package: "agent-client-protocol-schema",
            built: "agent-client-protocol-schema",
            features: &[],
        },
    ]
}

/// `cargo build -p` of `build`, quiet, into `target`.
fn command(folder: &Path, target: &Path, build: &Build) -> Command {
    let mut command = cargo();
    command
        .args(["build", "--quiet", "-p", build.built])
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .current_dir(folder);
    if !build.features.is_empty() {
        command.arg("--features").arg(build.features.join(","));
    }
    command
}

/// Times each build `setup.runs()` times, taking turns; ours (types only)
/// first, then ours with the connection, then the official crate.
pub fn measure(setup: &Setup) -> Result<Vec<Timing>> {
    let folder = setup.folder.join("compile");
    write_if_changed(&folder.join("Cargo.toml"), &manifest())?;
    write_if_changed(&folder.join("src").join("lib.rs"), "")?;
    let target = setup.folder.join("compile-target");
    let builds = builds();
    for build in &builds {
        eprintln!("bench: compiling, a first untimed build of {}", build.label);
        crate::support::tools::run_checked(&mut command(&folder, &target, build), &build.label)?;
    }
    let mut timings: Vec<Timing> = builds
        .iter()
        .map(|build| Timing {
            tool: build.label.clone(),
            output: build.package.to_owned(),
            seconds: Vec::new(),
            peak_kib: None,
            failure: None,
        })
        .collect();
    for _ in 0..setup.runs() {
        for (build, timing) in builds.iter().zip(&mut timings) {
            let clean = || -> Command {
                let mut clean = cargo();
                clean
                    .args(["clean", "--quiet", "-p", build.package])
                    .env("CARGO_TARGET_DIR", &target)
                    .current_dir(&folder);
                clean
            };
            let run = time(&build.label, build.package, 1, &|| {
                // Not timed: the clock starts once the command is made.
                if let Err(error) = crate::support::tools::run_checked(&mut clean(), "cargo clean -p") {
                    eprintln!("bench: {error:#}");
                }
                command(&folder, &target, build)
            });
            timing.seconds.extend(run.seconds);
            timing.peak_kib = timing.peak_kib.max(run.peak_kib);
            if timing.failure.is_none() {
                timing.failure = run.failure;
            }
        }
    }
    Ok(timings)
}
