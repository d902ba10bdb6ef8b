//! The mutation check: proof that each language's vector suite bites. For
//! every language, a copy of the default schema's bindings is broken on
//! purpose in one generated file (a `roundtrip` that returns its input, an
//! error that names no JSON pointer, and the bug classes real agents'
//! messages showed: `null` in any JSON written back as absent, a tag no
//! variant claims refused by the default variant that takes it, a member
//! read by its attribute name), and that language's vector suite must
//! fail on it. A mutation whose text no longer occurs exactly once in the
//! generated file is an error, so the check cannot quietly test nothing.
//! `cargo xtask test` runs it after the suites passed on the real bindings,
//! and prints how many vectors each mutant failed.

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::support::tools::copy_tree;

/// One deliberate bug in one generated file.
struct Mutant {
    language: &'static str,
    name: &'static str,
    /// The file, relative to the bindings folder.
    file: &'static str,
    find: &'static str,
    replace: &'static str,
}

const MUTANTS: &[Mutant] = &[
    Mutant {
        language: "rust",
        name: "roundtrip returns its input",
        file: "rust/src/by_name.rs",
        find: "    let decoded: T = decode_nested(json.clone())?;\n",
        replace: "    return Ok(json.clone());\n    let decoded: T = decode_nested(json.clone())?;\n",
    },
    Mutant {
        language: "rust",
        name: "errors name no pointer",
        file: "rust/src/codec.rs",
        find: "located(path, error.into_inner().to_string())",
        replace: "DecodeError { path: ::std::string::String::new(), ..located(path, error.into_inner().to_string()) }",
    },
    Mutant {
        language: "typescript",
        name: "roundtrip returns its input",
        file: "typescript/dist/index.js",
        find: "    const result = decodeByName(typeName, json);\n",
        replace: "    return json;\n    const result = decodeByName(typeName, json);\n",
    },
    Mutant {
        language: "typescript",
        name: "errors name no pointer",
        file: "typescript/dist/runtime.js",
        find: "    constructor(typeName, issues) {\n",
        replace:
            "    constructor(typeName, issues) {\n        issues = issues.map((issue) => ({ ...issue, path: \"\" }));\n",
    },
    Mutant {
        language: "python",
        name: "roundtrip returns its input",
        file: "python/acp_bindings/codec.py",
        find: "    return encode(annotation, decode_with(annotation, value))\n",
        replace: "    return value\n",
    },
    Mutant {
        language: "python",
        name: "errors name no pointer",
        file: "python/acp_bindings/_runtime.py",
        find: "        super().__init__(f\"{path or '/'}: {message}\")\n",
        replace: "        path = \"\"\n        super().__init__(f\"{path or '/'}: {message}\")\n",
    },
    Mutant {
        language: "rust",
        name: "null in any JSON written back as absent",
        file: "rust/src/codec.rs",
        find: "    Ok(Some(value))\n",
        replace: "    Ok(Some(value).filter(|value| !value.is_null()))\n",
    },
    Mutant {
        language: "typescript",
        name: "the default variant refuses an unclaimed tag",
        file: "typescript/dist/runtime.js",
        find: "const fallback = defaultOpen ? untagged : null;",
        replace: "const fallback = null;",
    },
    Mutant {
        language: "python",
        name: "wire members read by attribute name too",
        file: "python/acp_bindings/_runtime.py",
        find: "        validate_by_name=False,\n",
        replace: "        validate_by_name=True,\n",
    },
];

/// Runs every mutant of the bindings in `bindings` (the default schema's,
/// already tested) and fails if a suite passes on a mutant.
pub fn run(workspace: &Path, bindings: &Path) -> Result<()> {
    for (index, mutant) in MUTANTS.iter().enumerate() {
        let folder = workspace
            .join("target")
            .join("mutants")
            .join(format!("{index}-{}", mutant.language));
        if folder.exists() {
            std::fs::remove_dir_all(&folder).with_context(|| format!("removing {}", folder.display()))?;
        }
        copy_tree(&bindings.join(mutant.language), &folder.join(mutant.language))?;
        copy_tree(&bindings.join("vectors"), &folder.join("vectors"))?;
        std::fs::copy(bindings.join("negotiation.json"), folder.join("negotiation.json"))
            .context("copying the negotiation cases")?;
        let label = format!("mutant {index}");
        let path = folder.join(mutant.file);
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let occurrences = text.matches(mutant.find).count();
        if occurrences != 1 {
            bail!(
                "mutant `{}` ({}): its text occurs {occurrences} times in {}, not once: update the mutant",
                mutant.name,
                mutant.language,
                mutant.file
            );
        }
        std::fs::write(&path, text.replacen(mutant.find, mutant.replace, 1))
            .with_context(|| format!("writing {}", path.display()))?;
        let outcome = match mutant.language {
            "rust" => crate::suites::rust::vector_suite(workspace, &folder)?,
            "typescript" => crate::suites::typescript::vector_suite(workspace, &folder, &label)?,
            "python" => crate::suites::python::vector_suite(workspace, &folder, &label)?,
            other => bail!("no vector suite for the language {other}"),
        };
        let summary = summary_line(mutant.language, &outcome.output);
        if outcome.passed {
            bail!(
                "the {} vector suite passes on the mutant `{}`: it does not test what it claims\n{}",
                mutant.language,
                mutant.name,
                outcome.output
            );
        }
        println!("mutant {} / {}: caught ({summary})", mutant.language, mutant.name);
    }
    Ok(())
}

/// The line of a suite's output that counts passed and failed tests.
fn summary_line(language: &str, output: &str) -> String {
    let found = match language {
        "rust" => output.lines().find(|line| line.starts_with("rust vectors:")),
        "typescript" => output.lines().find(|line| line.contains("vectors passed:")),
        _ => output
            .lines()
            .rev()
            .find(|line| line.contains(" failed") || line.contains(" passed")),
    };
    found.map_or_else(
        || "no summary line".to_owned(),
        |line| line.trim_start_matches("# ").trim().to_owned(),
    )
}
