//! PAUSE frames both ways: gap mode's PAUSE frames are counted in the
//! comparison with the PMD's own counters (frames and bytes, checked
//! against the capture by an independent parser), and each port's JSON
//! entry says what became of its 802.3x flow control.

use crate::common::{
    json_str, json_u64, parse_frame, read_pcap, run_profile, run_profile_sharing_cpus,
};

/// Ethertype of MAC Control frames (PAUSE).
const MAC_CONTROL: u16 = 0x8808;

/// A gap-mode run of 64-byte frames at 40 % of a 10 GbE link into
/// `device` (a vdev of `vdev`), for `duration`.
fn gap_profile(vdev: &str, device: &str) -> String {
    format!(
        "eal: {{ cores: [0, 1], vdevs: [\"{vdev}\"] }}\n\
         ports: [ {{ name: p0, device: {device}, link: 10g }} ]\n\
         streams: [ {{ name: s, frame_size: 64 }} ]\n\
         tx: [ {{ lcore: 1, port: p0, rate: 40%, mode: gap }} ]\n\
         run: {{ duration: 1s }}\n"
    )
}

/// Gap mode into the pcap PMD, which counts bytes: the capture holds the
/// data frames and the PAUSE frames landspeed counted, byte for byte; the
/// PMD's `opackets` and `obytes` agree with data + gap frames (its bytes
/// without FCS), and the summary says so.
#[test]
fn gap_frames_are_counted_in_the_pmd_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = gap_profile("net_pcap0,tx_pcap=out.pcap", "net_pcap0");
    let (out, v) = run_profile(dir.path(), "gap", &yaml, &["--duration", "300ms"]);
    let (data, gap) = (json_u64(&v, "/tx/frames"), json_u64(&v, "/tx/gap_frames"));
    let (data_bytes, gap_bytes) = (json_u64(&v, "/tx/bytes"), json_u64(&v, "/tx/gap_bytes"));
    assert!(data > 0 && gap > 0, "data {data}, gap {gap}");
    assert_eq!(data_bytes, 64 * data);
    let frames = read_pcap(&dir.path().join("out.pcap"));
    let (pause, other): (Vec<_>, Vec<_>) = frames
        .iter()
        .partition(|f| u16::from_be_bytes([f[12], f[13]]) == MAC_CONTROL);
    assert_eq!(pause.len() as u64, gap, "PAUSE frames in the capture");
    assert_eq!(other.len() as u64, data, "data frames in the capture");
    for p in &pause {
        assert_eq!(p[..6], [0x01, 0x80, 0xC2, 0x00, 0x00, 0x01], "destination");
        assert_eq!(
            p[14..18],
            [0x00, 0x01, 0x00, 0x00],
            "opcode PAUSE, 0 quanta"
        );
        assert!(p[18..].iter().all(|&b| b == 0), "zero padding");
    }
    for f in &other {
        parse_frame(f).unwrap_or_else(|e| panic!("data frame: {e}"));
    }
    let captured = |fs: &[&Vec<u8>]| fs.iter().map(|f| f.len() as u64 + 4).sum::<u64>();
    assert_eq!(captured(&pause), gap_bytes, "gap bytes, FCS included");
    assert_eq!(captured(&other), data_bytes, "data bytes, FCS included");
    let on_wire = data_bytes + gap_bytes - 4 * (data + gap);
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), data + gap);
    assert_eq!(json_u64(&v, "/tx/pmd_bytes"), on_wire);
    assert_eq!(v["tx"]["pmd_agrees"], true);
    assert_eq!(v["tx"]["pmd_bytes_agree"], true);
    assert_eq!(json_u64(&v, "/ports/0/stats/obytes"), on_wire);
    let line = format!(
        "PMD counted {} frames sent (agrees: {data} data + {gap} gap frames), \
         {on_wire} bytes (agrees), 0 errors",
        data + gap
    );
    assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);
}

/// The null PMD counts no bytes: the byte comparison says so (`null`),
/// the frame comparison is exact with the gap frames.
#[test]
fn a_pmd_that_counts_no_bytes_is_not_compared_by_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = gap_profile("net_null0", "net_null0");
    let (out, v) = run_profile(dir.path(), "null", &yaml, &["--duration", "300ms"]);
    let (data, gap) = (json_u64(&v, "/tx/frames"), json_u64(&v, "/tx/gap_frames"));
    assert!(gap > 0, "gap mode sent no gap frames");
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), data + gap);
    assert_eq!(json_u64(&v, "/tx/pmd_bytes"), 0);
    assert_eq!(v["tx"]["pmd_bytes_agree"], serde_json::Value::Null);
    assert!(
        out.stdout
            .contains("gap frames), no bytes counted, 0 errors"),
        "{}",
        out.stdout
    );
}

/// Each port's JSON entry says what became of its flow control: the
/// software vdevs have no flow-control operations (`not_supported`),
/// which on a virtual device casts no doubt (no problem, exit 0).
#[test]
fn flow_control_state_is_reported_per_port() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = "eal: { cores: [0, 1, 2], cpus: [0, 1, 1], vdevs: [net_null0, net_ring0] }\n\
                ports:\n  - { name: out, device: net_null0, link: 10g }\n  \
                - { name: loop, device: net_ring0, link: 10g }\n\
                streams: [ { name: s, frame_size: 1518 } ]\n\
                tx: [ { lcore: 1, port: out, rate: 100000pps, mode: spin } ]\n\
                rx: [ { lcore: 2, port: loop } ]\n\
                run: { duration: 1s }\n";
    let (_, v) = run_profile_sharing_cpus(dir.path(), "fc", yaml, &[]);
    assert_eq!(json_str(&v, "/ports/0/flow_control"), "not_supported");
    assert_eq!(json_str(&v, "/ports/1/flow_control"), "not_supported");
    let problems = v["outcome"]["problems"].as_array().unwrap();
    assert!(
        !problems.iter().any(|p| p["kind"] == "flow_control_not_off"),
        "{problems:?}"
    );
}
