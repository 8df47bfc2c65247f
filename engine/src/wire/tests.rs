//! Cross-module tests: builder → etherparse (independent parser) and
//! builder → dissector, plus fuzz-like robustness of every parser.

use std::collections::{HashMap, HashSet};
use std::net::{Ipv4Addr, Ipv6Addr};

use etherparse::{LinkExtSlice, LinkSlice, NetSlice, SlicedPacket, TransportSlice};

use super::builder::{CsumMode, FrameBuilder};
use super::checksum;
use super::dissect::{
    dissect, dissect_walk, dissect_with, CorruptReason, DissectOptions, Dissected,
};
use super::ethernet::{EthernetFrame, MacAddr, VlanTag};
use super::fill::SplitMix64;
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::ipv6::{Ipv6Packet, Ipv6Repr};
use super::spec::{EthAddrs, IpSpec, L4Spec, SizeSpec, StreamSpec, ValueSet, Vary, VlanSpec};
use super::stamp::{Stamp, StampLayout};
use super::tcp::{TcpFlags, TcpPacket, TcpRepr};
use super::udp::{UdpPacket, UdpRepr};

fn spec(v6: bool, tcp: bool, vlan: bool, size: SizeSpec) -> StreamSpec {
    let ip = if v6 {
        IpSpec::V6 {
            src: ValueSet::Single("2001:db8::10".parse().unwrap()),
            dst: ValueSet::Single("2001:db8:1::20".parse().unwrap()),
            traffic_class: 0x2E,
            flow_label: 0xABCDE,
            hop_limit: 61,
        }
    } else {
        IpSpec::V4 {
            src: ValueSet::Single(Ipv4Addr::new(198, 18, 0, 1)),
            dst: ValueSet::Single(Ipv4Addr::new(198, 19, 0, 1)),
            dscp: 46,
            ecn: 1,
            ttl: 62,
            dont_fragment: true,
        }
    };
    let l4 = if tcp {
        L4Spec::Tcp {
            src_port: ValueSet::Single(40000),
            dst_port: ValueSet::Single(5201),
            seq_start: 0xFFFF_F000, // wraps during the test
            ack: 0x1234_5678,
            window: 0xFFFF,
            flags: TcpFlags::ACK | TcpFlags::PSH,
        }
    } else {
        L4Spec::Udp {
            src_port: ValueSet::Single(40000),
            dst_port: ValueSet::Single(5001),
        }
    };
    StreamSpec {
        id: 7,
        name: "t".into(),
        vlan: vlan.then_some(VlanSpec {
            id: 100,
            pcp: 5,
            dei: true,
        }),
        ip,
        l4,
        size,
        ..StreamSpec::default()
    }
}

/// The UDP checksum etherparse computes for `u` between the addresses
/// `src` and `dst` (4 bytes each for IPv4, 16 for IPv6).
pub(super) fn udp_checksum(u: &etherparse::UdpSlice<'_>, src: &[u8], dst: &[u8]) -> u16 {
    let h = u.to_header();
    if src.len() == 16 {
        h.calc_checksum_ipv6_raw(
            src.try_into().unwrap(),
            dst.try_into().unwrap(),
            u.payload(),
        )
    } else {
        h.calc_checksum_ipv4_raw(
            src.try_into().unwrap(),
            dst.try_into().unwrap(),
            u.payload(),
        )
    }
    .unwrap()
}

/// The TCP checksum etherparse computes for `t`, as [`udp_checksum`].
pub(super) fn tcp_checksum(t: &etherparse::TcpSlice<'_>, src: &[u8], dst: &[u8]) -> u16 {
    if src.len() == 16 {
        t.calc_checksum_ipv6(src.try_into().unwrap(), dst.try_into().unwrap())
    } else {
        t.calc_checksum_ipv4(src.try_into().unwrap(), dst.try_into().unwrap())
    }
    .unwrap()
}

/// What etherparse sees in one frame.
struct EtherparseView {
    payload: Vec<u8>,
    tcp_seq: Option<u32>,
}

/// Parses with etherparse and asserts every checksum and length is right.
fn etherparse_check(frame: &[u8], s: &StreamSpec) -> EtherparseView {
    let p = SlicedPacket::from_ethernet(frame).expect("etherparse parses our frame");
    match &p.link {
        Some(LinkSlice::Ethernet2(e)) => {
            assert!(s.eth.src.contains(MacAddr(e.source())));
            assert!(s.eth.dst.contains(MacAddr(e.destination())));
        }
        _ => panic!("no ethernet"),
    }
    match (s.vlan, p.link_exts.first()) {
        (None, None) => {}
        (Some(v), Some(LinkExtSlice::Vlan(t))) => {
            assert_eq!(t.vlan_identifier().value(), v.id);
            assert_eq!(t.priority_code_point().value(), v.pcp);
            assert_eq!(t.drop_eligible_indicator(), v.dei);
        }
        _ => panic!("vlan mismatch"),
    }
    let l2 = s.l2_len();
    let (src, dst, l4_payload_len): (Vec<u8>, Vec<u8>, usize) = match p.net.as_ref().unwrap() {
        NetSlice::Ipv4(ip) => {
            let h = ip.header();
            assert_eq!(usize::from(h.total_len()), frame.len() - l2);
            assert_eq!(h.header_checksum(), h.to_header().calc_header_checksum());
            if let IpSpec::V4 {
                dscp,
                ecn,
                ttl,
                dont_fragment,
                ..
            } = s.ip
            {
                assert_eq!(
                    (h.dcp().value(), h.ecn().value(), h.ttl()),
                    (dscp, ecn, ttl)
                );
                assert_eq!(h.dont_fragment(), dont_fragment);
            }
            (
                h.source().to_vec(),
                h.destination().to_vec(),
                frame.len() - l2 - 20,
            )
        }
        NetSlice::Ipv6(ip) => {
            let h = ip.header();
            assert_eq!(usize::from(h.payload_length()), frame.len() - l2 - 40);
            if let IpSpec::V6 {
                traffic_class,
                flow_label,
                hop_limit,
                ..
            } = s.ip
            {
                assert_eq!(h.traffic_class(), traffic_class);
                assert_eq!(h.flow_label().value(), flow_label);
                assert_eq!(h.hop_limit(), hop_limit);
            }
            (
                h.source().to_vec(),
                h.destination().to_vec(),
                frame.len() - l2 - 40,
            )
        }
        _ => panic!("not ip"),
    };
    match p.transport.as_ref().unwrap() {
        TransportSlice::Udp(u) => {
            assert_eq!(usize::from(u.length()), l4_payload_len);
            let want = udp_checksum(u, &src, &dst);
            assert_ne!(u.checksum(), 0);
            assert_eq!(u.checksum(), want, "udp checksum");
            EtherparseView {
                payload: u.payload().to_vec(),
                tcp_seq: None,
            }
        }
        TransportSlice::Tcp(t) => {
            let want = tcp_checksum(t, &src, &dst);
            assert_eq!(t.checksum(), want, "tcp checksum");
            assert!(t.ack() && t.psh() && !t.syn());
            assert_eq!(
                (t.acknowledgment_number(), t.window_size()),
                (0x1234_5678, 0xFFFF)
            );
            EtherparseView {
                payload: t.payload().to_vec(),
                tcp_seq: Some(t.sequence_number()),
            }
        }
        _ => panic!("not udp/tcp"),
    }
}

fn truncated(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1 << bits) - 1)
    }
}

/// The main end-to-end check for one stream configuration.
fn run_stream(s: &StreamSpec, n: usize) {
    let mut b = FrameBuilder::new(s, CsumMode::Software).unwrap();
    let mut buf = vec![0u8; b.max_len()];
    let mut payloads = HashSet::new();
    let mut expect_tcp_seq: Option<u32> = None;
    let base_seq = 1u64 << 50; // exercises compact truncation
    let mut lens = HashMap::new();
    for i in 0..n as u64 {
        let len = b.next_len();
        let seq = base_seq + i;
        let tsc = 0x00AB_CDEF_0000_0000 + i * 3000;
        assert_eq!(b.write(&mut buf, seq, tsc), len);
        *lens.entry(len + 4).or_insert(0) += 1;
        let f = &mut buf[..len];
        let seen = etherparse_check(f, s);
        // Stamp decodes with consecutive seq.
        let st = Stamp::parse(&seen.payload).unwrap();
        assert_eq!(st.seq, truncated(seq, st.layout.seq_bits()));
        assert_eq!(st.tx_tsc, truncated(tsc, st.layout.tsc_bits()));
        assert_eq!(st.stream_id, 7);
        if let Some(ts) = seen.tcp_seq {
            if let Some(e) = expect_tcp_seq {
                assert_eq!(ts, e, "tcp seq advances by payload length");
            } else {
                assert_eq!(ts, 0xFFFF_F000);
            }
            expect_tcp_seq = Some(ts.wrapping_add(seen.payload.len() as u32));
        }
        assert!(payloads.insert(seen.payload.clone()), "payload repeated");
        match dissect(f) {
            Dissected::Ours(o) => {
                assert_eq!(o.stream_id, 7);
                assert_eq!(o.seq, truncated(seq, o.seq_bits));
                assert_eq!(o.payload_len, seen.payload.len());
                assert_eq!(o.vlan, s.vlan.map(|v| v.id));
            }
            other => panic!("frame {i}: {other:?}"),
        }
        // Patch the TSC: all checksums must stay valid.
        let new_tsc = 0xFEDC_BA98_7654_3210 ^ i;
        b.set_tx_tsc(f, new_tsc);
        let seen2 = etherparse_check(f, s);
        let st2 = Stamp::parse(&seen2.payload).unwrap();
        assert_eq!(st2.tx_tsc, truncated(new_tsc, st2.layout.tsc_bits()));
        match dissect(f) {
            Dissected::Ours(o) => assert_eq!(o.tx_tsc, truncated(new_tsc, o.tsc_bits)),
            other => panic!("after set_tx_tsc: {other:?}"),
        }
        // Flip one payload bit.
        let hdr = b.stamp_offset();
        let slen = st.layout.len();
        if i % 97 == 0 {
            if len > hdr + slen {
                let pos = hdr + slen + (i as usize * 31) % (len - hdr - slen);
                f[pos] ^= 0x20;
                let want = if st.layout == StampLayout::Full {
                    CorruptReason::FillChecksum
                } else {
                    CorruptReason::StampCheck
                };
                match dissect(f) {
                    Dissected::Corrupt {
                        reason,
                        stream_id,
                        seq,
                    } => {
                        assert_eq!(reason, want);
                        if want == CorruptReason::FillChecksum {
                            assert_eq!((stream_id, seq), (Some(7), Some(seq_of(&st))));
                        }
                    }
                    other => panic!("bit flip not detected: {other:?}"),
                }
                // With fill verification off, the L4 checksum still catches it.
                let o = DissectOptions {
                    verify_fill: false,
                    ..DissectOptions::default()
                };
                assert!(matches!(dissect_with(f, &o), Dissected::Corrupt { .. }));
                f[pos] ^= 0x20;
            }
            // Flip a stamp bit.
            f[hdr + 9] ^= 1;
            assert!(matches!(
                dissect(f),
                Dissected::Corrupt {
                    reason: CorruptReason::StampCheck,
                    stream_id: None,
                    ..
                }
            ));
            f[hdr + 9] ^= 1;
            // Flip an IP header bit (IPv4: header checksum; IPv6: L4 via pseudo-header).
            let l3 = b.l2_len();
            f[l3 + 8 + if b.is_ipv6() { 0 } else { 4 }] ^= 0x01;
            let want = if b.is_ipv6() {
                CorruptReason::L4Checksum
            } else {
                CorruptReason::IpChecksum
            };
            assert!(matches!(dissect(f), Dissected::Corrupt { reason, .. } if reason == want));
        }
    }
    if s.size == SizeSpec::Imix {
        let small = s.min_frame_size().max(64);
        assert_eq!(
            lens.get(&small),
            Some(&(n / 12 * 7 + [0, 1, 1, 2, 3, 3, 4, 4, 5, 5, 6, 7][n % 12]))
        );
        assert_eq!(lens.len(), 3);
    }
}

fn seq_of(s: &Stamp) -> u64 {
    s.seq
}

#[test]
fn all_stacks_all_sizes_1000_frames() {
    for v6 in [false, true] {
        for tcp in [false, true] {
            for vlan in [false, true] {
                let min = spec(v6, tcp, vlan, SizeSpec::Fixed(64)).min_frame_size();
                let mut sizes = vec![SizeSpec::Fixed(1518), SizeSpec::Fixed(9130), SizeSpec::Imix];
                if min <= 64 {
                    sizes.push(SizeSpec::Fixed(64));
                }
                // Smallest size, and one with a compact stamp plus a few fill bytes.
                sizes.push(SizeSpec::Fixed(min));
                sizes.push(SizeSpec::Fixed(min + 7));
                sizes.push(SizeSpec::Cycle(vec![min + 14, min + 15, 1500, 9130]));
                for size in sizes {
                    let s = spec(v6, tcp, vlan, size);
                    run_stream(&s, 1000);
                }
            }
        }
    }
}

#[test]
fn default_stream_is_9130_ipv4_udp() {
    let s = StreamSpec::default();
    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
    assert_eq!(b.next_len(), 9126);
    assert_eq!(b.max_len(), 9126);
    assert_eq!(
        (b.l2_len(), b.l3_len(), b.l4_len(), b.is_ipv6(), b.is_tcp()),
        (14, 20, 8, false, false)
    );
    assert_eq!(FrameBuilder::min_frame_size(&s), 64);
    let mut small = vec![0u8; 100];
    assert_eq!(b.write(&mut small, 0, 0), 0, "short buffer is refused");
}

#[test]
fn offload_mode_leaves_what_dpdk_expects() {
    for (v6, tcp) in [(false, false), (false, true), (true, false), (true, true)] {
        let s = spec(v6, tcp, false, SizeSpec::Fixed(1518));
        let mut b = FrameBuilder::new(&s, CsumMode::Offload).unwrap();
        let mut sw = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        let mut f = vec![0u8; b.max_len()];
        let mut g = vec![0u8; sw.max_len()];
        let len = b.next_len();
        sw.next_len();
        b.write(&mut f, 5, 6);
        sw.write(&mut g, 5, 6);
        let l3 = b.l2_len();
        let l4 = l3 + b.l3_len();
        let csum_off = l4 + if tcp { 16 } else { 6 };
        let seg_len = len - l4;
        let proto = if tcp { 6 } else { 17 };
        let pseudo = if v6 {
            let p = Ipv6Packet::new_checked(&f[l3..]).unwrap();
            checksum::pseudo_v6(&p.src(), &p.dst(), proto, seg_len as u32)
        } else {
            let p = Ipv4Packet::new_checked(&f[l3..]).unwrap();
            assert_eq!(p.checksum(), 0, "IPv4 checksum left to the NIC");
            checksum::pseudo_v4(p.src(), p.dst(), proto, seg_len as u16)
        };
        assert_eq!(u16::from_be_bytes([f[csum_off], f[csum_off + 1]]), pseudo);
        // Emulate the NIC: checksum over the segment as-is (field = pseudo sum).
        let c = checksum::checksum(&f[l4..len]);
        f[csum_off..csum_off + 2]
            .copy_from_slice(&(if c == 0 && !tcp { 0xFFFF } else { c }).to_be_bytes());
        if !v6 {
            let mut p = Ipv4Packet::new_checked(&mut f[l3..len]).unwrap();
            p.fill_checksum();
        }
        assert_eq!(&f[..len], &g[..len], "offload + NIC == software");
    }
}

#[test]
fn stepped_variation_covers_exactly_the_configured_set() {
    let srcs = ValueSet::Range {
        first: Ipv4Addr::new(10, 0, 0, 254),
        last: Ipv4Addr::new(10, 0, 1, 1),
    };
    let dsts = ValueSet::List(vec![
        Ipv4Addr::new(192, 0, 2, 9),
        Ipv4Addr::new(192, 0, 2, 1),
        Ipv4Addr::new(203, 0, 113, 5),
    ]);
    let sports = ValueSet::Range {
        first: 1000u16,
        last: 1001,
    };
    let dports = ValueSet::List(vec![53u16, 5001]);
    let mut expected = HashSet::new();
    for a in 0..4 {
        for b in 0..3 {
            for c in 0..2 {
                for d in 0..2 {
                    expected.insert((
                        srcs.nth(a).unwrap().to_string(),
                        dsts.nth(b).unwrap().to_string(),
                        sports.nth(c).unwrap(),
                        dports.nth(d).unwrap(),
                    ));
                }
            }
        }
    }
    assert_eq!(expected.len(), 48);
    for tcp in [false, true] {
        let mut s = spec(false, tcp, false, SizeSpec::Fixed(128));
        s.ip = IpSpec::V4 {
            src: srcs.clone(),
            dst: dsts.clone(),
            dscp: 0,
            ecn: 0,
            ttl: 64,
            dont_fragment: false,
        };
        s.l4 = match s.l4 {
            L4Spec::Udp { .. } => L4Spec::Udp {
                src_port: sports.clone(),
                dst_port: dports.clone(),
            },
            L4Spec::Tcp {
                seq_start,
                ack,
                window,
                flags,
                ..
            } => L4Spec::Tcp {
                src_port: sports.clone(),
                dst_port: dports.clone(),
                seq_start,
                ack,
                window,
                flags,
            },
        };
        let tuples = collect_tuples(&s, 96);
        assert_eq!(
            tuples[..48].iter().cloned().collect::<HashSet<_>>(),
            expected
        );
        assert_eq!(
            tuples[..48],
            tuples[48..],
            "stepping repeats with period 48"
        );
        // Random: reproducible, inside the set, and covers it.
        s.vary = Vary::Random { seed: 42 };
        let r1 = collect_tuples(&s, 1500);
        let r2 = collect_tuples(&s, 1500);
        assert_eq!(r1, r2, "same seed, same frames");
        assert_eq!(r1.iter().cloned().collect::<HashSet<_>>(), expected);
        s.vary = Vary::Random { seed: 43 };
        assert_ne!(collect_tuples(&s, 1500), r1);
    }
}

#[test]
fn ipv6_variation() {
    let mut s = spec(true, false, true, SizeSpec::Fixed(200));
    let first: Ipv6Addr = "2001:db8::ffff".parse().unwrap();
    s.ip = IpSpec::V6 {
        src: ValueSet::Range {
            first,
            last: "2001:db8::1:2".parse().unwrap(),
        },
        dst: ValueSet::List(vec![
            "2001:db8::a".parse().unwrap(),
            "2001:db8::b".parse().unwrap(),
        ]),
        traffic_class: 0,
        flow_label: 1,
        hop_limit: 1,
    };
    let t = collect_tuples(&s, 8);
    let set: HashSet<_> = t.iter().map(|x| (x.0.clone(), x.1.clone())).collect();
    assert_eq!(set.len(), 8);
    assert!(set.contains(&("2001:db8::1:2".to_string(), "2001:db8::b".to_string())));
}

#[test]
fn mac_sets_step_slowest_and_leave_every_checksum_right() {
    let mac = |t: &str| t.parse::<MacAddr>().unwrap();
    let srcs = ValueSet::Range {
        first: mac("02:00:00:00:ff:ff"),
        last: mac("02:00:00:01:00:01"),
    };
    let dsts = ValueSet::List(vec![mac("02:00:00:00:00:b2"), mac("02:00:00:00:00:a1")]);
    for (v6, tcp) in [(false, false), (false, true), (true, false), (true, true)] {
        let mut s = spec(v6, tcp, true, SizeSpec::Fixed(256));
        s.eth = EthAddrs {
            src: srcs.clone(),
            dst: dsts.clone(),
        };
        let ports = ValueSet::List(vec![9, 8]);
        s.l4 = match s.l4 {
            L4Spec::Udp { src_port, .. } => L4Spec::Udp {
                src_port,
                dst_port: ports,
            },
            L4Spec::Tcp {
                src_port,
                seq_start,
                ack,
                window,
                flags,
                ..
            } => L4Spec::Tcp {
                src_port,
                dst_port: ports,
                seq_start,
                ack,
                window,
                flags,
            },
        };
        let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        let mut buf = vec![0u8; b.max_len()];
        for k in 0..26u64 {
            let len = b.next_len();
            b.write(&mut buf, k, 0);
            let f = &buf[..len];
            // Destination port fastest (period 2), then the destination
            // MAC (period 4), then the source MAC (period 12).
            let i = k % 12;
            assert_eq!(
                MacAddr(f[0..6].try_into().unwrap()),
                dsts.nth(u128::from(i / 2 % 2)).unwrap()
            );
            assert_eq!(
                MacAddr(f[6..12].try_into().unwrap()),
                srcs.nth(u128::from(i / 4)).unwrap()
            );
            let p = SlicedPacket::from_ethernet(f).unwrap();
            let dport = match p.transport.unwrap() {
                TransportSlice::Udp(u) => u.destination_port(),
                TransportSlice::Tcp(t) => t.destination_port(),
                _ => unreachable!(),
            };
            assert_eq!(dport, [9, 8][(i % 2) as usize], "frame {k}");
            etherparse_check(f, &s);
            assert!(matches!(dissect(f), Dissected::Ours(_)));
        }
        // Random: inside the sets, and every pair drawn.
        s.vary = Vary::Random { seed: 7 };
        let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
        let mut seen = HashSet::new();
        for k in 0..400 {
            let len = b.next_len();
            b.write(&mut buf, k, 0);
            etherparse_check(&buf[..len], &s);
            seen.insert((buf[0..6].to_vec(), buf[6..12].to_vec()));
        }
        assert_eq!(seen.len(), 6);
    }
}

/// Builds `n` frames, checks them with etherparse, returns their 4-tuples.
fn collect_tuples(s: &StreamSpec, n: usize) -> Vec<(String, String, u16, u16)> {
    let mut b = FrameBuilder::new(s, CsumMode::Software).unwrap();
    let mut buf = vec![0u8; b.max_len()];
    let mut out = Vec::new();
    for i in 0..n {
        let len = b.next_len();
        b.write(&mut buf, i as u64, 0);
        let f = &buf[..len];
        etherparse_check(f, s);
        assert!(matches!(dissect(f), Dissected::Ours(_)));
        let p = SlicedPacket::from_ethernet(f).unwrap();
        let (sa, da) = match p.net.unwrap() {
            NetSlice::Ipv4(ip) => (
                ip.header().source_addr().to_string(),
                ip.header().destination_addr().to_string(),
            ),
            NetSlice::Ipv6(ip) => (
                ip.header().source_addr().to_string(),
                ip.header().destination_addr().to_string(),
            ),
            _ => unreachable!(),
        };
        let (sp, dp) = match p.transport.unwrap() {
            TransportSlice::Udp(u) => (u.source_port(), u.destination_port()),
            TransportSlice::Tcp(t) => (t.source_port(), t.destination_port()),
            _ => unreachable!(),
        };
        out.push((sa, da, sp, dp));
    }
    out
}

#[test]
fn reprs_round_trip_through_etherparse() {
    // Hand-assembled IPv4/TCP and IPv6/UDP packets from the Reprs.
    let mut f = vec![0u8; 14 + 20 + 20 + 5];
    let e = super::ethernet::EthernetRepr {
        dst: MacAddr([2, 0, 0, 0, 0, 2]),
        src: MacAddr([2, 0, 0, 0, 0, 1]),
        ethertype: 0x0800,
    };
    e.emit(&mut EthernetFrame::new_unchecked(&mut f[..]));
    let ip = Ipv4Repr {
        src: Ipv4Addr::new(1, 2, 3, 4),
        dst: Ipv4Addr::new(5, 6, 7, 8),
        protocol: 6,
        payload_len: 25,
        dscp: 10,
        ecn: 2,
        ttl: 9,
        ident: 0xBEEF,
        dont_fragment: false,
    };
    ip.emit(&mut Ipv4Packet::new_unchecked(&mut f[14..]), true);
    let t = TcpRepr {
        src_port: 1,
        dst_port: 2,
        seq: 3,
        ack: 4,
        flags: TcpFlags::ACK,
        window: 5,
    };
    f[54..].copy_from_slice(b"hello");
    let mut tp = TcpPacket::new_unchecked(&mut f[34..]);
    t.emit(&mut tp);
    tp.fill_checksum(checksum::pseudo_v4(ip.src, ip.dst, 6, 25));
    let p = SlicedPacket::from_ethernet(&f).unwrap();
    let Some(NetSlice::Ipv4(i)) = &p.net else {
        panic!()
    };
    assert_eq!(
        i.header().header_checksum(),
        i.header().to_header().calc_header_checksum()
    );
    assert_eq!(i.header().identification(), 0xBEEF);
    let Some(TransportSlice::Tcp(ts)) = &p.transport else {
        panic!()
    };
    assert_eq!(
        ts.checksum(),
        ts.calc_checksum_ipv4([1, 2, 3, 4], [5, 6, 7, 8]).unwrap()
    );
    assert_eq!(ts.payload(), b"hello");
    let ip2 = Ipv4Repr::parse(&Ipv4Packet::new_checked(&f[14..]).unwrap(), true).unwrap();
    assert_eq!(ip2, ip);
    assert_eq!(
        TcpRepr::parse(&TcpPacket::new_checked(&f[34..]).unwrap()).unwrap(),
        t
    );
    assert!(TcpPacket::new_checked(&f[34..])
        .unwrap()
        .verify_checksum(checksum::pseudo_v4(ip.src, ip.dst, 6, 25)));

    let mut g = vec![0u8; 18 + 40 + 8 + 3];
    super::ethernet::EthernetRepr {
        ethertype: 0x8100,
        ..e
    }
    .emit(&mut EthernetFrame::new_unchecked(&mut g[..]));
    super::ethernet::VlanRepr {
        pcp: 1,
        dei: false,
        vid: 4094,
        ethertype: 0x86DD,
    }
    .emit(&mut VlanTag::new_unchecked(&mut g[14..]));
    let ip6 = Ipv6Repr {
        src: "fe80::1".parse().unwrap(),
        dst: "ff02::1".parse().unwrap(),
        next_header: 17,
        payload_len: 11,
        traffic_class: 3,
        flow_label: 0xFFFFF,
        hop_limit: 255,
    };
    ip6.emit(&mut Ipv6Packet::new_unchecked(&mut g[18..]));
    g[66..].copy_from_slice(&[0xFF, 0xFF, 0xFF]);
    let mut up = UdpPacket::new_unchecked(&mut g[58..]);
    UdpRepr {
        src_port: 546,
        dst_port: 547,
        payload_len: 3,
    }
    .emit(&mut up);
    up.fill_checksum(checksum::pseudo_v6(&ip6.src, &ip6.dst, 17, 11));
    let p = SlicedPacket::from_ethernet(&g).unwrap();
    let Some(TransportSlice::Udp(us)) = &p.transport else {
        panic!()
    };
    let want = us
        .to_header()
        .calc_checksum_ipv6_raw(ip6.src.octets(), ip6.dst.octets(), us.payload())
        .unwrap();
    assert_eq!(us.checksum(), want);
    assert_eq!(
        Ipv6Repr::parse(&Ipv6Packet::new_checked(&g[18..]).unwrap()).unwrap(),
        ip6
    );
}

/// Every single-bit flip of a short frame, on every stack, with compact
/// and full stamps, with and without a fill, of odd and even lengths, is
/// caught by the check that covers the flipped bit (the L4 checksum
/// reuses the verified stamp's sum, so a flip in the L4 header must still
/// fail it); only the bits no check covers (MAC addresses, IPv6 traffic
/// class, flow label and hop limit, a UDP/IPv4 checksum flipped to "none")
/// leave the frame intact.
#[test]
fn every_bit_flip_of_a_short_frame_is_caught_by_its_check() {
    for v6 in [false, true] {
        for tcp in [false, true] {
            let probe = spec(v6, tcp, false, SizeSpec::Fixed(200));
            let hdr = FrameBuilder::new(&probe, CsumMode::Software)
                .unwrap()
                .stamp_offset();
            for payload in [18usize, 19, 24, 31, 32, 33, 90] {
                let s = spec(v6, tcp, false, SizeSpec::Fixed(hdr + payload + 4));
                let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
                let mut f = vec![0u8; b.max_len()];
                let len = b.write(&mut f, 0x1234_5678, 0xAB_CDEF);
                f.truncate(len);
                assert_eq!(len, hdr + payload);
                assert!(matches!(dissect(&f), Dissected::Ours(_)));
                let l3 = b.l2_len();
                let l4 = l3 + if v6 { 40 } else { 20 };
                let layout = StampLayout::for_payload(payload).unwrap();
                let ctx = format!("v6 {v6} tcp {tcp} payload {payload}");
                for pos in 0..len {
                    for bit in 0..8 {
                        let mut g = f.clone();
                        g[pos] ^= 1 << bit;
                        let d = dissect(&g);
                        let unchecked = pos < 12
                            || (v6 && pos == l3 + 7)
                            || (v6 && (l3..l3 + 4).contains(&pos) && !(pos == l3 && bit >= 4))
                            || (!v6
                                && !tcp
                                && (pos == l4 + 6 || pos == l4 + 7)
                                && g[l4 + 6..l4 + 8] == [0, 0]);
                        if unchecked {
                            assert!(
                                matches!(d, Dissected::Ours(_)),
                                "{ctx} byte {pos} bit {bit}: {d:?}"
                            );
                            continue;
                        }
                        let want = if pos >= hdr + layout.len() {
                            Some(match layout {
                                StampLayout::Full => CorruptReason::FillChecksum,
                                StampLayout::Compact => CorruptReason::StampCheck,
                            })
                        } else if pos >= hdr + 3 {
                            Some(CorruptReason::StampCheck)
                        } else if (l4..l4 + 4).contains(&pos) {
                            // The ports: only the L4 checksum covers them.
                            Some(CorruptReason::L4Checksum)
                        } else {
                            None
                        };
                        match want {
                            Some(r) => assert!(
                                matches!(d, Dissected::Corrupt { reason, .. } if reason == r),
                                "{ctx} byte {pos} bit {bit}: want {r:?}, got {d:?}"
                            ),
                            None => assert!(
                                !matches!(d, Dissected::Ours(_)),
                                "{ctx} byte {pos} bit {bit}: taken as intact"
                            ),
                        }
                    }
                }
                // With the fill's own check off, the L4 checksum alone
                // still catches a flip in the fill of a full stamp.
                if layout == StampLayout::Full && payload > 32 {
                    let mut g = f.clone();
                    g[len - 1] ^= 0x80;
                    let o = DissectOptions {
                        verify_fill: false,
                        ..DissectOptions::default()
                    };
                    assert!(
                        matches!(
                            dissect_with(&g, &o),
                            Dissected::Corrupt {
                                reason: CorruptReason::L4Checksum,
                                ..
                            }
                        ),
                        "{ctx}"
                    );
                }
            }
        }
    }
}

#[test]
fn udp_checksum_zero_becomes_ffff() {
    // Search payloads until the computed checksum is 0: it must be sent as 0xFFFF.
    let a: Ipv6Addr = "2001:db8::1".parse().unwrap();
    let ps = checksum::pseudo_v6(&a, &a, 17, 10);
    for x in 0..=u16::MAX {
        let mut d = [0u8; 10];
        d[0..2].copy_from_slice(&1u16.to_be_bytes());
        d[2..4].copy_from_slice(&2u16.to_be_bytes());
        d[4..6].copy_from_slice(&10u16.to_be_bytes());
        d[8..10].copy_from_slice(&x.to_be_bytes());
        if checksum::finish(checksum::add(ps, checksum::sum(&d))) == 0 {
            let mut p = UdpPacket::new_unchecked(&mut d[..]);
            p.fill_checksum(ps);
            assert_eq!(p.checksum(), 0xFFFF);
            assert!(UdpPacket::new_checked(&d[..])
                .unwrap()
                .verify_checksum(ps, false));
            return;
        }
    }
    panic!("no zero-checksum payload found");
}

#[test]
fn never_panics_on_random_bytes_or_truncations() {
    let mut rng = SplitMix64::new(0xF00D);
    let mut frames = Vec::new();
    for v6 in [false, true] {
        for tcp in [false, true] {
            for vlan in [false, true] {
                for size in [SizeSpec::Fixed(200), SizeSpec::Imix] {
                    let s = spec(v6, tcp, vlan, size);
                    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
                    for i in 0..2 {
                        let len = b.next_len();
                        let mut f = vec![0u8; len];
                        b.write(&mut f, i, i);
                        frames.push(f);
                    }
                }
            }
        }
    }
    for f in &frames {
        assert!(matches!(dissect(f), Dissected::Ours(_)));
        for cut in 0..f.len() {
            let d = dissect(&f[..cut]);
            assert!(
                !matches!(d, Dissected::Ours(_)),
                "truncated to {cut}: {d:?}"
            );
            poke_all_parsers(&f[..cut]);
        }
        // Random single-byte corruptions anywhere: never Ours unless the byte is unchanged.
        for _ in 0..300 {
            let mut g = f.clone();
            let pos = (rng.next_u64() as usize) % g.len();
            let x = (rng.next_u64() as u8) | 1;
            g[pos] ^= x;
            let d = dissect(&g);
            // MACs, the VLAN TCI and (IPv6) traffic class, flow label and
            // hop limit are not covered by any checksum.
            let l3 = if f[12] == 0x81 { 18 } else { 14 };
            let v6 = f[l3] >> 4 == 6;
            let uncovered = (l3 == 18 && (14..16).contains(&pos))
                || (v6 && ((l3..l3 + 4).contains(&pos) || pos == l3 + 7));
            if pos >= 12 && !uncovered {
                assert!(
                    !matches!(d, Dissected::Ours(_)),
                    "corruption at {pos} undetected"
                );
            }
            poke_all_parsers(&g);
        }
    }
    for _ in 0..20000 {
        let n = (rng.next_u64() % 300) as usize;
        let mut g: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        // Make many of them look like IP/UDP/TCP with our magic to go deeper.
        if n > 60 && rng.next_u64() & 1 == 0 {
            g[12..14].copy_from_slice(&[0x08, 0x00]);
            g[14] = 0x45;
            g[23] = if rng.next_u64() & 1 == 0 { 17 } else { 6 };
            g[42..44].copy_from_slice(&[0x4C, 0x53]);
        }
        let _ = dissect(&g);
        let _ = dissect_with(
            &g,
            &DissectOptions {
                verify_ip: false,
                verify_l4: false,
                verify_fill: false,
            },
        );
        poke_all_parsers(&g);
    }
}

fn poke_all_parsers(b: &[u8]) {
    if let Ok(e) = EthernetFrame::new_checked(b) {
        let _ = super::ethernet::EthernetRepr::parse(&e);
    }
    if let Ok(t) = VlanTag::new_checked(b) {
        let _ = super::ethernet::VlanRepr::parse(&t);
    }
    for off in [0usize, 14, 18] {
        let Some(x) = b.get(off..) else { continue };
        if let Ok(p) = Ipv4Packet::new_checked(x) {
            let _ = Ipv4Repr::parse(&p, true);
            let _ = p.payload();
        }
        if let Ok(p) = Ipv6Packet::new_checked(x) {
            let _ = Ipv6Repr::parse(&p);
            let _ = p.payload();
        }
        if let Ok(p) = UdpPacket::new_checked(x) {
            let _ = UdpRepr::parse(&p);
            let _ = p.payload();
            let _ = p.verify_checksum(0, true);
        }
        if let Ok(p) = TcpPacket::new_checked(x) {
            let _ = TcpRepr::parse(&p);
            let _ = p.payload();
        }
        let _ = Stamp::parse(x);
        let mut y = x.to_vec();
        let _ = Stamp::patch_tsc(&mut y, 1);
    }
}

/// A frame of the TX fast path (headers from the template, `write_head`,
/// the fill copied, stamped with `stamp_tx_tsc`) that the PMD refused and
/// that is sent again (patched with `patch_tx_tsc` from the stamp it
/// holds) carries the second TSC with every checksum right: etherparse
/// verifies the IPv4 and L4 checksums, the stamp parses with its check,
/// and the bytes are `write`'s with that TSC, for every stack and both
/// stamp layouts. The 64-byte IPv4/UDP frame's stamp, byte for byte.
#[test]
fn a_refused_frame_stamped_again_is_whole() {
    use super::builder::TxTsc;
    let (first, again) = (0x0011_2233_4455_6677u64, 0x00FF_EEDD_CCBB_AA99u64);
    for v6 in [false, true] {
        for tcp in [false, true] {
            for vlan in [false, true] {
                for size in [64, 128, 1518] {
                    let s = spec(v6, tcp, vlan, SizeSpec::Fixed(size));
                    let size = size.max(s.min_frame_size());
                    let s = spec(v6, tcp, vlan, SizeSpec::Fixed(size));
                    let mut old = FrameBuilder::new(&s, CsumMode::Software).unwrap();
                    let mut fast = old.clone();
                    let mut buf = vec![0xA5u8; fast.max_len()];
                    fast.init_head(&mut buf);
                    for seq in [0u64, 1, 0x1234_5678_9ABC] {
                        let len = old.next_len();
                        let mut want = vec![0u8; len];
                        old.write(&mut want, seq, again);
                        let p = fast.plan(seq);
                        fast.write_head(&mut buf, seq, &p);
                        fast.write_fill(&mut buf, seq, &p);
                        let f = &mut buf[..p.len];
                        fast.stamp_tx_tsc(f, seq, &TxTsc::new(first));
                        let st = Stamp::parse(&etherparse_check(f, &s).payload).unwrap();
                        assert_eq!(st.tx_tsc, truncated(first, st.layout.tsc_bits()));
                        fast.patch_tx_tsc(f, again);
                        let seen = etherparse_check(f, &s);
                        let st = Stamp::parse(&seen.payload).unwrap();
                        assert_eq!(st.tx_tsc, truncated(again, st.layout.tsc_bits()));
                        assert_eq!(st.seq, truncated(seq, st.layout.seq_bits()));
                        let layout = if p.len - fast.stamp_offset() >= 32 {
                            StampLayout::Full
                        } else {
                            StampLayout::Compact
                        };
                        assert_eq!(st.layout, layout, "{size}");
                        assert_eq!(
                            f,
                            &want[..],
                            "v6 {v6} tcp {tcp} vlan {vlan} {size} seq {seq}"
                        );
                        if (v6, tcp, vlan, size, seq) == (false, false, false, 64, 1) {
                            // Magic, format, id 7, sequence 1, the TSC's
                            // low 40 bits, the check; UDP checksum.
                            assert_eq!(
                                f[42..],
                                [
                                    0x4C, 0x53, 0x12, 0x00, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00,
                                    0x01, 0xDD, 0xCC, 0xBB, 0xAA, 0x99, 0x21, 0x7A
                                ]
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Every set of checks the dissector can be asked for.
fn all_options() -> Vec<DissectOptions> {
    let mut v = Vec::new();
    for verify_ip in [false, true] {
        for verify_l4 in [false, true] {
            for verify_fill in [false, true] {
                v.push(DissectOptions {
                    verify_ip,
                    verify_l4,
                    verify_fill,
                });
            }
        }
    }
    v
}

/// The one-pass check of intact IPv4/UDP frames answers what the
/// layer-by-layer walk answers: on frames of every stack (the one-pass
/// check takes only untagged IPv4/UDP), compact and full stamps, odd and
/// even lengths, with every byte of the headers and stamp and the fill's
/// ends set to four other values, cut at every length and padded, under
/// every set of checks. A frame the check takes wrongly, or refuses where
/// the walk finds it intact, fails here.
#[test]
fn the_one_pass_check_and_the_walk_agree_on_every_damaged_frame() {
    let options = all_options();
    let agree = |g: &[u8], ctx: &dyn Fn() -> String| {
        for o in &options {
            assert_eq!(dissect_with(g, o), dissect_walk(g, o), "{} {o:?}", ctx());
        }
    };
    for (v6, tcp, vlan) in [
        (false, false, false),
        (false, false, true),
        (false, true, false),
        (true, false, false),
    ] {
        let probe = spec(v6, tcp, vlan, SizeSpec::Fixed(200));
        let hdr = FrameBuilder::new(&probe, CsumMode::Software)
            .unwrap()
            .stamp_offset();
        for payload in [18usize, 19, 24, 31, 32, 33, 90, 1475] {
            let s = spec(v6, tcp, vlan, SizeSpec::Fixed(hdr + payload + 4));
            let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
            let mut f = vec![0u8; b.max_len()];
            let len = b.write(&mut f, 0x1234_5678, 0xAB_CDEF);
            f.truncate(len);
            let ctx = format!("v6 {v6} tcp {tcp} vlan {vlan} payload {payload}");
            assert!(matches!(dissect(&f), Dissected::Ours(_)), "{ctx}");
            agree(&f, &|| ctx.clone());
            let mut positions: Vec<usize> = (0..(hdr + 40).min(len)).collect();
            positions.extend(len.saturating_sub(8)..len);
            for &pos in &positions {
                for v in [0x00, 0xFF, f[pos] ^ 0x01, f[pos] ^ 0x80] {
                    let mut g = f.clone();
                    g[pos] = v;
                    agree(&g, &|| format!("{ctx} byte {pos} = {v:#04x}"));
                }
            }
            for cut in 0..len {
                agree(&f[..cut], &|| format!("{ctx} cut to {cut}"));
            }
            let mut padded = f.clone();
            padded.extend_from_slice(&[0u8; 17]);
            agree(&padded, &|| format!("{ctx} padded"));
        }
    }
}
