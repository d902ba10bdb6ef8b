//! Go's registration: the module's path (its name), install command and
//! usage example; the extended schema sits at the module's root.

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::Package;
use acp_ir::error::CodegenError;

/// Go's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: |names| names.go_module.clone(),
    install: |names| format!("go get {}@v{}", names.go_module, names.version),
    fence: "go",
    schema_path: |_| PathBuf::from("acp.schema.json"),
    example,
    example_file: None,
    contents: "a type per schema type with its decoder and encoder, and the by-name codec\n`Roundtrip` (no method tables, connections or negotiation yet)",
    usage: "Decode a value by its type name, and a notification's params into its type",
    exports: "a type per schema type with JSON methods, and `Roundtrip` by type name",
};

#[derive(Template)]
#[template(path = "package/example.go", escape = "none")]
struct Example {
    /// The module path as a string literal.
    module: String,
}

fn example(names: &PackageNames) -> Result<String, CodegenError> {
    render(
        &Example {
            module: serde_json::Value::String(names.go_module.clone()).to_string(),
        },
        "package/example.go",
    )
}
