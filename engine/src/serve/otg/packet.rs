//! A flow's `packet`: its headers in order (ethernet, an optional vlan,
//! ipv4 or ipv6, then udp or tcp) read as a landspeed stream's keys, one
//! reader per header kind.

use serde_json::{json, Map, Value};

use super::pattern::{field, num, one, Field, Kind};
use super::read::{join, opt, At};
use super::Refusal;

/// The header kinds a packet may hold.
const KINDS: [&str; 6] = ["ethernet", "vlan", "ipv4", "ipv6", "udp", "tcp"];

/// One flow's headers as a landspeed stream (without name, id, size).
pub(super) struct Headers {
    /// The stream's keys: eth, vlan, ipv4/ipv6, udp/tcp, vary.
    pub(super) keys: Map<String, Value>,
    /// The varying fields' paths, and whether each is random (for the
    /// one-way rule).
    pub(super) varying: Vec<(String, bool)>,
    /// The first random field's seed: every random field of a flow draws
    /// from one generator.
    pub(super) seed: Option<u64>,
}

impl Headers {
    /// Notes the field at `path`: its seed when it is the first random
    /// one, its path when it varies.
    fn note(&mut self, path: String, f: &Field) {
        if let Field::Random(_, _, s) = f {
            self.seed = self.seed.or(Some(*s));
        }
        if f.varies() {
            self.varying.push((path, matches!(f, Field::Random(..))));
        }
    }

    /// The one-way rule: a flow's varying fields are all random, or one
    /// steps.
    pub(super) fn one_way(&self) -> Result<(), Refusal> {
        let random: Vec<&(String, bool)> = self.varying.iter().filter(|v| v.1).collect();
        let stepping: Vec<&(String, bool)> = self.varying.iter().filter(|v| !v.1).collect();
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
        Ok(())
    }
}

/// Reads `flows[i].packet`.
pub(super) fn headers(at: At, warnings: &mut Vec<String>) -> Result<Headers, Refusal> {
    let list = at.list()?;
    let mut h = Headers {
        keys: Map::new(),
        varying: Vec::new(),
        seed: None,
    };
    let empty = Value::Object(Map::new());
    // Which headers may come next: ethernet, then vlan, then ip, then l4.
    let mut stage = 0;
    for (i, v) in list.iter().enumerate() {
        let hp = format!("{}[{i}]", at.path);
        let ha = At { v, path: &hp };
        let hm = v.as_object().ok_or_else(|| ha.no("must be an object"))?;
        let c = match opt(hm, &hp, "choice", |a| a.text())? {
            Some(c) => c,
            None => return Err(format!("{hp}.choice: is required")),
        };
        if !KINDS.contains(&c) {
            return Err(format!("{hp}.choice: {c} is not supported"));
        }
        ha.obj(&["choice", c])?;
        stage = place(&hp, c, stage)?;
        let bp = join(&hp, c);
        let b = At {
            v: hm.get(c).unwrap_or(&empty),
            path: &bp,
        };
        match c {
            "ethernet" => ethernet(b, &mut h, warnings)?,
            "vlan" => vlan(b, &mut h, warnings)?,
            "ipv4" => ipv4(b, &mut h, warnings)?,
            "ipv6" => ipv6(b, &mut h, warnings)?,
            "udp" => udp(b, &mut h, warnings)?,
            _ => tcp(b, &mut h, warnings)?,
        }
    }
    if stage < 4 {
        return Err(format!(
            "{}: landspeed's stamp rides in UDP or TCP: the packet needs ethernet, ipv4 or ipv6, \
             and udp or tcp",
            at.path
        ));
    }
    Ok(h)
}

/// The header `c` (at `hp`) placed after the headers that reached `stage`:
/// the stage it reaches, or why it cannot come here.
fn place(hp: &str, c: &str, stage: u8) -> Result<u8, Refusal> {
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
    Ok(next)
}

/// Reads an `ethernet` header (at `b`) into `h`.
fn ethernet(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["src", "dst", "ether_type"])?;
    if m.contains_key("ether_type") {
        return Err(format!(
            "{bp}.ether_type: is not supported: landspeed sets it from the next header"
        ));
    }
    let src = field(m, bp, "src", Kind::Mac, "00:00:00:00:00:00", warnings)?;
    let dst = field(m, bp, "dst", Kind::Mac, "00:00:00:00:00:00", warnings)?;
    let src = one(src, &join(bp, "src"))?;
    let dst = one(dst, &join(bp, "dst"))?;
    h.keys
        .insert("eth".into(), json!({ "src": src, "dst": dst }));
    Ok(())
}

/// Reads a `vlan` header (at `b`) into `h`.
fn vlan(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["id", "priority", "cfi", "tpid"])?;
    let tpid = field(m, bp, "tpid", Kind::Int(16), "33024", warnings)?;
    if one(tpid, &join(bp, "tpid"))? != "33024" {
        return Err(format!("{bp}.tpid: only 0x8100 (802.1Q) is supported"));
    }
    let id = one(
        field(m, bp, "id", Kind::Int(12), "1", warnings)?,
        &join(bp, "id"),
    )?;
    let pcp = field(m, bp, "priority", Kind::Int(3), "0", warnings)?;
    let pcp = one(pcp, &join(bp, "priority"))?;
    let cfi = one(
        field(m, bp, "cfi", Kind::Int(1), "0", warnings)?,
        &join(bp, "cfi"),
    )?;
    h.keys.insert(
        "vlan".into(),
        json!({ "id": num(&id), "pcp": num(&pcp), "dei": cfi == "1" }),
    );
    Ok(())
}

/// Reads an `ipv4` header (at `b`) into `h`.
fn ipv4(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["src", "dst", "time_to_live", "dont_fragment"])?;
    let src = field(m, bp, "src", Kind::V4, "0.0.0.0", warnings)?;
    let dst = field(m, bp, "dst", Kind::V4, "0.0.0.0", warnings)?;
    let ttl = field(m, bp, "time_to_live", Kind::Int(8), "64", warnings)?;
    let ttl = one(ttl, &join(bp, "time_to_live"))?;
    let df = field(m, bp, "dont_fragment", Kind::Int(1), "0", warnings)?;
    let df = one(df, &join(bp, "dont_fragment"))?;
    h.note(join(bp, "src"), &src);
    h.note(join(bp, "dst"), &dst);
    h.keys.insert(
        "ipv4".into(),
        json!({ "src": src.yaml(), "dst": dst.yaml(), "ttl": num(&ttl), "df": df == "1" }),
    );
    Ok(())
}

/// Reads an `ipv6` header (at `b`) into `h`.
fn ipv6(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["src", "dst", "hop_limit", "traffic_class", "flow_label"])?;
    let src = field(m, bp, "src", Kind::V6, "::", warnings)?;
    let dst = field(m, bp, "dst", Kind::V6, "::", warnings)?;
    let hl = field(m, bp, "hop_limit", Kind::Int(8), "64", warnings)?;
    let tc = field(m, bp, "traffic_class", Kind::Int(8), "0", warnings)?;
    let fl = field(m, bp, "flow_label", Kind::Int(20), "0", warnings)?;
    h.note(join(bp, "src"), &src);
    h.note(join(bp, "dst"), &dst);
    h.keys.insert(
        "ipv6".into(),
        json!({
            "src": src.yaml(), "dst": dst.yaml(),
            "hop_limit": num(&one(hl, &join(bp, "hop_limit"))?),
            "traffic_class": num(&one(tc, &join(bp, "traffic_class"))?),
            "flow_label": num(&one(fl, &join(bp, "flow_label"))?),
        }),
    );
    Ok(())
}

/// Reads a `udp` header (at `b`) into `h`.
fn udp(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["src_port", "dst_port"])?;
    let udp = ports(m, bp, h, warnings)?;
    h.keys.insert("udp".into(), udp);
    Ok(())
}

/// A UDP or TCP header's `src_port` and `dst_port` (at `bp`), noted as
/// varying where they do, as the profile's `{src, dst}`.
fn ports(
    m: &Map<String, Value>,
    bp: &str,
    h: &mut Headers,
    warnings: &mut Vec<String>,
) -> Result<Value, Refusal> {
    let src = field(m, bp, "src_port", Kind::Int(16), "0", warnings)?;
    let dst = field(m, bp, "dst_port", Kind::Int(16), "0", warnings)?;
    h.note(join(bp, "src_port"), &src);
    h.note(join(bp, "dst_port"), &dst);
    Ok(json!({ "src": src.yaml_num(), "dst": dst.yaml_num() }))
}

/// Reads a `tcp` header (at `b`) into `h`: ports, the numbers it keeps
/// (`seq_num`, `ack_num`, `window`) and its `ctl_*` flags.
fn tcp(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    /// The flags, in their bits' order (`ctl_fin` is bit 0).
    const FLAGS: [&str; 8] = ["fin", "syn", "rst", "psh", "ack", "urg", "ece", "cwr"];
    let bp = b.path;
    let mut known = vec!["src_port", "dst_port", "seq_num", "ack_num", "window"];
    let ctl: Vec<String> = FLAGS.iter().map(|f| format!("ctl_{f}")).collect();
    known.extend(ctl.iter().map(String::as_str));
    let m = b.obj(&known)?;
    let mut tcp = ports(m, bp, h, warnings)?;
    for (key, name) in [("seq_num", "seq"), ("ack_num", "ack"), ("window", "window")] {
        if m.contains_key(key) {
            let bits = if key == "window" { 16 } else { 32 };
            let v = field(m, bp, key, Kind::Int(bits), "0", warnings)?;
            tcp[name] = num(&one(v, &join(bp, key))?);
        }
    }
    let mut flags = Vec::new();
    let mut any = false;
    for (f, key) in FLAGS.iter().zip(&ctl) {
        if m.contains_key(key.as_str()) {
            any = true;
            let v = field(m, bp, key, Kind::Int(1), "0", warnings)?;
            if one(v, &join(bp, key))? == "1" {
                flags.push(*f);
            }
        }
    }
    if any {
        tcp["flags"] = json!(flags);
    }
    h.keys.insert("tcp".into(), tcp);
    Ok(())
}
