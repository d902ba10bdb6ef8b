//! The benchmark's corpus: the seeded traffic of [`crate::support::traffic`],
//! checked message by message by the `jsonschema` crate against the
//! extended schema, and written as lines of `TypeName<TAB>json` for the
//! language programs to read.

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use acp_schema_source::ExtendedSchema;

use crate::support::traffic::{generate, TYPES};

/// One message: the type it is decoded as and its JSON text.
pub struct Message {
    pub type_name: &'static str,
    pub text: String,
}

/// The corpus, in order, and its size in bytes (JSON text only).
pub struct Corpus {
    pub messages: Vec<Message>,
    pub bytes: usize,
}

/// Checks every message against the schema definition of its type with the
/// `jsonschema` crate; fails on the first that does not validate.
pub fn validate(schema: &ExtendedSchema, messages: &[(&'static str, Value)]) -> Result<()> {
    const DOCUMENT: &str = "urn:acp-codegen:bench";
    let mut registered = schema.document.clone();
    registered["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let registry = jsonschema::Registry::new()
        .add(DOCUMENT, &registered)
        .and_then(jsonschema::RegistryBuilder::prepare)
        .context("preparing the schema for the validator")?;
    let mut validators = Vec::new();
    for type_name in TYPES {
        if schema.document.pointer(&format!("/$defs/{type_name}")).is_none() {
            bail!("the schema defines no `{type_name}`, which the benchmark corpus needs");
        }
        let reference = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": format!("{DOCUMENT}#/$defs/{type_name}")});
        let validator = jsonschema::options()
            .with_registry(&registry)
            .build(&reference)
            .with_context(|| format!("building the validator of {type_name}"))?;
        validators.push((type_name, validator));
    }
    for (index, (type_name, value)) in messages.iter().enumerate() {
        let (_, validator) = validators
            .iter()
            .find(|(name, _)| name == type_name)
            .expect("every corpus type has a validator");
        if let Some(error) = validator.iter_errors(value).next() {
            bail!(
                "corpus message {} ({type_name}) fails the schema at {}: {error}",
                index + 1,
                error.instance_path()
            );
        }
    }
    Ok(())
}

/// Generates, validates and writes the corpus to `path`.
pub fn build(schema: &ExtendedSchema, seed: u64, bytes: usize, path: &Path) -> Result<Corpus> {
    let values = generate(seed, bytes);
    validate(schema, &values)?;
    let messages: Vec<Message> = values
        .into_iter()
        .map(|(type_name, value)| Message {
            type_name,
            text: value.to_string(),
        })
        .collect();
    let mut file = String::new();
    for message in &messages {
        file.push_str(message.type_name);
        file.push('\t');
        file.push_str(&message.text);
        file.push('\n');
    }
    crate::support::output::write_file(path, file.as_bytes())?;
    let bytes = messages.iter().map(|message| message.text.len()).sum();
    Ok(Corpus { messages, bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpus_validates_and_carries_every_type() {
        let schema = acp_schema_source::load(&acp_schema_source::SourceOptions::default()).unwrap();
        let messages = generate(1, 200_000);
        validate(&schema, &messages).unwrap();
        for type_name in TYPES {
            assert!(
                messages.iter().any(|(name, _)| *name == type_name),
                "no {type_name} in the corpus"
            );
        }
    }

    #[test]
    fn a_message_the_schema_refuses_fails_validation() {
        let schema = acp_schema_source::load(&acp_schema_source::SourceOptions::default()).unwrap();
        let broken = vec![(
            "SessionNotification",
            json!({"sessionId": "s", "update": {"sessionUpdate": "plan"}}),
        )];
        let error = validate(&schema, &broken).unwrap_err().to_string();
        assert!(error.contains("corpus message 1 (SessionNotification)"), "{error}");
    }
}
