//! The prose scan: every place a schema's descriptions state a capability
//! gate ("Only available if ...", "MUST NOT send ... unless ... advertised",
//! "MUST only send this update when ...", "Requires the ... capability"),
//! with the subject it is stated for, so a test can insist that each one is
//! annotated in `schema/capabilities.json` (a gate, a session gate, or listed
//! as not negotiated).

use serde_json::Value;

use super::{definitions, member_tag, union_members, CapabilityAnnotations};
use crate::pointer::escape_token;

/// What a gate sentence is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    /// A method (its request or notification, or its envelope entry).
    Method(String),
    /// A union variant, `Union/tag`.
    Variant(String),
    /// An object member, `Type/member`.
    Field(String),
    /// A type's own description (covered by the variants and members that
    /// carry the type).
    Type(String),
}

/// One gate sentence found in a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProseGate {
    pub subject: Subject,
    /// The JSON pointer of the description.
    pub pointer: String,
    pub sentence: String,
}

/// Lower-case phrases that state a gate by themselves.
const PHRASES: [&str; 8] = [
    "only available if",
    "only available when",
    "only available while",
    "must only send",
    "must only use",
    "only send this when",
    "only sent by agents that advertise",
    "must not send it unless",
];

/// Whether one sentence states a gate.
pub fn states_gate(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    PHRASES.iter().any(|phrase| lower.contains(phrase))
        || lower.contains("must not send") && lower.contains("unless") && lower.contains("advertis")
        || lower.contains("requires the") && lower.contains("capability")
}

fn sentences(text: &str) -> Vec<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.split(". ").map(str::to_owned).collect()
}

/// Every gate sentence in `schema`'s `$defs`.
pub fn scan(schema: &Value) -> Vec<ProseGate> {
    let mut found = Vec::new();
    let Some(defs) = definitions(schema) else { return found };
    let mut hit = |subject: Subject, pointer: String, text: Option<&str>| {
        for sentence in sentences(text.unwrap_or_default()) {
            if states_gate(&sentence) {
                found.push(ProseGate {
                    subject: subject.clone(),
                    pointer: pointer.clone(),
                    sentence,
                });
            }
        }
    };
    for (key, definition) in defs {
        let base = format!("/$defs/{}", escape_token(key));
        let subject = match definition.get("x-method").and_then(Value::as_str) {
            Some(method) if !key.ends_with("Response") => Subject::Method(method.to_owned()),
            _ => Subject::Type(key.clone()),
        };
        hit(
            subject,
            format!("{base}/description"),
            definition.get("description").and_then(Value::as_str),
        );
        for (member, property) in definition
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let pointer = format!("{base}/properties/{}/description", escape_token(member));
            hit(
                Subject::Field(format!("{key}/{member}")),
                pointer,
                property.get("description").and_then(Value::as_str),
            );
        }
        let keyword = if definition.get("oneOf").is_some() {
            "oneOf"
        } else {
            "anyOf"
        };
        for (index, member) in union_members(definition).enumerate() {
            let tag = member_tag(member)
                .map(|tag| tag.value)
                .or_else(|| member.get("title").and_then(Value::as_str).map(str::to_owned));
            let Some(tag) = tag else { continue };
            hit(
                Subject::Variant(format!("{key}/{tag}")),
                format!("{base}/{keyword}/{index}/description"),
                member.get("description").and_then(Value::as_str),
            );
        }
        for (index, member) in envelope_members(definition).into_iter().enumerate() {
            let method = reference(member)
                .and_then(|target| defs.get(target))
                .and_then(|target| target.get("x-method"))
                .and_then(Value::as_str);
            if let Some(method) = method {
                let pointer = format!("{base}/properties/params/anyOf/0/anyOf/{index}/description");
                hit(
                    Subject::Method(method.to_owned()),
                    pointer,
                    member.get("description").and_then(Value::as_str),
                );
            }
        }
    }
    found
}

/// The per-method entries of a request or notification envelope.
fn envelope_members(definition: &Value) -> Vec<&Value> {
    definition
        .pointer("/properties/params/anyOf/0/anyOf")
        .and_then(Value::as_array)
        .map(|members| members.iter().collect())
        .unwrap_or_default()
}

fn reference(node: &Value) -> Option<&str> {
    node.get("$ref")
        .or_else(|| node.pointer("/allOf/0/$ref"))
        .and_then(Value::as_str)
        .and_then(|target| target.strip_prefix("#/$defs/"))
}

impl CapabilityAnnotations {
    /// The gate sentences of `schema` whose subject has no annotation and is
    /// not listed as not negotiated.
    pub fn unannotated(&self, schema: &Value) -> Vec<ProseGate> {
        scan(schema)
            .into_iter()
            .filter(|gate| !self.covers(schema, &gate.subject))
            .collect()
    }

    fn covers(&self, schema: &Value, subject: &Subject) -> bool {
        let (name, annotated) = match subject {
            Subject::Method(name) => (
                name,
                self.methods.contains_key(name) || self.session_gates.contains_key(name),
            ),
            Subject::Variant(name) => (name, self.variants.contains_key(name)),
            Subject::Field(name) => (name, self.fields.contains_key(name)),
            Subject::Type(name) => (name, self.carried_by_annotation(schema, name)),
        };
        annotated || self.not_negotiated.contains_key(name)
    }

    /// Whether a gated variant or member of `schema` carries the type `name`.
    fn carried_by_annotation(&self, schema: &Value, name: &str) -> bool {
        let Some(defs) = definitions(schema) else { return false };
        let variants = self.variants.keys().filter_map(|key| {
            let (union, tag) = key.split_once('/')?;
            union_members(defs.get(union)?).find(|member| member_tag(member).is_some_and(|found| found.value == tag))
        });
        let fields = self.fields.keys().filter_map(|key| {
            let (owner, member) = key.split_once('/')?;
            defs.get(owner)?.get("properties")?.get(member)
        });
        variants.chain(fields).any(|node| mentions(node, name))
    }
}

/// Whether `node` refers to `$defs/name` anywhere inside.
fn mentions(node: &Value, name: &str) -> bool {
    match node {
        Value::Object(map) => map.iter().any(|(key, value)| {
            key == "$ref" && value.as_str() == Some(&format!("#/$defs/{name}")) || mentions(value, name)
        }),
        Value::Array(items) => items.iter().any(|item| mentions(item, name)),
        _ => false,
    }
}
