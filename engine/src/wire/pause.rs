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

/// What a port's driver does with the PAUSE frames gap mode transmits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseTx {
    /// The driver hands them to the wire (or to its peer) like any frame;
    /// the PMD's `opackets` counts them.
    Sent,
    /// The driver, or the physical function it runs on, installs a filter
    /// that drops every transmitted frame of ethertype 0x8808: gap mode
    /// would pace nothing. `why` says what the driver does, naming its
    /// function in DPDK 22.11.
    Dropped {
        /// What the driver does, in words.
        why: &'static str,
    },
}

/// What driver `driver` (DPDK's `driver_name`) does with transmitted
/// frames of ethertype 0x8808, as DPDK 22.11's drivers say.
///
/// Dropped by:
/// - `net_i40e` (X710, XL710, XXV710): `eth_i40e_dev_init` calls
///   `i40e_add_tx_flow_control_drop_filter`, an admin-queue control
///   packet filter (flags DROP | TX | IGNORE_MAC) on the main VSI;
/// - `net_i40e_vf`, `net_iavf`: virtual functions; the physical
///   function's driver installs that filter for every VSI (the shared base
///   code's `i40e_add_filter_to_drop_tx_flow_control_frames`);
/// - `net_ixgbe_vf`, `net_txgbe_vf`: with SR-IOV the physical function
///   sets an ETQF ethertype filter with TX anti-spoofing for 0x8808
///   (`ixgbe_pf_host_configure` → `ixgbe_add_tx_flow_control_drop_filter`,
///   the same in txgbe).
///
/// Sent by the others, as far as their drivers go: `net_ixgbe` (the PF
/// installs the filter for its VFs' pools only, and only when SR-IOV is
/// on), `net_ice` (no such filter in the PMD), `net_e1000_igb`,
/// `mlx5_pci`, `net_virtio`, `net_virtio_user` and the software vdevs
/// (`net_null`, `net_ring`, `net_pcap`, `net_af_packet`, `net_tap`,
/// `net_memif`), which treat 0x8808 like any ethertype.
pub fn tx_fate(driver: &str) -> PauseTx {
    let why = match driver {
        "net_i40e" => {
            "the i40e PMD installs a filter at start-up that drops every transmitted \
             frame of ethertype 0x8808 (eth_i40e_dev_init -> \
             i40e_add_tx_flow_control_drop_filter)"
        }
        "net_i40e_vf" | "net_iavf" => {
            "this is a virtual function: its physical function's driver (i40e) drops \
             every frame of ethertype 0x8808 its VSIs transmit \
             (i40e_add_tx_flow_control_drop_filter)"
        }
        "net_ixgbe_vf" | "net_txgbe_vf" => {
            "this is a virtual function: with SR-IOV its physical function sets an \
             ethertype filter with TX anti-spoofing that drops frames of ethertype \
             0x8808 from VFs (ixgbe_pf_host_configure -> \
             ixgbe_add_tx_flow_control_drop_filter)"
        }
        _ => return PauseTx::Sent,
    };
    PauseTx::Dropped { why }
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

    #[test]
    fn drivers_that_drop_pause_frames_on_transmit() {
        for d in [
            "net_i40e",
            "net_i40e_vf",
            "net_iavf",
            "net_ixgbe_vf",
            "net_txgbe_vf",
        ] {
            match tx_fate(d) {
                PauseTx::Dropped { why } => assert!(why.contains("0x8808"), "{d}: {why}"),
                PauseTx::Sent => panic!("{d} drops 0x8808 on transmit"),
            }
        }
        assert!(
            matches!(tx_fate("net_i40e"), PauseTx::Dropped { why } if why.contains("i40e_add_tx_flow_control_drop_filter"))
        );
        for d in [
            "net_ixgbe",
            "net_ice",
            "net_e1000_igb",
            "mlx5_pci",
            "net_virtio",
            "net_virtio_user",
            "net_null",
            "net_ring",
            "net_pcap",
            "net_af_packet",
            "net_tap",
            "net_memif",
            "",
            "net_i40e ",
        ] {
            assert_eq!(tx_fate(d), PauseTx::Sent, "{d:?}");
        }
    }
}
