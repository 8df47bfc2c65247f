//! Running a closure on a worker lcore.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};
use std::thread::Result as ThreadResult;

use landspeed_sys as sys;

use super::DpdkError;

/// The type-erased job an lcore runs: it stores its own result.
type Task = Box<dyn FnOnce() + Send>;

extern "C" fn trampoline(arg: *mut c_void) -> i32 {
    // SAFETY: arg is the Box<Task> that `launch` leaked for this lcore; the
    // lcore is its only owner from the launch on, so it is reclaimed here,
    // exactly once.
    let task = unsafe { Box::from_raw(arg as *mut Task) };
    task();
    0
}

/// A closure running on a worker lcore. [`Worker::join`] waits for it and
/// returns its result (or its panic); dropping an unjoined worker waits too.
pub struct Worker<T> {
    lcore: u32,
    slot: Arc<Mutex<Option<ThreadResult<T>>>>,
    joined: bool,
}

impl<T> Worker<T> {
    /// The lcore the closure runs on.
    pub fn lcore(&self) -> u32 {
        self.lcore
    }

    /// Wait for the closure to return and give back its value (or the
    /// panic it raised).
    pub fn join(mut self) -> ThreadResult<T> {
        self.wait();
        let out = self.slot.lock().ok().and_then(|mut s| s.take());
        out.unwrap_or_else(|| Err(Box::new("the worker produced no result")))
    }

    fn wait(&mut self) {
        if !self.joined {
            // SAFETY: the lcore was launched by us; waiting is always valid.
            unsafe { sys::rte_eal_wait_lcore(self.lcore) };
            self.joined = true;
        }
    }
}

impl<T> Drop for Worker<T> {
    fn drop(&mut self) {
        self.wait();
    }
}

/// Run `f` on worker `lcore` (enabled in the EAL and idle). `f` is
/// `'static`: share state with it through `Arc`s.
pub fn launch<F, T>(lcore: u32, f: F) -> Result<Worker<T>, DpdkError>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let slot = Arc::new(Mutex::new(None));
    let out = Arc::clone(&slot);
    let task: Task = Box::new(move || {
        let r = catch_unwind(AssertUnwindSafe(f));
        if let Ok(mut s) = out.lock() {
            *s = Some(r);
        }
    });
    let raw = Box::into_raw(Box::new(task)) as *mut c_void;
    // SAFETY: trampoline takes ownership of `raw` when it runs; on failure
    // the lcore never runs it and it is reclaimed below.
    let ret = unsafe { sys::rte_eal_remote_launch(Some(trampoline), raw, lcore) };
    if ret != 0 {
        // SAFETY: the launch failed, so no lcore holds the pointer.
        drop(unsafe { Box::from_raw(raw as *mut Task) });
        return Err(DpdkError::from_ret(
            format!("rte_eal_remote_launch(lcore {lcore})"),
            ret,
        ));
    }
    Ok(Worker {
        lcore,
        slot,
        joined: false,
    })
}
