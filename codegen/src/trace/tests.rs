//! Unit tests of the trace checker.
