//! The tester as a report describes it: its host, each port with its
//! driver and link, and each lcore with what it did.

use serde::{Deserialize, Serialize};

/// One port of the tester as the certification found it when it opened
/// the port.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostPort {
    /// The profile's name for the port.
    pub name: String,
    /// The DPDK device behind it (`net_af_packet0`, `0000:03:00.0`).
    pub device: String,
    /// Its driver (`net_af_packet`, `net_ice`).
    pub driver: String,
    /// Its link as the driver reported it (`up, 10 Gbit/s, full duplex`),
    /// and the line the figures count against when the profile's `link:`
    /// sets it (`; line 100 Mbit/s (profile)`).
    pub link: String,
}

impl HostPort {
    /// [`HostPort::link`]'s text: the driver's link (`up`, its speed in
    /// Mbit/s, 0 when unknown, and duplex), then the line rate at L1 the
    /// figures count against, `profile` when the profile's `link:` set it.
    pub fn link_text(
        up: bool,
        speed_mbps: u32,
        full_duplex: bool,
        line_bps: u64,
        profile: bool,
    ) -> String {
        let driver = match (up, speed_mbps) {
            (false, _) => "down".to_string(),
            (true, 0) => "up, speed unknown".to_string(),
            (true, m) => format!(
                "up, {}, {} duplex",
                crate::certify::round::bit_rate(u64::from(m) * 1_000_000),
                if full_duplex { "full" } else { "half" }
            ),
        };
        let whose = if profile {
            " (the profile's link:)"
        } else {
            ""
        };
        format!(
            "{driver}; line {} at L1{whose}",
            crate::certify::round::bit_rate(line_bps)
        )
    }
}

/// The host the tester ran on, as the report describes it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    /// The host's name.
    pub name: String,
    /// The CPU model (`/proc/cpuinfo`'s `model name`; empty when unknown).
    pub cpu: String,
    /// CPUs online.
    pub cpus: u32,
    /// The kernel: its name and release (`Linux 6.1.0-18-amd64`).
    pub kernel: String,
    /// The tester's ports, each with its driver and link.
    pub ports: Vec<HostPort>,
}

impl Host {
    /// The CPU model named by `/proc/cpuinfo`'s text `cpuinfo` (its first
    /// `model name`, else its first `Hardware` or `cpu model` line), and
    /// how many processors it lists; empty and 0 when it names none.
    pub fn cpu_of(cpuinfo: &str) -> (String, u32) {
        let value = |key: &str| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.split_whitespace().collect::<Vec<_>>().join(" "))
            })
        };
        let model = ["model name", "Hardware", "cpu model"]
            .iter()
            .find_map(|k| value(k))
            .unwrap_or_default();
        let n = (cpuinfo.lines())
            .filter(|l| {
                l.split_once(':')
                    .is_some_and(|(k, _)| k.trim() == "processor")
            })
            .count();
        (model, n as u32)
    }
}

/// One lcore of the tester and what it did.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TesterTask {
    /// `main` (drives the trials, never sends or receives), `TX` or `RX`.
    pub role: String,
    /// Its DPDK lcore.
    pub lcore: u32,
    /// The CPU its thread is pinned to.
    pub cpu: u32,
    /// The port it sends or receives on, by the profile's name (empty
    /// for the main lcore).
    #[serde(default)]
    pub port: String,
    /// The queues of that port it uses.
    #[serde(default)]
    pub queues: Vec<u16>,
    /// The streams it sends (TX), by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<String>,
}

impl TesterTask {
    /// The task in one line: `TX lcore 1 on CPU 1: port p0 queue 0,
    /// streams s0`; `main lcore 0 on CPU 0`.
    pub fn text(&self) -> String {
        let mut s = format!("{} lcore {} on CPU {}", self.role, self.lcore, self.cpu);
        if !self.port.is_empty() {
            let q: Vec<String> = self.queues.iter().map(u16::to_string).collect();
            let queue = if self.queues.len() == 1 {
                "queue"
            } else {
                "queues"
            };
            s.push_str(&format!(": port {} {queue} {}", self.port, q.join(", ")));
        }
        if !self.streams.is_empty() {
            s.push_str(&format!(", streams {}", self.streams.join(", ")));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_model_and_count_come_from_cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)  CPU @ 2.90GHz\n\n\
                   processor\t: 1\nmodel name\t: Intel(R) Xeon(R)  CPU @ 2.90GHz\n";
        assert_eq!(
            Host::cpu_of(x86),
            ("Intel(R) Xeon(R) CPU @ 2.90GHz".to_string(), 2)
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\n";
        assert_eq!(Host::cpu_of(arm), ("BCM2835".to_string(), 1));
        assert_eq!(Host::cpu_of(""), (String::new(), 0));
    }

    #[test]
    fn a_link_reads_as_the_driver_and_the_profile_see_it() {
        assert_eq!(
            HostPort::link_text(true, 10_000, true, 100_000_000, true),
            "up, 10 Gbit/s, full duplex; line 100 Mbit/s at L1 (the profile's link:)"
        );
        assert_eq!(
            HostPort::link_text(true, 0, false, 25_000_000_000, false),
            "up, speed unknown; line 25 Gbit/s at L1"
        );
        assert_eq!(
            HostPort::link_text(false, 1000, false, 1_000_000_000, false),
            "down; line 1 Gbit/s at L1"
        );
    }
}
