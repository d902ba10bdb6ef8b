//! Go's registration: the module's path (its name), install command and
//! usage example; the extended schema sits at the module's root.

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::Package;
use acp_ir::error::CodegenError;
use acp_ir::naming;

/// Go's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: |names| names.go_module.clone(),
    install: |names| format!("go get {}@v{}", names.go_module, names.version),
    fence: "go",
    schema_path: |_| PathBuf::from("acp.schema.json"),
    example,
    example_file: None,
    contents: "a type per schema type with its decoder and encoder, the by-name codec\n`Roundtrip`, the method tables, the `Agent` and `Client` interfaces with their\ndispatchers, capability negotiation, the RFD helpers and a connection over an\n`io.Reader` and an `io.Writer` (`ConnectAgent`, `ConnectClient`)",
    usage: "Decode a value by its type name, and a notification's params into its type",
    exports: "a type per schema type with JSON methods, `Roundtrip` by type name, `Methods`, the side interfaces and their dispatchers, `Negotiate`, the RFD helpers, `ConnectAgent` and `ConnectClient`",
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

/// The Go name of a type, variant or member: `Type ("variant")`,
/// `Type.Field`.
pub(super) fn api_name(name: &str, variant: Option<&str>, member: Option<&str>) -> String {
    let mut path = naming::go_type(name);
    if let Some(variant) = variant {
        path.push_str(&format!(" ({variant:?})"));
    }
    if let Some(member) = member {
        path.push_str(&format!(".{}", naming::go_field(member)));
    }
    path
}
