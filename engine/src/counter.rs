//! Live counters a worker lcore writes and the reporter reads.
//!
//! Each counter has exactly one writer (the lcore that owns it), so an
//! update is a relaxed load and store — a plain `mov` on x86, no locked
//! instruction — and the reporter's relaxed load sees a recent value.
//! Each worker's block is cache-line padded so workers never share a line.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

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
    /// The worker thread's kernel id (0 until it starts), for the
    /// reporter to read its scheduler counters.
    pub tid: Counter,
}

/// Stream ids below this have live per-stream counts ([`RxLive::streams`]).
pub const LIVE_STREAMS: usize = 256;

/// One stream's live counts on one RX lcore.
#[derive(Debug, Default)]
pub struct StreamLive {
    /// Intact frames of the stream received so far.
    pub frames: Counter,
    /// Their bytes, FCS included (L2).
    pub bytes: Counter,
}

/// What an RX lcore publishes while it runs.
#[derive(Debug)]
pub struct RxLive {
    /// Frames received (all kinds).
    pub frames: Counter,
    /// Bytes received, FCS included (L2).
    pub bytes: Counter,
    /// Frames lost so far (sequence gaps), summed over streams.
    pub lost: Counter,
    /// TSC cycles spent on polls that returned nothing.
    pub idle_cycles: Counter,
    /// See [`TxLive::tid`].
    pub tid: Counter,
    /// Per stream id below [`LIVE_STREAMS`], its intact frames so far
    /// (added once per run of a stream's frames in a poll, not per frame).
    pub streams: Box<[StreamLive]>,
}

impl Default for RxLive {
    fn default() -> Self {
        RxLive {
            frames: Counter::default(),
            bytes: Counter::default(),
            lost: Counter::default(),
            idle_cycles: Counter::default(),
            tid: Counter::default(),
            streams: (0..LIVE_STREAMS).map(|_| StreamLive::default()).collect(),
        }
    }
}

/// A block of live counters for one worker, padded to its own cache lines.
pub type Padded<T> = CachePadded<T>;

/// The run's stop signal: set by the main lcore (or a signal handler),
/// polled by workers. It also remembers which signal asked for the stop
/// and whether a second request asked to cut the wind-down short. Every
/// method is a single atomic operation, so a signal handler may call them.
#[derive(Debug, Default)]
pub struct StopFlag {
    stop: AtomicBool,
    /// The signal number of the first stop that came from a signal (0: none).
    cause: AtomicI32,
    /// A second stop request: skip what waits can be skipped.
    hurry: AtomicBool,
}

impl StopFlag {
    /// A flag not yet set, usable in a `static`.
    pub const fn new_const() -> Self {
        Self {
            stop: AtomicBool::new(false),
            cause: AtomicI32::new(0),
            hurry: AtomicBool::new(false),
        }
    }

    /// Ask every worker to stop.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    /// Ask every worker to stop because signal `signal` arrived; the first
    /// signal is the one [`StopFlag::cause`] reports.
    pub fn stop_by(&self, signal: i32) {
        let _ = (self.cause).compare_exchange(0, signal, Ordering::AcqRel, Ordering::Acquire);
        self.stop();
    }

    /// Whether a stop was asked for.
    #[inline(always)]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// The signal that asked for the stop, if a signal did.
    pub fn cause(&self) -> Option<i32> {
        match self.cause.load(Ordering::Acquire) {
            0 => None,
            s => Some(s),
        }
    }

    /// Ask to stop at once: waits that only give stragglers time (the
    /// drain after the senders stopped) end now. Implies [`StopFlag::stop`].
    pub fn hurry(&self) {
        self.hurry.store(true, Ordering::Release);
        self.stop();
    }

    /// Whether [`StopFlag::hurry`] was asked for.
    pub fn hurried(&self) -> bool {
        self.hurry.load(Ordering::Acquire)
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
        assert_eq!(s.cause(), None);
        assert!(!s.hurried());
    }

    #[test]
    fn the_first_signal_is_the_cause() {
        let s = StopFlag::new_const();
        s.stop_by(1);
        s.stop_by(2);
        assert!(s.stopped());
        assert_eq!(s.cause(), Some(1));
        s.hurry();
        assert!(s.hurried());
    }
}
