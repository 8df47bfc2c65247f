//! Scale out on one port: two TX lcores on two queues of one port, two RX
//! lcores each polling one queue, and the per-stream results merged by
//! stream id whatever queue each frame came in on.
//!
//! The machine these tests run on may have two CPUs: the lcores share them
//! (`eal.cpus`, EAL's `--lcores=1@1,2@1,...`). That is a functional test,
//! exact counts and no figure of speed: a run whose lcores take turns on
//! a CPU reports them `descheduled` (exit 3), and that is the only problem
//! these runs may have.

use crate::common;

use std::ffi::OsStr;
use std::path::Path;

use crate::common::{by_id, json_f64, json_u64, parse_frame, read_pcap, write_file, write_pcap};
use landspeed::wire::stamp::Stamp;
use serde_json::Value;

/// [`common::run_shared`], every mbuf back at the end.
fn run_shared(dir: &Path, name: &str, yaml: &str) -> Value {
    let r = common::run_shared(dir, name, yaml);
    assert_eq!(json_u64(&r, "/mbufs_leaked"), 0);
    r
}

const TWO_STREAMS: &str = "streams:
  - { name: a, id: 1, frame_size: 128, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 49152, dst: 5001 } }
  - { name: b, id: 2, frame_size: 1518, ipv4: { src: 198.18.0.2, dst: 198.19.0.2 }, udp: { src: 49153, dst: 5002 } }
";

#[test]
fn two_tx_lcores_and_two_rx_lcores_share_one_ring_port() {
    // One net_ring vdev: its TX queue i is its RX queue i. Stream a goes
    // out on queue 0 from lcore 1, stream b on queue 1 from lcore 2; lcore
    // 3 polls RX queue 0, lcore 4 queue 1. Senders share CPU 1, receivers
    // CPU 0 with the main lcore. The senders go as fast as the ring takes
    // frames (`max`): a receiver that waits for its CPU lets its ring fill,
    // and a paced sender would then miss its target. Frames the ring
    // refuses are offered again, never lost.
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "eal:\n  cores: [0, 1, 2, 3, 4]\n  cpus: [0, 1, 1, 0, 0]\n  vdevs: [net_ring0]\n\
         ports:\n  - {{ name: p0, device: net_ring0, tx_queues: 2, rx_queues: 2, link: 10g }}\n\
         {TWO_STREAMS}\
         tx:\n  - {{ lcore: 1, port: p0, queue: 0, streams: [a], rate: 20000pps, mode: max }}\n\
         \x20 - {{ lcore: 2, port: p0, queue: 1, streams: [b], rate: 10000pps, mode: max }}\n\
         rx:\n  - {{ lcore: 3, port: p0, queues: [0], verify: full }}\n\
         \x20 - {{ lcore: 4, port: p0, queues: [1], verify: full }}\n\
         run:\n  duration: 1s\n"
    );
    let r = run_shared(dir.path(), "ring", &yaml);
    let tasks = r["tx"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 2);
    for (k, (lcore, target)) in [(1, 20_000), (2, 10_000)].into_iter().enumerate() {
        assert_eq!(json_u64(&tasks[k], "/lcore"), lcore);
        assert_eq!(json_u64(&tasks[k], "/queue"), k as u64);
        // Each task's rate is its own.
        assert_eq!(json_u64(&tasks[k], "/target_per_sec"), target);
        assert_eq!(tasks[k]["target_layer"], "frames");
    }
    let (sa, sb) = (
        json_u64(by_id(&r, "/tx/streams", 1), "/frames"),
        json_u64(by_id(&r, "/tx/streams", 2), "/frames"),
    );
    assert_eq!(json_u64(&tasks[0], "/frames"), sa);
    assert_eq!(json_u64(&tasks[1], "/frames"), sb);
    let sent = json_u64(&r, "/tx/frames");
    assert_eq!(sent, sa + sb, "the port's total is its tasks' sum");
    assert!(sa > 100 && sb > 100, "{sa} {sb}");
    // The PMD's counters are the port's, both queues: they agree.
    assert_eq!(json_u64(&r, "/tx/pmd_frames"), sent);
    assert_eq!(r["tx"]["pmd_agrees"], true);
    assert_eq!(json_u64(&r, "/ports/0/stats/opackets"), sent);
    assert_eq!(json_u64(&r, "/ports/0/stats/ipackets"), sent);
    assert_eq!(json_u64(&r, "/rx/pmd/ipackets"), sent);
    // The achieved total is the sum of the tasks' rates.
    let fps = json_f64(&tasks[0], "/achieved/fps") + json_f64(&tasks[1], "/achieved/fps");
    assert_eq!(json_f64(&r, "/tx/achieved/fps"), fps);
    // Every frame came back, each stream on its own queue and lcore.
    assert_eq!(json_u64(&r, "/rx/frames"), sent);
    assert_eq!(json_u64(&r, "/rx/good"), sent);
    for (id, frames) in [(1, sa), (2, sb)] {
        let st = by_id(&r, "/rx/streams", id);
        assert_eq!(json_u64(st, "/frames"), frames, "stream {id}");
        assert_eq!(json_u64(st, "/unique"), frames);
        assert_eq!(json_u64(st, "/max_seq"), frames - 1);
        for key in ["/lost", "/reordered", "/duplicated", "/corrupt_total"] {
            assert_eq!(json_u64(st, key), 0, "stream {id} {key}");
        }
    }
    let rx_tasks = r["rx"]["tasks"].as_array().unwrap();
    for (k, (lcore, id, frames)) in [(3, 1, sa), (4, 2, sb)].into_iter().enumerate() {
        let t = &rx_tasks[k];
        assert_eq!(json_u64(t, "/lcore"), lcore);
        assert_eq!(json_u64(t, "/frames"), frames);
        let own = t["streams"].as_array().unwrap();
        assert_eq!(own.len(), 1, "lcore {lcore}: {own:?}");
        assert_eq!(json_u64(&own[0], "/id"), id);
        assert_eq!(json_u64(&own[0], "/frames"), frames);
    }
    assert_eq!(json_u64(&r, "/rx/lost"), 0);
}

/// The sequence number landspeed stamped into `frame`.
fn seq_of(frame: &[u8]) -> u64 {
    let p = parse_frame(frame).expect("a frame landspeed sent");
    Stamp::parse(p.payload).expect("a stamp").seq
}

#[test]
fn copies_across_queues_are_duplicates_and_order_counts_per_queue() {
    // One stream's frames, split over two receive queues of a pcap port
    // by sequence parity. Queue 0 also carries a copy of frames 1 and 3
    // (each in its place: 0 1 2 3 4 6 8 ...), which queue 1 has as well;
    // queue 1 has frames 7 and 5 swapped.
    let dir = tempfile::tempdir().unwrap();
    let stream = "streams:\n  - { name: a, id: 1, frame_size: 1518, \
                  ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 49152, dst: 5001 } }\n";
    let tx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=clean.pcap\"]\n\
         ports:\n  - {{ name: p0, device: net_pcap0, link: 10g }}\n{stream}\
         tx:\n  - {{ lcore: 1, port: p0, rate: 20M }}\nrun:\n  duration: 200ms\n"
    );
    let t = run_shared(dir.path(), "tx", &tx);
    let frames = read_pcap(&dir.path().join("clean.pcap"));
    let n = json_u64(&t, "/tx/frames");
    assert_eq!(frames.len() as u64, n);
    assert!(n > 100, "{n} frames");
    let by_seq = |s: u64| frames[s as usize].clone();
    assert_eq!(seq_of(&by_seq(7)), 7);
    let mut q0 = Vec::new();
    let mut q1 = Vec::new();
    for s in 0..n {
        if s % 2 == 0 {
            q0.push(by_seq(s));
            if s == 0 || s == 2 {
                q0.push(by_seq(s + 1));
            }
        } else {
            q1.push(by_seq(match s {
                5 => 7,
                7 => 5,
                _ => s,
            }));
        }
    }
    write_pcap(&dir.path().join("q0.pcap"), &q0);
    write_pcap(&dir.path().join("q1.pcap"), &q1);
    let rx = format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 1]\n  \
         vdevs: [\"net_pcap0,rx_pcap=q0.pcap,rx_pcap=q1.pcap\"]\n\
         ports:\n  - {{ name: p0, device: net_pcap0, rx_queues: 2, link: 10g }}\n{stream}\
         rx:\n  - {{ lcore: 1, port: p0, queues: [0], verify: full }}\n\
         \x20 - {{ lcore: 2, port: p0, queues: [1], verify: full }}\n\
         tx: []\nrun:\n  duration: 1s\n"
    );
    let r = run_shared(dir.path(), "rx", &rx);
    let st = by_id(&r, "/rx/streams", 1);
    assert_eq!(json_u64(st, "/frames"), n + 2);
    assert_eq!(json_u64(st, "/unique"), n, "each sequence number once");
    assert_eq!(
        json_u64(st, "/duplicated"),
        2,
        "the copies that went to queue 0"
    );
    assert_eq!(json_u64(st, "/lost"), 0);
    assert_eq!(json_u64(st, "/reordered"), 1, "7 before 5 on queue 1 only");
    assert_eq!(json_u64(st, "/max_seq"), n - 1);
    assert_eq!(json_u64(&r, "/rx/duplicated"), 2);
    assert_eq!(json_u64(&r, "/rx/reordered"), 1);
    assert_eq!(json_u64(&r, "/rx/lost"), 0);
    // Each lcore's own view: its frames, its order, its copies.
    let own = |k: usize| &r["rx"]["tasks"][k]["streams"][0];
    assert_eq!(json_u64(own(0), "/frames"), q0.len() as u64);
    assert_eq!(json_u64(own(0), "/unique"), q0.len() as u64);
    assert_eq!(json_u64(own(0), "/reordered"), 0);
    assert_eq!(json_u64(own(0), "/duplicated"), 0);
    assert_eq!(json_u64(own(1), "/frames"), q1.len() as u64);
    assert_eq!(json_u64(own(1), "/reordered"), 1);
    assert_eq!(json_u64(own(1), "/duplicated"), 0);
}

#[test]
fn tasks_of_one_port_together_fit_its_line() {
    // 60 % and 50 % of one port's line from two queues: 110 %.
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 1]\n  vdevs: [net_null0]\n\
         ports:\n  - {{ name: p0, device: net_null0, tx_queues: 2, link: 10g }}\n\
         {TWO_STREAMS}\
         tx:\n  - {{ lcore: 1, port: p0, queue: 0, streams: [a], rate: 60% }}\n\
         \x20 - {{ lcore: 2, port: p0, queue: 1, streams: [b], rate: 50% }}\n\
         run:\n  duration: 1s\n"
    );
    let p = write_file(dir.path(), "over.yaml", &yaml);
    let out = common::landspeed(dir.path(), [OsStr::new("run"), p.as_os_str()]);
    out.assert_error(&[
        "over.yaml:",
        "tx[1].rate",
        "the TX tasks of port `p0` together ask 110.0 % of its 10 Gbit/s line (tx[0] 60.0 %, tx[1] 50.0 %)",
    ]);
}

#[test]
fn cpus_give_one_cpu_per_lcore() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1]\n  vdevs: [net_null0]\n\
                ports:\n  - { name: p0, device: net_null0 }\n\
                streams:\n  - { name: a }\n\
                tx:\n  - { lcore: 1, port: p0, rate: 1M }\n";
    let p = write_file(dir.path(), "cpus.yaml", yaml);
    let out = common::landspeed(dir.path(), [OsStr::new("run"), p.as_os_str()]);
    out.assert_error(&[
        "cpus.yaml:3: eal.cpus: 2 CPUs for 3 lcores: give one CPU per lcore of eal.cores, in its order",
    ]);
    let yaml = yaml.replace("cpus: [0, 1]", "cpus: [0, 1, 4095]");
    let p = write_file(dir.path(), "cpus.yaml", &yaml);
    let out = common::landspeed(dir.path(), [OsStr::new("run"), p.as_os_str()]);
    out.assert_error(&["eal.cpus[2]: CPU 4095 is beyond the 128 CPUs DPDK is built for"]);
    let yaml = yaml.replace("4095", "127");
    let p = write_file(dir.path(), "cpus.yaml", &yaml);
    let out = common::landspeed(dir.path(), [OsStr::new("run"), p.as_os_str()]);
    out.assert_error(&["eal.cpus: CPU 127 (of lcore 2) does not exist on this machine"]);
}
