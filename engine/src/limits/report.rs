//! The one-page limits report: link, bus, CPU and TCP long-path figures for
//! one frame size, as aligned text or JSON.

use std::time::Duration;

use serde::Serialize;

use super::bus::{Bus, BusCeiling, Direction};
use super::cpu::{cycle_budget, CpuCeiling};
use super::link::{FrameSpec, LinkCeiling, LinkKind};
use super::tcp;
use super::units::{bytes_human, gbps, group, rate_human};
use super::{check_frame_size, LimitsError};
use crate::units::L1_OVERHEAD;
use crate::units::{format_duration, group_fraction};

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
        let buses = bus_rows(inp, fs, payload)?;
        let cpu = cpu_section(inp, fs, payload)?;
        let tcp = tcp_section(inp)?;
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
        let mut out = format!(
            "Limits for {}-byte frames (FCS included), {}: {} payload bytes per frame\n\n",
            self.frame_size,
            self.frame.label(),
            group(f64::from(self.payload_bytes))
        );
        if !self.links.is_empty() {
            out.push_str(&links_text(&self.links));
        }
        if !self.buses.is_empty() {
            out.push_str(&buses_text(&self.buses, self.links.first()));
        }
        if let Some(c) = &self.cpu {
            out.push_str(&cpu_text(c));
        }
        out.push_str(&tcp_text(&self.tcp));
        out
    }
}

/// Each bus's receive and transmit ceilings, and the receive ceiling
/// against the first link's frame rate.
fn bus_rows(inp: &PageInputs, fs: u32, payload: u32) -> Result<Vec<BusRow>, LimitsError> {
    let first_link_fps = inp.links.first().map(|l| l.frames_per_sec(fs));
    inp.buses
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
        .collect()
}

/// The CPU section when a clock was given. Cycles per frame are checked
/// even without a clock, which they cannot be used without.
fn cpu_section(inp: &PageInputs, fs: u32, payload: u32) -> Result<Option<CpuSection>, LimitsError> {
    let Some(hz) = inp.cpu_hz else {
        if let Some(c) = inp.cycles_per_frame {
            CpuCeiling::new(1.0, c)?;
        }
        return Ok(None);
    };
    let ceiling = match inp.cycles_per_frame {
        Some(c) => Some(CpuCeiling::new(hz, c)?),
        None => {
            CpuCeiling::new(hz, 1.0)?;
            None
        }
    };
    Ok(Some(CpuSection {
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
    }))
}

/// The TCP long-path figures: windows at this RTT, the bandwidth-distance
/// product and the record to beat.
fn tcp_section(inp: &PageInputs) -> Result<TcpSection, LimitsError> {
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
    Ok(TcpSection {
        rtt_s: inp.rtt_s,
        rate_bps: inp.rate_bps,
        bdp_bytes: bdp,
        window_scale_shift: tcp::window_scale_needed(bdp),
        max_scaled_window: max_w,
        max_scaled_window_bps: tcp::window_limited_bps(max_w as f64, inp.rtt_s)?,
        unscaled_window_bps: tcp::window_limited_bps(tcp::MAX_UNSCALED_WINDOW as f64, inp.rtt_s)?,
        window_bytes: inp.window_bytes,
        window_limited_bps,
        distance_m: inp.distance_m,
        lsr_distance_m: lsr_d,
        bandwidth_distance_tbmps: bdprod,
        record_tbmps: inp.record_tbmps,
        rate_to_beat_bps,
        beats_record,
    })
}

/// The link section: one row per link.
fn links_text(links: &[LinkCeiling]) -> String {
    let mut out = format!(
        "Link: frames/s = MAC rate / (8 * (frame + {L1_OVERHEAD} bytes of preamble, SFD and gap))\n"
    );
    let mut t = vec![row(&[
        "link",
        "MAC Gbit/s",
        "frames/s",
        "L1 Gbit/s",
        "L2 Gbit/s",
        "payload Gbit/s",
    ])];
    for l in links {
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
    out
}

/// Whether a transmit ceiling is PCI-X read latency, marked `(lat)`.
fn latency_bound(b: &BusRow) -> bool {
    b.tx.binding.starts_with("read latency")
}

/// The I/O bus section: one row per bus, the last column against `first`,
/// the first link.
fn buses_text(buses: &[BusRow], first: Option<&LinkCeiling>) -> String {
    let vs = first
        .map(|l| format!("RX vs {}", short_link(&l.link)))
        .unwrap_or_else(|| "RX vs link".into());
    let mut out = String::from(
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
    t.extend(buses.iter().map(bus_cells));
    out.push_str(&table(&t));
    if buses.iter().any(latency_bound) {
        out.push_str(
            "  (lat) = PCI-X transmit limited by read latency: too few bytes per split \
             read (raise MMRBC)\n",
        );
    }
    out.push('\n');
    out
}

/// One row of the I/O bus table.
fn bus_cells(b: &BusRow) -> Vec<String> {
    let lat = if latency_bound(b) { " (lat)" } else { "" };
    vec![
        b.rx.name.clone(),
        gbps(b.rx.raw_bps),
        gbps(b.rx.usable_bps),
        group(b.rx.fps),
        gbps(b.rx.bps_l2),
        gbps(b.rx_payload_bps),
        group(b.tx.fps),
        format!("{}{lat}", gbps(b.tx.bps_l2)),
        match b.rx_pct_of_link {
            Some(p) if p < 100.0 => format!("{p:.0} % bound"),
            Some(p) => format!("{p:.0} %"),
            None => "-".into(),
        },
    ]
}

/// The CPU section: the ceiling at the given cycles per frame, and the
/// cycle budget each link's line rate leaves.
fn cpu_text(c: &CpuSection) -> String {
    let mut out = format!(
        "CPU: frames/s = clock / cycles per frame, clock {:.3} GHz\n",
        c.clock_hz / 1e9
    );
    if let (Some(cc), Some(fps), Some(l2), Some(p)) = (&c.ceiling, c.fps, c.bps_l2, c.payload_bps) {
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
    out
}

/// The TCP long-path section, its table left-aligned.
fn tcp_text(tc: &TcpSection) -> String {
    let mut out = format!(
        "TCP over a long path: RTT {}, rate {}\n",
        format_duration(Duration::from_nanos((tc.rtt_s * 1e9).round() as u64)),
        rate_human(tc.rate_bps)
    );
    let mut t = vec![row(&["figure", "value"])];
    t.extend(window_rows(tc));
    t.extend(distance_rows(tc));
    out.push_str(&table_with(&t, true));
    out
}

/// The TCP table's rows on windows: the bandwidth-delay product, the scale
/// it needs, and the rate each window allows at this RTT.
fn window_rows(tc: &TcpSection) -> Vec<Vec<String>> {
    let max_w = group(tc.max_scaled_window as f64);
    let mut t = vec![
        vec![
            "bandwidth-delay product (rate * RTT)".into(),
            bytes_human(tc.bdp_bytes),
        ],
        vec![
            "window scale shift it needs".into(),
            match tc.window_scale_shift {
                Some(s) => format!("{s} (RFC 7323)"),
                None => format!("none suffices: above the largest window {max_w}"),
            },
        ],
    ];
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
        format!("window {max_w} bytes (65,535 * 2^14) / RTT"),
        rate_human(tc.max_scaled_window_bps),
    ]);
    t
}

/// The TCP table's rows on distance: the bandwidth-distance product and,
/// when a record was given, the rate that beats it.
fn distance_rows(tc: &TcpSection) -> Vec<Vec<String>> {
    let capped = if tc.distance_m > tc.lsr_distance_m {
        format!(
            " (distance {} km capped at 30,000 km)",
            group(tc.distance_m / 1e3)
        )
    } else {
        String::new()
    };
    let mut t = vec![vec![
        format!(
            "bandwidth-distance over {} km",
            group(tc.lsr_distance_m / 1e3)
        ),
        format!(
            "{} Tb*m/s{capped}",
            group_fraction(tc.bandwidth_distance_tbmps, 3)
        ),
    ]];
    if let (Some(r), Some(need), Some(beats)) =
        (tc.record_tbmps, tc.rate_to_beat_bps, tc.beats_record)
    {
        let does = if beats {
            "this rate does"
        } else {
            "this rate does not"
        };
        t.push(vec![
            format!("to beat {} Tb*m/s by 10 %", group_fraction(r, 3)),
            format!("{} or more ({does})", rate_human(need)),
        ]);
    }
    t
}

fn short_link(l: &LinkKind) -> String {
    match l {
        LinkKind::Lan10G => "10G LAN".into(),
        LinkKind::Wan10G => "10G WAN".into(),
        other => other.name(),
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
        assert_eq!(group_fraction(239_820.0, 3), "239,820");
        assert_eq!(group_fraction(1234.5, 3), "1,234.5");
    }

    #[test]
    fn table_aligns() {
        let t = table(&[row(&["a", "1"]), row(&["long name", "1,000"])]);
        assert_eq!(t, "  a              1\n  long name  1,000\n");
    }
}
