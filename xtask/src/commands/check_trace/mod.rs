//! `cargo xtask check-trace`: checks a capture of one ACP connection with
//! the checker of `acp_trace` (the schema, the negotiation and the
//! RFD helpers' machines) and prints one line per finding and a summary;
//! `cargo xtask gen-trace` writes a large, clean, seeded capture to measure
//! it on. The checker's own `input` reads the capture's forms, [`report`]
//! prints, and [`generate`] makes traces.

pub mod generate;
mod report;

use std::io::Write;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use clap::Args;

use acp_ir::lower::Unsupported;
use acp_schema_source::SourceOptions;
use acp_trace::Checker;

use acp_trace::input::{Entry, Inputs, Reader, Record};
use report::{Format, Report};

/// The capture and how to print what is found.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The capture: JSON Lines of trace records, or a JSON array of them.
    #[arg(
        value_name = "FILE",
        required_unless_present = "client_to_agent",
        conflicts_with = "client_to_agent"
    )]
    file: Option<PathBuf>,
    /// A tee of what the client sent, one JSON-RPC message a line (with
    /// `--agent-to-client`, instead of FILE).
    #[arg(long, value_name = "FILE", requires = "agent_to_client")]
    client_to_agent: Option<PathBuf>,
    /// A tee of what the agent sent, one JSON-RPC message a line.
    #[arg(long, value_name = "FILE", requires = "client_to_agent")]
    agent_to_client: Option<PathBuf>,
    /// R1's fallback: a session that waited this many milliseconds for
    /// `session/ready` counts as ready (needs `time` on the records).
    #[arg(long, value_name = "MS")]
    ready_timeout: Option<u64>,
    /// What to print: `text` (a line per finding) or `json`.
    #[arg(long, default_value = "text", value_parser = ["text", "json"])]
    format: String,
}

/// Checks the capture under the schema `source` selects and prints the
/// findings to standard output; returns whether there were any.
/// `strict_names` refuses a name the collision rule changed.
pub fn run(source: &SourceOptions, strict_names: bool, args: &CheckArgs) -> Result<bool> {
    let inputs = match (&args.file, &args.client_to_agent, &args.agent_to_client) {
        (Some(file), _, _) => Inputs::Records(file.clone()),
        (None, Some(client), Some(agent)) => Inputs::Tees(client.clone(), agent.clone()),
        _ => {
            return Err(anyhow!(
                "give a capture FILE, or both --client-to-agent and --agent-to-client"
            ))
        }
    };
    let schema = acp_schema_source::load(source)?;
    let ir = crate::support::lowering::lower_told(&schema, Unsupported::Fail, strict_names)?;
    let mut checker = Checker::new(&schema.document, &ir).map_err(|error| anyhow!("{}: {error}", schema.origin))?;
    if let Some(timeout) = args.ready_timeout {
        checker.fall_back_after(timeout);
    }
    let mut reader = Reader::open(&inputs)?;
    let format = if args.format == "json" {
        Format::Json
    } else {
        Format::Text
    };
    let mut report = Report::new(format, inputs.names())?;
    while let Some(Entry { at, time, record }) = reader.read()? {
        if let Some(time) = time {
            checker.clock(time);
        }
        let findings = match record {
            Record::Message { direction, message } => {
                report.messages += 1;
                checker.message(at, direction, message)
            }
            Record::Frame { stream, frame } => {
                report.frames += 1;
                checker.frame(at, &stream, frame.as_ref())
            }
        };
        report.add(findings)?;
    }
    report.add(checker.finish())?;
    let found = report.total() > 0;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    report.print(&mut out)?;
    out.flush()?;
    Ok(found)
}
