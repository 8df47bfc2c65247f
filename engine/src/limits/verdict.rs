//! The end-of-run verdict: which limit bound a run, with the numbers behind
//! it. The rules are applied in a fixed order and are documented, with the
//! same constants, in `docs/limits.md` ("The verdict").

use serde::{Deserialize, Serialize};

use super::bus::{Bus, Direction};
use super::link::LinkKind;
use super::units::{gbps, group};

/// Delivered within this fraction of offered counts as "all delivered".
pub const DELIVERED_TOLERANCE: f64 = 0.001;
/// An exactly known ceiling (link, measured CPU) is "reached" when the
/// delivered rate is within this fraction below it.
pub const AT_CEILING: f64 = 0.02;
/// RX lcore utilisation above which frames lost in a ring no counter shows
/// (af_packet, memif) are put down to the receiver's CPU.
pub const CPU_BUSY_HIDDEN_DROPS: f64 = 0.90;
/// The bus ceiling is a model; real chipsets land up to this fraction below
/// it, so a delivered rate that close counts as reaching it.
pub const BUS_MODEL_BAND: f64 = 0.15;
/// RX lcore utilisation at or above which the CPU counts as saturated.
pub const CPU_SATURATED: f64 = 0.95;

/// What a run measured, as the report hands it to [`verdict`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// Frame size in bytes, FCS included (0: derive from the L2 rates).
    pub frame_size: u32,
    /// Rate the sender put on the wire, L2 bit/s (0 if unknown).
    pub offered_bps: f64,
    /// Rate the receiver accepted, L2 bit/s.
    pub delivered_bps: f64,
    /// Frames per second offered (0 if unknown).
    pub offered_fps: f64,
    /// Frames per second delivered.
    pub delivered_fps: f64,
    /// Rate the profile asked for, L2 bit/s, if it set one.
    pub target_bps: Option<f64>,
    /// The receiving port's link, if known.
    pub link: Option<LinkKind>,
    /// The receiving NIC's bus, from the profile or sysfs, if known.
    pub bus: Option<Bus>,
    /// Busy TSC cycles per received frame measured on the RX lcore(s).
    pub rx_cycles_per_frame: Option<f64>,
    /// TSC frequency in Hz.
    pub tsc_hz: f64,
    /// Fraction of the RX lcore's time spent on frames (0..=1), if measured.
    pub rx_utilisation: Option<f64>,
    /// Frames the NIC dropped for lack of room (RX FIFO / ring), during the run.
    pub imissed: u64,
    /// Receive mbuf allocation failures during the run.
    pub rx_nombuf: u64,
    /// Frames sent but never seen by the receiving port.
    pub lost_in_network: u64,
    /// The receiving port drops frames where no counter sees them (a kernel
    /// socket ring for af_packet, a shared-memory ring for memif): frames
    /// missing there count as the receiver's, not the network's, when its
    /// lcore was busy.
    #[serde(default)]
    pub drops_hidden: bool,
}

/// A limit that can bind a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    /// The receiving port's link rate.
    Link,
    /// The receiving NIC's I/O bus.
    Bus,
    /// The receiving CPU (RX lcore).
    Cpu,
    /// The sender did not offer the requested rate.
    Sender,
    /// Frames were lost before they reached the port.
    Network,
    /// The offered rate was delivered; nothing bound it.
    None,
}

impl Limit {
    /// Lower-case name as printed (`link`, `bus`, `cpu`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::Link => "link",
            Limit::Bus => "bus",
            Limit::Cpu => "cpu",
            Limit::Sender => "sender",
            Limit::Network => "network",
            Limit::None => "none",
        }
    }
}

/// One ceiling of a run, compared with what it delivered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    /// Which limit.
    pub limit: Limit,
    /// What exactly (e.g. `10GBASE-R (LAN PHY)`, `PCI-X/133 MMRBC 512`,
    /// `RX lcore: 40,000 cycles/frame at 2.000 GHz`).
    pub name: String,
    /// Frames per second it allows.
    pub fps: f64,
    /// The same as an L2 rate, bit/s.
    pub bps_l2: f64,
    /// How far above the delivered rate it is, in percent
    /// ((ceiling − delivered) / delivered · 100); `None` if nothing was
    /// delivered.
    pub headroom_pct: Option<f64>,
}

/// The verdict of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The limit that bound the run.
    pub binding: Limit,
    /// Every ceiling that could be computed, lowest first.
    pub ceilings: Vec<Ceiling>,
    /// One paragraph with the numbers behind the verdict.
    pub explanation: String,
}

impl Observation {
    /// The verdict for this observation (see [`verdict`]).
    pub fn verdict(&self) -> Verdict {
        verdict(self)
    }
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

fn rate(bps: f64, fps: f64) -> String {
    format!("{} Gbit/s ({} frames/s)", gbps(bps), group(fps))
}

fn describe(c: &Ceiling) -> String {
    let head = match c.headroom_pct {
        Some(h) => format!(", {h:+.1} % vs delivered"),
        None => String::new(),
    };
    format!(
        "{} {}: {}{}",
        c.limit.as_str(),
        c.name,
        rate(c.bps_l2, c.fps),
        head
    )
}

/// Computes the verdict. Ceilings the delivered rate exceeds by more than
/// 2 % are listed but take no part (the device is not what they model, e.g.
/// a virtual port). Rules, first match wins (constants above):
///
/// 1. Delivered ≥ offered · (1 − 0.1 %), or, when the offered rate is
///    unknown (a receiver on its own), nothing was lost or dropped:
///    a. a target was set and offered < target · (1 − 0.1 %): **Link** if
///    the offered rate is within 2 % of the link ceiling, else **Sender**;
///    b. the lowest ceiling is within 2 % of delivered: that ceiling
///    (typically the link at line rate);
///    c. else **None** ("offered rate delivered; nearest ceiling ...").
/// 2. Frames are missing. Candidates:
///    **Link** if delivered is within 2 % of the link ceiling;
///    **Cpu** if delivered is within 2 % of the measured CPU ceiling, or the
///    port dropped frames (imissed + rx_nombuf > 0) while the RX lcore was
///    ≥ 95 % busy; **Bus** if imissed > 0 and delivered is within 15 % of the
///    modelled bus ceiling (RX direction). Link and CPU (exact or measured)
///    outrank the modelled bus; among them the lowest ceiling wins.
/// 3. No candidate and lost_in_network ≥ imissed + rx_nombuf (including
///    when the port dropped nothing): **Network**.
/// 4. Otherwise the port dropped frames without a ceiling being reached:
///    **Cpu** if rx_nombuf ≥ imissed (buffers not returned in time), else
///    the lowest ceiling at or above delivered, else **Cpu**.
pub fn verdict(obs: &Observation) -> Verdict {
    let delivered_fps = finite_or_zero(obs.delivered_fps);
    let delivered_bps = finite_or_zero(obs.delivered_bps);
    let offered_fps = finite_or_zero(obs.offered_fps);
    let offered_bps = finite_or_zero(obs.offered_bps);
    let frame_size = if obs.frame_size > 0 {
        obs.frame_size
    } else if delivered_fps > 0.0 {
        (delivered_bps / delivered_fps / 8.0).round() as u32
    } else {
        0
    };
    let headroom = |fps: f64| {
        if delivered_fps > 0.0 {
            Some((fps / delivered_fps - 1.0) * 100.0)
        } else {
            None
        }
    };
    let l2 = |fps: f64| fps * 8.0 * f64::from(frame_size);

    let mut ceilings = Vec::new();
    if let Some(link) = obs.link {
        if frame_size > 0 {
            let fps = link.frames_per_sec(frame_size);
            ceilings.push(Ceiling {
                limit: Limit::Link,
                name: link.name(),
                fps,
                bps_l2: l2(fps),
                headroom_pct: headroom(fps),
            });
        }
    }
    if let Some(bus) = obs.bus {
        if let Ok(c) = bus.frame_ceiling(frame_size, Direction::Rx) {
            ceilings.push(Ceiling {
                limit: Limit::Bus,
                name: format!("{} (receive)", c.name),
                fps: c.fps,
                bps_l2: c.bps_l2,
                headroom_pct: headroom(c.fps),
            });
        }
    }
    let tsc_hz = finite_or_zero(obs.tsc_hz);
    let cpf = obs.rx_cycles_per_frame.map(finite_or_zero).unwrap_or(0.0);
    if cpf > 0.0 && tsc_hz > 0.0 {
        let fps = tsc_hz / cpf;
        ceilings.push(Ceiling {
            limit: Limit::Cpu,
            name: format!(
                "RX lcore: {} cycles/frame at {:.3} GHz",
                group(cpf),
                tsc_hz / 1e9
            ),
            fps,
            bps_l2: l2(fps),
            headroom_pct: headroom(fps),
        });
    }
    ceilings.sort_by(|a, b| a.fps.total_cmp(&b.fps));
    // A ceiling the run delivered well above cannot have bound it: the
    // device is not what the ceiling models (a virtual port has no line
    // rate). It stays in the list but takes no part in the decision.
    let all_ceilings = ceilings.clone();
    let exceeded: Vec<String> = ceilings
        .iter()
        .filter(|c| delivered_fps > c.fps * (1.0 + AT_CEILING))
        .map(describe)
        .collect();
    ceilings.retain(|c| delivered_fps <= c.fps * (1.0 + AT_CEILING));
    let find = |l: Limit| ceilings.iter().find(|c| c.limit == l);
    let reached = |c: &Ceiling, band: f64| delivered_fps >= c.fps * (1.0 - band);

    let port_drops = obs.imissed + obs.rx_nombuf;
    let util = obs.rx_utilisation.filter(|u| u.is_finite());
    let cpu_busy = util.is_some_and(|u| u >= CPU_SATURATED);
    let counters = format!(
        "imissed {}, rx_nombuf {}, lost in network {}{}",
        group(obs.imissed as f64),
        group(obs.rx_nombuf as f64),
        group(obs.lost_in_network as f64),
        match util {
            Some(u) => format!(", RX lcore utilisation {:.1} %", u * 100.0),
            None => String::new(),
        }
    );
    let others = |skip: Option<Limit>| {
        let v: Vec<String> = ceilings
            .iter()
            .filter(|c| Some(c.limit) != skip)
            .map(describe)
            .collect();
        if v.is_empty() {
            String::new()
        } else {
            format!(" Other ceilings: {}.", v.join("; "))
        }
    };
    let delivered_txt = rate(delivered_bps, delivered_fps);
    let offered_txt = if offered_fps > 0.0 {
        rate(offered_bps, offered_fps)
    } else {
        "an unknown rate".to_string()
    };

    // Everything arrived: all that was offered, or, when the offered rate
    // is unknown (a receiver on its own), nothing went missing anywhere.
    let all_arrived = if offered_fps > 0.0 {
        delivered_fps >= offered_fps * (1.0 - DELIVERED_TOLERANCE)
    } else {
        obs.lost_in_network == 0 && port_drops == 0
    };
    let (binding, explanation) = if all_arrived {
        // Rule 1: everything offered arrived.
        let short_target = obs
            .target_bps
            .filter(|t| t.is_finite() && *t > 0.0 && offered_bps < t * (1.0 - DELIVERED_TOLERANCE));
        if let Some(target) = short_target {
            match find(Limit::Link).filter(|c| offered_fps >= c.fps * (1.0 - AT_CEILING)) {
                Some(c) => (
                    Limit::Link,
                    format!(
                        "Link-bound: {target} Gbit/s was requested but the link carries at most {}; \
                         {delivered_txt} was offered and delivered.{}",
                        rate(c.bps_l2, c.fps),
                        others(Some(Limit::Link)),
                        target = gbps(target)
                    ),
                ),
                None => (
                    Limit::Sender,
                    format!(
                        "Sender-bound: {} Gbit/s was requested, the sender offered only {offered_txt}, \
                         and all of it was delivered.{}",
                        gbps(target),
                        others(None)
                    ),
                ),
            }
        } else if let Some(c) = ceilings.first().filter(|c| reached(c, AT_CEILING)) {
            (
                c.limit,
                format!(
                    "{}-bound: {delivered_txt} was delivered{}, at the {} ceiling \
                     ({}).{}",
                    title(c.limit),
                    if offered_fps > 0.0 {
                        " (all that was offered)"
                    } else {
                        " with nothing lost"
                    },
                    c.limit.as_str(),
                    describe(c),
                    others(Some(c.limit))
                ),
            )
        } else {
            let nearest = match ceilings.first() {
                Some(c) => format!(" The nearest ceiling is {}.", describe(c)),
                None => " No ceiling is known for this run.".to_string(),
            };
            (
                Limit::None,
                format!(
                    "Offered rate delivered: {delivered_txt} of {offered_txt}; nothing bound the run.{nearest}"
                ),
            )
        }
    } else {
        // Rule 2: frames are missing; look for a ceiling that was reached.
        let mut candidates: Vec<(Ceiling, String)> = Vec::new();
        if let Some(c) = find(Limit::Link).filter(|c| reached(c, AT_CEILING)) {
            candidates.push((
                c.clone(),
                "the delivered rate is the link's line rate".into(),
            ));
        }
        let cpu = find(Limit::Cpu);
        if let Some(c) = cpu.filter(|c| reached(c, AT_CEILING)) {
            candidates.push((
                c.clone(),
                format!(
                    "the RX lcore's measured {} cycles/frame allow no more",
                    group(cpf)
                ),
            ));
        } else if (port_drops > 0 && cpu_busy)
            || (obs.drops_hidden
                && obs.lost_in_network > 0
                && util.is_some_and(|u| u >= CPU_BUSY_HIDDEN_DROPS))
        {
            let c = cpu.cloned().unwrap_or(Ceiling {
                limit: Limit::Cpu,
                name: "RX lcore (cycles per frame not measured)".into(),
                fps: delivered_fps,
                bps_l2: delivered_bps,
                headroom_pct: Some(0.0),
            });
            candidates.push((
                c,
                if port_drops > 0 {
                    "the port dropped frames while the RX lcore was saturated".into()
                } else {
                    "frames were lost in the receiving port's own ring, which no counter shows, \
                     while the RX lcore was busy"
                        .into()
                },
            ));
        }
        if obs.imissed > 0 {
            if let Some(c) = find(Limit::Bus).filter(|c| reached(c, BUS_MODEL_BAND)) {
                candidates.push((
                    c.clone(),
                    format!(
                        "the NIC missed frames (imissed) with the delivered rate within {:.0} % \
                         of the modelled bus ceiling",
                        BUS_MODEL_BAND * 100.0
                    ),
                ));
            }
        }
        // Exact ceilings (link, measured CPU) outrank the modelled bus;
        // among equals the lowest ceiling wins.
        candidates.sort_by(|a, b| {
            (a.0.limit == Limit::Bus)
                .cmp(&(b.0.limit == Limit::Bus))
                .then(a.0.fps.total_cmp(&b.0.fps))
        });
        let missing = format!("delivered {delivered_txt} of {offered_txt} offered");
        if let Some((c, why)) = candidates.into_iter().next() {
            (
                c.limit,
                format!(
                    "{}-bound: {missing}; {why}: {}. Counters: {counters}.{}",
                    title(c.limit),
                    describe(&c),
                    others(Some(c.limit))
                ),
            )
        } else if obs.lost_in_network >= port_drops {
            (
                Limit::Network,
                format!(
                    "Network: {missing}; {} frames never reached the port and no ceiling was \
                     reached. Counters: {counters}.{}",
                    group(obs.lost_in_network as f64),
                    others(None)
                ),
            )
        } else if obs.rx_nombuf > 0 && obs.rx_nombuf >= obs.imissed {
            (
                Limit::Cpu,
                format!(
                    "CPU-bound: {missing}; the receive mbuf pool ran dry ({} allocation failures): \
                     the RX side did not return buffers in time. Counters: {counters}.{}",
                    group(obs.rx_nombuf as f64),
                    others(None)
                ),
            )
        } else if let Some(c) = ceilings.iter().find(|c| c.fps >= delivered_fps) {
            (
                c.limit,
                format!(
                    "{}-bound (weak evidence): {missing}; the port dropped {} frames and the closest \
                     ceiling above the delivered rate is {}. Counters: {counters}.{}",
                    title(c.limit),
                    group(port_drops as f64),
                    describe(c),
                    others(Some(c.limit))
                ),
            )
        } else {
            (
                Limit::Cpu,
                format!(
                    "CPU-bound (weak evidence): {missing}; the receiving host dropped {} frames at \
                     its port and no other ceiling is known. Counters: {counters}.{}",
                    group(port_drops as f64),
                    others(None)
                ),
            )
        }
    };
    let explanation = if exceeded.is_empty() {
        explanation
    } else {
        format!(
            "{explanation} Exceeded by the delivered rate, so not this device's limit (a virtual \
             port, or a link setting that does not match the device): {}.",
            exceeded.join("; ")
        )
    };
    Verdict {
        binding,
        ceilings: all_ceilings,
        explanation,
    }
}

fn title(l: Limit) -> &'static str {
    match l {
        Limit::Link => "Link",
        Limit::Bus => "Bus",
        Limit::Cpu => "CPU",
        Limit::Sender => "Sender",
        Limit::Network => "Network",
        Limit::None => "None",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME: u32 = 9130;

    fn obs(offered_fps: f64, delivered_fps: f64) -> Observation {
        let bps = |fps: f64| fps * 8.0 * f64::from(FRAME);
        Observation {
            frame_size: FRAME,
            offered_bps: bps(offered_fps),
            delivered_bps: bps(delivered_fps),
            offered_fps,
            delivered_fps,
            link: Some(LinkKind::Lan10G),
            tsc_hz: 2.0e9,
            ..Observation::default()
        }
    }

    #[test]
    fn offered_delivered_is_none() {
        let mut o = obs(60_000.0, 59_990.0);
        o.bus = Some(Bus::PCIX_133);
        o.rx_cycles_per_frame = Some(10_000.0);
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::None, "{}", v.explanation);
        assert!(
            v.explanation.contains("nearest ceiling"),
            "{}",
            v.explanation
        );
        assert_eq!(v.ceilings.len(), 3);
        assert_eq!(v.ceilings[0].limit, Limit::Bus);
        assert!(v.ceilings.windows(2).all(|w| w[0].fps <= w[1].fps));
    }

    #[test]
    fn line_rate_delivered_is_link() {
        let line = LinkKind::Lan10G.frames_per_sec(FRAME);
        let v = verdict(&obs(line, line));
        assert_eq!(v.binding, Limit::Link, "{}", v.explanation);
        assert!(v.explanation.contains("136,612"), "{}", v.explanation);
    }

    #[test]
    fn a_ceiling_the_run_exceeded_does_not_bind() {
        // A virtual port reported 10G but delivered 12 M frames/s of
        // 1518 bytes, with its RX lcore at 213 cycles/frame and 94 % busy.
        let mut o = obs(0.0, 11_964_180.0);
        o.frame_size = 1518;
        o.delivered_bps = 11_964_180.0 * 8.0 * 1518.0;
        o.offered_bps = 0.0;
        o.rx_cycles_per_frame = Some(213.5);
        o.rx_utilisation = Some(0.94);
        o.tsc_hz = 2.596e9;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu, "{}", v.explanation);
        assert!(
            v.explanation.contains("not this device's limit"),
            "{}",
            v.explanation
        );
        assert_eq!(
            v.ceilings.len(),
            2,
            "the exceeded link ceiling is still listed"
        );
    }

    #[test]
    fn slowed_rx_lcore_is_cpu_bound_with_cycles_shown() {
        // The RX lcore was slowed to 40,000 cycles per frame at 2 GHz:
        // 50,000 frames/s, 3.652 Gbit/s at 9130 bytes.
        let mut o = obs(136_612.0, 49_950.0);
        o.rx_cycles_per_frame = Some(40_000.0);
        o.rx_utilisation = Some(0.999);
        o.imissed = 5_000_000;
        o.bus = Some(Bus::pcie(3, 8).unwrap());
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu, "{}", v.explanation);
        assert!(
            v.explanation.contains("40,000 cycles/frame"),
            "{}",
            v.explanation
        );
        assert!(
            v.explanation.contains("50,000 frames/s"),
            "{}",
            v.explanation
        );
        let cpu = v.ceilings.iter().find(|c| c.limit == Limit::Cpu).unwrap();
        assert_eq!(cpu.fps, 50_000.0);
    }

    #[test]
    fn saturated_cpu_without_cycles_is_cpu() {
        let mut o = obs(136_612.0, 80_000.0);
        o.rx_utilisation = Some(0.99);
        o.rx_nombuf = 10;
        o.imissed = 1000;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu, "{}", v.explanation);
    }

    #[test]
    fn ipv6_2005_on_pcix_133_is_bus_bound() {
        // 6.96 Gbit/s of IPv6 TCP goodput (9040-byte segments) is 7.03
        // Gbit/s at L2; the CPU had headroom, the NIC missed frames.
        let delivered_fps = 6.96e9 / (8.0 * 9040.0);
        let mut o = obs(130_000.0, delivered_fps);
        o.bus = Some(Bus::PCIX_133);
        o.rx_cycles_per_frame = Some(12_000.0);
        o.tsc_hz = 2.4e9;
        o.rx_utilisation = Some(0.55);
        o.imissed = 250_000;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Bus, "{}", v.explanation);
        assert!(v.explanation.contains("PCI-X/133"), "{}", v.explanation);
    }

    #[test]
    fn measured_cpu_outranks_the_bus_model() {
        // 7.99 Gbit/s of IPv4 TCP payload (9060 bytes) on a PCI-X/133
        // receiver whose RX core was saturated: the modelled bus ceiling is
        // slightly below what was delivered, the measured CPU is exact.
        let delivered_fps = 7.99e9 / (8.0 * 9060.0);
        let mut o = obs(120_000.0, delivered_fps);
        o.bus = Some(Bus::PCIX_133);
        o.tsc_hz = 2.4e9;
        o.rx_cycles_per_frame = Some(2.4e9 * 0.995 / delivered_fps);
        o.rx_utilisation = Some(0.995);
        o.imissed = 40_000;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu, "{}", v.explanation);
        let bus = v.ceilings.iter().find(|c| c.limit == Limit::Bus).unwrap();
        assert!(bus.headroom_pct.unwrap() < 0.0);
    }

    #[test]
    fn frames_lost_before_the_port_is_network() {
        let mut o = obs(136_000.0, 120_000.0);
        o.lost_in_network = 16_000;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Network, "{}", v.explanation);
        // Missing frames with no counter at all: also lost before the port.
        let v = verdict(&obs(136_000.0, 120_000.0));
        assert_eq!(v.binding, Limit::Network, "{}", v.explanation);
    }

    #[test]
    fn slower_receiving_link_is_link_bound() {
        let mut o = obs(136_612.0, LinkKind::G1.frames_per_sec(FRAME));
        o.link = Some(LinkKind::G1);
        o.lost_in_network = 1_000_000;
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Link, "{}", v.explanation);
    }

    #[test]
    fn short_sender_is_sender_bound() {
        let mut o = obs(60_000.0, 60_000.0);
        o.target_bps = Some(9.9e9);
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Sender, "{}", v.explanation);
        // Asking for more than the link carries is link-bound, not sender.
        let line = LinkKind::Lan10G.frames_per_sec(FRAME);
        let mut o = obs(line, line);
        o.target_bps = Some(12e9);
        assert_eq!(verdict(&o).binding, Limit::Link);
    }

    #[test]
    fn nombuf_without_ceiling_is_cpu() {
        let mut o = obs(136_000.0, 90_000.0);
        o.rx_nombuf = 500;
        o.rx_utilisation = Some(0.5);
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu, "{}", v.explanation);
        assert!(v.explanation.contains("mbuf"), "{}", v.explanation);
    }

    #[test]
    fn imissed_far_from_every_ceiling_names_the_closest() {
        let mut o = obs(136_000.0, 60_000.0);
        o.imissed = 500;
        o.rx_utilisation = Some(0.3);
        o.bus = Some(Bus::PCIX_133);
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Bus, "{}", v.explanation);
        assert!(v.explanation.contains("weak evidence"), "{}", v.explanation);
    }

    #[test]
    fn serialises() {
        let v = verdict(&obs(1000.0, 1000.0));
        let j = serde_json::to_value(&v).unwrap();
        assert_eq!(j["binding"], "none");
        assert!(j["ceilings"][0]["fps"].as_f64().unwrap() > 136_000.0);
    }
}
