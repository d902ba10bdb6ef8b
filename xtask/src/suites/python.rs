//! The python bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: a virtual environment in
//! `.tools/venv` with the pinned tools (`tests/python/requirements.txt`), a
//! wheel built from a copy of `python/` by pip's PEP 517 build and installed
//! into that environment in place of the previous schema's, `ruff check` on
//! the sources, `mypy --strict` (with the pydantic plugin, from the package's
//! `pyproject.toml`) on the installed package, then pytest on every shared
//! vector (`tests/python/`), warnings counted as errors. On the default
//! schema, the hostile wire cases (`tests/python/test_hostile_wire.py`) run too,
//! and so does the fuzz harness's check on every fuzz seed
//! (`tests/python/test_fuzz_seeds.py`, the folder in `ACP_FUZZ_SEEDS`),
//! and the usage program (`tests/python/usage.py`) is first
//! type-checked as a programmer's code would be: `mypy --strict` with and
//! without the pydantic plugin, and pyright in strict mode. On the default
//! and v2-stable schemas, the connection's race tests
//! (`tests/python/test_connection.py`) run the scenario of each, which pytest
//! learns from `ACP_SCHEMA_LABEL`. The tests import the
//! package by name from site-packages, never from the sources, and fail unless
//! it holds exactly the files generated for this schema. pytest exits 5 when
//! it ran no test, which fails like any other non-zero exit.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use acp_generate::emit::PackageNames;

use crate::commands::package::{build, install};
use crate::languages::{Install, LanguageTests, Mutant, Usage};
use crate::support::tools::{copy_tree, run_checked, virtual_environment, SuiteOutcome};

/// Python's registration ([`crate::languages::LanguageTests`]), listed in
/// [`crate::registry`].
pub const LANGUAGE: LanguageTests = LanguageTests {
    generated: &acp_generate::emit::python::LANGUAGE,
    suite: run,
    vector_suite,
    summary: |output| {
        output
            .lines()
            .rev()
            .find(|line| line.contains(" failed") || line.contains(" passed") || line.contains(" error"))
    },
    mutants: &[
        Mutant {
            name: "roundtrip returns its input",
            file: "python/acp_bindings/codec.py",
            find: "    return encode(annotation, decode_with(annotation, value), decoded=True)\n",
            replace: "    return value\n",
        },
        Mutant {
            name: "errors name no pointer",
            file: "python/acp_bindings/_runtime.py",
            find: "        super().__init__(f\"{path or '/'}: {message}\")\n",
            replace: "        path = \"\"\n        super().__init__(f\"{path or '/'}: {message}\")\n",
        },
        Mutant {
            name: "an absent member is written as null, beside an unknown member spelled like its attribute too",
            file: "python/acp_bindings/_runtime.py",
            find: "                read[\"default\"] = MISSING\n",
            replace: "                read[\"default\"] = None\n",
        },
        Mutant {
            name: "wire members read by attribute name too",
            file: "python/acp_bindings/_runtime.py",
            find: "        validate_by_name=False,\n",
            replace: "        validate_by_name=True,\n",
        },
    ],
    // The Python suite, which runs before the chain, made this environment.
    chain_step: |workspace, bindings| {
        (
            workspace.join(".tools").join("venv").join("bin").join("python"),
            vec![
                workspace.join("tests/python/roundtrip_batch.py"),
                bindings.to_path_buf(),
            ],
        )
    },
    numbers_as_doubles: false,
    negotiates: true,
    usage: Some(USAGE),
    interop: Some(crate::interop::our_programs::python),
    bench: Some(crate::bench::python::contenders),
    package: Some(|source, _names, _version, into| build::python(source, into)),
    installs: &[
        Install {
            what: "python wheel",
            suffix: ".whl",
            folder: Some("wheel"),
            run: install::python,
        },
        Install {
            what: "python sdist",
            suffix: ".tar.gz",
            folder: Some("sdist"),
            run: install::python,
        },
    ],
    fuzz: Some(crate::fuzz::python::run),
};

/// Runs the python suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `python/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str, seeds: Option<&Path>) -> Result<()> {
    let package = bindings.join("python");
    ensure!(
        package.join("pyproject.toml").is_file(),
        "{label}: no Python package in {}",
        package.display()
    );
    let import_name = PackageNames::default().python_package;
    let tests = workspace.join("tests").join("python");
    let tools = workspace.join(".tools");
    let python = virtual_environment(&tools, &tests.join("requirements.txt"))?;

    let work = install(&python, bindings, workspace, label)?;
    run_checked(
        Command::new(&python)
            .args(["-m", "ruff", "check", "--no-cache", &import_name])
            .current_dir(&package),
        &format!("{label}: ruff check"),
    )?;
    // From a folder without the sources, which mypy would find first: a
    // package named with `-p` is checked even in site-packages.
    run_checked(
        Command::new(&python)
            .args(["-m", "mypy", "--strict", "--config-file"])
            .arg(package.join("pyproject.toml"))
            .arg("--cache-dir")
            .arg(tools.join("mypy-cache").join(label))
            .args(["-p", &import_name])
            .current_dir(&work),
        &format!("{label}: mypy --strict on the installed package"),
    )?;
    if label == "default" {
        check_usage_program(
            &python,
            &tests.join(USAGE.ours),
            &package.join("pyproject.toml"),
            &tools,
            &work,
        )?;
    }
    let outcome = pytest(&python, workspace, bindings, &tests, Some(label), seeds)?;
    crate::support::lanes::show(&outcome.output);
    ensure!(
        outcome.passed,
        "{label}: pytest {} failed (exit 5 means no test ran)",
        tests.display()
    );
    Ok(())
}

/// The usage program and its twin on the official SDK, in `tests/python/`
/// (`test_usage.py` runs both).
const USAGE: Usage = Usage {
    ours: "usage.py",
    official: "usage_official.py",
    longer: None,
};

/// Type-checks `program` against the installed package: `mypy --strict` with
/// the package's configuration (the pydantic plugin) and with none (from
/// `work`, which holds no configuration), then pyright, which the program's
/// `# pyright: strict` comment puts in strict mode.
fn check_usage_program(python: &Path, program: &Path, config: &Path, tools: &Path, work: &Path) -> Result<()> {
    let cache = tools.join("mypy-cache").join("usage");
    run_checked(
        Command::new(python)
            .args(["-m", "mypy", "--strict", "--config-file"])
            .arg(config)
            .arg("--cache-dir")
            .arg(cache.join("plugin"))
            .arg(program),
        "mypy --strict (pydantic plugin) on tests/python/usage.py",
    )?;
    run_checked(
        Command::new(python)
            .args(["-m", "mypy", "--strict", "--cache-dir"])
            .arg(cache.join("plain"))
            .arg(program)
            .current_dir(work),
        "mypy --strict (no plugin) on tests/python/usage.py",
    )?;
    run_checked(
        Command::new(python)
            .args(["-m", "pyright", "--pythonpath"])
            .arg(python)
            .arg(program)
            .current_dir(work),
        "pyright (strict) on tests/python/usage.py",
    )
}

/// Builds a wheel of the package of `bindings` and installs it into the
/// tools environment of `python`; returns the work folder of the build.
fn install(python: &Path, bindings: &Path, workspace: &Path, label: &str) -> Result<PathBuf> {
    let work = workspace.join("target").join("python-install").join(label);
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("removing {}", work.display()))?;
    }
    let wheel = build_wheel(python, &bindings.join("python"), &work, label)?;
    run_checked(
        Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall"])
            .arg(&wheel),
        &format!("{label}: pip install {}", wheel.display()),
    )?;
    Ok(work)
}

/// Runs pytest on `tests` (a folder or file of `tests/python`) against the
/// installed package of `bindings`. With the schema's `label`, it also
/// collects the suites written for that schema: those for the default
/// schema only (`conftest.DEFAULT_SCHEMA_ONLY`, `ACP_DEFAULT_SCHEMA`) and
/// those with a scenario per schema (`conftest.SCHEMA_SUITES`,
/// `ACP_SCHEMA_LABEL`), and the fuzz seeds of `seeds` (`ACP_FUZZ_SEEDS`).
fn pytest(
    python: &Path,
    workspace: &Path,
    bindings: &Path,
    tests: &Path,
    label: Option<&str>,
    seeds: Option<&Path>,
) -> Result<SuiteOutcome> {
    let mut command = Command::new(python);
    if let Some(seeds) = seeds {
        command.env("ACP_FUZZ_SEEDS", seeds);
    }
    if label == Some("default") {
        command.env("ACP_DEFAULT_SCHEMA", "1");
    }
    if let Some(label) = label {
        command.env("ACP_SCHEMA_LABEL", label);
    }
    SuiteOutcome::of(
        command
            .args(["-m", "pytest", "-q", "-W", "error", "-p", "no:cacheprovider"])
            .arg(tests)
            .env("ACP_BINDINGS", bindings)
            .env("ACP_PYTHON_PACKAGE", PackageNames::default().python_package)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .current_dir(workspace),
        "pytest",
    )
}

/// Installs the package of `bindings` (as [`run`] does) and runs pytest on it.
pub fn vector_suite(workspace: &Path, bindings: &Path, label: &str) -> Result<SuiteOutcome> {
    let tests = workspace.join("tests").join("python");
    let python = virtual_environment(&workspace.join(".tools"), &tests.join("requirements.txt"))?;
    install(&python, bindings, workspace, label)?;
    pytest(&python, workspace, bindings, &tests, None, None)
}

/// Builds a wheel of the package in `package` with pip's PEP 517 build (the
/// backend from the environment's pinned hatchling, no isolation) into
/// `work/wheel/`, from a copy in `work/source/` (the build writes beside the
/// sources); returns the wheel's path.
fn build_wheel(python: &Path, package: &Path, work: &Path, label: &str) -> Result<PathBuf> {
    let source = work.join("source");
    let wheels = work.join("wheel");
    copy_tree(package, &source)?;
    run_checked(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "wheel",
                "--quiet",
                "--no-deps",
                "--no-build-isolation",
                "--wheel-dir",
            ])
            .arg(&wheels)
            .arg(&source),
        &format!("{label}: pip wheel {}", package.display()),
    )?;
    let mut built: Vec<PathBuf> = std::fs::read_dir(&wheels)
        .with_context(|| format!("reading {}", wheels.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    built.retain(|path| path.extension().is_some_and(|extension| extension == "whl"));
    match built.as_slice() {
        [wheel] => Ok(wheel.clone()),
        _ => bail!(
            "{label}: pip wheel built {} wheels in {}, not one",
            built.len(),
            wheels.display()
        ),
    }
}
