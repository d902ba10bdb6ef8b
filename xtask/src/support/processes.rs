//! Programs that end with the run. [`run`] starts a command in a process
//! group of its own, marked by an environment variable every descendant
//! inherits, and once the command has exited looks for what it left
//! behind: any live process in its group, or carrying its mark (which also
//! finds those that moved to a group or session of their own). They are
//! killed, and named to the caller, which fails on them.
//!
//! A group of its own does not get the terminal's Ctrl-C: while a command
//! runs, an interrupt (SIGINT, SIGTERM, SIGHUP) of this process kills its
//! group (every running command's, when several run at once) first, then
//! ends this process as the signal would have.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

/// The variable that marks a command's processes.
const MARK: &str = "ACP_XTASK_GROUP";
/// How long the processes of a command that exited get to end on their own.
const GRACE: Duration = Duration::from_secs(2);

/// The groups of the commands [`run`] is waiting for, 0 in a free slot:
/// the interop matrix runs a few cells at once ([`super::pool`]).
static RUNNING: [AtomicI32; 16] = [const { AtomicI32::new(0) }; 16];

/// Records `group` in a free slot of [`RUNNING`] and returns the slot;
/// `None` when every slot is taken (the group is then not killed on an
/// interrupt, only at its command's end).
fn register(group: i32) -> Option<usize> {
    RUNNING.iter().position(|slot| {
        slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// On an interrupt: kills the running group, then takes the signal's
/// default action. Only async-signal-safe calls.
extern "C" fn interrupted(signal: libc::c_int) {
    for slot in &RUNNING {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe and touches no memory of ours.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
    }
    // SAFETY: signal(2) and raise(3) are async-signal-safe and touch no
    // memory of ours.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs [`interrupted`] for SIGINT, SIGTERM and SIGHUP, once.
fn handle_interrupts() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only makes async-signal-safe calls.
            unsafe { libc::signal(signal, interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t) };
        }
    });
}

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
            kill_all(group, &mark);
        }
        std::thread::sleep(Duration::from_millis(20));
    };

    let deadline = Instant::now() + GRACE;
    let mut left = settled_members(group, &mark);
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        left = settled_members(group, &mark);
    }
    let left_behind = left.iter().map(|(pid, name)| format!("{pid} {name}")).collect();
    kill_all(group, &mark);
    if let Some(slot) = slot {
        RUNNING[slot].store(0, Ordering::SeqCst);
    }

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

/// [`members`], trusted only when two scans a moment apart agree that none
/// is left: a process in the middle of `execve` shows an empty environment
/// (so no mark) for an instant, and one that just left the group by
/// `setsid` is then findable only by that mark.
fn settled_members(group: u32, mark: &str) -> Vec<(u32, String)> {
    let left = members(group, mark);
    if !left.is_empty() {
        return left;
    }
    std::thread::sleep(Duration::from_millis(20));
    members(group, mark)
}

/// Kills the group and every process with the mark, until none is left.
fn kill_all(group: u32, mark: &str) {
    for _ in 0..50 {
        // SAFETY: kill(2) with a negative pid signals a process group; it
        // touches no memory of ours.
        unsafe { libc::kill(-(group as libc::pid_t), libc::SIGKILL) };
        let left = settled_members(group, mark);
        if left.is_empty() {
            return;
        }
        for (pid, _) in left {
            // SAFETY: as above, one process.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The live processes (not zombies) in process group `group` or carrying
/// `mark`, as (pid, name).
fn members(group: u32, mark: &str) -> Vec<(u32, String)> {
    let wanted = format!("{MARK}={mark}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (name) state ppid pgrp ...`; the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let name = stat[open + 1..close].to_owned();
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        if fields.first() == Some(&"Z") || fields.first() == Some(&"X") {
            continue;
        }
        let in_group = fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == Some(group);
        let marked = || {
            std::fs::read(entry.path().join("environ"))
                .is_ok_and(|environ| environ.split(|byte| *byte == 0).any(|pair| pair == wanted.as_bytes()))
        };
        if in_group || marked() {
            found.push((pid, name));
        }
    }
    found
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
