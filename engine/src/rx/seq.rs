//! Per-stream sequence accounting: lost, reordered (RFC 4737), duplicated.
//!
//! Pure logic, no DPDK. A sliding bitmap of the last [`WINDOW`] sequence
//! numbers tells a late frame (it fills a gap: reordered) from a second copy
//! (its bit is already set: duplicate). Frames further back than the window
//! cannot be told apart and are counted as `stale`; they never panic or
//! corrupt the counts, whatever the sequence numbers are.
//!
//! The definitions are RFC 4737's. A frame is *reordered* when its
//! sequence number is below the next expected one (one more than the
//! highest seen so far) and it is not a duplicate. Its *reordering extent*
//! (section 4.2) is how many frames back, in arrival order, the earliest
//! frame with a larger sequence number arrived. That earliest frame is
//! always one that opened the gap the late frame fills, so the tracker
//! remembers, for each of the last [`GAPS`] gaps, where it starts and when
//! it opened: fixed storage, nothing allocated per frame.
//!
//! `lost` counts the sequence numbers missing between the first counted
//! and the highest seen: by default from the first frame seen
//! ([`CountFrom::FirstSeen`]), so that a receiver started after its sender
//! does not count the frames sent before it listened. A late frame that
//! arrives is no longer lost; a duplicate is counted once, as duplicated.

use serde::Serialize;

/// How many sequence numbers behind the newest the tracker remembers.
pub const WINDOW: u64 = 1 << 16;
/// Sequence numbers at or above this are counted as stale (bogus).
pub const SEQ_LIMIT: u64 = 1 << 63;
/// How many gaps the tracker remembers for the reordering extent; a frame
/// filling an older gap gets a lower bound of its extent.
pub const GAPS: usize = 256;
const WORDS: usize = (WINDOW / 64) as usize;

/// Where `lost` counts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CountFrom {
    /// The first frame seen: frames sent before the receiver listened are
    /// not lost. A frame later seen below it, within the window, extends
    /// the count down to it.
    #[default]
    FirstSeen,
    /// This sequence number (the receiver was there before the sender's
    /// first frame): frames below it are stale.
    Seq(u64),
}

/// Counts for one stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct SeqCounts {
    /// Distinct sequence numbers received.
    pub unique: u64,
    /// Sequence numbers never received between the first counted (see
    /// [`CountFrom`]) and the highest seen (gaps), at this moment.
    pub lost: u64,
    /// Frames whose sequence number was below the next expected when they
    /// arrived (RFC 4737 section 3), duplicates excluded.
    pub reordered: u64,
    /// Largest reordering extent of a reordered frame (RFC 4737 section
    /// 4.2): how many distinct frames earlier the first frame with a larger
    /// sequence number arrived.
    #[serde(default)]
    pub reorder_extent_max: u64,
    /// Sum of the reordering extents (their mean: this ÷ `reordered`).
    #[serde(default)]
    pub reorder_extent_sum: u64,
    /// Second (or later) copies of a sequence number.
    pub duplicated: u64,
    /// Frames older than the window (cannot tell late from duplicate).
    pub stale: u64,
    /// Highest sequence number seen.
    pub max_seq: u64,
}

impl SeqCounts {
    /// RFC 4737's reordered ratio: reordered frames over distinct frames
    /// received (0 when none arrived).
    pub fn reordered_ratio(&self) -> f64 {
        if self.unique == 0 {
            0.0
        } else {
            self.reordered as f64 / self.unique as f64
        }
    }
}

/// The last [`GAPS`] gaps opened, oldest first: the first sequence number
/// each skipped and the arrival index of the frame that skipped it. Gaps
/// are opened in increasing sequence order, so the ring stays sorted.
#[derive(Clone)]
struct Gaps {
    from: [u64; GAPS],
    at: [u64; GAPS],
    /// Where the next gap goes.
    head: usize,
    len: usize,
}

impl Gaps {
    fn new() -> Self {
        Gaps {
            from: [0; GAPS],
            at: [0; GAPS],
            head: 0,
            len: 0,
        }
    }

    fn push(&mut self, from: u64, at: u64) {
        self.from[self.head] = from;
        self.at[self.head] = at;
        self.head = (self.head + 1) % GAPS;
        self.len = (self.len + 1).min(GAPS);
    }

    /// The `k`-th gap kept, oldest first.
    fn get(&self, k: usize) -> (u64, u64) {
        let i = (self.head + GAPS - self.len + k) % GAPS;
        (self.from[i], self.at[i])
    }

    /// Arrival index of the first frame that overtook `seq` (a sequence
    /// number never received): the frame that opened the newest gap
    /// starting at or below `seq`, or, when that gap was forgotten, the
    /// one that opened the oldest kept (a later arrival: a lower bound).
    /// A frame is late only after some gap opened: the ring is not empty.
    fn overtaken_at(&self, seq: u64) -> u64 {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.get(mid).0 <= seq {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        self.get(lo.saturating_sub(1)).1
    }
}

/// Tracks one stream's sequence numbers.
#[derive(Clone)]
pub struct SeqTracker {
    /// One more than the highest sequence number seen (the next expected).
    next: u64,
    /// The lowest sequence number counted.
    low: u64,
    from: CountFrom,
    started: bool,
    bits: Box<[u64; WORDS]>,
    gaps: Box<Gaps>,
    counts: SeqCounts,
}

impl Default for SeqTracker {
    /// Counting from the first frame seen.
    fn default() -> Self {
        Self::counting_from(CountFrom::FirstSeen)
    }
}

impl SeqTracker {
    /// A tracker that expects the stream to start at sequence `base`
    /// (frames before `base` count as stale; gaps count from `base`).
    pub fn new(base: u64) -> Self {
        Self::counting_from(CountFrom::Seq(base))
    }

    /// A tracker whose `lost` counts from `from`.
    pub fn counting_from(from: CountFrom) -> Self {
        let base = match from {
            CountFrom::FirstSeen => 0,
            CountFrom::Seq(b) => b,
        };
        Self {
            next: base,
            low: base,
            from,
            started: false,
            bits: Box::new([0; WORDS]),
            gaps: Box::new(Gaps::new()),
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

    /// Account one frame carrying `seq`; true when it was the frame
    /// expected next. That frame, nearly every frame of a clean run, is
    /// one bit set and three counts, in line in the receive loop; any
    /// other goes to [`Self::record_other`].
    #[inline(always)]
    pub fn record(&mut self, seq: u64) -> bool {
        if seq == self.next && self.started && seq < SEQ_LIMIT {
            // What `ahead` does for it: nothing skipped, nothing to clear.
            self.set(seq);
            self.next = seq + 1;
            self.counts.max_seq = seq;
            self.counts.unique += 1;
            return true;
        }
        self.record_other(seq);
        false
    }

    /// [`Self::record`] of a frame other than the one expected next.
    #[inline(never)]
    fn record_other(&mut self, seq: u64) {
        // No run reaches 2^63 frames: such a number is bogus, and refusing it
        // keeps `next` from overflowing.
        if seq >= SEQ_LIMIT {
            self.counts.stale += 1;
        } else if !self.started {
            self.first(seq);
        } else if seq >= self.next {
            self.ahead(seq);
        } else if self.next - seq > WINDOW {
            self.counts.stale += 1;
        } else if seq < self.low {
            self.below_low(seq);
        } else if self.bit(seq) {
            self.counts.duplicated += 1;
        } else {
            self.late(seq);
        }
    }

    /// The stream's first frame.
    fn first(&mut self, seq: u64) {
        match self.from {
            CountFrom::FirstSeen => {
                self.low = seq;
                self.next = seq;
                // Every sequence number below it was overtaken by it.
                self.gaps.push(0, 0);
            }
            CountFrom::Seq(base) if seq < base => {
                self.counts.stale += 1;
                return;
            }
            CountFrom::Seq(_) => {}
        }
        self.started = true;
        self.ahead(seq);
    }

    /// A frame at or above the next expected: the sequence numbers it
    /// skipped are (for now) lost, and a gap opens.
    fn ahead(&mut self, seq: u64) {
        if seq > self.next {
            self.gaps.push(self.next, self.counts.unique);
        }
        self.clear_range(self.next.max(seq.saturating_sub(WINDOW - 1)), seq);
        self.set(seq);
        self.counts.lost = self.counts.lost.saturating_add(seq - self.next);
        self.next = seq + 1;
        self.counts.max_seq = seq;
        self.counts.unique += 1;
    }

    /// A frame below the lowest counted, within the window: counting from
    /// the first seen, it extends the count down to it (what lies between
    /// is lost); counting from a fixed start, it is stale.
    fn below_low(&mut self, seq: u64) {
        if let CountFrom::Seq(_) = self.from {
            self.counts.stale += 1;
            return;
        }
        self.counts.lost += self.low - seq;
        self.low = seq;
        self.late(seq);
    }

    /// A frame below the next expected, never seen before: reordered, and
    /// no longer lost.
    fn late(&mut self, seq: u64) {
        let i = self.counts.unique;
        self.set(seq);
        self.counts.unique += 1;
        self.counts.reordered += 1;
        self.counts.lost = self.counts.lost.saturating_sub(1);
        let extent = i - self.gaps.overtaken_at(seq);
        let c = &mut self.counts;
        c.reorder_extent_max = c.reorder_extent_max.max(extent);
        c.reorder_extent_sum = c.reorder_extent_sum.saturating_add(extent);
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

    /// A tracker counting from the first frame seen, fed `seqs`.
    fn first_seen(seqs: impl IntoIterator<Item = u64>) -> SeqCounts {
        let mut t = SeqTracker::default();
        for s in seqs {
            t.record(s);
        }
        t.counts()
    }

    #[test]
    fn counting_starts_at_the_first_frame_seen() {
        // A receiver that started after the sender: frames 0..999 were
        // sent before it listened and are not lost.
        let c = first_seen(1000..1100);
        assert_eq!(
            (c.unique, c.lost, c.reordered, c.max_seq),
            (100, 0, 0, 1099)
        );
        assert_eq!((c.stale, c.duplicated), (0, 0));
        // Counting from 0 instead (the receiver was there first).
        let c = run(&(1000..1100).collect::<Vec<_>>());
        assert_eq!((c.unique, c.lost), (100, 1000));
    }

    #[test]
    fn rfc4737_example_one_late_frame() {
        // 4 arrives 3 frames after 5, the first larger one: extent 3.
        let c = first_seen([1, 2, 3, 5, 6, 7, 4]);
        assert_eq!((c.unique, c.lost, c.reordered, c.duplicated), (7, 0, 1, 0));
        assert_eq!((c.reorder_extent_max, c.reorder_extent_sum), (3, 3));
        assert_eq!(c.reordered_ratio(), 1.0 / 7.0);
    }

    #[test]
    fn one_frame_200_late_is_one_reordered_of_extent_200() {
        let seqs = (0..100).chain(101..301).chain([100]).chain(301..400);
        let c = first_seen(seqs);
        assert_eq!(
            (c.unique, c.lost, c.reordered, c.duplicated),
            (400, 0, 1, 0)
        );
        assert_eq!((c.reorder_extent_max, c.reorder_extent_sum), (200, 200));
        // Lost while it was missing, found when it came.
        let c = first_seen((0..100).chain(101..301));
        assert_eq!((c.lost, c.reordered), (1, 0));
    }

    #[test]
    fn one_frame_200_early_reorders_the_200_it_overtook() {
        // RFC 4737: each of 100..299 arrived after 300 (larger): reordered,
        // with extents 1, 2, ... 200.
        let seqs = (0..100).chain([300]).chain(100..300).chain(301..400);
        let c = first_seen(seqs);
        assert_eq!((c.unique, c.lost, c.reordered), (400, 0, 200));
        assert_eq!((c.reorder_extent_max, c.reorder_extent_sum), (200, 20100));
    }

    #[test]
    fn late_copies_are_duplicates_not_reordered_twice() {
        let c = first_seen([0, 2, 1, 1, 2, 3, 1]);
        assert_eq!((c.unique, c.lost, c.reordered, c.duplicated), (4, 0, 1, 3));
        assert_eq!((c.reorder_extent_max, c.reorder_extent_sum), (1, 1));
    }

    #[test]
    fn frames_below_the_first_seen_extend_the_count_down() {
        // B+8 arrives after B+10, B+11, B+12: reordered (extent 3); B+9
        // between is lost until it too arrives (extent 4: B+10 was the
        // first larger).
        const B: u64 = 2 * WINDOW;
        let mut t = SeqTracker::default();
        for s in [B + 10, B + 11, B + 12, B + 8] {
            t.record(s);
        }
        let c = t.counts();
        assert_eq!(
            (c.unique, c.lost, c.reordered, c.reorder_extent_max),
            (4, 1, 1, 3)
        );
        t.record(B + 9);
        let c = t.counts();
        assert_eq!((c.unique, c.lost, c.reordered), (5, 0, 2));
        assert_eq!((c.reorder_extent_max, c.reorder_extent_sum), (4, 7));
        // Further back than the window: stale, the count unchanged.
        t.record(B + 12 - WINDOW);
        assert_eq!((t.counts().stale, t.counts().lost), (1, 0));
        // The oldest the window takes: counted, the frames between lost.
        t.record(B + 13 - WINDOW);
        let c = t.counts();
        assert_eq!((c.stale, c.unique, c.lost), (1, 6, WINDOW - 6));
    }

    #[test]
    fn a_copy_of_the_first_frame_is_a_duplicate() {
        let c = first_seen([5, 6, 5]);
        assert_eq!((c.unique, c.duplicated, c.reordered, c.lost), (2, 1, 0, 0));
        let c = run(&[0, 1, 0]);
        assert_eq!((c.unique, c.duplicated, c.stale, c.reordered), (2, 1, 0, 0));
    }

    #[test]
    fn frames_below_a_fixed_start_are_stale() {
        let mut t = SeqTracker::new(5);
        for s in [5, 6, 3, 4, 7] {
            t.record(s);
        }
        let c = t.counts();
        assert_eq!((c.unique, c.lost, c.reordered, c.stale), (3, 0, 0, 2));
        // The first frame below the start is stale too, and nothing starts.
        let mut t = SeqTracker::new(5);
        t.record(4);
        t.record(6);
        let c = t.counts();
        assert_eq!((c.unique, c.lost, c.stale, c.max_seq), (1, 1, 1, 6));
    }

    #[test]
    fn sixty_four_bit_sequences_do_not_wrap() {
        let top = SEQ_LIMIT - 1;
        let c = first_seen([top - 3, top - 1, top, top - 2, u64::MAX, SEQ_LIMIT]);
        assert_eq!((c.unique, c.lost, c.reordered, c.stale), (4, 0, 1, 2));
        assert_eq!((c.max_seq, c.reorder_extent_max), (top, 2));
        // Starting near 2^62, far from 0: nothing lost below it.
        let c = first_seen([1 << 62, (1 << 62) + 2, (1 << 62) + 1]);
        assert_eq!((c.unique, c.lost, c.reordered), (3, 0, 1));
    }

    #[test]
    fn forgotten_gaps_give_a_lower_bound_of_the_extent() {
        // 0, 2, 4, ... 600: 300 gaps, more than the tracker keeps.
        let mut t = SeqTracker::default();
        for s in (0..=600).step_by(2) {
            t.record(s);
        }
        assert_eq!(t.counts().lost, 300);
        // 1's gap opened at arrival 1 (by 2), 300 frames ago; the oldest
        // gap kept opened at arrival 301 - GAPS.
        t.record(1);
        assert_eq!(t.counts().reorder_extent_max, GAPS as u64);
        // 599's gap, the newest, opened at arrival 300.
        t.record(599);
        let c = t.counts();
        assert_eq!(
            (c.reordered, c.lost, c.reorder_extent_sum),
            (2, 298, GAPS as u64 + 2)
        );
    }

    #[test]
    fn in_order_frames_open_no_gap() {
        // Only 2's arrival (the second) opened a gap: 1's extent is exact
        // after 298 frames in order, however many the tracker keeps.
        let c = first_seen([0].into_iter().chain(2..300).chain([1]));
        assert_eq!((c.reordered, c.lost, c.reorder_extent_max), (1, 0, 298));
    }

    #[test]
    fn ratio_of_nothing_is_zero() {
        assert_eq!(SeqCounts::default().reordered_ratio(), 0.0);
        let c = first_seen([0, 2, 1, 3]);
        assert_eq!(c.reordered_ratio(), 0.25);
    }
}
