//! The result of a run: what `--json` writes and what the summary prints.

use std::fmt::Write as _;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::config::Plan;
use crate::dpdk::PortStats;
use crate::limits::bus::Bus;
use crate::limits::link::LinkKind;
use crate::limits::verdict::{Observation, Verdict};
use crate::outcome::Outcome;
use crate::pace::measure::{LayerRates, PaceSummary};
use crate::pace::mode::TxMode;
use crate::pace::rate::Rate;
use crate::report::{bytes_str, Interval, Percentiles, L1_OVERHEAD};
use crate::rx::seq::SeqCounts;
use crate::rx::{CorruptCounts, RxOutcome, StreamAcc};
use crate::tx::TxOutcome;

/// A port's view of the run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PortResult {
    /// The profile's name for the port.
    pub name: String,
    /// DPDK's device name.
    pub device: String,
    /// Driver.
    pub driver: String,
    /// Link rate used for line-rate figures, bit/s (0: unknown).
    pub link_bps: u64,
    /// The PMD's counters over the run.
    pub stats: PortStats,
    /// Extended counters that are not zero, in the driver's order.
    pub xstats: Vec<(String, u64)>,
}

/// An RX stream's result, for the report.
#[derive(Clone, Debug, Serialize, Deserialize)]
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

impl StreamResult {
    /// The result of the stream `acc` accounted, at `tsc_hz`.
    pub fn of(acc: &StreamAcc, tsc_hz: u64, shared_tsc: bool) -> Self {
        Self::of_part(&StreamPart::of(acc), tsc_hz, shared_tsc)
    }

    /// The result of a stream's counts `p` (one lcore's, or several
    /// merged), at `tsc_hz`.
    pub fn of_part(p: &StreamPart, tsc_hz: u64, shared_tsc: bool) -> Self {
        StreamResult {
            id: p.id,
            frames: p.frames,
            bytes: p.bytes,
            seq: p.seq,
            corrupt: p.corrupt,
            corrupt_total: p.corrupt.total(),
            latency: shared_tsc.then(|| Percentiles::from_ticks(&p.latency, tsc_hz)),
            interarrival: Percentiles::from_ticks(&p.interarrival, tsc_hz),
        }
    }
}

/// One stream's counts as one RX lcore kept them (histograms in TSC
/// ticks), or the merge of several lcores' counts of the same stream.
#[derive(Clone, Debug)]
pub struct StreamPart {
    /// Stream id.
    pub id: u32,
    /// Frames received (good or corrupt).
    pub frames: u64,
    /// Bytes received, FCS included.
    pub bytes: u64,
    /// Sequence accounting.
    pub seq: SeqCounts,
    /// Corrupt frames by reason.
    pub corrupt: CorruptCounts,
    /// One-way latency, TSC ticks.
    pub latency: Histogram<u64>,
    /// Inter-arrival gaps, TSC ticks (same-poll arrivals as 0).
    pub interarrival: Histogram<u64>,
}

impl StreamPart {
    /// The counts an RX lcore kept of one stream.
    pub fn of(acc: &StreamAcc) -> Self {
        StreamPart {
            id: acc.id,
            frames: acc.frames,
            bytes: acc.bytes,
            seq: acc.seq.counts(),
            corrupt: acc.corrupt,
            latency: acc.latency.clone(),
            interarrival: acc.interarrival_all(),
        }
    }

    /// Adds another lcore's counts of the same stream to these, all but
    /// the sequence accounting (which [`merge_seq`] merges over all the
    /// parts at once).
    fn absorb(&mut self, o: &StreamPart) {
        self.frames += o.frames;
        self.bytes += o.bytes;
        add_corrupt(&mut self.corrupt, &o.corrupt);
        add_histogram(&mut self.latency, &o.latency);
        add_histogram(&mut self.interarrival, &o.interarrival);
    }
}

/// `h += o`, with hdrhistogram's `add`; values beyond `h`'s bounds (never
/// the case for histograms made alike) are clamped into them.
fn add_histogram(h: &mut Histogram<u64>, o: &Histogram<u64>) {
    if h.add(o).is_err() {
        for v in o.iter_recorded() {
            h.saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
    }
}

/// `c += o`, reason by reason.
fn add_corrupt(c: &mut CorruptCounts, o: &CorruptCounts) {
    c.ip_checksum += o.ip_checksum;
    c.l4_checksum += o.l4_checksum;
    c.stamp += o.stamp;
    c.payload += o.payload;
    c.length += o.length;
}

/// The sequence accounting of one stream counted in parts (on several RX
/// lcores, each seeing some of its frames), as one. Exact when no
/// sequence number reached two parts: `unique`, `lost` (the expected range,
/// from the lowest first sequence number of any part to the highest seen,
/// less the unique frames of all parts), `max_seq`, `stale`. `duplicated`
/// and `reordered` are each part's own, summed: a copy that went to
/// another lcore, or an order between frames of two lcores, is not seen
/// (then `unique` is an upper bound and `lost` a lower one).
pub fn merge_seq(parts: &[SeqCounts]) -> SeqCounts {
    // Each part's first expected sequence number: its range less its
    // unique frames is its lost count.
    let seen = parts.iter().filter(|p| p.unique > 0);
    let first = seen
        .clone()
        .map(|p| (p.max_seq + 1).saturating_sub(p.lost + p.unique))
        .min();
    let max_seq = seen.map(|p| p.max_seq).max();
    let sum = |f: fn(&SeqCounts) -> u64| parts.iter().map(f).fold(0, u64::saturating_add);
    let unique = sum(|p| p.unique);
    SeqCounts {
        unique,
        lost: match (first, max_seq) {
            (Some(a), Some(b)) => (b + 1 - a).saturating_sub(unique),
            _ => 0,
        },
        reordered: sum(|p| p.reordered),
        duplicated: sum(|p| p.duplicated),
        stale: sum(|p| p.stale),
        max_seq: max_seq.unwrap_or(0),
        reorder_extent_max: parts
            .iter()
            .map(|p| p.reorder_extent_max)
            .max()
            .unwrap_or(0),
        reorder_extent_sum: sum(|p| p.reorder_extent_sum),
    }
}

/// `parts` merged per stream id, in the order each id first appears.
pub fn merge_streams(parts: impl IntoIterator<Item = StreamPart>) -> Vec<StreamPart> {
    let mut out: Vec<(StreamPart, Vec<SeqCounts>)> = Vec::new();
    for p in parts {
        match out.iter_mut().find(|(s, _)| s.id == p.id) {
            Some((s, seqs)) => {
                s.absorb(&p);
                seqs.push(p.seq);
            }
            None => {
                let seq = p.seq;
                out.push((p, vec![seq]));
            }
        }
    }
    out.into_iter()
        .map(|(mut s, seqs)| {
            s.seq = merge_seq(&seqs);
            s
        })
        .collect()
}

/// One TX stream's totals.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TxStreamResult {
    /// Stream id (as stamped).
    pub id: u32,
    /// Stream name.
    pub name: String,
    /// Frames sent.
    pub frames: u64,
    /// Bytes sent, FCS included.
    pub bytes: u64,
    /// Payload bytes sent.
    pub payload_bytes: u64,
}

/// One TX lcore's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TxTaskResult {
    /// Its lcore.
    pub lcore: u32,
    /// Its port id and queue.
    pub port: u16,
    /// Its queue.
    pub queue: u16,
    /// The target rate's layer (`l1`, `l2`, `payload`, `frames`).
    pub target_layer: String,
    /// The target in that layer's unit per second.
    pub target_per_sec: u64,
    /// Frames sent.
    pub frames: u64,
    /// Bytes sent, FCS included.
    pub bytes: u64,
    /// LayerRates from first to last departure on the TSC (from `pace`).
    pub achieved: LayerRates,
    /// Achieved ÷ target at the target's layer, in percent.
    pub achieved_pct: f64,
    /// TSC cycles of the loop per frame sent, time spent waiting for
    /// departure times left out: the cost of building and sending a frame.
    pub cycles_per_frame: f64,
    /// Share of the loop's cycles not spent waiting, in percent: how busy
    /// the lcore was keeping this rate.
    pub busy_pct: f64,
    /// TX mode (`spin`, `burst 32`, `gap`, `max`).
    pub mode: String,
    /// Whether the mode waits for departure times (spin, burst): only then
    /// is the schedule error meaningful.
    pub schedule_kept: bool,
    /// Gap frames sent (gap mode).
    pub gap_frames: u64,
    /// Their bytes, FCS included.
    pub gap_bytes: u64,
    /// Times a batch of mbufs could not be allocated (pool empty: the PMD
    /// held every mbuf); each was retried at once.
    pub alloc_failed: u64,
    /// Gap mode: the data's L1 rate on a link of the port's speed that
    /// sends data and gap frames back to back.
    pub link_paced_l1_bps: Option<f64>,
    /// The port's line rate (L1 bit/s) the task ran against.
    pub line_bps: u64,
    /// Achieved L1 rate as a share of that line rate, in percent (above
    /// 100 in `max` mode on a device with no real line rate, such as the
    /// null PMD: how far past line rate one lcore goes).
    pub line_pct: f64,
    /// Schedule keeping.
    pub pace: PaceSummary,
}

/// The sender's side of a run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TxResult {
    /// Frames handed to the PMD, as landspeed counted them.
    pub frames: u64,
    /// Their bytes, FCS included.
    pub bytes: u64,
    /// Gap frames sent (gap mode), not counted in `frames`.
    pub gap_frames: u64,
    /// Frames the PMD counted (`opackets` over the TX ports): `frames +
    /// gap_frames` when nothing else sends on those ports.
    pub pmd_frames: u64,
    /// Transmit errors the PMD counted.
    pub pmd_errors: u64,
    /// LayerRates over the measured time (all tasks).
    pub achieved: LayerRates,
    /// Per task.
    pub tasks: Vec<TxTaskResult>,
    /// Per stream.
    pub streams: Vec<TxStreamResult>,
}

impl TxResult {
    /// Sets what the sender offered in `obs`: its achieved L2 rate and
    /// frames/s, and the L2 rate its tasks were asked for (if any set one).
    pub fn offer_to(&self, obs: &mut Observation) {
        let target: f64 = self
            .tasks
            .iter()
            .filter_map(|k| k.pace.target.map(|r| r.l2_bps))
            .sum();
        obs.offered_bps = self.achieved.l2_bps;
        obs.offered_fps = self.achieved.fps;
        obs.target_bps = (target > 0.0).then_some(target);
    }
}

/// One RX lcore's cost.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RxTaskResult {
    /// Its lcore.
    pub lcore: u32,
    /// Its port.
    pub port: u16,
    /// Frames it received.
    pub frames: u64,
    /// Bytes, FCS included.
    pub bytes: u64,
    /// Busy cycles per frame (polls that returned frames).
    pub cycles_per_frame: f64,
    /// Busy cycles per byte.
    pub cycles_per_byte: f64,
    /// Share of the loop's cycles spent busy, in percent.
    pub utilisation_pct: f64,
    /// Polls that returned nothing.
    pub idle_polls: u64,
    /// Frames/s this lcore could sustain at most (TSC Hz ÷ cycles/frame).
    pub max_fps: f64,
}

/// Frames of no stream the receiver checks, by why. `overflow` (streams
/// beyond what an lcore tracks) is not among them: those are landspeed's
/// frames of a stream that should have been checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ForeignCounts {
    /// No landspeed stamp: other protocols, other traffic.
    pub not_landspeed: u64,
    /// Too short to hold a stamp.
    pub too_short: u64,
    /// A stamp of a format version this build does not know.
    pub unknown_version: u64,
    /// A landspeed frame of a stream the RX task's `streams:` list leaves
    /// out.
    pub untracked_stream: u64,
}

impl ForeignCounts {
    /// All foreign frames.
    pub fn total(&self) -> u64 {
        self.not_landspeed + self.too_short + self.unknown_version + self.untracked_stream
    }

    /// The breakdown as printed: `not landspeed 3, too short 3, ...`.
    pub fn text(&self) -> String {
        format!(
            "not landspeed {}, too short {}, unknown stamp version {}, stream not checked {}",
            self.not_landspeed, self.too_short, self.unknown_version, self.untracked_stream
        )
    }
}

/// The receiver's side of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RxResult {
    /// Frames received (every kind).
    pub frames: u64,
    /// Their bytes, FCS included.
    pub bytes: u64,
    /// Frames of ours that checked out.
    pub good: u64,
    /// Lost: the sequence gaps over all streams (each counted from the
    /// stream's first frame seen), less the corrupt frames whose stamp could
    /// not be read (each left a gap in a stream that cannot be told, and is
    /// counted corrupt, not also lost).
    pub lost: u64,
    /// Reordered (RFC 4737: arrived below the next expected sequence
    /// number), over all streams.
    pub reordered: u64,
    /// Reordered frames over distinct frames received (RFC 4737's
    /// reordered ratio), over all streams.
    #[serde(default)]
    pub reordered_ratio: f64,
    /// Largest reordering extent (RFC 4737 section 4.2) of any stream.
    #[serde(default)]
    pub reorder_extent_max: u64,
    /// Duplicated, over all streams.
    pub duplicated: u64,
    /// Corrupt, over all streams and unattributed.
    pub corrupt: u64,
    /// Frames of no stream this receiver checks, for any reason: the sum
    /// of `foreign_breakdown` (the printed `foreign` is the same figure).
    pub foreign: u64,
    /// Why those frames were foreign.
    #[serde(default)]
    pub foreign_breakdown: ForeignCounts,
    /// Corrupt frames whose stream could not be told.
    pub corrupt_unattributed: CorruptCounts,
    /// Frames of streams beyond what one lcore tracks.
    pub overflow: u64,
    /// How latency was measured: `one-way (shared TSC)` or
    /// `inter-arrival only (separate clocks)`.
    pub latency_kind: String,
    /// LayerRates over the measured time.
    pub achieved: LayerRates,
    /// Per stream.
    pub streams: Vec<StreamResult>,
    /// Per lcore.
    pub tasks: Vec<RxTaskResult>,
    /// The PMD's counters summed over the RX ports.
    pub pmd: PortStats,
}

/// Everything about one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunResult {
    /// landspeed version.
    pub landspeed: String,
    /// DPDK version.
    pub dpdk: String,
    /// Where the profile came from.
    pub profile: String,
    /// TSC frequency used (measured against the monotonic clock at start).
    pub tsc_hz: u64,
    /// TSC frequency measured over the whole run (a check on `tsc_hz`).
    pub tsc_hz_run: u64,
    /// Measured seconds.
    pub elapsed_s: f64,
    /// Ports.
    pub ports: Vec<PortResult>,
    /// Interval rows.
    pub intervals: Vec<Interval>,
    /// The sender's side.
    pub tx: Option<TxResult>,
    /// The receiver's side.
    pub rx: Option<RxResult>,
    /// What limited the run (runs with an RX side).
    pub verdict: Option<Verdict>,
    /// What the verdict was decided on (absent in results written before
    /// it was kept).
    #[serde(default)]
    pub observation: Option<Observation>,
    /// Mbufs not back in their pools after the ports were closed (0 unless
    /// something leaked).
    pub mbufs_leaked: u64,
    /// How the run ended and what casts doubt on its figures (absent in
    /// results written before it was kept: read as a clean, complete run).
    #[serde(default)]
    pub outcome: Outcome,
}

impl RunResult {
    /// The skeleton of a result; the caller fills `tx`, `rx`, `verdict`.
    pub fn new(
        plan: &Plan,
        tsc_hz: u64,
        tsc_hz_run: u64,
        elapsed_s: f64,
        ports: Vec<PortResult>,
        intervals: Vec<Interval>,
    ) -> Self {
        Self {
            landspeed: env!("CARGO_PKG_VERSION").to_string(),
            dpdk: crate::dpdk::dpdk_version().to_string(),
            profile: plan.origin.clone(),
            tsc_hz,
            tsc_hz_run,
            elapsed_s,
            ports,
            intervals,
            tx: None,
            rx: None,
            verdict: None,
            observation: None,
            mbufs_leaked: 0,
            outcome: Outcome::default(),
        }
    }

    /// What the verdict is computed from: this run's rates and costs, the
    /// receiving port's link and bus.
    pub fn observation(
        &self,
        link: Option<LinkKind>,
        bus: Option<Bus>,
        plan: &Plan,
    ) -> Observation {
        let rx = self.rx.as_ref();
        let tx = self.tx.as_ref();
        let delivered_fps = rx.map_or(0.0, |r| r.achieved.fps);
        let delivered_bps = rx.map_or(0.0, |r| r.achieved.l2_bps);
        let frame_size = rx
            .filter(|r| r.frames > 0)
            .map(|r| (r.bytes / r.frames) as u32)
            .unwrap_or(0);
        let (cpf, util) = match rx {
            Some(r) if !r.tasks.is_empty() => {
                // The busiest lcore binds first.
                let t = r
                    .tasks
                    .iter()
                    .max_by(|a, b| a.cycles_per_frame.total_cmp(&b.cycles_per_frame))
                    .expect("non-empty");
                let n = r.tasks.len() as f64;
                (
                    Some(t.cycles_per_frame / n),
                    Some(t.utilisation_pct / 100.0),
                )
            }
            _ => (None, None),
        };
        let lost = rx.map_or(0, |r| r.lost);
        let imissed = rx.map_or(0, |r| r.pmd.imissed);
        let mut obs = Observation {
            frame_size,
            offered_bps: 0.0,
            delivered_bps,
            offered_fps: 0.0,
            delivered_fps,
            target_bps: None,
            link,
            bus,
            rx_cycles_per_frame: cpf,
            tsc_hz: self.tsc_hz as f64,
            rx_utilisation: util,
            imissed,
            rx_nombuf: rx.map_or(0, |r| r.pmd.rx_nombuf),
            lost_in_network: lost.saturating_sub(imissed),
            drops_hidden: self.ports.iter().any(|p| {
                plan.rx.iter().any(|r| plan.ports[r.port].name == p.name)
                    && (p.driver == "net_af_packet" || p.driver == "net_memif")
            }),
        };
        if let Some(t) = tx {
            t.offer_to(&mut obs);
        }
        obs
    }

    /// Decide the verdict of this run (the receiving port's `link` and
    /// `bus`), keeping the observation it was decided on, so that
    /// `landspeed report` can decide again with the sender's rate.
    pub fn judge(&mut self, link: Option<LinkKind>, bus: Option<Bus>, plan: &Plan) {
        let obs = self.observation(link, bus, plan);
        self.verdict = Some(obs.verdict());
        self.observation = Some(obs);
    }

    /// The human summary printed after the interval lines.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -"
        );
        if let Some(tx) = &self.tx {
            tx_lines(&mut s, tx, self.elapsed_s);
        }
        if let Some(rx) = &self.rx {
            rx_lines(&mut s, rx, self.elapsed_s);
        }
        if let Some(v) = &self.verdict {
            verdict_lines(&mut s, v);
        }
        if self.mbufs_leaked > 0 {
            let _ = writeln!(
                s,
                "warning: {} mbufs were not back in their pools after the ports closed",
                self.mbufs_leaked
            );
        }
        s.push_str(&self.outcome.warning_lines());
        s
    }
}

/// The `[TX]` part of the summary.
fn tx_lines(s: &mut String, tx: &TxResult, elapsed_s: f64) {
    let _ = writeln!(
        s,
        "[TX]  0.00-{:.2} sec  {} frames  {}  L1 {:.4} Gbit/s  L2 {:.4} Gbit/s  payload {:.4} Gbit/s  {:.4} Mpps",
        elapsed_s,
        tx.frames,
        bytes_str(tx.bytes),
        tx.achieved.l1_bps / 1e9,
        tx.achieved.l2_bps / 1e9,
        tx.achieved.payload_bps / 1e9,
        tx.achieved.fps / 1e6
    );
    let agree = if tx.pmd_frames == tx.frames {
        "agrees"
    } else {
        "DIFFERS"
    };
    let _ = writeln!(
        s,
        "      PMD counted {} frames sent ({agree}), {} errors",
        tx.pmd_frames, tx.pmd_errors
    );
    for t in &tx.tasks {
        tx_task_lines(s, t);
    }
    for st in &tx.streams {
        let _ = writeln!(
            s,
            "      stream {} ({}): {} frames, {}",
            st.id,
            st.name,
            st.frames,
            bytes_str(st.bytes)
        );
    }
}

/// One TX lcore's lines of the summary.
fn tx_task_lines(s: &mut String, t: &TxTaskResult) {
    let _ = writeln!(
        s,
        "      lcore {} port {} queue {}: target {} {}/s, achieved {:.4} % ({:.4} Gbit/s L1, {:.0} frames/s), {:.0} cycles/frame, busy {:.1} %",
        t.lcore,
        t.port,
        t.queue,
        t.target_per_sec,
        t.target_layer,
        t.achieved_pct,
        t.achieved.l1_bps / 1e9,
        t.achieved.fps,
        t.cycles_per_frame,
        t.busy_pct
    );
    if t.line_bps > 0 {
        let _ = writeln!(
            s,
            "        {:.3} % of the {:.3} Gbit/s line rate (L1)",
            t.line_pct,
            t.line_bps as f64 / 1e9
        );
    }
    if t.schedule_kept {
        let _ = writeln!(s, "        {}", t.pace.one_line());
    } else {
        let _ = writeln!(
            s,
            "        {} mode keeps no schedule: frames go as fast as the port takes them; gap mean {:.1} ns sd {:.1} ns",
            t.mode, t.pace.gap_ns.mean, t.pace.gap_ns.stddev
        );
    }
    if t.alloc_failed > 0 {
        let _ = writeln!(
            s,
            "        mbuf pool empty {} times (the PMD held every mbuf; retried)",
            t.alloc_failed
        );
    }
    if let Some(l1) = t.link_paced_l1_bps {
        let _ = writeln!(
            s,
            "        gap frames: {} ({}); on a line-rate link the data would leave at {:.4} Gbit/s L1",
            t.gap_frames,
            bytes_str(t.gap_bytes),
            l1 / 1e9
        );
    }
}

/// The `[RX]` part of the summary.
fn rx_lines(s: &mut String, rx: &RxResult, elapsed_s: f64) {
    let _ = writeln!(
        s,
        "[RX]  0.00-{:.2} sec  {} frames  {}  L2 {:.4} Gbit/s  {:.4} Mpps  good {}  lost {}  reordered {}{}  duplicated {}  corrupt {}  foreign {}",
        elapsed_s,
        rx.frames,
        bytes_str(rx.bytes),
        rx.achieved.l2_bps / 1e9,
        rx.achieved.fps / 1e6,
        rx.good,
        rx.lost,
        rx.reordered,
        reorder_detail(rx.reordered_ratio, rx.reorder_extent_max),
        rx.duplicated,
        rx.corrupt,
        rx.foreign
    );
    if rx.foreign > 0 {
        let _ = writeln!(
            s,
            "      foreign {}: {}",
            rx.foreign,
            rx.foreign_breakdown.text()
        );
    }
    let _ = writeln!(
        s,
        "      PMD: ipackets {} imissed {} ierrors {} rx_nombuf {}",
        rx.pmd.ipackets, rx.pmd.imissed, rx.pmd.ierrors, rx.pmd.rx_nombuf
    );
    for st in &rx.streams {
        let lat = match &st.latency {
            Some(p) if p.count > 0 => format!("latency {}", p.short()),
            _ => format!("inter-arrival {}", st.interarrival.short()),
        };
        let _ = writeln!(
            s,
            "      stream {}: {} frames, lost {}, reordered {}{}, duplicated {}, corrupt {}, {}",
            st.id,
            st.frames,
            st.seq.lost,
            st.seq.reordered,
            reorder_detail(st.seq.reordered_ratio(), st.seq.reorder_extent_max),
            st.seq.duplicated,
            st.corrupt_total,
            lat
        );
    }
    for t in &rx.tasks {
        let _ = writeln!(
            s,
            "      RX lcore {}: {:.1} cycles/frame, {:.3} cycles/byte, busy {:.1} %, could sustain {:.3} Mframes/s",
            t.lcore,
            t.cycles_per_frame,
            t.cycles_per_byte,
            t.utilisation_pct,
            t.max_fps / 1e6
        );
    }
    let _ = writeln!(s, "      latency: {}", rx.latency_kind);
}

/// The verdict's lines of the summary.
fn verdict_lines(s: &mut String, v: &Verdict) {
    let _ = writeln!(s, "verdict: {} bound the run", v.binding.as_str());
    let _ = writeln!(s, "      {}", v.explanation);
    for c in &v.ceilings {
        let head = c
            .headroom_pct
            .map(|h| format!("{h:+.1} % vs delivered"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "      ceiling {:<8} {:<44} {:>12.0} frames/s {:>9.3} Gbit/s L2  {head}",
            c.limit.as_str(),
            c.name,
            c.fps,
            c.bps_l2 / 1e9
        );
    }
}

/// What the runtime knew of a TX task before it ran.
#[derive(Clone, Copy, Debug)]
pub struct TxMeta {
    /// Its lcore.
    pub lcore: u32,
    /// DPDK port id.
    pub port: u16,
    /// TX queue.
    pub queue: u16,
    /// Target rate.
    pub rate: Rate,
    /// TX mode.
    pub mode: TxMode,
    /// The port's link rate, bit/s.
    pub line_bps: u64,
}

/// Build the TX side from the workers' outcomes.
pub(crate) fn tx_result(
    meta: &[TxMeta],
    names: &[(u32, String)],
    outcomes: &[TxOutcome],
    pmd: (u64, u64),
) -> TxResult {
    let mut tasks = Vec::new();
    let mut streams: Vec<TxStreamResult> = Vec::new();
    for (o, m) in outcomes.iter().zip(meta) {
        tasks.push(tx_task_result(o, m));
        add_tx_streams(&mut streams, names, o);
    }
    let frames: u64 = outcomes.iter().map(|o| o.frames).sum();
    let bytes: u64 = outcomes.iter().map(|o| o.bytes).sum();
    TxResult {
        frames,
        bytes,
        gap_frames: outcomes.iter().map(|o| o.gap_frames).sum(),
        pmd_frames: pmd.0,
        pmd_errors: pmd.1,
        // Each task's rates run from its first to its last departure on the
        // TSC; tasks run side by side, so their rates add up.
        achieved: tasks.iter().fold(LayerRates::default(), |a, t| LayerRates {
            fps: a.fps + t.achieved.fps,
            l1_bps: a.l1_bps + t.achieved.l1_bps,
            l2_bps: a.l2_bps + t.achieved.l2_bps,
            payload_bps: a.payload_bps + t.achieved.payload_bps,
        }),
        tasks,
        streams,
    }
}

/// One TX lcore's result from its outcome and what was planned for it.
fn tx_task_result(o: &TxOutcome, m: &TxMeta) -> TxTaskResult {
    let (lcore, port, queue, rate) = (m.lcore, m.port, m.queue, m.rate);
    let p = &o.pace;
    let achieved = p.achieved;
    TxTaskResult {
        lcore,
        port,
        queue,
        target_layer: rate.layer().name().to_string(),
        target_per_sec: rate.per_sec(),
        frames: o.frames,
        bytes: o.bytes,
        achieved,
        achieved_pct: p.achieved_ratio(rate.layer()).unwrap_or(0.0) * 100.0,
        cycles_per_frame: if o.frames > 0 {
            o.loop_cycles.saturating_sub(o.wait_cycles) as f64 / o.frames as f64
        } else {
            0.0
        },
        busy_pct: if o.loop_cycles > 0 {
            o.loop_cycles.saturating_sub(o.wait_cycles) as f64 * 100.0 / o.loop_cycles as f64
        } else {
            0.0
        },
        mode: m.mode.to_string(),
        line_bps: m.line_bps,
        line_pct: if m.line_bps > 0 {
            achieved.l1_bps * 100.0 / m.line_bps as f64
        } else {
            0.0
        },
        schedule_kept: m.mode.waits(),
        gap_frames: o.gap_frames,
        gap_bytes: o.gap_bytes,
        alloc_failed: o.alloc_failed,
        link_paced_l1_bps: matches!(m.mode, TxMode::Gap { .. }).then(|| {
            // On a link that sends data and gap frames back to back,
            // data takes this share of the line.
            let data = (o.bytes + o.frames * L1_OVERHEAD) as f64;
            let gap = (o.gap_bytes + o.gap_frames * L1_OVERHEAD) as f64;
            if data + gap > 0.0 {
                m.line_bps as f64 * data / (data + gap)
            } else {
                0.0
            }
        }),
        pace: p.clone(),
    }
}

/// Adds a TX lcore's per-stream counts to `streams` (a stream sent from
/// several lcores is one entry).
fn add_tx_streams(streams: &mut Vec<TxStreamResult>, names: &[(u32, String)], o: &TxOutcome) {
    for &(id, frames, bytes, payload) in &o.streams {
        let name = names
            .iter()
            .find(|n| n.0 == id)
            .map(|n| n.1.clone())
            .unwrap_or_default();
        match streams.iter_mut().find(|s| s.id == id) {
            Some(s) => {
                s.frames += frames;
                s.bytes += bytes;
                s.payload_bytes += payload;
            }
            None => streams.push(TxStreamResult {
                id,
                name,
                frames,
                bytes,
                payload_bytes: payload,
            }),
        }
    }
}

/// The reordered ratio (in %) and the largest extent, after a reordered
/// count: nothing when no frame was reordered.
fn reorder_detail(ratio: f64, extent_max: u64) -> String {
    if extent_max == 0 && ratio == 0.0 {
        String::new()
    } else {
        format!(" ({:.4} %, extent max {extent_max})", ratio * 100.0)
    }
}

/// Build the RX side from the workers' outcomes.
pub(crate) fn rx_result(
    meta: &[(u32, u16)],
    outcomes: &[RxOutcome],
    pmd: PortStats,
    secs: f64,
    tsc_hz: u64,
    shared_tsc: bool,
) -> RxResult {
    let mut tasks = Vec::new();
    let mut r = RxResult {
        latency_kind: if shared_tsc {
            "one-way, from the stamp's TX TSC (sender and receiver share a TSC)".into()
        } else {
            "inter-arrival only (sender and receiver clocks are separate)".into()
        },
        pmd,
        ..RxResult::default()
    };
    let mut payload = 0u64;
    for (o, &(lcore, port)) in outcomes.iter().zip(meta) {
        r.frames += o.frames;
        r.bytes += o.bytes;
        let f = &mut r.foreign_breakdown;
        f.not_landspeed += o.foreign;
        f.too_short += o.too_short;
        f.unknown_version += o.unknown_version;
        r.overflow += o.overflow;
        add_corrupt(&mut r.corrupt_unattributed, &o.corrupt_unattributed);
        tasks.push(rx_task_result(o, lcore, port, tsc_hz));
        payload += o.payload_bytes;
    }
    // A stream spread over several lcores (RSS over queues polled by
    // different lcores) is one stream: its parts are merged.
    let parts = outcomes
        .iter()
        .flat_map(|o| o.streams.iter().map(StreamPart::of));
    let streams: Vec<StreamResult> = merge_streams(parts)
        .iter()
        .map(|p| StreamResult::of_part(p, tsc_hz, shared_tsc))
        .collect();
    for s in &streams {
        r.lost += s.seq.lost;
        r.reordered += s.seq.reordered;
        r.duplicated += s.seq.duplicated;
        r.corrupt += s.corrupt_total;
        r.good += s.frames - s.corrupt_total;
    }
    r.corrupt += r.corrupt_unattributed.total();
    r.foreign = r.foreign_breakdown.total();
    // A corrupt frame whose stamp could not be read is counted corrupt; the
    // gap it left in its stream's sequence is not counted lost as well.
    r.lost = r.lost.saturating_sub(r.corrupt_unattributed.total());
    let unique: u64 = streams.iter().map(|s| s.seq.unique).sum();
    r.reordered_ratio = if unique > 0 {
        r.reordered as f64 / unique as f64
    } else {
        0.0
    };
    r.reorder_extent_max = streams
        .iter()
        .map(|s| s.seq.reorder_extent_max)
        .max()
        .unwrap_or(0);
    r.achieved = rx_achieved(outcomes, r.frames, r.bytes, payload, secs, tsc_hz);
    r.streams = streams;
    r.tasks = tasks;
    r
}

/// One RX lcore's result from its outcome.
fn rx_task_result(o: &RxOutcome, lcore: u32, port: u16, tsc_hz: u64) -> RxTaskResult {
    // Cost per frame over the span the delivered rate is measured on,
    // so that a saturated lcore's ceiling equals what it delivered.
    let cpf = if o.frames > 1 && o.span_busy_cycles > 0 {
        o.span_busy_cycles as f64 / (o.frames - 1) as f64
    } else if o.frames > 0 {
        o.busy_cycles as f64 / o.frames as f64
    } else {
        0.0
    };
    RxTaskResult {
        lcore,
        port,
        frames: o.frames,
        bytes: o.bytes,
        cycles_per_frame: cpf,
        cycles_per_byte: if o.bytes > 0 {
            cpf * o.frames as f64 / o.bytes as f64
        } else {
            0.0
        },
        utilisation_pct: if o.loop_cycles > 0 {
            o.busy_cycles as f64 * 100.0 / o.loop_cycles as f64
        } else {
            0.0
        },
        idle_polls: o.idle_polls,
        max_fps: if cpf > 0.0 { tsc_hz as f64 / cpf } else { 0.0 },
    }
}

/// The RX rates over the arrival span of every lcore.
fn rx_achieved(
    outcomes: &[RxOutcome],
    frames: u64,
    bytes: u64,
    payload: u64,
    secs: f64,
    tsc_hz: u64,
) -> LayerRates {
    // From the first to the last arrival on the TSC (as TX rates run from
    // the first to the last departure), counting every frame but those of
    // the first poll; the measured time when too few frames arrived.
    let first = outcomes
        .iter()
        .map(|o| o.first_rx_tsc)
        .filter(|&t| t > 0)
        .min();
    let last = outcomes.iter().map(|o| o.last_rx_tsc).max();
    match (first, last) {
        (Some(a), Some(b)) if b > a && frames > 1 => {
            let span = (b - a) as f64 / tsc_hz as f64;
            let k = (frames - 1) as f64 / frames as f64;
            LayerRates::of(frames, bytes, payload, span / k)
        }
        _ => LayerRates::of(frames, bytes, payload, secs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx::seq::SeqTracker;

    /// One lcore's part of stream 7: the sequence numbers it saw.
    fn part(seqs: &[u64], gaps: &[u64]) -> StreamPart {
        let mut t = SeqTracker::new(0);
        for &s in seqs {
            t.record(s);
        }
        let hist = || Histogram::new_with_bounds(1, 1_000_000, 3).unwrap();
        let mut interarrival = hist();
        for &g in gaps {
            interarrival.record(g).unwrap();
        }
        StreamPart {
            id: 7,
            frames: seqs.len() as u64,
            bytes: 100 * seqs.len() as u64,
            seq: t.counts(),
            corrupt: CorruptCounts {
                payload: 1,
                ..CorruptCounts::default()
            },
            latency: hist(),
            interarrival,
        }
    }

    #[test]
    fn a_stream_split_over_two_lcores_is_merged_exactly() {
        // Sequence numbers 0..=99 but 40 and 41, spread over two lcores by
        // parity: each alone sees every other frame missing.
        let even: Vec<u64> = (0..100)
            .filter(|s: &u64| s.is_multiple_of(2) && *s != 40)
            .collect();
        let odd: Vec<u64> = (0..100).filter(|s| s % 2 == 1 && *s != 41).collect();
        let (a, b) = (part(&even, &[10, 20]), part(&odd, &[30]));
        assert_eq!((a.seq.lost, b.seq.lost), (50, 51), "each part alone");
        let other = StreamPart {
            id: 8,
            ..part(&[0], &[])
        };
        let merged = merge_streams([a, other, b]);
        assert_eq!(merged.iter().map(|p| p.id).collect::<Vec<_>>(), [7, 8]);
        let m = &merged[0];
        assert_eq!((m.frames, m.bytes), (98, 9800));
        assert_eq!(
            m.seq,
            SeqCounts {
                unique: 98,
                lost: 2,
                reordered: 0,
                duplicated: 0,
                stale: 0,
                max_seq: 99,
                reorder_extent_max: 0,
                reorder_extent_sum: 0,
            }
        );
        assert_eq!(m.corrupt.payload, 2);
        assert_eq!(m.interarrival.len(), 3);
        assert_eq!(m.interarrival.max(), 30);
        let r = StreamResult::of_part(m, 1_000_000_000, false);
        assert_eq!((r.frames, r.seq.lost, r.corrupt_total), (98, 2, 2));
    }

    #[test]
    fn merged_loss_counts_from_the_lowest_first_frame() {
        // Parts that start late (trackers based at their first frame, as
        // when the receiver came up after the sender): the range runs from
        // the lowest first sequence number of any part.
        let a = SeqCounts {
            unique: 5,
            lost: 0,
            max_seq: 14,
            ..SeqCounts::default()
        };
        let b = SeqCounts {
            unique: 3,
            lost: 1,
            max_seq: 20,
            ..SeqCounts::default()
        };
        // a covers 10..=14, b 17..=20: 10..=20 is 11 expected, 8 unique.
        assert_eq!(merge_seq(&[a, b]).lost, 3);
        assert_eq!(merge_seq(&[a]), a);
        assert_eq!(merge_seq(&[]), SeqCounts::default());
    }

    #[test]
    fn foreign_is_one_figure_in_the_json_and_the_summary() {
        let o = RxOutcome {
            frames: 10,
            bytes: 640,
            foreign: 3,
            too_short: 2,
            unknown_version: 1,
            overflow: 4,
            ..RxOutcome::default()
        };
        let r = rx_result(
            &[(1, 0)],
            &[o],
            PortStats::default(),
            1.0,
            1_000_000_000,
            false,
        );
        assert_eq!(r.foreign, 6);
        assert_eq!(
            r.foreign_breakdown,
            ForeignCounts {
                not_landspeed: 3,
                too_short: 2,
                unknown_version: 1,
                untracked_stream: 0,
            }
        );
        assert_eq!(r.overflow, 4, "overflow is not foreign");
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["foreign"], 6);
        assert_eq!(json["foreign_breakdown"]["not_landspeed"], 3);
        let run = RunResult {
            landspeed: String::new(),
            dpdk: String::new(),
            profile: String::new(),
            tsc_hz: 1_000_000_000,
            tsc_hz_run: 1_000_000_000,
            elapsed_s: 1.0,
            ports: Vec::new(),
            intervals: Vec::new(),
            tx: None,
            rx: Some(r),
            verdict: None,
            observation: None,
            mbufs_leaked: 0,
            outcome: Outcome::default(),
        };
        let text = run.summary();
        assert!(text.contains("  foreign 6\n"), "{text}");
        assert!(
            text.contains(
                "      foreign 6: not landspeed 3, too short 2, unknown stamp version 1, \
                 stream not checked 0\n"
            ),
            "{text}"
        );
    }
}
