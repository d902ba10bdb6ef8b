//! `src/decode.ts`: one codec per IR type, built from the runtime's
//! combinators, and one typed decoder function per type.

use std::collections::BTreeSet;

use askama::Template;

use super::text::{json_string, tsdoc};
use acp_ir::ir::*;
use acp_ir::naming;

#[derive(Template)]
#[template(path = "typescript/decode.ts", escape = "none")]
pub struct DecodeFile {
    codecs: Vec<CodecView>,
    /// The variant codecs of each untagged (and by-method) union, as a list.
    alternatives: Vec<CodecView>,
    decoders: Vec<DecoderView>,
}

struct CodecView {
    /// The canonical type name as a string literal.
    key: String,
    codec: String,
}

struct DecoderView {
    doc: Vec<String>,
    function: String,
    type_name: String,
    key: String,
}

pub fn view(ir: &Ir) -> DecodeFile {
    let builder = Builder { ir };
    let mut file = DecodeFile {
        codecs: Vec::new(),
        alternatives: Vec::new(),
        decoders: Vec::new(),
    };
    for definition in ir.types.values() {
        let key = json_string(&definition.name);
        let type_name = naming::typescript_type(&definition.name);
        let codec = match &definition.kind {
            TypeKind::Struct(structure) => builder.object(&structure.fields, &structure.flatten, &structure.additional),
            TypeKind::Alias { target } => builder.expression(target),
            TypeKind::Enum(enumeration) => enumeration_codec(enumeration),
            TypeKind::Union(union) => match &union.style {
                UnionStyle::Tagged { property } => builder.tagged_union(property, union),
                UnionStyle::Untagged | UnionStyle::ByMethod => {
                    let variants = union
                        .variants
                        .iter()
                        .map(|variant| builder.payload(&variant.payload, &union.additional));
                    file.alternatives.push(CodecView {
                        key: key.clone(),
                        codec: lines(variants),
                    });
                    format!("untaggedUnion({key})")
                }
            },
        };
        let doc = tsdoc(
            Some(&format!(
                "Decodes unknown JSON as a `{type_name}`: the value, or every failing JSON pointer. Applies the schema's decode rules and constraints."
            )),
            &[],
        );
        file.decoders.push(DecoderView {
            doc,
            function: naming::typescript_decoder(&type_name),
            type_name,
            key: key.clone(),
        });
        file.codecs.push(CodecView { key, codec });
    }
    file
}

struct Builder<'a> {
    ir: &'a Ir,
}

/// `[a, b]` of already rendered items.
fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// `[a, b]` with one item per line (long lists of fields and variants).
fn lines(items: impl IntoIterator<Item = String>) -> String {
    let items: Vec<String> = items.into_iter().collect();
    if items.is_empty() {
        "[]".to_owned()
    } else {
        format!("[\n    {},\n  ]", items.join(",\n    "))
    }
}

fn number_or_null(value: Option<u64>) -> String {
    value.map_or_else(|| "null".to_owned(), |value| value.to_string())
}

/// Inclusive bounds from an integer format, plus the exclusive upper bound of
/// the 64-bit formats (whose maxima are not doubles).
fn format_bounds(format: IntegerFormat) -> (Vec<String>, Vec<String>, String) {
    match format {
        IntegerFormat::Uint64 => (vec!["0".to_owned()], Vec::new(), "2 ** 64".to_owned()),
        IntegerFormat::Int64 | IntegerFormat::Unspecified => {
            (vec!["-(2 ** 63)".to_owned()], Vec::new(), "2 ** 63".to_owned())
        }
        _ => {
            let (minimum, maximum) = format.range();
            (vec![minimum.to_string()], vec![maximum.to_string()], "null".to_owned())
        }
    }
}

fn integer_codec(
    format: IntegerFormat,
    minimum: Option<&serde_json::Number>,
    maximum: Option<&serde_json::Number>,
) -> String {
    let (mut minimums, mut maximums, below) = format_bounds(format);
    minimums.extend(minimum.map(ToString::to_string));
    maximums.extend(maximum.map(ToString::to_string));
    format!("int({}, {}, {below})", list(minimums), list(maximums))
}

fn enumeration_codec(enumeration: &EnumType) -> String {
    let values = list(enumeration.values.iter().map(|value| value.value.to_string()));
    let open = enumeration.other.is_some();
    match enumeration.repr {
        EnumRepr::String => format!("enumOfStrings({values}, {open})"),
        EnumRepr::Integer { format } => format!(
            "enumOfIntegers({values}, {open}, {})",
            integer_codec(format, None, None)
        ),
    }
}

impl Builder<'_> {
    fn expression(&self, expression: &TypeExpr) -> String {
        self.expression_with(expression, false)
    }

    /// The codec of `expression`; `skip_invalid` drops array items that fail.
    fn expression_with(&self, expression: &TypeExpr, skip_invalid: bool) -> String {
        match expression {
            TypeExpr::Named { name } => format!("named({})", json_string(name)),
            TypeExpr::Any | TypeExpr::Untyped { .. } => "anyJson".to_owned(),
            TypeExpr::Null => "onlyNull".to_owned(),
            TypeExpr::Boolean => "bool".to_owned(),
            TypeExpr::String(string) => format!(
                "text({}, {}, {})",
                number_or_null(string.min_length),
                number_or_null(string.max_length),
                string.pattern.as_deref().map_or_else(|| "null".to_owned(), json_string)
            ),
            TypeExpr::Integer(integer) => {
                integer_codec(integer.format, integer.minimum.as_ref(), integer.maximum.as_ref())
            }
            TypeExpr::Number(number) => format!(
                "num({}, {})",
                list(number.minimum.iter().map(ToString::to_string)),
                list(number.maximum.iter().map(ToString::to_string))
            ),
            TypeExpr::Array(array) => format!(
                "array({}, {}, {}, {skip_invalid})",
                self.expression(&array.items),
                number_or_null(array.min_items),
                number_or_null(array.max_items)
            ),
            TypeExpr::Map { values } => format!("dict({})", self.expression(values)),
            TypeExpr::Nullable { inner } => format!("orNull({})", self.expression(inner)),
        }
    }

    /// A field spec; flags that are off and a fallback no rule uses are left out.
    fn field(&self, field: &Field) -> String {
        let mut members = vec![
            format!("name: {}", json_string(&field.wire_name)),
            format!(
                "codec: {}",
                self.expression_with(&field.ty, field.decode.skip_invalid_items)
            ),
        ];
        let flags = [
            ("required", field.required),
            ("nullable", field.nullable),
            ("onError", field.decode.default_on_error),
            ("onNull", field.decode.default_on_null),
        ];
        members.extend(
            flags
                .iter()
                .filter(|(_, on)| *on)
                .map(|(flag, _)| format!("{flag}: true")),
        );
        if field.decode.default_on_error || field.decode.default_on_null {
            members.push(match &field.fallback {
                Fallback::Absent => "fallback: absent".to_owned(),
                Fallback::Value(value) => format!(
                    "fallback: {{ kind: \"value\", json: {} }}",
                    json_string(&value.to_string())
                ),
                Fallback::Reject => "fallback: reject".to_owned(),
            });
        }
        format!("{{ {} }}", members.join(", "))
    }

    fn object(&self, fields: &[Field], flatten: &[String], additional: &AdditionalProperties) -> String {
        let additional_codec = match additional {
            AdditionalProperties::Kept(values) => format!("{{ policy: \"kept\", codec: {} }}", self.expression(values)),
            AdditionalProperties::Denied => "denied".to_owned(),
        };
        let mut known = BTreeSet::new();
        self.members_of(fields, flatten, &mut known, &mut BTreeSet::new());
        format!(
            "object({}, {}, {}, {additional_codec})",
            lines(fields.iter().map(|field| self.field(field))),
            list(flatten.iter().map(|name| format!("named({})", json_string(name)))),
            list(known.iter().map(|name| json_string(name)))
        )
    }

    /// Every member name an object with `fields` and `flatten` can have.
    fn members_of(
        &self,
        fields: &[Field],
        flatten: &[String],
        known: &mut BTreeSet<String>,
        seen: &mut BTreeSet<String>,
    ) {
        known.extend(fields.iter().map(|field| field.wire_name.clone()));
        for name in flatten {
            self.members_of_named(name, known, seen);
        }
    }

    fn members_of_named(&self, name: &str, known: &mut BTreeSet<String>, seen: &mut BTreeSet<String>) {
        if !seen.insert(name.to_owned()) {
            return;
        }
        match self.ir.get(name).map(|definition| &definition.kind) {
            Some(TypeKind::Struct(structure)) => self.members_of(&structure.fields, &structure.flatten, known, seen),
            Some(TypeKind::Union(union)) => {
                if let UnionStyle::Tagged { property } = &union.style {
                    known.insert(property.clone());
                }
                for variant in &union.variants {
                    match &variant.payload {
                        Payload::Unit => {}
                        Payload::Struct { base, fields } => self.members_of(fields, base.as_slice(), known, seen),
                        Payload::Type {
                            ty: TypeExpr::Named { name },
                        } => self.members_of_named(name, known, seen),
                        Payload::Type { .. } => {}
                    }
                }
            }
            Some(TypeKind::Alias {
                target: TypeExpr::Named { name },
            }) => self.members_of_named(name, known, seen),
            _ => {}
        }
    }

    fn payload(&self, payload: &Payload, additional: &AdditionalProperties) -> String {
        match payload {
            Payload::Unit => self.object(&[], &[], additional),
            Payload::Struct { base, fields } => self.object(fields, base.as_slice(), additional),
            Payload::Type { ty } => self.expression(ty),
        }
    }

    fn tagged_union(&self, property: &str, union: &UnionType) -> String {
        let tagged = union.variants.iter().filter_map(|variant| {
            variant.tag.as_ref().map(|tag| {
                format!(
                    "[{}, {}]",
                    json_string(tag),
                    self.payload(&variant.payload, &union.additional)
                )
            })
        });
        let untagged = union.variants.iter().find(|variant| variant.tag.is_none()).map_or_else(
            || "null".to_owned(),
            |variant| self.payload(&variant.payload, &union.additional),
        );
        format!(
            "taggedUnion({}, {}, {untagged}, {}, {})",
            json_string(property),
            lines(tagged),
            union.other.is_some(),
            union.default_open
        )
    }
}
