//! Faults around a run, through the binary: a listing that must write
//! nothing, outputs checked before the run and written whole, captures
//! cut short, signals (one, two, three), a reader that goes away, and
//! DPDK runtime directories left by killed runs.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::common::child::{Done, Proc};
use crate::common::{
    assert_no_run_dir, json_str, json_u64, landspeed, read_json, write_file, BIN, NULL_YAML, ROOT,
};
use serde_json::Value;

/// `kill -SIG pid`.
fn send(sig: &str, pid: u32) {
    let st = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill -{sig} {pid}");
}

/// `sh -c 'ulimit -f BLOCKS; trap "" XFSZ; exec landspeed ARGS'` in `dir`:
/// files the run writes stop at `BLOCKS` × 512 bytes, as on a full disk
/// (writes beyond fail with EFBIG instead of killing the process).
fn landspeed_fsize(dir: &Path, blocks: u32, args: &[&str]) -> (ExitStatus, String, String) {
    let _alone = common::alone();
    let script = format!("ulimit -f {blocks}; trap '' XFSZ; exec \"$0\" \"$@\"");
    let out = Command::new("sh")
        .args(["-c", &script, BIN])
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status, text(&out.stdout), text(&out.stderr))
}

/// The shipped pcap profile, copied into `dir` (its capture goes beside it).
fn pcap_profile(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(format!("{ROOT}/configs/pcap-capture.yaml")).unwrap();
    write_file(dir, "pcap-capture.yaml", &text)
}

/// The only `landspeed: error:` line of a failed command.
fn error_line(status: ExitStatus, stderr: &str) -> String {
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("landspeed: error: "))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    lines[0].to_string()
}

// ---- 13.1: `ports` writes nothing -------------------------------------

#[test]
fn ports_with_a_pcap_profile_leaves_the_capture_alone() {
    let dir = tempfile::tempdir().unwrap();
    let profile = pcap_profile(dir.path());
    let capture = dir.path().join("capture.pcap");
    std::fs::write(&capture, "a capture worth keeping").unwrap();
    let out = landspeed(
        dir.path(),
        ["ports", "--profile", profile.to_str().unwrap()],
    );
    out.assert_success();
    assert!(out.stdout.contains("(driver net_pcap)"), "{}", out.stdout);
    assert_eq!(
        std::fs::read_to_string(&capture).unwrap(),
        "a capture worth keeping"
    );
    // Nor is a missing one created, with the EAL arguments given directly.
    let other = dir.path().join("other.pcap");
    let eal = format!(
        "--no-huge -m 256 --no-pci --no-shconf --file-prefix=ls-faults-ports \
         --vdev=net_pcap0,tx_pcap={}",
        other.display()
    );
    let out = landspeed(dir.path(), ["ports", "--eal", &eal]);
    out.assert_success();
    assert!(!other.exists(), "ports created {}", other.display());
}

// ---- 13.2: outputs checked first, written whole -------------------------

#[test]
fn a_json_into_a_missing_folder_fails_before_the_run() {
    // What is timed is the run, not a wait for the lock.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = landspeed(
        dir.path(),
        ["run", NULL_YAML, "-t", "30s", "--json", "nope/r.json"],
    );
    assert_eq!(
        error_line(out.status, &out.stderr),
        "landspeed: error: --json nope/r.json: folder nope does not exist"
    );
    assert_eq!(out.stdout, "", "the run started");
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn outputs_onto_the_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(NULL_YAML).unwrap();
    let p = write_file(dir.path(), "p.yaml", &text);
    let ps = p.to_str().unwrap();
    for opt in ["--json", "--capture"] {
        let out = landspeed(dir.path(), ["run", ps, "-t", "30s", opt, "./p.yaml"]);
        assert_eq!(
            error_line(out.status, &out.stderr),
            format!(
                "landspeed: error: {opt} ./p.yaml: is the profile being run; name another file"
            )
        );
    }
    let out = landspeed(dir.path(), ["run", ps, "--json", "."]);
    assert_eq!(
        error_line(out.status, &out.stderr),
        "landspeed: error: --json .: is a folder; name a file"
    );
    let out = landspeed(
        dir.path(),
        ["run", ps, "--capture", "c.pcap", "--json", "c.pcap"],
    );
    assert_eq!(
        error_line(out.status, &out.stderr),
        "landspeed: error: --json c.pcap: is a --capture file; name another file"
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), text);

    let tx = write_file(dir.path(), "tx.json", "{\"kept\": 1}");
    let out = landspeed(
        dir.path(),
        ["report", "tx.json", "rx.json", "--json", "tx.json"],
    );
    assert_eq!(
        error_line(out.status, &out.stderr),
        "landspeed: error: --json tx.json: is the sender's result TX; name another file"
    );
    assert_eq!(std::fs::read_to_string(&tx).unwrap(), "{\"kept\": 1}");
}

#[test]
fn a_full_disk_leaves_the_previous_result_whole() {
    let dir = tempfile::tempdir().unwrap();
    let json = write_file(dir.path(), "r.json", "{\"previous\": true}");
    // 2 KiB: far less than a result's JSON.
    let (st, _, err) = landspeed_fsize(
        dir.path(),
        4,
        &["run", NULL_YAML, "-t", "200ms", "-q", "--json", "r.json"],
    );
    let line = error_line(st, &err);
    assert!(
        line.starts_with("landspeed: error: --json r.json: ") && line.contains("too large"),
        "{line}"
    );
    assert_eq!(
        std::fs::read_to_string(&json).unwrap(),
        "{\"previous\": true}"
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["r.json"], "temporary files left");
}

// ---- 13.3: captures cut short -----------------------------------------

#[test]
fn a_capture_onto_a_device_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = landspeed(
        dir.path(),
        ["run", NULL_YAML, "-t", "30s", "--capture", "/dev/full"],
    );
    assert_eq!(
        error_line(out.status, &out.stderr),
        "landspeed: error: --capture /dev/full: is not a regular file (a device or a pipe); \
         name a file to write"
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn a_capture_cut_short_is_a_problem() {
    let dir = tempfile::tempdir().unwrap();
    let profile = pcap_profile(dir.path());
    // 256 KiB of capture; the run writes about 12 MB.
    let (st, stdout, err) = landspeed_fsize(
        dir.path(),
        512,
        &[
            "run",
            profile.to_str().unwrap(),
            "-q",
            "--capture",
            "cut.pcap",
            "--json",
            "r.json",
        ],
    );
    assert_eq!(st.code(), Some(3), "{stdout}\n{err}");
    let r = read_json(&dir.path().join("r.json"));
    let p = common::problem(&r, "capture_short");
    assert_eq!(json_str(p, "/kind"), "capture_short");
    let frames = json_u64(&r, "/ports/0/stats/opackets");
    let bytes = json_u64(&r, "/ports/0/stats/obytes");
    assert_eq!(json_u64(p, "/frames_sent"), frames);
    assert_eq!(json_u64(p, "/bytes_expected"), 24 + 16 * frames + bytes);
    assert_eq!(json_u64(p, "/bytes_written"), 512 * 512);
    assert_eq!(
        std::fs::metadata(dir.path().join("cut.pcap"))
            .unwrap()
            .len(),
        512 * 512
    );
    let want = format!(
        "warning: the capture cut.pcap holds 262144 of the {} bytes its {frames} frames need: \
         writing it failed (disk full or file size limit), the frames beyond are missing from it",
        24 + 16 * frames + bytes
    );
    assert!(stdout.lines().any(|l| l == want), "{stdout}");
}

#[test]
fn a_whole_capture_is_no_problem() {
    let dir = tempfile::tempdir().unwrap();
    let profile = pcap_profile(dir.path());
    let out = landspeed(
        dir.path(),
        [
            "run",
            profile.to_str().unwrap(),
            "-t",
            "200ms",
            "-q",
            "--capture",
            "whole.pcap",
            "--json",
            "r.json",
        ],
    );
    out.assert_success();
    let r = read_json(&dir.path().join("r.json"));
    assert_eq!(r["outcome"]["problems"], Value::Array(vec![]));
    let frames = json_u64(&r, "/ports/0/stats/opackets");
    let bytes = json_u64(&r, "/ports/0/stats/obytes");
    assert!(frames > 0);
    assert_eq!(
        std::fs::metadata(dir.path().join("whole.pcap"))
            .unwrap()
            .len(),
        24 + 16 * frames + bytes
    );
}

// ---- 13.4 and 13.15: signals ------------------------------------------

/// A 30-second null run in `dir` with its JSON to `r.json`, ready.
fn long_run(dir: &Path, name: &str) -> Proc {
    let mut p = Proc::start_plain(
        dir,
        name,
        &["run", NULL_YAML, "-t", "30s", "--json", "r.json"],
    );
    p.wait_ready(Duration::from_secs(20));
    p
}

/// The run ended by `sig`, with its summary and its JSON marked
/// incomplete, and left nothing behind.
fn assert_interrupted(d: &Done, dir: &Path, sig: &str) {
    assert_eq!(d.status.code(), Some(4), "{}\n{}", d.stdout, d.stderr);
    assert!(!d.stderr.contains("panicked"), "{}", d.stderr);
    let warning = format!(
        "warning: the run was stopped by {sig} before its duration; its figures cover the time it ran"
    );
    assert!(d.stdout.lines().any(|l| l == warning), "{}", d.stdout);
    assert!(d.stdout.contains("frames"), "no summary: {}", d.stdout);
    let r = read_json(&dir.join("r.json"));
    assert_eq!(r["outcome"]["complete"], Value::Bool(false));
    assert_eq!(json_str(&r, "/outcome/interrupted_by"), sig);
    assert!(json_u64(&r, "/tx/frames") > 0);
    assert_no_run_dir(d.pid);
}

#[test]
fn a_second_sigint_still_writes_the_summary_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    let p = long_run(dir.path(), "twice");
    let pid = p.child.id();
    send("INT", pid);
    std::thread::sleep(Duration::from_millis(10));
    send("INT", pid);
    let d = p.wait(Duration::from_secs(10));
    assert_interrupted(&d, dir.path(), "SIGINT");
}

#[test]
fn sighup_stops_like_sigint() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    let p = long_run(dir.path(), "hup");
    send("HUP", p.child.id());
    let d = p.wait(Duration::from_secs(10));
    assert_interrupted(&d, dir.path(), "SIGHUP");
}

/// A null run of 30 s in `dir` whose TX task `tx` (YAML flow mapping
/// entries) runs until stopped (`run --until-stopped`), ready.
fn until_stopped(dir: &Path, name: &str, tx: &str) -> Proc {
    let yaml = format!(
        "eal: {{ cores: [0, 1], vdevs: [net_null0] }}\n\
         ports: [ {{ name: p0, device: net_null0, link: 10g }} ]\n\
         streams: [ {{ name: s, frame_size: 1518, ipv4: {{ src: 198.18.0.1, dst: 198.19.0.1 }}, udp: {{ src: 1, dst: 2 }} }} ]\n\
         tx: [ {{ lcore: 1, port: p0, {tx} }} ]\n\
         run: {{ duration: 30s }}\n"
    );
    write_file(dir, &format!("{name}.yaml"), &yaml);
    let profile = format!("{name}.yaml");
    let args = ["run", &profile, "--until-stopped", "--json", "r.json"];
    let mut p = Proc::start_plain(dir, name, &args);
    p.wait_ready(Duration::from_secs(20));
    p
}

#[test]
fn until_stopped_a_run_waits_for_its_stop_which_completes_it_once_its_frames_are_sent() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    // 1000 frames at 100 Mbit/s take 0.12 s; the run goes on until its stop.
    let mut p = until_stopped(dir.path(), "limit", "rate: 100M, frames: 1000");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        p.child.try_wait().unwrap().is_none(),
        "the run ended by itself"
    );
    send("INT", p.child.id());
    let d = p.wait(Duration::from_secs(10));
    // A descheduled warning (exit 3) on this shared machine is the run
    // saying so; an interruption (4) is not allowed.
    assert!(
        matches!(d.status.code(), Some(0 | 3)),
        "{}\n{}",
        d.stdout,
        d.stderr
    );
    let r = read_json(&dir.path().join("r.json"));
    assert_eq!(r["outcome"]["complete"], Value::Bool(true));
    assert!(
        r["outcome"]
            .get("interrupted_by")
            .is_none_or(Value::is_null),
        "{}",
        r["outcome"]
    );
    assert_eq!(json_u64(&r, "/tx/frames"), 1000);
    assert!(
        r["elapsed_s"].as_f64().unwrap() >= 1.4,
        "{}",
        r["elapsed_s"]
    );

    // Without a frame limit, the same stop is an interruption.
    let dir = tempfile::tempdir().unwrap();
    let p = until_stopped(dir.path(), "open", "rate: 100M");
    std::thread::sleep(Duration::from_millis(500));
    send("INT", p.child.id());
    let d = p.wait(Duration::from_secs(10));
    assert_interrupted(&d, dir.path(), "SIGINT");
}

#[test]
fn a_third_signal_ends_the_process_and_removes_its_runtime_directory() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    let p = long_run(dir.path(), "thrice");
    let pid = p.child.id();
    let run_dir = PathBuf::from("/var/run/dpdk").join(format!("ls{pid}"));
    assert!(run_dir.exists(), "{} not made", run_dir.display());
    for sig in ["INT", "TERM", "HUP"] {
        send(sig, pid);
    }
    let d = p.wait(Duration::from_secs(10));
    assert_eq!(d.status.code(), Some(130), "{}\n{}", d.stdout, d.stderr);
    assert_no_run_dir(pid);
}

#[test]
fn a_stale_runtime_directory_of_a_dead_run_is_removed() {
    // No other test's run may remove the stale directory in its stead.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    // pid_max is at most 2^22: no process has this pid.
    let stale = PathBuf::from("/var/run/dpdk/ls4999998");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("dpdk_telemetry.v2"), "").unwrap();
    let out = landspeed(dir.path(), ["run", NULL_YAML, "-t", "100ms", "-q"]);
    // What is tested is the directory: a 100 ms run on CPUs the other
    // tests share may be descheduled (exit 3, said so), and that is fine.
    out.assert_exit_in(&[0, 3]);
    assert!(!stale.exists(), "{} left", stale.display());
}

// ---- 13.5: the reader of stdout goes away ---------------------------------

#[test]
fn a_closed_stdout_does_not_stop_the_run_or_its_json() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    let mut child = Command::new(BIN)
        .args(["run", NULL_YAML, "-t", "2s", "--json", "r.json"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    {
        // `| head -2`
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        lines.next().unwrap().unwrap();
        lines.next().unwrap().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let r = read_json(&dir.path().join("r.json"));
    assert_eq!(r["outcome"]["complete"], Value::Bool(true));
    // Its own status: 0, or 3 when a loaded machine descheduled it (the
    // only problem such a run can have).
    let problems = r["outcome"]["problems"].as_array().unwrap();
    let own = if problems.is_empty() { 0 } else { 3 };
    assert!(
        problems.iter().all(|p| p["kind"] == "descheduled"),
        "{problems:?}"
    );
    assert_eq!(out.status.code(), Some(own), "{err}");
    assert_no_run_dir(pid);

    // `landspeed ports --json | head`, the reader gone before the output.
    let mut child = Command::new(BIN)
        .args(["ports", "--json"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_no_run_dir(pid);
}

// ---- 13 (leftover): `landspeed ports` and signals ---------------------------

/// `landspeed ports` signalled while the EAL starts (its runtime directory
/// exists): it ends at once with a non-zero status and leaves no runtime
/// directory, for each of SIGINT, SIGTERM and SIGHUP.
#[test]
fn ports_interrupted_while_the_eal_starts_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let _alone = common::alone();
    for sig in ["INT", "TERM", "HUP"] {
        // The listing may end before the signal lands: try again.
        let mut landed = false;
        for _ in 0..5 {
            let mut child = Command::new(BIN)
                .args(["ports"])
                .current_dir(dir.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let pid = child.id();
            let run_dir = PathBuf::from("/var/run/dpdk").join(format!("ls{pid}"));
            let start = Instant::now();
            while !run_dir.exists() && start.elapsed() < Duration::from_secs(10) {
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            if child.try_wait().unwrap().is_some() || !run_dir.exists() {
                let _ = child.wait();
                continue;
            }
            send(sig, pid);
            let sent = Instant::now();
            let out = child.wait_with_output().unwrap();
            let took = sent.elapsed();
            let err = String::from_utf8_lossy(&out.stderr);
            if out.status.code() == Some(0) {
                // It had listed the ports already when the signal came.
                assert_no_run_dir(pid);
                continue;
            }
            landed = true;
            assert_eq!(out.status.code(), Some(130), "SIG{sig}: {err}");
            assert!(
                took < Duration::from_secs(1),
                "SIG{sig}: ended {took:?} after"
            );
            assert!(!err.contains("panicked"), "{err}");
            assert_no_run_dir(pid);
            break;
        }
        assert!(landed, "SIG{sig} never landed while the EAL started");
    }
}

// ---- 13 (leftover): departure traces, checked first and written whole ------

/// configs/null.yaml in `dir` with its TX task's `trace:` set to `trace`
/// (as YAML); the line of `trace:` is 47.
fn traced_profile(dir: &Path, trace: &str) -> PathBuf {
    let text = std::fs::read_to_string(NULL_YAML).unwrap();
    assert!(text
        .lines()
        .nth(46)
        .unwrap()
        .trim_start()
        .starts_with("trace: null"));
    let text = text.replacen("trace: null", &format!("trace: {trace}"), 1);
    write_file(dir, "traced.yaml", &text)
}

#[test]
fn a_trace_that_cannot_be_written_fails_before_the_run() {
    // What is timed is each run, not a wait for the lock.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder")).unwrap();
    let cases = [
        ("nope/t.trace", "nope/t.trace: folder "),
        ("folder", "folder: is a folder; name a file"),
        (
            "traced.yaml",
            "traced.yaml: is the profile being run; name another file",
        ),
    ];
    for (trace, says) in cases {
        let p = traced_profile(d, trace);
        let start = Instant::now();
        let out = landspeed(d, ["run", p.to_str().unwrap(), "-t", "30s"]);
        let took = start.elapsed();
        let line = error_line(out.status, &out.stderr);
        let at = format!("landspeed: error: {}:47: tx[0].trace: ", p.display());
        assert!(line.starts_with(&at), "{trace}: {line}");
        assert!(line.contains(says), "{trace}: {line}");
        assert!(
            took < Duration::from_secs(10),
            "{trace}: after {took:?}: ran first"
        );
        assert!(
            out.stdout.is_empty(),
            "{trace}: ran: {}",
            out.stdout.clone()
        );
    }
    assert!(
        std::fs::read_to_string(d.join("traced.yaml"))
            .unwrap()
            .contains("trace: traced.yaml"),
        "the profile was overwritten"
    );
    // The --json file is no trace either.
    let p = traced_profile(d, "r.json");
    let out = landspeed(
        d,
        ["run", p.to_str().unwrap(), "-t", "30s", "--json", "r.json"],
    );
    let line = error_line(out.status, &out.stderr);
    assert!(
        line.contains("tx[0].trace: ") && line.contains("is the --json file"),
        "{line}"
    );
}

#[test]
fn a_full_disk_leaves_the_previous_trace_whole() {
    let dir = tempfile::tempdir().unwrap();
    let old = "landspeed-trace 1\ntsc_hz 1000000000\n1000 9130\n";
    let trace = write_file(dir.path(), "t.trace", old);
    let p = traced_profile(dir.path(), "t.trace");
    // 2 KiB: far less than 200 ms of departures (about 13,700 lines).
    let (st, _, err) = landspeed_fsize(
        dir.path(),
        4,
        &["run", p.to_str().unwrap(), "-t", "200ms", "-q"],
    );
    let line = error_line(st, &err);
    assert!(
        line.contains(":47: tx[0].trace: ") && line.contains("too large"),
        "{line}"
    );
    assert_eq!(std::fs::read_to_string(&trace).unwrap(), old);
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["t.trace", "traced.yaml"], "temporary files left");
}

// ---- 13 (leftover): `landspeed report` carries the run's qualifiers --------

/// A null sender's result (`tx.json`) and a null receiver's (`rx.json`),
/// written in `dir`.
fn null_results(dir: &Path) -> (PathBuf, PathBuf) {
    let rx_yaml = format!("{ROOT}/configs/null-rx.yaml");
    for (profile, json) in [(NULL_YAML, "tx.json"), (rx_yaml.as_str(), "rx.json")] {
        let out = landspeed(dir, ["run", profile, "-t", "300ms", "-q", "--json", json]);
        let err = out.stderr.clone();
        assert!(matches!(out.status.code(), Some(0 | 3)), "{profile}: {err}");
    }
    (dir.join("tx.json"), dir.join("rx.json"))
}

#[test]
fn the_report_carries_the_receivers_link_loss_and_untracked_streams() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (_, r) = null_results(d);
    let mut rx = read_json(&r);
    let problems = rx["outcome"]["problems"].as_array_mut().unwrap();
    problems.push(serde_json::json!({
        "kind": "link_down", "port": "p0", "side": "RX", "down_at_s": 0.1,
        "down_s": 0.05, "outages": 1, "down_at_end": false
    }));
    problems.push(serde_json::json!({
        "kind": "streams_not_tracked", "frames": 10, "streams": 5, "limit": 4096
    }));
    std::fs::write(d.join("rx2.json"), serde_json::to_string(&rx).unwrap()).unwrap();
    let out = landspeed(d, ["report", "tx.json", "rx2.json", "--json", "j.json"]);
    let text = out.stdout.clone();
    assert!(out.status.success(), "{text}{}", out.stderr.clone());
    let j = read_json(&d.join("j.json"));
    let e = json_str(&j, "/joined_verdict/explanation");
    assert!(
        e.starts_with(
            "The receiving port p0's link went down 0.10 s into the run for 0.05 s: what was sent meanwhile never reached it. "
        ),
        "{e}"
    );
    assert!(
        e.ends_with(
            " Its figures cover only the 4096 streams tracked: 10 frames of 5 more streams arrived untracked (overflow), so their loss, order and integrity are unknown."
        ),
        "{e}"
    );
    assert_ne!(json_str(&j, "/joined_verdict/binding"), "none");
    assert!(text.contains(&format!("      {e}\n")), "{text}");
    // Without the problems, the report's verdict says neither.
    let out = landspeed(d, ["report", "tx.json", "rx.json", "--json", "k.json"]);
    assert!(out.status.success());
    let k = read_json(&d.join("k.json"));
    let e = json_str(&k, "/joined_verdict/explanation");
    assert!(
        !e.contains("link went down") && !e.contains("streams tracked"),
        "{e}"
    );
}
