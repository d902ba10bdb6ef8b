//! Interrupts: a command that [`super::run`] started in a group of its own
//! does not get the terminal's Ctrl-C, so an interrupt (SIGINT, SIGTERM,
//! SIGHUP) of this process kills the group of every running command first;
//! then, in a watched run ([`super::watch`]), the run's watcher kills every
//! process with the run's mark; then this process ends as the signal
//! would have.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Once;

/// The groups of the commands [`super::run`] is waiting for, 0 in a free
/// slot: the interop matrix runs a few cells at once
/// ([`crate::support::pool`]).
static RUNNING: [AtomicI32; 16] = [const { AtomicI32::new(0) }; 16];

/// Records `group` in a free slot of [`RUNNING`] and returns the slot;
/// `None` when every slot is taken (the group is then not killed on an
/// interrupt, only at its command's end).
pub fn register(group: i32) -> Option<usize> {
    RUNNING.iter().position(|slot| {
        slot.compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// Frees `slot` of [`register`], if any.
pub fn release(slot: Option<usize>) {
    if let Some(slot) = slot {
        RUNNING[slot].store(0, Ordering::SeqCst);
    }
}

/// While a run is watched ([`super::watch`]), the pipe end [`interrupted`] hands
/// the signal to, for the run's watcher to end; -1 otherwise.
pub static INTERRUPTS: AtomicI32 = AtomicI32::new(-1);

/// On an interrupt: kills the running groups, then hands the signal to
/// the run's watcher, or without one takes the signal's default action.
/// Only async-signal-safe calls.
extern "C" fn interrupted(signal: libc::c_int) {
    for slot in &RUNNING {
        let group = slot.load(Ordering::SeqCst);
        if group > 0 {
            // SAFETY: kill(2) is async-signal-safe and touches no memory of ours.
            unsafe { libc::kill(-group, libc::SIGKILL) };
        }
    }
    let pipe = INTERRUPTS.load(Ordering::SeqCst);
    let byte = signal as u8;
    // SAFETY: write(2) is async-signal-safe; it reads the one byte above.
    if pipe >= 0 && unsafe { libc::write(pipe, std::ptr::addr_of!(byte).cast(), 1) } == 1 {
        return;
    }
    // SAFETY: signal(2) and raise(3) are async-signal-safe and touch no
    // memory of ours.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs [`interrupted`] for SIGINT, SIGTERM and SIGHUP, once.
pub fn handle_interrupts() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler only makes async-signal-safe calls.
            unsafe { libc::signal(signal, interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t) };
        }
    });
}
