//! A config whose ports are on several hosts (`HOST:PORT;DEVICE`): this
//! server sends every other host's server its share over the OTG API,
//! starts every engine at one instant of the synchronised clock, stops
//! them all once every fixed flow is sent, and joins each flow's metrics:
//! what was sent from the sending host, what arrived from the receiving
//! one. No private protocol: each host is an OTG server, and the one
//! extension is the start instant a fanned-out traffic start carries
//! ([`START_AT`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use tokio::task::JoinSet;

use super::otg::{Home, Mapped};
use super::peer::{PeerError, Peers};

pub use super::peer::START_AT;

/// How often the watcher reads every host's port metrics.
pub const WATCH_EVERY: Duration = Duration::from_millis(250);

/// Failed readings in a row after which the watcher gives a host up and
/// stops every engine.
const WATCH_FAILURES: u32 = 8;

/// A fanned-out run: running until [`Fan::done`].
#[derive(Debug, Default)]
pub struct Fan {
    /// Every engine has been stopped (or has ended).
    done: AtomicBool,
}

impl Fan {
    /// The run is over on every host.
    pub fn done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Marks the run over.
    pub fn finish(&self) {
        self.done.store(true, Ordering::Release);
    }
}

/// The index of the first port at `addr` (for the paths of errors).
fn first_port(m: &Mapped, addr: &str) -> usize {
    (m.ports.iter())
        .position(|p| p.home == Home::Peer(addr.into()))
        .unwrap_or(0)
}

/// Sends each other host its config; their warnings, each after the host
/// it came from, or the first refusal, after the path of the first port
/// located there.
pub async fn set_config(peers: &Peers, m: &Mapped) -> Result<Vec<String>, String> {
    for p in &m.peers {
        let at = format!("ports[{}].location", first_port(m, &p.addr));
        peers.reachable(&p.addr, &at)?;
    }
    let mut warnings = Vec::new();
    for p in &m.peers {
        let at = format!("ports[{}].location", first_port(m, &p.addr));
        let v = (peers.post(&p.addr, "/config", &p.config, None).await)
            .map_err(|e| format!("{at}: the server there refuses its share: {e}"))?;
        prefixed(&mut warnings, &p.addr, &v);
    }
    Ok(warnings)
}

/// Appends the `warnings` of a peer's answer `v` to `out`, after `addr`.
fn prefixed(out: &mut Vec<String>, addr: &str, v: &Value) {
    let w = v["warnings"].as_array().into_iter().flatten();
    out.extend(w.filter_map(Value::as_str).map(|w| format!("{addr}: {w}")));
}

/// The instant `lead` from now, in seconds since the Unix epoch.
pub fn start_instant(lead: Duration) -> f64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (now + lead).as_secs_f64()
}

/// The body of a traffic start or stop.
fn traffic(state: &str) -> Value {
    json!({ "choice": "traffic", "traffic": { "choice": "flow_transmit",
            "flow_transmit": { "state": state } } })
}

/// Starts the traffic on every other host, at `at`, all at once; the
/// hosts that started, and the first error.
pub async fn start(peers: &Peers, m: &Mapped, at: f64) -> (Vec<String>, Option<PeerError>) {
    let mut set = JoinSet::new();
    for p in &m.peers {
        let (peers, addr) = (peers.clone(), p.addr.clone());
        set.spawn(async move {
            let r = peers
                .post(&addr, "/control/state", &traffic("start"), Some(at))
                .await;
            (addr, r)
        });
    }
    let (mut started, mut error) = (Vec::new(), None);
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((addr, Ok(_))) => started.push(addr),
            Ok((_, Err(e))) => error = error.or(Some(e)),
            Err(e) => error = error.or(Some(format!("a start: {e}"))),
        }
    }
    (started, error)
}

/// Stops the traffic on the hosts `addrs`, all at once; their warnings
/// (the problems of their runs), each after its host.
pub async fn stop(peers: &Peers, addrs: &[String]) -> Vec<String> {
    let mut set = JoinSet::new();
    for addr in addrs {
        let (peers, addr) = (peers.clone(), addr.clone());
        set.spawn(async move {
            let r = peers
                .post(&addr, "/control/state", &traffic("stop"), None)
                .await;
            (addr, r)
        });
    }
    let mut warnings = Vec::new();
    while let Some(joined) = set.join_next().await {
        match joined {
            Ok((addr, Ok(v))) => prefixed(&mut warnings, &addr, &v),
            Ok((_, Err(e))) => warnings.push(format!("stopping {e}")),
            Err(e) => warnings.push(format!("a stop: {e}")),
        }
    }
    warnings.sort();
    warnings
}

/// Every other host's metrics of kind `choice` (`flow` or `port`), by its
/// address: its list of metrics.
pub async fn metrics(
    peers: &Peers,
    m: &Mapped,
    choice: &str,
) -> Result<Vec<(String, Vec<Value>)>, PeerError> {
    let body = json!({ "choice": choice });
    let key = format!("{choice}_metrics");
    let mut out = Vec::new();
    for p in &m.peers {
        let v = peers.post(&p.addr, "/monitor/metrics", &body, None).await?;
        let list = v[&key].as_array().cloned().unwrap_or_default();
        out.push((p.addr.clone(), list));
    }
    Ok(out)
}

/// Other hosts' metrics lists, by address.
pub type There = [(String, Vec<Value>)];

/// The metric called `name` in the list of the host `home` (this host:
/// `here`).
fn of<'a>(home: &Home, name: &str, here: &'a [Value], there: &'a There) -> Option<&'a Value> {
    let list = match home {
        Home::Peer(addr) => &there.iter().find(|(a, _)| a == addr)?.1[..],
        Home::Here | Home::Remote => here,
    };
    list.iter().find(|v| v["name"] == name)
}

/// The metrics of every flow of `m`, joined: each flow's sending side
/// from the host of its TX port, its receiving side from the host of its
/// RX port (an empty object where a host gave none). `here`: this host's
/// metrics of every flow; `there`: the other hosts'.
pub fn join_flows(m: &Mapped, here: &[Value], there: &There) -> Vec<Value> {
    let host = |p: usize| match &m.ports[p].home {
        Home::Peer(addr) => Some(addr),
        Home::Here | Home::Remote => None,
    };
    (m.flows.iter())
        .map(|f| {
            let (t, r) = (host(f.tx_port), host(f.rx_port));
            let tx = of(&m.ports[f.tx_port].home, &f.name, here, there);
            match (tx, of(&m.ports[f.rx_port].home, &f.name, here, there)) {
                (Some(tx), Some(_)) if t == r => tx.clone(),
                (Some(tx), Some(rx)) => join_flow(tx, rx),
                _ => json!({}),
            }
        })
        .collect()
}

/// One flow's metrics from the host that sent it (`tx`) and another one
/// that received it (`rx`): the receiving side's counts and latency, and
/// the loss of the frames sent that never arrived once the receiver has
/// its result.
pub fn join_flow(tx: &Value, rx: &Value) -> Value {
    let mut out = tx.clone();
    for key in [
        "frames_rx",
        "bytes_rx",
        "frames_rx_rate",
        "latency",
        "timestamps",
    ] {
        match rx.get(key) {
            Some(v) => out[key] = v.clone(),
            None => {
                out.as_object_mut().map(|o| o.remove(key));
            }
        }
    }
    // The sending host does not receive the flow: its own loss figure
    // means nothing.
    out["loss"] = json!(0.0);
    if let Some(unique) = rx["landspeed"]["frames_rx_unique"].as_u64() {
        let sent = out["frames_tx"].as_u64().unwrap_or(0);
        if sent > 0 {
            out["loss"] = json!(100.0 * sent.saturating_sub(unique) as f64 / sent as f64);
        }
    }
    out.as_object_mut().map(|o| o.remove("landspeed"));
    out
}

/// The metrics of every port of `m`, from its host, with the location
/// the client gave (an empty object where its host gave none).
pub fn join_ports(m: &Mapped, here: &[Value], there: &There) -> Vec<Value> {
    (m.ports.iter())
        .map(|p| match of(&p.home, &p.name, here, there) {
            Some(v) => {
                let mut v = v.clone();
                v["location"] = json!(p.location);
                v
            }
            None => json!({}),
        })
        .collect()
}

/// What the watcher concludes from every host's port metrics `ports`
/// (joined, in the config's order): every fixed-packet flow has sent its
/// frames (and every flow is one), or no port transmits any more.
pub fn finished(m: &Mapped, ports: &[Value]) -> bool {
    let sending: Vec<usize> = (0..m.ports.len())
        .filter(|&p| m.flows.iter().any(|f| f.tx_port == p))
        .collect();
    let frames_tx = |p: usize| {
        ports
            .get(p)
            .and_then(|v| v["frames_tx"].as_u64())
            .unwrap_or(0)
    };
    let all_fixed = m.flows.iter().all(|f| f.packets.is_some());
    let all_sent = all_fixed
        && sending.iter().all(|&p| {
            let due: u64 = (m.flows.iter().filter(|f| f.tx_port == p))
                .filter_map(|f| f.packets)
                .sum();
            frames_tx(p) >= due
        });
    let idle = sending
        .iter()
        .all(|&p| ports.get(p).is_some_and(|v| v["transmit"] == "stopped"));
    all_sent || idle
}

/// The watcher's tally of failed readings.
#[derive(Debug, Default)]
pub struct Failures(u32);

impl Failures {
    /// Counts a reading: true once [`WATCH_FAILURES`] have failed in a row.
    pub fn give_up(&mut self, ok: bool) -> bool {
        self.0 = if ok { 0 } else { self.0 + 1 };
        self.0 >= WATCH_FAILURES
    }
}

#[cfg(test)]
mod tests;
