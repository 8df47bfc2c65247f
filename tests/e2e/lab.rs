//! The two-host lab: sender and receiver as separate `landspeed` processes
//! in two network namespaces joined by a veth pair (`scripts/lab`), each on
//! DPDK's `net_af_packet` PMD. Paced 9130-byte IPv4 and IPv6 frames arrive
//! with zero loss, in order and intact, and the receiver's counts equal the
//! sender's; an overload shows the loss and a verdict in the joined report;
//! bad input (a missing interface, an MTU too small, a file prefix in use)
//! ends with a clear message. Nothing is left behind: namespaces, links,
//! DPDK runtime directories.
//!
//! Namespaces need root on Linux. Without it every test here that needs
//! them prints `skipping lab tests: ...` and passes.

use crate::common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::common::child::{self, Proc};
use crate::common::host::Need;
use crate::common::lab::{self, assert_gone as assert_lab_gone, Lab};
use crate::common::{assert_no_run_dir, json_f64, json_str, json_u64, problem, read_json, ROOT};

/// Seconds of traffic per run.
const TX_SECS: u64 = 3;
/// The receiver's `--duration`: only a bound. It is interrupted (SIGINT)
/// once the sender has finished, so it always outlives the sender.
const RX_BOUND: u64 = 30;

/// Prints the skip line and returns true when the lab is unavailable.
fn skip(test: &str) -> bool {
    common::host::skip("lab", test, lab::NEEDS)
}

/// A unique lab prefix per test (at most 12 characters).
fn prefix(n: u32) -> String {
    format!("lt{}{n}", std::process::id() % 1_000_000)
}

/// A shipped lab profile with the lab's interface names replaced by those
/// of `lab`, and `edits` (`from`, `to`) applied; written into `dir`.
fn profile(dir: &Path, file: &str, lab: &Lab, edits: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(format!("{ROOT}/configs/{file}"))
        .unwrap_or_else(|e| panic!("configs/{file}: {e}"));
    for side in ['a', 'b'] {
        text = text.replace(
            &format!("iface=ls-{side}0"),
            &format!("iface={}", lab.iface(side)),
        );
    }
    for (from, to) in edits {
        assert!(text.contains(from), "configs/{file} has no `{from}`");
        text = text.replace(from, to);
    }
    let p = dir.join(file);
    std::fs::write(&p, text).unwrap();
    p
}

/// Both sides of one run and their joined report.
struct Pair {
    tx: Value,
    rx: Value,
    joined: Value,
    text: String,
}

/// Receiver in namespace b, started first; once it polls, the sender in
/// namespace a for `TX_SECS`; 1 s after the sender ends, the receiver is
/// interrupted (it reports what it got); then `landspeed report`.
fn run_pair(dir: &Path, lab: &Lab, tx: &Path, rx: &Path) -> Pair {
    let rx_dur = format!("{RX_BOUND}s");
    let tx_dur = format!("{TX_SECS}s");
    let (txj, rxj, joinj) = (
        dir.join("tx.json"),
        dir.join("rx.json"),
        dir.join("joined.json"),
    );
    let ns_b = lab.ns('b');
    let ns_a = lab.ns('a');
    let mut r = Proc::start(
        dir,
        "receiver",
        Some(&ns_b),
        &[
            "run",
            rx.to_str().unwrap(),
            "--duration",
            &rx_dur,
            "--json",
            rxj.to_str().unwrap(),
        ],
    );
    r.wait_ready(Duration::from_secs(20));
    let limit = Duration::from_secs(TX_SECS + 30);
    let (t, r) = child::side_by_side(
        dir,
        r,
        Some(&ns_a),
        &[
            "run",
            tx.to_str().unwrap(),
            "--duration",
            &tx_dur,
            "-q",
            "--json",
            txj.to_str().unwrap(),
        ],
        (limit, limit),
        Duration::from_secs(1),
    );
    t.assert_success();
    // Stopped by SIGINT before its bound: an interrupted run (exit 4).
    assert_eq!(
        r.status.code(),
        Some(4),
        "receiver\n{}\n{}",
        r.stdout,
        r.stderr
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert_no_run_dir(t.pid);
    assert_no_run_dir(r.pid);
    let (text, joined) = child::report(&txj, &rxj, &joinj);
    Pair {
        tx: read_json(&txj),
        rx: read_json(&rxj),
        joined,
        text,
    }
}

/// Paced frames cross the lab exactly: every frame sent arrives once, in
/// order, intact, and both processes count the same.
fn exact_over_lab(n: u32, version: &str) {
    let _alone = common::alone();
    let test = format!("paced {version} over the veth lab");
    if skip(&test) {
        return;
    }
    let p = prefix(n);
    {
        let lab = Lab::up(&p, 9200, 9130);
        let dir = tempfile::tempdir().unwrap();
        let tx = profile(dir.path(), &format!("lab-{version}-tx.yaml"), &lab, &[]);
        let rx = profile(dir.path(), &format!("lab-{version}-rx.yaml"), &lab, &[]);
        let pair = run_pair(dir.path(), &lab, &tx, &rx);
        let sent = json_u64(&pair.tx, "/tx/frames");
        // At least 80 % of 1 Gbit/s for TX_SECS (13,690 frames/s).
        assert!(
            sent as f64 >= 0.8 * 13_690.0 * TX_SECS as f64,
            "only {sent} frames sent:\n{}",
            pair.text
        );
        assert_eq!(
            json_u64(&pair.tx, "/tx/pmd_frames"),
            sent,
            "the sender's PMD counted otherwise"
        );
        assert_eq!(json_u64(&pair.tx, "/tx/pmd_errors"), 0);
        assert_eq!(json_u64(&pair.tx, "/tx/bytes"), sent * 9130);
        let rs = &pair.rx["rx"]["streams"][0];
        assert_eq!(
            json_u64(rs, "/frames"),
            sent,
            "receiver's count:\n{}",
            pair.text
        );
        assert_eq!(json_u64(rs, "/unique"), sent);
        for k in ["lost", "reordered", "duplicated", "corrupt_total"] {
            assert_eq!(json_u64(rs, &format!("/{k}")), 0, "{k}:\n{}", pair.text);
        }
        assert_eq!(json_u64(&pair.rx, "/rx/good"), sent);
        assert_eq!(json_u64(&pair.rx, "/rx/corrupt"), 0);
        assert_eq!(json_u64(rs, "/bytes"), sent * 9130, "bytes received");
        assert_eq!(
            json_u64(rs, "/max_seq") + 1,
            sent,
            "the last frame's sequence"
        );
        assert_eq!(pair.joined["exact"], Value::Bool(true), "{}", pair.text);
        // Nothing was lost, so nothing may be blamed on the network.
        let binding = pair.joined["verdict"]["binding"].as_str().unwrap_or("");
        assert!(
            !binding.is_empty() && binding != "network",
            "verdict `{binding}` for a lossless run: {}",
            pair.joined["verdict"]
        );
        assert_eq!(json_u64(&pair.joined, "/streams/0/sent"), sent);
        assert_eq!(json_u64(&pair.joined, "/streams/0/missing"), 0);
        assert!(
            pair.text
                .contains("every frame sent arrived once, in order, intact"),
            "{}",
            pair.text
        );
    }
    assert_lab_gone(&p);
}

#[test]
fn paced_ipv4_arrives_exactly() {
    exact_over_lab(1, "ipv4");
}

#[test]
fn paced_ipv6_arrives_exactly() {
    exact_over_lab(2, "ipv6");
}

/// The sender at full speed (`mode: max`) and a receiver made slow on
/// purpose (`slowdown_cycles`): the joined report shows the loss and the
/// verdict names a limit.
#[test]
fn overload_shows_loss_and_a_verdict() {
    let _alone = common::alone();
    if skip("overload over the veth lab") {
        return;
    }
    let p = prefix(3);
    {
        let lab = Lab::up(&p, 9200, 9130);
        let dir = tempfile::tempdir().unwrap();
        let tx = profile(
            dir.path(),
            "lab-ipv4-tx.yaml",
            &lab,
            &[("mode: spin", "mode: max #")],
        );
        let rx = profile(
            dir.path(),
            "lab-ipv4-rx.yaml",
            &lab,
            &[("verify: full", "slowdown_cycles: 200000\n    verify: full")],
        );
        let pair = run_pair(dir.path(), &lab, &tx, &rx);
        let sent = json_u64(&pair.tx, "/tx/frames");
        let missing = json_u64(&pair.joined, "/streams/0/missing");
        let received = json_u64(&pair.joined, "/streams/0/received");
        assert!(
            missing > 0,
            "no loss at full speed into a slow receiver:\n{}",
            pair.text
        );
        assert_eq!(received + missing, sent, "{}", pair.text);
        assert_eq!(json_u64(&pair.rx, "/rx/corrupt"), 0, "{}", pair.text);
        assert_eq!(pair.joined["exact"], Value::Bool(false));
        assert!(pair.text.contains("frames were lost"), "{}", pair.text);
        // The loss happens in the receiving socket's ring, which DPDK's
        // counters do not see (imissed stays 0). The limit is the
        // receiver's CPU; the verdict says `cpu` only when the RX lcore was
        // busy 98 % of the arrival span, and `network` when a shared CPU
        // left it a few percent idle (docs/lab.md, "The verdict of a split
        // run"). Tighten to `cpu` once invisible drops count for the CPU.
        let verdict = &pair.joined["verdict"];
        let binding = verdict["binding"].as_str().unwrap_or("");
        assert!(
            binding == "cpu" || binding == "network",
            "verdict `{binding}`:\n{}\n{verdict}",
            pair.text
        );
        assert!(
            verdict["explanation"]
                .as_str()
                .is_some_and(|e| !e.is_empty()),
            "{verdict}"
        );
    }
    assert_lab_gone(&p);
}

/// af_packet on an interface that does not exist: a message naming it.
#[test]
fn missing_interface_is_named() {
    let _alone = common::alone();
    if skip("missing interface") {
        return;
    }
    let p = prefix(4);
    {
        let lab = Lab::up(&p, 9200, 9130);
        let dir = tempfile::tempdir().unwrap();
        let iface = lab.iface('a');
        let tx = profile(
            dir.path(),
            "lab-ipv4-tx.yaml",
            &lab,
            &[(&format!("iface={iface}"), "iface=nope")],
        );
        let ns = lab.ns('a');
        let d = Proc::start(
            dir.path(),
            "sender",
            Some(&ns),
            &["run", tx.to_str().unwrap(), "--duration", "1s"],
        )
        .wait(Duration::from_secs(30));
        d.assert_error(&["interface nope does not exist", "net_af_packet0"]);
        assert_no_run_dir(d.pid);
    }
    assert_lab_gone(&p);
}

/// A veth MTU too small for 9130-byte frames: refused before sending, with
/// the interface, its MTU and the MTU needed.
#[test]
fn mtu_too_small_is_refused() {
    let _alone = common::alone();
    if skip("MTU too small") {
        return;
    }
    let p = prefix(5);
    {
        let lab = Lab::up(&p, 1500, 1518);
        let dir = tempfile::tempdir().unwrap();
        let tx = profile(dir.path(), "lab-ipv4-tx.yaml", &lab, &[]);
        let ns = lab.ns('a');
        let d = Proc::start(
            dir.path(),
            "sender",
            Some(&ns),
            &["run", tx.to_str().unwrap(), "--duration", "1s"],
        )
        .wait(Duration::from_secs(30));
        let iface = lab.iface('a');
        d.assert_error(&[&format!("interface {iface} has MTU 1500"), "needs 9112"]);
        assert_no_run_dir(d.pid);
    }
    assert_lab_gone(&p);
}

/// Two processes with the same explicit `file_prefix`: the second stops
/// with a message naming the prefix; the first is not disturbed.
#[test]
fn same_file_prefix_twice_is_refused() {
    // No namespace needed: this one runs without root too.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let fp = format!("ltfp{}", std::process::id());
    let text = std::fs::read_to_string(format!("{ROOT}/configs/null.yaml")).unwrap();
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("file_prefix:"))
        .expect("configs/null.yaml has a file_prefix line");
    let text = text.replacen(line, &format!("  file_prefix: {fp}"), 1);
    let yaml = dir.path().join("fp.yaml");
    std::fs::write(&yaml, text).unwrap();
    let y = yaml.to_str().unwrap();
    let first = Proc::start(
        dir.path(),
        "first",
        None,
        &["run", y, "--duration", "5s", "-q"],
    );
    std::thread::sleep(Duration::from_millis(1500));
    let second = Proc::start(
        dir.path(),
        "second",
        None,
        &["run", y, "--duration", "1s", "-q"],
    )
    .wait(Duration::from_secs(30));
    let first = first.wait(Duration::from_secs(30));
    // An explicit prefix's files stay (another process may share them):
    // remove this test's, wherever DPDK put them.
    for b in common::run_dir_bases() {
        let _ = std::fs::remove_dir_all(b.join(&fp));
    }
    first.assert_success();
    second.assert_error(&[&format!("file_prefix `{fp}` is probably in use")]);
}

/// `ip -n NS link set DEV up|down`.
fn set_link(ns: &str, dev: &str, state: &str) {
    let st = Command::new("ip")
        .args(["-n", ns, "link", "set", dev, state])
        .status()
        .expect("run ip link set");
    assert!(st.success(), "ip -n {ns} link set {dev} {state}: {st}");
}

/// The sender's veth set down 2 s into a 4 s run: the summary shows about
/// half the target achieved, every interval (the empty ones too, adding
/// up to the total), `target_met: false` with the refused frames and the
/// link's outage, and the run exits 3 (SHORTFALL).
#[test]
fn sender_link_down_mid_run_is_a_shortfall() {
    let _alone = common::alone();
    if skip("sender link down mid-run") {
        return;
    }
    let p = prefix(6);
    {
        let lab = Lab::up(&p, 9200, 9130);
        let dir = tempfile::tempdir().unwrap();
        let tx = profile(dir.path(), "lab-ipv4-tx.yaml", &lab, &[]);
        let txj = dir.path().join("tx.json");
        let (ns_a, dev_a) = (lab.ns('a'), lab.iface('a'));
        let mut t = Proc::start(
            dir.path(),
            "sender",
            Some(&ns_a),
            &[
                "run",
                tx.to_str().unwrap(),
                "--duration",
                "4s",
                "--json",
                txj.to_str().unwrap(),
            ],
        );
        t.wait_ready(Duration::from_secs(20));
        std::thread::sleep(Duration::from_secs(2));
        set_link(&ns_a, &dev_a, "down");
        let t = t.wait(Duration::from_secs(30));
        assert_eq!(t.status.code(), Some(3), "{}\n{}", t.stdout, t.stderr);
        assert_no_run_dir(t.pid);
        let out = &t.stdout;
        let sums: Vec<&str> = out.lines().filter(|l| l.starts_with("[SUM]")).collect();
        assert_eq!(
            sums.len(),
            4,
            "one line per second, the empty ones too:\n{out}"
        );
        let frames_of = |l: &str| -> u64 { l.split_whitespace().nth(3).unwrap().parse().unwrap() };
        assert_eq!(
            frames_of(sums[3]),
            0,
            "the last second sent nothing:\n{out}"
        );
        let total: u64 = sums.iter().map(|l| frames_of(l)).sum();
        assert!(
            out.contains("[TX]  0.00-") && out.contains(&format!(" {total} frames ")),
            "intervals add up to the total {total}:\n{out}"
        );
        assert!(
            out.contains("warning: TX lcore 1 (port 0) missed its target"),
            "{out}"
        );
        assert!(
            out.contains("warning: the link of port a0 (TX) went down"),
            "{out}"
        );
        // About half of 1 Gbit/s L2 over 4 s: the link carried frames for
        // the 2 s before it went down (the run starts a little before the
        // header is seen, so a little more than half).
        let pct: f64 = out
            .lines()
            .find_map(|l| l.split("achieved ").nth(1))
            .and_then(|r| r.split(' ').next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("no achieved figure:\n{out}"));
        assert!((45.0..=65.0).contains(&pct), "achieved {pct} %:\n{out}");
        let v = read_json(&txj);
        assert_eq!(v["outcome"]["target_met"], Value::Bool(false));
        assert_eq!(v["tx"]["target_met"], Value::Bool(false));
        assert_eq!(v["tx"]["tasks"][0]["target_met"], Value::Bool(false));
        let ivs = v["intervals"].as_array().unwrap();
        let sum: u64 = ivs.iter().map(|i| json_u64(i, "/tx/frames")).sum();
        assert_eq!(
            sum,
            json_u64(&v, "/tx/frames"),
            "intervals add up to the total"
        );
        let missed = problem(&v, "target_missed");
        assert!(
            json_u64(missed, "/refused") > 0,
            "the port refused frames: {missed}"
        );
        assert_eq!(missed["achieved_pct"], v["tx"]["tasks"][0]["achieved_pct"]);
        let down = problem(&v, "link_down");
        assert_eq!(down["port"], "a0");
        assert_eq!(down["side"], "TX");
        assert_eq!(down["down_at_end"], Value::Bool(true));
        let (at, len) = (json_f64(down, "/down_at_s"), json_f64(down, "/down_s"));
        assert!(at > 1.5 && at < 3.5, "down at {at} s");
        assert!(
            (at + len - json_f64(&v, "/elapsed_s")).abs() < 0.1,
            "down {len} s from {at} s"
        );
    }
    assert_lab_gone(&p);
}

/// The receiver's veth set down 1 s into the sender's 3 s run: the
/// receiver reports the link's loss as a problem, its verdict does not
/// say that nothing bound the run, and it exits 3 (SHORTFALL).
#[test]
fn receiver_link_down_is_reported() {
    let _alone = common::alone();
    if skip("receiver link down mid-run") {
        return;
    }
    let p = prefix(7);
    {
        let lab = Lab::up(&p, 9200, 9130);
        let dir = tempfile::tempdir().unwrap();
        let tx = profile(dir.path(), "lab-ipv4-tx.yaml", &lab, &[]);
        let rx = profile(dir.path(), "lab-ipv4-rx.yaml", &lab, &[]);
        let rxj = dir.path().join("rx.json");
        let (ns_a, ns_b, dev_b) = (lab.ns('a'), lab.ns('b'), lab.iface('b'));
        // The receiver ends on its own (a signal would make the run
        // `interrupted`, which outranks a shortfall).
        let mut r = Proc::start(
            dir.path(),
            "receiver",
            Some(&ns_b),
            &[
                "run",
                rx.to_str().unwrap(),
                "--duration",
                "8s",
                "--json",
                rxj.to_str().unwrap(),
            ],
        );
        r.wait_ready(Duration::from_secs(20));
        let mut t = Proc::start(
            dir.path(),
            "sender",
            Some(&ns_a),
            &["run", tx.to_str().unwrap(), "--duration", "3s"],
        );
        t.wait_ready(Duration::from_secs(20));
        std::thread::sleep(Duration::from_secs(1));
        set_link(&ns_b, &dev_b, "down");
        let t = t.wait(Duration::from_secs(30));
        let r = r.wait(Duration::from_secs(30));
        assert_no_run_dir(t.pid);
        assert_no_run_dir(r.pid);
        assert_eq!(r.status.code(), Some(3), "{}\n{}", r.stdout, r.stderr);
        assert!(
            r.stdout
                .contains("warning: the link of port b0 (RX) went down"),
            "{}",
            r.stdout
        );
        let v = read_json(&rxj);
        let down = problem(&v, "link_down");
        assert_eq!(down["side"], "RX");
        assert_eq!(down["down_at_end"], Value::Bool(true));
        let binding = v["verdict"]["binding"].as_str().unwrap_or("");
        assert_ne!(binding, "none", "{}", v["verdict"]);
        let explanation = v["verdict"]["explanation"].as_str().unwrap_or("");
        assert!(
            explanation.contains("link went down")
                && !explanation.starts_with("Offered rate delivered"),
            "{explanation}"
        );
        assert!(
            !r.stdout.contains("verdict: none bound the run"),
            "{}",
            r.stdout
        );
    }
    assert_lab_gone(&p);
}

// ---------------------------------------------------------------- the DUT lab

/// A DUT lab made by `scripts/lab up --dut ARGS`: both tester ends in
/// namespace `<prefix>-t`, the DUT in `<prefix>-dut`. Removed on drop
/// (its [`Lab`]'s).
struct DutLab {
    lab: Lab,
}

impl DutLab {
    fn up(prefix: &str, args: &[&str]) -> DutLab {
        let all = [&["--dut"][..], args].concat();
        DutLab {
            lab: Lab::up_with(prefix, &all),
        }
    }

    fn tester(&self) -> String {
        format!("{}-t", self.lab.prefix)
    }

    fn dut(&self) -> String {
        format!("{}-dut", self.lab.prefix)
    }

    /// A counter of `/sys/class/net/DEV/statistics` inside `ns`.
    fn counter(&self, ns: &str, dev: &str, name: &str) -> u64 {
        let out = Command::new("ip")
            .args(["netns", "exec", ns, "cat"])
            .arg(format!("/sys/class/net/{dev}/statistics/{name}"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{ns} {dev} {name}: {out:?}"))
    }

    /// What `scripts/lab status` prints of this lab (which must be up).
    fn status(&self) -> String {
        let st = Command::new(format!("{ROOT}/scripts/lab"))
            .args(["status", "--prefix", &self.lab.prefix])
            .output()
            .unwrap();
        assert!(st.status.success(), "{st:?}");
        String::from_utf8_lossy(&st.stdout).into_owned()
    }

    /// The root qdisc of the DUT port `d0`/`d1`, as `tc -s -j` gives it.
    fn qdisc(&self, port: &str) -> Value {
        let dev = format!("{}-{port}", self.lab.prefix);
        let out = Command::new("tc")
            .args([
                "-s",
                "-j",
                "-n",
                &self.dut(),
                "qdisc",
                "show",
                "dev",
                &dev,
                "root",
            ])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("tc -j on {dev}: {e}: {out:?}"));
        v[0].clone()
    }

    /// A shipped DUT profile with the interface names of this lab and
    /// `edits` applied, written into `dir`.
    fn profile(&self, dir: &Path, file: &str, edits: &[(&str, &str)]) -> PathBuf {
        let mut text = std::fs::read_to_string(format!("{ROOT}/configs/{file}"))
            .unwrap_or_else(|e| panic!("configs/{file}: {e}"));
        for i in 0..8 {
            text = text.replace(
                &format!("iface=ls-t{i},"),
                &format!("iface={}-t{i},", self.lab.prefix),
            );
        }
        for (from, to) in edits {
            assert!(text.contains(from), "configs/{file} has no `{from}`");
            text = text.replace(from, to);
        }
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        p
    }
}

/// Asserts that the one stream of `pair` arrived whole: as many frames as
/// were sent, none lost, corrupt or duplicated, and none foreign; returns
/// the count sent and the receiver's stream.
fn every_frame_verified(pair: &Pair) -> (u64, &Value) {
    let sent = json_u64(&pair.tx, "/tx/frames");
    let st = &pair.rx["rx"]["streams"][0];
    assert_eq!(json_u64(st, "/frames"), sent, "{}", pair.text);
    for k in ["lost", "corrupt_total", "duplicated"] {
        assert_eq!(json_u64(st, &format!("/{k}")), 0, "{k}: {}", pair.text);
    }
    assert_eq!(json_u64(&pair.rx, "/rx/foreign"), 0, "{}", pair.text);
    (sent, st)
}

/// Asserts that a DUT lab left nothing: namespaces, links, the relay's
/// state directory and process.
fn assert_dut_gone(prefix: &str) {
    assert_lab_gone(prefix);
    let state = PathBuf::from(format!("/run/landspeed-lab/{prefix}"));
    assert!(!state.exists(), "{} left behind", state.display());
    let ps = Command::new("ps").args(["-eo", "args"]).output().unwrap();
    let ps = String::from_utf8_lossy(&ps.stdout);
    assert!(
        !ps.lines()
            .any(|l| l.contains(&format!("{prefix}-d0 {prefix}-d1"))),
        "the relay of {prefix} is still running:\n{ps}"
    );
}

/// Receiver on `t1` and sender on `t0`, both in the tester namespace, as
/// [`run_pair`] does over the two-namespace lab. The sender may exit 3 on a
/// loaded machine (a missed target); the callers check what it offered.
fn run_over_dut(dir: &Path, lab: &DutLab, tx: &Path, rx: &Path, secs: u64) -> Pair {
    let (txj, rxj, joinj) = (
        dir.join("tx.json"),
        dir.join("rx.json"),
        dir.join("joined.json"),
    );
    let ns = lab.tester();
    let rx_dur = format!("{RX_BOUND}s");
    let rx_args = ["run", rx.to_str().unwrap(), "--duration", &rx_dur];
    let mut r = Proc::start(
        dir,
        "receiver",
        Some(&ns),
        &[&rx_args[..], &["--json", rxj.to_str().unwrap()]].concat(),
    );
    r.wait_ready(Duration::from_secs(20));
    let tx_dur = format!("{secs}s");
    let limit = Duration::from_secs(secs + 30);
    // Frames still in the DUT's buffer or delay line arrive meanwhile.
    let (t, r) = child::side_by_side(
        dir,
        r,
        Some(&ns),
        &[
            "run",
            tx.to_str().unwrap(),
            "--duration",
            &tx_dur,
            "-q",
            "--json",
            txj.to_str().unwrap(),
        ],
        (limit, limit),
        Duration::from_secs(2),
    );
    assert!(
        matches!(t.status.code(), Some(0 | 3)) && !t.stderr.contains("panicked"),
        "sender\n{}\n{}",
        t.stdout,
        t.stderr
    );
    assert_eq!(
        r.status.code(),
        Some(4),
        "receiver\n{}\n{}",
        r.stdout,
        r.stderr
    );
    assert_no_run_dir(t.pid);
    assert_no_run_dir(r.pid);
    let (text, joined) = child::report(&txj, &rxj, &joinj);
    Pair {
        tx: read_json(&txj),
        rx: read_json(&rxj),
        joined,
        text,
    }
}

/// Raises this test thread's priority (nice -10), so that what it starts
/// (the lab, the relay, both landspeed processes) inherits it: on a
/// machine whose CPUs are shared with builds, the tester keeps its rate.
/// Linux's nice is per thread, and a child inherits its parent thread's.
fn favour_this_thread() {
    let tid = std::fs::read_link("/proc/thread-self")
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .expect("/proc/thread-self");
    let _ = Command::new("renice")
        .args(["-n", "-10", "-p", &tid])
        .stdout(Stdio::null())
        .status();
}

/// The rate limit of the DUT lab's tests: 50 Mbit/s at L1, 4,063.7
/// frames/s of 1518 bytes (1538 bytes at L1).
const DUT_LIMIT_BPS: f64 = 50e6;

/// `scripts/lab up --dut --limit 50M`: the tester namespace neither
/// forwards nor answers; 1518-byte frames asked for at 3 times the limit
/// from t0 cross the DUT (every frame that entered d0 either left through
/// d1's tbf and was received on t1, or was dropped at the tail of its
/// buffer), arrive at the limit within 5 %, in order and intact; `down`
/// leaves nothing.
#[test]
fn dut_lab_limits_1518_byte_frames_to_its_rate() {
    let _alone = common::alone();
    if skip("DUT lab with a rate limit") {
        return;
    }
    favour_this_thread();
    let p = prefix(8);
    {
        let lab = DutLab::up(&p, &["--limit", "50M", "--frame-size", "1518"]);
        let st = Command::new(format!("{ROOT}/scripts/lab"))
            .args(["status", "--prefix", &p])
            .output()
            .unwrap();
        assert!(st.status.success(), "{st:?}");
        let text = String::from_utf8_lossy(&st.stdout);
        assert!(text.contains(&format!("DUT lab {p}: up")), "{text}");
        assert!(text.contains("limit=50000000@l1"), "{text}");
        // The tester namespace: no address, no forwarding.
        let t = lab.tester();
        let addrs = Command::new("ip")
            .args(["-n", &t, "-o", "addr", "show"])
            .output()
            .unwrap();
        let addrs = String::from_utf8_lossy(&addrs.stdout);
        assert!(
            addrs.lines().all(|l| l.contains(" lo ")),
            "addresses in {t}:\n{addrs}"
        );
        let fwd = Command::new("ip")
            .args(["netns", "exec", &t, "cat", "/proc/sys/net/ipv4/ip_forward"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&fwd.stdout).trim(), "0");
        let q = lab.qdisc("d1");
        assert_eq!(q["kind"], "tbf", "{q}");
        assert_eq!(
            json_u64(&q, "/options/rate") * 8,
            DUT_LIMIT_BPS as u64,
            "{q}"
        );
        assert_eq!(json_u64(&q, "/options/overhead"), 24, "{q}");

        let d0 = format!("{p}-d0");
        let d0_rx = lab.counter(&lab.dut(), &d0, "rx_packets");
        let q1 = lab.qdisc("d1");
        let dir = tempfile::tempdir().unwrap();
        let tx = lab.profile(
            dir.path(),
            "lab-dut-tx.yaml",
            &[("rate: 1G ", "rate: 150M ")],
        );
        let rx = lab.profile(dir.path(), "lab-dut-rx.yaml", &[]);
        let pair = run_over_dut(dir.path(), &lab, &tx, &rx, 2 * TX_SECS);
        let sent = json_u64(&pair.tx, "/tx/frames");
        let offered = json_f64(&pair.tx, "/tx/tasks/0/achieved/l1_bps");
        // The tester asks for three times the limit. Its af_packet socket
        // is flow-controlled by the DUT's queue (a frame keeps its socket
        // across the veth into the DUT, and the socket may hold 212,992
        // bytes in flight, more than fits in the 1 MB buffer's drop-free
        // margin), so it is held to the limit rather than dropped at it:
        // what it sent is at least the limit.
        assert!(
            offered > 0.98 * DUT_LIMIT_BPS,
            "the tester offered only {offered} bit/s at L1, not above the limit:\n{}",
            pair.text
        );
        let rs = &pair.rx["rx"]["streams"][0];
        let received = json_u64(rs, "/frames");
        // What entered the DUT at d0 (nothing but the tester's frames: the
        // tester namespace is quiet) is what the sender's PMD took, but
        // for frames still in af_packet's TX ring when the sender closed
        // it (at most its 1024 slots; none on an idle machine)...
        let entered = lab.counter(&lab.dut(), &d0, "rx_packets") - d0_rx;
        assert!(
            entered <= sent && sent - entered <= 1024,
            "{entered} frames entered the DUT of {sent} sent"
        );
        // ... and every frame that entered left through d1's limit and was
        // received, or was dropped there, at the tail of its buffer.
        let q2 = lab.qdisc("d1");
        assert_eq!(
            json_u64(&q2, "/packets") - json_u64(&q1, "/packets"),
            received
        );
        let dropped = json_u64(&q2, "/drops") - json_u64(&q1, "/drops");
        // Above the limit, the DUT dropped frames or held the sender back.
        let achieved_pct = json_f64(&pair.tx, "/tx/tasks/0/achieved_pct");
        assert!(
            dropped > 0 || achieved_pct < 90.0,
            "the DUT neither dropped nor held back ({achieved_pct} % of 3 x the limit sent):\n{}",
            pair.text
        );
        assert_eq!(received + dropped, entered, "{}\n{q2}", pair.text);
        assert_eq!(
            json_u64(&pair.joined, "/streams/0/missing"),
            dropped + (sent - entered)
        );
        for k in ["reordered", "duplicated", "corrupt_total"] {
            assert_eq!(json_u64(rs, &format!("/{k}")), 0, "{k}:\n{}", pair.text);
        }
        assert_eq!(json_u64(&pair.rx, "/rx/foreign"), 0, "{}", pair.text);
        // The DUT's output rate, first to last arrival, at L1: the limit.
        let got = json_f64(rs, "/achieved/l1_bps");
        assert!(
            (got / DUT_LIMIT_BPS - 1.0).abs() <= 0.05,
            "received {got} bit/s at L1 ({} frames/s) for a limit of {DUT_LIMIT_BPS}:\n{}",
            json_f64(rs, "/achieved/fps"),
            pair.text
        );
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// `--delay 20ms --delay-via relay`: the user-space delay line forwards
/// every frame (nothing lost, in order) and each one-way latency is at
/// least the delay; `down` stops the relay.
#[test]
fn dut_lab_relay_delays_every_frame() {
    let _alone = common::alone();
    let needs = [lab::NEEDS, &[Need::Program("python3", "for the relay")]].concat();
    if common::host::skip("lab", "DUT lab with a delay", &needs) {
        return;
    }
    favour_this_thread();
    let p = prefix(9);
    {
        let lab = DutLab::up(&p, &["--delay", "20ms", "--delay-via", "relay"]);
        let dir = tempfile::tempdir().unwrap();
        let tx = lab.profile(
            dir.path(),
            "lab-dut-tx.yaml",
            &[("rate: 1G ", "rate: 50M ")],
        );
        let rx = lab.profile(dir.path(), "lab-dut-rx.yaml", &[]);
        let pair = run_over_dut(dir.path(), &lab, &tx, &rx, TX_SECS);
        let sent = json_u64(&pair.tx, "/tx/frames");
        let rs = &pair.rx["rx"]["streams"][0];
        let received = json_u64(rs, "/frames");
        assert!(sent > 0);
        // All but frames left in af_packet's TX ring at the sender's close
        // (none on an idle machine) arrive, each one once and in order.
        assert!(
            received <= sent && sent - received <= 1024,
            "{received} of {sent}:\n{}",
            pair.text
        );
        for k in ["lost", "reordered", "duplicated", "corrupt_total"] {
            assert_eq!(json_u64(rs, &format!("/{k}")), 0, "{k}:\n{}", pair.text);
        }
        let min = json_f64(rs, "/latency/min_ns");
        assert!(
            min >= 20e6,
            "one-way latency {min} ns below the 20 ms delay"
        );
        let stats = std::fs::read_to_string(format!("/run/landspeed-lab/{p}/relay.stats")).unwrap();
        assert!(
            stats.contains(&format!(
                "{p}-d0->{p}-d1 received {received} sent {received} "
            )),
            "{stats}"
        );
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// Bad DUT options: one line naming the option, exit 1, nothing made.
#[test]
fn dut_lab_bad_options_are_named() {
    let _alone = common::alone();
    if skip("DUT lab options") {
        return;
    }
    let p = prefix(10);
    // Removes whatever a wrongly accepted option made, also on panic.
    let _guard = Lab::guard(&p);
    for (args, words) in [
        (&["--limit", "5X"][..], "--limit '5X' is not a rate"),
        (&["--limit", "1GB/s"][..], "looks like bytes per second"),
        (&["--buffer", "1MB"][..], "--buffer needs --limit"),
        (&["--delay", "10"][..], "--delay '10' is not a time"),
        (
            &["--limit", "1G", "--burst", "100"][..],
            "--burst 100 is too small",
        ),
        (
            &["--delay", "1ms", "--delay-via", "tc"][..],
            "--delay-via 'tc' is not one of",
        ),
        (
            &["--vxlan", "--delay", "1ms", "--delay-via", "relay"][..],
            "--vxlan puts its endpoint on the DUT bridge",
        ),
        (
            &["--ports", "9"][..],
            "--ports 9 is out of range: 2 to 8 tester ports",
        ),
        (&["--ports", "x"][..], "--ports 'x' is not a whole number"),
        (
            &["--ports", "4", "--hosts"][..],
            "use it with 2 ports, not 4",
        ),
        (
            &["--fdb-max", "0"][..],
            "--fdb-max 0 is out of range: 1 to 1048576 addresses",
        ),
    ] {
        let out = Command::new(format!("{ROOT}/scripts/lab"))
            .args(["up", "--dut", "--prefix", &p])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert_dut_gone(&p);
    }
    // Without --dut there is no DUT to hold an endpoint: a usage error.
    let out = Command::new(format!("{ROOT}/scripts/lab"))
        .args(["up", "--vxlan", "--prefix", &p])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("lab: --vxlan needs --dut (it puts a VXLAN endpoint in the DUT)"),
        "{err}"
    );
    assert_lab_gone(&p);
}

// ---------------------------------------------------------------- rfc2544 in the DUT lab

/// A lab prefix of the certification tests (at most 12 characters).
fn cert_prefix(n: u32) -> String {
    format!("lsb{}{n}", std::process::id() % 100_000)
}

/// The DPDK file prefix of a certification test's process.
fn cert_file_prefix(n: u32) -> String {
    format!("lsbfp{}{n}", std::process::id() % 100_000)
}

/// Removes DPDK's runtime directory of an explicit file prefix.
fn remove_run_dir(fp: &str) {
    let _ = std::fs::remove_dir_all(format!("/var/run/dpdk/{fp}"));
}

/// `configs/lab-dut.yaml` for `lab`: the process's own file prefix and,
/// on fewer than three CPUs, the RX lcore beside the main one (`eal.cpus:
/// [0, 1, 0]`), with `edits` applied.
fn cert_profile(dir: &Path, lab: &DutLab, fp: &str, edits: &[(&str, &str)]) -> PathBuf {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let map = if cpus < 3 {
        "cores: [0, 1, 2]\n  cpus: [0, 1, 0]"
    } else {
        "cores: [0, 1, 2]"
    };
    let fp_line = format!("hugepages: false\n  file_prefix: {fp}");
    let mut all: Vec<(&str, &str)> =
        vec![("cores: [0, 1, 2]", map), ("hugepages: false", &fp_line)];
    all.extend_from_slice(edits);
    lab.profile(dir, "lab-dut.yaml", &all)
}

/// `landspeed rfc2544 PROFILE ARGS --json cert.json` in the tester
/// namespace of `lab`, bounded to `limit`; its exit and its JSON.
fn rfc2544_in_lab(
    dir: &Path,
    lab: &DutLab,
    profile: &Path,
    args: &[&str],
    limit: Duration,
) -> (common::child::Done, Value) {
    certify_in_lab("rfc2544", dir, lab, profile, args, limit)
}

/// `landspeed CMD` (`rfc2544` or `rfc2889`) of `profile` in the lab's
/// tester namespace, as [`rfc2544_in_lab`].
fn certify_in_lab(
    cmd: &str,
    dir: &Path,
    lab: &DutLab,
    profile: &Path,
    args: &[&str],
    limit: Duration,
) -> (common::child::Done, Value) {
    let json = dir.join("cert.json");
    let mut all = vec![cmd, profile.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--json", json.to_str().unwrap()]);
    let d = Proc::start(dir, cmd, Some(&lab.tester()), &all).wait(limit);
    assert!(!d.stderr.contains("panicked"), "{}", d.stderr);
    assert!(
        json.exists(),
        "no JSON written (exit {:?}):\n{}\n{}",
        d.status.code(),
        d.stdout,
        d.stderr
    );
    let v = read_json(&json);
    (d, v)
}

/// Every trial of a certification's JSON row counts exactly: the frames
/// sent are the frames received plus the frames lost, none duplicated or
/// corrupt (the bridge forwards each frame once, unchanged).
fn assert_trials_exact(row: &Value, out: &str) {
    let trials = row["trials"].as_array().expect("trials");
    for (i, t) in trials.iter().enumerate() {
        let (sent, got, lost) = (
            json_u64(t, "/tx_frames"),
            json_u64(t, "/rx_frames"),
            json_u64(t, "/lost"),
        );
        assert!(sent > 0, "trial {i} sent nothing: {t}\n{out}");
        assert_eq!(
            sent,
            got + lost,
            "trial {i}: sent = received + lost: {t}\n{out}"
        );
        assert_eq!(json_u64(t, "/duplicated"), 0, "trial {i}: {t}");
        assert_eq!(json_u64(t, "/corrupt"), 0, "trial {i}: {t}");
        let pct = 100.0 * lost as f64 / sent as f64;
        assert!(
            (json_f64(t, "/loss_pct") - pct).abs() < 1e-9,
            "trial {i}: {t}"
        );
    }
}

/// A row some of whose trials were tester-bound, each by a descheduled
/// lcore or the sender's catch-up bursts only (the TX met its target):
/// the machine's load, not the DUT.
fn only_descheduled(row: &Value) -> bool {
    let trials = row["trials"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let bound: Vec<&Value> = trials
        .iter()
        .filter(|t| t["tester_bound"] == true)
        .collect();
    !bound.is_empty()
        && bound.iter().all(|t| {
            let ps = t["problems"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            ps.iter()
                .all(|p| p["kind"] == "descheduled" || p["kind"] == "sender_bunched")
        })
}

/// The trials of a throughput row that were run again at their rate: a
/// trial that failed as the tester's, followed by one at the same rate.
fn retried(trials: &[Value]) -> usize {
    trials
        .windows(2)
        .filter(|w| {
            w[0]["tester_bound"] == true
                && w[0]["passed"] == false
                && w[1]["offered_pct"] == w[0]["offered_pct"]
        })
        .count()
}

/// The JSON describes the host: its kernel (as `/proc` gives it), the
/// CPUs, and `ports` each on af_packet with its link and `line`.
fn assert_host_described(v: &Value, ports: &[&str], line: &str) {
    let h = &v["host"];
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(
        json_str(h, "/kernel"),
        format!("Linux {}", release.trim()),
        "{h}"
    );
    let cpus = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let n = cpus.lines().filter(|l| l.starts_with("processor")).count();
    assert_eq!(json_u64(h, "/cpus"), n as u64, "{h}");
    let names: Vec<&str> = h["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json_str(p, "/name"))
        .collect();
    assert_eq!(names, ports, "{h}");
    for (i, p) in h["ports"].as_array().unwrap().iter().enumerate() {
        assert_eq!(json_str(p, "/device"), format!("net_af_packet{i}"), "{p}");
        assert_eq!(json_str(p, "/driver"), "net_af_packet", "{p}");
        let link = json_str(p, "/link");
        assert!(link.starts_with("up, ") && link.ends_with(line), "{link}");
    }
}

/// The strict checks of [`rfc2544_finds_the_dut_limit_at_1518_bytes`]:
/// exit 0, `bound: device`, 50 % within ±5 %, the 8 trials, loss exactly
/// above the result.
fn assert_found_the_limit(v: &Value, code: Option<i32>, out: &str) {
    let row = &v["throughput"][0];
    let trials = row["trials"].as_array().unwrap();
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(row["bound"], "device", "{out}");
    let rate = json_f64(row, "/rate_pct");
    assert!(
        (rate / 50.0 - 1.0).abs() <= 0.05,
        "throughput {rate} % of line for a 50M@l1 DUT on a 100M line:\n{out}"
    );
    // The same rate at L1 and in frames/s: 1538 bytes a frame at L1.
    assert!(
        (json_f64(row, "/l1_bps") - rate * 1e6).abs() < 1e-3,
        "{row}"
    );
    let fps = rate * 1e6 / (8.0 * 1538.0);
    assert!((json_f64(row, "/fps") - fps).abs() < 1e-6, "{row}");
    // 100 %, six halvings, the confirmation; at a rate this close to the
    // limit the confirmation may lose frames to the sender's jitter, and
    // then the search goes on below it (RFC 2544 26.1), with its own
    // confirmation last.
    // A trial that failed as the tester's was run again at its rate.
    let again = retried(trials);
    assert!(
        trials.len() >= 8 + again,
        "100 %, six halvings, the confirmation:\n{out}"
    );
    if again == 0 && trials.len() > 8 {
        assert_eq!(trials[7]["passed"], Value::Bool(false), "{out}");
    }
    // 100 % is twice the limit: lost, by the DUT, not the tester.
    assert_eq!(json_f64(&trials[0], "/offered_pct"), 100.0);
    assert!(json_u64(&trials[0], "/lost") > 0, "{}", trials[0]);
    assert_eq!(trials[0]["tester_bound"], Value::Bool(false), "{out}");
    // The confirmation at the result passed, nothing lost.
    let last = trials.last().unwrap();
    assert_eq!(json_f64(last, "/offered_pct"), rate);
    assert_eq!(last["passed"], Value::Bool(true), "{out}");
    assert_eq!(json_u64(last, "/lost"), 0);
    // A trial passes exactly when it lost nothing (the tolerance is 0),
    // and none above the result passed, unless a later trial at its rate
    // failed (a confirmation that failed at the limit: the search went on
    // below it). Below the result, a trial this close to the limit may
    // lose frames to the sender's jitter, so it is not asked to pass.
    for (k, t) in trials.iter().enumerate() {
        let passed = t["passed"] == Value::Bool(true);
        assert_eq!(passed, json_u64(t, "/lost") == 0, "{t}\n{out}");
        let at = json_f64(t, "/offered_pct");
        let failed_later = trials[k + 1..]
            .iter()
            .any(|u| json_f64(u, "/offered_pct") == at && u["passed"] == Value::Bool(false));
        assert!(!(passed && at > rate) || failed_later, "{t}\n{out}");
    }
    assert!(v["problems"].as_array().unwrap().is_empty(), "{out}");
}

/// The DUT the certification tests run against: 50 Mbit/s at L1 with a
/// 64 kB tail-drop buffer, for 1518-byte frames on a 1500-byte MTU.
const DUT_50M: &[&str] = &[
    "--limit",
    "50M",
    "--buffer",
    "64kB",
    "--mtu",
    "1500",
    "--frame-size",
    "1518",
];

/// The issue's done-when: a DUT limited to 50 Mbit/s at L1 (`scripts/lab
/// up --dut --limit 50M --buffer 64kB`) behind ports whose line is 100
/// Mbit/s at L1 (`link: 100m`). `landspeed rfc2544 --tests throughput
/// --sizes 1518 --trial 2s` finds 50 % of line within ±5 % (the limit
/// applies at L1, tbf counting each frame as its size + 20 bytes, the
/// layer of landspeed's % of line). The search: 100 % first, six halvings
/// to a span of 1.5625 %, the confirmation: 8 trials. The 64 kB buffer
/// is smaller than what the tester's af_packet socket holds in flight,
/// so the DUT drops the excess rather than slowing the sender.
#[test]
fn rfc2544_finds_the_dut_limit_at_1518_bytes() {
    let _alone = common::alone();
    if skip("rfc2544 against a rate-limited DUT") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(11), cert_file_prefix(11));
    {
        let lab = DutLab::up(&p, DUT_50M);
        let dir = tempfile::tempdir().unwrap();
        let prof = cert_profile(dir.path(), &lab, &fp, &[]);
        let args = ["--tests", "throughput", "--sizes", "1518", "--trial", "2s"];
        // A machine that deschedules the tester's lcores makes its trials
        // tester-bound (exit 3): up to twice more, then the JSON is read as it is.
        let run = || {
            let r = rfc2544_in_lab(dir.path(), &lab, &prof, &args, Duration::from_secs(120));
            remove_run_dir(&fp);
            r
        };
        let (mut d, mut v) = run();
        // A sender preempted for less than the descheduled threshold still
        // sends its late frames together when it runs again, and a burst
        // beyond the DUT's 64 kB buffer is lost there, which moves the
        // result below the limit: such a run is repeated, up to twice, and the
        // last of three must find the limit.
        let off_limit = |v: &Value| {
            let rate = v["throughput"][0]["rate_pct"].as_f64().unwrap_or(0.0);
            (rate / 50.0 - 1.0).abs() > 0.05
        };
        for _ in 0..2 {
            if !(only_descheduled(&v["throughput"][0]) || off_limit(&v)) {
                break;
            }
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 DUT lab: an attempt found {} % of line (bound {}); once more",
                v["throughput"][0]["rate_pct"],
                v["throughput"][0]["bound"]
            );
            (d, v) = run();
        }
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert_eq!(v["complete"], Value::Bool(true), "{out}");
        assert_eq!(json_u64(&v, "/line_bps"), 100_000_000);
        assert_host_described(
            &v,
            &["t0", "t1"],
            "line 100 Mbit/s at L1 (the profile's link:)",
        );
        assert!(
            json_str(&v, "/device").starts_with("scripts/lab's DUT: a Linux bridge"),
            "{}",
            v["device"]
        );
        assert_eq!(v["throughput"].as_array().map(Vec::len), Some(1), "{out}");
        let row = &v["throughput"][0];
        assert_eq!(json_u64(row, "/frame_size"), 1518);
        assert_trials_exact(row, &out);
        let trials = row["trials"].as_array().unwrap();
        assert_eq!(json_u64(row, "/trial_count"), trials.len() as u64);
        if only_descheduled(row) && row["bound"] == "tester" {
            // Every figure the tester's, none passed off as the DUT's.
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 DUT lab: the tester's lcores were descheduled in both attempts (a loaded machine): its limit is reported; the ±5 % check needs a quieter machine"
            );
            assert_eq!(d.status.code(), Some(3), "{out}");
            assert_eq!(row["bound"], "tester", "{out}");
            let probs = v["problems"].as_array().unwrap();
            assert!(probs.iter().any(|p| p["kind"] == "tester_bound"), "{out}");
        } else {
            assert_found_the_limit(&v, d.status.code(), &out);
        }
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// A rate the tester cannot reach: no DUT limit, ports whose line is
/// 10 Gbit/s at L1 (812,744 frames/s of 1518 bytes), more than the
/// af_packet tester can offer. Searched between 50 % and 100 % of that
/// line, every trial is the tester's (its TX missed the target): the row
/// says `bound: tester`, a `tester_bound` problem names it, the table
/// says so, and the run exits 3 (the figure is the tester's, never the
/// device's).
#[test]
fn rfc2544_names_the_testers_limit_not_the_duts() {
    let _alone = common::alone();
    if skip("rfc2544 above the tester's own rate") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(12), cert_file_prefix(12));
    {
        let lab = DutLab::up(&p, &["--mtu", "1500", "--frame-size", "1518"]);
        let dir = tempfile::tempdir().unwrap();
        let prof = cert_profile(
            dir.path(),
            &lab,
            &fp,
            &[
                ("link: 100m\n    checksum", "link: 10g\n    checksum"),
                ("link: 100m\n    promiscuous", "link: 10g\n    promiscuous"),
                ("resolution: 1.5625%", "resolution: 25%\n  lower: 50%"),
            ],
        );
        let args = ["--tests", "throughput", "--sizes", "1518", "--trial", "2s"];
        let (d, v) = rfc2544_in_lab(dir.path(), &lab, &prof, &args, Duration::from_secs(90));
        remove_run_dir(&fp);
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert_eq!(d.status.code(), Some(3), "{out}");
        assert_eq!(v["complete"], Value::Bool(true), "{out}");
        assert_eq!(json_u64(&v, "/line_bps"), 10_000_000_000);
        assert_host_described(
            &v,
            &["t0", "t1"],
            "line 10 Gbit/s at L1 (the profile's link:)",
        );
        let row = &v["throughput"][0];
        assert_eq!(row["bound"], "tester", "{out}");
        assert_trials_exact(row, &out);
        let trials = row["trials"].as_array().unwrap();
        // 100 %, then 75 % (the span is then the resolution), then the
        // lower bound, as far as the tester's failures take it, and the
        // confirmation of a rate that passed; a trial that was the
        // tester's is tried once more at its rate: at most 4 rates tried
        // twice each.
        let mut offered: Vec<f64> = trials.iter().map(|t| json_f64(t, "/offered_pct")).collect();
        assert!(offered.len() <= 8, "{out}");
        offered.dedup();
        assert!([100.0, 75.0, 50.0].starts_with(&offered), "{out}");
        assert_eq!(trials[0]["tester_bound"], Value::Bool(true), "{out}");
        let mut best = 0.0f64;
        for t in trials {
            // A trial passes only when the tester offered its load.
            if t["tester_bound"] == Value::Bool(true) {
                assert_eq!(t["passed"], Value::Bool(false), "{t}");
                assert!(
                    json_f64(t, "/sent_pct") < json_f64(t, "/offered_pct"),
                    "{t}"
                );
            }
            if t["passed"] == Value::Bool(true) {
                best = best.max(json_f64(t, "/offered_pct"));
            }
        }
        // The result is the highest rate the tester offered in full (its
        // limit, bound: tester), never a rate above it, and stands only
        // when its confirmation (the last trial) passed; 0 when none.
        let confirmed = trials.last().unwrap()["passed"] == Value::Bool(true);
        let expected = if confirmed { best } else { 0.0 };
        assert_eq!(json_f64(row, "/rate_pct"), expected, "{out}");
        assert!(best < 100.0, "{out}");
        let probs = v["problems"].as_array().unwrap();
        let tb: Vec<&Value> = probs
            .iter()
            .filter(|p| p["kind"] == "tester_bound")
            .collect();
        assert_eq!(tb.len(), 1, "{out}");
        assert_eq!(tb[0]["test"], "throughput");
        assert_eq!(json_u64(tb[0], "/frame_size"), 1518);
        assert!(d.stdout.contains("tester"), "{out}");
        assert!(
            d.stdout.contains("is the tester's limit, not the device's"),
            "{out}"
        );
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// The frame sizes of [`rfc2544_runs_all_four_tests_against_the_dut`].
const ALL_FOUR_SIZES: [u64; 2] = [512, 1518];

/// Frames of `size` bytes (with FCS) the DUT's 64 kB tail-drop buffer
/// holds: tbf's `limit` counts each frame as its skb, `size − 4` bytes
/// (veth has no FCS). 42 of 1518 bytes, 125 of 512.
fn dut_buffer_frames(size: u64) -> u64 {
    64_000 / (size - 4)
}

/// Frames of `size` bytes the DUT's tbf lets through at once from a full
/// bucket: `scripts/lab`'s default burst is 1 ms at the limit, 6,250
/// bytes, each frame counted at L1 (`size + 20`). 4 of 1518 bytes, 11
/// of 512.
fn dut_bucket_frames(size: u64) -> u64 {
    6_250 / (size + 20)
}

/// The DUT's limit in frames per second of `size` bytes (50 Mbit/s at
/// L1).
fn dut_limit_fps(size: u64) -> f64 {
    DUT_LIMIT_BPS / (8.0 * (size as f64 + 20.0))
}

/// The most frames the DUT can have forwarded of a trial that sent for
/// `span_s`: its bucket and its rate over the span, and what its buffer
/// held at the end (sent on during the settle time), with 2 frames and
/// 1 % of the rate for the timer's rounding. Holds whatever the load.
fn dut_most_forwarded(size: u64, span_s: f64) -> f64 {
    let fixed = dut_buffer_frames(size) + dut_bucket_frames(size) + 2;
    fixed as f64 + 1.01 * dut_limit_fps(size) * span_s
}

/// Every trial of a certification's JSON, with its test, in the order of
/// the CSV: throughput, latency, loss (each point's), back-to-back.
fn every_trial(v: &Value) -> Vec<(&'static str, &Value)> {
    let mut out = Vec::new();
    for (test, key) in [
        ("throughput", "throughput"),
        ("latency", "latency"),
        ("loss", "loss"),
        ("back_to_back", "back_to_back"),
    ] {
        for row in v[key].as_array().map(Vec::as_slice).unwrap_or(&[]) {
            if test == "loss" {
                // A point's earlier tries (tester-bound, tried again)
                // come before the trial that counts, as in the CSV.
                for p in row["points"].as_array().expect("points") {
                    let retried = p["retried"].as_array().map(Vec::as_slice);
                    out.extend(retried.unwrap_or(&[]).iter().map(|t| (test, t)));
                    out.push((test, &p["trial"]));
                }
            } else {
                let trials = row["trials"].as_array().expect("trials");
                out.extend(trials.iter().map(|t| (test, t)));
            }
        }
    }
    out
}

/// A trial the tester bounded only because the shared CPUs were taken
/// from it: an lcore descheduled, the sender a millisecond or more
/// behind its schedule (a stall no loop of landspeed's makes while it
/// holds its CPU: a virtual machine's host can take the CPU without the
/// guest's scheduler seeing it, so no `descheduled` is counted), or a
/// shortfall of under 1 % with nothing else wrong (a few short stalls,
/// none of them counted: one such trial sent 99.54 % of its target and
/// was never more than 0.31 ms late); and at most what such stalls do to
/// the sender: its target missed (late, with nothing refused by the port
/// and no mbuf missing) or its catch-up burst losing frames
/// (`sender_bunched`), never another reason.
fn shared_cpu_only(t: &Value) -> bool {
    let ps = t["problems"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let late = |p: &Value| {
        (p["kind"] == "target_missed" && p["refused"] == 0 && p["alloc_failed"] == 0)
            || p["kind"] == "sender_bunched"
    };
    let stalled = t["late_max_ns"].as_u64().unwrap_or(0) >= 1_000_000;
    let slightly_short = ps
        .iter()
        .any(|p| p["kind"] == "target_missed" && p["achieved_pct"].as_f64().unwrap_or(0.0) >= 99.0);
    (stalled || slightly_short || ps.iter().any(|p| p["kind"] == "descheduled"))
        && ps.iter().all(|p| p["kind"] == "descheduled" || late(p))
}

/// Whether a run of all four tests leaves doubt a quieter attempt may
/// lift: a throughput or back-to-back figure that is the tester's, or a
/// throughput off the limit by more than 5 %. (A tester-bound loss point
/// or latency trial only marks itself: on two shared CPUs nearly every
/// attempt has one, and repeating for it only made CI longer.)
fn all_four_in_doubt(v: &Value) -> bool {
    let bound = ["throughput", "back_to_back"]
        .iter()
        .flat_map(|k| v[*k].as_array().map(Vec::as_slice).unwrap_or(&[]))
        .any(|r| r["bound"] == "tester");
    let rows = v["throughput"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let off = rows.iter().any(|r| {
        let rate = r["rate_pct"].as_f64().unwrap_or(0.0);
        (rate / 50.0 - 1.0).abs() > 0.05
    });
    bound || off
}

/// The CSV's lines of `test` and `kind`, as column name → text.
fn csv_lines(csv: &str, test: &str, kind: &str) -> Vec<std::collections::HashMap<String, String>> {
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|l| l.unwrap())
        .filter(|l| &l[0] == test && &l[1] == kind)
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The JSON, the CSV and the HTML of one certification hold the same
/// figures: each CSV result line is a JSON row's figures as the report
/// rounds them, each CSV trial line a JSON trial's counts in the same
/// order, and every figure of the CSV's result lines is a cell of its
/// test's table in the HTML, every trial's counts cells of its trial list.
fn assert_reports_agree(v: &Value, csv: &str, html: &str) {
    // Results: % of line with 2 decimals (resolution 1.5625 %), frames/s
    // and nanoseconds whole, mean bursts with 1 decimal.
    let tput = csv_lines(csv, "throughput", "result");
    let rows = v["throughput"].as_array().unwrap();
    assert_eq!(tput.len(), rows.len(), "{csv}");
    for (l, r) in tput.iter().zip(rows) {
        assert_eq!(l["frame_size"], json_u64(r, "/frame_size").to_string());
        assert_eq!(
            l["rate_pct"],
            format!("{:.2}", json_f64(r, "/rate_pct")),
            "{r}"
        );
        assert_eq!(l["fps"], format!("{:.0}", json_f64(r, "/fps")), "{r}");
        assert_eq!(l["trials"], json_u64(r, "/trial_count").to_string());
        assert_eq!(l["bound"], json_str(r, "/bound"));
    }
    let lat = csv_lines(csv, "latency", "result");
    let rows = v["latency"].as_array().unwrap();
    assert_eq!(lat.len(), rows.len(), "{csv}");
    for (l, r) in lat.iter().zip(rows) {
        assert_eq!(l["rate_pct"], format!("{:.2}", json_f64(r, "/rate_pct")));
        for k in ["min_ns", "p50_ns", "p99_ns", "max_ns"] {
            let want = format!("{:.0}", json_f64(r, &format!("/summary/{k}")));
            assert_eq!(l[k], want, "latency {k}: {r}");
        }
    }
    let loss = csv_lines(csv, "loss", "result");
    let points: Vec<&Value> = (v["loss"].as_array().unwrap().iter())
        .flat_map(|c| c["points"].as_array().unwrap())
        .collect();
    assert_eq!(loss.len(), points.len(), "{csv}");
    for (l, p) in loss.iter().zip(&points) {
        assert_eq!(l["rate_pct"], format!("{:.2}", json_f64(p, "/rate_pct")));
        if json_u64(p, "/trial/lost") == 0 {
            assert_eq!(l["loss_pct"], "0", "{p}");
        }
    }
    let b2b = csv_lines(csv, "back_to_back", "result");
    let rows = v["back_to_back"].as_array().unwrap();
    assert_eq!(b2b.len(), rows.len(), "{csv}");
    for (l, r) in b2b.iter().zip(rows) {
        assert_eq!(
            l["mean_frames"],
            format!("{:.1}", json_f64(r, "/mean_frames"))
        );
        let searches = r["bursts"].as_array().unwrap().len();
        assert_eq!(l["searches"], searches.to_string());
    }
    // Trials: the same counts, in the same order.
    let trials = every_trial(v);
    let mut lines = Vec::new();
    for test in ["throughput", "latency", "loss", "back_to_back"] {
        lines.extend(csv_lines(csv, test, "trial").into_iter().map(|l| (test, l)));
    }
    assert_eq!(lines.len(), trials.len(), "one CSV line per trial");
    for ((test, l), (jt, t)) in lines.iter().zip(&trials) {
        assert_eq!(test, jt);
        for k in ["tx_frames", "rx_frames", "lost", "duplicated", "corrupt"] {
            assert_eq!(
                l[k],
                json_u64(t, &format!("/{k}")).to_string(),
                "{test} {k}: {t}"
            );
        }
        assert_eq!(
            l["offered_pct"],
            format!("{:.2}", json_f64(t, "/offered_pct"))
        );
    }
    // The HTML: one chart per test, nothing outside the file, and the
    // CSV's figures in its tables.
    let doc = scraper::Html::parse_document(html);
    let sel = |q: &str| scraper::Selector::parse(q).unwrap();
    let cells = |q: &str| -> std::collections::HashSet<String> {
        doc.select(&sel(q)).map(|e| e.text().collect()).collect()
    };
    // (Latency has no chart when no size had a throughput rate to
    // measure it at.)
    let measured = ["throughput", "latency", "loss", "back_to_back"]
        .iter()
        .filter(|k| !v[**k].as_array().unwrap().is_empty())
        .count();
    assert_eq!(
        doc.select(&sel("svg.chart")).count(),
        measured,
        "one chart per test with results"
    );
    assert!(
        !html.to_ascii_lowercase().contains("http"),
        "an outside reference"
    );
    for (test, results) in [
        ("throughput", &tput),
        ("latency", &lat),
        ("loss", &loss),
        ("back_to_back", &b2b),
    ] {
        // (The loss table heads its columns with the offered loads.)
        let table = cells(&format!(
            "section#{test} > table td, section#{test} > table th"
        ));
        let listed = cells(&format!("section#{test} details td"));
        for l in results.iter() {
            for (k, text) in l.iter() {
                let skip = ["test", "kind", "direction", "tester_bound"];
                if text.is_empty() || skip.contains(&k.as_str()) {
                    continue;
                }
                // The HTML shows the CSV's plain figure as people read it.
                let col = landspeed::certify::format::Column::from_name(k);
                let text =
                    &col.map_or(text.clone(), |c| landspeed::certify::format::shown(c, text));
                assert!(
                    table.contains(text),
                    "{test} {k} = {text:?} not in the HTML"
                );
            }
        }
        for (jt, t) in trials.iter().filter(|(jt, _)| *jt == test) {
            for k in ["tx_frames", "rx_frames", "lost"] {
                let n =
                    landspeed::certify::format::grouped(&json_u64(t, &format!("/{k}")).to_string());
                assert!(listed.contains(&n), "{jt} trial {k} {n} not in the HTML");
            }
        }
    }
}

/// All four tests of RFC 2544 against the DUT limited to 50 Mbit/s at L1
/// with a 64 kB buffer (as [`rfc2544_finds_the_dut_limit_at_1518_bytes`]),
/// at 512 and 1518 bytes, with 1 s trials: about 90 s. Every test is in
/// the JSON once per size, and each says what the DUT does:
///
/// - throughput: 50 % of line within ±5 %, `bound: device`, the
///   confirmation lost nothing;
/// - latency: its 2 trials at the throughput rate, one-way latency of
///   every frame received, 0 < min ≤ p50 ≤ p99 ≤ max;
/// - loss: 100 %, 90 %, ... in steps of 10 % until two steps lose nothing;
///   at 100 % the DUT drops what exceeds its rate, 1 − 50/sent of the
///   frames (±5 points), and every step above 55 % loses frames, the
///   last two none;
/// - back-to-back: the longest burst first (0.1 s at line rate: 2,350 and
///   813 frames) is lost in part; each search's result is more than 0 and
///   no more than the buffer, the bucket and the rate can pass in the
///   burst's span (at line rate, with the DUT draining half: 2 × (125 +
///   11 + 2) = 276 frames of 512 bytes, 2 × (42 + 4 + 2) = 96 of 1518);
///
/// and in every trial of every test the DUT forwarded no more than its
/// bucket, its rate and its buffer allow, and sent = received + lost. The
/// JSON, the CSV and the HTML hold the same figures.
///
/// A trial made tester-bound by the shared CPUs (a descheduled lcore, and
/// the sender's target missed for it) is accepted as
/// [`rfc2544_finds_the_dut_limit_at_1518_bytes`] accepts a descheduled
/// one: where it makes a throughput or back-to-back figure the tester's,
/// the run is repeated, up to twice; then such a trial is only asked to
/// count exactly and to be said so (a `tester_bound` problem and exit 3
/// for a throughput or back-to-back row it bounds). A throughput off
/// the limit is repeated the same way: at exactly the DUT's rate its
/// queue has no time to drain, so a sender preempted for less than the
/// descheduled threshold, catching up, can still overflow the 64 kB
/// buffer (8 frames of 1518 bytes lost at 50.000 % in one CI run, on a
/// trial that had passed at that rate before), and the search then
/// rightly settles below it.
#[test]
fn rfc2544_runs_all_four_tests_against_the_dut() {
    let _alone = common::alone();
    if skip("rfc2544: all four tests against a rate-limited DUT") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(13), cert_file_prefix(13));
    {
        let lab = DutLab::up(&p, DUT_50M);
        let dir = tempfile::tempdir().unwrap();
        let prof = cert_profile(
            dir.path(),
            &lab,
            &fp,
            &[("latency_trial: 2s", "latency_trial: 1s")],
        );
        let (csv_path, html_path) = (dir.path().join("cert.csv"), dir.path().join("cert.html"));
        let args = [
            "--tests",
            "throughput,latency,loss,back-to-back",
            "--sizes",
            "512,1518",
            "--trial",
            "1s",
            "--csv",
            csv_path.to_str().unwrap(),
            "--html",
            html_path.to_str().unwrap(),
        ];
        let run = || {
            let started = std::time::Instant::now();
            let r = rfc2544_in_lab(dir.path(), &lab, &prof, &args, Duration::from_secs(240));
            remove_run_dir(&fp);
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 DUT lab, all four tests: {:.0} s",
                started.elapsed().as_secs_f64()
            );
            r
        };
        let (mut d, mut v) = run();
        for _ in 0..2 {
            if !all_four_in_doubt(&v) {
                break;
            }
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 DUT lab, all four tests: a figure of the tester's or a throughput off the limit; once more"
            );
            (d, v) = run();
        }
        let out = format!("{}\n{}", d.stdout, d.stderr);
        let csv = std::fs::read_to_string(&csv_path).unwrap();
        let html = std::fs::read_to_string(&html_path).unwrap();

        // The structure: complete, every test once per size, in order.
        assert_eq!(v["complete"], Value::Bool(true), "{out}");
        assert_eq!(json_u64(&v, "/line_bps"), 100_000_000);
        assert_eq!(
            v["settings"]["tests"],
            serde_json::json!(["throughput", "latency", "loss", "back_to_back"]),
            "{out}"
        );
        let sizes = |key: &str| -> Vec<u64> {
            (v[key].as_array().unwrap().iter())
                .map(|r| json_u64(r, "/frame_size"))
                .collect()
        };
        for key in ["throughput", "loss", "back_to_back"] {
            assert_eq!(sizes(key), ALL_FOUR_SIZES, "{key}:\n{out}");
        }

        // Every trial counts exactly, and no DUT forwards more than its
        // bucket, rate and buffer allow.
        let trials = every_trial(&v);
        let bound: Vec<&Value> = (trials.iter())
            .filter(|(_, t)| t["tester_bound"] == true)
            .map(|(_, t)| *t)
            .collect();
        for (test, t) in &trials {
            let (sent, got, lost) = (
                json_u64(t, "/tx_frames"),
                json_u64(t, "/rx_frames"),
                json_u64(t, "/lost"),
            );
            // (A sender starved by the shared CPUs may send nothing: its
            // trial is tester-bound.)
            let starved = t["tester_bound"] == true;
            assert!(sent > 0 || starved, "{test} trial sent nothing: {t}\n{out}");
            assert_eq!(sent, got + lost, "{test}: sent = received + lost: {t}");
            assert_eq!(
                json_u64(t, "/duplicated") + json_u64(t, "/corrupt"),
                0,
                "{test}: {t}"
            );
            let most = dut_most_forwarded(json_u64(t, "/frame_size"), json_f64(t, "/duration_s"));
            assert!(
                got as f64 <= most,
                "{test}: {got} frames forwarded, more than the DUT's {most:.0} can: {t}"
            );
        }
        // Tester-bound trials only as the shared CPUs make them, said so:
        // a throughput or back-to-back row they bound names its
        // `tester_bound` problem, and the run exits 3 (a figure is the
        // tester's); a latency or loss trial tried again until one
        // counted only marks itself.
        let tester_rows = ["throughput", "back_to_back"]
            .iter()
            .flat_map(|k| v[*k].as_array().unwrap().iter())
            .filter(|r| r["bound"] == "tester")
            .count();
        // A latency or loss figure the tester kept bounding on every try
        // says so too, and a latency row short of trials because the
        // DUT's buffer overflowed at its throughput rate on every try is
        // a doubt of the device's own: nothing else.
        let probs = v["problems"].as_array().unwrap();
        let named = |test: &str| {
            (probs.iter())
                .filter(|p| p["kind"] == "tester_bound" && p["test"] == test)
                .count()
        };
        assert_eq!(
            named("throughput") + named("back_to_back"),
            tester_rows,
            "{out}"
        );
        let given_up = |r: &Value| {
            (r["trials"].as_array().unwrap().iter()).any(|t| {
                t["excluded"]
                    .as_str()
                    .is_some_and(|w| w.ends_with("no tries left"))
            })
        };
        let short = (v["latency"].as_array().unwrap().iter())
            .filter(|r| given_up(r))
            .count();
        let lat_probs = named("latency")
            + (probs.iter())
                .filter(|p| p["kind"] == "latency_left_out")
                .count();
        assert_eq!(lat_probs, short, "{out}");
        let bound_points = (v["loss"].as_array().unwrap().iter())
            .flat_map(|c| c["points"].as_array().unwrap())
            .filter(|p| p["trial"]["tester_bound"] == true)
            .count();
        assert_eq!(named("loss"), bound_points, "{out}");
        assert_eq!(probs.len(), tester_rows + short + bound_points, "{out}");
        let code = if probs.is_empty() { 0 } else { 3 };
        assert_eq!(d.status.code(), Some(code), "{out}");
        if !bound.is_empty() {
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 DUT lab, all four tests: {} of {} trials tester-bound (descheduled on a loaded machine) in the last attempt; their figures are only counted",
                bound.len(),
                trials.len()
            );
            for t in &bound {
                assert!(
                    shared_cpu_only(t),
                    "tester-bound, not by the CPUs: {t}\n{out}"
                );
            }
        }
        let quiet = |t: &Value| t["tester_bound"] == false;

        for (i, &size) in ALL_FOUR_SIZES.iter().enumerate() {
            // Throughput: the DUT's limit, 50 % of line.
            let row = &v["throughput"][i];
            let rate = json_f64(row, "/rate_pct");
            let ts = row["trials"].as_array().unwrap();
            assert_eq!(json_u64(row, "/trial_count"), ts.len() as u64);
            for t in ts.iter().filter(|t| quiet(t)) {
                assert_eq!(t["passed"] == true, json_u64(t, "/lost") == 0, "{t}\n{out}");
            }
            if row["bound"] == "tester" {
                assert!(ts.iter().any(|t| !quiet(t)), "{out}");
            } else {
                assert_eq!(row["bound"], "device", "{size} B:\n{out}");
                assert!(
                    (rate / 50.0 - 1.0).abs() <= 0.05,
                    "throughput {rate} % of line at {size} B for a 50M@l1 DUT on a 100M line:\n{out}"
                );
                let last = ts.last().unwrap();
                assert_eq!(json_f64(last, "/offered_pct"), rate);
                assert_eq!(last["passed"], Value::Bool(true), "{out}");
            }

            // Latency: at that rate, each trial's frames measured.
            let lat = (v["latency"].as_array().unwrap().iter())
                .find(|r| json_u64(r, "/frame_size") == size);
            if rate == 0.0 {
                assert!(lat.is_none(), "latency without a throughput rate: {out}");
            } else {
                let lat = lat.unwrap_or_else(|| panic!("no latency at {size} B:\n{out}"));
                assert_eq!(json_f64(lat, "/rate_pct"), rate, "{lat}");
                // latency_trials: 2 that count. A trial that lost frames at
                // the edge rate, or that the shared CPUs bounded, is left
                // out with its reason and tried again.
                let lts = lat["trials"].as_array().unwrap();
                let (counted, left): (Vec<&Value>, Vec<&Value>) =
                    lts.iter().partition(|t| t.get("excluded").is_none());
                assert_eq!(counted.len(), 2, "latency_trials: 2\n{out}");
                for t in &left {
                    let why = json_str(t, "/excluded");
                    let cpu = why.starts_with("tester-bound") && shared_cpu_only(t);
                    assert!(why.contains("lost") || cpu, "{t}\n{out}");
                }
                let mut count = 0;
                for t in counted {
                    assert_eq!(json_f64(t, "/offered_pct"), rate, "{t}");
                    let l = &t["latency"];
                    assert_eq!(
                        json_u64(l, "/count"),
                        json_u64(t, "/rx_frames"),
                        "every frame: {t}"
                    );
                    count += json_u64(l, "/count");
                    let (min, p50, p99, max) = (
                        json_f64(l, "/min_ns"),
                        json_f64(l, "/p50_ns"),
                        json_f64(l, "/p99_ns"),
                        json_f64(l, "/max_ns"),
                    );
                    assert!(
                        0.0 < min && min <= p50 && p50 <= p99 && p99 <= max,
                        "latency {size} B: {l}"
                    );
                }
                let sum = &lat["summary"];
                assert_eq!(json_u64(sum, "/count"), count, "{sum}");
                let (min, p50, p99, max) = (
                    json_f64(sum, "/min_ns"),
                    json_f64(sum, "/p50_ns"),
                    json_f64(sum, "/p99_ns"),
                    json_f64(sum, "/max_ns"),
                );
                assert!(0.0 < min && min <= p50 && p50 <= p99 && p99 <= max, "{sum}");
            }

            // Loss: from 100 % down in steps of 10 %.
            let curve = &v["loss"][i];
            let points = curve["points"].as_array().unwrap();
            let rates: Vec<f64> = points.iter().map(|p| json_f64(p, "/rate_pct")).collect();
            let want: Vec<f64> = (0..points.len()).map(|k| 100.0 - 10.0 * k as f64).collect();
            assert_eq!(rates, want, "{size} B:\n{out}");
            assert!(
                (6..=10).contains(&points.len()),
                "{} steps at {size} B: above the limit (100 % to 60 %) each loses, \
                 then two that lose nothing:\n{out}",
                points.len()
            );
            for p in points {
                let t = &p["trial"];
                assert_eq!(json_f64(p, "/loss_pct"), json_f64(t, "/loss_pct"), "{p}");
                if quiet(t) && json_f64(t, "/sent_pct") >= 55.0 {
                    assert!(
                        json_u64(t, "/lost") > 0,
                        "{size} B above the limit: {t}\n{out}"
                    );
                }
            }
            let top = &points[0]["trial"];
            if quiet(top) {
                let want = 100.0 * (1.0 - 50.0 / json_f64(top, "/sent_pct"));
                let got = json_f64(top, "/loss_pct");
                assert!(
                    (got - want).abs() <= 5.0,
                    "at 100 % of line, {size} B: lost {got} % of frames, the limit drops {want} %:\n{top}\n{out}"
                );
            }
            let tail = &points[points.len() - 2..];
            if points.len() < 10 || tail.iter().all(|p| quiet(&p["trial"])) {
                for p in tail {
                    assert_eq!(
                        json_u64(p, "/trial/lost"),
                        0,
                        "the last steps, {size} B:\n{out}"
                    );
                }
            }

            // Back-to-back: bounded by what the buffer holds.
            let b2b = &v["back_to_back"][i];
            let bts = b2b["trials"].as_array().unwrap();
            let bursts: Vec<u64> = (b2b["bursts"].as_array().unwrap().iter())
                .map(|b| b.as_u64().unwrap())
                .collect();
            assert_eq!(bursts.len(), 2, "back_to_back_trials: 2\n{out}");
            let longest = (0.1 * 100e6 / (8.0 * (size as f64 + 20.0))).ceil() as u64;
            let first = &bts[0];
            if quiet(first) {
                assert_eq!(json_u64(first, "/tx_frames"), longest, "{first}");
                assert!(
                    json_u64(first, "/lost") > 0,
                    "{size} B, {longest} frames: {first}"
                );
            }
            assert_eq!(b2b["at_limit"], Value::Bool(false), "{out}");
            let mean = bursts.iter().sum::<u64>() as f64 / 2.0;
            assert_eq!(json_f64(b2b, "/mean_frames"), mean);
            let at_line = 2 * (dut_buffer_frames(size) + dut_bucket_frames(size) + 2);
            // (A search whose every burst the starved tester could not
            // send at line rate found none: its row is the tester's.)
            if b2b["bound"] != "tester" {
                assert!(
                    bursts.iter().all(|&b| b > 0),
                    "no burst passed at {size} B:\n{out}"
                );
            }
            for &b in bursts.iter().filter(|&&b| b > 0) {
                let by = bts
                    .iter()
                    .find(|t| t["passed"] == true && json_u64(t, "/tx_frames") == b)
                    .unwrap_or_else(|| panic!("no passing burst of {b} frames:\n{out}"));
                let most = dut_most_forwarded(size, json_f64(by, "/duration_s"));
                assert!(
                    b as f64 <= most,
                    "{b} frames passed, more than the DUT holds: {by}"
                );
                if json_f64(by, "/sent_pct") >= 99.0 {
                    assert!(
                        b <= at_line,
                        "{b} frames at line rate, more than {at_line}: {by}"
                    );
                }
            }
            if bts.iter().all(&quiet) {
                assert_eq!(b2b["bound"], "device", "{out}");
            }
        }

        assert_reports_agree(&v, &csv, &html);
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// `scripts/lab up --dut --vxlan`: a stream of IPv4/UDP packets in VXLAN,
/// 1518- and 9130-byte frames in turn, sent from t0 to the DUT's kernel
/// VXLAN endpoint (configs/lab-dut-vxlan-tx.yaml), is decapsulated by
/// the DUT and bridged to t1: every frame arrives, plain, 50 bytes
/// shorter, and verified (configs/lab-dut-vxlan-rx.yaml): as many as
/// were sent, none lost, corrupt or foreign, and the DUT's VXLAN device
/// took in exactly as many.
#[test]
fn vxlan_frames_cross_the_kernel_endpoint_decapsulated_and_verified() {
    let _alone = common::alone();
    if skip("VXLAN through the DUT lab's endpoint") {
        return;
    }
    favour_this_thread();
    let p = prefix(16);
    {
        let lab = DutLab::up(&p, &["--vxlan"]);
        lab.status();
        let dir = tempfile::tempdir().unwrap();
        let tx = lab.profile(dir.path(), "lab-dut-vxlan-tx.yaml", &[]);
        let rx = lab.profile(dir.path(), "lab-dut-vxlan-rx.yaml", &[]);
        let pair = run_over_dut(dir.path(), &lab, &tx, &rx, TX_SECS);
        let (sent, st) = every_frame_verified(&pair);
        assert!(sent > 1000, "{}", pair.text);
        // The VXLAN, outer IPv4 and UDP and inner Ethernet headers: 50
        // bytes a frame, gone.
        let tx_bytes = json_u64(&pair.tx["tx"]["streams"][0], "/bytes");
        assert_eq!(json_u64(st, "/bytes"), tx_bytes - 50 * sent);
        let vx = format!("{p}-vx");
        assert_eq!(lab.counter(&lab.dut(), &vx, "rx_packets"), sent);
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// RFC 2544 section 23(b) in the DUT lab: a bridge that forgets an
/// address after a second (`scripts/lab up --dut --ageing 1`) knows,
/// before every trial, on which of its ports the test frames'
/// destination lives (`02:00:00:00:00:02` on d1, toward the receiving
/// port t1), because the receiving port taught it with learning frames:
/// the DUT hook `bridge fdb show` run before each trial says so in the
/// JSON. With `learning: off` the bridge never saw that address as a
/// source: it floods the test frames, and the hook's output lacks it.
#[test]
fn learning_frames_teach_the_dut_bridge_where_the_receiver_is() {
    let _alone = common::alone();
    if skip("learning frames in the DUT lab") {
        return;
    }
    let (p, fp) = (cert_prefix(14), cert_file_prefix(14));
    {
        let lab = DutLab::up(
            &p,
            &["--mtu", "1500", "--frame-size", "1518", "--ageing", "1"],
        );
        let dir = tempfile::tempdir().unwrap();
        let hook = format!(
            "  dut:\n    before_trial: ip netns exec {} bridge fdb show br {p}-br\n",
            lab.dut()
        );
        let learned = format!("02:00:00:00:00:02 dev {p}-d1 ");
        let run = |learning: &str| {
            let extra = format!("  back_to_back_max: 0.1s\n  learning: {learning}\n{hook}");
            let prof = cert_profile(
                dir.path(),
                &lab,
                &fp,
                &[
                    ("  back_to_back_max: 0.1s", extra.as_str()),
                    ("  restabilise: 0.2s", "  restabilise: 1.5s"),
                ],
            );
            let args = ["--tests", "throughput", "--sizes", "1518", "--trial", "1s"];
            let r = rfc2544_in_lab(dir.path(), &lab, &prof, &args, Duration::from_secs(120));
            remove_run_dir(&fp);
            r
        };
        let (d, v) = run("every_trial");
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert!(matches!(d.status.code(), Some(0 | 3)), "{out}");
        let trials = v["throughput"][0]["trials"].as_array().unwrap();
        assert!(!trials.is_empty(), "{out}");
        for t in trials {
            let l = &t["learning"];
            assert_eq!(
                l["addresses"],
                serde_json::json!(["02:00:00:00:00:02 from t1"]),
                "{t}"
            );
            assert_eq!(json_u64(l, "/frames"), 3, "{t}");
            let fdb = json_str(&t["hooks"][0], "/output");
            assert_eq!(t["hooks"][0]["status"], 0, "{t}");
            assert!(fdb.contains(&learned), "no `{learned}` in:\n{fdb}");
        }
        let (d, v) = run("off");
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert!(matches!(d.status.code(), Some(0 | 3)), "{out}");
        let first = &v["throughput"][0]["trials"][0];
        assert!(first["learning"].is_null(), "{first}");
        let fdb = json_str(&first["hooks"][0], "/output");
        assert!(
            !fdb.contains("02:00:00:00:00:02"),
            "learnt without learning:\n{fdb}"
        );
        assert!(fdb.contains(&format!("dev {p}-d0")), "{fdb}");
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// RFC 2544 26.5 and 26.6 against the bridge DUT (50 Mbit/s, a 64 kB
/// buffer). Recovery: after the throughput search, 110 % of the
/// throughput rate overloads the DUT, then half of that lets it drain;
/// the time from the drop to the first frame that is not lost is at
/// most the buffer's drain time (64 kB at 50 Mbit/s: 10.24 ms) and the
/// scheduling of one poll, never seconds. Reset: the profile's reset
/// hook takes the DUT's receiving veth down for one second mid-trial;
/// the gap in the frames is that second, within 10 %.
#[test]
fn recovery_and_reset_against_the_dut_bridge() {
    let _alone = common::alone();
    if skip("rfc2544 recovery and reset against the DUT bridge") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(15), cert_file_prefix(15));
    {
        let lab = DutLab::up(&p, DUT_50M);
        let dir = tempfile::tempdir().unwrap();
        let dut = lab.dut();
        let extra = format!(
            "  back_to_back_max: 0.1s\n  recovery_overload: 2s\n  recovery_reduced: 2s\n  \
             recovery_trials: 2\n  reset_trial: 4s\n  reset_at: 1s\n  reset_trials: 2\n  \
             dut:\n    reset: ip -n {dut} link set {p}-d1 down; sleep 1; ip -n {dut} link set {p}-d1 up\n"
        );
        let prof = cert_profile(
            dir.path(),
            &lab,
            &fp,
            &[("  back_to_back_max: 0.1s", extra.as_str())],
        );
        let args = [
            "--tests",
            "throughput,recovery,reset",
            "--sizes",
            "1518",
            "--trial",
            "2s",
        ];
        let run = || {
            let r = rfc2544_in_lab(dir.path(), &lab, &prof, &args, Duration::from_secs(240));
            remove_run_dir(&fp);
            r
        };
        // A loaded machine can make trials the tester's: once more then.
        let counted = |v: &Value| {
            (v["recovery"][0]["recovery_s"].as_array()).is_some_and(|a| !a.is_empty())
                && (v["reset"][0]["reset_s"].as_array()).is_some_and(|a| !a.is_empty())
        };
        let (mut d, mut v) = run();
        if !counted(&v) {
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 recovery/reset: a trial was left out (a loaded machine); once more"
            );
            (d, v) = run();
        }
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert!(matches!(d.status.code(), Some(0 | 3)), "{out}");
        if v["throughput"][0]["bound"] == "tester" || !counted(&v) {
            // Both attempts the tester's (its lcores waited for their
            // CPUs): said so, exit 3, no figure passed off as the DUT's.
            assert_eq!(d.status.code(), Some(3), "{out}");
            let probs = v["problems"].as_array().unwrap();
            assert!(probs.iter().any(|p| p["kind"] == "tester_bound"), "{out}");
            let _ = writeln!(
                std::io::stderr(),
                "rfc2544 recovery/reset: the tester was descheduled in both attempts (a loaded machine): reported as the tester's; the figures need a quieter machine"
            );
            drop(lab);
            assert_dut_gone(&p);
            return;
        }
        let rate = json_f64(&v["throughput"][0], "/rate_pct");
        assert!(
            (rate / 50.0 - 1.0).abs() <= 0.1,
            "throughput {rate} %:\n{out}"
        );

        let rec = &v["recovery"][0];
        assert_eq!(json_u64(rec, "/frame_size"), 1518, "{rec}");
        let over = json_f64(rec, "/overload_pct");
        assert!(
            (over - rate * 1.1).abs() < 1e-6,
            "overload {over} % at {rate} %"
        );
        assert!(
            (json_f64(rec, "/reduced_pct") - over / 2.0).abs() < 1e-9,
            "{rec}"
        );
        let times: Vec<f64> = (rec["recovery_s"].as_array().unwrap().iter())
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(!times.is_empty(), "no recovery trial counted:\n{out}");
        // At 110 % of its rate the bridge's tail drop loses about one
        // frame in twenty, and at half of that load its queue drains at
        // once: the last loss comes within a frame or two of the step,
        // often just before it (a recovery of 0: the loss ended at the
        // step), never 100 ms after it.
        for t in &times {
            assert!(*t >= 0.0 && *t < 0.1, "recovery {t} s:\n{out}");
        }
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        assert!((json_f64(rec, "/mean_s") - mean).abs() < 1e-12, "{rec}");
        // The overload lost frames in every counted trial (else there was
        // nothing to recover from).
        for t in rec["trials"].as_array().unwrap() {
            if t["excluded"].is_null() {
                assert!(json_u64(t, "/lost") > 0, "{t}");
            }
        }

        let reset = &v["reset"][0];
        assert_eq!(json_u64(reset, "/frame_size"), 1518, "{reset}");
        assert!(
            (json_f64(reset, "/rate_pct") - rate).abs() < 1e-9,
            "{reset}"
        );
        let gaps: Vec<f64> = (reset["reset_s"].as_array().unwrap().iter())
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(!gaps.is_empty(), "no reset trial counted:\n{out}");
        for g in &gaps {
            assert!(
                (0.9..=1.1).contains(g),
                "reset {g} s, not 1 s ±10 %:\n{out}"
            );
        }
        for t in reset["trials"].as_array().unwrap() {
            assert_eq!(t["hooks"][0]["status"], 0, "{t}");
        }
        let _ = writeln!(
            std::io::stderr(),
            "rfc2544 DUT lab: throughput {rate:.3} %, recovery {times:?} s, reset {gaps:?} s"
        );
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// RFC 2889's address caching capacity has a known answer in the lab: a
/// bridge of three tester ports (`scripts/lab up --dut --ports 3`) that
/// learns at most 512 addresses (`--fdb-max 512`). A stream whose source
/// walks 600 MACs (`02:00:00:00:10:00-02:00:00:00:12:57`, one per frame)
/// leaves t0 for an address the bridge never learns: the bridge learns
/// exactly 512 of the 600, all on d0, and floods every frame, so t1
/// receives each one verified and the third port t2 sees each one too.
#[test]
fn a_bounded_bridge_learns_its_limit_of_a_mac_range_and_floods_the_rest() {
    let _alone = common::alone();
    if skip("a MAC range through a bridge bounded to 512 addresses") {
        return;
    }
    favour_this_thread();
    let p = prefix(17);
    {
        let lab = DutLab::up(
            &p,
            &[
                "--ports",
                "3",
                "--fdb-max",
                "512",
                "--mtu",
                "1500",
                "--frame-size",
                "1518",
            ],
        );
        let text = lab.status();
        assert!(
            text.contains(&format!("address table of {p}-br: 0 learnt, at most 512")),
            "{text}"
        );
        let dir = tempfile::tempdir().unwrap();
        let macs = (
            "eth: { src: \"02:00:00:00:00:01\",",
            "eth: { src: \"02:00:00:00:10:00-02:00:00:00:12:57\",",
        );
        let tx = lab.profile(
            dir.path(),
            "lab-dut-tx.yaml",
            &[macs, ("rate: 1G ", "rate: 100M ")],
        );
        let rx = lab.profile(dir.path(), "lab-dut-rx.yaml", &[macs]);
        let pair = run_over_dut(dir.path(), &lab, &tx, &rx, TX_SECS);
        let (sent, _) = every_frame_verified(&pair);
        assert!(sent > 600, "{}", pair.text);
        let flooded = lab.counter(&lab.tester(), &format!("{p}-t2"), "rx_packets");
        assert_eq!(flooded, sent, "every frame flooded to the third port");
        let fdb = Command::new("bridge")
            .args(["-n", &lab.dut(), "fdb", "show", "br", &format!("{p}-br")])
            .output()
            .unwrap();
        let fdb = String::from_utf8_lossy(&fdb.stdout);
        let learnt: Vec<&str> = fdb.lines().filter(|l| !l.contains("permanent")).collect();
        assert_eq!(learnt.len(), 512, "{fdb}");
        for l in &learnt {
            assert!(
                l.starts_with("02:00:00:00:1") && l.contains(&format!(" dev {p}-d0 ")),
                "{l}"
            );
        }
        let text = lab.status();
        assert!(
            text.contains(&format!("address table of {p}-br: 512 learnt, at most 512")),
            "{text}"
        );
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// Four tester ports fully meshed through the lab's bridge
/// (`configs/lab-dut-mesh.yaml` over `scripts/lab up --dut --ports 4`):
/// the certification's rows are the aggregate, every trial names the
/// twelve port-to-port pairs in order and counts each exactly (sent =
/// received + lost, the pairs' sums the trial's); the learning frames
/// taught the bridge each port's address on its own port, so nothing is
/// flooded (no foreign frame anywhere), and a trial the tester did not
/// bound loses nothing (the bridge has no limit).
#[test]
fn a_four_port_bridge_forwards_a_full_mesh_pair_by_pair() {
    let _alone = common::alone();
    if skip("a full mesh of four ports through the bridge") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(16), cert_file_prefix(16));
    {
        let lab = DutLab::up(
            &p,
            &["--ports", "4", "--mtu", "1500", "--frame-size", "1518"],
        );
        let dir = tempfile::tempdir().unwrap();
        let fp_line = format!("hugepages: false\n  file_prefix: {fp}");
        let prof = lab.profile(
            dir.path(),
            "lab-dut-mesh.yaml",
            &[("hugepages: false", &fp_line)],
        );
        let (d, v) = rfc2544_in_lab(
            dir.path(),
            &lab,
            &prof,
            &[
                "--quick",
                "--html",
                dir.path().join("m.html").to_str().unwrap(),
            ],
            Duration::from_secs(120),
        );
        remove_run_dir(&fp);
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert!(matches!(d.status.code(), Some(0 | 3)), "{out}");
        assert_eq!(json_str(&v, "/topology"), "mesh", "{out}");
        assert_eq!(v["directions"][0], "t0 → t1, t2, t3");
        let pairs = common::full_mesh_pairs(4);
        let rows = v["throughput"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "{out}");
        assert_eq!(json_str(&rows[0], "/direction"), "aggregate");
        let trials = rows[0]["trials"].as_array().unwrap();
        assert!(!trials.is_empty(), "{out}");
        for t in trials {
            let keys = ["tx_frames", "rx_frames", "lost", "corrupt", "duplicated"];
            let shares = common::pairs_sum_to_the_trial(t, &keys);
            let names: Vec<&str> = shares.iter().map(|d| json_str(d, "/direction")).collect();
            assert_eq!(names, pairs, "{t}");
            for d in shares {
                assert!(json_u64(d, "/tx_frames") > 0, "{d}");
                assert_eq!(
                    json_u64(d, "/rx_frames") + json_u64(d, "/lost"),
                    json_u64(d, "/tx_frames"),
                    "{d}"
                );
                assert_eq!(json_u64(d, "/corrupt") + json_u64(d, "/duplicated"), 0);
            }
            assert_eq!(json_u64(t, "/foreign"), 0, "nothing flooded: {t}");
            let at: Vec<(&str, u64)> = (t["foreign_at"].as_array().unwrap().iter())
                .map(|f| (json_str(f, "/port"), json_u64(f, "/frames")))
                .collect();
            assert_eq!(at, [("t0", 0), ("t1", 0), ("t2", 0), ("t3", 0)], "{t}");
            if t["tester_bound"] == Value::Bool(false) {
                assert_eq!(json_u64(t, "/lost"), 0, "{t}");
            }
        }
        // The bridge learnt the four tester addresses, each on its port.
        let fdb = Command::new("bridge")
            .args(["-n", &lab.dut(), "fdb", "show", "br", &format!("{p}-br")])
            .output()
            .unwrap();
        let fdb = String::from_utf8_lossy(&fdb.stdout);
        let mut learnt: Vec<&str> = fdb.lines().filter(|l| !l.contains("permanent")).collect();
        learnt.sort_unstable();
        assert_eq!(learnt.len(), 4, "{fdb}");
        for (i, l) in learnt.iter().enumerate() {
            assert!(
                l.starts_with(&format!("02:00:00:00:00:0{i} dev {p}-d{i} ")),
                "{l}"
            );
        }
        let html = std::fs::read_to_string(dir.path().join("m.html")).unwrap();
        assert!(html.contains(r#"<svg class="pairs" id="pairs-throughput-1518""#));
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// RFC 2889's congestion control over the lab's bridge
/// (`configs/lab-dut-congestion.yaml` over `scripts/lab up --dut --ports
/// 4 --limit 100M --buffer 64kB`): t0 splits its load between t2 and t3,
/// t1 sends all of its to t2, so at 100 % of line t2's egress is offered
/// 150 % of its limit and t3's 50 %. Each pair is counted exactly and
/// nothing is flooded; in a trial the tester did not bound, the
/// uncongested flow t0 → t3 loses nothing (a bridge has no head-of-line
/// blocking) and the congested port loses the third its limit cannot
/// carry (±5 %). On a machine too small for five lcores the trials are
/// the tester's, and the report says so (exit 3).
#[test]
fn congestion_on_one_bridge_port_spares_the_uncongested_flow() {
    let _alone = common::alone();
    if skip("RFC 2889 congestion control through the bridge") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(17), cert_file_prefix(17));
    {
        let lab = DutLab::up(
            &p,
            &[
                "--ports",
                "4",
                "--limit",
                "100M",
                "--buffer",
                "64kB",
                "--mtu",
                "1500",
                "--frame-size",
                "1518",
            ],
        );
        let dir = tempfile::tempdir().unwrap();
        let fp_line = format!("hugepages: false\n  file_prefix: {fp}");
        let prof = lab.profile(
            dir.path(),
            "lab-dut-congestion.yaml",
            &[("hugepages: false", &fp_line)],
        );
        let (d, v) = rfc2544_in_lab(
            dir.path(),
            &lab,
            &prof,
            &["--quick"],
            Duration::from_secs(120),
        );
        remove_run_dir(&fp);
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert_eq!(json_str(&v, "/topology"), "mesh", "{out}");
        assert_eq!(
            v["directions"],
            serde_json::json!(["t0 → t2, t3", "t1 → t2"])
        );
        let points = v["loss"][0]["points"].as_array().unwrap();
        assert_eq!(json_f64(&points[0], "/rate_pct"), 100.0, "{out}");
        let mut bound = false;
        for pt in points {
            let t = &pt["trial"];
            let pairs = common::pairs_sum_to_the_trial(t, &["tx_frames", "rx_frames", "lost"]);
            let names: Vec<&str> = pairs.iter().map(|d| json_str(d, "/direction")).collect();
            assert_eq!(names, ["t0 → t2", "t0 → t3", "t1 → t2"], "{t}");
            for d in pairs {
                assert_eq!(
                    json_u64(d, "/rx_frames") + json_u64(d, "/lost"),
                    json_u64(d, "/tx_frames"),
                    "{d}"
                );
            }
            assert_eq!(json_u64(t, "/foreign"), 0, "nothing flooded: {t}");
            if t["tester_bound"] == Value::Bool(true) {
                bound = true;
                continue;
            }
            assert_eq!(json_u64(&pairs[1], "/lost"), 0, "the uncongested flow: {t}");
            if json_f64(t, "/offered_pct") == 100.0 {
                let (lost, sent) = (
                    json_u64(&pairs[0], "/lost") + json_u64(&pairs[2], "/lost"),
                    json_u64(&pairs[0], "/tx_frames") + json_u64(&pairs[2], "/tx_frames"),
                );
                let pct = lost as f64 * 100.0 / sent as f64;
                assert!((pct - 100.0 / 3.0).abs() <= 5.0, "t2 lost {pct} %: {t}");
            }
        }
        if bound {
            assert_eq!(d.status.code(), Some(3), "{out}");
        }
        drop(lab);
    }
    assert_dut_gone(&p);
}

/// RFC 2889's address caching capacity and address learning rate against
/// the lab's bridge whose table learns at most 512 addresses
/// (`configs/lab-dut-address.yaml` over `scripts/lab up --dut --ports 3
/// --fdb-max 512`, `landspeed rfc2889`): the caching search finds 512
/// exactly (513 floods one address's frames to the monitoring port),
/// every flooded frame counted at t2; the learning rate search gives a
/// figure and its trace, teaching the 512 found; the bridge's table is
/// flushed before every trial by the profile's hook.
#[test]
fn the_address_searches_find_the_bridges_table_size_and_learning_rate() {
    let _alone = common::alone();
    if skip("RFC 2889 address caching against a bounded bridge table") {
        return;
    }
    favour_this_thread();
    let (p, fp) = (cert_prefix(18), cert_file_prefix(18));
    {
        let lab = DutLab::up(&p, &["--ports", "3", "--fdb-max", "512"]);
        let dir = tempfile::tempdir().unwrap();
        let fp_line = format!("hugepages: false\n  file_prefix: {fp}");
        let flush = format!("ip -n {}-dut link set {p}-br type bridge fdb_flush", p);
        let prof = lab.profile(
            dir.path(),
            "lab-dut-address.yaml",
            &[
                ("hugepages: false", &fp_line),
                ("ip -n ls-dut link set ls-br type bridge fdb_flush", &flush),
            ],
        );
        let html = dir.path().join("a.html");
        let (d, v) = certify_in_lab(
            "rfc2889",
            dir.path(),
            &lab,
            &prof,
            &[
                "--quick",
                "--tests",
                "address-caching,address-learning-rate",
                "--html",
                html.to_str().unwrap(),
            ],
            Duration::from_secs(300),
        );
        remove_run_dir(&fp);
        let out = format!("{}\n{}", d.stdout, d.stderr);
        assert_eq!(d.status.code(), Some(0), "{out}");
        assert_eq!(json_str(&v, "/topology"), "mesh", "{out}");
        let row = &v["address_caching"][0];
        assert_eq!(json_u64(row, "/addresses"), 512, "{row}\n{out}");
        assert_eq!(json_str(row, "/bound"), "device", "{out}");
        let trials = row["trials"].as_array().unwrap();
        let mut tried: Vec<u64> = Vec::new();
        for t in trials {
            let n = json_u64(t, "/addresses");
            tried.push(n);
            // Every frame reached t1, the learning port; the frames of
            // the addresses the bridge could not learn were flooded to
            // t2 as well: as many as were sent to them.
            assert_eq!(json_u64(t, "/rx_frames"), json_u64(t, "/tx_frames"), "{t}");
            assert_eq!(json_u64(t, "/lost") + json_u64(t, "/corrupt"), 0, "{t}");
            let at: Vec<(&str, u64)> = (t["foreign_at"].as_array().unwrap().iter())
                .map(|f| (json_str(f, "/port"), json_u64(f, "/frames")))
                .collect();
            assert_eq!(at[0], ("t1", 0), "{t}");
            assert_eq!(at[1].0, "t2");
            let sent = json_u64(t, "/tx_frames");
            let unknown = n.saturating_sub(512);
            // The stream walks its n addresses in order: the unknown
            // addresses' share of the frames, to within one per address
            // (fewer when the monitoring port's lcore, sharing a CPU,
            // fell behind its ring), and none when every one was learnt.
            let want = sent * unknown / n;
            let flooded = at[1].1;
            assert_eq!(flooded == 0, unknown == 0, "{n}: {at:?}");
            assert!(
                flooded <= want + unknown && flooded >= want / 2,
                "{n}: {at:?} of {sent}"
            );
            assert_eq!(t["passed"], Value::Bool(n <= 512), "{t}");
            assert_eq!(t["hooks"][0]["hook"], "flush", "{t}");
            assert_eq!(t["hooks"][0]["status"], 0, "{t}");
            let l = &t["learning"];
            assert_eq!(json_u64(l, "/frames"), n, "each address taught once: {l}");
            assert_eq!(json_u64(l, "/refused"), 0, "{l}");
            assert_eq!(l["paced_fps"], 2000.0);
        }
        assert_eq!(tried[..2], [1024, 512], "{tried:?}");
        assert!(tried.contains(&513), "{tried:?}");
        assert!(tried.len() <= 11, "{tried:?}");
        // The learning rate search taught the 512 found.
        let row = &v["learning_rate"][0];
        assert_eq!(json_u64(row, "/addresses"), 512, "{row}");
        let fps = row["learning_fps"]
            .as_f64()
            .expect("a learning rate figure");
        assert!(fps >= 1000.0, "{row}");
        let trials = row["trials"].as_array().unwrap();
        assert!(!trials.is_empty());
        for t in trials {
            assert_eq!(json_u64(t, "/addresses"), 512, "{t}");
            assert!(
                t["learning"]["paced_fps"].as_f64().unwrap() >= 1000.0,
                "{t}"
            );
        }
        assert!(
            out.contains("address caching capacity (RFC 2889 5.7)"),
            "{out}"
        );
        assert!(
            out.contains("address learning rate (RFC 2889 5.8)"),
            "{out}"
        );
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("<h1>RFC 2889 evaluation</h1>"));
        assert!(page.contains(r#"id="address_caching""#));
        drop(lab);
    }
    assert_dut_gone(&p);
}
