//! NIC timestamps: the RX timestamp dynamic field of the mbuf, the NIC's
//! clock (`rte_eth_read_clock`), and IEEE 1588 timesync
//! (`rte_eth_timesync_*`). The arithmetic on the readings (the NIC →
//! TSC fit, wraps, the choice of source) is pure, in `clock::nic`.

use landspeed_sys as sys;

use std::time::{Duration, Instant};

use super::{tsc, DpdkError, Port, RxBatch, TxBatch, TxQueue};

/// Where the NIC writes a received frame's timestamp: the mbuf's
/// `rte_dynfield_timestamp` field and the `ol_flags` bit that says a
/// frame has one. Made only by [`RxStampField::register`] (the offset is
/// then DPDK's, inside the mbuf) or [`RxStampField::none`] (no frame ever
/// carries its flag, so its offset is never read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxStampField {
    offset: usize,
    flag: u64,
}

impl RxStampField {
    /// Registers (or looks up: drivers register it when the offload is
    /// configured) the RX timestamp field and flag.
    pub fn register() -> Result<RxStampField, DpdkError> {
        let (mut offset, mut flag) = (-1i32, 0u64);
        // SAFETY: both out pointers are live locals; the call only writes
        // them (and may reserve the field in DPDK's shared dynfield table).
        let ret = unsafe { sys::rte_mbuf_dyn_rx_timestamp_register(&mut offset, &mut flag) };
        if ret < 0 || offset < 0 || flag == 0 {
            return Err(DpdkError::from_ret(
                "rte_mbuf_dyn_rx_timestamp_register",
                ret,
            ));
        }
        let offset = offset as usize;
        if offset + 8 > std::mem::size_of::<sys::rte_mbuf>() {
            return Err(DpdkError::msg(
                "rte_mbuf_dyn_rx_timestamp_register",
                format!("field offset {offset} outside the mbuf"),
            ));
        }
        Ok(RxStampField { offset, flag })
    }

    /// A field no frame carries (its flag is 0): a receiver that reads it
    /// always falls back to its own arrival time.
    pub fn none() -> RxStampField {
        RxStampField { offset: 0, flag: 0 }
    }

    /// The `ol_flags` bit of a frame with a timestamp.
    pub fn flag(&self) -> u64 {
        self.flag
    }
}

impl RxBatch<'_> {
    /// Frame `i`'s NIC timestamp (raw, in the NIC clock's units), when
    /// the NIC set `field`'s flag on it.
    #[inline(always)]
    pub fn rx_stamp(&self, i: usize, field: &RxStampField) -> Option<u64> {
        let m = self.mbuf(i);
        // SAFETY: `m` is a valid received mbuf owned by the batch; a set
        // flag means the field was registered (`register` is the only
        // maker of a non-zero flag) and holds 8 bytes at `offset` inside
        // the mbuf, which the driver wrote.
        unsafe {
            if (*m).ol_flags & field.flag == 0 {
                return None;
            }
            let p = (m as *const u8).add(field.offset) as *const u64;
            Some(p.read_unaligned())
        }
    }
}

/// One reading of a port's NIC clock between two TSC reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicBracket {
    /// TSC before the NIC read.
    pub tsc_before: u64,
    /// The NIC's clock, raw.
    pub nic: u64,
    /// TSC after.
    pub tsc_after: u64,
}

/// Reads one port's NIC clock. It holds only the port id: ethdev checks
/// the id on every call, so a reader outliving its port reads an error,
/// never freed memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicClockReader {
    port: u16,
    /// Reads the IEEE 1588 clock (`rte_eth_timesync_read_time`, ns), the
    /// clock of the latched TX timestamps, instead of `rte_eth_read_clock`.
    timesync: bool,
}

impl NicClockReader {
    /// The reader of `port`'s clock (`rte_eth_read_clock`, the clock of
    /// the RX timestamps).
    pub fn of(port: &Port<'_>) -> NicClockReader {
        NicClockReader {
            port: port.id(),
            timesync: false,
        }
    }

    /// The reader of `port`'s IEEE 1588 clock (`rte_eth_timesync_read_time`,
    /// ns; timesync enabled), the clock of its latched TX timestamps.
    pub fn timesync(port: &Port<'_>) -> NicClockReader {
        NicClockReader {
            port: port.id(),
            timesync: true,
        }
    }

    /// The name of the call it reads with.
    pub fn call(&self) -> &'static str {
        if self.timesync {
            "rte_eth_timesync_read_time"
        } else {
            "rte_eth_read_clock"
        }
    }

    /// The DPDK port id it reads.
    pub fn port_id(&self) -> u16 {
        self.port
    }

    /// The NIC's clock (`rte_eth_read_clock`, raw; or the IEEE 1588
    /// clock, ns).
    pub fn read(&self) -> Result<u64, DpdkError> {
        if self.timesync {
            let mut ts = sys::timespec::default();
            // SAFETY: valid out pointer; ethdev validates the port id.
            let ret = unsafe { sys::rte_eth_timesync_read_time(self.port, &mut ts) };
            if ret != 0 {
                return Err(DpdkError::from_ret(
                    format!("rte_eth_timesync_read_time(port {})", self.port),
                    ret,
                ));
            }
            return Ok(timespec_ns(&ts));
        }
        let mut v = 0u64;
        // SAFETY: valid out pointer; ethdev validates the port id.
        let ret = unsafe { sys::rte_eth_read_clock(self.port, &mut v) };
        if ret != 0 {
            return Err(DpdkError::from_ret(
                format!("rte_eth_read_clock(port {})", self.port),
                ret,
            ));
        }
        Ok(v)
    }

    /// The NIC's clock between two TSC reads.
    pub fn bracket(&self) -> Result<NicBracket, DpdkError> {
        let tsc_before = tsc::now();
        let nic = self.read()?;
        let tsc_after = tsc::now();
        Ok(NicBracket {
            tsc_before,
            nic,
            tsc_after,
        })
    }
}

impl Port<'_> {
    /// Whether the driver lists `RTE_ETH_RX_OFFLOAD_TIMESTAMP`.
    pub fn offers_rx_timestamp(&self) -> bool {
        self.info().rx_offload_capa & sys::RTE_ETH_RX_OFFLOAD_TIMESTAMP != 0
    }

    /// Whether `rte_eth_read_clock` works on the port (call once started:
    /// some drivers read the clock through the running device).
    pub fn reads_clock(&self) -> bool {
        NicClockReader::of(self).read().is_ok()
    }

    /// Whether the driver has no `rte_eth_read_clock` at all (`-ENOTSUP`),
    /// which can be told before the port is configured; any other answer
    /// (a clock that reads only once the device runs) is not this.
    pub fn lacks_clock(&self) -> bool {
        NicClockReader::of(self)
            .read()
            .is_err_and(|e| e.errno == libc::ENOTSUP)
    }

    /// Whether IEEE 1588 timesync can be enabled: enables it and, if that
    /// worked, disables it again (virtual devices return `-ENOTSUP`).
    pub fn offers_timesync(&self) -> bool {
        if self.timesync_enable().is_err() {
            return false;
        }
        let _ = self.timesync_disable();
        true
    }

    /// `rte_eth_timesync_enable`.
    pub fn timesync_enable(&self) -> Result<(), DpdkError> {
        // SAFETY: valid port id; no pointers.
        let ret = unsafe { sys::rte_eth_timesync_enable(self.id()) };
        self.timesync_ret("rte_eth_timesync_enable", ret)
    }

    /// `rte_eth_timesync_disable`.
    pub fn timesync_disable(&self) -> Result<(), DpdkError> {
        // SAFETY: valid port id; no pointers.
        let ret = unsafe { sys::rte_eth_timesync_disable(self.id()) };
        self.timesync_ret("rte_eth_timesync_disable", ret)
    }

    /// The NIC's IEEE 1588 clock (`rte_eth_timesync_read_time`), ns.
    pub fn timesync_read_time(&self) -> Result<u64, DpdkError> {
        let mut ts = sys::timespec::default();
        // SAFETY: valid port id and out pointer.
        let ret = unsafe { sys::rte_eth_timesync_read_time(self.id(), &mut ts) };
        self.timesync_ret("rte_eth_timesync_read_time", ret)?;
        Ok(timespec_ns(&ts))
    }

    /// The departure time the NIC latched for the latest frame sent with
    /// `RTE_MBUF_F_TX_IEEE1588_TMST`, ns; `None` while it has none.
    pub fn timesync_read_tx_timestamp(&self) -> Result<Option<u64>, DpdkError> {
        let mut ts = sys::timespec::default();
        // SAFETY: valid port id and out pointer.
        let ret = unsafe { sys::rte_eth_timesync_read_tx_timestamp(self.id(), &mut ts) };
        self.latched("rte_eth_timesync_read_tx_timestamp", ret, &ts)
    }

    /// The arrival time the NIC latched for the latest PTP frame received
    /// (`timesync` index as the driver's RX flags give it), ns; `None`
    /// while it has none.
    pub fn timesync_read_rx_timestamp(&self, index: u32) -> Result<Option<u64>, DpdkError> {
        let mut ts = sys::timespec::default();
        // SAFETY: valid port id and out pointer.
        let ret = unsafe { sys::rte_eth_timesync_read_rx_timestamp(self.id(), &mut ts, index) };
        self.latched("rte_eth_timesync_read_rx_timestamp", ret, &ts)
    }

    fn timesync_ret(&self, what: &str, ret: i32) -> Result<(), DpdkError> {
        if ret != 0 {
            return Err(DpdkError::from_ret(
                format!("{what}(port {})", self.info().name),
                ret,
            ));
        }
        Ok(())
    }

    /// A latched timestamp: `-EINVAL` from the drivers means none yet.
    fn latched(&self, what: &str, ret: i32, ts: &sys::timespec) -> Result<Option<u64>, DpdkError> {
        if ret == -libc::EINVAL {
            return Ok(None);
        }
        self.timesync_ret(what, ret)?;
        Ok(Some(timespec_ns(ts)))
    }
}

fn timespec_ns(ts: &sys::timespec) -> u64 {
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// A port's IEEE 1588 TX latch, enabled: a TX lcore marks one frame of a
/// burst ([`TxBatch::mark_tx_timestamp`](super::TxBatch::mark_tx_timestamp))
/// and reads its departure back here. It holds only the port id (ethdev
/// checks it on every call); timesync stays enabled until the port closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxLatch {
    port: u16,
}

impl TxLatch {
    /// Enables timesync on `port` (`rte_eth_timesync_enable`) and gives
    /// its latch.
    pub fn enable(port: &Port<'_>) -> Result<TxLatch, DpdkError> {
        port.timesync_enable()?;
        Ok(TxLatch { port: port.id() })
    }

    /// The departure the NIC latched for the latest marked frame, ns of
    /// its IEEE 1588 clock (`rte_eth_timesync_read_tx_timestamp`); `None`
    /// while it holds none (or the read fails). Reading clears the latch.
    #[inline]
    pub fn read(&self) -> Option<u64> {
        let mut ts = sys::timespec::default();
        // SAFETY: valid out pointer; ethdev validates the port id.
        let ret = unsafe { sys::rte_eth_timesync_read_tx_timestamp(self.port, &mut ts) };
        (ret == 0).then(|| timespec_ns(&ts))
    }
}

impl TxLatch {
    /// Proves the latch: sends `frame` (without FCS, at most an mbuf's
    /// room) on `queue` of the latch's port, marked for a TX timestamp,
    /// and reads the latch until it holds a departure or `wait` has
    /// passed. Returns whether it latched. The latch is read (cleared)
    /// first, so that an old departure is not taken for the probe's.
    pub fn probe(&self, queue: &mut TxQueue<'_>, frame: &[u8], wait: Duration) -> bool {
        let _ = self.read();
        let mut batch = TxBatch::new(queue);
        if !batch.fill(1) {
            return false;
        }
        batch.frame_mut(0, frame.len()).copy_from_slice(frame);
        if !batch.mark_tx_timestamp(0) {
            return false;
        }
        let start = Instant::now();
        while batch.transmit(queue, 1) != 1 {
            if start.elapsed() >= wait {
                return false;
            }
            std::hint::spin_loop();
        }
        loop {
            if self.read().is_some() {
                return true;
            }
            if start.elapsed() >= wait {
                return false;
            }
            std::thread::sleep(Duration::from_micros(100));
        }
    }
}

/// `RTE_MBUF_F_TX_IEEE1588_TMST`: the `ol_flags` bit asking the NIC to
/// latch a frame's departure time.
pub const TX_IEEE1588_TMST: u64 = sys::RTE_MBUF_F_TX_IEEE1588_TMST;
