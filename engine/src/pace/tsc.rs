//! TSC frequency refinement and tick/nanosecond conversion for reports.
//!
//! DPDK's EAL estimates the TSC frequency and rounds it to 10 MHz, which can
//! be 0.15% off: enough to make a "9.5 Gbit/s" schedule send 9.514. Measuring
//! the TSC against the monotonic clock over an interval gives the frequency
//! to within (clock-read uncertainty ÷ interval): 1 µs over 100 ms is 10 ppm,
//! comfortably below the 0.01% (100 ppm) a rate report needs.
//!
//! Conversions here are integer and exact (floor); they are for setup and
//! reports, never the per-frame path, which stays in ticks.

use serde::Serialize;
use thiserror::Error;

/// What is wrong with a TSC measurement.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TscError {
    /// The second sample is not after the first on both clocks.
    #[error(
        "TSC samples out of order: tsc {tsc_a} → {tsc_b}, monotonic {ns_a} ns → {ns_b} ns; \
         the second sample must be later on both clocks"
    )]
    OutOfOrder {
        /// First TSC reading.
        tsc_a: u64,
        /// Second TSC reading.
        tsc_b: u64,
        /// First monotonic reading.
        ns_a: u64,
        /// Second monotonic reading.
        ns_b: u64,
    },
}

/// A TSC reading paired with a monotonic clock reading in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TscSample {
    /// TSC ticks.
    pub tsc: u64,
    /// Monotonic clock, nanoseconds.
    pub ns: u64,
    /// Ticks between the TSC reads bracketing the clock read (0 if unknown).
    pub spread_ticks: u64,
}

impl TscSample {
    /// A sample from a TSC read taken just before the monotonic clock read
    /// and one just after: the TSC is taken as their midpoint and their
    /// distance bounds the uncertainty.
    pub fn bracketed(tsc_before: u64, ns: u64, tsc_after: u64) -> Self {
        let (lo, hi) = if tsc_after >= tsc_before {
            (tsc_before, tsc_after)
        } else {
            (tsc_after, tsc_before)
        };
        TscSample {
            tsc: lo + (hi - lo) / 2,
            ns,
            spread_ticks: hi - lo,
        }
    }
}

/// The TSC frequency in Hz from two samples, rounded to the nearest hertz:
/// `(tsc_b − tsc_a) × 10^9 / (ns_b − ns_a)`, in 128-bit integers.
pub fn measure_hz(a: TscSample, b: TscSample) -> Result<u64, TscError> {
    if b.tsc <= a.tsc || b.ns <= a.ns {
        return Err(TscError::OutOfOrder {
            tsc_a: a.tsc,
            tsc_b: b.tsc,
            ns_a: a.ns,
            ns_b: b.ns,
        });
    }
    let ticks = (b.tsc - a.tsc) as u128;
    let ns = (b.ns - a.ns) as u128;
    Ok(((ticks * 1_000_000_000 + ns / 2) / ns) as u64)
}

/// Ticks to nanoseconds, rounded down; exact.
#[inline]
pub fn ticks_to_ns(ticks: u64, tsc_hz: u64) -> u64 {
    if tsc_hz == 0 {
        return 0;
    }
    (ticks as u128 * 1_000_000_000 / tsc_hz as u128) as u64
}

/// Nanoseconds to ticks, rounded down; exact (saturating at `u64::MAX`).
#[inline]
pub fn ns_to_ticks(ns: u64, tsc_hz: u64) -> u64 {
    (ns as u128 * tsc_hz as u128 / 1_000_000_000).min(u64::MAX as u128) as u64
}

/// Ticks to nanoseconds as a float, for statistics in reports.
#[inline]
pub fn ticks_to_ns_f64(ticks: f64, tsc_hz: u64) -> f64 {
    if tsc_hz == 0 {
        return 0.0;
    }
    ticks * 1e9 / tsc_hz as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_a_rounded_off_tsc() {
        // A 2.3965 GHz TSC that the EAL would call 2.40 GHz (0.146% high).
        let hz = 2_396_500_000u64;
        let a = TscSample::bracketed(1_000, 5_000_000, 1_040);
        let ns = 100_000_000; // 100 ms later
        let tsc_b = 1_020 + ns_to_ticks(ns, hz);
        let b = TscSample::bracketed(tsc_b - 20, 5_000_000 + ns, tsc_b + 20);
        assert_eq!(measure_hz(a, b).unwrap(), hz);
        assert!(matches!(measure_hz(b, a), Err(TscError::OutOfOrder { .. })));
    }

    #[test]
    fn conversions_are_exact() {
        assert_eq!(ticks_to_ns(3_000_000_000, 3_000_000_000), 1_000_000_000);
        assert_eq!(ticks_to_ns(1, 3_000_000_000), 0);
        assert_eq!(ticks_to_ns(3, 3_000_000_000), 1);
        assert_eq!(ns_to_ticks(1_000_000_000, 2_399_987_654), 2_399_987_654);
        // Ten hours of ticks at 3 GHz convert without overflow.
        let ten_h = 36_000 * 3_000_000_000u64;
        assert_eq!(ticks_to_ns(ten_h, 3_000_000_000), 36_000_000_000_000);
        assert_eq!(ticks_to_ns(5, 0), 0);
    }
}
