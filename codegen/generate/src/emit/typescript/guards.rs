//! The type guards `src/types.ts` prints after each union: one per variant
//! (the catch-all included) of every tagged and untagged union, named by
//! [`naming::typescript_guard`]. A tagged union's guard reads the tag only;
//! an untagged union's guard asks the decoder which variant it picks
//! (`variantIndex`). By-method unions get none: the JSON-RPC method, not the
//! shape, picks their variant, so the method tables decode them.

use super::text::{json_string, tsdoc};
use acp_ir::ir::*;
use acp_ir::naming;

pub struct GuardView {
    pub doc: Vec<String>,
    pub function: String,
    /// The union's TypeScript name (the guard's parameter type).
    pub union: String,
    /// The variant's type (the guard's predicate).
    pub predicate: String,
    /// The guard's boolean expression over `value`.
    pub test: String,
}

/// The guard functions of the union `canonical`, in variant order, then the
/// catch-all's; none for a by-method union.
pub fn names(canonical: &str, union: &UnionType) -> Vec<String> {
    if union.style == UnionStyle::ByMethod {
        return Vec::new();
    }
    let variants = union.variants.iter().map(|variant| variant.name.as_str());
    let catch_all = union
        .other
        .iter()
        .filter(|_| matches!(union.style, UnionStyle::Tagged { .. }))
        .map(|other| other.name.as_str());
    variants
        .chain(catch_all)
        .map(|variant| naming::typescript_guard(canonical, variant))
        .collect()
}

/// The guards of the union `canonical`, whose alternatives' types are
/// `predicates`, in the order of [`names`].
pub fn guards(canonical: &str, union: &UnionType, predicates: &[String]) -> Vec<GuardView> {
    let union_type = naming::typescript_type(canonical);
    let tests: Vec<String> = match &union.style {
        UnionStyle::ByMethod => Vec::new(),
        UnionStyle::Untagged => (0..union.variants.len())
            .map(|index| format!("variantIndex({}, value) === {index}", json_string(canonical)))
            .collect(),
        UnionStyle::Tagged { property } => {
            let tag = format!("value[{}]", json_string(property));
            let mut tests: Vec<String> = union
                .variants
                .iter()
                .map(|variant| match &variant.tag {
                    Some(value) => format!("{tag} === {}", json_string(value)),
                    None => format!("{tag} === undefined || {tag} === null"),
                })
                .collect();
            if union.other.is_some() {
                let known = union
                    .variants
                    .iter()
                    .filter_map(|variant| variant.tag.as_deref().map(json_string))
                    .collect::<Vec<_>>()
                    .join(", ");
                tests.push(format!(
                    "typeof {tag} === \"string\" && !([{known}] as readonly unknown[]).includes({tag})"
                ));
            }
            tests
        }
    };
    let variants = union
        .variants
        .iter()
        .map(|variant| variant.name.as_str())
        .chain(union.other.iter().map(|other| other.name.as_str()));
    names(canonical, union)
        .into_iter()
        .zip(variants)
        .zip(tests.into_iter().zip(predicates))
        .map(|((function, variant), (test, predicate))| GuardView {
            doc: tsdoc(
                Some(&format!("Whether a `{union_type}` is its `{variant}` variant.")),
                &[],
            ),
            function,
            union: union_type.clone(),
            predicate: predicate.clone(),
            test,
        })
        .collect()
}
