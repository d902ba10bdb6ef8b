//! What every emitter shares: the files it returns, the names of the
//! packages, and the rendering of askama templates.

use std::path::PathBuf;

use acp_ir::error::CodegenError;
use acp_ir::ir::Ir;

/// Relative path -> contents, in a fixed order.
pub type Files = Vec<(PathBuf, String)>;

/// What the generated packages are called and which version they carry;
/// users publishing their own bindings change these on the command line
/// (`cargo xtask package` sets the version by its scheme).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageNames {
    /// The Rust crate name (`acp-bindings`).
    pub rust_crate: String,
    /// The npm package name (`acp-bindings`).
    pub npm_package: String,
    /// The Python import name (`acp_bindings`).
    pub python_package: String,
    /// The Go module path (`github.com/acp-codegen/acp-bindings-go`).
    pub go_module: String,
    /// The version every package's manifest carries, valid as SemVer and as
    /// PEP 440 (`0.1.0` unless packaged).
    pub version: String,
}

impl Default for PackageNames {
    fn default() -> Self {
        PackageNames {
            rust_crate: "acp-bindings".to_owned(),
            npm_package: "acp-bindings".to_owned(),
            python_package: "acp_bindings".to_owned(),
            go_module: "github.com/acp-codegen/acp-bindings-go".to_owned(),
            version: "0.1.0".to_owned(),
        }
    }
}

/// Emits one language's package.
pub type Emitter = fn(&Ir, &PackageNames) -> Result<Files, CodegenError>;

/// Renders the askama template `templates/{file}`; the text ends with one
/// newline, as a text file does, whatever the template's last line.
pub(crate) fn render(template: &impl askama::Template, file: &str) -> Result<String, CodegenError> {
    let mut text = template
        .render()
        .map_err(|error| CodegenError::internal(format!("templates/{file}"), error))?;
    text.truncate(text.trim_end_matches('\n').len());
    text.push('\n');
    Ok(text)
}
