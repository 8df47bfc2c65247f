//! The figures of a run that every layer above the workers shares: the
//! totals of a span of time ([`Span`], [`Interval`]) and a latency
//! distribution ([`Percentiles`], and the nanosecond histograms it is
//! taken from). Data and arithmetic only.

use serde::{Deserialize, Serialize};

use crate::pace::measure::LayerRates;
use crate::units::format_nanos;

/// What a worker's thread did over its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    /// Wall-clock span of the worker, start to end, in ns.
    pub wall_ns: u64,
    /// Of it, ns the thread ran on its CPU.
    pub run_ns: u64,
    /// Of it, ns the thread was runnable but another thread had its CPU.
    pub wait_ns: u64,
    /// Timeslices the thread ran (1 when nothing else wanted its CPU).
    pub timeslices: u64,
    /// Of it, ns the virtual machine's host took the thread's CPU at the
    /// least (the CPU's steal time: one 10 ms tick less than the ticks
    /// counted between the readings; 0 on bare metal or where the kernel
    /// counts none).
    #[serde(default)]
    pub stolen_ns: u64,
    /// `wait_ns` and `stolen_ns` as a share of `wall_ns`, in percent
    /// (0..=100).
    pub descheduled_pct: f64,
}

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
