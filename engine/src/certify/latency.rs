//! A certification's latency figures: one row's figures over the frames
//! of the trials that count, its histogram, and the device's latency with
//! the tester's own (the baseline a calibration recorded) taken out.
//!
//! Why the correction has the shape it has: the tester timestamps a frame
//! as it leaves (the stamp, written just before the frame is handed to
//! the port) and as it arrives (after the whole frame is in). Through a
//! direct loop (a cable, a ring) it measures its own latency `B`, one
//! frame time `F` on the wire included. Through a device it measures `B +
//! D + F` for a store-and-forward device whose latency `D` runs from the
//! last bit in to the first bit out (the device cannot start sending
//! before the frame's last bit reached it, one frame time after its first
//! left the tester), and `B + D` for a bit-forwarding device (first bit
//! in to first bit out). So, with a baseline, store-and-forward is the
//! measurement less `B` less `F`, bit-forwarding the measurement less
//! `B`. Without a baseline `B` is unknown and the measurement is shown
//! as it is: an upper bound of the device's latency.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::model::{LatencyDefinition, LatencyRow, Settings, Size, Trial};
use crate::pace::measure::Bucket;
use crate::report::{ns_histogram as histogram, Percentiles};
use crate::units::L1_OVERHEAD;

/// The ratio of one histogram bucket's bound to the one before: a
/// quarter octave.
pub const BUCKET_RATIO: f64 = 1.189_207_115_002_721;

/// A row's figures from the trials that count: `(summary, jitter,
/// histogram)`. Of the frames of all of them: the least and the largest
/// latency, the percentiles and the standard deviation (when every trial
/// kept its distribution; else the mean of the trials' figures); the
/// mean is the mean of the trials' means, as RFC 2544 section 26.2
/// reports the average of the trials; the jitter the mean of their
/// standard deviations.
pub fn summarise(counted: &[&Trial]) -> (Percentiles, f64, Vec<Bucket>) {
    let lats: Vec<&Percentiles> = (counted.iter())
        .filter_map(|t| t.latency.as_ref())
        .filter(|l| l.count > 0)
        .collect();
    if lats.is_empty() {
        return (Percentiles::default(), 0.0, Vec::new());
    }
    let mean =
        |f: fn(&Percentiles) -> f64| lats.iter().map(|p| f(p)).sum::<f64>() / lats.len() as f64;
    let mut s = Percentiles {
        count: lats.iter().map(|p| p.count).sum(),
        min_ns: lats.iter().map(|p| p.min_ns).fold(f64::INFINITY, f64::min),
        mean_ns: mean(|p| p.mean_ns),
        p50_ns: mean(|p| p.p50_ns),
        p99_ns: mean(|p| p.p99_ns),
        p999_ns: mean(|p| p.p999_ns),
        max_ns: lats.iter().map(|p| p.max_ns).fold(0.0, f64::max),
        stddev_ns: mean(|p| p.stddev_ns),
    };
    let jitter = s.stddev_ns;
    let hists: Vec<&Histogram<u64>> = (counted.iter())
        .filter(|t| t.latency.as_ref().is_some_and(|l| l.count > 0))
        .filter_map(|t| t.latency_hist.as_ref())
        .collect();
    if hists.len() != lats.len() {
        return (s, jitter, Vec::new());
    }
    let mut all = histogram();
    for h in hists {
        crate::report::merge_ns(&mut all, h);
    }
    s.p50_ns = all.value_at_quantile(0.5) as f64;
    s.p99_ns = all.value_at_quantile(0.99) as f64;
    s.p999_ns = all.value_at_quantile(0.999) as f64;
    s.stddev_ns = all.stdev();
    (s, jitter, buckets(&all))
}

/// The non-empty quarter-octave buckets of a histogram of nanoseconds,
/// lowest first; their counts add up to the histogram's.
pub fn buckets(h: &Histogram<u64>) -> Vec<Bucket> {
    if h.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<Bucket> = Vec::new();
    for v in h.iter_log(1, BUCKET_RATIO) {
        let n = v.count_since_last_iteration();
        if n == 0 {
            continue;
        }
        let le_ns = v.value_iterated_to();
        match out.last_mut() {
            // Below a few ns the quarter-octave bounds round to one value.
            Some(b) if b.le_ns == le_ns => b.count += n,
            _ => out.push(Bucket { le_ns, count: n }),
        }
    }
    out
}

/// One frame's time on a line of `line_bps` at L1 (its bits and the 20
/// bytes of preamble and gap before the next), ns: the `F` of the module
/// text.
pub fn frame_time_ns(frame_size: u32, line_bps: u64) -> f64 {
    if line_bps == 0 {
        return 0.0;
    }
    (f64::from(frame_size) + L1_OVERHEAD as f64) * 8.0 * 1e9 / line_bps as f64
}

/// The device's latency from the tester's `measured`, its `baseline` at
/// the same size, by `definition` (see the module text): every figure
/// less the baseline's mean and, store-and-forward, less `frame_ns`; a
/// figure that would fall below zero (the device adds less than the
/// tester's own variation) reads 0. The count and the spread (standard
/// deviation) are the measurement's.
pub fn device(
    measured: &Percentiles,
    baseline: &Percentiles,
    definition: LatencyDefinition,
    frame_ns: f64,
) -> Percentiles {
    let shift = baseline.mean_ns
        + match definition {
            LatencyDefinition::StoreAndForward => frame_ns,
            LatencyDefinition::BitForwarding => 0.0,
        };
    let less = |x: f64| (x - shift).max(0.0);
    Percentiles {
        count: measured.count,
        min_ns: less(measured.min_ns),
        mean_ns: less(measured.mean_ns),
        p50_ns: less(measured.p50_ns),
        p99_ns: less(measured.p99_ns),
        p999_ns: less(measured.p999_ns),
        max_ns: less(measured.max_ns),
        stddev_ns: measured.stddev_ns,
    }
}

/// The tester's own latency, recorded by `landspeed rfc2544 --calibrate`
/// on a direct loop and given to later certifications with `--baseline`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    /// Always `landspeed latency baseline`: what the file is.
    pub kind: String,
    /// landspeed's version that recorded it.
    pub landspeed: String,
    /// When the calibration started, UTC, RFC 3339.
    pub recorded: String,
    /// The profile the calibration ran.
    pub profile: String,
    /// What a certification must share with the calibration for the
    /// baseline to be its tester's latency.
    pub setup: Setup,
    /// The tester's latency per direction and size.
    pub rows: Vec<BaselineRow>,
}

/// What the baseline's figures depend on: the tester's ports, the frames
/// it sends, how it timestamps.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Setup {
    /// Each port: its profile name and its device (`t0 net_af_packet0
    /// iface=ls-t0`).
    pub ports: Vec<String>,
    /// Each stream the TX tasks send, its headers in words.
    pub streams: Vec<String>,
    /// Each TX and RX task: role, lcore, port, queue.
    pub tasks: Vec<String>,
    /// How latency is timestamped: the method of the certification's
    /// `latency_method` ([`SOFTWARE_METHOD`], [`NIC_RX_METHOD`] or
    /// [`MIXED_METHOD`]); empty when it is not known yet (a receiver
    /// asks `auto` and the ports are not open), and then not compared.
    pub method: String,
}

/// The tester's latency in one direction at one size.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BaselineRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The rate its trials ran at, % of line.
    pub rate_pct: f64,
    /// Its figures over the trials that counted.
    pub summary: Percentiles,
}

/// What the file's `kind` says.
pub const BASELINE_KIND: &str = "landspeed latency baseline";

/// How latency is timestamped when every arrival time is the TSC read
/// after the poll.
pub const SOFTWARE_METHOD: &str = "software: the TX TSC written into each frame's stamp as it is \
     built; the RX TSC read after the poll that returned the frame";
/// How latency is timestamped when every arrival time is the NIC's.
pub const NIC_RX_METHOD: &str = "NIC RX: the TX TSC written into each frame's stamp as it is \
     built; the receiving NIC's timestamp of the frame's arrival, mapped onto the TSC";
/// How latency is timestamped when some arrival times are the NIC's and
/// some the TSC's.
pub const MIXED_METHOD: &str = "mixed: the TX TSC written into each frame's stamp as it is \
     built; the receiving NIC's timestamp of the frame's arrival, mapped onto the TSC, where the \
     NIC gave one, else the RX TSC read after the poll that returned the frame";

/// The timestamp method of trials whose latency arrival times came from
/// `sources` (each a trial's `latency_source`: `software`, `nic_rx`,
/// `nic_rx+software`), in words; `None` without any.
pub fn method_of<'a>(sources: impl IntoIterator<Item = &'a str>) -> Option<&'static str> {
    let (mut software, mut nic) = (false, false);
    for s in sources {
        match s {
            "software" => software = true,
            "nic_rx" => nic = true,
            _ => (software, nic) = (true, true),
        }
    }
    match (software, nic) {
        (false, false) => None,
        (true, false) => Some(SOFTWARE_METHOD),
        (false, true) => Some(NIC_RX_METHOD),
        (true, true) => Some(MIXED_METHOD),
    }
}

impl Baseline {
    /// The baseline of a calibration's latency rows (those with a
    /// figure), recorded `recorded` by profile `profile` with `setup`.
    pub fn of(rows: &[LatencyRow], recorded: &str, profile: &str, setup: Setup) -> Baseline {
        Baseline {
            kind: BASELINE_KIND.into(),
            landspeed: env!("CARGO_PKG_VERSION").into(),
            recorded: recorded.into(),
            profile: profile.into(),
            setup,
            rows: (rows.iter())
                .filter(|r| r.summary.count > 0)
                .map(|r| BaselineRow {
                    direction: r.direction.clone(),
                    frame_size: r.frame_size,
                    rate_pct: r.rate_pct,
                    summary: r.summary,
                })
                .collect(),
        }
    }

    /// Whether this baseline is the tester's latency for a certification
    /// of `setup` over `directions` at `sizes`: `Err` names the first
    /// difference (a port, a stream, a task, the timestamp method, a
    /// direction or size the calibration did not measure).
    pub fn fits(&self, setup: &Setup, directions: &[String], sizes: &[u32]) -> Result<(), String> {
        if self.kind != BASELINE_KIND {
            return Err(format!(
                "is not a latency baseline (its kind is `{}`)",
                self.kind
            ));
        }
        let same = |what: &str, theirs: &[String], ours: &[String]| -> Result<(), String> {
            for (i, (a, b)) in theirs.iter().zip(ours).enumerate() {
                if a != b {
                    return Err(format!(
                        "was recorded with {what} {} `{a}`, this certification has `{b}`",
                        i + 1
                    ));
                }
            }
            if theirs.len() != ours.len() {
                return Err(format!(
                    "was recorded with {} {what}(s), this certification has {}",
                    theirs.len(),
                    ours.len()
                ));
            }
            Ok(())
        };
        same("port", &self.setup.ports, &setup.ports)?;
        same("stream", &self.setup.streams, &setup.streams)?;
        same("task", &self.setup.tasks, &setup.tasks)?;
        if !setup.method.is_empty() {
            self.fits_method(&setup.method)?;
        }
        for dir in directions {
            for &size in sizes {
                if self.row(dir, size).is_none() {
                    let has: Vec<u32> = (self.rows.iter())
                        .filter(|r| &r.direction == dir)
                        .map(|r| r.frame_size)
                        .collect();
                    let has = if has.is_empty() {
                        "nothing in that direction".to_string()
                    } else {
                        format!("only {} there", super::model::sizes_text(&has))
                    };
                    let size = Size(size).bytes();
                    return Err(format!("has no latency for {size} in {dir} ({has})"));
                }
            }
        }
        Ok(())
    }

    /// Whether this baseline was timestamped as a certification timestamps
    /// by `method` (see [`Setup::method`]).
    pub fn fits_method(&self, method: &str) -> Result<(), String> {
        if self.setup.method == method {
            return Ok(());
        }
        Err(format!(
            "was timestamped by {}, this certification by {}",
            self.setup.method, method
        ))
    }

    /// Its row for `direction` and `size`.
    pub fn row(&self, direction: &str, size: u32) -> Option<&BaselineRow> {
        (self.rows.iter()).find(|r| r.direction == direction && r.frame_size == size)
    }
}

/// Corrects every latency row of figures with `baseline`'s row of the
/// same direction and size: sets its `baseline` and its `device`
/// figures (see [`device`]) by the definition of `s`, at a line of
/// `line_bps` (an IMIX's frame time is its mean frame's).
pub fn correct(rows: &mut [LatencyRow], baseline: &Baseline, s: &Settings, line_bps: u64) {
    for r in rows.iter_mut().filter(|r| r.summary.count > 0) {
        if let Some(b) = baseline.row(&r.direction, r.frame_size) {
            let bits = (s.mean_bytes(r.frame_size) + L1_OVERHEAD as f64) * 8.0;
            let f = if line_bps == 0 {
                0.0
            } else {
                bits * 1e9 / line_bps as f64
            };
            r.baseline = Some(b.summary);
            r.device = Some(device(&r.summary, &b.summary, s.latency_definition, f));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::model::IMIX;

    fn trial(values: &[u64]) -> Trial {
        let mut h = histogram();
        for &v in values {
            h.record(v).unwrap();
        }
        let p = Percentiles::from_ticks(&h, 1_000_000_000);
        Trial {
            latency: Some(p),
            latency_hist: Some(h),
            ..Trial::default()
        }
    }

    #[test]
    fn min_and_max_are_the_extremes_of_every_frame_not_means_of_trials() {
        // One trial's worst frame took 26 ms, another's 1.3 ms.
        let a = trial(&[400_000, 420_000, 26_000_000]);
        let b = trial(&[410_000, 430_000, 1_300_000]);
        let (s, _, _) = summarise(&[&a, &b]);
        assert_eq!(s.max_ns, a.latency.unwrap().max_ns);
        assert_eq!(s.min_ns, a.latency.unwrap().min_ns);
        // Within the histograms' 0.1 %: 26 ms, not the 13.6 ms mean of
        // the two trials' maxima.
        assert!((s.max_ns - 26_000_000.0).abs() <= 26_000.0, "{}", s.max_ns);
        assert!((s.min_ns - 400_000.0).abs() <= 400.0, "{}", s.min_ns);
        assert_eq!(s.count, 6);
        // The percentiles of all six frames, microseconds to
        // milliseconds: the third lowest and the highest.
        assert!((s.p50_ns - 420_000.0).abs() <= 420.0, "{}", s.p50_ns);
        assert!((s.p99_ns - 26_000_000.0).abs() <= 26_000.0, "{}", s.p99_ns);
    }

    #[test]
    fn the_mean_is_the_mean_of_the_trials_and_the_percentiles_are_of_all_frames() {
        let a = trial(&[100, 100, 100, 100]);
        let b = trial(&[300, 300]);
        let (s, jitter, hist) = summarise(&[&a, &b]);
        // RFC 2544: the average of the trials' figures.
        assert_eq!(s.mean_ns, 200.0);
        // Over all six frames the median is 100 and the p99 300.
        assert_eq!(s.p50_ns, 100.0);
        assert_eq!(s.p99_ns, 300.0);
        assert_eq!(jitter, 0.0);
        let total: u64 = hist.iter().map(|b| b.count).sum();
        assert_eq!(total, 6);
        assert_eq!(hist.len(), 2, "{hist:?}");
        assert_eq!((hist[0].count, hist[1].count), (4, 2));
        assert!(hist[0].le_ns >= 100 && hist[0].le_ns < 119, "{hist:?}");
        assert!(hist[1].le_ns >= 300 && hist[1].le_ns < 357, "{hist:?}");
    }

    #[test]
    fn without_distributions_the_percentiles_are_the_trials_means() {
        let mut a = trial(&[100, 200]);
        let mut b = trial(&[300, 400]);
        a.latency_hist = None;
        b.latency_hist = None;
        let (s, _, hist) = summarise(&[&a, &b]);
        assert_eq!(
            s.p50_ns,
            (a.latency.unwrap().p50_ns + b.latency.unwrap().p50_ns) / 2.0
        );
        assert!(hist.is_empty());
        assert_eq!(s.min_ns, 100.0);
        assert_eq!(s.max_ns, 400.0);
    }

    #[test]
    fn nothing_to_summarise_is_zero_frames() {
        let (s, j, h) = summarise(&[]);
        assert_eq!((s.count, j, h.len()), (0, 0.0, 0));
        let silent = Trial::default();
        assert_eq!(summarise(&[&silent]).0.count, 0);
    }

    #[test]
    fn ticks_become_nanoseconds_less_an_offset() {
        use crate::stats::histogram_in_ns;
        let mut h = Histogram::<u64>::new(3).unwrap();
        h.record_n(2_000, 3).unwrap();
        let ns = histogram_in_ns(&h, 2_000_000_000, 0.0);
        assert_eq!(ns.len(), 3);
        assert_eq!(ns.min(), 1_000);
        assert_eq!(histogram_in_ns(&h, 0, 0.0).max(), 2_000);
        assert_eq!(histogram_in_ns(&h, 0, 500.0).max(), 1_500);
        assert_eq!(histogram_in_ns(&h, 0, 5_000.0).min(), 1, "never below 1 ns");
        // Milliseconds stay milliseconds (not clamped to a fresh
        // histogram's first bounds).
        let mut ms = histogram();
        ms.record_n(26_000_000, 3).unwrap();
        let ns = histogram_in_ns(&ms, 0, 0.0);
        assert_eq!(ns.len(), 3);
        assert!(ns.equivalent(ns.max(), 26_000_000), "{}", ns.max());
    }

    #[test]
    fn a_frame_time_counts_the_frame_and_its_twenty_bytes_at_line_rate() {
        // 1518 B at 10 Gbit/s: 1538 × 8 / 10e9 = 1230.4 ns.
        assert!((frame_time_ns(1518, 10_000_000_000) - 1230.4).abs() < 1e-9);
        assert_eq!(frame_time_ns(64, 0), 0.0);
    }

    #[test]
    fn the_device_is_the_measurement_less_the_baseline_and_for_store_and_forward_a_frame() {
        let m = Percentiles {
            count: 10,
            min_ns: 5_000.0,
            mean_ns: 6_000.0,
            p50_ns: 5_900.0,
            p99_ns: 8_000.0,
            p999_ns: 9_000.0,
            max_ns: 10_000.0,
            stddev_ns: 50.0,
        };
        let base = Percentiles {
            mean_ns: 2_000.0,
            min_ns: 1_500.0,
            ..Percentiles::default()
        };
        let bf = device(&m, &base, LatencyDefinition::BitForwarding, 1_230.4);
        assert_eq!(
            (bf.min_ns, bf.mean_ns, bf.p50_ns, bf.p99_ns, bf.p999_ns, bf.max_ns),
            (3_000.0, 4_000.0, 3_900.0, 6_000.0, 7_000.0, 8_000.0)
        );
        assert_eq!((bf.count, bf.stddev_ns), (10, 50.0));
        let sf = device(&m, &base, LatencyDefinition::StoreAndForward, 1_000.0);
        assert_eq!(
            (sf.min_ns, sf.mean_ns, sf.max_ns),
            (2_000.0, 3_000.0, 7_000.0)
        );
        // Below the tester's own variation: 0, never negative.
        let low = device(&m, &base, LatencyDefinition::StoreAndForward, 3_500.0);
        assert_eq!((low.min_ns, low.mean_ns), (0.0, 500.0));
    }

    fn setup() -> Setup {
        Setup {
            ports: vec!["t0 net_ring0".into(), "t1 net_ring1".into()],
            streams: vec!["s v4 UDP".into()],
            tasks: vec!["tx lcore 1 port t0 queue 0".into()],
            method: "software".into(),
        }
    }

    fn row(dir: &str, size: u32, mean: f64) -> LatencyRow {
        LatencyRow {
            direction: dir.into(),
            frame_size: size,
            rate_pct: 100.0,
            summary: Percentiles {
                count: 5,
                mean_ns: mean,
                ..Percentiles::default()
            },
            jitter_ns: 0.0,
            trials: Vec::new(),
            complete: true,
            counted: 1,
            histogram: Vec::new(),
            baseline: None,
            device: None,
        }
    }

    #[test]
    fn a_baseline_fits_only_its_own_setup_directions_and_sizes() {
        let b = Baseline::of(
            &[row("t0 → t1", 64, 900.0), row("t0 → t1", 1518, 2_000.0)],
            "2026-12-05T10:00:00Z",
            "loop.yaml",
            setup(),
        );
        let dirs = vec!["t0 → t1".to_string()];
        assert_eq!(b.fits(&setup(), &dirs, &[64, 1518]), Ok(()));
        assert_eq!(
            b.fits(&setup(), &dirs, &[64, 512]),
            Err("has no latency for 512 B in t0 → t1 (only 64, 1518 B there)".into())
        );
        assert_eq!(
            b.fits(&setup(), &["t1 → t0".to_string()], &[64]),
            Err("has no latency for 64 B in t1 → t0 (nothing in that direction)".into())
        );
        let mut other = setup();
        other.ports[1] = "t1 net_ring2".into();
        assert_eq!(
            b.fits(&other, &dirs, &[64]),
            Err(
                "was recorded with port 2 `t1 net_ring1`, this certification has `t1 net_ring2`"
                    .into()
            )
        );
        let mut other = setup();
        other.streams.push("s6 v6 UDP".into());
        assert_eq!(
            b.fits(&other, &dirs, &[64]),
            Err("was recorded with 1 stream(s), this certification has 2".into())
        );
        let mut other = setup();
        other.tasks[0] = "tx lcore 2 port t0 queue 0".into();
        assert!(b
            .fits(&other, &dirs, &[64])
            .unwrap_err()
            .starts_with("was recorded with task 1"));
        let mut other = setup();
        other.method = "nic_rx".into();
        assert_eq!(
            b.fits(&other, &dirs, &[64]),
            Err("was timestamped by software, this certification by nic_rx".into())
        );
        let mut wrong = b.clone();
        wrong.kind = "something".into();
        assert!(wrong
            .fits(&setup(), &dirs, &[64])
            .unwrap_err()
            .contains("not a latency baseline"));
    }

    #[test]
    fn correcting_fills_baseline_and_device_where_the_baseline_has_the_size() {
        let b = Baseline::of(&[row("a", 64, 900.0)], "", "", setup());
        let mut rows = vec![row("a", 64, 2_000.0), row("a", 128, 2_000.0)];
        rows[0].summary.min_ns = 1_500.0;
        let bf = Settings {
            latency_definition: LatencyDefinition::BitForwarding,
            ..Settings::default()
        };
        correct(&mut rows, &b, &bf, 10_000_000_000);
        assert_eq!(rows[0].baseline.unwrap().mean_ns, 900.0);
        let d = rows[0].device.unwrap();
        assert_eq!((d.mean_ns, d.min_ns), (1_100.0, 600.0));
        assert_eq!(rows[1].device, None);
        let mut rows = vec![row("a", 64, 2_000.0)];
        correct(&mut rows, &b, &Settings::default(), 10_000_000_000);
        // 84 B × 8 / 10 Gbit/s = 67.2 ns more taken out.
        assert!((rows[0].device.unwrap().mean_ns - (1_100.0 - 67.2)).abs() < 1e-9);
        // An IMIX of 64 and 1518 B: its mean frame, 791 B (811 at L1).
        let imix = Settings {
            imix: vec![64, 1518],
            ..Settings::default()
        };
        let b = Baseline::of(&[row("a", IMIX, 900.0)], "", "", setup());
        let mut rows = vec![row("a", IMIX, 2_000.0)];
        correct(&mut rows, &b, &imix, 10_000_000_000);
        assert!((rows[0].device.unwrap().mean_ns - (1_100.0 - 648.8)).abs() < 1e-9);
    }
}
