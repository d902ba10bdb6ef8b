//! Rust's registration: the crate emitter, and the crate's name, install
//! command and usage example (also shipped as `examples/usage.rs`).

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::{any_version, Package, FULL_CONTENTS, FULL_EXPORTS, FULL_USAGE};
use acp_ir::error::CodegenError;
use acp_ir::naming;

/// Rust's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: |names| names.rust_crate.clone(),
    install: |names| format!("cargo add {}@={}", names.rust_crate, names.version),
    fence: "rust",
    schema_path: |_| PathBuf::from("schema").join("acp.schema.json"),
    example,
    example_file: Some("examples/usage.rs"),
    publishable: any_version,
    contents: FULL_CONTENTS,
    usage: FULL_USAGE,
    exports: FULL_EXPORTS,
};

#[derive(Template)]
#[template(path = "package/example.rs", escape = "none")]
struct Example {
    module: String,
}

fn example(names: &PackageNames) -> Result<String, CodegenError> {
    render(
        &Example {
            module: names.rust_crate.replace('-', "_"),
        },
        "package/example.rs",
    )
}

/// The Rust path of a type, variant or member: `Type::Variant`, `Type.field`.
pub(super) fn api_name(name: &str, variant: Option<&str>, member: Option<&str>) -> String {
    let mut path = naming::rust_type(name);
    if let Some(variant) = variant {
        path.push_str(&format!("::{}", naming::rust_type(&naming::pascal_case(variant))));
    }
    if let Some(member) = member {
        path.push_str(&format!(".{}", naming::rust_field(member)));
    }
    path
}
