//! The departure handshake of a memif link, on the workers' side.
//!
//! DPDK 22.11's memif driver unmaps a link's shared memory on its
//! interrupt thread when the peer disconnects, with no lock against a
//! worker inside `rx_burst` or `tx_burst` on the same port: a worker that
//! is in (or preempted in) a burst then faults. Between two landspeed
//! processes the window is closed in band, with the control frames of
//! [`crate::wire::control`]:
//!
//! 1. a receiver that is asked to stop sends `Leaving` on its port's TX
//!    queue (memif is bidirectional) and keeps polling;
//! 2. the sender's main lcore, which reads the port's RX queue with its
//!    link watch, sees it and stops the sender; the TX worker, once out of
//!    its loop, sends `Ack` as its last call on the port ([`tx_stopped`]);
//! 3. the receiver's RX worker sees the `Ack` ([`PeerRx::screen`], never
//!    counted as traffic) and only then is the receiver stopped and its
//!    port closed (a bounded grace when no `Ack` comes);
//! 4. the sender closes its port only once it has seen the link go down.
//!
//! This module holds what the workers do; the main lcore's part is in the
//! runtime (`runtime/depart.rs`).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

use crate::dpdk::{RxBatch, TxBatch, TxQueue};
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
}

impl PeerState {
    /// The last control frame heard from the peer.
    pub fn heard(&self) -> Option<Kind> {
        match self.heard.load(Ordering::Acquire) {
            1 => Some(Kind::Leaving),
            2 => Some(Kind::Ack),
            _ => None,
        }
    }

    /// Records a control frame of `kind` from the peer.
    pub fn hear(&self, kind: Kind) {
        let code = match kind {
            Kind::Leaving => 1,
            Kind::Ack => 2,
        };
        self.received.fetch_add(1, Ordering::Relaxed);
        self.heard.store(code, Ordering::Release);
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
            return true;
        }
        std::hint::spin_loop();
    }
    false
}

/// Called by a TX worker once its loop has ended: when the peer said it is
/// leaving, acknowledges it, as the worker's last call on the port.
pub fn tx_stopped(queue: &mut TxQueue<'_>, peer: Option<&TxPeer>) {
    if let Some(p) = peer {
        if p.state.heard() == Some(Kind::Leaving) {
            send(queue, Kind::Ack, p.mac, &p.state);
        }
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
    /// Takes a control frame at the end of the `n` frames just received
    /// into `batch` out of it (a peer sends one as its last frame, so it
    /// is always the last of a burst) and records it; returns how many
    /// frames are left to account. One look per poll that returned frames.
    #[inline]
    pub fn screen(&self, batch: &mut RxBatch<'_>, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        let (data, len) = batch.frame(n - 1);
        if len != control::LEN {
            return n;
        }
        match control::parse(data) {
            Some(kind) => {
                self.state.hear(kind);
                batch.truncate(n - 1);
                n - 1
            }
            None => n,
        }
    }
}
