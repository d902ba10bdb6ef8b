//! Property-based fuzzing of the generator's input side: arbitrary JSON
//! documents shaped like schemas, and structured mutations of the real ACP
//! schema (with and without the RFD overlays), go through the source stage,
//! the lowering, the vectors and every emitter. Nothing may panic, and every
//! rejection is a typed error whose JSON pointer leads into the document (to
//! the node at fault or to the object missing it). The case counts are fixed
//! and small for `cargo test`, with a fixed seed; `ACP_FUZZ_CASES` raises
//! them for a long run with a random seed. A run fails too when too few
//! cases get as far as the emitters.

use acp_generate::emit::{PackageNames, LANGUAGES};
use acp_ir::lower::{lower, Unsupported};
use acp_schema_source::overlay::Overlay;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRng, TestRunner};
use serde_json::{json, Map, Value};

/// The number of cases of a property: `ACP_FUZZ_CASES`, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("ACP_FUZZ_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// Keys a schema uses, so that arbitrary documents reach past the first check.
const KEYS: &[&str] = &[
    "type",
    "properties",
    "required",
    "$ref",
    "oneOf",
    "anyOf",
    "allOf",
    "enum",
    "const",
    "items",
    "additionalProperties",
    "discriminator",
    "propertyName",
    "default",
    "description",
    "title",
    "format",
    "minimum",
    "maximum",
    "minItems",
    "maxLength",
    "pattern",
    "x-method",
    "x-side",
    "x-deserialize-default-on-error",
    "x-deserialize-skip-invalid-items",
    "A",
    "B",
    "a",
    "self",
    "Self",
    "",
    "~1",
    "_meta",
];

/// Strings a schema uses, including broken references and names that collide.
const STRINGS: &[&str] = &[
    "object",
    "string",
    "integer",
    "number",
    "boolean",
    "array",
    "null",
    "#/$defs/A",
    "#/$defs/B",
    "#/$defs/Missing",
    "#/$defs/a",
    "other.json#/A",
    "uint64",
    "int32",
    "double",
    "^[a-z]+$",
    "(",
    "agent",
    "client",
    "session/prompt",
    "",
    "\u{0}",
    "*/",
    "\"\"\"",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(|number| json!(number)),
        prop::sample::select(STRINGS).prop_map(Value::from),
    ]
}

fn document() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|members| Value::Object(
                members
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect()
            )),
        ]
    })
}

/// Every JSON pointer of `value`, the root included.
fn pointers(value: &Value, at: String, into: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (key, member) in members {
                pointers(
                    member,
                    format!("{at}/{}", acp_schema_source::pointer::escape_token(key)),
                    into,
                );
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointers(item, format!("{at}/{index}"), into);
            }
        }
        _ => {}
    }
    into.push(at);
}

/// `pointer` leads into `document`: to a node, or to an object or array one
/// step above it (a member that is missing).
fn leads_into(document: &Value, pointer: &str) -> bool {
    if pointer.is_empty() || document.pointer(pointer).is_some() {
        return true;
    }
    pointer.starts_with('/')
        && pointer
            .rsplit_once('/')
            .is_some_and(|(parent, _)| document.pointer(parent).is_some())
}

/// How far a document went: refused by the source stage, refused by the
/// lowering, or through the emitters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Reached {
    Source,
    Lowering,
    Emitters,
}

/// Runs `document` through every stage; `Err` describes a broken promise.
fn run_pipeline(document: Value, overlays: &[Overlay]) -> Result<Reached, String> {
    let original = document.clone();
    let schema = match acp_schema_source::extend("fuzz.json".into(), document, overlays, false) {
        Ok(schema) => schema,
        Err(error) => {
            let text = error.to_string();
            return if text.is_empty() {
                Err("an empty source error".to_owned())
            } else {
                Ok(Reached::Source)
            };
        }
    };
    let ir = match lower(&schema, Unsupported::Fail) {
        Ok(ir) => ir,
        Err(error) => {
            return if leads_into(&schema.document, &error.pointer) && !error.message.is_empty() {
                Ok(Reached::Lowering)
            } else {
                Err(format!(
                    "the lowering error `{error}` does not lead into the document {}",
                    serde_json::to_string(&original).unwrap_or_default()
                ))
            };
        }
    };
    let vectors = acp_vectors::vectors::generate(&ir);
    let report = acp_vectors::validate::check(&schema.document, &ir, &vectors);
    if let Some(finding) = report.findings.first() {
        return Err(format!(
            "the validator disagrees with {} of the {} vectors, first {} {}: {} (document {})",
            report.findings.len(),
            report.checked,
            finding.type_name,
            finding.vector,
            finding.message,
            serde_json::to_string(&original).unwrap_or_default()
        ));
    }
    for language in LANGUAGES {
        if let Err(error) = (language.emit)(&ir, &PackageNames::default()) {
            if error.message.is_empty() {
                return Err(format!("an empty {} error", language.id));
            }
        }
    }
    Ok(Reached::Emitters)
}

/// Runs `cases` cases of `strategy` through `pipeline`, then checks that at
/// least `share` of them got through the emitters: a fuzzer whose cases all
/// stop at the first check tests nothing.
fn fuzz<S: Strategy>(
    default_cases: u32,
    strategy: S,
    share: f64,
    pipeline: impl Fn(S::Value) -> Result<Reached, String>,
) {
    let reached = std::cell::RefCell::new(std::collections::BTreeMap::<Reached, u32>::new());
    let config = Config {
        cases: cases(default_cases),
        failure_persistence: None,
        ..Config::default()
    };
    // The short run is the same every time; a long one explores.
    let mut runner = match std::env::var_os("ACP_FUZZ_CASES") {
        None => TestRunner::new_with_rng(config.clone(), TestRng::deterministic_rng(config.rng_algorithm)),
        Some(_) => TestRunner::new(config),
    };
    runner
        .run(&strategy, |input| {
            let stage = pipeline(input).map_err(TestCaseError::fail)?;
            *reached.borrow_mut().entry(stage).or_default() += 1;
            Ok(())
        })
        .unwrap();
    let reached = reached.into_inner();
    let total: u32 = reached.values().sum();
    let emitted = reached.get(&Reached::Emitters).copied().unwrap_or_default();
    eprintln!("fuzz: {total} cases, reached {reached:?}");
    assert!(
        f64::from(emitted) >= share * f64::from(total),
        "only {emitted} of {total} cases reached the emitters: {reached:?}"
    );
}

#[test]
fn arbitrary_schema_shaped_documents_never_panic() {
    let strategy = (
        document(),
        prop::collection::vec((prop::sample::select(&["A", "B", "a", "Self"][..]), document()), 0..4),
    );
    fuzz(256, strategy, 0.05, |(root, definitions)| {
        let mut document = match root {
            Value::Object(members) => members,
            _ => Map::new(),
        };
        document.insert(
            "$defs".to_owned(),
            Value::Object(
                definitions
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect(),
            ),
        );
        run_pipeline(Value::Object(document), &[])
    });
}

/// One structured change to the real schema.
#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Delete,
    AddMember(&'static str, Value),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        document().prop_map(Mutation::Replace),
        Just(Mutation::Delete),
        (prop::sample::select(KEYS), document()).prop_map(|(key, value)| Mutation::AddMember(key, value)),
    ]
}

fn mutate(document: &mut Value, pointer: &str, mutation: Mutation) {
    match mutation {
        Mutation::Replace(value) => {
            if let Some(node) = document.pointer_mut(pointer) {
                *node = value;
            }
        }
        Mutation::Delete => {
            if let Some((parent, last)) = pointer.rsplit_once('/') {
                let key = acp_schema_source::pointer::unescape_token(last);
                match document.pointer_mut(parent) {
                    Some(Value::Object(members)) => {
                        members.remove(&key);
                    }
                    Some(Value::Array(items)) => {
                        if let Ok(index) = key.parse::<usize>() {
                            if index < items.len() {
                                items.remove(index);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Mutation::AddMember(key, value) => {
            if let Some(Value::Object(members)) = document.pointer_mut(pointer) {
                members.insert(key.to_owned(), value);
            }
        }
    }
}

#[test]
fn mutations_of_the_real_schema_never_panic() {
    let base = acp_schema_source::upstream::default_schema();
    let mut all = Vec::new();
    pointers(&base, String::new(), &mut all);
    let overlays = Overlay::builtin();
    let strategy = (
        prop::collection::vec((prop::sample::select(all), mutation()), 1..4),
        any::<bool>(),
    );
    fuzz(24, strategy, 0.2, |(changes, with_overlays)| {
        let mut document = base.clone();
        for (pointer, change) in changes {
            mutate(&mut document, &pointer, change);
        }
        run_pipeline(document, if with_overlays { &overlays } else { &[] })
    });
}
