//! The validated, typed result of a profile: what the runtime executes.

use std::path::PathBuf;
use std::time::Duration;

use std::fmt;
use std::str::FromStr;

use super::ext::{Bus, Layer, LinkKind, Pattern, RateSpec, StreamSpec, TxMode};
use crate::wire::CsumMode;

/// A validated profile. Every index in it is in range and every
/// cross-reference (ports, queues, streams, lcores) was checked.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Where the profile came from (a path, or a name for built-in text);
    /// runtime errors about the plan name it.
    pub origin: String,
    /// The lines of the profile's keys, for locating errors found later.
    pub(crate) lines: super::locate::Locator,
    /// EAL start-up settings.
    pub eal: EalPlan,
    /// Ports in profile order; tasks refer to them by index.
    pub ports: Vec<PortPlan>,
    /// Streams in profile order (each with its name and id); tasks refer
    /// to them by index.
    pub streams: Vec<StreamSpec>,
    /// Sending tasks, one per lcore.
    pub tx: Vec<TxTaskPlan>,
    /// Receiving tasks, one per lcore.
    pub rx: Vec<RxTaskPlan>,
    /// Run length and reporting.
    pub run: RunPlan,
    /// What `landspeed rfc2544` runs (`certify:`; RFC 2544's defaults).
    pub certify: CertifyPlan,
}

/// EAL start-up settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EalPlan {
    /// All lcores given to the EAL, main lcore first.
    pub lcores: Vec<u32>,
    /// The CPU each lcore of `lcores` runs on (parallel to it): the
    /// lcore's own number unless `eal.cpus` maps it elsewhere, so that
    /// several lcores may share one CPU.
    pub cpus: Vec<u32>,
    /// The main lcore (runs the reporter, never a task).
    pub main_lcore: u32,
    /// Use hugepages; `false` runs with `--no-huge`.
    pub hugepages: bool,
    /// Memory for the EAL in MiB (`-m`).
    pub memory_mb: u32,
    /// `--vdev` arguments, paths inside them already resolved.
    pub vdevs: Vec<String>,
    /// PCI addresses to allow (`-a`); empty means `--no-pci`.
    pub pci: Vec<String>,
    /// Ports of a ring mesh made after the EAL starts (`eal.ring_mesh`,
    /// [`crate::dpdk::RingMesh`]); 0: none.
    pub ring_mesh: usize,
    /// `--file-prefix`; `None` means automatic (unique per process).
    pub file_prefix: Option<String>,
    /// `--log-level` value (`error` unless the profile says otherwise).
    pub log_level: String,
    /// Arguments appended verbatim.
    pub extra_args: Vec<String>,
}

/// The EAL `--log-level` the command line's `--dpdk-log` asks for:
/// DPDK's own default, every line from `info` up. Without it a profile's
/// `eal.log_level` (default `error`) applies.
pub const FULL_DPDK_LOG: &str = "info";

/// The EAL `--log-level` of `landspeed ports --eal` without `--dpdk-log`:
/// errors only, as a profile's default.
pub const DEFAULT_DPDK_LOG: &str = "error";

impl EalPlan {
    /// Show DPDK's log in full ([`FULL_DPDK_LOG`]) whatever the profile's
    /// `eal.log_level` says.
    pub fn show_dpdk_log(&mut self) {
        self.log_level = FULL_DPDK_LOG.to_string();
    }

    /// The argv for `rte_eal_init`, program name first: `-l` (or
    /// `--lcores=L@CPU,...` when some lcore runs on another CPU than its
    /// own number), `--main-lcore`, `--no-huge`/`-m`, `--no-pci` or `-a` per PCI
    /// device, `--vdev` per vdev, `--file-prefix` (automatic prefixes are
    /// `ls<pid>`, with `--no-shconf` when there are no hugepages),
    /// `--log-level`, then the extra arguments.
    pub fn eal_args(&self) -> Vec<String> {
        let mut args = vec!["landspeed".to_string()];
        args.extend(self.lcore_args());
        args.push(format!("--main-lcore={}", self.main_lcore));
        if !self.hugepages {
            args.push("--no-huge".into());
        }
        if self.memory_mb > 0 {
            args.push("-m".into());
            args.push(self.memory_mb.to_string());
        }
        if self.pci.is_empty() {
            args.push("--no-pci".into());
        }
        for pci in &self.pci {
            args.push("-a".into());
            args.push(pci.clone());
        }
        for vdev in &self.vdevs {
            args.push(format!("--vdev={vdev}"));
        }
        match &self.file_prefix {
            Some(prefix) => args.push(format!("--file-prefix={prefix}")),
            None => {
                args.push(format!("--file-prefix=ls{}", std::process::id()));
                if !self.hugepages {
                    args.push("--no-shconf".into());
                }
            }
        }
        args.push(format!("--log-level={}", self.log_level));
        args.extend(self.extra_args.iter().cloned());
        args
    }
}

impl EalPlan {
    /// `-l 0,1,2` when every lcore runs on the CPU of its own number, else
    /// `--lcores=0@0,1@1,2@1`: each lcore a thread pinned to its CPU.
    fn lcore_args(&self) -> Vec<String> {
        let list = |f: &dyn Fn(u32, u32) -> String| {
            let items: Vec<String> = (self.lcores.iter().zip(&self.cpus))
                .map(|(&l, &c)| f(l, c))
                .collect();
            items.join(",")
        };
        if self.lcores == self.cpus {
            vec!["-l".into(), list(&|l, _| l.to_string())]
        } else {
            vec![format!("--lcores={}", list(&|l, c| format!("{l}@{c}")))]
        }
    }
}

/// What a port's device is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Device {
    /// A virtual device: its name (`net_null0`), as in `eal.vdevs`.
    Vdev(String),
    /// A PCI device: its address as written in `eal.pci`.
    Pci(String),
}

impl Device {
    /// The name DPDK knows the device by (for `rte_eth_dev_get_port_by_name`).
    pub fn name(&self) -> &str {
        match self {
            Device::Vdev(n) | Device::Pci(n) => n,
        }
    }
}

/// One port.
#[derive(Debug, Clone)]
pub struct PortPlan {
    /// The profile's name for the port.
    pub name: String,
    /// The device behind it.
    pub device: Device,
    /// Receive queues (≥ 1).
    pub rx_queues: u16,
    /// Transmit queues (≥ 1).
    pub tx_queues: u16,
    /// Descriptors per receive queue (the runtime may adjust them to the
    /// device's limits).
    pub rx_ring: u16,
    /// Descriptors per transmit queue.
    pub tx_ring: u16,
    /// Where checksums are computed.
    pub checksum: Checksum,
    /// How TX frames carry their fill.
    pub payload: Payload,
    /// The link's kind for line-rate figures; `None`: ask the PMD.
    pub link: Option<LinkKind>,
    /// The receiving host's I/O bus for the verdict, if given.
    pub bus: Option<Bus>,
    /// Put the port in promiscuous mode.
    pub promiscuous: bool,
    /// The largest frame (with FCS) of the streams sent on this port or
    /// expected on it (all streams for an RX task with `streams: auto`);
    /// 0 when none is. The runtime checks it against the device's maximum
    /// and sizes mbufs for it.
    pub max_frame: u32,
}

/// Where a port's IPv4 and L4 checksums are computed, as the profile
/// asks; [`Checksum::resolve`] decides once the device's offloads are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    /// Offload when the device can, software otherwise.
    Auto,
    /// Always in software.
    Software,
    /// Always offloaded; the runtime fails if the device cannot.
    Offload,
}

impl Checksum {
    /// The builder's mode for a device that can (`true`) or cannot offload
    /// the checksums; `None` when offload was required and is missing.
    pub fn resolve(self, device_offloads: bool) -> Option<CsumMode> {
        match (self, device_offloads) {
            (Checksum::Software, _) | (Checksum::Auto, false) => Some(CsumMode::Software),
            (Checksum::Offload | Checksum::Auto, true) => Some(CsumMode::Offload),
            (Checksum::Offload, false) => None,
        }
    }
}

impl FromStr for Checksum {
    type Err = String;

    /// `auto`, `software` (or `sw`), `offload` (or `hw`), in any case.
    fn from_str(s: &str) -> Result<Checksum, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Checksum::Auto),
            "software" | "sw" => Ok(Checksum::Software),
            "offload" | "hw" => Ok(Checksum::Offload),
            _ => Err(format!(
                "unknown checksum mode `{s}`: use auto, software or offload"
            )),
        }
    }
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Checksum::Auto => "auto",
            Checksum::Software => "software",
            Checksum::Offload => "offload",
        })
    }
}

/// How a port's TX frames carry their fill: copied into each frame, or
/// attached as a second segment from the run's pattern in DPDK memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// Attach where the device sends chained mbufs, copy otherwise.
    Auto,
    /// Always attach (the device must send chained mbufs whole).
    Attach,
    /// Always copy.
    Copy,
}

impl FromStr for Payload {
    type Err = String;

    /// `auto`, `attach` or `copy`, in any case.
    fn from_str(s: &str) -> Result<Payload, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Payload::Auto),
            "attach" => Ok(Payload::Attach),
            "copy" => Ok(Payload::Copy),
            _ => Err(format!(
                "unknown payload mode `{s}`: use auto, attach or copy"
            )),
        }
    }
}

/// One sending task.
#[derive(Debug, Clone)]
pub struct TxTaskPlan {
    /// The lcore it runs on.
    pub lcore: u32,
    /// Index into [`Plan::ports`].
    pub port: usize,
    /// Transmit queue on that port.
    pub queue: u16,
    /// Indices into [`Plan::streams`], in profile order.
    pub streams: Vec<usize>,
    /// The weight of each stream (parallel to `streams`): its share of the
    /// task's rate is `weight / sum(weights)`.
    pub weights: Vec<u32>,
    /// The task's total rate.
    pub rate: RateSpec,
    /// The layer the rate counts.
    pub layer: Layer,
    /// How departures are made.
    pub mode: TxMode,
    /// How departures are spread in time.
    pub pattern: Pattern,
    /// File for the departure trace, resolved against the profile's folder.
    pub trace: Option<PathBuf>,
    /// At most this many departures are traced.
    pub trace_frames: u64,
    /// The task stops after sending this many frames (`tx[].frames`;
    /// `None`: it sends until the run ends). A run whose every TX task
    /// has a limit ends once they all reached it.
    pub frames: Option<u64>,
    /// What its stamps carry: the TSC, or a synchronised clock's ns.
    pub clock: TxClock,
    /// The PTP servo its synchronised clock reads (`tx[].clock_servo`).
    pub clock_servo: ClockServo,
    /// Where its departure times come from (`timestamps: auto|nic|software`):
    /// the TSC read before `tx_burst`, corrected by the NIC's sampled
    /// IEEE 1588 TX timestamps when the port latches them.
    pub timestamps: crate::clock::nic::Want,
}

/// The PTP servo a synchronised clock reads for its offset
/// (`clock_servo`; docs/two-host.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClockServo {
    /// Read `ptp4l` at its default socket if one is there (the default
    /// with a synced clock); without it, the kernel's view alone.
    Auto,
    /// Read none: the kernel's view alone (`none`, and always without a
    /// synced clock).
    None,
    /// Read `ptp4l` at this socket; a run refuses to start if it does not
    /// answer (`ptp4l` or `ptp4l:PATH`).
    Ptp4l(PathBuf),
}

/// What a TX task's stamps carry (`tx[].clock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxClock {
    /// The TSC (stamp version 1): one-way latency where the receiver reads
    /// the same TSC.
    Tsc,
    /// Nanoseconds of a clock both hosts keep synchronised, mapped from
    /// the TSC (stamp version 2; docs/two-host.md).
    Synced(SyncedClock),
}

/// A synchronised clock a side maps its TSC onto, and the error the
/// profile declares for it (`clock_error`), if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyncedClock {
    /// CLOCK_REALTIME or CLOCK_TAI.
    pub id: crate::clock::sync::ClockId,
    /// Declared error, used in place of the kernel's estimate.
    pub declared_error: Option<Duration>,
}

/// What an RX task checks on every frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// Stamp, payload fill checksum, L3 and L4 checksums.
    Full,
    /// The stamp only (stream, sequence, timestamp).
    Stamp,
    /// Count frames and bytes only.
    None,
}

/// Where an RX task's `lost` counts from (`rx[i].count_from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountFrom {
    /// Each stream's first frame seen: frames sent before the receiver
    /// listened are not lost (the default).
    FirstSeen,
    /// Sequence 0: the receiver was listening before the sender's first
    /// frame, so every frame below the first one seen is lost.
    Zero,
}

/// Which streams an RX task expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RxStreams {
    /// Learn streams from the stamps that arrive.
    Auto,
    /// These stream indices (into [`Plan::streams`]); others count as foreign.
    Listed(Vec<usize>),
}

/// One receiving task.
#[derive(Debug, Clone)]
pub struct RxTaskPlan {
    /// The lcore it runs on.
    pub lcore: u32,
    /// Index into [`Plan::ports`].
    pub port: usize,
    /// Receive queues it polls.
    pub queues: Vec<u16>,
    /// What it checks.
    pub verify: Verify,
    /// Extra TSC cycles spent per frame (a knob to make the receiver
    /// CPU-bound on purpose).
    pub slowdown_cycles: u64,
    /// Where its `lost` counts from.
    pub count_from: CountFrom,
    /// The streams it expects.
    pub streams: RxStreams,
    /// Whether the sender's TSC is this host's.
    pub clock: Clock,
    /// Where its arrival times come from (`timestamps: auto|nic|software`):
    /// the NIC's RX timestamps or the TSC read after each poll.
    pub timestamps: crate::clock::nic::Want,
    /// The PTP servo its synchronised clock reads (`rx[].clock_servo`).
    pub clock_servo: ClockServo,
    /// The frames it keeps for a pcap file (`rx[].capture`), if any.
    pub capture: Option<CapturePlan>,
}

/// An RX task's capture: which frames it keeps, how much of each, and
/// where they are written when the run ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturePlan {
    /// The pcap file written.
    pub file: std::path::PathBuf,
    /// Frames kept at most.
    pub frames: usize,
    /// Bytes kept of a frame at most (unless the profile says less, the
    /// largest frame landspeed receives: whole frames).
    pub snap: usize,
    /// The first frames, or the latest.
    pub keep: CaptureKeep,
}

/// Which frames a full capture keeps (`rx[].capture.keep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureKeep {
    /// The first frames received (`first`).
    First,
    /// The latest ones, each new frame taking the oldest one's place
    /// (`last`).
    Last,
}

/// Whose TSC stamped the frames an RX task receives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// Shared when the same process also sends, separate otherwise.
    Auto,
    /// The sender runs on this host (another process, namespace or port of
    /// the same machine): one-way latency is measured from the stamp.
    Shared,
    /// The sender's clock is another host's: inter-arrival spacing only.
    Separate,
    /// Stamps of version 2 carry a synchronised clock's ns, which this
    /// side maps its own TSC onto: one-way latency between two hosts.
    /// `shared` also measures version-1 stamps on this host's TSC.
    Synced {
        /// The clock, and its declared error.
        clock: SyncedClock,
        /// Version-1 stamps come from this host's TSC.
        shared: bool,
    },
}

/// Run length and reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunPlan {
    /// Measured time.
    pub duration: Duration,
    /// Time between report lines.
    pub interval: Duration,
    /// The wall-clock instant the workers start at (`run --start-at`):
    /// two hosts' runs started on one synchronised clock.
    pub start_at: Option<std::time::SystemTime>,
    /// The run ends at its duration or a stop only, not once every TX
    /// task has sent its frames (`run --until-stopped`), and receivers
    /// get the in-flight grace after a stop.
    pub until_stopped: bool,
}

/// The checked `certify:` section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CertifyPlan {
    /// What is certified (`certify.device`: model, firmware, ports; free
    /// text), for the reports.
    pub device: Option<String>,
    /// What the searches run with.
    pub settings: crate::certify::model::Settings,
    /// The acceptance criteria.
    pub criteria: Vec<crate::certify::criteria::Acceptance>,
    /// The tester baseline to correct latency with (`certify.baseline`,
    /// resolved against the profile's folder; `--baseline` replaces it).
    pub baseline: Option<std::path::PathBuf>,
}
