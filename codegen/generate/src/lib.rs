//! The generation stage: [`generate`] is its one entry, from an extended
//! schema and its IR to every output folder ([`pipeline`]); [`emit`] holds
//! one emitter per language, each a function from the IR to the files of a
//! package (Rust with `quote` and `prettyplease`, TypeScript, Python and Go
//! through the askama templates of the top-level `templates/`), and what
//! every package carries besides its code.

pub mod emit;
pub mod pipeline;

pub use pipeline::{generate, generate_into, Error, Folder, Options, Sink};

#[cfg(test)]
mod test_support;

#[cfg(test)]
#[allow(dead_code)]
mod connection_check;

#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../templates/rust/codec.rs"]
pub mod codec;
/// The fixed `negotiation` module, with stand-ins for the generated
/// `negotiation_tables` it reads.
#[cfg(test)]
#[allow(dead_code)]
#[path = "../../../templates/rust/negotiation.rs"]
pub mod negotiation;
/// The hand-written runtime files the Rust emitter copies into every
/// generated crate, compiled here (and checked by clippy) as the modules
/// they become there. The codec's items serve the generated types, which
/// are not here.
#[cfg(test)]
#[path = "../../../templates/rust/nullable.rs"]
pub mod nullable;
#[cfg(test)]
#[allow(dead_code)]
pub mod negotiation_tables {
    use crate::negotiation::{Check, Needs, Rule, SessionGate};

    pub type Request = ::std::collections::BTreeMap<::std::string::String, ::serde_json::Value>;
    pub type Response = ::std::vec::Vec<::serde_json::Value>;
    pub(crate) const REQUEST_NAME: &str = "InitializeRequest";
    pub(crate) const RESPONSE_NAME: &str = "InitializeResponse";
    pub const PROTOCOL_VERSION: u16 = 1;
    pub(crate) const RULES: &[Rule] = &[];
    pub(crate) const AGENT_METHODS: &[(&str, Needs)] = &[];
    pub(crate) const CLIENT_METHODS: &[(&str, Needs)] = &[];
    pub(crate) const SECTIONS: &[(&str, &[(&str, Needs)])] = &[];
    pub(crate) const FEATURES: &[(&str, Needs)] = &[];
    pub(crate) const CHECKS: &[Check] = &[];
    pub(crate) const SESSION_GATES: &[SessionGate] = &[];
}
