//! IPv4 header (RFC 791). Emits 20-byte headers; parses and skips options.

use std::net::Ipv4Addr;

use super::checksum;
use super::{be16, need, put16, WireError};

/// Byte offsets of the header's fields (smoltcp's `mod field`).
pub mod field {
    use std::ops::Range;
    /// Total length (16 bits).
    pub const TOTAL_LEN: usize = 2;
    /// Identification (16 bits).
    pub const IDENT: usize = 4;
    /// Flags and fragment offset (16 bits).
    pub const FLAGS_FRAG: usize = 6;
    /// Header checksum (16 bits).
    pub const CHECKSUM: usize = 10;
    /// Source address.
    pub const SRC: Range<usize> = 12..16;
    /// Destination address.
    pub const DST: Range<usize> = 16..20;
}

/// A view of an IPv4 packet over a byte buffer.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

/// "Don't fragment" flag bit in the flags/fragment-offset word.
const DF: u16 = 0x4000;
/// "More fragments" flag bit.
const MF: u16 = 0x2000;

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    /// Length of a header without options.
    pub const MIN_HEADER_LEN: usize = 20;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking version 4, IHL ≥ 5, that the header fits
    /// and that `total_len` covers the header and fits in the buffer (the
    /// buffer may be longer: Ethernet padding).
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let p = Self { buffer };
        let len = p.buffer.as_ref().len();
        need("ipv4 header", Self::MIN_HEADER_LEN, len)?;
        if p.version() != 4 {
            return Err(WireError::BadField {
                field: "ipv4.version",
                value: u64::from(p.version()),
            });
        }
        let hl = p.header_len();
        if hl < Self::MIN_HEADER_LEN {
            return Err(WireError::BadField {
                field: "ipv4.ihl",
                value: (hl / 4) as u64,
            });
        }
        need("ipv4 options", hl, len)?;
        let tl = usize::from(p.total_len());
        if tl < hl {
            return Err(WireError::BadField {
                field: "ipv4.total_len",
                value: tl as u64,
            });
        }
        need("ipv4.total_len", tl, len)?;
        Ok(p)
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Version field (4).
    pub fn version(&self) -> u8 {
        self.b()[0] >> 4
    }

    /// Header length in bytes (IHL × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.b()[0] & 0x0F) * 4
    }

    /// Differentiated services code point (6 bits).
    pub fn dscp(&self) -> u8 {
        self.b()[1] >> 2
    }

    /// Explicit congestion notification (2 bits).
    pub fn ecn(&self) -> u8 {
        self.b()[1] & 3
    }

    /// Total length (header + payload).
    pub fn total_len(&self) -> u16 {
        be16(self.b(), field::TOTAL_LEN)
    }

    /// Identification.
    pub fn ident(&self) -> u16 {
        be16(self.b(), field::IDENT)
    }

    /// Don't-fragment flag.
    pub fn dont_fragment(&self) -> bool {
        be16(self.b(), field::FLAGS_FRAG) & DF != 0
    }

    /// More-fragments flag.
    pub fn more_fragments(&self) -> bool {
        be16(self.b(), field::FLAGS_FRAG) & MF != 0
    }

    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        be16(self.b(), field::FLAGS_FRAG) & 0x1FFF
    }

    /// Time to live.
    pub fn ttl(&self) -> u8 {
        self.b()[8]
    }

    /// Protocol of the payload.
    pub fn protocol(&self) -> u8 {
        self.b()[9]
    }

    /// Header checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }

    /// Source address.
    pub fn src(&self) -> Ipv4Addr {
        let b = self.b();
        Ipv4Addr::new(b[12], b[13], b[14], b[15])
    }

    /// Destination address.
    pub fn dst(&self) -> Ipv4Addr {
        let b = self.b();
        Ipv4Addr::new(b[16], b[17], b[18], b[19])
    }

    /// True if the header checksum (options included) verifies.
    pub fn verify_checksum(&self) -> bool {
        let b = self.b();
        let hl = self.header_len().min(b.len());
        // A header is at most 60 bytes; one without options, through a
        // fixed-size view, is summed in straight-line code.
        let sum = match b.first_chunk::<20>() {
            Some(h) if hl == 20 => checksum::sum_short(h),
            _ => checksum::sum_short(&b[..hl]),
        };
        checksum::verifies(sum)
    }

    /// Payload bytes, delimited by `total_len` (Ethernet padding excluded).
    pub fn payload(&self) -> &[u8] {
        let hl = self.header_len();
        let tl = usize::from(self.total_len()).min(self.b().len());
        self.b().get(hl..tl).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets version 4 and the header length (multiple of 4, 20..=60).
    pub fn set_version_ihl(&mut self, header_len: usize) {
        self.bm()[0] = 0x40 | ((header_len / 4) as u8 & 0x0F);
    }

    /// Sets DSCP and ECN.
    pub fn set_dscp_ecn(&mut self, dscp: u8, ecn: u8) {
        self.bm()[1] = (dscp << 2) | (ecn & 3);
    }

    /// Sets the total length.
    pub fn set_total_len(&mut self, v: u16) {
        put16(self.bm(), field::TOTAL_LEN, v)
    }

    /// Sets the identification.
    pub fn set_ident(&mut self, v: u16) {
        put16(self.bm(), field::IDENT, v)
    }

    /// Sets flags (DF only; MF clear) and a zero fragment offset.
    pub fn set_dont_fragment(&mut self, df: bool) {
        put16(self.bm(), field::FLAGS_FRAG, if df { DF } else { 0 })
    }

    /// Sets the TTL.
    pub fn set_ttl(&mut self, v: u8) {
        self.bm()[8] = v;
    }

    /// Sets the protocol.
    pub fn set_protocol(&mut self, v: u8) {
        self.bm()[9] = v;
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.bm(), field::CHECKSUM, v)
    }

    /// Sets the source address.
    pub fn set_src(&mut self, a: Ipv4Addr) {
        self.bm()[field::SRC].copy_from_slice(&a.octets());
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, a: Ipv4Addr) {
        self.bm()[field::DST].copy_from_slice(&a.octets());
    }

    /// Computes and stores the header checksum.
    pub fn fill_checksum(&mut self) {
        self.set_checksum(0);
        let hl = self.header_len().min(self.b().len());
        let c = checksum::checksum(&self.b()[..hl]);
        self.set_checksum(c);
    }
}

/// High-level representation of an IPv4 header without options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv4Repr {
    /// Source address.
    pub src: Ipv4Addr,
    /// Destination address.
    pub dst: Ipv4Addr,
    /// Payload protocol (17 UDP, 6 TCP).
    pub protocol: u8,
    /// Payload length (total length minus header length).
    pub payload_len: usize,
    /// DSCP, 0..=63.
    pub dscp: u8,
    /// ECN, 0..=3.
    pub ecn: u8,
    /// Time to live.
    pub ttl: u8,
    /// Identification.
    pub ident: u16,
    /// Don't-fragment flag.
    pub dont_fragment: bool,
}

impl Ipv4Repr {
    /// Length of the emitted header.
    pub const LEN: usize = 20;

    /// Parses a checked view; rejects fragments and, if `verify_checksum`,
    /// a header whose checksum does not verify.
    pub fn parse<T: AsRef<[u8]>>(
        p: &Ipv4Packet<T>,
        verify_checksum: bool,
    ) -> Result<Self, WireError> {
        if p.more_fragments() || p.frag_offset() != 0 {
            return Err(WireError::BadField {
                field: "ipv4.fragment",
                value: u64::from(be16(p.b(), field::FLAGS_FRAG)),
            });
        }
        if verify_checksum && !p.verify_checksum() {
            return Err(WireError::Checksum {
                field: "ipv4.checksum",
            });
        }
        Ok(Self {
            src: p.src(),
            dst: p.dst(),
            protocol: p.protocol(),
            payload_len: usize::from(p.total_len()).saturating_sub(p.header_len()),
            dscp: p.dscp(),
            ecn: p.ecn(),
            ttl: p.ttl(),
            ident: p.ident(),
            dont_fragment: p.dont_fragment(),
        })
    }

    /// Writes a 20-byte header. With `checksum` false the checksum field is
    /// left 0 (for NIC offload). The view must hold at least 20 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>, checksum: bool) {
        p.set_version_ihl(Self::LEN);
        p.set_dscp_ecn(self.dscp, self.ecn);
        p.set_total_len((Self::LEN + self.payload_len) as u16);
        p.set_ident(self.ident);
        p.set_dont_fragment(self.dont_fragment);
        p.set_ttl(self.ttl);
        p.set_protocol(self.protocol);
        p.set_src(self.src);
        p.set_dst(self.dst);
        p.set_checksum(0);
        if checksum {
            p.fill_checksum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HDR: [u8; 20] = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00,
        0x01, 0xc0, 0xa8, 0x00, 0xc7,
    ];

    fn repr() -> Ipv4Repr {
        Ipv4Repr {
            src: Ipv4Addr::new(192, 168, 0, 1),
            dst: Ipv4Addr::new(192, 168, 0, 199),
            protocol: 17,
            payload_len: 0x73 - 20,
            dscp: 0,
            ecn: 0,
            ttl: 64,
            ident: 0,
            dont_fragment: true,
        }
    }

    #[test]
    fn emit_exact_bytes_and_parse() {
        let mut b = [0u8; 0x73];
        repr().emit(&mut Ipv4Packet::new_unchecked(&mut b[..]), true);
        assert_eq!(b[..20], HDR);
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert_eq!(Ipv4Repr::parse(&p, true).unwrap(), repr());
        assert_eq!(p.payload().len(), 0x73 - 20);
    }

    #[test]
    fn options_are_skipped() {
        // IHL 6 (4 bytes of NOP options), total 28 with 4 bytes of payload.
        let mut b = [0u8; 30];
        b[..20].copy_from_slice(&HDR);
        b[0] = 0x46;
        b[2..4].copy_from_slice(&28u16.to_be_bytes());
        b[20..24].copy_from_slice(&[1, 1, 1, 0]);
        b[24..28].copy_from_slice(&[9, 8, 7, 6]);
        let mut p = Ipv4Packet::new_checked(&mut b[..]).unwrap();
        p.fill_checksum();
        let p = Ipv4Packet::new_checked(&b[..]).unwrap();
        assert!(p.verify_checksum());
        assert_eq!(p.payload(), &[9, 8, 7, 6]);
        assert_eq!(Ipv4Repr::parse(&p, true).unwrap().payload_len, 4);
    }

    #[test]
    fn rejects_bad_headers() {
        let mut b = HDR.to_vec();
        b.resize(0x73, 0);
        assert!(Ipv4Packet::new_checked(&b[..0x72]).is_err()); // total_len beyond buffer
        assert!(Ipv4Packet::new_checked(&b[..19]).is_err());
        let mut v = b.clone();
        v[0] = 0x65;
        assert!(matches!(
            Ipv4Packet::new_checked(&v[..]),
            Err(WireError::BadField {
                field: "ipv4.version",
                ..
            })
        ));
        v[0] = 0x44;
        assert!(matches!(
            Ipv4Packet::new_checked(&v[..]),
            Err(WireError::BadField {
                field: "ipv4.ihl",
                ..
            })
        ));
        let mut c = b.clone();
        c[11] ^= 1;
        let p = Ipv4Packet::new_checked(&c[..]).unwrap();
        assert_eq!(
            Ipv4Repr::parse(&p, true),
            Err(WireError::Checksum {
                field: "ipv4.checksum"
            })
        );
        assert!(Ipv4Repr::parse(&p, false).is_ok());
    }
}
