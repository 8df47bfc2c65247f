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

/// The scrape before any config: the running gauge alone.
pub fn render_empty() -> String {
    let mut reg = Registry::with_prefix("landspeed");
    scrape::running(&mut reg, false);
    scrape::text(&reg)
}
