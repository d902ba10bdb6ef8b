//! ACP JSON Schema -> one IR -> test vectors (and, later, emitters).
//!
//! Stages, one module each: [`lower`] builds the [`ir`] from an extended
//! schema; [`naming`] owns every name; [`inspect`] summarizes an IR;
//! [`vectors`] derives shared test vectors from it and [`validate`] checks
//! them with an independent JSON Schema validator; [`review`] judges the
//! changes between two IRs; [`tolerant`] opens closed tagged unions for
//! bindings that must read a newer peer; [`negotiation`] turns the IR's
//! capability gates into the model every binding's `negotiate` prints;
//! [`helpers`] models prompt turns and session status for the RFD helpers
//! and holds their state machines; [`trace`] checks a captured connection
//! against the schema, the negotiation and those machines.

pub mod emit;
pub mod error;
pub mod inspect;
pub mod ir;
pub mod lower;
pub mod naming;
pub mod helpers;
pub mod negotiation;
pub mod review;
pub mod tolerant;
pub mod trace;
#[cfg(test)]
mod test_support;
pub mod validate;
pub mod vectors;

pub use error::{CodegenError, ErrorKind};
pub use ir::Ir;
