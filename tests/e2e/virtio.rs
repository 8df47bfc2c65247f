//! landspeed against a vhost-user peer: `dpdk-testpmd` with a `net_vhost`
//! or `net_virtio_user` port forwarding (`io`) what it receives back on the
//! same queue. Without hugepages, vhost-user needs the virtio side's memory
//! in file descriptors it can pass: `--no-huge` with `--single-file-segments`
//! (docs/real-nics.md). Needs root and `dpdk-testpmd` (Debian's `dpdk-dev`);
//! each test skips with a line saying why when either is missing.
//!
//! Every process is bounded by `timeout`; the peer, its socket and both
//! DPDK runtime directories are removed on every path (a guard's drop).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::child::Proc;
use crate::common::host::Need;
use crate::common::{by_id, json_u64, read_json, write_file, Output};
use serde_json::Value;

/// Prints the skip line and returns true when the tests cannot run here:
/// they need root, `dpdk-testpmd` and DPDK's vhost and virtio PMDs.
fn skip(test: &str) -> bool {
    let needs = [
        Need::Root("vhost-user sockets in the DPDK runtime need root"),
        Need::Program("dpdk-testpmd", "package dpdk-dev"),
        Need::Pmd("librte_net_vhost.so"),
        Need::Pmd("librte_net_virtio.so"),
    ];
    common::host::skip("virtio", test, &needs)
}

/// A `dpdk-testpmd` peer, bounded by `timeout`; on drop it is stopped,
/// and its socket and the runtime directories of both sides removed.
struct Peer {
    child: Option<Child>,
    log: PathBuf,
    cleanup: Vec<PathBuf>,
}

impl Peer {
    /// `dpdk-testpmd` with `vdev`, forwarding `io` on `queues` queues,
    /// output to `dir/testpmd.log`.
    fn start(dir: &Path, tag: &str, vdev: &str, queues: u32) -> Peer {
        let log = dir.join(format!("testpmd-{tag}.log"));
        let prefix = format!("lsdpeer{tag}{}", std::process::id());
        let q = queues.to_string();
        let child = Command::new("timeout")
            .args(["-s", "INT", "-k", "5", "60", "dpdk-testpmd", "-l", "0,1"])
            .args([
                "--no-huge",
                "-m",
                "512",
                "--single-file-segments",
                "--no-pci",
            ])
            .arg(format!("--file-prefix={prefix}"))
            .args(["--no-shconf", "--log-level=notice"])
            .arg(format!("--vdev={vdev}"))
            .args(["--", "--forward-mode=io", "--nb-cores=1", "--no-mlockall"])
            .args(["--rxq", &q, "--txq", &q, "--total-num-mbufs=16384"])
            .args(["--stats-period", "1"])
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(Stdio::from(
                std::fs::File::create(dir.join("testpmd.err")).unwrap(),
            ))
            .spawn()
            .expect("starting dpdk-testpmd");
        Peer {
            child: Some(child),
            log,
            cleanup: vec![PathBuf::from("/var/run/dpdk").join(prefix)],
        }
    }

    /// Waits until the peer forwards (its first stats line).
    fn wait_forwarding(&mut self, limit: Duration) {
        let start = Instant::now();
        while start.elapsed() < limit {
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            if text.contains("NIC statistics") {
                return;
            }
            if let Some(st) = self
                .child
                .as_mut()
                .and_then(|c| c.try_wait().ok().flatten())
            {
                panic!("dpdk-testpmd ended ({st}) before forwarding:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("dpdk-testpmd not forwarding after {limit:?}");
    }
}

impl Peer {
    /// The pid of `dpdk-testpmd` itself (the child of `timeout`).
    fn testpmd_pid(&self) -> u32 {
        let parent = self.child.as_ref().expect("a running peer").id();
        let ppid_of = |pid: &str| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // pid (comm) state ppid ...: comm may hold spaces, not `)`.
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().nth(1)?.parse::<u32>().ok()
        };
        (std::fs::read_dir("/proc").expect("reading /proc").flatten())
            .filter_map(|d| d.file_name().to_str().map(str::to_string))
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
            .find(|n| ppid_of(n) == Some(parent))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no dpdk-testpmd under timeout ({parent})"))
    }
}

/// A process stopped with SIGSTOP, continued (SIGCONT) on drop.
struct Stopped(u32);

impl Stopped {
    fn stop(pid: u32) -> Stopped {
        let st = Command::new("kill")
            .args(["-STOP", &pid.to_string()])
            .status()
            .expect("kill -STOP");
        assert!(st.success(), "kill -STOP {pid}: {st}");
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // SIGINT: testpmd stops its ports and leaves; `timeout` kills
            // it 5 s later if it does not.
            let _ = Command::new("kill")
                .args(["-INT", &c.id().to_string()])
                .status();
            let start = Instant::now();
            while start.elapsed() < Duration::from_secs(10) {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        for p in &self.cleanup {
            let _ = std::fs::remove_dir_all(p).or_else(|_| std::fs::remove_file(p));
        }
    }
}

/// A vhost-user socket path of this test process, removed by `peer`.
fn socket(peer_cleanup: &mut Vec<PathBuf>, tag: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("lsd-vhost-{tag}-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&p);
    peer_cleanup.push(p.clone());
    p
}

/// The landspeed profile's EAL section: lcores on both CPUs (a TX and an
/// RX task share one with the main lcore), no hugepages, its own prefix.
fn eal(cores: &str, cpus: &str, prefix: &str, vdev: &str) -> String {
    format!(
        "eal:\n  cores: {cores}\n  cpus: {cpus}\n  memory_mb: 512\n  hugepages: false\n  \
         extra_args: [--single-file-segments]\n  file_prefix: {prefix}\n  vdevs: [\"{vdev}\"]\n"
    )
}

/// Two streams of 9130-byte frames.
const STREAMS: &str = "streams:\n\
  - { name: a, id: 1, frame_size: 9130, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 } }\n\
  - { name: b, id: 2, frame_size: 9130, ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" } }\n";

/// A run that completed with every frame back: the exit status is 0, or 3
/// when the only problems are lcores that waited for their shared CPU.
fn assert_complete(out: &Output, v: &Value) {
    let problems = v["outcome"]["problems"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    // CPUs shared with testpmd: lcores wait for them, and miss their
    // rate targets meanwhile.
    let only_sched =
        (problems.iter()).all(|p| p["kind"] == "descheduled" || p["kind"] == "target_missed");
    let code = out.status.code();
    assert!(
        code == Some(0) || (code == Some(3) && only_sched),
        "{}\n{}\n{problems:?}",
        out.stdout,
        out.stderr
    );
    assert_eq!(json_u64(v, "/mbufs_leaked"), 0);
}

/// Every frame of each stream came back good: exact counts, nothing lost,
/// corrupt or foreign.
fn assert_every_frame_back(v: &Value) {
    for id in [1u64, 2] {
        let sent = json_u64(by_id(v, "/tx/streams", id), "/frames");
        let st = by_id(v, "/rx/streams", id);
        assert!(sent > 0, "stream {id}: nothing sent");
        assert_eq!(
            json_u64(st, "/frames"),
            sent,
            "stream {id}: received vs sent"
        );
        assert_eq!(json_u64(st, "/bytes"), sent * 9130, "stream {id}: bytes");
        assert_eq!(json_u64(st, "/lost"), 0, "stream {id}: lost");
        assert_eq!(json_u64(st, "/corrupt_total"), 0, "stream {id}: corrupt");
    }
    assert_eq!(json_u64(v, "/rx/foreign"), 0);
}

/// The DPDK runtime directory of an explicit prefix, removed on drop.
struct RunDir(PathBuf);

impl Drop for RunDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_dir(prefix: &str) -> RunDir {
    RunDir(PathBuf::from("/var/run/dpdk").join(prefix))
}

/// 9130-byte frames cross virtio-user (landspeed) ↔ vhost-user (testpmd,
/// forwarding each queue back to itself) on two queue pairs, every frame
/// verified good. First, the same port without a `link:`: virtio-user
/// reports no speed, so `rate: 95%` is refused naming the port, not
/// resolved against an invented line.
#[test]
fn jumbo_frames_cross_virtio_user_and_vhost_on_two_queues() {
    if skip("jumbo_frames_cross_virtio_user_and_vhost_on_two_queues") {
        return;
    }
    // The peer polls both CPUs from its start: no other run meanwhile.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let mut cleanup = Vec::new();
    let sock = socket(&mut cleanup, "q2");
    let vhost = format!("net_vhost0,iface={},queues=2", sock.display());
    let mut peer = Peer::start(dir.path(), "q2", &vhost, 2);
    peer.cleanup.extend(cleanup);
    peer.wait_forwarding(Duration::from_secs(30));
    let prefix = format!("lsdvu{}", std::process::id());
    let _rd = run_dir(&prefix);
    let vdev = format!(
        "net_virtio_user0,path={},queues=2,cq=1,mrg_rxbuf=1,queue_size=1024",
        sock.display()
    );
    let eal = eal("[0, 1, 2, 3]", "[0, 1, 0, 1]", &prefix, &vdev);

    // No line known: a relative rate is refused, naming the port.
    let bad = format!(
        "{eal}ports:\n  - {{ name: v0, device: net_virtio_user0, tx_queues: 2, rx_queues: 2 }}\n\
         {STREAMS}tx:\n  - {{ lcore: 1, port: v0, streams: [a], rate: 95% }}\n\
         run: {{ duration: 1s }}\n"
    );
    let p = write_file(dir.path(), "noline.yaml", &bad);
    let out = common::landspeed(dir.path(), ["run", p.to_str().unwrap()]);
    out.assert_error(&[
        "tx[0].rate",
        "`95%` is relative to the line",
        "port v0 (net_virtio_user0) has no known line rate",
        "`link:`",
    ]);

    let yaml = format!(
        "{eal}ports:\n  - {{ name: v0, device: net_virtio_user0, tx_queues: 2, rx_queues: 2, \
         link: 10g }}\n{STREAMS}\
         tx:\n  - {{ lcore: 1, port: v0, queue: 0, streams: [a], rate: 40M }}\n\
         \x20 - {{ lcore: 2, port: v0, queue: 1, streams: [b], rate: 40M }}\n\
         rx:\n  - {{ lcore: 3, port: v0, queues: [0, 1], verify: full }}\n\
         run: {{ duration: 2s }}\n"
    );
    let p = write_file(dir.path(), "jumbo.yaml", &yaml);
    let json = dir.path().join("jumbo.json");
    let out = common::landspeed(
        dir.path(),
        [
            "run",
            p.to_str().unwrap(),
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let v = read_json(&json);
    assert_complete(&out, &v);
    assert_every_frame_back(&v);
    assert_eq!(v["ports"][0]["line_source"], "declared");
    assert_eq!(json_u64(&v, "/ports/0/link_bps"), 10_000_000_000);
    // Both queue pairs carried their stream: testpmd forwards each queue
    // back on itself, and each TX task sends one stream on its own queue.
    let xs = &v["ports"][0]["xstats"];
    for q in 0..2 {
        let name = format!("rx_q{q}_good_packets");
        let got = (xs.as_array().into_iter().flatten())
            .find(|x| x[0] == name.as_str())
            .and_then(|x| x[1].as_u64());
        let sent = json_u64(by_id(&v, "/tx/streams", q + 1), "/frames");
        assert_eq!(got, Some(sent), "{name} in {xs}");
    }
}

/// landspeed on the vhost side (the socket's server): its link is down
/// until testpmd's virtio-user port attaches. landspeed says it waits,
/// the peer attaches within the wait, the run goes ahead at the speed the
/// port reports, and every frame comes back.
#[test]
fn the_run_waits_for_its_vhost_peer_then_runs() {
    if skip("the_run_waits_for_its_vhost_peer_then_runs") {
        return;
    }
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let mut cleanup = Vec::new();
    let sock = socket(&mut cleanup, "wait");
    let prefix = format!("lsdvh{}", std::process::id());
    let _rd = run_dir(&prefix);
    let vdev = format!("net_vhost0,iface={},queues=1", sock.display());
    let yaml = format!(
        "{}ports:\n  - {{ name: v0, device: net_vhost0 }}\n{STREAMS}\
         tx:\n  - {{ lcore: 1, rate: 50M }}\n\
         rx:\n  - {{ lcore: 2, port: v0, verify: full }}\n\
         run: {{ duration: 2s }}\n",
        eal("[0, 1, 2]", "[0, 1, 0]", &prefix, &vdev)
    )
    .replace("{ lcore: 1, rate", "{ lcore: 1, port: v0, rate");
    let p = write_file(dir.path(), "wait.yaml", &yaml);
    let json = dir.path().join("wait.json");
    let run = Proc::start_plain(
        dir.path(),
        "landspeed",
        &[
            "run",
            p.to_str().unwrap(),
            "-q",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    let start = Instant::now();
    while !std::fs::read_to_string(&run.err)
        .unwrap_or_default()
        .contains("waiting up to 9 s for the link of port v0 (net_vhost0)")
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "landspeed never said it waits:\n{}",
            std::fs::read_to_string(&run.err).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let virtio = format!("net_virtio_user0,path={},queues=1", sock.display());
    let mut peer = Peer::start(dir.path(), "wait", &virtio, 1);
    peer.cleanup.extend(cleanup);
    let done = run.wait(Duration::from_secs(60));
    let out = Output {
        status: done.status,
        stdout: done.stdout,
        stderr: done.stderr,
        cmdline: "landspeed run wait.yaml".into(),
    };
    let v = read_json(&json);
    assert_complete(&out, &v);
    // testpmd shares the CPUs: what it still held when the run stopped
    // is not back, but everything that is back is good.
    for id in [1u64, 2] {
        let sent = json_u64(by_id(&v, "/tx/streams", id), "/frames");
        let got = json_u64(by_id(&v, "/rx/streams", id), "/frames");
        assert!(got > 0 && got <= sent, "stream {id}: {got} of {sent}");
        let st = by_id(&v, "/rx/streams", id);
        assert_eq!(json_u64(st, "/bytes"), got * 9130, "stream {id}: bytes");
        assert_eq!(json_u64(st, "/corrupt_total"), 0, "stream {id}: corrupt");
    }
    assert_eq!(json_u64(&v, "/rx/foreign"), 0);
    // vhost reports 10 Gbit/s once its peer is up.
    assert_eq!(v["ports"][0]["line_source"], "reported");
    assert_eq!(json_u64(&v, "/ports/0/link_bps"), 10_000_000_000);
    drop(peer);
}

/// No peer ever attaches: after about 9 s the run stops with one line
/// naming the port, its device and how long it waited (exit 1), and
/// leaves no socket behind.
#[test]
fn a_link_that_stays_down_stops_the_run() {
    if skip("a_link_that_stays_down_stops_the_run") {
        return;
    }
    // What is timed is the run, not a wait for the lock.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let mut cleanup = Vec::new();
    let sock = socket(&mut cleanup, "down");
    let prefix = format!("lsdvd{}", std::process::id());
    let _rd = run_dir(&prefix);
    let vdev = format!("net_vhost0,iface={},queues=1", sock.display());
    let yaml = format!(
        "{}ports:\n  - {{ name: v0, device: net_vhost0 }}\n{STREAMS}\
         tx:\n  - {{ lcore: 1, port: v0, rate: 50M }}\nrun: {{ duration: 1s }}\n",
        eal("[0, 1]", "[0, 1]", &prefix, &vdev)
    );
    let p = write_file(dir.path(), "down.yaml", &yaml);
    let start = Instant::now();
    let out = common::landspeed(dir.path(), ["run", p.to_str().unwrap()]);
    let took = start.elapsed();
    out.assert_error(&[
        "ports[0].device",
        "the link of port v0 (net_vhost0, driver net_vhost) stayed down for 9.",
    ]);
    assert!(
        out.stderr
            .contains("waiting up to 9 s for the link of port v0 (net_vhost0)"),
        "{}",
        out.stderr
    );
    assert!(took >= Duration::from_secs(9), "gave up after {took:?}");
    assert!(
        !sock.exists(),
        "the vhost socket {} was left",
        sock.display()
    );
    for p in cleanup {
        let _ = std::fs::remove_file(p);
    }
}

/// The vhost peer stops taking frames a second into a 3 s run (testpmd
/// stopped with SIGSTOP until the run's senders have stopped): landspeed's
/// virtio TX ring fills, `tx_burst` takes fewer frames than offered, then
/// none. The result counts exactly the frames the PMD took (landspeed's
/// count is the PMD's `opackets`), the refused frames in the task and in
/// its problem alike, and the run is not a pass: the target was missed
/// (exit 3, a `target_missed` warning in the summary). Every frame that
/// came back is good, and every mbuf came back.
#[test]
fn a_peer_that_pauses_fills_the_ring_and_the_target_is_missed() {
    if skip("a_peer_that_pauses_fills_the_ring_and_the_target_is_missed") {
        return;
    }
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let mut cleanup = Vec::new();
    let sock = socket(&mut cleanup, "pause");
    let vhost = format!("net_vhost0,iface={},queues=1", sock.display());
    let mut peer = Peer::start(dir.path(), "pause", &vhost, 1);
    peer.cleanup.extend(cleanup);
    peer.wait_forwarding(Duration::from_secs(30));
    let vdev = format!(
        "net_virtio_user0,path={},queues=1,queue_size=1024",
        sock.display()
    );
    // The automatic file prefix: landspeed removes its runtime directory.
    let yaml = format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n  memory_mb: 512\n  hugepages: false\n  \
         extra_args: [--single-file-segments]\n  vdevs: [\"{vdev}\"]\n\
         ports:\n  - {{ name: v0, device: net_virtio_user0, link: 10g }}\n{STREAMS}\
         tx:\n  - {{ lcore: 1, port: v0, rate: 400M }}\n\
         rx:\n  - {{ lcore: 2, port: v0, verify: full }}\n\
         run: {{ duration: 3s }}\n"
    );
    let p = write_file(dir.path(), "pause.yaml", &yaml);
    let json = dir.path().join("pause.json");
    let mut run = Proc::start_plain(
        dir.path(),
        "landspeed",
        &["run", p.to_str().unwrap(), "--json", json.to_str().unwrap()],
    );
    run.wait_ready(Duration::from_secs(30));
    let ready = Instant::now();
    std::thread::sleep(Duration::from_secs(1));
    let paused = Stopped::stop(peer.testpmd_pid());
    // Until the senders have stopped (3 s in, and a margin): the run must
    // not catch up after the pause.
    std::thread::sleep(Duration::from_millis(3500).saturating_sub(ready.elapsed()));
    drop(paused);
    let done = run.wait(Duration::from_secs(60));
    let _ = std::fs::remove_dir_all(format!("/var/run/dpdk/ls{}", done.pid));
    assert!(!done.stderr.contains("panicked"), "{}", done.stderr);
    let v = read_json(&json);
    assert_eq!(
        done.status.code(),
        Some(3),
        "{}\n{}",
        done.stdout,
        done.stderr
    );
    assert_eq!(json_u64(&v, "/mbufs_leaked"), 0);
    let kinds: Vec<&str> = (v["outcome"]["problems"].as_array().into_iter().flatten())
        .filter_map(|p| p["kind"].as_str())
        .collect();
    assert!(
        kinds
            .iter()
            .all(|k| *k == "target_missed" || *k == "descheduled"),
        "{kinds:?}"
    );
    // Sent is what the PMD took: landspeed's count, the PMD's opackets.
    let sent = json_u64(&v, "/tx/frames");
    assert!(sent > 0);
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), sent);
    assert_eq!(v["tx"]["pmd_agrees"], true);
    assert_eq!(json_u64(&v, "/ports/0/stats/opackets"), sent);
    assert_eq!(
        json_u64(&v, "/ports/0/stats/obytes"),
        sent * (9130 - 4),
        "obytes: the frames without FCS"
    );
    assert_eq!(
        (STREAMS_IDS.iter())
            .map(|&id| json_u64(by_id(&v, "/tx/streams", id), "/frames"))
            .sum::<u64>(),
        sent
    );
    // The full ring refused frames; each was retried, counted once in the
    // task and in its missed target alike.
    let task = &v["tx"]["tasks"][0];
    let refused = json_u64(task, "/refused");
    assert!(
        refused > 0,
        "no frame refused with the peer stopped: {task}"
    );
    assert_eq!(task["target_met"], false, "{task}");
    assert_eq!(v["outcome"]["target_met"], false);
    let pct = task["achieved_pct"].as_f64().unwrap();
    assert!(
        pct < 75.0,
        "achieved {pct} % with the peer stopped for 2 s of 3"
    );
    let missed = common::problem(&v, "target_missed");
    assert_eq!(json_u64(missed, "/refused"), refused, "{missed}");
    assert!(
        done.stdout.contains("missed its target")
            && done
                .stdout
                .contains(&format!("the port refused {refused} frames")),
        "the summary does not say the target was missed:\n{}",
        done.stdout
    );
    // What came back is good; what testpmd held when the run ended is not
    // back.
    for id in STREAMS_IDS {
        let sent = json_u64(by_id(&v, "/tx/streams", id), "/frames");
        let st = by_id(&v, "/rx/streams", id);
        let got = json_u64(st, "/frames");
        assert!(got > 0 && got <= sent, "stream {id}: {got} of {sent}");
        assert_eq!(json_u64(st, "/bytes"), got * 9130, "stream {id}: bytes");
        assert_eq!(json_u64(st, "/corrupt_total"), 0, "stream {id}: corrupt");
        assert_eq!(json_u64(st, "/duplicated"), 0, "stream {id}: duplicated");
    }
    assert_eq!(json_u64(&v, "/rx/foreign"), 0);
    drop(peer);
}

/// The stream ids of [`STREAMS`].
const STREAMS_IDS: [u64; 2] = [1, 2];
