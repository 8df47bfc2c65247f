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
//! for is decided once per task, not per frame. Every frame is checked and
//! sequenced on its own; the intact frames of one stream that follow each
//! other in a poll (a run) look their stream up once and add their counts
//! (frames, bytes, payload, span, same-poll arrivals) to it once.

pub mod capture;
mod nic;
pub mod seq;
mod stream;
mod table;

pub use nic::NicStamps;
pub use stream::{CorruptCounts, StreamAcc, StreamPool, StreamTally, MAX_STREAMS};

use std::sync::Arc;

use crate::clock::sync::SharedMapping;
use crate::counter::{Padded, RxLive, StopFlag};
use crate::dpdk::{tsc, RxBatch, RxQueue, RxStampField, BATCH_MAX};
use crate::pace::tsc::ns_to_ticks;
use crate::wire::dissect::{dissect_with, CorruptReason, DissectOptions, Dissected, Ours};
use crate::wire::spec::FCS_LEN;
use landspeed_sys::csum::prefetch0;

use nic::{nic_checks, Arrival, NicRx};
use seq::CountFrom;
use table::{Miss, Table};

/// Longest time an RX lcore keeps draining its queues after the stop (ns).
const DRAIN_NS: u64 = 100_000_000;
/// The drain ends early once every queue came back empty this many times
/// in a row.
const DRAIN_QUIET_ROUNDS: usize = 2;
/// Busy polls between two publications of the lost count (each a pass
/// over the streams).
const LOST_PUBLISH_POLLS: u64 = 64;
/// Frames ahead of the one being checked whose headers are prefetched.
const PREFETCH_AHEAD: usize = 4;

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
    /// Stream ids expected (`rx[].streams`): only they are checked and
    /// every other frame is foreign, even when the list is empty (a
    /// monitoring port, `streams: none`); `None`: learn from stamps.
    pub expected: Option<Vec<u32>>,
    /// Stream accumulators made ready on the main lcore, so that the first
    /// frame of a new stream allocates nothing.
    pub pool: StreamPool,
    /// Sender and receiver read the same TSC (same host): one-way latency
    /// can be measured from the stamp.
    pub shared_tsc: bool,
    /// TSC frequency (measured).
    pub tsc_hz: u64,
    /// This host's TSC mapped onto the synchronised clock: version-2
    /// stamps give one-way latency on it (`None`: they give none).
    pub clock: Option<Arc<SharedMapping>>,
    /// Live counters for the reporter.
    pub live: Arc<Padded<RxLive>>,
    /// The stop signal.
    pub stop: Arc<StopFlag>,
    /// Its part in a memif link's departure handshake (see [`crate::depart`]).
    pub peer: Option<crate::depart::PeerRx>,
    /// The NIC's RX timestamps, when its port gives them and the profile
    /// takes them (`rx[].timestamps`): latency is measured from them.
    pub nic: Option<NicStamps>,
    /// Where the frames it keeps go (`rx[].capture`), if it keeps any.
    pub capture: Option<Box<capture::Capture>>,
}

/// Intact frames of one stream that came one after another in one poll:
/// each is sequenced as it comes, their counts are added to the stream
/// once, when the run ends (a frame of another stream or another poll, a
/// corrupt frame, the end of the burst).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Run {
    /// The stream's id and its accumulator's index in the table.
    id: u32,
    idx: usize,
    /// The poll's arrival TSC.
    now: u64,
    /// Frames in the run (0: no run).
    frames: u64,
    /// Their bytes on the wire, FCS included.
    bytes: u64,
    /// Their UDP/TCP payload bytes.
    payload_bytes: u64,
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
    /// The frames it kept (`rx[].capture`), to be written out.
    pub capture: Option<Box<capture::Capture>>,
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

/// The frames of one poll, as the accounting reads them: an RX batch, or
/// frames made in a test.
trait Burst {
    /// Frames in the burst.
    fn len(&self) -> usize;
    /// The first segment's bytes of frame `i` and the frame's length.
    fn frame(&self, i: usize) -> (&[u8], usize);
    /// Frame `i`'s RX offload flags.
    fn ol_flags(&self, i: usize) -> u64;
    /// Starts bringing frame `i`'s headers into the cache.
    fn prefetch(&self, i: usize);
    /// Every byte of frame `i`, over all its segments, into `out`.
    fn copy_frame(&self, i: usize, out: &mut Vec<u8>);
    /// Frame `i`'s NIC RX timestamp in `field`, if it has one.
    #[inline(always)]
    fn rx_stamp(&self, _i: usize, _field: &RxStampField) -> Option<u64> {
        None
    }
}

impl Burst for RxBatch<'_> {
    #[inline(always)]
    fn len(&self) -> usize {
        RxBatch::len(self)
    }

    #[inline(always)]
    fn frame(&self, i: usize) -> (&[u8], usize) {
        RxBatch::frame(self, i)
    }

    #[inline(always)]
    fn ol_flags(&self, i: usize) -> u64 {
        RxBatch::ol_flags(self, i)
    }

    #[inline(always)]
    fn prefetch(&self, i: usize) {
        prefetch0(RxBatch::frame(self, i).0.as_ptr());
    }

    #[cold]
    fn copy_frame(&self, i: usize, out: &mut Vec<u8>) {
        RxBatch::copy_frame(self, i, out)
    }

    #[inline(always)]
    fn rx_stamp(&self, i: usize, field: &RxStampField) -> Option<u64> {
        RxBatch::rx_stamp(self, i, field)
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
/// Kept out of line: instruction counts (`scripts/bench`) are taken
/// inside it by name.
#[inline(never)]
pub fn run_borrowed(t: &mut RxTask<'_>) -> RxOutcome {
    let mut rx = Rx::new(t);
    let mut batch = RxBatch::new();
    let mut drain: Option<Drain> = None;
    let mut q = 0usize;
    let loop_start = tsc::now();
    loop {
        let before = tsc::now();
        let n = match &t.peer {
            None => receive(&mut batch, &mut t.queues[q]),
            Some(p) => p.receive(&mut batch, &mut t.queues[q]),
        };
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
    /// See [`RxTask::clock`].
    clock: Option<Arc<SharedMapping>>,
    /// The current frame's arrival for its latency: the burst's, or the
    /// NIC's stamp of the frame.
    lat: Arrival,
    /// The NIC's stamps of the current burst (see [`RxTask::nic`]).
    nic: Option<Box<NicRx>>,
    table: Table,
    out: RxOutcome,
    /// Idle cycles after the first busy poll, and since the latest one.
    idle_after_first: u64,
    idle_since_last: u64,
    lost_published: u64,
    live: Arc<Padded<RxLive>>,
    /// A chained frame's bytes, made whole to be checked.
    whole: Vec<u8>,
    /// The intact frames of one stream counted so far in this poll.
    run: Run,
    /// See [`RxTask::capture`].
    capture: Option<Box<capture::Capture>>,
}

impl Rx {
    fn new(t: &mut RxTask<'_>) -> Self {
        Rx {
            check: Check::new(t.verify, t.hw_csum),
            slowdown: t.slowdown_cycles,
            shared_tsc: t.shared_tsc,
            clock: t.clock.clone(),
            lat: Arrival::default(),
            nic: t.nic.clone().map(|stamps| {
                Box::new(NicRx {
                    stamps,
                    at: [Arrival::default(); BATCH_MAX],
                })
            }),
            table: Table::new(
                t.expected.as_deref(),
                t.tsc_hz,
                t.count_from,
                std::mem::take(&mut t.pool),
            ),
            out: RxOutcome::default(),
            idle_after_first: 0,
            idle_since_last: 0,
            lost_published: 0,
            live: Arc::clone(&t.live),
            whole: Vec::new(),
            run: Run::default(),
            capture: t.capture.take(),
        }
    }

    /// Counts a poll that returned nothing and took `cycles`.
    #[inline(always)]
    fn idle(&mut self, cycles: u64) {
        self.out.idle_polls += 1;
        self.out.idle_cycles += cycles;
        // Nothing came: a store costs nothing here, and gives the
        // reporter the lcore's busy share as it goes.
        self.live.idle_cycles.set(self.out.idle_cycles);
        if self.out.first_rx_tsc != 0 {
            self.idle_after_first += cycles;
            self.idle_since_last += cycles;
        }
    }

    /// Accounts a poll whose frames, in `batch`, arrived at `now`, and
    /// publishes the live counts.
    #[inline(always)]
    fn busy(&mut self, batch: &impl Burst, now: u64) {
        let now_ns = match &self.clock {
            // One multiply-shift per burst.
            Some(m) => m.load().ns(now),
            None => 0,
        };
        self.lat = Arrival {
            tsc: now,
            ns: now_ns,
            nic: false,
        };
        if let Some(n) = &mut self.nic {
            n.convert(batch, self.lat, self.clock.as_deref());
        }
        let bytes = self.account(batch, now);
        if let Some(c) = &mut self.capture {
            c.take(batch, now);
        }
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

    /// Accounts every frame of `batch`, the headers of the frames
    /// [`PREFETCH_AHEAD`] further on prefetched meanwhile; returns their
    /// bytes (FCS included), counted once for the burst.
    #[inline(always)]
    fn account(&mut self, batch: &impl Burst, now: u64) -> u64 {
        let n = batch.len();
        if self.slowdown > 0 {
            spin_for(self.slowdown * n as u64);
        }
        let mut bytes = 0u64;
        match self.check {
            Check::Count => {
                for i in 0..n {
                    bytes += wire_len(batch.frame(i).1);
                }
            }
            Check::Software(opts) => {
                bytes = self.each(batch, |rx, data, wire, _| {
                    rx.dissect(data, wire, &opts, now)
                });
            }
            Check::Nic => {
                bytes = self.each(batch, |rx, data, wire, i| {
                    rx.nic_frame(data, wire, batch.ol_flags(i), now)
                });
            }
        }
        self.end_run();
        self.out.frames += n as u64;
        self.out.bytes += bytes;
        bytes
    }

    /// Runs `check` on each frame of `batch` (its bytes, wire length and
    /// index), the headers of the frames [`PREFETCH_AHEAD`] further on
    /// prefetched meanwhile; returns the frames' bytes.
    #[inline(always)]
    fn each<B: Burst>(
        &mut self,
        batch: &B,
        mut check: impl FnMut(&mut Self, &[u8], u64, usize),
    ) -> u64 {
        let n = batch.len();
        for i in 0..PREFETCH_AHEAD.min(n) {
            batch.prefetch(i);
        }
        let mut bytes = 0u64;
        for i in 0..n {
            if i + PREFETCH_AHEAD < n {
                batch.prefetch(i + PREFETCH_AHEAD);
            }
            let (data, len) = batch.frame(i);
            let wire = wire_len(len);
            bytes += wire;
            if let Some(n) = &self.nic {
                self.lat = n.at[i];
            }
            if data.len() < len {
                // A frame in several segments (a payload attached by a
                // sender on a ring, a NIC's scattered jumbo frame) is made
                // whole, off the fast path, so all of it is checked.
                let mut whole = std::mem::take(&mut self.whole);
                batch.copy_frame(i, &mut whole);
                check(self, &whole, wire, i);
                self.whole = whole;
            } else {
                check(self, data, wire, i);
            }
        }
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
        match d {
            Dissected::Ours(f) => self.ours(&f, wire, now),
            Dissected::Corrupt {
                stream_id,
                seq,
                reason,
            } => {
                // A corrupt frame marks its stream's span as it comes:
                // the counts of a run before it go in first.
                self.end_run();
                let out = &mut self.out;
                match stream_id.map(|id| self.table.slot(id)) {
                    Some(Ok(acc)) => acc.corrupt(seq, reason, wire, now),
                    Some(Err(Miss::Overflow)) => out.overflow += 1,
                    Some(Err(Miss::Untracked)) => out.untracked += 1,
                    None => out.corrupt_unattributed.add(reason),
                }
            }
            Dissected::UnknownVersion { .. } => self.out.unknown_version += 1,
            Dissected::TooShort => self.out.too_short += 1,
            Dissected::Foreign => self.out.foreign += 1,
        }
    }

    /// Accounts an intact frame of `wire` bytes that arrived at `now`: it
    /// is sequenced at once, and counted with the run of its stream's
    /// frames in the same poll (looked up once for the run).
    #[inline(always)]
    fn ours(&mut self, f: &Ours, wire: u64, now: u64) {
        let run = &mut self.run;
        if run.frames != 0 && run.id == f.stream_id && run.now == now {
            run.frames += 1;
            run.bytes += wire;
            run.payload_bytes += f.payload_len as u64;
            let idx = run.idx;
            self.table.accs[idx].sequenced(f, now, self.lat, self.shared_tsc);
            return;
        }
        self.end_run();
        match self.table.index(f.stream_id) {
            Ok(idx) => {
                let acc = &mut self.table.accs[idx];
                acc.sequenced(f, now, self.lat, self.shared_tsc);
                acc.run_started(now);
                self.run = Run {
                    id: f.stream_id,
                    idx,
                    now,
                    frames: 1,
                    bytes: wire,
                    payload_bytes: f.payload_len as u64,
                };
            }
            Err(Miss::Overflow) => self.out.overflow += 1,
            Err(Miss::Untracked) => self.out.untracked += 1,
        }
    }

    /// Adds the current run's counts to its stream, if there is a run.
    #[inline(always)]
    fn end_run(&mut self) {
        if self.run.frames != 0 {
            let run = std::mem::take(&mut self.run);
            self.table.accs[run.idx].add_run(&run);
            self.out.payload_bytes += run.payload_bytes;
            if let Some(l) = self.live.streams.get(run.id as usize) {
                l.frames.add(run.frames);
                l.bytes.add(run.bytes);
            }
        }
    }

    /// The outcome, after a loop of `loop_cycles`; publishes the final
    /// lost count.
    fn finish(mut self, loop_cycles: u64) -> RxOutcome {
        self.end_run();
        let out = &mut self.out;
        out.loop_cycles = loop_cycles;
        out.busy_cycles = loop_cycles.saturating_sub(out.idle_cycles);
        out.span_busy_cycles = (out.last_rx_tsc - out.first_rx_tsc)
            .saturating_sub(self.idle_after_first.saturating_sub(self.idle_since_last));
        self.live.lost.set(self.table.lost());
        out.overflow_streams = self.table.overflow_streams;
        out.streams = self.table.into_streams();
        out.capture = self.capture;
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
    use crate::clock::nic::{Counter, NicMap};
    use crate::dpdk::{RX_IP_CKSUM_BAD, RX_IP_CKSUM_GOOD, RX_L4_CKSUM_BAD, RX_L4_CKSUM_GOOD};
    use crate::wire::builder::{CsumMode, FrameBuilder};
    use crate::wire::spec::StreamSpec;
    use crate::wire::stamp::StampTime;
    use hdrhistogram::Histogram;

    const GOOD: u64 = RX_IP_CKSUM_GOOD | RX_L4_CKSUM_GOOD;

    fn rx() -> Rx {
        let mut task = RxTask {
            lcore: 1,
            queues: Vec::new(),
            verify: Verify::Full,
            hw_csum: true,
            slowdown_cycles: 0,
            count_from: CountFrom::FirstSeen,
            expected: None,
            pool: StreamPool::default(),
            shared_tsc: false,
            tsc_hz: 1_000_000_000,
            clock: None,
            live: Arc::default(),
            stop: Arc::default(),
            peer: None,
            nic: None,
            capture: None,
        };
        Rx::new(&mut task)
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
            (
                s.tally.frames,
                s.tally.corrupt.l4_checksum,
                s.tally.corrupt.total()
            ),
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
            (
                s.tally.frames,
                s.tally.corrupt.ip_checksum,
                s.tally.corrupt.total()
            ),
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
            (s.tally.frames, s.tally.corrupt.total(), s.seq.counts().lost),
            (2, 0, 1)
        );
    }

    #[test]
    fn nic_bad_frame_not_ours_is_foreign_not_corrupt() {
        let mut f = frames(2);
        f[1][STAMP_AT] ^= 0xFF; // the magic
        let out = feed(&f, |i| if i == 1 { RX_IP_CKSUM_BAD } else { GOOD });
        assert_eq!((out.foreign, out.corrupt_unattributed.total()), (1, 0));
        assert_eq!(out.streams[0].tally.corrupt.total(), 0);
    }

    #[test]
    fn nic_good_flags_skip_software_checks_and_none_checks_all() {
        // A bad IPv4 checksum the NIC did not look at (no flag): software
        // finds it.
        let mut f = frames(2);
        f[1][14 + 10] ^= 0x01;
        let out = feed(&f, |_| 0);
        assert_eq!(out.streams[0].tally.corrupt.ip_checksum, 1);
        // The NIC vouched for it: taken as good.
        let out = feed(&f, |_| GOOD);
        assert_eq!(out.streams[0].tally.corrupt.total(), 0);
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
            time: StampTime::Tsc,
            layout: crate::wire::stamp::StampLayout::Full,
            payload_len: 1000,
            is_ipv6: false,
            is_tcp: false,
            vlan: None,
        })
    }

    fn rx_of(expected: &[u32]) -> Rx {
        let mut r = rx();
        r.table = Table::new(
            (!expected.is_empty()).then_some(expected),
            1_000_000_000,
            CountFrom::FirstSeen,
            StreamPool::default(),
        );
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
        assert_eq!(
            (out.streams[0].tally.id, out.streams[0].tally.frames),
            (1, 10)
        );
        assert_eq!((out.untracked, out.overflow), (10, 0));
    }

    #[test]
    fn a_monitoring_port_checks_no_stream_and_every_frame_is_foreign() {
        let mut r = rx();
        r.table = Table::new(
            Some(&[]),
            1_000_000_000,
            CountFrom::FirstSeen,
            StreamPool::default(),
        );
        for seq in 0..5 {
            r.classify(ours(1, seq), 1046, 100 + seq);
        }
        r.classify(Dissected::Foreign, 60, 200);
        let out = r.finish(1);
        assert!(out.streams.is_empty());
        assert_eq!((out.untracked, out.overflow), (5, 0));
        // Not listed, the same frames are a stream learnt from its stamps.
        let mut r = rx_of(&[]);
        r.classify(ours(1, 0), 1046, 100);
        assert_eq!(r.finish(1).streams.len(), 1);
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
            (s.tally.first_tsc, s.tally.last_tsc, s.tally.payload_bytes),
            (1_000, 1_030, 4_000)
        );
    }

    #[test]
    fn a_new_stream_holds_small_histograms() {
        let a = StreamAcc::new(1, 3_000_000_000);
        let bytes = |h: &Histogram<u64>| h.distinct_values() * 8;
        assert!(
            bytes(&a.tally.interarrival) <= 16 << 10,
            "{}",
            bytes(&a.tally.interarrival)
        );
        assert!(bytes(&a.tally.latency) <= 16 << 10);
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

    #[test]
    fn nic_none_flags_take_a_frame_with_invalid_checksum_fields_as_good() {
        // A virtual NIC that vouches for the data (NONE) while the frame's
        // checksum fields were never filled in.
        let mut f = frames(3);
        for fr in &mut f {
            fr[14 + 10] ^= 0x5A;
        }
        let none =
            landspeed_sys::RTE_MBUF_F_RX_IP_CKSUM_NONE | landspeed_sys::RTE_MBUF_F_RX_L4_CKSUM_NONE;
        let out = feed(&f, |_| none);
        let s = &out.streams[0];
        assert_eq!(
            (
                s.tally.frames,
                s.tally.corrupt.total(),
                s.seq.counts().unique
            ),
            (3, 0, 3)
        );
    }

    /// A burst made of frames in memory.
    struct Frames<'a>(Vec<&'a [u8]>);

    impl Burst for Frames<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn frame(&self, i: usize) -> (&[u8], usize) {
            (self.0[i], self.0[i].len())
        }
        fn ol_flags(&self, _: usize) -> u64 {
            0
        }
        fn prefetch(&self, i: usize) {
            prefetch0(self.0[i].as_ptr());
        }
        fn copy_frame(&self, i: usize, out: &mut Vec<u8>) {
            out.clear();
            out.extend_from_slice(self.0[i]);
        }
    }

    /// A burst whose frames carry NIC RX timestamps (or none).
    struct Stamped<'a>(Vec<&'a [u8]>, Vec<Option<u64>>);

    impl Burst for Stamped<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn frame(&self, i: usize) -> (&[u8], usize) {
            (self.0[i], self.0[i].len())
        }
        fn ol_flags(&self, _: usize) -> u64 {
            GOOD
        }
        fn prefetch(&self, _: usize) {}
        fn copy_frame(&self, i: usize, out: &mut Vec<u8>) {
            out.clear();
            out.extend_from_slice(self.0[i]);
        }
        fn rx_stamp(&self, i: usize, _: &RxStampField) -> Option<u64> {
            self.1[i]
        }
    }

    /// A receiver sharing the sender's TSC, taking NIC stamps mapped by
    /// `map` when `nic`.
    fn nic_rx(map: NicMap, nic: bool) -> Rx {
        let mut rx = rx();
        rx.shared_tsc = true;
        if nic {
            rx.nic = Some(Box::new(NicRx {
                stamps: NicStamps {
                    field: RxStampField::none(),
                    map: Arc::new(SharedMapping::new(map.to_words())),
                    counter: map.counter,
                },
                at: [Arrival::default(); BATCH_MAX],
            }));
        }
        rx
    }

    #[test]
    fn nic_rx_stamps_give_the_latency_where_the_nic_set_them() {
        use crate::clock::sync::SHIFT;
        // Two TSC ticks per NIC tick, NIC 10_000 at TSC 0.
        let map = NicMap {
            base_nic: 10_000,
            base_tsc: 0,
            mult: 2 << SHIFT,
            counter: Counter::new(64).unwrap(),
        };
        // Frames of stream 3 leave at TSC 1000 + seq.
        let f = frames(4);
        let stamps = vec![
            Some(10_600), // TSC 1200: 200 after 1000
            Some(10_610), // TSC 1220: 219 after 1001
            None,         // no stamp: the poll's TSC, 2000: 998 after 1002
            Some(10_400), // TSC 800: before 1003, counted early
        ];
        let burst = Stamped(f.iter().map(Vec::as_slice).collect(), stamps);
        let lat = |nic: bool| {
            let mut rx = nic_rx(map, nic);
            rx.busy(&burst, 2_000);
            let out = rx.finish(1);
            let s = &out.streams[0];
            let v: Vec<(u64, u64)> = (s.tally.latency.iter_recorded())
                .map(|r| (r.value_iterated_to(), r.count_at_value()))
                .collect();
            (v, s.tally.latency_nic, s.tally.latency_early)
        };
        assert_eq!(
            lat(true),
            (vec![(1, 1), (200, 1), (219, 1), (998, 1)], 3, 1)
        );
        // Off: every frame's latency from the poll's TSC, stamps ignored.
        assert_eq!(
            lat(false),
            (vec![(997, 1), (998, 1), (999, 1), (1000, 1)], 0, 0)
        );
        // A poll TSC 1 after the first departure and behind the last two
        // (the receiving core's TSC behind the sender's): those two are
        // early, and every latency is 1 tick (the second's 0 too), never
        // the 2^40-tick wrap clamped to the histogram's 60 s.
        let mut rx = nic_rx(map, false);
        rx.busy(&burst, 1_001);
        let out = rx.finish(1);
        let s = &out.streams[0];
        let v: Vec<(u64, u64)> = (s.tally.latency.iter_recorded())
            .map(|r| (r.value_iterated_to(), r.count_at_value()))
            .collect();
        assert_eq!((v, s.tally.latency_early), (vec![(1, 4)], 2));
        // The line between late and early is half the stamp's TSC range
        // (64 bits here): half of it is a (clamped) latency, one more is
        // a frame read before it left.
        let early = |after: u64| {
            let mut rx = nic_rx(map, false);
            rx.busy(&Stamped(vec![f[0].as_slice()], vec![None]), 1_000 + after);
            rx.finish(1).streams[0].tally.latency_early
        };
        assert_eq!((early(u64::MAX >> 1), early((u64::MAX >> 1) + 1)), (0, 1));
    }

    #[test]
    fn nic_rx_stamps_reach_the_synchronised_clock_through_the_tsc() {
        use crate::clock::sync::{Mapping, Pair, SHIFT};
        let t0 = 1_764_633_600_000_000_000u64;
        // TSC at 1 GHz on the clock; NIC ticks are TSC ticks, NIC 0 at TSC 0.
        let clock = Mapping::through(Pair { tsc: 0, ns: t0 }, 1.0);
        let map = NicMap {
            base_nic: 0,
            base_tsc: 0,
            mult: 1 << SHIFT,
            counter: Counter::new(64).unwrap(),
        };
        let sent = [t0 + 1_000, t0 + 2_000];
        let f = synced_frames(64, &sent);
        // The NIC saw them 300 ns after they left; the poll came 5 µs later.
        let burst = Stamped(
            f.iter().map(Vec::as_slice).collect(),
            vec![Some(1_300), Some(2_300)],
        );
        let mut rx = nic_rx(map, true);
        rx.shared_tsc = false;
        rx.clock = Some(Arc::new(SharedMapping::new(clock)));
        rx.busy(&burst, 7_000);
        let out = rx.finish(1);
        let s = &out.streams[0];
        assert!(s.tally.latency_synced);
        assert_eq!(
            (
                s.tally.latency.min(),
                s.tally.latency.max(),
                s.tally.latency_nic
            ),
            (300, 300, 2)
        );
    }

    /// Version-2 frames of stream 5, `size` bytes, stamped at clock
    /// nanoseconds `sent[i]`.
    fn synced_frames(size: usize, sent: &[u64]) -> Vec<Vec<u8>> {
        let spec = StreamSpec {
            id: 5,
            size: crate::wire::spec::SizeSpec::Fixed(size),
            ..StreamSpec::default()
        };
        let mut b = FrameBuilder::new(&spec, CsumMode::Software).unwrap();
        b.set_stamp_time(StampTime::ClockNs);
        (sent.iter().enumerate())
            .map(|(seq, &ns)| {
                let mut buf = vec![0u8; b.max_len()];
                let len = b.write(&mut buf, seq as u64, 0);
                buf.truncate(len);
                b.set_tx_tsc(&mut buf, ns);
                buf
            })
            .collect()
    }

    #[test]
    fn synced_stamps_give_latency_on_the_mapped_clock_and_move_with_its_offset() {
        use crate::clock::sync::{Mapping, Pair};
        let t0 = 1_764_633_600_000_000_000u64;
        // A receiver TSC at 1 GHz: tick t is clock ns t0 + t.
        let map = Mapping::through(Pair { tsc: 0, ns: t0 }, 1.0);
        let latency_of = |size: usize, offset: i64| {
            let sent = [t0 + 1_000, t0 + 2_000, t0 + 3_000];
            let frames = synced_frames(size, &sent);
            let mut rx = rx();
            rx.clock = Some(Arc::new(SharedMapping::new(map.shifted(offset))));
            // Each arrives 2 µs after it left (ticks = ns here; below
            // 2048 the histogram keeps every nanosecond).
            for (f, &ns) in frames.iter().zip(&sent) {
                rx.busy(&Frames(vec![f.as_slice()]), ns - t0 + 2_000);
            }
            let out = rx.finish(1);
            let s = &out.streams[0];
            assert!(s.tally.latency_synced);
            (
                s.tally.latency.min(),
                s.tally.latency.max(),
                s.tally.latency.len(),
                s.tally.latency_early,
            )
        };
        for size in [64, 1518] {
            assert_eq!(latency_of(size, 0), (2_000, 2_000, 3, 0), "{size}");
            // The receiver's clock 37 ns ahead: every latency 37 ns longer.
            assert_eq!(latency_of(size, 37), (2_037, 2_037, 3, 0), "{size}");
            assert_eq!(latency_of(size, -5), (1_995, 1_995, 3, 0), "{size}");
            // 3 µs behind: before their departure, counted early.
            assert_eq!(latency_of(size, -3_000), (1, 1, 3, 3), "{size}");
        }
        // A version-1 frame at a receiver that does not share the TSC: none.
        let mut rx = rx();
        rx.clock = Some(Arc::new(SharedMapping::new(map)));
        let f = &frames(1)[0];
        rx.busy(&Frames(vec![f.as_slice()]), 99);
        let out = rx.finish(1);
        assert!(out.streams[0].tally.latency.is_empty());
        assert!(!out.streams[0].tally.latency_synced);
    }

    /// Frames 0..n of stream `id`, `size` bytes each (FCS included).
    fn frames_of(id: u32, n: u64, size: usize) -> Vec<Vec<u8>> {
        let spec = StreamSpec {
            id,
            size: crate::wire::spec::SizeSpec::Fixed(size),
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

    /// Streams by id, each with its frames in sequence order.
    type Streams = Vec<(u32, Vec<Vec<u8>>)>;

    /// What a stream must count, worked out from the frame order alone.
    #[derive(Debug, Default, PartialEq)]
    struct Want {
        frames: u64,
        bytes: u64,
        payload_bytes: u64,
        unique: u64,
        lost: u64,
        duplicated: u64,
        /// Inter-arrival values: one per frame after the stream's first.
        gaps: u64,
        /// Of which 0 (a frame in the same poll as the stream's previous).
        same_poll: u64,
        first_tsc: u64,
        last_tsc: u64,
    }

    /// Feeds `order` (stream index, sequence) of `streams` in bursts of
    /// `burst` frames through the software path, and checks every stream's
    /// counts and the totals against what the order implies.
    fn check_order(streams: &[(u32, Vec<Vec<u8>>)], order: &[(usize, u64)], burst: usize) {
        let mut r = rx();
        r.check = Check::Software(DissectOptions::default());
        let list: Vec<&[u8]> = order
            .iter()
            .map(|&(s, q)| streams[s].1[q as usize].as_slice())
            .collect();
        let now_of = |chunk: usize| 1_000 + 100 * chunk as u64;
        for (c, chunk) in list.chunks(burst).enumerate() {
            r.account(&Frames(chunk.to_vec()), now_of(c));
        }
        let out = r.finish(1);
        let mut total = 0;
        let mut payload_total = 0;
        for (s, (id, fr)) in streams.iter().enumerate() {
            let seqs: Vec<u64> = order.iter().filter(|o| o.0 == s).map(|o| o.1).collect();
            let mut distinct = seqs.clone();
            distinct.sort_unstable();
            distinct.dedup();
            let span = distinct.last().map_or(0, |&m| m - distinct[0] + 1);
            // The polls its frames came in, one entry per frame.
            let polls: Vec<usize> = (order.iter().enumerate())
                .filter(|o| o.1 .0 == s)
                .map(|o| o.0 / burst)
                .collect();
            let payload = (fr[0].len() - 42) as u64;
            let want = Want {
                frames: seqs.len() as u64,
                bytes: seqs.len() as u64 * wire_len(fr[0].len()),
                payload_bytes: seqs.len() as u64 * payload,
                unique: distinct.len() as u64,
                lost: span - distinct.len() as u64,
                duplicated: (seqs.len() - distinct.len()) as u64,
                gaps: seqs.len() as u64 - 1,
                same_poll: polls.windows(2).filter(|w| w[0] == w[1]).count() as u64,
                first_tsc: now_of(polls[0]),
                last_tsc: now_of(polls[polls.len() - 1]),
            };
            payload_total += want.payload_bytes;
            let acc = out
                .streams
                .iter()
                .find(|a| a.tally.id == *id)
                .expect("stream seen");
            let c = acc.seq.counts();
            let gaps = acc.interarrival_all();
            let got = Want {
                frames: acc.tally.frames,
                bytes: acc.tally.bytes,
                payload_bytes: acc.tally.payload_bytes,
                unique: c.unique,
                lost: c.lost,
                duplicated: c.duplicated,
                gaps: gaps.len(),
                same_poll: gaps.count_at(0),
                first_tsc: acc.tally.first_tsc,
                last_tsc: acc.tally.last_tsc,
            };
            assert_eq!(got, want, "stream {id}, bursts of {burst}");
            assert_eq!(acc.tally.corrupt.total(), 0);
            total += want.frames;
        }
        assert_eq!(out.streams.len(), streams.len());
        assert_eq!((out.frames, out.foreign, out.overflow), (total, 0, 0));
        assert_eq!(out.payload_bytes, payload_total);
    }

    /// Three streams (one id past the direct table), 300 frames each, with
    /// a gap and a duplicate in each, in `runs` of frames of one stream.
    fn interleaved(runs: usize) -> (Streams, Vec<(usize, u64)>) {
        let streams = vec![
            (3, frames_of(3, 300, 128)),
            (70_000, frames_of(70_000, 300, 128)),
            (5, frames_of(5, 300, 200)),
        ];
        let per: Vec<Vec<u64>> = (0..3u64)
            .map(|s| {
                let mut q: Vec<u64> = (0..300).filter(|&q| q != 100 + s).collect();
                q.insert(200, 150 + s);
                q
            })
            .collect();
        let mut order = Vec::new();
        let mut at = [0usize; 3];
        while at.iter().zip(&per).any(|(&a, p)| a < p.len()) {
            for s in 0..3 {
                let end = (at[s] + runs).min(per[s].len());
                order.extend(per[s][at[s]..end].iter().map(|&q| (s, q)));
                at[s] = end;
            }
        }
        (streams, order)
    }

    #[test]
    fn streams_interleaved_frame_by_frame_count_exactly() {
        let (streams, order) = interleaved(1);
        for burst in [1, 7, 32, 64] {
            check_order(&streams, &order, burst);
        }
    }

    #[test]
    fn streams_in_runs_of_a_burst_count_exactly() {
        let (streams, order) = interleaved(64);
        check_order(&streams, &order, 64);
        let (streams, order) = interleaved(32);
        check_order(&streams, &order, 32);
    }

    #[test]
    fn streams_in_runs_across_bursts_count_exactly() {
        // Runs of 100 in bursts of 64, and of 5 in bursts of 64 and 3: a
        // run goes on from one burst into the next.
        let (streams, order) = interleaved(100);
        check_order(&streams, &order, 64);
        let (streams, order) = interleaved(5);
        check_order(&streams, &order, 64);
        check_order(&streams, &order, 3);
    }

    /// Runs of one stream's frames broken by another stream, a corrupt
    /// frame of the same stream, a foreign frame and a new poll: every
    /// count as if the frames were counted one by one.
    #[test]
    fn runs_broken_by_streams_corrupt_frames_and_polls_count_as_frame_by_frame() {
        let (a, b) = (4u32, 70_001u32);
        let bad = Dissected::Corrupt {
            stream_id: Some(a),
            seq: Some(3),
            reason: CorruptReason::IpChecksum,
        };
        let polls: [(u64, Vec<Dissected>); 3] = [
            (
                100,
                vec![
                    ours(a, 0),
                    ours(a, 1),
                    ours(b, 0),
                    ours(a, 2),
                    bad,
                    ours(a, 4),
                    ours(a, 5),
                ],
            ),
            (250, vec![ours(a, 6), ours(b, 1), ours(b, 2)]),
            (
                400,
                vec![
                    Dissected::Foreign,
                    ours(a, 7),
                    Dissected::Foreign,
                    ours(a, 8),
                ],
            ),
        ];
        let mut r = rx();
        for (now, frames) in &polls {
            for d in frames {
                r.classify(*d, 1046, *now);
            }
        }
        assert_ne!(r.run, Run::default(), "the last run is still open");
        let out = r.finish(1);
        assert_eq!(out.foreign, 2);
        assert_eq!(out.payload_bytes, 11 * 1000);
        let s = |id| out.streams.iter().find(|s| s.tally.id == id).unwrap();
        // (frames, bytes, payload bytes, first, last, corrupt, unique)
        let sa = s(a);
        assert_eq!(
            (
                sa.tally.frames,
                sa.tally.bytes,
                sa.tally.payload_bytes,
                sa.tally.first_tsc,
                sa.tally.last_tsc
            ),
            (9, 9 * 1046, 8_000, 100, 400)
        );
        assert_eq!(
            (sa.tally.corrupt.ip_checksum, sa.seq.counts().unique),
            (1, 9)
        );
        // Intact frames of a: 4 in the same poll as the one before, then
        // gaps of 150 and 150, then 0 again.
        let ia = sa.interarrival_all();
        assert_eq!((ia.len(), ia.count_at(0), ia.count_at(150)), (7, 5, 2));
        let sb = s(b);
        assert_eq!(
            (
                sb.tally.frames,
                sb.tally.payload_bytes,
                sb.tally.first_tsc,
                sb.tally.last_tsc
            ),
            (3, 3_000, 100, 250)
        );
        let ib = sb.interarrival_all();
        assert_eq!((ib.len(), ib.count_at(0), ib.count_at(150)), (2, 1, 1));
    }

    #[test]
    fn the_latest_stream_is_not_looked_up_again_and_misses_are_not_kept() {
        let mut t = Table::new(
            None,
            1_000_000_000,
            CountFrom::FirstSeen,
            StreamPool::default(),
        );
        assert!(t.slot(80_000).is_ok());
        assert_eq!(t.last, Some((80_000, 0)));
        t.slot(80_000).unwrap().tally.frames += 1;
        assert!(t.slot(4).is_ok());
        assert_eq!(t.last, Some((4, 1)));
        // A listed table's miss leaves the latest stream as it was.
        let mut l = Table::new(
            Some(&[9]),
            1_000_000_000,
            CountFrom::FirstSeen,
            StreamPool::default(),
        );
        assert!(l.slot(9).is_ok());
        assert_eq!(l.slot(10).err(), Some(Miss::Untracked));
        assert_eq!(l.last, Some((9, 0)));
        assert_eq!(l.slot(10).err(), Some(Miss::Untracked));
        let s = t.into_streams();
        assert_eq!(
            (s[0].tally.id, s[0].tally.frames, s[1].tally.id),
            (80_000, 1, 4)
        );
    }

    /// Frame `seq` of stream 5, stamped at departure TSC `tx`.
    fn stamped(seq: u64, tx: u64) -> Dissected {
        match ours(5, seq) {
            Dissected::Ours(f) => Dissected::Ours(Ours { tx_tsc: tx, ..f }),
            d => d,
        }
    }

    #[test]
    fn the_departure_of_the_frame_that_ends_the_newest_loss_is_kept() {
        let mut r = rx();
        r.shared_tsc = true;
        // 0..10 in order, 10..13 lost, 13..20, 20 lost, 21..30.
        let mut now = 1_000;
        for seq in (0..10).chain(13..20).chain(21..30) {
            now += 10;
            r.classify(stamped(seq, 100 + seq * 7), 100, now);
        }
        let out = r.finish(1);
        assert_eq!(out.streams[0].seq.counts().lost, 4);
        assert_eq!(
            out.streams[0].tally.resumed_tx_tsc,
            100 + 21 * 7,
            "21 ended the last loss"
        );
        // A gap a late frame fills later still marks where it opened (a
        // loss for all the receiver knew then); in order, none at all.
        let mut r = rx();
        r.shared_tsc = true;
        for (k, seq) in [0u64, 1, 3, 2, 4].into_iter().enumerate() {
            r.classify(stamped(seq, 500 + seq), 100, 2_000 + k as u64);
        }
        let out = r.finish(1);
        assert_eq!(out.streams[0].seq.counts().lost, 0);
        assert_eq!(
            out.streams[0].tally.resumed_tx_tsc, 503,
            "3 opened a gap 2 then filled"
        );
        let mut r = rx();
        r.shared_tsc = true;
        for seq in 0..5u64 {
            r.classify(stamped(seq, 700 + seq), 100, 3_000 + seq);
        }
        assert_eq!(r.finish(1).streams[0].tally.resumed_tx_tsc, 0);
    }

    #[test]
    fn large_stream_ids_are_found_by_hash_each_in_its_own_slot() {
        let mut r = rx();
        let ids: Vec<u32> = (0..2_000u32).map(|i| 65_536 + i * 65_536).collect();
        for round in 0..3 {
            for &id in &ids {
                r.classify(ours(id, round), 1046, 10 + round);
            }
        }
        let out = r.finish(1);
        assert_eq!(out.streams.len(), ids.len());
        for (acc, &id) in out.streams.iter().zip(&ids) {
            assert_eq!(
                (acc.tally.id, acc.tally.frames, acc.seq.counts().unique),
                (id, 3, 3)
            );
        }
    }

    #[test]
    fn new_streams_take_the_pool_first_then_allocate() {
        let pool = StreamPool::new(2, 1_000_000_000);
        assert_eq!(pool.accs.len(), 2);
        let mut t = Table::new(None, 1_000_000_000, CountFrom::Seq(0), pool);
        assert_eq!((t.accs.len(), t.used), (2, 0));
        for id in [7, 8, 9] {
            let acc = t.slot(id).unwrap();
            acc.seq.record(5);
        }
        assert_eq!((t.accs.len(), t.used), (3, 3));
        assert_eq!(t.lost(), 15, "each counts from 0, pooled or not");
        let s = t.into_streams();
        assert_eq!(s.iter().map(|a| a.tally.id).collect::<Vec<_>>(), [7, 8, 9]);
        // An unused pool is dropped, not reported.
        let t = Table::new(None, 1, CountFrom::FirstSeen, StreamPool::new(5, 1));
        assert!(t.into_streams().is_empty());
    }
}
