//! What a port's poll-mode driver (PMD) can carry, as arithmetic on the
//! limits it reports: the L2 overhead it counts between MTU and frame, the
//! MTU that carries a frame, and the RX buffer that holds a frame in one
//! segment.
//!
//! The rules are DPDK 22.11's own. The overhead is `max_rx_pktlen −
//! max_mtu` when the PMD reports both (ethdev's `eth_dev_get_overhead_len`,
//! testpmd's `get_eth_overhead`): 18 on ixgbe (15872/15854), 26 on i40e and
//! ice (9728/9702: two VLAN tags counted), else Ethernet header and FCS,
//! 18. mlx5 reports `max_rx_pktlen` 65536 and no `max_mtu` of its own
//! (`mlx5_dev_infos_get`; ethdev's default, `UINT16_MAX`), so its overhead
//! is 18, which is also what its RX queues add to the MTU
//! (`mlx5_rxq_new`: `mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN`); its
//! real limit is its kernel interface's largest MTU (9978 on ConnectX-4
//! and later), which DPDK does not report: the MTU is set after the
//! configuration and read back from the interface (`limits::pmd`).
//! ethdev refuses an MTU below `min_mtu` or whose frame (`mtu +
//! overhead`) exceeds `max_rx_pktlen`.
//!
//! RX buffers: ixgbe sizes its receive buffers in 1 KB units (the data
//! room less headroom, rounded down) and scatters a frame when the frame
//! plus two VLAN tags exceeds one buffer; i40e rounds to 128 bytes; mlx5
//! refuses a queue whose buffer cannot hold the frame without scatter. A
//! data room of headroom + `roundup(frame + 8, 1 KB)` holds a frame in one
//! segment on each of them.
#![forbid(unsafe_code)]

/// Ethernet header (14) and FCS (4): the overhead when the PMD reports no
/// MTU limit of its own.
pub const ETHER_OVERHEAD: u32 = 18;
/// `max_mtu` of a PMD that sets none (ethdev's default, `UINT16_MAX`).
pub const NO_MTU_LIMIT: u16 = u16::MAX;
/// `max_rx_pktlen` of a PMD that sets no frame limit.
pub const NO_FRAME_LIMIT: u32 = u32::MAX;
/// The unit ixgbe sizes RX buffers in (its SRRCTL.BSIZEPKT field): the
/// coarsest of the PMDs, so a room in these units suits every one.
pub const RX_BUF_UNIT: u32 = 1024;
/// Two VLAN tags: what ixgbe adds to the frame when it decides whether one
/// buffer holds it (`max_rx_pktlen + 2 × VLAN_TAG_SIZE > buf_size`).
pub const RX_BUF_SLACK: u32 = 8;
/// Largest mbuf data room DPDK takes (`uint16_t` in the pool's private
/// data).
pub const MAX_DATA_ROOM: u32 = u16::MAX as u32;

/// What a PMD reports of frame sizes (from `rte_eth_dev_info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PmdLimits {
    /// Largest frame, FCS included (`max_rx_pktlen`; [`NO_FRAME_LIMIT`]
    /// when none is set).
    pub max_rx_pktlen: u32,
    /// Smallest MTU.
    pub min_mtu: u16,
    /// Largest MTU ([`NO_MTU_LIMIT`] when none is set).
    pub max_mtu: u16,
}

/// How a port's MTU is set for a run's largest frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mtu {
    /// Configure this MTU (`rxmode.mtu`).
    Set(u16),
    /// Leave the PMD's default: it reports no MTU limit of its own and a
    /// frame limit below the frame, which ethdev would enforce on any MTU
    /// set through it, though the device carries larger frames its own
    /// way (af_packet: the kernel interface's MTU; memif: chained ring
    /// buffers).
    Default,
}

/// A frame the PMD cannot carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The frame, bytes with FCS.
    pub frame: u32,
    /// The largest frame the PMD carries, bytes with FCS.
    pub limit: u32,
    /// The PMD's L2 overhead.
    pub overhead: u32,
}

impl PmdLimits {
    /// The bytes a frame adds to its MTU on this PMD ([module docs](self)).
    pub fn overhead(&self) -> u32 {
        let (pktlen, mtu) = (self.max_rx_pktlen, u32::from(self.max_mtu));
        if self.max_mtu != NO_MTU_LIMIT && pktlen != NO_FRAME_LIMIT && pktlen > mtu {
            pktlen - mtu
        } else {
            ETHER_OVERHEAD
        }
    }

    /// The largest frame (FCS included) an MTU set on this PMD carries:
    /// `max_mtu + overhead`, no more than `max_rx_pktlen`.
    pub fn max_frame(&self) -> u32 {
        let by_mtu = u32::from(self.max_mtu) + self.overhead();
        by_mtu.min(self.max_rx_pktlen)
    }

    /// The MTU that carries frames of up to `frame` bytes: `frame −
    /// overhead`, raised to `min_mtu`; an error when the frame exceeds
    /// [`max_frame`](Self::max_frame); [`Mtu::Default`] for a PMD that
    /// sets no MTU limit and too small a frame limit ([`Mtu`]).
    pub fn mtu_for(&self, frame: u32) -> Result<Mtu, TooLarge> {
        let overhead = self.overhead();
        if self.max_mtu == NO_MTU_LIMIT && frame > self.max_rx_pktlen {
            return Ok(Mtu::Default);
        }
        let limit = self.max_frame();
        if frame > limit {
            return Err(TooLarge {
                frame,
                limit,
                overhead,
            });
        }
        let mtu = frame.saturating_sub(overhead).max(u32::from(self.min_mtu));
        // frame ≤ max_mtu + overhead, so mtu ≤ max_mtu (a u16).
        Ok(Mtu::Set(mtu.min(u32::from(self.max_mtu)) as u16))
    }
}

/// Bytes of mbuf after the headroom that hold a `frame`-byte frame in one
/// segment on every PMD: `roundup(frame + 8, 1 KB)`.
pub fn one_segment_room(frame: u32) -> u32 {
    (frame + RX_BUF_SLACK).next_multiple_of(RX_BUF_UNIT)
}

/// Whether a buffer of `room` bytes after the headroom holds a `frame`-byte
/// frame in one segment on every PMD (else the port needs RX scatter).
pub fn fits_one_segment(frame: u32, room: u32) -> bool {
    room >= one_segment_room(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ixgbe (82599, X520): 15872 / 15854.
    const IXGBE: PmdLimits = PmdLimits {
        max_rx_pktlen: 15872,
        min_mtu: 68,
        max_mtu: 15854,
    };
    /// i40e (X710) and ice (E810): 9728 / 9702.
    const I40E: PmdLimits = PmdLimits {
        max_rx_pktlen: 9728,
        min_mtu: 68,
        max_mtu: 9702,
    };
    /// mlx5 (ConnectX-4 Lx and later): 65536 and no MTU limit
    /// (`mlx5_dev_infos_get` sets no `max_mtu`).
    const MLX5: PmdLimits = PmdLimits {
        max_rx_pktlen: 65536,
        min_mtu: 68,
        max_mtu: NO_MTU_LIMIT,
    };
    /// net_null, net_ring, net_pcap: no limit at all.
    const NULL: PmdLimits = PmdLimits {
        max_rx_pktlen: NO_FRAME_LIMIT,
        min_mtu: 46,
        max_mtu: NO_MTU_LIMIT,
    };
    /// net_af_packet, net_memif: a frame limit of 1518, no MTU limit.
    const AF_PACKET: PmdLimits = PmdLimits {
        max_rx_pktlen: 1518,
        min_mtu: 46,
        max_mtu: NO_MTU_LIMIT,
    };

    #[test]
    fn the_overhead_is_the_pmd_s() {
        assert_eq!(IXGBE.overhead(), 18);
        assert_eq!(I40E.overhead(), 26);
        assert_eq!(MLX5.overhead(), 18);
        assert_eq!(NULL.overhead(), 18);
        assert_eq!(AF_PACKET.overhead(), 18);
        // max_mtu reported, max_rx_pktlen not above it: Ethernet's own.
        let odd = PmdLimits {
            max_rx_pktlen: 9000,
            min_mtu: 68,
            max_mtu: 9000,
        };
        assert_eq!(odd.overhead(), 18);
    }

    #[test]
    fn the_largest_frame_is_the_pmd_s() {
        assert_eq!(IXGBE.max_frame(), 15872);
        assert_eq!(I40E.max_frame(), 9728);
        // DPDK's limit; the kernel interface's is found by setting it.
        assert_eq!(MLX5.max_frame(), 65536);
        assert_eq!(NULL.max_frame(), 65535 + 18);
        assert_eq!(AF_PACKET.max_frame(), 1518);
    }

    /// Each frame size against each PMD: the MTU, exactly.
    #[test]
    fn mtu_per_pmd_and_frame() {
        let cases: [(PmdLimits, [u16; 4]); 3] = [
            (IXGBE, [68, 1500, 9112, 9198]),
            (I40E, [68, 1492, 9104, 9190]),
            (MLX5, [68, 1500, 9112, 9198]),
        ];
        for (pmd, mtus) in cases {
            for (frame, mtu) in [64, 1518, 9130, 9216].into_iter().zip(mtus) {
                assert_eq!(pmd.mtu_for(frame), Ok(Mtu::Set(mtu)), "{pmd:?} {frame}");
            }
        }
    }

    #[test]
    fn the_largest_frame_sets_max_mtu_and_one_more_is_refused() {
        for (pmd, limit, overhead) in [(IXGBE, 15872, 18), (I40E, 9728, 26)] {
            assert_eq!(pmd.mtu_for(limit), Ok(Mtu::Set(pmd.max_mtu)));
            let err = TooLarge {
                frame: limit + 1,
                limit,
                overhead,
            };
            assert_eq!(pmd.mtu_for(limit + 1), Err(err), "{pmd:?}");
        }
        // mlx5: ConnectX's largest MTU (9978) carries 9996-byte frames;
        // above it only setting the MTU tells.
        assert_eq!(MLX5.mtu_for(9996), Ok(Mtu::Set(9978)));
        assert_eq!(MLX5.mtu_for(65536), Ok(Mtu::Set(65518)));
    }

    #[test]
    fn virtual_devices_keep_working() {
        assert_eq!(NULL.mtu_for(9130), Ok(Mtu::Set(9112)));
        assert_eq!(NULL.mtu_for(16383), Ok(Mtu::Set(16365)));
        assert_eq!(NULL.mtu_for(64), Ok(Mtu::Set(46)));
        assert_eq!(AF_PACKET.mtu_for(1518), Ok(Mtu::Set(1500)));
        assert_eq!(AF_PACKET.mtu_for(1000), Ok(Mtu::Set(982)));
        assert_eq!(AF_PACKET.mtu_for(1519), Ok(Mtu::Default));
        assert_eq!(AF_PACKET.mtu_for(9130), Ok(Mtu::Default));
    }

    #[test]
    fn one_segment_rooms_in_kilobytes() {
        assert_eq!(one_segment_room(64), 1024);
        assert_eq!(one_segment_room(1016), 1024);
        assert_eq!(one_segment_room(1017), 2048);
        assert_eq!(one_segment_room(1518), 2048);
        assert_eq!(one_segment_room(9130), 9216);
        assert_eq!(one_segment_room(9208), 9216);
        assert_eq!(one_segment_room(9209), 10240);
        assert_eq!(one_segment_room(9216), 10240);
        assert_eq!(one_segment_room(9728), 10240);
        assert_eq!(one_segment_room(10000), 10240);
        assert_eq!(one_segment_room(15872), 16384);
        assert_eq!(one_segment_room(16383), 17408);
        // Headroom + room stays inside DPDK's 16-bit data room.
        assert!(128 + one_segment_room(16383) <= MAX_DATA_ROOM);
    }

    #[test]
    fn a_segment_fits_or_needs_scatter() {
        // ixgbe's own rule: buffer (1 KB units) ≥ frame + 8.
        assert!(fits_one_segment(9130, 9216));
        assert!(fits_one_segment(9130, 10240));
        assert!(!fits_one_segment(9130, 9137));
        // The old sizing (frame + headroom rounded to 64) left 9152
        // bytes, 8192 in ixgbe's 1 KB units: it chained a 9130-byte frame
        // into two segments.
        assert!(!fits_one_segment(9130, 9152));
        assert!(fits_one_segment(1016, 1024));
        assert!(!fits_one_segment(1017, 1024));
    }
}
