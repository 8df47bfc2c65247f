//! The AVX2 kernel of the RFC 1071 Internet checksum, behind a safe
//! function that checks at run time whether the CPU has AVX2, and a
//! prefetch hint. The engine's portable sum (`wire::checksum`) does the
//! rest of a range and everything on CPUs without AVX2.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_set1_epi16,
    _mm256_setzero_si256, _mm256_storeu_si256, _mm256_xor_si256,
};

/// Bytes the kernel takes per step: the prefix it sums is a multiple of this.
pub const BLOCK: usize = 64;

/// Bytes summed between two spills of the 32-bit lanes into the 64-bit
/// total: each of the four accumulators adds one lane sum in
/// [-2^16, 2^16 - 2] per two blocks, so after `CHUNK / (2 × BLOCK)` = 8192
/// steps a lane holds at most 2^29 in magnitude, far from 2^31.
const CHUNK: usize = 1 << 20;

/// Whether this CPU runs the AVX2 kernel (detected once, then a load).
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The unfolded sum of the native-endian 16-bit words of the longest
/// prefix of `data` whose length is a multiple of [`BLOCK`], and that
/// length; `None` when the CPU has no AVX2 (the caller sums portably).
///
/// The one's-complement sum does not depend on byte order, so a caller
/// folds the total with end-around carry and converts from big-endian once.
pub fn sum_blocks(data: &[u8]) -> Option<(u64, usize)> {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            let n = data.len() - data.len() % BLOCK;
            // SAFETY: the CPU has AVX2 (checked just above), which is all
            // the kernel's target feature requires of its caller.
            return Some((unsafe { sum_avx2(&data[..n]) }, n));
        }
    }
    let _ = data;
    None
}

/// Sums `data` (a multiple of [`BLOCK`] bytes) as native-endian 16-bit
/// words, exactly (the same total as adding them one by one).
///
/// `vpmaddwd` against ones adds each pair of 16-bit words into a 32-bit
/// lane in one instruction, but reads the words as signed: each word is
/// first flipped at its top bit (`w ^ 0x8000` read signed is `w - 2^15`),
/// and the `2^15` taken from each of the `data.len() / 2` words is given
/// back once at the end. Two blocks per step into four accumulators keep
/// the adds independent; the lanes are spilled every [`CHUNK`] bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(data: &[u8]) -> u64 {
    let flip = _mm256_set1_epi16(i16::MIN);
    let ones = _mm256_set1_epi16(1);
    // One 32-byte vector: its 16 words, flipped, added in pairs.
    let pairs = |p: *const __m256i| {
        // SAFETY: callers pass a pointer to 32 readable bytes inside
        // `data` (an unaligned load reads exactly those).
        let v = unsafe { _mm256_loadu_si256(p) };
        _mm256_madd_epi16(_mm256_xor_si256(v, flip), ones)
    };
    let mut signed = 0i64;
    for chunk in data.chunks(CHUNK) {
        let mut acc = [_mm256_setzero_si256(); 4];
        let mut steps = chunk.chunks_exact(2 * BLOCK);
        for step in &mut steps {
            let p = step.as_ptr() as *const __m256i;
            // Four vectors of 32 bytes: p .. p + 4 stays inside `step`.
            for (i, a) in acc.iter_mut().enumerate() {
                // SAFETY: `i < 4`, so `p.add(i)` is 32 bytes of `step`.
                *a = _mm256_add_epi32(*a, pairs(unsafe { p.add(i) }));
            }
        }
        // At most one block is left (`chunk` is a multiple of BLOCK).
        for (i, v) in steps.remainder().chunks_exact(32).enumerate() {
            acc[i] = _mm256_add_epi32(acc[i], pairs(v.as_ptr() as *const __m256i));
        }
        for a in acc {
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` is 32 writable bytes, what one unaligned
            // 256-bit store writes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, a) };
            signed += lanes.iter().map(|&l| i64::from(l)).sum::<i64>();
        }
    }
    // Give back 2^15 per word: the words' true total, never negative.
    (signed + (data.len() as i64 / 2) * 0x8000) as u64
}

/// Hints the CPU to bring the cache line at `p` into every cache level
/// (DPDK's `rte_prefetch0`). Never faults, whatever `p` points at.
#[inline(always)]
pub fn prefetch0<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it reads nothing architecturally and
    // does not fault on any address, valid or not.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The native-endian 16-bit words of `data`, added one by one.
    fn words(data: &[u8]) -> u64 {
        (data.chunks_exact(2))
            .map(|w| u64::from(u16::from_ne_bytes([w[0], w[1]])))
            .sum()
    }

    /// Whether the CPU has AVX2, asked of the CPU itself (not of
    /// [`has_avx2`], which the tests check): the kernel must then be used.
    fn cpu_has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let yes = std::arch::is_x86_feature_detected!("avx2");
            assert_eq!(has_avx2(), yes);
            yes
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Bytes from a small xorshift generator, every value of a word.
    fn bytes(n: usize, mut s: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect()
    }

    /// The kernel's total is the exact, unfolded sum of the words, on
    /// every whole number of blocks up to a jumbo frame at every offset
    /// of a cache line, for random words and for the words at the signed
    /// boundary (0x7FFF, 0x8000) and the extremes (0x0000, 0xFFFF).
    #[test]
    fn the_kernel_adds_the_words_exactly() {
        if !cpu_has_avx2() {
            assert_eq!(sum_blocks(&[0; BLOCK]), None);
            return;
        }
        let random = bytes(9216 + 64, 0x5EED);
        let mut patterns: Vec<(Vec<u8>, &str)> = vec![(random, "random")];
        for w in [0x0000u16, 0x7FFF, 0x8000, 0xFFFF] {
            let v: Vec<u8> = (0..(9216 + 64) / 2).flat_map(|_| w.to_ne_bytes()).collect();
            patterns.push((v, "constant"));
        }
        for (data, name) in &patterns {
            for off in 0..64 {
                for blocks in 0..=(9216 / BLOCK) {
                    let d = &data[off..off + blocks * BLOCK];
                    let (total, done) = sum_blocks(d).unwrap();
                    assert_eq!(done, d.len(), "{name} offset {off}, {blocks} blocks");
                    assert_eq!(total, words(d), "{name} offset {off}, {blocks} blocks");
                }
            }
        }
        // A tail shorter than a block is left to the caller.
        let (total, done) = sum_blocks(&patterns[0].0[..BLOCK * 3 + 63]).unwrap();
        assert_eq!(
            (total, done),
            (words(&patterns[0].0[..BLOCK * 3]), BLOCK * 3)
        );
    }

    /// Ranges over a spill (`CHUNK`) are exact too: all-0xFFFF and
    /// all-0x0000 words (the lanes' extremes), and random words, on three
    /// chunks and a block and a half block's worth more.
    #[test]
    fn the_kernel_spills_its_lanes_without_loss() {
        if !cpu_has_avx2() {
            return;
        }
        let n = 3 * CHUNK + BLOCK + BLOCK / 2;
        for data in [vec![0xFF; n], vec![0; n], bytes(n, 77)] {
            let (total, done) = sum_blocks(&data).unwrap();
            assert_eq!(done, 3 * CHUNK + BLOCK);
            assert_eq!(total, words(&data[..done]));
        }
        assert_eq!(
            sum_blocks(&vec![0xFF; 3 * CHUNK]).unwrap().0,
            0xFFFF * (3 * CHUNK as u64 / 2)
        );
    }
}
