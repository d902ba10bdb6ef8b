//! `models.py`: one pydantic class per struct and union variant, one enum
//! per enum, one alias per alias and union, and the by-name type table.

use std::collections::{BTreeMap, BTreeSet};

use askama::Template;

use super::classes::{variant_class, variant_classes};
use super::codecs::{annotation, member, or_none, order_aliases, value_annotation, AliasView};
use super::text::{describe, docstring, literal, string_literal};
use acp_ir::error::{CodegenError, ErrorKind};
use acp_ir::ir::{
    AdditionalProperties, EnumRepr, Field, Ir, Payload, TypeExpr, TypeKind, UnionStyle, UnionType, Variant,
};
use acp_ir::naming::{
    python_attribute, python_class, python_constant, python_default_accessor, python_flattened_attribute,
};

#[derive(Template)]
#[template(path = "python/models.py", escape = "none")]
pub(super) struct ModelsView {
    origin: String,
    enums: Vec<EnumView>,
    classes: Vec<ClassView>,
    aliases: Vec<AliasView>,
    table: Vec<(String, String)>,
    /// Every class, in the order they are built at import ([`super::order`]).
    build_order: Vec<String>,
}

struct EnumView {
    name: String,
    base: String,
    doc: String,
    settings: Vec<String>,
    members: Vec<MemberView>,
}

struct MemberView {
    name: String,
    value: String,
    doc: Option<String>,
}

struct ClassView {
    name: String,
    base: String,
    doc: String,
    settings: Vec<String>,
    fields: Vec<FieldView>,
    accessors: Vec<AccessorView>,
    /// The parameters of the constructor type checkers see (`self, *, a: T`);
    /// `None` for a class whose base declares its own.
    signature: Option<String>,
}

/// The method that gives a field with a schema default its value or that default.
struct AccessorView {
    name: String,
    annotation: String,
    attr: String,
    default: String,
    doc: String,
}

struct FieldView {
    attr: String,
    /// The type, with the wire name as an alias when it is not the attribute.
    declared: String,
    /// ` = value`, or empty for a required field.
    default: String,
    doc: Option<String>,
}

/// A keyword parameter of a constructor: `attr: annotation = default`.
struct Parameter {
    attr: String,
    annotation: String,
    default: Option<String>,
}

/// The declaration of the attribute `attr` of type `annotation`, read from
/// the wire member `wire`, with the `Member` that says how it decodes.
fn declared(attr: &str, annotation: &str, wire: &str, member: Option<String>) -> String {
    let mut metadata: Vec<String> = Vec::new();
    if attr != wire {
        metadata.push(format!("_p.Field(alias={})", string_literal(wire)));
    }
    metadata.extend(member);
    if metadata.is_empty() {
        annotation.to_owned()
    } else {
        format!("_t.Annotated[{annotation}, {}]", metadata.join(", "))
    }
}

/// The attribute, type and default of a field: optional fields default to `None`.
fn parameter(field: &Field) -> Parameter {
    let inner = annotation(&field.ty);
    let annotation = if field.required && !field.nullable {
        inner
    } else {
        or_none(inner)
    };
    Parameter {
        attr: python_attribute(&field.name),
        annotation,
        default: (!field.required).then(|| "None".to_owned()),
    }
}

fn field_view(ir: &Ir, field: &Field) -> FieldView {
    let Parameter {
        attr,
        annotation,
        default,
    } = parameter(field);
    FieldView {
        declared: declared(&attr, &annotation, &field.wire_name, member(ir, field)),
        attr,
        default: default.map(|value| format!(" = {value}")).unwrap_or_default(),
        doc: field
            .description
            .as_deref()
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(|text| docstring(text, 4)),
    }
}

/// The attribute and class of each flattened named type in `flatten` of
/// the object `owner`, away from the attributes of its `fields` and `tag`.
fn flattened(owner: &str, fields: &[Field], flatten: &[String], tag: Option<&str>) -> Vec<(String, String)> {
    let taken: Vec<String> = fields
        .iter()
        .map(|field| python_attribute(&field.name))
        .chain(tag.map(python_attribute))
        .collect();
    flatten
        .iter()
        .map(|name| {
            (
                python_flattened_attribute(owner, name, |attr| taken.iter().any(|known| known == attr)),
                python_class(name),
            )
        })
        .collect()
}

/// The parameters of the object `owner` made of `fields` plus the flattened
/// named types `flatten`, each flattened value under an attribute of its own.
fn parameters(owner: &str, fields: &[Field], flatten: &[String], tag: Option<&str>) -> Vec<Parameter> {
    let mut parameters: Vec<Parameter> = fields.iter().map(parameter).collect();
    let flattened = flattened(owner, fields, flatten, tag);
    parameters.extend(flattened.into_iter().map(|(attr, annotation)| Parameter {
        attr,
        annotation,
        default: None,
    }));
    parameters
}

/// The constructor parameters of a class, keyword-only, each attribute once
/// (the last declaration wins), plus `**extra` for kept unknown members.
fn signature(parameters: Vec<Parameter>, extra: Option<String>) -> String {
    let mut unique: Vec<Parameter> = Vec::new();
    for parameter in parameters {
        unique.retain(|known| known.attr != parameter.attr);
        unique.push(parameter);
    }
    let mut parts: Vec<String> = unique
        .into_iter()
        .map(
            |Parameter {
                 attr,
                 annotation,
                 default,
             }| match default {
                Some(value) => format!("{attr}: {annotation} = {value}"),
                None => format!("{attr}: {annotation}"),
            },
        )
        .collect();
    parts.extend(extra.map(|values| format!("**extra: {values}")));
    if parts.is_empty() {
        "self".to_owned()
    } else {
        format!("self, *, {}", parts.join(", "))
    }
}

/// The class settings, fields and default accessors of an object made of
/// `fields` plus the flattened named types `flatten`; `tag` is the member
/// and value of a tagged variant, which defaults to its value.
fn object_members(
    ir: &Ir,
    owner: &str,
    fields: &[Field],
    flatten: &[String],
    tag: Option<(&str, &str)>,
) -> (Vec<String>, Vec<FieldView>, Vec<AccessorView>) {
    let mut settings = Vec::new();
    let mut views = Vec::new();
    if let Some((property, value)) = tag {
        let attr = python_attribute(property);
        settings.push(format!(
            "__acp_variant_tag__ = ({}, {}, {})",
            string_literal(property),
            string_literal(&attr),
            string_literal(value)
        ));
        views.push(FieldView {
            declared: declared(&attr, &tag_annotation(value), property, None),
            attr,
            default: format!(" = {}", string_literal(value)),
            doc: None,
        });
    }
    views.extend(fields.iter().map(|field| field_view(ir, field)));
    if !flatten.is_empty() {
        let flattened = flattened(owner, fields, flatten, tag.map(|(property, _)| property));
        let attrs: Vec<String> = flattened.iter().map(|(attr, _)| string_literal(attr)).collect();
        settings.push(format!("__acp_flattened__ = ({},)", attrs.join(", ")));
        views.extend(flattened.into_iter().map(|(attr, declared)| FieldView {
            attr,
            declared,
            default: String::new(),
            doc: None,
        }));
    }
    let accessors = fields
        .iter()
        .filter_map(|field| {
            let default = field.default.as_ref()?;
            let inner = value_annotation(&field.ty);
            Some(AccessorView {
                name: python_default_accessor(&field.name),
                annotation: if field.nullable { or_none(inner) } else { inner },
                attr: string_literal(&python_attribute(&field.name)),
                default: literal(default),
                doc: docstring(
                    &format!(
                        "`{}`, or the schema default `{default}` when it is absent.",
                        field.wire_name
                    ),
                    8,
                ),
            })
        })
        .collect();
    (settings, views, accessors)
}

fn tag_annotation(value: &str) -> String {
    format!("_t.Literal[{}]", string_literal(value))
}

/// The names `models.py` defines: classes, enums and aliases.
pub(super) fn exports(view: &ModelsView) -> Vec<String> {
    let classes = view.classes.iter().map(|class| class.name.clone());
    let enums = view.enums.iter().map(|item| item.name.clone());
    classes
        .chain(enums)
        .chain(view.aliases.iter().map(|alias| alias.name.clone()))
        .collect()
}

pub(super) fn models_view(ir: &Ir) -> Result<ModelsView, CodegenError> {
    let classes = variant_classes(ir);
    let mut enums = Vec::new();
    let mut structs = Vec::new();
    let mut variants = Vec::new();
    let mut pending: BTreeMap<String, (BTreeSet<String>, String)> = BTreeMap::new();
    let mut class_pointers: BTreeMap<String, String> = BTreeMap::new();
    for (name, definition) in &ir.types {
        let class = python_class(name);
        class_pointers.insert(class.clone(), definition.pointer.clone());
        for ((union, _), variant) in classes
            .range((name.clone(), String::new())..)
            .take_while(|((union, _), _)| union == name)
        {
            class_pointers.insert(
                variant.clone(),
                ir.get(union)
                    .map(|definition| definition.pointer.clone())
                    .unwrap_or_default(),
            );
        }
        let fallback_doc = format!("`{name}`, from `{}`.", definition.pointer);
        match &definition.kind {
            TypeKind::Struct(object) => {
                let (mut settings, fields, accessors) = object_members(ir, name, &object.fields, &object.flatten, None);
                let extra = unnamed_members(&object.additional, !object.flatten.is_empty(), &mut settings);
                structs.push(ClassView {
                    name: class,
                    base: if object.flatten.is_empty() {
                        "_rt.WireModel"
                    } else {
                        "_rt.FlatModel"
                    }
                    .to_owned(),
                    doc: describe(definition.description.as_deref(), &fallback_doc, 4),
                    settings,
                    fields,
                    accessors,
                    signature: Some(signature(
                        parameters(name, &object.fields, &object.flatten, None),
                        extra,
                    )),
                });
            }
            TypeKind::Alias { target } => {
                let refs = target
                    .references()
                    .into_iter()
                    .map(|reference| reference.name.to_owned())
                    .collect();
                pending.insert(
                    name.clone(),
                    (refs, describe(definition.description.as_deref(), &fallback_doc, 0)),
                );
            }
            TypeKind::Enum(enumeration) => {
                let base = match (&enumeration.repr, enumeration.other.is_some()) {
                    (EnumRepr::String, false) => "_rt.StrEnum",
                    (EnumRepr::String, true) => "_rt.OpenStrEnum",
                    (EnumRepr::Integer { .. }, false) => "_rt.IntEnum",
                    (EnumRepr::Integer { .. }, true) => "_rt.OpenIntEnum",
                };
                let settings = match (&enumeration.repr, enumeration.other.is_some()) {
                    (EnumRepr::Integer { format }, true) => {
                        let (low, high) = format.range();
                        vec![format!("__acp_range__ = ({low}, {high})")]
                    }
                    _ => Vec::new(),
                };
                enums.push(EnumView {
                    name: class,
                    base: base.to_owned(),
                    doc: describe(definition.description.as_deref(), &fallback_doc, 4),
                    settings,
                    members: enumeration
                        .values
                        .iter()
                        .map(|value| MemberView {
                            name: python_constant(&value.name),
                            value: literal(&value.value),
                            doc: value
                                .description
                                .as_deref()
                                .map(str::trim)
                                .filter(|text| !text.is_empty())
                                .map(|text| docstring(text, 4)),
                        })
                        .collect(),
                });
            }
            TypeKind::Union(union) => {
                let mut refs = BTreeSet::new();
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Type { ty } => {
                            refs.extend(ty.references().into_iter().map(|reference| reference.name.to_owned()))
                        }
                        Payload::Unit | Payload::Struct { .. } => {
                            variants.push(variant_class_view(
                                ir,
                                union,
                                variant,
                                &variant_class(&classes, name, &variant.name),
                            ));
                        }
                    }
                }
                if let (Some(other), UnionStyle::Tagged { property }) = (&union.other, &union.style) {
                    let other_class = variant_class(&classes, name, &other.name);
                    variants.push(ClassView {
                        name: other_class,
                        base: "_rt.CatchAll".to_owned(),
                        doc: describe(
                            other.description.as_deref(),
                            &format!("Any other `{property}` of `{name}`, kept whole."),
                            4,
                        ),
                        settings: vec![format!("__acp_tag__ = {}", string_literal(property))],
                        fields: Vec::new(),
                        accessors: Vec::new(),
                        signature: None,
                    });
                }
                pending.insert(
                    name.clone(),
                    (refs, describe(definition.description.as_deref(), &fallback_doc, 0)),
                );
            }
        }
    }
    let aliases = order_aliases(ir, &pending, &classes)?;
    let table = ir
        .types
        .keys()
        .map(|name| (string_literal(name), python_class(name)))
        .collect();
    let mut all = structs;
    all.extend(variants);
    for class in &all {
        let mut seen = BTreeSet::new();
        if let Some(field) = class.fields.iter().find(|field| !seen.insert(field.attr.as_str())) {
            return Err(CodegenError {
                kind: ErrorKind::NameCollision,
                file: "python bindings".to_owned(),
                pointer: class_pointers.get(&class.name).cloned().unwrap_or_default(),
                message: format!(
                    "two members of `{}` are both the Python attribute `{}`",
                    class.name, field.attr
                ),
            });
        }
    }
    let build_order = super::order::build_order(ir, &classes);
    Ok(ModelsView {
        origin: ir.origin.clone(),
        enums,
        classes: all,
        aliases,
        table,
        build_order,
    })
}

fn variant_class_view(ir: &Ir, union: &UnionType, variant: &Variant, class: &str) -> ClassView {
    let tag = match (&union.style, &variant.tag) {
        (UnionStyle::Tagged { property }, Some(tag)) => Some((property.as_str(), tag.as_str())),
        _ => None,
    };
    let mut inherited = Vec::new();
    let (base, fields, flatten) = match &variant.payload {
        Payload::Struct {
            base: Some(base),
            fields,
        } => match ir.get(base).map(|definition| &definition.kind) {
            Some(TypeKind::Struct(object)) => {
                inherited = parameters(base, &object.fields, &object.flatten, None);
                (python_class(base), fields.as_slice(), Vec::new())
            }
            _ => ("_rt.FlatModel".to_owned(), fields.as_slice(), vec![base.clone()]),
        },
        Payload::Struct { base: None, fields } => ("_rt.WireModel".to_owned(), fields.as_slice(), Vec::new()),
        Payload::Unit | Payload::Type { .. } => ("_rt.WireModel".to_owned(), &[][..], Vec::new()),
    };
    let (mut settings, views, accessors) = object_members(ir, class, fields, &flatten, tag);
    // A variant that inherits a struct's class keeps what that class keeps.
    let extra = if inherited.is_empty() {
        unnamed_members(&union.additional, !flatten.is_empty(), &mut settings)
    } else {
        None
    };
    let tag_parameter = tag.map(|(property, value)| Parameter {
        attr: python_attribute(property),
        annotation: tag_annotation(value),
        default: Some(string_literal(value)),
    });
    let mut all: Vec<Parameter> = tag_parameter.into_iter().collect();
    all.extend(inherited);
    all.extend(parameters(class, fields, &flatten, tag.map(|(property, _)| property)));
    let fallback = match &variant.tag {
        Some(tag) => format!("The `{tag}` variant."),
        None => "The variant without a tag.".to_owned(),
    };
    ClassView {
        name: class.to_owned(),
        base,
        doc: describe(variant.description.as_deref(), &fallback, 4),
        settings,
        fields: views,
        accessors,
        signature: Some(signature(all, extra)),
    }
}

/// The settings of a class for the members its schema does not name: kept
/// (pydantic's extras), or refused (`flattens`: checked after decoding the
/// flattened members); the annotation of a kept member's value.
fn unnamed_members(additional: &AdditionalProperties, flattens: bool, settings: &mut Vec<String>) -> Option<String> {
    match additional {
        AdditionalProperties::Kept(values) => {
            settings.push("model_config = _p.ConfigDict(extra=\"allow\")".to_owned());
            // The values are pydantic's own `Any` (declaring them costs
            // every write) unless the schema types them. Hidden from type
            // checkers, which see pydantic's `dict[str, Any]`; without a
            // default, so that the values stay in pydantic's slot rather
            // than `__dict__`.
            let values_type = if matches!(values, TypeExpr::Any | TypeExpr::Untyped { .. }) {
                "_t.Any".to_owned()
            } else {
                annotation(values)
            };
            settings.push(format!(
                "if not _t.TYPE_CHECKING:\n        __pydantic_extra__: dict[str, {values_type}]"
            ));
            Some(annotation(values))
        }
        AdditionalProperties::Denied if flattens => {
            settings.push("__acp_closed__ = True".to_owned());
            None
        }
        AdditionalProperties::Denied => {
            settings.push("model_config = _p.ConfigDict(extra=\"forbid\")".to_owned());
            None
        }
    }
}
