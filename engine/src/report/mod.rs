//! Run results: the JSON document, iperf3-like interval lines, and the
//! human summary.
//!
//! Every figure printed is computed from the [`RunResult`] that `--json`
//! writes, so a reader can reproduce it from the file.

pub mod join;
pub(crate) mod qualify;
pub mod summary;

use std::fmt::Write as _;

use crate::units::{format_bytes, Prefixes};

pub use crate::stats::{merge_ns, ns_histogram, Interval, Percentiles, Span};

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
    use crate::units::format_nanos;

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
