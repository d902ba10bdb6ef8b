//! The ratios each benchmark row is held to: ours against the official SDK
//! of its language and, for the connection rows, against the JSON floor of
//! the same work; compiling the generated crate with only its types, at
//! most [`COMPILE_PER_OFFICIAL`] of the official crate's time; loading the
//! bindings no slower than the official SDK, and the whole TypeScript
//! package bundling no larger than the official one. A run below a target prints a warning line and goes on:
//! timings on these machines are noisy, and the full run's table is the
//! figure to quote.

use super::measure::Measurement;
use super::report::{ratio, roles, Results};

/// A row's targets: the least ours / official and, where set, ours / floor.
struct Target {
    row: &'static str,
    per_official: f64,
    per_floor: Option<f64>,
}

const fn target(row: &'static str, per_official: f64, per_floor: Option<f64>) -> Target {
    Target {
        row,
        per_official,
        per_floor,
    }
}

const TARGETS: [Target; 11] = [
    target("Rust", 1.0, None),
    target("TypeScript", 1.0, None),
    target("Python", 1.2, None),
    target("Go", 1.5, None),
    target("Rust connection", 1.0, Some(0.6)),
    target("Rust round trip", 1.0, Some(0.6)),
    target("TypeScript connection", 1.0, Some(0.6)),
    target("TypeScript round trip", 1.0, Some(0.6)),
    target("Python connection", 1.0, Some(0.6)),
    target("Go connection", 1.5, None),
    target("Go round trip", 1.5, None),
];

/// The most the generated crate's types-only build may take, as a share
/// of the official crate's.
const COMPILE_PER_OFFICIAL: f64 = 0.6;

/// One line per ratio of `results` below its target.
pub fn warnings(results: &Results) -> Vec<String> {
    let mut lines = Vec::new();
    for target in &TARGETS {
        let [ours, official, floor] =
            roles(results, target.row).map(|measurement| measurement.map(Measurement::megabytes_per_second));
        let checks = [
            ("official", ratio(ours, official), Some(target.per_official)),
            ("floor", ratio(ours, floor), target.per_floor),
        ];
        for (against, measured, least) in checks {
            if let (Some(measured), Some(least)) = (measured, least) {
                if measured < least {
                    lines.push(format!(
                        "warning: {}: ours / {against} is {measured:.2}, below its target {least:.2}",
                        target.row
                    ));
                }
            }
        }
    }
    let compiled = |index: usize| {
        results
            .compile
            .get(index)
            .filter(|timing| timing.failure.is_none())
            .map(|timing| timing.median())
    };
    if let (Some(ours), Some(official)) = (compiled(0), compiled(2)) {
        let share = ours / official;
        if share > COMPILE_PER_OFFICIAL {
            lines.push(format!(
                "warning: compiling the Rust crate, types only: {share:.2} of the official crate's time, above its target {COMPILE_PER_OFFICIAL:.2}"
            ));
        }
    }
    for startup in &results.startup {
        let loaded = |index: usize| {
            startup
                .timings
                .get(index)
                .filter(|timing| timing.failure.is_none())
                .map(|timing| timing.median())
        };
        if let (Some(ours), Some(official)) = (loaded(0), loaded(1)) {
            if ours > official {
                lines.push(format!(
                    "warning: loading the {} bindings: {ours:.3} s, slower than the official SDK's {official:.3} s",
                    startup.language
                ));
            }
        }
    }
    if let (Some(ours), Some(official)) = (
        results.bundles.first().and_then(|bundle| bundle.bytes),
        results.bundles.last().and_then(|bundle| bundle.bytes),
    ) {
        if ours > official {
            lines.push(format!(
                "warning: the whole TypeScript package bundles to {ours} bytes, more than the official SDK's {official}"
            ));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measurement(language: &'static str, role: &'static str, seconds: f64) -> Measurement {
        Measurement {
            language,
            role,
            label: String::new(),
            messages: 1,
            bytes: 1_000_000,
            seconds: vec![seconds],
            failures: 0,
            differ: 0,
            first_difference: None,
            outcome: "equal".to_owned(),
            peak_kib: None,
        }
    }

    #[test]
    fn a_ratio_below_its_target_warns_and_one_above_does_not() {
        let measurements = vec![
            measurement("Python", "ours", 1.0),
            measurement("Python", "official", 1.0),
            measurement("Rust connection", "ours", 1.0),
            measurement("Rust connection", "official", 2.0),
            measurement("Rust connection", "floor", 1.5),
        ];
        let results = Results {
            quick: true,
            seed: 0,
            corpus_messages: 1,
            corpus_bytes: 1,
            measurements,
            compile: Vec::new(),
            startup: Vec::new(),
            bundles: Vec::new(),
            generation: Vec::new(),
            scale: Vec::new(),
        };
        assert_eq!(
            warnings(&results),
            ["warning: Python: ours / official is 1.00, below its target 1.20"]
        );
    }

    #[test]
    fn a_types_only_build_slower_than_its_target_warns() {
        let timing = |seconds: f64| crate::bench::generation::Timing {
            tool: String::new(),
            output: String::new(),
            seconds: vec![seconds],
            peak_kib: None,
            failure: None,
        };
        let results = |ours: f64| Results {
            quick: false,
            seed: 0,
            corpus_messages: 1,
            corpus_bytes: 1,
            measurements: Vec::new(),
            compile: vec![timing(ours), timing(12.0), timing(10.0)],
            startup: Vec::new(),
            bundles: Vec::new(),
            generation: Vec::new(),
            scale: Vec::new(),
        };
        assert_eq!(
            warnings(&results(7.0)),
            ["warning: compiling the Rust crate, types only: 0.70 of the official crate's time, above its target 0.60"]
        );
        assert!(warnings(&results(5.0)).is_empty());
    }

    #[test]
    fn a_package_bundling_larger_than_the_official_one_warns() {
        let bundle = |bytes: u64| crate::bench::size::Bundle {
            implementation: String::new(),
            bytes: Some(bytes),
            gzip_bytes: Some(bytes / 4),
            failure: None,
        };
        let results = |ours: u64| Results {
            quick: false,
            seed: 0,
            corpus_messages: 1,
            corpus_bytes: 1,
            measurements: Vec::new(),
            compile: Vec::new(),
            startup: Vec::new(),
            bundles: vec![bundle(ours), bundle(10), bundle(100)],
            generation: Vec::new(),
            scale: Vec::new(),
        };
        assert_eq!(
            warnings(&results(101)),
            ["warning: the whole TypeScript package bundles to 101 bytes, more than the official SDK's 100"]
        );
        assert!(warnings(&results(99)).is_empty());
    }
}
