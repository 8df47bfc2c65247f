//! Ports sized for their frames: a 9130-byte frame arrives whole, in one
//! mbuf of a pool sized in the 1 KB units ixgbe gives its RX buffers, or as
//! a chain the receiver makes whole (never counted too short); the MTU is
//! the frame less the driver's L2 overhead; a profile that would drive a
//! PCI device without hugepages is refused before DPDK starts.

use crate::common;

use crate::common::{by_id, json_u64, landspeed, parse_frame, read_pcap, write_file};
use serde_json::Value;

const STREAM: &str = "streams:\n  - { name: a, id: 1, frame_size: 9130, \
    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 49152, dst: 5001 } }\n";

/// A loopback run on one `net_ring0` (its TX queue feeds its RX queue),
/// the receiver sharing CPU 0 with the reporter (which mostly sleeps):
/// 9130-byte frames at 100 Mbit/s for half a second, every frame checked,
/// the TX fill copied or attached as a second segment.
fn ring_profile(payload: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n  vdevs: [net_ring0]\n\
         ports:\n  - {{ name: p0, device: net_ring0, link: 10g, payload: {payload} }}\n{STREAM}\
         tx:\n  - {{ lcore: 1, port: p0, rate: 100M }}\n\
         rx:\n  - {{ lcore: 2, port: p0, verify: full }}\n\
         run:\n  duration: 500ms\n"
    )
}

/// Every frame sent arrived whole and good: counts and bytes exact.
fn assert_all_whole(v: &Value) {
    let sent = json_u64(v, "/tx/frames");
    assert!(sent > 100, "{sent} frames sent");
    let st = by_id(v, "/rx/streams", 1);
    assert_eq!(json_u64(st, "/frames"), sent);
    assert_eq!(json_u64(st, "/unique"), sent);
    assert_eq!(json_u64(st, "/bytes"), sent * 9130);
    assert_eq!(json_u64(st, "/lost"), 0);
    assert_eq!(json_u64(st, "/corrupt_total"), 0);
    assert_eq!(json_u64(v, "/rx/foreign"), 0);
    assert_eq!(json_u64(v, "/rx/foreign_breakdown/too_short"), 0);
}

/// Runs `yaml` as `name`; a loaded machine may deschedule a worker or
/// slow the sender below its target (exit 3 with `descheduled` or
/// `target_missed` problems only): the counts hold all the same.
fn run(dir: &std::path::Path, name: &str, yaml: &str) -> Value {
    let profile = write_file(dir, &format!("{name}.yaml"), yaml);
    let json = dir.join(format!("{name}.json"));
    let out = landspeed(
        dir,
        [
            "run",
            profile.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let v = common::read_json(&json);
    let problems = v["outcome"]["problems"].as_array().unwrap();
    assert!(
        out.status.success()
            || problems
                .iter()
                .all(|p| p["kind"] == "descheduled" || p["kind"] == "target_missed"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    v
}

#[test]
fn a_9130_byte_frame_arrives_whole_in_a_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let v = run(dir.path(), "copy", &ring_profile("copy"));
    assert_all_whole(&v);
    assert_eq!(json_u64(&v, "/tx/tasks/0/attached_frames"), 0);
    // A receiver that learns its streams may get any frame up to 16383
    // bytes: MTU 16383 − 18 (net_ring sets no MTU limit: Ethernet header
    // and FCS), room roundup(16383 + 8, 1024).
    assert_eq!(json_u64(&v, "/ports/0/mtu"), 16365);
    assert_eq!(json_u64(&v, "/ports/0/rx_mbuf_room"), 17408);
}

/// `payload: auto` on net_ring, which offers multi-segment TX: asked
/// only when some frame's fill reaches the attach threshold (9130-byte
/// frames), not for 1024-byte frames whose fill stays below it (asking
/// would take ixgbe, i40e and ice off their vector TX paths for nothing).
/// The port's set-up is in the JSON and the summary.
#[test]
fn multi_segment_tx_is_asked_only_when_a_fill_attaches() {
    let dir = tempfile::tempdir().unwrap();
    let v = run(dir.path(), "big", &ring_profile("auto"));
    assert_all_whole(&v);
    assert_eq!(
        json_u64(&v, "/tx/tasks/0/attached_frames"),
        json_u64(&v, "/tx/frames")
    );
    let setup = &v["ports"][0]["setup"];
    assert_eq!(setup["tx_offloads"], serde_json::json!(["tx-multi-segs"]));
    assert_eq!(setup["rx_offloads"], serde_json::json!([]));
    assert_eq!(setup["fast_free"], false);
    assert_eq!(setup["rx_drop_en"], false);
    // net_ring reports no burst mode.
    assert!(
        setup["tx_path"].is_null() && setup["rx_path"].is_null(),
        "{setup}"
    );

    // The largest 1024-byte frame's fill: 1024 − 4 − 42 − 18 = 960 bytes.
    let small = ring_profile("auto").replace("frame_size: 9130", "frame_size: 1024");
    let profile = write_file(dir.path(), "small.yaml", &small);
    let json = dir.path().join("small.json");
    let out = landspeed(
        dir.path(),
        [
            "run",
            profile.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let v = common::read_json(&json);
    assert_eq!(json_u64(&v, "/tx/tasks/0/attached_frames"), 0);
    assert_eq!(v["ports"][0]["setup"]["tx_offloads"], serde_json::json!([]));
    assert!(
        out.stdout.contains(
            "      port p0 (net_ring): TX path not reported, RX path not reported; offloads \
             asked: none\n"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_chained_9130_byte_frame_is_made_whole_not_too_short() {
    let dir = tempfile::tempdir().unwrap();
    let v = run(dir.path(), "attach", &ring_profile("attach"));
    assert_all_whole(&v);
    assert_eq!(
        json_u64(&v, "/tx/tasks/0/attached_frames"),
        json_u64(&v, "/tx/frames"),
        "every frame was a chain of two segments"
    );
}

#[test]
fn a_receiver_of_known_9130_byte_streams_gets_9k_mbufs() {
    let dir = tempfile::tempdir().unwrap();
    let tx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=sent.pcap\"]\n\
         ports:\n  - {{ name: p0, device: net_pcap0, link: 10g }}\n{STREAM}\
         tx:\n  - {{ lcore: 1, port: p0, rate: 100M }}\n\
         run:\n  duration: 300ms\n"
    );
    let t = run(dir.path(), "tx", &tx);
    let frames = read_pcap(&dir.path().join("sent.pcap"));
    assert_eq!(frames.len() as u64, json_u64(&t, "/tx/frames"));
    assert!(frames
        .iter()
        .all(|f| f.len() == 9126 && parse_frame(f).is_ok()));
    let rx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap=sent.pcap\"]\n\
         ports:\n  - {{ name: p0, device: net_pcap0, link: 10g }}\n{STREAM}\
         tx: []\n\
         rx:\n  - {{ lcore: 1, port: p0, streams: [a], verify: full }}\n\
         run:\n  duration: 1s\n"
    );
    let v = run(dir.path(), "rx", &rx);
    let st = by_id(&v, "/rx/streams", 1);
    assert_eq!(json_u64(st, "/frames"), frames.len() as u64);
    assert_eq!(json_u64(st, "/bytes"), frames.len() as u64 * 9130);
    assert_eq!(json_u64(st, "/corrupt_total"), 0);
    assert_eq!(json_u64(&v, "/rx/foreign_breakdown/too_short"), 0);
    assert_eq!(json_u64(&v, "/ports/0/mtu"), 9112);
    // roundup(9130 + 8, 1024): one segment on every PMD, ixgbe included
    // (the old frame + headroom rounded to 64 left 9152, which ixgbe
    // takes as 8192: two segments).
    assert_eq!(json_u64(&v, "/ports/0/rx_mbuf_room"), 9216);
}

#[test]
fn a_pci_device_without_hugepages_is_refused_before_dpdk_starts() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "eal:\n  cores: [0, 1]\n  hugepages: false\n  pci: [\"0000:3b:00.0\"]\n  file_prefix: lsm-pci\n\
         ports:\n  - {{ name: p0, device: \"0000:3b:00.0\" }}\n{STREAM}\
         tx:\n  - {{ lcore: 1, port: p0, rate: 1G }}\n"
    );
    let profile = write_file(dir.path(), "pci.yaml", &yaml);
    let out = landspeed(dir.path(), ["run", profile.to_str().unwrap()]);
    out.assert_error(&[
        "pci.yaml:3: eal.hugepages: false, but PCI device 0000:3b:00.0 needs hugepages",
        "set `hugepages: true`",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!std::path::Path::new("/var/run/dpdk/lsm-pci").exists());
}
