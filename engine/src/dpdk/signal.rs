//! Ctrl-C, `kill` and a dropped terminal: SIGINT, SIGTERM and SIGHUP stop
//! a run so that it winds down and still reports.
//!
//! - The first signal stops the [`StopFlag`] and is recorded as its cause.
//! - A second one (a second Ctrl-C, as people press it) hurries the flag:
//!   the wind-down skips its waits, and the summary and the JSON are still
//!   written.
//! - A third one means the process is stuck: a watcher thread runs the
//!   cleanup it was given (removing the process's own DPDK runtime
//!   directory) and ends the process with status 130, nothing else
//!   unwound or flushed.
//!
//! The handler itself only does atomic loads and stores and one `write`
//! to a socket (all async-signal-safe); the cleanup runs on the watcher
//! thread, where anything may be called.

use std::io::Read;
use std::os::fd::{AsRawFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::ptr;
use std::sync::atomic::{AtomicI32, AtomicPtr, AtomicU32, Ordering};
use std::sync::Once;

use crate::counter::StopFlag;

/// The flag the handler sets (null until [`on_interrupt`] is called).
static FLAG: AtomicPtr<StopFlag> = AtomicPtr::new(ptr::null_mut());
/// Signals received since [`on_interrupt`].
static COUNT: AtomicU32 = AtomicU32::new(0);
/// The socket the handler writes to on the third signal (-1: no watcher).
static WAKE: AtomicI32 = AtomicI32::new(-1);

/// Exit status after a third signal: 128 + SIGINT, as a shell reports it.
pub const EXIT_FORCED: u8 = 130;

/// The signals that stop a run.
const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// From now on SIGINT, SIGTERM and SIGHUP stop `flag` (first), hurry it
/// (second), and run `cleanup` then exit with [`EXIT_FORCED`] (third).
/// Calling it again points the handler at the new flag and starts the
/// count again; the cleanup given first stays.
pub fn on_interrupt(flag: &'static StopFlag, cleanup: fn()) {
    start_watcher(cleanup);
    FLAG.store(ptr::from_ref(flag).cast_mut(), Ordering::Release);
    COUNT.store(0, Ordering::Release);
    let handler = handle as extern "C" fn(libc::c_int);
    for sig in SIGNALS {
        // SAFETY: `handle` is an `extern "C" fn(c_int)` that only does
        // async-signal-safe things (atomic loads and stores, `write`,
        // `_exit`), and the flag it reaches is `'static`, so it stays
        // valid for as long as the handler may run.
        unsafe { libc::signal(sig, handler as libc::sighandler_t) };
    }
}

/// For a command with nothing to wind down (a listing): from now on the
/// first SIGINT, SIGTERM or SIGHUP runs `cleanup` and ends the process
/// with [`EXIT_FORCED`] at once, whatever the main thread is doing (the
/// EAL starting, say). `flag` is stopped instead only where no watcher
/// thread could be started.
pub fn exit_on_interrupt(flag: &'static StopFlag, cleanup: fn()) {
    on_interrupt(flag, cleanup);
    // The handler's third-signal arm from the first signal on.
    COUNT.store(2, Ordering::Release);
    if WAKE.load(Ordering::Acquire) < 0 {
        COUNT.store(0, Ordering::Release);
    }
}

/// `n` as a pid above 1 (never this process's group nor init), or the
/// error naming it as `what`.
fn pid_above_one(n: u32, what: &str) -> std::io::Result<libc::pid_t> {
    libc::pid_t::try_from(n)
        .ok()
        .filter(|&id| id > 1)
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{n} is not {what}"),
            )
        })
}

/// Sends `sig` to `target` (kill(2)'s pid: a process, or a group when
/// negative). A target that is gone already is no error.
fn send(target: libc::pid_t, sig: libc::c_int) -> std::io::Result<()> {
    // SAFETY: kill(2) takes no memory of ours; callers pass a pid or a
    // negated group id above 1 (never "every process" nor our own group).
    let r = unsafe { libc::kill(target, sig) };
    if r == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ESRCH) => Ok(()),
        _ => Err(e),
    }
}

/// Kills every process of process group `pgid` with SIGKILL (a child
/// started in a group of its own: the group's id is the child's). A
/// group whose processes are all gone already is no error; ids 0 and 1
/// (this process's own group, init) are refused.
pub fn kill_group(pgid: u32) -> std::io::Result<()> {
    let id = pid_above_one(pgid, "a process group a child of this process leads")?;
    send(-id, libc::SIGKILL)
}

/// Sends SIGINT to process `pid` (a child of this process): a landspeed
/// run takes it as the operator's Ctrl-C, stops its senders and still
/// reports. A process that is gone already is no error; ids 0 and 1 are
/// refused.
pub fn interrupt(pid: u32) -> std::io::Result<()> {
    send(
        pid_above_one(pid, "a process a child of this process can be")?,
        libc::SIGINT,
    )
}

/// The name of a signal this module handles (`SIGINT`, ...), or its number.
pub fn name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        n => format!("signal {n}"),
    }
}

/// Once per process: the thread that waits for the third signal.
fn start_watcher(cleanup: fn()) {
    static START: Once = Once::new();
    START.call_once(|| {
        let Ok((mut rx, tx)) = UnixStream::pair() else {
            return;
        };
        let fd = tx.as_raw_fd();
        let spawned = std::thread::Builder::new()
            .name("landspeed-signal".into())
            .spawn(move || {
                let mut b = [0u8; 1];
                loop {
                    match rx.read(&mut b) {
                        Ok(1) => break,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        _ => return,
                    }
                }
                cleanup();
                // SAFETY: _exit takes no pointer and ends the process.
                unsafe { libc::_exit(libc::c_int::from(EXIT_FORCED)) };
            });
        if spawned.is_ok() {
            // The handler writes to it for the rest of the process.
            let _ = tx.into_raw_fd();
            WAKE.store(fd, Ordering::Release);
        }
    });
}

extern "C" fn handle(signal: libc::c_int) {
    // SAFETY: FLAG holds null or a pointer made from a `&'static StopFlag`
    // by `on_interrupt`: valid for the whole process, and only read here.
    let Some(flag) = (unsafe { FLAG.load(Ordering::Acquire).as_ref() }) else {
        return;
    };
    match COUNT.fetch_add(1, Ordering::AcqRel) {
        0 => flag.stop_by(signal),
        1 => flag.hurry(),
        _ => {
            let fd = WAKE.load(Ordering::Acquire);
            if fd < 0 {
                // SAFETY: _exit is async-signal-safe and takes no pointer.
                unsafe { libc::_exit(libc::c_int::from(EXIT_FORCED)) };
            }
            let b = 1u8;
            // SAFETY: write is async-signal-safe; `fd` is the watcher's
            // socket, open for the rest of the process, and `b` is one
            // byte that lives across the call.
            unsafe { libc::write(fd, ptr::from_ref(&b).cast(), 1) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_stops_the_flag_the_second_hurries_it() {
        static STOP: StopFlag = StopFlag::new_const();
        on_interrupt(&STOP, || {});
        assert!(!STOP.stopped());
        // SAFETY: raise sends the signal to this thread; the handler just
        // installed only sets STOP (first and second signal: no exit).
        unsafe { libc::raise(libc::SIGTERM) };
        assert!(STOP.stopped());
        assert!(!STOP.hurried());
        assert_eq!(STOP.cause().map(name).as_deref(), Some("SIGTERM"));
        // SAFETY: as above; the second signal only hurries STOP.
        unsafe { libc::raise(libc::SIGHUP) };
        assert!(STOP.hurried());
        assert_eq!(STOP.cause().map(name).as_deref(), Some("SIGTERM"));
    }
}
