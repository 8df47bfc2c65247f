//! TCP header (RFC 9293). Emits 20-byte headers; parses and skips options.

use std::fmt;

use super::checksum;
use super::{be16, be32, need, put16, put32, WireError};

/// Byte offsets of the header's fields (smoltcp's `mod field`).
pub mod field {
    /// Source port (16 bits).
    pub const SRC_PORT: usize = 0;
    /// Destination port (16 bits).
    pub const DST_PORT: usize = 2;
    /// Sequence number (32 bits).
    pub const SEQ_NUM: usize = 4;
    /// Acknowledgment number (32 bits).
    pub const ACK_NUM: usize = 8;
    /// Data offset and flags (16 bits).
    pub const FLAGS: usize = 12;
    /// Window size (16 bits).
    pub const WINDOW: usize = 14;
    /// Checksum (16 bits).
    pub const CHECKSUM: usize = 16;
    /// Urgent pointer (16 bits).
    pub const URGENT: usize = 18;
}

/// TCP control bits (the low 9 bits of the offset/flags word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(pub u16);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x001);
    /// Synchronize sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x002);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x004);
    /// Push function.
    pub const PSH: TcpFlags = TcpFlags(0x008);
    /// Acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x010);
    /// Urgent pointer field is significant.
    pub const URG: TcpFlags = TcpFlags(0x020);
    /// ECN echo.
    pub const ECE: TcpFlags = TcpFlags(0x040);
    /// Congestion window reduced.
    pub const CWR: TcpFlags = TcpFlags(0x080);
    /// ECN nonce (historic, RFC 3540).
    pub const NS: TcpFlags = TcpFlags(0x100);
    /// All defined bits.
    pub const ALL: TcpFlags = TcpFlags(0x1FF);

    /// True if every bit of `other` is set.
    pub fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// True if no bit is set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | rhs.0)
    }
}

impl fmt::Display for TcpFlags {
    /// Lists the set flags as `SYN|ACK`, or `none`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(u16, &str); 9] = [
            (0x001, "FIN"),
            (0x002, "SYN"),
            (0x004, "RST"),
            (0x008, "PSH"),
            (0x010, "ACK"),
            (0x020, "URG"),
            (0x040, "ECE"),
            (0x080, "CWR"),
            (0x100, "NS"),
        ];
        let mut first = true;
        for (bit, name) in NAMES {
            if self.0 & bit != 0 {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        if first {
            f.write_str("none")?;
        }
        Ok(())
    }
}

/// A view of a TCP segment over a byte buffer.
#[derive(Debug, Clone)]
pub struct TcpPacket<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpPacket<T> {
    /// Length of a header without options.
    pub const MIN_HEADER_LEN: usize = 20;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer (the whole segment), checking the data offset is at
    /// least 5 and the header with options fits.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        let p = Self { buffer };
        let len = p.buffer.as_ref().len();
        need("tcp header", Self::MIN_HEADER_LEN, len)?;
        let hl = p.header_len();
        if hl < Self::MIN_HEADER_LEN {
            return Err(WireError::BadField {
                field: "tcp.data_offset",
                value: (hl / 4) as u64,
            });
        }
        need("tcp options", hl, len)?;
        Ok(p)
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }

    /// Source port.
    pub fn src_port(&self) -> u16 {
        be16(self.b(), field::SRC_PORT)
    }

    /// Destination port.
    pub fn dst_port(&self) -> u16 {
        be16(self.b(), field::DST_PORT)
    }

    /// Sequence number.
    pub fn seq(&self) -> u32 {
        be32(self.b(), field::SEQ_NUM)
    }

    /// Acknowledgment number.
    pub fn ack(&self) -> u32 {
        be32(self.b(), field::ACK_NUM)
    }

    /// Header length in bytes (data offset × 4).
    pub fn header_len(&self) -> usize {
        usize::from(self.b()[12] >> 4) * 4
    }

    /// Control bits.
    pub fn flags(&self) -> TcpFlags {
        TcpFlags(be16(self.b(), field::FLAGS) & 0x1FF)
    }

    /// Window.
    pub fn window(&self) -> u16 {
        be16(self.b(), field::WINDOW)
    }

    /// Checksum field.
    pub fn checksum(&self) -> u16 {
        be16(self.b(), field::CHECKSUM)
    }

    /// Urgent pointer.
    pub fn urgent(&self) -> u16 {
        be16(self.b(), field::URGENT)
    }

    /// Payload bytes (after the options).
    pub fn payload(&self) -> &[u8] {
        self.b().get(self.header_len()..).unwrap_or(&[])
    }

    /// Verifies the checksum over the whole buffer (the segment) given the
    /// pseudo-header sum.
    pub fn verify_checksum(&self, pseudo_sum: u16) -> bool {
        checksum::verifies(checksum::add(pseudo_sum, checksum::sum(self.b())))
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpPacket<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }

    /// Sets the source port.
    pub fn set_src_port(&mut self, v: u16) {
        put16(self.bm(), field::SRC_PORT, v)
    }

    /// Sets the destination port.
    pub fn set_dst_port(&mut self, v: u16) {
        put16(self.bm(), field::DST_PORT, v)
    }

    /// Sets the sequence number.
    pub fn set_seq(&mut self, v: u32) {
        put32(self.bm(), field::SEQ_NUM, v)
    }

    /// Sets the acknowledgment number.
    pub fn set_ack(&mut self, v: u32) {
        put32(self.bm(), field::ACK_NUM, v)
    }

    /// Sets the data offset (from a header length in bytes) and the flags.
    pub fn set_header_len_flags(&mut self, header_len: usize, flags: TcpFlags) {
        let w = (((header_len / 4) as u16) << 12) | (flags.0 & 0x1FF);
        put16(self.bm(), field::FLAGS, w)
    }

    /// Sets the window.
    pub fn set_window(&mut self, v: u16) {
        put16(self.bm(), field::WINDOW, v)
    }

    /// Sets the checksum field.
    pub fn set_checksum(&mut self, v: u16) {
        put16(self.bm(), field::CHECKSUM, v)
    }

    /// Sets the urgent pointer.
    pub fn set_urgent(&mut self, v: u16) {
        put16(self.bm(), field::URGENT, v)
    }

    /// Computes and stores the checksum over the whole buffer.
    pub fn fill_checksum(&mut self, pseudo_sum: u16) {
        self.set_checksum(0);
        let c = checksum::finish(checksum::add(pseudo_sum, checksum::sum(self.b())));
        self.set_checksum(c);
    }
}

/// High-level representation of a TCP header without options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpRepr {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Control bits.
    pub flags: TcpFlags,
    /// Window.
    pub window: u16,
}

impl TcpRepr {
    /// Length of the emitted header.
    pub const LEN: usize = 20;

    /// Parses a checked view (options are skipped).
    pub fn parse<T: AsRef<[u8]>>(p: &TcpPacket<T>) -> Result<Self, WireError> {
        need("tcp header", Self::LEN, p.b().len())?;
        Ok(Self {
            src_port: p.src_port(),
            dst_port: p.dst_port(),
            seq: p.seq(),
            ack: p.ack(),
            flags: p.flags(),
            window: p.window(),
        })
    }

    /// Writes a 20-byte header with zero checksum and urgent pointer; the
    /// view must hold at least 20 bytes.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut TcpPacket<T>) {
        p.set_src_port(self.src_port);
        p.set_dst_port(self.dst_port);
        p.set_seq(self.seq);
        p.set_ack(self.ack);
        p.set_header_len_flags(Self::LEN, self.flags);
        p.set_window(self.window);
        p.set_checksum(0);
        p.set_urgent(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emit_exact_bytes_and_parse_with_options() {
        let r = TcpRepr {
            src_port: 1000,
            dst_port: 5001,
            seq: 0x0102_0304,
            ack: 0xA0B0_C0D0,
            flags: TcpFlags::ACK | TcpFlags::PSH,
            window: 0xFFFF,
        };
        let mut b = [0u8; 20];
        r.emit(&mut TcpPacket::new_unchecked(&mut b[..]));
        assert_eq!(
            b,
            [
                0x03, 0xe8, 0x13, 0x89, 1, 2, 3, 4, 0xa0, 0xb0, 0xc0, 0xd0, 0x50, 0x18, 0xff, 0xff,
                0, 0, 0, 0
            ]
        );
        assert_eq!(
            TcpRepr::parse(&TcpPacket::new_checked(&b[..]).unwrap()).unwrap(),
            r
        );
        // Data offset 6 with a 4-byte option and 2 bytes of payload.
        let mut o = b.to_vec();
        o[12] = 0x60 | (o[12] & 0x0F);
        o.extend_from_slice(&[1, 1, 1, 0, 0xAA, 0xBB]);
        let p = TcpPacket::new_checked(&o[..]).unwrap();
        assert_eq!(p.payload(), &[0xAA, 0xBB]);
        assert!(TcpPacket::new_checked(&o[..23]).is_err());
        o[12] = 0x40;
        assert!(matches!(
            TcpPacket::new_checked(&o[..]),
            Err(WireError::BadField {
                field: "tcp.data_offset",
                ..
            })
        ));
        assert_eq!((TcpFlags::SYN | TcpFlags::ACK).to_string(), "SYN|ACK");
    }
}
