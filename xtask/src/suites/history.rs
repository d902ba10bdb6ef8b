//! The review on the protocol's published history: every schema file the
//! npm packages `@zed-industries/agent-client-protocol` and
//! `@agentclientprotocol/sdk` shipped, pinned by version and SHA-256 in
//! `tests/history/releases.json` (consecutive identical files left out), in
//! four lines (v1 and v2, stable and unstable). Each consecutive pair is
//! reviewed as `cargo xtask review` would, and its breaking findings must be
//! exactly those `tests/history/verdicts.json` expects, each there with the
//! changelog's words that justify it; a pair it does not list must have
//! none, and each names the stability tier the review gives it. The table
//! gives each pair's breaking findings per tier and the version bump the
//! review computes beside the one upstream made. Every breaking finding carries its witness by construction (the
//! review drops a verdict it cannot show), and a second validator, ajv
//! (`tests/history/confirm.mjs`), checks each one again: the writer's schema
//! accepts it and the reader's rejects it. Packages are fetched with
//! `npm pack` into `target/history-schemas/` (never committed).
//!
//! The stable v1 schema before those packages shipped one exists only as
//! releases of the `agent-client-protocol-schema` crate, which carry no
//! schema file: for those (the `v1-stable-crate` line) a scratch program
//! built against the release prints its schema with the generator of the
//! default schema (`schema/src/upstream.rs`), pinned to the schemars and
//! serde_json releases the SHA-256s were taken with.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use acp_review::bump::{self, Bump};
use acp_review::rules::Level;
use acp_review::tiers::Tier;
use acp_review::witness::Reader;
use serde_json::json;

#[derive(Deserialize)]
struct Releases {
    lines: BTreeMap<String, Vec<Release>>,
}

#[derive(Deserialize)]
struct Release {
    package: String,
    version: String,
    file: String,
    sha256: String,
}

impl Release {
    /// `sdk@0.7.0`, `zed@0.3.1`, `crate@1.3.0`.
    fn short(&self) -> String {
        let name = if self.package.starts_with("@zed-industries/") {
            "zed"
        } else if self.is_crate() {
            "crate"
        } else {
            "sdk"
        };
        format!("{name}@{}", self.version)
    }

    /// Whether the release is one of the upstream crate, whose schema the
    /// generator of the default schema prints ([`crate_schema`]).
    fn is_crate(&self) -> bool {
        self.package == acp_schema_source::upstream::UPSTREAM_CRATE
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdicts {
    #[serde(rename = "description")]
    _description: String,
    pairs: BTreeMap<String, Expected>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    /// The changelog's words for the release, with its version.
    #[serde(rename = "changelog")]
    _changelog: String,
    #[serde(default)]
    breaking: Vec<Verdict>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Verdict {
    rule: String,
    subject: String,
    /// `stable`, `unstable` or `draft`.
    tier: String,
    /// Why the break is real, or why it disagrees with the changelog.
    #[serde(rename = "why")]
    _why: String,
}

/// One reviewed pair, for the table.
struct Row {
    pair: String,
    counts: BTreeMap<Level, usize>,
    breaking: BTreeMap<Tier, usize>,
    bump: Bump,
    upstream: &'static str,
}

/// Fetches the pinned releases, reviews every consecutive pair and checks
/// the breaking findings against the expected verdicts.
pub fn run(workspace: &Path) -> Result<()> {
    let folder = workspace.join("tests").join("history");
    let releases: Releases = read(&folder.join("releases.json"))?;
    let verdicts: Verdicts = read(&folder.join("verdicts.json"))?;
    let root = workspace.join("target").join("history-schemas");
    let mut failures = Vec::new();
    let mut rows = Vec::new();
    let mut seen = BTreeSet::new();
    let mut cases = Vec::new();
    for (line, files) in &releases.lines {
        for release in files {
            fetch(&root, release)?;
        }
        for pair in files.windows(2) {
            let (base, head) = (&pair[0], &pair[1]);
            let key = format!("{line} {} -> {}", base.short(), head.short());
            seen.insert(key.clone());
            let outcome = crate::commands::review::run(
                &path_of(&root, base)?.display().to_string(),
                &path_of(&root, head)?.display().to_string(),
                false,
                false,
            )
            .with_context(|| format!("reviewing {key}"))?;
            let review = outcome.review;
            for finding in review
                .findings
                .iter()
                .filter(|finding| finding.level == Level::Breaking)
            {
                for witness in &finding.witnesses {
                    let (writer, reader) = match witness.reader {
                        Reader::Old => (head, base),
                        Reader::New => (base, head),
                    };
                    let node = |release: &Release, pointer: &str| json!({"file": path_of(&root, release).map(|path| path.display().to_string()).unwrap_or_default(), "pointer": pointer});
                    let payload = witness
                        .message
                        .get("params")
                        .or_else(|| witness.message.get("result"))
                        .cloned()
                        .unwrap_or_default();
                    cases.push(json!({
                        "label": format!("{key}: {} {} ({} readers)", finding.rule, finding.subject, witness.reader.as_str()),
                        "writer": node(writer, &witness.writer_schema),
                        "reader": witness.reader_schema.as_deref().map(|pointer| node(reader, pointer)),
                        "payload": payload,
                    }));
                }
            }
            let found: BTreeSet<(String, String, String)> = review
                .findings
                .iter()
                .filter(|finding| finding.level == Level::Breaking)
                .map(|finding| {
                    (
                        finding.rule.to_owned(),
                        finding.subject.clone(),
                        finding.tier.as_str().to_owned(),
                    )
                })
                .collect();
            let expected: BTreeSet<(String, String, String)> = verdicts
                .pairs
                .get(&key)
                .map(|pair| {
                    pair.breaking
                        .iter()
                        .map(|verdict| (verdict.rule.clone(), verdict.subject.clone(), verdict.tier.clone()))
                        .collect()
                })
                .unwrap_or_default();
            for (rule, subject, tier) in found.difference(&expected) {
                let witness = review
                    .findings
                    .iter()
                    .find(|finding| finding.rule == rule && &finding.subject == subject)
                    .and_then(|finding| finding.witnesses.first());
                let shown = witness
                    .map(|witness| format!("{} at {}: {}", witness.message, witness.pointer, witness.error))
                    .unwrap_or_default();
                failures.push(format!(
                    "{key}: unexpected breaking {rule} {subject} ({tier} tier): {shown}"
                ));
            }
            for (rule, subject, tier) in expected.difference(&found) {
                failures.push(format!(
                    "{key}: expected breaking {rule} {subject} ({tier} tier) is not reported as breaking of that tier"
                ));
            }
            let mut counts = BTreeMap::new();
            let mut breaking = BTreeMap::new();
            for finding in &review.findings {
                *counts.entry(finding.level).or_insert(0) += 1;
                if finding.level == Level::Breaking {
                    *breaking.entry(finding.tier).or_insert(0) += 1;
                }
            }
            rows.push(Row {
                pair: key,
                counts,
                breaking,
                bump: bump::bump(&review).0,
                upstream: upstream_bump(&base.version, &head.version),
            });
        }
    }
    for stale in verdicts.pairs.keys().filter(|key| !seen.contains(*key)) {
        failures.push(format!(
            "verdicts.json names `{stale}`, which is not a consecutive pair of releases.json"
        ));
    }
    print_table(&rows);
    confirm(workspace, &root, &cases, &mut failures)?;
    if !failures.is_empty() {
        bail!(
            "the review disagrees with tests/history/verdicts.json:\n{}",
            failures.join("\n")
        );
    }
    Ok(())
}

/// Has ajv (`tests/history/confirm.mjs`) check every witness: the writer's
/// schema accepts it, the reader's rejects it.
fn confirm(workspace: &Path, root: &Path, cases: &[serde_json::Value], failures: &mut Vec<String>) -> Result<()> {
    crate::suites::independent::generator(workspace)?;
    let file = root.join("witnesses.json");
    std::fs::write(&file, serde_json::to_string(cases)?).with_context(|| format!("writing {}", file.display()))?;
    let script = workspace.join("tests").join("history").join("confirm.mjs");
    let output = Command::new("node")
        .arg(&script)
        .arg(&file)
        .output()
        .context("running node (is Node.js installed?)")?;
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).with_context(|| {
        format!(
            "{} printed no summary: {}",
            script.display(),
            String::from_utf8_lossy(&output.stderr)
        )
    })?;
    crate::support::lanes::say!("ajv on the witnesses: {summary}");
    for disagreement in summary["disagreements"].as_array().into_iter().flatten() {
        failures.push(format!("ajv: {}", disagreement.as_str().unwrap_or_default()));
    }
    Ok(())
}

fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not valid", path.display()))
}

fn package_folder(root: &Path, release: &Release) -> PathBuf {
    root.join(release.short())
}

/// The release's schema file, checked against its pinned SHA-256.
fn path_of(root: &Path, release: &Release) -> Result<PathBuf> {
    let path = package_folder(root, release).join("package").join(&release.file);
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    if digest != release.sha256 {
        bail!(
            "{} {}@{}: SHA-256 {digest}, pinned {}",
            release.file,
            release.package,
            release.version,
            release.sha256
        );
    }
    Ok(path)
}

/// `npm pack`s a release once and keeps its `schema/` folder; prints a
/// crate release's schema ([`crate_schema`]).
fn fetch(root: &Path, release: &Release) -> Result<()> {
    if release.is_crate() {
        return crate_schema(root, release);
    }
    let folder = package_folder(root, release);
    if folder.join("package").join("schema").is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let spec = format!("{}@{}", release.package, release.version);
    let packed = Command::new("npm")
        .args(["pack", "--silent", &spec])
        .current_dir(&folder)
        .output()
        .context("running npm pack (is Node.js installed?)")?;
    if !packed.status.success() {
        bail!("npm pack {spec} failed: {}", String::from_utf8_lossy(&packed.stderr));
    }
    let tarball = String::from_utf8_lossy(&packed.stdout)
        .trim()
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    let status = Command::new("tar")
        .args(["xzf", &tarball, "package/schema"])
        .current_dir(&folder)
        .status()
        .context("running tar")?;
    std::fs::remove_file(folder.join(&tarball)).ok();
    if !status.success() || !folder.join("package").join("schema").is_dir() {
        bail!("{spec} has no schema/ folder");
    }
    Ok(())
}

/// The schemars and serde_json releases the crate lines' SHA-256s were
/// taken with: the generator's output depends on them.
const CRATE_GENERATOR_PINS: [(&str, &str); 2] = [("schemars", "1.2.3"), ("serde_json", "1.0.154")];

/// Prints the schema of a release of the upstream crate, once: a scratch
/// program depending on that release (with its `unstable` feature for
/// `schema.unstable.json`) runs the generator of the default schema and
/// writes the file where [`path_of`] reads it. The programs share one
/// target folder, so the dependencies build once.
fn crate_schema(root: &Path, release: &Release) -> Result<()> {
    let folder = package_folder(root, release);
    let file = folder.join("package").join(&release.file);
    if file.is_file() {
        return Ok(());
    }
    let unstable = match release.file.as_str() {
        "schema.json" => false,
        "schema.unstable.json" => true,
        other => bail!(
            "tests/history/releases.json: {} {} names `{other}`; a crate release has `schema.json` or `schema.unstable.json`",
            release.package,
            release.version
        ),
    };
    let program = folder.join(if unstable { "unstable" } else { "stable" });
    let upstream = crate::support::tools::workspace_root()
        .join("schema")
        .join("src")
        .join("upstream.rs");
    let pins: String = CRATE_GENERATOR_PINS
        .iter()
        .map(|(name, version)| format!("{name} = \"={version}\"\n"))
        .collect();
    let manifest = format!(
        "[package]\nname = \"crate-schema\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\n{} = {{ version = \"={}\", default-features = false{} }}\n{pins}\n[workspace]\n",
        release.package,
        release.version,
        if unstable { ", features = [\"unstable\"]" } else { "" }
    );
    let main = format!(
        "#[allow(dead_code)]\n#[path = {:?}]\nmod upstream;\n\n\
         fn main() {{\n    print!(\"{{:#}}\\n\", upstream::default_schema());\n}}\n",
        upstream.display().to_string()
    );
    crate::support::output::write_file(&program.join("Cargo.toml"), manifest.as_bytes())?;
    crate::support::output::write_file(&program.join("src").join("main.rs"), main.as_bytes())?;
    let output = crate::support::tools::cargo()
        .args(["run", "--quiet"])
        .env("CARGO_TARGET_DIR", root.join("crate-target"))
        .current_dir(&program)
        .output()
        .context("running cargo")?;
    if !output.status.success() {
        bail!(
            "printing the schema of {} {}: {}",
            release.package,
            release.version,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    crate::support::output::write_file(&file, &output.stdout)
}

fn print_table(rows: &[Row]) {
    let levels = [Level::Breaking, Level::Warning, Level::Safe, Level::Info];
    crate::support::lanes::say!(
        "| pair | breaking | warning | safe | info | breaking stable | breaking unstable | breaking draft | bump | upstream's bump |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"
    );
    let mut totals: BTreeMap<Level, usize> = BTreeMap::new();
    let mut tiers: BTreeMap<Tier, usize> = BTreeMap::new();
    for row in rows {
        let mut cells: Vec<String> = levels
            .iter()
            .map(|level| row.counts.get(level).copied().unwrap_or(0).to_string())
            .collect();
        cells.extend(Tier::ALL.map(|tier| row.breaking.get(&tier).copied().unwrap_or(0).to_string()));
        crate::support::lanes::say!(
            "| {} | {} | {} | {} |",
            row.pair,
            cells.join(" | "),
            row.bump.as_str(),
            row.upstream
        );
        for (level, count) in &row.counts {
            *totals.entry(*level).or_insert(0) += count;
        }
        for (tier, count) in &row.breaking {
            *tiers.entry(*tier).or_insert(0) += count;
        }
    }
    let mut cells: Vec<String> = levels
        .iter()
        .map(|level| totals.get(level).copied().unwrap_or(0).to_string())
        .collect();
    cells.extend(Tier::ALL.map(|tier| tiers.get(&tier).copied().unwrap_or(0).to_string()));
    crate::support::lanes::say!("| {} pairs | {} | | |", rows.len(), cells.join(" | "));
}

/// The bump upstream made from `base` to `head` (`MAJOR.MINOR.PATCH`, a
/// pre-release suffix ignored): the first part that changed.
fn upstream_bump(base: &str, head: &str) -> &'static str {
    let parts = |version: &str| -> Vec<u64> {
        version
            .split(['-', '+'])
            .next()
            .unwrap_or_default()
            .split('.')
            .map(|part| part.parse().unwrap_or(0))
            .collect()
    };
    let (base, head) = (parts(base), parts(head));
    match (0..3).find(|index| base.get(*index) != head.get(*index)) {
        Some(0) => "major",
        Some(1) => "minor",
        Some(_) => "patch",
        None => "pre-release",
    }
}
