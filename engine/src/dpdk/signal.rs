//! Ctrl-C and `kill`: SIGINT and SIGTERM set a [`StopFlag`] so that a run
//! winds down and still reports; a second signal, when the run did not
//! wind down, ends the process at once with status 130.

use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};

use crate::counter::StopFlag;

/// The flag the handler sets (null until [`on_interrupt`] is called).
static FLAG: AtomicPtr<StopFlag> = AtomicPtr::new(ptr::null_mut());

/// Exit status after a second signal: 128 + SIGINT, as a shell reports it.
const EXIT_INTERRUPTED: libc::c_int = 130;

/// From now on, the first SIGINT or SIGTERM stops `flag`; a signal that
/// arrives when `flag` is already stopped exits the process at once
/// (`_exit(130)`, nothing unwound or flushed). Calling it again points the
/// handler at the new flag.
pub fn on_interrupt(flag: &'static StopFlag) {
    FLAG.store(ptr::from_ref(flag).cast_mut(), Ordering::Release);
    let handler = handle as extern "C" fn(libc::c_int);
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `handle` is an `extern "C" fn(c_int)` that only does
        // async-signal-safe things (atomic loads and stores, `_exit`), and
        // the flag it reaches is `'static`, so it stays valid for as long
        // as the handler may run.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

extern "C" fn handle(_: libc::c_int) {
    // SAFETY: FLAG holds null or a pointer made from a `&'static StopFlag`
    // by `on_interrupt`: valid for the whole process, and only read here.
    let Some(flag) = (unsafe { FLAG.load(Ordering::Acquire).as_ref() }) else {
        return;
    };
    if flag.stopped() {
        // A second signal: the run did not wind down; leave at once.
        // SAFETY: _exit is async-signal-safe and takes no pointer.
        unsafe { libc::_exit(EXIT_INTERRUPTED) };
    }
    flag.stop();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_stops_the_flag() {
        static STOP: StopFlag = StopFlag::new_const();
        on_interrupt(&STOP);
        assert!(!STOP.stopped());
        // SAFETY: raise sends the signal to this thread; the handler just
        // installed only sets STOP (not yet stopped, so no exit).
        unsafe { libc::raise(libc::SIGTERM) };
        assert!(STOP.stopped());
    }
}
