//! Values the IR did not make: `tests/independent/values.mjs` generates
//! them from the raw extended schema with json-schema-faker, adds the
//! adversarial extras a generator rarely makes, and lets ajv say which are
//! valid; a value on which the `jsonschema` crate disagrees with ajv is left
//! out and counted. Every case then goes through the cross-language chain
//! ([`crate::suites::chain::run_cases`], numbers compared by value as JSON Schema
//! does, integers exactly but where TypeScript reads them as doubles): a
//! valid value must come back unchanged from every language, or changed
//! only by a `default-on-null`/`default-on-error` rule of the schema (a
//! value one branch of a union accepts as it is while the branch its tag
//! names reads it through a rule; never an item dropped); an invalid one
//! must be rejected at a pointer on the path of one of ajv's errors, or
//! repaired as the schema's `x-deserialize-*` rules allow (the result valid
//! for the `jsonschema` crate and differing from the input only at the
//! places a rule covers). A number outside its integer `format`'s range
//! (which ajv does not check) counts as invalid there. An invalid value may
//! also be kept as it came, or repaired around it, where its type holds an
//! extensible union, whose catch-all keeps an unknown variant whole whatever
//! the schema says inside it, or under tolerant reading
//! ([`acp_ir::tolerant`]); the report counts those.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use std::rc::Rc;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use acp_ir::ir::{Ir, TypeKind};
use acp_schema_source::ExtendedSchema;

use crate::suites::chain::{self, related, same_value, Case, Compare, Expected, Numbers, Verdict};
use crate::support::tools::run_checked;

/// Valid values each schema must yield at least (the bar).
const MINIMUM_VALID: usize = 10_000;
/// What the generator aims at, so that the bar holds with room to spare.
const TARGET_VALID: usize = 12_000;
/// The generator's seed: the same values every run.
const SEED: u32 = 1;

/// The generator's folder, with its pinned packages installed.
pub fn generator(workspace: &Path) -> Result<std::path::PathBuf> {
    let folder = workspace.join("tests").join("independent");
    if !folder.join("node_modules").join("json-schema-faker").is_dir() {
        run_checked(
            Command::new("npm")
                .args(["ci", "--silent", "--no-audit", "--no-fund"])
                .current_dir(&folder),
            "npm ci in tests/independent",
        )?;
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

fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", acp_schema_source::pointer::escape_token(key))
}

impl Invalid {
    /// Whether `output` differs from `input` only where a rule may change
    /// it; with `drops`, items of arrays whose invalid items a rule skips may go.
    fn explains(&self, input: &Value, output: &Value, pointer: &str, drops: bool) -> bool {
        // An item of an array whose invalid items a rule skips may only go.
        let item = pointer
            .rsplit_once('/')
            .is_some_and(|(array, _)| self.skip_arrays.contains(array));
        if self.repairable.contains(pointer) && !item {
            return true;
        }
        match (input, output) {
            (Value::Object(before), Value::Object(after)) => before.keys().chain(after.keys()).all(|key| {
                let at = child(pointer, key);
                match (before.get(key), after.get(key)) {
                    (Some(before), Some(after)) => self.explains(before, after, &at, drops),
                    _ => self.repairable.contains(&at),
                }
            }),
            (Value::Array(before), Value::Array(after)) if drops && self.skip_arrays.contains(pointer) => {
                after.len() <= before.len()
            }
            (Value::Array(before), Value::Array(after)) => {
                before.len() == after.len()
                    && before.iter().zip(after).enumerate().all(|(index, (before, after))| {
                        self.explains(before, after, &format!("{pointer}/{index}"), drops)
                    })
            }
            _ => same_value(input, output, Numbers::ByValue),
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
                let validator = Rc::new(
                    jsonschema::validator_for(&schema)
                        .map_err(|error| format!("compiling the schema of {key}: {error}"))?,
                );
                self.compiled.borrow_mut().insert(key.to_owned(), validator.clone());
                validator
            }
        };
        Ok(validator.is_valid(value))
    }
}

/// The judge of a valid value's verdict: back unchanged, or changed only
/// by a rule that replaces a member (never one that drops an item).
fn judge_valid(key: String, rules: Invalid, value: Value, validators: Rc<Validators>) -> Expected {
    Expected::Judged(Box::new(move |verdict| match verdict {
        Verdict::Accepted(output) if same_value(output, &value, Numbers::ByValue) => Ok(()),
        Verdict::Accepted(output) if rules.explains(&value, output, "", false) => {
            match validators.valid(&key, output) {
                Ok(true) => Ok(()),
                Ok(false) => Err("ajv accepts it, a rule changed it into an invalid value, and".to_owned()),
                Err(error) => Err(error),
            }
        }
        Verdict::Accepted(_) => Err(format!("ajv accepts it as {value}, but")),
        Verdict::Rejected { .. } => Err("ajv accepts it, but".to_owned()),
    }))
}

/// The types that hold, at any depth, an extensible union (one with a
/// catch-all), that union included.
fn holding_catch_all(ir: &Ir) -> BTreeSet<String> {
    // The types each type names, read from its serialized IR (a named type
    // is `{"type": "named", "name": ...}`; a flattened base is a name too).
    fn named(node: &Value, into: &mut BTreeSet<String>) {
        match node {
            Value::Object(members) => {
                if members.get("type").and_then(Value::as_str) == Some("named") {
                    into.extend(members.get("name").and_then(Value::as_str).map(str::to_owned));
                }
                for base in members.get("flatten").and_then(Value::as_array).into_iter().flatten() {
                    into.extend(base.as_str().map(str::to_owned));
                }
                if let Some(base) = members.get("base").and_then(Value::as_str) {
                    into.insert(base.to_owned());
                }
                members.values().for_each(|value| named(value, into));
            }
            Value::Array(items) => items.iter().for_each(|item| named(item, into)),
            _ => {}
        }
    }
    let names: BTreeMap<&str, BTreeSet<String>> = ir
        .types
        .values()
        .map(|definition| {
            let mut into = BTreeSet::new();
            named(
                &serde_json::to_value(&definition.kind).unwrap_or(Value::Null),
                &mut into,
            );
            (definition.name.as_str(), into)
        })
        .collect();
    let mut holding: BTreeSet<String> = ir
        .types
        .values()
        .filter(|definition| matches!(&definition.kind, TypeKind::Union(union) if union.other.is_some()))
        .map(|definition| definition.name.clone())
        .collect();
    loop {
        let more: Vec<String> = names
            .iter()
            .filter(|(name, refs)| !holding.contains(**name) && refs.iter().any(|used| holding.contains(used)))
            .map(|(name, _)| (*name).to_owned())
            .collect();
        if more.is_empty() {
            return holding;
        }
        holding.extend(more);
    }
}

/// The judge of an invalid value's verdict. `kept_whole` (counting them):
/// the value may be kept as it came, its type holding an extensible union
/// whose catch-all keeps an unknown variant whole (whatever the schema says
/// inside it), or being read tolerantly.
fn judge_invalid(
    key: String,
    invalid: Invalid,
    value: Value,
    kept_whole: Option<Rc<Cell<usize>>>,
    validators: Rc<Validators>,
) -> Expected {
    Expected::Judged(Box::new(move |verdict| match verdict {
        Verdict::Rejected { pointer } if invalid.errors.iter().any(|error| related(error, pointer)) => Ok(()),
        Verdict::Rejected { .. } => Err(format!("ajv rejects it at {:?}, but", invalid.errors)),
        Verdict::Accepted(output) if kept_whole.is_some() && same_value(output, &value, Numbers::ByValue) => {
            kept_whole.iter().for_each(|count| count.set(count.get() + 1));
            Ok(())
        }
        Verdict::Accepted(output) => {
            if !invalid.explains(&value, output, "", true) {
                return Err(format!(
                    "ajv rejects it at {:?} and no rule covers the change, but",
                    invalid.errors
                ));
            }
            match (validators.valid(&key, output), &kept_whole) {
                (Ok(true), _) => Ok(()),
                // Repaired, with an invalid variant kept whole by a catch-all.
                (Ok(false), Some(count)) => {
                    count.set(count.get() + 1);
                    Ok(())
                }
                (Ok(false), None) => Err("the repaired value is still invalid, but".to_owned()),
                (Err(error), _) => Err(error),
            }
        }
    }))
}

fn strings(line: &Value, member: &str) -> Vec<String> {
    line[member]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Generates the values of `schema` (written in `bindings/schema`) and runs
/// them through the chain; fails on any value lost, changed or misjudged,
/// or when fewer than [`MINIMUM_VALID`] valid values came out.
pub fn run(
    workspace: &Path,
    bindings: &Path,
    label: &str,
    schema: &ExtendedSchema,
    ir: &Ir,
    tolerant: bool,
) -> Result<()> {
    let folder = generator(workspace)?;
    let schema_file = bindings.join("schema").join("acp.schema.json");
    let output = bindings.join("independent.jsonl");
    run_checked(
        Command::new("node")
            .arg(folder.join("values.mjs"))
            .arg("--schema")
            .arg(&schema_file)
            .args([
                "--seed",
                &SEED.to_string(),
                "--valid-target",
                &TARGET_VALID.to_string(),
                "--out",
            ])
            .arg(&output),
        &format!("{label}: generating independent values"),
    )?;
    let names: BTreeMap<&str, &str> = ir
        .types
        .values()
        .filter_map(|definition| Some((definition.definition.as_deref()?, definition.name.as_str())))
        .collect();
    // Types that hold an extensible union: its catch-all keeps an unknown
    // variant whole, whatever the schema says inside it.
    let extensible = holding_catch_all(ir);
    let kept = Rc::new(Cell::new(0));
    let validators = Rc::new(Validators {
        document: schema.document.clone(),
        compiled: Default::default(),
    });
    let text = std::fs::read_to_string(&output).with_context(|| format!("reading {}", output.display()))?;
    let mut cases = Vec::new();
    let mut unbound = BTreeSet::new();
    let mut disagreements = Vec::new();
    for line in text.lines().filter(|line| !line.is_empty()) {
        let line: Value = serde_json::from_str(line).with_context(|| format!("reading {}", output.display()))?;
        let key = line["type"]
            .as_str()
            .context("a generated value without a type")?
            .to_owned();
        let Some(type_name) = names.get(key.as_str()) else {
            unbound.insert(key);
            continue;
        };
        let value = line["value"].clone();
        // Only where the two validators agree: ajv, and the `jsonschema` crate.
        let ajv_valid = line["kind"] == "valid";
        if validators.valid(&key, &value).map_err(|error| anyhow::anyhow!(error))? != ajv_valid {
            disagreements.push(format!(
                "{key} / {}: ajv says {}",
                line["name"].as_str().unwrap_or_default(),
                if ajv_valid { "valid" } else { "invalid" }
            ));
            continue;
        }
        let mut errors = strings(&line, "errors");
        // The bindings hold integers to their `format`'s range.
        errors.extend(strings(&line, "intFormatIssues"));
        let rules = Invalid {
            errors,
            repairable: strings(&line, "repairable").into_iter().collect(),
            skip_arrays: strings(&line, "skipArrays").into_iter().collect(),
        };
        let (kind, expected) = match line["kind"].as_str() {
            Some("valid") if rules.errors.is_empty() => (
                "valid",
                judge_valid(key.clone(), rules, value.clone(), validators.clone()),
            ),
            Some("valid" | "invalid") => {
                let kept_whole = (tolerant || extensible.contains(*type_name)).then(|| kept.clone());
                (
                    "invalid",
                    judge_invalid(key.clone(), rules, value.clone(), kept_whole, validators.clone()),
                )
            }
            other => bail!("a generated value of unknown kind {other:?}"),
        };
        let name = line["name"].as_str().unwrap_or_default().to_owned();
        let double_lossy = line["doubleLossy"] == true;
        cases.push(Case {
            type_name: (*type_name).to_owned(),
            name,
            kind,
            value,
            expected,
            double_lossy,
        });
    }
    let valid = cases.iter().filter(|case| case.kind == "valid").count();
    let invalid = cases.len() - valid;
    if !unbound.is_empty() {
        eprintln!(
            "{label}: {} `$defs` entries have no type of their own in the bindings: {unbound:?}",
            unbound.len()
        );
    }
    let failures = chain::run_cases(
        workspace,
        bindings,
        "independent",
        &cases,
        Compare {
            numbers: Numbers::ByValue,
            judge_rejections: true,
        },
    )?;
    for language in crate::registry::LANGUAGES {
        println!(
            "independent values {label}: {} tried {} ({valid} valid, {invalid} invalid)",
            language.name(),
            cases.len()
        );
    }
    println!(
        "independent values {label} ({}): {} of {} agree with ajv",
        chain::order(),
        cases.len() - failures.len(),
        cases.len()
    );
    if !disagreements.is_empty() {
        println!(
            "  left out: {} values on which ajv and the jsonschema crate disagree, such as {}",
            disagreements.len(),
            disagreements[..disagreements.len().min(3)].join("; ")
        );
    }
    // Counted when the first language is judged; the others must agree with it.
    println!(
        "  of the invalid ones, {} were kept as they came: read tolerantly, or held in an extensible union's catch-all",
        kept.get()
    );
    for failure in failures.iter().take(40) {
        println!("  {failure}");
    }
    if !failures.is_empty() {
        bail!(
            "{label}: {} of {} independent values were lost, changed or misjudged",
            failures.len(),
            cases.len()
        );
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
    fn a_repair_is_explained_only_where_a_rule_applies() {
        let invalid = Invalid {
            errors: vec!["/items/1".into()],
            repairable: ["/items/0".into(), "/items/1".into(), "/meta".into()].into(),
            skip_arrays: ["/items".into()].into(),
        };
        let input = json!({"items": [1, "x"], "meta": 5, "name": "n"});
        assert!(invalid.explains(&input, &json!({"items": [1], "name": "n"}), "", true));
        assert!(!invalid.explains(&input, &json!({"items": [1], "name": "n"}), "", false));
        assert!(!invalid.explains(&input, &json!({"items": [1], "meta": 5}), "", true));
        assert!(!invalid.explains(&input, &json!({"items": [1, "x", 3], "meta": 5, "name": "n"}), "", true));
    }
}
