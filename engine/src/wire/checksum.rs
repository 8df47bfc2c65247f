//! RFC 1071 Internet checksum: fast accumulation, folding, pseudo-header
//! sums, combination of partial sums and RFC 1624 incremental updates.
//!
//! Conventions used throughout the crate:
//!
//! * a *sum* is the folded 16-bit one's-complement sum of a byte range
//!   (not complemented), as if the range started at an even offset;
//! * a *checksum* is the complement of a sum, the value stored in a header.
//!
//! Sums of disjoint ranges combine with [`add`]; a range that starts at an
//! odd offset of the checksummed data contributes [`swap_for_odd`] of its sum.

use std::net::{Ipv4Addr, Ipv6Addr};

/// Ranges shorter than this are summed portably (headers, stamps): the
/// AVX2 kernel pays off from a few blocks on.
const SIMD_MIN: usize = 128;

/// One's-complement sum of `data`, folded to 16 bits, not complemented.
///
/// The data is read as big-endian 16-bit words starting at `data[0]`; an
/// odd trailing byte is padded with a zero byte. Ranges shorter than
/// [`SIMD_MIN`] (headers, stamps, short fills) go through [`sum_short`];
/// longer ones through the AVX2 kernel when the CPU has it (the system
/// crate's `csum::sum_blocks`, checked at run time), its tail and the
/// whole range elsewhere through [`sum_portable`]. All give the same sum.
#[inline]
pub fn sum(data: &[u8]) -> u16 {
    if data.len() < SIMD_MIN {
        return sum_short(data);
    }
    if let Some((acc, done)) = landspeed_sys::csum::sum_blocks(data) {
        // `done` is a multiple of the kernel's block: the rest starts
        // on the same word boundary.
        return u16::from_be(fold128(u128::from(acc) + native_acc(&data[done..])));
    }
    sum_portable(data)
}

/// [`sum`] of a short range, without the lanes of [`sum_portable`]: its
/// native-endian 64-bit words added with end-around carry into one
/// accumulator (2^64 - 1 is a multiple of 0xFFFF, so the folded result is
/// the 16-bit one's-complement sum), then at most one 32-bit, one 16-bit
/// and one padded byte read of the tail. A 20-byte IPv4 header is two
/// words and a 32-bit read. Exact for any length; meant for ranges under
/// [`SIMD_MIN`] bytes, where the lanes' set-up and fold cost more than the
/// bytes they add. Always inlined: callers whose range is short by
/// construction (a header, a stamp) call it directly, and a length known
/// at compile time unrolls it.
#[inline(always)]
pub fn sum_short(data: &[u8]) -> u16 {
    let (words, rest) = data.as_chunks::<8>();
    let mut acc: u64 = 0;
    for w in words {
        let (s, carry) = acc.overflowing_add(u64::from_ne_bytes(*w));
        // No overflow: after a carry `s` is at most 2^64 - 2.
        acc = s.wrapping_add(u64::from(carry));
    }
    // The tail (under 8 bytes) starts on an 8-byte boundary of `data`, so
    // each piece keeps its bytes' positions within their 16-bit words.
    let mut tail: u64 = 0;
    let mut rest = rest;
    if let Some((w, r)) = rest.split_first_chunk::<4>() {
        tail += u64::from(u32::from_ne_bytes(*w));
        rest = r;
    }
    if let Some((w, r)) = rest.split_first_chunk::<2>() {
        tail += u64::from(u16::from_ne_bytes(*w));
        rest = r;
    }
    if let Some(&b) = rest.first() {
        // The odd last byte is the first of a word padded with zero.
        tail += u64::from(u16::from_ne_bytes([b, 0]));
    }
    let (s, carry) = acc.overflowing_add(tail);
    u16::from_be(fold64(s.wrapping_add(u64::from(carry))))
}

/// [`sum`] without SIMD intrinsics: the reference the AVX2 path is tested
/// against, and the path on CPUs without AVX2.
pub fn sum_portable(data: &[u8]) -> u16 {
    u16::from_be(fold128(native_acc(data)))
}

/// The unfolded sum of `data`'s native-endian 32-bit words (an odd tail
/// padded with zero bytes). The one's-complement sum does not depend on
/// byte order, so the words are added into eight independent 64-bit lanes
/// (carries accumulate in the upper half and are folded back at the end):
/// the loop has no carry chain and the compiler vectorises it. Exact for
/// slices up to 2^35 bytes.
#[inline]
fn native_acc(data: &[u8]) -> u128 {
    const LANES: usize = 8;
    let mut blocks = data.chunks_exact(4 * LANES);
    let mut acc: u128 = 0;
    if data.len() >= 4 * LANES {
        let mut lanes = [0u64; LANES];
        for block in &mut blocks {
            for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(4)) {
                *lane += u64::from(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
            }
        }
        acc = lanes.iter().map(|&l| u128::from(l)).sum();
    }
    // The rest (under 32 bytes: headers and stamps are all of it) in one
    // 64-bit accumulator.
    let rest = blocks.remainder();
    let mut small: u64 = 0;
    let mut words = rest.chunks_exact(4);
    for w in &mut words {
        small += u64::from(u32::from_ne_bytes([w[0], w[1], w[2], w[3]]));
    }
    let mut tail = [0u8; 4];
    for (t, b) in tail.iter_mut().zip(words.remainder()) {
        *t = *b;
    }
    small += u64::from(u32::from_ne_bytes(tail));
    acc + u128::from(small)
}

/// Folds a 128-bit accumulation of native-endian words to 16 bits with end-around carry.
fn fold128(acc: u128) -> u16 {
    let mut s = (acc as u64 as u128) + (acc >> 64);
    s = (s & 0xFFFF_FFFF_FFFF_FFFF) + (s >> 64);
    fold64(s as u64)
}

/// Folds a 64-bit one's-complement accumulator to 16 bits (end-around carry).
/// Zero only for a zero accumulator.
#[inline(always)]
pub fn fold64(acc: u64) -> u16 {
    // Each half added to the other with its carry brought around: after a
    // carry the sum is at most 2^n - 2, so adding it back cannot overflow.
    let (s, c) = (acc as u32).overflowing_add((acc >> 32) as u32);
    let s = s.wrapping_add(u32::from(c));
    let (t, c) = (s as u16).overflowing_add((s >> 16) as u16);
    t.wrapping_add(u16::from(c))
}

/// One's-complement addition of two folded sums.
#[inline]
pub fn add(a: u16, b: u16) -> u16 {
    let s = u32::from(a) + u32::from(b);
    ((s & 0xFFFF) + (s >> 16)) as u16
}

/// One's-complement subtraction `a - b` of two folded sums.
#[inline]
pub fn sub(a: u16, b: u16) -> u16 {
    add(a, !b)
}

/// The contribution of a range that starts at an odd offset: its sum with
/// the two bytes swapped (RFC 1071, section 2(B)).
#[inline]
pub fn swap_for_odd(sum: u16, odd_offset: bool) -> u16 {
    if odd_offset {
        sum.swap_bytes()
    } else {
        sum
    }
}

/// Sum of `data` as a part starting at byte `offset` of the checksummed range.
#[inline]
pub fn sum_at(data: &[u8], offset: usize) -> u16 {
    swap_for_odd(sum(data), offset % 2 == 1)
}

/// Final checksum value (complement of the sum) to store in a header.
#[inline]
pub fn finish(sum: u16) -> u16 {
    !sum
}

/// Internet checksum of `data` (complemented), ready to store in a header.
pub fn checksum(data: &[u8]) -> u16 {
    finish(sum(data))
}

/// The sum of data that includes its own checksum field and verifies: all
/// ones. Added to a larger sum it stands for those bytes without reading
/// them again.
pub const VERIFIED: u16 = 0xFFFF;

/// True when data that includes its own checksum field verifies (its sum is
/// all ones; a zero sum is only possible for all-zero data and fails).
pub fn verifies(total_sum: u16) -> bool {
    total_sum == VERIFIED
}

/// Sum of the IPv4 pseudo-header (RFC 768/793): source, destination, zero,
/// protocol, and the L4 length (header + payload).
pub fn pseudo_v4(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, l4_len: u16) -> u16 {
    let s = src.octets();
    let d = dst.octets();
    let acc = u64::from(u16::from_be_bytes([s[0], s[1]]))
        + u64::from(u16::from_be_bytes([s[2], s[3]]))
        + u64::from(u16::from_be_bytes([d[0], d[1]]))
        + u64::from(u16::from_be_bytes([d[2], d[3]]))
        + u64::from(protocol)
        + u64::from(l4_len);
    fold64(acc)
}

/// Sum of the IPv6 pseudo-header (RFC 8200 section 8.1): source, destination,
/// 32-bit upper-layer length, three zero bytes, next header.
pub fn pseudo_v6(src: &Ipv6Addr, dst: &Ipv6Addr, next_header: u8, l4_len: u32) -> u16 {
    let mut acc = u64::from(next_header) + u64::from(l4_len >> 16) + u64::from(l4_len & 0xFFFF);
    for w in src.segments().iter().chain(dst.segments().iter()) {
        acc += u64::from(*w);
    }
    fold64(acc)
}

/// RFC 1624 (eqn. 3) incremental update of a stored checksum `check` when a
/// 16-bit word changes from `old` to `new`: `HC' = ~(~HC + ~m + m')`.
#[inline]
pub fn update16(check: u16, old: u16, new: u16) -> u16 {
    !add(add(!check, !old), new)
}

/// RFC 1624 incremental update for a 32-bit field (two aligned words).
#[inline]
pub fn update32(check: u16, old: u32, new: u32) -> u16 {
    let c = update16(check, (old >> 16) as u16, (new >> 16) as u16);
    update16(c, old as u16, new as u16)
}

/// RFC 1624 incremental update for a 64-bit field (four aligned words).
#[inline]
pub fn update64(check: u16, old: u64, new: u64) -> u16 {
    let c = update32(check, (old >> 32) as u32, (new >> 32) as u32);
    update32(c, old as u32, new as u32)
}

/// RFC 1624 incremental update for an arbitrary region replaced in place:
/// `old` and `new` have equal length and start at the same offset of the
/// checksummed data (`odd_offset` if that offset is odd).
pub fn update_bytes(check: u16, old: &[u8], new: &[u8], odd_offset: bool) -> u16 {
    let delta = sub(sum(new), sum(old));
    !add(!check, swap_for_odd(delta, odd_offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Straightforward reference: big-endian 16-bit words, one at a time.
    fn slow_sum(data: &[u8]) -> u16 {
        let mut acc: u64 = 0;
        for c in data.chunks(2) {
            let w = if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], 0])
            };
            acc += u64::from(w);
        }
        fold64(acc)
    }

    fn prng_bytes(n: usize, mut s: u64) -> Vec<u8> {
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect()
    }

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: words 0001 f203 f4f5 f6f7 sum to ddf2.
        let d = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(sum(&d), 0xddf2);
        assert_eq!(checksum(&d), !0xddf2);
    }

    #[test]
    fn known_ipv4_header() {
        // Classic example header (checksum b861).
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(checksum(&h), 0xb861);
        let mut h2 = h;
        h2[10..12].copy_from_slice(&0xb861u16.to_be_bytes());
        assert!(verifies(sum(&h2)));
    }

    #[test]
    fn matches_reference_all_lengths_and_offsets() {
        let data = prng_bytes(300, 0x1234_5678);
        for start in 0..9 {
            for end in start..data.len() {
                assert_eq!(sum(&data[start..end]), slow_sum(&data[start..end]));
            }
        }
        // All-ones data exercises carries.
        let ff = vec![0xFFu8; 4099];
        assert_eq!(sum(&ff), slow_sum(&ff));
        assert_eq!(sum(&[]), 0);
        assert_eq!(sum(&[0xAB]), 0xAB00);
    }

    /// The short path against the portable (eight-lane) sum and the
    /// word-at-a-time reference: every length 0..=128 at every start
    /// offset within a cache line (odd and even starts, every alignment of
    /// its 8-, 4- and 2-byte reads), on random, all-ones (every carry,
    /// the 64-bit end-around carry included) and alternating bytes.
    #[test]
    fn short_sum_matches_portable_every_length_and_alignment() {
        const OFFSETS: usize = 64;
        let alternating: Vec<u8> = (0..SIMD_MIN + OFFSETS)
            .map(|i| if i % 2 == 0 { 0xFF } else { 0x01 })
            .collect();
        for (data, name) in [
            (prng_bytes(SIMD_MIN + OFFSETS, 0x5EED), "random"),
            (vec![0xFF; SIMD_MIN + OFFSETS], "ones"),
            (alternating, "alternating"),
        ] {
            for off in 0..OFFSETS {
                for len in 0..=SIMD_MIN {
                    let d = &data[off..off + len];
                    let want = slow_sum(d);
                    assert_eq!(sum_short(d), want, "{name} offset {off} len {len}");
                    assert_eq!(sum_portable(d), want, "{name} offset {off} len {len}");
                    assert_eq!(sum(d), want, "{name} offset {off} len {len}");
                }
            }
        }
    }

    /// Exact sums through the short path: the tail's 4-, 2- and 1-byte
    /// reads, a carry out of the top word, a word past the first 8 bytes.
    #[test]
    fn short_sum_exact_values() {
        assert_eq!(sum_short(&[]), 0);
        assert_eq!(sum_short(&[0xAB]), 0xAB00);
        assert_eq!(sum_short(&[1, 2, 3]), 0x0402);
        assert_eq!(sum_short(&[0xFF, 0xFF, 0, 1]), 0x0001);
        assert_eq!(sum_short(&[0x80; 9]), 0x8202);
        assert_eq!(sum_short(&[0xFF; 15]), 0xFF00);
        assert_eq!(sum_short(&[0xFF; 16]), 0xFFFF);
        let counting: Vec<u8> = (1..=127).collect();
        assert_eq!(sum_short(&counting), 0x0FD0);
        // RFC 1071's example and the classic IPv4 header (sum !0xb861).
        assert_eq!(
            sum_short(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]),
            0xddf2
        );
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(sum_short(&h), !0xb861);
    }

    /// Short parts at odd and even offsets of a range combine into its sum
    /// (each part summed by the short path, swapped when it starts odd).
    #[test]
    fn short_parts_at_odd_and_even_offsets_combine() {
        let data = prng_bytes(SIMD_MIN, 0xACE);
        for len in 0..=SIMD_MIN {
            let whole = slow_sum(&data[..len]);
            for cut in 0..=len {
                let (a, b) = data[..len].split_at(cut);
                assert_eq!(
                    add(sum_at(a, 0), sum_at(b, cut)),
                    whole,
                    "len {len} cut {cut}"
                );
            }
        }
    }

    /// The dispatching sum (AVX2 where the CPU has it) against the
    /// portable one and the word-at-a-time reference, on every size up to
    /// a 9216-byte jumbo frame at every start offset within a cache line
    /// (every alignment the kernel can meet), on random bytes and on
    /// all-ones bytes (every carry).
    #[test]
    fn simd_matches_portable_every_size_and_alignment() {
        const MAX: usize = 9216;
        const OFFSETS: usize = 64;
        for (data, name) in [
            (prng_bytes(MAX + OFFSETS, 0xC0FFEE), "random"),
            (vec![0xFF; MAX + OFFSETS], "ones"),
        ] {
            for off in 0..OFFSETS {
                for len in 0..=MAX {
                    let d = &data[off..off + len];
                    assert_eq!(sum(d), sum_portable(d), "{name} offset {off} len {len}");
                }
            }
            for len in (0..=MAX).step_by(61) {
                assert_eq!(
                    sum(&data[..len]),
                    slow_sum(&data[..len]),
                    "{name} len {len}"
                );
            }
        }
    }

    /// On a CPU with AVX2 the kernel takes the whole blocks of a range
    /// (so the test above compared two different paths there).
    #[test]
    fn simd_kernel_takes_whole_blocks_when_the_cpu_has_avx2() {
        let data = prng_bytes(1000, 5);
        match landspeed_sys::csum::sum_blocks(&data) {
            Some((acc, done)) => {
                assert!(landspeed_sys::csum::has_avx2());
                assert_eq!(done, 1000 - 1000 % landspeed_sys::csum::BLOCK);
                let reference = sum_portable(&data[..done]);
                assert_eq!(u16::from_be(fold128(u128::from(acc))), reference);
            }
            None => assert!(!landspeed_sys::csum::has_avx2()),
        }
    }

    #[test]
    fn split_combination_with_odd_offsets() {
        let data = prng_bytes(1001, 99);
        let whole = sum(&data);
        for cut in 0..data.len() {
            let (a, b) = data.split_at(cut);
            assert_eq!(add(sum_at(a, 0), sum_at(b, cut)), whole, "cut {cut}");
        }
    }

    #[test]
    fn incremental_updates_match_full_recompute() {
        let mut data = prng_bytes(64, 7);
        data[10] = 0;
        data[11] = 0;
        let c = checksum(&data);
        data[10..12].copy_from_slice(&c.to_be_bytes());
        for (off, width) in [(4usize, 2usize), (16, 4), (24, 8)] {
            let old = data[off..off + width].to_vec();
            let new = prng_bytes(width, off as u64 + 1000);
            let oc = u16::from_be_bytes([data[10], data[11]]);
            let nc = match width {
                2 => update16(
                    oc,
                    u16::from_be_bytes([old[0], old[1]]),
                    u16::from_be_bytes([new[0], new[1]]),
                ),
                4 => update32(
                    oc,
                    u32::from_be_bytes(old[..].try_into().unwrap()),
                    u32::from_be_bytes(new[..].try_into().unwrap()),
                ),
                _ => update64(
                    oc,
                    u64::from_be_bytes(old[..].try_into().unwrap()),
                    u64::from_be_bytes(new[..].try_into().unwrap()),
                ),
            };
            data[off..off + width].copy_from_slice(&new);
            data[10..12].copy_from_slice(&nc.to_be_bytes());
            assert!(verifies(sum(&data)));
        }
        // Odd-offset region update.
        let old = data[31..36].to_vec();
        let new = [1u8, 2, 3, 4, 5];
        let oc = u16::from_be_bytes([data[10], data[11]]);
        let nc = update_bytes(oc, &old, &new, true);
        data[31..36].copy_from_slice(&new);
        data[10..12].copy_from_slice(&nc.to_be_bytes());
        assert!(verifies(sum(&data)));
    }

    #[test]
    fn pseudo_headers() {
        let a = Ipv4Addr::new(192, 168, 0, 1);
        let b = Ipv4Addr::new(192, 168, 0, 199);
        let mut ph = Vec::new();
        ph.extend_from_slice(&a.octets());
        ph.extend_from_slice(&b.octets());
        ph.extend_from_slice(&[0, 17, 0x01, 0x23]);
        assert_eq!(pseudo_v4(a, b, 17, 0x0123), sum(&ph));

        let a6: Ipv6Addr = "2001:db8::1".parse().unwrap();
        let b6: Ipv6Addr = "fe80::dead:beef:1:2".parse().unwrap();
        let mut ph = Vec::new();
        ph.extend_from_slice(&a6.octets());
        ph.extend_from_slice(&b6.octets());
        ph.extend_from_slice(&0x0001_2345u32.to_be_bytes());
        ph.extend_from_slice(&[0, 0, 0, 6]);
        assert_eq!(pseudo_v6(&a6, &b6, 6, 0x0001_2345), sum(&ph));
    }
}
