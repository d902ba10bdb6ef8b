//! The views of Go structs: a schema struct, or a union variant whose
//! payload is an object. Optional members are `Optional`, nullable ones
//! `Nullable`; the members the schema does not name are kept in an `Extra`
//! field; flattened types are fields of their own; an optional member with
//! a schema default gets an accessor.

use std::collections::BTreeSet;

use super::exprs::{codec, doc, field_type, go_string, go_strings, go_type, named_codec, rules, Boxed};
use acp_ir::ir::{AdditionalProperties, Field, Ir};
use acp_ir::naming;

/// A struct, or a union variant whose payload is an object.
pub(super) struct StructView {
    pub(super) doc: Vec<String>,
    pub(super) name: String,
    /// `readX`: decodes it from an object, as `returns`.
    pub(super) read: String,
    /// `decodeX` (a plain struct only).
    pub(super) decode: String,
    pub(super) encode: String,
    /// What `read` returns: the struct, or the interface of its union.
    pub(super) returns: String,
    /// Its Go fields, in declaration order.
    pub(super) declared: Vec<Declared>,
    pub(super) fields: Vec<FieldView>,
    pub(super) flattened: Vec<FlatView>,
    /// The members it does not name: kept in this field, or refused.
    pub(super) extra: Option<ExtraView>,
    /// Every member name it reads, as a Go `[]string`.
    pub(super) known: String,
    /// A variant: the marker method of its union, and its tag, if any.
    pub(super) variant: Option<VariantOf>,
}

pub(super) struct Declared {
    pub(super) doc: Vec<String>,
    pub(super) name: String,
    pub(super) go_type: String,
}

pub(super) struct FieldView {
    pub(super) doc: Vec<String>,
    pub(super) name: String,
    pub(super) go_type: String,
    pub(super) wire: String,
    pub(super) codec: String,
    pub(super) rules: String,
    pub(super) required: bool,
    /// An optional member with a schema default: its accessor.
    pub(super) default: Option<DefaultView>,
}

/// The method that gives an optional member's value or its default.
pub(super) struct DefaultView {
    pub(super) method: String,
    /// The member's type inside `Optional`.
    pub(super) value_type: String,
    /// The default as a Go string literal of its JSON.
    pub(super) literal: String,
}

pub(super) struct FlatView {
    pub(super) name: String,
    pub(super) go_type: String,
    pub(super) codec: String,
}

pub(super) struct ExtraView {
    pub(super) name: String,
    pub(super) go_type: String,
    pub(super) codec: String,
}

pub(super) struct VariantOf {
    pub(super) marker: String,
    /// The tag member, which the variant reads (not rendered).
    pub(super) property: Option<String>,
    /// `(property, value)` as Go string literals.
    pub(super) tag: Option<(String, String)>,
}

/// The members of an object: its fields, the types flattened into it and
/// what happens to the members it does not name.
pub(super) struct Shape<'a> {
    pub(super) fields: &'a [Field],
    pub(super) flatten: &'a [String],
    pub(super) additional: &'a AdditionalProperties,
}

pub(super) fn struct_view(
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
