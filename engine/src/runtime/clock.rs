//! The TSC measured against the monotonic clock: readings from
//! `dpdk::tsc`, arithmetic from `pace::tsc`.
//!
//! EAL's own `rte_get_tsc_hz()` is rounded to 10 MHz (0.15 % off on a
//! 2596 MHz part); a rate meant to be right to 0.01 % needs the frequency
//! measured, which [`calibrate`] does before a run and [`hz_between`] over
//! the run itself.

use std::time::{Duration, Instant};

use crate::dpdk::tsc;
use crate::pace::tsc::{measure_hz, TscSample};

/// A TSC reading paired with the monotonic clock (the midpoint of the two
/// TSC reads bracketing the clock read; see [`TscSample::bracketed`]).
pub(super) fn sample() -> TscSample {
    let b = tsc::bracket();
    TscSample::bracketed(b.tsc_before, b.ns, b.tsc_after)
}

/// The TSC frequency in Hz between two samples (0 if they are out of
/// order, which a monotonic clock and an invariant TSC never are).
pub(super) fn hz_between(a: TscSample, b: TscSample) -> u64 {
    measure_hz(a, b).unwrap_or(0)
}

/// Measure the TSC frequency against the monotonic clock over `span`
/// (busy-waiting; 1 µs of read uncertainty over 100 ms is 10 ppm).
pub(super) fn calibrate(span: Duration) -> u64 {
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
