//! `models.py`: one pydantic class per struct and union variant, one enum
//! per enum, one alias per alias and union, and the by-name type table.

use std::collections::{BTreeMap, BTreeSet};

use askama::Template;

use super::codecs::{annotation, integer_range, or_none, order_aliases, references, rule};
use super::{describe, docstring, literal, string_literal};
use crate::error::{CodegenError, ErrorKind};
use crate::ir::{AdditionalProperties, EnumRepr, Field, Ir, Payload, TypeKind, UnionStyle, UnionType, Variant};
use crate::naming::{python_attribute, python_class, python_constant, python_default_accessor, python_variant_class};

/// The class of each variant that gets one, keyed by union and variant name.
pub(super) type VariantClasses = BTreeMap<(String, String), String>;

#[derive(Template)]
#[template(path = "python/models.py", escape = "none")]
pub(super) struct ModelsView {
    origin: String,
    /// `import` lines beyond `typing` and `pydantic`, only those used.
    imports: Vec<String>,
    enums: Vec<EnumView>,
    classes: Vec<ClassView>,
    aliases: Vec<AliasView>,
    table: Vec<(String, String)>,
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
    annotation: String,
    default: String,
    doc: Option<String>,
}

pub(super) struct AliasView {
    pub(super) name: String,
    pub(super) value: String,
    pub(super) doc: String,
}


fn field_view(field: &Field) -> FieldView {
    let inner = annotation(&field.ty);
    let annotation = if field.required && !field.nullable { inner } else { or_none(inner) };
    let alias = string_literal(&field.wire_name);
    let default = if field.required { format!(" = _p.Field(alias={alias})") } else { format!(" = _p.Field(default=None, alias={alias})") };
    FieldView {
        attr: python_attribute(&field.wire_name),
        annotation,
        default,
        doc: field.description.as_deref().map(str::trim).filter(|text| !text.is_empty()).map(docstring),
    }
}


/// The class settings and fields of an object made of `fields` plus the
/// flattened named types `flatten`.
fn object_members(ir: &Ir, fields: &[Field], flatten: &[String], tag: Option<(&str, &str)>) -> (Vec<String>, Vec<FieldView>, Vec<AccessorView>) {
    let mut settings = Vec::new();
    let mut views = Vec::new();
    if let Some((property, value)) = tag {
        views.push(FieldView {
            attr: python_attribute(property),
            annotation: format!("_t.Literal[{}]", string_literal(value)),
            default: format!(" = _p.Field(alias={})", string_literal(property)),
            doc: None,
        });
    }
    views.extend(fields.iter().map(field_view));
    let rules: Vec<String> = fields.iter().filter_map(|field| rule(ir, field)).collect();
    if !rules.is_empty() {
        settings.push(format!("__acp_rules__ = ({},)", rules.join(", ")));
    }
    if !flatten.is_empty() {
        let attrs: Vec<String> = flatten.iter().map(|name| string_literal(&python_attribute(name))).collect();
        settings.push(format!("__acp_flattened__ = ({},)", attrs.join(", ")));
        for name in flatten {
            let attr = python_attribute(name);
            views.push(FieldView {
                attr: attr.clone(),
                annotation: python_class(name),
                default: format!(" = _p.Field(alias={})", string_literal(&attr)),
                doc: None,
            });
        }
    }
    let accessors = fields
        .iter()
        .filter_map(|field| {
            let default = field.default.as_ref()?;
            let inner = annotation(&field.ty);
            Some(AccessorView {
                name: python_default_accessor(&field.wire_name),
                annotation: if field.nullable { or_none(inner) } else { inner },
                attr: string_literal(&python_attribute(&field.wire_name)),
                default: literal(default),
                doc: docstring(&format!("`{}`, or the schema default `{default}` when it is absent.", field.wire_name)),
            })
        })
        .collect();
    (settings, views, accessors)
}

fn is_struct(ir: &Ir, name: &str) -> bool {
    matches!(ir.get(name).map(|definition| &definition.kind), Some(TypeKind::Struct(_)))
}

/// Names every variant class (struct and unit payloads, and catch-alls of
/// tagged unions), away from the names of types and of each other.
fn variant_classes(ir: &Ir) -> VariantClasses {
    let mut taken: BTreeSet<String> = ir.types.keys().map(|name| python_class(name)).collect();
    let mut classes = VariantClasses::new();
    for (name, definition) in &ir.types {
        let TypeKind::Union(union) = &definition.kind else { continue };
        let mut members: Vec<&str> =
            union.variants.iter().filter(|variant| !matches!(variant.payload, Payload::Type { .. })).map(|variant| variant.name.as_str()).collect();
        if let (Some(other), UnionStyle::Tagged { .. }) = (&union.other, &union.style) {
            members.push(&other.name);
        }
        for member in members {
            let class = python_variant_class(name, member, |candidate| taken.contains(candidate));
            taken.insert(class.clone());
            classes.insert((name.clone(), member.to_owned()), class);
        }
    }
    classes
}

pub(super) fn variant_class(classes: &VariantClasses, union: &str, variant: &str) -> String {
    classes.get(&(union.to_owned(), variant.to_owned())).cloned().unwrap_or_else(|| python_class(variant))
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
        for ((union, _), variant) in classes.range((name.clone(), String::new())..).take_while(|((union, _), _)| union == name) {
            class_pointers.insert(variant.clone(), ir.get(union).map(|definition| definition.pointer.clone()).unwrap_or_default());
        }
        let fallback_doc = format!("`{name}`, from `{}`.", definition.pointer);
        match &definition.kind {
            TypeKind::Struct(object) => {
                let (mut settings, fields, accessors) = object_members(ir, &object.fields, &object.flatten, None);
                match &object.additional {
                    AdditionalProperties::Ignored => {}
                    AdditionalProperties::Kept(values) => {
                        settings.push("model_config = _p.ConfigDict(extra=\"allow\")".to_owned());
                        settings.push(format!("__pydantic_extra__: dict[str, {}] = _p.Field(init=False)", annotation(values)));
                    }
                    AdditionalProperties::Denied if object.flatten.is_empty() => settings.push("model_config = _p.ConfigDict(extra=\"forbid\")".to_owned()),
                    AdditionalProperties::Denied => settings.push("__acp_closed__ = True".to_owned()),
                }
                structs.push(ClassView {
                    name: class,
                    base: if object.flatten.is_empty() { "_rt.WireModel" } else { "_rt.FlatModel" }.to_owned(),
                    doc: describe(definition.description.as_deref(), &fallback_doc),
                    settings,
                    fields,
                    accessors,
                });
            }
            TypeKind::Alias { target } => {
                let mut refs = BTreeSet::new();
                references(target, &mut refs);
                pending.insert(name.clone(), (refs, describe(definition.description.as_deref(), &fallback_doc)));
            }
            TypeKind::Enum(enumeration) => {
                let base = match (&enumeration.repr, enumeration.other.is_some()) {
                    (EnumRepr::String, false) => "str, _enum.Enum",
                    (EnumRepr::String, true) => "_rt.OpenStrEnum",
                    (EnumRepr::Integer { .. }, false) => "int, _enum.Enum",
                    (EnumRepr::Integer { .. }, true) => "_rt.OpenIntEnum",
                };
                let settings = match (&enumeration.repr, enumeration.other.is_some()) {
                    (EnumRepr::Integer { format }, true) => {
                        let (low, high) = integer_range(*format);
                        vec![format!("__acp_range__ = ({low}, {high})")]
                    }
                    _ => Vec::new(),
                };
                enums.push(EnumView {
                    name: class,
                    base: base.to_owned(),
                    doc: describe(definition.description.as_deref(), &fallback_doc),
                    settings,
                    members: enumeration
                        .values
                        .iter()
                        .map(|value| MemberView {
                            name: python_constant(&value.name),
                            value: literal(&value.value),
                            doc: value.description.as_deref().map(str::trim).filter(|text| !text.is_empty()).map(docstring),
                        })
                        .collect(),
                });
            }
            TypeKind::Union(union) => {
                let mut refs = BTreeSet::new();
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Type { ty } => references(ty, &mut refs),
                        Payload::Unit | Payload::Struct { .. } => {
                            variants.push(variant_class_view(ir, union, variant, &variant_class(&classes, name, &variant.name)));
                        }
                    }
                }
                if let (Some(other), UnionStyle::Tagged { property }) = (&union.other, &union.style) {
                    let other_class = variant_class(&classes, name, &other.name);
                    variants.push(ClassView {
                        name: other_class,
                        base: "_rt.CatchAll".to_owned(),
                        doc: describe(other.description.as_deref(), &format!("Any other `{property}` of `{name}`, kept whole.")),
                        settings: vec![format!("__acp_tag__ = {}", string_literal(property))],
                        fields: Vec::new(),
                        accessors: Vec::new(),
                    });
                }
                pending.insert(name.clone(), (refs, describe(definition.description.as_deref(), &fallback_doc)));
            }
        }
    }
    let aliases = order_aliases(ir, &pending, &classes)?;
    let table = ir.types.keys().map(|name| (string_literal(name), python_class(name))).collect();
    let mut all = structs;
    all.extend(variants);
    for class in &all {
        let mut seen = BTreeSet::new();
        if let Some(field) = class.fields.iter().find(|field| !seen.insert(field.attr.as_str())) {
            return Err(CodegenError {
                kind: ErrorKind::NameCollision,
                file: "python bindings".to_owned(),
                pointer: class_pointers.get(&class.name).cloned().unwrap_or_default(),
                message: format!("two members of `{}` are both the Python attribute `{}`", class.name, field.attr),
            });
        }
    }
    let imports = if enums.iter().any(|item| item.base.ends_with("_enum.Enum")) { vec!["import enum as _enum".to_owned()] } else { Vec::new() };
    Ok(ModelsView { origin: ir.origin.clone(), imports, enums, classes: all, aliases, table })
}

fn variant_class_view(ir: &Ir, union: &UnionType, variant: &Variant, class: &str) -> ClassView {
    let tag = match (&union.style, &variant.tag) {
        (UnionStyle::Tagged { property }, Some(tag)) => Some((property.as_str(), tag.as_str())),
        _ => None,
    };
    let (base, fields, flatten) = match &variant.payload {
        Payload::Struct { base: Some(base), fields } if is_struct(ir, base) => (python_class(base), fields.as_slice(), Vec::new()),
        Payload::Struct { base: Some(base), fields } => ("_rt.FlatModel".to_owned(), fields.as_slice(), vec![base.clone()]),
        Payload::Struct { base: None, fields } => ("_rt.WireModel".to_owned(), fields.as_slice(), Vec::new()),
        Payload::Unit | Payload::Type { .. } => ("_rt.WireModel".to_owned(), &[][..], Vec::new()),
    };
    let (settings, fields, accessors) = object_members(ir, fields, &flatten, tag);
    let fallback = match &variant.tag {
        Some(tag) => format!("The `{tag}` variant."),
        None => "The variant without a tag.".to_owned(),
    };
    ClassView { name: class.to_owned(), base, doc: describe(variant.description.as_deref(), &fallback), settings, fields, accessors }
}

