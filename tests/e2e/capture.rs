//! The frame engine's acceptance test: frames sent through DPDK's pcap PMD
//! land in a capture, and an independent parser (etherparse) finds in every
//! one of them exactly the configured headers, valid checksums, a stamp with
//! the right stream id and consecutive sequence numbers, a fill that matches
//! its checksum, and a payload no other frame has.

use crate::common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::net::IpAddr;
use std::path::Path;

use crate::common::{
    by_id, inet_checksum, inet_sum, json_u64, parse_frame, read_pcap, run_profile,
};
use landspeed::wire::stamp::{Stamp, StampLayout};
use serde_json::Value;

/// The simple IMIX order of docs/wire-format.md.
const IMIX: [usize; 12] = [64, 594, 64, 64, 594, 64, 1518, 64, 594, 64, 64, 594];

const MAC_SRC: [u8; 6] = [0x02, 0, 0, 0, 0, 0x01];
const MAC_DST: [u8; 6] = [0x02, 0, 0, 0, 0, 0x02];

/// One configured stream and what its frames must carry.
#[derive(Clone, Debug)]
struct Def {
    name: &'static str,
    id: u32,
    v6: bool,
    tcp: bool,
    /// The `frame_size:` value as written in YAML.
    size_yaml: String,
    /// Frame sizes (FCS included) by sequence number, cycled.
    sizes: Vec<usize>,
    srcs: Vec<IpAddr>,
    dsts: Vec<IpAddr>,
    sports: Vec<u16>,
    dports: Vec<u16>,
    vlan: Option<(u16, u8)>,
    /// First TCP sequence number.
    tcp_seq: u32,
    /// `vary:` value, if any.
    vary: Option<&'static str>,
    /// The `ipv4:`/`ipv6:`/`udp:`/`tcp:`/`vlan:` lines, as written.
    yaml: Vec<String>,
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

/// The smallest frame for the stack (docs/wire-format.md).
fn min_frame(v6: bool, tcp: bool, vlan: bool) -> usize {
    let base = match (v6, tcp) {
        (false, false) => 64,
        (false, true) => 76,
        (true, false) => 84,
        (true, true) => 96,
    };
    base + if vlan { 4 } else { 0 }
}

impl Def {
    /// A stream with single addresses and ports.
    fn simple(name: &'static str, id: u32, v6: bool, tcp: bool) -> Def {
        let (src, dst) = if v6 {
            ("2001:db8::1", "2001:db8::2")
        } else {
            ("198.18.0.1", "198.19.0.1")
        };
        let l3 = if v6 {
            format!("ipv6: {{ src: \"{src}\", dst: \"{dst}\" }}")
        } else {
            format!("ipv4: {{ src: {src}, dst: {dst} }}")
        };
        let sport = 40000 + id as u16;
        let l4 = if tcp {
            format!("tcp: {{ src: {sport}, dst: 5001, seq: 1000, flags: [ack, psh] }}")
        } else {
            format!("udp: {{ src: {sport}, dst: 5001 }}")
        };
        Def {
            name,
            id,
            v6,
            tcp,
            size_yaml: "9130".into(),
            sizes: vec![9130],
            srcs: vec![ip(src)],
            dsts: vec![ip(dst)],
            sports: vec![sport],
            dports: vec![5001],
            vlan: None,
            tcp_seq: 1000,
            vary: None,
            yaml: vec![l3, l4],
        }
    }

    fn size(mut self, size: usize) -> Def {
        self.size_yaml = size.to_string();
        self.sizes = vec![size];
        self
    }

    fn sizes(mut self, sizes: &[usize]) -> Def {
        self.size_yaml = format!("{sizes:?}");
        self.sizes = sizes.to_vec();
        self
    }

    fn imix(mut self) -> Def {
        let small = min_frame(self.v6, self.tcp, self.vlan.is_some()).max(64);
        self.size_yaml = "imix".into();
        self.sizes = IMIX.iter().map(|&s| s.max(small)).collect();
        self
    }

    fn vlan(mut self, id: u16, pcp: u8) -> Def {
        self.vlan = Some((id, pcp));
        self.yaml.push(format!("vlan: {{ id: {id}, pcp: {pcp} }}"));
        self
    }

    /// The four kinds: IPv4/UDP, IPv6/UDP, IPv4/TCP, IPv6/TCP.
    fn four() -> Vec<Def> {
        vec![
            Def::simple("v4udp", 1, false, false),
            Def::simple("v6udp", 2, true, false),
            Def::simple("v4tcp", 3, false, true),
            Def::simple("v6tcp", 4, true, true),
        ]
    }
}

/// A TX-only profile sending `defs` into `net_pcap0,tx_pcap=NAME.pcap`.
fn profile(name: &str, defs: &[Def], rate: &str) -> String {
    let mut y = format!(
        "eal:\n  cores: [0, 1]\n  memory_mb: 512\n  vdevs: [\"net_pcap0,tx_pcap={name}.pcap\"]\n\
         ports:\n  - name: cap\n    device: net_pcap0\n    link: 10g\nstreams:\n"
    );
    for d in defs {
        y.push_str(&format!(
            "  - name: {}\n    id: {}\n    frame_size: {}\n",
            d.name, d.id, d.size_yaml
        ));
        for l in &d.yaml {
            y.push_str(&format!("    {l}\n"));
        }
        if let Some(v) = d.vary {
            y.push_str(&format!("    vary: {v}\n"));
        }
    }
    y.push_str(&format!(
        "tx:\n  - lcore: 1\n    port: cap\n    rate: {rate}\n    mode: spin\nrx: []\nrun:\n  duration: 1s\n  interval: 1s\n"
    ));
    y
}

/// (src, dst, sport, dport) of one frame.
type Tuple = (IpAddr, IpAddr, u16, u16);

/// What a checked capture holds, per stream id.
struct Checked {
    frames: usize,
    tuples: HashMap<u32, Vec<Tuple>>,
}

/// Checks every frame of `frames` against `defs` and the run's JSON.
fn check_capture(frames: &[Vec<u8>], defs: &[Def], v: &Value) -> Checked {
    assert!(!frames.is_empty(), "the capture is empty");
    assert_eq!(
        frames.len() as u64,
        json_u64(v, "/tx/frames"),
        "frames in the capture vs tx.frames"
    );
    let by_id: HashMap<u32, &Def> = defs.iter().map(|d| (d.id, d)).collect();
    let mut next_seq: HashMap<u32, u64> = HashMap::new();
    let mut ip_id: HashMap<u32, u16> = HashMap::new();
    let mut tcp_seq: HashMap<u32, u32> = HashMap::new();
    let mut bytes: HashMap<u32, u64> = HashMap::new();
    let mut tuples: HashMap<u32, Vec<Tuple>> = HashMap::new();
    let mut payloads: HashSet<&[u8]> = HashSet::with_capacity(frames.len());

    for (i, raw) in frames.iter().enumerate() {
        let fr = parse_frame(raw).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        let stamp = Stamp::parse(fr.payload)
            .unwrap_or_else(|e| panic!("frame {i}: stamp does not decode: {e}"));
        let d = by_id
            .get(&stamp.stream_id)
            .unwrap_or_else(|| panic!("frame {i}: unknown stream id {}", stamp.stream_id));
        let ctx = format!("frame {i} (stream {}, seq {})", d.name, stamp.seq);

        // Sequence numbers count from 0, one by one, per stream.
        let want_seq = next_seq.entry(d.id).or_insert(0);
        assert_eq!(stamp.seq, *want_seq, "{ctx}: sequence");
        *want_seq += 1;

        // Size, by sequence number.
        let size = d.sizes[(stamp.seq % d.sizes.len() as u64) as usize];
        assert_eq!(raw.len() + 4, size, "{ctx}: frame length + FCS");
        *bytes.entry(d.id).or_insert(0) += size as u64;

        // Headers.
        assert_eq!(fr.src_mac, MAC_SRC, "{ctx}: source MAC");
        assert_eq!(fr.dst_mac, MAC_DST, "{ctx}: destination MAC");
        assert_eq!((fr.v6, fr.tcp), (d.v6, d.tcp), "{ctx}: IPv6/TCP");
        assert_eq!(
            fr.vlan,
            d.vlan.map(|(id, pcp)| (id, pcp, false)),
            "{ctx}: VLAN"
        );
        assert!(d.srcs.contains(&fr.src), "{ctx}: source {}", fr.src);
        assert!(d.dsts.contains(&fr.dst), "{ctx}: destination {}", fr.dst);
        assert!(d.sports.contains(&fr.sport), "{ctx}: source port");
        assert!(d.dports.contains(&fr.dport), "{ctx}: destination port");
        tuples
            .entry(d.id)
            .or_default()
            .push((fr.src, fr.dst, fr.sport, fr.dport));

        // The IPv4 identification counts frames of the stream.
        if let Some(id) = fr.ip_id {
            if let Some(prev) = ip_id.insert(d.id, id) {
                assert_eq!(id, prev.wrapping_add(1), "{ctx}: IPv4 identification");
            }
        }

        // The TCP sequence number advances by the payload length.
        if let Some(seq) = fr.tcp_seq {
            let want = tcp_seq.get(&d.id).copied().unwrap_or(d.tcp_seq);
            assert_eq!(seq, want, "{ctx}: TCP sequence number");
            tcp_seq.insert(d.id, seq.wrapping_add(fr.payload.len() as u32));
        }

        // The stamp and the fill.
        let full = fr.payload.len() >= 32;
        if full {
            assert_eq!(stamp.layout, StampLayout::Full, "{ctx}: layout");
            let fill = &fr.payload[32..];
            assert_eq!(
                usize::from(stamp.fill_len),
                fill.len(),
                "{ctx}: fill length"
            );
            assert_eq!(inet_checksum(fill), stamp.fill_csum, "{ctx}: fill checksum");
            assert_eq!(inet_sum(&fr.payload[..32]), 0xffff, "{ctx}: stamp sum");
        } else {
            assert_eq!(stamp.layout, StampLayout::Compact, "{ctx}: layout");
            assert_eq!(
                inet_sum(fr.payload),
                0xffff,
                "{ctx}: compact stamp + fill sum"
            );
        }
        assert!(payloads.insert(fr.payload), "{ctx}: payload repeats");
    }

    for d in defs {
        let st = by_id_json(v, d.id);
        let sent = next_seq.get(&d.id).copied().unwrap_or(0);
        assert!(sent > 0, "stream {}: no frame in the capture", d.name);
        assert_eq!(
            json_u64(st, "/frames"),
            sent,
            "stream {}: tx frames",
            d.name
        );
        assert_eq!(
            json_u64(st, "/bytes"),
            bytes[&d.id],
            "stream {}: tx bytes",
            d.name
        );
    }
    let total: u64 = bytes.values().sum();
    assert_eq!(json_u64(v, "/tx/bytes"), total, "tx.bytes vs the capture");
    Checked {
        frames: frames.len(),
        tuples,
    }
}

fn by_id_json(v: &Value, id: u32) -> &Value {
    by_id(v, "/tx/streams", u64::from(id))
}

/// Runs `defs` at `rate` for 1 s into a capture and checks it.
fn capture_and_check(name: &str, defs: &[Def], rate: &str) -> Checked {
    let dir = tempfile::tempdir().unwrap();
    capture_in(dir.path(), name, defs, rate)
}

fn capture_in(dir: &Path, name: &str, defs: &[Def], rate: &str) -> Checked {
    let (_, v) = run_profile(dir, name, &profile(name, defs, rate), &["-q"]);
    let frames = read_pcap(&dir.join(format!("{name}.pcap")));
    check_capture(&frames, defs, &v)
}

#[test]
fn four_kinds_9130_bytes() {
    let c = capture_and_check("jumbo", &Def::four(), "100M");
    // ~1365 frames at 100 Mbit/s for 1 s; a noisy host may send fewer.
    assert!(c.frames >= 4);
}

#[test]
fn ipv4_udp_64_bytes_compact_stamp() {
    let d = [Def::simple("small", 1, false, false).size(64)];
    let c = capture_and_check("small", &d, "20M");
    assert!(c.frames > 1);
}

#[test]
fn four_kinds_1518_bytes() {
    let defs: Vec<Def> = Def::four().into_iter().map(|d| d.size(1518)).collect();
    capture_and_check("std", &defs, "100M");
}

#[test]
fn four_kinds_imix() {
    let defs: Vec<Def> = Def::four().into_iter().map(Def::imix).collect();
    // The IMIX order raises 64 to the stack's minimum where 64 cannot hold it.
    assert_eq!(defs[3].sizes[0], 96);
    let c = capture_and_check("imix", &defs, "50M");
    for d in &defs {
        assert!(
            c.tuples[&d.id].len() >= IMIX.len(),
            "stream {}: fewer frames than one IMIX cycle",
            d.name
        );
    }
}

#[test]
fn four_kinds_size_list() {
    let defs: Vec<Def> = Def::four()
        .into_iter()
        .map(|d| d.sizes(&[128, 256, 1518]))
        .collect();
    capture_and_check("list", &defs, "100M");
}

fn ranges(vary: &'static str) -> Def {
    let mut d = Def::simple("ranges", 9, false, false).size(1518);
    d.yaml = vec![
        "ipv4: { src: \"198.18.0.1-198.18.0.4\", dst: [198.19.0.1, 198.19.0.9] }".into(),
        "udp: { src: 1024-1027, dst: 5001 }".into(),
    ];
    d.srcs = (1..=4).map(|i| ip(&format!("198.18.0.{i}"))).collect();
    d.dsts = vec![ip("198.19.0.1"), ip("198.19.0.9")];
    d.sports = (1024..=1027).collect();
    d.dports = vec![5001];
    d.vary = Some(vary);
    d
}

#[test]
fn field_ranges_step_walk_the_product() {
    let d = ranges("step");
    let c = capture_and_check("step", std::slice::from_ref(&d), "20M");
    let t = &c.tuples[&d.id];
    assert!(t.len() >= 32, "only {} frames: need 32", t.len());
    let seen: BTreeSet<Tuple> = t.iter().copied().collect();
    let mut product = BTreeSet::new();
    for &src in &d.srcs {
        for &dst in &d.dsts {
            for &sp in &d.sports {
                for &dp in &d.dports {
                    product.insert((src, dst, sp, dp));
                }
            }
        }
    }
    assert_eq!(product.len(), 32);
    assert_eq!(seen, product, "the tuples sent vs the cartesian product");
    // The documented order: destination port fastest, then source port,
    // destination address, source address.
    let (nd, ns, ndst) = (d.dports.len(), d.sports.len(), d.dsts.len());
    for (k, tuple) in t.iter().enumerate() {
        let want = (
            d.srcs[(k / (nd * ns * ndst)) % d.srcs.len()],
            d.dsts[(k / (nd * ns)) % ndst],
            d.sports[(k / nd) % ns],
            d.dports[k % nd],
        );
        assert_eq!(*tuple, want, "frame {k} of the step walk");
    }
}

#[test]
fn field_ranges_random_is_reproducible() {
    let d = ranges("{ random: 7 }");
    let dir = tempfile::tempdir().unwrap();
    let a = capture_in(dir.path(), "rnd1", std::slice::from_ref(&d), "20M");
    let b = capture_in(dir.path(), "rnd2", std::slice::from_ref(&d), "20M");
    let (ta, tb) = (&a.tuples[&d.id], &b.tuples[&d.id]);
    let n = 50.min(ta.len()).min(tb.len());
    assert!(n >= 32, "only {n} frames to compare");
    assert_eq!(ta[..n], tb[..n], "same seed, different tuples");
    let distinct: BTreeSet<&Tuple> = ta[..n].iter().collect();
    assert!(distinct.len() > 1, "random vary produced one tuple only");
}

#[test]
fn vlan_tag() {
    let defs = [
        Def::simple("tagged4", 1, false, false)
            .size(1518)
            .vlan(100, 3),
        Def::simple("tagged6", 2, true, true)
            .size(1522)
            .vlan(4094, 7),
    ];
    capture_and_check("vlan", &defs, "20M");
}

#[test]
fn capture_flag_writes_what_was_sent() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = common::landspeed(
        dir.path(),
        [
            "run",
            common::NULL_YAML,
            "--duration",
            "1s",
            "--rate",
            "100M",
            "--capture",
            "X.pcap",
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    out.assert_success();
    let v = common::read_json(&json);
    let frames = read_pcap(&dir.path().join("X.pcap"));
    assert!(!frames.is_empty());
    assert_eq!(frames.len() as u64, json_u64(&v, "/tx/frames"));
    for (i, fr) in frames.iter().enumerate() {
        assert_eq!(fr.len() + 4, 9130, "frame {i}");
        let p = parse_frame(fr).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        let st = Stamp::parse(p.payload).unwrap_or_else(|e| panic!("frame {i}: {e}"));
        assert_eq!((st.stream_id, st.seq), (1, i as u64), "frame {i}");
    }
}

#[test]
fn pcap_reader_reads_both_byte_orders() {
    let dir = tempfile::tempdir().unwrap();
    let frames = vec![
        common::arp_frame(),
        common::ipv4_udp_foreign(b"hello"),
        vec![],
    ];
    for big in [false, true] {
        let p = dir.path().join(format!("t{big}.pcap"));
        common::write_pcap_order(&p, &frames, big);
        assert_eq!(read_pcap(&p), frames, "big endian: {big}");
    }
}

/// docs/profile.md: a weight is a share of the task's rate at its layer.
/// Streams of 1518, 64 and 594 bytes at weights 1:1:2 and 20 Mbit/s L1
/// get 1/4, 1/4 and 1/2 of the bits on the wire (preamble and gap
/// included), each within one 1518-byte frame of its share.
#[test]
fn weights_share_the_rate_in_bits_at_the_task_layer() {
    let mut defs = vec![
        Def::simple("big", 1, false, false).size(1518),
        Def::simple("small", 2, false, false).size(64),
        Def::simple("mid", 3, false, false).size(594),
    ];
    defs[2].yaml.push("weight: 2".into());
    let dir = tempfile::tempdir().unwrap();
    let yaml = profile("weights", &defs, "20M").replace("rate: 20M", "rate: 20M\n    layer: l1");
    let (_, v) = run_profile(dir.path(), "weights", &yaml, &["-q"]);
    let frames = read_pcap(&dir.path().join("weights.pcap"));
    check_capture(&frames, &defs, &v);
    // L1 bits of each stream: frame (FCS included) + preamble and gap.
    let mut bits: HashMap<u32, u64> = HashMap::new();
    for f in &frames {
        let p = parse_frame(f).unwrap();
        let st = Stamp::parse(p.payload).unwrap();
        *bits.entry(st.stream_id).or_default() += 8 * (f.len() as u64 + 4 + 20);
    }
    let total: u64 = bits.values().sum();
    assert!(
        total > 10_000_000,
        "{total} bits: too short a capture to judge"
    );
    let one_frame = (8 * (1518 + 20)) as f64;
    for (id, share) in [(1u32, 0.25), (2, 0.25), (3, 0.5)] {
        let off = (bits[&id] as f64 - share * total as f64).abs();
        assert!(
            off <= one_frame,
            "stream {id}: {} of {total} bits, {off} off its share {share}",
            bits[&id]
        );
    }
}

/// `profile` with `payload: MODE` on the capture port.
fn with_payload(yaml: &str, mode: &str) -> String {
    let port = "    device: net_pcap0\n";
    assert!(yaml.contains(port));
    yaml.replace(port, &format!("{port}    payload: {mode}\n"))
}

/// `frame` with the stamp's TX TSC and the stamp check (the only bytes
/// that depend on when the frame left) zeroed.
fn without_tsc(frame: &[u8]) -> Vec<u8> {
    let fr = parse_frame(frame).unwrap();
    let stamp = frame.len() - fr.payload.len();
    let mut f = frame.to_vec();
    f[stamp + 16..stamp + 24].fill(0);
    f[stamp + 28..stamp + 30].fill(0);
    f
}

/// Runs the four kinds at `size` with `payload: mode`, checks the capture
/// (etherparse: headers, checksums, stamp, fill) and returns its frames,
/// the frames whose fill was attached and the run's JSON.
fn capture_payload(dir: &Path, size: usize, mode: &str) -> (Vec<Vec<u8>>, u64, Value) {
    let defs: Vec<Def> = Def::four().into_iter().map(|d| d.size(size)).collect();
    let name = format!("{mode}{size}");
    let yaml = with_payload(&profile(&name, &defs, "50M"), mode);
    let (_, v) = run_profile(dir, &name, &yaml, &["-q"]);
    let frames = read_pcap(&dir.join(format!("{name}.pcap")));
    check_capture(&frames, &defs, &v);
    assert_eq!(
        json_u64(&v, "/mbufs_leaked"),
        0,
        "{mode} {size}: mbufs leaked"
    );
    let attached = json_u64(&v["tx"]["tasks"][0], "/attached_frames");
    (frames, attached, v)
}

/// The fill attached as a second segment (net_pcap writes chained mbufs
/// whole) puts the same bytes on the wire as the fill copied: frame for
/// frame, every byte but the departure TSC, for IPv4 and IPv6, UDP and
/// TCP, at 9130, 1518 and an odd size. Every attached frame is counted,
/// none in copy mode, and no mbuf of either pool (frames, segments) leaks.
#[test]
fn attached_payload_is_byte_identical_to_copied() {
    for size in [9130usize, 1518, 1001] {
        let dir = tempfile::tempdir().unwrap();
        let (att, n_att, va) = capture_payload(dir.path(), size, "attach");
        let (copy, n_copy, _) = capture_payload(dir.path(), size, "copy");
        assert_eq!(
            n_att,
            json_u64(&va, "/tx/frames"),
            "{size}: every frame attached"
        );
        assert_eq!(n_copy, 0, "{size}: no frame attached in copy mode");
        let n = att.len().min(copy.len());
        assert!(n >= 8, "{size}: {n} frames to compare");
        for (i, (a, c)) in att.iter().zip(&copy).take(n).enumerate() {
            assert_eq!(a.len(), c.len(), "{size}: frame {i} length");
            assert!(
                without_tsc(a) == without_tsc(c),
                "{size}: frame {i} differs between attach and copy"
            );
        }
    }
}

/// `payload: auto` on net_pcap, which does not report multi-segment TX,
/// copies; a word other than auto, attach or copy is refused, naming the
/// field and its line.
#[test]
fn payload_auto_copies_on_a_port_without_multi_segment_tx_and_bad_words_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_, attached, v) = capture_payload(dir.path(), 9130, "auto");
    assert!(json_u64(&v, "/tx/frames") > 0);
    assert_eq!(attached, 0, "net_pcap does not report MULTI_SEGS: copied");
    let defs = [Def::simple("s", 1, false, false)];
    let yaml = with_payload(&profile("bad", &defs, "1M"), "glue");
    let p = common::write_file(dir.path(), "bad.yaml", &yaml);
    let out = common::landspeed(dir.path(), [std::ffi::OsStr::new("run"), p.as_os_str()]);
    out.assert_error(&[
        "bad.yaml:8: ports[0].payload",
        "unknown payload mode `glue`: use auto, attach or copy",
    ]);
}
/// The TX fast path (mbufs that keep their stream's headers, only the
/// changing fields stored, checksums from partial sums) sends the frames
/// of the whole-frame builder byte for byte: every captured frame equals
/// `FrameBuilder::write` of the same stream, sequence number and TX TSC,
/// for IPv4/IPv6, UDP/TCP, compact and full stamps, 594 to 9130 bytes and
/// an address range. (Checksum offload, which the pcap PMD cannot do, is
/// compared the same way in the builder's unit tests.)
#[test]
fn captured_frames_equal_the_reference_builder_s() {
    use landspeed::wire::builder::{FrameBuilder, SHARED_FILL_SEED};
    use landspeed::wire::fill::FillPattern;
    use landspeed::wire::CsumMode;
    use std::sync::Arc;

    let mut defs: Vec<Def> = Def::four()
        .into_iter()
        .map(|d| {
            let small = min_frame(d.v6, d.tcp, false);
            d.sizes(&[small, 594, 1518, 9130])
        })
        .collect();
    let mut r = ranges("step");
    r.name = "ranges";
    defs.push(r.sizes(&[64, 1518]));
    let dir = tempfile::tempdir().unwrap();
    let yaml = profile("refbytes", &defs, "100M");
    let (_, v) = run_profile(dir.path(), "refbytes", &yaml, &["-q"]);
    let frames = read_pcap(&dir.path().join("refbytes.pcap"));
    check_capture(&frames, &defs, &v);

    let streams = landspeed::profile_streams(&yaml).unwrap();
    let max_fill = streams.iter().map(FrameBuilder::max_fill).max().unwrap();
    let fill = Arc::new(FillPattern::new(SHARED_FILL_SEED, max_fill));
    let mut builders: HashMap<u32, FrameBuilder> = (streams.iter())
        .map(|s| {
            let b = FrameBuilder::with_fill(s, CsumMode::Software, Arc::clone(&fill)).unwrap();
            (s.id, b)
        })
        .collect();
    let mut seen: HashMap<u32, u64> = HashMap::new();
    for (i, raw) in frames.iter().enumerate() {
        let fr = parse_frame(raw).unwrap();
        let st = Stamp::parse(fr.payload).unwrap();
        let b = builders.get_mut(&st.stream_id).unwrap();
        let len = b.next_len();
        let mut want = vec![0u8; len];
        assert_eq!(b.write(&mut want, st.seq, 0), len, "frame {i}");
        b.set_tx_tsc(&mut want, st.tx_tsc);
        assert_eq!(
            raw[..],
            want[..],
            "frame {i}: stream {} seq {}",
            st.stream_id,
            st.seq
        );
        *seen.entry(st.stream_id).or_default() += 1;
    }
    for d in &defs {
        assert!(
            seen[&d.id] >= 4,
            "stream {}: {} frames",
            d.name,
            seen[&d.id]
        );
    }
}
