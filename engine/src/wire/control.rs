//! landspeed's own control frames: the departure handshake between two
//! landspeed processes joined by a shared-memory link (memif).
//!
//! A control frame is never traffic: no stream, no stamp, never counted in
//! a run's frames or bytes. It is the smallest Ethernet frame (60 bytes
//! without the FCS) to a locally administered multicast address, with the
//! IEEE local experimental ethertype 0x88B5, an 8-byte magic, a version and
//! a kind, then zeros. The layout is in docs/wire-format.md ("Control
//! frames").

use super::ethernet::MacAddr;

/// Destination of every control frame: a locally administered multicast
/// address ("LS" in its last bytes), never a unicast host's.
pub const DST: MacAddr = MacAddr([0x03, 0x00, 0x00, 0x00, 0x4C, 0x53]);
/// IEEE 802 local experimental ethertype 1.
pub const ETHERTYPE: u16 = 0x88B5;
/// The magic after the Ethernet header.
pub const MAGIC: [u8; 8] = *b"LSCTRL\0\x01";
/// The layout's version.
pub const VERSION: u8 = 1;
/// A control frame's length without its FCS (the smallest Ethernet frame).
pub const LEN: usize = 60;

mod field {
    pub const ETHERTYPE: usize = 12;
    pub const MAGIC: usize = 14;
    pub const VERSION: usize = 22;
    pub const KIND: usize = 23;
}

/// What a control frame says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// "I am leaving: stop sending to me and touch this link no more; I
    /// disconnect once you acknowledge, or after a short grace."
    Leaving,
    /// "Understood: I have stopped and will not touch this link again
    /// while you are on it."
    Ack,
    /// No message: the frame a sender marks at the start to prove that
    /// its port latches TX timestamps (`clock::nic::after_probe`); a
    /// receiver drops it.
    Probe,
}

impl Kind {
    /// The kind's byte on the wire.
    pub fn code(self) -> u8 {
        match self {
            Kind::Leaving => 1,
            Kind::Ack => 2,
            Kind::Probe => 3,
        }
    }

    /// The kind a byte on the wire says, if any.
    pub fn from_code(c: u8) -> Option<Kind> {
        match c {
            1 => Some(Kind::Leaving),
            2 => Some(Kind::Ack),
            3 => Some(Kind::Probe),
            _ => None,
        }
    }
}

/// Writes a control frame of `kind` from `src` into `buf` (at least
/// [`LEN`] bytes; the first [`LEN`] are written). Panics on a shorter
/// buffer (a programming error: the caller sizes it).
pub fn emit(buf: &mut [u8], kind: Kind, src: MacAddr) {
    let f = &mut buf[..LEN];
    f.fill(0);
    f[0..6].copy_from_slice(&DST.0);
    f[6..12].copy_from_slice(&src.0);
    f[field::ETHERTYPE..field::ETHERTYPE + 2].copy_from_slice(&ETHERTYPE.to_be_bytes());
    f[field::MAGIC..field::MAGIC + 8].copy_from_slice(&MAGIC);
    f[field::VERSION] = VERSION;
    f[field::KIND] = kind.code();
}

/// The kind of the control frame in `frame` (without FCS; a trailing FCS
/// or padding is allowed), or `None` when it is not one of this version.
/// Never panics.
pub fn parse(frame: &[u8]) -> Option<Kind> {
    if frame.len() < LEN
        || frame[0..6] != DST.0
        || frame[field::ETHERTYPE..field::ETHERTYPE + 2] != ETHERTYPE.to_be_bytes()
        || frame[field::MAGIC..field::MAGIC + 8] != MAGIC
        || frame[field::VERSION] != VERSION
    {
        return None;
    }
    Kind::from_code(frame[field::KIND])
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: MacAddr = MacAddr([2, 0, 0, 0, 0, 9]);

    #[test]
    fn a_frame_emitted_parses_back_as_its_kind() {
        for kind in [Kind::Leaving, Kind::Ack, Kind::Probe] {
            let mut b = [0xAAu8; 64];
            emit(&mut b, kind, SRC);
            assert_eq!(parse(&b[..LEN]), Some(kind));
            assert_eq!(parse(&b), Some(kind), "with an FCS after it");
            assert_eq!(&b[LEN..], &[0xAA; 4], "nothing written past LEN");
        }
    }

    #[test]
    fn the_layout_is_as_documented() {
        let mut b = [0u8; LEN];
        emit(&mut b, Kind::Ack, SRC);
        let mut want = [0u8; LEN];
        want[..6].copy_from_slice(&[0x03, 0, 0, 0, 0x4C, 0x53]);
        want[6..12].copy_from_slice(&SRC.0);
        want[12..14].copy_from_slice(&[0x88, 0xB5]);
        want[14..22].copy_from_slice(b"LSCTRL\0\x01");
        want[22] = 1;
        want[23] = 2;
        assert_eq!(b, want);
    }

    #[test]
    fn any_byte_of_the_header_changed_is_not_a_control_frame() {
        let mut good = [0u8; LEN];
        emit(&mut good, Kind::Leaving, SRC);
        for i in (0..6).chain(12..24) {
            let mut b = good;
            b[i] ^= 0x40;
            assert_eq!(parse(&b), None, "byte {i} changed");
        }
        let mut b = good;
        b[23] = 4;
        assert_eq!(parse(&b), None, "unknown kind");
        assert_eq!(parse(&good[..LEN - 1]), None, "short");
        assert_eq!(parse(&[]), None);
        // The source address and the padding are not checked.
        let mut b = good;
        b[6] ^= 1;
        b[LEN - 1] = 7;
        assert_eq!(parse(&b), Some(Kind::Leaving));
    }
}
