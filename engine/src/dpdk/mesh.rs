//! A full mesh of ring-backed ports (`eal.ring_mesh: N`): N ports wired
//! to each other by shared rings, as N NICs cabled through a switch that
//! forwards by queue and never drops, so an N-port session can be counted
//! exactly where no NIC exists.
//!
//! Port `i` has N−1 TX queues and N−1 RX queues, one per peer, in the
//! peers' order: the queue of peer `p` on port `x` is `p` below `x` and
//! `p − 1` above it ([`peer_queue`]). A frame port `i` sends on its queue
//! for `j` arrives on port `j`'s queue for `i`, through the ring `i → j`
//! (single producer, single consumer: one TX task, one RX task). The
//! ports are DPDK's ring PMD (`rte_eth_from_rings`), named
//! `net_ring_mesh0` … `net_ring_mesh{N−1}`.
//!
//! The mesh owns its rings: the ring PMD leaves rings it did not create to
//! their owner. Frames still in a ring when the session ends belong to
//! their sender's pool, so [`RingMesh::drain`] frees them before the
//! ports' pools are checked and freed.

use std::ffi::CString;
use std::ptr::NonNull;

use landspeed_sys as sys;

use super::{DpdkError, Eal};

/// Frames one ring holds (a power of two; the ring keeps one slot free).
pub const MESH_RING_SLOTS: u32 = 4096;

/// The DPDK device name of mesh port `i` (for messages: the profile's
/// check names the devices it accepts).
fn mesh_device(i: usize) -> String {
    format!("net_ring_mesh{i}")
}

/// The queue of peer `peer` on port `port` of a mesh: TX toward it and
/// RX from it (`peer != port`).
pub fn peer_queue(port: usize, peer: usize) -> u16 {
    debug_assert_ne!(port, peer);
    if peer < port {
        peer as u16
    } else {
        peer as u16 - 1
    }
}

/// The rings of a mesh, row `i` the rings port `i` sends into.
pub struct RingMesh {
    ports: usize,
    /// `rings[i * ports + j]`: the ring `i → j` (null on the diagonal).
    rings: Vec<*mut sys::rte_ring>,
}

impl RingMesh {
    /// Creates `ports` ring ports wired to each other (the profile's
    /// check keeps it within what the ring PMD gives a port: 16 queues);
    /// the rings already made are freed when one fails.
    pub fn create(_eal: &Eal, ports: usize) -> Result<RingMesh, DpdkError> {
        let mut mesh = RingMesh {
            ports,
            rings: vec![std::ptr::null_mut(); ports * ports],
        };
        for i in 0..ports {
            for j in (0..ports).filter(|&j| j != i) {
                let name = format!("ls_mesh_{i}_{j}");
                let cname = CString::new(name.clone()).expect("no NUL in the name");
                // SAFETY: cname is a valid C string; DPDK checks the rest.
                let r = unsafe {
                    sys::ls_ring_create(cname.as_ptr(), MESH_RING_SLOTS, sys::SOCKET_ID_ANY)
                };
                let Some(r) = NonNull::new(r) else {
                    return Err(DpdkError::from_ret(
                        format!("rte_ring_create({name}, {MESH_RING_SLOTS} slots)"),
                        -1,
                    ));
                };
                mesh.rings[i * ports + j] = r.as_ptr();
            }
        }
        for i in 0..ports {
            let peers: Vec<usize> = (0..ports).filter(|&p| p != i).collect();
            let rx: Vec<*mut sys::rte_ring> =
                peers.iter().map(|&p| mesh.rings[p * ports + i]).collect();
            let tx: Vec<*mut sys::rte_ring> =
                peers.iter().map(|&p| mesh.rings[i * ports + p]).collect();
            let name = format!("mesh{i}");
            let cname = CString::new(name).expect("no NUL in the name");
            // SAFETY: the ring arrays hold peers.len() valid rings each and
            // outlive the call (the PMD copies the pointers); the rings
            // outlive the port: the mesh frees them after the ports close.
            let ret = unsafe {
                sys::ls_eth_from_rings(
                    cname.as_ptr(),
                    rx.as_ptr(),
                    rx.len() as u32,
                    tx.as_ptr(),
                    tx.len() as u32,
                    sys::SOCKET_ID_ANY as u32,
                )
            };
            if ret < 0 {
                return Err(DpdkError::from_ret(
                    format!("rte_eth_from_rings({})", mesh_device(i)),
                    ret,
                ));
            }
        }
        Ok(mesh)
    }

    /// The number of ports.
    pub fn ports(&self) -> usize {
        self.ports
    }

    /// Frees every frame still in a ring; returns how many there were.
    /// Called before the ports' pools are freed (with no worker running).
    pub fn drain(&self) -> u64 {
        let mut objs = [std::ptr::null_mut::<std::ffi::c_void>(); 64];
        let mut n = 0u64;
        for &r in self.rings.iter().filter(|r| !r.is_null()) {
            loop {
                // SAFETY: r is a ring of this mesh; objs has room for 64
                // pointers; no worker runs, so this lcore is the only
                // consumer.
                let got = unsafe { sys::ls_ring_dequeue_burst(r, objs.as_mut_ptr(), 64) };
                if got == 0 {
                    break;
                }
                // SAFETY: the ring holds only mbufs a port sent, each
                // owned by the ring until dequeued here; `got` of them.
                unsafe {
                    sys::rte_pktmbuf_free_bulk(objs.as_mut_ptr().cast::<*mut sys::rte_mbuf>(), got)
                };
                n += u64::from(got);
            }
        }
        n
    }
}

impl Drop for RingMesh {
    fn drop(&mut self) {
        self.drain();
        for &r in self.rings.iter().filter(|r| !r.is_null()) {
            // SAFETY: r was created by this mesh and is freed once; its
            // port is closed (the runtime drops the mesh after its ports).
            unsafe { sys::ls_ring_free(r) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The peer that queue `queue` of port `port` leads to: the inverse
    /// of [`peer_queue`].
    fn queue_peer(port: usize, queue: u16) -> usize {
        let q = usize::from(queue);
        if q < port {
            q
        } else {
            q + 1
        }
    }

    #[test]
    fn each_port_has_a_queue_per_peer_in_the_peers_order() {
        for n in 2..=8 {
            for port in 0..n {
                let mut seen = Vec::new();
                for peer in (0..n).filter(|&p| p != port) {
                    let q = peer_queue(port, peer);
                    assert_eq!(queue_peer(port, q), peer);
                    seen.push(q);
                }
                let want: Vec<u16> = (0..n as u16 - 1).collect();
                assert_eq!(seen, want, "port {port} of {n}");
            }
        }
        assert_eq!(peer_queue(2, 0), 0);
        assert_eq!(peer_queue(2, 3), 2);
        assert_eq!(queue_peer(0, 0), 1);
        assert_eq!(mesh_device(3), "net_ring_mesh3");
    }
}
