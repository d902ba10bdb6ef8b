//! Lowering: extended JSON Schema -> [`Ir`].
//!
//! Ids first: every `$defs` key gets its canonical name before any definition
//! is lowered, so forward and circular references resolve. Each recogniser
//! accepts the shapes upstream releases emit for one idea (`$ref` with
//! sibling keywords or an `allOf: [{$ref}]` wrapper; `oneOf` + `discriminator`
//! or `anyOf` + a titled catch-all; `type: [X, "null"]` or `anyOf [X, null]`).
//! Any keyword it does not understand is an error with its JSON pointer,
//! unless the caller asked for untyped fallbacks (`inspect`), which are then
//! recorded as [`TypeExpr::Untyped`].

use std::collections::{BTreeMap, BTreeSet};

use acp_schema_source::ExtendedSchema;
use serde_json::{Map, Value};

use crate::error::{CodegenError, ErrorKind};
use crate::ir::*;
use crate::naming;
use crate::rfd;

/// How lowering treats shapes it cannot represent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unsupported {
    /// Stop with an error naming the pointer (every command but `inspect`).
    #[default]
    Fail,
    /// Record an untyped fallback and go on (`inspect`).
    FallBack,
}

const MAX_DEPTH: usize = 64;
const DECODE_RULES: [&str; 3] = [
    "x-deserialize-default-on-error",
    "x-deserialize-default-on-null",
    "x-deserialize-skip-invalid-items",
];
/// Keywords that never change what a value may be.
const ANNOTATIONS: [&str; 11] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "discriminator",
];

/// Lowers an extended schema to the IR.
pub fn lower(schema: &ExtendedSchema, mode: Unsupported) -> Result<Ir, CodegenError> {
    let mut lowerer = Lowerer::new(&schema.origin, &schema.document, mode)?;
    lowerer.lower_definitions()?;
    lowerer.check_reference_cycles()?;
    let methods = lowerer.methods(schema)?;
    let gated_variants = schema
        .gates
        .variants
        .iter()
        .map(|(name, resolved)| (gated_variant_key(&lowerer.types, name), gate(resolved)))
        .collect();
    let gated_fields = schema
        .gates
        .fields
        .iter()
        .map(|(name, resolved)| (name.clone(), gate(resolved)))
        .collect();
    let capability_layout = schema.gates.layout.as_ref().map(|layout| CapabilityLayout {
        name: layout.name.clone(),
        protocol_version: layout.protocol_version,
        agent: layout.agent.clone(),
        client: layout.client.clone(),
    });
    let mut ir = Ir {
        origin: schema.origin.clone(),
        overlays: schema.overlays.iter().map(|overlay| overlay.id.clone()).collect(),
        types: lowerer.types,
        methods,
        gated_variants,
        renamed: lowerer.renamed,
        gated_fields,
        capability_layout,
    };
    mark_acted_on(&mut ir);
    Ok(ir)
}

/// Marks the notifications the handling side's connection acts on by
/// itself ([`Method::acted_on`]): the turn-cancel notification, when the
/// schema has the turn rules ([`rfd::TurnCancel`]).
fn mark_acted_on(ir: &mut Ir) {
    let Some(turn_cancel) = rfd::turn_cancel(ir) else {
        return;
    };
    if let Some(method) = ir.methods.get_mut(&turn_cancel.notification) {
        method.acted_on = true;
    }
}

/// The IR key of a variant gate annotated as `Definition/tag`: the same
/// when the definition is the union, else the union flattened out of the
/// definition's object (`SessionConfigOption/boolean` ->
/// `SessionConfigOptionType/boolean`), where the review and the bindings
/// find the variant.
fn gated_variant_key(types: &BTreeMap<String, TypeDef>, key: &str) -> String {
    let Some((owner, tag)) = key.split_once('/') else {
        return key.to_owned();
    };
    let owner = naming::definition_name(owner);
    let flattened = types.values().find_map(|definition| match &definition.kind {
        TypeKind::Union(union) => match &union.style {
            UnionStyle::Tagged { property }
                if definition.name == naming::flattened_union_name(&owner, Some(property))
                    && union.variants.iter().any(|variant| variant.tag.as_deref() == Some(tag)) =>
            {
                Some(definition.name.clone())
            }
            _ => None,
        },
        _ => None,
    });
    let is_union = types
        .get(&owner)
        .is_some_and(|definition| matches!(definition.kind, TypeKind::Union(_)));
    match flattened {
        Some(union) if !is_union => format!("{union}/{tag}"),
        _ => key.to_owned(),
    }
}

fn session_gate(resolved: &acp_schema_source::capabilities::ResolvedSessionGate) -> SessionGate {
    SessionGate {
        advertised_by: side(resolved.advertised_by),
        member: resolved.member.clone(),
        session: resolved.session.clone(),
        openers: resolved
            .openers
            .iter()
            .map(|opener| SessionOpener {
                method: opener.method.clone(),
                session_in_result: opener.session_in_result,
            })
            .collect(),
    }
}

fn side(side: acp_schema_source::capabilities::Side) -> Side {
    match side {
        acp_schema_source::capabilities::Side::Agent => Side::Agent,
        acp_schema_source::capabilities::Side::Client => Side::Client,
    }
}

fn gate(resolved: &acp_schema_source::capabilities::ResolvedGate) -> Gate {
    Gate {
        advertised_by: side(resolved.gate.advertised_by),
        root: resolved.root.clone(),
        path: resolved.path.clone(),
        kind: match resolved.gate.kind {
            acp_schema_source::capabilities::GateKind::Capability => GateKind::Capability,
            acp_schema_source::capabilities::GateKind::Offered => GateKind::Offered,
        },
        initialize_pointer: resolved.initialize_pointer.clone(),
        sites: resolved
            .sites
            .iter()
            .map(|site| GateSite {
                method: site.method.clone(),
                pointer: site.pointer.clone(),
                variant: site.tag.as_ref().map(|tag| VariantTag {
                    property: tag.property.clone(),
                    value: tag.value.clone(),
                }),
            })
            .collect(),
    }
}

struct Lowerer<'a> {
    file: &'a str,
    root: &'a Value,
    definitions: &'a Map<String, Value>,
    /// `$defs` key -> canonical name, assigned before anything is lowered.
    names: BTreeMap<String, String>,
    types: BTreeMap<String, TypeDef>,
    mode: Unsupported,
    /// What the collision rule renamed, in the order it was met.
    renamed: Vec<Renamed>,
}

fn pointer_token(token: &str) -> String {
    acp_schema_source::pointer::escape_token(token)
}

fn is_annotation(key: &str) -> bool {
    ANNOTATIONS.contains(&key) || (key.starts_with("x-") && !key.starts_with("x-deserialize-"))
}

/// No keyword that constrains the value (decoding rules belong to the field).
fn only_annotations(object: &Map<String, Value>) -> bool {
    object
        .keys()
        .all(|key| is_annotation(key) || DECODE_RULES.contains(&key.as_str()))
}

fn description(object: &Map<String, Value>) -> Option<String> {
    object.get("description").and_then(Value::as_str).map(str::to_owned)
}

fn title(object: &Map<String, Value>) -> Option<&str> {
    object.get("title").and_then(Value::as_str)
}

fn is_null_schema(value: &Value) -> bool {
    value.as_object().is_some_and(|object| {
        object.get("type") == Some(&Value::from("null")) && object.keys().all(|key| key == "type" || is_annotation(key))
    })
}

/// The single `$ref` a node stands for, through an `allOf: [{$ref}]` wrapper.
fn single_reference(object: &Map<String, Value>) -> Option<&str> {
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        return Some(reference);
    }
    match object.get("allOf").and_then(Value::as_array).map(Vec::as_slice) {
        Some([Value::Object(inner)]) => single_reference(inner),
        _ => None,
    }
}

/// The `anyOf`/`oneOf` members of a node, and whether they are exclusive.
fn alternatives(object: &Map<String, Value>) -> Option<(&Vec<Value>, bool, &'static str)> {
    if let Some(members) = object.get("oneOf").and_then(Value::as_array) {
        Some((members, true, "oneOf"))
    } else {
        object
            .get("anyOf")
            .and_then(Value::as_array)
            .map(|members| (members, false, "anyOf"))
    }
}

/// The tag a union member carries: a required property with a string `const`.
fn member_tag(member: &Value) -> Option<(&str, &str)> {
    let object = member.as_object()?;
    let properties = object.get("properties")?.as_object()?;
    let required = object.get("required")?.as_array()?;
    properties.iter().find_map(|(name, property)| {
        let constant = property.get("const")?.as_str()?;
        required
            .iter()
            .any(|entry| entry == name)
            .then_some((name.as_str(), constant))
    })
}

/// A member that takes every tag the others do not name: the tag property is
/// a plain string and the member is titled or excludes the known tags with `not`.
fn is_tag_catch_all(member: &Value, tag_property: &str) -> bool {
    let Some(object) = member.as_object() else { return false };
    let tag = object
        .get("properties")
        .and_then(|properties| properties.get(tag_property));
    tag.is_some_and(|tag| tag.get("const").is_none() && tag.get("type") == Some(&Value::from("string")))
        && (object.contains_key("not") || object.contains_key("title"))
}

impl<'a> Lowerer<'a> {
    fn new(file: &'a str, root: &'a Value, mode: Unsupported) -> Result<Self, CodegenError> {
        let definitions = root
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| CodegenError {
                kind: ErrorKind::Malformed,
                file: file.to_owned(),
                pointer: "/$defs".to_owned(),
                message: "the schema has no `$defs` object".to_owned(),
            })?;
        let keys: Vec<&str> = definitions.keys().map(String::as_str).collect();
        let given = naming::distinct(
            &keys,
            &[],
            naming::definition_name,
            naming::numbered_type,
            &naming::TYPE_FORMS,
        );
        let mut names = BTreeMap::new();
        let mut renamed = Vec::new();
        for (key, (name, changed)) in keys.iter().zip(given) {
            if changed {
                let pointer = format!("/$defs/{}", pointer_token(key));
                renamed.push(Renamed {
                    pointer,
                    wire: (*key).to_owned(),
                    base: naming::definition_name(key),
                    name: name.clone(),
                });
            }
            names.insert((*key).to_owned(), name);
        }
        Ok(Lowerer {
            file,
            root,
            definitions,
            names,
            types: BTreeMap::new(),
            mode,
            renamed,
        })
    }

    fn error(&self, kind: ErrorKind, pointer: &str, message: impl Into<String>) -> CodegenError {
        CodegenError {
            kind,
            file: self.file.to_owned(),
            pointer: pointer.to_owned(),
            message: message.into(),
        }
    }

    /// An unsupported shape: an error, or an untyped fallback in `inspect`.
    fn unsupported(&self, pointer: &str, message: impl Into<String>) -> Result<TypeExpr, CodegenError> {
        let message = message.into();
        match self.mode {
            Unsupported::Fail => Err(self.error(ErrorKind::Unsupported, pointer, message)),
            Unsupported::FallBack => Ok(TypeExpr::Untyped {
                pointer: pointer.to_owned(),
                reason: message,
            }),
        }
    }

    fn check_keywords(&self, object: &Map<String, Value>, pointer: &str, allowed: &[&str]) -> Result<(), CodegenError> {
        for key in object.keys() {
            if !is_annotation(key) && !allowed.contains(&key.as_str()) && !DECODE_RULES.contains(&key.as_str()) {
                return Err(self.error(
                    ErrorKind::Unsupported,
                    &format!("{pointer}/{}", pointer_token(key)),
                    format!("keyword `{key}` is not supported here"),
                ));
            }
        }
        Ok(())
    }

    fn reference(&self, pointer: &str, reference: &str) -> Result<String, CodegenError> {
        let key = reference.strip_prefix("#/$defs/").ok_or_else(|| {
            self.error(
                ErrorKind::UnknownReference,
                pointer,
                format!("`$ref` {reference} does not point into `#/$defs`"),
            )
        })?;
        let key = acp_schema_source::pointer::unescape_token(key);
        self.names.get(&key).cloned().ok_or_else(|| {
            self.error(
                ErrorKind::UnknownReference,
                pointer,
                format!("`$ref` {reference} names no definition"),
            )
        })
    }

    fn lower_definitions(&mut self) -> Result<(), CodegenError> {
        for (key, node) in self.definitions {
            let name = self.names[key].clone();
            let pointer = format!("/$defs/{}", pointer_token(key));
            self.lower_named(&name, Some(key.clone()), node, &pointer, 0)?;
        }
        Ok(())
    }

    /// Lowers `node` as the named type `name` and stores it.
    fn lower_named(
        &mut self,
        name: &str,
        definition: Option<String>,
        node: &Value,
        pointer: &str,
        depth: usize,
    ) -> Result<(), CodegenError> {
        if let Some(existing) = self.types.get(name) {
            return Err(self.error(
                ErrorKind::NameCollision,
                pointer,
                format!("the type name `{name}` is already used by {}", existing.pointer),
            ));
        }
        // Reserve the name so a synthesized member cannot take it.
        self.types.insert(
            name.to_owned(),
            TypeDef {
                name: name.to_owned(),
                pointer: pointer.to_owned(),
                definition: definition.clone(),
                description: None,
                kind: TypeKind::Alias { target: TypeExpr::Any },
            },
        );
        let kind = match self.lower_kind(name, node, pointer, depth) {
            Ok(kind) => kind,
            Err(error) if self.mode == Unsupported::FallBack && error.kind == ErrorKind::Unsupported => {
                TypeKind::Alias {
                    target: TypeExpr::Untyped {
                        pointer: error.pointer,
                        reason: error.message,
                    },
                }
            }
            Err(error) => return Err(error),
        };
        let description = node.as_object().and_then(description);
        self.types.insert(
            name.to_owned(),
            TypeDef {
                name: name.to_owned(),
                pointer: pointer.to_owned(),
                definition,
                description,
                kind,
            },
        );
        Ok(())
    }

    fn lower_kind(&mut self, name: &str, node: &Value, pointer: &str, depth: usize) -> Result<TypeKind, CodegenError> {
        if depth > MAX_DEPTH {
            return Err(self.error(ErrorKind::Malformed, pointer, "schema nested too deeply"));
        }
        let Some(object) = node.as_object() else {
            return Ok(TypeKind::Alias {
                target: self.lower_expr(node, pointer, name, depth)?,
            });
        };
        if let Some(enumeration) = self.lower_enum(object, pointer)? {
            return Ok(TypeKind::Enum(enumeration));
        }
        if object.contains_key("properties")
            || object.get("type") == Some(&Value::from("object"))
                && (alternatives(object).is_some() || object.contains_key("allOf"))
        {
            return Ok(TypeKind::Struct(self.lower_struct(name, object, pointer, depth)?));
        }
        if let Some((members, exclusive, keyword)) = alternatives(object) {
            if !self.nullable_pair(members) {
                self.check_keywords(object, pointer, &[keyword])?;
                let discriminator = object
                    .get("discriminator")
                    .and_then(|d| d.get("propertyName"))
                    .and_then(Value::as_str);
                return Ok(TypeKind::Union(self.lower_union(
                    name,
                    members,
                    exclusive,
                    discriminator,
                    &format!("{pointer}/{keyword}"),
                    depth,
                )?));
            }
        }
        Ok(TypeKind::Alias {
            target: self.lower_expr(node, pointer, &naming::member_type_name(name, "value"), depth)?,
        })
    }

    fn nullable_pair(&self, members: &[Value]) -> bool {
        members.len() == 2 && members.iter().filter(|member| is_null_schema(member)).count() == 1
    }

    /// Recognises closed and open enums of string or integer constants.
    fn lower_enum(&mut self, object: &Map<String, Value>, pointer: &str) -> Result<Option<EnumType>, CodegenError> {
        let mut values = Vec::new();
        let mut other = None;
        let mut repr = None;
        let repr_of = |value: &Value, format: Option<&str>| -> Option<EnumRepr> {
            if value.is_string() {
                Some(EnumRepr::String)
            } else if value.is_i64() || value.is_u64() {
                Some(EnumRepr::Integer {
                    format: integer_format(format).unwrap_or(IntegerFormat::Unspecified),
                })
            } else {
                None
            }
        };
        if let Some(constants) = object.get("enum").and_then(Value::as_array) {
            if object
                .keys()
                .any(|key| !is_annotation(key) && key != "enum" && key != "type")
            {
                return Ok(None);
            }
            for constant in constants {
                let Some(constant_repr) = repr_of(constant, object.get("format").and_then(Value::as_str)) else {
                    return Ok(None);
                };
                repr.get_or_insert(constant_repr);
                values.push((constant.clone(), None, None));
            }
        } else if let Some(constant) = object.get("const") {
            if object
                .keys()
                .any(|key| !is_annotation(key) && key != "const" && key != "type" && key != "format")
            {
                return Ok(None);
            }
            let Some(constant_repr) = repr_of(constant, object.get("format").and_then(Value::as_str)) else {
                return Ok(None);
            };
            repr = Some(constant_repr);
            values.push((constant.clone(), None, None));
        } else if let Some((members, _, _)) = alternatives(object) {
            if object
                .keys()
                .any(|key| !is_annotation(key) && key != "oneOf" && key != "anyOf")
            {
                return Ok(None);
            }
            for member in members {
                let Some(member_object) = member.as_object() else {
                    return Ok(None);
                };
                let allowed = |key: &str| is_annotation(key) || key == "type" || key == "const" || key == "format";
                if !member_object.keys().all(|key| allowed(key)) {
                    return Ok(None);
                }
                let format = member_object.get("format").and_then(Value::as_str);
                match member_object.get("const") {
                    Some(constant) => {
                        let Some(constant_repr) = repr_of(constant, format) else {
                            return Ok(None);
                        };
                        repr.get_or_insert(constant_repr);
                        values.push((
                            constant.clone(),
                            title(member_object).map(str::to_owned),
                            description(member_object),
                        ));
                    }
                    None => {
                        let kind = member_object.get("type").and_then(Value::as_str);
                        if other.is_some() || !matches!(kind, Some("string") | Some("integer")) {
                            return Ok(None);
                        }
                        other = Some((title(member_object).map(str::to_owned), description(member_object)));
                    }
                }
            }
        } else {
            return Ok(None);
        }
        let Some(repr) = repr else { return Ok(None) };
        // Each constant's name, keyed by the constant as JSON text (its wire name).
        let bases: BTreeMap<String, String> = values
            .iter()
            .map(|(value, value_title, _)| {
                let name = match (value, value_title) {
                    (Value::String(text), _) => naming::pascal_case(text),
                    (_, Some(value_title)) => naming::pascal_case(value_title),
                    (number, None) => naming::integer_constant_name(number.as_i64().unwrap_or_default()),
                };
                (value.to_string(), name)
            })
            .collect();
        let wires: Vec<String> = values.iter().map(|(value, _, _)| value.to_string()).collect();
        if let Some(twice) = wires
            .iter()
            .enumerate()
            .find_map(|(index, wire)| wires[..index].contains(wire).then_some(wire))
        {
            return Err(self.error(
                ErrorKind::Malformed,
                pointer,
                format!("the enum constant {twice} appears twice"),
            ));
        }
        let wire_refs: Vec<&str> = wires.iter().map(String::as_str).collect();
        let given = naming::distinct(
            &wire_refs,
            &[],
            |wire| bases[wire].clone(),
            naming::numbered_type,
            &naming::CONSTANT_FORMS,
        );
        let mut names: Vec<String> = Vec::new();
        let mut lowered = Vec::new();
        for ((value, _, value_description), (name, changed)) in values.into_iter().zip(given) {
            if changed {
                self.renamed.push(Renamed {
                    pointer: pointer.to_owned(),
                    wire: value.to_string(),
                    base: bases[&value.to_string()].clone(),
                    name: name.clone(),
                });
            }
            names.push(name.clone());
            lowered.push(EnumValue {
                name,
                value,
                description: value_description,
            });
        }
        let other = other.map(|(other_title, other_description)| CatchAll {
            name: naming::catch_all_name(other_title.as_deref(), &names),
            description: other_description,
        });
        Ok(Some(EnumType {
            repr,
            values: lowered,
            other,
        }))
    }

    fn lower_struct(
        &mut self,
        name: &str,
        object: &Map<String, Value>,
        pointer: &str,
        depth: usize,
    ) -> Result<StructType, CodegenError> {
        self.check_keywords(
            object,
            pointer,
            &[
                "type",
                "properties",
                "required",
                "additionalProperties",
                "unevaluatedProperties",
                "allOf",
                "anyOf",
                "oneOf",
            ],
        )?;
        if let Some(kind) = object.get("type") {
            if kind != "object" {
                return Err(self.error(
                    ErrorKind::Unsupported,
                    &format!("{pointer}/type"),
                    "an object with `properties` must have `type: object`",
                ));
            }
        }
        let required = self.required(object, pointer)?;
        let mut fields = Vec::new();
        if let Some(properties) = object.get("properties") {
            let properties = properties.as_object().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &format!("{pointer}/properties"),
                    "`properties` must be an object",
                )
            })?;
            for (wire_name, property) in properties {
                let field_pointer = format!("{pointer}/properties/{}", pointer_token(wire_name));
                fields.push(self.lower_field(
                    name,
                    wire_name,
                    property,
                    required.contains(wire_name.as_str()),
                    &field_pointer,
                    depth,
                )?);
            }
        }
        let mut flatten = Vec::new();
        if let Some(bases) = object.get("allOf") {
            let bases = bases.as_array().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &format!("{pointer}/allOf"),
                    "`allOf` must be an array",
                )
            })?;
            for (index, base) in bases.iter().enumerate() {
                let base_pointer = format!("{pointer}/allOf/{index}");
                match base.as_object().and_then(single_reference) {
                    Some(reference) => flatten.push(self.reference(&base_pointer, reference)?),
                    None => {
                        return Err(self.error(
                            ErrorKind::Unsupported,
                            &base_pointer,
                            "only `$ref` members are supported in an object's `allOf`",
                        ))
                    }
                }
            }
        }
        if let Some((members, exclusive, keyword)) = alternatives(object) {
            let tag = members.iter().find_map(member_tag).map(|(property, _)| property);
            let union_name = naming::flattened_union_name(name, tag);
            let union_pointer = format!("{pointer}/{keyword}");
            let discriminator = object
                .get("discriminator")
                .and_then(|d| d.get("propertyName"))
                .and_then(Value::as_str);
            let union = self.lower_union(&union_name, members, exclusive, discriminator, &union_pointer, depth)?;
            if let Some(existing) = self.types.get(&union_name) {
                return Err(self.error(
                    ErrorKind::NameCollision,
                    &union_pointer,
                    format!("the type name `{union_name}` is already used by {}", existing.pointer),
                ));
            }
            // A property that repeats the union's tag belongs to the union.
            if let UnionStyle::Tagged { property } = &union.style {
                fields.retain(|field| &field.wire_name != property);
            }
            self.types.insert(
                union_name.clone(),
                TypeDef {
                    name: union_name.clone(),
                    pointer: union_pointer,
                    definition: None,
                    description: None,
                    kind: TypeKind::Union(union),
                },
            );
            flatten.push(union_name);
        }
        self.name_members(&mut fields, &[], pointer);
        let additional = match object
            .get("additionalProperties")
            .or_else(|| object.get("unevaluatedProperties"))
        {
            None | Some(Value::Bool(true)) => AdditionalProperties::Kept(TypeExpr::Any),
            Some(Value::Bool(false)) => AdditionalProperties::Denied,
            Some(schema) => AdditionalProperties::Kept(self.lower_expr(
                schema,
                &format!("{pointer}/additionalProperties"),
                &naming::member_type_name(name, "value"),
                depth + 1,
            )?),
        };
        Ok(StructType {
            fields,
            flatten,
            additional,
        })
    }

    /// Gives the members of one object their names by the collision rule;
    /// `reserved` wire names (a tag) sit beside them under their own names.
    fn name_members(&mut self, fields: &mut [Field], reserved: &[&str], pointer: &str) {
        let wires: Vec<&str> = fields.iter().map(|field| field.wire_name.as_str()).collect();
        let given = naming::distinct(
            &wires,
            reserved,
            naming::member_name,
            naming::numbered_member,
            &naming::MEMBER_FORMS,
        );
        for (field, (name, changed)) in fields.iter_mut().zip(given) {
            if changed {
                let member = format!("{pointer}/properties/{}", pointer_token(&field.wire_name));
                self.renamed.push(Renamed {
                    pointer: member,
                    wire: field.wire_name.clone(),
                    base: field.name.clone(),
                    name: name.clone(),
                });
            }
            field.name = name;
        }
    }

    fn required<'o>(&self, object: &'o Map<String, Value>, pointer: &str) -> Result<BTreeSet<&'o str>, CodegenError> {
        match object.get("required") {
            None => Ok(BTreeSet::new()),
            Some(Value::Array(entries)) => entries
                .iter()
                .map(|entry| {
                    entry.as_str().ok_or_else(|| {
                        self.error(
                            ErrorKind::Malformed,
                            &format!("{pointer}/required"),
                            "`required` must list strings",
                        )
                    })
                })
                .collect(),
            Some(_) => Err(self.error(
                ErrorKind::Malformed,
                &format!("{pointer}/required"),
                "`required` must be an array",
            )),
        }
    }

    fn lower_field(
        &mut self,
        owner: &str,
        wire_name: &str,
        property: &Value,
        required: bool,
        pointer: &str,
        depth: usize,
    ) -> Result<Field, CodegenError> {
        let empty = Map::new();
        let object = property.as_object().unwrap_or(&empty);
        let mut decode = DecodeRules::default();
        for (key, value) in object.iter().filter(|(key, _)| key.starts_with("x-deserialize-")) {
            let rule_pointer = format!("{pointer}/{}", pointer_token(key));
            let enabled = value.as_bool().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &rule_pointer,
                    format!("`{key}` must be a boolean"),
                )
            })?;
            match key.as_str() {
                "x-deserialize-default-on-error" => decode.default_on_error = enabled,
                "x-deserialize-default-on-null" => decode.default_on_null = enabled,
                "x-deserialize-skip-invalid-items" => decode.skip_invalid_items = enabled,
                _ => {
                    return Err(self.error(
                        ErrorKind::Unsupported,
                        &rule_pointer,
                        format!("unknown decoding rule `{key}`"),
                    ))
                }
            }
        }
        let expression = self.lower_expr(
            property,
            pointer,
            &naming::member_type_name(owner, wire_name),
            depth + 1,
        )?;
        let (nullable, ty) = match expression {
            TypeExpr::Nullable { inner } => (true, *inner),
            other => (false, other),
        };
        if decode.skip_invalid_items && !matches!(ty, TypeExpr::Array(_)) {
            return Err(self.error(
                ErrorKind::Malformed,
                pointer,
                "`x-deserialize-skip-invalid-items` on a field that is not an array",
            ));
        }
        let default = object.get("default").cloned();
        let fallback = if !required {
            Fallback::Absent
        } else {
            match (&default, &ty) {
                (Some(value), _) => Fallback::Value(value.clone()),
                (None, TypeExpr::Array(array)) if array.min_items.unwrap_or(0) == 0 => {
                    Fallback::Value(Value::Array(Vec::new()))
                }
                (None, TypeExpr::Map { .. }) => Fallback::Value(Value::Object(Map::new())),
                _ => Fallback::Reject,
            }
        };
        let name = naming::member_name(wire_name);
        Ok(Field {
            wire_name: wire_name.to_owned(),
            name,
            description: description(object),
            ty,
            required,
            nullable,
            default,
            decode,
            fallback,
        })
    }

    fn lower_union(
        &mut self,
        name: &str,
        members: &[Value],
        exclusive: bool,
        discriminator: Option<&str>,
        pointer: &str,
        depth: usize,
    ) -> Result<UnionType, CodegenError> {
        let tags: BTreeSet<&str> = members
            .iter()
            .filter_map(member_tag)
            .map(|(property, _)| property)
            .collect();
        if tags.len() > 1 {
            return Err(self.error(
                ErrorKind::Unsupported,
                pointer,
                format!("members are tagged by different properties: {tags:?}"),
            ));
        }
        let tag_property = tags.into_iter().next();
        if let (Some(declared), Some(found)) = (discriminator, tag_property) {
            if declared != found {
                return Err(self.error(
                    ErrorKind::Malformed,
                    pointer,
                    format!("the discriminator `{declared}` is not the members' tag `{found}`"),
                ));
            }
        }
        let mut variants: Vec<Variant> = Vec::new();
        let mut other = None;
        let mut any_json: Option<(String, Option<String>)> = None;
        for (index, member) in members.iter().enumerate() {
            let member_pointer = format!("{pointer}/{index}");
            let object = member.as_object().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &member_pointer,
                    "a union member must be a schema object",
                )
            })?;
            let variant = match tag_property {
                Some(property) => match member_tag(member) {
                    Some((_, value)) => {
                        let variant_name = naming::pascal_case(value);
                        let payload = self.variant_payload(
                            &format!("{name}{variant_name}"),
                            object,
                            Some(property),
                            &member_pointer,
                            depth,
                        )?;
                        Variant {
                            name: variant_name,
                            tag: Some(value.to_owned()),
                            description: description(object),
                            payload,
                        }
                    }
                    None if is_tag_catch_all(member, property) => {
                        if other.is_some() {
                            return Err(self.error(
                                ErrorKind::Unsupported,
                                &member_pointer,
                                "a union with two catch-all members",
                            ));
                        }
                        // The catch-all keeps an unknown variant's whole payload;
                        // whatever structure it states inside stays open on purpose.
                        other = Some((title(object).map(str::to_owned), description(object)));
                        continue;
                    }
                    None => {
                        let variant_name = self.variant_name(object, members, &member_pointer)?;
                        let payload = self.variant_payload(
                            &format!("{name}{variant_name}"),
                            object,
                            None,
                            &member_pointer,
                            depth,
                        )?;
                        Variant {
                            name: variant_name,
                            tag: None,
                            description: description(object),
                            payload,
                        }
                    }
                },
                None if only_annotations(object) => {
                    // Any JSON value: named and placed once every other member
                    // is, so that it is tried last and shadows none of them.
                    if any_json.is_some() {
                        return Err(self.error(
                            ErrorKind::Unsupported,
                            &member_pointer,
                            "a union with two members that accept any JSON value",
                        ));
                    }
                    any_json = Some((member_pointer, description(object)));
                    continue;
                }
                None => {
                    let variant_name = self.variant_name(object, members, &member_pointer)?;
                    let ty = self.lower_expr(member, &member_pointer, &format!("{name}{variant_name}"), depth + 1)?;
                    Variant {
                        name: variant_name,
                        tag: None,
                        description: description(object),
                        payload: Payload::Type { ty },
                    }
                }
            };
            if variants.iter().any(|existing| existing.name == variant.name) {
                return Err(self.error(
                    ErrorKind::NameCollision,
                    &member_pointer,
                    format!("two members of the union map to the variant name `{}`", variant.name),
                ));
            }
            variants.push(variant);
        }
        // Names that repeat the union's name drop it, when every short
        // name stays distinct (`McpServer::Stdio`, not `McpServerStdio`).
        let short: Vec<Option<String>> = variants
            .iter()
            .map(|variant| naming::variant_without_repetition(name, &variant.name))
            .collect();
        let distinct = |candidate: &str| {
            variants
                .iter()
                .zip(&short)
                .filter(|(variant, short)| short.as_deref().unwrap_or(&variant.name) == candidate)
                .count()
                == 1
        };
        let renamed: Vec<Option<String>> = short
            .iter()
            .map(|short| short.clone().filter(|short| distinct(short)))
            .collect();
        for (variant, short) in variants.iter_mut().zip(renamed) {
            if let Some(short) = short {
                variant.name = short;
            }
        }
        if let Some((_, any_description)) = any_json {
            let taken: Vec<String> = variants.iter().map(|variant| variant.name.clone()).collect();
            variants.push(Variant {
                name: naming::any_json_variant_name(&taken),
                tag: None,
                description: any_description,
                payload: Payload::Type { ty: TypeExpr::Any },
            });
        }
        if variants
            .iter()
            .filter(|variant| tag_property.is_some() && variant.tag.is_none())
            .count()
            > 1
        {
            return Err(self.error(
                ErrorKind::Unsupported,
                pointer,
                "a tagged union with more than one untagged member",
            ));
        }
        let taken: Vec<String> = variants.iter().map(|variant| variant.name.clone()).collect();
        let other = other.map(|(other_title, other_description)| CatchAll {
            name: naming::catch_all_name(other_title.as_deref(), &taken),
            description: other_description,
        });
        let by_method = tag_property.is_none()
            && members
                .iter()
                .all(|member| member.as_object().and_then(single_reference).is_some())
            && members.iter().any(|member| {
                member
                    .as_object()
                    .and_then(single_reference)
                    .and_then(|reference| reference.strip_prefix("#/$defs/"))
                    .and_then(|key| self.definitions.get(key))
                    .is_some_and(|definition| definition.get("x-method").is_some())
            });
        let style = match tag_property {
            Some(property) => UnionStyle::Tagged {
                property: property.to_owned(),
            },
            None if by_method => UnionStyle::ByMethod,
            None => UnionStyle::Untagged,
        };
        let additional = match tag_property {
            Some(property) => self.variants_additional(members, property, pointer)?,
            None => AdditionalProperties::Kept(TypeExpr::Any),
        };
        let default_open = match tag_property {
            Some(property) => {
                matches!(additional, AdditionalProperties::Kept(_)) && self.default_leaves_tag_open(members, property)
            }
            None => false,
        };
        Ok(UnionType {
            style,
            exclusive,
            variants,
            other,
            default_open,
            tolerant: false,
            additional,
        })
    }

    /// Whether the union member without a tag (if any) accepts every value of
    /// the tag property: neither it nor the definition it refers to names
    /// the property or denies members it does not name.
    fn default_leaves_tag_open(&self, members: &[Value], property: &str) -> bool {
        let Some(default) = members
            .iter()
            .find(|member| member_tag(member).is_none() && !is_tag_catch_all(member, property))
            .and_then(Value::as_object)
        else {
            return false;
        };
        let leaves_open = |object: &Map<String, Value>| {
            object
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|properties| !properties.contains_key(property))
                && object.get("additionalProperties") != Some(&Value::Bool(false))
        };
        let referred = single_reference(default)
            .and_then(|reference| reference.strip_prefix("#/$defs/"))
            .and_then(|key| self.definitions.get(key));
        leaves_open(default) && referred.and_then(Value::as_object).is_none_or(leaves_open)
    }

    /// What the tagged members of a union say of members they do not name:
    /// all the same, or an error.
    fn variants_additional(
        &self,
        members: &[Value],
        property: &str,
        pointer: &str,
    ) -> Result<AdditionalProperties, CodegenError> {
        let mut found = None;
        for (index, member) in members
            .iter()
            .enumerate()
            .filter(|(_, member)| !is_tag_catch_all(member, property))
        {
            let additional = match member.get("additionalProperties") {
                None | Some(Value::Bool(true)) => AdditionalProperties::Kept(TypeExpr::Any),
                Some(Value::Bool(false)) => AdditionalProperties::Denied,
                Some(_) => {
                    return Err(self.error(
                        ErrorKind::Unsupported,
                        &format!("{pointer}/{index}/additionalProperties"),
                        "a schema for the unnamed members of a union variant",
                    ));
                }
            };
            match &found {
                Some(earlier) if earlier != &additional => {
                    return Err(self.error(
                        ErrorKind::Unsupported,
                        &format!("{pointer}/{index}"),
                        "the variants of this union disagree on `additionalProperties`",
                    ));
                }
                _ => found = Some(additional),
            }
        }
        Ok(found.unwrap_or(AdditionalProperties::Kept(TypeExpr::Any)))
    }

    /// Names an untagged member: its title, else the type it refers to, else
    /// the first required member no sibling requires, else its JSON type.
    fn variant_name(
        &self,
        object: &Map<String, Value>,
        siblings: &[Value],
        pointer: &str,
    ) -> Result<String, CodegenError> {
        if let Some(member_title) = title(object) {
            return Ok(naming::pascal_case(member_title));
        }
        if let Some(reference) = single_reference(object) {
            return self.reference(pointer, reference);
        }
        let required_by = |member: &Value, property: &Value| {
            member
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|required| required.contains(property))
        };
        let distinguishing = object
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|property| {
                siblings
                    .iter()
                    .filter(|sibling| sibling.as_object() != Some(object))
                    .all(|sibling| !required_by(sibling, property))
            });
        if let Some(property) = distinguishing.and_then(Value::as_str) {
            return Ok(naming::pascal_case(property));
        }
        if let Some(items) = object
            .get("items")
            .and_then(Value::as_object)
            .and_then(single_reference)
        {
            return Ok(naming::member_type_name(&self.reference(pointer, items)?, "list"));
        }
        match object.get("type").and_then(Value::as_str) {
            Some(kind) => Ok(naming::pascal_case(kind)),
            None => Err(self.error(
                ErrorKind::Unsupported,
                pointer,
                "cannot name this union member: it has no title, `$ref` or `type`",
            )),
        }
    }

    /// The payload of a member of a tagged union: the members of its `allOf`
    /// base plus its own properties other than the tag.
    fn variant_payload(
        &mut self,
        owner: &str,
        object: &Map<String, Value>,
        tag_property: Option<&str>,
        pointer: &str,
        depth: usize,
    ) -> Result<Payload, CodegenError> {
        self.check_keywords(object, pointer, &["type", "properties", "required", "allOf", "$ref"])?;
        let base = match (object.get("allOf"), object.get("$ref")) {
            (None, None) => None,
            (_, Some(reference)) => Some(self.reference(pointer, reference.as_str().unwrap_or_default())?),
            (Some(_), None) => match single_reference(object) {
                Some(reference) => Some(self.reference(&format!("{pointer}/allOf/0"), reference)?),
                None => {
                    return Err(self.error(
                        ErrorKind::Unsupported,
                        &format!("{pointer}/allOf"),
                        "a union member's `allOf` must hold exactly one `$ref`",
                    ))
                }
            },
        };
        let required = self.required(object, pointer)?;
        let mut fields = Vec::new();
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            for (wire_name, property) in properties {
                if Some(wire_name.as_str()) == tag_property {
                    continue;
                }
                let field_pointer = format!("{pointer}/properties/{}", pointer_token(wire_name));
                fields.push(self.lower_field(
                    owner,
                    wire_name,
                    property,
                    required.contains(wire_name.as_str()),
                    &field_pointer,
                    depth,
                )?);
            }
        }
        self.name_members(&mut fields, tag_property.as_slice(), pointer);
        Ok(if base.is_none() && fields.is_empty() {
            Payload::Unit
        } else {
            Payload::Struct { base, fields }
        })
    }

    /// Lowers a type expression; inline objects, enums and unions become
    /// synthesized named types called `hint`.
    fn lower_expr(&mut self, node: &Value, pointer: &str, hint: &str, depth: usize) -> Result<TypeExpr, CodegenError> {
        if depth > MAX_DEPTH {
            return Err(self.error(ErrorKind::Malformed, pointer, "schema nested too deeply"));
        }
        let object = match node {
            Value::Bool(true) => return Ok(TypeExpr::Any),
            Value::Bool(false) => return self.unsupported(pointer, "the `false` schema accepts no value"),
            Value::Object(object) => object,
            _ => return Err(self.error(ErrorKind::Malformed, pointer, "a schema must be an object or a boolean")),
        };
        if let Some(reference) = object.get("$ref") {
            let reference = reference.as_str().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &format!("{pointer}/$ref"),
                    "`$ref` must be a string",
                )
            })?;
            self.check_keywords(object, pointer, &["$ref"])?;
            return Ok(TypeExpr::named(self.reference(&format!("{pointer}/$ref"), reference)?));
        }
        if let Some(Value::Array(members)) = object.get("allOf") {
            if members.len() == 1 && !object.contains_key("properties") && !object.contains_key("type") {
                self.check_keywords(object, pointer, &["allOf"])?;
                return self.lower_expr(&members[0], &format!("{pointer}/allOf/0"), hint, depth + 1);
            }
        }
        if let Some((members, _, keyword)) = alternatives(object) {
            if self.nullable_pair(members) && !object.contains_key("properties") {
                self.check_keywords(object, pointer, &[keyword])?;
                let (index, inner) = members
                    .iter()
                    .enumerate()
                    .find(|(_, member)| !is_null_schema(member))
                    .expect("a nullable pair has one non-null member");
                let inner = self.lower_expr(inner, &format!("{pointer}/{keyword}/{index}"), hint, depth + 1)?;
                return Ok(TypeExpr::Nullable { inner: Box::new(inner) });
            }
            return self.synthesize(hint, node, pointer, depth);
        }
        if object.contains_key("enum") || object.contains_key("const") || object.contains_key("properties") {
            return self.synthesize(hint, node, pointer, depth);
        }
        match object.get("type") {
            None if only_annotations(object) => Ok(TypeExpr::Any),
            None => self.unsupported(
                pointer,
                format!(
                    "cannot type a schema with keywords {:?}",
                    object.keys().filter(|key| !is_annotation(key)).collect::<Vec<_>>()
                ),
            ),
            Some(Value::Array(kinds)) => {
                let non_null: Vec<&Value> = kinds.iter().filter(|kind| *kind != "null").collect();
                match (non_null.as_slice(), kinds.len()) {
                    ([single], 2) => {
                        let mut inner = object.clone();
                        inner.insert("type".to_owned(), (*single).clone());
                        let inner = self.lower_expr(&Value::Object(inner), pointer, hint, depth + 1)?;
                        Ok(TypeExpr::Nullable { inner: Box::new(inner) })
                    }
                    _ => self.unsupported(&format!("{pointer}/type"), "a list of types other than [X, \"null\"]"),
                }
            }
            Some(Value::String(kind)) => self.lower_typed(kind, object, pointer, hint, depth),
            Some(_) => Err(self.error(
                ErrorKind::Malformed,
                &format!("{pointer}/type"),
                "`type` must be a string or an array",
            )),
        }
    }

    fn lower_typed(
        &mut self,
        kind: &str,
        object: &Map<String, Value>,
        pointer: &str,
        hint: &str,
        depth: usize,
    ) -> Result<TypeExpr, CodegenError> {
        let number = |key: &str| object.get(key).and_then(Value::as_number).cloned();
        let unsigned = |key: &str| object.get(key).and_then(Value::as_u64);
        let format = object.get("format").and_then(Value::as_str);
        match kind {
            "string" => {
                self.check_keywords(
                    object,
                    pointer,
                    &[
                        "type",
                        "format",
                        "minLength",
                        "maxLength",
                        "pattern",
                        "contentEncoding",
                        "contentMediaType",
                    ],
                )?;
                Ok(TypeExpr::String(StringType {
                    format: format.map(str::to_owned),
                    min_length: unsigned("minLength"),
                    max_length: unsigned("maxLength"),
                    pattern: object.get("pattern").and_then(Value::as_str).map(str::to_owned),
                    content_encoding: object.get("contentEncoding").and_then(Value::as_str).map(str::to_owned),
                }))
            }
            "integer" => {
                self.check_keywords(object, pointer, &["type", "format", "minimum", "maximum"])?;
                let format = match format {
                    None => IntegerFormat::Unspecified,
                    Some(format) => match integer_format(Some(format)) {
                        Some(format) => format,
                        None => {
                            return self.unsupported(
                                &format!("{pointer}/format"),
                                format!("unknown integer format `{format}`"),
                            )
                        }
                    },
                };
                Ok(TypeExpr::Integer(IntegerType {
                    format,
                    minimum: number("minimum"),
                    maximum: number("maximum"),
                }))
            }
            "number" => {
                self.check_keywords(object, pointer, &["type", "format", "minimum", "maximum"])?;
                let format = match format {
                    None => NumberFormat::Unspecified,
                    Some("double") => NumberFormat::Double,
                    Some("float") => NumberFormat::Float,
                    Some(other) => {
                        return self
                            .unsupported(&format!("{pointer}/format"), format!("unknown number format `{other}`"))
                    }
                };
                Ok(TypeExpr::Number(NumberType {
                    format,
                    minimum: number("minimum"),
                    maximum: number("maximum"),
                }))
            }
            "boolean" => {
                self.check_keywords(object, pointer, &["type"])?;
                Ok(TypeExpr::Boolean)
            }
            "null" => {
                self.check_keywords(object, pointer, &["type"])?;
                Ok(TypeExpr::Null)
            }
            "array" => {
                self.check_keywords(object, pointer, &["type", "items", "minItems", "maxItems"])?;
                let items = match object.get("items") {
                    None => TypeExpr::Any,
                    Some(items) => self.lower_expr(
                        items,
                        &format!("{pointer}/items"),
                        &naming::member_type_name(hint, "item"),
                        depth + 1,
                    )?,
                };
                Ok(TypeExpr::Array(ArrayType {
                    items: Box::new(items),
                    min_items: unsigned("minItems"),
                    max_items: unsigned("maxItems"),
                }))
            }
            "object" => {
                if object.contains_key("allOf") {
                    return self.synthesize(hint, &Value::Object(object.clone()), pointer, depth);
                }
                self.check_keywords(object, pointer, &["type", "additionalProperties"])?;
                let values = match object.get("additionalProperties") {
                    None | Some(Value::Bool(true)) => TypeExpr::Any,
                    Some(Value::Bool(false)) => return self.unsupported(pointer, "an object that allows no members"),
                    Some(schema) => self.lower_expr(
                        schema,
                        &format!("{pointer}/additionalProperties"),
                        &naming::member_type_name(hint, "value"),
                        depth + 1,
                    )?,
                };
                Ok(TypeExpr::Map {
                    values: Box::new(values),
                })
            }
            other => Err(self.error(
                ErrorKind::Malformed,
                &format!("{pointer}/type"),
                format!("unknown type `{other}`"),
            )),
        }
    }

    fn synthesize(&mut self, name: &str, node: &Value, pointer: &str, depth: usize) -> Result<TypeExpr, CodegenError> {
        self.lower_named(name, None, node, pointer, depth + 1)?;
        Ok(TypeExpr::named(name))
    }

    /// A chain of aliases and flattened bases that only leads back to where
    /// it started has no values at all.
    fn check_reference_cycles(&self) -> Result<(), CodegenError> {
        for start in self.types.values() {
            let mut seen = BTreeSet::new();
            let mut frontier = vec![start.name.clone()];
            while let Some(current) = frontier.pop() {
                let Some(definition) = self.types.get(&current) else {
                    continue;
                };
                let next: Vec<String> = match &definition.kind {
                    TypeKind::Alias {
                        target: TypeExpr::Named { name },
                    } => vec![name.clone()],
                    TypeKind::Struct(structure) if structure.fields.is_empty() => structure.flatten.clone(),
                    _ => Vec::new(),
                };
                for name in next {
                    if name == start.name {
                        return Err(self.error(
                            ErrorKind::ReferenceCycle,
                            &start.pointer,
                            format!("`$ref` chain from `{}` only leads back to itself", start.name),
                        ));
                    }
                    if seen.insert(name.clone()) {
                        frontier.push(name);
                    }
                }
            }
        }
        Ok(())
    }

    /// Methods from `x-method` / `x-side`; request, response or notification
    /// from the JSON-RPC envelopes the schema root lists. A request whose
    /// response has no `x-method` takes it from the routing union of the
    /// handling side's responses ([`Lowerer::routed_response`]).
    fn methods(&mut self, schema: &ExtendedSchema) -> Result<BTreeMap<String, Method>, CodegenError> {
        let roles = self.envelope_roles();
        // method -> role -> (side, type name, pointer)
        let mut parts: BTreeMap<String, BTreeMap<Role, (Side, String, String)>> = BTreeMap::new();
        let mut unstable: BTreeSet<String> = BTreeSet::new();
        for (key, definition) in self.definitions {
            let Some(method) = definition.get("x-method") else {
                continue;
            };
            if marked_unstable(definition.get("description").and_then(Value::as_str)) {
                unstable.insert(method.as_str().unwrap_or_default().to_owned());
            }
            let pointer = format!("/$defs/{}", pointer_token(key));
            let method = method.as_str().ok_or_else(|| {
                self.error(
                    ErrorKind::Malformed,
                    &format!("{pointer}/x-method"),
                    "`x-method` must be a string",
                )
            })?;
            let side = match definition.get("x-side").and_then(Value::as_str) {
                Some("agent") => Side::Agent,
                Some("client") => Side::Client,
                Some("proxy") => Side::Proxy,
                Some("protocol") => Side::Protocol,
                Some("both") => Side::Both,
                other => {
                    return Err(self.error(
                        ErrorKind::Malformed,
                        &format!("{pointer}/x-side"),
                        format!("`x-side` must be agent, client, proxy, protocol or both, not {other:?}"),
                    ))
                }
            };
            let role = match roles.get(key.as_str()) {
                Some(role) => *role,
                None if key.ends_with("Request") => Role::Request,
                None if key.ends_with("Response") => Role::Response,
                None if key.ends_with("Notification") => Role::Notification,
                None => {
                    return Err(self.error(
                        ErrorKind::Malformed,
                        &pointer,
                        format!("`{key}` has `x-method` but is neither a request, a response nor a notification"),
                    ))
                }
            };
            let uses = parts.entry(method.to_owned()).or_default();
            if let Some((_, existing, _)) = uses.insert(role, (side, self.names[key].clone(), pointer.clone())) {
                return Err(self.error(
                    ErrorKind::NameCollision,
                    &pointer,
                    format!("method `{method}` already has `{existing}` as its {role:?}"),
                ));
            }
        }
        let mut methods = BTreeMap::new();
        for (name, mut uses) in parts {
            let mut response = uses.remove(&Role::Response);
            if let (Some((side, _, pointer)), None) = (uses.get(&Role::Request), &response) {
                response = self
                    .routed_response(pointer, *side)
                    .map(|result| (*side, result, pointer.clone()));
            }
            let request = match (uses.remove(&Role::Request), response) {
                (Some((side, params, _)), Some((result_side, result, pointer))) => {
                    if side != result_side {
                        return Err(self.error(
                            ErrorKind::Malformed,
                            &format!("{pointer}/x-side"),
                            format!("the request and response of `{name}` name different sides"),
                        ));
                    }
                    Some(RequestMethod { side, params, result })
                }
                (None, None) => None,
                (Some((_, _, pointer)), None) | (None, Some((_, _, pointer))) => {
                    return Err(self.error(
                        ErrorKind::Malformed,
                        &pointer,
                        format!("method `{name}` has a request without a response or a response without a request"),
                    ))
                }
            };
            let notification = uses
                .remove(&Role::Notification)
                .map(|(side, params, _)| NotificationMethod { side, params });
            let gate = schema.gates.methods.get(&name).map(gate);
            let unstable = unstable.contains(&name);
            let session_gate = schema.gates.session_gates.get(&name).map(session_gate);
            let not_negotiated = schema.gates.not_negotiated.get(&name).cloned();
            methods.insert(
                name.clone(),
                Method {
                    name,
                    request,
                    notification,
                    gate,
                    session_gate,
                    not_negotiated,
                    unstable,
                    acted_on: false,
                },
            );
        }
        Ok(methods)
    }

    /// The response of the request at `request_pointer` (`/$defs/XRequest`),
    /// as early releases wrote it: only a branch titled `XResponse` of the
    /// handling side's routing union (`AgentResponse`, `ClientResponse`),
    /// either a `$ref` or an inline `null`, which becomes a type of its own.
    fn routed_response(&mut self, request_pointer: &str, side: Side) -> Option<String> {
        let title = format!(
            "{}Response",
            request_pointer.strip_prefix("/$defs/")?.strip_suffix("Request")?
        );
        let union = match side {
            Side::Agent => "AgentResponse",
            Side::Client => "ClientResponse",
            _ => return None,
        };
        let definition = self.definitions.get(union)?;
        let keyword = ["anyOf", "oneOf"]
            .into_iter()
            .find(|keyword| definition.get(keyword).is_some())?;
        let branches = definition.get(keyword)?.as_array()?;
        let (index, branch) = branches
            .iter()
            .enumerate()
            .find(|(_, branch)| branch.get("title").and_then(Value::as_str) == Some(title.as_str()))?;
        if let Some(target) = branch
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/$defs/"))
        {
            return self.names.get(target).cloned();
        }
        if branch.get("type").and_then(Value::as_str) != Some("null") || self.types.contains_key(&title) {
            return None;
        }
        let pointer = format!("/$defs/{}/{keyword}/{index}", pointer_token(union));
        let description = branch.get("description").and_then(Value::as_str).map(str::to_owned);
        self.types.insert(
            title.clone(),
            TypeDef {
                name: title.clone(),
                pointer,
                definition: None,
                description,
                kind: TypeKind::Alias { target: TypeExpr::Null },
            },
        );
        Some(title)
    }

    /// `$defs` key -> role, read from the envelopes the root lists under the
    /// titles `Request`, `Response` and `Notification`.
    fn envelope_roles(&self) -> BTreeMap<&str, Role> {
        let mut roles = BTreeMap::new();
        let sides = self
            .root
            .get("anyOf")
            .or_else(|| self.root.get("oneOf"))
            .and_then(Value::as_array);
        for side in sides.into_iter().flatten() {
            let messages = side
                .get("anyOf")
                .or_else(|| side.get("oneOf"))
                .and_then(Value::as_array);
            for message in messages.into_iter().flatten() {
                let role = match message.get("title").and_then(Value::as_str) {
                    Some("Request") => Role::Request,
                    Some("Response") => Role::Response,
                    Some("Notification") => Role::Notification,
                    _ => continue,
                };
                let Some(envelope) = message
                    .as_object()
                    .and_then(single_reference)
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .and_then(|key| self.definitions.get(key))
                else {
                    continue;
                };
                let payloads: Vec<&Value> = match role {
                    Role::Response => envelope
                        .get("anyOf")
                        .or_else(|| envelope.get("oneOf"))
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|member| member.get("properties").and_then(|p| p.get("result")))
                        .collect(),
                    _ => envelope
                        .get("properties")
                        .and_then(|p| p.get("params"))
                        .into_iter()
                        .collect(),
                };
                for payload in payloads {
                    collect_references(payload, &mut |key| {
                        roles.insert(key, role);
                    });
                }
            }
        }
        roles
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Request,
    Response,
    Notification,
}

fn collect_references<'v>(node: &'v Value, found: &mut impl FnMut(&'v str)) {
    let Value::Object(object) = node else { return };
    if let Some(key) = object
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        found(key);
    }
    for keyword in ["anyOf", "oneOf", "allOf"] {
        for member in object.get(keyword).and_then(Value::as_array).into_iter().flatten() {
            collect_references(member, found);
        }
    }
}

fn integer_format(format: Option<&str>) -> Option<IntegerFormat> {
    Some(match format? {
        "int8" => IntegerFormat::Int8,
        "int16" => IntegerFormat::Int16,
        "int32" => IntegerFormat::Int32,
        "int64" => IntegerFormat::Int64,
        "uint8" => IntegerFormat::Uint8,
        "uint16" => IntegerFormat::Uint16,
        "uint32" => IntegerFormat::Uint32,
        "uint64" | "uint" => IntegerFormat::Uint64,
        _ => return None,
    })
}
