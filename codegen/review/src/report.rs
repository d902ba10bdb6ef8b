//! A review as Markdown fit for a pull-request comment (a summary table,
//! by level, direction and tier, the version bump of each package, then the
//! findings grouped by level, then the binding impact) or as JSON.

use std::fmt::Write;

use serde::Serialize;

use super::bump::{self, PackageBump};
use super::roles::Direction;
use super::rules::Level;
use super::tiers::Tier;
use super::{Finding, Review};

const LEVELS: [Level; 4] = [Level::Breaking, Level::Warning, Level::Safe, Level::Info];

/// How much of a witness message Markdown shows.
const WITNESS_CHARACTERS: usize = 160;

/// The review and the bumps it computes, as the JSON report holds them.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    review: &'a Review,
    bumps: Vec<PackageBump>,
}

/// The review as pretty JSON, with a final newline.
pub fn json(review: &Review) -> String {
    let report = Report {
        review,
        bumps: bump::packages(review),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("a review serializes");
    text.push('\n');
    text
}

/// Table cells cannot hold `|` or line breaks.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn directions(finding: &Finding) -> String {
    if finding.directions.is_empty() {
        return "bindings only".to_owned();
    }
    finding
        .directions
        .keys()
        .map(|direction| direction.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A Markdown table: `header` then one line per row; cells are escaped.
fn table(out: &mut String, header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(out, "| {} |\n|{}", header.join(" | "), " --- |".repeat(header.len()));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|text| cell(text)).collect();
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
}

/// The review as Markdown.
pub fn markdown(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Schema review\n\n- base: `{}`\n- head: `{}`\n- verdict: **{}**\n",
        review.base,
        review.head,
        review.worst().as_str()
    );
    let summary = LEVELS.iter().map(|level| {
        let of_level: Vec<&Finding> = review
            .findings
            .iter()
            .filter(|finding| finding.level == *level)
            .collect();
        let in_direction = |direction: Direction| {
            of_level
                .iter()
                .filter(|finding| finding.directions.contains_key(&direction))
                .count()
                .to_string()
        };
        let unattached = of_level
            .iter()
            .filter(|finding| finding.directions.is_empty())
            .count()
            .to_string();
        let mut row = vec![
            level.as_str().to_owned(),
            of_level.len().to_string(),
            in_direction(Direction::ClientToAgent),
            in_direction(Direction::AgentToClient),
            unattached,
        ];
        row.extend(Tier::ALL.map(|tier| {
            of_level
                .iter()
                .filter(|finding| finding.tier == tier)
                .count()
                .to_string()
        }));
        row
    });
    table(
        &mut out,
        &[
            "level",
            "changes",
            "client-to-agent",
            "agent-to-client",
            "bindings only",
            "stable",
            "unstable",
            "draft",
        ],
        summary,
    );
    let _ = writeln!(out, "\n## Version bump\n");
    table(
        &mut out,
        &["package", "bump", "why"],
        bump::packages(review).into_iter().map(|package| {
            vec![
                package.package.to_owned(),
                package.bump.as_str().to_owned(),
                package.why,
            ]
        }),
    );
    for conflict in &review.conflicts {
        let _ = writeln!(
            out,
            "\n> **Conflict**: overlay `{}` cannot apply to the base: {}",
            conflict.overlay,
            cell(&conflict.message)
        );
    }
    for level in LEVELS {
        let of_level: Vec<&Finding> = review
            .findings
            .iter()
            .filter(|finding| finding.level == level)
            .collect();
        if of_level.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {} ({})\n", capitalized(level.as_str()), of_level.len());
        let rows = of_level.iter().map(|finding| {
            vec![
                format!("`{}`", finding.rule),
                subject(finding),
                finding.detail.clone(),
                finding.tier.as_str().to_owned(),
                finding.old_reader.as_str().to_owned(),
                finding.new_reader.as_str().to_owned(),
                directions(finding),
                carried_by(finding),
            ]
        });
        table(
            &mut out,
            &[
                "rule",
                "change",
                "detail",
                "tier",
                "old readers",
                "new readers",
                "directions",
                "carried by",
            ],
            rows,
        );
        if level == Level::Breaking {
            witnesses(&mut out, &of_level);
        }
    }
    let touched: Vec<&Finding> = review
        .findings
        .iter()
        .filter(|finding| !finding.api.is_empty())
        .collect();
    if !touched.is_empty() {
        let _ = writeln!(out, "\n## Binding impact\n");
        let languages = acp_generate::emit::LANGUAGES;
        let rows = touched.iter().map(|finding| {
            std::iter::once(format!("`{}` {}", finding.rule, finding.subject))
                .chain(
                    languages
                        .iter()
                        .map(|language| format!("`{}`", finding.api.get(language.id).map_or("", String::as_str))),
                )
                .collect()
        });
        let header: Vec<&str> = std::iter::once("change")
            .chain(languages.iter().map(|language| language.name))
            .collect();
        table(&mut out, &header, rows);
    }
    out
}

/// The message behind each breaking verdict, shortened (the JSON report has
/// it whole).
fn witnesses(out: &mut String, findings: &[&Finding]) {
    let _ = writeln!(
        out,
        "\nWitnesses: a message one side sends that the other side's schema rejects.\n"
    );
    for finding in findings {
        for witness in &finding.witnesses {
            let message = shortened(&serde_json::to_string(&witness.message).expect("a message serializes"));
            let _ = writeln!(
                out,
                "- `{}` breaks {} readers: `{}` ({}) sent {}: `{}` is rejected at `{}`: {}",
                finding.subject,
                witness.reader.as_str(),
                witness.carried_by,
                witness.found_by,
                witness.direction.as_str(),
                message.replace('`', "'"),
                witness.pointer,
                cell(&shortened(&witness.error))
            );
        }
    }
}

/// `Type.member`, and how many other places the same change was made.
fn subject(finding: &Finding) -> String {
    match finding.also.len() {
        0 => format!("`{}`", finding.subject),
        more => {
            const SHOWN: usize = 5;
            let mut listed = finding
                .also
                .iter()
                .take(SHOWN)
                .map(|also| format!("`{also}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if more > SHOWN {
                listed.push_str(", …");
            }
            format!("`{}` and {more} more like it ({listed})", finding.subject)
        }
    }
}

/// `text` cut to [`WITNESS_CHARACTERS`], marked when cut.
fn shortened(text: &str) -> String {
    if text.chars().count() > WITNESS_CHARACTERS {
        text.chars().take(WITNESS_CHARACTERS).collect::<String>() + "…"
    } else {
        text.to_owned()
    }
}

/// The first few messages that carry a finding.
fn carried_by(finding: &Finding) -> String {
    const SHOWN: usize = 3;
    let mut text = finding
        .messages
        .iter()
        .take(SHOWN)
        .map(|message| format!("`{message}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if finding.messages.len() > SHOWN {
        let _ = write!(text, " and {} more", finding.messages.len() - SHOWN);
    }
    text
}

fn capitalized(text: &str) -> String {
    let mut characters = text.chars();
    characters
        .next()
        .map(|first| first.to_uppercase().chain(characters).collect())
        .unwrap_or_default()
}
