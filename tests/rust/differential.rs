//! Differential test against the official `agent-client-protocol-schema`
//! crate (the pinned release the default schema comes from). For every type
//! present in both, every valid vector is decoded and re-encoded by both
//! sides, and what our types encode is decoded by the official crate.
//! `official_roundtrip` (in this crate's generated `src/lib.rs`) dispatches
//! type names to the official types.

use std::path::PathBuf;

use acp_bindings_differential::official_roundtrip;
use serde_json::Value;

/// `official` is `ours` plus members `ours` leaves out (the official crate
/// writes out defaults that we leave omitted), at any depth.
fn only_adds_members(ours: &Value, official: &Value) -> bool {
    match (ours, official) {
        (Value::Object(ours), Value::Object(official)) => {
            ours.iter().all(|(key, value)| official.get(key).is_some_and(|other| only_adds_members(value, other)))
        }
        (Value::Array(ours), Value::Array(official)) => {
            ours.len() == official.len() && ours.iter().zip(official).all(|(a, b)| only_adds_members(a, b))
        }
        _ => ours == official,
    }
}

/// `value` without members whose value is `null`, at any depth.
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(members.iter().filter(|(_, member)| !member.is_null()).map(|(key, member)| (key.clone(), without_nulls(member))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

#[test]
fn agreement_with_the_official_crate() {
    let folder = PathBuf::from(std::env::var("ACP_VECTORS").expect("ACP_VECTORS names the vector folder"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .collect();
    paths.sort();
    let (mut types, mut compared, mut equal, mut defaults, mut nulls, mut dropped, mut reencoded) = (0, 0, 0, 0, 0, 0, 0);
    let mut mismatches = Vec::new();
    for path in &paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let type_name = file["type"].as_str().unwrap();
        if official_roundtrip(type_name, &Value::Null).is_none() {
            continue;
        }
        types += 1;
        for vector in file["valid"].as_array().unwrap() {
            compared += 1;
            let value = &vector["value"];
            let label = format!("{type_name} / {}", vector["name"].as_str().unwrap_or_default());
            let ours = acp_bindings::roundtrip(type_name, value).map_err(|error| error.to_string());
            let official = official_roundtrip(type_name, value).unwrap();
            match (&ours, &official) {
                (Ok(ours), Ok(official)) if ours == official => equal += 1,
                (Ok(ours), Ok(official)) if only_adds_members(ours, official) => defaults += 1,
                (Ok(ours), Ok(official)) if only_adds_members(&without_nulls(ours), official) => nulls += 1,
                (Ok(ours), Ok(official)) if only_adds_members(official, ours) => {
                    dropped += 1;
                    println!("  official drops members: {label}: ours {ours} / official {official}");
                }
                (Ok(ours), Ok(official)) => mismatches.push(format!("{label}: encodings differ: ours {ours} / official {official}")),
                (Ok(_), Err(error)) => mismatches.push(format!("{label}: only we accept it; official: {error}")),
                (Err(error), Ok(_)) => mismatches.push(format!("{label}: only the official crate accepts it; ours: {error}")),
                (Err(_), Err(_)) => mismatches.push(format!("{label}: both reject a valid vector")),
            }
            if let Ok(ours) = &ours {
                match official_roundtrip(type_name, ours).unwrap() {
                    Ok(_) => reencoded += 1,
                    Err(error) => mismatches.push(format!("{label}: the official crate rejects our encoding: {error}")),
                }
            }
        }
    }
    println!(
        "differential: {types} types, {compared} valid vectors compared: {equal} equal, {defaults} equal modulo members the official crate adds (defaults), \
         {nulls} equal once the explicit nulls the official crate drops are dropped, {dropped} where the official crate drops members the schema allows, \
         {} mismatches; {reencoded} of our encodings decoded by the official crate",
        mismatches.len()
    );
    for mismatch in &mismatches {
        println!("  mismatch: {mismatch}");
    }
    assert!(types > 100, "only {types} types compared");
    assert!(mismatches.is_empty(), "{} unexplained mismatches", mismatches.len());
}
