//! The main lcore's part in the departure handshake of a memif link (the
//! workers' part and the why are in [`crate::depart`]).
//!
//! On a memif port with one TX and one RX queue:
//!
//! - a run that only sends there (one TX task, no RX task) reads the
//!   port's RX queue from the main lcore with its link watch (every report
//!   loop turn, at most 20 ms apart: the TX loop is untouched); a
//!   `Leaving` notice ends the run, the TX worker acknowledges it once out
//!   of its loop, and the port is closed only after the peer's disconnect
//!   has been seen ([`Departures::await_peer_close`]); when the sender
//!   ends first, its TX worker says `Leaving` and the main lcore waits for
//!   the peer's `Ack` before the port may close ([`Departures::await_ack`]);
//! - a run that only receives there sends `Leaving` on the port's TX queue
//!   when it is asked to stop, and keeps polling until the `Ack` comes (or
//!   [`ACK_GRACE`] has passed) before its receivers stop and the port
//!   closes ([`Departures::receivers_stopping`]); when its peer says
//!   `Leaving` first, its RX worker keeps off the port, the main lcore
//!   answers `Ack`, and lets the worker poll again once the link went down
//!   and [`SETTLE`] passed ([`Departures::poll`]).
//!
//! Other memif ports (and a peer that is not landspeed) rely on the link
//! watch alone, which leaves the driver's window open (docs/lab.md).

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::Plan;
use crate::counter::StopFlag;
use crate::depart::{self, PeerRx, PeerState, TxPeer};
use crate::dpdk::{Port, RxBatch, RxQueue, TxQueue, BATCH_MAX};
use crate::result::ControlFrames;
use crate::wire::control::{self, Kind};
use crate::wire::MacAddr;

use super::tasks::{Handles, Tasks};
use super::PortRt;

/// Longest a receiver waits for its peer's `Ack` after telling it that it
/// leaves.
pub(super) const ACK_GRACE: Duration = Duration::from_millis(500);
/// Longest a sender whose peer said it leaves waits for the peer's
/// disconnect before it closes the port anyway.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// Time given to the other process's disconnect (tens of microseconds of
/// work on its interrupt thread) once it is known to have begun, and to
/// the peer's last burst to return once its `Ack` arrived.
const SETTLE: Duration = Duration::from_millis(20);
/// How often the waits look again.
const LOOK: Duration = Duration::from_millis(1);

/// What the main lcore does on one port.
enum Role<'q> {
    /// The run sends on the port: the peer's notices are read from its RX
    /// queue while `listening`.
    Sender { rx: RxQueue<'q>, listening: bool },
    /// The run receives on the port: it tells the peer when it leaves, on
    /// the port's TX queue, and answers the peer's `Leaving` there.
    Receiver {
        tx: TxQueue<'q>,
        /// The peer's `Leaving` has been answered.
        acked: bool,
        /// When the link was first seen down since the peer said it
        /// leaves.
        down_at: Option<Instant>,
    },
}

/// One memif port of the handshake.
struct PeerPort<'q> {
    /// Index of the port in the plan.
    index: usize,
    /// Its profile name.
    name: String,
    mac: MacAddr,
    state: Arc<PeerState>,
    role: Role<'q>,
    /// When the peer's `Leaving` was read (seconds into the run).
    heard_at: Option<f64>,
}

/// The handshakes of a run's memif ports.
pub(super) struct Departures<'q> {
    ports: Vec<PeerPort<'q>>,
}

impl<'q> Departures<'q> {
    /// The handshake of each memif port of `plan` that has one TX and one
    /// RX queue and is used by one side only; the queue the tasks leave
    /// free is taken from `handles`, and the task on the port gets its
    /// part.
    pub(super) fn plan(
        plan: &Plan,
        ports: &[PortRt<'_>],
        handles: &mut Handles<'q>,
        tasks: &mut Tasks<'_>,
    ) -> Self {
        let mut out = Vec::new();
        for (i, pr) in ports.iter().enumerate() {
            let pp = &plan.ports[i];
            let info = pr.port.info();
            if info.driver != "net_memif" || pp.rx_queues != 1 || pp.tx_queues != 1 {
                continue;
            }
            let txs: Vec<usize> = (0..plan.tx.len())
                .filter(|&k| plan.tx[k].port == i)
                .collect();
            let rxs: Vec<usize> = (0..plan.rx.len())
                .filter(|&k| plan.rx[k].port == i)
                .collect();
            let state = Arc::new(PeerState::default());
            let mac = MacAddr(info.mac);
            let role = match (txs.as_slice(), rxs.as_slice()) {
                ([k], []) => handles.rx(i, 0).map(|rx| {
                    tasks.tx[*k].peer = Some(TxPeer {
                        state: Arc::clone(&state),
                        mac,
                    });
                    Role::Sender {
                        rx,
                        listening: true,
                    }
                }),
                ([], [k]) => handles.tx(i, 0).map(|tx| {
                    tasks.rx[*k].peer = Some(PeerRx {
                        state: Arc::clone(&state),
                    });
                    Role::Receiver {
                        tx,
                        acked: false,
                        down_at: None,
                    }
                }),
                _ => None,
            };
            if let Some(role) = role {
                out.push(PeerPort {
                    index: i,
                    name: pp.name.clone(),
                    mac,
                    state,
                    role,
                    heard_at: None,
                });
            }
        }
        Departures { ports: out }
    }

    /// At `t` seconds into the run: reads the peer's notices on each port
    /// the run sends on and still listens to; answers the `Leaving` of
    /// each peer the run receives from, and lets its RX worker poll again
    /// once that peer's disconnect is over. `link_up(i)` says whether port
    /// `i`'s link is up: a port whose link is down is not read nor written
    /// (its shared memory may be going away).
    pub(super) fn poll(&mut self, t: f64, link_up: impl Fn(usize) -> bool) {
        for p in &mut self.ports {
            let up = link_up(p.index);
            match &mut p.role {
                Role::Sender { rx, listening } => {
                    p.state.set_gone(!up);
                    if !*listening || !up {
                        continue;
                    }
                    if read_notice(rx) == Some(Kind::Leaving) {
                        p.state.hear(Kind::Leaving);
                        p.heard_at = Some(t);
                        *listening = false;
                    }
                }
                Role::Receiver { tx, acked, down_at } => {
                    if !p.state.holding() {
                        continue;
                    }
                    if up {
                        answer(tx, acked, p.mac, &p.state);
                    }
                    if !up && down_at.get_or_insert_with(Instant::now).elapsed() >= SETTLE {
                        p.state.release();
                        (*acked, *down_at) = (false, None);
                    }
                }
            }
        }
    }

    /// Once the senders have been joined: where a TX worker told its peer
    /// that it leaves, waits for the peer's `Ack` (read from the port's RX
    /// queue every [`LOOK`]; at most [`ACK_GRACE`], cut short when the
    /// link goes down or `stop` is hurried). A peer that says `Leaving`
    /// meanwhile is leaving too: its disconnect is then waited for
    /// ([`Departures::await_peer_close`]); `t` is the time into the run.
    pub(super) fn await_ack(&mut self, t: f64, ports: &[&Port], stop: &StopFlag) {
        let end = Instant::now() + ACK_GRACE;
        for p in &mut self.ports {
            let Role::Sender { rx, listening } = &mut p.role else {
                continue;
            };
            if !*listening || p.state.said() != Some(Kind::Leaving) {
                continue;
            }
            let port = ports[p.index];
            let mut heard = None;
            while heard.is_none() && port.link().up && !stop.hurried() && Instant::now() < end {
                heard = read_notice(rx);
                if heard.is_none() {
                    std::thread::sleep(LOOK);
                }
            }
            match heard {
                Some(Kind::Ack) => p.state.hear(Kind::Ack),
                Some(Kind::Leaving) => {
                    p.state.hear(Kind::Leaving);
                    p.heard_at = Some(t);
                }
                Some(Kind::Probe) | None => {}
            }
            *listening = false;
        }
    }

    /// The first port whose peer said it is leaving, and when.
    pub(super) fn peer_left(&self) -> Option<(&str, f64)> {
        (self.ports.iter()).find_map(|p| Some((p.name.as_str(), p.heard_at?)))
    }

    /// Port `i`'s control frames sent and received, where it has the
    /// handshake (to report, and to take out of the PMD's counts).
    pub(super) fn handshake(&self, i: usize) -> Option<ControlFrames> {
        (self.ports.iter()).find(|p| p.index == i).map(|p| {
            let (sent, received) = p.state.counts();
            ControlFrames { sent, received }
        })
    }

    /// Once the senders have been joined: no port is read any more.
    pub(super) fn stop_listening(&mut self) {
        for p in &mut self.ports {
            if let Role::Sender { listening, .. } = &mut p.role {
                *listening = false;
            }
        }
    }

    /// Where the peer said it leaves, waits until its disconnect has been
    /// seen on `ports` (at most [`CLOSE_WAIT`]; cut short when `stop` is
    /// hurried), so that this process never closes the port under the
    /// peer's workers nor beside its own interrupt thread's disconnect.
    pub(super) fn await_peer_close(&self, ports: &[&Port], stop: &StopFlag) {
        let leaving: Vec<&Port> = (self.ports.iter())
            .filter(|p| p.heard_at.is_some())
            .map(|p| ports[p.index])
            .collect();
        if leaving.is_empty() {
            return;
        }
        wait_for(CLOSE_WAIT, stop, || leaving.iter().all(|p| !p.link().up));
        if !stop.hurried() {
            std::thread::sleep(SETTLE);
        }
    }

    /// Before the receivers stop: tells the peer of each port the run
    /// receives on that it leaves, and waits for its `Ack` (at most
    /// [`ACK_GRACE`]; cut short when `stop` is hurried or the link goes
    /// down).
    pub(super) fn receivers_stopping(&mut self, ports: &[&Port], stop: &StopFlag) {
        let mut told = Vec::new();
        for p in &mut self.ports {
            let Role::Receiver { tx, acked, .. } = &mut p.role else {
                continue;
            };
            let port = ports[p.index];
            if p.state.holding() {
                // The peer is leaving already: it is answered (when the
                // report loop has not yet) and not told.
                if port.link().up {
                    answer(tx, acked, p.mac, &p.state);
                }
                continue;
            }
            if port.link().up && depart::send(tx, Kind::Leaving, p.mac, &p.state) {
                told.push((port, Arc::clone(&p.state)));
            }
        }
        if told.is_empty() {
            return;
        }
        // An `Ack`, or the peer's own `Leaving` (it was stopping too), or
        // its link gone.
        let acked = |(port, s): &(&Port, Arc<PeerState>)| s.heard().is_some() || !port.link().up;
        wait_for(ACK_GRACE, stop, || told.iter().all(acked));
        if !stop.hurried() {
            std::thread::sleep(SETTLE);
        }
    }
}

/// Answers a leaving peer's notice on `tx` with `Ack`, once (`acked`).
fn answer(tx: &mut TxQueue<'_>, acked: &mut bool, mac: MacAddr, state: &PeerState) {
    if !*acked {
        depart::send(tx, Kind::Ack, mac, state);
        *acked = true;
    }
}

/// Reads what `rx` holds; the first control frame among it (a peer sends
/// nothing else on this queue).
fn read_notice(rx: &mut RxQueue<'_>) -> Option<Kind> {
    let mut batch = RxBatch::new();
    let n = batch.receive(rx, BATCH_MAX);
    (0..n)
        .filter_map(|i| control::parse(batch.frame(i).0))
        .find(|k| *k != Kind::Probe)
}

/// Waits until `done` (looked at every [`LOOK`]), `limit` has passed, or
/// `stop` is hurried.
fn wait_for(limit: Duration, stop: &StopFlag, mut done: impl FnMut() -> bool) {
    let end = Instant::now() + limit;
    while !done() && !stop.hurried() && Instant::now() < end {
        std::thread::sleep(LOOK);
    }
}
