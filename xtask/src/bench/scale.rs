//! Generation as the schema grows: synthetic schemas of a few thousand
//! definitions (objects with scalar, array and reference members, string
//! enums, tagged unions; each refers back to earlier ones), each generated
//! as a whole process with `--no-rfd`, so that the time and the peak memory
//! per definition show whether generation stays linear.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};
use serde_json::{json, Map, Value};

use super::generation::{everything, time, Timing};
use super::measure::Setup;

/// One schema size and how long generating it took.
pub struct Point {
    pub definitions: usize,
    pub schema_bytes: usize,
    pub timing: Timing,
}

fn name(index: usize) -> String {
    format!("Type{index:05}")
}

fn reference(index: usize) -> Value {
    json!({"$ref": format!("#/$defs/{}", name(index))})
}

/// Definition `index`: every tenth a tagged union, every tenth (shifted) a
/// string enum, the others objects; references point to earlier definitions.
fn definition(index: usize) -> Value {
    let earlier = |back: usize| index.checked_sub(back);
    match index % 10 {
        4 => {
            json!({"type": "string", "enum": ["alpha", "beta", "gamma", "delta", "epsilon"], "description": format!("Enumeration {index}.")})
        }
        9 => {
            let variants: Vec<Value> = ["first", "second", "third"]
                .iter()
                .enumerate()
                .map(|(offset, tag)| {
                    let mut properties = Map::new();
                    properties.insert("kind".to_owned(), json!({"type": "string", "const": tag}));
                    properties.insert(
                        format!("value{offset}"),
                        earlier(offset + 1).map_or_else(|| json!({"type": "string"}), reference),
                    );
                    json!({"type": "object", "properties": properties, "required": ["kind"]})
                })
                .collect();
            json!({"oneOf": variants, "discriminator": {"propertyName": "kind"}, "description": format!("Union {index}.")})
        }
        _ => {
            let mut properties = Map::new();
            properties.insert("name".to_owned(), json!({"type": "string"}));
            properties.insert(
                "count".to_owned(),
                json!({"type": "integer", "format": "uint32", "minimum": 0}),
            );
            properties.insert(
                "labels".to_owned(),
                json!({"type": ["array", "null"], "items": {"type": "string"}}),
            );
            if let Some(previous) = earlier(1) {
                properties.insert(
                    "items".to_owned(),
                    json!({"type": "array", "items": reference(previous)}),
                );
            }
            if let Some(further) = earlier(7) {
                properties.insert("next".to_owned(), reference(further));
            }
            properties.insert(
                "_meta".to_owned(),
                json!({"type": ["object", "null"], "additionalProperties": true}),
            );
            json!({"type": "object", "properties": properties, "required": ["name"], "description": format!("Object {index}.")})
        }
    }
}

/// A schema of `definitions` definitions.
pub fn synthetic(definitions: usize) -> Value {
    let defs: Map<String, Value> = (0..definitions).map(|index| (name(index), definition(index))).collect();
    json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs})
}

/// Times `xtask generate` on synthetic schemas of each size.
pub fn measure(setup: &Setup, xtask: &Path, runs: usize) -> Result<Vec<Point>> {
    let sizes: &[usize] = if setup.quick {
        &[100, 200]
    } else {
        &[1_000, 2_000, 5_000]
    };
    let work = setup.folder.join("generation").join("scale");
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let mut points = Vec::new();
    for &definitions in sizes {
        let schema = work.join(format!("synthetic-{definitions}.json"));
        let text = serde_json::to_string_pretty(&synthetic(definitions))?;
        super::measure::write_if_changed(&schema, &text)?;
        eprintln!("bench: timing generation of {definitions} synthetic definitions");
        let out = work.join(format!("bindings-{definitions}"));
        let timing = time(
            &format!("xtask generate, {definitions} definitions"),
            &everything(),
            runs,
            &|| {
                let mut command = Command::new(xtask);
                command
                    .arg("generate")
                    .arg("--schema")
                    .arg(&schema)
                    .arg("--no-rfd")
                    .arg("--out")
                    .arg(&out)
                    .current_dir(&setup.workspace);
                command
            },
        );
        points.push(Point {
            definitions,
            schema_bytes: text.len(),
            timing,
        });
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use acp_ir::ir::{TypeKind, UnionStyle};
    use acp_ir::lower::{lower, Unsupported};
    use acp_schema_source::{load, RfdSelection, SourceOptions};

    use super::*;

    #[test]
    fn a_synthetic_schema_lowers_with_every_kind_of_definition() {
        let folder = crate::support::scratch::scratch("bench-scale");
        let file = folder.join("synthetic.json");
        std::fs::write(&file, serde_json::to_string(&synthetic(40)).unwrap()).unwrap();
        let schema = load(&SourceOptions {
            schema_file: Some(file),
            rfds: RfdSelection::Nothing,
        })
        .expect("the synthetic schema loads");
        let ir = lower(&schema, Unsupported::Fail).expect("the synthetic schema lowers");
        let kind = |index: usize| {
            &ir.get(&name(index))
                .unwrap_or_else(|| panic!("{} is lowered", name(index)))
                .kind
        };
        assert!(matches!(kind(4), TypeKind::Enum(_)));
        assert!(
            matches!(kind(39), TypeKind::Union(union) if union.variants.len() == 3 && matches!(&union.style, UnionStyle::Tagged { property } if property == "kind"))
        );
        assert!(
            matches!(kind(38), TypeKind::Struct(object) if object.fields.len() == 6),
            "{:?}",
            kind(38)
        );
        assert!(
            matches!(kind(0), TypeKind::Struct(object) if object.fields.len() == 4),
            "the first object refers to nothing before it"
        );
    }
}
