//! Running independent pieces of a test run side by side, and timing every
//! step. The machines have two cores and most tools run on one, so the
//! language suites of one schema (and the mutants of each language) run in
//! lanes, one thread each, and the suites that run once beside them. A
//! lane's tools write into a log of its own
//! ([`run_checked`](super::tools::run_checked), [`show`] and [`say!`] write
//! there while a lane runs), which is printed whole when the lane ends, so that
//! the output of two tools never interleaves. [`Timings`] records how long
//! each step took and prints the table at the end of the run.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};

thread_local! {
    /// The log of the lane running on this thread; none outside lanes.
    static LOG: RefCell<Option<File>> = const { RefCell::new(None) };
}

/// Where a tool started on this thread writes: the lane's log, as a pair
/// of handles for its standard output and error, or none (inherit).
pub fn log_handles() -> Result<Option<(File, File)>> {
    LOG.with(|log| match log.borrow().as_ref() {
        Some(file) => Ok(Some((file.try_clone()?, file.try_clone()?))),
        None => Ok(None),
    })
}

/// Prints `text` to the lane's log, or to standard output outside lanes.
pub fn show(text: &str) {
    LOG.with(|log| match log.borrow_mut().as_mut() {
        Some(file) => {
            // A log that cannot be written loses the text, not the run.
            let _ = file.write_all(text.as_bytes());
        }
        None => {
            print!("{text}");
            let _ = std::io::stdout().flush();
        }
    });
}

/// Writes a line to the lane's log, or to standard error outside lanes.
pub fn say_line(text: &str) {
    LOG.with(|log| match log.borrow_mut().as_mut() {
        Some(file) => {
            let _ = writeln!(file, "{text}");
        }
        None => eprintln!("{text}"),
    });
}

/// `eprintln!` that writes to the lane's log inside a lane ([`say_line`]).
macro_rules! say {
    ($($argument:tt)*) => {
        $crate::support::lanes::say_line(&format!($($argument)*))
    };
}
pub(crate) use say;

/// One piece of work of [`run`]: its name and the work.
pub struct Lane<'a> {
    pub name: String,
    pub work: Box<dyn FnOnce() -> Result<()> + Send + 'a>,
}

/// Runs `lanes` side by side, each on a thread of its own with its log in
/// `logs`; prints each log when its lane ends and records each lane's time
/// in `timings`. Fails with the first failed lane (in the given order),
/// naming every failed one.
pub fn run(lanes: Vec<Lane<'_>>, logs: &Path, timings: &Timings) -> Result<()> {
    std::fs::create_dir_all(logs).with_context(|| format!("creating {}", logs.display()))?;
    let printing = Mutex::new(());
    let outcomes: Vec<(String, Result<()>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = lanes
            .into_iter()
            .map(|lane| {
                let path = logs.join(format!("{}.log", file_name(&lane.name)));
                let printing = &printing;
                let name = lane.name.clone();
                let handle = scope.spawn(move || {
                    let started = Instant::now();
                    let outcome = in_lane(&path, lane.work);
                    let elapsed = started.elapsed();
                    timings.record(&lane.name, elapsed);
                    let _guard = printing.lock();
                    eprintln!(
                        "== {} {} in {} (log: {})",
                        lane.name,
                        if outcome.is_ok() { "passed" } else { "FAILED" },
                        seconds(elapsed),
                        path.display()
                    );
                    match std::fs::read_to_string(&path) {
                        Ok(text) => print!("{text}"),
                        Err(error) => eprintln!("(the log {} cannot be read: {error})", path.display()),
                    }
                    let _ = std::io::stdout().flush();
                    outcome
                });
                (name, handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(name, handle)| {
                let outcome = handle
                    .join()
                    .unwrap_or_else(|_| Err(anyhow!("the lane {name} panicked")));
                (name, outcome)
            })
            .collect()
    });
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|(_, outcome)| outcome.is_err())
        .map(|(name, _)| name.clone())
        .collect();
    match outcomes.into_iter().find_map(|(_, outcome)| outcome.err()) {
        Some(first) if failed.len() > 1 => Err(first.context(format!("failed lanes: {}", failed.join(", ")))),
        Some(first) => Err(first),
        None => Ok(()),
    }
}

/// Runs `work` with this thread's tools writing to the log at `path`.
fn in_lane(path: &Path, work: Box<dyn FnOnce() -> Result<()> + Send + '_>) -> Result<()> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    LOG.with(|log| *log.borrow_mut() = Some(file));
    let outcome = work();
    LOG.with(|log| *log.borrow_mut() = None);
    outcome
}

/// A lane's name as a file name: letters, digits and `-` kept, the rest `-`.
fn file_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

/// How long each step of a run took, in the order they ended.
#[derive(Default)]
pub struct Timings {
    steps: Mutex<Vec<(String, Duration)>>,
}

impl Timings {
    /// Records that `step` took `elapsed`.
    pub fn record(&self, step: &str, elapsed: Duration) {
        if let Ok(mut steps) = self.steps.lock() {
            steps.push((step.to_owned(), elapsed));
        }
    }

    /// Runs `work` as `step`, recording its time whether it passes or not.
    pub fn time<T>(&self, step: &str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        let started = Instant::now();
        let outcome = work();
        self.record(step, started.elapsed());
        outcome
    }

    /// The table of steps, the longest first, with the run's wall time.
    pub fn table(&self, wall: Duration) -> String {
        let mut steps = self.steps.lock().map(|steps| steps.clone()).unwrap_or_default();
        steps.sort_by_key(|step| std::cmp::Reverse(step.1));
        let mut table = String::from("| step | time |\n|---|---|\n");
        for (step, elapsed) in steps {
            table.push_str(&format!("| {step} | {} |\n", seconds(elapsed)));
        }
        table.push_str(&format!("| the whole run (wall) | {} |\n", seconds(wall)));
        table
    }
}

/// The folder of the lanes' logs of one run under `workspace`'s target.
pub fn logs_folder(workspace: &Path, what: &str) -> PathBuf {
    workspace.join("target").join("test-logs").join(file_name(what))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_lane_writes_its_own_log_and_the_first_failure_is_returned() {
        let logs = crate::support::scratch::scratch("lanes");
        let timings = Timings::default();
        let lanes = vec![
            Lane {
                name: "one".to_owned(),
                work: Box::new(|| {
                    show("from one\n");
                    Ok(())
                }),
            },
            Lane {
                name: "two".to_owned(),
                work: Box::new(|| {
                    show("from two\n");
                    Err(anyhow!("two broke"))
                }),
            },
            Lane {
                name: "three".to_owned(),
                work: Box::new(|| Err(anyhow!("three broke"))),
            },
        ];
        let error = run(lanes, &logs, &timings).expect_err("two lanes failed");
        let text = format!("{error:#}");
        assert!(text.contains("two broke"), "{text}");
        assert!(text.contains("failed lanes: two, three"), "{text}");
        assert_eq!(std::fs::read_to_string(logs.join("one.log")).unwrap(), "from one\n");
        assert_eq!(std::fs::read_to_string(logs.join("two.log")).unwrap(), "from two\n");
        let table = timings.table(Duration::from_secs(1));
        for step in ["| one |", "| two |", "| three |", "| the whole run (wall) | 1.0 s |"] {
            assert!(table.contains(step), "{table}");
        }
    }

    #[test]
    fn a_tool_started_in_a_lane_writes_to_its_log() {
        let logs = crate::support::scratch::scratch("lanes-tool");
        let lanes = vec![Lane {
            name: "echo".to_owned(),
            work: Box::new(|| {
                crate::support::tools::run_checked(
                    std::process::Command::new("sh").args(["-c", "echo out; echo err >&2"]),
                    "echo",
                )
            }),
        }];
        run(lanes, &logs, &Timings::default()).unwrap();
        assert_eq!(std::fs::read_to_string(logs.join("echo.log")).unwrap(), "out\nerr\n");
    }
}
