//! Differential test against the official `agent-client-protocol-schema`
//! crate (the pinned release the default schema comes from). For every type
//! present in both, every valid vector is decoded and re-encoded by both
//! sides, and what our types encode is decoded by the official crate.
//! `official_roundtrip` (in this crate's generated `src/lib.rs`) dispatches
//! type names to the official types.
//!
//! The two encodings may differ only in members, and only as the schema
//! allows: every member the official crate adds must be the schema's default
//! at that place, and every member it drops must be one the schema lets be
//! absent. Both are judged by the member graph `cargo xtask test` derives
//! from the base schema's IR (`ACP_MEMBERS`; its format is documented in
//! `xtask/src/suites/differential.rs`). How many vectors fall in each bucket is
//! committed in [`EXPECTED`], so any change in either side fails the test.

use std::collections::BTreeSet;
use std::path::PathBuf;

use acp_bindings_differential::official_roundtrip;
use serde_json::{json, Value};

/// How many vectors fall in each bucket.
#[derive(Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Types both sides have.
    types: usize,
    /// Valid vectors compared.
    compared: usize,
    /// Encoded identically by both sides.
    equal: usize,
    /// The official crate only adds members, each the schema's default.
    defaults: usize,
    /// The official crate drops explicit `null`s of optional members (and
    /// may add defaults).
    nulls: usize,
    /// The official crate drops optional members that are not `null` (and
    /// may drop `null`s or add defaults).
    dropped: usize,
}

/// The buckets on the default schema's vectors. When the test reports other
/// counts, review the differences it prints; if they are intended (a new pin
/// of the official crate, new vectors), set these to the counts found.
const EXPECTED: Counts = Counts {
    types: 183,
    compared: 936,
    equal: 467,
    defaults: 13,
    nulls: 129,
    dropped: 327,
};

/// One way the official encoding differs from ours, at a path of member
/// names and array indexes.
enum Difference {
    /// A member only the official encoding has, and its value.
    Added(Vec<String>, Value),
    /// A member only our encoding has, and its value.
    Dropped(Vec<String>, Value),
    /// Anything else: another scalar, array length or kind of value.
    Changed(Vec<String>),
}

/// Every difference between `ours` and `official` below `path`.
fn differences(ours: &Value, official: &Value, path: &[String], found: &mut Vec<Difference>) {
    let at = |key: String| [path, &[key]].concat();
    match (ours, official) {
        (Value::Object(ours), Value::Object(official)) => {
            for (key, value) in ours {
                match official.get(key) {
                    Some(other) => differences(value, other, &at(key.clone()), found),
                    None => found.push(Difference::Dropped(at(key.clone()), value.clone())),
                }
            }
            for (key, value) in official.iter().filter(|(key, _)| !ours.contains_key(*key)) {
                found.push(Difference::Added(at(key.clone()), value.clone()));
            }
        }
        (Value::Array(ours), Value::Array(official)) if ours.len() == official.len() => {
            for (index, (a, b)) in ours.iter().zip(official).enumerate() {
                differences(a, b, &at(index.to_string()), found);
            }
        }
        _ if ours == official => {}
        _ => found.push(Difference::Changed(path.to_vec())),
    }
}

/// What the schema says of one member at one place.
struct Member<'a> {
    required: bool,
    default: Option<&'a Value>,
    /// Where the member's value leads in the member graph.
    value: &'a Value,
}

/// The members called `name` of `value`, a value at `node` in the member
/// graph: those the schema names, or when it names none, those it leaves
/// unnamed (map entries, kept extra members, array items).
fn members_called<'a>(graph: &'a Value, node: &'a Value, value: &Value, name: &str) -> Vec<Member<'a>> {
    let (mut named, mut unnamed) = (Vec::new(), Vec::new());
    collect_members(graph, node, value, name, &mut BTreeSet::new(), &mut named, &mut unnamed);
    if named.is_empty() {
        unnamed
    } else {
        named
    }
}

fn collect_members<'a>(
    graph: &'a Value,
    node: &'a Value,
    value: &Value,
    name: &str,
    seen: &mut BTreeSet<&'a str>,
    named: &mut Vec<Member<'a>>,
    unnamed: &mut Vec<Member<'a>>,
) {
    if let Some(type_name) = node["type"].as_str() {
        if seen.insert(type_name) {
            let entry = &graph[type_name];
            // A tagged union's value has the members of the variant its tag
            // names; with an open default, a tag no variant names is the
            // tag-less variant's (the tag one of its unknown members).
            let all = entry["variants"].as_array().into_iter().flatten();
            let mut variants: Vec<&Value> = all
                .clone()
                .filter(|variant| match entry["tag"].as_str() {
                    Some(property) => variant["tag"] == *value.get(property).unwrap_or(&Value::Null),
                    None => true,
                })
                .collect();
            if variants.is_empty() && entry["defaultOpen"] == true {
                variants = all.filter(|variant| variant["tag"].is_null()).collect();
            }
            for shape in std::iter::once(entry).chain(variants) {
                named.extend(
                    shape["members"][name]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|member| Member {
                            required: member["required"] == true,
                            default: member.get("default"),
                            value: &member["value"],
                        }),
                );
                for same in shape["same"].as_array().into_iter().flatten() {
                    collect_members(graph, same, value, name, seen, named, unnamed);
                }
            }
        }
    }
    if let Some(other) = node.get("other") {
        unnamed.push(Member {
            required: false,
            default: None,
            value: other,
        });
    }
    if let Some(items) = node.get("items").filter(|_| value.is_array()) {
        unnamed.push(Member {
            required: true,
            default: None,
            value: items,
        });
    }
}

/// The member or item `segment` of `value` (`null` when it has none).
fn child<'v>(value: &'v Value, segment: &str) -> &'v Value {
    let found = match value {
        Value::Array(items) => segment.parse::<usize>().ok().and_then(|index| items.get(index)),
        _ => value.get(segment),
    };
    found.unwrap_or(&Value::Null)
}

/// The members the schema may have at `path` in `value`, a value at `root`.
fn members_at<'a>(graph: &'a Value, root: &'a Value, value: &Value, path: &[String]) -> Vec<Member<'a>> {
    let (last, parents) = path.split_last().expect("a member path is not empty");
    let mut places = vec![(root, value)];
    for segment in parents {
        places = places
            .into_iter()
            .flat_map(|(node, value)| {
                members_called(graph, node, value, segment)
                    .into_iter()
                    .map(move |member| (member.value, child(value, segment)))
            })
            .collect();
    }
    places
        .into_iter()
        .flat_map(|(node, value)| members_called(graph, node, value, last))
        .collect()
}

/// `path` as a JSON pointer, or `the whole value`.
fn pointer(path: &[String]) -> String {
    if path.is_empty() {
        return "the whole value".to_owned();
    }
    path.iter().map(|segment| format!("/{segment}")).collect()
}

/// Why the schema does not explain `difference` between `ours`, a value at
/// `root`, and the official encoding, if it does not.
fn unexplained(graph: &Value, root: &Value, ours: &Value, difference: &Difference) -> Option<String> {
    match difference {
        Difference::Added(path, value) => {
            let members = members_at(graph, root, ours, path);
            if members.iter().any(|member| member.default == Some(value)) {
                return None;
            }
            let defaults: Vec<String> = members
                .iter()
                .filter_map(|member| member.default.map(Value::to_string))
                .collect();
            Some(if defaults.is_empty() {
                format!(
                    "the official crate adds {} = {value}, where the schema has no default",
                    pointer(path)
                )
            } else {
                format!(
                    "the official crate adds {} = {value}, but the schema's default there is {}",
                    pointer(path),
                    defaults.join(" or ")
                )
            })
        }
        Difference::Dropped(path, _) => {
            let members = members_at(graph, root, ours, path);
            if members.iter().any(|member| !member.required) {
                None
            } else if members.is_empty() {
                Some(format!(
                    "the official crate drops {}, which the schema does not know there",
                    pointer(path)
                ))
            } else {
                Some(format!(
                    "the official crate drops {}, which the schema requires",
                    pointer(path)
                ))
            }
        }
        Difference::Changed(path) => Some(format!("encodings differ at {}", pointer(path))),
    }
}

#[test]
fn agreement_with_the_official_crate() {
    let folder = PathBuf::from(std::env::var("ACP_VECTORS").expect("ACP_VECTORS names the vector folder"));
    let members = PathBuf::from(std::env::var("ACP_MEMBERS").expect("ACP_MEMBERS names the member graph"));
    let graph: Value = serde_json::from_str(&std::fs::read_to_string(members).unwrap()).unwrap();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .collect();
    paths.sort();
    let mut counts = Counts::default();
    let mut reencoded = 0;
    let mut mismatches = Vec::new();
    for path in &paths {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let type_name = file["type"].as_str().unwrap();
        if official_roundtrip(type_name, &Value::Null).is_none() {
            continue;
        }
        counts.types += 1;
        let root = json!({"type": type_name});
        for vector in file["valid"].as_array().unwrap() {
            counts.compared += 1;
            let value = &vector["value"];
            let label = format!("{type_name} / {}", vector["name"].as_str().unwrap_or_default());
            let ours = acp_bindings::roundtrip(type_name, value).map_err(|error| error.to_string());
            let official = official_roundtrip(type_name, value).unwrap();
            match (&ours, &official) {
                (Ok(ours), Ok(official)) => {
                    let mut found = Vec::new();
                    differences(ours, official, &[], &mut found);
                    let problems: Vec<String> = found
                        .iter()
                        .filter_map(|difference| unexplained(&graph, &root, ours, difference))
                        .collect();
                    let dropped = |keep: fn(&Value) -> bool| {
                        found
                            .iter()
                            .any(|difference| matches!(difference, Difference::Dropped(_, value) if keep(value)))
                    };
                    if !problems.is_empty() {
                        mismatches.push(format!(
                            "{label}: {}: ours {ours} / official {official}",
                            problems.join("; ")
                        ));
                    } else if found.is_empty() {
                        counts.equal += 1;
                    } else if dropped(|value| !value.is_null()) {
                        counts.dropped += 1;
                        println!("  official drops members: {label}: ours {ours} / official {official}");
                    } else if dropped(Value::is_null) {
                        counts.nulls += 1;
                    } else {
                        counts.defaults += 1;
                    }
                }
                (Ok(_), Err(error)) => mismatches.push(format!("{label}: only we accept it; official: {error}")),
                (Err(error), Ok(_)) => {
                    mismatches.push(format!("{label}: only the official crate accepts it; ours: {error}"))
                }
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
        "differential: {} types, {} valid vectors compared: {} equal, {} where the official crate adds the schema's defaults, \
         {} where it also drops explicit nulls of optional members, {} where it drops other optional members, \
         {} mismatches; {reencoded} of our encodings decoded by the official crate",
        counts.types,
        counts.compared,
        counts.equal,
        counts.defaults,
        counts.nulls,
        counts.dropped,
        mismatches.len()
    );
    for mismatch in &mismatches {
        println!("  mismatch: {mismatch}");
    }
    assert!(mismatches.is_empty(), "{} unexplained mismatches", mismatches.len());
    assert!(
        counts == EXPECTED,
        "the buckets changed: expected {EXPECTED:?}, found {counts:?}; review the differences above and, if they are intended, \
         set EXPECTED in tests/rust/differential.rs to the counts found"
    );
}
