//! Real agents' traffic as test data: the captures in `tests/captures/`
//! ([`crate::support::captures`]). On every schema of the v1 layout, each captured
//! message goes through the cross-language chain ([`crate::suites::chain`]) as the
//! type its method gives (a response as its request's result, an error
//! response as the schema's `Error`) and must come back exactly from every
//! language; and the trace checker ([`acp_trace`]) must find
//! nothing in any capture.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use acp_ir::ir::Ir;
use acp_schema_source::ExtendedSchema;
use acp_trace::{Checker, Direction};

use crate::suites::chain::{self, Case, Compare, Expected, Verdict};
use crate::support::captures::{self, Captured};

/// The typed payloads of a capture's messages: (type, payload, where).
fn payloads(ir: &Ir, name: &str, records: &[Captured]) -> Result<Vec<(String, Value, String)>> {
    // Requests by the direction they travelled and their id: a response
    // travels the other way.
    let mut asked: BTreeMap<(bool, String), String> = BTreeMap::new();
    let mut typed = Vec::new();
    for Captured { at, direction, message } in records {
        let at = format!("{name}:{}", at.line);
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
    let files = captures::files(workspace)?;
    for path in &files {
        let name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let records = captures::messages(path)?;
        let mut checker = Checker::new(&schema.document, ir).map_err(|error| anyhow::anyhow!("{label}: {error}"))?;
        for captured in &records {
            findings.extend(
                checker
                    .message(captured.at, captured.direction, captured.message.clone())
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
