//! Receive-side classification of one frame (without FCS): ours (with the
//! stamp decoded and everything verified), corrupt (and why), or not ours.
//! Never panics and never reads out of bounds, whatever the input.

use super::checksum;
use super::ethernet::EtherType;
use super::ipv4::Ipv4Packet;
use super::ipv6::Ipv6Packet;
use super::stamp::{Stamp, StampError, StampLayout};
use super::tcp::TcpPacket;
use super::udp::UdpPacket;
use super::{be16, WireError, IPPROTO_TCP, IPPROTO_UDP};

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
pub fn dissect_with(frame: &[u8], opt: &DissectOptions) -> Dissected {
    if frame.len() < 14 {
        return Dissected::TooShort;
    }
    let mut et = be16(frame, 12);
    let mut off = 14;
    let mut vlan = None;
    // Up to two tags (802.1ad outer + 802.1Q inner).
    for _ in 0..2 {
        if et != EtherType::VLAN && et != EtherType::QINQ {
            break;
        }
        if frame.len() < off + 4 {
            return Dissected::TooShort;
        }
        vlan = Some(be16(frame, off) & 0x0FFF);
        et = be16(frame, off + 2);
        off += 4;
    }
    let l3 = &frame[off..];
    let mut ip_bad = false;
    let (proto, segment, pseudo_for, is_ipv6): (u8, &[u8], Pseudo, bool) = match et {
        EtherType::IPV4 => {
            let p = match Ipv4Packet::new_checked(l3) {
                Ok(p) => p,
                Err(e) => return truncated_or_foreign(e),
            };
            if p.more_fragments() || p.frag_offset() != 0 {
                return Dissected::Foreign;
            }
            if opt.verify_ip && !p.verify_checksum() {
                ip_bad = true;
            }
            let hl = p.header_len();
            let tl = usize::from(p.total_len());
            let seg = l3.get(hl..tl).unwrap_or(&[]);
            (p.protocol(), seg, Pseudo::V4(p.src(), p.dst()), false)
        }
        EtherType::IPV6 => {
            let p = match Ipv6Packet::new_checked(l3) {
                Ok(p) => p,
                Err(e) => return truncated_or_foreign(e),
            };
            let end = 40 + usize::from(p.payload_len());
            let seg = l3.get(40..end).unwrap_or(&[]);
            (p.next_header(), seg, Pseudo::V6(p.src(), p.dst()), true)
        }
        _ => return Dissected::Foreign,
    };
    let mut length_bad = false;
    // The L4 checksum is checked after the stamp is parsed, so that the
    // payload fill, by far the largest part, is summed only once for both
    // the L4 checksum and the stamp's fill checksum.
    let (head_len, udp_zero, is_tcp) = match proto {
        IPPROTO_UDP => {
            if segment.len() < 8 {
                return Dissected::TooShort;
            }
            let ulen = usize::from(be16(segment, 4));
            if ulen != segment.len() {
                length_bad = true;
            }
            let u = UdpPacket::new_unchecked(segment);
            (8, u.checksum() == 0, false)
        }
        IPPROTO_TCP => {
            let t = match TcpPacket::new_checked(segment) {
                Ok(t) => t,
                Err(e) => return truncated_or_foreign(e),
            };
            (t.header_len().min(segment.len()), false, true)
        }
        _ => return Dissected::Foreign,
    };
    let payload = &segment[head_len..];
    let l4_proto = if is_tcp { IPPROTO_TCP } else { IPPROTO_UDP };
    // UDP over IPv4 may carry no checksum (0); over IPv6 it must.
    let l4_ok = |fill_start: usize, fill_sum: Option<u16>| -> bool {
        if !opt.verify_l4 {
            return true;
        }
        if udp_zero {
            return !is_ipv6;
        }
        let ps = pseudo_for.sum(l4_proto, segment.len());
        let total = match fill_sum {
            // Every part before the fill has an even length (L4 header,
            // stamp), so the fill's sum adds as it is.
            Some(fs) if (head_len + fill_start).is_multiple_of(2) => {
                checksum::add(checksum::sum(&segment[..head_len + fill_start]), fs)
            }
            _ => checksum::sum(segment),
        };
        checksum::verifies(checksum::add(ps, total))
    };
    let stamp = match Stamp::parse(payload) {
        Ok(s) => Some(s),
        Err(StampError::BadMagic(_)) => return Dissected::Foreign,
        Err(StampError::UnknownVersion(format)) => return Dissected::UnknownVersion { format },
        Err(StampError::TooShort { .. }) => {
            if payload.len() < 2 {
                return Dissected::Foreign;
            }
            return Dissected::TooShort;
        }
        Err(StampError::CheckFailed) => None,
    };
    let corrupt = |reason, s: Option<Stamp>| Dissected::Corrupt {
        stream_id: s.map(|s| s.stream_id),
        seq: s.map(|s| s.seq),
        reason,
    };
    if length_bad {
        return corrupt(CorruptReason::Length, stamp);
    }
    if ip_bad {
        return corrupt(CorruptReason::IpChecksum, stamp);
    }
    let Some(s) = stamp else {
        return corrupt(CorruptReason::StampCheck, None);
    };
    let slen = s.layout.len();
    let fill = &payload[slen..];
    let mut fill_sum = None;
    if s.layout == StampLayout::Full {
        if usize::from(s.fill_len) != fill.len() {
            return corrupt(CorruptReason::Length, stamp);
        }
        if opt.verify_fill || opt.verify_l4 {
            let fs = checksum::sum(fill);
            if opt.verify_fill && checksum::finish(fs) != s.fill_csum {
                return corrupt(CorruptReason::FillChecksum, stamp);
            }
            fill_sum = Some(fs);
        }
    }
    if !l4_ok(slen, fill_sum) {
        return corrupt(CorruptReason::L4Checksum, stamp);
    }
    Dissected::Ours(Ours {
        stream_id: s.stream_id,
        stream_id_bits: s.layout.id_bits(),
        seq: s.seq,
        seq_bits: s.layout.seq_bits(),
        tx_tsc: s.tx_tsc,
        tsc_bits: s.layout.tsc_bits(),
        layout: s.layout,
        payload_len: payload.len(),
        is_ipv6,
        is_tcp,
        vlan,
    })
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
