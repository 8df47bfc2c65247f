//! Per-stream sequence accounting: lost, reordered, duplicated.
//!
//! Pure logic, no DPDK. A sliding bitmap of the last [`WINDOW`] sequence
//! numbers tells a late frame (it fills a gap: reordered) from a second copy
//! (its bit is already set: duplicate). Frames further back than the window
//! cannot be told apart and are counted as `stale`; they never panic or
//! corrupt the counts, whatever the sequence numbers are.

use serde::Serialize;

/// How many sequence numbers behind the newest the tracker remembers.
pub const WINDOW: u64 = 1 << 16;
/// Sequence numbers at or above this are counted as stale (bogus).
pub const SEQ_LIMIT: u64 = 1 << 63;
const WORDS: usize = (WINDOW / 64) as usize;

/// Counts for one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SeqCounts {
    /// Distinct sequence numbers received.
    pub unique: u64,
    /// Sequence numbers never received between the first expected and the
    /// highest seen (gaps), at this moment.
    pub lost: u64,
    /// Frames that arrived after a frame with a higher sequence number and
    /// filled a gap.
    pub reordered: u64,
    /// Second (or later) copies of a sequence number.
    pub duplicated: u64,
    /// Frames older than the window (cannot tell late from duplicate).
    pub stale: u64,
    /// Highest sequence number seen.
    pub max_seq: u64,
}

/// Tracks one stream's sequence numbers.
#[derive(Clone)]
pub struct SeqTracker {
    /// One more than the highest sequence number seen (0: nothing yet).
    next: u64,
    /// The sequence number counting starts from.
    base: u64,
    started: bool,
    bits: Box<[u64; WORDS]>,
    counts: SeqCounts,
}

impl Default for SeqTracker {
    fn default() -> Self {
        Self::new(0)
    }
}

impl SeqTracker {
    /// A tracker that expects the stream to start at sequence `base`
    /// (frames before `base` count as stale; gaps count from `base`).
    pub fn new(base: u64) -> Self {
        Self {
            next: base,
            base,
            started: false,
            bits: Box::new([0; WORDS]),
            counts: SeqCounts::default(),
        }
    }

    #[inline]
    fn bit(&self, seq: u64) -> bool {
        let i = (seq % WINDOW) as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    fn set(&mut self, seq: u64) {
        let i = (seq % WINDOW) as usize;
        self.bits[i / 64] |= 1 << (i % 64);
    }

    /// Clear the bits of `[from, to)` (at most one window's worth).
    fn clear_range(&mut self, from: u64, to: u64) {
        if to - from >= WINDOW {
            self.bits.fill(0);
            return;
        }
        let mut s = from;
        while s < to {
            let i = (s % WINDOW) as usize;
            let bit = i % 64;
            if bit == 0 && to - s >= 64 {
                self.bits[i / 64] = 0;
                s += 64;
            } else {
                self.bits[i / 64] &= !(1 << bit);
                s += 1;
            }
        }
    }

    /// Account one frame carrying `seq`.
    #[inline]
    pub fn record(&mut self, seq: u64) {
        // No run reaches 2^63 frames: such a number is bogus, and refusing it
        // keeps `next` from overflowing.
        if seq < self.base || seq >= SEQ_LIMIT {
            self.counts.stale += 1;
            return;
        }
        if seq >= self.next {
            // In order or ahead: the sequence numbers skipped are (for now)
            // lost.
            let from = if self.started { self.next } else { self.base };
            self.clear_range(from.max(seq.saturating_sub(WINDOW - 1)), seq);
            self.set(seq);
            self.counts.lost = self.counts.lost.saturating_add(seq - self.next);
            self.next = seq + 1;
            self.counts.max_seq = seq;
            self.counts.unique += 1;
            self.started = true;
        } else if self.next - seq <= WINDOW {
            if self.bit(seq) {
                self.counts.duplicated += 1;
            } else {
                self.set(seq);
                self.counts.unique += 1;
                self.counts.reordered += 1;
                self.counts.lost = self.counts.lost.saturating_sub(1);
            }
        } else {
            self.counts.stale += 1;
        }
    }

    /// The counts so far.
    pub fn counts(&self) -> SeqCounts {
        self.counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seqs: &[u64]) -> SeqCounts {
        let mut t = SeqTracker::new(0);
        for &s in seqs {
            t.record(s);
        }
        t.counts()
    }

    #[test]
    fn in_order_has_no_defects() {
        let seqs: Vec<u64> = (0..1000).collect();
        let c = run(&seqs);
        assert_eq!(
            c,
            SeqCounts {
                unique: 1000,
                max_seq: 999,
                ..Default::default()
            }
        );
    }

    #[test]
    fn removed_frames_are_lost() {
        let seqs: Vec<u64> = (0..100).filter(|s| ![5, 6, 50].contains(s)).collect();
        let c = run(&seqs);
        assert_eq!((c.unique, c.lost, c.reordered, c.duplicated), (97, 3, 0, 0));
    }

    #[test]
    fn swapped_pairs_are_reordered_not_lost() {
        // 0 1 3 2 4 6 5 7: two adjacent swaps.
        let c = run(&[0, 1, 3, 2, 4, 6, 5, 7]);
        assert_eq!((c.unique, c.lost, c.reordered, c.duplicated), (8, 0, 2, 0));
    }

    #[test]
    fn duplicates_are_counted_once_each() {
        let c = run(&[0, 1, 1, 2, 3, 3, 3, 4]);
        assert_eq!((c.unique, c.lost, c.reordered, c.duplicated), (5, 0, 0, 3));
    }

    #[test]
    fn late_duplicate_inside_window() {
        let c = run(&[0, 1, 2, 3, 1]);
        assert_eq!((c.duplicated, c.reordered), (1, 0));
    }

    #[test]
    fn huge_backward_jump_is_stale_not_a_panic() {
        let mut t = SeqTracker::new(0);
        t.record(10 * WINDOW);
        t.record(3);
        t.record(u64::MAX);
        t.record(0);
        let c = t.counts();
        assert_eq!(c.stale, 3);
        assert_eq!(c.unique, 1);
        assert_eq!(c.max_seq, 10 * WINDOW);
        assert_eq!(c.lost, 10 * WINDOW);
    }

    #[test]
    fn gap_larger_than_window_then_reorder() {
        let mut t = SeqTracker::new(0);
        t.record(0);
        t.record(WINDOW * 3);
        t.record(WINDOW * 3 - 1);
        let c = t.counts();
        assert_eq!(c.reordered, 1);
        assert_eq!(c.lost, WINDOW * 3 - 2);
    }

    #[test]
    fn bitmap_reuse_after_wrap_forgets_old_bits() {
        let mut t = SeqTracker::new(0);
        for s in 0..(3 * WINDOW) {
            t.record(s);
        }
        // The slot of seq 2*WINDOW + 5 held seq 5 before: no false duplicate.
        t.record(3 * WINDOW + 10);
        t.record(3 * WINDOW + 5);
        let c = t.counts();
        assert_eq!((c.duplicated, c.reordered, c.lost), (0, 1, 9));
    }
}
