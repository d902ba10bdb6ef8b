//! The README's and `docs/`'s code is code the tests compile and run: every
//! block in a generated language (fenced as that language's package README
//! fences its usage example, `Package::fence` of each registration in
//! `acp_generate::emit::LANGUAGES`) is an excerpt of a usage program or test
//! (`<!-- excerpt: PATH -->` above the block), and each of its lines stands
//! in that file, in the same order, one after the other: where the excerpt
//! leaves lines out, it says so with a line `// ...` (`# ...` in Python),
//! so that the code shown compiles as it stands or marks what it omits.

use std::path::Path;

/// The fenced blocks of `text` with their info string and the excerpt
/// marker on the line before them, if any.
fn blocks(text: &str) -> Vec<(String, Option<String>, Vec<String>)> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().peekable();
    let mut previous = "";
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let marker = previous
                .strip_prefix("<!-- excerpt: ")
                .and_then(|rest| rest.strip_suffix(" -->"))
                .map(str::to_owned);
            let body: Vec<String> = lines
                .by_ref()
                .take_while(|line| !line.starts_with("```"))
                .map(str::to_owned)
                .collect();
            blocks.push((info.trim().to_owned(), marker, body));
            previous = "";
            continue;
        }
        previous = line;
    }
    blocks
}

#[test]
fn every_code_block_is_an_excerpt_of_a_tested_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let fences: Vec<&str> = acp_generate::emit::LANGUAGES
        .iter()
        .map(|language| language.package.fence)
        .collect();
    let mut excerpts = Vec::new();
    for (info, marker, body) in pages
        .iter()
        .flat_map(|page| blocks(&std::fs::read_to_string(page).unwrap()))
    {
        if !fences.contains(&info.as_str()) {
            continue;
        }
        let marker = marker.unwrap_or_else(|| panic!("a ```{info} block without an excerpt marker: {body:?}"));
        let source = std::fs::read_to_string(root.join(&marker)).unwrap_or_else(|error| panic!("{marker}: {error}"));
        let mut source_lines = source.lines().map(str::trim).filter(|line| !line.is_empty());
        // The first line may stand anywhere; after it, only an elision skips.
        let mut skipping = true;
        for line in body.iter().map(|line| line.trim()).filter(|line| !line.is_empty()) {
            if ["// ...", "# ..."].contains(&line) {
                skipping = true;
                continue;
            }
            if skipping {
                assert!(
                    source_lines.any(|candidate| candidate == line),
                    "README excerpt of {marker}: `{line}` is not in it (or not in this order)"
                );
            } else {
                let next = source_lines.next();
                assert_eq!(next, Some(line), "README excerpt of {marker}: `{line}` does not follow the line before it; mark what is left out with `// ...` or `# ...`");
            }
            skipping = false;
        }
        excerpts.push(info);
    }
    excerpts.sort();
    excerpts.dedup();
    let mut every = fences;
    every.sort();
    assert_eq!(excerpts, every, "excerpts in every language");
}

/// The README says what the project is, the two commands and the pipeline,
/// and links the rest: at most 150 lines, every page of `docs/` linked.
#[test]
fn the_readme_is_short_and_links_every_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 150,
        "the README has {} lines",
        readme.lines().count()
    );
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(
            readme.contains(&format!("](docs/{name})")),
            "the README does not link docs/{name}"
        );
    }
    assert!(
        readme
            .lines()
            .take(6)
            .any(|line| line.starts_with("cargo xtask generate"))
            && readme.lines().take(6).any(|line| line.starts_with("cargo xtask test"))
    );
}
