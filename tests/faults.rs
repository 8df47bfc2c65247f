//! Faults around a run, through the binary: a listing that must write
//! nothing, outputs checked before the run and written whole, captures
//! cut short, signals (one, two, three), a reader that goes away, and
//! DPDK runtime directories left by killed runs.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::child::{Done, Proc};
use common::{landspeed, read_json, s, u, write_file, BIN, NULL_YAML};
use serde_json::Value;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Where DPDK keeps runtime directories (root, then the others).
fn run_dir_bases() -> Vec<PathBuf> {
    let mut bases = vec![PathBuf::from("/var/run/dpdk"), PathBuf::from("/tmp/dpdk")];
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
        bases.push(PathBuf::from(x).join("dpdk"));
    }
    bases
}

/// No DPDK runtime directory of process `pid` (automatic prefix) is left.
fn assert_no_run_dir(pid: u32) {
    for b in run_dir_bases() {
        let d = b.join(format!("ls{pid}"));
        assert!(!d.exists(), "{} left behind", d.display());
    }
}

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
    assert_eq!(s(p, "/kind"), "capture_short");
    let frames = u(&r, "/ports/0/stats/opackets");
    let bytes = u(&r, "/ports/0/stats/obytes");
    assert_eq!(u(p, "/frames_sent"), frames);
    assert_eq!(u(p, "/bytes_expected"), 24 + 16 * frames + bytes);
    assert_eq!(u(p, "/bytes_written"), 512 * 512);
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
    let frames = u(&r, "/ports/0/stats/opackets");
    let bytes = u(&r, "/ports/0/stats/obytes");
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
    assert_eq!(s(&r, "/outcome/interrupted_by"), sig);
    assert!(u(&r, "/tx/frames") > 0);
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
    let dir = tempfile::tempdir().unwrap();
    // pid_max is at most 2^22: no process has this pid.
    let stale = PathBuf::from("/var/run/dpdk/ls4999998");
    std::fs::create_dir_all(&stale).unwrap();
    std::fs::write(stale.join("dpdk_telemetry.v2"), "").unwrap();
    let out = landspeed(dir.path(), ["run", NULL_YAML, "-t", "100ms", "-q"]);
    out.assert_success();
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
