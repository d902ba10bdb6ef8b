//! The `format` suite of `cargo xtask test`: every hand-written file is as
//! its formatter writes it. The workspace crates through `cargo fmt --all
//! --check`; the other Rust files (`templates/rust/`, `tests/`) through
//! `rustfmt --check`; TypeScript and JavaScript through the pinned prettier
//! of `tests/format` (installed with `npm ci`); Python through the pinned
//! ruff of `tests/python/requirements.txt` (in `.tools/venv`), whose
//! `ruff check` also holds the import order; Go through
//! `gofmt -l`. The files
//! are the ones git tracks, less the askama templates (files of
//! `templates/` holding `{{` or `{%`), which no formatter can read; a
//! test's Go composite literal or Rust format string holds `{{` too. Settings come from `rustfmt.toml`,
//! `.prettierrc.json` and `ruff.toml` at the root. A failure names every
//! file that is not formatted.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::support::tools::{cargo, run_checked, virtual_environment};

/// Checks every hand-written file of the workspace at `workspace`.
pub fn run(workspace: &Path) -> Result<()> {
    let tracked = tracked_files(workspace)?;
    let members = workspace_members(workspace)?;
    let mut unformatted = Vec::new();

    eprintln!("format: cargo fmt --all --check");
    unformatted.extend(listed(
        cargo()
            .args(["fmt", "--all", "--check", "--", "--files-with-diff"])
            .current_dir(workspace),
        "cargo fmt --all --check",
        |line| Some(line.to_owned()),
    )?);

    let rust: Vec<&PathBuf> = tracked
        .iter()
        .filter(|file| has_extension(file, &["rs"]) && !members.iter().any(|member| file.starts_with(member)))
        .filter(|file| !is_template(workspace, file))
        .collect();
    eprintln!(
        "format: rustfmt --check on {} files outside the workspace crates",
        rust.len()
    );
    if !rust.is_empty() {
        unformatted.extend(listed(
            Command::new("rustfmt")
                .args(["--check", "--files-with-diff"])
                .args(&rust)
                .current_dir(workspace),
            "rustfmt --check",
            |line| Some(line.to_owned()),
        )?);
    }

    let scripts = untemplated(workspace, &tracked, &["ts", "mjs", "js"]);
    eprintln!("format: prettier --check on {} files", scripts.len());
    if !scripts.is_empty() {
        let prettier = prettier(workspace)?;
        unformatted.extend(listed(
            Command::new("node")
                .arg(prettier)
                .arg("--list-different")
                .args(&scripts)
                .current_dir(workspace),
            "prettier --check",
            |line| Some(line.to_owned()),
        )?);
    }

    let python = untemplated(workspace, &tracked, &["py"]);
    eprintln!("format: ruff format --check on {} files", python.len());
    if !python.is_empty() {
        let interpreter = virtual_environment(
            &workspace.join(".tools"),
            &workspace.join("tests").join("python").join("requirements.txt"),
        )?;
        unformatted.extend(listed(
            Command::new(&interpreter)
                .args(["-m", "ruff", "format", "--check", "--output-format", "concise"])
                .args(&python)
                .current_dir(workspace),
            "ruff format --check",
            |line| {
                line.contains(": unformatted:")
                    .then(|| line.split(':').next().unwrap_or(line).to_owned())
            },
        )?);
        eprintln!("format: ruff check (import order) on {} files", python.len());
        unformatted.extend(listed(
            Command::new(&interpreter)
                .args(["-m", "ruff", "check", "--quiet", "--output-format", "concise"])
                .args(&python)
                .current_dir(workspace),
            "ruff check",
            |line| {
                let mut parts = line.splitn(3, ':');
                let file = parts.next()?;
                parts.next()?.parse::<u32>().ok().map(|_| file.to_owned())
            },
        )?);
    }

    let go = untemplated(workspace, &tracked, &["go"]);
    eprintln!("format: gofmt -l on {} files", go.len());
    if !go.is_empty() {
        unformatted.extend(listed(
            Command::new("gofmt").arg("-l").args(&go).current_dir(workspace),
            "gofmt -l",
            |line| Some(line.to_owned()),
        )?);
    }

    if !unformatted.is_empty() {
        let unformatted: Vec<String> = unformatted
            .iter()
            .map(|file| match Path::new(file).strip_prefix(workspace) {
                Ok(relative) => relative.display().to_string(),
                Err(_) => file.clone(),
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        bail!(
            "{} files are not formatted (run cargo fmt --all, rustfmt, prettier --write, ruff format, ruff check --fix or gofmt -w on them):\n  {}",
            unformatted.len(),
            unformatted.join("\n  ")
        );
    }
    eprintln!("format: every hand-written file is formatted");
    Ok(())
}

/// Runs a formatter's check and returns the files it names (`file_of`
/// picks them out of its output lines). A formatter that fails without
/// naming a file fails with its own output.
fn listed(command: &mut Command, what: &str, file_of: impl Fn(&str) -> Option<String>) -> Result<Vec<String>> {
    let output = command.output().with_context(|| format!("starting {what}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let files: Vec<String> = stdout
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .filter_map(file_of)
        .collect();
    if !output.status.success() && files.is_empty() {
        bail!(
            "{what} failed ({}):\n{stdout}{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(files)
}

/// The files git tracks, relative to the workspace root.
fn tracked_files(workspace: &Path) -> Result<Vec<PathBuf>> {
    let output = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(workspace)
        .output()
        .context("starting git ls-files")?;
    if !output.status.success() {
        bail!("git ls-files failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    Ok(output
        .stdout
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| PathBuf::from(String::from_utf8_lossy(name).into_owned()))
        .collect())
}

/// The folders of the workspace's crates, relative to its root (`cargo fmt
/// --all` formats their files).
fn workspace_members(workspace: &Path) -> Result<Vec<PathBuf>> {
    let output = cargo()
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(workspace)
        .output()
        .context("starting cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).context("reading cargo metadata")?;
    let root = workspace.canonicalize().context("resolving the workspace root")?;
    let mut members = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let Some(manifest) = package["manifest_path"].as_str() else {
            continue;
        };
        let folder = Path::new(manifest).parent().unwrap_or(Path::new(""));
        let folder = folder.canonicalize().unwrap_or_else(|_| folder.to_path_buf());
        if let Ok(relative) = folder.strip_prefix(&root) {
            members.push(relative.to_path_buf());
        }
    }
    Ok(members)
}

fn has_extension(file: &Path, extensions: &[&str]) -> bool {
    file.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| extensions.contains(&extension))
}

/// Whether `file` is an askama template (in `templates/`, holding `{{` or `{%`).
fn is_template(workspace: &Path, file: &Path) -> bool {
    file.starts_with("templates")
        && std::fs::read_to_string(workspace.join(file)).is_ok_and(|text| text.contains("{{") || text.contains("{%"))
}

/// The tracked files with one of `extensions` that are not templates.
fn untemplated(workspace: &Path, tracked: &[PathBuf], extensions: &[&str]) -> Vec<PathBuf> {
    tracked
        .iter()
        .filter(|file| has_extension(file, extensions) && !is_template(workspace, file))
        .cloned()
        .collect()
}

/// prettier's command-line script, installed from `tests/format`'s lock.
fn prettier(workspace: &Path) -> Result<PathBuf> {
    let folder = workspace.join("tests").join("format");
    let script = folder
        .join("node_modules")
        .join("prettier")
        .join("bin")
        .join("prettier.cjs");
    if !script.is_file() {
        run_checked(
            Command::new("npm")
                .args(["ci", "--silent", "--no-audit", "--no-fund"])
                .current_dir(&folder),
            "npm ci in tests/format",
        )?;
    }
    Ok(script)
}
