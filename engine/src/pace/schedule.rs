//! Departure schedules on the TSC clock.
//!
//! The departure of frame `n` is
//!
//! ```text
//! departure(n) = start + floor(cum(n) × tsc_hz / rate)
//! ```
//!
//! where `cum(n)` is the number of units (bits at the rate's layer, or
//! frames) sent before frame `n`. [`Schedule`] keeps that quotient and its
//! remainder as integers and adds each frame's share with an exact carry, so
//! the result equals the formula bit for bit however long it runs: there is
//! no accumulated rounding, hence no drift.
//!
//! [`WeightedRoundRobin`] shares one schedule among several streams in
//! proportion to their rates.

use thiserror::Error;

use super::rate::{bits_per_frame, Layer, Rate, RateError};

/// What is wrong with a schedule's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ScheduleError {
    /// The TSC frequency was zero.
    #[error("TSC frequency is zero")]
    ZeroHz,
    /// The rate is too large for the exact arithmetic (above 2^62 units/s).
    #[error("rate {0} units/s is too large to schedule")]
    RateTooLarge(u64),
    /// The weights of a stream share were empty or zero.
    #[error("stream share: {0}")]
    Weights(String),
    /// A rate was refused.
    #[error(transparent)]
    Rate(#[from] RateError),
}

/// An exact departure schedule at one rate, starting at a TSC time: at
/// 10 Gbit/s (L1) on a 2 GHz TSC, 9130-byte frames leave 14,640 ticks
/// apart (the unit test `ten_gig_jumbo_example` checks it).
#[derive(Debug, Clone)]
pub struct Schedule {
    start: u64,
    hz: u64,
    rate: u64,
    layer: Layer,
    payload_overhead: u32,
    /// floor(cum × hz / rate): ticks from start to the next departure.
    offset: u64,
    /// (cum × hz) mod rate.
    rem: u64,
    /// Units sent so far.
    cum: u128,
    /// Last per-frame increment: units → (quotient, remainder) of units × hz / rate.
    cache_units: u64,
    cache_q: u64,
    cache_r: u64,
}

impl Schedule {
    /// A schedule whose first frame departs at `start_tsc`, on a TSC running
    /// at `tsc_hz`, sending at `rate`.
    ///
    /// For a [`Layer::Payload`] rate, set the bytes each frame carries beyond
    /// its payload with [`Schedule::with_payload_overhead`].
    pub fn new(start_tsc: u64, tsc_hz: u64, rate: Rate) -> Result<Self, ScheduleError> {
        if tsc_hz == 0 {
            return Err(ScheduleError::ZeroHz);
        }
        if rate.per_sec() > 1 << 62 {
            return Err(ScheduleError::RateTooLarge(rate.per_sec()));
        }
        Ok(Schedule {
            start: start_tsc,
            hz: tsc_hz,
            rate: rate.per_sec(),
            layer: rate.layer(),
            payload_overhead: 0,
            offset: 0,
            rem: 0,
            cum: 0,
            cache_units: 0,
            cache_q: 0,
            cache_r: 0,
        })
    }

    /// Sets the header and FCS bytes of each frame (frame size − payload
    /// length), used by [`Schedule::next`] for payload-layer rates.
    pub fn with_payload_overhead(mut self, bytes: u32) -> Self {
        self.payload_overhead = bytes;
        self
    }

    /// The bytes of each frame that are not payload (see
    /// [`Schedule::with_payload_overhead`]).
    pub fn payload_overhead(&self) -> u32 {
        self.payload_overhead
    }

    /// Returns the departure TSC of the next frame, of `frame_size_with_fcs`
    /// bytes, and advances the schedule past it.
    ///
    /// Constant time; with an unchanged frame size it does no division at
    /// all, only additions and one compare.
    #[inline]
    pub fn next(&mut self, frame_size_with_fcs: usize) -> u64 {
        let units = self.units_for(frame_size_with_fcs);
        self.next_units(units)
    }

    /// Units a frame of `frame_size_with_fcs` bytes counts for on this
    /// schedule (see [`bits_per_frame`]).
    #[inline]
    pub fn units_for(&self, frame_size_with_fcs: usize) -> u64 {
        let payload = frame_size_with_fcs.saturating_sub(self.payload_overhead as usize);
        bits_per_frame(self.layer, frame_size_with_fcs, payload)
    }

    /// Like [`Schedule::next`] for a frame worth `units` at the schedule's
    /// layer (bits, or 1 for a frames/s rate).
    #[inline]
    pub fn next_units(&mut self, units: u64) -> u64 {
        let departure = self.start.wrapping_add(self.offset);
        if units != self.cache_units {
            self.set_increment(units);
        }
        self.offset += self.cache_q;
        self.rem += self.cache_r;
        if self.rem >= self.rate {
            self.rem -= self.rate;
            self.offset += 1;
        }
        self.cum += units as u128;
        departure
    }

    #[cold]
    fn set_increment(&mut self, units: u64) {
        let p = units as u128 * self.hz as u128;
        let (q, r) = match u64::try_from(p) {
            Ok(p) => (p / self.rate, p % self.rate),
            Err(_) => (
                (p / self.rate as u128) as u64,
                (p % self.rate as u128) as u64,
            ),
        };
        self.cache_units = units;
        self.cache_q = q;
        self.cache_r = r;
    }

    /// The departure TSC of the next frame, without advancing.
    #[inline]
    pub fn peek(&self) -> u64 {
        self.start.wrapping_add(self.offset)
    }

    /// Starts over: the next frame departs at `start_tsc` and the count of
    /// units sent is reset.
    pub fn restart(&mut self, start_tsc: u64) {
        self.start = start_tsc;
        self.offset = 0;
        self.rem = 0;
        self.cum = 0;
    }

    /// The TSC at which the schedule started.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// The TSC frequency the schedule counts in.
    pub fn tsc_hz(&self) -> u64 {
        self.hz
    }

    /// The schedule's rate.
    pub fn rate(&self) -> Rate {
        Rate::new(self.rate, self.layer).expect("a schedule's rate is never zero")
    }
}

/// Picks which of several streams sends the next frame on a shared schedule
/// so that each gets its share of the units (bits, or frames), interleaved
/// as evenly as possible: with weights 5:1:1 and equal frames the order is
/// `A A B A C A A`, repeating.
///
/// Each stream `i` has a weight `wᵢ` (its rate, in any common unit) and
/// frames worth `uᵢ` units each (or a cycle of such values, one per frame
/// in the order its frames go). Its credit is `wᵢ × T − W × sentᵢ`, where
/// `T` is the units sent by all streams and `W = Σ wᵢ`; credits always sum
/// to zero. The next frame goes to the stream with the largest
/// `creditᵢ + wᵢ × uᵢ` (`uᵢ` of its next frame; lowest index on ties). With
/// equal frames this is the smooth weighted round robin of packet
/// schedulers; with unequal frames it keeps each stream within about one
/// frame of its share in bits.
///
/// A pass over the streams per frame: [`Interleave`] replays the order
/// from a table instead when it repeats after few frames.
#[derive(Debug, Clone)]
pub struct WeightedRoundRobin {
    weights: Vec<u64>,
    /// Units of each frame of each stream, in the order they go.
    units: Vec<Vec<u64>>,
    /// Each stream's next frame in `units`.
    pos: Vec<usize>,
    credit: Vec<i128>,
    total_weight: i128,
}

impl WeightedRoundRobin {
    /// Streams given as `(weight, units_per_frame)`: weight is the stream's
    /// rate (any common unit), units per frame what one of its frames counts
    /// for on the shared schedule (see [`bits_per_frame`]).
    #[cfg(test)]
    pub fn new(streams: &[(u64, u64)]) -> Result<Self, ScheduleError> {
        let cycles: Vec<(u64, Vec<u64>)> = streams.iter().map(|&(w, u)| (w, vec![u])).collect();
        Self::with_cycles(&cycles)
    }

    /// Streams given as `(weight, units of each frame)`: the units of a
    /// stream's frames in the order they go, repeating (one entry for a
    /// fixed frame size).
    pub fn with_cycles(streams: &[(u64, Vec<u64>)]) -> Result<Self, ScheduleError> {
        if streams.is_empty() {
            return Err(ScheduleError::Weights("no streams".into()));
        }
        let bad = |(w, u): &(u64, Vec<u64>)| *w == 0 || u.is_empty() || u.contains(&0);
        if let Some(i) = streams.iter().position(bad) {
            return Err(ScheduleError::Weights(format!(
                "stream {i} has a zero weight or a zero-unit frame"
            )));
        }
        let total: u128 = streams.iter().map(|(w, _)| *w as u128).sum();
        Ok(WeightedRoundRobin {
            weights: streams.iter().map(|(w, _)| *w).collect(),
            units: streams.iter().map(|(_, u)| u.clone()).collect(),
            pos: vec![0; streams.len()],
            credit: vec![0; streams.len()],
            total_weight: total as i128,
        })
    }

    /// The index of the stream that sends next; advances the share.
    /// No allocation; a pass over the streams.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> usize {
        let mut best = 0;
        let mut best_key = i128::MIN;
        for i in 0..self.credit.len() {
            let u = self.units[i][self.pos[i]];
            let key = self.credit[i] + self.weights[i] as i128 * u as i128;
            if key > best_key {
                best_key = key;
                best = i;
            }
        }
        let u = self.units[best][self.pos[best]] as i128;
        for i in 0..self.credit.len() {
            self.credit[i] += self.weights[i] as i128 * u;
        }
        self.credit[best] -= self.total_weight * u;
        self.pos[best] += 1;
        if self.pos[best] == self.units[best].len() {
            self.pos[best] = 0;
        }
        best
    }

    /// Whether the share is back where it started: every credit zero and
    /// every stream at the first frame of its cycle.
    fn at_start(&self) -> bool {
        self.credit.iter().all(|&c| c == 0) && self.pos.iter().all(|&p| p == 0)
    }
}

/// Longest order [`Interleave`] keeps as a table, in frames.
pub const PATTERN_MAX: usize = 1 << 16;
/// Most work (frames × streams) spent looking for a repeating order.
const PATTERN_WORK: u64 = 1 << 27;

/// The per-frame stream pick of a TX task: the [`WeightedRoundRobin`]'s
/// order, replayed from a table when it repeats within [`PATTERN_MAX`]
/// frames (equal weights and sizes repeat after one frame per stream), so
/// that a pick costs an index and a compare however many streams share the
/// task; otherwise the round robin itself, a pass over the streams.
#[derive(Debug, Clone)]
pub enum Interleave {
    /// One period of the order, replayed.
    Table {
        /// Stream indices, one per frame.
        order: Box<[u16]>,
        /// The next entry.
        at: usize,
    },
    /// The order computed frame by frame.
    Live(WeightedRoundRobin),
}

impl Interleave {
    /// The interleave of streams given as `(weight, units of each frame)`
    /// (see [`WeightedRoundRobin::with_cycles`]); at most 65,536 streams.
    pub fn new(streams: &[(u64, Vec<u64>)]) -> Result<Self, ScheduleError> {
        if streams.len() > usize::from(u16::MAX) + 1 {
            return Err(ScheduleError::Weights(format!(
                "{} streams in one task (at most 65536)",
                streams.len()
            )));
        }
        let wrr = WeightedRoundRobin::with_cycles(streams)?;
        Ok(match period(&wrr) {
            Some(order) => Interleave::Table {
                order: order.into_boxed_slice(),
                at: 0,
            },
            None => Interleave::Live(wrr),
        })
    }

    /// The index of the stream that sends next.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> usize {
        match self {
            Interleave::Table { order, at } => {
                let s = order[*at];
                *at += 1;
                if *at == order.len() {
                    *at = 0;
                }
                usize::from(s)
            }
            Interleave::Live(w) => w.next(),
        }
    }

    /// The table's length in frames, when the order is replayed from one.
    #[cfg(test)]
    pub fn period(&self) -> Option<usize> {
        match self {
            Interleave::Table { order, .. } => Some(order.len()),
            Interleave::Live(_) => None,
        }
    }
}

/// One period of `wrr`'s order, when it comes back to its start within
/// [`PATTERN_MAX`] frames and [`PATTERN_WORK`] steps.
fn period(wrr: &WeightedRoundRobin) -> Option<Vec<u16>> {
    let mut w = wrr.clone();
    let limit = (PATTERN_WORK / w.weights.len() as u64).min(PATTERN_MAX as u64) as usize;
    let mut order = Vec::new();
    while order.len() < limit {
        order.push(w.next() as u16);
        if w.at_start() {
            return Some(order);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::L1_OVERHEAD;

    impl Schedule {
        /// The closed form: departure TSC after `cum_units` units have been
        /// sent, `start + floor(cum_units × tsc_hz / rate)`, in 128-bit
        /// arithmetic (saturating at `u64::MAX`).
        fn departure_after(&self, cum_units: u128) -> u64 {
            let t = cum_units.saturating_mul(self.hz as u128) / self.rate as u128;
            (self.start as u128 + t).min(u64::MAX as u128) as u64
        }

        /// Units sent so far (bits at the schedule's layer, or frames).
        fn units_sent(&self) -> u128 {
            self.cum
        }

        /// Jumps ahead over `frames` frames of `units` each, as if
        /// [`Schedule::next_units`] had been called that many times; exact.
        /// Panics if the jump overflows the 128-bit arithmetic.
        fn skip(&mut self, frames: u64, units: u64) {
            let p = (frames as u128)
                .checked_mul(units as u128)
                .and_then(|t| t.checked_mul(self.hz as u128))
                .and_then(|p| p.checked_add(self.rem as u128))
                .expect("skip overflows the schedule arithmetic");
            let q = p / self.rate as u128;
            self.rem = (p % self.rate as u128) as u64;
            self.offset =
                u64::try_from(self.offset as u128 + q).expect("skip overflows the offset");
            self.cum += frames as u128 * units as u128;
        }
    }

    fn l1(bps: u64) -> Rate {
        Rate::new(bps, Layer::L1).unwrap()
    }

    #[test]
    fn matches_the_closed_form_step_by_step() {
        // Awkward numbers: a TSC that is not a multiple of the rate.
        let hz = 2_399_987_654;
        let mut s = Schedule::new(12_345, hz, l1(9_285_714_285)).unwrap();
        let sizes = [9130usize, 64, 1518, 9130, 9130, 777];
        let mut cum: u128 = 0;
        for i in 0..200_000 {
            let size = sizes[i % sizes.len()];
            assert_eq!(s.next(size), s.departure_after(cum));
            cum += 8 * (size as u128 + L1_OVERHEAD as u128);
        }
        assert_eq!(s.units_sent(), cum);
    }

    #[test]
    fn exact_over_ten_to_the_twelve_frames() {
        // 10^12 jumbo frames at 10 Gbit/s is about 2.3 years of line rate.
        let hz = 2_893_441_117;
        let rate = l1(10_000_000_000);
        let bits = 8 * (9130 + L1_OVERHEAD);
        let mut s = Schedule::new(7, hz, rate).unwrap();
        // Walk with jumps of varying length, checking the invariant and the
        // closed form at each landing, then step frame by frame.
        let mut done: u64 = 0;
        let mut jump: u64 = 1;
        while done < 1_000_000_000_000 {
            let n = jump.min(1_000_000_000_000 - done);
            s.skip(n, bits);
            done += n;
            let cum = done as u128 * bits as u128;
            assert_eq!(s.peek(), s.departure_after(cum));
            for _ in 0..1_000 {
                let cum = s.units_sent();
                assert_eq!(s.next(9130), s.departure_after(cum));
            }
            done += 1_000;
            jump = jump * 7 + 3;
        }
        let cum = s.units_sent();
        let direct = 7 + (cum * hz as u128 / 10_000_000_000) as u64;
        assert_eq!(s.peek(), direct);
        // And stepping from a fresh schedule agrees with skipping.
        let mut a = Schedule::new(0, hz, rate).unwrap();
        let mut b = a.clone();
        for _ in 0..123_457 {
            a.next(9130);
        }
        b.skip(123_457, bits);
        assert_eq!(a.peek(), b.peek());
    }

    #[test]
    fn ten_gig_jumbo_example() {
        // 10 Gbit/s at L1 on a 2 GHz TSC, 9130-byte frames: 14,640 ticks each.
        let rate = Rate::new(10_000_000_000, Layer::L1).unwrap();
        let mut s = Schedule::new(1_000, 2_000_000_000, rate).unwrap();
        assert_eq!(s.next(9130), 1_000);
        assert_eq!(s.next(9130), 1_000 + 14_640);
    }

    #[test]
    fn frames_per_second_layer() {
        let mut s = Schedule::new(0, 3_000_000_000, Rate::fps(136_612).unwrap()).unwrap();
        let mut last = 0;
        for _ in 0..136_612 {
            last = s.next(9130);
        }
        // One second of frames ends exactly one second of ticks later.
        assert!(last < 3_000_000_000);
        assert_eq!(s.peek(), 3_000_000_000);
    }

    #[test]
    fn payload_layer_uses_the_overhead() {
        let rate = Rate::new(8_000_000_000, Layer::Payload).unwrap();
        let mut s = Schedule::new(0, 1_000_000_000, rate)
            .unwrap()
            .with_payload_overhead(46);
        s.next(1046);
        // 1000 payload bytes at 8 Gbit/s = 1000 ns.
        assert_eq!(s.peek(), 1000);
    }

    #[test]
    fn bad_inputs() {
        assert_eq!(
            Schedule::new(0, 0, l1(1)).unwrap_err(),
            ScheduleError::ZeroHz
        );
        assert!(WeightedRoundRobin::new(&[]).is_err());
        assert!(WeightedRoundRobin::new(&[(1, 1), (0, 1)]).is_err());
    }

    #[test]
    fn empty_cycles_and_zero_unit_frames_are_refused() {
        assert!(WeightedRoundRobin::with_cycles(&[(1, vec![3]), (1, vec![])]).is_err());
        assert!(WeightedRoundRobin::with_cycles(&[(1, vec![3, 0])]).is_err());
        assert!(WeightedRoundRobin::with_cycles(&[(1, vec![3, 1])]).is_ok());
    }

    /// The issue's example, 1518/64/594-byte frames (L1 units) at weights
    /// 1:1:2: the exact order, which picks by the credit each stream would
    /// have after its next frame (weight × its own frame's units).
    #[test]
    fn unequal_frames_go_in_the_order_that_keeps_each_closest_to_its_share() {
        let mut w =
            WeightedRoundRobin::new(&[(1, 1518 + 20), (1, 64 + 20), (2, 594 + 20)]).unwrap();
        let order: Vec<usize> = (0..16).map(|_| w.next()).collect();
        assert_eq!(order, vec![0, 2, 2, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1]);
    }

    #[test]
    fn smooth_interleave() {
        let mut w = WeightedRoundRobin::new(&[(5, 1), (1, 1), (1, 1)]).unwrap();
        let order: String = (0..14).map(|_| (b'A' + w.next() as u8) as char).collect();
        assert_eq!(order, "AABACAAAABACAA");
        let mut e = WeightedRoundRobin::new(&[(1, 1); 3]).unwrap();
        let order: Vec<usize> = (0..6).map(|_| e.next()).collect();
        assert_eq!(order, vec![0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn interleave_shares_bits_with_unequal_frames() {
        // Stream 0: 6 Gbit/s of 9130-byte frames; stream 1: 3 Gbit/s of 64-byte
        // frames; stream 2: 1 Gbit/s of 1518-byte frames. Shares are in bits.
        let bits = |s: usize| bits_per_frame(Layer::L1, s, 0);
        let sizes = [9130usize, 64, 1518];
        let weights = [6u64, 3, 1];
        let streams: Vec<(u64, u64)> = (0..3).map(|i| (weights[i], bits(sizes[i]))).collect();
        let mut w = WeightedRoundRobin::new(&streams).unwrap();
        let mut sent = [0u128; 3];
        let mut run = [0usize; 3];
        let mut max_run = [0usize; 3];
        let mut last = usize::MAX;
        for _ in 0..1_000_000 {
            let i = w.next();
            sent[i] += bits(sizes[i]) as u128;
            run[i] = if i == last { run[i] + 1 } else { 1 };
            max_run[i] = max_run[i].max(run[i]);
            last = i;
        }
        let total: u128 = sent.iter().sum();
        for i in 0..3 {
            // Within one jumbo frame of the exact share.
            let ideal = total * weights[i] as u128 / 10;
            let diff = sent[i].abs_diff(ideal);
            assert!(diff <= 2 * bits(9130) as u128, "stream {i}: {diff}");
        }
        // The jumbo stream never sends two frames in a row.
        assert_eq!(max_run[0], 1);
    }

    /// Bits each stream sent after every pick of `il`, against its exact
    /// share of the total; returns the bits sent and the largest distance
    /// from the share seen, per stream.
    fn shares(
        il: &mut Interleave,
        weights: &[u64],
        units: &[Vec<u64>],
        frames: usize,
    ) -> (Vec<u128>, Vec<u128>) {
        let w: u128 = weights.iter().map(|&w| w as u128).sum();
        let mut sent = vec![0u128; weights.len()];
        let mut pos = vec![0usize; weights.len()];
        let mut worst = vec![0u128; weights.len()];
        for _ in 0..frames {
            let i = il.next();
            sent[i] += units[i][pos[i]] as u128;
            pos[i] = (pos[i] + 1) % units[i].len();
            let total: u128 = sent.iter().sum();
            for j in 0..weights.len() {
                let ideal = total * weights[j] as u128 / w;
                worst[j] = worst[j].max(sent[j].abs_diff(ideal));
            }
        }
        (sent, worst)
    }

    #[test]
    fn weights_share_the_bits_at_the_layer_not_the_frames() {
        // 1518, 64 and 594-byte frames at weights 1:1:2, L1: bit shares
        // 1/4, 1/4, 1/2, each within one 1518-byte frame at every moment.
        let sizes = [1518usize, 64, 594];
        let weights = [1u64, 1, 2];
        let units: Vec<Vec<u64>> = sizes
            .iter()
            .map(|&s| vec![bits_per_frame(Layer::L1, s, 0)])
            .collect();
        let streams: Vec<(u64, Vec<u64>)> = weights.iter().copied().zip(units.clone()).collect();
        let mut il = Interleave::new(&streams).unwrap();
        let (sent, worst) = shares(&mut il, &weights, &units, 300_000);
        let total: u128 = sent.iter().sum();
        let one_frame = bits_per_frame(Layer::L1, 1518, 0) as u128;
        for (j, &off) in worst.iter().enumerate() {
            assert!(off <= one_frame, "stream {j}: {off} bits off");
        }
        let share = |j: usize| sent[j] as f64 / total as f64;
        assert_eq!(
            [share(0), share(1), share(2)].map(|x| (x * 1000.0).round() / 1000.0),
            [0.25, 0.25, 0.5]
        );
        // Frames are not shared 1:1:2: the 64-byte stream sends about 18
        // frames (1538 / 84 bytes on the wire) for each 1518-byte one.
        let frames = |j: usize| sent[j] / units[j][0] as u128;
        assert_eq!((frames(1) + frames(0) / 2) / frames(0), 18);
    }

    #[test]
    fn a_frames_per_second_rate_shares_frames() {
        let units = vec![vec![1u64], vec![1], vec![1]];
        let streams: Vec<(u64, Vec<u64>)> = [1u64, 1, 2].into_iter().zip(units.clone()).collect();
        let mut il = Interleave::new(&streams).unwrap();
        assert_eq!(il.period(), Some(4));
        let order: Vec<usize> = (0..8).map(|_| il.next()).collect();
        assert_eq!(order, vec![2, 0, 1, 2, 2, 0, 1, 2]);
    }

    #[test]
    fn equal_streams_replay_a_table_of_one_frame_each() {
        let streams = vec![(1u64, vec![8 * 84u64]); 1000];
        let mut il = Interleave::new(&streams).unwrap();
        assert_eq!(il.period(), Some(1000));
        for round in 0..3 {
            for i in 0..1000 {
                assert_eq!(il.next(), i, "round {round}");
            }
        }
    }

    #[test]
    fn the_table_is_the_round_robin_order() {
        let streams = vec![(5u64, vec![1u64]), (1, vec![1]), (1, vec![1])];
        let mut il = Interleave::new(&streams).unwrap();
        assert_eq!(il.period(), Some(7));
        let mut w = WeightedRoundRobin::with_cycles(&streams).unwrap();
        for _ in 0..70 {
            assert_eq!(il.next(), w.next());
        }
    }

    #[test]
    fn size_cycles_share_bits_too() {
        // An IMIX-like cycle against a fixed 1518-byte stream, 1:1 at L2.
        let units = vec![
            [64usize, 64, 594, 64, 64, 594, 64, 1518]
                .iter()
                .map(|&s| bits_per_frame(Layer::L2, s, 0))
                .collect::<Vec<u64>>(),
            vec![bits_per_frame(Layer::L2, 1518, 0)],
        ];
        let streams: Vec<(u64, Vec<u64>)> = [1u64, 1].into_iter().zip(units.clone()).collect();
        let mut il = Interleave::new(&streams).unwrap();
        let (_, worst) = shares(&mut il, &[1, 1], &units, 100_000);
        let one_frame = bits_per_frame(Layer::L2, 1518, 0) as u128;
        assert!(worst.iter().all(|&d| d <= one_frame), "{worst:?}");
    }

    #[test]
    fn orders_that_do_not_repeat_soon_are_computed_live() {
        let streams = vec![
            (1u64, vec![8 * 1538u64]),
            (1, vec![8 * 84]),
            (2, vec![8 * 614]),
        ];
        assert_eq!(Interleave::new(&streams).unwrap().period(), None);
        assert!(Interleave::new(&vec![(1u64, vec![1u64]); 65_537]).is_err());
    }
}
