//! MPLS label stack entries (RFC 3032): 32 bits each, after an Ethernet
//! header of EtherType 0x8847, the last one with its bottom-of-stack bit
//! set.

use super::{be32, need, put32, WireError};

/// EtherType of MPLS unicast.
pub const ETHERTYPE_MPLS: u16 = 0x8847;
/// EtherType of MPLS multicast (RFC 5332).
pub const ETHERTYPE_MPLS_MULTICAST: u16 = 0x8848;

/// The most labels a stack may carry here: deeper stacks are refused when
/// parsed (switch and router test suites use two to four).
pub const MAX_LABELS: usize = 8;

/// The largest label value (20 bits).
pub const LABEL_MAX: u32 = (1 << 20) - 1;

/// A view of one label stack entry over a byte buffer.
#[derive(Debug, Clone)]
pub struct MplsEntry<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> MplsEntry<T> {
    /// Length of an entry.
    pub const LEN: usize = 4;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking an entry fits.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        need("mpls entry", Self::LEN, buffer.as_ref().len())?;
        Ok(Self { buffer })
    }

    /// The entry as one 32-bit word.
    fn word(&self) -> u32 {
        be32(self.buffer.as_ref(), 0)
    }

    /// The label (20 bits).
    pub fn label(&self) -> u32 {
        self.word() >> 12
    }

    /// The traffic class (3 bits, formerly EXP).
    pub fn tc(&self) -> u8 {
        ((self.word() >> 9) & 0x7) as u8
    }

    /// The bottom-of-stack bit: the last entry.
    pub fn bottom(&self) -> bool {
        self.word() & 0x100 != 0
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        (self.word() & 0xFF) as u8
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> MplsEntry<T> {
    /// Sets every field; `label` is cut to 20 bits and `tc` to 3.
    pub fn set(&mut self, label: u32, tc: u8, bottom: bool, ttl: u8) {
        let w = ((label & LABEL_MAX) << 12)
            | (u32::from(tc & 0x7) << 9)
            | (u32::from(bottom) << 8)
            | u32::from(ttl);
        put32(self.buffer.as_mut(), 0, w);
    }
}

/// One label stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MplsLabel {
    /// Label value, 0..=[`LABEL_MAX`].
    pub label: u32,
    /// Traffic class, 0..=7.
    pub tc: u8,
    /// Time to live.
    pub ttl: u8,
}

/// A label stack, outermost label first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MplsRepr {
    /// The labels; the last one is sent with its bottom-of-stack bit.
    pub labels: Vec<MplsLabel>,
}

impl MplsRepr {
    /// The stack's length on the wire.
    pub fn header_len(&self) -> usize {
        self.labels.len() * MplsEntry::<&[u8]>::LEN
    }

    /// Parses the stack at the start of `b`, up to and with the entry
    /// whose bottom-of-stack bit is set: at most [`MAX_LABELS`] entries.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        let mut labels = Vec::new();
        for at in (0..).step_by(MplsEntry::<&[u8]>::LEN) {
            if labels.len() == MAX_LABELS {
                return Err(WireError::BadField {
                    field: "mpls.bottom_of_stack",
                    value: MAX_LABELS as u64,
                });
            }
            let e = MplsEntry::new_checked(b.get(at..).unwrap_or(&[]))?;
            labels.push(MplsLabel {
                label: e.label(),
                tc: e.tc(),
                ttl: e.ttl(),
            });
            if e.bottom() {
                return Ok(Self { labels });
            }
        }
        unreachable!("the loop returns within MAX_LABELS entries")
    }

    /// Writes the stack at the start of `b` (at least [`MplsRepr::header_len`]
    /// bytes), the last entry with its bottom-of-stack bit.
    pub fn emit(&self, b: &mut [u8]) {
        let n = self.labels.len();
        for (i, l) in self.labels.iter().enumerate() {
            let at = i * MplsEntry::<&[u8]>::LEN;
            let mut e = MplsEntry::new_unchecked(&mut b[at..at + MplsEntry::<&[u8]>::LEN]);
            e.set(l.label, l.tc, i + 1 == n, l.ttl);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_of_two_is_written_and_read_bit_for_bit() {
        let stack = MplsRepr {
            labels: vec![
                MplsLabel {
                    label: 16,
                    tc: 5,
                    ttl: 64,
                },
                MplsLabel {
                    label: LABEL_MAX,
                    tc: 0,
                    ttl: 1,
                },
            ],
        };
        let mut b = [0u8; 8];
        stack.emit(&mut b);
        // 16 << 12 | 5 << 9 | 64; then 0xFFFFF << 12 | bottom | 1.
        assert_eq!(b, [0x00, 0x01, 0x0A, 0x40, 0xFF, 0xFF, 0xF1, 0x01]);
        assert_eq!(MplsRepr::parse(&b).unwrap(), stack);
        assert_eq!(stack.header_len(), 8);
        let e = MplsEntry::new_checked(&b[4..]).unwrap();
        assert!(e.bottom() && !MplsEntry::new_checked(&b[..]).unwrap().bottom());
    }

    #[test]
    fn a_stack_without_its_bottom_is_refused() {
        let mut b = [0u8; 4 * (MAX_LABELS + 1)];
        let top = MplsRepr {
            labels: vec![MplsLabel {
                label: 3,
                tc: 0,
                ttl: 9,
            }],
        };
        top.emit(&mut b);
        assert_eq!(MplsRepr::parse(&b[..4]).unwrap(), top);
        b[2] &= !0x01; // clear the bottom-of-stack bit
        assert_eq!(
            MplsRepr::parse(&b[..4]),
            Err(WireError::Truncated {
                field: "mpls entry",
                need: 4,
                have: 0
            })
        );
        assert_eq!(
            MplsRepr::parse(&b),
            Err(WireError::BadField {
                field: "mpls.bottom_of_stack",
                value: MAX_LABELS as u64
            })
        );
        assert!(MplsRepr::parse(&[]).is_err());
    }
}
