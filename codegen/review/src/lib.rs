//! The review stage: a semantic diff of two IRs ([`diff`]), each change
//! judged by the [`rules`] for old and new readers in every direction the
//! messages carrying it travel ([`roles`]), a breaking verdict kept only
//! with a message that proves it ([`witness`], framed by [`slots`]), with
//! the public names it touches in each language's bindings, rendered by
//! [`report`]. Each finding carries the stability tier of what it touches
//! ([`tiers`]), and the review the version bump each package needs
//! ([`bump`]).

pub mod bump;
pub mod diff;
pub mod report;
pub mod roles;
pub mod rules;
pub mod slots;
pub mod tiers;
pub mod witness;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use diff::Subject;
use roles::Direction;
use rules::{Level, Rule};
use tiers::{Tier, Tiers};
use witness::{Reader, Schema, Searcher, Witness};

/// One judged change.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub level: Level,
    /// Peers built on the base reading what peers built on the head send.
    pub old_reader: Level,
    /// Peers built on the head reading what peers built on the base send.
    pub new_reader: Level,
    pub subject: String,
    pub detail: String,
    /// The most binding stability tier of what the change touches, in the
    /// base or the head.
    pub tier: Tier,
    /// The level in each direction the change travels; empty when no
    /// message carries it (the change is in the bindings only).
    pub directions: BTreeMap<Direction, Level>,
    /// The messages that carry it (`session/prompt params`).
    pub messages: Vec<String>,
    /// The public names it touches, per language.
    pub api: Api,
    /// Other places the same change was made (the same rule, member and
    /// detail in other types): one change, one finding.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// For each reader the change breaks, the message that shows it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub witnesses: Vec<Witness>,
}

/// Public names of the bindings, by language id (every language of
/// [`acp_generate::emit::LANGUAGES`]); empty for a change no binding shows.
pub type Api = BTreeMap<&'static str, String>;

/// An overlay the head could not include.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    pub overlay: String,
    pub message: String,
}

/// A whole review.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub base: String,
    pub head: String,
    pub conflicts: Vec<Conflict>,
    pub findings: Vec<Finding>,
}

impl Review {
    /// The worst level of any finding or conflict.
    pub fn worst(&self) -> Level {
        self.worst_from(Tier::Draft)
    }

    /// How many findings have `level`.
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|finding| finding.level == level).count()
    }

    /// The worst level of any conflict, or of any finding whose tier is
    /// `tier` or more binding.
    pub fn worst_from(&self, tier: Tier) -> Level {
        self.findings
            .iter()
            .filter(|finding| finding.tier <= tier)
            .map(|finding| finding.level)
            .fold(self.conflicts_level(), Level::max)
    }

    fn conflicts_level(&self) -> Level {
        if self.conflicts.is_empty() {
            Level::Safe
        } else {
            Level::Breaking
        }
    }
}

/// Reviews the change from `base` to `head`; `conflicts` are overlays the
/// head's source named but could not apply. A rule's breaking verdict for a
/// reader stands only with a witness; without one the change is equivalent
/// for that reader ([`Level::Info`]). An error when the validator cannot
/// compile a schema, so no witness can be confirmed.
pub fn review(
    base_label: &str,
    base_schema: Schema,
    head_label: &str,
    head_schema: Schema,
    conflicts: Vec<Conflict>,
) -> Result<Review, String> {
    let (base, head) = (base_schema.ir, head_schema.ir);
    let searcher = Searcher::new(base_schema, head_schema)?;
    let (base_tiers, head_tiers) = (Tiers::new(base), Tiers::new(head));
    let base_flows = roles::flows(base);
    let head_flows = roles::flows(head);
    let mut findings: Vec<Finding> = conflicts
        .iter()
        .map(|conflict| Finding {
            rule: Rule::OverlayConflict.id(),
            level: Rule::OverlayConflict.level(),
            old_reader: Rule::OverlayConflict.old_reader(),
            new_reader: Rule::OverlayConflict.new_reader(),
            subject: format!("overlay {}", conflict.overlay),
            detail: conflict.message.clone(),
            tier: Tier::Stable,
            directions: BTreeMap::new(),
            messages: Vec::new(),
            api: Api::default(),
            also: Vec::new(),
            witnesses: Vec::new(),
        })
        .collect();
    // (rule, member, detail, readers' levels) -> the finding that holds it.
    let mut same_change: BTreeMap<(Rule, String, String, Level, Level), usize> = BTreeMap::new();
    for change in diff::diff(base, head) {
        let (directions, messages): (BTreeSet<Direction>, Vec<String>) = match &change.subject {
            Subject::Type { name, .. } => {
                let flows: BTreeSet<&roles::Flow> = base_flows
                    .get(name)
                    .into_iter()
                    .chain(head_flows.get(name))
                    .flatten()
                    .collect();
                (
                    flows.iter().map(|flow| flow.direction).collect(),
                    flows
                        .iter()
                        .map(|flow| flow.message.clone())
                        .collect::<BTreeSet<_>>()
                        .into_iter()
                        .collect(),
                )
            }
            Subject::Method { name } => {
                let mut directions = roles::method_directions(base, name);
                directions.extend(roles::method_directions(head, name));
                (directions, vec![name.clone()])
            }
        };
        let (mut old_reader, mut new_reader) = (change.rule.old_reader(), change.rule.new_reader());
        let mut witnesses = Vec::new();
        let mut equivalent = Vec::new();
        for (reader, level) in [(Reader::Old, &mut old_reader), (Reader::New, &mut new_reader)] {
            if *level == Level::Breaking {
                match searcher.search(&change, reader) {
                    Some(witness) => witnesses.push(witness),
                    None => {
                        *level = Level::Info;
                        equivalent.push(reader.as_str());
                    }
                }
            }
        }
        let mut detail = change.detail.clone();
        if !equivalent.is_empty() {
            detail.push_str(&format!(" (no message breaks {} readers)", equivalent.join(" or ")));
        }
        let level = old_reader.max(new_reader);
        let tier = [base_tiers.of(&change.subject), head_tiers.of(&change.subject)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(Tier::Stable);
        if let Subject::Type {
            member: Some(member), ..
        } = &change.subject
        {
            let key = (change.rule, member.clone(), detail.clone(), old_reader, new_reader);
            if let Some(&index) = same_change.get(&key) {
                let first = &mut findings[index];
                first.also.push(change.subject.describe());
                first.tier = first.tier.min(tier);
                first
                    .directions
                    .extend(directions.into_iter().map(|direction| (direction, level)));
                first.messages.extend(messages);
                first.messages.sort();
                first.messages.dedup();
                continue;
            }
            same_change.insert(key, findings.len());
        }
        findings.push(Finding {
            rule: change.rule.id(),
            level,
            old_reader,
            new_reader,
            subject: change.subject.describe(),
            detail,
            tier,
            directions: directions.into_iter().map(|direction| (direction, level)).collect(),
            messages,
            api: api(&change.subject),
            also: Vec::new(),
            witnesses,
        });
    }
    Ok(Review {
        base: base_label.to_owned(),
        head: head_label.to_owned(),
        conflicts,
        findings,
    })
}

/// The public names a change touches in each language, as its
/// registration names them.
fn api(subject: &Subject) -> Api {
    acp_generate::emit::LANGUAGES
        .iter()
        .map(|language| {
            let name = match subject {
                Subject::Type { name, variant, member } => {
                    (language.api_name)(name, variant.as_deref(), member.as_deref())
                }
                Subject::Method { name } => name.clone(),
            };
            (language.id, name)
        })
        .collect()
}
