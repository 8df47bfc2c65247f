//! What the runtime needs to know about the machine and its devices
//! before and around DPDK: online CPUs, af_packet vdevs and their kernel
//! interfaces, DPDK's runtime directories (and removing the one a run
//! makes, also when it panics), pool and ring sizes, the link.

use std::path::PathBuf;
use std::sync::{Mutex, Once, TryLockError};
use std::time::{Duration, Instant};

use crate::config::{Device, Plan, PortPlan, RxStreams};
use crate::dpdk::{self, Port, PortInfo, CACHE_MAX};
use crate::limits::nic::{self, Mtu, PmdLimits};
use crate::limits::pmd;
use crate::outcome::Problem;
use crate::wire::spec::{FCS_LEN, MAX_FRAME_SIZE};
use crate::wire::{EthernetFrame, VlanTag};
use crate::Result;

use super::perr;

/// Ethernet header and FCS: what a frame adds to the MTU (its IP packet).
const L2_OVERHEAD: u32 = (EthernetFrame::<&[u8]>::HEADER_LEN + FCS_LEN) as u32;
/// An 802.1Q tag, which a tagged frame adds on top.
const VLAN_TAG_LEN: u32 = VlanTag::<&[u8]>::LEN as u32;
/// af_packet's `framesz` when its vdev sets none (the PMD's default,
/// 2048). As a frame room it covers the `framesz − 32` rule with 32 bytes
/// to spare.
const AF_PACKET_DEFAULT_ROOM: u32 = 2048;
/// What af_packet needs beyond a frame room: its RX copy needs a data room
/// of `framesz + 96`, i.e. headroom (128) + framesz − 32.
const AF_PACKET_FRAMESZ_SLACK: u32 = 32;
/// Mbufs added to every pool beyond rings, batches and caches, so a burst
/// of in-flight frames never empties it.
const POOL_SLACK: u32 = 1024;
/// How long a started port gets to report its link up: the 9 s that
/// testpmd and l2fwd wait (an 82599 fibre link takes 0.5–8 s).
pub(super) const LINK_WAIT: Duration = Duration::from_secs(9);
/// How often the link is asked while waiting.
const LINK_POLL: Duration = Duration::from_millis(50);
/// How long a wait stays silent: a link still down after this is waited
/// for with a line that says so.
const LINK_QUIET: Duration = Duration::from_millis(500);
/// Smallest frame room of a pool: DPDK's default mbuf data room
/// (`RTE_MBUF_DEFAULT_DATAROOM`), which drivers size RX buffers for
/// whatever the run's own frames are.
const MIN_DATA_ROOM: u32 = 2048;

/// af_packet copies whole TPACKET frames into mbufs: its RX queue needs a
/// data room of at least `framesz + 96` (headroom 128 + framesz − 32), so
/// the pool's frame room is `framesz − 32` when the vdev sets `framesz`.
pub(super) fn af_packet_room(plan: &Plan, pp: &PortPlan) -> u32 {
    let name = pp.device.name();
    plan.eal
        .vdevs
        .iter()
        .filter(|v| v.split(',').next() == Some(name) && name.starts_with("net_af_packet"))
        .flat_map(|v| v.split(','))
        .filter_map(|kv| kv.strip_prefix("framesz="))
        .filter_map(|n| n.parse::<u32>().ok())
        .map(|n| n.saturating_sub(AF_PACKET_FRAMESZ_SLACK))
        .max()
        .unwrap_or(if name.starts_with("net_af_packet") {
            AF_PACKET_DEFAULT_ROOM
        } else {
            0
        })
}

/// The `iface=` of af_packet vdev `name` when no interface of that name
/// exists in this process's network namespace (as `/sys/class/net` shows
/// it; `ip netns exec` mounts the namespace's own).
pub(super) fn missing_af_packet_iface(plan: &Plan, name: &str) -> Option<String> {
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
fn runtime_bases() -> Vec<PathBuf> {
    let mut bases = vec![PathBuf::from("/var/run/dpdk")];
    if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR") {
        bases.push(PathBuf::from(x).join("dpdk"));
    }
    bases.push(PathBuf::from("/tmp/dpdk"));
    bases
}

/// When the EAL failed to start with an explicit `eal.file_prefix` whose
/// runtime directory already holds a `config` file: most likely another
/// DPDK process (a primary) runs with that prefix, and DPDK's own error
/// text does not say so.
pub(super) fn prefix_in_use_hint(plan: &Plan) -> String {
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
///
/// A panic aborts the process (see the runtime's documentation), so no
/// drop runs then: the panic hook installed here removes the same
/// directories before the abort.
pub(crate) struct RunDirCleanup(Vec<PathBuf>);

/// The directories live `RunDirCleanup`s will remove, for the panic hook.
static OWN_DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

impl RunDirCleanup {
    /// For the EAL of `plan`.
    pub(super) fn for_plan(plan: &Plan) -> Self {
        Self::for_args(&plan.eal.eal_args())
    }

    /// For an EAL started with `args` (program name first). Removes, first,
    /// the runtime directories that killed runs left (see
    /// [`remove_stale_run_dirs`]).
    pub(crate) fn for_args(args: &[String]) -> Self {
        remove_stale_run_dirs(&runtime_bases());
        let dirs = Self::dirs_for(args);
        if !dirs.is_empty() {
            install_panic_hook();
            own_dirs().extend(dirs.iter().cloned());
        }
        Self(dirs)
    }

    fn dirs_for(args: &[String]) -> Vec<PathBuf> {
        let prefix = args
            .iter()
            .find_map(|a| a.strip_prefix("--file-prefix="))
            .filter(|_| args.iter().any(|a| a == "--no-shconf"));
        let Some(prefix) = prefix else {
            return Vec::new();
        };
        runtime_bases()
            .into_iter()
            .map(|b| b.join(prefix))
            .filter(|d| !d.exists())
            .collect()
    }
}

/// The list of directories to remove, even if a panic poisoned its lock
/// (the list is valid after any push or retain).
fn own_dirs() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    OWN_DIRS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Remove this process's own runtime directories now (what the drop of
/// each live [`RunDirCleanup`] would do): for an exit that runs no drop, a
/// forced exit after repeated signals. Gives up rather than wait when the
/// list is locked.
pub(crate) fn remove_own_run_dirs() {
    let dirs = match OWN_DIRS.try_lock() {
        Ok(dirs) => dirs,
        Err(TryLockError::Poisoned(p)) => p.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    for d in dirs.iter() {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// The pid in the name of an automatic prefix's directory (`ls<pid>`).
fn auto_prefix_pid(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("ls")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Remove every `ls<pid>` directory under `bases` whose process is gone
/// (no `/proc/<pid>`): what a run killed by SIGKILL or a crash left. A
/// directory whose pid is alive is left alone, whoever it belongs to.
pub(crate) fn remove_stale_run_dirs(bases: &[PathBuf]) {
    let own = std::process::id();
    for base in bases {
        let Ok(entries) = std::fs::read_dir(base) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(pid) = name.to_str().and_then(auto_prefix_pid) else {
                continue;
            };
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if pid != own && is_dir && !PathBuf::from(format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// Once per process: a panic hook that prints the panic as the default
/// hook does, then removes this process's own runtime directories before
/// the process aborts.
fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            previous(info);
            // A panic from inside the list's own lock leaves it.
            remove_own_run_dirs();
        }));
    });
}

impl Drop for RunDirCleanup {
    fn drop(&mut self) {
        for d in &self.0 {
            // This process's own directory (the prefix holds its pid):
            // nothing in it outlives the process. Absent: nothing to do.
            let _ = std::fs::remove_dir_all(d);
        }
        if !self.0.is_empty() {
            own_dirs().retain(|d| !self.0.contains(d));
        }
    }
}

/// What DPDK would fail on, or take long to fail on, checked against the
/// host before the EAL starts (so no runtime directory is made): hugepages
/// asked for and none reserved, more memory than the host has (the EAL's
/// and the departure traces'), and memif sockets that cannot work.
pub(super) fn check_host(plan: &Plan) -> Result<()> {
    check_pci_hugepages(plan)?;
    let meminfo = meminfo();
    check_hugepages(plan, &meminfo)?;
    check_memory(plan, &meminfo)?;
    check_memif_sockets(plan)
}

/// A PCI device needs hugepages: without them (`--no-huge`) the EAL has
/// no physical addresses to give the device, and DPDK refuses the
/// physical-address IOVA mode a device without an IOMMU needs (with one,
/// vfio would pin ordinary pages the kernel may still move).
fn check_pci_hugepages(plan: &Plan) -> Result<()> {
    if plan.eal.hugepages {
        return Ok(());
    }
    let by_port = plan.ports.iter().find_map(|p| match &p.device {
        Device::Pci(a) => Some(a.as_str()),
        Device::Vdev(_) => None,
    });
    let Some(addr) = by_port.or(plan.eal.pci.first().map(String::as_str)) else {
        return Ok(());
    };
    Err(perr(
        plan,
        "eal.hugepages",
        format!(
            "false, but PCI device {addr} needs hugepages (DMA needs memory at fixed \
             physical addresses, which --no-huge cannot give): set `hugepages: true` and \
             reserve hugepages (docs/real-nics.md, section 3)"
        ),
    ))
}

/// The invariant-TSC flags this host's CPU lacks, as a problem of every
/// run's figures (paced rates and cycle counts drift with the core
/// clock); `None` when both are there or `/proc/cpuinfo` has no flags.
pub(super) fn tsc_problem() -> Option<Problem> {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    tsc_problem_of(&text)
}

/// [`tsc_problem`] for the text of `/proc/cpuinfo`.
fn tsc_problem_of(cpuinfo: &str) -> Option<Problem> {
    let missing = crate::limits::host::missing_tsc_flags(cpuinfo)?;
    (!missing.is_empty()).then(|| Problem::TscNotInvariant {
        missing: missing.iter().map(|f| f.to_string()).collect(),
    })
}

/// `/proc/meminfo` as (key, kB) pairs (empty when it cannot be read).
fn meminfo() -> Vec<(String, u64)> {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            let n = v.split_whitespace().next()?.parse().ok()?;
            Some((k.trim().to_string(), n))
        })
        .collect()
}

/// The value of `key` in [`meminfo`]'s pairs.
fn mem_value(meminfo: &[(String, u64)], key: &str) -> Option<u64> {
    meminfo.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
}

/// Hugepages reserved of every size, as (pages, free pages, page size in
/// kB), from `/sys/kernel/mm/hugepages` (empty when it cannot be read).
fn hugepage_pools() -> Vec<(u64, u64, u64)> {
    let Ok(dir) = std::fs::read_dir("/sys/kernel/mm/hugepages") else {
        return Vec::new();
    };
    let read = |d: &std::path::Path, f: &str| -> u64 {
        std::fs::read_to_string(d.join(f))
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or(0)
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let kb = name
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            let d = e.path();
            Some((read(&d, "nr_hugepages"), read(&d, "free_hugepages"), kb))
        })
        .collect()
}

/// `eal.hugepages: true` needs hugepages reserved, and free ones for
/// `eal.memory_mb`.
fn check_hugepages(plan: &Plan, meminfo: &[(String, u64)]) -> Result<()> {
    if !plan.eal.hugepages {
        return Ok(());
    }
    let pools = hugepage_pools();
    let total: u64 = pools.iter().map(|p| p.0).sum();
    let known = !pools.is_empty() || mem_value(meminfo, "HugePages_Total").is_some();
    if known && total == 0 && mem_value(meminfo, "HugePages_Total").unwrap_or(0) == 0 {
        return Err(perr(
            plan,
            "eal.hugepages",
            "this host has no hugepages reserved (HugePages_Total is 0 in /proc/meminfo): \
             reserve some as root, e.g. `echo 1024 > \
             /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages`, or set `hugepages: false`",
        ));
    }
    let free_mb: u64 = pools.iter().map(|&(_, free, kb)| free * kb / 1024).sum();
    let want = u64::from(plan.eal.memory_mb);
    if !pools.is_empty() && want > free_mb {
        return Err(perr(
            plan,
            "eal.memory_mb",
            format!(
                "{want} MiB is more than the {free_mb} MiB of free hugepages on this host: \
                 reserve more, or lower memory_mb"
            ),
        ));
    }
    Ok(())
}

/// Without hugepages the EAL takes `eal.memory_mb` from ordinary memory,
/// and every traced departure holds 16 bytes: together they must fit in
/// what the host has available (`MemAvailable`).
fn check_memory(plan: &Plan, meminfo: &[(String, u64)]) -> Result<()> {
    let Some(avail_mb) = mem_value(meminfo, "MemAvailable").map(|kb| kb / 1024) else {
        return Ok(());
    };
    let eal_mb = if plan.eal.hugepages {
        0
    } else {
        u64::from(plan.eal.memory_mb)
    };
    if eal_mb > avail_mb {
        return Err(perr(
            plan,
            "eal.memory_mb",
            format!(
                "{eal_mb} MiB is more than this host has available, {avail_mb} MiB \
                 (MemAvailable in /proc/meminfo)"
            ),
        ));
    }
    let mut need_mb = eal_mb;
    for (t, task) in plan.tx.iter().enumerate() {
        if task.trace.is_none() {
            continue;
        }
        need_mb += (task.trace_frames * TRACE_ENTRY_BYTES).div_ceil(1 << 20);
        if need_mb > avail_mb {
            return Err(perr(
                plan,
                &format!("tx[{t}].trace_frames"),
                format!(
                    "the EAL and the traces up to this task need {need_mb} MiB, more than \
                     this host has available, {avail_mb} MiB (MemAvailable in /proc/meminfo): \
                     trace fewer departures"
                ),
            ));
        }
    }
    Ok(())
}

/// Bytes of memory a traced departure holds during the run.
const TRACE_ENTRY_BYTES: u64 = 16;

/// A memif vdev's socket as its arguments give it: (server role, path,
/// abstract). DPDK 22.11's defaults: server, `/run/memif.sock`, abstract.
fn memif_socket(vdev: &str) -> Option<(bool, String, bool)> {
    let mut args = vdev.split(',');
    if !args.next()?.starts_with("net_memif") {
        return None;
    }
    let (mut server, mut path, mut abstract_) = (true, "/run/memif.sock".to_string(), true);
    for kv in args {
        match kv.split_once('=') {
            Some(("role", r)) => server = !matches!(r, "client" | "slave"),
            Some(("socket", p)) => path = p.to_string(),
            Some(("socket-abstract", a)) => abstract_ = a != "no",
            _ => {}
        }
    }
    Some((server, path, abstract_))
}

/// Whether a Unix socket listens on `path` (`@name` for an abstract one)
/// in this network namespace, as `/proc/net/unix` lists them.
fn unix_listener(path: &str) -> bool {
    /// `__SO_ACCEPTCON` in the Flags column: a listening socket.
    const ACCEPTCON: u32 = 0x10000;
    let text = std::fs::read_to_string("/proc/net/unix").unwrap_or_default();
    text.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() >= 8
            && f[7] == path
            && u32::from_str_radix(f[3], 16).is_ok_and(|x| x & ACCEPTCON != 0)
    })
}

/// A memif server needs its socket free, a client a server listening on
/// it; DPDK says neither (the vdev just fails to appear, or its link stays
/// down).
fn check_memif_sockets(plan: &Plan) -> Result<()> {
    for (i, v) in plan.eal.vdevs.iter().enumerate() {
        let Some((server, path, abstract_)) = memif_socket(v) else {
            continue;
        };
        let shown = if abstract_ {
            format!("@{path}")
        } else {
            path.clone()
        };
        let exists = !abstract_ && std::path::Path::new(&path).exists();
        let listening = unix_listener(&shown)
            || (exists && std::os::unix::net::UnixStream::connect(&path).is_ok());
        let message = match (server, listening, exists) {
            (true, true, _) => format!(
                "memif socket {shown}: address in use: another memif server listens on it; \
                 pick another socket"
            ),
            (true, false, true) => format!(
                "memif socket {shown}: address in use: remove {path} or pick another socket \
                 (a server that was killed leaves its socket file)"
            ),
            (false, false, _) => format!(
                "memif socket {shown}: no server is listening on it: start the memif server \
                 (role=server) first"
            ),
            _ => continue,
        };
        return Err(perr(plan, &format!("eal.vdevs[{i}]"), message));
    }
    Ok(())
}

/// Mbufs for a port's pool: its rings, a batch per lcore in flight, each
/// lcore's cache, and slack.
pub(super) fn mbufs_needed(rxq: u16, rx_ring: u16, txq: u16, tx_ring: u16, lcores: usize) -> u32 {
    let rings = u32::from(rxq.max(1)) * u32::from(rx_ring) + u32::from(txq) * u32::from(tx_ring);
    let per_lcore = (dpdk::BATCH_MAX as u32) * 2 + CACHE_MAX;
    (rings + per_lcore * lcores as u32 + POOL_SLACK).next_power_of_two() - 1
}

/// `want` descriptors within the driver's (min, max) (a max of 0: none).
pub(super) fn clamp_ring(want: u16, (min, max): (u16, u16)) -> u16 {
    let max = if max == 0 { u16::MAX } else { max };
    want.clamp(min.max(1), max)
}

/// How a port is set up for its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Sizing {
    /// The largest frame it sends or may receive, FCS included.
    pub max_frame: u32,
    /// Its MTU (`None`: the driver's default, see [`Mtu::Default`]).
    pub mtu: Option<u16>,
    /// Bytes of each mbuf after the headroom.
    pub room: u32,
    /// Scattered RX is asked: a frame the port accepts may not fit one
    /// mbuf.
    pub rx_scatter: bool,
    /// Descriptors per RX and TX queue, as the driver adjusts them.
    pub rings: (u16, u16),
    /// Mbufs in its pool.
    pub mbufs: u32,
}

/// The limits port `info`'s driver reports.
fn pmd_limits(info: &PortInfo) -> PmdLimits {
    PmdLimits {
        max_rx_pktlen: info.max_rx_pktlen,
        min_mtu: info.min_mtu,
        max_mtu: info.max_mtu,
    }
}

/// Whether a port of `driver` carries frames beyond the `max_rx_pktlen`
/// it reports, its own way: af_packet through its kernel interface (whose
/// MTU is the limit, [`check_kernel_mtu`]), memif by chaining its ring
/// buffers. Every other driver's largest frame is what it reports: DPDK
/// 22.11's net_tap reports 1522 bytes (`RTE_ETHER_MAX_VLAN_FRAME_LEN`),
/// ethdev then caps its MTU at 1504, and its TX refuses every frame longer
/// than that MTU + 22, so a larger frame would never leave.
fn carries_past_frame_limit(driver: &str) -> bool {
    matches!(driver, "net_af_packet" | "net_memif")
}

/// The MTU a port of `driver` with `limits` needs for `frame`-byte frames
/// ([`PmdLimits::mtu_for`]); the driver's default MTU only for the drivers
/// that carry larger frames their own way ([`carries_past_frame_limit`]),
/// for any other the frame is too large.
fn mtu_for(driver: &str, limits: &PmdLimits, frame: u32) -> Result<Mtu, nic::TooLarge> {
    match limits.mtu_for(frame) {
        Ok(Mtu::Default) if !carries_past_frame_limit(driver) => Err(nic::TooLarge {
            frame,
            limit: limits.max_rx_pktlen,
            overhead: limits.overhead(),
        }),
        r => r,
    }
}

/// Size port `i` of the plan: its largest frame (a receiver that learns
/// its streams may get any frame the driver carries), MTU, RX buffers
/// (one frame, one segment: [`nic::one_segment_room`]), rings and pool.
/// A frame the port cannot carry is an error, before any traffic.
pub(super) fn port_sizing(plan: &Plan, i: usize, port: &Port) -> Result<Sizing> {
    let pp = &plan.ports[i];
    let info = port.info();
    check_frame_fits(plan, i, info)?;
    let limits = pmd_limits(info);
    let rx_auto = (plan.rx.iter()).any(|r| r.port == i && r.streams == RxStreams::Auto);
    let max_frame = if rx_auto {
        pp.max_frame
            .max((MAX_FRAME_SIZE as u32).min(limits.max_frame()))
    } else {
        pp.max_frame
    };
    let mtu = match mtu_for(&info.driver, &limits, max_frame) {
        Ok(Mtu::Set(m)) => Some(m),
        Ok(Mtu::Default) => None,
        Err(e) => return Err(too_large(plan, i, info, e)),
    };
    let room = nic::one_segment_room(max_frame)
        .max(MIN_DATA_ROOM)
        .max(af_packet_room(plan, pp));
    // The largest frame the port accepts at its MTU must fit one mbuf,
    // or the receiver walks the segments the driver chains.
    let accepted = mtu.map_or(0, |m| u32::from(m) + limits.overhead());
    let rings = port
        .adjust_rings(pp.rx_ring.max(1), pp.tx_ring.max(1))
        .map_err(|e| perr(plan, &format!("ports[{i}]"), e))?;
    let lcores = plan.eal.lcores.len();
    Ok(Sizing {
        max_frame,
        mtu,
        room,
        rx_scatter: !nic::fits_one_segment(accepted, room),
        rings,
        mbufs: mbufs_needed(pp.rx_queues, rings.0, pp.tx_queues, rings.1, lcores),
    })
}

/// The MTU of the kernel network interface of PCI device `pci` (sysfs
/// `/sys/bus/pci/devices/{pci}/net/*/mtu`, the first interface), where
/// there is one: an mlx5 port keeps its netdev beside DPDK.
pub(super) fn netdev_mtu(pci: &str) -> Option<u16> {
    if pci.is_empty() || pci.contains('/') {
        return None;
    }
    let mut ifaces: Vec<_> = std::fs::read_dir(format!("/sys/bus/pci/devices/{pci}/net"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    ifaces.sort();
    let text = crate::input::read_text(&ifaces.first()?.join("mtu"), 64).ok()?;
    text.trim().parse().ok()
}

/// Sets port `i`'s MTU after its configuration, where `size` set one and
/// the driver's MTU is landspeed's to set ([`pmd::sets_mtu`]), reads it
/// back (for mlx5 also its kernel interface's) and refuses the run when
/// the profile's frames cannot pass ([`pmd::mtu_problem`]). A receiver
/// that learns its streams asked for more than the profile's frames
/// need: when the driver refuses that, the MTU the frames need is tried.
/// Returns the MTU set (`size`'s, or the one the frames need; `None`:
/// the driver's own) and the kernel interface's MTU where it was read.
pub(super) fn apply_mtu(
    plan: &Plan,
    i: usize,
    port: &Port,
    size: &Sizing,
) -> Result<(Option<u16>, Option<u16>)> {
    let info = port.info();
    let Some(asked) = size.mtu.filter(|_| pmd::sets_mtu(&info.driver)) else {
        return Ok((size.mtu, None));
    };
    let frame = plan.ports[i].max_frame;
    let need = match mtu_for(&info.driver, &pmd_limits(info), frame) {
        Ok(Mtu::Set(m)) => m.min(asked),
        _ => asked,
    };
    let (mut asked, mut ret) = (asked, port.set_mtu(asked));
    if ret != 0 && ret != -libc::ENOTSUP && need < asked {
        (asked, ret) = (need, port.set_mtu(need));
    }
    let netdev = if pmd::mtu_in_netdev(&info.driver) {
        netdev_mtu(&info.name)
    } else {
        None
    };
    let readback = pmd::MtuReadback {
        asked,
        set_ret: ret,
        dpdk: port.mtu(),
        netdev,
    };
    let Some(why) = pmd::mtu_problem(&info.driver, readback, need, frame) else {
        return Ok((Some(asked), netdev));
    };
    let now = readback.dpdk.max(netdev.unwrap_or(0));
    let hint = if now > 0 {
        format!(
            "; its MTU now carries frames of at most {} bytes",
            u32::from(now) + pmd_limits(info).overhead()
        )
    } else {
        String::new()
    };
    Err(perr(
        plan,
        &format!("ports[{i}].device"),
        format!(
            "port {} ({}, driver {}): {why}{hint}",
            plan.ports[i].name, info.name, info.driver
        ),
    ))
}

/// Whether port `i`'s profile expects its link down when the run starts:
/// a memif server's link comes up only when its peer connects, and the
/// peer is started after it (the link watch reports the time it stays
/// down).
pub(super) fn link_down_expected(plan: &Plan, i: usize) -> bool {
    let name = plan.ports[i].device.name();
    (plan.eal.vdevs.iter())
        .filter(|v| v.split(',').next() == Some(name))
        .filter_map(|v| memif_socket(v))
        .any(|(server, _, _)| server)
}

/// What waiting for a port's link found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LinkWait {
    /// Up after this long.
    PortStart(Duration),
    /// Still down after this long, as the profile expects.
    DownExpected,
    /// Still down after this long: the run cannot start.
    Down(Duration),
}

/// The decision once the link was last seen (`up`) `waited` into a wait
/// of at most `limit`: `None` while it is worth asking again.
pub(super) fn link_decision(
    up: bool,
    waited: Duration,
    limit: Duration,
    expected_down: bool,
) -> Option<LinkWait> {
    match (up, expected_down) {
        (true, _) => Some(LinkWait::PortStart(waited)),
        (false, true) => Some(LinkWait::DownExpected),
        (false, false) if waited >= limit => Some(LinkWait::Down(waited)),
        (false, false) => None,
    }
}

/// Whether a wait of `waited` so far is long enough to say so (once).
pub(super) fn link_wait_noticed(waited: Duration) -> bool {
    waited >= LINK_QUIET
}

/// Wait up to `limit` for the link of `port` (port `i` of `plan`) to come
/// up, polling every [`LINK_POLL`]; `say` gets one line when the wait
/// takes longer than [`LINK_QUIET`]. A port whose link the profile expects
/// down is not waited for. Returns the link as last seen and the decision.
pub(super) fn wait_link(
    plan: &Plan,
    i: usize,
    port: &Port,
    limit: Duration,
    say: &mut dyn FnMut(&str),
) -> (dpdk::LinkStatus, LinkWait) {
    let expected_down = link_down_expected(plan, i);
    let start = Instant::now();
    let mut told = false;
    loop {
        let l = port.link();
        let waited = start.elapsed();
        if let Some(d) = link_decision(l.up, waited, limit, expected_down) {
            return (l, d);
        }
        if !told && link_wait_noticed(waited) {
            told = true;
            say(&format!(
                "waiting up to {} s for the link of port {} ({}) to come up",
                limit.as_secs_f64(),
                plan.ports[i].name,
                port.info().name
            ));
        }
        std::thread::sleep(LINK_POLL.min(limit.saturating_sub(waited)));
    }
}

/// The error of a link that stayed down for `waited` on port `i`.
pub(super) fn link_down_error(
    plan: &Plan,
    i: usize,
    info: &PortInfo,
    waited: Duration,
) -> crate::Error {
    perr(
        plan,
        &format!("ports[{i}].device"),
        format!(
            "the link of port {} ({}, driver {}) stayed down for {:.1} s after the port \
             started: check the cable, the peer or the switch port",
            plan.ports[i].name,
            info.name,
            info.driver,
            waited.as_secs_f64()
        ),
    )
}

/// The largest frame any stream on port `i` uses must fit what the device
/// carries: the PMD's own limit ([`PmdLimits::max_frame`]), or for
/// af_packet the kernel interface's MTU.
pub(super) fn check_frame_fits(plan: &Plan, i: usize, info: &PortInfo) -> Result<()> {
    if info.driver == "net_af_packet" {
        // af_packet reports 1518 whatever the kernel allows: the kernel
        // interface's MTU is the limit.
        return check_kernel_mtu(plan, i);
    }
    match mtu_for(&info.driver, &pmd_limits(info), plan.ports[i].max_frame) {
        Err(e) => Err(too_large(plan, i, info, e)),
        Ok(_) => Ok(()),
    }
}

/// The error for frames port `i` cannot carry: port, device, driver,
/// frame and the PMD's limit.
fn too_large(plan: &Plan, i: usize, info: &PortInfo, e: nic::TooLarge) -> crate::Error {
    perr(
        plan,
        &format!("ports[{i}].device"),
        format!(
            "port {} ({}, driver {}) cannot carry {}-byte frames: its PMD's largest frame is \
             {} bytes with FCS (max_rx_pktlen {}, max_mtu {}, L2 overhead {}); use frames of \
             at most {} bytes on this port",
            plan.ports[i].name,
            info.name,
            info.driver,
            e.frame,
            e.limit,
            info.max_rx_pktlen,
            info.max_mtu,
            e.overhead,
            e.limit
        ),
    )
}

/// The lcores of the plan's tasks on port `i` that sit on another NUMA
/// socket than the port (`port_socket`; -1, unknown, matches every one),
/// each as a warning line. `lcore_socket` gives an lcore's socket.
pub(super) fn numa_warnings(
    plan: &Plan,
    i: usize,
    port_socket: i32,
    lcore_socket: impl Fn(u32) -> Option<u32>,
) -> Vec<String> {
    let Ok(want) = u32::try_from(port_socket) else {
        return Vec::new();
    };
    let tx = (plan.tx.iter()).map(|t| ("TX", t.lcore, t.port));
    let rx = (plan.rx.iter()).map(|t| ("RX", t.lcore, t.port));
    tx.chain(rx)
        .filter(|&(_, _, port)| port == i)
        .filter_map(|(role, lcore, _)| {
            let on = lcore_socket(lcore).filter(|&s| s != want)?;
            Some(format!(
                "{role} lcore {lcore} is on NUMA socket {on}, port {} on socket {want}: every \
                 frame crosses the inter-socket link (choose lcores on the port's socket)",
                plan.ports[i].name
            ))
        })
        .collect()
}

/// An af_packet port sends through a kernel interface: its MTU (the IP
/// packet) must hold the largest frame less Ethernet header, VLAN tag and
/// FCS, or the kernel drops the frames silently.
fn check_kernel_mtu(plan: &Plan, i: usize) -> Result<()> {
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
    let need = pp
        .max_frame
        .saturating_sub(L2_OVERHEAD + if tagged { VLAN_TAG_LEN } else { 0 });
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

/// The CPU of every lcore the profile names must exist on this machine.
pub(super) fn check_lcores_exist(plan: &Plan) -> Result<()> {
    let online = online_cpus();
    let mapped = plan.eal.cpus != plan.eal.lcores;
    for (&l, &c) in plan.eal.lcores.iter().zip(&plan.eal.cpus) {
        if !online.is_empty() && !online.contains(&c) {
            let (field, what) = if mapped {
                ("eal.cpus", format!("CPU {c} (of lcore {l})"))
            } else {
                ("eal.cores", format!("lcore {l}"))
            };
            return Err(perr(
                plan,
                field,
                format!(
                    "{what} does not exist on this machine (online CPUs: {})",
                    format_cpus(&online)
                ),
            ));
        }
    }
    Ok(())
}

/// The CPUs the kernel lists as online (empty when it cannot be read).
pub fn online_cpus() -> Vec<u32> {
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

/// A CPU list as `0-3` when contiguous, else `0,2,5`.
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

    /// A pool sized for 9130-byte frames holds each in one 9 KB segment
    /// (ixgbe's 1 KB buffer units, frame + 8 bytes); 64-byte frames keep
    /// DPDK's default.
    #[test]
    fn rx_rooms_hold_a_frame_in_one_segment() {
        assert_eq!(nic::one_segment_room(9130).max(MIN_DATA_ROOM), 9216);
        assert_eq!(nic::one_segment_room(64).max(MIN_DATA_ROOM), 2048);
        assert_eq!(nic::one_segment_room(2041).max(MIN_DATA_ROOM), 3072);
    }

    /// net_tap (DPDK 22.11) reports 1522 bytes and no MTU limit: a larger
    /// frame is refused, not sent at a default MTU its TX would refuse;
    /// af_packet and memif, which report 1518 and carry more their own
    /// way, keep their default MTU.
    #[test]
    fn only_af_packet_and_memif_carry_past_their_frame_limit() {
        let tap = PmdLimits {
            max_rx_pktlen: 1522,
            min_mtu: 68,
            max_mtu: nic::NO_MTU_LIMIT,
        };
        assert_eq!(
            mtu_for("net_tap", &tap, 9130),
            Err(nic::TooLarge {
                frame: 9130,
                limit: 1522,
                overhead: 18
            })
        );
        assert_eq!(
            mtu_for("net_tap", &tap, 1523).map_err(|e| e.limit),
            Err(1522)
        );
        assert_eq!(mtu_for("net_tap", &tap, 1522), Ok(Mtu::Set(1504)));
        assert_eq!(mtu_for("net_tap", &tap, 1518), Ok(Mtu::Set(1500)));
        let kernel = PmdLimits {
            max_rx_pktlen: 1518,
            min_mtu: 46,
            max_mtu: nic::NO_MTU_LIMIT,
        };
        for driver in ["net_af_packet", "net_memif"] {
            assert_eq!(mtu_for(driver, &kernel, 9130), Ok(Mtu::Default), "{driver}");
        }
    }

    #[test]
    fn tsc_problem_names_the_missing_flags() {
        assert_eq!(
            tsc_problem_of("flags : tsc constant_tsc nonstop_tsc\n"),
            None
        );
        assert_eq!(tsc_problem_of(""), None);
        let p = tsc_problem_of("flags : tsc constant_tsc\n").expect("a problem");
        assert_eq!(
            p,
            Problem::TscNotInvariant {
                missing: vec!["nonstop_tsc".to_string()]
            }
        );
        assert_eq!(
            p.text(),
            "this CPU's TSC is not invariant (/proc/cpuinfo lacks nonstop_tsc): paced rates \
             and cycle counts drift with the core clock and its idle states"
        );
    }

    #[test]
    fn lcores_on_another_socket_than_their_port_are_named() {
        let text = "eal:\n  cores: [0, 1, 2]\n  vdevs: [net_null0]\n\
                    ports:\n  - { name: p0, device: net_null0 }\n\
                    streams:\n  - { name: a, id: 1, frame_size: 1518, ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }, udp: { src: 1, dst: 2 } }\n\
                    tx:\n  - { lcore: 1, port: p0, rate: 1G }\n\
                    rx:\n  - { lcore: 2, port: p0 }\n";
        let plan = crate::config::load_str(text, "profile").expect("a valid profile");
        let socket = |l: u32| Some(if l == 2 { 1 } else { 0 });
        let w = numa_warnings(&plan, 0, 0, socket);
        assert_eq!(
            w,
            vec![
                "RX lcore 2 is on NUMA socket 1, port p0 on socket 0: every frame crosses \
                 the inter-socket link (choose lcores on the port's socket)"
            ]
        );
        assert_eq!(
            numa_warnings(&plan, 0, 1, socket).len(),
            1,
            "TX lcore 1 on 0"
        );
        assert!(
            numa_warnings(&plan, 0, -1, socket).is_empty(),
            "unknown: no warning"
        );
        assert!(numa_warnings(&plan, 0, 0, |_| None).is_empty());
    }

    #[test]
    fn ring_clamped_to_device_limits() {
        assert_eq!(clamp_ring(8192, (64, 4096)), 4096);
        assert_eq!(clamp_ring(16, (64, 4096)), 64);
        assert_eq!(clamp_ring(1024, (0, 0)), 1024);
    }

    #[test]
    fn a_panic_removes_the_runtime_directory() {
        let prefix = format!("ls-test-{}", std::process::id());
        let args: Vec<String> = ["landspeed", "--no-shconf"]
            .iter()
            .map(|s| s.to_string())
            .chain([format!("--file-prefix={prefix}")])
            .collect();
        let cleanup = RunDirCleanup::for_args(&args);
        let dir = PathBuf::from("/tmp/dpdk").join(&prefix);
        assert!(cleanup.0.contains(&dir), "{:?}", cleanup.0);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        // What the EAL leaves; the hook must remove it before an abort.
        let _ = std::panic::catch_unwind(|| panic!("a test panic"));
        assert!(!dir.exists(), "the panic hook left {}", dir.display());
        drop(cleanup);
        assert!(own_dirs().iter().all(|d| !d.ends_with(&prefix)));
    }

    #[test]
    fn the_profile_port_limit_is_dpdks() {
        assert_eq!(
            crate::config::MAX_PORTS as u32,
            landspeed_sys::RTE_MAX_ETHPORTS
        );
    }

    #[test]
    fn memif_sockets_from_vdev_arguments() {
        let s = memif_socket("net_memif0,role=client,socket=/tmp/a.sock,socket-abstract=no");
        assert_eq!(s, Some((false, "/tmp/a.sock".to_string(), false)));
        let s = memif_socket("net_memif1");
        assert_eq!(s, Some((true, "/run/memif.sock".to_string(), true)));
        assert_eq!(memif_socket("net_null0"), None);
    }

    #[test]
    fn a_dead_process_s_directory_is_removed_a_live_one_kept() {
        let base = tempfile::tempdir().unwrap();
        // pid_max is at most 2^22: this pid cannot be running.
        let dead = base.path().join("ls4999999");
        let live = base.path().join(format!("ls{}", std::process::id()));
        let parent = base.path().join("ls1");
        let other = base.path().join("lsx4999999");
        for d in [&dead, &live, &parent, &other] {
            std::fs::create_dir_all(d.join("sub")).unwrap();
        }
        remove_stale_run_dirs(&[base.path().to_path_buf()]);
        assert!(!dead.exists());
        assert!(live.exists() && parent.exists() && other.exists());
        assert_eq!(auto_prefix_pid("ls123"), Some(123));
        assert_eq!(auto_prefix_pid("ls"), None);
        assert_eq!(auto_prefix_pid("ls12a"), None);
    }

    #[test]
    fn a_down_link_is_waited_for_then_refused_unless_expected() {
        let limit = LINK_WAIT;
        let ms = Duration::from_millis;
        assert_eq!(
            link_decision(true, ms(0), limit, false),
            Some(LinkWait::PortStart(ms(0)))
        );
        assert_eq!(
            link_decision(true, ms(3000), limit, true),
            Some(LinkWait::PortStart(ms(3000)))
        );
        assert_eq!(link_decision(false, ms(8999), limit, false), None);
        assert_eq!(
            link_decision(false, ms(9000), limit, false),
            Some(LinkWait::Down(ms(9000)))
        );
        assert_eq!(
            link_decision(false, ms(0), limit, true),
            Some(LinkWait::DownExpected)
        );
        assert_eq!(
            LINK_WAIT,
            Duration::from_secs(9),
            "testpmd's and l2fwd's wait"
        );
        assert!(LINK_POLL <= ms(100));
        assert!(!link_wait_noticed(ms(499)));
        assert!(link_wait_noticed(ms(500)));
    }

    #[test]
    fn only_a_memif_server_expects_its_link_down() {
        let plan = |vdev: &str, dev: &str| {
            let yaml = format!(
                "eal: {{ cores: [0, 1], vdevs: [\"{vdev}\"] }}\n\
                 ports: [ {{ name: p0, device: {dev} }} ]\n\
                 streams: [ {{ name: s, frame_size: 1518 }} ]\n\
                 rx: [ {{ lcore: 1, port: p0 }} ]\n"
            );
            crate::config::load_str(&yaml, "t.yaml").unwrap()
        };
        assert!(link_down_expected(
            &plan("net_memif0,role=server", "net_memif0"),
            0
        ));
        assert!(link_down_expected(&plan("net_memif0", "net_memif0"), 0));
        assert!(!link_down_expected(
            &plan("net_memif0,role=client", "net_memif0"),
            0
        ));
        assert!(!link_down_expected(
            &plan("net_vhost0,iface=/tmp/x.sock", "net_vhost0"),
            0
        ));
        assert!(!link_down_expected(&plan("net_null0", "net_null0"), 0));
    }

    #[test]
    fn cpu_list_formatting() {
        assert_eq!(format_cpus(&[0, 1, 2, 3]), "0-3");
        assert_eq!(format_cpus(&[0, 2]), "0,2");
    }
}
