//! A stream whose frames arrive on two RX lcores (each polling one queue of
//! the same port) is reported once, its lcores' counts merged: no false
//! loss. The frames are a capture made by the TX side, split by sequence
//! number parity into the two receive queues of DPDK's pcap PMD.

use crate::common::{by_id, json_u64, parse_frame, read_pcap, run_shared, write_pcap};
use landspeed::wire::stamp::Stamp;

const STREAM: &str = "streams:
  - { name: a, id: 1, frame_size: 1518, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 49152, dst: 5001 } }
";

/// The sequence number landspeed stamped into `frame`.
fn seq_of(frame: &[u8]) -> u64 {
    let p = parse_frame(frame).expect("a frame landspeed sent");
    Stamp::parse(p.payload).expect("a stamp").seq
}

#[test]
fn a_stream_over_two_rx_lcores_is_one_stream() {
    let dir = tempfile::tempdir().unwrap();
    let tx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=clean.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{STREAM}\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 50M\n    mode: spin\n\
         run:\n  duration: 300ms\n"
    );
    // A loaded machine may deschedule the sender: the capture holds
    // what it sent all the same.
    let t = run_shared(dir.path(), "tx", &tx);
    let frames = read_pcap(&dir.path().join("clean.pcap"));
    let sent = json_u64(&t, "/tx/frames");
    assert_eq!(frames.len() as u64, sent);
    // Even sequence numbers, less one, to queue 0; odd ones to queue 1.
    let even: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| seq_of(f).is_multiple_of(2) && seq_of(f) != 10)
        .cloned()
        .collect();
    let odd: Vec<Vec<u8>> = frames
        .iter()
        .filter(|f| seq_of(f) % 2 == 1)
        .cloned()
        .collect();
    write_pcap(&dir.path().join("even.pcap"), &even);
    write_pcap(&dir.path().join("odd.pcap"), &odd);
    // Lcores 1 and 2 share CPU 1 (`--lcores=0@0,1@1,2@1`) on a machine of
    // two CPUs: a functional check of the counts, which sharing does not
    // change (the run is `descheduled`, exit 3, and nothing else).
    let rx = format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 1]\n  vdevs: [\"net_pcap0,rx_pcap=even.pcap,rx_pcap=odd.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    rx_queues: 2\n    link: 10g\n{STREAM}\
         rx:\n  - {{ lcore: 1, port: p0, queues: [0], verify: full }}\n\
         \x20 - {{ lcore: 2, port: p0, queues: [1], verify: full }}\n\
         tx: []\nrun:\n  duration: 2s\n"
    );
    let r = run_shared(dir.path(), "rx", &rx);
    let list = r["rx"]["streams"].as_array().expect("rx.streams");
    assert_eq!(list.len(), 1, "one entry for stream 1: {list:?}");
    let st = by_id(&r, "/rx/streams", 1);
    let got = sent - 1;
    assert_eq!(json_u64(st, "/frames"), got, "frames of both lcores");
    assert_eq!(json_u64(st, "/unique"), got);
    assert_eq!(
        json_u64(st, "/lost"),
        1,
        "only sequence number 10 is missing"
    );
    assert_eq!(json_u64(st, "/max_seq"), sent - 1);
    assert_eq!(json_u64(&r, "/rx/lost"), 1);
    assert_eq!(json_u64(st, "/duplicated"), 0);
    assert_eq!(json_u64(st, "/corrupt_total"), 0);
    assert_eq!(r["rx"]["tasks"].as_array().unwrap().len(), 2);
    // Each lcore's own view of the stream is kept beside the merged one.
    for (k, part) in [(0, &even), (1, &odd)] {
        let own = &r["rx"]["tasks"][k]["streams"];
        assert_eq!(own.as_array().unwrap().len(), 1, "{own}");
        assert_eq!(json_u64(&own[0], "/id"), 1);
        assert_eq!(json_u64(&own[0], "/frames"), part.len() as u64);
        assert_eq!(json_u64(&own[0], "/unique"), part.len() as u64);
        assert_eq!(json_u64(&own[0], "/duplicated"), 0);
    }
}
