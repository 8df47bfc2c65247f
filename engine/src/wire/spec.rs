//! Validated description of one stream: what the config layer fills from
//! YAML and what [`FrameBuilder`](super::FrameBuilder) consumes.

use std::collections::HashSet;
use std::fmt;
use std::hash::Hash;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::ethernet::{EtherType, MacAddr};
use super::gre::GreRepr;
use super::mpls::{MplsLabel, ETHERTYPE_MPLS, LABEL_MAX, MAX_LABELS};
use super::stamp::{COMPACT_LEN, FULL_LEN};
use super::tcp::TcpFlags;
use super::vxlan::{VxlanRepr, VNI_MAX};

/// Bytes of Ethernet FCS the NIC appends; frame sizes count it (RFC 2544).
pub const FCS_LEN: usize = 4;
/// Bytes of an untagged frame around its IP packet: the Ethernet header
/// (14) and the FCS (4). An IP MTU is the frame size less this.
pub const L2_OVERHEAD: usize = super::ethernet::EthernetFrame::<&[u8]>::HEADER_LEN + FCS_LEN;
/// Default frame size (bytes, FCS included): the 2005 Land Speed Record MTU.
pub const DEFAULT_FRAME_SIZE: usize = 9130;
/// Largest accepted frame size (bytes, FCS included).
pub const MAX_FRAME_SIZE: usize = 16383;
/// Simple IMIX frame sizes (FCS included): small, medium, large.
pub const IMIX_SIZES: [usize; 3] = [64, 594, 1518];
/// The fixed 12-frame IMIX order (7 small : 4 medium : 1 large), as indices
/// into [`IMIX_SIZES`], interleaved so sizes are spread in time.
pub const IMIX_ORDER: [u8; 12] = [0, 1, 0, 0, 1, 0, 2, 0, 1, 0, 0, 1];

/// A validation error: `field` is the dotted path inside the stream
/// (`"vlan.id"`, `"ip.src"`, `"size"` ...); the config layer prefixes it
/// with the file, line and stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SpecError {
    /// Dotted path of the offending field inside the stream.
    pub field: String,
    /// What is wrong, with the offending value.
    pub message: String,
}

impl SpecError {
    /// Builds an error for `field`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// A value type usable in a [`ValueSet`]: totally ordered and mappable to
/// an integer so ranges can be enumerated.
pub trait SetElem: Copy + Eq + Ord + Hash + fmt::Debug + fmt::Display {
    /// The value as an unsigned integer.
    fn to_u128(self) -> u128;
    /// The value from an unsigned integer (truncated to the type's width).
    fn from_u128(v: u128) -> Self;
}

impl SetElem for Ipv4Addr {
    fn to_u128(self) -> u128 {
        u128::from(u32::from(self))
    }
    fn from_u128(v: u128) -> Self {
        Ipv4Addr::from(v as u32)
    }
}

impl SetElem for Ipv6Addr {
    fn to_u128(self) -> u128 {
        u128::from(self)
    }
    fn from_u128(v: u128) -> Self {
        Ipv6Addr::from(v)
    }
}

impl SetElem for u16 {
    fn to_u128(self) -> u128 {
        u128::from(self)
    }
    fn from_u128(v: u128) -> Self {
        v as u16
    }
}

impl SetElem for MacAddr {
    fn to_u128(self) -> u128 {
        let mut b = [0u8; 16];
        b[10..].copy_from_slice(&self.0);
        u128::from_be_bytes(b)
    }
    fn from_u128(v: u128) -> Self {
        let b = v.to_be_bytes();
        let mut m = [0u8; 6];
        m.copy_from_slice(&b[10..]);
        MacAddr(m)
    }
}

/// Most addresses one of a stream's MAC sets holds: 2^20, the most a port
/// offers in RFC 2889's address caching and learning tests.
pub const MAC_SET_MAX: u128 = 1 << 20;

/// A set of values a header field cycles through: one value, an inclusive
/// range, or an explicit list (order kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueSet<T> {
    /// Always this value.
    Single(T),
    /// Every value from `first` to `last` inclusive, in increasing order.
    Range {
        /// First value.
        first: T,
        /// Last value (inclusive).
        last: T,
    },
    /// These values, in this order.
    List(Vec<T>),
}

/// A set of IPv4 or IPv6 addresses.
pub type AddrSet<A> = ValueSet<A>;
/// A set of L4 ports.
pub type PortSet = ValueSet<u16>;

impl<T: SetElem> ValueSet<T> {
    /// Number of values (saturating at `u128::MAX` for the full IPv6 range;
    /// 0 for an invalid range or an empty list).
    pub fn cardinality(&self) -> u128 {
        match self {
            ValueSet::Single(_) => 1,
            ValueSet::Range { first, last } => {
                let (f, l) = (first.to_u128(), last.to_u128());
                if f > l {
                    0
                } else {
                    (l - f).saturating_add(1)
                }
            }
            ValueSet::List(v) => v.len() as u128,
        }
    }

    /// The `i`-th value (0-based), or `None` past the end.
    pub fn nth(&self, i: u128) -> Option<T> {
        match self {
            ValueSet::Single(v) => (i == 0).then_some(*v),
            ValueSet::Range { first, .. } => {
                (i < self.cardinality()).then(|| T::from_u128(first.to_u128() + i))
            }
            ValueSet::List(v) => usize::try_from(i).ok().and_then(|i| v.get(i).copied()),
        }
    }

    /// The first value, if any.
    pub fn first(&self) -> Option<T> {
        self.nth(0)
    }

    /// The set of its first `n` values, in its order (all of it when it
    /// holds no more; the first value alone when `n` is 0): what an
    /// address search's trial of `n` addresses walks.
    pub fn first_n(&self, n: u128) -> ValueSet<T> {
        let n = n.max(1);
        if self.cardinality() <= n {
            return self.clone();
        }
        match self {
            ValueSet::Single(v) => ValueSet::Single(*v),
            ValueSet::Range { first, .. } if n == 1 => ValueSet::Single(*first),
            ValueSet::Range { first, .. } => ValueSet::Range {
                first: *first,
                last: T::from_u128(first.to_u128() + n - 1),
            },
            ValueSet::List(v) => ValueSet::List(v[..n as usize].to_vec()),
        }
    }

    /// True if `v` is in the set.
    pub fn contains(&self, v: T) -> bool {
        match self {
            ValueSet::Single(s) => *s == v,
            ValueSet::Range { first, last } => *first <= v && v <= *last,
            ValueSet::List(l) => l.contains(&v),
        }
    }

    /// Checks: range with first > last, empty list, duplicates in a list.
    pub fn validate(&self, field: &str) -> Result<(), SpecError> {
        match self {
            ValueSet::Single(_) => Ok(()),
            ValueSet::Range { first, last } => {
                if first > last {
                    Err(SpecError::new(
                        field,
                        format!("range start {first} is greater than its end {last}"),
                    ))
                } else {
                    Ok(())
                }
            }
            ValueSet::List(l) => {
                if l.is_empty() {
                    return Err(SpecError::new(field, "list is empty"));
                }
                let mut seen = HashSet::with_capacity(l.len());
                for v in l {
                    if !seen.insert(*v) {
                        return Err(SpecError::new(
                            field,
                            format!("duplicate value {v} in list"),
                        ));
                    }
                }
                Ok(())
            }
        }
    }
}

/// Ethernet addresses of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthSpec {
    /// Source MAC (must be unicast).
    pub src: MacAddr,
    /// Destination MAC.
    pub dst: MacAddr,
}

impl EthSpec {
    /// A stream's sets holding these two addresses alone.
    pub fn sets(self) -> EthAddrs {
        EthAddrs {
            src: ValueSet::Single(self.src),
            dst: ValueSet::Single(self.dst),
        }
    }
}

/// The Ethernet addresses a stream's frames carry: a source and a
/// destination set (one address, a range or a list, at most
/// [`MAC_SET_MAX`] each), walked with the stream's other fields (see
/// [`Vary`]). A switch sees every source address in the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EthAddrs {
    /// Source MACs (every one unicast).
    pub src: ValueSet<MacAddr>,
    /// Destination MACs.
    pub dst: ValueSet<MacAddr>,
}

impl EthAddrs {
    /// The first source and destination: the header template's.
    pub fn first(&self) -> EthSpec {
        EthSpec {
            src: self.src.first().unwrap_or_default(),
            dst: self.dst.first().unwrap_or_default(),
        }
    }

    /// Checks both sets (ranges, lists, at most [`MAC_SET_MAX`] addresses)
    /// and that every source is unicast.
    pub fn validate(&self) -> Result<(), SpecError> {
        for (field, set) in [("eth.src", &self.src), ("eth.dst", &self.dst)] {
            set.validate(field)?;
            if set.cardinality() > MAC_SET_MAX {
                return Err(SpecError::new(
                    field,
                    format!(
                        "{} addresses, more than the {MAC_SET_MAX} a set holds",
                        set.cardinality()
                    ),
                ));
            }
        }
        if let Some(group) = first_group(&self.src) {
            let message = match self.src {
                ValueSet::Single(_) => format!("source MAC {group} is multicast or broadcast"),
                _ => format!("the source MACs include {group}, a multicast or broadcast address"),
            };
            return Err(SpecError::new("eth.src", message));
        }
        Ok(())
    }
}

/// The first group (multicast or broadcast) address of `set`, if it holds
/// one. A range of at most [`MAC_SET_MAX`] addresses spans at most two
/// values of the first octet, whose low bit is the group bit.
fn first_group(set: &ValueSet<MacAddr>) -> Option<MacAddr> {
    match set {
        ValueSet::Single(m) => m.is_multicast().then_some(*m),
        ValueSet::List(l) => l.iter().find(|m| m.is_multicast()).copied(),
        ValueSet::Range { first, last } => {
            if first.is_multicast() {
                return Some(*first);
            }
            let next = MacAddr([first.0[0].wrapping_add(1), 0, 0, 0, 0, 0]);
            (first.0[0] != last.0[0]).then_some(next)
        }
    }
}

/// 802.1Q tag of a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlanSpec {
    /// VLAN id, 0..=4094 (0 = priority tag only).
    pub id: u16,
    /// Priority code point, 0..=7.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
}

/// The outer IP header of a tunnel: one source and one destination (a
/// tunnel's endpoints do not vary from frame to frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OuterIp {
    /// IPv4, DF set, identification 0.
    V4 {
        /// The sending tunnel endpoint.
        src: Ipv4Addr,
        /// The receiving tunnel endpoint.
        dst: Ipv4Addr,
        /// DSCP, 0..=63.
        dscp: u8,
        /// Time to live, ≥ 1.
        ttl: u8,
    },
    /// IPv6.
    V6 {
        /// The sending tunnel endpoint.
        src: Ipv6Addr,
        /// The receiving tunnel endpoint.
        dst: Ipv6Addr,
        /// Traffic class.
        traffic_class: u8,
        /// Hop limit, ≥ 1.
        hop_limit: u8,
    },
}

impl OuterIp {
    /// Header length: 20 or 40.
    pub fn header_len(&self) -> usize {
        match self {
            OuterIp::V4 { .. } => 20,
            OuterIp::V6 { .. } => 40,
        }
    }

    /// The EtherType (or MPLS payload) the header is carried as.
    pub fn ethertype(&self) -> u16 {
        match self {
            OuterIp::V4 { .. } => EtherType::IPV4,
            OuterIp::V6 { .. } => EtherType::IPV6,
        }
    }
}

/// A tunnel the stamped packet travels in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tunnel {
    /// VXLAN (RFC 7348): outer IP, UDP, the VXLAN header, and an inner
    /// Ethernet header (untagged) before the stamped packet.
    Vxlan {
        /// The outer IP header.
        outer: OuterIp,
        /// VXLAN network identifier, 0..=16,777,215.
        vni: u32,
        /// Outer UDP source port.
        src_port: u16,
        /// Outer UDP destination port (4789, IANA's).
        dst_port: u16,
        /// The inner Ethernet header's addresses.
        inner: EthSpec,
    },
    /// GRE (RFC 2784, RFC 2890): outer IP, the GRE header with protocol
    /// type IPv4 or IPv6, then the stamped packet.
    Gre {
        /// The outer IP header.
        outer: OuterIp,
        /// The key, if sent.
        key: Option<u32>,
        /// Send a sequence number (the frame's, low 32 bits).
        sequence: bool,
    },
}

impl Tunnel {
    /// The outer IP header.
    pub fn outer(&self) -> &OuterIp {
        match self {
            Tunnel::Vxlan { outer, .. } | Tunnel::Gre { outer, .. } => outer,
        }
    }

    /// Bytes from the outer IP header to the stamped packet.
    pub fn header_len(&self) -> usize {
        self.outer().header_len()
            + match self {
                Tunnel::Vxlan { .. } => 8 + VxlanRepr::LEN + 14,
                Tunnel::Gre { key, sequence, .. } => gre_header(0, *key, *sequence).header_len(),
            }
    }

    /// The profile's name of the tunnel's block (`vxlan` or `gre`).
    pub fn name(&self) -> &'static str {
        match self {
            Tunnel::Vxlan { .. } => "vxlan",
            Tunnel::Gre { .. } => "gre",
        }
    }
}

/// The GRE header of a stream whose packet inside is of `protocol`:
/// version 0, no checksum, the key if any, sequence number 0 if sent.
pub(crate) fn gre_header(protocol: u16, key: Option<u32>, sequence: bool) -> GreRepr {
    GreRepr {
        protocol,
        checksum: false,
        key,
        seq: sequence.then_some(0),
    }
}

/// What a stream carries between its tags and its stamped packet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Encap {
    /// MPLS labels, outermost first (empty: none).
    pub mpls: Vec<MplsLabel>,
    /// The tunnel, if any.
    pub tunnel: Option<Tunnel>,
}

impl Encap {
    /// Bytes it adds before the stamped packet.
    pub fn header_len(&self) -> usize {
        4 * self.mpls.len() + self.tunnel.map_or(0, |t| t.header_len())
    }

    /// The EtherType after the Ethernet header and its tags, for a stamped
    /// packet of EtherType `inner`.
    pub fn ethertype(&self, inner: u16) -> u16 {
        if !self.mpls.is_empty() {
            ETHERTYPE_MPLS
        } else {
            self.tunnel.map_or(inner, |t| t.outer().ethertype())
        }
    }

    /// Checks every field; the error names the first offending one
    /// (`mpls[1].label`, `vxlan.vni` ...).
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.mpls.len() > MAX_LABELS {
            return Err(SpecError::new(
                "mpls",
                format!(
                    "{} labels: a stack holds at most {MAX_LABELS}",
                    self.mpls.len()
                ),
            ));
        }
        for (i, l) in self.mpls.iter().enumerate() {
            if l.label > LABEL_MAX {
                return Err(SpecError::new(
                    format!("mpls[{i}].label"),
                    format!("label {} is not in 0..={LABEL_MAX}", l.label),
                ));
            }
            if l.tc > 7 {
                return Err(SpecError::new(
                    format!("mpls[{i}].tc"),
                    format!("traffic class {} is not in 0..=7", l.tc),
                ));
            }
        }
        let Some(t) = &self.tunnel else {
            return Ok(());
        };
        let name = t.name();
        match t.outer() {
            OuterIp::V4 { dscp, ttl, .. } => {
                if *dscp > 63 {
                    return Err(SpecError::new(
                        format!("{name}.ipv4.dscp"),
                        format!("DSCP {dscp} is not in 0..=63"),
                    ));
                }
                if *ttl == 0 {
                    return Err(SpecError::new(format!("{name}.ipv4.ttl"), "TTL 0"));
                }
            }
            OuterIp::V6 { hop_limit, .. } => {
                if *hop_limit == 0 {
                    return Err(SpecError::new(
                        format!("{name}.ipv6.hop_limit"),
                        "hop limit 0",
                    ));
                }
            }
        }
        if let Tunnel::Vxlan { vni, inner, .. } = t {
            if *vni > VNI_MAX {
                return Err(SpecError::new(
                    "vxlan.vni",
                    format!("VNI {vni} is not in 0..={VNI_MAX}"),
                ));
            }
            if inner.src.is_multicast() {
                return Err(SpecError::new(
                    "vxlan.eth.src",
                    format!("source MAC {} is multicast or broadcast", inner.src),
                ));
            }
        }
        Ok(())
    }
}

/// Network layer of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IpSpec {
    /// IPv4 (20-byte header, no options).
    V4 {
        /// Source addresses.
        src: AddrSet<Ipv4Addr>,
        /// Destination addresses.
        dst: AddrSet<Ipv4Addr>,
        /// DSCP, 0..=63.
        dscp: u8,
        /// ECN, 0..=3.
        ecn: u8,
        /// Time to live, ≥ 1.
        ttl: u8,
        /// Set the DF flag.
        dont_fragment: bool,
    },
    /// IPv6 (fixed 40-byte header).
    V6 {
        /// Source addresses.
        src: AddrSet<Ipv6Addr>,
        /// Destination addresses.
        dst: AddrSet<Ipv6Addr>,
        /// Traffic class (DSCP << 2 | ECN).
        traffic_class: u8,
        /// Flow label, 0..=0xFFFFF.
        flow_label: u32,
        /// Hop limit, ≥ 1.
        hop_limit: u8,
    },
}

/// Transport layer of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum L4Spec {
    /// UDP.
    Udp {
        /// Source ports.
        src_port: PortSet,
        /// Destination ports.
        dst_port: PortSet,
    },
    /// TCP (20-byte header, no options; every segment carries data).
    Tcp {
        /// Source ports.
        src_port: PortSet,
        /// Destination ports.
        dst_port: PortSet,
        /// Sequence number of the first segment; advances by the payload length.
        seq_start: u32,
        /// Acknowledgment number (constant).
        ack: u32,
        /// Window (constant).
        window: u16,
        /// Control bits of every segment.
        flags: TcpFlags,
    },
}

impl L4Spec {
    /// Source and destination port sets.
    pub fn ports(&self) -> (&PortSet, &PortSet) {
        match self {
            L4Spec::Udp { src_port, dst_port }
            | L4Spec::Tcp {
                src_port, dst_port, ..
            } => (src_port, dst_port),
        }
    }
}

/// Frame sizes of a stream, in bytes including the FCS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SizeSpec {
    /// Every frame has this size.
    Fixed(usize),
    /// Sizes taken in this order, repeating.
    Cycle(Vec<usize>),
    /// Simple IMIX (see [`IMIX_SIZES`], [`IMIX_ORDER`]); the small size is
    /// raised to the stream's minimum frame size when 64 bytes cannot hold it.
    Imix,
}

/// How addresses and ports vary from frame to frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vary {
    /// Deterministic walk of the cartesian product: destination port
    /// fastest, then source port, destination address, source address.
    Step,
    /// Independent uniform draws per field from a seeded PRNG (reproducible).
    Random {
        /// PRNG seed.
        seed: u64,
    },
}

/// One stream: everything needed to build its frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamSpec {
    /// Stream id carried in every stamp.
    pub id: u32,
    /// Human name for reports.
    pub name: String,
    /// Ethernet addresses.
    pub eth: EthAddrs,
    /// Optional 802.1Q tag.
    pub vlan: Option<VlanSpec>,
    /// Optional 802.1ad service tag (QinQ), sent before the 802.1Q tag.
    pub qinq: Option<VlanSpec>,
    /// MPLS labels and a tunnel between the tags and the stamped packet.
    pub encap: Encap,
    /// IPv4 or IPv6 (the stamped packet, inside any tunnel).
    pub ip: IpSpec,
    /// UDP or TCP.
    pub l4: L4Spec,
    /// Frame sizes (FCS included).
    pub size: SizeSpec,
    /// Field variation.
    pub vary: Vary,
}

impl Default for StreamSpec {
    /// IPv4/UDP, 9130-byte frames, locally administered MACs, 198.18.0.1 →
    /// 198.19.0.1 (RFC 2544 benchmarking range), ports 49152 → 5001.
    fn default() -> Self {
        StreamSpec {
            id: 0,
            name: String::from("stream0"),
            eth: EthSpec {
                src: MacAddr([0x02, 0, 0, 0, 0, 1]),
                dst: MacAddr([0x02, 0, 0, 0, 0, 2]),
            }
            .sets(),
            vlan: None,
            qinq: None,
            encap: Encap::default(),
            ip: IpSpec::V4 {
                src: ValueSet::Single(Ipv4Addr::new(198, 18, 0, 1)),
                dst: ValueSet::Single(Ipv4Addr::new(198, 19, 0, 1)),
                dscp: 0,
                ecn: 0,
                ttl: 64,
                dont_fragment: true,
            },
            l4: L4Spec::Udp {
                src_port: ValueSet::Single(49152),
                dst_port: ValueSet::Single(5001),
            },
            size: SizeSpec::Fixed(DEFAULT_FRAME_SIZE),
            vary: Vary::Step,
        }
    }
}

impl StreamSpec {
    /// Bytes before the stamped IP header: the Ethernet header, its tags,
    /// and any MPLS labels and tunnel headers (14 or 18 for a plain frame).
    pub fn l2_len(&self) -> usize {
        self.tags_len() + self.encap.header_len()
    }

    /// The Ethernet header and its tags (14, 18 or 22).
    pub fn tags_len(&self) -> usize {
        14 + 4 * (usize::from(self.vlan.is_some()) + usize::from(self.qinq.is_some()))
    }

    /// IP header length (20 or 40).
    pub fn l3_len(&self) -> usize {
        match self.ip {
            IpSpec::V4 { .. } => 20,
            IpSpec::V6 { .. } => 40,
        }
    }

    /// L4 header length (8 or 20).
    pub fn l4_header_len(&self) -> usize {
        match self.l4 {
            L4Spec::Udp { .. } => 8,
            L4Spec::Tcp { .. } => 20,
        }
    }

    /// All headers up to the stamp.
    pub fn header_len(&self) -> usize {
        self.l2_len() + self.l3_len() + self.l4_header_len()
    }

    /// Smallest frame size (FCS included): headers + compact stamp + FCS.
    pub fn min_frame_size(&self) -> usize {
        self.header_len() + COMPACT_LEN + FCS_LEN
    }

    /// Smallest frame size that carries the full stamp.
    pub fn min_full_stamp_frame_size(&self) -> usize {
        self.header_len() + FULL_LEN + FCS_LEN
    }

    /// The repeating sequence of frame sizes (FCS included), IMIX expanded.
    pub fn frame_sizes(&self) -> Vec<usize> {
        match &self.size {
            SizeSpec::Fixed(s) => vec![*s],
            SizeSpec::Cycle(v) => v.clone(),
            SizeSpec::Imix => IMIX_ORDER
                .iter()
                .map(|&i| IMIX_SIZES[usize::from(i)].max(self.min_frame_size()))
                .collect(),
        }
    }

    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), SpecError> {
        self.validate_ethernet()?;
        self.validate_vlan()?;
        self.encap.validate()?;
        self.validate_ip()?;
        self.validate_l4()?;
        let sizes = self.frame_sizes();
        self.validate_sizes(&sizes)?;
        self.validate_stamp_id(&sizes)
    }

    /// Ethernet: the address sets, every source unicast.
    fn validate_ethernet(&self) -> Result<(), SpecError> {
        self.eth.validate()
    }

    /// VLAN tags, if any: ids and PCPs in range.
    fn validate_vlan(&self) -> Result<(), SpecError> {
        for (name, tag) in [("vlan", &self.vlan), ("qinq", &self.qinq)] {
            let Some(v) = tag else { continue };
            if v.id > 4094 {
                return Err(SpecError::new(
                    format!("{name}.id"),
                    format!("VLAN id {} is not in 0..=4094", v.id),
                ));
            }
            if v.pcp > 7 {
                return Err(SpecError::new(
                    format!("{name}.pcp"),
                    format!("PCP {} is not in 0..=7", v.pcp),
                ));
            }
        }
        Ok(())
    }

    /// IP: address sets, then the IPv4 or IPv6 header fields.
    fn validate_ip(&self) -> Result<(), SpecError> {
        match &self.ip {
            IpSpec::V4 {
                src,
                dst,
                dscp,
                ecn,
                ttl,
                ..
            } => {
                src.validate("ip.src")?;
                dst.validate("ip.dst")?;
                validate_ipv4_fields(*dscp, *ecn, *ttl)
            }
            IpSpec::V6 {
                src,
                dst,
                flow_label,
                hop_limit,
                ..
            } => {
                src.validate("ip.src")?;
                dst.validate("ip.dst")?;
                validate_ipv6_fields(*flow_label, *hop_limit)
            }
        }
    }

    /// L4: port sets, and the flags for TCP.
    fn validate_l4(&self) -> Result<(), SpecError> {
        let (src_port, dst_port) = self.l4.ports();
        src_port.validate("l4.src_port")?;
        dst_port.validate("l4.dst_port")?;
        if let L4Spec::Tcp { flags, .. } = &self.l4 {
            validate_tcp_flags(*flags)?;
        }
        Ok(())
    }

    /// Frame sizes: at least one, each between the minimum for these
    /// headers and [`MAX_FRAME_SIZE`].
    fn validate_sizes(&self, sizes: &[usize]) -> Result<(), SpecError> {
        if sizes.is_empty() {
            return Err(SpecError::new("size", "size cycle is empty"));
        }
        let min = self.min_frame_size();
        for (i, &s) in sizes.iter().enumerate() {
            let at = if sizes.len() > 1 {
                format!(" (entry {i})")
            } else {
                String::new()
            };
            if s < min {
                return Err(SpecError::new(
                    "size",
                    format!(
                        "frame size {s}{at} is below the minimum {min} for these headers \
                         (headers + {COMPACT_LEN}-byte stamp + {FCS_LEN}-byte FCS)"
                    ),
                ));
            }
            if s > MAX_FRAME_SIZE {
                return Err(SpecError::new(
                    "size",
                    format!("frame size {s}{at} is above the maximum {MAX_FRAME_SIZE}"),
                ));
            }
        }
        Ok(())
    }

    /// Stamp: a stream id above 16 bits needs the full stamp in every frame.
    fn validate_stamp_id(&self, sizes: &[usize]) -> Result<(), SpecError> {
        let full_min = self.min_full_stamp_frame_size();
        if self.id > 0xFFFF && sizes.iter().any(|&s| s < full_min) {
            return Err(SpecError::new(
                "id",
                format!(
                    "stream id {} does not fit the 16-bit id of the compact stamp used by \
                     frames below {full_min} bytes",
                    self.id
                ),
            ));
        }
        Ok(())
    }
}

/// IPv4 header fields: DSCP and ECN in range, TTL above 0.
fn validate_ipv4_fields(dscp: u8, ecn: u8, ttl: u8) -> Result<(), SpecError> {
    if dscp > 63 {
        return Err(SpecError::new(
            "ip.dscp",
            format!("DSCP {dscp} is not in 0..=63"),
        ));
    }
    if ecn > 3 {
        return Err(SpecError::new(
            "ip.ecn",
            format!("ECN {ecn} is not in 0..=3"),
        ));
    }
    if ttl == 0 {
        return Err(SpecError::new(
            "ip.ttl",
            "TTL 0 would be dropped by the first router",
        ));
    }
    Ok(())
}

/// IPv6 header fields: the flow label fits 20 bits, hop limit above 0.
fn validate_ipv6_fields(flow_label: u32, hop_limit: u8) -> Result<(), SpecError> {
    if flow_label > 0xF_FFFF {
        return Err(SpecError::new(
            "ip.flow_label",
            format!("flow label {flow_label:#x} is not in 0..=0xfffff"),
        ));
    }
    if hop_limit == 0 {
        return Err(SpecError::new(
            "ip.hop_limit",
            "hop limit 0 would be dropped by the first router",
        ));
    }
    Ok(())
}

/// Rejects flag combinations no sane TCP sends on a data segment.
fn validate_tcp_flags(f: TcpFlags) -> Result<(), SpecError> {
    let err = |m: String| Err(SpecError::new("l4.flags", m));
    if f.0 & !TcpFlags::ALL.0 != 0 {
        return err(format!(
            "undefined TCP flag bits {:#x}",
            f.0 & !TcpFlags::ALL.0
        ));
    }
    if f.contains(TcpFlags::SYN) && f.contains(TcpFlags::FIN) {
        return err(format!("{f}: SYN and FIN together"));
    }
    if f.contains(TcpFlags::RST) && (f.0 & !(TcpFlags::RST.0 | TcpFlags::ACK.0)) != 0 {
        return err(format!("{f}: RST may only be combined with ACK"));
    }
    if !f.contains(TcpFlags::ACK) && !f.contains(TcpFlags::SYN) && !f.contains(TcpFlags::RST) {
        return err(format!("{f}: data segments must carry ACK"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp() -> StreamSpec {
        StreamSpec {
            l4: L4Spec::Tcp {
                src_port: ValueSet::Single(1),
                dst_port: ValueSet::Single(2),
                seq_start: 0,
                ack: 0,
                window: 1000,
                flags: TcpFlags::ACK,
            },
            ..StreamSpec::default()
        }
    }

    fn v6() -> StreamSpec {
        StreamSpec {
            ip: IpSpec::V6 {
                src: ValueSet::Single("2001:db8::1".parse().unwrap()),
                dst: ValueSet::Single("2001:db8::2".parse().unwrap()),
                traffic_class: 0,
                flow_label: 0,
                hop_limit: 64,
            },
            ..StreamSpec::default()
        }
    }

    fn field_of(s: &StreamSpec) -> String {
        s.validate().unwrap_err().field
    }

    #[test]
    fn sets() {
        let r = ValueSet::Range {
            first: Ipv4Addr::new(10, 0, 0, 254),
            last: Ipv4Addr::new(10, 0, 1, 1),
        };
        assert_eq!(r.cardinality(), 4);
        assert_eq!(r.nth(2), Some(Ipv4Addr::new(10, 0, 1, 0)));
        assert_eq!(r.nth(4), None);
        assert!(r.contains(Ipv4Addr::new(10, 0, 0, 255)));
        let l = ValueSet::List(vec![5u16, 1, 9]);
        assert_eq!((l.cardinality(), l.nth(1), l.nth(3)), (3, Some(1), None));
        let full6 = ValueSet::Range {
            first: Ipv6Addr::UNSPECIFIED,
            last: Ipv6Addr::from(u128::MAX),
        };
        assert_eq!(full6.cardinality(), u128::MAX);
        assert_eq!(
            ValueSet::Range {
                first: 5u16,
                last: 4
            }
            .cardinality(),
            0
        );
    }

    #[test]
    fn defaults_are_valid() {
        for s in [StreamSpec::default(), tcp(), v6()] {
            s.validate().unwrap();
        }
        assert_eq!(StreamSpec::default().min_frame_size(), 64);
        assert_eq!(tcp().min_frame_size(), 76);
        assert_eq!(v6().min_frame_size(), 84);
        let v6tcp = StreamSpec {
            l4: tcp().l4,
            ..v6()
        };
        assert_eq!(v6tcp.min_frame_size(), 96);
        let vl = StreamSpec {
            vlan: Some(VlanSpec {
                id: 1,
                pcp: 0,
                dei: false,
            }),
            ..StreamSpec::default()
        };
        assert_eq!(vl.min_frame_size(), 68);
        assert_eq!(
            StreamSpec {
                size: SizeSpec::Imix,
                ..v6tcp
            }
            .frame_sizes(),
            vec![96, 594, 96, 96, 594, 96, 1518, 96, 594, 96, 96, 594]
        );
    }

    #[test]
    fn each_bad_case_names_its_field() {
        let d = StreamSpec::default();
        let mut s = d.clone();
        s.eth.src = ValueSet::Single(MacAddr([0x01, 0, 0x5e, 0, 0, 1]));
        assert_eq!(field_of(&s), "eth.src");
        s.eth.src = ValueSet::Single(MacAddr::BROADCAST);
        assert_eq!(field_of(&s), "eth.src");

        let s = StreamSpec {
            vlan: Some(VlanSpec {
                id: 4095,
                pcp: 0,
                dei: false,
            }),
            ..d.clone()
        };
        assert_eq!(field_of(&s), "vlan.id");
        let s = StreamSpec {
            vlan: Some(VlanSpec {
                id: 10,
                pcp: 8,
                dei: false,
            }),
            ..d.clone()
        };
        assert_eq!(field_of(&s), "vlan.pcp");

        let v4 = |src: AddrSet<Ipv4Addr>, dst: AddrSet<Ipv4Addr>, dscp: u8, ecn: u8, ttl: u8| {
            StreamSpec {
                ip: IpSpec::V4 {
                    src,
                    dst,
                    dscp,
                    ecn,
                    ttl,
                    dont_fragment: false,
                },
                ..d.clone()
            }
        };
        let a = Ipv4Addr::new(10, 0, 0, 1);
        let b = Ipv4Addr::new(10, 0, 0, 2);
        let one = ValueSet::Single(a);
        assert_eq!(
            field_of(&v4(
                ValueSet::Range { first: b, last: a },
                one.clone(),
                0,
                0,
                1
            )),
            "ip.src"
        );
        assert_eq!(
            field_of(&v4(one.clone(), ValueSet::List(vec![]), 0, 0, 1)),
            "ip.dst"
        );
        assert_eq!(
            field_of(&v4(one.clone(), ValueSet::List(vec![a, b, a]), 0, 0, 1)),
            "ip.dst"
        );
        assert_eq!(field_of(&v4(one.clone(), one.clone(), 64, 0, 1)), "ip.dscp");
        assert_eq!(field_of(&v4(one.clone(), one.clone(), 0, 4, 1)), "ip.ecn");
        assert_eq!(field_of(&v4(one.clone(), one.clone(), 0, 0, 0)), "ip.ttl");

        let mut s = v6();
        if let IpSpec::V6 { flow_label, .. } = &mut s.ip {
            *flow_label = 0x10_0000;
        }
        assert_eq!(field_of(&s), "ip.flow_label");

        let s = StreamSpec {
            l4: L4Spec::Udp {
                src_port: ValueSet::Range { first: 10, last: 9 },
                dst_port: ValueSet::Single(1),
            },
            ..d.clone()
        };
        assert_eq!(field_of(&s), "l4.src_port");
        let s = StreamSpec {
            l4: L4Spec::Udp {
                src_port: ValueSet::Single(1),
                dst_port: ValueSet::List(vec![7, 7]),
            },
            ..d.clone()
        };
        assert_eq!(field_of(&s), "l4.dst_port");

        for bad in [
            TcpFlags::SYN | TcpFlags::FIN | TcpFlags::ACK,
            TcpFlags::RST | TcpFlags::PSH,
            TcpFlags::RST | TcpFlags::SYN,
            TcpFlags::PSH,
            TcpFlags(0),
            TcpFlags(0x200 | 0x10),
        ] {
            let mut s = tcp();
            if let L4Spec::Tcp { flags, .. } = &mut s.l4 {
                *flags = bad;
            }
            assert_eq!(field_of(&s), "l4.flags", "{bad}");
        }
        for good in [
            TcpFlags::ACK | TcpFlags::PSH,
            TcpFlags::SYN,
            TcpFlags::RST | TcpFlags::ACK,
            TcpFlags::FIN | TcpFlags::ACK,
        ] {
            let mut s = tcp();
            if let L4Spec::Tcp { flags, .. } = &mut s.l4 {
                *flags = good;
            }
            s.validate().unwrap();
        }

        for size in [
            SizeSpec::Fixed(63),
            SizeSpec::Fixed(16384),
            SizeSpec::Cycle(vec![]),
            SizeSpec::Cycle(vec![1518, 60]),
        ] {
            let s = StreamSpec { size, ..d.clone() };
            assert_eq!(field_of(&s), "size");
        }
        assert_eq!(
            field_of(&StreamSpec {
                size: SizeSpec::Fixed(83),
                ..v6()
            }),
            "size"
        );
        StreamSpec {
            size: SizeSpec::Fixed(84),
            ..v6()
        }
        .validate()
        .unwrap();
        StreamSpec {
            size: SizeSpec::Fixed(MAX_FRAME_SIZE),
            ..d.clone()
        }
        .validate()
        .unwrap();

        let s = StreamSpec {
            id: 70_000,
            size: SizeSpec::Fixed(64),
            ..d.clone()
        };
        assert_eq!(field_of(&s), "id");
        StreamSpec { id: 70_000, ..d }.validate().unwrap();
    }

    fn mac(s: &str) -> MacAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_mac_range_counts_and_steps_through_the_low_octets() {
        let r = ValueSet::Range {
            first: mac("02:00:00:00:ff:fe"),
            last: mac("02:00:00:01:00:01"),
        };
        assert_eq!(r.cardinality(), 4);
        assert_eq!(r.nth(2), Some(mac("02:00:00:01:00:00")));
        assert_eq!(r.nth(4), None);
        let top = mac("fe:ff:ff:ff:ff:ff");
        assert_eq!(MacAddr::from_u128(top.to_u128()), top);
        assert_eq!(top.to_u128(), 0xfeff_ffff_ffff);
        // Wider values keep their low 48 bits.
        assert_eq!(MacAddr::from_u128(1 << 48 | 5), mac("00:00:00:00:00:05"));
    }

    #[test]
    fn mac_sets_are_refused_with_the_address_or_the_limit() {
        let err = |src: ValueSet<MacAddr>, dst: ValueSet<MacAddr>| {
            EthAddrs { src, dst }.validate().unwrap_err().to_string()
        };
        let one = ValueSet::Single(mac("02:00:00:00:00:02"));
        // 2^20 addresses are allowed, one more is not, on either side.
        let max = ValueSet::Range {
            first: mac("02:00:00:00:00:00"),
            last: mac("02:00:00:0f:ff:ff"),
        };
        EthAddrs {
            src: max.clone(),
            dst: max,
        }
        .validate()
        .unwrap();
        let over = ValueSet::Range {
            first: mac("02:00:00:00:00:00"),
            last: mac("02:00:00:10:00:00"),
        };
        assert_eq!(
            err(one.clone(), over.clone()),
            "eth.dst: 1048577 addresses, more than the 1048576 a set holds"
        );
        assert_eq!(
            err(over, one.clone()),
            "eth.src: 1048577 addresses, more than the 1048576 a set holds"
        );
        // A source range that crosses into a group first octet names the
        // first group address; one that starts on one names its start.
        let cross = ValueSet::Range {
            first: mac("02:ff:ff:ff:ff:f0"),
            last: mac("03:00:00:00:00:0f"),
        };
        assert_eq!(
            err(cross, one.clone()),
            "eth.src: the source MACs include 03:00:00:00:00:00, a multicast or broadcast address"
        );
        let group = ValueSet::Range {
            first: mac("01:00:5e:00:00:01"),
            last: mac("01:00:5e:00:00:09"),
        };
        assert_eq!(
            err(group.clone(), one.clone()),
            "eth.src: the source MACs include 01:00:5e:00:00:01, a multicast or broadcast address"
        );
        let list = ValueSet::List(vec![mac("02:00:00:00:00:07"), MacAddr::BROADCAST]);
        assert_eq!(
            err(list, one.clone()),
            "eth.src: the source MACs include ff:ff:ff:ff:ff:ff, a multicast or broadcast address"
        );
        // A destination may be a group; a unicast range is fine.
        EthAddrs {
            src: ValueSet::Range {
                first: mac("02:00:00:00:00:10"),
                last: mac("02:00:00:00:00:ff"),
            },
            dst: group,
        }
        .validate()
        .unwrap();
        let twice = ValueSet::List(vec![mac("02:00:00:00:00:07"), mac("02:00:00:00:00:07")]);
        assert_eq!(
            err(one, twice),
            "eth.dst: duplicate value 02:00:00:00:00:07 in list"
        );
    }

    #[test]
    fn the_first_n_of_a_set_keep_its_order_and_its_kind() {
        let m = |x: u8| MacAddr([2, 0, 0, 0, 1, x]);
        let range = ValueSet::Range {
            first: m(0x10),
            last: m(0x1f),
        };
        assert_eq!(
            range.first_n(4),
            ValueSet::Range {
                first: m(0x10),
                last: m(0x13)
            }
        );
        assert_eq!(range.first_n(4).cardinality(), 4);
        assert_eq!(range.first_n(1), ValueSet::Single(m(0x10)));
        assert_eq!(range.first_n(0), ValueSet::Single(m(0x10)));
        assert_eq!(range.first_n(16), range);
        assert_eq!(range.first_n(17), range);
        assert_eq!(range.first_n(15).nth(14), Some(m(0x1e)));
        let list = ValueSet::List(vec![m(9), m(3), m(7)]);
        assert_eq!(list.first_n(2), ValueSet::List(vec![m(9), m(3)]));
        assert_eq!(list.first_n(3), list);
        assert_eq!(ValueSet::Single(m(1)).first_n(5), ValueSet::Single(m(1)));
    }
}
