//! Link ceilings: frames per second and L1/L2/payload rates an Ethernet
//! link carries at a frame size, and the payload each frame holds.
//!
//! fps = R / (8 · (L + 20)) with R the MAC data rate and L the frame size
//! including FCS (IEEE 802.3: preamble 7 + SFD 1 + inter-frame gap 12).
//! The 10GBASE-W WAN PHY stretches the inter-frame gap so that its MAC
//! averages R = 10 Gbit/s · 13/14 (one idle octet per 104 bits).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{check_frame_size, LimitsError};
use crate::units;
use crate::units::L1_OVERHEAD;
use crate::wire::spec::L2_OVERHEAD;

/// An Ethernet link type, identified by its MAC data rate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// 10GBASE-R (SR/LR/ER) LAN PHY: MAC rate 10 Gbit/s, line 10.3125 GBd.
    Lan10G,
    /// 10GBASE-W WAN PHY (SONET OC-192c framing): MAC rate 10 · 13/14 Gbit/s
    /// after inter-frame-gap stretching.
    Wan10G,
    /// 1 Gigabit Ethernet.
    G1,
    /// 25 Gigabit Ethernet.
    G25,
    /// 40 Gigabit Ethernet.
    G40,
    /// 100 Gigabit Ethernet.
    G100,
    /// Any other MAC rate, in bit/s.
    Custom {
        /// The MAC data rate in bit/s.
        bps: u64,
    },
}

/// The WAN PHY MAC rate: 10 Gbit/s throttled by ipgStretchRatio 104
/// (one extra octet per 104 bits), 10e9 · 13/14 bit/s.
pub const WAN_PHY_MAC_BPS: f64 = 10e9 * 13.0 / 14.0;

impl LinkKind {
    /// Every named link, in the order the limits page lists them.
    pub const ALL: [LinkKind; 6] = [
        LinkKind::Lan10G,
        LinkKind::Wan10G,
        LinkKind::G1,
        LinkKind::G25,
        LinkKind::G40,
        LinkKind::G100,
    ];

    /// The link for a speed as DPDK reports it (`rte_eth_link.link_speed`
    /// in Mbit/s). 10,000 is taken as the LAN PHY; 0 (unknown) gives `None`.
    pub fn from_speed_mbps(mbps: u32) -> Option<LinkKind> {
        match mbps {
            0 => None,
            1_000 => Some(LinkKind::G1),
            10_000 => Some(LinkKind::Lan10G),
            25_000 => Some(LinkKind::G25),
            40_000 => Some(LinkKind::G40),
            100_000 => Some(LinkKind::G100),
            other => Some(LinkKind::Custom {
                bps: u64::from(other) * 1_000_000,
            }),
        }
    }

    /// The MAC data rate in bit/s (the rate at which L1 bytes, frame plus
    /// 20 bytes of overhead, leave the MAC on average).
    pub fn mac_bps(&self) -> f64 {
        match *self {
            LinkKind::Lan10G => 10e9,
            LinkKind::Wan10G => WAN_PHY_MAC_BPS,
            LinkKind::G1 => 1e9,
            LinkKind::G25 => 25e9,
            LinkKind::G40 => 40e9,
            LinkKind::G100 => 100e9,
            LinkKind::Custom { bps } => bps as f64,
        }
    }

    /// A short human name, e.g. `10GBASE-R (LAN PHY)`.
    pub fn name(&self) -> String {
        match *self {
            LinkKind::Lan10G => "10GBASE-R (LAN PHY)".to_string(),
            LinkKind::Wan10G => "10GBASE-W (WAN PHY)".to_string(),
            LinkKind::G1 => "1 GbE".to_string(),
            LinkKind::G25 => "25 GbE".to_string(),
            LinkKind::G40 => "40 GbE".to_string(),
            LinkKind::G100 => "100 GbE".to_string(),
            LinkKind::Custom { bps } => {
                crate::units::format_bit_rate(bps as f64, crate::units::Digits::Trimmed(3))
            }
        }
    }

    /// Frames per second the link carries at `frame_size` (FCS included).
    pub fn frames_per_sec(&self, frame_size: u32) -> f64 {
        self.mac_bps() / (8.0 * f64::from(frame_size + L1_OVERHEAD as u32))
    }

    /// L2 (frame, FCS included) bit rate at `frame_size`.
    pub fn l2_bps(&self, frame_size: u32) -> f64 {
        self.frames_per_sec(frame_size) * 8.0 * f64::from(frame_size)
    }

    /// L1 bit rate at `frame_size` (frame + 20 bytes); equals the MAC rate.
    pub fn l1_bps(&self, frame_size: u32) -> f64 {
        self.frames_per_sec(frame_size) * 8.0 * f64::from(frame_size + L1_OVERHEAD as u32)
    }

    /// Payload (UDP payload or TCP segment data) bit rate at `frame_size`.
    pub fn payload_bps(&self, frame_size: u32, spec: &FrameSpec) -> f64 {
        self.frames_per_sec(frame_size) * 8.0 * f64::from(spec.payload_bytes(frame_size))
    }

    /// All ceilings of this link at a frame size, checked.
    pub fn ceiling(&self, frame_size: u32, spec: &FrameSpec) -> Result<LinkCeiling, LimitsError> {
        check_frame_size(frame_size)?;
        Ok(LinkCeiling {
            link: *self,
            name: self.name(),
            frame_size,
            mac_bps: self.mac_bps(),
            fps: self.frames_per_sec(frame_size),
            l1_bps: self.l1_bps(frame_size),
            l2_bps: self.l2_bps(frame_size),
            payload_bps: self.payload_bps(frame_size, spec),
        })
    }
}

/// `a` is a whole multiple of `d` (`d` > 0).
fn divisible(a: u64, d: u64) -> bool {
    a / d * d == a
}

impl fmt::Display for LinkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LinkKind::Lan10G => f.write_str("10gbase-r"),
            LinkKind::Wan10G => f.write_str("10gbase-w"),
            LinkKind::G1 => f.write_str("1g"),
            LinkKind::G25 => f.write_str("25g"),
            LinkKind::G40 => f.write_str("40g"),
            LinkKind::G100 => f.write_str("100g"),
            LinkKind::Custom { bps } if divisible(bps, 1_000_000_000) => {
                write!(f, "{}g", bps / 1_000_000_000)
            }
            LinkKind::Custom { bps } if divisible(bps, 1_000_000) => {
                write!(f, "{}m", bps / 1_000_000)
            }
            LinkKind::Custom { bps } => write!(f, "{bps}"),
        }
    }
}

impl FromStr for LinkKind {
    type Err = LimitsError;

    /// Accepts `10g`, `10gbase-sr` (`-r`, `-lr`, `-er`, `lan`), `10gbase-w`
    /// (`-sw`, `-lw`, `wan`), `1g`, `25g`, `40g`, `100g`, and any other
    /// rate as `NNNg` or `NNNm` (e.g. `2.5g`, `400g`, `100m`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        let bad = || {
            LimitsError::invalid(
                "link",
                s,
                "expected 10g, 10gbase-sr, 10gbase-w (wan), 1g, 25g, 40g, 100g, or a rate like 2.5g or 100m",
            )
        };
        match t.as_str() {
            "10gbase-sr" | "10gbase-lr" | "10gbase-er" | "10gbase-r" | "10gbase-lrm" | "lan"
            | "10g-lan" | "10gbe" => return Ok(LinkKind::Lan10G),
            "10gbase-w" | "10gbase-sw" | "10gbase-lw" | "10gbase-ew" | "wan" | "10g-wan"
            | "oc192" | "oc-192" => return Ok(LinkKind::Wan10G),
            _ => {}
        }
        let t = t.strip_suffix("be").unwrap_or(&t);
        let rate = t
            .strip_suffix("bit/s")
            .or_else(|| t.strip_suffix("bps"))
            .unwrap_or(t);
        // A link rate names its prefix: `2.5g`, `100m`, never bare bit/s.
        if !rate.trim_end().ends_with(['g', 'm']) {
            return Err(bad());
        }
        let bps = units::parse_bit_rate(t).map_err(|e| match e.problem {
            units::Problem::NoNumber | units::Problem::UnknownUnit(_) => bad(),
            _ => LimitsError::invalid("link", s, e.reason()),
        })?;
        if bps == 0 {
            return Err(LimitsError::invalid(
                "link",
                s,
                "the link rate must be positive",
            ));
        }
        if bps > 1_600_000_000_000 {
            return Err(LimitsError::invalid(
                "link",
                s,
                "rates above 1.6 Tbit/s are not Ethernet",
            ));
        }
        if divisible(bps, 1_000_000) && bps <= u64::from(u32::MAX) * 1_000_000 {
            if let Some(k) = LinkKind::from_speed_mbps((bps / 1_000_000) as u32) {
                return Ok(k);
            }
        }
        Ok(LinkKind::Custom { bps })
    }
}

/// The ceilings one link sets at one frame size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkCeiling {
    /// The link.
    pub link: LinkKind,
    /// Its human name.
    pub name: String,
    /// Frame size in bytes, FCS included.
    pub frame_size: u32,
    /// MAC data rate, bit/s.
    pub mac_bps: f64,
    /// Frames per second.
    pub fps: f64,
    /// L1 rate (frame + 20 bytes), bit/s.
    pub l1_bps: f64,
    /// L2 rate (frame), bit/s.
    pub l2_bps: f64,
    /// Payload rate for the [`FrameSpec`], bit/s.
    pub payload_bps: f64,
}

/// IP version of the frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum IpVersion {
    /// IPv4, 20-byte header (no options).
    V4,
    /// IPv6, 40-byte header (no extension headers).
    V6,
}

impl IpVersion {
    /// The IP header length in bytes.
    pub fn header_bytes(self) -> u32 {
        match self {
            IpVersion::V4 => 20,
            IpVersion::V6 => 40,
        }
    }

    /// Parses `4`/`ipv4` or `6`/`ipv6`.
    pub fn parse(field: &'static str, s: &str) -> Result<IpVersion, LimitsError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "4" | "v4" | "ipv4" => Ok(IpVersion::V4),
            "6" | "v6" | "ipv6" => Ok(IpVersion::V6),
            _ => Err(LimitsError::invalid(field, s, "expected 4 or 6")),
        }
    }
}

impl fmt::Display for IpVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IpVersion::V4 => "IPv4",
            IpVersion::V6 => "IPv6",
        })
    }
}

/// Transport protocol of the frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum L4Proto {
    /// UDP, 8-byte header.
    Udp,
    /// TCP, 20-byte header (+12 with the timestamps option).
    Tcp,
}

impl fmt::Display for L4Proto {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            L4Proto::Udp => "UDP",
            L4Proto::Tcp => "TCP",
        })
    }
}

/// What a frame carries, for payload-per-frame arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameSpec {
    /// IP version.
    pub ip: IpVersion,
    /// Transport protocol.
    pub l4: L4Proto,
    /// One 802.1Q tag (4 bytes) inside the frame.
    pub vlan: bool,
    /// TCP timestamps option (RFC 7323) on every segment: 12 more bytes of
    /// header (10-byte option padded to 12). Ignored for UDP.
    pub tcp_timestamps: bool,
}

impl Default for FrameSpec {
    /// IPv4/UDP, untagged.
    fn default() -> Self {
        FrameSpec {
            ip: IpVersion::V4,
            l4: L4Proto::Udp,
            vlan: false,
            tcp_timestamps: false,
        }
    }
}

/// Ethernet header (14) + FCS (4) bytes around the IP packet:
/// [`L2_OVERHEAD`] as `u32`.
pub const ETH_HEADER_FCS_BYTES: u32 = L2_OVERHEAD as u32;
/// An 802.1Q tag.
pub const VLAN_TAG_BYTES: u32 = 4;
/// TCP header without options.
pub const TCP_HEADER_BYTES: u32 = 20;
/// TCP timestamps option, padded.
pub const TCP_TIMESTAMPS_BYTES: u32 = 12;
/// UDP header.
pub const UDP_HEADER_BYTES: u32 = 8;

impl FrameSpec {
    /// The IP MTU a frame of `frame_size` bytes carries:
    /// L − 18 (Ethernet header + FCS) − 4 if tagged.
    pub fn mtu(&self, frame_size: u32) -> u32 {
        let vlan = if self.vlan { VLAN_TAG_BYTES } else { 0 };
        frame_size.saturating_sub(ETH_HEADER_FCS_BYTES + vlan)
    }

    /// IP + transport header bytes per packet.
    pub fn headers_bytes(&self) -> u32 {
        self.ip.header_bytes()
            + match self.l4 {
                L4Proto::Udp => UDP_HEADER_BYTES,
                L4Proto::Tcp if self.tcp_timestamps => TCP_HEADER_BYTES + TCP_TIMESTAMPS_BYTES,
                L4Proto::Tcp => TCP_HEADER_BYTES,
            }
    }

    /// Application bytes per frame: MTU − IP − L4 header (for TCP this is
    /// the MSS, less 12 with timestamps). Zero if the frame is too small.
    pub fn payload_bytes(&self, frame_size: u32) -> u32 {
        self.mtu(frame_size).saturating_sub(self.headers_bytes())
    }

    /// A label like `IPv4/TCP (timestamps)`.
    pub fn label(&self) -> String {
        let mut s = format!("{}/{}", self.ip, self.l4);
        if self.l4 == L4Proto::Tcp {
            s.push_str(if self.tcp_timestamps {
                " with timestamps"
            } else {
                " without timestamps"
            });
        }
        if self.vlan {
            s.push_str(", 802.1Q tagged");
        }
        s
    }
}

/// TCP goodput over a link at a frame size: R · MSS / (L + 20), the
/// textbook R · MSS / (MTU + 38) for untagged frames.
pub fn tcp_goodput_bps(
    link: LinkKind,
    frame_size: u32,
    ip: IpVersion,
    timestamps: bool,
    vlan: bool,
) -> f64 {
    let spec = FrameSpec {
        ip,
        l4: L4Proto::Tcp,
        vlan,
        tcp_timestamps: timestamps,
    };
    link.payload_bps(frame_size, &spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn textbook_frame_rates() {
        assert_eq!(LinkKind::Lan10G.frames_per_sec(9130).round(), 136_612.0);
        assert_eq!(LinkKind::Wan10G.frames_per_sec(9130).round(), 126_854.0);
        assert_eq!(LinkKind::Lan10G.frames_per_sec(64).round(), 14_880_952.0);
        assert_eq!(LinkKind::Lan10G.frames_per_sec(1518).round(), 812_744.0);
        assert_eq!(LinkKind::G1.frames_per_sec(64).round(), 1_488_095.0);
        assert_eq!(LinkKind::G100.frames_per_sec(64).round(), 148_809_524.0);
        assert!(close(LinkKind::Wan10G.mac_bps(), 9.285_714e9, 1e3));
    }

    #[test]
    fn layers() {
        let l = LinkKind::Lan10G;
        assert!(close(l.l1_bps(9130), 10e9, 1.0));
        assert!(close(l.l2_bps(9130), 10e9 * 9130.0 / 9150.0, 1.0));
    }

    #[test]
    fn tcp_goodput_matches_mss_formula() {
        // MTU 9112: IPv4 MSS 9072 → 10e9 · 9072 / (9112 + 38).
        let g = tcp_goodput_bps(LinkKind::Lan10G, 9130, IpVersion::V4, false, false);
        assert!(close(g, 10e9 * 9072.0 / 9150.0, 1.0));
        // 1518-byte frames, IPv4, timestamps: MSS 1460, 1448 bytes of data.
        let g = tcp_goodput_bps(LinkKind::Lan10G, 1518, IpVersion::V4, true, false);
        assert!(close(g, 10e9 * 1448.0 / 1538.0, 1.0));
        // IPv6 with timestamps and a VLAN tag: MTU 1496, 1496 − 72 = 1424.
        let g = tcp_goodput_bps(LinkKind::Lan10G, 1518, IpVersion::V6, true, true);
        assert!(close(g, 10e9 * 1424.0 / 1538.0, 1.0));
        let udp = FrameSpec::default();
        assert_eq!(udp.payload_bytes(9130), 9130 - 18 - 20 - 8);
        let v6 = FrameSpec {
            ip: IpVersion::V6,
            ..FrameSpec::default()
        };
        assert_eq!(v6.payload_bytes(128), 128 - 18 - 40 - 8);
        assert_eq!(v6.payload_bytes(64), 0);
    }

    #[test]
    fn parse_links() {
        for (s, k) in [
            ("10g", LinkKind::Lan10G),
            ("10GBASE-SR", LinkKind::Lan10G),
            ("10gbase-w", LinkKind::Wan10G),
            ("wan", LinkKind::Wan10G),
            ("1g", LinkKind::G1),
            ("1000m", LinkKind::G1),
            ("25g", LinkKind::G25),
            ("40G", LinkKind::G40),
            ("100g", LinkKind::G100),
            ("2.5g", LinkKind::Custom { bps: 2_500_000_000 }),
            (
                "400g",
                LinkKind::Custom {
                    bps: 400_000_000_000,
                },
            ),
            ("100m", LinkKind::Custom { bps: 100_000_000 }),
        ] {
            assert_eq!(s.parse::<LinkKind>().unwrap(), k, "{s}");
        }
        for bad in ["", "fast", "10x", "-10g", "0g", "10000000g"] {
            let e = bad.parse::<LinkKind>().unwrap_err();
            assert!(e.to_string().contains("link"), "{e}");
        }
        for k in LinkKind::ALL {
            assert_eq!(k.to_string().parse::<LinkKind>().unwrap(), k);
        }
    }

    #[test]
    fn from_dpdk_speed() {
        assert_eq!(LinkKind::from_speed_mbps(10_000), Some(LinkKind::Lan10G));
        assert_eq!(LinkKind::from_speed_mbps(0), None);
        assert_eq!(
            LinkKind::from_speed_mbps(200_000),
            Some(LinkKind::Custom {
                bps: 200_000_000_000
            })
        );
    }
}
