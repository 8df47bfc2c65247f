//! Departure measurement: how closely the TX loop kept its schedule.
//!
//! The TX loop calls [`DepartureRecorder::record`] for each frame the PMD
//! accepted, with the frame's scheduled TSC and the TSC read right after
//! `tx_burst` returned. Recording never allocates: the histograms have fixed
//! bounds and the optional trace is preallocated. At the end
//! [`DepartureRecorder::summary`] turns ticks into nanoseconds for the
//! report.

use std::borrow::Cow;

use hdrhistogram::Histogram;
use serde::Serialize;

use super::rate::{Layer, Rate};
use super::trace::Trace;
use super::tsc::{ticks_to_ns, ticks_to_ns_f64};
use crate::units::L1_OVERHEAD;

/// Largest tick value the histograms resolve (2^42 ticks: over 20 minutes
/// at 3 GHz); larger values are counted at this value.
pub const HIST_MAX_TICKS: u64 = 1 << 42;

/// Significant decimal digits kept by the histograms (0.1% resolution).
pub const HIST_SIGFIG: u8 = 3;

/// Records scheduled and actual departures of one TX lcore.
#[derive(Debug, Clone)]
pub struct DepartureRecorder {
    tsc_hz: u64,
    error: Histogram<u64>,
    gap: Histogram<u64>,
    frames: u64,
    l2_bytes: u64,
    payload_bytes: u64,
    first_tsc: Option<u64>,
    last_tsc: u64,
    last_frame_len: u32,
    last_payload_len: u32,
    early: u64,
    refused: u64,
    retries: u64,
    gap_sum: u128,
    gap_sq_sum: u128,
    gap_min: u64,
    gap_max: u64,
    trace: Vec<(u64, u32)>,
    trace_dropped: u64,
    /// Zero-valued errors and gaps not yet in their histograms: a burst's
    /// frames share one departure time, and counting them here keeps the
    /// per-frame cost to an increment. Histograms read through
    /// [`with_zeros`].
    error_zeros: u64,
    gap_zeros: u64,
}

/// `h` with `zeros` more samples of value 0 (borrowed when there are none).
fn with_zeros(h: &Histogram<u64>, zeros: u64) -> Cow<'_, Histogram<u64>> {
    if zeros == 0 {
        Cow::Borrowed(h)
    } else {
        let mut c = h.clone();
        c.saturating_record_n(0, zeros);
        Cow::Owned(c)
    }
}

impl DepartureRecorder {
    /// A recorder for departures timed on a `tsc_hz` clock (the measured
    /// frequency, used only when reporting), whose trace keeps at most
    /// `trace_capacity` departures (0 for none). All memory is allocated
    /// here.
    pub fn new(tsc_hz: u64, trace_capacity: usize) -> Self {
        let hist = || {
            Histogram::new_with_bounds(1, HIST_MAX_TICKS, HIST_SIGFIG)
                .expect("constant histogram bounds are valid")
        };
        DepartureRecorder {
            tsc_hz,
            error: hist(),
            gap: hist(),
            frames: 0,
            l2_bytes: 0,
            payload_bytes: 0,
            first_tsc: None,
            last_tsc: 0,
            last_frame_len: 0,
            last_payload_len: 0,
            early: 0,
            refused: 0,
            retries: 0,
            gap_sum: 0,
            gap_sq_sum: 0,
            gap_min: u64::MAX,
            gap_max: 0,
            trace: Vec::with_capacity(trace_capacity),
            trace_dropped: 0,
            error_zeros: 0,
            gap_zeros: 0,
        }
    }

    /// Records one frame the PMD accepted: its scheduled departure, the TSC
    /// at which it was accepted, its size (FCS included) and its
    /// `payload_len` payload bytes. Frames of one burst share `actual_tsc`.
    /// Early departures count as zero error and are counted apart.
    #[inline]
    pub fn record_with_payload(
        &mut self,
        scheduled_tsc: u64,
        actual_tsc: u64,
        frame_len: u32,
        payload_len: u32,
    ) {
        if actual_tsc < scheduled_tsc {
            self.early += 1;
        }
        match actual_tsc.saturating_sub(scheduled_tsc) {
            0 => self.error_zeros += 1,
            e => self.error.saturating_record(e),
        }
        self.record_departure(actual_tsc, frame_len, payload_len);
    }

    /// Records one frame sent in a mode that keeps no schedule (`max`,
    /// `gap`): its departure and gap, but no schedule error.
    #[inline]
    pub fn record_unscheduled(&mut self, actual_tsc: u64, frame_len: u32, payload_len: u32) {
        self.record_departure(actual_tsc, frame_len, payload_len);
    }

    /// Whether departures are traced (then each frame must be recorded on
    /// its own, with its length: [`record_with_payload`](Self::record_with_payload)).
    #[inline]
    pub fn tracing(&self) -> bool {
        self.trace.capacity() > 0
    }

    /// The schedule error of one frame of a burst the PMD accepted at
    /// `actual_tsc` (exact: computed from the one TSC read after the
    /// burst, not measured per frame). Its departure is recorded once for
    /// the burst by [`record_burst`](Self::record_burst).
    #[inline]
    pub fn record_error(&mut self, scheduled_tsc: u64, actual_tsc: u64) {
        if actual_tsc < scheduled_tsc {
            self.early += 1;
        }
        match actual_tsc.saturating_sub(scheduled_tsc) {
            0 => self.error_zeros += 1,
            e => self.error.saturating_record(e),
        }
    }

    /// Records the departure of a burst of `frames` (at least one) frames
    /// that one `tx_burst` took at `actual_tsc`: `l2_bytes` and
    /// `payload_bytes` in all, the last one `last_len` bytes with
    /// `last_payload` payload. The same figures as recording each frame,
    /// in one step: one gap before the burst, zero gaps within it. Not for
    /// a traced recorder (see [`tracing`](Self::tracing)).
    #[inline]
    pub fn record_burst(
        &mut self,
        actual_tsc: u64,
        frames: u64,
        (l2_bytes, payload_bytes): (u64, u64),
        (last_len, last_payload): (u32, u32),
    ) {
        if frames == 0 {
            return;
        }
        self.record_departure(actual_tsc, last_len, last_payload);
        let more = frames - 1;
        if more > 0 {
            self.gap_zeros += more;
            self.gap_min = 0;
        }
        self.frames += more;
        self.l2_bytes += l2_bytes - u64::from(last_len);
        self.payload_bytes += payload_bytes - u64::from(last_payload);
    }

    #[inline]
    fn record_departure(&mut self, actual_tsc: u64, frame_len: u32, payload_len: u32) {
        match self.first_tsc {
            None => self.first_tsc = Some(actual_tsc),
            Some(_) => {
                let gap = actual_tsc.saturating_sub(self.last_tsc);
                if gap == 0 {
                    self.gap_zeros += 1;
                    self.gap_min = 0;
                } else {
                    self.gap.saturating_record(gap);
                    self.gap_sum += gap as u128;
                    self.gap_sq_sum += gap as u128 * gap as u128;
                    self.gap_min = self.gap_min.min(gap);
                    self.gap_max = self.gap_max.max(gap);
                }
            }
        }
        self.last_tsc = actual_tsc;
        self.last_frame_len = frame_len;
        self.last_payload_len = payload_len;
        self.frames += 1;
        self.l2_bytes += u64::from(frame_len);
        self.payload_bytes += u64::from(payload_len);
        if self.trace.len() < self.trace.capacity() {
            self.trace.push((actual_tsc, frame_len));
        } else if self.trace.capacity() > 0 {
            self.trace_dropped += 1;
        }
    }

    /// Counts `frames` the PMD refused (not accepted by `tx_burst`).
    #[inline]
    pub fn refused(&mut self, frames: u64) {
        self.refused += frames;
    }

    /// The trace as a [`Trace`] for writing to a file.
    pub fn to_trace(&self) -> Trace {
        let mut departures = self.trace.clone();
        departures.sort_by_key(|&(t, _)| t);
        Trace {
            tsc_hz: self.tsc_hz,
            departures,
        }
    }

    /// The report: rates achieved at each layer, schedule error and
    /// inter-departure statistics in nanoseconds, counts, and compact
    /// histograms.
    pub fn summary(&self) -> PaceSummary {
        let tsc_hz = self.tsc_hz;
        let error = with_zeros(&self.error, self.error_zeros);
        let gap = with_zeros(&self.gap, self.gap_zeros);
        let span_ticks = self
            .first_tsc
            .map_or(0, |f| self.last_tsc.saturating_sub(f));
        // Rates count the frames that departed within the span: all but the
        // last, whose departure closes it.
        let achieved = if span_ticks == 0 || self.frames < 2 {
            LayerRates::default()
        } else {
            let secs = span_ticks as f64 / tsc_hz as f64;
            let frames = (self.frames - 1) as f64;
            let l2 = (self.l2_bytes - u64::from(self.last_frame_len)) as f64 * 8.0;
            let payload = (self.payload_bytes - u64::from(self.last_payload_len)) as f64 * 8.0;
            LayerRates {
                l1_bps: (l2 + frames * 8.0 * L1_OVERHEAD as f64) / secs,
                l2_bps: l2 / secs,
                payload_bps: payload / secs,
                fps: frames / secs,
            }
        };
        let ns = |t: u64| ticks_to_ns(t, tsc_hz);
        let error_ns = ErrorStats {
            p50: ns(error.value_at_quantile(0.5)),
            p99: ns(error.value_at_quantile(0.99)),
            p999: ns(error.value_at_quantile(0.999)),
            max: ns(error.max()),
            mean: ticks_to_ns_f64(error.mean(), tsc_hz),
        };
        let gaps = gap.len();
        let gap_ns = if gaps == 0 {
            GapStats::default()
        } else {
            let n = gaps as f64;
            let mean = self.gap_sum as f64 / n;
            let var = (self.gap_sq_sum as f64 / n - mean * mean).max(0.0);
            GapStats {
                mean: ticks_to_ns_f64(mean, tsc_hz),
                stddev: ticks_to_ns_f64(var.sqrt(), tsc_hz),
                min: ns(self.gap_min),
                max: ns(self.gap_max),
                p50: ns(gap.value_at_quantile(0.5)),
                p99: ns(gap.value_at_quantile(0.99)),
            }
        };
        PaceSummary {
            frames: self.frames,
            l2_bytes: self.l2_bytes,
            payload_bytes: self.payload_bytes,
            refused: self.refused,
            retries: self.retries,
            early: self.early,
            span_ns: ns(span_ticks),
            achieved,
            target: None,
            error_ns,
            gap_ns,
            error_histogram: buckets(&error, tsc_hz),
            gap_histogram: buckets(&gap, tsc_hz),
            trace_len: self.trace.len() as u64,
            trace_dropped: self.trace_dropped,
        }
    }
}

/// Non-empty power-of-two buckets of a tick histogram, in nanoseconds.
fn buckets(h: &Histogram<u64>, tsc_hz: u64) -> Vec<Bucket> {
    if h.is_empty() {
        return Vec::new();
    }
    h.iter_log(1, 2.0)
        .filter(|v| v.count_since_last_iteration() > 0)
        .map(|v| Bucket {
            le_ns: ticks_to_ns(v.value_iterated_to(), tsc_hz),
            count: v.count_since_last_iteration(),
        })
        .collect()
}

/// A rate at every layer, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
pub struct LayerRates {
    /// Wire bits per second (frames + 20 bytes each).
    pub l1_bps: f64,
    /// Frame bits per second (FCS included).
    pub l2_bps: f64,
    /// Payload bits per second.
    pub payload_bps: f64,
    /// Frames per second.
    pub fps: f64,
}

impl LayerRates {
    /// Rates of `frames` frames holding `l2_bytes` (FCS included) and
    /// `payload_bytes` over `secs` seconds (all zero for an empty span).
    pub fn of(frames: u64, l2_bytes: u64, payload_bytes: u64, secs: f64) -> Self {
        if secs <= 0.0 {
            return Self::default();
        }
        LayerRates {
            l1_bps: (l2_bytes + frames * L1_OVERHEAD) as f64 * 8.0 / secs,
            l2_bps: l2_bytes as f64 * 8.0 / secs,
            payload_bps: payload_bytes as f64 * 8.0 / secs,
            fps: frames as f64 / secs,
        }
    }

    /// `rate` expressed at every layer for frames of `frame_len` bytes
    /// carrying `payload_len` bytes (means, for mixed sizes).
    pub fn from_rate(rate: &Rate, frame_len: f64, payload_len: f64) -> Self {
        let per_frame = match rate.layer() {
            Layer::L1 => 8.0 * (frame_len + L1_OVERHEAD as f64),
            Layer::L2 => 8.0 * frame_len,
            Layer::Payload => 8.0 * payload_len,
            Layer::Frames => 1.0,
        };
        let fps = if per_frame > 0.0 {
            rate.per_sec() as f64 / per_frame
        } else {
            0.0
        };
        LayerRates {
            l1_bps: fps * 8.0 * (frame_len + L1_OVERHEAD as f64),
            l2_bps: fps * 8.0 * frame_len,
            payload_bps: fps * 8.0 * payload_len,
            fps,
        }
    }
}

/// Schedule error (actual − scheduled departure) in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
pub struct ErrorStats {
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
    /// Mean.
    pub mean: f64,
}

/// Inter-departure gaps in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, serde::Deserialize)]
pub struct GapStats {
    /// Mean gap.
    pub mean: f64,
    /// Standard deviation: the spread of departures.
    pub stddev: f64,
    /// Smallest gap.
    pub min: u64,
    /// Largest gap.
    pub max: u64,
    /// Median gap.
    pub p50: u64,
    /// 99th percentile gap.
    pub p99: u64,
}

/// One histogram bucket: `count` values above the previous bucket's bound
/// and at most `le_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Bucket {
    /// Upper bound, nanoseconds.
    pub le_ns: u64,
    /// Values in the bucket.
    pub count: u64,
}

/// The pacing report of one lcore, or of several merged.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct PaceSummary {
    /// Frames the PMD accepted.
    pub frames: u64,
    /// Their bytes, FCS included.
    pub l2_bytes: u64,
    /// Their payload bytes.
    pub payload_bytes: u64,
    /// Frames the PMD refused.
    pub refused: u64,
    /// `tx_burst` retries after partial acceptance.
    pub retries: u64,
    /// Frames accepted before their scheduled time.
    pub early: u64,
    /// First to last departure, nanoseconds.
    pub span_ns: u64,
    /// Rates achieved over the span.
    pub achieved: LayerRates,
    /// The target at every layer, if set with [`PaceSummary::set_target`].
    pub target: Option<LayerRates>,
    /// Schedule error, actual − scheduled.
    pub error_ns: ErrorStats,
    /// Inter-departure gaps.
    pub gap_ns: GapStats,
    /// Schedule error histogram, power-of-two buckets.
    pub error_histogram: Vec<Bucket>,
    /// Inter-departure gap histogram, power-of-two buckets.
    pub gap_histogram: Vec<Bucket>,
    /// Departures kept in the trace.
    pub trace_len: u64,
    /// Departures not traced because the trace was full.
    pub trace_dropped: u64,
}

impl PaceSummary {
    /// Sets the target rate, expressed at every layer using the mean frame
    /// and payload size recorded.
    pub fn set_target(&mut self, rate: &Rate) {
        if self.frames == 0 {
            return;
        }
        let n = self.frames as f64;
        self.target = Some(LayerRates::from_rate(
            rate,
            self.l2_bytes as f64 / n,
            self.payload_bytes as f64 / n,
        ));
    }

    /// One line for the human report: schedule error percentiles, gap
    /// spread and refusals, e.g. `schedule error p50 120 ns, p99 310 ns,
    /// p99.9 900 ns, max 4100 ns; gap mean 7320.0 ns sd 35.2 ns; refused 0,
    /// retries 0`.
    pub fn one_line(&self) -> String {
        format!(
            "schedule error p50 {} ns, p99 {} ns, p99.9 {} ns, max {} ns; \
             gap mean {:.1} ns sd {:.1} ns; refused {}, retries {}",
            self.error_ns.p50,
            self.error_ns.p99,
            self.error_ns.p999,
            self.error_ns.max,
            self.gap_ns.mean,
            self.gap_ns.stddev,
            self.refused,
            self.retries
        )
    }

    /// Achieved ÷ target at the target's own layer (1.0 is on target), if
    /// a target is set.
    pub fn achieved_ratio(&self, layer: Layer) -> Option<f64> {
        let t = self.target?;
        let (a, t) = match layer {
            Layer::L1 => (self.achieved.l1_bps, t.l1_bps),
            Layer::L2 => (self.achieved.l2_bps, t.l2_bps),
            Layer::Payload => (self.achieved.payload_bps, t.payload_bps),
            Layer::Frames => (self.achieved.fps, t.fps),
        };
        (t > 0.0).then(|| a / t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ: u64 = 1_000_000_000; // 1 tick = 1 ns keeps the figures plain

    impl DepartureRecorder {
        /// Records a frame with no payload bytes.
        fn record(&mut self, scheduled_tsc: u64, actual_tsc: u64, frame_len: u32) {
            self.record_with_payload(scheduled_tsc, actual_tsc, frame_len, 0);
        }

        /// Counts one retry of a partly refused burst.
        fn retry(&mut self) {
            self.retries += 1;
        }

        /// The bounded trace: `(actual_tsc, frame_len)` in recording order.
        fn trace(&self) -> &[(u64, u32)] {
            &self.trace
        }
    }

    #[test]
    fn bursts_and_unscheduled_departures() {
        // Two bursts of 4 frames at t = 1000 and t = 2000 (1 tick = 1 ns),
        // all due at 1000: the second burst is 1000 ns late.
        let mut r = DepartureRecorder::new(HZ, 0);
        for t in [1000, 2000] {
            for _ in 0..4 {
                r.record_with_payload(1000, t, 64, 18);
            }
        }
        let s = r.summary();
        assert_eq!(s.frames, 8);
        assert_eq!(s.error_ns.p50, 0);
        assert_eq!(s.error_ns.max, 1000);
        assert_eq!(s.gap_ns.min, 0);
        assert_eq!(s.gap_ns.p50, 0);
        assert_eq!(s.gap_ns.max, 1000);
        let gaps: u64 = s.gap_histogram.iter().map(|b| b.count).sum();
        assert_eq!(gaps, 7, "one gap per frame after the first");
        assert_eq!(s.trace_dropped, 0, "no trace asked for, none dropped");

        // The same departures with no schedule: no error samples at all.
        let mut u = DepartureRecorder::new(HZ, 2);
        for t in [1000, 1000, 3000] {
            u.record_unscheduled(t, 64, 18);
        }
        let s = u.summary();
        assert_eq!(s.frames, 3);
        assert!(s.error_histogram.is_empty());
        assert_eq!(s.gap_ns.max, 2000);
        assert_eq!((s.trace_len, s.trace_dropped), (2, 1));
    }

    #[test]
    fn records_error_gaps_and_rates() {
        let mut r = DepartureRecorder::new(HZ, 4);
        // 9130-byte frames at 10 Gbit/s L1: 7320 ns apart; each accepted
        // 100 ns late, one 1000 ns late.
        for i in 0..1000u64 {
            let sched = i * 7320;
            let late = if i == 500 { 1000 } else { 100 };
            r.record_with_payload(sched, sched + late, 9130, 9088);
        }
        r.refused(3);
        r.retry();
        let mut s = r.summary();
        assert_eq!(s.frames, 1000);
        assert_eq!(s.refused, 3);
        assert_eq!(s.retries, 1);
        assert_eq!(s.error_ns.p50, 100);
        assert_eq!(s.error_ns.p99, 100);
        assert_eq!(s.error_ns.max, 1000);
        // 999 of 1000 values are 100 ns, so the 99.9th percentile is still 100.
        assert_eq!(s.error_ns.p999, 100);
        assert_eq!(s.gap_ns.min, 6420);
        assert_eq!(s.gap_ns.max, 8220);
        // Percentiles resolve to 0.1% (three significant digits).
        assert!(s.gap_ns.p50.abs_diff(7320) <= 7);
        assert!((s.gap_ns.mean - 7320.0).abs() < 1e-6);
        assert!(
            (s.achieved.l1_bps - 10e9).abs() < 1.0,
            "{}",
            s.achieved.l1_bps
        );
        assert!((s.achieved.fps - 136_612.02).abs() < 0.01);
        s.set_target(&Rate::l1_bps(10_000_000_000).unwrap());
        let ratio = s.achieved_ratio(Layer::L2).unwrap();
        assert!((ratio - 1.0).abs() < 1e-9);
        assert_eq!(s.trace_len, 4);
        assert_eq!(s.trace_dropped, 996);
        assert_eq!(r.trace()[1], (7420, 9130));
        let total: u64 = s.error_histogram.iter().map(|b| b.count).sum();
        assert_eq!(total, 1000);
        assert!(s.one_line().contains("p99.9 100 ns"), "{}", s.one_line());
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"p999\""));
    }

    /// A burst recorded in one step gives the figures of its frames
    /// recorded one by one.
    #[test]
    fn a_burst_in_one_step_equals_its_frames_one_by_one() {
        // (TSC after the burst, its frames' (due, length, payload)).
        type Burst<'a> = (u64, &'a [(u64, u32, u32)]);
        let bursts: [Burst; 4] = [
            (1000, &[(900, 64, 18), (967, 64, 18), (1034, 64, 18)]),
            (1500, &[(1101, 1518, 1472)]),
            (1500, &[(1168, 64, 18), (1235, 594, 548)]),
            (
                9000,
                &[
                    (1302, 64, 18),
                    (1369, 64, 18),
                    (1436, 64, 18),
                    (9000, 9130, 9088),
                ],
            ),
        ];
        let mut one = DepartureRecorder::new(HZ, 0);
        let mut each = DepartureRecorder::new(HZ, 0);
        for (after, frames) in bursts {
            let (mut l2, mut pl) = (0, 0);
            for &(due, len, payload) in frames {
                each.record_with_payload(due, after, len, payload);
                one.record_error(due, after);
                l2 += u64::from(len);
                pl += u64::from(payload);
            }
            let &(_, len, payload) = frames.last().unwrap();
            one.record_burst(after, frames.len() as u64, (l2, pl), (len, payload));
        }
        one.record_burst(5, 0, (0, 0), (0, 0));
        assert_eq!(one.summary(), each.summary());
        let s = one.summary();
        assert_eq!(
            (s.frames, s.early, s.l2_bytes),
            (10, 1, 64 * 7 + 1518 + 594 + 9130)
        );
        assert_eq!(s.error_ns.max, 7699); // 7698 at the histogram's 0.1 %
        assert_eq!(s.gap_ns.max, 7500);
        assert_eq!(s.gap_ns.min, 0);
        assert!(!one.tracing() && DepartureRecorder::new(HZ, 1).tracing());
    }

    #[test]
    fn early_frames() {
        let mut a = DepartureRecorder::new(HZ, 4);
        a.record(100, 90, 64);
        a.record(150, 160, 64);
        a.record(200, 200, 64);
        a.record(250, 400, 64);
        let s = a.summary();
        assert_eq!(s.frames, 4);
        assert_eq!(s.early, 1);
        assert_eq!(s.error_ns.max, 150);
        assert_eq!(s.span_ns, 310);
        assert_eq!(a.trace(), &[(90, 64), (160, 64), (200, 64), (400, 64)]);
        let t = a.to_trace();
        assert_eq!(t.departures.len(), 4);
    }

    #[test]
    fn empty_summary() {
        let s = DepartureRecorder::new(HZ, 0).summary();
        assert_eq!(s.frames, 0);
        assert_eq!(s.achieved, LayerRates::default());
        assert!(s.error_histogram.is_empty());
    }
}
