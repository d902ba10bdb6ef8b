//! `cargo xtask inspect`: counts per kind of an IR and its untyped fallbacks.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::ir::*;

/// What an IR holds, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub origin: String,
    pub overlays: Vec<String>,
    pub types: usize,
    pub definitions: usize,
    pub synthesized: usize,
    pub structs: usize,
    pub aliases: usize,
    pub enums_closed: usize,
    pub enums_open: usize,
    pub unions_tagged: usize,
    pub unions_untagged: usize,
    pub unions_by_method: usize,
    pub unions_extensible: usize,
    pub fields_with_decode_rules: usize,
    /// Side -> (requests, notifications).
    pub methods: BTreeMap<String, (usize, usize)>,
    pub gated_methods: usize,
    pub gated_variants: usize,
    /// `(type, pointer, reason)` of every untyped fallback.
    pub untyped: Vec<(String, String, String)>,
}

/// Counts what `ir` holds.
pub fn summarize(ir: &Ir) -> Summary {
    let mut summary = Summary {
        origin: ir.origin.clone(),
        overlays: ir.overlays.clone(),
        types: ir.types.len(),
        ..Summary::default()
    };
    for definition in ir.types.values() {
        if definition.definition.is_some() {
            summary.definitions += 1;
        } else {
            summary.synthesized += 1;
        }
        let mut fields: Vec<&Field> = Vec::new();
        let mut expressions: Vec<&TypeExpr> = Vec::new();
        match &definition.kind {
            TypeKind::Struct(structure) => {
                summary.structs += 1;
                fields.extend(&structure.fields);
                if let AdditionalProperties::Kept(values) = &structure.additional {
                    expressions.push(values);
                }
            }
            TypeKind::Alias { target } => {
                summary.aliases += 1;
                expressions.push(target);
            }
            TypeKind::Enum(enumeration) if enumeration.other.is_some() => summary.enums_open += 1,
            TypeKind::Enum(_) => summary.enums_closed += 1,
            TypeKind::Union(union) => {
                match union.style {
                    UnionStyle::Tagged { .. } => summary.unions_tagged += 1,
                    UnionStyle::Untagged => summary.unions_untagged += 1,
                    UnionStyle::ByMethod => summary.unions_by_method += 1,
                }
                if union.other.is_some() {
                    summary.unions_extensible += 1;
                }
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Struct {
                            fields: variant_fields, ..
                        } => fields.extend(variant_fields),
                        Payload::Type { ty } => expressions.push(ty),
                        Payload::Unit => {}
                    }
                }
            }
        }
        summary.fields_with_decode_rules += fields.iter().filter(|field| field.decode.any()).count();
        expressions.extend(fields.iter().map(|field| &field.ty));
        for expression in expressions {
            collect_untyped(expression, &mut |pointer, reason| {
                summary
                    .untyped
                    .push((definition.name.clone(), pointer.to_owned(), reason.to_owned()));
            });
        }
    }
    for method in ir.methods.values() {
        if let Some(request) = &method.request {
            summary
                .methods
                .entry(format!("{:?}", request.side).to_lowercase())
                .or_default()
                .0 += 1;
        }
        if let Some(notification) = &method.notification {
            summary
                .methods
                .entry(format!("{:?}", notification.side).to_lowercase())
                .or_default()
                .1 += 1;
        }
        if method.gate.is_some() {
            summary.gated_methods += 1;
        }
    }
    summary.gated_variants = ir.gated_variants.len();
    summary
}

fn collect_untyped(expression: &TypeExpr, found: &mut impl FnMut(&str, &str)) {
    match expression {
        TypeExpr::Untyped { pointer, reason } => found(pointer, reason),
        TypeExpr::Array(array) => collect_untyped(&array.items, found),
        TypeExpr::Map { values } => collect_untyped(values, found),
        TypeExpr::Nullable { inner } => collect_untyped(inner, found),
        _ => {}
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(out, "schema: {}", self.origin)?;
        let overlays = if self.overlays.is_empty() {
            "none".to_owned()
        } else {
            self.overlays.join(", ")
        };
        writeln!(out, "overlays: {overlays}")?;
        writeln!(
            out,
            "types: {} ({} definitions, {} synthesized)",
            self.types, self.definitions, self.synthesized
        )?;
        writeln!(out, "  structs: {}", self.structs)?;
        writeln!(out, "  aliases/newtypes: {}", self.aliases)?;
        writeln!(out, "  enums: {} closed, {} open", self.enums_closed, self.enums_open)?;
        writeln!(
            out,
            "  unions: {} tagged, {} untagged, {} by method; {} extensible",
            self.unions_tagged, self.unions_untagged, self.unions_by_method, self.unions_extensible
        )?;
        writeln!(
            out,
            "  fields with x-deserialize rules: {}",
            self.fields_with_decode_rules
        )?;
        for (side, (requests, notifications)) in &self.methods {
            writeln!(
                out,
                "methods handled by {side}: {requests} requests, {notifications} notifications"
            )?;
        }
        writeln!(
            out,
            "gated methods: {}; gated variants: {}",
            self.gated_methods, self.gated_variants
        )?;
        writeln!(out, "untyped fallbacks: {}", self.untyped.len())?;
        for (name, pointer, reason) in &self.untyped {
            writeln!(out, "  {name} at {pointer}: {reason}")?;
        }
        Ok(())
    }
}
