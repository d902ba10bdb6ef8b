//! The typescript emitter.

use super::{Files, PackageNames};
use crate::error::CodegenError;
use crate::ir::Ir;

/// Emits the typescript package for `ir`.
pub fn emit(_ir: &Ir, _names: &PackageNames) -> Result<Files, CodegenError> {
    Ok(Files::new())
}
