//! The one safe layer over `landspeed-sys`.
//!
//! Everything that calls into DPDK goes through here: [`Eal`] (once per
//! process), [`Port`], [`Mempool`], owned mbuf batches ([`TxBatch`],
//! [`RxBatch`]) that free what they still hold when dropped, and
//! [`launch`] for running a closure on a worker lcore. All `unsafe` outside
//! `sys/` lives in this module, each block with a `// SAFETY:` line.

mod eal;
mod lcore;
mod mbuf;
mod mempool;
mod port;
pub mod signal;
pub mod tsc;

pub use eal::Eal;
pub use lcore::{launch, Worker};
pub(crate) use mbuf::check_layout;
pub use mbuf::{RxBatch, TxBatch, TxOffload, BATCH_MAX};
pub use mempool::Mempool;
pub use port::{LinkStatus, Port, PortConfig, PortInfo, PortStats};

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
