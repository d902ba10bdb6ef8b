//! Nothing outlives a run: [`watched`] marks this process's environment
//! before a command (`test`, `interop`, `conformance`) starts anything, so
//! that every process it starts, by whatever API and through however many
//! descendants, carries the mark, even one that called `setsid` or changed
//! its group. When the command has ended, failed or not, any live process
//! with the mark is killed and the command fails naming it. An interrupt
//! of this process kills them all before it ends this process.

use std::io::Read;
use std::os::fd::IntoRawFd;
use std::sync::atomic::Ordering;

use anyhow::{anyhow, Result};

use super::interrupts::{handle_interrupts, INTERRUPTS};
use super::scan::{kill_all, left_behind, Marks};

/// The variable that marks every process of a run.
const RUN_MARK: &str = "ACP_XTASK_RUN";

/// Runs `command` with this process's environment marked, then fails if
/// it left a process behind; when `command` failed too, the error names
/// both. Called before the command starts a thread: setting a variable of
/// this process is only sound while no other thread reads the environment.
pub fn watched<T>(command: impl FnOnce() -> Result<T>) -> Result<T> {
    let mark = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos())
    );
    std::env::set_var(RUN_MARK, &mark);
    end_on_interrupt(format!("{RUN_MARK}={mark}"));
    ended(command(), &mark)
}

/// Starts the thread that, once [`super::interrupts`] hands it a signal,
/// kills every process carrying `variable`, then ends this process as the
/// signal would have.
fn end_on_interrupt(variable: String) {
    let Ok((mut reader, writer)) = std::io::pipe() else {
        // No pipe: an interrupt ends this process at once, as by default.
        return;
    };
    std::thread::spawn(move || {
        let mut signal = [0u8];
        if reader.read_exact(&mut signal).is_err() {
            return;
        }
        kill_all(Marks {
            group: None,
            variable: &variable,
        });
        let signal = libc::c_int::from(signal[0]);
        // SAFETY: signal(2) and raise(3) touch no memory of ours.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::raise(signal);
        }
    });
    INTERRUPTS.store(writer.into_raw_fd(), Ordering::SeqCst);
    handle_interrupts();
}

/// `outcome`, failed if a process marked `mark` outlived the run.
fn ended<T>(outcome: Result<T>, mark: &str) -> Result<T> {
    let variable = format!("{RUN_MARK}={mark}");
    let left = left_behind(Marks {
        group: None,
        variable: &variable,
    });
    if left.is_empty() {
        return outcome;
    }
    let named: Vec<String> = left
        .iter()
        .map(|process| format!("  {} {}: {}", process.pid, process.name, process.command_line))
        .collect();
    let message = format!(
        "{} process(es) this run started outlived it (killed now):\n{}",
        left.len(),
        named.join("\n")
    );
    match outcome {
        Ok(_) => Err(anyhow!(message)),
        Err(error) => Err(anyhow!("{error:#}\nand {message}")),
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    /// A mark of the test's own, given to the commands it starts (setting
    /// this process's environment would mark every other test's too).
    fn test_mark(name: &str) -> String {
        format!("test-{}-{name}", std::process::id())
    }

    fn started(mark: &str, script: &str) {
        let status = Command::new("sh")
            .args(["-c", script])
            .env(RUN_MARK, mark)
            .status()
            .unwrap();
        assert!(status.success());
    }

    #[test]
    fn a_process_that_outlives_the_run_fails_it_and_is_killed() {
        let mark = test_mark("outlives");
        // The shell exits at once; its sleep, in a session of its own,
        // would outlive it.
        started(&mark, "setsid sleep 67 &");
        let error = ended(Ok(()), &mark).unwrap_err().to_string();
        assert!(
            error.starts_with("1 process(es) this run started outlived it"),
            "{error}"
        );
        assert!(error.contains(" sleep: sleep 67"), "{error}");
        assert!(ended(Ok(()), &mark).is_ok(), "it was killed");
    }

    #[test]
    fn a_failed_run_names_its_failure_and_what_outlived_it() {
        let mark = test_mark("failed");
        started(&mark, "setsid sleep 68 &");
        let error = ended::<()>(Err(anyhow!("the suite failed")), &mark)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("the suite failed\nand 1 process(es)"), "{error}");
        assert!(error.contains("sleep 68"), "{error}");
    }

    #[test]
    fn a_run_whose_processes_all_ended_passes() {
        let mark = test_mark("clean");
        started(&mark, "sleep 0.1 & wait");
        assert_eq!(ended(Ok(7), &mark).unwrap(), 7);
    }
}
