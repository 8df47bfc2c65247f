//! What the report loop watches on the ports while the workers run: each
//! link's state (an outage is a [`Problem::LinkDown`]), the PMD's
//! counters, whose last reading stands in for the final one when a driver
//! resets them before the run ends (memif does when its peer goes away),
//! and a memif peer's departure notice ([`super::depart`]); and, every
//! report interval, each port's error counters (basic and extended), so
//! the result can say when a port began refusing or dropping frames.

use std::path::PathBuf;

use crate::config::{Device, Plan};
use crate::counter::StopFlag;
use crate::dpdk::{Port, PortStats};
use crate::limits::port_errors::{ErrorInterval, ErrorSeries, ErrorTracker, PortCounters};
use crate::outcome::Problem;
use crate::result::ControlFrames;
use crate::wire::control;

use super::depart::Departures;
use super::{PortRt, PortStart};

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
    /// Its error counters, interval by interval.
    errors: ErrorTracker,
    /// A memif port the run sends on, up at the start: its link going down
    /// means its peer left, which ends the run (see [`PortWatch::peer_left`]).
    ends_run: bool,
}

/// The ports of a run, watched from the main lcore.
pub(super) struct PortWatch<'a, 'rt> {
    ports: Vec<Watched<'a, 'rt>>,
    /// The departure handshakes of its memif ports.
    depart: Departures<'a>,
}

impl<'a, 'rt> PortWatch<'a, 'rt> {
    /// Watches every port of `plan`, open in `ports` and started as `ups`
    /// says, with the memif handshakes of `depart`.
    pub(super) fn new(
        plan: &Plan,
        ports: &'a [PortRt<'rt>],
        starts: &[PortStart],
        depart: Departures<'a>,
    ) -> Self {
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
                    errors: ErrorTracker::new(error_counters(&pr.port)),
                    ends_run: tx
                        && pr.port.info().driver == "net_memif"
                        && starts[i].link_bps > 0
                        && pr.port.link().up,
                }
            })
            .collect();
        PortWatch { ports, depart }
    }

    /// Looks at every link and counter at `t` seconds into the run, and
    /// for a memif peer's departure notice.
    pub(super) fn poll(&mut self, t: f64) {
        self.poll_links(t);
        let watched = &self.ports;
        (self.depart).poll(t, |i| watched[i].down_since.is_none());
    }

    /// Looks at every link and counter at `t` seconds into the run.
    fn poll_links(&mut self, t: f64) {
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

    /// Closes the report interval from `start_s` to `end_s` on every
    /// port's error counters (read now); returns what the ports counted
    /// in it, summed.
    pub(super) fn close_interval(&mut self, start_s: f64, end_s: f64) -> ErrorInterval {
        let mut sum = ErrorInterval::default();
        for w in &mut self.ports {
            let iv = w.errors.close(&error_counters(w.port), start_s, end_s);
            sum.rx_refused += iv.rx_refused;
            sum.rx_drops += iv.rx_drops;
            sum.tx_errors += iv.tx_errors;
        }
        sum
    }

    /// Port `i`'s error counters over the intervals closed so far.
    pub(super) fn errors(&self, i: usize) -> ErrorSeries {
        self.ports[i].errors.series().clone()
    }

    /// A [`Problem::PeerLeft`] for the first memif port the run sends on
    /// whose peer said it is leaving (by its notice) or whose link is down
    /// (its peer left without a word), with when that was seen.
    pub(super) fn peer_left(&self) -> Option<Problem> {
        let left = |port: &str, at_s: f64, by: &str| Problem::PeerLeft {
            port: port.to_string(),
            at_s,
            by: by.to_string(),
        };
        if let Some((port, at_s)) = self.depart.peer_left() {
            return Some(left(port, at_s, "notice"));
        }
        (self.ports.iter())
            .filter(|w| w.ends_run)
            .find_map(|w| Some(left(&w.name, w.down_since?, "link")))
    }

    /// Once the senders have been joined at `t` seconds into the run:
    /// where a sender told its memif peer that it leaves, the peer's
    /// acknowledgement is waited for; the counters are read once more
    /// (with the control frames), and where a memif peer said it leaves,
    /// its disconnect is waited for before the port may close.
    pub(super) fn senders_stopped(&mut self, t: f64, stop: &StopFlag) {
        let ports: Vec<&Port> = self.ports.iter().map(|w| w.port).collect();
        self.depart.await_ack(t, &ports, stop);
        self.depart.stop_listening();
        self.poll_links(t);
        self.depart.await_peer_close(&ports, stop);
    }

    /// Before the receivers stop: a memif peer is told that this run
    /// leaves, and its acknowledgement waited for.
    pub(super) fn receivers_stopping(&mut self, stop: &StopFlag) {
        let ports: Vec<&Port> = self.ports.iter().map(|w| w.port).collect();
        self.depart.receivers_stopping(&ports, stop);
    }

    /// Port `i`'s departure handshake control frames, where it has one.
    pub(super) fn control(&self, i: usize) -> Option<ControlFrames> {
        self.depart.handshake(i)
    }

    /// Port `i`'s counters: `last`, read once the workers ended, or the
    /// highest read during the run where a counter went backwards; less
    /// the handshake's control frames, which are not traffic.
    pub(super) fn stats(&self, i: usize, last: PortStats) -> PortStats {
        let mut s = max_stats(&self.ports[i].stats, &last);
        let ControlFrames { sent, received } = self.depart.handshake(i).unwrap_or_default();
        let len = control::LEN as u64;
        s.opackets = s.opackets.saturating_sub(sent);
        s.obytes = s.obytes.saturating_sub(sent * len);
        s.ipackets = s.ipackets.saturating_sub(received);
        s.ibytes = s.ibytes.saturating_sub(received * len);
        s
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

/// `port`'s error counters now: the basic ones and every extended
/// statistic, as they count frames lost by its driver
/// ([`PortCounters::as_losses_of`]).
fn error_counters(port: &Port) -> PortCounters {
    let s = port.stats();
    PortCounters {
        ierrors: s.ierrors,
        oerrors: s.oerrors,
        imissed: s.imissed,
        rx_nombuf: s.rx_nombuf,
        ring_drops: 0,
        xstats: port.xstats(),
    }
    .as_losses_of(&port.info().driver)
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
