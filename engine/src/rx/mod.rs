//! The RX worker loop and per-stream accounting.
//!
//! Each RX lcore polls its queues, dissects every frame (headers, IP/L4
//! checksums unless the NIC verified them, the stamp, the payload fill's
//! checksum), and accounts per stream: frames, bytes, lost, reordered,
//! duplicated, corrupt, latency or inter-arrival. It also measures its own
//! cost: cycles spent on polls that returned frames, and idle polls.
//!
//! The loop has DPDK's l2fwd shape: poll one queue, account what came,
//! move to the next queue. After the stop it goes on polling, for a
//! bounded time, until every queue is drained. What each frame is checked
//! for is decided once per task, not per frame.

pub mod seq;

use std::sync::Arc;

use hdrhistogram::Histogram;
use serde::Serialize;

use crate::counter::{Padded, RxLive, StopFlag};
use crate::dpdk::{
    tsc, RxBatch, RxQueue, BATCH_MAX, RX_IP_CKSUM_BAD, RX_IP_CKSUM_GOOD, RX_L4_CKSUM_BAD,
    RX_L4_CKSUM_GOOD,
};
use crate::pace::tsc::ns_to_ticks;
use crate::wire::dissect::{dissect_with, CorruptReason, DissectOptions, Dissected, Ours};
use crate::wire::spec::FCS_LEN;
use crate::wire::stamp::{extend, COMPACT_SEQ_BITS};

use seq::{CountFrom, SeqTracker};

/// Longest time an RX lcore keeps draining its queues after the stop (ns).
const DRAIN_NS: u64 = 100_000_000;
/// The drain ends early once every queue came back empty this many times
/// in a row.
const DRAIN_QUIET_ROUNDS: usize = 2;
/// Busy polls between two publications of the lost count (each a pass
/// over the streams).
const LOST_PUBLISH_POLLS: u64 = 64;
/// Streams one RX lcore can tell apart; frames of more are counted as
/// `overflow` (never as lost). A stream costs about 45 KiB once seen
/// (sequence window and gap ring 12 KiB, two histograms that start at
/// 16 KiB each and grow with the largest value recorded, to 240 KiB at
/// most).
pub const MAX_STREAMS: usize = 4096;
/// Stream ids below this are looked up directly; larger ones by search.
const DIRECT_IDS: usize = 1 << 16;
/// Latency and inter-arrival histograms reach this many seconds.
const HIST_MAX_SECS: u64 = 60;
/// Significant digits the histograms keep.
const HIST_SIGFIG: u8 = 3;
/// A histogram starts covering values up to this (ticks) and grows, a few
/// times in a stream's life at most, as larger values come.
const HIST_START_MAX: u64 = 2;
/// `direct` entry of a stream id seen beyond [`MAX_STREAMS`].
const OVERFLOWED: u16 = u16::MAX;

/// What an RX task checks on every frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// Stamp, payload fill checksum, L3 and L4 checksums.
    Full,
    /// The stamp only (stream, sequence, timestamp).
    Stamp,
    /// Count frames and bytes only.
    CountOnly,
}

/// Everything an RX lcore needs, prepared on the main lcore.
pub struct RxTask<'q> {
    /// The lcore it runs on.
    pub lcore: u32,
    /// The RX queues it alone polls.
    pub queues: Vec<RxQueue<'q>>,
    /// What to check on each frame.
    pub verify: Verify,
    /// The NIC reports IP/L4 checksum status in the mbuf flags.
    pub hw_csum: bool,
    /// Extra cycles spent per frame (test knob).
    pub slowdown_cycles: u64,
    /// Where each stream's `lost` counts from.
    pub count_from: CountFrom,
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
    /// UDP/TCP payload bytes of its intact frames.
    pub payload_bytes: u64,
    /// Arrival TSC of its first frame (good or corrupt).
    pub first_tsc: u64,
    /// Arrival TSC of its last frame (good or corrupt).
    pub last_tsc: u64,
    /// Highest value the histograms take (60 s in ticks); larger ones are
    /// recorded as this.
    hist_max: u64,
    last_arrival: u64,
    /// Arrivals in the same poll as the stream's previous frame (gap 0),
    /// counted here rather than recorded one by one.
    same_poll: u64,
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
            id,
            frames: 0,
            bytes: 0,
            corrupt: CorruptCounts::default(),
            seq: SeqTracker::default(),
            latency: hist(),
            interarrival: hist(),
            payload_bytes: 0,
            first_tsc: 0,
            last_tsc: 0,
            hist_max: (tsc_hz * HIST_MAX_SECS).max(2),
            last_arrival: 0,
            same_poll: 0,
        }
    }

    /// Marks an arrival at `now` in the stream's span.
    #[inline(always)]
    fn arrived(&mut self, now: u64) {
        if self.first_tsc == 0 {
            self.first_tsc = now;
        }
        self.last_tsc = now;
    }

    /// Accounts an intact frame of `wire` bytes that arrived at `now`.
    #[inline]
    fn ours(&mut self, f: &Ours, wire: u64, now: u64, shared_tsc: bool) {
        let seq = extend(f.seq, f.seq_bits, self.seq.counts().max_seq + 1);
        self.seq.record(seq);
        self.frames += 1;
        self.bytes += wire;
        self.payload_bytes += f.payload_len as u64;
        self.arrived(now);
        if shared_tsc {
            let lat = now.wrapping_sub(f.tx_tsc) & mask(f.tsc_bits);
            let _ = self.latency.record(lat.clamp(1, self.hist_max));
        }
        if self.last_arrival == now {
            self.same_poll += 1;
        } else if self.last_arrival != 0 {
            let gap = now - self.last_arrival;
            let _ = self.interarrival.record(gap.min(self.hist_max));
        }
        self.last_arrival = now;
    }

    /// Accounts a corrupt frame of `wire` bytes, arrived at `now`, whose
    /// stamp gave its stream (and perhaps its sequence number).
    #[inline]
    fn corrupt(&mut self, seq: Option<u64>, reason: CorruptReason, wire: u64, now: u64) {
        self.frames += 1;
        self.bytes += wire;
        self.arrived(now);
        self.corrupt.add(reason);
        if let Some(s) = seq {
            // As carried: 48 bits in the compact stamp, 64 in the full one
            // (whose values stay below 2^48 in any real run, so widening
            // from 48 bits is exact).
            let s = extend(s, COMPACT_SEQ_BITS, self.seq.counts().max_seq + 1);
            self.seq.record(s);
        }
    }

    /// Inter-arrival gaps in TSC ticks, the arrivals in the same poll as
    /// their stream's previous frame (gap 0) included.
    pub fn interarrival_all(&self) -> Histogram<u64> {
        let mut h = self.interarrival.clone();
        h.saturating_record_n(0, self.same_poll);
        h
    }
}

/// What one RX lcore did.
#[derive(Default)]
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
    /// Streams beyond [`MAX_STREAMS`] (distinct ids; a lower bound past
    /// [`MAX_STREAMS`] ids of 65536 or more).
    pub overflow_streams: u64,
    /// Frames of ours whose stream the task's `streams:` list leaves out.
    pub untracked: u64,
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

/// Why a frame of ours has no stream accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Miss {
    /// Its stream is not in the task's `streams:` list: foreign.
    Untracked,
    /// The table holds [`MAX_STREAMS`] streams already: overflow.
    Overflow,
}

/// The streams of one RX lcore, by id.
struct Table {
    /// For ids below [`DIRECT_IDS`]: 0 (not seen), index + 1, or
    /// [`OVERFLOWED`].
    direct: Vec<u16>,
    accs: Vec<StreamAcc>,
    /// Only the listed streams are checked (a `streams:` list).
    listed: bool,
    /// Listed ids beyond [`MAX_STREAMS`], sorted: overflow, not foreign.
    listed_beyond: Vec<u32>,
    /// Ids of [`DIRECT_IDS`] or more seen beyond [`MAX_STREAMS`]
    /// (preallocated; once full, further ones are not told apart).
    overflow_ids: Vec<u32>,
    /// Distinct streams seen beyond [`MAX_STREAMS`].
    overflow_streams: u64,
    tsc_hz: u64,
    /// Where each new stream's `lost` counts from.
    count_from: CountFrom,
}

impl Table {
    /// A table of the `expected` streams; when `expected` is not empty,
    /// only they are checked and other ids are foreign.
    fn new(expected: &[u32], tsc_hz: u64, count_from: CountFrom) -> Self {
        let mut t = Table {
            direct: vec![0; DIRECT_IDS],
            accs: Vec::with_capacity(expected.len().clamp(16, MAX_STREAMS)),
            listed: false,
            listed_beyond: Vec::new(),
            overflow_ids: Vec::with_capacity(MAX_STREAMS),
            overflow_streams: 0,
            tsc_hz,
            count_from,
        };
        let (tracked, beyond) = expected.split_at(expected.len().min(MAX_STREAMS));
        for &id in tracked {
            let _ = t.slot(id);
        }
        t.listed = !expected.is_empty();
        t.listed_beyond = beyond.to_vec();
        t.listed_beyond.sort_unstable();
        t
    }

    /// The index of stream `id`'s accumulator, if it has one.
    #[inline(always)]
    fn find(&self, id: u32) -> Option<usize> {
        if (id as usize) < DIRECT_IDS {
            match self.direct[id as usize] {
                0 | OVERFLOWED => None,
                d => Some(usize::from(d) - 1),
            }
        } else {
            self.accs.iter().position(|a| a.id == id)
        }
    }

    /// The accumulator of stream `id`, created on first sight unless the
    /// streams are listed (the only allocation after start-up: once per
    /// stream, about 45 KiB).
    #[inline]
    fn slot(&mut self, id: u32) -> Result<&mut StreamAcc, Miss> {
        let i = match self.find(id) {
            Some(i) => i,
            None if self.listed => return Err(self.unlisted(id)),
            None => self.add(id)?,
        };
        Ok(&mut self.accs[i])
    }

    /// A new accumulator for stream `id`, or overflow when the table is
    /// full (each stream beyond it counted once in `overflow_streams`).
    #[cold]
    fn add(&mut self, id: u32) -> Result<usize, Miss> {
        if self.accs.len() >= MAX_STREAMS {
            self.overflowed(id);
            return Err(Miss::Overflow);
        }
        let mut acc = StreamAcc::new(id, self.tsc_hz);
        if self.count_from != CountFrom::FirstSeen {
            acc.seq = SeqTracker::counting_from(self.count_from);
        }
        self.accs.push(acc);
        let i = self.accs.len() - 1;
        if (id as usize) < DIRECT_IDS {
            self.direct[id as usize] = (i + 1) as u16;
        }
        Ok(i)
    }

    /// Why stream `id`, without an accumulator, is not checked when the
    /// streams are listed: listed beyond the table (overflow) or not
    /// listed (foreign).
    #[cold]
    fn unlisted(&mut self, id: u32) -> Miss {
        if self.listed_beyond.binary_search(&id).is_ok() {
            self.overflowed(id);
            Miss::Overflow
        } else {
            Miss::Untracked
        }
    }

    /// Counts stream `id` among the overflowed streams, once.
    fn overflowed(&mut self, id: u32) {
        if (id as usize) < DIRECT_IDS {
            if self.direct[id as usize] != OVERFLOWED {
                self.direct[id as usize] = OVERFLOWED;
                self.overflow_streams += 1;
            }
        } else if !self.overflow_ids.contains(&id) && self.overflow_ids.len() < MAX_STREAMS {
            self.overflow_ids.push(id);
            self.overflow_streams += 1;
        }
    }

    /// Frames lost so far, summed over the streams.
    fn lost(&self) -> u64 {
        self.accs.iter().map(|a| a.seq.counts().lost).sum()
    }
}

/// What is checked in a frame whose checksum the NIC found bad: the stamp
/// only (its own check), to tell its stream and sequence number.
const STAMP_ONLY: DissectOptions = DissectOptions {
    verify_ip: false,
    verify_l4: false,
    verify_fill: false,
};

/// How each frame is checked: decided once per task from its verify level
/// and whether the NIC reports checksum status.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// Count frames and bytes only.
    Count,
    /// Dissect in software with these options.
    Software(DissectOptions),
    /// Full checks, taking the NIC's verdict on the IP and L4 checksums
    /// where it gives one.
    Nic,
}

impl Check {
    fn new(verify: Verify, nic_csum: bool) -> Self {
        match verify {
            Verify::CountOnly => Check::Count,
            Verify::Stamp => Check::Software(STAMP_ONLY),
            Verify::Full if nic_csum => Check::Nic,
            Verify::Full => Check::Software(DissectOptions::default()),
        }
    }
}

/// The NIC's checksum verdict on a frame from its RX flags: a bad checksum
/// it found, or what is left for software to verify.
#[inline(always)]
fn nic_checks(ol_flags: u64) -> Result<DissectOptions, CorruptReason> {
    if ol_flags & RX_IP_CKSUM_BAD != 0 {
        return Err(CorruptReason::IpChecksum);
    }
    if ol_flags & RX_L4_CKSUM_BAD != 0 {
        return Err(CorruptReason::L4Checksum);
    }
    Ok(DissectOptions {
        verify_ip: ol_flags & RX_IP_CKSUM_GOOD == 0,
        verify_l4: ol_flags & RX_L4_CKSUM_GOOD == 0,
        verify_fill: true,
    })
}

/// The drain after the stop: frames in flight when the sender stopped are
/// still taken, for at most [`DRAIN_NS`] (a source that never runs dry,
/// like the null PMD, must not hold the run open), until every queue came
/// back empty [`DRAIN_QUIET_ROUNDS`] times in a row.
struct Drain {
    deadline: u64,
    quiet_polls: usize,
    empty_polls: usize,
}

impl Drain {
    fn new(now: u64, tsc_hz: u64, queues: usize) -> Self {
        Drain {
            deadline: now + ns_to_ticks(DRAIN_NS, tsc_hz),
            quiet_polls: DRAIN_QUIET_ROUNDS * queues,
            empty_polls: 0,
        }
    }

    /// Whether the drain is over after a poll at `now` that returned `n`
    /// frames.
    #[inline(always)]
    fn over(&mut self, n: usize, now: u64) -> bool {
        self.empty_polls = if n == 0 { self.empty_polls + 1 } else { 0 };
        self.empty_polls >= self.quiet_polls || now >= self.deadline
    }
}

/// Poll `queue` for up to a batch of frames (freeing what the batch
/// held); returns how many arrived.
#[inline(always)]
fn receive<'q>(batch: &mut RxBatch<'q>, queue: &mut RxQueue<'q>) -> usize {
    batch.receive(queue, BATCH_MAX)
}

/// Run the task until the stop flag is set and the queues are drained.
pub fn run(mut t: RxTask<'_>) -> RxOutcome {
    run_borrowed(&mut t)
}

/// [`run`] on a task the caller keeps, so its queues serve the next run.
pub fn run_borrowed(t: &mut RxTask<'_>) -> RxOutcome {
    let mut rx = Rx::new(t);
    let mut batch = RxBatch::new();
    let mut drain: Option<Drain> = None;
    let mut q = 0usize;
    let loop_start = tsc::now();
    loop {
        let before = tsc::now();
        let n = receive(&mut batch, &mut t.queues[q]);
        q = if q + 1 == t.queues.len() { 0 } else { q + 1 };
        if n == 0 {
            rx.idle(tsc::now() - before);
        } else {
            // Arrival time: after the poll, so a frame that came in during
            // it never gets a negative latency.
            rx.busy(&batch, tsc::now());
            batch.clear();
        }
        if t.stop.stopped() {
            let d = drain.get_or_insert_with(|| Drain::new(before, t.tsc_hz, t.queues.len()));
            if d.over(n, before) {
                break;
            }
        }
    }
    rx.finish(tsc::now() - loop_start)
}

/// A running RX task: what it checks, its streams, and its counts.
struct Rx {
    check: Check,
    /// Extra cycles per frame (0: none).
    slowdown: u64,
    shared_tsc: bool,
    table: Table,
    out: RxOutcome,
    /// Idle cycles after the first busy poll, and since the latest one.
    idle_after_first: u64,
    idle_since_last: u64,
    lost_published: u64,
    live: Arc<Padded<RxLive>>,
}

impl Rx {
    fn new(t: &RxTask<'_>) -> Self {
        Rx {
            check: Check::new(t.verify, t.hw_csum),
            slowdown: t.slowdown_cycles,
            shared_tsc: t.shared_tsc,
            table: Table::new(&t.expected, t.tsc_hz, t.count_from),
            out: RxOutcome::default(),
            idle_after_first: 0,
            idle_since_last: 0,
            lost_published: 0,
            live: Arc::clone(&t.live),
        }
    }

    /// Counts a poll that returned nothing and took `cycles`.
    #[inline(always)]
    fn idle(&mut self, cycles: u64) {
        self.out.idle_polls += 1;
        self.out.idle_cycles += cycles;
        if self.out.first_rx_tsc != 0 {
            self.idle_after_first += cycles;
            self.idle_since_last += cycles;
        }
    }

    /// Accounts a poll whose frames, in `batch`, arrived at `now`, and
    /// publishes the live counts.
    #[inline(always)]
    fn busy(&mut self, batch: &RxBatch<'_>, now: u64) {
        let bytes = self.account(batch, now);
        let out = &mut self.out;
        if out.first_rx_tsc == 0 {
            out.first_rx_tsc = now;
        }
        out.last_rx_tsc = now;
        out.busy_polls += 1;
        self.idle_since_last = 0;
        self.live.frames.add(batch.len() as u64);
        self.live.bytes.add(bytes);
        if out.busy_polls.is_multiple_of(LOST_PUBLISH_POLLS) {
            let lost = self.table.lost();
            if lost != self.lost_published {
                self.live.lost.set(lost);
                self.lost_published = lost;
            }
        }
    }

    /// Accounts every frame of `batch`; returns their bytes (FCS included).
    #[inline(always)]
    fn account(&mut self, batch: &RxBatch<'_>, now: u64) -> u64 {
        if self.slowdown > 0 {
            spin_for(self.slowdown * batch.len() as u64);
        }
        let mut bytes = 0u64;
        match self.check {
            Check::Count => {
                for i in 0..batch.len() {
                    bytes += wire_len(batch.frame(i).1);
                }
            }
            Check::Software(opts) => {
                for i in 0..batch.len() {
                    let (data, len) = batch.frame(i);
                    let wire = wire_len(len);
                    bytes += wire;
                    self.dissect(data, wire, &opts, now);
                }
            }
            Check::Nic => {
                for i in 0..batch.len() {
                    let (data, len) = batch.frame(i);
                    let wire = wire_len(len);
                    bytes += wire;
                    self.nic_frame(data, wire, batch.ol_flags(i), now);
                }
            }
        }
        self.out.frames += batch.len() as u64;
        self.out.bytes += bytes;
        bytes
    }

    /// Checks one frame of `wire` bytes that arrived at `now` with RX
    /// flags `ol_flags`, taking the NIC's checksum verdict.
    /// A frame the NIC found a bad checksum in is still read for its stamp,
    /// so that it counts once, as corrupt in its stream, and its sequence
    /// number is not also lost.
    #[inline(always)]
    fn nic_frame(&mut self, data: &[u8], wire: u64, ol_flags: u64, now: u64) {
        match nic_checks(ol_flags) {
            Ok(opts) => self.dissect(data, wire, &opts, now),
            Err(reason) => self.nic_bad(data, wire, reason, now),
        }
    }

    /// Accounts a frame the NIC flagged with a bad checksum (`reason`): as
    /// corrupt in its stream, with its sequence number, when the stamp is
    /// ours and readable; as corrupt unattributed when the stamp is ours
    /// but unreadable; as the dissector classifies it when it is not ours.
    #[cold]
    fn nic_bad(&mut self, data: &[u8], wire: u64, reason: CorruptReason, now: u64) {
        let d = match dissect_with(data, &STAMP_ONLY) {
            Dissected::Ours(f) => Dissected::Corrupt {
                stream_id: Some(f.stream_id),
                seq: Some(f.seq),
                reason,
            },
            Dissected::Corrupt { stream_id, seq, .. } => Dissected::Corrupt {
                stream_id,
                seq,
                reason,
            },
            other => other,
        };
        self.classify(d, wire, now);
    }

    /// Dissects one frame of `wire` bytes that arrived at `now` and
    /// accounts it to its stream.
    #[inline(always)]
    fn dissect(&mut self, data: &[u8], wire: u64, opts: &DissectOptions, now: u64) {
        self.classify(dissect_with(data, opts), wire, now);
    }

    /// Accounts one dissected frame of `wire` bytes that arrived at `now`.
    #[inline(always)]
    fn classify(&mut self, d: Dissected, wire: u64, now: u64) {
        let out = &mut self.out;
        match d {
            Dissected::Ours(f) => match self.table.slot(f.stream_id) {
                Ok(acc) => {
                    acc.ours(&f, wire, now, self.shared_tsc);
                    out.payload_bytes += f.payload_len as u64;
                }
                Err(Miss::Overflow) => out.overflow += 1,
                Err(Miss::Untracked) => out.untracked += 1,
            },
            Dissected::Corrupt {
                stream_id,
                seq,
                reason,
            } => match stream_id.map(|id| self.table.slot(id)) {
                Some(Ok(acc)) => acc.corrupt(seq, reason, wire, now),
                Some(Err(Miss::Overflow)) => out.overflow += 1,
                Some(Err(Miss::Untracked)) => out.untracked += 1,
                None => out.corrupt_unattributed.add(reason),
            },
            Dissected::UnknownVersion { .. } => out.unknown_version += 1,
            Dissected::TooShort => out.too_short += 1,
            Dissected::Foreign => out.foreign += 1,
        }
    }

    /// The outcome, after a loop of `loop_cycles`; publishes the final
    /// lost count.
    fn finish(mut self, loop_cycles: u64) -> RxOutcome {
        let out = &mut self.out;
        out.loop_cycles = loop_cycles;
        out.busy_cycles = loop_cycles.saturating_sub(out.idle_cycles);
        out.span_busy_cycles = (out.last_rx_tsc - out.first_rx_tsc)
            .saturating_sub(self.idle_after_first.saturating_sub(self.idle_since_last));
        self.live.lost.set(self.table.lost());
        out.overflow_streams = self.table.overflow_streams;
        out.streams = self.table.accs;
        self.out
    }
}

/// The frame's bytes on the wire less preamble and gap: FCS included.
#[inline]
fn wire_len(pkt_len: usize) -> u64 {
    (pkt_len + FCS_LEN) as u64
}

/// Spins for `cycles` TSC cycles (the slowdown knob). Frames drained after
/// the stop are slowed too, so that the cost per frame stays what the knob
/// asks; the wait is bounded by the knob's maximum times one burst (a
/// fraction of a second), and the drain by its own time limit, so a stop
/// is still honoured within about a second.
fn spin_for(cycles: u64) {
    let until = tsc::now().saturating_add(cycles);
    while tsc::now() < until {
        std::hint::spin_loop();
    }
}

#[inline]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::builder::{CsumMode, FrameBuilder};
    use crate::wire::spec::StreamSpec;

    const GOOD: u64 = RX_IP_CKSUM_GOOD | RX_L4_CKSUM_GOOD;

    fn rx() -> Rx {
        let task = RxTask {
            lcore: 1,
            queues: Vec::new(),
            verify: Verify::Full,
            hw_csum: true,
            slowdown_cycles: 0,
            count_from: CountFrom::FirstSeen,
            expected: Vec::new(),
            shared_tsc: false,
            tsc_hz: 1_000_000_000,
            live: Arc::default(),
            stop: Arc::default(),
        };
        Rx::new(&task)
    }

    /// Frames 0..n of stream 3, as the TX side builds them.
    fn frames(n: u64) -> Vec<Vec<u8>> {
        let spec = StreamSpec {
            id: 3,
            ..StreamSpec::default()
        };
        let mut b = FrameBuilder::new(&spec, CsumMode::Software).unwrap();
        (0..n)
            .map(|seq| {
                let mut buf = vec![0u8; b.max_len()];
                let len = b.write(&mut buf, seq, 1000 + seq);
                buf.truncate(len);
                buf
            })
            .collect()
    }

    /// Feeds `frames` through the NIC path, frame `i` with `flags(i)`.
    fn feed(frames: &[Vec<u8>], flags: impl Fn(usize) -> u64) -> RxOutcome {
        let mut rx = rx();
        for (i, f) in frames.iter().enumerate() {
            rx.nic_frame(f, wire_len(f.len()), flags(i), 10 + i as u64);
        }
        rx.finish(1)
    }

    #[test]
    fn nic_bad_l4_checksum_is_corrupt_once_not_lost() {
        let out = feed(&frames(5), |i| {
            if i == 2 {
                RX_IP_CKSUM_GOOD | RX_L4_CKSUM_BAD
            } else {
                GOOD
            }
        });
        assert_eq!(out.corrupt_unattributed.total(), 0);
        assert_eq!(out.streams.len(), 1);
        let s = &out.streams[0];
        assert_eq!(
            (s.frames, s.corrupt.l4_checksum, s.corrupt.total()),
            (5, 1, 1)
        );
        let c = s.seq.counts();
        assert_eq!((c.unique, c.lost, c.reordered), (5, 0, 0));
    }

    #[test]
    fn nic_bad_ip_checksum_is_corrupt_once_not_lost() {
        let out = feed(&frames(4), |i| if i == 1 { RX_IP_CKSUM_BAD } else { GOOD });
        let s = &out.streams[0];
        assert_eq!(
            (s.frames, s.corrupt.ip_checksum, s.corrupt.total()),
            (4, 1, 1)
        );
        assert_eq!((s.seq.counts().unique, s.seq.counts().lost), (4, 0));
        assert_eq!(out.corrupt_unattributed.total(), 0);
    }

    /// Where the stamp starts in the default stream's frames (IPv4/UDP).
    const STAMP_AT: usize = 14 + 20 + 8;

    #[test]
    fn nic_bad_frame_with_an_unreadable_stamp_is_corrupt_unattributed() {
        let mut f = frames(3);
        f[1][STAMP_AT + 9] ^= 0x01; // in the sequence number: the check fails
        let out = feed(&f, |i| {
            if i == 1 {
                RX_IP_CKSUM_GOOD | RX_L4_CKSUM_BAD
            } else {
                GOOD
            }
        });
        assert_eq!(out.corrupt_unattributed.l4_checksum, 1);
        assert_eq!(out.corrupt_unattributed.total(), 1);
        let s = &out.streams[0];
        // Its sequence number cannot be read: a gap in its stream (the
        // run's total subtracts it, see `result::rx_result`).
        assert_eq!(
            (s.frames, s.corrupt.total(), s.seq.counts().lost),
            (2, 0, 1)
        );
    }

    #[test]
    fn nic_bad_frame_not_ours_is_foreign_not_corrupt() {
        let mut f = frames(2);
        f[1][STAMP_AT] ^= 0xFF; // the magic
        let out = feed(&f, |i| if i == 1 { RX_IP_CKSUM_BAD } else { GOOD });
        assert_eq!((out.foreign, out.corrupt_unattributed.total()), (1, 0));
        assert_eq!(out.streams[0].corrupt.total(), 0);
    }

    #[test]
    fn nic_good_flags_skip_software_checks_and_none_checks_all() {
        // A bad IPv4 checksum the NIC did not look at (no flag): software
        // finds it.
        let mut f = frames(2);
        f[1][14 + 10] ^= 0x01;
        let out = feed(&f, |_| 0);
        assert_eq!(out.streams[0].corrupt.ip_checksum, 1);
        // The NIC vouched for it: taken as good.
        let out = feed(&f, |_| GOOD);
        assert_eq!(out.streams[0].corrupt.total(), 0);
        assert_eq!(out.streams[0].seq.counts().unique, 2);
    }

    /// An intact full-stamp frame of stream `id`, sequence `seq`, as the
    /// dissector reports it.
    fn ours(id: u32, seq: u64) -> Dissected {
        Dissected::Ours(Ours {
            stream_id: id,
            stream_id_bits: 32,
            seq,
            seq_bits: 64,
            tx_tsc: 0,
            tsc_bits: 64,
            layout: crate::wire::stamp::StampLayout::Full,
            payload_len: 1000,
            is_ipv6: false,
            is_tcp: false,
            vlan: None,
        })
    }

    fn rx_of(expected: &[u32]) -> Rx {
        let mut r = rx();
        r.table = Table::new(expected, 1_000_000_000, CountFrom::FirstSeen);
        r
    }

    #[test]
    fn a_streams_list_makes_other_streams_foreign() {
        let mut r = rx_of(&[1]);
        for seq in 0..10 {
            r.classify(ours(1, seq), 1046, 100 + seq);
            r.classify(ours(2, seq), 1046, 100 + seq);
        }
        let out = r.finish(1);
        assert_eq!(out.streams.len(), 1);
        assert_eq!((out.streams[0].id, out.streams[0].frames), (1, 10));
        assert_eq!((out.untracked, out.overflow), (10, 0));
    }

    #[test]
    fn streams_beyond_the_table_are_overflow_counted_by_stream() {
        let mut r = rx();
        let n = MAX_STREAMS as u32 + 7;
        for round in 0..3u64 {
            for id in 0..n {
                // Five of the overflowed ids are large (no direct entry).
                let id = if id >= n - 5 { 1_000_000 + id } else { id };
                r.classify(ours(id, round), 1046, 10 + round);
            }
        }
        let out = r.finish(1);
        assert_eq!(out.streams.len(), MAX_STREAMS);
        assert_eq!((out.overflow, out.overflow_streams), (3 * 7, 7));
        assert_eq!(out.untracked, 0);
    }

    #[test]
    fn a_stream_spans_its_own_first_to_last_arrival() {
        let mut r = rx();
        r.classify(Dissected::Foreign, 60, 5);
        for seq in 0..4 {
            r.classify(ours(9, seq), 1046, 1_000 + 10 * seq);
        }
        r.classify(Dissected::Foreign, 60, 9_999);
        let out = r.finish(1);
        let s = &out.streams[0];
        assert_eq!(
            (s.first_tsc, s.last_tsc, s.payload_bytes),
            (1_000, 1_030, 4_000)
        );
    }

    #[test]
    fn a_new_stream_holds_small_histograms() {
        let a = StreamAcc::new(1, 3_000_000_000);
        let bytes = |h: &Histogram<u64>| h.distinct_values() * 8;
        assert!(
            bytes(&a.interarrival) <= 16 << 10,
            "{}",
            bytes(&a.interarrival)
        );
        assert!(bytes(&a.latency) <= 16 << 10);
    }

    #[test]
    fn listed_streams_beyond_the_table_are_overflow_not_foreign() {
        let listed: Vec<u32> = (1..=MAX_STREAMS as u32 + 2).collect();
        let mut r = rx_of(&listed);
        for id in [1, MAX_STREAMS as u32 + 1, MAX_STREAMS as u32 + 1, 99_999] {
            r.classify(ours(id, 0), 1046, 10);
        }
        let out = r.finish(1);
        assert_eq!(
            (out.overflow, out.overflow_streams, out.untracked),
            (2, 1, 1)
        );
    }
}
