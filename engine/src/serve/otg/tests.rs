//! The mapping's unit tests: exact profiles from OTG configs as snappi
//! sends them, and exact refusals.

use serde_json::{json, Value};

use super::{map, Host};

/// A host with two CPUs and a 600 s bound.
fn host() -> Host {
    Host {
        cpus: vec![0, 1],
        max_duration_s: 600,
        clock_error: None,
    }
}

/// `config` mapped, its profile parsed back.
fn profile(config: Value) -> (super::Mapped, Value) {
    let m = map(&config, &host()).unwrap_or_else(|e| panic!("{e}"));
    let p: Value = serde_json::from_str(&m.profile).expect("the profile is JSON");
    (m, p)
}

/// The refusal of `config`.
fn refusal(config: Value) -> String {
    map(&config, &host()).expect_err("a refusal")
}

/// One UDP flow p1 → p2 with `packet` headers after ethernet/ipv4.
fn flow(extra: Value) -> Value {
    let mut f = json!({
        "name": "f1",
        "tx_rx": { "choice": "port", "port": { "tx_name": "p1", "rx_names": ["p2"] } },
        "packet": [
            { "choice": "ethernet", "ethernet": {
                "src": { "choice": "value", "value": "02:00:00:00:00:01" },
                "dst": { "choice": "value", "value": "02:00:00:00:00:02" } } },
            { "choice": "ipv4", "ipv4": {
                "src": { "choice": "value", "value": "198.18.0.1" },
                "dst": { "choice": "value", "value": "198.19.0.1" } } },
            { "choice": "udp", "udp": {
                "src_port": { "choice": "value", "value": 1000 },
                "dst_port": { "choice": "value", "value": 5001 } } }
        ],
        "size": { "choice": "fixed", "fixed": 1518 },
        "rate": { "choice": "pps", "pps": "1000" },
        "duration": { "choice": "fixed_packets", "fixed_packets": { "gap": 12, "packets": 500 } },
        "metrics": { "enable": true, "loss": true, "latency": { "enable": true, "mode": "cut_through" } }
    });
    if let (Some(f), Some(e)) = (f.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            f.insert(k.clone(), v.clone());
        }
    }
    f
}

/// Two ring ports and `flows`.
fn config(flows: Vec<Value>) -> Value {
    json!({
        "ports": [ { "name": "p1", "location": "net_ring0" }, { "name": "p2", "location": "net_ring1" } ],
        "layer1": [ { "name": "l1", "port_names": ["p1", "p2"], "speed": "speed_10_gbps", "mtu": 9000, "promiscuous": true } ],
        "flows": flows
    })
}

/// The UDP header's `src_port` replaced by `pattern`.
fn with_src_port(pattern: Value) -> Value {
    let mut f = flow(json!({}));
    f["packet"][2]["udp"]["src_port"] = pattern;
    config(vec![f])
}

#[test]
fn a_flow_becomes_a_task_on_a_queue_of_its_own() {
    let second = flow(json!({
        "name": "f2",
        "tx_rx": { "choice": "port", "port": { "tx_name": "p1", "rx_names": ["p2"] } },
        "rate": { "choice": "percentage", "percentage": 10 },
    }));
    let (m, p) = profile(config(vec![flow(json!({})), second]));
    assert_eq!(
        p["eal"],
        json!({ "cores": [0, 1, 2, 3], "cpus": [0, 1, 0, 1], "vdevs": ["net_ring0", "net_ring1"], "pci": [] })
    );
    assert_eq!(
        p["ports"],
        json!([
            { "name": "p1", "device": "net_ring0", "tx_queues": 2, "rx_queues": 1, "link": "10g", "promiscuous": true },
            { "name": "p2", "device": "net_ring1", "tx_queues": 1, "rx_queues": 1, "link": "10g", "promiscuous": true }
        ])
    );
    assert_eq!(
        p["streams"][0],
        json!({
            "name": "f1", "id": 1, "frame_size": 1518,
            "eth": { "src": "02:00:00:00:00:01", "dst": "02:00:00:00:00:02" },
            "ipv4": { "src": "198.18.0.1", "dst": "198.19.0.1", "ttl": 64, "df": false },
            "udp": { "src": 1000, "dst": 5001 }
        })
    );
    assert_eq!(
        p["tx"],
        json!([
            { "lcore": 1, "port": "p1", "queue": 0, "streams": ["f1"], "rate": "1000pps", "frames": 500 },
            { "lcore": 2, "port": "p1", "queue": 1, "streams": ["f2"], "rate": "10%", "frames": 500 }
        ])
    );
    assert_eq!(
        p["rx"],
        json!([{ "lcore": 3, "port": "p2", "queues": [0] }])
    );
    assert_eq!(p["run"], json!({ "duration": "600s", "interval": "500ms" }));
    assert_eq!(m.flows[1].tx_task, Some(1));
    assert_eq!(
        (m.flows[1].tx_port, m.flows[1].rx_port, m.flows[1].stream_id),
        (0, 1, 2)
    );
    assert!(m.flows[0].metrics && m.flows[0].latency);
    assert_eq!(m.flows[0].packets, Some(500));
    assert!(m.warnings.is_empty());
}

#[test]
fn patterns_become_ranges_lists_and_random_draws() {
    let inc = |step: u64| json!({ "choice": "increment", "increment": { "start": 1000, "step": step, "count": 4 } });
    let (_, p) = profile(with_src_port(inc(1)));
    assert_eq!(p["streams"][0]["udp"]["src"], json!("1000-1003"));
    let (_, p) = profile(with_src_port(inc(2)));
    assert_eq!(
        p["streams"][0]["udp"]["src"],
        json!([1000, 1002, 1004, 1006])
    );
    let dec =
        json!({ "choice": "decrement", "decrement": { "start": 1000, "step": 1, "count": 3 } });
    let (_, p) = profile(with_src_port(dec));
    assert_eq!(p["streams"][0]["udp"]["src"], json!([1000, 999, 998]));
    let (_, p) = profile(with_src_port(
        json!({ "choice": "values", "values": [7, 5] }),
    ));
    assert_eq!(p["streams"][0]["udp"]["src"], json!([7, 5]));
    let random =
        json!({ "choice": "random", "random": { "min": 10, "max": 20, "seed": 7, "count": 5 } });
    let (m, p) = profile(with_src_port(random));
    assert_eq!(p["streams"][0]["udp"]["src"], json!("10-20"));
    assert_eq!(p["streams"][0]["vary"], json!({ "random": 7 }));
    assert_eq!(
        m.warnings,
        ["flows[0].packet[2].udp.src_port.random.count: 5 ignored: landspeed draws every frame's value from the whole range 10..20"]
    );
    let mut f = flow(json!({}));
    f["packet"][1]["ipv4"]["dst"] = json!({ "choice": "increment", "increment": { "start": "198.19.0.250", "step": "0.0.0.3", "count": 3 } });
    let (_, p) = profile(config(vec![f]));
    assert_eq!(
        p["streams"][0]["ipv4"]["dst"],
        json!(["198.19.0.250", "198.19.0.253", "198.19.1.0"])
    );
}

#[test]
fn sizes_imix_and_custom_weights_become_turns() {
    let imix = flow(
        json!({ "size": { "choice": "weight_pairs", "weight_pairs": { "choice": "predefined", "predefined": "imix" } } }),
    );
    let (_, p) = profile(config(vec![imix]));
    assert_eq!(
        p["streams"][0]["frame_size"],
        json!([64, 570, 64, 1518, 64, 570, 64, 570, 64, 64, 570, 64])
    );
    let custom = flow(
        json!({ "size": { "choice": "weight_pairs", "weight_pairs": { "choice": "custom",
        "custom": [ { "size": 128, "weight": 1 }, { "size": 256, "weight": 3 } ] } } }),
    );
    let (_, p) = profile(config(vec![custom]));
    assert_eq!(p["streams"][0]["frame_size"], json!([256, 128, 256, 256]));
    let inc = flow(
        json!({ "size": { "choice": "increment", "increment": { "start": 64, "end": 100, "step": 12 } } }),
    );
    let (_, p) = profile(config(vec![inc]));
    assert_eq!(p["streams"][0]["frame_size"], json!([64, 76, 88, 100]));
}

#[test]
fn random_sizes_are_one_seeded_turn_of_draws() {
    let random = |min: u64, max: u64| {
        flow(json!({ "size": { "choice": "random", "random": { "min": min, "max": max } } }))
    };
    let sizes = |c: Value| -> Vec<u64> {
        let (_, p) = profile(config(vec![c]));
        let list = p["streams"][0]["frame_size"].as_array().unwrap().clone();
        list.iter().map(|v| v.as_u64().unwrap()).collect()
    };
    let a = sizes(random(100, 1500));
    assert_eq!(a.len(), 4096);
    assert!(a.iter().all(|s| (100..=1500).contains(s)));
    let mean = a.iter().sum::<u64>() as f64 / a.len() as f64;
    assert!((760.0..840.0).contains(&mean), "uniform draws: mean {mean}");
    assert_eq!(a, sizes(random(100, 1500)), "the same seed, the same sizes");
    let b = sizes(random(200, 201));
    assert!(b.contains(&200) && b.contains(&201) && b.iter().all(|s| *s == 200 || *s == 201));
    assert_eq!(sizes(random(300, 300)), vec![300; 4096]);
    assert_eq!(
        refusal(config(vec![random(1500, 100)])),
        "flows[0].size.random: min 1500 is above max 100"
    );
}

#[test]
fn timestamps_are_asked_per_flow() {
    let mut f = flow(json!({}));
    f["metrics"]["timestamps"] = json!(true);
    let (m, _) = profile(config(vec![f, flow(json!({ "name": "f2" }))]));
    assert!(m.flows[0].timestamps && !m.flows[1].timestamps);
}

#[test]
fn rates_and_durations() {
    for (rate, want) in [
        (json!({ "choice": "bps", "bps": 672000 }), "672000"),
        (json!({ "choice": "kbps", "kbps": "500" }), "500k"),
        (json!({ "choice": "mbps", "mbps": 100 }), "100M"),
        (json!({ "choice": "gbps", "gbps": 9 }), "9G"),
        (
            json!({ "choice": "percentage", "percentage": 99.5 }),
            "99.5%",
        ),
    ] {
        let (_, p) = profile(config(vec![flow(json!({ "rate": rate }))]));
        assert_eq!(p["tx"][0]["rate"], json!(want));
    }
    let secs =
        json!({ "duration": { "choice": "fixed_seconds", "fixed_seconds": { "seconds": 2.5 } } });
    let (m, p) = profile(config(vec![flow(secs)]));
    assert_eq!(p["run"]["duration"], json!("2.5s"));
    assert_eq!(p["tx"][0].get("frames"), None);
    assert_eq!(m.flows[0].packets, None);
    let cont = json!({ "duration": { "choice": "continuous", "continuous": { "gap": 12 } } });
    let (_, p) = profile(config(vec![flow(cont)]));
    assert_eq!(p["run"]["duration"], json!("600s"));
    assert_eq!(p["tx"][0].get("frames"), None);
}

#[test]
fn what_is_not_mapped_is_refused_by_its_path() {
    let with_metrics = |m: Value| {
        let mut f = flow(json!({}));
        f["metrics"] = m;
        config(vec![f])
    };
    let cases: Vec<(Value, &str)> = vec![
        (
            config(vec![flow(json!({ "egress_packet": [ { "choice": "ethernet" } ] }))]),
            "flows[0].egress_packet: is not supported",
        ),
        (
            with_metrics(json!({ "enable": true, "predefined_metric_tags": { "rx_rate": true } })),
            "flows[0].metrics.predefined_metric_tags: is not supported",
        ),
        (
            with_metrics(json!({ "enable": true, "rx_tx_ratio": { "choice": "rx_count" } })),
            "flows[0].metrics.rx_tx_ratio: is not supported",
        ),
        (
            with_src_port(json!({ "choice": "values", "values": [1, 2, 1] })),
            "flows[0].packet[2].udp.src_port.values[2]: 1 repeats a value: landspeed sends each value of a list once per turn",
        ),
        (
            with_src_port(json!({ "choice": "increment", "increment": { "start": 65535, "step": 1, "count": 2 } })),
            "flows[0].packet[2].udp.src_port.increment: 2 steps of 1 from 65535 leave the field's range: landspeed does not wrap",
        ),
        (
            with_src_port(json!({ "choice": "value", "value": 70000 })),
            "flows[0].packet[2].udp.src_port.value: 70000 does not fit in 16 bits",
        ),
        (
            config(vec![flow(json!({ "duration": { "choice": "burst", "burst": { "packets": 3 } } }))]),
            "flows[0].duration.choice: burst is not supported: landspeed paces every frame at the flow's rate",
        ),
        (
            config(vec![flow(json!({ "size": { "choice": "fixed", "fixed": 9100 } }))]),
            "flows[0].size: 9100-byte frames do not pass the layer1 mtu of 9000 bytes",
        ),
        (
            config(vec![flow(json!({ "size": { "choice": "weight_pairs", "weight_pairs": { "choice": "predefined", "predefined": "ipv6_imix" } } }))]),
            "flows[0].size.weight_pairs.predefined: ipv6_imix is not supported: its weights are not whole numbers (imix, or custom pairs with whole weights)",
        ),
        (
            config(vec![
                flow(json!({ "duration": { "choice": "fixed_seconds", "fixed_seconds": { "seconds": 1 } } })),
                flow(json!({ "name": "f2" })),
            ]),
            "flows[1].duration: flows of fixed_seconds (f1: 1 s) run with flows of the same seconds only: landspeed's run has one duration",
        ),
        (
            config(vec![flow(json!({ "tx_rx": { "choice": "port", "port": { "tx_name": "p1", "rx_names": ["p1", "p2"] } } }))]),
            "flows[0].tx_rx.port.rx_names: one receiving port per flow is supported",
        ),
        (
            config(vec![flow(json!({ "rate": { "choice": "pps", "pps": "fast" } }))]),
            "flows[0].rate.pps: \"fast\" is not a whole number of 0 or more",
        ),
        (
            json!({ "ports": [ { "name": "a", "location": "net_ring0" }, { "name": "b", "location": "net_ring0,x=1" } ] }),
            "ports[1].location: net_ring0,x=1 is port a's already",
        ),
        (
            config(vec![flow(json!({ "size": { "choice": "weight_pairs", "weight_pairs": { "choice": "custom",
                "custom": [ { "size": 64, "weight": 1e300 }, { "size": 128, "weight": 7 } ] } } }))]),
            "flows[0].size.weight_pairs.custom[0].weight: 1e+300 is more than the 4096 frames a turn may hold",
        ),
        (
            {
                let mut c = config(vec![flow(json!({ "size": { "choice": "fixed", "fixed": 9000 } }))]);
                c["layer1"][0]["mtu"] = json!(u64::MAX);
                c["flows"][0]["size"]["fixed"] = json!(u64::MAX);
                c
            },
            "the engine refuses the mapped config: otg:56: streams[0].frame_size: frame size \
             18446744073709551615 is above the maximum 16383",
        ),
        (json!({ "lags": [ { "name": "l" } ] }), "lags: is not supported"),
        (json!({ "flows": [], "unknown": 1 }), "unknown: is not supported"),
    ];
    for (config, want) in cases {
        assert_eq!(refusal(config), want);
    }
    let mut f = flow(json!({}));
    f["packet"][1]["ipv4"]["dst"] =
        json!({ "choice": "values", "values": ["198.19.0.1", "198.19.0.2"] });
    f["packet"][2]["udp"]["src_port"] =
        json!({ "choice": "random", "random": { "min": 1, "max": 9 } });
    assert_eq!(
        refusal(config(vec![f])),
        "flows[0].packet[1].ipv4.dst: a stepping field with a random one (flows[0].packet[2].udp.src_port) is not supported: landspeed varies a flow's fields one way"
    );
}

#[test]
fn a_config_without_flows_maps_its_ports_only() {
    let (m, p) = profile(json!({ "ports": [ { "name": "p1", "location": "0000:03:00.0" } ] }));
    assert_eq!(m.ports[0].location, "0000:03:00.0");
    assert_eq!(p["eal"]["pci"], json!(["0000:03:00.0"]));
    assert_eq!(p["ports"][0]["device"], json!("0000:03:00.0"));
    assert!(m.flows.is_empty());
}

/// `config` with `captures`.
fn with_captures(captures: Value) -> Value {
    let mut c = config(vec![flow(json!({}))]);
    c["captures"] = captures;
    c
}

#[test]
fn a_captured_port_gets_an_rx_task_and_its_capture_when_started() {
    let (m, p) = profile(with_captures(json!([
        { "name": "c1", "port_names": ["p2", "p1"], "packet_size": 128 }
    ])));
    assert_eq!(
        p["rx"],
        json!([
            { "lcore": 2, "port": "p2", "queues": [0] },
            { "lcore": 3, "port": "p1", "queues": [0] }
        ])
    );
    assert_eq!((m.rx_task(1), m.rx_task(0)), (Some(0), Some(1)));
    assert_eq!(
        m.warnings,
        vec!["captures[0]: landspeed keeps the last 10000 frames each of its ports receives"]
    );
    let dir = std::path::Path::new("/run/x");
    let (text, files) = super::with_captures(&m.profile, &m, &[0], dir).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["rx"][0].get("capture"),
        None,
        "p2's capture is not started"
    );
    assert_eq!(
        v["rx"][1]["capture"],
        json!({ "file": "/run/x/capture-0.pcap", "frames": 10000, "keep": "last", "snap": 128 })
    );
    assert_eq!(files, vec![(0, dir.join("capture-0.pcap"))]);
    // Nothing started: the profile as mapped.
    let (text, files) = super::with_captures(&m.profile, &m, &[], dir).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), p);
    assert!(files.is_empty());
}

#[test]
fn overwrite_false_keeps_the_first_frames() {
    let (m, _) = profile(with_captures(json!([
        { "name": "c1", "port_names": ["p2"], "overwrite": false }
    ])));
    let (text, _) = super::with_captures(&m.profile, &m, &[1], std::path::Path::new("/d")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["rx"][0]["capture"],
        json!({ "file": "/d/capture-1.pcap", "frames": 10000, "keep": "first" })
    );
    assert_eq!(
        m.warnings,
        vec!["captures[0]: landspeed keeps the first 10000 frames each of its ports receives"]
    );
}

#[test]
fn captures_landspeed_cannot_make_are_refused_with_their_path() {
    let cases = [
        (
            json!([{ "name": "c", "port_names": ["p1"], "format": "pcapng" }]),
            "captures[0].format: pcapng is not supported (pcap)",
        ),
        (
            json!([{ "name": "c", "port_names": ["p1"], "filters": [{ "choice": "ethernet" }] }]),
            "captures[0].filters: is not supported (a capture keeps every frame its port receives)",
        ),
        (
            json!([{ "name": "c", "port_names": ["p1"], "packet_size": 8 }]),
            "captures[0].packet_size: 8 bytes: a frame is kept from 14 (its Ethernet header) to 65535 bytes",
        ),
        (
            json!([{ "name": "c", "port_names": ["p1"] }, { "name": "d", "port_names": ["p2", "p1"] }]),
            "captures[1].port_names[1]: p1 is captured by c already",
        ),
        (
            json!([{ "name": "c", "port_names": ["p9"] }]),
            "captures[0].port_names[0]: p9 is no port of the config",
        ),
        (
            json!([{ "name": "c", "port_names": [] }]),
            "captures[0].port_names: name a port to capture on",
        ),
        (
            json!([{ "port_names": ["p1"] }]),
            "captures[0].name: is required",
        ),
        (
            json!([{ "name": "c", "port_names": ["p1"], "ring": 4 }]),
            "captures[0].ring: is not supported",
        ),
    ];
    for (captures, want) in cases {
        assert_eq!(refusal(with_captures(captures)), want);
    }
}

/// Flows both ways between p1 (here) and p2 (`p2_at`), and one p2 → p2.
fn two_hosts(p2_at: &str) -> Value {
    let mut c = config(vec![
        flow(json!({})),
        flow(json!({ "name": "back",
            "tx_rx": { "choice": "port", "port": { "tx_name": "p2", "rx_names": ["p1"] } } })),
        flow(json!({ "name": "there",
            "tx_rx": { "choice": "port", "port": { "tx_name": "p2", "rx_names": ["p2"] } } })),
    ]);
    c["ports"][1]["location"] = json!(p2_at);
    c
}

#[test]
fn a_port_on_another_host_is_its_share_of_the_config() {
    let c = two_hosts("192.0.2.2:8443;net_af_packet0,iface=b0");
    let host = Host {
        clock_error: Some("0".into()),
        ..host()
    };
    let m = map(&c, &host).unwrap_or_else(|e| panic!("{e}"));
    let p: Value = serde_json::from_str(&m.profile).unwrap();
    assert_eq!(
        p["eal"],
        json!({ "cores": [0, 1, 2], "cpus": [0, 1, 0], "vdevs": ["net_ring0"], "pci": [] })
    );
    assert_eq!(
        p["ports"],
        json!([{ "name": "p1", "device": "net_ring0", "tx_queues": 1, "rx_queues": 1,
                 "link": "10g", "promiscuous": true }])
    );
    let names: Vec<&Value> = p["streams"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["name"])
        .collect();
    assert_eq!(
        names,
        [&json!("f1"), &json!("back")],
        "no stream of a flow with no end here"
    );
    assert_eq!(
        p["streams"][1]["id"],
        json!(2),
        "ids are the config's on every host"
    );
    assert_eq!(
        p["tx"],
        json!([{ "lcore": 1, "port": "p1", "queue": 0, "streams": ["f1"], "rate": "1000pps",
                 "frames": 500, "clock": "synced", "clock_error": "0" }])
    );
    assert_eq!(
        p["rx"],
        json!([{ "lcore": 2, "port": "p1", "queues": [0], "clock": "synced+shared", "clock_error": "0" }])
    );
    let tasks: Vec<Option<usize>> = m.flows.iter().map(|f| f.tx_task).collect();
    assert_eq!(tasks, [Some(0), None, None]);
    assert!(m.runs_here);
    assert_eq!(m.ports[1].home, super::Home::Peer("192.0.2.2:8443".into()));
    assert_eq!(m.ports[1].device, "net_af_packet0,iface=b0");
    assert_eq!(m.peers.len(), 1);
    assert_eq!(m.peers[0].addr, "192.0.2.2:8443");
    let share = &m.peers[0].config;
    assert_eq!(share["ports"][0]["location"], json!("remote"));
    assert_eq!(
        share["ports"][1]["location"],
        json!("net_af_packet0,iface=b0")
    );
    assert_eq!(share["flows"], c["flows"]);
    assert_eq!(m.rx_task(0), Some(0));
    assert_eq!(m.rx_task(1), None);
}

#[test]
fn the_share_another_host_gets_maps_its_own_flows_only() {
    let c = two_hosts("192.0.2.2:8443;net_ring1");
    let share = map(&c, &host()).unwrap().peers[0].config.clone();
    let m = map(&share, &host()).unwrap_or_else(|e| panic!("{e}"));
    let p: Value = serde_json::from_str(&m.profile).unwrap();
    assert!(m.peers.is_empty(), "a share is fanned out no further");
    assert_eq!(p["eal"]["vdevs"], json!(["net_ring1"]));
    assert_eq!(
        p["tx"],
        json!([
            { "lcore": 1, "port": "p2", "queue": 0, "streams": ["back"], "rate": "1000pps",
              "frames": 500, "clock": "synced" },
            { "lcore": 2, "port": "p2", "queue": 1, "streams": ["there"], "rate": "1000pps",
              "frames": 500 }
        ])
    );
    assert_eq!(
        p["rx"],
        json!([{ "lcore": 3, "port": "p2", "queues": [0, 1], "clock": "synced+shared" }])
    );
    let tasks: Vec<Option<usize>> = m.flows.iter().map(|f| f.tx_task).collect();
    assert_eq!(tasks, [None, Some(0), Some(1)]);
    // An empty egress_packet list is no egress packet.
    let mut c = share.clone();
    c["flows"][0]["egress_packet"] = json!([]);
    assert!(map(&c, &host()).is_ok());
}

#[test]
fn a_host_that_only_sends_or_only_receives_runs() {
    let c = config(vec![flow(json!({}))]);
    let mut fanned = c.clone();
    fanned["ports"][1]["location"] = json!("192.0.2.2:8443;net_ring1");
    let m = map(&fanned, &host()).unwrap_or_else(|e| panic!("{e}"));
    let p: Value = serde_json::from_str(&m.profile).unwrap();
    assert!(m.runs_here, "it sends f1");
    assert_eq!(
        (
            p["tx"].as_array().unwrap().len(),
            p["rx"].as_array().unwrap().len()
        ),
        (1, 0)
    );
    let there = map(&m.peers[0].config, &host()).unwrap_or_else(|e| panic!("{e}"));
    let p: Value = serde_json::from_str(&there.profile).unwrap();
    assert!(there.runs_here, "it receives f1");
    assert_eq!(
        (
            p["tx"].as_array().unwrap().len(),
            p["rx"].as_array().unwrap().len()
        ),
        (0, 1)
    );
}

#[test]
fn a_host_with_no_port_of_a_flow_runs_nothing() {
    let mut c = two_hosts("remote");
    c["ports"][0]["location"] = json!("remote");
    let m = map(&c, &host()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!m.runs_here);
    assert!(m.peers.is_empty());
    assert!(m.flows.iter().all(|f| f.tx_task.is_none()));
}

#[test]
fn a_fan_out_is_refused_where_it_cannot_be_made() {
    let mut c = two_hosts("192.0.2.2:8443;net_ring1");
    c["ports"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "p3", "location": "192.0.2.2:8443;net_ring1" }));
    assert_eq!(
        refusal(c),
        "ports[2].location: 192.0.2.2:8443;net_ring1 is port p2's already"
    );
    let mut c = two_hosts("192.0.2.3:8443;net_ring0");
    c["ports"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "p3", "location": "remote" }));
    c["ports"]
        .as_array_mut()
        .unwrap()
        .push(json!({ "name": "p4", "location": "remote" }));
    assert!(
        map(&c, &host()).is_ok(),
        "another host's net_ring0 is not this one's; remote ports are many"
    );
    assert_eq!(
        refusal(two_hosts("192.0.2.2;net_ring1")),
        "ports[1].location: 192.0.2.2;net_ring1: a port on another host is HOST:PORT;DEVICE \
         (its landspeed serve, then the device there)"
    );
    let mut c = two_hosts("192.0.2.2:8443;net_ring1");
    c["captures"] = json!([{ "name": "c", "port_names": ["p2"] }]);
    assert_eq!(
        refusal(c),
        "captures: p2 is on another host: capture it from that host's server"
    );
}

/// One header as snappi sends it, every field a single value.
fn hdr(choice: &str, fields: Value) -> Value {
    let mut body = serde_json::Map::new();
    for (k, v) in fields.as_object().unwrap() {
        body.insert(k.clone(), json!({ "choice": "value", "value": v }));
    }
    json!({ "choice": choice, choice: body })
}

/// The flow of [`flow`] with `packet` headers instead.
fn with_packet(packet: Vec<Value>) -> Value {
    let mut f = flow(json!({}));
    f["packet"] = json!(packet);
    config(vec![f])
}

/// The packet of [`flow`]: ethernet, ipv4, udp.
fn plain() -> Vec<Value> {
    flow(json!({}))["packet"].as_array().unwrap().clone()
}

#[test]
fn tags_labels_and_tunnels_become_the_streams_encapsulations() {
    let eth = plain()[0].clone();
    let (ip, udp) = (plain()[1].clone(), plain()[2].clone());
    // 802.1ad then 802.1Q, two MPLS labels.
    let qinq = hdr("vlan", json!({ "tpid": 0x88a8, "id": 100, "priority": 5 }));
    let vlan = hdr("vlan", json!({ "id": 200 }));
    let l1 = hdr("mpls", json!({ "label": 16 }));
    let l2 = hdr(
        "mpls",
        json!({ "label": 17, "traffic_class": 3, "time_to_live": 9 }),
    );
    let packet = vec![eth.clone(), qinq, vlan, l1, l2, ip.clone(), udp.clone()];
    let (_, p) = profile(with_packet(packet));
    let s = &p["streams"][0];
    assert_eq!(s["qinq"], json!({ "id": 100, "pcp": 5, "dei": false }));
    assert_eq!(s["vlan"], json!({ "id": 200, "pcp": 0, "dei": false }));
    assert_eq!(
        s["mpls"],
        json!([{ "label": 16, "tc": 0, "ttl": 64 }, { "label": 17, "tc": 3, "ttl": 9 }])
    );
    assert_eq!(s["ipv4"]["src"], json!("198.18.0.1"));

    // VXLAN: the outer IPv4 and UDP, the VNI, the inner Ethernet; the
    // stamped packet's headers stay the stream's own.
    let outer = hdr(
        "ipv4",
        json!({ "src": "192.0.2.1", "dst": "192.0.2.2", "time_to_live": 5 }),
    );
    let ou = hdr("udp", json!({ "src_port": 50000, "dst_port": 4789 }));
    let vx = hdr("vxlan", json!({ "vni": 4096 }));
    let inner = hdr(
        "ethernet",
        json!({ "src": "02:00:00:00:07:01", "dst": "02:00:00:00:07:02" }),
    );
    let packet = vec![
        eth.clone(),
        outer.clone(),
        ou.clone(),
        vx.clone(),
        inner.clone(),
        ip.clone(),
        udp.clone(),
    ];
    let (_, p) = profile(with_packet(packet));
    let s = &p["streams"][0];
    assert_eq!(
        s["vxlan"],
        json!({
            "ipv4": { "src": "192.0.2.1", "dst": "192.0.2.2", "ttl": 5 },
            "src_port": 50000, "dst_port": 4789, "vni": 4096,
            "eth": { "src": "02:00:00:00:07:01", "dst": "02:00:00:00:07:02" }
        })
    );
    assert_eq!(s["eth"]["dst"], json!("02:00:00:00:00:02"));
    assert_eq!(s["ipv4"]["dst"], json!("198.19.0.1"));
    assert_eq!(s["udp"]["src"], json!(1000));

    // GRE over IPv6 around the same packet.
    let outer6 = hdr(
        "ipv6",
        json!({ "src": "2001:db8::a", "dst": "2001:db8::b" }),
    );
    let packet = vec![
        eth.clone(),
        outer6,
        hdr("gre", json!({})),
        ip.clone(),
        udp.clone(),
    ];
    let (_, p) = profile(with_packet(packet));
    assert_eq!(
        p["streams"][0]["gre"],
        json!({ "ipv6": { "src": "2001:db8::a", "dst": "2001:db8::b", "hop_limit": 64 } })
    );

    // Refused, each with its path.
    let cases: Vec<(Vec<Value>, &str)> = vec![
        (
            vec![eth.clone(), hdr("vlan", json!({ "tpid": 0x9100 })), ip.clone(), udp.clone()],
            "flows[0].packet[1].vlan.tpid: only 0x8100 (802.1Q) and 0x88a8 (802.1ad) are supported",
        ),
        (
            vec![eth.clone(), hdr("vlan", json!({})), hdr("vlan", json!({ "tpid": 0x88a8 })), ip.clone(), udp.clone()],
            "flows[0].packet[2].vlan.tpid: landspeed sends at most one 802.1ad tag, then at most one 802.1Q tag",
        ),
        (
            vec![eth.clone(), hdr("mpls", json!({ "bottom_of_stack": 1 })), ip.clone(), udp.clone()],
            "flows[0].packet[1].mpls.bottom_of_stack: is not supported: landspeed sets it on the last label",
        ),
        (
            vec![eth.clone(), ip.clone(), hdr("mpls", json!({})), udp.clone()],
            "flows[0].packet[2].choice: mpls cannot come here: landspeed sends ethernet, up to two vlan \
             (802.1ad 0x88a8 before 802.1Q 0x8100), mpls labels, then ipv4 or ipv6 and udp or tcp, \
             optionally inside ipv4 or ipv6 and udp and vxlan and ethernet, or inside ipv4 or ipv6 and gre",
        ),
        (
            vec![eth.clone(), outer.clone(), ou.clone(), hdr("vxlan", json!({ "flags": 0 })), inner.clone(), ip.clone(), udp.clone()],
            "flows[0].packet[3].vxlan.flags: only 8 is supported (RFC 7348: the I flag alone, reserved 0)",
        ),
        (
            vec![eth.clone(), outer.clone(), hdr("gre", json!({ "checksum_present": 1 })), ip.clone(), udp.clone()],
            "flows[0].packet[2].gre.checksum_present: only 0 is supported (landspeed sends GRE version 0 without a checksum)",
        ),
        (
            vec![eth.clone(), outer.clone(), hdr("gre", json!({ "protocol": 2048 })), ip.clone(), udp.clone()],
            "flows[0].packet[2].gre.protocol: is not supported: landspeed sets it from the next header",
        ),
        (
            vec![eth.clone(), hdr("ipv4", json!({ "dont_fragment": 0 })), hdr("gre", json!({})), ip.clone(), udp.clone()],
            "flows[0].packet[1].ipv4.dont_fragment: 0 is not supported: landspeed sets DF on a tunnel's outer IPv4 header",
        ),
        (
            vec![eth.clone(), outer.clone(), ou.clone(), vx.clone(), ip.clone(), udp.clone()],
            "flows[0].packet[4].choice: ipv4 cannot come here: landspeed sends ethernet, up to two vlan \
             (802.1ad 0x88a8 before 802.1Q 0x8100), mpls labels, then ipv4 or ipv6 and udp or tcp, \
             optionally inside ipv4 or ipv6 and udp and vxlan and ethernet, or inside ipv4 or ipv6 and gre",
        ),
        (
            vec![eth.clone(), outer.clone(), hdr("gre", json!({})), ip.clone(), udp.clone(), vx.clone()],
            "flows[0].packet[5].choice: vxlan cannot come here: landspeed sends ethernet, up to two vlan \
             (802.1ad 0x88a8 before 802.1Q 0x8100), mpls labels, then ipv4 or ipv6 and udp or tcp, \
             optionally inside ipv4 or ipv6 and udp and vxlan and ethernet, or inside ipv4 or ipv6 and gre",
        ),
    ];
    for (packet, want) in cases {
        assert_eq!(refusal(with_packet(packet)), want);
    }
    // A range on a tunnel's endpoint.
    let mut c = with_packet(vec![eth, outer, ou, vx, inner, ip, udp]);
    c["flows"][0]["packet"][1]["ipv4"]["src"] = json!({ "choice": "increment", "increment": { "start": "192.0.2.1", "step": "0.0.0.1", "count": 4 } });
    assert_eq!(
        refusal(c),
        "flows[0].packet[1].ipv4.src: a tunnel endpoint is one value"
    );
}
