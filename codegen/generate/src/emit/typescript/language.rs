//! TypeScript's registration: the package emitter, and the npm package's
//! name, install command and usage example.

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::{any_version, Package, FULL_CONTENTS, FULL_EXPORTS, FULL_USAGE};
use acp_ir::error::CodegenError;
use acp_ir::naming;

/// TypeScript's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: |names| names.npm_package.clone(),
    install: |names| format!("npm install {}@{}", names.npm_package, names.version),
    fence: "ts",
    schema_path: |_| PathBuf::from("schema").join("acp.schema.json"),
    example,
    example_file: None,
    publishable: any_version,
    contents: FULL_CONTENTS,
    usage: FULL_USAGE,
    exports: FULL_EXPORTS,
};

#[derive(Template)]
#[template(path = "package/example.ts", escape = "none")]
struct Example {
    /// The package name as a string literal.
    module: String,
}

fn example(names: &PackageNames) -> Result<String, CodegenError> {
    render(
        &Example {
            module: serde_json::Value::String(names.npm_package.clone()).to_string(),
        },
        "package/example.ts",
    )
}

/// The TypeScript name of a type, variant or member: `Type ("variant")`,
/// `Type.property`.
pub(super) fn api_name(name: &str, variant: Option<&str>, member: Option<&str>) -> String {
    let mut path = naming::typescript_type(name);
    if let Some(variant) = variant {
        path.push_str(&format!(" ({variant:?})"));
    }
    if let Some(member) = member {
        path.push_str(&format!(".{}", naming::typescript_property(member)));
    }
    path
}
