//! Payload bytes shared by many frames: a pattern in DPDK memory that TX
//! mbufs carry as an attached second segment instead of a copy.
//!
//! An [`ExtPattern`] is IOVA-contiguous memory (a memzone, so a NIC can DMA
//! from it) with DPDK's `rte_mbuf_ext_shared_info` in front of it, whose
//! reference count the pattern holds one of and every attached segment
//! another. Dropping the pattern gives up its reference; the memory is
//! freed (and first overwritten with zeros, so a frame read after that
//! could not pass for good) when the count reaches zero: by the pattern's
//! drop if no frame holds it any more, else by the PMD freeing the last
//! frame that does, however long after the run it holds frames.
//!
//! A pattern is `Send` but not `Sync`: one lcore attaches from it. DPDK
//! takes a non-atomic shortcut when the count reads 1 (only the owner),
//! which is sound only if no other lcore adds references at the same time.
//! Segments come from a port's segment pool ([`Segments`], one per TX
//! lcore); [`TxBatch::attach`](super::TxBatch::attach) chains one after a
//! frame's first segment.

use std::cell::Cell;
use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU32, Ordering};

use landspeed_sys as sys;

use super::{DpdkError, Mempool, TxQueue, BATCH_MAX};

/// Bytes in front of the pattern for its shared info and its length (a
/// cache line).
const SHINFO_ROOM: usize = 64;
/// Where in that room the memzone's size is kept, for the free.
const SIZE_AT: usize = 32;
/// Memzones of patterns made so far, for unique names.
static MADE: AtomicU32 = AtomicU32::new(0);

/// A fill pattern's bytes in DPDK memory, attachable to TX mbufs. It lives
/// until it is dropped and the last frame attached to it is freed.
pub struct ExtPattern<'q> {
    zone: NonNull<sys::rte_memzone>,
    shinfo: *mut sys::rte_mbuf_ext_shared_info,
    bytes: *mut u8,
    iova: u64,
    len: usize,
    _queue: PhantomData<&'q ()>,
    _not_sync: PhantomData<Cell<()>>,
}

// SAFETY: the pattern's memory is DPDK's and usable from any lcore; the
// handle moves with the one lcore that attaches from it (it is not Sync).
unsafe impl Send for ExtPattern<'_> {}

/// Frees a pattern's memzone when its last reference goes. Called by DPDK
/// (`free_cb` of the shared info) or by the pattern's drop.
unsafe extern "C" fn free_pattern(_addr: *mut c_void, zone: *mut c_void) {
    let zone = zone as *const sys::rte_memzone;
    // SAFETY: `zone` is the pattern's live memzone (the shared info's
    // opaque), whose size `new` wrote at SIZE_AT; no reference to it is
    // left (the count reached zero), so it may be overwritten and freed.
    unsafe {
        let base = sys::ls_memzone_addr(zone).cast::<u8>();
        let size = base.add(SIZE_AT).cast::<usize>().read();
        ptr::write_bytes(base, 0, size);
        sys::ls_memzone_free(zone);
    }
}

impl<'q> ExtPattern<'q> {
    /// A copy of `bytes` in DPDK memory, for frames sent on `queue`'s
    /// port (the handle proves the EAL is up and outlives the pattern).
    pub fn new(queue: &TxQueue<'q>, bytes: &[u8]) -> Result<Self, DpdkError> {
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let name = format!("ls_fill{n}_p{}", queue.port);
        let cname = CString::new(name.clone()).expect("no NUL in the name");
        let size = SHINFO_ROOM + bytes.len();
        // SAFETY: cname is a valid C string; DPDK validates the rest.
        let zone = unsafe { sys::ls_memzone_reserve_contig(cname.as_ptr(), size as u64, -1, 64) };
        let Some(zone) = NonNull::new(zone.cast_mut()) else {
            return Err(DpdkError::from_ret(
                format!("rte_memzone_reserve({name}, {size} bytes IOVA-contiguous; raise eal.memory_mb if memory is short)"),
                -1,
            ));
        };
        // SAFETY: the memzone is ours and holds `size` bytes: the shared
        // info at its start (64-byte aligned), the pattern after it.
        unsafe {
            let base = sys::ls_memzone_addr(zone.as_ptr()).cast::<u8>();
            let shinfo = base.cast::<sys::rte_mbuf_ext_shared_info>();
            shinfo.write(sys::rte_mbuf_ext_shared_info {
                free_cb: Some(free_pattern),
                fcb_opaque: zone.as_ptr().cast(),
                refcnt: 1,
            });
            base.add(SIZE_AT).cast::<usize>().write(size);
            let data = base.add(SHINFO_ROOM);
            ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
            Ok(Self {
                zone,
                shinfo,
                bytes: data,
                iova: sys::ls_memzone_iova(zone.as_ptr()) + SHINFO_ROOM as u64,
                len: bytes.len(),
                _queue: PhantomData,
                _not_sync: PhantomData,
            })
        }
    }

    /// Bytes in the pattern.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no byte.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Attaches `len` bytes of the pattern from `off` to the data-less
    /// segment `seg`, taking a reference for it. Panics if the span leaves
    /// the pattern or exceeds an mbuf's 65535 bytes.
    pub(super) fn attach_to(&self, seg: *mut sys::rte_mbuf, off: usize, len: usize) {
        assert!(
            off + len <= self.len && len <= usize::from(u16::MAX),
            "{len} pattern bytes at {off} of a {}-byte pattern",
            self.len
        );
        // SAFETY: seg is a valid mbuf exclusively owned by the caller, with
        // no data of its own in use; the span is inside the pattern, whose
        // memory stays alive while the reference taken here is held (the
        // segment's free gives it back).
        unsafe {
            sys::ls_mbuf_ext_refcnt_update(self.shinfo, 1);
            sys::ls_pktmbuf_attach_extbuf(
                seg,
                self.bytes.add(off).cast(),
                self.iova + off as u64,
                len as u16,
                self.shinfo,
            );
            (*seg).data_len = len as u16;
            (*seg).pkt_len = len as u32;
        }
    }
}

impl Drop for ExtPattern<'_> {
    fn drop(&mut self) {
        // SAFETY: the pattern holds one reference; giving it up frees the
        // memory if no attached segment holds another (as DPDK's own
        // extbuf free does).
        unsafe {
            if sys::ls_mbuf_ext_refcnt_update(self.shinfo, -1) == 0 {
                free_pattern(ptr::null_mut(), self.zone.as_ptr().cast());
            }
        }
    }
}

/// One segment mbuf without data of its own, owned until it is attached
/// (or freed on drop).
pub struct Segment<'p> {
    pub(super) mbuf: NonNull<sys::rte_mbuf>,
    /// The pool of the port's frames, which the segment may be chained to.
    pub(super) frames_pool: *mut sys::rte_mempool,
    _pool: PhantomData<&'p Mempool<'p>>,
}

impl Segment<'_> {
    /// Gives up ownership of the mbuf (it is now part of a frame).
    pub(super) fn into_raw(self) -> *mut sys::rte_mbuf {
        let m = self.mbuf.as_ptr();
        std::mem::forget(self);
        m
    }
}

impl Drop for Segment<'_> {
    fn drop(&mut self) {
        let mut m = self.mbuf.as_ptr();
        // SAFETY: the segment owns a valid mbuf of its pool, which outlives it.
        unsafe { sys::rte_pktmbuf_free_bulk(&mut m, 1) };
    }
}

/// Segment mbufs for one TX lcore, from its port's segment pool,
/// allocated in bulk and handed out one at a time. The rest are freed on
/// drop.
pub struct Segments<'p> {
    pool: &'p Mempool<'p>,
    frames_pool: *mut sys::rte_mempool,
    spare: [*mut sys::rte_mbuf; BATCH_MAX],
    next: usize,
    len: usize,
}

// SAFETY: the spare mbufs are owned exclusively; the pool is thread-safe.
unsafe impl Send for Segments<'_> {}

impl<'p> Segments<'p> {
    /// The segments of `queue`'s port, or `None` when the port was given
    /// no segment pool ([`Port::set_segment_pool`](super::Port::set_segment_pool)).
    pub fn new(queue: &TxQueue<'p>) -> Option<Self> {
        Some(Self {
            pool: queue.segs?,
            frames_pool: queue.pool.raw(),
            spare: [ptr::null_mut(); BATCH_MAX],
            next: 0,
            len: 0,
        })
    }

    /// One segment, or `None` when the pool is empty.
    #[inline]
    pub fn take(&mut self) -> Option<Segment<'p>> {
        if self.next == self.len {
            // SAFETY: the array has room for BATCH_MAX pointers; on
            // success DPDK writes that many valid mbufs, on failure none.
            let ret = unsafe {
                sys::ls_pktmbuf_alloc_bulk(
                    self.pool.raw(),
                    self.spare.as_mut_ptr(),
                    BATCH_MAX as u32,
                )
            };
            if ret != 0 {
                return None;
            }
            (self.next, self.len) = (0, BATCH_MAX);
        }
        let m = self.spare[self.next];
        self.next += 1;
        Some(Segment {
            mbuf: NonNull::new(m)?,
            frames_pool: self.frames_pool,
            _pool: PhantomData,
        })
    }
}

impl Drop for Segments<'_> {
    fn drop(&mut self) {
        let n = self.len - self.next;
        if n > 0 {
            // SAFETY: spare[next..len] are valid mbufs owned here.
            unsafe { sys::rte_pktmbuf_free_bulk(self.spare.as_mut_ptr().add(self.next), n as u32) };
        }
    }
}
