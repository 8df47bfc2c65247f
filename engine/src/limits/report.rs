//! The one-page limits report: link, bus, CPU and TCP long-path figures for
//! one frame size, as aligned text or JSON.

use serde::Serialize;

use super::bus::{Bus, BusCeiling, Direction};
use super::cpu::{cycle_budget, CpuCeiling};
use super::link::{FrameSpec, LinkCeiling, LinkKind};
use super::tcp;
use super::units::{bytes_human, gbps, group, rate_human};
use super::{check_frame_size, LimitsError};

/// One bus on the page: its receive and transmit ceilings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BusRow {
    /// Receive (NIC writes to memory).
    pub rx: BusCeiling,
    /// Transmit (NIC reads from memory).
    pub tx: BusCeiling,
    /// Payload rate at the receive ceiling, bit/s.
    pub rx_payload_bps: f64,
    /// Receive ceiling ÷ the first link's frame rate, percent (below 100:
    /// the bus cannot keep up with that link).
    pub rx_pct_of_link: Option<f64>,
}

/// The CPU part of the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CpuSection {
    /// Clock rate in Hz.
    pub clock_hz: f64,
    /// The ceiling, when cycles per frame were given.
    pub ceiling: Option<CpuCeiling>,
    /// Frames per second at the ceiling.
    pub fps: Option<f64>,
    /// L2 rate at the ceiling, bit/s.
    pub bps_l2: Option<f64>,
    /// Payload rate at the ceiling, bit/s.
    pub payload_bps: Option<f64>,
    /// Cycles per frame each link's line rate leaves: (link, cycles).
    pub budgets: Vec<(String, f64)>,
}

/// The TCP long-path part of the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TcpSection {
    /// Round-trip time, seconds.
    pub rtt_s: f64,
    /// Rate for the bandwidth-delay and bandwidth-distance products, bit/s.
    pub rate_bps: f64,
    /// Bandwidth-delay product = the window that rate needs, bytes.
    pub bdp_bytes: f64,
    /// Window scale shift that window needs (RFC 7323); `None`: too large.
    pub window_scale_shift: Option<u8>,
    /// Largest scaled window, 65,535 · 2^14 bytes.
    pub max_scaled_window: u64,
    /// Throughput the largest scaled window allows at this RTT, bit/s.
    pub max_scaled_window_bps: f64,
    /// Throughput a 65,535-byte (unscaled) window allows, bit/s.
    pub unscaled_window_bps: f64,
    /// The window asked about, bytes.
    pub window_bytes: Option<f64>,
    /// Throughput that window allows at this RTT (window ÷ RTT), bit/s.
    pub window_limited_bps: Option<f64>,
    /// Path length as given, metres.
    pub distance_m: f64,
    /// Path length the Land Speed Record counts (≤ 30,000 km), metres.
    pub lsr_distance_m: f64,
    /// Bandwidth-distance product, Tb·m/s.
    pub bandwidth_distance_tbmps: f64,
    /// A standing record to beat, Tb·m/s.
    pub record_tbmps: Option<f64>,
    /// Rate needed over this distance to beat it by 10 %, bit/s.
    pub rate_to_beat_bps: Option<f64>,
    /// Whether this rate × distance beats it by 10 %.
    pub beats_record: Option<bool>,
}

/// The whole page, as `landspeed limits --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LimitsPage {
    /// Frame size in bytes, FCS included.
    pub frame_size: u32,
    /// What the frames carry.
    pub frame: FrameSpec,
    /// Payload bytes per frame.
    pub payload_bytes: u32,
    /// Link ceilings.
    pub links: Vec<LinkCeiling>,
    /// Bus ceilings.
    pub buses: Vec<BusRow>,
    /// CPU ceiling, when a clock rate was given.
    pub cpu: Option<CpuSection>,
    /// TCP long-path figures.
    pub tcp: TcpSection,
}

/// Inputs of the page, already parsed and validated.
#[derive(Debug, Clone, PartialEq)]
pub struct PageInputs {
    /// Frame size, FCS included.
    pub frame_size: u32,
    /// What the frames carry.
    pub frame: FrameSpec,
    /// Links to list.
    pub links: Vec<LinkKind>,
    /// Buses to list.
    pub buses: Vec<Bus>,
    /// CPU clock in Hz.
    pub cpu_hz: Option<f64>,
    /// Cycles per frame.
    pub cycles_per_frame: Option<f64>,
    /// RTT in seconds.
    pub rtt_s: f64,
    /// Window in bytes.
    pub window_bytes: Option<f64>,
    /// Rate in bit/s.
    pub rate_bps: f64,
    /// Distance in metres.
    pub distance_m: f64,
    /// Record to beat in Tb·m/s.
    pub record_tbmps: Option<f64>,
}

impl LimitsPage {
    /// Computes every figure of the page.
    pub fn build(inp: &PageInputs) -> Result<LimitsPage, LimitsError> {
        let fs = check_frame_size(inp.frame_size)?;
        let links = inp
            .links
            .iter()
            .map(|l| l.ceiling(fs, &inp.frame))
            .collect::<Result<Vec<_>, _>>()?;
        let payload = inp.frame.payload_bytes(fs);
        let first_link_fps = inp.links.first().map(|l| l.frames_per_sec(fs));
        let buses = inp
            .buses
            .iter()
            .map(|b| {
                let rx = b.frame_ceiling(fs, Direction::Rx)?;
                let tx = b.frame_ceiling(fs, Direction::Tx)?;
                Ok(BusRow {
                    rx_payload_bps: rx.fps * 8.0 * f64::from(payload),
                    rx_pct_of_link: first_link_fps.map(|l| rx.fps / l * 100.0),
                    rx,
                    tx,
                })
            })
            .collect::<Result<Vec<_>, LimitsError>>()?;
        let cpu = match inp.cpu_hz {
            None => None,
            Some(hz) => {
                let ceiling = match inp.cycles_per_frame {
                    Some(c) => Some(CpuCeiling::new(hz, c)?),
                    None => {
                        CpuCeiling::new(hz, 1.0)?;
                        None
                    }
                };
                Some(CpuSection {
                    clock_hz: hz,
                    fps: ceiling.map(|c| c.fps()),
                    bps_l2: ceiling.map(|c| c.bps_l2(fs)),
                    payload_bps: ceiling.map(|c| c.fps() * 8.0 * f64::from(payload)),
                    ceiling,
                    budgets: inp
                        .links
                        .iter()
                        .map(|l| (l.name(), cycle_budget(hz, l.frames_per_sec(fs))))
                        .collect(),
                })
            }
        };
        if inp.cpu_hz.is_none() {
            if let Some(c) = inp.cycles_per_frame {
                // Validate even if it cannot be used without a clock.
                CpuCeiling::new(1.0, c)?;
            }
        }
        let bdp = tcp::bdp_bytes(inp.rate_bps, inp.rtt_s)?;
        let max_w = tcp::MAX_SCALED_WINDOW;
        let lsr_d = tcp::lsr_distance_m(inp.distance_m)?;
        let bdprod = tcp::bandwidth_distance_tbmps(inp.rate_bps, inp.distance_m)?;
        let window_limited_bps = match inp.window_bytes {
            Some(w) => Some(tcp::window_limited_bps(w, inp.rtt_s)?),
            None => None,
        };
        let (rate_to_beat_bps, beats_record) = match inp.record_tbmps {
            Some(r) => (
                Some(tcp::rate_to_beat_bps(r, inp.distance_m)?),
                Some(tcp::beats_record(bdprod, r)?),
            ),
            None => (None, None),
        };
        let tcp = TcpSection {
            rtt_s: inp.rtt_s,
            rate_bps: inp.rate_bps,
            bdp_bytes: bdp,
            window_scale_shift: tcp::window_scale_needed(bdp),
            max_scaled_window: max_w,
            max_scaled_window_bps: tcp::window_limited_bps(max_w as f64, inp.rtt_s)?,
            unscaled_window_bps: tcp::window_limited_bps(
                tcp::MAX_UNSCALED_WINDOW as f64,
                inp.rtt_s,
            )?,
            window_bytes: inp.window_bytes,
            window_limited_bps,
            distance_m: inp.distance_m,
            lsr_distance_m: lsr_d,
            bandwidth_distance_tbmps: bdprod,
            record_tbmps: inp.record_tbmps,
            rate_to_beat_bps,
            beats_record,
        };
        Ok(LimitsPage {
            frame_size: fs,
            frame: inp.frame,
            payload_bytes: payload,
            links,
            buses,
            cpu,
            tcp,
        })
    }

    /// The page as JSON (pretty-printed).
    pub fn to_json(&self) -> Result<String, LimitsError> {
        serde_json::to_string_pretty(self).map_err(|e| LimitsError::Json(e.to_string()))
    }

    /// The page as aligned text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let fs = self.frame_size;
        out.push_str(&format!(
            "Limits for {fs}-byte frames (FCS included), {}: {} payload bytes per frame\n\n",
            self.frame.label(),
            group(f64::from(self.payload_bytes))
        ));

        if !self.links.is_empty() {
            out.push_str(
                "Link: frames/s = MAC rate / (8 * (frame + 20 bytes of preamble, SFD and gap))\n",
            );
            let mut t = vec![row(&[
                "link",
                "MAC Gbit/s",
                "frames/s",
                "L1 Gbit/s",
                "L2 Gbit/s",
                "payload Gbit/s",
            ])];
            for l in &self.links {
                t.push(vec![
                    l.name.clone(),
                    gbps(l.mac_bps),
                    group(l.fps),
                    gbps(l.l1_bps),
                    gbps(l.l2_bps),
                    gbps(l.payload_bps),
                ]);
            }
            out.push_str(&table(&t));
            out.push('\n');
        }

        if !self.buses.is_empty() {
            let vs = self
                .links
                .first()
                .map(|l| format!("RX vs {}", short_link(&l.link)))
                .unwrap_or_else(|| "RX vs link".into());
            out.push_str(
                "I/O bus: NIC receiving = DMA writes, transmitting = DMA reads; \
                 descriptors and doorbells included\n",
            );
            let mut t = vec![row(&[
                "bus",
                "raw Gbit/s",
                "usable",
                "RX frames/s",
                "RX L2 Gbit/s",
                "RX payload",
                "TX frames/s",
                "TX L2 Gbit/s",
                &vs,
            ])];
            for b in &self.buses {
                t.push(vec![
                    b.rx.name.clone(),
                    gbps(b.rx.raw_bps),
                    gbps(b.rx.usable_bps),
                    group(b.rx.fps),
                    gbps(b.rx.bps_l2),
                    gbps(b.rx_payload_bps),
                    group(b.tx.fps),
                    format!(
                        "{}{}",
                        gbps(b.tx.bps_l2),
                        if b.tx.binding.starts_with("read latency") {
                            " (lat)"
                        } else {
                            ""
                        }
                    ),
                    match b.rx_pct_of_link {
                        Some(p) if p < 100.0 => format!("{p:.0} % bound"),
                        Some(p) => format!("{p:.0} %"),
                        None => "-".into(),
                    },
                ]);
            }
            out.push_str(&table(&t));
            if self
                .buses
                .iter()
                .any(|b| b.tx.binding.starts_with("read latency"))
            {
                out.push_str(
                    "  (lat) = PCI-X transmit limited by read latency: too few bytes per split \
                     read (raise MMRBC)\n",
                );
            }
            out.push('\n');
        }

        if let Some(c) = &self.cpu {
            out.push_str(&format!(
                "CPU: frames/s = clock / cycles per frame, clock {:.3} GHz\n",
                c.clock_hz / 1e9
            ));
            if let (Some(cc), Some(fps), Some(l2), Some(p)) =
                (&c.ceiling, c.fps, c.bps_l2, c.payload_bps)
            {
                out.push_str(&format!(
                    "  {} cycles/frame: {} frames/s, {} Gbit/s L2, {} Gbit/s payload\n",
                    group(cc.cycles_per_frame),
                    group(fps),
                    gbps(l2),
                    gbps(p)
                ));
            }
            let mut t = vec![row(&["cycle budget at line rate", "cycles/frame"])];
            for (name, cyc) in &c.budgets {
                t.push(vec![format!("  {name}"), group(*cyc)]);
            }
            if t.len() > 1 {
                out.push_str(&table(&t));
            }
            out.push('\n');
        }

        let tc = &self.tcp;
        out.push_str(&format!(
            "TCP over a long path: RTT {}, rate {}\n",
            dur_human(tc.rtt_s),
            rate_human(tc.rate_bps)
        ));
        let mut t = vec![row(&["figure", "value"])];
        t.push(vec![
            "bandwidth-delay product (rate * RTT)".into(),
            bytes_human(tc.bdp_bytes),
        ]);
        t.push(vec![
            "window scale shift it needs".into(),
            match tc.window_scale_shift {
                Some(s) => format!("{s} (RFC 7323)"),
                None => format!(
                    "none suffices: above the largest window {}",
                    group(tc.max_scaled_window as f64)
                ),
            },
        ]);
        if let (Some(w), Some(bps)) = (tc.window_bytes, tc.window_limited_bps) {
            t.push(vec![
                format!("window {} bytes / RTT", group(w)),
                rate_human(bps),
            ]);
        }
        t.push(vec![
            "window 65,535 bytes (unscaled) / RTT".into(),
            rate_human(tc.unscaled_window_bps),
        ]);
        t.push(vec![
            format!(
                "window {} bytes (65,535 * 2^14) / RTT",
                group(tc.max_scaled_window as f64)
            ),
            rate_human(tc.max_scaled_window_bps),
        ]);
        let capped = if tc.distance_m > tc.lsr_distance_m {
            format!(
                " (distance {} km capped at 30,000 km)",
                group(tc.distance_m / 1e3)
            )
        } else {
            String::new()
        };
        t.push(vec![
            format!(
                "bandwidth-distance over {} km",
                group(tc.lsr_distance_m / 1e3)
            ),
            format!("{} Tb*m/s{capped}", group_frac(tc.bandwidth_distance_tbmps)),
        ]);
        if let (Some(r), Some(need), Some(beats)) =
            (tc.record_tbmps, tc.rate_to_beat_bps, tc.beats_record)
        {
            t.push(vec![
                format!("to beat {} Tb*m/s by 10 %", group_frac(r)),
                format!(
                    "{} or more ({})",
                    rate_human(need),
                    if beats {
                        "this rate does"
                    } else {
                        "this rate does not"
                    }
                ),
            ]);
        }
        out.push_str(&table_with(&t, true));
        out
    }
}

fn short_link(l: &LinkKind) -> String {
    match l {
        LinkKind::Lan10G => "10G LAN".into(),
        LinkKind::Wan10G => "10G WAN".into(),
        other => other.name(),
    }
}

fn dur_human(s: f64) -> String {
    if s >= 1.0 {
        format!("{} s", trim(s))
    } else if s >= 1e-3 {
        format!("{} ms", trim(s * 1e3))
    } else {
        format!("{} us", trim(s * 1e6))
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Thousands separators with up to three decimals kept when not integral.
fn group_frac(v: f64) -> String {
    let r = (v * 1000.0).round() / 1000.0;
    if (r - r.round()).abs() < 1e-9 {
        group(r)
    } else {
        let frac = format!("{:.3}", r.fract().abs());
        format!(
            "{}{}",
            group(r.trunc()),
            frac.trim_start_matches('0').trim_end_matches('0')
        )
    }
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|s| s.to_string()).collect()
}

/// Aligns a table: first column left, the others right, two spaces apart,
/// indented by two spaces.
fn table(rows: &[Vec<String>]) -> String {
    table_with(rows, false)
}

/// Like [`table`], with every column left-aligned when `left` is set.
fn table_with(rows: &[Vec<String>], left: bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width = |c: usize| {
        rows.iter()
            .filter_map(|r| r.get(c))
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..cols).map(width).collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from("  ");
        for (c, cell) in r.iter().enumerate() {
            if c == 0 {
                line.push_str(&format!("{cell:<w$}", w = widths[0]));
            } else if left {
                line.push_str(&format!("  {cell:<w$}", w = widths[c]));
            } else {
                line.push_str(&format!("  {cell:>w$}", w = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_keep_their_digits() {
        assert_eq!(group_frac(239_820.0), "239,820");
        assert_eq!(group_frac(1234.5), "1,234.5");
    }

    #[test]
    fn table_aligns() {
        let t = table(&[row(&["a", "1"]), row(&["long name", "1,000"])]);
        assert_eq!(t, "  a              1\n  long name  1,000\n");
    }
}
