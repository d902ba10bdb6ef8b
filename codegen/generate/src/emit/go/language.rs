//! Go's registration: the module's path (its name), install command and
//! usage example; the extended schema sits at the module's root. Go's
//! semantic import versioning ties the path to the version: from major
//! version 2 on, the path ends in `/vMAJOR` ([`publishable`]), and the
//! version is a tag with a `v` ([`module_version`]).

use std::path::PathBuf;

use askama::Template;

use crate::emit::files::{render, PackageNames};
use crate::emit::language::Package;
use acp_ir::error::CodegenError;
use acp_ir::naming;

/// Go's package answers, which its registration ([`super::LANGUAGE`]) carries.
pub(super) const PACKAGE: Package = Package {
    name: |names| names.go_module.clone(),
    install: |names| format!("go get {}@{}", names.go_module, module_version(&names.version)),
    fence: "go",
    schema_path: |_| PathBuf::from("acp.schema.json"),
    example,
    example_file: None,
    publishable,
    contents: "a type per schema type with its decoder and encoder, the by-name codec\n`Roundtrip`, the method tables, the `Agent` and `Client` interfaces with their\ndispatchers, capability negotiation, the RFD helpers and a connection over an\n`io.Reader` and an `io.Writer` (`ConnectAgent`, `ConnectClient`)",
    usage: "Decode a value by its type name and a notification's params into its type, and\nnegotiate capabilities from an `initialize` exchange",
    exports: "a type per schema type with JSON methods, `Roundtrip` by type name, `Methods`, the side interfaces and their dispatchers, `Negotiate`, the RFD helpers, `ConnectAgent` and `ConnectClient`",
};

/// The version as Go spells it: a `v`, then the SemVer string
/// (`v1.20.0-dev.7`, a pre-release below `v1.20.0`).
pub fn module_version(version: &str) -> String {
    format!("v{version}")
}

/// Whether the module path fits the version, as Go's semantic import
/// versioning wants it: no `/vN` suffix at major version 0 or 1, the suffix
/// `/vMAJOR` from 2 on.
fn publishable(names: &PackageNames) -> Result<(), String> {
    let module = &names.go_module;
    let major: u64 = names
        .version
        .split('.')
        .next()
        .and_then(|major| major.parse().ok())
        .ok_or_else(|| format!("the version `{}` has no major number", names.version))?;
    let base = match module.rsplit_once('/') {
        Some((base, last))
            if last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|byte| byte.is_ascii_digit()) =>
        {
            base
        }
        _ => module.as_str(),
    };
    let wanted = if major >= 2 {
        format!("{base}/v{major}")
    } else {
        base.to_owned()
    };
    if *module == wanted {
        return Ok(());
    }
    Err(format!(
        "the Go module path `{module}` (--go-module) does not fit version {}: Go wants `{wanted}` (from major version 2 on, the path ends in `/vMAJOR`; below, in no such suffix)",
        module_version(&names.version)
    ))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn names(module: &str, version: &str) -> PackageNames {
        PackageNames {
            go_module: module.to_owned(),
            version: version.to_owned(),
            ..PackageNames::default()
        }
    }

    #[test]
    fn the_module_path_carries_the_major_version_from_v2_on() {
        for (module, version) in [
            ("example.com/acp", "0.1.0"),
            ("example.com/acp", "1.20.0-dev.7"),
            ("example.com/acp/v2", "2.0.0"),
            ("example.com/acp/v12", "12.3.4-dev.1"),
            ("example.com/v2ray", "1.0.0"),
        ] {
            assert_eq!(publishable(&names(module, version)), Ok(()), "{module} {version}");
        }
        for (module, version, wanted) in [
            ("example.com/acp", "2.0.0", "`example.com/acp/v2`"),
            ("example.com/acp/v2", "1.0.0", "`example.com/acp`"),
            ("example.com/acp/v3", "2.0.0", "`example.com/acp/v2`"),
            ("example.com/acp/v1", "1.0.0", "`example.com/acp`"),
            ("example.com/acp/v02", "2.0.0", "`example.com/acp/v2`"),
        ] {
            let error = publishable(&names(module, version)).unwrap_err();
            assert!(
                error.contains(&format!("`{module}`"))
                    && error.contains(wanted)
                    && error.contains(&format!("v{version}")),
                "{error}"
            );
        }
    }

    #[test]
    fn the_install_line_names_the_tag() {
        assert_eq!(
            (PACKAGE.install)(&names("example.com/acp", "1.20.0-dev.7")),
            "go get example.com/acp@v1.20.0-dev.7"
        );
    }
}
