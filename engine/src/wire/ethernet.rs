//! Ethernet II header, the 802.1Q VLAN tag, and the MAC address type.

use std::fmt;
use std::str::FromStr;

use super::{be16, need, put16, WireError};

/// A 48-bit IEEE 802 MAC address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct MacAddr(pub [u8; 6]);

impl MacAddr {
    /// The broadcast address ff:ff:ff:ff:ff:ff.
    pub const BROADCAST: MacAddr = MacAddr([0xFF; 6]);

    /// True for group addresses (multicast and broadcast): I/G bit set.
    pub fn is_multicast(&self) -> bool {
        self.0[0] & 0x01 != 0
    }

    /// True for ff:ff:ff:ff:ff:ff.
    pub fn is_broadcast(&self) -> bool {
        *self == Self::BROADCAST
    }

    /// The six octets.
    pub fn octets(&self) -> [u8; 6] {
        self.0
    }
}

impl fmt::Display for MacAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(
            f,
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5]
        )
    }
}

/// Error parsing a MAC address from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mac address: expected six hex octets separated by ':' or '-', got {0:?}")]
pub struct MacParseError(pub String);

impl FromStr for MacAddr {
    type Err = MacParseError;

    /// Parses `aa:bb:cc:dd:ee:ff` or `aa-bb-cc-dd-ee-ff` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || MacParseError(s.to_string());
        let sep = if s.contains('-') { '-' } else { ':' };
        let mut out = [0u8; 6];
        let mut n = 0;
        for part in s.split(sep) {
            if n == 6 || part.is_empty() || part.len() > 2 {
                return Err(err());
            }
            out[n] = u8::from_str_radix(part, 16).map_err(|_| err())?;
            n += 1;
        }
        if n != 6 {
            return Err(err());
        }
        Ok(MacAddr(out))
    }
}

/// EtherType values used by this crate.
pub struct EtherType;

impl EtherType {
    /// IPv4.
    pub const IPV4: u16 = 0x0800;
    /// IPv6.
    pub const IPV6: u16 = 0x86DD;
    /// 802.1Q VLAN tag (customer VLAN).
    pub const VLAN: u16 = 0x8100;
    /// 802.1ad service VLAN tag (QinQ outer tag).
    pub const QINQ: u16 = 0x88A8;
}

/// A view of an Ethernet II header (no FCS) over a byte buffer.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    /// Length of the Ethernet II header.
    pub const HEADER_LEN: usize = 14;

    /// Wraps a buffer without checking its length.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking that it holds at least the header.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        need("ethernet header", Self::HEADER_LEN, buffer.as_ref().len())?;
        Ok(Self { buffer })
    }

    /// Returns the wrapped buffer.
    pub fn into_inner(self) -> T {
        self.buffer
    }

    /// Destination MAC address.
    pub fn dst(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[0..6]);
        MacAddr(a)
    }

    /// Source MAC address.
    pub fn src(&self) -> MacAddr {
        let mut a = [0; 6];
        a.copy_from_slice(&self.buffer.as_ref()[6..12]);
        MacAddr(a)
    }

    /// EtherType (or TPID of a VLAN tag).
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), 12)
    }

    /// Bytes after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[Self::HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    /// Sets the destination MAC address.
    pub fn set_dst(&mut self, a: MacAddr) {
        self.buffer.as_mut()[0..6].copy_from_slice(&a.0);
    }

    /// Sets the source MAC address.
    pub fn set_src(&mut self, a: MacAddr) {
        self.buffer.as_mut()[6..12].copy_from_slice(&a.0);
    }

    /// Sets the EtherType.
    pub fn set_ethertype(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 12, v)
    }

    /// Mutable bytes after the header.
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[Self::HEADER_LEN..]
    }
}

/// High-level representation of an Ethernet II header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EthernetRepr {
    /// Destination address.
    pub dst: MacAddr,
    /// Source address.
    pub src: MacAddr,
    /// EtherType (0x8100 when a VLAN tag follows).
    pub ethertype: u16,
}

impl EthernetRepr {
    /// Header length in bytes.
    pub const LEN: usize = 14;

    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(f: &EthernetFrame<T>) -> Result<Self, WireError> {
        need("ethernet header", Self::LEN, f.buffer.as_ref().len())?;
        Ok(Self {
            dst: f.dst(),
            src: f.src(),
            ethertype: f.ethertype(),
        })
    }

    /// Writes the header into the view (which must hold at least 14 bytes).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, f: &mut EthernetFrame<T>) {
        f.set_dst(self.dst);
        f.set_src(self.src);
        f.set_ethertype(self.ethertype);
    }
}

/// A view of an 802.1Q tag's last four bytes (TCI + inner EtherType), i.e.
/// the bytes that follow the 0x8100 TPID in the Ethernet header.
#[derive(Debug, Clone)]
pub struct VlanTag<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> VlanTag<T> {
    /// Length of TCI + inner EtherType.
    pub const LEN: usize = 4;

    /// Wraps a buffer without checking its length.
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking that it holds at least 4 bytes.
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        need("vlan tag", Self::LEN, buffer.as_ref().len())?;
        Ok(Self { buffer })
    }

    /// Priority code point (3 bits).
    pub fn pcp(&self) -> u8 {
        self.buffer.as_ref()[0] >> 5
    }

    /// Drop eligible indicator.
    pub fn dei(&self) -> bool {
        self.buffer.as_ref()[0] & 0x10 != 0
    }

    /// VLAN identifier (12 bits).
    pub fn vid(&self) -> u16 {
        be16(self.buffer.as_ref(), 0) & 0x0FFF
    }

    /// EtherType of the encapsulated payload.
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }

    /// Bytes after the tag.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[Self::LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> VlanTag<T> {
    /// Sets PCP, DEI and VID at once (values are masked to their widths).
    pub fn set_tci(&mut self, pcp: u8, dei: bool, vid: u16) {
        let tci = (u16::from(pcp & 7) << 13) | (u16::from(dei) << 12) | (vid & 0x0FFF);
        put16(self.buffer.as_mut(), 0, tci)
    }

    /// Sets the inner EtherType.
    pub fn set_ethertype(&mut self, v: u16) {
        put16(self.buffer.as_mut(), 2, v)
    }
}

/// High-level representation of an 802.1Q tag (after the TPID).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VlanRepr {
    /// Priority code point, 0..=7.
    pub pcp: u8,
    /// Drop eligible indicator.
    pub dei: bool,
    /// VLAN identifier, 0..=4094.
    pub vid: u16,
    /// EtherType of the payload.
    pub ethertype: u16,
}

impl VlanRepr {
    /// Length of TCI + inner EtherType.
    pub const LEN: usize = 4;

    /// Parses a checked view.
    pub fn parse<T: AsRef<[u8]>>(t: &VlanTag<T>) -> Result<Self, WireError> {
        need("vlan tag", Self::LEN, t.buffer.as_ref().len())?;
        let vid = t.vid();
        if vid == 0x0FFF {
            return Err(WireError::BadField {
                field: "vlan.vid",
                value: u64::from(vid),
            });
        }
        Ok(Self {
            pcp: t.pcp(),
            dei: t.dei(),
            vid,
            ethertype: t.ethertype(),
        })
    }

    /// Writes the tag into the view (which must hold at least 4 bytes).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, t: &mut VlanTag<T>) {
        t.set_tci(self.pcp, self.dei, self.vid);
        t.set_ethertype(self.ethertype);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mac_display_fromstr() {
        let m: MacAddr = "02:00:5E:10:00:0a".parse().unwrap();
        assert_eq!(m, MacAddr([2, 0, 0x5e, 0x10, 0, 0x0a]));
        assert_eq!(m.to_string(), "02:00:5e:10:00:0a");
        assert_eq!("02-00-5e-10-00-0a".parse::<MacAddr>().unwrap(), m);
        for bad in [
            "",
            "02:00:5e:10:00",
            "02:00:5e:10:00:0a:01",
            "0g:00:00:00:00:00",
            "002:0:0:0:0:0",
            "02::5e:10:00:0a",
        ] {
            assert!(bad.parse::<MacAddr>().is_err(), "{bad}");
        }
        assert!(MacAddr::BROADCAST.is_multicast());
        assert!(!m.is_multicast());
    }

    #[test]
    fn ethernet_vlan_vectors() {
        let mut b = [0u8; 18];
        let e = EthernetRepr {
            dst: MacAddr([1, 2, 3, 4, 5, 6]),
            src: MacAddr([0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f]),
            ethertype: EtherType::VLAN,
        };
        e.emit(&mut EthernetFrame::new_unchecked(&mut b[..]));
        let v = VlanRepr {
            pcp: 5,
            dei: true,
            vid: 0x123,
            ethertype: EtherType::IPV6,
        };
        v.emit(&mut VlanTag::new_unchecked(&mut b[14..]));
        assert_eq!(
            b,
            [
                1, 2, 3, 4, 5, 6, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x81, 0x00, 0xb1, 0x23, 0x86,
                0xdd
            ]
        );
        let f = EthernetFrame::new_checked(&b[..]).unwrap();
        assert_eq!(EthernetRepr::parse(&f).unwrap(), e);
        let t = VlanTag::new_checked(f.payload()).unwrap();
        assert_eq!(VlanRepr::parse(&t).unwrap(), v);
        assert!(EthernetFrame::new_checked(&b[..13]).is_err());
        assert!(VlanTag::new_checked(&b[..3]).is_err());
    }
}
