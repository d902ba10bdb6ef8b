//! The cross-language chain: every vector goes through every language in
//! [`LANGUAGES`] order and the first again (Rust, TypeScript, Python, Go
//! and Rust again; each step as the language's registration says), and each
//! language's verdict must equal the one
//! before it: accepted and re-encoded to the same JSON, or rejected at the
//! same JSON pointer. A valid vector is passed on as the previous language
//! re-encoded it; an invalid or lenient one is given to every language as
//! written, so each language must reject it (at the vector's pointer) or
//! repair it (to the vector's `expected`) by itself. The first step is
//! compared with the vector. Numbers compare exactly: `1` is not `1.0`.
//! A disagreement names the type, the vector and the two languages.
//! [`run_cases`] runs the same chain on cases from elsewhere (the
//! independent values of [`crate::suites::independent`]), whose first step may be
//! judged by a rule instead of compared with one verdict.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::languages::LanguageTests;
use crate::registry::LANGUAGES;
use crate::support::tools::run_checked;

/// One language step of the chain: `program arguments... in.jsonl out.jsonl`.
struct Step {
    language: &'static LanguageTests,
    program: PathBuf,
    arguments: Vec<PathBuf>,
}

impl Step {
    fn command(&self, input: &Path, output: &Path) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.arguments).arg(input).arg(output);
        command
    }
}

/// What a language made of one input line.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Accepted(Value),
    Rejected { pointer: String },
}

impl Verdict {
    fn of(line: &Value) -> Result<Verdict> {
        match (
            line.get("value"),
            line.get("error"),
            line.get("pointer").and_then(Value::as_str),
        ) {
            (Some(value), None, _) => Ok(Verdict::Accepted(value.clone())),
            (None, Some(_), Some(pointer)) => Ok(Verdict::Rejected {
                pointer: pointer.to_owned(),
            }),
            _ => bail!("a result line is neither a value nor an error with a pointer: {line}"),
        }
    }

    fn agrees(&self, other: &Verdict, compare: Compare) -> bool {
        match (self, other) {
            (Verdict::Accepted(left), Verdict::Accepted(right)) => same_value(left, right, compare.numbers),
            (left, right) => left == right,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Verdict::Accepted(value) => format!("accepts it as {value}"),
            Verdict::Rejected { pointer } => format!("rejects it at {pointer:?}"),
        }
    }
}

/// How numbers compare along the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbers {
    /// Exactly as written: `1` is not `1.0`, integers beyond 2^53 exactly.
    Exact,
    /// By value, as JSON Schema compares them (`1` is `1.0`, `-0.0` is
    /// `0`), integers exactly but in the TypeScript step, which reads every
    /// number as a double (`codegen/DECODING.md`).
    ByValue,
    /// By value as doubles: the TypeScript step under [`Numbers::ByValue`].
    Doubles,
}

/// How two languages' verdicts must agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compare {
    pub numbers: Numbers,
    /// A rejection after a rejection is judged by the case's [`Expected`]
    /// instead of compared with the one before it: of a value with several
    /// errors, or one inside a union, languages may name different ones.
    /// Otherwise two rejections agree only at the same pointer.
    pub judge_rejections: bool,
}

impl Compare {
    /// Exactly: numbers as written, rejections at the same pointer.
    pub const EXACT: Compare = Compare {
        numbers: Numbers::Exact,
        judge_rejections: false,
    };
}

/// Whether one JSON pointer is the other or lies inside it.
pub fn related(left: &str, right: &str) -> bool {
    let inside = |outer: &str, inner: &str| {
        inner == outer || (inner.starts_with(outer) && inner.as_bytes().get(outer.len()) == Some(&b'/'))
    };
    inside(left, right) || inside(right, left)
}

/// A judge of a verdict: `Err` says why it is wrong.
pub type Judge = Box<dyn Fn(&Verdict) -> Result<(), String>>;

/// What the first language must make of a case.
pub enum Expected {
    /// Exactly this verdict.
    Verdict(Verdict),
    /// A verdict this judge accepts.
    Judged(Judge),
}

impl Expected {
    fn judge(&self, verdict: &Verdict, compare: Compare) -> Result<(), String> {
        match self {
            Expected::Verdict(expected) if verdict.agrees(expected, compare) => Ok(()),
            Expected::Verdict(expected) => Err(format!("the vector {} but", expected.describe())),
            Expected::Judged(judge) => judge(verdict),
        }
    }
}

/// One case of the chain: its origin, its input and what it must become.
/// A `valid` case is passed on as the previous language re-encoded it; any
/// other is given to every language as written. A case with a number text
/// TypeScript reads as another (an integer a double cannot hold, `1.0` read
/// as `1`: `codegen/DECODING.md`) skips that step.
pub struct Case {
    pub type_name: String,
    pub name: String,
    pub kind: &'static str,
    pub value: Value,
    pub expected: Expected,
    pub double_lossy: bool,
}

/// The vectors of the chain must cover at least this many of each kind; a
/// vector folder that lost most of its vectors fails instead of passing.
const MINIMUM: [(&str, usize); 3] = [("valid", 100), ("invalid", 50), ("lenient", 1)];

/// The chain's steps: every language in [`LANGUAGES`] order, then the first
/// again.
fn chain_order() -> impl Iterator<Item = &'static LanguageTests> {
    LANGUAGES.iter().chain(LANGUAGES.first()).copied()
}

/// The chain's languages by name, as its summaries print them (`Rust ->
/// TypeScript -> Python -> Go -> Rust`).
pub fn order() -> String {
    chain_order().map(LanguageTests::name).collect::<Vec<_>>().join(" -> ")
}

pub fn run(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let cases = load_cases(&bindings.join("vectors"))?;
    let failures = run_cases(workspace, bindings, "chain", &cases, Compare::EXACT)?;
    let passed = cases.len() - failures.len();
    println!("chain {label} ({}): {passed} of {} vectors agree", order(), cases.len());
    for failure in failures.iter().take(40) {
        println!("  {failure}");
    }
    if !failures.is_empty() {
        bail!(
            "{} of {} vectors changed along the chain for {label}",
            failures.len(),
            cases.len()
        );
    }
    Ok(())
}

/// Runs `cases` through the chain's languages ([`chain_order`]) in the
/// folder `bindings/<name>`: the first step is judged by each case's
/// [`Expected`], every later one must agree with the step before it. Gives
/// one line per case that failed, naming the type, the case and the two
/// languages.
pub fn run_cases(
    workspace: &Path,
    bindings: &Path,
    name: &str,
    cases: &[Case],
    compare: Compare,
) -> Result<Vec<String>> {
    let folder = bindings.join(name);
    std::fs::create_dir_all(&folder)?;
    let label = bindings
        .file_name()
        .map(|label| label.to_string_lossy().into_owned())
        .unwrap_or_default();
    let steps: Vec<Step> = chain_order()
        .map(|language| {
            let (program, arguments) = (language.chain_step)(workspace, bindings);
            Step {
                language,
                program,
                arguments,
            }
        })
        .collect();
    let mut previous: Vec<Option<Verdict>> = cases.iter().map(|_| None).collect();
    let mut previous_name = "";
    let mut failures = Vec::new();
    let mut broken = vec![false; cases.len()];
    for (index, step) in steps.iter().enumerate() {
        let inputs: Vec<Value> = cases
            .iter()
            .zip(&previous)
            .map(|(case, verdict)| match verdict {
                Some(Verdict::Accepted(value)) if case.kind == "valid" => {
                    json!({"type": case.type_name, "value": value})
                }
                _ => json!({"type": case.type_name, "value": case.value}),
            })
            .collect();
        let input = write_lines(&folder.join(format!("{index}-in.jsonl")), &inputs)?;
        let output = folder.join(format!("{}-{}.jsonl", index + 1, step.language.id()));
        run_checked(
            &mut step.command(&input, &output),
            &format!("the {} step of the chain for {label}", step.language.name()),
        )?;
        let results = read_lines(&output)?;
        if results.len() != cases.len() {
            bail!(
                "the {} step returned {} lines for {} inputs",
                step.language.name(),
                results.len(),
                cases.len()
            );
        }
        let mut verdicts: Vec<Verdict> = results
            .iter()
            .map(Verdict::of)
            .collect::<Result<_>>()
            .with_context(|| format!("reading {}", output.display()))?;
        let doubles = step.language.numbers_as_doubles;
        let compare = if doubles && compare.numbers == Numbers::ByValue {
            Compare {
                numbers: Numbers::Doubles,
                ..compare
            }
        } else {
            compare
        };
        for (position, (verdict, before)) in verdicts.iter_mut().zip(&previous).enumerate() {
            let case = &cases[position];
            if doubles && case.double_lossy {
                if let Some(before) = before {
                    *verdict = before.clone();
                }
            }
            if broken[position] {
                continue;
            }
            let judged = match before {
                Some(before) if verdict.agrees(before, compare) => Ok(()),
                Some(Verdict::Rejected { .. })
                    if compare.judge_rejections && matches!(verdict, Verdict::Rejected { .. }) =>
                {
                    case.expected.judge(verdict, compare)
                }
                Some(before) => Err(format!("{previous_name} {} but", before.describe())),
                None => case.expected.judge(verdict, compare),
            };
            if let Err(reason) = judged {
                failures.push(format!(
                    "{} / {}: {reason} {} {}",
                    case.type_name,
                    case.name,
                    step.language.name(),
                    verdict.describe()
                ));
                broken[position] = true;
            }
        }
        previous = verdicts.into_iter().map(Some).collect();
        previous_name = step.language.name();
    }
    Ok(failures)
}

/// JSON equality, object member order aside, numbers as `numbers` says
/// ([`Numbers::Exact`]: integers as integers, beyond 2^53 too, and `1`
/// differs from `1.0`).
pub fn same_value(left: &Value, right: &Value, numbers: Numbers) -> bool {
    match (left, right) {
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(a, b)| same_value(a, b, numbers))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(key, value)| right.get(key).is_some_and(|other| same_value(value, other, numbers)))
        }
        (Value::Number(left), Value::Number(right)) => match numbers {
            Numbers::Exact => left == right,
            Numbers::ByValue if !left.is_f64() && !right.is_f64() => left == right,
            Numbers::ByValue | Numbers::Doubles => left.as_f64() == right.as_f64(),
        },
        _ => left == right,
    }
}

/// Every vector of the folder, failing when a kind has fewer than
/// [`MINIMUM`] or a type has no valid vector.
fn load_cases(folder: &Path) -> Result<Vec<Case>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|path| path.extension().is_some_and(|extension| extension == "json"));
    paths.sort();
    let mut cases = Vec::new();
    for path in paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)
            .with_context(|| format!("reading {}", path.display()))?;
        let type_name = file["type"]
            .as_str()
            .with_context(|| format!("{}: no type name", path.display()))?
            .to_owned();
        let list = |kind: &str| {
            file[kind]
                .as_array()
                .cloned()
                .with_context(|| format!("{}: no {kind} list", path.display()))
        };
        let valid = list("valid")?;
        if valid.is_empty() {
            bail!("{}: no valid vector", path.display());
        }
        let mut push = |vector: &Value, kind: &'static str, expected: Expected| {
            let name = vector["name"].as_str().unwrap_or_default().to_owned();
            cases.push(Case {
                type_name: type_name.clone(),
                name,
                kind,
                value: vector["value"].clone(),
                expected,
                double_lossy: false,
            });
        };
        for vector in &valid {
            push(
                vector,
                "valid",
                Expected::Verdict(Verdict::Accepted(vector["value"].clone())),
            );
        }
        for vector in &list("invalid")? {
            let pointer = vector["pointer"]
                .as_str()
                .with_context(|| format!("{}: an invalid vector without a pointer", path.display()))?;
            push(
                vector,
                "invalid",
                Expected::Verdict(Verdict::Rejected {
                    pointer: pointer.to_owned(),
                }),
            );
        }
        for vector in &list("lenient")? {
            push(
                vector,
                "lenient",
                Expected::Verdict(Verdict::Accepted(vector["expected"].clone())),
            );
        }
    }
    for (kind, minimum) in MINIMUM {
        let count = cases.iter().filter(|case| case.kind == kind).count();
        if count < minimum {
            bail!(
                "{}: {count} {kind} vectors, fewer than the chain's minimum of {minimum}",
                folder.display()
            );
        }
    }
    Ok(cases)
}

fn write_lines(path: &Path, lines: &[Value]) -> Result<PathBuf> {
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(path, text)?;
    Ok(path.to_path_buf())
}

fn read_lines(path: &Path) -> Result<Vec<Value>> {
    std::fs::read_to_string(path)?
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).with_context(|| format!("reading {}", path.display())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_exactly() {
        assert!(!same_value(&json!(1), &json!(1.0), Numbers::Exact));
        assert!(!same_value(
            &json!(9007199254740993u64),
            &json!(9007199254740992u64),
            Numbers::Exact
        ));
        assert!(same_value(
            &json!({"a": [1, 2.5], "b": null}),
            &json!({"b": null, "a": [1, 2.5]}),
            Numbers::Exact
        ));
    }

    #[test]
    fn a_rejection_agrees_only_at_the_same_pointer() {
        let at = |pointer: &str| Verdict::Rejected {
            pointer: pointer.to_owned(),
        };
        assert!(at("/a").agrees(&at("/a"), Compare::EXACT));
        assert!(!at("/a").agrees(&at(""), Compare::EXACT));
        assert!(!at("/a").agrees(&Verdict::Accepted(json!({"a": 1})), Compare::EXACT));
        assert!(related("/a/b", "/a") && related("", "/a"));
        assert!(!related("/a", "/ab"));
    }

    #[test]
    fn numbers_compare_by_value_with_integers_exact_but_as_doubles() {
        assert!(same_value(&json!({"a": 1}), &json!({"a": 1.0}), Numbers::ByValue));
        assert!(same_value(&json!(-0.0), &json!(0), Numbers::ByValue));
        assert!(!same_value(
            &json!(9007199254740993u64),
            &json!(9007199254740992u64),
            Numbers::ByValue
        ));
        assert!(same_value(
            &json!(9007199254740993u64),
            &json!(9007199254740992u64),
            Numbers::Doubles
        ));
        assert!(!same_value(&json!(1.5), &json!(1), Numbers::Doubles));
    }
}
