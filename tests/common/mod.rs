//! Helpers shared by the end-to-end tests: run the `landspeed` binary as a
//! child process (DPDK's EAL starts once per process), read its JSON
//! result, read and write classic pcap files, and parse frames with an
//! independent parser (etherparse).
//!
//! The end-to-end test binary (`tests/e2e`) has it as its module `common`;
//! each of its modules uses part of it.
#![allow(dead_code)]

pub mod child;
pub mod host;
pub mod lab;

use std::ffi::OsStr;
use std::io::Read;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use etherparse::{LinkSlice, NetSlice, SlicedPacket, TransportSlice};
use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_landspeed");

/// The repository's root (`configs/`, `scripts/`).
pub const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The repository's ready profiles.
pub const NULL_YAML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/null.yaml");

/// A child that has not finished after this long is killed and the test
/// fails: every load stops by itself well before.
const WATCHDOG: Duration = Duration::from_secs(90);

/// What a finished child left behind.
#[derive(Debug)]
pub struct Output {
    /// How it exited.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
    /// The command line, for messages.
    pub cmdline: String,
}

impl Output {
    /// Panics with everything the child printed unless it exited 0, or 3
    /// with no other warning than a descheduled lcore's: a run whose CPU
    /// the other tests or the virtual machine's host took says so and
    /// exits 3, and what the test checks is not the machine's load.
    pub fn assert_success(&self) {
        if self.status.code() == Some(3) && self.only_descheduled() {
            return self.assert_exit_in(&[3]);
        }
        self.assert_exit_in(&[0]);
    }

    /// It printed warnings, each of a descheduled lcore.
    fn only_descheduled(&self) -> bool {
        let warnings: Vec<&str> = (self.stdout.lines())
            .chain(self.stderr.lines())
            .filter(|l| l.starts_with("warning: "))
            .collect();
        !warnings.is_empty()
            && (warnings.iter())
                .all(|l| l.contains(" lcore ") && l.contains(" was descheduled for "))
    }

    /// Panics with everything the child printed unless it exited with one
    /// of `codes` (say 0 or 3: a run that may be descheduled on CPUs the
    /// other tests share, and says so) without a panic.
    pub fn assert_exit_in(&self, codes: &[i32]) {
        assert!(
            self.status.code().is_some_and(|c| codes.contains(&c)),
            "`{}` failed with {} (expected exit {codes:?})\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline,
            self.status,
            self.stdout,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "`{}` panicked:\n{}",
            self.cmdline,
            self.stderr
        );
    }

    /// Asserts a clean failure: a non-zero exit code (not a signal), no
    /// panic, the last line of stderr is landspeed's one error line, and
    /// stderr contains each of `words`.
    pub fn assert_error(&self, words: &[&str]) {
        let code = self.status.code();
        assert!(
            matches!(code, Some(c) if c != 0),
            "`{}` should fail with a non-zero exit code, got {}\n--- stdout\n{}\n--- stderr\n{}",
            self.cmdline,
            self.status,
            self.stdout,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "`{}` panicked:\n{}",
            self.cmdline,
            self.stderr
        );
        let last = self.stderr.lines().rev().find(|l| !l.trim().is_empty());
        assert!(
            last.is_some_and(|l| l.starts_with("landspeed: error: ")),
            "`{}`: stderr should end with one `landspeed: error: ...` line:\n{}",
            self.cmdline,
            self.stderr
        );
        for w in words {
            assert!(
                self.stderr.contains(w),
                "`{}`: stderr should contain `{w}`:\n{}",
                self.cmdline,
                self.stderr
            );
        }
    }
}

/// One `landspeed` child at a time: the test harness runs tests on
/// parallel threads, and two runs pinned to the same lcores would
/// deschedule each other, which a run reports (a `descheduled` problem,
/// exit 3). A test that starts anything else that takes CPUs, network
/// namespaces or the host's hugepages (a lab, a peer, a pair of runs side
/// by side, a measurement of time) holds it for its whole run.
static ONE_RUN_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The lock of [`ONE_RUN_AT_A_TIME`], held: dropping the outermost one
/// lets the next test go.
pub struct Alone {
    _guard: Option<MutexGuard<'static, ()>>,
}

thread_local! {
    /// How many [`Alone`]s this test's thread holds: the first takes the
    /// lock, those taken under it (a test that holds the lock for its
    /// whole run calling [`landspeed`]) only count.
    static HELD: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

impl Drop for Alone {
    fn drop(&mut self) {
        HELD.with(|held| held.set(held.get() - 1));
    }
}

/// Hold this while a `landspeed` child runs that [`landspeed`] did not
/// start, or for a whole test that must run alone, so that no other test's
/// run goes meanwhile. A test that failed while holding it poisons the
/// lock; the next run is still alone. Taken again on the thread that holds
/// it (say, by [`landspeed`] in a test that holds it), it is held once
/// more: the lock is released when the first one is dropped.
pub fn alone() -> Alone {
    if HELD.with(|held| held.get()) > 0 {
        HELD.with(|held| held.set(held.get() + 1));
        return Alone { _guard: None };
    }
    let guard = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    HELD.with(|held| held.set(1));
    Alone {
        _guard: Some(guard),
    }
}

/// Runs `landspeed ARGS` in `dir` and waits for it (with a watchdog), no
/// other test's child running meanwhile.
pub fn landspeed<I, S>(dir: &Path, args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let _alone = alone();
    let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let cmdline = std::iter::once("landspeed".to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new(BIN)
        .args(&args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start `{cmdline}`: {e}"));
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out_pipe.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if start.elapsed() > WATCHDOG => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("`{cmdline}` still running after {WATCHDOG:?}: killed");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("waiting for `{cmdline}`: {e}"),
        }
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();
    Output {
        status,
        stdout,
        stderr,
        cmdline,
    }
}

/// The run's problem of `kind` (in `outcome.problems`), if it has one.
pub fn find_problem<'a>(v: &'a Value, kind: &str) -> Option<&'a Value> {
    let all = v["outcome"]["problems"].as_array();
    all.and_then(|ps| ps.iter().find(|p| p["kind"] == kind))
}

/// The run's problem of `kind` (in `outcome.problems`), whatever others
/// a loaded machine adds (a `descheduled` one): panics listing them all
/// when there is none.
pub fn problem<'a>(v: &'a Value, kind: &str) -> &'a Value {
    find_problem(v, kind)
        .unwrap_or_else(|| panic!("no `{kind}` problem in {:?}", v["outcome"]["problems"]))
}

/// Where DPDK keeps runtime directories (root's, then the others').
pub fn run_dir_bases() -> Vec<PathBuf> {
    let mut bases = vec![PathBuf::from("/var/run/dpdk"), PathBuf::from("/tmp/dpdk")];
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
        bases.push(PathBuf::from(x).join("dpdk"));
    }
    bases
}

/// Asserts that no DPDK runtime directory of the landspeed process `pid`
/// (automatic prefix `ls<pid>`) is left.
pub fn assert_no_run_dir(pid: u32) {
    for b in run_dir_bases() {
        let d = b.join(format!("ls{pid}"));
        assert!(!d.exists(), "{} left behind", d.display());
    }
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("writing {}: {e}", p.display()));
    p
}

/// Reads and parses a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// Writes profile `NAME.yaml` into `dir`, runs it with `extra` arguments
/// and `--json NAME.json`, asserts success, and returns the output and the
/// parsed result.
pub fn run_profile(dir: &Path, name: &str, yaml: &str, extra: &[&str]) -> (Output, Value) {
    let profile = write_file(dir, &format!("{name}.yaml"), yaml);
    let json = dir.join(format!("{name}.json"));
    let mut args: Vec<&OsStr> = vec![OsStr::new("run"), profile.as_os_str()];
    args.extend(extra.iter().map(OsStr::new));
    args.push(OsStr::new("--json"));
    args.push(json.as_os_str());
    let out = landspeed(dir, &args);
    out.assert_success();
    let v = read_json(&json);
    (out, v)
}

/// [`run_profile`] for a profile whose lcores share a CPU by design
/// (e.g. `cpus: [0, 1, 1]` on a 2-CPU machine): they deschedule each
/// other, so exit 3 with only `descheduled` problems (and the
/// `target_missed` a descheduled sender may add) is the run saying so;
/// any other exit or problem fails the test.
pub fn run_profile_sharing_cpus(
    dir: &Path,
    name: &str,
    yaml: &str,
    extra: &[&str],
) -> (Output, Value) {
    let profile = write_file(dir, &format!("{name}.yaml"), yaml);
    let json = dir.join(format!("{name}.json"));
    let mut args: Vec<&OsStr> = vec![OsStr::new("run"), profile.as_os_str()];
    args.extend(extra.iter().map(OsStr::new));
    args.push(OsStr::new("--json"));
    args.push(json.as_os_str());
    let out = landspeed(dir, &args);
    let code = out.status.code();
    if code != Some(0) {
        let v: Value = std::fs::read_to_string(&json)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null);
        let problems = v["outcome"]["problems"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let shared =
            (problems.iter()).all(|p| p["kind"] == "descheduled" || p["kind"] == "target_missed");
        assert!(
            code == Some(3) && !problems.is_empty() && shared,
            "{}: exit {code:?}, problems {problems:?}\n{}{}",
            out.cmdline,
            out.stdout,
            out.stderr
        );
    }
    let v = read_json(&json);
    (out, v)
}

/// Runs `yaml` (written as `name.yaml` in `dir`) with `-q --json` and
/// returns its result, whose lcores share CPUs: exit 0, or 3 when the only
/// problems are that they were descheduled (as they are, taking turns on
/// one CPU), without a panic.
pub fn run_shared(dir: &Path, name: &str, yaml: &str) -> Value {
    let p = write_file(dir, &format!("{name}.yaml"), yaml);
    let json = dir.join(format!("{name}.json"));
    let args = [
        OsStr::new("run"),
        p.as_os_str(),
        OsStr::new("-q"),
        OsStr::new("--json"),
        json.as_os_str(),
    ];
    let out = landspeed(dir, args);
    out.assert_exit_in(&[0, 3]);
    let r = read_json(&json);
    let problems = r["outcome"]["problems"]
        .as_array()
        .expect("outcome.problems");
    assert!(
        problems.iter().all(|p| p["kind"] == "descheduled"),
        "only `descheduled` may qualify a run on shared CPUs: {problems:?}\n{}",
        out.stderr
    );
    let status = if problems.is_empty() { 0 } else { 3 };
    assert_eq!(out.status.code(), Some(status), "{}", out.stderr);
    r
}

/// An unsigned integer at a JSON pointer (e.g. `/tx/frames`).
pub fn json_u64(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no unsigned integer at {ptr} in the result"))
}

/// The pairs of a full mesh of ports `t0` … `t{n−1}` (`t0 → t1`), in
/// the order a mesh certification lists them: by sending port, then
/// receiving port.
pub fn full_mesh_pairs(n: usize) -> Vec<String> {
    (0..n)
        .flat_map(|i| {
            (0..n)
                .filter(move |&j| j != i)
                .map(move |j| format!("t{i} → t{j}"))
        })
        .collect()
}

/// Asserts that the per-pair figures of certification trial `t`
/// (`per_direction`) sum, for each of `keys`, to the trial's own; returns
/// the pairs.
pub fn pairs_sum_to_the_trial<'a>(t: &'a Value, keys: &[&str]) -> &'a Vec<Value> {
    let pairs = t["per_direction"].as_array().expect("per_direction");
    for k in keys {
        let sum: u64 = pairs.iter().map(|d| json_u64(d, &format!("/{k}"))).sum();
        assert_eq!(sum, json_u64(t, &format!("/{k}")), "{k}: {t}");
    }
    pairs
}

/// A number at a JSON pointer.
pub fn json_f64(v: &Value, ptr: &str) -> f64 {
    v.pointer(ptr)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {ptr} in the result"))
}

/// A text at a JSON pointer.
pub fn json_str<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr)
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("no text at {ptr} in the result"))
}

/// The entry of `list` (a JSON pointer to an array) whose `id` is `id`.
pub fn by_id<'a>(v: &'a Value, list: &str, id: u64) -> &'a Value {
    let arr = v
        .pointer(list)
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("no array at {list} in the result"));
    arr.iter()
        .find(|e| e.get("id").and_then(Value::as_u64) == Some(id))
        .unwrap_or_else(|| panic!("no entry with id {id} in {list}: {arr:?}"))
}

// ---------------------------------------------------------------- pcap

const PCAP_MAGIC_US: u32 = 0xa1b2_c3d4;
const PCAP_MAGIC_NS: u32 = 0xa1b2_3c4d;
const LINKTYPE_ETHERNET: u32 = 1;

/// Reads a classic libpcap file (either byte order, micro- or nanosecond
/// timestamps) of Ethernet frames; returns the frames in file order.
pub fn read_pcap(path: &Path) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    parse_pcap(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parses the bytes of a classic libpcap file whose records hold their
/// frames whole.
pub fn parse_pcap(data: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    let mut frames = Vec::new();
    for r in parse_pcap_records(data)? {
        if r.bytes.len() != r.len as usize {
            return Err(format!(
                "record {}: {} of {} bytes captured (snap length too small)",
                frames.len(),
                r.bytes.len(),
                r.len
            ));
        }
        frames.push(r.bytes);
    }
    Ok(frames)
}

/// One record of a pcap file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PcapRecord {
    /// Its time in ns since the epoch.
    pub ns: u64,
    /// The frame's length as received.
    pub len: u32,
    /// The bytes kept of it.
    pub bytes: Vec<u8>,
}

/// Parses the bytes of a classic libpcap file (either byte order, micro- or
/// nanosecond timestamps) of Ethernet frames, records cut at the snap
/// length as they are.
pub fn parse_pcap_records(data: &[u8]) -> Result<Vec<PcapRecord>, String> {
    if data.len() < 24 {
        return Err(format!("{} bytes: too short for a pcap header", data.len()));
    }
    let le = |o: usize| u32::from_le_bytes(data[o..o + 4].try_into().expect("4 bytes"));
    let be = |o: usize| u32::from_be_bytes(data[o..o + 4].try_into().expect("4 bytes"));
    let (big, magic) = match le(0) {
        m @ (PCAP_MAGIC_US | PCAP_MAGIC_NS) => (false, m),
        _ => match be(0) {
            m @ (PCAP_MAGIC_US | PCAP_MAGIC_NS) => (true, m),
            m => return Err(format!("magic {m:#010x} is not a classic pcap magic")),
        },
    };
    let frac_ns = if magic == PCAP_MAGIC_NS { 1 } else { 1_000 };
    let rd32 = |o: usize| if big { be(o) } else { le(o) };
    let rd16 = |o: usize| {
        let b = [data[o], data[o + 1]];
        if big {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    };
    let (major, minor) = (rd16(4), rd16(6));
    if (major, minor) != (2, 4) {
        return Err(format!("version {major}.{minor}, expected 2.4"));
    }
    let snap = rd32(16) as usize;
    let linktype = rd32(20) & 0x03ff_ffff;
    if linktype != LINKTYPE_ETHERNET {
        return Err(format!("link type {linktype}, expected 1 (Ethernet)"));
    }
    let mut records = Vec::new();
    let mut off = 24;
    while off < data.len() {
        if data.len() - off < 16 {
            return Err(format!("record header at {off} is cut short"));
        }
        let ns = u64::from(rd32(off)) * 1_000_000_000 + u64::from(rd32(off + 4)) * frac_ns;
        let incl = rd32(off + 8) as usize;
        let orig = rd32(off + 12);
        if incl > snap || incl > orig as usize {
            return Err(format!(
                "record at {off}: {incl} bytes kept of {orig}, snap length {snap}"
            ));
        }
        let start = off + 16;
        let end = start
            .checked_add(incl)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| format!("record at {off}: {incl} bytes run past the end"))?;
        records.push(PcapRecord {
            ns,
            len: orig,
            bytes: data[start..end].to_vec(),
        });
        off = end;
    }
    Ok(records)
}

/// Writes `frames` as a classic libpcap file (microsecond timestamps, one
/// microsecond apart), in little- or big-endian byte order.
pub fn write_pcap_order(path: &Path, frames: &[Vec<u8>], big_endian: bool) {
    let w32 = |v: u32| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let w16 = |v: u16| {
        if big_endian {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        }
    };
    let mut out = Vec::with_capacity(24 + frames.iter().map(|f| f.len() + 16).sum::<usize>());
    out.extend_from_slice(&w32(PCAP_MAGIC_US));
    out.extend_from_slice(&w16(2));
    out.extend_from_slice(&w16(4));
    out.extend_from_slice(&w32(0)); // thiszone
    out.extend_from_slice(&w32(0)); // sigfigs
    out.extend_from_slice(&w32(65535)); // snaplen
    out.extend_from_slice(&w32(LINKTYPE_ETHERNET));
    for (i, f) in frames.iter().enumerate() {
        let us = 1_000_000u64 + i as u64;
        out.extend_from_slice(&w32((us / 1_000_000) as u32));
        out.extend_from_slice(&w32((us % 1_000_000) as u32));
        out.extend_from_slice(&w32(f.len() as u32));
        out.extend_from_slice(&w32(f.len() as u32));
        out.extend_from_slice(f);
    }
    std::fs::write(path, out).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// Writes `frames` as a little-endian classic pcap file.
pub fn write_pcap(path: &Path, frames: &[Vec<u8>]) {
    write_pcap_order(path, frames, false);
}

// ---------------------------------------------------------- checksums

/// RFC 1071 one's-complement sum of big-endian 16-bit words, folded (an odd
/// last byte is padded with zero).
pub fn inet_sum(data: &[u8]) -> u16 {
    let mut acc: u64 = 0;
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u64::from(*last) << 8;
    }
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// The Internet checksum of `data` (the complement of its sum).
pub fn inet_checksum(data: &[u8]) -> u16 {
    !inet_sum(data)
}

// ------------------------------------------------------ frame parsing

/// A frame as etherparse decodes it, its checksums verified.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// Source and destination MAC.
    pub src_mac: [u8; 6],
    /// Destination MAC.
    pub dst_mac: [u8; 6],
    /// VLAN (id, pcp, dei) of a single 802.1Q tag.
    pub vlan: Option<(u16, u8, bool)>,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// TCP (else UDP).
    pub tcp: bool,
    /// IP source.
    pub src: IpAddr,
    /// IP destination.
    pub dst: IpAddr,
    /// L4 source port.
    pub sport: u16,
    /// L4 destination port.
    pub dport: u16,
    /// IPv4 identification.
    pub ip_id: Option<u16>,
    /// TCP sequence number.
    pub tcp_seq: Option<u32>,
    /// The L4 payload (stamp + fill).
    pub payload: &'a [u8],
    /// Offset of the L4 payload in the frame.
    pub payload_off: usize,
}

/// Decodes `frame` (Ethernet, no FCS) with etherparse and verifies the IPv4
/// header checksum and the UDP/TCP checksum it recomputes.
pub fn parse_frame(frame: &[u8]) -> Result<Frame<'_>, String> {
    let p = SlicedPacket::from_ethernet(frame).map_err(|e| format!("etherparse: {e}"))?;
    let (src_mac, dst_mac) = match &p.link {
        Some(LinkSlice::Ethernet2(e)) => (e.source(), e.destination()),
        other => return Err(format!("not Ethernet II: {other:?}")),
    };
    let vlan = match p.vlan() {
        None => None,
        Some(etherparse::VlanSlice::SingleVlan(v)) => Some((
            v.vlan_identifier().value(),
            v.priority_code_point().value(),
            v.drop_eligible_indicator(),
        )),
        Some(other) => return Err(format!("double VLAN tag: {other:?}")),
    };
    let (v6, src, dst, ip_id, v4_addrs, v6_addrs) = match &p.net {
        Some(NetSlice::Ipv4(ip)) => {
            let h = ip.header();
            let want = h.to_header().calc_header_checksum();
            if want != h.header_checksum() {
                return Err(format!(
                    "IPv4 header checksum {:#06x}, etherparse computes {want:#06x}",
                    h.header_checksum()
                ));
            }
            (
                false,
                IpAddr::V4(h.source_addr()),
                IpAddr::V4(h.destination_addr()),
                Some(h.identification()),
                Some((h.source(), h.destination())),
                None,
            )
        }
        Some(NetSlice::Ipv6(ip)) => {
            let h = ip.header();
            (
                true,
                IpAddr::V6(h.source_addr()),
                IpAddr::V6(h.destination_addr()),
                None,
                None,
                Some((h.source(), h.destination())),
            )
        }
        other => return Err(format!("not IPv4/IPv6: {other:?}")),
    };
    let (tcp, sport, dport, tcp_seq, payload) = match &p.transport {
        Some(TransportSlice::Udp(u)) => {
            let hdr = u.to_header();
            let want = match (v4_addrs, v6_addrs) {
                (Some((s, d)), _) => hdr.calc_checksum_ipv4_raw(s, d, u.payload()),
                (_, Some((s, d))) => hdr.calc_checksum_ipv6_raw(s, d, u.payload()),
                _ => unreachable!("an IP header was parsed"),
            }
            .map_err(|e| format!("UDP checksum: {e}"))?;
            if want != hdr.checksum {
                return Err(format!(
                    "UDP checksum {:#06x}, etherparse computes {want:#06x}",
                    hdr.checksum
                ));
            }
            (
                false,
                hdr.source_port,
                hdr.destination_port,
                None,
                u.payload(),
            )
        }
        Some(TransportSlice::Tcp(t)) => {
            let want = match (v4_addrs, v6_addrs) {
                (Some((s, d)), _) => t.calc_checksum_ipv4(s, d),
                (_, Some((s, d))) => t.calc_checksum_ipv6(s, d),
                _ => unreachable!("an IP header was parsed"),
            }
            .map_err(|e| format!("TCP checksum: {e}"))?;
            if want != t.checksum() {
                return Err(format!(
                    "TCP checksum {:#06x}, etherparse computes {want:#06x}",
                    t.checksum()
                ));
            }
            (
                true,
                t.source_port(),
                t.destination_port(),
                Some(t.sequence_number()),
                t.payload(),
            )
        }
        other => return Err(format!("not UDP/TCP: {other:?}")),
    };
    let payload_off = payload.as_ptr() as usize - frame.as_ptr() as usize;
    Ok(Frame {
        src_mac,
        dst_mac,
        vlan,
        v6,
        tcp,
        src,
        dst,
        sport,
        dport,
        ip_id,
        tcp_seq,
        payload,
        payload_off,
    })
}

// --------------------------------------------------- foreign frames

const MAC_A: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0a];
const MAC_B: [u8; 6] = [0x02, 0, 0, 0, 0, 0x0b];

/// An ARP request (EtherType 0x0806): not IP, so not ours.
pub fn arp_frame() -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(&[0xff; 6]);
    f.extend_from_slice(&MAC_A);
    f.extend_from_slice(&[0x08, 0x06]);
    f.extend_from_slice(&[0, 1, 0x08, 0, 6, 4, 0, 1]); // Ethernet/IPv4, request
    f.extend_from_slice(&MAC_A);
    f.extend_from_slice(&[198, 18, 0, 1]);
    f.extend_from_slice(&[0; 6]);
    f.extend_from_slice(&[198, 19, 0, 1]);
    f.resize(60, 0);
    f
}

/// A well-formed IPv4/UDP frame whose payload does not start with the
/// stamp's magic.
pub fn ipv4_udp_foreign(payload: &[u8]) -> Vec<u8> {
    let b = etherparse::PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv4([198, 18, 0, 1], [198, 19, 0, 1], 64)
        .udp(40000, 5001);
    let mut f = Vec::new();
    b.write(&mut f, payload).expect("building a UDP frame");
    f
}

/// A well-formed IPv6/TCP frame whose payload does not start with the
/// stamp's magic.
pub fn ipv6_tcp_foreign(payload: &[u8]) -> Vec<u8> {
    let b = etherparse::PacketBuilder::ethernet2(MAC_A, MAC_B)
        .ipv6(
            [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1],
            [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
            64,
        )
        .tcp(40000, 5001, 1, 65535)
        .ack(1);
    let mut f = Vec::new();
    b.write(&mut f, payload).expect("building a TCP frame");
    f
}

/// The first `len` bytes of `frame`.
pub fn truncated(frame: &[u8], len: usize) -> Vec<u8> {
    frame[..len.min(frame.len())].to_vec()
}

/// A tiny deterministic generator (SplitMix64) for test data.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}
