//! The OTG endpoints: config, control state, metrics, version; and the
//! Prometheus scrape of the same counters.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::sync::Mutex;

use super::engine::{Live, Run};
use super::fanout::{self, Fan, There};
use super::otg::{self, Host, Mapped};
use super::peer::Peers;
use crate::outcome::Problem;

/// The largest request body taken (a config with many flows fits).
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// How long a stop waits for the engine to end.
const STOP_WAIT: Duration = Duration::from_secs(60);

/// The server's state.
pub struct Served {
    /// The landspeed binary the engine runs as.
    pub exe: PathBuf,
    /// What the mapping needs from this host.
    pub host: Host,
    /// The bearer token every request must carry, if any.
    pub token: Option<String>,
    /// The other hosts' servers a config's ports may be on.
    pub peers: Peers,
    /// How far ahead a fanned-out start is set, for every host's ports to
    /// come up first.
    pub lead: Duration,
    /// The config and the current (or last) run.
    pub now: Mutex<Now>,
}

/// The config and its run.
#[derive(Default)]
pub struct Now {
    /// The config set last.
    pub config: Option<Mapped>,
    /// The run of it, running or ended.
    pub run: Option<Run>,
    /// The ports (by index) whose capture the client started: the next
    /// traffic start captures on them.
    pub capturing: Vec<usize>,
    /// The fanned-out run, when the config's ports are on other hosts too.
    pub fan: Option<Arc<Fan>>,
}

/// An OTG error response: `{code, kind, errors}` with the HTTP status.
pub struct OtgError {
    code: StatusCode,
    kind: &'static str,
    errors: Vec<String>,
}

impl OtgError {
    /// A request the model or landspeed refuses (400).
    pub fn validation(e: impl Into<String>) -> Self {
        OtgError {
            code: StatusCode::BAD_REQUEST,
            kind: "validation",
            errors: vec![e.into()],
        }
    }

    /// A request that conflicts with what runs (409).
    fn conflict(e: impl Into<String>) -> Self {
        OtgError {
            code: StatusCode::CONFLICT,
            kind: "validation",
            errors: vec![e.into()],
        }
    }

    /// The engine failed (500).
    fn internal(e: impl Into<String>) -> Self {
        OtgError {
            code: StatusCode::INTERNAL_SERVER_ERROR,
            kind: "internal",
            errors: vec![e.into()],
        }
    }
}

impl IntoResponse for OtgError {
    fn into_response(self) -> Response {
        let body = json!({ "code": self.code.as_u16(), "kind": self.kind, "errors": self.errors });
        (self.code, Json(body)).into_response()
    }
}

/// A handler's answer.
type Answer = Result<Response, OtgError>;

/// OTG's success for set-config and control: its warnings.
fn warnings(w: &[String]) -> Response {
    Json(json!({ "warnings": w })).into_response()
}

/// The request body as JSON, or the OTG error naming what is wrong.
fn body(bytes: &Bytes) -> Result<Value, OtgError> {
    serde_json::from_slice(bytes)
        .map_err(|e| OtgError::validation(format!("the request body is not JSON: {e}")))
}

/// The router with every endpoint, behind the token check.
pub fn router(state: Arc<Served>) -> Router {
    Router::new()
        .route("/config", post(set_config).get(get_config))
        .route("/control/state", post(control_state))
        .route("/monitor/metrics", post(metrics))
        .route("/monitor/capture", post(capture))
        .route("/capabilities/version", get(version))
        .route("/metrics", get(prometheus))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            authorise,
        ))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Refuses a request without the bearer token (401), when there is one.
async fn authorise(State(s): State<Arc<Served>>, req: Request, next: Next) -> Response {
    if let Some(token) = &s.token {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let ok = given.is_some_and(|g| constant_time_eq(g.as_bytes(), token.as_bytes()));
        if !ok {
            return OtgError {
                code: StatusCode::UNAUTHORIZED,
                kind: "validation",
                errors: vec!["a bearer token is required (Authorization: Bearer …)".into()],
            }
            .into_response();
        }
    }
    next.run(req).await
}

/// Compares two secrets in a time that does not depend on where they
/// differ.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The run exists and has not ended (here, or on any host of a
/// fanned-out run).
fn running(now: &Now) -> bool {
    now.run.as_ref().is_some_and(|r| !r.ended()) || now.fan.as_ref().is_some_and(|f| !f.done())
}

/// `POST /config`.
async fn set_config(State(s): State<Arc<Served>>, bytes: Bytes) -> Answer {
    let config = body(&bytes)?;
    let mut now = s.now.lock().await;
    if running(&now) {
        return Err(OtgError::conflict(
            "traffic is running: stop it before setting a config",
        ));
    }
    let mapped = otg::map(&config, &s.host).map_err(OtgError::validation)?;
    let mut w = mapped.warnings.clone();
    now.config = None;
    now.run = None;
    now.fan = None;
    now.capturing.clear();
    if !mapped.peers.is_empty() {
        let theirs = fanout::set_config(&s.peers, &mapped).await;
        w.extend(theirs.map_err(OtgError::validation)?);
    }
    now.config = Some(mapped);
    Ok(warnings(&w))
}

/// `GET /config`.
async fn get_config(State(s): State<Arc<Served>>) -> Answer {
    let now = s.now.lock().await;
    let c = now
        .config
        .as_ref()
        .map_or_else(|| json!({}), |m| m.config.clone());
    Ok(Json(c).into_response())
}

/// `POST /control/state`: traffic start and stop, port capture start and
/// stop.
async fn control_state(State(s): State<Arc<Served>>, headers: HeaderMap, bytes: Bytes) -> Answer {
    let v = body(&bytes)?;
    let state = match (v["choice"].as_str(), v["traffic"]["choice"].as_str()) {
        (Some("traffic"), Some("flow_transmit")) => v["traffic"]["flow_transmit"]["state"].as_str(),
        (Some("traffic"), c) => {
            return Err(OtgError::validation(format!(
                "traffic.choice: {} is not supported",
                c.unwrap_or("(none)")
            )))
        }
        (Some("port"), _) => return port_capture(&s, &v).await,
        (c, _) => {
            return Err(OtgError::validation(format!(
                "choice: {} is not supported",
                c.unwrap_or("(none)")
            )))
        }
    };
    let names = &v["traffic"]["flow_transmit"]["flow_names"];
    if names.as_array().is_some_and(|n| !n.is_empty()) {
        return Err(OtgError::validation(
            "traffic.flow_transmit.flow_names: every flow starts and stops together: leave it empty",
        ));
    }
    match state {
        Some("start") => {
            let at = headers.get(fanout::START_AT).and_then(|v| v.to_str().ok());
            start_traffic(&s, at.map(str::to_string)).await
        }
        Some("stop") => {
            let now = s.now.lock().await;
            if let (Some(fan), Some(m)) = (&now.fan, &now.config) {
                let w = stop_everywhere(&s, &now, m).await;
                fan.finish();
                return Ok(warnings(&w));
            }
            let Some(r) = &now.run else {
                return Ok(warnings(&[]));
            };
            r.stop(STOP_WAIT).await.map_err(OtgError::internal)?;
            let w = run_warnings(r.live().result.as_ref());
            Ok(warnings(&w))
        }
        Some("pause") => Err(OtgError::validation(
            "traffic.flow_transmit.state: pause is not supported (stop, then start)",
        )),
        other => Err(OtgError::validation(format!(
            "traffic.flow_transmit.state: {} is not supported",
            other.unwrap_or("(none)")
        ))),
    }
}

/// The problems of an ended run's result `r` (a missed target, a link
/// that went down, a descheduled lcore, port errors …), each as the line
/// its summary prints: OTG's warnings, so that a client sees what casts
/// doubt on the figures its metrics give.
fn run_warnings(r: Option<&Value>) -> Vec<String> {
    let problems = r.and_then(|r| r["outcome"]["problems"].as_array());
    (problems.into_iter().flatten())
        .map(|p| match serde_json::from_value::<Problem>(p.clone()) {
            Ok(p) => p.text(),
            Err(_) => p.to_string(),
        })
        .collect()
}

/// The port `name` went down during the ended run whose result is `r`.
fn link_went_down(r: Option<&Value>, name: &str) -> bool {
    let problems = r.and_then(|r| r["outcome"]["problems"].as_array());
    (problems.into_iter().flatten()).any(|p| p["kind"] == "link_down" && p["port"] == name)
}

/// A traffic start: the engine runs the config, capturing on the ports
/// whose capture was started. `at`: the instant a fanned-out start
/// carries (this host's share of another server's config).
async fn start_traffic(s: &Arc<Served>, at: Option<String>) -> Answer {
    let mut now = s.now.lock().await;
    if running(&now) {
        return Err(OtgError::conflict("traffic is running already"));
    }
    let Some(m) = &now.config else {
        return Err(OtgError::validation("no config is set"));
    };
    if m.flows.is_empty() {
        return Err(OtgError::validation(
            "flows: the config has no flow to start",
        ));
    }
    let m = m.clone();
    let capturing = now.capturing.clone();
    now.run = None;
    now.fan = None;
    if !m.peers.is_empty() {
        return fan_out(s, &mut now, m).await;
    }
    let run = start_here(s, &m, &capturing, at).await;
    now.run = run.transpose().map_err(OtgError::internal)?;
    Ok(warnings(&[]))
}

/// This host's engine of `m`, capturing on the ports `capturing`, when
/// the config gives it tasks; started at the wall-clock instant `at`
/// (seconds since the epoch) and running until stopped, when given one.
async fn start_here(
    s: &Served,
    m: &Mapped,
    capturing: &[usize],
    at: Option<String>,
) -> Option<Result<Run, String>> {
    if !m.runs_here {
        return None;
    }
    let extra: Vec<String> = match at {
        Some(t) => vec!["--start-at".into(), t, "--until-stopped".into()],
        None => Vec::new(),
    };
    let make = |dir: &std::path::Path| otg::with_captures(&m.profile, m, capturing, dir);
    Some(Run::start(&s.exe, &extra, make).await)
}

/// A traffic start of a config with ports on other hosts: every host's
/// engine (this one's too, if it has a share) starts at one instant and
/// runs until this server stops them all; a watcher does so once every
/// fixed flow is sent or no port sends any more. A host that fails to
/// start stops the others.
async fn fan_out(s: &Arc<Served>, now: &mut Now, m: Mapped) -> Answer {
    let at = fanout::start_instant(s.lead);
    let capturing = now.capturing.clone();
    let here = start_here(s, &m, &capturing, Some(format!("{at:.6}")));
    let (here, (started, error)) = tokio::join!(here, fanout::start(&s.peers, &m, at));
    let (run, error) = match here {
        Some(Ok(r)) => (Some(r), error),
        Some(Err(e)) => (None, Some(e)),
        None => (None, error),
    };
    if let Some(e) = error {
        let _ = fanout::stop(&s.peers, &started).await;
        if let Some(r) = &run {
            let _ = r.stop(STOP_WAIT).await;
        }
        return Err(OtgError::internal(e));
    }
    let fan = Arc::new(Fan::default());
    now.run = run;
    now.fan = Some(fan.clone());
    let bound = s.lead + Duration::from_secs_f64(m.duration_s) + STOP_WAIT;
    tokio::spawn(watch(
        s.clone(),
        m,
        fan,
        tokio::time::Instant::now() + bound,
    ));
    Ok(warnings(&[]))
}

/// Watches a fanned-out run's port metrics on every host and stops every
/// engine once it is [`fanout::finished`], a host stops answering, or
/// `deadline` passes (a run that outlives its duration: a client that
/// vanished leaves nothing running).
async fn watch(s: Arc<Served>, m: Mapped, fan: Arc<Fan>, deadline: tokio::time::Instant) {
    let mut failures = fanout::Failures::default();
    loop {
        tokio::time::sleep(fanout::WATCH_EVERY).await;
        if fan.done() {
            return;
        }
        let over = match fanout::metrics(&s.peers, &m, "port").await {
            Ok(there) => {
                failures.give_up(true);
                let now = s.now.lock().await;
                let here = local_ports(&now, &m);
                drop(now);
                fanout::finished(&m, &fanout::join_ports(&m, &here, &there))
            }
            Err(_) => failures.give_up(false),
        };
        if over || tokio::time::Instant::now() >= deadline {
            let now = s.now.lock().await;
            if !fan.done() {
                stop_everywhere(&s, &now, &m).await;
                fan.finish();
            }
            return;
        }
    }
}

/// Stops the engine here and on every other host of `m`, all at once;
/// the problems of every run, those of other hosts after their address.
async fn stop_everywhere(s: &Served, now: &Now, m: &Mapped) -> Vec<String> {
    let addrs: Vec<String> = m.peers.iter().map(|p| p.addr.clone()).collect();
    let here = async {
        let Some(r) = &now.run else {
            return Vec::new();
        };
        match r.stop(STOP_WAIT).await {
            Ok(()) => run_warnings(r.live().result.as_ref()),
            Err(e) => vec![e],
        }
    };
    let (mut w, there) = tokio::join!(here, fanout::stop(&s.peers, &addrs));
    w.extend(there);
    w
}

/// This host's metrics of every port of `m`.
fn local_ports(now: &Now, m: &Mapped) -> Vec<Value> {
    let live = now.run.as_ref().map(|r| r.live());
    (0..m.ports.len())
        .map(|p| port_metric(m, p, live.as_deref(), now.capturing.contains(&p)))
        .collect()
}

/// `port.capture` of a control state: start marks the ports the next
/// traffic start captures on (none named: every captured port), stop
/// unmarks them.
async fn port_capture(s: &Served, v: &Value) -> Answer {
    match v["port"]["choice"].as_str() {
        Some("capture") => {}
        c => {
            return Err(OtgError::validation(format!(
                "port.choice: {} is not supported (capture)",
                c.unwrap_or("(none)")
            )))
        }
    }
    let c = &v["port"]["capture"];
    let mut now = s.now.lock().await;
    let Some(m) = &now.config else {
        return Err(OtgError::validation("no config is set"));
    };
    let mut ports = Vec::new();
    let names = c["port_names"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    for (k, n) in names.iter().enumerate() {
        let at = format!("port.capture.port_names[{k}]");
        let name = n.as_str().unwrap_or_default();
        let p = (m.ports.iter().position(|p| p.name == name))
            .ok_or_else(|| OtgError::validation(format!("{at}: {n} is no port of the config")))?;
        if !m.captures.iter().any(|c| c.port == p) {
            return Err(OtgError::validation(format!(
                "{at}: {name} is in no capture of the config"
            )));
        }
        ports.push(p);
    }
    if names.is_empty() {
        ports = m.captures.iter().map(|c| c.port).collect();
    }
    match c["state"].as_str() {
        Some("start") => {
            if running(&now) {
                return Err(OtgError::conflict(
                    "traffic is running: a capture starts with the traffic (start it before)",
                ));
            }
            for p in ports {
                if !now.capturing.contains(&p) {
                    now.capturing.push(p);
                }
            }
            Ok(warnings(&[]))
        }
        Some("stop") => {
            now.capturing.retain(|p| !ports.contains(p));
            let w = if running(&now) {
                vec!["port.capture: a capture ends with the traffic that runs".to_string()]
            } else {
                Vec::new()
            };
            Ok(warnings(&w))
        }
        other => Err(OtgError::validation(format!(
            "port.capture.state: {} is not supported",
            other.unwrap_or("(none)")
        ))),
    }
}

/// `GET /capabilities/version`.
async fn version() -> Json<Value> {
    Json(json!({
        "api_spec_version": otg::API_SPEC_VERSION,
        "sdk_version": "",
        "app_version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `POST /monitor/capture`: a captured port's pcap file, once the traffic
/// that made it has ended.
async fn capture(State(s): State<Arc<Served>>, bytes: Bytes) -> Answer {
    let v = body(&bytes)?;
    let now = s.now.lock().await;
    let Some(m) = &now.config else {
        return Err(OtgError::validation("no config is set"));
    };
    let name = v["port_name"].as_str().unwrap_or_default();
    let Some(p) = m.ports.iter().position(|p| p.name == name) else {
        return Err(OtgError::validation(format!(
            "port_name: {} is no port of the config",
            v["port_name"]
        )));
    };
    match v["packets"]["choice"].as_str() {
        None | Some("all") => {}
        Some(c) => {
            return Err(OtgError::validation(format!(
                "packets.choice: {c} is not supported (all)"
            )))
        }
    }
    let file = now
        .run
        .as_ref()
        .and_then(|r| r.captures.iter().find(|(q, _)| *q == p))
        .map(|(_, f)| f);
    let Some(file) = file else {
        return Err(OtgError::validation(format!(
            "port_name: {name} was not captured: start its capture (control state \
             port.capture) before the traffic"
        )));
    };
    if running(&now) {
        return Err(OtgError::conflict(
            "traffic is running: the capture is written when it stops",
        ));
    }
    let data = std::fs::read(file)
        .map_err(|e| OtgError::internal(format!("the capture of {name}: {e}")))?;
    Ok(([(header::CONTENT_TYPE, "application/octet-stream")], data).into_response())
}

/// A task's counters in a totals line: `(frames, bytes)`.
fn counts(totals: Option<&Value>, side: &str, task: usize) -> Option<(u64, u64)> {
    let t = totals?.get(side)?.get(task)?;
    Some((t["frames"].as_u64()?, t["bytes"].as_u64()?))
}

/// Stream `id`'s intact frames and bytes so far on RX task `task`, in a
/// totals line (none received yet: zero).
fn stream_counts(totals: Option<&Value>, task: usize, id: u32) -> Option<(u64, u64)> {
    let streams = totals?.get("rx")?.get(task)?;
    let s = (streams["streams"].as_array().into_iter().flatten())
        .find(|s| s["id"].as_u64() == Some(u64::from(id)));
    Some(s.map_or((0, 0), |s| {
        (
            s["frames"].as_u64().unwrap_or(0),
            s["bytes"].as_u64().unwrap_or(0),
        )
    }))
}

/// Frames per second between the last two totals, of the count `count`
/// reads from a totals line (0 once the run has ended).
fn rate(live: &Live, count: impl Fn(&Value) -> Option<(u64, u64)>) -> f64 {
    let (Some(now), Some(at), Some((prev, pat))) = (&live.totals, live.at, &live.prev) else {
        return 0.0;
    };
    let dt = at.duration_since(*pat).as_secs_f64();
    match (count(now), count(prev)) {
        (Some(a), Some(b)) if dt > 0.0 && !live.ended => a.0.saturating_sub(b.0) as f64 / dt,
        _ => 0.0,
    }
}

/// Frames per second of task `task` (`side`: `tx` or `rx`).
fn fps(live: &Live, side: &str, task: usize) -> f64 {
    rate(live, |t| counts(Some(t), side, task))
}

/// Frames per second of stream `id` on RX task `task`.
fn stream_fps(live: &Live, task: usize, id: u32) -> f64 {
    rate(live, |t| stream_counts(Some(t), task, id))
}

/// The indices, among `all`, of the flows or ports (`kind`) a metrics
/// request names in `{kind}.{kind}_names` (none named: all of them), or
/// the error naming one the config does not have.
fn chosen(v: &Value, kind: &str, all: &[&str]) -> Result<Vec<usize>, OtgError> {
    let list = format!("{kind}_names");
    let names: Vec<&str> = v[kind][&list]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(n) = names.iter().find(|n| !all.contains(n)) {
        return Err(OtgError::validation(format!(
            "{kind}.{list}: {n} is no {kind} of the config"
        )));
    }
    Ok((0..all.len())
        .filter(|&i| names.is_empty() || names.contains(&all[i]))
        .collect())
}

/// One flow's OTG metrics.
fn flow_metric(m: &Mapped, i: usize, live: Option<&Live>) -> Value {
    let f = &m.flows[i];
    let mut out = json!({
        "name": f.name,
        "port_tx": m.ports[f.tx_port].name,
        "port_rx": m.ports[f.rx_port].name,
        "transmit": "stopped",
        "frames_tx": 0, "frames_rx": 0, "bytes_tx": 0, "bytes_rx": 0,
        "frames_tx_rate": 0.0, "frames_rx_rate": 0.0, "loss": 0.0,
    });
    let Some(live) = live else { return out };
    if !live.ended {
        out["transmit"] = json!("started");
    }
    if let Some(task) = f.tx_task {
        if let Some((frames, bytes)) = counts(live.totals.as_ref(), "tx", task) {
            out["frames_tx"] = json!(frames);
            out["bytes_tx"] = json!(bytes);
            out["frames_tx_rate"] = json!(fps(live, "tx", task));
        }
    }
    // While the run goes on, the flow's intact frames so far on its
    // port's RX task (a count per stream, published once per run of
    // frames in a poll).
    if let (Some(task), None) = (m.rx_task(f.rx_port), &live.result) {
        let now = stream_counts(live.totals.as_ref(), task, f.stream_id);
        if let Some((frames, bytes)) = now {
            out["frames_rx"] = json!(frames);
            out["bytes_rx"] = json!(bytes);
            out["frames_rx_rate"] = json!(stream_fps(live, task, f.stream_id));
        }
    }
    if let (Some(r), true) = (&live.result, m.ports[f.rx_port].here()) {
        received(&mut out, f, r);
    }
    out
}

/// A flow's receiving side in its metrics `out`, from the ended run's
/// result `r` on the host of its RX port: its frames, loss and latency
/// (all lost when its stream never arrived). A flow sent from another
/// host also gets its distinct frames received, from which the server
/// that fanned the config out works out its loss.
fn received(out: &mut Value, f: &otg::FlowMap, r: &Value) {
    let stream = (r["rx"]["streams"].as_array().into_iter().flatten())
        .find(|s| s["id"].as_u64() == Some(u64::from(f.stream_id)));
    let null = Value::Null;
    let s = stream.unwrap_or(&null);
    let frames = s["frames"].as_u64().unwrap_or(0);
    out["frames_rx"] = json!(frames);
    out["bytes_rx"] = json!(s["bytes"].as_u64().unwrap_or(0));
    // OTG's loss: frames sent that never arrived, over frames sent (a
    // duplicate is no arrival of another frame).
    let unique = s["unique"].as_u64().unwrap_or(frames);
    let sent = out["frames_tx"].as_u64().unwrap_or(0);
    if sent > 0 {
        out["loss"] = json!(100.0 * sent.saturating_sub(unique) as f64 / sent as f64);
    }
    if f.tx_task.is_none() {
        out["landspeed"] = json!({ "frames_rx_unique": unique });
    }
    let arrivals = s["arrivals_unix_ns"].as_array().filter(|a| a.len() == 2);
    if let (true, Some(a)) = (f.timestamps, arrivals) {
        out["timestamps"] = json!({
            "first_timestamp_ns": a[0].as_f64().unwrap_or(0.0),
            "last_timestamp_ns": a[1].as_f64().unwrap_or(0.0),
        });
    }
    if f.latency && stream.is_some() {
        let l = &s["latency"];
        out["latency"] = json!({
            "minimum_ns": l["min_ns"].as_f64().unwrap_or(0.0),
            "maximum_ns": l["max_ns"].as_f64().unwrap_or(0.0),
            "average_ns": l["mean_ns"].as_f64().unwrap_or(0.0),
        });
    }
}

/// One port's OTG metrics; `capturing`: its capture is started.
fn port_metric(m: &Mapped, p: usize, live: Option<&Live>, capturing: bool) -> Value {
    let mut out = json!({
        "name": m.ports[p].name, "location": m.ports[p].location,
        "link": "up", "capture": "stopped", "transmit": "stopped",
        "frames_tx": 0, "frames_rx": 0, "bytes_tx": 0, "bytes_rx": 0,
        "frames_tx_rate": 0.0, "frames_rx_rate": 0.0,
    });
    if capturing {
        out["capture"] = json!("started");
    }
    let Some(live) = live else { return out };
    if link_went_down(live.result.as_ref(), &m.ports[p].name) {
        out["link"] = json!("down");
    }
    let (mut ft, mut bt, mut rate) = (0, 0, 0.0);
    for task in m
        .flows
        .iter()
        .filter(|f| f.tx_port == p)
        .filter_map(|f| f.tx_task)
    {
        if let Some((a, b)) = counts(live.totals.as_ref(), "tx", task) {
            ft += a;
            bt += b;
            rate += fps(live, "tx", task);
        }
    }
    out["frames_tx"] = json!(ft);
    out["bytes_tx"] = json!(bt);
    out["frames_tx_rate"] = json!(rate);
    if let Some(task) = m.rx_task(p) {
        if let Some((a, b)) = counts(live.totals.as_ref(), "rx", task) {
            out["frames_rx"] = json!(a);
            out["bytes_rx"] = json!(b);
            out["frames_rx_rate"] = json!(fps(live, "rx", task));
        }
    }
    if !live.ended
        && m.flows
            .iter()
            .any(|f| f.tx_port == p && f.tx_task.is_some())
    {
        out["transmit"] = json!("started");
    }
    out
}

/// `POST /monitor/metrics`: flow or port metrics (of a fanned-out
/// config: joined from every host).
async fn metrics(State(s): State<Arc<Served>>, bytes: Bytes) -> Answer {
    let v = body(&bytes)?;
    let now = s.now.lock().await;
    let Some(m) = &now.config else {
        return Err(OtgError::validation("no config is set"));
    };
    let choice = match v["choice"].as_str() {
        Some(c @ ("flow" | "port")) => c,
        other => {
            return Err(OtgError::validation(format!(
                "choice: {} is not supported (flow or port)",
                other.unwrap_or("(none)")
            )))
        }
    };
    let there = match m.peers.is_empty() {
        true => Vec::new(),
        false => (fanout::metrics(&s.peers, m, choice).await).map_err(OtgError::internal)?,
    };
    let (flows, ports) = match choice {
        "flow" => all_metrics(&now, m, &there, &[]),
        _ => all_metrics(&now, m, &[], &there),
    };
    if choice == "flow" {
        let all: Vec<&str> = m.flows.iter().map(|f| f.name.as_str()).collect();
        let chosen = chosen(&v, "flow", &all)?;
        let list: Vec<Value> = (chosen.into_iter())
            .filter(|&i| m.flows[i].metrics)
            .map(|i| flows[i].clone())
            .collect();
        Ok(Json(json!({ "choice": "flow_metrics", "flow_metrics": list })).into_response())
    } else {
        let all: Vec<&str> = m.ports.iter().map(|p| p.name.as_str()).collect();
        let list: Vec<Value> = (chosen(&v, "port", &all)?.into_iter())
            .map(|p| ports[p].clone())
            .collect();
        Ok(Json(json!({ "choice": "port_metrics", "port_metrics": list })).into_response())
    }
}

/// The metrics of every flow and every port of `m`: this host's, joined
/// with the other hosts' flow and port metrics when the config is fanned
/// out.
fn all_metrics(
    now: &Now,
    m: &Mapped,
    flows_there: &There,
    ports_there: &There,
) -> (Vec<Value>, Vec<Value>) {
    let live = now.run.as_ref().map(|r| r.live());
    let flows: Vec<Value> = (0..m.flows.len())
        .map(|i| flow_metric(m, i, live.as_deref()))
        .collect();
    drop(live);
    let ports = local_ports(now, m);
    if m.peers.is_empty() {
        return (flows, ports);
    }
    (
        fanout::join_flows(m, &flows, flows_there),
        fanout::join_ports(m, &ports, ports_there),
    )
}

/// `GET /metrics`: the port and flow counters, in OpenMetrics text when
/// the scraper asks for it (as Prometheus does), else in the classic text
/// format. A fanned-out config's flows and ports are joined from every
/// host; the lcores and the outcome are this host's.
async fn prometheus(State(s): State<Arc<Served>>, headers: HeaderMap) -> Response {
    let now = s.now.lock().await;
    let text = match &now.config {
        Some(m) => {
            let (mut ft, mut pt) = (Vec::new(), Vec::new());
            if !m.peers.is_empty() {
                ft = fanout::metrics(&s.peers, m, "flow")
                    .await
                    .unwrap_or_default();
                pt = fanout::metrics(&s.peers, m, "port")
                    .await
                    .unwrap_or_default();
            }
            let (flows, ports) = all_metrics(&now, m, &ft, &pt);
            let live = now.run.as_ref().map(|r| r.live());
            super::prom::render(
                m,
                live.as_deref(),
                |i| flows[i].clone(),
                |p| ports[p].clone(),
            )
        }
        None => super::prom::render_empty(),
    };
    crate::scrape::respond(&headers, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result whose run had a port go down and an lcore descheduled.
    fn result() -> Value {
        json!({ "outcome": { "complete": true, "target_met": false, "problems": [
            { "kind": "link_down", "port": "p2", "side": "RX", "down_at_s": 1.5,
              "down_s": 0.25, "outages": 1, "down_at_end": false },
            { "kind": "descheduled", "role": "TX", "lcore": 1, "descheduled_pct": 12.5,
              "wait_ns": 125_000_000, "stolen_ns": 0, "wall_ns": 1_000_000_000 },
            { "kind": "from_a_newer_engine", "x": 1 }
        ] } })
    }

    #[test]
    fn a_runs_problems_are_its_warnings_line_by_line() {
        let r = result();
        let w = run_warnings(Some(&r));
        assert_eq!(w.len(), 3);
        assert_eq!(
            w[0],
            "the link of port p2 (RX) went down 1.50 s into the run: down 0.25 s in all, 1 time(s)"
        );
        assert!(
            w[1].contains("TX lcore 1") && w[1].contains("12.5 %"),
            "{}",
            w[1]
        );
        assert_eq!(
            w[2], r#"{"kind":"from_a_newer_engine","x":1}"#,
            "kept as it came"
        );
        assert!(run_warnings(None).is_empty());
        assert!(run_warnings(Some(&json!({ "outcome": { "problems": [] } }))).is_empty());
    }

    #[test]
    fn a_port_whose_link_went_down_is_down_in_its_metrics() {
        let r = result();
        assert!(link_went_down(Some(&r), "p2"));
        assert!(!link_went_down(Some(&r), "p1"));
        assert!(!link_went_down(None, "p2"));
    }

    /// Flows `east` p1 → p2 and `west` p2 → p1, with latency and
    /// timestamps; p2 is on another host when `fanned`.
    fn mapped(fanned: bool) -> Mapped {
        let flow = |name: &str, tx: &str, rx: &str| {
            json!({ "name": name,
                "tx_rx": { "choice": "port", "port": { "tx_name": tx, "rx_names": [rx] } },
                "packet": [ { "choice": "ethernet", "ethernet": {} }, { "choice": "ipv4", "ipv4": {} },
                            { "choice": "udp", "udp": {} } ],
                "duration": { "choice": "fixed_packets", "fixed_packets": { "packets": 100 } },
                "metrics": { "enable": true, "timestamps": true, "latency": { "enable": true } } })
        };
        let p2 = if fanned {
            "192.0.2.2:8443;net_ring1"
        } else {
            "net_ring1"
        };
        let config = json!({
            "ports": [ { "name": "p1", "location": "net_ring0" }, { "name": "p2", "location": p2 } ],
            "flows": [ flow("east", "p1", "p2"), flow("west", "p2", "p1") ]
        });
        let host = Host {
            cpus: vec![0],
            max_duration_s: 60,
            clock_error: None,
        };
        otg::map(&config, &host).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An ended run that sent 100 frames of each flow here and received
    /// `west` (stream 2): 98 frames, 97 of them distinct.
    fn ended() -> Live {
        let totals = json!({ "tx": [ { "frames": 100, "bytes": 6400 }, { "frames": 100, "bytes": 6400 } ],
                             "rx": [ { "frames": 98, "bytes": 6272 } ] });
        let result = json!({ "rx": { "streams": [ { "id": 2, "frames": 98, "bytes": 6272, "unique": 97,
            "latency": { "min_ns": 1000.0, "max_ns": 3000.0, "mean_ns": 2000.0 },
            "arrivals_unix_ns": [1_000_000_000u64, 1_020_000_000u64] } ] } });
        Live {
            totals: Some(totals),
            ended: true,
            result: Some(result),
            ..Live::default()
        }
    }

    #[test]
    fn a_flows_metrics_come_from_the_result_of_the_host_that_received_it() {
        let m = mapped(false);
        let live = ended();
        let west = flow_metric(&m, 1, Some(&live));
        assert_eq!(
            west,
            json!({ "name": "west", "port_tx": "p2", "port_rx": "p1", "transmit": "stopped",
                "frames_tx": 100, "bytes_tx": 6400, "frames_rx": 98, "bytes_rx": 6272,
                "frames_tx_rate": 0.0, "frames_rx_rate": 0.0, "loss": 3.0,
                "timestamps": { "first_timestamp_ns": 1e9, "last_timestamp_ns": 1.02e9 },
                "latency": { "minimum_ns": 1000.0, "maximum_ns": 3000.0, "average_ns": 2000.0 } })
        );
        // A flow the result has no stream of: every frame sent was lost.
        let east = flow_metric(&m, 0, Some(&live));
        assert_eq!(
            (east["frames_rx"].as_u64(), east["loss"].as_f64()),
            (Some(0), Some(100.0))
        );
        assert!(east.get("timestamps").is_none() && east.get("latency").is_none());
    }

    #[test]
    fn a_host_that_receives_a_flow_sent_elsewhere_gives_its_distinct_frames() {
        let m = mapped(true);
        let live = Live {
            totals: Some(
                json!({ "tx": [ { "frames": 100, "bytes": 6400 } ], "rx": [ { "frames": 98, "bytes": 6272 } ] }),
            ),
            ..ended()
        };
        let west = flow_metric(&m, 1, Some(&live));
        assert_eq!(west["frames_tx"], json!(0), "sent from the other host");
        assert_eq!(west["frames_rx"], json!(98));
        assert_eq!(west["landspeed"], json!({ "frames_rx_unique": 97 }));
        assert_eq!(
            west["loss"],
            json!(0.0),
            "the server that fanned out works it out"
        );
        // East is received on the other host: nothing of it is said here.
        let east = flow_metric(&m, 0, Some(&live));
        assert_eq!(
            (east["frames_tx"].as_u64(), east["frames_rx"].as_u64()),
            (Some(100), Some(0))
        );
        assert_eq!(east["loss"], json!(0.0));
        assert!(east.get("landspeed").is_none());
        // Its port metrics: p1 sends east here; p2 sends nothing here.
        assert_eq!(
            port_metric(&m, 0, Some(&live), false)["frames_tx"],
            json!(100)
        );
        assert_eq!(
            port_metric(&m, 1, Some(&live), false)["frames_tx"],
            json!(0)
        );
    }

    #[test]
    fn a_ports_metrics_while_it_runs_are_its_tasks_counts_and_rates() {
        let m = mapped(false);
        let at = std::time::Instant::now();
        let earlier = at.checked_sub(Duration::from_secs(2)).unwrap();
        let tx = |a: u64, b: u64| json!([ { "frames": a, "bytes": a * 64 }, { "frames": b, "bytes": b * 64 } ]);
        let live = Live {
            totals: Some(json!({ "tx": tx(100, 50), "rx": [ { "frames": 40, "bytes": 2560 } ] })),
            prev: Some((
                json!({ "tx": tx(20, 10), "rx": [ { "frames": 0, "bytes": 0 } ] }),
                earlier,
            )),
            at: Some(at),
            ..Live::default()
        };
        let p1 = port_metric(&m, 0, Some(&live), true);
        assert_eq!(
            p1,
            json!({ "name": "p1", "location": "net_ring0", "link": "up", "capture": "started",
                "transmit": "started", "frames_tx": 100, "bytes_tx": 6400, "frames_rx": 0,
                "bytes_rx": 0, "frames_tx_rate": 40.0, "frames_rx_rate": 0.0 })
        );
        let p2 = port_metric(&m, 1, Some(&live), false);
        assert_eq!(
            (p2["frames_tx"].as_u64(), p2["bytes_tx"].as_u64()),
            (Some(50), Some(3200))
        );
        assert_eq!(p2["frames_tx_rate"], json!(20.0));
        assert_eq!(
            (p2["frames_rx"].as_u64(), p2["frames_rx_rate"].as_f64()),
            (Some(40), Some(20.0))
        );
        let ended = Live {
            ended: true,
            ..live
        };
        assert_eq!(
            port_metric(&m, 0, Some(&ended), false)["transmit"],
            json!("stopped")
        );
        // A port that sends no flow from here never transmits.
        let fanned = mapped(true);
        let running = Live {
            ended: false,
            ..ended
        };
        assert_eq!(
            port_metric(&fanned, 1, Some(&running), false)["transmit"],
            json!("stopped")
        );
        assert_eq!(
            port_metric(&fanned, 0, Some(&running), false)["transmit"],
            json!("started")
        );
    }

    #[test]
    fn every_flow_and_port_has_metrics_joined_from_every_host() {
        let m = mapped(false);
        let now = Now::default();
        let (flows, ports) = all_metrics(&now, &m, &[], &[]);
        let names = |v: &[Value]| -> Vec<String> {
            v.iter()
                .map(|x| x["name"].as_str().unwrap_or("").to_string())
                .collect()
        };
        assert_eq!(names(&flows), ["east", "west"]);
        assert_eq!(names(&ports), ["p1", "p2"]);
        assert_eq!(local_ports(&now, &m), ports);
        let m = mapped(true);
        let theirs = |name: &str, frames_tx: u64| json!({ "name": name, "frames_tx": frames_tx, "transmit": "started" });
        let there = vec![(
            "192.0.2.2:8443".to_string(),
            vec![theirs("east", 0), theirs("west", 77)],
        )];
        let ports_there = vec![(
            "192.0.2.2:8443".to_string(),
            vec![theirs("p1", 0), theirs("p2", 77)],
        )];
        let (flows, ports) = all_metrics(&now, &m, &there, &ports_there);
        assert_eq!(
            flows[1]["frames_tx"],
            json!(77),
            "west is sent from the other host"
        );
        assert_eq!(flows[0]["frames_tx"], json!(0));
        assert_eq!(ports[1]["frames_tx"], json!(77));
        assert_eq!(ports[1]["location"], json!("192.0.2.2:8443;net_ring1"));
        assert_eq!(names(&ports), ["p1", "p2"]);
    }
}
