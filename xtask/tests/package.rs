//! `cargo xtask package` on bad input: one error line, exit code 1, and no
//! artifact (every case fails before anything is built). The packages
//! themselves are built, installed and used by `cargo xtask test`.

#[path = "support/cli.rs"]
mod cli_support;

use std::path::Path;

use cli_support::{scratch, stderr, xtask};

/// Runs `package` with `arguments` and `--out out`; checks the one error
/// line holds each of `expected`.
fn refused(out: &Path, arguments: &[&str], expected: &[&str]) {
    let out = out.to_str().expect("a UTF-8 path");
    let output = xtask(&[&["package"], arguments, &["--out", out]].concat());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{message}");
    assert!(message.starts_with("error: "), "{message}");
    assert_eq!(message.trim_end().lines().count(), 1, "one error line: {message}");
    for part in expected {
        assert!(message.contains(part), "`{part}` in {message}");
    }
}

#[test]
fn an_unknown_rfd_is_refused_and_nothing_is_written() {
    let folder = scratch("rfd");
    let out = folder.join("out");
    refused(&out, &["--rfd", "no-such-rfd"], &["no-such-rfd"]);
    assert!(!out.exists());
}

#[test]
fn a_version_that_is_not_major_minor_patch_is_refused() {
    let folder = scratch("version");
    let out = folder.join("out");
    for version in ["1.0", "1.2.3-rc.1", "1.2.3+local", "01.2.3", "latest"] {
        refused(&out, &["--version", version], &["--version", &format!("`{version}`")]);
        assert!(!out.exists(), "{version}");
    }
}

#[test]
fn a_schema_file_needs_a_version() {
    let folder = scratch("schema");
    let schema = folder.join("schema.json");
    std::fs::write(&schema, r#"{"$defs": {}}"#).unwrap();
    let out = folder.join("out");
    refused(
        &out,
        &["--schema", schema.to_str().unwrap(), "--no-rfd"],
        &["--version"],
    );
    assert!(!out.exists());
}

#[test]
fn a_go_module_path_that_does_not_carry_the_major_version_is_refused() {
    let folder = scratch("go-module");
    let out = folder.join("out");
    refused(
        &out,
        &["--no-rfd", "--version", "2.0.0"],
        &[
            "--version 2.0.0",
            "--go-module",
            "`github.com/acp-codegen/acp-bindings-go/v2`",
        ],
    );
    assert!(!out.exists());
    refused(
        &out,
        &["--no-rfd", "--version", "1.4.0", "--go-module", "example.com/acp/v2"],
        &["--version 1.4.0", "`example.com/acp`", "v1.4.0"],
    );
    assert!(!out.exists());
}

#[test]
fn an_output_folder_that_is_a_file_is_refused_and_left_alone() {
    let folder = scratch("file");
    let out = folder.join("out");
    std::fs::write(&out, "mine\n").unwrap();
    refused(&out, &[], &["--out", "a file"]);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine\n");
}

#[test]
fn the_python_package_requires_the_pydantic_release_it_is_tested_with() {
    let requirements = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/python/requirements.txt");
    let pinned = format!("pydantic=={}", acp_generate::emit::python::PYDANTIC_TESTED);
    let text = std::fs::read_to_string(requirements).unwrap();
    assert!(
        text.lines().any(|line| line == pinned),
        "{pinned} in tests/python/requirements.txt"
    );
}
