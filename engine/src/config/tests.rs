//! Loader tests: good profiles, and every bad input with its message.

use std::net::Ipv4Addr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ext::{Layer, LinkKind, Pattern, RateSpec, TxMode};
use super::*;
use crate::wire::spec::{IpSpec, L4Spec, SizeSpec, ValueSet, Vary};
use crate::wire::tcp::TcpFlags;

/// A valid profile; tests break one line of it at a time.
const BASE: &str = "\
eal:
  cores: [0, 1, 2, 3]
  vdevs: [net_null0, \"net_pcap0,tx_pcap=out.pcap\"]
ports:
  - name: p0
    device: net_null0
    tx_queues: 2
    rx_queues: 2
  - name: p1
    device: net_pcap0
streams:
  - name: a
    ipv4: { src: 198.18.0.1, dst: \"198.19.0.1-198.19.0.10\" }
    udp: { src: 1024-1087, dst: 5001 }
  - name: b
    frame_size: [128, 1518]
    vlan: { id: 100, pcp: 3 }
    ipv6: { src: \"2001:db8::1\", dst: [\"2001:db8::2\", \"2001:db8::3\"] }
    tcp: { src: 40000, dst: 5001, flags: [ack, psh] }
    vary: { random: 42 }
    weight: 3
tx:
  - lcore: 1
    port: p0
    queue: 0
    streams: [a, b]
    rate: 5G
    mode: burst 32
    trace: dep.csv
rx:
  - lcore: 2
    port: p0
    queues: [0, 1]
    streams: [a]
run:
  duration: 3s
  interval: 500ms
";

/// The message for `text`, loaded as `t.yaml`.
fn err(text: &str) -> String {
    match load_str(text, "t.yaml") {
        Ok(_) => panic!("profile accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// `BASE` with `from` replaced by `to` (which must occur).
fn with(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from:?} not in BASE");
    BASE.replacen(from, to, 1)
}

/// The message for `BASE` with `from` replaced by `to`.
fn err_with(from: &str, to: &str) -> String {
    err(&with(from, to))
}

#[test]
fn base_profile_loads_into_a_plan() {
    let plan = load_str(BASE, "t.yaml").unwrap();
    assert_eq!(plan.origin, "t.yaml");
    assert_eq!(plan.eal.lcores, vec![0, 1, 2, 3]);
    assert_eq!(plan.eal.main_lcore, 0);
    assert_eq!(plan.eal.vdevs[1], "net_pcap0,tx_pcap=out.pcap");
    assert_eq!(plan.ports.len(), 2);
    assert_eq!(plan.ports[0].device, Device::Vdev("net_null0".into()));
    assert_eq!(plan.ports[0].checksum, Checksum::Auto);
    assert_eq!(plan.ports[0].link, None);
    assert_eq!(plan.ports[0].max_frame, 9130);
    assert_eq!(plan.ports[1].max_frame, 0);
    let auto = with(
        "    port: p0\n    queues: [0, 1]\n    streams: [a]",
        "    port: p1",
    );
    let plan2 = load_str(&auto, "t").unwrap();
    assert_eq!(plan2.ports[1].max_frame, 9130);
    assert_eq!(plan2.rx[0].queues, vec![0]);
    assert_eq!(plan2.rx[0].streams, RxStreams::Auto);

    let a = &plan.streams[0];
    assert_eq!((a.id, a.name.as_str()), (1, "a"));
    assert_eq!(a.size, SizeSpec::Fixed(9130));
    match &a.ip {
        IpSpec::V4 { src, dst, ttl, .. } => {
            assert_eq!(*src, ValueSet::Single(Ipv4Addr::new(198, 18, 0, 1)));
            assert_eq!(
                *dst,
                ValueSet::Range {
                    first: Ipv4Addr::new(198, 19, 0, 1),
                    last: Ipv4Addr::new(198, 19, 0, 10)
                }
            );
            assert_eq!(*ttl, 64);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        a.l4,
        L4Spec::Udp {
            src_port: ValueSet::Range {
                first: 1024,
                last: 1087
            },
            dst_port: ValueSet::Single(5001)
        }
    );
    let b = &plan.streams[1];
    assert_eq!(b.id, 2);
    assert_eq!(b.size, SizeSpec::Cycle(vec![128, 1518]));
    assert_eq!(b.vlan.map(|v| (v.id, v.pcp)), Some((100, 3)));
    assert_eq!(b.vary, Vary::Random { seed: 42 });
    match &b.l4 {
        L4Spec::Tcp { flags, .. } => assert_eq!(*flags, TcpFlags::ACK | TcpFlags::PSH),
        other => panic!("{other:?}"),
    }

    let t = &plan.tx[0];
    assert_eq!((t.lcore, t.port, t.queue), (1, 0, 0));
    assert_eq!(t.streams, vec![0, 1]);
    assert_eq!(t.weights, vec![1, 3]);
    assert_eq!(t.rate, "5G".parse::<RateSpec>().unwrap());
    assert_eq!(t.layer, Layer::L1);
    assert_eq!(t.mode, "burst 32".parse::<TxMode>().unwrap());
    assert_eq!(t.pattern, Pattern::Cbr);
    assert_eq!(t.trace, Some(PathBuf::from("dep.csv")));
    assert_eq!(t.trace_frames, 1_000_000);

    let r = &plan.rx[0];
    assert_eq!((r.lcore, r.port), (2, 0));
    assert_eq!(r.queues, vec![0, 1]);
    assert_eq!(r.verify, Verify::Full);
    assert_eq!(r.streams, RxStreams::Listed(vec![0]));

    assert_eq!(
        plan.run,
        RunPlan {
            duration: Duration::from_secs(3),
            interval: Duration::from_millis(500),
            start_at: None,
            until_stopped: false,
        }
    );
}

#[test]
fn eal_args() {
    let plan = load_str(BASE, "t.yaml").unwrap();
    let args = plan.eal.eal_args();
    let pid = std::process::id();
    assert_eq!(
        args,
        vec![
            "landspeed".to_string(),
            "-l".into(),
            "0,1,2,3".into(),
            "--main-lcore=0".into(),
            "--no-huge".into(),
            "-m".into(),
            "512".into(),
            "--no-pci".into(),
            "--vdev=net_null0".into(),
            "--vdev=net_pcap0,tx_pcap=out.pcap".into(),
            format!("--file-prefix=ls{pid}"),
            "--no-shconf".into(),
            "--log-level=error".into(),
        ]
    );
    let text = with("  cores: [0, 1, 2, 3]\n", "  cores: [0, 1, 2, 3]\n  hugepages: true\n  pci: [\"03:00.1\"]\n  file_prefix: lab\n  log_level: warning\n  extra_args: [--huge-unlink]\n");
    let text = text.replace("device: net_pcap0", "device: 0000:03:00.1");
    let plan = load_str(&text, "t.yaml").unwrap();
    assert_eq!(plan.ports[1].device, Device::Pci("0000:03:00.1".into()));
    let args = plan.eal.eal_args();
    assert!(!args.contains(&"--no-huge".to_string()));
    assert!(!args.contains(&"--no-pci".to_string()));
    assert!(!args.contains(&"--no-shconf".to_string()));
    let joined = args.join(" ");
    assert!(joined.contains("-a 0000:03:00.1"), "{joined}");
    assert!(joined.contains("--file-prefix=lab"), "{joined}");
    assert!(
        joined.ends_with("--log-level=warning --huge-unlink"),
        "{joined}"
    );
}

#[test]
fn cpus_map_lcores_onto_shared_cpus() {
    let plan = load_str(BASE, "t.yaml").unwrap();
    assert_eq!(plan.eal.cpus, plan.eal.lcores, "each lcore on its own CPU");
    let text = with(
        "  cores: [0, 1, 2, 3]\n",
        "  cores: [0, 1, 2, 3]\n  cpus: [0, 1, 1, 0]\n",
    );
    let plan = load_str(&text, "t.yaml").unwrap();
    assert_eq!(plan.eal.cpus, vec![0, 1, 1, 0]);
    let args = plan.eal.eal_args();
    assert_eq!(args[1..3], ["--lcores=0@0,1@1,2@1,3@0", "--main-lcore=0"]);
    assert!(!args.contains(&"-l".to_string()), "{args:?}");
    let text = with(
        "  cores: [0, 1, 2, 3]\n",
        "  cores: [0, 1, 2, 3]\n  cpus: [0, 1, 2, 3]\n",
    );
    let args = load_str(&text, "t.yaml").unwrap().eal.eal_args();
    assert_eq!(args[1..3], ["-l", "0,1,2,3"]);
    let text = with(
        "  cores: [0, 1, 2, 3]\n",
        "  cores: [0, 1, 2, 3]\n  cpus: [0, 1]\n",
    );
    assert_eq!(
        load_str(&text, "t.yaml").unwrap_err().to_string(),
        "t.yaml:3: eal.cpus: 2 CPUs for 4 lcores: give one CPU per lcore of eal.cores, in its order"
    );
    let text = with(
        "  cores: [0, 1, 2, 3]\n",
        "  cores: [0, 1, 2, 3]\n  cpus: [0, 1, 128, 127]\n",
    );
    assert_eq!(
        load_str(&text, "t.yaml").unwrap_err().to_string(),
        "t.yaml:3: eal.cpus[2]: CPU 128 is beyond the 128 CPUs DPDK is built for (RTE_MAX_LCORE)"
    );
}

#[test]
fn relative_paths_resolve_against_the_profile_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("profiles");
    std::fs::create_dir(&sub).unwrap();
    let path = sub.join("p.yaml");
    let text = with("tx_pcap=out.pcap", "tx_pcap=out.pcap,rx_pcap=/abs/in.pcap");
    std::fs::write(&path, text).unwrap();
    let plan = load(&path).unwrap();
    assert_eq!(plan.origin, path.display().to_string());
    assert_eq!(
        plan.eal.vdevs[1],
        format!(
            "net_pcap0,tx_pcap={},rx_pcap=/abs/in.pcap",
            sub.join("out.pcap").display()
        )
    );
    assert_eq!(plan.tx[0].trace, Some(sub.join("dep.csv")));
}

#[test]
fn shipped_profiles_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let plan = load(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(!plan.tx.is_empty() || !plan.rx.is_empty());
            names.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    names.sort();
    for want in [
        "lsr-ipv4.yaml",
        "lsr-ipv6.yaml",
        "null-rx.yaml",
        "null.yaml",
        "pcap-capture.yaml",
        "rfc2544.yaml",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
    }
}

#[test]
fn default_profile() {
    let plan = load_default().unwrap();
    assert_eq!(plan.origin, "configs/null.yaml (built in)");
    assert_eq!(plan.eal.vdevs, vec!["net_null0".to_string()]);
    assert!(!plan.eal.hugepages);
    assert_eq!(plan.eal.memory_mb, 512);
    assert_eq!(plan.tx.len(), 1);
    assert!(plan.rx.is_empty());
    assert_eq!(plan.streams[0].size, SizeSpec::Fixed(9130));
    assert_eq!(plan.ports[0].link, Some(LinkKind::Lan10G));
    assert_eq!(plan.run.duration, Duration::from_secs(10));
}

#[test]
fn shipped_profiles_say_what_the_brief_promised() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
    let lsr = load(&dir.join("lsr-ipv6.yaml")).unwrap();
    assert_eq!(lsr.streams.len(), 1);
    assert!(matches!(lsr.streams[0].ip, IpSpec::V6 { .. }));
    assert!(matches!(lsr.streams[0].l4, L4Spec::Tcp { .. }));
    assert_eq!(lsr.ports[0].bus, Some("pcix-133".parse().unwrap()));
    let rfc = load(&dir.join("rfc2544.yaml")).unwrap();
    assert_eq!(
        rfc.streams[0].size,
        SizeSpec::Cycle(vec![64, 128, 256, 512, 1024, 1280, 1518])
    );
    assert_eq!(rfc.tx[0].rate, RateSpec::Line);
    let cap = load(&dir.join("pcap-capture.yaml")).unwrap();
    assert_eq!(cap.streams.len(), 4);
    assert!(cap.eal.vdevs[0].ends_with("capture.pcap"));
}

// ---- bad input ----

#[test]
fn missing_file_names_the_path() {
    let e = load(Path::new("no/such/profile.yaml")).unwrap_err();
    assert_eq!(e.line, None);
    let m = e.to_string();
    assert!(
        m.starts_with("no/such/profile.yaml: cannot read the profile: "),
        "{m}"
    );
}

#[test]
fn empty_profile() {
    assert_eq!(
        err("# nothing\n"),
        "t.yaml: the profile is empty: it needs eal:, ports: and a tx: or rx: list"
    );
}

#[test]
fn malformed_yaml_gives_the_line() {
    let m = err_with(
        "    udp: { src: 1024-1087, dst: 5001 }",
        "    udp: { src: 1024-1087, dst: 5001",
    );
    assert!(m.starts_with("t.yaml:15: "), "{m}");
    let m = err_with("  - name: b\n", "  - name: b\n   bad indent: 1\n");
    assert!(m.starts_with("t.yaml:16: "), "{m}");
    assert!(!m.contains("column"), "{m}");
}

#[test]
fn unknown_key_gives_line_key_and_allowed_keys() {
    let m = err_with(
        "    vlan: { id: 100, pcp: 3 }",
        "    vlan: { id: 100, prio: 3 }",
    );
    assert_eq!(
        m,
        "t.yaml:17: streams[1].vlan: unknown field `prio`, expected one of `id`, `pcp`, `dei`"
    );
    let m = err_with("  duration: 3s", "  duration: 3s\n  durration: 4s");
    assert!(
        m.starts_with(
            "t.yaml:37: run: unknown field `durration`, expected `duration` or `interval`"
        ),
        "{m}"
    );
    let m = err(&format!("{BASE}extra: 1\n"));
    assert!(
        m.starts_with("t.yaml:38: unknown field `extra`, expected one of `eal`, `ports`"),
        "{m}"
    );
}

#[test]
fn wrong_type() {
    let m = err_with("    queue: 0", "    queue: first");
    assert!(
        m.starts_with("t.yaml:25: tx[0].queue: invalid type: string \"first\""),
        "{m}"
    );
    let m = err_with("  cores: [0, 1, 2, 3]", "  cores: 0-3");
    assert!(
        m.starts_with("t.yaml:2: eal.cores: invalid type: string \"0-3\", expected a sequence"),
        "{m}"
    );
    let m = err_with(
        "    vlan: { id: 100, pcp: 3 }",
        "    vlan: { id: [100], pcp: 3 }",
    );
    assert_eq!(
        m,
        "t.yaml:17: streams[1].vlan.id: expected a whole number, found a list"
    );
}

#[test]
fn missing_required_key() {
    let m = err_with("    port: p0\n    queue: 0", "    queue: 0");
    assert_eq!(m, "t.yaml:23: tx[0]: missing field `port`");
}

#[test]
fn frame_sizes() {
    let m = err_with("    frame_size: [128, 1518]", "    frame_size: [1518, 70]");
    assert!(
        m.starts_with(
            "t.yaml:16: streams[1].frame_size: frame size 70 (entry 1) is below the minimum"
        ),
        "{m}"
    );
    let m = err_with("  - name: a\n", "  - name: a\n    frame_size: 16384\n");
    assert_eq!(
        m,
        "t.yaml:13: streams[0].frame_size: frame size 16384 is above the maximum 16383"
    );
    let m = err_with("  - name: a\n", "  - name: a\n    frame_size: 63\n");
    assert!(
        m.starts_with("t.yaml:13: streams[0].frame_size: frame size 63 is below the minimum 64"),
        "{m}"
    );
    let m = err_with("  - name: a\n", "  - name: a\n    frame_size: big\n");
    assert_eq!(
        m,
        "t.yaml:13: streams[0].frame_size: `big` is not a frame size in bytes"
    );
    let plan = load_str(
        &with("    frame_size: [128, 1518]", "    frame_size: imix"),
        "t",
    )
    .unwrap();
    assert_eq!(plan.streams[1].size, SizeSpec::Imix);
}

#[test]
fn address_families() {
    let m = err_with("src: \"2001:db8::1\"", "src: 198.18.0.1");
    assert_eq!(
        m,
        "t.yaml:18: streams[1].ipv6.src: 198.18.0.1 is not an IPv6 address: this stream is IPv6; use ipv4: for IPv4 addresses"
    );
    let m = err_with("dst: \"198.19.0.1-198.19.0.10\"", "dst: \"2001:db8::5\"");
    assert_eq!(
        m,
        "t.yaml:13: streams[0].ipv4.dst: 2001:db8::5 is not an IPv4 address: this stream is IPv4; use ipv6: for IPv6 addresses"
    );
    let m = err_with("\"2001:db8::3\"]", "\"198.19.0.3\"]");
    assert!(
        m.starts_with("t.yaml:18: streams[1].ipv6.dst[1]: 198.19.0.3 is not an IPv6"),
        "{m}"
    );
    let m = err_with("src: 198.18.0.1,", "src: 198.18.0.300,");
    assert_eq!(
        m,
        "t.yaml:13: streams[0].ipv4.src: `198.18.0.300` is not an IPv4 address"
    );
    let m = err_with(
        "    udp: { src: 1024-1087, dst: 5001 }",
        "    udp: { src: 1024-1087, dst: 5001 }\n    ipv6: {}",
    );
    assert_eq!(
        m,
        "t.yaml:15: streams[0].ipv6: a stream is either IPv4 or IPv6: keep one of ipv4: and ipv6:"
    );
}

#[test]
fn impossible_and_overlapping_ranges() {
    let m = err_with("198.19.0.1-198.19.0.10", "198.19.0.10-198.19.0.1");
    assert_eq!(
        m,
        "t.yaml:13: streams[0].ipv4.dst: range 198.19.0.10-198.19.0.1 is impossible: its first value is above its last"
    );
    let m = err_with("src: 1024-1087", "src: 1087-1024");
    assert!(
        m.starts_with("t.yaml:14: streams[0].udp.src: range 1087-1024 is impossible"),
        "{m}"
    );
    let m = err_with("\"2001:db8::3\"]", "\"2001:db8::2\"]");
    assert_eq!(
        m,
        "t.yaml:18: streams[1].ipv6.dst: duplicate value 2001:db8::2 in list"
    );
    let m = err_with("dst: 5001 }", "dst: 70000 }");
    assert_eq!(
        m,
        "t.yaml:14: streams[0].udp.dst: 70000 is out of range 0..=65535"
    );
}

#[test]
fn vlan_out_of_range() {
    let m = err_with("{ id: 100, pcp: 3 }", "{ id: 5000, pcp: 3 }");
    assert_eq!(
        m,
        "t.yaml:17: streams[1].vlan.id: 5000 is out of range 0..=4094"
    );
    let m = err_with("{ id: 100, pcp: 3 }", "{ id: 100, pcp: 8 }");
    assert_eq!(m, "t.yaml:17: streams[1].vlan.pcp: 8 is out of range 0..=7");
    let m = err_with("{ id: 100, pcp: 3 }", "{ id: -1 }");
    assert_eq!(
        m,
        "t.yaml:17: streams[1].vlan.id: -1 is out of range 0..=4094"
    );
}

#[test]
fn bad_tcp_flags() {
    let m = err_with("flags: [ack, psh]", "flags: [ack, push]");
    assert_eq!(
        m,
        "t.yaml:19: streams[1].tcp.flags[1]: unknown TCP flag `push`: use fin, syn, rst, psh, ack, urg, ece, cwr, ns"
    );
    let m = err_with("flags: [ack, psh]", "flags: [syn, fin, ack]");
    assert_eq!(
        m,
        "t.yaml:19: streams[1].tcp.flags: FIN|SYN|ACK: SYN and FIN together"
    );
    let m = err_with("flags: [ack, psh]", "flags: psh");
    assert!(
        m.starts_with("t.yaml:19: streams[1].tcp.flags: PSH: data segments must carry ACK"),
        "{m}"
    );
    let plan = load_str(&with("flags: [ack, psh]", "flags: \"ACK|FIN\""), "t").unwrap();
    match &plan.streams[1].l4 {
        L4Spec::Tcp { flags, .. } => assert_eq!(*flags, TcpFlags::ACK | TcpFlags::FIN),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_frame_limit() {
    let plan = load_str(&with("    rate: 5G", "    rate: 5G\n    frames: 1000"), "t").unwrap();
    assert_eq!(plan.tx[0].frames, Some(1000));
    let m = err_with("    rate: 5G", "    rate: 5G\n    frames: 0");
    assert_eq!(
        m,
        "t.yaml:28: tx[0].frames: a task that sends no frame: frames must be at least 1 (or absent: no limit)"
    );
}

#[test]
fn rates() {
    let m = err_with("    rate: 5G", "    rate: fast");
    assert!(
        m.starts_with("t.yaml:27: tx[0].rate: cannot parse rate `fast`"),
        "{m}"
    );
    let m = err_with("    rate: 5G", "    rate: 0");
    assert!(
        m.starts_with("t.yaml:27: tx[0].rate: rate `0` is zero"),
        "{m}"
    );
    let m = err_with("    rate: 5G", "    rate: -3G");
    assert!(
        m.starts_with("t.yaml:27: tx[0].rate: rate `-3G` is negative"),
        "{m}"
    );
    let m = err_with("    rate: 5G", "    rate: 0%");
    assert!(m.starts_with("t.yaml:27: tx[0].rate: "), "{m}");
    let m = err_with("    rate: 5G", "    rate: 5G@L2\n    layer: l1");
    assert_eq!(
        m,
        "t.yaml:28: tx[0].layer: layer L1 contradicts the rate `5G@L2`, which counts L2: keep one"
    );
    let m = err_with("    rate: 5G", "    rate: 5G\n    layer: l7");
    assert!(
        m.starts_with("t.yaml:28: tx[0].layer: unknown layer `l7`"),
        "{m}"
    );
    let plan = load_str(&with("    rate: 5G", "    rate: 136612pps"), "t").unwrap();
    assert_eq!(plan.tx[0].layer, Layer::Frames);
    let plan = load_str(
        &with("    rate: 5G", "    rate: 95%\n    layer: payload"),
        "t",
    )
    .unwrap();
    assert_eq!(plan.tx[0].layer, Layer::Payload);
}

#[test]
fn modes_and_patterns() {
    let m = err_with("    mode: burst 32", "    mode: burst 4096");
    assert_eq!(
        m,
        "t.yaml:28: tx[0].mode: burst of 4096 frames is larger than the TX ring of 1024 descriptors (port `p0`'s tx_ring)"
    );
    let m = err_with("    mode: burst 32", "    mode: turbo");
    assert!(
        m.starts_with("t.yaml:28: tx[0].mode: cannot parse TX mode `turbo`"),
        "{m}"
    );
    let ok = |p: &str| {
        load_str(
            &with(
                "    mode: burst 32",
                &format!("    mode: spin\n    pattern: {p}"),
            ),
            "t",
        )
        .unwrap()
        .tx[0]
            .pattern
    };
    assert_eq!(ok("cbr"), Pattern::Cbr);
    assert_eq!(ok("{ poisson: { seed: 7 } }"), Pattern::Poisson { seed: 7 });
    assert_eq!(ok("poisson:9"), Pattern::Poisson { seed: 9 });
    assert_eq!(
        ok("{ onoff: { burst: 100, seed: 3 } }"),
        Pattern::OnOff {
            burst_frames: 100,
            seed: Some(3)
        }
    );
    let m = err_with("    mode: burst 32", "    pattern: { onoff: { on: 100 } }");
    assert_eq!(
        m,
        "t.yaml:28: tx[0].pattern.onoff.on: unknown key `on`, expected one of: burst, seed"
    );
    let m = err_with("    mode: burst 32", "    pattern: wave");
    assert!(
        m.starts_with("t.yaml:28: tx[0].pattern: cannot parse pattern `wave`"),
        "{m}"
    );
}

#[test]
fn cores_and_lcores() {
    let m = err_with("  cores: [0, 1, 2, 3]", "  cores: [0, 1, 2, 1]");
    assert_eq!(
        m,
        "t.yaml:2: eal.cores[3]: lcore 1 is listed twice (also eal.cores[1])"
    );
    let m = err_with("  - lcore: 1", "  - lcore: 7");
    assert_eq!(
        m,
        "t.yaml:23: tx[0].lcore: lcore 7 is not in eal.cores: add it there"
    );
    let m = err_with("  - lcore: 2", "  - lcore: 0");
    assert!(
        m.starts_with("t.yaml:31: rx[0].lcore: lcore 0 is the main lcore"),
        "{m}"
    );
    let m = err_with("  - lcore: 2", "  - lcore: 1");
    assert_eq!(
        m,
        "t.yaml:31: rx[0].lcore: lcore 1 already runs tx[0]; each lcore runs one task"
    );
    let m = err_with("  cores: [0, 1, 2, 3]", "  cores: []");
    assert!(m.starts_with("t.yaml:2: eal.cores: list the lcores"), "{m}");
}

#[test]
fn references() {
    let m = err_with("    port: p0\n    queue: 0", "    port: p9\n    queue: 0");
    assert_eq!(
        m,
        "t.yaml:24: tx[0].port: unknown port `p9`: the ports are p0, p1"
    );
    let m = err_with("    streams: [a, b]", "    streams: [a, c]");
    assert_eq!(
        m,
        "t.yaml:26: tx[0].streams[1]: unknown stream `c`: the streams are a, b"
    );
    let m = err_with("    streams: [a]", "    streams: [zz]");
    assert_eq!(
        m,
        "t.yaml:34: rx[0].streams[0]: unknown stream `zz`: the streams are a, b"
    );
    let m = err_with("    device: net_pcap0", "    device: net_ring0");
    assert_eq!(
        m,
        "t.yaml:10: ports[1].device: device `net_ring0` is neither a vdev from eal.vdevs (net_null0, net_pcap0) nor a PCI address from eal.pci"
    );
    let m = err_with("    device: net_pcap0", "    device: 0000:03:00.0");
    assert_eq!(
        m,
        "t.yaml:10: ports[1].device: PCI device 0000:03:00.0 is not in eal.pci: add it there"
    );
    let m = err_with("    device: net_pcap0", "    device: net_null0");
    assert_eq!(
        m,
        "t.yaml:10: ports[1].device: device `net_null0` is already used by ports[0]"
    );
}

#[test]
fn duplicate_streams() {
    let m = err_with("  - name: b\n", "  - name: a\n");
    assert_eq!(
        m,
        "t.yaml:15: streams[1].name: stream name `a` is already used by streams[0]"
    );
    let m = err_with("  - name: b\n", "  - name: b\n    id: 1\n");
    assert_eq!(m, "t.yaml:16: streams[1].id: stream id 1 is already used by streams[0] (ids default to the position in the list, from 1)");
    let m = err_with("    streams: [a, b]", "    streams: [a, a]");
    assert_eq!(m, "t.yaml:26: tx[0].streams[1]: stream `a` is listed twice");
}

#[test]
fn queues() {
    let m = err_with("    tx_queues: 2", "    tx_queues: 0");
    assert_eq!(
        m,
        "t.yaml:7: ports[0].tx_queues: 0 is out of range 1..=1024"
    );
    let m = err_with("    rx_queues: 2", "    rx_queues: 0");
    assert_eq!(
        m,
        "t.yaml:8: ports[0].rx_queues: 0 is out of range 1..=1024"
    );
    let m = err_with("    queue: 0", "    queue: 2");
    assert_eq!(
        m,
        "t.yaml:25: tx[0].queue: queue 2 does not exist: port `p0` has tx_queues: 2 (queues 0..=1)"
    );
    let m = err_with("    queues: [0, 1]", "    queues: [0, 2]");
    assert_eq!(m, "t.yaml:33: rx[0].queues[1]: queue 2 does not exist: port `p0` has rx_queues: 2 (queues 0..=1)");
    // A port some RX task reads has each of its RX queues polled.
    let m = err_with("    queues: [0, 1]", "    queues: [1]");
    assert_eq!(
        m,
        "t.yaml:8: ports[0].rx_queues: port `p0` has rx_queues: 2 but no RX task polls \
         queue 0: frames the port steers there would be lost unseen; list it in an rx \
         task's queues, or lower rx_queues"
    );
    let m = err_with("    queues: [0, 1]", "    queues: []");
    assert!(
        m.starts_with("t.yaml:33: rx[0].queues: an empty list polls nothing"),
        "{m}"
    );
    let two = with(
        "rx:\n",
        "  - lcore: 3\n    port: p0\n    queue: 0\n    streams: [b]\n    rate: 1G\nrx:\n",
    );
    let two = two.replace("    streams: [a, b]\n", "    streams: [a]\n");
    assert_eq!(
        err(&two),
        "t.yaml:32: tx[1].queue: port `p0` queue 0 is already used by tx[0]; each TX queue has one sender"
    );
    let ok = two.replace(
        "    queue: 0\n    streams: [b]",
        "    queue: 1\n    streams: [b]",
    );
    load_str(&ok, "t").unwrap();
    let m = err(&ok.replace(
        "    streams: [b]\n    rate: 1G",
        "    streams: [a]\n    rate: 1G",
    ));
    assert!(
        m.starts_with("t.yaml:33: tx[1].streams[0]: stream `a` is already sent by tx[0]"),
        "{m}"
    );
    let m = err_with(
        "    mode: burst 32",
        "    mode: spin\n  - lcore: 3\n    port: p0\n    queue: 1\n    rate: 1G",
    );
    assert!(
        m.contains("tx[1]: stream `a` is already sent by tx[0]"),
        "{m}"
    );
}

#[test]
fn durations() {
    let m = err_with("  duration: 3s", "  duration: 0s");
    assert_eq!(m, "t.yaml:36: run.duration: duration must be above zero");
    let m = err_with("  duration: 3s", "  duration: soon");
    assert_eq!(
        m,
        "t.yaml:36: run.duration: `soon` is not a duration; write e.g. 10s, 500ms, 2m, 1h, 1.5s"
    );
    let m = err_with("  interval: 500ms", "  interval: 5 parsecs");
    assert!(
        m.starts_with("t.yaml:37: run.interval: `5 parsecs`: unknown unit `parsecs`"),
        "{m}"
    );
    let plan = load_str(&with("  duration: 3s", "  duration: 90"), "t").unwrap();
    assert_eq!(plan.run.duration, Duration::from_secs(90));
}

#[test]
fn eal_settings() {
    let m = err_with(
        "  cores: [0, 1, 2, 3]",
        "  cores: [0, 1, 2, 3]\n  memory_mb: 16",
    );
    assert!(
        m.starts_with("t.yaml:3: eal.memory_mb: 16 MiB is too little without hugepages"),
        "{m}"
    );
    let m = err_with("[net_null0, ", "[net_null0, net_null0, ");
    assert_eq!(
        m,
        "t.yaml:3: eal.vdevs[1]: vdev `net_null0` is listed twice (also eal.vdevs[0])"
    );
    let m = err_with(
        "  cores: [0, 1, 2, 3]",
        "  cores: [0, 1, 2, 3]\n  pci: [\"3:0.x\"]",
    );
    assert_eq!(
        m,
        "t.yaml:3: eal.pci[0]: `3:0.x` is not a PCI address (write e.g. 0000:03:00.0 or 03:00.0)"
    );
    let m = err_with(
        "  cores: [0, 1, 2, 3]",
        "  cores: [0, 1, 2, 3]\n  file_prefix: \"a b\"",
    );
    assert!(
        m.starts_with("t.yaml:3: eal.file_prefix: `a b`: use `auto`"),
        "{m}"
    );
    let m = err_with(
        "  cores: [0, 1, 2, 3]",
        "  cores: [0, 1, 2, 3]\n  log_level: loud",
    );
    assert!(
        m.starts_with("t.yaml:3: eal.log_level: unknown log level `loud`"),
        "{m}"
    );
}

#[test]
fn ports_settings() {
    let m = err_with(
        "    device: net_null0\n",
        "    device: net_null0\n    checksum: magic\n",
    );
    assert_eq!(
        m,
        "t.yaml:7: ports[0].checksum: unknown checksum mode `magic`: use auto, software or offload"
    );
    let m = err_with(
        "    device: net_null0\n",
        "    device: net_null0\n    link: 7x\n",
    );
    assert!(
        m.starts_with("t.yaml:7: ports[0].link: invalid link `7x`"),
        "{m}"
    );
    let m = err_with(
        "    device: net_null0\n",
        "    device: net_null0\n    bus: isa\n",
    );
    assert!(
        m.starts_with("t.yaml:7: ports[0].bus: invalid bus `isa`"),
        "{m}"
    );
    let m = err_with(
        "    device: net_null0\n",
        "    device: net_null0\n    tx_ring: 0\n",
    );
    assert_eq!(
        m,
        "t.yaml:7: ports[0].tx_ring: 0 descriptors is out of range 1..=32768"
    );
    let plan = load_str(
        &with("    device: net_null0\n", "    device: net_null0\n    link: 10gbase-w\n    bus: pcix-133\n    checksum: software\n"),
        "t",
    )
    .unwrap();
    assert_eq!(plan.ports[0].link, Some(LinkKind::Wan10G));
    assert!(plan.ports[0].bus.is_some());
    assert_eq!(plan.ports[0].checksum, Checksum::Software);
}

#[test]
fn no_tasks_or_ports() {
    let m = err(
        "eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\nports:\n  - name: p\n    device: net_null0\n",
    );
    assert_eq!(
        m,
        "t.yaml:1: tx: the profile has no task: add a tx: or an rx: list (or both)"
    );
    let m = err("eal:\n  cores: [0, 1]\ntx: []\n");
    assert!(
        m.starts_with("t.yaml:1: ports: the profile has no port"),
        "{m}"
    );
    let m = err("eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\nports:\n  - name: p\n    device: net_null0\ntx:\n  - lcore: 1\n    port: p\n    rate: 1G\n");
    assert_eq!(
        m,
        "t.yaml:8: tx[0]: there are no streams to send: add a streams: list"
    );
}

#[test]
fn stream_defaults() {
    let text = "eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\nports:\n  - name: p\n    device: net_null0\nstreams:\n  - name: s\n    tcp: {}\n  - name: t\n    ipv6: {}\n    vary: random\ntx:\n  - lcore: 1\n    port: p\n    rate: line\n";
    let plan = load_str(text, "t").unwrap();
    assert_eq!(
        plan.streams[0].ip,
        crate::wire::spec::StreamSpec::default().ip
    );
    match &plan.streams[0].l4 {
        L4Spec::Tcp {
            flags,
            window,
            seq_start,
            ..
        } => {
            assert_eq!((*flags, *window, *seq_start), (TcpFlags::ACK, 65535, 1));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        plan.streams[1].ip,
        IpSpec::V6 { hop_limit: 64, .. }
    ));
    assert_eq!(plan.streams[1].vary, Vary::Random { seed: 1 });
    assert_eq!(plan.tx[0].streams, vec![0, 1]);
    assert_eq!(plan.tx[0].mode, TxMode::Spin);
    assert_eq!(plan.run.duration, Duration::from_secs(10));
    assert_eq!(plan.rx.len(), 0);
}

#[test]
fn overrides() {
    let two = BASE
        .replace("    streams: [a, b]\n", "    streams: [a]\n")
        .replace(
            "rx:\n",
            "  - lcore: 3\n    port: p0\n    queue: 1\n    streams: [b]\n    rate: 1G\nrx:\n",
        );
    let plan = load_str(&two, "t").unwrap();
    let p = plan
        .clone()
        .with_overrides(Some(Duration::from_secs(2)), Some("8G".parse().unwrap()))
        .unwrap();
    assert_eq!(p.run.duration, Duration::from_secs(2));
    assert_eq!(p.tx[0].rate, "4G".parse::<RateSpec>().unwrap());
    assert_eq!(p.tx[1].rate, "4G".parse::<RateSpec>().unwrap());
    let p = plan
        .clone()
        .with_overrides(None, Some(RateSpec::Line))
        .unwrap();
    assert_eq!(p.tx[0].rate, "50%".parse::<RateSpec>().unwrap());
    assert_eq!(p.run.duration, Duration::from_secs(3));
    let p = plan.clone().with_overrides(None, None).unwrap();
    assert_eq!(p.tx[0].rate, "5G".parse::<RateSpec>().unwrap());
    let e = plan
        .clone()
        .with_overrides(Some(Duration::ZERO), None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "command line: --duration: the duration must be above zero"
    );
    let p = plan
        .clone()
        .with_overrides(None, Some("3G@L2".parse().unwrap()))
        .unwrap();
    assert_eq!(p.tx[1].layer, Layer::L2);
    let pps = load_str(&two.replace("rate: 1G", "rate: 1000pps"), "t").unwrap();
    assert_eq!(pps.tx[1].layer, Layer::Frames);
    let p = pps
        .with_overrides(None, Some("2G".parse().unwrap()))
        .unwrap();
    assert_eq!((p.tx[0].layer, p.tx[1].layer), (Layer::L1, Layer::L1));
    let one = load_str(BASE, "t").unwrap();
    let p = one
        .with_overrides(None, Some("95%".parse().unwrap()))
        .unwrap();
    assert_eq!(p.tx[0].rate, "95%".parse::<RateSpec>().unwrap());
}

#[test]
fn alias_bombs_are_refused_quickly() {
    // Ten levels of ten aliases each: 10^10 values once expanded.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let items = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{items}]\n"));
    }
    text.push_str(BASE);
    let start = std::time::Instant::now();
    let m = err(&text);
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        m,
        "t.yaml:5: the profile holds more than 100000 values once its aliases are expanded: \
         alias less (an alias of aliases multiplies)"
    );
    // Aliases within the budget are expanded where they are used.
    let text = with(
        "    udp: { src: 1024-1087, dst: 5001 }",
        "    udp: &ports { src: 1024-1087, dst: 5001 }",
    )
    .replace(
        "    tcp: { src: 40000, dst: 5001, flags: [ack, psh] }",
        "    tcp: *ports",
    );
    let plan = load_str(&text, "t").unwrap();
    assert!(matches!(plan.streams[1].l4, L4Spec::Tcp { .. }));
}

#[test]
fn deep_nesting_is_refused_quickly() {
    let start = std::time::Instant::now();
    let deep = format!("eal: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    assert_eq!(
        err(&deep),
        "t.yaml:1: lists and mappings nest deeper than 64 levels"
    );
    let block: String = (0..3000)
        .map(|i| format!("{}k:\n", "  ".repeat(i)))
        .collect();
    assert_eq!(
        err(&block),
        "t.yaml:65: lists and mappings nest deeper than 64 levels"
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn one_document_of_one_mapping() {
    assert_eq!(
        err(&format!("{BASE}---\neal: {{}}\n")),
        "t.yaml:38: the file holds more than one YAML document (a second `---`): a profile is \
         one document"
    );
    assert_eq!(
        err("- a\n- b\n"),
        "t.yaml:1: invalid type: sequence, expected a mapping with eal:, ports:, streams:, tx:, \
         rx: and run:"
    );
    assert_eq!(
        err("~\n"),
        "t.yaml:1: invalid type: unit value, expected a mapping with eal:, ports:, streams:, tx:, \
         rx: and run:"
    );
    let m = err_with("    rate: 5G", "    rate: !fast 5G");
    assert_eq!(
        m,
        "t.yaml:27: the tag `!fast` is not supported here: write the value without it"
    );
    let m = err_with("    rate: 5G", "    rate: *nowhere");
    assert!(m.starts_with("t.yaml:27: "), "{m}");
}

#[test]
fn a_runtime_error_names_the_line_of_its_field() {
    let plan = load_str(BASE, "t.yaml").unwrap();
    assert_eq!(
        plan.error("tx[0].rate", "too fast for this port")
            .to_string(),
        "t.yaml:27: tx[0].rate: too fast for this port"
    );
    // A field the profile left to its default: its nearest ancestor.
    assert_eq!(
        plan.error("ports[1].rx_ring", "too long").to_string(),
        "t.yaml:9: ports[1].rx_ring: too long"
    );
}

#[test]
fn synced_clock_keys_say_which_clock_each_side_relies_on() {
    use crate::clock::sync::ClockId;
    let p = load_str(
        &with(
            "    trace: dep.csv\n",
            "    clock: synced-tai\n    clock_error: 2us\n",
        )
        .replace(
            "    streams: [a]\n",
            "    streams: [a]\n    clock: synced+shared\n",
        ),
        "t.yaml",
    )
    .unwrap();
    let want = SyncedClock {
        id: ClockId::Tai,
        declared_error: Some(Duration::from_micros(2)),
    };
    assert_eq!(p.tx[0].clock, TxClock::Synced(want));
    let Clock::Synced { clock, shared } = p.rx[0].clock else {
        panic!("{:?}", p.rx[0].clock)
    };
    assert_eq!(
        (clock.id, clock.declared_error, shared),
        (ClockId::Realtime, None, true)
    );
    // The defaults: TSC stamps, the receiver's clock decided by `auto`.
    let p = load_str(BASE, "t.yaml").unwrap();
    assert_eq!((p.tx[0].clock, p.rx[0].clock), (TxClock::Tsc, Clock::Auto));
    // Bad input: one line naming the field.
    let m = err_with("    trace: dep.csv\n", "    clock: ptp\n");
    assert!(
        m.contains("tx[0].clock: unknown TX clock `ptp`: use tsc, synced or synced-tai"),
        "{m}"
    );
    let m = err_with("    trace: dep.csv\n", "    clock_error: 1ms\n");
    assert!(
        m.contains("tx[0].clock_error: a clock error is declared only for a synced clock"),
        "{m}"
    );
    let m = err_with(
        "    streams: [a]\n",
        "    streams: [a]\n    clock: synced\n    clock_error: soon\n",
    );
    assert!(m.contains("rx[0].clock_error:"), "{m}");
}

#[test]
fn rx_timestamps_choose_the_arrival_source() {
    use crate::clock::nic::Want;
    // The default: the NIC's stamps when the port offers them.
    assert_eq!(
        load_str(BASE, "t.yaml").unwrap().rx[0].timestamps,
        Want::Auto
    );
    for (word, want) in [
        ("auto", Want::Auto),
        ("nic", Want::Nic),
        ("software", Want::Software),
    ] {
        let p = load_str(
            &with(
                "    streams: [a]\n",
                &format!("    streams: [a]\n    timestamps: {word}\n"),
            ),
            "t.yaml",
        )
        .unwrap();
        assert_eq!(p.rx[0].timestamps, want, "{word}");
    }
    let m = err_with(
        "    streams: [a]\n",
        "    streams: [a]\n    timestamps: ptp\n",
    );
    assert!(
        m.contains("rx[0].timestamps: unknown timestamp source `ptp`: use auto, nic or software"),
        "{m}"
    );
}

#[test]
fn tx_timestamps_choose_the_departure_source() {
    use crate::clock::nic::Want;
    // The default: the NIC's sampled TX stamps when the port latches them.
    assert_eq!(
        load_str(BASE, "t.yaml").unwrap().tx[0].timestamps,
        Want::Auto
    );
    for (word, want) in [
        ("auto", Want::Auto),
        ("nic", Want::Nic),
        ("software", Want::Software),
    ] {
        let p = load_str(
            &with(
                "    trace: dep.csv\n",
                &format!("    trace: dep.csv\n    timestamps: {word}\n"),
            ),
            "t.yaml",
        )
        .unwrap();
        assert_eq!(p.tx[0].timestamps, want, "{word}");
    }
    let m = err_with(
        "    trace: dep.csv\n",
        "    trace: dep.csv\n    timestamps: 1588\n",
    );
    // Line 30 of the profile: the key's own line.
    assert_eq!(
        m,
        "t.yaml:30: tx[0].timestamps: unknown timestamp source `1588`: use auto, nic or software"
    );
}

#[test]
fn clock_servo_names_the_ptp4l_socket_a_synced_clock_reads() {
    use super::ClockServo;
    use std::path::PathBuf;
    let synced = |tx: &str, rx: &str| {
        with("    trace: dep.csv\n", &format!("    clock: synced\n{tx}")).replace(
            "    streams: [a]\n",
            &format!("    streams: [a]\n    clock: synced\n{rx}"),
        )
    };
    // The default with a synced clock: ptp4l's default socket if it is there.
    let p = load_str(&synced("", ""), "t.yaml").unwrap();
    assert_eq!(
        (&p.tx[0].clock_servo, &p.rx[0].clock_servo),
        (&ClockServo::Auto, &ClockServo::Auto)
    );
    let p = load_str(
        &synced(
            "    clock_servo: ptp4l\n",
            "    clock_servo: \"ptp4l:/run/ptp/slave\"\n",
        ),
        "t.yaml",
    )
    .unwrap();
    assert_eq!(
        p.tx[0].clock_servo,
        ClockServo::Ptp4l(PathBuf::from("/var/run/ptp4l"))
    );
    assert_eq!(
        p.rx[0].clock_servo,
        ClockServo::Ptp4l(PathBuf::from("/run/ptp/slave"))
    );
    let p = load_str(&synced("    clock_servo: none\n", ""), "t.yaml").unwrap();
    assert_eq!(p.tx[0].clock_servo, ClockServo::None);
    // Without a synced clock: none, and naming one is an error.
    let p = load_str(BASE, "t.yaml").unwrap();
    assert_eq!(
        (&p.tx[0].clock_servo, &p.rx[0].clock_servo),
        (&ClockServo::None, &ClockServo::None)
    );
    let m = err_with("    trace: dep.csv\n", "    clock_servo: ptp4l\n");
    assert!(
        m.contains("tx[0].clock_servo: a clock servo is read only for a synced clock"),
        "{m}"
    );
    let m = err(&synced("    clock_servo: chrony\n", ""));
    assert!(
        m.contains(
            "tx[0].clock_servo: unknown clock servo `chrony`: use none, ptp4l or ptp4l:PATH"
        ),
        "{m}"
    );
    let m = err(&synced("", "    clock_servo: \"ptp4l:\"\n"));
    assert!(
        m.contains("rx[0].clock_servo: `ptp4l:` needs the socket's path after it"),
        "{m}"
    );
}

/// Stream `b` of [`BASE`] with `lines` added after its `vlan:` line.
fn with_encap(lines: &str) -> String {
    with(
        "    vlan: { id: 100, pcp: 3 }\n",
        &format!("    vlan: {{ id: 100, pcp: 3 }}\n{lines}"),
    )
}

#[test]
fn encapsulations_load_into_the_stream() {
    use crate::wire::spec::{OuterIp, Tunnel};
    let text = with_encap(
        "    qinq: { id: 200, pcp: 5, dei: true }\n    mpls: [{ label: 16 }, { label: 17, tc: 3, ttl: 9 }]\n    vxlan: { vni: 42, ipv4: { src: 10.0.0.1, dst: 10.0.0.2, ttl: 8 }, eth: { dst: \"02:00:00:00:00:99\" } }\n",
    );
    // 128 bytes are too few for these headers, and said so.
    assert_eq!(
        load_str(&text, "t.yaml").unwrap_err().to_string(),
        "t.yaml:16: streams[1].frame_size: frame size 128 (entry 0) is below the minimum 162 \
         for these headers (headers + 18-byte stamp + 4-byte FCS)"
    );
    let text = text.replace("frame_size: [128, 1518]", "frame_size: [162, 1518]");
    let plan = load_str(&text, "t.yaml").unwrap();
    let b = &plan.streams[1];
    assert_eq!(b.qinq.map(|v| (v.id, v.pcp, v.dei)), Some((200, 5, true)));
    let labels: Vec<_> = b
        .encap
        .mpls
        .iter()
        .map(|l| (l.label, l.tc, l.ttl))
        .collect();
    assert_eq!(labels, [(16, 0, 64), (17, 3, 9)]);
    let Some(Tunnel::Vxlan {
        outer,
        vni,
        src_port,
        dst_port,
        inner,
    }) = b.encap.tunnel
    else {
        panic!("{:?}", b.encap)
    };
    assert_eq!(
        outer,
        OuterIp::V4 {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 0, 2),
            dscp: 0,
            ttl: 8
        }
    );
    assert_eq!((vni, src_port, dst_port), (42, 49152, 4789));
    assert_eq!(inner.dst.to_string(), "02:00:00:00:00:99");
    assert_eq!(
        inner.src,
        b.eth.first().src,
        "the stream's source by default"
    );
    // Ethernet, two tags, two labels, IPv4, UDP, VXLAN, Ethernet, IPv6, TCP.
    assert_eq!(b.header_len(), 14 + 8 + 8 + 20 + 8 + 8 + 14 + 40 + 20);

    let text = with_encap("    gre: { ipv6: { src: \"2001:db8::a\", dst: \"2001:db8::b\" }, key: 7, sequence: true }\n");
    let text = text.replace("frame_size: [128, 1518]", "frame_size: [152, 1518]");
    let plan = load_str(&text, "t.yaml").unwrap();
    let Some(Tunnel::Gre {
        outer,
        key,
        sequence,
    }) = plan.streams[1].encap.tunnel
    else {
        panic!()
    };
    assert!(matches!(outer, OuterIp::V6 { hop_limit: 64, .. }));
    assert_eq!((key, sequence), (Some(7), true));
}

#[test]
fn bad_encapsulations_name_the_line_and_field() {
    let cases = [
        (
            "    qinq: { id: 5000 }\n",
            "t.yaml:18: streams[1].qinq.id: 5000 is out of range 0..=4094",
        ),
        (
            "    mpls: []\n",
            "t.yaml:18: streams[1].mpls: an empty label stack: give at least one label, or drop mpls:",
        ),
        (
            "    mpls: [{ label: 16 }, { label: 1048576 }]\n",
            "t.yaml:18: streams[1].mpls[1].label: 1048576 is out of range 0..=0xfffff",
        ),
        (
            "    vxlan: { vni: 16777216, ipv4: { src: 10.0.0.1, dst: 10.0.0.2 } }\n",
            "t.yaml:18: streams[1].vxlan.vni: 16777216 is out of range 0..=0xffffff",
        ),
        (
            "    vxlan: { vni: 1 }\n",
            "t.yaml:18: streams[1].vxlan: a tunnel needs its outer header: give ipv4: or ipv6: with the endpoints' src: and dst:",
        ),
        (
            "    vxlan: { vni: 1, ipv4: { src: 10.0.0.1-10.0.0.3, dst: 10.0.0.9 } }\n",
            "t.yaml:18: streams[1].vxlan.ipv4.src: a tunnel endpoint is one address: give one, not a range or a list",
        ),
        (
            "    vxlan: { vni: 1, ipv4: {} }\n    gre: { ipv4: {} }\n",
            "t.yaml:19: streams[1].gre: a stream is either VXLAN or GRE: keep one of vxlan: and gre:",
        ),
        (
            "    gre: { ipv4: { src: \"2001:db8::1\" } }\n",
            "t.yaml:18: streams[1].gre.ipv4.src: 2001:db8::1 is not an IPv4 address: this stream is IPv4; use ipv6: for IPv6 addresses",
        ),
        (
            "    gre: { ipv4: {}, key: -1 }\n",
            "t.yaml:18: streams[1].gre.key: -1 is out of range 0..=4294967295",
        ),
        (
            "    gre: { ipv4: {}, seq: true }\n",
            "t.yaml:18: streams[1].gre: unknown field `seq`, expected one of `ipv4`, `ipv6`, `key`, `sequence`",
        ),
        (
            "    vxlan: { vni: 1, ipv4: {}, eth: { src: \"01:00:5e:00:00:01\" } }\n",
            "t.yaml:18: streams[1].vxlan.eth.src: source MAC 01:00:5e:00:00:01 is multicast or broadcast",
        ),
    ];
    for (lines, want) in cases {
        assert_eq!(err(&with_encap(lines)), want, "{lines}");
    }
}

#[test]
fn mac_sets_load_as_ranges_and_lists() {
    use crate::wire::spec::EthAddrs;
    let eths = |line: &str| -> EthAddrs {
        let text = with(
            "    udp: { src: 1024-1087, dst: 5001 }\n",
            &format!("    udp: {{ src: 1024-1087, dst: 5001 }}\n    eth: {line}\n"),
        );
        match load_str(&text, "t.yaml") {
            Ok(plan) => plan.streams[0].eth.clone(),
            Err(e) => panic!("{line}: {e}"),
        }
    };
    // An unquoted address is one MAC; a range with `:` octets, the same
    // range with `-` octets, and a list.
    let e = eths("{ src: 02:00:00:00:00:01, dst: \"02:00:00:00:01:00-02:00:00:00:01:ff\" }");
    assert_eq!(
        e.src,
        ValueSet::Single("02:00:00:00:00:01".parse().unwrap())
    );
    assert_eq!(
        e.dst,
        ValueSet::Range {
            first: "02:00:00:00:01:00".parse().unwrap(),
            last: "02:00:00:00:01:ff".parse().unwrap(),
        }
    );
    assert_eq!(e.dst.cardinality(), 256);
    let dashed = eths("{ dst: 02-00-00-00-01-00-02-00-00-00-01-ff }");
    assert_eq!(dashed.dst, e.dst);
    let one = eths("{ dst: 02-00-00-00-01-00 }");
    assert_eq!(
        one.dst,
        ValueSet::Single("02:00:00:00:01:00".parse().unwrap())
    );
    let list = eths("{ dst: [02:00:00:00:00:0a, \"ff:ff:ff:ff:ff:ff\"] }");
    assert_eq!(
        list.dst,
        ValueSet::List(vec![
            "02:00:00:00:00:0a".parse().unwrap(),
            "ff:ff:ff:ff:ff:ff".parse().unwrap()
        ])
    );
    // The default source stays when only the destination is set.
    assert_eq!(list.src, crate::wire::spec::StreamSpec::default().eth.src);
}

#[test]
fn bad_mac_sets_name_the_line_and_field() {
    let bad = |line: &str| {
        err_with(
            "    udp: { src: 1024-1087, dst: 5001 }\n",
            &format!("    udp: {{ src: 1024-1087, dst: 5001 }}\n    eth: {line}\n"),
        )
    };
    assert_eq!(
        bad("{ src: \"02:00:00:00:00:00-02:00:00:10:00:00\" }"),
        "t.yaml:15: streams[0].eth.src: 1048577 addresses, more than the 1048576 a set holds"
    );
    assert_eq!(
        bad("{ src: \"02:00:00:00:00:09-02:00:00:00:00:01\" }"),
        "t.yaml:15: streams[0].eth.src: range 02:00:00:00:00:09-02:00:00:00:00:01 is impossible: its first value is above its last"
    );
    assert_eq!(
        bad("{ src: \"00:ff:ff:ff:ff:ff-01:00:00:00:00:01\" }"),
        "t.yaml:15: streams[0].eth.src: the source MACs include 01:00:00:00:00:00, a multicast or broadcast address"
    );
    assert_eq!(
        bad("{ src: \"01:00:5e:00:00:01\" }"),
        "t.yaml:15: streams[0].eth.src: source MAC 01:00:5e:00:00:01 is multicast or broadcast"
    );
    assert_eq!(
        bad("{ src: [02:00:00:00:00:01, 03:00:00:00:00:01] }"),
        "t.yaml:15: streams[0].eth.src: the source MACs include 03:00:00:00:00:01, a multicast or broadcast address"
    );
    assert_eq!(
        bad("{ dst: [02:00:00:00:00:01, 02:00:00:00:00:01] }"),
        "t.yaml:15: streams[0].eth.dst: duplicate value 02:00:00:00:00:01 in list"
    );
    assert_eq!(
        bad("{ dst: \"02:00:00:00:00:zz\" }"),
        "t.yaml:15: streams[0].eth.dst: `02:00:00:00:00:zz` is not a MAC address (write six hex octets, e.g. 02:00:00:00:00:01)"
    );
    // A tunnel's inner header is one address each.
    assert_eq!(
        err(&with_encap(
            "    vxlan: { vni: 1, ipv4: {}, eth: { dst: [\"02:00:00:00:00:01\", \"02:00:00:00:00:02\"] } }\n"
        )),
        "t.yaml:18: streams[1].vxlan.eth.dst: expected one MAC address, found a list"
    );
}

#[test]
fn a_ring_mesh_makes_its_ports_and_bounds_their_queues() {
    let mesh = |n: &str, queues: u32| {
        BASE.replace(
            "  vdevs: [net_null0, \"net_pcap0,tx_pcap=out.pcap\"]\n",
            &format!("  vdevs: [net_null0]\n  ring_mesh: {n}\n"),
        )
        .replace("device: net_pcap0", "device: net_ring_mesh1")
        .replace(
            "    device: net_null0\n    tx_queues: 2\n    rx_queues: 2",
            &format!("    device: net_ring_mesh0\n    tx_queues: {queues}\n    rx_queues: 2"),
        )
    };
    let plan = load_str(&mesh("3", 2), "t.yaml").unwrap();
    assert_eq!(plan.eal.ring_mesh, 3);
    assert_eq!(plan.ports[0].device, Device::Vdev("net_ring_mesh0".into()));
    assert_eq!(plan.ports[1].device, Device::Vdev("net_ring_mesh1".into()));
    assert_eq!(load_str(BASE, "t.yaml").unwrap().eal.ring_mesh, 0);
    assert_eq!(
        err(&mesh("3", 3)),
        "t.yaml:8: ports[0].tx_queues: 3 queues on a port of a 3-port ring mesh, which has \
         one per peer: at most 2"
    );
    assert_eq!(
        err(&mesh("9", 2)),
        "t.yaml:4: eal.ring_mesh: 9 ports: a ring mesh has 2 to 8 (a queue per peer, at most \
         16 on a ring port)"
    );
    assert!(err(&mesh("1", 2)).contains("eal.ring_mesh: 1 ports: a ring mesh has 2 to 8"));
    // The mesh's ports count toward DPDK's 32.
    let list: Vec<String> = (0..30).map(|i| format!("net_null{i}")).collect();
    let full = mesh("3", 2).replace(
        "  vdevs: [net_null0]\n",
        &format!("  vdevs: [{}]\n", list.join(", ")),
    );
    assert_eq!(
        err(&full),
        "t.yaml:4: eal.ring_mesh: 33 devices in eal.vdevs, eal.pci and eal.ring_mesh, more \
         than the 32 ports DPDK is built for (RTE_MAX_ETHPORTS)"
    );
    // 30 vdevs and a mesh of 2 are 32: the count passes (the queues of
    // a 2-port mesh's port are what is refused then).
    let e = err(&full.replace("ring_mesh: 3", "ring_mesh: 2"));
    assert!(
        e.contains("2-port ring mesh, which has one per peer: at most 1"),
        "{e}"
    );
    // Its ports are devices of the profile's: a mesh port beyond the
    // mesh is not.
    let e = err(&mesh("3", 2).replace("net_ring_mesh1", "net_ring_mesh3"));
    assert!(
        e.contains("ports[1].device: device `net_ring_mesh3` is neither a vdev"),
        "{e}"
    );
    assert!(
        e.contains("net_ring_mesh0, net_ring_mesh1, net_ring_mesh2"),
        "{e}"
    );
}
