//! The result of a run: what `--json` writes and what the summary prints.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::dpdk::{FlowControl, PortStats};
use crate::limits::port_errors::{self, ErrorSeries};
use crate::limits::verdict::{Observation, Verdict, DESCHEDULED_MAX};
use crate::outcome::{Outcome, Problem};
use crate::pace::measure::{LayerRates, PaceSummary};
use crate::rx::seq::SeqCounts;
use crate::rx::{CorruptCounts, StreamAcc, StreamTally};
use crate::stats::{Interval, Percentiles};
use crate::wire::spec::FCS_LEN;

pub use crate::stats::CpuTime;

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
    /// Where `link_bps` comes from: the profile's `link:` or the driver.
    #[serde(default)]
    pub line_source: LineSource,
    /// The PMD's counters over the run.
    pub stats: PortStats,
    /// Extended counters that are not zero, in the driver's order.
    pub xstats: Vec<(String, u64)>,
    /// The port's MTU during the run, as the driver reports it (0: it
    /// cannot say; absent in results of older versions).
    #[serde(default)]
    pub mtu: u16,
    /// Bytes of each mbuf of the port's pool after the headroom: a frame
    /// up to this long arrives in one segment.
    #[serde(default)]
    pub rx_mbuf_room: u32,
    /// What became of the port's flow control when it was configured
    /// (`turned_off`, `already_off`, `not_supported`, `read_failed`,
    /// `still_on`); `null` in results written before it was reported.
    #[serde(default)]
    pub flow_control: Option<FlowControl>,
    /// Its error counters read every interval: frames it refused (malformed
    /// or too long), dropped for want of room, or did not send; per class,
    /// when each began, the worst interval and every interval that counted
    /// any (docs/limits.md, "Port error counters"). Empty in results of
    /// older versions.
    #[serde(default)]
    pub errors: ErrorSeries,
    /// Where its receivers' and senders' timestamps came from, what the
    /// port offered, and the NIC clock's map when it was used (ports with
    /// a receiver; `null` in results written before NIC timestamps).
    #[serde(default)]
    pub timestamps: Option<crate::clock::nic::PortStamps>,
    /// The departure handshake's control frames on a memif port between
    /// two landspeed processes, taken out of `stats` (docs/lab.md); `null`
    /// on a port without the handshake.
    #[serde(default)]
    pub control: Option<ControlFrames>,
    /// How the port was set up and what its driver chose: burst paths,
    /// offloads asked, fast free, `rx_drop_en`, its kernel interface's
    /// MTU; `null` in results of older versions.
    #[serde(default)]
    pub setup: Option<PortSetup>,
}

/// How a port was set up and which fast paths its driver took
/// (docs/real-nics.md, "Offloads, fast paths and counters per driver").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortSetup {
    /// The TX burst function the driver chose for queue 0
    /// (`rte_eth_tx_burst_mode_get`: `Vector AVX2`, `Scalar`, ...), or,
    /// for ixgbe, which cannot say, the one its offloads imply (marked
    /// `inferred`); `null` when the driver does not say.
    #[serde(default)]
    pub tx_path: Option<String>,
    /// The RX burst function (`rte_eth_rx_burst_mode_get`); `null` when
    /// the driver does not say.
    #[serde(default)]
    pub rx_path: Option<String>,
    /// The TX offloads asked (`tx-udp-cksum`, `tx-multi-segs`,
    /// `tx-mbuf-fast-free`, ...).
    #[serde(default)]
    pub tx_offloads: Vec<String>,
    /// The RX offloads asked.
    #[serde(default)]
    pub rx_offloads: Vec<String>,
    /// Fast free was asked: every TX queue sends from one pool.
    #[serde(default)]
    pub fast_free: bool,
    /// The RX queues drop at a full ring (`rx_drop_en`).
    #[serde(default)]
    pub rx_drop_en: bool,
    /// The MTU of the port's kernel interface after landspeed set it
    /// (mlx5), when read.
    #[serde(default)]
    pub netdev_mtu: Option<u16>,
}

impl PortSetup {
    /// One line of the summary: `TX path Vector AVX2, RX path Scalar;
    /// offloads asked: ...`.
    pub fn line(&self) -> String {
        let path = |p: &Option<String>| p.clone().unwrap_or_else(|| "not reported".into());
        let offloads: Vec<&str> = (self.tx_offloads.iter())
            .chain(&self.rx_offloads)
            .map(String::as_str)
            .collect();
        let offloads = if offloads.is_empty() {
            "none".to_string()
        } else {
            offloads.join(", ")
        };
        let netdev = self
            .netdev_mtu
            .map_or(String::new(), |m| format!("; kernel interface MTU {m}"));
        format!(
            "TX path {}, RX path {}; offloads asked: {offloads}{netdev}",
            path(&self.tx_path),
            path(&self.rx_path)
        )
    }
}

/// Control frames of the departure handshake on one port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlFrames {
    /// Sent to the peer.
    pub sent: u64,
    /// Received from the peer.
    pub received: u64,
}

/// `lists` summed counter by counter, in the order each name first
/// appears.
pub(crate) fn sum_by_name(
    lists: impl IntoIterator<Item = Vec<(String, u64)>>,
) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    for (name, v) in lists.into_iter().flatten() {
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, total)) => *total = total.saturating_add(v),
            None => out.push((name, v)),
        }
    }
    out
}

/// Where a port's line rate comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LineSource {
    /// The profile's `link:` for the port.
    Declared,
    /// The speed the port's driver reported once its link was up.
    Reported,
    /// Neither: the port has no line rate (`link_bps` 0).
    #[default]
    Unknown,
}

impl LineSource {
    /// The word the summary prints.
    pub fn as_str(self) -> &'static str {
        match self {
            LineSource::Declared => "declared",
            LineSource::Reported => "reported",
            LineSource::Unknown => "unknown",
        }
    }
}

impl PortResult {
    /// The counters behind the frames it refused: `ierrors` over the run,
    /// then each refusing class's largest counter.
    pub fn rx_refused_by(&self) -> Vec<(String, u64)> {
        port_errors::refused_by(self.stats.ierrors, &self.errors.classes)
    }

    /// A [`Problem::PortRxErrors`] when it refused frames and a
    /// [`Problem::PortTxErrors`] when it did not send some.
    pub fn error_problems(&self) -> Vec<Problem> {
        let e = &self.errors;
        let secs = |ms: Option<u64>| ms.map(|m| m as f64 / 1000.0);
        let mut v = Vec::new();
        if e.rx_refused > 0 {
            v.push(Problem::PortRxErrors {
                port: self.name.clone(),
                driver: self.driver.clone(),
                frames: e.rx_refused,
                counters: self.rx_refused_by(),
                first_s: secs(e.first_rx_refused_ms),
                peak_per_interval: e.peak_rx_refused,
            });
        }
        if e.tx_errors > 0 {
            v.push(Problem::PortTxErrors {
                port: self.name.clone(),
                driver: self.driver.clone(),
                frames: e.tx_errors,
                counters: port_errors::tx_errors_by(&e.classes),
                first_s: secs(e.first_tx_error_ms),
                peak_per_interval: e.peak_tx_errors,
            });
        }
        v
    }

    /// A [`Problem::FlowControlNotOff`] when the port is a physical one
    /// (`physical`) whose flow control is not known to be off. A virtual
    /// device has no MAC that honours PAUSE frames (null, ring, pcap,
    /// memif never pause; af_packet and tap are software queues), so its
    /// `not_supported` casts no doubt.
    pub fn flow_control_problem(&self, physical: bool) -> Option<Problem> {
        let fc = self.flow_control?;
        (physical && !fc.off()).then(|| Problem::FlowControlNotOff {
            port: self.name.clone(),
            device: self.device.clone(),
            driver: self.driver.clone(),
            flow_control: fc.name().to_string(),
        })
    }
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
    /// One-way latency (when sender and receiver share a TSC, or stamp
    /// and read a synchronised clock).
    pub latency: Option<Percentiles>,
    /// What the latency was measured on: `tsc` or `synced` (absent: no
    /// latency, or a result written before two-host clocks).
    #[serde(default)]
    pub latency_clock: Option<String>,
    /// Frames that arrived before their departure by the clocks (their
    /// latency recorded as 1): two hosts' synchronised clocks, a NIC's
    /// clock or two cores' TSCs disagree by more than the path takes.
    #[serde(default)]
    pub latency_early: u64,
    /// Where the arrival times of its latency came from: `software` (the
    /// TSC read after each poll), `nic_rx` (the NIC's RX timestamps), or
    /// `nic_rx+software` (some frames came without one); absent without
    /// latency, `software` in results written before NIC timestamps.
    #[serde(default)]
    pub latency_source: Option<String>,
    /// Latencies measured from the NIC's RX timestamps.
    #[serde(default)]
    pub latency_nic: u64,
    /// Where the departure times of its latency came from: `software`
    /// (the stamps), or `nic` (the stamps corrected by the sender's mean
    /// departure offset); absent without latency.
    #[serde(default)]
    pub departure_source: Option<String>,
    /// Every latency `latency` summarises, ns (a certification takes its
    /// figures over the frames of several trials); not written.
    #[serde(skip)]
    pub latency_ns: Option<Histogram<u64>>,
    /// The departure TSC of the frame that ended its newest gap in
    /// sequence (0: none); not written (a certification's recovery test
    /// reads it).
    #[serde(skip)]
    pub resumed_tx_tsc: u64,
    /// Inter-arrival spacing.
    pub interarrival: Percentiles,
    /// Seconds from its first to its last arrival.
    #[serde(default)]
    pub span_s: f64,
    /// Its rates over that span (see [`span_rates`]).
    #[serde(default)]
    pub achieved: LayerRates,
    /// Its first and last arrival on the wall clock, ns since the Unix
    /// epoch: the arrival TSCs mapped through the run's start (wall clock
    /// and TSC read together), so to within a few microseconds; absent
    /// without frames, or in results written before them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals_unix_ns: Option<[u64; 2]>,
    /// The TSCs of its first and last arrival (0: none); not written.
    #[serde(skip)]
    pub arrivals_tsc: [u64; 2],
}

impl StreamResult {
    /// Maps [`StreamResult::arrivals_tsc`] onto the wall clock, from the
    /// run's start: `start_tsc` read at `start_unix_ns`, the TSC at
    /// `tsc_hz`.
    pub fn map_arrivals(&mut self, start_tsc: u64, start_unix_ns: u64, tsc_hz: u64) {
        let [first, last] = self.arrivals_tsc;
        if first == 0 || tsc_hz == 0 || start_unix_ns == 0 {
            return;
        }
        let wall = |tsc: u64| {
            let ns = u128::from(tsc.saturating_sub(start_tsc)) * 1_000_000_000 / u128::from(tsc_hz);
            start_unix_ns.saturating_add(u64::try_from(ns).unwrap_or(u64::MAX))
        };
        self.arrivals_unix_ns = Some([wall(first), wall(last)]);
    }
    /// The result of the stream `acc` accounted, at `tsc_hz`.
    pub fn of(acc: &StreamAcc, tsc_hz: u64, shared_tsc: bool) -> Self {
        Self::of_part(&StreamPart::of(acc), tsc_hz, shared_tsc)
    }

    /// The result of a stream's counts `p` (one lcore's, or several
    /// merged), at `tsc_hz`.
    pub fn of_part(p: &StreamPart, tsc_hz: u64, shared_tsc: bool) -> Self {
        StreamResult {
            id: p.tally.id,
            frames: p.tally.frames,
            bytes: p.tally.bytes,
            seq: p.seq,
            corrupt: p.tally.corrupt,
            corrupt_total: p.tally.corrupt.total(),
            latency: if p.tally.latency_synced {
                Some(Percentiles::from_ticks(&p.tally.latency, 1_000_000_000))
            } else {
                shared_tsc.then(|| Percentiles::from_ticks(&p.tally.latency, tsc_hz))
            },
            latency_clock: match (p.tally.latency_synced, shared_tsc) {
                (true, _) => Some("synced".into()),
                (false, true) => Some("tsc".into()),
                (false, false) => None,
            },
            latency_early: p.tally.latency_early,
            latency_source: (p.tally.latency_synced || shared_tsc)
                .then(|| latency_source(p.tally.latency.len(), p.tally.latency_nic).to_string()),
            latency_nic: p.tally.latency_nic,
            departure_source: (p.tally.latency_synced || shared_tsc).then(|| "software".into()),
            latency_ns: if p.tally.latency_synced {
                Some(crate::stats::histogram_in_ns(&p.tally.latency, 0, 0.0))
            } else {
                shared_tsc.then(|| crate::stats::histogram_in_ns(&p.tally.latency, tsc_hz, 0.0))
            },
            resumed_tx_tsc: p.tally.resumed_tx_tsc,
            interarrival: Percentiles::from_ticks(&p.tally.interarrival, tsc_hz),
            span_s: Arrivals::of(p).span_s(tsc_hz),
            achieved: span_rates(p, tsc_hz).unwrap_or_default(),
            arrivals_unix_ns: None,
            arrivals_tsc: [p.tally.first_tsc, p.tally.last_tsc],
        }
    }
}

/// Corrects the latency of `rx`'s streams measured on the TSC the sender
/// shares (one process) by each stream's mean departure offset in `tx`:
/// the stream's figures less it, its departure source `nic`. Streams of
/// no sampled sender are left as they are.
pub fn correct_departures(rx: &mut RxResult, tx: &TxResult) {
    for s in &mut rx.streams {
        if s.latency_clock.as_deref() != Some("tsc") {
            continue;
        }
        let off = tx.streams.iter().find(|t| t.id == s.id);
        let (Some(off), Some(l)) = (
            off.and_then(TxStreamResult::departure_offset_ns),
            &s.latency,
        ) else {
            continue;
        };
        s.latency = Some(l.less(off));
        if let Some(h) = &s.latency_ns {
            s.latency_ns = Some(crate::stats::histogram_in_ns(h, 0, off));
        }
        s.departure_source = Some(crate::clock::nic::Departure::Nic.name().into());
    }
}

/// Where `measured` latencies, `nic` of them from NIC RX timestamps,
/// took their arrival times from.
pub fn latency_source(measured: u64, nic: u64) -> &'static str {
    match nic {
        0 => "software",
        n if n >= measured => "nic_rx",
        _ => "nic_rx+software",
    }
}

/// Rates over the span from the first to the last arrival of `p`'s
/// frames (see [`Arrivals::rates`]).
pub fn span_rates(p: &StreamPart, tsc_hz: u64) -> Option<LayerRates> {
    Arrivals::of(p).rates(tsc_hz)
}

/// Frames, bytes and the arrival span of one stream or several.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Arrivals {
    frames: u64,
    bytes: u64,
    payload: u64,
    first_tsc: u64,
    last_tsc: u64,
}

impl Arrivals {
    pub(crate) fn of(p: &StreamPart) -> Self {
        Arrivals {
            frames: p.tally.frames,
            bytes: p.tally.bytes,
            payload: p.tally.payload_bytes,
            first_tsc: p.tally.first_tsc,
            last_tsc: p.tally.last_tsc,
        }
    }

    /// Adds `o`'s frames; the span becomes the union of both.
    pub(crate) fn add(&mut self, o: &Arrivals) {
        self.frames += o.frames;
        self.bytes += o.bytes;
        self.payload += o.payload;
        if o.first_tsc != 0 && (self.first_tsc == 0 || o.first_tsc < self.first_tsc) {
            self.first_tsc = o.first_tsc;
        }
        self.last_tsc = self.last_tsc.max(o.last_tsc);
    }

    /// Seconds from the first arrival to the last.
    pub(crate) fn span_s(&self, tsc_hz: u64) -> f64 {
        self.last_tsc.saturating_sub(self.first_tsc) as f64 / tsc_hz as f64
    }

    /// Rates over the span: `n − 1` frames over it (the first frame opens
    /// it, as TX rates run from the first to the last departure); `None`
    /// for fewer than two frames or a span of zero.
    pub(crate) fn rates(&self, tsc_hz: u64) -> Option<LayerRates> {
        if self.frames < 2 || tsc_hz == 0 || self.last_tsc <= self.first_tsc {
            return None;
        }
        let k = (self.frames - 1) as f64 / self.frames as f64;
        let secs = self.span_s(tsc_hz) / k;
        Some(LayerRates::of(self.frames, self.bytes, self.payload, secs))
    }
}

/// One stream's counts as one RX lcore kept them (histograms in TSC
/// ticks), or the merge of several lcores' counts of the same stream.
#[derive(Clone, Debug)]
pub struct StreamPart {
    /// Everything but the sequence accounting; the inter-arrival
    /// histogram holds the same-poll arrivals as 0.
    pub tally: StreamTally,
    /// Sequence accounting.
    pub seq: SeqCounts,
}

impl StreamPart {
    /// The counts an RX lcore kept of one stream.
    pub fn of(acc: &StreamAcc) -> Self {
        StreamPart {
            tally: StreamTally {
                interarrival: acc.interarrival_all(),
                ..acc.tally.clone()
            },
            seq: acc.seq.counts(),
        }
    }

    /// Adds another lcore's counts of the same stream to these, all but
    /// the sequence accounting (which [`merge_seq`] merges over all the
    /// parts at once).
    fn absorb(&mut self, o: &StreamPart) {
        self.tally.frames += o.tally.frames;
        self.tally.bytes += o.tally.bytes;
        let mut a = Arrivals::of(self);
        a.add(&Arrivals::of(o));
        (
            self.tally.payload_bytes,
            self.tally.first_tsc,
            self.tally.last_tsc,
        ) = (a.payload, a.first_tsc, a.last_tsc);
        add_corrupt(&mut self.tally.corrupt, &o.tally.corrupt);
        add_histogram(&mut self.tally.latency, &o.tally.latency);
        self.tally.latency_synced |= o.tally.latency_synced;
        self.tally.latency_nic += o.tally.latency_nic;
        self.tally.latency_early += o.tally.latency_early;
        add_histogram(&mut self.tally.interarrival, &o.tally.interarrival);
        self.tally.resumed_tx_tsc = self.tally.resumed_tx_tsc.max(o.tally.resumed_tx_tsc);
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
pub(crate) fn add_corrupt(c: &mut CorruptCounts, o: &CorruptCounts) {
    c.ip_checksum += o.ip_checksum;
    c.l4_checksum += o.l4_checksum;
    c.stamp += o.stamp;
    c.payload += o.payload;
    c.length += o.length;
}

/// The sequence accounting of one stream counted in parts (on several RX
/// lcores, each polling its own queues and seeing some of its frames), as
/// one. The expected range runs from the lowest first sequence number of
/// any part to the highest seen; `unique` is the parts' unique frames
/// summed, `lost` the range less them, `max_seq` the highest, `stale`
/// summed. A sequence number that reached two parts (a copy on another
/// queue) is counted unique by each: when the parts hold more unique
/// frames than the range has numbers, the excess is such copies, counted
/// `duplicated` and not unique (a lower bound of the copies across parts:
/// a copy of a frame that was lost elsewhere in the range cannot be told
/// apart). `reordered` and its extents are each part's own, summed: order
/// is kept per queue, and an order between frames of two queues (which
/// RX lcores poll independently) says nothing about the network.
pub fn merge_seq(parts: &[SeqCounts]) -> SeqCounts {
    // One part is taken as it is: nothing to merge, and capping unique at
    // its range would hide a count past what was sent.
    if let [one] = parts {
        return *one;
    }
    // Each part's first expected sequence number: its range less its
    // unique frames is its lost count.
    let seen = parts.iter().filter(|p| p.unique > 0);
    let first = seen
        .clone()
        .map(|p| (p.max_seq + 1).saturating_sub(p.lost + p.unique))
        .min();
    let max_seq = seen.map(|p| p.max_seq).max();
    let sum = |f: fn(&SeqCounts) -> u64| parts.iter().map(f).fold(0, u64::saturating_add);
    let range = match (first, max_seq) {
        (Some(a), Some(b)) => b + 1 - a,
        _ => 0,
    };
    let across = sum(|p| p.unique).saturating_sub(range);
    let unique = sum(|p| p.unique) - across;
    SeqCounts {
        unique,
        lost: range - unique,
        reordered: sum(|p| p.reordered),
        duplicated: sum(|p| p.duplicated).saturating_add(across),
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
        match out.iter_mut().find(|(s, _)| s.tally.id == p.tally.id) {
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
    /// How far its frames left the NIC after their stamps: the NIC's
    /// sampled IEEE 1588 TX timestamps less the software stamps
    /// (`tx[].timestamps`; absent when not sampled). Its mean corrects the
    /// latency, its spread joins the bound.
    #[serde(default)]
    pub departure_offset: Option<crate::clock::txstamp::StreamOffsets>,
}

impl TxStreamResult {
    /// The mean departure offset, ns, when samples were kept.
    pub fn departure_offset_ns(&self) -> Option<f64> {
        (self.departure_offset)
            .filter(|o| o.samples > 0)
            .map(|o| o.mean_ns)
    }
}

/// One TX lcore's result.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TxTaskResult {
    /// Its lcore.
    pub lcore: u32,
    /// The TSC its schedule started at (its first departure time); not
    /// written (a certification's recovery test reads it).
    #[serde(skip)]
    pub first_due_tsc: u64,
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
    /// Seconds the task was sending for: from its first departure time
    /// (the loop's start in `max` and `gap` modes) to its stop, on the TSC.
    #[serde(default)]
    pub span_s: f64,
    /// The frames the port took over `span_s`, at every layer: an outage
    /// (a link down, a port refusing frames) lowers it, as it lowered what
    /// the link carried. (`pace.achieved` is the rate between the first
    /// and the last departure, which an outage does not change.)
    pub achieved: LayerRates,
    /// Achieved ÷ target at the target's layer, in percent.
    pub achieved_pct: f64,
    /// Whether the task met its target within the tolerance of
    /// docs/pacing.md ("When a target counts as met"); `None` in `max` and
    /// `gap` modes, which keep no schedule.
    #[serde(default)]
    pub target_met: Option<bool>,
    /// Frames the port refused (`pace.refused`): each was offered again
    /// until taken or the run stopped.
    #[serde(default)]
    pub refused: u64,
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
    /// Data frames whose fill was attached as a second segment, not copied.
    #[serde(default)]
    pub attached_frames: u64,
    /// Gap mode: the data's L1 rate on a link of the port's speed that
    /// sends data and gap frames back to back.
    pub link_paced_l1_bps: Option<f64>,
    /// The port's line rate (L1 bit/s) the task ran against (on a virtual
    /// device without a line rate, the rate the driver reports, used only
    /// to plan gap frames and line-rate bursts).
    pub line_bps: u64,
    /// Achieved L1 rate as a share of that line rate, in percent; `null`
    /// on a virtual device, which has no line rate (null, ring, pcap,
    /// memif, whatever `link:` the profile gives it).
    pub line_pct: Option<f64>,
    /// Where `line_bps` comes from: the profile's `link:` (`declared`),
    /// the driver (`reported`), or neither (`unknown`, `line_bps` 0).
    #[serde(default)]
    pub line_source: LineSource,
    /// Schedule keeping.
    pub pace: PaceSummary,
    /// How long the lcore's thread ran and waited for its CPU over the
    /// task (`None`: not measured). Above
    /// [`crate::limits::verdict::DESCHEDULED_MAX`] of the run spent
    /// waiting, its cycles per frame and busy share are not trustworthy.
    #[serde(default)]
    pub cpu_time: Option<CpuTime>,
}

/// An RX task's capture: the pcap file written, and how much of what the
/// task received it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaptureResult {
    /// The pcap file.
    pub file: String,
    /// Frames the task received.
    pub frames_seen: u64,
    /// Frames the file holds.
    pub frames_kept: u64,
    /// Bytes kept of a frame at most.
    pub snap: u64,
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
    /// `pmd_frames` equals `frames + gap_frames`.
    #[serde(default)]
    pub pmd_agrees: bool,
    /// Bytes of the gap frames (gap mode), FCS included, not counted in
    /// `bytes`.
    #[serde(default)]
    pub gap_bytes: u64,
    /// Bytes the PMD counted (`obytes` over the TX ports). Drivers count
    /// them without the FCS (ixgbe takes it off GOTC in
    /// `ixgbe_read_stats_registers`, i40e off `tx_bytes` in
    /// `i40e_read_stats_registers`, the software vdevs count `pkt_len`):
    /// `bytes + gap_bytes − 4 × (frames + gap_frames)` when nothing else
    /// sends on those ports.
    #[serde(default)]
    pub pmd_bytes: u64,
    /// `pmd_bytes` equals what the frames and gap frames should make it;
    /// `None` when the PMD counts no bytes (`net_null`, `net_ring`).
    #[serde(default)]
    pub pmd_bytes_agree: Option<bool>,
    /// Every paced task met its target (docs/pacing.md); `None` when no
    /// task keeps a schedule (`max`, `gap`). The same as
    /// `outcome.target_met`.
    #[serde(default)]
    pub target_met: Option<bool>,
    /// Transmit errors the PMD counted.
    pub pmd_errors: u64,
    /// LayerRates over the measured time: each task's frames over its
    /// `span_s`, summed (tasks run side by side).
    pub achieved: LayerRates,
    /// Per task.
    pub tasks: Vec<TxTaskResult>,
    /// Per stream.
    pub streams: Vec<TxStreamResult>,
    /// The synchronised clock its stamps carry (`tx[].clock: synced`).
    #[serde(default)]
    pub clock: Option<crate::clock::sync::SideClock>,
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
    /// Frames it took that are of no stream it checks (the sum of the
    /// reasons of `rx.foreign_breakdown`, this lcore's share; 0 in
    /// results written before it was kept).
    #[serde(default)]
    pub foreign: u64,
    /// Frames/s this lcore could sustain at most (TSC Hz ÷ cycles/frame).
    pub max_fps: f64,
    /// What this lcore alone counted of each stream, before the streams
    /// of every lcore were merged by id into `rx.streams`.
    #[serde(default)]
    pub streams: Vec<LcoreStream>,
    /// How long the lcore's thread ran and waited for its CPU over the
    /// task (`None`: not measured). Above
    /// [`crate::limits::verdict::DESCHEDULED_MAX`] of the run spent
    /// waiting, its cycle figures are not trustworthy.
    #[serde(default)]
    pub cpu_time: Option<CpuTime>,
    /// What its capture kept (`rx[].capture`; `None`: it kept none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<CaptureResult>,
}

/// One stream as one RX lcore counted it: the frames its queues
/// delivered, and the order and copies among them (a stream whose frames
/// RSS or the sender spread over several queues has one such entry on each
/// lcore that polls them; `rx.streams` holds it merged).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LcoreStream {
    /// Stream id.
    pub id: u32,
    /// Frames this lcore received of it (good or corrupt).
    pub frames: u64,
    /// Their bytes, FCS included.
    pub bytes: u64,
    /// Distinct sequence numbers among them.
    pub unique: u64,
    /// Frames below the highest sequence number this lcore had seen of the
    /// stream when they arrived (order within its own queues).
    pub reordered: u64,
    /// Second copies this lcore saw itself.
    pub duplicated: u64,
}

impl LcoreStream {
    /// What one lcore's counts `p` of a stream say.
    pub(crate) fn of(p: &StreamPart) -> Self {
        LcoreStream {
            id: p.tally.id,
            frames: p.tally.frames,
            bytes: p.tally.bytes,
            unique: p.seq.unique,
            reordered: p.seq.reordered,
            duplicated: p.seq.duplicated,
        }
    }
}

/// A task's thread time: measured, and more than
/// [`DESCHEDULED_MAX`] of it spent waiting for a CPU.
pub(crate) fn untrusted(cpu: &Option<CpuTime>) -> Option<&CpuTime> {
    cpu.as_ref()
        .filter(|c| c.descheduled_pct > DESCHEDULED_MAX * 100.0)
}

/// The words after a task's cycle figures: its descheduled share, and
/// whether they can be trusted.
pub(crate) fn descheduled_text(cpu: &Option<CpuTime>) -> String {
    match cpu {
        Some(c) if untrusted(cpu).is_some() => format!(
            ", descheduled {:.1} % (its CPU was shared: these cycle figures are not trustworthy)",
            c.descheduled_pct
        ),
        Some(c) => format!(", descheduled {:.1} %", c.descheduled_pct),
        None => String::new(),
    }
}

/// Sets each task's thread time, in task order.
pub(crate) fn set_cpu_times<T: HasCpuTime>(tasks: &mut [T], times: &[Option<CpuTime>]) {
    for (t, c) in tasks.iter_mut().zip(times) {
        *t.cpu_time_mut() = *c;
    }
}

/// A task result that carries its thread time.
pub(crate) trait HasCpuTime {
    /// Its thread time, to set.
    fn cpu_time_mut(&mut self) -> &mut Option<CpuTime>;
}

impl HasCpuTime for TxTaskResult {
    fn cpu_time_mut(&mut self) -> &mut Option<CpuTime> {
        &mut self.cpu_time
    }
}

impl HasCpuTime for RxTaskResult {
    fn cpu_time_mut(&mut self) -> &mut Option<CpuTime> {
        &mut self.cpu_time
    }
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
    /// Frames of streams beyond what one lcore tracks
    /// ([`crate::rx::MAX_STREAMS`]): not checked, never counted lost.
    pub overflow: u64,
    /// The streams those frames belong to (distinct ids, summed over the
    /// lcores).
    #[serde(default)]
    pub overflow_streams: u64,
    /// Seconds from the first to the last arrival of a checked stream's
    /// frame (foreign frames never stretch it): what `achieved` is
    /// measured over. Without checked streams (`verify: none`), the
    /// arrival span of every frame.
    #[serde(default)]
    pub span_s: f64,
    /// How latency was measured: `one-way (shared TSC)` or
    /// `inter-arrival only (separate clocks)`.
    pub latency_kind: String,
    /// Rates of the checked streams' frames over `span_s` (every frame's,
    /// without checked streams).
    pub achieved: LayerRates,
    /// Per stream.
    pub streams: Vec<StreamResult>,
    /// Per lcore.
    pub tasks: Vec<RxTaskResult>,
    /// The PMD's counters summed over the RX ports.
    pub pmd: PortStats,
    /// The synchronised clock it maps its TSC onto (`rx[].clock: synced`).
    #[serde(default)]
    pub clock: Option<crate::clock::sync::SideClock>,
}

impl RxResult {
    /// What casts doubt on the receiver's figures: streams it could not
    /// track.
    pub fn problems(&self) -> Vec<Problem> {
        let mut v = Vec::new();
        if self.overflow > 0 {
            v.push(Problem::StreamsNotTracked {
                frames: self.overflow,
                streams: self.overflow_streams,
                limit: crate::rx::MAX_STREAMS as u64,
            });
        }
        v
    }
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
    /// The wall clock when the workers started, ns since the Unix epoch
    /// (0: not recorded), after `run --start-at` where given.
    #[serde(default)]
    pub started_unix_ns: u64,
}

impl RunResult {
    /// The skeleton of a result; the caller fills `tx`, `rx`, `verdict`.
    pub fn new(
        profile: &str,
        tsc_hz: u64,
        tsc_hz_run: u64,
        elapsed_s: f64,
        ports: Vec<PortResult>,
        intervals: Vec<Interval>,
    ) -> Self {
        Self {
            landspeed: env!("CARGO_PKG_VERSION").to_string(),
            dpdk: crate::dpdk::dpdk_version().to_string(),
            profile: profile.to_string(),
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
            started_unix_ns: 0,
            outcome: Outcome::default(),
        }
    }

    /// Adds a [`Problem::Descheduled`] for each TX and RX task whose
    /// thread waited for its CPU more than [`DESCHEDULED_MAX`] of its run.
    pub fn note_descheduled(&mut self) {
        let tx = self.tx.iter().flat_map(|t| &t.tasks);
        let tx = tx.map(|t| ("TX", t.lcore, &t.cpu_time));
        let rx = self.rx.iter().flat_map(|r| &r.tasks);
        let rx = rx.map(|t| ("RX", t.lcore, &t.cpu_time));
        let found: Vec<Problem> = tx
            .chain(rx)
            .filter_map(|(role, lcore, cpu)| {
                untrusted(cpu).map(|c| Problem::Descheduled {
                    role: role.to_string(),
                    lcore,
                    descheduled_pct: c.descheduled_pct,
                    wait_ns: c.wait_ns,
                    stolen_ns: c.stolen_ns,
                    wall_ns: c.wall_ns,
                })
            })
            .collect();
        for p in found {
            self.outcome.add(p);
        }
    }
}

/// The reordered ratio (in %) and the largest extent, after a reordered
/// count: nothing when no frame was reordered.
pub(crate) fn reorder_detail(ratio: f64, extent_max: u64) -> String {
    if extent_max == 0 && ratio == 0.0 {
        String::new()
    } else {
        format!(" ({:.4} %, extent max {extent_max})", ratio * 100.0)
    }
}

/// What a PMD's `obytes` reads for `frames` frames of `bytes` bytes, FCS
/// included: the bytes less an FCS per frame.
pub(crate) fn pmd_bytes_expected(frames: u64, bytes: u64) -> u64 {
    bytes.saturating_sub(frames.saturating_mul(FCS_LEN as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rx::seq::SeqTracker;

    #[test]
    fn arrivals_map_onto_the_wall_clock_through_the_runs_start() {
        let mut s = StreamResult::of_part(&part(&[0, 1, 2], &[]), 2_000_000_000, true);
        s.arrivals_tsc = [5_000_000_000, 9_000_000_001];
        // The start: TSC 1e9 at 1.7e18 ns; the TSC runs at 2 GHz.
        s.map_arrivals(1_000_000_000, 1_700_000_000_000_000_000, 2_000_000_000);
        assert_eq!(
            s.arrivals_unix_ns,
            Some([1_700_000_002_000_000_000, 1_700_000_004_000_000_000])
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v["arrivals_unix_ns"],
            serde_json::json!([1_700_000_002_000_000_000u64, 1_700_000_004_000_000_000u64])
        );
        assert!(v.get("arrivals_tsc").is_none());
        // Before the start (a TSC read earlier): the start itself.
        s.arrivals_tsc = [10, 20];
        s.map_arrivals(1_000, 7, 1_000_000_000);
        assert_eq!(s.arrivals_unix_ns, Some([7, 7]));
        // No frame, no clock, or no start: none.
        for (tsc, hz, start) in [([0, 0], 1, 1), ([1, 2], 0, 1), ([1, 2], 1, 0)] {
            let mut s = StreamResult::of_part(&part(&[0], &[]), 1, true);
            s.arrivals_tsc = tsc;
            s.map_arrivals(0, start, hz);
            assert_eq!(s.arrivals_unix_ns, None);
            let v = serde_json::to_value(&s).unwrap();
            assert!(
                v.get("arrivals_unix_ns").is_none(),
                "not written when absent"
            );
        }
    }

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
            tally: StreamTally {
                id: 7,
                frames: seqs.len() as u64,
                bytes: 100 * seqs.len() as u64,
                corrupt: CorruptCounts {
                    payload: 1,
                    ..CorruptCounts::default()
                },
                latency: hist(),
                latency_synced: false,
                latency_nic: 0,
                latency_early: 0,
                interarrival,
                payload_bytes: 0,
                first_tsc: 0,
                last_tsc: 0,
                resumed_tx_tsc: 0,
            },
            seq: t.counts(),
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
        let mut other = part(&[0], &[]);
        other.tally.id = 8;
        let merged = merge_streams([a, other, b]);
        assert_eq!(
            merged.iter().map(|p| p.tally.id).collect::<Vec<_>>(),
            [7, 8]
        );
        let m = &merged[0];
        assert_eq!((m.tally.frames, m.tally.bytes), (98, 9800));
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
        assert_eq!(m.tally.corrupt.payload, 2);
        assert_eq!(m.tally.interarrival.len(), 3);
        assert_eq!(m.tally.interarrival.max(), 30);
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
        // A part that saw nothing of the stream moves neither end.
        assert_eq!(merge_seq(&[a, SeqCounts::default(), b]).lost, 3);
        assert_eq!(merge_seq(&[SeqCounts::default(), a]), a);
    }

    #[test]
    fn copies_on_two_lcores_are_duplicates_not_unique() {
        // 0..=9 on one lcore, 5..=14 on the other: 5..=9 reached both.
        let a = part(&(0..10).collect::<Vec<_>>(), &[]);
        let b = part(&(5..15).collect::<Vec<_>>(), &[]);
        let m = merge_seq(&[a.seq, b.seq]);
        assert_eq!((m.unique, m.lost, m.duplicated), (15, 0, 5));
        assert_eq!((m.max_seq, m.reordered, m.stale), (14, 0, 0));
        // Copies and their own duplicates add up; a lost frame leaves the
        // range short of one: 0..=9 but 3, twice 4, and 4 again elsewhere.
        let c = part(&[0, 1, 2, 4, 4, 5, 6, 7, 8, 9], &[]);
        let d = part(&[4], &[]);
        assert_eq!((c.seq.unique, c.seq.lost, c.seq.duplicated), (9, 1, 1));
        let m = merge_seq(&[c.seq, d.seq]);
        // 10 numbers expected, 10 unique counted: the copy on the second
        // lcore hides the loss (a lower bound of the copies, see merge_seq).
        assert_eq!((m.unique, m.lost, m.duplicated), (10, 0, 1));
        // Order is each lcore's own: 0 2 1 on one, 4 3 on the other.
        let e = part(&[0, 2, 1], &[]);
        let mut g = SeqTracker::new(0);
        for s in [4, 3] {
            g.record(s);
        }
        let m = merge_seq(&[e.seq, g.counts()]);
        assert_eq!((m.unique, m.lost, m.duplicated, m.reordered), (5, 0, 0, 2));
        assert_eq!(m.reorder_extent_max, 1);
        assert_eq!(
            m.reorder_extent_sum,
            e.seq.reorder_extent_sum + g.counts().reorder_extent_sum
        );
    }

    /// A receiving port's ring-full drops (ixgbe's rx_qN_errors) reached
    /// it: they are the receiver's drops in the observation, never lost
    /// in the network.

    #[test]
    fn a_port_that_refused_or_did_not_send_frames_is_a_problem() {
        use crate::limits::port_errors::{ClassCount, ErrorClass};
        let mut port = PortResult {
            name: "p1".into(),
            device: "0000:3b:00.1".into(),
            driver: "net_ixgbe".into(),
            link_bps: 0,
            stats: PortStats {
                ierrors: 12,
                oerrors: 0,
                ..PortStats::default()
            },
            xstats: Vec::new(),
            line_source: LineSource::Unknown,
            mtu: 1500,
            rx_mbuf_room: 0,
            flow_control: None,
            errors: ErrorSeries::default(),
            timestamps: None,
            control: None,
            setup: None,
        };
        assert_eq!(port.error_problems(), Vec::new(), "a clean port");
        let class = |class, counter: &str, frames| ClassCount {
            class,
            counter: counter.into(),
            frames,
        };
        port.errors = ErrorSeries {
            rx_refused: 12,
            tx_errors: 2,
            classes: vec![
                class(ErrorClass::Oversize, "rx_oversize_errors", 10),
                class(ErrorClass::Missed, "imissed", 4),
                class(ErrorClass::TxError, "tx_errors", 2),
            ],
            first_rx_refused_ms: Some(2500),
            first_tx_error_ms: None,
            peak_rx_refused: 7,
            ..ErrorSeries::default()
        };
        assert_eq!(
            port.error_problems(),
            vec![
                Problem::PortRxErrors {
                    port: "p1".into(),
                    driver: "net_ixgbe".into(),
                    frames: 12,
                    counters: vec![("ierrors".into(), 12), ("rx_oversize_errors".into(), 10)],
                    first_s: Some(2.5),
                    peak_per_interval: 7,
                },
                Problem::PortTxErrors {
                    port: "p1".into(),
                    driver: "net_ixgbe".into(),
                    frames: 2,
                    counters: vec![("tx_errors".into(), 2)],
                    first_s: None,
                    peak_per_interval: 0,
                },
            ]
        );
        assert_eq!(
            sum_by_name([
                vec![("ierrors".to_string(), 3), ("rx_crc_errors".to_string(), 1)],
                vec![("ierrors".to_string(), u64::MAX)],
            ]),
            vec![
                ("ierrors".to_string(), u64::MAX),
                ("rx_crc_errors".to_string(), 1)
            ]
        );
    }

    #[test]
    fn flow_control_casts_doubt_on_a_physical_port_only() {
        let port = |fc| PortResult {
            name: "p0".into(),
            device: "0000:3b:00.0".into(),
            driver: "net_ice".into(),
            link_bps: 0,
            stats: PortStats::default(),
            xstats: Vec::new(),
            line_source: LineSource::Unknown,
            mtu: 0,
            rx_mbuf_room: 0,
            flow_control: fc,
            errors: ErrorSeries::default(),
            timestamps: None,
            control: None,
            setup: None,
        };
        use FlowControl::*;
        for fc in [TurnedOff, AlreadyOff] {
            assert_eq!(port(Some(fc)).flow_control_problem(true), None);
        }
        for fc in [NotSupported, ReadFailed, StillOn] {
            assert_eq!(port(Some(fc)).flow_control_problem(false), None, "{fc:?}");
            let p = port(Some(fc))
                .flow_control_problem(true)
                .expect("a problem");
            assert_eq!(
                p,
                Problem::FlowControlNotOff {
                    port: "p0".into(),
                    device: "0000:3b:00.0".into(),
                    driver: "net_ice".into(),
                    flow_control: fc.name().into(),
                }
            );
        }
        assert_eq!(port(None).flow_control_problem(true), None);
        let text = port(Some(NotSupported))
            .flow_control_problem(true)
            .unwrap()
            .text();
        assert!(
            text.starts_with(
                "flow control of port p0 (0000:3b:00.0, net_ice) is not known to be off \
                 (the driver has no flow-control operations): PAUSE frames"
            ),
            "{text}"
        );
    }
}
