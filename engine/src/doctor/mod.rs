//! `landspeed doctor [PROFILE]`: checks a host, and a profile's ports,
//! and says for each finding what is wrong and what to do.
//!
//! Without the EAL it reads the host: hugepages, IOMMU and vfio, CPU
//! isolation, the invariant TSC, the worker CPUs' frequency governor,
//! and for each PCI port of the profile its NUMA node, the kernel driver
//! bound to it and its kernel interface's MTU. With a profile it then
//! opens the ports once as a run would (`runtime::inspect_ports`) and
//! reports each port's driver, the TX and RX burst paths its driver
//! chose, the offloads asked and offered, whether fast free is safe, the
//! MTU set and read back, and the link. The checks over sysfs and procfs
//! text are pure ([`checks`]); this module reads the files and prints.
//! What could not be checked (a virtual device has no PCI device, a VM no
//! cpufreq) is said so, and does not count against the exit status: 0
//! when all is well, 3 with warnings, 1 with an error.

pub mod checks;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use checks::{Finding, Level};

use crate::config::{Device, Plan, PortPlan};
use crate::limits::pmd;
use crate::runtime::PortLook;
use crate::Result;

/// Where the host's kernel files are: `/sys` and `/proc` on a host, a
/// fake tree in the tests.
pub struct Host {
    /// The sysfs root.
    pub sys: PathBuf,
    /// The procfs root.
    pub proc: PathBuf,
}

impl Host {
    /// This host.
    pub fn this() -> Self {
        Host {
            sys: PathBuf::from("/sys"),
            proc: PathBuf::from("/proc"),
        }
    }

    /// The path of `rel` (`/sys/...` or `/proc/...`) under this root.
    fn path(&self, rel: &str) -> PathBuf {
        match (rel.strip_prefix("/sys/"), rel.strip_prefix("/proc/")) {
            (Some(r), _) => self.sys.join(r),
            (_, Some(r)) => self.proc.join(r),
            _ => PathBuf::from(rel),
        }
    }

    /// A file's text, when it can be read (at most 64 KiB).
    fn read(&self, rel: &str) -> Option<String> {
        crate::input::read_text(&self.path(rel), 1 << 16).ok()
    }

    /// Whether the PCI device at `addr` is Mellanox's (vendor 0x15b3).
    fn mellanox(&self, addr: &str) -> bool {
        self.read(&format!("/sys/bus/pci/devices/{addr}/vendor"))
            .is_some_and(|v| v.trim() == "0x15b3")
    }
}

/// The CPUs the profile's tasks run on.
fn worker_cpus(plan: &Plan) -> Vec<u32> {
    let lcores = (plan.tx.iter().map(|t| t.lcore)).chain(plan.rx.iter().map(|r| r.lcore));
    let mut cpus: Vec<u32> = lcores
        .filter_map(|l| {
            let k = plan.eal.lcores.iter().position(|&x| x == l)?;
            plan.eal.cpus.get(k).copied()
        })
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    cpus
}

/// The NUMA node of CPU `cpu` (sysfs `nodeN` entry of the CPU), 0 when
/// the host does not say.
fn cpu_node(host: &Host, cpu: u32) -> u32 {
    let dir = host.path(&format!("/sys/devices/system/cpu/cpu{cpu}"));
    std::fs::read_dir(dir)
        .ok()
        .and_then(|d| {
            d.filter_map(|e| e.ok())
                .find_map(|e| e.file_name().to_str()?.strip_prefix("node")?.parse().ok())
        })
        .unwrap_or(0)
}

/// The host's findings, for `plan` when one is given.
pub fn host_findings(host: &Host, plan: Option<&Plan>) -> Vec<Finding> {
    let read = |rel: &str| host.read(rel);
    let pci: Vec<&str> = plan.map_or(Vec::new(), |p| {
        (p.ports.iter())
            .filter_map(|pp| match &pp.device {
                Device::Pci(a) => Some(a.as_str()),
                Device::Vdev(_) => None,
            })
            .collect()
    });
    let intel = pci.iter().any(|a| !host.mellanox(a));
    let cmdline = read("/proc/cmdline").unwrap_or_default();
    let workers = plan.map_or(Vec::new(), worker_cpus);
    let groups = std::fs::read_dir(host.path("/sys/kernel/iommu_groups"))
        .ok()
        .map(|d| d.count());
    let mut out = vec![
        checks::hugepages(&read("/proc/meminfo").unwrap_or_default(), !pci.is_empty()),
        checks::iommu(
            &cmdline,
            groups,
            host.path("/dev/vfio/vfio").exists(),
            intel,
        ),
        checks::isolation(&cmdline, &workers),
        checks::invariant_tsc(&read("/proc/cpuinfo").unwrap_or_default()),
    ];
    let governed = if workers.is_empty() {
        vec![0]
    } else {
        workers.clone()
    };
    for cpu in governed {
        let text = read(&format!(
            "/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"
        ));
        out.push(checks::governor(cpu, text.as_deref()));
    }
    out.push(checks::turbo(
        read("/sys/devices/system/cpu/intel_pstate/no_turbo").as_deref(),
        read("/sys/devices/system/cpu/cpufreq/boost").as_deref(),
    ));
    let Some(plan) = plan else { return out };
    let nodes: Vec<u32> = workers.iter().map(|&c| cpu_node(host, c)).collect();
    for pp in &plan.ports {
        match &pp.device {
            Device::Pci(addr) => out.extend(pci_port_findings(host, pp, addr, &nodes)),
            Device::Vdev(v) => out.push(vdev_port_finding(host, plan, pp, v)),
        }
    }
    out
}

/// The findings of a profile's PCI port `pp` at `addr`: its NUMA node
/// against its worker CPUs' (`nodes`), its PCIe link, the kernel driver
/// bound to it and its kernel interface's MTU.
fn pci_port_findings(host: &Host, pp: &PortPlan, addr: &str, nodes: &[u32]) -> Vec<Finding> {
    let read = |rel: &str| host.read(rel);
    let name = pp.name.as_str();
    let dev = format!("/sys/bus/pci/devices/{addr}");
    let Some(numa) = read(&format!("{dev}/numa_node")) else {
        return vec![Finding::new(
            Level::Error,
            &format!("port {name} PCI device"),
            format!("{addr} does not exist on this host"),
            Some("check the address with `lspci -D` (ports[].device)"),
        )];
    };
    let mut out = vec![checks::port_numa(name, &numa, nodes)];
    let link = |f: &str| read(&format!("{dev}/{f}")).unwrap_or_default();
    if read(&format!("{dev}/max_link_speed")).is_some() {
        out.push(checks::pcie_link(
            name,
            (&link("current_link_speed"), &link("current_link_width")),
            (&link("max_link_speed"), &link("max_link_width")),
        ));
    }
    let bound = std::fs::read_link(host.path(&format!("{dev}/driver"))).ok();
    let bound = bound
        .as_ref()
        .and_then(|p| p.file_name()?.to_str().map(String::from));
    out.push(checks::kernel_driver(
        name,
        bound.as_deref(),
        host.mellanox(addr),
    ));
    let ifaces = std::fs::read_dir(host.path(&format!("{dev}/net"))).ok();
    let iface = ifaces.and_then(|mut d| d.next()?.ok()?.file_name().into_string().ok());
    if let Some(iface) = iface {
        let mtu = read(&format!("{dev}/net/{iface}/mtu")).unwrap_or_default();
        out.push(checks::netdev_mtu(name, &iface, &mtu, frame_mtu(pp)));
    }
    out
}

/// The finding of a profile's virtual port `pp` (vdev `v`): an af_packet
/// port's kernel interface MTU, else that there is nothing to check.
fn vdev_port_finding(host: &Host, plan: &Plan, pp: &PortPlan, v: &str) -> Finding {
    let iface = (plan.eal.vdevs.iter())
        .filter(|d| d.split(',').next() == Some(v))
        .flat_map(|d| d.split(','))
        .find_map(|kv| kv.strip_prefix("iface="));
    match iface {
        Some(iface) if v.starts_with("net_af_packet") => {
            let mtu = host
                .read(&format!("/sys/class/net/{iface}/mtu"))
                .unwrap_or_default();
            checks::netdev_mtu(&pp.name, iface, &mtu, frame_mtu(pp))
        }
        _ => Finding::new(
            Level::Unchecked,
            &format!("port {} device", pp.name),
            format!("{v} is a virtual device: no PCI device, NUMA node or kernel driver to check"),
            None,
        ),
    }
}

/// The MTU a port's largest frame needs (its size less the Ethernet
/// header and FCS).
fn frame_mtu(pp: &PortPlan) -> u32 {
    pp.max_frame.saturating_sub(18)
}

/// The findings of the ports `plan` opens (the EAL started once).
fn port_findings(plan: &Plan) -> Vec<Finding> {
    let looks = match crate::runtime::inspect_ports(plan) {
        Ok(l) => l,
        Err(e) => {
            return vec![Finding::new(
                Level::Error,
                "ports",
                format!("a run would fail: {e}"),
                Some("fix what the message names, then run the doctor again"),
            )]
        }
    };
    let mut out = Vec::new();
    for (p, pp) in looks.iter().zip(&plan.ports) {
        let n = &p.name;
        out.push(link_finding(p));
        out.push(checks::flow_control(
            n,
            p.flow_control.map(|f| f.name()),
            matches!(pp.device, Device::Pci(_)),
        ));
        out.push(tx_path_finding(p));
        out.push(match &p.setup.rx_path {
            Some(path) => Finding::new(Level::Ok, &format!("port {n} RX path"), path.clone(), None),
            None => not_reported(n, "RX path", &p.driver),
        });
        out.push(offloads_finding(p));
        out.push(fast_free_finding(p));
        out.push(mtu_finding(p));
    }
    out
}

/// A port whose driver does not report `what`.
fn not_reported(port: &str, what: &str, driver: &str) -> Finding {
    Finding::new(
        Level::Unchecked,
        &format!("port {port} {what}"),
        format!("{driver} does not report its burst path"),
        None,
    )
}

/// A port's link once started: up with its speed, or down after the wait.
fn link_finding(p: &PortLook) -> Finding {
    let check = format!("port {} link", p.name);
    if p.link.up {
        Finding::new(
            Level::Ok,
            &check,
            format!(
                "{} ({}): up, {} Mbit/s",
                p.device, p.driver, p.link.speed_mbps
            ),
            None,
        )
    } else {
        Finding::new(
            Level::Warning,
            &check,
            format!("{} ({}): down after 2 s", p.device, p.driver),
            Some("check the cable, the optics and the peer (a run waits 9 s)"),
        )
    }
}

/// The TX burst path a port's driver chose, and what took its vector path
/// away when something landspeed asked did.
fn tx_path_finding(p: &PortLook) -> Finding {
    let n = &p.name;
    let Some(path) = p.setup.tx_path.clone() else {
        return not_reported(n, "TX path", &p.driver);
    };
    let asked: Vec<&str> = p.setup.tx_offloads.iter().map(String::as_str).collect();
    match pmd::vector_tx_advice(&p.driver, &path, &asked) {
        Some(advice) => {
            let (what, fix) = advice.split_once(" → ").unwrap_or((&advice, ""));
            Finding::new(
                Level::Warning,
                &format!("port {n} TX path"),
                what,
                Some(fix),
            )
        }
        None => Finding::new(Level::Ok, &format!("port {n} TX path"), path, None),
    }
}

/// The offloads a port asked for and those its driver offers.
fn offloads_finding(p: &PortLook) -> Finding {
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(" ")
        }
    };
    let asked: Vec<String> = (p.setup.tx_offloads.iter())
        .chain(&p.setup.rx_offloads)
        .cloned()
        .collect();
    Finding::new(
        Level::Ok,
        &format!("port {} offloads", p.name),
        format!("asked: {}; offered: {}", list(&asked), list(&p.offered)),
        None,
    )
}

/// Whether fast free is offered, safe and asked on a port.
fn fast_free_finding(p: &PortLook) -> Finding {
    let ff = match (p.fast_free_offered, p.fast_free_safe) {
        (false, _) => "not offered by the driver",
        (true, true) if p.setup.fast_free => "asked: every TX queue sends from one pool",
        (true, true) => "safe, not asked: frames are chained (multi-segment TX)",
        (true, false) => {
            "not asked: a TX queue sends from several pools (a stream's template pool each, \
             the port's for gap frames), which fast free would mix up"
        }
    };
    Finding::new(Level::Ok, &format!("port {} fast free", p.name), ff, None)
}

/// The MTU set on a port and read back (and its kernel interface's).
fn mtu_finding(p: &PortLook) -> Finding {
    let check = format!("port {} MTU", p.name);
    match p.mtu {
        (Some(set), read) if read != 0 && read < set => Finding::new(
            Level::Error,
            &check,
            format!("set {set}, read back {read}"),
            Some("raise the device's MTU limit or use smaller frames"),
        ),
        (Some(set), read) => Finding::new(
            Level::Ok,
            &check,
            format!(
                "set {set}, read back {read}{}",
                p.setup
                    .netdev_mtu
                    .map_or(String::new(), |m| format!(", kernel interface {m}"))
            ),
            None,
        ),
        (None, read) => Finding::new(
            Level::Ok,
            &check,
            format!("the driver's own ({read}): its frames pass by the kernel interface's MTU"),
            None,
        ),
    }
}

/// Runs the doctor on this host and, when given, `profile`'s ports;
/// prints one line per finding and returns the exit status.
pub fn run(profile: Option<&Path>) -> Result<u8> {
    let plan = match profile {
        Some(p) => Some(crate::config::load(p)?),
        None => None,
    };
    let mut findings = host_findings(&Host::this(), plan.as_ref());
    match &plan {
        Some(plan) => findings.extend(port_findings(plan)),
        None => findings.push(Finding::new(
            Level::Unchecked,
            "ports",
            "no profile given: no port opened (drivers, burst paths, offloads, MTU, link)",
            Some("`landspeed doctor PROFILE`"),
        )),
    }
    crate::output::print(&report(&findings));
    Ok(checks::exit_status(&findings))
}

/// The printed report: one line per finding, then the counts.
pub fn report(findings: &[Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        let _ = writeln!(s, "{}", f.line());
    }
    let count = |l: Level| findings.iter().filter(|f| f.level == l).count();
    let _ = writeln!(
        s,
        "doctor: {} ok, {} warnings, {} errors, {} not checked",
        count(Level::Ok),
        count(Level::Warning),
        count(Level::Error),
        count(Level::Unchecked)
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile with one PCI port, 0000:03:00.0, worked by CPUs 2 and 3.
    const PROFILE: &str = "\
eal:
  cores: [0, 2, 3]
  hugepages: true
  pci: [\"03:00.0\"]
ports:
  - name: p0
    device: 0000:03:00.0
streams:
  - name: a
    frame_size: 9130
    ipv4: { src: 198.18.0.1, dst: 198.19.0.1 }
    udp: { src: 1024, dst: 5001 }
tx:
  - lcore: 2
    port: p0
    streams: [a]
    rate: 5G
rx:
  - lcore: 3
    port: p0
    streams: [a]
run:
  duration: 3s
";

    /// Writes `text` to `rel` under `root`, making its folders.
    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A fake host: an x8 Gen3 card trained at x4 Gen2, bound to ixgbe's
    /// kernel driver, with a 1500-byte kernel MTU, on node 1 while its
    /// worker CPUs are on node 0; hugepages none; CPUs 2 and 3 isolated
    /// but without nohz_full; turbo on; the governor powersave.
    fn fake_host() -> (tempfile::TempDir, Host) {
        let dir = tempfile::tempdir().unwrap();
        let (sys, proc) = (dir.path().join("sys"), dir.path().join("proc"));
        put(
            &proc,
            "cmdline",
            "BOOT_IMAGE=/vmlinuz root=/dev/sda1 isolcpus=2,3 intel_iommu=on iommu=pt\n",
        );
        put(
            &proc,
            "meminfo",
            "MemTotal: 24000000 kB\nHugePages_Total: 0\nHugePages_Free: 0\nHugepagesize: 2048 kB\n",
        );
        put(
            &proc,
            "cpuinfo",
            "processor : 0\nflags : fpu tsc constant_tsc nonstop_tsc\n",
        );
        let dev = "bus/pci/devices/0000:03:00.0";
        put(&sys, &format!("{dev}/numa_node"), "1\n");
        put(&sys, &format!("{dev}/vendor"), "0x8086\n");
        put(
            &sys,
            &format!("{dev}/current_link_speed"),
            "5.0 GT/s PCIe\n",
        );
        put(&sys, &format!("{dev}/current_link_width"), "4\n");
        put(&sys, &format!("{dev}/max_link_speed"), "8.0 GT/s PCIe\n");
        put(&sys, &format!("{dev}/max_link_width"), "8\n");
        put(&sys, &format!("{dev}/net/enp3s0/mtu"), "1500\n");
        std::fs::create_dir_all(sys.join("bus/pci/drivers/ixgbe")).unwrap();
        std::os::unix::fs::symlink(
            sys.join("bus/pci/drivers/ixgbe"),
            sys.join(dev).join("driver"),
        )
        .unwrap();
        for cpu in [2, 3] {
            put(&sys, &format!("devices/system/cpu/cpu{cpu}/node0/x"), "");
            put(
                &sys,
                &format!("devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor"),
                "powersave\n",
            );
        }
        put(&sys, "devices/system/cpu/intel_pstate/no_turbo", "0\n");
        std::fs::create_dir_all(sys.join("kernel/iommu_groups/0")).unwrap();
        (dir, Host { sys, proc })
    }

    /// The finding of check `check` among `all`.
    fn of<'a>(all: &'a [Finding], check: &str) -> &'a Finding {
        all.iter()
            .find(|f| f.check == check)
            .unwrap_or_else(|| panic!("no `{check}` in {all:#?}"))
    }

    #[test]
    fn a_fake_host_with_a_card_trained_below_its_slot_reads_as_it_is() {
        let (_dir, host) = fake_host();
        let plan = crate::config::load_str(PROFILE, "t.yaml").unwrap();
        let all = host_findings(&host, Some(&plan));
        let pcie = of(&all, "port p0 PCIe link");
        assert_eq!(pcie.level, Level::Warning);
        assert!(
            pcie.found
                .starts_with("trained at Gen2 x4, capable of Gen3 x8: "),
            "{}",
            pcie.found
        );
        let numa = of(&all, "port p0 NUMA");
        assert_eq!(numa.level, Level::Warning);
        assert!(
            numa.found
                .starts_with("device on node 1, worker CPUs on node(s) [0, 0]"),
            "{}",
            numa.found
        );
        let drv = of(&all, "port p0 kernel driver");
        assert_eq!(
            (drv.level, drv.found.as_str()),
            (
                Level::Error,
                "ixgbe: DPDK cannot take the device from a kernel driver"
            )
        );
        let mtu = of(&all, "port p0 MTU");
        assert_eq!(
            (mtu.level, mtu.found.as_str()),
            (Level::Error, "enp3s0 MTU 1500, frames need 9112")
        );
        assert_eq!(mtu.fix.as_deref(), Some("`ip link set enp3s0 mtu 9112`"));
        assert_eq!(of(&all, "hugepages").level, Level::Error);
        let iso = of(&all, "CPU isolation");
        assert_eq!(iso.level, Level::Warning);
        assert!(
            iso.found.starts_with("worker CPUs [2, 3] not in both"),
            "{}",
            iso.found
        );
        assert_eq!(of(&all, "invariant TSC").level, Level::Ok);
        assert_eq!(
            of(&all, "CPU 2 governor").found,
            "powersave: the clock changes under load"
        );
        assert_eq!(of(&all, "CPU turbo").level, Level::Warning);
        assert_eq!(checks::exit_status(&all), 1);
        // Put right, the same tree passes but for what a VM cannot say.
        let dev = host.sys.join("bus/pci/devices/0000:03:00.0");
        std::fs::write(dev.join("current_link_speed"), "8.0 GT/s PCIe\n").unwrap();
        std::fs::write(dev.join("current_link_width"), "8\n").unwrap();
        std::fs::write(dev.join("numa_node"), "0\n").unwrap();
        std::fs::write(dev.join("net/enp3s0/mtu"), "9112\n").unwrap();
        std::fs::remove_file(dev.join("driver")).unwrap();
        std::fs::create_dir_all(host.sys.join("bus/pci/drivers/vfio-pci")).unwrap();
        std::os::unix::fs::symlink(
            host.sys.join("bus/pci/drivers/vfio-pci"),
            dev.join("driver"),
        )
        .unwrap();
        let all = host_findings(&host, Some(&plan));
        for check in [
            "port p0 PCIe link",
            "port p0 NUMA",
            "port p0 kernel driver",
            "port p0 MTU",
        ] {
            assert_eq!(of(&all, check).level, Level::Ok, "{:?}", of(&all, check));
        }
        assert_eq!(
            of(&all, "port p0 PCIe link").found.split(',').next(),
            Some("Gen3 x8")
        );
    }
}
