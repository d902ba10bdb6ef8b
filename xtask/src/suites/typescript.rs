//! The typescript bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: install the locked compiler, build
//! the package and check it under the strict compiler options with no output,
//! and check the hand-written decoding runtime (`templates/typescript/runtime.ts`)
//! and turn machine (`templates/typescript/turns.ts`) alone, as they stand in
//! the repository.
//! Then the package is packed with `npm pack` and the tarball installed into a
//! fresh consumer folder, `<bindings>/ts-consumer/`, as any dependant would
//! install it. Everything after that sees only the installed package, by
//! name: the type-level checks compile against its `.d.ts` files through its
//! `exports` and `types`, Node's test runner runs every shared vector and
//! the programming-interface tests through the module it resolves from the
//! consumer, and on the protocol v1 schemas a usage program (an agent and a
//! client, each one end of a connection) compiles with and without
//! `exactOptionalPropertyTypes` and runs, its wire checked message by
//! message (`tests/typescript/`); on the default schema, its twin written
//! with the official SDK compiles and runs too, and the hostile wire cases
//! of `tests/hostile-wire.json` run (`hostile-wire.test.mjs`), and the fuzz
//! harness's check on every fuzz seed (`fuzz-seeds.test.mjs`, the folder in
//! `ACP_FUZZ_SEEDS`, a failure naming the seed's file); on the default
//! and v2-stable schemas, the connection's race tests (`connection.test.mjs`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::commands::package::{build, install};
use crate::languages::{Install, LanguageTests, Mutant, Usage};
use crate::support::tools::{run_checked, SuiteOutcome};

/// TypeScript's registration ([`crate::languages::LanguageTests`]), listed in
/// [`crate::registry`].
pub const LANGUAGE: LanguageTests = LanguageTests {
    generated: &acp_generate::emit::typescript::LANGUAGE,
    suite: run,
    vector_suite,
    summary: |output| output.lines().find(|line| line.contains("vectors passed:")),
    mutants: &[
        Mutant {
            name: "roundtrip returns its input",
            file: "typescript/dist/index.js",
            find: "    const result = decodeByName(typeName, json);\n",
            replace: "    return json;\n    const result = decodeByName(typeName, json);\n",
        },
        Mutant {
            name: "errors name no pointer",
            file: "typescript/dist/runtime.js",
            find: "    constructor(typeName, issues) {\n",
            replace:
                "    constructor(typeName, issues) {\n        issues = issues.map((issue) => ({ ...issue, path: \"\" }));\n",
        },
        Mutant {
            name: "the default variant refuses an unclaimed tag",
            file: "typescript/dist/runtime.js",
            find: "const fallback = defaultOpen ? untagged : null;",
            replace: "const fallback = null;",
        },
    ],
    chain_step: |workspace, bindings| {
        (
            PathBuf::from("node"),
            vec![
                workspace.join("tests/typescript/roundtrip-batch.mjs"),
                bindings.to_path_buf(),
            ],
        )
    },
    numbers_as_doubles: true,
    negotiates: true,
    usage: Some(USAGE),
    interop: Some(crate::interop::our_programs::typescript),
    bench: Some(crate::bench::typescript::contenders),
    package: Some(|source, _names, _version, into| Ok(vec![build::typescript(source, into)?])),
    installs: &[Install {
        what: "typescript",
        suffix: ".tgz",
        folder: None,
        run: install::typescript,
    }],
    fuzz: Some(crate::fuzz::typescript::run),
};

/// The name of the consumer folder under a bindings folder; the tests'
/// `loadBindings` looks for the installed package there.
const CONSUMER: &str = "ts-consumer";

/// The consumer's manifest: an ES module package of its own.
const CONSUMER_MANIFEST: &str = include_str!("../../../tests/typescript/harness/consumer.package.json");

/// The type-level checks' compiler settings: the package's own, without
/// output, on the consumer's code only.
const TYPECHECK_CONFIG: &str = include_str!("../../../tests/typescript/harness/tsconfig.typecheck.json");

/// The hand-written decoding runtime and turn machine checked alone, as
/// they stand in `templates/`: the package's settings, and no unused locals
/// or parameters. `{runtime}` and `{turns}` are their absolute paths.
const RUNTIME_CONFIG: &str = include_str!("../../../tests/typescript/harness/tsconfig.runtime.json");

/// The usage program and its twin on the official SDK, in
/// `tests/typescript/`.
const USAGE: Usage = Usage {
    ours: "usage.ts",
    official: "official/usage-official.ts",
    longer: Some(
        "the program joins its two ends by hand (each end's send passes the text to the other end's receive and \
         records it, for usage-wire.mjs's round-trip check of every message on the wire), where the official SDK's \
         client connects to its agent in process without a wire",
    ),
};

/// The usage program's compiler settings: the package's own, then the same
/// without `exactOptionalPropertyTypes` (the setting most consumers use),
/// which also writes the JavaScript that Node runs.
const USAGE_CONFIGS: [(&str, &str); 2] = [
    (
        "tsconfig.usage-exact.json",
        include_str!("../../../tests/typescript/harness/tsconfig.usage-exact.json"),
    ),
    (
        "tsconfig.usage.json",
        include_str!("../../../tests/typescript/harness/tsconfig.usage.json"),
    ),
];

/// The schemas (by label) whose bindings the usage program runs on: it is
/// written against protocol v1 (`tool_call` and `plan` updates), whose
/// session updates protocol v2 replaced.
const USAGE_SCHEMAS: [&str; 3] = ["default", "v1-stable", "v1-unstable"];

/// The Node test files, run against the installed package.
const NODE_TESTS: [&str; 3] = ["vectors.test.mjs", "api.test.mjs", "negotiation.test.mjs"];

/// The Node test files run on the default schema's bindings only: the
/// hostile wire cases (`tests/hostile-wire.json`) and the RFD helpers'
/// scenarios (`tests/helpers.json`).
const DEFAULT_TESTS: [&str; 2] = ["hostile-wire.test.mjs", "helpers.test.mjs"];

/// The fuzz harness's check on every fuzz seed (`ACP_FUZZ_SEEDS`), run on
/// the schema the harness is written on.
const FUZZ_TESTS: [&str; 1] = ["fuzz-seeds.test.mjs"];

/// The Node test files run on the v2 stable bindings only: the turn
/// tracker's v2 scenarios of `tests/helpers.json`.
const V2_TESTS: [&str; 1] = ["helpers-v2.test.mjs"];

/// The connection's race tests (`connection.test.mjs`): an agent and a
/// client over seeded in-memory pipes, checked for R1, R2, R4 and prompts
/// that resolve before their turn was handled, with and without the
/// ordering. Run on protocol v1 with the RFDs (the default schema) and on
/// protocol v2 (its idle state ends a turn).
const CONNECTION_TESTS: [&str; 1] = ["connection.test.mjs"];

/// The schemas (by label) the connection's race tests run on.
const CONNECTION_SCHEMAS: [&str; 2] = ["default", "v2-stable"];

/// Runs the typescript suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `typescript/` and `vectors/`); `label` names the schema.
pub fn run(workspace: &Path, bindings: &Path, label: &str, seeds: Option<&Path>) -> Result<()> {
    let package = bindings.join("typescript");
    ensure!(
        package.join("package.json").is_file(),
        "{label}: no TypeScript package in {}",
        package.display()
    );
    let tests = workspace.join("tests").join("typescript");
    run_checked(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&package),
        &format!("{label}: npm ci in {}", package.display()),
    )?;
    run_checked(
        Command::new("npm").args(["run", "build"]).current_dir(&package),
        &format!("{label}: npm run build (tsc)"),
    )?;
    run_checked(
        Command::new("npm")
            .args([
                "exec",
                "--no",
                "--",
                "tsc",
                "-p",
                "tsconfig.json",
                "--noEmit",
                "--strict",
            ])
            .current_dir(&package),
        &format!("{label}: tsc --noEmit --strict"),
    )?;
    let runtime = workspace.join("templates").join("typescript").join("runtime.ts");
    let turns = workspace.join("templates").join("typescript").join("turns.ts");
    let runtime_config = bindings.join("tsconfig.runtime.json");
    let config = RUNTIME_CONFIG
        .replace("{runtime}", &runtime.display().to_string())
        .replace("{turns}", &turns.display().to_string())
        .replace("{root}", &runtime.parent().unwrap_or(workspace).display().to_string());
    std::fs::write(&runtime_config, config).context("writing the runtime's tsconfig.json")?;
    run_checked(
        Command::new("npm")
            .args(["exec", "--no", "--", "tsc", "-p"])
            .arg(&runtime_config)
            .current_dir(&package),
        &format!("{label}: tsc --strict on templates/typescript/runtime.ts and turns.ts alone"),
    )?;
    let consumer = install_consumer(workspace, bindings, label)?;
    std::fs::copy(tests.join("typecheck.ts"), consumer.join("typecheck.ts"))
        .context("copying the type-level checks")?;
    std::fs::write(consumer.join("tsconfig.json"), TYPECHECK_CONFIG)
        .context("writing the type-level checks' tsconfig.json")?;
    run_checked(
        Command::new("npm")
            .args(["exec", "--no", "--", "tsc", "-p"])
            .arg(consumer.join("tsconfig.json"))
            .current_dir(&package),
        &format!("{label}: tsc on the type-level checks against the installed package"),
    )?;
    if USAGE_SCHEMAS.contains(&label) {
        usage_program(&tests, &package, &consumer, label)?;
    }
    let outcome = node_tests(workspace, bindings, &NODE_TESTS, None)?;
    crate::support::lanes::show(&outcome.output);
    ensure!(
        outcome.passed,
        "{label}: node --test on {} failed",
        NODE_TESTS.join(", ")
    );
    if label == "default" {
        let outcome = node_tests(workspace, bindings, &DEFAULT_TESTS, None)?;
        crate::support::lanes::show(&outcome.output);
        ensure!(
            outcome.passed,
            "{label}: node --test on {} failed",
            DEFAULT_TESTS.join(", ")
        );
    }
    if let Some(seeds) = seeds {
        let started = std::time::Instant::now();
        let outcome = node_tests(workspace, bindings, &FUZZ_TESTS, Some(seeds))?;
        ensure!(
            outcome.passed,
            "{label}: node --test on {} failed on the seeds of {}:\n{}",
            FUZZ_TESTS.join(", "),
            seeds.display(),
            failures(&outcome.output)
        );
        crate::support::lanes::show(&format!(
            "typescript: the fuzz harness passed on {} seeds in {:.1}s\n",
            outcome
                .output
                .lines()
                .find_map(|line| line.strip_prefix("# pass "))
                .unwrap_or("?"),
            started.elapsed().as_secs_f64()
        ));
    }
    if label == "v2-stable" {
        let outcome = node_tests(workspace, bindings, &V2_TESTS, None)?;
        crate::support::lanes::show(&outcome.output);
        ensure!(outcome.passed, "{label}: node --test on {} failed", V2_TESTS.join(", "));
    }
    if CONNECTION_SCHEMAS.contains(&label) {
        let outcome = node_tests(workspace, bindings, &CONNECTION_TESTS, None)?;
        crate::support::lanes::show(&outcome.output);
        ensure!(
            outcome.passed,
            "{label}: node --test on {} failed",
            CONNECTION_TESTS.join(", ")
        );
    }
    Ok(())
}

/// Compiles `tests/typescript/usage.ts` in the consumer folder against the
/// installed package, with and without `exactOptionalPropertyTypes`, and
/// runs it through `usage-wire.mjs`, which checks every message it sent;
/// the program throws unless every exchange went as expected. On the
/// default schema, its twin written with the official SDK follows.
fn usage_program(tests: &Path, package: &Path, consumer: &Path, label: &str) -> Result<()> {
    for file in [USAGE.ours, "usage-wire.mjs"] {
        std::fs::copy(tests.join(file), consumer.join(file)).with_context(|| format!("copying {file}"))?;
    }
    for (file, config) in USAGE_CONFIGS {
        std::fs::write(consumer.join(file), config).with_context(|| format!("writing the usage program's {file}"))?;
        run_checked(
            Command::new("npm")
                .args(["exec", "--no", "--", "tsc", "-p"])
                .arg(consumer.join(file))
                .current_dir(package),
            &format!("{label}: tsc -p {file} on the usage program against the installed package"),
        )?;
    }
    run_checked(
        Command::new("node")
            .arg("usage-wire.mjs")
            .arg(consumer.join("usage").join("usage.js"))
            .current_dir(consumer),
        &format!("{label}: node on the usage program"),
    )?;
    if label == "default" {
        official_usage_program(tests, &consumer.with_file_name("ts-official"))?;
    }
    Ok(())
}

/// Installs the official SDK pinned in `tests/typescript/official/` into
/// `folder`, compiles the usage program written with it under `tsc --strict`
/// and runs it.
fn official_usage_program(tests: &Path, folder: &Path) -> Result<()> {
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    for file in [
        "package.json",
        "package-lock.json",
        "tsconfig.json",
        "usage-official.ts",
    ] {
        std::fs::copy(tests.join("official").join(file), folder.join(file))
            .with_context(|| format!("copying official/{file}"))?;
    }
    run_checked(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(folder),
        "npm ci for the official SDK's usage program",
    )?;
    run_checked(
        Command::new("npm")
            .args(["exec", "--no", "--", "tsc", "-p", "tsconfig.json"])
            .current_dir(folder),
        "tsc on the official SDK's usage program",
    )?;
    run_checked(
        Command::new("node")
            .arg(folder.join("out").join("usage-official.js"))
            .current_dir(folder),
        "node on the official SDK's usage program",
    )
}

fn install_consumer(workspace: &Path, bindings: &Path, label: &str) -> Result<PathBuf> {
    let consumer = bindings.join(CONSUMER);
    install_packed(&bindings.join("typescript"), &consumer, label)?;
    let helper = workspace.join("tests").join("typescript").join("import-package.mjs");
    std::fs::copy(helper, consumer.join("import-package.mjs")).context("copying the consumer's import")?;
    Ok(consumer)
}

/// Runs Node's test runner on the `files` in `tests/typescript/` against
/// the installed package of `bindings`, with the fuzz seeds of `seeds`
/// (`ACP_FUZZ_SEEDS`). A skipped or to-do test fails the run: no test may
/// pass by not running.
fn node_tests(workspace: &Path, bindings: &Path, files: &[&str], seeds: Option<&Path>) -> Result<SuiteOutcome> {
    let tests = workspace.join("tests").join("typescript");
    let mut command = Command::new("node");
    if let Some(seeds) = seeds {
        command.env("ACP_FUZZ_SEEDS", seeds);
    }
    let mut outcome = SuiteOutcome::of(
        command
            .arg("--test")
            .arg("--test-reporter=tap")
            .args(files.iter().map(|file| tests.join(file)))
            .env("ACP_BINDINGS", bindings)
            .current_dir(workspace),
        "node --test",
    )?;
    for counter in ["# skipped ", "# todo "] {
        let count = outcome
            .output
            .lines()
            .find_map(|line| line.strip_prefix(counter))
            .map(str::trim);
        if count != Some("0") {
            outcome.passed = false;
            outcome.output.push_str(&format!(
                "\n`{}` is {count:?}, not 0: a test that does not run fails the suite\n",
                counter.trim()
            ));
        }
    }
    Ok(outcome)
}

/// What of a TAP report failed: each `not ok` line (which names the seed)
/// with its details, up to the next test; the whole report when none does.
fn failures(report: &str) -> String {
    let mut failed = String::new();
    let mut inside = false;
    for line in report.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("not ok ") {
            inside = true;
        } else if trimmed.starts_with("ok ") || trimmed.starts_with("# Subtest") {
            inside = false;
        }
        if inside {
            failed.push_str(line);
            failed.push('\n');
        }
    }
    if failed.is_empty() {
        report.to_owned()
    } else {
        failed
    }
}

/// Runs the Node tests on the built TypeScript package of `bindings`
/// (`typescript/dist`), packed and installed as in [`run`].
pub fn vector_suite(workspace: &Path, bindings: &Path, label: &str) -> Result<SuiteOutcome> {
    install_consumer(workspace, bindings, label)?;
    node_tests(workspace, bindings, &NODE_TESTS, None)
}

/// Packs the built package in `package` and installs the tarball into
/// `consumer`, made afresh.
fn install_packed(package: &Path, consumer: &Path, label: &str) -> Result<()> {
    if consumer.exists() {
        std::fs::remove_dir_all(consumer).with_context(|| format!("removing {}", consumer.display()))?;
    }
    std::fs::create_dir_all(consumer).with_context(|| format!("creating {}", consumer.display()))?;
    std::fs::write(consumer.join("package.json"), CONSUMER_MANIFEST).context("writing the consumer's package.json")?;
    let packed = Command::new("npm")
        .args(["pack", "--json", "--pack-destination"])
        .arg(consumer)
        .current_dir(package)
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("starting npm pack in {}", package.display()))?;
    ensure!(
        packed.status.success(),
        "{label}: npm pack in {} failed ({})",
        package.display(),
        packed.status
    );
    let report: Value = serde_json::from_slice(&packed.stdout).context("reading npm pack's report")?;
    let (Some(name), Some(tarball)) = (report[0]["name"].as_str(), report[0]["filename"].as_str()) else {
        bail!("{label}: npm pack named no package and tarball");
    };
    run_checked(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund"])
            .arg(format!("./{tarball}"))
            .current_dir(consumer),
        &format!("{label}: npm install {tarball} in {}", consumer.display()),
    )?;
    check_entry_points(&consumer.join("node_modules").join(name), label)
}

/// The installed package's manifest names its entry points (`main`, `types`
/// and `exports`) and every file they name is in the package. A missing
/// `types` target would otherwise go unnoticed: the compiler falls back to
/// the declarations beside the JavaScript.
fn check_entry_points(installed: &Path, label: &str) -> Result<()> {
    let path = installed.join("package.json");
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let manifest: Value = serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    let mut targets = Vec::new();
    for field in ["main", "types", "exports"] {
        ensure!(
            !manifest[field].is_null(),
            "{label}: {} names no `{field}`",
            path.display()
        );
        strings(&manifest[field], &mut targets);
    }
    targets.sort_unstable();
    targets.dedup();
    let missing: Vec<&str> = targets
        .into_iter()
        .filter(|target| !installed.join(target).is_file())
        .collect();
    ensure!(
        missing.is_empty(),
        "{label}: {} names files the installed package lacks: {}",
        path.display(),
        missing.join(", ")
    );
    Ok(())
}

/// Every string in `value`, however deeply nested.
fn strings<'a>(value: &'a Value, into: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => into.push(text),
        Value::Array(items) => items.iter().for_each(|item| strings(item, into)),
        Value::Object(members) => members.values().for_each(|member| strings(member, into)),
        _ => {}
    }
}
