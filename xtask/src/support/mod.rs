//! What the commands, the suites, the benchmark and the interop matrix
//! share: running tools ([`tools`]), side by side and timed ([`lanes`]),
//! jobs a few at a time in their order ([`pool`]), the real agents'
//! captures ([`captures`]), the pinned Go SDK ([`coder`]), programs that
//! leave no process behind ([`processes`]), writing output atomically
//! ([`output`]), lowering with the collision rule told ([`lowering`]),
//! schema sources given as text ([`source`]), the pinned upstream release
//! schemas ([`upstream`]) and the seeded ACP traffic of the benchmark and
//! `gen-trace` ([`traffic`]).

pub mod captures;
pub mod coder;
pub mod lanes;
pub mod lowering;
pub mod output;
pub mod pool;
pub mod processes;
#[cfg(test)]
#[path = "../../tests/support/scratch.rs"]
pub mod scratch;
pub mod source;
pub mod tools;
pub mod traffic;
pub mod upstream;
