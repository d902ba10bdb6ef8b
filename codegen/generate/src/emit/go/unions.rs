//! The views of Go unions: an interface with one type per variant, a
//! decoder that picks the variant by its tag (tagged unions) or by shape
//! (untagged and by-method unions), and an encoder that switches on the
//! variant's type.

use std::collections::BTreeSet;

use super::exprs::{codec, go_string, go_strings, go_type};
use super::structs::{struct_view, Shape, StructView, VariantOf};
use acp_ir::ir::{Ir, Payload, UnionStyle, UnionType};
use acp_ir::naming;

pub(super) struct UnionView {
    pub(super) doc: Vec<String>,
    pub(super) name: String,
    pub(super) marker: String,
    pub(super) decode: String,
    pub(super) encode: String,
    /// The exported decoder from JSON text.
    pub(super) public_decode: String,
    /// The variants whose payload is an object.
    pub(super) structs: Vec<StructView>,
    /// The variants that hold a value: a type's, or any JSON (the catch-all).
    pub(super) wrappers: Vec<WrapperView>,
    /// The Go expression that decodes `v` at `pointer`.
    pub(super) decoder: String,
    /// `(variant type, its encoder)`, in variant order.
    pub(super) cases: Vec<(String, String)>,
}

/// A variant that holds one value of `go_type`.
pub(super) struct WrapperView {
    pub(super) doc: Vec<String>,
    pub(super) name: String,
    pub(super) go_type: String,
    pub(super) codec: String,
    /// `decodeX`: decodes it from a value, as its union.
    pub(super) decode: String,
    /// `readX`, for a tagged union: decodes it from the object.
    pub(super) read: Option<String>,
    pub(super) encode: String,
    /// The tag it writes, for a tagged union: `(property, value)`.
    pub(super) tag: Option<(String, String)>,
}

pub(super) fn union_view(
    ir: &Ir,
    doc: Vec<String>,
    name: &str,
    union: &UnionType,
    taken: &mut BTreeSet<String>,
) -> UnionView {
    let marker = format!("is{name}");
    let public_decode = naming::go_union_decoder(name, |candidate| taken.contains(candidate));
    taken.insert(public_decode.clone());
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
        public_decode,
        structs,
        wrappers,
        decoder,
        cases,
    }
}
