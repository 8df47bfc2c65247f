//! An RX task's capture (`rx[].capture`): frames of known bytes are
//! replayed as received traffic through DPDK's pcap PMD, and the pcap file
//! the task writes must hold exactly the first (or the last) of them, byte
//! for byte, cut at the snap length, read back by an independent reader.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::common::{
    self, ipv4_udp_foreign, ipv6_tcp_foreign, json_str, json_u64, parse_pcap_records, write_pcap,
    PcapRecord,
};
use serde_json::Value;

/// Frames replayed: distinct payloads, IPv4/UDP and IPv6/TCP, from 60 to
/// 9,000 bytes (the jumbo ones take more than one mbuf).
fn frames() -> Vec<Vec<u8>> {
    (0..600usize)
        .map(|i| {
            let len = [20, 300, 1400, 8900][i % 4];
            let payload: Vec<u8> = (0..len).map(|k| (i + k) as u8).collect();
            if i % 2 == 0 {
                ipv4_udp_foreign(&payload)
            } else {
                ipv6_tcp_foreign(&payload)
            }
        })
        .collect()
}

/// Replays `frames` into an RX task capturing with `capture` (the YAML
/// mapping's body); returns the run's JSON and the records of the pcap
/// it wrote, its summary, and the wall clock (ns) before and after the run.
fn replay(capture: &str) -> (Value, Vec<PcapRecord>, String, (u64, u64)) {
    let _one = common::alone();
    let dir = tempfile::tempdir().unwrap();
    write_pcap(&dir.path().join("in.pcap"), &frames());
    let yaml = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap=in.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n\
         rx: [{{ lcore: 1, port: p0, verify: none, capture: {{ {capture} }} }}]\ntx: []\n\
         run:\n  duration: 1s\n"
    );
    let wall = || {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    };
    let before = wall();
    let (out, v) = common::run_profile(dir.path(), "cap", &yaml, &[]);
    let after = wall();
    let data = std::fs::read(dir.path().join("out.pcap")).expect("the capture file");
    let records = parse_pcap_records(&data).expect("a pcap file");
    (v, records, out.stdout, (before, after))
}

/// The folder of the run's profile, from its result.
fn dir_of(v: &Value) -> std::path::PathBuf {
    let profile = std::path::Path::new(json_str(v, "/profile"));
    profile.parent().expect("a folder").to_path_buf()
}

#[test]
fn a_capture_keeps_the_first_frames_byte_for_byte() {
    let sent = frames();
    let (v, got, summary, (before, after)) = replay("file: out.pcap, frames: 250");
    let line = summary
        .lines()
        .find(|l| l.contains("capture:"))
        .expect("a capture line");
    let file = dir_of(&v).join("out.pcap");
    assert_eq!(
        line.trim(),
        format!(
            "capture: kept 250 of 600 frames received (at most 16383 bytes each) in {}",
            file.display()
        )
    );
    assert_eq!(json_u64(&v, "/rx/frames"), 600);
    let c = &v["rx"]["tasks"][0]["capture"];
    assert_eq!(json_u64(c, "/frames_seen"), 600);
    assert_eq!(json_u64(c, "/frames_kept"), 250);
    assert_eq!(
        json_u64(c, "/snap"),
        16383,
        "the largest frame landspeed receives"
    );
    assert_eq!(
        json_str(c, "/file"),
        file.display().to_string(),
        "the profile's folder"
    );
    assert_eq!(got.len(), 250);
    for (i, r) in got.iter().enumerate() {
        assert_eq!(r.len as usize, sent[i].len(), "frame {i}: length");
        assert_eq!(r.bytes, sent[i], "frame {i}: bytes");
        assert!(before <= r.ns && r.ns <= after, "frame {i} at {} ns", r.ns);
    }
    assert!(
        got.windows(2).all(|w| w[0].ns <= w[1].ns),
        "in arrival order"
    );
}

#[test]
fn a_capture_that_keeps_the_last_frames_cut_at_the_snap() {
    let sent = frames();
    let (v, got, _, _) = replay("file: out.pcap, frames: 100, snap: 60, keep: last");
    let c = &v["rx"]["tasks"][0]["capture"];
    assert_eq!(json_u64(c, "/frames_seen"), 600);
    assert_eq!(json_u64(c, "/frames_kept"), 100);
    assert_eq!(got.len(), 100);
    for (k, r) in got.iter().enumerate() {
        let f = &sent[500 + k];
        assert_eq!(r.len as usize, f.len(), "frame {}: length", 500 + k);
        assert_eq!(
            r.bytes[..],
            f[..60],
            "frame {}: its first 60 bytes",
            500 + k
        );
    }
}

#[test]
fn bad_captures_are_refused_with_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let base = "eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\n\
                ports:\n  - name: p0\n    device: net_null0\n\
                rx: [{ lcore: 1, port: p0, capture: { CAP } }]\ntx: []\n";
    let cases = [
        ("file: nowhere/x.pcap", "rx[0].capture.file: the folder "),
        ("file: nowhere/x.pcap", "/nowhere does not exist"),
        ("file: a.pcap, frames: 0", "rx[0].capture.frames: 0 frames: a capture keeps 1 to 10,000,000 frames"),
        ("file: a.pcap, snap: 8", "rx[0].capture.snap: 8 bytes: a frame is kept from 14"),
        ("file: a.pcap, frames: 1000000, snap: 9000", "rx[0].capture.frames: 1,000,000 frames of 9000 bytes need 8583 MiB: a capture takes at most 1024 MiB"),
        ("file: a.pcap, keep: middle", "rx[0].capture.keep: unknown frames to keep `middle`: use first or last"),
        ("frames: 10", "rx[0].capture"),
        ("file: a.pcap, ring: 4", "rx[0].capture"),
    ];
    for (cap, want) in cases {
        let p = common::write_file(dir.path(), "bad.yaml", &base.replace("CAP", cap));
        let out = common::landspeed(dir.path(), [std::ffi::OsStr::new("run"), p.as_os_str()]);
        out.assert_error(&["bad.yaml:", want]);
    }
}
