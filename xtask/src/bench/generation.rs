//! Generation, timed as whole processes: `xtask generate` (every registered
//! language, the schema and the validated vectors; the release build in a
//! full run, the running build with `--quick`), regenerating into the
//! output of the run before and into a new folder, and TypeScript alone
//! (what json-schema-to-typescript makes, with the schema and vectors
//! besides), against
//! `node -e 'JSON.parse(...)'` on the schema file it writes, and with
//! `--peers` against json-schema-to-typescript, quicktype (per language)
//! and datamodel-code-generator on that same file, each pinned and
//! installed under `target/bench/peers/`. Peak memory comes from
//! `/usr/bin/time` where the machine has it. A peer that fails is reported
//! as failed, not as a time.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};

use super::measure::{write_if_changed, Setup};
use crate::support::tools::cargo;
use crate::support::tools::run_checked;

const JSON_SCHEMA_TO_TYPESCRIPT: &str = "16.0.0";
const QUICKTYPE: &str = "26.0.0";
const DATAMODEL_CODE_GENERATOR: &str = "0.89.0";

/// One generator's timings.
pub struct Timing {
    pub tool: String,
    /// What it generates.
    pub output: String,
    pub seconds: Vec<f64>,
    pub peak_kib: Option<u64>,
    /// Why it did not finish, when it did not.
    pub failure: Option<String>,
}

impl Timing {
    pub fn median(&self) -> f64 {
        super::measure::median(&self.seconds)
    }
}

/// What `xtask generate` writes: every language's package, the schema and
/// the vectors.
pub(super) fn everything() -> String {
    let languages: Vec<&str> = crate::registry::LANGUAGES
        .iter()
        .map(|language| language.name())
        .collect();
    format!("{}, schema, vectors", languages.join(", "))
}

/// Times `runs` runs of `command` (built afresh by `make` each time, before
/// the clock starts).
pub(super) fn time(tool: &str, output: &str, runs: usize, make: &dyn Fn() -> Command) -> Timing {
    let mut timing = Timing {
        tool: tool.to_owned(),
        output: output.to_owned(),
        seconds: Vec::new(),
        peak_kib: None,
        failure: None,
    };
    let wrapper = Path::new("/usr/bin/time");
    for _ in 0..runs {
        let command = make();
        let mut measured = if wrapper.is_file() {
            let mut wrapped = Command::new(wrapper);
            wrapped
                .arg("-f")
                .arg("acp-bench-peak-kib %M")
                .arg(command.get_program())
                .args(command.get_args());
            if let Some(folder) = command.get_current_dir() {
                wrapped.current_dir(folder);
            }
            for (key, value) in command.get_envs() {
                match value {
                    Some(value) => wrapped.env(key, value),
                    None => wrapped.env_remove(key),
                };
            }
            wrapped
        } else {
            command
        };
        let start = Instant::now();
        let result = measured.output();
        let elapsed = start.elapsed().as_secs_f64();
        match result {
            Ok(output) if output.status.success() => {
                timing.seconds.push(elapsed);
                let stderr = String::from_utf8_lossy(&output.stderr);
                let peak = stderr
                    .lines()
                    .filter_map(|line| line.strip_prefix("acp-bench-peak-kib "))
                    .find_map(|kib| kib.trim().parse::<u64>().ok());
                timing.peak_kib = timing.peak_kib.max(peak);
            }
            Ok(output) => {
                let stderr = String::from_utf8_lossy(&output.stderr);
                // The last line the program wrote, not the wrapper's own.
                let reason = stderr
                    .lines()
                    .rev()
                    .find(|line| {
                        !line.trim().is_empty()
                            && !line.starts_with("acp-bench-peak-kib")
                            && !line.starts_with("Command exited with non-zero status")
                    })
                    .unwrap_or("no message");
                timing.failure = Some(format!("exit {}: {reason:.200}", output.status.code().unwrap_or(-1)));
                break;
            }
            Err(error) => {
                timing.failure = Some(format!("did not start: {error}"));
                break;
            }
        }
    }
    timing
}

/// The xtask executable to time: the release build in a full run.
pub fn xtask(setup: &Setup) -> Result<(PathBuf, &'static str)> {
    if setup.quick {
        return Ok((crate::support::tools::running_xtask()?, "running build"));
    }
    eprintln!("bench: building xtask (release)");
    run_checked(
        cargo()
            .args(["build", "--quiet", "--release", "--package", "xtask"])
            .current_dir(&setup.workspace),
        "cargo build --release -p xtask",
    )?;
    Ok((
        setup.workspace.join("target").join("release").join("xtask"),
        "release build",
    ))
}

/// Installs the peers once per manifest; returns the npm bin folder and the Python environment's bin folder.
fn install_peers(setup: &Setup) -> Result<(PathBuf, PathBuf)> {
    let folder = setup.folder.join("peers");
    let node = folder.join("node");
    let manifest = format!(
        "{{\n  \"private\": true,\n  \"dependencies\": {{\n    \"json-schema-to-typescript\": \"{JSON_SCHEMA_TO_TYPESCRIPT}\",\n    \"quicktype\": \"{QUICKTYPE}\"\n  }}\n}}\n"
    );
    let changed = write_if_changed(&node.join("package.json"), &manifest)?;
    if changed || !node.join("node_modules").join(".bin").join("quicktype").is_file() {
        eprintln!("bench: installing json-schema-to-typescript@{JSON_SCHEMA_TO_TYPESCRIPT} and quicktype@{QUICKTYPE}");
        run_checked(
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--silent"])
                .current_dir(&node),
            "npm install of the generator peers",
        )?;
    }
    let venv = folder.join("venv");
    super::python::environment(
        &venv,
        &format!("datamodel-code-generator=={DATAMODEL_CODE_GENERATOR}\n"),
    )?;
    Ok((node.join("node_modules").join(".bin"), venv.join("bin")))
}

/// Times `xtask` (the executable [`xtask`] gave, built as `build`) and, with `peers`, the peers.
pub fn measure(setup: &Setup, (xtask, build): (&Path, &str), peers: bool) -> Result<Vec<Timing>> {
    let runs = if setup.quick { 1 } else { 5 };
    let work = setup.folder.join("generation");
    std::fs::create_dir_all(&work).with_context(|| format!("creating {}", work.display()))?;
    let schema = setup.bindings.join("schema").join("acp.schema.json");
    let ours_out = work.join("bindings");
    let fresh_out = work.join("bindings-new");
    eprintln!("bench: timing generation");
    let mut timings = vec![
        // Regenerating: the output of the run before is there, so only
        // what changed is written (none of it, the schema being the same).
        time(&format!("xtask generate ({build})"), &everything(), runs, &|| {
            let mut command = Command::new(xtask);
            command
                .arg("generate")
                .arg("--out")
                .arg(&ours_out)
                .current_dir(&setup.workspace);
            command
        }),
        // A first run: every file is created.
        time(
            &format!("xtask generate ({build}), into a new folder"),
            "the same, every file written",
            runs,
            &|| {
                let _ = std::fs::remove_dir_all(&fresh_out);
                let mut command = Command::new(xtask);
                command
                    .arg("generate")
                    .arg("--out")
                    .arg(&fresh_out)
                    .current_dir(&setup.workspace);
                command
            },
        ),
        // TypeScript alone, the one language json-schema-to-typescript writes.
        time(
            &format!("xtask generate ({build}) --lang typescript"),
            "TypeScript, schema, vectors",
            runs,
            &|| {
                let mut command = Command::new(xtask);
                command
                    .args(["generate", "--lang", "typescript", "--out"])
                    .arg(work.join("bindings-typescript"))
                    .current_dir(&setup.workspace);
                command
            },
        ),
        time(
            "node -e 'JSON.parse(...)'",
            "nothing (reads the schema file)",
            runs,
            &|| {
                let mut command = Command::new("node");
                command
                    .arg("-e")
                    .arg("JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))")
                    .arg(&schema);
                command
            },
        ),
    ];
    if peers {
        let (npm_bin, python_bin) = install_peers(setup)?;
        timings.push(time(
            &format!("json-schema-to-typescript {JSON_SCHEMA_TO_TYPESCRIPT}"),
            "TypeScript types",
            runs,
            &|| {
                let mut command = Command::new(npm_bin.join("json2ts"));
                command.arg("-i").arg(&schema).arg("-o").arg(work.join("json2ts.ts"));
                command
            },
        ));
        for (language, file) in [
            ("typescript", "quicktype.ts"),
            ("rust", "quicktype.rs"),
            ("python", "quicktype.py"),
        ] {
            timings.push(time(
                &format!("quicktype {QUICKTYPE}"),
                &format!("{language} types"),
                runs,
                &|| {
                    let mut command = Command::new(npm_bin.join("quicktype"));
                    command
                        .args(["--src-lang", "schema", "--lang", language, "--out"])
                        .arg(work.join(file))
                        .arg(&schema);
                    command
                },
            ));
        }
        timings.push(time(
            &format!("datamodel-code-generator {DATAMODEL_CODE_GENERATOR}"),
            "Python pydantic v2 models",
            runs,
            &|| {
                let mut command = Command::new(python_bin.join("datamodel-codegen"));
                command
                    .args([
                        "--input-file-type",
                        "jsonschema",
                        "--output-model-type",
                        "pydantic_v2.BaseModel",
                        "--input",
                    ])
                    .arg(&schema)
                    .arg("--output")
                    .arg(work.join("datamodel.py"));
                command
            },
        ));
    }
    Ok(timings)
}
