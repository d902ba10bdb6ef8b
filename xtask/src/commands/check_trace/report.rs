//! The findings as `cargo xtask check-trace` prints them: one line each in
//! text (`FILE:LINE: RULE session=S request=ID: explanation`) or one object
//! each in JSON (`{"findings": [...], "summary": {RULE: count}}`), then the
//! counts per rule. Findings go to a scratch file while the capture is read,
//! so memory stays flat however many there are, and reach standard output
//! only once the whole capture has been read: bad input prints nothing but
//! its error.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};

use acp_trace::{Finding, RULES};

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// Findings collected so far.
pub struct Report {
    format: Format,
    /// The input file names, by index.
    inputs: Vec<String>,
    scratch: PathBuf,
    spill: BufWriter<File>,
    counts: BTreeMap<&'static str, u64>,
    pub messages: u64,
    pub frames: u64,
}

impl Report {
    pub fn new(format: Format, inputs: Vec<String>) -> Result<Report> {
        let scratch = std::env::temp_dir().join(format!(
            "acp-check-trace-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_nanos())
        ));
        let file = File::options()
            .write(true)
            .create_new(true)
            .open(&scratch)
            .with_context(|| format!("{}: cannot create the scratch file", scratch.display()))?;
        Ok(Report {
            format,
            inputs,
            scratch,
            spill: BufWriter::new(file),
            counts: BTreeMap::new(),
            messages: 0,
            frames: 0,
        })
    }

    fn write(&mut self, finding: &Finding) -> Result<()> {
        let file = self.inputs.get(finding.at.input).map_or("?", String::as_str);
        match self.format {
            Format::Text => {
                let request = finding
                    .request
                    .as_ref()
                    .map_or_else(|| "-".to_owned(), Value::to_string);
                writeln!(
                    self.spill,
                    "{file}:{}: {} session={} request={request}: {}",
                    finding.at.line,
                    finding.rule,
                    finding.session.as_deref().unwrap_or("-"),
                    finding.message
                )?;
            }
            Format::Json => {
                let mut object = Map::new();
                if self.inputs.len() > 1 {
                    object.insert("file".to_owned(), json!(file));
                }
                object.insert("line".to_owned(), json!(finding.at.line));
                object.insert("rule".to_owned(), json!(finding.rule));
                object.insert("session".to_owned(), json!(finding.session));
                object.insert("request".to_owned(), finding.request.clone().unwrap_or(Value::Null));
                object.insert("message".to_owned(), json!(finding.message));
                let separator = if self.total() == 0 { "\n  " } else { ",\n  " };
                write!(self.spill, "{separator}{}", Value::Object(object))?;
            }
        }
        Ok(())
    }

    /// Adds `findings`.
    pub fn add(&mut self, findings: Vec<Finding>) -> Result<()> {
        for finding in findings {
            self.write(&finding)
                .with_context(|| format!("{}: cannot write", self.scratch.display()))?;
            *self.counts.entry(finding.rule).or_default() += 1;
        }
        Ok(())
    }

    /// How many findings there are.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }

    /// The counts per rule, in the order of [`RULES`] (any other after).
    fn summary(&self) -> Vec<(&'static str, u64)> {
        let position = |rule: &str| {
            RULES
                .iter()
                .position(|(known, _)| *known == rule)
                .unwrap_or(RULES.len())
        };
        let mut counts: Vec<(&'static str, u64)> = self.counts.iter().map(|(rule, count)| (*rule, *count)).collect();
        counts.sort_by_key(|(rule, _)| position(rule));
        counts
    }

    /// Prints everything to `out`.
    pub fn print(mut self, out: &mut impl Write) -> Result<()> {
        self.spill.flush()?;
        let mut spilled =
            File::open(&self.scratch).with_context(|| format!("{}: cannot read back", self.scratch.display()))?;
        let summary = self.summary();
        match self.format {
            Format::Text => {
                std::io::copy(&mut spilled, out)?;
                let counts: Vec<String> = summary.iter().map(|(rule, count)| format!("{rule} {count}")).collect();
                let read = format!("{} messages, {} reply-stream frames", self.messages, self.frames);
                match self.total() {
                    0 => writeln!(out, "summary: no findings in {read}")?,
                    1 => writeln!(out, "summary: 1 finding in {read}: {}", counts.join(", "))?,
                    total => writeln!(out, "summary: {total} findings in {read}: {}", counts.join(", "))?,
                }
            }
            Format::Json => {
                let counts: Map<String, Value> = summary
                    .iter()
                    .map(|(rule, count)| ((*rule).to_owned(), json!(count)))
                    .collect();
                let close = if self.total() == 0 { "" } else { "\n" };
                out.write_all(b"{\"findings\": [")?;
                std::io::copy(&mut spilled, out)?;
                writeln!(out, "{close}], \"summary\": {}}}", Value::Object(counts))?;
            }
        }
        Ok(())
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.scratch);
    }
}
