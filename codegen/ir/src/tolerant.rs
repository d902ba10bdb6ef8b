//! Tolerant reading, an opt-in deviation from the schema for SDKs that must
//! survive a newer peer: every closed tagged union becomes extensible on
//! decode, so an unknown tag keeps its whole object (as the schema's own
//! extensible unions do) instead of failing the message. The unions it
//! opens are marked [`UnionType::tolerant`], so the vector check knows they
//! accept what the schema does not. A union with a variant that carries no
//! tag stays as it is: an unknown tag there is no variant of its own.

use crate::ir::{CatchAll, Ir, TypeKind, UnionStyle};
use crate::naming;

/// `ir` with every closed tagged union opened.
pub fn tolerant(ir: &Ir) -> Ir {
    let mut opened = ir.clone();
    for definition in opened.types.values_mut() {
        let TypeKind::Union(union) = &mut definition.kind else {
            continue;
        };
        let tagged = matches!(union.style, UnionStyle::Tagged { .. });
        if !tagged || union.other.is_some() || union.variants.iter().any(|variant| variant.tag.is_none()) {
            continue;
        }
        let taken: Vec<String> = union.variants.iter().map(|variant| variant.name.clone()).collect();
        union.other = Some(CatchAll {
            name: naming::catch_all_name(None, &taken),
            description: Some(
                "A variant this version does not know, kept whole (tolerant reading: the schema closes this union)."
                    .to_owned(),
            ),
        });
        union.tolerant = true;
    }
    opened
}
