//! Running closures on worker lcores, scoped like `std::thread::scope`.
//!
//! [`scope`] gives a [`Scope`]; [`Scope::launch`] runs a closure on a
//! checked [`Lcore`] (from [`Eal::worker_lcore`]) and returns a [`Worker`]
//! to join. The closure may borrow anything that outlives the scope (queue
//! handles, counters, the plan): `scope` waits for every lcore it launched
//! before it returns.
//!
//! # Why this is sound
//!
//! `rte_eal_remote_launch` takes a C function and a `void *`. The closure
//! is boxed, its lifetime erased to `'static`, and the box handed to the
//! lcore, which reclaims and runs it in `trampoline`. Erasing the lifetime
//! is sound because the closure cannot outlive what it borrows:
//!
//! - every successful launch records its lcore in the scope, and `scope`
//!   calls `rte_eal_wait_lcore` on each of them before it returns, from a
//!   drop guard, so also when the main lcore unwinds out of the body.
//!   `rte_eal_wait_lcore` returns only once the lcore's function has
//!   returned, i.e. after the closure and its captures were dropped;
//! - the body receives `&'scope Scope<'scope, 'env>` for a `'scope` it
//!   cannot name outside, and a [`Worker`] carries `'scope`, so neither can
//!   leave the body; forgetting a `Worker` skips nothing (the scope waits,
//!   not the handle), and waiting twice is harmless (an idle lcore's wait
//!   returns at once);
//! - DPDK allows launching and waiting only from the main lcore: [`Eal`] is
//!   neither `Send` nor `Sync`, so `&Eal` never leaves the thread that
//!   started it, and neither do `Scope` (it holds `&Eal`) nor `Worker`
//!   (marked `!Send`);
//! - a panic cannot unwind out of a worker: it would cross the `extern "C"`
//!   trampoline, where Rust aborts the process (and the release build
//!   aborts on any panic). A worker thus either returns its value or ends
//!   the process; there is no "worker panicked" case to handle.

use std::cell::RefCell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use landspeed_sys as sys;

use super::{DpdkError, Eal};

/// A worker lcore: enabled in the EAL and not the main lcore. Made only by
/// [`Eal::worker_lcore`], so holding one proves the EAL was started and
/// the id was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lcore(u32);

impl Lcore {
    /// An lcore id [`Eal::worker_lcore`] has checked.
    pub(super) fn checked(id: u32) -> Self {
        Lcore(id)
    }

    /// The lcore id.
    pub fn id(self) -> u32 {
        self.0
    }
}

/// The lifetime-erased job an lcore runs: it stores its own result.
type Task = Box<dyn FnOnce() + Send + 'static>;

extern "C" fn trampoline(arg: *mut c_void) -> i32 {
    // SAFETY: arg is the Box<Task> that `launch` gave this lcore; the lcore
    // is its only owner from the launch on, so it is reclaimed here,
    // exactly once.
    let task = unsafe { Box::from_raw(arg as *mut Task) };
    task();
    0
}

/// Where workers are launched; see the module documentation.
pub struct Scope<'scope, 'env: 'scope> {
    _eal: &'env Eal,
    launched: RefCell<Vec<u32>>,
    /// Invariant in `'scope`, as `std::thread::Scope` is.
    _scope: PhantomData<&'scope mut &'scope ()>,
    _env: PhantomData<&'env mut &'env ()>,
}

/// Run `body` with a [`Scope`] to launch workers in; every worker launched
/// there has returned when `scope` returns.
pub fn scope<'env, F, R>(eal: &'env Eal, body: F) -> R
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> R,
{
    let scope = Scope {
        _eal: eal,
        launched: RefCell::new(Vec::new()),
        _scope: PhantomData,
        _env: PhantomData,
    };
    let _wait = WaitAll(&scope.launched);
    body(&scope)
}

/// Waits for every lcore in the list when dropped.
struct WaitAll<'a>(&'a RefCell<Vec<u32>>);

impl Drop for WaitAll<'_> {
    fn drop(&mut self) {
        for &lcore in self.0.borrow().iter() {
            // SAFETY: the lcore was launched from this (the main) lcore;
            // waiting is always valid and returns at once when idle.
            unsafe { sys::rte_eal_wait_lcore(lcore) };
        }
    }
}

impl<'scope> Scope<'scope, '_> {
    /// Run `f` on `lcore` (which must be idle: DPDK refuses a busy one).
    /// `f` may borrow anything that outlives the scope.
    pub fn launch<F, T>(&'scope self, lcore: Lcore, f: F) -> Result<Worker<'scope, T>, DpdkError>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let slot = Arc::new(Mutex::new(None));
        let out = Arc::clone(&slot);
        let job: Box<dyn FnOnce() + Send + 'scope> = Box::new(move || {
            let value = f();
            *out.lock().unwrap_or_else(PoisonError::into_inner) = Some(value);
        });
        // SAFETY: only the lifetime changes (same fat-pointer layout). The
        // scope waits for this lcore before 'scope ends (module doc), so
        // nothing the job borrows is gone while it runs.
        let job: Task = unsafe { std::mem::transmute(job) };
        self.launched.borrow_mut().reserve(1);
        let raw = Box::into_raw(Box::new(job)) as *mut c_void;
        // SAFETY: trampoline takes ownership of `raw` when it runs; on
        // failure the lcore never runs it and it is reclaimed below.
        let ret = unsafe { sys::rte_eal_remote_launch(Some(trampoline), raw, lcore.0) };
        if ret != 0 {
            // SAFETY: the launch failed, so no lcore holds the pointer.
            drop(unsafe { Box::from_raw(raw as *mut Task) });
            return Err(DpdkError::from_ret(
                format!("rte_eal_remote_launch(lcore {})", lcore.0),
                ret,
            ));
        }
        self.launched.borrow_mut().push(lcore.0);
        Ok(Worker {
            lcore: lcore.0,
            slot,
            _scope: PhantomData,
        })
    }
}

/// A closure running on a worker lcore, launched in a [`Scope`].
pub struct Worker<'scope, T> {
    lcore: u32,
    slot: Arc<Mutex<Option<T>>>,
    /// Tied to the scope, and `!Send`: only the main lcore may wait.
    _scope: PhantomData<(&'scope (), *const ())>,
}

impl<T> Worker<'_, T> {
    /// Wait for the closure to return and give back its value.
    pub fn join(self) -> T {
        // SAFETY: the lcore was launched from this (the main) lcore.
        unsafe { sys::rte_eal_wait_lcore(self.lcore) };
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
            .expect("a worker that returned stored its value (a panic aborts the process)")
    }
}
