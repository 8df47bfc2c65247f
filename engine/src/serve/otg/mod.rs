//! The Open Traffic Generator (OTG) model's data-plane subset, read from
//! the JSON a client such as `snappi` sends (`POST /config`), and mapped
//! onto a landspeed profile: one OTG port is a profile port, one flow a
//! stream sent by a TX task of its own (a queue of its port), each
//! receiving port one RX task.
//!
//! The reader walks the JSON by path and refuses what it does not map,
//! naming the path as OTG errors do (`flows[0].packet[2].choice: gtpv1 is
//! not supported`): nothing of a config is silently ignored. Where OTG and
//! landspeed differ in a way a figure depends on (a random pattern's
//! `count`), the mapping says so in the response's warnings.

mod capture;
mod flow;
mod packet;
mod pattern;
mod place;
mod read;

use serde_json::{json, Map, Value};

pub use capture::{with_captures, CaptureMap};
use flow::{device, duration, rate, size, speed, Lasts, L1};
use packet::{headers, Headers};
pub use place::{Home, Peer, REMOTE};
use read::{choice, join, opt, req, At};

/// The most values a pattern's `increment` or `decrement` may expand to
/// (a landspeed list), and the most frame sizes a size pattern may.
pub const MAX_VALUES: u64 = 65_536;

/// The OTG model version this mapping reads (snappi's `api_spec_version`).
pub const API_SPEC_VERSION: &str = "1.62.0";

/// What the mapping needs from the host: the CPUs the engine's lcores may
/// run on, and how long a flow without an end may run.
#[derive(Clone, Debug)]
pub struct Host {
    /// Online CPUs; lcores are spread over them in turn.
    pub cpus: Vec<u32>,
    /// The longest a run may last (a `continuous` flow's, a fixed-packet
    /// run's bound).
    pub max_duration_s: u64,
    /// The error of this host's synchronised clock its operator vouches
    /// for (`serve --clock-error`), given to the tasks of flows between
    /// two hosts.
    pub clock_error: Option<String>,
}

/// One OTG port and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct PortMap {
    /// The OTG port's name.
    pub name: String,
    /// Its `location` as given.
    pub location: String,
    /// Where it is.
    pub home: Home,
    /// Its device where it is (empty for a `remote` port).
    pub device: String,
}

impl PortMap {
    /// The port is on this host.
    pub fn here(&self) -> bool {
        self.home == Home::Here
    }
}

/// One OTG flow as the engine runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowMap {
    /// The flow's name.
    pub name: String,
    /// Index of its TX port in [`Mapped::ports`].
    pub tx_port: usize,
    /// Index of its RX port in [`Mapped::ports`].
    pub rx_port: usize,
    /// The landspeed stream id carried in its frames' stamps.
    pub stream_id: u32,
    /// Its TX task's index in the profile's `tx:` list (`None`: it is
    /// sent from another host).
    pub tx_task: Option<usize>,
    /// `metrics.enable`: the flow has flow metrics.
    pub metrics: bool,
    /// `metrics.latency.enable`: its metrics carry latency.
    pub latency: bool,
    /// `metrics.timestamps`: its metrics carry the first and last
    /// arrival's wall-clock time.
    pub timestamps: bool,
    /// The frames a `fixed_packets` flow sends.
    pub packets: Option<u64>,
}

/// An OTG config mapped onto a landspeed profile.
#[derive(Clone, Debug)]
pub struct Mapped {
    /// The config as the client sent it (returned by `GET /config`).
    pub config: Value,
    /// The profile the engine runs (YAML; JSON flow style inside).
    pub profile: String,
    /// The ports, in the config's order.
    pub ports: Vec<PortMap>,
    /// The flows, in the config's order.
    pub flows: Vec<FlowMap>,
    /// What the client should know (OTG's `warnings`).
    pub warnings: Vec<String>,
    /// The captured ports.
    pub captures: Vec<CaptureMap>,
    /// The ports with an RX task, in the profile's `rx:` order: those
    /// flows are received on, in the order flows first name them, then
    /// the captured ports that receive no flow.
    pub rx_ports: Vec<usize>,
    /// The other hosts the config is fanned out to (ports located
    /// `HOST:PORT;DEVICE`).
    pub peers: Vec<Peer>,
    /// This host has tasks to run: a flow sent or received on a port
    /// here, or a captured port.
    pub runs_here: bool,
    /// The run's duration in seconds (the longest for flows without
    /// fixed seconds).
    pub duration_s: f64,
}

impl Mapped {
    /// The RX task of port `p` in the profile's `rx:` list, if it has one.
    pub fn rx_task(&self, p: usize) -> Option<usize> {
        self.rx_ports.iter().position(|&q| q == p)
    }
}

/// A refusal: `path: why`, as OTG's error `errors` list carries it.
pub type Refusal = String;

/// The parts a config maps to, before they are made into the profile.
struct Parts {
    /// The ports, in the config's order.
    ports: Vec<PortMap>,
    /// Each port's `layer1` settings, by index in `ports`.
    l1: Vec<L1>,
    /// The flows, in the config's order.
    flows: Vec<FlowMap>,
    /// Each flow's stream, as the profile's `streams:` lists it.
    streams: Vec<Map<String, Value>>,
    /// How long each flow sends.
    lasts: Vec<Lasts>,
    /// Each flow's rate, as its TX task's `rate`.
    rates: Vec<String>,
    /// What the client should know (OTG's `warnings`).
    warnings: Vec<String>,
    /// The captured ports.
    captures: Vec<CaptureMap>,
}

/// Maps an OTG config onto a landspeed profile.
pub fn map(config: &Value, host: &Host) -> Result<Mapped, Refusal> {
    let top = top_level(config)?;
    let ports = ports(top)?;
    let l1 = layer1(top, &ports)?;
    let mut warnings = Vec::new();
    let captures = capture::captures(top, &ports, &mut warnings)?;
    if let Some(c) = captures.iter().find(|c| !ports[c.port].here()) {
        return Err(format!(
            "captures: {} is on another host: capture it from that host's server",
            ports[c.port].name
        ));
    }
    let mut parts = Parts {
        ports,
        l1,
        flows: Vec::new(),
        streams: Vec::new(),
        lasts: Vec::new(),
        rates: Vec::new(),
        warnings,
        captures,
    };
    for (i, v) in opt(top, "", "flows", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        one_flow(&mut parts, i, v)?;
    }
    build(config, host, parts)
}

/// The config's top-level object, refused when it holds what landspeed
/// does not map (devices, lags, lldp, options, events).
fn top_level(config: &Value) -> Result<&Map<String, Value>, Refusal> {
    let root = At {
        v: config,
        path: "",
    };
    let top = root.obj(&[
        "ports", "layer1", "flows", "captures", "devices", "lags", "options", "events", "lldp",
    ])?;
    for key in ["devices", "lags", "lldp"] {
        if opt(top, "", key, |a| a.list())?.is_some_and(|l| !l.is_empty()) {
            return Err(format!("{key}: is not supported"));
        }
    }
    for key in ["options", "events"] {
        if top
            .get(key)
            .is_some_and(|v| v.as_object().is_none_or(|m| !m.is_empty()))
        {
            return Err(format!("{key}: is not supported"));
        }
    }
    Ok(top)
}

/// Reads `ports`: names that differ, locations that are not empty and
/// name different devices.
fn ports(top: &Map<String, Value>) -> Result<Vec<PortMap>, Refusal> {
    let mut ports: Vec<PortMap> = Vec::new();
    for (i, v) in opt(top, "", "ports", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let p = format!("ports[{i}]");
        let m = At { v, path: &p }.obj(&["name", "location"])?;
        let name = req(m, &p, "name", |a| a.text())?;
        let location = req(m, &p, "location", |a| a.text())?;
        if ports.iter().any(|q| q.name == name) {
            return Err(format!("{p}.name: {name} names two ports"));
        }
        if location.trim().is_empty() {
            return Err(format!("{p}.location: is empty"));
        }
        let (home, dev) = place::place(location, &join(&p, "location"))?;
        let same = |q: &PortMap| q.home == home && device(&q.device).1 == device(&dev).1;
        if let Some(q) = ports.iter().find(|q| home != Home::Remote && same(q)) {
            return Err(format!(
                "{p}.location: {location} is port {}'s already",
                q.name
            ));
        }
        ports.push(PortMap {
            name: name.into(),
            location: location.into(),
            home,
            device: dev,
        });
    }
    Ok(ports)
}

/// The index of the port called `name`, or a refusal at `path`.
fn port_of(ports: &[PortMap], name: &str, path: String) -> Result<usize, Refusal> {
    ports
        .iter()
        .position(|p| p.name == name)
        .ok_or_else(|| format!("{path}: {name} is no port of the config"))
}

/// Reads `layer1`: each port's settings, a later entry's overriding an
/// earlier one's.
fn layer1(top: &Map<String, Value>, ports: &[PortMap]) -> Result<Vec<L1>, Refusal> {
    let mut l1 = vec![L1::default(); ports.len()];
    for (i, v) in opt(top, "", "layer1", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let p = format!("layer1[{i}]");
        let m = At { v, path: &p }.obj(&["name", "port_names", "speed", "mtu", "promiscuous"])?;
        let link = opt(m, &p, "speed", speed)?;
        let mtu = opt(m, &p, "mtu", |a| a.int())?;
        let promiscuous = opt(m, &p, "promiscuous", |a| a.flag())?;
        for (k, n) in req(m, &p, "port_names", |a| a.list())?.iter().enumerate() {
            let np = format!("{p}.port_names[{k}]");
            let name = At { v: n, path: &np }.text()?;
            let x = port_of(ports, name, np)?;
            l1[x] = L1 {
                link: link.or(l1[x].link),
                mtu: mtu.or(l1[x].mtu),
                promiscuous: promiscuous.or(l1[x].promiscuous),
            };
        }
    }
    Ok(l1)
}

/// Reads `flows[i]` (`v`) into `parts`: its flow, stream, duration and
/// rate.
fn one_flow(parts: &mut Parts, i: usize, v: &Value) -> Result<(), Refusal> {
    let p = format!("flows[{i}]");
    let m = At { v, path: &p }.obj(&[
        "name",
        "tx_rx",
        "packet",
        "size",
        "rate",
        "duration",
        "metrics",
        "egress_packet",
    ])?;
    let name = req(m, &p, "name", |a| a.text())?;
    if parts.flows.iter().any(|f| f.name == name) {
        return Err(format!("{p}.name: {name} names two flows"));
    }
    if opt(m, &p, "egress_packet", |a| a.list())?.is_some_and(|l| !l.is_empty()) {
        return Err(format!("{p}.egress_packet: is not supported"));
    }
    let (tx_port, rx_port) = tx_rx(m, &p, &parts.ports)?;
    let h = match m.get("packet") {
        Some(v) => headers(At { v, path: &join(&p, "packet") }, &mut parts.warnings)?,
        None => return Err(format!("{p}.packet: landspeed's stamp rides in UDP or TCP: the packet needs ethernet, ipv4 or ipv6, and udp or tcp")),
    };
    h.one_way()?;
    let sizes = opt(m, &p, "size", size)?.unwrap_or_else(|| vec![64]);
    let vlan = h.tag_bytes();
    let (tx_l1, rx_l1) = (&parts.l1[tx_port], &parts.l1[rx_port]);
    fits_mtu(&sizes, vlan, tx_l1, rx_l1, &join(&p, "size"))?;
    let rate = opt(m, &p, "rate", rate)?.unwrap_or_else(|| "1000pps".into());
    let last = opt(m, &p, "duration", duration)?.unwrap_or(Lasts::Continuous);
    let metrics = match m.get("metrics") {
        None => flow::Metrics::default(),
        Some(v) => flow::metrics(At {
            v,
            path: &join(&p, "metrics"),
        })?,
    };
    let (tx_here, rx_here) = (parts.ports[tx_port].here(), parts.ports[rx_port].here());
    if tx_here || rx_here {
        parts.streams.push(stream(name, i, &sizes, h));
    }
    let tx_task = tx_here.then(|| parts.flows.iter().filter(|f| f.tx_task.is_some()).count());
    parts.lasts.push(last);
    parts.rates.push(rate);
    parts.flows.push(FlowMap {
        name: name.into(),
        tx_port,
        rx_port,
        stream_id: (i + 1) as u32,
        tx_task,
        metrics: metrics.enable,
        latency: metrics.latency,
        timestamps: metrics.timestamps,
        packets: match last {
            Lasts::Packets(n) => Some(n),
            _ => None,
        },
    });
    Ok(())
}

/// Reads a flow's `tx_rx` (of `m`, the flow at `p`): the indices of its
/// TX port and its one RX port.
fn tx_rx(m: &Map<String, Value>, p: &str, ports: &[PortMap]) -> Result<(usize, usize), Refusal> {
    let tp = join(p, "tx_rx");
    let t = req(m, p, "tx_rx", |a| a.obj(&["choice", "port", "device"]))?;
    choice(t, &tp, &["port"], Some("port"))?;
    let pp = join(&tp, "port");
    let pm = req(t, &tp, "port", |a| {
        a.obj(&["tx_name", "rx_name", "rx_names"])
    })?;
    let tx_name = req(pm, &pp, "tx_name", |a| a.text())?;
    let tx_port = port_of(ports, tx_name, join(&pp, "tx_name"))?;
    let mut rx_names: Vec<String> = Vec::new();
    if let Some(n) = opt(pm, &pp, "rx_name", |a| a.text())? {
        rx_names.push(n.into());
    }
    for (k, n) in opt(pm, &pp, "rx_names", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let np = format!("{pp}.rx_names[{k}]");
        let name = At { v: n, path: &np }.text()?;
        port_of(ports, name, format!("{pp}.rx_names"))?;
        rx_names.push(name.into());
    }
    rx_names.dedup();
    let rx_port = match rx_names.as_slice() {
        [one] => port_of(ports, one, join(&pp, "rx_names"))?,
        [] => {
            return Err(format!(
            "{pp}.rx_names: landspeed checks every frame where it arrives: name the receiving port"
        ))
        }
        _ => {
            return Err(format!(
                "{pp}.rx_names: one receiving port per flow is supported"
            ))
        }
    };
    Ok((tx_port, rx_port))
}

/// Refuses (at `sp`, the flow's size) a frame size the smaller layer1
/// `mtu` of the flow's ports does not pass (`vlan`: the tag's bytes).
fn fits_mtu(sizes: &[u64], vlan: u64, tx: &L1, rx: &L1, sp: &str) -> Result<(), Refusal> {
    if let Some(mtu) = rx.mtu.into_iter().chain(tx.mtu).min() {
        let most = mtu.saturating_add(18 + vlan);
        if let Some(big) = sizes.iter().find(|&&s| s > most) {
            return Err(format!(
                "{sp}: {big}-byte frames do not pass the layer1 mtu of {mtu} bytes"
            ));
        }
    }
    Ok(())
}

/// The stream of flow `i` called `name`: its id, frame sizes and headers.
fn stream(name: &str, i: usize, sizes: &[u64], h: Headers) -> Map<String, Value> {
    let mut stream = Map::new();
    stream.insert("name".into(), json!(name));
    stream.insert("id".into(), json!(i + 1));
    stream.insert(
        "frame_size".into(),
        if sizes.len() == 1 {
            json!(sizes[0])
        } else {
            json!(sizes)
        },
    );
    stream.extend(h.keys);
    if let Some(seed) = h.seed {
        stream.insert("vary".into(), json!({ "random": seed }));
    }
    stream
}

/// The mapped parts made into the profile, checked by landspeed's own
/// profile reader.
fn build(config: &Value, host: &Host, parts: Parts) -> Result<Mapped, Refusal> {
    let duration = run_seconds(&parts, host)?;
    let tasks = tasks(&parts, host);
    let lcores = 1 + tasks.tx.len() + tasks.rx.len();
    let profile_ports = profile_ports(&parts, &tasks);
    let runs_here = !(tasks.tx.is_empty() && tasks.rx.is_empty());
    let profile = json!({
        "eal": eal(host, lcores, &parts.ports),
        "ports": profile_ports,
        "streams": parts.streams,
        "tx": tasks.tx,
        "rx": tasks.rx,
        "run": { "duration": format!("{duration}s"), "interval": "500ms" },
    });
    let text = serde_json::to_string_pretty(&profile).expect("a JSON value serialises");
    if runs_here {
        check(&text)?;
    }
    Ok(Mapped {
        peers: place::peers(config, &parts.ports),
        runs_here,
        duration_s: duration,
        config: config.clone(),
        profile: text,
        ports: parts.ports,
        flows: parts.flows,
        warnings: parts.warnings,
        captures: parts.captures,
        rx_ports: tasks.rx_ports,
    })
}

/// The profile `text` checked by landspeed's own profile reader.
fn check(text: &str) -> Result<(), Refusal> {
    crate::config::load_str(text, "otg")
        .map(|_| ())
        .map_err(|e| format!("the engine refuses the mapped config: {e}"))
}

/// The run's seconds. One way to end: every flow of fixed seconds lasts as
/// long, and none mixes with another kind (the run has one duration);
/// without one, the host's longest run.
fn run_seconds(parts: &Parts, host: &Host) -> Result<f64, Refusal> {
    let lasts = &parts.lasts;
    let secs: Vec<(usize, f64)> = lasts
        .iter()
        .enumerate()
        .filter_map(|(i, l)| match l {
            Lasts::Seconds(s) => Some((i, *s)),
            _ => None,
        })
        .collect();
    if let Some(&(first, s)) = secs.first() {
        if let Some(other) =
            (0..lasts.len()).find(|&i| !matches!(lasts[i], Lasts::Seconds(x) if x == s))
        {
            return Err(format!(
                "flows[{other}].duration: flows of fixed_seconds ({}: {s} s) run with flows of \
                 the same seconds only: landspeed's run has one duration",
                parts.flows[first].name
            ));
        }
    }
    Ok(secs.first().map_or(host.max_duration_s as f64, |s| s.1))
}

/// The profile's tasks and the queues they use.
struct Tasks {
    /// The TX tasks, one per flow, in the flows' order.
    tx: Vec<Value>,
    /// The RX tasks, one per receiving or captured port.
    rx: Vec<Value>,
    /// The TX queues of each port (by index), one per flow it sends.
    queues: Vec<usize>,
    /// The receiving ports' indices, in the order of their first flow,
    /// then the captured ports that receive none.
    rx_ports: Vec<usize>,
}

/// Tasks: a TX task per flow sent from here, each on a queue of its port
/// of its own; an RX task per port here that receives a flow or is
/// captured. A flow between two hosts is stamped on the synchronised
/// clock, and its receiver maps its own TSC onto that clock.
fn tasks(parts: &Parts, host: &Host) -> Tasks {
    let (ports, flows) = (&parts.ports, &parts.flows);
    let mut queues = vec![0usize; ports.len()];
    let mut tx = Vec::new();
    for (i, f) in flows
        .iter()
        .enumerate()
        .filter(|(_, f)| f.tx_task.is_some())
    {
        let mut task = json!({
            "lcore": 1 + tx.len(),
            "port": ports[f.tx_port].name,
            "queue": queues[f.tx_port],
            "streams": [f.name],
            "rate": parts.rates[i],
        });
        if let Some(n) = f.packets {
            task["frames"] = json!(n);
        }
        if !ports[f.rx_port].here() {
            synced(&mut task, "synced", host);
        }
        queues[f.tx_port] += 1;
        tx.push(task);
    }
    let mut rx_ports: Vec<usize> = Vec::new();
    let received = flows.iter().map(|f| f.rx_port);
    for p in received.chain(parts.captures.iter().map(|c| c.port)) {
        if ports[p].here() && !rx_ports.contains(&p) {
            rx_ports.push(p);
        }
    }
    let rx: Vec<Value> = rx_ports
        .iter()
        .enumerate()
        .map(|(j, &p)| {
            let mut task = json!({
                "lcore": 1 + tx.len() + j,
                "port": ports[p].name,
                "queues": (0..queues[p].max(1)).collect::<Vec<_>>(),
            });
            if flows
                .iter()
                .any(|f| f.rx_port == p && !ports[f.tx_port].here())
            {
                synced(&mut task, "synced+shared", host);
            }
            task
        })
        .collect();
    Tasks {
        tx,
        rx,
        queues,
        rx_ports,
    }
}

/// Sets a task's `clock` to `clock`, with the host's declared clock
/// error, if any.
fn synced(task: &mut Value, clock: &str, host: &Host) {
    task["clock"] = json!(clock);
    if let Some(e) = &host.clock_error {
        task["clock_error"] = json!(e);
    }
}

/// The profile's `eal`: `lcores` lcores spread over the host's CPUs in
/// turn, and the ports' devices as vdevs or PCI addresses.
fn eal(host: &Host, lcores: usize, ports: &[PortMap]) -> Value {
    let cpus: Vec<u32> = if host.cpus.is_empty() {
        vec![0]
    } else {
        host.cpus.clone()
    };
    let (mut vdevs, mut pci) = (Vec::new(), Vec::new());
    for p in ports.iter().filter(|p| p.here()) {
        if device(&p.device).0 {
            pci.push(p.device.clone());
        } else {
            vdevs.push(p.device.clone());
        }
    }
    json!({
        "cores": (0..lcores).collect::<Vec<_>>(),
        "cpus": (0..lcores).map(|l| cpus[l % cpus.len()]).collect::<Vec<_>>(),
        "vdevs": vdevs,
        "pci": pci,
    })
}

/// The profile's `ports`: each port's device, queues and layer1 settings.
fn profile_ports(parts: &Parts, tasks: &Tasks) -> Vec<Value> {
    let mut profile_ports = Vec::new();
    for (i, p) in parts.ports.iter().enumerate().filter(|(_, p)| p.here()) {
        let (_, dev) = device(&p.device);
        let queues = tasks.queues[i];
        // A receiving port reads as many queues as it sends on: a device
        // that loops each TX queue to its RX queue (net_ring) returns
        // every flow; a NIC spreads arrivals over them.
        let rx_queues = if tasks.rx_ports.contains(&i) {
            queues.max(1)
        } else {
            1
        };
        let mut port = json!({
            "name": p.name, "device": dev,
            "tx_queues": queues.max(1), "rx_queues": rx_queues,
        });
        if let Some(link) = parts.l1[i].link {
            port["link"] = json!(link);
        }
        if let Some(pr) = parts.l1[i].promiscuous {
            port["promiscuous"] = json!(pr);
        }
        profile_ports.push(port);
    }
    profile_ports
}

#[cfg(test)]
mod tests;
