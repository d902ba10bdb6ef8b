//! The usage programs against the official SDKs' twins, by size: each
//! language's program written with our bindings (`tests/rust/usage.rs`,
//! `tests/typescript/usage.ts`, `tests/python/usage_program.py`) must take
//! no more lines of code than the same program written with the official
//! SDK, which the language suites compile and run beside it, unless it is
//! in [`LONGER`] with the reason, a reviewed decision (and then it must
//! still be longer, so the entry cannot outlive the gap). Lines of code are
//! the lines that are not blank, not comments and not docstrings.

use std::path::Path;

/// (language, ours, the official twin), relative to `tests/`.
const PAIRS: [(&str, &str, &str); 3] = [
    ("Rust", "rust/usage.rs", "rust/usage_official.rs"),
    (
        "TypeScript",
        "typescript/usage.ts",
        "typescript/official/usage_official.ts",
    ),
    ("Python", "python/usage_program.py", "python/usage_official.py"),
];

/// Languages whose program may be longer than the official twin, and why.
const LONGER: [(&str, &str); 1] = [(
    "TypeScript",
    "the program joins its two ends by hand (each end's send passes the text to the other end's receive and records \
     it, for usage-wire.mjs's round-trip check of every message on the wire), where the official SDK's client \
     connects to its agent in process without a wire",
)];

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

#[test]
fn the_counter_skips_what_is_not_code() {
    let python =
        "\"\"\"Module\ndocstring.\"\"\"\n\nimport os\n# comment\ndef f():\n    \"\"\"One line.\"\"\"\n    return os\n";
    assert_eq!(lines_of_code(python), 3);
    let rust = "//! Docs\n/// More\nfn main() {\n    /* block\n     * comment */\n    let x = 1; // trailing\n}\n";
    assert_eq!(lines_of_code(rust), 3);
}

#[test]
fn each_usage_program_is_no_longer_than_its_official_twin() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("tests");
    let mut table = String::from("| language | ours | official |\n| --- | --- | --- |\n");
    let mut wrong = Vec::new();
    for (language, ours, official) in PAIRS {
        let [ours, official] = [ours, official].map(|path| {
            lines_of_code(&std::fs::read_to_string(tests.join(path)).unwrap_or_else(|error| panic!("{path}: {error}")))
        });
        table.push_str(&format!("| {language} | {ours} | {official} |\n"));
        let allowed = LONGER.iter().any(|(longer, _)| *longer == language);
        if (ours > official) != allowed {
            wrong.push(language);
        }
    }
    println!("{table}");
    assert!(
        wrong.is_empty(),
        "longer than the official SDK's twin, or listed in LONGER and no longer longer: {wrong:?}\n{table}"
    );
}
