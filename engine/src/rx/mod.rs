//! The RX worker loop and per-stream accounting.
//!
//! Each RX lcore polls its queues, dissects every frame (headers, IP/L4
//! checksums unless the NIC verified them, the stamp, the payload fill's
//! checksum), and accounts per stream: frames, bytes, lost, reordered,
//! duplicated, corrupt, latency or inter-arrival. It also measures its own
//! cost: cycles spent on polls that returned frames, and idle polls.

pub mod seq;

use std::sync::Arc;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::config::Verify;
use crate::counter::{Padded, RxLive, StopFlag};
use crate::dpdk::{tsc, RxBatch, BATCH_MAX};
use crate::report::Percentiles;
use crate::wire::dissect::{dissect_with, CorruptReason, DissectOptions, Dissected};
use crate::wire::stamp::extend;

use seq::{SeqCounts, SeqTracker};

/// Longest time an RX lcore keeps draining its queues after the stop.
const DRAIN_MS: u64 = 100;
/// Streams one RX lcore can tell apart; more are counted as foreign.
pub const MAX_STREAMS: usize = 4096;
/// Stream ids below this are looked up directly; larger ones by search.
const DIRECT_IDS: usize = 1 << 16;

/// Everything an RX lcore needs, prepared on the main lcore.
pub struct RxTask {
    /// The lcore it runs on.
    pub lcore: u32,
    /// DPDK port id.
    pub port: u16,
    /// Queues to poll.
    pub queues: Vec<u16>,
    /// What to check on each frame.
    pub verify: Verify,
    /// The NIC reports IP/L4 checksum status in the mbuf flags.
    pub hw_csum: bool,
    /// Extra cycles spent per frame (test knob).
    pub slowdown_cycles: u64,
    /// Stream ids expected (empty: learn from stamps).
    pub expected: Vec<u32>,
    /// Sender and receiver read the same TSC (same host): one-way latency
    /// can be measured from the stamp.
    pub shared_tsc: bool,
    /// TSC frequency (measured).
    pub tsc_hz: u64,
    /// Live counters for the reporter.
    pub live: Arc<Padded<RxLive>>,
    /// The stop signal.
    pub stop: Arc<StopFlag>,
}

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

    fn add(&mut self, r: CorruptReason) {
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
    /// Stream id.
    pub id: u32,
    /// Frames received (good or corrupt).
    pub frames: u64,
    /// Bytes received, FCS included.
    pub bytes: u64,
    /// Corrupt frames by reason.
    pub corrupt: CorruptCounts,
    /// Sequence accounting.
    pub seq: SeqTracker,
    /// One-way latency in TSC ticks (shared TSC only).
    pub latency: Histogram<u64>,
    /// Gap between consecutive arrivals, in TSC ticks.
    pub interarrival: Histogram<u64>,
    last_arrival: u64,
    /// Arrivals in the same poll as the stream's previous frame (gap 0),
    /// counted here rather than recorded one by one.
    same_poll: u64,
}

impl StreamAcc {
    fn new(id: u32, tsc_hz: u64) -> Self {
        let hist = || {
            Histogram::new_with_bounds(1, (tsc_hz * 60).max(2), 3).expect("valid histogram bounds")
        };
        Self {
            id,
            frames: 0,
            bytes: 0,
            corrupt: CorruptCounts::default(),
            seq: SeqTracker::new(0),
            latency: hist(),
            interarrival: hist(),
            last_arrival: 0,
            same_poll: 0,
        }
    }
}

/// A stream's result, for the report.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct StreamResult {
    /// Stream id.
    pub id: u32,
    /// Frames received (good or corrupt).
    pub frames: u64,
    /// Bytes received, FCS included.
    pub bytes: u64,
    /// Sequence accounting: unique, lost, reordered, duplicated, stale.
    #[serde(flatten)]
    pub seq: SeqCounts,
    /// Corrupt frames by reason.
    pub corrupt: CorruptCounts,
    /// Corrupt frames in all.
    pub corrupt_total: u64,
    /// One-way latency (when sender and receiver share a TSC).
    pub latency: Option<Percentiles>,
    /// Inter-arrival spacing.
    pub interarrival: Percentiles,
}

/// What one RX lcore did.
pub struct RxOutcome {
    /// Every frame received.
    pub frames: u64,
    /// Their bytes, FCS included.
    pub bytes: u64,
    /// Per-stream accounting.
    pub streams: Vec<StreamAcc>,
    /// Frames not ours (no stamp, other protocols).
    pub foreign: u64,
    /// Frames too short to hold a stamp.
    pub too_short: u64,
    /// Stamps of a format version this build does not know.
    pub unknown_version: u64,
    /// Corrupt frames whose stream could not be told.
    pub corrupt_unattributed: CorruptCounts,
    /// Frames of streams beyond [`MAX_STREAMS`].
    pub overflow: u64,
    /// UDP/TCP payload bytes of good frames.
    pub payload_bytes: u64,
    /// Cycles not spent in polls that returned nothing: receiving,
    /// checking and accounting frames, and the loop's own overhead.
    pub busy_cycles: u64,
    /// Cycles spent in polls that returned nothing.
    pub idle_cycles: u64,
    /// Busy cycles between the first and the last poll that returned
    /// frames: the cost of the frames received in that span, on the same
    /// window the delivered rate is measured over.
    pub span_busy_cycles: u64,
    /// Polls that returned frames.
    pub busy_polls: u64,
    /// Polls that returned nothing.
    pub idle_polls: u64,
    /// Cycles the loop ran in all.
    pub loop_cycles: u64,
    /// TSC of the first poll that returned frames (0: none did).
    pub first_rx_tsc: u64,
    /// TSC of the last poll that returned frames.
    pub last_rx_tsc: u64,
}

struct Table {
    direct: Vec<u16>,
    accs: Vec<StreamAcc>,
    tsc_hz: u64,
}

impl Table {
    fn new(expected: &[u32], tsc_hz: u64) -> Self {
        let mut t = Table {
            direct: vec![0; DIRECT_IDS],
            accs: Vec::with_capacity(expected.len().max(16)),
            tsc_hz,
        };
        for &id in expected {
            t.slot(id);
        }
        t
    }

    /// The accumulator of stream `id`, created on first sight (the only
    /// allocation after start-up: once per stream).
    #[inline]
    fn slot(&mut self, id: u32) -> Option<&mut StreamAcc> {
        let idx = if (id as usize) < DIRECT_IDS {
            let d = self.direct[id as usize];
            if d != 0 {
                Some(usize::from(d) - 1)
            } else {
                None
            }
        } else {
            self.accs.iter().position(|a| a.id == id)
        };
        let i = match idx {
            Some(i) => i,
            None => {
                if self.accs.len() >= MAX_STREAMS {
                    return None;
                }
                self.accs.push(StreamAcc::new(id, self.tsc_hz));
                let i = self.accs.len() - 1;
                if (id as usize) < DIRECT_IDS {
                    self.direct[id as usize] = (i + 1) as u16;
                }
                i
            }
        };
        Some(&mut self.accs[i])
    }
}

/// Run the task until the stop flag is set.
pub fn run(t: RxTask) -> RxOutcome {
    let mut table = Table::new(&t.expected, t.tsc_hz);
    let mut out = RxOutcome {
        frames: 0,
        bytes: 0,
        streams: Vec::new(),
        foreign: 0,
        too_short: 0,
        unknown_version: 0,
        corrupt_unattributed: CorruptCounts::default(),
        overflow: 0,
        payload_bytes: 0,
        busy_cycles: 0,
        idle_cycles: 0,
        span_busy_cycles: 0,
        first_rx_tsc: 0,
        last_rx_tsc: 0,
        busy_polls: 0,
        idle_polls: 0,
        loop_cycles: 0,
    };
    let opts_sw = DissectOptions {
        verify_ip: t.verify == Verify::Full,
        verify_l4: t.verify == Verify::Full,
        verify_fill: t.verify == Verify::Full,
    };
    let mut batch = RxBatch::new();
    let live = &t.live;
    let loop_start = tsc::now();
    let mut q = 0usize;
    let mut lost_published = 0u64;
    // Idle cycles after the first busy poll, and since the latest one.
    let (mut idle_after_first, mut idle_since_last) = (0u64, 0u64);
    loop {
        if t.stop.stopped() {
            // Drain what is already queued (frames in flight when the
            // sender stopped), for at most DRAIN_TICKS: a source that never
            // runs dry (the null PMD) must not hold the run open.
            let deadline = tsc::now() + t.tsc_hz / 1000 * DRAIN_MS;
            let mut quiet_rounds = 0;
            while quiet_rounds < 2 && tsc::now() < deadline {
                let mut got = 0;
                for &queue in &t.queues {
                    let n = batch.receive(t.port, queue, BATCH_MAX);
                    if n > 0 {
                        got += n;
                        let now = tsc::now();
                        // Drained frames belong to the arrival span too.
                        if out.first_rx_tsc == 0 {
                            out.first_rx_tsc = now;
                        }
                        out.last_rx_tsc = now;
                        let bytes = account(&t, &batch, &mut table, &mut out, &opts_sw, now);
                        live.frames.add(n as u64);
                        live.bytes.add(bytes);
                    }
                }
                quiet_rounds = if got == 0 { quiet_rounds + 1 } else { 0 };
            }
            break;
        }
        let queue = t.queues[q];
        q = if q + 1 == t.queues.len() { 0 } else { q + 1 };
        let before = tsc::now();
        let n = batch.receive(t.port, queue, BATCH_MAX);
        if n == 0 {
            out.idle_polls += 1;
            let idle = tsc::now() - before;
            out.idle_cycles += idle;
            if out.first_rx_tsc != 0 {
                idle_after_first += idle;
                idle_since_last += idle;
            }
            continue;
        }
        // Arrival time: after the poll, so a frame that came in during it
        // never gets a negative latency.
        let now = tsc::now();
        let bytes = account(&t, &batch, &mut table, &mut out, &opts_sw, now);
        batch.clear();
        if out.first_rx_tsc == 0 {
            out.first_rx_tsc = now;
        }
        out.last_rx_tsc = now;
        idle_since_last = 0;
        out.busy_polls += 1;
        live.frames.add(n as u64);
        live.bytes.add(bytes);
        // Publishing the lost count needs a pass over the streams: do it
        // every 64 busy polls only.
        if out.busy_polls.is_multiple_of(64) {
            let lost: u64 = table.accs.iter().map(|a| a.seq.counts().lost).sum();
            if lost != lost_published {
                live.lost.set(lost);
                lost_published = lost;
            }
        }
    }
    out.loop_cycles = tsc::now() - loop_start;
    out.busy_cycles = out.loop_cycles.saturating_sub(out.idle_cycles);
    out.span_busy_cycles = (out.last_rx_tsc - out.first_rx_tsc)
        .saturating_sub(idle_after_first.saturating_sub(idle_since_last));
    let lost: u64 = table.accs.iter().map(|a| a.seq.counts().lost).sum();
    live.lost.set(lost);
    out.streams = table.accs;
    out
}

/// Account every frame of `batch`; returns their bytes (FCS included).
#[inline]
fn account(
    t: &RxTask,
    batch: &RxBatch,
    table: &mut Table,
    out: &mut RxOutcome,
    opts_sw: &DissectOptions,
    now: u64,
) -> u64 {
    let mut bytes = 0u64;
    for i in 0..batch.len() {
        if t.slowdown_cycles > 0 {
            let until = tsc::now() + t.slowdown_cycles;
            while tsc::now() < until {
                std::hint::spin_loop();
            }
        }
        let (data, pkt_len) = batch.frame(i);
        let wire_len = pkt_len as u64 + 4;
        out.frames += 1;
        out.bytes += wire_len;
        bytes += wire_len;
        if t.verify == Verify::None {
            continue;
        }
        let mut opts = *opts_sw;
        if t.hw_csum && t.verify == Verify::Full {
            let fl = batch.ol_flags(i);
            let ip_known = fl & (crate::dpdk::RX_IP_CKSUM_GOOD | crate::dpdk::RX_IP_CKSUM_BAD) != 0;
            let l4_known = fl & (crate::dpdk::RX_L4_CKSUM_GOOD | crate::dpdk::RX_L4_CKSUM_BAD) != 0;
            opts.verify_ip &= !ip_known;
            opts.verify_l4 &= !l4_known;
            let hw_bad = if fl & crate::dpdk::RX_IP_CKSUM_BAD != 0 {
                Some(CorruptReason::IpChecksum)
            } else if fl & crate::dpdk::RX_L4_CKSUM_BAD != 0 {
                Some(CorruptReason::L4Checksum)
            } else {
                None
            };
            if let Some(reason) = hw_bad {
                out.corrupt_unattributed.add(reason);
                continue;
            }
        }
        match dissect_with(data, &opts) {
            Dissected::Ours(f) => {
                let Some(acc) = table.slot(f.stream_id) else {
                    out.overflow += 1;
                    continue;
                };
                let seq = extend(f.seq, f.seq_bits, acc.seq.counts().max_seq + 1);
                acc.seq.record(seq);
                acc.frames += 1;
                acc.bytes += wire_len;
                if t.shared_tsc {
                    let lat = now.wrapping_sub(f.tx_tsc) & mask(f.tsc_bits);
                    acc.latency.saturating_record(lat.max(1));
                }
                if acc.last_arrival == now {
                    acc.same_poll += 1;
                } else if acc.last_arrival != 0 {
                    acc.interarrival.saturating_record(now - acc.last_arrival);
                }
                acc.last_arrival = now;
                out.payload_bytes += f.payload_len as u64;
            }
            Dissected::Corrupt {
                stream_id,
                seq,
                reason,
            } => match stream_id.and_then(|id| table.slot(id)) {
                Some(acc) => {
                    acc.frames += 1;
                    acc.bytes += wire_len;
                    acc.corrupt.add(reason);
                    if let Some(s) = seq {
                        // As carried: 48 bits in the compact stamp, 64 in
                        // the full one (whose values stay below 2^48 in any
                        // real run, so widening from 48 bits is exact).
                        let s = extend(s, 48, acc.seq.counts().max_seq + 1);
                        acc.seq.record(s);
                    }
                }
                None => out.corrupt_unattributed.add(reason),
            },
            Dissected::UnknownVersion { .. } => out.unknown_version += 1,
            Dissected::TooShort => out.too_short += 1,
            Dissected::Foreign => out.foreign += 1,
        }
    }
    bytes
}

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl StreamAcc {
    /// The stream's result at `tsc_hz`.
    pub fn result(&self, tsc_hz: u64, shared_tsc: bool) -> StreamResult {
        StreamResult {
            id: self.id,
            frames: self.frames,
            bytes: self.bytes,
            seq: self.seq.counts(),
            corrupt: self.corrupt,
            corrupt_total: self.corrupt.total(),
            latency: shared_tsc.then(|| Percentiles::from_ticks(&self.latency, tsc_hz)),
            interarrival: {
                let mut h = self.interarrival.clone();
                h.saturating_record_n(0, self.same_poll);
                Percentiles::from_ticks(&h, tsc_hz)
            },
        }
    }
}
