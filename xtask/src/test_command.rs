//! `cargo xtask test`: every test of every language. It fetches what the
//! tests need into ignored folders, runs the workspace tests, then generates
//! bindings from the default schema and from each upstream release schema and
//! runs each language's suite on them (with the negotiation cases of
//! `tests/negotiation.json`, whose views must come out byte-identical in
//! every language). Last, the quick benchmark (`cargo xtask bench --quick`)
//! runs, so that it cannot rot: it fails when our bindings do not re-encode
//! its corpus exactly. Before it, the packages of `cargo xtask package` are
//! built twice, compared, installed and used ([`crate::package::check`]).
//! The first failure fails the command.
//! `--only LABEL` runs just the suites of those schemas' bindings.
//! It refuses to run while `UPDATE_SNAPSHOTS` is set: a run that re-approves
//! snapshots checks none.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use acp_codegen::emit::PackageNames;
use acp_schema_source::{ExtendedSchema, RfdSelection, SourceOptions};

use crate::{bench, captures, chain, generate, handlers, independent, mutation, negotiation_suite, package, source, test_python, test_rust, test_typescript, upstream};

/// The workspace root (the parent of this crate's folder).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace").to_path_buf()
}

/// How a test suite ended, and what it printed (stdout, then stderr).
pub struct SuiteOutcome {
    pub passed: bool,
    pub output: String,
}

impl SuiteOutcome {
    /// Runs `command` (described as `what`) to the end, capturing its output.
    pub fn of(command: &mut Command, what: &str) -> Result<SuiteOutcome> {
        let output = command.output().with_context(|| format!("starting {what}"))?;
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        Ok(SuiteOutcome { passed: output.status.success(), output: text })
    }
}

/// Runs `command`, failing with its description when it fails.
pub fn run_checked(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("starting {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

/// The schemas whose bindings are tested, with whether they read tolerantly:
/// the default, the default with tolerant reading, and the latest release's
/// four schemas without RFD overlays. (`hostile` is tested beside them.)
fn schemas_under_test(upstream_root: &Path) -> Vec<(String, SourceOptions, bool)> {
    let mut schemas = vec![("default".to_owned(), SourceOptions::default(), false), ("default-tolerant".to_owned(), SourceOptions::default(), true)];
    let latest = upstream_root.join(format!("sdk-{}", upstream::SDK_RELEASES[upstream::SDK_RELEASES.len() - 1])).join("package/schema");
    for (label, file) in [
        ("v1-stable", "v1/schema.json"),
        ("v1-unstable", "v1/schema.unstable.json"),
        ("v2-stable", "v2/schema.json"),
        ("v2-unstable", "v2/schema.unstable.json"),
    ] {
        schemas.push((label.to_owned(), SourceOptions { schema_file: Some(latest.join(file)), rfds: RfdSelection::Nothing }, false));
    }
    schemas
}

/// The default base with the hostile fixture overlay: keywords and reserved
/// words as member names, and text that tries to leave a comment, a
/// docstring or a string, in every language.
fn hostile(workspace: &Path) -> Result<ExtendedSchema> {
    let overlay = workspace.join("codegen").join("tests").join("fixtures").join("hostile.overlay.json");
    let assembled = source::assemble(&format!("default+{}", overlay.display()))?;
    if let Some(conflict) = assembled.conflicts.first() {
        bail!("the hostile fixture does not apply: {}", conflict.message);
    }
    Ok(assembled.schema)
}

/// Runs everything, or with `only` the suites of those schemas alone
/// (`history`: the review on the published history, [`crate::history`]).
pub fn run(only: &[String]) -> Result<()> {
    // The workspace tests would inherit the variable and re-approve every
    // snapshot instead of checking it.
    if let Some(value) = std::env::var_os("UPDATE_SNAPSHOTS") {
        bail!(
            "UPDATE_SNAPSHOTS is set ({value:?}): `cargo xtask test` only checks snapshots; unset it, \
             and re-approve snapshots with `UPDATE_SNAPSHOTS=1 cargo test --workspace`"
        );
    }
    let workspace = workspace_root();
    let history_only = only.iter().any(|label| label == "history");
    let only: Vec<String> = only.iter().filter(|label| *label != "history").cloned().collect();
    if history_only {
        eprintln!("== the review on the published history");
        crate::history::run(&workspace)?;
        if only.is_empty() {
            return Ok(());
        }
    }
    let upstream_root = upstream::fetch(&workspace)?;
    eprintln!("upstream release schemas in {}", upstream_root.display());
    let mut labelled = Vec::new();
    for (label, source, tolerant) in schemas_under_test(&upstream_root) {
        labelled.push((label, acp_schema_source::load(&source)?, tolerant));
    }
    labelled.push(("hostile".to_owned(), hostile(&workspace)?, false));
    if let Some(unknown) = only.iter().find(|wanted| labelled.iter().all(|(label, _, _)| label != *wanted)) {
        bail!("--only {unknown}: no such schema under test");
    }
    if !only.is_empty() {
        labelled.retain(|(label, _, _)| only.contains(label));
        return test_schemas(&workspace, &upstream_root, labelled);
    }
    run_checked(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
            .args(["test", "--workspace", "--", "--include-ignored"])
            .env("ACP_UPSTREAM_SCHEMAS", &upstream_root)
            .current_dir(&workspace),
        "cargo test --workspace",
    )?;
    run_checked(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
            .args(["clippy", "--quiet", "--workspace", "--all-targets", "--", "-D", "warnings"])
            .current_dir(&workspace),
        "cargo clippy --workspace",
    )?;
    eprintln!("== the review on the published history");
    crate::history::run(&workspace)?;
    test_schemas(&workspace, &upstream_root, labelled)?;
    eprintln!("== the packages (cargo xtask package)");
    package::check::run()?;
    eprintln!("== the quick benchmark");
    bench::run(&bench::Options { quick: true, peers: false, out: None })
}

/// Generates the bindings of each schema and runs the handler check against
/// the official SDK, every language's suite, the chain, the independent
/// values, the real agents' captures and (on the default) the mutants.
fn test_schemas(workspace: &Path, upstream_root: &Path, labelled: Vec<(String, ExtendedSchema, bool)>) -> Result<()> {
    let workspace = workspace.to_path_buf();
    let generated = workspace.join("target").join("bindings");
    for (label, schema, tolerant) in labelled {
        let outputs = generate::render_schema(&schema, &PackageNames::default(), &[], tolerant, false).with_context(|| format!("generating bindings for {label}"))?;
        let folder = generated.join(&label);
        generate::write(&folder, &outputs)?;
        eprintln!("== bindings for {label} in {}", folder.display());
        let ir = acp_codegen::lower::lower(&schema, acp_codegen::lower::Unsupported::Fail).with_context(|| format!("lowering {label}"))?;
        handlers::check(upstream_root, &label, &ir)?;
        negotiation_suite::prepare(&workspace, &folder, &label)?;
        test_rust::run(&workspace, &folder, &label)?;
        test_typescript::run(&workspace, &folder, &label)?;
        test_python::run(&workspace, &folder, &label)?;
        negotiation_suite::compare(&folder, &label)?;
        chain::run(&workspace, &folder, &label)?;
        independent::run(&workspace, &folder, &label, &schema, &ir, tolerant)?;
        if captures::applies(&ir) {
            captures::run(&workspace, &folder, &label, &schema, &ir)?;
        }
        if label == "default" {
            mutation::run(&workspace, &folder)?;
        }
    }
    Ok(())
}
