//! The independent oracle for the vectors: a real JSON Schema validator (the
//! `jsonschema` crate) checks every valid vector and every lenient vector's
//! expected value against the source schema, that every invalid vector fails
//! it at the location the vector names (or at the object holding it), and
//! that every lenient input fails it. An unknown variant that tolerant
//! reading accepts must fail it: that is the deviation.

use std::collections::BTreeMap;

use jsonschema::error::ValidationErrorKind;
use serde_json::{json, Value};

use crate::ir::{Ir, TypeKind};
use crate::vectors::VectorFile;

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
/// refers into it, so it is prepared once, not once per type.
const DOCUMENT: &str = "urn:acp-codegen:schema";

/// The schema a value of `pointer` must satisfy: a reference to the node in
/// the registered document (or, for an `anyOf`/`oneOf` list, that keyword
/// over references to its members).
fn schema_for(document: &Value, pointer: &str) -> Option<Value> {
    let node = document.pointer(pointer)?;
    let reference = |pointer: String| json!({"$ref": format!("{DOCUMENT}#{pointer}")});
    let mut schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema"});
    match node.as_array() {
        Some(members) => {
            let keyword = pointer.rsplit('/').next()?;
            schema[keyword] = (0..members.len()).map(|index| reference(format!("{pointer}/{index}"))).collect();
        }
        None => schema["$ref"] = reference(pointer.to_owned())["$ref"].clone(),
    }
    Some(schema)
}

/// Whether a validator error is about `pointer`: at the same location, or at
/// the object that holds it when that object lacks the member (`required`
/// naming it) or is a union that picks no variant (`oneOf`/`anyOf`, for a tag).
fn agrees(error: &jsonschema::ValidationError<'_>, pointer: &str) -> bool {
    let path = error.instance_path().to_string();
    if path == pointer {
        return true;
    }
    let Some((parent, member)) = pointer.rsplit_once('/') else { return false };
    let member = member.replace("~1", "/").replace("~0", "~");
    parent == path
        && match error.kind() {
            ValidationErrorKind::Required { property } => property.as_str() == Some(member.as_str()),
            ValidationErrorKind::AnyOf { .. } | ValidationErrorKind::OneOfNotValid { .. } => true,
            _ => false,
        }
}

/// Checks `vectors` for `ir` against `document`, the schema `ir` came from.
pub fn check(document: &Value, ir: &Ir, vectors: &BTreeMap<String, VectorFile>) -> Report {
    let mut report = Report::default();
    let mut registered = document.clone();
    registered["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let registry = match jsonschema::Registry::new().add(DOCUMENT, &registered).and_then(jsonschema::RegistryBuilder::prepare) {
        Ok(registry) => registry,
        Err(error) => {
            report.findings.push(Finding { type_name: "*".to_owned(), vector: "*".to_owned(), message: format!("the validator rejects the schema: {error}") });
            return report;
        }
    };
    for (type_name, file) in vectors {
        report.types += 1;
        let mut finding = |vector: &str, message: String| {
            report.findings.push(Finding { type_name: type_name.clone(), vector: vector.to_owned(), message });
        };
        let Some(definition) = ir.get(type_name) else {
            finding("*", "no such type in the IR".to_owned());
            continue;
        };
        let Some(schema) = schema_for(document, &definition.pointer) else {
            finding("*", format!("pointer {} does not resolve", definition.pointer));
            continue;
        };
        let validator = match jsonschema::options().with_registry(&registry).build(&schema) {
            Ok(validator) => validator,
            Err(error) => {
                finding("*", format!("the validator rejects the schema: {error}"));
                continue;
            }
        };
        if file.valid.is_empty() {
            finding("*", "no valid vector".to_owned());
        }
        let explain = |value: &Value| {
            validator.iter_errors(value).map(|error| format!("{} at {}", error, error.instance_path())).collect::<Vec<_>>().join("; ")
        };
        // Tolerant reading accepts an unknown tag the schema refuses.
        let tolerant = matches!(&definition.kind, TypeKind::Union(union) if union.tolerant);
        for vector in &file.valid {
            report.checked += 1;
            let deviation = tolerant && vector.name == "custom_variant";
            match (validator.is_valid(&vector.value), deviation) {
                (false, false) => finding(&vector.name, format!("valid vector fails the schema: {}", explain(&vector.value))),
                (true, true) => finding(&vector.name, "tolerant reading's unknown variant passes the schema: the union is not closed".to_owned()),
                _ => {}
            }
        }
        for vector in &file.invalid {
            report.checked += 1;
            let errors: Vec<jsonschema::ValidationError<'_>> = validator.iter_errors(&vector.value).collect();
            if errors.is_empty() {
                finding(&vector.name, "invalid vector passes the schema".to_owned());
            } else if !errors.iter().any(|error| agrees(error, &vector.pointer)) {
                let located: Vec<String> = errors.iter().map(|error| format!("{} at {:?}", error, error.instance_path().to_string())).collect();
                finding(&vector.name, format!("the vector says it fails at {:?}, the validator: {}", vector.pointer, located.join("; ")));
            }
        }
        for vector in &file.lenient {
            report.checked += 2;
            if validator.is_valid(&vector.value) {
                finding(&vector.name, "lenient input passes the schema (it should need the rule)".to_owned());
            }
            if !validator.is_valid(&vector.expected) {
                finding(&vector.name, format!("lenient expected value fails the schema: {}", explain(&vector.expected)));
            }
        }
    }
    report
}
