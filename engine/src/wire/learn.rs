//! Learning frames (RFC 2544 section 23(b)): before a trial, each
//! receiving port sends toward the device frames whose source address is
//! the test frames' destination address, so a switch learns on which of
//! its ports that address lives and forwards the test frames there
//! instead of flooding them.
//!
//! A learning frame answers one stream: the stream's headers with source
//! and destination swapped (MAC, IP and UDP port), in the stream's VLAN
//! when it has one (a switch learns per VLAN), and as small as the
//! headers allow (64 bytes with FCS for untagged IPv4). Its UDP payload
//! begins with [`MARK`] and is zeros after it: no stamp, so a receiver
//! counts it as a frame not of its streams, and a capture names it. The
//! layout is in docs/wire-format.md ("Learning frames").

use std::collections::HashSet;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::checksum;
use super::ethernet::{EtherType, EthernetFrame, EthernetRepr, MacAddr, VlanRepr, VlanTag};
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::spec::{IpSpec, SetElem, StreamSpec, VlanSpec, FCS_LEN};
use super::udp::{UdpPacket, UdpRepr};
use super::IPPROTO_UDP;

/// The first bytes of a learning frame's UDP payload.
pub const MARK: [u8; 8] = *b"LEARN\0LS";
/// The smallest Ethernet frame without its FCS: a learning frame is never
/// shorter.
pub const MIN_LEN: usize = 60;
/// The time to live (hop limit) of a learning frame: it is for the device
/// it is sent to, never to be routed further.
pub const TTL: u8 = 1;

/// The network header of a learning frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LearnIp {
    /// IPv4.
    V4 {
        /// Source address (the stream's destination).
        src: Ipv4Addr,
        /// Destination address (the stream's source).
        dst: Ipv4Addr,
    },
    /// IPv6.
    V6 {
        /// Source address (the stream's destination).
        src: Ipv6Addr,
        /// Destination address (the stream's source).
        dst: Ipv6Addr,
    },
}

/// One learning frame, as [`LearnRepr::emit`] writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LearnRepr {
    /// Source MAC: the address the device is to learn (the stream's
    /// destination).
    pub src: MacAddr,
    /// Destination MAC (the stream's source).
    pub dst: MacAddr,
    /// The stream's 802.1Q tag, if it has one.
    pub vlan: Option<VlanSpec>,
    /// IP header.
    pub ip: LearnIp,
    /// UDP source port (the stream's first destination port).
    pub src_port: u16,
    /// UDP destination port (the stream's first source port).
    pub dst_port: u16,
}

impl LearnRepr {
    /// The learning frame of stream `s`: from its destination to its
    /// source, at their first addresses and ports. `None` when the
    /// stream's destination MAC is multicast or broadcast: no device
    /// learns a group address as a source (and floods the stream's frames
    /// whatever it learnt).
    pub fn of(s: &StreamSpec) -> Option<LearnRepr> {
        let dst = s.eth.dst.first()?;
        Self::to(s, dst)
    }

    /// The learning frames of stream `s`, one from each unicast address of
    /// its destination set (in the set's order) to its first source: a
    /// switch learns every address the stream's frames go to.
    pub fn each_of(s: &StreamSpec) -> impl Iterator<Item = LearnRepr> + '_ {
        (0..s.eth.dst.cardinality()).filter_map(|i| Self::to(s, s.eth.dst.nth(i)?))
    }

    /// [`of`](Self::of) from destination address `dst`.
    fn to(s: &StreamSpec, dst: MacAddr) -> Option<LearnRepr> {
        if dst.is_multicast() {
            return None;
        }
        let ip = match &s.ip {
            IpSpec::V4 { src, dst, .. } => LearnIp::V4 {
                src: dst.first()?,
                dst: src.first()?,
            },
            IpSpec::V6 { src, dst, .. } => LearnIp::V6 {
                src: dst.first()?,
                dst: src.first()?,
            },
        };
        let (sport, dport) = s.l4.ports();
        Some(LearnRepr {
            src: dst,
            dst: s.eth.src.first()?,
            vlan: s.vlan,
            ip,
            src_port: dport.first()?,
            dst_port: sport.first()?,
        })
    }

    /// Bytes of its headers: Ethernet (and the tag), IP, UDP.
    fn header_len(&self) -> usize {
        let l2 = EthernetRepr::LEN + self.vlan.map_or(0, |_| VlanRepr::LEN);
        let l3 = match self.ip {
            LearnIp::V4 { .. } => Ipv4Repr::LEN,
            LearnIp::V6 { .. } => Ipv6Repr::LEN,
        };
        l2 + l3 + UdpRepr::LEN
    }

    /// Its length without the FCS: the headers and [`MARK`], at least
    /// [`MIN_LEN`] (the UDP payload takes up the rest).
    pub fn wire_len(&self) -> usize {
        (self.header_len() + MARK.len()).max(MIN_LEN)
    }

    /// Its size as RFC 2544 counts frames (with the FCS).
    pub fn frame_size(&self) -> usize {
        self.wire_len() + FCS_LEN
    }

    /// Writes the frame into the first [`wire_len`](Self::wire_len) bytes of `buf`,
    /// checksums filled. Panics on a shorter buffer (a programming error:
    /// the caller sizes it).
    pub fn emit(&self, buf: &mut [u8]) {
        let len = self.wire_len();
        let f = &mut buf[..len];
        f.fill(0);
        let ip_type = match self.ip {
            LearnIp::V4 { .. } => EtherType::IPV4,
            LearnIp::V6 { .. } => EtherType::IPV6,
        };
        let eth = EthernetRepr {
            dst: self.dst,
            src: self.src,
            ethertype: if self.vlan.is_some() {
                EtherType::VLAN
            } else {
                ip_type
            },
        };
        eth.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
        let mut at = EthernetRepr::LEN;
        if let Some(v) = self.vlan {
            let tag = VlanRepr {
                pcp: v.pcp,
                dei: v.dei,
                vid: v.id,
                ethertype: ip_type,
            };
            tag.emit(&mut VlanTag::new_unchecked(&mut f[at..]));
            at += VlanRepr::LEN;
        }
        let l3 = at;
        let l4 = l3
            + match self.ip {
                LearnIp::V4 { .. } => Ipv4Repr::LEN,
                LearnIp::V6 { .. } => Ipv6Repr::LEN,
            };
        let udp_len = len - l4;
        f[l4 + UdpRepr::LEN..l4 + UdpRepr::LEN + MARK.len()].copy_from_slice(&MARK);
        let udp = UdpRepr {
            src_port: self.src_port,
            dst_port: self.dst_port,
            payload_len: udp_len - UdpRepr::LEN,
        };
        udp.emit(&mut UdpPacket::new_unchecked(&mut f[l4..]));
        let pseudo = match self.ip {
            LearnIp::V4 { src, dst } => {
                let ip = Ipv4Repr {
                    src,
                    dst,
                    protocol: IPPROTO_UDP,
                    payload_len: udp_len,
                    dscp: 0,
                    ecn: 0,
                    ttl: TTL,
                    ident: 0,
                    dont_fragment: true,
                };
                ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[l3..l4]), true);
                checksum::pseudo_v4(src, dst, IPPROTO_UDP, udp_len as u16)
            }
            LearnIp::V6 { src, dst } => {
                let ip = Ipv6Repr {
                    src,
                    dst,
                    next_header: IPPROTO_UDP,
                    payload_len: udp_len,
                    traffic_class: 0,
                    flow_label: 0,
                    hop_limit: TTL,
                };
                ip.emit(&mut Ipv6Packet::new_unchecked(&mut f[l3..l4]));
                checksum::pseudo_v6(&src, &dst, IPPROTO_UDP, udp_len as u32)
            }
        };
        UdpPacket::new_unchecked(&mut f[l4..]).fill_checksum(pseudo);
    }
}

/// The learning frames of `streams` (each once per source address and
/// VLAN: a device learns an address once), in the streams' order, every
/// address of each destination set.
pub fn for_streams<'a>(streams: impl IntoIterator<Item = &'a StreamSpec>) -> Vec<LearnRepr> {
    let mut seen = HashSet::new();
    let mut out: Vec<LearnRepr> = Vec::new();
    for s in streams {
        for r in LearnRepr::each_of(s) {
            if seen.insert((r.src, r.vlan.map(|v| v.id))) {
                out.push(r);
            }
        }
    }
    out
}

/// One run of learning frames whose source addresses follow each other
/// in one VLAN: what a report names instead of every address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressRun {
    /// The first source address.
    pub first: MacAddr,
    /// The last one (the first when the run is one address).
    pub last: MacAddr,
    /// How many addresses.
    pub count: u64,
    /// The VLAN they are learnt in.
    pub vlan: Option<u16>,
}

/// `frames`' source addresses as runs of consecutive addresses in one
/// VLAN, in order.
pub fn address_runs(frames: &[LearnRepr]) -> Vec<AddressRun> {
    let mut out: Vec<AddressRun> = Vec::new();
    for f in frames {
        let vlan = f.vlan.map(|v| v.id);
        if let Some(r) = out.last_mut() {
            let next = r.last.to_u128() + 1;
            if r.vlan == vlan && f.src.to_u128() == next {
                r.last = f.src;
                r.count += 1;
                continue;
            }
        }
        out.push(AddressRun {
            first: f.src,
            last: f.src,
            count: 1,
            vlan,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::spec::{EthSpec, L4Spec, ValueSet};
    use etherparse::{LinkSlice, NetSlice, SlicedPacket, TransportSlice};

    fn stream() -> StreamSpec {
        StreamSpec {
            eth: EthSpec {
                src: MacAddr([0x02, 0, 0, 0, 0, 0x01]),
                dst: MacAddr([0x02, 0, 0, 0, 0, 0x02]),
            }
            .sets(),
            ..StreamSpec::default()
        }
    }

    #[test]
    fn an_ipv4_learning_frame_is_the_stream_reversed_byte_for_byte() {
        let r = LearnRepr::of(&stream()).unwrap();
        assert_eq!(r.wire_len(), 60);
        assert_eq!(r.frame_size(), 64);
        let mut b = [0xAAu8; 64];
        r.emit(&mut b);
        #[rustfmt::skip]
        let want: [u8; 60] = [
            // Ethernet: to the stream's source, from its destination.
            0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
            // IPv4: 46 bytes, DF, TTL 1, UDP, 198.19.0.1 -> 198.18.0.1.
            0x45, 0x00, 0x00, 0x2e, 0x00, 0x00, 0x40, 0x00, 0x01, 0x11, 0xed, 0x97,
            198, 19, 0, 1, 198, 18, 0, 1,
            // UDP 5001 -> 49152, 26 bytes.
            0x13, 0x89, 0xc0, 0x00, 0x00, 0x1a, 0x78, 0x1d,
            b'L', b'E', b'A', b'R', b'N', 0, b'L', b'S',
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(b[..60], want);
        assert_eq!(b[60..], [0xAA; 4], "nothing written past the frame");
        // The independent parser agrees, checksums included.
        let p = SlicedPacket::from_ethernet(&b[..60]).unwrap();
        let Some(LinkSlice::Ethernet2(e)) = &p.link else {
            panic!("{:?}", p.link)
        };
        assert_eq!(e.source(), [0x02, 0, 0, 0, 0, 0x02]);
        assert_eq!(e.destination(), [0x02, 0, 0, 0, 0, 0x01]);
        let Some(NetSlice::Ipv4(ip)) = &p.net else {
            panic!("{:?}", p.net)
        };
        let h = ip.header();
        assert_eq!(h.to_header().calc_header_checksum(), h.header_checksum());
        assert_eq!(h.source_addr(), Ipv4Addr::new(198, 19, 0, 1));
        assert_eq!(h.destination_addr(), Ipv4Addr::new(198, 18, 0, 1));
        assert_eq!(h.ttl(), 1);
        let Some(TransportSlice::Udp(u)) = &p.transport else {
            panic!("{:?}", p.transport)
        };
        let want = u
            .to_header()
            .calc_checksum_ipv4_raw(h.source(), h.destination(), u.payload())
            .unwrap();
        assert_eq!(u.checksum(), want);
        assert_eq!((u.source_port(), u.destination_port()), (5001, 49152));
        assert_eq!(&u.payload()[..8], &MARK);
    }

    #[test]
    fn a_tagged_ipv6_learning_frame_keeps_the_vlan_and_grows_past_the_minimum() {
        let mut s = stream();
        s.vlan = Some(VlanSpec {
            id: 100,
            pcp: 5,
            dei: true,
        });
        s.ip = IpSpec::V6 {
            src: ValueSet::Single("2001:2::1".parse().unwrap()),
            dst: ValueSet::Range {
                first: "2001:2::2".parse().unwrap(),
                last: "2001:2::9".parse().unwrap(),
            },
            traffic_class: 0x2e,
            flow_label: 7,
            hop_limit: 64,
        };
        s.l4 = L4Spec::Udp {
            src_port: ValueSet::List(vec![1000, 1001]),
            dst_port: ValueSet::Single(7),
        };
        let r = LearnRepr::of(&s).unwrap();
        // 18 + 40 + 8 + 8 = 74 bytes: above the minimum.
        assert_eq!(r.wire_len(), 74);
        let mut b = vec![0u8; r.wire_len()];
        r.emit(&mut b);
        assert_eq!(
            b[..18],
            [2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 0x81, 0x00, 0xb0, 0x64, 0x86, 0xdd]
        );
        // Version 6, no traffic class nor flow label, 16 bytes, UDP, hop limit 1.
        assert_eq!(b[18..26], [0x60, 0, 0, 0, 0, 16, 17, 1]);
        let p = SlicedPacket::from_ethernet(&b).unwrap();
        let Some(etherparse::VlanSlice::SingleVlan(v)) = p.vlan() else {
            panic!("{:?}", p.vlan())
        };
        assert_eq!(
            (
                v.vlan_identifier().value(),
                v.priority_code_point().value(),
                v.drop_eligible_indicator()
            ),
            (100, 5, true)
        );
        let Some(NetSlice::Ipv6(ip)) = &p.net else {
            panic!("{:?}", p.net)
        };
        let h = ip.header();
        assert_eq!(h.source_addr(), "2001:2::2".parse::<Ipv6Addr>().unwrap());
        assert_eq!(
            h.destination_addr(),
            "2001:2::1".parse::<Ipv6Addr>().unwrap()
        );
        let Some(TransportSlice::Udp(u)) = &p.transport else {
            panic!("{:?}", p.transport)
        };
        let want = u
            .to_header()
            .calc_checksum_ipv6_raw(h.source(), h.destination(), u.payload())
            .unwrap();
        assert_eq!(u.checksum(), want);
        assert_eq!((u.source_port(), u.destination_port()), (7, 1000));
        assert_eq!(u.payload(), &MARK);
    }

    #[test]
    fn an_untagged_ipv6_frame_is_66_bytes_and_a_tagged_ipv4_one_the_minimum() {
        let mut s = stream();
        s.ip = IpSpec::V6 {
            src: ValueSet::Single("2001:2::1".parse().unwrap()),
            dst: ValueSet::Single("2001:2::2".parse().unwrap()),
            traffic_class: 0,
            flow_label: 0,
            hop_limit: 64,
        };
        assert_eq!(LearnRepr::of(&s).unwrap().frame_size(), 74);
        let mut s = stream();
        s.vlan = Some(VlanSpec {
            id: 1,
            pcp: 0,
            dei: false,
        });
        let r = LearnRepr::of(&s).unwrap();
        assert_eq!(r.wire_len(), 60);
        let mut b = vec![0u8; 60];
        r.emit(&mut b);
        // IPv4 after the tag: 60 − 18 = 42 bytes, UDP 22.
        assert_eq!(b[20..22], [0, 42]);
        assert_eq!(b[42..44], [0, 22]);
        let p = SlicedPacket::from_ethernet(&b).unwrap();
        let Some(TransportSlice::Udp(u)) = &p.transport else {
            panic!("{:?}", p.transport)
        };
        assert_eq!(u.payload().len(), 14);
    }

    #[test]
    fn a_group_destination_teaches_nothing_and_an_address_is_taught_once() {
        let mut group = stream();
        group.eth.dst = ValueSet::Single(MacAddr::BROADCAST);
        assert_eq!(LearnRepr::of(&group), None);
        let mut other = stream();
        other.eth.dst = ValueSet::Single(MacAddr([0x02, 0, 0, 0, 0, 0x03]));
        let mut tagged = stream();
        tagged.vlan = Some(VlanSpec {
            id: 9,
            pcp: 0,
            dei: false,
        });
        let all = [stream(), group, stream(), other, tagged];
        let got: Vec<(MacAddr, Option<u16>)> = for_streams(&all)
            .iter()
            .map(|r| (r.src, r.vlan.map(|v| v.id)))
            .collect();
        assert_eq!(
            got,
            [
                (MacAddr([2, 0, 0, 0, 0, 2]), None),
                (MacAddr([2, 0, 0, 0, 0, 3]), None),
                (MacAddr([2, 0, 0, 0, 0, 2]), Some(9)),
            ]
        );
    }

    #[test]
    fn every_unicast_destination_of_a_set_is_taught_and_named_in_runs() {
        let m = |last: u8| MacAddr([0x02, 0, 0, 0, 0x01, last]);
        let mut range = stream();
        range.eth.dst = ValueSet::Range {
            first: m(0xFE),
            last: MacAddr([0x02, 0, 0, 0, 0x02, 0x01]),
        };
        let mut list = stream();
        list.eth.dst = ValueSet::List(vec![
            MacAddr([0x02, 0, 0, 0, 0x02, 0x00]),
            MacAddr::BROADCAST,
            m(0x10),
            MacAddr([0x02, 0, 0, 0, 0x02, 0x02]),
        ]);
        let each: Vec<MacAddr> = LearnRepr::each_of(&range).map(|r| r.src).collect();
        assert_eq!(
            each,
            [
                m(0xFE),
                m(0xFF),
                MacAddr([2, 0, 0, 0, 2, 0]),
                MacAddr([2, 0, 0, 0, 2, 1])
            ]
        );
        // Each frame goes to the stream's first source, at its first IPs.
        let first = LearnRepr::of(&range).unwrap();
        for r in LearnRepr::each_of(&range) {
            assert_eq!(
                LearnRepr {
                    src: first.src,
                    ..r
                },
                first
            );
        }
        // The list's group address teaches nothing, its repeat of the
        // range's address is taught once; the runs join what follows on.
        let frames = for_streams([&range, &list]);
        let got: Vec<MacAddr> = frames.iter().map(|r| r.src).collect();
        assert_eq!(
            got,
            [
                m(0xFE),
                m(0xFF),
                MacAddr([2, 0, 0, 0, 2, 0]),
                MacAddr([2, 0, 0, 0, 2, 1]),
                m(0x10),
                MacAddr([2, 0, 0, 0, 2, 2]),
            ]
        );
        let runs = address_runs(&frames);
        let run = |first, last, count| AddressRun {
            first,
            last,
            count,
            vlan: None,
        };
        assert_eq!(
            runs,
            [
                run(m(0xFE), MacAddr([2, 0, 0, 0, 2, 1]), 4),
                run(m(0x10), m(0x10), 1),
                run(MacAddr([2, 0, 0, 0, 2, 2]), MacAddr([2, 0, 0, 0, 2, 2]), 1),
            ]
        );
        // The same addresses in another VLAN are another run.
        let mut tagged = frames[1];
        tagged.vlan = Some(VlanSpec {
            id: 5,
            pcp: 0,
            dei: false,
        });
        let runs = address_runs(&[frames[0], tagged]);
        assert_eq!(runs.len(), 2);
        assert_eq!(runs[1].vlan, Some(5));
    }

    #[test]
    fn a_receiver_takes_a_learning_frame_for_a_frame_not_of_its_streams() {
        let r = LearnRepr::of(&stream()).unwrap();
        let mut b = vec![0u8; r.wire_len()];
        r.emit(&mut b);
        let d = crate::wire::dissect(&b);
        assert!(matches!(d, crate::wire::Dissected::Foreign), "{d:?}");
    }
}
