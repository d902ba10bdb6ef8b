//! How one language's client and agent of ours are built for one protocol
//! version: what a builder gets ([`Inputs`]), its type ([`Build`], which
//! each language's registration names) and the builders: [`rust`] builds
//! the programs of `tests/interop/rust` (or `rust-v2`) on the crate,
//! [`typescript`] the package for the scripts of `tests/interop/typescript`,
//! [`python`] puts the package's folder on the path of those of
//! `tests/interop/python` (run by the interpreter of the tests'
//! environment, and type-checked on that package first), and [`go`] builds
//! the commands of `tests/interop/go` on the module. [`super::ours`] runs
//! every language's.
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use acp_generate::emit::PackageNames;

use super::program::{Program, Protocol, Setup};
use crate::support::tools::{cargo, copy_tree, go as go_command, run_checked};

/// What a language's programs are built from: the protocol, the folder of
/// every language's bindings of it, and the interpreter of the tests'
/// Python environment.
pub struct Inputs<'a> {
    pub setup: &'a Setup,
    pub protocol: &'a Protocol,
    pub bindings: PathBuf,
    pub python: &'a Path,
}

/// One language's programs on one protocol version: the client and agent
/// of the interop matrix, and the full-surface agent that stands for the
/// agent in `cargo xtask conformance`.
pub struct Programs {
    pub client: Program,
    pub agent: Program,
    pub full_agent: Program,
}

/// Builds one language's programs (the registration's
/// [`crate::languages::LanguageTests::interop`]).
pub type Build = fn(&Inputs) -> Result<Programs>;

/// Our Rust client and agent: the programs of `tests/interop/rust` (or
/// `rust-v2`) built on the crate.
pub fn rust(inputs: &Inputs) -> Result<Programs> {
    let protocol = inputs.protocol;
    let programs = rust_programs(
        inputs.setup,
        &protocol.named("rust", '-'),
        &protocol.named("scripted_agent", '_'),
        &inputs.bindings,
    )?;
    let program = |label: &str, what: &str| Program::new(label, &[&programs.join(protocol.named(what, '_'))], &[]);
    Ok(Programs {
        client: program("ours (Rust)", "client"),
        agent: program("ours (Rust)", "agent"),
        full_agent: program("ours, full surface (Rust)", "agent_full"),
    })
}

/// Our TypeScript client and agent: the scripts of `tests/interop/typescript`
/// on the built package.
pub fn typescript(inputs: &Inputs) -> Result<Programs> {
    let entry = typescript_package(&inputs.bindings)?;
    let package = [("ACP_PACKAGE", entry.as_path())];
    let scripts = inputs.setup.sources("typescript");
    let node = Path::new("node");
    let program = |label: &str, what: &str| {
        Program::new(
            label,
            &[node, &scripts.join(format!("{}.mjs", inputs.protocol.named(what, '-')))],
            &package,
        )
    };
    Ok(Programs {
        client: program("ours (TypeScript)", "client"),
        agent: program("ours (TypeScript)", "agent"),
        full_agent: program("ours, full surface (TypeScript)", "agent-full"),
    })
}

/// Our Python client and agents: the scripts of `tests/interop/python`,
/// with the package's folder on the path, type-checked on that package
/// first.
pub fn python(inputs: &Inputs) -> Result<Programs> {
    let (protocol, python) = (inputs.protocol, inputs.python);
    let python_bindings = inputs.bindings.join("python");
    // The agents import the Python test agent (`tests/python/scripted_agent.py`).
    let test_agent = inputs.setup.workspace.join("tests").join("python");
    let search = PathBuf::from(std::env::join_paths([&python_bindings, &test_agent])?);
    let python_path = [("PYTHONPATH", search.as_path())];
    let python_scripts = inputs.setup.sources("python");
    let script = |what: &str| python_scripts.join(format!("{}.py", protocol.named(what, '_')));
    let scripts = [
        script("client"),
        script("agent"),
        script("agent_full"),
        python_scripts.join("stdio.py"),
    ];
    super::check::python(
        python,
        &scripts.each_ref().map(PathBuf::as_path),
        python,
        Some(&search),
        &format!("our {} Python programs", protocol.name),
    )?;
    let program = |label: &str, what: &str| Program::new(label, &[python, &script(what)], &python_path);
    Ok(Programs {
        client: program("ours (Python)", "client"),
        agent: program("ours (Python)", "agent"),
        full_agent: program("ours, full surface (Python)", "agent_full"),
    })
}

/// Our Go client and agents: the commands of `tests/interop/go` (`cmd/client`,
/// `cmd/agent`, `cmd/agent_full`, or their `_v2` twins), copied to
/// `target/interop/go` (or `go-v2`) with the Go test agent of the protocol
/// (`tests/go/scripted_agent/` or `scripted_agent_v2/`) as its package
/// `internal/scriptedagent` and the module's `replace` pointed at
/// the protocol's bindings, checked by `go vet` and the Go suite's
/// staticcheck, and built into its `bin/`.
pub fn go(inputs: &Inputs) -> Result<Programs> {
    let protocol = inputs.protocol;
    let module = inputs.setup.folder.join(protocol.named("go", '-'));
    if module.exists() {
        std::fs::remove_dir_all(&module).with_context(|| format!("removing {}", module.display()))?;
    }
    copy_tree(&inputs.setup.sources("go"), &module)?;
    crate::support::tools::copy_go_test_agent(
        &inputs.setup.workspace,
        &protocol.named("scripted_agent", '_'),
        &module,
    )?;
    let bindings = inputs.bindings.join("go");
    run_checked(
        go_command(&module).args(["mod", "edit", "-replace"]).arg(format!(
            "{}={}",
            PackageNames::default().go_module,
            bindings.display()
        )),
        &format!("pointing {} at the Go bindings", module.join("go.mod").display()),
    )?;
    let commands = ["client", "agent", "agent_full"].map(|what| format!("./cmd/{}", protocol.named(what, '_')));
    let packages: Vec<&str> = std::iter::once("./internal/...")
        .chain(commands.iter().map(String::as_str))
        .collect();
    run_checked(
        go_command(&module).arg("vet").args(&packages),
        &format!("go vet on our {} Go programs", protocol.name),
    )?;
    run_checked(
        Command::new(crate::support::tools::staticcheck(&inputs.setup.workspace)?)
            .args(&packages)
            .env("GOTOOLCHAIN", "local")
            .env("GOWORK", "off")
            .current_dir(&module),
        &format!("staticcheck on our {} Go programs", protocol.name),
    )?;
    let bin = module.join("bin");
    // `go build -o` writes several programs only into a folder that exists.
    std::fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    run_checked(
        go_command(&module).args(["build", "-o"]).arg(&bin).args(&commands),
        &format!("building our {} Go programs", protocol.name),
    )?;
    let program = |label: &str, what: &str| Program::new(label, &[&bin.join(protocol.named(what, '_'))], &[]);
    Ok(Programs {
        client: program("ours (Go)", "client"),
        agent: program("ours (Go)", "agent"),
        full_agent: program("ours, full surface (Go)", "agent_full"),
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
/// `target/interop/<name>` (the manifest's `{bindings}`; its `{sources}` is
/// `tests/interop`), with the test agent `tests/rust/<test_agent>/` beside
/// them in `src/`; returns the folder of their executables.
fn rust_programs(setup: &Setup, name: &str, test_agent: &str, bindings: &Path) -> Result<PathBuf> {
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
    // The agent plays the Rust test agent of its protocol version.
    copy_tree(
        &setup.workspace.join("tests").join("rust").join(test_agent),
        &harness.join("src").join(test_agent),
    )?;
    run_checked(
        cargo()
            .args(["build", "--quiet", "--bins"])
            .env("CARGO_TARGET_DIR", &setup.target)
            .current_dir(&harness),
        &format!("building our Rust programs of tests/interop/{name}"),
    )?;
    Ok(setup.target.join("debug"))
}
