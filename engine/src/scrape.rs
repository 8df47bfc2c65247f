//! Prometheus scrapes: the text of a scrape (OpenMetrics, or the classic
//! format for scrapers that do not ask for it), and `landspeed run
//! --metrics ADDR`, a run's live per-port counters on a thread of its
//! own, never on an lcore.
//!
//! The metric names are those `landspeed serve` uses for its ports, so one
//! dashboard (docs/grafana-landspeed.json) reads both.

use std::net::{SocketAddr, TcpListener};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::error::{Error, Result};
use crate::runtime::Totals;

/// A metric's labels.
pub type Labels = Vec<(String, String)>;

/// A counter family registered under `name`.
pub fn counters(reg: &mut Registry, name: &str, help: &str) -> Family<Labels, Counter> {
    let f = Family::<Labels, Counter>::default();
    reg.register(name, help, f.clone());
    f
}

/// A float gauge family registered under `name`.
pub fn gauges(reg: &mut Registry, name: &str, help: &str) -> Family<Labels, Gauge<f64, AtomicU64>> {
    let f = Family::<Labels, Gauge<f64, AtomicU64>>::default();
    reg.register(name, help, f.clone());
    f
}

/// The registry as OpenMetrics text.
pub fn text(reg: &Registry) -> String {
    let mut out = String::new();
    encode(&mut out, reg).expect("writing to a String cannot fail");
    out
}

/// The scrape's running gauge: 1 while the engine sends.
pub fn running(reg: &mut Registry, on: bool) {
    gauges(reg, "traffic_running", "1 while the engine sends, else 0")
        .get_or_create(&Vec::new())
        .set(if on { 1.0 } else { 0.0 });
}

/// Per-port counters: `(port, tx frames, tx bytes, rx frames, rx bytes,
/// rx lost)`, registered under the names `serve` uses.
pub fn ports(reg: &mut Registry, rows: &[(String, [u64; 5])]) {
    let names = [
        (
            "port_tx_frames",
            "Frames the port's TX tasks handed to the PMD",
        ),
        ("port_tx_bytes", "Bytes (L2, FCS included) sent by the port"),
        ("port_rx_frames", "Frames the port's RX task received"),
        (
            "port_rx_bytes",
            "Bytes (L2, FCS included) received by the port",
        ),
        (
            "port_rx_lost_frames",
            "Frames of the port's streams lost so far",
        ),
    ];
    let families: Vec<_> = names.iter().map(|(n, h)| counters(reg, n, h)).collect();
    for (port, values) in rows {
        let l: Labels = vec![("port".into(), port.clone())];
        for (f, v) in families.iter().zip(values) {
            f.get_or_create(&l).inc_by(*v);
        }
    }
}

/// Per-lcore gauges from the totals `t`: each worker's descheduled share
/// and each RX lcore's busy share over the latest interval, where known.
pub fn lcores(reg: &mut Registry, t: &Totals) {
    let desched = gauges(
        reg,
        "lcore_descheduled_ratio",
        "Share of the latest interval the lcore's thread waited for its CPU or had it stolen \
         (above 0.05 its cycle figures are not trusted)",
    );
    let busy = gauges(
        reg,
        "lcore_busy_ratio",
        "Share of the latest interval the RX lcore spent on polls that returned frames",
    );
    let sides = (t.tx.iter().map(|k| ("tx", k))).chain(t.rx.iter().map(|k| ("rx", k)));
    for (role, task) in sides {
        let l: Labels = vec![
            ("role".into(), role.into()),
            ("lcore".into(), task.lcore.to_string()),
            ("port".into(), task.port.clone()),
        ];
        if let Some(d) = task.descheduled {
            desched.get_or_create(&l).set(d);
        }
        if let Some(b) = task.busy {
            busy.get_or_create(&l).set(b);
        }
    }
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

/// The HTTP answer for a scrape whose OpenMetrics text is `open`: as
/// OpenMetrics when the scraper's `Accept` asks for it (as Prometheus
/// does), else in the classic format.
pub fn respond(headers: &HeaderMap, open: String) -> Response {
    let wants_open = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/openmetrics-text"));
    if wants_open {
        let kind = "application/openmetrics-text; version=1.0.0; charset=utf-8";
        ([(header::CONTENT_TYPE, kind)], open).into_response()
    } else {
        let kind = "text/plain; version=0.0.4; charset=utf-8";
        ([(header::CONTENT_TYPE, kind)], classic(&open)).into_response()
    }
}

/// A run's counters as a scrape: per port, from the newest totals.
pub fn render_totals(t: Option<&Totals>) -> String {
    let mut reg = Registry::with_prefix("landspeed");
    running(&mut reg, t.is_some_and(|t| !t.last));
    let mut rows: Vec<(String, [u64; 5])> = Vec::new();
    if let Some(t) = t {
        let sides =
            t.tx.iter()
                .map(|k| (k, 0))
                .chain(t.rx.iter().map(|k| (k, 2)));
        for (task, at) in sides {
            let i = match rows.iter().position(|r| r.0 == task.port) {
                Some(i) => i,
                None => {
                    rows.push((task.port.clone(), [0; 5]));
                    rows.len() - 1
                }
            };
            rows[i].1[at] += task.frames;
            rows[i].1[at + 1] += task.bytes;
            rows[i].1[4] += task.lost.unwrap_or(0);
        }
    }
    ports(&mut reg, &rows);
    if let Some(t) = t {
        lcores(&mut reg, t);
    }
    text(&reg)
}

/// The newest totals of a run, shared with its scrape endpoint.
pub type Latest = Arc<Mutex<Option<Totals>>>;

/// Binds `--metrics ADDR` before the run starts (a taken port is an error
/// now, not after the EAL has started). Loopback only: a scrape from
/// elsewhere goes through `serve`, with TLS and a token.
pub fn bind(addr: SocketAddr) -> Result<TcpListener> {
    let option = |message: String| Error::Option {
        option: format!("--metrics {addr}"),
        message,
    };
    if !addr.ip().is_loopback() {
        return Err(option(
            "only a loopback address: a scrape from another host goes through \
             `landspeed serve` (TLS and a token)"
                .into(),
        ));
    }
    let l = TcpListener::bind(addr).map_err(|e| option(e.to_string()))?;
    l.set_nonblocking(true).map_err(|e| option(e.to_string()))?;
    Ok(l)
}

/// Serves `GET /metrics` from `latest` on a thread of its own until the
/// process ends.
pub fn spawn(listener: TcpListener, latest: Latest) -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Serve(format!("--metrics: {e}")))?;
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            rt.block_on(async move {
                let app = axum::Router::new().route(
                    "/metrics",
                    axum::routing::get(move |headers: HeaderMap| {
                        let latest = latest.clone();
                        async move {
                            let t = latest.lock().unwrap_or_else(|p| p.into_inner()).clone();
                            respond(&headers, render_totals(t.as_ref()))
                        }
                    }),
                );
                if let Ok(l) = tokio::net::TcpListener::from_std(listener) {
                    let _ = axum::serve(l, app).await;
                }
            })
        })
        .map_err(|e| Error::Serve(format!("--metrics: {e}")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::TaskTotals;

    /// A task's totals.
    fn task(port: &str, frames: u64, lost: Option<u64>) -> TaskTotals {
        TaskTotals {
            port: port.into(),
            lcore: frames as u32,
            frames,
            bytes: frames * 100,
            lost,
            descheduled: None,
            busy: None,
            streams: Vec::new(),
        }
    }

    #[test]
    fn a_run_scrapes_as_per_port_sums() {
        let t = Totals {
            t_s: 1.0,
            last: false,
            tx: vec![
                task("p0", 10, None),
                task("p0", 5, None),
                task("p1", 7, None),
            ],
            rx: vec![TaskTotals {
                descheduled: Some(0.25),
                busy: Some(0.5),
                ..task("p1", 12, Some(3))
            }],
        };
        let open = render_totals(Some(&t));
        // A family's samples come in no set order.
        let mut samples: Vec<&str> = open.lines().filter(|l| !l.starts_with('#')).collect();
        samples.sort_unstable();
        let mut want = [
            "landspeed_traffic_running 1.0",
            "landspeed_port_tx_frames_total{port=\"p0\"} 15",
            "landspeed_port_tx_frames_total{port=\"p1\"} 7",
            "landspeed_port_tx_bytes_total{port=\"p0\"} 1500",
            "landspeed_port_tx_bytes_total{port=\"p1\"} 700",
            "landspeed_port_rx_frames_total{port=\"p0\"} 0",
            "landspeed_port_rx_frames_total{port=\"p1\"} 12",
            "landspeed_port_rx_bytes_total{port=\"p0\"} 0",
            "landspeed_port_rx_bytes_total{port=\"p1\"} 1200",
            "landspeed_port_rx_lost_frames_total{port=\"p0\"} 0",
            "landspeed_port_rx_lost_frames_total{port=\"p1\"} 3",
            "landspeed_lcore_descheduled_ratio{role=\"rx\",lcore=\"12\",port=\"p1\"} 0.25",
            "landspeed_lcore_busy_ratio{role=\"rx\",lcore=\"12\",port=\"p1\"} 0.5",
        ];
        want.sort_unstable();
        assert_eq!(samples, want);
        let ended = Totals { last: true, ..t };
        assert!(render_totals(Some(&ended)).contains("landspeed_traffic_running 0.0\n"));
    }

    #[test]
    fn the_classic_format_names_a_counter_by_its_sample() {
        let open = "# HELP landspeed_traffic_running 1 while sending.\n\
                    # TYPE landspeed_traffic_running gauge\n\
                    landspeed_traffic_running 1.0\n\
                    # HELP landspeed_port_tx_frames Frames.\n\
                    # TYPE landspeed_port_tx_frames counter\n\
                    landspeed_port_tx_frames_total{port=\"p0\"} 15\n\
                    # EOF\n";
        assert_eq!(
            classic(open),
            "# HELP landspeed_traffic_running 1 while sending.\n\
             # TYPE landspeed_traffic_running gauge\n\
             landspeed_traffic_running 1.0\n\
             # HELP landspeed_port_tx_frames_total Frames.\n\
             # TYPE landspeed_port_tx_frames_total counter\n\
             landspeed_port_tx_frames_total{port=\"p0\"} 15\n"
        );
    }
}
