//! Every upstream ACP release schema that `cargo xtask test` fetches into
//! `ACP_UPSTREAM_SCHEMAS` (v1 and v2, stable and unstable, and older
//! single-file releases): lowers with no untyped fallback, every type has a
//! valid vector, invalid vectors fail below the top level too (nested JSON
//! pointers), and the validator agrees with every vector. The RFD
//! overlays apply to v1-shaped stable bases, and report a conflict against
//! bases that define their own `session/status`. Every gate a schema's
//! prose states is annotated, and every annotated gate whose target the
//! schema has resolves in its capability layout (v1 or v2).

use std::path::{Path, PathBuf};

use acp_ir::inspect::summarize;
use acp_ir::lower::{lower, Unsupported};
use acp_review::rules::Level;
use acp_schema_source::{load, read_schema_file, CapabilityAnnotations, RfdSelection, SourceOptions};
use acp_vectors::{validate, vectors};

fn schema_files(folder: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            schema_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "json")
            && path.components().any(|component| component.as_os_str() == "schema")
            && path
                .file_name()
                .is_some_and(|name| name.to_string_lossy().starts_with("schema"))
        {
            found.push(path);
        }
    }
}

/// Lowers, generates and validates one schema; returns a one-line summary.
fn check(file: &Path, rfds: RfdSelection) -> Result<String, String> {
    let schema = load(&SourceOptions {
        schema_file: Some(file.to_path_buf()),
        rfds,
    })
    .map_err(|error| error.to_string())?;
    let unannotated = CapabilityAnnotations::builtin()
        .map_err(|error| error.to_string())?
        .unannotated(&schema.document);
    if let Some(gate) = unannotated.first() {
        return Err(format!(
            "{} gates stated in prose are not annotated, first {:?} at {}: {}",
            unannotated.len(),
            gate.subject,
            gate.pointer,
            gate.sentence
        ));
    }
    if schema.gates.layout.is_none() {
        return Err("the initialize messages match no capability layout".to_owned());
    }
    if !schema.gates.unresolved.is_empty() {
        return Err(format!("unresolved capability gates: {:?}", schema.gates.unresolved));
    }
    let ir = lower(&schema, Unsupported::Fail).map_err(|error| error.to_string())?;
    let summary = summarize(&ir);
    if !summary.untyped.is_empty() {
        return Err(format!("untyped fallbacks: {:?}", summary.untyped));
    }
    let vectors = vectors::generate(&ir);
    if let Some(empty) = vectors.values().find(|file| file.valid.is_empty()) {
        return Err(format!("{} has no valid vector", empty.type_name));
    }
    let nested = vectors
        .values()
        .flat_map(|file| &file.invalid)
        .filter(|vector| vector.pointer.matches('/').count() > 1)
        .count();
    if nested < 10 {
        return Err(format!(
            "only {nested} invalid vectors fail below the top level: nested pointers go untested"
        ));
    }
    let report = validate::check(&schema.document, &ir, &vectors);
    if let Some(finding) = report.findings.first() {
        return Err(format!(
            "{} findings, first {} / {}: {}",
            report.findings.len(),
            finding.type_name,
            finding.vector,
            finding.message
        ));
    }
    Ok(format!(
        "{} types, {} methods, {} gated, {} gates in all ({} layout), {} vector checks, {nested} nested pointers",
        summary.types,
        ir.methods.len(),
        summary.gated_methods,
        ir.methods.values().filter(|method| method.gate.is_some()).count()
            + ir.gated_variants.len()
            + ir.gated_fields.len(),
        schema.gates.layout.as_ref().map_or("no", |layout| layout.name.as_str()),
        report.checked
    ))
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn every_upstream_release_schema() {
    let root =
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`");
    let mut files = Vec::new();
    schema_files(Path::new(&root), &mut files);
    assert!(
        files.len() >= 11,
        "expected at least 11 release schemas under {root:?}, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        let name = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        match check(file, RfdSelection::Nothing) {
            Ok(line) => eprintln!("{name}: {line}"),
            Err(error) => failures.push(format!("{name} (no RFD): {error}")),
        }
        let base = read_schema_file(file).unwrap();
        let defines_status = acp_schema_source::capabilities::methods_in(&base).contains("session/status");
        let v1_shaped = base
            .pointer("/$defs/SessionUpdate/discriminator/propertyName")
            .is_some_and(|tag| tag == "sessionUpdate")
            && base.pointer("/$defs/SessionCapabilities/type").is_some();
        if defines_status {
            match check(file, RfdSelection::Only(vec!["session-status".into()])) {
                Err(error)
                    if error.contains("session-status.json")
                        && error.contains("already defines method `session/status`") =>
                {
                    eprintln!("{name} + session-status: conflict reported")
                }
                outcome => failures.push(format!("{name}: session-status must conflict, got {outcome:?}")),
            }
        }
        let with_rfds = check(file, RfdSelection::All);
        match (v1_shaped, defines_status, with_rfds) {
            (true, false, Ok(line)) => eprintln!("{name} + RFDs: {line}"),
            (true, true, Err(error)) if error.contains("session-status.json") => {}
            (false, _, Err(error)) if error.contains("schema/rfd/") && error.contains("precondition failed") => {
                eprintln!("{name} + RFDs: not v1-shaped, precondition reported")
            }
            (_, _, outcome) => failures.push(format!(
                "{name} (with RFDs, v1-shaped {v1_shaped}, defines session/status {defines_status}): {outcome:?}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "needs ACP_UPSTREAM_SCHEMAS; `cargo xtask test` fetches the release schemas and runs it"]
fn review_of_two_upstream_releases() {
    let root = PathBuf::from(
        std::env::var_os("ACP_UPSTREAM_SCHEMAS").expect("ACP_UPSTREAM_SCHEMAS is not set: run `cargo xtask test`"),
    );
    let schema = |release: &str| {
        load(&SourceOptions {
            schema_file: Some(
                root.join(format!("sdk-{release}"))
                    .join("package/schema/v1/schema.json"),
            ),
            rfds: RfdSelection::Nothing,
        })
        .unwrap()
    };
    let (base, head) = (schema("2.0.0"), schema("2.4.0"));
    let (base_ir, head_ir) = (
        lower(&base, Unsupported::Fail).unwrap(),
        lower(&head, Unsupported::Fail).unwrap(),
    );
    let (base, head) = (
        acp_review::witness::Schema {
            document: &base.document,
            ir: &base_ir,
        },
        acp_review::witness::Schema {
            document: &head.document,
            ir: &head_ir,
        },
    );
    let reviewed = acp_review::review("2.0.0 v1", base, "2.4.0 v1", head, Vec::new()).unwrap();
    let counts = (
        reviewed.count(Level::Breaking),
        reviewed.count(Level::Warning),
        reviewed.count(Level::Safe),
    );
    // 2.4.0 adds `x-deserialize-default-on-null` to 14 list and map members,
    // 8 member names: one finding per name, listing the other types.
    assert_eq!(counts, (0, 8, 0), "{}", acp_review::report::markdown(&reviewed));
    assert_eq!(
        reviewed
            .findings
            .iter()
            .map(|finding| 1 + finding.also.len())
            .sum::<usize>(),
        14
    );
    assert!(reviewed
        .findings
        .iter()
        .all(|finding| finding.rule == "FIELD_DECODE_RULE_CHANGED" && !finding.directions.is_empty()));
}
