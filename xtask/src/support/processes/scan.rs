//! Finding processes by their marks: the live processes /proc shows that
//! are in a given process group or carry a given `NAME=value` in the
//! environment they started with (which every descendant inherits, even
//! one that moved to a group or session of its own), and killing them.

use std::path::Path;
use std::time::{Duration, Instant};

/// How long the processes of a command (or a run) that ended get to end on
/// their own.
const GRACE: Duration = Duration::from_secs(2);

/// What a process is found by.
#[derive(Clone, Copy)]
pub struct Marks<'a> {
    /// Its process group, if any.
    pub group: Option<u32>,
    /// `NAME=value`, as it stands in /proc/PID/environ.
    pub variable: &'a str,
}

/// A live process (not a zombie) as /proc shows it.
pub struct Process {
    pub pid: u32,
    /// The name of its executable, as the kernel keeps it (15 bytes at most).
    pub name: String,
    /// Its command line, arguments joined by spaces.
    pub command_line: String,
}

/// The command line in `folder` (/proc/PID), arguments joined by spaces.
fn command_line(folder: &Path) -> String {
    let bytes = std::fs::read(folder.join("cmdline")).unwrap_or_default();
    let arguments: Vec<_> = bytes
        .split(|byte| *byte == 0)
        .filter(|argument| !argument.is_empty())
        .map(String::from_utf8_lossy)
        .collect();
    arguments.join(" ")
}

/// The live processes with either mark, but this one.
pub fn members(marks: Marks) -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let own = std::process::id();
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        if pid == own {
            continue;
        }
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
        let in_group = marks.group.is_some() && fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == marks.group;
        let marked = || {
            std::fs::read(entry.path().join("environ")).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|pair| pair == marks.variable.as_bytes())
            })
        };
        if in_group || marked() {
            found.push(Process {
                pid,
                name,
                command_line: command_line(&entry.path()),
            });
        }
    }
    found
}

/// [`members`], trusted only when two scans a moment apart agree that none
/// is left: a process in the middle of `execve` shows an empty environment
/// (so no mark) for an instant, and one that just left the group by
/// `setsid` is then findable only by that mark.
pub fn settled_members(marks: Marks) -> Vec<Process> {
    let left = members(marks);
    if !left.is_empty() {
        return left;
    }
    std::thread::sleep(Duration::from_millis(20));
    members(marks)
}

/// Kills the group and every process with either mark, until none is left.
pub fn kill_all(marks: Marks) {
    for _ in 0..50 {
        if let Some(group) = marks.group {
            // SAFETY: kill(2) with a negative pid signals a process group; it
            // touches no memory of ours.
            unsafe { libc::kill(-(group as libc::pid_t), libc::SIGKILL) };
        }
        let left = settled_members(marks);
        if left.is_empty() {
            return;
        }
        for process in left {
            // SAFETY: as above, one process.
            unsafe { libc::kill(process.pid as libc::pid_t, libc::SIGKILL) };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The processes with `marks` still alive [`GRACE`] after what started
/// them ended, which are then killed.
pub fn left_behind(marks: Marks) -> Vec<Process> {
    let deadline = Instant::now() + GRACE;
    let mut left = settled_members(marks);
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        left = settled_members(marks);
    }
    kill_all(marks);
    left
}
