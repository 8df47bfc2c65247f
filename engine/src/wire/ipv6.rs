//! IPv6 fixed header (RFC 8200). No extension headers are emitted.

use std::net::Ipv6Addr;

use super::{be16, be32, need, put16, put32, WireError};

/// Byte offsets of the header's fields (smoltcp's `mod field`).
pub mod field {
    use std::ops::Range;
    /// Payload length (16 bits).
    pub const PAYLOAD_LEN: usize = 4;
    /// Source address.
    pub const SRC: Range<usize> = 8..24;
    /// Destination address.
    pub const DST: Range<usize> = 24..40;
}

/// A view of an IPv6 packet over a byte buffer.
#[derive(Debug, Clone)]
pub struct Ipv6Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv6Packet<T> {
    /// Length of the fixed header.
    pub const HEADER_LEN: usize = 40;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking version 6 and that the header and the
    /// announced payload fit (the buffer may be longer: Ethernet padding).
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let p = Self { buffer };
        let len = p.buffer.as_ref().len();
        need("ipv6 header", Self::HEADER_LEN, len)?;
        if p.version() != 6 {
            return Err(WireError::BadField {
                field: "ipv6.version",
                value: u64::from(p.version()),
            });
        }
        need(
            "ipv6.payload_len",
            Self::HEADER_LEN + usize::from(p.payload_len()),
            len,
        )?;
        Ok(p)
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Version field (6).
    pub fn version(&self) -> u8 {
        self.b()[0] >> 4
    }

    /// Traffic class (8 bits).
    pub fn traffic_class(&self) -> u8 {
        ((be16(self.b(), 0) >> 4) & 0xFF) as u8
    }

    /// Flow label (20 bits).
    pub fn flow_label(&self) -> u32 {
        be32(self.b(), 0) & 0x000F_FFFF
    }

    /// Payload length.
    pub fn payload_len(&self) -> u16 {
        be16(self.b(), field::PAYLOAD_LEN)
    }

    /// Next header.
    pub fn next_header(&self) -> u8 {
        self.b()[6]
    }

    /// Hop limit.
    pub fn hop_limit(&self) -> u8 {
        self.b()[7]
    }

    /// Source address.
    pub fn src(&self) -> Ipv6Addr {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.b()[field::SRC]);
        Ipv6Addr::from(a)
    }

    /// Destination address.
    pub fn dst(&self) -> Ipv6Addr {
        let mut a = [0u8; 16];
        a.copy_from_slice(&self.b()[field::DST]);
        Ipv6Addr::from(a)
    }

    /// Payload bytes, delimited by the payload length field.
    pub fn payload(&self) -> &[u8] {
        let end = (Self::HEADER_LEN + usize::from(self.payload_len())).min(self.b().len());
        self.b().get(Self::HEADER_LEN..end).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv6Packet<T> {
    /// Sets version 6, traffic class and flow label (masked to 20 bits).
    pub fn set_version_tc_flow(&mut self, tc: u8, flow: u32) {
        let w = (6u32 << 28) | (u32::from(tc) << 20) | (flow & 0x000F_FFFF);
        put32(self.buffer.as_mut(), 0, w)
    }

    /// Sets the payload length.
    pub fn set_payload_len(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::PAYLOAD_LEN, v)
    }

    /// Sets the next header.
    pub fn set_next_header(&mut self, v: u8) {
        self.buffer.as_mut()[6] = v;
    }

    /// Sets the hop limit.
    pub fn set_hop_limit(&mut self, v: u8) {
        self.buffer.as_mut()[7] = v;
    }

    /// Sets the source address.
    pub fn set_src(&mut self, a: &Ipv6Addr) {
        self.buffer.as_mut()[field::SRC].copy_from_slice(&a.octets());
    }

    /// Sets the destination address.
    pub fn set_dst(&mut self, a: &Ipv6Addr) {
        self.buffer.as_mut()[field::DST].copy_from_slice(&a.octets());
    }
}

/// High-level representation of the IPv6 fixed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ipv6Repr {
    /// Source address.
    pub src: Ipv6Addr,
    /// Destination address.
    pub dst: Ipv6Addr,
    /// Next header (17 UDP, 6 TCP).
    pub next_header: u8,
    /// Payload length.
    pub payload_len: usize,
    /// Traffic class.
    pub traffic_class: u8,
    /// Flow label, 0..=0xFFFFF.
    pub flow_label: u32,
    /// Hop limit.
    pub hop_limit: u8,
}

impl Ipv6Repr {
    /// Length of the emitted header.
    pub const LEN: usize = 40;

    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(p: &Ipv6Packet<T>) -> Result<Self, WireError> {
        need("ipv6 header", Self::LEN, p.b().len())?;
        Ok(Self {
            src: p.src(),
            dst: p.dst(),
            next_header: p.next_header(),
            payload_len: usize::from(p.payload_len()),
            traffic_class: p.traffic_class(),
            flow_label: p.flow_label(),
            hop_limit: p.hop_limit(),
        })
    }

    /// Writes the header; the view must hold at least 40 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv6Packet<T>) {
        p.set_version_tc_flow(self.traffic_class, self.flow_label);
        p.set_payload_len(self.payload_len as u16);
        p.set_next_header(self.next_header);
        p.set_hop_limit(self.hop_limit);
        p.set_src(&self.src);
        p.set_dst(&self.dst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emit_exact_bytes_and_parse() {
        let r = Ipv6Repr {
            src: "2001:db8::1".parse().unwrap(),
            dst: "2001:db8::2".parse().unwrap(),
            next_header: 17,
            payload_len: 8,
            traffic_class: 0xB8,
            flow_label: 0x12345,
            hop_limit: 64,
        };
        let mut b = [0u8; 48];
        r.emit(&mut Ipv6Packet::new_unchecked(&mut b[..]));
        let mut want = vec![0x6B, 0x81, 0x23, 0x45, 0x00, 0x08, 0x11, 0x40];
        want.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        want.extend_from_slice(&[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        assert_eq!(&b[..40], &want[..]);
        let p = Ipv6Packet::new_checked(&b[..]).unwrap();
        assert_eq!(Ipv6Repr::parse(&p).unwrap(), r);
        assert!(Ipv6Packet::new_checked(&b[..47]).is_err());
        let mut v = b;
        v[0] = 0x4B;
        assert!(matches!(
            Ipv6Packet::new_checked(&v[..]),
            Err(WireError::BadField {
                field: "ipv6.version",
                ..
            })
        ));
    }
}
