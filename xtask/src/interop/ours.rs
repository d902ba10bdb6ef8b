//! Our clients and agents on one protocol version: its schema's bindings
//! generated under `target/interop/` (`bindings/`, `bindings-v2/`), the Rust
//! programs of `tests/interop/rust` (or `rust-v2`) built on the crate, the
//! TypeScript package built for the programs of `tests/interop/typescript`,
//! and the package's folder on the path of those of `tests/interop/python`
//! (run by the interpreter of the tests' environment, and type-checked on
//! that package first).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use acp_codegen::emit::PackageNames;

use super::program::{Program, Protocol, Setup};
use crate::support::tools::{cargo, copy_tree, run_checked};

/// Our three clients and three agents on one protocol version, in the
/// order Rust, TypeScript, Python.
pub struct Ours {
    pub clients: Vec<Program>,
    pub agents: Vec<Program>,
}

/// Generates the bindings of `protocol`, builds our programs on them and
/// returns them, `python` running the Python ones.
pub fn build(setup: &Setup, protocol: &Protocol, python: &Path) -> Result<Ours> {
    let bindings = setup.folder.join(protocol.named("bindings", '-'));
    let languages = ["rust".to_owned(), "typescript".to_owned(), "python".to_owned()];
    crate::commands::generate::generate(
        &protocol.source(),
        &PackageNames::default(),
        &languages,
        false,
        false,
        &bindings,
    )?;
    let rust = rust(setup, &protocol.named("rust", '-'), &bindings)?;
    let typescript_entry = typescript_package(&bindings)?;
    let python_bindings = bindings.join("python");
    let python_path = [("PYTHONPATH", python_bindings.as_path())];
    let package = [("ACP_PACKAGE", typescript_entry.as_path())];
    let typescript = setup.sources("typescript");
    let python_scripts = setup.sources("python");
    let scripts = [
        protocol.named("client", '_'),
        protocol.named("agent", '_'),
        "stdio".to_owned(),
    ]
    .map(|name| python_scripts.join(format!("{name}.py")));
    super::check::python(
        python,
        &scripts.each_ref().map(PathBuf::as_path),
        python,
        Some(&python_bindings),
        &format!("our {} Python programs", protocol.name),
    )?;
    let node = Path::new("node");
    let programs = |what: &str| {
        vec![
            Program::new("ours (Rust)", &[&rust.join(protocol.named(what, '_'))], &[]),
            Program::new(
                "ours (TypeScript)",
                &[node, &typescript.join(format!("{}.mjs", protocol.named(what, '-')))],
                &package,
            ),
            Program::new(
                "ours (Python)",
                &[
                    python,
                    &python_scripts.join(format!("{}.py", protocol.named(what, '_'))),
                ],
                &python_path,
            ),
        ]
    };
    Ok(Ours {
        clients: programs("client"),
        agents: programs("agent"),
    })
}

/// Builds the TypeScript package; returns its entry point.
fn typescript_package(bindings: &Path) -> Result<PathBuf> {
    let package = bindings.join("typescript");
    run_checked(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&package),
        "npm ci in the TypeScript package",
    )?;
    run_checked(
        Command::new("npm")
            .args(["run", "--silent", "build"])
            .current_dir(&package),
        "building the TypeScript package",
    )?;
    Ok(package.join("dist").join("index.js"))
}

/// Builds the Rust programs of `tests/interop/<name>` on the bindings in
/// `target/interop/<name>`; returns the folder of their executables.
fn rust(setup: &Setup, name: &str, bindings: &Path) -> Result<PathBuf> {
    let harness = setup.folder.join(name);
    let source = setup.sources(name);
    let manifest_path = source.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?
        .replace("{bindings}", &bindings.join("rust").display().to_string());
    crate::support::output::write_file(&harness.join("Cargo.toml"), manifest.as_bytes())?;
    copy_tree(&source.join("src"), &harness.join("src"))?;
    run_checked(
        cargo()
            .args(["build", "--quiet", "--bins"])
            .env("CARGO_TARGET_DIR", &setup.target)
            .current_dir(&harness),
        &format!("building our Rust programs of tests/interop/{name}"),
    )?;
    Ok(setup.target.join("debug"))
}
