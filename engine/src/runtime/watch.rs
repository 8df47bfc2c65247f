//! What the report loop watches on the ports while the workers run: each
//! link's state (an outage is a [`Problem::LinkDown`]) and the PMD's
//! counters, whose last reading stands in for the final one when a driver
//! resets them before the run ends (memif does when its peer goes away).

use std::path::PathBuf;

use crate::config::{Device, Plan};
use crate::dpdk::{Port, PortStats};
use crate::limits::verdict::{Limit, Verdict};
use crate::outcome::Problem;

use super::{PortRt, Up};

/// One port as the report loop sees it.
struct Watched<'a, 'rt> {
    port: &'a Port<'rt>,
    /// The profile's name of the port.
    name: String,
    /// `TX`, `RX` or `TX+RX`.
    side: &'static str,
    /// The kernel's `operstate` of an af_packet port's interface: the PMD
    /// reports its link up from start to stop whatever the interface does.
    operstate: Option<PathBuf>,
    /// When the current outage began (seconds into the run).
    down_since: Option<f64>,
    /// When the first outage began.
    first_down: Option<f64>,
    /// Seconds down in finished outages.
    down_total: f64,
    outages: u32,
    /// The highest counters read while the run went on.
    stats: PortStats,
    /// A memif port the run sends on, up at the start: its link going down
    /// means its peer left, which ends the run (see [`PortWatch::peer_left`]).
    ends_run: bool,
}

/// The ports of a run, watched from the main lcore.
pub(super) struct PortWatch<'a, 'rt> {
    ports: Vec<Watched<'a, 'rt>>,
}

impl<'a, 'rt> PortWatch<'a, 'rt> {
    /// Watches every port of `plan`, open in `ports` and started as `ups`
    /// says.
    pub(super) fn new(plan: &Plan, ports: &'a [PortRt<'rt>], ups: &[Up]) -> Self {
        let ports = (ports.iter().enumerate())
            .map(|(i, pr)| {
                let tx = plan.tx.iter().any(|t| t.port == i);
                let rx = plan.rx.iter().any(|r| r.port == i);
                Watched {
                    port: &pr.port,
                    name: plan.ports[i].name.clone(),
                    side: match (tx, rx) {
                        (true, true) => "TX+RX",
                        (true, false) => "TX",
                        _ => "RX",
                    },
                    operstate: operstate_path(plan, i, &pr.port),
                    down_since: None,
                    first_down: None,
                    down_total: 0.0,
                    outages: 0,
                    stats: pr.port.stats(),
                    ends_run: tx
                        && pr.port.info().driver == "net_memif"
                        && ups[i].link_bps > 0
                        && pr.port.link().up,
                }
            })
            .collect();
        PortWatch { ports }
    }

    /// Looks at every link and counter at `t` seconds into the run.
    pub(super) fn poll(&mut self, t: f64) {
        for w in &mut self.ports {
            let up = w.port.link().up && w.operstate.as_ref().is_none_or(kernel_up);
            match (up, w.down_since) {
                (false, None) => {
                    w.down_since = Some(t);
                    w.first_down.get_or_insert(t);
                    w.outages += 1;
                }
                (true, Some(from)) => {
                    w.down_total += t - from;
                    w.down_since = None;
                }
                _ => {}
            }
            if up {
                w.stats = max_stats(&w.stats, &w.port.stats());
            }
        }
    }

    /// The first memif port the run sends on whose link is down (its peer
    /// left), and when that was seen (seconds into the run).
    pub(super) fn peer_left(&self) -> Option<(&str, f64)> {
        (self.ports.iter())
            .filter(|w| w.ends_run)
            .find_map(|w| Some((w.name.as_str(), w.down_since?)))
    }

    /// Port `i`'s counters: `last`, read once the workers ended, or the
    /// highest read during the run where a counter went backwards.
    pub(super) fn stats(&self, i: usize, last: PortStats) -> PortStats {
        max_stats(&self.ports[i].stats, &last)
    }

    /// A [`Problem::LinkDown`] for each port whose link went down before
    /// `end_s` (the run's end, as last polled).
    pub(super) fn problems(&self, end_s: f64) -> Vec<Problem> {
        (self.ports.iter())
            .filter_map(|w| {
                let at = w.first_down?;
                let open = w.down_since.map_or(0.0, |from| (end_s - from).max(0.0));
                Some(Problem::LinkDown {
                    port: w.name.clone(),
                    side: w.side.to_string(),
                    down_at_s: at,
                    down_s: w.down_total + open,
                    outages: w.outages,
                    down_at_end: w.down_since.is_some(),
                })
            })
            .collect()
    }
}

/// Where the kernel says whether port `i`'s af_packet interface is up.
fn operstate_path(plan: &Plan, i: usize, port: &Port) -> Option<PathBuf> {
    if port.info().driver != "net_af_packet" {
        return None;
    }
    let Device::Vdev(v) = &plan.ports[i].device else {
        return None;
    };
    let iface = (plan.eal.vdevs.iter())
        .filter(|d| d.split(',').next() == Some(v.as_str()))
        .flat_map(|d| d.split(','))
        .find_map(|kv| kv.strip_prefix("iface="))
        .filter(|f| !f.is_empty() && !f.contains('/'))?;
    Some(PathBuf::from(format!("/sys/class/net/{iface}/operstate")))
}

/// The interface whose `operstate` is at `path` is up (`up`, or `unknown`
/// for interfaces that do not say); one that went away is down.
fn kernel_up(path: &PathBuf) -> bool {
    match std::fs::read_to_string(path) {
        Ok(s) => matches!(s.trim(), "up" | "unknown"),
        Err(_) => false,
    }
}

/// Each counter's larger value of `a` and `b`.
fn max_stats(a: &PortStats, b: &PortStats) -> PortStats {
    PortStats {
        ipackets: a.ipackets.max(b.ipackets),
        opackets: a.opackets.max(b.opackets),
        ibytes: a.ibytes.max(b.ibytes),
        obytes: a.obytes.max(b.obytes),
        imissed: a.imissed.max(b.imissed),
        ierrors: a.ierrors.max(b.ierrors),
        oerrors: a.oerrors.max(b.oerrors),
        rx_nombuf: a.rx_nombuf.max(b.rx_nombuf),
    }
}

/// A verdict that found nothing binding cannot stand when a receiving
/// link went down: the frames sent meanwhile were lost before the port.
pub(super) fn link_loss_verdict(v: &mut Verdict, problems: &[Problem]) {
    let lost = problems.iter().find_map(|p| match p {
        Problem::LinkDown {
            port,
            side,
            down_at_s,
            down_s,
            ..
        } if side.contains("RX") => Some((port, *down_at_s, *down_s)),
        _ => None,
    });
    if let Some((port, at, down)) = lost {
        if v.binding == Limit::None {
            v.binding = Limit::Network;
        }
        v.explanation = format!(
            "The receiving port {port}'s link went down {at:.2} s into the run for {down:.2} s: \
             what was sent meanwhile never reached it. {}",
            v.explanation
        );
    }
}
