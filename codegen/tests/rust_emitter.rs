//! The Rust emitter on the small fixtures: reviewed snapshots of the
//! generated types (re-approve with `UPDATE_SNAPSHOTS=1`); `cargo xtask test`
//! compiles and tests the crates generated from the real schemas.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::path::{Path, PathBuf};

use acp_codegen::emit::{rust, PackageNames};
use acp_codegen::lower::{lower, Unsupported};
use serde_json::json;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

fn emit_fixture(name: &str) -> Vec<(PathBuf, String)> {
    let document = acp_schema_source::read_schema_file(&here().join("fixtures").join(format!("{name}.json"))).unwrap();
    let schema = acp_schema_source::extend(format!("fixtures/{name}.json"), document, &[], false).unwrap();
    rust::emit(&lower(&schema, Unsupported::Fail).unwrap(), &PackageNames::default()).unwrap()
}

fn check_snapshot(name: &str) {
    let files = emit_fixture(name);
    let types = &files.iter().find(|(path, _)| path == Path::new("src/types.rs")).unwrap().1;
    snapshots::assert_snapshot(&here().join("snapshots").join(format!("{name}.types.rs.txt")), types);
}

#[test]
fn fields_fixture_types() {
    check_snapshot("fields");
}

#[test]
fn enums_and_unions_fixture_types() {
    check_snapshot("open-enum-and-unions");
}

#[test]
fn the_crate_has_its_files_and_package_name() {
    let files = emit_fixture("fields");
    let paths: Vec<String> = files.iter().map(|(path, _)| path.display().to_string()).collect();
    assert_eq!(paths, ["Cargo.toml", "src/lib.rs", "src/codec.rs", "src/methods.rs", "src/nullable.rs", "src/types.rs"]);
    assert!(files[0].1.contains("name = \"acp-bindings\"") && files[0].1.contains("[workspace]"));
    let renamed = rust::emit(
        &lower(&acp_schema_source::load(&Default::default()).unwrap(), Unsupported::Fail).unwrap(),
        &PackageNames { rust_crate: "my-acp".into(), ..PackageNames::default() },
    )
    .unwrap();
    assert!(renamed[0].1.contains("name = \"my-acp\""));
}

#[test]
fn descriptions_cannot_break_out_of_doc_comments() {
    let document = json!({"$defs": {"Tricky": {
        "description": "Ends */ here \"] #[doc = \"x\"]\n/// and `unsafe { }`",
        "type": "object",
        "properties": {"x": {"type": "string", "description": "\"\"\" ]]"}}
    }}});
    let schema = acp_schema_source::extend("tricky.json".into(), document, &[], false).unwrap();
    let files = rust::emit(&lower(&schema, Unsupported::Fail).unwrap(), &PackageNames::default()).unwrap();
    let types = &files.iter().find(|(path, _)| path == Path::new("src/types.rs")).unwrap().1;
    let parsed = syn::parse_file(types).expect("the generated file parses");
    assert_eq!(parsed.items.iter().filter(|item| matches!(item, syn::Item::Struct(_))).count(), 1);
    assert!(types.contains("/// Ends */ here"), "{types}");
}
