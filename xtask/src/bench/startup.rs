//! Loading the bindings, timed as whole processes (start, import, exit): in
//! Python, our package, the official SDK's models (`acp.schema`) and
//! pydantic alone (the floor), with bytecode cached as in an installed
//! package (under `target/bench/pycache/`, written by a first, untimed run);
//! in Node, our package's entry point, the official SDK's
//! (`@agentclientprotocol/sdk`, its `main`) and nothing (the floor).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use acp_generate::emit::PackageNames;

use super::generation::{time, Timing};
use super::measure::Setup;

/// One language's three loads, in the order ours, official, floor.
pub struct Startup {
    pub language: &'static str,
    pub timings: Vec<Timing>,
}

pub fn measure(setup: &Setup) -> Result<Vec<Startup>> {
    Ok(vec![python(setup)?, node(setup)?])
}

fn python(setup: &Setup) -> Result<Startup> {
    let interpreter = super::python::interpreter(setup)?;
    let (bindings, cache) = (setup.bindings.join("python"), setup.folder.join("pycache"));
    let import = |module: &str| {
        let mut command = Command::new(&interpreter);
        command
            .arg("-c")
            .arg(format!("import {module}"))
            .env("PYTHONPATH", &bindings)
            .env("PYTHONPYCACHEPREFIX", &cache)
            .env_remove("PYTHONDONTWRITEBYTECODE");
        command
    };
    let contenders = [
        (
            format!("ours: import {}", PackageNames::default().python_package),
            PackageNames::default().python_package,
        ),
        (
            format!(
                "official: import acp.schema (agent-client-protocol {})",
                super::python::SDK_VERSION
            ),
            "acp.schema".to_owned(),
        ),
        ("floor: import pydantic".to_owned(), "pydantic".to_owned()),
    ];
    let timings = contenders
        .iter()
        .map(|(label, module)| timed(label, setup, &|| import(module)))
        .collect::<Result<_>>()?;
    Ok(Startup {
        language: "Python",
        timings,
    })
}

fn node(setup: &Setup) -> Result<Startup> {
    let ours = super::typescript::ours(setup)?;
    let sdk = super::typescript::official_sdk(setup)?;
    let main = main_entry(&sdk)?;
    let import = |entry: Option<&Path>| {
        let mut command = Command::new("node");
        match entry {
            Some(entry) => command
                .args(["--input-type=module", "-e", "await import(process.argv[1])"])
                .arg(format!("file://{}", entry.display())),
            None => command.args(["-e", "0"]),
        };
        command
    };
    let official = sdk.join(main);
    let contenders = [
        ("ours: import dist/index.js".to_owned(), Some(ours.as_path())),
        (
            format!(
                "official: import @agentclientprotocol/sdk {}",
                super::typescript::SDK_VERSION
            ),
            Some(official.as_path()),
        ),
        ("floor: node -e 0".to_owned(), None),
    ];
    let timings = contenders
        .iter()
        .map(|(label, entry)| timed(label, setup, &|| import(*entry)))
        .collect::<Result<_>>()?;
    Ok(Startup {
        language: "TypeScript",
        timings,
    })
}

/// The `main` entry point the package in `package` names.
pub(super) fn main_entry(package: &Path) -> Result<String> {
    let manifest = package.join("package.json");
    let text = std::fs::read_to_string(&manifest).with_context(|| format!("reading {}", manifest.display()))?;
    serde_json::from_str::<serde_json::Value>(&text)?["main"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("{} names no `main`", manifest.display()))
}

/// A first, untimed run (it fills the caches, and fails loudly), then the timed ones.
fn timed(label: &str, setup: &Setup, make: &dyn Fn() -> Command) -> Result<Timing> {
    eprintln!("bench: loading, {label}");
    crate::support::tools::run_checked(&mut make(), label)?;
    Ok(time(label, "", setup.runs(), make))
}
