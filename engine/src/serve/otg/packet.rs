//! A flow's `packet`: its headers in order (ethernet, up to two vlan,
//! mpls labels, ipv4 or ipv6, then udp or tcp; or those last two inside a
//! VXLAN or GRE tunnel) read as a landspeed stream's keys, one reader per
//! header kind.

use serde_json::{json, Map, Value};

use super::pattern::{field, num, one, Field, Kind};
use super::read::{join, opt, At};
use super::Refusal;

/// The header kinds a packet may hold.
const KINDS: [&str; 9] = [
    "ethernet", "vlan", "mpls", "ipv4", "ipv6", "udp", "tcp", "vxlan", "gre",
];

/// What landspeed sends, as the order a packet's headers must keep.
const ORDER: &str = "landspeed sends ethernet, up to two vlan (802.1ad 0x88a8 before 802.1Q \
     0x8100), mpls labels, then ipv4 or ipv6 and udp or tcp, optionally inside ipv4 or ipv6 \
     and udp and vxlan and ethernet, or inside ipv4 or ipv6 and gre";

/// One flow's headers as a landspeed stream (without name, id, size).
pub(super) struct Headers {
    /// The stream's keys: eth, qinq, vlan, mpls, vxlan/gre, ipv4/ipv6,
    /// udp/tcp, vary.
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

    /// The bytes of VLAN tags a frame carries (802.1Q and 802.1ad): what
    /// an Ethernet port's MTU does not count (MPLS labels it does).
    pub(super) fn tag_bytes(&self) -> u64 {
        let tags = ["qinq", "vlan"]
            .iter()
            .filter(|k| self.keys.contains_key(**k))
            .count() as u64;
        4 * tags
    }
}

/// Where a header stands in the packet: what came before it decides what
/// it is (an IP header before a tunnel is the tunnel's outer one).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stage {
    /// Nothing yet.
    Start,
    /// The wire's Ethernet header, and any tags after it.
    Eth,
    /// MPLS labels.
    Mpls,
    /// An IP header that carries a tunnel.
    OuterIp,
    /// The outer UDP header of VXLAN.
    OuterUdp,
    /// The VXLAN header.
    Vxlan,
    /// The inner Ethernet header of VXLAN.
    InnerEth,
    /// The GRE header.
    Gre,
    /// The stamped packet's IP header.
    Ip,
    /// Its UDP or TCP header: the end.
    L4,
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
    let mut choices = Vec::with_capacity(list.len());
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
        choices.push((hp, c, hm.get(c).unwrap_or(&empty)));
    }
    let tunnel = choices
        .iter()
        .position(|(_, c, _)| *c == "vxlan" || *c == "gre");
    let mut stage = Stage::Start;
    let mut tunnel_keys = Map::new();
    for (i, (hp, c, body)) in choices.iter().enumerate() {
        let before_tunnel = tunnel.is_some_and(|t| i < t);
        let next = place(hp, c, stage, before_tunnel)?;
        let bp = join(hp, c);
        let b = At { v: body, path: &bp };
        match (next, *c) {
            (Stage::Eth, "ethernet") => {
                h.keys.insert("eth".into(), ethernet(b, warnings)?);
            }
            (Stage::InnerEth, _) => {
                tunnel_keys.insert("eth".into(), ethernet(b, warnings)?);
            }
            (Stage::Eth, _) => vlan(b, &mut h, warnings)?,
            (Stage::Mpls, _) => mpls(b, &mut h, warnings)?,
            (Stage::OuterIp, _) => outer_ip(b, c, &mut tunnel_keys, warnings)?,
            (Stage::OuterUdp, _) => outer_udp(b, &mut tunnel_keys, warnings)?,
            (Stage::Vxlan, _) => vxlan(b, &mut tunnel_keys, warnings)?,
            (Stage::Gre, _) => gre(b, warnings)?,
            (_, "ipv4") => ipv4(b, &mut h, warnings)?,
            (_, "ipv6") => ipv6(b, &mut h, warnings)?,
            (_, "udp") => udp(b, &mut h, warnings)?,
            _ => tcp(b, &mut h, warnings)?,
        }
        stage = next;
    }
    if stage != Stage::L4 {
        return Err(format!(
            "{}: landspeed's stamp rides in UDP or TCP: the packet needs ethernet, ipv4 or ipv6, \
             and udp or tcp",
            at.path
        ));
    }
    if let Some(t) = tunnel {
        h.keys
            .insert(choices[t].1.into(), Value::Object(tunnel_keys));
    }
    Ok(h)
}

/// The header `c` (at `hp`) placed after the headers that reached `stage`,
/// `before_tunnel` when a vxlan or gre header follows it: the stage it
/// reaches, or why it cannot come here.
fn place(hp: &str, c: &str, stage: Stage, before_tunnel: bool) -> Result<Stage, Refusal> {
    use Stage::*;
    let next = match (c, stage) {
        ("ethernet", Start) => Some(Eth),
        ("ethernet", Vxlan) => Some(InnerEth),
        ("vlan", Eth) => Some(Eth),
        ("mpls", Eth | Mpls) => Some(Mpls),
        ("ipv4" | "ipv6", Eth | Mpls) if before_tunnel => Some(OuterIp),
        ("ipv4" | "ipv6", Eth | Mpls | InnerEth | Gre) => Some(Ip),
        ("udp", OuterIp) => Some(OuterUdp),
        ("vxlan", OuterUdp) => Some(Vxlan),
        ("gre", OuterIp) => Some(Gre),
        ("udp" | "tcp", Ip) => Some(L4),
        _ => None,
    };
    next.ok_or_else(|| format!("{hp}.choice: {c} cannot come here: {ORDER}"))
}

/// Reads an `mpls` header (at `b`) into `h`'s label stack: `label`,
/// `traffic_class`, `time_to_live`; the bottom of the stack is the last
/// label's, as landspeed sets it.
fn mpls(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["label", "traffic_class", "bottom_of_stack", "time_to_live"])?;
    if m.contains_key("bottom_of_stack") {
        return Err(format!(
            "{bp}.bottom_of_stack: is not supported: landspeed sets it on the last label"
        ));
    }
    let mut read = |key: &str, bits: u32, default: &str| -> Result<Value, Refusal> {
        let f = field(m, bp, key, Kind::Int(bits), default, warnings)?;
        Ok(num(&one(f, &join(bp, key))?))
    };
    let label = json!({
        "label": read("label", 20, "16")?,
        "tc": read("traffic_class", 3, "0")?,
        "ttl": read("time_to_live", 8, "64")?,
    });
    let stack = h.keys.entry("mpls").or_insert_with(|| json!([]));
    if let Value::Array(l) = stack {
        l.push(label);
    }
    Ok(())
}

/// Reads a tunnel's outer `ipv4` or `ipv6` header (at `b`) into the
/// tunnel's keys: one source and one destination, and its TTL or hop
/// limit. landspeed sets DF on an outer IPv4 header.
fn outer_ip(
    b: At,
    c: &str,
    t: &mut Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<(), Refusal> {
    let bp = b.path;
    let (kind, hops, any) = if c == "ipv4" {
        (Kind::V4, "time_to_live", "0.0.0.0")
    } else {
        (Kind::V6, "hop_limit", "::")
    };
    let m = b.obj(&["src", "dst", hops, "dont_fragment"])?;
    if c == "ipv6" && m.contains_key("dont_fragment") {
        return Err(b.no("dont_fragment is an ipv4 field"));
    }
    let mut read = |key: &str, kind: Kind, default: &str| -> Result<String, Refusal> {
        let f = field(m, bp, key, kind, default, warnings)?;
        one(f, &join(bp, key))
            .map_err(|_| format!("{}: a tunnel endpoint is one value", join(bp, key)))
    };
    let src = read("src", kind, any)?;
    let dst = read("dst", kind, any)?;
    let h = read(hops, Kind::Int(8), "64")?;
    if c == "ipv4" && read("dont_fragment", Kind::Int(1), "1")? != "1" {
        return Err(format!(
            "{}: 0 is not supported: landspeed sets DF on a tunnel's outer IPv4 header",
            join(bp, "dont_fragment")
        ));
    }
    let key = if c == "ipv4" { "ttl" } else { "hop_limit" };
    t.insert(c.into(), json!({ "src": src, "dst": dst, key: num(&h) }));
    Ok(())
}

/// Reads VXLAN's outer `udp` header (at `b`): one source and one
/// destination port.
fn outer_udp(b: At, t: &mut Map<String, Value>, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["src_port", "dst_port"])?;
    for (key, default) in [("src_port", "49152"), ("dst_port", "4789")] {
        let f = field(m, bp, key, Kind::Int(16), default, warnings)?;
        let v = one(f, &join(bp, key))
            .map_err(|_| format!("{}: a tunnel's port is one value", join(bp, key)))?;
        t.insert(key.into(), num(&v));
    }
    Ok(())
}

/// Reads a `vxlan` header (at `b`): its `vni`; flags and reserved fields
/// as RFC 7348 has them.
fn vxlan(b: At, t: &mut Map<String, Value>, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["flags", "reserved0", "vni", "reserved1"])?;
    for (key, bits, want) in [
        ("flags", 8, "8"),
        ("reserved0", 24, "0"),
        ("reserved1", 8, "0"),
    ] {
        let f = field(m, bp, key, Kind::Int(bits), want, warnings)?;
        if one(f, &join(bp, key))? != want {
            return Err(format!(
                "{}: only {want} is supported (RFC 7348: the I flag alone, reserved 0)",
                join(bp, key)
            ));
        }
    }
    let vni = field(m, bp, "vni", Kind::Int(24), "0", warnings)?;
    t.insert("vni".into(), num(&one(vni, &join(bp, "vni"))?));
    Ok(())
}

/// Reads a `gre` header (at `b`): version 0 without a checksum, its
/// protocol that of the packet inside (landspeed sets it).
fn gre(b: At, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&[
        "checksum_present",
        "reserved0",
        "version",
        "protocol",
        "checksum",
        "reserved1",
    ])?;
    if m.contains_key("protocol") {
        return Err(format!(
            "{}: is not supported: landspeed sets it from the next header",
            join(bp, "protocol")
        ));
    }
    for key in [
        "checksum_present",
        "reserved0",
        "version",
        "reserved1",
        "checksum",
    ] {
        let f = field(m, bp, key, Kind::Int(16), "0", warnings)?;
        if one(f, &join(bp, key))? != "0" {
            return Err(format!(
                "{}: only 0 is supported (landspeed sends GRE version 0 without a checksum)",
                join(bp, key)
            ));
        }
    }
    Ok(())
}

/// Reads an `ethernet` header (at `b`) as the profile's `{src, dst}`.
fn ethernet(b: At, warnings: &mut Vec<String>) -> Result<Value, Refusal> {
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
    Ok(json!({ "src": src, "dst": dst }))
}

/// Reads a `vlan` header (at `b`) into `h`: TPID 0x8100 the 802.1Q tag,
/// 0x88a8 the 802.1ad service tag before it.
fn vlan(b: At, h: &mut Headers, warnings: &mut Vec<String>) -> Result<(), Refusal> {
    let bp = b.path;
    let m = b.obj(&["id", "priority", "cfi", "tpid"])?;
    let tpid = field(m, bp, "tpid", Kind::Int(16), "33024", warnings)?;
    let key = match one(tpid, &join(bp, "tpid"))?.as_str() {
        "33024" => "vlan",
        "34984" => "qinq",
        _ => {
            return Err(format!(
                "{bp}.tpid: only 0x8100 (802.1Q) and 0x88a8 (802.1ad) are supported"
            ))
        }
    };
    if h.keys.contains_key(key) || (key == "qinq" && h.keys.contains_key("vlan")) {
        return Err(format!(
            "{bp}.tpid: landspeed sends at most one 802.1ad tag, then at most one 802.1Q tag"
        ));
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
        key.into(),
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
