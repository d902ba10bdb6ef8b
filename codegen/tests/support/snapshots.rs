//! Reviewed snapshots, the one helper every snapshot test includes (with
//! `#[path]`, from `codegen/tests`, `codegen/ir/tests`,
//! `codegen/review/tests` and `xtask/tests`): a test's output must
//! equal its committed snapshot, and only `UPDATE_SNAPSHOTS=1` rewrites the
//! snapshot instead. Any other value of `UPDATE_SNAPSHOTS` fails the test, so
//! an environment that happens to set it cannot re-approve anything.

use std::path::Path;

/// The value of `UPDATE_SNAPSHOTS` that re-approves snapshots.
const UPDATE: &str = "1";

/// Checks `actual` against the snapshot at `path`, or writes it there when
/// `UPDATE_SNAPSHOTS=1`.
pub fn assert_snapshot(path: &Path, actual: &str) {
    if let Some(value) = std::env::var_os("UPDATE_SNAPSHOTS") {
        assert!(value == UPDATE, "UPDATE_SNAPSHOTS is {value:?}; set it to exactly {UPDATE} to re-approve snapshots, or unset it to check them");
        std::fs::write(path, actual).unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        expected == actual,
        "{} differs from the output; review it and re-run with UPDATE_SNAPSHOTS={UPDATE}\n{actual}",
        path.display()
    );
}
