//! The OTG mapping (`landspeed serve`'s `POST /config`) on configs as
//! snappi sends them, with any field replaced by an odd value or removed:
//! a profile landspeed's reader takes, or one refusal line that names a
//! path, never a panic.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::serve::otg::{map, with_captures, Host};

/// A config as snappi serialises it: two ports, two flows of every kind
/// of pattern, size and rate the mapping reads.
fn seed() -> Value {
    let pattern = |v: Value| json!({ "choice": "value", "value": v });
    json!({
        "ports": [ { "name": "p1", "location": "net_ring0" }, { "name": "p2", "location": "net_ring1" } ],
        "layer1": [ { "name": "l1", "port_names": ["p1", "p2"], "speed": "speed_10_gbps", "mtu": 9000, "promiscuous": true } ],
        "captures": [ { "name": "c1", "port_names": ["p2"], "overwrite": false, "packet_size": 128, "format": "pcap" } ],
        "flows": [
            {
                "name": "f1",
                "tx_rx": { "choice": "port", "port": { "tx_name": "p1", "rx_names": ["p2"] } },
                "packet": [
                    { "choice": "ethernet", "ethernet": { "src": pattern(json!("02:00:00:00:00:01")), "dst": pattern(json!("02:00:00:00:00:02")) } },
                    { "choice": "vlan", "vlan": { "id": pattern(json!(100)), "priority": pattern(json!(3)) } },
                    { "choice": "ipv4", "ipv4": {
                        "src": pattern(json!("198.18.0.1")),
                        "dst": { "choice": "increment", "increment": { "start": "198.19.0.1", "step": "0.0.0.1", "count": 10 } },
                        "time_to_live": pattern(json!(32)) } },
                    { "choice": "udp", "udp": { "src_port": pattern(json!(1000)), "dst_port": pattern(json!(5001)) } }
                ],
                "size": { "choice": "fixed", "fixed": 1518 },
                "rate": { "choice": "pps", "pps": "1000" },
                "duration": { "choice": "fixed_packets", "fixed_packets": { "gap": 12, "packets": "500" } },
                "metrics": { "enable": true, "loss": true, "latency": { "enable": true, "mode": "cut_through" } }
            },
            {
                "name": "f2",
                "tx_rx": { "choice": "port", "port": { "tx_name": "p2", "rx_names": ["p1"] } },
                "packet": [
                    { "choice": "ethernet", "ethernet": {} },
                    { "choice": "ipv6", "ipv6": {
                        "src": { "choice": "values", "values": ["2001:db8::1", "2001:db8::2"] },
                        "flow_label": pattern(json!(7)) } },
                    { "choice": "tcp", "tcp": {
                        "src_port": pattern(json!(40000)),
                        "dst_port": pattern(json!(5001)),
                        "ctl_ack": pattern(json!(1)), "ctl_psh": pattern(json!(1)) } }
                ],
                "size": { "choice": "weight_pairs", "weight_pairs": { "choice": "custom",
                    "custom": [ { "size": 128, "weight": 7 }, { "size": 570, "weight": 4 }, { "size": 1518, "weight": 1 } ] } },
                "rate": { "choice": "percentage", "percentage": 10 },
                "duration": { "choice": "fixed_packets", "fixed_packets": { "packets": 100 } }
            }
        ]
    })
}

/// The seed with its port p2 on another host and its capture on p1: a
/// config this server fans out.
fn fanned_seed() -> Value {
    let mut v = seed();
    v["ports"][1]["location"] = json!("192.0.2.2:8443;net_ring1");
    v["captures"][0]["port_names"] = json!(["p1"]);
    v
}

/// Every JSON pointer into `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{k}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// Values put in a field's place.
fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(-1)),
        Just(json!(0)),
        Just(json!(1e300)),
        Just(json!(-0.5)),
        Just(json!(u64::MAX)),
        Just(json!("18446744073709551616")),
        Just(json!("255.255.255.255")),
        Just(json!("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")),
        Just(json!("ff:ff:ff:ff:ff:ff")),
        Just(json!("x\ny")),
        Just(json!("increment")),
        Just(json!("random")),
        Just(json!("values")),
        Just(json!([])),
        Just(json!([1, 1])),
        Just(json!({})),
        Just(json!({ "start": 65535, "step": 65535, "count": 65536 })),
        Just(json!({ "min": 5, "max": 1, "seed": 0, "count": 0 })),
        Just(json!(true)),
        any::<u64>().prop_map(|n| json!(n)),
        any::<i64>().prop_map(|n| json!(n)),
        "[a-z_0-9.:]{0,12}".prop_map(|s| json!(s)),
    ]
}

/// A change to the seed: a field replaced, or removed (`None`).
type Edit = (usize, Option<Value>);

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(
        (any::<usize>(), proptest::option::weighted(0.8, odd_value())),
        1..4,
    )
}

/// `seed` with `edits` applied (each picks a pointer of the config as it
/// stands).
fn edited(seed: Value, edits: &[Edit]) -> Value {
    let mut v = seed;
    for (pick, with) in edits {
        let mut all = Vec::new();
        pointers(&v, String::new(), &mut all);
        let at = &all[pick % all.len()];
        let (parent, key) = at.rsplit_once('/').expect("a pointer has a parent");
        match with {
            Some(x) => *v.pointer_mut(at).expect("a pointer of v") = x.clone(),
            None => match v.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(key);
                }
                Some(Value::Array(a)) => {
                    a.remove(key.parse::<usize>().expect("an index"));
                }
                _ => {}
            },
        }
    }
    v
}

/// A host with two CPUs and a 600 s bound.
fn host() -> Host {
    Host {
        cpus: vec![0, 1],
        max_duration_s: 600,
        clock_error: None,
    }
}

/// What must hold of any config: it maps or is refused in one line; a
/// config fanned out gives every other host a share that maps or is
/// refused in one line too, and between them every flow is sent by one
/// host.
fn check(config: &Value) {
    match map(config, &host()) {
        Ok(m) => {
            for peer in &m.peers {
                match map(&peer.config, &host()) {
                    Ok(share) => {
                        assert!(share.peers.is_empty());
                        for (f, g) in m.flows.iter().zip(&share.flows) {
                            assert_ne!(f.tx_task.is_some(), g.tx_task.is_some(), "{}", f.name);
                        }
                    }
                    Err(e) => assert!(!e.is_empty() && !e.contains('\n'), "{e:?}"),
                }
            }
            assert!(!m.ports.is_empty() || m.flows.is_empty());
            serde_json::from_str::<Value>(&m.profile).expect("the profile is JSON");
            // Every captured port has an RX task its capture goes into.
            let all: Vec<usize> = m.captures.iter().map(|c| c.port).collect();
            let dir = std::path::Path::new("/d");
            let (text, files) = with_captures(&m.profile, &m, &all, dir).expect("captures fit");
            assert_eq!(files.len(), all.len());
            let v: Value = serde_json::from_str(&text).expect("the profile is JSON");
            for c in &m.captures {
                let task = m.rx_task(c.port).expect("a captured port's RX task");
                assert!(v["rx"][task]["capture"]["file"].is_string());
            }
        }
        Err(e) => {
            assert!(
                !e.is_empty() && !e.contains('\n') || e.contains("x\ny"),
                "{e:?}"
            );
        }
    }
}

#[test]
fn the_seeds_map() {
    let m = map(&seed(), &host()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.flows.len(), 2);
    assert_eq!(m.captures.len(), 1);
    let m = map(&fanned_seed(), &host()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.peers.len(), 1);
    check(&fanned_seed());
}

proptest! {
    #![proptest_config(super::config(512))]

    /// Any field replaced or removed: a profile or a clean refusal.
    #[test]
    fn configs_map_or_are_refused_cleanly(edits in edits()) {
        check(&edited(seed(), &edits));
    }

    /// The same of a config fanned out to another host.
    #[test]
    fn fanned_out_configs_map_or_are_refused_cleanly(edits in edits()) {
        check(&edited(fanned_seed(), &edits));
    }
}
