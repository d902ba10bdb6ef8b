//! The semantic diff of two IRs: every type, member, variant, enum value,
//! method and capability gate added, removed or changed, each as a
//! [`Change`] under one [`Rule`]. A type removed and another added with the
//! same shape is a rename, and members that refer to it are not changed by
//! it; so is a method removed and another added with the same payloads.

use std::collections::BTreeMap;

use serde_json::Value;

use super::rules::Rule;
use acp_ir::ir::*;

/// What changed where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub rule: Rule,
    pub subject: Subject,
    /// What changed, in words (`optional -> required`).
    pub detail: String,
}

/// Where a change is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// A type, or a member or variant of one.
    Type {
        name: String,
        variant: Option<String>,
        member: Option<String>,
    },
    Method {
        name: String,
    },
}

impl Subject {
    fn of_type(name: &str) -> Subject {
        Subject::Type {
            name: name.to_owned(),
            variant: None,
            member: None,
        }
    }

    fn with_member(&self, member: &str) -> Subject {
        match self {
            Subject::Type { name, variant, .. } => Subject::Type {
                name: name.clone(),
                variant: variant.clone(),
                member: Some(member.to_owned()),
            },
            Subject::Method { .. } => self.clone(),
        }
    }

    fn with_variant(name: &str, variant: &str) -> Subject {
        Subject::Type {
            name: name.to_owned(),
            variant: Some(variant.to_owned()),
            member: None,
        }
    }

    /// `PromptRequest.prompt`, `SessionUpdate[plan].entries`, `method session/ready`.
    pub fn describe(&self) -> String {
        match self {
            Subject::Type { name, variant, member } => {
                let mut text = name.clone();
                if let Some(variant) = variant {
                    text.push_str(&format!("[{variant}]"));
                }
                if let Some(member) = member {
                    text.push_str(&format!(".{member}"));
                }
                text
            }
            Subject::Method { name } => format!("method {name}"),
        }
    }
}

/// Every change from `base` to `head`, in a stable order.
pub fn diff(base: &Ir, head: &Ir) -> Vec<Change> {
    let mut differ = Differ {
        base,
        head,
        renamed: BTreeMap::new(),
        changes: Vec::new(),
    };
    differ.types();
    differ.methods();
    differ.variant_gates();
    differ
        .changes
        .sort_by(|left, right| (&left.subject, left.rule).cmp(&(&right.subject, right.rule)));
    differ.changes
}

struct Differ<'a> {
    base: &'a Ir,
    head: &'a Ir,
    /// Base type name -> head type name, for renamed types.
    renamed: BTreeMap<String, String>,
    changes: Vec<Change>,
}

impl Differ<'_> {
    fn push(&mut self, rule: Rule, subject: Subject, detail: impl Into<String>) {
        self.changes.push(Change {
            rule,
            subject,
            detail: detail.into(),
        });
    }

    /// A base type expression as the head would name it.
    fn renamed_expr(&self, expression: &TypeExpr) -> TypeExpr {
        let mut value = serde_json::to_value(expression).expect("the IR serializes");
        rename_in(&mut value, &self.renamed);
        serde_json::from_value(value).expect("renaming keeps the shape")
    }

    fn renamed_name(&self, name: &str) -> String {
        self.renamed.get(name).cloned().unwrap_or_else(|| name.to_owned())
    }

    // ---- types ------------------------------------------------------------

    fn types(&mut self) {
        let removed: Vec<&TypeDef> = self
            .base
            .types
            .values()
            .filter(|definition| !self.head.types.contains_key(&definition.name))
            .collect();
        let added: Vec<&TypeDef> = self
            .head
            .types
            .values()
            .filter(|definition| !self.base.types.contains_key(&definition.name))
            .collect();
        let mut unmatched: Vec<&TypeDef> = added.clone();
        for old in &removed {
            let shape = serde_json::to_value(&old.kind).expect("the IR serializes");
            match unmatched
                .iter()
                .position(|new| serde_json::to_value(&new.kind).ok().as_ref() == Some(&shape))
            {
                Some(position) => {
                    let new = unmatched.remove(position);
                    self.renamed.insert(old.name.clone(), new.name.clone());
                    self.push(
                        Rule::TypeRenamed,
                        Subject::of_type(&new.name),
                        format!("renamed from {}", old.name),
                    );
                }
                None => self.push(Rule::TypeRemoved, Subject::of_type(&old.name), "removed"),
            }
        }
        for new in unmatched {
            self.push(Rule::TypeAdded, Subject::of_type(&new.name), kind_name(&new.kind));
        }
        for (name, old) in &self.base.types {
            if let Some(new) = self.head.get(name) {
                self.type_change(name, &old.kind, &new.kind);
            }
        }
    }

    fn type_change(&mut self, name: &str, old: &TypeKind, new: &TypeKind) {
        let subject = Subject::of_type(name);
        match (old, new) {
            (TypeKind::Struct(old), TypeKind::Struct(new)) => {
                let old_flatten: Vec<String> = old.flatten.iter().map(|base| self.renamed_name(base)).collect();
                if old_flatten != new.flatten {
                    self.push(
                        Rule::FieldTypeChanged,
                        subject.clone(),
                        format!("merged members: {old_flatten:?} -> {:?}", new.flatten),
                    );
                }
                self.additional(&subject, &old.additional, &new.additional);
                self.fields(&subject, &old.fields, &new.fields);
            }
            (TypeKind::Alias { target: old }, TypeKind::Alias { target: new }) => self.expression(&subject, old, new),
            (TypeKind::Enum(old), TypeKind::Enum(new)) => self.enumeration(&subject, old, new),
            (TypeKind::Union(old), TypeKind::Union(new)) => self.union(name, old, new),
            _ => self.push(
                Rule::TypeKindChanged,
                subject,
                format!("{} -> {}", kind_name(old), kind_name(new)),
            ),
        }
    }

    fn additional(&mut self, subject: &Subject, old: &AdditionalProperties, new: &AdditionalProperties) {
        match (old, new) {
            (AdditionalProperties::Denied, AdditionalProperties::Denied) => {}
            (_, AdditionalProperties::Denied) => {
                self.push(Rule::ObjectClosed, subject.clone(), "unknown members now rejected")
            }
            (AdditionalProperties::Denied, _) => {
                self.push(Rule::ObjectOpened, subject.clone(), "unknown members now allowed")
            }
            (AdditionalProperties::Kept(old), AdditionalProperties::Kept(new)) => {
                self.expression(&subject.with_member("*"), old, new)
            }
        }
    }

    fn fields(&mut self, subject: &Subject, old: &[Field], new: &[Field]) {
        for field in old {
            let member = subject.with_member(&field.wire_name);
            match new.iter().find(|candidate| candidate.wire_name == field.wire_name) {
                None if field.required => self.push(Rule::FieldRequiredRemoved, member, "required member removed"),
                None => self.push(Rule::FieldOptionalRemoved, member, "optional member removed"),
                Some(other) => self.field(member, field, other),
            }
        }
        for field in new
            .iter()
            .filter(|field| !old.iter().any(|candidate| candidate.wire_name == field.wire_name))
        {
            let member = subject.with_member(&field.wire_name);
            if field.required {
                self.push(
                    Rule::FieldRequiredAdded,
                    member,
                    format!("required {}", expression_name(&field.ty)),
                );
            } else {
                self.push(
                    Rule::FieldOptionalAdded,
                    member,
                    format!("optional {}", expression_name(&field.ty)),
                );
            }
        }
    }

    fn field(&mut self, member: Subject, old: &Field, new: &Field) {
        match (old.required, new.required) {
            (false, true) => self.push(Rule::FieldNowRequired, member.clone(), "optional -> required"),
            (true, false) => self.push(Rule::FieldNowOptional, member.clone(), "required -> optional"),
            _ => {}
        }
        match (old.nullable, new.nullable) {
            (false, true) => self.push(Rule::FieldNowNullable, member.clone(), "now accepts null"),
            (true, false) => self.push(Rule::FieldNoLongerNullable, member.clone(), "no longer accepts null"),
            _ => {}
        }
        self.expression(&member, &old.ty, &new.ty);
        if old.default != new.default {
            self.push(
                Rule::FieldDefaultChanged,
                member.clone(),
                format!(
                    "default {} -> {}",
                    json_or_none(&old.default),
                    json_or_none(&new.default)
                ),
            );
        }
        // The fallback only matters where a rule discards a value.
        if old.decode != new.decode || (old.decode != DecodeRules::default() && old.fallback != new.fallback) {
            self.push(
                Rule::FieldDecodeRuleChanged,
                member,
                format!("{} -> {}", rules_text(old), rules_text(new)),
            );
        }
    }

    fn expression(&mut self, subject: &Subject, old: &TypeExpr, new: &TypeExpr) {
        let old = self.renamed_expr(old);
        if shape(&old) != shape(new) {
            self.push(
                Rule::FieldTypeChanged,
                subject.clone(),
                format!("{} -> {}", expression_name(&old), expression_name(new)),
            );
        } else if &old != new {
            self.push(
                Rule::FieldConstraintChanged,
                subject.clone(),
                format!("{} -> {}", constraints(&old), constraints(new)),
            );
        }
    }

    fn enumeration(&mut self, subject: &Subject, old: &EnumType, new: &EnumType) {
        if old.repr != new.repr {
            self.push(Rule::TypeKindChanged, subject.clone(), "enum values changed JSON type");
            return;
        }
        let open = new.other.is_some();
        for value in &new.values {
            if !old.values.iter().any(|candidate| candidate.value == value.value) {
                let rule = if old.other.is_some() {
                    Rule::EnumValueAddedOpen
                } else {
                    Rule::EnumValueAddedClosed
                };
                self.push(rule, subject.clone(), format!("value {} added", value.value));
            }
        }
        for value in &old.values {
            if !new.values.iter().any(|candidate| candidate.value == value.value) {
                let rule = if open {
                    Rule::EnumValueRemovedOpen
                } else {
                    Rule::EnumValueRemovedClosed
                };
                self.push(rule, subject.clone(), format!("value {} removed", value.value));
            }
        }
        match (old.other.is_some(), open) {
            (true, false) => self.push(Rule::EnumClosed, subject.clone(), "open -> closed"),
            (false, true) => self.push(Rule::EnumOpened, subject.clone(), "closed -> open"),
            _ => {}
        }
    }

    fn union(&mut self, name: &str, old: &UnionType, new: &UnionType) {
        let subject = Subject::of_type(name);
        // Routing unions list method payloads: their changes are the
        // methods' own, one finding each.
        if routes_methods(self.base, old) && routes_methods(self.head, new) {
            return;
        }
        if old.style != new.style {
            self.push(
                Rule::TypeKindChanged,
                subject,
                format!("union style {:?} -> {:?}", old.style, new.style),
            );
            return;
        }
        // The JSON-RPC method picks a variant of these: their changes are
        // the methods' own.
        if new.style == UnionStyle::ByMethod {
            return;
        }
        for variant in &new.variants {
            if find_variant(old, variant).is_none() {
                let label = variant.label().to_owned();
                let gate = self.head.gated_variants.get(&format!("{name}/{label}"));
                let (rule, detail) = match (gate, &old.other) {
                    (Some(gate), _) => (Rule::VariantAddedGated, format!("added, gated by {}", gate_text(gate))),
                    (None, Some(_)) => (Rule::VariantAddedExtensible, "added to an extensible union".to_owned()),
                    (None, None) => (Rule::VariantAddedClosed, "added to a closed union, ungated".to_owned()),
                };
                self.push(rule, Subject::with_variant(name, &label), detail);
            }
        }
        for variant in &old.variants {
            let label = variant.label().to_owned();
            match find_variant(new, variant) {
                None => {
                    let rule = if new.other.is_some() {
                        Rule::VariantRemovedExtensible
                    } else {
                        Rule::VariantRemovedClosed
                    };
                    self.push(rule, Subject::with_variant(name, &label), "removed");
                }
                Some(other) => self.payload(&Subject::with_variant(name, &label), &variant.payload, &other.payload),
            }
        }
        match (old.other.is_some(), new.other.is_some()) {
            (true, false) => self.push(Rule::UnionClosed, Subject::of_type(name), "extensible -> closed"),
            (false, true) => self.push(Rule::UnionOpened, Subject::of_type(name), "closed -> extensible"),
            _ => {}
        }
    }

    fn payload(&mut self, subject: &Subject, old: &Payload, new: &Payload) {
        match (old, new) {
            (Payload::Unit, Payload::Unit) => {}
            (Payload::Type { ty: old }, Payload::Type { ty: new }) => self.expression(subject, old, new),
            (
                Payload::Struct {
                    base: old_base,
                    fields: old_fields,
                },
                Payload::Struct {
                    base: new_base,
                    fields: new_fields,
                },
            ) => {
                let old_base = old_base.as_deref().map(|base| self.renamed_name(base));
                if old_base.as_ref() != new_base.as_ref() {
                    self.push(
                        Rule::FieldTypeChanged,
                        subject.clone(),
                        format!(
                            "payload {} -> {}",
                            old_base.unwrap_or_default(),
                            new_base.clone().unwrap_or_default()
                        ),
                    );
                }
                self.fields(subject, old_fields, new_fields);
            }
            _ => self.push(Rule::FieldTypeChanged, subject.clone(), "payload changed shape"),
        }
    }

    // ---- methods and gates --------------------------------------------------

    fn methods(&mut self) {
        let removed: Vec<&Method> = self
            .base
            .methods
            .values()
            .filter(|method| !self.head.methods.contains_key(&method.name))
            .collect();
        let mut added: Vec<&Method> = self
            .head
            .methods
            .values()
            .filter(|method| !self.base.methods.contains_key(&method.name))
            .collect();
        for old in removed {
            let payloads = self.payloads(old);
            match added.iter().position(|new| method_payloads(new) == payloads) {
                Some(position) => {
                    let new = added.remove(position);
                    self.push(
                        Rule::MethodRenamed,
                        Subject::Method { name: new.name.clone() },
                        format!("renamed from {}", old.name),
                    );
                }
                None => self.push(
                    Rule::MethodRemoved,
                    Subject::Method { name: old.name.clone() },
                    "removed",
                ),
            }
        }
        for new in added {
            match &new.gate {
                Some(gate) => self.push(
                    Rule::MethodAddedGated,
                    Subject::Method { name: new.name.clone() },
                    format!("added, gated by {}", gate_text(gate)),
                ),
                None => self.push(
                    Rule::MethodAdded,
                    Subject::Method { name: new.name.clone() },
                    "added, ungated",
                ),
            }
        }
        for (name, old) in &self.base.methods {
            let Some(new) = self.head.methods.get(name) else {
                continue;
            };
            let subject = Subject::Method { name: name.clone() };
            let sides = |method: &Method| {
                (
                    method.request.as_ref().map(|request| request.side),
                    method.notification.as_ref().map(|notification| notification.side),
                )
            };
            let (old_sides, new_sides) = (sides(old), sides(new));
            let (old_payloads, new_payloads) = (self.payloads(old), method_payloads(new));
            if (old_sides.0.is_some(), old_sides.1.is_some()) != (new_sides.0.is_some(), new_sides.1.is_some()) {
                self.push(Rule::MethodKindChanged, subject.clone(), "request/notification changed");
            } else {
                if old_sides != new_sides {
                    self.push(
                        Rule::MethodSideChanged,
                        subject.clone(),
                        format!("handled by {old_sides:?} -> {new_sides:?}"),
                    );
                }
                if old_payloads != new_payloads {
                    self.push(
                        Rule::MethodPayloadChanged,
                        subject.clone(),
                        format!("{} -> {}", old_payloads.join(", "), new_payloads.join(", ")),
                    );
                }
            }
            self.gate(
                subject,
                old.gate.as_ref(),
                new.gate.as_ref(),
                Rule::MethodGateAdded,
                Rule::MethodGateRemoved,
            );
        }
    }

    /// A base method's payload type names as the head would name them.
    fn payloads(&self, method: &Method) -> Vec<String> {
        method_payloads(method)
            .iter()
            .map(|name| self.renamed_name(name))
            .collect()
    }

    fn gate(&mut self, subject: Subject, old: Option<&Gate>, new: Option<&Gate>, added: Rule, removed: Rule) {
        match (old, new) {
            (None, Some(gate)) => self.push(added, subject, format!("now gated by {}", gate_text(gate))),
            (Some(gate), None) => self.push(removed, subject, format!("no longer gated by {}", gate_text(gate))),
            (Some(old), Some(new)) if old != new => self.push(
                Rule::GateChanged,
                subject,
                format!("{} -> {}", gate_text(old), gate_text(new)),
            ),
            _ => {}
        }
    }

    /// Gates on variants that both sides have (a new variant's gate is part
    /// of its own change).
    fn variant_gates(&mut self) {
        let keys: Vec<&String> = self
            .base
            .gated_variants
            .keys()
            .chain(self.head.gated_variants.keys())
            .collect();
        let mut seen = std::collections::BTreeSet::new();
        for key in keys {
            if !seen.insert(key.clone()) {
                continue;
            }
            let Some((union, label)) = key.split_once('/') else {
                continue;
            };
            if !has_variant(self.base, union, label) || !has_variant(self.head, union, label) {
                continue;
            }
            let subject = Subject::with_variant(union, label);
            self.gate(
                subject,
                self.base.gated_variants.get(key),
                self.head.gated_variants.get(key),
                Rule::VariantGateAdded,
                Rule::VariantGateRemoved,
            );
        }
    }
}

fn has_variant(ir: &Ir, union: &str, label: &str) -> bool {
    matches!(ir.get(union).map(|definition| &definition.kind), Some(TypeKind::Union(union)) if union.variants.iter().any(|variant| variant.label() == label))
}

/// A union whose alternatives are all method payloads (or an early
/// release's inline `null` result, or an extension method's any JSON): the
/// routing unions `AgentRequest`,
/// `ClientResponse` and the like, whatever style a release wrote them in.
fn routes_methods(ir: &Ir, union: &UnionType) -> bool {
    let payloads: Vec<String> = ir.methods.values().flat_map(method_payloads).collect();
    let mut named = 0;
    for variant in &union.variants {
        match &variant.payload {
            Payload::Type {
                ty: TypeExpr::Named { name },
            } if payloads.contains(name) => named += 1,
            Payload::Type {
                ty: TypeExpr::Null | TypeExpr::Any | TypeExpr::Untyped { .. },
            } => {}
            _ => return false,
        }
    }
    named > 0
}

fn method_payloads(method: &Method) -> Vec<String> {
    let mut payloads = Vec::new();
    if let Some(request) = &method.request {
        payloads.push(request.params.clone());
        payloads.push(request.result.clone());
    }
    if let Some(notification) = &method.notification {
        payloads.push(notification.params.clone());
    }
    payloads
}

fn find_variant<'a>(union: &'a UnionType, variant: &Variant) -> Option<&'a Variant> {
    union
        .variants
        .iter()
        .find(|candidate| candidate.label() == variant.label())
}

fn rename_in(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(members) => {
            let named = members.get("type").and_then(Value::as_str) == Some("named");
            for (key, member) in members.iter_mut() {
                match member {
                    Value::String(name) if named && key == "name" => {
                        if let Some(new) = renamed.get(name.as_str()) {
                            *name = new.clone();
                        }
                    }
                    _ => rename_in(member, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rename_in(item, renamed)),
        _ => {}
    }
}

/// A type expression without its constraints.
fn shape(expression: &TypeExpr) -> TypeExpr {
    match expression {
        TypeExpr::String(string) => TypeExpr::String(StringType {
            format: string.format.clone(),
            content_encoding: string.content_encoding.clone(),
            ..StringType::default()
        }),
        TypeExpr::Integer(integer) => TypeExpr::Integer(IntegerType {
            format: integer.format,
            minimum: None,
            maximum: None,
        }),
        TypeExpr::Number(number) => TypeExpr::Number(NumberType {
            format: number.format,
            minimum: None,
            maximum: None,
        }),
        TypeExpr::Array(array) => TypeExpr::Array(ArrayType {
            items: Box::new(shape(&array.items)),
            min_items: None,
            max_items: None,
        }),
        TypeExpr::Map { values } => TypeExpr::Map {
            values: Box::new(shape(values)),
        },
        TypeExpr::Nullable { inner } => TypeExpr::Nullable {
            inner: Box::new(shape(inner)),
        },
        other => other.clone(),
    }
}

fn kind_name(kind: &TypeKind) -> &'static str {
    match kind {
        TypeKind::Struct(_) => "object",
        TypeKind::Alias { .. } => "alias",
        TypeKind::Enum(enumeration) if enumeration.other.is_some() => "open enum",
        TypeKind::Enum(_) => "closed enum",
        TypeKind::Union(union) if union.other.is_some() => "extensible union",
        TypeKind::Union(_) => "union",
    }
}

/// `string`, `PromptRequest`, `array of ContentBlock`, `map of Value`.
pub fn expression_name(expression: &TypeExpr) -> String {
    match expression {
        TypeExpr::Named { name } => name.clone(),
        TypeExpr::Any | TypeExpr::Untyped { .. } => "any JSON".to_owned(),
        TypeExpr::Null => "null".to_owned(),
        TypeExpr::Boolean => "boolean".to_owned(),
        TypeExpr::String(_) => "string".to_owned(),
        TypeExpr::Integer(_) => "integer".to_owned(),
        TypeExpr::Number(_) => "number".to_owned(),
        TypeExpr::Array(array) => format!("array of {}", expression_name(&array.items)),
        TypeExpr::Map { values } => format!("map of {}", expression_name(values)),
        TypeExpr::Nullable { inner } => format!("{} or null", expression_name(inner)),
    }
}

fn constraints(expression: &TypeExpr) -> String {
    let text = |pairs: Vec<(&str, Option<String>)>| {
        let parts: Vec<String> = pairs
            .into_iter()
            .filter_map(|(name, value)| value.map(|value| format!("{name} {value}")))
            .collect();
        if parts.is_empty() {
            "unconstrained".to_owned()
        } else {
            parts.join(", ")
        }
    };
    match expression {
        TypeExpr::String(string) => text(vec![
            ("minLength", string.min_length.map(|value| value.to_string())),
            ("maxLength", string.max_length.map(|value| value.to_string())),
            ("pattern", string.pattern.clone()),
        ]),
        TypeExpr::Integer(integer) => text(vec![
            ("minimum", integer.minimum.as_ref().map(ToString::to_string)),
            ("maximum", integer.maximum.as_ref().map(ToString::to_string)),
        ]),
        TypeExpr::Number(number) => text(vec![
            ("minimum", number.minimum.as_ref().map(ToString::to_string)),
            ("maximum", number.maximum.as_ref().map(ToString::to_string)),
        ]),
        TypeExpr::Array(array) => format!(
            "{} of {}",
            text(vec![
                ("minItems", array.min_items.map(|value| value.to_string())),
                ("maxItems", array.max_items.map(|value| value.to_string()))
            ]),
            constraints(&array.items)
        ),
        TypeExpr::Map { values } => constraints(values),
        TypeExpr::Nullable { inner } => constraints(inner),
        _ => "unconstrained".to_owned(),
    }
}

fn json_or_none(value: &Option<Value>) -> String {
    value.as_ref().map_or_else(|| "none".to_owned(), ToString::to_string)
}

fn rules_text(field: &Field) -> String {
    let mut rules = Vec::new();
    if field.decode.default_on_error {
        rules.push("default-on-error");
    }
    if field.decode.default_on_null {
        rules.push("default-on-null");
    }
    if field.decode.skip_invalid_items {
        rules.push("skip-invalid-items");
    }
    if rules.is_empty() {
        "no rule".to_owned()
    } else {
        let fallback = match &field.fallback {
            Fallback::Absent => "absent".to_owned(),
            Fallback::Value(value) => value.to_string(),
            Fallback::Reject => "reject".to_owned(),
        };
        format!("{} (falls back to {fallback})", rules.join(", "))
    }
}

/// `the client's ClientCapabilities/plan`.
pub fn gate_text(gate: &Gate) -> String {
    format!(
        "`{}{}` ({} advertises)",
        gate.root,
        gate.path,
        gate.advertised_by.as_str()
    )
}
