//! Live counters a worker lcore writes and the reporter reads.
//!
//! Each counter has exactly one writer (the lcore that owns it), so an
//! update is a relaxed load and store — a plain `mov` on x86, no locked
//! instruction — and the reporter's relaxed load sees a recent value.
//! Each worker's block is cache-line padded so workers never share a line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// A monotonically growing count with a single writer.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Add `n` (only the owning lcore calls this).
    #[inline(always)]
    pub fn add(&self, n: u64) {
        let v = self.0.load(Ordering::Relaxed);
        self.0.store(v.wrapping_add(n), Ordering::Relaxed);
    }

    /// Overwrite the value (only the owning lcore calls this).
    #[inline(always)]
    pub fn set(&self, v: u64) {
        self.0.store(v, Ordering::Relaxed);
    }

    /// The current value.
    #[inline(always)]
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// What a TX lcore publishes while it runs.
#[derive(Debug, Default)]
pub struct TxLive {
    /// Frames the PMD accepted.
    pub frames: Counter,
    /// Bytes of those frames, FCS included (L2).
    pub bytes: Counter,
}

/// What an RX lcore publishes while it runs.
#[derive(Debug, Default)]
pub struct RxLive {
    /// Frames received (all kinds).
    pub frames: Counter,
    /// Bytes received, FCS included (L2).
    pub bytes: Counter,
    /// Frames lost so far (sequence gaps), summed over streams.
    pub lost: Counter,
}

/// A block of live counters for one worker, padded to its own cache lines.
pub type Padded<T> = CachePadded<T>;

/// The run's stop signal: set by the main lcore, polled by workers.
#[derive(Debug, Default)]
pub struct StopFlag(AtomicBool);

impl StopFlag {
    /// A flag not yet set, usable in a `static`.
    pub const fn new_const() -> Self {
        Self(AtomicBool::new(false))
    }

    /// Ask every worker to stop.
    pub fn stop(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Whether a stop was asked for.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_adds_and_sets() {
        let c = Counter::default();
        c.add(5);
        c.add(7);
        assert_eq!(c.get(), 12);
        c.set(3);
        assert_eq!(c.get(), 3);
    }

    #[test]
    fn stop_flag() {
        let s = StopFlag::default();
        assert!(!s.stopped());
        s.stop();
        assert!(s.stopped());
    }
}
