//! The generation stage: [`emit`] holds one emitter per language, each a
//! function from the IR to the files of a package (Rust with `quote` and
//! `prettyplease`, TypeScript and Python through the askama templates of
//! the top-level `templates/`), and what every package carries besides its
//! code.

pub mod emit;
#[cfg(test)]
mod test_support;

use acp_ir::{error, helpers, ir, naming, negotiation};
