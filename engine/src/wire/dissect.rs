//! Receive-side classification of one frame (without FCS): ours (with the
//! stamp decoded and everything verified), corrupt (and why), or not ours.
//! Never panics and never reads out of bounds, whatever the input.

use super::checksum;
use super::encap::mpls_payload_type;
use super::ethernet::EtherType;
use super::gre::{GreRepr, IPPROTO_GRE, PROTO_ETHERNET};
use super::ipv4::Ipv4Packet;
use super::ipv6::Ipv6Packet;
use super::mpls::{MplsRepr, ETHERTYPE_MPLS, ETHERTYPE_MPLS_MULTICAST};
use super::stamp::{Stamp, StampError, StampLayout};
use super::tcp::TcpPacket;
use super::udp::UdpPacket;
use super::vxlan::{VxlanHeader, VxlanRepr, VXLAN_PORT};
use super::{be16, WireError, IPPROTO_TCP, IPPROTO_UDP};
use crate::wire::ipv4::field as v4;
use crate::wire::udp::field as udpf;

/// What to verify in software.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DissectOptions {
    /// Verify the IPv4 header checksum (skip when the NIC reported it good).
    pub verify_ip: bool,
    /// Verify the UDP/TCP checksum (skip when the NIC reported it good).
    pub verify_l4: bool,
    /// Recompute the fill checksum and compare with the stamp's.
    pub verify_fill: bool,
}

impl Default for DissectOptions {
    /// Verify everything.
    fn default() -> Self {
        Self {
            verify_ip: true,
            verify_l4: true,
            verify_fill: true,
        }
    }
}

/// Why a frame of ours is counted as corrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CorruptReason {
    /// IPv4 header checksum failed.
    IpChecksum,
    /// UDP/TCP checksum failed (or a UDP/IPv6 checksum of 0).
    L4Checksum,
    /// The stamp check failed (compact layout: stamp or fill corrupt).
    StampCheck,
    /// The fill does not match the stamp's fill checksum.
    FillChecksum,
    /// Length fields disagree (UDP vs IP length, or the stamp's fill length).
    Length,
}

/// A verified frame of ours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ours {
    /// Stream id as carried.
    pub stream_id: u32,
    /// Bits of the stream id carried (32, or 16 in the compact stamp).
    pub stream_id_bits: u32,
    /// Sequence number as carried (low `seq_bits` bits).
    pub seq: u64,
    /// Bits of sequence carried (64, or 48 in the compact stamp).
    pub seq_bits: u32,
    /// TX TSC as carried (low `tsc_bits` bits).
    pub tx_tsc: u64,
    /// Bits of TSC carried (64, or 40 in the compact stamp).
    pub tsc_bits: u32,
    /// What `tx_tsc` counts: the TSC (stamp version 1) or clock ns (2).
    pub time: crate::wire::stamp::StampTime,
    /// Stamp layout.
    pub layout: StampLayout,
    /// L4 payload length (stamp + fill).
    pub payload_len: usize,
    /// IPv6 (else IPv4).
    pub is_ipv6: bool,
    /// TCP (else UDP).
    pub is_tcp: bool,
    /// VLAN id of the (innermost) tag, if tagged.
    pub vlan: Option<u16>,
}

impl Ours {
    /// A verified frame carrying stamp `s` in an L4 payload of
    /// `payload_len` bytes, on the stack the other fields name.
    #[inline(always)]
    fn of(s: &Stamp, payload_len: usize, is_ipv6: bool, is_tcp: bool, vlan: Option<u16>) -> Ours {
        Ours {
            stream_id: s.stream_id,
            stream_id_bits: s.layout.id_bits(),
            seq: s.seq,
            seq_bits: s.layout.seq_bits(),
            tx_tsc: s.tx_tsc,
            tsc_bits: s.layout.tsc_bits(),
            time: s.time,
            layout: s.layout,
            payload_len,
            is_ipv6,
            is_tcp,
            vlan,
        }
    }
}

/// Classification of one received frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dissected {
    /// One of our frames, intact.
    Ours(Ours),
    /// One of our frames (the magic matched), damaged. Ids are present when
    /// the stamp itself verified.
    Corrupt {
        /// Stream id, if the stamp was intact.
        stream_id: Option<u32>,
        /// Sequence number as carried, if the stamp was intact.
        seq: Option<u64>,
        /// First check that failed.
        reason: CorruptReason,
    },
    /// Our magic with a format byte this build does not know.
    UnknownVersion {
        /// The format byte.
        format: u8,
    },
    /// The frame ends before its headers or stamp do (or a length field
    /// points past its end).
    TooShort,
    /// Not IPv4/IPv6 UDP/TCP, or no magic where the stamp should be.
    Foreign,
}

/// [`dissect_with`] verifying everything.
pub fn dissect(frame: &[u8]) -> Dissected {
    dissect_with(frame, &DissectOptions::default())
}

fn truncated_or_foreign(e: WireError) -> Dissected {
    match e {
        WireError::Truncated { .. } => Dissected::TooShort,
        _ => Dissected::Foreign,
    }
}

/// Classifies `frame` (Ethernet II, no FCS) with the given options.
///
/// The frame most runs receive, an intact untagged IPv4/UDP frame of
/// ours, is checked in one pass ([`ipv4_udp_intact`]); every other frame,
/// and every frame that fails any check there, takes the layer-by-layer
/// walk, which says what it is and what is wrong with it. Both give the
/// same answer on every frame ([`dissect_walk`] is the walk alone, for the
/// tests that show it).
#[inline]
pub fn dissect_with(frame: &[u8], opt: &DissectOptions) -> Dissected {
    if let Some(ours) = ipv4_udp_intact(frame, opt) {
        return Dissected::Ours(ours);
    }
    dissect_walk(frame, opt)
}

/// [`dissect_with`] without its one-pass check of intact IPv4/UDP frames:
/// the layer-by-layer walk alone.
#[inline]
pub fn dissect_walk(frame: &[u8], opt: &DissectOptions) -> Dissected {
    match classify(frame, opt) {
        Ok(ours) => Dissected::Ours(ours),
        Err(other) => other,
    }
}

/// An untagged IPv4 frame without options or fragments carrying UDP and a
/// stamp of ours, every check `opt` asks for passed, read in one pass
/// with each header's words summed straight from the frame; `None` for
/// any other frame or any failed check (the walk then classifies it).
/// What it returns is what the walk returns for the frame.
#[inline(always)]
fn ipv4_udp_intact(frame: &[u8], opt: &DissectOptions) -> Option<Ours> {
    let (eth, l3) = frame.split_first_chunk::<14>()?;
    let (ip, after_ip) = l3.split_first_chunk::<20>()?;
    // EtherType IPv4, version 4 with a 20-byte header, no fragment (the
    // flags' MF bit and the offset), UDP.
    if [eth[12], eth[13], ip[0], ip[9]] != [0x08, 0x00, 0x45, IPPROTO_UDP]
        || be16(ip, v4::FLAGS_FRAG) & 0x3FFF != 0
    {
        return None;
    }
    // The segment as far as the total length says (Ethernet padding after
    // it is not the segment's).
    let segment = after_ip.get(..usize::from(be16(ip, v4::TOTAL_LEN)).checked_sub(20)?)?;
    if opt.verify_ip && !checksum::verifies(checksum::sum_short(ip)) {
        return None;
    }
    let (udp, payload) = segment.split_first_chunk::<8>()?;
    if usize::from(be16(udp, udpf::LENGTH)) != segment.len() {
        return None;
    }
    let s = Stamp::parse(payload).ok()?;
    let fill_sum = fill(&s, &payload[s.layout.len()..], opt).ok()?;
    if opt.verify_l4 && be16(udp, udpf::CHECKSUM) != 0 {
        let payload_sum = match s.layout {
            StampLayout::Compact => checksum::VERIFIED,
            StampLayout::Full => checksum::add(checksum::VERIFIED, fill_sum?),
        };
        // The pseudo-header (the addresses as the header carries them,
        // the protocol, the UDP length) and the UDP header, as native
        // 32-bit words in one accumulator folded once (the sum does not
        // depend on byte order: the two 16-bit values go in as stored);
        // then the payload's sum.
        let word = |b: &[u8; 8], at: usize| {
            u64::from(u32::from_ne_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]))
        };
        let addrs: &[u8; 8] = ip[v4::SRC.start..v4::DST.end].try_into().ok()?;
        let acc = word(addrs, 0)
            + word(addrs, 4)
            + word(udp, 0)
            + word(udp, 4)
            + u64::from(u16::from(IPPROTO_UDP).to_be())
            + u64::from((segment.len() as u16).to_be());
        let headers = u16::from_be(checksum::fold64(acc));
        if !checksum::verifies(checksum::add(headers, payload_sum)) {
            return None;
        }
    }
    Some(Ours::of(&s, payload.len(), false, false, None))
}

/// The layers in order: Ethernet, its tags and MPLS labels, IP, a tunnel
/// if the IP packet is one, L4, stamp, payload. Every step returns the
/// classification that ends the walk as its error.
#[inline(always)]
fn classify(frame: &[u8], opt: &DissectOptions) -> Result<Ours, Dissected> {
    let l2 = ethernet(frame)?;
    let l3 = ip(l2.ethertype, l2.payload, opt)?;
    match tunnel_of(&l3) {
        Some(kind) => tunnelled(kind, &l3, l2.vlan, opt),
        None => stamped(&l3, l2.vlan, opt),
    }
}

/// The stamped packet's L4 header, stamp and payload, under `l3`; `vlan`
/// the frame's innermost tag.
#[inline(always)]
fn stamped(l3: &L3<'_>, vlan: Option<u16>, opt: &DissectOptions) -> Result<Ours, Dissected> {
    let l4 = transport(l3.proto, l3.segment)?;
    let payload = &l3.segment[l4.head_len..];
    let stamp = stamp(payload)?;
    if l4.length_bad {
        return Err(corrupt(CorruptReason::Length, stamp));
    }
    if l3.checksum_bad {
        return Err(corrupt(CorruptReason::IpChecksum, stamp));
    }
    let Some(s) = stamp else {
        return Err(corrupt(CorruptReason::StampCheck, None));
    };
    let slen = s.layout.len();
    let fill_sum = fill(&s, &payload[slen..], opt).map_err(|r| corrupt(r, stamp))?;
    // The stamp verified: the bytes its check covers sum to all ones (the
    // compact check covers the fill too), so the L4 checksum adds that
    // instead of reading them again.
    let payload_sum = match s.layout {
        StampLayout::Compact => Some(checksum::VERIFIED),
        StampLayout::Full => fill_sum.map(|fs| checksum::add(checksum::VERIFIED, fs)),
    };
    if !l4_checksum_ok(opt, l3, &l4, payload_sum) {
        return Err(corrupt(CorruptReason::L4Checksum, stamp));
    }
    Ok(Ours::of(&s, payload.len(), l3.is_ipv6, l4.is_tcp, vlan))
}

/// The tunnels the walk enters.
#[derive(Clone, Copy)]
enum TunnelKind {
    /// UDP to port 4789.
    Vxlan,
    /// IP protocol 47.
    Gre,
}

/// The tunnel `l3` carries, if any.
#[inline(always)]
fn tunnel_of(l3: &L3<'_>) -> Option<TunnelKind> {
    match l3.proto {
        IPPROTO_UDP if l3.segment.len() >= 8 && be16(l3.segment, udpf::DST_PORT) == VXLAN_PORT => {
            Some(TunnelKind::Vxlan)
        }
        IPPROTO_GRE => Some(TunnelKind::Gre),
        _ => None,
    }
}

/// A tunnelled frame: the stamped packet inside, verified in full (a NIC's
/// checksum verdicts are the outer headers'), then the outer headers: the
/// IPv4 checksum, and VXLAN's UDP length and checksum (a checksum of 0 is
/// none carried, over IPv6 too, as RFC 6935 allows tunnels). A failure of
/// either counts under the same reasons as the inner packet's.
fn tunnelled(
    kind: TunnelKind,
    outer: &L3<'_>,
    vlan: Option<u16>,
    opt: &DissectOptions,
) -> Result<Ours, Dissected> {
    let seg = outer.segment;
    let inner_opt = DissectOptions {
        verify_ip: true,
        verify_l4: true,
        verify_fill: opt.verify_fill,
    };
    let (inner, outer_bad) = match kind {
        TunnelKind::Vxlan => {
            let v = VxlanHeader::new_checked(&seg[8..]).map_err(truncated_or_foreign)?;
            VxlanRepr::parse(&v).map_err(|_| Dissected::Foreign)?;
            let l2 = ethernet(&seg[8 + VxlanRepr::LEN..])?;
            let inner = ip(l2.ethertype, l2.payload, &inner_opt)?;
            let length_bad = usize::from(be16(seg, udpf::LENGTH)) != seg.len();
            (inner, length_bad.then_some(CorruptReason::Length))
        }
        TunnelKind::Gre => {
            let (g, bad) = match GreRepr::parse(seg) {
                Ok(g) => (g, None),
                Err(WireError::Checksum { .. }) => (
                    GreRepr::parse_unverified(seg).map_err(|_| Dissected::Foreign)?,
                    Some(CorruptReason::L4Checksum),
                ),
                Err(e) => return Err(truncated_or_foreign(e)),
            };
            let after = &seg[g.header_len()..];
            let inner = match g.protocol {
                PROTO_ETHERNET => {
                    let l2 = ethernet(after)?;
                    ip(l2.ethertype, l2.payload, &inner_opt)?
                }
                p => ip(p, after, &inner_opt)?,
            };
            (inner, bad)
        }
    };
    let ours = stamped(&inner, vlan, &inner_opt)?;
    let bad = |reason| Dissected::Corrupt {
        stream_id: Some(ours.stream_id),
        seq: Some(ours.seq),
        reason,
    };
    if let Some(r) = outer_bad {
        return Err(bad(r));
    }
    if outer.checksum_bad {
        return Err(bad(CorruptReason::IpChecksum));
    }
    if let TunnelKind::Vxlan = kind {
        if opt.verify_l4 && be16(seg, udpf::CHECKSUM) != 0 && !outer_udp_ok(outer, &inner) {
            return Err(bad(CorruptReason::L4Checksum));
        }
    }
    Ok(ours)
}

/// VXLAN's outer UDP checksum, over a segment whose inner packet `inner`
/// verified: the inner L4 segment (its checksum right and not 0) sums to
/// the complement of its pseudo-header's sum, so only the bytes around it
/// are read; otherwise the segment whole.
fn outer_udp_ok(outer: &L3<'_>, inner: &L3<'_>) -> bool {
    let seg = outer.segment;
    let ps = outer.pseudo.sum(IPPROTO_UDP, seg.len());
    let start = (inner.segment.as_ptr() as usize).wrapping_sub(seg.as_ptr() as usize);
    let end = start + inner.segment.len();
    let carried = match inner.proto {
        IPPROTO_UDP => inner.segment.len() >= 8 && be16(inner.segment, udpf::CHECKSUM) != 0,
        _ => true,
    };
    let total = if carried && start.is_multiple_of(2) && end <= seg.len() {
        let inner_sum = !inner.pseudo.sum(inner.proto, inner.segment.len());
        let tail = if (end - start).is_multiple_of(2) {
            checksum::sum(&seg[end..])
        } else {
            // The tail starts in the middle of a word.
            checksum::sum(&seg[end..]).swap_bytes()
        };
        checksum::add(checksum::add(checksum::sum(&seg[..start]), inner_sum), tail)
    } else {
        checksum::sum(seg)
    };
    checksum::verifies(checksum::add(ps, total))
}

/// The Ethernet layer, past its VLAN tags.
struct L2<'a> {
    /// EtherType after the last tag.
    ethertype: u16,
    /// VLAN id of the innermost tag, if tagged.
    vlan: Option<u16>,
    /// The bytes after the Ethernet header and tags.
    payload: &'a [u8],
}

/// Ethernet and VLAN step: reads the EtherType past up to two tags
/// (802.1ad outer + 802.1Q inner), then past an MPLS label stack (at most
/// [`MAX_LABELS`] entries; its payload's type from its first nibble).
#[inline(always)]
fn ethernet(frame: &[u8]) -> Result<L2<'_>, Dissected> {
    if frame.len() < 14 {
        return Err(Dissected::TooShort);
    }
    let mut et = be16(frame, 12);
    let mut off = 14;
    let mut vlan = None;
    for _ in 0..2 {
        if et != EtherType::VLAN && et != EtherType::QINQ {
            break;
        }
        if frame.len() < off + 4 {
            return Err(Dissected::TooShort);
        }
        vlan = Some(be16(frame, off) & 0x0FFF);
        et = be16(frame, off + 2);
        off += 4;
    }
    if et == ETHERTYPE_MPLS || et == ETHERTYPE_MPLS_MULTICAST {
        let stack = MplsRepr::parse(&frame[off..]).map_err(truncated_or_foreign)?;
        off += stack.header_len();
        et = mpls_payload_type(&frame[off..]).ok_or(Dissected::Foreign)?;
    }
    Ok(L2 {
        ethertype: et,
        vlan,
        payload: &frame[off..],
    })
}

/// The IP layer of a frame.
struct L3<'a> {
    /// Protocol (IPv4) or next header (IPv6).
    proto: u8,
    /// The L4 segment as far as the IP length says (empty if it points
    /// past the frame's end).
    segment: &'a [u8],
    /// Addresses for the L4 pseudo-header.
    pseudo: Pseudo,
    /// IPv6 (else IPv4).
    is_ipv6: bool,
    /// The IPv4 header checksum was verified and failed.
    checksum_bad: bool,
}

/// IP step: IPv4 or IPv6 by EtherType, anything else is foreign.
#[inline(always)]
fn ip<'a>(ethertype: u16, l3: &'a [u8], opt: &DissectOptions) -> Result<L3<'a>, Dissected> {
    match ethertype {
        EtherType::IPV4 => ipv4(l3, opt),
        EtherType::IPV6 => ipv6(l3),
        _ => Err(Dissected::Foreign),
    }
}

/// IPv4: fragments are foreign; the header checksum is verified if asked.
#[inline(always)]
fn ipv4<'a>(l3: &'a [u8], opt: &DissectOptions) -> Result<L3<'a>, Dissected> {
    let p = Ipv4Packet::new_checked(l3).map_err(truncated_or_foreign)?;
    if p.more_fragments() || p.frag_offset() != 0 {
        return Err(Dissected::Foreign);
    }
    let checksum_bad = opt.verify_ip && !p.verify_checksum();
    let hl = p.header_len();
    let tl = usize::from(p.total_len());
    Ok(L3 {
        proto: p.protocol(),
        segment: l3.get(hl..tl).unwrap_or(&[]),
        pseudo: Pseudo::V4(p.src(), p.dst()),
        is_ipv6: false,
        checksum_bad,
    })
}

/// IPv6 (no extension headers: the next header is the L4 protocol).
#[inline(always)]
fn ipv6(l3: &[u8]) -> Result<L3<'_>, Dissected> {
    let p = Ipv6Packet::new_checked(l3).map_err(truncated_or_foreign)?;
    let end = 40 + usize::from(p.payload_len());
    Ok(L3 {
        proto: p.next_header(),
        segment: l3.get(40..end).unwrap_or(&[]),
        pseudo: Pseudo::V6(p.src(), p.dst()),
        is_ipv6: true,
        checksum_bad: false,
    })
}

/// The L4 header of a segment.
struct L4 {
    /// UDP/TCP header length (the stamp starts here).
    head_len: usize,
    /// A UDP checksum of 0 (none carried).
    udp_zero: bool,
    /// TCP (else UDP).
    is_tcp: bool,
    /// The UDP length disagrees with the IP length.
    length_bad: bool,
}

/// L4 step: UDP or TCP, anything else is foreign. The L4 checksum is
/// checked after the stamp is parsed ([`l4_checksum_ok`]), so that the
/// payload fill, by far the largest part, is summed only once for both the
/// L4 checksum and the stamp's fill checksum.
#[inline(always)]
fn transport(proto: u8, segment: &[u8]) -> Result<L4, Dissected> {
    match proto {
        IPPROTO_UDP => {
            if segment.len() < 8 {
                return Err(Dissected::TooShort);
            }
            let ulen = usize::from(be16(segment, udpf::LENGTH));
            let u = UdpPacket::new_unchecked(segment);
            Ok(L4 {
                head_len: 8,
                udp_zero: u.checksum() == 0,
                is_tcp: false,
                length_bad: ulen != segment.len(),
            })
        }
        IPPROTO_TCP => {
            let t = TcpPacket::new_checked(segment).map_err(truncated_or_foreign)?;
            Ok(L4 {
                head_len: t.header_len().min(segment.len()),
                udp_zero: false,
                is_tcp: true,
                length_bad: false,
            })
        }
        _ => Err(Dissected::Foreign),
    }
}

/// Stamp step: `None` when the magic and format matched but the stamp's
/// own check failed.
#[inline(always)]
fn stamp(payload: &[u8]) -> Result<Option<Stamp>, Dissected> {
    match Stamp::parse(payload) {
        Ok(s) => Ok(Some(s)),
        Err(StampError::BadMagic(_)) => Err(Dissected::Foreign),
        Err(StampError::UnknownVersion(format)) => Err(Dissected::UnknownVersion { format }),
        Err(StampError::TooShort { .. }) => {
            if payload.len() < 2 {
                return Err(Dissected::Foreign);
            }
            Err(Dissected::TooShort)
        }
        Err(StampError::CheckFailed) => Ok(None),
    }
}

/// A frame of ours that failed `reason`, with the ids if the stamp verified.
#[inline(always)]
fn corrupt(reason: CorruptReason, stamp: Option<Stamp>) -> Dissected {
    Dissected::Corrupt {
        stream_id: stamp.map(|s| s.stream_id),
        seq: stamp.map(|s| s.seq),
        reason,
    }
}

/// Payload step (full stamp only): checks the fill length and, if asked,
/// the fill checksum. Returns the fill's sum when the L4 checksum can
/// reuse it.
#[inline(always)]
fn fill(s: &Stamp, bytes: &[u8], opt: &DissectOptions) -> Result<Option<u16>, CorruptReason> {
    if s.layout != StampLayout::Full {
        return Ok(None);
    }
    if usize::from(s.fill_len) != bytes.len() {
        return Err(CorruptReason::Length);
    }
    if !(opt.verify_fill || opt.verify_l4) {
        return Ok(None);
    }
    let fs = checksum::sum(bytes);
    if opt.verify_fill && checksum::finish(fs) != s.fill_csum {
        return Err(CorruptReason::FillChecksum);
    }
    Ok(Some(fs))
}

/// The L4 checksum, if asked, with the L4 payload's sum when it is known
/// without reading it (a verified stamp, and the fill's sum). UDP over
/// IPv4 may carry no checksum (0); over IPv6 it must.
#[inline(always)]
fn l4_checksum_ok(opt: &DissectOptions, l3: &L3<'_>, l4: &L4, payload_sum: Option<u16>) -> bool {
    if !opt.verify_l4 {
        return true;
    }
    if l4.udp_zero {
        return !l3.is_ipv6;
    }
    let segment = l3.segment;
    let ps = l3.pseudo.sum(l3.proto, segment.len());
    let head_len = l4.head_len;
    let total = match payload_sum {
        // The payload starts at an even offset (UDP's 8 bytes, TCP's
        // multiple of 4): its sum adds as it is.
        // (A UDP or TCP header is at most 60 bytes.)
        Some(s) if head_len.is_multiple_of(2) => {
            checksum::add(checksum::sum_short(&segment[..head_len]), s)
        }
        _ => checksum::sum(segment),
    };
    checksum::verifies(checksum::add(ps, total))
}

/// Addresses for the pseudo-header sum.
enum Pseudo {
    V4(std::net::Ipv4Addr, std::net::Ipv4Addr),
    V6(std::net::Ipv6Addr, std::net::Ipv6Addr),
}

impl Pseudo {
    fn sum(&self, proto: u8, l4_len: usize) -> u16 {
        match self {
            Pseudo::V4(s, d) => checksum::pseudo_v4(*s, *d, proto, l4_len as u16),
            Pseudo::V6(s, d) => checksum::pseudo_v6(s, d, proto, l4_len as u32),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::builder::{CsumMode, FrameBuilder};
    use crate::wire::spec::{IpSpec, L4Spec, SizeSpec, StreamSpec, ValueSet, VlanSpec};

    /// A frame of `size` bytes of a stream on the given stack.
    fn frame(v6: bool, tcp: bool, vlan: bool, size: usize) -> Vec<u8> {
        let mut spec = StreamSpec {
            id: 9,
            size: SizeSpec::Fixed(size),
            vlan: vlan.then_some(VlanSpec {
                id: 7,
                pcp: 0,
                dei: false,
            }),
            ..StreamSpec::default()
        };
        if v6 {
            spec.ip = IpSpec::V6 {
                src: ValueSet::Single("2001:db8::1".parse().unwrap()),
                dst: ValueSet::Single("2001:db8::2".parse().unwrap()),
                traffic_class: 0,
                flow_label: 0,
                hop_limit: 64,
            };
        }
        if tcp {
            spec.l4 = L4Spec::Tcp {
                src_port: ValueSet::Single(1),
                dst_port: ValueSet::Single(2),
                seq_start: 0,
                ack: 0,
                window: 1,
                flags: crate::wire::TcpFlags::ACK,
            };
        }
        let mut b = FrameBuilder::new(&spec, CsumMode::Software).unwrap();
        let mut f = vec![0u8; b.max_len()];
        let len = b.write(&mut f, 41, 42);
        f.truncate(len);
        f
    }

    /// Intact untagged IPv4/UDP frames, compact and full stamps, with
    /// Ethernet padding too, are taken in one pass, with what the walk
    /// finds; other stacks are left to the walk.
    #[test]
    fn intact_ipv4_udp_frames_are_taken_in_one_pass_and_others_are_not() {
        let all = DissectOptions::default();
        for size in [64, 65, 100, 1518, 9130] {
            let mut f = frame(false, false, false, size);
            for _ in 0..2 {
                let Some(o) = ipv4_udp_intact(&f, &all) else {
                    panic!("{size} B (len {}): not taken", f.len())
                };
                assert_eq!(Dissected::Ours(o), dissect_walk(&f, &all), "{size} B");
                assert_eq!((o.stream_id, o.seq, o.tx_tsc), (9, 41, 42));
                f.extend_from_slice(&[0; 6]);
            }
        }
        for (v6, tcp, vlan) in [
            (true, false, false),
            (false, true, false),
            (false, false, true),
        ] {
            let f = frame(v6, tcp, vlan, 128);
            assert!(matches!(dissect_walk(&f, &all), Dissected::Ours(_)));
            assert_eq!(
                ipv4_udp_intact(&f, &all),
                None,
                "v6 {v6} tcp {tcp} vlan {vlan}"
            );
        }
    }
}
