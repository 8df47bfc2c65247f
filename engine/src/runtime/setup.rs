//! What a certification's report says of its setup, from the plan alone:
//! the ports and their devices, the streams sent, the tasks on their
//! lcores and CPUs, and the latency method when the profile fixes it. Two
//! runs' setups are equal exactly when a tester baseline of one applies to
//! the other.

use crate::clock::nic::Want;
use crate::config::Plan;

/// What a tester baseline's figures depend on, from the plan alone (a
/// calibration records it; a certification given the baseline must have
/// the same): each port with its device and the device's arguments, each
/// stream the TX tasks send with its headers in words, each TX and RX
/// task with its lcore, CPU, port, queues and mode, and the timestamp
/// method when the profile decides it (every receiver `software`, or
/// every one `nic`); empty when a receiver asks `auto` (the ports decide).
pub fn setup(plan: &Plan) -> crate::certify::latency::Setup {
    use crate::certify::latency::{Setup, NIC_RX_METHOD, SOFTWARE_METHOD};
    let all = |w: Want| plan.rx.iter().all(|r| r.timestamps == w);
    let method = if all(Want::Software) {
        SOFTWARE_METHOD
    } else if all(Want::Nic) {
        NIC_RX_METHOD
    } else {
        ""
    };
    Setup {
        ports: setup_ports(plan),
        streams: setup_streams(plan),
        tasks: setup_tasks(plan),
        method: method.to_string(),
    }
}

/// Each port of the setup as `name: device args`.
fn setup_ports(plan: &Plan) -> Vec<String> {
    (plan.ports.iter())
        .map(|p| {
            let dev = p.device.name();
            let args = (plan.eal.vdevs.iter())
                .find(|v| v.split(',').next() == Some(dev))
                .and_then(|v| v.split_once(','))
                .map_or(String::new(), |(_, a)| format!(" {a}"));
            format!("{}: {dev}{args}", p.name)
        })
        .collect()
}

/// Each stream some TX task sends, once, in the order first sent.
fn setup_streams(plan: &Plan) -> Vec<String> {
    let mut sent: Vec<usize> = Vec::new();
    for &i in plan.tx.iter().flat_map(|t| &t.streams) {
        if !sent.contains(&i) {
            sent.push(i);
        }
    }
    (sent.iter().map(|&i| stream_setup(&plan.streams[i]))).collect()
}

/// A value set as the setup shows it: `a`, `a-b` or `a,b,c`.
fn value_set<T: std::fmt::Display>(v: &crate::wire::spec::ValueSet<T>) -> String {
    use crate::wire::spec::ValueSet;
    match v {
        ValueSet::Single(x) => x.to_string(),
        ValueSet::Range { first, last } => format!("{first}-{last}"),
        ValueSet::List(l) => (l.iter().map(|x| x.to_string()))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// A stream of the setup: its name and id, addresses, VLAN, IP and L4.
fn stream_setup(st: &crate::wire::spec::StreamSpec) -> String {
    use crate::wire::spec::{IpSpec, L4Spec};
    let vlan = st.vlan.map_or(String::new(), |v| {
        format!(
            " vlan {} pcp {}{}",
            v.id,
            v.pcp,
            if v.dei { " dei" } else { "" }
        )
    });
    let ip = match &st.ip {
        IpSpec::V4 {
            src,
            dst,
            dscp,
            ecn,
            ttl,
            dont_fragment,
        } => format!(
            "IPv4 {} → {} dscp {dscp} ecn {ecn} ttl {ttl}{}",
            value_set(src),
            value_set(dst),
            if *dont_fragment { " df" } else { "" }
        ),
        IpSpec::V6 {
            src,
            dst,
            traffic_class,
            flow_label,
            hop_limit,
        } => format!(
            "IPv6 {} → {} tc {traffic_class} flow {flow_label} hops {hop_limit}",
            value_set(src),
            value_set(dst)
        ),
    };
    let l4 = match &st.l4 {
        L4Spec::Udp { src_port, dst_port } => {
            format!("UDP {} → {}", value_set(src_port), value_set(dst_port))
        }
        L4Spec::Tcp {
            src_port, dst_port, ..
        } => format!("TCP {} → {}", value_set(src_port), value_set(dst_port)),
    };
    format!(
        "{} (id {}): {} → {}{vlan}, {ip}, {l4}",
        st.name,
        st.id,
        value_set(&st.eth.src),
        value_set(&st.eth.dst)
    )
}

/// Each TX and RX task of the setup: its lcore and CPU, port, queues,
/// mode or verify level, streams.
fn setup_tasks(plan: &Plan) -> Vec<String> {
    let cpu = |l: u32| {
        let at = plan.eal.lcores.iter().position(|&x| x == l);
        at.map_or(l, |k| plan.eal.cpus[k])
    };
    let mut tasks: Vec<String> = (plan.tx.iter())
        .map(|t| {
            let names: Vec<&str> = t
                .streams
                .iter()
                .map(|&i| plan.streams[i].name.as_str())
                .collect();
            format!(
                "tx lcore {} (cpu {}) port {} queue {}, mode {}, streams {}",
                t.lcore,
                cpu(t.lcore),
                plan.ports[t.port].name,
                t.queue,
                t.mode,
                names.join(",")
            )
        })
        .collect();
    tasks.extend(plan.rx.iter().map(|r| {
        let queues: Vec<String> = r.queues.iter().map(u16::to_string).collect();
        format!(
            "rx lcore {} (cpu {}) port {} queues {}, verify {:?}",
            r.lcore,
            cpu(r.lcore),
            plan.ports[r.port].name,
            queues.join(","),
            r.verify
        )
        .replace("verify Full", "verify full")
        .replace("verify Stamp", "verify stamp")
        .replace("verify None", "verify none")
    }));
    tasks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::latency::{NIC_RX_METHOD, SOFTWARE_METHOD};
    use crate::config::load_str;

    /// The DUT lab's profile shape: TX on t0, RX on t1 sharing CPU 0.
    const LAB: &str = "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n  vdevs:\n    - \"net_af_packet0,iface=ls-t0,framesz=2048\"\n    - net_af_packet1,iface=ls-t1\n\
        ports:\n  - name: t0\n    device: net_af_packet0\n  - name: t1\n    device: net_af_packet1\n\
        streams:\n  - name: s\n    id: 1\n    eth: { src: \"02:00:00:00:00:01\", dst: \"02:00:00:00:00:02\" }\n    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }\n    udp: { src: 49152, dst: 5001 }\n\
        \x20 - name: v6\n    vlan: { id: 100, pcp: 5 }\n    ipv6: { src: \"2001:2::1\", dst: \"2001:2::2-2001:2::4\" }\n    udp: { src: [1, 2], dst: 7 }\n\
        tx:\n  - lcore: 1\n    port: t0\n    streams: [s, v6]\n    rate: line\n    mode: spin\n\
        rx:\n  - lcore: 2\n    port: t1\n    verify: full\n    timestamps: software\n";

    #[test]
    fn the_setup_names_ports_streams_tasks_and_the_method_in_words() {
        let p = load_str(LAB, "lab.yaml").unwrap();
        let s = setup(&p);
        assert_eq!(
            s.ports,
            [
                "t0: net_af_packet0 iface=ls-t0,framesz=2048",
                "t1: net_af_packet1 iface=ls-t1"
            ]
        );
        assert_eq!(
            s.streams,
            [
                "s (id 1): 02:00:00:00:00:01 → 02:00:00:00:00:02, IPv4 198.18.0.1 → 198.19.0.1 \
                 dscp 0 ecn 0 ttl 64 df, UDP 49152 → 5001",
                "v6 (id 2): 02:00:00:00:00:01 → 02:00:00:00:00:02 vlan 100 pcp 5, IPv6 2001:2::1 \
                 → 2001:2::2-2001:2::4 tc 0 flow 0 hops 64, UDP 1,2 → 7",
            ]
        );
        assert_eq!(
            s.tasks,
            [
                "tx lcore 1 (cpu 1) port t0 queue 0, mode spin, streams s,v6",
                "rx lcore 2 (cpu 0) port t1 queues 0, verify full",
            ]
        );
        assert_eq!(s.method, SOFTWARE_METHOD);
        let nic = load_str(
            &LAB.replace("timestamps: software", "timestamps: nic"),
            "l.yaml",
        );
        assert_eq!(setup(&nic.unwrap()).method, NIC_RX_METHOD);
        let auto = load_str(
            &LAB.replace("timestamps: software", "timestamps: auto"),
            "l.yaml",
        );
        assert_eq!(setup(&auto.unwrap()).method, "", "the ports decide");
    }

    #[test]
    fn the_same_profile_on_other_interfaces_has_another_setup() {
        let a = setup(&load_str(LAB, "lab.yaml").unwrap());
        let b = setup(&load_str(&LAB.replace("iface=ls-t1", "iface=lt-t1"), "lab.yaml").unwrap());
        assert_eq!(a.streams, b.streams);
        assert_ne!(a.ports, b.ports);
        let c =
            setup(&load_str(&LAB.replace("cpus: [0, 1, 0]", "cpus: [0, 1, 1]"), "l.yaml").unwrap());
        assert_eq!(
            c.tasks[1],
            "rx lcore 2 (cpu 1) port t1 queues 0, verify full"
        );
    }
}
