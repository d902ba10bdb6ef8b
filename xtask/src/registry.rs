//! The languages the xtask tests: [`LANGUAGES`], every registration
//! ([`crate::languages::LanguageTests`], one per `suites/<language>.rs`) in
//! the generator's order, one line each, and the look-ups on it. Every list
//! of languages of the xtask derives from it; the modules that read it are
//! the ones that do something for every language, never those a
//! registration names.

use crate::languages::LanguageTests;

/// Every language the xtask tests, in [`acp_generate::emit::LANGUAGES`] order.
pub const LANGUAGES: &[&LanguageTests] = &[
    &crate::suites::rust::LANGUAGE,
    &crate::suites::typescript::LANGUAGE,
    &crate::suites::python::LANGUAGE,
    &crate::suites::go::LANGUAGE,
];

/// The language whose id (`--lang`) is `id`.
pub fn language(id: &str) -> Option<&'static LanguageTests> {
    LANGUAGES.iter().copied().find(|language| language.id() == id)
}

/// Every language by name, as prose lists them (`Rust, TypeScript and Python`).
pub fn names() -> String {
    let names: Vec<&str> = LANGUAGES.iter().map(|language| language.name()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_generated_language_is_tested_in_the_same_order() {
        let tested: Vec<&str> = super::LANGUAGES.iter().map(|language| language.id()).collect();
        assert_eq!(tested, acp_generate::emit::ids());
    }
}
