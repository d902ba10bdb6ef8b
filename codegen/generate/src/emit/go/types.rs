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

use super::exprs::{codec, doc, go_string, go_type, integer_codec, integer_type, Boxed};
use super::indirection::{is_interface, Cycles};
use super::structs::{struct_view, Shape, StructView};
use super::unions::{union_view, UnionView};
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
