//! The receive engine's acceptance test: a clean capture made by the TX
//! side is edited with exactly known defects (lost, reordered, duplicated,
//! corrupt and foreign frames), replayed as received traffic through DPDK's
//! pcap PMD, and the receiver must count each defect exactly.

use crate::common;

use std::sync::OnceLock;

use crate::common::{
    by_id, json_str, json_u64, parse_frame, read_pcap, run_profile, write_pcap, Rng,
};
use landspeed::wire::stamp::Stamp;
use landspeed::wire::{dissect, Dissected};
use serde_json::Value;

const ID_A: u32 = 1; // IPv4/UDP
const ID_B: u32 = 2; // IPv6/TCP

/// The streams, as the TX profile sends them and the RX profiles declare
/// them (a declared stream sizes the port's buffers for 9130-byte frames).
const STREAMS: &str = "streams:
  - name: a
    id: 1
    frame_size: 9130
    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }
    udp: { src: 49152, dst: 5001 }
  - name: b
    id: 2
    frame_size: 9130
    ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }
    tcp: { src: 40000, dst: 5001 }
";

/// A clean capture of both streams, made once per test process.
struct Clean {
    /// Every frame, in capture order.
    frames: Vec<Vec<u8>>,
    /// Each stream's frames in sequence order.
    a: Vec<Vec<u8>>,
    b: Vec<Vec<u8>>,
}

fn stream_of(frame: &[u8]) -> (u32, u64) {
    let p = parse_frame(frame).expect("a frame landspeed sent");
    let st = Stamp::parse(p.payload).expect("a stamp landspeed wrote");
    (st.stream_id, st.seq)
}

fn clean() -> &'static Clean {
    static CLEAN: OnceLock<Clean> = OnceLock::new();
    CLEAN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let yaml = format!(
            "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=clean.pcap\"]\n\
             ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{STREAMS}\
             tx:\n  - lcore: 1\n    port: p0\n    rate: 200M\n    mode: spin\n\
             run:\n  duration: 1s\n"
        );
        let (_, v) = run_profile(dir.path(), "clean", &yaml, &["-q"]);
        let frames = read_pcap(&dir.path().join("clean.pcap"));
        assert_eq!(frames.len() as u64, json_u64(&v, "/tx/frames"));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for f in &frames {
            let (id, seq) = stream_of(f);
            let list = if id == ID_A { &mut a } else { &mut b };
            assert_eq!(seq, list.len() as u64, "the clean capture is in order");
            list.push(f.clone());
        }
        Clean { frames, a, b }
    })
}

/// The defects to apply to one stream.
#[derive(Clone, Copy, Debug)]
struct Defects {
    removed: usize,
    swapped: usize,
    duplicated: usize,
    corrupted: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Edit {
    Keep,
    Remove,
    SwapWithNext,
    Duplicate,
    Corrupt,
}

/// Flips one bit of the fill (well after the stamp) of `frame`.
fn flip_fill_bit(frame: &[u8]) -> Vec<u8> {
    let off = parse_frame(frame).expect("our frame").payload_off;
    let mut f = frame.to_vec();
    f[off + 32 + 1000] ^= 0x10;
    f
}

/// `frames` (one stream in sequence order) with the defects applied at
/// interior, well separated positions.
fn apply(frames: &[Vec<u8>], d: Defects) -> Vec<Vec<u8>> {
    let mut kinds = Vec::new();
    // Interleave the kinds so that no two edits are neighbours.
    let most = d.removed.max(d.swapped).max(d.duplicated).max(d.corrupted);
    for i in 0..most {
        for (k, n) in [
            (Edit::Remove, d.removed),
            (Edit::SwapWithNext, d.swapped),
            (Edit::Duplicate, d.duplicated),
            (Edit::Corrupt, d.corrupted),
        ] {
            if i < n {
                kinds.push(k);
            }
        }
    }
    let n = frames.len();
    let step = (n - 2) / (kinds.len() + 1);
    assert!(
        step >= 4,
        "{n} frames are too few for {} separated edits",
        kinds.len()
    );
    let mut plan = vec![Edit::Keep; n];
    for (j, k) in kinds.iter().enumerate() {
        plan[1 + step * (j + 1)] = *k;
    }
    assert_eq!(plan[0], Edit::Keep);
    assert_eq!(plan[n - 1], Edit::Keep);
    let mut out = Vec::with_capacity(n + d.duplicated);
    let mut i = 0;
    while i < n {
        match plan[i] {
            Edit::Keep => out.push(frames[i].clone()),
            Edit::Remove => {}
            Edit::SwapWithNext => {
                out.push(frames[i + 1].clone());
                out.push(frames[i].clone());
                i += 1;
            }
            Edit::Duplicate => {
                out.push(frames[i].clone());
                out.push(frames[i].clone());
            }
            Edit::Corrupt => out.push(flip_fill_bit(&frames[i])),
        }
        i += 1;
    }
    out
}

/// Two streams' frames, alternating, then what is left of the longer.
fn interleave(a: &[Vec<u8>], b: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    for i in 0..a.len().max(b.len()) {
        out.extend(a.get(i).cloned());
        out.extend(b.get(i).cloned());
    }
    out
}

/// An RX-only profile replaying `pcap` (in the profile's folder).
fn rx_profile(pcap: &str, streams: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap={pcap}\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{streams}\
         rx: [{{ lcore: 1, port: p0, verify: full }}]\ntx: []\n\
         run:\n  duration: 2s\n"
    )
}

/// Every received frame is counted in exactly one category.
fn assert_partition(v: &Value) {
    let streams: u64 = v["rx"]["streams"]
        .as_array()
        .expect("rx.streams")
        .iter()
        .map(|s| s["frames"].as_u64().unwrap())
        .sum();
    let unattributed: u64 = v["rx"]["corrupt_unattributed"]
        .as_object()
        .expect("corrupt_unattributed")
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    let breakdown: u64 = v["rx"]["foreign_breakdown"]
        .as_object()
        .expect("foreign_breakdown")
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(
        breakdown,
        json_u64(v, "/rx/foreign"),
        "foreign is its breakdown's sum"
    );
    let others = json_u64(v, "/rx/foreign") + json_u64(v, "/rx/overflow");
    assert_eq!(
        streams + unattributed + others,
        json_u64(v, "/rx/frames"),
        "frames of streams + unattributed corrupt + foreign (not landspeed/short/unknown) + overflow"
    );
}

/// Writes `frames` into a fresh folder, replays them, returns the result.
fn replay(name: &str, frames: &[Vec<u8>], streams: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    write_pcap(&dir.path().join(format!("{name}.pcap")), frames);
    let yaml = rx_profile(&format!("{name}.pcap"), streams);
    let (_, v) = run_profile(dir.path(), name, &yaml, &["-q"]);
    assert!(v["tx"].is_null(), "an RX-only run has no TX side");
    assert_eq!(
        json_u64(&v, "/rx/frames"),
        frames.len() as u64,
        "frames replayed"
    );
    assert_partition(&v);
    v
}

fn assert_stream(v: &Value, id: u32, frames: usize, d: Defects) {
    let st = by_id(v, "/rx/streams", u64::from(id));
    let ctx = format!("stream {id}");
    assert_eq!(json_u64(st, "/frames"), frames as u64, "{ctx}: frames");
    assert_eq!(json_u64(st, "/lost"), d.removed as u64, "{ctx}: lost");
    assert_eq!(
        json_u64(st, "/reordered"),
        d.swapped as u64,
        "{ctx}: reordered"
    );
    assert_eq!(
        json_u64(st, "/duplicated"),
        d.duplicated as u64,
        "{ctx}: duplicated"
    );
    assert_eq!(
        json_u64(st, "/corrupt_total"),
        d.corrupted as u64,
        "{ctx}: corrupt"
    );
    assert_eq!(
        json_u64(st, "/corrupt/payload"),
        d.corrupted as u64,
        "{ctx}: corrupt.payload (fill checksum)"
    );
    for other in ["ip_checksum", "l4_checksum", "stamp", "length"] {
        assert_eq!(
            json_u64(st, &format!("/corrupt/{other}")),
            0,
            "{ctx}: {other}"
        );
    }
    assert_eq!(json_u64(st, "/stale"), 0, "{ctx}: stale");
    // Each swap delays one frame by one position: extent 1 (RFC 4737).
    assert_eq!(
        json_u64(st, "/reorder_extent_max"),
        u64::from(d.swapped > 0),
        "{ctx}: reorder_extent_max"
    );
    assert_eq!(
        json_u64(st, "/reorder_extent_sum"),
        d.swapped as u64,
        "{ctx}: reorder_extent_sum"
    );
}

#[test]
fn clean_replay_counts_no_defect() {
    let c = clean();
    let v = replay("clean", &c.frames, STREAMS);
    assert_eq!(json_u64(&v, "/rx/good"), c.frames.len() as u64);
    assert_eq!(
        json_u64(&v, "/mbufs_leaked"),
        0,
        "every mbuf is back in its pool"
    );
    for key in [
        "lost",
        "reordered",
        "duplicated",
        "corrupt",
        "foreign",
        "foreign_breakdown/not_landspeed",
        "foreign_breakdown/too_short",
        "foreign_breakdown/unknown_version",
        "foreign_breakdown/untracked_stream",
        "overflow",
    ] {
        assert_eq!(json_u64(&v, &format!("/rx/{key}")), 0, "rx.{key}");
    }
    let none = Defects {
        removed: 0,
        swapped: 0,
        duplicated: 0,
        corrupted: 0,
    };
    assert_stream(&v, ID_A, c.a.len(), none);
    assert_stream(&v, ID_B, c.b.len(), none);
    // Sender and receiver were different processes: no one-way latency.
    assert!(
        json_str(&v, "/rx/latency_kind").contains("inter-arrival only"),
        "latency_kind: {}",
        json_str(&v, "/rx/latency_kind")
    );
    assert!(by_id(&v, "/rx/streams", 1)["latency"].is_null());
}

#[test]
fn defects_are_counted_exactly() {
    let c = clean();
    let da = Defects {
        removed: 3,
        swapped: 2,
        duplicated: 4,
        corrupted: 1,
    };
    let db = Defects {
        removed: 5,
        swapped: 1,
        duplicated: 2,
        corrupted: 3,
    };
    let a = apply(&c.a, da);
    let b = apply(&c.b, db);
    assert_eq!(a.len(), c.a.len() - da.removed + da.duplicated);
    assert_eq!(b.len(), c.b.len() - db.removed + db.duplicated);

    // Foreign frames, each classified as the dissector does.
    let foreign = [
        common::arp_frame(),
        common::ipv4_udp_foreign(b"a UDP datagram of someone else's"),
        common::ipv6_tcp_foreign(b"a TCP segment of someone else's"),
    ];
    let mut runt20 = c.a[0][..14].to_vec(); // an IPv4 EtherType, then 6 bytes
    runt20.extend_from_slice(&[0x45, 0, 0, 20, 0, 0]);
    let too_short = [runt20, c.a[0][..10].to_vec(), c.b[0][..70].to_vec()];
    for f in &foreign {
        assert_eq!(dissect(f), Dissected::Foreign, "{f:02x?}");
    }
    for f in &too_short {
        assert_eq!(dissect(f), Dissected::TooShort, "{f:02x?}");
    }

    let mut frames = interleave(&a, &b);
    let inserts: Vec<&Vec<u8>> = foreign.iter().chain(too_short.iter()).collect();
    let gap = frames.len() / (inserts.len() + 1);
    for (j, f) in inserts.iter().enumerate().rev() {
        frames.insert(gap * (j + 1), (*f).clone());
    }
    let v = replay("defects", &frames, STREAMS);

    assert_stream(&v, ID_A, a.len(), da);
    assert_stream(&v, ID_B, b.len(), db);
    assert_eq!(
        json_u64(&v, "/rx/foreign_breakdown/not_landspeed"),
        foreign.len() as u64,
        "rx.foreign_breakdown.not_landspeed"
    );
    assert_eq!(
        json_u64(&v, "/rx/foreign_breakdown/too_short"),
        too_short.len() as u64,
        "rx.foreign_breakdown.too_short"
    );
    assert_eq!(json_u64(&v, "/rx/foreign"), 6, "G = 6 frames not ours");
    assert_eq!(json_u64(&v, "/rx/foreign_breakdown/unknown_version"), 0);
    assert_eq!(json_u64(&v, "/rx/foreign_breakdown/untracked_stream"), 0);
    assert_eq!(json_u64(&v, "/rx/lost"), (da.removed + db.removed) as u64);
    assert_eq!(
        json_u64(&v, "/rx/reordered"),
        (da.swapped + db.swapped) as u64
    );
    assert_eq!(
        json_u64(&v, "/rx/duplicated"),
        (da.duplicated + db.duplicated) as u64
    );
    assert_eq!(
        json_u64(&v, "/rx/corrupt"),
        (da.corrupted + db.corrupted) as u64
    );
    assert_eq!(
        json_u64(&v, "/rx/good"),
        (a.len() + b.len() - da.corrupted - db.corrupted) as u64
    );
}

#[test]
fn garbage_is_counted_without_a_panic() {
    let c = clean();
    let mut rng = Rng(0x5eed);
    let mut frames = Vec::new();
    for i in 0..200 {
        let len = rng.below(1515) as usize;
        let mut f = rng.bytes(len);
        // Steer a third of them into the IPv4 and a third into the IPv6
        // parser.
        if len >= 14 {
            match i % 3 {
                0 => f[12..14].copy_from_slice(&[0x08, 0x00]),
                1 => f[12..14].copy_from_slice(&[0x86, 0xdd]),
                _ => {}
            }
        }
        frames.push(f);
    }
    for len in 0..=80 {
        frames.push(c.a[0][..len].to_vec());
        frames.push(c.b[0][..len].to_vec());
    }
    // No streams declared: an RX-only profile that learns what comes.
    let v = replay("garbage", &frames, "");
    assert_eq!(json_u64(&v, "/rx/good"), 0);
}

/// An RX-only profile that declares no stream still takes the 9130-byte
/// frames it receives (the default stream size) rather than reading only
/// their first 2 KB and counting them as too short.
#[test]
fn rx_only_profile_without_streams_takes_jumbo_frames() {
    let c = clean();
    let v = replay("nostreams", &c.frames, "");
    assert_eq!(
        json_u64(&v, "/rx/foreign_breakdown/too_short"),
        0,
        "jumbo frames counted as too short"
    );
    assert_eq!(json_u64(&v, "/rx/good"), c.frames.len() as u64);
}

/// TX and RX in one process over `net_ring0`, which loops its TX queue to
/// its RX queue. That needs three lcores (the main one, a TX task, an RX
/// task, one task per lcore), so on a host with fewer CPUs the profile is
/// refused and only that refusal is checked.
#[test]
fn loopback_ring_tx_and_rx() {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "eal:\n  cores: [0, 1, 2]\n  vdevs: [net_ring0]\n\
         ports:\n  - name: p0\n    device: net_ring0\n    link: 10g\n{STREAMS}\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 200M\n    mode: spin\n\
         rx:\n  - lcore: 2\n    port: p0\n    verify: full\n\
         run:\n  duration: 2s\n"
    );
    if cpus < 3 {
        let p = common::write_file(dir.path(), "loop.yaml", &yaml);
        let out = common::landspeed(dir.path(), [std::ffi::OsStr::new("run"), p.as_os_str()]);
        out.assert_error(&["eal.cores", "lcore 2 does not exist"]);
        eprintln!("loopback_ring_tx_and_rx: {cpus} CPUs, needs 3: only the refusal was checked");
        return;
    }
    let (_, v) = run_profile(dir.path(), "loop", &yaml, &["-q"]);
    assert_partition(&v);
    for id in [ID_A, ID_B] {
        let sent = json_u64(by_id(&v, "/tx/streams", u64::from(id)), "/frames");
        let st = by_id(&v, "/rx/streams", u64::from(id));
        assert!(sent > 0);
        assert_eq!(
            json_u64(st, "/frames"),
            sent,
            "stream {id}: received vs sent"
        );
        assert_eq!(json_u64(st, "/lost"), 0, "stream {id}: lost");
        assert_eq!(json_u64(st, "/corrupt_total"), 0, "stream {id}: corrupt");
    }
    assert_eq!(json_u64(&v, "/rx/foreign"), 0);
    assert!(
        json_str(&v, "/rx/latency_kind").starts_with("one-way"),
        "latency_kind: {}",
        json_str(&v, "/rx/latency_kind")
    );
}

/// A receiver that starts after the sender sees a stream from some
/// sequence number on: the frames before it are not lost (`lost` counts
/// from the first frame seen).
#[test]
fn late_start_counts_loss_from_the_first_frame_seen() {
    let c = clean();
    let skip = 500;
    let a = &c.a[skip..];
    let frames = interleave(a, &c.b);
    let v = replay("latestart", &frames, STREAMS);
    let st = by_id(&v, "/rx/streams", u64::from(ID_A));
    assert_eq!(json_u64(st, "/frames"), a.len() as u64);
    assert_eq!(json_u64(st, "/max_seq"), (c.a.len() - 1) as u64);
    assert_eq!(
        json_u64(st, "/lost"),
        0,
        "frames sent before the first one seen"
    );
    assert_eq!(json_u64(&v, "/rx/lost"), 0);
}

/// `count_from: zero` says the receiver listened before the sender's first
/// frame: the same late start then counts every frame below the first one
/// seen as lost. A word other than `first_seen` or `zero` is refused,
/// naming the field.
#[test]
fn count_from_zero_counts_the_frames_before_the_first_seen_as_lost() {
    let c = clean();
    let skip = 500;
    let frames = interleave(&c.a[skip..], &c.b);
    let dir = tempfile::tempdir().unwrap();
    write_pcap(&dir.path().join("zero.pcap"), &frames);
    let yaml = rx_profile("zero.pcap", STREAMS)
        .replace("verify: full }", "verify: full, count_from: zero }");
    let (_, v) = run_profile(dir.path(), "zero", &yaml, &["-q"]);
    assert_partition(&v);
    let st = by_id(&v, "/rx/streams", u64::from(ID_A));
    assert_eq!(json_u64(st, "/frames"), (c.a.len() - skip) as u64);
    assert_eq!(
        json_u64(st, "/lost"),
        skip as u64,
        "sequences 0..{skip} never arrived"
    );
    assert_eq!(
        json_u64(by_id(&v, "/rx/streams", u64::from(ID_B)), "/lost"),
        0
    );
    assert_eq!(json_u64(&v, "/rx/lost"), skip as u64);

    let bad = yaml.replace("count_from: zero", "count_from: never");
    let path = common::write_file(dir.path(), "bad.yaml", &bad);
    let out = common::landspeed(dir.path(), ["run", path.to_str().unwrap()]);
    out.assert_error(&[
        "bad.yaml:",
        "rx[0].count_from: unknown loss origin `never`: use first_seen or zero",
    ]);
}

/// Stream a alone, its frame `from` moved to just after frame `to`
/// (late, when `to > from`) or just before it (early, when `to < from`).
fn displaced(frames: &[Vec<u8>], from: usize, to: usize) -> Vec<Vec<u8>> {
    let mut out = frames.to_vec();
    let f = out.remove(from);
    out.insert(to, f);
    out
}

/// RFC 4737: one frame arriving 200 positions late is one reordered
/// frame, of extent 200, and nothing is lost.
#[test]
fn one_late_frame_is_one_reordered_of_extent_200() {
    let c = clean();
    let frames = displaced(&c.a, 100, 300);
    // Arrivals: 0..99, 101..300, 100, 301..
    let v = replay("late200", &frames, STREAMS);
    let st = by_id(&v, "/rx/streams", u64::from(ID_A));
    assert_eq!(json_u64(st, "/reordered"), 1);
    assert_eq!(json_u64(st, "/reorder_extent_max"), 200);
    assert_eq!(json_u64(st, "/reorder_extent_sum"), 200);
    assert_eq!(json_u64(st, "/lost"), 0);
    assert_eq!(json_u64(st, "/duplicated"), 0);
    assert_eq!(json_u64(&v, "/rx/reordered"), 1);
    assert_eq!(json_u64(&v, "/rx/reorder_extent_max"), 200);
    let ratio = v["rx"]["reordered_ratio"]
        .as_f64()
        .expect("rx.reordered_ratio");
    assert_eq!(ratio, 1.0 / c.a.len() as f64);
}

/// RFC 4737 again: one frame arriving 200 positions early makes each of
/// the 200 frames it overtook reordered (each arrived after a frame with a
/// larger sequence number), of extents 1 to 200.
#[test]
fn one_early_frame_reorders_every_frame_it_overtook() {
    let c = clean();
    let frames = displaced(&c.a, 300, 100);
    // Arrivals: 0..99, 300, 100..299, 301..
    let v = replay("early200", &frames, STREAMS);
    let st = by_id(&v, "/rx/streams", u64::from(ID_A));
    assert_eq!(json_u64(st, "/reordered"), 200);
    assert_eq!(json_u64(st, "/reorder_extent_max"), 200);
    assert_eq!(json_u64(st, "/reorder_extent_sum"), 200 * 201 / 2);
    assert_eq!(json_u64(st, "/lost"), 0);
}

/// A corrupt frame whose stamp cannot be read (its stream and sequence
/// number are unknown) counts once, as corrupt: the gap it leaves in its
/// stream is not counted in `rx.lost` as well.
#[test]
fn unreadable_stamp_counts_corrupt_not_also_lost() {
    let c = clean();
    let mut a = c.a.clone();
    let off = parse_frame(&a[10]).expect("our frame").payload_off;
    a[10][off + 9] ^= 0x01; // the sequence number: the stamp check fails
    let v = replay("badstamp", &interleave(&a, &c.b), STREAMS);
    assert_eq!(json_u64(&v, "/rx/corrupt_unattributed/stamp"), 1);
    assert_eq!(json_u64(&v, "/rx/corrupt"), 1);
    assert_eq!(
        json_u64(&v, "/rx/lost"),
        0,
        "counted corrupt, not also lost"
    );
    // The stream itself sees a gap it cannot tell from a loss.
    assert_eq!(
        json_u64(by_id(&v, "/rx/streams", u64::from(ID_A)), "/lost"),
        1
    );
}

/// An RX-only profile replaying `pcap` whose task checks only `list`.
fn rx_profile_listing(pcap: &str, list: &str) -> String {
    rx_profile(pcap, STREAMS).replace(
        "verify: full }",
        &format!("verify: full, streams: [{list}] }}"),
    )
}

/// docs/profile.md: an RX `streams:` list makes other stream ids count as
/// foreign (`foreign_breakdown.untracked_stream`), not checked.
#[test]
fn a_streams_list_makes_other_streams_foreign() {
    let c = clean();
    let dir = tempfile::tempdir().unwrap();
    write_pcap(&dir.path().join("listed.pcap"), &c.frames);
    let yaml = rx_profile_listing("listed.pcap", "a");
    let (out, v) = run_profile(dir.path(), "listed", &yaml, &["-q"]);
    assert_partition(&v);
    let streams = v["rx"]["streams"].as_array().unwrap();
    assert_eq!(streams.len(), 1, "only stream a is checked: {streams:?}");
    assert_eq!(json_u64(&streams[0], "/id"), u64::from(ID_A));
    assert_eq!(json_u64(&streams[0], "/frames"), c.a.len() as u64);
    let b = c.b.len() as u64;
    assert_eq!(json_u64(&v, "/rx/foreign_breakdown/untracked_stream"), b);
    assert_eq!(json_u64(&v, "/rx/foreign"), b);
    assert_eq!(json_u64(&v, "/rx/good"), c.a.len() as u64);
    assert_eq!(json_u64(&v, "/rx/overflow"), 0);
    assert!(
        out.stdout
            .contains(&format!("foreign {b}: not landspeed 0, too short 0, unknown stamp version 0, stream not checked {b}")),
        "{}",
        out.stdout
    );
}

/// docs/profile.md: rates of streams run over their own first-to-last
/// arrival, and the receiver's rate over the checked streams' span:
/// foreign frames before the first and after the last never stretch it.
#[test]
fn foreign_frames_before_and_after_do_not_stretch_the_span() {
    let c = clean();
    let foreign = common::ipv4_udp_foreign(&[0x5a; 1000]);
    let mut frames = vec![foreign.clone(); 3000];
    frames.extend(c.a.iter().cloned());
    frames.extend(std::iter::repeat_n(foreign, 3000));
    let v = replay("span", &frames, STREAMS);
    assert_eq!(json_u64(&v, "/rx/foreign"), 6000);
    let st = by_id(&v, "/rx/streams", u64::from(ID_A));
    let n = c.a.len() as u64;
    assert_eq!(json_u64(st, "/frames"), n);
    // One stream: the receiver's span and rates are exactly the stream's.
    let span = common::json_f64(&v, "/rx/span_s");
    assert!(span > 0.0);
    assert_eq!(span, common::json_f64(st, "/span_s"));
    assert_eq!(v["rx"]["achieved"], st["achieved"]);
    // n − 1 frames over the span (the first opens it), stream bytes only.
    let fps = common::json_f64(&v, "/rx/achieved/fps");
    let want = (n - 1) as f64 / span;
    assert!((fps - want).abs() <= want * 1e-12, "{fps} vs {want}");
    let l2 = common::json_f64(&v, "/rx/achieved/l2_bps");
    let want = (json_u64(st, "/bytes") * 8) as f64 * (n - 1) as f64 / n as f64 / span;
    assert!((l2 - want).abs() <= want * 1e-12, "{l2} vs {want}");
}

/// More streams than an RX lcore tracks: the summary, the JSON and the
/// exit status say so, and no stream is reported lost.
#[test]
fn streams_beyond_what_a_receiver_tracks_are_reported_not_lost() {
    use landspeed::wire::builder::{CsumMode, FrameBuilder};
    use landspeed::wire::spec::{SizeSpec, StreamSpec};
    // An RX lcore tracks 4096 streams (docs/profile.md).
    let limit = 4096u32;
    let extra = 5u32;
    let fill = std::sync::Arc::new(landspeed::wire::fill::FillPattern::new(1, 100));
    let mut frames = Vec::new();
    for id in 1..=limit + extra {
        let spec = StreamSpec {
            id,
            size: SizeSpec::Fixed(64),
            ..StreamSpec::default()
        };
        let mut b = FrameBuilder::with_fill(&spec, CsumMode::Software, fill.clone()).unwrap();
        for seq in 0..2 {
            let mut buf = vec![0u8; b.max_len()];
            b.next_len();
            let len = b.write(&mut buf, seq, 0);
            buf.truncate(len);
            frames.push(buf);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    write_pcap(&dir.path().join("many.pcap"), &frames);
    let yaml = rx_profile("many.pcap", "");
    common::write_file(dir.path(), "many.yaml", &yaml);
    let out = common::landspeed(
        dir.path(),
        ["run", "many.yaml", "-q", "--json", "many.json"],
    );
    assert_eq!(
        out.status.code(),
        Some(3),
        "a shortfall: {}\n{}",
        out.stdout,
        out.stderr
    );
    let v = common::read_json(&dir.path().join("many.json"));
    assert_partition(&v);
    assert_eq!(json_u64(&v, "/rx/overflow"), u64::from(2 * extra));
    assert_eq!(json_u64(&v, "/rx/overflow_streams"), u64::from(extra));
    assert_eq!(v["rx"]["streams"].as_array().unwrap().len(), limit as usize);
    assert_eq!(json_u64(&v, "/rx/lost"), 0);
    assert_eq!(json_u64(&v, "/rx/foreign"), 0);
    let p = common::problem(&v, "streams_not_tracked");
    assert_eq!(json_str(p, "/kind"), "streams_not_tracked");
    assert_eq!((json_u64(p, "/frames"), json_u64(p, "/streams")), (10, 5));
    assert_eq!(json_u64(p, "/limit"), u64::from(limit));
    // The verdict says what its figures cover.
    let e = json_str(&v, "/verdict/explanation");
    assert!(e.ends_with(" Its figures cover only the 4096 streams tracked: 10 frames of 5 more streams arrived untracked (overflow), so their loss, order and integrity are unknown."), "{e}");
    assert!(
        out.stdout.contains(&format!(
            "      overflow 10 frames of 5 streams not tracked (an RX lcore tracks at most {limit} streams; not counted lost)\n"
        )),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("warning: overflow 10 frames of 5 streams not tracked"),
        "{}",
        out.stdout
    );
}

/// `a` and `b` in alternating runs of `run` frames each.
fn runs_of(a: &[Vec<u8>], b: &[Vec<u8>], run: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut ca, mut cb) = (a.chunks(run), b.chunks(run));
    loop {
        let (x, y) = (ca.next(), cb.next());
        if x.is_none() && y.is_none() {
            return out;
        }
        out.extend(x.into_iter().flatten().cloned());
        out.extend(y.into_iter().flatten().cloned());
    }
}

/// The receiver looks a stream up once for each run of its frames: the
/// two streams, with defects, interleaved frame by frame for a third of
/// the replay, then in runs of one RX burst (64 frames), then in runs of
/// 100 that go on from one burst into the next, are counted exactly.
#[test]
fn streams_interleaved_in_runs_are_counted_exactly() {
    let c = clean();
    let da = Defects {
        removed: 3,
        swapped: 2,
        duplicated: 2,
        corrupted: 1,
    };
    let db = Defects {
        removed: 2,
        swapped: 1,
        duplicated: 3,
        corrupted: 2,
    };
    let a = apply(&c.a, da);
    let b = apply(&c.b, db);
    let (a1, a23) = a.split_at(a.len() / 3);
    let (a2, a3) = a23.split_at(a23.len() / 2);
    let (b1, b23) = b.split_at(b.len() / 3);
    let (b2, b3) = b23.split_at(b23.len() / 2);
    let mut frames = interleave(a1, b1);
    frames.extend(runs_of(a2, b2, 64));
    frames.extend(runs_of(a3, b3, 100));
    assert_eq!(frames.len(), a.len() + b.len());
    let v = replay("runs", &frames, STREAMS);
    assert_stream(&v, ID_A, a.len(), da);
    assert_stream(&v, ID_B, b.len(), db);
    assert_eq!(
        (json_u64(&v, "/rx/foreign"), json_u64(&v, "/rx/overflow")),
        (0, 0),
        "nothing foreign, nothing overflowed"
    );
    assert_eq!(json_u64(&v, "/rx/lost"), (da.removed + db.removed) as u64);
    assert_eq!(json_u64(&v, "/mbufs_leaked"), 0);
}
