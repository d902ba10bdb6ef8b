//! How each language's artifacts are installed into a clean place of their
//! own and used there by the README's usage example, run as written; each
//! returns what the example printed, for [`super::check`] to compare. The
//! [`crate::languages::Install`]s of the registrations name them: [`rust`]
//! (a new cargo project depending on the unpacked `.crate`, offline, then
//! `cargo publish --dry-run`), [`typescript`] (a new npm project installing
//! the tarball, the example compiled by `tsc --strict`, then `npm publish
//! --dry-run`) and [`python`] (a new virtual environment installing the
//! wheel or the sdist, the example checked by `mypy --strict`) and [`go`] (a
//! new Go module that `go get`s the module from the proxy folder, offline,
//! `go mod verify`, the example checked by `go vet` and staticcheck). Each
//! checks the manifest its users' tools read in the installed copy, and
//! that the README shows the very example.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};
use serde_json::Value;

use acp_generate::emit::{self, Language, PackageNames};

use super::build::{cargo_target, go_sums, quiet, tools_python};

/// A new cargo project with a path dependency on the unpacked crate runs
/// the example, offline; then `cargo publish --dry-run` from the unpacked
/// crate with its original manifest must pack the artifact's bytes.
pub fn rust(artifact: &Path, names: &PackageNames, version: &str, work: &Path) -> Result<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let unpacked = work.join("crate");
    unpack(artifact, &unpacked)?;
    let crate_folder = unpacked.join(format!("{}-{version}", names.rust_crate));
    ensure!(!crate_folder.join("build.rs").exists(), "the crate has a build script");
    for file in ["README.md", "schema/acp.schema.json", "src/lib.rs", "Cargo.lock"] {
        ensure!(crate_folder.join(file).is_file(), "the crate lacks {file}");
    }
    readme_holds_example(
        &std::fs::read_to_string(crate_folder.join("README.md"))?,
        &emit::rust::LANGUAGE,
        names,
    )?;
    let consumer = work.join("rust-consumer");
    let dependency = serde_json::to_string(&crate_folder.display().to_string())?;
    write(
        &consumer.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"acp-bindings-consumer\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n[dependencies]\n{} = {{ path = {dependency} }}\nserde_json = \"1\"\n\n[workspace]\n",
            names.rust_crate
        ),
    )?;
    write(
        &consumer.join("src").join("main.rs"),
        &emit::package::example(&emit::rust::LANGUAGE, names)?,
    )?;
    let output = quiet(
        Command::new(&cargo)
            .args(["run", "--quiet", "--offline", "--target-dir"])
            .arg(cargo_target())
            .current_dir(&consumer),
        "cargo run of the usage example against the unpacked crate",
    )?;

    let publishing = work.join("crate-publish");
    unpack(artifact, &publishing)?;
    let folder = publishing.join(format!("{}-{version}", names.rust_crate));
    std::fs::rename(folder.join("Cargo.toml.orig"), folder.join("Cargo.toml"))
        .context("restoring the original Cargo.toml")?;
    // The shared target folder, where `cargo package` already verified the
    // same sources. A dry run leaves the crate it would upload in
    // `package/tmp-crate/`, removed first so that only this run's counts.
    let target = cargo_target();
    let file = artifact.file_name().context("the crate has a file name")?;
    let packed = target.join("package").join("tmp-crate").join(file);
    if packed.exists() {
        std::fs::remove_file(&packed).with_context(|| format!("removing {}", packed.display()))?;
    }
    quiet(
        Command::new(&cargo)
            .args(["publish", "--dry-run", "--quiet", "--target-dir"])
            .arg(&target)
            .current_dir(&folder),
        "cargo publish --dry-run",
    )?;
    let republished = std::fs::read(&packed).context("reading the crate cargo publish --dry-run packed")?;
    ensure!(
        republished == std::fs::read(artifact)?,
        "cargo publish --dry-run in the unpacked crate packed other bytes than the artifact"
    );
    crate::support::lanes::say!("cargo publish --dry-run passed and packs the artifact's bytes");
    String::from_utf8(output).context("the example printed UTF-8")
}

/// The consumer project's compiler settings: strict, Node's module
/// resolution (through the package's `exports` and `types`), `console`
/// from the DOM library rather than a Node types package.
const TS_CONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "target": "ES2022",
    "lib": ["ES2022", "DOM"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "types": [],
    "outDir": "out"
  },
  "include": ["usage.ts"]
}
"#;

/// A new npm project installs the tarball (and the locked compiler), `tsc
/// --strict` compiles the example against the installed package, Node runs
/// it; `npm publish --dry-run` checks the tarball.
pub fn typescript(artifact: &Path, names: &PackageNames, version: &str, work: &Path) -> Result<String> {
    let consumer = work.join("ts-consumer");
    write(
        &consumer.join("package.json"),
        "{\n  \"name\": \"acp-bindings-consumer\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n",
    )?;
    write(
        &consumer.join("usage.ts"),
        &emit::package::example(&emit::typescript::LANGUAGE, names)?,
    )?;
    write(&consumer.join("tsconfig.json"), TS_CONFIG)?;
    quiet(
        Command::new("npm")
            .args(["install", "--no-audit", "--no-fund"])
            .arg(artifact)
            .arg(format!(
                "typescript@{}",
                acp_generate::emit::typescript::TYPESCRIPT_VERSION
            ))
            .current_dir(&consumer),
        "npm install of the tarball",
    )?;
    let installed = consumer.join("node_modules").join(&names.npm_package);
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(installed.join("package.json"))?)?;
    ensure!(
        manifest["version"] == version,
        "the installed package.json has version {}",
        manifest["version"]
    );
    ensure!(
        manifest["sideEffects"] == false && manifest["engines"]["node"].is_string() && manifest["files"].is_array(),
        "package.json: {manifest}"
    );
    for file in [
        manifest["types"].as_str(),
        manifest["exports"]["."]["default"].as_str(),
        Some("dist/index.js.map"),
        Some("schema/acp.schema.json"),
    ] {
        let file = file.context("package.json names its `types` and `exports`")?;
        ensure!(installed.join(file).is_file(), "the installed package lacks {file}");
    }
    readme_holds_example(
        &std::fs::read_to_string(installed.join("README.md"))?,
        &emit::typescript::LANGUAGE,
        names,
    )?;
    quiet(
        Command::new("npm")
            .args(["exec", "--no", "--", "tsc", "-p", "tsconfig.json", "--strict"])
            .current_dir(&consumer),
        "tsc --strict on the usage example",
    )?;
    let output = quiet(
        Command::new("node")
            .arg(consumer.join("out").join("usage.js"))
            .current_dir(&consumer),
        "node on the usage example",
    )?;
    let mut publish = Command::new("npm");
    publish
        .args(["publish", "--dry-run"])
        .arg(artifact)
        .current_dir(&consumer);
    if version.contains('-') {
        publish.args(["--tag", "rfd"]);
    }
    quiet(&mut publish, "npm publish --dry-run")?;
    crate::support::lanes::say!("npm publish --dry-run passed");
    String::from_utf8(output).context("the example printed UTF-8")
}

/// A new virtual environment in `folder` installs `artifact` (a wheel or an
/// sdist, which pip builds with its declared backend), `mypy --strict` checks
/// the example against it, and its interpreter runs the example.
pub fn python(artifact: &Path, names: &PackageNames, version: &str, folder: &Path) -> Result<String> {
    let venv = folder.join("venv");
    quiet(
        Command::new("python3").args(["-m", "venv"]).arg(&venv),
        "python3 -m venv",
    )?;
    let interpreter = venv.join("bin").join("python");
    quiet(
        Command::new(&interpreter)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .arg(artifact),
        &format!("pip install {}", artifact.display()),
    )?;
    let metadata = installed_metadata(&interpreter, names)?;
    let spelled = format!("Version: {}", acp_generate::emit::package::python_version(version));
    for field in [
        spelled.as_str(),
        "Requires-Python: >=3.10",
        "License-Expression: Apache-2.0",
    ] {
        ensure!(
            metadata.lines().any(|line| line == field),
            "the installed METADATA lacks `{field}`"
        );
    }
    let pydantic = format!(
        "Requires-Dist: pydantic<3,>={}",
        acp_generate::emit::python::PYDANTIC_TESTED
    );
    ensure!(
        metadata.lines().any(|line| line == pydantic),
        "the installed METADATA lacks `{pydantic}`:\n{metadata}"
    );
    readme_holds_example(&metadata, &emit::python::LANGUAGE, names)?;
    let program = folder.join("usage").join("usage.py");
    write(&program, &emit::package::example(&emit::python::LANGUAGE, names)?)?;
    let tools = tools_python()?;
    quiet(
        Command::new(&tools)
            .args(["-m", "mypy", "--strict", "--python-executable"])
            .arg(&interpreter)
            .arg("--cache-dir")
            .arg(folder.join("mypy-cache"))
            .arg(&program)
            .current_dir(program.parent().context("the program has a folder")?),
        "mypy --strict on the usage example",
    )?;
    let output = quiet(
        Command::new(&interpreter).arg(&program).current_dir(folder),
        "python on the usage example",
    )?;
    String::from_utf8(output).context("the example printed UTF-8")
}

/// A new Go module in `work` gets the module with `go get` at its tag from
/// the proxy folder the zip is in (`GOPROXY=file://...`), into a module
/// cache of its own, offline, the checksum database not asked for it (it
/// is not published yet), and `go mod tidy` records it as a direct
/// requirement. Its `go.sum` must hold the hashes of the zip and
/// its `.mod` file, `go mod verify` must pass, the downloaded module must
/// hold its go.mod, the schema and the README with the example; the
/// example, formatted as gofmt writes it, passes `go vet` and staticcheck
/// and runs.
pub fn go(artifact: &Path, names: &PackageNames, version: &str, work: &Path) -> Result<String> {
    let module = &names.go_module;
    let tag = emit::go::module_version(version);
    let proxy = go_proxy_root(artifact, module)?;
    let cache = work.join("go-modcache");
    let consumer = work.join("go-consumer");
    write(
        &consumer.join("go.mod"),
        &format!("module acp-bindings-consumer\n\ngo {}\n", emit::go::GO_VERSION),
    )?;
    write(
        &consumer.join("main.go"),
        &emit::package::example(&emit::go::LANGUAGE, names)?,
    )?;
    let consuming = |command: &mut Command| {
        command
            .env("GOPROXY", format!("file://{}", proxy.display()))
            .env("GONOSUMDB", module)
            .env("GOPRIVATE", "")
            .env("GONOPROXY", "")
            .env("GOFLAGS", "-modcacherw")
            .env("GOMODCACHE", &cache)
            .current_dir(&consumer);
    };
    let go = |arguments: &[&str]| {
        let mut command = crate::support::tools::go(&consumer);
        command.args(arguments);
        consuming(&mut command);
        command
    };
    quiet(
        &mut go(&["get", &format!("{module}@{tag}")]),
        &format!("go get {module}@{tag} from the proxy folder"),
    )?;
    quiet(&mut go(&["mod", "tidy"]), "go mod tidy in the consumer")?;
    let manifest = std::fs::read_to_string(consumer.join("go.mod"))?;
    ensure!(
        manifest
            .lines()
            .any(|line| line.trim() == format!("require {module} {tag}")),
        "the consumer's go.mod does not require {module} {tag}:\n{manifest}"
    );
    let sums = std::fs::read_to_string(consumer.join("go.sum")).context("reading the consumer's go.sum")?;
    let zipped = go_sums(artifact, &artifact.with_extension("mod"), module, &tag)?;
    for line in zipped.lines() {
        ensure!(
            sums.lines().any(|sum| sum == line),
            "the consumer's go.sum lacks `{line}`, the hash of the artifact:\n{sums}"
        );
    }
    let verified = quiet(&mut go(&["mod", "verify"]), "go mod verify")?;
    ensure!(
        String::from_utf8_lossy(&verified).trim() == "all modules verified",
        "go mod verify printed {}",
        String::from_utf8_lossy(&verified)
    );
    let downloaded = cache.join(format!("{}@{}", go_escape(module), go_escape(&tag)));
    let go_mod = std::fs::read_to_string(downloaded.join("go.mod"))
        .with_context(|| format!("reading the downloaded module's go.mod in {}", downloaded.display()))?;
    ensure!(
        go_mod.starts_with(&format!("module {module}\n")),
        "the downloaded go.mod:\n{go_mod}"
    );
    ensure!(
        downloaded.join("acp.schema.json").is_file(),
        "the downloaded module lacks acp.schema.json"
    );
    readme_holds_example(
        &std::fs::read_to_string(downloaded.join("README.md"))?,
        &emit::go::LANGUAGE,
        names,
    )?;
    let unformatted = quiet(
        Command::new("gofmt").args(["-l", "main.go"]).current_dir(&consumer),
        "gofmt -l on the usage example",
    )?;
    ensure!(
        unformatted.is_empty(),
        "the Go usage example is not formatted as gofmt writes it"
    );
    quiet(&mut go(&["vet", "."]), "go vet on the usage example")?;
    let mut staticcheck = Command::new(crate::support::tools::staticcheck(
        &crate::support::tools::workspace_root(),
    )?);
    staticcheck.arg(".").env("GOTOOLCHAIN", "local").env("GOWORK", "off");
    consuming(&mut staticcheck);
    quiet(&mut staticcheck, "staticcheck on the usage example")?;
    let output = quiet(&mut go(&["run", "."]), "go run of the usage example")?;
    crate::support::lanes::say!("go get from the proxy folder and go mod verify passed; go.sum holds the zip's hashes");
    String::from_utf8(output).context("the example printed UTF-8")
}

/// The proxy folder holding `artifact` (`<root>/<escaped module>/@v/<file>`).
fn go_proxy_root(artifact: &Path, module: &str) -> Result<PathBuf> {
    let escaped = go_escape(module);
    let folder = artifact
        .parent()
        .and_then(Path::parent)
        .filter(|folder| folder.ends_with(&escaped) && artifact.parent().is_some_and(|at| at.ends_with("@v")))
        .with_context(|| format!("{} is not in `{escaped}/@v/` of a proxy folder", artifact.display()))?;
    let mut root = folder;
    for _ in Path::new(&escaped).components() {
        root = root.parent().context("the proxy folder has a parent")?;
    }
    Ok(root.to_path_buf())
}

/// A module path or version as the module cache and the proxy spell it:
/// each capital letter as `!` and the small one.
fn go_escape(text: &str) -> String {
    text.chars()
        .flat_map(|character| {
            if character.is_ascii_uppercase() {
                vec!['!', character.to_ascii_lowercase()]
            } else {
                vec![character]
            }
        })
        .collect()
}

/// The installed distribution's METADATA, and a check that it has `py.typed`.
fn installed_metadata(interpreter: &Path, names: &PackageNames) -> Result<String> {
    let script = format!(
        "import importlib.metadata as m, importlib.resources as r\nassert r.files('{0}').joinpath('py.typed').is_file()\nassert r.files('{0}').joinpath('acp.schema.json').is_file()\nprint(m.distribution('{1}').read_text('METADATA'))",
        names.python_package,
        names.python_package.replace('_', "-")
    );
    let output = quiet(
        Command::new(interpreter).args(["-c", &script]),
        "reading the installed METADATA",
    )?;
    let text = String::from_utf8(output).context("METADATA is UTF-8")?;
    if text.trim().is_empty() {
        bail!("the installed distribution has no METADATA");
    }
    Ok(text)
}

/// The package's README (for Python, the METADATA that carries it) shows
/// the very program the check runs.
fn readme_holds_example(readme: &str, language: &Language, names: &PackageNames) -> Result<()> {
    let example = emit::package::example(language, names)?;
    ensure!(
        readme.contains(&example),
        "{}: the package's README does not show the usage example the check runs",
        language.id
    );
    Ok(())
}

fn unpack(archive: &Path, into: &Path) -> Result<()> {
    std::fs::create_dir_all(into).with_context(|| format!("creating {}", into.display()))?;
    quiet(
        Command::new("tar").arg("-xzf").arg(archive).arg("-C").arg(into),
        &format!("tar -xzf {}", archive.display()),
    )
    .map(drop)
}

fn write(path: &Path, contents: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_are_escaped_as_the_module_cache_spells_them() {
        assert_eq!(go_escape("github.com/Azure/ACP"), "github.com/!azure/!a!c!p");
        assert_eq!(
            go_escape("example.com/acp@v1.0.0-dev.7"),
            "example.com/acp@v1.0.0-dev.7"
        );
    }

    #[test]
    fn the_proxy_folder_is_found_above_the_module_folder() {
        let artifact = Path::new("/dist/go-proxy/example.com/!my/acp/@v/v1.0.0.zip");
        assert_eq!(
            go_proxy_root(artifact, "example.com/My/acp").unwrap(),
            Path::new("/dist/go-proxy")
        );
        let error = go_proxy_root(Path::new("/dist/v1.0.0.zip"), "example.com/acp").unwrap_err();
        assert!(error.to_string().contains("example.com/acp/@v/"), "{error}");
        assert!(go_proxy_root(
            Path::new("/dist/go-proxy/example.com/other/@v/v1.0.0.zip"),
            "example.com/acp"
        )
        .is_err());
    }
}
