//! The PSPacer comparison on recorded traces, and the CPU verdict of a
//! receiver slowed on purpose.
//!
//! Two 2-second runs on the null PMD record every departure: one paced at a
//! constant 450 Mbit/s, one at the same average in on/off bursts of 500
//! frames at line rate. Replayed through a 500 Mbit/s bottleneck with a
//! 4 MB buffer, the paced trace loses nothing and the bursty one loses
//! frames. The receive test slows its RX lcore by 20,000 cycles a frame and
//! expects the verdict to name the CPU with the cycles it measured.

use crate::common;

use crate::common::{json_f64, json_str, json_u64, landspeed, run_profile};

fn traced(pattern: &str, trace: &str) -> String {
    format!(
        "eal: {{ cores: [0, 1], vdevs: [net_null0] }}\n\
         ports: [ {{ name: p0, device: net_null0, link: 10g }} ]\n\
         streams: [ {{ name: s, frame_size: 9130 }} ]\n\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 450M\n    mode: spin\n    pattern: {pattern}\n    trace: {trace}\n    trace_frames: 1000000\n\
         run: {{ duration: 2s }}\n"
    )
}

/// Parses `landspeed replay --json` output.
fn replay(dir: &std::path::Path, trace: &str) -> serde_json::Value {
    let out = landspeed(
        dir,
        [
            "replay",
            trace,
            "--bottleneck",
            "500M",
            "--buffer",
            "4MB",
            "--json",
        ],
    );
    out.assert_success();
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("replay JSON: {e}\n{}", out.stdout))
}

#[test]
fn paced_trace_loses_nothing_where_bursts_lose_frames() {
    // Both runs alone and back to back: a run beside them would stall the
    // paced sender and turn its trace bursty.
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let (_, paced) = run_profile(dir.path(), "paced", &traced("cbr", "paced.trace"), &[]);
    let (_, bursty) = run_profile(
        dir.path(),
        "bursty",
        &traced("{ onoff: { burst: 500, seed: 1 } }", "bursty.trace"),
        &[],
    );
    // Both offered the same average rate.
    for v in [&paced, &bursty] {
        let pct = json_f64(v, "/tx/tasks/0/achieved_pct");
        assert!(pct > 90.0, "achieved {pct} % of 450 Mbit/s");
    }

    let p = replay(dir.path(), "paced.trace");
    let b = replay(dir.path(), "bursty.trace");
    assert_eq!(
        json_u64(&p, "/frames"),
        json_u64(&paced, "/tx/frames"),
        "every departure was traced"
    );
    assert_eq!(json_u64(&b, "/frames"), json_u64(&bursty, "/tx/frames"));
    assert_eq!(
        json_u64(&p, "/dropped"),
        0,
        "paced traffic lost frames: {p}"
    );
    assert!(json_u64(&b, "/dropped") > 0, "bursts lost nothing: {b}");
    assert!(json_u64(&b, "/peak_queue_bytes") > json_u64(&p, "/peak_queue_bytes"));
}

#[test]
fn slowed_receiver_is_cpu_bound_with_its_cycles() {
    let _alone = common::alone();
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal: { cores: [0, 1], vdevs: [\"net_null0,size=1518\"] }\n\
                ports: [ { name: p0, device: net_null0, link: 10g } ]\n\
                rx: [ { lcore: 1, port: p0, verify: none, slowdown_cycles: 20000 } ]\n\
                run: { duration: 1s }\n";
    let (out, v) = run_profile(dir.path(), "slow", yaml, &[]);
    assert_eq!(json_str(&v, "/verdict/binding"), "cpu", "{}", out.stdout);
    let cpf = json_f64(&v, "/rx/tasks/0/cycles_per_frame");
    // Each frame costs at least the 20,000 cycles spent on purpose; the
    // span from the first to the last arrival leaves out one poll's worth
    // of work, hence the small margin.
    assert!(cpf >= 19_000.0, "cycles per frame {cpf} below the slowdown");
    assert!(
        cpf < 40_000.0,
        "cycles per frame {cpf}: more than twice the slowdown"
    );
    let explanation = json_str(&v, "/verdict/explanation");
    assert!(explanation.contains("cycles/frame"), "{explanation}");
    assert!(
        out.stdout.contains("verdict: cpu bound the run"),
        "{}",
        out.stdout
    );
}
