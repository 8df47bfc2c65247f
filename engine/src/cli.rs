//! The subcommands behind `landspeed`: argument types and what each does.
//! `main.rs` only parses and prints the error.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use std::fmt::Write as _;
use std::io::Write as _;

use crate::config::{self, Plan};
use crate::counter::StopFlag;
use crate::dpdk::{signal, Eal, LinkStatus, Port, PortInfo};
use crate::outcome::Problem;
use crate::output::{self, Kind};
use crate::pace::rate::RateSpec;
use crate::report::join;
use crate::result::RunResult;
use crate::runtime::{self, Quiet, Sink, Stdout};
use crate::{Error, Result};

/// `landspeed run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The profile (YAML). Without it, the built-in configs/null.yaml runs.
    pub profile: Option<PathBuf>,
    /// Measured run time, e.g. `10s`, `500ms`, `2m` (overrides run.duration).
    #[arg(long, short = 't')]
    pub duration: Option<String>,
    /// Rate for every TX task, e.g. `5G`, `95%`, `line`, `136612pps`
    /// (overrides each task's rate; split evenly among tasks).
    #[arg(long, short = 'r')]
    pub rate: Option<String>,
    /// Write the whole result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Send through DPDK's net_pcap instead of each TX port's device, so the
    /// exact frames sent land in this .pcap file. A relative path is taken
    /// from the current directory (paths inside a profile are taken from
    /// the profile's folder).
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Print only the summary, not the interval lines.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Write one JSON object per interval to standard output instead of
    /// the interval lines (each task's totals so far; the last one with
    /// `"last": true`), and the summary to standard error: for programs
    /// that follow a run live.
    #[arg(long, conflicts_with = "quiet")]
    pub json_stream: bool,
    /// Serve the run's live per-port counters for Prometheus at
    /// `http://ADDR/metrics` (a loopback address, e.g. 127.0.0.1:9464),
    /// updated every interval, until the run ends.
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<std::net::SocketAddr>,
    /// Show DPDK's own log in full (its `info` level) instead of its
    /// errors only (overrides eal.log_level).
    #[arg(long)]
    pub dpdk_log: bool,
    /// Start sending and receiving at this wall-clock time, in seconds
    /// since the Unix epoch (e.g. `$(date -d '+10 sec' +%s)`), once the
    /// ports are up: runs on two hosts whose clocks are synchronised start
    /// together. A time that has passed when the ports are up is an error,
    /// before any frame is sent.
    #[arg(long, value_name = "UNIX_SECONDS")]
    pub start_at: Option<String>,
    /// Keep receiving until the duration is over or the run is stopped
    /// (Ctrl-C, SIGINT), also once every TX task has sent its frames: for
    /// a run whose senders are on other hosts too, which a controller
    /// stops once they are all done.
    #[arg(long)]
    pub until_stopped: bool,
}

/// The most a start time may lie ahead (`run --start-at`).
const START_AHEAD_MAX: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// `--start-at TEXT` as a wall-clock instant: seconds since the Unix
/// epoch, at most a day ahead.
fn start_at(text: &str) -> Result<std::time::SystemTime> {
    let bad = |why: &str| Error::option(format!("--start-at {text}"), why);
    let secs: f64 = text
        .trim()
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .ok_or_else(|| {
            bad("a time in seconds since the Unix epoch, e.g. $(date -d '+10 sec' +%s)")
        })?;
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs);
    if at > std::time::SystemTime::now() + START_AHEAD_MAX {
        return Err(bad("is more than a day ahead"));
    }
    Ok(at)
}

/// Writes each [`runtime::Totals`] as one line of JSON on standard
/// output, and nothing else (`run --json-stream`).
struct JsonStream;

impl Sink for JsonStream {
    fn line(&mut self, _: &str) {}
    fn totals(&mut self, totals: &runtime::Totals) {
        if let Ok(s) = serde_json::to_string(totals) {
            output::print(&format!("{s}\n"));
        }
    }
}

/// Keeps each interval's totals for the `--metrics` endpoint, and passes
/// everything on to the sink it wraps.
struct Scraped<'a> {
    /// The sink that prints.
    inner: &'a mut dyn Sink,
    /// Where the endpoint reads the newest totals.
    latest: crate::scrape::Latest,
}

impl Sink for Scraped<'_> {
    fn line(&mut self, s: &str) {
        self.inner.line(s);
    }
    fn totals(&mut self, totals: &runtime::Totals) {
        *self.latest.lock().unwrap_or_else(|p| p.into_inner()) = Some(totals.clone());
        self.inner.totals(totals);
    }
}

/// `landspeed ports`.
#[derive(Args, Debug)]
pub struct PortsArgs {
    /// Take the EAL settings (cores, vdevs, PCI devices) from this profile.
    #[arg(long, conflicts_with = "eal")]
    pub profile: Option<PathBuf>,
    /// EAL arguments, as one string, e.g. `--no-huge -m 512 --no-pci
    /// --vdev=net_null0` (default: those of the built-in profile).
    #[arg(long, allow_hyphen_values = true)]
    pub eal: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Show DPDK's own log in full (its `info` level) instead of its
    /// errors only.
    #[arg(long)]
    pub dpdk_log: bool,
}

/// `landspeed replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A departure trace written by a TX task (`trace:` in the profile).
    pub trace: PathBuf,
    /// The bottleneck link's rate, e.g. `500M`, `1G` (L1 bit/s: frames plus
    /// their 20 bytes of preamble and gap, as the link serialises them).
    #[arg(long)]
    pub bottleneck: String,
    /// The bottleneck's buffer, e.g. `4MB`, `512KiB`, `100000`.
    #[arg(long)]
    pub buffer: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Load the plan `landspeed run` executes, with the command line's
/// overrides applied.
pub fn load_plan(args: &RunArgs) -> Result<Plan> {
    let plan = match &args.profile {
        Some(p) => config::load(p)?,
        None => config::load_default()?,
    };
    let duration = match &args.duration {
        Some(d) => Some(
            config::parse_duration(d).map_err(|e| Error::option(format!("--duration {d}"), e))?,
        ),
        None => None,
    };
    let rate = match &args.rate {
        Some(r) => Some(
            r.parse::<RateSpec>()
                .map_err(|e| Error::option(format!("--rate {r}"), e))?,
        ),
        None => None,
    };
    let mut plan = plan.with_overrides(duration, rate)?;
    if args.dpdk_log {
        plan.eal.show_dpdk_log();
    }
    if let Some(pcap) = &args.capture {
        apply_capture(&mut plan, pcap)?;
    }
    if let Some(t) = &args.start_at {
        plan.run.start_at = Some(start_at(t)?);
    }
    plan.run.until_stopped = args.until_stopped;
    Ok(plan)
}

/// Replace the device of every port a TX task uses with a `net_pcap` vdev
/// writing to `pcap` (one file per port: `NAME.pcap`, `NAME-1.pcap`, …).
pub fn apply_capture(plan: &mut Plan, pcap: &Path) -> Result<()> {
    let option = || format!("--capture {}", pcap.display());
    let mut tx_ports: Vec<usize> = plan.tx.iter().map(|t| t.port).collect();
    tx_ports.sort_unstable();
    tx_ports.dedup();
    if tx_ports.is_empty() {
        return Err(Error::option(option(), "the profile has no TX task"));
    }
    if pcap.to_string_lossy().contains(',') {
        let message = "a comma in the path would split DPDK's device arguments: rename it";
        return Err(Error::option(option(), message));
    }
    if let Some(dir) = pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            let message = format!("folder {} does not exist", dir.display());
            return Err(Error::option(option(), message));
        }
    }
    let files = capture_files(pcap, tx_ports.len());
    for (k, (&p, file)) in tx_ports.iter().zip(files).enumerate() {
        let old = plan.ports[p].device.name().to_string();
        let name = format!("net_pcap_cap{k}");
        plan.eal
            .vdevs
            .retain(|v| v.split(',').next() != Some(old.as_str()));
        plan.eal
            .vdevs
            .push(format!("{name},tx_pcap={}", file.display()));
        plan.ports[p].device = config::Device::Vdev(name);
    }
    Ok(())
}

/// The files `--capture pcap` writes for `n` TX ports: `pcap` itself,
/// then `STEM-1.pcap`, `STEM-2.pcap`, … beside it.
fn capture_files(pcap: &Path, n: usize) -> Vec<PathBuf> {
    let stem = pcap
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (0..n)
        .map(|k| match k {
            0 => pcap.to_path_buf(),
            k => pcap.with_file_name(format!("{stem}-{k}.pcap")),
        })
        .collect()
}

/// The capture file of each `--capture` port: (port index, file).
fn capture_ports(plan: &Plan, pcap: &Path) -> Vec<(usize, PathBuf)> {
    let mut tx_ports: Vec<usize> = plan.tx.iter().map(|t| t.port).collect();
    tx_ports.sort_unstable();
    tx_ports.dedup();
    let files = capture_files(pcap, tx_ports.len());
    tx_ports.into_iter().zip(files).collect()
}

/// Before the EAL starts: every file the run will write can be written,
/// and none is the profile being run or another output of the run.
fn check_run_outputs(args: &RunArgs, plan: &Plan) -> Result<()> {
    let profile = args.profile.as_deref();
    let mut inputs: Vec<(&str, &Path)> = profile
        .map(|p| ("the profile being run", p))
        .into_iter()
        .collect();
    let captures = match &args.capture {
        Some(pcap) => capture_ports(plan, pcap),
        None => Vec::new(),
    };
    for (_, file) in &captures {
        output::check_output("--capture", file, Kind::RegularFile, &inputs)?;
    }
    inputs.extend(
        captures
            .iter()
            .map(|(_, f)| ("a --capture file", f.as_path())),
    );
    if let Some(json) = &args.json {
        output::check_output("--json", json, Kind::AnyFile, &inputs)?;
        inputs.push(("the --json file", json));
    }
    check_traces(plan, &mut inputs)
}

/// Before the EAL starts: each TX task's departure trace (`tx[i].trace`)
/// can be written, and is neither the profile, another output of the run
/// nor another task's trace. Errors name the profile's line.
fn check_traces<'a>(plan: &'a Plan, inputs: &mut Vec<(&str, &'a Path)>) -> Result<()> {
    for (ti, t) in plan.tx.iter().enumerate() {
        let Some(path) = &t.trace else {
            continue;
        };
        let field = format!("tx[{ti}].trace");
        output::check_output(&field, path, Kind::AnyFile, inputs).map_err(|e| match e {
            Error::Option { message, .. } => {
                Error::Config(plan.error(&field, format!("{}: {message}", path.display())))
            }
            other => other,
        })?;
        inputs.push(("another task's trace", path));
    }
    Ok(())
}

/// After the run (its ports closed, so the pcap driver has written all it
/// will): a capture file shorter than the frames its port sent is a
/// [`Problem::CaptureShort`]. The pcap driver ignores failed writes (a
/// full disk, a file size limit), so only the file's size tells.
fn check_captures(result: &mut RunResult, captures: &[(usize, PathBuf)]) {
    for (p, file) in captures {
        let Some(port) = result.ports.get(*p) else {
            continue;
        };
        let (frames, bytes) = (port.stats.opackets, port.stats.obytes);
        let expected = output::pcap_len(frames, bytes);
        let written = std::fs::metadata(file).map_or(0, |m| m.len());
        if written < expected {
            result.outcome.add(Problem::CaptureShort {
                file: file.display().to_string(),
                frames_sent: frames,
                bytes_expected: expected,
                bytes_written: written,
            });
        }
    }
}

/// A signal that stopped the run before its duration makes it incomplete;
/// one that came after (while it wound down) does not, nor, in a run that
/// ends by a stop (`--until-stopped`), one that came once every TX task
/// had sent its frames (an RX-only run's stop by its controller).
fn mark_interruption(result: &mut RunResult, plan: &Plan, stop: &StopFlag) {
    let Some(sig) = stop.cause() else { return };
    let done = plan.run.until_stopped && every_limit_sent(result, plan);
    if result.elapsed_s < plan.run.duration.as_secs_f64() && !done {
        result.outcome.complete = false;
        result.outcome.interrupted_by = Some(signal::name(sig));
    }
}

/// Every TX task of `plan` has a frame limit and sent that many frames
/// (true of a run without TX tasks).
fn every_limit_sent(result: &RunResult, plan: &Plan) -> bool {
    let sent = result.tx.as_ref().map_or(&[][..], |t| &t.tasks[..]);
    plan.tx.len() == sent.len()
        && (plan.tx.iter().zip(sent)).all(|(t, r)| t.frames.is_some_and(|n| r.frames >= n))
}

/// The run's stop flag: SIGINT, SIGTERM and SIGHUP set it (see [`signal`]).
static INTERRUPT: StopFlag = StopFlag::new_const();

/// `value` as indented JSON. Cannot fail: landspeed's results hold no map
/// with keys other than strings and no `Serialize` that refuses.
fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("landspeed's results serialise as JSON")
}

/// Write `value` as JSON to the file `--json` named, whole or not at all.
fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    output::write_atomic("--json", path, to_json(value).as_bytes())
}

/// `landspeed run`: check the outputs, execute the plan, print lines and
/// the summary, write JSON. Ctrl-C (or SIGTERM, SIGHUP) ends the run early
/// and still reports; a second one cuts the wind-down short; a third ends
/// the process (see [`signal`]). The exit status is the run's
/// [`crate::outcome::Outcome::exit_status`].
pub fn run(args: &RunArgs) -> Result<u8> {
    let plan = load_plan(args)?;
    check_run_outputs(args, &plan)?;
    for w in plan.stream_tracking_warnings(crate::rx::MAX_STREAMS) {
        let _ = writeln!(std::io::stderr(), "landspeed: warning: {w}");
    }
    let scrape = args.metrics.map(crate::scrape::bind).transpose()?;
    signal::on_interrupt(&INTERRUPT, runtime::remove_own_run_dirs);
    let (mut out, mut quiet, mut stream) = (Stdout, Quiet, JsonStream);
    let mut sink: &mut dyn Sink = match (args.quiet, args.json_stream) {
        (_, true) => &mut stream,
        (true, false) => &mut quiet,
        (false, false) => &mut out,
    };
    let mut scraped;
    if let Some(listener) = scrape {
        let latest = crate::scrape::Latest::default();
        crate::scrape::spawn(listener, latest.clone())?;
        scraped = Scraped {
            inner: sink,
            latest,
        };
        sink = &mut scraped;
    }
    let mut result = runtime::execute(&plan, sink, &INTERRUPT)?;
    mark_interruption(&mut result, &plan, &INTERRUPT);
    if let Some(pcap) = &args.capture {
        check_captures(&mut result, &capture_ports(&plan, pcap));
    }
    let summary = crate::report::summary::summary(&result);
    if args.json_stream {
        let _ = write!(std::io::stderr(), "{summary}");
    } else {
        output::print(&summary);
    }
    if let Some(path) = &args.json {
        write_json(path, &result)?;
    }
    Ok(result.outcome.exit_status())
}

/// The EAL arguments `landspeed ports` starts with: a pcap vdev's
/// `tx_pcap=` output becomes `/dev/null` (see [`listing_arg`]).
fn ports_eal_args(args: &PortsArgs) -> Result<Vec<String>> {
    let plan = match (&args.profile, &args.eal) {
        (Some(p), _) => Some(config::load(p)?),
        (None, Some(_)) => None,
        (None, None) => Some(config::load_default()?),
    };
    let level = if args.dpdk_log {
        config::FULL_DPDK_LOG
    } else {
        config::DEFAULT_DPDK_LOG
    };
    let v = match (plan, &args.eal) {
        (Some(mut plan), _) => {
            if args.dpdk_log {
                plan.eal.show_dpdk_log();
            }
            plan.eal.eal_args()
        }
        (None, s) => {
            let mut v = vec!["landspeed".to_string()];
            v.extend(
                s.iter()
                    .flat_map(|s| s.split_whitespace())
                    .map(str::to_string),
            );
            if args.dpdk_log || !v.iter().any(|a| a.starts_with("--log-level")) {
                v.push(format!("--log-level={level}"));
            }
            v
        }
    };
    Ok(v.iter().map(|a| listing_arg(a)).collect())
}

/// The pcap driver opens (creates, truncates) each `tx_pcap=FILE` when it
/// probes the device: a listing must write nothing, so in an EAL argument
/// every `tx_pcap=` names `/dev/null` instead. The port it makes is the
/// same.
fn listing_arg(arg: &str) -> String {
    if !arg.contains("tx_pcap=") {
        return arg.to_string();
    }
    arg.split(',')
        .map(|kv| match kv.strip_prefix("tx_pcap=") {
            Some(_) => "tx_pcap=/dev/null",
            None => kv,
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// `landspeed ports`: start the EAL and list every port. A signal
/// (SIGINT, SIGTERM, SIGHUP) ends it at once, its runtime directory
/// removed, with status 130: a listing has nothing to finish.
pub fn ports(args: &PortsArgs) -> Result<()> {
    let eal_args = ports_eal_args(args)?;
    let _run_dir = runtime::RunDirCleanup::for_args(&eal_args);
    signal::exit_on_interrupt(&INTERRUPT, runtime::remove_own_run_dirs);
    let eal = Eal::init(&eal_args).map_err(|e| Error::eal_start(e, ""))?;
    let mut infos = Vec::new();
    for id in eal.port_ids() {
        let port = Port::open(&eal, id)?;
        let link = port.link();
        infos.push((port.info().clone(), link));
    }
    if args.json {
        let v: Vec<_> = infos
            .iter()
            .map(|(i, l)| serde_json::json!({ "info": i, "mac": i.mac_string(), "link": l, "offloads": i.offload_names() }))
            .collect();
        output::print(&format!("{}\n", to_json(&v)));
    } else if infos.is_empty() {
        output::print(
            "no ports: DPDK probed no device (give --vdev=... or bind a NIC to vfio-pci)\n",
        );
    } else {
        for (i, l) in &infos {
            output::print(&port_text(i, l));
        }
    }
    drop(infos);
    drop(eal);
    match INTERRUPT.cause() {
        Some(sig) => Err(Error::Dpdk(crate::dpdk::DpdkError::msg(
            "listing the ports",
            format!("interrupted by {}", signal::name(sig)),
        ))),
        None => Ok(()),
    }
}

/// One port as `landspeed ports` prints it.
fn port_text(i: &PortInfo, l: &LinkStatus) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "port {} {} (driver {})", i.id, i.name, i.driver);
    let _ = writeln!(s, "  mac {}  numa socket {}", i.mac_string(), i.socket);
    let _ = writeln!(
        s,
        "  link {} {} Mbit/s {} (as reported before the port is started)",
        if l.up { "up" } else { "down" },
        l.speed_mbps,
        if l.full_duplex {
            "full-duplex"
        } else {
            "half-duplex"
        }
    );
    let max_frame = match i.max_rx_pktlen {
        u32::MAX => "no limit reported".to_string(),
        n => format!("{n} bytes (FCS included)"),
    };
    let _ = writeln!(
        s,
        "  max frame {max_frame}, MTU {}..{}",
        i.min_mtu, i.max_mtu
    );
    let _ = writeln!(
        s,
        "  queues rx {} tx {}, ring rx {}..{} tx {}..{}",
        i.max_rx_queues, i.max_tx_queues, i.rx_ring.0, i.rx_ring.1, i.tx_ring.0, i.tx_ring.1
    );
    let off = i.offload_names();
    let _ = writeln!(
        s,
        "  offloads {}",
        if off.is_empty() {
            "none".to_string()
        } else {
            off.join(" ")
        }
    );
    s
}

/// `landspeed replay`: a trace through a simulated bottleneck.
pub fn replay(args: &ReplayArgs) -> Result<()> {
    let text =
        crate::pace::replay::run_cli(&args.trace, &args.bottleneck, &args.buffer, args.json)?;
    output::print(&text);
    Ok(())
}

/// `landspeed report TX.json RX.json`: join both sides of a run.
pub fn report(tx: &Path, rx: &Path, json: Option<&Path>) -> Result<()> {
    if let Some(path) = json {
        let inputs = [
            ("the sender's result TX", tx),
            ("the receiver's result RX", rx),
        ];
        output::check_output("--json", path, Kind::AnyFile, &inputs)?;
    }
    let joined = join::join_files(tx, rx)?;
    output::print(&joined.text());
    if let Some(path) = json {
        write_json(path, &joined)?;
    }
    Ok(())
}

/// `landspeed rfc2544` (and `landspeed rfc2889`, whose `--tests` are
/// RFC 2889's).
#[derive(Args, Debug, Clone)]
pub struct Rfc2544Args {
    /// The profile (YAML): its ports, streams, TX and RX tasks, and its
    /// `certify:` section.
    pub profile: PathBuf,
    /// The tests to run, e.g. `throughput,latency,loss,back-to-back`
    /// (also `recovery`, `reset`, `address-caching` and
    /// `learning-rate`; overrides certify.tests). For `rfc2889`:
    /// `fully-meshed`, `partially-meshed`, `congestion-control`,
    /// `forwarding-rate`, `address-caching`, `address-learning-rate`.
    #[arg(long, value_delimiter = ',')]
    pub tests: Option<Vec<String>>,
    /// Frame sizes with FCS, e.g. `64,128,256,512,1024,1280,1518`, and
    /// `imix` for the profile's certify.imix (overrides certify.sizes).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Option<Vec<String>>,
    /// Length of each throughput and loss trial, e.g. `60s` (overrides
    /// certify.trial).
    #[arg(long)]
    pub trial: Option<String>,
    /// Accept settings coarser than RFC 2544 allows (a loss step above
    /// 10 %); every output lists them as not RFC-conformant.
    #[arg(long)]
    pub quick: bool,
    /// Write the certification as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the HTML report to this file.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Write one CSV row per trial to this file.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write JUnit XML (a test case per size and criterion) to this file.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Show DPDK's own log in full (its `info` level).
    #[arg(long)]
    pub dpdk_log: bool,
    /// How progress shows on standard error: `auto` (a live bar on a
    /// terminal, else a plain line per trial) or `plain` (a line per
    /// trial).
    #[arg(long, value_enum, default_value_t = ProgressArg::Auto)]
    pub progress: ProgressArg,
    /// No live bar: a plain line per trial on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Calibrate the tester on a direct loop (a cable, a ring, the lab's
    /// `--loop`): run throughput and latency only, and write the
    /// tester's own latency per direction and size to this file, for
    /// `--baseline`.
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    pub calibrate: Option<PathBuf>,
    /// Take the tester's own latency out of the latency rows with this
    /// baseline (written by `--calibrate` with the same setup; overrides
    /// certify.baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}

/// The largest baseline file read: 16 MiB.
const MAX_BASELINE_BYTES: u64 = 16 << 20;

/// The tests a calibration runs.
const CALIBRATION_TESTS: [&str; 2] = ["throughput", "latency"];

/// `--progress` of `landspeed rfc2544`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressArg {
    /// A live bar when standard error is a terminal, else plain lines.
    Auto,
    /// A plain line per trial.
    Plain,
}

/// The certification plan: the profile, the command line's overrides,
/// every check that needs no device.
fn certify_plan(args: &Rfc2544Args) -> Result<Plan> {
    let plan = config::load(&args.profile)?;
    let tests = match &args.tests {
        Some(t) => Some(
            config::parse_tests(t)
                .map_err(|m| Error::option(format!("--tests {}", t.join(",")), m))?,
        ),
        None => None,
    };
    let trial = match &args.trial {
        Some(d) => {
            Some(config::parse_duration(d).map_err(|e| Error::option(format!("--trial {d}"), e))?)
        }
        None => None,
    };
    let sizes = match &args.sizes {
        Some(v) => Some(
            v.iter()
                .map(|x| config::parse_size(x))
                .collect::<std::result::Result<Vec<u32>, String>>()
                .map_err(|m| Error::option(format!("--sizes {}", v.join(",")), m))?,
        ),
        None => None,
    };
    let mut plan = plan.with_certify_overrides(tests, sizes, trial, args.quick);
    if args.calibrate.is_some() {
        let asked = plan.certify.settings.tests.clone();
        let tests: Vec<String> = CALIBRATION_TESTS.map(String::from).to_vec();
        if asked != tests {
            let _ = writeln!(
                std::io::stderr(),
                "landspeed: --calibrate runs throughput and latency only (not {}, as {} says)",
                asked.join(", "),
                if args.tests.is_some() {
                    "--tests"
                } else {
                    "certify.tests"
                }
            );
        }
        plan.certify.settings.tests = tests;
        plan.certify.baseline = None;
    }
    plan.check_certify()?;
    runtime::session::topology(&plan)?;
    if args.dpdk_log {
        plan.eal.show_dpdk_log();
    }
    Ok(plan)
}

/// The report files of `landspeed rfc2544`, by option.
fn certify_outputs(args: &Rfc2544Args) -> Vec<(&'static str, &Path)> {
    [
        ("--json", &args.json),
        ("--html", &args.html),
        ("--csv", &args.csv),
        ("--junit", &args.junit),
    ]
    .into_iter()
    .filter_map(|(o, p)| p.as_deref().map(|p| (o, p)))
    .collect()
}

/// Before the EAL starts: every output (the calibration's too) can be
/// written, none is the profile, the baseline or another output.
fn check_certify_outputs(args: &Rfc2544Args, baseline: Option<&Path>) -> Result<()> {
    let mut outs = certify_outputs(args);
    outs.extend(args.calibrate.as_deref().map(|p| ("--calibrate", p)));
    for (i, &(opt, path)) in outs.iter().enumerate() {
        let mut inputs: Vec<(&str, &Path)> = vec![("the profile being run", &args.profile)];
        inputs.extend(baseline.map(|b| ("the baseline being read", b)));
        inputs.extend(
            outs[..i]
                .iter()
                .map(|&(_, p)| ("another output of this run", p)),
        );
        output::check_output(opt, path, Kind::AnyFile, &inputs)?;
    }
    Ok(())
}

/// The report `opt` asks for, rendered from `cert`: every format from the
/// one `Certification`, so they hold the same figures.
fn render(opt: &str, cert: &crate::certify::model::Certification) -> String {
    use crate::certify::{csv, html, junit};
    match opt {
        "--html" => html::render(cert),
        "--csv" => csv::render(cert),
        "--junit" => junit::render(cert),
        _ => to_json(cert),
    }
}

/// The host's name, CPU model and count and kernel, from `/proc`, for
/// the certification's reports (a file that cannot be read leaves its
/// figure empty).
fn describe_host(host: &mut crate::certify::model::Host) {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    (host.cpu, host.cpus) = crate::certify::model::Host::cpu_of(&read("/proc/cpuinfo"));
    let kernel = format!(
        "{} {}",
        read("/proc/sys/kernel/ostype"),
        read("/proc/sys/kernel/osrelease")
    );
    host.kernel = kernel.trim().to_string();
    host.name = read("/proc/sys/kernel/hostname");
}

/// The baseline a certification corrects its latency with: `--baseline`,
/// else the profile's `certify.baseline`; read (bounded), parsed, and
/// checked against the plan's setup, directions and sizes before the EAL
/// starts. Each error names the file, as the option or the profile's
/// line gives it, and says what is wrong.
fn read_baseline(
    args: &Rfc2544Args,
    plan: &Plan,
) -> Result<Option<(PathBuf, crate::certify::latency::Baseline)>> {
    use crate::certify::latency::{Baseline, BASELINE_KIND};
    let (path, from_option) = match (&args.baseline, &plan.certify.baseline) {
        (Some(p), _) => (p.clone(), true),
        (None, Some(p)) => (p.clone(), false),
        (None, None) => return Ok(None),
    };
    let fail = |m: String| -> Error {
        if from_option {
            Error::option(format!("--baseline {}", path.display()), m)
        } else {
            Error::Config(plan.error("certify.baseline", format!("{}: {m}", path.display())))
        }
    };
    let text =
        crate::input::read_text(&path, MAX_BASELINE_BYTES).map_err(|e| fail(e.to_string()))?;
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        fail(format!(
            "is not JSON ({e}): give the file `--calibrate` wrote"
        ))
    })?;
    if value.get("kind").and_then(serde_json::Value::as_str) != Some(BASELINE_KIND) {
        let what = if value.get("throughput").is_some() && value.get("settings").is_some() {
            "a certification's JSON"
        } else {
            "JSON of another kind"
        };
        return Err(fail(format!(
            "is not a latency baseline (its `kind` is not `{BASELINE_KIND}`: {what}): \
             write one with `landspeed rfc2544 PROFILE --calibrate FILE` on a direct loop"
        )));
    }
    let b: Baseline = serde_json::from_value(value).map_err(|e| {
        fail(format!(
            "is a latency baseline of another shape ({e}): calibrate again with this version"
        ))
    })?;
    let (kind, dirs) = runtime::session::topology(plan)?;
    let labels = runtime::session::direction_labels(plan, &dirs);
    let s = &plan.certify.settings;
    let (dirs, sizes) = if s.tests.iter().any(|t| t == "latency") {
        (
            crate::certify::search::row_directions(&labels, kind),
            s.sizes.clone(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let setup = runtime::setup::setup(plan);
    b.fits(&setup, &dirs, &sizes).map_err(|m| {
        fail(format!(
            "{m}: a baseline is the tester's own latency with this setup only ({} {})",
            "recorded by", b.profile
        ))
    })?;
    Ok(Some((path, b)))
}

/// After a calibration: the baseline of its latency rows, written (whole
/// or not at all) to `path`; an error when it measured no latency.
fn write_baseline(
    path: &Path,
    plan: &Plan,
    cert: &crate::certify::model::Certification,
) -> Result<()> {
    use crate::certify::{latency, search};
    let sources = search::every_trial(cert).filter_map(|t| t.latency_source.as_deref());
    let mut setup = runtime::setup::setup(plan);
    let rows = cert.latency.iter().filter(|r| r.summary.count > 0).count();
    let method = latency::method_of(sources);
    let (Some(method), true) = (method, rows > 0) else {
        return Err(Error::option(
            format!("--calibrate {}", path.display()),
            "the calibration measured no latency (see its latency table): nothing written",
        ));
    };
    setup.method = method.to_string();
    let b = latency::Baseline::of(&cert.latency, &cert.started, &plan.origin, setup);
    output::write_atomic("--calibrate", path, to_json(&b).as_bytes())?;
    let _ = writeln!(
        std::io::stderr(),
        "landspeed: the tester baseline ({} latency row(s)) written to {}",
        b.rows.len(),
        path.display()
    );
    Ok(())
}

/// Corrects `cert`'s latency rows with `baseline` (read from `path`),
/// when its trials were timestamped as the calibration's; an error
/// otherwise (the rows are left as measured).
fn apply_baseline(
    cert: &mut crate::certify::model::Certification,
    path: &Path,
    baseline: &crate::certify::latency::Baseline,
) -> Result<()> {
    use crate::certify::{latency, model::BaselineInfo, search};
    let sources = search::every_trial(cert).filter_map(|t| t.latency_source.as_deref());
    if let Some(m) = latency::method_of(sources) {
        baseline.fits_method(m).map_err(|e| {
            Error::Certify(format!(
                "the baseline {} {e}: its latency rows are left as measured",
                path.display()
            ))
        })?;
    }
    let settings = cert.settings.clone();
    latency::correct(&mut cert.latency, baseline, &settings, cert.line_bps);
    cert.baseline = Some(BaselineInfo {
        file: path.display().to_string(),
        recorded: baseline.recorded.clone(),
        profile: baseline.profile.clone(),
    });
    Ok(())
}

/// The tests of RFC 2889 `landspeed rfc2889 --tests` names, each with its
/// section and the certification's tests that measure it on the
/// profile's mesh.
pub const RFC2889_TESTS: [(&str, &str, &[&str]); 8] = [
    ("fully-meshed", "5.1", &["throughput", "loss"]),
    ("partially-meshed", "5.2-5.4", &["throughput", "loss"]),
    ("congestion-control", "5.5", &["loss"]),
    ("forwarding-rate", "5.6", &["loss"]),
    ("address-caching", "5.7", &["address_caching"]),
    ("address-learning-rate", "5.8", &["learning_rate"]),
    ("throughput", "5.1", &["throughput"]),
    ("frame-loss", "5.1", &["loss"]),
];

/// `landspeed rfc2889 --tests`: each name in RFC 2889's terms (either
/// spelling, `-` or `_`) to the certification's tests, in their order.
pub fn rfc2889_tests(names: &[String]) -> std::result::Result<Vec<String>, String> {
    let mut keys: Vec<String> = Vec::new();
    for n in names {
        let want = n.trim().to_ascii_lowercase().replace('_', "-");
        let Some((_, _, tests)) = RFC2889_TESTS.iter().find(|(k, _, _)| *k == want) else {
            let known: Vec<&str> = RFC2889_TESTS.iter().map(|t| t.0).collect();
            return Err(format!(
                "unknown RFC 2889 test `{}`: use {}",
                n.trim(),
                known.join(", ")
            ));
        };
        keys.extend(tests.iter().map(|t| t.to_string()));
    }
    config::parse_tests(&keys)
}

/// `landspeed rfc2889`: RFC 2889's tests on the profile's mesh (named in
/// its terms by `--tests`), run as `landspeed rfc2544` runs its own, with
/// the same reports and exit status; a profile that is not a mesh is
/// refused.
pub fn rfc2889(args: &Rfc2544Args) -> Result<u8> {
    let mut args = args.clone();
    if let Some(t) = &args.tests {
        let keys =
            rfc2889_tests(t).map_err(|m| Error::option(format!("--tests {}", t.join(",")), m))?;
        args.tests = Some(keys);
    }
    let plan = certify_plan(&args)?;
    let (kind, _) = runtime::session::topology(&plan)?;
    if kind != crate::certify::model::MESH {
        return Err(plan
            .error(
                "tx",
                format!(
                    "RFC 2889 evaluates a switch on a mesh of ports (three or more, or two with \
                     a monitoring port), and this profile's tasks are {kind}: run `landspeed \
                     rfc2544` on it"
                ),
            )
            .into());
    }
    rfc2544(&args)
}

/// `landspeed rfc2544`: check everything, run the certification in one
/// process, print the tables, write the reports. Exit status (the
/// [`crate::certify::table::Verdict`] the last terminal line states): 0
/// pass, 5 a criterion failed, 3 a figure was the tester's, 4
/// interrupted (the reports hold what was measured, marked incomplete),
/// 1 an error (the reports are still written).
pub fn rfc2544(args: &Rfc2544Args) -> Result<u8> {
    use crate::certify::{criteria, display, search, table};
    let plan = certify_plan(args)?;
    let baseline = read_baseline(args, &plan)?;
    check_certify_outputs(args, baseline.as_ref().map(|(p, _)| p.as_path()))?;
    signal::on_interrupt(&INTERRUPT, runtime::remove_own_run_dirs);
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let plan = runtime::session::port_plan(&plan);
    let mode = display::choose_for_stderr(args.quiet, args.progress == ProgressArg::Plain);
    let mut shown = display::Display::new(mode);
    let method = (baseline.as_ref())
        .map(|(_, b)| b.setup.method.as_str())
        .filter(|m| !m.is_empty());
    let certified = runtime::session::certify(&plan, &INTERRUPT, &mut |st| shown.step(st), method);
    shown.finish();
    let (mut cert, mut failed) = certified?;
    cert.started = table::rfc3339(started);
    if let (Some((path, b)), None) = (&baseline, &failed) {
        if let Err(e) = apply_baseline(&mut cert, path, b) {
            cert.complete = false;
            cert.stopped_by = Some(e.to_string());
            failed = Some(e);
        }
    }
    cert.device = plan.certify.device.clone();
    describe_host(&mut cert.host);
    if let (Some(sig), None) = (INTERRUPT.cause(), &failed) {
        if !cert.complete {
            cert.stopped_by = Some(format!("interrupted by {}", signal::name(sig)));
        }
    }
    cert.not_measured = search::not_measured(&cert);
    cert.criteria = criteria::judge(&cert, &plan.certify.criteria);
    cert.problems.extend(search::tester_problems(&cert));
    let verdict = table::Verdict::of(&cert, failed.is_some());
    cert.verdict = Some(verdict.record(&cert));
    output::print(&table::summary(&cert, verdict));
    for (opt, path) in certify_outputs(args) {
        let opt: &'static str = opt;
        output::write_atomic(opt, path, render(opt, &cert).as_bytes())?;
    }
    if let Some(e) = failed {
        return Err(e);
    }
    if let Some(path) = &args.calibrate {
        write_baseline(path, &plan, &cert)?;
    }
    Ok(verdict.exit())
}
