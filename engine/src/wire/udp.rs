//! UDP header (RFC 768).

use super::checksum;
use super::{be16, need, put16, WireError};

/// Byte offsets of the header's 16-bit fields (smoltcp's `mod field`).
pub mod field {
    /// Source port.
    pub const SRC_PORT: usize = 0;
    /// Destination port.
    pub const DST_PORT: usize = 2;
    /// Length (header and payload).
    pub const LENGTH: usize = 4;
    /// Checksum.
    pub const CHECKSUM: usize = 6;
}

/// A view of a UDP datagram over a byte buffer.
#[derive(Debug, Clone)]
pub struct UdpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpPacket<T> {
    /// Header length.
    pub const HEADER_LEN: usize = 8;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking the header fits and that the length field
    /// covers the header and fits in the buffer.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let p = Self { buffer };
        let len = p.buffer.as_ref().len();
        need("udp header", Self::HEADER_LEN, len)?;
        let l = usize::from(p.len());
        if l < Self::HEADER_LEN {
            return Err(WireError::BadField {
                field: "udp.length",
                value: l as u64,
            });
        }
        need("udp.length", l, len)?;
        Ok(p)
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }

    /// Length field (header + payload).
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }

    /// True if the length field is zero (never for a valid datagram).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }

    /// The datagram (header + payload) as delimited by the length field.
    pub fn datagram(&self) -> &[u8] {
        let b = self.buffer.as_ref();
        &b[..usize::from(self.len()).min(b.len())]
    }

    /// Payload bytes.
    pub fn payload(&self) -> &[u8] {
        self.datagram().get(Self::HEADER_LEN..).unwrap_or(&[])
    }

    /// Verifies the checksum given the pseudo-header sum (see
    /// [`checksum::pseudo_v4`]/[`checksum::pseudo_v6`]). A zero checksum
    /// field means "not computed" and passes only if `zero_ok` (IPv4).
    pub fn verify_checksum(&self, pseudo_sum: u16, zero_ok: bool) -> bool {
        if self.checksum() == 0 {
            return zero_ok;
        }
        checksum::verifies(checksum::add(pseudo_sum, checksum::sum(self.datagram())))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpPacket<T> {
    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::SRC_PORT, v)
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::DST_PORT, v)
    }

    /// Sets the length field.
    pub fn set_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::LENGTH, v)
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::CHECKSUM, v)
    }

    /// Computes the checksum over the datagram with the given pseudo-header
    /// sum and stores it; a computed 0 is sent as 0xFFFF (RFC 768, RFC 8200).
    pub fn fill_checksum(&mut self, pseudo_sum: u16) {
        self.set_checksum(0);
        let c = checksum::finish(checksum::add(pseudo_sum, checksum::sum(self.datagram())));
        self.set_checksum(udp_nonzero(c));
    }
}

/// Maps a computed UDP checksum of 0 to 0xFFFF (0 means "none" on the wire).
#[inline]
pub fn udp_nonzero(c: u16) -> u16 {
    if c == 0 {
        0xFFFF
    } else {
        c
    }
}

/// High-level representation of a UDP header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Payload length (the length field minus 8).
    pub payload_len: usize,
}

impl UdpRepr {
    /// Header length.
    pub const LEN: usize = 8;

    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(p: &UdpPacket<T>) -> Result<Self, WireError> {
        need("udp header", Self::LEN, p.buffer.as_ref().len())?;
        Ok(Self {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            payload_len: usize::from(p.len()).saturating_sub(Self::LEN),
        })
    }

    /// Writes the header with a zero checksum (fill it afterwards); the view
    /// must hold at least 8 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut UdpPacket<T>) {
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_len((Self::LEN + self.payload_len) as u16);
        p.set_checksum(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    #[test]
    fn emit_exact_bytes_checksum_and_parse() {
        let r = UdpRepr {
            src_port: 0x1234,
            dst_port: 53,
            payload_len: 3,
        };
        let mut b = [0u8; 11];
        b[8..].copy_from_slice(b"abc");
        let mut p = UdpPacket::new_unchecked(&mut b[..]);
        r.emit(&mut p);
        let a = Ipv4Addr::new(10, 0, 0, 1);
        let d = Ipv4Addr::new(10, 0, 0, 2);
        let ps = checksum::pseudo_v4(a, d, 17, 11);
        p.fill_checksum(ps);
        // Hand computation: pseudo 0a00+0001+0a00+0002+0011+000b = 0x141f;
        // header 1234+0035+000b = 0x1274; payload 6162+6300 = 0xc462.
        // 0x141f+0x1274+0xc462 = 0xeaf5 -> checksum 0x150a.
        assert_eq!(
            b,
            [0x12, 0x34, 0x00, 0x35, 0x00, 0x0b, 0x15, 0x0a, b'a', b'b', b'c']
        );
        let p = UdpPacket::new_checked(&b[..]).unwrap();
        assert!(p.verify_checksum(ps, false));
        assert_eq!(UdpRepr::parse(&p).unwrap(), r);
        assert_eq!(p.payload(), b"abc");
        assert!(UdpPacket::new_checked(&b[..10]).is_err());
    }
}
