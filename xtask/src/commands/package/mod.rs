//! `cargo xtask package`: what a maintainer uploads, built by each
//! ecosystem's own tools from the packages `generate` renders: the Rust
//! crate as a `.crate` (`cargo package`), the npm package as a tarball
//! (`npm pack`, after `tsc`), the Python package as an sdist and a wheel
//! (`python -m build`, the hatchling backend pinned in the tools
//! environment), the Go module as a Go module proxy serves it (`go-proxy/`:
//! the module zip of `golang.org/x/mod/zip`, its `.mod`, `.info` and
//! `list`). Each carries the version of
//! [`acp_generate::emit::package::version`], a README with a usage example
//! and the extended schema. Each language's registration names its build
//! ([`build`], through [`crate::languages::LanguageTests::package`]) and the
//! installs [`check`] makes of its artifacts ([`install`]).
//!
//! Everything is built in a scratch folder; only when every artifact is
//! there are they moved into `--out` (each at its path under the artifacts
//! folder), so bad input or a failed build leaves nothing behind; a package
//! name that cannot carry the version (a Go module path without its major
//! version, [`acp_generate::emit::Package::publishable`]) is refused before
//! anything is built. Builds are reproducible: every tool gets the same
//! `SOURCE_DATE_EPOCH`, `cargo package`, `npm pack` and Go's module zip
//! write fixed timestamps and sorted entries of their own, and hatchling
//! honours the variable for both the sdist and the wheel ([`check`] packs
//! twice and compares the bytes).

pub mod build;
pub mod check;
pub mod example;
pub mod install;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use acp_generate::emit::PackageNames;
use acp_schema_source::SourceOptions;

use crate::commands::generate;

/// What `cargo xtask package` was asked for.
pub struct Options {
    pub source: SourceOptions,
    /// The package names; their version is replaced by the computed one.
    pub names: PackageNames,
    /// The base version (`--version`); the upstream release when absent.
    pub version: Option<String>,
    /// The source the packages at `version` were made from
    /// (`--bump-from`): `version` is raised by the review's bump.
    pub bump_from: Option<String>,
    pub strict_names: bool,
    pub out: PathBuf,
}

/// The artifacts, as moved into the output folder.
pub struct Packaged {
    pub version: String,
    /// The output folder.
    pub out: PathBuf,
    pub artifacts: Vec<PathBuf>,
}

impl Packaged {
    /// Where `artifact` is under the output folder (`go-proxy/.../list`).
    pub fn relative<'a>(&self, artifact: &'a Path) -> &'a Path {
        artifact.strip_prefix(&self.out).unwrap_or(artifact)
    }
}

/// The command: builds every package and names each artifact with its size.
pub fn command(options: Options) -> Result<()> {
    let packaged = run(&options)?;
    for artifact in &packaged.artifacts {
        crate::support::lanes::say!(
            "wrote {} ({} bytes)",
            artifact.display(),
            std::fs::metadata(artifact)?.len()
        );
    }
    Ok(())
}

/// Builds every package and moves the artifacts into `options.out`.
pub fn run(options: &Options) -> Result<Packaged> {
    if options.out.exists() && !options.out.is_dir() {
        bail!("--out {}: a file is there, not a folder", options.out.display());
    }
    let base = match (&options.version, &options.source.schema_file) {
        (Some(base), _) => base.clone(),
        (None, None) => acp_schema_source::upstream::UPSTREAM_VERSION.to_owned(),
        (None, Some(file)) => bail!(
            "--schema {}: give --version MAJOR.MINOR.PATCH too (a schema file does not say which release it is)",
            file.display()
        ),
    };
    let base = match &options.bump_from {
        Some(from) => bumped(from, &options.source, &base)?,
        None => base,
    };
    let version_of = |overlays: &[String]| {
        acp_generate::emit::package::version(&base, overlays).map_err(|message| anyhow::anyhow!("--version: {message}"))
    };
    version_of(&[])?;
    let schema = acp_schema_source::load(&options.source)?;
    let overlays: Vec<String> = schema.overlays.iter().map(|overlay| overlay.id.clone()).collect();
    let version = version_of(&overlays)?;
    let names = PackageNames {
        version: version.clone(),
        ..options.names.clone()
    };
    for language in acp_generate::emit::LANGUAGES {
        (language.package.publishable)(&names).map_err(|message| anyhow::anyhow!("--version {version}: {message}"))?;
    }
    let outputs = generate::render_schema(&schema, &names, &[], false, options.strict_names)?;
    let scratch = Scratch::new()?;
    let built = scratch.path.join("artifacts");
    std::fs::create_dir_all(&built).with_context(|| format!("creating {}", built.display()))?;
    let mut artifacts = Vec::new();
    for (folder, files) in &outputs {
        if let Some(language) = crate::registry::language(folder) {
            let Some(package) = language.package else {
                language.skipping("package build", "cargo xtask package");
                continue;
            };
            let source = write_package(&scratch.path.join(folder), files)?;
            artifacts.extend(package(&source, &names, &version, &built)?);
        }
    }
    std::fs::create_dir_all(&options.out).with_context(|| format!("creating {}", options.out.display()))?;
    let mut moved = Vec::new();
    for artifact in artifacts {
        let relative = artifact
            .strip_prefix(&built)
            .with_context(|| format!("{} is not in the artifacts folder", artifact.display()))?;
        let target = options.out.join(relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        move_file(&artifact, &target)?;
        moved.push(target);
    }
    Ok(Packaged {
        version,
        out: options.out.clone(),
        artifacts: moved,
    })
}

/// `version` raised by the bump the review of this source (without its
/// overlays) against `from` computes.
fn bumped(from: &str, source: &SourceOptions, version: &str) -> Result<String> {
    let head = source
        .schema_file
        .as_ref()
        .map_or_else(|| "default".to_owned(), |file| file.display().to_string());
    let review = crate::commands::review::run(from, &head, false, false)
        .with_context(|| format!("--bump-from {from}: reviewing {head} against it"))?
        .review;
    let (bump, finding) = acp_review::bump::bump(&review);
    let raised = bump
        .apply(version)
        .with_context(|| format!("--version {version}: not MAJOR.MINOR.PATCH"))?;
    crate::support::lanes::say!(
        "package: {} bump from {version} to {raised}{}",
        bump.as_str(),
        finding.map_or_else(String::new, |finding| format!(
            " ({} {}, {} tier)",
            finding.rule,
            finding.subject,
            finding.tier.as_str()
        ))
    );
    Ok(raised)
}

/// Writes one package's files into `folder`.
fn write_package(folder: &Path, files: &crate::support::output::Files) -> Result<PathBuf> {
    for (relative, contents) in files {
        let path = folder.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(folder.to_path_buf())
}

/// Moves `from` to `to`: a rename, or a copy where they are on different
/// file systems (the scratch folder is in the system's temporary folder).
fn move_file(from: &Path, to: &Path) -> Result<()> {
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    let mut partial = to.as_os_str().to_owned();
    partial.push(format!(".partial-{}", std::process::id()));
    let partial = PathBuf::from(partial);
    std::fs::copy(from, &partial).with_context(|| format!("copying {} to {}", from.display(), partial.display()))?;
    std::fs::rename(&partial, to).with_context(|| format!("renaming into {}", to.display()))
}

/// A scratch folder of this process, removed when dropped.
pub struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    pub fn new() -> Result<Scratch> {
        let path = std::env::temp_dir().join(format!("acp-package-{}-{}", std::process::id(), unique()));
        std::fs::create_dir_all(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Scratch { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// A number no other scratch folder of this process has.
fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}
