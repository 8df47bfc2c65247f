//! The payload fill after the stamp: a per-stream pseudo-random pattern,
//! copied from a sequence-dependent 8-byte-aligned offset, whose Internet
//! checksum comes from a prefix table in O(1).
//!
//! Per frame the cost is one `memcpy` of the fill plus a table lookup;
//! there is no byte-at-a-time generator and no second pass over the bytes.

use super::checksum;

/// Number of distinct fill offsets (8 bytes apart): consecutive sequence
/// numbers use distinct offsets for this many frames.
pub const OFFSETS: usize = 8192;
/// Span of the offsets in bytes (64 KiB).
pub const WINDOW: usize = OFFSETS * 8;
/// Odd multiplier scattering consecutive sequence numbers over the offsets.
const STRIDE: u64 = 4099;

pub use crate::rng::SplitMix64;

/// A per-stream fill pattern with its checksum prefix table.
#[derive(Debug, Clone)]
pub struct FillPattern {
    bytes: Vec<u8>,
    /// `prefix[k]` = plain (wrapping) sum of the big-endian 16-bit words of
    /// `bytes[..8k]`. Differences of two entries are exact for spans below
    /// 512 KiB, which covers any frame.
    prefix: Vec<u32>,
    max_fill: usize,
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
        }
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
