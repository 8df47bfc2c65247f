//! The TX worker loop: build frames, wait for their departure time on the
//! TSC, hand them to the PMD, record how well the schedule was kept.
//!
//! One task runs per lcore, in the shape of DPDK's l2fwd: fill a batch,
//! wait, send, account, again. Frames are prepared a batch ahead (headers
//! from each stream's template, stamp, fill, checksums); just before
//! `tx_burst` the stamp gets the TSC of the moment and the checksums are
//! patched in O(1). Whether the loop waits is decided once per task, by
//! choosing the loop's variant; whether gap frames are woven in, once per
//! batch. Nothing here allocates, locks or prints once the loop runs.

use std::sync::Arc;

use crate::counter::{Padded, StopFlag, TxLive};
use crate::dpdk::{tsc, TxBatch, TxOffload, TxQueue, BATCH_MAX};
use crate::pace::measure::{DepartureRecorder, PaceSummary};
use crate::pace::mode::{GapFrames, GapPlanner, TxMode};
use crate::pace::pattern::{Pacer, Pattern};
use crate::pace::rate::Rate;
use crate::pace::schedule::{Interleave, Schedule};
use crate::pace::tsc::ns_to_ticks;
use crate::wire::builder::FrameBuilder;
use crate::wire::pause::{PauseFrame, PauseRepr};
use crate::wire::spec::FCS_LEN;
use crate::wire::MacAddr;

/// Frames prepared ahead in spin mode (each still leaves at its own time).
const SPIN_AHEAD: usize = 32;
/// Frames per `tx_burst` in max and gap modes.
const MAX_BURST: usize = 32;
/// The first departure is this long after the loop starts (ns), so that
/// the first batch is ready before it is due.
const FIRST_DEPARTURE_NS: u64 = 1_000_000;

/// Everything a TX lcore needs, prepared on the main lcore.
pub struct TxTask<'q> {
    /// The lcore it runs on.
    pub lcore: u32,
    /// The TX queue it alone sends on (mbufs come from its port's pool).
    pub queue: TxQueue<'q>,
    /// One builder per stream.
    pub builders: Vec<FrameBuilder>,
    /// Which stream sends each frame: the streams' weights share the
    /// task's rate at its layer (bits, or frames).
    pub interleave: Interleave,
    /// Each stream's id (as stamped).
    pub stream_ids: Vec<u32>,
    /// The task's rate.
    pub rate: Rate,
    /// How frames are handed to the PMD.
    pub mode: TxMode,
    /// How departures are spread.
    pub pattern: Pattern,
    /// TSC frequency (measured).
    pub tsc_hz: u64,
    /// The port computes checksums.
    pub offload: bool,
    /// Departures to keep in the trace (0: none).
    pub trace_frames: u64,
    /// The port's link rate in bit/s (for patterns that burst at line rate).
    pub line_bps: u64,
    /// Gap mode: one planner per stream (parallel to `builders`) and the
    /// source MAC of the PAUSE frames.
    pub gap: Option<(Vec<GapPlanner>, [u8; 6])>,
    /// Live counters for the reporter.
    pub live: Arc<Padded<TxLive>>,
    /// The stop signal.
    pub stop: Arc<StopFlag>,
    /// The task stops by itself once it has prepared this many frames (a
    /// back-to-back burst); `u64::MAX`: only the stop signal ends it.
    pub frame_limit: u64,
}

/// What one TX lcore did.
#[derive(Debug)]
pub struct TxOutcome {
    /// Frames the PMD took.
    pub frames: u64,
    /// Their bytes, FCS included.
    pub bytes: u64,
    /// Gap frames sent (gap mode).
    pub gap_frames: u64,
    /// Their bytes, FCS included.
    pub gap_bytes: u64,
    /// Per stream: (id, frames, bytes, payload bytes).
    pub streams: Vec<(u32, u64, u64, u64)>,
    /// Schedule-keeping statistics.
    pub pace: PaceSummary,
    /// The recorder itself (for the trace file).
    pub recorder: DepartureRecorder,
    /// TSC cycles the loop ran.
    pub loop_cycles: u64,
    /// Of those, cycles spent waiting for departure times.
    pub wait_cycles: u64,
    /// Batches that could not be allocated (the mempool was empty).
    pub alloc_failed: u64,
    /// TSC cycles the task was sending for: from its first departure time
    /// (the loop's start in modes that never wait) to its stop. Achieved
    /// rates are frames taken over this span, however long the port
    /// refused them.
    pub span_cycles: u64,
}

/// What one batch slot holds, from fill to account.
#[derive(Clone, Copy, Debug)]
enum Slot {
    /// A frame of stream `stream` (an index into the task's streams),
    /// `size` bytes with FCS, due at TSC `due` (0 in modes that never wait).
    Data { stream: u16, size: u32, due: u64 },
    /// A gap frame of `size` bytes with FCS.
    Gap { size: u32 },
}

impl Slot {
    /// The departure time (gap frames are due at once).
    #[inline(always)]
    fn due(&self) -> u64 {
        match *self {
            Slot::Data { due, .. } => due,
            Slot::Gap { .. } => 0,
        }
    }
}

/// One stream of the task: its builder and what the loop keeps for it.
struct Stream {
    builder: FrameBuilder,
    /// Checksum offload request for its frames; `None` when the port
    /// computes no checksums (a freshly allocated mbuf requests none).
    offload: Option<TxOffload>,
    /// Bytes of each frame that are not payload: headers and FCS.
    overhead: u32,
    /// Sequence number of its next frame.
    seq: u64,
    frames: u64,
    bytes: u64,
    payload: u64,
}

impl Stream {
    /// A stream of `builder`'s frames, whose checksums the port computes
    /// when `offload`.
    fn new(builder: FrameBuilder, offload: bool) -> Self {
        Stream {
            offload: offload.then(|| {
                TxOffload::checksums(
                    builder.is_ipv6(),
                    builder.is_tcp(),
                    builder.l2_len() as u8,
                    builder.l3_len() as u16,
                )
            }),
            overhead: (builder.stamp_offset() + FCS_LEN) as u32,
            builder,
            seq: 0,
            frames: 0,
            bytes: 0,
            payload: 0,
        }
    }
}

/// Where data frames come from: the streams, the interleave that picks
/// the next one, and the pacer that gives its departure time.
struct Source {
    streams: Vec<Stream>,
    interleave: Interleave,
    pacer: Pacer,
}

impl Source {
    /// Writes the next frame, by the streams' weights, into slot `i` of
    /// `batch`, due at the pacer's next departure when `PACED`. Returns the
    /// stream's index and the slot.
    #[inline(always)]
    fn frame<const PACED: bool>(&mut self, batch: &mut TxBatch<'_>, i: usize) -> (usize, Slot) {
        let s = self.interleave.next();
        let st = &mut self.streams[s];
        let len = st.builder.next_len();
        st.builder.write(batch.frame_mut(i, len), st.seq, 0);
        st.seq += 1;
        if let Some(ol) = st.offload {
            batch.set_offload(i, ol);
        }
        let size = len + FCS_LEN;
        let due = if PACED { self.pacer.next(size) } else { 0 };
        (
            s,
            Slot::Data {
                stream: s as u16,
                size: size as u32,
                due,
            },
        )
    }
}

/// Gap mode's state: a planner per stream (frame sizes are fixed per
/// stream in gap mode) and the gap frames still owed after the last data
/// frame, which may span batches.
struct Gaps {
    planners: Vec<GapPlanner>,
    owed: GapFrames,
    next: u32,
    pause: PauseRepr,
}

impl Gaps {
    /// The size (FCS included) of the next gap frame still owed, if any.
    #[inline(always)]
    fn take(&mut self) -> Option<u32> {
        if self.next == self.owed.count {
            return None;
        }
        let len = self.owed.len_of(self.next);
        self.next += 1;
        Some(len)
    }

    /// Plans the gap that follows a data frame of stream `s`.
    #[inline(always)]
    fn after(&mut self, s: usize) {
        self.owed = self.planners[s].next_gap();
        self.next = 0;
    }
}

/// Totals over the whole loop.
#[derive(Default)]
struct Totals {
    frames: u64,
    bytes: u64,
    gap_frames: u64,
    gap_bytes: u64,
    wait_cycles: u64,
    alloc_failed: u64,
}

/// A running TX task: the batch, what each of its slots holds, and the
/// sources of frames and departure times.
struct Tx<'q> {
    queue: TxQueue<'q>,
    batch: TxBatch<'q>,
    slots: [Slot; BATCH_MAX],
    /// Frames allocated and prepared per batch.
    ahead: usize,
    /// Frames per `tx_burst` (1 in spin mode: every frame already due).
    group: usize,
    source: Source,
    stream_ids: Vec<u32>,
    gaps: Option<Gaps>,
    recorder: DepartureRecorder,
    rate: Rate,
    /// TSC of the first departure time in modes that wait.
    first_due: u64,
    /// Frames still allowed by the task's `frame_limit`.
    left: u64,
    totals: Totals,
    live: Arc<Padded<TxLive>>,
    stop: Arc<StopFlag>,
}

/// Run the task until the stop flag is set.
pub fn run(t: TxTask<'_>) -> TxOutcome {
    run_keeping_queue(t).0
}

/// Run the task until the stop flag is set (or its frame limit is
/// reached), and give its queue back for the next run on it.
pub fn run_keeping_queue(t: TxTask<'_>) -> (TxOutcome, TxQueue<'_>) {
    let paced = t.mode.waits();
    let mut tx = Tx::new(t);
    let loop_start = tsc::now();
    if paced {
        tx.run_loop::<true>();
    } else {
        tx.run_loop::<false>();
    }
    let end = tsc::now();
    let from = if paced { tx.first_due } else { loop_start };
    tx.outcome(end - loop_start, end.saturating_sub(from))
}

/// Allocate `n` mbufs into the empty `batch`, all or none.
#[inline(always)]
fn alloc(batch: &mut TxBatch<'_>, n: usize) -> bool {
    batch.fill(n)
}

/// Hand up to `n` frames from the head of `batch` to the PMD; returns how
/// many it took.
#[inline(always)]
fn transmit(batch: &mut TxBatch<'_>, queue: &mut TxQueue<'_>, n: usize) -> usize {
    batch.transmit(queue, n)
}

impl<'q> Tx<'q> {
    /// Takes the task apart into the loop's state; the first departure is
    /// [`FIRST_DEPARTURE_NS`] from now.
    fn new(t: TxTask<'q>) -> Self {
        let (group, ahead) = match t.mode {
            TxMode::Spin => (1, SPIN_AHEAD),
            TxMode::Burst(n) => (usize::from(n).min(BATCH_MAX), usize::from(n).min(BATCH_MAX)),
            TxMode::Max | TxMode::Gap { .. } => (MAX_BURST, MAX_BURST),
        };
        let streams: Vec<Stream> = (t.builders.into_iter())
            .map(|b| Stream::new(b, t.offload))
            .collect();
        let start = tsc::now() + ns_to_ticks(FIRST_DEPARTURE_NS, t.tsc_hz);
        // Payload-layer rates count each frame's payload: the frame less
        // its headers and FCS (the same for every stream of a task; checked
        // when the run is planned).
        let schedule = Schedule::new(start, t.tsc_hz, t.rate)
            .expect("the plan validated the rate")
            .with_payload_overhead(streams.first().map_or(0, |s| s.overhead));
        Tx {
            batch: TxBatch::new(&t.queue),
            queue: t.queue,
            slots: [Slot::Gap { size: 0 }; BATCH_MAX],
            ahead,
            group,
            source: Source {
                streams,
                interleave: t.interleave,
                pacer: Pacer::new(t.pattern, schedule, t.line_bps)
                    .expect("the plan validated the pattern"),
            },
            stream_ids: t.stream_ids,
            gaps: t.gap.map(|(planners, src)| Gaps {
                planners,
                owed: GapFrames::default(),
                next: 0,
                pause: PauseRepr {
                    src: MacAddr(src),
                    quanta: 0,
                },
            }),
            recorder: DepartureRecorder::new(t.tsc_hz, t.trace_frames as usize),
            rate: t.rate,
            first_due: start,
            left: t.frame_limit,
            totals: Totals::default(),
            live: t.live,
            stop: t.stop,
        }
    }

    /// The loop: fill, wait (`PACED` only), send, account, until the stop.
    /// `PACED` is the mode's [`TxMode::waits`]: spin and burst wait for
    /// each departure time and record it against the schedule; max and gap
    /// never wait.
    fn run_loop<const PACED: bool>(&mut self) {
        loop {
            if self.batch.is_empty() {
                if self.stop.stopped() || self.left == 0 {
                    return;
                }
                if !self.fill::<PACED>() {
                    self.totals.alloc_failed += 1;
                    continue;
                }
            }
            let now = if PACED {
                match self.wait() {
                    Some(now) => now,
                    None => return,
                }
            } else {
                tsc::now()
            };
            let head = self.batch.head();
            let sent = self.send(self.due_count(now), now);
            if sent == 0 {
                // A port that refuses everything (a peer gone) must not
                // hold the run open.
                if self.stop.stopped() {
                    return;
                }
                continue;
            }
            self.account::<PACED>(head, sent, tsc::now());
        }
    }

    /// Allocate a batch and prepare every slot: in gap mode the gap frames
    /// still owed come first, each data frame's gap after it.
    #[inline(always)]
    fn fill<const PACED: bool>(&mut self) -> bool {
        let n = self.left.min(self.ahead as u64) as usize;
        if !alloc(&mut self.batch, n) {
            return false;
        }
        self.left -= n as u64;
        let (batch, source) = (&mut self.batch, &mut self.source);
        match self.gaps.as_mut() {
            None => {
                for (i, slot) in self.slots[..n].iter_mut().enumerate() {
                    *slot = source.frame::<PACED>(batch, i).1;
                }
            }
            Some(gaps) => {
                for (i, slot) in self.slots[..n].iter_mut().enumerate() {
                    *slot = match gaps.take() {
                        Some(size) => gap_frame(batch, i, size, &gaps.pause),
                        None => {
                            let (s, data) = source.frame::<PACED>(batch, i);
                            gaps.after(s);
                            data
                        }
                    };
                }
            }
        }
        true
    }

    /// Spins until the head frame's departure time; returns the TSC then,
    /// or `None` when the stop comes first.
    #[inline(always)]
    fn wait(&mut self) -> Option<u64> {
        let due = self.slots[self.batch.head()].due();
        let mut now = tsc::now();
        if now < due {
            let from = now;
            while now < due {
                if self.stop.stopped() {
                    return None;
                }
                std::hint::spin_loop();
                now = tsc::now();
            }
            self.totals.wait_cycles += now - from;
        }
        Some(now)
    }

    /// Frames to hand over at `now`: the mode's group, and in spin mode
    /// every further prepared frame already due.
    #[inline(always)]
    fn due_count(&self, now: u64) -> usize {
        let (h, len) = (self.batch.head(), self.batch.len());
        let mut n = self.group.min(len - h);
        if self.group == 1 {
            while h + n < len && self.slots[h + n].due() <= now {
                n += 1;
            }
        }
        n
    }

    /// Stamps `now` into the next `n` data frames and hands them to the
    /// PMD; returns how many it took (the rest count as refused).
    #[inline(always)]
    fn send(&mut self, n: usize, now: u64) -> usize {
        let h = self.batch.head();
        for (i, slot) in self.slots.iter().enumerate().skip(h).take(n) {
            if let Slot::Data { stream, .. } = *slot {
                self.source.streams[usize::from(stream)]
                    .builder
                    .set_tx_tsc(self.batch.frame(i), now);
            }
        }
        let sent = transmit(&mut self.batch, &mut self.queue, n);
        if sent < n {
            self.recorder.refused((n - sent) as u64);
        }
        sent
    }

    /// Counts the `sent` frames from slot `from`, which the PMD took at
    /// TSC `after`, and publishes the totals.
    #[inline(always)]
    fn account<const PACED: bool>(&mut self, from: usize, sent: usize, after: u64) {
        let (mut frames, mut bytes) = (0u64, 0u64);
        for slot in &self.slots[from..from + sent] {
            match *slot {
                Slot::Gap { size } => {
                    self.totals.gap_frames += 1;
                    self.totals.gap_bytes += u64::from(size);
                }
                Slot::Data { stream, size, due } => {
                    let s = &mut self.source.streams[usize::from(stream)];
                    let payload = size - s.overhead;
                    if PACED {
                        self.recorder.record_with_payload(due, after, size, payload);
                    } else {
                        self.recorder.record_unscheduled(after, size, payload);
                    }
                    s.frames += 1;
                    s.bytes += u64::from(size);
                    s.payload += u64::from(payload);
                    frames += 1;
                    bytes += u64::from(size);
                }
            }
        }
        self.totals.frames += frames;
        self.totals.bytes += bytes;
        self.live.frames.add(frames);
        self.live.bytes.add(bytes);
    }

    /// What the task did over a loop of `loop_cycles` that sent for
    /// `span_cycles`, and its queue; frees the mbufs not sent.
    fn outcome(self, loop_cycles: u64, span_cycles: u64) -> (TxOutcome, TxQueue<'q>) {
        drop(self.batch);
        let mut pace = self.recorder.summary();
        pace.set_target(&self.rate);
        let out = TxOutcome {
            frames: self.totals.frames,
            bytes: self.totals.bytes,
            gap_frames: self.totals.gap_frames,
            gap_bytes: self.totals.gap_bytes,
            streams: self
                .source
                .streams
                .iter()
                .zip(&self.stream_ids)
                .map(|(s, &id)| (id, s.frames, s.bytes, s.payload))
                .collect(),
            pace,
            recorder: self.recorder,
            loop_cycles,
            wait_cycles: self.totals.wait_cycles,
            alloc_failed: self.totals.alloc_failed,
            span_cycles,
        };
        (out, self.queue)
    }
}

/// Writes a PAUSE frame of `size` bytes (FCS included) into slot `i` of
/// `batch`.
#[inline(always)]
fn gap_frame(batch: &mut TxBatch<'_>, i: usize, size: u32, pause: &PauseRepr) -> Slot {
    let buf = batch.frame_mut(i, size as usize - FCS_LEN);
    pause.emit(&mut PauseFrame::new_unchecked(buf));
    batch.set_offload(i, TxOffload::default());
    Slot::Gap { size }
}
