//! The Go bindings' test suite, run by `cargo xtask test` on bindings
//! generated from each schema under test: `gofmt -l` prints nothing, then
//! `go vet` and the pinned `staticcheck` ([`crate::support::tools::staticcheck`], in
//! `.tools/go/bin`) on the module, then `go test` with the tests of
//! `tests/go/` copied into the module (internal tests unless said): every shared
//! vector, the method tables and dispatchers, the negotiation on the
//! schema's pairs (writing `negotiation-go.txt` for the comparison), and on
//! the schemas they are for, the RFD helpers' scenarios and the
//! connection's tests (race runs ordered and unordered, cancellation,
//! faults, the handshake; external tests, whose race runs play the Go test
//! agent of their protocol, copied in as the module's
//! [`crate::support::tools::GO_TEST_AGENT_PACKAGE`]) and the hostile wire table
//! (`tests/hostile-wire.json`: Go's outcome by type and by method, and its
//! `connection`).
//! On the default schema, the fuzz harness (`tests/go/fuzz_connection_test.go`)
//! replays every fuzz seed (`go test -run '^FuzzConnection$'` with
//! `ACP_FUZZ_SEEDS`: the seed corpus, no fuzzing), a failure naming the
//! seed's file; the README's usage example runs against the module
//! and must print what it promises, and so do the usage program
//! (`tests/go/usage/`, an agent and a client over a connection, built as the
//! module's `cmd/usage` and checked with it) and its twin written with
//! `github.com/coder/acp-go-sdk` (`tests/go/usage-official/`, in a module of
//! its own that requires the SDK at the benchmark's pin, through the Go
//! module proxy, and passes the same three checks): both must print
//! [`USAGE_SHOWS`]. Last, the chain's Go step (`tests/go/roundtrip-batch/`, copied under
//! the module's `cmd/`) is built into `<bindings>/go-tools/`. The Go
//! toolchain is the local one (`GOTOOLCHAIN=local`); the module needs no
//! download.
//!
//! Its interop programs are [`crate::interop::our_programs::go`]'s, its
//! benchmark contenders [`crate::bench::go`]'s, its package build (the
//! module as a Go module proxy serves it) and install
//! [`crate::commands::package`]'s.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

use acp_generate::emit::{self, PackageNames};

use crate::commands::package::{build, example, install};
use crate::languages::{Install, LanguageTests, Mutant, Usage};
use crate::support::tools::{copy_go_test_agent, go, run_checked, staticcheck, SuiteOutcome};

/// Go's registration ([`crate::languages::LanguageTests`]), listed in
/// [`crate::registry`].
pub const LANGUAGE: LanguageTests = LanguageTests {
    generated: &acp_generate::emit::go::LANGUAGE,
    suite: run,
    vector_suite,
    summary: |output| output.lines().find(|line| line.contains("vectors passed:")),
    mutants: &[
        Mutant {
            name: "roundtrip returns its input",
            file: "go/object.go",
            find: "\treturn c.encode(decoded).MarshalJSON()\n",
            replace: "\t_ = decoded\n\treturn data, nil\n",
        },
        Mutant {
            name: "errors name no pointer",
            file: "go/codec.go",
            find: "\treturn &DecodeError{Pointer: pointer, Message: fmt.Sprintf(format, args...)}\n",
            replace: "\treturn &DecodeError{Pointer: \"\", Message: fmt.Sprintf(format, args...)}\n",
        },
        Mutant {
            name: "the default variant refuses an unclaimed tag",
            file: "go/object.go",
            find: "\tif !t.defaultOpen {\n",
            replace: "\tif true {\n",
        },
        Mutant {
            name: "invalid params name no pointer",
            file: "go/rpc.go",
            find: "\t\t\t{Name: \"pointer\", Value: StringValue(pointer)},\n",
            replace: "\t\t\t{Name: \"pointer\", Value: StringValue(\"\")},\n",
        },
        Mutant {
            name: "a handler's own error answers -32603",
            file: "go/rpc.go",
            find: "\t\treturn requestError\n",
            replace: "\t\treturn &RequestError{Code: codeInternalError, Message: requestError.Message}\n",
        },
        Mutant {
            name: "an offered method reads as a capability",
            file: "go/negotiation.go",
            find: "\tif gate.offered {\n",
            replace: "\tif false {\n",
        },
        Mutant {
            name: "the connection never holds a session's notifications for session/ready",
            file: "go/connection.go",
            find: "\t\t\tc.gate = NewSessionReadyGate[[]byte](true)\n",
            replace: "\t\t\tc.gate = NewSessionReadyGate[[]byte](false)\n",
        },
        Mutant {
            name: "the agent's answers overtake its queued notifications",
            file: "go/connection.go",
            find: "\tqueued := c.enqueueLine(text, err, c.agent && c.options.Unordered)\n",
            replace: "\tqueued := c.enqueueLine(text, err, c.agent)\n",
        },
        Mutant {
            name: "a cancelled turn's prompt keeps its handler's answer",
            file: "go/connection.go",
            find: "\tif !turn.cancelled {\n\t\treturn result, failure\n",
            replace: "\tif true {\n\t\treturn result, failure\n",
        },
    ],
    // The Go suite, which runs before the chain, built this program.
    chain_step: |_workspace, bindings| (bindings.join(TOOLS).join(CHAIN_PROGRAM), Vec::new()),
    numbers_as_doubles: false,
    negotiates: true,
    usage: Some(USAGE),
    interop: Some(crate::interop::our_programs::go),
    bench: Some(crate::bench::go::contenders),
    package: Some(|source, _names, version, into| build::go(source, version, into)),
    installs: &[Install {
        what: "go module",
        suffix: ".zip",
        folder: Some("go"),
        run: install::go,
    }],
    fuzz: Some(crate::fuzz::go::run),
};

/// The folder under a bindings folder that holds the built chain step.
const TOOLS: &str = "go-tools";

/// The chain step's program name, and its folder under the module's `cmd/`.
const CHAIN_PROGRAM: &str = "roundtrip-batch";

/// The tests copied into the module as internal tests on every schema:
/// the shared vectors, the method tables and dispatchers, the negotiation.
const TESTS: [&str; 3] = ["vectors_test.go", "api_test.go", "negotiation_test.go"];

/// The RFD helper tests, each for the schema its scenarios are for (its
/// label), with what they share; the scenarios are copied into the
/// module's `testdata/`.
const HELPER_TESTS: [(&str, &str); 2] = [("default", "helpers_test.go"), ("v2-stable", "helpers_v2_test.go")];
const HELPER_SHARED: &str = "scenarios_test.go";

/// The connection's tests (external tests, `package acp_test`), each for
/// the schema it is written on with the test agent of its protocol, and
/// the pipes and logs they share.
const CONNECTION_TESTS: [(&str, &str, &str); 2] = [
    ("default", "connection_test.go", "scripted_agent"),
    ("v2-stable", "connection_v2_test.go", "scripted_agent_v2"),
];
const CONNECTION_SHARED: &str = "pipes_test.go";

/// The hostile wire table's outcomes, by type and by method and through
/// the ends, on the schema the table is written on; the table is copied
/// into the module's `testdata/`.
const HOSTILE: (&str, [&str; 2]) = ("default", ["hostile_wire_test.go", "hostile_connection_test.go"]);
const HOSTILE_TABLE: &str = "hostile-wire.json";

/// The fuzz harness, on the schema it is written on.
const FUZZ: (&str, &str) = (crate::fuzz::seeds::REPLAY_SCHEMA, crate::fuzz::go::HARNESS);

/// The usage program and its twin on `github.com/coder/acp-go-sdk`, in
/// `tests/go/`, written on the bindings of [`USAGE_SCHEMA`]: ours is built
/// as the module's `cmd/<USAGE_COMMAND>`, the twin in the module
/// [`OFFICIAL_MODULE`] beside it.
const USAGE: Usage = Usage {
    ours: "usage/main.go",
    official: "usage-official/main.go",
    longer: None,
};
const USAGE_SCHEMA: &str = "default";
const USAGE_COMMAND: &str = "usage";
const OFFICIAL_MODULE: &str = "go-usage-official";

/// What both usage programs print: what the client shows of each update and
/// extension notification, in order, then the prompt's stop reason.
const USAGE_SHOWS: &str = "message Looking at the branch.\n\
                           tool git status\n\
                           tool update completed\n\
                           plan of 1\n\
                           extension _zed/cursor\n\
                           message Merged.\n\
                           stop end_turn\n";

/// The schema whose bindings the mutation check breaks.
const MUTATED_SCHEMA: &str = "default";

/// Copies the hand-written tests of `tests/go/` into the module: those of
/// every schema, and the RFD helpers', the connection's and the hostile
/// wire table's of the schema `label`, with the tables they read.
fn copy_tests(workspace: &Path, module: &Path, label: &str) -> Result<()> {
    let tests = workspace.join("tests").join("go");
    let helpers = HELPER_TESTS
        .iter()
        .filter(|(schema, _)| *schema == label)
        .flat_map(|(_, file)| [*file, HELPER_SHARED]);
    let connection = CONNECTION_TESTS.iter().filter(|(schema, _, _)| *schema == label);
    for (_, _, agent) in connection.clone() {
        copy_go_test_agent(workspace, agent, module)?;
    }
    let connection = connection.flat_map(|(_, file, _)| [*file, CONNECTION_SHARED]);
    let hostile = HOSTILE.1.into_iter().filter(|_| HOSTILE.0 == label);
    let fuzz = [FUZZ.1].into_iter().filter(|_| FUZZ.0 == label);
    for file in TESTS
        .into_iter()
        .chain(helpers.clone())
        .chain(connection)
        .chain(hostile.clone())
        .chain(fuzz)
    {
        std::fs::copy(tests.join(file), module.join(file)).with_context(|| format!("copying the Go tests {file}"))?;
    }
    let data = module.join("testdata");
    let tables = [
        (helpers.count() > 0, "helpers.json"),
        (hostile.count() > 0, HOSTILE_TABLE),
    ];
    for (_, table) in tables.into_iter().filter(|(wanted, _)| *wanted) {
        std::fs::create_dir_all(&data).with_context(|| format!("creating {}", data.display()))?;
        std::fs::copy(workspace.join("tests").join(table), data.join(table))
            .with_context(|| format!("copying {table}"))?;
    }
    if label == USAGE_SCHEMA {
        let command = module.join("cmd").join(USAGE_COMMAND);
        std::fs::create_dir_all(&command).with_context(|| format!("creating {}", command.display()))?;
        std::fs::copy(tests.join(USAGE.ours), command.join("main.go"))
            .with_context(|| format!("copying the Go usage program tests/go/{}", USAGE.ours))?;
    }
    let command = module.join("cmd").join(CHAIN_PROGRAM);
    std::fs::create_dir_all(&command).with_context(|| format!("creating {}", command.display()))?;
    std::fs::copy(tests.join(CHAIN_PROGRAM).join("main.go"), command.join("main.go"))
        .context("copying the Go chain step")?;
    Ok(())
}

/// The module of `bindings`, with the tests of the schema `schema` copied
/// in; `label` names the run.
fn module(workspace: &Path, bindings: &Path, label: &str, schema: &str) -> Result<PathBuf> {
    let module = bindings.join("go");
    ensure!(
        module.join("go.mod").is_file(),
        "{label}: no Go module in {}",
        module.display()
    );
    copy_tests(workspace, &module, schema)?;
    Ok(module)
}

/// Runs the Go suite on the bindings in `bindings` (a folder written by
/// `generate`, holding `go/` and `vectors/`); `label` names the schema,
/// `seeds` the fuzz seeds to replay.
pub fn run(workspace: &Path, bindings: &Path, label: &str, seeds: Option<&Path>) -> Result<()> {
    let module = module(workspace, bindings, label, label)?;
    check(workspace, &module, label)?;
    let outcome = go_test(&module)?;
    crate::support::lanes::show(&outcome.output);
    ensure!(outcome.passed, "{label}: go test on the shared vectors failed");
    if let Some(seeds) = seeds {
        replay(&module, seeds, label)?;
    }
    if label == "default" {
        usage_example(&module)?;
    }
    if label == USAGE_SCHEMA {
        usage_programs(workspace, bindings, &module)?;
    }
    let program = bindings.join(TOOLS).join(CHAIN_PROGRAM);
    run_checked(
        go(&module)
            .args(["build", "-o"])
            .arg(&program)
            .arg(format!("./cmd/{CHAIN_PROGRAM}")),
        &format!("{label}: go build of the chain step"),
    )
}

/// `gofmt -l` (which must print nothing), `go vet` and the pinned
/// staticcheck on the Go module in `folder`; `label` names it.
fn check(workspace: &Path, folder: &Path, label: &str) -> Result<()> {
    let unformatted = Command::new("gofmt")
        .arg("-l")
        .arg(".")
        .current_dir(folder)
        .output()
        .context("starting gofmt -l")?;
    ensure!(
        unformatted.status.success() && unformatted.stdout.is_empty(),
        "{label}: gofmt -l names files that are not formatted:\n{}{}",
        String::from_utf8_lossy(&unformatted.stdout),
        String::from_utf8_lossy(&unformatted.stderr)
    );
    run_checked(go(folder).args(["vet", "./..."]), &format!("{label}: go vet"))?;
    let staticcheck = staticcheck(workspace)?;
    run_checked(
        Command::new(&staticcheck)
            .arg("./...")
            .env("GOTOOLCHAIN", "local")
            .env("GOWORK", "off")
            .current_dir(folder),
        &format!("{label}: staticcheck"),
    )
}

/// `go run` of `package` in the Go module in `folder`: what it printed, or
/// an error naming `what` with its output.
fn go_run(folder: &Path, package: &str, what: &str) -> Result<String> {
    let output = go(folder)
        .args(["run", package])
        .output()
        .with_context(|| format!("starting go run on {what}"))?;
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    ensure!(
        output.status.success(),
        "{what} failed ({}):\n{printed}{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(printed)
}

/// Runs the usage program, built in `module` (and checked with it), and
/// its twin on the official SDK, in a module of its own beside the
/// bindings checked the same way; each must print [`USAGE_SHOWS`].
fn usage_programs(workspace: &Path, bindings: &Path, module: &Path) -> Result<()> {
    let official = bindings.join(OFFICIAL_MODULE);
    crate::support::coder::sdk_module(&official, "acp-usage-official")?;
    let twin = workspace.join("tests").join("go").join(USAGE.official);
    std::fs::copy(&twin, official.join("main.go")).with_context(|| format!("copying {}", twin.display()))?;
    check(workspace, &official, "the Go usage program's twin on the official SDK")?;
    let programs = [
        (module, format!("./cmd/{USAGE_COMMAND}"), "the Go usage program"),
        (
            official.as_path(),
            ".".to_owned(),
            "the Go usage program's twin on the official SDK",
        ),
    ];
    for (folder, package, what) in programs {
        let printed = go_run(folder, &package, what)?;
        ensure!(printed == USAGE_SHOWS, "{what} printed\n{printed}not\n{USAGE_SHOWS}");
    }
    crate::support::lanes::show("go: the usage program and its twin on the official SDK printed what they promise\n");
    Ok(())
}

/// Runs the README's usage example (as the README shows it) against the
/// module, from its `cmd/example/`, and checks what it printed.
fn usage_example(module: &Path) -> Result<()> {
    let program = emit::package::example(&emit::go::LANGUAGE, &PackageNames::default())?;
    let folder = module.join("cmd").join("example");
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    std::fs::write(folder.join("main.go"), program).context("writing the usage example")?;
    let printed = go_run(module, "./cmd/example", "the Go usage example")?;
    let lines = example::parse(&printed).with_context(|| format!("the Go usage example printed\n{printed}"))?;
    ensure!(
        lines == example::expected(),
        "the Go usage example printed\n{printed}not\n{:?}",
        example::expected()
    );
    crate::support::lanes::show("go: the README's usage example ran against the module as expected\n");
    Ok(())
}

/// Runs the fuzz harness on every seed in `seeds` (its seed corpus, without
/// fuzzing), verbosely, so that a seed whose end crashed the test binary
/// is named too: the last one started.
fn replay(module: &Path, seeds: &Path, label: &str) -> Result<()> {
    let target = crate::fuzz::go::TARGET;
    let started = std::time::Instant::now();
    let outcome = SuiteOutcome::of(
        go(module)
            .args(["test", "-count=1", "-v", &format!("-run=^{target}$")])
            .env("ACP_FUZZ_SEEDS", seeds),
        "go test -run FuzzConnection",
    )?;
    let files = crate::fuzz::files(seeds)?;
    let runs = outcome
        .output
        .lines()
        .filter(|line| line.trim_start().starts_with(&format!("--- PASS: {target}/seed#")))
        .count();
    if !outcome.passed {
        let failed: Vec<PathBuf> = outcome
            .output
            .lines()
            .filter(|line| line.contains("--- FAIL: "))
            .filter_map(|line| crate::fuzz::go::seed(line, &files))
            .collect();
        let named = if failed.is_empty() {
            // Crashed: the last seed started.
            let last = outcome
                .output
                .lines()
                .rev()
                .filter(|line| line.starts_with("=== RUN"))
                .find_map(|line| crate::fuzz::go::seed(line, &files));
            last.map(|seed| format!("{} (crashed the test binary)", seed.display()))
                .unwrap_or_else(|| "no seed".to_owned())
        } else {
            failed
                .iter()
                .map(|seed| seed.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        bail!(
            "{label}: the Go fuzz harness failed on the seed {named}:\n{}",
            outcome.output
        );
    }
    ensure!(
        runs == files.len(),
        "{label}: the Go fuzz harness ran {runs} of the {} seeds in {}:\n{}",
        files.len(),
        seeds.display(),
        outcome.output
    );
    crate::support::lanes::show(&format!(
        "go: the fuzz harness passed on all {runs} seeds in {:.1}s\n",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

fn go_test(module: &Path) -> Result<SuiteOutcome> {
    SuiteOutcome::of(go(module).args(["test", "-count=1"]), "go test")
}

/// Runs the tests of the mutated schema's bindings on the module of
/// `bindings` (a copy of them, broken by a mutant), compiled without
/// optimizations or inlining (`-N -l`): a mutant is caught by what its
/// tests see, not by how fast they run, and the package compiles in half
/// the time (5.4 s of CPU against 10.4 s for the default schema's tests).
pub fn vector_suite(workspace: &Path, bindings: &Path, label: &str) -> Result<SuiteOutcome> {
    let module = module(workspace, bindings, label, MUTATED_SCHEMA)?;
    SuiteOutcome::of(go(&module).args(["test", "-count=1", "-gcflags=-N -l"]), "go test")
}
