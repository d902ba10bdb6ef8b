//! The benchmark's results as a Markdown table (printed) and as JSON
//! (`--out`): per language, each implementation's throughput (medians),
//! peak memory and exactness, the ratios of ours to the official SDK and to
//! the floor; then how long compiling the Rust crate and loading the
//! bindings take; then generation
//! times against the schema parse and the peers.

use std::fmt::Write;

use serde_json::{json, Value};

use super::generation::Timing;
use super::measure::Measurement;
use super::scale::Point;
use super::size::Bundle;
use super::startup::Startup;

pub struct Results {
    pub quick: bool,
    pub seed: u64,
    pub corpus_messages: usize,
    pub corpus_bytes: usize,
    pub measurements: Vec<Measurement>,
    /// Compiling the Rust crate: ours types only, ours with the
    /// connection, the official crate (none in a quick run).
    pub compile: Vec<Timing>,
    pub startup: Vec<Startup>,
    /// The TypeScript bundles, ours first.
    pub bundles: Vec<Bundle>,
    pub generation: Vec<Timing>,
    pub scale: Vec<Point>,
}

/// At most `limit` characters of `text`, on one line.
pub fn shorten(text: &str, limit: usize) -> String {
    let line = text.replace('\n', "\\n");
    match line.char_indices().nth(limit) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line,
    }
}

fn mebibytes(kib: Option<u64>) -> String {
    kib.map_or_else(|| "-".to_owned(), |kib| format!("{:.0}", kib as f64 / 1024.0))
}

fn correctness(measurement: &Measurement) -> String {
    if measurement.exact() {
        format!("all {} {}", measurement.messages, measurement.outcome)
    } else {
        let mut parts = Vec::new();
        if measurement.differ > 0 {
            parts.push(format!("{} differ", measurement.differ));
        }
        if measurement.failures > 0 {
            parts.push(format!("{} fail to decode", measurement.failures));
        }
        parts.join(", ")
    }
}

/// Ours, the official implementation and the floor of `language`.
pub(super) fn roles<'a>(results: &'a Results, language: &str) -> [Option<&'a Measurement>; 3] {
    ["ours", "official", "floor"].map(|role| {
        results
            .measurements
            .iter()
            .find(|measurement| measurement.language == language && measurement.role == role)
    })
}

fn languages(results: &Results) -> Vec<&'static str> {
    let mut languages: Vec<&'static str> = Vec::new();
    for measurement in &results.measurements {
        if !languages.contains(&measurement.language) {
            languages.push(measurement.language);
        }
    }
    languages
}

pub(super) fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> Option<f64> {
    Some(numerator? / denominator?)
}

pub fn markdown(results: &Results) -> String {
    let mut text = String::new();
    let mode = if results.quick { "quick run" } else { "full run" };
    let _ = writeln!(
        text,
        "\nDecode + encode (parse text, decode to the typed value, encode, print), {mode}: corpus of {} messages, {:.1} MB (seed {:#x}); medians of {} runs, each a fresh process, the implementations taking turns. The `Rust connection`, `TypeScript connection`, `Python connection` and `Go connection` rows instead hand the corpus's `session/update` notifications, as JSON-RPC text, to a client's end of a connection whose handler counts them; the `Rust round trip`, `TypeScript round trip` and `Go round trip` rows time as many `session/new` calls, one after another, from a client's end to an agent's end in the same process, each opening a session that the agent keeps (ours and the official SDK's alike; a call's bytes: the request and its response).\n",
        results.corpus_messages,
        results.corpus_bytes as f64 / 1e6,
        results.seed,
        results.measurements.first().map_or(0, |measurement| measurement.seconds.len())
    );
    text.push_str("| language | ours MB/s | official MB/s | ours / official | floor MB/s | ours / floor |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for language in languages(results) {
        let [ours, official, floor] =
            roles(results, language).map(|measurement| measurement.map(Measurement::megabytes_per_second));
        let show = |value: Option<f64>, digits: usize| {
            value.map_or_else(|| "-".to_owned(), |value| format!("{value:.digits$}"))
        };
        let _ = writeln!(
            text,
            "| {language} | {} | {} | {} | {} | {} |",
            show(ours, 1),
            show(official, 1),
            show(ratio(ours, official), 2),
            show(floor, 1),
            show(ratio(ours, floor), 2)
        );
    }
    text.push_str("\n| language | implementation | messages/s | MB/s | peak memory MiB | outcome |\n| --- | --- | ---: | ---: | ---: | --- |\n");
    for measurement in &results.measurements {
        let _ = writeln!(
            text,
            "| {} | {}: {} | {:.0} | {:.1} | {} | {} |",
            measurement.language,
            measurement.role,
            measurement.label,
            measurement.messages_per_second(),
            measurement.megabytes_per_second(),
            mebibytes(measurement.peak_kib),
            correctness(measurement)
        );
    }
    for measurement in results.measurements.iter().filter(|measurement| !measurement.exact()) {
        let _ = writeln!(
            text,
            "\n{} {} first difference: {}",
            measurement.language,
            measurement.role,
            shorten(measurement.first_difference.as_deref().unwrap_or("?"), 400)
        );
    }
    compile_markdown(results, &mut text);
    startup_markdown(results, &mut text);
    bundle_markdown(results, &mut text);
    generation_markdown(results, &mut text);
    scale_markdown(results, &mut text);
    text
}

/// Generation against the schema parse and the peers (none in a run of some languages only).
fn generation_markdown(results: &Results, text: &mut String) {
    if results.generation.is_empty() {
        return;
    }
    let ours = results
        .generation
        .first()
        .filter(|timing| timing.failure.is_none())
        .map(Timing::median);
    let _ = writeln!(
        text,
        "\nGeneration (whole process, medians of {} runs):\n",
        results.generation.first().map_or(0, |timing| timing.seconds.len())
    );
    text.push_str(
        "| generator | output | seconds | peak memory MiB | its time / ours |\n| --- | --- | ---: | ---: | ---: |\n",
    );
    for timing in &results.generation {
        match &timing.failure {
            None => {
                let _ = writeln!(
                    text,
                    "| {} | {} | {:.3} | {} | {} |",
                    timing.tool,
                    timing.output,
                    timing.median(),
                    mebibytes(timing.peak_kib),
                    ours.map_or_else(|| "-".to_owned(), |ours| format!("{:.2}", timing.median() / ours))
                );
            }
            Some(failure) => {
                let _ = writeln!(
                    text,
                    "| {} | {} | failed: {} | - | - |",
                    timing.tool,
                    timing.output,
                    shorten(failure, 120)
                );
            }
        }
    }
}

/// Generation as the schema grows: time and peak memory, whole and per definition.
fn scale_markdown(results: &Results, text: &mut String) {
    let Some(first) = results.scale.first() else { return };
    let _ = writeln!(
        text,
        "\nGeneration as the schema grows (synthetic schemas, `--no-rfd`, medians of {} runs):\n",
        first.timing.seconds.len()
    );
    text.push_str("| definitions | schema KiB | seconds | ms per definition | peak memory MiB | KiB per definition |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for point in &results.scale {
        let kib = point.schema_bytes as f64 / 1024.0;
        match &point.timing.failure {
            None => {
                let seconds = point.timing.median();
                let per_definition = point.timing.peak_kib.map_or_else(
                    || "-".to_owned(),
                    |peak| format!("{:.1}", peak as f64 / point.definitions as f64),
                );
                let _ = writeln!(
                    text,
                    "| {} | {kib:.0} | {seconds:.3} | {:.3} | {} | {per_definition} |",
                    point.definitions,
                    seconds * 1000.0 / point.definitions as f64,
                    mebibytes(point.timing.peak_kib)
                );
            }
            Some(failure) => {
                let _ = writeln!(
                    text,
                    "| {} | {kib:.0} | failed: {} | - | - | - |",
                    point.definitions,
                    shorten(failure, 120)
                );
            }
        }
    }
}

pub fn json(results: &Results) -> String {
    let measurements: Vec<Value> = results
        .measurements
        .iter()
        .map(|measurement| {
            json!({
                "language": measurement.language,
                "role": measurement.role,
                "implementation": measurement.label,
                "messages": measurement.messages,
                "bytes": measurement.bytes,
                "seconds": measurement.seconds,
                "median_seconds": measurement.median(),
                "messages_per_second": measurement.messages_per_second(),
                "megabytes_per_second": measurement.megabytes_per_second(),
                "peak_kib": measurement.peak_kib,
                "failures": measurement.failures,
                "differ": measurement.differ,
                "first_difference": measurement.first_difference.as_deref().map(|text| shorten(text, 2000)),
            })
        })
        .collect();
    let ratios: Vec<Value> = languages(results)
        .into_iter()
        .map(|language| {
            let [ours, official, floor] = roles(results, language).map(|measurement| measurement.map(Measurement::megabytes_per_second));
            json!({"language": language, "ours_per_official": ratio(ours, official), "ours_per_floor": ratio(ours, floor)})
        })
        .collect();
    let generation: Vec<Value> = results
        .generation
        .iter()
        .map(|timing| timed(json!({"tool": timing.tool, "output": timing.output}), timing))
        .collect();
    let compile: Vec<Value> = results
        .compile
        .iter()
        .map(|timing| timed(json!({"build": timing.tool, "package": timing.output}), timing))
        .collect();
    let startup: Vec<Value> = results
        .startup
        .iter()
        .flat_map(|startup| {
            startup.timings.iter().map(|timing| {
                timed(
                    json!({"language": startup.language, "implementation": timing.tool}),
                    timing,
                )
            })
        })
        .collect();
    let scale: Vec<Value> = results
        .scale
        .iter()
        .map(|point| {
            timed(
                json!({"definitions": point.definitions, "schema_bytes": point.schema_bytes}),
                &point.timing,
            )
        })
        .collect();
    let document = json!({
        "quick": results.quick,
        "corpus": {"seed": results.seed, "messages": results.corpus_messages, "bytes": results.corpus_bytes},
        "decode_encode": measurements,
        "ratios": ratios,
        "compile": compile,
        "startup": startup,
        "bundles": results.bundles.iter().map(|bundle| json!({
            "implementation": bundle.implementation,
            "bytes": bundle.bytes,
            "gzip_bytes": bundle.gzip_bytes,
            "failure": bundle.failure,
        })).collect::<Vec<_>>(),
        "generation": generation,
        "scale": scale,
    });
    format!("{}\n", serde_json::to_string_pretty(&document).unwrap_or_default())
}

/// Compiling the Rust crate, each build's time against the official crate's.
fn compile_markdown(results: &Results, text: &mut String) {
    let Some(official) = results.compile.last().filter(|timing| timing.failure.is_none()) else {
        return;
    };
    let _ = writeln!(
        text,
        "\nCompiling the Rust crate alone (debug, its dependencies already built, medians of {} runs):\n",
        official.seconds.len()
    );
    text.push_str("| build | seconds | peak memory MiB | its time / official |\n| --- | ---: | ---: | ---: |\n");
    for timing in &results.compile {
        match &timing.failure {
            None => {
                let _ = writeln!(
                    text,
                    "| {} | {:.1} | {} | {:.2} |",
                    timing.tool,
                    timing.median(),
                    mebibytes(timing.peak_kib),
                    timing.median() / official.median()
                );
            }
            Some(failure) => {
                let _ = writeln!(text, "| {} | failed: {} | - | - |", timing.tool, shorten(failure, 120));
            }
        }
    }
}

/// Loading the bindings: per language, ours, the official SDK and the floor.
fn startup_markdown(results: &Results, text: &mut String) {
    if results.startup.is_empty() {
        return;
    }
    let runs = results
        .startup
        .first()
        .and_then(|startup| startup.timings.first())
        .map_or(0, |timing| timing.seconds.len());
    let _ = writeln!(
        text,
        "\nLoading the bindings (a process that imports them and exits, medians of {runs} runs):\n"
    );
    text.push_str("| language | implementation | seconds | peak memory MiB | its time / ours |\n| --- | --- | ---: | ---: | ---: |\n");
    for startup in &results.startup {
        let ours = startup
            .timings
            .first()
            .filter(|timing| timing.failure.is_none())
            .map(Timing::median);
        for timing in &startup.timings {
            match &timing.failure {
                None => {
                    let ratio = ours.map_or_else(|| "-".to_owned(), |ours| format!("{:.2}", timing.median() / ours));
                    let _ = writeln!(
                        text,
                        "| {} | {} | {:.3} | {} | {ratio} |",
                        startup.language,
                        timing.tool,
                        timing.median(),
                        mebibytes(timing.peak_kib)
                    );
                }
                Some(failure) => {
                    let _ = writeln!(
                        text,
                        "| {} | {} | failed: {} | - | - |",
                        startup.language,
                        timing.tool,
                        shorten(failure, 120)
                    );
                }
            }
        }
    }
}

/// The TypeScript bundles, each against the official SDK's.
fn bundle_markdown(results: &Results, text: &mut String) {
    if results.bundles.is_empty() {
        return;
    }
    text.push_str("\nBundling the TypeScript packages (a module re-exporting them, `esbuild --bundle --minify --platform=node`):\n\n");
    text.push_str("| bundle | KiB | gzip KiB | its size / official |\n| --- | ---: | ---: | ---: |\n");
    let official = results.bundles.last().and_then(|bundle| bundle.bytes);
    for bundle in &results.bundles {
        match (bundle.bytes, bundle.gzip_bytes, &bundle.failure) {
            (Some(bytes), Some(gzip_bytes), None) => {
                let share = official.map_or_else(
                    || "-".to_owned(),
                    |official| format!("{:.2}", bytes as f64 / official as f64),
                );
                let _ = writeln!(
                    text,
                    "| {} | {:.1} | {:.1} | {share} |",
                    bundle.implementation,
                    bytes as f64 / 1024.0,
                    gzip_bytes as f64 / 1024.0
                );
            }
            (_, _, failure) => {
                let _ = writeln!(
                    text,
                    "| {} | failed: {} | - | - |",
                    bundle.implementation,
                    shorten(failure.as_deref().unwrap_or("?"), 120)
                );
            }
        }
    }
}

/// `what` (a JSON object) with `timing`'s runs, median, peak memory and failure.
fn timed(mut what: Value, timing: &Timing) -> Value {
    let median = if timing.failure.is_none() {
        Some(timing.median())
    } else {
        None
    };
    if let Value::Object(fields) = &mut what {
        fields.insert("seconds".to_owned(), json!(timing.seconds));
        fields.insert("median_seconds".to_owned(), json!(median));
        fields.insert("peak_kib".to_owned(), json!(timing.peak_kib));
        fields.insert("failure".to_owned(), json!(timing.failure));
    }
    what
}
