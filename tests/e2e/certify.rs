//! `landspeed rfc2544` end to end: bad input refused before the EAL
//! starts, and whole certifications on a `net_ring0` loopback (one
//! process: TX and RX on the ring's two ends) with short trials.

use crate::common;

use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::child::Proc;
use crate::common::{json_f64, json_str, json_u64, landspeed, read_json, write_file};
use serde_json::Value;

/// A loopback profile with short trials; `extra` goes into `certify:`.
fn ring(extra: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1, 2]\n  vdevs: [net_ring0]\n\
         ports:\n  - name: p0\n    device: net_ring0\n    link: 100m\n\
         streams:\n  - name: cert\n    ipv4: {{ src: 198.18.0.1, dst: 198.19.0.1 }}\n    udp: {{ src: 49152, dst: 7 }}\n\
         tx:\n  - lcore: 1\n    port: p0\n    rate: line\n    mode: spin\n\
         rx:\n  - lcore: 2\n    port: p0\n    verify: full\n\
         certify:\n  sizes: [512, 1518]\n  trial: 0.2s\n  settle: 0.1s\n  resolution: 5%\n  \
         latency_trials: 2\n  latency_trial: 0.2s\n  loss_step: 25%\n  back_to_back_trials: 2\n  \
         back_to_back_max: 0.05s\n  learning: off\n  restabilise: 0s\n{extra}"
    )
}

/// `landspeed rfc2544 cert.yaml --quick ARGS` (`ring`'s loss step of
/// 25 % is coarser than RFC 2544 allows: `--quick` takes it).
fn rfc(dir: &Path, yaml: &str, args: &[&str]) -> common::Output {
    let p = write_file(dir, "cert.yaml", yaml);
    let mut v = vec![
        "rfc2544".to_string(),
        p.display().to_string(),
        "--quick".to_string(),
    ];
    v.extend(args.iter().map(|a| a.to_string()));
    landspeed(dir, v)
}

/// A refusal that came before the EAL started: nothing of DPDK's in it.
fn refused(out: &common::Output, words: &[&str]) {
    out.assert_error(words);
    assert!(
        !out.stderr.contains("EAL"),
        "the EAL started:\n{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}

#[test]
fn sizes_the_stream_cannot_carry_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = rfc(dir.path(), &ring(""), &["--sizes", "64,40"]);
    refused(
        &out,
        &["--sizes", "certify.sizes", "cannot carry 40-byte frames"],
    );
    let out = rfc(dir.path(), &ring(""), &["--sizes", "20000"]);
    refused(&out, &["cannot carry 20000-byte frames"]);
}

#[test]
fn a_trial_not_longer_than_the_settle_time_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = rfc(dir.path(), &ring(""), &["--trial", "100ms"]);
    refused(&out, &["--trial", "not longer than the settle time"]);
    let out = rfc(
        dir.path(),
        &ring("").replace("latency_trial: 0.2s", "latency_trial: 50ms"),
        &[],
    );
    refused(
        &out,
        &["cert.yaml:", "certify.latency_trial", "settle time"],
    );
}

#[test]
fn a_loss_step_coarser_than_the_rfc_s_needs_quick() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "cert.yaml", &ring(""));
    let out = landspeed(dir.path(), ["rfc2544", &p.display().to_string()]);
    refused(
        &out,
        &[
            "cert.yaml:",
            "certify.loss_step: 25 % is coarser than RFC 2544 allows (at most 10 % of the \
             maximum rate, section 26.3): use --quick to run it anyway",
        ],
    );
    let out = rfc(
        dir.path(),
        &ring("")
            .replace("loss_step: 25%", "loss_step: 10%")
            .replace("  trial: 0.2s", "  trial: 0.2s\n  search_trial: 0.3s"),
        &[],
    );
    refused(
        &out,
        &["certify.search_trial: a search trial of 0.3 s is longer than the trial of 0.2 s"],
    );
}

#[test]
fn tolerance_outside_0_to_100_and_reversed_bounds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = rfc(dir.path(), &ring("  tolerance: 150%\n"), &[]);
    refused(
        &out,
        &["cert.yaml:", "certify.tolerance", "outside 0–100 %"],
    );
    let out = rfc(dir.path(), &ring("  lower: 60%\n  upper: 50%\n"), &[]);
    refused(&out, &["certify.lower", "not below the upper bound"]);
    let out = rfc(
        dir.path(),
        &ring("").replace("resolution: 5%", "resolution: fast"),
        &[],
    );
    refused(&out, &["certify.resolution", "not a percentage"]);
}

#[test]
fn unknown_tests_keys_and_outputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = rfc(dir.path(), &ring(""), &["--tests", "throughput,speed"]);
    refused(&out, &["--tests", "unknown test `speed`"]);
    let out = rfc(dir.path(), &ring("  colour: red\n"), &[]);
    refused(&out, &["certify", "colour"]);
    let out = rfc(dir.path(), &ring(""), &["--json", "no/such/dir/c.json"]);
    refused(&out, &["--json", "does not exist"]);
    let out = rfc(
        dir.path(),
        &ring(""),
        &["--json", "a.json", "--csv", "a.json"],
    );
    refused(&out, &["--csv", "another output"]);
    // A value clap knows is wrong: its usage error, exit 2, no EAL.
    let out = rfc(dir.path(), &ring(""), &["--progress", "fancy"]);
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("invalid value 'fancy' for '--progress <PROGRESS>'")
            && out.stderr.contains("[possible values: auto, plain]")
            && !out.stderr.contains("EAL"),
        "{}",
        out.stderr
    );
    let out = rfc(dir.path(), &ring(""), &["--json", "cert.yaml"]);
    refused(&out, &["--json", "the profile being run"]);
    let out = rfc(dir.path(), &ring("  criteria:\n    - sizes: [64]\n"), &[]);
    refused(&out, &["certify.criteria[0]", "needs min_throughput"]);
}

#[test]
fn a_profile_without_a_receiver_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring("").replace("rx:\n  - lcore: 2\n    port: p0\n    verify: full\n", "");
    let out = rfc(dir.path(), &yaml, &[]);
    refused(&out, &["needs TX and RX tasks"]);
}

/// The machine has the three lcores a one-process loopback needs (the
/// main one, TX, RX); with fewer, the refusal is what is checked.
fn three_lcores(dir: &Path, yaml: &str, test: &str) -> bool {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus >= 3 {
        return true;
    }
    let out = rfc(dir, yaml, &[]);
    out.assert_error(&["eal.cores", "lcore 2 does not exist"]);
    eprintln!("{test}: {cpus} CPUs, needs 3: only the refusal was checked");
    false
}

fn rows<'a>(v: &'a Value, test: &str) -> &'a Vec<Value> {
    v[test].as_array().unwrap()
}

#[test]
fn a_lossless_ring_certifies_at_its_limits_and_the_json_holds_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let yaml =
        ring("  criteria:\n    - min_throughput: 95%\n      max_loss: { rate: 100%, loss: 0% }\n");
    if !three_lcores(dir.path(), &yaml, "a_lossless_ring_certifies") {
        return;
    }
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    let v = read_json(&dir.path().join("c.json"));
    assert_eq!(out.status.code(), Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(v["complete"].as_bool().unwrap());
    assert_eq!(json_str(&v, "/topology"), "loopback");
    assert_eq!(json_u64(&v, "/line_bps"), 100_000_000);
    for (i, size) in [512u64, 1518].into_iter().enumerate() {
        let t = &rows(&v, "throughput")[i];
        assert_eq!(json_u64(t, "/frame_size"), size);
        assert_eq!(json_f64(t, "/rate_pct"), 100.0, "the upper bound");
        assert_eq!(json_str(t, "/bound"), "line");
        assert_eq!(
            json_u64(t, "/trial_count"),
            2,
            "the upper bound, then the confirmation"
        );
        for tr in t["trials"].as_array().unwrap() {
            assert_eq!(json_u64(tr, "/lost"), 0);
            assert_eq!(json_u64(tr, "/rx_frames"), json_u64(tr, "/tx_frames"));
            assert!(json_u64(tr, "/tx_frames") > 0);
        }
        let l = &rows(&v, "loss")[i];
        let rates: Vec<f64> = l["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| json_f64(p, "/rate_pct"))
            .collect();
        assert_eq!(rates, [100.0, 75.0], "two loss-free steps end the curve");
        let b = &rows(&v, "back_to_back")[i];
        let max = (0.05 * 100e6 / ((size as f64 + 20.0) * 8.0)).ceil() as u64;
        assert_eq!(b["bursts"], serde_json::json!([max, max]));
        assert!(b["at_limit"].as_bool().unwrap());
        for tr in b["trials"].as_array().unwrap() {
            assert_eq!(json_u64(tr, "/tx_frames"), max, "exactly the burst");
            assert_eq!(json_u64(tr, "/rx_frames"), max);
        }
        let lat = &rows(&v, "latency")[i];
        assert_eq!(lat["trials"].as_array().unwrap().len(), 2);
        assert!(json_f64(lat, "/summary/mean_ns") > 0.0);
        // The table prints the JSON's figures.
        let line = format!(
            "{:>6} {:<16} {:>9.3}",
            size,
            "p0 → p0",
            json_f64(t, "/rate_pct")
        );
        assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);
    }
    let crit = v["criteria"].as_array().unwrap();
    assert_eq!(crit.len(), 4);
    assert!(crit.iter().all(|c| c["passed"].as_bool().unwrap()));
    assert!(
        out.stdout.contains("\ncertification: PASS (exit 0)\n"),
        "{}",
        out.stdout
    );
    assert_eq!(v["not_measured"], serde_json::json!([]));
}

#[test]
fn a_receiver_that_hears_nothing_stops_after_the_first_trial() {
    let dir = tempfile::tempdir().unwrap();
    // The null PMD swallows what is sent on net_null0; net_null1 receives
    // only frames of its own that are not landspeed's.
    let yaml = ring("")
        .replace("vdevs: [net_ring0]", "vdevs: [net_null0, net_null1]")
        .replace(
            "  - name: p0\n    device: net_ring0\n    link: 100m\n",
            "  - name: p0\n    device: net_null0\n    link: 100m\n  - name: p1\n    device: net_null1\n    link: 100m\n",
        )
        .replace("rx:\n  - lcore: 2\n    port: p0", "rx:\n  - lcore: 2\n    port: p1");
    // The RX lcore shares CPU 0 with the main lcore: a machine of two runs it.
    let yaml = yaml.replace(
        "  cores: [0, 1, 2]\n",
        "  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n",
    );
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    out.assert_error(&["port p1 received nothing", "first trial"]);
    let v = read_json(&dir.path().join("c.json"));
    assert!(!v["complete"].as_bool().unwrap());
    let t = &rows(&v, "throughput")[0];
    assert_eq!(t["trials"].as_array().unwrap().len(), 1);
}

/// The same loopback on a machine of two CPUs: the RX lcore shares CPU 0
/// with the main lcore (`eal.cpus`). Sharing may make a trial
/// tester-bound (then said so, exit 3), but every count stays exact, and
/// the JSON, CSV, HTML and JUnit reports hold the same figures.
#[test]
fn a_ring_on_two_cpus_counts_every_trial_exactly_in_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring("").replace(
        "  cores: [0, 1, 2]\n",
        "  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n",
    );
    let args = [
        "--json", "c.json", "--csv", "c.csv", "--html", "c.html", "--junit", "c.xml",
    ];
    let out = rfc(dir.path(), &yaml, &args);
    let v = read_json(&dir.path().join("c.json"));
    match out.status.code() {
        Some(0) => assert!(v["problems"].as_array().unwrap().is_empty()),
        Some(3) => {
            for p in v["problems"].as_array().unwrap() {
                assert_eq!(json_str(p, "/kind"), "tester_bound", "{p}");
            }
        }
        other => panic!("exit {other:?}\n{}\n{}", out.stdout, out.stderr),
    }
    assert!(v["complete"].as_bool().unwrap());
    let code = out.status.code().unwrap();
    let verdict = format!(
        "certification: {}",
        if code == 0 {
            "NO VERDICT: no acceptance criteria, figures only"
        } else {
            "NO VERDICT (no acceptance criteria) but tester-bound: "
        }
    );
    let last = out.stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&verdict) && last.ends_with(&format!("(exit {code})")),
        "{last}"
    );
    let mut n = 0;
    for t in every_trial(&v) {
        n += 1;
        assert!(json_u64(t, "/tx_frames") > 0, "{t}");
        assert_eq!(
            json_u64(t, "/rx_frames"),
            json_u64(t, "/tx_frames"),
            "a ring loses nothing: {t}"
        );
        assert_eq!(json_u64(t, "/lost"), 0, "{t}");
        assert_eq!(
            json_u64(t, "/corrupt") + json_u64(t, "/duplicated") + json_u64(t, "/reordered"),
            0,
            "{t}"
        );
    }
    assert!(n >= 12, "{n} trials");
    for (i, size) in [512u64, 1518].into_iter().enumerate() {
        let b = &rows(&v, "back_to_back")[i];
        let max = (0.05 * 100e6 / ((size as f64 + 20.0) * 8.0)).ceil() as u64;
        // A ring drops nothing: every burst is the longest, unless a
        // sender starved on the shared CPU (its trials tester-bound, the
        // row's bound the tester's, exit 3 above).
        let starved = (b["trials"].as_array().unwrap().iter())
            .any(|t| t["tester_bound"] == Value::Bool(true));
        if !starved {
            assert_eq!(b["bursts"], serde_json::json!([max, max]), "size {size}");
        }
    }
    // One source: each throughput figure, as the CSV prints it, is in the HTML.
    let csv = std::fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let html = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    let junit = std::fs::read_to_string(dir.path().join("c.xml")).unwrap();
    let rows_csv: Vec<&str> = csv
        .lines()
        .filter(|l| l.starts_with("throughput,result"))
        .collect();
    assert_eq!(rows_csv.len(), 2, "{csv}");
    for t in rows(&v, "throughput") {
        let pct = format!("{:.2}", json_f64(t, "/rate_pct"));
        assert!(
            rows_csv.iter().any(|l| l.contains(&pct)),
            "{pct} not in {rows_csv:?}"
        );
        assert!(html.contains(&pct), "{pct} not in the HTML");
    }
    // A size whose throughput found no rate has no latency (its trials
    // all the tester's on the shared CPU): not measured, and said so.
    let no_rate: Vec<u64> = (rows(&v, "throughput").iter())
        .filter(|t| json_f64(t, "/rate_pct") == 0.0)
        .map(|t| json_u64(t, "/frame_size"))
        .collect();
    let unmeasured = v["not_measured"].as_array().unwrap();
    let latency_sizes: Vec<u64> = (unmeasured.iter())
        .inspect(|n| assert_eq!(json_str(n, "/test"), "latency", "{n}"))
        .map(|n| json_u64(n, "/frame_size"))
        .collect();
    assert_eq!(latency_sizes, no_rate, "{unmeasured:?}");
    for n in unmeasured {
        assert!(
            json_str(n, "/reason").starts_with("no throughput rate: none of the "),
            "{n}"
        );
        assert!(junit.contains(&format!(
            "<skipped message=\"{}\"/>",
            json_str(n, "/reason").replace('\'', "&#39;")
        )));
    }
    let csv_unmeasured = csv
        .lines()
        .filter(|l| l.starts_with("latency,not_measured,"))
        .count();
    assert_eq!(csv_unmeasured, unmeasured.len());
    assert_eq!(rows(&v, "latency").len(), 2 - no_rate.len());
    if no_rate.len() == 2 {
        let said = "No latency measured: no frame size had a throughput rate (p0 → p0 512";
        assert_eq!(
            html.matches("<svg class=\"chart\"").count(),
            3,
            "no latency to draw"
        );
        assert!(html.contains(said), "the chart's place says why");
        assert!(out.stdout.contains(said), "{}", out.stdout);
    } else {
        assert_eq!(
            html.matches("<svg class=\"chart\"").count(),
            4,
            "one chart per test"
        );
    }
    assert!(!html.contains("http"), "no outside reference");
    assert!(junit.contains("<testsuites"), "{junit}");
}

/// Every trial of the JSON `v`, test by test.
fn every_trial(v: &Value) -> impl Iterator<Item = &Value> {
    ["throughput", "latency", "back_to_back"]
        .into_iter()
        .flat_map(move |t| rows(v, t).iter())
        .flat_map(|r| r["trials"].as_array().unwrap().iter())
        .chain(
            rows(v, "loss")
                .iter()
                .flat_map(|c| c["points"].as_array().unwrap().iter().map(|p| &p["trial"])),
        )
}

/// Ctrl-C in the middle: the trials so far are kept in every report,
/// marked incomplete, the same number in the JSON and the CSV, and what
/// did not run is listed as not measured, exit 4.
#[test]
fn ctrl_c_mid_certification_keeps_the_trials_so_far_marked_incomplete() {
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring("").replace(
        "  cores: [0, 1, 2]\n",
        "  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n",
    );
    let p = write_file(dir.path(), "cert.yaml", &yaml);
    let p = p.display().to_string();
    let args = [
        "rfc2544",
        &p,
        "--quick",
        "--json",
        "c.json",
        "--csv",
        "c.csv",
        "--html",
        "c.html",
        "--junit",
        "c.xml",
        "--progress",
        "plain",
    ];
    let mut child = Proc::start_plain(dir.path(), "cert", &args);
    // Two trials ended (a plain progress line each): the certification
    // is in its throughput search, far from back-to-back.
    let start = Instant::now();
    loop {
        let err = std::fs::read_to_string(&child.err).unwrap_or_default();
        let ended = (err.lines())
            .filter(|l| l.starts_with("landspeed: ") && l.contains("(certification: "))
            .count();
        if ended >= 2 {
            break;
        }
        if let Some(st) = child.child.try_wait().unwrap() {
            panic!("ended ({st}) before two trials:\n{err}");
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{err}");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.interrupt();
    let done = child.wait(Duration::from_secs(60));
    assert_eq!(
        done.status.code(),
        Some(4),
        "{}\n{}",
        done.stdout,
        done.stderr
    );
    assert!(!done.stderr.contains("panicked"), "{}", done.stderr);
    let v = read_json(&dir.path().join("c.json"));
    assert!(!v["complete"].as_bool().unwrap());
    let why = json_str(&v, "/stopped_by");
    assert_eq!(why, "interrupted by SIGINT");
    assert!(
        done.stdout
            .contains("\ncertification: INCOMPLETE: interrupted by SIGINT (exit 4)\n"),
        "{}",
        done.stdout
    );
    // The same trials in the JSON and the CSV.
    let trials = every_trial(&v).count();
    assert!(trials >= 2, "{trials}");
    let csv = std::fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let csv_trials = (csv.lines())
        .filter(|l| l.split(',').nth(1) == Some("trial"))
        .count();
    assert_eq!(csv_trials, trials, "{csv}");
    // Every test of every size is a row with trials or not measured,
    // never both; back-to-back never ran.
    let unmeasured = v["not_measured"].as_array().unwrap();
    let not_run = format!("not run: the certification stopped before it: {why}");
    for test in ["throughput", "latency", "loss", "back_to_back"] {
        for size in [512u64, 1518] {
            let row = (rows(&v, test).iter()).find(|r| json_u64(r, "/frame_size") == size);
            let entry = (unmeasured.iter())
                .find(|n| json_str(n, "/test") == test && json_u64(n, "/frame_size") == size);
            match (row, entry) {
                (Some(r), None) => {
                    let n = r
                        .get("trials")
                        .or_else(|| r.get("points"))
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    assert!(n > 0, "an empty row: {r}");
                }
                (None, Some(e)) => {
                    assert_eq!(json_str(e, "/direction"), "p0 → p0");
                    let reason = json_str(e, "/reason");
                    assert!(
                        reason == not_run || reason.starts_with("no throughput rate: "),
                        "{e}"
                    );
                }
                other => panic!("{test} {size}: {other:?}"),
            }
        }
    }
    let b2b: Vec<&Value> = (unmeasured.iter())
        .filter(|n| json_str(n, "/test") == "back_to_back")
        .collect();
    assert_eq!(b2b.len(), 2, "{unmeasured:?}");
    assert!(b2b.iter().all(|n| json_str(n, "/reason") == not_run));
    // The CSV, the HTML and the JUnit list the same.
    let csv_unmeasured = (csv.lines())
        .filter(|l| l.split(',').nth(1) == Some("not_measured"))
        .count();
    assert_eq!(csv_unmeasured, unmeasured.len());
    let html = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert!(html.contains("id=\"incomplete\""));
    let table = html.split("<table class=\"not-measured\">").nth(1).unwrap();
    let table = table.split("</table>").next().unwrap();
    assert_eq!(table.matches("<tr><td").count(), unmeasured.len());
    assert!(html.contains(&format!(
        "No back-to-back frames measured: p0 → p0 512, 1518 B: {not_run}."
    )));
    let junit = std::fs::read_to_string(dir.path().join("c.xml")).unwrap();
    assert_eq!(
        junit.matches("<skipped message=").count(),
        unmeasured.len(),
        "{junit}"
    );
    assert!(junit.contains("type=\"incomplete\""));
}

/// Two ring ports that each send and receive: a bidirectional topology
/// (each net_ring port loops back to itself, so each direction's frames
/// come back on the port that sent them; the figures are told apart by
/// stream). The aggregate trials, both directions at once, hold each
/// direction's share with exact counts; five lcores share two CPUs, so a
/// trial may be tester-bound (said so, exit 3), never miscounted.
#[test]
fn a_bidirectional_ring_counts_each_direction_of_the_aggregate_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal:\n  cores: [0, 1, 2, 3, 4]\n  cpus: [0, 1, 0, 1, 0]\n  vdevs: [net_ring0, net_ring1]\n\
         ports:\n  - name: p0\n    device: net_ring0\n    link: 100m\n  - name: p1\n    device: net_ring1\n    link: 100m\n\
         streams:\n  - name: east\n    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }\n    udp: { src: 49152, dst: 7 }\n\
         \x20 - name: west\n    ipv4: { src: 198.19.0.1, dst: 198.18.0.1 }\n    udp: { src: 49153, dst: 7 }\n\
         tx:\n  - lcore: 1\n    port: p0\n    streams: [east]\n    rate: line\n    mode: spin\n\
         \x20 - lcore: 2\n    port: p1\n    streams: [west]\n    rate: line\n    mode: spin\n\
         rx:\n  - lcore: 3\n    port: p0\n    verify: full\n  - lcore: 4\n    port: p1\n    verify: full\n\
         certify:\n  tests: [throughput, back_to_back]\n  sizes: [512]\n  trial: 0.2s\n  settle: 0.1s\n  \
         resolution: 5%\n  back_to_back_trials: 1\n  back_to_back_max: 0.05s\n  learning: off\n  restabilise: 0s\n";
    let args = ["--json", "c.json", "--csv", "c.csv", "--html", "c.html"];
    let out = rfc(dir.path(), yaml, &args);
    let v = read_json(&dir.path().join("c.json"));
    match out.status.code() {
        Some(0) => {}
        Some(3) => {
            for p in v["problems"].as_array().unwrap() {
                assert_eq!(json_str(p, "/kind"), "tester_bound", "{p}");
            }
        }
        other => panic!("exit {other:?}\n{}\n{}", out.stdout, out.stderr),
    }
    assert_eq!(json_str(&v, "/topology"), "bidirectional");
    let dirs = ["p0 → p1", "p1 → p0"];
    assert_eq!(v["directions"], serde_json::json!(dirs));
    let keys = [
        "tx_frames",
        "rx_frames",
        "lost",
        "corrupt",
        "duplicated",
        "reordered",
    ];
    let mut aggregate = Vec::new();
    for test in ["throughput", "back_to_back"] {
        for row in rows(&v, test) {
            for t in row["trials"].as_array().unwrap() {
                let shares = t.get("per_direction").and_then(Value::as_array);
                if json_str(row, "/direction") != "aggregate" {
                    assert!(shares.is_none(), "one direction has no shares: {t}");
                    continue;
                }
                let shares = shares.unwrap();
                let names: Vec<&str> = shares.iter().map(|d| json_str(d, "/direction")).collect();
                assert_eq!(names, dirs);
                for k in keys {
                    let sum: u64 = shares.iter().map(|d| json_u64(d, &format!("/{k}"))).sum();
                    assert_eq!(sum, json_u64(t, &format!("/{k}")), "{k}: {t}");
                }
                for d in shares {
                    // A direction sends nothing only in a trial the tester
                    // could not drive (its lcore starved on a shared CPU:
                    // tester-bound), or a burst of one frame split two ways.
                    assert!(
                        json_u64(d, "/tx_frames") > 0
                            || t["tester_bound"] == Value::Bool(true)
                            || json_u64(t, "/tx_frames") < 2,
                        "{d} in {t}"
                    );
                    if json_u64(d, "/tx_frames") == 0 {
                        assert!(d["latency"].is_null(), "no frame, no latency: {d}");
                        continue;
                    }
                    assert_eq!(
                        json_u64(d, "/rx_frames"),
                        json_u64(d, "/tx_frames"),
                        "a ring loses nothing: {d}"
                    );
                    assert_eq!(
                        json_u64(d, "/lost") + json_u64(d, "/corrupt") + json_u64(d, "/duplicated"),
                        0,
                        "{d}"
                    );
                    assert!(json_f64(d, "/latency/p99_ns") > 0.0, "{d}");
                }
                aggregate.push((test, t.clone()));
            }
        }
    }
    // Back-to-back at the limit: one burst of 1175 frames (0.05 s at
    // 100 Mbit/s of 512-byte frames) split over the two senders.
    let b = rows(&v, "back_to_back").last().unwrap();
    assert_eq!(json_str(b, "/direction"), "aggregate");
    assert_eq!(b["bursts"].as_array().unwrap().len(), 1);
    let t = &b["trials"][0];
    assert_eq!(json_u64(t, "/tx_frames"), 1175);
    let sent: Vec<u64> = (0..2)
        .map(|i| json_u64(&t["per_direction"][i], "/tx_frames"))
        .collect();
    assert_eq!(sent, [588, 587]);
    assert!(aggregate.iter().any(|(k, _)| *k == "throughput"));
    // The CSV and the HTML hold the same shares.
    let csv = std::fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let shares: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",trial_direction,"))
        .collect();
    assert_eq!(shares.len(), 2 * aggregate.len(), "{csv}");
    let east = shares
        .iter()
        .find(|l| l.starts_with("back_to_back,trial_direction,p0 → p1,512,1,"));
    assert!(
        east.is_some_and(|l| l.contains(",588,588,0,0,")),
        "{shares:?}"
    );
    let html = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert_eq!(
        html.matches("class=\"per-direction\"").count(),
        2,
        "one table per test"
    );
    // On a pipe: no terminal codes, a plain line per trial.
    assert!(!out.stderr.contains('\x1b'), "no terminal codes on a pipe");
    assert!(!out.stdout.contains('\x1b'));
    let trials: usize = ["throughput", "back_to_back"]
        .iter()
        .flat_map(|k| rows(&v, k).iter())
        .map(|r| r["trials"].as_array().unwrap().len())
        .sum();
    let lines: Vec<&str> = (out.stderr.lines())
        .filter(|l| l.starts_with("landspeed: ") && l.contains("(certification: "))
        .collect();
    assert_eq!(lines.len(), trials, "{}", out.stderr);
    assert!(
        lines[0].starts_with("landspeed: throughput 512 B p0 → p1: trial 1 of ~"),
        "{}",
        lines[0]
    );
    let last = format!("(certification: {trials} of ~{trials}): ");
    assert!(lines[trials - 1].contains(&last), "{}", lines[trials - 1]);
}

/// `ring` on two CPUs (the RX lcore beside the main one) for `tests` at
/// 512 B, `extra` in `certify:`, learning as `extra` says.
fn ring_two_cpus(tests: &str, extra: &str) -> String {
    ring(extra)
        .replace(
            "  cores: [0, 1, 2]\n",
            "  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n",
        )
        .replace(
            "  sizes: [512, 1518]\n",
            &format!("  tests: [{tests}]\n  sizes: [512]\n"),
        )
}

/// A certification exits 0, or 3 with only tester-bound problems (the
/// shared CPUs may deschedule a trial, and it says so).
fn assert_pass_or_tester_bound(out: &common::Output, v: &Value) {
    match out.status.code() {
        Some(0) => {}
        Some(3) => {
            for p in v["problems"].as_array().unwrap() {
                assert_eq!(json_str(p, "/kind"), "tester_bound", "{p}");
            }
        }
        other => panic!("exit {other:?}\n{}\n{}", out.stdout, out.stderr),
    }
}

/// Learning frames before every trial on the ring: each trial records
/// the address taught (the stream's destination MAC, from the receiving
/// port), 3 frames sent, and exactly those 3 drained (the ring brings
/// them back to the port that sent them) before the trial counted: every
/// trial's counts stay exact. The DUT hooks run before and after every
/// trial with the trial's details in their environment, and their
/// output is in the JSON. The receiver asks `auto` timestamps of a port
/// without any: the method says it fell back to software, and why.
#[test]
fn learning_frames_hooks_and_the_timestamp_method_on_a_ring() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_two_cpus(
        "throughput, latency",
        "  learning_wait: 100ms\n  dut:\n    before_trial: echo before $LANDSPEED_TEST $LANDSPEED_TRIAL $LANDSPEED_FRAME_SIZE $LANDSPEED_RATE_PCT\n    after_trial: echo after $LANDSPEED_TRIAL >&2\n",
    )
    .replace("  learning: off\n", "  learning: every_trial\n")
    .replace("  resolution: 5%\n", "  resolution: 50%\n")
    .replace("    verify: full\n", "    verify: full\n    timestamps: auto\n");
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    let v = read_json(&dir.path().join("c.json"));
    assert_pass_or_tester_bound(&out, &v);
    assert_eq!(json_str(&v, "/settings/learning"), "every_trial");
    assert_eq!(json_f64(&v, "/settings/learning_wait_s"), 0.1);
    assert_eq!(json_str(&v, "/settings/dut/on_failure"), "stop");
    let mut n = 0u64;
    for t in every_trial(&v) {
        n += 1;
        assert_eq!(json_u64(t, "/rx_frames"), json_u64(t, "/tx_frames"), "{t}");
        assert_eq!(json_u64(t, "/lost"), 0, "{t}");
        let l = &t["learning"];
        assert_eq!(
            l["addresses"],
            serde_json::json!(["02:00:00:00:00:02 from p0"]),
            "{t}"
        );
        assert_eq!(json_u64(l, "/frames"), 3, "{t}");
        assert_eq!(json_u64(l, "/drained"), 3, "{t}");
        assert_eq!(json_u64(l, "/refused"), 0, "{t}");
        assert!(json_f64(l, "/seconds") >= 0.1, "{t}");
        let hooks = t["hooks"].as_array().unwrap();
        assert_eq!(hooks.len(), 2, "{t}");
        // Run in this order: the throughput search, then latency.
        let searched = v["throughput"][0]["trials"].as_array().unwrap().len() as u64;
        let test = if n <= searched {
            "throughput"
        } else {
            "latency"
        };
        let rate = json_f64(t, "/offered_pct");
        assert_eq!(
            json_str(&hooks[0], "/output"),
            format!("before {test} {n} 512 {rate}\n"),
            "{t}"
        );
        assert_eq!(json_str(&hooks[0], "/hook"), "before_trial");
        assert_eq!(hooks[0]["status"], 0);
        assert_eq!(hooks[0]["timed_out"], false);
        assert_eq!(json_str(&hooks[1], "/output"), format!("after {n}\n"));
        assert_eq!(
            json_str(&hooks[1], "/command"),
            "echo after $LANDSPEED_TRIAL >&2"
        );
    }
    assert!(n >= 4, "{n} trials");
    let method = json_str(&v, "/latency_method");
    assert_eq!(
        method,
        "software: the TX TSC written into each frame's stamp as it is built; the RX TSC read \
         after the poll that returned the frame (rx[0].timestamps is auto, and port p0 (driver \
         net_ring) does not timestamp received frames: its arrival times are the software's)"
    );
    for t in every_trial(&v).filter(|t| !t["latency"].is_null()) {
        assert_eq!(json_str(t, "/latency_source"), "software");
    }
}

/// A stream whose destination is a MAC range is taught address by
/// address: before every trial the receiving port sends 3 rounds of 100
/// learning frames, one per address of `02:00:00:00:01:00-02:00:00:00:01:63`,
/// the JSON names them as one run, and the ring brings all 300 back to be
/// drained before the trial counts; the trial's frames, which walk the
/// 100 destinations, all arrive verified. A set larger than the ring
/// holds has its overflow refused, counted and named.
#[test]
fn learning_frames_teach_every_address_of_a_mac_range() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_two_cpus("throughput", "  learning_wait: 50ms\n")
        .replace("  learning: off\n", "  learning: every_trial\n")
        .replace("  resolution: 5%\n", "  resolution: 50%\n")
        .replace(
            "  - name: cert\n",
            "  - name: cert\n    eth: { dst: \"02:00:00:00:01:00-02:00:00:00:01:63\" }\n",
        );
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    let v = read_json(&dir.path().join("c.json"));
    assert_pass_or_tester_bound(&out, &v);
    let mut n = 0;
    for t in every_trial(&v) {
        n += 1;
        assert_eq!(json_u64(t, "/rx_frames"), json_u64(t, "/tx_frames"), "{t}");
        assert_eq!(json_u64(t, "/lost"), 0, "{t}");
        assert_eq!(json_u64(t, "/corrupt"), 0, "{t}");
        let l = &t["learning"];
        assert_eq!(
            l["addresses"],
            serde_json::json!(["02:00:00:00:01:00–02:00:00:00:01:63 (100 addresses) from p0"]),
            "{t}"
        );
        assert_eq!(json_u64(l, "/frames"), 300, "{t}");
        assert_eq!(json_u64(l, "/drained"), 300, "{t}");
        assert_eq!(json_u64(l, "/refused"), 0, "{t}");
    }
    assert!(n >= 1, "no trial:\n{}", out.stdout);

    // 4096 addresses: 3 rounds of 4096 frames into a ring nobody reads
    // until the learning ends. What the ring cannot hold is refused after
    // the stall, counted, and named as the trial's problem.
    let big = yaml.replace("02:00:00:00:01:63", "02:00:00:00:10:ff");
    let out = rfc(dir.path(), &big, &["--json", "big.json"]);
    let v = read_json(&dir.path().join("big.json"));
    let t = every_trial(&v).next().expect("a trial");
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}\n{}\n{t}",
        out.stdout,
        out.stderr
    );
    let l = &t["learning"];
    assert_eq!(
        l["addresses"],
        serde_json::json!(["02:00:00:00:01:00–02:00:00:00:10:ff (4096 addresses) from p0"]),
        "{t}"
    );
    let (sent, refused) = (json_u64(l, "/frames"), json_u64(l, "/refused"));
    assert_eq!(sent + refused, 3 * 4096, "{t}");
    assert!(refused > 0 && sent > 0, "{t}");
    assert_eq!(json_u64(l, "/drained"), sent, "{t}");
    let problems = t["problems"].to_string();
    assert!(
        problems.contains(&format!(
            "{refused} of 12288 learning frames were not taken by the receiving ports' TX queues"
        )),
        "{problems}"
    );
    let problems = v["problems"].to_string();
    assert!(
        problems.contains(&format!(
            "the learning frames before {} trial(s) were not all sent (first: {refused} of 12288",
            every_trial(&v).count()
        )),
        "{problems}"
    );
}

/// A hook that fails with `on_failure: stop` ends the certification with
/// an error naming it (exit 1), the reports written with the trial it
/// ran after; `nic` timestamps on a port without them are refused when
/// the port opens, naming the key.
#[test]
fn a_failing_hook_stops_the_certification_and_nic_stamps_need_a_nic() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_two_cpus(
        "throughput",
        "  dut:\n    after_trial: echo the DUT is gone; exit 4\n",
    );
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    out.assert_error(&[
        "the device-under-test hook certify.dut.after_trial `echo the DUT is gone; exit 4` \
         exited with status 4 after the trial (throughput 512 B p0 → p0 at 100.000 % of line); \
         its output ends: the DUT is gone; certify.dut.on_failure is stop",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = read_json(&dir.path().join("c.json"));
    assert!(!v["complete"].as_bool().unwrap());
    let trials = v["throughput"][0]["trials"].as_array().unwrap();
    assert_eq!(trials.len(), 1);
    assert_eq!(trials[0]["hooks"][0]["status"], 4);
    assert_eq!(
        json_str(&trials[0]["hooks"][0], "/output"),
        "the DUT is gone\n"
    );
    let nic = ring_two_cpus("throughput", "").replace(
        "    verify: full\n",
        "    verify: full\n    timestamps: nic\n",
    );
    let out = rfc(dir.path(), &nic, &[]);
    out.assert_error(&[
        "cert.yaml:",
        "rx[0].timestamps",
        "`nic` asked, but port `p0`",
    ]);
}

/// The tester baseline: a calibration on the ring writes the ring's own
/// latency per size (throughput and latency only, whatever --tests
/// says, and it says so); a certification given it carries, in each
/// latency row, the baseline and the device's latency, never above the
/// measured one. A baseline that does not fit is refused before the
/// EAL starts.
#[test]
fn a_calibration_on_a_ring_corrects_the_latency_of_a_certification() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_two_cpus("throughput, latency, loss", "");
    let calibrate = || {
        rfc(
            dir.path(),
            &yaml,
            &["--calibrate", "loop.json", "--json", "cal.json"],
        )
    };
    // On CPUs other builds share, every trial may be the tester's (its
    // lcores descheduled): no latency to record, which the calibration
    // says (exit 1, nothing written). Up to three tries.
    let mut out = calibrate();
    for _ in 0..2 {
        if out.status.code() != Some(1) {
            break;
        }
        out.assert_error(&[
            "--calibrate loop.json: the calibration measured no latency (see its latency \
             table): nothing written",
        ]);
        assert!(!dir.path().join("loop.json").exists());
        out = calibrate();
    }
    let cal = read_json(&dir.path().join("cal.json"));
    if out.status.code() == Some(1) {
        let _ = writeln!(
            std::io::stderr(),
            "a_calibration_on_a_ring: every throughput trial was the tester's in three tries \
             (a loaded machine): only the refusal was checked"
        );
        assert_eq!(json_str(&cal["throughput"][0], "/bound"), "tester");
        return;
    }
    assert_pass_or_tester_bound(&out, &cal);
    assert!(
        out.stderr.contains(
            "landspeed: --calibrate runs throughput and latency only (not throughput, latency, \
             loss, as certify.tests says)"
        ),
        "{}",
        out.stderr
    );
    assert_eq!(
        cal["settings"]["tests"],
        serde_json::json!(["throughput", "latency"])
    );
    assert!(cal["loss"].as_array().unwrap().is_empty());
    let b = read_json(&dir.path().join("loop.json"));
    assert_eq!(json_str(&b, "/kind"), "landspeed latency baseline");
    assert_eq!(json_str(&b, "/recorded"), json_str(&cal, "/started"));
    assert!(json_str(&b, "/profile").ends_with("cert.yaml"));
    assert_eq!(b["setup"]["ports"], serde_json::json!(["p0: net_ring0"]));
    assert_eq!(
        b["setup"]["tasks"],
        serde_json::json!([
            "tx lcore 1 (cpu 1) port p0 queue 0, mode spin, streams cert",
            "rx lcore 2 (cpu 0) port p0 queues 0, verify full"
        ])
    );
    assert!(json_str(&b, "/setup/method").starts_with("software: "));
    let brows = b["rows"].as_array().unwrap();
    assert_eq!(brows.len(), 1, "{b}");
    assert_eq!(json_u64(&brows[0], "/frame_size"), 512);
    assert_eq!(
        json_f64(&brows[0], "/summary/mean_ns"),
        json_f64(&cal["latency"][0], "/summary/mean_ns")
    );
    // The certification with it: every latency row corrected.
    let out = rfc(
        dir.path(),
        &ring_two_cpus("throughput, latency", ""),
        &["--baseline", "loop.json", "--json", "c.json"],
    );
    let v = read_json(&dir.path().join("c.json"));
    assert_pass_or_tester_bound(&out, &v);
    assert_eq!(json_str(&v, "/baseline/file"), "loop.json");
    assert_eq!(
        json_str(&v, "/baseline/recorded"),
        json_str(&b, "/recorded")
    );
    for r in rows(&v, "latency")
        .iter()
        .filter(|r| json_u64(r, "/summary/count") > 0)
    {
        assert_eq!(
            json_f64(r, "/baseline/mean_ns"),
            json_f64(&brows[0], "/summary/mean_ns"),
            "{r}"
        );
        assert!(
            json_f64(r, "/device/mean_ns") <= json_f64(r, "/summary/mean_ns"),
            "{r}"
        );
        assert!(json_f64(r, "/device/mean_ns") >= 0.0, "{r}");
    }
    // Another size than the calibration measured: refused before the EAL.
    let out = rfc(
        dir.path(),
        &ring_two_cpus("throughput, latency", ""),
        &["--baseline", "loop.json", "--sizes", "1518"],
    );
    refused(
        &out,
        &["--baseline loop.json: has no latency for 1518 B in p0 → p0 (only 512 B there)"],
    );
}

/// An IMIX (RFC 6985's genome `aaaag`: four 64-byte frames and one of
/// 1518) certified on the loopback: its rows carry the size `0` the JSON
/// names the IMIX by, its rates count the IMIX's mean frame (370.8 B),
/// and a recovery over a line-rate throughput says it cannot overload.
#[test]
fn an_imix_is_certified_by_its_mean_frame() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring("  imix: aaaag\n  recovery_overload: 0.3s\n  recovery_reduced: 0.2s\n")
        .replace(
            "  cores: [0, 1, 2]\n",
            "  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n",
        )
        .replace(
            "  sizes: [512, 1518]\n",
            "  sizes: [imix]\n  tests: [throughput, recovery]\n",
        );
    let out = rfc(dir.path(), &yaml, &["--json", "c.json"]);
    out.assert_exit_in(&[0, 3]);
    let v = read_json(&dir.path().join("c.json"));
    assert_eq!(
        v["settings"]["imix"],
        serde_json::json!([64, 64, 64, 64, 1518])
    );
    let t = &rows(&v, "throughput")[0];
    assert_eq!(json_u64(t, "/frame_size"), 0, "the IMIX");
    let mean = (4.0 * 64.0 + 1518.0) / 5.0;
    let fps = json_f64(t, "/fps");
    if fps > 0.0 {
        assert!((json_f64(t, "/l2_bps") / fps - mean * 8.0).abs() < 1e-6);
        let line_fps = 100e6 / ((mean + 20.0) * 8.0);
        assert!((fps / line_fps * 100.0 - json_f64(t, "/rate_pct")).abs() < 1e-6);
    }
    for tr in t["trials"].as_array().unwrap() {
        if tr["tester_bound"].as_bool().unwrap() {
            continue;
        }
        let (offered, sent) = (json_f64(tr, "/offered_pct"), json_f64(tr, "/sent_pct"));
        assert!(
            (sent - offered).abs() < offered * 0.05,
            "sent {sent} % of {offered} %: {tr}"
        );
    }
    let rate = json_f64(t, "/rate_pct");
    if rate == 100.0 {
        let r = &rows(&v, "recovery")[0];
        assert!(
            json_str(r, "/note").starts_with("not run: the throughput is the line rate"),
            "{r}"
        );
        assert!(r["trials"].as_array().unwrap().is_empty());
    } else if rate == 0.0 {
        // The shared CPUs held the sender back at every rate.
        assert!(v.get("recovery").is_none());
        let n = &v["not_measured"][0];
        assert_eq!(
            (json_str(n, "/test"), json_u64(n, "/frame_size")),
            ("recovery", 0)
        );
        assert!(
            json_str(n, "/reason").starts_with("no throughput rate"),
            "{n}"
        );
    } else {
        assert_eq!(
            json_f64(&rows(&v, "recovery")[0], "/overload_pct"),
            (rate * 1.1).min(100.0)
        );
    }
}

/// A ring mesh of `n` ports (`eal.ring_mesh`), fully meshed: stream
/// `sIJ` from `tI` to `tJ` on the TX queue toward it, an RX task per
/// port over its queues listing the streams addressed to it; every
/// lcore on the two CPUs.
fn ring_mesh(n: usize, certify: &str) -> String {
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
        .collect();
    let lcores = 1 + pairs.len() + n;
    let list = |f: &dyn Fn(usize) -> usize| {
        (0..lcores)
            .map(|c| f(c).to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut y = format!(
        "eal:\n  cores: [{}]\n  cpus: [{}]\n  ring_mesh: {n}\n  memory_mb: 2048\nports:\n",
        list(&|c| c),
        list(&|c| c % 2)
    );
    for i in 0..n {
        y += &format!(
            "  - {{ name: t{i}, device: net_ring_mesh{i}, link: 100m, tx_queues: {q}, rx_queues: {q} }}\n",
            q = n - 1
        );
    }
    y += "streams:\n";
    for (i, j) in &pairs {
        y += &format!(
            "  - name: s{i}{j}\n    eth: {{ src: '02:00:00:00:00:0{i}', dst: '02:00:00:00:00:0{j}' }}\n    \
             ipv4: {{ src: 198.18.{i}.1, dst: 198.18.{j}.1 }}\n    udp: {{ src: 49152, dst: 7 }}\n"
        );
    }
    y += "tx:\n";
    for (l, (i, j)) in pairs.iter().enumerate() {
        // The queue toward peer j: its index among port i's peers.
        let q = if j < i { *j } else { j - 1 };
        y += &format!(
            "  - {{ lcore: {}, port: t{i}, queue: {q}, streams: [s{i}{j}], rate: line, mode: spin }}\n",
            l + 1
        );
    }
    y += "rx:\n";
    for j in 0..n {
        let s: Vec<String> = (0..n)
            .filter(|&i| i != j)
            .map(|i| format!("s{i}{j}"))
            .collect();
        let q: Vec<String> = (0..n - 1).map(|q| q.to_string()).collect();
        y += &format!(
            "  - {{ lcore: {}, port: t{j}, queues: [{}], streams: [{}], verify: full }}\n",
            1 + pairs.len() + j,
            q.join(", "),
            s.join(", ")
        );
    }
    y + "certify:\n" + certify
}

/// Four ring ports fully meshed (RFC 2889 section 5.1's traffic: every
/// port to every other at once): the certification's rows are the
/// aggregate only, each trial holds the twelve pairs' figures, each pair
/// exact (a ring loses nothing), their sums the trial's, and the report
/// draws them as a port-to-port heat map. Seventeen lcores share two
/// CPUs: a trial may be tester-bound (said so, exit 3), never miscounted.
#[test]
fn a_four_port_ring_mesh_counts_every_pair_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_mesh(
        4,
        "  tests: [throughput, back_to_back]\n  sizes: [512]\n  trial: 0.2s\n  settle: 0.1s\n  \
         resolution: 25%\n  back_to_back_trials: 1\n  back_to_back_max: 0.02s\n  \
         learning: once\n  restabilise: 0s\n",
    );
    let args = ["--json", "c.json", "--csv", "c.csv", "--html", "c.html"];
    let out = rfc(dir.path(), &yaml, &args);
    let v = read_json(&dir.path().join("c.json"));
    match out.status.code() {
        Some(0) => {}
        Some(3) => {
            for p in v["problems"].as_array().unwrap() {
                assert_eq!(json_str(p, "/kind"), "tester_bound", "{p}");
            }
        }
        other => panic!("exit {other:?}\n{}\n{}", out.stdout, out.stderr),
    }
    assert_eq!(json_str(&v, "/topology"), "mesh");
    assert_eq!(
        v["directions"],
        serde_json::json!([
            "t0 → t1, t2, t3",
            "t1 → t0, t2, t3",
            "t2 → t0, t1, t3",
            "t3 → t0, t1, t2"
        ])
    );
    let pairs = common::full_mesh_pairs(4);
    // Learning: every port teaches the address its three peers send to.
    let learning = &rows(&v, "throughput")[0]["trials"][0]["learning"];
    let taught: Vec<&str> = (learning["addresses"].as_array().unwrap().iter())
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        taught,
        (0..4)
            .map(|j| format!("02:00:00:00:00:0{j} from t{j}"))
            .collect::<Vec<_>>()
    );
    let keys = ["tx_frames", "rx_frames", "lost", "corrupt", "duplicated"];
    let mut trials = 0;
    for test in ["throughput", "back_to_back"] {
        let rows = rows(&v, test);
        assert_eq!(rows.len(), 1, "{test}: the aggregate only");
        assert_eq!(json_str(&rows[0], "/direction"), "aggregate");
        for t in rows[0]["trials"].as_array().unwrap() {
            let shares = common::pairs_sum_to_the_trial(t, &keys);
            let names: Vec<&str> = shares.iter().map(|d| json_str(d, "/direction")).collect();
            assert_eq!(names, pairs);
            for d in shares {
                assert_eq!(
                    json_u64(d, "/rx_frames"),
                    json_u64(d, "/tx_frames"),
                    "a ring mesh loses nothing: {d}"
                );
                assert_eq!(json_u64(d, "/lost") + json_u64(d, "/corrupt"), 0, "{d}");
            }
            // No frame reached a port it was not addressed to.
            assert_eq!(json_u64(t, "/foreign"), 0, "{t}");
            let at: Vec<(&str, u64)> = (t["foreign_at"].as_array().unwrap().iter())
                .map(|f| (json_str(f, "/port"), json_u64(f, "/frames")))
                .collect();
            assert_eq!(at, [("t0", 0), ("t1", 0), ("t2", 0), ("t3", 0)]);
            // Each port offered the trial's % of its line: what they sent
            // is their mean, not their sum.
            if test == "throughput" {
                let (sent, offered) = (json_f64(t, "/sent_pct"), json_f64(t, "/offered_pct"));
                assert!(
                    sent <= offered * 1.05 && sent > 0.0,
                    "sent {sent} % of {offered} %"
                );
            }
            trials += 1;
        }
    }
    assert!(trials >= 2);
    let csv = std::fs::read_to_string(dir.path().join("c.csv")).unwrap();
    for p in &pairs {
        assert!(csv.contains(p.as_str()), "{p} in the CSV");
    }
    let html = std::fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert!(html.contains(r#"<svg class="pairs" id="pairs-throughput-512""#));
    assert_eq!(html.matches(">from t").count(), 4 * 2, "two heat maps");
}

/// A mesh's profile errors, named before the EAL starts.
#[test]
fn a_mesh_that_cannot_be_counted_per_port_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = ring_mesh(3, "  tests: [throughput]\n");
    let auto = yaml.replace(", streams: [s10, s20], verify: full", ", verify: full");
    refused(
        &rfc(dir.path(), &auto, &[]),
        &[
            "cert.yaml:",
            "rx[0].streams: is not listed",
            "each stream is counted at its port",
        ],
    );
    let twice = yaml.replace("streams: [s10, s20]", "streams: [s10, s20, s01]");
    refused(
        &rfc(dir.path(), &twice, &[]),
        &["rx[1].streams", "lists `s01`, which port t0 receives too"],
    );
    let many = yaml.replace("ring_mesh: 3", "ring_mesh: 12");
    refused(
        &rfc(dir.path(), &many, &[]),
        &["eal.ring_mesh: 12 ports: a ring mesh has 2 to 8"],
    );
}

/// A "switch" that delivers each of t0's streams to the wrong port (the
/// ring mesh's queues swapped: `s01`, addressed to t1, leaves on t0's
/// queue toward t2, and `s02` on the one toward t1): every frame of each
/// pair is lost where it was addressed and shows as foreign where it
/// arrived, exactly, so a switch that floods or misdelivers is seen port
/// by port.
#[test]
fn frames_delivered_to_the_wrong_port_are_lost_there_and_foreign_here() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal:\n  cores: [0, 1, 2, 3, 4]\n  cpus: [0, 1, 0, 1, 0]\n  ring_mesh: 3\n  memory_mb: 1024\n\
         ports:\n  - { name: t0, device: net_ring_mesh0, link: 100m, tx_queues: 2 }\n  \
         - { name: t1, device: net_ring_mesh1, link: 100m, rx_queues: 2 }\n  \
         - { name: t2, device: net_ring_mesh2, link: 100m, rx_queues: 2 }\n\
         streams:\n  - { name: s01, ipv4: { src: 198.18.0.1, dst: 198.18.1.1 }, udp: { src: 49152, dst: 7 } }\n  \
         - { name: s02, ipv4: { src: 198.18.0.1, dst: 198.18.2.1 }, udp: { src: 49152, dst: 7 } }\n\
         tx:\n  - { lcore: 1, port: t0, queue: 1, streams: [s01], rate: line, mode: spin }\n  \
         - { lcore: 2, port: t0, queue: 0, streams: [s02], rate: line, mode: spin }\n\
         rx:\n  - { lcore: 3, port: t1, queues: [0, 1], streams: [s01], verify: full }\n  \
         - { lcore: 4, port: t2, queues: [0, 1], streams: [s02], verify: full }\n\
         certify:\n  tests: [loss]\n  sizes: [512]\n  trial: 0.2s\n  settle: 0.1s\n  loss_step: 100%\n  \
         learning: off\n  restabilise: 0s\n";
    let out = rfc(dir.path(), yaml, &["--json", "c.json"]);
    // The first trial received none of its streams: the certification
    // stops there, saying where the frames went.
    out.assert_error(&[
        "port t1, t2 received nothing of the",
        "frames arrived that are of no stream the receiving ports check",
    ]);
    let v = read_json(&dir.path().join("c.json"));
    assert_eq!(json_str(&v, "/topology"), "mesh");
    assert_eq!(v["directions"], serde_json::json!(["t0 → t1, t2"]));
    let t = &v["loss"][0]["points"][0]["trial"];
    let pairs = t["per_direction"].as_array().unwrap();
    let (to1, to2) = (&pairs[0], &pairs[1]);
    assert_eq!(
        (json_str(to1, "/direction"), json_str(to2, "/direction")),
        ("t0 → t1", "t0 → t2")
    );
    for d in pairs {
        assert!(json_u64(d, "/tx_frames") > 0, "{d}");
        assert_eq!(json_u64(d, "/rx_frames"), 0, "{d}");
        assert_eq!(json_u64(d, "/lost"), json_u64(d, "/tx_frames"), "{d}");
        assert_eq!(json_f64(d, "/loss_pct"), 100.0, "{d}");
    }
    // s01's frames arrived at t2, s02's at t1.
    let at = t["foreign_at"].as_array().unwrap();
    assert_eq!(json_str(&at[0], "/port"), "t1");
    assert_eq!(json_u64(&at[0], "/frames"), json_u64(to2, "/tx_frames"));
    assert_eq!(json_str(&at[1], "/port"), "t2");
    assert_eq!(json_u64(&at[1], "/frames"), json_u64(to1, "/tx_frames"));
    assert_eq!(
        json_u64(t, "/foreign"),
        json_u64(t, "/tx_frames"),
        "every frame foreign somewhere"
    );
}
