//! The RX dissector on frames built by the project's own builder, with
//! bytes flipped, cut or added, and the sequence accounting on arbitrary
//! sequence numbers.

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::prelude::*;

use crate::rx::seq::{CountFrom, SeqCounts, SeqTracker, SEQ_LIMIT, WINDOW};
use crate::wire::dissect::dissect_walk;
use crate::wire::mpls::MplsLabel;
use crate::wire::spec::{IpSpec, L4Spec, SizeSpec, StreamSpec, ValueSet, VlanSpec};
use crate::wire::spec::{OuterIp, Tunnel};
use crate::wire::{dissect_with, CsumMode, DissectOptions, Dissected, FrameBuilder, TcpFlags};

/// Every combination of what the dissector verifies.
const OPTIONS: [DissectOptions; 4] = [
    DissectOptions {
        verify_ip: true,
        verify_l4: true,
        verify_fill: true,
    },
    DissectOptions {
        verify_ip: false,
        verify_l4: false,
        verify_fill: false,
    },
    DissectOptions {
        verify_ip: true,
        verify_l4: false,
        verify_fill: true,
    },
    DissectOptions {
        verify_ip: false,
        verify_l4: true,
        verify_fill: false,
    },
];

/// A stream as a profile could describe it.
#[derive(Debug, Clone)]
struct Shape {
    id: u32,
    v6: bool,
    tcp: bool,
    vlan: bool,
    /// 0 none, 1 QinQ, 2 MPLS, 3 VXLAN over IPv4, 4 over IPv6, 5 GRE
    /// over IPv4, 6 over IPv6 with key and sequence number.
    encap: u8,
    size: usize,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        any::<u16>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop_oneof![Just(0u8), 0u8..7],
        prop_oneof![Just(64usize), Just(65), Just(96), Just(1518), 64usize..2048],
    )
        .prop_map(|(id, v6, tcp, vlan, encap, size)| Shape {
            id: u32::from(id),
            v6,
            tcp,
            vlan,
            encap,
            size,
        })
}

/// The frame of `shape` carrying `seq` and `tsc`, without FCS.
fn build(shape: &Shape, seq: u64, tsc: u64) -> Vec<u8> {
    let mut spec = StreamSpec {
        id: shape.id,
        vlan: shape.vlan.then_some(VlanSpec {
            id: 100,
            pcp: 5,
            dei: false,
        }),
        ..StreamSpec::default()
    };
    if shape.v6 {
        spec.ip = IpSpec::V6 {
            src: ValueSet::Single(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10)),
            dst: ValueSet::Single(Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 0x20)),
            traffic_class: 0,
            flow_label: 0,
            hop_limit: 64,
        };
    }
    if shape.tcp {
        spec.l4 = L4Spec::Tcp {
            src_port: ValueSet::Single(40000),
            dst_port: ValueSet::Single(5201),
            seq_start: 1,
            ack: 0,
            window: 0xFFFF,
            flags: TcpFlags::ACK,
        };
    }
    encapsulate(&mut spec, shape.encap);
    spec.size = SizeSpec::Fixed(shape.size.max(FrameBuilder::min_frame_size(&spec)));
    let mut b = FrameBuilder::new(&spec, CsumMode::Software).expect("a buildable stream");
    let len = b.next_len();
    let mut buf = vec![0u8; b.max_len()];
    assert_eq!(b.write(&mut buf, seq, tsc), len);
    buf.truncate(len);
    buf
}

/// Wraps `spec`'s packet as [`Shape::encap`] says.
fn encapsulate(spec: &mut StreamSpec, encap: u8) {
    let v4 = OuterIp::V4 {
        src: Ipv4Addr::new(192, 0, 2, 1),
        dst: Ipv4Addr::new(192, 0, 2, 2),
        dscp: 0,
        ttl: 64,
    };
    let v6 = OuterIp::V6 {
        src: Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 1),
        dst: Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 2),
        traffic_class: 0,
        hop_limit: 64,
    };
    let vxlan = |outer| Tunnel::Vxlan {
        outer,
        vni: 0x12_3456,
        src_port: 49152,
        dst_port: 4789,
        inner: spec.eth.first(),
    };
    match encap {
        1 => {
            spec.qinq = Some(VlanSpec {
                id: 7,
                pcp: 1,
                dei: true,
            })
        }
        2 => {
            spec.encap.mpls = vec![
                MplsLabel {
                    label: 16,
                    tc: 0,
                    ttl: 64,
                },
                MplsLabel {
                    label: 17,
                    tc: 5,
                    ttl: 1,
                },
            ]
        }
        3 => spec.encap.tunnel = Some(vxlan(v4)),
        4 => spec.encap.tunnel = Some(vxlan(v6)),
        5 => {
            spec.encap.tunnel = Some(Tunnel::Gre {
                outer: v4,
                key: None,
                sequence: false,
            })
        }
        6 => {
            spec.encap.tunnel = Some(Tunnel::Gre {
                outer: v6,
                key: Some(9),
                sequence: true,
            })
        }
        _ => {}
    }
}

/// `seq` as a stamp carrying `bits` of it reads back.
fn low_bits(seq: u64, bits: u32) -> u64 {
    if bits >= 64 {
        seq
    } else {
        seq & ((1 << bits) - 1)
    }
}

/// The property for any bytes: every option set classifies them without
/// panicking, the one-pass check of intact IPv4/UDP frames answers what
/// the layer-by-layer walk answers, and whatever is ours reports a
/// consistent payload.
pub(super) fn check_bytes(frame: &[u8]) -> Vec<Dissected> {
    OPTIONS
        .iter()
        .map(|opt| {
            let d = dissect_with(frame, opt);
            assert_eq!(d, dissect_walk(frame, opt), "one pass and walk, {opt:?}");
            if let Dissected::Ours(o) = d {
                assert!(o.payload_len <= frame.len(), "{o:?}");
                assert!(o.seq_bits == 64 || o.seq < 1 << o.seq_bits, "{o:?}");
            }
            d
        })
        .collect()
}

/// The ids a frame of ours carries: stream id and sequence number.
fn ids(d: &Dissected) -> Option<(u32, u64)> {
    match d {
        Dissected::Ours(o) => Some((o.stream_id, o.seq)),
        _ => None,
    }
}

proptest! {
    #![proptest_config(super::config(256))]

    /// A built frame dissects to its own stream and sequence number, with
    /// Ethernet padding after it too.
    #[test]
    fn built_frames_round_trip(s in shape(), seq: u64, tsc: u64, pad in 0usize..64) {
        let mut f = build(&s, seq, tsc);
        for d in check_bytes(&f) {
            let Dissected::Ours(o) = d else { panic!("{s:?}: {d:?}") };
            prop_assert_eq!((o.stream_id, o.seq), (s.id, low_bits(seq, o.seq_bits)));
            prop_assert_eq!((o.is_ipv6, o.is_tcp), (s.v6, s.tcp));
            prop_assert_eq!(o.vlan.is_some(), s.vlan || s.encap == 1);
        }
        f.resize(f.len() + pad, 0);
        for d in check_bytes(&f) {
            let Dissected::Ours(o) = d else { panic!("{s:?} padded by {pad}: {d:?}") };
            prop_assert_eq!((o.stream_id, o.seq), (s.id, low_bits(seq, o.seq_bits)));
        }
    }

    /// One byte changed: never a panic, and when everything is verified
    /// the frame is either caught or still carries its own ids (the byte
    /// was outside what the checksums cover).
    #[test]
    fn one_flipped_byte_is_caught_or_harmless(
        s in shape(), seq: u64, at: usize, xor in 1u8..=255,
    ) {
        let mut f = build(&s, seq, 7);
        let clean = ids(&check_bytes(&f)[0]);
        let at = at % f.len();
        f[at] ^= xor;
        let all = check_bytes(&f);
        if let Some(got) = ids(&all[0]) {
            prop_assert_eq!(Some(got), clean, "byte {} ^ {:#x}", at, xor);
        }
    }

    /// Many bytes changed, the frame cut or grown: never a panic.
    #[test]
    fn damaged_frames_never_panic(
        s in shape(), seq: u64,
        flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 0..16),
        cut in proptest::option::of(any::<usize>()),
        tail in proptest::collection::vec(any::<u8>(), 0..32),
    ) {
        let mut f = build(&s, seq, 7);
        for (at, v) in flips {
            let n = f.len();
            f[at % n] = v;
        }
        if let Some(c) = cut {
            let n = f.len();
            f.truncate(c % (n + 1));
        }
        f.extend_from_slice(&tail);
        check_bytes(&f);
    }

    /// Any bytes at all: never a panic.
    #[test]
    fn arbitrary_bytes_never_panic(f in proptest::collection::vec(any::<u8>(), 0..256)) {
        check_bytes(&f);
    }
}

// ---- sequence accounting ----

/// The tracker's counts after `seqs`, checked against what holds for any
/// input: every frame is counted once, as unique, duplicated or stale;
/// reordered frames are unique ones.
pub(super) fn account(from: CountFrom, seqs: &[u64]) -> SeqCounts {
    let mut t = SeqTracker::counting_from(from);
    for &s in seqs {
        t.record(s);
    }
    let c = t.counts();
    let n = seqs.len() as u64;
    assert_eq!(c.unique + c.duplicated + c.stale, n, "{c:?}");
    assert!(c.reordered <= c.unique, "{c:?}");
    assert!(c.reorder_extent_max <= c.reorder_extent_sum.max(c.reorder_extent_max));
    assert!(c.max_seq < SEQ_LIMIT, "{c:?}");
    c
}

/// Sequence numbers anywhere: the edges of the window and of the limit.
fn wild_seq() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..200,
        any::<u64>(),
        (SEQ_LIMIT - 3)..=(SEQ_LIMIT + 3),
        (WINDOW - 3)..=(WINDOW + 3),
        Just(u64::MAX),
    ]
}

proptest! {
    #![proptest_config(super::config(256))]

    /// Any sequence numbers, from either start: no panic, no overflow, the
    /// counts partition the frames.
    #[test]
    fn accounting_holds_for_any_sequence(
        base in proptest::option::of(wild_seq()),
        seqs in proptest::collection::vec(wild_seq(), 0..300),
    ) {
        let from = base.map_or(CountFrom::FirstSeen, CountFrom::Seq);
        account(from, &seqs);
    }

    /// Sequence numbers within one window of each other: the counts are
    /// exact (distinct frames unique, the rest duplicated, the range's
    /// holes lost).
    #[test]
    fn accounting_is_exact_within_the_window(
        start in 0u64..(SEQ_LIMIT - WINDOW),
        offsets in proptest::collection::vec(0u64..500, 1..300),
    ) {
        let seqs: Vec<u64> = offsets.iter().map(|o| start + o).collect();
        let c = account(CountFrom::FirstSeen, &seqs);
        let distinct: BTreeSet<u64> = seqs.iter().copied().collect();
        let (lo, hi) = (*distinct.first().unwrap(), *distinct.last().unwrap());
        prop_assert_eq!(c.unique, distinct.len() as u64);
        prop_assert_eq!(c.duplicated, seqs.len() as u64 - c.unique);
        prop_assert_eq!(c.stale, 0);
        prop_assert_eq!(c.max_seq, hi);
        prop_assert_eq!(c.lost, hi - lo + 1 - c.unique);
    }
}
