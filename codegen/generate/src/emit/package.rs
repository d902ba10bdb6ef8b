//! What a published package carries besides its code, for every language:
//! a README with a usage example in that language, the extended schema the
//! bindings were generated from, and the version scheme that records the
//! schema release and the RFD set in one version string every registry
//! accepts.
//!
//! The version is `BASE` without RFD overlays and `BASE-dev.CODE` with
//! them. `BASE` is `MAJOR.MINOR.PATCH` (digits only, no leading zeros): the
//! release of the base schema, or the maintainer's own. `CODE` is the sum
//! of the bits of the applied overlays ([`RFD_BITS`]), so each RFD set has
//! its own number. The string is valid SemVer (a pre-release, as Cargo and
//! npm read it) and valid PEP 440 (a development release, normalized to
//! `BASE.devCODE`), and it orders the same way in both: below `BASE`, the
//! release without drafts. PEP 440's local versions (`+...`) are refused
//! by the Python registry and its post-releases sort above `BASE` where
//! SemVer's pre-releases sort below it, so neither can carry the set. The
//! Python manifest writes the normalized spelling ([`python_version`]), as
//! the Python tools name the files.
//!
//! Each language answers what differs (the package's name, install
//! command, schema path and usage example) in its registration
//! ([`super::Package`]); the README around them is the same for all.
//!
//! The usage examples are programs written against protocol v1: the tests
//! of `cargo xtask package` run each, as its README shows it, against its
//! installed package; a schema they do not fit ([`example_applies`]) gets a
//! README that says so instead.

use std::path::PathBuf;

use askama::Template;

use super::files::{render as render_template, Files, PackageNames};
use super::language::Language;
use acp_ir::error::CodegenError;
use acp_ir::ir::Ir;

/// Each built-in RFD overlay's bit in a version's RFD code. A new overlay
/// takes the next unused power of two; a bit is never reused, so a version
/// always names one RFD set.
pub const RFD_BITS: [(&str, u32); 3] = [("session-ready", 1), ("turn-complete", 2), ("session-status", 4)];

/// The pre-release label that carries the RFD code (`BASE-dev.CODE`).
const RFD_LABEL: &str = "dev";

/// The protocol version, types and methods the usage examples are written
/// against.
const EXAMPLE_PROTOCOL_VERSION: u16 = 1;
const EXAMPLE_TYPES: [&str; 2] = ["ContentBlock", "SessionNotification"];
const EXAMPLE_METHODS: [&str; 4] = ["session/update", "session/prompt", "session/load", "fs/read_text_file"];

/// Whether the usage example holds for `ir`, or why not: it is written
/// against protocol v1 and the names it uses.
pub fn example_applies(ir: &Ir) -> Result<(), String> {
    match acp_ir::negotiation::model(ir).map(|model| model.protocol_version) {
        Some(EXAMPLE_PROTOCOL_VERSION) => {}
        Some(version) => return Err(format!("this schema is protocol version {version}")),
        None => return Err("this schema has no capability negotiation".to_owned()),
    }
    if let Some(missing) = EXAMPLE_TYPES.iter().find(|name| !ir.types.contains_key(**name)) {
        return Err(format!("this schema has no type `{missing}`"));
    }
    if let Some(missing) = EXAMPLE_METHODS.iter().find(|name| !ir.methods.contains_key(**name)) {
        return Err(format!("this schema has no method `{missing}`"));
    }
    Ok(())
}

/// The version for `base` (`MAJOR.MINOR.PATCH`) and the applied overlays,
/// or what is wrong with them.
pub fn version(base: &str, overlays: &[String]) -> Result<String, String> {
    let parts: Vec<&str> = base.split('.').collect();
    let number = |part: &&str| {
        !part.is_empty()
            && part.bytes().all(|byte| byte.is_ascii_digit())
            && (part.len() == 1 || !part.starts_with('0'))
    };
    if parts.len() != 3 || !parts.iter().all(number) {
        return Err(format!("invalid version `{base}`: give MAJOR.MINOR.PATCH, decimal numbers without leading zeros (the RFD set is added as `-{RFD_LABEL}.N`)"));
    }
    let mut code = 0;
    for overlay in overlays {
        let Some((_, bit)) = RFD_BITS.iter().find(|(id, _)| id == overlay) else {
            return Err(format!("the RFD overlay `{overlay}` has no bit in the version scheme (codegen/generate/src/emit/package.rs, RFD_BITS)"));
        };
        code |= bit;
    }
    Ok(if code == 0 {
        base.to_owned()
    } else {
        format!("{base}-{RFD_LABEL}.{code}")
    })
}

/// What the version says, for the README.
fn version_note(version: &str, overlays: &[String]) -> String {
    let marker = format!("-{RFD_LABEL}.");
    if let Some((base, code)) = version.split_once(&marker) {
        let bits: Vec<String> = RFD_BITS
            .iter()
            .filter(|(id, _)| overlays.iter().any(|overlay| overlay == id))
            .map(|(id, bit)| format!("`{id}` {bit}"))
            .collect();
        format!(
            "`{base}` is the release of the base schema (or the maintainer's own base version); `{RFD_LABEL}.{code}` records the RFD overlays, one bit each ({}). Python spells the same version `{}`.",
            bits.join(", "),
            python_version(version)
        )
    } else if overlays.is_empty() {
        "The release of the base schema (or the maintainer's own base version); no RFD overlay.".to_owned()
    } else {
        "A development build: `cargo xtask package` gives the version that records the schema release and the RFD set."
            .to_owned()
    }
}

#[derive(Template)]
#[template(path = "package/README.md", escape = "none")]
struct Readme {
    name: String,
    language: &'static str,
    origin: String,
    overlays: Vec<String>,
    schema_path: String,
    version: String,
    version_note: String,
    install: String,
    fence: &'static str,
    contents: &'static str,
    usage: &'static str,
    exports: &'static str,
    /// The usage example, or why this schema has none.
    example: Result<String, String>,
}

/// The usage example of `language`'s package: a whole program that imports
/// the package by its name.
pub fn example(language: &Language, names: &PackageNames) -> Result<String, CodegenError> {
    let text = (language.package.example)(names)?;
    Ok(format!("{}\n", text.trim_end()))
}

/// `version` as PEP 440 normalizes it (`1.20.0-dev.7` -> `1.20.0.dev7`).
pub fn python_version(version: &str) -> String {
    version.replacen(&format!("-{RFD_LABEL}."), &format!(".{RFD_LABEL}"), 1)
}

/// The files `language`'s package carries besides its code: `README.md`, the
/// extended schema (`schema`, its text) and, where the language ships it
/// ([`super::Package::example_file`]), the example (where [`example_applies`]).
pub fn extras(ir: &Ir, names: &PackageNames, language: &Language, schema: &str) -> Result<Files, CodegenError> {
    let package = &language.package;
    let example = example(language, names)?;
    let example = example_applies(ir).map(|()| example);
    let schema_path = (package.schema_path)(names);
    let readme = Readme {
        name: (package.name)(names),
        language: language.name,
        origin: ir.origin.clone(),
        overlays: ir.overlays.clone(),
        schema_path: schema_path.display().to_string(),
        version: names.version.clone(),
        version_note: version_note(&names.version, &ir.overlays),
        install: (package.install)(names),
        fence: package.fence,
        contents: package.contents,
        usage: package.usage,
        exports: package.exports,
        example: example.clone(),
    };
    let readme = format!("{}\n", render(&readme, "README.md")?.trim_end());
    let mut files = vec![(PathBuf::from("README.md"), readme), (schema_path, schema.to_owned())];
    if let (Ok(example), Some(file)) = (example, package.example_file) {
        files.push((PathBuf::from(file), example));
    }
    Ok(files)
}

fn render(template: &impl Template, file: &str) -> Result<String, CodegenError> {
    render_template(template, &format!("package/{file}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(names: &[&str]) -> Vec<String> {
        names.iter().map(|name| (*name).to_owned()).collect()
    }

    #[test]
    fn the_version_records_the_rfd_set_as_a_development_release() {
        assert_eq!(version("1.20.0", &[]).unwrap(), "1.20.0");
        assert_eq!(version("1.20.0", &ids(&["session-ready"])).unwrap(), "1.20.0-dev.1");
        assert_eq!(
            version("1.20.0", &ids(&["session-status", "turn-complete"])).unwrap(),
            "1.20.0-dev.6"
        );
        assert_eq!(
            version("2.0.10", &ids(&["session-ready", "turn-complete", "session-status"])).unwrap(),
            "2.0.10-dev.7"
        );
    }

    #[test]
    fn python_spells_the_development_release_its_own_way() {
        assert_eq!(python_version("1.20.0-dev.7"), "1.20.0.dev7");
        assert_eq!(python_version("1.20.0"), "1.20.0");
    }

    #[test]
    fn every_rfd_set_has_its_own_code() {
        let mut codes: Vec<u32> = (0..1u32 << RFD_BITS.len())
            .map(|set| {
                RFD_BITS
                    .iter()
                    .enumerate()
                    .filter(|(index, _)| set & (1 << index) != 0)
                    .map(|(_, (_, bit))| bit)
                    .sum()
            })
            .collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), 1 << RFD_BITS.len());
    }

    #[test]
    fn a_base_that_is_not_three_plain_numbers_is_refused() {
        for base in [
            "1.0",
            "1.0.0.0",
            "01.2.3",
            "1.2.3-rc.1",
            "1.2.3+x",
            "v1.2.3",
            "",
            "1..3",
        ] {
            let error = version(base, &[]).unwrap_err();
            assert!(error.contains(&format!("`{base}`")), "{base}: {error}");
        }
        assert!(version("1.2.3", &ids(&["my-rfd"])).unwrap_err().contains("`my-rfd`"));
    }

    #[test]
    fn a_schema_the_example_does_not_fit_gets_a_readme_without_it() {
        let ir = crate::test_support::ir_of(serde_json::json!({"Item": {"type": "string"}}));
        assert_eq!(
            example_applies(&ir).unwrap_err(),
            "this schema has no capability negotiation"
        );
        let names = PackageNames {
            version: "1.20.0-dev.3".to_owned(),
            ..PackageNames::default()
        };
        for language in super::super::LANGUAGES {
            let files = extras(&ir, &names, language, "{}\n").unwrap();
            let readme = &files[0].1;
            assert!(!readme.contains(&example(language, &names).unwrap()), "{}", language.id);
            assert!(
                readme.contains("this schema has no capability negotiation, so it is left out"),
                "{readme}"
            );
            assert!(
                readme.contains("`1.20.0-dev.3`") && readme.contains("1.20.0.dev3"),
                "{readme}"
            );
            assert!(
                files
                    .iter()
                    .any(|(path, text)| path == &(language.package.schema_path)(&names) && text == "{}\n"),
                "{}",
                language.id
            );
            assert!(
                !files.iter().any(|(path, _)| path.starts_with("examples")),
                "{}",
                language.id
            );
        }
    }
}
