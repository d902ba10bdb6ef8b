//! `src/types.ts`: one exported type per IR type, in the wire shape, and
//! the type guards of each union's variants (see [`super::guards`]).

use askama::Template;

use super::guards::{guards, GuardView};
use super::text::{json_string, tsdoc};
use acp_ir::ir::*;
use acp_ir::naming;

#[derive(Template)]
#[template(path = "typescript/types.ts", escape = "none")]
pub struct TypesFile {
    objects: Vec<ObjectView>,
    unions: Vec<UnionView>,
    constants: Vec<ConstantsView>,
    defaults: Vec<DefaultsView>,
    /// Some guard asks the decoder which variant it picks.
    imports_variant_index: bool,
}

/// A struct: `export type Name = { members } & Flattened;`.
struct ObjectView {
    doc: Vec<String>,
    name: String,
    members: Vec<MemberView>,
    /// ` & Base & Union`, or empty.
    intersections: String,
}

struct MemberView {
    doc: Vec<String>,
    /// The property key (or an index signature).
    key: String,
    /// `?` for an optional member, else empty.
    mark: &'static str,
    ty: String,
}

/// An alias, enum or union: `export type Name = | a | b;`.
struct UnionView {
    doc: Vec<String>,
    name: String,
    alternatives: Vec<AlternativeView>,
    guards: Vec<GuardView>,
}

struct AlternativeView {
    doc: Vec<String>,
    ty: String,
}

/// The named constants of an enum: `export const Name = { Key: value } as const;`.
struct ConstantsView {
    name: String,
    entries: Vec<EntryView>,
}

struct EntryView {
    doc: Vec<String>,
    key: String,
    value: String,
}

/// The schema defaults of a struct's optional members.
struct DefaultsView {
    type_name: String,
    name: String,
    entries: Vec<EntryView>,
}

pub fn view(ir: &Ir) -> TypesFile {
    let mut file = TypesFile {
        objects: Vec::new(),
        unions: Vec::new(),
        constants: Vec::new(),
        defaults: Vec::new(),
        imports_variant_index: false,
    };
    for definition in ir.types.values() {
        let name = naming::typescript_type(&definition.name);
        let doc = tsdoc(definition.description.as_deref(), &[]);
        match &definition.kind {
            TypeKind::Struct(structure) => {
                file.objects.push(object_view(doc, name.clone(), structure));
                let entries: Vec<EntryView> = structure
                    .fields
                    .iter()
                    .filter_map(|field| {
                        field.default.as_ref().map(|value| EntryView {
                            doc: Vec::new(),
                            key: naming::typescript_property(&field.wire_name),
                            value: value.to_string(),
                        })
                    })
                    .collect();
                if !entries.is_empty() {
                    file.defaults.push(DefaultsView {
                        name: naming::typescript_defaults(&name),
                        type_name: name,
                        entries,
                    });
                }
            }
            TypeKind::Alias { target } => {
                file.unions.push(UnionView {
                    doc,
                    name,
                    alternatives: vec![AlternativeView {
                        doc: Vec::new(),
                        ty: expression(target),
                    }],
                    guards: Vec::new(),
                });
            }
            TypeKind::Enum(enumeration) => {
                let mut alternatives: Vec<AlternativeView> = enumeration
                    .values
                    .iter()
                    .map(|value| AlternativeView {
                        doc: tsdoc(value.description.as_deref(), &[]),
                        ty: value.value.to_string(),
                    })
                    .collect();
                if let Some(other) = &enumeration.other {
                    let open = match enumeration.repr {
                        EnumRepr::String => "(string & {})",
                        EnumRepr::Integer { .. } => "(number & {})",
                    };
                    alternatives.push(AlternativeView {
                        doc: tsdoc(other.description.as_deref(), &[]),
                        ty: open.to_owned(),
                    });
                }
                if alternatives.is_empty() {
                    alternatives.push(AlternativeView {
                        doc: Vec::new(),
                        ty: "never".to_owned(),
                    });
                }
                let entries = enumeration
                    .values
                    .iter()
                    .map(|value| EntryView {
                        doc: tsdoc(value.description.as_deref(), &[]),
                        key: naming::typescript_property(&value.name),
                        value: value.value.to_string(),
                    })
                    .collect();
                file.constants.push(ConstantsView {
                    name: name.clone(),
                    entries,
                });
                file.unions.push(UnionView {
                    doc,
                    name,
                    alternatives,
                    guards: Vec::new(),
                });
            }
            TypeKind::Union(union) => {
                file.imports_variant_index |= union.style == UnionStyle::Untagged && !union.variants.is_empty();
                file.unions.push(union_view(doc, &definition.name, union));
            }
        }
    }
    file
}

/// Whether the struct `definition` gets a defaults constant.
pub fn has_defaults(definition: &TypeDef) -> bool {
    matches!(&definition.kind, TypeKind::Struct(structure) if structure.fields.iter().any(|field| field.default.is_some()))
}

fn object_view(doc: Vec<String>, name: String, structure: &StructType) -> ObjectView {
    let mut members: Vec<MemberView> = structure.fields.iter().map(member_view).collect();
    match &structure.additional {
        AdditionalProperties::Kept(values) => members.push(MemberView {
            doc: tsdoc(
                Some(&format!(
                    "Members the schema does not name are kept, each a `{}`.",
                    expression(values)
                )),
                &[],
            ),
            key: "[member: string]".to_owned(),
            mark: "",
            ty: "unknown".to_owned(),
        }),
        AdditionalProperties::Denied => {}
    }
    let intersections = structure
        .flatten
        .iter()
        .map(|base| format!(" & {}", naming::typescript_type(base)))
        .collect();
    ObjectView {
        doc,
        name,
        members,
        intersections,
    }
}

fn member_view(field: &Field) -> MemberView {
    let mut notes = Vec::new();
    if let Some(default) = &field.default {
        notes.push(format!(
            "@defaultValue `{default}` (read from the defaults constant; never written when absent)"
        ));
    }
    if mentions_wide_integer(&field.ty) {
        notes
            .push("A 64-bit integer on the wire: JavaScript numbers hold integers exactly only up to 2^53.".to_owned());
    }
    MemberView {
        doc: tsdoc(field.description.as_deref(), &notes),
        key: naming::typescript_property(&field.wire_name),
        mark: if field.required { "" } else { "?" },
        ty: field_type(field),
    }
}

/// The TypeScript type of a field's value (with `| null` when nullable).
fn field_type(field: &Field) -> String {
    let ty = expression(&field.ty);
    if field.nullable {
        format!("{ty} | null")
    } else {
        ty
    }
}

fn mentions_wide_integer(expression: &TypeExpr) -> bool {
    match expression {
        TypeExpr::Integer(integer) => {
            matches!(
                integer.format,
                IntegerFormat::Int64 | IntegerFormat::Uint64 | IntegerFormat::Unspecified
            )
        }
        TypeExpr::Array(array) => mentions_wide_integer(&array.items),
        TypeExpr::Map { values } => mentions_wide_integer(values),
        TypeExpr::Nullable { inner } => mentions_wide_integer(inner),
        _ => false,
    }
}

/// The TypeScript type of a type expression.
pub fn expression(expression: &TypeExpr) -> String {
    match expression {
        TypeExpr::Named { name } => naming::typescript_type(name),
        TypeExpr::Any | TypeExpr::Untyped { .. } => "JsonValue".to_owned(),
        TypeExpr::Null => "null".to_owned(),
        TypeExpr::Boolean => "boolean".to_owned(),
        TypeExpr::String(_) => "string".to_owned(),
        TypeExpr::Integer(_) | TypeExpr::Number(_) => "number".to_owned(),
        TypeExpr::Array(array) => format!("Array<{}>", self::expression(&array.items)),
        TypeExpr::Map { values } => format!("{{ [key: string]: {} }}", self::expression(values)),
        TypeExpr::Nullable { inner } => format!("{} | null", self::expression(inner)),
    }
}

/// Inline members `a: T; b?: U` of a variant payload.
fn inline_members(fields: &[Field]) -> Vec<String> {
    fields
        .iter()
        .map(|field| {
            format!(
                "{}{}: {}",
                naming::typescript_property(&field.wire_name),
                if field.required { "" } else { "?" },
                field_type(field)
            )
        })
        .collect()
}

fn object_literal(members: &[String]) -> String {
    if members.is_empty() {
        "{}".to_owned()
    } else {
        format!("{{ {} }}", members.join("; "))
    }
}

fn union_view(doc: Vec<String>, canonical: &str, union: &UnionType) -> UnionView {
    let tag_property = match &union.style {
        UnionStyle::Tagged { property } => Some(naming::typescript_property(property)),
        UnionStyle::Untagged | UnionStyle::ByMethod => None,
    };
    let mut alternatives: Vec<AlternativeView> = union
        .variants
        .iter()
        .map(|variant| {
            let mut members = Vec::new();
            let tag_in_payload = match (&union.style, &variant.payload) {
                (UnionStyle::Tagged { property }, Payload::Struct { fields, .. }) => fields.iter().any(|field| &field.wire_name == property),
                _ => false,
            };
            if let Some(property) = tag_property.as_ref().filter(|_| !tag_in_payload) {
                members.push(match &variant.tag {
                    Some(tag) => format!("{property}: {}", json_string(tag)),
                    None => format!("{property}?: never"),
                });
            }
            let ty = match &variant.payload {
                Payload::Unit => object_literal(&members),
                Payload::Type { ty } if members.is_empty() => self::expression(ty),
                Payload::Type { ty } => format!("({} & {})", object_literal(&members), self::expression(ty)),
                Payload::Struct { base, fields } => {
                    members.extend(inline_members(fields));
                    match base {
                        Some(base) => format!("({} & {})", object_literal(&members), naming::typescript_type(base)),
                        None => object_literal(&members),
                    }
                }
            };
            let notes = match (&tag_property, &variant.tag) {
                (Some(property), None) if union.default_open => vec![format!(
                    "It also takes an object whose `{property}` no other alternative claims, kept with that `{property}` among \
                     its unknown members; the member is typed `never` so that a `switch` on it narrows."
                )],
                _ => Vec::new(),
            };
            AlternativeView { doc: tsdoc(variant.description.as_deref(), &notes), ty }
        })
        .collect();
    if let (Some(other), Some(property)) = (&union.other, &tag_property) {
        let prefix = naming::EXTENSION_PREFIX;
        let note = format!(
            "Any other tag: the whole object, kept as received. The tag is typed as an extension's (`{prefix}` first), so a \
             `switch` on it narrows to exactly one variant; a tag a later protocol revision adds is kept here too, \
             though its type claims the prefix (TypeScript cannot spell \"any string but the known tags\")."
        );
        alternatives.push(AlternativeView {
            doc: tsdoc(other.description.as_deref(), &[note]),
            ty: format!("{{ {property}: `{prefix}${{string}}`; [member: string]: unknown }}"),
        });
    }
    let predicates: Vec<String> = alternatives.iter().map(|alternative| alternative.ty.clone()).collect();
    if alternatives.is_empty() {
        alternatives.push(AlternativeView {
            doc: Vec::new(),
            ty: "never".to_owned(),
        });
    }
    UnionView {
        doc,
        name: naming::typescript_type(canonical),
        alternatives,
        guards: guards(canonical, union, &predicates),
    }
}
