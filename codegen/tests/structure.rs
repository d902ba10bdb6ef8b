//! The stage crates' and xtask's modules form no import circle: no file uses a path
//! into a module that (directly or through others) uses a path back into it.
//! A parent module that dispatches to its children and also serves them
//! helpers counts as a circle too; shared pieces live in leaf modules.
//! Test modules (everything from a file's first `#[cfg(test)]`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each crate checked, with its folder beside this one's.
const CRATES: [(&str, &str); 6] = [
    ("acp-ir", "ir"),
    ("acp-vectors", "vectors"),
    ("acp-generate", "generate"),
    ("acp-review", "review"),
    ("acp-trace", "trace"),
    ("xtask", "../xtask"),
];

/// Every `.rs` file under `src`, with its module path (`emit::python::types`).
fn modules(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut found = BTreeMap::new();
    let mut pending = vec![src.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|extension| extension != "rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut segments: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
                segments.pop();
            }
            found.insert(segments, path);
        }
    }
    found
}

/// The text without comments, literals and the contents of `quote!`
/// invocations (whose paths belong to the generated crate).
fn code(text: &str) -> String {
    without_quotes(&without_literals(text))
}

fn without_quotes(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("quote!") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "quote!".len()..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (index, character) in after.char_indices() {
            match character {
                '(' | '{' | '[' => depth += 1,
                ')' | '}' | ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = index + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(" quoted ");
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The text without comments, string and character literals.
fn without_literals(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut index = 0;
    while index < bytes.len() {
        let rest = &text[index..];
        if rest.starts_with("//") {
            index += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            index += rest.find("*/").map_or(rest.len(), |end| end + 2);
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].chars().take_while(|c| *c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let open = 2 + hashes;
            index += open
                + rest[open..]
                    .find(&close)
                    .map_or(rest.len() - open, |end| end + close.len());
            out.push_str(" \"\" ");
        } else if rest.starts_with('"') {
            let mut end = 1;
            while end < rest.len() && bytes[index + end] != b'"' {
                end += if bytes[index + end] == b'\\' { 2 } else { 1 };
            }
            index += end + 1;
            out.push_str(" \"\" ");
        } else if rest.starts_with('\'') && (rest[1..].starts_with('\\') || rest[1..].chars().nth(1) == Some('\'')) {
            let skip = if rest[1..].starts_with('\\') {
                rest[2..].find('\'').map_or(rest.len(), |end| end + 3)
            } else {
                rest.chars().take(3).map(char::len_utf8).sum()
            };
            index += skip;
            out.push_str(" ' ");
        } else {
            let character = rest.chars().next().unwrap();
            out.push(character);
            index += character.len_utf8();
        }
    }
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Path,
    Open,
    Close,
    Comma,
    Other(char),
}

fn tokens(code: &str) -> Vec<Token> {
    let mut found = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((start, character)) = chars.next() {
        if character.is_alphabetic() || character == '_' {
            let mut end = start + character.len_utf8();
            while let Some((at, next)) = chars.peek().copied() {
                if !(next.is_alphanumeric() || next == '_') {
                    break;
                }
                end = at + next.len_utf8();
                chars.next();
            }
            found.push(Token::Ident(code[start..end].to_owned()));
        } else if character == ':' && chars.peek().map(|(_, next)| *next) == Some(':') {
            chars.next();
            found.push(Token::Path);
        } else if character == '{' {
            found.push(Token::Open);
        } else if character == '}' {
            found.push(Token::Close);
        } else if character == ',' {
            found.push(Token::Comma);
        } else if !character.is_whitespace() {
            found.push(Token::Other(character));
        }
    }
    found
}

const DECLARING: [&str; 9] = ["mod", "fn", "struct", "enum", "type", "const", "static", "trait", "let"];

/// Every path written in `tokens`, `use` groups expanded one level per
/// brace, each with whether a `use` declaration wrote it.
fn paths(tokens: &[Token]) -> Vec<(Vec<String>, bool)> {
    let mut found = Vec::new();
    let mut index = 0;
    while index < tokens.len() {
        // A name after `::` continues a path; after `.` it is a field or a
        // method; after `mod`, `fn` and the like it is declared, not used.
        let starts = matches!(tokens[index], Token::Ident(_))
            && !matches!(
                index.checked_sub(1).map(|before| &tokens[before]),
                Some(Token::Path | Token::Other('.'))
            )
            && !matches!(index.checked_sub(1).map(|before| &tokens[before]), Some(Token::Ident(keyword)) if DECLARING.contains(&keyword.as_str()));
        if starts && tokens[index] != Token::Ident("use".to_owned()) {
            let used = index > 0 && tokens[index - 1] == Token::Ident("use".to_owned());
            let mut written = Vec::new();
            index = path_at(tokens, index, Vec::new(), &mut written);
            found.extend(written.into_iter().map(|path| (path, used)));
        } else {
            index += 1;
        }
    }
    found
}

/// Reads one path (or group) from `index` under `prefix`; returns where it ends.
fn path_at(tokens: &[Token], mut index: usize, mut prefix: Vec<String>, found: &mut Vec<Vec<String>>) -> usize {
    while let Some(Token::Ident(name)) = tokens.get(index) {
        prefix.push(name.clone());
        index += 1;
        if tokens.get(index) != Some(&Token::Path) {
            found.push(prefix);
            return index;
        }
        index += 1;
        if tokens.get(index) == Some(&Token::Open) {
            index += 1;
            while index < tokens.len() && tokens[index] != Token::Close {
                if tokens[index] == Token::Comma {
                    index += 1;
                    continue;
                }
                let before = index;
                index = path_at(tokens, index, prefix.clone(), found);
                if index == before {
                    index += 1;
                }
            }
            return index + 1;
        }
    }
    found.push(prefix);
    index
}

/// The module a path written in module `at` leads into, if it is one of
/// `known`, and the name it then takes from that module.
fn target(at: &[String], path: &[String], known: &BTreeSet<Vec<String>>) -> Option<(Vec<String>, Option<String>)> {
    let (mut base, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (at.to_vec(), &path[1..]),
        Some("super") => {
            let supers = path.iter().take_while(|segment| *segment == "super").count();
            let mut base = at.to_vec();
            for _ in 0..supers {
                base.pop()?;
            }
            (base, &path[supers..])
        }
        Some(first) => {
            let mut child = at.to_vec();
            child.push(first.to_owned());
            if !known.contains(&child) {
                return None;
            }
            (at.to_vec(), path)
        }
        None => return None,
    };
    if rest.is_empty() {
        // `pub(crate)`, `pub(super)`: a visibility, not a path.
        return None;
    }
    let mut name = None;
    for segment in rest {
        base.push(segment.clone());
        if !known.contains(&base) {
            base.pop();
            name = Some(segment.clone());
            break;
        }
    }
    Some((base, name))
}

fn circle(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        stack: &mut Vec<Vec<String>>,
        done: &mut BTreeSet<Vec<String>>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|entry| entry == node) {
            let mut cycle: Vec<String> = stack[at..].iter().map(|module| module.join("::")).collect();
            cycle.push(node.join("::"));
            return Some(cycle);
        }
        if !done.insert(node.clone()) {
            return None;
        }
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, stack, done) {
                return Some(cycle);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

fn graph(src: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules(src);
    let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    let written: BTreeMap<&Vec<String>, Vec<(Vec<String>, bool)>> = modules
        .iter()
        .map(|(module, file)| {
            let text = std::fs::read_to_string(file).unwrap();
            let text = text.split("#[cfg(test)]").next().unwrap_or_default().to_owned();
            (module, paths(&tokens(&code(&text))))
        })
        .collect();
    // The names each module brings in from other crates (`use acp_ir::ir`):
    // a path through one of them leads out of the crate, not into the module.
    let external: BTreeMap<&Vec<String>, BTreeSet<&String>> = written
        .iter()
        .map(|(module, paths)| {
            let names = paths
                .iter()
                .filter(|(path, used)| *used && target(module, path, &known).is_none())
                .filter_map(|(path, _)| path.last())
                .collect();
            (*module, names)
        })
        .collect();
    let mut graph = BTreeMap::new();
    for (module, paths) in &written {
        let edges: BTreeSet<Vec<String>> = paths
            .iter()
            .filter_map(|(path, _)| target(module, path, &known))
            .filter(|(target, name)| {
                name.as_ref()
                    .is_none_or(|name| !external.get(target).is_some_and(|names| names.contains(name)))
            })
            .map(|(target, _)| target)
            .filter(|target| target != *module)
            .collect();
        graph.insert((*module).clone(), edges);
    }
    graph
}

#[test]
fn no_module_imports_back_from_a_module_that_imports_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (name, folder) in CRATES {
        let graph = graph(&root.join(folder).join("src"));
        assert!(graph.len() > 1, "{name} has modules");
        if let Some(cycle) = circle(&graph) {
            panic!("{name}: an import circle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_reader_sees_every_kind_of_path_and_the_circle_check_fires() {
    let text = "mod a;\nuse super::{a::{b, c}, d};\nuse crate::x::y;\nlet q = self.a;\npub(crate) fn f() { z::call(\"super::fake\"); quote!(crate::generated::X) } // super::comment\n";
    let found: Vec<Vec<String>> = paths(&tokens(&code(text))).into_iter().map(|(path, _)| path).collect();
    let expected: Vec<Vec<String>> = [
        &["super", "a", "b"][..],
        &["super", "a", "c"],
        &["super", "d"],
        &["crate", "x", "y"],
        &["z", "call"],
    ]
    .iter()
    .map(|path| path.iter().map(|segment| (*segment).to_owned()).collect())
    .collect();
    for path in &expected {
        assert!(found.contains(path), "{path:?} in {found:?}");
    }
    assert!(
        !found.contains(&vec!["a".to_owned()]),
        "a declaration or a field is no path: {found:?}"
    );
    assert!(
        !found.iter().any(|path| path.contains(&"fake".to_owned())
            || path.contains(&"comment".to_owned())
            || path.contains(&"generated".to_owned())),
        "{found:?}"
    );
    let module = |path: &str| {
        path.split("::")
            .filter(|part| !part.is_empty())
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let known: BTreeSet<Vec<String>> = ["", "emit", "emit::python", "emit::python::text", "emit::python::types"]
        .into_iter()
        .map(module)
        .collect();
    assert_eq!(
        target(
            &module("emit::python::types"),
            &module("super::text::docstring"),
            &known
        ),
        Some((module("emit::python::text"), Some("docstring".to_owned())))
    );
    assert_eq!(
        target(&module("emit::python"), &module("super::render"), &known),
        Some((module("emit"), Some("render".to_owned())))
    );
    assert_eq!(
        target(&module("emit::python"), &module("types::models_view"), &known),
        Some((module("emit::python::types"), Some("models_view".to_owned())))
    );
    assert_eq!(
        target(&module("emit::python"), &module("serde_json::Value"), &known),
        None
    );
    let mut graph = BTreeMap::new();
    graph.insert(module("emit::python"), BTreeSet::from([module("emit::python::types")]));
    graph.insert(module("emit::python::types"), BTreeSet::from([module("emit::python")]));
    assert!(circle(&graph).is_some());
}
