//! A port's error counters: which of a driver's extended statistics count
//! frames the port refused (oversize, undersize, CRC, length), frames it
//! dropped for want of room (missed, no mbuf), or frames its TX side did
//! not send, read from their names; and the per-interval series of them
//! that says when errors began. Pure: the runtime reads the counters, this
//! module classifies and accumulates them. The classification is
//! documented, with the names it was made from, in `docs/limits.md`
//! ("Port error counters").
//!
//! The names come from DPDK 22.11's own tables: ethdev's generic
//! `rte_stats_strings` (`rx_missed_errors`, `rx_errors`, `tx_errors`,
//! `rx_mbuf_allocation_errors`), ixgbe's `rte_ixgbe_stats_strings`, i40e's
//! `rte_i40e_stats_strings` and `rte_i40e_hw_port_strings`, ice's
//! `ice_stats_strings` and `ice_hw_port_strings`, mlx5's counter table
//! (`rx_phy_crc_errors`, `rx_out_of_buffer`, ...) and virtio's per-queue
//! `rte_virtio_rxq_stat_strings`. net_tap has no xstats of its own: it
//! counts a frame longer than its RX buffer in `ierrors`.

use serde::{Deserialize, Serialize};

/// What an error counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorClass {
    /// Received frames longer than the port accepts (`rx_oversize_errors`,
    /// `rx_jabber_errors`): typically an MTU below the frame.
    Oversize,
    /// Received frames shorter than 64 bytes (`rx_undersize_errors`,
    /// `rx_fragment_errors`, `rx_mac_short_packet_dropped`).
    Undersize,
    /// Received frames with a bad FCS or bad symbols (`rx_crc_errors`,
    /// `rx_illegal_byte_errors`, `rx_phy_symbol_errors`): the cable, the
    /// optics or the peer's MAC.
    Crc,
    /// Received frames whose length field disagrees with their size
    /// (`rx_length_errors`, `rx_len_errors`, `rx_size_error_packets`).
    Length,
    /// Received frames the NIC dropped for want of room (`rx_missed_errors`,
    /// `rx_total_missed_packets`, `rx_dropped_packets`, `rx_out_of_buffer`).
    Missed,
    /// Receive mbuf allocation failures (`rx_mbuf_allocation_errors`).
    NoMbuf,
    /// Frames the TX side counted as not sent (`tx_errors`,
    /// `tx_dropped_packets`, `tx_phy_errors`).
    TxError,
}

impl ErrorClass {
    /// The class's name as printed and in the JSON (`oversize`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Oversize => "oversize",
            ErrorClass::Undersize => "undersize",
            ErrorClass::Crc => "crc",
            ErrorClass::Length => "length",
            ErrorClass::Missed => "missed",
            ErrorClass::NoMbuf => "no_mbuf",
            ErrorClass::TxError => "tx_error",
        }
    }

    /// Frames of this class were refused by the receiving port: they
    /// arrived malformed or too long, and are neither lost in the network
    /// nor the host's doing.
    pub fn refused(self) -> bool {
        matches!(
            self,
            ErrorClass::Oversize | ErrorClass::Undersize | ErrorClass::Crc | ErrorClass::Length
        )
    }
}

/// Words that make a counter an error or drop counter.
const ERROR_WORDS: [&str; 9] = [
    "errors", "error", "err", "errs", "dropped", "drop", "discard", "discards", "missed",
];

/// The class of the extended statistic `name`, or `None` when it counts
/// no frame lost or refused. The name is split at `_` into words
/// (case-insensitive); first match wins:
///
/// 1. a byte counter (`bytes`: `rx_error_bytes`), a checksum the NIC
///    checked on a frame it delivered (`xsum`, `checksum`), a MAC fault
///    (`local`, `remote`: `mac_local_errors`), a flow-director or MACsec
///    counter: none;
/// 2. a `tx` counter with an error word: [`ErrorClass::TxError`];
/// 3. no error word (`errors`, `dropped`, `discard`, `missed`, ...) and
///    not mlx5's `rx_out_of_buffer`: none (so virtio's size bin
///    `undersize_packets` is not an error);
/// 4. `oversize`, `jabber`, `too`+`long`: oversize;
/// 5. `undersize`, `undersized`, `fragment(ed|s)`, `short`, `runt`:
///    undersize;
/// 6. `crc`, `symbol`, `illegal`: CRC;
/// 7. `length`, `len`, `size`: length;
/// 8. `mbuf`, `nombuf`, `alloc`, `allocation`: no mbuf;
/// 9. `missed`, `dropped`, `drop`, `discard(s)`, `out_of_buffer`: missed;
/// 10. anything else (`rx_errors`, `rx_q0_errors`, `rx_wqe_errors`): none
///     (the generic ones repeat `ierrors`, which is read on its own).
pub fn classify(name: &str) -> Option<ErrorClass> {
    let lower = name.to_ascii_lowercase();
    let words: Vec<&str> = lower.split('_').filter(|w| !w.is_empty()).collect();
    let has = |w: &[&str]| words.iter().any(|x| w.contains(x));
    if has(&[
        "bytes", "xsum", "checksum", "local", "remote", "flow", "director", "fdir", "macsec",
        "octets",
    ]) {
        return None;
    }
    let error_word = has(&ERROR_WORDS);
    let out_of_buffer = lower.contains("out_of_buffer");
    if has(&["tx"]) {
        return error_word.then_some(ErrorClass::TxError);
    }
    if !error_word && !out_of_buffer {
        return None;
    }
    let class = if has(&["oversize", "jabber"]) || (has(&["too"]) && has(&["long"])) {
        ErrorClass::Oversize
    } else if has(&[
        "undersize",
        "undersized",
        "fragment",
        "fragmented",
        "fragments",
        "short",
        "runt",
    ]) {
        ErrorClass::Undersize
    } else if has(&["crc", "symbol", "illegal"]) {
        ErrorClass::Crc
    } else if has(&["length", "len", "size"]) {
        ErrorClass::Length
    } else if has(&["mbuf", "nombuf", "alloc", "allocation"]) {
        ErrorClass::NoMbuf
    } else if out_of_buffer || has(&["missed", "dropped", "drop", "discard", "discards"]) {
        ErrorClass::Missed
    } else {
        return None;
    };
    Some(class)
}

/// Whether the extended statistic `name` of a port of `driver` counts
/// frames an RX queue dropped because its ring was full: ixgbe's
/// per-queue `rx_qN_errors` (ethdev's generic per-queue statistic, which
/// ixgbe fills from `QPRDC`, the drops of a queue with `SRRCTL.DROP_EN`
/// set: `ixgbe_read_stats_registers`, `ixgbe_dev_stats_get`). Another
/// driver's `rx_qN_errors` means something else (net_ring, net_pcap and
/// net_af_packet count TX errors there), and a ring-full drop of theirs
/// counts in `imissed` or nowhere.
pub fn ring_drop_counter(driver: &str, name: &str) -> bool {
    if driver != "net_ixgbe" {
        return false;
    }
    let Some(q) = name
        .strip_prefix("rx_q")
        .and_then(|r| r.strip_suffix("_errors"))
    else {
        return false;
    };
    !q.is_empty() && q.bytes().all(|b| b.is_ascii_digit())
}

/// A port's counters at one moment, as the driver keeps them (the basic
/// `rte_eth_stats` ones and the extended statistics by name).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortCounters {
    /// `ierrors`: received frames in error.
    pub ierrors: u64,
    /// `oerrors`: frames the TX side failed to send.
    pub oerrors: u64,
    /// `imissed`: frames the NIC dropped for want of room.
    pub imissed: u64,
    /// `rx_nombuf`: receive mbuf allocation failures.
    pub rx_nombuf: u64,
    /// Frames the RX queues dropped at a full ring, where the driver
    /// counts them apart from `imissed` ([`ring_drop_counter`]); set by
    /// [`PortCounters::as_losses_of`].
    pub ring_drops: u64,
    /// The extended statistics, by name.
    pub xstats: Vec<(String, u64)>,
}

impl PortCounters {
    /// The counters as they count frames lost, for a port of `driver`:
    /// where a driver's basic counter counts something else, it is left
    /// out (0) here; the port's own statistics keep it as read.
    ///
    /// net_tap (DPDK 22.11, `pmd_tx_burst`) adds to `oerrors` every frame
    /// its TX burst hands back unsent (`nb_pkts - num_tx`, as when the
    /// tap is down and the write fails) and one more per failed write.
    /// A frame handed back is still the sender's: landspeed counts it
    /// refused and offers it again, so none of that count is a frame the
    /// port lost; ethdev's generic `tx_errors` statistic repeats it and
    /// goes too. net_af_packet and net_pcap, by contrast, count in
    /// `oerrors` frames they took and freed unsent: lost, and kept.
    ///
    /// ixgbe counts the frames a full RX ring dropped per queue
    /// ([`ring_drop_counter`]), not in `imissed`: they are summed into
    /// `ring_drops`, the receiver's drops.
    pub fn as_losses_of(mut self, driver: &str) -> PortCounters {
        if driver == "net_tap" {
            self.oerrors = 0;
            self.xstats.retain(|(name, _)| name != "tx_errors");
        }
        self.ring_drops = (self.xstats.iter())
            .filter(|(name, _)| ring_drop_counter(driver, name))
            .fold(0u64, |sum, (_, v)| sum.saturating_add(*v));
        self
    }
}

/// One class's count: the largest counter of that class, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassCount {
    /// The class.
    pub class: ErrorClass,
    /// The counter that holds the largest count of it (`ierrors` and
    /// `oerrors` are the basic counters; other names are extended
    /// statistics).
    pub counter: String,
    /// Frames it counted.
    pub frames: u64,
}

/// What a port's counters say about frames lost or refused at the port:
/// each class's count, and the totals the verdict uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorTotals {
    /// Frames the receiving port refused: the larger of `ierrors` and the
    /// largest refused-class count ([`ErrorClass::refused`]). Counters
    /// of one frame often overlap (a length error that is also an
    /// oversize error; a generic counter repeating a driver's), so the
    /// largest, not the sum, is taken: at least this many.
    pub rx_refused: u64,
    /// Frames the port dropped for want of room or buffers: `imissed +
    /// rx_nombuf + ring_drops`.
    pub rx_drops: u64,
    /// Of those, the frames its RX queues dropped at a full ring
    /// ([`PortCounters::ring_drops`]).
    pub rx_ring_drops: u64,
    /// Frames the TX side did not send: the larger of `oerrors` and the
    /// largest TX-error count.
    pub tx_errors: u64,
    /// Each class's largest counter, nonzero ones only, in class order.
    pub classes: Vec<ClassCount>,
}

impl PortCounters {
    /// The counters as the difference `self − before` (each counter on
    /// its own, never below 0; an extended statistic absent `before`
    /// counts from 0).
    pub fn since(&self, before: &PortCounters) -> PortCounters {
        let was = |name: &str| {
            (before.xstats.iter())
                .find(|(n, _)| n == name)
                .map_or(0, |(_, v)| *v)
        };
        PortCounters {
            ierrors: self.ierrors.saturating_sub(before.ierrors),
            oerrors: self.oerrors.saturating_sub(before.oerrors),
            imissed: self.imissed.saturating_sub(before.imissed),
            rx_nombuf: self.rx_nombuf.saturating_sub(before.rx_nombuf),
            ring_drops: self.ring_drops.saturating_sub(before.ring_drops),
            xstats: (self.xstats.iter())
                .map(|(n, v)| (n.clone(), v.saturating_sub(was(n))))
                .collect(),
        }
    }

    /// The totals these counters say ([`ErrorTotals`]).
    pub fn totals(&self) -> ErrorTotals {
        let mut classes: Vec<ClassCount> = Vec::new();
        let mut count = |class: ErrorClass, counter: &str, frames: u64| {
            if frames == 0 {
                return;
            }
            match classes.iter_mut().find(|c| c.class == class) {
                Some(c) if c.frames >= frames => {}
                Some(c) => {
                    c.counter = counter.to_string();
                    c.frames = frames;
                }
                None => classes.push(ClassCount {
                    class,
                    counter: counter.to_string(),
                    frames,
                }),
            }
        };
        count(ErrorClass::TxError, "oerrors", self.oerrors);
        count(ErrorClass::Missed, "imissed", self.imissed);
        count(ErrorClass::NoMbuf, "rx_nombuf", self.rx_nombuf);
        count(ErrorClass::Missed, RING_DROPS, self.ring_drops);
        for (name, v) in &self.xstats {
            if let Some(class) = classify(name) {
                count(class, name, *v);
            }
        }
        classes.sort_by_key(|c| c.class);
        let refused_class = (classes.iter())
            .filter(|c| c.class.refused())
            .map(|c| c.frames)
            .max()
            .unwrap_or(0);
        let tx_class = (classes.iter())
            .filter(|c| c.class == ErrorClass::TxError)
            .map(|c| c.frames)
            .max()
            .unwrap_or(0);
        ErrorTotals {
            rx_refused: self.ierrors.max(refused_class),
            rx_drops: (self.imissed)
                .saturating_add(self.rx_nombuf)
                .saturating_add(self.ring_drops),
            rx_ring_drops: self.ring_drops,
            tx_errors: self.oerrors.max(tx_class),
            classes,
        }
    }
}

/// The name the ring-full drops of a port's RX queues are counted under
/// ([`PortCounters::ring_drops`]): the `rte_eth_stats` field they come
/// from.
pub const RING_DROPS: &str = "q_errors";

/// The counters behind frames refused, as the verdict and the problem
/// name them: `ierrors` (when nonzero), then each refusing class's
/// counter of `classes`.
pub fn refused_by(ierrors: u64, classes: &[ClassCount]) -> Vec<(String, u64)> {
    let mut v = Vec::new();
    if ierrors > 0 {
        v.push(("ierrors".to_string(), ierrors));
    }
    for c in classes.iter().filter(|c| c.class.refused()) {
        v.push((c.counter.clone(), c.frames));
    }
    v
}

/// The counters behind frames not sent: the TX-error class's counter of
/// `classes`.
pub fn tx_errors_by(classes: &[ClassCount]) -> Vec<(String, u64)> {
    (classes.iter())
        .filter(|c| c.class == ErrorClass::TxError)
        .map(|c| (c.counter.clone(), c.frames))
        .collect()
}

/// Named counters in words: `ierrors 5, rx_oversize_errors 5`.
pub fn counters_text(by: &[(String, u64)]) -> String {
    let parts: Vec<String> = by.iter().map(|(n, v)| format!("{n} {v}")).collect();
    parts.join(", ")
}

/// One interval in which a port counted errors or drops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorInterval {
    /// The interval's index among the run's intervals (0: the first).
    pub interval: u32,
    /// Its start, milliseconds since the run started.
    pub start_ms: u64,
    /// Its end, milliseconds since the run started.
    pub end_ms: u64,
    /// Frames the receiving port refused in it.
    pub rx_refused: u64,
    /// Frames it dropped for want of room or buffers in it.
    pub rx_drops: u64,
    /// Frames its TX side did not send in it.
    pub tx_errors: u64,
}

/// A port's error counters over a run: the totals, when each kind began,
/// its worst interval, and every interval that counted any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorSeries {
    /// Frames the receiving port refused over the run (see
    /// [`ErrorTotals::rx_refused`]).
    pub rx_refused: u64,
    /// Frames it dropped for want of room or buffers (imissed + rx_nombuf
    /// + ring-full drops).
    pub rx_drops: u64,
    /// Of those, the frames its RX queues dropped at a full ring, counted
    /// apart from `imissed` (ixgbe's `rx_qN_errors`: the RX lcore did not
    /// keep up); 0 in results of older versions.
    #[serde(default)]
    pub rx_ring_drops: u64,
    /// Frames its TX side did not send.
    pub tx_errors: u64,
    /// Each class's largest counter over the run, nonzero ones only.
    pub classes: Vec<ClassCount>,
    /// The start (ms into the run) of the first interval that refused a
    /// frame; `None` when none did.
    pub first_rx_refused_ms: Option<u64>,
    /// The same for drops.
    pub first_rx_drop_ms: Option<u64>,
    /// The same for TX errors.
    pub first_tx_error_ms: Option<u64>,
    /// The most frames refused in one interval.
    pub peak_rx_refused: u64,
    /// The most frames dropped in one interval.
    pub peak_rx_drops: u64,
    /// The most TX errors in one interval.
    pub peak_tx_errors: u64,
    /// Every interval that counted a refused frame, a drop or a TX error,
    /// in order.
    pub intervals: Vec<ErrorInterval>,
}

impl ErrorSeries {
    /// Nothing was refused, dropped or left unsent.
    pub fn is_clean(&self) -> bool {
        self.rx_refused == 0 && self.rx_drops == 0 && self.tx_errors == 0
    }
}

/// Accumulates a port's counters interval by interval into an
/// [`ErrorSeries`].
#[derive(Clone, Debug, Default)]
pub struct ErrorTracker {
    /// The counters when the run started.
    base: PortCounters,
    /// The totals at the end of the last interval.
    last: ErrorTotals,
    /// Intervals closed so far.
    closed: u32,
    series: ErrorSeries,
}

impl ErrorTracker {
    /// Starts from the counters `base`, read before any traffic.
    pub fn new(base: PortCounters) -> Self {
        ErrorTracker {
            base,
            ..ErrorTracker::default()
        }
    }

    /// Closes the interval from `start_s` to `end_s` (seconds into the
    /// run) at the counters `now`; returns what it counted.
    pub fn close(&mut self, now: &PortCounters, start_s: f64, end_s: f64) -> ErrorInterval {
        let totals = now.since(&self.base).totals();
        let ms = |s: f64| (s.max(0.0) * 1000.0).round() as u64;
        // Counters that went backwards (a driver that reset them) count 0.
        let iv = ErrorInterval {
            interval: self.closed,
            start_ms: ms(start_s),
            end_ms: ms(end_s),
            rx_refused: totals.rx_refused.saturating_sub(self.last.rx_refused),
            rx_drops: totals.rx_drops.saturating_sub(self.last.rx_drops),
            tx_errors: totals.tx_errors.saturating_sub(self.last.tx_errors),
        };
        self.closed += 1;
        let s = &mut self.series;
        let first = |f: &mut Option<u64>, n: u64| {
            if n > 0 && f.is_none() {
                *f = Some(iv.start_ms);
            }
        };
        first(&mut s.first_rx_refused_ms, iv.rx_refused);
        first(&mut s.first_rx_drop_ms, iv.rx_drops);
        first(&mut s.first_tx_error_ms, iv.tx_errors);
        s.peak_rx_refused = s.peak_rx_refused.max(iv.rx_refused);
        s.peak_rx_drops = s.peak_rx_drops.max(iv.rx_drops);
        s.peak_tx_errors = s.peak_tx_errors.max(iv.tx_errors);
        if iv.rx_refused != 0 || iv.rx_drops != 0 || iv.tx_errors != 0 {
            s.intervals.push(iv);
        }
        s.rx_refused = s.rx_refused.saturating_add(iv.rx_refused);
        s.rx_drops = s.rx_drops.saturating_add(iv.rx_drops);
        s.tx_errors = s.tx_errors.saturating_add(iv.tx_errors);
        s.classes = totals.classes.clone();
        s.rx_ring_drops = s.rx_ring_drops.max(totals.rx_ring_drops);
        self.last = ErrorTotals {
            rx_refused: self.last.rx_refused.max(totals.rx_refused),
            rx_drops: self.last.rx_drops.max(totals.rx_drops),
            rx_ring_drops: 0,
            tx_errors: self.last.tx_errors.max(totals.tx_errors),
            classes: Vec::new(),
        };
        iv
    }

    /// The series so far.
    pub fn series(&self) -> &ErrorSeries {
        &self.series
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorClass::*;

    #[test]
    fn a_taps_oerrors_are_frames_handed_back_not_lost() {
        let read = PortCounters {
            ierrors: 2,
            oerrors: 7,
            imissed: 3,
            rx_nombuf: 1,
            ring_drops: 0,
            xstats: vec![
                ("tx_errors".to_string(), 7),
                ("tx_dropped_packets".to_string(), 5),
                ("rx_errors".to_string(), 2),
            ],
        };
        let tap = read.clone().as_losses_of("net_tap");
        assert_eq!(
            tap,
            PortCounters {
                oerrors: 0,
                xstats: vec![
                    ("tx_dropped_packets".to_string(), 5),
                    ("rx_errors".to_string(), 2),
                ],
                ..read.clone()
            }
        );
        // A TX-error statistic of its own still counts.
        assert_eq!(tap.totals().tx_errors, 5);
        for driver in ["net_af_packet", "net_pcap", "net_ixgbe", "net_tap0"] {
            assert_eq!(read.clone().as_losses_of(driver), read, "{driver}");
        }
        assert_eq!(read.totals().tx_errors, 7);
    }

    /// ixgbe's per-queue `rx_qN_errors` (QPRDC) are the receiver's
    /// ring-full drops: in `rx_drops`, named `q_errors`; another driver's
    /// are not.
    #[test]
    fn ixgbe_ring_full_drops_are_the_receivers() {
        let read = PortCounters {
            imissed: 5,
            rx_nombuf: 1,
            xstats: vec![
                ("rx_q0_errors".to_string(), 700),
                ("rx_q1_errors".to_string(), 300),
                ("rx_missed_errors".to_string(), 5),
                ("tx_q0_errors".to_string(), 9),
                ("rx_q_errors".to_string(), 4),
                ("rx_qx_errors".to_string(), 4),
            ],
            ..PortCounters::default()
        };
        let ixgbe = read.clone().as_losses_of("net_ixgbe");
        assert_eq!(ixgbe.ring_drops, 1000);
        let t = ixgbe.totals();
        assert_eq!((t.rx_drops, t.rx_ring_drops, t.rx_refused), (1006, 1000, 0));
        assert_eq!(
            t.classes[0],
            ClassCount {
                class: Missed,
                counter: "q_errors".into(),
                frames: 1000
            }
        );
        for driver in [
            "net_i40e",
            "net_ring",
            "net_pcap",
            "net_ixgbe_vf",
            "mlx5_pci",
        ] {
            let other = read.clone().as_losses_of(driver);
            assert_eq!(other.ring_drops, 0, "{driver}");
            assert_eq!(
                (other.totals().rx_drops, other.totals().rx_ring_drops),
                (6, 0)
            );
        }
        // Over an interval, from the counters at its start.
        let before = PortCounters {
            xstats: vec![("rx_q0_errors".to_string(), 200)],
            ..PortCounters::default()
        }
        .as_losses_of("net_ixgbe");
        assert_eq!(ixgbe.since(&before).ring_drops, 800);
        let mut tr = ErrorTracker::new(before);
        let iv = tr.close(&ixgbe, 0.0, 1.0);
        assert_eq!(iv.rx_drops, 806);
        assert_eq!(tr.series().rx_ring_drops, 800);
        assert_eq!(tr.series().rx_drops, 806);
        for name in ["rx_q0_errors", "rx_q15_errors"] {
            assert!(ring_drop_counter("net_ixgbe", name), "{name}");
            assert!(!ring_drop_counter("net_i40e", name), "{name}");
        }
        for name in [
            "rx_q_errors",
            "rx_qx_errors",
            "tx_q0_errors",
            "rx_q0_bytes",
            "rx_q0_errors_x",
        ] {
            assert!(!ring_drop_counter("net_ixgbe", name), "{name}");
        }
    }

    #[test]
    fn driver_names_are_classified_as_their_tables_mean() {
        let cases: &[(&str, Option<ErrorClass>)] = &[
            // ethdev's generic counters.
            ("rx_missed_errors", Some(Missed)),
            ("rx_errors", None),
            ("tx_errors", Some(TxError)),
            ("rx_mbuf_allocation_errors", Some(NoMbuf)),
            ("rx_good_packets", None),
            ("rx_good_bytes", None),
            ("rx_q0_errors", None),
            // ixgbe (rte_ixgbe_stats_strings).
            ("rx_crc_errors", Some(Crc)),
            ("rx_illegal_byte_errors", Some(Crc)),
            ("rx_error_bytes", None),
            ("mac_local_errors", None),
            ("mac_remote_errors", None),
            ("rx_length_errors", Some(Length)),
            ("rx_fragment_errors", Some(Undersize)),
            ("rx_undersize_errors", Some(Undersize)),
            ("rx_oversize_errors", Some(Oversize)),
            ("rx_jabber_errors", Some(Oversize)),
            ("rx_management_dropped", Some(Missed)),
            ("rx_mac_short_packet_dropped", Some(Undersize)),
            ("rx_l3_l4_xsum_error", None),
            ("flow_director_filter_add_errors", None),
            ("rx_total_missed_packets", Some(Missed)),
            ("rx_priority0_mbuf_allocation_errors", Some(NoMbuf)),
            ("rx_priority0_dropped", Some(Missed)),
            ("rx_size_1024_to_max_packets", None),
            ("rx_xoff_packets", None),
            // i40e and ice.
            ("rx_dropped_packets", Some(Missed)),
            ("rx_size_error_packets", Some(Length)),
            ("tx_dropped_packets", Some(TxError)),
            ("tx_link_down_dropped", Some(TxError)),
            ("rx_len_errors", Some(Length)),
            ("rx_undersized_errors", Some(Undersize)),
            ("rx_fragmented_errors", Some(Undersize)),
            ("rx_mac_short_dropped", Some(Undersize)),
            ("rx_mac_short_pkt_dropped", Some(Undersize)),
            ("rx_size_1523_to_max_packets", None),
            // mlx5.
            ("rx_phy_crc_errors", Some(Crc)),
            ("rx_phy_in_range_len_errors", Some(Length)),
            ("rx_phy_symbol_errors", Some(Crc)),
            ("rx_out_of_buffer", Some(Missed)),
            ("rx_phy_discard_packets", Some(Missed)),
            ("rx_prio3_buf_discard_packets", Some(Missed)),
            ("tx_phy_errors", Some(TxError)),
            ("tx_phy_discard_packets", Some(TxError)),
            ("rx_wqe_errors", None),
            // virtio: a size bin, not an error.
            ("rx_q0_undersize_packets", None),
            ("rx_q0_size_1519_max_packets", None),
            ("rx_q0_errors", None),
            ("tx_q0_undersize_packets", None),
        ];
        for (name, want) in cases {
            assert_eq!(classify(name), *want, "{name}");
        }
    }

    #[test]
    fn names_are_read_without_case_and_by_whole_words() {
        assert_eq!(classify("RX_OVERSIZE_ERRORS"), Some(Oversize));
        // "error" inside a word is not the word.
        assert_eq!(classify("rx_errorless_packets"), None);
        assert_eq!(classify("rx_too_long_errors"), Some(Oversize));
    }

    fn counters(ierrors: u64, xstats: &[(&str, u64)]) -> PortCounters {
        PortCounters {
            ierrors,
            xstats: xstats.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            ..PortCounters::default()
        }
    }

    #[test]
    fn refused_frames_are_the_largest_counter_not_the_sum() {
        // ixgbe: ierrors sums crcerrs + rlec + roc + ...; rlec and roc
        // count the same oversize frames.
        let c = counters(
            12,
            &[
                ("rx_crc_errors", 2),
                ("rx_length_errors", 10),
                ("rx_oversize_errors", 10),
                ("rx_errors", 12),
                ("rx_missed_errors", 0),
            ],
        );
        let t = c.totals();
        assert_eq!(t.rx_refused, 12);
        assert_eq!(t.rx_drops, 0);
        assert_eq!(t.tx_errors, 0);
        assert_eq!(
            t.classes,
            vec![
                ClassCount {
                    class: Oversize,
                    counter: "rx_oversize_errors".into(),
                    frames: 10
                },
                ClassCount {
                    class: Crc,
                    counter: "rx_crc_errors".into(),
                    frames: 2
                },
                ClassCount {
                    class: Length,
                    counter: "rx_length_errors".into(),
                    frames: 10
                },
            ]
        );
        assert_eq!(
            counters_text(&refused_by(12, &t.classes)),
            "ierrors 12, rx_oversize_errors 10, rx_crc_errors 2, rx_length_errors 10"
        );
        // A driver whose ierrors leaves a class out: the class counts.
        let t = counters(0, &[("rx_phy_crc_errors", 7)]).totals();
        assert_eq!(t.rx_refused, 7);
        assert_eq!(
            counters_text(&refused_by(0, &t.classes)),
            "rx_phy_crc_errors 7"
        );
    }

    #[test]
    fn drops_and_tx_errors_are_kept_apart() {
        let c = PortCounters {
            ierrors: 0,
            oerrors: 3,
            imissed: 40,
            rx_nombuf: 2,
            ring_drops: 0,
            xstats: vec![("rx_missed_errors".into(), 40), ("tx_phy_errors".into(), 5)],
        };
        let t = c.totals();
        assert_eq!((t.rx_refused, t.rx_drops, t.tx_errors), (0, 42, 5));
        assert_eq!(
            tx_errors_by(&t.classes),
            vec![("tx_phy_errors".to_string(), 5)],
            "the larger TX counter names the class"
        );
        assert_eq!(t.classes[0].class, Missed);
        assert_eq!(t.classes[0].counter, "imissed");
    }

    #[test]
    fn the_series_says_when_errors_began_and_their_peak() {
        let at = |ierrors: u64, imissed: u64, oerrors: u64| PortCounters {
            ierrors,
            imissed,
            oerrors,
            ..PortCounters::default()
        };
        // Counters already nonzero before the run are not the run's.
        let mut t = ErrorTracker::new(at(100, 5, 0));
        assert_eq!(t.close(&at(100, 5, 0), 0.0, 1.0).rx_refused, 0);
        let iv = t.close(&at(104, 5, 0), 1.0, 2.0);
        assert_eq!(
            iv,
            ErrorInterval {
                interval: 1,
                start_ms: 1000,
                end_ms: 2000,
                rx_refused: 4,
                rx_drops: 0,
                tx_errors: 0
            }
        );
        t.close(&at(113, 8, 1), 2.0, 3.0);
        // A driver that reset its counters: nothing counted, nothing lost.
        t.close(&at(0, 0, 0), 3.0, 4.0);
        t.close(&at(114, 8, 1), 4.0, 4.5);
        let s = t.series();
        assert_eq!((s.rx_refused, s.rx_drops, s.tx_errors), (14, 3, 1));
        assert_eq!(s.first_rx_refused_ms, Some(1000));
        assert_eq!(s.first_rx_drop_ms, Some(2000));
        assert_eq!(s.first_tx_error_ms, Some(2000));
        assert_eq!(
            (s.peak_rx_refused, s.peak_rx_drops, s.peak_tx_errors),
            (9, 3, 1)
        );
        let idx: Vec<u32> = s.intervals.iter().map(|i| i.interval).collect();
        assert_eq!(idx, vec![1, 2, 4]);
        assert!(!s.is_clean());
        assert!(ErrorSeries::default().is_clean());
    }
}
