//! Runs every shared vector through the generated Rust bindings' by-name
//! codec: valid values round-trip unchanged, invalid ones fail with an error
//! whose `path` is exactly the vector's `pointer`, lenient ones decode to
//! their expected value. `ACP_VECTORS` names the
//! vector folder; `cargo xtask test` builds this against each generated crate.

use std::path::PathBuf;

use serde_json::Value;

#[test]
fn every_vector() {
    let folder = PathBuf::from(std::env::var("ACP_VECTORS").expect("ACP_VECTORS names the vector folder"));
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no vectors in {}", folder.display());
    let (mut passed, mut failures) = (0usize, Vec::new());
    for path in &paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let type_name = file["type"].as_str().unwrap();
        for vector in file["valid"].as_array().unwrap() {
            match acp_bindings::roundtrip(type_name, &vector["value"]) {
                Ok(encoded) if encoded == vector["value"] => passed += 1,
                Ok(encoded) => failures.push(format!("{type_name} / {}: re-encoded to {encoded}", vector["name"])),
                Err(error) => failures.push(format!("{type_name} / {}: {error}", vector["name"])),
            }
        }
        for vector in file["invalid"].as_array().unwrap() {
            let name = vector["name"].as_str().unwrap();
            let pointer = vector["pointer"]
                .as_str()
                .expect("every invalid vector names its pointer");
            match acp_bindings::roundtrip(type_name, &vector["value"]) {
                Ok(encoded) => failures.push(format!("{type_name} / {name}: accepted as {encoded}")),
                Err(error) if error.path == pointer => passed += 1,
                Err(error) => failures.push(format!(
                    "{type_name} / {name}: the error is at {:?}, expected {pointer:?}: {error}",
                    error.path
                )),
            }
        }
        for vector in file["lenient"].as_array().unwrap() {
            match acp_bindings::roundtrip(type_name, &vector["value"]) {
                Ok(encoded) if encoded == vector["expected"] => passed += 1,
                Ok(encoded) => failures.push(format!(
                    "{type_name} / {}: decoded to {encoded}, expected {}",
                    vector["name"], vector["expected"]
                )),
                Err(error) => failures.push(format!("{type_name} / {}: {error}", vector["name"])),
            }
        }
    }
    println!("rust vectors: {passed} passed, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        passed + failures.len(),
        failures.join("\n")
    );
}
