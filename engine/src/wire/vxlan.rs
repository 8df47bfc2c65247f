//! VXLAN header (RFC 7348): 8 bytes after a UDP header, usually to port
//! 4789, before the inner Ethernet frame.

use super::{be32, need, put32, WireError};

/// The UDP port IANA assigned to VXLAN.
pub const VXLAN_PORT: u16 = 4789;

/// The flag that says the VNI is valid (the I bit).
const FLAG_I: u8 = 0x08;

/// The largest VNI (24 bits).
pub const VNI_MAX: u32 = (1 << 24) - 1;

/// A view of a VXLAN header over a byte buffer.
#[derive(Debug, Clone)]
pub struct VxlanHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VxlanHeader<T> {
    /// Header length.
    pub const LEN: usize = 8;

    /// Wraps a buffer without checks.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking the header fits.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        need("vxlan header", Self::LEN, buffer.as_ref().len())?;
        Ok(Self { buffer })
    }

    /// The flags byte (0x08: the VNI is valid).
    pub fn flags(&self) -> u8 {
        self.buffer.as_ref()[0]
    }

    /// The VXLAN network identifier (24 bits).
    pub fn vni(&self) -> u32 {
        be32(self.buffer.as_ref(), 4) >> 8
    }

    /// The inner Ethernet frame.
    pub fn payload(&self) -> &[u8] {
        self.buffer.as_ref().get(Self::LEN..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VxlanHeader<T> {
    /// Writes the header of `vni` (cut to 24 bits): the I flag, every
    /// reserved bit zero.
    pub fn set(&mut self, vni: u32) {
        let b = self.buffer.as_mut();
        put32(b, 0, u32::from(FLAG_I) << 24);
        put32(b, 4, (vni & VNI_MAX) << 8);
    }
}

/// A VXLAN header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VxlanRepr {
    /// The VXLAN network identifier, 0..=[`VNI_MAX`].
    pub vni: u32,
}

impl VxlanRepr {
    /// Header length.
    pub const LEN: usize = 8;

    /// Parses a header: the I flag set (RFC 7348: the VNI is valid), the
    /// reserved bits as they come (receivers ignore them).
    pub fn parse<T: AsRef<[u8]>>(h: &VxlanHeader<T>) -> Result<Self, WireError> {
        need("vxlan header", Self::LEN, h.buffer.as_ref().len())?;
        if h.flags() & FLAG_I == 0 {
            return Err(WireError::BadField {
                field: "vxlan.flags",
                value: u64::from(h.flags()),
            });
        }
        Ok(Self { vni: h.vni() })
    }

    /// Writes the header.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut VxlanHeader<T>) {
        h.set(self.vni);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_written_and_read_byte_for_byte() {
        let mut b = [0xAAu8; 10];
        VxlanRepr { vni: 0x12_3456 }.emit(&mut VxlanHeader::new_unchecked(&mut b[..]));
        assert_eq!(b, [0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0, 0xAA, 0xAA]);
        let h = VxlanHeader::new_checked(&b[..]).unwrap();
        assert_eq!(VxlanRepr::parse(&h).unwrap(), VxlanRepr { vni: 0x12_3456 });
        assert_eq!(h.payload(), [0xAA, 0xAA]);
        let mut c = [0u8; 8];
        VxlanRepr { vni: u32::MAX }.emit(&mut VxlanHeader::new_unchecked(&mut c[..]));
        assert_eq!(VxlanHeader::new_unchecked(&c[..]).vni(), VNI_MAX);
        assert_eq!(c[7], 0, "the reserved byte stays zero");
    }

    #[test]
    fn a_header_without_its_flag_or_its_bytes_is_refused() {
        let b = [0x00u8, 0, 0, 0, 0, 0, 1, 0];
        let h = VxlanHeader::new_checked(&b[..]).unwrap();
        assert_eq!(
            VxlanRepr::parse(&h),
            Err(WireError::BadField {
                field: "vxlan.flags",
                value: 0
            })
        );
        assert!(VxlanHeader::new_checked(&b[..7]).is_err());
        let short = VxlanHeader::new_unchecked(&b[..7]);
        assert!(VxlanRepr::parse(&short).is_err());
    }
}
