//! The foundation: `landspeed run` sends into the null PMD, stops by itself,
//! prints interval lines and a summary, and writes a JSON result whose
//! counts agree with each other and with the PMD's own counter.

mod common;

use common::{f, landspeed, read_json, run_profile, s, u, NULL_YAML};

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
    let frames = u(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(u(&v, "/tx/bytes"), frames * 9130);
    assert_eq!(u(&v, "/tx/pmd_frames"), frames, "the PMD counted otherwise");
    assert_eq!(u(&v, "/tx/pmd_errors"), 0);
    assert_eq!(u(&v, "/mbufs_leaked"), 0, "every mbuf is back in its pool");
    let elapsed = f(&v, "/elapsed_s");
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
    assert_eq!(u(&v, "/tx/streams/0/frames"), frames);
    assert_eq!(u(&v, "/tx/streams/0/bytes"), frames * 9130);
    assert_eq!(u(&v, "/tx/tasks/0/frames"), frames);
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
    let frames = u(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(u(&v, "/tx/bytes"), frames * 9130);
    assert_eq!(u(&v, "/tx/pmd_frames"), frames);
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
    let frames = u(&v, "/rx/frames");
    assert!(frames > 0);
    assert_eq!(u(&v, "/rx/bytes"), frames * 1518);
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
    assert_eq!(u(&v, "/tx/tasks/0/target_per_sec"), 1_000_000_000);
    assert_eq!(s(&v, "/tx/tasks/0/target_layer"), "L1");
    let frames = u(&v, "/tx/frames");
    assert!(frames > 0);
    assert_eq!(u(&v, "/tx/pmd_frames"), frames);
}

fn mode_runs(mode: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (_, v) = run_profile(
        dir.path(),
        "mode",
        &null_with_mode(mode),
        &["--duration", "1s", "-q"],
    );
    let frames = u(&v, "/tx/frames");
    assert!(frames > 0, "mode {mode}: nothing sent");
    assert_eq!(u(&v, "/tx/bytes"), frames * 9130, "mode {mode}");
    assert_eq!(u(&v, "/tx/pmd_frames"), frames, "mode {mode}");
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
