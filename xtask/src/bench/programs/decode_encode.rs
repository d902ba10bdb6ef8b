//! Decode + encode throughput of one implementation on the benchmark corpus:
//! `decode-encode <ours|official|value> <corpus.tsv> <runs>`. Each corpus
//! line is `TypeName<TAB>json`; every message is parsed from text into the
//! typed value (`serde_json::from_str`) and printed back to text
//! (`serde_json::to_string`), as an SDK does. A first pass checks that every
//! output equals its input (object key order aside) and warms up; then each
//! run times the whole corpus. Prints one JSON object: messages, bytes,
//! seconds per run, decode failures, outputs that differ, the first
//! difference, and the process's peak resident memory (VmHWM, KiB).

use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

type Codec = fn(&str) -> Result<String, String>;

fn roundtrip<T: DeserializeOwned + Serialize>(text: &str) -> Result<String, String> {
    let value: T = serde_json::from_str(text).map_err(|error| error.to_string())?;
    serde_json::to_string(&value).map_err(|error| error.to_string())
}

fn ours(type_name: &str) -> Option<Codec> {
    use acp_bindings::types as t;
    Some(match type_name {
        "SessionNotification" => roundtrip::<t::SessionNotification>,
        "PromptRequest" => roundtrip::<t::PromptRequest>,
        "PromptResponse" => roundtrip::<t::PromptResponse>,
        "RequestPermissionRequest" => roundtrip::<t::RequestPermissionRequest>,
        "RequestPermissionResponse" => roundtrip::<t::RequestPermissionResponse>,
        _ => return None,
    })
}

fn official(type_name: &str) -> Option<Codec> {
    use agent_client_protocol_schema::v1 as t;
    Some(match type_name {
        "SessionNotification" => roundtrip::<t::SessionNotification>,
        "PromptRequest" => roundtrip::<t::PromptRequest>,
        "PromptResponse" => roundtrip::<t::PromptResponse>,
        "RequestPermissionRequest" => roundtrip::<t::RequestPermissionRequest>,
        "RequestPermissionResponse" => roundtrip::<t::RequestPermissionResponse>,
        _ => return None,
    })
}

fn peak_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn fail(message: String) -> ! {
    eprintln!("decode-encode: {message}");
    std::process::exit(2);
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [implementation, corpus, runs] = arguments.as_slice() else {
        fail("usage: decode-encode <ours|official|value> <corpus.tsv> <runs>".to_owned());
    };
    let runs: usize = runs
        .parse()
        .unwrap_or_else(|_| fail(format!("runs: {runs:?} is not a count")));
    let text = std::fs::read_to_string(corpus).unwrap_or_else(|error| fail(format!("{corpus}: {error}")));
    let pick: fn(&str) -> Option<Codec> = match implementation.as_str() {
        "ours" => ours,
        "official" => official,
        "value" => |_| Some(roundtrip::<Value>),
        other => fail(format!("unknown implementation {other:?}")),
    };
    let mut messages: Vec<(Codec, &str, &str)> = Vec::new();
    for line in text.lines() {
        let (type_name, json) = line
            .split_once('\t')
            .unwrap_or_else(|| fail(format!("a corpus line without a type: {line:.60}")));
        let codec = pick(type_name).unwrap_or_else(|| fail(format!("no codec for {type_name}")));
        messages.push((codec, type_name, json));
    }
    let bytes: usize = messages.iter().map(|(_, _, json)| json.len()).sum();

    let mut failures = 0usize;
    let mut differ = 0usize;
    let mut first_difference: Option<String> = None;
    for (index, (codec, type_name, json)) in messages.iter().enumerate() {
        let input: Value =
            serde_json::from_str(json).unwrap_or_else(|error| fail(format!("line {}: {error}", index + 1)));
        let problem = match codec(json) {
            Err(error) => {
                failures += 1;
                Some(format!("line {} ({type_name}) does not decode: {error}", index + 1))
            }
            Ok(output) => match serde_json::from_str::<Value>(&output) {
                Ok(output) if output == input => None,
                Ok(output) => {
                    differ += 1;
                    Some(format!("line {} ({type_name}): {json} became {output}", index + 1))
                }
                Err(error) => {
                    differ += 1;
                    Some(format!(
                        "line {} ({type_name}) printed invalid JSON: {error}",
                        index + 1
                    ))
                }
            },
        };
        if first_difference.is_none() {
            first_difference = problem;
        }
    }

    let mut seconds = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        let mut printed = 0usize;
        for (codec, _, json) in &messages {
            printed += codec(json).map_or(0, |output| output.len());
        }
        seconds.push(start.elapsed().as_secs_f64());
        std::hint::black_box(printed);
    }
    let report = json!({
        "messages": messages.len(),
        "bytes": bytes,
        "seconds": seconds,
        "failures": failures,
        "differ": differ,
        "first_difference": first_difference,
        "peak_kib": peak_kib(),
    });
    println!("{report}");
}
