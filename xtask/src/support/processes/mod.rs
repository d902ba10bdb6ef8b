//! Programs that end with the run. [`run`] starts a command in a process
//! group of its own, marked by an environment variable every descendant
//! inherits, and once the command has exited looks for what it left
//! behind: any live process in its group, or carrying its mark (which also
//! finds those that moved to a group or session of their own). They are
//! killed, and named to the caller, which fails on them. [`watched`] does
//! the same for a whole command of `cargo xtask` ([`watch`]), whatever
//! started its processes; [`scan`] finds processes by their marks, and
//! [`interrupts`] ends them all when this process is interrupted.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use interrupts::{handle_interrupts, register, release};
use scan::{left_behind, Marks};

mod interrupts;
mod scan;
mod watch;

pub use watch::watched;

/// The variable that marks a command's processes.
const MARK: &str = "ACP_XTASK_GROUP";

/// How a command ended, and the processes it left behind (`pid name`).
pub struct Ended {
    pub output: Output,
    pub left_behind: Vec<String>,
    /// Whether it was killed for running past its limit.
    pub timed_out: bool,
}

/// Runs `command` to the end in a group of its own, capturing its output
/// as [`Command::output`] does, with `input` written to its standard input,
/// which is then closed (none without), then kills every process it left
/// behind and names them. A command still running after `limit` is killed
/// with its group, and said to have timed out.
pub fn run(command: &mut Command, input: Option<&[u8]>, limit: Duration) -> std::io::Result<Ended> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    handle_interrupts();
    let mark = format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let mut child = command
        .env(MARK, &mark)
        .process_group(0)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let group = child.id();
    let marks = Marks {
        group: Some(group),
        variable: &format!("{MARK}={mark}"),
    };
    let slot = register(group as i32);
    if let (Some(input), Some(mut stdin)) = (input, child.stdin.take()) {
        // A command that exits without reading it all is no failure here.
        let _ = stdin.write_all(input);
    }
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(child.stdout.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>));
    let stderr = drain(child.stderr.take().map(|pipe| Box::new(pipe) as Box<dyn Read + Send>));
    let stop = Instant::now() + limit;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= stop && !timed_out {
            timed_out = true;
            scan::kill_all(marks);
        }
        std::thread::sleep(Duration::from_millis(20));
    };

    let left_behind = left_behind(marks)
        .iter()
        .map(|process| format!("{} {}", process.pid, process.name))
        .collect();
    release(slot);

    Ok(Ended {
        output: Output {
            status,
            stdout: stdout.join().unwrap_or_default(),
            stderr: stderr.join().unwrap_or_default(),
        },
        left_behind,
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: Duration = Duration::from_secs(30);

    #[test]
    fn a_process_left_behind_is_named_and_killed() {
        // The shell exits at once; its background sleep, in a session of
        // its own, would outlive it.
        let ended = run(
            Command::new("sh").args(["-c", "setsid sleep 60 & echo started"]),
            None,
            LIMIT,
        )
        .unwrap();
        assert!(ended.output.status.success());
        assert_eq!(String::from_utf8_lossy(&ended.output.stdout).trim(), "started");
        assert_eq!(ended.left_behind.len(), 1, "{:?}", ended.left_behind);
        assert!(ended.left_behind[0].ends_with(" sleep"), "{:?}", ended.left_behind);
        let pid: u32 = ended.left_behind[0].split(' ').next().unwrap().parse().unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(stat.is_empty() || stat.contains(") Z"), "{stat}");
    }

    #[test]
    fn a_command_that_waits_for_its_children_leaves_nothing() {
        let ended = run(
            Command::new("sh").args(["-c", "sleep 0.1 & wait; echo done"]),
            None,
            LIMIT,
        )
        .unwrap();
        assert!(ended.output.status.success());
        assert!(ended.left_behind.is_empty(), "{:?}", ended.left_behind);
    }

    #[test]
    fn the_input_reaches_the_command_and_then_ends() {
        // `cat` ends only once its input is closed.
        let ended = run(&mut Command::new("cat"), Some(b"1\n"), LIMIT).unwrap();
        assert!(ended.output.status.success());
        assert_eq!(ended.output.stdout, b"1\n");
        let without = run(&mut Command::new("cat"), None, LIMIT).unwrap();
        assert!(without.output.stdout.is_empty());
    }

    #[test]
    fn a_command_past_its_limit_is_killed_with_its_group() {
        let started = Instant::now();
        let ended = run(
            Command::new("sh").args(["-c", "sleep 60 & echo started; wait"]),
            None,
            Duration::from_millis(300),
        )
        .unwrap();
        assert!(ended.timed_out);
        assert!(!ended.output.status.success());
        assert_eq!(String::from_utf8_lossy(&ended.output.stdout).trim(), "started");
        assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
        let quick = run(&mut Command::new("true"), None, LIMIT).unwrap();
        assert!(!quick.timed_out);
    }
}
