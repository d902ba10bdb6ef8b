//! The packages as their users get them, run by `cargo xtask test` on the
//! default schema: packed twice (the artifacts must be byte-identical),
//! then each artifact installed into a clean place of its own and used
//! there by its README's usage example, as every registered language's
//! [`crate::languages::Install`]s say ([`crate::registry::LANGUAGES`]; the
//! installs themselves are [`super::install`]'s), whose output must be
//! [`super::example::expected`] in every language. The registries' own clients check the
//! artifacts: `twine check --strict` here, `npm publish --dry-run` of the
//! tarball and `cargo publish --dry-run` in the unpacked crate (which must
//! pack the same bytes) in the installs, and the go command (`go get` from
//! the proxy folder, which checks the module zip as it downloads it, then
//! `go mod verify`).
//!
//! The npm, pip and cargo publish steps reach the package registries (the
//! example's dependencies, the sdist's build backend, the registry index
//! `cargo publish` reads); the `.crate` is built offline, and so is the Go
//! module's install (`golang.org/x/mod`, which writes the zip, comes from
//! the Go module proxy once).
use std::collections::BTreeMap;
use std::process::Command;

use anyhow::{ensure, Context, Result};

use acp_generate::emit::PackageNames;
use acp_schema_source::SourceOptions;

use super::build::{quiet, tools_python};
use super::example::{expected, parse};
use super::{Options, Packaged, Scratch};
use crate::registry::LANGUAGES;

/// Packs the default schema twice, compares, and checks every artifact.
pub fn run() -> Result<()> {
    let scratch = Scratch::new()?;
    let names = PackageNames::default();
    let pack = |folder: &str| {
        super::run(&Options {
            source: SourceOptions::default(),
            names: names.clone(),
            version: None,
            bump_from: None,
            strict_names: false,
            out: scratch.path.join(folder),
        })
    };
    let packaged = pack("first")?;
    let again = pack("second")?;
    identical(&packaged, &again)?;
    for artifact in &packaged.artifacts {
        let size = std::fs::metadata(artifact)?.len();
        crate::support::lanes::say!(
            "packaged {} ({size} bytes), byte-identical when packed again",
            packaged.relative(artifact).display()
        );
    }
    let find = |suffix: &str| {
        packaged
            .artifacts
            .iter()
            .find(|path| path.to_string_lossy().ends_with(suffix))
            .cloned()
            .with_context(|| format!("no `*{suffix}` artifact"))
    };
    let work = &scratch.path;
    let mut outputs = Vec::new();
    for language in LANGUAGES.iter().filter(|language| language.installs.is_empty()) {
        language.skipping("package installs", "the package check");
    }
    for install in LANGUAGES.iter().flat_map(|language| language.installs) {
        let folder = install.folder.map_or_else(|| work.clone(), |folder| work.join(folder));
        let output = (install.run)(&find(install.suffix)?, &names, &packaged.version, &folder)?;
        outputs.push((install.what, output));
    }
    let expected = expected();
    for (what, output) in outputs {
        let printed = parse(&output).with_context(|| format!("{what}: the usage example printed\n{output}"))?;
        ensure!(
            printed == expected,
            "{what}: the usage example printed\n{output}\nnot\n{expected:?}"
        );
        crate::support::lanes::say!("{what}: the usage example ran against the installed package as expected");
    }
    let python = tools_python()?;
    quiet(
        Command::new(&python)
            .args(["-m", "twine", "check", "--strict"])
            .arg(find(".whl")?)
            .arg(find(".tar.gz")?),
        "twine check --strict",
    )?;
    crate::support::lanes::say!("twine check --strict passed");
    Ok(())
}

/// The two runs made the same files with the same bytes.
fn identical(first: &Packaged, second: &Packaged) -> Result<()> {
    let read = |packaged: &Packaged| -> Result<BTreeMap<String, Vec<u8>>> {
        packaged
            .artifacts
            .iter()
            .map(|path| Ok((packaged.relative(path).display().to_string(), std::fs::read(path)?)))
            .collect()
    };
    let (one, two) = (read(first)?, read(second)?);
    ensure!(
        one.keys().eq(two.keys()),
        "packing twice made different files: {:?} and {:?}",
        one.keys(),
        two.keys()
    );
    for (name, bytes) in &one {
        ensure!(two[name] == *bytes, "packing twice made different bytes for {name}");
    }
    Ok(())
}
