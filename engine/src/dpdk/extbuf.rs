//! Payload bytes shared by many frames: a pattern in DPDK memory that TX
//! mbufs carry as an attached second segment instead of a copy.
//!
//! An [`ExtPattern`] is IOVA-contiguous memory (a memzone, so a NIC can DMA
//! from it) that belongs to the port its frames are sent on: the port
//! keeps every pattern placed on it ([`Patterns`]) until it is closed, so
//! a frame the PMD still holds, however long after its sender has gone,
//! points into live memory. The port then overwrites the patterns with
//! zeros (a frame read after that could not pass for good) and frees them.
//! Placing bytes a port already holds gives back the same memory, so the
//! trials of a certification do not add a pattern each.
//!
//! Each segment mbuf carries its own `rte_mbuf_ext_shared_info` in its
//! private area ([`Mempool::create_segments`]), with a reference count of
//! 1 that only the segment's owner touches: DPDK then attaches and frees
//! the segment without an atomic operation, where one shared info for
//! every segment of a pattern cost two locked read-modify-writes per frame
//! (its count above 1, DPDK's non-atomic shortcut never applied). The
//! pattern's lifetime is the port's, not a count's.
//! Segments come from a port's segment pool ([`Segments`], one per TX
//! lcore); [`TxBatch::attach`](super::TxBatch::attach) chains one after a
//! frame's first segment. A TX task also keeps a ring of segments of its
//! own, attached once ([`HeldSegments`]): a frame takes the next one free,
//! pointed at its place in the pattern, with a second reference that the
//! PMD's free drops ([`TxBatch::chain`](super::TxBatch::chain)), so the
//! segment never goes through its pool's get, detach and put.

use std::ffi::{c_void, CString};
use std::marker::PhantomData;
use std::mem::size_of;
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};
use std::sync::Mutex;

use landspeed_sys as sys;

use super::{DpdkError, Mempool, TxQueue, BATCH_MAX};

/// Memzones of patterns made so far, for unique names.
static MADE: AtomicU32 = AtomicU32::new(0);

/// Bytes of a segment mbuf's private area that hold its shared info
/// (`rte_mbuf_ext_shared_info`, rounded up to DPDK's 8-byte alignment of
/// private areas).
pub(super) const SEGMENT_PRIV: u16 =
    size_of::<sys::rte_mbuf_ext_shared_info>().next_multiple_of(8) as u16;

/// One pattern's memzone, owned by the port's [`Patterns`].
struct Zone {
    zone: NonNull<sys::rte_memzone>,
    bytes: *mut u8,
    iova: u64,
    len: usize,
}

/// The fill patterns placed on one port, alive until the port is closed
/// (a field of the port, dropped after its close), then zeroed and freed.
pub(super) struct Patterns {
    /// The NUMA socket its memzones are reserved on: the port's, so the
    /// NIC reads the pattern over its own socket's memory (-1, any, when
    /// the device does not say).
    socket: i32,
    zones: Mutex<Vec<Zone>>,
}

// SAFETY: the zones are DPDK memory usable from any lcore; the list is
// behind a mutex (taken only while tasks are set up), and the bytes are
// never written after they are placed.
unsafe impl Send for Patterns {}
// SAFETY: as above.
unsafe impl Sync for Patterns {}

impl Patterns {
    /// No pattern yet, for a port on NUMA socket `socket`.
    pub(super) fn on_socket(socket: i32) -> Self {
        Self {
            socket: socket.max(-1),
            zones: Mutex::default(),
        }
    }

    /// A zone holding `bytes` for frames of port `port`: one placed
    /// before with the same bytes, or a new copy.
    fn place(&self, port: u16, bytes: &[u8]) -> Result<(*mut u8, u64), DpdkError> {
        let mut zones = self.zones.lock().unwrap_or_else(|e| e.into_inner());
        for z in zones.iter() {
            // SAFETY: a placed zone holds `len` initialised bytes, never
            // written after placing, alive while the port is.
            if z.len == bytes.len()
                && unsafe { std::slice::from_raw_parts(z.bytes, z.len) } == bytes
            {
                return Ok((z.bytes, z.iova));
            }
        }
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let name = format!("ls_fill{n}_p{port}");
        let cname = CString::new(name.clone()).expect("no NUL in the name");
        let size = bytes.len().max(1);
        // SAFETY: cname is a valid C string; DPDK validates the rest.
        let zone =
            unsafe { sys::ls_memzone_reserve_contig(cname.as_ptr(), size as u64, self.socket, 64) };
        let Some(zone) = NonNull::new(zone.cast_mut()) else {
            return Err(DpdkError::from_ret(
                format!(
                    "rte_memzone_reserve({name}, {size} bytes IOVA-contiguous on socket {}; \
                     raise eal.memory_mb if memory is short)",
                    self.socket
                ),
                -1,
            ));
        };
        // SAFETY: the memzone is ours and holds `size` >= bytes.len() bytes.
        let (data, iova) = unsafe {
            let data = sys::ls_memzone_addr(zone.as_ptr()).cast::<u8>();
            ptr::copy_nonoverlapping(bytes.as_ptr(), data, bytes.len());
            (data, sys::ls_memzone_iova(zone.as_ptr()))
        };
        zones.push(Zone {
            zone,
            bytes: data,
            iova,
            len: bytes.len(),
        });
        Ok((data, iova))
    }
}

impl Drop for Patterns {
    fn drop(&mut self) {
        let zones = self.zones.get_mut().unwrap_or_else(|e| e.into_inner());
        for z in zones.drain(..) {
            // SAFETY: the port is closed (this is a field of the port,
            // dropped after its close): no frame refers to the zone any
            // more, so it may be overwritten and freed.
            unsafe {
                ptr::write_bytes(z.bytes, 0, z.len);
                sys::ls_memzone_free(z.zone.as_ptr());
            }
        }
    }
}

/// A fill pattern's bytes in DPDK memory, attachable to frames of the
/// port it was placed on, for as long as that port is open.
#[derive(Clone, Copy)]
pub struct ExtPattern<'q> {
    bytes: *mut u8,
    iova: u64,
    len: usize,
    /// The pool of the port that keeps the pattern: only its frames may
    /// carry it (another port could still hold one after this port closed).
    pub(super) frames_pool: *mut sys::rte_mempool,
    _port: PhantomData<&'q ()>,
}

// SAFETY: the pattern's memory is DPDK's, usable from any lcore, and only
// read through the handle.
unsafe impl Send for ExtPattern<'_> {}
// SAFETY: as above.
unsafe impl Sync for ExtPattern<'_> {}

/// The free callback of a segment's own shared info: nothing to free, the
/// pattern belongs to the port. DPDK calls it when the segment is freed.
unsafe extern "C" fn keep_pattern(_addr: *mut c_void, _opaque: *mut c_void) {}

impl<'q> ExtPattern<'q> {
    /// `bytes` in DPDK memory, for frames sent on `queue`'s port, which
    /// keeps it until it is closed (the same memory when the port holds
    /// these bytes already).
    pub fn new(queue: &TxQueue<'q>, bytes: &[u8]) -> Result<Self, DpdkError> {
        let (data, iova) = queue.patterns.place(queue.port, bytes)?;
        Ok(Self {
            bytes: data,
            iova,
            len: bytes.len(),
            frames_pool: queue.pool.raw(),
            _port: PhantomData,
        })
    }

    /// The address of its first byte: two patterns of the same bytes
    /// placed on one port share their memory.
    pub fn addr(&self) -> usize {
        self.bytes as usize
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
    /// segment `seg`, a mbuf of a pool made by
    /// [`Mempool::create_segments`], through the shared info in its own
    /// private area. Panics if the span leaves the pattern or exceeds an
    /// mbuf's 65535 bytes.
    pub(super) fn attach_to(&self, seg: *mut sys::rte_mbuf, off: usize, len: usize) {
        assert!(
            off + len <= self.len && len <= usize::from(u16::MAX),
            "{len} pattern bytes at {off} of a {}-byte pattern",
            self.len
        );
        // SAFETY: seg is a valid mbuf exclusively owned by the caller, with
        // no data of its own in use, from a segment pool whose private area
        // (right after the mbuf) holds SEGMENT_PRIV bytes: its own shared
        // info, which nothing else refers to (a count of 1, so DPDK's free
        // takes the non-atomic path and calls `keep_pattern`). The span is
        // inside the pattern, alive while the port that will free the
        // segment is open.
        unsafe {
            debug_assert!((*seg).priv_size >= SEGMENT_PRIV);
            let shinfo = seg.add(1).cast::<sys::rte_mbuf_ext_shared_info>();
            shinfo.write(sys::rte_mbuf_ext_shared_info {
                free_cb: Some(keep_pattern),
                fcb_opaque: ptr::null_mut(),
                refcnt: 1,
            });
            sys::ls_pktmbuf_attach_extbuf(
                seg,
                self.bytes.add(off).cast(),
                self.iova + off as u64,
                len as u16,
                shinfo,
            );
            (*seg).data_len = len as u16;
            (*seg).pkt_len = len as u32;
        }
    }
}

/// One segment mbuf without data of its own, owned until it is attached
/// (or freed on drop); in a [`HeldSegment`], a frame's reference on a
/// segment a task holds.
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
        // SAFETY: the segment owns a reference on a valid mbuf of its pool,
        // which outlives it (the only one for a fresh segment, a frame's for
        // a claimed held one): DPDK's free drops it, and gives the mbuf back
        // to its pool when it was the last.
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
            // success DPDK writes that many mbufs, on failure none. A free
            // mbuf of a pktmbuf pool has a reference count of 1, no next
            // segment and one segment; a segment's free (DPDK's detach)
            // gave it back its own buffer, a data length of 0 and no
            // flags, which is all `attach_to` relies on: DPDK's reset of
            // each mbuf (`rte_pktmbuf_alloc_bulk`) is not needed.
            let ret = unsafe {
                sys::ls_mempool_get_bulk(self.pool.raw(), self.spare.as_mut_ptr(), BATCH_MAX as u32)
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

/// Segments attached to one pattern and kept by one TX task, each
/// pointed anew at the place a frame fills from: the task holds a
/// reference of its own on every one, and a frame that carries one takes
/// a second ([`claim`](Self::claim)). Sending such a frame takes no
/// segment from a pool and gives none back: the PMD's free drops the
/// frame's reference (one atomic decrement) and the segment, still
/// attached to the pattern, waits in the task's ring for its next frame.
///
/// The segments are claimed in turn, and one only when no frame carries
/// it (its count is the task's 1): every frame in a PMD's ring has a
/// segment of its own, as with fresh segments, and a receiver that
/// adjusts a segment (a ring peer) changes only its frame's. When the
/// next one is still out (more frames in flight than the ring holds), the
/// frame takes a fresh segment instead.
pub struct HeldSegments<'p> {
    /// Each owned through the table's own reference.
    segs: Vec<NonNull<sys::rte_mbuf>>,
    /// The next to claim.
    next: usize,
    pattern: ExtPattern<'p>,
}

// SAFETY: the segments are owned by the table (its own reference on each)
// and touched only through it, on the lcore that sends its frames; a
// PMD's free on another thread drops only a frame's reference.
unsafe impl Send for HeldSegments<'_> {}

/// A segment of a [`HeldSegments`] claimed for one frame: the frame's
/// reference, which dropping it gives back, until
/// [`TxBatch::chain`](super::TxBatch::chain) chains it to the frame.
pub struct HeldSegment<'p> {
    pub(super) seg: Segment<'p>,
    /// Bytes it holds.
    pub(super) len: u16,
}

/// The reference count of `m`, as DPDK's atomic operations see it.
///
/// # Safety
/// `m` is a valid mbuf that outlives the returned reference.
unsafe fn refcnt<'a>(m: *mut sys::rte_mbuf) -> &'a AtomicU16 {
    // SAFETY: `refcnt` is an aligned u16 that DPDK updates with
    // `__atomic` operations (the non-atomic shortcut only when it is 1,
    // when the one holder is the caller); AtomicU16 has its layout.
    unsafe { AtomicU16::from_ptr(ptr::addr_of_mut!((*m).refcnt)) }
}

impl<'p> HeldSegments<'p> {
    /// `count` segments from `segs`, attached to `pattern`. `None` when
    /// the pool has not that many (those taken go back).
    pub fn new(segs: &mut Segments<'p>, pattern: &ExtPattern<'p>, count: usize) -> Option<Self> {
        assert!(
            segs.frames_pool == pattern.frames_pool,
            "segments and pattern of one port"
        );
        if count == 0 || pattern.is_empty() {
            return None;
        }
        let mut table = Self {
            segs: Vec::with_capacity(count),
            next: 0,
            pattern: *pattern,
        };
        while table.segs.len() < count {
            // Short of segments: dropping the table gives back those taken.
            let seg = segs.take()?;
            let m = seg.mbuf;
            pattern.attach_to(m.as_ptr(), 0, 1);
            // Its one reference is the table's now.
            let _ = seg.into_raw();
            table.segs.push(m);
        }
        Some(table)
    }

    /// The next segment, claimed for one frame and pointed at `len` bytes
    /// of the pattern from `off`; `None` when a frame still carries it.
    /// Panics if the span leaves the pattern or exceeds an mbuf's 65535
    /// bytes.
    #[inline]
    pub fn claim(&mut self, off: usize, len: usize) -> Option<HeldSegment<'p>> {
        let p = &self.pattern;
        assert!(
            off + len <= p.len && len <= usize::from(u16::MAX),
            "{len} pattern bytes at {off} of a {}-byte pattern",
            p.len
        );
        let m = self.segs[self.next];
        // SAFETY: the table holds a reference on `m`, alive while it is.
        let count = unsafe { refcnt(m.as_ptr()) };
        // Acquire: a PMD that dropped the last frame's reference on
        // another thread is done with the segment.
        if count.load(Ordering::Acquire) != 1 {
            return None;
        }
        self.next = if self.next + 1 == self.segs.len() {
            0
        } else {
            self.next + 1
        };
        // Only the table holds it: nobody else can change it now.
        count.store(2, Ordering::Relaxed);
        // SAFETY: the segment is attached to the pattern (its own shared
        // info, the pattern alive while the port is) and carried by no
        // frame; the span is inside the pattern.
        unsafe {
            let seg = m.as_ptr();
            (*seg).buf_addr = p.bytes.add(off).cast();
            (*seg).buf_iova = p.iova + off as u64;
            (*seg).buf_len = len as u16;
            (*seg).data_off = 0;
            (*seg).data_len = len as u16;
        }
        Some(HeldSegment {
            seg: Segment {
                mbuf: m,
                frames_pool: p.frames_pool,
                _pool: PhantomData,
            },
            len: len as u16,
        })
    }
}

impl Drop for HeldSegments<'_> {
    fn drop(&mut self) {
        for m in self.segs.iter() {
            let mut m = m.as_ptr();
            // SAFETY: drops the table's reference: a segment no frame
            // carries goes back to its pool (its pattern kept by the port);
            // one a PMD still holds goes back when the PMD frees it.
            unsafe { sys::rte_pktmbuf_free_bulk(&mut m, 1) };
        }
    }
}
