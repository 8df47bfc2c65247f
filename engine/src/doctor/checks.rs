//! The host checks of `landspeed doctor`, each a pure function of the text
//! of a sysfs or procfs file (or what is known of the profile), giving
//! one [`Finding`]: what is right, or what is wrong and what to do. The
//! caller reads the files; a file it could not read makes a finding of
//! what could not be checked.
#![forbid(unsafe_code)]

use serde::Serialize;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// As it should be.
    Ok,
    /// Could not be checked here (a file absent, a virtual device).
    Unchecked,
    /// A run works but its figures may suffer.
    Warning,
    /// A run fails or its figures are wrong.
    Error,
}

impl Level {
    /// The word printed before the finding.
    pub fn tag(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Unchecked => "unchecked",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One check's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How bad.
    pub level: Level,
    /// What was checked (`hugepages`, `port p0 MTU`, ...).
    pub check: String,
    /// What was found.
    pub found: String,
    /// What to do (none when all is well).
    pub fix: Option<String>,
}

impl Finding {
    /// A finding of `level`.
    pub fn new(level: Level, check: &str, found: impl Into<String>, fix: Option<&str>) -> Self {
        Finding {
            level,
            check: check.to_string(),
            found: found.into(),
            fix: fix.map(str::to_string),
        }
    }

    /// Its line: `warning  hugepages: none reserved → reserve ...`.
    pub fn line(&self) -> String {
        let fix = self
            .fix
            .as_deref()
            .map_or(String::new(), |f| format!(" → {f}"));
        format!(
            "{:<9} {}: {}{fix}",
            self.level.tag(),
            self.check,
            self.found
        )
    }
}

/// The exit status of a doctor's findings: 1 with an error, 3 with a
/// warning, else 0 (what could not be checked is said, not counted).
pub fn exit_status(findings: &[Finding]) -> u8 {
    match findings.iter().map(|f| f.level).max() {
        Some(Level::Error) => 1,
        Some(Level::Warning) => 3,
        _ => 0,
    }
}

/// A `key: value kB`-style field of `/proc/meminfo`.
fn meminfo_field(meminfo: &str, key: &str) -> Option<u64> {
    meminfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.split_whitespace().next()?.parse().ok())?
    })
}

/// Hugepages from `/proc/meminfo`: reserved and free. A profile that
/// runs without them (`hugepages: false`) only needs them for PCI
/// devices (`pci`: the profile names PCI devices).
pub fn hugepages(meminfo: &str, pci: bool) -> Finding {
    const CHECK: &str = "hugepages";
    let (Some(total), Some(free), Some(size)) = (
        meminfo_field(meminfo, "HugePages_Total"),
        meminfo_field(meminfo, "HugePages_Free"),
        meminfo_field(meminfo, "Hugepagesize"),
    ) else {
        return Finding::new(
            Level::Unchecked,
            CHECK,
            "/proc/meminfo has no hugepage counts",
            None,
        );
    };
    let mb = |n: u64| n * size / 1024;
    if total == 0 {
        let level = if pci { Level::Error } else { Level::Warning };
        return Finding::new(
            level,
            CHECK,
            "none reserved (DPDK runs only with --no-huge, which a PCI device cannot use)",
            Some(
                "reserve them, e.g. `echo 1024 > /proc/sys/vm/nr_hugepages` or \
                 `default_hugepagesz=1G hugepagesz=1G hugepages=8` on the kernel command line \
                 (docs/real-nics.md, 3)",
            ),
        );
    }
    if free == 0 {
        return Finding::new(
            Level::Error,
            CHECK,
            format!("{total} of {size} kB reserved, none free"),
            Some("stop the process that holds them, or reserve more"),
        );
    }
    Finding::new(
        Level::Ok,
        CHECK,
        format!(
            "{free} of {total} free ({} MB of {size} kB pages)",
            mb(free)
        ),
        None,
    )
}

/// The words of the kernel command line (`/proc/cmdline`) as `key` or
/// `key=value`.
fn cmdline_value<'a>(cmdline: &'a str, key: &str) -> Option<&'a str> {
    cmdline
        .split_whitespace()
        .find_map(|w| match w.split_once('=') {
            Some((k, v)) if k == key => Some(v),
            None if w == key => Some(""),
            _ => None,
        })
}

/// IOMMU and vfio: `iommu_groups` is the number of entries in
/// `/sys/kernel/iommu_groups` (`None`: unreadable), `vfio` whether
/// `/dev/vfio/vfio` exists; needed by Intel NICs bound to vfio-pci
/// (`intel`: the profile names a PCI device that is not mlx5).
pub fn iommu(cmdline: &str, iommu_groups: Option<usize>, vfio: bool, intel: bool) -> Finding {
    const CHECK: &str = "IOMMU/vfio";
    let on = cmdline_value(cmdline, "intel_iommu") == Some("on")
        || cmdline_value(cmdline, "amd_iommu") == Some("on")
        || iommu_groups.is_some_and(|n| n > 0);
    let bad = if intel { Level::Error } else { Level::Warning };
    if !on {
        return Finding::new(
            bad,
            CHECK,
            "no IOMMU groups: vfio-pci cannot take a NIC",
            Some("add `intel_iommu=on iommu=pt` (or `amd_iommu=on`) to the kernel command line and reboot (docs/real-nics.md, 4)"),
        );
    }
    if !vfio {
        return Finding::new(
            bad,
            CHECK,
            "IOMMU on, but /dev/vfio/vfio is missing",
            Some("`modprobe vfio-pci`"),
        );
    }
    let groups = iommu_groups.map_or("?".to_string(), |n| n.to_string());
    Finding::new(
        Level::Ok,
        CHECK,
        format!("IOMMU on ({groups} groups), vfio loaded"),
        None,
    )
}

/// A CPU list (`0-3,8,10-11`) as numbers; `None` when malformed.
pub fn cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut v = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                if a > b {
                    return None;
                }
                v.extend(a..=b);
            }
            None => v.push(part.parse().ok()?),
        }
    }
    Some(v)
}

/// CPU isolation of the profile's worker CPUs (`workers`) from the
/// kernel command line: `isolcpus` (the scheduler leaves them alone) and
/// `nohz_full` (no timer tick while one task runs). Without a profile
/// (`workers` empty), whether any CPU is isolated.
pub fn isolation(cmdline: &str, workers: &[u32]) -> Finding {
    const CHECK: &str = "CPU isolation";
    let list = |key: &str| {
        let v = cmdline_value(cmdline, key)?;
        // isolcpus may start with flags: `isolcpus=nohz,domain,2-7`.
        let cpus = v
            .rsplit(',')
            .take_while(|p| p.chars().next().is_some_and(|c| c.is_ascii_digit()));
        let joined: Vec<&str> = cpus.collect::<Vec<_>>().into_iter().rev().collect();
        cpu_list(&joined.join(","))
    };
    let iso = list("isolcpus").unwrap_or_default();
    let nohz = list("nohz_full").unwrap_or_default();
    let fix = "add `isolcpus=W nohz_full=W rcu_nocbs=W` for the worker CPUs W to the kernel \
               command line (docs/real-nics.md, 2)";
    if workers.is_empty() {
        return if iso.is_empty() {
            Finding::new(
                Level::Warning,
                CHECK,
                "no CPU isolated (isolcpus)",
                Some(fix),
            )
        } else {
            Finding::new(
                Level::Ok,
                CHECK,
                format!("isolcpus {iso:?}, nohz_full {nohz:?}"),
                None,
            )
        };
    }
    let missing: Vec<u32> = workers
        .iter()
        .copied()
        .filter(|c| !iso.contains(c) || !nohz.contains(c))
        .collect();
    if missing.is_empty() {
        Finding::new(
            Level::Ok,
            CHECK,
            format!("worker CPUs {workers:?} in isolcpus and nohz_full"),
            None,
        )
    } else {
        Finding::new(
            Level::Warning,
            CHECK,
            format!("worker CPUs {missing:?} not in both isolcpus and nohz_full: the kernel may run other work on them"),
            Some(fix),
        )
    }
}

/// The invariant TSC from `/proc/cpuinfo`.
pub fn invariant_tsc(cpuinfo: &str) -> Finding {
    const CHECK: &str = "invariant TSC";
    match crate::limits::host::missing_tsc_flags(cpuinfo) {
        None => Finding::new(Level::Unchecked, CHECK, "/proc/cpuinfo has no flags line", None),
        Some(m) if m.is_empty() => Finding::new(Level::Ok, CHECK, "constant_tsc nonstop_tsc", None),
        Some(m) => Finding::new(
            Level::Error,
            CHECK,
            format!("missing {}: departures and cycle counts drift", m.join(" ")),
            Some("run on a host whose CPU has an invariant TSC (on a VM, expose it: `-cpu host,+invtsc`)"),
        ),
    }
}

/// The frequency governor of a worker CPU (`scaling_governor`; `None`:
/// the file is absent, as on many VMs).
pub fn governor(cpu: u32, text: Option<&str>) -> Finding {
    let check = format!("CPU {cpu} governor");
    match text.map(str::trim) {
        None => Finding::new(
            Level::Unchecked,
            &check,
            "no cpufreq here (a VM, or no driver)",
            None,
        ),
        Some("performance") => Finding::new(Level::Ok, &check, "performance", None),
        Some(g) => Finding::new(
            Level::Warning,
            &check,
            format!("{g}: the clock changes under load"),
            Some(&format!(
                "`echo performance > /sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor`"
            )),
        ),
    }
}

/// The NUMA node of a port's PCI device (`numa_node`) against the
/// nodes of the profile's worker CPUs on it (`worker_nodes`).
pub fn port_numa(port: &str, numa_node: &str, worker_nodes: &[u32]) -> Finding {
    let check = format!("port {port} NUMA");
    let Ok(node) = numa_node.trim().parse::<i32>() else {
        return Finding::new(Level::Unchecked, &check, "numa_node unreadable", None);
    };
    if node < 0 {
        return Finding::new(Level::Ok, &check, "one NUMA node (numa_node -1)", None);
    }
    let far: Vec<u32> = (worker_nodes.iter().copied())
        .filter(|&n| n != node as u32)
        .collect();
    if far.is_empty() {
        Finding::new(
            Level::Ok,
            &check,
            format!("node {node}, as its worker CPUs"),
            None,
        )
    } else {
        Finding::new(
            Level::Warning,
            &check,
            format!("device on node {node}, worker CPUs on node(s) {far:?}: every frame crosses sockets"),
            Some("choose worker CPUs on the device's node (`lscpu`, docs/real-nics.md, 1)"),
        )
    }
}

/// The kernel driver bound to a port's PCI device (the name of its
/// sysfs `driver` link; `None`: none bound) for the DPDK driver family
/// the device needs: mlx5 stays on `mlx5_core` (bifurcated), every other
/// NIC on `vfio-pci` (or `uio_pci_generic`/`igb_uio`).
pub fn kernel_driver(port: &str, bound: Option<&str>, mlx5: bool) -> Finding {
    let check = format!("port {port} kernel driver");
    match (bound, mlx5) {
        (Some("mlx5_core"), true) => {
            Finding::new(Level::Ok, &check, "mlx5_core (mlx5 needs no binding)", None)
        }
        (Some(d), true) => Finding::new(
            Level::Error,
            &check,
            format!("{d}: mlx5 works through mlx5_core"),
            Some("bind it back to mlx5_core (`dpdk-devbind.py -b mlx5_core ADDR`)"),
        ),
        (Some(d @ ("vfio-pci" | "uio_pci_generic" | "igb_uio")), false) => {
            Finding::new(Level::Ok, &check, d, None)
        }
        (Some(d), false) => Finding::new(
            Level::Error,
            &check,
            format!("{d}: DPDK cannot take the device from a kernel driver"),
            Some("`dpdk-devbind.py -b vfio-pci ADDR` (docs/real-nics.md, 4)"),
        ),
        (None, _) => Finding::new(
            Level::Error,
            &check,
            "no driver bound",
            Some(if mlx5 {
                "`modprobe mlx5_core`"
            } else {
                "`dpdk-devbind.py -b vfio-pci ADDR`"
            }),
        ),
    }
}

/// A kernel interface's MTU (`mtu`, from sysfs) against what the
/// profile's frames need (`need`).
pub fn netdev_mtu(port: &str, iface: &str, mtu: &str, need: u32) -> Finding {
    let check = format!("port {port} MTU");
    let Ok(m) = mtu.trim().parse::<u32>() else {
        return Finding::new(
            Level::Unchecked,
            &check,
            format!("{iface}: mtu unreadable"),
            None,
        );
    };
    if m >= need {
        Finding::new(
            Level::Ok,
            &check,
            format!("{iface} MTU {m} (frames need {need})"),
            None,
        )
    } else {
        Finding::new(
            Level::Error,
            &check,
            format!("{iface} MTU {m}, frames need {need}"),
            Some(&format!("`ip link set {iface} mtu {need}`")),
        )
    }
}

/// A sysfs PCIe link speed (`8.0 GT/s PCIe`, `5 GT/s`) as the
/// generation it trains at; `None` when unknown.
fn pcie_gen(speed: &str) -> Option<u8> {
    let gts: f64 = speed
        .split_whitespace()
        .next()?
        .trim_end_matches("GT/s")
        .parse()
        .ok()?;
    [2.5, 5.0, 8.0, 16.0, 32.0]
        .iter()
        .position(|g| (g - gts).abs() < 0.01)
        .map(|i| i as u8 + 1)
}

/// The PCIe link a port's device trained (`current_link_speed`,
/// `current_link_width`) against the link it and its slot can do
/// (`max_link_speed`, `max_link_width`): a card trained below its
/// capability (an x8 card in an x4 slot, a Gen3 card at Gen2) has the
/// bus as its limit, and the verdict would name the PCIe bus.
pub fn pcie_link(port: &str, current: (&str, &str), max: (&str, &str)) -> Finding {
    let check = format!("port {port} PCIe link");
    let width = |w: &str| w.trim().trim_start_matches(['x', 'X']).parse::<u8>().ok();
    let (cur_gen, cur_w) = (pcie_gen(current.0.trim()), width(current.1));
    let (max_gen, max_w) = (pcie_gen(max.0.trim()), width(max.1));
    let (Some(cg), Some(cw), Some(mg), Some(mw)) = (cur_gen, cur_w, max_gen, max_w) else {
        return Finding::new(
            Level::Unchecked,
            &check,
            format!(
                "link speed or width unreadable (current `{}` x`{}`, capable `{}` x`{}`)",
                current.0.trim(),
                current.1.trim(),
                max.0.trim(),
                max.1.trim()
            ),
            None,
        );
    };
    let gbps =
        |g: u8, w: u8| crate::limits::bus::Bus::pcie(g, w).map_or(0.0, |b| b.usable_bps() / 1e9);
    let now = format!("Gen{cg} x{cw}");
    if cg >= mg && cw >= mw {
        return Finding::new(
            Level::Ok,
            &check,
            format!("{now}, as capable ({:.1} Gbit/s each way)", gbps(cg, cw)),
            None,
        );
    }
    Finding::new(
        Level::Warning,
        &check,
        format!(
            "trained at {now}, capable of Gen{mg} x{mw}: {:.1} Gbit/s each way instead of {:.1}, \
             so the bus may be the run's limit",
            gbps(cg, cw),
            gbps(mg, mw)
        ),
        Some(
            "move the card to a slot wired for its width and generation, check the slot's \
             BIOS setting (`lspci -vv`: LnkSta against LnkCap; docs/real-nics.md, 1)",
        ),
    )
}

/// What became of a port's 802.3x flow control when it was configured
/// (`state`: the JSON's word, `turned_off`, `already_off`,
/// `not_supported`, `read_failed`, `still_on`), on a PCI device
/// (`physical`) or a virtual one, which has none.
pub fn flow_control(port: &str, state: Option<&str>, physical: bool) -> Finding {
    let check = format!("port {port} flow control");
    match (state, physical) {
        (Some(s @ ("turned_off" | "already_off")), _) => {
            Finding::new(Level::Ok, &check, s.replace('_', " "), None)
        }
        (_, false) => Finding::new(Level::Unchecked, &check, "a virtual device has none", None),
        (Some(s), true) => Finding::new(
            Level::Warning,
            &check,
            format!(
                "{}: PAUSE frames from the peer may throttle the sender, so a rate or the \
                 absence of loss may be the peer's back-pressure",
                s.replace('_', " ")
            ),
            Some(
                "turn PAUSE off on the peer's port, and on the NIC before binding it \
                 (`ethtool -A IFACE rx off tx off autoneg off`; docs/real-nics.md, 6)",
            ),
        ),
        (None, true) => Finding::new(Level::Unchecked, &check, "not configured", None),
    }
}

/// CPU turbo from intel_pstate's `no_turbo` (`1`: off) or cpufreq's
/// `boost` (`0`: off); `None` where the file is absent.
pub fn turbo(no_turbo: Option<&str>, boost: Option<&str>) -> Finding {
    const CHECK: &str = "CPU turbo";
    let on = match (no_turbo.map(str::trim), boost.map(str::trim)) {
        (Some("1"), _) | (_, Some("0")) => false,
        (Some("0"), _) | (_, Some("1")) => true,
        _ => {
            return Finding::new(
                Level::Unchecked,
                CHECK,
                "no intel_pstate/no_turbo or cpufreq/boost here (a VM, or no driver)",
                None,
            )
        }
    };
    if on {
        Finding::new(
            Level::Warning,
            CHECK,
            "on: the core clock follows load and temperature, so cycles per frame and the \
             CPU's share of a limit move between runs",
            Some(
                "`echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo` (or `echo 0 > \
                 /sys/devices/system/cpu/cpufreq/boost`)",
            ),
        )
    } else {
        Finding::new(Level::Ok, CHECK, "off", None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str = "MemTotal:       24000000 kB\nHugePages_Total:    1024\n\
                           HugePages_Free:      512\nHugepagesize:       2048 kB\n";

    #[test]
    fn hugepages_reserved_free_or_none() {
        let f = hugepages(MEMINFO, true);
        assert_eq!(
            f.line(),
            "ok        hugepages: 512 of 1024 free (1024 MB of 2048 kB pages)"
        );
        let none = MEMINFO
            .replace("Total:    1024", "Total:    0")
            .replace("Free:      512", "Free:      0");
        assert_eq!(hugepages(&none, true).level, Level::Error);
        let f = hugepages(&none, false);
        assert_eq!(f.level, Level::Warning);
        assert!(
            f.line().starts_with(
                "warning   hugepages: none reserved (DPDK runs only with --no-huge, which a PCI \
             device cannot use) → reserve them"
            ),
            "{}",
            f.line()
        );
        let full = MEMINFO.replace("Free:      512", "Free:      0");
        assert_eq!(
            hugepages(&full, false).line(),
            "error     hugepages: 1024 of 2048 kB reserved, none free → stop the process that \
             holds them, or reserve more"
        );
        assert_eq!(hugepages("", false).level, Level::Unchecked);
    }

    #[test]
    fn iommu_and_vfio() {
        let cmd = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on iommu=pt";
        assert_eq!(
            iommu(cmd, Some(40), true, true).line(),
            "ok        IOMMU/vfio: IOMMU on (40 groups), vfio loaded"
        );
        assert_eq!(
            iommu("root=/dev/sda1", Some(3), true, true).level,
            Level::Ok
        );
        let f = iommu("root=/dev/sda1", Some(0), false, true);
        assert_eq!(f.level, Level::Error);
        assert!(f
            .line()
            .contains("no IOMMU groups: vfio-pci cannot take a NIC → add `intel_iommu=on"));
        assert_eq!(
            iommu("root=/dev/sda1", None, false, false).level,
            Level::Warning
        );
        let f = iommu(cmd, Some(0), false, true);
        assert_eq!(
            f.line(),
            "error     IOMMU/vfio: IOMMU on, but /dev/vfio/vfio is missing → `modprobe vfio-pci`"
        );
        assert_eq!(iommu("amd_iommu=on", None, true, false).level, Level::Ok);
        assert_eq!(
            iommu("intel_iommu=off", None, true, true).level,
            Level::Error
        );
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(cpu_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(cpu_list(""), Some(vec![]));
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(cpu_list("a"), None);
    }

    #[test]
    fn worker_cpus_isolated_or_not() {
        let cmd = "root=/dev/sda1 isolcpus=nohz,domain,2-5 nohz_full=2-5 rcu_nocbs=2-5";
        assert_eq!(
            isolation(cmd, &[2, 3]).line(),
            "ok        CPU isolation: worker CPUs [2, 3] in isolcpus and nohz_full"
        );
        let f = isolation(cmd, &[1, 2, 6]);
        assert_eq!(f.level, Level::Warning);
        assert!(
            f.found.starts_with("worker CPUs [1, 6] not in both"),
            "{}",
            f.found
        );
        let f = isolation("root=/dev/sda1 isolcpus=2,3", &[2]);
        assert_eq!(f.level, Level::Warning, "nohz_full missing");
        assert_eq!(isolation("root=/dev/sda1", &[]).level, Level::Warning);
        assert_eq!(isolation(cmd, &[]).level, Level::Ok);
    }

    #[test]
    fn tsc_governor_numa_driver_mtu() {
        let flags = "flags\t: fpu tsc constant_tsc nonstop_tsc\n";
        assert_eq!(
            invariant_tsc(flags).line(),
            "ok        invariant TSC: constant_tsc nonstop_tsc"
        );
        assert_eq!(invariant_tsc("flags\t: fpu tsc\n").level, Level::Error);
        assert_eq!(invariant_tsc("").level, Level::Unchecked);

        assert_eq!(governor(2, Some("performance\n")).level, Level::Ok);
        assert_eq!(
            governor(2, Some("powersave\n")).line(),
            "warning   CPU 2 governor: powersave: the clock changes under load → `echo \
             performance > /sys/devices/system/cpu/cpu2/cpufreq/scaling_governor`"
        );
        assert_eq!(governor(2, None).level, Level::Unchecked);

        assert_eq!(port_numa("p0", "1\n", &[1, 1]).level, Level::Ok);
        assert_eq!(port_numa("p0", "-1\n", &[0, 1]).level, Level::Ok);
        let f = port_numa("p0", "1\n", &[0, 1]);
        assert_eq!(f.level, Level::Warning);
        assert_eq!(
            f.found,
            "device on node 1, worker CPUs on node(s) [0]: every frame crosses sockets"
        );
        assert_eq!(port_numa("p0", "x", &[0]).level, Level::Unchecked);

        assert_eq!(
            kernel_driver("p0", Some("vfio-pci"), false).level,
            Level::Ok
        );
        assert_eq!(
            kernel_driver("p0", Some("mlx5_core"), true).level,
            Level::Ok
        );
        assert_eq!(
            kernel_driver("p0", Some("ixgbe"), false).line(),
            "error     port p0 kernel driver: ixgbe: DPDK cannot take the device from a kernel \
             driver → `dpdk-devbind.py -b vfio-pci ADDR` (docs/real-nics.md, 4)"
        );
        assert_eq!(
            kernel_driver("p0", Some("vfio-pci"), true).level,
            Level::Error
        );
        assert_eq!(kernel_driver("p0", None, false).level, Level::Error);

        assert_eq!(netdev_mtu("p0", "ens1f0", "9000\n", 9112).line(), "error     port p0 MTU: ens1f0 MTU 9000, frames need 9112 → `ip link set ens1f0 mtu 9112`");
        assert_eq!(netdev_mtu("p0", "ens1f0", "9216\n", 9112).level, Level::Ok);
        assert_eq!(netdev_mtu("p0", "ens1f0", "", 9112).level, Level::Unchecked);
    }

    #[test]
    fn a_pcie_link_below_its_capability_is_a_warning() {
        let f = pcie_link("p0", ("8.0 GT/s PCIe", "8"), ("8.0 GT/s PCIe", "8"));
        assert_eq!(f.level, Level::Ok, "{f:?}");
        assert!(f.found.starts_with("Gen3 x8, as capable"), "{}", f.found);
        // An x8 Gen3 card in an x4 slot that trained at Gen2.
        let f = pcie_link("p0", ("5.0 GT/s PCIe", "4"), ("8.0 GT/s PCIe", "8"));
        assert_eq!(f.level, Level::Warning);
        let (slow, fast) = (
            crate::limits::bus::Bus::pcie(2, 4).unwrap().usable_bps() / 1e9,
            crate::limits::bus::Bus::pcie(3, 8).unwrap().usable_bps() / 1e9,
        );
        assert_eq!(
            f.found,
            format!(
                "trained at Gen2 x4, capable of Gen3 x8: {slow:.1} Gbit/s each way instead of \
                 {fast:.1}, so the bus may be the run's limit"
            )
        );
        assert!(slow < 16.0 && fast > 60.0, "{slow} {fast}");
        // Width alone, or generation alone.
        let w = pcie_link("p0", ("8.0 GT/s PCIe", "4"), ("8.0 GT/s PCIe", "8"));
        let g = pcie_link("p0", ("2.5 GT/s PCIe", "8"), ("8.0 GT/s PCIe", "8"));
        assert_eq!((w.level, g.level), (Level::Warning, Level::Warning));
        // A link down reads `Unknown`.
        let u = pcie_link("p0", ("Unknown", "0"), ("8.0 GT/s PCIe", "8"));
        assert_eq!(u.level, Level::Unchecked);
    }

    #[test]
    fn flow_control_left_on_is_a_warning_on_a_physical_port() {
        assert_eq!(
            flow_control("p0", Some("turned_off"), true).level,
            Level::Ok
        );
        assert_eq!(
            flow_control("p0", Some("already_off"), true).found,
            "already off"
        );
        let f = flow_control("p0", Some("still_on"), true);
        assert_eq!(f.level, Level::Warning);
        assert!(f.found.starts_with("still on: PAUSE frames"), "{}", f.found);
        assert_eq!(
            flow_control("p0", Some("not_supported"), true).level,
            Level::Warning
        );
        assert_eq!(
            flow_control("p0", Some("not_supported"), false).level,
            Level::Unchecked
        );
    }

    #[test]
    fn turbo_on_off_or_unknown() {
        assert_eq!(turbo(Some("0\n"), None).level, Level::Warning);
        assert_eq!(turbo(Some("1\n"), None).level, Level::Ok);
        assert_eq!(turbo(None, Some("1")).level, Level::Warning);
        assert_eq!(turbo(None, Some("0")).level, Level::Ok);
        assert_eq!(turbo(None, None).level, Level::Unchecked);
        assert_eq!(
            turbo(Some("1"), Some("1")).level,
            Level::Ok,
            "no_turbo rules"
        );
    }

    #[test]
    fn the_exit_status_is_the_worst_finding() {
        let f = |level| Finding::new(level, "x", "y", None);
        assert_eq!(exit_status(&[]), 0);
        assert_eq!(exit_status(&[f(Level::Ok), f(Level::Unchecked)]), 0);
        assert_eq!(exit_status(&[f(Level::Ok), f(Level::Warning)]), 3);
        assert_eq!(exit_status(&[f(Level::Error), f(Level::Warning)]), 1);
    }
}
