//! Sampled IEEE 1588 TX timestamps: how far a frame's departure from the
//! NIC lies from the software stamp it carries.
//!
//! A sender stamps each frame with the TSC read just before `tx_burst`;
//! the frame leaves the NIC later, after the driver, the descriptor ring
//! and the MAC. A port with IEEE 1588 timesync latches the departure of
//! one frame at a time (the one sent with `RTE_MBUF_F_TX_IEEE1588_TMST`),
//! to be read back with `rte_eth_timesync_read_tx_timestamp`. So the
//! sender samples: now and then it marks one frame of a burst, polls the
//! latch on a TSC interval while it is in flight, and keeps, per stream,
//! the offset NIC departure − software stamp. Its mean corrects the
//! latency (the departure is the stamp plus the mean offset); its
//! spread, how far a frame's offset may lie from the mean, joins the
//! bound.
//!
//! The rules, all counted:
//! - one sample in flight at a time (the latch holds one departure);
//! - samples at least [`MIN_GAP_NS`] apart;
//! - while a sample is in flight the latch is read at most once per
//!   [`POLL_GAP_NS`] ([`TxSampler::poll_due`]), not after every burst: a
//!   read is a register read across PCIe (about 1 µs on ixgbe and i40e),
//!   as long as a small burst;
//! - a sample not read back after [`GIVE_UP_POLLS`] polls is given up
//!   (`lost`): some drivers latch only PTP frames (ethertype 0x88F7), and
//!   their latch never holds the marked frame;
//! - an offset larger than [`MAX_OFFSET_NS`] either way is rejected: it
//!   is another frame's departure, or a latch left over from a lost
//!   sample, not this frame's.
//!
//! Times are TSC ticks on the sender's timeline (the NIC's latched time
//! mapped onto the TSC by `clock::nic`); figures are reported in ns. The
//! sampler is pure: the TX loop marks, sends and reads the latch.

use serde::{Deserialize, Serialize};

/// Samples are at least this far apart, ns.
pub const MIN_GAP_NS: u64 = 1_000_000;
/// While a sample is in flight, the latch is read at most this often, ns.
pub const POLL_GAP_NS: u64 = 20_000;
/// A sample not read back after this many polls (at least 1.28 ms at
/// [`POLL_GAP_NS`]) is given up.
pub const GIVE_UP_POLLS: u32 = 64;
/// An offset larger than this either way is rejected, ns.
pub const MAX_OFFSET_NS: u64 = 10_000_000;

/// What a poll of the latch did with the sample in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// No sample in flight.
    Idle,
    /// The latch holds nothing yet; the sample stays in flight.
    Waiting,
    /// The sample was read back: its offset, ticks.
    Taken(i64),
    /// Read back with an offset beyond [`MAX_OFFSET_NS`]: not counted.
    Rejected(i64),
    /// Not read back after [`GIVE_UP_POLLS`] polls: given up.
    Lost,
}

/// The sample in flight: its stream, its software stamp (TSC) and the
/// polls since it left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct InFlight {
    stream: usize,
    stamp: u64,
    polls: u32,
}

/// The offsets of one stream's samples, ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Offsets {
    samples: u64,
    sum: i128,
    min: i64,
    max: i64,
}

impl Offsets {
    fn add(&mut self, d: i64) {
        if self.samples == 0 {
            (self.min, self.max) = (d, d);
        } else {
            self.min = self.min.min(d);
            self.max = self.max.max(d);
        }
        self.samples += 1;
        self.sum += i128::from(d);
    }
}

/// One TX task's sampler of departure offsets.
#[derive(Debug, Clone)]
pub struct TxSampler {
    tsc_hz: u64,
    gap_ticks: u64,
    poll_ticks: u64,
    max_ticks: u64,
    flight: Option<InFlight>,
    /// The TSC from which the latch may be read again.
    next_poll: u64,
    /// Software stamp of the latest sample sent.
    last: Option<u64>,
    streams: Vec<Offsets>,
    lost: u64,
    rejected: u64,
}

impl TxSampler {
    /// A sampler for a task of `streams` streams on a TSC of `tsc_hz`.
    pub fn new(streams: usize, tsc_hz: u64) -> Self {
        let ticks = |ns: u64| (u128::from(ns) * u128::from(tsc_hz) / 1_000_000_000) as u64;
        TxSampler {
            tsc_hz,
            gap_ticks: ticks(MIN_GAP_NS),
            poll_ticks: ticks(POLL_GAP_NS),
            max_ticks: ticks(MAX_OFFSET_NS),
            flight: None,
            next_poll: 0,
            last: None,
            streams: vec![Offsets::default(); streams],
            lost: 0,
            rejected: 0,
        }
    }

    /// Whether the burst stamped at TSC `now` should carry a marked
    /// frame: none is in flight and the latest left [`MIN_GAP_NS`] or
    /// more before.
    #[inline(always)]
    pub fn wants(&self, now: u64) -> bool {
        self.flight.is_none()
            && self
                .last
                .is_none_or(|l| now.saturating_sub(l) >= self.gap_ticks)
    }

    /// Whether a sample is in flight (the latch is to be polled).
    #[inline(always)]
    pub fn in_flight(&self) -> bool {
        self.flight.is_some()
    }

    /// Whether the latch is to be read at TSC `now`: a sample is in
    /// flight and [`POLL_GAP_NS`] have passed since the latest read (or
    /// since the sample left); when it is, the next read is due a gap
    /// later.
    #[inline(always)]
    pub fn poll_due(&mut self, now: u64) -> bool {
        if !self.in_flight() || now < self.next_poll {
            return false;
        }
        self.next_poll = now.saturating_add(self.poll_ticks);
        true
    }

    /// The marked frame, of stream `stream` and stamped with TSC `stamp`,
    /// was taken by the PMD. Ignored while a sample is in flight or for a
    /// stream the task does not have.
    pub fn sent(&mut self, stream: usize, stamp: u64) {
        if self.flight.is_some() || stream >= self.streams.len() {
            return;
        }
        self.flight = Some(InFlight {
            stream,
            stamp,
            polls: 0,
        });
        self.last = Some(stamp);
        self.next_poll = stamp.saturating_add(self.poll_ticks);
    }

    /// The latch was read ([`poll_due`](Self::poll_due)); `latched` is
    /// its reading mapped onto the TSC (`None`: it holds nothing yet).
    pub fn poll(&mut self, latched: Option<u64>) -> Poll {
        let Some(f) = self.flight.as_mut() else {
            return Poll::Idle;
        };
        let Some(at) = latched else {
            f.polls += 1;
            if f.polls < GIVE_UP_POLLS {
                return Poll::Waiting;
            }
            self.flight = None;
            self.lost += 1;
            return Poll::Lost;
        };
        let d = at.wrapping_sub(f.stamp) as i64;
        let stream = f.stream;
        self.flight = None;
        if d.unsigned_abs() > self.max_ticks {
            self.rejected += 1;
            return Poll::Rejected(d);
        }
        self.streams[stream].add(d);
        Poll::Taken(d)
    }

    /// The samples over the run, ns, for the result.
    pub fn report(&self) -> DepartureOffsets {
        let ns = |t: f64| t * 1e9 / self.tsc_hz.max(1) as f64;
        let streams: Vec<StreamOffsets> = (self.streams.iter())
            .map(|o| {
                if o.samples == 0 {
                    return StreamOffsets::default();
                }
                StreamOffsets {
                    samples: o.samples,
                    min_ns: ns(o.min as f64),
                    mean_ns: ns(o.sum as f64 / o.samples as f64),
                    max_ns: ns(o.max as f64),
                    spread_ns: ns((i128::from(o.max) - i128::from(o.min)) as f64),
                }
            })
            .collect();
        DepartureOffsets {
            samples: streams.iter().map(|s| s.samples).sum(),
            lost: self.lost + u64::from(self.flight.is_some()),
            rejected: self.rejected,
            streams,
        }
    }
}

/// One stream's departure offsets (NIC departure − software stamp), ns.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct StreamOffsets {
    /// Samples read back and kept.
    pub samples: u64,
    /// The smallest offset.
    pub min_ns: f64,
    /// Their mean: what the latency is corrected by.
    pub mean_ns: f64,
    /// The largest.
    pub max_ns: f64,
    /// `max − min`: how far a frame's offset may lie from the mean; it
    /// joins the latency's bound.
    pub spread_ns: f64,
}

/// A TX task's (or a port's) departure offsets over a run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DepartureOffsets {
    /// Samples kept, all streams.
    pub samples: u64,
    /// Samples given up (never read back; one still in flight at the end
    /// counts).
    pub lost: u64,
    /// Samples read back with an offset beyond [`MAX_OFFSET_NS`].
    pub rejected: u64,
    /// Per stream of the task, in its order.
    pub streams: Vec<StreamOffsets>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 GHz: one tick is one ns, figures are exact.
    const GHZ: u64 = 1_000_000_000;

    /// Sends a sample of `stream` at `stamp` and reads it back `offset`
    /// later, on the first poll.
    fn sample(s: &mut TxSampler, stream: usize, stamp: u64, offset: i64) -> Poll {
        assert!(s.wants(stamp), "a sample is wanted at {stamp}");
        s.sent(stream, stamp);
        s.poll(Some(stamp.wrapping_add_signed(offset)))
    }

    #[test]
    fn offsets_are_kept_per_stream_with_their_mean_and_spread() {
        let mut s = TxSampler::new(2, GHZ);
        assert_eq!(sample(&mut s, 0, 10_000_000, 700), Poll::Taken(700));
        assert_eq!(sample(&mut s, 1, 11_000_000, 2_000), Poll::Taken(2_000));
        assert_eq!(sample(&mut s, 0, 12_000_000, 900), Poll::Taken(900));
        assert_eq!(sample(&mut s, 0, 13_000_000, 1_100), Poll::Taken(1_100));
        let r = s.report();
        assert_eq!(r.samples, 4);
        assert_eq!((r.lost, r.rejected), (0, 0));
        assert_eq!(
            r.streams,
            vec![
                StreamOffsets {
                    samples: 3,
                    min_ns: 700.0,
                    mean_ns: 900.0,
                    max_ns: 1_100.0,
                    spread_ns: 400.0,
                },
                StreamOffsets {
                    samples: 1,
                    min_ns: 2_000.0,
                    mean_ns: 2_000.0,
                    max_ns: 2_000.0,
                    spread_ns: 0.0,
                },
            ]
        );
    }

    #[test]
    fn negative_offsets_count_too() {
        // A NIC clock mapped a little behind the TSC: the departure reads
        // before the stamp.
        let mut s = TxSampler::new(1, GHZ);
        assert_eq!(sample(&mut s, 0, 5_000_000, -300), Poll::Taken(-300));
        assert_eq!(sample(&mut s, 0, 6_000_000, 100), Poll::Taken(100));
        let st = s.report().streams[0];
        assert_eq!(
            (st.min_ns, st.mean_ns, st.max_ns, st.spread_ns),
            (-300.0, -100.0, 100.0, 400.0)
        );
    }

    #[test]
    fn one_sample_in_flight_at_a_time() {
        let mut s = TxSampler::new(1, GHZ);
        assert!(!s.in_flight());
        assert_eq!(s.poll(None), Poll::Idle);
        assert!(s.wants(0));
        s.sent(0, 0);
        assert!(s.in_flight());
        // In flight: no other sample, even long after.
        assert!(!s.wants(1_000_000_000));
        // A second `sent` is ignored: the first stays in flight.
        s.sent(0, 500);
        assert_eq!(s.poll(Some(40)), Poll::Taken(40));
        assert!(!s.in_flight());
        assert_eq!(s.poll(Some(99)), Poll::Idle);
        assert_eq!(s.report().samples, 1);
    }

    /// The latch is read once per 20 µs of TSC while a sample is in
    /// flight, never when none is: not after every burst.
    #[test]
    fn the_latch_is_read_on_a_tsc_interval() {
        let mut s = TxSampler::new(1, GHZ);
        // Nothing in flight: never due.
        assert!(!s.poll_due(0));
        assert!(!s.poll_due(1_000_000));
        s.sent(0, 5_000_000);
        // Not before 20 µs after the sample left.
        assert!(!s.poll_due(5_000_000));
        assert!(!s.poll_due(5_019_999));
        assert!(s.poll_due(5_020_000));
        // Then 20 µs after each read, whatever the bursts between.
        assert!(!s.poll_due(5_020_001));
        assert!(!s.poll_due(5_039_999));
        assert!(s.poll_due(5_040_000));
        assert!(s.poll_due(5_100_000));
        assert!(!s.poll_due(5_119_999));
        assert_eq!(s.poll(Some(5_000_700)), Poll::Taken(700));
        // Taken: no more reads.
        assert!(!s.poll_due(9_000_000));
        // At 2.5 GHz the gap is 50,000 ticks.
        let mut s = TxSampler::new(1, 2_500_000_000);
        s.sent(0, 0);
        assert!(!s.poll_due(49_999));
        assert!(s.poll_due(50_000));
    }

    #[test]
    fn samples_are_a_millisecond_apart() {
        let mut s = TxSampler::new(1, GHZ);
        assert_eq!(sample(&mut s, 0, 3_000_000, 10), Poll::Taken(10));
        assert!(!s.wants(3_000_000));
        assert!(!s.wants(3_999_999));
        assert!(s.wants(4_000_000));
        // A TSC read before the last sample's (never, on an invariant
        // TSC) wants none.
        assert!(!s.wants(2_000_000));
        // At 2.5 GHz the millisecond is 2.5 M ticks.
        let mut s = TxSampler::new(1, 2_500_000_000);
        s.sent(0, 1_000);
        s.poll(Some(1_010));
        assert!(!s.wants(1_000 + 2_499_999));
        assert!(s.wants(1_000 + 2_500_000));
    }

    #[test]
    fn a_sample_not_read_back_in_64_bursts_is_lost() {
        let mut s = TxSampler::new(1, GHZ);
        s.sent(0, 1_000);
        for _ in 0..GIVE_UP_POLLS - 1 {
            assert_eq!(s.poll(None), Poll::Waiting);
        }
        assert!(s.in_flight());
        assert_eq!(s.poll(None), Poll::Lost);
        assert!(!s.in_flight());
        assert_eq!(s.poll(None), Poll::Idle);
        // The next sample still waits for the gap from the lost one.
        assert!(!s.wants(1_000 + MIN_GAP_NS - 1));
        assert!(s.wants(1_000 + MIN_GAP_NS));
        // Read back on its 64th burst: still taken.
        s.sent(0, 2_000_000);
        for _ in 0..GIVE_UP_POLLS - 1 {
            assert_eq!(s.poll(None), Poll::Waiting);
        }
        assert_eq!(s.poll(Some(2_000_500)), Poll::Taken(500));
        let r = s.report();
        assert_eq!((r.samples, r.lost, r.rejected), (1, 1, 0));
    }

    #[test]
    fn a_sample_in_flight_at_the_end_counts_lost() {
        let mut s = TxSampler::new(1, GHZ);
        s.sent(0, 7);
        assert_eq!(s.poll(None), Poll::Waiting);
        let r = s.report();
        assert_eq!((r.samples, r.lost), (0, 1));
        assert_eq!(r.streams, vec![StreamOffsets::default()]);
    }

    #[test]
    fn offsets_beyond_10_ms_are_rejected() {
        let mut s = TxSampler::new(1, GHZ);
        let at = 100_000_000;
        assert_eq!(sample(&mut s, 0, at, 10_000_000), Poll::Taken(10_000_000));
        let at = at + MIN_GAP_NS;
        assert_eq!(
            sample(&mut s, 0, at, 10_000_001),
            Poll::Rejected(10_000_001)
        );
        let at = at + MIN_GAP_NS;
        assert_eq!(sample(&mut s, 0, at, -10_000_000), Poll::Taken(-10_000_000));
        let at = at + MIN_GAP_NS;
        assert_eq!(
            sample(&mut s, 0, at, -10_000_001),
            Poll::Rejected(-10_000_001)
        );
        // A latch far off (a stale reading, another clock): rejected.
        let at = at + MIN_GAP_NS;
        s.sent(0, at);
        assert_eq!(s.poll(Some(0)), Poll::Rejected(-(at as i64)));
        let r = s.report();
        assert_eq!((r.samples, r.lost, r.rejected), (2, 0, 3));
        assert_eq!(r.streams[0].mean_ns, 0.0);
        assert_eq!(r.streams[0].spread_ns, 20_000_000.0);
        // At 2.5 GHz, 10 ms is 25 M ticks.
        let mut s = TxSampler::new(1, 2_500_000_000);
        assert_eq!(sample(&mut s, 0, 0, 25_000_000), Poll::Taken(25_000_000));
        let at = 2_500_000;
        assert_eq!(
            sample(&mut s, 0, at, 25_000_001),
            Poll::Rejected(25_000_001)
        );
    }

    #[test]
    fn figures_are_reported_in_ns_of_the_tsc() {
        // 2.5 GHz: 1_000 ticks are 400 ns.
        let mut s = TxSampler::new(1, 2_500_000_000);
        assert_eq!(sample(&mut s, 0, 0, 1_000), Poll::Taken(1_000));
        assert_eq!(sample(&mut s, 0, 2_500_000, 2_000), Poll::Taken(2_000));
        let st = s.report().streams[0];
        assert_eq!(
            (st.samples, st.min_ns, st.mean_ns, st.max_ns, st.spread_ns),
            (2, 400.0, 600.0, 800.0, 400.0)
        );
    }

    #[test]
    fn a_stream_the_task_lacks_is_not_sampled() {
        let mut s = TxSampler::new(1, GHZ);
        s.sent(1, 0);
        assert!(!s.in_flight());
        assert!(s.wants(0));
    }
}
