//! Round-trips a batch of values through the generated Rust bindings:
//! `roundtrip-batch <in.jsonl> <out.jsonl>`. Each input line is
//! `{"type": T, "value": V}`; each output line is `{"type": T, "value":
//! roundtrip(T, V)}` or `{"type": T, "error": message, "pointer": P}`, `P`
//! being the JSON pointer the error names.

use std::io::Write;

use serde_json::{json, Value};

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [input, output] = arguments.as_slice() else {
        eprintln!("usage: roundtrip-batch <in.jsonl> <out.jsonl>");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(input).unwrap_or_else(|error| {
        eprintln!("{input}: {error}");
        std::process::exit(1);
    });
    let mut lines = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, line)| !line.trim().is_empty()) {
        let result = match serde_json::from_str::<Value>(line) {
            Ok(entry) => {
                let type_name = entry["type"].as_str().unwrap_or_default();
                match acp_bindings::roundtrip(type_name, &entry["value"]) {
                    Ok(value) => json!({"type": type_name, "value": value}),
                    Err(error) => json!({"type": type_name, "error": error.to_string(), "pointer": error.path}),
                }
            }
            Err(error) => json!({"type": null, "error": format!("line {}: {error}", number + 1)}),
        };
        lines.push(result.to_string());
    }
    let mut file = std::fs::File::create(output).unwrap_or_else(|error| {
        eprintln!("{output}: {error}");
        std::process::exit(1);
    });
    for line in lines {
        writeln!(file, "{line}").expect("writing the output");
    }
}
