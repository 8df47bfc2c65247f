//! The time-stamp counter: [`now`] for the hot path (an inlined `rdtsc`)
//! and [`bracket`], one monotonic-clock reading between two TSC reads, for
//! measuring the TSC's frequency.
//!
//! The arithmetic on samples (midpoint, frequency, conversions) is pure and
//! lives in `pace::tsc`; the runtime pairs the two.

use std::sync::OnceLock;
use std::time::Instant;

/// The current TSC value.
#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc has no preconditions on x86_64 and touches no memory.
        #[allow(unused_unsafe)]
        unsafe {
            core::arch::x86_64::_rdtsc()
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // SAFETY: pass-through to rte_rdtsc(); no preconditions.
        unsafe { landspeed_sys::ls_rdtsc() }
    }
}

/// A monotonic-clock reading with the TSC read just before and just after
/// it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bracket {
    /// TSC just before the clock read.
    pub tsc_before: u64,
    /// The monotonic clock, in nanoseconds since the process's first
    /// bracket.
    pub ns: u64,
    /// TSC just after the clock read.
    pub tsc_after: u64,
}

/// Read the TSC, the monotonic clock and the TSC again.
pub fn bracket() -> Bracket {
    static BASE: OnceLock<Instant> = OnceLock::new();
    let base = *BASE.get_or_init(Instant::now);
    let tsc_before = now();
    let ns = base.elapsed().as_nanos() as u64;
    let tsc_after = now();
    Bracket {
        tsc_before,
        ns,
        tsc_after,
    }
}
