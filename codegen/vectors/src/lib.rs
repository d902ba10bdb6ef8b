//! The vectors stage: [`vectors`] derives valid, invalid and lenient JSON
//! for every type of an IR, and [`validate`] holds the independent oracle,
//! the `jsonschema` crate on the raw schema document, that checks them (and
//! that the review and the trace checker judge messages with).

pub mod validate;
pub mod vectors;
