//! IEEE 802.3x PAUSE frames: the MAC Control frames gap mode fills the link
//! with.
//!
//! A PAUSE frame is an Ethernet II frame to the MAC Control multicast
//! address 01-80-C2-00-00-01 with ethertype 0x8808, opcode 0x0001 and a
//! pause time in quanta (512 bit times each), padded with zeros to the
//! frame's length. With zero quanta the receiving MAC consumes the frame and
//! pauses for no time; bridges never forward it. The view covers the frame
//! without its FCS, which the NIC appends.

use super::ethernet::{EthernetFrame, MacAddr};
use super::spec::FCS_LEN;
use super::{be16, need, put16, WireError};

/// Destination of every PAUSE frame: the MAC Control multicast address.
pub const DST: MacAddr = MacAddr([0x01, 0x80, 0xC2, 0x00, 0x00, 0x01]);
/// Ethertype of MAC Control frames.
pub const ETHERTYPE: u16 = 0x8808;
/// MAC Control opcode of PAUSE.
pub const OPCODE: u16 = 0x0001;
/// The smallest Ethernet frame, FCS included.
pub const MIN_FRAME_LEN: usize = 64;

mod field {
    pub const OPCODE: usize = 14;
    pub const QUANTA: usize = 16;
}

/// A view of a PAUSE frame (without FCS) over a byte buffer: the buffer is
/// the whole frame, header and padding.
#[derive(Debug, Clone)]
pub struct PauseFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> PauseFrame<T> {
    /// Bytes before the padding: Ethernet header, opcode, pause time.
    pub const HEADER_LEN: usize = 18;
    /// The shortest buffer a PAUSE frame fills: the smallest Ethernet frame
    /// less its FCS.
    pub const MIN_LEN: usize = MIN_FRAME_LEN - FCS_LEN;

    /// Wraps a buffer without checking its length (at least
    /// [`Self::HEADER_LEN`] bytes, or emit panics).
    pub fn new_unchecked(buffer: T) -> Self {
        Self { buffer }
    }

    /// Wraps a buffer, checking that it holds a legal frame
    /// ([`Self::MIN_LEN`] bytes or more).
    pub fn new_checked(buffer: T) -> Result<Self, WireError> {
        need("pause frame", Self::MIN_LEN, buffer.as_ref().len())?;
        Ok(Self { buffer })
    }

    /// The Ethernet header's view of the frame.
    pub fn ethernet(&self) -> EthernetFrame<&[u8]> {
        EthernetFrame::new_unchecked(self.buffer.as_ref())
    }

    /// MAC Control opcode (0x0001 for PAUSE).
    pub fn opcode(&self) -> u16 {
        be16(self.buffer.as_ref(), field::OPCODE)
    }

    /// Pause time in quanta of 512 bit times.
    pub fn quanta(&self) -> u16 {
        be16(self.buffer.as_ref(), field::QUANTA)
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> PauseFrame<T> {
    /// Sets the MAC Control opcode.
    pub fn set_opcode(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::OPCODE, v)
    }

    /// Sets the pause time in quanta.
    pub fn set_quanta(&mut self, v: u16) {
        put16(self.buffer.as_mut(), field::QUANTA, v)
    }

    /// Zeroes every byte after the header.
    pub fn clear_padding(&mut self) {
        self.buffer.as_mut()[Self::HEADER_LEN..].fill(0)
    }
}

/// High-level representation of a PAUSE frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PauseRepr {
    /// The sending port's MAC address.
    pub src: MacAddr,
    /// Pause time in quanta (0: consumed, no pause).
    pub quanta: u16,
}

impl PauseRepr {
    /// Parses a checked view; refuses frames that are not PAUSE frames.
    pub fn parse<T: AsRef<[u8]>>(f: &PauseFrame<T>) -> Result<Self, WireError> {
        need(
            "pause frame",
            PauseFrame::<T>::MIN_LEN,
            f.buffer.as_ref().len(),
        )?;
        let eth = f.ethernet();
        for (field, value, want) in [
            ("pause.ethertype", eth.ethertype(), ETHERTYPE),
            ("pause.opcode", f.opcode(), OPCODE),
        ] {
            if value != want {
                return Err(WireError::BadField {
                    field,
                    value: u64::from(value),
                });
            }
        }
        Ok(Self {
            src: eth.src(),
            quanta: f.quanta(),
        })
    }

    /// Writes the whole frame into the view: destination, source,
    /// ethertype, opcode, pause time, then zero padding to the view's end.
    /// Every byte of the view is written; none beyond it.
    #[inline]
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, f: &mut PauseFrame<T>) {
        f.clear_padding();
        let mut eth = EthernetFrame::new_unchecked(f.buffer.as_mut());
        eth.set_dst(DST);
        eth.set_src(self.src);
        eth.set_ethertype(ETHERTYPE);
        f.set_opcode(OPCODE);
        f.set_quanta(self.quanta);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: MacAddr = MacAddr([0x02, 0, 0, 0, 0, 0x01]);

    #[test]
    fn pause_frame_bytes() {
        let mut buf = [0xAAu8; 128];
        let n = 64 - FCS_LEN;
        let repr = PauseRepr {
            src: SRC,
            quanta: 0,
        };
        repr.emit(&mut PauseFrame::new_checked(&mut buf[..n]).unwrap());
        let mut want = [0u8; 60];
        want[..18].copy_from_slice(&[
            0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, // destination
            0x02, 0x00, 0x00, 0x00, 0x00, 0x01, // source
            0x88, 0x08, // ethertype: MAC Control
            0x00, 0x01, // opcode: PAUSE
            0x00, 0x00, // pause time: 0 quanta
        ]);
        assert_eq!(&buf[..n], &want[..]);
        assert_eq!(buf[n], 0xAA, "nothing written beyond the view");
        let f = PauseFrame::new_checked(&buf[..n]).unwrap();
        assert_eq!(PauseRepr::parse(&f).unwrap(), repr);

        // 100 bytes with FCS: 96 written, padding zero to the end.
        buf.fill(0xAA);
        repr.emit(&mut PauseFrame::new_checked(&mut buf[..96]).unwrap());
        assert_eq!(&buf[..18], &want[..18]);
        assert!(buf[18..96].iter().all(|&b| b == 0));
        assert_eq!(buf[96], 0xAA);
    }

    #[test]
    fn short_or_foreign_frames_are_refused() {
        // A 63-byte frame (59 without FCS) is below Ethernet's minimum.
        let mut buf = [0u8; 59];
        assert!(PauseFrame::new_checked(&mut buf[..]).is_err());
        let mut buf = [0u8; 60];
        let repr = PauseRepr {
            src: SRC,
            quanta: 7,
        };
        repr.emit(&mut PauseFrame::new_unchecked(&mut buf[..]));
        assert_eq!(PauseFrame::new_unchecked(&buf[..]).quanta(), 7);
        buf[15] = 0x02;
        assert!(PauseRepr::parse(&PauseFrame::new_unchecked(&buf[..])).is_err());
    }
}
