//! The Prometheus scrape (`GET /metrics`, OpenMetrics text): the counters
//! the OTG metrics carry, per port and per flow, drawn from the same
//! figures at the moment of the scrape.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use serde_json::Value;
use std::sync::atomic::AtomicU64;

use super::engine::Live;
use super::otg::Mapped;

/// A metric's labels.
type Labels = Vec<(String, String)>;

/// A counter family registered under `name`.
fn counters(reg: &mut Registry, name: &str, help: &str) -> Family<Labels, Counter> {
    let f = Family::<Labels, Counter>::default();
    reg.register(name, help, f.clone());
    f
}

/// A float gauge family registered under `name`.
fn gauges(reg: &mut Registry, name: &str, help: &str) -> Family<Labels, Gauge<f64, AtomicU64>> {
    let f = Family::<Labels, Gauge<f64, AtomicU64>>::default();
    reg.register(name, help, f.clone());
    f
}

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
    let running = gauges(
        &mut reg,
        "traffic_running",
        "1 while the engine sends, else 0",
    );
    running
        .get_or_create(&Vec::new())
        .set(if live.is_some_and(|l| !l.ended) {
            1.0
        } else {
            0.0
        });
    let p_frames_tx = counters(
        &mut reg,
        "port_tx_frames",
        "Frames the port's TX tasks handed to the PMD",
    );
    let p_frames_rx = counters(
        &mut reg,
        "port_rx_frames",
        "Frames the port's RX task received",
    );
    let p_bytes_tx = counters(
        &mut reg,
        "port_tx_bytes",
        "Bytes (L2, FCS included) sent by the port",
    );
    let p_bytes_rx = counters(
        &mut reg,
        "port_rx_bytes",
        "Bytes (L2, FCS included) received by the port",
    );
    let p_lost = counters(
        &mut reg,
        "port_rx_lost_frames",
        "Frames of the port's streams lost so far",
    );
    for (p, port_map) in m.ports.iter().enumerate() {
        let v = port(p);
        let l: Labels = vec![("port".into(), port_map.name.clone())];
        p_frames_tx.get_or_create(&l).inc_by(n(&v, "frames_tx"));
        p_frames_rx.get_or_create(&l).inc_by(n(&v, "frames_rx"));
        p_bytes_tx.get_or_create(&l).inc_by(n(&v, "bytes_tx"));
        p_bytes_rx.get_or_create(&l).inc_by(n(&v, "bytes_rx"));
        let lost = live
            .and_then(|l| l.totals.as_ref())
            .and_then(|t| {
                let task = super::api::rx_task_of(m, p)?;
                t["rx"][task]["lost"].as_u64()
            })
            .unwrap_or(0);
        p_lost.get_or_create(&l).inc_by(lost);
    }
    let f_frames_tx = counters(&mut reg, "flow_tx_frames", "Frames of the flow sent");
    let f_frames_rx = counters(
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
        f_frames_tx.get_or_create(&l).inc_by(n(&v, "frames_tx"));
        f_frames_rx.get_or_create(&l).inc_by(n(&v, "frames_rx"));
        f_loss
            .get_or_create(&l)
            .set(v["loss"].as_f64().unwrap_or(0.0) / 100.0);
        for (stat, key) in [
            ("min", "minimum_ns"),
            ("mean", "average_ns"),
            ("max", "maximum_ns"),
        ] {
            if let Some(ns) = v["latency"][key].as_f64() {
                let mut ls = l.clone();
                ls.push(("stat".into(), stat.into()));
                f_latency.get_or_create(&ls).set(ns / 1e9);
            }
        }
    }
    let mut out = String::new();
    encode(&mut out, &reg).expect("writing to a String cannot fail");
    out
}

/// OpenMetrics text as Prometheus's classic text format (0.0.4), for a
/// scraper that does not ask for OpenMetrics (`promtool check metrics`,
/// older Prometheus): a counter's HELP and TYPE name its `_total` sample,
/// and there is no `# EOF`.
pub fn classic(open: &str) -> String {
    let counters: Vec<&str> = open
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(open.len());
    for line in open.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|tag| {
            let rest = line.strip_prefix(tag)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(&name)
                .then(|| format!("{tag}{name}_total {tail}"))
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

/// The scrape before any config: the running gauge alone.
pub fn render_empty() -> String {
    let mut reg = Registry::with_prefix("landspeed");
    gauges(
        &mut reg,
        "traffic_running",
        "1 while the engine sends, else 0",
    )
    .get_or_create(&Vec::new())
    .set(0.0);
    let mut out = String::new();
    encode(&mut out, &reg).expect("writing to a String cannot fail");
    out
}
