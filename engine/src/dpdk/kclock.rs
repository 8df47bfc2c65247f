//! The kernel's clocks for the two-host clock mode: a CLOCK_REALTIME or
//! CLOCK_TAI reading between two TSC reads, and `adjtimex`'s view of the
//! clock's discipline. The arithmetic on them is pure, in `clock::sync`.

use super::tsc;

/// Which kernel clock to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// CLOCK_REALTIME.
    Realtime,
    /// CLOCK_TAI.
    Tai,
}

/// A clock reading, ns since its epoch, with the TSC read just before and
/// just after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockBracket {
    /// TSC before the clock read.
    pub tsc_before: u64,
    /// The clock, ns.
    pub ns: u64,
    /// TSC after the clock read.
    pub tsc_after: u64,
}

/// Reads `clock` between two TSC reads.
pub fn bracket(clock: Kernel) -> ClockBracket {
    let id = match clock {
        Kernel::Realtime => libc::CLOCK_REALTIME,
        Kernel::Tai => libc::CLOCK_TAI,
    };
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let tsc_before = tsc::now();
    // SAFETY: `ts` is a valid, writable timespec; the call writes only it.
    let rc = unsafe { libc::clock_gettime(id, &mut ts) };
    let tsc_after = tsc::now();
    let ns = if rc == 0 {
        (ts.tv_sec as u64)
            .wrapping_mul(1_000_000_000)
            .wrapping_add(ts.tv_nsec as u64)
    } else {
        0
    };
    ClockBracket {
        tsc_before,
        ns,
        tsc_after,
    }
}

/// What `adjtimex` says of the system clock: its return (the clock state,
/// `TIME_ERROR` when unsynchronised), `status`, `esterror` and `maxerror`
/// (µs). `None` if the call fails.
pub fn adjtimex() -> Option<(i32, i32, i64, i64)> {
    // SAFETY: an all-zero timex is valid input (modes 0: read only).
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a valid, writable timex; with modes 0 nothing is set.
    let state = unsafe { libc::adjtimex(&mut t) };
    if state < 0 {
        return None;
    }
    // `c_long` is i64 on the 64-bit targets; the conversion is for others.
    #[allow(clippy::useless_conversion)]
    let (est, max) = (i64::from(t.esterror), i64::from(t.maxerror));
    Some((state, t.status, est, max))
}
