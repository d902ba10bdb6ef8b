//! The Python emitter: a pip-installable package of pydantic v2 models, the
//! method tables, the `Agent` and `Client` protocols and the by-name codec.
//!
//! Every decision is resolved here into view structs; the askama templates in
//! `templates/python/` only loop and print. Sides: a method whose side is
//! `agent` or `client` goes to that protocol; `protocol` and `both` methods
//! are handled by every side, so they go to both; `proxy` methods are handled
//! by neither endpoint and only appear in the method tables.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use askama::Template;
use serde_json::Value;

use super::{Files, PackageNames};
use crate::error::{CodegenError, ErrorKind};
use crate::ir::{
    AdditionalProperties, EnumRepr, Fallback, Field, IntegerFormat, Ir, Payload, Side, TypeExpr, TypeKind,
    UnionStyle, UnionType, Variant,
};
use crate::naming::{
    python_attribute, python_class, python_constant, python_default_accessor, python_distribution, python_variant_class,
};

/// The class of each variant that gets one, keyed by union and variant name.
type VariantClasses = BTreeMap<(String, String), String>;

const RUNTIME: &str = include_str!("../../../templates/python/runtime.py");
const CODEC: &str = include_str!("../../../templates/python/codec.py");
const INIT: &str = include_str!("../../../templates/python/__init__.py");

#[derive(Template)]
#[template(path = "python/models.py", escape = "none")]
struct ModelsView {
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

struct AliasView {
    name: String,
    value: String,
    doc: String,
}

#[derive(Template)]
#[template(path = "python/methods.py", escape = "none")]
struct MethodsView {
    imports: Vec<String>,
    /// One constant per method name: `(CONSTANT, "name")`.
    constants: Vec<(String, String)>,
    requests: Vec<RequestView>,
    notifications: Vec<NotificationView>,
}

struct RequestView {
    name: String,
    side: String,
    params: String,
    result: String,
}

struct NotificationView {
    name: String,
    side: String,
    params: String,
}

#[derive(Template)]
#[template(path = "python/protocols.py", escape = "none")]
struct ProtocolsView {
    imports: Vec<String>,
    sides: Vec<ProtocolView>,
}

struct ProtocolView {
    name: String,
    doc: String,
    methods: Vec<ProtocolMethodView>,
}

struct ProtocolMethodView {
    name: String,
    params: String,
    result: String,
    doc: String,
}

#[derive(Template)]
#[template(path = "python/pyproject.toml", escape = "none")]
struct PyprojectView {
    distribution: String,
    package: String,
}

/// Emits the python package for `ir`.
pub fn emit(ir: &Ir, names: &PackageNames) -> Result<Files, CodegenError> {
    let package = names.python_package.clone();
    let distribution = python_distribution(&package).ok_or_else(|| CodegenError {
        kind: ErrorKind::Malformed,
        file: "python bindings".to_owned(),
        pointer: String::new(),
        message: format!("the Python package name `{package}` is not a Python identifier"),
    })?;
    let models = models_view(ir)?;
    let methods = methods_view(ir);
    let protocols = protocols_view(ir);
    let root = PathBuf::from(&package);
    Ok(vec![
        (
            PathBuf::from("pyproject.toml"),
            render(&PyprojectView { distribution, package: package.clone() }, "pyproject.toml")?,
        ),
        (root.join("__init__.py"), INIT.to_owned()),
        (root.join("py.typed"), String::new()),
        (root.join("_runtime.py"), RUNTIME.to_owned()),
        (root.join("codec.py"), CODEC.to_owned()),
        (root.join("models.py"), render(&models, "models.py")?),
        (root.join("methods.py"), render(&methods, "methods.py")?),
        (root.join("protocols.py"), render(&protocols, "protocols.py")?),
    ])
}

fn render(template: &impl Template, file: &str) -> Result<String, CodegenError> {
    template.render().map_err(|error| CodegenError {
        kind: ErrorKind::Unsupported,
        file: format!("templates/python/{file}"),
        pointer: String::new(),
        message: error.to_string(),
    })
}

/// `text` as a Python docstring that no text can end early.
fn docstring(text: &str) -> String {
    let escaped = text.trim().replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"\"\"{escaped}\"\"\"")
}

fn describe(description: Option<&str>, fallback: &str) -> String {
    match description.map(str::trim).filter(|text| !text.is_empty()) {
        Some(text) => docstring(text),
        None => docstring(fallback),
    }
}

/// A JSON value as a Python literal.
fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => Value::String(text.clone()).to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(literal).collect::<Vec<_>>().join(", ")),
        Value::Object(members) => format!(
            "{{{}}}",
            members.iter().map(|(key, item)| format!("{}: {}", literal(&Value::String(key.clone())), literal(item))).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn string_literal(text: &str) -> String {
    literal(&Value::String(text.to_owned()))
}

fn integer_range(format: IntegerFormat) -> (i128, i128) {
    match format {
        IntegerFormat::Int8 => (i8::MIN.into(), i8::MAX.into()),
        IntegerFormat::Int16 => (i16::MIN.into(), i16::MAX.into()),
        IntegerFormat::Int32 => (i32::MIN.into(), i32::MAX.into()),
        IntegerFormat::Int64 | IntegerFormat::Unspecified => (i64::MIN.into(), i64::MAX.into()),
        IntegerFormat::Uint8 => (0, u8::MAX.into()),
        IntegerFormat::Uint16 => (0, u16::MAX.into()),
        IntegerFormat::Uint32 => (0, u32::MAX.into()),
        IntegerFormat::Uint64 => (0, u64::MAX.into()),
    }
}

fn bound(number: &Option<serde_json::Number>) -> Option<String> {
    number.as_ref().map(serde_json::Number::to_string)
}

/// The Python annotation of a type expression.
fn annotation(expr: &TypeExpr) -> String {
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
            let (low, high) = integer_range(integer.format);
            let minimum = integer.minimum.as_ref().and_then(|n| n.as_i64()).map_or(low, |n| i128::from(n).max(low));
            let minimum = integer.minimum.as_ref().and_then(|n| n.as_u64()).map_or(minimum, |n| i128::from(n).max(minimum));
            let maximum = integer.maximum.as_ref().and_then(|n| n.as_i64()).map_or(high, |n| i128::from(n).min(high));
            let maximum = integer.maximum.as_ref().and_then(|n| n.as_u64()).map_or(maximum, |n| i128::from(n).min(maximum));
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
            let field = if constraints.is_empty() { String::new() } else { format!(", _p.Field({})", constraints.join(", ")) };
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
            if constraints.is_empty() { list } else { format!("_t.Annotated[{list}, _p.Field({})]", constraints.join(", ")) }
        }
        TypeExpr::Map { values } => format!("dict[str, {}]", annotation(values)),
        TypeExpr::Nullable { inner } => or_none(annotation(inner)),
    }
}

/// `inner` or `None`.
fn or_none(inner: String) -> String {
    if inner == "None" { inner } else { format!("{inner} | None") }
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

/// Named types referenced by `expr`.
fn references(expr: &TypeExpr, into: &mut BTreeSet<String>) {
    match expr {
        TypeExpr::Named { name } => {
            into.insert(name.clone());
        }
        TypeExpr::Array(array) => references(&array.items, into),
        TypeExpr::Map { values } => references(values, into),
        TypeExpr::Nullable { inner } => references(inner, into),
        _ => {}
    }
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

/// The `Rule` of a field that needs one: decode rules, or an optional field
/// whose type has no `null` (an explicit `null` is then an error).
fn rule(ir: &Ir, field: &Field) -> Option<String> {
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
        "_rt.Rule({}, {}, {}, {}, {}, {}, {fallback}, {value})",
        string_literal(&field.wire_name),
        string_literal(&python_attribute(&field.wire_name)),
        flag(nullable),
        flag(field.decode.default_on_error),
        flag(field.decode.default_on_null),
        flag(field.decode.skip_invalid_items),
    ))
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

fn variant_class(classes: &VariantClasses, union: &str, variant: &str) -> String {
    classes.get(&(union.to_owned(), variant.to_owned())).cloned().unwrap_or_else(|| python_class(variant))
}

fn models_view(ir: &Ir) -> Result<ModelsView, CodegenError> {
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
            let mut arms: Vec<String> = options.iter().map(|class| format!("_t.Annotated[{class}, _p.Tag({})]", string_literal(class))).collect();
            let labels: Vec<String> = union
                .variants
                .iter()
                .zip(&options)
                .filter_map(|(variant, class)| variant.tag.as_ref().map(|tag| format!("{}: {}", string_literal(tag), string_literal(class))))
                .collect();
            let untagged = union.variants.iter().zip(&options).find(|(variant, _)| variant.tag.is_none()).map(|(_, class)| string_literal(class));
            let other = union.other.as_ref().map(|other| variant_class(classes, name, &other.name));
            if let Some(other) = &other {
                arms.push(format!("_t.Annotated[{other}, _p.Tag({})]", string_literal(other)));
            }
            let message = string_literal(&format!("the tag `{property}` is missing, not a string, or names no variant of `{name}`"));
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
            format!(
                "_t.Annotated[{}, _p.Discriminator(_rt.tag_of({}, {{{}}}, {}, {}), custom_error_type={}, custom_error_message={})]",
                union_of(&arms),
                string_literal(property),
                labels.join(", "),
                untagged.unwrap_or_else(|| "None".to_owned()),
                other.map_or("None".to_owned(), |other| string_literal(&other)),
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
                        let mut refs = BTreeSet::new();
                        references(ty, &mut refs);
                        if refs.iter().any(|reference| open.contains(reference)) { "_t.Any".to_owned() } else { option.clone() }
                    }
                    Payload::Unit | Payload::Struct { .. } => option.clone(),
                })
                .collect();
            format!(
                "_t.Annotated[{}, _p.PlainValidator(_rt.untagged(lambda: ({},))), _p.PlainSerializer(_rt.as_is, return_type=_t.Any)]",
                union_of(&eager),
                options.join(", ")
            )
        }
    }
}

/// Aliases and unions in an order where each is defined before it is used.
/// Their right-hand sides are evaluated at import: a union may refer back to
/// itself (see [`union_value`]), a plain alias may not.
fn order_aliases(ir: &Ir, pending: &BTreeMap<String, (BTreeSet<String>, String)>, classes: &VariantClasses) -> Result<Vec<AliasView>, CodegenError> {
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
    let Some((refs, doc)) = pending.get(name) else { return Ok(()) };
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
                    pointer: ir.get(name).map(|definition| definition.pointer.clone()).unwrap_or_default(),
                    message: format!("the Python type alias `{name}` refers back to `{back}`, which is not defined yet"),
                });
            }
            annotation(target)
        }
        Some(TypeKind::Union(union)) => union_value(name, union, classes, &open),
        _ => "_t.Any".to_owned(),
    };
    visiting.pop();
    done.insert(name.to_owned());
    order.push(AliasView { name: python_class(name), value, doc: doc.clone() });
    Ok(())
}

fn methods_view(ir: &Ir) -> MethodsView {
    let mut requests = Vec::new();
    let mut notifications = Vec::new();
    for (name, method) in &ir.methods {
        if let Some(request) = &method.request {
            requests.push(RequestView {
                name: string_literal(name),
                side: string_literal(request.side.as_str()),
                params: python_class(&request.params),
                result: python_class(&request.result),
            });
        }
        if let Some(notification) = &method.notification {
            notifications.push(NotificationView {
                name: string_literal(name),
                side: string_literal(notification.side.as_str()),
                params: python_class(&notification.params),
            });
        }
    }
    let imports = models_import(!requests.is_empty() || !notifications.is_empty());
    let constants = ir.methods.keys().map(|name| (python_constant(name), string_literal(name))).collect();
    MethodsView { imports, constants, requests, notifications }
}

fn handles(side: Side, protocol: Side) -> bool {
    side == protocol || matches!(side, Side::Protocol | Side::Both)
}

fn protocols_view(ir: &Ir) -> ProtocolsView {
    let sides = [(Side::Agent, "Agent"), (Side::Client, "Client")]
        .into_iter()
        .map(|(side, label)| {
            let mut methods = Vec::new();
            for (name, method) in &ir.methods {
                if let Some(request) = method.request.as_ref().filter(|request| handles(request.side, side)) {
                    methods.push(ProtocolMethodView {
                        name: python_attribute(name),
                        params: python_class(&request.params),
                        result: format!("_m.{}", python_class(&request.result)),
                        doc: docstring(&format!("Handles the `{name}` request.")),
                    });
                }
                if let Some(notification) = method.notification.as_ref().filter(|notification| handles(notification.side, side)) {
                    let method_name = if method.request.as_ref().is_some_and(|request| handles(request.side, side)) {
                        python_attribute(&format!("{name}_notification"))
                    } else {
                        python_attribute(name)
                    };
                    methods.push(ProtocolMethodView {
                        name: method_name,
                        params: python_class(&notification.params),
                        result: "None".to_owned(),
                        doc: docstring(&format!("Handles the `{name}` notification.")),
                    });
                }
            }
            ProtocolView { name: label.to_owned(), doc: docstring(&format!("The methods the {} side handles.", side.as_str())), methods }
        })
        .collect::<Vec<ProtocolView>>();
    let imports = models_import(sides.iter().any(|side| !side.methods.is_empty()));
    ProtocolsView { imports, sides }
}

/// The import of the models module, when a file refers to it.
fn models_import(used: bool) -> Vec<String> {
    if used { vec!["from . import models as _m".to_owned()] } else { Vec::new() }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ir::{Method, NotificationMethod, RequestMethod};
    use crate::test_support::{file, ir_of};

    fn sample() -> Ir {
        ir_of(json!({
            "Status": {"description": "Ends \"\"\" early \\", "anyOf": [
                {"type": "string", "const": "live"}, {"type": "string", "const": "not_found"}, {"title": "other", "type": "string"}]},
            "Kind": {"oneOf": [{"type": "string", "const": "read"}, {"type": "string", "const": "edit"}]},
            "Update": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "const": "chunk"}, "text": {"type": "string"}}, "required": ["kind", "text"]},
                {"type": "object", "properties": {"kind": {"type": "string", "const": "done"}}, "required": ["kind"]}],
                "discriminator": {"propertyName": "kind"}},
            "UpdateDone": {"type": "object", "properties": {}},
            "Item": {"type": "object", "properties": {
                "label": {"type": ["string", "null"]},
                "count": {"type": "integer", "format": "uint8", "minimum": 1, "default": 3},
                "status": {"$ref": "#/$defs/Status"}}, "required": ["status"]}
        }))
    }

    fn with_methods(mut ir: Ir) -> Ir {
        let request = |side| Some(RequestMethod { side, params: "Item".into(), result: "Item".into() });
        let notification = |side| Some(NotificationMethod { side, params: "Item".into() });
        for (name, request, notification) in [
            ("session/prompt", request(Side::Agent), None),
            ("fs/read_text_file", request(Side::Client), notification(Side::Agent)),
            ("$/cancel_request", None, notification(Side::Protocol)),
            ("proxy/connect", request(Side::Proxy), None),
        ] {
            ir.methods.insert(name.into(), Method { name: name.into(), request, notification, gate: None });
        }
        ir
    }

    #[test]
    fn package_files() {
        let names = PackageNames { python_package: "my_acp".into(), ..PackageNames::default() };
        let files = emit(&sample(), &names).unwrap();
        let paths: Vec<String> = files.iter().map(|(path, _)| path.display().to_string()).collect();
        assert_eq!(
            paths,
            ["pyproject.toml", "my_acp/__init__.py", "my_acp/py.typed", "my_acp/_runtime.py", "my_acp/codec.py", "my_acp/models.py", "my_acp/methods.py", "my_acp/protocols.py"]
        );
        let pyproject = file(&files, "pyproject.toml");
        for expected in ["name = \"my-acp\"", "requires-python = \">=3.10\"", "\"pydantic>=2.5,<3\"", "packages = [\"my_acp\"]", "plugins = [\"pydantic.mypy\"]"] {
            assert!(pyproject.contains(expected), "{expected} in\n{pyproject}");
        }
        assert!(file(&files, "my_acp/__init__.py").contains("from .codec import roundtrip"));
        assert_eq!(files, emit(&sample(), &names).unwrap(), "the output is the same on every run");
    }

    #[test]
    fn a_package_name_that_is_no_identifier_is_an_error() {
        let names = PackageNames { python_package: "my-acp".into(), ..PackageNames::default() };
        let error = emit(&sample(), &names).unwrap_err();
        assert_eq!(error.kind, ErrorKind::Malformed);
        assert!(error.message.contains("`my-acp`"), "{}", error.message);
    }

    #[test]
    fn descriptions_cannot_end_the_docstring() {
        assert_eq!(docstring("a \"\"\" b \\"), r#""""a \"\"\" b \\""""#);
        let models = file(&emit(&sample(), &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        assert!(models.contains(r#""""Ends \"\"\" early \\""""#), "{models}");
    }

    #[test]
    fn models_keep_wire_names_nullability_and_constraints() {
        let models = file(&emit(&sample(), &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        for expected in [
            "class Status(_rt.OpenStrEnum):",
            "    NOT_FOUND = \"not_found\"",
            "class Kind(str, _enum.Enum):",
            "    label: _p.StrictStr | None = _p.Field(default=None, alias=\"label\")",
            "    count: _t.Annotated[int, _p.Strict(), _p.Field(ge=1, le=255)] | None = _p.Field(default=None, alias=\"count\")",
            "    def count_or_default(self) -> _t.Annotated[int, _p.Strict(), _p.Field(ge=1, le=255)]:",
            "_rt.Rule(\"count\", \"count\", False, False, False, False, _rt.ABSENT, None)",
            "    status: Status = _p.Field(alias=\"status\")",
            "    \"Item\": Item,",
        ] {
            assert!(models.contains(expected), "{expected} in\n{models}");
        }
    }

    #[test]
    fn tagged_unions_are_discriminated_by_tag_value() {
        let models = file(&emit(&sample(), &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        assert!(models.contains("class UpdateChunk(_rt.WireModel):"), "{models}");
        assert!(models.contains("    kind: _t.Literal[\"chunk\"] = _p.Field(alias=\"kind\")"), "{models}");
        assert!(models.contains("class UpdateDoneVariant(_rt.WireModel):"), "a variant class never takes a type's name:\n{models}");
        assert!(models.contains("_rt.tag_of(\"kind\", {\"chunk\": \"UpdateChunk\", \"done\": \"UpdateDoneVariant\"}, None, None)"), "{models}");
        assert!(models.contains("custom_error_type=\"acp_union_tag:kind\""), "an unknown tag names the tag member:\n{models}");
    }

    #[test]
    fn recursive_untagged_unions_decode_lazily() {
        let ir = ir_of(json!({
            "Tree": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}
        }));
        let models = file(&emit(&ir, &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        assert!(
            models.contains("Tree: _t.TypeAlias = _t.Annotated[_p.StrictStr | _t.Any, _p.PlainValidator(_rt.untagged(lambda: (_p.StrictStr, list[Tree],)))"),
            "{models}"
        );
    }

    #[test]
    fn attributes_that_collide_are_an_error() {
        let ir = ir_of(json!({"Both": {"type": "object", "properties": {"_meta": {}, "meta": {}}}}));
        let error = emit(&ir, &PackageNames::default()).unwrap_err();
        assert_eq!(error.kind, ErrorKind::NameCollision);
        assert_eq!(error.pointer, "/$defs/Both");
        assert!(error.message.contains("`meta`"), "{}", error.message);
    }

    #[test]
    fn closed_objects_that_flatten_check_their_members_after_decoding() {
        let ir = ir_of(json!({
            "Shape": {"type": "object", "additionalProperties": false, "properties": {"name": {"type": "string"}}, "required": ["name"],
                "oneOf": [{"type": "object", "properties": {"kind": {"const": "circle", "type": "string"}}, "required": ["kind"]}],
                "discriminator": {"propertyName": "kind"}},
            "Plain": {"type": "object", "additionalProperties": false, "properties": {"a": {"type": "string"}}}
        }));
        let models = file(&emit(&ir, &PackageNames::default()).unwrap(), "acp_bindings/models.py").to_owned();
        let shape = &models[models.find("class Shape(_rt.FlatModel):").expect("Shape flattens")..];
        assert!(shape.contains("__acp_closed__ = True") && !shape[..shape.find("\n\n\nclass").unwrap()].contains("extra="), "{shape}");
        let plain = &models[models.find("class Plain(_rt.WireModel):").expect("Plain")..];
        assert!(plain.contains("model_config = _p.ConfigDict(extra=\"forbid\")"), "{plain}");
    }

    #[test]
    fn protocols_hold_the_methods_of_their_side() {
        let files = emit(&with_methods(sample()), &PackageNames::default()).unwrap();
        let protocols = file(&files, "acp_bindings/protocols.py");
        let (agent, client) = protocols.split_once("class Client(_t.Protocol):").unwrap();
        assert!(agent.contains("async def session_prompt(self, params: _m.Item) -> _m.Item:"), "{agent}");
        assert!(agent.contains("async def fs_read_text_file(self, params: _m.Item) -> None:"), "{agent}");
        assert!(agent.contains("async def cancel_request(self, params: _m.Item) -> None:"), "{agent}");
        assert!(client.contains("async def fs_read_text_file(self, params: _m.Item) -> _m.Item:"), "{client}");
        assert!(client.contains("async def cancel_request(self, params: _m.Item) -> None:"), "{client}");
        assert!(!client.contains("session_prompt") && !protocols.contains("proxy_connect"), "{protocols}");
        let methods = file(&files, "acp_bindings/methods.py");
        assert!(methods.contains("\"proxy/connect\": RequestMethod(\"proxy/connect\", \"proxy\", _m.Item, _m.Item),"), "{methods}");
        assert!(methods.contains("CANCEL_REQUEST = \"$/cancel_request\""), "{methods}");
    }
}
