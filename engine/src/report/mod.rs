//! Run results: the JSON document, iperf3-like interval lines, and the
//! human summary.
//!
//! Every figure printed is computed from the [`RunResult`] that `--json`
//! writes, so a reader can reproduce it from the file.

pub mod join;
pub(crate) mod qualify;
pub mod summary;

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::pace::measure::LayerRates;
use crate::units::{format_bytes, format_nanos, Prefixes};

/// Totals over one span of time (an interval or the whole run).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Span {
    /// Start, seconds since the run started.
    pub start_s: f64,
    /// End, seconds since the run started.
    pub end_s: f64,
    /// Frames.
    pub frames: u64,
    /// Bytes, FCS included (L2).
    pub bytes: u64,
}

impl Span {
    /// Length of the span in seconds.
    pub fn secs(&self) -> f64 {
        (self.end_s - self.start_s).max(0.0)
    }

    /// The span's rates at every layer (no payload count: 0).
    fn rates(&self) -> LayerRates {
        LayerRates::of(self.frames, self.bytes, 0, self.secs())
    }

    /// L2 rate in bit/s (frame bytes including FCS).
    pub fn l2_bps(&self) -> f64 {
        self.rates().l2_bps
    }

    /// L1 rate in bit/s (adds 20 bytes of preamble, SFD and gap per frame).
    pub fn l1_bps(&self) -> f64 {
        self.rates().l1_bps
    }

    /// Frames per second.
    pub fn fps(&self) -> f64 {
        self.rates().fps
    }
}

/// One reporting interval: what TX sent and RX received in it.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    /// Frames the TX lcores handed to the PMD.
    pub tx: Span,
    /// Frames the RX lcores received.
    pub rx: Span,
    /// Frames lost so far at the end of the interval (RX view).
    pub rx_lost: u64,
    /// Frames the ports refused in the interval: malformed or too long
    /// (`ierrors` and the refusing extended statistics, summed over the
    /// ports; see [`crate::limits::port_errors`]).
    #[serde(default)]
    pub rx_refused: u64,
    /// Frames the ports dropped in the interval for want of room or
    /// buffers (`imissed + rx_nombuf`).
    #[serde(default)]
    pub rx_drops: u64,
    /// Frames the ports were handed but did not send in the interval
    /// (`oerrors` and the TX-error extended statistics).
    #[serde(default)]
    pub tx_errors: u64,
}

impl Interval {
    /// Adds the ports' error counts of the interval.
    pub fn add_errors(&mut self, e: &crate::limits::port_errors::ErrorInterval) {
        self.rx_refused += e.rx_refused;
        self.rx_drops += e.rx_drops;
        self.tx_errors += e.tx_errors;
    }

    /// A port refused, dropped or did not send a frame in the interval.
    pub fn has_errors(&self) -> bool {
        self.rx_refused != 0 || self.rx_drops != 0 || self.tx_errors != 0
    }
}

/// Percentiles of a distribution in nanoseconds.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Percentiles {
    /// Samples.
    pub count: u64,
    /// Smallest.
    pub min_ns: f64,
    /// Mean.
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: f64,
    /// 99th percentile.
    pub p99_ns: f64,
    /// 99.9th percentile.
    pub p999_ns: f64,
    /// Largest.
    pub max_ns: f64,
    /// Standard deviation.
    pub stddev_ns: f64,
}

impl Percentiles {
    /// Summarise a histogram of TSC ticks at `hz`.
    pub fn from_ticks(h: &hdrhistogram::Histogram<u64>, hz: u64) -> Self {
        if h.is_empty() || hz == 0 {
            return Self::default();
        }
        let ns = |t: f64| t * 1e9 / hz as f64;
        Self {
            count: h.len(),
            min_ns: ns(h.min() as f64),
            mean_ns: ns(h.mean()),
            p50_ns: ns(h.value_at_quantile(0.5) as f64),
            p99_ns: ns(h.value_at_quantile(0.99) as f64),
            p999_ns: ns(h.value_at_quantile(0.999) as f64),
            max_ns: ns(h.max() as f64),
            stddev_ns: ns(h.stdev()),
        }
    }

    /// The figures of frames whose departure is `offset_ns` later than
    /// their stamps say (the mean of the NIC's sampled TX timestamps less
    /// the software stamp): every figure less the offset, the count and
    /// the standard deviation unchanged.
    pub fn less(&self, offset_ns: f64) -> Self {
        Self {
            count: self.count,
            min_ns: self.min_ns - offset_ns,
            mean_ns: self.mean_ns - offset_ns,
            p50_ns: self.p50_ns - offset_ns,
            p99_ns: self.p99_ns - offset_ns,
            p999_ns: self.p999_ns - offset_ns,
            max_ns: self.max_ns - offset_ns,
            stddev_ns: self.stddev_ns,
        }
    }

    /// `p50/p99/p99.9/max` in a compact human form.
    pub fn short(&self) -> String {
        format!(
            "p50 {} p99 {} p99.9 {} max {}",
            format_nanos(self.p50_ns),
            format_nanos(self.p99_ns),
            format_nanos(self.p999_ns),
            format_nanos(self.max_ns)
        )
    }
}

/// An empty histogram of nanoseconds (3 significant figures) that grows
/// as its values need.
pub fn ns_histogram() -> hdrhistogram::Histogram<u64> {
    let mut h = hdrhistogram::Histogram::new(3).expect("3 significant figures are valid");
    h.auto(true);
    h
}

/// Records `count` frames of `value` in `h`, growing it as an
/// auto-resizing histogram must; clamped into its bounds only where it
/// cannot grow. (hdrhistogram's `saturating_record_n` clamps before it
/// resizes: a fresh [`ns_histogram`] would hold every value above 2 µs as
/// 2 ns.)
pub fn record_ns(h: &mut hdrhistogram::Histogram<u64>, value: u64, count: u64) {
    if h.record_n(value, count).is_err() {
        h.saturating_record_n(value, count);
    }
}

/// Adds every frame of `from` to `into`, both in nanoseconds, through
/// [`record_ns`].
pub fn merge_ns(into: &mut hdrhistogram::Histogram<u64>, from: &hdrhistogram::Histogram<u64>) {
    for v in from.iter_recorded() {
        record_ns(into, v.value_iterated_to(), v.count_at_value());
    }
}

/// `ticks`, a histogram in ticks of a `hz` clock (`hz` 0: already in
/// ns), in nanoseconds, each value less `offset_ns` (at least 1 ns).
pub fn histogram_in_ns(
    ticks: &hdrhistogram::Histogram<u64>,
    hz: u64,
    offset_ns: f64,
) -> hdrhistogram::Histogram<u64> {
    let mut h = ns_histogram();
    for v in ticks.iter_recorded() {
        let t = v.value_iterated_to();
        let ns = if hz == 0 {
            t as f64
        } else {
            (u128::from(t) * 1_000_000_000 / u128::from(hz)) as f64
        };
        record_ns(&mut h, (ns - offset_ns).max(1.0) as u64, v.count_at_value());
    }
    h
}

/// A byte count as `623.6 MB` (decimal prefixes, as rates have):
/// [`format_bytes`] with SI prefixes.
pub fn bytes_str(b: u64) -> String {
    format_bytes(b as f64, Prefixes::Si)
}

/// The header of the interval table.
pub fn interval_header(tx: bool, rx: bool) -> String {
    let mut s = String::from("[ ID] Interval          ");
    if tx {
        s.push_str("      Frames      Bytes   L1 Gbit/s  L2 Gbit/s      Mpps");
    }
    if rx {
        s.push_str(" |   RX frames  L2 Gbit/s      Mpps       Lost");
    }
    s
}

/// One interval line, iperf3 `-i 1` style.
pub fn interval_line(iv: &Interval, tx: bool, rx: bool) -> String {
    let mut s = format!(
        "[SUM] {:6.2}-{:<6.2} sec",
        iv.tx.start_s.min(iv.rx.start_s),
        iv.tx.end_s.max(iv.rx.end_s)
    );
    if tx {
        let _ = write!(
            s,
            " {:>11} {:>10} {:>11.3} {:>10.3} {:>9.4}",
            iv.tx.frames,
            bytes_str(iv.tx.bytes),
            iv.tx.l1_bps() / 1e9,
            iv.tx.l2_bps() / 1e9,
            iv.tx.fps() / 1e6
        );
    }
    if rx {
        let _ = write!(
            s,
            " | {:>11} {:>10.3} {:>9.4} {:>10}",
            iv.rx.frames,
            iv.rx.l2_bps() / 1e9,
            iv.rx.fps() / 1e6,
            iv.rx_lost
        );
    }
    // The ports' own counts, only when they counted any.
    for (n, word) in [
        (iv.rx_refused, "rx_err"),
        (iv.rx_drops, "rx_drop"),
        (iv.tx_errors, "tx_err"),
    ] {
        if n > 0 {
            let _ = write!(s, "  {word} {n}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_departure_offset_moves_every_latency_figure_by_itself() {
        let p = Percentiles {
            count: 9,
            min_ns: 10_000.0,
            mean_ns: 12_500.0,
            p50_ns: 12_000.0,
            p99_ns: 19_000.0,
            p999_ns: 19_500.0,
            max_ns: 20_000.0,
            stddev_ns: 800.0,
        };
        assert_eq!(
            p.less(1_250.0),
            Percentiles {
                count: 9,
                min_ns: 8_750.0,
                mean_ns: 11_250.0,
                p50_ns: 10_750.0,
                p99_ns: 17_750.0,
                p999_ns: 18_250.0,
                max_ns: 18_750.0,
                stddev_ns: 800.0,
            }
        );
        assert_eq!(p.less(-250.0).min_ns, 10_250.0);
        assert_eq!(p.less(0.0), p);
    }

    #[test]
    fn span_rates_at_each_layer() {
        // 136,612 frames of 9130 bytes in one second: 10 GbE line rate.
        let s = Span {
            start_s: 0.0,
            end_s: 1.0,
            frames: 136_612,
            bytes: 136_612 * 9130,
        };
        assert_eq!(s.l2_bps(), 136_612.0 * 9130.0 * 8.0);
        assert_eq!(s.l1_bps(), 136_612.0 * 9150.0 * 8.0);
        assert!((s.l1_bps() - 10e9).abs() / 10e9 < 1e-4);
        assert_eq!(s.fps(), 136_612.0);
        assert_eq!(Span::default().fps(), 0.0);
    }

    #[test]
    fn human_units() {
        assert_eq!(format_nanos(850.0), "850 ns");
        assert_eq!(format_nanos(12_345.0), "12.3 us");
        assert_eq!(format_nanos(4_560_000.0), "4.56 ms");
        assert_eq!(bytes_str(623_600_000), "623.6 MB");
        assert_eq!(bytes_str(999), "999 B");
        assert_eq!(bytes_str(1_250_000_000), "1.2 GB");
    }

    #[test]
    fn interval_line_figures() {
        let iv = Interval {
            tx: Span {
                start_s: 0.0,
                end_s: 1.0,
                frames: 68_306,
                bytes: 68_306 * 9130,
            },
            rx: Span::default(),
            rx_lost: 0,
            ..Interval::default()
        };
        let line = interval_line(&iv, true, false);
        assert!(line.contains("0.00-1.00"), "{line}");
        assert!(line.contains("68306"), "{line}");
        assert!(line.contains("5.000"), "{line}");
        assert!(line.contains("4.989"), "{line}");
        assert!(!line.contains("err"), "{line}");
    }

    #[test]
    fn an_interval_in_which_a_port_counted_errors_says_so_last() {
        let span = Span {
            start_s: 1.0,
            end_s: 2.0,
            frames: 1000,
            bytes: 1000 * 64,
        };
        let mut iv = Interval {
            tx: span,
            rx: span,
            ..Interval::default()
        };
        let clean = interval_line(&iv, true, true);
        iv.rx_refused = 25;
        assert_eq!(
            interval_line(&iv, true, true),
            format!("{clean}  rx_err 25")
        );
        iv.rx_drops = 3;
        iv.tx_errors = 1;
        assert_eq!(
            interval_line(&iv, true, true),
            format!("{clean}  rx_err 25  rx_drop 3  tx_err 1")
        );
        iv.rx_refused = 0;
        assert_eq!(
            interval_line(&iv, false, true),
            format!(
                "{}  rx_drop 3  tx_err 1",
                interval_line(
                    &Interval {
                        tx: span,
                        rx: span,
                        ..Interval::default()
                    },
                    false,
                    true
                )
            )
        );
        // Written before the ports' counts were kept: none.
        let old: Interval = serde_json::from_str(
            r#"{"tx":{"start_s":0,"end_s":1,"frames":1,"bytes":64},"rx":{"start_s":0,"end_s":1,"frames":1,"bytes":64},"rx_lost":0}"#,
        )
        .unwrap();
        assert!(!old.has_errors());
    }
}
