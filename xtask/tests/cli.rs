//! The command line as a user meets it: determinism, one clear error with
//! file and pointer for bad input, a non-zero exit and no partial output.

#[path = "../../codegen/tests/support/snapshots.rs"]
mod snapshots;

#[path = "support/cli.rs"]
mod cli_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cli_support::{scratch, stderr, xtask};

/// Runs `schema` and `vectors` on `schema` and checks both fail with
/// `expected` in the message and leave nothing behind.
fn assert_rejected(folder: &Path, schema: &Path, extra: &[&str], expected: &[&str]) {
    let out_file = folder.join("out.json");
    let out_dir = folder.join("vectors");
    let schema = schema.to_str().unwrap();
    let runs = [
        xtask(
            &[
                &["schema", "--schema", schema, "--out", out_file.to_str().unwrap()],
                extra,
            ]
            .concat(),
        ),
        xtask(
            &[
                &["vectors", "--schema", schema, "--out", out_dir.to_str().unwrap()],
                extra,
            ]
            .concat(),
        ),
    ];
    for output in runs {
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let message = stderr(&output);
        assert!(message.starts_with("error: "), "{message}");
        assert_eq!(message.trim_end().lines().count(), 1, "one error line: {message}");
        for part in expected {
            assert!(message.contains(part), "{part:?} not in {message}");
        }
    }
    assert!(!out_file.exists() && !out_dir.exists(), "no output after an error");
    let leftovers: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(leftovers.len(), 1, "only the input is left: {leftovers:?}");
}

#[test]
fn help_matches_its_snapshot() {
    let output = xtask(&["--help"]);
    assert!(output.status.success());
    let actual = String::from_utf8(output.stdout).unwrap();
    snapshots::assert_snapshot(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/help.txt"),
        &actual,
    );
}

#[test]
fn update_snapshots_re_approves_only_when_1() {
    for value in ["0", "", "true"] {
        let output = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "help_matches_its_snapshot"])
            .env("UPDATE_SNAPSHOTS", value)
            .output()
            .expect("the test binary runs");
        assert!(
            !output.status.success(),
            "UPDATE_SNAPSHOTS={value:?} must fail the snapshot test"
        );
        let printed = String::from_utf8_lossy(&output.stdout);
        assert!(
            printed.contains("set it to exactly 1 to re-approve snapshots"),
            "{printed}"
        );
    }
}

#[test]
fn the_full_test_run_refuses_update_snapshots() {
    for value in ["1", "0"] {
        // Without the refusal, no tool it starts can be found: it fails at
        // once instead of running the whole suite (and this test) again.
        let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
            .arg("test")
            .env("UPDATE_SNAPSHOTS", value)
            .env("PATH", "")
            .env("CARGO", "/nonexistent/cargo")
            .output()
            .expect("xtask runs");
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let message = stderr(&output);
        assert!(message.starts_with("error: UPDATE_SNAPSHOTS is set"), "{message}");
        assert!(
            message.contains("UPDATE_SNAPSHOTS=1 cargo test --workspace"),
            "{message}"
        );
    }
}

#[test]
fn bench_refuses_a_directory_as_its_output_before_any_work() {
    let folder = scratch("bench-out");
    // Nothing it would start can be found: a refusal that came only after
    // the work began would fail with another message.
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["bench", "--quick", "--out"])
        .arg(&folder)
        .env("PATH", "")
        .env("CARGO", "/nonexistent/cargo")
        .output()
        .expect("xtask runs");
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let message = stderr(&output);
    assert!(
        message.starts_with("error: --out ") && message.contains("is a directory"),
        "{message}"
    );
    assert_eq!(message.trim_end().lines().count(), 1, "one error line: {message}");
    assert_eq!(
        std::fs::read_dir(&folder).unwrap().count(),
        0,
        "nothing written into {}",
        folder.display()
    );
}

#[test]
fn bench_quick_takes_no_peers() {
    let output = xtask(&["bench", "--quick", "--peers"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("cannot be used with"), "{}", stderr(&output));
}

#[test]
fn bench_of_some_languages_writes_no_page_and_takes_no_peers() {
    for arguments in [
        &["bench", "--lang", "python", "--peers"][..],
        &["bench", "--lang", "python", "--out", "page.md"][..],
    ] {
        let output = xtask(arguments);
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert!(stderr(&output).contains("cannot be used with"), "{}", stderr(&output));
    }
    let output = xtask(&["bench", "--lang", "cobol"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("python"), "{}", stderr(&output));
}

#[test]
fn schema_output_is_byte_identical_across_runs() {
    let folder = scratch("determinism");
    let (first, second) = (folder.join("first.json"), folder.join("second.json"));
    for path in [&first, &second] {
        let output = xtask(&["schema", "--out", path.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let bytes = std::fs::read(&first).unwrap();
    assert_eq!(bytes, std::fs::read(&second).unwrap());
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.contains("\"SessionReadyNotification\"") && text.contains("\"turn_complete\""));
    let without = folder.join("without.json");
    assert!(xtask(&["schema", "--no-rfd", "--out", without.to_str().unwrap()])
        .status
        .success());
    assert!(!std::fs::read_to_string(&without)
        .unwrap()
        .contains("SessionReadyNotification"));
}

#[test]
fn vectors_are_byte_identical_across_runs() {
    let folder = scratch("vectors");
    for name in ["a", "b"] {
        let output = xtask(&["vectors", "--out", folder.join(name).to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let count = assert_identical_trees(&folder.join("a"), &folder.join("b")).len();
    assert!(count > 200, "{count} files");
    assert!(folder.join("a/TurnCompleteUpdate.json").is_file());
}

#[test]
fn malformed_json_is_rejected_with_its_position() {
    let folder = scratch("malformed");
    let schema = folder.join("broken.json");
    std::fs::write(
        &schema,
        "{\n  \"$defs\": {\n    \"A\": {\"type\": \"string\",}\n  }\n}\n",
    )
    .unwrap();
    assert_rejected(
        &folder,
        &schema,
        &["--no-rfd"],
        &["broken.json", "not valid JSON (line 3"],
    );
}

#[test]
fn colliding_names_are_numbered_with_a_note_or_refused_with_strict_names() {
    let folder = scratch("collision");
    let schema = folder.join("collide.json");
    std::fs::write(&schema, r##"{"$defs": {"foo": {"type": "string"}, "Foo": {"type": "object", "properties": {"self": {"type": "string"}, "Self": {"type": "string"}}}}}"##).unwrap();
    let out = folder.join("bindings");
    let generated = xtask(&[
        "generate",
        "--no-rfd",
        "--schema",
        schema.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(generated.status.success(), "{}", stderr(&generated));
    let notes: Vec<String> = stderr(&generated)
        .lines()
        .filter(|line| line.starts_with("note: "))
        .map(str::to_owned)
        .collect();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].contains("collide.json#/$defs/foo: `foo` is named `Foo2`"),
        "{notes:?}"
    );
    assert!(
        notes[1].contains("collide.json#/$defs/Foo/properties/self: `self` is named `self_2`"),
        "{notes:?}"
    );
    let rust = std::fs::read_to_string(out.join("rust").join("src").join("types.rs")).unwrap();
    assert!(
        rust.contains("pub struct Foo {") && rust.contains("pub struct Foo2(") && rust.contains("pub self_2:"),
        "{rust}"
    );
    std::fs::remove_dir_all(&out).unwrap();
    assert_rejected(
        &folder,
        &schema,
        &["--no-rfd", "--strict-names"],
        &["collide.json#/$defs/foo", "--strict-names"],
    );
    // Every command that lowers honours it.
    let path = schema.to_str().unwrap();
    let unused = folder.join("unused.json");
    let unused = unused.to_str().unwrap();
    assert!(xtask(&["review", "--base", path, "--head", path]).status.success());
    for command in [
        vec!["review", "--base", path, "--head", path, "--strict-names"],
        vec![
            "negotiate",
            "--schema",
            path,
            "--no-rfd",
            "--strict-names",
            unused,
            unused,
        ],
        vec!["check-trace", "--schema", path, "--no-rfd", "--strict-names", unused],
    ] {
        let output = xtask(&command);
        assert_eq!(output.status.code(), Some(1), "{command:?}: {}", stderr(&output));
        assert!(
            stderr(&output).contains("--strict-names"),
            "{command:?}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn an_unknown_reference_is_rejected_with_its_pointer() {
    let folder = scratch("unknown-ref");
    let schema = folder.join("unknown.json");
    std::fs::write(
        &schema,
        r##"{"$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/Nowhere"}}}}}"##,
    )
    .unwrap();
    assert_rejected(
        &folder,
        &schema,
        &["--no-rfd"],
        &["unknown.json#/$defs/A/properties/b/$ref", "names no definition"],
    );
}

#[test]
fn a_reference_chain_back_to_itself_is_rejected() {
    let folder = scratch("cycle");
    let schema = folder.join("cycle.json");
    std::fs::write(
        &schema,
        r##"{"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}"##,
    )
    .unwrap();
    assert_rejected(
        &folder,
        &schema,
        &["--no-rfd"],
        &["cycle.json#/$defs/A", "only leads back to itself"],
    );
}

#[test]
fn an_overlay_that_does_not_apply_is_rejected_naming_the_overlay() {
    let folder = scratch("overlay");
    let schema = folder.join("small.json");
    std::fs::write(&schema, r##"{"$defs": {"SessionId": {"type": "string"}}}"##).unwrap();
    assert_rejected(
        &folder,
        &schema,
        &["--rfd", "session-ready"],
        &[
            "schema/rfd/session-ready.json: operation 0",
            "/$defs/SessionCapabilities/type",
            "precondition failed",
        ],
    );
}

#[test]
fn an_unknown_rfd_name_is_rejected() {
    let output = xtask(&["inspect", "--rfd", "session-teleport"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("unknown RFD overlay `session-teleport`"));
}

#[test]
fn a_directory_not_made_by_the_tool_is_never_replaced() {
    let folder = scratch("foreign");
    std::fs::write(folder.join("precious.txt"), "keep me").unwrap();
    let output = xtask(&["vectors", "--out", folder.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("was not written by this tool"));
    assert!(folder.join("precious.txt").is_file());
}

#[test]
fn inspect_reports_no_untyped_fallback_on_the_default() {
    let output = xtask(&["inspect"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("untyped fallbacks: 0"), "{text}");
    assert!(
        text.contains("overlays: session-ready, turn-complete, session-status"),
        "{text}"
    );
}

/// Every file under `folder`, by path relative to `root`, with its bytes, in
/// path order.
fn read_tree(root: &Path, folder: &Path, files: &mut Vec<(PathBuf, Vec<u8>)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            read_tree(root, &path, files);
        } else {
            files.push((
                path.strip_prefix(root).unwrap().to_path_buf(),
                std::fs::read(&path).unwrap(),
            ));
        }
    }
}

/// Checks that the folders `first` and `second` hold the same files, each
/// way round, with the same bytes; returns their relative paths.
fn assert_identical_trees(first: &Path, second: &Path) -> Vec<PathBuf> {
    let (mut first_files, mut second_files) = (Vec::new(), Vec::new());
    read_tree(first, first, &mut first_files);
    read_tree(second, second, &mut second_files);
    let paths = |files: &[(PathBuf, Vec<u8>)]| files.iter().map(|(path, _)| path.clone()).collect::<BTreeSet<_>>();
    let (first_paths, second_paths) = (paths(&first_files), paths(&second_files));
    let only_first: Vec<_> = first_paths.difference(&second_paths).collect();
    let only_second: Vec<_> = second_paths.difference(&first_paths).collect();
    assert!(
        only_first.is_empty() && only_second.is_empty(),
        "only in the first run: {only_first:?}; only in the second: {only_second:?}"
    );
    for ((path, first_bytes), (_, second_bytes)) in first_files.iter().zip(&second_files) {
        assert!(
            first_bytes == second_bytes,
            "{} differs between the runs",
            path.display()
        );
    }
    first_files.into_iter().map(|(path, _)| path).collect()
}

#[test]
fn generate_writes_identical_bytes_every_run() {
    let folder = scratch("generate");
    for name in ["first", "second"] {
        let output = xtask(&["generate", "--out", folder.join(name).to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let names: Vec<String> = assert_identical_trees(&folder.join("first"), &folder.join("second"))
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    for expected in [
        "rust/Cargo.toml",
        "rust/src/types.rs",
        "typescript/package.json",
        "python/pyproject.toml",
        "vectors/SessionUpdate.json",
    ] {
        assert!(
            names.iter().any(|name| name == expected),
            "{expected} missing from {names:?}"
        );
    }
}

#[test]
fn generate_renames_packages_on_request() {
    let folder = scratch("names");
    let out = folder.join("out");
    let output = xtask(&[
        "generate",
        "--lang",
        "rust",
        "--rust-crate",
        "my-acp",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(std::fs::read_to_string(out.join("rust/Cargo.toml"))
        .unwrap()
        .contains("name = \"my-acp\""));
    assert!(!out.join("typescript").exists(), "--lang rust writes only Rust");
    let output = xtask(&["generate", "--lang", "cobol", "--out", out.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("unknown language `cobol`"));
}

#[test]
fn review_writes_its_report_and_fails_on_the_level_asked() {
    let folder = scratch("review");
    let out = folder.join("review");
    let output = xtask(&[
        "review",
        "--base",
        "default",
        "--head",
        "default+turn-complete",
        "--out",
        out.to_str().unwrap(),
        "--fail-on",
        "warning",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("`VARIANT_ADDED_GATED` | `SessionUpdate[turn_complete]`"),
        "{printed}"
    );
    for file in ["review.md", "review.json", "bindings.diff"] {
        assert!(out.join(file).is_file(), "{file} not written");
    }
    let diff = std::fs::read_to_string(out.join("bindings.diff")).unwrap();
    assert!(
        diff.contains("+++ head/rust/src/types.rs") && diff.contains("TurnCompleteUpdate"),
        "the bindings diff misses the new type"
    );
    // An overlay file that adds a required member to a request breaks old senders.
    let overlay = folder.join("required-member.json");
    std::fs::write(
        &overlay,
        r#"{"id": "required-member", "title": "A required member", "status": "draft", "seed": "none",
            "patch": [{"op": "add", "path": "/$defs/PromptRequest/properties/priority", "value": {"type": "integer"}},
                      {"op": "add", "path": "/$defs/PromptRequest/required/-", "value": "priority"}]}"#,
    )
    .unwrap();
    let head = format!("default+{}", overlay.display());
    let output = xtask(&[
        "review",
        "--base",
        "default",
        "--head",
        &head,
        "--format",
        "json",
        "--fail-on",
        "breaking",
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let finding = &report["findings"][0];
    assert_eq!(
        (finding["rule"].as_str(), finding["subject"].as_str()),
        (Some("FIELD_REQUIRED_ADDED"), Some("PromptRequest.priority")),
        "{report}"
    );
    assert_eq!(
        finding["directions"],
        serde_json::json!({"client-to-agent": "breaking"})
    );
}

#[test]
fn review_rejects_a_source_it_cannot_read() {
    let output = xtask(&["review", "--base", "default", "--head", "default+no-such-rfd"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("unknown RFD overlay `no-such-rfd`"),
        "{}",
        stderr(&output)
    );
    let output = xtask(&["review", "--base", "missing.json", "--head", "default"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("missing.json: cannot read"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn review_names_an_overlay_that_conflicts_with_its_base() {
    let folder = scratch("review-conflict");
    let overlay = folder.join("again.json");
    std::fs::write(
        &overlay,
        r#"{"id": "again", "title": "Defines a type the base has", "status": "draft", "seed": "none",
            "patch": [{"op": "add", "path": "/$defs/PromptRequest", "value": {"type": "object"}}]}"#,
    )
    .unwrap();
    let head = format!("default+{}", overlay.display());
    let output = xtask(&["review", "--base", "default", "--head", &head, "--fail-on", "breaking"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        printed.contains("**Conflict**: overlay `again`") && printed.contains("/$defs/PromptRequest"),
        "{printed}"
    );
    assert!(printed.contains("`OVERLAY_CONFLICT`"), "{printed}");
}

// ---- negotiate ------------------------------------------------------------

fn write_pair(folder: &Path, request: &str, response: &str) -> (PathBuf, PathBuf) {
    let (request_file, response_file) = (folder.join("request.json"), folder.join("response.json"));
    std::fs::write(&request_file, request).unwrap();
    std::fs::write(&response_file, response).unwrap();
    (request_file, response_file)
}

fn negotiate(extra: &[&str], request: &Path, response: &Path) -> Output {
    xtask(
        &[
            &["negotiate"],
            extra,
            &[request.to_str().unwrap(), response.to_str().unwrap()],
        ]
        .concat(),
    )
}

#[test]
fn negotiate_prints_the_view_of_a_v1_pair() {
    let folder = scratch("negotiate-v1");
    let (request, response) = write_pair(
        &folder,
        r#"{"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true}, "plan": {}}}"#,
        r#"{"protocolVersion": 1, "agentCapabilities": {"promptCapabilities": {"image": true, "audio": null}, "sessionCapabilities": {"ready": {}}}}"#,
    );
    let output = negotiate(&[], &request, &response);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with("{\n  \"protocolVersion\": 1,\n  \"agentHandles\": {"),
        "pretty JSON in the shared order: {text}"
    );
    let view: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        view["prompt"],
        serde_json::json!({"audio": false, "embeddedContext": false, "image": true})
    );
    assert_eq!(
        (
            view["clientHandles"]["fs/read_text_file"].as_bool(),
            view["clientHandles"]["fs/write_text_file"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert_eq!(
        (
            view["updates"]["plan_update"].as_bool(),
            view["updates"]["notice"].as_bool()
        ),
        (Some(true), Some(false))
    );
    assert_eq!(
        (
            view["sessionReady"].as_bool(),
            view["turnComplete"].as_bool(),
            view["sessionStatus"].as_bool()
        ),
        (Some(true), Some(false), Some(false))
    );
    let without_rfds = negotiate(&["--no-rfd"], &request, &response);
    let view: serde_json::Value = serde_json::from_slice(&without_rfds.stdout).unwrap();
    assert_eq!(
        view["sessionReady"], false,
        "without the overlay there is no session/ready"
    );
    assert!(view["agentHandles"].get("session/ready").is_none());
}

#[test]
fn negotiate_reads_a_v2_schema() {
    let folder = scratch("negotiate-v2");
    let schema = folder.join("v2.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2-minimal.schema.json"),
        &schema,
    )
    .unwrap();
    let (request, response) = write_pair(
        &folder,
        r#"{"protocolVersion": 2, "capabilities": {}}"#,
        r#"{"protocolVersion": 2, "capabilities": {"session": {}}}"#,
    );
    let output = negotiate(&["--schema", schema.to_str().unwrap(), "--no-rfd"], &request, &response);
    assert!(output.status.success(), "{}", stderr(&output));
    let view: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(view["protocolVersion"], 2);
    assert_eq!(
        view["agentHandles"],
        serde_json::json!({"initialize": true, "session/delete": false, "session/new": true})
    );
}

/// `negotiate` fails with one error line naming `expected`, and prints nothing.
fn assert_negotiation_rejected(folder: &Path, request: &str, response: &str, expected: &[&str]) {
    let (request, response) = write_pair(folder, request, response);
    let output = negotiate(&[], &request, &response);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(output.stdout.is_empty(), "no partial output");
    let message = stderr(&output);
    assert!(
        message.starts_with("error: ") && message.trim_end().lines().count() == 1,
        "one error line: {message}"
    );
    for part in expected {
        assert!(message.contains(part), "{part:?} not in {message}");
    }
}

#[test]
fn negotiate_rejects_bad_input_naming_file_and_pointer() {
    let folder = scratch("negotiate-bad");
    let good = r#"{"protocolVersion": 1}"#;
    assert_negotiation_rejected(
        &folder,
        "{\n  \"protocolVersion\": 1,,\n}",
        good,
        &["request.json: not valid JSON (line 2"],
    );
    assert_negotiation_rejected(&folder, good, "[1]", &["response.json#(root)", "must be a JSON object"]);
    assert_negotiation_rejected(
        &folder,
        r#"{"protocolVersion": "one"}"#,
        good,
        &["request.json#/protocolVersion", "no integer protocolVersion"],
    );
    assert_negotiation_rejected(
        &folder,
        good,
        r#"{"protocolVersion": 2}"#,
        &["response.json#/protocolVersion", "above the 1 the client asked for"],
    );
    assert_negotiation_rejected(
        &folder,
        r#"{"protocolVersion": 3}"#,
        r#"{"protocolVersion": 2}"#,
        &["response.json#/protocolVersion", "these bindings implement 1"],
    );
    let missing = negotiate(&[], &folder.join("absent.json"), &folder.join("response.json"));
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        stderr(&missing).contains("absent.json: cannot read"),
        "{}",
        stderr(&missing)
    );
}

#[test]
fn test_filters_are_checked_before_any_work() {
    let output = xtask(&["test", "--lang", "rust", "--suite", "chain"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--suite chain runs on every language's bindings at once"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_unknown_suite_or_language_is_refused_with_the_known_ones() {
    let suites = [
        "workspace",
        "clippy",
        "format",
        "usage-size",
        "history",
        "handlers",
        "bindings",
        "negotiation",
        "chain",
        "independent",
        "captures",
        "mutation",
        "packages",
        "bench",
    ];
    // Every registered language, from the generator's registry.
    let languages: Vec<&str> = acp_generate::emit::LANGUAGES
        .iter()
        .map(|language| language.id)
        .collect();
    for (arguments, known) in [
        (vec!["test", "--suite", "nonsense"], &suites[..]),
        (vec!["test", "--lang", "cobol"], &languages[..]),
    ] {
        let output = xtask(&arguments);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {message}");
        assert!(
            message.contains(&format!("invalid value '{}'", arguments[2])),
            "{arguments:?}: {message}"
        );
        assert!(
            message.contains(&format!("[possible values: {}]", known.join(", "))),
            "{arguments:?}: {message}"
        );
    }
}
