//! Real agents' traffic as test data: the captures in `tests/captures/`
//! (real ACP agents from the npm registry against a mock model; see
//! `tests/agents/`). On every schema of the v1 layout, each captured
//! message goes through the cross-language chain ([`crate::suites::chain`]) as the
//! type its method gives (a response as its request's result, an error
//! response as the schema's `Error`) and must come back exactly from every
//! language; and the trace checker ([`acp_codegen::trace`]) must find
//! nothing in any capture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use acp_codegen::ir::Ir;
use acp_codegen::trace::{Checker, Direction, Place};
use acp_schema_source::ExtendedSchema;

use crate::suites::chain::{self, Case, Compare, Expected, Verdict};

/// The captures, in name order.
fn captures(workspace: &Path) -> Result<Vec<PathBuf>> {
    let folder = workspace.join("tests").join("captures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|path| path.extension().is_some_and(|extension| extension == "jsonl"));
    files.sort();
    if files.is_empty() {
        bail!("no capture in {}", folder.display());
    }
    Ok(files)
}

/// The records of a capture: direction and message, in order.
fn records(path: &Path) -> Result<Vec<(Direction, Value)>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(index, line)| {
            let record: Value =
                serde_json::from_str(line).with_context(|| format!("{}:{}", path.display(), index + 1))?;
            let direction = match record["direction"].as_str() {
                Some("client-to-agent") => Direction::ClientToAgent,
                Some("agent-to-client") => Direction::AgentToClient,
                other => bail!("{}:{}: direction {other:?}", path.display(), index + 1),
            };
            Ok((direction, record["message"].clone()))
        })
        .collect()
}

/// The typed payloads of a capture's messages: (type, payload, where).
fn payloads(ir: &Ir, name: &str, records: &[(Direction, Value)]) -> Result<Vec<(String, Value, String)>> {
    // Requests by the direction they travelled and their id: a response
    // travels the other way.
    let mut asked: BTreeMap<(bool, String), String> = BTreeMap::new();
    let mut typed = Vec::new();
    for (index, (direction, message)) in records.iter().enumerate() {
        let at = format!("{name}:{}", index + 1);
        let from_client = *direction == Direction::ClientToAgent;
        let id = message.get("id").map(Value::to_string);
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), id) => {
                let Some(known) = ir.methods.get(method) else { continue };
                let params = message.get("params").cloned().unwrap_or(Value::Null);
                let type_name = match (&id, &known.request, &known.notification) {
                    (Some(id), Some(request), _) => {
                        asked.insert((from_client, id.clone()), method.to_owned());
                        &request.params
                    }
                    (None, _, Some(notification)) => &notification.params,
                    _ => bail!("{at}: `{method}` is not used this way in the schema"),
                };
                typed.push((type_name.clone(), params, format!("{at} {method}")));
            }
            (None, Some(id)) => {
                let Some(method) = asked.get(&(!from_client, id.clone())) else {
                    bail!("{at}: a response to no request")
                };
                match (message.get("result"), message.get("error")) {
                    (Some(result), None) => {
                        let request = ir.methods[method].request.as_ref().context("a request method")?;
                        typed.push((request.result.clone(), result.clone(), format!("{at} {method} result")));
                    }
                    (None, Some(error)) => {
                        typed.push(("Error".to_owned(), error.clone(), format!("{at} {method} error")))
                    }
                    _ => bail!("{at}: a response with neither result nor error"),
                }
            }
            (None, None) => bail!("{at}: neither a request, a notification nor a response"),
        }
    }
    Ok(typed)
}

/// Whether the schema speaks the layout the captures were made with (v1).
pub fn applies(ir: &Ir) -> bool {
    ir.capability_layout.as_ref().is_some_and(|layout| layout.name == "v1")
}

/// Runs every capture through the chain and the trace checker.
pub fn run(workspace: &Path, bindings: &Path, label: &str, schema: &ExtendedSchema, ir: &Ir) -> Result<()> {
    let mut cases = Vec::new();
    let mut findings = Vec::new();
    let files = captures(workspace)?;
    for path in &files {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let records = records(path)?;
        let mut checker = Checker::new(&schema.document, ir).map_err(|error| anyhow::anyhow!("{label}: {error}"))?;
        for (line, (direction, message)) in records.iter().enumerate() {
            let place = Place {
                input: 0,
                line: line as u64 + 1,
            };
            findings.extend(
                checker
                    .message(place, *direction, message.clone())
                    .into_iter()
                    .map(|finding| format!("{name}: {finding:?}")),
            );
        }
        findings.extend(
            checker
                .finish()
                .into_iter()
                .map(|finding| format!("{name}: {finding:?}")),
        );
        for (type_name, value, at) in payloads(ir, &name, &records)? {
            let expected = Expected::Verdict(Verdict::Accepted(value.clone()));
            cases.push(Case {
                type_name,
                name: at,
                kind: "valid",
                value,
                expected,
                double_lossy: false,
            });
        }
    }
    let failures = chain::run_cases(workspace, bindings, "captures", &cases, Compare::EXACT)?;
    println!(
        "captures {label}: {} of {} messages of {} real agents come back exactly from {}; the trace checker finds {}",
        cases.len() - failures.len(),
        cases.len(),
        files.len(),
        crate::registry::names(),
        findings.len()
    );
    for line in failures.iter().chain(&findings).take(40) {
        println!("  {line}");
    }
    if !failures.is_empty() || !findings.is_empty() {
        bail!(
            "{label}: {} captured messages changed, {} trace findings",
            failures.len(),
            findings.len()
        );
    }
    Ok(())
}
