//! The Rust emitter on the small fixtures: reviewed snapshots of the
//! generated types (re-approve with `UPDATE_SNAPSHOTS=1`); `cargo xtask test`
//! compiles and tests the crates generated from the real schemas.

#[path = "support/snapshots.rs"]
mod snapshots;

use std::path::{Path, PathBuf};

use acp_generate::emit::{rust, PackageNames};
use acp_ir::lower::{lower, Unsupported};
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
    let types = &files
        .iter()
        .find(|(path, _)| path == Path::new("src/types.rs"))
        .unwrap()
        .1;
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
fn any_json_member_fixture_types() {
    check_snapshot("any-json-member");
}

#[test]
fn the_crate_has_its_files_and_package_name() {
    let files = emit_fixture("fields");
    let paths: Vec<String> = files.iter().map(|(path, _)| path.display().to_string()).collect();
    assert_eq!(
        paths,
        [
            "Cargo.toml",
            "src/lib.rs",
            "src/codec.rs",
            "src/by_name.rs",
            "src/methods.rs",
            "src/nullable.rs",
            "src/types.rs"
        ]
    );
    assert!(files[0].1.contains("name = \"acp-bindings\"") && files[0].1.contains("[workspace]"));
    let renamed = rust::emit(
        &lower(
            &acp_schema_source::load(&Default::default()).unwrap(),
            Unsupported::Fail,
        )
        .unwrap(),
        &PackageNames {
            rust_crate: "my-acp".into(),
            ..PackageNames::default()
        },
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
    let types = &files
        .iter()
        .find(|(path, _)| path == Path::new("src/types.rs"))
        .unwrap()
        .1;
    let parsed = syn::parse_file(types).expect("the generated file parses");
    assert_eq!(
        parsed
            .items
            .iter()
            .filter(|item| matches!(item, syn::Item::Struct(_)))
            .count(),
        1
    );
    assert!(types.contains("/// Ends */ here"), "{types}");
}

/// A schema with one agent method, `ping`, and optionally the JSON-RPC error object.
fn ping_schema(with_error: bool) -> serde_json::Value {
    let mut definitions = json!({
        "PingRequest": {"type": "object", "properties": {"sessionId": {"type": "string"}}, "required": ["sessionId"], "x-method": "ping", "x-side": "agent"},
        "PingResponse": {"type": "object", "properties": {}, "x-method": "ping", "x-side": "agent"}
    });
    if with_error {
        definitions["ErrorCode"] = json!({"anyOf": [
            {"title": "Method not found", "type": "integer", "format": "int32", "const": -32601},
            {"title": "Invalid params", "type": "integer", "format": "int32", "const": -32602},
            {"title": "Internal error", "type": "integer", "format": "int32", "const": -32603},
            {"title": "Other", "type": "integer", "format": "int32"}
        ]});
        definitions["Error"] = json!({"type": "object", "properties": {
            "code": {"$ref": "#/$defs/ErrorCode"}, "message": {"type": "string"}, "data": {}
        }, "required": ["code", "message"]});
    }
    json!({"$defs": definitions})
}

fn emit_document(document: serde_json::Value) -> Result<Vec<(PathBuf, String)>, acp_ir::error::CodegenError> {
    let schema = acp_schema_source::extend("ping.json".into(), document, &[], false).unwrap();
    rust::emit(&lower(&schema, Unsupported::Fail).unwrap(), &PackageNames::default())
}

#[test]
fn methods_answer_with_the_schemas_error_object() {
    let files = emit_document(ping_schema(true)).unwrap();
    let file = |name: &str| &files.iter().find(|(path, _)| path == Path::new(name)).unwrap().1;
    let (methods, types) = (file("src/methods.rs"), file("src/types.rs"));
    syn::parse_file(methods).expect("the methods file parses");
    for expected in [
        "pub trait Agent",
        "pub async fn dispatch_request",
        "pub async fn dispatch_notification",
        "Extension {",
        "crate::types::Error::method_not_found()",
    ] {
        assert!(methods.contains(expected), "no `{expected}` in\n{methods}");
    }
    assert!(!methods.contains("MethodError"), "{methods}");
    for expected in [
        "pub fn method_not_found() -> Self",
        "pub fn invalid_params() -> Self",
        "impl ::std::error::Error for Error",
        "From<crate::codec::DecodeError> for Error",
    ] {
        assert!(types.contains(expected), "no `{expected}` in\n{types}");
    }
}

#[test]
fn methods_without_an_error_object_are_unsupported() {
    let error = emit_document(ping_schema(false)).unwrap_err();
    assert_eq!(error.kind, acp_ir::error::ErrorKind::Unsupported);
    assert!(error.message.contains("no JSON-RPC error object"), "{error}");
}
