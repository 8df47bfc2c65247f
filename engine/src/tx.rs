//! The TX worker loop: build frames, wait for their departure time on the
//! TSC, hand them to the PMD, record how well the schedule was kept.
//!
//! One task runs per lcore, in the shape of DPDK's l2fwd: fill a batch,
//! wait, send, account, again. Frames are prepared a batch ahead (headers
//! from each stream's template, stamp, fill, checksums); just before
//! `tx_burst` the stamp gets the TSC of the moment and the checksums are
//! patched in O(1). Whether the loop waits is decided once per task, by
//! choosing the loop's variant, and so is whether it sends one stream and
//! no gap frames (then no slot is looked up per frame: one bulk get per
//! batch, the stream's counters added per burst); whether gap frames are
//! woven in, once per batch. Nothing here allocates, locks or prints once
//! the loop runs. A task whose port latches IEEE 1588 TX timestamps marks
//! one frame now and then and reads its departure back, polling the latch
//! on a TSC interval ([`TxStamps`], `clock::txstamp`).

use std::sync::Arc;

use crate::clock::txstamp::{DepartureOffsets, TxSampler};
use crate::counter::{Padded, StopFlag, TxLive};
use crate::dpdk::{
    tsc, DpdkError, Eal, TemplatePool, TxBatch, TxLatch, TxOffload, TxQueue, BATCH_MAX, CACHE_MAX,
};
use crate::pace::measure::{DepartureRecorder, PaceSummary};
use crate::pace::mode::{departing, GapFrames, GapPlanner, TxMode};
use crate::pace::pattern::{Pacer, Pattern};
use crate::pace::rate::Rate;
use crate::pace::schedule::{Interleave, Schedule};
use crate::pace::tsc::ns_to_ticks;
use crate::tx_payload::Payload;
use crate::wire::builder::{FrameBuilder, FramePlan, TxTsc};
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
    /// Per stream (parallel to `builders`), the pool whose mbufs hold its
    /// headers; `None`: its frames come from the port's pool and get their
    /// headers written per frame. The runtime keeps each pool until the
    /// port is closed.
    pub pools: Vec<Option<Arc<TemplatePool<'q>>>>,
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
    /// How each frame's fill gets into it: copied or attached.
    pub payload: Payload<'q>,
    /// Its part in a memif link's departure handshake (see [`crate::depart`]).
    pub peer: Option<crate::depart::TxPeer>,
    /// The task stops by itself once it has prepared this many frames (a
    /// back-to-back burst); `u64::MAX`: only the stop signal ends it.
    pub frame_limit: u64,
    /// Stamps carry clock nanoseconds through this mapping (its builders
    /// stamp version 2); `None`: the TSC (version 1).
    pub clock: Option<Arc<crate::clock::sync::SharedMapping>>,
    /// The port's IEEE 1588 TX latch and its clock's map onto the TSC,
    /// when departures are sampled (`tx[].timestamps`); its streams'
    /// frames then come from the port's pool.
    pub stamps: Option<TxStamps>,
}

/// What a TX task samples departures with (`clock::txstamp`): the port's
/// latch, and the map of its IEEE 1588 clock onto the TSC the main lcore
/// keeps (`NicMap` words).
pub struct TxStamps {
    /// The latch.
    pub latch: TxLatch,
    /// The 1588 clock → TSC map.
    pub map: Arc<crate::clock::sync::SharedMapping>,
    /// The 1588 counter's width.
    pub counter: crate::clock::nic::Counter,
}

/// A task's sampling in the loop: the latch and map, and the sampler.
struct Sampling {
    stamps: TxStamps,
    sampler: TxSampler,
}

impl Sampling {
    /// Marks the first data frame of the `n` from slot `h` whose mbuf may
    /// carry the request (the port's pool); the latch is read first, so
    /// that a departure left from an earlier, given-up sample is not taken
    /// for this one. Returns the slot and its stream.
    #[inline(never)]
    fn mark(
        &self,
        batch: &mut TxBatch<'_>,
        slots: &[Slot],
        h: usize,
        n: usize,
    ) -> Option<(usize, usize)> {
        let _ = self.stamps.latch.read();
        for (i, slot) in slots.iter().enumerate().skip(h).take(n) {
            if let Slot::Data { stream, .. } = *slot {
                if batch.mark_tx_timestamp(i) {
                    return Some((i, usize::from(stream)));
                }
            }
        }
        None
    }

    /// After a burst of `sent` from slot `h` stamped at TSC `now`: the
    /// marked frame, if it left, is in flight (else its request is taken
    /// back); while a sample is in flight the latch is read once per poll
    /// gap of the TSC ([`TxSampler::poll_due`]), not after every burst.
    #[inline(never)]
    fn after(
        &mut self,
        batch: &mut TxBatch<'_>,
        marked: Option<(usize, usize)>,
        end: usize,
        now: u64,
    ) {
        if let Some((i, stream)) = marked {
            if i < end {
                self.sampler.sent(stream, now);
            } else {
                batch.unmark_tx_timestamp(i);
            }
        }
        if self.sampler.poll_due(now) {
            let s = &self.stamps;
            let latched = (s.latch.read())
                .map(|raw| crate::clock::nic::NicMap::from_words(s.map.load(), s.counter).tsc(raw));
            self.sampler.poll(latched);
        }
    }
}

/// Most streams of a task whose frames come from template pools of their
/// own; the streams of a task with more share the port's pool and get
/// their headers written per frame (a pool per stream costs a TX ring's
/// worth of mbufs).
pub const TEMPLATE_POOLS_MAX: usize = 8;

/// The shape of a TX task as far as its mempools go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TaskShape {
    /// Streams the task sends.
    pub streams: usize,
    /// It weaves PAUSE gap frames (gap mode), which come from the port's
    /// pool.
    pub gap: bool,
    /// The runtime keeps template pools for its tasks (a certification's
    /// trials do not: their frames come from the port's pool).
    pub templates_kept: bool,
    /// Its departures are sampled through the port's TX latch, whose
    /// marked frames must come from the port's pool.
    pub stamped: bool,
}

impl TaskShape {
    /// Its streams' frames come from template pools of their own, one per
    /// stream (else from the port's pool, headers written per frame).
    pub fn uses_templates(self) -> bool {
        self.templates_kept && !self.stamped && self.streams <= TEMPLATE_POOLS_MAX
    }

    /// How many mempools the mbufs its TX queue sends come from: one per
    /// stream with template pools, and the port's for gap frames; one
    /// (the port's) otherwise.
    pub fn pools(self) -> usize {
        if self.uses_templates() {
            self.streams + usize::from(self.gap)
        } else {
            1
        }
    }

    /// The most pools a task of this shape can use once the port is
    /// started, known before it is configured: whether its departures
    /// will be sampled is decided later, and sampling only takes pools
    /// away, so the bound assumes it does not.
    pub fn pools_bound(self) -> usize {
        TaskShape {
            stamped: false,
            ..self
        }
        .pools()
    }
}

/// Whether `RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE` is safe on a port whose TX
/// queues each send the mbufs of at most `pools` mempools: only with one.
/// Fast free lets the driver put a whole batch of sent mbufs back into
/// the pool of the batch's first mbuf, without looking at the others
/// (DPDK 22.11: mlx5's `mlx5_tx_free_mbuf`, i40e's `i40e_tx_free_bufs`
/// in `i40e_rxtx.c` and in `i40e_rxtx_vec_common.h` for its simple and
/// vector paths), so with
/// two pools on a queue one stream's template mbufs land in another's
/// pool and go out with the other's headers.
pub fn fast_free_safe(pools: usize) -> bool {
    pools <= 1
}

/// The template pools of a task's streams (see [`TxTask::pools`]): one per
/// builder, each of mbufs for a TX ring of `tx_ring` descriptors, the
/// batches in flight and two lcores' caches, on NUMA `socket`, named
/// `{name}s{k}`; none when there are more than [`TEMPLATE_POOLS_MAX`]
/// streams.
pub fn template_pools<'e>(
    eal: &'e Eal,
    name: &str,
    builders: &[FrameBuilder],
    tx_ring: u16,
    socket: i32,
) -> Result<Vec<Option<Arc<TemplatePool<'e>>>>, DpdkError> {
    let shape = TaskShape {
        streams: builders.len(),
        gap: false,
        templates_kept: true,
        stamped: false,
    };
    if !shape.uses_templates() {
        return Ok(builders.iter().map(|_| None).collect());
    }
    let count = (u32::from(tx_ring) + 2 * BATCH_MAX as u32 + 3 * CACHE_MAX).next_power_of_two() - 1;
    let mut pools = Vec::with_capacity(builders.len());
    for (k, b) in builders.iter().enumerate() {
        let mut head = vec![0u8; b.stamp_offset()];
        b.init_head(&mut head);
        let pool = TemplatePool::create(
            eal,
            &format!("{name}s{k}"),
            count,
            b.max_len() as u32,
            socket,
            &head,
        )?;
        pools.push(Some(Arc::new(pool)));
    }
    Ok(pools)
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
    /// Frames the PMD took with their fill attached, not copied.
    pub attached: u64,
    /// The departure offsets sampled (`None`: departures not sampled).
    pub departures: Option<DepartureOffsets>,
    /// The TSC its schedule started at (its first departure time).
    pub first_due: u64,
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
struct Stream<'q> {
    builder: FrameBuilder,
    /// The pool whose mbufs already hold the stream's headers (`None`:
    /// the port's, headers written per frame).
    pool: Option<Arc<TemplatePool<'q>>>,
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

impl<'q> Stream<'q> {
    /// A stream of `builder`'s frames from `pool`, whose checksums the
    /// port computes when `offload`.
    fn new(builder: FrameBuilder, pool: Option<Arc<TemplatePool<'q>>>, offload: bool) -> Self {
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
            pool,
            seq: 0,
            frames: 0,
            bytes: 0,
            payload: 0,
        }
    }
}

impl Stream<'_> {
    /// Writes the planned frame `plan` (sequence `seq`) into slot `i` of
    /// `batch`: the headers' changing fields and the stamp into the first
    /// segment, then the payload: copied, or attached by `payload` as a
    /// second segment; none for a frame whose stamp ends it (64 bytes).
    #[inline(always)]
    fn write(
        &mut self,
        batch: &mut TxBatch<'_>,
        i: usize,
        (plan, seq): &(FramePlan, u64),
        payload: &mut Payload<'_>,
        s: usize,
    ) {
        let filled = plan.len > plan.head_len;
        let seg = if filled {
            payload.segment(s, plan)
        } else {
            None
        };
        let len = if seg.is_some() {
            plan.head_len
        } else {
            plan.len
        };
        let f = batch.frame_mut(i, len);
        if self.pool.is_none() {
            self.builder.init_head(f);
        }
        self.builder.write_head(f, *seq, plan);
        if filled {
            match seg {
                None => self.builder.write_fill(f, *seq, plan),
                Some(seg) => payload.attach(s, batch, i, seg, plan),
            }
        }
        if let Some(ol) = self.offload {
            batch.set_offload(i, ol);
        }
    }
}

/// Where data frames come from: the streams, the interleave that picks
/// the next one, and the pacer that gives its departure time.
struct Source<'q> {
    streams: Vec<Stream<'q>>,
    interleave: Interleave,
    pacer: Pacer,
    payload: Payload<'q>,
}

impl Source<'_> {
    /// Plans the next frame, by the streams' weights (`ONE`: the task's
    /// only stream), due at the pacer's next departure when `PACED`, into
    /// `plan`. Returns the stream's index and the slot.
    #[inline(always)]
    fn plan<const PACED: bool, const ONE: bool>(
        &mut self,
        plan: &mut (FramePlan, u64),
    ) -> (usize, Slot) {
        let s = if ONE { 0 } else { self.interleave.next() };
        let st = &mut self.streams[s];
        *plan = (st.builder.plan(st.seq), st.seq);
        st.seq += 1;
        let size = plan.0.len + FCS_LEN;
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
    /// Per data slot, its frame's plan and stream sequence number.
    plans: [(FramePlan, u64); BATCH_MAX],
    /// The slots of the next batch are planned but not yet allocated (the
    /// pool was empty): the next fill allocates them as planned.
    planned: bool,
    /// The slots below this one hold a stamp already (they were offered
    /// to the PMD and refused): sent again, they are patched from the TSC
    /// they hold; the others are stamped from TSC 0.
    stamped: usize,
    /// Frames allocated and prepared per batch.
    ahead: usize,
    /// Frames per `tx_burst` (1 in spin mode: every frame already due).
    group: usize,
    source: Source<'q>,
    stream_ids: Vec<u32>,
    gaps: Option<Gaps>,
    recorder: DepartureRecorder,
    /// See [`TxTask::clock`].
    clock: Option<Arc<crate::clock::sync::SharedMapping>>,
    /// See [`TxTask::stamps`].
    sampling: Option<Box<Sampling>>,
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
/// reached), and give its queue back for the next run on it. Kept out of
/// line: instruction counts (`scripts/bench`) are taken inside it by name.
#[inline(never)]
pub fn run_keeping_queue(t: TxTask<'_>) -> (TxOutcome, TxQueue<'_>) {
    let paced = t.mode.waits();
    let peer = t.peer.clone();
    let mut tx = Tx::new(t);
    let one = tx.source.streams.len() == 1 && tx.gaps.is_none();
    let loop_start = tsc::now();
    match (paced, one) {
        (true, true) => tx.run_loop::<true, true>(),
        (true, false) => tx.run_loop::<true, false>(),
        (false, true) => tx.run_loop::<false, true>(),
        (false, false) => tx.run_loop::<false, false>(),
    }
    let end = tsc::now();
    crate::depart::tx_stopped(&mut tx.queue, peer.as_ref());
    let from = if paced { tx.first_due } else { loop_start };
    tx.outcome(end - loop_start, end.saturating_sub(from))
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
        let streams: Vec<Stream> = (t.builders.into_iter().zip(t.pools))
            .map(|(b, pool)| Stream::new(b, pool, t.offload))
            .collect();
        let streams_len = streams.len();
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
            plans: [(FramePlan::default(), 0); BATCH_MAX],
            planned: false,
            stamped: 0,
            ahead,
            group,
            source: Source {
                streams,
                interleave: t.interleave,
                payload: t.payload,
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
            clock: t.clock,
            sampling: t.stamps.map(|stamps| {
                Box::new(Sampling {
                    stamps,
                    sampler: TxSampler::new(streams_len, t.tsc_hz),
                })
            }),
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
    /// never wait. One TSC read per `tx_burst`, after it: that is when the
    /// burst left and when the next is decided (the wait reads more only
    /// while the next frame is not yet due, a fill once per batch).
    /// `ONE`: the task sends one stream and no gap frames, so that every
    /// slot is that stream's (no per-frame pick, pool or stream look-up,
    /// and its counters are added per burst).
    /// Never inlined: the loop is one symbol (`landspeed::tx::Tx::run_loop`)
    /// that an instruction count can be confined to.
    #[inline(never)]
    fn run_loop<const PACED: bool, const ONE: bool>(&mut self) {
        let mut now = tsc::now();
        loop {
            if self.batch.is_empty() {
                if self.stop.stopped() || self.left == 0 {
                    return;
                }
                if !self.fill::<PACED, ONE>() {
                    self.totals.alloc_failed += 1;
                    continue;
                }
                now = tsc::now();
            }
            if PACED {
                match self.wait(now) {
                    Some(t) => now = t,
                    None => return,
                }
            }
            let head = self.batch.head();
            let sent = self.send::<ONE>(self.due_count(now), now);
            now = tsc::now();
            if sent == 0 {
                // A port that refuses everything (a peer gone) must not
                // hold the run open.
                if self.stop.stopped() {
                    return;
                }
                continue;
            }
            self.account::<PACED, ONE>(head, sent, now);
        }
    }

    /// Prepare a batch: plan its slots (kept as planned while the pool is
    /// empty), allocate their mbufs, write the frames. A task with a frame
    /// limit prepares its last batch short, up to the limit.
    #[inline(always)]
    fn fill<const PACED: bool, const ONE: bool>(&mut self) -> bool {
        if !self.planned {
            if self.left < self.ahead as u64 {
                self.ahead = self.left as usize;
            }
            self.plan::<PACED, ONE>();
            self.planned = true;
        }
        if !self.alloc::<ONE>() {
            return false;
        }
        self.write::<ONE>();
        self.left -= self.ahead as u64;
        self.planned = false;
        self.stamped = 0;
        true
    }

    /// Decides what each slot of the next batch holds: in gap mode the gap
    /// frames still owed come first, each data frame's gap after it.
    #[inline(always)]
    fn plan<const PACED: bool, const ONE: bool>(&mut self) {
        let slots = self.slots[..self.ahead].iter_mut();
        let (source, plans) = (&mut self.source, &mut self.plans);
        match self.gaps.as_mut() {
            None => {
                for (slot, plan) in slots.zip(plans.iter_mut()) {
                    *slot = source.plan::<PACED, ONE>(plan).1;
                }
            }
            Some(gaps) => {
                for (slot, plan) in slots.zip(plans.iter_mut()) {
                    *slot = match gaps.take() {
                        Some(size) => Slot::Gap { size },
                        None => {
                            let (s, data) = source.plan::<PACED, ONE>(plan);
                            gaps.after(s);
                            data
                        }
                    };
                }
            }
        }
    }

    /// The stream whose template pool slot `i`'s mbuf comes from (`None`:
    /// the port's pool).
    #[inline(always)]
    fn pool_of(&self, i: usize) -> Option<usize> {
        match self.slots[i] {
            Slot::Data { stream, .. } => {
                let s = usize::from(stream);
                self.source.streams[s].pool.as_ref().map(|_| s)
            }
            Slot::Gap { .. } => None,
        }
    }

    /// Allocates the planned slots' mbufs, one bulk allocation per run of
    /// slots from the same pool (`ONE`: one for the batch), all or none.
    #[inline(always)]
    fn alloc<const ONE: bool>(&mut self) -> bool {
        self.batch.clear();
        if ONE {
            let ok = match self.source.streams[0].pool.as_deref() {
                Some(tp) => self.batch.extend_template(tp, self.ahead),
                None => self.batch.extend(None, self.ahead),
            };
            if !ok {
                self.batch.clear();
            }
            return ok;
        }
        let mut i = 0;
        while i < self.ahead {
            let pool = self.pool_of(i);
            let mut j = i + 1;
            while j < self.ahead && self.pool_of(j) == pool {
                j += 1;
            }
            let ok = match pool.and_then(|s| self.source.streams[s].pool.as_deref()) {
                Some(tp) => self.batch.extend_template(tp, j - i),
                None => self.batch.extend(None, j - i),
            };
            if !ok {
                self.batch.clear();
                return false;
            }
            i = j;
        }
        true
    }

    /// Writes every planned frame into its mbuf.
    #[inline(always)]
    fn write<const ONE: bool>(&mut self) {
        let batch = &mut self.batch;
        let (streams, payload) = (&mut self.source.streams, &mut self.source.payload);
        if ONE {
            let st = &mut streams[0];
            for (i, plan) in self.plans[..self.ahead].iter().enumerate() {
                st.write(batch, i, plan, payload, 0);
            }
            return;
        }
        for (i, slot) in self.slots[..self.ahead].iter().enumerate() {
            match *slot {
                Slot::Data { stream, .. } => {
                    let s = usize::from(stream);
                    streams[s].write(batch, i, &self.plans[i], payload, s)
                }
                Slot::Gap { size } => {
                    if let Some(g) = &self.gaps {
                        gap_frame(batch, i, size, &g.pause);
                    }
                }
            }
        }
    }

    /// Spins from TSC `now` until the head frame's departure time; returns
    /// the TSC then, or `None` when the stop comes first.
    #[inline(always)]
    fn wait(&mut self, mut now: u64) -> Option<u64> {
        let due = self.slots[self.batch.head()].due();
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

    /// Frames to hand over at `now`: the mode's group and every further
    /// prepared frame already due ([`departing`]).
    #[inline(always)]
    fn due_count(&self, now: u64) -> usize {
        let h = self.batch.head();
        departing(self.group, self.batch.len() - h, now, |k| {
            self.slots[h + k].due()
        })
    }

    /// Stamps `now` into the next `n` data frames and hands them to the
    /// PMD; returns how many it took (the rest count as refused). A frame
    /// stamped for the first time is stamped from TSC 0 with the burst's
    /// [`TxTsc`]; one the PMD refused before is patched from the stamp it
    /// holds.
    #[inline(always)]
    fn send<const ONE: bool>(&mut self, n: usize, now: u64) -> usize {
        let h = self.batch.head();
        // Two-host clock: one multiply-shift per burst.
        let stamp = self.clock.as_ref().map_or(now, |m| m.load().ns(now));
        let t = TxTsc::new(stamp);
        let again = self.stamped.min(h + n);
        if ONE {
            let b = &self.source.streams[0].builder;
            for i in h..again {
                b.patch_tx_tsc(self.batch.frame(i), stamp);
            }
            for i in again..h + n {
                b.stamp_tx_tsc(self.batch.frame(i), self.plans[i].1, &t);
            }
        } else {
            for (i, slot) in self.slots.iter().enumerate().skip(h).take(n) {
                if let Slot::Data { stream, .. } = *slot {
                    let b = &self.source.streams[usize::from(stream)].builder;
                    if i < again {
                        b.patch_tx_tsc(self.batch.frame(i), stamp);
                    } else {
                        b.stamp_tx_tsc(self.batch.frame(i), self.plans[i].1, &t);
                    }
                }
            }
        }
        self.stamped = self.stamped.max(h + n);
        let marked = match self.sampling.as_deref() {
            Some(s) if s.sampler.wants(now) => s.mark(&mut self.batch, &self.slots, h, n),
            _ => None,
        };
        let sent = transmit(&mut self.batch, &mut self.queue, n);
        if let Some(s) = self.sampling.as_deref_mut() {
            s.after(&mut self.batch, marked, h + sent, now);
        }
        if sent < n {
            self.recorder.refused((n - sent) as u64);
        }
        sent
    }

    /// Counts the `sent` frames from slot `from`, which the PMD took at
    /// TSC `after`, and publishes the totals. Paced, each frame's schedule
    /// error is exact (`after` less its departure time); in every mode the
    /// burst's departure is recorded once (per frame when traced).
    #[inline(always)]
    fn account<const PACED: bool, const ONE: bool>(
        &mut self,
        from: usize,
        sent: usize,
        after: u64,
    ) {
        let per_frame = self.recorder.tracing();
        let slots = &self.slots[from..from + sent];
        let rec = &mut self.recorder;
        let b = if ONE {
            count_one::<PACED>(slots, &mut self.source.streams[0], rec, after)
        } else {
            count_each::<PACED>(
                slots,
                &mut self.source.streams,
                &mut self.totals,
                rec,
                after,
            )
        };
        if !per_frame {
            self.recorder
                .record_burst(after, b.frames, (b.bytes, b.payload), b.last);
        }
        self.totals.frames += b.frames;
        self.totals.bytes += b.bytes;
        self.live.frames.add(b.frames);
        self.live.bytes.add(b.bytes);
    }

    /// What the task did over a loop of `loop_cycles` that sent for
    /// `span_cycles`, and its queue; frees the mbufs not sent.
    fn outcome(self, loop_cycles: u64, span_cycles: u64) -> (TxOutcome, TxQueue<'q>) {
        let unsent_attached = self.batch.chained_pending() as u64;
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
            attached: self.source.payload.attached() - unsent_attached,
            departures: self.sampling.as_ref().map(|s| s.sampler.report()),
            first_due: self.first_due,
        };
        (out, self.queue)
    }
}

/// The data frames of one `tx_burst`, as [`Tx::account`] records them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Burst {
    frames: u64,
    /// Bytes, FCS included.
    bytes: u64,
    /// Payload bytes.
    payload: u64,
    /// The last frame's size (FCS included) and payload.
    last: (u32, u32),
}

/// Counts the data frames of `slots`, which all belong to `stream` (a task
/// of one stream and no gap frames), taken by the PMD at TSC `after`:
/// each frame's schedule error when `PACED`, each departure when the
/// recorder traces, the stream's counters once for the burst.
#[inline(always)]
fn count_one<const PACED: bool>(
    slots: &[Slot],
    stream: &mut Stream<'_>,
    recorder: &mut DepartureRecorder,
    after: u64,
) -> Burst {
    let per_frame = recorder.tracing();
    let overhead = stream.overhead;
    let (mut bytes, mut last) = (0u64, 0u32);
    for slot in slots {
        if let Slot::Data { size, due, .. } = *slot {
            match (PACED, per_frame) {
                (true, false) => recorder.record_error(due, after),
                (true, true) => recorder.record_with_payload(due, after, size, size - overhead),
                (false, true) => recorder.record_unscheduled(after, size, size - overhead),
                (false, false) => {}
            }
            bytes += u64::from(size);
            last = size;
        }
    }
    let frames = slots.len() as u64;
    let payload = bytes - frames * u64::from(overhead);
    stream.frames += frames;
    stream.bytes += bytes;
    stream.payload += payload;
    Burst {
        frames,
        bytes,
        payload,
        last: (last, last.saturating_sub(overhead)),
    }
}

/// [`count_one`] for a task of several streams or gap frames, frame by
/// frame: each data frame's stream counted, the gap frames in `totals`.
#[inline(always)]
fn count_each<const PACED: bool>(
    slots: &[Slot],
    streams: &mut [Stream<'_>],
    totals: &mut Totals,
    recorder: &mut DepartureRecorder,
    after: u64,
) -> Burst {
    let per_frame = recorder.tracing();
    let mut b = Burst::default();
    for slot in slots {
        match *slot {
            Slot::Gap { size } => {
                totals.gap_frames += 1;
                totals.gap_bytes += u64::from(size);
            }
            Slot::Data { stream, size, due } => {
                let s = &mut streams[usize::from(stream)];
                let payload = size - s.overhead;
                match (PACED, per_frame) {
                    (true, false) => recorder.record_error(due, after),
                    (true, true) => recorder.record_with_payload(due, after, size, payload),
                    (false, true) => recorder.record_unscheduled(after, size, payload),
                    (false, false) => {}
                }
                s.frames += 1;
                s.bytes += u64::from(size);
                s.payload += u64::from(payload);
                b.frames += 1;
                b.bytes += u64::from(size);
                b.payload += u64::from(payload);
                b.last = (size, payload);
            }
        }
    }
    b
}

/// Writes a PAUSE frame of `size` bytes (FCS included) into slot `i` of
/// `batch`.
#[inline(always)]
fn gap_frame(batch: &mut TxBatch<'_>, i: usize, size: u32, pause: &PauseRepr) {
    let buf = batch.frame_mut(i, size as usize - FCS_LEN);
    pause.emit(&mut PauseFrame::new_unchecked(buf));
    batch.set_offload(i, TxOffload::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::builder::CsumMode;
    use crate::wire::spec::{SizeSpec, StreamSpec};

    /// An IPv4/UDP stream of IMIX frames whose mbufs come from the port's
    /// pool (no DPDK needed to count it).
    fn stream() -> Stream<'static> {
        let spec = StreamSpec {
            id: 3,
            size: SizeSpec::Imix,
            ..StreamSpec::default()
        };
        Stream::new(
            FrameBuilder::new(&spec, CsumMode::Software).unwrap(),
            None,
            false,
        )
    }

    /// A burst of one stream's frames, due 10 ticks apart from 1,000.
    fn slots() -> Vec<Slot> {
        [64u32, 594, 1518, 64, 1518, 594, 64]
            .iter()
            .enumerate()
            .map(|(k, &size)| Slot::Data {
                stream: 0,
                size,
                due: 1000 + 10 * k as u64,
            })
            .collect()
    }

    fn counted<const PACED: bool>(
        one: bool,
        trace: usize,
    ) -> (Burst, (u64, u64, u64), PaceSummary, Totals) {
        let mut s = vec![stream()];
        let mut rec = DepartureRecorder::new(1_000_000_000, trace);
        let mut totals = Totals::default();
        // A burst before, so that the one counted has a gap before it.
        if rec.tracing() {
            rec.record_unscheduled(900, 64, 18);
        } else {
            rec.record_burst(900, 1, (64, 18), (64, 18));
        }
        let b = if one {
            count_one::<PACED>(&slots(), &mut s[0], &mut rec, 1040)
        } else {
            count_each::<PACED>(&slots(), &mut s, &mut totals, &mut rec, 1040)
        };
        if !rec.tracing() {
            rec.record_burst(1040, b.frames, (b.bytes, b.payload), b.last);
        }
        (
            b,
            (s[0].frames, s[0].bytes, s[0].payload),
            rec.summary(),
            totals,
        )
    }

    /// A task of one stream counts a burst once (its stream's counters
    /// added per burst) exactly as frame by frame: the same counts, the
    /// same stream counters, the same schedule errors and departures, in
    /// every mode, traced or not.
    #[test]
    fn one_stream_counts_a_burst_as_frame_by_frame() {
        // 64 + 594 + 1518 + 64 + 1518 + 594 + 64; 46 bytes of headers and
        // FCS per frame.
        let want = Burst {
            frames: 7,
            bytes: 4416,
            payload: 4416 - 7 * 46,
            last: (64, 18),
        };
        for trace in [0, 16] {
            for paced in [false, true] {
                let (one, each) = if paced {
                    (counted::<true>(true, trace), counted::<true>(false, trace))
                } else {
                    (
                        counted::<false>(true, trace),
                        counted::<false>(false, trace),
                    )
                };
                assert_eq!(one.0, want, "paced {paced} trace {trace}");
                assert_eq!(one.0, each.0);
                assert_eq!(one.1, (7, 4416, 4416 - 7 * 46));
                assert_eq!(one.1, each.1);
                assert_eq!(one.2, each.2, "paced {paced} trace {trace}");
                assert_eq!((one.2.frames, one.2.l2_bytes), (8, 4416 + 64));
                assert_eq!(one.2.payload_bytes, 4094 + 18);
                // Due 1000..1060, sent at 1040: the last two early.
                assert_eq!(one.2.early, if paced { 2 } else { 0 });
                assert_eq!((one.3.gap_frames, each.3.gap_frames), (0, 0));
            }
        }
    }

    /// The pools a task's queue sends from, shape by shape.
    #[test]
    fn pools_per_task_shape() {
        let shape = |streams, gap, templates_kept, stamped| TaskShape {
            streams,
            gap,
            templates_kept,
            stamped,
        };
        // Template pools: one per stream, the port's for gap frames.
        assert_eq!(shape(1, false, true, false).pools(), 1);
        assert_eq!(shape(2, false, true, false).pools(), 2);
        assert_eq!(shape(1, true, true, false).pools(), 2);
        assert_eq!(shape(8, true, true, false).pools(), 9);
        // The port's pool for everything: more than 8 streams, no
        // templates kept, departures sampled.
        assert_eq!(shape(9, true, true, false).pools(), 1);
        assert_eq!(shape(3, true, false, false).pools(), 1);
        assert_eq!(shape(3, true, true, true).pools(), 1);
        // The bound before sampling is known assumes none.
        assert_eq!(shape(3, true, true, true).pools_bound(), 4);
        assert_eq!(shape(3, false, false, true).pools_bound(), 1);
        assert!(shape(8, false, true, false).uses_templates());
        assert!(!shape(9, false, true, false).uses_templates());
        assert!(!shape(1, false, false, false).uses_templates());
        assert!(!shape(1, false, true, true).uses_templates());
        assert!(fast_free_safe(0));
        assert!(fast_free_safe(1));
        assert!(!fast_free_safe(2));
    }

    /// Gap frames count in the totals, not as data.
    #[test]
    fn gap_frames_count_apart() {
        let mut s = vec![stream()];
        let mut rec = DepartureRecorder::new(1_000_000_000, 0);
        let mut totals = Totals::default();
        let mut sl = slots();
        sl.insert(1, Slot::Gap { size: 84 });
        sl.push(Slot::Gap { size: 1000 });
        let b = count_each::<false>(&sl, &mut s, &mut totals, &mut rec, 1040);
        assert_eq!(b.frames, 7);
        assert_eq!((b.bytes, b.last), (4416, (64, 18)));
        assert_eq!((totals.gap_frames, totals.gap_bytes), (2, 1084));
    }
}
