//! How each type decodes in Python: the annotation of a type expression
//! (strict scalars, constraints), the `Rule` of a field with decode rules,
//! and the validators of union aliases, printed in dependency order.

use std::collections::{BTreeMap, BTreeSet};

use super::classes::{variant_class, VariantClasses};
use super::text::{literal, string_literal};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::{Fallback, Field, Ir, Payload, TypeExpr, TypeKind, UnionStyle, UnionType, Variant};
use acp_ir::naming::{python_attribute, python_class};

/// A module-level alias of `models.py`: a named alias or union.
pub(super) struct AliasView {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) doc: String,
}

fn bound(number: &Option<serde_json::Number>) -> Option<String> {
    number.as_ref().map(serde_json::Number::to_string)
}

/// The Python annotation of a type expression.
pub(super) fn annotation(expr: &TypeExpr) -> String {
    match expr {
        TypeExpr::Named { name } => python_class(name),
        TypeExpr::Any | TypeExpr::Untyped { .. } => "_t.Any".to_owned(),
        TypeExpr::Null => "None".to_owned(),
        TypeExpr::Boolean => "_p.StrictBool".to_owned(),
        TypeExpr::String(string) => {
            let mut constraints = Vec::new();
            if let Some(min) = string.min_length {
                constraints.push(format!("min_length={min}"));
            }
            if let Some(max) = string.max_length {
                constraints.push(format!("max_length={max}"));
            }
            if let Some(pattern) = &string.pattern {
                constraints.push(format!("pattern={}", string_literal(pattern)));
            }
            if constraints.is_empty() {
                "_p.StrictStr".to_owned()
            } else {
                format!("_t.Annotated[str, _p.Strict(), _p.Field({})]", constraints.join(", "))
            }
        }
        TypeExpr::Integer(integer) => {
            let (low, high) = integer.format.range();
            let minimum = integer
                .minimum
                .as_ref()
                .and_then(|n| n.as_i64())
                .map_or(low, |n| i128::from(n).max(low));
            let minimum = integer
                .minimum
                .as_ref()
                .and_then(|n| n.as_u64())
                .map_or(minimum, |n| i128::from(n).max(minimum));
            let maximum = integer
                .maximum
                .as_ref()
                .and_then(|n| n.as_i64())
                .map_or(high, |n| i128::from(n).min(high));
            let maximum = integer
                .maximum
                .as_ref()
                .and_then(|n| n.as_u64())
                .map_or(maximum, |n| i128::from(n).min(maximum));
            format!("_t.Annotated[int, _p.Strict(), _p.Field(ge={minimum}, le={maximum})]")
        }
        TypeExpr::Number(number) => {
            let mut constraints = Vec::new();
            if let Some(min) = bound(&number.minimum) {
                constraints.push(format!("ge={min}"));
            }
            if let Some(max) = bound(&number.maximum) {
                constraints.push(format!("le={max}"));
            }
            let field = if constraints.is_empty() {
                String::new()
            } else {
                format!(", _p.Field({})", constraints.join(", "))
            };
            format!("_t.Annotated[int, _p.Strict(){field}] | _t.Annotated[float, _p.Strict(){field}]")
        }
        TypeExpr::Array(array) => {
            let list = format!("list[{}]", annotation(&array.items));
            let mut constraints = Vec::new();
            if let Some(min) = array.min_items {
                constraints.push(format!("min_length={min}"));
            }
            if let Some(max) = array.max_items {
                constraints.push(format!("max_length={max}"));
            }
            if constraints.is_empty() {
                list
            } else {
                format!("_t.Annotated[{list}, _p.Field({})]", constraints.join(", "))
            }
        }
        TypeExpr::Map { values } => format!("dict[str, {}]", annotation(values)),
        TypeExpr::Nullable { inner } => or_none(annotation(inner)),
    }
}

/// The type of a decoded value as a type checker sees it: [`annotation`]
/// without the validation metadata (`int`, not `Annotated[int, Field(...)]`),
/// which a `cast` or a return type cannot carry.
pub(super) fn value_annotation(expr: &TypeExpr) -> String {
    match expr {
        TypeExpr::Boolean => "bool".to_owned(),
        TypeExpr::String(_) => "str".to_owned(),
        TypeExpr::Integer(_) => "int".to_owned(),
        TypeExpr::Number(_) => "int | float".to_owned(),
        TypeExpr::Array(array) => format!("list[{}]", value_annotation(&array.items)),
        TypeExpr::Map { values } => format!("dict[str, {}]", value_annotation(values)),
        TypeExpr::Nullable { inner } => or_none(value_annotation(inner)),
        other => annotation(other),
    }
}

/// `inner` or `None`.
pub(super) fn or_none(inner: String) -> String {
    if inner == "None" {
        inner
    } else {
        format!("{inner} | None")
    }
}

/// The union of `options` in PEP 604 form: each once, `None` last.
fn union_of(options: &[String]) -> String {
    let mut arms: Vec<&str> = Vec::new();
    for option in options {
        if option != "None" && !arms.contains(&option.as_str()) {
            arms.push(option);
        }
    }
    if options.iter().any(|option| option == "None") {
        arms.push("None");
    }
    arms.join(" | ")
}

/// Whether `null` is a value of `expr` itself (through aliases and unions).
fn accepts_null(ir: &Ir, expr: &TypeExpr, seen: &mut BTreeSet<String>) -> bool {
    match expr {
        TypeExpr::Null | TypeExpr::Nullable { .. } | TypeExpr::Any | TypeExpr::Untyped { .. } => true,
        TypeExpr::Named { name } => {
            if !seen.insert(name.clone()) {
                return false;
            }
            match ir.get(name).map(|definition| &definition.kind) {
                Some(TypeKind::Alias { target }) => accepts_null(ir, target, seen),
                Some(TypeKind::Union(union)) => union.variants.iter().any(|variant| match &variant.payload {
                    Payload::Type { ty } => accepts_null(ir, ty, seen),
                    Payload::Unit | Payload::Struct { .. } => false,
                }),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The `Member` of a field that needs one: decode rules, or an optional
/// field whose type has no `null` (an explicit `null` is then an error).
pub(super) fn member(ir: &Ir, field: &Field) -> Option<String> {
    let nullable = field.nullable || accepts_null(ir, &field.ty, &mut BTreeSet::new());
    if !field.decode.any() && (field.required || nullable) {
        return None;
    }
    let (fallback, value) = match &field.fallback {
        Fallback::Absent => ("_rt.ABSENT", "None".to_owned()),
        Fallback::Value(value) => ("_rt.VALUE", literal(value)),
        Fallback::Reject => ("_rt.REJECT", "None".to_owned()),
    };
    let flag = |on: bool| if on { "True" } else { "False" };
    Some(format!(
        "_rt.Member({}, {}, {}, {}, {fallback}, {value})",
        flag(nullable),
        flag(field.decode.default_on_error),
        flag(field.decode.default_on_null),
        flag(field.decode.skip_invalid_items),
    ))
}

/// The right-hand side of a union's alias. An untagged option that refers
/// back to a union still being written (`open`) is `Any` in the annotation;
/// its validator, evaluated lazily, still decodes it as its own type.
fn union_value(name: &str, union: &UnionType, classes: &VariantClasses, open: &BTreeSet<String>) -> String {
    let options: Vec<String> = union
        .variants
        .iter()
        .map(|variant| match &variant.payload {
            Payload::Type { ty } => annotation(ty),
            Payload::Unit | Payload::Struct { .. } => variant_class(classes, name, &variant.name),
        })
        .collect();
    match &union.style {
        UnionStyle::Tagged { property } => {
            let message = string_literal(&format!(
                "the tag `{property}` is missing, not a string, or names no variant of `{name}`"
            ));
            // Every variant a class of its own with a tag: pydantic-core
            // picks the variant by the tag's value, without calling Python.
            let by_tag = union.other.is_none()
                && union
                    .variants
                    .iter()
                    .all(|variant| variant.tag.is_some() && !matches!(variant.payload, Payload::Type { .. }));
            if by_tag && options.len() > 1 {
                let tags: Vec<String> = union
                    .variants
                    .iter()
                    .filter_map(|variant| variant.tag.as_deref())
                    .map(string_literal)
                    .collect();
                return format!(
                    "_t.Annotated[{}, _rt.Tagged({}, {}, ({},), {message})]",
                    options.join(" | "),
                    string_literal(property),
                    string_literal(&python_attribute(property)),
                    tags.join(", ")
                );
            }
            let mut arms: Vec<String> = options
                .iter()
                .map(|class| format!("_t.Annotated[{class}, _p.Tag({})]", string_literal(class)))
                .collect();
            let labels: Vec<String> = union
                .variants
                .iter()
                .zip(&options)
                .filter_map(|(variant, class)| {
                    variant
                        .tag
                        .as_ref()
                        .map(|tag| format!("{}: {}", string_literal(tag), string_literal(class)))
                })
                .collect();
            let untagged = union
                .variants
                .iter()
                .zip(&options)
                .find(|(variant, _)| variant.tag.is_none())
                .map(|(_, class)| string_literal(class));
            let other = union
                .other
                .as_ref()
                .map(|other| variant_class(classes, name, &other.name));
            if let Some(other) = &other {
                arms.push(format!("_t.Annotated[{other}, _p.Tag({})]", string_literal(other)));
            }
            if arms.len() == 1 {
                return match (union.variants.first(), options.first(), other) {
                    (Some(Variant { tag: Some(tag), .. }), Some(class), _) => format!(
                        "_t.Annotated[{class}, _p.BeforeValidator(_rt.check_tag({}, {}, {message}))]",
                        string_literal(property),
                        string_literal(tag)
                    ),
                    (_, Some(class), _) => class.clone(),
                    (_, None, Some(other)) => other,
                    (_, None, None) => "_t.Any".to_owned(),
                };
            }
            // An open default also takes a tag that is not a string or names
            // no variant (`tag_of`), and a tagged variant that does not decode.
            let fallback = union
                .variants
                .iter()
                .zip(&options)
                .find(|(variant, _)| union.default_open && variant.tag.is_none())
                .map_or_else(String::new, |(_, class)| {
                    format!(", _p.WrapValidator(_rt.default_on_failure(lambda: {class}))")
                });
            format!(
                "_t.Annotated[{}, _p.Discriminator(_rt.tag_of({}, {{{}}}, {}, {}, {}), custom_error_type={}, custom_error_message={}){fallback}, _rt.WrittenByClass()]",
                union_of(&arms),
                string_literal(property),
                labels.join(", "),
                untagged.unwrap_or_else(|| "None".to_owned()),
                other.map_or("None".to_owned(), |other| string_literal(&other)),
                if union.default_open { "True" } else { "False" },
                string_literal(&format!("acp_union_tag:{property}")),
                message,
            )
        }
        UnionStyle::Untagged | UnionStyle::ByMethod => {
            let eager: Vec<String> = union
                .variants
                .iter()
                .zip(&options)
                .map(|(variant, option)| match &variant.payload {
                    Payload::Type { ty } => {
                        if ty.references().iter().any(|reference| open.contains(reference.name)) {
                            "_t.Any".to_owned()
                        } else {
                            option.clone()
                        }
                    }
                    Payload::Unit | Payload::Struct { .. } => option.clone(),
                })
                .collect();
            format!(
                "_t.Annotated[{}, _p.PlainValidator(_rt.untagged(lambda: ({},))), _rt.WrittenByClass()]",
                union_of(&eager),
                options.join(", ")
            )
        }
    }
}

/// Aliases and unions in an order where each is defined before it is used.
/// Their right-hand sides are evaluated at import: a union may refer back to
/// itself (see [`union_value`]), a plain alias may not.
pub(super) fn order_aliases(
    ir: &Ir,
    pending: &BTreeMap<String, (BTreeSet<String>, String)>,
    classes: &VariantClasses,
) -> Result<Vec<AliasView>, CodegenError> {
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut visiting: Vec<String> = Vec::new();
    let mut order = Vec::new();
    for name in pending.keys() {
        visit(name, pending, &mut done, &mut visiting, &mut order, (ir, classes))?;
    }
    Ok(order)
}

fn visit(
    name: &str,
    pending: &BTreeMap<String, (BTreeSet<String>, String)>,
    done: &mut BTreeSet<String>,
    visiting: &mut Vec<String>,
    order: &mut Vec<AliasView>,
    (ir, classes): (&Ir, &VariantClasses),
) -> Result<(), CodegenError> {
    if done.contains(name) {
        return Ok(());
    }
    let Some((refs, doc)) = pending.get(name) else {
        return Ok(());
    };
    if visiting.iter().any(|open| open == name) {
        return Ok(());
    }
    visiting.push(name.to_owned());
    for reference in refs {
        visit(reference, pending, done, visiting, order, (ir, classes))?;
    }
    let open: BTreeSet<String> = visiting.iter().cloned().collect();
    let value = match ir.get(name).map(|definition| &definition.kind) {
        Some(TypeKind::Alias { target }) => {
            if let Some(back) = refs.iter().find(|reference| open.contains(*reference)) {
                return Err(CodegenError {
                    kind: ErrorKind::Unsupported,
                    file: "python bindings".to_owned(),
                    pointer: ir
                        .get(name)
                        .map(|definition| definition.pointer.clone())
                        .unwrap_or_default(),
                    message: format!(
                        "the Python type alias `{name}` refers back to `{back}`, which is not defined yet"
                    ),
                });
            }
            annotation(target)
        }
        Some(TypeKind::Union(union)) => union_value(name, union, classes, &open),
        _ => "_t.Any".to_owned(),
    };
    visiting.pop();
    done.insert(name.to_owned());
    order.push(AliasView {
        name: python_class(name),
        value,
        doc: doc.clone(),
    });
    Ok(())
}
