//! The version bump a semver-following maintainer must give each generated
//! package for a reviewed change. Every package binds both sides of the
//! protocol, so its users read and write every message; the policy is:
//! - major: a breaking finding in the stable tier, in any direction;
//! - minor: any other finding a message can show (an addition, a warning,
//!   or a break of the unstable tier or of a v2 draft, which upstream
//!   publishes as open to change: a policy choice, documented here);
//! - patch: changes of form only (no finding, or only findings no message
//!   tells apart).

use serde::Serialize;

use super::rules::Level;
use super::tiers::Tier;
use super::{Finding, Review};

/// A semver bump.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bump {
    Patch,
    Minor,
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }

    /// `version` (`MAJOR.MINOR.PATCH`, with any pre-release or build
    /// suffix dropped) raised by this bump; `None` when it is not a version.
    pub fn apply(self, version: &str) -> Option<String> {
        let core = version.split(['-', '+']).next()?;
        let parts: Vec<u64> = core.split('.').map(str::parse).collect::<Result<_, _>>().ok()?;
        let [major, minor, patch] = parts[..] else {
            return None;
        };
        Some(match self {
            Bump::Major => format!("{}.0.0", major + 1),
            Bump::Minor => format!("{major}.{}.0", minor + 1),
            Bump::Patch => format!("{major}.{minor}.{}", patch + 1),
        })
    }
}

/// The bump one package needs, and the finding or rule that decides it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageBump {
    pub package: &'static str,
    pub bump: Bump,
    pub why: String,
}

/// The bump a finding asks for.
fn of_finding(finding: &Finding) -> Bump {
    match (finding.level, finding.tier) {
        (Level::Breaking, Tier::Stable) => Bump::Major,
        (Level::Info, _) => Bump::Patch,
        _ => Bump::Minor,
    }
}

/// The bump of the whole review, with the finding that decides it.
pub fn bump(review: &Review) -> (Bump, Option<&Finding>) {
    if !review.conflicts.is_empty() {
        return (Bump::Major, None);
    }
    review
        .findings
        .iter()
        .map(|finding| (of_finding(finding), Some(finding)))
        .max_by_key(|(bump, _)| *bump)
        .unwrap_or((Bump::Patch, None))
}

/// The bump of each generated package, one per language of
/// [`acp_generate::emit::LANGUAGES`].
pub fn packages(review: &Review) -> Vec<PackageBump> {
    let (bump, finding) = bump(review);
    let why = match (bump, finding) {
        (_, Some(finding)) => format!(
            "{} {} ({}, {} tier)",
            finding.rule,
            finding.subject,
            finding.level.as_str(),
            finding.tier.as_str()
        ),
        (Bump::Major, None) => "an overlay the head could not include".to_owned(),
        _ => "no change a message can show".to_owned(),
    };
    acp_generate::emit::LANGUAGES
        .iter()
        .map(|language| PackageBump {
            package: language.id,
            bump,
            why: why.clone(),
        })
        .collect()
}
