//! The departure handshake of a memif link, on the workers' side.
//!
//! DPDK 22.11's memif driver unmaps a link's shared memory on its
//! interrupt thread when the peer disconnects, with no lock against a
//! worker inside `rx_burst` or `tx_burst` on the same port: a worker that
//! is in (or preempted in) a burst then faults, on either side. Between
//! two landspeed processes the window is closed in band, with the control
//! frames of [`crate::wire::control`], whichever side leaves first.
//!
//! The receiver leaves first (asked to stop while the sender sends):
//!
//! 1. it sends `Leaving` on its port's TX queue (memif is bidirectional)
//!    and keeps polling;
//! 2. the sender's main lcore, which reads the port's RX queue with its
//!    link watch, sees it and stops the sender; the TX worker, once out of
//!    its loop, sends `Ack` as its last call on the port ([`tx_stopped`]);
//! 3. the receiver's RX worker sees the `Ack` ([`PeerRx::receive`], never
//!    counted as traffic) and only then is the receiver stopped and its
//!    port closed (a bounded grace when no `Ack` comes);
//! 4. the sender closes its port only once it has seen the link go down.
//!
//! The sender leaves first (its duration is over, or it is interrupted):
//!
//! 1. its TX worker, once out of its loop, sends `Leaving` as its last
//!    frame, behind every frame of the run ([`tx_stopped`]);
//! 2. the receiver's RX worker reads the ring up to it and then polls the
//!    port no more ([`PeerState::holding`]);
//! 3. the receiver's main lcore answers `Ack` on the port's TX queue;
//! 4. the sender's main lcore, reading its RX queue, sees the `Ack` and
//!    closes the port (a bounded grace when none comes);
//! 5. once the receiver has seen the link go down and the disconnect has
//!    had time to finish, its RX worker polls the port again (a next
//!    sender may connect).
//!
//! This module holds what the workers do; the main lcore's part is in the
//! runtime (`runtime/depart.rs`).

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use crate::dpdk::{RxBatch, RxQueue, TxBatch, TxQueue, BATCH_MAX};
use crate::wire::control::{self, Kind};
use crate::wire::MacAddr;

/// How many times a control frame is offered to a port that refuses it
/// (its ring full) before it is given up.
const SEND_TRIES: u32 = 1000;

/// What one process knows of its peer on one memif port, shared between
/// the main lcore and the worker that uses the port.
#[derive(Debug, Default)]
pub struct PeerState {
    /// The last control frame heard from the peer (0: none, else its
    /// [`Kind`] code).
    heard: AtomicU8,
    /// Control frames this process sent on the port (the PMD counts them,
    /// the run does not).
    sent: AtomicU64,
    /// Control frames received from the peer.
    received: AtomicU64,
    /// The last control frame this process sent (0: none, else its
    /// [`Kind`] code).
    said: AtomicU8,
    /// The RX worker polls the port no more: the peer said it leaves and
    /// its disconnect may unmap the ring at any time. Set by the worker
    /// when it reads the notice, cleared by the main lcore once the
    /// disconnect is over ([`PeerState::release`]).
    hold: AtomicBool,
    /// The main lcore last saw the port's link down: the peer is gone,
    /// the TX worker sends nothing more there once stopped.
    gone: AtomicBool,
}

impl PeerState {
    /// The last control frame heard from the peer.
    pub fn heard(&self) -> Option<Kind> {
        Kind::from_code(self.heard.load(Ordering::Acquire))
    }

    /// Records a control frame of `kind` from the peer.
    pub fn hear(&self, kind: Kind) {
        self.received.fetch_add(1, Ordering::Relaxed);
        self.heard.store(kind.code(), Ordering::Release);
    }

    /// The last control frame this process sent on the port.
    pub fn said(&self) -> Option<Kind> {
        Kind::from_code(self.said.load(Ordering::Acquire))
    }

    /// Whether the RX worker keeps off the port (its peer is leaving).
    #[inline]
    pub fn holding(&self) -> bool {
        self.hold.load(Ordering::Acquire)
    }

    /// The peer's disconnect is over: the RX worker may poll the port
    /// again, and what was heard from that peer is forgotten (a next peer
    /// starts afresh).
    pub fn release(&self) {
        self.heard.store(0, Ordering::Release);
        self.hold.store(false, Ordering::Release);
    }

    /// Whether the port's link is down under the sender (its peer gone),
    /// as the main lcore last saw it.
    pub fn set_gone(&self, gone: bool) {
        self.gone.store(gone, Ordering::Release);
    }

    /// Control frames sent and received on the port so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.received.load(Ordering::Relaxed),
        )
    }
}

/// A TX task's part in the handshake: the port's shared state and the MAC
/// its control frames come from.
#[derive(Clone, Debug)]
pub struct TxPeer {
    /// Shared with the main lcore.
    pub state: Arc<PeerState>,
    /// The port's MAC address.
    pub mac: MacAddr,
}

/// Sends one control frame of `kind` from `mac` on `queue`, counted in
/// `state`; returns whether the port took it.
pub fn send(queue: &mut TxQueue<'_>, kind: Kind, mac: MacAddr, state: &PeerState) -> bool {
    let mut batch = TxBatch::new(queue);
    if !batch.fill(1) {
        return false;
    }
    control::emit(batch.frame_mut(0, control::LEN), kind, mac);
    for _ in 0..SEND_TRIES {
        if batch.transmit(queue, 1) == 1 {
            state.sent.fetch_add(1, Ordering::Relaxed);
            state.said.store(kind.code(), Ordering::Release);
            return true;
        }
        std::hint::spin_loop();
    }
    false
}

/// Called by a TX worker once its loop has ended, as its last call on the
/// port: when the peer said it is leaving, acknowledges it; else, unless
/// the peer is gone already, tells it that this sender leaves (behind
/// every frame of the run, so the peer reads them all first).
pub fn tx_stopped(queue: &mut TxQueue<'_>, peer: Option<&TxPeer>) {
    let Some(p) = peer else { return };
    if p.state.heard() == Some(Kind::Leaving) {
        send(queue, Kind::Ack, p.mac, &p.state);
    } else if !p.state.gone.load(Ordering::Acquire) {
        send(queue, Kind::Leaving, p.mac, &p.state);
    }
}

/// An RX task's part in the handshake: it takes the peer's control frames
/// out of what it receives.
#[derive(Clone, Debug)]
pub struct PeerRx {
    /// Shared with the main lcore.
    pub state: Arc<PeerState>,
}

impl PeerRx {
    /// Polls `queue` into `batch` unless the peer is leaving (then 0, and
    /// the port is not touched); returns how many frames are left to
    /// account once a control frame is taken out.
    #[inline]
    pub fn receive<'q>(&self, batch: &mut RxBatch<'q>, queue: &mut RxQueue<'q>) -> usize {
        if self.state.holding() {
            return 0;
        }
        let n = batch.receive(queue, BATCH_MAX);
        self.screen(batch, n)
    }

    /// Takes a control frame at the end of the `n` frames just received
    /// into `batch` out of it (a peer sends one as its last frame, so it
    /// is always the last of a burst) and records it; returns how many
    /// frames are left to account. One look per poll that returned frames.
    #[inline]
    fn screen(&self, batch: &mut RxBatch<'_>, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let (data, len) = batch.frame(n - 1);
        if len != control::LEN {
            return n;
        }
        match control::parse(data) {
            Some(kind) => {
                if kind == Kind::Leaving {
                    // Its frames before the notice are all read: the
                    // port is not polled again until its disconnect is
                    // over.
                    self.state.hold.store(true, Ordering::Release);
                }
                // A sender's latch probe says nothing to the handshake.
                if kind != Kind::Probe {
                    self.state.hear(kind);
                }
                batch.truncate(n - 1);
                n - 1
            }
            None => n,
        }
    }
}
