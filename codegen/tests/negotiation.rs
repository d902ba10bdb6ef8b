//! The negotiation stage's three emitter modules: the files each language
//! prints for a small fixture (one gated method per side, one gated
//! content block), as reviewed snapshots (re-approve with
//! `UPDATE_SNAPSHOTS=1`), and none for a schema without `initialize`; and
//! that the fixture states every gate it has. The model itself is tested
//! in `codegen/ir/tests/negotiation.rs`. `cargo xtask test` runs the
//! generated modules of the real schemas on `tests/negotiation.json`.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::path::{Path, PathBuf};

use acp_generate::emit::{python, rust, typescript, PackageNames};
use acp_ir::lower::{lower, Unsupported};
use acp_ir::negotiation;
use acp_ir::Ir;
use acp_schema_source::capabilities::prose;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn fixture() -> Ir {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join("negotiation.json")).unwrap();
    let schema = acp_schema_source::extend("fixtures/negotiation.json".into(), document, &[], false).unwrap();
    lower(&schema, Unsupported::Fail).unwrap()
}

fn file(files: &[(PathBuf, String)], path: &str) -> String {
    files
        .iter()
        .find(|(found, _)| found == Path::new(path))
        .unwrap_or_else(|| panic!("no {path}"))
        .1
        .clone()
}

#[test]
fn the_fixture_states_every_gate_it_has() {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join("negotiation.json")).unwrap();
    let annotations = acp_schema_source::CapabilityAnnotations::builtin().unwrap();
    assert_eq!(prose::scan(&document).len(), 3);
    assert!(annotations.unannotated(&document).is_empty());
}

#[test]
fn each_language_prints_the_fixture_tables() {
    let ir = fixture();
    let names = PackageNames::default();
    let cases = [
        (
            rust::emit(&ir, &names).unwrap(),
            "src/negotiation_tables.rs",
            "negotiation_tables.rs.txt",
        ),
        (
            typescript::emit(&ir, &names).unwrap(),
            "src/negotiation.ts",
            "negotiation.ts.txt",
        ),
        (
            python::emit(&ir, &names).unwrap(),
            "acp_bindings/negotiation.py",
            "negotiation.py.txt",
        ),
    ];
    for (files, path, snapshot) in cases {
        snapshots::assert_snapshot(&here().join("snapshots").join(snapshot), &file(&files, path));
    }
}

#[test]
fn a_schema_without_initialize_has_no_negotiation_module() {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join("fields.json")).unwrap();
    let schema = acp_schema_source::extend("fixtures/fields.json".into(), document, &[], false).unwrap();
    let ir = lower(&schema, Unsupported::Fail).unwrap();
    assert!(negotiation::model(&ir).is_none());
    let files = typescript::emit(&ir, &PackageNames::default()).unwrap();
    assert!(files.iter().all(|(path, _)| path != Path::new("src/negotiation.ts")));
    assert!(!file(&files, "src/index.ts").contains("negotiation"));
}
