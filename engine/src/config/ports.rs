//! The `ports:` section: each port's name and device (a vdev of
//! `eal.vdevs` or a PCI address of `eal.pci`, each used once), its
//! queues, rings, checksum offload, payload, link and bus.

use super::check::Checker;
use super::eal::canonical_pci;
use super::error::ConfigError;
use super::ext::{Bus, LinkKind};
use super::plan::{Checksum, Device, EalPlan, Payload, PortPlan};
use super::raw;

/// DPDK's limit on queues per port (`RTE_MAX_QUEUES_PER_PORT`).
const MAX_QUEUES: u16 = 1024;

/// Largest ring accepted here; the runtime adjusts rings to the device.
const MAX_RING: u16 = 32768;

impl Checker<'_> {
    /// `ports:`
    pub(super) fn ports(
        &self,
        ports: &[raw::Port],
        eal: &EalPlan,
    ) -> Result<Vec<PortPlan>, ConfigError> {
        if ports.is_empty() {
            return Err(self.err(
                "ports",
                "the profile has no port: add a ports: list with at least one port",
            ));
        }
        let mesh_names = ring_mesh_devices(eal.ring_mesh);
        let mut vdev_names = device_names(&eal.vdevs);
        vdev_names.extend(mesh_names.iter().map(String::as_str));
        let pci_names = device_names(&eal.pci);
        let mut out: Vec<PortPlan> = Vec::with_capacity(ports.len());
        for (i, p) in ports.iter().enumerate() {
            let at = format!("ports[{i}]");
            let name = p.name.trim();
            self.check_name(&at, "port", name, out.iter().position(|q| q.name == name))?;
            let dev = p.device.trim();
            let device = self.device(&at, dev, &vdev_names, &pci_names)?;
            if let Some(j) = out.iter().position(|q| q.device == device) {
                return Err(self.err(
                    format!("{at}.device"),
                    format!("device `{dev}` is already used by ports[{j}]"),
                ));
            }
            if mesh_names.iter().any(|m| *m == dev) {
                self.mesh_queues(&at, p, eal.ring_mesh)?;
            }
            out.push(self.port(&at, name, device, p)?);
        }
        Ok(out)
    }

    /// `ports[i].device`: a PCI address from `eal.pci` or a vdev from
    /// `eal.vdevs`.
    fn device(
        &self,
        at: &str,
        dev: &str,
        vdev_names: &[&str],
        pci_names: &[&str],
    ) -> Result<Device, ConfigError> {
        if let Some(canon) = canonical_pci(dev) {
            if !pci_names.contains(&canon.as_str()) {
                return Err(self.err(
                    format!("{at}.device"),
                    format!("PCI device {canon} is not in eal.pci: add it there"),
                ));
            }
            return Ok(Device::Pci(canon));
        }
        if vdev_names.contains(&dev) {
            return Ok(Device::Vdev(dev.to_string()));
        }
        let known = if vdev_names.is_empty() {
            "none".to_string()
        } else {
            vdev_names.join(", ")
        };
        Err(self.err(
            format!("{at}.device"),
            format!(
                "device `{dev}` is neither a vdev from eal.vdevs ({known}) nor a PCI \
                 address from eal.pci"
            ),
        ))
    }

    /// A port of a ring mesh of `n` ports has a queue per peer: at most
    /// `n − 1` each way.
    fn mesh_queues(&self, at: &str, p: &raw::Port, n: usize) -> Result<(), ConfigError> {
        for (key, q) in [("rx_queues", p.rx_queues), ("tx_queues", p.tx_queues)] {
            if usize::from(q) >= n {
                return Err(self.err(
                    format!("{at}.{key}"),
                    format!(
                        "{q} queues on a port of a {n}-port ring mesh, which has one per peer: \
                         at most {}",
                        n - 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The settings of the port `name` on `device`: queues, rings,
    /// checksum offload, link and bus.
    fn port(
        &self,
        at: &str,
        name: &str,
        device: Device,
        p: &raw::Port,
    ) -> Result<PortPlan, ConfigError> {
        for (key, n, max, unit) in [
            ("rx_queues", p.rx_queues, MAX_QUEUES, ""),
            ("tx_queues", p.tx_queues, MAX_QUEUES, ""),
            ("rx_ring", p.rx_ring, MAX_RING, " descriptors"),
            ("tx_ring", p.tx_ring, MAX_RING, " descriptors"),
        ] {
            if n == 0 || n > max {
                return Err(self.err(
                    format!("{at}.{key}"),
                    format!("{n}{unit} is out of range 1..={max}"),
                ));
            }
        }
        let checksum: Checksum = self.parse(&format!("{at}.checksum"), p.checksum.as_str())?;
        let payload: Payload = self.parse(&format!("{at}.payload"), p.payload.as_str())?;
        let link: Option<LinkKind> = match p.link.as_str().trim() {
            "auto" => None,
            text => Some(self.parse(&format!("{at}.link"), text)?),
        };
        let bus: Option<Bus> = match &p.bus {
            None => None,
            Some(b) => Some(self.parse(&format!("{at}.bus"), b.as_str())?),
        };
        Ok(PortPlan {
            name: name.to_string(),
            device,
            rx_queues: p.rx_queues,
            tx_queues: p.tx_queues,
            rx_ring: p.rx_ring,
            tx_ring: p.tx_ring,
            checksum,
            payload,
            link,
            bus,
            promiscuous: p.promiscuous,
            max_frame: 0,
        })
    }
}

/// The DPDK names of the ports of a ring mesh of `n` ports
/// (`eal.ring_mesh`): `net_ring_mesh0` and on, the names the ring PMD
/// gives the ports it makes from rings called `mesh0` and on.
pub(super) fn ring_mesh_devices(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("net_ring_mesh{i}")).collect()
}

/// The device of each entry of `eal.vdevs` or `eal.pci`: the text before
/// its arguments.
fn device_names(list: &[String]) -> Vec<&str> {
    list.iter()
        .map(|v| v.split(',').next().unwrap_or(v))
        .collect()
}
