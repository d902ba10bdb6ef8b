//! RFD overlays: one RFC 6902 JSON Patch per RFD under `schema/rfd/`, wrapped
//! with metadata, applied to a base schema one operation at a time so that a
//! failure names the overlay file, the operation index and the JSON pointer.
//!
//! Overlays only add. An `add` whose target already exists in the base is a
//! conflict (for example `session/status` against an upstream unstable schema
//! that defines its own), never a silent replacement.

use serde::Deserialize;
use serde_json::Value;

use crate::error::SourceError;

/// An RFD overlay as stored in `schema/rfd/<id>.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Overlay {
    /// Short name used on the command line (`--rfd session-ready`).
    pub id: String,
    /// The RFD's title.
    pub title: String,
    /// The RFD's status (`draft`, `accepted`, ...).
    pub status: String,
    /// The seed text in `shared/seeds/` the overlay implements.
    pub seed: String,
    /// The JSON Patch itself; `test` operations state its preconditions.
    pub patch: json_patch::Patch,
    /// Where the overlay was read from, for error messages.
    #[serde(skip)]
    pub file: String,
}

const BUILTIN: [(&str, &str); 3] = [
    (
        "schema/rfd/session-ready.json",
        include_str!("../rfd/session-ready.json"),
    ),
    (
        "schema/rfd/turn-complete.json",
        include_str!("../rfd/turn-complete.json"),
    ),
    (
        "schema/rfd/session-status.json",
        include_str!("../rfd/session-status.json"),
    ),
];

impl Overlay {
    /// Parses an overlay document; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Overlay, SourceError> {
        let mut overlay: Overlay = serde_json::from_str(text).map_err(|error| SourceError::Parse {
            file: file.to_owned(),
            line: error.line(),
            column: error.column(),
            message: error.to_string(),
        })?;
        overlay.file = file.to_owned();
        Ok(overlay)
    }

    /// The overlays shipped in `schema/rfd/`, in application order.
    pub fn builtin() -> Vec<Overlay> {
        BUILTIN
            .iter()
            .map(|(file, text)| Overlay::parse(file, text).expect("built-in overlays are checked by tests"))
            .collect()
    }

    /// Applies the overlay to `schema`. On error `schema` may be partly patched;
    /// callers discard it.
    pub fn apply(&self, schema: &mut Value) -> Result<(), SourceError> {
        self.check_method_conflicts(schema)?;
        for (index, operation) in self.patch.0.iter().enumerate() {
            let encoded = serde_json::to_value(operation).unwrap_or(Value::Null);
            let op = encoded.get("op").and_then(Value::as_str).unwrap_or("?").to_owned();
            let pointer = encoded.get("path").and_then(Value::as_str).unwrap_or("").to_owned();
            if op == "add" && adds_over_existing_member(schema, &pointer) {
                return Err(SourceError::OverlayConflict {
                    overlay: self.file.clone(),
                    pointer: pointer.clone(),
                    message: conflict_message(schema, &pointer, encoded.get("value")),
                });
            }
            json_patch::patch(schema, std::slice::from_ref(operation)).map_err(|error| SourceError::Overlay {
                overlay: self.file.clone(),
                index,
                op: op.clone(),
                pointer: pointer.clone(),
                message: match (error.kind, op.as_str()) {
                    (json_patch::PatchErrorKind::TestFailed, _) => {
                        "precondition failed: the base schema does not have the expected value here".to_owned()
                    }
                    (_, "test") => "precondition failed: the base schema has no such location".to_owned(),
                    (kind, _) => format!("{kind} (the base schema has no such location)"),
                },
            })?;
        }
        Ok(())
    }
}

impl Overlay {
    /// An overlay that adds a method the base already defines is a conflict,
    /// reported at the base's definition, before anything is applied.
    fn check_method_conflicts(&self, schema: &Value) -> Result<(), SourceError> {
        let Some(definitions) = schema.get("$defs").and_then(Value::as_object) else {
            return Ok(());
        };
        for operation in &self.patch.0 {
            let json_patch::PatchOperation::Add(add) = operation else {
                continue;
            };
            let Some(method) = add.value.get("x-method").and_then(Value::as_str) else {
                continue;
            };
            let added_name = add.path.to_string();
            let added_name = added_name.rsplit('/').next().unwrap_or_default();
            let clash = definitions.iter().find(|(name, definition)| {
                definition.get("x-method").and_then(Value::as_str) == Some(method)
                    && name_role(name) == name_role(added_name)
            });
            if let Some((name, _)) = clash {
                return Err(SourceError::OverlayConflict {
                    overlay: self.file.clone(),
                    pointer: format!("/$defs/{}", crate::pointer::escape_token(name)),
                    message: format!(
                        "the base schema already defines method `{method}` (as `{name}`); the overlay \
                         defines it again as `{added_name}`. Refusing to merge two definitions of one \
                         method: apply the overlay to a base without it, or leave it out (--rfd / --no-rfd)"
                    ),
                });
            }
        }
        Ok(())
    }
}

/// Request, response or notification, by the `$defs` naming convention.
fn name_role(name: &str) -> &str {
    ["Request", "Response", "Notification"]
        .into_iter()
        .find(|suffix| name.ends_with(suffix))
        .unwrap_or("")
}

/// True when `pointer` names an existing member of an object (an `add` there
/// would replace it).
fn adds_over_existing_member(schema: &Value, pointer: &str) -> bool {
    let Some((parent, _)) = pointer.rsplit_once('/') else {
        return false;
    };
    matches!(schema.pointer(parent), Some(Value::Object(_))) && schema.pointer(pointer).is_some()
}

fn conflict_message(schema: &Value, pointer: &str, added: Option<&Value>) -> String {
    let existing_method = schema.pointer(pointer).and_then(|value| value.get("x-method"));
    let added_method = added.and_then(|value| value.get("x-method"));
    match (existing_method, added_method) {
        (Some(existing), Some(added)) if existing == added => format!(
            "the base schema already defines method {existing} here; the overlay would replace \
             its definition (refusing to merge two different definitions of one method)"
        ),
        _ => "the base schema already defines this; the overlay would replace it".to_owned(),
    }
}

/// Which overlays a command applies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum RfdSelection {
    /// Every built-in overlay (the default).
    #[default]
    All,
    /// None (`--no-rfd`).
    Nothing,
    /// Only the named ones (`--rfd NAME`, repeatable), in built-in order.
    Only(Vec<String>),
}

impl RfdSelection {
    /// Resolves the selection against the built-in overlays.
    pub fn resolve(&self) -> Result<Vec<Overlay>, SourceError> {
        let builtin = Overlay::builtin();
        match self {
            RfdSelection::All => Ok(builtin),
            RfdSelection::Nothing => Ok(Vec::new()),
            RfdSelection::Only(names) => {
                for name in names {
                    if !builtin.iter().any(|overlay| &overlay.id == name) {
                        return Err(SourceError::UnknownRfd {
                            name: name.clone(),
                            known: builtin.iter().map(|o| o.id.as_str()).collect::<Vec<_>>().join(", "),
                        });
                    }
                }
                Ok(builtin
                    .into_iter()
                    .filter(|overlay| names.contains(&overlay.id))
                    .collect())
            }
        }
    }
}
