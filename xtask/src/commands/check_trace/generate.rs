//! `cargo xtask gen-trace`: a clean capture of one connection of the size
//! asked for, the same bytes for the same seed, written as it is made (a
//! gigabyte never sits in memory) to a scratch file renamed into place at
//! the end. It negotiates every capability of the default schema (so every
//! RFD rule is live), opens one session, sends `session/ready`, then runs
//! prompt turns whose content is the benchmark corpus
//! (`crate::support::traffic`): updates, permission requests and their
//! answers, each turn closed by its `turn_complete` and its response.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use serde_json::{json, Value};

use crate::support::traffic;

/// What to write.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The trace file to write (JSON Lines of trace records).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// At least this many bytes (suffixes k, M, G: powers of 1024).
    #[arg(long, default_value = "1G", value_parser = parse_size)]
    bytes: u64,
    /// The seed of the content.
    #[arg(long, default_value_t = 0xAC9_2026)]
    seed: u64,
}

fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, unit) = match text.char_indices().find(|(_, character)| !character.is_ascii_digit()) {
        Some((index, _)) => text.split_at(index),
        None => (text, ""),
    };
    let scale: u64 = match unit {
        "" => 1,
        "k" | "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return Err(format!("`{text}`: a size is digits with an optional k, M or G")),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|count| count.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is not a size"))
}

const SESSION: &str = "sess_trace";

/// The trace being written.
struct Writer<W: Write> {
    out: W,
    bytes: u64,
    /// Milliseconds since the start, for `time`.
    clock: i64,
    next_prompt: u64,
    next_agent_request: u64,
    /// The open turn's prompt id.
    turn: Option<u64>,
}

impl<W: Write> Writer<W> {
    fn record(&mut self, direction: &str, message: Value) -> Result<()> {
        self.clock += 3;
        let time = chrono::DateTime::from_timestamp_millis(1_778_457_600_000 + self.clock).unwrap_or_default();
        let line = json!({"direction": direction, "message": message, "time": time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)}).to_string();
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")?;
        self.bytes += line.len() as u64 + 1;
        Ok(())
    }

    fn request(&mut self, direction: &str, id: u64, method: &str, params: Value) -> Result<()> {
        self.record(
            direction,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
        )
    }

    fn response(&mut self, direction: &str, id: u64, result: Value) -> Result<()> {
        self.record(direction, json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    fn notify(&mut self, direction: &str, method: &str, params: Value) -> Result<()> {
        self.record(direction, json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    fn opening(&mut self) -> Result<()> {
        let request = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true, "plan": {}, "session": {"notices": {}, "compaction": {}}, "subagents": {}, "elicitation": {"form": {}, "url": {}}}});
        let response = json!({"protocolVersion": 1, "agentCapabilities": {"loadSession": true, "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true}, "mcpCapabilities": {"http": true, "sse": true}, "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "ready": {}, "turnComplete": {}, "status": {}}}, "authMethods": []});
        self.request("client-to-agent", 0, "initialize", request)?;
        self.response("agent-to-client", 0, response)?;
        self.request(
            "client-to-agent",
            1,
            "session/new",
            json!({"cwd": "/home/user/project", "mcpServers": []}),
        )?;
        self.response("agent-to-client", 1, json!({"sessionId": SESSION}))?;
        self.notify("client-to-agent", "session/ready", json!({"sessionId": SESSION}))?;
        self.next_prompt = 2;
        Ok(())
    }

    fn prompt(&mut self, mut params: Value) -> Result<()> {
        self.end_turn("end_turn")?;
        params["sessionId"] = json!(SESSION);
        let id = self.next_prompt;
        self.next_prompt += 1;
        self.request("client-to-agent", id, "session/prompt", params)?;
        self.turn = Some(id);
        Ok(())
    }

    fn ensure_turn(&mut self) -> Result<()> {
        if self.turn.is_none() {
            self.prompt(json!({"prompt": [{"type": "text", "text": "go on"}]}))?;
        }
        Ok(())
    }

    fn end_turn(&mut self, stop_reason: &str) -> Result<()> {
        let Some(id) = self.turn.take() else { return Ok(()) };
        let complete = json!({"sessionUpdate": "turn_complete", "promptRequestId": id, "stopReason": stop_reason});
        self.notify(
            "agent-to-client",
            "session/update",
            json!({"sessionId": SESSION, "update": complete}),
        )?;
        self.response("agent-to-client", id, json!({"stopReason": stop_reason}))
    }

    /// One corpus message, placed in a turn.
    fn add(&mut self, type_name: &str, mut value: Value) -> Result<()> {
        match type_name {
            "PromptRequest" => self.prompt(value),
            "PromptResponse" => {
                let stop_reason = value["stopReason"].as_str().unwrap_or("end_turn").to_owned();
                self.end_turn(&stop_reason)
            }
            "SessionNotification" => {
                self.ensure_turn()?;
                value["sessionId"] = json!(SESSION);
                self.notify("agent-to-client", "session/update", value)
            }
            "RequestPermissionRequest" => {
                self.ensure_turn()?;
                value["sessionId"] = json!(SESSION);
                let id = self.next_agent_request;
                self.next_agent_request += 1;
                self.request("agent-to-client", id, "session/request_permission", value)?;
                self.response(
                    "client-to-agent",
                    id,
                    json!({"outcome": {"outcome": "selected", "optionId": "allow-once"}}),
                )
            }
            _ => Ok(()),
        }
    }
}

/// Writes the trace; returns its size in bytes.
pub fn write(path: &Path, bytes: u64, seed: u64) -> Result<u64> {
    let scratch = path.with_extension(format!("partial-{}", std::process::id()));
    let file = File::create(&scratch).with_context(|| format!("{}: cannot write", scratch.display()))?;
    let mut writer = Writer {
        out: BufWriter::with_capacity(1 << 20, file),
        bytes: 0,
        clock: 0,
        next_prompt: 0,
        next_agent_request: 0,
        turn: None,
    };
    let written = (|| -> Result<()> {
        writer.opening()?;
        let mut chunk = 0u64;
        while writer.bytes < bytes {
            for (type_name, value) in traffic::generate(seed.wrapping_add(chunk), 1 << 20) {
                writer.add(type_name, value)?;
            }
            chunk += 1;
        }
        writer.end_turn("end_turn")?;
        writer.out.flush()?;
        Ok(())
    })();
    if let Err(error) = written
        .and_then(|()| std::fs::rename(&scratch, path).with_context(|| format!("{}: cannot write", path.display())))
    {
        let _ = std::fs::remove_file(&scratch);
        return Err(error);
    }
    Ok(writer.bytes)
}

/// `cargo xtask gen-trace`.
pub fn run(args: &GenerateArgs) -> Result<()> {
    let written = write(&args.out, args.bytes, args.seed)?;
    eprintln!("wrote {} ({written} bytes)", args.out.display());
    Ok(())
}
