//! Values the IR did not make: `tests/independent/values.mjs` generates
//! them from the raw extended schema with json-schema-faker, adds the
//! adversarial extras a generator rarely makes, and lets ajv say which are
//! valid. Every case then goes through the cross-language chain
//! ([`crate::chain::run_cases`]): a valid value must come back exactly from
//! every language; an invalid one must be rejected at a pointer on the path
//! of one of ajv's errors, or repaired as the schema's `x-deserialize-*`
//! rules allow (the result valid for the `jsonschema` crate and differing
//! from the input only at the places a rule covers). Tolerant reading
//! ([`acp_codegen::tolerant`]) may also keep an invalid value unchanged.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::rc::Rc;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use acp_codegen::ir::Ir;
use acp_schema_source::ExtendedSchema;

use crate::chain::{self, same_json, Case, Expected, Verdict};
use crate::test_command::run_checked;

/// Valid values each schema must yield at least (the bar).
const MINIMUM_VALID: usize = 10_000;
/// What the generator aims at, so that the bar holds with room to spare.
const TARGET_VALID: usize = 12_000;
/// The generator's seed: the same values every run.
const SEED: u32 = 1;

/// The generator's folder, with its pinned packages installed.
fn generator(workspace: &Path) -> Result<std::path::PathBuf> {
    let folder = workspace.join("tests").join("independent");
    if !folder.join("node_modules").join("json-schema-faker").is_dir() {
        run_checked(Command::new("npm").args(["ci", "--silent", "--no-audit", "--no-fund"]).current_dir(&folder), "npm ci in tests/independent")?;
    }
    Ok(folder)
}

/// An invalid value as the generator describes it.
struct Invalid {
    /// ajv's error locations.
    errors: Vec<String>,
    /// Where a decode rule may change the value.
    repairable: BTreeSet<String>,
    /// Arrays whose invalid items a rule drops.
    skip_arrays: BTreeSet<String>,
}

/// Whether one JSON pointer is the other or lies inside it.
fn related(left: &str, right: &str) -> bool {
    let inside = |outer: &str, inner: &str| inner == outer || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'));
    inside(left, right) || inside(right, left)
}

fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"))
}

impl Invalid {
    /// Whether `output` differs from `input` only where a rule may change it.
    fn explains(&self, input: &Value, output: &Value, pointer: &str) -> bool {
        if self.repairable.contains(pointer) {
            return true;
        }
        match (input, output) {
            (Value::Object(before), Value::Object(after)) => before.keys().chain(after.keys()).all(|key| {
                let at = child(pointer, key);
                match (before.get(key), after.get(key)) {
                    (Some(before), Some(after)) => self.explains(before, after, &at),
                    _ => self.repairable.contains(&at),
                }
            }),
            // Every item of such an array is repairable: items may go.
            (Value::Array(before), Value::Array(after)) if self.skip_arrays.contains(pointer) => after.len() <= before.len(),
            (Value::Array(before), Value::Array(after)) => {
                before.len() == after.len() && before.iter().zip(after).enumerate().all(|(index, (before, after))| self.explains(before, after, &format!("{pointer}/{index}")))
            }
            _ => same_json(input, output),
        }
    }
}

/// Validators of the schema's types by `$defs` key, compiled when first needed.
struct Validators {
    document: Value,
    compiled: std::cell::RefCell<BTreeMap<String, Rc<jsonschema::Validator>>>,
}

impl Validators {
    fn valid(&self, key: &str, value: &Value) -> Result<bool, String> {
        let existing = self.compiled.borrow().get(key).cloned();
        let validator = match existing {
            Some(validator) => validator,
            None => {
                let mut schema = self.document.clone();
                if let Value::Object(members) = &mut schema {
                    members.remove("anyOf");
                    members.remove("oneOf");
                    members.insert("$ref".to_owned(), json!(format!("#/$defs/{key}")));
                }
                let validator = Rc::new(jsonschema::validator_for(&schema).map_err(|error| format!("compiling the schema of {key}: {error}"))?);
                self.compiled.borrow_mut().insert(key.to_owned(), validator.clone());
                validator
            }
        };
        Ok(validator.is_valid(value))
    }
}

/// The judge of an invalid value's verdict.
fn judge_invalid(key: String, invalid: Invalid, value: Value, tolerant: bool, validators: Rc<Validators>) -> Expected {
    Expected::Judged(Box::new(move |verdict| match verdict {
        Verdict::Rejected { pointer } if invalid.errors.iter().any(|error| related(error, pointer)) => Ok(()),
        Verdict::Rejected { .. } => Err(format!("ajv rejects it at {:?}, but", invalid.errors)),
        Verdict::Accepted(output) if tolerant && same_json(output, &value) => Ok(()),
        Verdict::Accepted(output) => {
            if !invalid.explains(&value, output, "") {
                return Err(format!("ajv rejects it at {:?} and no rule covers the change, but", invalid.errors));
            }
            match validators.valid(&key, output) {
                Ok(true) => Ok(()),
                Ok(false) => Err("the repaired value is still invalid, but".to_owned()),
                Err(error) => Err(error),
            }
        }
    }))
}

fn strings(line: &Value, member: &str) -> Vec<String> {
    line[member].as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
}

/// Generates the values of `schema` (written in `bindings/schema`) and runs
/// them through the chain; fails on any value lost, changed or misjudged,
/// or when fewer than [`MINIMUM_VALID`] valid values came out.
pub fn run(workspace: &Path, bindings: &Path, label: &str, schema: &ExtendedSchema, ir: &Ir, tolerant: bool) -> Result<()> {
    let folder = generator(workspace)?;
    let schema_file = bindings.join("schema").join("acp.schema.json");
    let output = bindings.join("independent.jsonl");
    run_checked(
        Command::new("node")
            .arg(folder.join("values.mjs"))
            .arg("--schema")
            .arg(&schema_file)
            .args(["--seed", &SEED.to_string(), "--valid-target", &TARGET_VALID.to_string(), "--out"])
            .arg(&output),
        &format!("{label}: generating independent values"),
    )?;
    let names: BTreeMap<&str, &str> = ir.types.values().filter_map(|definition| Some((definition.definition.as_deref()?, definition.name.as_str()))).collect();
    let validators = Rc::new(Validators { document: schema.document.clone(), compiled: Default::default() });
    let text = std::fs::read_to_string(&output).with_context(|| format!("reading {}", output.display()))?;
    let mut cases = Vec::new();
    let mut unbound = BTreeSet::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let line: Value = serde_json::from_str(line).with_context(|| format!("reading {}", output.display()))?;
        let key = line["type"].as_str().context("a generated value without a type")?.to_owned();
        let Some(type_name) = names.get(key.as_str()) else {
            unbound.insert(key);
            continue;
        };
        let value = line["value"].clone();
        let (kind, expected) = match line["kind"].as_str() {
            Some("valid") => ("valid", Expected::Verdict(Verdict::Accepted(value.clone()))),
            Some("invalid") => {
                let invalid = Invalid {
                    errors: strings(&line, "errors"),
                    repairable: strings(&line, "repairable").into_iter().collect(),
                    skip_arrays: strings(&line, "skipArrays").into_iter().collect(),
                };
                ("invalid", judge_invalid(key.clone(), invalid, value.clone(), tolerant, validators.clone()))
            }
            other => bail!("a generated value of unknown kind {other:?}"),
        };
        let name = line["name"].as_str().unwrap_or_default().to_owned();
        cases.push(Case { type_name: (*type_name).to_owned(), name, kind, value, expected });
    }
    let valid = cases.iter().filter(|case| case.kind == "valid").count();
    let invalid = cases.len() - valid;
    if !unbound.is_empty() {
        eprintln!("{label}: {} `$defs` entries have no type of their own in the bindings: {unbound:?}", unbound.len());
    }
    let failures = chain::run_cases(workspace, bindings, "independent", &cases)?;
    for language in ["Rust", "TypeScript", "Python"] {
        println!("independent values {label}: {language} tried {} ({valid} valid, {invalid} invalid)", cases.len());
    }
    println!("independent values {label} (Rust -> TypeScript -> Python -> Rust): {} of {} agree with ajv", cases.len() - failures.len(), cases.len());
    for failure in failures.iter().take(40) {
        println!("  {failure}");
    }
    if !failures.is_empty() {
        bail!("{label}: {} of {} independent values were lost, changed or misjudged", failures.len(), cases.len());
    }
    if valid < MINIMUM_VALID {
        bail!("{label}: only {valid} independent valid values, fewer than {MINIMUM_VALID}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_relate_by_whole_segments() {
        assert!(related("", "/a"));
        assert!(related("/a/b", "/a"));
        assert!(!related("/a", "/ab"));
    }

    #[test]
    fn a_repair_is_explained_only_where_a_rule_applies() {
        let invalid = Invalid { errors: vec!["/items/1".into()], repairable: ["/items/0".into(), "/items/1".into(), "/meta".into()].into(), skip_arrays: ["/items".into()].into() };
        let input = json!({"items": [1, "x"], "meta": 5, "name": "n"});
        assert!(invalid.explains(&input, &json!({"items": [1], "name": "n"}), ""));
        assert!(!invalid.explains(&input, &json!({"items": [1], "meta": 5}), ""));
        assert!(!invalid.explains(&input, &json!({"items": [1, "x", 3], "meta": 5, "name": "n"}), ""));
    }
}
