//! Owned batches of mbufs for the TX and RX paths.
//!
//! A batch owns the mbufs it holds: what was not handed to the PMD is freed
//! (in bulk) when the batch is dropped, so no path leaks an mbuf. Batches
//! move mbufs only through queue handles ([`TxQueue`], [`RxQueue`]) and
//! borrow what their mbufs belong to: a [`TxBatch`] its port's pool, an
//! [`RxBatch`] the queue's lifetime, so no pool is freed under them.

use std::marker::PhantomData;
use std::ptr;

use landspeed_sys as sys;

use super::{DpdkError, ExtPattern, HeldSegment, Mempool, RxQueue, Segment, TemplatePool, TxQueue};

/// The largest batch (TX or RX burst) the engine uses.
pub const BATCH_MAX: usize = 64;

/// Checksum offload requests for one mbuf (see DPDK's `RTE_MBUF_F_TX_*`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxOffload {
    /// `ol_flags` bits to set.
    pub flags: u64,
    /// Length of the L2 header (Ethernet + VLAN).
    pub l2_len: u8,
    /// Length of the L3 header.
    pub l3_len: u16,
}

impl TxOffload {
    /// The offload request for an IPv4 or IPv6 frame whose IPv4 header
    /// checksum and UDP/TCP checksum the NIC should fill in.
    pub fn checksums(ipv6: bool, tcp: bool, l2_len: u8, l3_len: u16) -> Self {
        let l3 = if ipv6 {
            sys::RTE_MBUF_F_TX_IPV6
        } else {
            sys::RTE_MBUF_F_TX_IPV4 | sys::RTE_MBUF_F_TX_IP_CKSUM
        };
        let l4 = if tcp {
            sys::RTE_MBUF_F_TX_TCP_CKSUM
        } else {
            sys::RTE_MBUF_F_TX_UDP_CKSUM
        };
        Self {
            flags: l3 | l4,
            l2_len,
            l3_len,
        }
    }

    /// The `tx_offload` bit-field value (l2_len: 7 bits, l3_len: 9 bits).
    fn packed(&self) -> u64 {
        u64::from(self.l2_len & 0x7f) | (u64::from(self.l3_len & 0x1ff) << 7)
    }
}

/// Mbufs allocated for transmission, written in place and handed to
/// `tx_burst` from the front. Slots keep their index from `fill` until the
/// batch empties, so a caller can keep per-frame data in parallel arrays.
/// What the PMD has not taken is freed if the batch is dropped.
pub struct TxBatch<'p> {
    mbufs: [*mut sys::rte_mbuf; BATCH_MAX],
    /// First slot not yet handed to the PMD.
    head: usize,
    /// Slots filled.
    len: usize,
    /// The pool of the port the batch was made for.
    pool: &'p Mempool<'p>,
}

// SAFETY: the batch exclusively owns its mbufs; moving it to another thread
// moves that ownership (mbufs are not tied to the allocating thread).
unsafe impl Send for TxBatch<'_> {}

impl<'p> TxBatch<'p> {
    /// An empty batch that allocates from `queue`'s port pool. It can be
    /// sent on any TX queue of that port.
    pub fn new(queue: &TxQueue<'p>) -> Self {
        Self {
            mbufs: [ptr::null_mut(); BATCH_MAX],
            head: 0,
            len: 0,
            pool: queue.pool,
        }
    }

    /// Slots filled (sent or not) since the last `fill`.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// The first slot not yet handed to the PMD.
    #[inline]
    pub fn head(&self) -> usize {
        self.head
    }

    /// Number of mbufs still held (not yet sent).
    #[inline]
    pub fn pending(&self) -> usize {
        self.len - self.head
    }

    /// Whether every filled slot was sent (or none was filled).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.len
    }

    /// Allocate `n` (at most [`BATCH_MAX`]) mbufs from the port's pool into an
    /// empty batch, all or none. Returns false when the pool is short or the
    /// batch still holds mbufs.
    #[inline]
    pub fn fill(&mut self, n: usize) -> bool {
        if !self.is_empty() {
            return false;
        }
        let n = n.min(BATCH_MAX);
        // SAFETY: the array has room for n pointers; on success DPDK writes
        // n valid mbufs there, on failure none.
        let ret = unsafe {
            sys::ls_pktmbuf_alloc_bulk(self.pool.raw(), self.mbufs.as_mut_ptr(), n as u32)
        };
        if ret == 0 {
            self.head = 0;
            self.len = n;
            true
        } else {
            self.head = 0;
            self.len = 0;
            false
        }
    }

    /// Allocate `n` more mbufs after the filled slots, all or none, while
    /// no slot has been sent (after [`clear`](Self::clear)): from `pool`,
    /// or the port's pool when `None`. For runs of frames whose mbufs come
    /// from a stream's [`TemplatePool`](super::TemplatePool), which must
    /// outlive the port the batch is sent on (the PMD frees into it).
    #[inline]
    pub fn extend(&mut self, pool: Option<&Mempool<'_>>, n: usize) -> bool {
        if self.head != 0 || self.len + n > BATCH_MAX {
            return false;
        }
        let pool = pool.map_or(self.pool.raw(), Mempool::raw);
        // SAFETY: slots [len, len + n) are free and in the array; on
        // success DPDK writes n valid mbufs there, on failure none.
        let ret = unsafe {
            sys::ls_pktmbuf_alloc_bulk(pool, self.mbufs.as_mut_ptr().add(self.len), n as u32)
        };
        if ret == 0 {
            self.len += n;
        }
        ret == 0
    }

    /// Like [`extend`](Self::extend), from a stream's template pool, with
    /// DPDK's raw bulk get (`rte_mempool_get_bulk`, as testpmd's txonly
    /// does) instead of `rte_pktmbuf_alloc_bulk`: the reset of every mbuf
    /// is skipped, because a template pool's mbufs need none (see
    /// [`TemplatePool`]).
    #[inline]
    pub fn extend_template(&mut self, pool: &TemplatePool<'_>, n: usize) -> bool {
        if self.head != 0 || self.len + n > BATCH_MAX {
            return false;
        }
        // SAFETY: slots [len, len + n) are free and in the array; on
        // success DPDK writes n mbufs there, on failure none. A free mbuf
        // of a pktmbuf pool has a reference count of 1, no next segment
        // and one segment (DPDK's contract for raw allocation); the other
        // fields `rte_pktmbuf_reset` would set are as TemplatePool keeps
        // them (data_off and ol_flags never changed by anything but
        // frame_mut and set_offload of the same stream) or unused on TX.
        let ret = unsafe {
            sys::ls_mempool_get_bulk(
                pool.mempool().raw(),
                self.mbufs.as_mut_ptr().add(self.len),
                n as u32,
            )
        };
        if ret == 0 {
            self.len += n;
        }
        ret == 0
    }

    /// Set the frame length of unsent slot `i` to `len` and return its
    /// bytes to write. Panics if the slot was sent or not filled, or `len`
    /// exceeds the mbuf's room (programming errors: pools are sized from
    /// the plan's frames).
    #[inline]
    pub fn frame_mut(&mut self, i: usize, len: usize) -> &mut [u8] {
        let m = self.slot(i);
        // SAFETY: m is a valid mbuf owned by this batch; its data area
        // starts at buf_addr + data_off and holds buf_len - data_off bytes;
        // `len` is checked against that before the slice is made, and the
        // &mut borrow of the batch keeps the slice exclusive.
        unsafe {
            let room = usize::from((*m).buf_len - (*m).data_off);
            assert!(
                len <= room,
                "frame of {len} bytes in an mbuf with room for {room}"
            );
            (*m).data_len = len as u16;
            (*m).pkt_len = len as u32;
            (*m).nb_segs = 1;
            let data = ((*m).buf_addr as *mut u8).add(usize::from((*m).data_off));
            std::slice::from_raw_parts_mut(data, len)
        }
    }

    /// The bytes of unsent slot `i` at the length last set by `frame_mut`.
    #[inline]
    pub fn frame(&mut self, i: usize) -> &mut [u8] {
        let m = self.slot(i);
        // SAFETY: as in frame_mut; data_len was set there and is within
        // the mbuf's room.
        unsafe {
            let data = ((*m).buf_addr as *mut u8).add(usize::from((*m).data_off));
            std::slice::from_raw_parts_mut(data, usize::from((*m).data_len))
        }
    }

    /// Chains `seg` after the data of unsent slot `i`, carrying `len`
    /// bytes of `pattern` from `off`: the frame grows by `len` bytes the
    /// PMD reads from the pattern. Call once per frame, after
    /// [`frame_mut`](Self::frame_mut). Panics if the slot already has a
    /// second segment, `seg` or `pattern` is of another port, or the span
    /// leaves the pattern.
    #[inline]
    pub fn attach(
        &mut self,
        i: usize,
        seg: Segment<'_>,
        pattern: &ExtPattern<'_>,
        off: usize,
        len: usize,
    ) {
        let m = self.slot(i);
        assert!(
            seg.frames_pool == self.pool.raw(),
            "a segment is attached to a frame of its own port"
        );
        assert!(
            pattern.frames_pool == self.pool.raw(),
            "a pattern is attached to a frame of the port that keeps it"
        );
        pattern.attach_to(seg.mbuf.as_ptr(), off, len);
        let seg = seg.into_raw();
        // SAFETY: m is a valid mbuf owned by this batch; seg, now attached,
        // passes to it: freeing the frame (PMD or batch) frees both.
        unsafe {
            assert!((*m).next.is_null(), "a frame gets one attached segment");
            (*m).next = seg;
            (*m).nb_segs = 2;
            (*m).pkt_len += len as u32;
        }
    }

    /// Chains the held segment `seg` (claimed for this frame) after slot
    /// `i`'s first segment, which holds the frame's headers and stamp.
    #[inline]
    pub fn chain(&mut self, i: usize, seg: HeldSegment<'_>) {
        let m = self.slot(i);
        assert!(
            seg.seg.frames_pool == self.pool.raw(),
            "a segment is chained to a frame of its own port"
        );
        let len = seg.len;
        let seg = seg.seg.into_raw();
        // SAFETY: m is a valid mbuf owned by this batch; the frame's
        // reference on seg passes to it: freeing the frame (PMD or batch)
        // drops it, and the segment stays with its table.
        unsafe {
            assert!((*m).next.is_null(), "a frame gets one attached segment");
            (*m).next = seg;
            (*m).nb_segs = 2;
            (*m).pkt_len += u32::from(len);
        }
    }

    /// Unsent frames of more than one segment (attached payloads not sent).
    pub fn chained_pending(&self) -> usize {
        (self.mbufs[self.head..self.len].iter())
            // SAFETY: unsent slots hold valid mbufs owned by the batch.
            .filter(|&&m| unsafe { (*m).nb_segs } > 1)
            .count()
    }

    /// Request checksum offloads on unsent slot `i`.
    #[inline]
    pub fn set_offload(&mut self, i: usize, ol: TxOffload) {
        let m = self.slot(i);
        // SAFETY: m is a valid mbuf owned by this batch; ol_flags and the
        // tx_offload union are plain integers.
        unsafe {
            (*m).ol_flags = ol.flags;
            (*m).__bindgen_anon_3.tx_offload = ol.packed();
        }
    }

    /// Asks the NIC to latch the departure of unsent slot `i`
    /// (`RTE_MBUF_F_TX_IEEE1588_TMST`). Only a mbuf of the port's own pool
    /// is marked (returns false otherwise): it is reset when allocated, so
    /// the flag leaves with it; a template pool's mbufs keep their flags
    /// across alloc and free and would ask again on every reuse.
    #[inline]
    pub fn mark_tx_timestamp(&mut self, i: usize) -> bool {
        let m = self.slot(i);
        // SAFETY: m is a valid mbuf owned by this batch; `pool` and
        // ol_flags are plain fields.
        unsafe {
            if (*m).pool != self.pool.raw() {
                return false;
            }
            (*m).ol_flags |= super::nicstamp::TX_IEEE1588_TMST;
        }
        true
    }

    /// Takes back [`mark_tx_timestamp`](Self::mark_tx_timestamp)'s request
    /// from unsent slot `i` (its burst left it behind).
    #[inline]
    pub fn unmark_tx_timestamp(&mut self, i: usize) {
        let m = self.slot(i);
        // SAFETY: m is a valid mbuf owned by this batch; ol_flags is a
        // plain integer.
        unsafe { (*m).ol_flags &= !super::nicstamp::TX_IEEE1588_TMST };
    }

    #[inline]
    fn slot(&self, i: usize) -> *mut sys::rte_mbuf {
        assert!(
            i >= self.head && i < self.len,
            "mbuf slot {i} outside the unsent slots {}..{}",
            self.head,
            self.len
        );
        self.mbufs[i]
    }

    /// Hand up to `n` unsent mbufs, from the head, to TX `queue`. Returns
    /// how many the PMD took; they leave the batch. Panics if the queue
    /// belongs to another port than the batch's pool (the port would free
    /// them into a pool it does not own).
    #[inline]
    pub fn transmit(&mut self, queue: &mut TxQueue<'_>, n: usize) -> usize {
        assert!(
            self.pool.raw() == queue.pool.raw(),
            "a batch is sent on a queue of the port whose pool it came from"
        );
        let n = n.min(self.pending());
        if n == 0 {
            return 0;
        }
        // SAFETY: the queue handle proves the port is started, the ids in
        // range and this lcore its only user; slots [head, head + n) hold
        // valid mbufs owned by the batch, from the port's own pool; the
        // PMD takes ownership of the first `sent` of them.
        let sent = usize::from(unsafe {
            sys::ls_tx_burst(
                queue.port,
                queue.queue,
                self.mbufs.as_mut_ptr().add(self.head),
                n as u16,
            )
        });
        self.head += sent;
        sent
    }

    /// Free every unsent mbuf and empty the batch.
    pub fn clear(&mut self) {
        let n = self.pending();
        if n > 0 {
            // SAFETY: slots [head, len) hold valid mbufs owned by the
            // batch; none is referenced after the call.
            unsafe { sys::rte_pktmbuf_free_bulk(self.mbufs.as_mut_ptr().add(self.head), n as u32) };
        }
        self.head = 0;
        self.len = 0;
    }
}

impl Drop for TxBatch<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Mbufs returned by one `rx_burst`, read in place and freed together. It
/// lives no longer than the queue handles it receives from (`'p`), so the
/// pools its mbufs belong to outlive it.
pub struct RxBatch<'p> {
    mbufs: [*mut sys::rte_mbuf; BATCH_MAX],
    len: usize,
    _queues: PhantomData<&'p ()>,
}

// SAFETY: the batch exclusively owns its mbufs.
unsafe impl Send for RxBatch<'_> {}

impl Default for RxBatch<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'p> RxBatch<'p> {
    /// An empty batch.
    pub fn new() -> Self {
        Self {
            mbufs: [ptr::null_mut(); BATCH_MAX],
            len: 0,
            _queues: PhantomData,
        }
    }

    /// Free what the batch holds, then poll RX `queue` for up to `n`
    /// frames. Returns how many arrived.
    #[inline]
    pub fn receive(&mut self, queue: &mut RxQueue<'p>, n: usize) -> usize {
        self.clear();
        let n = n.min(BATCH_MAX) as u16;
        // SAFETY: the queue handle proves the port is started, the ids in
        // range and this lcore its only poller; the array has room for n
        // pointers; the PMD writes `got` valid mbufs whose ownership
        // passes to the batch.
        let got = unsafe { sys::ls_rx_burst(queue.port, queue.queue, self.mbufs.as_mut_ptr(), n) };
        self.len = usize::from(got);
        self.len
    }

    /// Number of mbufs held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch holds nothing.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first segment's bytes of frame `i` and the frame's total length
    /// (larger than the slice when the PMD chained segments).
    #[inline]
    pub fn frame(&self, i: usize) -> (&[u8], usize) {
        assert!(
            i < self.len,
            "mbuf index {i} outside a batch of {}",
            self.len
        );
        let m = self.mbufs[i];
        // SAFETY: m is a valid received mbuf owned by the batch; its first
        // segment holds data_len bytes at buf_addr + data_off; the slice
        // lives no longer than &self, during which the mbuf is not freed.
        unsafe {
            let data = ((*m).buf_addr as *const u8).add(usize::from((*m).data_off));
            (
                std::slice::from_raw_parts(data, usize::from((*m).data_len)),
                (*m).pkt_len as usize,
            )
        }
    }

    /// Every byte of frame `i`, over all its segments, into `out`
    /// (cleared first).
    pub fn copy_frame(&self, i: usize, out: &mut Vec<u8>) {
        assert!(
            i < self.len,
            "mbuf index {i} outside a batch of {}",
            self.len
        );
        out.clear();
        let mut m = self.mbufs[i];
        while !m.is_null() {
            // SAFETY: m is a segment of a valid received mbuf owned by the
            // batch; each holds data_len bytes at buf_addr + data_off.
            unsafe {
                let data = ((*m).buf_addr as *const u8).add(usize::from((*m).data_off));
                out.extend_from_slice(std::slice::from_raw_parts(data, usize::from((*m).data_len)));
                m = (*m).next;
            }
        }
    }

    /// Frame `i`'s mbuf (bounds checked).
    #[inline(always)]
    pub(super) fn mbuf(&self, i: usize) -> *const sys::rte_mbuf {
        assert!(
            i < self.len,
            "mbuf index {i} outside a batch of {}",
            self.len
        );
        self.mbufs[i]
    }

    /// The RX offload flags of frame `i` (checksum status and the like).
    #[inline]
    pub fn ol_flags(&self, i: usize) -> u64 {
        assert!(
            i < self.len,
            "mbuf index {i} outside a batch of {}",
            self.len
        );
        // SAFETY: valid mbuf owned by the batch; plain integer read.
        unsafe { (*self.mbufs[i]).ol_flags }
    }

    /// Free the frames from index `n` on, keeping the first `n`.
    pub fn truncate(&mut self, n: usize) {
        if n < self.len {
            // SAFETY: entries n..len are valid mbufs owned by the batch;
            // none is referenced after the call (len drops to n).
            unsafe {
                sys::rte_pktmbuf_free_bulk(self.mbufs.as_mut_ptr().add(n), (self.len - n) as u32)
            };
            self.len = n;
        }
    }

    /// Free every mbuf the batch holds.
    #[inline]
    pub fn clear(&mut self) {
        if self.len > 0 {
            // SAFETY: the first len entries are valid mbufs owned by the
            // batch; none is referenced after the call.
            unsafe { sys::rte_pktmbuf_free_bulk(self.mbufs.as_mut_ptr(), self.len as u32) };
            self.len = 0;
        }
    }
}

impl Drop for RxBatch<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}

/// Check that the mbuf layout the bindings assume matches the library's.
pub(crate) fn check_layout() -> Result<(), DpdkError> {
    // SAFETY: returns sizeof(struct rte_mbuf) from C; no preconditions.
    let c = unsafe { sys::ls_mbuf_size() } as usize;
    let rust = std::mem::size_of::<sys::rte_mbuf>();
    if c != rust {
        return Err(DpdkError::msg(
            "mbuf layout",
            format!("struct rte_mbuf is {c} bytes in C but {rust} in the bindings: rebuild landspeed-sys against this DPDK"),
        ));
    }
    Ok(())
}
