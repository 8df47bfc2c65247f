//! `serve`'s Prometheus scrape (`GET /metrics`): the counters the OTG
//! metrics carry, per port and per flow, drawn from the same figures at
//! the moment of the scrape (see [`crate::scrape`] for the text formats).

use prometheus_client::registry::Registry;
use serde_json::Value;

use super::engine::Live;
use super::otg::Mapped;
use crate::scrape::{self, counters, gauges, Labels};

/// `key` of an OTG metric as a count.
fn n(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or(0)
}

/// The scrape for the config `m` and its run `live`; `flow(i)` and
/// `port(p)` give the OTG metrics of flow `i` and port `p`.
pub fn render(
    m: &Mapped,
    live: Option<&Live>,
    flow: impl Fn(usize) -> Value,
    port: impl Fn(usize) -> Value,
) -> String {
    let mut reg = Registry::with_prefix("landspeed");
    scrape::running(&mut reg, live.is_some_and(|l| !l.ended));
    let rows: Vec<(String, [u64; 5])> = (0..m.ports.len())
        .map(|p| {
            let v = port(p);
            let lost = live
                .and_then(|l| l.totals.as_ref())
                .and_then(|t| t["rx"][m.rx_task(p)?]["lost"].as_u64())
                .unwrap_or(0);
            let counts = [
                n(&v, "frames_tx"),
                n(&v, "bytes_tx"),
                n(&v, "frames_rx"),
                n(&v, "bytes_rx"),
                lost,
            ];
            (m.ports[p].name.clone(), counts)
        })
        .collect();
    scrape::ports(&mut reg, &rows);
    let totals = live.and_then(|l| l.totals.as_ref());
    if let Some(t) = totals.and_then(|t| serde_json::from_value(t.clone()).ok()) {
        scrape::lcores(&mut reg, &t);
    }
    if let Some(r) = live.and_then(|l| l.result.as_ref()) {
        outcome(&mut reg, r);
    }
    let f_tx = counters(&mut reg, "flow_tx_frames", "Frames of the flow sent");
    let f_rx = counters(
        &mut reg,
        "flow_rx_frames",
        "Frames of the flow received and verified",
    );
    let f_loss = gauges(
        &mut reg,
        "flow_loss_ratio",
        "Lost frames over sent frames (at the run's end)",
    );
    let f_latency = gauges(
        &mut reg,
        "flow_latency_seconds",
        "One-way latency at the run's end (stat: min, mean, max)",
    );
    for (i, fm) in m.flows.iter().enumerate() {
        let v = flow(i);
        let l: Labels = vec![("flow".into(), fm.name.clone())];
        f_tx.get_or_create(&l).inc_by(n(&v, "frames_tx"));
        f_rx.get_or_create(&l).inc_by(n(&v, "frames_rx"));
        f_loss
            .get_or_create(&l)
            .set(v["loss"].as_f64().unwrap_or(0.0) / 100.0);
        let stats = [
            ("min", "minimum_ns"),
            ("mean", "average_ns"),
            ("max", "maximum_ns"),
        ];
        for (stat, key) in stats {
            if let Some(ns) = v["latency"][key].as_f64() {
                let mut ls = l.clone();
                ls.push(("stat".into(), stat.into()));
                f_latency.get_or_create(&ls).set(ns / 1e9);
            }
        }
    }
    scrape::text(&reg)
}

/// The ended run's outcome from its result `r`: whether it met its
/// target and lasted its duration, its problems by kind, and the limit
/// its verdict names.
fn outcome(reg: &mut Registry, r: &Value) {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let o = &r["outcome"];
    if let Some(met) = o["target_met"].as_bool() {
        gauges(
            reg,
            "run_target_met",
            "1 when every sender reached its target rate in the last run, else 0",
        )
        .get_or_create(&Vec::new())
        .set(flag(met));
    }
    gauges(
        reg,
        "run_complete",
        "1 when the last run lasted its whole duration (no signal stopped it), else 0",
    )
    .get_or_create(&Vec::new())
    .set(flag(o["complete"].as_bool().unwrap_or(false)));
    let problems = gauges(
        reg,
        "run_problems",
        "Problems that cast doubt on the last run's figures, by kind",
    );
    for p in o["problems"].as_array().into_iter().flatten() {
        let kind = p["kind"].as_str().unwrap_or("other").to_string();
        problems.get_or_create(&vec![("kind".into(), kind)]).inc();
    }
    if let Some(limit) = r["verdict"]["binding"].as_str() {
        gauges(
            reg,
            "verdict_binding",
            "1 for the limit the last run's verdict names as binding",
        )
        .get_or_create(&vec![("limit".into(), limit.into())])
        .set(1.0);
    }
}

/// The scrape before any config: the running gauge alone.
pub fn render_empty() -> String {
    let mut reg = Registry::with_prefix("landspeed");
    scrape::running(&mut reg, false);
    scrape::text(&reg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_ended_runs_outcome_is_scraped_by_kind_and_limit() {
        let mut reg = Registry::with_prefix("landspeed");
        outcome(
            &mut reg,
            &json!({
                "outcome": { "complete": false, "target_met": true, "problems": [
                    { "kind": "descheduled" }, { "kind": "descheduled" }, { "kind": "link_down" }
                ] },
                "verdict": { "binding": "cpu" }
            }),
        );
        let text = scrape::text(&reg);
        let mut samples: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
        samples.sort_unstable();
        assert_eq!(
            samples,
            [
                "landspeed_run_complete 0.0",
                "landspeed_run_problems{kind=\"descheduled\"} 2.0",
                "landspeed_run_problems{kind=\"link_down\"} 1.0",
                "landspeed_run_target_met 1.0",
                "landspeed_verdict_binding{limit=\"cpu\"} 1.0",
            ]
        );
        // A run without a paced sender or a verdict says neither.
        let mut reg = Registry::with_prefix("landspeed");
        outcome(
            &mut reg,
            &json!({ "outcome": { "complete": true, "problems": [] } }),
        );
        let text = scrape::text(&reg);
        assert!(!text.contains("target_met") && !text.contains("verdict_binding"));
        assert!(text.contains("landspeed_run_complete 1.0\n"));
    }
}
