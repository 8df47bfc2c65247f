//! The sum of any span of a fill pattern in O(1), without reading it: a
//! prefix table of the pattern's 16-bit words, one entry per byte, so the
//! fill of a frame whose bytes stay in the pattern (attached, not copied)
//! still gets its checksum from two loads.
//!
//! Entry `i` holds the plain sum of bytes `0..i`, each byte weighted as it
//! sits in a big-endian word aligned on the pattern's start: an even
//! position is the high byte (× 256), an odd one the low byte. A span that
//! starts at an even position is then the difference of two entries; one
//! that starts at an odd position is the same difference with its two
//! bytes swapped (RFC 1071, section 2(B)), because the span's own words
//! pair its bytes the other way round.

#![forbid(unsafe_code)]

use super::checksum;

/// Longest span whose sum the table gives exactly: the difference of two
/// `u32` entries is exact while the span's plain sum stays below 2^32,
/// which holds for any span up to 64 KiB (32 Ki words of at most 0xFFFF).
pub const MAX_SPAN: usize = 65_536;

/// The prefix sums of a fill pattern's bytes.
#[derive(Debug, Clone)]
pub struct FillSums {
    prefix: Vec<u32>,
}

impl FillSums {
    /// The table of `bytes` (one entry per byte, and one for the end).
    pub fn new(bytes: &[u8]) -> Self {
        let mut prefix = Vec::with_capacity(bytes.len() + 1);
        let mut acc: u32 = 0;
        prefix.push(acc);
        for (i, &b) in bytes.iter().enumerate() {
            let weight = if i % 2 == 0 { 8 } else { 0 };
            acc = acc.wrapping_add(u32::from(b) << weight);
            prefix.push(acc);
        }
        Self { prefix }
    }

    /// Bytes the table covers.
    pub fn len(&self) -> usize {
        self.prefix.len() - 1
    }

    /// Whether it covers no byte.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sum (folded, not complemented) of the `len` pattern bytes at
    /// `off`, as [`checksum::sum`] gives it for those bytes on their own:
    /// what the span contributes at an even offset of a checksummed range.
    /// Panics if the span leaves the pattern; `len` is at most
    /// [`MAX_SPAN`].
    #[inline]
    pub fn sum(&self, off: usize, len: usize) -> u16 {
        debug_assert!(len <= MAX_SPAN, "a span of {len} bytes");
        let plain = self.prefix[off + len].wrapping_sub(self.prefix[off]);
        checksum::swap_for_odd(checksum::fold64(u64::from(plain)), off % 2 == 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    fn random(len: usize, seed: u64) -> Vec<u8> {
        let mut r = SplitMix64::new(seed);
        (0..len).map(|_| r.next_u64() as u8).collect()
    }

    /// Every offset, odd ones included, for lengths of both parities.
    #[test]
    fn every_offset_matches_a_direct_sum() {
        let bytes = random(3000, 7);
        let t = FillSums::new(&bytes);
        assert_eq!(t.len(), 3000);
        for len in [0usize, 1, 2, 3, 7, 8, 31, 64, 255, 1001, 1486, 2000] {
            for off in 0..=bytes.len() - len {
                let want = checksum::sum(&bytes[off..off + len]);
                assert_eq!(t.sum(off, len), want, "offset {off}, {len} bytes");
            }
        }
    }

    /// Spans of every length from a few fixed offsets, and the end of the
    /// pattern.
    #[test]
    fn every_length_matches_a_direct_sum() {
        let bytes = random(1200, 11);
        let t = FillSums::new(&bytes);
        for off in [0usize, 1, 2, 5, 8, 600, 1199] {
            for len in 0..=bytes.len() - off {
                let want = checksum::sum(&bytes[off..off + len]);
                assert_eq!(t.sum(off, len), want, "offset {off}, {len} bytes");
            }
        }
        assert_eq!(t.sum(1200, 0), 0);
    }

    /// The longest span of the largest bytes is still exact (the plain sum
    /// comes close to 2^32 without reaching it), at both parities.
    #[test]
    fn the_longest_span_of_all_ones_is_exact() {
        let bytes = vec![0xFFu8; MAX_SPAN + 1];
        let t = FillSums::new(&bytes);
        assert_eq!(t.sum(0, MAX_SPAN), checksum::sum(&bytes[..MAX_SPAN]));
        assert_eq!(t.sum(1, MAX_SPAN), checksum::sum(&bytes[1..]));
        assert_eq!(t.sum(0, MAX_SPAN), 0xFFFF);
    }

    /// Known values: a byte alone is the high byte of its word, whatever
    /// its position; two bytes form one big-endian word.
    #[test]
    fn known_sums() {
        let t = FillSums::new(&[0x12, 0x34, 0x56, 0x00, 0x00]);
        assert_eq!(t.sum(0, 1), 0x1200);
        assert_eq!(t.sum(1, 1), 0x3400);
        assert_eq!(t.sum(0, 2), 0x1234);
        assert_eq!(t.sum(1, 2), 0x3456);
        assert_eq!(t.sum(0, 3), 0x1234 + 0x5600);
        assert_eq!(t.sum(2, 3), 0x5600);
        assert_eq!(t.sum(3, 2), 0);
        assert!(!t.is_empty());
        assert!(FillSums::new(&[]).is_empty());
    }

    /// A frame written head-only, its fill then taken from the pattern at
    /// the offset `write_head` returns, is the frame `write` copies, byte
    /// for byte (checksums included); frames with a compact stamp or no
    /// fill are refused and leave the builder as it was.
    #[test]
    fn head_and_attached_fill_equal_the_copied_frame() {
        use crate::wire::spec::{SizeSpec, StreamSpec};
        use crate::wire::{CsumMode, FrameBuilder};
        let spec = StreamSpec {
            size: SizeSpec::Cycle(vec![1001, 9130, 64, 78, 79, 1518]),
            ..StreamSpec::default()
        };
        for csum in [CsumMode::Software, CsumMode::Offload] {
            let mut copy = FrameBuilder::new(&spec, csum).unwrap();
            let mut head = FrameBuilder::new(&spec, csum).unwrap();
            let sums = FillSums::new(head.fill_pattern().bytes());
            let (mut want, mut got) = (vec![0u8; 9126], vec![0u8; 9126]);
            for seq in 0..60u64 {
                let len = copy.next_len();
                assert_eq!(head.next_len(), len);
                assert_eq!(copy.write(&mut want, seq, 7), len);
                match head.split() {
                    Some((h, fill)) => {
                        assert_eq!(h + fill, len);
                        let off = head.write_head(&mut got[..h], seq, 7, &sums).unwrap();
                        let pattern = head.fill_pattern().bytes();
                        got[h..len].copy_from_slice(&pattern[off..off + fill]);
                    }
                    None => {
                        assert!(len <= 74, "{len}-byte frames have a fill");
                        assert_eq!(head.write_head(&mut got, seq, 7, &sums), None);
                        assert_eq!(head.write(&mut got, seq, 7), len);
                    }
                }
                assert!(
                    got[..len] == want[..len],
                    "seq {seq}, {len} bytes, {csum:?}"
                );
            }
        }
    }

    /// The table agrees with the pattern's own sums of frame fills.
    #[test]
    fn agrees_with_the_fill_pattern() {
        let p = super::super::fill::FillPattern::new(3, 9200);
        let t = FillSums::new(p.bytes());
        for seq in [0u64, 1, 99, 8191] {
            let off = super::super::fill::FillPattern::offset_for(seq);
            for len in [0usize, 1, 1454, 9066, 9200] {
                assert_eq!(t.sum(off, len), p.sum(off, len), "seq {seq}, {len} bytes");
            }
        }
    }
}
