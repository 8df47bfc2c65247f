//! Per-stream frame builder: a header template written once, then per frame
//! only the changing fields, the stamp, the fill and the checksums (from
//! precomputed partial sums; never a second pass over the payload).

mod fast;

pub use fast::TxTsc;
use fast::{array_mut, patch_compact_tsc, patch_full_tsc};

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use super::checksum;
use super::encap::Outer;
use super::ethernet::{EtherType, EthernetFrame, EthernetRepr, MacAddr, VlanRepr, VlanTag};
use super::fill::{FillPattern, SplitMix64, SumTable, OFFSETS};
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::spec::{
    IpSpec, L4Spec, PortSet, SpecError, StreamSpec, ValueSet, Vary, VlanSpec, FCS_LEN,
};
use super::stamp::{Stamp, StampLayout, StampTime, COMPACT_LEN, FULL_LEN, MAGIC};
use super::tcp::{TcpPacket, TcpRepr};
use super::udp::{udp_nonzero, UdpPacket, UdpRepr};
use super::{put16, put32, IPPROTO_TCP, IPPROTO_UDP};
use crate::wire::ipv4::field as v4;
use crate::wire::ipv6::field as v6;
use crate::wire::tcp::field as tcpf;
use crate::wire::udp::field as udpf;

/// Who computes the IPv4 header and L4 checksums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsumMode {
    /// The builder writes final checksums.
    Software,
    /// The NIC does (DPDK TX checksum offload): the IPv4 header checksum is
    /// 0 and the L4 checksum field holds the pseudo-header sum (not
    /// complemented), as DPDK's `rte_ipv4_phdr_cksum`/`rte_ipv6_phdr_cksum`
    /// produce. Stamp check and fill checksum are always computed here.
    Offload,
}

/// Source/destination address sets of a stream.
#[derive(Debug, Clone)]
enum Addrs {
    V4 {
        src: ValueSet<Ipv4Addr>,
        dst: ValueSet<Ipv4Addr>,
    },
    V6 {
        src: ValueSet<Ipv6Addr>,
        dst: ValueSet<Ipv6Addr>,
    },
}

/// Variation dimensions, fastest first in stepped mode.
const D_DPORT: usize = 0;
const D_SPORT: usize = 1;
const D_DST: usize = 2;
const D_SRC: usize = 3;
const D_DMAC: usize = 4;
const D_SMAC: usize = 5;
/// How many fields vary.
const DIMS: usize = 6;

/// Builds the frames of one stream. Create once per stream (allocates the
/// template, and the fill pattern unless one is shared with
/// [`FrameBuilder::with_fill`]); `next_len`/`write`/`set_tx_tsc` never
/// allocate.
#[derive(Debug, Clone)]
pub struct FrameBuilder {
    csum: CsumMode,
    stream_id: u32,
    template: Vec<u8>,
    l2_len: usize,
    l3_len: usize,
    l4_hdr_len: usize,
    addrs: Addrs,
    src_port: PortSet,
    dst_port: PortSet,
    src_mac: ValueSet<MacAddr>,
    dst_mac: ValueSet<MacAddr>,
    card: [u128; DIMS],
    idx: [u128; DIMS],
    rng: Option<SplitMix64>,
    sizes: Vec<usize>,
    size_pos: usize,
    cur_len: usize,
    max_len: usize,
    ipv4_ident: u16,
    /// Sum of the IPv4 template header with total length, ident, checksum
    /// and any varying address zeroed.
    ipv4_const_sum: u16,
    tcp_seq: u32,
    /// The fill pattern, shared by the streams of a run (about 110 KiB).
    fill: Arc<FillPattern>,
    /// Added to the sequence number to pick the fill offset, so that
    /// streams sharing a pattern fill the same sequence number differently.
    fill_salt: u64,
    /// Every field has a single value (no ranges or lists): the per-frame
    /// picks are skipped and the pseudo-header sum comes from `pseudo_base`.
    single_flow: bool,
    /// Single-flow streams: source and destination port, and the
    /// pseudo-header sum without the L4 length.
    flow: (u16, u16, u16),
    /// What the frames of each size (parallel to `sizes`) have in common,
    /// for [`FrameBuilder::write_head`].
    shapes: Vec<Shape>,
    /// Per frame size (parallel to `sizes`): its fill's sums at every
    /// place, shared through the pattern; `None`: summed per frame.
    fill_sums: Vec<Option<Arc<SumTable>>>,
    /// What the stamps' time field counts (their format version).
    stamp_time: StampTime,
    /// A tunnelled stream's outer fields written per frame.
    outer: Option<Outer>,
}

/// What every frame of one size has in common: the partial sums that make
/// the per-frame checksums one or two additions.
#[derive(Debug, Clone, Copy)]
struct Shape {
    /// Frame length without FCS.
    len: usize,
    layout: StampLayout,
    /// Fill bytes after the stamp.
    fill_len: u16,
    /// Single-flow streams: the pseudo-header (with the L4 length) plus the
    /// L4 header with its lengths set and its checksum and TCP sequence 0.
    l4_sum: u16,
    /// The stamp's constant words (magic, format, id, fill length) with TSC,
    /// sequence, fill checksum and check 0.
    stamp_sum: u16,
    /// The stamp's format byte (layout and version).
    format: u8,
    /// Writes the frames of this shape: chosen once, when the shape is
    /// made, from the stream's IP version, L4 protocol, checksum mode and
    /// this shape's stamp layout (see [`FrameBuilder::write_head`]).
    head: HeadWriter,
}

/// What [`FrameBuilder::write_head`] calls for a frame of one shape: the
/// builder, the frame's first bytes, its sequence number, its plan and its
/// shape.
type HeadWriter = fn(&mut FrameBuilder, &mut [u8], u64, &FramePlan, &Shape);

/// One frame of a stream, planned by [`FrameBuilder::plan`]: its length,
/// what [`FrameBuilder::write_head`] writes (headers and stamp) and where
/// its fill comes from, which [`FrameBuilder::write_fill`] copies (or a
/// port that chains segments attaches).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FramePlan {
    /// Frame length without FCS.
    pub len: usize,
    /// Bytes of headers and stamp, written by `write_head`; the fill
    /// follows them up to `len`.
    pub head_len: usize,
    /// Offset of the fill in the stream's fill pattern (8-aligned).
    pub fill_offset: usize,
    /// Sum of the fill (folded, not complemented), from the pattern's
    /// prefix table: nothing reads the fill per frame.
    pub fill_sum: u16,
    /// Index of the frame's size in the stream's size sequence.
    shape: u16,
}

impl Addrs {
    /// Number of source and destination addresses.
    fn cardinality(&self) -> (u128, u128) {
        match self {
            Addrs::V4 { src, dst } => (src.cardinality(), dst.cardinality()),
            Addrs::V6 { src, dst } => (src.cardinality(), dst.cardinality()),
        }
    }

    /// Pseudo-header sum of the first source and destination, without the
    /// L4 length.
    fn pseudo_base(&self, proto: u8) -> u16 {
        match self {
            Addrs::V4 { src, dst } => checksum::pseudo_v4(
                src.first().unwrap_or(Ipv4Addr::UNSPECIFIED),
                dst.first().unwrap_or(Ipv4Addr::UNSPECIFIED),
                proto,
                0,
            ),
            Addrs::V6 { src, dst } => checksum::pseudo_v6(
                &src.first().unwrap_or(Ipv6Addr::UNSPECIFIED),
                &dst.first().unwrap_or(Ipv6Addr::UNSPECIFIED),
                proto,
                0,
            ),
        }
    }
}

/// A set of `field` turned out empty.
fn missing(field: &str) -> SpecError {
    SpecError::new(field, "set has no value")
}

/// Ethernet step: the header, the stream's tags (802.1ad, then 802.1Q),
/// then its MPLS labels and tunnel headers, up to the stamped packet.
fn emit_ethernet(spec: &StreamSpec, t: &mut [u8]) {
    let l3_type = match spec.ip {
        IpSpec::V4 { .. } => EtherType::IPV4,
        IpSpec::V6 { .. } => EtherType::IPV6,
    };
    let after_tags = spec.encap.ethertype(l3_type);
    let tags: Vec<(u16, VlanSpec)> = [(EtherType::QINQ, spec.qinq), (EtherType::VLAN, spec.vlan)]
        .into_iter()
        .filter_map(|(tpid, v)| Some((tpid, v?)))
        .collect();
    let first = spec.eth.first();
    EthernetRepr {
        dst: first.dst,
        src: first.src,
        ethertype: tags.first().map_or(after_tags, |t| t.0),
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut t[..]));
    for (i, (_, v)) in tags.iter().enumerate() {
        VlanRepr {
            pcp: v.pcp,
            dei: v.dei,
            vid: v.id,
            ethertype: tags.get(i + 1).map_or(after_tags, |t| t.0),
        }
        .emit(&mut VlanTag::new_unchecked(&mut t[14 + 4 * i..]));
    }
    let at = spec.tags_len();
    spec.encap.emit(l3_type, &mut t[at..spec.l2_len()]);
}

/// IP step: the IPv4 or IPv6 header of the first addresses into `l3`,
/// with length 0 (and ident and checksum 0 for IPv4); returns the
/// address sets.
fn emit_ip(ip: &IpSpec, proto: u8, l3: &mut [u8]) -> Result<Addrs, SpecError> {
    match ip {
        IpSpec::V4 {
            src,
            dst,
            dscp,
            ecn,
            ttl,
            dont_fragment,
        } => {
            Ipv4Repr {
                src: src.first().ok_or_else(|| missing("ip.src"))?,
                dst: dst.first().ok_or_else(|| missing("ip.dst"))?,
                protocol: proto,
                payload_len: 0,
                dscp: *dscp,
                ecn: *ecn,
                ttl: *ttl,
                ident: 0,
                dont_fragment: *dont_fragment,
            }
            .emit(&mut Ipv4Packet::new_unchecked(&mut *l3), false);
            // emit wrote total_len = 20; the template keeps it 0.
            put16(l3, v4::TOTAL_LEN, 0);
            Ok(Addrs::V4 {
                src: src.clone(),
                dst: dst.clone(),
            })
        }
        IpSpec::V6 {
            src,
            dst,
            traffic_class,
            flow_label,
            hop_limit,
        } => {
            Ipv6Repr {
                src: src.first().ok_or_else(|| missing("ip.src"))?,
                dst: dst.first().ok_or_else(|| missing("ip.dst"))?,
                next_header: proto,
                payload_len: 0,
                traffic_class: *traffic_class,
                flow_label: *flow_label,
                hop_limit: *hop_limit,
            }
            .emit(&mut Ipv6Packet::new_unchecked(&mut *l3));
            Ok(Addrs::V6 {
                src: src.clone(),
                dst: dst.clone(),
            })
        }
    }
}

/// L4 step: the UDP or TCP header of the first ports into `l4`, with
/// length and checksum 0 (TCP: sequence 0); returns the first TCP sequence
/// number (0 for UDP).
fn emit_l4(spec: &L4Spec, src_port: u16, dst_port: u16, l4: &mut [u8]) -> u32 {
    match spec {
        L4Spec::Udp { .. } => {
            UdpRepr {
                src_port,
                dst_port,
                payload_len: 0,
            }
            .emit(&mut UdpPacket::new_unchecked(&mut *l4));
            put16(l4, udpf::LENGTH, 0);
            0
        }
        L4Spec::Tcp {
            seq_start,
            ack,
            window,
            flags,
            ..
        } => {
            TcpRepr {
                src_port,
                dst_port,
                seq: 0,
                ack: *ack,
                flags: *flags,
                window: *window,
            }
            .emit(&mut TcpPacket::new_unchecked(&mut *l4));
            *seq_start
        }
    }
}

/// Writes the stream's header template into `t` (its Ethernet, IP and L4
/// headers for the first flow); its IP protocol, its addresses and the
/// TCP sequence number it starts at.
fn emit_template(spec: &StreamSpec, t: &mut [u8]) -> Result<(u8, Addrs, u32), SpecError> {
    let (l2_len, l3_len) = (spec.l2_len(), spec.l3_len());
    emit_ethernet(spec, t);
    let proto = match spec.l4 {
        L4Spec::Udp { .. } => IPPROTO_UDP,
        L4Spec::Tcp { .. } => IPPROTO_TCP,
    };
    let addrs = emit_ip(&spec.ip, proto, &mut t[l2_len..])?;
    let (src_port, dst_port) = spec.l4.ports();
    let sp = src_port.first().ok_or_else(|| missing("l4.src_port"))?;
    let dp = dst_port.first().ok_or_else(|| missing("l4.dst_port"))?;
    let tcp_seq = emit_l4(&spec.l4, sp, dp, &mut t[l2_len + l3_len..]);
    Ok((proto, addrs, tcp_seq))
}

/// Sum of the IPv4 template header `l3` with every varying address zeroed
/// (0 for IPv6).
fn ipv4_const_sum(addrs: &Addrs, l3: &[u8], card: &[u128; DIMS]) -> u16 {
    if !matches!(addrs, Addrs::V4 { .. }) {
        return 0;
    }
    let mut h = [0u8; 20];
    h.copy_from_slice(&l3[..20]);
    if card[D_SRC] > 1 {
        h[v4::SRC].fill(0);
    }
    if card[D_DST] > 1 {
        h[v4::DST].fill(0);
    }
    checksum::sum(&h)
}

impl FrameBuilder {
    /// Validates `spec` and prepares the header template and a fill
    /// pattern of its own.
    pub fn new(spec: &StreamSpec, csum: CsumMode) -> Result<FrameBuilder, SpecError> {
        let fill = Arc::new(FillPattern::new(fill_seed(spec.id), Self::max_fill(spec)));
        Self::with_fill(spec, csum, fill)
    }

    /// Largest L4 payload (stamp and fill) a frame of `spec` carries: what
    /// a fill pattern must serve.
    pub fn max_fill(spec: &StreamSpec) -> usize {
        let max = spec.frame_sizes().into_iter().max().unwrap_or(0);
        max.saturating_sub(FCS_LEN + spec.header_len())
    }

    /// Like [`FrameBuilder::new`], with a fill pattern shared with other
    /// streams (one per run instead of one per stream: the pattern is not
    /// part of the wire format). `fill` must serve at least
    /// [`FrameBuilder::max_fill`] bytes.
    pub fn with_fill(
        spec: &StreamSpec,
        csum: CsumMode,
        fill: Arc<FillPattern>,
    ) -> Result<FrameBuilder, SpecError> {
        spec.validate()?;
        Self::check_fill(spec, &fill)?;
        // A tunnel's outer UDP checksum covers the inner packet, and a NIC
        // offloads one layer's checksums: a tunnelled stream's are the
        // builder's.
        let csum = if spec.encap.tunnel.is_some() {
            CsumMode::Software
        } else {
            csum
        };
        let sizes: Vec<usize> = spec.frame_sizes().iter().map(|s| s - FCS_LEN).collect();
        let max_len = sizes.iter().copied().max().unwrap_or(0);
        let l2_len = spec.l2_len();
        let l3_len = spec.l3_len();
        let l4_hdr_len = spec.l4_header_len();
        let hdr_len = l2_len + l3_len + l4_hdr_len;
        let mut t = vec![0u8; hdr_len];
        let (proto, addrs, tcp_seq) = emit_template(spec, &mut t)?;
        let (src_port, dst_port) = spec.l4.ports();
        let (src_card, dst_card) = addrs.cardinality();
        let card = [
            dst_port.cardinality(),
            src_port.cardinality(),
            dst_card,
            src_card,
            spec.eth.dst.cardinality(),
            spec.eth.src.cardinality(),
        ];
        let ipv4_const_sum = ipv4_const_sum(&addrs, &t[l2_len..], &card);
        let rng = match spec.vary {
            Vary::Step => None,
            Vary::Random { seed } => Some(SplitMix64::new(seed)),
        };
        let flow = (
            src_port.first().unwrap_or(0),
            dst_port.first().unwrap_or(0),
            addrs.pseudo_base(proto),
        );
        let mut b = FrameBuilder {
            single_flow: card.iter().all(|&c| c <= 1),
            flow,
            csum,
            stream_id: spec.id,
            template: t,
            l2_len,
            l3_len,
            l4_hdr_len,
            addrs,
            src_port: src_port.clone(),
            dst_port: dst_port.clone(),
            src_mac: spec.eth.src.clone(),
            dst_mac: spec.eth.dst.clone(),
            card,
            idx: [0; DIMS],
            rng,
            cur_len: sizes.first().copied().unwrap_or(0),
            sizes,
            size_pos: 0,
            max_len,
            ipv4_ident: 0,
            ipv4_const_sum,
            tcp_seq,
            fill,
            fill_salt: fill_seed(spec.id),
            shapes: Vec::new(),
            fill_sums: Vec::new(),
            stamp_time: StampTime::Tsc,
            outer: spec
                .encap
                .outer(spec.tags_len(), matches!(spec.ip, IpSpec::V6 { .. }), proto),
        };
        b.shapes = b.sizes.iter().map(|&len| b.shape(len)).collect();
        b.fill_sums = (0..b.sizes.len())
            .map(|k| b.fill.sums_for(b.head_and_fill(k).1))
            .collect();
        Ok(b)
    }

    /// Refuses a shared fill pattern shorter than the stream's longest fill.
    fn check_fill(spec: &StreamSpec, fill: &FillPattern) -> Result<(), SpecError> {
        if fill.max_fill() >= Self::max_fill(spec) {
            return Ok(());
        }
        Err(SpecError::new(
            "frame_size",
            format!(
                "the shared fill pattern serves {} bytes, frames need {}",
                fill.max_fill(),
                Self::max_fill(spec)
            ),
        ))
    }

    /// Stamps frames with `time` in their time field: the TSC (version 1,
    /// the default) or clock nanoseconds (version 2).
    pub fn set_stamp_time(&mut self, time: StampTime) {
        self.stamp_time = time;
        self.shapes = self.sizes.iter().map(|&len| self.shape(len)).collect();
    }

    /// Smallest frame size (FCS included) for this spec's headers: headers +
    /// compact stamp + FCS.
    pub fn min_frame_size(spec: &StreamSpec) -> usize {
        spec.min_frame_size()
    }

    /// Length of the next frame without FCS (size − 4), advancing through
    /// the Fixed/Cycle/IMIX sequence. `write` builds a frame of this length.
    pub fn next_len(&mut self) -> usize {
        self.cur_len = self.sizes[self.size_pos];
        self.size_pos += 1;
        if self.size_pos == self.sizes.len() {
            self.size_pos = 0;
        }
        self.cur_len
    }

    /// The lengths of its frames without FCS, in the order they go,
    /// repeating ([`next_len`](Self::next_len) walks them).
    pub fn frame_lens(&self) -> &[usize] {
        &self.sizes
    }

    /// Largest frame this builder writes (without FCS).
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Ethernet header length including a VLAN tag (mbuf `l2_len`).
    pub fn l2_len(&self) -> usize {
        self.l2_len
    }

    /// IP header length (mbuf `l3_len`).
    pub fn l3_len(&self) -> usize {
        self.l3_len
    }

    /// L4 header length (mbuf `l4_len`).
    pub fn l4_len(&self) -> usize {
        self.l4_hdr_len
    }

    /// Offset of the stamp in the frame.
    pub fn stamp_offset(&self) -> usize {
        self.template.len()
    }

    /// True for IPv6 streams.
    pub fn is_ipv6(&self) -> bool {
        matches!(self.addrs, Addrs::V6 { .. })
    }

    /// True for TCP streams.
    pub fn is_tcp(&self) -> bool {
        self.l4_hdr_len == 20
    }

    /// Checksum mode chosen at construction.
    pub fn csum_mode(&self) -> CsumMode {
        self.csum
    }

    /// Stream id stamped into every frame.
    pub fn stream_id(&self) -> u32 {
        self.stream_id
    }

    /// Current variation indices, then advance (stepped odometer or random).
    fn pick(&mut self) -> [u128; DIMS] {
        match &mut self.rng {
            None => {
                let cur = self.idx;
                for d in 0..DIMS {
                    if self.card[d] <= 1 {
                        continue;
                    }
                    self.idx[d] += 1;
                    if self.idx[d] < self.card[d] {
                        break;
                    }
                    self.idx[d] = 0;
                }
                cur
            }
            Some(rng) => {
                let mut cur = [0u128; DIMS];
                for (c, &n) in cur.iter_mut().zip(self.card.iter()) {
                    if n > 1 {
                        *c = rng.below(n);
                    }
                }
                cur
            }
        }
    }

    /// IPv4 total length, ident and header checksum: all that changes per
    /// frame in a single-flow IPv4 header.
    #[inline]
    fn write_ipv4_fields(&mut self, ip: &mut [u8; 20], total: u16, software: bool) {
        let ident = self.ipv4_ident;
        self.ipv4_ident = ident.wrapping_add(1);
        ip[v4::TOTAL_LEN..v4::TOTAL_LEN + 2].copy_from_slice(&total.to_be_bytes());
        ip[v4::IDENT..v4::IDENT + 2].copy_from_slice(&ident.to_be_bytes());
        if software {
            let acc = u32::from(self.ipv4_const_sum) + u32::from(total) + u32::from(ident);
            let c = checksum::finish(checksum::fold64(u64::from(acc)));
            ip[v4::CHECKSUM..v4::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
        }
    }

    /// The per-frame fields of a single-flow stream (addresses and ports
    /// are the template's); returns the pseudo-header sum.
    #[inline]
    fn write_single(
        &mut self,
        f: &mut [u8],
        len: usize,
        l3: usize,
        l4: usize,
        l4_len: usize,
        software: bool,
    ) -> u16 {
        let (sp, dp, base) = self.flow;
        put16(f, l4 + udpf::SRC_PORT, sp);
        put16(f, l4 + udpf::DST_PORT, dp);
        if let Addrs::V6 { .. } = self.addrs {
            put16(f, l3 + v6::PAYLOAD_LEN, l4_len as u16);
        } else {
            self.write_ipv4_fields(array_mut(&mut f[l3..]), (len - l3) as u16, software);
        }
        checksum::add(base, l4_len as u16)
    }

    /// The per-frame fields of a stream with address or port ranges: picks
    /// the next combination and writes it (MACs first: no checksum covers
    /// them); returns the pseudo-header sum.
    fn write_varied(
        &mut self,
        f: &mut [u8],
        len: usize,
        l3: usize,
        l4: usize,
        l4_len: usize,
        software: bool,
    ) -> u16 {
        let idx = self.pick();

        if self.card[D_DMAC] > 1 {
            let m = self.dst_mac.nth(idx[D_DMAC]).unwrap_or_default();
            f[..6].copy_from_slice(&m.0);
        }
        if self.card[D_SMAC] > 1 {
            let m = self.src_mac.nth(idx[D_SMAC]).unwrap_or_default();
            f[6..12].copy_from_slice(&m.0);
        }
        let sp = self.src_port.nth(idx[D_SPORT]).unwrap_or(0);
        let dp = self.dst_port.nth(idx[D_DPORT]).unwrap_or(0);
        put16(f, l4 + udpf::SRC_PORT, sp);
        put16(f, l4 + udpf::DST_PORT, dp);

        let proto = if self.is_tcp() {
            IPPROTO_TCP
        } else {
            IPPROTO_UDP
        };
        match &self.addrs {
            Addrs::V4 { src, dst } => {
                let s = src.nth(idx[D_SRC]).unwrap_or(Ipv4Addr::UNSPECIFIED);
                let d = dst.nth(idx[D_DST]).unwrap_or(Ipv4Addr::UNSPECIFIED);
                let total = (len - l3) as u16;
                let ident = self.ipv4_ident;
                self.ipv4_ident = ident.wrapping_add(1);
                put16(f, l3 + v4::TOTAL_LEN, total);
                put16(f, l3 + v4::IDENT, ident);
                if self.card[D_SRC] > 1 {
                    f[l3 + v4::SRC.start..l3 + v4::SRC.end].copy_from_slice(&s.octets());
                }
                if self.card[D_DST] > 1 {
                    f[l3 + v4::DST.start..l3 + v4::DST.end].copy_from_slice(&d.octets());
                }
                if software {
                    let mut acc =
                        u64::from(self.ipv4_const_sum) + u64::from(total) + u64::from(ident);
                    if self.card[D_SRC] > 1 {
                        let v = u32::from(s);
                        acc += u64::from(v >> 16) + u64::from(v & 0xFFFF);
                    }
                    if self.card[D_DST] > 1 {
                        let v = u32::from(d);
                        acc += u64::from(v >> 16) + u64::from(v & 0xFFFF);
                    }
                    put16(
                        f,
                        l3 + v4::CHECKSUM,
                        checksum::finish(checksum::fold64(acc)),
                    );
                }
                checksum::pseudo_v4(s, d, proto, l4_len as u16)
            }
            Addrs::V6 { src, dst } => {
                let s = src.nth(idx[D_SRC]).unwrap_or(Ipv6Addr::UNSPECIFIED);
                let d = dst.nth(idx[D_DST]).unwrap_or(Ipv6Addr::UNSPECIFIED);
                put16(f, l3 + v6::PAYLOAD_LEN, l4_len as u16);
                if self.card[D_SRC] > 1 {
                    f[l3 + v6::SRC.start..l3 + v6::SRC.end].copy_from_slice(&s.octets());
                }
                if self.card[D_DST] > 1 {
                    f[l3 + v6::DST.start..l3 + v6::DST.end].copy_from_slice(&d.octets());
                }
                checksum::pseudo_v6(&s, &d, proto, l4_len as u32)
            }
        }
    }

    /// Writes the next frame (length from the last [`next_len`](Self::next_len))
    /// into `buf[..len]` and returns `len`; returns 0 and writes nothing if
    /// `buf` is shorter. `seq` is the stream sequence number; `tx_tsc` can be
    /// patched later with [`set_tx_tsc`](Self::set_tx_tsc).
    pub fn write(&mut self, buf: &mut [u8], seq: u64, tx_tsc: u64) -> usize {
        let len = self.cur_len;
        let hdr = self.template.len();
        let Some(f) = buf.get_mut(..len) else {
            return 0;
        };
        let payload_len = len - hdr;
        let Some(layout) = StampLayout::for_payload(payload_len) else {
            return 0; // unreachable: sizes were validated against the minimum
        };
        f[..hdr].copy_from_slice(&self.template);
        let l3 = self.l2_len;
        let l4 = l3 + self.l3_len;
        let l4_len = len - l4;
        let software = self.csum == CsumMode::Software;
        let pseudo = if self.single_flow {
            self.write_single(f, len, l3, l4, l4_len, software)
        } else {
            self.write_varied(f, len, l3, l4, l4_len, software)
        };

        let csum_off = if self.is_tcp() {
            put32(f, l4 + tcpf::SEQ_NUM, self.tcp_seq);
            self.tcp_seq = self.tcp_seq.wrapping_add(payload_len as u32);
            l4 + tcpf::CHECKSUM
        } else {
            put16(f, l4 + udpf::LENGTH, l4_len as u16);
            l4 + udpf::CHECKSUM
        };

        let slen = layout.len();
        let fill_sum = self
            .fill
            .write(&mut f[hdr + slen..], seq.wrapping_add(self.fill_salt));
        let stamp = Stamp {
            layout,
            stream_id: self.stream_id,
            seq,
            tx_tsc,
            time: self.stamp_time,
            fill_len: (payload_len - slen) as u16,
            fill_csum: checksum::finish(fill_sum),
        };
        stamp.emit(&mut f[hdr..]);

        let l4_field = if software {
            // The stamp sums to 0xFFFF (neutral); the full stamp leaves the
            // fill outside its check, so the fill sum is added here.
            let mut s = checksum::add(pseudo, checksum::sum(&f[l4..hdr]));
            if layout == StampLayout::Full {
                s = checksum::add(s, fill_sum);
            }
            let c = checksum::finish(s);
            if self.is_tcp() {
                c
            } else {
                udp_nonzero(c)
            }
        } else {
            pseudo
        };
        put16(f, csum_off, l4_field);
        if let Some(o) = &self.outer {
            o.patch(f, len, seq);
        }
        len
    }

    /// This builder's fill pattern (shared with the run's other streams).
    pub fn fill_pattern(&self) -> &Arc<FillPattern> {
        &self.fill
    }

    /// Patches the stamp's TX TSC in a frame this builder wrote, just before
    /// transmission, fixing the stamp check incrementally (O(1)). The L4
    /// checksum needs no change: the stamp always sums to 0xFFFF. Does
    /// nothing if `frame` does not carry a stamp at the expected offset.
    pub fn set_tx_tsc(&self, frame: &mut [u8], tx_tsc: u64) {
        if let Some(p) = frame.get_mut(self.template.len()..) {
            Stamp::patch_tsc(p, tx_tsc);
        }
    }

    /// [`set_tx_tsc`](Self::set_tx_tsc) for a frame this builder wrote,
    /// without reading the stamp's magic and format back: `frame` is the
    /// frame, or its first segment when the fill is attached (at least
    /// [`FramePlan::head_len`] bytes). The layout follows from its length
    /// (a full stamp wherever 32 bytes follow the headers, as
    /// [`plan`](Self::plan) decides), the TSC and the check sit at fixed
    /// offsets, and the check is updated from the TSC it held (0 as
    /// [`write_head`](Self::write_head) left it, or the last patch's when a
    /// refused frame is sent again) with the same arithmetic as
    /// [`Stamp::patch_tsc`], so the bytes are the same. Does nothing if
    /// `frame` is too short for a stamp.
    #[inline]
    pub fn patch_tx_tsc(&self, frame: &mut [u8], tx_tsc: u64) {
        let Some(stamp) = frame.get_mut(self.template.len()..) else {
            return;
        };
        if stamp.len() >= FULL_LEN {
            patch_full_tsc(array_mut(stamp), tx_tsc);
        } else if stamp.len() >= COMPACT_LEN {
            patch_compact_tsc(array_mut(stamp), tx_tsc);
        }
    }
}

/// Seed of the fill pattern the streams of a run share (a frame's fill
/// depends on it, its stream's salt and its sequence number).
pub const SHARED_FILL_SEED: u64 = 0x6C61_6E64_7370_6565;

/// The seed of a stream's own fill pattern, and its salt in a shared one.
pub fn fill_seed(stream_id: u32) -> u64 {
    u64::from(stream_id).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x6C61_6E64
}

#[cfg(test)]
mod fast_path_tests {
    use super::fast::*;
    use super::*;
    use crate::wire::spec::{SizeSpec, VlanSpec};
    use crate::wire::tcp::TcpFlags;

    /// A stream of every kind the fast path distinguishes.
    fn spec(v6: bool, tcp: bool, vlan: bool, ranges: bool, size: SizeSpec) -> StreamSpec {
        let ip = if v6 {
            let a: Ipv6Addr = "2001:db8::10".parse().unwrap();
            let b: Ipv6Addr = "2001:db8:1::20".parse().unwrap();
            IpSpec::V6 {
                src: if ranges {
                    ValueSet::Range {
                        first: a,
                        last: "2001:db8::13".parse().unwrap(),
                    }
                } else {
                    ValueSet::Single(a)
                },
                dst: ValueSet::Single(b),
                traffic_class: 0x2E,
                flow_label: 0xABCDE,
                hop_limit: 61,
            }
        } else {
            IpSpec::V4 {
                src: ValueSet::Single(Ipv4Addr::new(198, 18, 0, 1)),
                dst: if ranges {
                    ValueSet::List(vec![
                        Ipv4Addr::new(198, 19, 0, 1),
                        Ipv4Addr::new(10, 9, 8, 7),
                    ])
                } else {
                    ValueSet::Single(Ipv4Addr::new(198, 19, 0, 1))
                },
                dscp: 46,
                ecn: 1,
                ttl: 62,
                dont_fragment: true,
            }
        };
        let sports = if ranges {
            ValueSet::Range {
                first: 1024,
                last: 1027,
            }
        } else {
            ValueSet::Single(40000)
        };
        let l4 = if tcp {
            L4Spec::Tcp {
                src_port: sports,
                dst_port: ValueSet::Single(5201),
                seq_start: 0xFFFF_F000, // wraps during the test
                ack: 0x1234_5678,
                window: 0xFFFF,
                flags: TcpFlags::ACK | TcpFlags::PSH,
            }
        } else {
            L4Spec::Udp {
                src_port: sports,
                dst_port: ValueSet::Single(5001),
            }
        };
        StreamSpec {
            id: 0xC0DE,
            name: "t".into(),
            vlan: vlan.then_some(VlanSpec {
                id: 100,
                pcp: 5,
                dei: true,
            }),
            ip,
            l4,
            size,
            vary: if ranges {
                Vary::Random { seed: 3 }
            } else {
                Vary::Step
            },
            eth: if ranges {
                crate::wire::spec::EthAddrs {
                    src: ValueSet::Range {
                        first: MacAddr([2, 0, 0, 0, 0, 0xFE]),
                        last: MacAddr([2, 0, 0, 0, 1, 0x01]),
                    },
                    dst: ValueSet::List(vec![MacAddr([2, 0, 0, 0, 0, 9]), MacAddr::BROADCAST]),
                }
            } else {
                StreamSpec::default().eth
            },
            ..StreamSpec::default()
        }
    }

    /// Frames of the fast path, each written over the previous frame of
    /// the stream in one reused buffer (as an mbuf of the template pool
    /// comes back), equal byte for byte to `write`'s on a fresh buffer
    /// stamped by `set_tx_tsc` ([`Stamp::patch_tsc`]), the fast path's
    /// stamped by `stamp_tx_tsc` (or `patch_tx_tsc` from TSC 0): on the
    /// whole frame or on its first segment (the fill attached), once or
    /// twice (a frame the PMD refused is patched when it is sent again).
    fn same_frames(s: &StreamSpec, csum: CsumMode, frames: u64) {
        let mut old = FrameBuilder::new(s, csum).unwrap();
        let mut new = old.clone();
        let mut buf = vec![0xA5u8; new.max_len()];
        new.init_head(&mut buf);
        for seq in 0..frames {
            let len = old.next_len();
            let mut want = vec![0u8; len];
            assert_eq!(old.write(&mut want, seq, 0), len);
            let p = new.plan(seq);
            assert_eq!(p.len, len);
            new.write_head(&mut buf[..p.head_len], seq, &p);
            new.write_fill(&mut buf, seq, &p);
            let tsc = 0x0123_4567_89AB_CDEF ^ seq.wrapping_mul(0x9E37_79B9);
            let seg = if seq % 2 == 0 { len } else { p.head_len };
            match seq % 3 {
                0 => {
                    old.set_tx_tsc(&mut want, tsc / 3);
                    new.stamp_tx_tsc(&mut buf[..seg], seq, &TxTsc::new(tsc / 3));
                    assert_eq!(buf[..len], want[..], "{s:?} {csum:?} seq {seq} refused");
                    old.set_tx_tsc(&mut want, tsc);
                    new.patch_tx_tsc(&mut buf[..seg], tsc);
                }
                1 => {
                    old.set_tx_tsc(&mut want, tsc);
                    new.stamp_tx_tsc(&mut buf[..seg], seq, &TxTsc::new(tsc));
                }
                _ => {
                    old.set_tx_tsc(&mut want, tsc);
                    new.patch_tx_tsc(&mut buf[..seg], tsc);
                }
            }
            assert_eq!(buf[..len], want[..], "{s:?} {csum:?} seq {seq}");
        }
    }

    #[test]
    fn fast_path_frames_equal_the_builder_s() {
        let sizes = || {
            [
                SizeSpec::Fixed(64),
                SizeSpec::Fixed(98),
                SizeSpec::Fixed(1518),
                SizeSpec::Fixed(9130),
                SizeSpec::Imix,
                SizeSpec::Cycle(vec![128, 100, 101, 1519, 256]),
            ]
        };
        for v6 in [false, true] {
            for tcp in [false, true] {
                for vlan in [false, true] {
                    for ranges in [false, true] {
                        for size in sizes() {
                            let mut s = spec(v6, tcp, vlan, ranges, size);
                            if let SizeSpec::Fixed(n) = s.size {
                                s.size = SizeSpec::Fixed(n.max(s.min_frame_size()));
                            }
                            if let SizeSpec::Cycle(v) = &s.size {
                                let m = s.min_frame_size();
                                s.size = SizeSpec::Cycle(v.iter().map(|&n| n.max(m)).collect());
                            }
                            for csum in [CsumMode::Software, CsumMode::Offload] {
                                same_frames(&s, csum, 40);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether `w` is the general writer.
    fn is_general(w: HeadWriter) -> bool {
        std::ptr::eq(
            w as *const (),
            FrameBuilder::head_generic as HeadWriter as *const (),
        )
    }

    /// Every kind of single-flow stream gets a writer of its own (not the
    /// general one) that writes the general writer's bytes: IPv4 and IPv6,
    /// UDP and TCP, software checksums and offload, compact and full
    /// stamps (with and without fill), with and without a VLAN tag, each
    /// frame over the stream's previous one.
    #[test]
    fn every_single_flow_writer_equals_the_general_one() {
        let seqs = [0u64, 1, 2, 0xFF, 0x1_0000, 0xFFFF_FFFF_FFFF, u64::MAX]
            .into_iter()
            .chain((0..40).map(|k| k * 0x0123_4567_89AB));
        let mut kinds = 0;
        for v6 in [false, true] {
            for tcp in [false, true] {
                for vlan in [false, true] {
                    let min = spec(v6, tcp, vlan, false, SizeSpec::Fixed(64)).min_frame_size();
                    // Compact without fill, compact with fill, full without
                    // fill, full with fill, full with a fill of odd length.
                    let sizes = vec![min, min + 9, min + 14, min + 100, 1519];
                    let s = spec(v6, tcp, vlan, false, SizeSpec::Cycle(sizes.clone()));
                    for csum in [CsumMode::Software, CsumMode::Offload] {
                        let mut general = FrameBuilder::new(&s, csum).unwrap();
                        let mut new = general.clone();
                        for sh in &new.shapes {
                            assert!(!is_general(sh.head), "{s:?} {csum:?}: the general writer");
                        }
                        let layouts: Vec<_> = new.shapes.iter().map(|sh| sh.layout).collect();
                        assert_eq!(layouts[0], StampLayout::Compact);
                        assert_eq!(layouts[4], StampLayout::Full);
                        let mut want = vec![0x5Au8; new.max_len()];
                        let mut got = vec![0xA5u8; new.max_len()];
                        new.init_head(&mut got);
                        general.init_head(&mut want);
                        for seq in seqs.clone() {
                            let p = new.plan(seq);
                            assert_eq!(general.plan(seq), p);
                            let sh = general.shapes[usize::from(p.shape)];
                            general.head_generic(&mut want, seq, &p, &sh);
                            new.write_head(&mut got, seq, &p);
                            assert_eq!(
                                got[..p.head_len],
                                want[..p.head_len],
                                "{s:?} {csum:?} size {} seq {seq:#x}",
                                p.len + FCS_LEN
                            );
                            kinds += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(kinds, 8 * 2 * 47);
        // A stream with ranges keeps the general writer.
        let s = spec(false, false, false, true, SizeSpec::Fixed(64));
        let b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        assert!(is_general(b.shapes[0].head));
    }

    /// The fast TSC patch writes what `Stamp::patch_tsc` writes, for both
    /// layouts and versions, from stamps holding any TSC to any TSC
    /// (windows of all zeros and all ones included).
    #[test]
    fn the_tsc_patch_equals_the_stamp_s() {
        let values = [
            0u64,
            1,
            0xFF,
            0xFFFF,
            0xFF_FFFF_FFFF,
            u64::MAX,
            0x8000_0000_0000_0000,
        ]
        .into_iter()
        .chain((1..30u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect::<Vec<_>>();
        for v6 in [false, true] {
            let min = spec(v6, false, false, false, SizeSpec::Fixed(64)).min_frame_size();
            for (size, layout) in [(min, StampLayout::Compact), (min + 20, StampLayout::Full)] {
                for time in [StampTime::Tsc, StampTime::ClockNs] {
                    let s = spec(v6, false, false, false, SizeSpec::Fixed(size));
                    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
                    b.set_stamp_time(time);
                    for &seq in &values {
                        b.next_len();
                        let mut frame = vec![0u8; size - FCS_LEN];
                        b.write(&mut frame, seq, 0);
                        let st = Stamp::parse(&frame[b.stamp_offset()..]).unwrap();
                        assert_eq!((st.layout, st.time), (layout, time));
                        for (&from, &to) in values.iter().zip(values.iter().rev()) {
                            let mut want = frame.clone();
                            b.set_tx_tsc(&mut want, from);
                            let mut got = want.clone();
                            b.set_tx_tsc(&mut want, to);
                            b.patch_tx_tsc(&mut got, to);
                            assert_eq!(
                                got, want,
                                "{layout:?} {time:?} seq {seq:#x} {from:#x} -> {to:#x}"
                            );
                            let st = Stamp::parse(&got[b.stamp_offset()..]).unwrap();
                            assert_eq!(st.tx_tsc, to & ((1u128 << layout.tsc_bits()) - 1) as u64);
                        }
                    }
                    // Too short for a stamp: nothing is written.
                    let mut short = vec![7u8; b.stamp_offset() + COMPACT_LEN - 1];
                    b.patch_tx_tsc(&mut short, 5);
                    assert!(short.iter().all(|&x| x == 7));
                }
            }
        }
    }

    /// The first stamp of a frame (its TSC field 0, nothing of it read)
    /// writes what `Stamp::patch_tsc` writes from TSC 0, for both layouts
    /// and versions, every sequence width and TSCs of all zeros and all
    /// ones; a frame too short for a stamp is left alone.
    #[test]
    fn the_first_stamp_equals_the_patch_from_zero() {
        let values = [0u64, 1, 0xFF, 0xFFFF, 0xFF_FFFF_FFFF, u64::MAX]
            .into_iter()
            .chain((0..64).map(|k| (1u64 << k) - 1))
            .chain((1..30u64).map(|k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .collect::<Vec<_>>();
        for v6 in [false, true] {
            let min = spec(v6, false, false, false, SizeSpec::Fixed(64)).min_frame_size();
            for (size, layout) in [(min, StampLayout::Compact), (min + 20, StampLayout::Full)] {
                for time in [StampTime::Tsc, StampTime::ClockNs] {
                    let s = spec(v6, false, false, false, SizeSpec::Fixed(size));
                    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
                    b.set_stamp_time(time);
                    for (&seq, &tsc) in values.iter().zip(values.iter().rev()) {
                        b.next_len();
                        let mut want = vec![0u8; size - FCS_LEN];
                        b.write(&mut want, seq, 0);
                        let mut got = want.clone();
                        b.set_tx_tsc(&mut want, tsc);
                        let t = TxTsc::new(tsc);
                        assert_eq!(t.tsc(), tsc);
                        b.stamp_tx_tsc(&mut got, seq, &t);
                        assert_eq!(got, want, "{layout:?} {time:?} seq {seq:#x} tsc {tsc:#x}");
                        let st = Stamp::parse(&got[b.stamp_offset()..]).unwrap();
                        assert_eq!(st.layout, layout);
                        assert_eq!(st.tx_tsc, tsc & ((1u128 << layout.tsc_bits()) - 1) as u64);
                    }
                    let mut short = vec![7u8; b.stamp_offset() + COMPACT_LEN - 1];
                    b.stamp_tx_tsc(&mut short, 1, &TxTsc::new(5));
                    assert!(short.iter().all(|&x| x == 7));
                }
            }
        }
    }

    #[test]
    fn the_compact_stamp_of_every_sequence_width() {
        // Sequences that set every byte of the 48-bit field, and the UDP
        // checksum case that becomes 0xFFFF.
        let s = spec(false, false, false, false, SizeSpec::Fixed(64));
        let mut old = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        let mut new = old.clone();
        let mut buf = vec![0u8; 60];
        new.init_head(&mut buf);
        for seq in (0..64)
            .map(|k| (1u64 << k) - 1)
            .chain([u64::MAX, 0xFF00_FF00_FF00])
        {
            old.next_len();
            let mut want = vec![0u8; 60];
            old.write(&mut want, seq, 0);
            let p = new.plan(seq);
            new.write_head(&mut buf, seq, &p);
            assert_eq!(buf, want, "seq {seq:#x}");
        }
    }

    #[test]
    fn the_plan_names_the_fill() {
        let s = spec(false, false, false, false, SizeSpec::Fixed(1518));
        let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        let p = b.plan(5);
        assert_eq!((p.len, p.head_len), (1514, 42 + 32));
        let mut f = vec![0u8; p.len];
        b.write_fill(&mut f, 5, &p);
        assert_eq!(checksum::sum(&f[p.head_len..]), p.fill_sum);
        assert_eq!(
            p.fill_offset,
            FillPattern::offset_for(5u64.wrapping_add(fill_seed(s.id)))
        );
    }
}
