//! The TX fast path of [`FrameBuilder`]: frames written into buffers that
//! already hold the stream's headers, per frame only the fields that
//! change, every checksum from a partial sum precomputed per frame size
//! (a [`Shape`]), and the departure time stamped last with one store.
//! Field offsets come from each protocol's `field` module.

use super::*;
use crate::wire::stamp::field::{compact, full};

impl FrameBuilder {
    /// Writes the TX time `tsc` into the stamp of a frame this builder
    /// wrote with [`write_head`](Self::write_head) and that no stamp has
    /// been written into since, sequence number `seq`: `frame` is the
    /// frame, or its first segment when the fill is attached (at least
    /// [`FramePlan::head_len`] bytes). The TSC field is known to hold 0, so
    /// nothing of it is read: one 64-bit store of the TSC (with, in a
    /// compact stamp, the sequence's last bytes that share its word) and
    /// the check updated by the sum that `tsc` carries for the burst. The
    /// bytes are those of [`patch_tx_tsc`](Self::patch_tx_tsc), which a
    /// frame stamped before (refused by the PMD and sent again) needs
    /// instead. Does nothing if `frame` is too short for a stamp.
    #[inline]
    pub fn stamp_tx_tsc(&self, frame: &mut [u8], seq: u64, tsc: &TxTsc) {
        let Some(stamp) = frame.get_mut(self.template.len()..) else {
            return;
        };
        if stamp.len() >= FULL_LEN {
            let b: &mut [u8; FULL_LEN] = array_mut(stamp);
            put_word(b, full::TSC, tsc.tsc);
            add_to_check(b, full::CHECK, tsc.full_sum);
        } else if stamp.len() >= COMPACT_LEN {
            let b: &mut [u8; COMPACT_LEN] = array_mut(stamp);
            put_word(b, COMPACT_TAIL, compact_tail(seq, tsc.tsc));
            add_to_check(b, compact::CHECK, tsc.compact_sum);
        }
    }
}

/// A TX time as the stamps of one burst carry it, with what it adds to a
/// stamp check that was computed with TSC 0: made once per burst, so that
/// stamping a frame ([`FrameBuilder::stamp_tx_tsc`]) is two stores and one
/// one's-complement addition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxTsc {
    tsc: u64,
    /// The sum of the four 16-bit words of the TSC (a full stamp's field).
    full_sum: u16,
    /// What the low 40 bits of the TSC add to a compact stamp's check:
    /// the field starts at an odd offset (11), so its first byte is the
    /// low byte of a word and the other four make two words.
    compact_sum: u16,
}

impl TxTsc {
    /// The TX time `tsc` (TSC ticks, or clock nanoseconds for stamps of
    /// version 2).
    #[inline]
    pub fn new(tsc: u64) -> Self {
        TxTsc {
            tsc,
            full_sum: sum64(tsc),
            compact_sum: checksum::fold64(
                ((tsc >> 32) & 0xFF) + ((tsc >> 16) & 0xFFFF) + (tsc & 0xFFFF),
            ),
        }
    }

    /// The TX time it carries.
    #[inline]
    pub fn tsc(&self) -> u64 {
        self.tsc
    }
}

/// Adds `sum` to the stamp check at `b[at..at + 2]` (RFC 1624: the check
/// of data that gained words summing to `sum`).
#[inline(always)]
fn add_to_check<const N: usize>(b: &mut [u8; N], at: usize, sum: u16) {
    let check = u16::from_be_bytes([b[at], b[at + 1]]);
    let c = !checksum::add(!check, sum);
    b[at..at + 2].copy_from_slice(&c.to_be_bytes());
}

/// Sum of the four 16-bit words of `x`.
#[inline(always)]
fn sum64(x: u64) -> u16 {
    checksum::fold64((x >> 48) + ((x >> 32) & 0xFFFF) + ((x >> 16) & 0xFFFF) + (x & 0xFFFF))
}

/// Sum of the three 16-bit words of the low 48 bits of `x`.
#[inline(always)]
fn sum48(x: u64) -> u16 {
    checksum::fold64(((x >> 32) & 0xFFFF) + ((x >> 16) & 0xFFFF) + (x & 0xFFFF))
}

/// The TX fast path: frames written into buffers that already hold the
/// stream's headers (an mbuf of the stream's template pool, or one that
/// [`init_head`](FrameBuilder::init_head) prepared), so that per frame only
/// the fields that change are stored and every checksum comes from a
/// precomputed partial sum. The frames are byte for byte those of
/// [`write`](FrameBuilder::write) (tested against it).
impl FrameBuilder {
    /// The partial sums of the frames of length `len` (without FCS).
    pub(super) fn shape(&self, len: usize) -> Shape {
        let hdr = self.template.len();
        let payload_len = len.saturating_sub(hdr);
        let layout = StampLayout::for_payload(payload_len).unwrap_or(StampLayout::Compact);
        let fill_len = payload_len.saturating_sub(layout.len()) as u16;
        let id = self.stream_id;
        let format = layout.format_for(self.stamp_time);
        let stamp_sum = match layout {
            StampLayout::Full => checksum::fold64(
                u64::from(MAGIC)
                    + (u64::from(format) << 8)
                    + u64::from(id >> 16)
                    + u64::from(id & 0xFFFF)
                    + u64::from(fill_len),
            ),
            StampLayout::Compact => {
                let id = id as u16;
                checksum::fold64(
                    u64::from(MAGIC)
                        + (u64::from(format) << 8)
                        + u64::from(id >> 8)
                        + (u64::from(id & 0xFF) << 8),
                )
            }
        };
        let mut h = self.template.clone();
        let (l3, l4) = (self.l2_len, self.l2_len + self.l3_len);
        let l4_len = len.saturating_sub(l4);
        if let Addrs::V6 { .. } = self.addrs {
            put16(&mut h, l3 + v6::PAYLOAD_LEN, l4_len as u16);
        }
        if !self.is_tcp() {
            put16(&mut h, l4 + udpf::LENGTH, l4_len as u16);
        }
        let pseudo = checksum::add(self.flow.2, l4_len as u16);
        Shape {
            len,
            layout,
            fill_len,
            l4_sum: checksum::add(pseudo, checksum::sum(&h[l4..])),
            stamp_sum,
            format,
            head: self.writer_for(layout),
        }
    }

    /// The writer of this stream's frames of stamp `layout`: one compiled
    /// for its kind when it is a single flow, the general one otherwise.
    fn writer_for(&self, layout: StampLayout) -> HeadWriter {
        if self.outer.is_some() {
            return FrameBuilder::head_tunnel;
        }
        if !self.single_flow {
            return FrameBuilder::head_generic;
        }
        let software = self.csum == CsumMode::Software;
        let full = layout == StampLayout::Full;
        match (self.is_ipv6(), self.is_tcp()) {
            (false, false) => pick_single::<false, false>(software, full),
            (false, true) => pick_single::<false, true>(software, full),
            (true, false) => pick_single::<true, false>(software, full),
            (true, true) => pick_single::<true, true>(software, full),
        }
    }

    /// The writer of a single-flow stream of one kind: IPv6 or IPv4 (`V6`),
    /// TCP or UDP (`TCP`), final checksums or the offload's pseudo-header
    /// sum (`SW`), full or compact stamp (`FULL`). Per frame: the stamp,
    /// the lengths, the IPv4 ident and checksum or the TCP sequence, and
    /// the L4 checksum from the shape's partial sum; the same bytes as
    /// [`head_generic`](Self::head_generic).
    fn head_single<const V6: bool, const TCP: bool, const SW: bool, const FULL: bool>(
        &mut self,
        head: &mut [u8],
        seq: u64,
        p: &FramePlan,
        sh: &Shape,
    ) {
        let hdr = self.template.len();
        let (f, stamp) = head[..p.head_len].split_at_mut(hdr);
        if FULL {
            write_full_stamp(stamp, sh, self.stream_id, seq, p.fill_sum);
        } else {
            write_compact_stamp(stamp, sh, self.stream_id, seq, p.fill_sum);
        }
        let (l3, l4) = (self.l2_len, self.l2_len + self.l3_len);
        let l4_len = (sh.len - l4) as u16;
        if V6 {
            put16(f, l3 + v6::PAYLOAD_LEN, l4_len);
        } else {
            self.write_ipv4_fields(array_mut(&mut f[l3..]), (sh.len - l3) as u16, SW);
        }
        let l4h = &mut f[l4..];
        let mut s = sh.l4_sum;
        if TCP {
            let tcp: &mut [u8; 20] = array_mut(&mut *l4h);
            let seq = self.tcp_seq;
            self.tcp_seq = seq.wrapping_add((p.len - hdr) as u32);
            tcp[tcpf::SEQ_NUM..tcpf::SEQ_NUM + 4].copy_from_slice(&seq.to_be_bytes());
            s = checksum::add(s, checksum::add((seq >> 16) as u16, seq as u16));
        } else {
            let udp: &mut [u8; 8] = array_mut(&mut *l4h);
            udp[udpf::LENGTH..udpf::LENGTH + 2].copy_from_slice(&l4_len.to_be_bytes());
        }
        let field = if SW {
            if FULL {
                s = checksum::add(s, p.fill_sum);
            }
            let c = checksum::finish(s);
            if TCP {
                c
            } else {
                udp_nonzero(c)
            }
        } else {
            checksum::add(self.flow.2, l4_len)
        };
        let off = if TCP { tcpf::CHECKSUM } else { udpf::CHECKSUM };
        l4h[off..off + 2].copy_from_slice(&field.to_be_bytes());
    }

    /// Writes the stream's headers into `buf` (at least
    /// [`stamp_offset`](Self::stamp_offset) bytes): what every mbuf of the
    /// stream's template pool holds from its creation, and what a buffer
    /// from elsewhere needs before [`write_head`](Self::write_head).
    pub fn init_head(&self, buf: &mut [u8]) {
        let hdr = self.template.len();
        buf[..hdr].copy_from_slice(&self.template);
    }

    /// Frame size `k`'s bytes of headers and stamp, and of fill (at most
    /// the pattern's longest).
    #[inline(always)]
    pub(super) fn head_and_fill(&self, k: usize) -> (usize, usize) {
        let head_len = self.template.len() + self.shapes[k].layout.len();
        (
            head_len,
            (self.sizes[k] - head_len).min(self.fill.max_fill()),
        )
    }

    /// Plans the next frame, stream sequence number `seq`: advances through
    /// the frame sizes as [`next_len`](Self::next_len) does and finds its
    /// fill in O(1).
    #[inline]
    pub fn plan(&mut self, seq: u64) -> FramePlan {
        let shape = self.size_pos;
        let len = self.next_len();
        let (head_len, fill_len) = self.head_and_fill(shape);
        let fill_offset = FillPattern::offset_for(seq.wrapping_add(self.fill_salt));
        // Frames whose stamp ends the frame (64 bytes) have no fill to sum.
        let fill_sum = match (fill_len, &self.fill_sums[shape]) {
            (0, _) => 0,
            (_, Some(sums)) => sums[(fill_offset >> 3) & (OFFSETS - 1)],
            (n, None) => self.fill.sum(fill_offset, n),
        };
        FramePlan {
            len,
            head_len,
            fill_offset,
            fill_sum,
            shape: shape as u16,
        }
    }

    /// Copies the fill of frame `p` (stream sequence `seq`) into
    /// `frame[p.head_len..p.len]`: the payload step, separate from the
    /// headers so that a port that chains segments can attach the pattern
    /// at `p.fill_offset` instead.
    #[inline]
    pub fn write_fill(&self, frame: &mut [u8], seq: u64, p: &FramePlan) {
        debug_assert_eq!(
            p.fill_offset,
            FillPattern::offset_for(seq.wrapping_add(self.fill_salt))
        );
        let dst = &mut frame[p.head_len..p.len];
        let n = dst.len().min(self.fill.max_fill());
        if n > 0 {
            // The plan already holds the fill's sum: copy only.
            dst[..n].copy_from_slice(&self.fill.bytes()[p.fill_offset..p.fill_offset + n]);
        }
    }

    /// Writes the headers' changing fields and the stamp (TX TSC 0, patched
    /// later with [`patch_tx_tsc`](Self::patch_tx_tsc)) of frame `p`, stream
    /// sequence `seq`, into `head` (at least `p.head_len` bytes, which hold
    /// this stream's headers: see [`init_head`](Self::init_head)). Frames
    /// must be planned and written in the same order.
    ///
    /// The writer was picked once per frame size when the builder was made
    /// (a single-flow stream gets one compiled for its IP version, L4
    /// protocol, checksum mode and stamp layout, which branches on none of
    /// them; a stream with ranges the general one), so per frame this is
    /// one indirect call.
    #[inline]
    pub fn write_head(&mut self, head: &mut [u8], seq: u64, p: &FramePlan) {
        let sh = self.shapes[usize::from(p.shape)];
        (sh.head)(self, head, seq, p, &sh);
    }

    /// The general writer behind [`write_head`](Self::write_head), for
    /// every kind of stream: it branches per frame on the checksum mode,
    /// the stamp layout, the IP version and the L4 protocol. Streams with
    /// address or port ranges use it; the single-flow writers are tested
    /// against it byte for byte.
    pub(super) fn head_generic(&mut self, head: &mut [u8], seq: u64, p: &FramePlan, sh: &Shape) {
        let sh = *sh;
        let hdr = self.template.len();
        let (f, stamp) = head[..p.head_len].split_at_mut(hdr);
        let (l3, l4) = (self.l2_len, self.l2_len + self.l3_len);
        let software = self.csum == CsumMode::Software;
        let full = sh.layout == StampLayout::Full;
        if full {
            write_full_stamp(stamp, &sh, self.stream_id, seq, p.fill_sum);
        } else {
            write_compact_stamp(stamp, &sh, self.stream_id, seq, p.fill_sum);
        }
        let payload_len = (p.len - hdr) as u32;
        let l4_field = if self.single_flow {
            self.single_head(f, &sh, l3, l4, software, payload_len)
        } else {
            let l4_len = p.len - l4;
            let pseudo = self.write_varied(f, p.len, l3, l4, l4_len, software);
            self.varied_l4(f, pseudo, l4, l4_len, software, payload_len)
        };
        let l4_field = if software {
            let s = if full {
                checksum::add(l4_field, p.fill_sum)
            } else {
                l4_field
            };
            let c = checksum::finish(s);
            if self.is_tcp() {
                c
            } else {
                udp_nonzero(c)
            }
        } else {
            l4_field
        };
        let csum_off = l4
            + if self.is_tcp() {
                tcpf::CHECKSUM
            } else {
                udpf::CHECKSUM
            };
        put16(f, csum_off, l4_field);
    }

    /// The writer of a tunnelled stream's frames: the stamped packet as
    /// [`head_generic`](Self::head_generic) writes it, then the tunnel's
    /// outer fields.
    fn head_tunnel(&mut self, head: &mut [u8], seq: u64, p: &FramePlan, sh: &Shape) {
        self.head_generic(head, seq, p, sh);
        if let Some(o) = &self.outer {
            o.patch(head, p.len, seq);
        }
    }

    /// The changing header fields of a single-flow frame: lengths, IPv4 id
    /// and checksum, TCP sequence. Returns the L4 sum without the payload
    /// (software) or the pseudo-header sum (offload).
    #[inline(always)]
    fn single_head(
        &mut self,
        f: &mut [u8],
        sh: &Shape,
        l3: usize,
        l4: usize,
        software: bool,
        payload_len: u32,
    ) -> u16 {
        let l4_len = sh.len - l4;
        if let Addrs::V6 { .. } = self.addrs {
            put16(f, l3 + v6::PAYLOAD_LEN, l4_len as u16);
        } else {
            self.write_ipv4_fields(array_mut(&mut f[l3..]), (sh.len - l3) as u16, software);
        }
        let mut s = sh.l4_sum;
        if self.is_tcp() {
            let seq = self.tcp_seq;
            self.tcp_seq = seq.wrapping_add(payload_len);
            put32(f, l4 + tcpf::SEQ_NUM, seq);
            s = checksum::add(s, checksum::add((seq >> 16) as u16, seq as u16));
        } else {
            put16(f, l4 + udpf::LENGTH, l4_len as u16);
        }
        if software {
            s
        } else {
            checksum::add(self.flow.2, l4_len as u16)
        }
    }

    /// The L4 fields of a frame with varying addresses or ports (already
    /// written by `write_varied`, which returned `pseudo`): length or TCP
    /// sequence, then the sum of the header (software) or `pseudo`.
    fn varied_l4(
        &mut self,
        f: &mut [u8],
        pseudo: u16,
        l4: usize,
        l4_len: usize,
        software: bool,
        payload_len: u32,
    ) -> u16 {
        let csum_off = if self.is_tcp() {
            put32(f, l4 + tcpf::SEQ_NUM, self.tcp_seq);
            self.tcp_seq = self.tcp_seq.wrapping_add(payload_len);
            l4 + tcpf::CHECKSUM
        } else {
            put16(f, l4 + udpf::LENGTH, l4_len as u16);
            l4 + udpf::CHECKSUM
        };
        if !software {
            return pseudo;
        }
        put16(f, csum_off, 0);
        checksum::add(pseudo, checksum::sum(&f[l4..l4 + self.l4_hdr_len]))
    }
}

/// The full stamp of frame `seq` of stream `id` with TX TSC 0, its check
/// from the shape's constant words plus the sequence and the fill checksum:
/// four 64-bit stores.
#[inline(always)]
fn write_full_stamp(b: &mut [u8], sh: &Shape, id: u32, seq: u64, fill_sum: u16) {
    let fill_csum = checksum::finish(fill_sum);
    let b: &mut [u8; FULL_LEN] = array_mut(b);
    let s = checksum::add(checksum::add(sh.stamp_sum, sum64(seq)), fill_csum);
    let w0 = (u64::from(MAGIC) << 48) | (u64::from(sh.format) << 40) | u64::from(id);
    let w3 = (u64::from(sh.fill_len) << 48)
        | (u64::from(fill_csum) << 32)
        | (u64::from(checksum::finish(s)) << 16);
    put_word(b, 0, w0);
    put_word(b, full::SEQ, seq);
    put_word(b, full::TSC, 0);
    put_word(b, full::FILL_LEN, w3);
}

/// The compact stamp of frame `seq` of stream `id` with TX TSC 0; its check
/// covers the fill (`fill_sum`). The 48-bit sequence starts at an odd
/// offset, so its words count byte-swapped (RFC 1071, 2(B)). Two 64-bit
/// stores and the check.
#[inline(always)]
fn write_compact_stamp(b: &mut [u8], sh: &Shape, id: u32, seq: u64, fill_sum: u16) {
    let b: &mut [u8; COMPACT_LEN] = array_mut(b);
    let s = checksum::add(sh.stamp_sum, sum48(seq).swap_bytes());
    let check = checksum::finish(checksum::add(s, fill_sum));
    // Magic, format, id and the sequence's top three bytes as one word;
    // the sequence's last three bytes and TSC 0 as the next.
    let w0 = (u64::from(MAGIC) << 48)
        | (u64::from(sh.format) << 40)
        | (u64::from(id as u16) << 24)
        | ((seq >> 24) & 0xFF_FFFF);
    put_word(b, 0, w0);
    put_word(b, COMPACT_TAIL, compact_tail(seq, 0));
    b[compact::CHECK..compact::CHECK + 2].copy_from_slice(&check.to_be_bytes());
}

/// Where the compact stamp's second 64-bit word starts: the sequence's
/// last three bytes, then the 40-bit TSC.
const COMPACT_TAIL: usize = compact::TSC - 3;

/// The compact stamp's second 64-bit word (at [`COMPACT_TAIL`]): the
/// sequence's last three bytes, then the 40-bit TX TSC (the low 40 bits
/// of `tsc`).
#[inline(always)]
fn compact_tail(seq: u64, tsc: u64) -> u64 {
    (seq << 40) | (tsc & 0xFF_FFFF_FFFF)
}

/// Stores `w` big-endian at `b[at..at + 8]`.
#[inline(always)]
fn put_word<const N: usize>(b: &mut [u8; N], at: usize, w: u64) {
    b[at..at + 8].copy_from_slice(&w.to_be_bytes());
}

/// The single-flow writer for IP version `V6` and L4 protocol `TCP`, by
/// checksum mode and stamp layout.
fn pick_single<const V6: bool, const TCP: bool>(software: bool, full: bool) -> HeadWriter {
    match (software, full) {
        (false, false) => FrameBuilder::head_single::<V6, TCP, false, false>,
        (false, true) => FrameBuilder::head_single::<V6, TCP, false, true>,
        (true, false) => FrameBuilder::head_single::<V6, TCP, true, false>,
        (true, true) => FrameBuilder::head_single::<V6, TCP, true, true>,
    }
}

/// A full stamp's TX TSC replaced by `tsc`, its check updated (RFC 1624,
/// the four words of the old TSC out and of the new one in).
#[inline(always)]
pub(super) fn patch_full_tsc(b: &mut [u8; FULL_LEN], tsc: u64) {
    let mut old = [0u8; 8];
    old.copy_from_slice(&b[full::TSC..full::TSC + 8]);
    let check = u16::from_be_bytes([b[full::CHECK], b[full::CHECK + 1]]);
    let c = checksum::update64(check, u64::from_be_bytes(old), tsc);
    b[full::TSC..full::TSC + 8].copy_from_slice(&tsc.to_be_bytes());
    b[full::CHECK..full::CHECK + 2].copy_from_slice(&c.to_be_bytes());
}

/// A compact stamp's 40-bit TX TSC replaced by the low 40 bits of `tsc`,
/// its check updated over the even-aligned window of bytes 10..16 (the
/// sequence's last byte and the TSC), as [`Stamp::patch_tsc`] does it.
#[inline(always)]
pub(super) fn patch_compact_tsc(b: &mut [u8; COMPACT_LEN], tsc: u64) {
    // The window as a big-endian 48-bit number: its three words' sum.
    let window = |b: &[u8; COMPACT_LEN]| {
        let mut w = [0u8; 8];
        w[2..].copy_from_slice(&b[compact::TSC - 1..compact::TSC + 5]);
        sum48(u64::from_be_bytes(w))
    };
    let old = window(&*b);
    b[compact::TSC..compact::TSC + 5].copy_from_slice(&tsc.to_be_bytes()[3..]);
    let new = window(&*b);
    let check = u16::from_be_bytes([b[compact::CHECK], b[compact::CHECK + 1]]);
    let c = !checksum::add(!check, checksum::sub(new, old));
    b[compact::CHECK..compact::CHECK + 2].copy_from_slice(&c.to_be_bytes());
}

/// The first `N` bytes of `b` (a header or stamp) as an array: one bounds
/// check, after which every constant offset into it is checked at compile
/// time.
#[inline(always)]
pub(super) fn array_mut<const N: usize>(b: &mut [u8]) -> &mut [u8; N] {
    let len = b.len();
    match b.get_mut(..N).map(<&mut [u8; N]>::try_from) {
        Some(Ok(b)) => b,
        _ => panic!("a field of {N} bytes in a buffer of {len}"),
    }
}
