//! The generation stage: [`generate`] is its one entry, from an extended
//! schema and its IR to every output folder ([`pipeline`]); [`emit`] holds
//! one emitter per language, each a function from the IR to the files of a
//! package (Rust with `quote` and `prettyplease`, TypeScript and Python
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
/// The hand-written runtime files the Rust emitter copies into every
/// generated crate, compiled here (and checked by clippy) as the modules
/// they become there. The codec's items serve the generated types, which
/// are not here.
#[cfg(test)]
#[path = "../../../templates/rust/nullable.rs"]
pub mod nullable;
/// The fixed part of the `negotiation` module, with stand-ins for what the
/// emitter writes at its marker (the tables, `Message`).
#[cfg(test)]
#[allow(dead_code)]
pub mod negotiation_runtime {
    pub const PROTOCOL_VERSION: u16 = 1;
    const RULES: &[Rule] = &[];
    const AGENT_METHODS: &[(&str, Needs)] = &[];
    const CLIENT_METHODS: &[(&str, Needs)] = &[];
    const SECTIONS: &[(&str, &[(&str, Needs)])] = &[];
    const FEATURES: &[(&str, Needs)] = &[];
    const CHECKS: &[Check] = &[];

    pub enum Message<'a, T> {
        Decoded(&'a T),
        Json(&'a ::serde_json::Value),
    }

    include!("../../../templates/rust/negotiation.rs");
}
