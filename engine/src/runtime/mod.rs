//! One run of a plan, in named stages, each a function of its own:
//!
//! 1. **open**: [`Runtime::open`] checks the profile's lcores exist,
//!    starts the EAL and measures the TSC; `open_ports` creates each
//!    port's mempool and configures the port, which takes the pool;
//!    `start_ports` starts them, which hands out one handle per queue;
//! 2. **plan tasks**: `tasks::plan_tasks` builds one task per worker
//!    lcore around the queue handles it alone may use;
//! 3. **launch**: `launch` runs the tasks in a [`dpdk::scope`], receivers
//!    first so nothing sent is missed;
//! 4. **report loop**: `report_loop` prints an interval line from the main
//!    lcore until the duration is over or the run is interrupted;
//! 5. **collect**: `collect` stops and joins the senders, then (once the
//!    frames in flight have arrived) the receivers; `finish` reads the
//!    PMD's counters, closes the ports, checks that every mbuf came back
//!    to its pool, and builds the [`RunResult`].
//!
//! Teardown order is the borrow checker's, not where locals happen to be
//! declared. The [`Runtime`] owns the EAL and, after it, the runtime
//! directory it leaves; ports borrow the EAL and own their pools; queue
//! handles borrow their port; workers borrow their handles and are waited
//! for when the scope ends. So workers end before their ports close, a
//! port closes before its pool is freed, and pools go before the EAL is
//! cleaned up. (One struct cannot own the EAL and the ports that borrow
//! it: the ports live beside the `Runtime`, borrowing it.)
//!
//! Panics: landspeed is built with `panic = "abort"`. Workers hold DPDK
//! state (queues, mbufs in flight) that unwinding could not release in a
//! safe order, and a panic on a worker lcore would cross the `extern "C"`
//! launch trampoline, where Rust aborts anyway. So nothing here catches a
//! panic and there is no "worker panicked" path: a worker returns its
//! outcome or the process ends. The panic hook that `RunDirCleanup`
//! installs removes the process's own DPDK runtime directory before the
//! abort, so a panic leaves nothing behind.

mod clock;
pub(crate) mod collect;
mod depart;
mod devices;
pub use devices::online_cpus;
pub mod sched;
mod servo;
pub(crate) mod session;
pub(crate) mod setup;
mod shares;
mod tasks;
mod watch;

use std::io::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Checksum, Device, Plan};
use crate::counter::{Padded, RxLive, StopFlag, TxLive};
use crate::dpdk::{
    self, DpdkError, Eal, Mempool, Port, PortConfig, PortStats, Queues, Scope, Worker,
};
use crate::limits::link::LinkKind;
use crate::limits::port_errors::ErrorSeries;
use crate::outcome::Problem;
use crate::pace::tsc::TscSample;
use crate::report::{self, Interval, Span};
use crate::result::{self, PortResult, RunResult};
use crate::rx::{self, RxOutcome};
use crate::tx::{self, TxOutcome};
use crate::wire::CsumMode;
use crate::{Error, Result};

pub(crate) use devices::{remove_own_run_dirs, RunDirCleanup};
use sched::CpuTime;
use tasks::{Handles, Tasks};
use watch::PortWatch;

/// How long the TSC is measured against the monotonic clock before a run
/// (1 µs of read uncertainty over 100 ms is 10 ppm, well inside the
/// 0.01 % a rate report needs).
const TSC_CALIBRATION: Duration = Duration::from_millis(100);
/// How long receivers keep running after the senders stopped when the run
/// both sends and receives: frames in flight (loopback rings, veths,
/// cables) arrive well within it.
const IN_FLIGHT_GRACE: Duration = Duration::from_millis(200);
/// How long a TX-only memif port stays open after its sender stopped: its
/// ring is shared with a peer process, and frames the peer has not read
/// yet are lost when the port closes (the last tens of frames of every
/// run without it).
const MEMIF_PEER_GRACE: Duration = Duration::from_millis(500);
/// Longest sleep of the report loop between looks at the clock and the
/// interrupt flag: the end of the run is seen within this.
const REPORT_POLL: Duration = Duration::from_millis(20);

/// Where interval lines go (stdout for the CLI, a buffer in tests).
pub trait Sink {
    /// Print one line.
    fn line(&mut self, s: &str);
    /// Each task's totals so far, at every interval's end and once more
    /// when the workers have ended (`last`): for a machine reader
    /// (`run --json-stream`, `serve`). Nothing by default.
    fn totals(&mut self, _totals: &Totals) {}
}

/// Each task's counter totals at one moment of a run, in the plan's task
/// order: what a live reader needs per port and per task.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Totals {
    /// Seconds since the workers were launched.
    pub t_s: f64,
    /// The workers have ended: these are the run's final counts.
    pub last: bool,
    /// Each TX task's frames and bytes (L2) handed to the PMD.
    pub tx: Vec<TaskTotals>,
    /// Each RX task's frames and bytes (L2) received, and lost so far.
    pub rx: Vec<TaskTotals>,
}

/// One task's totals ([`Totals`]).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TaskTotals {
    /// The port's name in the profile.
    pub port: String,
    /// The task's lcore.
    pub lcore: u32,
    /// Frames.
    pub frames: u64,
    /// Bytes (L2, FCS included).
    pub bytes: u64,
    /// Frames lost so far (RX tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<u64>,
    /// The share (0..=1) of the latest interval the lcore's thread waited
    /// for its CPU or had it stolen (`None`: not known yet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descheduled: Option<f64>,
    /// The share (0..=1) of the latest interval an RX lcore spent on polls
    /// that returned frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busy: Option<f64>,
    /// An RX task's intact frames and bytes so far per stream, for the
    /// streams with ids below [`crate::counter::LIVE_STREAMS`] it has
    /// received.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamTotals>,
}

/// One stream's totals on one RX task ([`TaskTotals::streams`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StreamTotals {
    /// The stream's id.
    pub id: u32,
    /// Intact frames received.
    pub frames: u64,
    /// Their bytes (L2, FCS included).
    pub bytes: u64,
}

/// The live counters as [`Totals`], with the lcores' shares `shares` of
/// the latest interval.
fn totals(plan: &Plan, live: &LiveCounters, t_s: f64, last: bool, shares: &shares::Now) -> Totals {
    let port = |i: usize| plan.ports[i].name.clone();
    let at = |v: &[Option<f64>], i: usize| v.get(i).copied().flatten();
    Totals {
        t_s,
        last,
        tx: (plan.tx.iter().zip(&live.tx).enumerate())
            .map(|(i, (t, l))| TaskTotals {
                port: port(t.port),
                lcore: t.lcore,
                frames: l.frames.get(),
                bytes: l.bytes.get(),
                lost: None,
                descheduled: at(&shares.tx_descheduled, i),
                busy: None,
                streams: Vec::new(),
            })
            .collect(),
        rx: (plan.rx.iter().zip(&live.rx).enumerate())
            .map(|(i, (t, l))| TaskTotals {
                port: port(t.port),
                lcore: t.lcore,
                frames: l.frames.get(),
                bytes: l.bytes.get(),
                lost: Some(l.lost.get()),
                descheduled: at(&shares.rx_descheduled, i),
                busy: at(&shares.rx_busy, i),
                streams: stream_totals(l),
            })
            .collect(),
    }
}

/// An RX lcore's live per-stream counts, the streams it has received.
fn stream_totals(l: &RxLive) -> Vec<StreamTotals> {
    (l.streams.iter().enumerate())
        .filter(|(_, s)| s.frames.get() > 0)
        .map(|(id, s)| StreamTotals {
            id: id as u32,
            frames: s.frames.get(),
            bytes: s.bytes.get(),
        })
        .collect()
}

/// Prints to standard output (quiet once its reader has gone: see
/// [`crate::output::print`]).
pub struct Stdout;

impl Sink for Stdout {
    fn line(&mut self, s: &str) {
        crate::output::print(&format!("{s}\n"));
    }
}

/// Discards every line.
pub struct Quiet;

impl Sink for Quiet {
    fn line(&mut self, _: &str) {}
}

/// A runtime error about a profile field, as `file:line: field: message`.
pub(crate) fn perr(plan: &Plan, field: &str, message: impl std::fmt::Display) -> Error {
    Error::Config(plan.error(field, message.to_string()))
}

/// The EAL of a run, and the runtime directory it leaves behind (removed
/// after `rte_eal_cleanup`: fields drop in order).
pub struct Runtime {
    /// The ring mesh's rings (`eal.ring_mesh`), freed before the EAL ends.
    mesh: Option<dpdk::RingMesh>,
    eal: Eal,
    tsc_hz: u64,
    /// The host's TSC is not invariant: a problem of every result.
    tsc_problem: Option<Problem>,
    _run_dir: RunDirCleanup,
}

impl Runtime {
    /// Check that the profile's lcores exist, start the EAL, check the
    /// mbuf layout and every task's lcore, and measure the TSC.
    pub fn open(plan: &Plan) -> Result<Runtime> {
        devices::check_lcores_exist(plan)?;
        devices::check_host(plan)?;
        let run_dir = RunDirCleanup::for_plan(plan);
        let eal = Eal::init(&plan.eal.eal_args()).map_err(|e| eal_error(plan, &e))?;
        dpdk::check_layout()?;
        let mesh = match plan.eal.ring_mesh {
            0 => None,
            n => Some(dpdk::RingMesh::create(&eal, n).map_err(|e| perr(plan, "eal.ring_mesh", e))?),
        };
        for l in task_lcores(plan) {
            if !eal.lcore_enabled(l) {
                return Err(perr(
                    plan,
                    "eal.cores",
                    format!("lcore {l} is not enabled in the EAL"),
                ));
            }
            eal.worker_lcore(l)
                .map_err(|e| perr(plan, "eal.cores", e))?;
        }
        Ok(Runtime {
            mesh,
            eal,
            tsc_hz: clock::calibrate(TSC_CALIBRATION),
            tsc_problem: devices::tsc_problem(),
            _run_dir: run_dir,
        })
    }
}

/// Every task's lcore, TX tasks first.
fn task_lcores(plan: &Plan) -> impl Iterator<Item = u32> + '_ {
    let tx = plan.tx.iter().map(|t| t.lcore);
    tx.chain(plan.rx.iter().map(|t| t.lcore))
}

/// Why the EAL did not start, with what the profile may have got wrong.
fn eal_error(plan: &Plan, e: &DpdkError) -> Error {
    let hint = if e.errno == libc::ENODEV && !plan.eal.vdevs.is_empty() {
        format!(
            "; a device in eal.vdevs is not one DPDK knows or its arguments are wrong ({})",
            plan.eal.vdevs.join(", ")
        )
    } else {
        String::new()
    };
    perr(
        plan,
        if hint.is_empty() { "eal" } else { "eal.vdevs" },
        format!(
            "DPDK could not start: {e}{hint}{} (EAL arguments: {})",
            devices::prefix_in_use_hint(plan),
            plan.eal.eal_args()[1..].join(" ")
        ),
    )
}

/// An open, configured port of the run; it owns its pool.
struct PortRt<'rt> {
    port: Port<'rt>,
    /// The NIC computes TX checksums.
    tx_offload: bool,
    /// How its TX frames get their fill.
    payload: crate::tx_payload::PortPayload,
    /// Its RX queues drop at a full ring (`rx_drop_en`).
    rx_drop_en: bool,
    /// The MTU set for its frames (`None`: the driver's own).
    mtu_asked: Option<u16>,
    /// Its kernel interface's MTU, where it has one that carries it
    /// (mlx5) and it was read after the MTU was set.
    netdev_mtu: Option<u16>,
}

/// What a port said when it was started.
struct PortStart {
    /// Its link rate in bit/s (the profile's, else the driver's; 0 unknown).
    link_bps: u64,
    /// Where `link_bps` comes from.
    line: result::LineSource,
    /// Its counters at the start.
    before: PortStats,
}

/// Open and configure every port of the plan, each with its own pool.
fn open_ports<'rt>(rt: &'rt Runtime, plan: &Plan) -> Result<Vec<PortRt<'rt>>> {
    (0..plan.ports.len())
        .map(|i| open_port(rt, plan, i))
        .collect()
}

/// Open port `i`, size and create its pool, and configure it.
fn open_port<'rt>(rt: &'rt Runtime, plan: &Plan, i: usize) -> Result<PortRt<'rt>> {
    let pp = &plan.ports[i];
    let field = format!("ports[{i}]");
    let mut port = open_device(rt, plan, i)?;
    let info = port.info().clone();
    let size = devices::port_sizing(plan, i, &port)?;
    for w in devices::numa_warnings(plan, i, info.socket, |l| rt.eal.lcore_socket(l)) {
        let _ = writeln!(std::io::stderr(), "landspeed: warning: {w}");
    }
    let mbufs = size.mbufs;
    let pool = Mempool::create(
        &rt.eal,
        &format!("ls_pool{i}"),
        mbufs,
        size.room,
        info.socket,
    )
    .map_err(|e| perr(plan, &field, e))?;
    // `auto` keeps the checksums in software where asking the NIC would
    // take the driver off its vector TX path.
    let can_offload = match pp.checksum {
        Checksum::Auto => {
            crate::limits::pmd::checksum_auto_offloads(&info.driver, info.tx_checksum_offload())
        }
        _ => info.tx_checksum_offload(),
    };
    let tx_offload = match pp.checksum.resolve(can_offload) {
        Some(mode) => mode == CsumMode::Offload,
        None => {
            return Err(perr(
                plan,
                &format!("ports[{i}].checksum"),
                format!(
                    "offload asked but {} ({}) cannot compute TX checksums",
                    info.name, info.driver
                ),
            ))
        }
    };
    let payload = crate::tx_payload::resolve(plan, i, &info, size.rings.1);
    let cfg = PortConfig {
        rx_queues: pp.rx_queues,
        tx_queues: pp.tx_queues,
        rx_ring: size.rings.0,
        tx_ring: size.rings.1,
        max_frame: size.max_frame,
        mtu: size.mtu,
        rx_scatter: size.rx_scatter,
        tx_checksum_offload: tx_offload,
        tx_multi_segs: payload.attach_from.is_some(),
        tx_one_pool: tasks::port_one_pool(plan, i),
        rx_drop_en: crate::limits::pmd::rx_drop_en(pp.rx_queues.max(1)),
        rx_checksum_offload: info.rx_checksum_offload(),
        rx_timestamp: crate::clock::nic::asks_rx_timestamp(
            (plan.rx.iter().filter(|r| r.port == i)).map(|r| r.timestamps),
            port.offers_rx_timestamp(),
            port.lacks_clock(),
        ),
        promiscuous: pp.promiscuous,
    };
    port.configure(&cfg, pool)
        .map_err(|e| perr(plan, &field, e))?;
    let (mtu_asked, netdev_mtu) = devices::apply_mtu(plan, i, &port, &size)?;
    if payload.attach_from.is_some() {
        let segs = crate::tx_payload::segment_pool(&rt.eal, plan, i, payload, mbufs, info.socket);
        (segs.and_then(|p| port.set_segment_pool(p))).map_err(|e| perr(plan, &field, e))?;
    }
    Ok(PortRt {
        port,
        tx_offload,
        payload,
        rx_drop_en: cfg.rx_drop_en,
        mtu_asked,
        netdev_mtu,
    })
}

/// Open the device of port `i`, saying what is likely wrong when DPDK
/// does not know it.
fn open_device<'rt>(rt: &'rt Runtime, plan: &Plan, i: usize) -> Result<Port<'rt>> {
    let pp = &plan.ports[i];
    Port::by_name(&rt.eal, pp.device.name()).map_err(|e| {
        let hint = match &pp.device {
            Device::Vdev(v) => match devices::missing_af_packet_iface(plan, v) {
                Some(iface) => format!(
                    "vdev {v}: interface {iface} does not exist in this network namespace \
                     (af_packet needs an existing interface; run inside its namespace with \
                     `ip netns exec NS landspeed run ...`)"
                ),
                None => format!(
                    "vdev {v}: DPDK did not create it (unknown driver name or bad arguments)"
                ),
            },
            Device::Pci(a) => format!("PCI device {a}: not found or not bound to a DPDK driver"),
        };
        perr(plan, &format!("ports[{i}].device"), format!("{hint}: {e}"))
    })
}

/// Start every port: its queue handles, link rate and counters at start.
fn start_ports<'q>(
    plan: &Plan,
    ports: &'q [PortRt<'_>],
) -> Result<(Vec<Queues<'q>>, Vec<PortStart>)> {
    let (mut queues, mut starts) = (Vec::new(), Vec::new());
    for (i, pr) in ports.iter().enumerate() {
        queues.push(
            pr.port
                .start()
                .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?,
        );
        let mut say = |l: &str| eprintln!("landspeed: {l}");
        let (link, wait) = devices::wait_link(plan, i, &pr.port, devices::LINK_WAIT, &mut say);
        if let devices::LinkWait::Down(waited) = wait {
            return Err(devices::link_down_error(plan, i, pr.port.info(), waited));
        }
        let declared = plan.ports[i].link.map(|kind| kind.mac_bps() as u64);
        let (link_bps, line) = tasks::port_line(declared, link.speed_mbps);
        starts.push(PortStart {
            link_bps,
            line,
            before: pr.port.stats(),
        });
    }
    Ok((queues, starts))
}

/// What `landspeed doctor` learns of one port of a profile by opening it
/// as a run would, once, without traffic.
#[derive(Clone, Debug)]
pub struct PortLook {
    /// The profile's name for the port.
    pub name: String,
    /// DPDK's device name.
    pub device: String,
    /// The DPDK driver.
    pub driver: String,
    /// How it was set up and the burst paths its driver chose.
    pub setup: result::PortSetup,
    /// The offloads the driver offers (their names).
    pub offered: Vec<String>,
    /// Every TX queue sends from one pool, whatever the task: fast free
    /// is safe.
    pub fast_free_safe: bool,
    /// Whether the driver offers fast free.
    pub fast_free_offered: bool,
    /// The MTU the run sets (`None`: the driver's own) and the one read
    /// back.
    pub mtu: (Option<u16>, u16),
    /// The link after up to two seconds.
    pub link: dpdk::LinkStatus,
    /// What became of its 802.3x flow control.
    pub flow_control: Option<dpdk::FlowControl>,
}

/// How long `landspeed doctor` waits for a port's link.
const DOCTOR_LINK_WAIT: Duration = Duration::from_secs(2);

/// Opens, configures and starts every port of `plan` once, as a run
/// would (the EAL, pools, offloads, MTU set and read back), and reports
/// what each port's driver chose; no frame is sent. An error is what a
/// run would have failed with.
pub fn inspect_ports(plan: &Plan) -> Result<Vec<PortLook>> {
    let rt = Runtime::open(plan)?;
    let ports = open_ports(&rt, plan)?;
    let mut looks = Vec::new();
    for (i, pr) in ports.iter().enumerate() {
        let queues = pr
            .port
            .start()
            .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?;
        let mut quiet = |_: &str| {};
        let (link, _) = devices::wait_link(plan, i, &pr.port, DOCTOR_LINK_WAIT, &mut quiet);
        let info = pr.port.info();
        looks.push(PortLook {
            name: plan.ports[i].name.clone(),
            device: info.name.clone(),
            driver: info.driver.clone(),
            setup: port_setup(pr),
            offered: (info.offload_names().into_iter())
                .map(String::from)
                .collect(),
            fast_free_safe: tasks::port_one_pool(plan, i),
            fast_free_offered: dpdk::offload_names(0, info.tx_offload_capa)
                .contains(&"tx-mbuf-fast-free"),
            mtu: (pr.mtu_asked, pr.port.mtu()),
            link,
            flow_control: pr.port.flow_control(),
        });
        drop(queues);
    }
    close_ports(&rt, ports);
    Ok(looks)
}

/// Run `plan` to completion. `stop_early` is polled by the reporter (set by
/// a signal handler) to end the run before its duration.
pub fn execute(plan: &Plan, sink: &mut dyn Sink, stop_early: &StopFlag) -> Result<RunResult> {
    let rt = Runtime::open(plan)?;
    let ports = open_ports(&rt, plan)?;
    let (queues, starts) = start_ports(plan, &ports)?;
    // The streams' template pools outlive the ports their mbufs are sent
    // on, and are counted once the ports are closed.
    let mut tx_pools = Vec::new();
    let mut handles = Handles::new(queues);
    let on = Started {
        plan,
        rt: &rt,
        ports: &ports,
        starts: &starts,
    };
    let mut tasks = tasks::plan_tasks(&rt.eal, &on, &mut handles, Some(&mut tx_pools), Vec::new())?;
    let departures = depart::Departures::plan(plan, &ports, &mut handles, &mut tasks);
    drop(handles);
    let meta = TaskLayout::of(plan, &ports, &starts, &tasks);
    let grace = drain_grace(plan, &ports);
    let mut watch = PortWatch::new(plan, &ports, &starts, departures);
    let mut console = Console { sink, stop_early };
    let (outcomes, timing) = dpdk::scope(&rt.eal, |s| {
        run_workers(s, &rt.eal, plan, &mut console, tasks, grace, &mut watch)
    })?;
    let watched = PortsWatched {
        stats: (ports.iter().enumerate())
            .map(|(i, p)| watch.stats(i, p.port.stats()))
            .collect(),
        problems: watch.problems(timing.elapsed_s),
        errors: (0..ports.len()).map(|i| watch.errors(i)).collect(),
        control: (0..ports.len()).map(|i| watch.control(i)).collect(),
    };
    drop(watch);
    let ended = Ended {
        layout: meta,
        outcomes,
        timing,
        watched,
    };
    let mut result = build_result(&on, ended)?;
    result.mbufs_leaked = close_ports(&rt, ports);
    result.mbufs_leaked += tx_pools.iter().map(|p| u64::from(p.in_use())).sum::<u64>();
    Ok(result)
}

/// A plan over its started ports: what the stages from planning the
/// tasks to building the result share, in a run and in each trial of a
/// certification.
#[derive(Clone, Copy)]
struct Started<'a, 'p> {
    /// The plan (a trial's, in a certification).
    plan: &'a Plan,
    /// The EAL, the TSC and the host's facts.
    rt: &'a Runtime,
    /// The open ports, in the plan's order.
    ports: &'a [PortRt<'p>],
    /// Each port as it started.
    starts: &'a [PortStart],
}

/// What a run or a trial leaves to report once its workers ended.
struct Ended {
    /// What the result needs to know of the tasks.
    layout: TaskLayout,
    /// What the workers returned.
    outcomes: Outcomes,
    /// The intervals and the measured span.
    timing: Timing,
    /// What was seen of the ports.
    watched: PortsWatched,
}

/// Where a run reports as it goes, and what stops it early (a signal).
struct Console<'a> {
    sink: &'a mut dyn Sink,
    stop_early: &'a StopFlag,
}

/// What the report loop saw of the ports: each one's counters at the end
/// (the highest read, where a driver reset them) and the link outages.
struct PortsWatched {
    stats: Vec<PortStats>,
    problems: Vec<Problem>,
    /// Each port's error counters interval by interval (empty: not read
    /// per interval).
    errors: Vec<ErrorSeries>,
    /// Each port's departure handshake control frames (empty: none).
    control: Vec<Option<result::ControlFrames>>,
}

/// What the result needs to know of the tasks once they have run.
struct TaskLayout {
    tx: Vec<collect::TxMeta>,
    /// Each RX task's lcore and port id.
    rx: Vec<(u32, u16)>,
    /// Some receiver shares the senders' TSC.
    shared_tsc: bool,
}

impl TaskLayout {
    fn of(plan: &Plan, ports: &[PortRt], starts: &[PortStart], tasks: &Tasks) -> TaskLayout {
        let tx = (tasks.tx.iter().zip(&plan.tx))
            .map(|(t, pt)| collect::TxMeta {
                lcore: t.lcore,
                port: t.queue.port_id(),
                queue: t.queue.id(),
                rate: t.rate,
                mode: t.mode,
                line_bps: t.line_bps,
                has_line: !VIRTUAL_DRIVERS.contains(&ports[pt.port].port.info().driver.as_str()),
                line_source: starts[pt.port].line,
                pattern: t.pattern,
            })
            .collect();
        let rx = (tasks.rx.iter().zip(&plan.rx))
            .map(|(t, r)| (t.lcore, ports[r.port].port.id()))
            .collect();
        TaskLayout {
            tx,
            rx,
            shared_tsc: tasks.rx.iter().any(|t| t.shared_tsc),
        }
    }
}

/// Drivers of virtual devices that have no line rate: the speed they
/// report (10 Gbit/s for null), or the profile's `link:`, resolves rates
/// such as `95%` and plans gap frames, but limits nothing they carry.
const VIRTUAL_DRIVERS: [&str; 4] = ["net_null", "net_ring", "net_pcap", "net_memif"];

/// How long receivers keep running after the senders stopped.
fn drain_grace(plan: &Plan, ports: &[PortRt]) -> Duration {
    let (has_tx, has_rx) = (!plan.tx.is_empty(), !plan.rx.is_empty());
    if has_rx && (has_tx || plan.run.until_stopped) {
        IN_FLIGHT_GRACE
    } else if has_tx && ports.iter().any(|p| p.port.info().driver == "net_memif") {
        MEMIF_PEER_GRACE
    } else {
        Duration::ZERO
    }
}

/// Each task's live counters, for the reporter.
struct LiveCounters {
    tx: Vec<Arc<Padded<TxLive>>>,
    rx: Vec<Arc<Padded<RxLive>>>,
}

/// The workers of a run, in the plan's order.
struct Workers<'scope> {
    tx: Vec<Worker<'scope, (TxOutcome, Option<CpuTime>)>>,
    rx: Vec<Worker<'scope, (RxOutcome, Option<CpuTime>)>>,
}

/// What the workers returned.
struct Outcomes {
    tx: Vec<TxOutcome>,
    rx: Vec<RxOutcome>,
    /// Each TX worker's thread time (`None`: the kernel keeps none).
    tx_cpu: Vec<Option<CpuTime>>,
    /// Each RX worker's thread time.
    rx_cpu: Vec<Option<CpuTime>>,
}

/// The report loop's intervals and the run's measured span.
struct Timing {
    intervals: Vec<Interval>,
    /// The counters and the time (s) the last interval starts from; it is
    /// closed once the workers have ended, at the counters the totals are.
    open: (Snapshot, f64),
    /// The TSC frequency measured over the run itself.
    tsc_hz_run: u64,
    /// Seconds from launch to stop.
    elapsed_s: f64,
    /// A watched memif port whose peer left ([`Problem::PeerLeft`]).
    peer_left: Option<Problem>,
    /// The synchronised clocks, a pair read every interval.
    syncs: clock::Syncs,
    /// The wall clock when the workers were launched, ns since the epoch.
    started_unix_ns: u64,
    /// The TSC read then.
    started_tsc: u64,
}

/// Sets both stop flags when dropped: however the body of the scope ends
/// (an error while launching included), no worker is left polling when the
/// scope waits for them.
struct StopAll(Arc<StopFlag>, Arc<StopFlag>);

impl Drop for StopAll {
    fn drop(&mut self) {
        self.0.stop();
        self.1.stop();
    }
}

/// Launch, report, collect: the body of the run's scope.
fn run_workers<'scope, 'q: 'scope>(
    s: &'scope Scope<'scope, '_>,
    eal: &Eal,
    plan: &Plan,
    console: &mut Console,
    mut tasks: Tasks<'q>,
    grace: Duration,
    watch: &mut PortWatch,
) -> Result<(Outcomes, Timing)> {
    let mut syncs = std::mem::take(&mut tasks.syncs);
    let _stop_all = StopAll(Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let (stop_tx, stop_rx) = (Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let live = LiveCounters {
        tx: tasks.tx.iter().map(|t| Arc::clone(&t.live)).collect(),
        rx: tasks.rx.iter().map(|t| Arc::clone(&t.live)).collect(),
    };
    wait_for_start(plan.run.start_at, console.stop_early)?;
    let started_unix_ns = unix_ns(std::time::SystemTime::now());
    let started = Instant::now();
    let t0 = clock::sample();
    let workers = launch(s, eal, plan, tasks)?;
    let clock = (started, t0);
    let mut timing = report_loop(plan, console, &live, &stop_tx, clock, watch, &mut syncs);
    timing.syncs = syncs;
    timing.started_unix_ns = started_unix_ns;
    timing.started_tsc = t0.tsc;
    let (outcomes, rx_end_s) =
        collect(workers, &stop_rx, grace, console.stop_early, started, watch);
    close_last_interval(plan, console.sink, &live, &mut timing, rx_end_s, watch);
    Ok((outcomes, timing))
}

/// `t` in ns since the Unix epoch (0 before it).
fn unix_ns(t: std::time::SystemTime) -> u64 {
    t.duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Waits until the wall clock reaches `at` (`run --start-at`), if given:
/// asleep until the last 2 ms, which it spins through. A time already
/// passed (the ports took longer to come up) is an error before any frame
/// is sent, as is a stop asked for meanwhile.
fn wait_for_start(at: Option<std::time::SystemTime>, stop: &StopFlag) -> Result<()> {
    let Some(at) = at else { return Ok(()) };
    let option = |message: String| Error::Option {
        option: format!("--start-at {:.3}", unix_ns(at) as f64 / 1e9),
        message,
    };
    if let Ok(late) = std::time::SystemTime::now().duration_since(at) {
        return Err(option(format!(
            "the time passed {:.3} s before the ports were up: give a later one",
            late.as_secs_f64()
        )));
    }
    loop {
        let Ok(left) = at.duration_since(std::time::SystemTime::now()) else {
            return Ok(());
        };
        if stop.stopped() {
            return Err(option("stopped before the start time".into()));
        }
        if left > Duration::from_millis(2) {
            std::thread::sleep((left - Duration::from_millis(2)).min(REPORT_POLL));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Launch every task on its lcore, receivers first.
fn launch<'scope, 'q: 'scope>(
    s: &'scope Scope<'scope, '_>,
    eal: &Eal,
    plan: &Plan,
    tasks: Tasks<'q>,
) -> Result<Workers<'scope>> {
    let rx = launch_each(
        s,
        eal,
        plan,
        "rx",
        tasks.rx,
        |t| t.lcore,
        |t| {
            let live = Arc::clone(&t.live);
            timed_as(&live.tid, || rx::run(t))
        },
    )?;
    let tx = launch_each(
        s,
        eal,
        plan,
        "tx",
        tasks.tx,
        |t| t.lcore,
        |t| {
            let live = Arc::clone(&t.live);
            timed_as(&live.tid, || tx::run(t))
        },
    )?;
    Ok(Workers { tx, rx })
}

/// Launches `work` on each of `tasks`, in order, on the lcore `lcore_of`
/// names: the one launch loop of a run and of a certification trial. An
/// lcore the EAL lacks or DPDK refuses is the plan's error at
/// `{side}[i].lcore`; the workers launched before it are left to the
/// scope, which stops and waits for them.
pub(super) fn launch_each<'scope, T, R>(
    s: &'scope Scope<'scope, '_>,
    eal: &Eal,
    plan: &Plan,
    side: &str,
    tasks: Vec<T>,
    lcore_of: impl Fn(&T) -> u32,
    work: impl FnOnce(T) -> R + Copy + Send + 'scope,
) -> Result<Vec<Worker<'scope, R>>>
where
    T: Send + 'scope,
    R: Send + 'scope,
{
    let mut workers = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.into_iter().enumerate() {
        let field = format!("{side}[{i}].lcore");
        let lcore = eal
            .worker_lcore(lcore_of(&t))
            .map_err(|e| perr(plan, &field, e))?;
        let w = s.launch(lcore, move || work(t));
        workers.push(w.map_err(|e| perr(plan, &field, e))?);
    }
    Ok(workers)
}

/// Runs a worker's loop and reads its thread's scheduler counters once
/// before and once after it (on the worker's own thread).
fn timed<T>(work: impl FnOnce() -> T) -> (T, Option<CpuTime>) {
    let start = sched::Start::now();
    let out = work();
    (out, start.finish())
}

/// [`timed`], the worker's thread id published in `tid` first (the
/// reporter reads its scheduler counters as the run goes).
fn timed_as<T>(tid: &crate::counter::Counter, work: impl FnOnce() -> T) -> (T, Option<CpuTime>) {
    tid.set(sched::thread_id().unwrap_or(0));
    timed(work)
}

/// Print an interval line every `plan.run.interval`, empty ones included,
/// watching the ports' links meanwhile, until the duration is over,
/// `stop_early` is set or a watched memif peer left; then stop the
/// senders. The last interval is left open for [`close_last_interval`].
fn report_loop(
    plan: &Plan,
    console: &mut Console,
    live: &LiveCounters,
    stop_tx: &StopFlag,
    (started, t0): (Instant, TscSample),
    watch: &mut PortWatch,
    syncs: &mut clock::Syncs,
) -> Timing {
    let (has_tx, has_rx) = (!plan.tx.is_empty(), !plan.rx.is_empty());
    let Console { sink, stop_early } = console;
    sink.line(&report::interval_header(has_tx, has_rx));
    let total = plan.run.duration;
    let mut intervals = Vec::new();
    // Every counter starts at zero, before the workers were launched.
    let mut prev = Snapshot::default();
    let mut prev_t = 0.0f64;
    let mut next_tick = plan.run.interval.min(total);
    let mut peer_left = None;
    let mut shares = shares::Shares::default();
    shares.update(&live.tx, &live.rx);
    loop {
        let now = started.elapsed();
        watch.poll(now.as_secs_f64());
        if stop_early.stopped() || now >= total || all_sent(plan, live) {
            break;
        }
        if let Some(p) = watch.peer_left() {
            peer_left = Some(p);
            break;
        }
        if now >= next_tick {
            let cur = snapshot(live);
            let t = now.as_secs_f64();
            let mut iv = cur.interval_since(&prev, prev_t, t);
            iv.add_errors(&watch.close_interval(prev_t, t));
            sink.line(&report::interval_line(&iv, has_tx, has_rx));
            let now_shares = shares.update(&live.tx, &live.rx);
            sink.totals(&totals(plan, live, t, false, &now_shares));
            intervals.push(iv);
            prev = cur;
            prev_t = t;
            next_tick += plan.run.interval;
            syncs.tick();
            continue;
        }
        std::thread::sleep((next_tick.min(total) - now).min(REPORT_POLL));
    }
    stop_tx.stop();
    let end = clock::sample();
    let elapsed_s = started.elapsed().as_secs_f64();
    watch.poll(elapsed_s);
    Timing {
        intervals,
        open: (prev, prev_t),
        tsc_hz_run: clock::hz_between(t0, end),
        elapsed_s,
        peer_left,
        syncs: clock::Syncs::default(),
        started_unix_ns: 0,
        started_tsc: 0,
    }
}

/// Every TX task has a frame limit (`tx[].frames`) and has sent it: the
/// run is over (less the grace that lets the last frames arrive).
fn all_sent(plan: &Plan, live: &LiveCounters) -> bool {
    !plan.run.until_stopped
        && !plan.tx.is_empty()
        && plan
            .tx
            .iter()
            .zip(&live.tx)
            .all(|(t, l)| t.frames.is_some_and(|n| l.frames.get() >= n))
}

/// Close the last interval once the workers have ended, at the counters
/// their totals are (so the intervals add up to the totals exactly): TX
/// up to the stop, RX up to `rx_end_s`, when the receivers stopped. It is
/// printed unless it is empty and shorter than a millisecond.
fn close_last_interval(
    plan: &Plan,
    sink: &mut dyn Sink,
    live: &LiveCounters,
    timing: &mut Timing,
    rx_end_s: f64,
    watch: &mut PortWatch,
) {
    let (has_tx, has_rx) = (!plan.tx.is_empty(), !plan.rx.is_empty());
    let (prev, prev_t) = timing.open;
    let mut iv = snapshot(live).interval_since(&prev, prev_t, timing.elapsed_s);
    if has_rx {
        iv.rx.end_s = rx_end_s.max(iv.rx.start_s);
    }
    // The ports' counters as the workers left them: the last interval
    // takes every error the run counted.
    let end_s = iv.tx.end_s.max(iv.rx.end_s);
    iv.add_errors(&watch.close_interval(prev_t, end_s));
    let empty = iv.tx.frames == 0 && iv.rx.frames == 0 && !iv.has_errors();
    if !empty || iv.tx.secs().max(iv.rx.secs()) > 0.001 {
        sink.line(&report::interval_line(&iv, has_tx, has_rx));
        timing.intervals.push(iv);
    }
    sink.totals(&totals(plan, live, end_s, true, &shares::Now::default()));
}

/// Join the senders (already told to stop), give frames in flight `grace`
/// to arrive (cut short when `stop_early` is hurried: a second signal),
/// then stop and join the receivers. Returns the outcomes and when
/// (seconds since `started`) the receivers were stopped.
fn collect(
    workers: Workers,
    stop_rx: &StopFlag,
    grace: Duration,
    stop_early: &StopFlag,
    started: Instant,
    watch: &mut PortWatch,
) -> (Outcomes, f64) {
    let (tx, tx_cpu) = workers.tx.into_iter().map(Worker::join).unzip();
    watch.senders_stopped(started.elapsed().as_secs_f64(), stop_early);
    let end = Instant::now() + grace;
    while !stop_early.hurried() && Instant::now() < end {
        std::thread::sleep(REPORT_POLL.min(end.saturating_duration_since(Instant::now())));
    }
    watch.receivers_stopping(stop_early);
    stop_rx.stop();
    let rx_end_s = started.elapsed().as_secs_f64();
    let (rx, rx_cpu) = workers.rx.into_iter().map(Worker::join).unzip();
    (
        Outcomes {
            tx,
            rx,
            tx_cpu,
            rx_cpu,
        },
        rx_end_s,
    )
}

/// Close the ports; returns the mbufs not back in their pools once each
/// port's rings were freed (what is not was leaked somewhere).
fn close_ports(rt: &Runtime, ports: Vec<PortRt>) -> u64 {
    // Frames still in a ring mesh belong to their senders' pools: freed
    // before the pools are.
    if let Some(mesh) = &rt.mesh {
        mesh.drain();
    }
    // Every mbuf must be back in its pool once its port is closed (its
    // rings freed): what is not was leaked somewhere.
    ports
        .into_iter()
        .flat_map(|p| p.port.close_pools())
        .map(|pool| u64::from(pool.in_use()))
        .sum()
}

/// Save the traces, take the PMD's counters, build the result and its
/// outcome; the ports stay open (a certification runs its next trial on
/// them).
fn build_result(on: &Started, ended: Ended) -> Result<RunResult> {
    let Started {
        plan,
        rt,
        ports,
        starts,
    } = *on;
    let Ended {
        layout: meta,
        outcomes,
        timing,
        watched,
    } = ended;
    save_traces(plan, &outcomes.tx)?;
    save_captures(plan, &outcomes.rx)?;
    let port_results = port_results(plan, ports, starts, &watched);
    let mut result = RunResult::new(
        &plan.origin,
        rt.tsc_hz,
        timing.tsc_hz_run,
        timing.elapsed_s,
        port_results,
        timing.intervals,
    );
    add_task_results(plan, &mut result, &meta, &outcomes, starts);
    note_captures(plan, &mut result, &outcomes.rx);
    result.started_unix_ns = timing.started_unix_ns;
    for s in result.rx.iter_mut().flat_map(|rx| rx.streams.iter_mut()) {
        s.map_arrivals(timing.started_tsc, timing.started_unix_ns, rt.tsc_hz);
    }
    let mut syncs = timing.syncs;
    syncs.record(&mut result);
    let mut problems = flow_control_problems(plan, &result.ports);
    problems.extend(result.ports.iter().flat_map(PortResult::error_problems));
    problems.extend(watched.problems);
    add_problems(&mut result, problems);
    result.outcome.problems.extend(rt.tsc_problem.clone());
    result.note_descheduled();
    if let Some(p) = timing.peer_left {
        result.outcome.target_met = Some(false);
        result.outcome.add(p);
    }
    Ok(result)
}

/// A [`Problem::FlowControlNotOff`] for each PCI port whose flow control
/// is not known to be off.
fn flow_control_problems(plan: &Plan, ports: &[PortResult]) -> Vec<Problem> {
    (ports.iter().zip(&plan.ports))
        .filter_map(|(r, p)| r.flow_control_problem(matches!(p.device, Device::Pci(_))))
        .collect()
}

/// The outcome's TX target and problems: each task that missed its
/// target, each link that went down (a receiving link's outage also
/// qualifies the verdict).
fn add_problems(result: &mut RunResult, links: Vec<Problem>) {
    if let Some(tx) = &result.tx {
        result.outcome.target_met = tx.target_met;
        for t in tx.tasks.iter().filter(|t| t.target_met == Some(false)) {
            result.outcome.add(Problem::TargetMissed {
                lcore: t.lcore,
                port: t.port,
                layer: t.target_layer.clone(),
                target_per_sec: t.target_per_sec,
                achieved_per_sec: t.target_per_sec as f64 * t.achieved_pct / 100.0,
                achieved_pct: t.achieved_pct,
                refused: t.refused,
                alloc_failed: t.alloc_failed,
            });
        }
    }
    if let Some(v) = result.verdict.as_mut() {
        let all: Vec<Problem> = (result.outcome.problems.iter())
            .chain(&links)
            .cloned()
            .collect();
        report::qualify::qualify(v, &all);
    }
    for p in links {
        result.outcome.add(p);
    }
}

/// Departure traces, where the profile asked for them, each written whole
/// or not at all (a temporary file renamed over it).
fn save_traces(plan: &Plan, tx: &[TxOutcome]) -> Result<()> {
    for (ti, (o, t)) in tx.iter().zip(&plan.tx).enumerate() {
        if let Some(path) = &t.trace {
            let field = format!("tx[{ti}].trace");
            let fail =
                |e: &dyn std::fmt::Display| perr(plan, &field, format!("{}: {e}", path.display()));
            let mut bytes = Vec::new();
            o.recorder
                .to_trace()
                .write_to(&mut bytes)
                .map_err(|e| fail(&e))?;
            crate::output::write_atomic("trace", path, &bytes).map_err(|e| match e {
                Error::Io { source, .. } => fail(&source),
                other => other,
            })?;
        }
    }
    Ok(())
}

/// Writes each RX task's capture (`rx[].capture`) as a pcap file.
fn save_captures(plan: &Plan, rx: &[RxOutcome]) -> Result<()> {
    for (ri, (o, t)) in rx.iter().zip(&plan.rx).enumerate() {
        let (Some(c), Some(p)) = (&o.capture, &t.capture) else {
            continue;
        };
        let field = format!("rx[{ri}].capture.file");
        let fail =
            |e: &dyn std::fmt::Display| perr(plan, &field, format!("{}: {e}", p.file.display()));
        let mut bytes = Vec::new();
        c.write_pcap(&mut bytes).map_err(|e| fail(&e))?;
        crate::output::write_atomic("capture", &p.file, &bytes).map_err(|e| match e {
            Error::Io { source, .. } => fail(&source),
            other => other,
        })?;
    }
    Ok(())
}

/// What each RX task's capture kept, in its task's result.
fn note_captures(plan: &Plan, result: &mut RunResult, rx: &[RxOutcome]) {
    let Some(r) = &mut result.rx else { return };
    for ((t, o), p) in r.tasks.iter_mut().zip(rx).zip(&plan.rx) {
        if let (Some(c), Some(p)) = (&o.capture, &p.capture) {
            t.capture = Some(result::CaptureResult {
                file: p.file.display().to_string(),
                frames_seen: c.seen(),
                frames_kept: c.kept() as u64,
                snap: c.snap() as u64,
            });
        }
    }
}

/// Each port's counters over the run (from `seen`, their values at the
/// end), its non-zero extended stats, its error counters interval by
/// interval and its handshake's control frames.
fn port_results(
    plan: &Plan,
    ports: &[PortRt],
    starts: &[PortStart],
    watched: &PortsWatched,
) -> Vec<PortResult> {
    (ports.iter().zip(starts).enumerate())
        .map(|(i, (pr, up))| {
            let info = pr.port.info();
            PortResult {
                name: plan.ports[i].name.clone(),
                device: info.name.clone(),
                driver: info.driver.clone(),
                link_bps: up.link_bps,
                line_source: up.line,
                stats: watched.stats[i].since(&up.before),
                xstats: (pr.port.xstats().into_iter())
                    .filter(|(_, v)| *v != 0)
                    .collect(),
                mtu: pr.port.mtu(),
                rx_mbuf_room: pr.port.frame_room(),
                flow_control: pr.port.flow_control(),
                errors: watched.errors.get(i).cloned().unwrap_or_default(),
                timestamps: None,
                control: watched.control.get(i).copied().flatten(),
                setup: Some(port_setup(pr)),
            }
        })
        .collect()
}

/// How port `pr` was set up and the burst paths its driver chose (asked
/// now: the port is started); ixgbe's TX path, which it cannot report,
/// inferred from the offloads asked.
fn port_setup(pr: &PortRt) -> result::PortSetup {
    let port = &pr.port;
    let modes = port.burst_modes();
    let (rx_bits, tx_bits) = port.offloads_asked();
    let names = |rx, tx| -> Vec<String> {
        (dpdk::offload_names(rx, tx).into_iter())
            .map(String::from)
            .collect()
    };
    let driver = &port.info().driver;
    result::PortSetup {
        tx_path: (modes.tx)
            .or_else(|| crate::limits::pmd::inferred_tx_path(driver, tx_bits).map(String::from)),
        rx_path: modes.rx,
        tx_offloads: names(0, tx_bits),
        rx_offloads: names(rx_bits, 0),
        fast_free: port.fast_free(),
        rx_drop_en: pr.rx_drop_en,
        netdev_mtu: pr.netdev_mtu,
    }
}

/// The names of the plan's TX ports and their drivers, each once,
/// comma-separated.
fn tx_port_names(plan: &Plan, result: &RunResult) -> (String, String) {
    let mut idx: Vec<usize> = plan.tx.iter().map(|t| t.port).collect();
    idx.sort_unstable();
    idx.dedup();
    let join =
        |f: &dyn Fn(usize) -> String| idx.iter().map(|&i| f(i)).collect::<Vec<_>>().join(", ");
    (
        join(&|i| plan.ports[i].name.clone()),
        join(&|i| result.ports[i].driver.clone()),
    )
}

/// The TX and RX sections of the result, and the verdict.
fn add_task_results(
    plan: &Plan,
    result: &mut RunResult,
    meta: &TaskLayout,
    outcomes: &Outcomes,
    starts: &[PortStart],
) {
    let names: Vec<(u32, String)> = (plan.streams.iter())
        .map(|s| (s.id, s.name.clone()))
        .collect();
    // Each port once, however many tasks use it.
    let sum_ports = |idx: &mut dyn Iterator<Item = usize>| {
        let mut seen = Vec::new();
        let mut total = PortStats::default();
        for i in idx {
            if !seen.contains(&i) {
                seen.push(i);
                total += result.ports[i].stats;
            }
        }
        total
    };
    let tx_pmd = sum_ports(&mut plan.tx.iter().map(|t| t.port));
    let rx_pmd = sum_ports(&mut plan.rx.iter().map(|t| t.port));
    if !plan.tx.is_empty() {
        let mut tx = collect::tx_result(&meta.tx, &names, &outcomes.tx, &tx_pmd, result.tsc_hz);
        result::set_cpu_times(&mut tx.tasks, &outcomes.tx_cpu);
        let (ports, drivers) = tx_port_names(plan, result);
        if let Some(p) = collect::gap_frames_unsent(&tx, &ports, &drivers) {
            result.outcome.add(p);
        }
        result.tx = Some(tx);
    }
    if plan.rx.is_empty() {
        return;
    }
    let secs = result.elapsed_s;
    let mut rx = collect::rx_result(
        &meta.rx,
        &outcomes.rx,
        rx_pmd,
        secs,
        result.tsc_hz,
        meta.shared_tsc,
    );
    result::set_cpu_times(&mut rx.tasks, &outcomes.rx_cpu);
    for p in rx.problems() {
        result.outcome.add(p);
    }
    result.rx = Some(rx);
    let rx_port = &plan.ports[plan.rx[0].port];
    let link = rx_port.link.or_else(|| {
        LinkKind::from_speed_mbps((starts[plan.rx[0].port].link_bps / 1_000_000) as u32)
    });
    // The receiving NIC's bus: the profile's setting, else what sysfs
    // says of a PCI device (PCIe speed and width).
    let bus = rx_port.bus.or_else(|| match &rx_port.device {
        Device::Pci(addr) => {
            crate::limits::bus::detect_from_sysfs(addr, std::path::Path::new("/sys"))
                .ok()
                .flatten()
        }
        Device::Vdev(_) => None,
    });
    collect::judge(result, link, bus, plan);
}

/// Counter totals at one moment.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    /// TX frames.
    pub tx_frames: u64,
    /// TX bytes (L2).
    pub tx_bytes: u64,
    /// RX frames.
    pub rx_frames: u64,
    /// RX bytes (L2).
    pub rx_bytes: u64,
    /// RX lost so far.
    pub rx_lost: u64,
}

impl Snapshot {
    fn interval_since(&self, prev: &Snapshot, start_s: f64, end_s: f64) -> Interval {
        Interval {
            tx: Span {
                start_s,
                end_s,
                frames: self.tx_frames - prev.tx_frames,
                bytes: self.tx_bytes - prev.tx_bytes,
            },
            rx: Span {
                start_s,
                end_s,
                frames: self.rx_frames - prev.rx_frames,
                bytes: self.rx_bytes - prev.rx_bytes,
            },
            rx_lost: self.rx_lost,
            ..Interval::default()
        }
    }
}

/// The live counters summed over every worker.
fn snapshot(live: &LiveCounters) -> Snapshot {
    let mut s = Snapshot::default();
    for t in &live.tx {
        s.tx_frames += t.frames.get();
        s.tx_bytes += t.bytes.get();
    }
    for r in &live.rx {
        s.rx_frames += r.frames.get();
        s.rx_bytes += r.bytes.get();
        s.rx_lost += r.lost.get();
    }
    s
}
