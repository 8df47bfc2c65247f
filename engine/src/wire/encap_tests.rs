//! Encapsulated frames (QinQ, MPLS, VXLAN, GRE) from the builder, checked
//! by hand for the encapsulation's bytes and by etherparse (an independent
//! parser) for every IP header, length and checksum, outer and inner; then
//! read back by the dissector, intact and damaged.

use std::net::{Ipv4Addr, Ipv6Addr};

use etherparse::{NetSlice, SlicedPacket, TransportSlice};

use super::builder::{CsumMode, FrameBuilder};
use super::dissect::{dissect, dissect_walk, CorruptReason, DissectOptions, Dissected};
use super::mpls::MplsLabel;
use super::spec::{
    Encap, EthSpec, IpSpec, L4Spec, OuterIp, SizeSpec, StreamSpec, Tunnel, ValueSet, VlanSpec,
};
use super::tcp::TcpFlags;
use super::tests::{tcp_checksum, udp_checksum};
use super::MacAddr;

/// The encapsulations under test.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Qinq,
    Mpls,
    VxlanV4,
    VxlanV6,
    GreV4,
    GreV6KeySeq,
    /// Two labels, then VXLAN over IPv4.
    MplsVxlan,
}

const KINDS: [Kind; 7] = [
    Kind::Qinq,
    Kind::Mpls,
    Kind::VxlanV4,
    Kind::VxlanV6,
    Kind::GreV4,
    Kind::GreV6KeySeq,
    Kind::MplsVxlan,
];

/// The two labels of [`Kind::Mpls`] and [`Kind::MplsVxlan`].
fn labels() -> Vec<MplsLabel> {
    vec![
        MplsLabel {
            label: 16,
            tc: 1,
            ttl: 9,
        },
        MplsLabel {
            label: 0xF_FFFF,
            tc: 7,
            ttl: 255,
        },
    ]
}

const OUTER_V4: OuterIp = OuterIp::V4 {
    src: Ipv4Addr::new(192, 0, 2, 1),
    dst: Ipv4Addr::new(192, 0, 2, 2),
    dscp: 10,
    ttl: 33,
};

fn outer_v6() -> OuterIp {
    OuterIp::V6 {
        src: "2001:db8:ffff::1".parse().unwrap(),
        dst: "2001:db8:ffff::2".parse().unwrap(),
        traffic_class: 0x20,
        hop_limit: 17,
    }
}

const INNER_ETH: EthSpec = EthSpec {
    src: MacAddr([0x02, 0, 0, 0, 0xAA, 1]),
    dst: MacAddr([0x02, 0, 0, 0, 0xAA, 2]),
};

/// A stream of `kind` over IPv6 or IPv4, TCP or UDP, with one VLAN tag,
/// frames of `sizes`; address ranges when `ranges`.
fn spec(kind: Kind, v6: bool, tcp: bool, ranges: bool, sizes: &[usize]) -> StreamSpec {
    let mut s = StreamSpec {
        id: 77,
        vlan: Some(VlanSpec {
            id: 300,
            pcp: 2,
            dei: false,
        }),
        size: SizeSpec::Cycle(sizes.to_vec()),
        ..StreamSpec::default()
    };
    if v6 {
        let a: Ipv6Addr = "2001:db8::10".parse().unwrap();
        s.ip = IpSpec::V6 {
            src: if ranges {
                ValueSet::Range {
                    first: a,
                    last: "2001:db8::12".parse().unwrap(),
                }
            } else {
                ValueSet::Single(a)
            },
            dst: ValueSet::Single("2001:db8:1::20".parse().unwrap()),
            traffic_class: 0,
            flow_label: 5,
            hop_limit: 60,
        };
    } else if ranges {
        s.ip = IpSpec::V4 {
            src: ValueSet::Single(Ipv4Addr::new(198, 18, 0, 1)),
            dst: ValueSet::Range {
                first: Ipv4Addr::new(198, 19, 0, 1),
                last: Ipv4Addr::new(198, 19, 0, 3),
            },
            dscp: 0,
            ecn: 0,
            ttl: 64,
            dont_fragment: true,
        };
    }
    if tcp {
        s.l4 = L4Spec::Tcp {
            src_port: ValueSet::Single(40000),
            dst_port: ValueSet::Single(5201),
            seq_start: 1,
            ack: 2,
            window: 3,
            flags: TcpFlags::ACK,
        };
    }
    match kind {
        Kind::Qinq => {
            s.qinq = Some(VlanSpec {
                id: 4000,
                pcp: 7,
                dei: true,
            })
        }
        Kind::Mpls => s.encap.mpls = labels(),
        Kind::VxlanV4 | Kind::VxlanV6 | Kind::MplsVxlan => {
            if kind == Kind::MplsVxlan {
                s.encap.mpls = labels();
            }
            s.encap.tunnel = Some(Tunnel::Vxlan {
                outer: if kind == Kind::VxlanV6 {
                    outer_v6()
                } else {
                    OUTER_V4
                },
                vni: 0xAB_CDEF,
                src_port: 50000,
                dst_port: 4789,
                inner: INNER_ETH,
            })
        }
        Kind::GreV4 => {
            s.encap.tunnel = Some(Tunnel::Gre {
                outer: OUTER_V4,
                key: None,
                sequence: false,
            })
        }
        Kind::GreV6KeySeq => {
            s.encap.tunnel = Some(Tunnel::Gre {
                outer: outer_v6(),
                key: Some(0xDEAD_BEEF),
                sequence: true,
            })
        }
    }
    s
}

/// The stamped packet of `ip` (its IP header first) checked by etherparse:
/// lengths, the IPv4 header checksum, the L4 checksum.
fn check_ip_packet(ip: &[u8], what: &str) {
    let p = SlicedPacket::from_ip(ip).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (src, dst): (Vec<u8>, Vec<u8>) = match p.net.as_ref().unwrap() {
        NetSlice::Ipv4(v4) => {
            let h = v4.header();
            assert_eq!(usize::from(h.total_len()), ip.len(), "{what}");
            assert_eq!(
                h.header_checksum(),
                h.to_header().calc_header_checksum(),
                "{what}"
            );
            (h.source().to_vec(), h.destination().to_vec())
        }
        NetSlice::Ipv6(v6) => {
            let h = v6.header();
            assert_eq!(usize::from(h.payload_length()) + 40, ip.len(), "{what}");
            (h.source().to_vec(), h.destination().to_vec())
        }
        _ => panic!("{what}: not IP"),
    };
    match p.transport.as_ref().unwrap() {
        TransportSlice::Udp(u) => {
            assert_eq!(
                u.checksum(),
                udp_checksum(u, &src, &dst),
                "{what}: udp checksum"
            );
        }
        TransportSlice::Tcp(t) => {
            assert_eq!(
                t.checksum(),
                tcp_checksum(t, &src, &dst),
                "{what}: tcp checksum"
            );
        }
        _ => panic!("{what}: not UDP or TCP"),
    }
}

/// Checks frame `f` of stream `s` (`kind`), sequence `seq`, byte by byte
/// where the encapsulation is ours to define and through etherparse for
/// every IP layer.
fn check_frame(kind: Kind, s: &StreamSpec, f: &[u8], seq: u64, what: &str) {
    assert_eq!(&f[0..6], &s.eth.first().dst.0, "{what}");
    assert_eq!(&f[6..12], &s.eth.first().src.0, "{what}");
    let inner_type: [u8; 2] = match s.ip {
        IpSpec::V4 { .. } => [0x08, 0x00],
        IpSpec::V6 { .. } => [0x86, 0xDD],
    };
    let mut at = 12;
    if kind == Kind::Qinq {
        // 802.1ad, PCP 7 DEI 1 VID 4000, then the 802.1Q tag.
        assert_eq!(&f[12..16], &[0x88, 0xA8, 0xFF, 0xA0], "{what}");
        at = 16;
    }
    // The 802.1Q tag: PCP 2, VID 300.
    assert_eq!(&f[at..at + 4], &[0x81, 0x00, 0x41, 0x2C], "{what}");
    at += 4;
    let mut ethertype = [f[at], f[at + 1]];
    at += 2;
    if kind == Kind::MplsVxlan {
        assert_eq!(ethertype, [0x88, 0x47], "{what}");
        assert_eq!(
            &f[at..at + 8],
            &[0x00, 0x01, 0x02, 9, 0xFF, 0xFF, 0xFF, 255],
            "{what}"
        );
        at += 8;
        ethertype = [0x08, 0x00];
    }
    match kind {
        Kind::Qinq => {
            assert_eq!(ethertype, inner_type, "{what}");
            check_ip_packet(&f[at..], what);
        }
        Kind::Mpls => {
            assert_eq!(ethertype, [0x88, 0x47], "{what}");
            // 16 TC 1 TTL 9; 0xFFFFF TC 7 bottom TTL 255.
            assert_eq!(
                &f[at..at + 8],
                &[0x00, 0x01, 0x02, 9, 0xFF, 0xFF, 0xFF, 255],
                "{what}"
            );
            check_ip_packet(&f[at + 8..], what);
        }
        Kind::VxlanV4 | Kind::VxlanV6 | Kind::GreV4 | Kind::GreV6KeySeq | Kind::MplsVxlan => {
            let outer = &f[at..];
            let p = SlicedPacket::from_ip(outer).unwrap_or_else(|e| panic!("{what}: {e}"));
            let (proto, payload, pseudo): (u8, &[u8], (Vec<u8>, Vec<u8>)) =
                match p.net.as_ref().unwrap() {
                    NetSlice::Ipv4(v4) => {
                        let h = v4.header();
                        assert_eq!(ethertype, [0x08, 0x00], "{what}");
                        assert_eq!(usize::from(h.total_len()), outer.len(), "{what}");
                        let calc = h.to_header().calc_header_checksum();
                        assert_eq!(h.header_checksum(), calc, "{what}");
                        assert_eq!((h.ttl(), h.dcp().value()), (33, 10), "{what}");
                        assert!(h.dont_fragment(), "{what}");
                        assert_eq!(h.source(), [192, 0, 2, 1], "{what}");
                        (
                            h.protocol().0,
                            &outer[20..],
                            (h.source().to_vec(), h.destination().to_vec()),
                        )
                    }
                    NetSlice::Ipv6(v6) => {
                        let h = v6.header();
                        assert_eq!(ethertype, [0x86, 0xDD], "{what}");
                        assert_eq!(usize::from(h.payload_length()) + 40, outer.len());
                        assert_eq!((h.hop_limit(), h.traffic_class()), (17, 0x20));
                        (
                            h.next_header().0,
                            &outer[40..],
                            (h.source().to_vec(), h.destination().to_vec()),
                        )
                    }
                    _ => panic!("{what}: outer not IP"),
                };
            if matches!(kind, Kind::VxlanV4 | Kind::VxlanV6 | Kind::MplsVxlan) {
                assert_eq!(proto, 17, "{what}");
                let Some(TransportSlice::Udp(u)) = p.transport.as_ref() else {
                    panic!("{what}: outer not UDP")
                };
                assert_eq!((u.source_port(), u.destination_port()), (50000, 4789));
                assert_eq!(usize::from(u.length()), payload.len(), "{what}");
                let want = udp_checksum(u, &pseudo.0, &pseudo.1);
                assert_ne!(u.checksum(), 0, "{what}");
                assert_eq!(u.checksum(), want, "{what}: the outer UDP checksum");
                let v = &payload[8..];
                // I flag, VNI 0xABCDEF, reserved 0.
                assert_eq!(&v[..8], &[0x08, 0, 0, 0, 0xAB, 0xCD, 0xEF, 0], "{what}");
                let eth = &v[8..22];
                assert_eq!(&eth[..6], &INNER_ETH.dst.0, "{what}");
                assert_eq!(&eth[6..12], &INNER_ETH.src.0, "{what}");
                assert_eq!(&eth[12..14], &inner_type, "{what}");
                check_ip_packet(&v[22..], what);
            } else {
                assert_eq!(proto, 47, "{what}");
                let mut want = vec![0u8, 0, inner_type[0], inner_type[1]];
                if kind == Kind::GreV6KeySeq {
                    want[0] = 0x30; // K and S
                    want.extend_from_slice(&0xDEAD_BEEFu32.to_be_bytes());
                    want.extend_from_slice(&(seq as u32).to_be_bytes());
                }
                assert_eq!(&payload[..want.len()], &want[..], "{what}");
                check_ip_packet(&payload[want.len()..], what);
            }
        }
    }
}

/// Every encapsulation, on every stack, at the smallest size, 64, 1518
/// and 9130 bytes, single-flow and with ranges, written by both builder
/// paths: the same bytes, right to the byte and to every checksum, and
/// the dissector reads each frame back as intact with its id and sequence.
#[test]
fn every_encapsulation_is_written_right_and_read_back() {
    for kind in KINDS {
        for (v6, tcp, ranges) in [
            (false, false, false),
            (true, true, false),
            (false, true, true),
            (true, false, true),
        ] {
            let probe = spec(kind, v6, tcp, ranges, &[9130]);
            let min = probe.min_frame_size();
            let sizes: Vec<usize> = [min, 64, 1518, 9130]
                .into_iter()
                .filter(|&s| s >= min)
                .collect();
            let s = spec(kind, v6, tcp, ranges, &sizes);
            let mut general = FrameBuilder::new(&s, CsumMode::Software).unwrap();
            // Offload is not used with a tunnel: its checksums are the builder's.
            let mut fast = FrameBuilder::new(&s, CsumMode::Offload).unwrap();
            let tunnel = s.encap.tunnel.is_some();
            assert_eq!(fast.csum_mode() == CsumMode::Software, tunnel, "{kind:?}");
            if !tunnel {
                fast = FrameBuilder::new(&s, CsumMode::Software).unwrap();
            }
            for seq in 0..(2 * sizes.len() as u64 + 3) {
                let what = format!("{kind:?} v6 {v6} tcp {tcp} ranges {ranges} seq {seq}");
                let len = general.next_len();
                let mut a = vec![0u8; len];
                assert_eq!(general.write(&mut a, seq, 0), len);
                let p = fast.plan(seq);
                let mut b = vec![0u8; p.len];
                fast.init_head(&mut b);
                fast.write_head(&mut b, seq, &p);
                fast.write_fill(&mut b, seq, &p);
                assert_eq!(a, b, "{what}: both paths");
                check_frame(kind, &s, &a, seq, &what);
                match dissect(&a) {
                    Dissected::Ours(o) => {
                        assert_eq!((o.stream_id, o.seq), (77, seq), "{what}");
                        assert_eq!((o.is_ipv6, o.is_tcp, o.vlan), (v6, tcp, Some(300)));
                        assert_eq!(o.payload_len, len - s.header_len(), "{what}");
                    }
                    d => panic!("{what}: {d:?}"),
                }
                // The TSC patched at departure keeps every checksum right.
                fast.patch_tx_tsc(&mut b, 0x1234_5678_9ABC);
                check_frame(kind, &s, &b, seq, &what);
                assert!(matches!(dissect(&b), Dissected::Ours(_)), "{what}");
            }
        }
    }
}

/// The reason a damaged tunnelled frame is counted under, with its ids.
fn reason(d: Dissected) -> CorruptReason {
    match d {
        Dissected::Corrupt {
            reason,
            stream_id: Some(77),
            seq: Some(5),
        } => reason,
        d => panic!("not corrupt with its ids: {d:?}"),
    }
}

/// A frame of `kind` (IPv4/UDP inside), 1518 bytes, sequence 5.
fn one(kind: Kind) -> (StreamSpec, Vec<u8>) {
    let s = spec(kind, false, false, false, &[1518]);
    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
    let mut f = vec![0u8; b.next_len()];
    b.write(&mut f, 5, 9);
    (s, f)
}

/// Damage to an outer header is counted corrupt under the reason of the
/// field it hit, with the stream and sequence the stamp carries; damage
/// inside, under the inner packet's.
#[test]
fn damage_outside_and_inside_a_tunnel_is_named() {
    // Offsets: Ethernet and one tag (18), outer IPv4 (20), UDP (8).
    let (_, f) = one(Kind::VxlanV4);
    let at = |i: usize| {
        let mut g = f.clone();
        g[i] ^= 0x01;
        g
    };
    assert_eq!(
        reason(dissect(&at(18 + 8))),
        CorruptReason::IpChecksum,
        "TTL"
    );
    assert_eq!(
        reason(dissect(&at(38))),
        CorruptReason::L4Checksum,
        "UDP source port"
    );
    assert_eq!(
        reason(dissect(&at(38 + 5))),
        CorruptReason::Length,
        "UDP length"
    );
    // The inner Ethernet source, covered by the outer UDP checksum alone.
    assert_eq!(reason(dissect(&at(38 + 16 + 7))), CorruptReason::L4Checksum);
    // The inner IPv4 TTL, the inner UDP port, the fill.
    let inner = 38 + 16 + 14;
    assert_eq!(reason(dissect(&at(inner + 8))), CorruptReason::IpChecksum);
    assert_eq!(reason(dissect(&at(inner + 21))), CorruptReason::L4Checksum);
    assert_eq!(reason(dissect(&at(1400))), CorruptReason::FillChecksum);
    // A NIC that passed the outer checksums does not spare the inner ones.
    let trusting = DissectOptions {
        verify_ip: false,
        verify_l4: false,
        verify_fill: true,
    };
    assert_eq!(
        reason(dissect_walk(&at(inner + 21), &trusting)),
        CorruptReason::L4Checksum
    );
    assert!(matches!(
        dissect_walk(&at(38), &trusting),
        Dissected::Ours(_)
    ));
    // A VNI or flag the header does not allow: the I flag cleared is not
    // VXLAN; a zero outer UDP checksum is none carried.
    let mut g = f.clone();
    g[38 + 8] = 0;
    assert_eq!(dissect(&g), Dissected::Foreign);
    let mut g = f.clone();
    g[38 + 6..38 + 8].fill(0);
    assert!(matches!(dissect(&g), Dissected::Ours(_)));

    let (_, f) = one(Kind::GreV4);
    let mut g = f.clone();
    g[18 + 8] ^= 1;
    assert_eq!(
        reason(dissect(&g)),
        CorruptReason::IpChecksum,
        "GRE outer TTL"
    );
    let mut g = f.clone();
    g[38] = 0x01; // a GRE version 1 header (PPTP) is not ours
    assert_eq!(dissect(&g), Dissected::Foreign);

    let (_, f) = one(Kind::Mpls);
    let mut g = f.clone();
    g[18 + 8 + 8] ^= 1; // the inner TTL
    assert_eq!(reason(dissect(&g)), CorruptReason::IpChecksum);
    // A stack without its bottom within 8 labels, or a payload that is
    // not IP, is foreign.
    let mut g = f.clone();
    g[18 + 6] &= !0x01;
    assert_eq!(dissect(&g), Dissected::Foreign);
    let mut g = f.clone();
    g[18 + 8] = 0x00;
    assert_eq!(dissect(&g), Dissected::Foreign);
}

/// Every truncation of every kind of encapsulated frame is classified
/// without a panic, never as intact.
#[test]
fn truncated_encapsulated_frames_are_never_ours() {
    for kind in KINDS {
        let (_, f) = one(kind);
        for n in 0..f.len() {
            let d = dissect(&f[..n]);
            assert!(!matches!(d, Dissected::Ours(_)), "{kind:?} at {n}: {d:?}");
        }
    }
}

/// The spec's refusals name the field.
#[test]
fn bad_encapsulations_are_refused_with_the_field() {
    let err = |s: StreamSpec| s.validate().unwrap_err().to_string();
    let mut s = spec(Kind::Mpls, false, false, false, &[1518]);
    s.encap.mpls[1].label = 1 << 20;
    assert_eq!(
        err(s.clone()),
        "mpls[1].label: label 1048576 is not in 0..=1048575"
    );
    s.encap.mpls = vec![
        MplsLabel {
            label: 1,
            tc: 0,
            ttl: 1
        };
        9
    ];
    assert_eq!(err(s.clone()), "mpls: 9 labels: a stack holds at most 8");
    s.encap.mpls[0].tc = 8;
    s.encap.mpls.truncate(2);
    assert_eq!(err(s), "mpls[0].tc: traffic class 8 is not in 0..=7");
    let mut s = spec(Kind::VxlanV4, false, false, false, &[1518]);
    if let Some(Tunnel::Vxlan { vni, .. }) = &mut s.encap.tunnel {
        *vni = 1 << 24;
    }
    assert_eq!(
        err(s.clone()),
        "vxlan.vni: VNI 16777216 is not in 0..=16777215"
    );
    // The largest VNI, DSCP and TTL are a stream's to send.
    s.encap.tunnel = Some(Tunnel::Vxlan {
        outer: OuterIp::V4 {
            src: Ipv4Addr::LOCALHOST,
            dst: Ipv4Addr::LOCALHOST,
            dscp: 63,
            ttl: 255,
        },
        vni: 0xFF_FFFF,
        src_port: 1,
        dst_port: 4789,
        inner: INNER_ETH,
    });
    s.validate().unwrap();
    if let Some(Tunnel::Vxlan { outer, .. }) = &mut s.encap.tunnel {
        *outer = OuterIp::V4 {
            src: Ipv4Addr::LOCALHOST,
            dst: Ipv4Addr::LOCALHOST,
            dscp: 64,
            ttl: 1,
        };
    }
    assert_eq!(err(s), "vxlan.ipv4.dscp: DSCP 64 is not in 0..=63");
    let mut s = spec(Kind::Qinq, false, false, false, &[1518]);
    s.qinq = Some(VlanSpec {
        id: 4095,
        pcp: 0,
        dei: false,
    });
    assert_eq!(err(s), "qinq.id: VLAN id 4095 is not in 0..=4094");
    let mut s = spec(Kind::GreV4, false, false, false, &[1518]);
    s.encap.tunnel = Some(Tunnel::Gre {
        outer: OuterIp::V4 {
            src: Ipv4Addr::LOCALHOST,
            dst: Ipv4Addr::LOCALHOST,
            dscp: 0,
            ttl: 0,
        },
        key: None,
        sequence: false,
    });
    assert_eq!(err(s), "gre.ipv4.ttl: TTL 0");
    // The smallest frame grows by what the encapsulation adds.
    let plain = spec(Kind::Qinq, false, false, false, &[1518]);
    let v = spec(Kind::VxlanV6, false, false, false, &[1518]);
    assert_eq!(
        v.min_frame_size() - plain.min_frame_size(),
        40 + 8 + 8 + 14 - 4
    );
    assert_eq!(Encap::default().header_len(), 0);
}

/// Bytes after the inner packet inside VXLAN's UDP (as padding of a short
/// inner frame would be), at even and odd offsets: the outer checksum,
/// written by etherparse, covers them, and one of them changed is caught.
#[test]
fn bytes_after_the_inner_packet_are_under_the_outer_checksum() {
    use etherparse::{Ipv4Header, UdpHeader};
    for size in [1518, 1519] {
        for extra in 1..=3usize {
            let s = spec(Kind::VxlanV4, false, false, false, &[size]);
            let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
            let mut f = vec![0u8; b.next_len()];
            b.write(&mut f, 5, 9);
            f.extend_from_slice(&[0xA5, 0x5A, 0xC3][..extra]);
            // Outer IPv4 at 18 (Ethernet and one tag), UDP at 38.
            let (mut ip, _) = Ipv4Header::from_slice(&f[18..]).unwrap();
            ip.total_len += extra as u16;
            ip.header_checksum = ip.calc_header_checksum();
            f[18..38].copy_from_slice(&ip.to_bytes());
            let len = (f.len() - 38) as u16;
            f[42..44].copy_from_slice(&len.to_be_bytes());
            let u = UdpHeader {
                source_port: 50000,
                destination_port: 4789,
                length: len,
                checksum: 0,
            };
            let c = u
                .calc_checksum_ipv4_raw(ip.source, ip.destination, &f[46..])
                .unwrap();
            f[44..46].copy_from_slice(&c.to_be_bytes());
            let what = format!("{size} B + {extra}");
            assert!(
                matches!(dissect(&f), Dissected::Ours(_)),
                "{what}: {:?}",
                dissect(&f)
            );
            let n = f.len();
            f[n - 1] ^= 0x01;
            assert_eq!(reason(dissect(&f)), CorruptReason::L4Checksum, "{what}");
        }
    }
}

/// A stack of 8 labels, the most a receiver walks, is a stream's to send.
#[test]
fn eight_labels_are_accepted_and_read_back() {
    let mut s = spec(Kind::Mpls, true, true, false, &[1518]);
    s.encap.mpls = (0..8)
        .map(|i| MplsLabel {
            label: 100 + i,
            tc: 0,
            ttl: 64,
        })
        .collect();
    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
    let mut f = vec![0u8; b.next_len()];
    b.write(&mut f, 5, 9);
    assert!(matches!(dissect(&f), Dissected::Ours(o) if o.seq == 5));
}

/// An inner UDP packet over IPv4 that carries no checksum (0, as IPv4
/// allows) inside VXLAN: the outer checksum, written by etherparse, is
/// verified over the segment whole, and the frame is intact.
#[test]
fn an_inner_packet_without_a_checksum_is_verified_by_the_outer_one() {
    use etherparse::{Ipv4Header, UdpHeader};
    let s = spec(Kind::VxlanV4, false, false, false, &[1518]);
    let mut b = FrameBuilder::new(&s, CsumMode::Software).unwrap();
    let mut f = vec![0u8; b.next_len()];
    b.write(&mut f, 5, 9);
    // The inner UDP checksum: Ethernet and tag 18, outer IPv4 20, UDP 8,
    // VXLAN 8, inner Ethernet 14, inner IPv4 20, then 6 into UDP.
    let at = 18 + 20 + 8 + 8 + 14 + 20 + 6;
    f[at..at + 2].fill(0);
    let (ip, _) = Ipv4Header::from_slice(&f[18..]).unwrap();
    f[44..46].fill(0);
    let u = UdpHeader {
        source_port: 50000,
        destination_port: 4789,
        length: (f.len() - 38) as u16,
        checksum: 0,
    };
    let c = u
        .calc_checksum_ipv4_raw(ip.source, ip.destination, &f[46..])
        .unwrap();
    f[44..46].copy_from_slice(&c.to_be_bytes());
    assert!(
        matches!(dissect(&f), Dissected::Ours(o) if o.seq == 5),
        "{:?}",
        dissect(&f)
    );
    // A fill byte changed is still caught: by the fill check, inside.
    f[1200] ^= 0x10;
    assert_eq!(reason(dissect(&f)), CorruptReason::FillChecksum);
}

/// The ones'-complement sum of `b`, written here for the test.
fn ones(b: &[u8]) -> u16 {
    let mut s: u32 = b
        .chunks(2)
        .map(|w| u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0)))
        .sum();
    while s >> 16 != 0 {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s as u16
}

/// A GRE packet that carries a checksum (landspeed sends none; another
/// sender may): verified, and when it fails the frame is corrupt by its
/// L4 checksum, its ids read from the intact packet inside.
#[test]
fn a_gre_checksum_is_verified_when_carried() {
    use etherparse::Ipv4Header;
    let (_, f) = one(Kind::GreV4);
    // Ethernet and tag 18, outer IPv4 20: the GRE header at 38.
    let mut g = f[..38].to_vec();
    g.extend_from_slice(&[0x80, 0, 0x08, 0x00, 0, 0, 0, 0]);
    g.extend_from_slice(&f[42..]);
    let (mut ip, _) = Ipv4Header::from_slice(&g[18..]).unwrap();
    ip.total_len += 4;
    ip.header_checksum = ip.calc_header_checksum();
    g[18..38].copy_from_slice(&ip.to_bytes());
    let c = !ones(&g[38..]);
    g[42..44].copy_from_slice(&c.to_be_bytes());
    assert!(
        matches!(dissect(&g), Dissected::Ours(o) if o.seq == 5),
        "{:?}",
        dissect(&g)
    );
    g[43] ^= 0x01;
    assert_eq!(reason(dissect(&g)), CorruptReason::L4Checksum);
}
