//! The home of the tests that cross the stages (`codegen/tests/`): lowering
//! fixtures and the upstream schemas, then checking vectors (`acp-vectors`),
//! emitter snapshots (`acp-generate`) and the semantic review (`acp-review`)
//! against the IR (`acp-ir`); and the import-circle check over every stage
//! crate and xtask. No stage depends on another through this crate: it has
//! no code, and the stage crates are its dev-dependencies only.
