//! The foundation: `landspeed run` sends into the null PMD, stops by itself,
//! prints interval lines and a summary, and writes a JSON result whose
//! counts agree with each other and with the PMD's own counter.

use crate::common;

use crate::common::{json_f64, json_str, json_u64, landspeed, read_json, run_profile, NULL_YAML};

/// configs/null.yaml with its mode replaced by `mode`.
fn null_with_mode(mode: &str) -> String {
    let text = std::fs::read_to_string(NULL_YAML).expect("configs/null.yaml");
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("mode:"))
        .expect("configs/null.yaml has a mode line");
    text.replacen(line, &format!("    mode: {mode}"), 1)
}

#[test]
fn null_profile_runs_three_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = landspeed(
        dir.path(),
        [
            "run",
            NULL_YAML,
            "--duration",
            "3s",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    out.assert_success();

    let lines: Vec<&str> = out.stdout.lines().collect();
    let intervals = lines.iter().filter(|l| l.starts_with("[SUM]")).count();
    assert!(
        intervals >= 2,
        "expected at least 2 interval lines:\n{}",
        out.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with("[TX]")),
        "no summary line:\n{}",
        out.stdout
    );
    assert!(out.stdout.contains("PMD counted"), "{}", out.stdout);

    let v = read_json(&json);
    let frames = json_u64(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(json_u64(&v, "/tx/bytes"), frames * 9130);
    assert_eq!(
        json_u64(&v, "/tx/pmd_frames"),
        frames,
        "the PMD counted otherwise"
    );
    assert_eq!(json_u64(&v, "/tx/pmd_errors"), 0);
    assert_eq!(
        json_u64(&v, "/mbufs_leaked"),
        0,
        "every mbuf is back in its pool"
    );
    let elapsed = json_f64(&v, "/elapsed_s");
    assert!(
        (2.5..=4.0).contains(&elapsed),
        "elapsed_s {elapsed} for a 3 s run"
    );
    let ivs = v["intervals"].as_array().expect("intervals");
    assert!(!ivs.is_empty());
    let sum: u64 = ivs
        .iter()
        .map(|i| i["tx"]["frames"].as_u64().unwrap())
        .sum();
    assert!(
        sum <= frames,
        "interval frames {sum} exceed the total {frames}"
    );
    // One stream, one task: their counts are the totals.
    assert_eq!(json_u64(&v, "/tx/streams/0/frames"), frames);
    assert_eq!(json_u64(&v, "/tx/streams/0/bytes"), frames * 9130);
    assert_eq!(json_u64(&v, "/tx/tasks/0/frames"), frames);
    assert!(v["rx"].is_null(), "null.yaml has no RX side");
}

#[test]
fn builtin_profile_runs_without_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let out = landspeed(
        dir.path(),
        ["run", "--duration", "1s", "--json", json.to_str().unwrap()],
    );
    out.assert_success();
    let v = read_json(&json);
    let frames = json_u64(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(json_u64(&v, "/tx/bytes"), frames * 9130);
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), frames);
}

#[test]
fn null_rx_profile_receives_the_1518_byte_frames_it_says() {
    // configs/null-rx.yaml says 1518-byte frames: with the FCS landspeed
    // counts, that is the null PMD's size=1514.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/null-rx.yaml");
    let args = ["run", profile, "-t", "300ms", "-q", "--json"];
    let out = landspeed(
        dir.path(),
        args.iter().copied().chain([json.to_str().unwrap()]),
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    let v = read_json(&json);
    let frames = json_u64(&v, "/rx/frames");
    assert!(frames > 0);
    assert_eq!(json_u64(&v, "/rx/bytes"), frames * 1518);
}

#[test]
fn rate_override_sets_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = std::fs::read_to_string(NULL_YAML).unwrap();
    let (_, v) = run_profile(
        dir.path(),
        "rate",
        &yaml,
        &["--duration", "1s", "--rate", "1G", "-q"],
    );
    assert_eq!(json_u64(&v, "/tx/tasks/0/target_per_sec"), 1_000_000_000);
    assert_eq!(json_str(&v, "/tx/tasks/0/target_layer"), "L1");
    let frames = json_u64(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), frames);
}

fn mode_runs(mode: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (_, v) = run_profile(
        dir.path(),
        "mode",
        &null_with_mode(mode),
        &["--duration", "1s", "-q"],
    );
    let frames = json_u64(&v, "/tx/frames");
    assert!(frames > 0, "mode {mode}: nothing sent");
    assert_eq!(json_u64(&v, "/tx/bytes"), frames * 9130, "mode {mode}");
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), frames, "mode {mode}");
}

#[test]
fn mode_spin() {
    mode_runs("spin");
}

#[test]
fn mode_burst_16() {
    mode_runs("burst 16");
}

#[test]
fn mode_max() {
    mode_runs("max");
}

/// The interval lines and the JSON's intervals add up to the totals
/// exactly: the first interval counts from zero (frames sent before the
/// reporter's first look included), the last closes at the counters the
/// totals are read from.
#[test]
fn intervals_add_up_to_the_totals_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (out, v) = run_profile(
        dir.path(),
        "sum",
        &null_with_mode("max"),
        &["--duration", "2s"],
    );
    let frames = json_u64(&v, "/tx/frames");
    let ivs = v["intervals"].as_array().expect("intervals");
    let sum: u64 = ivs.iter().map(|i| json_u64(i, "/tx/frames")).sum();
    assert_eq!(sum, frames, "JSON intervals against the total");
    let printed: u64 = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("[SUM]"))
        .map(|l| l.split_whitespace().nth(3).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(printed, frames, "printed intervals:\n{}", out.stdout);
    // The last interval ends when the senders stopped.
    let last = ivs.last().unwrap();
    assert_eq!(json_f64(last, "/tx/end_s"), json_f64(&v, "/elapsed_s"));
}

/// `max` and `gap` on the null PMD, which has no line rate: no share of
/// a line is printed, the JSON's `line_pct` is null; gap mode's PMD count
/// agrees with data + gap frames and says so.
#[test]
fn virtual_device_has_no_line_percentage_and_gap_frames_agree() {
    for mode in ["max", "gap"] {
        let dir = tempfile::tempdir().unwrap();
        let (out, v) = run_profile(
            dir.path(),
            "virt",
            &null_with_mode(mode),
            &["--duration", "1s"],
        );
        let text = &out.stdout;
        assert!(
            text.contains("        no line rate: virtual device\n"),
            "{mode}:\n{text}"
        );
        assert!(!text.contains("line rate (L1)"), "{mode}:\n{text}");
        assert!(v["tx"]["tasks"][0]["line_pct"].is_null(), "{mode}");
        assert_eq!(
            v["tx"]["target_met"],
            serde_json::Value::Null,
            "{mode} keeps no schedule"
        );
        assert_eq!(
            v["tx"]["pmd_agrees"],
            serde_json::Value::Bool(true),
            "{mode}"
        );
        let (data, gap) = (json_u64(&v, "/tx/frames"), json_u64(&v, "/tx/gap_frames"));
        assert_eq!(json_u64(&v, "/tx/pmd_frames"), data + gap, "{mode}");
        assert!(!text.contains("DIFFERS"), "{mode}:\n{text}");
        if mode == "gap" {
            assert!(gap > 0, "gap mode sent no gap frames");
            assert!(
                text.contains(&format!(
                    "PMD counted {} frames sent (agrees: {data} data + {gap} gap frames)",
                    data + gap
                )),
                "{text}"
            );
        }
    }
}

/// A port that stops taking frames: `net_ring0` with nobody reading its
/// ring refuses everything once the ring is full. The paced sender misses
/// its target, says so and by how much, and the run exits 3 (SHORTFALL).
#[test]
fn a_port_that_stops_taking_frames_misses_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal: { cores: [0, 1], vdevs: [net_ring0] }\n\
                ports: [ { name: p0, device: net_ring0, link: 10g } ]\n\
                streams: [ { name: s, frame_size: 1518 } ]\n\
                tx: [ { lcore: 1, port: p0, rate: 1G, mode: spin } ]\n\
                run: { duration: 2s }\n";
    let p = common::write_file(dir.path(), "full.yaml", yaml);
    let json = dir.path().join("full.json");
    let out = landspeed(
        dir.path(),
        ["run", p.to_str().unwrap(), "--json", json.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(3), "{}\n{}", out.stdout, out.stderr);
    let v = read_json(&json);
    assert_eq!(v["outcome"]["target_met"], serde_json::Value::Bool(false));
    let task = &v["tx"]["tasks"][0];
    assert_eq!(task["target_met"], serde_json::Value::Bool(false));
    let pct = json_f64(task, "/achieved_pct");
    assert!(pct < 5.0, "a full ring took {pct} % of the target");
    let missed = common::problem(&v, "target_missed");
    assert!(json_u64(missed, "/refused") > 0, "{missed}");
    assert_eq!(json_u64(missed, "/target_per_sec"), 1_000_000_000);
    assert_eq!(json_f64(missed, "/achieved_pct"), pct);
    assert!(
        out.stdout
            .contains("warning: TX lcore 1 (port 0) missed its target: 1000000000 L1/s asked"),
        "{}",
        out.stdout
    );
    // The frames it did send are in the intervals, the empty seconds too.
    let sum: u64 = v["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| json_u64(i, "/tx/frames"))
        .sum();
    assert_eq!(sum, json_u64(&v, "/tx/frames"));
    assert_eq!(
        v["intervals"].as_array().unwrap().len(),
        2,
        "{}",
        out.stdout
    );
}

/// `tx[].frames` sends exactly that many frames and ends the run as soon as
/// they are sent (well before `run.duration`); `--json-stream` prints one
/// JSON line per interval on standard output, the last one marked, with the
/// run's final counts, and the summary on standard error.
#[test]
fn a_frame_limit_ends_the_run_and_the_stream_follows_it() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal: { cores: [0, 1, 2], cpus: [0, 1, 0], vdevs: [net_ring0] }\n\
                ports: [ { name: p0, device: net_ring0, link: 10g } ]\n\
                streams: [ { name: s, frame_size: 1518, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 1, dst: 2 } } ]\n\
                tx: [ { lcore: 1, port: p0, rate: 100M, frames: 1000 } ]\n\
                rx: [ { lcore: 2, port: p0 } ]\n\
                run: { duration: 60s }\n";
    let p = common::write_file(dir.path(), "limit.yaml", yaml);
    let json = dir.path().join("limit.json");
    let started = std::time::Instant::now();
    let out = landspeed(
        dir.path(),
        [
            "run",
            p.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "--json-stream",
        ],
    );
    // Its main lcore shares CPU 0 with the receiver by design: a
    // descheduled warning (exit 3) is the run saying so, nothing else is.
    out.assert_success();
    assert!(
        started.elapsed().as_secs() < 30,
        "the run waited for its duration"
    );
    let v = read_json(&json);
    assert_eq!(json_u64(&v, "/tx/frames"), 1000);
    assert_eq!(json_u64(&v, "/rx/frames"), 1000);
    assert_eq!(json_u64(&v, "/rx/lost"), 0);
    assert_eq!(v["outcome"]["complete"], serde_json::Value::Bool(true));
    let lines: Vec<serde_json::Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    let last = lines.last().expect("at least the last totals");
    assert_eq!(last["last"], serde_json::Value::Bool(true));
    assert!(lines[..lines.len() - 1].iter().all(|l| l["last"] == false));
    assert_eq!(
        last["tx"],
        serde_json::json!([{ "port": "p0", "lcore": 1, "frames": 1000, "bytes": 1_518_000 }])
    );
    assert_eq!(
        last["rx"],
        serde_json::json!([{
            "port": "p0", "lcore": 2, "frames": 1000, "bytes": 1_518_000, "lost": 0,
            "streams": [ { "id": 1, "frames": 1000, "bytes": 1_518_000 } ]
        }])
    );
    // Mid-run lines carry each stream's count so far, never more than the
    // task's, and the lcores' shares once an interval has passed.
    for l in &lines[..lines.len() - 1] {
        let rx = &l["rx"][0];
        let s = rx["streams"]
            .as_array()
            .map_or(0, |a| a[0]["frames"].as_u64().unwrap());
        assert!(s <= rx["frames"].as_u64().unwrap(), "{l}");
    }
    assert!(out.stderr.contains("verdict:"), "{}", out.stderr);
}

/// `--start-at` holds the workers until that wall-clock instant (two hosts
/// on one synchronised clock start together), records when they started,
/// and refuses a time already passed before any frame is sent.
#[test]
fn a_start_time_holds_the_run_until_then() {
    let _one = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let p = std::path::Path::new(NULL_YAML);
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
    };
    let at = (now() + 4.0).floor();
    let json = dir.path().join("at.json");
    let args = |at: &str| {
        vec![
            "run".to_string(),
            p.to_str().unwrap().into(),
            "-q".into(),
            "--duration".into(),
            "1s".into(),
            "--json".into(),
            json.to_str().unwrap().into(),
            "--start-at".into(),
            at.into(),
        ]
    };
    let out = landspeed(dir.path(), args(&format!("{at}")));
    out.assert_exit_in(&[0, 3]);
    let v = read_json(&json);
    let started = json_u64(&v, "/started_unix_ns") as f64 / 1e9;
    assert!(
        started >= at && started - at < 1.0,
        "asked {at}, started {started}"
    );
    assert!(json_u64(&v, "/tx/frames") > 0);
    std::fs::remove_file(&json).unwrap();
    // A time that has passed: nothing is sent, no result is written.
    let out = landspeed(dir.path(), args("1000"));
    out.assert_error(&["--start-at 1000.000", "the time passed", "give a later one"]);
    assert!(!json.exists());
    let out = landspeed(dir.path(), args("soon"));
    out.assert_error(&["--start-at soon", "seconds since the Unix epoch"]);
    let out = landspeed(dir.path(), args(&format!("{}", now() + 200_000.0)));
    out.assert_error(&["--start-at", "is more than a day ahead"]);
}
