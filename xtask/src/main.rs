//! `cargo xtask`: the project's command line.
//!
//! Every command that reads a schema takes the same source options
//! (`--schema FILE`, `--rfd NAME`..., `--no-rfd`). Commands compute all their
//! output first (in memory, or `generate`'s staged beside its folders) and
//! only then put it in place, so bad input leaves no partial output behind.
//! Errors name the file and JSON pointer and exit non-zero.
//!
//! This file holds the command line's definitions and sends each command to
//! the module that does it: [`commands`] (one module per command), the test
//! orchestration in [`suites`], the benchmark in [`bench`](mod@bench), the interop
//! matrix in [`interop`]; what they share is in [`support`].

mod bench;
mod commands;
mod conformance;
mod fuzz;
mod interop;
mod languages;
mod registry;
mod suites;
mod support;

use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, Parser, Subcommand};

use support::processes;

use acp_schema_source::{RfdSelection, SourceOptions};

/// Generation allocates and frees many small values (token streams, syntax
/// trees, JSON): mimalloc does that faster than the system allocator. Built
/// without transparent huge pages (`no_thp`): a run this short never reuses
/// the 2 MiB pages the kernel zeroes for its arena, which cost about a fifth
/// of its CPU time and half its peak memory (`xtask generate`, 20 interleaved
/// runs: 0.19 against 0.15 CPU-seconds, 121 against 66 MiB).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The values `test --lang` takes: every language's id ([`registry`]).
fn language_ids() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(registry::LANGUAGES.iter().map(|language| language.id()))
}

#[derive(Debug, Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "ACP schema -> IR -> vectors and bindings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write the extended schema (base + RFD overlays) as JSON.
    Schema {
        #[command(flatten)]
        source: SourceArgs,
        /// The file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print what the IR holds: counts per kind and untyped fallbacks.
    Inspect {
        #[command(flatten)]
        source: SourceArgs,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Write the shared test vectors, one `<TypeName>.json` per type.
    Vectors {
        #[command(flatten)]
        source: SourceArgs,
        /// The directory to write: it ends holding exactly the vectors (only the files that changed are written).
        #[arg(long)]
        out: PathBuf,
    },
    /// The main job: write the bindings of every registered language (Rust,
    /// TypeScript, Python, Go), the extended schema and the vectors.
    Generate {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        names: PackageArgs,
        /// Generate only this language (repeatable; an unknown one is an
        /// error naming the registered ones); all by default.
        #[arg(long = "lang", value_name = "LANGUAGE")]
        languages: Vec<String>,
        /// Tolerant reading, a deviation from the schema: every closed tagged
        /// union keeps an unknown variant whole on decode instead of failing.
        #[arg(long)]
        tolerant: bool,
        /// The output directory.
        #[arg(long, default_value = "bindings")]
        out: PathBuf,
    },
    /// Build what a maintainer uploads, with each ecosystem's own tools: the
    /// Rust crate (`.crate`), the npm tarball, the Python sdist and wheel.
    Package {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        names: PackageArgs,
        /// The base version, MAJOR.MINOR.PATCH: the upstream schema release by
        /// default (needed with --schema). The RFD set is added as `-dev.N`.
        #[arg(long = "version", value_name = "V")]
        base_version: Option<String>,
        /// The source the previous packages were made from, published at
        /// `--version`: the version becomes that one raised by the bump the
        /// review of this source against it computes (RFD overlays aside).
        #[arg(long, value_name = "SRC", requires = "base_version")]
        bump_from: Option<String>,
        /// The folder the artifacts are moved into once all are built.
        #[arg(long)]
        out: PathBuf,
    },
    /// The checks of `cargo xtask test` on the packages alone: pack twice,
    /// compare, install each artifact in a clean place and use it there.
    #[command(hide = true)]
    CheckPackages,
    /// Review a schema change: a semantic diff of two sources with a
    /// compatibility verdict per change and direction, and the binding impact.
    /// A source is `default` or a schema file, then `+`-joined RFD overlays,
    /// by name or file (`default+turn-complete`, `default+./my-rfd.json`).
    Review {
        /// The source before the change.
        #[arg(long, value_name = "SRC")]
        base: String,
        /// The source after the change.
        #[arg(long, value_name = "SRC")]
        head: String,
        /// What to print: `md` (Markdown) or `json`.
        #[arg(long, default_value = "md", value_parser = ["md", "json"])]
        format: String,
        /// Also write review.md, review.json and bindings.diff here.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Exit 2 when a change reaches this level: `breaking` or `warning`,
        /// optionally with the least binding tier that counts
        /// (`breaking:stable`, `breaking:unstable`; every tier by default).
        #[arg(long, value_name = "LEVEL[:TIER]")]
        fail_on: Option<String>,
        /// Fail when two wire names map to one name, instead of numbering the
        /// later one (the collision rule) and telling it on stderr.
        #[arg(long)]
        strict_names: bool,
    },
    /// Print the negotiated view of two captured initialize messages (the
    /// JSON every binding's `negotiate` serializes to).
    Negotiate {
        #[command(flatten)]
        source: SourceArgs,
        /// The client's `initialize` params (an InitializeRequest).
        request: PathBuf,
        /// The agent's `initialize` result (an InitializeResponse).
        response: PathBuf,
    },
    /// Check a capture of one ACP connection against the schema, the
    /// negotiated capabilities and the RFD ordering rules; exit 2 on findings.
    CheckTrace {
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        trace: commands::check_trace::CheckArgs,
    },
    /// Write a large, clean, seeded capture for measuring `check-trace`.
    GenTrace {
        #[command(flatten)]
        args: commands::check_trace::generate::GenerateArgs,
    },
    /// Run every test of every language, installing what they need.
    Test {
        /// Only the bindings of these schemas (`default`, `default-tolerant`,
        /// `v1-stable`, `v1-unstable`, `v2-stable`, `v2-unstable`, `hostile`;
        /// repeatable), without the suites that run once (workspace, clippy,
        /// format, history, packages, benchmark) unless `--suite` names them.
        #[arg(long = "only", value_name = "SCHEMA")]
        only: Vec<String>,
        /// Only these languages' suites (repeatable), without the suites
        /// that run once and those that need every language (negotiation,
        /// chain, independent, captures, mutation).
        #[arg(long = "lang", value_name = "LANGUAGE", value_parser = language_ids())]
        languages: Vec<String>,
        /// Only these suites (repeatable): workspace, clippy, format, history,
        /// handlers, bindings, negotiation, chain, independent, captures,
        /// mutation, packages, bench. Without a filter, everything runs.
        #[arg(long = "suite", value_name = "SUITE")]
        suites: Vec<suites::Suite>,
    },
    /// Fuzz each language's connection ends (agent and client) on what
    /// they receive, N minutes per language, with its coverage-guided
    /// fuzzer; prints executions, coverage and findings per language and
    /// fails when an input crashed or hung an end, grew it without bound or
    /// went unanswered and unreported.
    Fuzz {
        /// How long each language's fuzzer runs.
        #[arg(long, value_name = "N")]
        minutes: u64,
        /// Only this language (repeatable).
        #[arg(long = "lang", value_name = "LANGUAGE", value_parser = language_ids())]
        languages: Vec<String>,
    },
    /// Run our connections against the official SDKs and real agents over
    /// stdio, print the matrix, and fail unless every cell passes.
    Interop {
        /// Also write the matrix page to this file (`docs/interop.md`).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Run the official ACP conformance kit (acp-tck) against our agents
    /// and the official SDKs' on protocols v1 and v2, print the tier counts
    /// per agent, and fail when an agent of ours leaves a MANDATORY or
    /// CAPABILITY requirement unpassed that tests/conformance/exceptions.json
    /// does not excuse.
    Conformance {
        /// The kit's folder (default: `../shared/acp-tck` beside the workspace).
        #[arg(long, value_name = "DIR")]
        kit: Option<PathBuf>,
        /// Only this protocol version (1, 2; repeatable).
        #[arg(long = "protocol-version", value_name = "N", value_parser = clap::value_parser!(u8).range(1..=2))]
        versions: Vec<u8>,
        /// Only our agents in this language (repeatable), and no official
        /// agent.
        #[arg(long = "lang", value_name = "LANGUAGE", value_parser = language_ids())]
        languages: Vec<String>,
        /// Leave out the official SDKs' agents.
        #[arg(long)]
        no_official: bool,
        /// How many runs of the kit at once (a run mostly waits: 6 took
        /// the 13 runs from 3 min 19 s at 3 to 2 min 27 s on two cores).
        #[arg(long, default_value_t = 6)]
        jobs: usize,
        /// Read each agent's report of an earlier run (under
        /// target/conformance/reports/) where there is one, instead of
        /// running the kit again.
        #[arg(long)]
        reuse_reports: bool,
        /// Also write the results page to this file (`docs/conformance.md`).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Measure decode + encode throughput against the official SDKs and the
    /// plain JSON round trip of each language, and generation time; prints
    /// a Markdown table. Fails if our bindings re-encode any corpus message
    /// differently.
    Bench {
        /// A small corpus and few runs (a few seconds), without peers.
        #[arg(long)]
        quick: bool,
        /// Also time json-schema-to-typescript, quicktype and
        /// datamodel-code-generator (installed under target/bench/).
        #[arg(long, conflicts_with = "quick")]
        peers: bool,
        /// Also write the results to this file: the performance page when its
        /// name ends in `.md` (`docs/performance.md`), else JSON.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Only these languages' decode + encode and connection rows
        /// (repeatable), on the full or quick corpus, without loading,
        /// generation and scale: for comparing one language's contenders.
        #[arg(long = "lang", value_name = "LANGUAGE", value_parser = language_ids(), conflicts_with_all = ["out", "peers"])]
        languages: Vec<String>,
    },
}

/// The source options every schema-reading command shares.
#[derive(Debug, Args)]
struct SourceArgs {
    /// Read this schema file instead of the embedded default base.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// Apply only this RFD overlay (repeatable); all are applied by default.
    #[arg(long = "rfd", value_name = "NAME", conflicts_with = "no_rfd")]
    rfds: Vec<String>,
    /// Apply no RFD overlay.
    #[arg(long)]
    no_rfd: bool,
    /// Fail when two wire names map to one name, instead of numbering the
    /// later one (the collision rule) and telling it on stderr.
    #[arg(long)]
    strict_names: bool,
}

/// What the generated packages are called.
#[derive(Debug, Args)]
struct PackageArgs {
    /// The Rust crate name.
    #[arg(long, default_value = "acp-bindings")]
    rust_crate: String,
    /// The npm package name.
    #[arg(long, default_value = "acp-bindings")]
    npm_package: String,
    /// The Python import name.
    #[arg(long, default_value = "acp_bindings")]
    python_package: String,
    /// The Go module path.
    #[arg(long, default_value = "github.com/acp-codegen/acp-bindings-go")]
    go_module: String,
}

impl PackageArgs {
    fn names(&self) -> acp_generate::emit::PackageNames {
        acp_generate::emit::PackageNames {
            rust_crate: self.rust_crate.clone(),
            npm_package: self.npm_package.clone(),
            python_package: self.python_package.clone(),
            go_module: self.go_module.clone(),
            ..acp_generate::emit::PackageNames::default()
        }
    }
}

impl SourceArgs {
    fn options(&self) -> SourceOptions {
        let rfds = if self.no_rfd {
            RfdSelection::Nothing
        } else if self.rfds.is_empty() {
            RfdSelection::All
        } else {
            RfdSelection::Only(self.rfds.clone())
        };
        SourceOptions {
            schema_file: self.schema.clone(),
            rfds,
        }
    }
}

fn main() {
    let cli = Cli::parse();
    if let Err(error) = run(cli.command) {
        eprintln!("error: {error:#}");
        std::process::exit(1);
    }
}

fn run(command: Command) -> Result<()> {
    match command {
        Command::Schema { source, out } => commands::schema::run(&source, &out),
        Command::Inspect { source, json } => commands::inspect::run(&source, json),
        Command::Vectors { source, out } => commands::vectors::run(&source, &out),
        Command::Generate {
            source,
            names,
            languages,
            tolerant,
            out,
        } => commands::generate::command(&source, &names.names(), &languages, tolerant, &out),
        Command::Package {
            source,
            names,
            base_version,
            bump_from,
            out,
        } => commands::package::command(commands::package::Options {
            source: source.options(),
            names: names.names(),
            version: base_version,
            bump_from,
            strict_names: source.strict_names,
            out,
        }),
        Command::CheckPackages => commands::package::check::run(),
        Command::Review {
            base,
            head,
            format,
            out,
            fail_on,
            strict_names,
        } => commands::review::command(&base, &head, &format, out.as_deref(), fail_on.as_deref(), strict_names),
        Command::Negotiate {
            source,
            request,
            response,
        } => {
            print!(
                "{}",
                commands::negotiate::run(&source.options(), source.strict_names, &request, &response)?
            );
            Ok(())
        }
        Command::CheckTrace { source, trace } => {
            if commands::check_trace::run(&source.options(), source.strict_names, &trace)? {
                std::process::exit(2);
            }
            Ok(())
        }
        Command::GenTrace { args } => commands::check_trace::generate::run(&args),
        Command::Test {
            only,
            languages,
            suites,
        } => processes::watched(|| {
            suites::run(&suites::Selection {
                schemas: only,
                languages,
                suites,
            })
        }),
        Command::Bench {
            quick,
            peers,
            out,
            languages,
        } => bench::run(&bench::Options {
            quick,
            peers,
            out,
            languages,
        }),
        Command::Fuzz { minutes, languages } => fuzz::command::run(&fuzz::command::Options { minutes, languages }),
        Command::Interop { out } => processes::watched(|| interop::run(out.as_deref())),
        Command::Conformance {
            kit,
            versions,
            languages,
            no_official,
            jobs,
            reuse_reports,
            out,
        } => processes::watched(|| {
            conformance::run(&conformance::Options {
                reuse: reuse_reports,
                kit,
                out,
                versions,
                languages,
                no_official,
                jobs,
            })
        }),
    }
}
