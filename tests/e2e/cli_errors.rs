//! Bad input ends with one clear message and a non-zero exit, never a
//! panic. Errors from a profile name the file, the line and the key
//! (`file:line: key.path: message`, docs/profile.md).

use crate::common;

use std::ffi::OsStr;

use crate::common::{landspeed, write_file, Output};
use landspeed::result::RunResult;
use serde_json::{json, Value};

/// A valid TX profile; each test breaks one thing in it.
const BASE: &str = "eal:
  cores: [0, 1]
  vdevs: [net_null0]
ports:
  - name: p0
    device: net_null0
    link: 10g
    tx_ring: 1024
streams:
  - name: s1
    frame_size: 9130
    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }
    udp: { src: 49152, dst: 5001 }
tx:
  - lcore: 1
    port: p0
    rate: 100M
    mode: spin
run:
  duration: 1s
";

/// BASE with `old` replaced by `new` (which must be there).
fn with(old: &str, new: &str) -> String {
    assert!(BASE.contains(old), "`{old}` is not in the base profile");
    BASE.replacen(old, new, 1)
}

/// The 1-based line of the first line of `yaml` containing `needle`.
fn line_of(yaml: &str, needle: &str) -> usize {
    yaml.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is not in the profile"))
        + 1
}

/// Runs `landspeed run NAME.yaml` on `yaml` in a fresh folder.
fn run_yaml(name: &str, yaml: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), &format!("{name}.yaml"), yaml);
    let mut args: Vec<&OsStr> = vec![OsStr::new("run"), p.as_os_str()];
    args.extend(extra.iter().map(OsStr::new));
    landspeed(dir.path(), args)
}

/// Runs a broken profile and checks the error names `NAME.yaml:LINE: KEY`
/// (LINE being that of the first line containing `at`) and `words`.
fn profile_error(name: &str, yaml: &str, at: &str, key: &str, words: &[&str]) {
    let out = run_yaml(name, yaml, &[]);
    let place = format!("{name}.yaml:{}: {key}", line_of(yaml, at));
    let mut all = vec![place.as_str()];
    all.extend_from_slice(words);
    out.assert_error(&all);
}

fn cmd(args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    landspeed(dir.path(), args)
}

#[test]
fn base_profile_is_valid() {
    // The broken profiles below differ from this one by one edit.
    let dir = tempfile::tempdir().unwrap();
    let (_, v) = common::run_profile(dir.path(), "base", BASE, &["-t", "200ms", "-q"]);
    assert!(common::json_u64(&v, "/tx/frames") > 0);
}

#[test]
fn missing_profile_names_the_path() {
    let out = cmd(&["run", "no-such-profile.yaml"]);
    out.assert_error(&["no-such-profile.yaml", "cannot read"]);
}

#[test]
fn malformed_yaml_names_the_line() {
    let yaml = with("vdevs: [net_null0]", "vdevs: @net_null0");
    let out = run_yaml("malformed", &yaml, &[]);
    out.assert_error(&[&format!("malformed.yaml:{}:", line_of(&yaml, "@"))]);
}

#[test]
fn unknown_key_names_line_and_key() {
    let yaml = with("    tx_ring: 1024\n", "    tx_ring: 1024\n    speedy: 3\n");
    profile_error(
        "unknown",
        &yaml,
        "speedy",
        "ports[0]",
        &["unknown field", "speedy"],
    );
}

#[test]
fn frame_size_too_small() {
    let yaml = with("frame_size: 9130", "frame_size: 40");
    profile_error(
        "small",
        &yaml,
        "frame_size",
        "streams[0].frame_size",
        &["40", "64"],
    );
}

#[test]
fn frame_size_too_large() {
    let yaml = with("frame_size: 9130", "frame_size: 20000");
    profile_error(
        "large",
        &yaml,
        "frame_size",
        "streams[0].frame_size",
        &["20000", "16383"],
    );
}

#[test]
fn ipv6_address_in_an_ipv4_block() {
    let yaml = with("src: 198.18.0.1", "src: \"2001:db8::1\"");
    profile_error(
        "v6in4",
        &yaml,
        "ipv4:",
        "streams[0].ipv4.src",
        &["2001:db8::1", "not an IPv4 address"],
    );
}

#[test]
fn vlan_id_out_of_range() {
    let yaml = with(
        "    udp: { src: 49152, dst: 5001 }\n",
        "    udp: { src: 49152, dst: 5001 }\n    vlan: { id: 5000 }\n",
    );
    profile_error(
        "vlan",
        &yaml,
        "vlan:",
        "streams[0].vlan.id",
        &["5000", "4094"],
    );
}

#[test]
fn range_first_above_last() {
    let yaml = with("src: 49152, dst: 5001", "src: 2000-1000, dst: 5001");
    profile_error("range", &yaml, "udp:", "streams[0].udp.src", &["2000-1000"]);
}

#[test]
fn rate_not_a_number() {
    let yaml = with("rate: 100M", "rate: fast");
    profile_error("fast", &yaml, "rate:", "tx[0].rate", &["fast"]);
}

#[test]
fn rate_zero() {
    let yaml = with("rate: 100M", "rate: 0");
    profile_error("zero", &yaml, "rate:", "tx[0].rate", &["zero"]);
}

#[test]
fn rate_above_line_rate() {
    let yaml = with("rate: 100M", "rate: 20G");
    profile_error(
        "fast20g",
        &yaml,
        "rate:",
        "tx[0].rate",
        &["20 Gbit/s", "line rate", "10 Gbit/s"],
    );
}

#[test]
fn rate_override_above_line_rate_blames_the_option() {
    // The profile's own rate (`line`) is fine; `--rate 11G` is not, and
    // the error names the option, not the profile's line.
    let yaml = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/rfc2544.yaml");
    let out = cmd(&["run", yaml, "--rate", "11G", "--duration", "1s"]);
    out.assert_error(&[
        "command line: --rate: ",
        "11 Gbit/s",
        "line rate",
        "(for tx[0].rate of ",
    ]);
    assert!(!out.stderr.contains("rfc2544.yaml:"), "{}", out.stderr);
}

#[test]
fn help_says_the_bottleneck_layer_and_where_capture_paths_start() {
    let out = cmd(&["replay", "--help"]);
    assert!(out.status.success(), "{}", out.stderr);
    assert!(out.stdout.contains("(L1 bit/s"), "{}", out.stdout);
    assert!(!out.stdout.contains("L2"), "{}", out.stdout);
    let out = cmd(&["run", "--help"]);
    assert!(out.status.success(), "{}", out.stderr);
    let text = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("A relative path is taken from the current directory (paths inside a profile are taken from the profile's folder)"),
        "{}",
        out.stdout
    );
}

#[test]
fn core_that_does_not_exist() {
    let yaml = with("cores: [0, 1]", "cores: [0, 7]").replace("lcore: 1", "lcore: 7");
    profile_error(
        "core7",
        &yaml,
        "cores:",
        "eal.cores",
        &["lcore 7", "does not exist"],
    );
}

#[test]
fn unknown_vdev_is_named() {
    let yaml = BASE.replace("net_null0", "net_bogus0");
    let out = run_yaml("bogus", &yaml, &[]);
    out.assert_error(&["net_bogus0"]);
}

#[test]
fn burst_larger_than_tx_ring() {
    let yaml = with("mode: spin", "mode: burst 5000");
    profile_error(
        "burst",
        &yaml,
        "mode:",
        "tx[0].mode",
        &["5000", "1024", "tx_ring"],
    );
}

#[test]
fn duration_not_a_duration() {
    let out = run_yaml("dur", BASE, &["--duration", "abc"]);
    out.assert_error(&["--duration", "abc"]);
}

#[test]
fn limits_negative_rtt() {
    cmd(&["limits", "--rtt", "-15ms"]).assert_error(&["rtt", "-15ms"]);
}

#[test]
fn limits_unknown_bus() {
    cmd(&["limits", "--bus", "pcix-99"]).assert_error(&["pcix-99"]);
}

#[test]
fn limits_zero_window() {
    cmd(&["limits", "--window", "0"]).assert_error(&["window", "0"]);
}

#[test]
fn replay_missing_trace() {
    cmd(&[
        "replay",
        "no-such.trace",
        "--bottleneck",
        "1G",
        "--buffer",
        "1MB",
    ])
    .assert_error(&["no-such.trace"]);
}

#[test]
fn report_of_a_file_that_is_not_json() {
    let dir = tempfile::tempdir().unwrap();
    // b.json is a real result, so only a.json can be wrong.
    let (_, _) = common::run_profile(dir.path(), "b", BASE, &["-t", "200ms", "-q"]);
    write_file(dir.path(), "a.json", "this is not JSON\n");
    let out = landspeed(dir.path(), ["report", "a.json", "b.json"]);
    out.assert_error(&["a.json"]);
    assert!(
        !out.stderr.contains("b.json"),
        "the error is a.json's:\n{}",
        out.stderr
    );
}

#[test]
fn gap_mode_with_cycled_frame_sizes() {
    let yaml =
        with("mode: spin", "mode: gap").replacen("frame_size: 9130", "frame_size: [64, 1518]", 1);
    profile_error(
        "gapcycle",
        &yaml,
        "frame_size:",
        "streams[0].frame_size",
        &["gap mode needs one fixed frame size"],
    );
}

#[test]
fn gap_mode_with_bad_fcs_frames() {
    let yaml = with("mode: spin", "mode: gap-badfcs");
    profile_error(
        "badfcs",
        &yaml,
        "mode:",
        "tx[0].mode",
        &["bad FCS", "use `gap` (PAUSE frames)"],
    );
}

#[test]
fn unknown_rx_clock() {
    let yaml = "eal: { cores: [0, 1], vdevs: [\"net_null0,size=1518\"] }\n\
                ports: [ { name: p0, device: net_null0 } ]\n\
                rx:\n  - lcore: 1\n    port: p0\n    clock: atomic\n";
    profile_error(
        "clock",
        yaml,
        "clock:",
        "rx[0].clock",
        &[
            "unknown clock `atomic`",
            "use auto, shared, separate, synced, synced-tai or synced+shared",
        ],
    );
}

#[test]
fn capture_into_a_missing_folder() {
    let out = cmd(&["run", "--capture", "no/such/folder/x.pcap", "-t", "200ms"]);
    out.assert_error(&["--capture", "folder no/such/folder does not exist"]);
}

#[test]
fn capture_without_a_tx_task() {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(
        dir.path(),
        "rxonly.yaml",
        "eal: { cores: [0, 1], vdevs: [\"net_null0,size=1518\"] }\n\
         ports: [ { name: p0, device: net_null0 } ]\n\
         rx: [ { lcore: 1, port: p0 } ]\n",
    );
    let out = landspeed(
        dir.path(),
        [
            OsStr::new("run"),
            p.as_os_str(),
            OsStr::new("--capture"),
            OsStr::new("x.pcap"),
        ],
    );
    out.assert_error(&["--capture x.pcap", "the profile has no TX task"]);
}

#[test]
fn payload_rate_over_streams_with_different_headers() {
    let yaml = BASE
        .replacen(
            "    udp: { src: 49152, dst: 5001 }\n",
            "    udp: { src: 49152, dst: 5001 }\n  - name: s2\n    ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }\n",
            1,
        )
        .replacen("    rate: 100M\n", "    rate: 100M\n    layer: payload\n", 1);
    profile_error(
        "payloadmix",
        &yaml,
        "layer: payload",
        "tx[0].layer",
        &["same headers", "s1 has 42 header bytes", "s2 has 62"],
    );
}

#[test]
fn json_into_a_missing_folder() {
    let out = run_yaml(
        "base",
        BASE,
        &["-t", "200ms", "-q", "--json", "no/such/dir/out.json"],
    );
    out.assert_error(&["--json no/such/dir/out.json"]);
}

#[test]
fn ports_with_an_unknown_vdev() {
    // A prefix of its own, without shared config: nothing is left behind.
    let eal = format!(
        "--no-huge -m 256 --no-pci --vdev=net_bogus0 --file-prefix=lsports{} --no-shconf",
        std::process::id()
    );
    let out = cmd(&["ports", "--eal", &eal]);
    out.assert_error(&["DPDK could not start", "rte_eal_init"]);
}

#[test]
fn replay_with_bad_bottleneck_and_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_file(
        dir.path(),
        "t.trace",
        "landspeed-trace 1\ntsc_hz 1000000000\n1000 9130\n2000 9130\n",
    );
    let t = trace.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["replay", t];
        args.extend_from_slice(extra);
        landspeed(dir.path(), &args)
    };
    run(&["--bottleneck", "fast", "--buffer", "4MB"]).assert_error(&["fast"]);
    run(&["--bottleneck", "500M", "--buffer", "0"]).assert_error(&["buffer"]);
    // The same trace with good values replays.
    run(&["--bottleneck", "500M", "--buffer", "4MB"]).assert_success();
}

#[test]
fn replay_of_a_malformed_trace_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write_file(
        dir.path(),
        "bad.trace",
        "landspeed-trace 1\ntsc_hz 1000000000\n1000 9130\nnot a row\n",
    );
    let out = landspeed(
        dir.path(),
        [
            "replay",
            trace.to_str().unwrap(),
            "--bottleneck",
            "500M",
            "--buffer",
            "4MB",
        ],
    );
    out.assert_error(&["bad.trace", "4"]);
}

#[test]
fn report_of_a_result_with_wrong_types_names_the_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    // b.json is a real result, so only a.json can be wrong.
    let (_, _) = common::run_profile(dir.path(), "b", BASE, &["-t", "200ms", "-q"]);
    write_file(dir.path(), "a.json", r#"{"tx": 5, "rx": "x"}"#);
    let out = landspeed(dir.path(), ["report", "a.json", "b.json"]);
    out.assert_error(&["a.json:1:8: tx: invalid type: integer `5`", "TxResult"]);
    assert!(!out.stderr.contains("b.json"), "{}", out.stderr);
    // A string where a count belongs, deeper down.
    write_file(
        dir.path(),
        "a.json",
        &std::fs::read_to_string(dir.path().join("b.json"))
            .unwrap()
            .replacen("\"frames\": ", "\"frames\": \"x\", \"was\": ", 1),
    );
    let out = landspeed(dir.path(), ["report", "a.json", "b.json"]);
    out.assert_error(&[
        "a.json:",
        "frames: invalid type: string \"x\", expected u64",
    ]);
}

/// Both sides of a run: a sender writing what it sends into a capture, and
/// a receiver reading that capture.
const REPORT_STREAMS: &str = "streams:
  - { name: a, id: 1, frame_size: 9130, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 49152, dst: 5001 } }
  - { name: b, id: 2, frame_size: 1518, ipv6: { src: \"2001:db8::1\", dst: \"2001:db8::2\" }, udp: { src: 49152, dst: 5001 } }
";

/// `landspeed report`'s JSON as it was computed before results were read
/// as types: on the JSON values, every missing number read as zero.
/// The verdict decided again at the sender's rate is taken as given
/// (`joined_verdict`; report_judges_at_the_senders_rate checks it).
fn join_by_value(
    t: &Value,
    r: &Value,
    tx_file: &str,
    rx_file: &str,
    joined_verdict: Value,
) -> Value {
    let n = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let x = |v: &Value, p: &str| v.pointer(p).and_then(Value::as_f64).unwrap_or(0.0);
    let rxs = r["rx"]["streams"].as_array().cloned().unwrap_or_default();
    let streams: Vec<Value> = t["tx"]["streams"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| {
            let (id, sent) = (n(s, "/id"), n(s, "/frames"));
            let rs = rxs.iter().find(|x| n(x, "/id") == id);
            let g = |p: &str| rs.map_or(0, |x| n(x, p));
            let missing = sent.saturating_sub(g("/unique"));
            let loss_pct = if sent > 0 {
                missing as f64 * 100.0 / sent as f64
            } else {
                0.0
            };
            json!({"id": id, "sent": sent, "received": g("/frames"), "missing": missing,
                "lost": g("/lost"), "reordered": g("/reordered"), "duplicated": g("/duplicated"),
                "corrupt": g("/corrupt_total"), "loss_pct": loss_pct})
        })
        .collect();
    let exact = streams.iter().all(|s| {
        s["missing"] == 0
            && s["received"] == s["sent"]
            && s["reordered"] == 0
            && s["duplicated"] == 0
            && s["corrupt"] == 0
    });
    json!({
        "tx_file": tx_file, "rx_file": rx_file,
        "offered_l2_bps": x(t, "/tx/achieved/l2_bps"), "offered_fps": x(t, "/tx/achieved/fps"),
        "delivered_l2_bps": x(r, "/rx/achieved/l2_bps"), "delivered_fps": x(r, "/rx/achieved/fps"),
        "sent": n(t, "/tx/frames"), "received": n(r, "/rx/frames"),
        "streams": streams, "exact": exact, "verdict": r["verdict"].clone(),
        "joined_verdict": joined_verdict,
    })
}

/// A result read as a `RunResult` and written again is the same text.
fn assert_round_trip(path: &std::path::Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let typed: RunResult = serde_json::from_str(&text).expect("a result landspeed wrote");
    let again = serde_json::to_string_pretty(&typed).unwrap();
    assert!(
        again == text,
        "{} changed on a round trip:\n{again}",
        path.display()
    );
}

#[test]
fn report_joins_a_real_sender_and_receiver() {
    let dir = tempfile::tempdir().unwrap();
    let tx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=sent.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{REPORT_STREAMS}\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 200M\n    mode: spin\n"
    );
    let rx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap=sent.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{REPORT_STREAMS}\
         rx: [{{ lcore: 1, port: p0, verify: full }}]\ntx: []\n"
    );
    let (_, t) = common::run_profile(dir.path(), "tx", &tx, &["-t", "300ms", "-q"]);
    let (_, r) = common::run_profile(dir.path(), "rx", &rx, &["-t", "1s", "-q"]);
    assert!(common::json_u64(&t, "/tx/frames") > 0);
    assert_round_trip(&dir.path().join("tx.json"));
    assert_round_trip(&dir.path().join("rx.json"));
    let out = landspeed(
        dir.path(),
        ["report", "tx.json", "rx.json", "--json", "joined.json"],
    );
    out.assert_success();
    let joined = common::read_json(&dir.path().join("joined.json"));
    let verdict = joined["joined_verdict"].clone();
    assert!(verdict["binding"].is_string(), "{verdict}");
    assert_eq!(joined, join_by_value(&t, &r, "tx.json", "rx.json", verdict));
    assert_eq!(joined["exact"], true, "{}", out.stdout);
    assert!(out
        .stdout
        .contains("every frame sent arrived once, in order, intact"));
    assert!(
        out.stdout.contains("verdict (at the sender's rate): "),
        "{}",
        out.stdout
    );
    // A result with anything after it is refused.
    let text = std::fs::read_to_string(dir.path().join("rx.json")).unwrap();
    write_file(dir.path(), "rx.json", &format!("{text}\n{{}}\n"));
    let out = landspeed(dir.path(), ["report", "tx.json", "rx.json"]);
    out.assert_error(&["rx.json:", "not a landspeed result: trailing characters"]);
}

/// A sender's and a receiver's results of one run (stream 1 of 9130 bytes,
/// stream 2 of 1518), written as `tx.json` and `rx.json` in a fresh folder.
fn real_pair() -> (tempfile::TempDir, Value, Value) {
    let dir = tempfile::tempdir().unwrap();
    let tx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,tx_pcap=sent.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{REPORT_STREAMS}\
         tx:\n  - lcore: 1\n    port: p0\n    rate: 200M\n    mode: spin\n"
    );
    let rx = format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_pcap0,rx_pcap=sent.pcap\"]\n\
         ports:\n  - name: p0\n    device: net_pcap0\n    link: 10g\n{REPORT_STREAMS}\
         rx: [{{ lcore: 1, port: p0, verify: full }}]\ntx: []\n"
    );
    let (_, t) = common::run_profile(dir.path(), "tx", &tx, &["-t", "300ms", "-q"]);
    let (_, r) = common::run_profile(dir.path(), "rx", &rx, &["-t", "1s", "-q"]);
    (dir, t, r)
}

/// `v` with the value at `ptr` replaced by `new`.
fn set(v: &Value, ptr: &str, new: Value) -> Value {
    let mut v = v.clone();
    *v.pointer_mut(ptr).unwrap_or_else(|| panic!("{ptr}")) = new;
    v
}

/// `landspeed report a.json b.json` on these two results.
fn report_of(dir: &std::path::Path, a: &Value, b: &Value) -> Output {
    write_file(dir, "a.json", &serde_json::to_string_pretty(a).unwrap());
    write_file(dir, "b.json", &serde_json::to_string_pretty(b).unwrap());
    landspeed(dir, ["report", "a.json", "b.json", "--json", "joined.json"])
}

/// The index of stream `id` in `rx.streams`.
fn rx_index(r: &Value, id: u64) -> usize {
    let list = r["rx"]["streams"].as_array().unwrap();
    list.iter()
        .position(|s| s["id"] == id)
        .expect("stream received")
}

#[test]
fn report_refuses_impossible_results_naming_file_and_field() {
    let (dir, t, r) = real_pair();
    let d = dir.path();
    let i = rx_index(&r, 1);
    let sent = common::json_u64(common::by_id(&t, "/tx/streams", 1), "/frames");
    let st = format!("/rx/streams/{i}");
    // More distinct frames of stream 1 than the sender sent of it.
    let more = set(&r, &format!("{st}/unique"), json!(sent + 50));
    let more = set(&more, &format!("{st}/frames"), json!(sent + 50));
    let more = set(
        &more,
        "/rx/frames",
        json!(common::json_u64(&r, "/rx/frames") + 50),
    );
    report_of(d, &t, &more).assert_error(&[&format!(
        "b.json: rx.streams[{i}].unique: stream 1 has {} unique frames, more than the {sent} the \
         sender sent of it (a.json)",
        sent + 50
    )]);
    // More unique frames than frames received.
    let more = set(&r, &format!("{st}/unique"), json!(sent + 1));
    report_of(d, &t, &more).assert_error(&[&format!(
        "b.json: rx.streams[{i}].unique: stream 1 has {} unique frames, more than the {sent} \
         frames it received",
        sent + 1
    )]);
    // A stream id that does not fit 32 bits is not stream 1 wrapped.
    let wide = set(&r, &format!("{st}/id"), json!(4_294_967_297u64));
    report_of(d, &t, &wide).assert_error(&[
        "b.json:",
        &format!("rx.streams[{i}].id: invalid value: integer `4294967297`, expected u32"),
    ]);
    // The two files the wrong way round, or a side missing.
    report_of(d, &r, &t).assert_error(&[
        "a.json: is a receiver's result (an `rx` section, no `tx` section): give the sender's \
         result first, then the receiver's",
    ]);
    report_of(d, &t, &t).assert_error(&["b.json: is a sender's result"]);
    report_of(d, &t, &set(&r, "/rx", Value::Null)).assert_error(&["b.json: has no RX side"]);
    // More frames of streams than frames in all.
    report_of(d, &t, &set(&r, "/rx/frames", json!(1)))
        .assert_error(&["b.json: rx.frames: 1 frames received in all, fewer than the"]);
}

#[test]
fn report_judges_at_the_senders_rate() {
    let (dir, t, r) = real_pair();
    let d = dir.path();
    // A sender that kept its target: everything it offered arrived (the
    // capture is replayed faster than it was sent, at the receiver's CPU
    // ceiling).
    let offered = common::json_f64(&t, "/tx/achieved/l2_bps");
    let kept = set(&t, "/tx/tasks/0/pace/target/l2_bps", json!(offered));
    let out = report_of(d, &kept, &r);
    out.assert_success();
    assert!(
        out.stdout.contains("was delivered (all that was offered)"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("an unknown rate"), "{}", out.stdout);
    let j = common::read_json(&d.join("joined.json"));
    assert_eq!(j["joined_verdict"]["binding"], "cpu", "{}", out.stdout);
    assert_eq!(j["verdict"], r["verdict"], "the receiver's own, as written");
    // A sender that fell short of the rate it was asked for.
    let short = set(&t, "/tx/tasks/0/pace/target/l2_bps", json!(offered * 10.0));
    let out = report_of(d, &short, &r);
    out.assert_success();
    assert!(
        out.stdout
            .contains("verdict (at the sender's rate): sender bound the run"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains(&format!(
            "Sender-bound: {:.3} Gbit/s was requested, the sender offered only {:.3} Gbit/s",
            offered * 10.0 / 1e9,
            offered / 1e9
        )),
        "{}",
        out.stdout
    );
    // A receiver that got nothing never reads "offered rate delivered".
    let mut none = set(&r, "/rx/streams", json!([]));
    for p in ["/rx/frames", "/rx/bytes", "/rx/good"] {
        none = set(&none, p, json!(0));
    }
    for p in [
        "/rx/achieved/fps",
        "/rx/achieved/l2_bps",
        "/observation/delivered_fps",
    ] {
        none = set(&none, p, json!(0.0));
    }
    none = set(&none, "/observation/delivered_bps", json!(0.0));
    let out = report_of(d, &t, &none);
    out.assert_success();
    assert!(
        out.stdout
            .contains("verdict (at the sender's rate): network bound the run"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("Offered rate delivered"),
        "{}",
        out.stdout
    );
    // The same from a receiver's result that kept no observation (written
    // before it did): its own verdict is not repeated.
    let mut old = none.clone();
    old.as_object_mut().unwrap().remove("observation");
    let out = report_of(d, &t, &old);
    out.assert_success();
    let all = common::json_u64(&t, "/tx/frames");
    assert!(
        out.stdout
            .contains(&format!("verdict: none of the {all} frames sent arrived")),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("Offered rate delivered"),
        "{}",
        out.stdout
    );
}

#[test]
fn report_merges_a_stream_split_over_two_lcores() {
    let (dir, t, r) = real_pair();
    let d = dir.path();
    let i = rx_index(&r, 1);
    let whole = r["rx"]["streams"][i].clone();
    let n = |k: &str| whole[k].as_u64().unwrap();
    let (frames, unique, max) = (n("frames"), n("unique"), n("max_seq"));
    assert_eq!((n("lost"), unique), (0, max + 1), "a clean stream");
    // Two lcores' parts: one saw the first half and the last frame, the
    // other the rest, each with the false loss of the other's frames.
    let ua = unique / 2 + 1;
    let ub = unique - ua;
    let a = set(&whole, "/frames", json!(ua));
    let a = set(&a, "/unique", json!(ua));
    let a = set(&a, "/lost", json!(max + 1 - ua));
    let b = set(&whole, "/frames", json!(frames - ua));
    let b = set(&b, "/unique", json!(ub));
    let b = set(&b, "/max_seq", json!(max - 1));
    let b = set(&b, "/lost", json!(max - ub));
    let mut list = r["rx"]["streams"].as_array().unwrap().clone();
    list[i] = a;
    list.push(b);
    let split = set(&r, "/rx/streams", Value::Array(list));
    let out = report_of(d, &t, &split);
    out.assert_success();
    let j = common::read_json(&d.join("joined.json"));
    let s1 = common::by_id(&j, "/streams", 1);
    assert_eq!(s1["received"], frames, "{}", out.stdout);
    assert_eq!(s1["missing"], 0, "{}", out.stdout);
    assert_eq!(s1["lost"], 0, "{}", out.stdout);
    assert_eq!(j["exact"], true, "{}", out.stdout);
}

// Bounds on the profile's knobs and the command line's quantities, and the
// host checks made before DPDK starts: each ends with one exact line.

/// Asserts a clean failure whose last line is `landspeed: error: {line}`.
fn assert_error_line(out: &Output, line: &str) {
    out.assert_error(&[]);
    let last = out.stderr.lines().rev().find(|l| !l.trim().is_empty());
    assert_eq!(
        last,
        Some(format!("landspeed: error: {line}").as_str()),
        "`{}`:\n{}",
        out.cmdline,
        out.stderr
    );
}

/// Runs `landspeed run NAME.yaml` on `yaml` from the fresh folder it is
/// in, so that messages name the file as `NAME.yaml`.
fn run_here(name: &str, yaml: &str, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), &format!("{name}.yaml"), yaml);
    let file = format!("{name}.yaml");
    let mut args = vec!["run", file.as_str()];
    args.extend_from_slice(extra);
    landspeed(dir.path(), args)
}

/// BASE with `lines` added after `eal:`'s `cores:` line.
fn with_eal(lines: &str) -> String {
    with("  cores: [0, 1]\n", &format!("  cores: [0, 1]\n{lines}"))
}

#[test]
fn trace_frames_is_bounded() {
    for n in ["18446744073709551615", "1000000000000"] {
        let yaml = with(
            "    mode: spin\n",
            &format!("    mode: spin\n    trace: t.trace\n    trace_frames: {n}\n"),
        );
        let out = run_here("trace", &yaml, &[]);
        assert_error_line(
            &out,
            &format!(
                "trace.yaml:{}: tx[0].trace_frames: {n} departures are more than a trace \
                 holds: at most 100,000,000 (each takes 16 bytes of memory during the run)",
                line_of(&yaml, "trace_frames")
            ),
        );
    }
}

/// An RX-only profile on a net_null port, with `slowdown_cycles: n`.
fn slowdown_yaml(n: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\nports:\n  - name: p0\n    device: net_null0\n\
         rx:\n  - lcore: 1\n    port: p0\n    slowdown_cycles: {n}\nrun:\n  duration: 1s\n"
    )
}

#[test]
fn slowdown_cycles_is_bounded() {
    for n in ["1000000000000", "18446744073709551615"] {
        let yaml = slowdown_yaml(n);
        let out = run_here("slow", &yaml, &[]);
        assert_error_line(
            &out,
            &format!(
                "slow.yaml:10: rx[0].slowdown_cycles: {n} cycles per frame is more than the \
                 knob takes: at most 10,000,000 (about 4 ms per frame at 2.5 GHz)"
            ),
        );
    }
}

#[test]
fn report_interval_has_a_floor() {
    let yaml = with("  duration: 1s\n", "  duration: 1s\n  interval: 1us\n");
    let out = run_here("interval", &yaml, &[]);
    assert_error_line(
        &out,
        &format!(
            "interval.yaml:{}: run.interval: 1us is shorter than the shortest report \
             interval, 10 ms",
            line_of(&yaml, "interval:")
        ),
    );
}

/// MemAvailable of this host in MiB.
fn mem_available_mib() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        / 1024
}

#[test]
fn eal_memory_above_the_hosts_is_refused_at_once() {
    // What is timed is the run, not a wait for the lock.
    let _alone = common::alone();
    let yaml = with_eal("  memory_mb: 4000000\n");
    let start = std::time::Instant::now();
    let out = run_here("mem", &yaml, &[]);
    out.assert_error(&[]);
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
    // The host's figure moves between the run and this read: compare the rest.
    let last = out.stderr.lines().last().unwrap();
    let (head, tail) = last.split_once("available, ").unwrap();
    assert_eq!(
        head,
        "landspeed: error: mem.yaml:3: eal.memory_mb: 4000000 MiB is more than this host has "
    );
    let (figure, rest) = tail.split_once(' ').unwrap();
    assert_eq!(rest, "MiB (MemAvailable in /proc/meminfo)");
    let figure: u64 = figure.parse().unwrap();
    assert!(figure.abs_diff(mem_available_mib()) < 1024, "{last}");
}

#[test]
fn inputs_that_are_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = landspeed(d, ["run", "/dev/zero"]);
    assert_error_line(
        &out,
        "/dev/zero: cannot read the profile: not a regular file (a character device): give a file",
    );
    let out = landspeed(
        d,
        [
            "replay",
            "/dev/zero",
            "--bottleneck",
            "1G",
            "--buffer",
            "1MB",
        ],
    );
    assert_error_line(
        &out,
        "trace /dev/zero: not a regular file (a character device): give a file",
    );
    let out = landspeed(d, ["report", "/dev/zero", "/dev/zero"]);
    assert_error_line(
        &out,
        "/dev/zero: not a regular file (a character device): give a file",
    );
    // A FIFO with no writer: opening it would block for ever.
    let made = std::process::Command::new("mkfifo")
        .arg(d.join("fifo.yaml"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = landspeed(d, ["run", "fifo.yaml"]);
    assert_error_line(
        &out,
        "fifo.yaml: cannot read the profile: not a regular file (a FIFO): give a file",
    );
}

#[test]
fn a_profile_above_its_cap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = BASE.to_string();
    let comment = format!("# {}\n", "x".repeat(1021));
    while text.len() <= 16 << 20 {
        text.push_str(&comment);
    }
    let len = text.len();
    let p = write_file(dir.path(), "huge.yaml", &text);
    let out = landspeed(dir.path(), [OsStr::new("run"), p.as_os_str()]);
    let grouped = len
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert_error_line(
        &out,
        &format!(
            "{}: cannot read the profile: {grouped} bytes, more than the 16 MiB landspeed \
             reads from such a file",
            p.display()
        ),
    );
}

#[test]
fn more_devices_than_dpdk_has_ports_are_refused_early() {
    // What is timed is the run, not a wait for the lock.
    let _alone = common::alone();
    let list: String = (0..33).map(|i| format!("    - net_null{i}\n")).collect();
    let yaml = with("  vdevs: [net_null0]\n", &format!("  vdevs:\n{list}"));
    let out = run_here("vdevs", &yaml, &[]);
    assert_error_line(
        &out,
        &format!(
            "vdevs.yaml:{}: eal.vdevs[32]: 33 devices in eal.vdevs and eal.pci, more than the \
             32 ports DPDK is built for (RTE_MAX_ETHPORTS)",
            line_of(&yaml, "net_null32")
        ),
    );
    let many: Vec<String> = (0..32768).map(|i| format!("net_null{i}")).collect();
    let yaml = with(
        "vdevs: [net_null0]",
        &format!("vdevs: [{}]", many.join(", ")),
    );
    let start = std::time::Instant::now();
    let out = run_here("many", &yaml, &[]);
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
    assert_error_line(
        &out,
        "many.yaml:3: eal.vdevs[32]: 32768 devices in eal.vdevs and eal.pci, more than the 32 \
         ports DPDK is built for (RTE_MAX_ETHPORTS)",
    );
}

/// Whether this host has hugepages reserved of any size.
fn host_has_hugepages() -> bool {
    std::fs::read_dir("/sys/kernel/mm/hugepages")
        .map(|dir| {
            dir.filter_map(|e| e.ok()).any(|e| {
                std::fs::read_to_string(e.path().join("nr_hugepages"))
                    .is_ok_and(|n| n.trim() != "0")
            })
        })
        .unwrap_or(false)
}

#[test]
fn hugepages_on_a_host_without_them_says_how_to_reserve_them() {
    // The host's pages as read here are those of the run: no other test
    // reserves any meanwhile.
    let _alone = common::alone();
    if host_has_hugepages() {
        eprintln!("skipped: this host has hugepages reserved");
        return;
    }
    let yaml = with_eal("  hugepages: true\n");
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "huge.yaml", &yaml);
    let done = common::child::Proc::start_plain(dir.path(), "huge", &["run", "huge.yaml"])
        .wait(std::time::Duration::from_secs(30));
    done.assert_error(&[]);
    assert_eq!(
        done.stderr.lines().last(),
        Some(
            "landspeed: error: huge.yaml:3: eal.hugepages: this host has no hugepages reserved \
             (HugePages_Total is 0 in /proc/meminfo): reserve some as root, e.g. `echo 1024 > \
             /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages`, or set `hugepages: false`"
        ),
        "{}",
        done.stderr
    );
    // Refused before DPDK started: no runtime directory was made.
    let run_dir = format!("/var/run/dpdk/ls{}", done.pid);
    assert!(
        !std::path::Path::new(&run_dir).exists(),
        "{run_dir} was left"
    );
}

/// An RX profile on a memif vdev with arguments `args`.
fn memif_yaml(args: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1]\n  vdevs: [\"net_memif0,{args}\"]\nports:\n  - name: p0\n    \
         device: net_memif0\nrx:\n  - lcore: 1\n    port: p0\nrun:\n  duration: 1s\n"
    )
}

#[test]
fn memif_sockets_that_cannot_work_are_named() {
    let dir = tempfile::tempdir().unwrap();
    // What a killed server leaves: a socket file nobody listens on.
    let stale = dir.path().join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
    let s = stale.display();
    let yaml = memif_yaml(&format!("role=server,socket={s},socket-abstract=no"));
    let out = run_here("server", &yaml, &[]);
    assert_error_line(
        &out,
        &format!(
            "server.yaml:3: eal.vdevs[0]: memif socket {s}: address in use: remove {s} or pick \
             another socket (a server that was killed leaves its socket file)"
        ),
    );
    let none = dir.path().join("none.sock");
    let n = none.display();
    let yaml = memif_yaml(&format!("role=client,socket={n},socket-abstract=no"));
    let out = run_here("client", &yaml, &[]);
    assert_error_line(
        &out,
        &format!(
            "client.yaml:3: eal.vdevs[0]: memif socket {n}: no server is listening on it: \
             start the memif server (role=server) first"
        ),
    );
    let name = format!("/landspeed-test-{}.sock", std::process::id());
    let yaml = memif_yaml(&format!("role=client,socket={name}"));
    let out = run_here("abstract", &yaml, &[]);
    assert_error_line(
        &out,
        &format!(
            "abstract.yaml:3: eal.vdevs[0]: memif socket @{name}: no server is listening on \
             it: start the memif server (role=server) first"
        ),
    );
}

#[test]
fn eal_extra_args_are_checked_against_a_known_list() {
    let cases = [
        (
            "[--help]",
            "`--help` makes DPDK print and exit instead of running: remove it",
        ),
        (
            "[--vdev=net_null1]",
            "`--vdev` is set by landspeed from eal.vdevs: give it there",
        ),
        (
            "[--iova-mode]",
            "`--iova-mode` needs a value: give it as the next item",
        ),
        ("[--no-hpet=1]", "`--no-hpet` takes no value"),
        (
            "[--bogus-flag]",
            "`--bogus-flag` is not an EAL option landspeed passes on; it takes -n, -r, -d, \
             --iova-mode, --huge-dir, --socket-limit, --base-virtaddr, --vfio-intr, \
             --vfio-vf-token, --proc-type, --mbuf-pool-ops-name, --force-max-simd-bitwidth, \
             --huge-worker-stack, --trace, --trace-dir, --trace-bufsz, --trace-mode, \
             --in-memory, --legacy-mem, --single-file-segments, --match-allocations, \
             --create-uio-dev, --huge-unlink, --no-hpet, --telemetry, --no-telemetry",
        ),
    ];
    for (args, message) in cases {
        let yaml = with_eal(&format!("  extra_args: {args}\n"));
        let out = run_here("extra", &yaml, &[]);
        assert_error_line(&out, &format!("extra.yaml:3: eal.extra_args[0]: {message}"));
    }
    // Options it passes on still run.
    let dir = tempfile::tempdir().unwrap();
    let yaml = with_eal("  extra_args: [--iova-mode, va, --no-telemetry]\n");
    let (_, v) = common::run_profile(dir.path(), "extra", &yaml, &["-t", "200ms", "-q"]);
    assert!(common::json_u64(&v, "/tx/frames") > 0);
}

#[test]
fn capture_path_with_a_comma_is_refused() {
    let out = run_here("base", BASE, &["--capture", "a,b.pcap"]);
    assert_error_line(
        &out,
        "--capture a,b.pcap: a comma in the path would split DPDK's device arguments: rename it",
    );
}

#[test]
fn quantities_have_the_same_bounds_everywhere() {
    let cases: [(&[&str], &str); 9] = [
        (
            &["limits", "--rate", "1e99"],
            "invalid rate `1e99`: too large for a bit rate",
        ),
        (
            &["limits", "--rate", "1e18"],
            "invalid rate `1e18`: above the largest bit rate accepted, 1.6 Tbit/s",
        ),
        (
            &["run", "--rate", "1e18"],
            "--rate 1e18: cannot parse rate `1e18`: above the largest rate accepted, 1.6 Tbit/s",
        ),
        (
            &["limits", "--rtt", "1e9s"],
            "invalid rtt `1e9s`: above the largest duration accepted, 30 days (720h)",
        ),
        (
            &["run", "--duration", "1e9s"],
            "--duration 1e9s: `1e9s`: above the largest duration accepted, 30 days (720h)",
        ),
        (
            &["limits", "--window", "1e18"],
            "invalid window `1e18`: above the largest byte count accepted, 1 TiB",
        ),
        (
            &["limits", "--record", "1e300"],
            "invalid record `1e300`: above the largest value accepted, 1.6e9 Tb*m/s",
        ),
        (
            &["limits", "--cpu-ghz", "1000"],
            "invalid cpu-ghz `1000`: above the largest value accepted, 100 GHz",
        ),
        (
            &["limits", "--cycles-per-frame", "100"],
            "invalid cycles-per-frame `100`: needs --cpu-ghz too: the CPU section divides the \
             clock by the cycles",
        ),
    ];
    for (args, line) in cases {
        assert_error_line(&cmd(args), line);
    }
}

#[test]
fn dpdk_log_is_errors_only_unless_asked_for() {
    let eal = "--no-huge -m 256 --no-pci --vdev=net_null0";
    let out = cmd(&["ports", "--eal", eal]);
    out.assert_success();
    assert_eq!(out.stderr, "", "DPDK's info lines are hidden by default");
    let out = cmd(&["ports", "--eal", eal, "--dpdk-log"]);
    out.assert_success();
    assert!(
        out.stderr
            .lines()
            .any(|l| l == "EAL: Detected shared linkage of DPDK"),
        "{}",
        out.stderr
    );
    // An error DPDK logs itself: its error lines, then landspeed's one line last.
    let out = cmd(&[
        "ports",
        "--eal",
        "--no-huge -m 256 --no-pci --vdev=net_bogus0",
    ]);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "EAL: failed to parse device \"net_bogus0\"",
            "EAL: Unable to parse device 'net_bogus0'",
            "landspeed: error: DPDK could not start: rte_eal_init: No such device",
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "base.yaml", BASE);
    let out = landspeed(
        dir.path(),
        [
            OsStr::new("run"),
            p.as_os_str(),
            OsStr::new("-t"),
            OsStr::new("100ms"),
            OsStr::new("-q"),
            OsStr::new("--dpdk-log"),
        ],
    );
    out.assert_success();
    assert!(
        out.stderr
            .lines()
            .any(|l| l == "EAL: Detected shared linkage of DPDK"),
        "{}",
        out.stderr
    );
}

/// The ring loopback a certification's baseline tests read.
const RING: &str = "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 0]\n  vdevs: [net_ring0]\n\
     ports:\n  - name: p0\n    device: net_ring0\n    link: 100m\n\
     streams:\n  - name: cert\n    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }\n    udp: { src: 49152, dst: 7 }\n\
     tx:\n  - lcore: 1\n    port: p0\n    rate: line\n    mode: spin\n\
     rx:\n  - lcore: 2\n    port: p0\n    verify: full\n    timestamps: software\n\
     certify:\n  tests: [throughput, latency]\n  sizes: [512]\n  trial: 0.2s\n  settle: 0.1s\n  \
     latency_trial: 0.2s\n  learning: off\n";

/// The baseline a calibration of [`RING`] writes, at `sizes`.
fn ring_baseline(sizes: &[u32]) -> landspeed::certify::latency::Baseline {
    use landspeed::certify::latency::{Baseline, BaselineRow, Setup, BASELINE_KIND};
    Baseline {
        kind: BASELINE_KIND.into(),
        landspeed: "0.1.0".into(),
        recorded: "2026-12-05T10:00:00Z".into(),
        profile: "loop.yaml".into(),
        setup: Setup {
            ports: vec!["p0: net_ring0".into()],
            streams: vec![
                "cert (id 1): 02:00:00:00:00:01 → 02:00:00:00:00:02, IPv4 198.18.0.1 → \
                 198.19.0.1 dscp 0 ecn 0 ttl 64 df, UDP 49152 → 7"
                    .into(),
            ],
            tasks: vec![
                "tx lcore 1 (cpu 1) port p0 queue 0, mode spin, streams cert".into(),
                "rx lcore 2 (cpu 0) port p0 queues 0, verify full".into(),
            ],
            method: landspeed::certify::latency::SOFTWARE_METHOD.into(),
        },
        rows: sizes
            .iter()
            .map(|&frame_size| BaselineRow {
                direction: "p0 → p0".into(),
                frame_size,
                rate_pct: 100.0,
                summary: Default::default(),
            })
            .collect(),
    }
}

/// `landspeed rfc2544 cert.yaml ARGS` of `yaml` with `files` (name,
/// text) beside it.
fn rfc_with(yaml: &str, files: &[(&str, String)], args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let p = write_file(dir.path(), "cert.yaml", yaml);
    for (name, text) in files {
        write_file(dir.path(), name, text);
    }
    let mut v = vec!["rfc2544".to_string(), p.display().to_string()];
    v.extend(args.iter().map(|a| a.to_string()));
    landspeed(dir.path(), v)
}

/// Each way a baseline can be wrong is refused before the EAL starts,
/// with its own message naming the file (as the option or the
/// profile's line gives it).
#[test]
fn a_baseline_that_does_not_fit_is_refused_before_the_eal_starts() {
    let good = serde_json::to_string_pretty(&ring_baseline(&[512])).unwrap();
    let no_eal = |out: &Output| assert!(!out.stderr.contains("EAL"), "{}", out.stderr);
    let out = rfc_with(
        RING,
        &[("b.json", "{ \"kind\": ".into())],
        &["--baseline", "b.json"],
    );
    out.assert_error(&[
        "--baseline b.json: is not JSON (EOF while parsing a value at line 1 column 10): give \
         the file `--calibrate` wrote",
    ]);
    no_eal(&out);
    let cert = "{ \"landspeed\": \"0.1.0\", \"settings\": {}, \"throughput\": [] }".to_string();
    let out = rfc_with(RING, &[("b.json", cert)], &["--baseline", "b.json"]);
    out.assert_error(&[
        "--baseline b.json: is not a latency baseline (its `kind` is not `landspeed latency \
         baseline`: a certification's JSON): write one with `landspeed rfc2544 PROFILE \
         --calibrate FILE` on a direct loop",
    ]);
    no_eal(&out);
    let shape = "{ \"kind\": \"landspeed latency baseline\", \"rows\": 3 }".to_string();
    let out = rfc_with(RING, &[("b.json", shape)], &["--baseline", "b.json"]);
    out.assert_error(&["--baseline b.json: is a latency baseline of another shape (invalid type"]);
    let out = rfc_with(
        RING,
        &[("b.json", good.clone())],
        &["--baseline", "b.json", "--sizes", "512,1518"],
    );
    out.assert_error(&[
        "--baseline b.json: has no latency for 1518 B in p0 → p0 (only 512 B there): a baseline \
         is the tester's own latency with this setup only (recorded by loop.yaml)",
    ]);
    no_eal(&out);
    let other = RING.replace("dst: 7 }", "dst: 9 }");
    let out = rfc_with(
        &other,
        &[("b.json", good.clone())],
        &["--baseline", "b.json"],
    );
    out.assert_error(&[
        "--baseline b.json: was recorded with stream 1 `cert (id 1): 02:00:00:00:00:01 → \
         02:00:00:00:00:02, IPv4 198.18.0.1 → 198.19.0.1 dscp 0 ecn 0 ttl 64 df, UDP 49152 → 7`, \
         this certification has `cert (id 1): 02:00:00:00:00:01 → 02:00:00:00:00:02, IPv4 \
         198.18.0.1 → 198.19.0.1 dscp 0 ecn 0 ttl 64 df, UDP 49152 → 9`",
    ]);
    let nic = RING.replace("timestamps: software", "timestamps: nic");
    let out = rfc_with(&nic, &[("b.json", good.clone())], &["--baseline", "b.json"]);
    out.assert_error(&[
        "--baseline b.json: was timestamped by software: ",
        ", this certification by NIC RX: ",
    ]);
    // From the profile: its line and key, the file resolved beside it.
    let keyed = format!("{RING}  baseline: b.json\n");
    let line = keyed.lines().position(|l| l.contains("baseline:")).unwrap() + 1;
    let out = rfc_with(&keyed, &[("b.json", "[1, 2]".into())], &[]);
    out.assert_error(&[
        &format!("cert.yaml:{line}: certify.baseline: "),
        "b.json: is not a latency baseline (its `kind` is not `landspeed latency baseline`: JSON \
         of another kind)",
    ]);
    let out = rfc_with(&keyed, &[], &[]);
    out.assert_error(&[
        &format!("cert.yaml:{line}: certify.baseline: "),
        "No such file",
    ]);
    // --calibrate with --baseline: clap's usage error; into the baseline: refused.
    let out = rfc_with(
        RING,
        &[],
        &["--calibrate", "a.json", "--baseline", "b.json"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", out.stderr);
    let out = rfc_with(
        RING,
        &[("b.json", good)],
        &["--baseline", "b.json", "--json", "b.json"],
    );
    out.assert_error(&["--json b.json: is the baseline being read; name another file"]);
}

/// `landspeed rfc2889` names its tests in RFC 2889's terms and runs on a
/// mesh: an unknown test, a profile that is not a mesh and an address
/// search without a monitoring port are refused before the EAL starts.
#[test]
fn rfc2889_refuses_an_unknown_test_and_a_profile_that_is_not_a_mesh() {
    let ring = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/rfc2544-ring.yaml");
    let out = cmd(&["rfc2889", ring, "--tests", "fully-meshed,address-aging"]);
    out.assert_error(
        &["--tests fully-meshed,address-aging: unknown RFC 2889 test \
         `address-aging`: use fully-meshed, partially-meshed, congestion-control, \
         forwarding-rate, address-caching, address-learning-rate, throughput, frame-loss"],
    );
    let out = cmd(&["rfc2889", ring, "--tests", "fully-meshed"]);
    out.assert_error(&[
        "rfc2544-ring.yaml:",
        ": tx: RFC 2889 evaluates a switch on a mesh of ports",
        "and this profile's tasks are loopback: run `landspeed rfc2544` on it",
    ]);
    assert!(!out.stderr.contains("EAL"), "{}", out.stderr);
    let mesh = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../configs/rfc2544-ring-mesh.yaml"
    );
    let out = cmd(&["rfc2889", mesh, "--tests", "address-caching", "--quick"]);
    out.assert_error(&[
        "command line: --tests: the address_caching test (RFC 2889) needs certify.dut.flush",
    ]);
    let out = cmd(&["rfc2889", "--help"]);
    assert!(out.status.success(), "{}", out.stderr);
    assert!(
        out.stdout.contains("address-learning-rate"),
        "{}",
        out.stdout
    );
}
