//! The join of flow and port metrics from several hosts, and when the
//! watcher stops every engine.

use serde_json::{json, Value};

use super::*;
use crate::serve::otg::{map, Host};

/// Flows `east` p1 → p2 (500 frames), `west` p2 → p1 (300), `home` p1 →
/// p1 (200): p1 here, p2 on another host.
fn mapped() -> Mapped {
    let flow = |name: &str, tx: &str, rx: &str, packets: u64| {
        json!({ "name": name,
            "tx_rx": { "choice": "port", "port": { "tx_name": tx, "rx_names": [rx] } },
            "packet": [ { "choice": "ethernet", "ethernet": {} }, { "choice": "ipv4", "ipv4": {} },
                        { "choice": "udp", "udp": {} } ],
            "duration": { "choice": "fixed_packets", "fixed_packets": { "packets": packets } },
            "metrics": { "enable": true } })
    };
    let config = json!({
        "ports": [ { "name": "p1", "location": "net_ring0" },
                   { "name": "p2", "location": "192.0.2.2:8443;net_ring0" } ],
        "flows": [ flow("east", "p1", "p2", 500), flow("west", "p2", "p1", 300),
                   flow("home", "p1", "p1", 200) ]
    });
    let host = Host {
        cpus: vec![0],
        max_duration_s: 60,
        clock_error: None,
    };
    map(&config, &host).unwrap_or_else(|e| panic!("{e}"))
}

/// A flow metric as a host gives it.
fn metric(name: &str, tx: u64, rx: u64, extra: Value) -> Value {
    let mut v = json!({ "name": name, "port_tx": "p1", "port_rx": "p2", "transmit": "stopped",
        "frames_tx": tx, "bytes_tx": tx * 64, "frames_rx": rx, "bytes_rx": rx * 64,
        "frames_tx_rate": 0.0, "frames_rx_rate": 0.0, "loss": 0.0 });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn a_flow_joins_what_one_host_sent_and_the_other_received() {
    let tx = metric(
        "east",
        500,
        0,
        json!({ "transmit": "started", "frames_tx_rate": 1000.0 }),
    );
    let latency = json!({ "minimum_ns": 10.0, "maximum_ns": 30.0, "average_ns": 20.0 });
    let rx = metric(
        "east",
        0,
        498,
        json!({ "frames_rx_rate": 990.0, "latency": latency,
                "landspeed": { "frames_rx_unique": 497 } }),
    );
    let j = join_flow(&tx, &rx);
    assert_eq!(
        j,
        json!({ "name": "east", "port_tx": "p1", "port_rx": "p2", "transmit": "started",
            "frames_tx": 500, "bytes_tx": 32000, "frames_rx": 498, "bytes_rx": 31872,
            "frames_tx_rate": 1000.0, "frames_rx_rate": 990.0, "loss": 0.6, "latency": latency })
    );
    // Before the receiver's result: no loss yet (whatever the sending host
    // says of a flow it does not receive), and no latency where the
    // receiver gives none.
    let tx = metric("east", 500, 0, json!({ "loss": 100.0 }));
    let rx = metric("east", 0, 400, json!({}));
    let j = join_flow(&tx, &rx);
    assert_eq!(
        (j["frames_rx"].as_u64(), j["loss"].as_f64()),
        (Some(400), Some(0.0))
    );
    assert!(j.get("latency").is_none() && j.get("landspeed").is_none());
    // Nothing sent: no loss, not a division by zero.
    let j = join_flow(&metric("east", 0, 0, json!({})), &rx);
    assert_eq!(j["loss"], json!(0.0));
    let none = json!({ "landspeed": { "frames_rx_unique": 0 } });
    let j = join_flow(
        &metric("east", 0, 0, json!({})),
        &metric("east", 0, 0, none),
    );
    assert_eq!(j["loss"], json!(0.0));
    let all = json!({ "landspeed": { "frames_rx_unique": 0 } });
    let j = join_flow(&metric("east", 8, 0, json!({})), &metric("east", 0, 0, all));
    assert_eq!(j["loss"], json!(100.0));
}

#[test]
fn each_flow_and_port_comes_from_the_host_that_has_it() {
    let m = mapped();
    let here = vec![
        metric("east", 500, 0, json!({})),
        metric(
            "west",
            0,
            300,
            json!({ "landspeed": { "frames_rx_unique": 299 } }),
        ),
        metric("home", 200, 190, json!({ "loss": 5.0 })),
    ];
    let there = vec![(
        "192.0.2.2:8443".to_string(),
        vec![
            metric(
                "east",
                0,
                500,
                json!({ "landspeed": { "frames_rx_unique": 500 } }),
            ),
            metric("west", 300, 0, json!({})),
            metric("home", 0, 0, json!({})),
        ],
    )];
    let j = join_flows(&m, &here, &there);
    let got: Vec<(u64, u64, f64)> = (j.iter())
        .map(|v| {
            let n = |k: &str| v[k].as_u64().unwrap();
            (n("frames_tx"), n("frames_rx"), v["loss"].as_f64().unwrap())
        })
        .collect();
    assert_eq!(
        got,
        [(500, 500, 0.0), (300, 300, 100.0 / 300.0), (200, 190, 5.0)]
    );
    assert_eq!(j[1]["name"], json!("west"));
    let none = join_flows(&m, &here, &[]);
    assert_eq!(none[0], json!({}), "a host that gave nothing");
    assert_eq!(none[2]["name"], json!("home"), "both ends here");

    let port =
        |name: &str, tx: u64| json!({ "name": name, "location": "net_ring0", "frames_tx": tx });
    let here = vec![port("p1", 700), port("p2", 0)];
    let there = vec![(
        "192.0.2.2:8443".to_string(),
        vec![port("p1", 0), port("p2", 300)],
    )];
    let p = join_ports(&m, &here, &there);
    assert_eq!(
        p,
        [
            json!({ "name": "p1", "location": "net_ring0", "frames_tx": 700 }),
            json!({ "name": "p2", "location": "192.0.2.2:8443;net_ring0", "frames_tx": 300 }),
        ]
    );
    assert_eq!(join_ports(&m, &here, &[])[1], json!({}));
}

#[test]
fn the_run_is_over_once_every_fixed_flow_is_sent_or_nothing_sends() {
    let m = mapped();
    let port = |tx: u64, transmit: &str| json!({ "frames_tx": tx, "transmit": transmit });
    // p1 sends east and home (700), p2 west (300).
    assert!(!finished(&m, &[port(699, "started"), port(300, "started")]));
    assert!(!finished(&m, &[port(700, "started"), port(299, "started")]));
    assert!(finished(&m, &[port(700, "started"), port(300, "started")]));
    assert!(finished(&m, &[port(0, "stopped"), port(0, "stopped")]));
    assert!(!finished(&m, &[port(0, "stopped"), port(0, "started")]));
    assert!(
        !finished(&m, &[port(700, "started")]),
        "a port not reported"
    );
    // A port that sends no flow does not count, reported or not.
    let mut m = m;
    m.ports.push(m.ports[0].clone());
    m.ports[2].name = "p3".into();
    assert!(finished(&m, &[port(0, "stopped"), port(0, "stopped")]));
    assert!(finished(&m, &[port(700, "started"), port(300, "started")]));
    m.ports.pop();
    m.flows[2].packets = None;
    assert!(
        !finished(&m, &[port(700, "started"), port(300, "started")]),
        "a flow without an end"
    );
}

#[test]
fn a_host_is_given_up_after_failed_readings_in_a_row_only() {
    let mut f = Failures::default();
    for _ in 0..WATCH_FAILURES - 1 {
        assert!(!f.give_up(false));
    }
    assert!(!f.give_up(true), "a good reading starts the count again");
    for _ in 0..WATCH_FAILURES - 1 {
        assert!(!f.give_up(false));
    }
    assert!(f.give_up(false));
}

#[test]
fn a_fan_is_running_until_finished() {
    let fan = Fan::default();
    assert!(!fan.done());
    fan.finish();
    assert!(fan.done());
}

#[test]
fn a_peers_warnings_name_it() {
    let mut out = vec!["here".to_string()];
    prefixed(&mut out, "h:1", &json!({ "warnings": ["a", "b"] }));
    prefixed(&mut out, "h:2", &json!({}));
    assert_eq!(out, ["here", "h:1: a", "h:1: b"]);
    assert_eq!(first_port(&mapped(), "192.0.2.2:8443"), 1);
}
