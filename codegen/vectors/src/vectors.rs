//! Shared test vectors, derived from the IR alone.
//!
//! For every named type: `valid` values (minimal, full, one per union
//! variant and enum constant, an unknown value for every open enum, a custom
//! variant for every extensible union, explicit `null`s, nested `_meta`,
//! members no schema names wherever an object keeps them),
//! `invalid` values (each required field missing, a wrong JSON type per
//! field, both one object down too, an unknown or missing tag on a closed union,
//! broken constraints), each with the JSON pointer its error must name,
//! and `lenient` values, one per `x-deserialize-*` rule of a field, with the
//! value a decoder must produce. Every language's bindings are tested
//! against these; [`crate::validate`] checks them with a JSON Schema validator.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use acp_ir::ir::*;
use acp_schema_source::pointer::escape_token;

/// One file of vectors: `<TypeName>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VectorFile {
    #[serde(rename = "type")]
    pub type_name: String,
    pub valid: Vec<NamedValue>,
    pub invalid: Vec<InvalidValue>,
    pub lenient: Vec<LenientValue>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedValue {
    pub name: String,
    pub value: Value,
}

/// A value every decoder must reject, and the JSON pointer its error must
/// name: the member that is missing or wrong, or `""` for the value itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvalidValue {
    pub name: String,
    pub value: Value,
    pub pointer: String,
}

impl InvalidValue {
    /// An invalid value whose error is about the value as a whole.
    fn whole(name: impl Into<String>, value: Value) -> Self {
        InvalidValue {
            name: name.into(),
            value,
            pointer: String::new(),
        }
    }

    /// An invalid object whose error is about its member `member`.
    fn member(name: impl Into<String>, value: Value, member: &str) -> Self {
        InvalidValue {
            name: name.into(),
            value,
            pointer: format!("/{}", escape_token(member)),
        }
    }
}

/// A value that is invalid on the wire but that a decoder accepts under an
/// `x-deserialize-*` rule, and what it must decode (and re-encode) to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LenientValue {
    pub name: String,
    pub value: Value,
    pub expected: Value,
}

/// The JSON types a value can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

const ALL_TYPES: [JsonType; 7] = [
    JsonType::Null,
    JsonType::Boolean,
    JsonType::Integer,
    JsonType::Number,
    JsonType::String,
    JsonType::Array,
    JsonType::Object,
];

/// Nested samples stop growing past this depth (recursive types).
const MAX_SAMPLE_DEPTH: usize = 12;
const UNKNOWN_STRING: &str = "x_unknown_value";
const CUSTOM_TAG: &str = "x_custom_variant";
/// The prefix of members no schema names.
const UNKNOWN_MEMBER: &str = "x_unknown_member";

/// Vectors for every type of `ir`, keyed by type name.
pub fn generate(ir: &Ir) -> BTreeMap<String, VectorFile> {
    ir.types
        .values()
        .map(|definition| (definition.name.clone(), of_type(ir, definition)))
        .collect()
}

/// The vectors of one type of `ir`: each type's file is made on its own, so
/// a caller may check and print one before making the next.
pub fn of_type(ir: &Ir, definition: &TypeDef) -> VectorFile {
    Generator { ir }.file(definition)
}

/// A value of `expression`: required members only, or, with `full`, every
/// member near the top (the samples the vectors are made of).
pub fn sample(ir: &Ir, expression: &TypeExpr, full: bool) -> Option<Value> {
    Generator { ir }.sample(expression, full, 0)
}

/// A value of one variant of `union`, minimal or `full`.
pub fn sample_variant(ir: &Ir, union: &UnionType, variant: &Variant, full: bool) -> Option<Value> {
    Generator { ir }.sample_variant(union, variant, full, 0)
}

/// Serializes a vector file the way `cargo xtask vectors` writes it.
pub fn to_pretty_json(file: &VectorFile) -> String {
    let mut text = serde_json::to_string_pretty(file).expect("vectors are plain JSON");
    text.push('\n');
    text
}

/// Breaks the member `Field` of an object, or says `None` when it cannot.
type Alteration<'a> = dyn Fn(&mut Map<String, Value>, &Field) -> Option<()> + 'a;

struct Generator<'a> {
    ir: &'a Ir,
}

/// Adds `name`/`value` unless an equal value is already listed.
fn push_unique(list: &mut Vec<NamedValue>, name: impl Into<String>, value: Value) {
    if !list.iter().any(|existing| existing.value == value) {
        list.push(NamedValue {
            name: name.into(),
            value,
        });
    }
}

fn merge(into: &mut Map<String, Value>, from: Value) {
    if let Value::Object(members) = from {
        into.extend(members);
    }
}

impl Generator<'_> {
    fn file(&self, definition: &TypeDef) -> VectorFile {
        let mut file = VectorFile {
            type_name: definition.name.clone(),
            valid: Vec::new(),
            invalid: Vec::new(),
            lenient: Vec::new(),
        };
        match &definition.kind {
            TypeKind::Struct(structure) => self.struct_vectors(structure, &mut file),
            TypeKind::Alias { target } => self.alias_vectors(target, &mut file),
            TypeKind::Enum(enumeration) => self.enum_vectors(enumeration, &mut file),
            TypeKind::Union(union) => self.union_vectors(union, &mut file),
        }
        file
    }

    // ---- samples -------------------------------------------------------

    fn sample_named(&self, name: &str, full: bool, depth: usize) -> Option<Value> {
        if depth > MAX_SAMPLE_DEPTH {
            return None;
        }
        let definition = self.ir.get(name)?;
        let depth = depth + 1;
        // Nested values stay small: optional members only near the top.
        let full = full && depth < 4;
        match &definition.kind {
            TypeKind::Struct(structure) => self.sample_struct(structure, full, depth).map(Value::Object),
            TypeKind::Alias { target } => self.sample(target, full, depth),
            TypeKind::Enum(enumeration) => enumeration.values.first().map(|value| value.value.clone()),
            TypeKind::Union(union) => {
                // A nested value is more telling than `null`: null members last.
                let (nulls, others): (Vec<&Variant>, Vec<&Variant>) = union
                    .variants
                    .iter()
                    .partition(|variant| matches!(&variant.payload, Payload::Type { ty: TypeExpr::Null }));
                others
                    .into_iter()
                    .chain(nulls)
                    .find_map(|variant| self.sample_variant(union, variant, full, depth))
            }
        }
    }

    fn sample_struct(&self, structure: &StructType, full: bool, depth: usize) -> Option<Map<String, Value>> {
        let mut object = Map::new();
        for base in &structure.flatten {
            merge(&mut object, self.sample_named(base, full, depth)?);
        }
        self.sample_fields(&structure.fields, full, depth, &mut object)?;
        Some(object)
    }

    fn sample_fields(&self, fields: &[Field], full: bool, depth: usize, object: &mut Map<String, Value>) -> Option<()> {
        for field in fields {
            if field.required {
                object.insert(field.wire_name.clone(), self.sample(&field.ty, full, depth)?);
            } else if full {
                if let Some(value) = self.sample(&field.ty, full, depth) {
                    object.insert(field.wire_name.clone(), value);
                }
            }
        }
        Some(())
    }

    fn sample_variant(&self, union: &UnionType, variant: &Variant, full: bool, depth: usize) -> Option<Value> {
        let mut object = Map::new();
        let tag = match (&union.style, &variant.tag) {
            (UnionStyle::Tagged { property }, Some(tag)) => Some((property.clone(), tag.clone())),
            _ => None,
        };
        match &variant.payload {
            Payload::Type { ty } => return self.sample(ty, full, depth),
            Payload::Unit => {}
            Payload::Struct { base, fields } => {
                if let Some(base) = base {
                    merge(&mut object, self.sample_named(base, full, depth)?);
                }
                self.sample_fields(fields, full, depth, &mut object)?;
            }
        }
        if let Some((property, tag)) = tag {
            object.insert(property, Value::String(tag));
        }
        Some(Value::Object(object))
    }

    fn sample(&self, expression: &TypeExpr, full: bool, depth: usize) -> Option<Value> {
        if depth > MAX_SAMPLE_DEPTH {
            return None;
        }
        Some(match expression {
            TypeExpr::Named { name } => return self.sample_named(name, full, depth),
            TypeExpr::Any | TypeExpr::Untyped { .. } => {
                if full {
                    json!({"example.com/nested": {"list": [1, "two", null, true], "object": {"key": "value"}}})
                } else {
                    json!({"key": "value"})
                }
            }
            TypeExpr::Null => Value::Null,
            TypeExpr::Boolean => Value::Bool(true),
            TypeExpr::String(string) => Value::String(sample_string(string)),
            TypeExpr::Integer(integer) => Value::from(sample_integer(integer)),
            TypeExpr::Number(number) => sample_number(number),
            TypeExpr::Array(array) => {
                let item = self.sample(&array.items, full, depth)?;
                let count = array.min_items.unwrap_or(1).max(1) as usize;
                let count = array.max_items.map_or(count, |max| count.min(max as usize));
                Value::Array(vec![item; count])
            }
            TypeExpr::Map { values } => {
                let mut object = Map::new();
                object.insert("example.com/key".to_owned(), self.sample(values, full, depth)?);
                Value::Object(object)
            }
            TypeExpr::Nullable { inner } => return self.sample(inner, full, depth),
        })
    }

    /// Members no schema names, as a newer peer would send them, when the
    /// object keeps such members: a decoder must re-encode them unchanged.
    fn unknown_members(&self, additional: &AdditionalProperties) -> Option<Map<String, Value>> {
        let AdditionalProperties::Kept(values) = additional else {
            return None;
        };
        let mut members = Map::new();
        members.insert(format!("{UNKNOWN_MEMBER}_object"), self.sample(values, true, 1)?);
        members.insert(format!("{UNKNOWN_MEMBER}_second"), self.sample(values, false, 1)?);
        Some(members)
    }

    /// Unknown members spelled like another member's name in code (`meta`
    /// beside `_meta`, `session_id` beside `sessionId`, `type_` beside
    /// `type`): a binding must read members by wire name only.
    fn name_twins(&self, fields: &[Field], additional: &AdditionalProperties) -> Option<Map<String, Value>> {
        let AdditionalProperties::Kept(values) = additional else {
            return None;
        };
        let value = self.sample(values, false, 1)?;
        let mut twins = Map::new();
        for field in fields {
            for twin in [
                field.name.clone(),
                acp_ir::naming::python_attribute(&field.name),
                acp_ir::naming::rust_field(&field.name),
            ] {
                let twin = twin.trim_start_matches("r#").to_owned();
                if fields.iter().all(|other| other.wire_name != twin) {
                    twins.insert(twin, value.clone());
                }
            }
        }
        (!twins.is_empty()).then_some(twins)
    }

    // ---- nested failures --------------------------------------------------

    /// A value of `expression` whose first required member one object down
    /// is changed by `alter` (which says `None` when it cannot break that
    /// member), and the pointer of that member relative to the value: a
    /// nested error must name the whole path, not the outer member.
    fn nested(&self, expression: &TypeExpr, depth: usize, alter: &Alteration) -> Option<(Value, String)> {
        if depth > 4 {
            return None;
        }
        let broken = |mut object: Map<String, Value>, field: Option<&Field>| {
            let field = field?;
            alter(&mut object, field)?;
            Some((Value::Object(object), format!("/{}", escape_token(&field.wire_name))))
        };
        match expression {
            TypeExpr::Named { name } => match &self.ir.get(name)?.kind {
                TypeKind::Struct(structure) => broken(
                    self.sample_struct(structure, false, 1)?,
                    structure.fields.iter().find(|field| field.required),
                ),
                TypeKind::Alias { target } => self.nested(target, depth + 1, alter),
                TypeKind::Union(union) if matches!(union.style, UnionStyle::Tagged { .. }) => {
                    union.variants.iter().find_map(|variant| {
                        let Payload::Struct { base, fields } = &variant.payload else {
                            return None;
                        };
                        let base_fields = match base
                            .as_ref()
                            .and_then(|base| self.ir.get(base))
                            .map(|definition| &definition.kind)
                        {
                            Some(TypeKind::Struct(structure)) => structure.fields.as_slice(),
                            _ => &[],
                        };
                        let field = fields.iter().chain(base_fields).find(|field| field.required);
                        broken(
                            self.sample_variant(union, variant, false, 1)?.as_object()?.clone(),
                            field,
                        )
                    })
                }
                _ => None,
            },
            TypeExpr::Nullable { inner } => self.nested(inner, depth + 1, alter),
            TypeExpr::Array(array) => {
                let (broken, inner) = self.nested(&array.items, depth + 1, alter)?;
                let mut items = vec![broken];
                let count = array.min_items.unwrap_or(1).max(1) as usize;
                for _ in 1..count {
                    items.push(self.sample(&array.items, false, 1)?);
                }
                Some((Value::Array(items), format!("/0{inner}")))
            }
            TypeExpr::Map { values } => {
                let (broken, inner) = self.nested(values, depth + 1, alter)?;
                let key = "example.com/key";
                Some((json!({ key: broken }), format!("/{}{inner}", escape_token(key))))
            }
            _ => None,
        }
    }

    /// The nested invalid vectors of the field `field`: a required member one
    /// object down missing, and of the wrong JSON type.
    fn nested_vectors(&self, field: &Field, full: &Map<String, Value>, file: &mut VectorFile) {
        // A rule would discard the broken value instead of failing.
        if field.decode.default_on_error || field.decode.skip_invalid_items {
            return;
        }
        let missing = |object: &mut Map<String, Value>, member: &Field| object.remove(&member.wire_name).map(|_| ());
        let wrong = |object: &mut Map<String, Value>, member: &Field| {
            if member.decode.default_on_error {
                return None;
            }
            object.insert(
                member.wire_name.clone(),
                self.wrong_value(&member.ty, member.nullable, member.decode.default_on_null)?,
            );
            Some(())
        };
        let alterations: [(&str, &Alteration); 2] = [("nested_missing", &missing), ("nested_wrong_type", &wrong)];
        for (label, alter) in alterations {
            if let Some((broken, inner)) = self.nested(&field.ty, 0, alter) {
                let mut value = full.clone();
                value.insert(field.wire_name.clone(), broken);
                let mut vector = InvalidValue::member(
                    format!("{label}_{}", field.wire_name),
                    Value::Object(value),
                    &field.wire_name,
                );
                vector.pointer.push_str(&inner);
                file.invalid.push(vector);
            }
        }
    }

    // ---- what a type accepts --------------------------------------------

    fn accepted(&self, expression: &TypeExpr, seen: &mut BTreeSet<String>) -> BTreeSet<JsonType> {
        match expression {
            TypeExpr::Named { name } => {
                if !seen.insert(name.clone()) {
                    return BTreeSet::new();
                }
                let accepted = match self.ir.get(name).map(|definition| &definition.kind) {
                    Some(TypeKind::Struct(_)) => BTreeSet::from([JsonType::Object]),
                    Some(TypeKind::Alias { target }) => self.accepted(target, seen),
                    Some(TypeKind::Enum(enumeration)) => match enumeration.repr {
                        EnumRepr::String => BTreeSet::from([JsonType::String]),
                        EnumRepr::Integer { .. } => BTreeSet::from([JsonType::Integer]),
                    },
                    Some(TypeKind::Union(union)) => match union.style {
                        UnionStyle::Tagged { .. } => BTreeSet::from([JsonType::Object]),
                        _ => union
                            .variants
                            .iter()
                            .flat_map(|variant| match &variant.payload {
                                Payload::Type { ty } => self.accepted(ty, seen),
                                _ => BTreeSet::from([JsonType::Object]),
                            })
                            .collect(),
                    },
                    None => ALL_TYPES.into_iter().collect(),
                };
                seen.remove(name);
                accepted
            }
            TypeExpr::Any | TypeExpr::Untyped { .. } => ALL_TYPES.into_iter().collect(),
            TypeExpr::Null => BTreeSet::from([JsonType::Null]),
            TypeExpr::Boolean => BTreeSet::from([JsonType::Boolean]),
            TypeExpr::String(_) => BTreeSet::from([JsonType::String]),
            TypeExpr::Integer(_) => BTreeSet::from([JsonType::Integer]),
            TypeExpr::Number(_) => BTreeSet::from([JsonType::Number, JsonType::Integer]),
            TypeExpr::Array(_) => BTreeSet::from([JsonType::Array]),
            TypeExpr::Map { .. } => BTreeSet::from([JsonType::Object]),
            TypeExpr::Nullable { inner } => {
                let mut accepted = self.accepted(inner, seen);
                accepted.insert(JsonType::Null);
                accepted
            }
        }
    }

    /// A value whose JSON type `expression` does not accept (never `null`
    /// when `avoid_null`), or `None` when it accepts every type.
    fn wrong_value(&self, expression: &TypeExpr, nullable: bool, avoid_null: bool) -> Option<Value> {
        let mut accepted = self.accepted(expression, &mut BTreeSet::new());
        if nullable || avoid_null {
            accepted.insert(JsonType::Null);
        }
        let candidates = [
            (JsonType::String, json!("wrong type")),
            (JsonType::Integer, json!(12345)),
            (JsonType::Boolean, json!(true)),
            (JsonType::Array, json!(["wrong type"])),
            (JsonType::Object, json!({"wrong": "type"})),
            (JsonType::Null, Value::Null),
        ];
        candidates
            .into_iter()
            .find(|(kind, _)| !accepted.contains(kind))
            .map(|(_, value)| value)
    }

    // ---- per kind -------------------------------------------------------

    fn struct_vectors(&self, structure: &StructType, file: &mut VectorFile) {
        let (Some(minimal), Some(full)) = (
            self.sample_struct(structure, false, 0),
            self.sample_struct(structure, true, 0),
        ) else {
            return;
        };
        push_unique(&mut file.valid, "minimal", Value::Object(minimal.clone()));
        push_unique(&mut file.valid, "full", Value::Object(full.clone()));
        if let Some(unknown) = self.unknown_members(&structure.additional) {
            let mut value = full.clone();
            value.extend(unknown);
            push_unique(&mut file.valid, "unknown_members", Value::Object(value));
        }
        if let Some(twins) = self.name_twins(&structure.fields, &structure.additional) {
            let mut value = full.clone();
            value.extend(twins);
            push_unique(&mut file.valid, "name_twins", Value::Object(value));
        }
        // `null` is a value of any JSON too, unless a rule discards it.
        let takes_null = |field: &&Field| {
            field.nullable
                || (matches!(field.ty, TypeExpr::Any | TypeExpr::Untyped { .. }) && !field.decode.default_on_null)
        };
        let nullable: Vec<&Field> = structure.fields.iter().filter(takes_null).collect();
        if !nullable.is_empty() {
            let mut nulls = minimal.clone();
            for field in &nullable {
                nulls.insert(field.wire_name.clone(), Value::Null);
            }
            push_unique(&mut file.valid, "explicit_nulls", Value::Object(nulls));
        }
        // One vector per alternative of every flattened union.
        for base in &structure.flatten {
            let Some(TypeKind::Union(union)) = self.ir.get(base).map(|definition| &definition.kind) else {
                continue;
            };
            let own = {
                let mut own = Map::new();
                self.sample_fields(&structure.fields, false, 0, &mut own);
                own
            };
            for variant in &union.variants {
                if let Some(variant_value) = self.sample_variant(union, variant, true, 1) {
                    let mut value = own.clone();
                    for other in structure.flatten.iter().filter(|other| *other != base) {
                        if let Some(other_value) = self.sample_named(other, false, 1) {
                            merge(&mut value, other_value);
                        }
                    }
                    merge(&mut value, variant_value);
                    push_unique(
                        &mut file.valid,
                        format!("variant_{}", variant_label(variant)),
                        Value::Object(value),
                    );
                }
            }
        }
        for field in &structure.fields {
            let name = &field.wire_name;
            if field.required {
                let mut missing = full.clone();
                missing.remove(name);
                file.invalid.push(InvalidValue::member(
                    format!("missing_{name}"),
                    Value::Object(missing),
                    name,
                ));
            }
            self.nested_vectors(field, &full, file);
            // What a rule leaves of `full` once it discards the field's value.
            let discarded = || -> Option<Value> {
                let mut expected = full.clone();
                match &field.fallback {
                    Fallback::Absent => {
                        expected.remove(name);
                    }
                    Fallback::Value(value) => {
                        expected.insert(name.clone(), value.clone());
                    }
                    Fallback::Reject => return None,
                }
                Some(Value::Object(expected))
            };
            if let Some(wrong) = self.wrong_value(&field.ty, field.nullable, field.decode.default_on_null) {
                let mut value = full.clone();
                value.insert(name.clone(), wrong);
                match discarded().filter(|_| field.decode.default_on_error) {
                    Some(expected) => file.lenient.push(LenientValue {
                        name: format!("default_on_error_{name}"),
                        value: Value::Object(value),
                        expected,
                    }),
                    None => file.invalid.push(InvalidValue::member(
                        format!("wrong_type_{name}"),
                        Value::Object(value),
                        name,
                    )),
                }
            }
            if field.decode.default_on_null && !field.nullable {
                let mut value = full.clone();
                value.insert(name.clone(), Value::Null);
                match discarded() {
                    Some(expected) => file.lenient.push(LenientValue {
                        name: format!("default_on_null_{name}"),
                        value: Value::Object(value),
                        expected,
                    }),
                    None => file
                        .invalid
                        .push(InvalidValue::member(format!("null_{name}"), Value::Object(value), name)),
                }
            }
            if field.decode.skip_invalid_items {
                if let TypeExpr::Array(array) = &field.ty {
                    if let (Some(good), Some(bad)) = (
                        self.sample(&array.items, false, 1),
                        self.wrong_value(&array.items, false, true),
                    ) {
                        let mut value = full.clone();
                        value.insert(name.clone(), json!([good.clone(), bad]));
                        let mut expected = full.clone();
                        expected.insert(name.clone(), json!([good]));
                        file.lenient.push(LenientValue {
                            name: format!("skip_invalid_items_{name}"),
                            value: Value::Object(value),
                            expected: Value::Object(expected),
                        });
                    }
                }
            }
            if !field.decode.default_on_error {
                for (label, broken) in broken_constraints(&field.ty) {
                    let mut value = full.clone();
                    value.insert(name.clone(), broken);
                    file.invalid.push(InvalidValue::member(
                        format!("{label}_{name}"),
                        Value::Object(value),
                        name,
                    ));
                }
            }
        }
        file.invalid
            .push(InvalidValue::whole("wrong_type", json!("wrong type")));
    }

    fn alias_vectors(&self, target: &TypeExpr, file: &mut VectorFile) {
        if let Some(minimal) = self.sample(target, false, 0) {
            push_unique(&mut file.valid, "minimal", minimal);
        }
        if let Some(full) = self.sample(target, true, 0) {
            push_unique(&mut file.valid, "full", full);
        }
        if matches!(target, TypeExpr::Nullable { .. }) {
            push_unique(&mut file.valid, "null", Value::Null);
        }
        if let Some(wrong) = self.wrong_value(target, false, false) {
            file.invalid.push(InvalidValue::whole("wrong_type", wrong));
        }
        for (label, broken) in broken_constraints(target) {
            file.invalid.push(InvalidValue::whole(label, broken));
        }
    }

    fn enum_vectors(&self, enumeration: &EnumType, file: &mut VectorFile) {
        for value in &enumeration.values {
            push_unique(
                &mut file.valid,
                format!("value_{}", value_label(&value.value)),
                value.value.clone(),
            );
        }
        let unknown = match enumeration.repr {
            EnumRepr::String => json!(UNKNOWN_STRING),
            EnumRepr::Integer { .. } => {
                let taken: BTreeSet<i64> = enumeration
                    .values
                    .iter()
                    .filter_map(|value| value.value.as_i64())
                    .collect();
                json!((1..).find(|candidate| !taken.contains(candidate)).unwrap_or(1))
            }
        };
        if enumeration.other.is_some() {
            push_unique(&mut file.valid, "unknown_value", unknown);
        } else {
            file.invalid.push(InvalidValue::whole("unknown_value", unknown));
        }
        let wrong = match enumeration.repr {
            EnumRepr::String => json!(12345),
            EnumRepr::Integer { .. } => json!("wrong type"),
        };
        file.invalid.push(InvalidValue::whole("wrong_type", wrong));
        file.invalid.push(InvalidValue::whole("null", Value::Null));
    }

    fn union_vectors(&self, union: &UnionType, file: &mut VectorFile) {
        for variant in &union.variants {
            let label = variant_label(variant);
            if let Some(minimal) = self.sample_variant(union, variant, false, 0) {
                push_unique(&mut file.valid, format!("variant_{label}"), minimal);
            }
            if let Some(full) = self.sample_variant(union, variant, true, 0) {
                push_unique(&mut file.valid, format!("variant_{label}_full"), full);
            }
        }
        if let (UnionStyle::Tagged { .. }, Some(unknown)) = (&union.style, self.unknown_members(&union.additional)) {
            for variant in union.variants.iter().filter(|variant| variant.tag.is_some()) {
                if let Some(Value::Object(mut value)) = self.sample_variant(union, variant, true, 0) {
                    value.extend(unknown.clone());
                    push_unique(
                        &mut file.valid,
                        format!("variant_{}_unknown_members", variant_label(variant)),
                        Value::Object(value),
                    );
                }
            }
        }
        match &union.style {
            UnionStyle::Tagged { property } => {
                let tagged = union.variants.iter().find(|variant| variant.tag.is_some());
                let Some(template) = tagged.and_then(|variant| self.sample_variant(union, variant, false, 0)) else {
                    return;
                };
                let mut retagged = template.as_object().cloned().unwrap_or_default();
                retagged.insert(property.clone(), json!(CUSTOM_TAG));
                // A member that carries no tag and leaves it open takes a tag
                // no variant claims, and one that is not a string, kept as
                // its unknown member; one that constrains the tag makes an
                // unknown tag neither a variant nor an error the schema
                // states: no vector.
                let has_untagged_member = union.variants.iter().any(|variant| variant.tag.is_none());
                if union.other.is_some() {
                    push_unique(&mut file.valid, "custom_variant", Value::Object(retagged));
                } else if union.default_open {
                    let mut untagged = union
                        .variants
                        .iter()
                        .filter(|variant| variant.tag.is_none())
                        .filter_map(|variant| self.sample_variant(union, variant, false, 0));
                    if let Some(Value::Object(default)) = untagged.next() {
                        for (label, tag) in [("unclaimed_tag", json!(CUSTOM_TAG)), ("non_string_tag", json!(12345))] {
                            let mut value = default.clone();
                            value.insert(property.clone(), tag);
                            push_unique(&mut file.valid, label, Value::Object(value));
                        }
                    }
                } else if !has_untagged_member {
                    file.invalid
                        .push(InvalidValue::member("unknown_tag", Value::Object(retagged), property));
                }
                if !has_untagged_member {
                    let mut untagged = template.as_object().cloned().unwrap_or_default();
                    untagged.remove(property);
                    file.invalid.push(InvalidValue::member(
                        format!("missing_{property}"),
                        Value::Object(untagged),
                        property,
                    ));
                    let mut wrong_tag = template.as_object().cloned().unwrap_or_default();
                    wrong_tag.insert(property.clone(), json!(12345));
                    file.invalid.push(InvalidValue::member(
                        format!("wrong_type_{property}"),
                        Value::Object(wrong_tag),
                        property,
                    ));
                }
                file.invalid
                    .push(InvalidValue::whole("wrong_type", json!("wrong type")));
            }
            UnionStyle::Untagged | UnionStyle::ByMethod => {
                let variants: Vec<TypeExpr> = union
                    .variants
                    .iter()
                    .map(|variant| match &variant.payload {
                        Payload::Type { ty } => ty.clone(),
                        _ => TypeExpr::Map {
                            values: Box::new(TypeExpr::Any),
                        },
                    })
                    .collect();
                let mut accepted = BTreeSet::new();
                for variant in &variants {
                    accepted.extend(self.accepted(variant, &mut BTreeSet::new()));
                }
                let candidates = [
                    json!("wrong type"),
                    json!(12345),
                    json!(true),
                    json!(["wrong type"]),
                    Value::Null,
                ];
                let kinds = [
                    JsonType::String,
                    JsonType::Integer,
                    JsonType::Boolean,
                    JsonType::Array,
                    JsonType::Null,
                ];
                if let Some(wrong) = kinds
                    .iter()
                    .zip(candidates)
                    .find(|(kind, _)| !accepted.contains(kind))
                    .map(|(_, value)| value)
                {
                    file.invalid.push(InvalidValue::whole("wrong_type", wrong));
                }
            }
        }
    }
}

fn variant_label(variant: &Variant) -> String {
    variant
        .tag
        .clone()
        .unwrap_or_else(|| acp_ir::naming::snake_case(&variant.name))
}

fn value_label(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn sample_string(string: &StringType) -> String {
    let mut text = match (string.format.as_deref(), string.content_encoding.as_deref()) {
        (_, Some("base64")) => "aGVsbG8=".to_owned(),
        (Some("uri"), _) => "https://example.com/resource".to_owned(),
        (Some("date-time"), _) => "2025-01-01T00:00:00Z".to_owned(),
        (Some("date"), _) => "2025-01-01".to_owned(),
        (Some("email"), _) => "user@example.com".to_owned(),
        (Some("uuid"), _) => "123e4567-e89b-12d3-a456-426614174000".to_owned(),
        _ => "example".to_owned(),
    };
    if let Some(pattern) = &string.pattern {
        if let Some(matching) = string_matching(pattern) {
            return matching;
        }
    }
    if let Some(min) = string.min_length {
        while (text.chars().count() as u64) < min {
            text.push('x');
        }
    }
    if let Some(max) = string.max_length {
        text = text.chars().take(max as usize).collect();
    }
    text
}

/// A string matching `pattern`, drawn with a fixed seed so that every run
/// writes the same vectors. `None` when the pattern cannot be sampled; the
/// validator check then reports the vector.
fn string_matching(pattern: &str) -> Option<String> {
    use rand::{RngExt, SeedableRng};
    // Anchors only say "the whole string"; a sample of the rest satisfies them.
    let unanchored = pattern.strip_prefix('^').unwrap_or(pattern);
    let unanchored = match unanchored.strip_suffix('$') {
        Some(rest) if !rest.ends_with('\\') => rest,
        _ => unanchored,
    };
    // ECMA-262 classes such as `\\d` are ASCII-only: parse without Unicode.
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .build()
        .parse(unanchored)
        .ok()?;
    let generator = rand_regex::Regex::with_hir(hir, 8).ok()?;
    let mut random = rand::rngs::StdRng::seed_from_u64(0x5eed);
    Some(random.sample(&generator))
}

fn sample_integer(integer: &IntegerType) -> i64 {
    let minimum = integer
        .minimum
        .as_ref()
        .and_then(|number| number.as_f64())
        .map(|value| value.ceil() as i64);
    let maximum = integer
        .maximum
        .as_ref()
        .and_then(|number| number.as_f64())
        .map(|value| value.floor() as i64);
    let mut value = 1;
    if let Some(minimum) = minimum {
        value = value.max(minimum);
    }
    if let Some(maximum) = maximum {
        value = value.min(maximum);
    }
    value
}

/// A number inside the bounds that is not integral, so that no language can
/// write it back in another form (`1.0` versus `1`).
fn sample_number(number: &NumberType) -> Value {
    let minimum = number.minimum.as_ref().and_then(serde_json::Number::as_f64);
    let maximum = number.maximum.as_ref().and_then(serde_json::Number::as_f64);
    let inside =
        |value: f64| minimum.is_none_or(|minimum| value >= minimum) && maximum.is_none_or(|maximum| value <= maximum);
    let candidates = [
        Some(1.5),
        minimum.zip(maximum).map(|(minimum, maximum)| (minimum + maximum) / 2.0),
        minimum.map(|minimum| minimum + 0.5),
        maximum.map(|maximum| maximum - 0.5),
    ];
    let value = candidates
        .into_iter()
        .flatten()
        .find(|value| inside(*value) && value.fract() != 0.0)
        .or(minimum)
        .or(maximum)
        .unwrap_or(1.5);
    json!(value)
}

/// Values that have the right JSON type but break a stated constraint.
fn broken_constraints(expression: &TypeExpr) -> Vec<(&'static str, Value)> {
    let mut broken = Vec::new();
    match expression {
        TypeExpr::Integer(integer) => {
            if let Some(minimum) = integer.minimum.as_ref().and_then(serde_json::Number::as_i64) {
                broken.push(("below_minimum", json!(minimum - 1)));
            }
            if let Some(maximum) = integer.maximum.as_ref().and_then(serde_json::Number::as_i64) {
                broken.push(("above_maximum", json!(maximum + 1)));
            }
        }
        TypeExpr::Number(number) => {
            if let Some(minimum) = number.minimum.as_ref().and_then(serde_json::Number::as_f64) {
                broken.push(("below_minimum", json!(minimum - 1.0)));
            }
            if let Some(maximum) = number.maximum.as_ref().and_then(serde_json::Number::as_f64) {
                broken.push(("above_maximum", json!(maximum + 1.0)));
            }
        }
        TypeExpr::String(string) => {
            if let Some(max) = string.max_length {
                broken.push(("too_long", json!("x".repeat(max as usize + 1))));
            }
            if let Some(min) = string.min_length.filter(|min| *min > 0) {
                broken.push(("too_short", json!("x".repeat(min as usize - 1))));
            }
        }
        TypeExpr::Array(array) if array.min_items == Some(1) => broken.push(("too_few_items", json!([]))),
        _ => {}
    }
    broken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_match_their_pattern() {
        for pattern in ["^[A-Z]{3}$", "[a-z]+-[0-9]{2}", "^v\\d+$"] {
            let sample = string_matching(pattern).unwrap_or_else(|| panic!("no sample for {pattern}"));
            let matcher = regex_lite_check(pattern, &sample);
            assert!(matcher, "{sample:?} does not match {pattern}");
        }
    }

    fn regex_lite_check(pattern: &str, sample: &str) -> bool {
        let schema = json!({"type": "string", "pattern": pattern});
        jsonschema::is_valid(&schema, &json!(sample))
    }

    #[test]
    fn samples_are_the_same_every_run() {
        assert_eq!(string_matching("^[A-Z]{3}$"), string_matching("^[A-Z]{3}$"));
    }
}
