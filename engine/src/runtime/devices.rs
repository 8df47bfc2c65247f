//! What the runtime needs to know about the machine and its devices
//! before and around DPDK: online CPUs, af_packet vdevs and their kernel
//! interfaces, DPDK's runtime directories (and removing the one a run
//! makes, also when it panics), pool and ring sizes, the link.

use std::path::PathBuf;
use std::sync::{Mutex, Once, TryLockError};
use std::time::{Duration, Instant};

use crate::config::{Plan, PortPlan};
use crate::dpdk::{self, Port, PortInfo, CACHE_MAX};
use crate::wire::spec::FCS_LEN;
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
/// How long a started port gets to report its link up.
const LINK_WAIT: Duration = Duration::from_secs(1);
/// How often the link is asked while waiting.
const LINK_POLL: Duration = Duration::from_millis(10);

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

/// Wait up to [`LINK_WAIT`] for the link to come up.
pub(super) fn wait_link(port: &Port) -> dpdk::LinkStatus {
    let deadline = Instant::now() + LINK_WAIT;
    loop {
        let l = port.link();
        if l.up || Instant::now() >= deadline {
            return l;
        }
        std::thread::sleep(LINK_POLL);
    }
}

/// The largest frame any stream on port `i` uses must fit what the device
/// accepts.
pub(super) fn check_frame_fits(plan: &Plan, i: usize, info: &PortInfo) -> Result<()> {
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
        .max(u32::from(info.max_mtu).saturating_add(L2_OVERHEAD));
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

/// Every lcore the profile names must exist on this machine.
pub(super) fn check_lcores_exist(plan: &Plan) -> Result<()> {
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

/// The CPUs the kernel lists as online (empty when it cannot be read).
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
    fn cpu_list_formatting() {
        assert_eq!(format_cpus(&[0, 1, 2, 3]), "0-3");
        assert_eq!(format_cpus(&[0, 2]), "0,2");
    }
}
