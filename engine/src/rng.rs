//! The one pseudo-random generator of the crate: SplitMix64, seeded, so
//! every random choice (field variation, payload fill, Poisson and on/off
//! departures) is reproducible from the profile's seed. Pure, no DPDK.

/// SplitMix64: a small, fast, seeded generator (Steele, Lea, Flood 2014).
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An exponential variate with mean 1 in 32.32 fixed point (at most
    /// about 36.7 × 2^32).
    #[inline]
    pub fn exp_q32(&mut self) -> u64 {
        // u in (0, 1]: 53 random bits, never zero, so ln(u) is finite.
        let u = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        let e = -u.ln();
        (e * 4_294_967_296.0) as u64
    }

    /// Uniform value in `0..n` (`n` > 0); 0 when `n` is 0.
    pub fn below(&mut self, n: u128) -> u128 {
        if n == 0 {
            0
        } else if n <= u128::from(u64::MAX) {
            // Multiply-shift: unbiased enough for traffic variation, no division.
            (u128::from(self.next_u64()) * n) >> 64
        } else {
            ((u128::from(self.next_u64()) << 64) | u128::from(self.next_u64())) % n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_sequence_from_seed_zero() {
        // SplitMix64's published first outputs for seed 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = SplitMix64::new(7);
        for n in [1u128, 2, 3, 1000, u128::from(u64::MAX) + 5] {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
        assert_eq!(r.below(0), 0);
    }
}
