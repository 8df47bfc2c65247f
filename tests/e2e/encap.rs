//! Encapsulated streams (QinQ, MPLS, VXLAN, GRE) through the runtime: a
//! TX run writes them to a pcap through the fast path (template pools,
//! headers held in the mbufs, the outer fields written per frame); every
//! captured frame verifies in full through the dissector (whose verdicts
//! the unit tests hold against etherparse's, outer and inner checksums
//! included), and a replay of the capture is counted per stream, exactly,
//! with nothing corrupt, lost or foreign.

use std::collections::HashMap;

use crate::common::{by_id, json_u64, read_pcap, run_profile};
use landspeed::wire::{dissect, Dissected};
use serde_json::Value;

/// One stream of each encapsulation, inner packets of both IP versions
/// and both L4 protocols, frames of three sizes.
const STREAMS: &str = "streams:
  - name: qinq
    id: 1
    frame_size: [256, 1518, 9130]
    qinq: { id: 100, pcp: 1 }
    vlan: { id: 200 }
  - name: mpls
    id: 2
    frame_size: [256, 1518, 9130]
    mpls: [{ label: 16 }, { label: 1000, tc: 5, ttl: 7 }]
    ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }
    tcp: { src: 40000, dst: 5001 }
  - name: vxlan4
    id: 3
    frame_size: [256, 1518, 9130]
    vxlan: { vni: 4096, ipv4: { src: 192.0.2.1, dst: 192.0.2.2 } }
    udp: { src: 49152-49155, dst: 5001 }
  - name: vxlan6
    id: 4
    frame_size: [256, 1518, 9130]
    vxlan: { vni: 7, ipv6: { src: \"2001:db8:ffff::1\", dst: \"2001:db8:ffff::2\" }, eth: { dst: \"02:00:00:00:01:02\" } }
    ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }
    tcp: { src: 40000, dst: 5001 }
  - name: gre4
    id: 5
    frame_size: [256, 1518, 9130]
    gre: { ipv4: { src: 192.0.2.1, dst: 192.0.2.2 } }
  - name: gre6
    id: 6
    frame_size: [256, 1518, 9130]
    vlan: { id: 5 }
    gre: { ipv6: { src: \"2001:db8:ffff::1\", dst: \"2001:db8:ffff::2\" }, key: 99, sequence: true }
    ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }
";

#[test]
fn encapsulated_streams_are_sent_as_built_and_counted_on_replay() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=encap.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{STREAMS}\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 100M\n    mode: spin\n    frames: 1200\n\
         run:\n  duration: 5s\n"
    );
    let (_, v) = run_profile(dir.path(), "encap", &yaml, &["-q"]);
    let frames = read_pcap(&dir.path().join("encap.pcap"));
    assert_eq!(frames.len(), 1200, "the frame limit");
    assert_eq!(json_u64(&v, "/tx/frames"), 1200);

    // Each captured frame verifies in full (outer and inner checksums and
    // lengths, stamp, fill), in order, at the size its place in the cycle
    // gives it.
    let sizes = [256usize, 1518, 9130];
    let mut next: HashMap<u32, u64> = HashMap::new();
    for (i, f) in frames.iter().enumerate() {
        let Dissected::Ours(o) = dissect(f) else {
            panic!("frame {i}: {:?}", dissect(f))
        };
        let seq = next.entry(o.stream_id).or_insert(0);
        assert_eq!(o.seq, *seq, "frame {i}: stream {} in order", o.stream_id);
        assert_eq!(f.len() + 4, sizes[(*seq % 3) as usize], "frame {i}: size");
        let (v6, tcp, vlan) = match o.stream_id {
            1 => (false, false, Some(200)),
            2 | 4 => (true, true, None),
            3 | 5 => (false, false, None),
            _ => (true, false, Some(5)),
        };
        assert_eq!((o.is_ipv6, o.is_tcp, o.vlan), (v6, tcp, vlan), "frame {i}");
        *seq += 1;
    }
    assert_eq!(next.len(), 6, "every stream sent");
    for id in 1..=6u64 {
        let sent = json_u64(by_id(&v, "/tx/streams", id), "/frames");
        assert_eq!(sent, next[&(id as u32)], "stream {id}: sent vs captured");
    }

    // The capture replayed: every frame counted under its stream.
    let rx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap=encap.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{STREAMS}\
         rx:\n  - lcore: 1\n    port: p0\n    verify: full\n\
         run:\n  duration: 2s\n"
    );
    let (_, r) = run_profile(dir.path(), "replay", &rx, &["-q"]);
    assert_eq!(json_u64(&r, "/rx/frames"), 1200);
    assert_eq!(json_u64(&r, "/rx/foreign"), 0);
    for id in 1..=6u64 {
        let st: &Value = by_id(&r, "/rx/streams", id);
        assert_eq!(json_u64(st, "/frames"), next[&(id as u32)], "stream {id}");
        assert_eq!(json_u64(st, "/lost"), 0, "stream {id}");
        assert_eq!(json_u64(st, "/corrupt_total"), 0, "stream {id}");
    }
}
