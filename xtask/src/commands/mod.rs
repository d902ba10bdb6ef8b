//! One module per command of `cargo xtask` that is not a folder of its own
//! (`test` is [`crate::suites`], `bench` [`crate::bench`], `interop`
//! [`crate::interop`]): what the command does with its parsed arguments.

pub mod check_trace;
pub mod generate;
pub mod inspect;
pub mod negotiate;
pub mod package;
pub mod review;
pub mod schema;
pub mod vectors;
