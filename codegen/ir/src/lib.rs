//! The IR stage: one typed, language-free model of an ACP schema.
//!
//! [`lower`] builds the [`ir`] from an extended schema; [`naming`] owns
//! every name; [`inspect`] summarizes an IR; [`tolerant`] opens closed
//! tagged unions for bindings that must read a newer peer; [`negotiation`]
//! turns the IR's capability gates into the model every binding's
//! `negotiate` prints; [`handshake`] is what the agent's end decides about
//! `initialize` itself, with what each end advertises from its handlers
//! ([`advertising`]); [`sessions`] holds the gates offered per session by
//! the answers that open one; [`messages`] lists every protocol message with
//! its direction and handler; [`rfd`] models prompt turns and session status
//! for the RFD helpers and holds their state machines. Every later stage
//! (vectors, generation, review, the trace checker) reads this IR and
//! decides no ACP meaning again.

pub mod advertising;
pub mod error;
pub mod handshake;
pub mod inspect;
pub mod ir;
pub mod lower;
pub mod messages;
pub mod naming;
pub mod negotiation;
pub mod rfd;
pub mod sessions;
pub mod tolerant;

pub use error::{CodegenError, ErrorKind};
pub use ir::Ir;
