//! `scripts/bench --quick` runs and its output is well formed: a markdown
//! table on stdout and, with `--json`, every case with numeric frames/s
//! for landspeed and dpdk-testpmd and their ratio.
//!
//! No speed is asserted: the figures are benchmarks, not pass/fail tests
//! (docs/benchmarks.md holds them). Skipped, with a message, where
//! dpdk-testpmd (Debian package `dpdk`) or python3 is missing.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::host::Need;

/// The quick mode takes under a minute; a loaded host gets some slack.
const WATCHDOG: Duration = Duration::from_secs(240);

/// Every case the bench measures.
const CASES: [&str; 8] = [
    "tx64", "tx1518", "tx9130", "rx64", "rx1518", "rx9130", "rxs64", "rxs9130",
];

fn num(v: &Value, key: &str, case: &str) -> f64 {
    v.get(key)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("case {case}: `{key}` is not a number: {v}"))
}

#[test]
fn bench_quick_prints_table_and_json() {
    let needs = [
        Need::Program("dpdk-testpmd", "scripts/bench needs it"),
        Need::Program("python3", "scripts/bench needs it"),
    ];
    if common::host::skip("bench", "bench_quick_prints_table_and_json", &needs) {
        return;
    }
    // It runs landspeed and dpdk-testpmd on both CPUs: nothing else runs
    // meanwhile.
    let _alone = common::alone();
    let root = Path::new(common::ROOT);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("bench.json");
    let stdout_path = dir.path().join("stdout");
    let stderr_path = dir.path().join("stderr");
    let mut child = Command::new(root.join("scripts/bench"))
        .args(["--quick", "--json"])
        .arg(&json)
        .env("LANDSPEED", common::BIN)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout_path).unwrap())
        .stderr(std::fs::File::create(&stderr_path).unwrap())
        .spawn()
        .expect("scripts/bench starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "scripts/bench --quick still ran after {WATCHDOG:?}\n--- stderr\n{}",
                std::fs::read_to_string(&stderr_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = std::fs::read_to_string(&stdout_path).unwrap();
    let stderr = std::fs::read_to_string(&stderr_path).unwrap();
    assert!(
        status.success(),
        "scripts/bench --quick failed with {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );

    // The markdown table: a header, its rule, and one row per case.
    let header = stdout
        .lines()
        .position(|l| l.starts_with("| case | frame B |"))
        .unwrap_or_else(|| panic!("no throughput table on stdout:\n{stdout}"));
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[header + 1].starts_with("|---"),
        "no table rule:\n{stdout}"
    );
    for case in CASES {
        let row = lines
            .iter()
            .find(|l| l.starts_with(&format!("| {case} |")))
            .unwrap_or_else(|| panic!("no row for {case}:\n{stdout}"));
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(
            cells.len(),
            9,
            "row for {case} has {} cells: {row}",
            cells.len()
        );
        for (i, what) in [(3, "landspeed"), (4, "testpmd"), (5, "ratio")] {
            let v: f64 = cells[i]
                .replace(',', "")
                .parse()
                .unwrap_or_else(|_| panic!("{case}: {what} cell `{}` is not a number", cells[i]));
            assert!(v > 0.0, "{case}: {what} is {v}");
        }
    }
    assert!(
        stdout.contains("### Targets"),
        "no targets table:\n{stdout}"
    );

    // The JSON: every case, numeric and positive, with a ratio.
    let text = std::fs::read_to_string(&json).expect("--json wrote its file");
    let v: Value = serde_json::from_str(&text).expect("the JSON parses");
    assert_eq!(v["format"], "landspeed-bench 1");
    assert_eq!(v["quick"], true);
    let cases = v["cases"].as_array().expect("cases is a list");
    for name in CASES {
        let c = cases
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("case {name} missing from the JSON"));
        let ls = num(c, "landspeed_fps_median", name);
        let tp = num(c, "testpmd_fps_median", name);
        let ratio = num(c, "ratio", name);
        assert!(ls > 0.0 && tp > 0.0, "{name}: frames/s {ls} and {tp}");
        assert!(ratio > 0.0, "{name}: ratio {ratio}");
        assert!(
            (ratio - ls / tp).abs() <= 1e-9 * ratio,
            "{name}: ratio {ratio} is not {ls} / {tp}"
        );
        assert!(num(c, "landspeed_cycles_per_frame", name) > 0.0);
        assert!(num(c, "frame_size", name) >= 64.0);
    }
    let pacing = v["pacing"].as_array().expect("pacing is a list");
    assert!(!pacing.is_empty(), "no pacing runs");
    for p in pacing {
        assert!(p["achieved_fps"].as_f64().is_some_and(|x| x > 0.0), "{p}");
        assert!(p["error_ns"]["p99"].is_u64(), "{p}");
    }
}

/// `--case`/`--cases` with a name that is no case: exit 2 and one line
/// naming it and the known cases, before anything is built or run (the
/// binary given is not even looked at).
#[test]
fn bench_refuses_unknown_case_names() {
    let root = Path::new(common::ROOT);
    let known = "tx64, tx1518, tx9130, rx64, rx1518, rx9130, rxs64, rxs9130, \
                 line64spin, line64burst, line1518spin, line9130spin, line9130burst, 5g9130spin";
    for (args, bad) in [
        (&["--cases", "tx64,rxs46"][..], "rxs46"),
        (&["--case", "tx64", "--case", "TX64"][..], "TX64"),
        (&["--quick", "--case", "line64"][..], "line64"),
    ] {
        let out = Command::new(root.join("scripts/bench"))
            .args(args)
            .env("LANDSPEED", "/nonexistent/landspeed")
            .current_dir(root)
            .stdin(Stdio::null())
            .output()
            .expect("scripts/bench starts");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}: printed a table");
        assert_eq!(
            stderr,
            format!("bench: unknown case `{bad}` (known: {known})\n"),
            "{args:?}"
        );
    }
}
