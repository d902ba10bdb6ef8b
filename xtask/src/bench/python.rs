//! The Python measurements: a virtual environment in `target/bench/venv/`
//! with the pinned pydantic the tests use and the official SDK
//! (`agent-client-protocol`, whose models are `acp.schema`); ours is the
//! generated package, imported from the bindings folder. The floor is
//! `json.loads` + `json.dumps`. Each runs `programs/decode_encode.py` in its
//! own process.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use acp_generate::emit::PackageNames;

use super::measure::{measure_interleaved, write_if_changed, Contender, Measurement, Setup};
use crate::support::tools::run_checked;

const PROGRAM: &str = include_str!("programs/decode_encode.py");
const RECEIVE: &str = include_str!("programs/receive.py");
/// What the two programs share, beside them.
const PROCESS: &str = include_str!("programs/bench_process.py");

/// The official SDK.
pub const SDK_VERSION: &str = "0.12.1";

/// The pydantic of `tests/python/requirements.txt`, so ours runs as tested.
fn pydantic(workspace: &Path) -> Result<String> {
    let path = workspace.join("tests").join("python").join("requirements.txt");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .find(|line| line.starts_with("pydantic=="))
        .map(str::to_owned)
        .with_context(|| format!("{} pins no pydantic", path.display()))
}

/// Makes the environment (once per requirements); returns its interpreter.
pub fn environment(folder: &Path, requirements: &str) -> Result<PathBuf> {
    let python = folder.join("bin").join("python");
    if !python.is_file() {
        run_checked(
            Command::new("python3").args(["-m", "venv"]).arg(folder),
            "python3 -m venv for the benchmark",
        )?;
    }
    let stamp = folder.join("bench-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(requirements) {
        eprintln!("bench: installing {}", requirements.trim().replace('\n', ", "));
        std::fs::write(folder.join("requirements.txt"), requirements)?;
        run_checked(
            Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(folder.join("requirements.txt")),
            "pip install for the benchmark",
        )?;
        std::fs::write(&stamp, requirements)?;
    }
    Ok(python)
}

/// The benchmark environment's interpreter (made when missing).
pub fn interpreter(setup: &Setup) -> Result<PathBuf> {
    let requirements = format!(
        "{}\nagent-client-protocol=={SDK_VERSION}\n",
        pydantic(&setup.workspace)?
    );
    environment(&setup.folder.join("venv"), &requirements)
}

/// Python's contenders: [`measure`], then [`measure_connection`].
pub fn contenders(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let mut measurements = measure(setup, corpus)?;
    measurements.extend(measure_connection(setup, corpus)?);
    Ok(measurements)
}

pub fn measure(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let pydantic = pydantic(&setup.workspace)?;
    let package = PackageNames::default().python_package;
    let contenders = [
        (
            "ours",
            package,
            format!("generated package (model_validate_json + model_dump_json), {pydantic}"),
        ),
        (
            "official",
            "acp.schema".to_owned(),
            format!("agent-client-protocol {SDK_VERSION} (acp.schema), {pydantic}"),
        ),
        ("floor", "-".to_owned(), "json.loads + json.dumps".to_owned()),
    ];
    run_contenders("Python", setup, corpus, ("decode_encode.py", PROGRAM), contenders)
}

/// Receiving: the corpus's `session/update` notifications handed, as text,
/// to a client's end of a connection (`programs/receive.py`).
pub fn measure_connection(setup: &Setup, corpus: &Path) -> Result<Vec<Measurement>> {
    let package = PackageNames::default().python_package;
    let contenders = [
        (
            "ours",
            package,
            "generated package (connect_client, receive)".to_owned(),
        ),
        (
            "official",
            "acp".to_owned(),
            format!("agent-client-protocol {SDK_VERSION} (ClientSideConnection, json.loads per message)"),
        ),
        ("floor", "-".to_owned(), "json.loads".to_owned()),
    ];
    run_contenders("Python connection", setup, corpus, ("receive.py", RECEIVE), contenders)
}

/// Runs `program` (its file name and text) for each of `contenders` (role,
/// module, label), in turns.
fn run_contenders(
    language: &'static str,
    setup: &Setup,
    corpus: &Path,
    (name, text): (&str, &str),
    contenders: [(&'static str, String, String); 3],
) -> Result<Vec<Measurement>> {
    let python = interpreter(setup)?;
    let program = setup.folder.join("programs").join(name);
    write_if_changed(&program, text)?;
    write_if_changed(&setup.folder.join("programs").join("bench_process.py"), PROCESS)?;
    let contenders = contenders.map(|(role, module, label)| {
        let (python, program, corpus, path) = (
            python.clone(),
            program.clone(),
            corpus.to_path_buf(),
            setup.bindings.join("python"),
        );
        Contender {
            role,
            label,
            command: Box::new(move |runs| {
                let mut command = Command::new(&python);
                command
                    .arg(&program)
                    .arg(role)
                    .arg(&module)
                    .arg(&corpus)
                    .arg(runs.to_string());
                command.env("PYTHONPATH", &path).env("PYTHONDONTWRITEBYTECODE", "1");
                command
            }),
        }
    });
    measure_interleaved(language, setup, &contenders)
}
