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

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{json, Map, Value};

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
}

/// One OTG port and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct PortMap {
    /// The OTG port's name.
    pub name: String,
    /// Its `location` as given.
    pub location: String,
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
    /// Its TX task's index in the profile's `tx:` list.
    pub tx_task: usize,
    /// `metrics.enable`: the flow has flow metrics.
    pub metrics: bool,
    /// `metrics.latency.enable`: its metrics carry latency.
    pub latency: bool,
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
}

/// A refusal: `path: why`, as OTG's error `errors` list carries it.
pub type Refusal = String;

/// A JSON node and the OTG path that leads to it.
#[derive(Clone, Copy)]
struct At<'a, 'p> {
    v: &'a Value,
    path: &'p str,
}

/// A node's path joined with a key or an index.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> At<'a, '_> {
    /// `path: why`.
    fn no(&self, why: impl std::fmt::Display) -> Refusal {
        if self.path.is_empty() {
            format!("{why}")
        } else {
            format!("{}: {why}", self.path)
        }
    }

    /// The node as an object whose keys are all among `known`.
    fn obj(&self, known: &[&str]) -> Result<&'a Map<String, Value>, Refusal> {
        let m = self
            .v
            .as_object()
            .ok_or_else(|| self.no("must be an object"))?;
        if let Some(k) = m.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!("{}: is not supported", join(self.path, k)));
        }
        Ok(m)
    }

    /// The node as text.
    fn text(&self) -> Result<&'a str, Refusal> {
        self.v.as_str().ok_or_else(|| self.no("must be text"))
    }

    /// The node as a whole number: a JSON number, or text holding one
    /// (snappi sends 64-bit integers as text).
    fn int(&self) -> Result<u64, Refusal> {
        match self.v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| self.no(format!("{} is not a whole number of 0 or more", self.v)))
    }

    /// The node as a number (JSON number or text holding one).
    fn num(&self) -> Result<f64, Refusal> {
        match self.v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| self.no(format!("{} is not a number", self.v)))
    }

    /// The node as a boolean.
    fn flag(&self) -> Result<bool, Refusal> {
        self.v
            .as_bool()
            .ok_or_else(|| self.no("must be true or false"))
    }

    /// The node as a list.
    fn list(&self) -> Result<&'a [Value], Refusal> {
        self.v
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| self.no("must be a list"))
    }
}

/// Reads `key` of `m` (at `path`) with `f`, or `None` when it is absent or
/// null.
fn opt<'a, T>(
    m: &'a Map<String, Value>,
    path: &str,
    key: &str,
    f: impl FnOnce(At<'a, '_>) -> Result<T, Refusal>,
) -> Result<Option<T>, Refusal> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let p = join(path, key);
            f(At { v, path: &p }).map(Some)
        }
    }
}

/// Reads `key` of `m`, which must be there.
fn req<'a, T>(
    m: &'a Map<String, Value>,
    path: &str,
    key: &str,
    f: impl FnOnce(At<'a, '_>) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    opt(m, path, key, f)?.ok_or_else(|| format!("{}: is required", join(path, key)))
}

/// The object's `choice`, which must be one of `known`; `default` when it
/// is absent.
fn choice<'a>(
    m: &'a Map<String, Value>,
    path: &str,
    known: &[&str],
    default: Option<&'static str>,
) -> Result<&'a str, Refusal> {
    let c = match opt(m, path, "choice", |a| a.text())? {
        Some(c) => c,
        None => default.ok_or_else(|| format!("{}: is required", join(path, "choice")))?,
    };
    if known.contains(&c) {
        Ok(c)
    } else {
        Err(format!("{}: {c} is not supported", join(path, "choice")))
    }
}

/// What a header field's pattern gives a landspeed stream.
#[derive(Clone, Debug, PartialEq)]
enum Field {
    /// One value.
    One(String),
    /// Values in this order, repeating.
    List(Vec<String>),
    /// Every value from the first to the last, by one.
    Range(String, String),
    /// Drawn at random from `min..=max` with this seed.
    Random(String, String, u64),
}

impl Field {
    /// The profile's value for the field.
    fn yaml(&self) -> Value {
        match self {
            Field::One(v) => json!(v),
            Field::List(l) => json!(l),
            Field::Range(a, b) | Field::Random(a, b, _) => json!(format!("{a}-{b}")),
        }
    }

    /// The profile's value for a numeric field (ports, ids).
    fn yaml_num(&self) -> Value {
        match self {
            Field::One(v) => v.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(v)),
            Field::List(l) => json!(l
                .iter()
                .map(|v| v.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(v)))
                .collect::<Vec<_>>()),
            _ => self.yaml(),
        }
    }

    /// More than one value.
    fn varies(&self) -> bool {
        !matches!(self, Field::One(_))
    }
}

/// A field kind: how its values are read, stepped and written.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// An integer of at most this many bits.
    Int(u32),
    /// An IPv4 address.
    V4,
    /// An IPv6 address.
    V6,
    /// A MAC address.
    Mac,
}

impl Kind {
    /// `text` (or a number) as this kind's integer value.
    fn read(self, at: At) -> Result<u128, Refusal> {
        match self {
            Kind::Int(bits) => {
                let n = at.int()?;
                if bits < 64 && n >> bits != 0 {
                    return Err(at.no(format!("{n} does not fit in {bits} bits")));
                }
                Ok(u128::from(n))
            }
            Kind::V4 => at
                .text()?
                .parse::<Ipv4Addr>()
                .map(|a| u128::from(u32::from(a)))
                .map_err(|_| at.no(format!("{} is not an IPv4 address", at.v))),
            Kind::V6 => at
                .text()?
                .parse::<Ipv6Addr>()
                .map(u128::from)
                .map_err(|_| at.no(format!("{} is not an IPv6 address", at.v))),
            Kind::Mac => {
                let t = at.text()?;
                let parts: Vec<&str> = t.split(':').collect();
                let bytes: Option<Vec<u8>> = (parts.len() == 6)
                    .then(|| {
                        parts
                            .iter()
                            .map(|p| u8::from_str_radix(p, 16).ok())
                            .collect()
                    })
                    .flatten();
                let b = bytes.ok_or_else(|| at.no(format!("{} is not a MAC address", at.v)))?;
                Ok(b.iter().fold(0u128, |acc, &x| (acc << 8) | u128::from(x)))
            }
        }
    }

    /// The largest value.
    fn max(self) -> u128 {
        match self {
            Kind::Int(bits) => (1u128 << bits) - 1,
            Kind::V4 => u128::from(u32::MAX),
            Kind::V6 => u128::MAX,
            Kind::Mac => (1u128 << 48) - 1,
        }
    }

    /// `n` written as the profile writes this kind.
    fn show(self, n: u128) -> String {
        match self {
            Kind::Int(_) => n.to_string(),
            Kind::V4 => Ipv4Addr::from(n as u32).to_string(),
            Kind::V6 => Ipv6Addr::from(n).to_string(),
            Kind::Mac => {
                let b = (n as u64).to_be_bytes();
                format!(
                    "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                    b[2], b[3], b[4], b[5], b[6], b[7]
                )
            }
        }
    }
}

/// Reads an OTG pattern (`{choice, value | values | increment | decrement
/// | random}`) of `kind` at `at`; `None` when the pattern is absent and the
/// field keeps its OTG default `default`.
fn pattern(at: At, kind: Kind, warnings: &mut Vec<String>) -> Result<Field, Refusal> {
    let m = at.obj(&[
        "choice",
        "value",
        "values",
        "increment",
        "decrement",
        "random",
        "auto",
        "metric_tags",
    ])?;
    let p = at.path;
    if opt(m, p, "metric_tags", |a| a.list())?.is_some_and(|l| !l.is_empty()) {
        return Err(format!("{}: is not supported", join(p, "metric_tags")));
    }
    let c = choice(
        m,
        p,
        &["value", "values", "increment", "decrement", "random"],
        Some("value"),
    )?;
    match c {
        "value" => {
            let n = req(m, p, "value", |a| kind.read(a))?;
            Ok(Field::One(kind.show(n)))
        }
        "values" => {
            let vp = join(p, "values");
            let list = req(m, p, "values", |a| a.list())?;
            if list.is_empty() {
                return Err(format!("{vp}: must hold at least one value"));
            }
            let mut out: Vec<u128> = Vec::with_capacity(list.len());
            for (i, v) in list.iter().enumerate() {
                let ip = format!("{vp}[{i}]");
                let n = kind.read(At { v, path: &ip })?;
                if out.contains(&n) {
                    return Err(format!(
                        "{ip}: {} repeats a value: landspeed sends each value of a list once per turn",
                        kind.show(n)
                    ));
                }
                out.push(n);
            }
            Ok(match out.as_slice() {
                [one] => Field::One(kind.show(*one)),
                _ => Field::List(out.into_iter().map(|n| kind.show(n)).collect()),
            })
        }
        "increment" | "decrement" => {
            let sp = join(p, c);
            let s = req(m, p, c, |a| a.obj(&["start", "step", "count"]))?;
            let start = req(s, &sp, "start", |a| kind.read(a))?;
            let step = opt(s, &sp, "step", |a| kind.read(a))?.unwrap_or(1);
            let count = u128::from(opt(s, &sp, "count", |a| a.int())?.unwrap_or(1));
            if count == 0 || count > u128::from(MAX_VALUES) {
                return Err(format!(
                    "{}: {count} values: landspeed takes 1 to {MAX_VALUES}",
                    join(&sp, "count")
                ));
            }
            if count == 1 {
                return Ok(Field::One(kind.show(start)));
            }
            if step == 0 {
                return Err(format!(
                    "{}: a step of 0 repeats one value",
                    join(&sp, "step")
                ));
            }
            let span = step * (count - 1);
            let up = c == "increment";
            let fits = if up {
                kind.max() - start >= span
            } else {
                start >= span
            };
            if !fits {
                return Err(format!(
                    "{sp}: {count} steps of {} from {} leave the field's range: landspeed does not wrap",
                    kind.show(step),
                    kind.show(start)
                ));
            }
            let end = if up { start + span } else { start - span };
            if up && step == 1 {
                return Ok(Field::Range(kind.show(start), kind.show(end)));
            }
            let values = (0..count)
                .map(|i| {
                    kind.show(if up {
                        start + i * step
                    } else {
                        start - i * step
                    })
                })
                .collect();
            Ok(Field::List(values))
        }
        _ => {
            let rp = join(p, "random");
            let r = req(m, p, "random", |a| a.obj(&["min", "max", "seed", "count"]))?;
            let min = opt(r, &rp, "min", |a| kind.read(a))?.unwrap_or(0);
            let max = opt(r, &rp, "max", |a| kind.read(a))?.unwrap_or(kind.max());
            let seed = opt(r, &rp, "seed", |a| a.int())?.unwrap_or(1);
            if min > max {
                return Err(format!(
                    "{rp}: min {} is above max {}",
                    kind.show(min),
                    kind.show(max)
                ));
            }
            if let Some(count) = opt(r, &rp, "count", |a| a.int())? {
                warnings.push(format!(
                    "{}: {count} ignored: landspeed draws every frame's value from the whole \
                     range {}..{}",
                    join(&rp, "count"),
                    kind.show(min),
                    kind.show(max)
                ));
            }
            Ok(Field::Random(kind.show(min), kind.show(max), seed))
        }
    }
}

/// A field read from `m[key]`, or its OTG default.
fn field(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    kind: Kind,
    default: &str,
    warnings: &mut Vec<String>,
) -> Result<Field, Refusal> {
    Ok(opt(m, path, key, |a| pattern(a, kind, warnings))?
        .unwrap_or_else(|| Field::One(default.to_string())))
}

/// A field that must keep one value (landspeed has no pattern for it).
fn one(f: Field, path: &str) -> Result<String, Refusal> {
    match f {
        Field::One(v) => Ok(v),
        _ => Err(format!(
            "{path}: only one value is supported here (landspeed varies addresses and ports)"
        )),
    }
}

/// One flow's headers as a landspeed stream (without name, id, size).
struct Headers {
    /// The stream's keys: eth, vlan, ipv4/ipv6, udp/tcp, vary.
    keys: Map<String, Value>,
    /// The varying fields' paths, and whether each is random (for the
    /// one-way rule).
    varying: Vec<(String, bool)>,
    /// The first random field's seed: every random field of a flow draws
    /// from one generator.
    seed: Option<u64>,
}

/// Reads `flows[i].packet`.
fn headers(at: At, warnings: &mut Vec<String>) -> Result<Headers, Refusal> {
    let list = at.list()?;
    let mut keys = Map::new();
    let mut varying: Vec<(String, bool)> = Vec::new();
    let mut seed = None;
    let mut note = |path: String, f: &Field| {
        if let Field::Random(_, _, s) = f {
            seed = seed.or(Some(*s));
        }
        if f.varies() {
            varying.push((path, matches!(f, Field::Random(..))));
        }
    };
    // Which headers may come next: ethernet, then vlan, then ip, then l4.
    let mut stage = 0;
    for (i, h) in list.iter().enumerate() {
        let hp = format!("{}[{i}]", at.path);
        let ha = At { v: h, path: &hp };
        let hm = h.as_object().ok_or_else(|| ha.no("must be an object"))?;
        let c = match opt(hm, &hp, "choice", |a| a.text())? {
            Some(c) => c,
            None => return Err(format!("{hp}.choice: is required")),
        };
        if !["ethernet", "vlan", "ipv4", "ipv6", "udp", "tcp"].contains(&c) {
            return Err(format!("{hp}.choice: {c} is not supported"));
        }
        ha.obj(&["choice", c])?;
        let (want, next) = match c {
            "ethernet" => (0, 1),
            "vlan" => (1, 2),
            "ipv4" | "ipv6" => (1, 3),
            "udp" | "tcp" => (3, 4),
            other => return Err(format!("{hp}.choice: {other} is not supported")),
        };
        let order_ok = match c {
            "vlan" => stage == 1,
            "ipv4" | "ipv6" => stage == 1 || stage == 2,
            _ => stage == want,
        };
        if !order_ok {
            return Err(format!(
                "{hp}.choice: {c} cannot come here: landspeed sends ethernet, an optional vlan, \
                 ipv4 or ipv6, then udp or tcp"
            ));
        }
        stage = next;
        let bp = join(&hp, c);
        let body = match hm.get(c) {
            Some(v) => v,
            None => &Value::Object(Map::new()),
        };
        let b = At { v: body, path: &bp };
        match c {
            "ethernet" => {
                let m = b.obj(&["src", "dst", "ether_type"])?;
                if m.contains_key("ether_type") {
                    return Err(format!(
                        "{bp}.ether_type: is not supported: landspeed sets it from the next header"
                    ));
                }
                let src = field(m, &bp, "src", Kind::Mac, "00:00:00:00:00:00", warnings)?;
                let dst = field(m, &bp, "dst", Kind::Mac, "00:00:00:00:00:00", warnings)?;
                let src = one(src, &join(&bp, "src"))?;
                let dst = one(dst, &join(&bp, "dst"))?;
                keys.insert("eth".into(), json!({ "src": src, "dst": dst }));
            }
            "vlan" => {
                let m = b.obj(&["id", "priority", "cfi", "tpid"])?;
                let tpid = field(m, &bp, "tpid", Kind::Int(16), "33024", warnings)?;
                if one(tpid, &join(&bp, "tpid"))? != "33024" {
                    return Err(format!("{bp}.tpid: only 0x8100 (802.1Q) is supported"));
                }
                let id = one(
                    field(m, &bp, "id", Kind::Int(12), "1", warnings)?,
                    &join(&bp, "id"),
                )?;
                let pcp = field(m, &bp, "priority", Kind::Int(3), "0", warnings)?;
                let pcp = one(pcp, &join(&bp, "priority"))?;
                let cfi = one(
                    field(m, &bp, "cfi", Kind::Int(1), "0", warnings)?,
                    &join(&bp, "cfi"),
                )?;
                keys.insert(
                    "vlan".into(),
                    json!({ "id": num(&id), "pcp": num(&pcp), "dei": cfi == "1" }),
                );
            }
            "ipv4" => {
                let m = b.obj(&["src", "dst", "time_to_live", "dont_fragment"])?;
                let src = field(m, &bp, "src", Kind::V4, "0.0.0.0", warnings)?;
                let dst = field(m, &bp, "dst", Kind::V4, "0.0.0.0", warnings)?;
                let ttl = field(m, &bp, "time_to_live", Kind::Int(8), "64", warnings)?;
                let ttl = one(ttl, &join(&bp, "time_to_live"))?;
                let df = field(m, &bp, "dont_fragment", Kind::Int(1), "0", warnings)?;
                let df = one(df, &join(&bp, "dont_fragment"))?;
                note(join(&bp, "src"), &src);
                note(join(&bp, "dst"), &dst);
                keys.insert(
                    "ipv4".into(),
                    json!({ "src": src.yaml(), "dst": dst.yaml(), "ttl": num(&ttl), "df": df == "1" }),
                );
            }
            "ipv6" => {
                let m = b.obj(&["src", "dst", "hop_limit", "traffic_class", "flow_label"])?;
                let src = field(m, &bp, "src", Kind::V6, "::", warnings)?;
                let dst = field(m, &bp, "dst", Kind::V6, "::", warnings)?;
                let hl = field(m, &bp, "hop_limit", Kind::Int(8), "64", warnings)?;
                let tc = field(m, &bp, "traffic_class", Kind::Int(8), "0", warnings)?;
                let fl = field(m, &bp, "flow_label", Kind::Int(20), "0", warnings)?;
                note(join(&bp, "src"), &src);
                note(join(&bp, "dst"), &dst);
                keys.insert(
                    "ipv6".into(),
                    json!({
                        "src": src.yaml(), "dst": dst.yaml(),
                        "hop_limit": num(&one(hl, &join(&bp, "hop_limit"))?),
                        "traffic_class": num(&one(tc, &join(&bp, "traffic_class"))?),
                        "flow_label": num(&one(fl, &join(&bp, "flow_label"))?),
                    }),
                );
            }
            "udp" => {
                let m = b.obj(&["src_port", "dst_port"])?;
                let src = field(m, &bp, "src_port", Kind::Int(16), "0", warnings)?;
                let dst = field(m, &bp, "dst_port", Kind::Int(16), "0", warnings)?;
                note(join(&bp, "src_port"), &src);
                note(join(&bp, "dst_port"), &dst);
                keys.insert(
                    "udp".into(),
                    json!({ "src": src.yaml_num(), "dst": dst.yaml_num() }),
                );
            }
            _ => {
                const FLAGS: [&str; 8] = ["fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr"];
                let mut known = vec!["src_port", "dst_port", "seq_num", "ack_num", "window"];
                let ctl: Vec<String> = FLAGS.iter().map(|f| format!("ctl_{f}")).collect();
                known.extend(ctl.iter().map(String::as_str));
                let m = b.obj(&known)?;
                let src = field(m, &bp, "src_port", Kind::Int(16), "0", warnings)?;
                let dst = field(m, &bp, "dst_port", Kind::Int(16), "0", warnings)?;
                note(join(&bp, "src_port"), &src);
                note(join(&bp, "dst_port"), &dst);
                let mut tcp = json!({ "src": src.yaml_num(), "dst": dst.yaml_num() });
                for (key, name) in [("seq_num", "seq"), ("ack_num", "ack"), ("window", "window")] {
                    if m.contains_key(key) {
                        let bits = if key == "window" { 16 } else { 32 };
                        let v = field(m, &bp, key, Kind::Int(bits), "0", warnings)?;
                        tcp[name] = num(&one(v, &join(&bp, key))?);
                    }
                }
                let mut flags = Vec::new();
                let mut any = false;
                for (f, key) in FLAGS.iter().zip(&ctl) {
                    if m.contains_key(key.as_str()) {
                        any = true;
                        let v = field(m, &bp, key, Kind::Int(1), "0", warnings)?;
                        if one(v, &join(&bp, key))? == "1" {
                            flags.push(*f);
                        }
                    }
                }
                if any {
                    tcp["flags"] = json!(flags);
                }
                keys.insert("tcp".into(), tcp);
            }
        }
    }
    if stage < 4 {
        return Err(format!(
            "{}: landspeed's stamp rides in UDP or TCP: the packet needs ethernet, ipv4 or ipv6, \
             and udp or tcp",
            at.path
        ));
    }
    Ok(Headers {
        keys,
        varying,
        seed,
    })
}

/// A decimal text as a JSON number.
fn num(s: &str) -> Value {
    s.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(s))
}

/// OTG's predefined `imix`: 64, 570 and 1518 bytes at 7:4:1, as the turn of
/// twelve sizes landspeed sends in order.
const IMIX: [u64; 12] = [64, 570, 64, 1518, 64, 570, 64, 570, 64, 64, 570, 64];

/// Reads `flows[i].size` as a landspeed `frame_size`.
fn size(at: At) -> Result<Vec<u64>, Refusal> {
    let m = at.obj(&["choice", "fixed", "increment", "random", "weight_pairs"])?;
    let p = at.path;
    let c = choice(
        m,
        p,
        &["fixed", "increment", "weight_pairs", "random"],
        Some("fixed"),
    )?;
    match c {
        "fixed" => Ok(vec![opt(m, p, "fixed", |a| a.int())?.unwrap_or(64)]),
        "increment" => {
            let ip = join(p, "increment");
            let s = req(m, p, "increment", |a| a.obj(&["start", "end", "step"]))?;
            let start = opt(s, &ip, "start", |a| a.int())?.unwrap_or(64);
            let end = opt(s, &ip, "end", |a| a.int())?.unwrap_or(1518);
            let step = opt(s, &ip, "step", |a| a.int())?.unwrap_or(1);
            if step == 0 || start > end {
                return Err(format!(
                    "{ip}: from {start} to {end} by {step} is no sequence"
                ));
            }
            if (end - start) / step + 1 > MAX_VALUES {
                return Err(format!("{ip}: more than {MAX_VALUES} sizes"));
            }
            Ok((start..=end).step_by(step as usize).collect())
        }
        "random" => Err(format!(
            "{}: random sizes are not supported: landspeed sends a list of sizes in turn \
             (use increment or weight_pairs)",
            join(p, "choice")
        )),
        _ => {
            let wp = join(p, "weight_pairs");
            let w = req(m, p, "weight_pairs", |a| {
                a.obj(&["choice", "predefined", "custom"])
            })?;
            let c = choice(w, &wp, &["predefined", "custom"], Some("predefined"))?;
            if c == "predefined" {
                let name = opt(w, &wp, "predefined", |a| a.text())?.unwrap_or("imix");
                if name != "imix" {
                    return Err(format!(
                        "{}: {name} is not supported: its weights are not whole numbers \
                         (imix, or custom pairs with whole weights)",
                        join(&wp, "predefined")
                    ));
                }
                return Ok(IMIX.to_vec());
            }
            let cp = join(&wp, "custom");
            let pairs = req(w, &wp, "custom", |a| a.list())?;
            let mut turn: Vec<(u64, u64)> = Vec::new();
            for (i, v) in pairs.iter().enumerate() {
                let pp = format!("{cp}[{i}]");
                let pm = At { v, path: &pp }.obj(&["size", "weight"])?;
                let s = opt(pm, &pp, "size", |a| a.int())?.unwrap_or(64);
                let wt = opt(pm, &pp, "weight", |a| a.num())?.unwrap_or(1.0);
                if wt < 1.0 || wt.fract() != 0.0 {
                    return Err(format!(
                        "{pp}.weight: {wt} is not supported: landspeed sends sizes in a turn, so weights are whole numbers of 1 or more"
                    ));
                }
                turn.push((s, wt as u64));
            }
            let total: u64 = turn.iter().map(|t| t.1).sum();
            if turn.is_empty() || total > 4096 {
                return Err(format!(
                    "{cp}: 1 to 4096 frames in a turn (the weights' sum)"
                ));
            }
            Ok(spread(&turn))
        }
    }
}

/// Sizes at whole weights spread evenly over one turn (each size placed
/// where its share of the turn says: 7:4:1 does not send seven 64s first).
fn spread(pairs: &[(u64, u64)]) -> Vec<u64> {
    let total: u64 = pairs.iter().map(|p| p.1).sum();
    let mut placed: Vec<(f64, u64)> = Vec::new();
    for &(size, w) in pairs {
        for k in 0..w {
            placed.push(((k as f64 + 0.5) * total as f64 / w as f64, size));
        }
    }
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed.into_iter().map(|p| p.1).collect()
}

/// Reads `flows[i].rate` as a landspeed rate.
fn rate(at: At) -> Result<String, Refusal> {
    let keys = ["choice", "pps", "bps", "kbps", "mbps", "gbps", "percentage"];
    let m = at.obj(&keys)?;
    let p = at.path;
    let c = choice(m, p, &keys[1..], Some("pps"))?;
    if c == "percentage" {
        let pct = opt(m, p, c, |a| a.num())?.unwrap_or(100.0);
        if !(pct > 0.0 && pct <= 100.0) {
            return Err(format!(
                "{}: {pct} is not a share of the line above 0 and at most 100",
                join(p, c)
            ));
        }
        return Ok(format!("{pct}%"));
    }
    let n = opt(m, p, c, |a| a.int())?.unwrap_or(1000);
    if n == 0 {
        return Err(format!("{}: a rate of 0 sends nothing", join(p, c)));
    }
    Ok(match c {
        "pps" => format!("{n}pps"),
        "bps" => format!("{n}"),
        "kbps" => format!("{n}k"),
        "mbps" => format!("{n}M"),
        _ => format!("{n}G"),
    })
}

/// How long a flow sends.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Lasts {
    /// This many frames.
    Packets(u64),
    /// This many seconds.
    Seconds(f64),
    /// Until told to stop.
    Continuous,
}

/// Reads `flows[i].duration`.
fn duration(at: At) -> Result<Lasts, Refusal> {
    let m = at.obj(&[
        "choice",
        "fixed_packets",
        "fixed_seconds",
        "continuous",
        "burst",
    ])?;
    let p = at.path;
    let c = choice(
        m,
        p,
        &["fixed_packets", "fixed_seconds", "continuous", "burst"],
        Some("continuous"),
    )?;
    if c == "burst" {
        return Err(format!(
            "{}: burst is not supported: landspeed paces every frame at the flow's rate",
            join(p, "choice")
        ));
    }
    let bp = join(p, c);
    let empty = Value::Object(Map::new());
    let b = At {
        v: m.get(c).unwrap_or(&empty),
        path: &bp,
    };
    let known: &[&str] = match c {
        "fixed_packets" => &["packets", "gap", "delay"],
        "fixed_seconds" => &["seconds", "gap", "delay"],
        _ => &["gap", "delay"],
    };
    let bm = b.obj(known)?;
    if let Some(gap) = opt(bm, &bp, "gap", |a| a.int())? {
        if gap != 12 {
            return Err(format!(
                "{}: {gap} is not supported: landspeed keeps the wire's 12-byte gap and paces by rate",
                join(&bp, "gap")
            ));
        }
    }
    if bm.contains_key("delay") {
        return Err(format!(
            "{}: a start delay is not supported",
            join(&bp, "delay")
        ));
    }
    match c {
        "fixed_packets" => {
            let n = opt(bm, &bp, "packets", |a| a.int())?.unwrap_or(1);
            if n == 0 {
                return Err(format!("{}: 0 packets sends nothing", join(&bp, "packets")));
            }
            Ok(Lasts::Packets(n))
        }
        "fixed_seconds" => {
            let s = opt(bm, &bp, "seconds", |a| a.num())?.unwrap_or(1.0);
            if s <= 0.0 {
                return Err(format!("{}: {s} s sends nothing", join(&bp, "seconds")));
            }
            Ok(Lasts::Seconds(s))
        }
        _ => Ok(Lasts::Continuous),
    }
}

/// A port location as the profile's device: `(vdev or pci entry, device)`.
fn device(location: &str) -> (bool, String) {
    let name = location.split(',').next().unwrap_or(location).to_string();
    let pci = {
        let parts: Vec<&str> = name.split(':').collect();
        (2..=3).contains(&parts.len())
            && name.contains('.')
            && name
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
    };
    (pci, name)
}

/// OTG `layer1.speed` as a landspeed link kind.
fn speed(at: At) -> Result<&'static str, Refusal> {
    Ok(match at.text()? {
        "speed_10_fd_mbps" | "speed_10_hd_mbps" => "10m",
        "speed_100_fd_mbps" | "speed_100_hd_mbps" => "100m",
        "speed_1_gbps" => "1g",
        "speed_10_gbps" => "10g",
        "speed_25_gbps" => "25g",
        "speed_40_gbps" => "40g",
        "speed_50_gbps" => "50g",
        "speed_100_gbps" => "100g",
        "speed_200_gbps" => "200g",
        "speed_400_gbps" => "400g",
        other => return Err(at.no(format!("{other} is not supported"))),
    })
}

/// Settings `layer1` gives a port.
#[derive(Clone, Debug, Default)]
struct L1 {
    link: Option<&'static str>,
    mtu: Option<u64>,
    promiscuous: Option<bool>,
}

/// Maps an OTG config onto a landspeed profile.
pub fn map(config: &Value, host: &Host) -> Result<Mapped, Refusal> {
    let root = At {
        v: config,
        path: "",
    };
    let top = root.obj(&[
        "ports", "layer1", "flows", "captures", "devices", "lags", "options", "events", "lldp",
    ])?;
    for key in ["captures", "devices", "lags", "lldp"] {
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
    let mut warnings = Vec::new();

    // Ports.
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
        if let Some(q) = ports
            .iter()
            .find(|q| device(&q.location).1 == device(location).1)
        {
            return Err(format!(
                "{p}.location: {location} is port {}'s already",
                q.name
            ));
        }
        ports.push(PortMap {
            name: name.into(),
            location: location.into(),
        });
    }
    let port_of = |name: &str, path: String| -> Result<usize, Refusal> {
        ports
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| format!("{path}: {name} is no port of the config"))
    };

    // Layer 1.
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
            let x = port_of(name, np)?;
            l1[x] = L1 {
                link: link.or(l1[x].link),
                mtu: mtu.or(l1[x].mtu),
                promiscuous: promiscuous.or(l1[x].promiscuous),
            };
        }
    }

    // Flows.
    let mut flows: Vec<FlowMap> = Vec::new();
    let mut streams = Vec::new();
    let mut lasts: Vec<Lasts> = Vec::new();
    let mut rates = Vec::new();
    for (i, v) in opt(top, "", "flows", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
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
        if flows.iter().any(|f| f.name == name) {
            return Err(format!("{p}.name: {name} names two flows"));
        }
        if opt(m, &p, "egress_packet", |a| a.list())?.is_some_and(|l| !l.is_empty()) {
            return Err(format!("{p}.egress_packet: is not supported"));
        }
        let tp = join(&p, "tx_rx");
        let t = req(m, &p, "tx_rx", |a| a.obj(&["choice", "port", "device"]))?;
        choice(t, &tp, &["port"], Some("port"))?;
        let pp = join(&tp, "port");
        let pm = req(t, &tp, "port", |a| {
            a.obj(&["tx_name", "rx_name", "rx_names"])
        })?;
        let tx_port = port_of(req(pm, &pp, "tx_name", |a| a.text())?, join(&pp, "tx_name"))?;
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
            port_of(name, format!("{pp}.rx_names"))?;
            rx_names.push(name.into());
        }
        rx_names.dedup();
        let rx_port = match rx_names.as_slice() {
            [one] => port_of(one, join(&pp, "rx_names"))?,
            [] => return Err(format!("{pp}.rx_names: landspeed checks every frame where it arrives: name the receiving port")),
            _ => return Err(format!("{pp}.rx_names: one receiving port per flow is supported")),
        };
        let h = match m.get("packet") {
            Some(v) => headers(At { v, path: &join(&p, "packet") }, &mut warnings)?,
            None => return Err(format!("{p}.packet: landspeed's stamp rides in UDP or TCP: the packet needs ethernet, ipv4 or ipv6, and udp or tcp")),
        };
        let random: Vec<&(String, bool)> = h.varying.iter().filter(|v| v.1).collect();
        let stepping: Vec<&(String, bool)> = h.varying.iter().filter(|v| !v.1).collect();
        if !random.is_empty() && !stepping.is_empty() {
            return Err(format!(
                "{}: a stepping field with a random one ({}) is not supported: landspeed varies a flow's fields one way",
                stepping[0].0, random[0].0
            ));
        }
        if stepping.len() > 1 {
            return Err(format!(
                "{}: a second stepping field (after {}) is not supported: OTG steps fields together, landspeed walks their combinations",
                stepping[1].0, stepping[0].0
            ));
        }
        let sizes = opt(m, &p, "size", size)?.unwrap_or_else(|| vec![64]);
        let sp = join(&p, "size");
        if let Some(mtu) = l1[rx_port].mtu.into_iter().chain(l1[tx_port].mtu).min() {
            let vlan = if h.keys.contains_key("vlan") { 4 } else { 0 };
            if let Some(big) = sizes.iter().find(|&&s| s > mtu + 18 + vlan) {
                return Err(format!(
                    "{sp}: {big}-byte frames do not pass the layer1 mtu of {mtu} bytes"
                ));
            }
        }
        let rate = opt(m, &p, "rate", rate)?.unwrap_or_else(|| "1000pps".into());
        let last = opt(m, &p, "duration", duration)?.unwrap_or(Lasts::Continuous);
        let (metrics, latency) = match m.get("metrics") {
            None => (false, false),
            Some(v) => {
                let mp = join(&p, "metrics");
                let mm = At { v, path: &mp }.obj(&[
                    "enable",
                    "loss",
                    "timestamps",
                    "latency",
                    "rx_tx_ratio",
                    "predefined_metric_tags",
                ])?;
                if opt(mm, &mp, "timestamps", |a| a.flag())? == Some(true) {
                    return Err(format!(
                        "{mp}.timestamps: first and last arrival timestamps are not supported yet"
                    ));
                }
                if mm.contains_key("rx_tx_ratio") || mm.contains_key("predefined_metric_tags") {
                    let k = if mm.contains_key("rx_tx_ratio") {
                        "rx_tx_ratio"
                    } else {
                        "predefined_metric_tags"
                    };
                    return Err(format!("{mp}.{k}: is not supported"));
                }
                let lat = match mm.get("latency") {
                    None => false,
                    Some(v) => {
                        let lp = join(&mp, "latency");
                        let lm = At { v, path: &lp }.obj(&["enable", "mode"])?;
                        opt(lm, &lp, "mode", |a| match a.text()? {
                            "cut_through" | "store_forward" => Ok(()),
                            other => Err(a.no(format!("{other} is not supported"))),
                        })?;
                        opt(lm, &lp, "enable", |a| a.flag())?.unwrap_or(false)
                    }
                };
                (opt(mm, &mp, "enable", |a| a.flag())?.unwrap_or(false), lat)
            }
        };
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
        streams.push(stream);
        lasts.push(last);
        rates.push(rate);
        flows.push(FlowMap {
            name: name.into(),
            tx_port,
            rx_port,
            stream_id: (i + 1) as u32,
            tx_task: i,
            metrics,
            latency,
            packets: match last {
                Lasts::Packets(n) => Some(n),
                _ => None,
            },
        });
    }
    build(
        config, host, ports, l1, flows, streams, lasts, rates, warnings,
    )
}

/// The mapped parts made into the profile, checked by landspeed's own
/// profile reader.
#[allow(clippy::too_many_arguments)]
fn build(
    config: &Value,
    host: &Host,
    ports: Vec<PortMap>,
    l1: Vec<L1>,
    flows: Vec<FlowMap>,
    streams: Vec<Map<String, Value>>,
    lasts: Vec<Lasts>,
    rates: Vec<String>,
    warnings: Vec<String>,
) -> Result<Mapped, Refusal> {
    // One way to end: every flow of fixed seconds lasts as long, and none
    // mixes with another kind (the run has one duration).
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
                flows[first].name
            ));
        }
    }
    let duration = secs.first().map_or(host.max_duration_s as f64, |s| s.1);

    // Tasks: a TX task per flow, each on a queue of its port of its own;
    // an RX task per receiving port.
    let mut queues = vec![0usize; ports.len()];
    let mut tx = Vec::new();
    for (i, f) in flows.iter().enumerate() {
        let mut task = json!({
            "lcore": 1 + i,
            "port": ports[f.tx_port].name,
            "queue": queues[f.tx_port],
            "streams": [f.name],
            "rate": rates[i],
        });
        if let Some(n) = f.packets {
            task["frames"] = json!(n);
        }
        queues[f.tx_port] += 1;
        tx.push(task);
    }
    let mut rx_ports: Vec<usize> = Vec::new();
    for f in &flows {
        if !rx_ports.contains(&f.rx_port) {
            rx_ports.push(f.rx_port);
        }
    }
    let rx: Vec<Value> = rx_ports
        .iter()
        .enumerate()
        .map(|(j, &p)| {
            json!({
                "lcore": 1 + flows.len() + j,
                "port": ports[p].name,
                "queues": (0..queues[p].max(1)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let lcores = 1 + tx.len() + rx.len();
    let cpus: Vec<u32> = if host.cpus.is_empty() {
        vec![0]
    } else {
        host.cpus.clone()
    };
    let (mut vdevs, mut pci) = (Vec::new(), Vec::new());
    let mut profile_ports = Vec::new();
    for (i, p) in ports.iter().enumerate() {
        let (is_pci, dev) = device(&p.location);
        if is_pci {
            pci.push(p.location.clone());
        } else {
            vdevs.push(p.location.clone());
        }
        // A receiving port reads as many queues as it sends on: a device
        // that loops each TX queue to its RX queue (net_ring) returns
        // every flow; a NIC spreads arrivals over them.
        let rx_queues = if rx_ports.contains(&i) {
            queues[i].max(1)
        } else {
            1
        };
        let mut port = json!({
            "name": p.name, "device": dev,
            "tx_queues": queues[i].max(1), "rx_queues": rx_queues,
        });
        if let Some(link) = l1[i].link {
            port["link"] = json!(link);
        }
        if let Some(pr) = l1[i].promiscuous {
            port["promiscuous"] = json!(pr);
        }
        profile_ports.push(port);
    }
    let profile = json!({
        "eal": {
            "cores": (0..lcores).collect::<Vec<_>>(),
            "cpus": (0..lcores).map(|l| cpus[l % cpus.len()]).collect::<Vec<_>>(),
            "vdevs": vdevs,
            "pci": pci,
        },
        "ports": profile_ports,
        "streams": streams,
        "tx": tx,
        "rx": rx,
        "run": { "duration": format!("{duration}s"), "interval": "500ms" },
    });
    let text = serde_json::to_string_pretty(&profile).expect("a JSON value serialises");
    if !flows.is_empty() {
        crate::config::load_str(&text, "otg")
            .map_err(|e| format!("the engine refuses the mapped config: {e}"))?;
    }
    Ok(Mapped {
        config: config.clone(),
        profile: text,
        ports,
        flows,
        warnings,
    })
}
