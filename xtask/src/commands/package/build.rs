//! One build per ecosystem, each with that ecosystem's own tool, each
//! returning the artifacts it put into `into`; Go's module zip is written
//! by `modzip/main.go` with Go's own `golang.org/x/mod/zip`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use crate::support::tools::{cargo, workspace_root};

/// Where `cargo package` builds (and verifies) the crate: shared between
/// runs, so the dependencies are compiled once.
pub fn cargo_target() -> PathBuf {
    workspace_root().join("target").join("package-cargo")
}

/// Runs `command` with its output captured, failing with `what` and the
/// tool's own last lines when it fails; returns its standard output.
pub fn quiet(command: &mut Command, what: &str) -> Result<Vec<u8>> {
    let output = command
        .env("SOURCE_DATE_EPOCH", source_date_epoch())
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("starting {what}"))?;
    if !output.status.success() {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        let tail: Vec<&str> = text
            .lines()
            .rev()
            .take(15)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        crate::support::lanes::say!("{}", tail.join("\n"));
        bail!("{what} failed ({})", output.status);
    }
    Ok(output.stdout)
}

/// `cargo package` on the crate `name` at `version` in `source` (which
/// verifies that the packed crate builds on its own); the `.crate` is
/// copied into `into`.
pub fn rust(source: &Path, name: &str, version: &str, into: &Path) -> Result<PathBuf> {
    let target = cargo_target();
    quiet(
        cargo()
            .args(["package", "--quiet", "--target-dir"])
            .arg(&target)
            .current_dir(source),
        "cargo package",
    )?;
    let file = format!("{name}-{version}.crate");
    let artifact = into.join(&file);
    std::fs::copy(target.join("package").join(&file), &artifact).with_context(|| format!("copying {file}"))?;
    Ok(artifact)
}

/// `npm ci` (the locked compiler), `tsc` through the package's `build`
/// script, then `npm pack` into `into`.
pub fn typescript(source: &Path, into: &Path) -> Result<PathBuf> {
    quiet(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(source),
        "npm ci",
    )?;
    quiet(
        Command::new("npm").args(["run", "build"]).current_dir(source),
        "npm run build (tsc)",
    )?;
    let report = quiet(
        Command::new("npm")
            .args(["pack", "--json", "--pack-destination"])
            .arg(into)
            .current_dir(source),
        "npm pack",
    )?;
    let report: Value = serde_json::from_slice(&report).context("reading npm pack's report")?;
    let Some(file) = report[0]["filename"].as_str() else {
        bail!("npm pack named no tarball");
    };
    Ok(into.join(file))
}

/// `python -m build` (sdist, then the wheel built from it) with the
/// hatchling of the tools environment, without isolation, into `into`.
pub fn python(source: &Path, into: &Path) -> Result<Vec<PathBuf>> {
    let python = tools_python()?;
    let folder = source.with_file_name("python-dist");
    quiet(
        Command::new(&python)
            .args(["-m", "build", "--no-isolation", "--outdir"])
            .arg(&folder)
            .arg(source),
        "python -m build",
    )?;
    let mut built: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<Result<_, _>>()?;
    built.sort();
    let is = |path: &PathBuf, suffix: &str| path.to_string_lossy().ends_with(suffix);
    if built.len() != 2 || !built.iter().any(|path| is(path, ".whl")) || !built.iter().any(|path| is(path, ".tar.gz")) {
        bail!(
            "python -m build made {} files in {}, not one sdist and one wheel",
            built.len(),
            folder.display()
        );
    }
    built
        .into_iter()
        .map(|path| {
            let artifact = into.join(path.file_name().context("a built file has a name")?);
            std::fs::rename(&path, &artifact).with_context(|| format!("moving {}", path.display()))?;
            Ok(artifact)
        })
        .collect()
}

/// The folder, under the artifacts folder, that a Go module proxy can
/// serve as it is (`GOPROXY=file://...`).
pub const GO_PROXY: &str = "go-proxy";

/// The module of the program that writes the Go module zip
/// (`modzip/main.go`, with `golang.org/x/mod` pinned in its `go.sum`).
fn modzip() -> Command {
    let mut command = crate::support::tools::go(
        &workspace_root()
            .join("xtask")
            .join("src")
            .join("commands")
            .join("package")
            .join("modzip"),
    );
    command.args(["run", "."]);
    command
}

/// The Go module in `source` at `version` as a Go module proxy serves it,
/// under `into/go-proxy/`: `<escaped module path>/@v/` with the module zip
/// of `golang.org/x/mod/zip` (which checks the zip format's rules and
/// limits, and that the zip holds every file of the folder), its `.mod`,
/// its `.info` and the `list`.
pub fn go(source: &Path, version: &str, into: &Path) -> Result<Vec<PathBuf>> {
    let proxy = into.join(GO_PROXY);
    let written = quiet(
        modzip()
            .args([
                "build",
                "-version",
                &acp_generate::emit::go::module_version(version),
                "-dir",
            ])
            .arg(source)
            .arg("-out")
            .arg(&proxy),
        "the Go module zip (modzip build)",
    )?;
    let written = String::from_utf8(written).context("modzip named its files in UTF-8")?;
    let files: Vec<PathBuf> = written.lines().map(|file| proxy.join(file)).collect();
    ensure!(
        files.len() == 4,
        "modzip build wrote {} files, not a zip, a .mod, an .info and a list:\n{written}",
        files.len()
    );
    Ok(files)
}

/// The two `go.sum` lines of the module zip `zip` with its `.mod` file
/// `module` (`modzip sum`): what a consumer's `go.sum` must hold.
pub fn go_sums(zip: &Path, module: &Path, path: &str, version: &str) -> Result<String> {
    let sums = quiet(
        modzip()
            .args(["sum", "-module", path, "-version", version, "-zip"])
            .arg(zip)
            .arg("-mod")
            .arg(module),
        "the go.sum lines of the module zip (modzip sum)",
    )?;
    String::from_utf8(sums).context("modzip printed the go.sum lines in UTF-8")
}

/// The interpreter of the tools environment (`.tools/venv`, with the pinned
/// `build`, `hatchling` and `twine` of `tests/python/requirements.txt`).
pub fn tools_python() -> Result<PathBuf> {
    let workspace = workspace_root();
    crate::support::tools::virtual_environment(
        &workspace.join(".tools"),
        &workspace.join("tests").join("python").join("requirements.txt"),
    )
}

/// The `SOURCE_DATE_EPOCH` every build tool gets: the caller's, or 1980-01-01.
pub fn source_date_epoch() -> String {
    std::env::var("SOURCE_DATE_EPOCH").unwrap_or_else(|_| DEFAULT_SOURCE_DATE_EPOCH.to_owned())
}

/// The timestamp every build tool writes when `SOURCE_DATE_EPOCH` is not
/// set: 1980-01-01, the earliest a zip file (a wheel) can hold.
const DEFAULT_SOURCE_DATE_EPOCH: &str = "315532800";
