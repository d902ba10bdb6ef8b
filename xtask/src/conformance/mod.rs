//! `cargo xtask conformance`: the official ACP conformance kit (acp-tck,
//! read from `--kit DIR`, by default `../shared/acp-tck` beside the
//! workspace, never copied into the repository) against our agents and, for
//! comparison, the official SDKs' agents, on protocols v1 and v2.
//!
//! The kit runs from a virtual environment of its own under
//! `target/conformance/` (its `requirements.txt`: pytest, jsonschema); the
//! agents are those of the interop matrix, built the same way
//! ([`crate::interop`]), each language's full-surface agent (`agent_full`,
//! on v2 `agent_full_v2`, beside its interop programs and built by the same
//! builder of its registration) standing for its interop agent. Each run
//! writes the
//! kit's `--report-json` under `target/conformance/reports/`; [`report`]
//! reads it and [`page`] prints, per protocol version, a table of the
//! requirement tiers (passed, failed, skipped) per agent and the MANDATORY
//! and CAPABILITY requirements each agent left unpassed, with the kit's
//! reason.
//!
//! The command fails when an agent of ours leaves a MANDATORY or CAPABILITY
//! requirement unpassed (failed, skipped or not tested) that
//! `tests/conformance/exceptions.json` ([`exceptions`]) does not excuse.
//! The official agents are reported, never failing it.

mod exceptions;
mod page;
mod report;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::interop::program::Program;
use crate::interop::{build, ours};
use crate::support::pool::{self, Job};
use crate::support::tools::virtual_environment;
use exceptions::Exceptions;
use report::{Agent, Report, Run};

/// What the command was asked.
pub struct Options {
    pub kit: Option<PathBuf>,
    pub out: Option<PathBuf>,
    /// Only these protocol versions (1, 2); both when empty.
    pub versions: Vec<u8>,
    /// Only our agents in these languages, none of the official SDKs'.
    pub languages: Vec<String>,
    /// Leave out the official SDKs' agents.
    pub no_official: bool,
    /// How many runs of the kit at once.
    pub jobs: usize,
    /// Read an agent's report of an earlier run where there is one,
    /// instead of running the kit again.
    pub reuse: bool,
}

pub fn run(options: &Options) -> Result<()> {
    let setup = crate::interop::setup();
    let kit = match &options.kit {
        Some(kit) => kit.clone(),
        None => setup.workspace.join("..").join("shared").join("acp-tck"),
    };
    let kit = kit.canonicalize().unwrap_or(kit);
    if !kit.join("src").join("tck").join("__main__.py").is_file() {
        bail!(
            "the conformance kit is not in {} (no src/tck/__main__.py): give its folder with --kit DIR \
             (a copy of https://github.com/agentclientprotocol/acp-tck)",
            kit.display()
        );
    }
    let exceptions_file = setup
        .workspace
        .join("tests")
        .join("conformance")
        .join("exceptions.json");
    let exceptions = Exceptions::read(&exceptions_file)?;
    let folder = setup.workspace.join("target").join("conformance");
    let python = virtual_environment(&folder, &kit.join("requirements.txt"))?;

    let agents = agents(&setup, options)?;
    let reports = folder.join("reports");
    let runs = play_all(&python, &kit, &reports, agents, options.jobs, options.reuse);

    let tables = page::tables(&runs, &exceptions);
    print!("{tables}");
    if let Some(out) = &options.out {
        crate::support::output::write_file(out, page::page(&tables).as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    let mut unexcused = Vec::new();
    for run in runs.iter().filter(|run| run.agent.ours) {
        match &run.report {
            Err(error) => unexcused.push(format!(
                "v{} {}: no report: {error}",
                run.agent.version, run.agent.label
            )),
            Ok(report) => {
                for requirement in report.requirements.iter().filter(|requirement| {
                    requirement.required()
                        && !requirement.passed()
                        && exceptions.find(&requirement.id, run.agent.version).is_none()
                }) {
                    unexcused.push(format!(
                        "v{} {}: {} {} {}",
                        run.agent.version, run.agent.label, requirement.id, requirement.tier, requirement.status
                    ));
                }
            }
        }
    }
    if !unexcused.is_empty() {
        bail!(
            "{} MANDATORY or CAPABILITY requirements of our agents not passed and not excepted in {}:\n  {}",
            unexcused.len(),
            exceptions_file.display(),
            unexcused.join("\n  ")
        );
    }
    Ok(())
}

/// Runs the kit against every agent, `jobs` at once (a run mostly waits:
/// the kit's quiet periods), keeping the agents' order.
fn play_all(python: &Path, kit: &Path, reports: &Path, agents: Vec<Agent>, jobs: usize, reuse: bool) -> Vec<Run> {
    let runs = agents
        .into_iter()
        .map(|agent| {
            Job::alone(move || {
                let earlier = reports.join(format!("{}.json", agent.slug));
                if reuse && earlier.is_file() {
                    let report = Report::read(&earlier).map_err(|error| format!("{error:#}"));
                    return Run { agent, report };
                }
                eprintln!("conformance: v{} against {}", agent.version, agent.label);
                let report = play(python, kit, reports, &agent).map_err(|error| format!("{error:#}"));
                eprintln!("conformance: v{} against {}: done", agent.version, agent.label);
                Run { agent, report }
            })
        })
        .collect();
    pool::run(runs, jobs)
}

/// The agents to run, built: ours on each version asked, then the official
/// SDKs' (unless left out).
fn agents(setup: &crate::interop::program::Setup, options: &Options) -> Result<Vec<Agent>> {
    let (v1, v2) = crate::interop::protocols(setup)?;
    let python = crate::interop::tools_python(setup)?;
    let wanted_version = |version: u8| options.versions.is_empty() || options.versions.contains(&version);
    let wanted_language = |label: &str| {
        options.languages.is_empty()
            || options
                .languages
                .iter()
                .any(|language| label.to_lowercase().contains(&format!("({language}")))
    };
    let mut agents = Vec::new();
    for (version, protocol) in [(1, &v1), (2, &v2)] {
        if !wanted_version(version) {
            continue;
        }
        // A language's full-surface agent stands for its interop agent.
        for program in ours::build(setup, protocol, &python)?.full_agents {
            if wanted_language(&program.label) {
                let mut full = agent(program, true, version);
                full.kit_options = ["--auth-method", "none", "--allow-logout"].map(str::to_owned).to_vec();
                agents.push(full);
            }
        }
    }
    if options.no_official || !options.languages.is_empty() {
        return Ok(agents);
    }
    let rust = build::official_rust(setup)?;
    let typescript = build::official_typescript(setup)?;
    let python = build::official_python(setup, &python)?;
    if wanted_version(1) {
        for program in [rust.v1.agent, typescript.v1.agent, python.agent] {
            agents.push(agent(program, false, 1));
        }
    }
    if wanted_version(2) {
        for program in [rust.v2.agent, typescript.v2.agent] {
            agents.push(agent(program, false, 2));
        }
    }
    Ok(agents)
}

fn agent(program: Program, ours: bool, version: u8) -> Agent {
    let slug: String = program
        .label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    Agent {
        label: program.label.clone(),
        slug: format!("v{version}-{slug}"),
        program,
        ours,
        version,
        kit_options: Vec::new(),
    }
}

/// Runs the kit once against `agent`; returns its report.
fn play(python: &Path, kit: &Path, reports: &Path, agent: &Agent) -> Result<Report> {
    let file = reports.join(format!("{}.json", agent.slug));
    let cwd = reports.join(&agent.slug);
    // pytest's temporary folders (`tmp_path`), under target/ rather than
    // the system's temporary folder.
    let temporary = reports.join(format!("{}.tmp", agent.slug));
    let _ = std::fs::remove_file(&file);
    for folder in [&cwd, &temporary] {
        let _ = std::fs::remove_dir_all(folder);
        std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    }
    let mut command = Command::new(python);
    command
        .args(["-m", "tck", "--protocol-version", &agent.version.to_string()])
        .args(["--timeout", "10", "--startup-timeout", "30", "--test-timeout", "90"])
        .arg("--agent-cwd")
        .arg(&cwd)
        .arg("--report-json")
        .arg(&file);
    command.args(&agent.kit_options);
    for (key, value) in &agent.program.env {
        command.arg("--agent-env").arg(format!("{key}={value}"));
    }
    command
        .arg("--")
        .args(&agent.program.command)
        .current_dir(reports)
        .env("PYTHONPATH", kit.join("src"))
        .env("TMPDIR", &temporary)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    // In this process's group, so that an interrupt reaches the kit too; the
    // kit stops the agents it started.
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .context("starting the conformance kit")?;
    let mut log = output.stdout.clone();
    log.extend_from_slice(&output.stderr);
    std::fs::write(reports.join(format!("{}.log", agent.slug)), &log).context("writing the kit's log")?;
    if !file.is_file() {
        let text = String::from_utf8_lossy(&log);
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        bail!(
            "the kit wrote no report ({}): {}",
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        );
    }
    Report::read(&file)
}
