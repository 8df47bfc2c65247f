//! The profile as written: serde structures that mirror the YAML keys.
//! Unknown keys are errors; values whose syntax belongs to another module
//! (rates, modes, addresses, ranges) are kept as text or as a YAML value
//! and parsed during validation, where errors can name the key.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

pub(crate) use super::yaml::Value;

/// The whole profile.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with eal:, ports:, streams:, tx:, rx: and run:"
)]
pub(crate) struct Profile {
    pub eal: Eal,
    #[serde(default)]
    pub ports: Vec<Port>,
    #[serde(default)]
    pub streams: Vec<Stream>,
    #[serde(default)]
    pub tx: Vec<Tx>,
    #[serde(default)]
    pub rx: Vec<Rx>,
    #[serde(default)]
    pub run: Run,
    #[serde(default)]
    pub certify: RawCertify,
}

/// `eal:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of EAL settings (cores:, cpus:, memory_mb:, hugepages:, vdevs:, pci:, ...)"
)]
pub(crate) struct Eal {
    pub cores: Vec<u32>,
    #[serde(default)]
    pub cpus: Option<Vec<u32>>,
    #[serde(default = "default_memory_mb")]
    pub memory_mb: u32,
    #[serde(default)]
    pub hugepages: bool,
    #[serde(default)]
    pub vdevs: Vec<String>,
    #[serde(default)]
    pub pci: Vec<String>,
    #[serde(default)]
    pub ring_mesh: Option<u32>,
    #[serde(default = "default_auto")]
    pub file_prefix: String,
    #[serde(default = "default_log_level")]
    pub log_level: String,
    #[serde(default)]
    pub extra_args: Vec<String>,
}

/// One item of `ports:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a port: a mapping with name:, device: and optional settings"
)]
pub(crate) struct Port {
    pub name: String,
    pub device: String,
    #[serde(default = "one")]
    pub rx_queues: u16,
    #[serde(default = "one")]
    pub tx_queues: u16,
    #[serde(default = "default_ring")]
    pub rx_ring: u16,
    #[serde(default = "default_ring")]
    pub tx_ring: u16,
    #[serde(default = "default_auto_scalar")]
    pub checksum: Scalar,
    #[serde(default = "default_auto_scalar")]
    pub payload: Scalar,
    #[serde(default = "default_auto_scalar")]
    pub link: Scalar,
    #[serde(default)]
    pub bus: Option<Scalar>,
    #[serde(default = "yes")]
    pub promiscuous: bool,
}

/// One item of `streams:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a stream: a mapping with name: and optional eth:, vlan:, qinq:, mpls:, vxlan:/gre:, ipv4:/ipv6:, udp:/tcp:, ..."
)]
pub(crate) struct Stream {
    pub name: String,
    #[serde(default)]
    pub id: Option<u32>,
    #[serde(default)]
    pub frame_size: Option<Value>,
    #[serde(default)]
    pub eth: Eth,
    #[serde(default)]
    pub vlan: Option<Vlan>,
    #[serde(default)]
    pub qinq: Option<Vlan>,
    #[serde(default)]
    pub mpls: Option<Vec<Mpls>>,
    #[serde(default)]
    pub vxlan: Option<Vxlan>,
    #[serde(default)]
    pub gre: Option<Gre>,
    #[serde(default)]
    pub ipv4: Option<Ipv4>,
    #[serde(default)]
    pub ipv6: Option<Ipv6>,
    #[serde(default)]
    pub udp: Option<Udp>,
    #[serde(default)]
    pub tcp: Option<Tcp>,
    #[serde(default)]
    pub vary: Option<Value>,
    #[serde(default = "one_u32")]
    pub weight: u32,
}

/// `streams[i].eth:`
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src: and dst: MAC addresses"
)]
pub(crate) struct Eth {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
}

/// `streams[i].vlan:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with id: and optional pcp:, dei:"
)]
pub(crate) struct Vlan {
    pub id: Value,
    #[serde(default)]
    pub pcp: Option<Value>,
    #[serde(default)]
    pub dei: bool,
}

/// `streams[i].mpls[j]`: one label stack entry.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a label: a mapping with label: and optional tc:, ttl:"
)]
pub(crate) struct Mpls {
    pub label: Value,
    #[serde(default)]
    pub tc: Option<Value>,
    #[serde(default)]
    pub ttl: Option<Value>,
}

/// `streams[i].vxlan:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with vni:, ipv4: or ipv6: (the outer header) and optional src_port:, dst_port:, eth:"
)]
pub(crate) struct Vxlan {
    pub vni: Value,
    #[serde(default)]
    pub ipv4: Option<OuterIpv4>,
    #[serde(default)]
    pub ipv6: Option<OuterIpv6>,
    #[serde(default)]
    pub src_port: Option<Value>,
    #[serde(default)]
    pub dst_port: Option<Value>,
    #[serde(default)]
    pub eth: Option<Eth>,
}

/// `streams[i].gre:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with ipv4: or ipv6: (the outer header) and optional key:, sequence:"
)]
pub(crate) struct Gre {
    #[serde(default)]
    pub ipv4: Option<OuterIpv4>,
    #[serde(default)]
    pub ipv6: Option<OuterIpv6>,
    #[serde(default)]
    pub key: Option<Value>,
    #[serde(default)]
    pub sequence: bool,
}

/// A tunnel's outer `ipv4:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src:, dst: and optional dscp:, ttl:"
)]
pub(crate) struct OuterIpv4 {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
    #[serde(default)]
    pub dscp: Option<Value>,
    #[serde(default)]
    pub ttl: Option<Value>,
}

/// A tunnel's outer `ipv6:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src:, dst: and optional traffic_class:, hop_limit:"
)]
pub(crate) struct OuterIpv6 {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
    #[serde(default)]
    pub traffic_class: Option<Value>,
    #[serde(default)]
    pub hop_limit: Option<Value>,
}

/// `streams[i].ipv4:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src:, dst: and optional dscp:, ecn:, ttl:, df:"
)]
pub(crate) struct Ipv4 {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
    #[serde(default)]
    pub dscp: Option<Value>,
    #[serde(default)]
    pub ecn: Option<Value>,
    #[serde(default)]
    pub ttl: Option<Value>,
    #[serde(default)]
    pub df: Option<bool>,
}

/// `streams[i].ipv6:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src:, dst: and optional traffic_class:, flow_label:, hop_limit:"
)]
pub(crate) struct Ipv6 {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
    #[serde(default)]
    pub traffic_class: Option<Value>,
    #[serde(default)]
    pub flow_label: Option<Value>,
    #[serde(default)]
    pub hop_limit: Option<Value>,
}

/// `streams[i].udp:`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping with src: and dst: ports")]
pub(crate) struct Udp {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
}

/// `streams[i].tcp:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with src:, dst: and optional seq:, ack:, window:, flags:"
)]
pub(crate) struct Tcp {
    #[serde(default)]
    pub src: Option<Value>,
    #[serde(default)]
    pub dst: Option<Value>,
    #[serde(default)]
    pub seq: Option<Value>,
    #[serde(default)]
    pub ack: Option<Value>,
    #[serde(default)]
    pub window: Option<Value>,
    #[serde(default)]
    pub flags: Option<Value>,
}

/// One item of `tx:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a TX task: a mapping with lcore:, port:, rate: and optional settings"
)]
pub(crate) struct Tx {
    pub lcore: u32,
    pub port: String,
    #[serde(default)]
    pub queue: u16,
    #[serde(default)]
    pub streams: Option<Vec<String>>,
    pub rate: Scalar,
    #[serde(default)]
    pub layer: Option<Scalar>,
    #[serde(default)]
    pub mode: Option<Scalar>,
    #[serde(default)]
    pub pattern: Option<Value>,
    #[serde(default)]
    pub trace: Option<String>,
    #[serde(default = "default_trace_frames")]
    pub trace_frames: u64,
    #[serde(default)]
    pub frames: Option<u64>,
    #[serde(default)]
    pub clock: Option<Scalar>,
    #[serde(default)]
    pub clock_error: Option<Scalar>,
    #[serde(default)]
    pub clock_servo: Option<Scalar>,
    #[serde(default)]
    pub timestamps: Option<Scalar>,
}

/// One item of `rx:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "an RX task: a mapping with lcore:, port: and optional settings"
)]
pub(crate) struct Rx {
    pub lcore: u32,
    pub port: String,
    #[serde(default)]
    pub queues: Option<Vec<u16>>,
    #[serde(default)]
    pub verify: Option<Scalar>,
    #[serde(default)]
    pub slowdown_cycles: u64,
    #[serde(default)]
    pub count_from: Option<Scalar>,
    #[serde(default)]
    pub streams: Option<Value>,
    #[serde(default)]
    pub clock: Option<Scalar>,
    #[serde(default)]
    pub clock_error: Option<Scalar>,
    #[serde(default)]
    pub timestamps: Option<Scalar>,
    #[serde(default)]
    pub clock_servo: Option<Scalar>,
    #[serde(default)]
    pub capture: Option<Capture>,
}

/// `rx[].capture:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a capture: a mapping with file: and optional frames:, snap:, keep:"
)]
pub(crate) struct Capture {
    pub file: String,
    #[serde(default)]
    pub frames: Option<u64>,
    #[serde(default)]
    pub snap: Option<u64>,
    #[serde(default)]
    pub keep: Option<Scalar>,
}

/// `run:`
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with duration: and interval:"
)]
pub(crate) struct Run {
    #[serde(default = "default_duration")]
    pub duration: Scalar,
    #[serde(default = "default_interval")]
    pub interval: Scalar,
}

impl Default for Run {
    fn default() -> Run {
        Run {
            duration: default_duration(),
            interval: default_interval(),
        }
    }
}

/// Any YAML scalar (text, number or boolean), kept as its text so that
/// `rate: 5G` and `rate: 1000000` both reach the same parser.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Scalar(pub String);

impl Scalar {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scalar, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Scalar;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a single value (text or number)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// The text of a scalar YAML value, `None` for a sequence, a mapping or null.
pub(crate) fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Sequence(_) | Value::Mapping(_) => None,
    }
}

fn default_memory_mb() -> u32 {
    512
}
fn default_auto() -> String {
    "auto".into()
}
fn default_auto_scalar() -> Scalar {
    Scalar("auto".into())
}
fn default_log_level() -> String {
    "error".into()
}
fn one() -> u16 {
    1
}
fn one_u32() -> u32 {
    1
}
fn yes() -> bool {
    true
}
fn default_ring() -> u16 {
    1024
}
fn default_trace_frames() -> u64 {
    1_000_000
}
fn default_duration() -> Scalar {
    Scalar("10s".into())
}
fn default_interval() -> Scalar {
    Scalar("1s".into())
}

/// `certify:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of certification settings (tests:, sizes:, trial:, search_trial:, settle:, restabilise:, ...)"
)]
pub(crate) struct RawCertify {
    #[serde(default)]
    pub device: Option<String>,
    #[serde(default)]
    pub tests: Option<Vec<String>>,
    #[serde(default)]
    pub sizes: Option<Vec<Scalar>>,
    #[serde(default)]
    pub imix: Option<RawImix>,
    #[serde(default)]
    pub trial: Option<Scalar>,
    #[serde(default)]
    pub search_trial: Option<Scalar>,
    #[serde(default)]
    pub settle: Option<Scalar>,
    #[serde(default)]
    pub restabilise: Option<Scalar>,
    #[serde(default)]
    pub resolution: Option<Scalar>,
    #[serde(default)]
    pub tolerance: Option<Scalar>,
    #[serde(default)]
    pub lower: Option<Scalar>,
    #[serde(default)]
    pub upper: Option<Scalar>,
    #[serde(default)]
    pub max_p99: Option<Scalar>,
    #[serde(default)]
    pub latency_trials: Option<u32>,
    #[serde(default)]
    pub latency_trial: Option<Scalar>,
    #[serde(default)]
    pub latency_definition: Option<Scalar>,
    #[serde(default)]
    pub loss_step: Option<Scalar>,
    #[serde(default)]
    pub back_to_back_trials: Option<u32>,
    #[serde(default)]
    pub back_to_back_max: Option<Scalar>,
    #[serde(default)]
    pub learning: Option<Scalar>,
    #[serde(default)]
    pub recovery_overload: Option<Scalar>,
    #[serde(default)]
    pub recovery_reduced: Option<Scalar>,
    #[serde(default)]
    pub recovery_trials: Option<u32>,
    #[serde(default)]
    pub reset_at: Option<Scalar>,
    #[serde(default)]
    pub reset_trial: Option<Scalar>,
    #[serde(default)]
    pub reset_trials: Option<u32>,
    #[serde(default)]
    pub direction_loads: Option<Vec<Scalar>>,
    pub learning_wait: Option<Scalar>,
    #[serde(default)]
    pub dut: Option<RawDut>,
    #[serde(default)]
    pub addresses: Option<RawAddresses>,
    #[serde(default)]
    pub baseline: Option<String>,
    #[serde(default)]
    pub criteria: Vec<RawCriterion>,
}

/// `certify.addresses:` as written (RFC 2889's address searches).
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of address search settings (min:, max:, load:, learning_rate:, rate_min:, rate_max:, rate_resolution:, taught:)"
)]
pub(crate) struct RawAddresses {
    #[serde(default)]
    pub min: Option<Scalar>,
    #[serde(default)]
    pub max: Option<Scalar>,
    #[serde(default)]
    pub load: Option<Scalar>,
    #[serde(default)]
    pub learning_rate: Option<Scalar>,
    #[serde(default)]
    pub rate_min: Option<Scalar>,
    #[serde(default)]
    pub rate_max: Option<Scalar>,
    #[serde(default)]
    pub rate_resolution: Option<Scalar>,
    #[serde(default)]
    pub taught: Option<Scalar>,
}

/// `certify.dut:` as written.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of device-under-test hooks (before_trial:, after_trial:, reset:, flush:, timeout:, on_failure:)"
)]
pub(crate) struct RawDut {
    #[serde(default)]
    pub flush: Option<String>,
    #[serde(default)]
    pub before_trial: Option<String>,
    #[serde(default)]
    pub after_trial: Option<String>,
    #[serde(default)]
    pub reset: Option<String>,
    #[serde(default)]
    pub timeout: Option<Scalar>,
    #[serde(default)]
    pub on_failure: Option<Scalar>,
}

/// One item of `certify.criteria:`.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a criterion: a mapping with optional sizes:, min_throughput:, max_latency:, max_loss:"
)]
pub(crate) struct RawCriterion {
    #[serde(default)]
    pub sizes: Vec<Scalar>,
    #[serde(default)]
    pub min_throughput: Option<Scalar>,
    #[serde(default)]
    pub max_latency: Option<Scalar>,
    #[serde(default)]
    pub max_loss: Option<RawLoss>,
}

/// `certify.imix:` as written: an RFC 6985 genome (`aaaaaaaddddg`) or
/// the sizes themselves.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "an IMIX: a genome of the letters a-g (RFC 6985: a 64, b 128, c 256, d 512, e 1024, f 1280, g 1518) or a list of frame sizes"
)]
pub(crate) enum RawImix {
    Genome(String),
    Sizes(Vec<u32>),
}

/// `certify.criteria[i].max_loss:`
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a mapping with rate: and loss:")]
pub(crate) struct RawLoss {
    pub rate: Scalar,
    pub loss: Scalar,
}
