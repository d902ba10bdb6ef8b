//! The `usage-size` suite: the usage programs against the official SDKs'
//! twins, by size. Each language's program written with our bindings must
//! take no more lines of code than the same program written with the
//! official SDK, which the language's suite compiles and runs beside it,
//! unless its registration says why it may ([`Usage::longer`], a reviewed
//! decision, and then it must still be longer, so the reason cannot outlive
//! the gap). The programs are the ones each registration in
//! [`crate::registry`] names. Lines of code are the lines that are not
//! blank, not comments and not docstrings. A unit test runs the same
//! comparison, so that `cargo test` catches a program grown too long.

use std::path::Path;

use anyhow::{ensure, Context, Result};

use crate::languages::Usage;
use crate::registry::LANGUAGES;

/// One language's two programs, by lines of code.
struct Sizes {
    language: &'static str,
    ours: usize,
    official: usize,
    longer: Option<&'static str>,
}

/// Compares every language's usage program with its twin, prints the
/// table, and fails naming each language whose program is longer without
/// a reason, or has a reason and is no longer longer.
pub fn run(workspace: &Path) -> Result<()> {
    let mut sizes = Vec::new();
    for language in LANGUAGES {
        let Some(Usage { ours, official, longer }) = &language.usage else {
            language.skipping("usage program", "the usage-size suite");
            continue;
        };
        let folder = workspace.join("tests").join(language.id());
        sizes.push(Sizes {
            language: language.name(),
            ours: size(&folder.join(ours))?,
            official: size(&folder.join(official))?,
            longer: *longer,
        });
    }
    let mut table = String::from("| language | ours | official | may be longer because |\n| --- | --- | --- | --- |\n");
    for Sizes {
        language,
        ours,
        official,
        longer,
    } in &sizes
    {
        table.push_str(&format!(
            "| {language} | {ours} | {official} | {} |\n",
            longer.unwrap_or("")
        ));
    }
    eprintln!("{table}");
    let wrong = misjudged(&sizes);
    ensure!(
        wrong.is_empty(),
        "longer than the official SDK's twin without a reason in the registration (`usage.longer`), or with one \
         and no longer longer: {wrong:?}\n{table}"
    );
    Ok(())
}

/// The languages whose program is longer than its twin without a reason,
/// or has a reason and is not longer.
fn misjudged(sizes: &[Sizes]) -> Vec<&'static str> {
    sizes
        .iter()
        .filter(|sizes| (sizes.ours > sizes.official) != sizes.longer.is_some())
        .map(|sizes| sizes.language)
        .collect()
}

/// The lines of code of the program at `path`.
fn size(path: &Path) -> Result<usize> {
    let source = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(lines_of_code(&source))
}

/// The lines of code of `source`: blank lines, `//` and `#` comment lines,
/// block-comment lines and Python docstrings (a statement that is only a
/// triple-quoted string) do not count.
fn lines_of_code(source: &str) -> usize {
    let mut count = 0;
    let mut in_docstring = false;
    for line in source.lines().map(str::trim) {
        if in_docstring {
            in_docstring = !line.ends_with("\"\"\"");
            continue;
        }
        if let Some(rest) = line.strip_prefix("\"\"\"") {
            in_docstring = !(rest.len() >= 3 && rest.ends_with("\"\"\""));
            continue;
        }
        let comment = ["//", "#", "/*", "*"].iter().any(|prefix| line.starts_with(prefix));
        if !line.is_empty() && !comment {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_skips_what_is_not_code() {
        let python =
            "\"\"\"Module\ndocstring.\"\"\"\n\nimport os\n# comment\ndef f():\n    \"\"\"One line.\"\"\"\n    return os\n";
        assert_eq!(lines_of_code(python), 3);
        let rust = "//! Docs\n/// More\nfn main() {\n    /* block\n     * comment */\n    let x = 1; // trailing\n}\n";
        assert_eq!(lines_of_code(rust), 3);
        let go = "// Package main.\npackage main\n\n// f does nothing.\nfunc f() {}\n";
        assert_eq!(lines_of_code(go), 2);
    }

    #[test]
    fn a_longer_program_needs_a_reason_and_a_reason_needs_a_longer_program() {
        let sizes = |language, ours, official, longer| Sizes {
            language,
            ours,
            official,
            longer,
        };
        let all = [
            sizes("shorter", 9, 10, None),
            sizes("as long", 10, 10, None),
            sizes("longer, with a reason", 11, 10, Some("why")),
            sizes("longer", 11, 10, None),
            sizes("as long, with a reason", 10, 10, Some("why")),
        ];
        assert_eq!(misjudged(&all), ["longer", "as long, with a reason"]);
    }

    #[test]
    fn every_usage_program_is_no_longer_than_its_twin() {
        run(&crate::support::tools::workspace_root()).unwrap();
    }
}
