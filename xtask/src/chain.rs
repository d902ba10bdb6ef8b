//! The cross-language chain: every valid vector is decoded and re-encoded by
//! Rust, the result by TypeScript, that by Python, and that by Rust again,
//! and must end equal to the start. A disagreement names the type, the
//! vector and the two languages between which the value changed.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::test_command::run_checked;

/// One language step of the chain: `program arguments... in.jsonl out.jsonl`.
struct Step {
    language: &'static str,
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

pub fn run(workspace: &Path, bindings: &Path, label: &str) -> Result<()> {
    let folder = bindings.join("chain");
    std::fs::create_dir_all(&folder)?;
    let (names, start) = valid_vectors(&bindings.join("vectors"))?;
    let rust = || Step { language: "Rust", program: crate::test_rust::batch_program(workspace), arguments: Vec::new() };
    let steps = [
        rust(),
        Step {
            language: "TypeScript",
            program: PathBuf::from("node"),
            arguments: vec![workspace.join("tests/typescript/roundtrip-batch.mjs"), bindings.to_path_buf()],
        },
        Step {
            // The Python suite, which runs before the chain, made this environment.
            language: "Python",
            program: workspace.join(".tools").join("venv").join("bin").join("python"),
            arguments: vec![workspace.join("tests/python/roundtrip_batch.py"), bindings.to_path_buf()],
        },
        rust(),
    ];
    let mut current = write_lines(&folder.join("0-start.jsonl"), &start)?;
    let mut values = start.clone();
    let mut previous = "the vector";
    let mut failures = Vec::new();
    let mut broken = vec![false; start.len()];
    for (index, step) in steps.iter().enumerate() {
        let output = folder.join(format!("{}-{}.jsonl", index + 1, step.language.to_lowercase()));
        run_checked(&mut step.command(&current, &output), &format!("the {} step of the chain for {label}", step.language))?;
        let results = read_lines(&output)?;
        if results.len() != values.len() {
            bail!("the {} step returned {} lines for {} inputs", step.language, results.len(), values.len());
        }
        for (position, (result, input)) in results.iter().zip(&values).enumerate() {
            if broken[position] {
                continue;
            }
            let type_name = input["type"].as_str().unwrap_or_default();
            if let Some(error) = result.get("error") {
                failures.push(format!("{type_name} / {}: {} rejects what {previous} produced: {error}", names[position], step.language));
                broken[position] = true;
            } else if !same_json(&result["value"], &input["value"]) {
                failures.push(format!(
                    "{type_name} / {}: {previous} and {} disagree: {} became {}",
                    names[position], step.language, input["value"], result["value"]
                ));
                broken[position] = true;
            }
        }
        values = results;
        current = output;
        previous = step.language;
    }
    let passed = broken.iter().filter(|failed| !**failed).count();
    println!("chain {label} (Rust -> TypeScript -> Python -> Rust): {passed} passed, {} failed", failures.len());
    for failure in failures.iter().take(40) {
        println!("  {failure}");
    }
    if !failures.is_empty() {
        bail!("{} of {} vectors changed along the chain for {label}", failures.len(), start.len());
    }
    Ok(())
}

/// JSON equality as the data model has it: numbers compare by value, so
/// `1.0` and `1` are the same number.
fn same_json(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => left == right || left.as_f64() == right.as_f64(),
        (Value::Array(left), Value::Array(right)) => left.len() == right.len() && left.iter().zip(right).all(|(a, b)| same_json(a, b)),
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len() && left.iter().all(|(key, value)| right.get(key).is_some_and(|other| same_json(value, other)))
        }
        _ => left == right,
    }
}

/// Every valid vector as a `{"type", "value"}` line, with its name.
fn valid_vectors(folder: &Path) -> Result<(Vec<String>, Vec<Value>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|path| path.extension().is_some_and(|extension| extension == "json"));
    paths.sort();
    let (mut names, mut lines) = (Vec::new(), Vec::new());
    for path in paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&path)?).with_context(|| format!("reading {}", path.display()))?;
        for vector in file["valid"].as_array().into_iter().flatten() {
            names.push(vector["name"].as_str().unwrap_or_default().to_owned());
            lines.push(json!({"type": file["type"], "value": vector["value"]}));
        }
    }
    Ok((names, lines))
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
