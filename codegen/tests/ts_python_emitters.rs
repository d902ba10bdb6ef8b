//! The TypeScript, Python and Go emitters on the small fixtures: reviewed
//! snapshots of the generated types of each (re-approve with
//! `UPDATE_SNAPSHOTS=1`), as `rust_emitter.rs` keeps the Rust ones;
//! `cargo xtask test` type-checks and tests the packages generated from the
//! real schemas.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::path::{Path, PathBuf};

use acp_generate::emit::{go, python, typescript, PackageNames};
use acp_ir::lower::{lower, Unsupported};

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn fixture_ir(name: &str) -> acp_ir::Ir {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join(format!("{name}.json"))).unwrap();
    let schema = acp_schema_source::extend(format!("fixtures/{name}.json"), document, &[], false).unwrap();
    lower(&schema, Unsupported::Fail).unwrap()
}

/// Compares the file `path` of the files emitted for `fixture` with its
/// snapshot `<fixture>.<snapshot>.txt`.
fn check(fixture: &str, files: &[(PathBuf, String)], path: &str, snapshot: &str) {
    let text = &files
        .iter()
        .find(|(file, _)| file == Path::new(path))
        .unwrap_or_else(|| panic!("{fixture}: no {path}"))
        .1;
    snapshots::assert_snapshot(
        &here().join("snapshots").join(format!("{fixture}.{snapshot}.txt")),
        text,
    );
}

#[test]
fn typescript_types_of_the_fixtures() {
    for fixture in ["fields", "open-enum-and-unions", "any-json-member"] {
        let files = typescript::emit(&fixture_ir(fixture), &PackageNames::default()).unwrap();
        check(fixture, &files, "src/types.ts", "types.ts");
    }
}

#[test]
fn python_models_of_the_fixtures() {
    for fixture in ["fields", "open-enum-and-unions", "any-json-member"] {
        let files = python::emit(&fixture_ir(fixture), &PackageNames::default()).unwrap();
        let models = files
            .iter()
            .find(|(path, _)| path.ends_with("models.py"))
            .map(|(path, _)| path.display().to_string())
            .unwrap();
        check(fixture, &files, &models, "models.py");
    }
}

#[test]
fn go_types_of_the_fixtures() {
    for fixture in ["fields", "open-enum-and-unions", "any-json-member"] {
        let files = go::emit(&fixture_ir(fixture), &PackageNames::default()).unwrap();
        check(fixture, &files, "types.go", "types.go");
    }
}
