//! The NIC's part in receiving: its RX timestamps mapped onto the TSC,
//! and its checksum verdicts taken from the RX flags.

use std::sync::Arc;

use landspeed_sys::{RTE_MBUF_F_RX_IP_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_MASK};

use super::Burst;
use crate::clock::nic::{Counter, NicMap};
use crate::clock::sync::SharedMapping;
use crate::dpdk::{
    RxStampField, BATCH_MAX, RX_IP_CKSUM_BAD, RX_IP_CKSUM_GOOD, RX_L4_CKSUM_BAD, RX_L4_CKSUM_GOOD,
};
use crate::wire::dissect::{CorruptReason, DissectOptions};

/// How an RX task reads its NIC's RX timestamps and maps them onto the TSC.
#[derive(Clone)]
pub struct NicStamps {
    /// The mbuf field and flag the NIC writes.
    pub field: RxStampField,
    /// NIC ticks → TSC ticks, published by the main lcore
    /// ([`NicMap::to_words`]).
    pub map: Arc<SharedMapping>,
    /// The NIC counter's width.
    pub counter: Counter,
}

/// When a frame arrived, as its latency is measured: TSC ticks, and on the
/// synchronised clock (ns, 0 without one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Arrival {
    pub(super) tsc: u64,
    pub(super) ns: u64,
    /// From the NIC's timestamp (else the TSC read after the poll).
    pub(super) nic: bool,
}

/// A burst's arrivals by the NIC's stamps, converted in bulk before the
/// burst is accounted.
pub(super) struct NicRx {
    pub(super) stamps: NicStamps,
    pub(super) at: [Arrival; BATCH_MAX],
}

impl NicRx {
    /// Each frame's arrival: its NIC stamp mapped onto the TSC (and the
    /// synchronised clock), else `software`.
    #[inline(always)]
    pub(super) fn convert(
        &mut self,
        batch: &impl Burst,
        software: Arrival,
        clock: Option<&SharedMapping>,
    ) {
        let map = NicMap::from_words(self.stamps.map.load(), self.stamps.counter);
        let clock = clock.map(SharedMapping::load);
        for i in 0..batch.len() {
            self.at[i] = match batch.rx_stamp(i, &self.stamps.field) {
                Some(raw) => {
                    let tsc = map.tsc(raw);
                    Arrival {
                        tsc,
                        ns: clock.map_or(0, |c| c.ns(tsc)),
                        nic: true,
                    }
                }
                None => software,
            };
        }
    }
}

/// What the NIC says of one checksum: the two status bits of
/// `RTE_MBUF_F_RX_IP_CKSUM_*` or `RTE_MBUF_F_RX_L4_CKSUM_*` under their mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NicCsum {
    /// Neither bit: not checked (software verifies).
    Unknown,
    /// `GOOD`: verified.
    Good,
    /// `BAD`: wrong.
    Bad,
    /// Both bits (`NONE`): the data's integrity verified, the checksum
    /// field itself not valid (not to be checked in software).
    Verified,
}

impl NicCsum {
    /// The status under `mask` in `ol_flags`, with its `good` and `bad` bits.
    #[inline(always)]
    pub(super) fn decode(ol_flags: u64, mask: u64, good: u64, bad: u64) -> Self {
        match ol_flags & mask {
            0 => NicCsum::Unknown,
            v if v == good => NicCsum::Good,
            v if v == bad => NicCsum::Bad,
            _ => NicCsum::Verified,
        }
    }
}

/// The NIC's checksum verdict on a frame from its RX flags: a bad checksum
/// it found, or what is left for software to verify (the checksums whose
/// status is unknown, and the fill).
#[inline(always)]
pub(super) fn nic_checks(ol_flags: u64) -> Result<DissectOptions, CorruptReason> {
    let ip = NicCsum::decode(
        ol_flags,
        RTE_MBUF_F_RX_IP_CKSUM_MASK,
        RX_IP_CKSUM_GOOD,
        RX_IP_CKSUM_BAD,
    );
    let l4 = NicCsum::decode(
        ol_flags,
        RTE_MBUF_F_RX_L4_CKSUM_MASK,
        RX_L4_CKSUM_GOOD,
        RX_L4_CKSUM_BAD,
    );
    if ip == NicCsum::Bad {
        return Err(CorruptReason::IpChecksum);
    }
    if l4 == NicCsum::Bad {
        return Err(CorruptReason::L4Checksum);
    }
    Ok(DissectOptions {
        verify_ip: ip == NicCsum::Unknown,
        verify_l4: l4 == NicCsum::Unknown,
        verify_fill: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nic_flags_are_decoded_under_their_masks() {
        use landspeed_sys::{RTE_MBUF_F_RX_IP_CKSUM_NONE, RTE_MBUF_F_RX_L4_CKSUM_NONE};
        assert_eq!(
            RTE_MBUF_F_RX_IP_CKSUM_MASK,
            RX_IP_CKSUM_GOOD | RX_IP_CKSUM_BAD
        );
        assert_eq!(
            RTE_MBUF_F_RX_L4_CKSUM_MASK,
            RX_L4_CKSUM_GOOD | RX_L4_CKSUM_BAD
        );
        assert_eq!(RTE_MBUF_F_RX_IP_CKSUM_NONE, RTE_MBUF_F_RX_IP_CKSUM_MASK);
        assert_eq!(RTE_MBUF_F_RX_L4_CKSUM_NONE, RTE_MBUF_F_RX_L4_CKSUM_MASK);
        let ip = |f| {
            NicCsum::decode(
                f,
                RTE_MBUF_F_RX_IP_CKSUM_MASK,
                RX_IP_CKSUM_GOOD,
                RX_IP_CKSUM_BAD,
            )
        };
        let l4 = |f| {
            NicCsum::decode(
                f,
                RTE_MBUF_F_RX_L4_CKSUM_MASK,
                RX_L4_CKSUM_GOOD,
                RX_L4_CKSUM_BAD,
            )
        };
        // Other flags (VLAN stripped, RSS hash, the other checksum's bits)
        // change nothing.
        let noise = 1 | (1 << 1) | RX_L4_CKSUM_GOOD | RX_L4_CKSUM_BAD;
        for extra in [0, noise] {
            let x = extra & !RTE_MBUF_F_RX_IP_CKSUM_MASK;
            assert_eq!(ip(x), NicCsum::Unknown);
            assert_eq!(ip(x | RX_IP_CKSUM_GOOD), NicCsum::Good);
            assert_eq!(ip(x | RX_IP_CKSUM_BAD), NicCsum::Bad);
            assert_eq!(ip(x | RTE_MBUF_F_RX_IP_CKSUM_NONE), NicCsum::Verified);
        }
        assert_eq!(l4(RX_L4_CKSUM_GOOD | RX_IP_CKSUM_BAD), NicCsum::Good);
        assert_eq!(l4(RTE_MBUF_F_RX_L4_CKSUM_NONE), NicCsum::Verified);
        assert_eq!(l4(RX_L4_CKSUM_BAD), NicCsum::Bad);
        assert_eq!(l4(RX_IP_CKSUM_GOOD), NicCsum::Unknown);

        // NONE (integrity verified, field not valid) is neither corrupt
        // nor checked again in software; unknown is checked.
        let none = RTE_MBUF_F_RX_IP_CKSUM_NONE | RTE_MBUF_F_RX_L4_CKSUM_NONE;
        let opts = nic_checks(none).expect("NONE is not a bad checksum");
        assert_eq!(
            (opts.verify_ip, opts.verify_l4, opts.verify_fill),
            (false, false, true)
        );
        let opts = nic_checks(RX_IP_CKSUM_GOOD).unwrap();
        assert_eq!((opts.verify_ip, opts.verify_l4), (false, true));
        let opts = nic_checks(RX_L4_CKSUM_GOOD).unwrap();
        assert_eq!((opts.verify_ip, opts.verify_l4), (true, false));
        assert_eq!(
            nic_checks(RX_IP_CKSUM_BAD | RX_L4_CKSUM_GOOD),
            Err(CorruptReason::IpChecksum)
        );
        assert_eq!(
            nic_checks(RX_IP_CKSUM_GOOD | RX_L4_CKSUM_BAD),
            Err(CorruptReason::L4Checksum)
        );
    }
}
