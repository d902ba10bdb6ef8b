//! The Rust bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: the generated crate must pass
//! `clippy -D warnings` and `cargo doc` without warnings, and a harness crate
//! (the committed `tests/rust/vectors.rs` and `tests/rust/negotiation.rs`
//! with a manifest written here) runs every vector and negotiation case
//! through it; for the default schema, the usage programs
//! (`tests/rust/usage.rs`, its twin written with the official crate, the
//! API checks of `tests/rust/api.rs`, the hostile wire cases of
//! `tests/rust/hostile_wire.rs`, the decoder fuzzing of
//! `tests/rust/fuzz_decoders.rs` and the fuzz target's check on every fuzz
//! seed, `tests/rust/fuzz_seeds.rs`) build under `clippy -D warnings` and run,
//! then the differential test against the official crate follows
//! ([`crate::suites::differential`]).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::commands::package::{build, install};
use crate::languages::{Install, LanguageTests, Mutant, Usage};
use crate::support::tools::{cargo, run_checked, SuiteOutcome};

/// Rust's registration ([`crate::languages::LanguageTests`]), listed in
/// [`crate::registry`].
pub const LANGUAGE: LanguageTests = LanguageTests {
    generated: &acp_generate::emit::rust::LANGUAGE,
    suite: run,
    vector_suite: |workspace, bindings, _label| vector_suite(workspace, bindings),
    summary: |output| output.lines().find(|line| line.starts_with("rust vectors:")),
    mutants: &[
        Mutant {
            name: "roundtrip returns its input",
            file: "rust/src/by_name.rs",
            find: "    let decoded: T = decode_nested(json.clone())?;\n",
            replace: "    return Ok(json.clone());\n    let decoded: T = decode_nested(json.clone())?;\n",
        },
        Mutant {
            name: "errors name no pointer",
            file: "rust/src/codec.rs",
            find: "located(path, error.into_inner().to_string())",
            replace:
                "DecodeError { path: ::std::string::String::new(), ..located(path, error.into_inner().to_string()) }",
        },
        Mutant {
            name: "null in any JSON written back as absent",
            file: "rust/src/codec.rs",
            find: "    Ok(Some(value))\n",
            replace: "    Ok(Some(value).filter(|value| !value.is_null()))\n",
        },
    ],
    chain_step: |workspace, _bindings| (batch_program(workspace), Vec::new()),
    numbers_as_doubles: false,
    negotiates: true,
    usage: Some(USAGE),
    interop: Some(crate::interop::our_programs::rust),
    bench: Some(crate::bench::rust::contenders),
    package: Some(|source, names, version, into| Ok(vec![build::rust(source, &names.rust_crate, version, into)?])),
    installs: &[Install {
        what: "rust",
        suffix: ".crate",
        folder: None,
        run: install::rust,
    }],
    fuzz: Some(crate::fuzz::rust::run),
};

/// The batch round-trip program `run` builds for the bindings it tested last.
pub fn batch_program(workspace: &Path) -> std::path::PathBuf {
    workspace
        .join("target")
        .join("bindings-target")
        .join("debug")
        .join("roundtrip-batch")
}

/// Runs the Rust suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `rust/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str, seeds: Option<&Path>) -> Result<()> {
    let target = workspace.join("target").join("bindings-target");
    let crate_folder = bindings.join("rust");
    // With the connection; the vectors' harness builds the types alone (the
    // default features).
    run_checked(
        cargo()
            .args(["clippy", "--quiet", "--all-features", "--", "-D", "warnings"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(&crate_folder),
        &format!("clippy on the Rust bindings for {label}"),
    )?;
    run_checked(
        cargo()
            .args(["doc", "--quiet", "--no-deps", "--all-features"])
            .env("CARGO_TARGET_DIR", &target)
            .env("RUSTDOCFLAGS", "-D warnings")
            .current_dir(&crate_folder),
        &format!("cargo doc on the Rust bindings for {label}"),
    )?;
    let outcome = vector_suite(workspace, bindings)?;
    crate::support::lanes::show(&outcome.output);
    if !outcome.passed {
        anyhow::bail!("Rust vectors for {label} failed");
    }
    let harness = bindings.join("rust-vectors");
    run_checked(
        cargo()
            .args(["build", "--quiet", "--bin", "roundtrip-batch"])
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(&harness),
        &format!("the Rust batch round-trip for {label}"),
    )?;
    if label == "default" {
        usage_suite(workspace, bindings, &target, &USAGE_PROGRAMS, seeds)?;
        crate::suites::differential::run(workspace, bindings, &target)?;
    }
    if label == "v2-stable" {
        usage_suite(workspace, bindings, &target, &V2_PROGRAMS, None)?;
    }
    Ok(())
}

/// The usage program and its twin on the official crate, in `tests/rust/`.
const USAGE: Usage = Usage {
    ours: "usage.rs",
    official: "usage_official.rs",
    longer: None,
};

/// The programs written against the default schema's bindings, in
/// `tests/rust/`: each becomes a test of the usage harness crate. The
/// hostile wire cases read `tests/hostile-wire.json` and the RFD helpers'
/// scenarios `tests/helpers.json`, both copied to the harness's root; the
/// fuzz tests read the vectors (`ACP_VECTORS`) and run
/// [`FUZZ_CASES`] cases per property.
/// The connection's race tests (`connection.rs`) and its handshake
/// (`handshake.rs`) run here too, and the fuzz target's check on every
/// fuzz seed (`fuzz_seeds.rs`, with the module `fuzz_harness/` it shares
/// with the fuzz target, reading `ACP_FUZZ_SEEDS`).
const USAGE_PROGRAMS: [&str; 9] = [
    USAGE.ours,
    USAGE.official,
    "api.rs",
    "hostile_wire.rs",
    "fuzz_decoders.rs",
    "helpers.rs",
    "connection.rs",
    "handshake.rs",
    "fuzz_seeds.rs",
];

/// The programs written against protocol v2 (the latest release's stable
/// schema): the connection's v2 turns and handshake, and the turn
/// tracker's v2 scenarios.
const V2_PROGRAMS: [&str; 3] = ["connection_v2.rs", "handshake_v2.rs", "helpers_v2.rs"];

/// The fuzz tests' short budget: cases per property (`ACP_FUZZ_CASES`).
const FUZZ_CASES: &str = "256";

/// Writes the usage harness (`rust-usage/` beside `rust/`) with `programs`
/// as its tests, which depends on the bindings and on the official crate,
/// checks it with clippy and runs it, with the fuzz seeds of `seeds`.
fn usage_suite(
    workspace: &Path,
    bindings: &Path,
    target: &Path,
    programs: &[&str],
    seeds: Option<&Path>,
) -> Result<()> {
    let harness = bindings.join("rust-usage");
    std::fs::create_dir_all(harness.join("tests")).context("creating the Rust usage harness")?;
    std::fs::create_dir_all(harness.join("src"))?;
    std::fs::write(
        harness.join("Cargo.toml"),
        include_str!("../../../tests/rust/harness/usage.Cargo.toml")
            .replace("{upstream}", acp_schema_source::upstream::UPSTREAM_VERSION),
    )?;
    std::fs::write(
        harness.join("src").join("lib.rs"),
        "//! The usage programs are this crate's tests.\n",
    )?;
    for program in programs {
        std::fs::copy(
            workspace.join("tests").join("rust").join(program),
            harness.join("tests").join(program),
        )
        .with_context(|| format!("copying {program}"))?;
    }
    // The race tests' seeded randomness, the test agents and the fuzz
    // target's check, modules of theirs (not tests of their own).
    for module in [
        "dice",
        "scripted_agent",
        "scripted_agent_v2",
        crate::fuzz::rust::HARNESS,
    ] {
        crate::support::tools::copy_tree(
            &workspace.join("tests").join("rust").join(module),
            &harness.join("tests").join(module),
        )?;
    }
    for table in ["hostile-wire.json", "helpers.json"] {
        std::fs::copy(workspace.join("tests").join(table), harness.join(table))
            .with_context(|| format!("copying tests/{table}"))?;
    }
    run_checked(
        cargo()
            .args(["clippy", "--quiet", "--all-targets", "--", "-D", "warnings"])
            .env("CARGO_TARGET_DIR", target)
            .current_dir(&harness),
        "clippy on the Rust usage programs",
    )?;
    let mut test = cargo();
    if let Some(seeds) = seeds {
        test.env("ACP_FUZZ_SEEDS", seeds);
    }
    run_checked(
        test.args(["test", "--quiet"])
            .env("CARGO_TARGET_DIR", target)
            .env("ACP_VECTORS", bindings.join("vectors"))
            .env("ACP_FUZZ_CASES", FUZZ_CASES)
            .current_dir(&harness),
        "the Rust usage programs",
    )
}

/// Writes the harness crate (`rust-vectors/` beside `rust/`) and returns its folder.
fn write_harness(workspace: &Path, bindings: &Path) -> Result<PathBuf> {
    let harness = bindings.join("rust-vectors");
    std::fs::create_dir_all(harness.join("tests")).context("creating the Rust harness")?;
    std::fs::write(
        harness.join("Cargo.toml"),
        include_str!("../../../tests/rust/harness/vectors.Cargo.toml"),
    )?;
    std::fs::create_dir_all(harness.join("src"))?;
    std::fs::copy(
        workspace.join("tests").join("rust").join("roundtrip_batch.rs"),
        harness.join("src").join("main.rs"),
    )?;
    std::fs::copy(
        workspace.join("tests").join("rust").join("vectors.rs"),
        harness.join("tests").join("vectors.rs"),
    )?;
    std::fs::copy(
        workspace.join("tests").join("rust").join("negotiation.rs"),
        harness.join("tests").join("negotiation.rs"),
    )?;
    Ok(harness)
}

/// Runs every vector of `bindings` through its Rust crate (`tests/rust/vectors.rs`).
pub fn vector_suite(workspace: &Path, bindings: &Path) -> Result<SuiteOutcome> {
    let harness = write_harness(workspace, bindings)?;
    SuiteOutcome::of(
        cargo()
            .args(["test", "--quiet", "--", "--nocapture"])
            .env("CARGO_TARGET_DIR", workspace.join("target").join("bindings-target"))
            .env("ACP_VECTORS", bindings.join("vectors"))
            .current_dir(&harness),
        "the Rust vector harness",
    )
}
