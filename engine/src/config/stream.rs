//! `streams[i]` → the wire module's [`StreamSpec`].

use std::fmt::Display;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use super::yaml::Value;

use crate::wire::mpls::{MplsLabel, LABEL_MAX};
use crate::wire::spec::{
    Encap, EthAddrs, EthSpec, IpSpec, L4Spec, OuterIp, SetElem, SizeSpec, StreamSpec, Tunnel,
    ValueSet, Vary, VlanSpec, DEFAULT_FRAME_SIZE,
};
use crate::wire::tcp::TcpFlags;
use crate::wire::vxlan::{VNI_MAX, VXLAN_PORT};
use crate::wire::MacAddr;

use super::check::Checker;
use super::error::ConfigError;
use super::raw::{self, scalar_text};
use super::yaml::describe;

/// TCP flag names accepted in `tcp.flags`, with their bits.
const TCP_FLAGS: [(&str, TcpFlags); 9] = [
    ("fin", TcpFlags::FIN),
    ("syn", TcpFlags::SYN),
    ("rst", TcpFlags::RST),
    ("psh", TcpFlags::PSH),
    ("ack", TcpFlags::ACK),
    ("urg", TcpFlags::URG),
    ("ece", TcpFlags::ECE),
    ("cwr", TcpFlags::CWR),
    ("ns", TcpFlags::NS),
];

/// Build and check one stream; `at` is its path (`streams[2]`).
pub(crate) fn build(
    ck: &Checker<'_>,
    at: &str,
    id: u32,
    name: &str,
    s: &raw::Stream,
) -> Result<StreamSpec, ConfigError> {
    let d = StreamSpec::default();
    let spec = StreamSpec {
        id,
        name: name.to_string(),
        eth: eth(ck, at, &s.eth, &d.eth)?,
        vlan: vlan(ck, &format!("{at}.vlan"), s.vlan.as_ref())?,
        qinq: vlan(ck, &format!("{at}.qinq"), s.qinq.as_ref())?,
        encap: encap(ck, at, s, &d.eth.first())?,
        ip: ip(ck, at, s, &d.ip)?,
        l4: l4(ck, at, s, &d.l4)?,
        size: size(ck, &format!("{at}.frame_size"), s.frame_size.as_ref())?,
        vary: vary(ck, &format!("{at}.vary"), s.vary.as_ref())?,
    };
    spec.validate()
        .map_err(|e| ck.err(format!("{at}.{}", yaml_field(&spec, &e.field)), e.message))?;
    Ok(spec)
}

/// `eth:`: each address one MAC, a range `first-last` or a list; an
/// absent one keeps the default's.
fn eth(
    ck: &Checker<'_>,
    at: &str,
    e: &raw::Eth,
    default: &EthAddrs,
) -> Result<EthAddrs, ConfigError> {
    let first = default.first();
    let set = |key: &str, v: &Option<Value>, default: MacAddr| {
        value_set(
            ck,
            &format!("{at}.eth.{key}"),
            v.as_ref(),
            default,
            mac_range,
            |f, t| mac(ck, f, t),
        )
    };
    Ok(EthAddrs {
        src: set("src", &e.src, first.src)?,
        dst: set("dst", &e.dst, first.dst)?,
    })
}

/// A MAC range's two ends: none for one address; with `:` octets the
/// range's `-` is the only one, with `-` octets it is the sixth.
fn mac_range(t: &str) -> Option<(&str, &str)> {
    if t.trim().parse::<MacAddr>().is_ok() {
        return None;
    }
    if t.contains(':') {
        return t.split_once('-');
    }
    t.match_indices('-')
        .nth(5)
        .map(|(i, _)| (&t[..i], &t[i + 1..]))
}

/// An Ethernet header's addresses at `at` (a tunnel's inner header: one
/// address each); an absent one keeps the default's.
fn eth_of(
    ck: &Checker<'_>,
    at: &str,
    e: &raw::Eth,
    default: &EthSpec,
) -> Result<EthSpec, ConfigError> {
    let one = |key: &str, v: &Option<Value>, default: MacAddr| {
        let field = format!("{at}.{key}");
        match v {
            None | Some(Value::Null) => Ok(default),
            Some(v) => match scalar_text(v) {
                Some(text) => mac(ck, &field, &text),
                None => Err(ck.err(
                    &field,
                    format!("expected one MAC address, found {}", describe(v)),
                )),
            },
        }
    };
    Ok(EthSpec {
        src: one("src", &e.src, default.src)?,
        dst: one("dst", &e.dst, default.dst)?,
    })
}

/// `vlan:` or `qinq:` at `at`, `None` when the stream has no such tag.
fn vlan(
    ck: &Checker<'_>,
    at: &str,
    v: Option<&raw::Vlan>,
) -> Result<Option<VlanSpec>, ConfigError> {
    let Some(v) = v else { return Ok(None) };
    Ok(Some(VlanSpec {
        id: int_in(ck, &format!("{at}.id"), Some(&v.id), 0, 4094, 0)? as u16,
        pcp: int_in(ck, &format!("{at}.pcp"), v.pcp.as_ref(), 0, 7, 0)? as u8,
        dei: v.dei,
    }))
}

/// `mpls:` and `vxlan:` or `gre:` (at most one tunnel); `eth` the stream's
/// Ethernet addresses, a VXLAN inner header's defaults.
fn encap(
    ck: &Checker<'_>,
    at: &str,
    s: &raw::Stream,
    eth_default: &EthSpec,
) -> Result<Encap, ConfigError> {
    let mut labels = Vec::new();
    for (i, m) in s.mpls.iter().flatten().enumerate() {
        let f = |key: &str| format!("{at}.mpls[{i}].{key}");
        labels.push(MplsLabel {
            label: int_in(ck, &f("label"), Some(&m.label), 0, u64::from(LABEL_MAX), 0)? as u32,
            tc: int_in(ck, &f("tc"), m.tc.as_ref(), 0, 7, 0)? as u8,
            ttl: int_in(ck, &f("ttl"), m.ttl.as_ref(), 0, 255, 64)? as u8,
        });
    }
    if s.mpls.as_ref().is_some_and(|m| m.is_empty()) {
        return Err(ck.err(
            format!("{at}.mpls"),
            "an empty label stack: give at least one label, or drop mpls:",
        ));
    }
    let tunnel = match (&s.vxlan, &s.gre) {
        (Some(_), Some(_)) => return Err(both(ck, at, ("VXLAN", "vxlan"), ("GRE", "gre"))),
        (Some(v), None) => {
            let f = |key: &str| format!("{at}.vxlan.{key}");
            let eth = match &v.eth {
                Some(e) => eth_of(ck, &f("eth"), e, eth_default)?,
                None => *eth_default,
            };
            Some(Tunnel::Vxlan {
                outer: outer_ip(ck, &format!("{at}.vxlan"), &v.ipv4, &v.ipv6)?,
                vni: int_in(ck, &f("vni"), Some(&v.vni), 0, u64::from(VNI_MAX), 0)? as u32,
                src_port: int_in(ck, &f("src_port"), v.src_port.as_ref(), 0, 65535, 49152)? as u16,
                dst_port: int_in(
                    ck,
                    &f("dst_port"),
                    v.dst_port.as_ref(),
                    0,
                    65535,
                    u64::from(VXLAN_PORT),
                )? as u16,
                inner: eth,
            })
        }
        (None, Some(g)) => {
            let key = match &g.key {
                None | Some(Value::Null) => None,
                Some(k) => {
                    Some(int_in(ck, &format!("{at}.gre.key"), Some(k), 0, 0xFFFF_FFFF, 0)? as u32)
                }
            };
            Some(Tunnel::Gre {
                outer: outer_ip(ck, &format!("{at}.gre"), &g.ipv4, &g.ipv6)?,
                key,
                sequence: g.sequence,
            })
        }
        (None, None) => None,
    };
    Ok(Encap {
        mpls: labels,
        tunnel,
    })
}

/// A tunnel's outer `ipv4:` or `ipv6:` under `at`: exactly one, each
/// endpoint one address.
fn outer_ip(
    ck: &Checker<'_>,
    at: &str,
    v4: &Option<raw::OuterIpv4>,
    v6: &Option<raw::OuterIpv6>,
) -> Result<OuterIp, ConfigError> {
    match (v4, v6) {
        (Some(_), Some(_)) => Err(both(ck, at, ("IPv4", "ipv4"), ("IPv6", "ipv6"))),
        (None, None) => Err(ck.err(
            at,
            "a tunnel needs its outer header: give ipv4: or ipv6: with the endpoints' src: and dst:",
        )),
        (Some(o), None) => {
            let f = |key: &str| format!("{at}.ipv4.{key}");
            Ok(OuterIp::V4 {
                src: endpoint(ck, &f("src"), o.src.as_ref(), Ipv4Addr::new(198, 18, 255, 1))?,
                dst: endpoint(ck, &f("dst"), o.dst.as_ref(), Ipv4Addr::new(198, 19, 255, 1))?,
                dscp: int_in(ck, &f("dscp"), o.dscp.as_ref(), 0, 63, 0)? as u8,
                ttl: int_in(ck, &f("ttl"), o.ttl.as_ref(), 1, 255, 64)? as u8,
            })
        }
        (None, Some(o)) => {
            let f = |key: &str| format!("{at}.ipv6.{key}");
            let tc = o.traffic_class.as_ref();
            Ok(OuterIp::V6 {
                src: endpoint(ck, &f("src"), o.src.as_ref(), V6_TUNNEL_SRC)?,
                dst: endpoint(ck, &f("dst"), o.dst.as_ref(), V6_TUNNEL_DST)?,
                traffic_class: int_in(ck, &f("traffic_class"), tc, 0, 255, 0)? as u8,
                hop_limit: int_in(ck, &f("hop_limit"), o.hop_limit.as_ref(), 1, 255, 64)? as u8,
            })
        }
    }
}

/// One tunnel endpoint: a single address (no range or list).
fn endpoint<A: Family>(
    ck: &Checker<'_>,
    field: &str,
    v: Option<&Value>,
    default: A,
) -> Result<A, ConfigError> {
    match addrs::<A>(ck, field, v, default)? {
        ValueSet::Single(a) => Ok(a),
        _ => Err(ck.err(
            field,
            "a tunnel endpoint is one address: give one, not a range or a list",
        )),
    }
}

/// `ipv4:` or `ipv6:` (at most one of them), else `default`.
fn ip(
    ck: &Checker<'_>,
    at: &str,
    s: &raw::Stream,
    default: &IpSpec,
) -> Result<IpSpec, ConfigError> {
    match (&s.ipv4, &s.ipv6) {
        (Some(_), Some(_)) => Err(both(ck, at, ("IPv4", "ipv4"), ("IPv6", "ipv6"))),
        (Some(v4), None) => ipv4(ck, at, v4),
        (None, Some(v6)) => ipv6(ck, at, v6),
        (None, None) => Ok(default.clone()),
    }
}

/// `ipv4:`
fn ipv4(ck: &Checker<'_>, at: &str, v4: &raw::Ipv4) -> Result<IpSpec, ConfigError> {
    let f = |key: &str| format!("{at}.ipv4.{key}");
    Ok(IpSpec::V4 {
        src: addrs::<Ipv4Addr>(ck, &f("src"), v4.src.as_ref(), Ipv4Addr::new(198, 18, 0, 1))?,
        dst: addrs::<Ipv4Addr>(ck, &f("dst"), v4.dst.as_ref(), Ipv4Addr::new(198, 19, 0, 1))?,
        dscp: int_in(ck, &f("dscp"), v4.dscp.as_ref(), 0, 63, 0)? as u8,
        ecn: int_in(ck, &f("ecn"), v4.ecn.as_ref(), 0, 3, 0)? as u8,
        ttl: int_in(ck, &f("ttl"), v4.ttl.as_ref(), 1, 255, 64)? as u8,
        dont_fragment: v4.df.unwrap_or(true),
    })
}

/// `ipv6:`
fn ipv6(ck: &Checker<'_>, at: &str, v6: &raw::Ipv6) -> Result<IpSpec, ConfigError> {
    let f = |key: &str| format!("{at}.ipv6.{key}");
    let tc = v6.traffic_class.as_ref();
    Ok(IpSpec::V6 {
        src: addrs::<Ipv6Addr>(ck, &f("src"), v6.src.as_ref(), V6_SRC)?,
        dst: addrs::<Ipv6Addr>(ck, &f("dst"), v6.dst.as_ref(), V6_DST)?,
        traffic_class: int_in(ck, &f("traffic_class"), tc, 0, 255, 0)? as u8,
        flow_label: int_in(ck, &f("flow_label"), v6.flow_label.as_ref(), 0, 0xF_FFFF, 0)? as u32,
        hop_limit: int_in(ck, &f("hop_limit"), v6.hop_limit.as_ref(), 1, 255, 64)? as u8,
    })
}

/// `udp:` or `tcp:` (at most one of them), else `default`.
fn l4(
    ck: &Checker<'_>,
    at: &str,
    s: &raw::Stream,
    default: &L4Spec,
) -> Result<L4Spec, ConfigError> {
    match (&s.udp, &s.tcp) {
        (Some(_), Some(_)) => Err(both(ck, at, ("UDP", "udp"), ("TCP", "tcp"))),
        (Some(u), None) => Ok(L4Spec::Udp {
            src_port: ports(ck, &format!("{at}.udp.src"), u.src.as_ref(), 49152)?,
            dst_port: ports(ck, &format!("{at}.udp.dst"), u.dst.as_ref(), 5001)?,
        }),
        (None, Some(t)) => tcp(ck, at, t),
        (None, None) => Ok(default.clone()),
    }
}

/// `tcp:`
fn tcp(ck: &Checker<'_>, at: &str, t: &raw::Tcp) -> Result<L4Spec, ConfigError> {
    let f = |key: &str| format!("{at}.tcp.{key}");
    let u32_max = u32::MAX as u64;
    Ok(L4Spec::Tcp {
        src_port: ports(ck, &f("src"), t.src.as_ref(), 49152)?,
        dst_port: ports(ck, &f("dst"), t.dst.as_ref(), 5001)?,
        seq_start: int_in(ck, &f("seq"), t.seq.as_ref(), 0, u32_max, 1)? as u32,
        ack: int_in(ck, &f("ack"), t.ack.as_ref(), 0, u32_max, 1)? as u32,
        window: int_in(ck, &f("window"), t.window.as_ref(), 0, 65535, 65535)? as u16,
        flags: tcp_flags(ck, &f("flags"), t.flags.as_ref())?,
    })
}

/// The error for a stream that gives two exclusive sections, each as
/// (name in prose, key); it points at the second.
fn both(ck: &Checker<'_>, at: &str, a: (&str, &str), b: (&str, &str)) -> ConfigError {
    ck.err(
        format!("{at}.{}", b.1),
        format!(
            "a stream is either {} or {}: keep one of {}: and {}:",
            a.0, b.0, a.1, b.1
        ),
    )
}

/// Default IPv6 source (documentation prefix).
const V6_SRC: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
/// Default IPv6 destination.
const V6_DST: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 2);
/// Default outer IPv6 source of a tunnel (documentation prefix).
const V6_TUNNEL_SRC: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 1);
/// Default outer IPv6 destination of a tunnel.
const V6_TUNNEL_DST: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0xffff, 0, 0, 0, 0, 2);

/// The profile key for a field name of [`StreamSpec::validate`]'s errors.
fn yaml_field(spec: &StreamSpec, field: &str) -> String {
    let ip = match spec.ip {
        IpSpec::V4 { .. } => "ipv4",
        IpSpec::V6 { .. } => "ipv6",
    };
    let l4 = match spec.l4 {
        L4Spec::Udp { .. } => "udp",
        L4Spec::Tcp { .. } => "tcp",
    };
    if field == "size" {
        return "frame_size".into();
    }
    if let Some(rest) = field.strip_prefix("ip.") {
        return format!("{ip}.{}", if rest == "dont_fragment" { "df" } else { rest });
    }
    if let Some(rest) = field.strip_prefix("l4.") {
        let rest = rest.strip_suffix("_port").unwrap_or(rest);
        let rest = if rest == "seq_start" { "seq" } else { rest };
        return format!("{l4}.{rest}");
    }
    field.to_string()
}

/// The largest frame (with FCS) the stream sends.
pub(crate) fn max_frame(s: &StreamSpec) -> u32 {
    s.frame_sizes().into_iter().max().unwrap_or(0) as u32
}

/// A MAC address.
fn mac(ck: &Checker<'_>, field: &str, text: &str) -> Result<MacAddr, ConfigError> {
    text.trim().parse::<MacAddr>().map_err(|_| {
        ck.err(
            field,
            format!("`{text}` is not a MAC address (write six hex octets, e.g. 02:00:00:00:00:01)"),
        )
    })
}

/// An integer in `lo..=hi`; `default` when the key is absent or null.
fn int_in(
    ck: &Checker<'_>,
    field: &str,
    v: Option<&Value>,
    lo: u64,
    hi: u64,
    default: u64,
) -> Result<u64, ConfigError> {
    let v = match v {
        None | Some(Value::Null) => return Ok(default),
        Some(v) => v,
    };
    let n = match v {
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                u
            } else if n.as_i64().is_some() {
                return Err(ck.err(field, format!("{n} is out of range {lo}..={hi}")));
            } else {
                return Err(ck.err(field, format!("{n} is not a whole number")));
            }
        }
        Value::String(s) => parse_int(s).ok_or_else(|| {
            ck.err(
                field,
                format!("expected a whole number, found {}", describe(v)),
            )
        })?,
        other => {
            return Err(ck.err(
                field,
                format!("expected a whole number, found {}", describe(other)),
            ))
        }
    };
    if n < lo || n > hi {
        let hi_text = if hi > 0xFFFF && hi != u32::MAX as u64 {
            format!("{hi:#x}")
        } else {
            hi.to_string()
        };
        return Err(ck.err(field, format!("{n} is out of range {lo}..={hi_text}")));
    }
    Ok(n)
}

/// A whole number written as text: decimal or `0x` hexadecimal.
fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// An address family, for messages.
trait Family: SetElem + FromStr {
    /// `IPv4` or `IPv6`.
    const NAME: &'static str;
    /// The key of the other family.
    const OTHER_KEY: &'static str;
}

impl Family for Ipv4Addr {
    const NAME: &'static str = "IPv4";
    const OTHER_KEY: &'static str = "ipv6";
}

impl Family for Ipv6Addr {
    const NAME: &'static str = "IPv6";
    const OTHER_KEY: &'static str = "ipv4";
}

/// One address of family `A`, with a clear message for the other family.
fn addr<A: Family>(ck: &Checker<'_>, field: &str, text: &str) -> Result<A, ConfigError> {
    let t = text.trim();
    if let Ok(a) = t.parse::<A>() {
        return Ok(a);
    }
    let msg = match t.parse::<IpAddr>() {
        Ok(other) => format!(
            "{other} is not an {} address: this stream is {}; use {}: for {} addresses",
            A::NAME,
            A::NAME,
            A::OTHER_KEY,
            if A::NAME == "IPv4" { "IPv6" } else { "IPv4" }
        ),
        Err(_) => format!("`{t}` is not an {} address", A::NAME),
    };
    Err(ck.err(field, msg))
}

/// An address set: `a`, `a-b` (inclusive range) or a list `[a, b, ...]`.
fn addrs<A: Family>(
    ck: &Checker<'_>,
    field: &str,
    v: Option<&Value>,
    default: A,
) -> Result<ValueSet<A>, ConfigError> {
    value_set(ck, field, v, default, dash, |f, t| addr::<A>(ck, f, t))
}

/// A port set: `5001`, `1024-1087` or a list `[80, 443]`.
fn ports(
    ck: &Checker<'_>,
    field: &str,
    v: Option<&Value>,
    default: u16,
) -> Result<ValueSet<u16>, ConfigError> {
    value_set(ck, field, v, default, dash, |f, t| {
        let n: u64 = t
            .trim()
            .parse()
            .map_err(|_| ck.err(f, format!("`{}` is not a port number", t.trim())))?;
        u16::try_from(n).map_err(|_| ck.err(f, format!("{n} is out of range 0..=65535")))
    })
}

/// A range's two ends at its `-`, none for one value.
fn dash(t: &str) -> Option<(&str, &str)> {
    t.split_once('-')
}

/// A single value, an inclusive `first-last` range (its ends found by
/// `range`) or a list, each value parsed by `one`; checked for first >
/// last, empty lists and duplicates.
fn value_set<T: SetElem + Display>(
    ck: &Checker<'_>,
    field: &str,
    v: Option<&Value>,
    default: T,
    range: fn(&str) -> Option<(&str, &str)>,
    one: impl Fn(&str, &str) -> Result<T, ConfigError>,
) -> Result<ValueSet<T>, ConfigError> {
    let set = match v {
        None | Some(Value::Null) => ValueSet::Single(default),
        Some(Value::Sequence(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let at = format!("{field}[{k}]");
                let text = scalar_text(item).ok_or_else(|| {
                    ck.err(&at, format!("expected one value, found {}", describe(item)))
                })?;
                out.push(one(&at, &text)?);
            }
            ValueSet::List(out)
        }
        Some(v) => {
            let text = scalar_text(v).ok_or_else(|| {
                ck.err(
                    field,
                    format!(
                        "expected a value, a range `first-last` or a list, found {}",
                        describe(v)
                    ),
                )
            })?;
            match range(&text) {
                Some((a, b)) => {
                    let (first, last) = (one(field, a)?, one(field, b)?);
                    if first > last {
                        return Err(ck.err(
                            field,
                            format!(
                                "range {first}-{last} is impossible: its first value is above its last"
                            ),
                        ));
                    }
                    ValueSet::Range { first, last }
                }
                None => ValueSet::Single(one(field, &text)?),
            }
        }
    };
    set.validate("").map_err(|e| ck.err(field, e.message))?;
    Ok(set)
}

/// `tcp.flags`: a list of names (`[ack, psh]`) or one text (`ack,psh`,
/// `ACK|PSH`); default ACK.
fn tcp_flags(ck: &Checker<'_>, field: &str, v: Option<&Value>) -> Result<TcpFlags, ConfigError> {
    let names: Vec<(String, String)> = match v {
        None | Some(Value::Null) => return Ok(TcpFlags::ACK),
        Some(Value::Sequence(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let at = format!("{field}[{k}]");
                match scalar_text(item) {
                    Some(t) => out.push((at, t)),
                    None => {
                        return Err(ck.err(
                            at,
                            format!("expected a flag name, found {}", describe(item)),
                        ))
                    }
                }
            }
            out
        }
        Some(v) => match scalar_text(v) {
            Some(t) => t
                .split([',', '|', ' ', '+'])
                .filter(|p| !p.trim().is_empty())
                .map(|p| (field.to_string(), p.to_string()))
                .collect(),
            None => {
                return Err(ck.err(
                    field,
                    format!("expected a list of flag names, found {}", describe(v)),
                ))
            }
        },
    };
    let mut flags = TcpFlags(0);
    for (at, name) in &names {
        let lower = name.trim().to_ascii_lowercase();
        match TCP_FLAGS.iter().find(|(n, _)| *n == lower) {
            Some((_, bit)) => flags = flags | *bit,
            None => {
                let all: Vec<&str> = TCP_FLAGS.iter().map(|(n, _)| *n).collect();
                return Err(ck.err(
                    at,
                    format!("unknown TCP flag `{}`: use {}", name.trim(), all.join(", ")),
                ));
            }
        }
    }
    if names.is_empty() {
        return Err(ck.err(field, "no flags given: data segments carry at least ack"));
    }
    Ok(flags)
}

/// `frame_size`: a number, a list (cycled) or `imix`; default 9130.
fn size(ck: &Checker<'_>, field: &str, v: Option<&Value>) -> Result<SizeSpec, ConfigError> {
    let one = |at: &str, v: &Value| -> Result<usize, ConfigError> {
        match v {
            Value::Number(n) => n
                .as_u64()
                .map(|n| n as usize)
                .ok_or_else(|| ck.err(at, format!("{n} is not a frame size in bytes"))),
            Value::String(s) => s
                .trim()
                .parse()
                .map_err(|_| ck.err(at, format!("`{s}` is not a frame size in bytes"))),
            other => Err(ck.err(
                at,
                format!("expected a frame size in bytes, found {}", describe(other)),
            )),
        }
    };
    match v {
        None | Some(Value::Null) => Ok(SizeSpec::Fixed(DEFAULT_FRAME_SIZE)),
        Some(Value::String(s)) if s.trim().eq_ignore_ascii_case("imix") => Ok(SizeSpec::Imix),
        Some(Value::Sequence(items)) => {
            if items.is_empty() {
                return Err(ck.err(field, "an empty list has no frame size"));
            }
            let sizes = items
                .iter()
                .enumerate()
                .map(|(k, item)| one(&format!("{field}[{k}]"), item))
                .collect::<Result<Vec<usize>, ConfigError>>()?;
            Ok(SizeSpec::Cycle(sizes))
        }
        Some(v) => Ok(SizeSpec::Fixed(one(field, v)?)),
    }
}

/// `vary`: `step` (default), `random` (seed 1), `random:SEED` or
/// `{ random: SEED }`.
fn vary(ck: &Checker<'_>, field: &str, v: Option<&Value>) -> Result<Vary, ConfigError> {
    let bad = |found: &str| {
        ck.err(
            field,
            format!("{found}: use step, random, or {{ random: SEED }}"),
        )
    };
    let seed_of = |v: &Value| -> Result<u64, ConfigError> {
        match v {
            Value::Number(n) => n
                .as_u64()
                .ok_or_else(|| bad(&format!("seed {n} is not a whole number"))),
            Value::String(s) => {
                parse_int(s).ok_or_else(|| bad(&format!("seed `{s}` is not a whole number")))
            }
            other => Err(bad(&format!(
                "seed {} is not a whole number",
                describe(other)
            ))),
        }
    };
    match v {
        None | Some(Value::Null) => Ok(Vary::Step),
        Some(Value::String(s)) => {
            let t = s.trim().to_ascii_lowercase();
            match t.split_once(':') {
                None if t == "step" => Ok(Vary::Step),
                None if t == "random" => Ok(Vary::Random { seed: 1 }),
                Some(("random", seed)) => Ok(Vary::Random {
                    seed: seed_of(&Value::String(seed.to_string()))?,
                }),
                _ => Err(bad(&format!("unknown variation `{s}`"))),
            }
        }
        Some(Value::Mapping(m)) if m.len() == 1 => {
            let (k, val) = m.iter().next().expect("one entry");
            match k.as_str() {
                Some("random") => Ok(Vary::Random {
                    seed: seed_of(val)?,
                }),
                _ => Err(bad(&format!("unknown variation {}", describe(k)))),
            }
        }
        Some(other) => Err(bad(&format!("unexpected {}", describe(other)))),
    }
}

impl super::Plan {
    /// Warnings, as `file:line: field: message`, for a profile that sends
    /// or lists more streams than one RX lcore tracks (`limit`): the frames
    /// of the streams beyond it will count as overflow, not checked.
    pub fn stream_tracking_warnings(&self, limit: usize) -> Vec<String> {
        let mut out = Vec::new();
        for (ri, r) in self.rx.iter().enumerate() {
            if let super::RxStreams::Listed(v) = &r.streams {
                if v.len() > limit {
                    let msg = format!(
                        "lists {} streams, but an RX lcore tracks at most {limit}: frames of the others will count as overflow",
                        v.len()
                    );
                    out.push(self.error(&format!("rx[{ri}].streams"), msg).to_string());
                }
            }
        }
        let mut sent: Vec<usize> = self.tx.iter().flat_map(|t| t.streams.clone()).collect();
        sent.sort_unstable();
        sent.dedup();
        if sent.len() > limit {
            let msg = format!(
                "sends {} streams, but a landspeed RX lcore tracks at most {limit}: spread them over several RX lcores (queues), or the frames of the streams beyond {limit} on one lcore count as overflow, not checked",
                sent.len()
            );
            out.push(self.error("tx", msg).to_string());
        }
        out
    }
}

#[cfg(test)]
mod tracking_tests {
    use crate::config::load_str;

    /// A profile with two streams, sent by one task and listed by a
    /// receiver.
    const TWO: &str = "\
eal:
  cores: [0, 1, 2]
  vdevs: [net_null0]
ports:
  - name: p0
    device: net_null0
streams:
  - { name: a, id: 1 }
  - { name: b, id: 2 }
tx:
  - { lcore: 1, port: p0, rate: 1G }
rx:
  - { lcore: 2, port: p0, streams: [a, b] }
";

    #[test]
    fn more_streams_than_an_rx_lcore_tracks_are_warned_of() {
        let plan = load_str(TWO, "t.yaml").unwrap();
        assert!(plan.stream_tracking_warnings(2).is_empty());
        let w = plan.stream_tracking_warnings(1);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(
            w[0].starts_with(
                "t.yaml:13: rx[0].streams: lists 2 streams, but an RX lcore tracks at most 1"
            ),
            "{}",
            w[0]
        );
        assert!(
            w[1].starts_with(
                "t.yaml:10: tx: sends 2 streams, but a landspeed RX lcore tracks at most 1"
            ),
            "{}",
            w[1]
        );
    }
}
