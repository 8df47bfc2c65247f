//! The AVX2 kernel of the RFC 1071 Internet checksum, behind a safe
//! function that checks at run time whether the CPU has AVX2, and a
//! prefetch hint. The engine's portable sum (`wire::checksum`) does the
//! rest of a range and everything on CPUs without AVX2.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_loadu_si256, _mm256_set1_epi32,
    _mm256_setzero_si256, _mm256_srli_epi32, _mm256_storeu_si256,
};

/// Bytes the kernel takes per step: the prefix it sums is a multiple of this.
pub const BLOCK: usize = 64;

/// Bytes summed between two spills of the 32-bit lanes into the 64-bit
/// total: each lane adds two 16-bit words per step, at most
/// `2 × 0xFFFF × CHUNK / BLOCK` < 2^32.
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
/// words: each 32-bit lane splits into its low and high word, added into
/// four accumulators of eight 32-bit lanes, spilled every [`CHUNK`] bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sum_avx2(data: &[u8]) -> u64 {
    let low = _mm256_set1_epi32(0xFFFF);
    let mut total = 0u64;
    for chunk in data.chunks(CHUNK) {
        let mut acc = [_mm256_setzero_si256(); 4];
        for block in chunk.chunks_exact(BLOCK) {
            let p = block.as_ptr() as *const __m256i;
            // SAFETY: `block` is BLOCK = 64 readable bytes: two unaligned
            // 32-byte loads at its start and 32 bytes in stay inside it.
            let (v0, v1) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
            acc[0] = _mm256_add_epi32(acc[0], _mm256_and_si256(v0, low));
            acc[1] = _mm256_add_epi32(acc[1], _mm256_srli_epi32::<16>(v0));
            acc[2] = _mm256_add_epi32(acc[2], _mm256_and_si256(v1, low));
            acc[3] = _mm256_add_epi32(acc[3], _mm256_srli_epi32::<16>(v1));
        }
        for a in acc {
            let mut lanes = [0u32; 8];
            // SAFETY: `lanes` is 32 writable bytes, what one unaligned
            // 256-bit store writes.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, a) };
            total += lanes.iter().map(|&l| u64::from(l)).sum::<u64>();
        }
    }
    total
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
