//! The TX worker loop: build frames, wait for their departure time on the
//! TSC, hand them to the PMD, record how well the schedule was kept.
//!
//! One task runs per lcore. Frames are prepared a batch ahead (headers from
//! each stream's template, stamp, fill, checksums); just before `tx_burst`
//! the stamp gets the TSC of the moment and the checksums are patched in
//! O(1). Nothing here allocates, locks or prints once the loop runs.

use std::sync::Arc;

use crate::counter::{Padded, StopFlag, TxLive};
use crate::dpdk::{tsc, Mempool, TxBatch, TxOffload, BATCH_MAX};
use crate::pace::measure::{DepartureRecorder, PaceSummary};
use crate::pace::mode::{GapFrames, GapPlanner, TxMode};
use crate::pace::pattern::{Pacer, Pattern};
use crate::pace::rate::Rate;
use crate::pace::schedule::{Schedule, WeightedRoundRobin};
use crate::wire::builder::FrameBuilder;
use crate::wire::pause::{PauseFrame, PauseRepr};
use crate::wire::MacAddr;

/// Frames prepared ahead in spin mode (each still leaves at its own time).
const SPIN_AHEAD: usize = 32;
/// Frames per `tx_burst` in max mode.
const MAX_BURST: usize = 32;

/// Everything a TX lcore needs, prepared on the main lcore.
pub struct TxTask {
    /// The lcore it runs on.
    pub lcore: u32,
    /// DPDK port id.
    pub port: u16,
    /// TX queue.
    pub queue: u16,
    /// Where mbufs come from.
    pub pool: Arc<Mempool>,
    /// One builder per stream.
    pub builders: Vec<FrameBuilder>,
    /// Each stream's share of the rate.
    pub weights: Vec<u32>,
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
}

/// Marks a batch slot that holds a gap frame, not a stream's frame.
const GAP_SLOT: u16 = u16::MAX;

/// Gap mode's state: a planner per stream (frame sizes are fixed per
/// stream in gap mode) and the gap frames still owed after the last data
/// frame, which may span batches.
struct Gaps {
    planners: Vec<GapPlanner>,
    owed: GapFrames,
    next: u32,
    src: [u8; 6],
}

/// Run the task until the stop flag is set.
pub fn run(mut t: TxTask) -> TxOutcome {
    let n_streams = t.builders.len();
    let weights: Vec<(u64, u64)> = t.weights.iter().map(|&w| (u64::from(w), 1)).collect();
    let mut wrr =
        WeightedRoundRobin::new(&weights).expect("the plan gives every task at least one stream");
    let (group, ahead) = match t.mode {
        TxMode::Spin => (1, SPIN_AHEAD),
        TxMode::Burst(n) => (usize::from(n).min(BATCH_MAX), usize::from(n).min(BATCH_MAX)),
        TxMode::Max | TxMode::Gap { .. } => (MAX_BURST, MAX_BURST),
    };
    let waits = t.mode.waits();
    let mut gaps = t.gap.take().map(|(planners, src)| Gaps {
        planners,
        owed: GapFrames::default(),
        next: 0,
        src,
    });
    let mut recorder = DepartureRecorder::new(t.tsc_hz, t.trace_frames as usize);
    let mut seqs = vec![0u64; n_streams];
    let mut sent_frames = vec![0u64; n_streams];
    let mut sent_bytes = vec![0u64; n_streams];
    let mut sent_payload = vec![0u64; n_streams];
    // Bytes of each stream's frames that are not payload: headers + FCS.
    let overhead: Vec<u32> = t
        .builders
        .iter()
        .map(|b| (b.stamp_offset() + 4) as u32)
        .collect();
    let mut due = [0u64; BATCH_MAX];
    let mut size = [0u32; BATCH_MAX];
    let mut stream = [0u16; BATCH_MAX];
    let mut batch = TxBatch::new();
    let offloads: Vec<TxOffload> = t
        .builders
        .iter()
        .map(|b| {
            if t.offload {
                TxOffload::checksums(b.is_ipv6(), b.is_tcp(), b.l2_len() as u8, b.l3_len() as u16)
            } else {
                TxOffload::default()
            }
        })
        .collect();

    let start = tsc::now() + t.tsc_hz / 1000; // first departure 1 ms from now
                                              // Payload-layer rates count each frame's payload: the frame less its
                                              // headers and FCS (the same for every stream of a task; checked when
                                              // the run is planned).
    let schedule = Schedule::new(start, t.tsc_hz, t.rate)
        .expect("the plan validated the rate")
        .with_payload_overhead(overhead.first().copied().unwrap_or(0));
    let mut pacer =
        Pacer::new(t.pattern, schedule, t.line_bps).expect("the plan validated the pattern");
    let live = &t.live;
    let loop_start = tsc::now();
    let mut wait_cycles = 0u64;
    let mut alloc_failed = 0u64;
    let (mut frames, mut bytes, mut gap_frames, mut gap_bytes) = (0u64, 0u64, 0u64, 0u64);

    'run: loop {
        if batch.is_empty() {
            if t.stop.stopped() {
                break;
            }
            if !batch.fill(&t.pool, ahead) {
                alloc_failed += 1;
                continue;
            }
            for i in 0..ahead {
                if let Some(g) = gaps.as_mut().filter(|g| g.next < g.owed.count) {
                    let len = g.owed.len_of(g.next) as usize;
                    g.next += 1;
                    let buf = batch.frame_mut(i, len - 4);
                    let pause = PauseRepr {
                        src: MacAddr(g.src),
                        quanta: 0,
                    };
                    pause.emit(&mut PauseFrame::new_unchecked(buf));
                    batch.set_offload(i, TxOffload::default());
                    stream[i] = GAP_SLOT;
                    size[i] = len as u32;
                    due[i] = 0;
                    continue;
                }
                let s = wrr.next();
                let b = &mut t.builders[s];
                let len = b.next_len();
                let buf = batch.frame_mut(i, len);
                b.write(buf, seqs[s], 0);
                seqs[s] += 1;
                if t.offload {
                    batch.set_offload(i, offloads[s]);
                }
                stream[i] = s as u16;
                size[i] = (len + 4) as u32;
                due[i] = if waits { pacer.next(len + 4) } else { 0 };
                if let Some(g) = gaps.as_mut() {
                    g.owed = g.planners[s].next_gap();
                    g.next = 0;
                }
            }
        }

        // Wait for the head frame's departure time (never, in max and gap
        // modes: their due times are 0).
        let h = batch.head();
        let mut now = tsc::now();
        if now < due[h] {
            let from = now;
            while now < due[h] {
                if t.stop.stopped() {
                    break 'run;
                }
                std::hint::spin_loop();
                now = tsc::now();
            }
            wait_cycles += now - from;
        }
        // Send the group: in spin mode, every prepared frame already due.
        let mut n = group.min(batch.pending());
        if group == 1 {
            while h + n < batch.len() && due[h + n] <= now {
                n += 1;
            }
        }
        for (i, &s) in stream.iter().enumerate().skip(h).take(n) {
            if s != GAP_SLOT {
                t.builders[usize::from(s)].set_tx_tsc(batch.frame(i), now);
            }
        }
        let sent = batch.transmit(t.port, t.queue, n);
        let after = tsc::now();
        if sent < n {
            recorder.refused((n - sent) as u64);
        }
        if sent == 0 {
            // A port that refuses everything (a peer gone) must not hold
            // the run open.
            if t.stop.stopped() {
                break 'run;
            }
            continue;
        }
        let (mut f, mut b) = (0u64, 0u64);
        for i in h..h + sent {
            let s = usize::from(stream[i]);
            let sz = size[i];
            if stream[i] == GAP_SLOT {
                gap_frames += 1;
                gap_bytes += u64::from(sz);
                continue;
            }
            let payload = sz - overhead[s];
            if waits {
                recorder.record_with_payload(due[i], after, sz, payload);
            } else {
                recorder.record_unscheduled(after, sz, payload);
            }
            sent_frames[s] += 1;
            sent_bytes[s] += u64::from(sz);
            sent_payload[s] += u64::from(payload);
            f += 1;
            b += u64::from(sz);
        }
        frames += f;
        bytes += b;
        live.frames.add(f);
        live.bytes.add(b);
    }
    let loop_cycles = tsc::now() - loop_start;
    drop(batch);
    let mut pace = recorder.summary();
    pace.set_target(&t.rate);
    TxOutcome {
        frames,
        bytes,
        gap_frames,
        gap_bytes,
        streams: (0..n_streams)
            .map(|s| {
                (
                    t.stream_ids[s],
                    sent_frames[s],
                    sent_bytes[s],
                    sent_payload[s],
                )
            })
            .collect(),
        pace,
        recorder,
        loop_cycles,
        wait_cycles,
        alloc_failed,
    }
}
