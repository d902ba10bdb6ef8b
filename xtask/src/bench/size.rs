//! What a program that uses the TypeScript bindings ships: a module that
//! re-exports them, bundled by esbuild (pinned, installed under
//! `target/bench/bundle/`) for Node, minified, in bytes and in gzip'd bytes
//! (`gzip -9`). Ours whole, ours with one decoder and `encode` (what a
//! program that only reads messages keeps, the rest shaken out), and the
//! official SDK's entry point whole, with the zod it imports.

use std::path::Path;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use super::measure::{write_if_changed, Setup};
use crate::support::tools::run_checked;

const ESBUILD: &str = "0.28.2";

/// One bundle's size, or why it could not be built.
pub struct Bundle {
    pub implementation: String,
    pub bytes: Option<u64>,
    pub gzip_bytes: Option<u64>,
    pub failure: Option<String>,
}

/// The bundles, ours first.
pub fn measure(setup: &Setup) -> Result<Vec<Bundle>> {
    let folder = setup.folder.join("bundle");
    let esbuild = install(&folder)?;
    let ours = super::typescript::ours(setup)?;
    let sdk = super::typescript::official_sdk(setup)?;
    let official = sdk.join(super::startup::main_entry(&sdk)?);
    let contenders = [
        (
            "ours, the whole package",
            format!("export * from {};\n", js_string(&ours)),
        ),
        (
            "ours, decodeSessionNotification and encode",
            format!(
                "export {{ decodeSessionNotification, encode }} from {};\n",
                js_string(&ours)
            ),
        ),
        (
            &*format!(
                "official: @agentclientprotocol/sdk {}, the whole package",
                super::typescript::SDK_VERSION
            ),
            format!("export * from {};\n", js_string(&official)),
        ),
    ];
    eprintln!("bench: bundling the TypeScript packages");
    Ok(contenders
        .iter()
        .enumerate()
        .map(|(index, (implementation, module))| {
            let entry = folder.join(format!("entry-{index}.mjs"));
            let bundle = folder.join(format!("bundle-{index}.js"));
            match write_if_changed(&entry, module).and_then(|_| sizes(&esbuild, &entry, &bundle)) {
                Ok((bytes, gzip_bytes)) => Bundle {
                    implementation: (*implementation).to_owned(),
                    bytes: Some(bytes),
                    gzip_bytes: Some(gzip_bytes),
                    failure: None,
                },
                Err(error) => Bundle {
                    implementation: (*implementation).to_owned(),
                    bytes: None,
                    gzip_bytes: None,
                    failure: Some(format!("{error:#}")),
                },
            }
        })
        .collect())
}

/// `path` as a JavaScript string literal.
fn js_string(path: &Path) -> String {
    serde_json::Value::String(path.display().to_string()).to_string()
}

/// Installs the pinned esbuild once; returns its executable.
fn install(folder: &Path) -> Result<std::path::PathBuf> {
    let manifest =
        format!("{{\n  \"private\": true,\n  \"dependencies\": {{\n    \"esbuild\": \"{ESBUILD}\"\n  }}\n}}\n");
    let changed = write_if_changed(&folder.join("package.json"), &manifest)?;
    let esbuild = folder.join("node_modules").join(".bin").join("esbuild");
    if changed || !esbuild.is_file() {
        eprintln!("bench: installing esbuild@{ESBUILD}");
        run_checked(
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent"])
                .current_dir(folder),
            "npm install of esbuild",
        )?;
    }
    Ok(esbuild)
}

/// Bundles `entry` into `bundle`; its size, then its size through `gzip -9`.
fn sizes(esbuild: &Path, entry: &Path, bundle: &Path) -> Result<(u64, u64)> {
    run_checked(
        Command::new(esbuild)
            .arg(entry)
            .args([
                "--bundle",
                "--minify",
                "--format=esm",
                "--platform=node",
                "--log-level=warning",
            ])
            .arg(format!("--outfile={}", bundle.display())),
        "esbuild",
    )?;
    let bytes = std::fs::metadata(bundle)
        .with_context(|| format!("reading {}", bundle.display()))?
        .len();
    let gzip = Command::new("gzip")
        .args(["-9", "--stdout"])
        .arg(bundle)
        .output()
        .context("starting gzip")?;
    ensure!(gzip.status.success(), "gzip failed ({})", gzip.status);
    Ok((bytes, gzip.stdout.len() as u64))
}
