//! The fuzzers' seeds, one file each, written afresh into one folder that
//! every language's fuzzer reads: each case of `tests/hostile-wire.json` as
//! the line its connection test sends (after the `initialize` an agent's
//! end answers first, unless the case says otherwise or is a whole line), and every message of
//! the real captures ([`crate::support::captures`]), one line each, with each
//! capture's messages of one direction as one seed (a whole session as one
//! end reads it). A seed is at most [`LIMIT`] bytes: a case that repeats
//! more (`string_50mb`) repeats as often as fits; the hostile wire tests
//! run it at full size.
//!
//! `cargo xtask test` writes them too, into [`replay_folder`], before the
//! language suites of [`REPLAY_SCHEMA`] start; each suite then runs its
//! fuzz harness's check on every seed, without a fuzzer.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use acp_trace::Direction;

use crate::support::captures;

/// The largest seed, in bytes: fuzzers mutate within the size of their
/// largest input, and a megabyte input makes every execution slow.
pub const LIMIT: usize = 64 * 1024;

/// The schema the fuzz harnesses are written on, whose suites replay the seeds.
pub const REPLAY_SCHEMA: &str = "default";

/// Where `cargo xtask test` writes the seeds its suites replay.
pub fn replay_folder(workspace: &Path) -> PathBuf {
    workspace.join("target").join("fuzz-seeds")
}

/// The `initialize` an agent's end answers before a hostile case's message.
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}"#;

/// Writes every seed into `folder` (emptied first); returns how many.
pub fn write(workspace: &Path, folder: &Path) -> Result<usize> {
    if folder.exists() {
        std::fs::remove_dir_all(folder).with_context(|| format!("removing {}", folder.display()))?;
    }
    std::fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    let mut seeds = hostile(&workspace.join("tests").join("hostile-wire.json"))?;
    seeds.extend(captures(workspace)?);
    for (name, bytes) in &seeds {
        if bytes.len() > LIMIT {
            bail!("the seed {name} has {} bytes, more than {LIMIT}", bytes.len());
        }
        std::fs::write(folder.join(name), bytes).with_context(|| format!("writing the seed {name}"))?;
    }
    Ok(seeds.len())
}

/// One seed per case of the hostile wire table at `path`.
fn hostile(path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let table: Value = serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
    let Some(cases) = table["cases"].as_array() else {
        bail!("{}: no `cases` array", path.display());
    };
    cases
        .iter()
        .enumerate()
        .map(|(index, case)| {
            let name = case["name"]
                .as_str()
                .with_context(|| format!("{}: /cases/{index} has no name", path.display()))?;
            let line = message(case).with_context(|| format!("{}: /cases/{index} ({name})", path.display()))?;
            Ok((format!("hostile-{name}"), line))
        })
        .collect()
}

/// A hostile case's message, as its connection test sends it: a request
/// (id 7) or a notification of the case's method with the case's wire as
/// its params, after `initialize` for an agent's end; a `line` case's wire
/// is the whole line.
fn message(case: &Value) -> Result<Vec<u8>> {
    let whole = case["line"] == true;
    let mut line = Vec::new();
    if case["side"] == "agent" && case["initialized"] != false && !whole {
        line.extend_from_slice(INITIALIZE.as_bytes());
        line.push(b'\n');
    }
    if !whole {
        let method = case["method"].as_str().context("no method")?;
        let id = if case["kind"] == "request" { r#""id":7,"# } else { "" };
        line.extend_from_slice(
            format!(r#"{{"jsonrpc":"2.0",{id}"method":{},"params":"#, Value::from(method)).as_bytes(),
        );
    }
    let end: &[u8] = if whole { b"\n" } else { b"}\n" };
    let template = case["wire"]["template"].as_str().context("no wire template")?;
    let (before, after) = template.split_once('@').unwrap_or((template, ""));
    // What the fill may take: the limit less everything around it.
    let room = LIMIT.saturating_sub(line.len() + before.len() + after.len() + end.len());
    line.extend_from_slice(before.as_bytes());
    line.extend(fill(&case["wire"]["fill"], room)?);
    line.extend_from_slice(after.as_bytes());
    line.extend_from_slice(end);
    Ok(line)
}

/// The bytes a wire template's `@` stands for, repeated at most as often
/// as `room` bytes hold.
fn fill(fill: &Value, room: usize) -> Result<Vec<u8>> {
    let times = |unit: usize| -> usize {
        let wanted = fill["times"].as_u64().map_or(1, |times| times as usize);
        wanted.min(room / unit.max(1))
    };
    if fill.is_null() {
        return Ok(Vec::new());
    }
    if let Some(depth) = fill["nest"].as_u64() {
        let depth = (depth as usize).min(room / 2);
        let mut bytes = vec![b'['; depth];
        bytes.push(b'1');
        bytes.extend(std::iter::repeat_n(b']', depth));
        return Ok(bytes);
    }
    if let Some(unit) = fill["string"].as_str() {
        // Less the quotes around it.
        let times = times(unit.len()).min(room.saturating_sub(2) / unit.len().max(1));
        return Ok(format!("\"{}\"", unit.repeat(times)).into_bytes());
    }
    if let Some(text) = fill["text"].as_str() {
        return Ok(text.repeat(times(text.len())).into_bytes());
    }
    if let Some(hex) = fill["bytes"].as_str() {
        return (0..hex.len())
            .step_by(2)
            .map(|at| {
                hex.get(at..at + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .with_context(|| format!("`{hex}` is not hex bytes"))
            })
            .collect();
    }
    bail!("a fill that is none of nest, string, text and bytes: {fill}")
}

/// One seed per message of each capture, and one per capture and
/// direction with its messages in order.
fn captures(workspace: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let mut seeds = Vec::new();
    for path in captures::files(workspace)? {
        let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or("capture");
        let mut sessions = Direction::BOTH.map(|direction| (direction, Vec::new()));
        for captured in captures::messages(&path)? {
            let mut line = serde_json::to_vec(&captured.message)?;
            line.push(b'\n');
            for (direction, session) in &mut sessions {
                if *direction == captured.direction {
                    session.extend_from_slice(&line);
                }
            }
            seeds.push((format!("capture-{stem}-{:03}", captured.at.line), line));
        }
        for (direction, session) in sessions {
            seeds.push((format!("capture-{stem}-{}", direction.as_str()), session));
        }
    }
    Ok(seeds)
}
