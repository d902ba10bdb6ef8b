//! The stability tier of what a change touches. Upstream publishes three:
//! the stable protocol (a promise), the unstable one (opt-in, "may be
//! removed or changed at any point") and the v2 drafts. A schema of the v2
//! layout is draft as a whole. In a v1 schema, a method is unstable when the
//! schema marks it so; a type, member, variant or value when the schema
//! marks it, or when only unstable methods carry the type.

use std::collections::BTreeMap;

use serde::Serialize;

use acp_ir::ir::{marked_unstable, Field, Ir, Payload, TypeKind};

use super::diff::Subject;

/// A stability tier, the most binding first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Stable,
    Unstable,
    Draft,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::Stable, Tier::Unstable, Tier::Draft];

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Stable => "stable",
            Tier::Unstable => "unstable",
            Tier::Draft => "draft",
        }
    }

    pub fn parse(name: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|tier| tier.as_str() == name)
    }
}

/// The tiers of one schema's methods and types.
pub struct Tiers<'a> {
    ir: &'a Ir,
    draft: bool,
    /// Each type some message carries: the most binding tier of those
    /// messages' methods.
    carried: BTreeMap<String, Tier>,
}

impl<'a> Tiers<'a> {
    pub fn new(ir: &'a Ir) -> Tiers<'a> {
        let draft = ir
            .capability_layout
            .as_ref()
            .is_some_and(|layout| layout.protocol_version >= 2);
        let mut carried: BTreeMap<String, Tier> = BTreeMap::new();
        for message in ir.messages() {
            let tier = method_tier(ir, message.method);
            for name in ir.reachable(message.payload) {
                carried
                    .entry(name)
                    .and_modify(|known| *known = (*known).min(tier))
                    .or_insert(tier);
            }
        }
        Tiers { ir, draft, carried }
    }

    /// The tier of `subject` in this schema; `None` when it has no such
    /// method, type, member or variant.
    pub fn of(&self, subject: &Subject) -> Option<Tier> {
        let tier = match subject {
            Subject::Method { name } => {
                self.ir.methods.get(name)?;
                method_tier(self.ir, name)
            }
            Subject::Type { name, variant, member } => {
                let definition = self.ir.types.get(name)?;
                let part = part_description(&definition.kind, variant.as_deref(), member.as_deref())?;
                if marked_unstable(definition.description.as_deref()) || marked_unstable(part) {
                    Tier::Unstable
                } else {
                    self.carried.get(name).copied().unwrap_or(Tier::Stable)
                }
            }
        };
        Some(if self.draft { Tier::Draft } else { tier })
    }
}

fn method_tier(ir: &Ir, method: &str) -> Tier {
    if ir.methods.get(method).is_some_and(|method| method.unstable) {
        Tier::Unstable
    } else {
        Tier::Stable
    }
}

/// The description of the variant or member a subject names (`Some(None)`
/// when it names the type itself or the part has no description); `None`
/// when the type has no such part.
fn part_description<'k>(kind: &'k TypeKind, variant: Option<&str>, member: Option<&str>) -> Option<Option<&'k str>> {
    let member_of = |fields: &'k [Field], member: &str| {
        fields
            .iter()
            .find(|field| field.wire_name == member)
            .map(|field| field.description.as_deref())
    };
    match (kind, variant, member) {
        (_, None, None) => Some(None),
        (TypeKind::Struct(object), None, Some(member)) => member_of(&object.fields, member).or(Some(None)),
        (TypeKind::Enum(values), Some(variant), _) => values
            .values
            .iter()
            .find(|value| value.name == variant || value.value.as_str() == Some(variant))
            .map(|value| value.description.as_deref()),
        (TypeKind::Union(union), Some(variant), member) => {
            let found = union
                .variants
                .iter()
                .find(|candidate| candidate.label() == variant || candidate.name == variant)?;
            match (member, &found.payload) {
                (Some(member), Payload::Struct { fields, .. }) => member_of(fields, member).or(Some(None)),
                _ => Some(found.description.as_deref()),
            }
        }
        _ => Some(None),
    }
}
