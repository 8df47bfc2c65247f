//! The payload fill after the stamp: a per-stream pseudo-random pattern,
//! copied from a sequence-dependent 8-byte-aligned offset, whose Internet
//! checksum comes from a prefix table in O(1).
//!
//! Per frame the cost is one `memcpy` of the fill plus a table lookup;
//! there is no byte-at-a-time generator and no second pass over the bytes.

use std::sync::{Arc, Mutex};

use super::checksum;

/// Number of distinct fill offsets (8 bytes apart): consecutive sequence
/// numbers use distinct offsets for this many frames.
pub const OFFSETS: usize = 8192;
/// Span of the offsets in bytes (64 KiB).
pub const WINDOW: usize = OFFSETS * 8;
/// Odd multiplier scattering consecutive sequence numbers over the offsets.
const STRIDE: u64 = 4099;

pub use crate::rng::SplitMix64;

/// One fill length's sums (folded, not complemented) at each of the
/// [`OFFSETS`] places, by `offset / 8`.
pub type SumTable = [u16; OFFSETS];

/// Fill lengths a pattern keeps a [`SumTable`] of (16 KiB each), shared by
/// every stream that fills from it: a fixed frame size needs one, an IMIX
/// a few; the sums of other lengths come from the prefix table.
pub const SUM_TABLES_MAX: usize = 64;

/// A per-stream fill pattern with its checksum prefix table.
#[derive(Debug)]
pub struct FillPattern {
    bytes: Vec<u8>,
    /// `prefix[k]` = plain (wrapping) sum of the big-endian 16-bit words of
    /// `bytes[..8k]`. Differences of two entries are exact for spans below
    /// 512 KiB, which covers any frame.
    prefix: Vec<u32>,
    max_fill: usize,
    /// The sum tables made so far, by fill length.
    sums: Mutex<Vec<(usize, Arc<SumTable>)>>,
}

impl Clone for FillPattern {
    fn clone(&self) -> Self {
        Self {
            bytes: self.bytes.clone(),
            prefix: self.prefix.clone(),
            max_fill: self.max_fill,
            sums: Mutex::new(Vec::new()),
        }
    }
}

impl FillPattern {
    /// Builds the pattern for fills up to `max_fill` bytes from `seed`.
    pub fn new(seed: u64, max_fill: usize) -> Self {
        let len = (WINDOW + max_fill + 7) & !7;
        let mut rng = SplitMix64::new(seed ^ 0x4C53_4C53_0000_0001);
        let mut bytes = Vec::with_capacity(len);
        while bytes.len() < len {
            bytes.extend_from_slice(&rng.next_u64().to_le_bytes());
        }
        bytes.truncate(len);
        let mut prefix = Vec::with_capacity(len / 8 + 1);
        let mut acc: u32 = 0;
        prefix.push(0);
        for c in bytes.chunks_exact(8) {
            for w in c.chunks_exact(2) {
                acc = acc.wrapping_add(u32::from(u16::from_be_bytes([w[0], w[1]])));
            }
            prefix.push(acc);
        }
        Self {
            bytes,
            prefix,
            max_fill,
            sums: Mutex::new(Vec::new()),
        }
    }

    /// The sums of `len` fill bytes at every place (one load a frame where
    /// [`sum`](Self::sum) takes two table entries and a tail), made once
    /// per length; `None` for an empty fill, one longer than the pattern
    /// serves, or once [`SUM_TABLES_MAX`] lengths have tables.
    pub fn sums_for(&self, len: usize) -> Option<Arc<SumTable>> {
        if len == 0 || len > self.max_fill {
            return None;
        }
        let mut made = self.sums.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, t)) = made.iter().find(|(l, _)| *l == len) {
            return Some(Arc::clone(t));
        }
        if made.len() >= SUM_TABLES_MAX {
            return None;
        }
        let mut t = Box::new([0u16; OFFSETS]);
        for (k, v) in t.iter_mut().enumerate() {
            *v = self.sum(k * 8, len);
        }
        let t: Arc<SumTable> = Arc::from(t);
        made.push((len, Arc::clone(&t)));
        Some(t)
    }

    /// The pattern's bytes (a frame's fill is `len` of them from
    /// [`offset_for`](Self::offset_for) its sequence number).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Largest fill this pattern serves.
    pub fn max_fill(&self) -> usize {
        self.max_fill
    }

    /// Byte offset into the pattern for sequence number `seq` (8-aligned,
    /// below [`WINDOW`]).
    #[inline]
    pub fn offset_for(seq: u64) -> usize {
        ((seq.wrapping_mul(STRIDE) % OFFSETS as u64) as usize) * 8
    }

    /// Sum (folded, not complemented) of `len` pattern bytes at the
    /// 8-aligned offset `off`, in O(1). `off + len` must be within the pattern.
    #[inline]
    pub fn sum(&self, off: usize, len: usize) -> u16 {
        let end = off + len;
        let whole = end & !7;
        let body = self.prefix[whole / 8].wrapping_sub(self.prefix[off / 8]);
        // `whole - off` is a multiple of 8, so the tail starts at an even
        // offset: its big-endian words are the high bytes of one 8-byte word.
        let tail = match end - whole {
            0 => 0,
            keep => {
                let w = self.bytes[whole..whole + 8]
                    .try_into()
                    .map_or(0, u64::from_be_bytes);
                w & !(u64::MAX >> (keep * 8))
            }
        };
        checksum::fold64(u64::from(body) + word_sum(tail))
    }

    /// Copies the fill of frame `seq` into `dst` (at most `max_fill` bytes;
    /// longer `dst` is truncated to it) and returns the sum of the copied
    /// bytes (folded, not complemented).
    #[inline]
    pub fn write(&self, dst: &mut [u8], seq: u64) -> u16 {
        let len = dst.len().min(self.max_fill);
        let off = Self::offset_for(seq);
        dst[..len].copy_from_slice(&self.bytes[off..off + len]);
        self.sum(off, len)
    }
}

/// Sum of the four big-endian 16-bit words of `x` (unfolded).
#[inline(always)]
fn word_sum(x: u64) -> u64 {
    (x >> 48) + ((x >> 32) & 0xFFFF) + ((x >> 16) & 0xFFFF) + (x & 0xFFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_tables_hold_every_places_sum_and_are_made_once_per_length() {
        let p = FillPattern::new(7, 9000);
        for len in [1, 2, 7, 8, 9, 1000, 8999, 9000] {
            let t = p.sums_for(len).expect("a table");
            for k in 0..OFFSETS {
                assert_eq!(t[k], p.sum(k * 8, len), "len {len} place {k}");
            }
            let again = p.sums_for(len).unwrap();
            assert!(Arc::ptr_eq(&t, &again), "len {len} made twice");
        }
        assert!(p.sums_for(0).is_none());
        assert!(p.sums_for(9001).is_none());
        for len in 10..10 + SUM_TABLES_MAX {
            let _ = p.sums_for(len);
        }
        assert_eq!(p.sums.lock().unwrap().len(), SUM_TABLES_MAX);
        assert!(p.sums_for(5000).is_none(), "beyond the cap");
        assert!(p.sums_for(1000).is_some(), "made before the cap");
        assert!(p.clone().sums.lock().unwrap().is_empty());
    }

    #[test]
    fn table_sum_matches_direct_sum() {
        let p = FillPattern::new(42, 9200);
        for seq in [0u64, 1, 2, 777, 8191, 8192, u64::MAX] {
            for len in [0usize, 1, 2, 7, 8, 9, 15, 16, 63, 1000, 1001, 9078, 9200] {
                let mut dst = vec![0u8; len];
                let s = p.write(&mut dst, seq);
                assert_eq!(s, checksum::sum(&dst), "seq {seq} len {len}");
            }
        }
    }

    #[test]
    fn offsets_distinct_over_window_and_aligned() {
        let mut seen = std::collections::HashSet::new();
        for s in 0..OFFSETS as u64 {
            let o = FillPattern::offset_for(s + 12345);
            assert_eq!(o % 8, 0);
            assert!(o < WINDOW);
            assert!(seen.insert(o));
        }
    }

    #[test]
    fn rng_reproducible_and_bounded() {
        let a: Vec<u64> = (0..5)
            .scan(SplitMix64::new(9), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..5)
            .scan(SplitMix64::new(9), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        let mut r = SplitMix64::new(1);
        for n in [1u128, 2, 3, 1000, u128::from(u64::MAX) + 5] {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
    }
}
