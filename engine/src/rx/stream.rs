//! Per-stream accounting: the accumulators an RX lcore keeps for each
//! stream it sees, made ready in a pool before the loop starts.

use hdrhistogram::Histogram;
use serde::Serialize;

use super::nic::Arrival;
use super::seq::SeqTracker;
use super::{mask, Run};
use crate::wire::dissect::{CorruptReason, Ours};
use crate::wire::stamp::{extend, StampTime, COMPACT_SEQ_BITS};

/// Streams one RX lcore can tell apart; frames of more are counted as
/// `overflow` (never as lost). A stream costs about 45 KiB once seen
/// (sequence window and gap ring 12 KiB, two histograms that start at
/// 16 KiB each and grow with the largest value recorded, to 240 KiB at
/// most).
pub const MAX_STREAMS: usize = 4096;

/// Latency and inter-arrival histograms reach this many seconds.
pub(super) const HIST_MAX_SECS: u64 = 60;
/// Significant digits the histograms keep.
pub(super) const HIST_SIGFIG: u8 = 3;
/// A histogram starts covering values up to this (ticks) and grows, a few
/// times in a stream's life at most, as larger values come.
pub(super) const HIST_START_MAX: u64 = 2;

/// Why frames were counted corrupt.
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct CorruptCounts {
    /// IPv4 header checksum wrong.
    pub ip_checksum: u64,
    /// UDP/TCP checksum wrong.
    pub l4_checksum: u64,
    /// The stamp's own check failed.
    pub stamp: u64,
    /// The payload fill's checksum did not match the stamp.
    pub payload: u64,
    /// Lengths inconsistent between layers.
    pub length: u64,
}

impl CorruptCounts {
    /// All corrupt frames.
    pub fn total(&self) -> u64 {
        self.ip_checksum + self.l4_checksum + self.stamp + self.payload + self.length
    }

    pub(super) fn add(&mut self, r: CorruptReason) {
        match r {
            CorruptReason::IpChecksum => self.ip_checksum += 1,
            CorruptReason::L4Checksum => self.l4_checksum += 1,
            CorruptReason::StampCheck => self.stamp += 1,
            CorruptReason::FillChecksum => self.payload += 1,
            CorruptReason::Length => self.length += 1,
        }
    }
}

/// One stream as an RX lcore saw it.
pub struct StreamAcc {
    /// Its counts, as they are handed on.
    pub tally: StreamTally,
    /// Sequence accounting.
    pub seq: SeqTracker,
    /// Highest value the histograms take (60 s in ticks); larger ones are
    /// recorded as this.
    pub(super) hist_max: u64,
    pub(super) last_arrival: u64,
    /// Arrivals in the same poll as the stream's previous frame (gap 0),
    /// counted here rather than recorded one by one.
    pub(super) same_poll: u64,
}

/// What an RX lcore counted of one stream, all but the sequence
/// accounting: the accumulator's counts while it runs, and one lcore's
/// part of a stream's result afterwards.
#[derive(Clone, Debug)]
pub struct StreamTally {
    /// Stream id.
    pub id: u32,
    /// Frames received (good or corrupt).
    pub frames: u64,
    /// Bytes received, FCS included.
    pub bytes: u64,
    /// Corrupt frames by reason.
    pub corrupt: CorruptCounts,
    /// One-way latency in TSC ticks (shared TSC), or in nanoseconds of the
    /// synchronised clock when `latency_synced`.
    pub latency: Histogram<u64>,
    /// The latency is measured on the synchronised clock (version-2 stamps).
    pub latency_synced: bool,
    /// Latencies measured from the NIC's RX timestamp (the others from the
    /// TSC read after the poll).
    pub latency_nic: u64,
    /// Frames that arrived before their departure by the clocks (their
    /// latency recorded as 1): the clocks disagree by more than the path
    /// takes (two hosts' synchronised clocks, a NIC's clock mapped onto
    /// the TSC, or the TSCs of the sending and the receiving core).
    pub latency_early: u64,
    /// Gap between consecutive arrivals, in TSC ticks (in an accumulator
    /// without the same-poll arrivals, which it counts apart).
    pub interarrival: Histogram<u64>,
    /// UDP/TCP payload bytes of its intact frames.
    pub payload_bytes: u64,
    /// Arrival TSC of its first frame (good or corrupt).
    pub first_tsc: u64,
    /// Arrival TSC of its last frame (good or corrupt).
    pub last_tsc: u64,
    /// The departure TSC (from its stamp, shared TSC only) of the frame
    /// that ended the stream's newest gap in sequence: the first frame
    /// through after the last loss (0: no gap). RFC 2544 section 26.5's
    /// recovery is measured to it.
    pub resumed_tx_tsc: u64,
}

impl StreamAcc {
    /// A stream seen for the first time, on a TSC of `tsc_hz`.
    pub(crate) fn new(id: u32, tsc_hz: u64) -> Self {
        // Small at first (16 KiB): a histogram grows to the largest value
        // recorded, so that a stream's first frame costs little and a
        // receiver of thousands of streams does not hold gigabytes.
        let hist = || {
            let mut h = Histogram::new_with_bounds(1, HIST_START_MAX, HIST_SIGFIG)
                .expect("valid histogram bounds");
            h.auto(true);
            h
        };
        Self {
            tally: StreamTally {
                id,
                frames: 0,
                bytes: 0,
                corrupt: CorruptCounts::default(),
                latency: hist(),
                latency_synced: false,
                latency_nic: 0,
                latency_early: 0,
                interarrival: hist(),
                payload_bytes: 0,
                first_tsc: 0,
                last_tsc: 0,
                resumed_tx_tsc: 0,
            },
            seq: SeqTracker::default(),
            hist_max: (tsc_hz * HIST_MAX_SECS).max(2),
            last_arrival: 0,
            same_poll: 0,
        }
    }

    /// Writes every byte of the histograms' counts once, so that the pages
    /// are mapped before the stream's first frame.
    pub(super) fn prefault(&mut self) {
        self.tally.latency.reset();
        self.tally.interarrival.reset();
    }

    /// Marks an arrival at `now` in the stream's span.
    #[inline(always)]
    pub(super) fn arrived(&mut self, now: u64) {
        if self.tally.first_tsc == 0 {
            self.tally.first_tsc = now;
        }
        self.tally.last_tsc = now;
    }

    /// The per-frame part of an intact frame that arrived at `now`: its
    /// sequence number and its latency, measured to `at` (the NIC's stamp
    /// when `at.nic`; else `now` and the burst's time on the synchronised
    /// clock). Its counts are added with its run's ([`StreamAcc::add_run`]).
    #[inline(always)]
    pub(super) fn sequenced(&mut self, f: &Ours, now: u64, at: Arrival, shared_tsc: bool) {
        let seq = extend(f.seq, f.seq_bits, self.seq.counts().max_seq + 1);
        if !self.seq.record(seq) {
            self.out_of_line(f, seq, now);
        }
        match f.time {
            StampTime::Tsc if shared_tsc => {
                let m = mask(f.tsc_bits);
                let arrived = if at.nic { at.tsc } else { now };
                let mut lat = arrived.wrapping_sub(f.tx_tsc) & m;
                if lat > m >> 1 {
                    // Before its departure: mapped from the NIC's clock,
                    // or read on a core whose TSC is behind the sender's.
                    self.tally.latency_early += 1;
                    lat = 1;
                }
                let _ = self.tally.latency.record(lat.clamp(1, self.hist_max));
                self.tally.latency_nic += u64::from(at.nic);
            }
            StampTime::ClockNs if at.ns != 0 => {
                self.synced_latency(f, at.ns);
                self.tally.latency_nic += u64::from(at.nic);
            }
            _ => {}
        }
    }

    /// After a frame other than the one expected next: when it opened a
    /// gap (it is now the highest seen, past frames never received),
    /// its departure is where the newest loss ended.
    #[inline(never)]
    pub(super) fn out_of_line(&mut self, f: &Ours, seq: u64, now: u64) {
        let c = self.seq.counts();
        if c.max_seq == seq && c.lost > 0 && matches!(f.time, StampTime::Tsc) {
            self.tally.resumed_tx_tsc = extend(f.tx_tsc, f.tsc_bits, now);
        }
    }

    /// The gap from the stream's previous arrival to the first frame of a
    /// run that arrived at `now` (none in the same poll, none before the
    /// stream's first frame).
    #[inline(always)]
    pub(super) fn run_started(&mut self, now: u64) {
        if self.last_arrival == now {
            self.same_poll += 1;
        } else if self.last_arrival != 0 {
            let gap = now - self.last_arrival;
            let _ = self.tally.interarrival.record(gap.min(self.hist_max));
        }
        self.last_arrival = now;
    }

    /// Adds a run of `run.frames` intact frames of `run.bytes` bytes on the
    /// wire and `run.payload_bytes` of UDP/TCP payload, which arrived
    /// together at `run.now`, each already [`sequenced`](Self::sequenced)
    /// and the first [`run_started`](Self::run_started): the frames after
    /// the first are gaps of 0 (same poll).
    #[inline(always)]
    pub(super) fn add_run(&mut self, run: &Run) {
        self.tally.frames += run.frames;
        self.tally.bytes += run.bytes;
        self.tally.payload_bytes += run.payload_bytes;
        self.same_poll += run.frames - 1;
        self.arrived(run.now);
    }

    /// Records the one-way latency of a version-2 frame that arrived at
    /// `now_ns` on the synchronised clock.
    #[inline]
    pub(super) fn synced_latency(&mut self, f: &Ours, now_ns: u64) {
        let sent = extend(f.tx_tsc, f.tsc_bits, now_ns);
        let lat = now_ns.wrapping_sub(sent) as i64;
        self.tally.latency_synced = true;
        if lat <= 0 {
            self.tally.latency_early += 1;
        }
        let _ = self
            .tally
            .latency
            .record((lat.max(1) as u64).min(self.hist_max));
    }

    /// Accounts a corrupt frame of `wire` bytes, arrived at `now`, whose
    /// stamp gave its stream (and perhaps its sequence number).
    #[inline]
    pub(super) fn corrupt(&mut self, seq: Option<u64>, reason: CorruptReason, wire: u64, now: u64) {
        self.tally.frames += 1;
        self.tally.bytes += wire;
        self.arrived(now);
        self.tally.corrupt.add(reason);
        if let Some(s) = seq {
            // As carried: 48 bits in the compact stamp, 64 in the full one
            // (whose values stay below 2^48 in any real run, so widening
            // from 48 bits is exact).
            let s = extend(s, COMPACT_SEQ_BITS, self.seq.counts().max_seq + 1);
            let _ = self.seq.record(s);
        }
    }

    /// Inter-arrival gaps in TSC ticks, the arrivals in the same poll as
    /// their stream's previous frame (gap 0) included.
    pub fn interarrival_all(&self) -> Histogram<u64> {
        let mut h = self.tally.interarrival.clone();
        h.saturating_record_n(0, self.same_poll);
        h
    }
}

/// Stream accumulators built and touched before the RX loop starts: a new
/// stream takes the next one, so its first frame allocates nothing and
/// touches no new page (on a virtual machine a first touch costs tens of
/// thousands of cycles a page).
#[derive(Default)]
pub struct StreamPool {
    pub(super) accs: Vec<StreamAcc>,
}

impl StreamPool {
    /// `n` accumulators (at most [`MAX_STREAMS`]) for a TSC of `tsc_hz`.
    pub fn new(n: usize, tsc_hz: u64) -> Self {
        let accs = (0..n.min(MAX_STREAMS))
            .map(|_| {
                let mut a = StreamAcc::new(0, tsc_hz);
                a.prefault();
                a
            })
            .collect();
        StreamPool { accs }
    }
}
