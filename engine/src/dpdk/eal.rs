//! The Environment Abstraction Layer: started once per process.

use std::ffi::{c_char, CString};
use std::sync::atomic::{AtomicBool, Ordering};

use landspeed_sys as sys;

use super::{DpdkError, Lcore};

static STARTED: AtomicBool = AtomicBool::new(false);

/// A started EAL. Dropping it calls `rte_eal_cleanup`.
///
/// Every [`Mempool`] and [`Port`] borrows the `Eal` it was made with, so
/// the borrow checker refuses to drop the EAL while one lives; it is
/// neither `Send` nor `Sync`, so `&Eal` stays on the thread that started
/// it (the main lcore), which is where DPDK requires lcore launches and
/// cleanup to happen.
///
/// [`Port`]: super::Port
/// [`Mempool`]: super::Mempool
pub struct Eal {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Eal {
    /// Start the EAL with `args` (argv\[0\] included). Fails if the EAL was
    /// started before in this process (DPDK allows one start per process)
    /// or if DPDK rejects the arguments, with `rte_errno`'s text.
    pub fn init(args: &[String]) -> Result<Eal, DpdkError> {
        if STARTED.swap(true, Ordering::SeqCst) {
            return Err(DpdkError::msg(
                "rte_eal_init",
                "the EAL was already started in this process (DPDK allows one start per process)",
            ));
        }
        let owned: Vec<CString> = match args
            .iter()
            .map(|a| CString::new(a.as_str()))
            .collect::<Result<_, _>>()
        {
            Ok(v) => v,
            Err(_) => {
                return Err(DpdkError::msg(
                    "rte_eal_init",
                    "an EAL argument contains a NUL byte",
                ))
            }
        };
        // rte_eal_init may permute argv, and keeps pointers into it for the
        // life of the process: leak the strings and the array on purpose.
        let mut argv: Vec<*mut c_char> = owned.into_iter().map(CString::into_raw).collect();
        argv.push(std::ptr::null_mut());
        let argv = Box::leak(argv.into_boxed_slice());
        let argc = (argv.len() - 1) as i32;
        // SAFETY: argv is a NULL-terminated array of argc valid C strings
        // that lives for the rest of the process; called once per process
        // (guarded by STARTED).
        let ret = unsafe { sys::rte_eal_init(argc, argv.as_mut_ptr()) };
        if ret < 0 {
            return Err(DpdkError::from_ret("rte_eal_init", ret));
        }
        Ok(Eal {
            _not_send: std::marker::PhantomData,
        })
    }

    /// Whether `lcore` is enabled in this EAL (was given in `-l`).
    pub fn lcore_enabled(&self, lcore: u32) -> bool {
        // SAFETY: plain query on EAL's lcore table, valid after init.
        lcore < sys::RTE_MAX_LCORE && unsafe { sys::rte_lcore_is_enabled(lcore) } != 0
    }

    /// Worker lcore `id`, checked: enabled in this EAL and not the main
    /// lcore. The only way to get an [`Lcore`] to launch on.
    pub fn worker_lcore(&self, id: u32) -> Result<Lcore, DpdkError> {
        if !self.lcore_enabled(id) {
            return Err(DpdkError::msg(
                format!("lcore {id}"),
                "not enabled in the EAL (not in its -l list)",
            ));
        }
        if id == self.main_lcore() {
            return Err(DpdkError::msg(
                format!("lcore {id}"),
                "is the main lcore, which runs the reporter, not a worker",
            ));
        }
        Ok(Lcore::checked(id))
    }

    /// The NUMA socket lcore `lcore` runs on (`rte_lcore_to_socket_id`);
    /// `None` for an lcore the EAL does not have.
    pub fn lcore_socket(&self, lcore: u32) -> Option<u32> {
        if !self.lcore_enabled(lcore) {
            return None;
        }
        // SAFETY: plain query on EAL's lcore table for an enabled lcore.
        Some(unsafe { sys::rte_lcore_to_socket_id(lcore) })
    }

    /// The main lcore (the thread that called `init`).
    pub fn main_lcore(&self) -> u32 {
        // SAFETY: plain getter, valid after init.
        unsafe { sys::rte_get_main_lcore() }
    }

    /// The ids of every probed port, in order.
    pub fn port_ids(&self) -> Vec<u16> {
        let mut ids = Vec::new();
        // SAFETY: rte_eth_find_next returns the next valid id at or after
        // its argument, or RTE_MAX_ETHPORTS when there is none.
        let mut id = unsafe { sys::rte_eth_find_next(0) };
        while u32::from(id) < sys::RTE_MAX_ETHPORTS {
            ids.push(id);
            // SAFETY: as above.
            id = unsafe { sys::rte_eth_find_next(id + 1) };
        }
        ids
    }
}

impl Drop for Eal {
    fn drop(&mut self) {
        // SAFETY: pools and ports borrow the Eal, so none is alive; every
        // worker was waited for by the scope that launched it (scopes
        // borrow the Eal too); cleanup is then allowed.
        unsafe {
            sys::rte_eal_cleanup();
        }
    }
}
