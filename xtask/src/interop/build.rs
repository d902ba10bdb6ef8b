//! The other implementations' programs of the matrix, built or installed
//! under `target/interop/`: the official Rust SDK's agents and example
//! clients on protocols v1 and v2, the official TypeScript and Python SDKs'
//! agents and clients with the pinned SDK each (`npm ci` from the committed
//! lock, a virtual environment of its own), and the example agent and client
//! of `github.com/coder/acp-go-sdk`, built from the module proxy at the
//! benchmark's pin. Ours are [`super::ours`]'.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::program::{Program, Setup};
use crate::support::coder::{sdk_module, sdk_version, SDK};
use crate::support::tools::{cargo, copy_tree, go, run_checked, virtual_environment};

/// An official SDK's agent and client, ready to run.
pub struct Official {
    pub agent: Program,
    pub client: Program,
}

/// An official SDK's agent and client on each protocol version.
pub struct Versions {
    pub v1: Official,
    pub v2: Official,
}

/// Builds the agents written on the official Rust SDK (v1, and v2 on its
/// `unstable_protocol_v2` feature), then the SDK's own example clients
/// (`yolo_one_shot_client`, `v2_one_shot_client`) from the published
/// crate's sources (which that build fetched).
pub fn official_rust(setup: &Setup) -> Result<Versions> {
    let source = setup.sources("official-rust");
    let built = setup.folder.join("official-rust");
    let manifest = source.join("Cargo.toml");
    crate::support::output::write_file(
        &built.join("Cargo.toml"),
        &std::fs::read(&manifest).with_context(|| format!("reading {}", manifest.display()))?,
    )?;
    copy_tree(&source.join("src"), &built.join("src"))?;
    run_checked(
        cargo()
            .args(["build", "--quiet"])
            .env("CARGO_TARGET_DIR", &setup.target)
            .current_dir(&built),
        "building the agents on the official Rust SDK",
    )?;
    let metadata = cargo()
        .args(["metadata", "--format-version", "1"])
        .current_dir(&built)
        .output()
        .context("cargo metadata")?;
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout).context("reading cargo metadata")?;
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|package| package["name"] == "agent-client-protocol")
        .context("the official SDK is not among the agent's dependencies")?;
    let version = package["version"].as_str().context("the official SDK's version")?;
    let manifest = package["manifest_path"]
        .as_str()
        .context("the official SDK's manifest")?;
    let sources = Path::new(manifest).parent().context("the SDK's folder")?;
    let sdk = setup.folder.join("official-rust-sdk");
    if !sdk.join("Cargo.toml").is_file() {
        copy_tree(sources, &sdk)?;
        // Its lock pins versions the registry may no longer serve; inside
        // this repository's target folder it must be a workspace of its own.
        let _ = std::fs::remove_file(sdk.join("Cargo.lock"));
        let manifest =
            std::fs::read_to_string(sdk.join("Cargo.toml")).context("reading the official SDK's manifest")?;
        crate::support::output::write_file(&sdk.join("Cargo.toml"), format!("{manifest}\n[workspace]\n").as_bytes())?;
    }
    let examples = [
        "--example",
        "yolo_one_shot_client",
        "--example",
        "v2_one_shot_client",
        "--features",
        "process,unstable_protocol_v2",
    ];
    run_checked(
        cargo()
            .args(["build", "--quiet"])
            .args(examples)
            .env("CARGO_TARGET_DIR", &setup.target)
            .current_dir(&sdk),
        "building the official Rust SDK's example clients",
    )?;
    let debug = setup.target.join("debug");
    let official = |agent: &str, example: &str, what: &str| Official {
        agent: Program::new(
            &format!("official Rust SDK {version} (a small {what}agent on its API)"),
            &[&debug.join(agent)],
            &[],
        ),
        client: Program::new(
            &format!("official Rust SDK {version} (its example client {example})"),
            &[&debug.join("examples").join(example)],
            &[],
        ),
    };
    Ok(Versions {
        v1: official("acp-interop-official", "yolo_one_shot_client", ""),
        v2: official("acp-interop-official-v2", "v2_one_shot_client", "v2 "),
    })
}

/// The agent and client of `tests/interop/official-<language>`, run by
/// `interpreter` from `folder`, on the official SDK `version`: on protocol
/// v1, or on `protocol` (`agent-v2.mjs` and `client-v2.mjs` for v2).
fn scripts(
    language: &str,
    version: &str,
    interpreter: &Path,
    folder: &Path,
    extension: &str,
    protocol: Option<&str>,
) -> Official {
    let label = |what: &str| match protocol {
        Some(protocol) => format!("official {language} SDK {version} (a small {protocol} {what} on its API)"),
        None => format!("official {language} SDK {version} (a small {what} on its API)"),
    };
    let script = |what: &str| match protocol {
        Some(protocol) => folder.join(format!("{what}-{protocol}.{extension}")),
        None => folder.join(format!("{what}.{extension}")),
    };
    Official {
        agent: Program::new(&label("agent"), &[interpreter, &script("agent")], &[]),
        client: Program::new(&label("client"), &[interpreter, &script("client")], &[]),
    }
}

/// Copies `tests/interop/official-typescript` to `target/interop/` and
/// installs its locked dependencies there.
pub fn official_typescript(setup: &Setup) -> Result<Versions> {
    let folder = setup.folder.join("official-typescript");
    copy_tree(&setup.sources("official-typescript"), &folder)?;
    run_checked(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&folder),
        "npm ci for the official TypeScript SDK",
    )?;
    let manifest = folder.join("package.json");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&manifest).with_context(|| format!("reading {}", manifest.display()))?)
            .context("reading package.json")?;
    let version = manifest["dependencies"]["@agentclientprotocol/sdk"]
        .as_str()
        .context("package.json pins no @agentclientprotocol/sdk")?;
    let node = Path::new("node");
    Ok(Versions {
        v1: scripts("TypeScript", version, node, &folder, "mjs", None),
        v2: scripts("TypeScript", version, node, &folder, "mjs", Some("v2")),
    })
}

/// Copies `tests/interop/official-python` to `target/interop/` and installs
/// its pinned requirements into a virtual environment there.
pub fn official_python(setup: &Setup, tools: &Path) -> Result<Official> {
    let folder = setup.folder.join("official-python");
    copy_tree(&setup.sources("official-python"), &folder)?;
    let requirements = folder.join("requirements.txt");
    let interpreter = virtual_environment(&folder, &requirements)?;
    let programs = ["agent.py", "client.py", "recorded.py"].map(|script| folder.join(script));
    super::check::python(
        tools,
        &programs.each_ref().map(PathBuf::as_path),
        &interpreter,
        None,
        "the Python programs on the official SDK",
    )?;
    let pins = std::fs::read_to_string(&requirements).with_context(|| format!("reading {}", requirements.display()))?;
    let version = pins
        .lines()
        .find_map(|line| line.trim().strip_prefix("agent-client-protocol=="))
        .context("requirements.txt pins no agent-client-protocol")?;
    Ok(scripts("Python", version, &interpreter, &folder, "py", None))
}

/// Builds the example agent and client of `github.com/coder/acp-go-sdk`
/// (`example/agent`, `example/client`) at the benchmark's pin, in a module
/// of their own under `target/interop/coder-go/` that requires only it.
pub fn coder_go(setup: &Setup) -> Result<Official> {
    let folder = setup.folder.join("coder-go");
    let version = sdk_version()?;
    sdk_module(&folder, "acp-interop-coder")?;
    let bin = folder.join("bin");
    // `go build -o` writes several programs only into a folder that exists.
    std::fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    run_checked(
        go(&folder)
            .args(["build", "-o"])
            .arg(&bin)
            .args(["agent", "client"].map(|what| format!("{SDK}/example/{what}"))),
        &format!("building the example agent and client of {SDK} v{version}"),
    )?;
    let label = |what: &str| format!("{SDK} {version} (its example {what})");
    Ok(Official {
        agent: Program::new(&label("agent"), &[&bin.join("agent")], &[]),
        client: Program::new(&label("client"), &[&bin.join("client")], &[]),
    })
}
