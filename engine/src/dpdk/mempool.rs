//! Packet-buffer pools.

use std::ffi::CString;
use std::marker::PhantomData;
use std::ptr::NonNull;

use landspeed_sys as sys;

use super::{DpdkError, Eal};

/// Most mbufs a pool keeps in each lcore's cache (DPDK's
/// `RTE_MEMPOOL_CACHE_MAX_SIZE` is 512; 256 covers a few bursts of
/// [`BATCH_MAX`](super::BATCH_MAX) without starving a small pool).
pub const CACHE_MAX: u32 = 256;

/// Bytes each mbuf costs beyond its data room: `struct rte_mbuf` (two
/// cache lines, 128 bytes) plus the mempool's per-object header and
/// trailer (about a cache line). Only for the memory estimate in the
/// message when a pool cannot be created.
const MBUF_OVERHEAD_ESTIMATE: u64 = 192;

/// A pool of mbufs whose data room holds the largest frame of a run plus
/// DPDK's headroom, so one frame is one segment. Freed on drop; it borrows
/// the [`Eal`], which therefore outlives it. A pool given to a port
/// ([`Port::configure`](super::Port::configure)) is owned by the port and
/// freed after the port is closed.
pub struct Mempool<'eal> {
    ptr: NonNull<sys::rte_mempool>,
    data_room: u32,
    /// Bytes of each mbuf's private area.
    priv_size: u16,
    _eal: PhantomData<&'eal Eal>,
}

// SAFETY: an rte_mempool is designed for concurrent use from every lcore
// (per-lcore caches plus a lock-free ring).
unsafe impl Send for Mempool<'_> {}
// SAFETY: as above; all operations through &Mempool are thread-safe in DPDK.
unsafe impl Sync for Mempool<'_> {}

impl<'eal> Mempool<'eal> {
    /// Create a pool of `count` mbufs with room for `max_frame` bytes of
    /// frame after the headroom, on NUMA `socket` (-1: any).
    pub fn create(
        eal: &'eal Eal,
        name: &str,
        count: u32,
        max_frame: u32,
        socket: i32,
    ) -> Result<Self, DpdkError> {
        Self::with_priv(eal, name, count, max_frame, 0, socket)
    }

    /// Create a pool of `count` data-less mbufs for attached payload
    /// segments ([`Port::set_segment_pool`](super::Port::set_segment_pool)),
    /// on NUMA `socket`: each keeps its own external-buffer shared info in
    /// its private area, so that attaching and freeing it takes no atomic
    /// operation ([`ExtPattern`](super::ExtPattern)).
    pub fn create_segments(
        eal: &'eal Eal,
        name: &str,
        count: u32,
        socket: i32,
    ) -> Result<Self, DpdkError> {
        Self::with_priv(eal, name, count, 0, super::extbuf::SEGMENT_PRIV, socket)
    }

    /// A pool whose mbufs have a private area of `priv_size` bytes (a
    /// multiple of 8) between the mbuf and its data room.
    fn with_priv(
        _eal: &'eal Eal,
        name: &str,
        count: u32,
        max_frame: u32,
        priv_size: u16,
        socket: i32,
    ) -> Result<Self, DpdkError> {
        let headroom = u32::from(headroom());
        let data_room = (max_frame + headroom).next_multiple_of(64);
        if data_room > u32::from(u16::MAX) {
            return Err(DpdkError::msg(
                format!("mempool {name}"),
                format!("a data room of {data_room} bytes exceeds DPDK's 65535-byte mbuf limit"),
            ));
        }
        let cname =
            CString::new(name).map_err(|_| DpdkError::msg("mempool", "name has a NUL byte"))?;
        let cache = CACHE_MAX.min(count / 4);
        // SAFETY: cname is a valid C string for the call; the other
        // arguments are plain integers DPDK validates.
        let ptr = unsafe {
            sys::rte_pktmbuf_pool_create(
                cname.as_ptr(),
                count,
                cache,
                priv_size,
                data_room as u16,
                socket,
            )
        };
        match NonNull::new(ptr) {
            Some(ptr) => Ok(Self {
                ptr,
                data_room,
                priv_size,
                _eal: PhantomData,
            }),
            None => Err(DpdkError::from_ret(
                format!(
                    "rte_pktmbuf_pool_create({name}, {count} mbufs of {data_room} bytes = {} MiB; raise eal.memory_mb if memory is short)",
                    (u64::from(count) * (u64::from(data_room) + MBUF_OVERHEAD_ESTIMATE)) >> 20
                ),
                -1,
            )),
        }
    }

    /// The raw pool, for the wrappers in this module.
    pub(super) fn raw(&self) -> *mut sys::rte_mempool {
        self.ptr.as_ptr()
    }

    /// Bytes a frame may use in one mbuf (data room less headroom).
    pub fn max_frame(&self) -> u32 {
        self.data_room - u32::from(headroom())
    }

    /// Whether its mbufs can be attached payload segments (made by
    /// [`create_segments`](Self::create_segments)).
    pub(super) fn holds_segments(&self) -> bool {
        self.priv_size >= super::extbuf::SEGMENT_PRIV
    }

    /// Mbufs currently handed out (in rings, batches or the PMD).
    pub fn in_use(&self) -> u32 {
        // SAFETY: ptr is a live pool; the count is a read-only query.
        unsafe { sys::ls_mempool_in_use_count(self.ptr.as_ptr()) }
    }
}

impl Drop for Mempool<'_> {
    fn drop(&mut self) {
        // SAFETY: nothing refers to the pool any more: batches borrow the
        // queue handles, which borrow the port that owns the pool, and a
        // port closes (freeing the mbufs in its rings) before its pool is
        // dropped; a pool not given to a port has no other user.
        unsafe { sys::rte_mempool_free(self.ptr.as_ptr()) }
    }
}

/// A pool of mbufs for one stream's frames whose data areas hold the
/// stream's headers from the pool's creation on (MoonGen's trick): DPDK
/// keeps an mbuf's data across free and alloc, and nothing but this
/// stream's frames is ever written into them, so a frame needs only its
/// changing fields stored. An mbuf comes back to the pool only when the
/// PMD frees it, so none is rewritten while the PMD may still hold it.
///
/// Its mbufs are taken without DPDK's per-mbuf reset
/// ([`TxBatch::extend_template`](super::TxBatch::extend_template)): what
/// the reset would write is already so. A free mbuf has one segment, no
/// next and a reference count of 1 (DPDK's contract for raw allocation;
/// the free of a chained frame unlinks its attached segment), its
/// `data_off` is the headroom `rte_pktmbuf_init` set (nothing moves it),
/// and its `ol_flags` are 0 or the stream's own offload request; the
/// lengths are written per frame.
///
/// Mbufs of this pool are handed to a port's TX queue: the pool must be
/// freed only after that port is closed (the runtime keeps it until then).
pub struct TemplatePool<'eal> {
    pool: Mempool<'eal>,
}

/// Copies the header bytes `opaque` points to (a `&[u8]`) into the data
/// area of the mbuf `obj`; `rte_mempool_obj_iter` calls it once per mbuf.
unsafe extern "C" fn write_head(
    _mp: *mut sys::rte_mempool,
    opaque: *mut std::os::raw::c_void,
    obj: *mut std::os::raw::c_void,
    _idx: std::os::raw::c_uint,
) {
    // SAFETY: `opaque` is the `&[u8]` TemplatePool::create passes, alive
    // for the call; `obj` is an mbuf of a pktmbuf pool, initialised by
    // rte_pktmbuf_init (buf_addr, data_off set), whose data room past
    // data_off holds at least the header (checked before the iteration).
    unsafe {
        let head = &*(opaque as *const &[u8]);
        let m = obj as *mut sys::rte_mbuf;
        let data = ((*m).buf_addr as *mut u8).add(usize::from((*m).data_off));
        std::ptr::copy_nonoverlapping(head.as_ptr(), data, head.len());
    }
}

impl<'eal> TemplatePool<'eal> {
    /// A pool of `count` mbufs with room for `max_frame` bytes of frame,
    /// on NUMA `socket`, each holding `head` at the start of its data.
    pub fn create(
        eal: &'eal Eal,
        name: &str,
        count: u32,
        max_frame: u32,
        socket: i32,
        head: &[u8],
    ) -> Result<Self, DpdkError> {
        let pool = Mempool::create(eal, name, count, max_frame.max(head.len() as u32), socket)?;
        let arg: &[u8] = head;
        // SAFETY: the pool is live and no mbuf of it is handed out yet;
        // write_head only writes `head.len()` bytes into each data room,
        // which holds at least max_frame >= head.len() bytes; `arg`
        // outlives the call.
        unsafe {
            sys::rte_mempool_obj_iter(
                pool.raw(),
                Some(write_head),
                &arg as *const &[u8] as *mut std::os::raw::c_void,
            );
        }
        Ok(Self { pool })
    }

    /// The pool itself (for the batches that allocate from it).
    pub fn mempool(&self) -> &Mempool<'eal> {
        &self.pool
    }

    /// Mbufs currently handed out (in batches or the PMD).
    pub fn in_use(&self) -> u32 {
        self.pool.in_use()
    }
}

/// DPDK's mbuf headroom (`RTE_PKTMBUF_HEADROOM`).
pub fn headroom() -> u16 {
    // SAFETY: returns a compile-time constant.
    unsafe { sys::ls_pktmbuf_headroom() }
}
