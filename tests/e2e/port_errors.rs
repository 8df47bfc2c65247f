//! A port that refuses frames, end to end, on a real PMD counter.
//!
//! DPDK 22.11's net_tap reads each frame with one `readv` into its RX
//! buffer (no RX scatter); when the frame is longer, the kernel truncates
//! it and flags it `TUN_PKT_STRIP`, and the PMD drops it and counts it in
//! `ierrors` (`pmd_rx_burst`). So the kernel side of a tap, its MTU raised
//! past the DPDK port's buffers, can make the port refuse an exact number
//! of frames: these tests send them from a raw socket (python3) while
//! landspeed receives on the tap, and check every place the refusal must
//! show: the port's counters and error series (which interval it began
//! in), the interval line's marker, the verdict, the `port_rx_errors`
//! problem and the exit status.
//!
//! Needs root (a tap device) and python3; skips with a line saying why
//! otherwise. The tap goes away with the landspeed process that made it.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::child::Proc;
use crate::common::host::Need;
use crate::common::{json_str, json_u64, read_json, write_file};
use serde_json::Value;

/// What these tests need of the host.
const NEEDS: &[Need] = &[
    Need::Root("a tap device needs root"),
    Need::File("/dev/net/tun", "the tun driver"),
    Need::Program("python3", "for the raw-socket sender"),
];

/// Sends `big` frames of `big_len` bytes (FCS excluded) and then `small`
/// frames of 114 bytes out of the kernel side of `iface`, from a raw
/// socket; returns once all were handed to the kernel.
fn kernel_sends(iface: &str, big: u32, big_len: u32, small: u32) {
    let script = "import socket, sys\n\
                  iface, big, big_len, small = sys.argv[1], *map(int, sys.argv[2:])\n\
                  s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)\n\
                  s.bind((iface, 0))\n\
                  hdr = bytes.fromhex('020000000002' '020000000001' '88b5')\n\
                  for _ in range(big):\n    assert s.send(hdr + bytes(big_len - 14)) == big_len\n\
                  for _ in range(small):\n    assert s.send(hdr + bytes(100)) == 114\n";
    let out = Command::new("timeout")
        .args(["10", "python3", "-c", script, iface])
        .args([big.to_string(), big_len.to_string(), small.to_string()])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "raw-socket sender failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `ip ARGS`, which must succeed.
fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// An RX-only profile on a tap named `iface`.
fn tap_rx_profile(iface: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_tap0,iface={iface}\"]\n\
         ports:\n  - name: rx0\n    device: net_tap0\n\
         rx: [{{ lcore: 1, port: rx0, verify: full }}]\ntx: []\n\
         run:\n  duration: 4s\n  interval: 500ms\n"
    )
}

/// The refused frames of each interval line (its `rx_err N` marker).
fn line_markers(stdout: &str) -> Vec<u64> {
    (stdout.lines())
        .filter(|l| l.starts_with("[SUM]"))
        .map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == "rx_err");
            words.next().map_or(0, |n| n.parse().expect("a count"))
        })
        .collect()
}

#[test]
fn frames_longer_than_the_tap_buffers_are_refused_by_the_port() {
    if common::host::skip(
        "port error",
        "frames_longer_than_the_tap_buffers_are_refused_by_the_port",
        NEEDS,
    ) {
        return;
    }
    const BIG: u32 = 25;
    const SMALL: u32 = 7;
    const BIG_LEN: u32 = 16_000;
    let dir = tempfile::tempdir().unwrap();
    let iface = format!("lspe{}", std::process::id() % 100_000);
    let profile = write_file(dir.path(), "tap.yaml", &tap_rx_profile(&iface));
    let json = dir.path().join("tap.json");
    let _alone = common::alone();
    let mut rx = Proc::start_plain(
        dir.path(),
        "rx",
        &[
            "run",
            profile.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
        ],
    );
    rx.wait_ready(Duration::from_secs(30));
    // The DPDK port set the kernel side's MTU to what its buffers hold;
    // raised, the kernel sends frames the port cannot hold.
    ip(&["link", "set", &iface, "mtu", "16000"]);
    kernel_sends(&iface, BIG, BIG_LEN, SMALL);
    let done = rx.wait(Duration::from_secs(60));
    let v = read_json(&json);
    assert_eq!(
        done.status.code(),
        Some(3),
        "a port that refused frames is a shortfall\n{}{}",
        done.stdout,
        done.stderr
    );
    assert!(!done.stderr.contains("panicked"), "{}", done.stderr);

    // The port's own counters: exactly the frames too long for it.
    let port = &v["ports"][0];
    assert_eq!(json_str(port, "/driver"), "net_tap");
    assert!(
        json_u64(port, "/rx_mbuf_room") < u64::from(BIG_LEN),
        "{port}"
    );
    assert_eq!(json_u64(port, "/stats/ierrors"), u64::from(BIG));
    let errors = &port["errors"];
    assert_eq!(json_u64(errors, "/rx_refused"), u64::from(BIG));
    assert_eq!(json_u64(errors, "/tx_errors"), 0);
    assert_eq!(json_u64(errors, "/rx_drops"), 0);
    // When they began: the first interval that counted any.
    let series = errors["intervals"].as_array().expect("intervals");
    let refused: Vec<&Value> = series
        .iter()
        .filter(|i| json_u64(i, "/rx_refused") > 0)
        .collect();
    assert!(!refused.is_empty(), "{errors}");
    assert_eq!(
        refused
            .iter()
            .map(|i| json_u64(i, "/rx_refused"))
            .sum::<u64>(),
        u64::from(BIG)
    );
    let first = json_u64(refused[0], "/start_ms");
    assert_eq!(json_u64(errors, "/first_rx_refused_ms"), first);
    assert_eq!(
        json_u64(errors, "/peak_rx_refused"),
        refused
            .iter()
            .map(|i| json_u64(i, "/rx_refused"))
            .max()
            .unwrap()
    );
    // The same in the run's intervals and on the interval lines.
    let intervals = v["intervals"].as_array().expect("intervals");
    assert_eq!(
        intervals
            .iter()
            .map(|i| json_u64(i, "/rx_refused"))
            .sum::<u64>(),
        u64::from(BIG)
    );
    let markers = line_markers(&done.stdout);
    assert_eq!(markers.len(), intervals.len(), "{}", done.stdout);
    for (m, iv) in markers.iter().zip(intervals) {
        assert_eq!(*m, json_u64(iv, "/rx_refused"), "{}", done.stdout);
    }
    let k = json_u64(refused[0], "/interval") as usize;
    assert_eq!(
        json_u64(&intervals[k], "/rx_refused"),
        json_u64(refused[0], "/rx_refused")
    );
    // The frames that fit arrived (with whatever the kernel sent itself).
    assert!(
        json_u64(&v, "/rx/frames") >= u64::from(SMALL),
        "{}",
        v["rx"]
    );

    // The problem, the verdict and the summary say so, with the counter.
    let p = common::problem(&v, "port_rx_errors");
    assert_eq!(json_str(p, "/port"), "rx0");
    assert_eq!(json_u64(p, "/frames"), u64::from(BIG));
    assert_eq!(p["counters"], serde_json::json!([["ierrors", BIG]]));
    assert_eq!(p["first_s"].as_f64(), Some(first as f64 / 1000.0));
    let others: Vec<&Value> = (v["outcome"]["problems"].as_array().unwrap().iter())
        .filter(|p| p["kind"] != "port_rx_errors" && p["kind"] != "descheduled")
        .collect();
    assert!(others.is_empty(), "{others:?}");
    assert_eq!(json_str(&v, "/verdict/binding"), "port");
    let explanation = json_str(&v, "/verdict/explanation");
    assert!(
        explanation.contains(&format!(
            "the receiving port refused {BIG} frames (ierrors {BIG}): it counted them \
             malformed or too long"
        )),
        "{explanation}"
    );
    assert!(
        done.stdout.contains(&format!(
            "warning: port rx0 (net_tap) refused {BIG} received frames (ierrors {BIG}), from \
             {:.2} s into the run",
            first as f64 / 1000.0
        )),
        "{}",
        done.stdout
    );
    assert!(
        !Path::new("/sys/class/net").join(&iface).exists(),
        "the tap {iface} outlived its run"
    );
}
