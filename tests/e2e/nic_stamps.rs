//! NIC timestamps on a virtual device: `net_ring` neither timestamps
//! frames nor has a clock to read, so `rx[].timestamps: auto` falls back
//! to the software arrival and says so (summary and JSON), and `nic` is
//! refused with the port and its driver named, before any frame is sent.

use crate::common;

use crate::common::{by_id, json_str, json_u64, landspeed, run_profile_sharing_cpus, write_file};
use serde_json::Value;

/// A loopback on one `net_ring0` (its TX queue feeds its RX queue), the
/// receiver asking `timestamps` (on line 16).
fn profile(timestamps: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n  vdevs: [net_ring0]\n\
         ports:\n  - name: p0\n    device: net_ring0\n    link: 10g\n\
         streams:\n  - {{ name: a, id: 1, frame_size: 128, \
         ipv4: {{ src: 198.18.0.1, dst: 198.19.0.1 }}, udp: {{ src: 49152, dst: 5001 }} }}\n\
         tx:\n  - {{ lcore: 1, port: p0, rate: 10M }}\n\
         rx:\n  - lcore: 2\n    port: p0\n    timestamps: {timestamps}\n\
         run:\n  duration: 300ms\n"
    )
}

/// What the result says of the port's timestamps and the stream's
/// latency source.
fn check_software(v: &Value, out: &common::Output, asked: &str) {
    let t = &v["ports"][0]["timestamps"];
    assert_eq!(
        t,
        &serde_json::json!({
            "asked": asked,
            "offered": { "rx_timestamp": false, "read_clock": false, "timesync": false },
            "rx": "software",
            "tx": "software",
            "tx_asked": "auto",
            "nic_clock": null,
            "tx_clock": null,
            "tx_latch_probe": null,
        }),
        "{t}"
    );
    let st = by_id(v, "/rx/streams", 1);
    assert!(json_u64(st, "/frames") > 0, "{st}");
    assert_eq!(json_str(st, "/latency_clock"), "tsc");
    assert_eq!(json_str(st, "/latency_source"), "software");
    assert_eq!(json_u64(st, "/latency_nic"), 0);
    assert_eq!(json_str(st, "/departure_source"), "software");
    // The sender asked `auto` (the default): the ring has no timesync, so
    // its departures are the software stamps, and no offset was sampled.
    assert_eq!(v["tx"]["streams"][0]["departure_offset"], Value::Null);
    let line = format!(
        "      timestamps p0: rx software, tx software (asked {asked}, tx auto; net_ring offers \
         rx-timestamp no, read-clock no, timesync no)\n"
    );
    assert!(out.stdout.contains(&line), "{}", out.stdout);
}

#[test]
fn auto_on_a_ring_falls_back_to_software_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (out, v) = run_profile_sharing_cpus(dir.path(), "auto", &profile("auto"), &[]);
    check_software(&v, &out, "auto");
    let (out, v) = run_profile_sharing_cpus(dir.path(), "sw", &profile("software"), &[]);
    check_software(&v, &out, "software");
}

#[test]
fn nic_on_a_ring_is_refused_naming_the_port_and_driver() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(dir.path(), "nic.yaml", &profile("nic"));
    let json = dir.path().join("nic.json");
    let out = landspeed(
        dir.path(),
        [
            "run",
            path.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    out.assert_error(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty());
    assert_eq!(
        last.unwrap(),
        format!(
            "landspeed: error: {}:16: rx[0].timestamps: `nic` asked, but port `p0` (driver \
             net_ring) does not timestamp received frames (no RTE_ETH_RX_OFFLOAD_TIMESTAMP); \
             use `auto` or `software`",
            path.display()
        )
    );
    assert!(!json.exists(), "no result for a refused run");
}

#[test]
fn nic_departures_on_a_ring_are_refused_naming_the_port_and_driver() {
    let dir = tempfile::tempdir().unwrap();
    let text = profile("software").replace(
        "  - { lcore: 1, port: p0, rate: 10M }\n",
        "  - { lcore: 1, port: p0, rate: 10M, timestamps: nic }\n",
    );
    let path = write_file(dir.path(), "txnic.yaml", &text);
    let json = dir.path().join("txnic.json");
    let out = landspeed(
        dir.path(),
        [
            "run",
            path.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    out.assert_error(&[]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty());
    assert_eq!(
        last.unwrap(),
        format!(
            "landspeed: error: {}:12: tx[0].timestamps: `nic` asked, but port `p0` (driver \
             net_ring) has no IEEE 1588 timesync (rte_eth_timesync_enable not supported), so \
             it latches no TX timestamps; use `auto` or `software`",
            path.display()
        )
    );
    assert!(!json.exists(), "no result for a refused run");
}
