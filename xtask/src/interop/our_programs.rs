//! How one language's client and agent of ours are built for one protocol
//! version: what a builder gets ([`Inputs`]), its type ([`Build`], which
//! each language's registration names) and the builders: [`rust`] builds
//! the programs of `tests/interop/rust` (or `rust-v2`) on the crate,
//! [`typescript`] the package for the scripts of `tests/interop/typescript`,
//! and [`python`] puts the package's folder on the path of those of
//! `tests/interop/python` (run by the interpreter of the tests'
//! environment, and type-checked on that package first). [`super::ours`]
//! runs every language's.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::program::{Program, Protocol, Setup};
use crate::support::tools::{cargo, copy_tree, run_checked};

/// What a language's programs are built from: the protocol, the folder of
/// every language's bindings of it, and the interpreter of the tests'
/// Python environment.
pub struct Inputs<'a> {
    pub setup: &'a Setup,
    pub protocol: &'a Protocol,
    pub bindings: PathBuf,
    pub python: &'a Path,
}

/// Builds one language's client and agent (the registration's
/// [`crate::languages::LanguageTests::interop`]).
pub type Build = fn(&Inputs) -> Result<[Program; 2]>;

/// Our Rust client and agent: the programs of `tests/interop/rust` (or
/// `rust-v2`) built on the crate.
pub fn rust(inputs: &Inputs) -> Result<[Program; 2]> {
    let protocol = inputs.protocol;
    let programs = rust_programs(inputs.setup, &protocol.named("rust", '-'), &inputs.bindings)?;
    Ok(["client", "agent"].map(|what| Program::new("ours (Rust)", &[&programs.join(protocol.named(what, '_'))], &[])))
}

/// Our TypeScript client and agent: the scripts of `tests/interop/typescript`
/// on the built package.
pub fn typescript(inputs: &Inputs) -> Result<[Program; 2]> {
    let entry = typescript_package(&inputs.bindings)?;
    let package = [("ACP_PACKAGE", entry.as_path())];
    let scripts = inputs.setup.sources("typescript");
    let node = Path::new("node");
    Ok(["client", "agent"].map(|what| {
        Program::new(
            "ours (TypeScript)",
            &[node, &scripts.join(format!("{}.mjs", inputs.protocol.named(what, '-')))],
            &package,
        )
    }))
}

/// Our Python client and agent: the scripts of `tests/interop/python`, with
/// the package's folder on the path, type-checked on that package first.
pub fn python(inputs: &Inputs) -> Result<[Program; 2]> {
    let (protocol, python) = (inputs.protocol, inputs.python);
    let python_bindings = inputs.bindings.join("python");
    let python_path = [("PYTHONPATH", python_bindings.as_path())];
    let python_scripts = inputs.setup.sources("python");
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
    Ok(["client", "agent"].map(|what| {
        Program::new(
            "ours (Python)",
            &[
                python,
                &python_scripts.join(format!("{}.py", protocol.named(what, '_'))),
            ],
            &python_path,
        )
    }))
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
/// `target/interop/<name>` (the manifest's `{bindings}`; its `{sources}` is
/// `tests/interop`); returns the folder of their executables.
fn rust_programs(setup: &Setup, name: &str, bindings: &Path) -> Result<PathBuf> {
    let harness = setup.folder.join(name);
    let source = setup.sources(name);
    let manifest_path = source.join("Cargo.toml");
    let manifest = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?
        .replace("{bindings}", &bindings.join("rust").display().to_string())
        .replace(
            "{sources}",
            &setup.workspace.join("tests").join("interop").display().to_string(),
        );
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
