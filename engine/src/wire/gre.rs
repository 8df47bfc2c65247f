//! GRE header (RFC 2784, with the key and sequence number of RFC 2890):
//! 4 bytes, then an optional checksum, key and sequence number, before the
//! inner IPv4, IPv6 or Ethernet (0x6558) packet.

use super::checksum;
use super::{be16, be32, need, put16, put32, WireError};

/// IP protocol number of GRE.
pub const IPPROTO_GRE: u8 = 47;

/// The protocol type of transparent Ethernet bridging (an Ethernet frame
/// inside GRE).
pub const PROTO_ETHERNET: u16 = 0x6558;

/// The C bit: a checksum follows.
const FLAG_C: u8 = 0x80;
/// The K bit: a key follows.
const FLAG_K: u8 = 0x20;
/// The S bit: a sequence number follows.
const FLAG_S: u8 = 0x10;

/// A GRE header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GreRepr {
    /// The protocol type of the payload (an EtherType).
    pub protocol: u16,
    /// A checksum over the header and payload is sent.
    pub checksum: bool,
    /// The key, if sent.
    pub key: Option<u32>,
    /// The sequence number, if sent.
    pub seq: Option<u32>,
}

impl GreRepr {
    /// The header's length on the wire: 4 bytes, and 4 for each of the
    /// checksum (with its reserved half), the key and the sequence number.
    pub fn header_len(&self) -> usize {
        4 + 4
            * (usize::from(self.checksum)
                + usize::from(self.key.is_some())
                + usize::from(self.seq.is_some()))
    }

    /// Parses the header at the start of `b` (the GRE packet): version 0,
    /// no bit set but C, K and S (RFC 2784 receivers discard others), and
    /// the checksum, when there is one, verified over `b` whole.
    pub fn parse(b: &[u8]) -> Result<Self, WireError> {
        Self::parse_with(b, true)
    }

    /// [`GreRepr::parse`] without verifying a checksum the header carries:
    /// what a receiver reads of a packet whose checksum failed.
    pub fn parse_unverified(b: &[u8]) -> Result<Self, WireError> {
        Self::parse_with(b, false)
    }

    /// Parses the header, verifying its checksum if `verify`.
    fn parse_with(b: &[u8], verify: bool) -> Result<Self, WireError> {
        need("gre header", 4, b.len())?;
        let (flags, version) = (b[0], b[1]);
        if flags & !(FLAG_C | FLAG_K | FLAG_S) != 0 {
            return Err(WireError::BadField {
                field: "gre.flags",
                value: u64::from(flags),
            });
        }
        if version != 0 {
            return Err(WireError::BadField {
                field: "gre.version",
                value: u64::from(version),
            });
        }
        let mut r = GreRepr {
            protocol: be16(b, 2),
            checksum: flags & FLAG_C != 0,
            key: None,
            seq: None,
        };
        let mut at = 4;
        if r.checksum {
            need("gre checksum", at + 4, b.len())?;
            if verify && !checksum::verifies(checksum::sum(b)) {
                return Err(WireError::Checksum {
                    field: "gre.checksum",
                });
            }
            at += 4;
        }
        if flags & FLAG_K != 0 {
            need("gre key", at + 4, b.len())?;
            r.key = Some(be32(b, at));
            at += 4;
        }
        if flags & FLAG_S != 0 {
            need("gre sequence", at + 4, b.len())?;
            r.seq = Some(be32(b, at));
        }
        Ok(r)
    }

    /// Writes the header at the start of `packet`, the GRE packet whole
    /// (header and payload, the payload in place already): with a checksum,
    /// it is computed over all of `packet`.
    pub fn emit(&self, packet: &mut [u8]) {
        let flags = if self.checksum { FLAG_C } else { 0 }
            | if self.key.is_some() { FLAG_K } else { 0 }
            | if self.seq.is_some() { FLAG_S } else { 0 };
        packet[0] = flags;
        packet[1] = 0;
        put16(packet, 2, self.protocol);
        let mut at = 4;
        if self.checksum {
            put32(packet, at, 0);
            at += 4;
        }
        if let Some(k) = self.key {
            put32(packet, at, k);
            at += 4;
        }
        if let Some(s) = self.seq {
            put32(packet, at, s);
        }
        if self.checksum {
            let c = checksum::finish(checksum::sum(packet));
            put16(packet, 4, c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_is_written_and_read_byte_for_byte() {
        let r = GreRepr {
            protocol: 0x0800,
            checksum: true,
            key: Some(0x0102_0304),
            seq: Some(7),
        };
        assert_eq!(r.header_len(), 16);
        let mut b = [0u8; 20];
        b[16..].copy_from_slice(&[0x45, 0, 0, 20]);
        r.emit(&mut b);
        // The checksum by hand: the 16-bit words 0xB000 0x0800 0x0102
        // 0x0304 0x0007 0x4500 0x0014 sum to 0x1_010D + 0x14, folded
        // 0x0122, complemented 0xFEDD.
        assert_eq!(
            b[..16],
            [0xB0, 0, 0x08, 0x00, 0xFE, 0xDD, 0, 0, 1, 2, 3, 4, 0, 0, 0, 7]
        );
        assert!(checksum::verifies(checksum::sum(&b)));
        assert_eq!(GreRepr::parse(&b).unwrap(), r);
        b[19] ^= 1;
        assert_eq!(
            GreRepr::parse(&b),
            Err(WireError::Checksum {
                field: "gre.checksum"
            })
        );
    }

    #[test]
    fn the_smallest_header_and_a_key_alone() {
        let plain = GreRepr {
            protocol: PROTO_ETHERNET,
            checksum: false,
            key: None,
            seq: None,
        };
        let mut b = [0xEEu8; 4];
        plain.emit(&mut b);
        assert_eq!(b, [0, 0, 0x65, 0x58]);
        assert_eq!(GreRepr::parse(&b).unwrap(), plain);
        let keyed = GreRepr {
            key: Some(0xDEAD_BEEF),
            ..plain
        };
        let mut b = [0u8; 8];
        keyed.emit(&mut b);
        assert_eq!(b, [0x20, 0, 0x65, 0x58, 0xDE, 0xAD, 0xBE, 0xEF]);
        assert_eq!(GreRepr::parse(&b).unwrap(), keyed);
        assert_eq!(keyed.header_len(), 8);
    }

    #[test]
    fn what_rfc_2784_receivers_discard_is_refused() {
        for (b, field, value) in [
            ([0x40u8, 0, 8, 0], "gre.flags", 0x40),
            ([0x08, 0, 8, 0], "gre.flags", 0x08),
            ([0, 1, 8, 0], "gre.version", 1),
            ([0, 0x80, 8, 0], "gre.version", 0x80),
        ] {
            assert_eq!(
                GreRepr::parse(&b),
                Err(WireError::BadField { field, value })
            );
        }
        assert!(
            GreRepr::parse(&[0x20, 0, 8, 0, 1, 2]).is_err(),
            "a key cut short"
        );
        assert!(
            GreRepr::parse(&[0x10, 0, 8, 0]).is_err(),
            "no sequence bytes"
        );
        assert!(GreRepr::parse(&[0x80, 0, 8]).is_err());
        // A checksum announced and cut short is a truncation, checked
        // before any sum, whether or not the checksum is verified.
        for b in [&[0x80u8, 0, 8, 0][..], &[0x80, 0, 8, 0, 0x77, 0x88, 0]] {
            let want = Err(WireError::Truncated {
                field: "gre checksum",
                need: 8,
                have: b.len(),
            });
            assert_eq!(GreRepr::parse(b), want);
            assert_eq!(GreRepr::parse_unverified(b), want);
        }
        // A checksum that fails: refused when verified, read when not.
        let b = [0x80u8, 0, 8, 0, 0x12, 0x34, 0, 0];
        assert_eq!(
            GreRepr::parse(&b),
            Err(WireError::Checksum {
                field: "gre.checksum"
            })
        );
        assert_eq!(
            GreRepr::parse_unverified(&b).map(|g| (g.checksum, g.protocol)),
            Ok((true, 0x0800))
        );
    }
}
