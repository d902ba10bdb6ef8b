//! Negotiation: the IR's capability gates turned into one language-free
//! model of what an `initialize` exchange allows, which every emitter
//! prints as tables beside a small evaluator, and which
//! [`Negotiation::view`] evaluates itself (for `cargo xtask negotiate`).
//!
//! The view it defines is one JSON document, the same in every language:
//! `protocolVersion`, then `agentHandles` and `clientHandles` (every method
//! of each side, baseline ones `true`), the sections `prompt` (content
//! blocks by capability name), `mcp` (transports that need a capability),
//! `updates` (session updates the client must have advertised) and
//! `elicitation` (modes), then `sessionReady`, `turnComplete` and
//! `sessionStatus`. The per-session gates ([`crate::sessions`]) ride along
//! for the emitters; the view does not show them. Omitted, `null` and `false` capabilities mean
//! unsupported; `true` and any object mean supported; an offered gate
//! (`authMethods`) needs a non-empty array.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::ir::{Gate, GateKind, Ir, Side};
use crate::sessions::{self, SessionRule};

/// One distinct gate: which initialize message, which pointer, what it
/// takes there.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Rule {
    /// The side whose initialize message carries it (`agent`: the
    /// response; `client`: the request).
    pub side: Side,
    /// JSON pointer into that message.
    pub pointer: String,
    /// An offered gate needs a non-empty array; a capability a present,
    /// non-false value.
    pub offered: bool,
}

/// What an entry of the view needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Requirement {
    /// Baseline: always true.
    Always,
    /// The schema lacks the feature: always false.
    Never,
    /// True when the rule of this index holds.
    Rule(usize),
}

/// A named entry of the view and what it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub name: String,
    pub needs: Requirement,
}

/// `entries` as the JSON the emitters print: one `[name, needs]` pair each,
/// `needs` being `true` (always), `false` (never) or the index of a rule.
pub fn entries_json(entries: &[Entry]) -> Value {
    let needs = |entry: &Entry| match entry.needs {
        Requirement::Always => Value::Bool(true),
        Requirement::Never => Value::Bool(false),
        Requirement::Rule(rule) => Value::from(rule),
    };
    Value::Array(
        entries
            .iter()
            .map(|entry| Value::Array(vec![Value::from(entry.name.as_str()), needs(entry)]))
            .collect(),
    )
}

/// The reference tokens of a JSON pointer, unescaped, as a JSON array.
pub fn pointer_tokens(pointer: &str) -> Value {
    Value::Array(
        pointer
            .split('/')
            .skip(1)
            .map(|token| Value::from(acp_schema_source::pointer::unescape_token(token)))
            .collect(),
    )
}

/// A section of the view: a member name and its entries, in key order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub name: &'static str,
    pub entries: Vec<Entry>,
}

/// Where a variant or member gate applies when a message is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    pub method: String,
    /// JSON pointer into the params; `*` is every array item.
    pub pointer: String,
    /// The tag member of the gated variant (`None` with a `value`: the item
    /// itself is that string).
    pub tag_property: Option<String>,
    /// The gated variant's tag; `None`: the member's presence is gated.
    pub tag_value: Option<String>,
    pub rule: usize,
}

/// What an `initialize` exchange decides for one schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Negotiation {
    /// The protocol version the bindings implement.
    pub protocol_version: u16,
    /// The canonical names of the `initialize` params and result types.
    pub request_type: String,
    pub response_type: String,
    pub rules: Vec<Rule>,
    pub agent_methods: Vec<Entry>,
    pub client_methods: Vec<Entry>,
    /// `prompt`, `mcp`, `updates`, `elicitation`, in that order.
    pub sections: Vec<Section>,
    /// `sessionReady`, `turnComplete`, `sessionStatus`, in that order.
    pub features: Vec<Entry>,
    /// Outgoing checks of variants and members, in a fixed order.
    pub checks: Vec<Check>,
    /// Methods offered per session, in the answers that open one
    /// ([`crate::sessions`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub session_gates: Vec<SessionRule>,
}

/// Why an `initialize` exchange does not negotiate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NegotiationError {
    #[error("the agent answered protocol version {answered}, above the {requested} the client asked for")]
    VersionAboveRequested { requested: u64, answered: u64 },
    #[error("the agent answered protocol version {answered}; these bindings implement {supported}")]
    UnsupportedVersion { answered: u64, supported: u16 },
    #[error("{message} has no integer protocolVersion")]
    MissingVersion { message: &'static str },
}

/// An outgoing message the negotiated capabilities do not allow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub method: String,
    /// JSON pointer of the offending part of the params (empty: the method).
    pub pointer: String,
    /// The side that did not advertise the capability.
    pub side: Side,
    /// JSON pointer of the capability in that side's initialize message.
    pub capability: String,
}

/// The RFD features and the gate each reads.
const FEATURES: [(&str, Target); 3] = [
    ("sessionReady", Target::Method("session/ready")),
    ("turnComplete", Target::Variant("SessionUpdate/turn_complete")),
    ("sessionStatus", Target::Method("session/status")),
];

enum Target {
    Method(&'static str),
    Variant(&'static str),
}

/// The model for `ir`; `None` when the schema has no `initialize` method or
/// no known capability layout (then there is nothing to negotiate).
pub fn model(ir: &Ir) -> Option<Negotiation> {
    let layout = ir.capability_layout.as_ref()?;
    let initialize = ir.initialize()?.request.as_ref()?;
    let mut rules: Vec<Rule> = Vec::new();
    let mut rule_of = |gate: &Gate| -> usize {
        let rule = Rule {
            side: gate.advertised_by,
            pointer: gate.initialize_pointer.clone(),
            offered: gate.kind == GateKind::Offered,
        };
        match rules.iter().position(|known| *known == rule) {
            Some(index) => index,
            None => {
                rules.push(rule);
                rules.len() - 1
            }
        }
    };
    let mut agent_methods = Vec::new();
    let mut client_methods = Vec::new();
    for method in ir.methods.values() {
        let sides: Vec<Side> = method
            .request
            .iter()
            .map(|request| request.side)
            .chain(method.notification.iter().map(|notification| notification.side))
            .collect();
        let needs = method
            .gate
            .as_ref()
            .map_or(Requirement::Always, |gate| Requirement::Rule(rule_of(gate)));
        let entry = Entry {
            name: method.name.clone(),
            needs,
        };
        if sides
            .iter()
            .any(|side| matches!(side, Side::Agent | Side::Protocol | Side::Both))
        {
            agent_methods.push(entry.clone());
        }
        if sides
            .iter()
            .any(|side| matches!(side, Side::Client | Side::Protocol | Side::Both))
        {
            client_methods.push(entry);
        }
    }
    let mut section = |name: &'static str, union: &str, side: Option<Side>, key_from_capability: bool| {
        let mut entries: Vec<Entry> = ir
            .gated_variants
            .iter()
            .filter(|(key, gate)| {
                key.split_once('/').is_some_and(|(owner, _)| owner == union)
                    && side.is_none_or(|side| gate.advertised_by == side)
            })
            .map(|(key, gate)| {
                let tag = key.split_once('/').map_or(key.as_str(), |(_, tag)| tag);
                let name = if key_from_capability {
                    gate.path.rsplit('/').next().unwrap_or(tag)
                } else {
                    tag
                };
                Entry {
                    name: name.to_owned(),
                    needs: Requirement::Rule(rule_of(gate)),
                }
            })
            .collect();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Section { name, entries }
    };
    let sections = vec![
        section("prompt", "ContentBlock", None, true),
        section("mcp", "McpServer", None, false),
        section("updates", "SessionUpdate", Some(Side::Client), false),
        section("elicitation", "CreateElicitationRequest", None, false),
    ];
    let mut checks = Vec::new();
    // A gate without sites (a variant only results and notifications carry)
    // has no outgoing check and so no rule here; the review still sees it.
    for gate in ir
        .gated_variants
        .values()
        .chain(ir.gated_fields.values())
        .filter(|gate| !gate.sites.is_empty())
    {
        let rule = rule_of(gate);
        for site in &gate.sites {
            checks.push(Check {
                method: site.method.clone(),
                pointer: site.pointer.clone(),
                tag_property: site.variant.as_ref().and_then(|tag| tag.property.clone()),
                tag_value: site.variant.as_ref().map(|tag| tag.value.clone()),
                rule,
            });
        }
    }
    checks.sort_by(|a, b| (&a.method, &a.pointer, &a.tag_value).cmp(&(&b.method, &b.pointer, &b.tag_value)));
    let features = FEATURES
        .iter()
        .map(|(name, target)| {
            let gate = match target {
                Target::Method(method) => ir.methods.get(*method).and_then(|method| method.gate.as_ref()),
                Target::Variant(variant) => ir.gated_variants.get(*variant),
            };
            // A feature the schema lacks is never supported.
            let needs = gate.map_or(Requirement::Never, |gate| Requirement::Rule(rule_of(gate)));
            Entry {
                name: (*name).to_owned(),
                needs,
            }
        })
        .collect();
    Some(Negotiation {
        protocol_version: layout.protocol_version,
        request_type: initialize.params.clone(),
        response_type: initialize.result.clone(),
        rules,
        agent_methods,
        client_methods,
        sections,
        features,
        checks,
        session_gates: sessions::model(ir),
    })
}

impl Negotiation {
    /// Whether `rule` holds for the two initialize messages (wire JSON).
    pub fn holds(&self, rule: usize, request: &Value, response: &Value) -> bool {
        let Some(rule) = self.rules.get(rule) else { return false };
        let message = match rule.side {
            Side::Agent => response,
            _ => request,
        };
        match message.pointer(&rule.pointer) {
            Some(Value::Array(items)) if rule.offered => !items.is_empty(),
            Some(Value::Bool(value)) if !rule.offered => *value,
            Some(Value::Object(_)) => !rule.offered,
            _ => false,
        }
    }

    fn entry_holds(&self, entry: &Entry, request: &Value, response: &Value) -> bool {
        match entry.needs {
            Requirement::Always => true,
            Requirement::Never => false,
            Requirement::Rule(rule) => self.holds(rule, request, response),
        }
    }

    /// The agreed protocol version, or why there is none.
    pub fn agreed_version(&self, request: &Value, response: &Value) -> Result<u64, NegotiationError> {
        let requested =
            request
                .get("protocolVersion")
                .and_then(Value::as_u64)
                .ok_or(NegotiationError::MissingVersion {
                    message: "InitializeRequest",
                })?;
        let answered =
            response
                .get("protocolVersion")
                .and_then(Value::as_u64)
                .ok_or(NegotiationError::MissingVersion {
                    message: "InitializeResponse",
                })?;
        if answered > requested {
            return Err(NegotiationError::VersionAboveRequested { requested, answered });
        }
        if answered != u64::from(self.protocol_version) {
            return Err(NegotiationError::UnsupportedVersion {
                answered,
                supported: self.protocol_version,
            });
        }
        Ok(answered)
    }

    /// The negotiated view of two initialize messages (wire JSON), as the
    /// bindings serialize it.
    pub fn view(&self, request: &Value, response: &Value) -> Result<Value, NegotiationError> {
        let version = self.agreed_version(request, response)?;
        let entries = |entries: &[Entry]| -> Value {
            Value::Object(
                entries
                    .iter()
                    .map(|entry| {
                        (
                            entry.name.clone(),
                            Value::Bool(self.entry_holds(entry, request, response)),
                        )
                    })
                    .collect::<Map<String, Value>>(),
            )
        };
        let mut view = Map::new();
        view.insert("protocolVersion".to_owned(), Value::from(version));
        view.insert("agentHandles".to_owned(), entries(&self.agent_methods));
        view.insert("clientHandles".to_owned(), entries(&self.client_methods));
        for section in &self.sections {
            view.insert(section.name.to_owned(), entries(&section.entries));
        }
        for feature in &self.features {
            view.insert(
                feature.name.clone(),
                Value::Bool(self.entry_holds(feature, request, response)),
            );
        }
        Ok(Value::Object(view))
    }

    /// The first part of an outgoing `method` call or notification with
    /// `params` that the two initialize messages do not allow.
    pub fn check_outgoing(&self, request: &Value, response: &Value, method: &str, params: &Value) -> Option<Refusal> {
        let refusal = |rule: usize, pointer: String| {
            let rule = &self.rules[rule];
            Refusal {
                method: method.to_owned(),
                pointer,
                side: rule.side,
                capability: rule.pointer.clone(),
            }
        };
        let method_rule = self
            .agent_methods
            .iter()
            .chain(&self.client_methods)
            .find(|entry| entry.name == method)
            .and_then(|entry| match entry.needs {
                Requirement::Rule(rule) => Some(rule),
                Requirement::Always | Requirement::Never => None,
            });
        if let Some(rule) = method_rule.filter(|rule| !self.holds(*rule, request, response)) {
            return Some(refusal(rule, String::new()));
        }
        for check in self.checks.iter().filter(|check| check.method == method) {
            if self.holds(check.rule, request, response) {
                continue;
            }
            for (pointer, value) in locate(params, &check.pointer) {
                let gated = match (&check.tag_value, &check.tag_property) {
                    (None, _) => !value.is_null(),
                    (Some(tag), None) => value.as_str() == Some(tag),
                    (Some(tag), Some(property)) => value.get(property).and_then(Value::as_str) == Some(tag),
                };
                if gated {
                    return Some(refusal(check.rule, pointer));
                }
            }
        }
        None
    }
}

/// Every value at `pattern` (`*` = each array item) with its concrete pointer.
pub fn locate<'a>(value: &'a Value, pattern: &str) -> Vec<(String, &'a Value)> {
    let mut found = vec![(String::new(), value)];
    for token in pattern.split('/').skip(1) {
        let mut next = Vec::new();
        for (pointer, value) in found {
            if token == "*" {
                for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                    next.push((format!("{pointer}/{index}"), item));
                }
            } else {
                let key = acp_schema_source::pointer::unescape_token(token);
                if let Some(member) = value.get(&key) {
                    next.push((format!("{pointer}/{token}"), member));
                }
            }
        }
        found = next;
    }
    found
}
