//! The payload stamp written right after the L4 header of every frame.
//!
//! Two layouts share a 3-byte prefix (magic `0x4C53`, "LS", then a format
//! byte whose high nibble is the version and low nibble the layout):
//!
//! * full (format `0x11`, 32 bytes): 32-bit stream id, 64-bit sequence,
//!   64-bit TX TSC, fill length and fill checksum, stamp check;
//! * compact (format `0x12`, 18 bytes): 16-bit stream id, 48-bit sequence,
//!   40-bit TX TSC, and a check that covers the stamp *and* the fill.
//!
//! Version 2 (formats `0x21` and `0x22`) has the same layouts; its time
//! field holds nanoseconds of a clock both hosts keep synchronised
//! ([`StampTime::ClockNs`]) instead of the sender's TSC. Version-1 stamps
//! parse as before.
//!
//! The stamp check is an Internet checksum, so the whole stamp sums to
//! 0xFFFF and contributes nothing to the L4 checksum, and patching the TSC
//! is an O(1) RFC 1624 update. Byte layout: `docs/wire-format.md`.

use super::checksum;
use super::{be16, put16, put32};

/// Magic value at stamp offset 0 ("LS").
pub const MAGIC: u16 = 0x4C53;
/// Format byte of the full layout (version 1, layout 1).
pub const FORMAT_FULL: u8 = 0x11;
/// Format byte of the compact layout (version 1, layout 2).
pub const FORMAT_COMPACT: u8 = 0x12;
/// Format byte of the full layout with clock nanoseconds (version 2, layout 1).
pub const FORMAT_FULL_V2: u8 = 0x21;
/// Format byte of the compact layout with clock nanoseconds (version 2, layout 2).
pub const FORMAT_COMPACT_V2: u8 = 0x22;
/// Length of the full stamp.
pub const FULL_LEN: usize = 32;
/// Length of the compact stamp.
pub const COMPACT_LEN: usize = 18;
/// Bits of stream id carried by the compact stamp.
pub const COMPACT_ID_BITS: u32 = 16;
/// Bits of sequence number carried by the compact stamp.
pub const COMPACT_SEQ_BITS: u32 = 48;
/// Bits of TX TSC carried by the compact stamp.
pub const COMPACT_TSC_BITS: u32 = 40;

/// Byte offsets of the stamp's fields (docs/wire-format.md).
pub mod field {
    /// The full layout ([`FULL_LEN`](super::FULL_LEN) bytes).
    pub mod full {
        /// Stream id (32 bits).
        pub const ID: usize = 4;
        /// Sequence number (64 bits).
        pub const SEQ: usize = 8;
        /// Departure time (64 bits).
        pub const TSC: usize = 16;
        /// Fill length (16 bits).
        pub const FILL_LEN: usize = 24;
        /// Fill checksum (16 bits).
        pub const FILL_CSUM: usize = 26;
        /// The stamp's own check (16 bits).
        pub const CHECK: usize = 28;
    }
    /// The compact layout ([`COMPACT_LEN`](super::COMPACT_LEN) bytes).
    pub mod compact {
        /// Stream id (16 bits).
        pub const ID: usize = 3;
        /// Sequence number (48 bits).
        pub const SEQ: usize = 5;
        /// Departure time (40 bits).
        pub const TSC: usize = 11;
        /// The stamp's own check (16 bits).
        pub const CHECK: usize = 16;
    }
}

/// Which stamp layout a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StampLayout {
    /// 32 bytes, full-width fields.
    Full,
    /// 18 bytes, truncated fields, for payloads of 18..=31 bytes.
    Compact,
}

impl StampLayout {
    /// Layout used for an L4 payload of `payload_len` bytes, if any fits.
    pub fn for_payload(payload_len: usize) -> Option<StampLayout> {
        if payload_len >= FULL_LEN {
            Some(StampLayout::Full)
        } else if payload_len >= COMPACT_LEN {
            Some(StampLayout::Compact)
        } else {
            None
        }
    }

    /// Length in bytes.
    pub fn len(self) -> usize {
        match self {
            StampLayout::Full => FULL_LEN,
            StampLayout::Compact => COMPACT_LEN,
        }
    }

    /// Always false (a stamp is never empty); pairs with [`len`](Self::len).
    pub fn is_empty(self) -> bool {
        false
    }

    /// Format byte of a version-1 (TSC) stamp.
    pub fn format(self) -> u8 {
        self.format_for(StampTime::Tsc)
    }

    /// Format byte of a stamp whose time field holds `time`.
    pub fn format_for(self, time: StampTime) -> u8 {
        match (self, time) {
            (StampLayout::Full, StampTime::Tsc) => FORMAT_FULL,
            (StampLayout::Compact, StampTime::Tsc) => FORMAT_COMPACT,
            (StampLayout::Full, StampTime::ClockNs) => FORMAT_FULL_V2,
            (StampLayout::Compact, StampTime::ClockNs) => FORMAT_COMPACT_V2,
        }
    }

    /// The layout and time of format byte `fmt`, if it is known.
    pub fn of_format(fmt: u8) -> Option<(StampLayout, StampTime)> {
        Some(match fmt {
            FORMAT_FULL => (StampLayout::Full, StampTime::Tsc),
            FORMAT_COMPACT => (StampLayout::Compact, StampTime::Tsc),
            FORMAT_FULL_V2 => (StampLayout::Full, StampTime::ClockNs),
            FORMAT_COMPACT_V2 => (StampLayout::Compact, StampTime::ClockNs),
            _ => return None,
        })
    }

    /// Bits of the stream id carried.
    pub fn id_bits(self) -> u32 {
        match self {
            StampLayout::Full => 32,
            StampLayout::Compact => COMPACT_ID_BITS,
        }
    }

    /// Bits of the sequence number carried.
    pub fn seq_bits(self) -> u32 {
        match self {
            StampLayout::Full => 64,
            StampLayout::Compact => COMPACT_SEQ_BITS,
        }
    }

    /// Bits of the TX TSC carried.
    pub fn tsc_bits(self) -> u32 {
        match self {
            StampLayout::Full => 64,
            StampLayout::Compact => COMPACT_TSC_BITS,
        }
    }
}

/// What a stamp's time field counts (its format version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StampTime {
    /// Version 1: the sender's TSC ticks (one-way latency only where the
    /// receiver reads the same TSC).
    #[default]
    Tsc,
    /// Version 2: nanoseconds of the synchronised clock the sender maps its
    /// TSC onto (docs/two-host.md).
    ClockNs,
}

/// Errors decoding a stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum StampError {
    /// The payload ends before the stamp does.
    #[error("stamp: payload of {have} bytes is shorter than the {need}-byte stamp")]
    TooShort {
        /// Bytes required.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// No magic at offset 0: not a frame of ours.
    #[error("stamp.magic: {0:#06x} is not 0x4c53")]
    BadMagic(u16),
    /// Magic matches but the format byte is unknown.
    #[error("stamp.format: unknown version/layout byte {0:#04x}")]
    UnknownVersion(u8),
    /// The stamp check does not verify: the stamp (or, compact, the fill) is corrupt.
    #[error("stamp.check: stamp checksum failed")]
    CheckFailed,
}

/// The decoded contents of a stamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Layout carried.
    pub layout: StampLayout,
    /// Stream id (compact: only the low 16 bits are carried).
    pub stream_id: u32,
    /// Sequence number (compact: low 48 bits).
    pub seq: u64,
    /// TX time (compact: low 40 bits): the TSC (version 1) or clock
    /// nanoseconds (version 2), as `time` says.
    pub tx_tsc: u64,
    /// What `tx_tsc` counts.
    pub time: StampTime,
    /// Length of the fill after the stamp.
    pub fill_len: u16,
    /// Internet checksum (complemented sum) of the fill; 0xFFFF for no fill.
    /// Carried in the full layout; folded into the check in the compact one.
    pub fill_csum: u16,
}

/// The `N` bytes of stamp `b` from `off`: with `off` a constant the
/// bounds are checked at compile time.
#[inline(always)]
fn at<const N: usize, const L: usize>(b: &[u8; L], off: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&b[off..off + N]);
    out
}

#[inline(always)]
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl Stamp {
    /// Writes the stamp at `payload[0..]`, where `payload` is the whole L4
    /// payload (stamp + fill). Fields wider than the layout are truncated.
    /// Returns the stamp length, or `None` if `payload` is too short.
    pub fn emit(&self, payload: &mut [u8]) -> Option<usize> {
        let n = self.layout.len();
        let b = payload.get_mut(..n)?;
        put16(b, 0, MAGIC);
        b[2] = self.layout.format_for(self.time);
        match self.layout {
            StampLayout::Full => {
                b[3] = 0;
                put32(b, field::full::ID, self.stream_id);
                b[field::full::SEQ..field::full::SEQ + 8].copy_from_slice(&self.seq.to_be_bytes());
                b[field::full::TSC..field::full::TSC + 8]
                    .copy_from_slice(&self.tx_tsc.to_be_bytes());
                put16(b, field::full::FILL_LEN, self.fill_len);
                put16(b, field::full::FILL_CSUM, self.fill_csum);
                put16(b, field::full::CHECK, 0);
                put16(b, 30, 0);
                let c = checksum::checksum(b);
                put16(b, field::full::CHECK, c);
            }
            StampLayout::Compact => {
                put16(b, field::compact::ID, self.stream_id as u16);
                b[field::compact::SEQ..field::compact::SEQ + 6]
                    .copy_from_slice(&self.seq.to_be_bytes()[2..]);
                b[field::compact::TSC..field::compact::TSC + 5]
                    .copy_from_slice(&self.tx_tsc.to_be_bytes()[3..]);
                put16(b, field::compact::CHECK, 0);
                // The fill starts at an even offset (18): its sum adds as is.
                let s = checksum::add(checksum::sum(b), !self.fill_csum);
                put16(b, field::compact::CHECK, checksum::finish(s));
            }
        }
        Some(n)
    }

    /// Decodes and verifies the stamp at the start of `payload` (the whole
    /// L4 payload). For the compact layout the check covers the whole
    /// payload; `fill_len`/`fill_csum` are then computed from it.
    ///
    /// A stamp that parses sums to 0xFFFF over the bytes its check covers
    /// (the stamp in the full layout, the whole payload in the compact
    /// one): a caller that verifies a checksum over those bytes too (the
    /// L4 checksum) adds 0xFFFF for them instead of summing them again.
    /// The fields are read from fixed-size views of the stamp (no bounds
    /// checks), and every byte of the stamp (and of a compact fill) is
    /// summed once.
    #[inline(always)]
    pub fn parse(payload: &[u8]) -> Result<Stamp, StampError> {
        let Some(&[m0, m1, fmt]) = payload.first_chunk::<3>() else {
            if let Some(&[m0, m1]) = payload.first_chunk::<2>() {
                let m = u16::from_be_bytes([m0, m1]);
                if m != MAGIC {
                    return Err(StampError::BadMagic(m));
                }
            }
            return Err(StampError::TooShort {
                need: COMPACT_LEN,
                have: payload.len(),
            });
        };
        let m = u16::from_be_bytes([m0, m1]);
        if m != MAGIC {
            return Err(StampError::BadMagic(m));
        }
        let Some((layout, time)) = StampLayout::of_format(fmt) else {
            return Err(StampError::UnknownVersion(fmt));
        };
        let too_short = |need| StampError::TooShort {
            need,
            have: payload.len(),
        };
        match layout {
            StampLayout::Full => {
                let b = payload
                    .first_chunk::<FULL_LEN>()
                    .ok_or_else(|| too_short(FULL_LEN))?;
                if !checksum::verifies(checksum::sum_short(b)) {
                    return Err(StampError::CheckFailed);
                }
                Ok(Stamp {
                    layout,
                    stream_id: u32::from_be_bytes(at(b, field::full::ID)),
                    seq: u64::from_be_bytes(at(b, field::full::SEQ)),
                    tx_tsc: u64::from_be_bytes(at(b, field::full::TSC)),
                    time,
                    fill_len: u16::from_be_bytes(at(b, field::full::FILL_LEN)),
                    fill_csum: u16::from_be_bytes(at(b, field::full::FILL_CSUM)),
                })
            }
            StampLayout::Compact => {
                let (b, fill) = payload
                    .split_first_chunk::<COMPACT_LEN>()
                    .ok_or_else(|| too_short(COMPACT_LEN))?;
                // The check covers stamp and fill; the fill starts at an
                // even offset (18), so their sums add as they are, and the
                // fill's own sum gives its checksum.
                // (A compact stamp's fill is under 14 bytes.)
                let fill_sum = checksum::sum_short(fill);
                if !checksum::verifies(checksum::add(checksum::sum_short(b), fill_sum)) {
                    return Err(StampError::CheckFailed);
                }
                // The 48-bit sequence and the 40-bit TSC are the low bytes
                // of the 8-byte big-endian words that end where they end.
                let seq =
                    u64::from_be_bytes(at(b, field::compact::SEQ + 6 - 8)) & mask(COMPACT_SEQ_BITS);
                let tsc =
                    u64::from_be_bytes(at(b, field::compact::TSC + 5 - 8)) & mask(COMPACT_TSC_BITS);
                Ok(Stamp {
                    layout,
                    stream_id: u32::from(u16::from_be_bytes(at(b, field::compact::ID))),
                    seq,
                    tx_tsc: tsc,
                    time,
                    fill_len: fill.len() as u16,
                    fill_csum: checksum::finish(fill_sum),
                })
            }
        }
    }

    /// Replaces the TX TSC of the stamp at the start of `payload` and fixes
    /// the stamp check incrementally (O(1), RFC 1624). The stamp's total sum
    /// stays 0xFFFF, so the L4 checksum needs no change. Returns false (and
    /// writes nothing) if `payload` does not start with a known stamp.
    pub fn patch_tsc(payload: &mut [u8], tx_tsc: u64) -> bool {
        if payload.len() < COMPACT_LEN || be16(payload, 0) != MAGIC {
            return false;
        }
        match StampLayout::of_format(payload[2]).map(|f| f.0) {
            Some(StampLayout::Full) if payload.len() >= FULL_LEN => {
                let old = u64::from_be_bytes(
                    payload[field::full::TSC..field::full::TSC + 8]
                        .try_into()
                        .unwrap_or([0; 8]),
                );
                let c = checksum::update64(be16(payload, field::full::CHECK), old, tx_tsc);
                payload[field::full::TSC..field::full::TSC + 8]
                    .copy_from_slice(&tx_tsc.to_be_bytes());
                put16(payload, field::full::CHECK, c);
                true
            }
            Some(StampLayout::Compact) => {
                // TSC occupies bytes 11..16; update over the even-aligned window 10..16.
                let mut old = [0u8; 6];
                old.copy_from_slice(&payload[10..16]);
                payload[field::compact::TSC..field::compact::TSC + 5]
                    .copy_from_slice(&tx_tsc.to_be_bytes()[3..]);
                let c = checksum::update_bytes(
                    be16(payload, field::compact::CHECK),
                    &old,
                    &payload[10..16],
                    false,
                );
                put16(payload, field::compact::CHECK, c);
                true
            }
            _ => false,
        }
    }
}

/// Extends a truncated counter (`bits` low bits of the true value, e.g. a
/// compact stamp's 48-bit sequence or 40-bit TSC) to the full 64-bit value
/// closest to `reference` (the last extended sequence, or the receiver's
/// current TSC).
pub fn extend(truncated: u64, bits: u32, reference: u64) -> u64 {
    if bits >= 64 {
        return truncated;
    }
    let m = mask(bits);
    let half = 1u64 << (bits - 1);
    let cand = (reference & !m) | (truncated & m);
    if cand > reference && cand - reference > half && cand > m {
        cand - (m + 1)
    } else if cand < reference && reference - cand > half {
        cand.checked_add(m + 1).unwrap_or(cand)
    } else {
        cand
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full() -> Stamp {
        Stamp {
            layout: StampLayout::Full,
            stream_id: 0x0102_0304,
            seq: 0x1122_3344_5566_7788,
            tx_tsc: 0x99AA_BBCC_DDEE_FF00,
            time: StampTime::Tsc,
            fill_len: 4,
            fill_csum: checksum::checksum(&[0xDE, 0xAD, 0xBE, 0xEF]),
        }
    }

    #[test]
    fn full_exact_bytes_round_trip() {
        let mut p = [0u8; 36];
        p[32..].copy_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(full().emit(&mut p), Some(32));
        let fc = !(0xDEADu16.wrapping_add(0xBEEF).wrapping_add(1)); // DEAD+BEEF = 0x19D9C -> 9D9D
        assert_eq!(fc, 0x6262);
        let want_prefix = [
            0x4C, 0x53, 0x11, 0x00, 1, 2, 3, 4, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
            0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x00, 0x00, 0x04, 0x62, 0x62,
        ];
        assert_eq!(p[..28], want_prefix);
        assert_eq!(p[30..32], [0, 0]);
        assert!(checksum::verifies(checksum::sum(&p[..32])));
        assert_eq!(Stamp::parse(&p).unwrap(), full());
    }

    #[test]
    fn compact_exact_bytes_round_trip() {
        let fill = [7u8, 8, 9];
        let s = Stamp {
            layout: StampLayout::Compact,
            stream_id: 0xABCD,
            seq: 0x0001_0203_0405_0607,
            tx_tsc: 0x1122_3344_5566_7788,
            time: StampTime::Tsc,
            fill_len: 3,
            fill_csum: checksum::checksum(&fill),
        };
        let mut p = [0u8; 21];
        p[18..].copy_from_slice(&fill);
        assert_eq!(s.emit(&mut p), Some(18));
        assert_eq!(
            p[..16],
            [
                0x4C, 0x53, 0x12, 0xAB, 0xCD, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x44, 0x55, 0x66,
                0x77, 0x88
            ]
        );
        assert!(checksum::verifies(checksum::sum(&p)));
        let d = Stamp::parse(&p).unwrap();
        assert_eq!(d.seq, 0x0203_0405_0607);
        assert_eq!(d.tx_tsc, 0x44_5566_7788);
        assert_eq!(
            (d.stream_id, d.fill_len, d.fill_csum),
            (0xABCD, 3, s.fill_csum)
        );
        // The compact check covers the fill.
        p[20] ^= 0x10;
        assert_eq!(Stamp::parse(&p), Err(StampError::CheckFailed));
    }

    #[test]
    fn errors() {
        let mut p = [0u8; 32];
        full().emit(&mut p);
        assert!(matches!(
            Stamp::parse(&p[..1]),
            Err(StampError::TooShort { .. })
        ));
        assert!(matches!(
            Stamp::parse(&p[..2]),
            Err(StampError::TooShort { .. })
        ));
        assert!(matches!(
            Stamp::parse(&p[..31]),
            Err(StampError::TooShort { need: 32, .. })
        ));
        let mut q = p;
        q[1] = 0;
        assert_eq!(Stamp::parse(&q), Err(StampError::BadMagic(0x4C00)));
        let mut q = p;
        q[2] = 0x31;
        assert_eq!(Stamp::parse(&q), Err(StampError::UnknownVersion(0x31)));
        for i in 3..32 {
            let mut q = p;
            q[i] ^= 0x04;
            assert_eq!(Stamp::parse(&q), Err(StampError::CheckFailed), "byte {i}");
        }
    }

    #[test]
    fn two_bytes_are_enough_to_refuse_a_wrong_magic() {
        assert_eq!(
            Stamp::parse(&[0x12, 0x34]),
            Err(StampError::BadMagic(0x1234))
        );
        assert_eq!(
            Stamp::parse(&[0x4C, 0x53]),
            Err(StampError::TooShort {
                need: COMPACT_LEN,
                have: 2
            })
        );
    }

    #[test]
    fn patch_tsc_keeps_check_and_sum() {
        let mut p = [0u8; 40];
        full().emit(&mut p);
        let before = checksum::sum(&p[..32]);
        assert!(Stamp::patch_tsc(&mut p, 0x0123_4567_89AB_CDEF));
        assert_eq!(Stamp::parse(&p).unwrap().tx_tsc, 0x0123_4567_89AB_CDEF);
        assert_eq!(checksum::sum(&p[..32]), before);

        let mut c = [0u8; 25];
        c[18..].copy_from_slice(&[1, 2, 3, 4, 5, 6, 7]);
        let s = Stamp {
            layout: StampLayout::Compact,
            stream_id: 1,
            seq: 2,
            tx_tsc: 3,
            time: StampTime::Tsc,
            fill_len: 7,
            fill_csum: checksum::checksum(&c[18..]),
        };
        s.emit(&mut c);
        assert!(Stamp::patch_tsc(&mut c, 0xFFFF_FFFF_FFFF));
        assert_eq!(Stamp::parse(&c).unwrap().tx_tsc, 0xFF_FFFF_FFFF);
        assert!(!Stamp::patch_tsc(&mut [0u8; 40], 1));
    }

    #[test]
    fn version_2_carries_clock_nanoseconds_and_version_1_still_parses() {
        // A version-1 frame as an older build wrote it, byte for byte.
        let mut v1 = [0u8; 36];
        v1[32..].copy_from_slice(&[0xDE, 0xAD, 0xBE, 0xEF]);
        full().emit(&mut v1);
        assert_eq!(v1[2], 0x11);
        let d = Stamp::parse(&v1).unwrap();
        assert_eq!((d.time, d.tx_tsc), (StampTime::Tsc, 0x99AA_BBCC_DDEE_FF00));

        // Version 2: the same bytes but the format and the check.
        let ns = 1_764_633_600_123_456_789u64;
        let s2 = Stamp {
            time: StampTime::ClockNs,
            tx_tsc: ns,
            ..full()
        };
        let mut v2 = v1;
        assert_eq!(s2.emit(&mut v2), Some(32));
        assert_eq!(v2[2], 0x21);
        assert_eq!(v2[16..24], ns.to_be_bytes());
        assert_eq!(v2[3..16], v1[3..16]);
        assert_eq!(Stamp::parse(&v2).unwrap(), s2);
        assert!(Stamp::patch_tsc(&mut v2, ns + 5));
        let p = Stamp::parse(&v2).unwrap();
        assert_eq!((p.time, p.tx_tsc), (StampTime::ClockNs, ns + 5));

        let mut c = [0u8; 20];
        let sc = Stamp {
            layout: StampLayout::Compact,
            time: StampTime::ClockNs,
            tx_tsc: ns,
            fill_len: 2,
            fill_csum: 0xFFFF,
            ..full()
        };
        sc.emit(&mut c);
        assert_eq!(c[2], 0x22);
        let p = Stamp::parse(&c).unwrap();
        assert_eq!(
            (p.time, p.tx_tsc),
            (StampTime::ClockNs, ns & ((1 << 40) - 1))
        );
        assert!(Stamp::patch_tsc(&mut c, ns + 9));
        assert_eq!(Stamp::parse(&c).unwrap().tx_tsc, (ns + 9) & ((1 << 40) - 1));
        assert_eq!(
            StampLayout::of_format(0x22),
            Some((StampLayout::Compact, StampTime::ClockNs))
        );
        assert_eq!(StampLayout::of_format(0x13), None);
    }

    #[test]
    fn extend_truncated() {
        let b = 48;
        assert_eq!(extend(5, b, 3), 5);
        let m = 1u64 << 48;
        assert_eq!(extend(2, b, 3 * m - 1), 3 * m + 2); // wrapped forward
        assert_eq!(extend(m - 1, b, 3 * m + 1), 3 * m - 1); // slightly behind
        assert_eq!(extend(m - 1, b, 0), m - 1);
        assert_eq!(extend(7, 64, 99), 7);
        assert_eq!(extend(0xFF_FFFF_FFFF, 40, 1u64 << 41), (1u64 << 41) - 1);
    }
}
