//! `types.go`: one Go type per IR type with its decoder and encoder, built
//! from the runtime's combinators (`templates/go/codec.go`,
//! `templates/go/object.go`). Structs are Go structs whose optional
//! members are `Optional` and nullable ones `Nullable`, with the members
//! the schema does not name kept in an `Extra` field and an accessor for
//! each schema default; enums are named
//! strings or integers with a constant per value; aliases are defined
//! types; unions are interfaces with one type per variant. Every decision
//! is resolved here into views; the template only loops and prints.

use std::collections::BTreeSet;

use askama::Template;

use super::exprs::{
    codec, doc, field_type, go_string, go_strings, go_type, integer_codec, integer_type, named_codec, rules, Boxed,
};
use super::indirection::{is_interface, Cycles};
use acp_ir::ir::*;
use acp_ir::naming;

#[derive(Template)]
#[template(path = "go/types.go.tmpl", escape = "none")]
pub(super) struct TypesFile {
    pub(super) types: Vec<TypeView>,
}

pub(super) enum TypeView {
    Struct(StructView),
    Alias(AliasView),
    Enum(EnumView),
    Union(UnionView),
}

/// A struct, or a union variant whose payload is an object.
pub(super) struct StructView {
    doc: Vec<String>,
    name: String,
    /// `readX`: decodes it from an object, as `returns`.
    read: String,
    /// `decodeX` (a plain struct only).
    decode: String,
    encode: String,
    /// What `read` returns: the struct, or the interface of its union.
    returns: String,
    /// Its Go fields, in declaration order.
    declared: Vec<Declared>,
    fields: Vec<FieldView>,
    flattened: Vec<FlatView>,
    /// The members it does not name: kept in this field, or refused.
    extra: Option<ExtraView>,
    /// Every member name it reads, as a Go `[]string`.
    known: String,
    /// A variant: the marker method of its union, and its tag, if any.
    variant: Option<VariantOf>,
}

pub(super) struct Declared {
    doc: Vec<String>,
    name: String,
    go_type: String,
}

pub(super) struct FieldView {
    doc: Vec<String>,
    name: String,
    go_type: String,
    wire: String,
    codec: String,
    rules: String,
    required: bool,
    /// An optional member with a schema default: its accessor.
    default: Option<DefaultView>,
}

/// The method that gives an optional member's value or its default.
pub(super) struct DefaultView {
    method: String,
    /// The member's type inside `Optional`.
    value_type: String,
    /// The default as a Go string literal of its JSON.
    literal: String,
}

pub(super) struct FlatView {
    name: String,
    go_type: String,
    codec: String,
}

pub(super) struct ExtraView {
    name: String,
    go_type: String,
    codec: String,
}

pub(super) struct VariantOf {
    marker: String,
    /// The tag member, which the variant reads (not rendered).
    property: Option<String>,
    /// `(property, value)` as Go string literals.
    tag: Option<(String, String)>,
}

pub(super) struct AliasView {
    doc: Vec<String>,
    name: String,
    target: String,
    /// The target type as a conversion writes it (`(*Tree)`).
    convert: String,
    codec: String,
    decode: String,
    encode: String,
    /// Whether it gets JSON methods (an interface type cannot).
    methods: bool,
}

pub(super) struct EnumView {
    doc: Vec<String>,
    name: String,
    base: String,
    constants: Vec<ConstantView>,
    codec: String,
    decode: String,
    encode: String,
}

pub(super) struct ConstantView {
    doc: Vec<String>,
    name: String,
    literal: String,
}

pub(super) struct UnionView {
    doc: Vec<String>,
    name: String,
    marker: String,
    decode: String,
    encode: String,
    /// The variants whose payload is an object.
    structs: Vec<StructView>,
    /// The variants that hold a value: a type's, or any JSON (the catch-all).
    wrappers: Vec<WrapperView>,
    /// The Go expression that decodes `v` at `pointer`.
    decoder: String,
    /// `(variant type, its encoder)`, in variant order.
    cases: Vec<(String, String)>,
}

/// A variant that holds one value of `go_type`.
pub(super) struct WrapperView {
    doc: Vec<String>,
    name: String,
    go_type: String,
    codec: String,
    /// `decodeX`: decodes it from a value, as its union.
    decode: String,
    /// `readX`, for a tagged union: decodes it from the object.
    read: Option<String>,
    encode: String,
    /// The tag it writes, for a tagged union: `(property, value)`.
    tag: Option<(String, String)>,
}

/// Builds the views of every type of `ir`, naming the Go types of variants
/// and constants apart from every type name.
pub(super) fn view(ir: &Ir) -> TypesFile {
    let cycles = Cycles::new(ir);
    let mut taken: BTreeSet<String> = ir.types.keys().map(|name| naming::go_type(name)).collect();
    let types = ir
        .types
        .values()
        .map(|definition| {
            let name = naming::go_type(&definition.name);
            let doc = doc(definition.description.as_deref());
            match &definition.kind {
                TypeKind::Struct(structure) => TypeView::Struct(struct_view(
                    ir,
                    &|name| cycles.boxed(&definition.name, name),
                    doc,
                    &name,
                    Shape {
                        fields: &structure.fields,
                        flatten: &structure.flatten,
                        additional: &structure.additional,
                    },
                    None,
                )),
                TypeKind::Alias { target } => TypeView::Alias(alias_view(
                    ir,
                    &|name| cycles.boxed(&definition.name, name),
                    doc,
                    &name,
                    target,
                )),
                TypeKind::Enum(enumeration) => TypeView::Enum(enum_view(doc, &name, enumeration, &mut taken)),
                TypeKind::Union(union) => TypeView::Union(union_view(ir, doc, &name, union, &mut taken)),
            }
        })
        .collect();
    TypesFile { types }
}

/// The members of an object: its fields, the types flattened into it and
/// what happens to the members it does not name.
struct Shape<'a> {
    fields: &'a [Field],
    flatten: &'a [String],
    additional: &'a AdditionalProperties,
}

fn struct_view(
    ir: &Ir,
    boxed: Boxed,
    doc: Vec<String>,
    name: &str,
    shape: Shape,
    variant: Option<(&str, VariantOf)>,
) -> StructView {
    let Shape {
        fields,
        flatten,
        additional,
    } = shape;
    let mut names: BTreeSet<String> = fields.iter().map(|field| naming::go_field(&field.name)).collect();
    let flattened: Vec<FlatView> = flatten
        .iter()
        .map(|flattened| {
            let field = naming::go_flattened_field(name, flattened, |field| names.contains(field));
            names.insert(field.clone());
            let go_type = naming::go_type(flattened);
            FlatView {
                name: field,
                codec: named_codec(&go_type),
                go_type,
            }
        })
        .collect();
    let extra = match additional {
        AdditionalProperties::Kept(values) => Some(ExtraView {
            name: naming::go_extra_field(|field| names.contains(field)),
            go_type: format!("[]Entry[{}]", go_type(values, boxed)),
            codec: codec(values, false, boxed),
        }),
        AdditionalProperties::Denied => None,
    };
    let mut known: BTreeSet<String> = fields.iter().map(|field| field.wire_name.clone()).collect();
    for flattened in flatten {
        known.extend(ir.member_names(flattened));
    }
    let (returns, variant) = match variant {
        Some((union, of)) => {
            known.extend(of.property.clone());
            (union.to_owned(), Some(of))
        }
        None => (name.to_owned(), None),
    };
    names.extend(extra.iter().map(|extra| extra.name.clone()));
    let fields: Vec<FieldView> = fields
        .iter()
        .map(|field| field_view(field, boxed, &mut names))
        .collect();
    let mut declared: Vec<Declared> = fields
        .iter()
        .map(|field| Declared {
            doc: field.doc.clone(),
            name: field.name.clone(),
            go_type: field.go_type.clone(),
        })
        .collect();
    declared.extend(flattened.iter().map(|flat| Declared {
        doc: vec![format!("// {} is the flattened {}.", flat.name, flat.go_type)],
        name: flat.name.clone(),
        go_type: flat.go_type.clone(),
    }));
    declared.extend(extra.iter().map(|extra| Declared {
        doc: vec![format!(
            "// {} keeps the members the schema does not name, in decode order.",
            extra.name
        )],
        name: extra.name.clone(),
        go_type: extra.go_type.clone(),
    }));
    let [decode, encode] = naming::go_codec_functions(name);
    StructView {
        doc,
        read: format!("read{name}"),
        decode,
        encode,
        name: name.to_owned(),
        returns,
        declared,
        fields,
        flattened,
        extra,
        known: go_strings(known.iter().map(|member| go_string(member))),
        variant,
    }
}

fn field_view(field: &Field, boxed: Boxed, taken: &mut BTreeSet<String>) -> FieldView {
    let (value_type, codec) = field_type(field, boxed);
    let go_type = if field.required {
        value_type.clone()
    } else {
        format!("Optional[{value_type}]")
    };
    let default = field.default.as_ref().filter(|_| !field.required).map(|value| {
        let method = naming::go_default_accessor(&field.name, |name| taken.contains(name));
        taken.insert(method.clone());
        DefaultView {
            method,
            value_type,
            literal: go_string(&value.to_string()),
        }
    });
    FieldView {
        default,
        doc: doc(field.description.as_deref()),
        name: naming::go_field(&field.name),
        go_type,
        wire: go_string(&field.wire_name),
        codec,
        rules: rules(field),
        required: field.required,
    }
}

fn alias_view(ir: &Ir, boxed: Boxed, doc: Vec<String>, name: &str, target: &TypeExpr) -> AliasView {
    let [decode, encode] = naming::go_codec_functions(name);
    let target_type = go_type(target, boxed);
    AliasView {
        doc,
        name: name.to_owned(),
        convert: if target_type.starts_with('*') {
            format!("({target_type})")
        } else {
            target_type.clone()
        },
        target: target_type,
        codec: codec(target, false, boxed),
        decode,
        encode,
        methods: !is_interface(ir, target),
    }
}

fn enum_view(doc: Vec<String>, name: &str, enumeration: &EnumType, taken: &mut BTreeSet<String>) -> EnumView {
    let constants: Vec<ConstantView> = enumeration
        .values
        .iter()
        .map(|value| {
            let constant = naming::go_member_type(name, &value.name, |candidate| taken.contains(candidate));
            taken.insert(constant.clone());
            ConstantView {
                doc: super::exprs::doc(value.description.as_deref()),
                name: constant,
                literal: match &value.value {
                    serde_json::Value::String(text) => go_string(text),
                    other => other.to_string(),
                },
            }
        })
        .collect();
    let list = format!(
        "[]{name}{{{}}}",
        constants
            .iter()
            .map(|constant| constant.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let open = enumeration.other.is_some();
    let (base, codec) = match enumeration.repr {
        EnumRepr::String => ("string".to_owned(), format!("stringEnum({list}, {open})")),
        EnumRepr::Integer { format } => (
            integer_type(format).to_owned(),
            format!("integerEnum({list}, {open}, {})", integer_codec(name, None, None)),
        ),
    };
    let [decode, encode] = naming::go_codec_functions(name);
    EnumView {
        doc,
        name: name.to_owned(),
        base,
        constants,
        codec,
        decode,
        encode,
    }
}

fn union_view(ir: &Ir, doc: Vec<String>, name: &str, union: &UnionType, taken: &mut BTreeSet<String>) -> UnionView {
    let marker = format!("is{name}");
    let property = match &union.style {
        UnionStyle::Tagged { property } => Some(property.as_str()),
        UnionStyle::Untagged | UnionStyle::ByMethod => None,
    };
    let mut structs = Vec::new();
    let mut wrappers = Vec::new();
    let mut cases = Vec::new();
    // Per variant, in order: the Go function that decodes it (`readX` on an
    // object when tagged, else on a value), and its tag.
    let mut decoders: Vec<(String, Option<String>)> = Vec::new();
    for variant in &union.variants {
        let variant_type = naming::go_member_type(name, &variant.name, |candidate| taken.contains(candidate));
        taken.insert(variant_type.clone());
        let tag = property
            .zip(variant.tag.as_deref())
            .map(|(property, tag)| (go_string(property), go_string(tag)));
        let doc = super::exprs::doc(variant.description.as_deref());
        let [decode, encode] = naming::go_codec_functions(&variant_type);
        cases.push((variant_type.clone(), encode.clone()));
        match &variant.payload {
            Payload::Type { ty } => {
                let read = property.map(|_| format!("read{variant_type}"));
                decoders.push((read.clone().unwrap_or_else(|| decode.clone()), variant.tag.clone()));
                wrappers.push(WrapperView {
                    doc,
                    name: variant_type,
                    go_type: go_type(ty, &|_| false),
                    codec: codec(ty, false, &|_| false),
                    decode,
                    read,
                    encode,
                    tag,
                });
            }
            Payload::Unit | Payload::Struct { .. } => {
                let (base, fields) = match &variant.payload {
                    Payload::Struct { base, fields } => (base.iter().cloned().collect::<Vec<_>>(), fields.as_slice()),
                    _ => (Vec::new(), [].as_slice()),
                };
                let read = format!("read{variant_type}");
                decoders.push((
                    if property.is_some() {
                        read.clone()
                    } else {
                        format!("fromObject({read})")
                    },
                    variant.tag.clone(),
                ));
                let of = VariantOf {
                    marker: marker.clone(),
                    property: variant.tag.as_ref().and(property).map(str::to_owned),
                    tag,
                };
                structs.push(struct_view(
                    ir,
                    &|_| false,
                    doc,
                    &variant_type,
                    Shape {
                        fields,
                        flatten: &base,
                        additional: &union.additional,
                    },
                    Some((name, of)),
                ));
            }
        }
    }
    let other = union.other.as_ref().map(|other| {
        let variant_type = naming::go_member_type(name, &other.name, |candidate| taken.contains(candidate));
        taken.insert(variant_type.clone());
        let [decode, encode] = naming::go_codec_functions(&variant_type);
        cases.push((variant_type.clone(), encode.clone()));
        wrappers.push(WrapperView {
            doc: super::exprs::doc(other.description.as_deref()),
            name: variant_type,
            go_type: "Value".to_owned(),
            codec: "anyCodec()".to_owned(),
            decode: decode.clone(),
            read: None,
            encode,
            tag: None,
        });
        decode
    });
    let [decode, encode] = naming::go_codec_functions(name);
    let decoder = match property {
        Some(property) => {
            let tagged: Vec<&(String, Option<String>)> = decoders.iter().filter(|(_, tag)| tag.is_some()).collect();
            let untagged = decoders
                .iter()
                .find(|(_, tag)| tag.is_none())
                .map_or_else(|| "nil".to_owned(), |(read, _)| read.clone());
            format!(
                "tagged[{name}]{{property: {}, tags: {}, variants: []variant[{name}]{{{}}}, untagged: {untagged}, defaultOpen: {}, other: {}}}.decode(v, pointer)",
                go_string(property),
                go_strings(tagged.iter().map(|(_, tag)| go_string(tag.as_deref().unwrap_or_default()))),
                tagged.iter().map(|(read, _)| read.as_str()).collect::<Vec<_>>().join(", "),
                union.default_open,
                other.unwrap_or_else(|| "nil".to_owned())
            )
        }
        None => {
            let mut alternatives: Vec<String> = decoders.into_iter().map(|(decode, _)| decode).collect();
            alternatives.extend(other);
            format!("pick(v, pointer, {encode}, {})", alternatives.join(", "))
        }
    };
    UnionView {
        doc,
        name: name.to_owned(),
        marker,
        decode,
        encode,
        structs,
        wrappers,
        decoder,
        cases,
    }
}
