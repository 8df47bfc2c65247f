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
/// Each stream `i` has a weight `wᵢ` (its rate, in any common unit) and a
/// frame worth `uᵢ` units. Its credit is `wᵢ × T − W × sentᵢ`, where `T` is
/// the units sent by all streams and `W = Σ wᵢ`; credits always sum to zero.
/// The next frame goes to the stream with the largest `creditᵢ + wᵢ × uᵢ`
/// (lowest index on ties). With equal frames this is the smooth weighted
/// round robin of packet schedulers; with unequal frames it keeps each
/// stream within about one frame of its share in bits.
#[derive(Debug, Clone)]
pub struct WeightedRoundRobin {
    weights: Vec<u64>,
    units: Vec<u64>,
    credit: Vec<i128>,
    total_weight: i128,
}

impl WeightedRoundRobin {
    /// Streams given as `(weight, units_per_frame)`: weight is the stream's
    /// rate (any common unit), units per frame what one of its frames counts
    /// for on the shared schedule (see [`bits_per_frame`]).
    pub fn new(streams: &[(u64, u64)]) -> Result<Self, ScheduleError> {
        if streams.is_empty() {
            return Err(ScheduleError::Weights("no streams".into()));
        }
        if let Some(i) = streams.iter().position(|&(w, u)| w == 0 || u == 0) {
            return Err(ScheduleError::Weights(format!(
                "stream {i} has a zero weight or a zero-unit frame"
            )));
        }
        let total: u128 = streams.iter().map(|&(w, _)| w as u128).sum();
        Ok(WeightedRoundRobin {
            weights: streams.iter().map(|&(w, _)| w).collect(),
            units: streams.iter().map(|&(_, u)| u).collect(),
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
            let key = self.credit[i] + self.weights[i] as i128 * self.units[i] as i128;
            if key > best_key {
                best_key = key;
                best = i;
            }
        }
        let u = self.units[best] as i128;
        for i in 0..self.credit.len() {
            self.credit[i] += self.weights[i] as i128 * u;
        }
        self.credit[best] -= self.total_weight * u;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::spec::L1_OVERHEAD;

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
        let bits = 8 * (9130 + L1_OVERHEAD as u64);
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
}
