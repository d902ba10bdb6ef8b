//! A fresh scratch folder per test, shared by the command-line tests
//! (through `cli.rs`) and the xtask's own unit tests (`support::scratch`).

use std::ops::Deref;
use std::path::Path;

/// An empty folder of its own in the system's temporary folder, removed
/// when the test ends, unless it fails: then it is kept and named on
/// standard error, which the test harness shows with the failure.
pub struct Scratch {
    folder: Option<tempfile::TempDir>,
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.folder
            .as_ref()
            .expect("the folder lives as long as the scratch")
            .path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(folder) = self.folder.take() else {
            return;
        };
        if std::thread::panicking() {
            eprintln!(
                "kept the scratch folder of the failed test: {}",
                folder.keep().display()
            );
        }
    }
}

/// A scratch folder for the test `name`.
pub fn scratch(name: &str) -> Scratch {
    let folder = tempfile::Builder::new()
        .prefix(&format!("acp-xtask-{}-{name}-", env!("CARGO_CRATE_NAME")))
        .tempdir()
        .expect("a scratch folder in the system's temporary folder");
    Scratch { folder: Some(folder) }
}
