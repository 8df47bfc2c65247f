//! What a certification's report says about the tester itself, from the
//! profile's [`Plan`] alone: the frames it sent (each stream's headers,
//! addresses and ports) and its lcores (each task's role, lcore, CPU,
//! port and queues). A vendor's report names both, so a lab can rebuild
//! the test; the runtime fills them in with [`describe`].

use std::fmt::Display;

use super::model::{Certification, TesterTask};
use crate::config::Plan;
use crate::wire::spec::{IpSpec, L4Spec, StreamSpec, ValueSet, Vary};

/// Fills `cert`'s [`Certification::frames`] and
/// [`Certification::tasks`] from `plan`.
pub fn describe(plan: &Plan, cert: &mut Certification) {
    cert.frames = frames(plan);
    cert.tasks = tasks(plan);
}

/// Every stream a TX task sends, a line each, in the profile's order:
/// its name, Ethernet addresses, VLAN, IP version, addresses and fields,
/// L4 protocol and ports, how they vary, the length of its headers, and
/// the ports it is sent on. The frame size is each trial's.
pub fn frames(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    for (i, s) in plan.streams.iter().enumerate() {
        let ports: Vec<&str> = (plan.tx.iter())
            .filter(|t| t.streams.contains(&i))
            .map(|t| plan.ports[t.port].name.as_str())
            .fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            });
        if ports.is_empty() {
            continue;
        }
        out.push(format!("{}; sent on {}", stream(s), ports.join(", ")));
    }
    out
}

/// One stream's frames in words (see [`frames`]).
pub fn stream(s: &StreamSpec) -> String {
    let mut parts = vec![format!(
        "Ethernet {} → {}",
        set(&s.eth.src),
        set(&s.eth.dst)
    )];
    if let Some(v) = &s.vlan {
        parts.push(format!(
            "VLAN {} (PCP {}, DEI {})",
            v.id,
            v.pcp,
            u8::from(v.dei)
        ));
    }
    parts.push(match &s.ip {
        IpSpec::V4 {
            src,
            dst,
            dscp,
            ecn,
            ttl,
            dont_fragment,
        } => format!(
            "IPv4 {} → {} (DSCP {dscp}, ECN {ecn}, TTL {ttl}{})",
            set(src),
            set(dst),
            if *dont_fragment { ", DF" } else { "" }
        ),
        IpSpec::V6 {
            src,
            dst,
            traffic_class,
            flow_label,
            hop_limit,
        } => format!(
            "IPv6 {} → {} (traffic class {traffic_class}, flow label {flow_label}, hop limit {hop_limit})",
            set(src),
            set(dst)
        ),
    });
    parts.push(match &s.l4 {
        L4Spec::Udp { src_port, dst_port } => {
            format!("UDP {} → {}", set(src_port), set(dst_port))
        }
        L4Spec::Tcp {
            src_port, dst_port, ..
        } => format!("TCP {} → {}", set(src_port), set(dst_port)),
    });
    let varies = [
        s.eth.src.cardinality(),
        s.eth.dst.cardinality(),
        s.ip_src_count(),
        s.ip_dst_count(),
        s.l4.ports().0.cardinality(),
        s.l4.ports().1.cardinality(),
    ]
    .iter()
    .any(|&n| n > 1);
    let vary = match (varies, s.vary) {
        (false, _) => String::new(),
        (true, Vary::Step) => ", stepping through every combination".to_string(),
        (true, Vary::Random { seed }) => format!(", drawn at random (seed {seed})"),
    };
    format!(
        "{}: {}{vary}; headers {} B, then the stamp and the fill to the trial's frame size (FCS included)",
        s.name,
        parts.join(", "),
        s.header_len()
    )
}

/// A set of values in words: `a`, `a–b`, `a, b, c`.
fn set<T: Display + crate::wire::spec::SetElem>(v: &ValueSet<T>) -> String {
    match v {
        ValueSet::Single(x) => x.to_string(),
        ValueSet::Range { first, last } => format!("{first}–{last}"),
        ValueSet::List(l) => {
            let each: Vec<String> = l.iter().map(T::to_string).collect();
            each.join(", ")
        }
    }
}

trait Counts {
    fn ip_src_count(&self) -> u128;
    fn ip_dst_count(&self) -> u128;
}

impl Counts for StreamSpec {
    fn ip_src_count(&self) -> u128 {
        match &self.ip {
            IpSpec::V4 { src, .. } => src.cardinality(),
            IpSpec::V6 { src, .. } => src.cardinality(),
        }
    }
    fn ip_dst_count(&self) -> u128 {
        match &self.ip {
            IpSpec::V4 { dst, .. } => dst.cardinality(),
            IpSpec::V6 { dst, .. } => dst.cardinality(),
        }
    }
}

/// The tester's lcores: the main lcore, then each TX and each RX task in
/// the profile's order, with the CPU its lcore runs on.
pub fn tasks(plan: &Plan) -> Vec<TesterTask> {
    let cpu = |lcore: u32| {
        (plan.eal.lcores.iter().zip(&plan.eal.cpus))
            .find(|(l, _)| **l == lcore)
            .map_or(lcore, |(_, c)| *c)
    };
    let mut out = vec![TesterTask {
        role: "main".into(),
        lcore: plan.eal.main_lcore,
        cpu: cpu(plan.eal.main_lcore),
        ..TesterTask::default()
    }];
    for t in &plan.tx {
        out.push(TesterTask {
            role: "TX".into(),
            lcore: t.lcore,
            cpu: cpu(t.lcore),
            port: plan.ports[t.port].name.clone(),
            queues: vec![t.queue],
            streams: (t.streams.iter())
                .map(|&i| plan.streams[i].name.clone())
                .collect(),
        });
    }
    for r in &plan.rx {
        out.push(TesterTask {
            role: "RX".into(),
            lcore: r.lcore,
            cpu: cpu(r.lcore),
            port: plan.ports[r.port].name.clone(),
            queues: r.queues.clone(),
            streams: Vec::new(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ring profile the end-to-end tests certify, with its RX lcore
    /// sharing CPU 0 with the main lcore.
    fn plan() -> Plan {
        let yaml = "\
eal:
  cores: [0, 1, 2]
  cpus: [0, 1, 0]
  vdevs: [net_ring0]
ports:
  - name: p0
    device: net_ring0
streams:
  - name: s0
    ipv4: { src: 198.18.0.1, dst: \"198.19.0.1-198.19.0.4\" }
    udp: { src: 49152, dst: 5001 }
  - name: unused
    vlan: { id: 100, pcp: 3 }
tx:
  - lcore: 1
    port: p0
    streams: [s0]
    rate: 10%
rx:
  - lcore: 2
    port: p0
";
        crate::config::load_str(yaml, "ring.yaml").expect("a valid profile")
    }

    #[test]
    fn the_frames_name_every_header_and_where_they_are_sent() {
        let f = frames(&plan());
        assert_eq!(f.len(), 1, "a stream no task sends is not listed: {f:?}");
        assert_eq!(
            f[0],
            "s0: Ethernet 02:00:00:00:00:01 → 02:00:00:00:00:02, IPv4 198.18.0.1 → \
             198.19.0.1–198.19.0.4 (DSCP 0, ECN 0, TTL 64, DF), UDP 49152 → 5001, stepping \
             through every combination; headers 42 B, then the stamp and the fill to the \
             trial's frame size (FCS included); sent on p0"
        );
    }

    #[test]
    fn the_tasks_name_each_lcore_its_cpu_port_and_queues() {
        let t: Vec<String> = tasks(&plan()).iter().map(TesterTask::text).collect();
        assert_eq!(
            t,
            [
                "main lcore 0 on CPU 0",
                "TX lcore 1 on CPU 1: port p0 queue 0, streams s0",
                "RX lcore 2 on CPU 0: port p0 queue 0",
            ]
        );
    }
}
