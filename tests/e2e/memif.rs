//! Two `landspeed` processes joined by DPDK's `net_memif` (shared memory,
//! no namespaces, no root needed): the receiver is the memif server and
//! starts first, the sender is the client. Whichever side leaves first
//! tells the other in band and waits for its acknowledgement before it
//! disconnects (docs/lab.md, "The departure handshake"). Every frame sent
//! arrives once, in order, intact; the receiver's counts equal the
//! sender's; the socket file and the DPDK runtime directories are gone
//! afterwards.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::common::child::{self, Proc};
use crate::common::{assert_no_run_dir, json_u64, read_json, ROOT};

/// Seconds of traffic.
const TX_SECS: u64 = 3;
/// The receiver's `--duration`: only a bound. It is interrupted (SIGINT)
/// once the sender has finished, so it always outlives the sender.
const RX_BOUND: u64 = 30;

/// configs/NAME with the memif socket moved to `sock`, written into `dir`.
fn profile(dir: &Path, name: &str, sock: &Path) -> PathBuf {
    let text = std::fs::read_to_string(format!("{ROOT}/configs/{name}"))
        .unwrap_or_else(|e| panic!("configs/{name}: {e}"));
    const SHIPPED: &str = "socket=/tmp/landspeed-memif.sock";
    assert!(text.contains(SHIPPED), "configs/{name} has no `{SHIPPED}`");
    let text = text.replace(SHIPPED, &format!("socket={}", sock.display()));
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `run PROFILE -t DURATION --json JSON`: how the tests start each side.
fn run_args<'a>(profile: &'a Path, duration: &'a str, json: &'a Path) -> [&'a str; 6] {
    let (profile, json) = (profile.to_str().unwrap(), json.to_str().unwrap());
    ["run", profile, "-t", duration, "--json", json]
}

#[test]
fn memif_between_two_processes_is_exact() {
    // A pair takes both CPUs of a small machine: no other run meanwhile.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("memif.sock");
    let rx = profile(dir.path(), "memif-rx.yaml", &sock);
    let tx = profile(dir.path(), "memif-tx.yaml", &sock);
    let (txj, rxj, joinj) = (
        dir.path().join("tx.json"),
        dir.path().join("rx.json"),
        dir.path().join("joined.json"),
    );
    let rx_dur = format!("{RX_BOUND}s");
    let tx_dur = format!("{TX_SECS}s");
    // The server first; the client connects to the socket it made. The
    // server outlives the client: interrupted 1 s after the sender ends.
    let mut r = Proc::start_plain(
        dir.path(),
        "receiver",
        &[
            "run",
            rx.to_str().unwrap(),
            "-t",
            &rx_dur,
            "--json",
            rxj.to_str().unwrap(),
        ],
    );
    r.wait_ready(Duration::from_secs(20));
    assert!(
        sock.exists(),
        "the memif server made no socket file {}",
        sock.display()
    );
    let limit = Duration::from_secs(TX_SECS + 30);
    let (t, r) = child::side_by_side(
        dir.path(),
        r,
        None,
        &[
            "run",
            tx.to_str().unwrap(),
            "-t",
            &tx_dur,
            "-q",
            "--json",
            txj.to_str().unwrap(),
        ],
        (limit, limit),
        Duration::from_secs(1),
    );
    let (ts, tpid, terr) = (t.status, t.pid, t.stderr);
    let (rs, rpid, rerr) = (r.status, r.pid, r.stderr);
    assert!(
        ts.success() && !terr.contains("panicked"),
        "sender: {ts}\n{terr}"
    );
    // Stopped by SIGINT before its bound: an interrupted run (exit 4).
    assert!(
        rs.code() == Some(4) && !rerr.contains("panicked"),
        "receiver: {rs}\n{rerr}"
    );

    let tx = read_json(&txj);
    let rx = read_json(&rxj);
    assert_eq!(rx["outcome"]["interrupted_by"], "SIGINT");
    assert_eq!(rx["outcome"]["complete"], Value::Bool(false));
    let sent = json_u64(&tx, "/tx/frames");
    // At least 80 % of 2 Gbit/s (27,382 frames/s).
    assert!(
        sent as f64 >= 0.8 * 27_382.0 * TX_SECS as f64,
        "only {sent} frames sent"
    );
    assert_eq!(json_u64(&tx, "/tx/pmd_frames"), sent);
    assert_eq!(json_u64(&tx, "/tx/pmd_errors"), 0);
    let s = &rx["rx"]["streams"][0];
    assert_eq!(
        json_u64(s, "/frames"),
        sent,
        "receiver's count: lost {} (sequence gaps), last sequence {}",
        json_u64(s, "/lost"),
        json_u64(s, "/max_seq")
    );
    assert_eq!(json_u64(s, "/unique"), sent);
    assert_eq!(json_u64(s, "/bytes"), sent * 9130);
    for k in ["lost", "reordered", "duplicated", "corrupt_total"] {
        assert_eq!(json_u64(s, &format!("/{k}")), 0, "{k}");
    }
    assert_eq!(json_u64(&rx, "/rx/good"), sent);
    assert_eq!(
        json_u64(&rx, "/rx/frames"),
        sent,
        "frames that were not ours"
    );
    // The sender said `leaving` behind its last frame and the receiver
    // acknowledged; the PMD's counts leave both out.
    let (tc, rc) = (&tx["ports"][0]["control"], &rx["ports"][0]["control"]);
    assert_eq!(
        (json_u64(tc, "/sent"), json_u64(tc, "/received")),
        (1, 1),
        "sender: {tc}"
    );
    assert_eq!(
        (json_u64(rc, "/sent"), json_u64(rc, "/received")),
        (1, 1),
        "receiver: {rc}"
    );
    assert_eq!(json_u64(&tx, "/ports/0/stats/opackets"), sent);
    assert_eq!(json_u64(&rx, "/ports/0/stats/ipackets"), sent);

    let (text, joined) = child::report(&txj, &rxj, &joinj);
    assert!(
        text.contains("every frame sent arrived once, in order, intact"),
        "{text}"
    );
    assert_eq!(joined["exact"], Value::Bool(true), "{text}");
    assert_eq!(json_u64(&joined, "/streams/0/missing"), 0);

    // Nothing left behind: the server removes its socket file.
    assert!(!sock.exists(), "{} left behind", sock.display());
    assert_no_run_dir(tpid);
    assert_no_run_dir(rpid);
}

/// The receiver (the memif server) is stopped with SIGINT while the sender
/// still sends, 16 times: the receiver tells the sender it leaves (a
/// control frame), the sender stops and acknowledges, and only then does
/// the receiver close its port, so the sender never sends into memory the
/// driver is unmapping. Every try: the sender reports the departure as a
/// problem learned from the notice (exit 3), `target_met: false`, its
/// JSON, no crash, and nothing left behind; the receiver exits 4 within
/// its grace.
#[test]
fn a_receiver_that_leaves_mid_run_is_reported_by_the_sender() {
    const TRIES: usize = 16;
    let _alone = common::alone();
    for k in 0..TRIES {
        let dir = tempfile::tempdir().unwrap();
        let sock = dir.path().join("memif.sock");
        let rx = profile(dir.path(), "memif-rx.yaml", &sock);
        let tx = profile(dir.path(), "memif-tx.yaml", &sock);
        let txj = dir.path().join("tx.json");
        let mut r = Proc::start_plain(
            dir.path(),
            "receiver",
            &["run", rx.to_str().unwrap(), "-t", "60s"],
        );
        r.wait_ready(Duration::from_secs(20));
        let mut t = Proc::start_plain(dir.path(), "sender", &run_args(&tx, "30s", &txj));
        t.wait_ready(Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1500));
        r.interrupt();
        let asked = std::time::Instant::now();
        let r = r.wait(Duration::from_secs(20));
        let t = t.wait(Duration::from_secs(20));
        // The receiver's wait for the acknowledgement is bounded (0.5 s),
        // the sender's for the disconnect too (2 s).
        let took = asked.elapsed();
        assert!(
            took < Duration::from_secs(8),
            "try {k}: both ended {took:?} after the SIGINT"
        );
        assert_eq!(r.status.code(), Some(4), "try {k}: receiver\n{}", r.stderr);
        assert_eq!(
            t.status.code(),
            Some(3),
            "try {k}: sender\n{}\n{}",
            t.stdout,
            t.stderr
        );
        let j = read_json(&txj);
        let p = common::problem(&j, "peer_left");
        assert_eq!(p["kind"], "peer_left", "try {k}: {p}");
        assert_eq!(p["port"], "m0");
        assert_eq!(
            p["by"], "notice",
            "try {k}: learned from its link, not the notice: {p}"
        );
        let at = p["at_s"].as_f64().unwrap();
        assert!(at > 1.0 && at < 30.0, "try {k}: left at {at} s");
        assert_eq!(j["outcome"]["target_met"], Value::Bool(false));
        assert_eq!(j["outcome"]["complete"], Value::Bool(true));
        assert!(
            t.stdout.lines().any(
                |l| l.starts_with("warning: the peer of port m0 disconnected ")
                    && l.contains("(it said it was leaving)")
            ),
            "{}",
            t.stdout
        );
        assert!(json_u64(&j, "/tx/frames") > 0);
        // It heard `leaving` and acknowledged it, and said nothing else.
        let c = &j["ports"][0]["control"];
        assert_eq!(
            (json_u64(c, "/sent"), json_u64(c, "/received")),
            (1, 1),
            "try {k}: {c}"
        );
        assert!(!sock.exists(), "{} left behind", sock.display());
        assert_no_run_dir(t.pid);
        assert_no_run_dir(r.pid);
    }
}

/// Senders come and go while one receiver (the memif server) keeps
/// polling: each is stopped with SIGINT mid-run, tells the receiver that
/// it leaves (a control frame behind its last frame), and closes its port
/// only once the receiver acknowledged, so the receiver never polls a ring
/// the driver is unmapping (without the handshake it died of SIGSEGV in 1
/// of ~30 tries on a loaded two-core VM). The receiver survives every
/// departure, takes the next sender's traffic once the last one is gone,
/// counts every frame each sender sent under its own stream, and ends
/// (exit 4) when it is interrupted in its turn.
#[test]
fn senders_interrupted_mid_run_leave_the_receiver_running_and_exact() {
    const SENDERS: u64 = 4;
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("memif.sock");
    // The receiver expects stream ids 1..=SENDERS, one per sender.
    let rx = profile(dir.path(), "memif-rx.yaml", &sock);
    let text = std::fs::read_to_string(&rx).unwrap();
    let one = "  - name: v4\n    id: 1\n";
    let (head, tail) = text.split_at(text.find(one).expect("memif-rx.yaml's stream v4"));
    let tail = &tail[one.len()..];
    let body_end = tail.find("\n\n").unwrap();
    let (body, rest) = tail.split_at(body_end);
    let streams: String = (1..=SENDERS)
        .map(|k| format!("  - name: s{k}\n    id: {k}\n{body}\n"))
        .collect();
    let names: Vec<String> = (1..=SENDERS).map(|k| format!("s{k}")).collect();
    let rest = rest.replace("streams: [v4]", &format!("streams: [{}]", names.join(", ")));
    std::fs::write(
        &rx,
        format!("{head}{streams}{}", rest.trim_start_matches('\n')),
    )
    .unwrap();
    let rxj = dir.path().join("rx.json");
    let mut r = Proc::start_plain(dir.path(), "receiver", &run_args(&rx, "90s", &rxj));
    r.wait_ready(Duration::from_secs(20));
    let mut sent = Vec::new();
    for k in 1..=SENDERS {
        let tx = profile(dir.path(), "memif-tx.yaml", &sock);
        let text = std::fs::read_to_string(&tx).unwrap();
        assert!(text.contains("    id: 1\n"), "memif-tx.yaml's stream id");
        std::fs::write(&tx, text.replace("    id: 1\n", &format!("    id: {k}\n"))).unwrap();
        let txj = dir.path().join(format!("tx{k}.json"));
        let args = run_args(&tx, "30s", &txj);
        let mut t = Proc::start_plain(dir.path(), &format!("sender{k}"), &args);
        t.wait_ready(Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1000));
        t.interrupt();
        let t = t.wait(Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(500));
        if let Some(st) = r.child.try_wait().unwrap() {
            panic!(
                "the receiver ended ({st}) when sender {k} left\nreceiver stdout:\n{}\nreceiver stderr:\n{}\nsender stdout:\n{}",
                std::fs::read_to_string(&r.out).unwrap_or_default(),
                std::fs::read_to_string(&r.err).unwrap_or_default(),
                t.stdout
            );
        }
        assert_eq!(t.status.code(), Some(4), "sender {k}\n{}", t.stderr);
        let tx = read_json(&txj);
        let n = json_u64(&tx, "/tx/frames");
        assert!(n > 0, "sender {k} sent nothing");
        assert_eq!(json_u64(&tx, "/tx/pmd_frames"), n, "sender {k}");
        // It said `leaving` and heard the receiver's acknowledgement; the
        // PMD's counts leave both out.
        let c = &tx["ports"][0]["control"];
        assert_eq!(
            (json_u64(c, "/sent"), json_u64(c, "/received")),
            (1, 1),
            "sender {k}: {c}"
        );
        assert_eq!(json_u64(&tx, "/ports/0/stats/opackets"), n, "sender {k}");
        assert_eq!(json_u64(&tx, "/ports/0/stats/ipackets"), 0, "sender {k}");
        assert_no_run_dir(t.pid);
        sent.push(n);
    }
    r.interrupt();
    let r = r.wait(Duration::from_secs(20));
    assert_eq!(r.status.code(), Some(4), "receiver\n{}", r.stderr);
    let rx = read_json(&rxj);
    let total: u64 = sent.iter().sum();
    assert_eq!(json_u64(&rx, "/rx/frames"), total, "frames received");
    for (k, &n) in sent.iter().enumerate() {
        let s = &rx["rx"]["streams"][k];
        assert_eq!(json_u64(s, "/id"), k as u64 + 1);
        assert_eq!(json_u64(s, "/frames"), n, "stream {}", k + 1);
        for what in ["lost", "reordered", "duplicated", "corrupt_total"] {
            assert_eq!(
                json_u64(s, &format!("/{what}")),
                0,
                "stream {}: {what}",
                k + 1
            );
        }
    }
    // One `leaving` heard and one acknowledgement sent per sender; it
    // told none of them that it leaves (each was gone by then).
    let c = &rx["ports"][0]["control"];
    assert_eq!(
        (json_u64(c, "/sent"), json_u64(c, "/received")),
        (SENDERS, SENDERS),
        "{c}"
    );
    assert_eq!(json_u64(&rx, "/ports/0/stats/ipackets"), total);
    assert!(!sock.exists(), "{} left behind", sock.display());
    assert_no_run_dir(r.pid);
}
