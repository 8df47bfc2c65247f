//! The time-stamp counter: reading it, and measuring its frequency against
//! the monotonic clock.
//!
//! EAL's own `rte_get_tsc_hz()` is rounded to 10 MHz (0.15 % off on a
//! 2596 MHz part); a rate meant to be right to 0.01 % needs the frequency
//! measured, which [`calibrate`] does. The hot path reads the TSC with
//! [`now`], an inlined `rdtsc`.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::pace::tsc::{measure_hz, TscSample};

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

/// A TSC reading paired with the monotonic clock: the TSC is read just
/// before and just after the clock, and the pair's midpoint is kept (see
/// [`TscSample::bracketed`]).
pub fn sample() -> TscSample {
    static BASE: OnceLock<Instant> = OnceLock::new();
    let base = *BASE.get_or_init(Instant::now);
    let before = now();
    let ns = base.elapsed().as_nanos() as u64;
    let after = now();
    TscSample::bracketed(before, ns, after)
}

/// The TSC frequency in Hz between two samples (0 if they are out of
/// order, which a monotonic clock and an invariant TSC never are).
pub fn hz_between(a: TscSample, b: TscSample) -> u64 {
    measure_hz(a, b).unwrap_or(0)
}

/// Measure the TSC frequency against the monotonic clock over `span`
/// (busy-waiting; 100 ms gives about 1 ppm).
pub fn calibrate(span: Duration) -> u64 {
    let a = sample();
    let start = Instant::now();
    while start.elapsed() < span {
        std::hint::spin_loop();
    }
    hz_between(a, sample())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_plausible_and_stable() {
        let a = calibrate(Duration::from_millis(20));
        let b = calibrate(Duration::from_millis(20));
        assert!(a > 100_000_000, "TSC at {a} Hz is implausibly slow");
        let diff = a.abs_diff(b) as f64 / a as f64;
        assert!(diff < 0.01, "two calibrations differ by {diff}");
    }
}
