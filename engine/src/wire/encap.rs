//! What a stream's frames carry between the wire's Ethernet header (with
//! its tags) and the stamped IP packet: an MPLS label stack, and a VXLAN
//! or GRE tunnel. Described and validated in the stream's spec
//! ([`Encap`]); here, the bytes it puts in a stream's header template
//! ([`Encap::emit`]) and the outer fields that change from frame to frame
//! ([`Outer::patch`]).
//!
//! A frame of a stream with every layer, as it goes on the wire:
//!
//! ```text
//! Ethernet (eth:) · 802.1ad tag (qinq:) · 802.1Q tag (vlan:) ·
//! MPLS labels (mpls:) · outer IPv4/IPv6 (vxlan:/gre:) ·
//! UDP 4789 + VXLAN + inner Ethernet (vxlan:) | GRE (gre:) ·
//! IPv4/IPv6 (ipv4:/ipv6:) · UDP/TCP · stamp · fill
//! ```
//!
//! Per frame only the outer lengths, the outer IPv4 checksum, the outer
//! UDP checksum of VXLAN and the GRE sequence number change. The outer UDP
//! checksum covers the whole inner packet, yet it is computed from the
//! headers alone: an inner L4 segment whose checksum is right sums to the
//! complement of its pseudo-header's sum, so the inner payload is never
//! read twice.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::checksum;
use super::ethernet::{EtherType, EthernetFrame, EthernetRepr};
use super::gre::IPPROTO_GRE;
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::mpls::MplsRepr;
use super::spec::{gre_header, Encap, OuterIp, Tunnel};
use super::udp::{udp_nonzero, UdpPacket, UdpRepr};
use super::vxlan::{VxlanHeader, VxlanRepr};
use super::{put16, put32, IPPROTO_UDP};
use crate::wire::ipv4::field as v4;
use crate::wire::ipv6::field as v6;
use crate::wire::udp::field as udpf;

impl OuterIp {
    /// Writes the header into `b` with its length 0 (and the IPv4
    /// checksum 0): [`Outer::patch`] writes them per frame.
    fn emit(&self, proto: u8, b: &mut [u8]) {
        match *self {
            OuterIp::V4 {
                src,
                dst,
                dscp,
                ttl,
            } => {
                Ipv4Repr {
                    src,
                    dst,
                    protocol: proto,
                    payload_len: 0,
                    dscp,
                    ecn: 0,
                    ttl,
                    ident: 0,
                    dont_fragment: true,
                }
                .emit(&mut Ipv4Packet::new_unchecked(&mut *b), false);
                put16(b, v4::TOTAL_LEN, 0);
            }
            OuterIp::V6 {
                src,
                dst,
                traffic_class,
                hop_limit,
            } => Ipv6Repr {
                src,
                dst,
                next_header: proto,
                payload_len: 0,
                traffic_class,
                flow_label: 0,
                hop_limit,
            }
            .emit(&mut Ipv6Packet::new_unchecked(b)),
        }
    }

    /// The pseudo-header sum of a segment of `len` bytes of `proto`.
    fn pseudo(&self, proto: u8, len: usize) -> u16 {
        match self {
            OuterIp::V4 { src, dst, .. } => checksum::pseudo_v4(*src, *dst, proto, len as u16),
            OuterIp::V6 { src, dst, .. } => checksum::pseudo_v6(src, dst, proto, len as u32),
        }
    }
}

impl Encap {
    /// Writes the labels and the tunnel's headers into `b` (exactly
    /// [`Encap::header_len`] bytes), before a stamped packet of EtherType
    /// `inner`; lengths and checksums that change per frame are 0.
    pub fn emit(&self, inner: u16, b: &mut [u8]) {
        let stack = MplsRepr {
            labels: self.mpls.clone(),
        };
        stack.emit(b);
        let Some(t) = self.tunnel else { return };
        let b = &mut b[stack.header_len()..];
        let outer = *t.outer();
        let ol = outer.header_len();
        match t {
            Tunnel::Vxlan {
                vni,
                src_port,
                dst_port,
                inner: eth,
                ..
            } => {
                outer.emit(IPPROTO_UDP, b);
                let udp = &mut b[ol..];
                UdpRepr {
                    src_port,
                    dst_port,
                    payload_len: 0,
                }
                .emit(&mut UdpPacket::new_unchecked(&mut *udp));
                put16(udp, udpf::LENGTH, 0);
                VxlanRepr { vni }.emit(&mut VxlanHeader::new_unchecked(&mut udp[8..16]));
                EthernetRepr {
                    dst: eth.dst,
                    src: eth.src,
                    ethertype: inner,
                }
                .emit(&mut EthernetFrame::new_unchecked(&mut udp[16..30]));
            }
            Tunnel::Gre { key, sequence, .. } => {
                outer.emit(IPPROTO_GRE, b);
                gre_header(inner, key, sequence).emit(&mut b[ol..]);
            }
        }
    }

    /// The per-frame writer of a stream whose tunnel starts at `at` in the
    /// frame, whose stamped packet is IPv6 (`inner_v6`) or IPv4 and carries
    /// `proto`; `None` without a tunnel.
    pub fn outer(&self, at: usize, inner_v6: bool, proto: u8) -> Option<Outer> {
        let t = self.tunnel?;
        let at = at + 4 * self.mpls.len();
        let ip = *t.outer();
        let l4 = at + ip.header_len();
        let proto_outer = match t {
            Tunnel::Vxlan { .. } => IPPROTO_UDP,
            Tunnel::Gre { .. } => IPPROTO_GRE,
        };
        let mut h = [0u8; 20];
        if let OuterIp::V4 { .. } = ip {
            ip.emit(proto_outer, &mut h);
        }
        let inner_ip = at + t.header_len();
        Some(Outer {
            ip,
            at,
            l4,
            v4_sum: checksum::sum(&h),
            inner_ip,
            inner_l4: inner_ip + if inner_v6 { 40 } else { 20 },
            inner_v6,
            proto,
            // The sequence number ends the GRE header.
            seq_at: match t {
                Tunnel::Gre {
                    sequence: true,
                    key,
                    ..
                } => Some(l4 + gre_header(0, key, true).header_len() - 4),
                _ => None,
            },
            vxlan: matches!(t, Tunnel::Vxlan { .. }),
        })
    }
}

/// The outer fields of a tunnelled stream's frames that change per frame,
/// and where they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outer {
    /// The outer IP header.
    ip: OuterIp,
    /// Offset of the outer IP header.
    at: usize,
    /// Offset of the outer UDP or GRE header.
    l4: usize,
    /// Sum of the outer IPv4 header with its length and checksum 0.
    v4_sum: u16,
    /// Offset of the stamped (inner) IP header.
    inner_ip: usize,
    /// Offset of the inner L4 header.
    inner_l4: usize,
    /// The inner packet is IPv6.
    inner_v6: bool,
    /// The inner L4 protocol.
    proto: u8,
    /// Offset of the GRE sequence number, when sent.
    seq_at: Option<usize>,
    /// VXLAN (else GRE).
    vxlan: bool,
}

impl Outer {
    /// Writes the outer fields of frame `f` (its `len` bytes without FCS,
    /// the stamped packet already in place with its checksums right),
    /// stream sequence `seq`: the outer IP length and IPv4 checksum, the
    /// VXLAN UDP length and checksum, the GRE sequence number.
    #[inline]
    pub fn patch(&self, f: &mut [u8], len: usize, seq: u64) {
        let at = self.at;
        match self.ip {
            OuterIp::V4 { .. } => {
                let total = (len - at) as u16;
                put16(f, at + v4::TOTAL_LEN, total);
                let c = checksum::finish(checksum::add(self.v4_sum, total));
                put16(f, at + v4::CHECKSUM, c);
            }
            OuterIp::V6 { .. } => put16(f, at + v6::PAYLOAD_LEN, (len - at - 40) as u16),
        }
        if let Some(s) = self.seq_at {
            put32(f, s, seq as u32);
        }
        if !self.vxlan {
            return;
        }
        let l4 = self.l4;
        let ulen = len - l4;
        put16(f, l4 + udpf::LENGTH, ulen as u16);
        put16(f, l4 + udpf::CHECKSUM, 0);
        // The outer segment: its headers as written, and the inner L4
        // segment, whose sum is the complement of its pseudo-header's.
        let heads = checksum::sum_short(&f[l4..self.inner_l4]);
        let inner = !self.inner_pseudo(f, len - self.inner_l4);
        let s = checksum::add(
            checksum::add(self.ip.pseudo(IPPROTO_UDP, ulen), heads),
            inner,
        );
        put16(f, l4 + udpf::CHECKSUM, udp_nonzero(checksum::finish(s)));
    }

    /// The inner packet's pseudo-header sum, its addresses read from `f`.
    fn inner_pseudo(&self, f: &[u8], l4_len: usize) -> u16 {
        let ip = &f[self.inner_ip..];
        if self.inner_v6 {
            let a = |r: std::ops::Range<usize>| -> Ipv6Addr {
                let o: [u8; 16] = ip[r].try_into().unwrap_or([0; 16]);
                Ipv6Addr::from(o)
            };
            checksum::pseudo_v6(&a(v6::SRC), &a(v6::DST), self.proto, l4_len as u32)
        } else {
            let a = |r: std::ops::Range<usize>| -> Ipv4Addr {
                let o: [u8; 4] = ip[r].try_into().unwrap_or([0; 4]);
                Ipv4Addr::from(o)
            };
            checksum::pseudo_v4(a(v4::SRC), a(v4::DST), self.proto, l4_len as u16)
        }
    }
}

/// The MPLS payload's EtherType, read from its first nibble (an IP version).
pub(crate) fn mpls_payload_type(b: &[u8]) -> Option<u16> {
    match b.first()? >> 4 {
        4 => Some(EtherType::IPV4),
        6 => Some(EtherType::IPV6),
        _ => None,
    }
}
