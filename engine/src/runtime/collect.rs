//! Collecting a run: the [`RunResult`] parts built from the workers'
//! outcomes once they stopped (each TX task's rates, targets and PMD
//! agreement; each RX task's streams merged across lcores and queues).

use crate::config::Plan;
use crate::dpdk::PortStats;
use crate::limits::bus::Bus;
use crate::limits::link::LinkKind;
use crate::limits::port_errors;
use crate::limits::verdict::Observation;
use crate::outcome::Problem;
use crate::pace::measure::LayerRates;
use crate::pace::mode::TxMode;
use crate::pace::pattern::Pattern;
use crate::pace::rate::{Layer, Rate};
use crate::result::*;
use crate::rx::RxOutcome;
use crate::tx::TxOutcome;
use crate::units::L1_OVERHEAD;

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
    /// The port has a line rate (false on the virtual devices null, ring,
    /// pcap and memif).
    pub has_line: bool,
    /// Where `line_bps` comes from.
    pub line_source: LineSource,
    /// How departures are spread (the tolerance of a random or bursty
    /// pattern is wider).
    pub pattern: Pattern,
}

/// Build the TX side from the workers' outcomes.
pub(crate) fn tx_result(
    meta: &[TxMeta],
    names: &[(u32, String)],
    outcomes: &[TxOutcome],
    pmd: &PortStats,
    tsc_hz: u64,
) -> TxResult {
    let mut tasks = Vec::new();
    let mut streams: Vec<TxStreamResult> = Vec::new();
    for (o, m) in outcomes.iter().zip(meta) {
        tasks.push(tx_task_result(o, m, tsc_hz));
        add_tx_streams(&mut streams, names, o);
    }
    let gap_frames: u64 = outcomes.iter().map(|o| o.gap_frames).sum();
    let gap_bytes: u64 = outcomes.iter().map(|o| o.gap_bytes).sum();
    let judged: Vec<bool> = tasks.iter().filter_map(|t| t.target_met).collect();
    let frames: u64 = outcomes.iter().map(|o| o.frames).sum();
    let bytes: u64 = outcomes.iter().map(|o| o.bytes).sum();
    TxResult {
        frames,
        bytes,
        gap_frames,
        pmd_frames: pmd.opackets,
        pmd_agrees: pmd.opackets == frames + gap_frames,
        gap_bytes,
        pmd_bytes: pmd.obytes,
        pmd_bytes_agree: bytes_agree(
            pmd.obytes,
            frames + gap_frames,
            bytes.saturating_add(gap_bytes),
        ),
        target_met: (!judged.is_empty()).then(|| judged.iter().all(|&m| m)),
        pmd_errors: pmd.oerrors,
        // Each task's rates are its frames over the time it sent; tasks
        // run side by side, so their rates add up.
        achieved: tasks.iter().fold(LayerRates::default(), |a, t| LayerRates {
            fps: a.fps + t.achieved.fps,
            l1_bps: a.l1_bps + t.achieved.l1_bps,
            l2_bps: a.l2_bps + t.achieved.l2_bps,
            payload_bps: a.payload_bps + t.achieved.payload_bps,
        }),
        tasks,
        streams,
        clock: None,
    }
}

/// The problem of a gap-mode run (`tx` sent gap frames) whose TX ports
/// (`port`, with their `driver`s) counted fewer frames sent than were
/// handed to them, beyond the frames they counted as errors (those are a
/// [`Problem::PortTxErrors`] of their own); `None` when every frame is
/// accounted for or no gap frame was sent.
pub(crate) fn gap_frames_unsent(tx: &TxResult, port: &str, driver: &str) -> Option<Problem> {
    if tx.gap_frames == 0 {
        return None;
    }
    let handed = tx.frames.saturating_add(tx.gap_frames);
    let missing = handed.saturating_sub(tx.pmd_frames.saturating_add(tx.pmd_errors));
    (missing > 0).then(|| Problem::GapFramesUnsent {
        port: port.to_string(),
        driver: driver.to_string(),
        data_frames: tx.frames,
        gap_frames: tx.gap_frames,
        counted: tx.pmd_frames,
        missing,
    })
}

/// Whether the PMD's `obytes` agrees with `frames` frames of `bytes`
/// bytes (FCS included) handed to it: the PMD counts them without the FCS.
/// `None` when it counts no bytes at all while frames were sent.
fn bytes_agree(obytes: u64, frames: u64, bytes: u64) -> Option<bool> {
    let want = pmd_bytes_expected(frames, bytes);
    (obytes != 0 || want == 0).then_some(obytes == want)
}

/// One TX lcore's result from its outcome and what was planned for it,
/// at `tsc_hz`.
fn tx_task_result(o: &TxOutcome, m: &TxMeta, tsc_hz: u64) -> TxTaskResult {
    let (lcore, port, queue, rate) = (m.lcore, m.port, m.queue, m.rate);
    let p = &o.pace;
    let span_s = o.span_cycles as f64 / tsc_hz.max(1) as f64;
    let payload: u64 = o.streams.iter().map(|s| s.3).sum();
    let achieved = LayerRates::of(o.frames, o.bytes, payload, span_s);
    let at_layer = at_layer(&achieved, rate.layer());
    TxTaskResult {
        lcore,
        first_due_tsc: o.first_due,
        port,
        queue,
        target_layer: rate.layer().name().to_string(),
        target_per_sec: rate.per_sec(),
        frames: o.frames,
        bytes: o.bytes,
        span_s,
        achieved,
        achieved_pct: if rate.per_sec() > 0 {
            at_layer * 100.0 / rate.per_sec() as f64
        } else {
            0.0
        },
        target_met: m.mode.waits().then(|| {
            let group = match m.mode {
                TxMode::Burst(n) => u64::from(n),
                _ => 1,
            };
            let port_held = p.refused > 0 || o.alloc_failed > 0;
            let slack = Slack {
                group,
                pattern: m.pattern,
                late_s: lateness_excused(port_held, &p.error_ns),
            };
            target_met(&rate, at_layer, span_s, o.frames, slack)
        }),
        refused: p.refused,
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
        line_pct: (m.has_line && m.line_bps > 0)
            .then(|| achieved.l1_bps * 100.0 / m.line_bps as f64),
        line_source: m.line_source,
        schedule_kept: m.mode.waits(),
        gap_frames: o.gap_frames,
        gap_bytes: o.gap_bytes,
        alloc_failed: o.alloc_failed,
        attached_frames: o.attached,
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
        cpu_time: None,
    }
}

/// `r` at `layer`, in that layer's unit per second.
fn at_layer(r: &LayerRates, layer: Layer) -> f64 {
    match layer {
        Layer::L1 => r.l1_bps,
        Layer::L2 => r.l2_bps,
        Layer::Payload => r.payload_bps,
        Layer::Frames => r.fps,
    }
}

/// The share of the target a task may fall short of and still meet it:
/// 0.1 % (docs/pacing.md, "When a target counts as met").
pub const TARGET_TOLERANCE: f64 = 0.001;

/// What a paced task may lag its target by at the stop without missing
/// it (docs/pacing.md, "When a target counts as met").
#[derive(Clone, Copy, Debug)]
pub struct Slack {
    /// Frames per `tx_burst` (1 in spin mode): a burst not yet due.
    pub group: u64,
    /// How departures are spread: on/off bursts and Poisson arrivals lag
    /// their mean more than a constant rate does.
    pub pattern: Pattern,
    /// The largest schedule error of any frame sent, seconds, when the
    /// port refused nothing and the pool never ran dry (else 0): frames
    /// due that late at the stop were late as others were, not refused.
    pub late_s: f64,
}

/// The schedule error, seconds, that may excuse a paced task's shortfall
/// (frames still due at the stop, late as others were): the largest
/// error, when the port refused nothing and the pool never ran dry
/// (`port_held` false) and the lateness was an episode, not the rule. A
/// sender that cannot keep up (its CPU, its PMD) falls further behind
/// with every frame, so its errors grow from 0 to the largest and their
/// median is half of it; a preempted one catches up after each episode,
/// and its median stays far below its largest. Lateness whose median is
/// a quarter of the largest or more excuses nothing: the sender was
/// behind, and its target was missed.
fn lateness_excused(port_held: bool, error: &crate::pace::measure::ErrorStats) -> f64 {
    let chronic = error.p50.saturating_mul(4) >= error.max;
    if port_held || chronic {
        0.0
    } else {
        error.max as f64 / 1e9
    }
}

/// Whether `frames` sent at `achieved` (the target's unit per second) over
/// `span_s` met `rate`: short by at most the larger of
/// [`TARGET_TOLERANCE`] of the target and the frames `slack` accounts
/// for (the burst not yet due and the frame in hand at the stop, what the
/// pattern may lag its mean — two bursts for on/off, four standard
/// deviations of a Poisson count — and the frames due within the largest
/// schedule error).
pub fn target_met(rate: &Rate, achieved: f64, span_s: f64, frames: u64, slack: Slack) -> bool {
    // A step's target is the mean rate before it and its share after it.
    let expected = rate.per_sec() as f64 * span_s * slack.pattern.share_over(span_s);
    let got = achieved * span_s;
    // One frame in the target's unit (the mean of those sent).
    let unit = if frames > 0 { got / frames as f64 } else { 0.0 };
    let expected_frames = if unit > 0.0 { expected / unit } else { 0.0 };
    let slack_frames = (slack.group + 1) as f64
        + match slack.pattern {
            Pattern::Cbr => 0.0,
            Pattern::OnOff { burst_frames, .. } => 2.0 * f64::from(burst_frames),
            Pattern::Poisson { .. } => 4.0 * expected_frames.sqrt(),
            // The frame in hand at the step, on either side of it.
            Pattern::Step { .. } => 1.0,
        };
    let late = rate.per_sec() as f64 * slack.late_s;
    let allowed = (TARGET_TOLERANCE * expected).max(slack_frames * unit + late);
    got + allowed >= expected
}

/// Adds a TX lcore's per-stream counts to `streams` (a stream sent from
/// several lcores is one entry).
fn add_tx_streams(streams: &mut Vec<TxStreamResult>, names: &[(u32, String)], o: &TxOutcome) {
    for (k, &(id, frames, bytes, payload)) in o.streams.iter().enumerate() {
        let departure_offset = (o.departures.as_ref())
            .and_then(|d| d.streams.get(k).copied())
            .filter(|d| d.samples > 0);
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
                s.departure_offset = s.departure_offset.or(departure_offset);
            }
            None => streams.push(TxStreamResult {
                id,
                name,
                frames,
                bytes,
                payload_bytes: payload,
                departure_offset,
            }),
        }
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
    let mut parts = Vec::new();
    for (o, &(lcore, port)) in outcomes.iter().zip(meta) {
        r.frames += o.frames;
        r.bytes += o.bytes;
        let f = &mut r.foreign_breakdown;
        f.not_landspeed += o.foreign;
        f.too_short += o.too_short;
        f.unknown_version += o.unknown_version;
        f.untracked_stream += o.untracked;
        r.overflow += o.overflow;
        r.overflow_streams += o.overflow_streams;
        add_corrupt(&mut r.corrupt_unattributed, &o.corrupt_unattributed);
        let own: Vec<StreamPart> = o.streams.iter().map(StreamPart::of).collect();
        let mut task = rx_task_result(o, lcore, port, tsc_hz);
        task.streams = own.iter().map(LcoreStream::of).collect();
        tasks.push(task);
        parts.extend(own);
        payload += o.payload_bytes;
    }
    // A stream spread over several lcores (RSS over queues polled by
    // different lcores) is one stream: its parts are merged.
    let merged = merge_streams(parts);
    let streams: Vec<StreamResult> = merged
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
    (r.achieved, r.span_s) = match streams_rates(&merged, tsc_hz) {
        Some(x) => x,
        None => rx_achieved(outcomes, r.frames, r.bytes, payload, secs, tsc_hz),
    };
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
        foreign: o.foreign + o.too_short + o.unknown_version + o.untracked,
        max_fps: if cpf > 0.0 { tsc_hz as f64 / cpf } else { 0.0 },
        streams: Vec::new(),
        cpu_time: None,
        capture: None,
    }
}

/// The rates of the checked streams' frames over their span, from the
/// first arrival of any of them to the last (foreign frames, arriving
/// before, between or after, do not count), and the span in seconds;
/// `None` without two such frames.
fn streams_rates(parts: &[StreamPart], tsc_hz: u64) -> Option<(LayerRates, f64)> {
    let mut all = Arrivals::default();
    for p in parts {
        all.add(&Arrivals::of(p));
    }
    Some((all.rates(tsc_hz)?, all.span_s(tsc_hz)))
}

/// The RX rates over the arrival span of every lcore, and that span in
/// seconds (the measured time when too few frames arrived).
fn rx_achieved(
    outcomes: &[RxOutcome],
    frames: u64,
    bytes: u64,
    payload: u64,
    secs: f64,
    tsc_hz: u64,
) -> (LayerRates, f64) {
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
            (LayerRates::of(frames, bytes, payload, span / k), span)
        }
        _ => (LayerRates::of(frames, bytes, payload, secs), secs),
    }
}

/// What the verdict is computed from: this run's rates and costs, the
/// receiving port's link and bus.
pub(crate) fn observation(
    r: &RunResult,
    link: Option<LinkKind>,
    bus: Option<Bus>,
    plan: &Plan,
) -> Observation {
    let rx = r.rx.as_ref();
    let tx = r.tx.as_ref();
    let delivered_fps = rx.map_or(0.0, |r| r.achieved.fps);
    let delivered_bps = rx.map_or(0.0, |r| r.achieved.l2_bps);
    let frame_size = rx
        .filter(|r| r.frames > 0)
        .map(|r| (r.bytes / r.frames) as u32)
        .unwrap_or(0);
    let (cpf, util, rx_descheduled) = rx_cpu(rx);
    let lost = rx.map_or(0, |r| r.lost);
    let imissed = rx.map_or(0, |r| r.pmd.imissed);
    // The ports the run received and sent on, each once.
    let on = |side: &mut dyn Iterator<Item = usize>| -> Vec<&PortResult> {
        let names: Vec<&str> = side.map(|i| plan.ports[i].name.as_str()).collect();
        (r.ports.iter())
            .filter(|p| names.contains(&p.name.as_str()))
            .collect()
    };
    let rx_ports = on(&mut plan.rx.iter().map(|r| r.port));
    let tx_ports = on(&mut plan.tx.iter().map(|t| t.port));
    let rx_refused: u64 = rx_ports.iter().map(|p| p.errors.rx_refused).sum();
    let rx_ring_drops: u64 = rx_ports.iter().map(|p| p.errors.rx_ring_drops).sum();
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
        tsc_hz: r.tsc_hz as f64,
        rx_utilisation: util,
        rx_descheduled,
        imissed,
        rx_nombuf: rx.map_or(0, |r| r.pmd.rx_nombuf),
        rx_ring_drops,
        // Frames the port missed, dropped at a full ring or refused
        // reached it.
        lost_in_network: (lost.saturating_sub(imissed))
            .saturating_sub(rx_ring_drops)
            .saturating_sub(rx_refused),
        drops_hidden: r.ports.iter().any(|p| {
            plan.rx.iter().any(|r| plan.ports[r.port].name == p.name)
                && (p.driver == "net_af_packet" || p.driver == "net_memif")
        }),
        rx_refused,
        rx_refused_by: sum_by_name(rx_ports.iter().map(|p| p.rx_refused_by())),
        tx_errors: tx_ports.iter().map(|p| p.errors.tx_errors).sum(),
        tx_errors_by: sum_by_name(
            (tx_ports.iter()).map(|p| port_errors::tx_errors_by(&p.errors.classes)),
        ),
    };
    if let Some(t) = tx {
        t.offer_to(&mut obs);
    }
    obs
}

/// The receivers' CPU as the verdict weighs it: the busiest lcore's
/// cycles per frame (over the lcores sharing the load) and its busy
/// share, which bind first, and the most any receiver was descheduled.
fn rx_cpu(rx: Option<&RxResult>) -> (Option<f64>, Option<f64>, Option<f64>) {
    let busiest = (rx.into_iter().flat_map(|r| &r.tasks))
        .max_by(|a, b| a.cycles_per_frame.total_cmp(&b.cycles_per_frame));
    let n = rx.map_or(0, |r| r.tasks.len()) as f64;
    let descheduled = (rx.into_iter().flat_map(|r| &r.tasks))
        .filter_map(|t| t.cpu_time.map(|c| c.descheduled_pct / 100.0))
        .reduce(f64::max);
    (
        busiest.map(|t| t.cycles_per_frame / n),
        busiest.map(|t| t.utilisation_pct / 100.0),
        descheduled,
    )
}

/// Decide the verdict of this run (the receiving port's `link` and
/// `bus`), keeping the observation it was decided on, so that
/// `landspeed report` can decide again with the sender's rate.
pub(crate) fn judge(r: &mut RunResult, link: Option<LinkKind>, bus: Option<Bus>, plan: &Plan) {
    let obs = observation(r, link, bus, plan);
    r.verdict = Some(obs.verdict());
    r.observation = Some(obs);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::port_errors::ErrorSeries;
    use crate::outcome::Outcome;
    use crate::rx::StreamAcc;

    #[test]
    fn gap_frames_that_never_left_are_a_problem() {
        let pmd = PortStats::default();
        let mut tx = tx_result(&[], &[], &[], &pmd, 1_000_000_000);
        (tx.frames, tx.gap_frames, tx.pmd_frames) = (1_000, 4_000, 5_000);
        assert_eq!(gap_frames_unsent(&tx, "p0", "net_ice"), None, "all counted");
        tx.pmd_frames = 4_990;
        assert_eq!(
            gap_frames_unsent(&tx, "p0", "net_ice"),
            Some(Problem::GapFramesUnsent {
                port: "p0".into(),
                driver: "net_ice".into(),
                data_frames: 1_000,
                gap_frames: 4_000,
                counted: 4_990,
                missing: 10,
            })
        );
        // Frames the port counted as errors are PortTxErrors' to tell.
        tx.pmd_errors = 10;
        assert_eq!(gap_frames_unsent(&tx, "p0", "net_ice"), None);
        tx.pmd_errors = 4;
        let p = gap_frames_unsent(&tx, "p0", "net_ice").unwrap();
        assert!(
            matches!(p, Problem::GapFramesUnsent { missing: 6, .. }),
            "{p:?}"
        );
        assert_eq!(
            p.text(),
            "port p0 (net_ice) counted 4990 frames sent of 1000 data + 4000 gap frames handed \
             to it: 6 never left, so the NIC or its firmware dropped MAC control frames and the \
             gaps between data frames were not the planned ones (use `mode: spin` or `burst N` \
             on this port)"
        );
        // Without gap frames a difference is the summary's to show.
        (tx.gap_frames, tx.pmd_errors, tx.pmd_frames) = (0, 0, 10);
        assert_eq!(gap_frames_unsent(&tx, "p0", "net_ice"), None);
    }

    #[test]
    fn pmd_bytes_are_compared_without_the_fcs() {
        // 10 frames of 64 bytes and 3 gap frames of 100: 1,000 bytes with
        // FCS, 948 as the PMD counts them.
        assert_eq!(pmd_bytes_expected(13, 940), 888);
        assert_eq!(bytes_agree(888, 13, 940), Some(true));
        assert_eq!(bytes_agree(887, 13, 940), Some(false));
        assert_eq!(bytes_agree(940, 13, 940), Some(false), "FCS counted");
        assert_eq!(bytes_agree(0, 13, 940), None, "counts no bytes");
        assert_eq!(bytes_agree(0, 0, 0), Some(true), "nothing sent");
        assert_eq!(bytes_agree(5, 0, 0), Some(false));
        assert_eq!(pmd_bytes_expected(u64::MAX, 10), 0, "no overflow");
    }

    #[test]
    fn only_an_episode_of_lateness_excuses_a_shortfall() {
        use crate::pace::measure::ErrorStats;
        let e = |p50, max| ErrorStats {
            p50,
            max,
            ..ErrorStats::default()
        };
        // Preempted once: a median far below the largest error.
        assert_eq!(lateness_excused(false, &e(80_000, 8_000_000)), 0.008);
        assert_eq!(lateness_excused(false, &e(1_999_999, 8_000_000)), 0.008);
        // Behind all along: errors grow to the largest, median half of it.
        assert_eq!(lateness_excused(false, &e(2_000_000, 8_000_000)), 0.0);
        assert_eq!(lateness_excused(false, &e(800_000_000, 1_600_000_000)), 0.0);
        // The port held frames back, or nothing was late.
        assert_eq!(lateness_excused(true, &e(80_000, 8_000_000)), 0.0);
        assert_eq!(lateness_excused(false, &e(0, 0)), 0.0);
    }

    #[test]
    fn a_target_is_met_within_the_tolerance_and_missed_beyond() {
        // 1 Gbit/s L1 of 1518-byte frames (12,304 bits each) for 4 s.
        let rate: Rate = Rate::l1_bps(1_000_000_000).unwrap();
        let cbr = |late_s| Slack {
            group: 1,
            pattern: Pattern::Cbr,
            late_s,
        };
        let frame = 8.0 * 1538.0;
        let run = |frames: u64, slack| {
            let achieved = frames as f64 * frame / 4.0;
            target_met(&rate, achieved, 4.0, frames, slack)
        };
        let full = (4e9 / frame) as u64; // 325,097 frames
        assert!(run(full, cbr(0.0)));
        // 0.1 % short is met, 0.11 % is not.
        assert!(run(324_800, cbr(0.0)));
        assert!(!run(full - full * 11 / 10_000, cbr(0.0)));
        // A link down for the second half.
        assert!(!run(full / 2, cbr(0.0)));
        // Frames late by at most 20 ms at the stop (1,626 frames) were
        // late, not missing; an outage is more than that.
        assert!(run(full - 1_500, cbr(0.02)));
        assert!(!run(full / 2, cbr(0.02)));
        // Nothing sent over a span: missed; over no span: nothing asked.
        assert!(!target_met(&rate, 0.0, 4.0, 0, cbr(0.0)));
        assert!(target_met(&rate, 0.0, 0.0, 0, cbr(0.0)));
        // A step to half the rate after 2 s: the target is 3/4 of the
        // full rate's frames over the 4 s.
        let step = Slack {
            group: 1,
            pattern: Pattern::Step {
                after_ns: 2_000_000_000,
                ppm: 500_000,
            },
            late_s: 0.0,
        };
        let three_quarters = full * 3 / 4;
        assert!(run(three_quarters, step));
        assert!(run(three_quarters - three_quarters / 1100, step));
        assert!(!run(three_quarters - three_quarters * 11 / 10_000, step));
        assert!(
            !run(full / 2, step),
            "half the frames: the step came too early"
        );
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
            started_unix_ns: 0,
        };
        let text = crate::report::summary::summary(&run);
        assert!(text.contains("  foreign 6\n"), "{text}");
        assert!(
            text.contains(
                "      foreign 6: not landspeed 3, too short 2, unknown stamp version 1, \
                 stream not checked 0\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn foreign_frames_never_stretch_the_span() {
        // Foreign frames came at TSC 100 and 50,000 (the lcore's first and
        // last busy polls); the stream's 11 frames of 1000 bytes from
        // 10,000 to 20,000, on a 1 GHz TSC: 10 frames over 10 µs.
        let mut acc = StreamAcc::new(5, 1_000_000_000);
        (acc.tally.frames, acc.tally.bytes, acc.tally.payload_bytes) = (11, 11_000, 10_000);
        (acc.tally.first_tsc, acc.tally.last_tsc) = (10_000, 20_000);
        let o = RxOutcome {
            frames: 13,
            bytes: 11_120,
            foreign: 2,
            first_rx_tsc: 100,
            last_rx_tsc: 50_000,
            streams: vec![acc],
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
        assert_eq!(r.span_s, 10e-6);
        let secs = 10_000.0 / 1e9 / (10.0 / 11.0);
        assert_eq!(r.achieved, LayerRates::of(11, 11_000, 10_000, secs));
        // 10 frames (of 1000 bytes) in 10 µs: 1 Mframe/s, 8 Gbit/s L2.
        assert_eq!(r.achieved.fps.round(), 1e6);
        assert_eq!(r.achieved.l2_bps.round(), 8e9);
        assert_eq!(r.streams[0].span_s, 10e-6);
        assert_eq!(r.streams[0].achieved, r.achieved);
        assert_eq!(r.foreign, 2);
        // The lcore's own view of its one stream.
        assert_eq!(
            r.tasks[0].streams,
            [LcoreStream {
                id: 5,
                frames: 11,
                bytes: 11_000,
                unique: 0,
                reordered: 0,
                duplicated: 0,
            }]
        );
    }

    #[test]
    fn ring_full_drops_are_not_lost_in_the_network() {
        let plan = crate::config::load_str(
            "eal: { cores: [0, 1], vdevs: [net_null0] }\n\
             ports: [ { name: p0, device: net_null0 } ]\n\
             rx: [ { lcore: 1, port: p0 } ]\n",
            "t.yaml",
        )
        .unwrap();
        let mut rx = RxResult {
            lost: 1000,
            ..RxResult::default()
        };
        rx.pmd.imissed = 100;
        let port = PortResult {
            name: "p0".into(),
            device: "0000:3b:00.0".into(),
            driver: "net_ixgbe".into(),
            link_bps: 0,
            line_source: LineSource::Unknown,
            stats: PortStats::default(),
            xstats: Vec::new(),
            mtu: 1500,
            rx_mbuf_room: 0,
            flow_control: None,
            errors: ErrorSeries {
                rx_drops: 800,
                rx_ring_drops: 700,
                ..ErrorSeries::default()
            },
            timestamps: None,
            control: None,
            setup: None,
        };
        let mut run = RunResult::new(
            &plan.origin,
            1_000_000_000,
            1_000_000_000,
            1.0,
            vec![port],
            Vec::new(),
        );
        run.rx = Some(rx);
        let obs = observation(&run, None, None, &plan);
        assert_eq!((obs.imissed, obs.rx_ring_drops), (100, 700));
        assert_eq!(obs.lost_in_network, 200);
    }
}
