//! The time-stamp counter: reading it, and measuring its frequency against
//! the monotonic clock.
//!
//! EAL's own `rte_get_tsc_hz()` is rounded to 10 MHz (0.15 % off on a
//! 2596 MHz part); a rate meant to be right to 0.01 % needs the frequency
//! measured, which [`calibrate`] does. The hot path reads the TSC with
//! [`now`], an inlined `rdtsc`.

use std::time::{Duration, Instant};

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

/// A (TSC, monotonic clock) pair taken as close together as possible.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    /// The TSC value.
    pub tsc: u64,
    /// The monotonic clock at (about) the same instant.
    pub at: Instant,
}

impl Mark {
    /// Take a mark: the TSC is read on both sides of the clock read and
    /// averaged, so the pairing error is half the clock read's cost.
    pub fn take() -> Self {
        let t0 = now();
        let at = Instant::now();
        let t1 = now();
        Self {
            tsc: t0 + (t1 - t0) / 2,
            at,
        }
    }

    /// TSC frequency in Hz measured between an earlier mark and this one.
    pub fn hz_since(&self, earlier: &Mark) -> u64 {
        let ns = self.at.duration_since(earlier.at).as_nanos();
        let ticks = u128::from(self.tsc.wrapping_sub(earlier.tsc));
        if ns == 0 {
            return 0;
        }
        (ticks * 1_000_000_000 / ns) as u64
    }
}

/// Measure the TSC frequency against the monotonic clock over `span`
/// (busy-waiting; 100 ms gives about 1 ppm).
pub fn calibrate(span: Duration) -> u64 {
    let a = Mark::take();
    while a.at.elapsed() < span {
        std::hint::spin_loop();
    }
    Mark::take().hz_since(&a)
}

/// Convert TSC ticks to nanoseconds at `hz` (for reports, not the hot path).
pub fn ticks_to_ns(ticks: u64, hz: u64) -> f64 {
    if hz == 0 {
        return 0.0;
    }
    ticks as f64 * 1e9 / hz as f64
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

    #[test]
    fn ticks_to_ns_exact_values() {
        assert_eq!(ticks_to_ns(2_600, 2_600_000_000), 1_000.0);
        assert_eq!(ticks_to_ns(5, 0), 0.0);
    }
}
