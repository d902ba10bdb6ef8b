//! The stages together, for the commands and the cross-stage tests:
//! `acp-ir` (lowering, the IR, naming, tolerant reading, the negotiation
//! model and the RFD helpers' machines), `acp-vectors` (vectors and the
//! validator), `acp-generate` (the emitters), `acp-review` (the semantic
//! review) and `acp-trace` (the trace checker), each a crate with only the
//! dependencies its job needs. This crate re-exports them under one name.

pub use acp_generate::emit;
pub use acp_ir::{error, inspect, ir, lower, naming, negotiation, rfd, tolerant, CodegenError, ErrorKind, Ir};
pub use acp_review as review;
pub use acp_trace as trace;
pub use acp_vectors::{validate, vectors};
