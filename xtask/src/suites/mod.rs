//! `cargo xtask test`: every test of every language. It fetches what the
//! tests need into ignored folders, runs the workspace tests, then generates
//! bindings from the default schema and from each upstream release schema and
//! runs each language's suite on them (with the negotiation cases of
//! `tests/negotiation.json`, whose views must come out byte-identical in
//! every language); on the default schema, each suite also runs its
//! language's fuzz harness's check on every fuzz seed, written once before
//! the suites start ([`crate::fuzz::seeds::replay_folder`]). Last, the
//! quick benchmark (`cargo xtask bench --quick`) runs, so that it cannot
//! rot: it fails when our bindings do not re-encode
//! its corpus exactly. Beside the schemas' suites, the review runs on the
//! published history and the packages of `cargo xtask package` are built
//! twice, compared, installed and used ([`crate::commands::package::check`]).
//! The language suites of a schema, and the mutants of each language, run
//! side by side too ([`crate::support::lanes`]); the run ends with a table
//! of where the time went. The first failure fails the command.
//! Each language's suite is named by its registration, every registration
//! listed in [`crate::registry`].
//! `--only LABEL` narrows the run to those schemas' bindings, `--lang` to
//! those languages' suites, `--suite` to those suites ([`Suite`]).
//! It refuses to run while `UPDATE_SNAPSHOTS` is set: a run that re-approves
//! snapshots checks none.

mod captures;
mod chain;
mod differential;
mod format;
pub mod go;
mod handlers;
mod history;
mod independent;
mod mutation;
mod negotiation;
pub mod python;
pub mod rust;
pub mod typescript;
mod usage_size;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;

use acp_generate::emit::PackageNames;
use acp_schema_source::{ExtendedSchema, RfdSelection, SourceOptions};

use crate::bench;
use crate::commands::{generate, package};
use crate::fuzz;
use crate::languages::LanguageTests;
use crate::registry::LANGUAGES;
use crate::support::lanes::{self, Lane, Timings};
use crate::support::tools::{cargo, run_checked, workspace_root};
use crate::support::{source, upstream};

/// The schemas whose bindings are tested, with whether they read tolerantly:
/// the default, the default with tolerant reading, and the latest release's
/// four schemas without RFD overlays. (`hostile` is tested beside them.)
fn schemas_under_test(upstream_root: &Path) -> Vec<(String, SourceOptions, bool)> {
    let mut schemas = vec![
        ("default".to_owned(), SourceOptions::default(), false),
        ("default-tolerant".to_owned(), SourceOptions::default(), true),
    ];
    let latest = upstream_root
        .join(format!(
            "sdk-{}",
            upstream::SDK_RELEASES[upstream::SDK_RELEASES.len() - 1]
        ))
        .join("package/schema");
    for (label, file) in [
        ("v1-stable", "v1/schema.json"),
        ("v1-unstable", "v1/schema.unstable.json"),
        ("v2-stable", "v2/schema.json"),
        ("v2-unstable", "v2/schema.unstable.json"),
    ] {
        schemas.push((
            label.to_owned(),
            SourceOptions {
                schema_file: Some(latest.join(file)),
                rfds: RfdSelection::Nothing,
            },
            false,
        ));
    }
    schemas
}

/// The default base with the hostile fixture overlay: keywords and reserved
/// words as member names, and text that tries to leave a comment, a
/// docstring or a string, in every language.
fn hostile(workspace: &Path) -> Result<ExtendedSchema> {
    let overlay = workspace
        .join("codegen")
        .join("tests")
        .join("fixtures")
        .join("hostile.overlay.json");
    let assembled = source::assemble(&format!("default+{}", overlay.display()))?;
    if let Some(conflict) = assembled.conflicts.first() {
        bail!("the hostile fixture does not apply: {}", conflict.message);
    }
    Ok(assembled.schema)
}

/// What a run covers; each list empty means all.
#[derive(Debug, Default)]
pub struct Selection {
    /// Schemas by label ([`schemas_under_test`], `hostile`).
    pub schemas: Vec<String>,
    /// Languages of the bindings suites, by id ([`crate::registry`]).
    pub languages: Vec<String>,
    /// Suites by name.
    pub suites: Vec<Suite>,
}

/// Every suite, by the name `--suite` takes, in the order they run
/// (`history` and `packages` beside the schemas' suites).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Suite {
    /// cargo test --workspace, the upstream suite included
    Workspace,
    /// cargo clippy --workspace -D warnings
    Clippy,
    /// every hand-written file as rustfmt, prettier and ruff write it
    Format,
    /// every usage program no longer than its twin on the official SDK
    UsageSize,
    /// the review on the published history
    History,
    /// no required handler the official SDK leaves optional
    Handlers,
    /// each language's suite on the bindings of each schema (--lang picks languages)
    Bindings,
    /// the negotiation views, byte-identical in every language
    Negotiation,
    /// every vector through Rust -> TypeScript -> Python -> Go -> Rust
    Chain,
    /// values made from the raw schema, through the chain
    Independent,
    /// real agents' traffic through the chain and the trace checker
    Captures,
    /// the mutants, on the default schema
    Mutation,
    /// the packages of cargo xtask package, built twice, installed and used
    Packages,
    /// the quick benchmark
    Bench,
}

impl Suite {
    /// Whether the suite runs once, not per schema or language.
    fn runs_once(self) -> bool {
        matches!(
            self,
            Suite::Workspace
                | Suite::Clippy
                | Suite::Format
                | Suite::UsageSize
                | Suite::History
                | Suite::Packages
                | Suite::Bench
        )
    }

    /// Whether the suite runs on every language's bindings at once.
    fn across_languages(self) -> bool {
        matches!(
            self,
            Suite::Negotiation | Suite::Chain | Suite::Independent | Suite::Captures | Suite::Mutation
        )
    }

    /// Whether the suite needs the harnesses the language suites build (the
    /// chain and what runs through it).
    fn needs_bindings(self) -> bool {
        self == Suite::Bindings || self.across_languages()
    }

    /// The name `--suite` takes.
    fn name(self) -> String {
        self.to_possible_value()
            .map(|value| value.get_name().to_owned())
            .unwrap_or_default()
    }
}

impl Selection {
    /// Whether `suite` runs: named, or every suite when none is named. A
    /// run narrowed to schemas or languages leaves out the suites that run
    /// once, and one narrowed to languages those that need all three.
    fn wants(&self, suite: Suite) -> bool {
        if !self.suites.is_empty() {
            return self.suites.contains(&suite);
        }
        let narrowed = !self.schemas.is_empty() || !self.languages.is_empty();
        !(narrowed && suite.runs_once() || !self.languages.is_empty() && suite.across_languages())
    }

    fn wants_language(&self, language: &LanguageTests) -> bool {
        self.languages.is_empty() || self.languages.iter().any(|id| id == language.id())
    }

    fn check(&self) -> Result<()> {
        if !self.languages.is_empty() && self.languages.len() < LANGUAGES.len() {
            if let Some(across) = self.suites.iter().find(|suite| suite.across_languages()) {
                bail!(
                    "--suite {} runs on every language's bindings at once: drop --lang",
                    across.name()
                );
            }
        }
        Ok(())
    }
}

/// Runs what `selection` covers (everything by default).
pub fn run(selection: &Selection) -> Result<()> {
    // The workspace tests would inherit the variable and re-approve every
    // snapshot instead of checking it.
    if let Some(value) = std::env::var_os("UPDATE_SNAPSHOTS") {
        bail!(
            "UPDATE_SNAPSHOTS is set ({value:?}): `cargo xtask test` only checks snapshots; unset it, \
             and re-approve snapshots with `UPDATE_SNAPSHOTS=1 cargo test --workspace`"
        );
    }
    selection.check()?;
    let workspace = workspace_root();
    let upstream_root = upstream::fetch(&workspace)?;
    eprintln!("upstream release schemas in {}", upstream_root.display());
    let mut labelled = Vec::new();
    for (label, source, tolerant) in schemas_under_test(&upstream_root) {
        labelled.push((label, acp_schema_source::load(&source)?, tolerant));
    }
    labelled.push(("hostile".to_owned(), hostile(&workspace)?, false));
    if let Some(unknown) = selection
        .schemas
        .iter()
        .find(|wanted| labelled.iter().all(|(label, _, _)| label != *wanted))
    {
        bail!("--only {unknown}: no such schema under test");
    }
    if !selection.schemas.is_empty() {
        labelled.retain(|(label, _, _)| selection.schemas.contains(label));
    }
    let timings = Timings::default();
    let started = Instant::now();
    let outcome = run_suites(&workspace, &upstream_root, labelled, selection, &timings);
    eprintln!(
        "== where the time went ({})\n{}",
        if outcome.is_ok() { "passed" } else { "failed" },
        timings.table(started.elapsed())
    );
    outcome
}

/// Runs the suites `selection` wants, in [`Suite`]'s order, timing each.
fn run_suites(
    workspace: &Path,
    upstream_root: &Path,
    labelled: Vec<(String, ExtendedSchema, bool)>,
    selection: &Selection,
    timings: &Timings,
) -> Result<()> {
    if selection.wants(Suite::Workspace) {
        timings.time("cargo test --workspace", || {
            run_checked(
                cargo()
                    .args(["test", "--workspace", "--", "--include-ignored"])
                    .env("ACP_UPSTREAM_SCHEMAS", upstream_root)
                    .current_dir(workspace),
                "cargo test --workspace",
            )
        })?;
    }
    if selection.wants(Suite::Clippy) {
        timings.time("cargo clippy --workspace", || {
            run_checked(
                cargo()
                    .args([
                        "clippy",
                        "--quiet",
                        "--workspace",
                        "--all-targets",
                        "--",
                        "-D",
                        "warnings",
                    ])
                    .current_dir(workspace),
                "cargo clippy --workspace",
            )
        })?;
    }
    if selection.wants(Suite::Format) {
        eprintln!("== the format of the hand-written files");
        timings.time("format", || format::run(workspace))?;
    }
    if selection.wants(Suite::UsageSize) {
        eprintln!("== the usage programs against their twins on the official SDKs, by size");
        timings.time("usage size", || usage_size::run(workspace))?;
    }
    // The suites that run once and need no bindings run beside the
    // schemas' suites, in lanes of their own; the Python tools environment
    // they share with the Python suite is made first.
    let mut beside = Vec::new();
    if selection.wants(Suite::History) {
        beside.push(Lane {
            name: "history".to_owned(),
            work: Box::new(|| history::run(workspace)),
        });
    }
    if selection.wants(Suite::Packages) {
        crate::commands::package::build::tools_python()?;
        beside.push(Lane {
            name: "packages".to_owned(),
            work: Box::new(package::check::run),
        });
    }
    std::thread::scope(|scope| {
        let beside = scope.spawn(|| lanes::run(beside, &lanes::logs_folder(workspace, "beside"), timings));
        let schemas = test_schemas(workspace, upstream_root, labelled, selection, timings);
        let beside = beside
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the suites beside the schemas' panicked")));
        schemas.and(beside)
    })?;
    if selection.wants(Suite::Bench) {
        eprintln!("== the quick benchmark");
        timings.time("quick benchmark", || {
            bench::run(&bench::Options {
                quick: true,
                peers: false,
                out: None,
                languages: Vec::new(),
            })
        })?;
    }
    Ok(())
}

/// Generates the bindings of each schema and runs, as `selection` wants,
/// the handler check against the official SDK, every language's suite, the
/// chain, the independent values, the real agents' captures and (on the
/// default) the mutants.
fn test_schemas(
    workspace: &Path,
    upstream_root: &Path,
    labelled: Vec<(String, ExtendedSchema, bool)>,
    selection: &Selection,
    timings: &Timings,
) -> Result<()> {
    let per_schema = Suite::value_variants().iter().filter(|suite| !suite.runs_once());
    if !per_schema.clone().any(|suite| selection.wants(*suite)) {
        return Ok(());
    }
    let bindings = per_schema
        .filter(|suite| suite.needs_bindings())
        .any(|suite| selection.wants(*suite));
    for labelled in &labelled {
        let folder = test_schema(workspace, upstream_root, labelled, selection, bindings, timings)?;
        // Not beside the later schemas: the Python mutants install into the
        // tools' environment and the Rust mutants build the batch program,
        // both of which the next schema's suites use.
        if selection.wants(Suite::Mutation) && labelled.0 == "default" {
            mutation::run(workspace, &folder, timings)?;
        }
    }
    Ok(())
}

/// Generates the bindings of one schema (its label, the schema, whether
/// it reads tolerantly) into `target/bindings/<label>` and runs on them what
/// `selection` wants but the mutants; returns the folder.
fn test_schema(
    workspace: &Path,
    upstream_root: &Path,
    (label, schema, tolerant): &(String, ExtendedSchema, bool),
    selection: &Selection,
    bindings: bool,
    timings: &Timings,
) -> Result<PathBuf> {
    let tolerant = *tolerant;
    let generated = workspace.join("target").join("bindings");
    let outputs = generate::render_schema(schema, &PackageNames::default(), &[], tolerant, false)
        .with_context(|| format!("generating bindings for {label}"))?;
    let folder = generated.join(label);
    generate::write(&folder, &outputs)?;
    eprintln!("== bindings for {label} in {}", folder.display());
    let ir =
        acp_ir::lower::lower(schema, acp_ir::lower::Unsupported::Fail).with_context(|| format!("lowering {label}"))?;
    let step = |suite: &str| format!("{label}: {suite}");
    if selection.wants(Suite::Handlers) {
        timings.time(&step("handlers"), || handlers::check(upstream_root, label, &ir))?;
    }
    if bindings {
        negotiation::prepare(workspace, &folder, label)?;
        // Written here, once: the lanes only read them.
        let seeds = (label == fuzz::seeds::REPLAY_SCHEMA)
            .then(|| -> Result<PathBuf> {
                let seeds = fuzz::seeds::replay_folder(workspace);
                let count = fuzz::seeds::write(workspace, &seeds)?;
                eprintln!("== {count} fuzz seeds for the harnesses' replay in {}", seeds.display());
                Ok(seeds)
            })
            .transpose()?;
        let lanes = LANGUAGES
            .iter()
            .filter(|language| selection.wants_language(language))
            .map(|language| Lane {
                name: step(language.id()),
                work: Box::new(|| (language.suite)(workspace, &folder, label, seeds.as_deref())),
            })
            .collect();
        lanes::run(lanes, &lanes::logs_folder(workspace, label), timings)?;
    }
    if selection.wants(Suite::Negotiation) {
        negotiation::compare(&folder, label)?;
    }
    if selection.wants(Suite::Chain) {
        timings.time(&step("chain"), || chain::run(workspace, &folder, label))?;
    }
    if selection.wants(Suite::Independent) {
        timings.time(&step("independent values"), || {
            independent::run(workspace, &folder, label, schema, &ir, tolerant)
        })?;
    }
    if selection.wants(Suite::Captures) && captures::applies(&ir) {
        timings.time(&step("captures"), || {
            captures::run(workspace, &folder, label, schema, &ir)
        })?;
    }
    Ok(folder)
}
