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
/// Share of its run a worker lcore may spend waiting for its CPU (another
/// thread had it) before its cycle counts stop being trusted. A polling
/// lcore on a core of its own waits well under 1 %; above this, its
/// cycles per frame and utilisation include time it did not run, and the
/// CPU ceiling takes no part in the verdict.
pub const DESCHEDULED_MAX: f64 = 0.05;

/// What a run measured, as the report hands it to [`decide`].
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
    /// Fraction of its run the most descheduled RX lcore waited for its
    /// CPU (0..=1), if measured; above [`DESCHEDULED_MAX`] its cycles and
    /// utilisation are not trusted.
    #[serde(default)]
    pub rx_descheduled: Option<f64>,
    /// Frames the NIC dropped for lack of room (RX FIFO / ring), during the run.
    pub imissed: u64,
    /// Receive mbuf allocation failures during the run.
    pub rx_nombuf: u64,
    /// Frames the receiving port's RX queues dropped at a full ring,
    /// counted apart from `imissed` (ixgbe's `rx_qN_errors`,
    /// [`super::port_errors::ring_drop_counter`]): the RX lcore did not
    /// take them in time. 0 in results of older versions.
    #[serde(default)]
    pub rx_ring_drops: u64,
    /// Frames sent but never seen by the receiving port.
    pub lost_in_network: u64,
    /// The receiving port drops frames where no counter sees them (a kernel
    /// socket ring for af_packet, a shared-memory ring for memif): frames
    /// missing there count as the receiver's, not the network's, when its
    /// lcore was busy.
    #[serde(default)]
    pub drops_hidden: bool,
    /// Frames the receiving port refused during the run: malformed or too
    /// long (`ierrors`, or the largest refusing extended statistic:
    /// [`super::port_errors`]); 0 in results of older versions.
    #[serde(default)]
    pub rx_refused: u64,
    /// The counters behind `rx_refused`, by name (`ierrors`,
    /// `rx_oversize_errors`, ...).
    #[serde(default)]
    pub rx_refused_by: Vec<(String, u64)>,
    /// Frames the sending port was handed but counted as not sent
    /// (`oerrors`, or its largest TX-error statistic).
    #[serde(default)]
    pub tx_errors: u64,
    /// The counters behind `tx_errors`, by name.
    #[serde(default)]
    pub tx_errors_by: Vec<(String, u64)>,
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
    /// A port refused the frames: the receiving one counted them
    /// malformed or too long, or the sending one did not send them.
    Port,
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
            Limit::Port => "port",
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

/// Adds to `v`'s explanation that its figures cover only the `limit`
/// streams tracked: `frames` frames of `streams` more streams arrived
/// beyond what an RX lcore tracks (`overflow`), unchecked.
pub fn note_untracked(v: &mut Verdict, frames: u64, streams: u64, limit: u64) {
    v.explanation = format!(
        "{} Its figures cover only the {limit} streams tracked: {frames} frames of {streams} \
         more streams arrived untracked (overflow), so their loss, order and integrity are \
         unknown.",
        v.explanation
    );
}

impl Observation {
    /// The verdict for this observation (see [`verdict`]).
    pub fn verdict(&self) -> Verdict {
        verdict(self)
    }
}

/// A rate as a bit rate and a frame rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// L2 bit/s.
    pub bps: f64,
    /// Frames per second.
    pub fps: f64,
}

/// The port's counters and the RX lcore's load, as the verdict quotes them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counters {
    /// Frames the NIC dropped for lack of room.
    pub imissed: u64,
    /// Receive mbuf allocation failures.
    pub rx_nombuf: u64,
    /// Frames the RX queues dropped at a full ring (not in `imissed`).
    pub rx_ring_drops: u64,
    /// Frames sent but never seen by the receiving port.
    pub lost_in_network: u64,
    /// Fraction of the RX lcore's time spent on frames, if measured.
    pub rx_utilisation: Option<f64>,
    /// Frames the receiving port refused (malformed or too long).
    pub rx_refused: u64,
    /// Frames the sending port counted as not sent.
    pub tx_errors: u64,
}

impl Counters {
    /// Frames the port itself dropped (imissed + rx_nombuf + ring-full
    /// drops).
    pub fn port_drops(&self) -> u64 {
        self.imissed + self.rx_nombuf + self.rx_ring_drops
    }
}

/// Why a ceiling that was reached while frames went missing bound the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Evidence {
    /// The delivered rate is the link's line rate.
    LineRate,
    /// The delivered rate is what the measured cycles per frame allow.
    CpuCycles {
        /// Busy TSC cycles per frame measured on the RX lcore.
        cycles_per_frame: f64,
    },
    /// The port dropped frames while the RX lcore was saturated.
    CpuSaturated,
    /// Frames went missing in a ring no counter shows while the RX lcore
    /// was busy.
    CpuHiddenDrops,
    /// The NIC missed frames with the delivered rate near the bus model.
    BusMissed,
}

/// Which rule decided the run, with the figures it rests on.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// All offered arrived, but the requested rate is above what the link
    /// carries (rule 1a): binds on the link.
    TargetAboveLink {
        /// The requested L2 rate, bit/s.
        target_bps: f64,
        /// The link ceiling.
        link: Ceiling,
    },
    /// All offered arrived, but the sender offered less than requested
    /// (rule 1a).
    SenderShort {
        /// The requested L2 rate, bit/s.
        target_bps: f64,
    },
    /// All offered arrived, at the lowest ceiling (rule 1b).
    AtCeiling(Ceiling),
    /// All offered arrived and no ceiling was near (rule 1c).
    Delivered {
        /// The lowest ceiling that takes part, if any.
        nearest: Option<Ceiling>,
    },
    /// Frames are missing and this ceiling was reached (rule 3).
    Reached {
        /// The ceiling.
        ceiling: Ceiling,
        /// What shows it bound the run.
        evidence: Evidence,
    },
    /// The receiving port refused at least as many frames as it dropped
    /// and as went missing before it (rule 2a): malformed or too long.
    PortRefused {
        /// The counters that say so, by name.
        by: Vec<(String, u64)>,
    },
    /// The sending port counted at least as many frames not sent as went
    /// missing before the receiving port (rule 2b).
    TxRefused {
        /// The counters that say so, by name.
        by: Vec<(String, u64)>,
    },
    /// Frames vanished before the port (rule 4).
    Network,
    /// The receive mbuf pool ran dry (rule 5).
    PoolDry,
    /// The RX queues' rings were full: the RX lcore did not take frames
    /// in time, and the driver counted the drops per queue, not in
    /// `imissed` (rule 5).
    RingFull,
    /// The port dropped frames below every ceiling; this is the lowest one
    /// at or above the delivered rate (rule 5, weak evidence).
    NearestAbove(Ceiling),
    /// The port dropped frames and no ceiling is known (rule 5, weak
    /// evidence).
    PortDrops,
    /// The port dropped frames (or, where drops are hidden, frames went
    /// missing) while the RX lcore was descheduled for more than
    /// [`DESCHEDULED_MAX`] of its run (rule 3b): its CPU was shared, so
    /// its own cost cannot be told.
    Descheduled {
        /// The descheduled share, 0..=1.
        share: f64,
    },
}

/// The decision of a run: which limit bound it, why, and the figures
/// behind it, before it is put in words by [`explain`].
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The limit that bound the run.
    pub binding: Limit,
    /// The rule that decided, with its figures.
    pub reason: Reason,
    /// Every ceiling that could be computed, lowest first.
    pub ceilings: Vec<Ceiling>,
    /// The ceilings that took part (those the delivered rate did not
    /// exceed), lowest first.
    pub considered: Vec<Ceiling>,
    /// The ceilings the delivered rate exceeded by more than
    /// [`AT_CEILING`], lowest first.
    pub exceeded: Vec<Ceiling>,
    /// What was delivered.
    pub delivered: Rate,
    /// What was offered, if known.
    pub offered: Option<Rate>,
    /// The port's counters.
    pub counters: Counters,
    /// The RX lcore's descheduled share (0..=1) when it was above
    /// [`DESCHEDULED_MAX`]: its CPU ceiling, if computed, is in `ceilings`
    /// but in neither `considered` nor `exceeded`, and its utilisation was
    /// not used.
    pub descheduled: Option<f64>,
}

impl Decision {
    /// The ceiling the reason names, if any.
    pub fn ceiling(&self) -> Option<&Ceiling> {
        match &self.reason {
            Reason::TargetAboveLink { link: c, .. }
            | Reason::AtCeiling(c)
            | Reason::Reached { ceiling: c, .. }
            | Reason::NearestAbove(c) => Some(c),
            _ => None,
        }
    }
}

fn finite_or_zero(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 {
        v
    } else {
        0.0
    }
}

/// The observation's figures, with NaN, infinite and negative rates made 0.
struct Figures {
    frame_size: u32,
    delivered: Rate,
    offered: Rate,
    tsc_hz: f64,
    cycles_per_frame: f64,
    utilisation: Option<f64>,
    descheduled: Option<f64>,
}

impl Figures {
    fn new(obs: &Observation) -> Figures {
        let delivered = Rate {
            bps: finite_or_zero(obs.delivered_bps),
            fps: finite_or_zero(obs.delivered_fps),
        };
        let frame_size = if obs.frame_size > 0 {
            obs.frame_size
        } else if delivered.fps > 0.0 {
            (delivered.bps / delivered.fps / 8.0).round() as u32
        } else {
            0
        };
        Figures {
            frame_size,
            delivered,
            offered: Rate {
                bps: finite_or_zero(obs.offered_bps),
                fps: finite_or_zero(obs.offered_fps),
            },
            tsc_hz: finite_or_zero(obs.tsc_hz),
            cycles_per_frame: obs.rx_cycles_per_frame.map(finite_or_zero).unwrap_or(0.0),
            utilisation: obs.rx_utilisation.filter(|u| u.is_finite()),
            descheduled: obs
                .rx_descheduled
                .filter(|d| d.is_finite() && *d > DESCHEDULED_MAX),
        }
    }

    /// A ceiling of `fps` frames/s at `bps_l2`, with its headroom.
    fn ceiling(&self, limit: Limit, name: String, fps: f64, bps_l2: f64) -> Ceiling {
        let headroom_pct = if self.delivered.fps > 0.0 {
            Some((fps / self.delivered.fps - 1.0) * 100.0)
        } else {
            None
        };
        Ceiling {
            limit,
            name,
            fps,
            bps_l2,
            headroom_pct,
        }
    }

    /// The L2 rate of `fps` frames/s.
    fn l2(&self, fps: f64) -> f64 {
        fps * 8.0 * f64::from(self.frame_size)
    }

    /// True when the delivered rate is within `band` below `c` or above it.
    fn reached(&self, c: &Ceiling, band: f64) -> bool {
        self.delivered.fps >= c.fps * (1.0 - band)
    }
}

/// Every ceiling the observation allows computing, lowest first.
fn ceilings(obs: &Observation, fig: &Figures) -> Vec<Ceiling> {
    let mut out = Vec::new();
    if let Some(link) = obs.link.filter(|_| fig.frame_size > 0) {
        let fps = link.frames_per_sec(fig.frame_size);
        out.push(fig.ceiling(Limit::Link, link.name(), fps, fig.l2(fps)));
    }
    if let Some(bus) = obs.bus {
        if let Ok(c) = bus.frame_ceiling(fig.frame_size, Direction::Rx) {
            let name = format!("{} (receive)", c.name);
            out.push(fig.ceiling(Limit::Bus, name, c.fps, c.bps_l2));
        }
    }
    let cpf = fig.cycles_per_frame;
    if cpf > 0.0 && fig.tsc_hz > 0.0 {
        let fps = fig.tsc_hz / cpf;
        let mut name = format!(
            "RX lcore: {} cycles/frame at {:.3} GHz",
            group(cpf),
            fig.tsc_hz / 1e9
        );
        if let Some(d) = fig.descheduled {
            name.push_str(&format!(
                " (descheduled {:.1} %: not trustworthy)",
                d * 100.0
            ));
        }
        out.push(fig.ceiling(Limit::Cpu, name, fps, fig.l2(fps)));
    }
    out.sort_by(|a, b| a.fps.total_cmp(&b.fps));
    out
}

/// Decides which limit bound the run. Ceilings the delivered rate exceeds
/// by more than 2 % are listed but take no part (the device is not what
/// they model, e.g. a virtual port). Rules, first match wins (constants
/// above):
///
/// 1. Delivered ≥ offered · (1 − 0.1 %), or, when the offered rate is
///    unknown (a receiver on its own), nothing was lost or dropped:
///    a. a target was set and offered < target · (1 − 0.1 %): **Link** if
///    the offered rate is within 2 % of the link ceiling, else **Sender**;
///    b. the lowest ceiling is within 2 % of delivered: that ceiling
///    (typically the link at line rate);
///    c. else **None** ("offered rate delivered; nearest ceiling ...").
///
///    (A receiver on its own counts the frames its port refused as
///    missing too.)
/// 2. Frames are missing and a port refused them (its own counters say
///    so, ahead of any ceiling inferred from rates):
///    a. the receiving port refused (rx_refused: ierrors or a refusing
///    extended statistic, [`super::port_errors`]) at least as many frames
///    as it dropped (imissed + rx_nombuf) and as were lost in the network:
///    **Port** ([`Reason::PortRefused`]);
///    b. else the sending port counted at least as many frames not sent
///    (tx_errors) as were lost in the network: **Port**
///    ([`Reason::TxRefused`]).
/// 3. Frames are missing. Candidates:
///    **Link** if delivered is within 2 % of the link ceiling;
///    **Cpu** if delivered is within 2 % of the measured CPU ceiling, or the
///    port dropped frames (imissed + rx_nombuf > 0) while the RX lcore was
///    ≥ 95 % busy; **Bus** if imissed > 0 and delivered is within 15 % of the
///    modelled bus ceiling (RX direction). Link and CPU (exact or measured)
///    outrank the modelled bus; among them the lowest ceiling wins.
///    No candidate, the RX lcore descheduled more than 5 % of its run, and
///    the port dropped frames (or, where drops are hidden, frames went
///    missing): **Cpu**, a shared CPU ([`Reason::Descheduled`]).
///
/// An RX lcore descheduled more than 5 % ([`DESCHEDULED_MAX`]) has its
/// CPU ceiling listed, marked not trustworthy, but taking no part, and its
/// utilisation unused: cycles counted while it did not run neither blame
/// nor clear the CPU.
///
/// 4. No candidate and lost_in_network ≥ imissed + rx_nombuf (including
///    when the port dropped nothing): **Network**.
/// 5. Otherwise the port dropped frames without a ceiling being reached:
///    **Cpu** if rx_nombuf ≥ imissed (buffers not returned in time), else
///    **Cpu** if the RX queues' ring-full drops (ixgbe's `rx_qN_errors`)
///    ≥ imissed (the RX lcore did not take frames in time), else the
///    lowest ceiling at or above delivered, else **Cpu**.
///
/// Wherever imissed + rx_nombuf is counted above, the ring-full drops
/// are counted with them (`Counters::port_drops`).
pub fn decide(obs: &Observation) -> Decision {
    let fig = Figures::new(obs);
    let ceilings = ceilings(obs, &fig);
    // A ceiling the run delivered well above cannot have bound it: the
    // device is not what the ceiling models (a virtual port has no line
    // rate). It stays in the list but takes no part in the decision.
    // Cycles counted while the lcore was descheduled neither blame nor
    // clear the CPU: its ceiling takes no part, nor does its utilisation.
    let trusted = |c: &&Ceiling| !(c.limit == Limit::Cpu && fig.descheduled.is_some());
    let (exceeded, considered): (Vec<Ceiling>, Vec<Ceiling>) = ceilings
        .iter()
        .filter(trusted)
        .cloned()
        .partition(|c| fig.delivered.fps > c.fps * (1.0 + AT_CEILING));
    let fig = Figures {
        utilisation: fig.utilisation.filter(|_| fig.descheduled.is_none()),
        ..fig
    };
    let counters = Counters {
        imissed: obs.imissed,
        rx_nombuf: obs.rx_nombuf,
        rx_ring_drops: obs.rx_ring_drops,
        lost_in_network: obs.lost_in_network,
        rx_utilisation: fig.utilisation,
        rx_refused: obs.rx_refused,
        tx_errors: obs.tx_errors,
    };
    // Everything arrived: all that was offered, or, when the offered rate
    // is unknown (a receiver on its own), nothing went missing anywhere.
    let all_arrived = if fig.offered.fps > 0.0 {
        fig.delivered.fps >= fig.offered.fps * (1.0 - DELIVERED_TOLERANCE)
    } else {
        counters.lost_in_network == 0 && counters.port_drops() == 0 && counters.rx_refused == 0
    };
    let reason = if all_arrived {
        decide_arrived(obs, &fig, &considered)
    } else {
        decide_missing(obs, &fig, &considered, &counters)
    };
    Decision {
        binding: binding(&reason),
        reason,
        ceilings,
        considered,
        exceeded,
        delivered: fig.delivered,
        offered: (fig.offered.fps > 0.0).then_some(fig.offered),
        counters,
        descheduled: fig.descheduled,
    }
}

/// The limit a reason names.
fn binding(reason: &Reason) -> Limit {
    match reason {
        Reason::TargetAboveLink { .. } => Limit::Link,
        Reason::SenderShort { .. } => Limit::Sender,
        Reason::Delivered { .. } => Limit::None,
        Reason::AtCeiling(c) | Reason::Reached { ceiling: c, .. } | Reason::NearestAbove(c) => {
            c.limit
        }
        Reason::Network => Limit::Network,
        Reason::PortRefused { .. } | Reason::TxRefused { .. } => Limit::Port,
        Reason::PoolDry | Reason::RingFull | Reason::PortDrops | Reason::Descheduled { .. } => {
            Limit::Cpu
        }
    }
}

/// Rule 1: everything offered arrived.
fn decide_arrived(obs: &Observation, fig: &Figures, considered: &[Ceiling]) -> Reason {
    let short_target = obs
        .target_bps
        .filter(|t| t.is_finite() && *t > 0.0 && fig.offered.bps < t * (1.0 - DELIVERED_TOLERANCE));
    if let Some(target_bps) = short_target {
        let link = considered
            .iter()
            .find(|c| c.limit == Limit::Link)
            .filter(|c| fig.offered.fps >= c.fps * (1.0 - AT_CEILING));
        return match link {
            Some(c) => Reason::TargetAboveLink {
                target_bps,
                link: c.clone(),
            },
            None => Reason::SenderShort { target_bps },
        };
    }
    match considered.first() {
        Some(c) if fig.reached(c, AT_CEILING) => Reason::AtCeiling(c.clone()),
        nearest => Reason::Delivered {
            nearest: nearest.cloned(),
        },
    }
}

/// Rule 3: the ceilings that were reached while frames went missing, with
/// their evidence; exact ones (link, measured CPU) before the bus model,
/// then lowest first.
fn candidates(
    obs: &Observation,
    fig: &Figures,
    considered: &[Ceiling],
    counters: &Counters,
) -> Vec<(Ceiling, Evidence)> {
    let find = |l: Limit| considered.iter().find(|c| c.limit == l);
    let mut out = Vec::new();
    if let Some(c) = find(Limit::Link).filter(|c| fig.reached(c, AT_CEILING)) {
        out.push((c.clone(), Evidence::LineRate));
    }
    let cpu = find(Limit::Cpu);
    let port_drops = counters.port_drops();
    let cpu_busy = fig.utilisation.is_some_and(|u| u >= CPU_SATURATED);
    let hidden = obs.drops_hidden
        && counters.lost_in_network > 0
        && fig.utilisation.is_some_and(|u| u >= CPU_BUSY_HIDDEN_DROPS);
    if let Some(c) = cpu.filter(|c| fig.reached(c, AT_CEILING)) {
        let cycles_per_frame = fig.cycles_per_frame;
        out.push((c.clone(), Evidence::CpuCycles { cycles_per_frame }));
    } else if (port_drops > 0 && cpu_busy) || hidden {
        let c = cpu.cloned().unwrap_or(Ceiling {
            limit: Limit::Cpu,
            name: "RX lcore (cycles per frame not measured)".into(),
            fps: fig.delivered.fps,
            bps_l2: fig.delivered.bps,
            headroom_pct: Some(0.0),
        });
        let evidence = if port_drops > 0 {
            Evidence::CpuSaturated
        } else {
            Evidence::CpuHiddenDrops
        };
        out.push((c, evidence));
    }
    if counters.imissed > 0 {
        if let Some(c) = find(Limit::Bus).filter(|c| fig.reached(c, BUS_MODEL_BAND)) {
            out.push((c.clone(), Evidence::BusMissed));
        }
    }
    out.sort_by(|a, b| {
        (a.0.limit == Limit::Bus)
            .cmp(&(b.0.limit == Limit::Bus))
            .then(a.0.fps.total_cmp(&b.0.fps))
    });
    out
}

/// Rules 2 to 5: frames are missing.
fn decide_missing(
    obs: &Observation,
    fig: &Figures,
    considered: &[Ceiling],
    counters: &Counters,
) -> Reason {
    // Rule 2: a port refused them (counted by the port itself, so ahead
    // of every ceiling inferred from rates).
    if counters.rx_refused > 0
        && counters.rx_refused >= counters.port_drops()
        && counters.rx_refused >= counters.lost_in_network
    {
        return Reason::PortRefused {
            by: obs.rx_refused_by.clone(),
        };
    }
    if counters.tx_errors > 0 && counters.tx_errors >= counters.lost_in_network {
        return Reason::TxRefused {
            by: obs.tx_errors_by.clone(),
        };
    }
    if let Some((ceiling, evidence)) = candidates(obs, fig, considered, counters)
        .into_iter()
        .next()
    {
        return Reason::Reached { ceiling, evidence };
    }
    let hidden = obs.drops_hidden && counters.lost_in_network > 0;
    if let Some(share) = fig
        .descheduled
        .filter(|_| counters.port_drops() > 0 || hidden)
    {
        return Reason::Descheduled { share };
    }
    if counters.lost_in_network >= counters.port_drops() {
        Reason::Network
    } else if counters.rx_nombuf > 0 && counters.rx_nombuf >= counters.imissed {
        Reason::PoolDry
    } else if counters.rx_ring_drops > 0 && counters.rx_ring_drops >= counters.imissed {
        Reason::RingFull
    } else if let Some(c) = considered.iter().find(|c| c.fps >= fig.delivered.fps) {
        Reason::NearestAbove(c.clone())
    } else {
        Reason::PortDrops
    }
}

/// Computes the verdict: [`decide`], then [`explain`].
pub fn verdict(obs: &Observation) -> Verdict {
    let decision = decide(obs);
    Verdict {
        binding: decision.binding,
        explanation: explain(&decision),
        ceilings: decision.ceilings,
    }
}

fn rate(r: Rate) -> String {
    format!("{} Gbit/s ({} frames/s)", gbps(r.bps), group(r.fps))
}

fn describe(c: &Ceiling) -> String {
    let head = match c.headroom_pct {
        Some(h) => format!(", {h:+.1} % vs delivered"),
        None => String::new(),
    };
    let r = Rate {
        bps: c.bps_l2,
        fps: c.fps,
    };
    format!("{} {}: {}{}", c.limit.as_str(), c.name, rate(r), head)
}

fn title(l: Limit) -> &'static str {
    match l {
        Limit::Link => "Link",
        Limit::Bus => "Bus",
        Limit::Cpu => "CPU",
        Limit::Sender => "Sender",
        Limit::Network => "Network",
        Limit::Port => "Port",
        Limit::None => "None",
    }
}

/// The words for a decision: one paragraph with the numbers behind it.
pub fn explain(d: &Decision) -> String {
    let main = explain_arrived(d);
    // The reason's own ceiling is not repeated among the others.
    let skip = d.ceiling().map(|c| c.limit);
    let others: Vec<String> = match d.reason {
        Reason::Delivered { .. } => Vec::new(),
        _ => d
            .considered
            .iter()
            .filter(|c| Some(c.limit) != skip)
            .map(describe)
            .collect(),
    };
    let mut out = main;
    if !others.is_empty() {
        out.push_str(&format!(" Other ceilings: {}.", others.join("; ")));
    }
    if let Some(bus) = d.considered.iter().find(|c| c.limit == Limit::Bus) {
        out.push_str(&above_bus_model(bus));
    }
    if let Some(x) = d.descheduled {
        out.push_str(&format!(
            " The RX lcore was descheduled for {:.1} % of its run (another thread had its \
             CPU): its cycles per frame and utilisation are not trustworthy, so the CPU is \
             neither blamed nor cleared by this verdict.",
            x * 100.0
        ));
    }
    if !d.exceeded.is_empty() {
        let exceeded: Vec<String> = d.exceeded.iter().map(describe).collect();
        out.push_str(&format!(
            " Exceeded by the delivered rate, so not this device's limit (a virtual \
             port, or a link setting that does not match the device): {}.",
            exceeded.join("; ")
        ));
    }
    out
}

/// The sentence for a bus ceiling the delivered rate is above (by no more
/// than [`AT_CEILING`], or it would be exceeded): the model is an upper
/// bound, so this host's bus did better than the model allows and the
/// model cannot explain the run. Empty when the rate is at or below it.
fn above_bus_model(bus: &Ceiling) -> String {
    match bus.headroom_pct {
        Some(h) if h < 0.0 => format!(
            " The delivered rate is {:.1} % above the modelled bus ceiling ({}): this \
             host's bus moved more than the model allows (its bridge kept longer bursts or \
             fewer wait states than assumed), so the bus model cannot explain this run.",
            100.0 / (100.0 + h) * 100.0 - 100.0,
            bus.name
        ),
        _ => String::new(),
    }
}

/// What was offered, in words.
fn offered_text(d: &Decision) -> String {
    match d.offered {
        Some(r) => rate(r),
        None => "an unknown rate".to_string(),
    }
}

/// The first sentence: rule 1 (everything offered arrived) here, the
/// other rules in [`explain_missing`].
fn explain_arrived(d: &Decision) -> String {
    let delivered = rate(d.delivered);
    let offered = offered_text(d);
    match &d.reason {
        Reason::TargetAboveLink { target_bps, link } => format!(
            "Link-bound: {} Gbit/s was requested but the link carries at most {}; \
             {delivered} was offered and delivered.",
            gbps(*target_bps),
            rate(Rate {
                bps: link.bps_l2,
                fps: link.fps
            }),
        ),
        Reason::SenderShort { target_bps } => format!(
            "Sender-bound: {} Gbit/s was requested, the sender offered only {offered}, \
             and all of it was delivered.",
            gbps(*target_bps),
        ),
        Reason::AtCeiling(c) => format!(
            "{}-bound: {delivered} was delivered{}, at the {} ceiling ({}).",
            title(c.limit),
            if d.offered.is_some() {
                " (all that was offered)"
            } else {
                " with nothing lost"
            },
            c.limit.as_str(),
            describe(c),
        ),
        Reason::Delivered { nearest } => {
            let nearest = match nearest {
                Some(c) => format!(" The nearest ceiling is {}.", describe(c)),
                None => " No ceiling is known for this run.".to_string(),
            };
            format!(
                "Offered rate delivered: {delivered} of {offered}; nothing bound the run.{nearest}"
            )
        }
        _ => explain_missing(d),
    }
}

/// Why a reached ceiling bound the run, in words.
fn evidence_text(e: Evidence) -> String {
    match e {
        Evidence::LineRate => "the delivered rate is the link's line rate".into(),
        Evidence::CpuCycles { cycles_per_frame } => format!(
            "the RX lcore's measured {} cycles/frame allow no more",
            group(cycles_per_frame)
        ),
        Evidence::CpuSaturated => "the port dropped frames while the RX lcore was saturated".into(),
        Evidence::CpuHiddenDrops => {
            "frames were lost in the receiving port's own ring, which no counter shows, \
             while the RX lcore was busy"
                .into()
        }
        Evidence::BusMissed => format!(
            "the NIC missed frames (imissed) with the delivered rate within {:.0} % \
             of the modelled bus ceiling",
            BUS_MODEL_BAND * 100.0
        ),
    }
}

/// The counters, in words (the ports' refusals only when they counted
/// any).
fn counters_text(c: &Counters) -> String {
    let nonzero = |n: u64, what: &str| {
        if n > 0 {
            format!(", {what} {}", group(n as f64))
        } else {
            String::new()
        }
    };
    format!(
        "imissed {}, rx_nombuf {}, lost in network {}{}{}{}{}",
        group(c.imissed as f64),
        group(c.rx_nombuf as f64),
        group(c.lost_in_network as f64),
        nonzero(c.rx_ring_drops, "dropped at full RX rings (q_errors)"),
        nonzero(c.rx_refused, "refused by the receiving port"),
        nonzero(c.tx_errors, "not sent by the sending port"),
        match c.rx_utilisation {
            Some(u) => format!(", RX lcore utilisation {:.1} %", u * 100.0),
            None => String::new(),
        }
    )
}

/// Named counters in words, or `no counter named` when none are.
fn by_text(by: &[(String, u64)]) -> String {
    if by.is_empty() {
        "no counter named".to_string()
    } else {
        let parts: Vec<String> = (by.iter())
            .map(|(n, v)| format!("{n} {}", group(*v as f64)))
            .collect();
        parts.join(", ")
    }
}

/// The first sentences when frames are missing (rules 2 to 5).
fn explain_missing(d: &Decision) -> String {
    let missing = format!(
        "delivered {} of {} offered",
        rate(d.delivered),
        offered_text(d)
    );
    let counters = counters_text(&d.counters);
    let drops = group(d.counters.port_drops() as f64);
    match &d.reason {
        Reason::Reached { ceiling, evidence } => format!(
            "{}-bound: {missing}; {}: {}. Counters: {counters}.",
            title(ceiling.limit),
            evidence_text(*evidence),
            describe(ceiling),
        ),
        Reason::PortRefused { by } => format!(
            "Port-bound: {missing}; the receiving port refused {} frames ({}): it counted \
             them malformed or too long (a frame longer than its MTU or buffers, a bad cable, \
             optics or peer), so they were neither lost in the network nor dropped by the \
             host. Counters: {counters}.",
            group(d.counters.rx_refused as f64),
            by_text(by),
        ),
        Reason::TxRefused { by } => format!(
            "Port-bound: {missing}; the sending port did not send {} frames it was handed \
             ({}): they count as offered but never left it. Counters: {counters}.",
            group(d.counters.tx_errors as f64),
            by_text(by),
        ),
        Reason::Network => format!(
            "Network: {missing}; {} frames never reached the port and no ceiling was \
             reached. Counters: {counters}.",
            group(d.counters.lost_in_network as f64),
        ),
        Reason::PoolDry => format!(
            "CPU-bound: {missing}; the receive mbuf pool ran dry ({} allocation failures): \
             the RX side did not return buffers in time. Counters: {counters}.",
            group(d.counters.rx_nombuf as f64),
        ),
        Reason::RingFull => format!(
            "CPU-bound: {missing}; the receiving port's RX queues dropped {} frames at full \
             rings: the RX lcore did not take them in time (the driver counts these drops \
             per queue, not in imissed). Counters: {counters}.",
            group(d.counters.rx_ring_drops as f64),
        ),
        Reason::Descheduled { share } => format!(
            "CPU-bound (shared CPU): {missing}; frames went missing at the receiving port \
             while the RX lcore waited for its CPU {:.1} % of its run. Counters: {counters}.",
            share * 100.0
        ),
        Reason::NearestAbove(c) => format!(
            "{}-bound (weak evidence): {missing}; the port dropped {drops} frames and the closest \
             ceiling above the delivered rate is {}. Counters: {counters}.",
            title(c.limit),
            describe(c),
        ),
        _ => format!(
            "CPU-bound (weak evidence): {missing}; the receiving host dropped {drops} frames at \
             its port and no other ceiling is known. Counters: {counters}."
        ),
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

    /// `a` equals `b` to 1 part in 10^9.
    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Checks a ceiling's limit, name, frames/s and headroom.
    #[track_caller]
    fn check(c: &Ceiling, limit: Limit, name: &str, fps: f64, headroom: Option<f64>) {
        assert_eq!((c.limit, c.name.as_str()), (limit, name), "{c:?}");
        assert!(close(c.fps, fps), "fps {} != {fps}", c.fps);
        match (c.headroom_pct, headroom) {
            (Some(a), Some(b)) => assert!(close(a, b), "headroom {a} != {b}"),
            (a, b) => assert_eq!(a, b),
        }
    }

    const LAN: &str = "10GBASE-R (LAN PHY)";
    const PCIX: &str = "PCI-X/133 MMRBC 512 (receive)";
    /// 10GBASE-R frames/s at 9130 bytes: 10e9 / (8 · 9150).
    const LINE: f64 = 10e9 / (8.0 * 9150.0);
    /// PCI-X/133 receive frames/s at 9130 bytes (the bus model's figure).
    const PCIX_FPS: f64 = 108_674.426_699_948_2;

    // ---- decisions ----

    #[test]
    fn offered_delivered_is_none() {
        let mut o = obs(60_000.0, 59_990.0);
        o.bus = Some(Bus::PCIX_133);
        o.rx_cycles_per_frame = Some(10_000.0);
        let d = decide(&o);
        assert_eq!(d.binding, Limit::None);
        let Reason::Delivered { nearest: Some(c) } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        check(
            c,
            Limit::Bus,
            PCIX,
            PCIX_FPS,
            Some((PCIX_FPS / 59_990.0 - 1.0) * 100.0),
        );
        assert_eq!(d.ceilings.len(), 3);
        assert_eq!(d.ceilings[0].limit, Limit::Bus);
        assert!(d.ceilings.windows(2).all(|w| w[0].fps <= w[1].fps));
        check(
            &d.ceilings[1],
            Limit::Link,
            LAN,
            LINE,
            Some((LINE / 59_990.0 - 1.0) * 100.0),
        );
        let cpu = "RX lcore: 10,000 cycles/frame at 2.000 GHz";
        check(
            &d.ceilings[2],
            Limit::Cpu,
            cpu,
            200_000.0,
            Some((200_000.0 / 59_990.0 - 1.0) * 100.0),
        );
        assert_eq!(d.considered, d.ceilings);
        assert!(d.exceeded.is_empty());
        assert_eq!(
            d.delivered,
            Rate {
                bps: 59_990.0 * 8.0 * 9130.0,
                fps: 59_990.0
            }
        );
        assert_eq!(
            d.offered,
            Some(Rate {
                bps: 60_000.0 * 8.0 * 9130.0,
                fps: 60_000.0
            })
        );
        assert_eq!(
            d.counters,
            Counters {
                imissed: 0,
                rx_nombuf: 0,
                rx_ring_drops: 0,
                lost_in_network: 0,
                rx_utilisation: None,
                rx_refused: 0,
                tx_errors: 0,
            }
        );
        // Nothing known: no nearest ceiling.
        let mut o = obs(60_000.0, 60_000.0);
        o.link = None;
        let d = decide(&o);
        assert_eq!(d.reason, Reason::Delivered { nearest: None });
        assert!(d.ceilings.is_empty());
    }

    #[test]
    fn line_rate_delivered_is_link() {
        let line = LinkKind::Lan10G.frames_per_sec(FRAME);
        assert!(close(line, LINE));
        let d = decide(&obs(line, line));
        assert_eq!(d.binding, Limit::Link);
        let Reason::AtCeiling(c) = &d.reason else {
            panic!("{:?}", d.reason)
        };
        check(c, Limit::Link, LAN, LINE, Some(0.0));
        assert!(close(c.bps_l2, 9.978_142_076_502_733e9));
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
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Cpu);
        let cpu_fps = 2.596e9 / 213.5;
        let Reason::AtCeiling(c) = &d.reason else {
            panic!("{:?}", d.reason)
        };
        let cpu = "RX lcore: 214 cycles/frame at 2.596 GHz";
        check(
            c,
            Limit::Cpu,
            cpu,
            cpu_fps,
            Some((cpu_fps / 11_964_180.0 - 1.0) * 100.0),
        );
        assert_eq!(
            d.ceilings.len(),
            2,
            "the exceeded link ceiling is still listed"
        );
        let line = 10e9 / (8.0 * 1538.0);
        assert_eq!(d.exceeded.len(), 1);
        check(
            &d.exceeded[0],
            Limit::Link,
            LAN,
            line,
            Some((line / 11_964_180.0 - 1.0) * 100.0),
        );
        assert_eq!(d.considered, vec![c.clone()]);
        assert_eq!(d.offered, None);
        assert_eq!(d.counters.rx_utilisation, Some(0.94));
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
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Cpu);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        let name = "RX lcore: 40,000 cycles/frame at 2.000 GHz";
        check(
            ceiling,
            Limit::Cpu,
            name,
            50_000.0,
            Some((50_000.0 / 49_950.0 - 1.0) * 100.0),
        );
        assert_eq!(ceiling.bps_l2, 50_000.0 * 8.0 * 9130.0);
        assert_eq!(
            *evidence,
            Evidence::CpuCycles {
                cycles_per_frame: 40_000.0
            }
        );
        let limits: Vec<Limit> = d.ceilings.iter().map(|c| c.limit).collect();
        assert_eq!(limits, [Limit::Cpu, Limit::Link, Limit::Bus]);
        assert_eq!(
            d.counters,
            Counters {
                imissed: 5_000_000,
                rx_nombuf: 0,
                rx_ring_drops: 0,
                lost_in_network: 0,
                rx_utilisation: Some(0.999),
                rx_refused: 0,
                tx_errors: 0,
            }
        );
    }

    #[test]
    fn saturated_cpu_without_cycles_is_cpu() {
        let mut o = obs(136_612.0, 80_000.0);
        o.rx_utilisation = Some(0.99);
        o.rx_nombuf = 10;
        o.imissed = 1000;
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Cpu);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        let name = "RX lcore (cycles per frame not measured)";
        check(ceiling, Limit::Cpu, name, 80_000.0, Some(0.0));
        assert_eq!(ceiling.bps_l2, 80_000.0 * 8.0 * 9130.0);
        assert_eq!(*evidence, Evidence::CpuSaturated);
        assert_eq!(d.counters.port_drops(), 1010);
        // Not listed among the ceilings: it was not computed.
        assert_eq!(d.ceilings.len(), 1);
    }

    #[test]
    fn hidden_drops_on_a_busy_lcore_are_cpu() {
        let mut o = obs(136_612.0, 80_000.0);
        o.rx_utilisation = Some(0.92);
        o.lost_in_network = 56_612;
        o.drops_hidden = true;
        let d = decide(&o);
        let Reason::Reached { evidence, .. } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        assert_eq!(*evidence, Evidence::CpuHiddenDrops);
        // The same loss where a counter would show it is the network's.
        o.drops_hidden = false;
        assert_eq!(decide(&o).reason, Reason::Network);
        // So is the same loss with an idle RX lcore.
        o.drops_hidden = true;
        o.rx_utilisation = Some(0.5);
        assert_eq!(decide(&o).reason, Reason::Network);
    }

    #[test]
    fn a_descheduled_rx_lcore_neither_blames_nor_clears_the_cpu() {
        // The slowed-lcore run of `slowed_rx_lcore_is_cpu_bound_with_cycles_shown`,
        // but its lcore waited for its CPU 40 % of the run: its 40,000
        // cycles/frame include time it did not run.
        let mut o = obs(136_612.0, 49_950.0);
        o.rx_cycles_per_frame = Some(40_000.0);
        o.rx_utilisation = Some(0.999);
        o.imissed = 5_000_000;
        o.rx_descheduled = Some(0.40);
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Cpu);
        assert_eq!(d.reason, Reason::Descheduled { share: 0.40 });
        assert_eq!(d.descheduled, Some(0.40));
        assert_eq!(d.counters.rx_utilisation, None);
        let name =
            "RX lcore: 40,000 cycles/frame at 2.000 GHz (descheduled 40.0 %: not trustworthy)";
        let cpu = d.ceilings.iter().find(|c| c.limit == Limit::Cpu).unwrap();
        check(
            cpu,
            Limit::Cpu,
            name,
            50_000.0,
            Some((50_000.0 / 49_950.0 - 1.0) * 100.0),
        );
        assert!(d.considered.iter().all(|c| c.limit != Limit::Cpu));
        assert!(d.exceeded.is_empty());
        assert_eq!(
            explain(&d),
            "CPU-bound (shared CPU): delivered 3.648 Gbit/s (49,950 frames/s) of 9.978 Gbit/s \
             (136,612 frames/s) offered; frames went missing at the receiving port while the RX \
             lcore waited for its CPU 40.0 % of its run. Counters: imissed 5,000,000, rx_nombuf \
             0, lost in network 0. Other ceilings: link 10GBASE-R (LAN PHY): 9.978 Gbit/s \
             (136,612 frames/s), +173.5 % vs delivered. The RX lcore was descheduled for 40.0 % \
             of its run (another thread had its CPU): its cycles per frame and utilisation are \
             not trustworthy, so the CPU is neither blamed nor cleared by this verdict."
        );
        // At 5 % (the limit itself) the cycles are trusted: CPU by cycles.
        o.rx_descheduled = Some(DESCHEDULED_MAX);
        let d = decide(&o);
        assert!(matches!(
            d.reason,
            Reason::Reached {
                evidence: Evidence::CpuCycles { .. },
                ..
            }
        ));
        assert_eq!(d.descheduled, None);

        // A receiver that delivered everything at its measured CPU ceiling
        // is CPU-bound; descheduled, that ceiling clears nothing either.
        let mut o = obs(50_000.0, 50_000.0);
        o.link = None;
        o.rx_cycles_per_frame = Some(40_000.0);
        assert!(matches!(decide(&o).reason, Reason::AtCeiling(ref c) if c.limit == Limit::Cpu));
        o.rx_descheduled = Some(0.12);
        let d = decide(&o);
        assert_eq!(d.reason, Reason::Delivered { nearest: None });
        assert_eq!(d.ceilings.len(), 1);
        // Hidden drops on a busy but descheduled lcore: a shared CPU.
        let mut o = obs(136_612.0, 80_000.0);
        o.rx_utilisation = Some(0.92);
        o.lost_in_network = 56_612;
        o.drops_hidden = true;
        o.rx_descheduled = Some(0.3);
        assert_eq!(decide(&o).reason, Reason::Descheduled { share: 0.3 });
        o.drops_hidden = false;
        assert_eq!(decide(&o).reason, Reason::Network);
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
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Bus);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        let headroom = (PCIX_FPS / delivered_fps - 1.0) * 100.0;
        check(ceiling, Limit::Bus, PCIX, PCIX_FPS, Some(headroom));
        assert_eq!(*evidence, Evidence::BusMissed);
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
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Cpu);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        assert_eq!(ceiling.limit, Limit::Cpu);
        assert!(close(ceiling.fps, delivered_fps / 0.995));
        assert!(matches!(evidence, Evidence::CpuCycles { .. }));
        let bus = d.ceilings.iter().find(|c| c.limit == Limit::Bus).unwrap();
        assert!(bus.headroom_pct.unwrap() < 0.0);
        check(
            bus,
            Limit::Bus,
            PCIX,
            PCIX_FPS,
            Some((PCIX_FPS / delivered_fps - 1.0) * 100.0),
        );
    }

    /// L2 frames/s of a TCP goodput `payload_bps` at `mss` bytes of
    /// payload per 9130-byte frame.
    fn seed_fps(payload_bps: f64, mss: f64) -> f64 {
        payload_bps / (8.0 * mss)
    }

    #[test]
    fn the_2005_seeds_against_the_pcix_133_model() {
        // docs/limits.md, section 5. The model: 108,674 frames/s, 7.938
        // Gbit/s L2 at 9130 bytes.
        assert!(close(PCIX_FPS * 8.0 * 9130.0, 7.937_580_126_164_217e9));
        let ipv6 = |payload_bps: f64| {
            let fps = seed_fps(payload_bps, 9040.0);
            let mut o = obs(130_000.0, fps);
            o.bus = Some(Bus::PCIX_133);
            o.rx_cycles_per_frame = Some(12_000.0);
            o.tsc_hz = 2.4e9;
            o.rx_utilisation = Some(0.55);
            o.imissed = 250_000;
            (fps, decide(&o))
        };
        // IPv6 at its best, 6.96 Gbit/s of payload (7.029 L2): 88.6 % of
        // the model, inside the 15 % band: Bus.
        let (fps, d) = ipv6(6.96e9);
        assert_eq!(format!("{:.2}", fps / PCIX_FPS * 100.0), "88.56");
        assert!(
            matches!(&d.reason, Reason::Reached { ceiling, evidence: Evidence::BusMissed }
            if ceiling.limit == Limit::Bus)
        );
        // IPv6 at its lowest, 6.18 Gbit/s (6.242 L2): 78.6 %, outside the
        // band: the bus is only the nearest ceiling above (weak evidence).
        let (fps, d) = ipv6(6.18e9);
        assert_eq!(format!("{:.2}", fps / PCIX_FPS * 100.0), "78.63");
        let Reason::NearestAbove(c) = &d.reason else {
            panic!("{:?}", d.reason)
        };
        check(
            c,
            Limit::Bus,
            PCIX,
            PCIX_FPS,
            Some((PCIX_FPS / fps - 1.0) * 100.0),
        );
        assert!(explain(&d).starts_with("Bus-bound (weak evidence): "));
        // IPv4, 7.994 Gbit/s of payload (9060 bytes per frame): 8.056
        // Gbit/s L2, 1.5 % above what the model lets PCI-X/133 carry. With
        // the RX core saturated the measured CPU binds, and the verdict
        // says the bus model cannot explain the run.
        let fps = seed_fps(7.994e9, 9060.0);
        assert_eq!(format!("{:.3}", fps * 8.0 * 9130.0 / 1e9), "8.056");
        let mut o = obs(120_000.0, fps);
        o.bus = Some(Bus::PCIX_133);
        o.tsc_hz = 2.4e9;
        o.rx_cycles_per_frame = Some(2.4e9 * 0.995 / fps);
        o.rx_utilisation = Some(0.995);
        o.imissed = 40_000;
        let d = decide(&o);
        assert!(matches!(
            d.reason,
            Reason::Reached {
                evidence: Evidence::CpuCycles { .. },
                ..
            }
        ));
        let text = explain(&d);
        assert!(
            text.ends_with(
                " The delivered rate is 1.5 % above the modelled bus ceiling (PCI-X/133 MMRBC \
                 512 (receive)): this host's bus moved more than the model allows (its bridge \
                 kept longer bursts or fewer wait states than assumed), so the bus model cannot \
                 explain this run."
            ),
            "{text}"
        );
        // Without a CPU measurement the bus is all there is: still Bus,
        // with the same sentence.
        o.rx_cycles_per_frame = None;
        o.rx_utilisation = None;
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Bus);
        assert!(explain(&d).contains("1.5 % above the modelled bus ceiling"));
    }

    #[test]
    fn frames_lost_before_the_port_is_network() {
        let mut o = obs(136_000.0, 120_000.0);
        o.lost_in_network = 16_000;
        let d = decide(&o);
        assert_eq!((d.binding, &d.reason), (Limit::Network, &Reason::Network));
        assert_eq!(d.counters.lost_in_network, 16_000);
        // Missing frames with no counter at all: also lost before the port.
        let d = decide(&obs(136_000.0, 120_000.0));
        assert_eq!((d.binding, &d.reason), (Limit::Network, &Reason::Network));
    }

    #[test]
    fn slower_receiving_link_is_link_bound() {
        let g1 = LinkKind::G1.frames_per_sec(FRAME);
        let mut o = obs(136_612.0, g1);
        o.link = Some(LinkKind::G1);
        o.lost_in_network = 1_000_000;
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Link);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        assert!(close(g1, 1e9 / (8.0 * 9150.0)));
        check(ceiling, Limit::Link, &LinkKind::G1.name(), g1, Some(0.0));
        assert_eq!(*evidence, Evidence::LineRate);
    }

    #[test]
    fn short_sender_is_sender_bound() {
        let mut o = obs(60_000.0, 60_000.0);
        o.target_bps = Some(9.9e9);
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Sender);
        assert_eq!(d.reason, Reason::SenderShort { target_bps: 9.9e9 });
        // Asking for more than the link carries is link-bound, not sender.
        let line = LinkKind::Lan10G.frames_per_sec(FRAME);
        let mut o = obs(line, line);
        o.target_bps = Some(12e9);
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Link);
        let Reason::TargetAboveLink { target_bps, link } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        assert_eq!(*target_bps, 12e9);
        check(link, Limit::Link, LAN, LINE, Some(0.0));
        // A target the sender met decides nothing.
        o.target_bps = Some(line * 8.0 * 9130.0);
        assert!(matches!(decide(&o).reason, Reason::AtCeiling(_)));
    }

    #[test]
    fn nombuf_without_ceiling_is_cpu() {
        let mut o = obs(136_000.0, 90_000.0);
        o.rx_nombuf = 500;
        o.rx_utilisation = Some(0.5);
        let d = decide(&o);
        assert_eq!((d.binding, &d.reason), (Limit::Cpu, &Reason::PoolDry));
        assert_eq!(d.counters.rx_nombuf, 500);
    }

    /// ixgbe's ring-full drops (QPRDC, not imissed) are the receiver's:
    /// never the network's, the CPU's when no ceiling was reached, and
    /// counted with the port's drops for a busy RX lcore.
    #[test]
    fn ring_full_drops_are_the_receivers_not_the_networks() {
        let mut o = obs(136_000.0, 90_000.0);
        o.rx_ring_drops = 46_000;
        o.rx_utilisation = Some(0.5);
        let d = decide(&o);
        assert_eq!((d.binding, &d.reason), (Limit::Cpu, &Reason::RingFull));
        assert_eq!(d.counters.port_drops(), 46_000);
        let v = verdict(&o);
        assert!(
            v.explanation.contains(
                "the receiving port's RX queues dropped 46,000 frames at full rings: the RX \
                 lcore did not take them in time (the driver counts these drops per queue, not \
                 in imissed). Counters: imissed 0, rx_nombuf 0, lost in network 0, dropped at \
                 full RX rings (q_errors) 46,000, RX lcore utilisation 50.0 %."
            ),
            "{}",
            v.explanation
        );
        // A saturated RX lcore: the CPU with that evidence.
        o.rx_utilisation = Some(0.99);
        let d = decide(&o);
        let Reason::Reached { ceiling, evidence } = &d.reason else {
            panic!("{:?}", d.reason)
        };
        assert_eq!(
            (ceiling.limit, *evidence),
            (Limit::Cpu, Evidence::CpuSaturated)
        );
        // More lost in the network than dropped at the rings: the network.
        o.rx_utilisation = Some(0.5);
        o.lost_in_network = 50_000;
        assert_eq!(decide(&o).reason, Reason::Network);
        // imissed above the ring drops: not the rings.
        o.lost_in_network = 0;
        o.imissed = 50_000;
        assert_ne!(decide(&o).reason, Reason::RingFull);
    }

    #[test]
    fn imissed_far_from_every_ceiling_names_the_closest() {
        let mut o = obs(136_000.0, 60_000.0);
        o.imissed = 500;
        o.rx_utilisation = Some(0.3);
        o.bus = Some(Bus::PCIX_133);
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Bus);
        let Reason::NearestAbove(c) = &d.reason else {
            panic!("{:?}", d.reason)
        };
        check(
            c,
            Limit::Bus,
            PCIX,
            PCIX_FPS,
            Some((PCIX_FPS / 60_000.0 - 1.0) * 100.0),
        );
        // With no ceiling known, the receiving host's CPU (weak evidence).
        o.link = None;
        o.bus = None;
        let d = decide(&o);
        assert_eq!((d.binding, &d.reason), (Limit::Cpu, &Reason::PortDrops));
    }

    #[test]
    fn unusable_figures_count_as_zero() {
        let mut o = obs(f64::NAN, f64::INFINITY);
        o.frame_size = 0;
        o.tsc_hz = -1.0;
        o.rx_cycles_per_frame = Some(f64::NAN);
        o.rx_utilisation = Some(f64::NAN);
        let d = decide(&o);
        assert_eq!(d.delivered, Rate { bps: 0.0, fps: 0.0 });
        assert_eq!((d.offered, d.counters.rx_utilisation), (None, None));
        // No frame size: no link ceiling; nothing missing: delivered.
        assert!(d.ceilings.is_empty());
        assert_eq!(d.reason, Reason::Delivered { nearest: None });
        // The frame size is derived from the L2 rates when not given.
        let mut o = obs(100_000.0, 100_000.0);
        o.frame_size = 0;
        let d = decide(&o);
        assert!(close(d.ceilings[0].fps, LINE));
    }

    #[test]
    fn nothing_delivered_has_no_headroom() {
        let d = decide(&obs(60_000.0, 0.0));
        check(&d.ceilings[0], Limit::Link, LAN, LINE, None);
        assert_eq!(d.reason, Reason::Network);
    }

    #[test]
    fn cycles_without_a_tsc_rate_give_no_cpu_ceiling() {
        let mut o = obs(60_000.0, 60_000.0);
        o.rx_cycles_per_frame = Some(40_000.0);
        o.tsc_hz = 0.0;
        let d = decide(&o);
        assert_eq!(d.ceilings.len(), 1);
        assert_eq!(d.ceilings[0].limit, Limit::Link);
    }

    #[test]
    fn a_ceiling_exactly_2_percent_below_delivered_still_counts() {
        let line = LinkKind::Lan10G.frames_per_sec(FRAME);
        let at = line * (1.0 + AT_CEILING);
        let d = decide(&obs(at, at));
        assert!(d.exceeded.is_empty());
        assert!(matches!(&d.reason, Reason::AtCeiling(c) if c.limit == Limit::Link));
        let above = f64::from_bits(at.to_bits() + 1);
        let d = decide(&obs(above, above));
        assert_eq!(d.exceeded.len(), 1);
        assert_eq!(d.reason, Reason::Delivered { nearest: None });
    }

    #[test]
    fn a_receiver_on_its_own_counts_what_went_missing() {
        // The offered rate is unknown: any loss or drop means frames are
        // missing.
        let mut o = obs(0.0, 60_000.0);
        o.lost_in_network = 5;
        assert_eq!(decide(&o).reason, Reason::Network);
        let mut o = obs(0.0, 60_000.0);
        o.imissed = 5;
        o.rx_utilisation = Some(0.2);
        assert!(matches!(decide(&o).reason, Reason::NearestAbove(_)));
        let mut o = obs(0.0, 60_000.0);
        o.rx_nombuf = 5;
        assert_eq!(decide(&o).reason, Reason::PoolDry);
        // Nothing missing: delivered.
        let d = decide(&obs(0.0, 60_000.0));
        assert!(matches!(d.reason, Reason::Delivered { nearest: Some(_) }));
    }

    #[test]
    fn unusable_targets_are_ignored() {
        for t in [f64::NAN, f64::INFINITY, 0.0, -5e9] {
            let mut o = obs(60_000.0, 60_000.0);
            o.target_bps = Some(t);
            assert!(matches!(decide(&o).reason, Reason::Delivered { .. }), "{t}");
        }
    }

    #[test]
    fn an_offer_just_within_the_tolerance_of_the_target_is_not_short() {
        let o = obs(60_000.0, 60_000.0);
        // The target whose tolerance band ends exactly at the offered rate.
        let mut t = o.offered_bps / (1.0 - DELIVERED_TOLERANCE);
        while t * (1.0 - DELIVERED_TOLERANCE) > o.offered_bps {
            t = f64::from_bits(t.to_bits() - 1);
        }
        while t * (1.0 - DELIVERED_TOLERANCE) < o.offered_bps {
            t = f64::from_bits(t.to_bits() + 1);
        }
        assert_eq!(t * (1.0 - DELIVERED_TOLERANCE), o.offered_bps);
        let mut at = o.clone();
        at.target_bps = Some(t);
        assert!(matches!(decide(&at).reason, Reason::Delivered { .. }));
        let mut above = o;
        above.target_bps = Some(f64::from_bits(t.to_bits() + 1));
        assert!(matches!(decide(&above).reason, Reason::SenderShort { .. }));
    }

    #[test]
    fn a_busy_lcore_without_drops_at_its_port_is_not_the_limit() {
        // Frames lost before the port while the RX lcore was busy, on a
        // port whose counters would show its own drops: the network.
        let mut o = obs(136_000.0, 80_000.0);
        o.rx_utilisation = Some(0.99);
        o.lost_in_network = 56_000;
        assert_eq!(decide(&o).reason, Reason::Network);
        // A port that hides its drops, but nothing lost: also the network
        // (nothing counted at all).
        let mut o = obs(136_000.0, 80_000.0);
        o.rx_utilisation = Some(0.99);
        o.drops_hidden = true;
        assert_eq!(decide(&o).reason, Reason::Network);
    }

    #[test]
    fn the_bus_binds_only_when_the_nic_missed_frames() {
        let delivered_fps = 6.96e9 / (8.0 * 9040.0);
        let mut o = obs(130_000.0, delivered_fps);
        o.bus = Some(Bus::PCIX_133);
        o.rx_utilisation = Some(0.55);
        o.rx_nombuf = 250_000;
        assert_eq!(decide(&o).reason, Reason::PoolDry);
    }

    #[test]
    fn fewer_mbuf_failures_than_misses_point_at_a_ceiling() {
        let mut o = obs(136_000.0, 60_000.0);
        o.imissed = 500;
        o.rx_nombuf = 10;
        o.rx_utilisation = Some(0.3);
        let d = decide(&o);
        assert!(matches!(&d.reason, Reason::NearestAbove(c) if c.limit == Limit::Link));
    }

    #[test]
    fn serialises() {
        let v = verdict(&obs(1000.0, 1000.0));
        let j = serde_json::to_value(&v).unwrap();
        assert_eq!(j["binding"], "none");
        assert!(j["ceilings"][0]["fps"].as_f64().unwrap() > 136_000.0);
    }

    // ---- wording ----

    /// A ceiling of `gbit` Gbit/s at 9130-byte frames, `headroom` % above
    /// the delivered rate.
    fn ceiling(limit: Limit, name: &str, fps: f64, headroom: Option<f64>) -> Ceiling {
        Ceiling {
            limit,
            name: name.into(),
            fps,
            bps_l2: fps * 8.0 * 9130.0,
            headroom_pct: headroom,
        }
    }

    /// A decision for `reason` with `considered` ceilings, 50,000 frames/s
    /// delivered of 60,000 offered, and some counters.
    fn decision(reason: Reason, considered: Vec<Ceiling>) -> Decision {
        let rate = |fps: f64| Rate {
            bps: fps * 8.0 * 9130.0,
            fps,
        };
        Decision {
            binding: binding(&reason),
            reason,
            ceilings: considered.clone(),
            considered,
            exceeded: Vec::new(),
            delivered: rate(50_000.0),
            offered: Some(rate(60_000.0)),
            counters: Counters {
                imissed: 1200,
                rx_nombuf: 34,
                rx_ring_drops: 0,
                lost_in_network: 5,
                rx_utilisation: Some(0.987),
                rx_refused: 0,
                tx_errors: 0,
            },
            descheduled: None,
        }
    }

    fn link() -> Ceiling {
        ceiling(Limit::Link, LAN, 136_612.0, Some(173.224))
    }
    fn bus() -> Ceiling {
        ceiling(Limit::Bus, PCIX, 108_674.0, Some(117.348))
    }
    fn cpu() -> Ceiling {
        ceiling(
            Limit::Cpu,
            "RX lcore: 40,000 cycles/frame at 2.000 GHz",
            50_000.0,
            Some(0.0),
        )
    }

    const LINK_TXT: &str =
        "link 10GBASE-R (LAN PHY): 9.978 Gbit/s (136,612 frames/s), +173.2 % vs delivered";
    const BUS_TXT: &str =
        "bus PCI-X/133 MMRBC 512 (receive): 7.938 Gbit/s (108,674 frames/s), +117.3 % vs delivered";
    const CPU_TXT: &str = "cpu RX lcore: 40,000 cycles/frame at 2.000 GHz: 3.652 Gbit/s (50,000 frames/s), +0.0 % vs delivered";
    const MISSING: &str =
        "delivered 3.652 Gbit/s (50,000 frames/s) of 4.382 Gbit/s (60,000 frames/s) offered";
    const COUNTERS: &str =
        "Counters: imissed 1,200, rx_nombuf 34, lost in network 5, RX lcore utilisation 98.7 %.";

    #[test]
    fn wording_target_above_link() {
        let reason = Reason::TargetAboveLink {
            target_bps: 12e9,
            link: link(),
        };
        let d = decision(reason, vec![bus(), link()]);
        assert_eq!(
            explain(&d),
            format!(
                "Link-bound: 12.000 Gbit/s was requested but the link carries at most 9.978 Gbit/s \
                 (136,612 frames/s); 3.652 Gbit/s (50,000 frames/s) was offered and delivered. \
                 Other ceilings: {BUS_TXT}."
            )
        );
    }

    #[test]
    fn wording_sender_short() {
        let d = decision(
            Reason::SenderShort { target_bps: 9.9e9 },
            vec![bus(), link()],
        );
        assert_eq!(
            explain(&d),
            format!(
                "Sender-bound: 9.900 Gbit/s was requested, the sender offered only 4.382 Gbit/s \
                 (60,000 frames/s), and all of it was delivered. Other ceilings: {BUS_TXT}; {LINK_TXT}."
            )
        );
        let mut d = decision(Reason::SenderShort { target_bps: 9.9e9 }, vec![]);
        d.offered = None;
        assert_eq!(
            explain(&d),
            "Sender-bound: 9.900 Gbit/s was requested, the sender offered only an unknown rate, \
             and all of it was delivered."
        );
    }

    #[test]
    fn wording_at_ceiling() {
        let d = decision(Reason::AtCeiling(cpu()), vec![cpu(), bus()]);
        assert_eq!(
            explain(&d),
            format!(
                "CPU-bound: 3.652 Gbit/s (50,000 frames/s) was delivered (all that was offered), \
                 at the cpu ceiling ({CPU_TXT}). Other ceilings: {BUS_TXT}."
            )
        );
        let mut d = decision(Reason::AtCeiling(link()), vec![link()]);
        d.offered = None;
        assert_eq!(
            explain(&d),
            format!(
                "Link-bound: 3.652 Gbit/s (50,000 frames/s) was delivered with nothing lost, \
                 at the link ceiling ({LINK_TXT})."
            )
        );
    }

    #[test]
    fn wording_delivered() {
        let d = decision(
            Reason::Delivered {
                nearest: Some(bus()),
            },
            vec![bus(), link()],
        );
        assert_eq!(
            explain(&d),
            format!(
                "Offered rate delivered: 3.652 Gbit/s (50,000 frames/s) of 4.382 Gbit/s \
                 (60,000 frames/s); nothing bound the run. The nearest ceiling is {BUS_TXT}."
            )
        );
        let mut d = decision(Reason::Delivered { nearest: None }, vec![]);
        d.offered = None;
        assert_eq!(
            explain(&d),
            "Offered rate delivered: 3.652 Gbit/s (50,000 frames/s) of an unknown rate; nothing \
             bound the run. No ceiling is known for this run."
        );
    }

    #[test]
    fn wording_reached() {
        let reached = |c: Ceiling, evidence| Reason::Reached {
            ceiling: c,
            evidence,
        };
        let cases = [
            (
                reached(link(), Evidence::LineRate),
                format!(
                    "Link-bound: {MISSING}; the delivered rate is the link's line rate: \
                     {LINK_TXT}. {COUNTERS} Other ceilings: {CPU_TXT}; {BUS_TXT}."
                ),
            ),
            (
                reached(
                    cpu(),
                    Evidence::CpuCycles {
                        cycles_per_frame: 40_000.0,
                    },
                ),
                format!(
                    "CPU-bound: {MISSING}; the RX lcore's measured 40,000 cycles/frame allow no \
                     more: {CPU_TXT}. {COUNTERS} Other ceilings: {BUS_TXT}; {LINK_TXT}."
                ),
            ),
            (
                reached(cpu(), Evidence::CpuSaturated),
                format!(
                    "CPU-bound: {MISSING}; the port dropped frames while the RX lcore was \
                     saturated: {CPU_TXT}. {COUNTERS} Other ceilings: {BUS_TXT}; {LINK_TXT}."
                ),
            ),
            (
                reached(cpu(), Evidence::CpuHiddenDrops),
                format!(
                    "CPU-bound: {MISSING}; frames were lost in the receiving port's own ring, \
                     which no counter shows, while the RX lcore was busy: {CPU_TXT}. {COUNTERS} \
                     Other ceilings: {BUS_TXT}; {LINK_TXT}."
                ),
            ),
            (
                reached(bus(), Evidence::BusMissed),
                format!(
                    "Bus-bound: {MISSING}; the NIC missed frames (imissed) with the delivered \
                     rate within 15 % of the modelled bus ceiling: {BUS_TXT}. {COUNTERS} \
                     Other ceilings: {CPU_TXT}; {LINK_TXT}."
                ),
            ),
        ];
        for (reason, want) in cases {
            let d = decision(reason, vec![cpu(), bus(), link()]);
            assert_eq!(explain(&d), want);
        }
    }

    #[test]
    fn wording_network_pool_and_weak_evidence() {
        let all = || vec![bus(), link()];
        let d = decision(Reason::Network, all());
        assert_eq!(
            explain(&d),
            format!(
                "Network: {MISSING}; 5 frames never reached the port and no ceiling was reached. \
                 {COUNTERS} Other ceilings: {BUS_TXT}; {LINK_TXT}."
            )
        );
        let d = decision(Reason::PoolDry, all());
        assert_eq!(
            explain(&d),
            format!(
                "CPU-bound: {MISSING}; the receive mbuf pool ran dry (34 allocation failures): \
                 the RX side did not return buffers in time. {COUNTERS} Other ceilings: \
                 {BUS_TXT}; {LINK_TXT}."
            )
        );
        let d = decision(Reason::NearestAbove(bus()), all());
        assert_eq!(
            explain(&d),
            format!(
                "Bus-bound (weak evidence): {MISSING}; the port dropped 1,234 frames and the \
                 closest ceiling above the delivered rate is {BUS_TXT}. {COUNTERS} Other \
                 ceilings: {LINK_TXT}."
            )
        );
        let mut d = decision(Reason::PortDrops, vec![]);
        d.counters.rx_utilisation = None;
        assert_eq!(
            explain(&d),
            format!(
                "CPU-bound (weak evidence): {MISSING}; the receiving host dropped 1,234 frames \
                 at its port and no other ceiling is known. Counters: imissed 1,200, rx_nombuf \
                 34, lost in network 5."
            )
        );
    }

    #[test]
    fn wording_names_exceeded_ceilings_last() {
        let mut d = decision(Reason::AtCeiling(cpu()), vec![cpu()]);
        let over = ceiling(Limit::Link, LAN, 40_000.0, Some(-20.0));
        d.exceeded = vec![over.clone(), bus()];
        assert_eq!(
            explain(&d),
            format!(
                "CPU-bound: 3.652 Gbit/s (50,000 frames/s) was delivered (all that was offered), \
                 at the cpu ceiling ({CPU_TXT}). Exceeded by the delivered rate, so not this \
                 device's limit (a virtual port, or a link setting that does not match the \
                 device): link 10GBASE-R (LAN PHY): 2.922 Gbit/s (40,000 frames/s), -20.0 % vs \
                 delivered; {BUS_TXT}."
            )
        );
        // Nothing delivered: no headroom to quote.
        let mut d = decision(Reason::Delivered { nearest: None }, vec![]);
        d.exceeded = vec![ceiling(Limit::Link, LAN, 40_000.0, None)];
        assert!(
            explain(&d).ends_with(": link 10GBASE-R (LAN PHY): 2.922 Gbit/s (40,000 frames/s).")
        );
    }

    #[test]
    fn the_documented_example_reads_as_documented() {
        // docs/limits.md, section 6: the slowed RX lcore.
        let mut o = obs(LinkKind::Lan10G.frames_per_sec(FRAME), 49_950.0);
        o.rx_cycles_per_frame = Some(40_000.0);
        o.rx_utilisation = Some(0.999);
        o.imissed = 5_000_000;
        o.bus = Some(Bus::pcie(3, 8).unwrap());
        let v = verdict(&o);
        assert_eq!(v.binding, Limit::Cpu);
        assert_eq!(
            v.explanation,
            "CPU-bound: delivered 3.648 Gbit/s (49,950 frames/s) of 9.978 Gbit/s (136,612 \
             frames/s) offered; the RX lcore's measured 40,000 cycles/frame allow no more: cpu \
             RX lcore: 40,000 cycles/frame at 2.000 GHz: 3.652 Gbit/s (50,000 frames/s), +0.1 % \
             vs delivered. Counters: imissed 5,000,000, rx_nombuf 0, lost in network 0, RX \
             lcore utilisation 99.9 %. Other ceilings: link 10GBASE-R (LAN PHY): 9.978 Gbit/s \
             (136,612 frames/s), +173.5 % vs delivered; bus PCIe gen3 x8 MPS 256 (receive): \
             56.630 Gbit/s (775,325 frames/s), +1452.2 % vs delivered."
        );
        assert_eq!(v.ceilings, decide(&o).ceilings);
        assert_eq!(o.verdict(), v);
    }

    // ---- ports that refused frames ----

    #[test]
    fn frames_the_receiving_port_refused_are_its_own_not_the_networks() {
        // 9130-byte frames into a port whose MTU is 1500: it refused every
        // one, so no stream frame was seen and nothing counts as lost.
        let by = vec![
            ("ierrors".to_string(), 120_000),
            ("rx_oversize_errors".to_string(), 120_000),
        ];
        let mut o = obs(60_000.0, 0.0);
        o.rx_refused = 120_000;
        o.rx_refused_by = by.clone();
        let d = decide(&o);
        assert_eq!(d.binding, Limit::Port);
        assert_eq!(d.reason, Reason::PortRefused { by: by.clone() });
        assert_eq!(d.counters.rx_refused, 120_000);
        // The same run without the port's counters reads as the network's.
        let mut plain = o.clone();
        plain.rx_refused = 0;
        plain.rx_refused_by.clear();
        assert_eq!(decide(&plain).reason, Reason::Network);
        // Refused frames outnumbered by drops: the drops decide.
        let mut o = obs(136_000.0, 60_000.0);
        o.rx_refused = 10;
        o.imissed = 500;
        o.rx_utilisation = Some(0.3);
        assert!(matches!(decide(&o).reason, Reason::NearestAbove(_)));
        // Outnumbered by frames lost before the port: the network.
        let mut o = obs(60_000.0, 50_000.0);
        o.rx_refused = 10;
        o.lost_in_network = 11;
        assert_eq!(decide(&o).reason, Reason::Network);
        o.lost_in_network = 10;
        assert_eq!(decide(&o).binding, Limit::Port, "a tie goes to the port");
        // A receiver on its own: a refused frame is a missing frame.
        let mut o = obs(0.0, 60_000.0);
        o.rx_refused = 3;
        assert_eq!(decide(&o).binding, Limit::Port);
        // Everything offered arrived: refused frames (not the streams')
        // change nothing.
        let mut o = obs(60_000.0, 60_000.0);
        o.rx_refused = 3;
        assert!(matches!(decide(&o).reason, Reason::Delivered { .. }));
    }

    #[test]
    fn frames_the_sending_port_did_not_send_are_its_own() {
        let by = vec![("oerrors".to_string(), 9_000)];
        let mut o = obs(60_000.0, 50_000.0);
        o.tx_errors = 9_000;
        o.tx_errors_by = by.clone();
        o.lost_in_network = 9_000;
        assert_eq!(decide(&o).reason, Reason::TxRefused { by });
        assert_eq!(decide(&o).binding, Limit::Port);
        o.lost_in_network = 9_001;
        assert_eq!(decide(&o).reason, Reason::Network);
    }

    #[test]
    fn wording_port_refused() {
        let all = || vec![bus(), link()];
        let by = vec![
            ("ierrors".to_string(), 5_000),
            ("rx_oversize_errors".to_string(), 4_990),
        ];
        let mut d = decision(Reason::PortRefused { by }, all());
        d.counters.rx_refused = 5_000;
        assert_eq!(
            explain(&d),
            format!(
                "Port-bound: {MISSING}; the receiving port refused 5,000 frames (ierrors 5,000, \
                 rx_oversize_errors 4,990): it counted them malformed or too long (a frame \
                 longer than its MTU or buffers, a bad cable, optics or peer), so they were \
                 neither lost in the network nor dropped by the host. Counters: imissed 1,200, \
                 rx_nombuf 34, lost in network 5, refused by the receiving port 5,000, RX lcore \
                 utilisation 98.7 %. Other ceilings: {BUS_TXT}; {LINK_TXT}."
            )
        );
        let mut d = decision(
            Reason::TxRefused {
                by: vec![("oerrors".to_string(), 7)],
            },
            all(),
        );
        d.counters.tx_errors = 7;
        assert_eq!(
            explain(&d),
            format!(
                "Port-bound: {MISSING}; the sending port did not send 7 frames it was handed \
                 (oerrors 7): they count as offered but never left it. Counters: imissed 1,200, \
                 rx_nombuf 34, lost in network 5, not sent by the sending port 7, RX lcore \
                 utilisation 98.7 %. Other ceilings: {BUS_TXT}; {LINK_TXT}."
            )
        );
        let mut d = decision(Reason::PortRefused { by: Vec::new() }, vec![]);
        d.counters.rx_refused = 2;
        assert!(explain(&d).contains("refused 2 frames (no counter named)"));
        assert_eq!(serde_json::to_value(Limit::Port).unwrap(), "port");
    }
}
