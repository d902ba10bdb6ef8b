//! Python's registration: the package emitter, and the distribution's name,
//! install command (the version as PEP 440 spells it) and usage example;
//! the extended schema lives inside the import package.

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::{any_version, Package, FULL_CONTENTS, FULL_EXPORTS, FULL_USAGE};
use crate::emit::package::python_version;
use acp_ir::error::CodegenError;
use acp_ir::naming;

/// Python's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: distribution,
    install,
    fence: "python",
    schema_path: |names| PathBuf::from(&names.python_package).join("acp.schema.json"),
    example,
    example_file: None,
    publishable: any_version,
    contents: FULL_CONTENTS,
    usage: FULL_USAGE,
    exports: FULL_EXPORTS,
};

/// The distribution's name: the import name with dashes.
fn distribution(names: &PackageNames) -> String {
    names.python_package.replace('_', "-")
}

/// `pip install` of the distribution at the version as PEP 440 spells it.
fn install(names: &PackageNames) -> String {
    let version = python_version(&names.version);
    format!("pip install '{}=={version}'", distribution(names))
}

#[derive(Template)]
#[template(path = "package/example.py", escape = "none")]
struct Example {
    module: String,
}

fn example(names: &PackageNames) -> Result<String, CodegenError> {
    render(
        &Example {
            module: names.python_package.clone(),
        },
        "package/example.py",
    )
}

/// The Python name of a type, variant or member: `Class ("variant")`,
/// `Class.attribute`.
pub(super) fn api_name(name: &str, variant: Option<&str>, member: Option<&str>) -> String {
    let mut path = naming::python_class(name);
    if let Some(variant) = variant {
        path.push_str(&format!(" ({variant:?})"));
    }
    if let Some(member) = member {
        path.push_str(&format!(".{}", naming::python_attribute(member)));
    }
    path
}
