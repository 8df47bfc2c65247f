//! One run of a plan: start the EAL, bring the ports up, launch the TX and
//! RX lcores, report each interval from the main lcore, stop, join, and
//! build the [`RunResult`].
//!
//! Teardown order is fixed by ownership: workers are joined before ports
//! are dropped (stopped and closed), ports before mempools, mempools before
//! the EAL.

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{Clock, Device, Plan, RxStreams};
use crate::counter::{Padded, RxLive, StopFlag, TxLive};
use crate::dpdk::{self, tsc, Eal, Mempool, Port, PortConfig, PortStats};
use crate::limits::link::LinkKind;
use crate::pace::mode::{GapKind, GapPlanner, TxMode};
use crate::pace::rate::{check_against_line, Layer};
use crate::report::{self, Interval, Span};
use crate::result::{self, PortResult, RunResult};
use crate::rx::{self, RxTask};
use crate::tx::{self, TxTask};
use crate::wire::spec::{SizeSpec, MAX_FRAME_SIZE};
use crate::wire::{builder::FrameBuilder, CsumMode};

/// What went wrong before or during a run (always a message for the user).
pub type RunError = String;

/// Where interval lines go (stdout for the CLI, a buffer in tests).
pub trait Sink {
    /// Print one line.
    fn line(&mut self, s: &str);
}

/// Prints to standard output.
pub struct Stdout;

impl Sink for Stdout {
    fn line(&mut self, s: &str) {
        let mut o = std::io::stdout().lock();
        let _ = writeln!(o, "{s}");
        let _ = o.flush();
    }
}

/// Discards every line.
pub struct Quiet;

impl Sink for Quiet {
    fn line(&mut self, _: &str) {}
}

/// Per-port runtime state.
struct PortRt {
    port: Port,
    link_bps: u64,
    before: PortStats,
    tx_offload: bool,
}

/// Run `plan` to completion. `stop_early` is polled by the reporter (set by
/// a signal handler) to end the run before its duration.
pub fn execute(
    plan: &Plan,
    sink: &mut dyn Sink,
    stop_early: &StopFlag,
) -> Result<RunResult, RunError> {
    check_lcores_exist(plan)?;
    // Declared before the EAL so that it drops after it (rte_eal_cleanup).
    let _run_dir = RunDirCleanup::for_plan(plan);
    let eal = Eal::init(&plan.eal.eal_args()).map_err(|e| {
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
                prefix_in_use_hint(plan),
                plan.eal.eal_args()[1..].join(" ")
            ),
        )
    })?;
    dpdk::check_layout().map_err(|e| e.to_string())?;
    for &l in plan
        .tx
        .iter()
        .map(|t| &t.lcore)
        .chain(plan.rx.iter().map(|t| &t.lcore))
    {
        if !eal.lcore_enabled(l) {
            return Err(perr(
                plan,
                "eal.cores",
                format!("lcore {l} is not enabled in the EAL"),
            ));
        }
    }
    let tsc_hz = tsc::calibrate(Duration::from_millis(100));

    // Pools and ports. Declared so that ports drop before pools.
    let mut pools: Vec<Arc<Mempool>> = Vec::new();
    let mut ports: Vec<PortRt> = Vec::new();
    for (i, pp) in plan.ports.iter().enumerate() {
        let port = Port::by_name(pp.device.name()).map_err(|e| {
            let hint = match &pp.device {
                Device::Vdev(v) => match missing_af_packet_iface(plan, v) {
                    Some(iface) => format!(
                        "vdev {v}: interface {iface} does not exist in this network namespace \
                         (af_packet needs an existing interface; run inside its namespace with \
                         `ip netns exec NS landspeed run ...`)"
                    ),
                    None => format!(
                        "vdev {v}: DPDK did not create it (unknown driver name or bad arguments)"
                    ),
                },
                Device::Pci(a) => {
                    format!("PCI device {a}: not found or not bound to a DPDK driver")
                }
            };
            perr(plan, &format!("ports[{i}].device"), format!("{hint}: {e}"))
        })?;
        let info = port.info().clone();
        check_frame_fits(plan, i, &info)?;
        let mbufs = mbufs_needed(
            pp.rx_queues,
            pp.rx_ring,
            pp.tx_queues,
            pp.tx_ring,
            plan.eal.lcores.len(),
        );
        // A receiver that learns its streams may get any frame size.
        let rx_auto = plan
            .rx
            .iter()
            .any(|r| r.port == i && r.streams == RxStreams::Auto);
        let max_frame = if rx_auto {
            pp.max_frame
                .max((MAX_FRAME_SIZE as u32).min(info.max_rx_pktlen))
        } else {
            pp.max_frame
        };
        let room = max_frame.max(2048).max(af_packet_room(plan, pp));
        let pool = Mempool::create(&format!("ls_pool{i}"), mbufs, room, info.socket)
            .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?;
        let tx_offload = match pp.checksum.resolve(info.tx_checksum_offload()) {
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
        let mut port = port;
        let cfg = PortConfig {
            rx_queues: pp.rx_queues,
            tx_queues: pp.tx_queues,
            rx_ring: clamp_ring(pp.rx_ring, info.rx_ring),
            tx_ring: clamp_ring(pp.tx_ring, info.tx_ring),
            max_frame,
            tx_checksum_offload: tx_offload,
            rx_checksum_offload: info.rx_checksum_offload(),
            promiscuous: pp.promiscuous,
        };
        port.configure(&cfg, &pool)
            .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?;
        port.start()
            .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?;
        let link = wait_link(&port);
        let link_bps = match &pp.link {
            Some(kind) => kind.mac_bps() as u64,
            None => u64::from(link.speed_mbps) * 1_000_000,
        };
        let before = port.stats();
        pools.push(Arc::new(pool));
        ports.push(PortRt {
            port,
            link_bps,
            before,
            tx_offload,
        });
    }

    // TX tasks: resolve rates against the link, build the frame builders.
    // Senders stop first; receivers after the frames in flight arrived.
    let stop = Arc::new(StopFlag::default());
    let stop_rx = Arc::new(StopFlag::default());
    let mut tx_tasks = Vec::new();
    for (ti, t) in plan.tx.iter().enumerate() {
        let pr = &ports[t.port];
        let link_bps = if pr.link_bps == 0 {
            10_000_000_000
        } else {
            pr.link_bps
        };
        let rate = t
            .rate
            .resolve(link_bps, t.layer)
            .map_err(|e| perr(plan, &format!("tx[{ti}].rate"), e))?;
        for &s in &t.streams {
            let spec = &plan.streams[s];
            for size in spec.frame_sizes() {
                let payload = size - 4 - spec.header_len();
                check_against_line(&rate, link_bps, size, payload).map_err(|e| {
                    perr(
                        plan,
                        &format!("tx[{ti}].rate"),
                        format!("{e} (stream {}, {size}-byte frames)", spec.name),
                    )
                })?;
            }
        }
        if t.layer == Layer::Payload {
            let hdr = |s: usize| plan.streams[s].header_len();
            if let Some(&other) = t.streams.iter().find(|&&s| hdr(s) != hdr(t.streams[0])) {
                return Err(perr(
                    plan,
                    &format!("tx[{ti}].layer"),
                    format!(
                        "a payload-layer rate needs streams with the same headers in one task: {} has {} header bytes, {} has {}",
                        plan.streams[t.streams[0]].name,
                        hdr(t.streams[0]),
                        plan.streams[other].name,
                        hdr(other)
                    ),
                ));
            }
        }
        let offload = pr.tx_offload;
        let csum = if offload {
            CsumMode::Offload
        } else {
            CsumMode::Software
        };
        let mut builders = Vec::new();
        for &s in &t.streams {
            builders.push(
                FrameBuilder::new(&plan.streams[s], csum)
                    .map_err(|e| perr(plan, &format!("streams[{s}].{}", e.field), e.message))?,
            );
        }
        let gap = match t.mode {
            TxMode::Gap { kind: GapKind::BadFcs } => {
                return Err(perr(
                    plan,
                    &format!("tx[{ti}].mode"),
                    format!(
                        "gap frames with a bad FCS need a port that lets software supply the FCS, \
                         and DPDK's ethdev API offers no such control on {} ({}): use `gap` (PAUSE frames)",
                        pr.port.info().name,
                        pr.port.info().driver
                    ),
                ))
            }
            TxMode::Gap { kind: GapKind::Pause } => {
                let mut planners = Vec::new();
                for &s in &t.streams {
                    let spec = &plan.streams[s];
                    let SizeSpec::Fixed(size) = spec.size else {
                        return Err(perr(
                            plan,
                            &format!("streams[{s}].frame_size"),
                            format!("gap mode needs one fixed frame size per stream ({} cycles sizes)", spec.name),
                        ));
                    };
                    let payload = size - 4 - spec.header_len();
                    let max_gap = (pp_max_frame(pr) as usize).clamp(64, 1518);
                    planners.push(
                        GapPlanner::new(rate, link_bps, size, payload, 64, max_gap)
                            .map_err(|e| perr(plan, &format!("tx[{ti}].mode"), e))?,
                    );
                }
                Some((planners, pr.port.info().mac))
            }
            _ => None,
        };
        tx_tasks.push(TxTask {
            lcore: t.lcore,
            port: pr.port.id(),
            queue: t.queue,
            pool: Arc::clone(&pools[t.port]),
            builders,
            weights: t.weights.clone(),
            stream_ids: t.streams.iter().map(|&s| plan.streams[s].id).collect(),
            rate,
            mode: t.mode,
            pattern: t.pattern,
            tsc_hz,
            line_bps: link_bps,
            gap,
            offload,
            trace_frames: if t.trace.is_some() { t.trace_frames } else { 0 },
            live: Arc::new(Padded::new(TxLive::default())),
            stop: Arc::clone(&stop),
        });
    }
    let mut rx_tasks = Vec::new();
    for r in &plan.rx {
        let shared_tsc = match r.clock {
            Clock::Auto => !plan.tx.is_empty(),
            Clock::Shared => true,
            Clock::Separate => false,
        };
        let pr = &ports[r.port];
        let expected: Vec<u32> = match &r.streams {
            RxStreams::Auto => Vec::new(),
            RxStreams::Listed(v) => v.iter().map(|&s| plan.streams[s].id).collect(),
        };
        rx_tasks.push(RxTask {
            lcore: r.lcore,
            port: pr.port.id(),
            queues: r.queues.clone(),
            verify: match r.verify {
                crate::config::Verify::Full => rx::Verify::Full,
                crate::config::Verify::Stamp => rx::Verify::Stamp,
                crate::config::Verify::None => rx::Verify::CountOnly,
            },
            hw_csum: pr.port.info().rx_checksum_offload(),
            slowdown_cycles: r.slowdown_cycles,
            expected,
            shared_tsc,
            tsc_hz,
            live: Arc::new(Padded::new(RxLive::default())),
            stop: Arc::clone(&stop_rx),
        });
    }

    // Launch: receivers first so nothing sent is missed.
    let started = Instant::now();
    let t0 = tsc::sample();
    let rx_live: Vec<_> = rx_tasks.iter().map(|t| Arc::clone(&t.live)).collect();
    let tx_live: Vec<_> = tx_tasks.iter().map(|t| Arc::clone(&t.live)).collect();
    let rx_meta: Vec<_> = rx_tasks.iter().map(|t| (t.lcore, t.port)).collect();
    let shared_tsc = rx_tasks.iter().any(|t| t.shared_tsc);
    let tx_meta: Vec<result::TxMeta> = tx_tasks
        .iter()
        .map(|t| result::TxMeta {
            lcore: t.lcore,
            port: t.port,
            queue: t.queue,
            rate: t.rate,
            mode: t.mode,
            line_bps: t.line_bps,
        })
        .collect();
    let mut rx_workers = Vec::new();
    for t in rx_tasks {
        let lcore = t.lcore;
        match dpdk::launch(lcore, move || rx::run(t)) {
            Ok(w) => rx_workers.push(w),
            Err(e) => {
                stop.stop();
                stop_rx.stop();
                return Err(format!("{}: {e}", plan.origin));
            }
        }
    }
    let mut tx_workers = Vec::new();
    for t in tx_tasks {
        let lcore = t.lcore;
        match dpdk::launch(lcore, move || tx::run(t)) {
            Ok(w) => tx_workers.push(w),
            Err(e) => {
                stop.stop();
                stop_rx.stop();
                return Err(format!("{}: {e}", plan.origin));
            }
        }
    }

    // Report every interval until the duration is over.
    let has_tx = !plan.tx.is_empty();
    let has_rx = !plan.rx.is_empty();
    sink.line(&report::interval_header(has_tx, has_rx));
    let total = plan.run.duration;
    let mut intervals = Vec::new();
    let mut prev = snapshot(&tx_live, &rx_live);
    let mut prev_t = 0.0f64;
    let mut next_tick = plan.run.interval.min(total);
    loop {
        let now = started.elapsed();
        if stop_early.stopped() || now >= total {
            break;
        }
        if now >= next_tick {
            let cur = snapshot(&tx_live, &rx_live);
            let t = now.as_secs_f64();
            let iv = cur.interval_since(&prev, prev_t, t);
            sink.line(&report::interval_line(&iv, has_tx, has_rx));
            intervals.push(iv);
            prev = cur;
            prev_t = t;
            next_tick += plan.run.interval;
            continue;
        }
        std::thread::sleep((next_tick.min(total) - now).min(Duration::from_millis(20)));
    }
    stop.stop();
    let end = tsc::sample();
    let elapsed_total = started.elapsed().as_secs_f64();
    let fin = snapshot(&tx_live, &rx_live);
    if fin.tx_frames != prev.tx_frames || fin.rx_frames != prev.rx_frames {
        let iv = fin.interval_since(&prev, prev_t, elapsed_total);
        if iv.tx.secs() > 0.001 {
            sink.line(&report::interval_line(&iv, has_tx, has_rx));
            intervals.push(iv);
        }
    }

    // Join workers, then read the PMD's counters.
    let mut tx_outcomes = Vec::new();
    for w in tx_workers {
        let lcore = w.lcore();
        tx_outcomes.push(w.join().map_err(|_| {
            // Receivers must not be left polling behind the error.
            stop_rx.stop();
            format!("TX worker on lcore {lcore} panicked")
        })?);
    }
    // Give frames in flight (loopback rings, veths) time to arrive.
    if has_rx && has_tx {
        std::thread::sleep(Duration::from_millis(200));
    } else if has_tx && ports.iter().any(|p| p.port.info().driver == "net_memif") {
        // A TX-only memif port shares its ring with a peer process: frames
        // the peer has not read yet are lost when this port closes (the
        // last tens of frames of every run). Let the peer drain the ring.
        std::thread::sleep(Duration::from_millis(500));
    }
    stop_rx.stop();
    let mut rx_outcomes = Vec::new();
    for w in rx_workers {
        let lcore = w.lcore();
        rx_outcomes.push(
            w.join()
                .map_err(|_| format!("RX worker on lcore {lcore} panicked"))?,
        );
    }
    // Departure traces, where the profile asked for them (once every worker
    // has returned, so an error here leaves none running).
    for (ti, (o, t)) in tx_outcomes.iter().zip(&plan.tx).enumerate() {
        if let Some(path) = &t.trace {
            o.recorder.to_trace().save(path).map_err(|e| {
                perr(
                    plan,
                    &format!("tx[{ti}].trace"),
                    format!("{}: {e}", path.display()),
                )
            })?;
        }
    }
    let tsc_hz_measured = tsc::hz_between(t0, end);
    let measured_secs = elapsed_total;

    let mut port_results = Vec::new();
    for (i, pr) in ports.iter().enumerate() {
        let info = pr.port.info();
        let delta = pr.port.stats().since(&pr.before);
        let xstats: Vec<(String, u64)> = pr
            .port
            .xstats()
            .into_iter()
            .filter(|(_, v)| *v != 0)
            .collect();
        port_results.push(PortResult {
            name: plan.ports[i].name.clone(),
            device: info.name.clone(),
            driver: info.driver.clone(),
            link_bps: pr.link_bps,
            stats: delta,
            xstats,
        });
    }
    let names: Vec<(u32, String)> = plan
        .streams
        .iter()
        .map(|s| (s.id, s.name.clone()))
        .collect();
    // Each port once, however many tasks use it.
    let sum_ports = |idx: &mut dyn Iterator<Item = usize>| {
        let mut seen = Vec::new();
        let mut total = PortStats::default();
        for i in idx {
            if !seen.contains(&i) {
                seen.push(i);
                total += port_results[i].stats;
            }
        }
        total
    };
    let tx_pmd = sum_ports(&mut plan.tx.iter().map(|t| t.port));
    let rx_pmd = sum_ports(&mut plan.rx.iter().map(|t| t.port));
    let mut result = RunResult::new(
        plan,
        tsc_hz,
        tsc_hz_measured,
        measured_secs,
        port_results,
        intervals,
    );
    if has_tx {
        result.tx = Some(result::tx_result(
            &tx_meta,
            &names,
            &tx_outcomes,
            (tx_pmd.opackets, tx_pmd.oerrors),
        ));
    }
    if has_rx {
        result.rx = Some(result::rx_result(
            &rx_meta,
            &rx_outcomes,
            rx_pmd,
            measured_secs,
            tsc_hz,
            shared_tsc,
        ));
        let rx_port = &plan.ports[plan.rx[0].port];
        let link = rx_port.link.or_else(|| {
            LinkKind::from_speed_mbps((ports[plan.rx[0].port].link_bps / 1_000_000) as u32)
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
        result.verdict = Some(result.observation(link, bus, plan).verdict());
    }
    // Every mbuf must be back in its pool once the ports are closed (their
    // rings freed): what is not was leaked somewhere.
    drop(ports);
    result.mbufs_leaked = pools.iter().map(|p| u64::from(p.in_use())).sum();
    drop(pools);
    drop(eal);
    Ok(result)
}

/// af_packet copies whole TPACKET frames into mbufs: its RX queue needs a
/// data room of at least `framesz + 96` (headroom 128 + framesz − 32), so
/// the pool's frame room is `framesz − 32` when the vdev sets `framesz`.
fn af_packet_room(plan: &Plan, pp: &crate::config::PortPlan) -> u32 {
    let name = pp.device.name();
    plan.eal
        .vdevs
        .iter()
        .filter(|v| v.split(',').next() == Some(name) && name.starts_with("net_af_packet"))
        .flat_map(|v| v.split(','))
        .filter_map(|kv| kv.strip_prefix("framesz="))
        .filter_map(|n| n.parse::<u32>().ok())
        .map(|n| n.saturating_sub(32))
        .max()
        .unwrap_or(if name.starts_with("net_af_packet") {
            2048
        } else {
            0
        })
}

/// The `iface=` of af_packet vdev `name` when no interface of that name
/// exists in this process's network namespace (as `/sys/class/net` shows
/// it; `ip netns exec` mounts the namespace's own).
fn missing_af_packet_iface(plan: &Plan, name: &str) -> Option<String> {
    if !name.starts_with("net_af_packet") {
        return None;
    }
    let iface = plan
        .eal
        .vdevs
        .iter()
        .filter(|v| v.split(',').next() == Some(name))
        .flat_map(|v| v.split(','))
        .find_map(|kv| kv.strip_prefix("iface="))?;
    let exists = !iface.is_empty()
        && !iface.contains('/')
        && std::path::Path::new("/sys/class/net").join(iface).exists();
    (!exists).then(|| iface.to_string())
}

/// Where DPDK puts runtime directories: `/var/run/dpdk` for root, else
/// `$XDG_RUNTIME_DIR/dpdk` or `/tmp/dpdk`.
fn runtime_bases() -> Vec<std::path::PathBuf> {
    let mut bases = vec![std::path::PathBuf::from("/var/run/dpdk")];
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
        bases.push(std::path::PathBuf::from(x).join("dpdk"));
    }
    bases.push(std::path::PathBuf::from("/tmp/dpdk"));
    bases
}

/// When the EAL failed to start with an explicit `eal.file_prefix` whose
/// runtime directory already holds a `config` file: most likely another
/// DPDK process (a primary) runs with that prefix, and DPDK's own error
/// text does not say so.
fn prefix_in_use_hint(plan: &Plan) -> String {
    let Some(prefix) = plan.eal.file_prefix.as_deref() else {
        return String::new();
    };
    let bases = runtime_bases();
    match bases
        .iter()
        .map(|b| b.join(prefix).join("config"))
        .find(|c| c.exists())
    {
        Some(c) => format!(
            "; eal.file_prefix `{prefix}` is probably in use by another DPDK process ({} exists): \
             give each process its own file_prefix, or `auto`",
            c.display()
        ),
        None => String::new(),
    }
}

/// With an automatic file prefix (`ls<pid>`, `--no-shconf`: nothing
/// shared), DPDK still makes a runtime directory, `/var/run/dpdk/<prefix>`
/// for root, and leaves it behind (its telemetry socket is unlinked only at
/// exit, the directory never). This removes the directory when dropped,
/// after `rte_eal_cleanup`, if it did not exist before the EAL started.
/// Explicit prefixes are left alone: other processes may share them.
pub(crate) struct RunDirCleanup(Vec<std::path::PathBuf>);

impl RunDirCleanup {
    fn for_plan(plan: &Plan) -> Self {
        Self::for_args(&plan.eal.eal_args())
    }

    /// For an EAL started with `args` (program name first).
    pub(crate) fn for_args(args: &[String]) -> Self {
        let prefix = args
            .iter()
            .find_map(|a| a.strip_prefix("--file-prefix="))
            .filter(|_| args.iter().any(|a| a == "--no-shconf"));
        let Some(prefix) = prefix else {
            return Self(Vec::new());
        };
        Self(
            runtime_bases()
                .into_iter()
                .map(|b| b.join(prefix))
                .filter(|d| !d.exists())
                .collect(),
        )
    }
}

impl Drop for RunDirCleanup {
    fn drop(&mut self) {
        for d in &self.0 {
            // This process's own directory (the prefix holds its pid):
            // nothing in it outlives the process. Absent: nothing to do.
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The largest frame a port takes, FCS included.
fn pp_max_frame(pr: &PortRt) -> u32 {
    pr.port.info().max_rx_pktlen
}

/// A runtime error about a profile field, as `file:line: field: message`.
fn perr(plan: &Plan, field: &str, message: impl std::fmt::Display) -> RunError {
    plan.error(field, message.to_string()).to_string()
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
        }
    }
}

fn snapshot(tx: &[Arc<Padded<TxLive>>], rx: &[Arc<Padded<RxLive>>]) -> Snapshot {
    let mut s = Snapshot::default();
    for t in tx {
        s.tx_frames += t.frames.get();
        s.tx_bytes += t.bytes.get();
    }
    for r in rx {
        s.rx_frames += r.frames.get();
        s.rx_bytes += r.bytes.get();
        s.rx_lost += r.lost.get();
    }
    s
}

/// Mbufs for a port's pool: its rings, a batch per lcore in flight, each
/// lcore's cache, and slack.
fn mbufs_needed(rxq: u16, rx_ring: u16, txq: u16, tx_ring: u16, lcores: usize) -> u32 {
    let rings = u32::from(rxq.max(1)) * u32::from(rx_ring) + u32::from(txq) * u32::from(tx_ring);
    let per_lcore = (dpdk::BATCH_MAX as u32) * 2 + 256;
    (rings + per_lcore * lcores as u32 + 1024).next_power_of_two() - 1
}

fn clamp_ring(want: u16, (min, max): (u16, u16)) -> u16 {
    let max = if max == 0 { u16::MAX } else { max };
    want.clamp(min.max(1), max)
}

/// Wait up to a second for the link to come up.
fn wait_link(port: &Port) -> dpdk::LinkStatus {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let l = port.link();
        if l.up || Instant::now() >= deadline {
            return l;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The largest frame any stream on port `i` uses must fit what the device
/// accepts.
fn check_frame_fits(plan: &Plan, i: usize, info: &dpdk::PortInfo) -> Result<(), RunError> {
    let pp = &plan.ports[i];
    let frame = pp.max_frame;
    if info.driver == "net_af_packet" {
        // af_packet reports 1518 whatever the kernel allows: the kernel
        // interface's MTU is the limit.
        return check_kernel_mtu(plan, i);
    }
    // DPDK reports max_rx_pktlen without the FCS.
    let max = info
        .max_rx_pktlen
        .max(u32::from(info.max_mtu).saturating_add(18));
    if frame > max {
        return Err(perr(
            plan,
            &format!("ports[{i}].device"),
            format!(
                "{frame}-byte frames exceed the port's maximum of {max} bytes ({} reports max_rx_pktlen {}, max_mtu {})",
                info.driver, info.max_rx_pktlen, info.max_mtu
            ),
        ));
    }
    Ok(())
}

/// An af_packet port sends through a kernel interface: its MTU (the IP
/// packet) must hold the largest frame less Ethernet header, VLAN tag and
/// FCS, or the kernel drops the frames silently.
fn check_kernel_mtu(plan: &Plan, i: usize) -> Result<(), RunError> {
    let pp = &plan.ports[i];
    let name = pp.device.name();
    let Some(iface) = plan
        .eal
        .vdevs
        .iter()
        .filter(|v| v.split(',').next() == Some(name))
        .flat_map(|v| v.split(','))
        .find_map(|kv| kv.strip_prefix("iface="))
    else {
        return Ok(());
    };
    let Ok(text) = std::fs::read_to_string(format!("/sys/class/net/{iface}/mtu")) else {
        return Ok(());
    };
    let Ok(mtu) = text.trim().parse::<u32>() else {
        return Ok(());
    };
    let tagged = plan.streams.iter().any(|s| s.vlan.is_some());
    let need = pp.max_frame.saturating_sub(18 + if tagged { 4 } else { 0 });
    if mtu < need {
        return Err(perr(
            plan,
            &format!("ports[{i}].device"),
            format!(
                "interface {iface} has MTU {mtu}, too small for {}-byte frames (needs {need}; \
                 set it with `ip link set {iface} mtu {need}` or scripts/lab up --mtu {need})",
                pp.max_frame
            ),
        ));
    }
    Ok(())
}

/// Every lcore the profile names must exist on this machine.
fn check_lcores_exist(plan: &Plan) -> Result<(), RunError> {
    let online = online_cpus();
    for &l in &plan.eal.lcores {
        if !online.is_empty() && !online.contains(&l) {
            return Err(perr(
                plan,
                "eal.cores",
                format!(
                    "lcore {l} does not exist on this machine (online CPUs: {})",
                    format_cpus(&online)
                ),
            ));
        }
    }
    Ok(())
}

fn online_cpus() -> Vec<u32> {
    let Ok(text) = std::fs::read_to_string("/sys/devices/system/cpu/online") else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for part in text.trim().split(',') {
        let mut it = part.splitn(2, '-');
        let a = it.next().and_then(|x| x.parse::<u32>().ok());
        let b = it.next().and_then(|x| x.parse::<u32>().ok());
        match (a, b) {
            (Some(a), Some(b)) if a <= b => v.extend(a..=b),
            (Some(a), None) => v.push(a),
            _ => {}
        }
    }
    v
}

fn format_cpus(v: &[u32]) -> String {
    match (v.first(), v.last()) {
        (Some(a), Some(b)) if (b - a) as usize + 1 == v.len() => format!("{a}-{b}"),
        _ => v.iter().map(u32::to_string).collect::<Vec<_>>().join(","),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pool_size_covers_rings_and_lcores() {
        let n = mbufs_needed(1, 1024, 1, 1024, 2);
        assert!(n >= 2048 + 2 * (128 + 256) + 1024);
        assert_eq!((n + 1).count_ones(), 1, "DPDK pools are best sized 2^k - 1");
    }

    #[test]
    fn ring_clamped_to_device_limits() {
        assert_eq!(clamp_ring(8192, (64, 4096)), 4096);
        assert_eq!(clamp_ring(16, (64, 4096)), 64);
        assert_eq!(clamp_ring(1024, (0, 0)), 1024);
    }

    #[test]
    fn cpu_list_formatting() {
        assert_eq!(format_cpus(&[0, 1, 2, 3]), "0-3");
        assert_eq!(format_cpus(&[0, 2]), "0,2");
    }
}
