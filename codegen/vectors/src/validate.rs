//! The independent oracle for the vectors: a real JSON Schema validator (the
//! `jsonschema` crate) checks every valid vector and every lenient vector's
//! expected value against the source schema, that every invalid vector fails
//! it at the location the vector names (or at the object holding it), and
//! that every lenient input fails it. An unknown variant that tolerant
//! reading accepts must fail it: that is the deviation. `cargo xtask
//! check-trace` validates captured messages with the same `Oracle`.

use std::collections::BTreeMap;

use jsonschema::error::ValidationErrorKind;
use serde_json::{json, Value};

use crate::vectors::VectorFile;
use acp_ir::ir::{Ir, TypeKind};

/// One disagreement between a vector and the validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub type_name: String,
    pub vector: String,
    pub message: String,
}

/// Counts of a check.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    pub types: usize,
    pub checked: usize,
    pub findings: Vec<Finding>,
}

/// Where the document sits in the validator's registry: every type's schema
/// refers into it.
const DOCUMENT: &str = "urn:acp-codegen:schema";

/// The schema a value of `pointer` must satisfy: a reference to the node in
/// the registered document (or, for an `anyOf`/`oneOf` list, that keyword
/// over references to its members).
fn schema_for(document: &Value, pointer: &str) -> Option<Value> {
    let node = document.pointer(pointer)?;
    let reference = |pointer: String| json!({"$ref": format!("{DOCUMENT}#{pointer}")});
    Some(match node.as_array() {
        Some(members) => {
            let keyword = pointer.rsplit('/').next()?;
            json!({keyword: (0..members.len()).map(|index| reference(format!("{pointer}/{index}"))).collect::<Vec<_>>()})
        }
        None => reference(pointer.to_owned()),
    })
}

/// Whether a validator error is about `pointer`: at the same location, or at
/// the object that holds it when that object lacks the member (`required`
/// naming it) or is a union that picks no variant (`oneOf`/`anyOf`, for a tag).
/// `path` is the error's location in the value.
fn agrees(error: &jsonschema::ValidationError<'_>, path: &str, pointer: &str) -> bool {
    if path == pointer {
        return true;
    }
    let Some((parent, member)) = pointer.rsplit_once('/') else {
        return false;
    };
    let member = acp_schema_source::pointer::unescape_token(member);
    parent == path
        && match error.kind() {
            ValidationErrorKind::Required { property } => property.as_str() == Some(member.as_str()),
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => true,
            _ => false,
        }
}

/// A location in the validator's wrapper as a location in the value it
/// wraps as a `type_name`.
fn within(type_name: &str, path: &str) -> String {
    let prefix = format!("/{}", acp_schema_source::pointer::escape_token(type_name));
    path.strip_prefix(&prefix).unwrap_or(path).to_owned()
}

/// An error's deepest cause: inside `anyOf`/`oneOf`, the one branch without
/// a `const` mismatch (its tag matched), else the branch whose own deepest
/// cause is furthest down, else the error itself.
fn deepest(error: &jsonschema::ValidationError<'_>) -> (String, String) {
    let here = || (error.instance_path().to_string(), error.to_string());
    let branches = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => context,
        _ => return here(),
    };
    let mismatched = |branch: &Vec<jsonschema::ValidationError<'static>>| {
        branch
            .iter()
            .any(|error| matches!(error.kind(), ValidationErrorKind::Constant { .. }))
    };
    let causes: Vec<(bool, usize, (String, String))> = branches
        .iter()
        .filter(|branch| !branch.is_empty())
        .map(|branch| {
            let cause = branch
                .iter()
                .map(deepest)
                .max_by_key(|(path, _)| path.matches('/').count())
                .unwrap_or_default();
            (!mismatched(branch), cause.0.matches('/').count(), cause)
        })
        .collect();
    let matched: Vec<&(bool, usize, (String, String))> = causes.iter().filter(|(matched, _, _)| *matched).collect();
    if let [(_, _, cause)] = matched.as_slice() {
        return cause.clone();
    }
    // Every branch refused the tag at the same place: say so there.
    let tags: Vec<(String, String)> = branches
        .iter()
        .flatten()
        .filter_map(|error| match error.kind() {
            ValidationErrorKind::Constant { expected_value } => {
                Some((error.instance_path().to_string(), expected_value.to_string()))
            }
            _ => None,
        })
        .collect();
    if matched.is_empty() && tags.len() == branches.len() && tags.iter().all(|(path, _)| *path == tags[0].0) {
        let expected: Vec<&str> = tags.iter().map(|(_, value)| value.as_str()).collect();
        return (
            tags[0].0.clone(),
            format!("a value none of the branches takes (they take {})", expected.join(", ")),
        );
    }
    match causes.iter().max_by_key(|(matched, depth, _)| (*matched, *depth)) {
        Some((_, depth, cause)) if *depth > error.instance_path().to_string().matches('/').count() => cause.clone(),
        _ => here(),
    }
}

/// One validator for every type: an object whose member named after a type
/// must satisfy that type's schema. Compiled once, so each definition is
/// compiled once however many types reach it (a validator per type walks
/// every definition it reaches again, quadratic in a chain of references).
pub struct Oracle {
    validator: jsonschema::Validator,
}

impl Oracle {
    /// The oracle of the types `names` of `ir`, and those of them it cannot
    /// check, each with the reason.
    pub fn new(document: &Value, ir: &Ir, names: &[&String]) -> Result<(Oracle, BTreeMap<String, String>), String> {
        let mut registered = document.clone();
        registered["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        let registry = jsonschema::Registry::new()
            .add(DOCUMENT, &registered)
            .and_then(jsonschema::RegistryBuilder::prepare)
            .map_err(|error| error.to_string())?;
        let mut properties = serde_json::Map::new();
        let mut unresolved = BTreeMap::new();
        for name in names {
            match ir.get(name) {
                None => {
                    unresolved.insert((*name).clone(), "no such type in the IR".to_owned());
                }
                Some(definition) => match schema_for(document, &definition.pointer) {
                    Some(schema) => {
                        properties.insert((*name).clone(), schema);
                    }
                    None => {
                        unresolved.insert(
                            (*name).clone(),
                            format!("pointer {} does not resolve", definition.pointer),
                        );
                    }
                },
            }
        }
        let root = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": properties});
        let validator = jsonschema::options()
            .with_registry(&registry)
            .build(&root)
            .map_err(|error| error.to_string())?;
        Ok((Oracle { validator }, unresolved))
    }

    /// The errors of `value` as a `type_name`, each with its location in `value`.
    fn errors(&self, type_name: &str, value: &Value) -> Vec<(String, jsonschema::ValidationError<'static>)> {
        let wrapped = wrap(type_name, value);
        self.validator
            .iter_errors(&wrapped)
            .map(|error| (within(type_name, &error.instance_path().to_string()), error.to_owned()))
            .collect()
    }

    /// The errors of `value` as a `type_name`, as (location in `value`,
    /// message), in the validator's order. The value is moved into the
    /// validator's wrapper and back, not copied.
    pub fn errors_in_place(&self, type_name: &str, value: &mut Value) -> Vec<(String, String)> {
        let mut wrapper = serde_json::Map::new();
        wrapper.insert(type_name.to_owned(), std::mem::take(value));
        let wrapped = Value::Object(wrapper);
        let errors = if self.validator.is_valid(&wrapped) {
            Vec::new()
        } else {
            self.validator
                .iter_errors(&wrapped)
                .map(|error| (within(type_name, &error.instance_path().to_string()), error.to_string()))
                .collect()
        };
        if let Value::Object(mut wrapper) = wrapped {
            *value = wrapper.remove(type_name).unwrap_or_default();
        }
        errors
    }

    /// Why `value` is not a `type_name`, as (location in `value`, message),
    /// told at the deepest place: inside a union that picks no branch, the
    /// branch whose tag matched (no `const` error) and that got furthest.
    /// `None` when the value is valid.
    pub fn rejection(&self, type_name: &str, value: &Value) -> Option<(String, String)> {
        let wrapped = wrap(type_name, value);
        let error = self.validator.iter_errors(&wrapped).next()?;
        let (path, message) = deepest(&error);
        Some((within(type_name, &path), message))
    }

    pub fn is_valid(&self, type_name: &str, value: &Value) -> bool {
        self.validator.is_valid(&wrap(type_name, value))
    }

    fn explain(&self, type_name: &str, value: &Value) -> String {
        self.errors(type_name, value)
            .iter()
            .map(|(path, error)| format!("{error} at {path}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// `{type_name: value}`, what the validator's root checks as a `type_name`:
/// a clone of `value` (`json!` would serialize it into a new value instead).
fn wrap(type_name: &str, value: &Value) -> Value {
    Value::Object(serde_json::Map::from_iter([(type_name.to_owned(), value.clone())]))
}

/// Checks vector files against the schema one type at a time, with one
/// validator built for every type of the IR.
pub struct Checker<'a> {
    ir: &'a Ir,
    oracle: Oracle,
    unresolved: BTreeMap<String, String>,
}

impl<'a> Checker<'a> {
    /// The checker of the types `names` of `ir`, defined in `document`; a
    /// finding when the validator rejects the schema itself.
    pub fn new(document: &Value, ir: &'a Ir, names: &[&String]) -> Result<Checker<'a>, Finding> {
        let (oracle, unresolved) = Oracle::new(document, ir, names).map_err(|error| Finding {
            type_name: "*".to_owned(),
            vector: "*".to_owned(),
            message: format!("the validator rejects the schema: {error}"),
        })?;
        Ok(Checker { ir, oracle, unresolved })
    }

    /// Checks the vectors of `type_name` into `report`.
    pub fn check(&self, type_name: &str, file: &VectorFile, report: &mut Report) {
        let oracle = &self.oracle;
        report.types += 1;
        let mut finding = |vector: &str, message: String| {
            report.findings.push(Finding {
                type_name: type_name.to_owned(),
                vector: vector.to_owned(),
                message,
            });
        };
        if let Some(reason) = self.unresolved.get(type_name) {
            finding("*", reason.clone());
            return;
        }
        let Some(definition) = self.ir.get(type_name) else {
            return;
        };
        if file.valid.is_empty() {
            finding("*", "no valid vector".to_owned());
        }
        // Tolerant reading accepts an unknown tag the schema refuses.
        let tolerant = matches!(&definition.kind, TypeKind::Union(union) if union.tolerant);
        for vector in &file.valid {
            report.checked += 1;
            let deviation = tolerant && vector.name == "custom_variant";
            match (oracle.is_valid(type_name, &vector.value), deviation) {
                (false, false) => finding(
                    &vector.name,
                    format!(
                        "valid vector fails the schema: {}",
                        oracle.explain(type_name, &vector.value)
                    ),
                ),
                (true, true) => finding(
                    &vector.name,
                    "tolerant reading's unknown variant passes the schema: the union is not closed".to_owned(),
                ),
                _ => {}
            }
        }
        for vector in &file.invalid {
            report.checked += 1;
            let errors = oracle.errors(type_name, &vector.value);
            if errors.is_empty() {
                finding(&vector.name, "invalid vector passes the schema".to_owned());
            } else if !errors.iter().any(|(path, error)| agrees(error, path, &vector.pointer)) {
                let located: Vec<String> = errors
                    .iter()
                    .map(|(path, error)| format!("{error} at {path:?}"))
                    .collect();
                finding(
                    &vector.name,
                    format!(
                        "the vector says it fails at {:?}, the validator: {}",
                        vector.pointer,
                        located.join("; ")
                    ),
                );
            }
        }
        for vector in &file.lenient {
            report.checked += 2;
            if oracle.is_valid(type_name, &vector.value) {
                finding(
                    &vector.name,
                    "lenient input passes the schema (it should need the rule)".to_owned(),
                );
            }
            if !oracle.is_valid(type_name, &vector.expected) {
                finding(
                    &vector.name,
                    format!(
                        "lenient expected value fails the schema: {}",
                        oracle.explain(type_name, &vector.expected)
                    ),
                );
            }
        }
    }
}

/// Checks `vectors` for `ir` against `document`, the schema `ir` came from.
pub fn check(document: &Value, ir: &Ir, vectors: &BTreeMap<String, VectorFile>) -> Report {
    let mut report = Report::default();
    let names: Vec<&String> = vectors.keys().collect();
    match Checker::new(document, ir, &names) {
        Ok(checker) => {
            for (type_name, file) in vectors {
                checker.check(type_name, file, &mut report);
            }
        }
        Err(finding) => report.findings.push(finding),
    }
    report
}
