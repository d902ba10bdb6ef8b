//! Upstream ACP release schemas for the tests: the `schema/` folders of pinned
//! releases of the npm package `@agentclientprotocol/sdk`, fetched with
//! `npm pack` into `target/upstream-schemas/` (ignored, never committed).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

/// The releases tested, oldest first: single-file v1 schemas of early
/// releases, then the split v1/v2 stable/unstable schemas of current ones.
pub const SDK_RELEASES: [&str; 5] = ["0.14.0", "0.20.0", "1.0.0", "2.0.0", "2.4.0"];
const PACKAGE: &str = "@agentclientprotocol/sdk";

/// Fetches every pinned release (once) and returns the folder holding them.
pub fn fetch(workspace: &Path) -> Result<PathBuf> {
    let root = workspace.join("target").join("upstream-schemas");
    for version in SDK_RELEASES {
        let folder = root.join(format!("sdk-{version}"));
        if folder.join("package").join("schema").is_dir() {
            continue;
        }
        std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
        let packed = Command::new("npm")
            .args(["pack", "--silent", &format!("{PACKAGE}@{version}")])
            .current_dir(&folder)
            .output()
            .context("running npm pack (is Node.js installed?)")?;
        if !packed.status.success() {
            bail!(
                "npm pack {PACKAGE}@{version} failed: {}",
                String::from_utf8_lossy(&packed.stderr)
            );
        }
        let tarball = String::from_utf8_lossy(&packed.stdout)
            .trim()
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned();
        let status = Command::new("tar")
            .args(["xzf", &tarball])
            .current_dir(&folder)
            .status()
            .context("running tar")?;
        if !status.success() {
            bail!("could not unpack {tarball}");
        }
        std::fs::remove_file(folder.join(&tarball)).ok();
        if !folder.join("package").join("schema").is_dir() {
            bail!("{PACKAGE}@{version} has no schema/ folder");
        }
    }
    Ok(root)
}
