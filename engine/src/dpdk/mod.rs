//! The one safe layer over `landspeed-sys`: safe code using it cannot
//! cause undefined behaviour, because ownership carries DPDK's rules.
//!
//! - [`Eal`]: started once per process; neither `Send` nor `Sync`, so it
//!   stays on the main lcore.
//! - [`Mempool<'eal>`](Mempool) borrows the EAL: the EAL cannot be cleaned
//!   up while a pool lives.
//! - [`Port<'eal>`](Port) borrows the EAL and has one owner (opening an id
//!   already open is refused). [`Port::configure`] takes its pool, which is
//!   freed after the port is closed. [`Port::start`] hands out the queue
//!   handles, one per queue, which borrow the port: it cannot be stopped or
//!   dropped while a handle lives.
//! - [`TxQueue`] and [`RxQueue`] are `Send` but not `Sync`: one lcore polls
//!   each queue. They are the only way to `tx_burst`/`rx_burst`: a
//!   [`TxBatch`] is allocated from its queue's port pool and sent with
//!   [`TxBatch::transmit`]`(&mut TxQueue, n)`, an [`RxBatch`] filled with
//!   [`RxBatch::receive`]`(&mut RxQueue, n)`; both free what they still
//!   hold when dropped and cannot outlive the pools their mbufs belong to.
//! - [`scope`] and [`Scope::launch`] run closures on worker lcores, each a
//!   checked [`Lcore`] from [`Eal::worker_lcore`]; the scope waits for
//!   every worker before it returns, so workers may borrow queue handles
//!   (the safety argument is in `lcore.rs`).
//!
//! All `unsafe` outside `sys/` lives in this module, each block with a
//! `// SAFETY:` line. This module imports nothing of the engine's pure
//! modules (`wire`, `pace`, `limits`, `config`).
//!
//! A run, in outline (it needs an EAL, so it is not run as a test):
//!
//! ```no_run
//! use landspeed::dpdk::{self, Eal, Mempool, Port, PortConfig, RxBatch, TxBatch};
//! let eal = Eal::init(&["prog".into(), "-l".into(), "0,1".into()]).unwrap();
//! let mut port = Port::open(&eal, 0).unwrap();
//! let pool = Mempool::create(&eal, "pool", 4095, 2048, -1).unwrap();
//! let cfg = PortConfig {
//!     rx_queues: 1,
//!     tx_queues: 1,
//!     rx_ring: 1024,
//!     tx_ring: 1024,
//!     max_frame: 2048,
//!     mtu: Some(2030),
//!     rx_scatter: false,
//!     tx_checksum_offload: false,
//!     tx_multi_segs: false,
//!     tx_one_pool: true,
//!     rx_drop_en: false,
//!     rx_checksum_offload: false,
//!     rx_timestamp: false,
//!     promiscuous: true,
//! };
//! port.configure(&cfg, pool).unwrap();
//! let mut queues = port.start().unwrap();
//! let mut txq = queues.tx.remove(0);
//! let worker = eal.worker_lcore(1).unwrap();
//! dpdk::scope(&eal, |s| {
//!     let w = s
//!         .launch(worker, || {
//!             let mut batch = TxBatch::new(&txq);
//!             if batch.fill(32) {
//!                 batch.transmit(&mut txq, 32);
//!             }
//!         })
//!         .unwrap();
//!     w.join();
//! });
//! let mut rx = RxBatch::new();
//! rx.receive(&mut queues.rx[0], 32);
//! ```
//!
//! # Misuses that do not compile
//!
//! The EAL cannot be cleaned up while a pool lives:
//!
//! ```compile_fail,E0505
//! use landspeed::dpdk::{Eal, Mempool};
//! let eal = Eal::init(&[]).unwrap();
//! let pool = Mempool::create(&eal, "pool", 1023, 2048, -1).unwrap();
//! drop(eal);
//! drop(pool);
//! ```
//!
//! A pool given to a port is the port's: it cannot be freed while the
//! port's RX queues fill from it.
//!
//! ```compile_fail,E0382
//! use landspeed::dpdk::{Eal, Mempool, Port, PortConfig};
//! fn run(eal: &Eal, cfg: &PortConfig) {
//!     let mut port = Port::open(eal, 0).unwrap();
//!     let pool = Mempool::create(eal, "pool", 1023, 2048, -1).unwrap();
//!     port.configure(cfg, pool).unwrap();
//!     drop(pool);
//! }
//! ```
//!
//! A port cannot be closed while a TX batch made for it lives:
//!
//! ```compile_fail,E0505
//! use landspeed::dpdk::{Eal, Port, TxBatch};
//! fn run(eal: &Eal) {
//!     let port = Port::open(eal, 0).unwrap();
//!     let queues = port.start().unwrap();
//!     let batch = TxBatch::new(&queues.tx[0]);
//!     drop(port);
//!     drop(batch);
//! }
//! ```
//!
//! nor stopped while its queue handles live:
//!
//! ```compile_fail,E0502
//! use landspeed::dpdk::{Eal, Port};
//! fn run(eal: &Eal) {
//!     let mut port = Port::open(eal, 0).unwrap();
//!     let queues = port.start().unwrap();
//!     port.stop();
//!     drop(queues);
//! }
//! ```
//!
//! Receiving and transmitting take a queue handle, not raw ids:
//!
//! ```compile_fail,E0308
//! use landspeed::dpdk::RxBatch;
//! fn poll(batch: &mut RxBatch) {
//!     batch.receive(0u16, 32);
//! }
//! ```
//!
//! ```compile_fail,E0308
//! use landspeed::dpdk::TxBatch;
//! fn send(batch: &mut TxBatch) {
//!     batch.transmit(0u16, 32);
//! }
//! ```
//!
//! A queue handle cannot be shared between lcores (it is not `Sync`):
//!
//! ```compile_fail,E0277
//! use landspeed::dpdk::RxQueue;
//! fn shared<T: Sync>(_: &T) {}
//! fn share(q: &RxQueue) {
//!     shared(q);
//! }
//! ```
//!
//! Workers launch only on a checked [`Lcore`], which only a started EAL
//! makes:
//!
//! ```compile_fail,E0308
//! use landspeed::dpdk::{self, Eal};
//! fn run(eal: &Eal) {
//!     dpdk::scope(eal, |s| {
//!         s.launch(3, || ()).unwrap();
//!     });
//! }
//! ```
//!
//! ```compile_fail,E0603
//! use landspeed::dpdk::Lcore;
//! let lcore = Lcore(3);
//! ```
//!
//! A worker cannot borrow what does not outlive its scope:
//!
//! ```compile_fail,E0373
//! use landspeed::dpdk::{self, Eal, Lcore};
//! fn run(eal: &Eal, lcore: Lcore) {
//!     dpdk::scope(eal, |s| {
//!         let local = 5;
//!         s.launch(lcore, || local + 1).unwrap();
//!     });
//! }
//! ```
//!
//! nor take what must stay on one thread:
//!
//! ```compile_fail,E0277
//! use landspeed::dpdk::{self, Eal, Lcore};
//! fn run(eal: &Eal, lcore: Lcore) {
//!     let shared = std::rc::Rc::new(5);
//!     dpdk::scope(eal, |s| {
//!         s.launch(lcore, move || *shared + 1).unwrap();
//!     });
//! }
//! ```
//!
//! A fill pattern in DPDK memory belongs to the port it was placed on (a
//! PMD may hold frames pointing into it until the port closes): it cannot
//! outlive that port:
//!
//! ```compile_fail,E0505
//! use landspeed::dpdk::{Eal, ExtPattern, Port};
//! fn run(eal: &Eal) {
//!     let port = Port::open(eal, 0).unwrap();
//!     let queues = port.start().unwrap();
//!     let p = ExtPattern::new(&queues.tx[0], &[7; 64]).unwrap();
//!     drop(port);
//!     assert_eq!(p.len(), 64);
//! }
//! ```
//!
//! Segments to attach come from a port's segment pool and cannot outlive
//! the port:
//!
//! ```compile_fail,E0505
//! use landspeed::dpdk::{Eal, Port, Segments};
//! fn run(eal: &Eal) {
//!     let port = Port::open(eal, 0).unwrap();
//!     let queues = port.start().unwrap();
//!     let segs = Segments::new(&queues.tx[0]);
//!     drop(port);
//!     drop(segs);
//! }
//! ```
//!
//! and a segment, once attached, belongs to its frame:
//!
//! ```compile_fail,E0382
//! use landspeed::dpdk::{ExtPattern, Segments, TxBatch};
//! fn twice(batch: &mut TxBatch, segs: &mut Segments, p: &ExtPattern) {
//!     let seg = segs.take().unwrap();
//!     batch.attach(0, seg, p, 0, 100);
//!     batch.attach(1, seg, p, 0, 100);
//! }
//! ```
//!
//! Opening a port that is already open is refused at run time (the id is
//! a number, not a type): [`Port::open`] returns an error.

mod eal;
mod extbuf;
pub mod kclock;
mod lcore;
mod mbuf;
mod mempool;
mod mesh;
pub mod nicstamp;
mod port;
pub mod signal;
pub mod tsc;

pub use eal::Eal;
pub use extbuf::{ExtPattern, HeldSegment, HeldSegments, Segment, Segments};
pub use lcore::{scope, Lcore, Scope, Worker};
pub(crate) use mbuf::check_layout;
pub use mbuf::{RxBatch, TxBatch, TxOffload, BATCH_MAX};
pub use mempool::{Mempool, TemplatePool, CACHE_MAX};
pub use mesh::{peer_queue, RingMesh, MESH_RING_SLOTS};
pub use nicstamp::{NicBracket, NicClockReader, RxStampField, TxLatch};
pub use port::{
    offload_names, BurstModes, FlowControl, LinkStatus, Port, PortConfig, PortInfo, PortStats,
    Queues, RxQueue, TxQueue,
};

use std::ffi::CStr;

/// RX flag: the NIC found the IPv4 header checksum good.
pub const RX_IP_CKSUM_GOOD: u64 = landspeed_sys::RTE_MBUF_F_RX_IP_CKSUM_GOOD;
/// RX flag: the NIC found the IPv4 header checksum bad.
pub const RX_IP_CKSUM_BAD: u64 = landspeed_sys::RTE_MBUF_F_RX_IP_CKSUM_BAD;
/// RX flag: the NIC found the L4 checksum good.
pub const RX_L4_CKSUM_GOOD: u64 = landspeed_sys::RTE_MBUF_F_RX_L4_CKSUM_GOOD;
/// RX flag: the NIC found the L4 checksum bad.
pub const RX_L4_CKSUM_BAD: u64 = landspeed_sys::RTE_MBUF_F_RX_L4_CKSUM_BAD;

use landspeed_sys as sys;

/// An error from DPDK, carrying what was attempted and DPDK's own text.
#[derive(Debug, thiserror::Error)]
#[error("{what}: {text}")]
pub struct DpdkError {
    /// What landspeed was doing, e.g. `rte_eth_dev_configure(port 0)`.
    pub what: String,
    /// DPDK's description of the error (from `rte_strerror`).
    pub text: String,
    /// The errno value (positive).
    pub errno: i32,
}

impl DpdkError {
    /// An error for a call that returned `-errno` (DPDK's ethdev convention)
    /// or a negative value with the reason in `rte_errno` (the EAL's).
    pub(crate) fn from_ret(what: impl Into<String>, ret: i32) -> Self {
        let errno = if ret < -1 { -ret } else { rte_errno() };
        Self::new(what, errno)
    }

    /// An error with the given errno value.
    pub(crate) fn new(what: impl Into<String>, errno: i32) -> Self {
        Self {
            what: what.into(),
            text: strerror(errno),
            errno,
        }
    }

    /// An error with a message of landspeed's own (no errno).
    pub(crate) fn msg(what: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            what: what.into(),
            text: text.into(),
            errno: 0,
        }
    }
}

/// The calling thread's `rte_errno`.
pub(crate) fn rte_errno() -> i32 {
    // SAFETY: reads a thread-local integer; no preconditions.
    unsafe { sys::ls_errno() }
}

/// DPDK's text for an errno value (covers DPDK's own codes above 1000).
pub(crate) fn strerror(errno: i32) -> String {
    // SAFETY: rte_strerror returns a pointer to a static or thread-local
    // NUL-terminated string that stays valid until the next call on this
    // thread; it is copied out at once.
    unsafe {
        let p = sys::rte_strerror(errno);
        if p.is_null() {
            format!("error {errno}")
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

/// The DPDK version landspeed was built against.
pub fn dpdk_version() -> &'static str {
    sys::DPDK_VERSION
}
