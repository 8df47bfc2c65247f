//! A NIC's timestamp counter mapped onto the run's timeline.
//!
//! A port that timestamps frames (`RTE_ETH_RX_OFFLOAD_TIMESTAMP`) writes
//! each arrival into the mbuf's timestamp field in its own clock's units:
//! DPDK leaves the unit to the driver (nanoseconds on some, raw ticks of a
//! free-running counter on others), and `rte_eth_read_clock` reads the
//! same clock. So the unit is not assumed: the main lcore reads the NIC's
//! clock between two TSC reads (a [`NicPair`]), and a least-squares line
//! through the latest pairs ([`NicTracker`]) gives NIC ticks → TSC ticks
//! ([`NicMap`]), with its residual, as `sync` fits the TSC to the kernel's
//! clock. The TSC ticks then join the run's timeline as any arrival TSC
//! does: the shared TSC, or the synchronised clock through `sync`'s
//! mapping.
//!
//! **Counter width.** DPDK hands the timestamp and `rte_eth_read_clock`'s
//! value over as 64-bit numbers, and the drivers of 22.11 that fill them
//! extend narrower hardware counters themselves (ice widens its 32-bit
//! descriptor stamp with the PHC time; mlx5 reads a 64-bit free-running
//! counter), so the runtime takes the counter as [`DPDK_BITS`] wide. The
//! arithmetic here takes any width from 16 to 64 bits: a difference is
//! taken modulo 2^bits and read as signed, which is right as long as a
//! frame's stamp and the mapping's origin lie within half a wrap of each
//! other (2.1 s for a 32-bit nanosecond counter, 9 min at 40 bits); the
//! mapping is refreshed every report interval, and pairs further apart
//! than half a wrap are refused ([`NicTracker::push`]).
//!
//! Which source a receiver uses is decided per port from what it offers
//! ([`select`]): `rx[].timestamps: auto` takes the NIC's stamps when the
//! port both timestamps frames and lets its clock be read, `nic` refuses a
//! port that does not, `software` never asks. A sender's departures
//! ([`select_departure`]): `tx[].timestamps: auto` samples the NIC's
//! IEEE 1588 TX timestamps (`clock::txstamp`) when the port has timesync.

use serde::{Deserialize, Serialize};

use super::sync::{fit, Mapping, Pair, SHIFT, WINDOW};

/// Width the runtime takes the NIC's counter as: DPDK's timestamp field
/// and `rte_eth_read_clock` are 64-bit, drivers extend their counters.
pub const DPDK_BITS: u32 = 64;
/// Narrowest counter the arithmetic takes.
pub const MIN_BITS: u32 = 16;

/// What a receiver's profile asks for its arrival times
/// (`rx[].timestamps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Want {
    /// The NIC's stamps when the port offers them, else the software's.
    #[default]
    Auto,
    /// The NIC's stamps; a port without them is refused.
    Nic,
    /// The TSC read after each poll, whatever the port offers.
    Software,
}

impl Want {
    /// The profile's word.
    pub fn name(self) -> &'static str {
        match self {
            Want::Auto => "auto",
            Want::Nic => "nic",
            Want::Software => "software",
        }
    }
}

/// What a port offers for timestamps, as the runtime detected it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NicCaps {
    /// `RTE_ETH_RX_OFFLOAD_TIMESTAMP` in the driver's RX offloads.
    pub rx_timestamp: bool,
    /// `rte_eth_read_clock` works (the clock of the RX stamps can be read).
    pub read_clock: bool,
    /// `rte_eth_timesync_enable` works (IEEE 1588 TX/RX timestamps).
    pub timesync: bool,
}

/// Where a receiver's arrival times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrival {
    /// The TSC read after the poll that returned the frame.
    #[default]
    Software,
    /// The NIC's RX timestamp, mapped onto the TSC.
    NicRx,
}

impl Arrival {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Arrival::Software => "software",
            Arrival::NicRx => "nic_rx",
        }
    }
}

/// The arrival source of a receiver that asks `want` of port `port`
/// (driver `driver`) offering `caps`, or why `nic` cannot be had.
pub fn select(want: Want, caps: NicCaps, port: &str, driver: &str) -> Result<Arrival, String> {
    let usable = caps.rx_timestamp && caps.read_clock;
    match want {
        Want::Software => Ok(Arrival::Software),
        Want::Auto if usable => Ok(Arrival::NicRx),
        Want::Auto => Ok(Arrival::Software),
        Want::Nic if usable => Ok(Arrival::NicRx),
        Want::Nic if !caps.rx_timestamp => Err(format!(
            "`nic` asked, but port `{port}` (driver {driver}) does not timestamp \
             received frames (no RTE_ETH_RX_OFFLOAD_TIMESTAMP); use `auto` or `software`"
        )),
        Want::Nic => Err(format!(
            "`nic` asked, but port `{port}` (driver {driver}) timestamps frames on a \
             clock it does not let be read (rte_eth_read_clock not supported), so its \
             stamps cannot be put on the run's timeline; use `auto` or `software`"
        )),
    }
}

/// Whether a port asks its driver for RX timestamps
/// (`RTE_ETH_RX_OFFLOAD_TIMESTAMP`), decided before it is configured from
/// what its receivers want (`wants`), whether the driver offers the
/// offload (`offered`) and whether it lacks `rte_eth_read_clock` outright
/// (`no_clock`). Only when NIC stamps will be read: the offload is not
/// free (ice leaves its vector RX path for it), and stamps on a clock that
/// cannot be read are never used ([`select`] picks the software's for
/// `auto` and refuses `nic` with the reason).
pub fn asks_rx_timestamp(
    wants: impl IntoIterator<Item = Want>,
    offered: bool,
    no_clock: bool,
) -> bool {
    offered && !no_clock && wants.into_iter().any(|w| w != Want::Software)
}

/// Where a sender's departure times come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Departure {
    /// The TSC read before `tx_burst`, as stamped.
    #[default]
    Software,
    /// The stamp corrected by the mean offset of the NIC's sampled
    /// IEEE 1588 TX timestamps (`clock::txstamp`).
    Nic,
}

impl Departure {
    /// The JSON name.
    pub fn name(self) -> &'static str {
        match self {
            Departure::Software => "software",
            Departure::Nic => "nic",
        }
    }
}

/// The departure source of a sender that asks `want` (`tx[].timestamps`)
/// of port `port` (driver `driver`) offering `caps`, or why `nic` cannot
/// be had. `auto` takes the NIC's TX timestamps when the port has IEEE
/// 1588 timesync, else the software stamp (and the result says so).
pub fn select_departure(
    want: Want,
    caps: NicCaps,
    port: &str,
    driver: &str,
) -> Result<Departure, String> {
    match want {
        Want::Software => Ok(Departure::Software),
        Want::Auto | Want::Nic if caps.timesync => Ok(Departure::Nic),
        Want::Auto => Ok(Departure::Software),
        Want::Nic => Err(format!(
            "`nic` asked, but port `{port}` (driver {driver}) has no IEEE 1588 timesync \
             (rte_eth_timesync_enable not supported), so it latches no TX timestamps; \
             use `auto` or `software`"
        )),
    }
}

/// How long a port's TX latch is given to latch the probe frame sent
/// when a sender takes the NIC's departures ([`after_probe`]), ms.
pub const LATCH_PROBE_MS: u64 = 20;

/// The departure source once the port's TX latch was proven or not: a
/// sender whose selection ([`select_departure`]) took the NIC's had one
/// probe frame marked and sent at the start, and `latched` says whether
/// the latch held its departure within [`LATCH_PROBE_MS`]. Not latched,
/// `auto` falls back to the software stamp; `nic` is refused, saying why.
///
/// A port may offer timesync (`rte_eth_timesync_enable` succeeds) and
/// still never latch: ixgbe and i40e set the descriptor's 1588 bit only
/// when DPDK is built with `RTE_LIBRTE_IEEE1588` (`ixgbe_xmit_pkts`,
/// `i40e_xmit_pkts`), which Debian's packages are not.
pub fn after_probe(
    want: Want,
    selected: Departure,
    latched: bool,
    port: &str,
    driver: &str,
) -> Result<Departure, String> {
    match (selected, latched, want) {
        (Departure::Software, _, _) | (Departure::Nic, true, _) => Ok(selected),
        (Departure::Nic, false, Want::Nic) => Err(format!(
            "`nic` asked, but port `{port}` (driver {driver}) latched no TX timestamp for a \
             probe frame within {LATCH_PROBE_MS} ms: its timesync is enabled but its TX path \
             never asks the NIC to latch (ixgbe and i40e do only when DPDK is built with \
             RTE_LIBRTE_IEEE1588, which Debian's packages are not); use `auto` or `software`"
        )),
        (Departure::Nic, false, _) => Ok(Departure::Software),
    }
}

/// A counter `bits` wide: differences modulo 2^bits, read as signed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counter {
    bits: u32,
}

impl Counter {
    /// A counter of `bits` bits, [`MIN_BITS`] to 64.
    pub fn new(bits: u32) -> Option<Counter> {
        (MIN_BITS..=64).contains(&bits).then_some(Counter { bits })
    }

    /// `to − from` in ticks, modulo 2^bits, in [−2^(bits−1), 2^(bits−1)).
    #[inline(always)]
    pub fn delta(self, from: u64, to: u64) -> i64 {
        let d = to.wrapping_sub(from);
        let up = 64 - self.bits;
        ((d << up) as i64) >> up
    }
}

/// NIC ticks → TSC ticks: `base_tsc + (Δ(base_nic, raw) × mult) >> SHIFT`
/// (rounded), with Δ the counter's signed, wrap-aware difference. What an
/// RX lcore applies, once per frame with a NIC stamp, in bulk per burst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicMap {
    /// The NIC counter at the origin, as the NIC reads it (raw).
    pub base_nic: u64,
    /// TSC at the origin.
    pub base_tsc: u64,
    /// TSC ticks per NIC tick, times 2^[`SHIFT`].
    pub mult: u64,
    /// The counter's width.
    pub counter: Counter,
}

impl NicMap {
    /// The TSC value of NIC reading `raw`.
    #[inline(always)]
    pub fn tsc(&self, raw: u64) -> u64 {
        let d = self.counter.delta(self.base_nic, raw);
        let off = (i128::from(d) * i128::from(self.mult) + (1 << (SHIFT - 1))) >> SHIFT;
        self.base_tsc.wrapping_add_signed(off as i64)
    }

    /// The map in a [`Mapping`]'s three words, to hand to the workers
    /// through a `SharedMapping` (`base_tsc` holds the NIC origin,
    /// `base_ns` the TSC origin).
    pub fn to_words(self) -> Mapping {
        Mapping {
            base_tsc: self.base_nic,
            base_ns: self.base_tsc,
            mult: self.mult,
        }
    }

    /// The map [`to_words`](Self::to_words) made, for a counter `counter`.
    #[inline(always)]
    pub fn from_words(m: Mapping, counter: Counter) -> NicMap {
        NicMap {
            base_nic: m.base_tsc,
            base_tsc: m.base_ns,
            mult: m.mult,
            counter,
        }
    }
}

/// One NIC clock reading and the TSC at that moment (the midpoint of the
/// two TSC reads around it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NicPair {
    /// The NIC's counter, raw.
    pub nic: u64,
    /// TSC ticks.
    pub tsc: u64,
}

impl NicPair {
    /// The pair of a NIC read between TSC reads `before` and `after`, and
    /// the bracket's half-width in TSC ticks.
    pub fn bracketed(before: u64, nic: u64, after: u64) -> (NicPair, u64) {
        let w = after.wrapping_sub(before);
        (
            NicPair {
                nic,
                tsc: before.wrapping_add(w / 2),
            },
            w.div_ceil(2),
        )
    }
}

/// Why a pair was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairRefused {
    /// The NIC's counter went backwards or moved by half a wrap or more
    /// since the previous pair: its wraps cannot be counted.
    TooFarApart,
}

/// The latest [`WINDOW`] pairs of one NIC clock and the map through them.
///
/// Its residual, as `sync::Tracker`'s, is the larger of the distance of a
/// pair from the line fitted through the window and the distance of a new
/// pair from the map published before it; half the widest TSC bracket is
/// added by [`residual_ns`](Self::residual_ns).
#[derive(Debug, Clone)]
pub struct NicTracker {
    counter: Counter,
    tsc_hz: u64,
    /// (NIC counter unwrapped to 64 bits, TSC).
    pairs: Vec<Pair>,
    last_raw: u64,
    worst_ticks: f64,
    half_bracket_ticks: u64,
    taken: u64,
    map: Option<NicMap>,
}

impl NicTracker {
    /// A tracker for a `counter`-wide NIC clock against a TSC of about
    /// `tsc_hz`.
    pub fn new(counter: Counter, tsc_hz: u64) -> Self {
        NicTracker {
            counter,
            tsc_hz,
            pairs: Vec::with_capacity(WINDOW + 1),
            last_raw: 0,
            worst_ticks: 0.0,
            half_bracket_ticks: 0,
            taken: 0,
            map: None,
        }
    }

    /// Adds a pair whose TSC bracket was `half_bracket` ticks either side,
    /// and fits again; the map once two pairs are in (one pair gives no
    /// rate: the NIC's unit is unknown).
    pub fn push(&mut self, p: NicPair, half_bracket: u64) -> Result<Option<NicMap>, PairRefused> {
        let unwrapped = match self.pairs.last() {
            None => p.nic,
            Some(prev) => {
                let d = self.counter.delta(self.last_raw, p.nic);
                if d <= 0 {
                    return Err(PairRefused::TooFarApart);
                }
                prev.tsc.wrapping_add(d as u64)
            }
        };
        if let Some(m) = &self.map {
            let miss = m.tsc(p.nic).wrapping_sub(p.tsc) as i64;
            self.worst_ticks = self.worst_ticks.max(miss.unsigned_abs() as f64);
        }
        if self.pairs.len() == WINDOW {
            self.pairs.remove(0);
        }
        // `Pair` carries x in `tsc`, y in `ns`: here NIC → TSC.
        self.pairs.push(Pair {
            tsc: unwrapped,
            ns: p.tsc,
        });
        self.last_raw = p.nic;
        self.taken += 1;
        self.half_bracket_ticks = self.half_bracket_ticks.max(half_bracket);
        if self.pairs.len() < 2 {
            return Ok(None);
        }
        let f = fit(&self.pairs, 0).expect("two pairs");
        self.worst_ticks = self.worst_ticks.max(f.residual_ns);
        let m = NicMap {
            base_nic: f.mapping.base_tsc & mask(self.counter.bits),
            base_tsc: f.mapping.base_ns,
            mult: f.mapping.mult,
            counter: self.counter,
        };
        self.map = Some(m);
        Ok(Some(m))
    }

    /// The latest map (none before two pairs).
    pub fn map(&self) -> Option<NicMap> {
        self.map
    }

    /// The NIC's rate by the latest fit, ticks per second (0 before two
    /// pairs).
    pub fn nic_hz(&self) -> f64 {
        match self.map {
            Some(m) if m.mult > 0 => self.tsc_hz as f64 * (1u64 << SHIFT) as f64 / m.mult as f64,
            _ => 0.0,
        }
    }

    /// The map's worst error over the run, ns: the residual plus half the
    /// widest bracket.
    pub fn residual_ns(&self) -> f64 {
        (self.worst_ticks + self.half_bracket_ticks as f64) * 1e9 / self.tsc_hz.max(1) as f64
    }

    /// Pairs taken.
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// The clock over the run, for the result.
    pub fn report(&self, read: &str) -> NicClock {
        NicClock {
            read: read.to_string(),
            bits: self.counter.bits,
            hz: self.nic_hz(),
            residual_ns: self.residual_ns(),
            pairs: self.taken(),
        }
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// A NIC clock over a run, as the result records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NicClock {
    /// How it was read (`rte_eth_read_clock`).
    pub read: String,
    /// The counter's width as taken.
    pub bits: u32,
    /// Its rate by the fit against the TSC, ticks per second.
    pub hz: f64,
    /// The NIC → TSC map's worst error over the run, ns: it adds to the
    /// latency's bound.
    pub residual_ns: f64,
    /// Pairs read.
    pub pairs: u64,
}

/// How a port's timestamps were taken, as the result records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PortStamps {
    /// What its receivers asked (`auto`, `nic`, `software`; the most
    /// demanding of them).
    pub asked: Want,
    /// What the port offered.
    pub offered: NicCaps,
    /// Where its receivers' arrival times came from.
    pub rx: Arrival,
    /// Where its senders' departure times came from: `software` (the TSC
    /// read before `tx_burst`), or `nic` (that stamp corrected by the
    /// NIC's sampled IEEE 1588 TX timestamps).
    pub tx: Departure,
    /// What its senders asked (`tx[].timestamps`, the most demanding of
    /// them); `None` on a port nothing sends on.
    #[serde(default)]
    pub tx_asked: Option<Want>,
    /// The NIC clock mapped onto the TSC, when its stamps were used.
    #[serde(default)]
    pub nic_clock: Option<NicClock>,
    /// The NIC's IEEE 1588 clock mapped onto the TSC, when its TX
    /// timestamps were sampled (`rte_eth_timesync_read_time`).
    #[serde(default)]
    pub tx_clock: Option<NicClock>,
    /// Whether the TX latch held the probe frame's departure at the start
    /// ([`after_probe`]); `None` when it was not probed (no sender took
    /// the NIC's departures).
    #[serde(default)]
    pub tx_latch_probe: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rx_timestamp_offload_is_asked_only_for_stamps_that_will_be_read() {
        use Want::*;
        // ice in DPDK 22.11: the offload offered, no read_clock op.
        assert!(!asks_rx_timestamp([Auto], true, true));
        assert!(!asks_rx_timestamp([Nic], true, true));
        // A clock that can be read (or that reads once started).
        assert!(asks_rx_timestamp([Auto], true, false));
        assert!(asks_rx_timestamp([Software, Nic], true, false));
        // Nobody wants them, or the driver has none.
        assert!(!asks_rx_timestamp([Software, Software], true, false));
        assert!(!asks_rx_timestamp([], true, false));
        assert!(!asks_rx_timestamp([Auto, Nic], false, false));
    }

    const HZ: u64 = 2_500_000_000;

    /// `auto` keeps the NIC's departures only once the latch proved
    /// itself; `nic` without a latch is refused, saying why.
    #[test]
    fn a_latch_that_never_latches_falls_back_or_refuses() {
        use Departure::{Nic, Software};
        let probe = |want, sel, latched| after_probe(want, sel, latched, "p1", "net_ixgbe");
        assert_eq!(probe(Want::Auto, Nic, true), Ok(Nic));
        assert_eq!(probe(Want::Nic, Nic, true), Ok(Nic));
        assert_eq!(probe(Want::Auto, Nic, false), Ok(Software));
        assert_eq!(probe(Want::Auto, Software, false), Ok(Software));
        assert_eq!(probe(Want::Software, Software, true), Ok(Software));
        assert_eq!(
            probe(Want::Nic, Nic, false),
            Err(
                "`nic` asked, but port `p1` (driver net_ixgbe) latched no TX timestamp for a \
                 probe frame within 20 ms: its timesync is enabled but its TX path never asks \
                 the NIC to latch (ixgbe and i40e do only when DPDK is built with \
                 RTE_LIBRTE_IEEE1588, which Debian's packages are not); use `auto` or `software`"
                    .to_string()
            )
        );
    }

    /// A fake NIC clock: `num/den` NIC ticks per TSC tick, reading `offset`
    /// at TSC 0, `bits` wide.
    struct FakeNic {
        num: u64,
        den: u64,
        offset: u64,
        bits: u32,
    }

    impl FakeNic {
        fn at(&self, tsc: u64) -> u64 {
            let t = (u128::from(tsc) * u128::from(self.num) / u128::from(self.den)) as u64;
            self.offset.wrapping_add(t) & mask(self.bits)
        }

        /// Pairs every `step` TSC ticks from TSC `t0`, `n` of them, with a
        /// bracket of 2 ticks.
        fn track(&self, t0: u64, step: u64, n: u64) -> NicTracker {
            let mut t = NicTracker::new(Counter::new(self.bits).unwrap(), HZ);
            for i in 0..n {
                let tsc = t0 + i * step;
                let (p, half) = NicPair::bracketed(tsc - 1, self.at(tsc), tsc + 1);
                t.push(p, half).unwrap();
            }
            t
        }
    }

    #[test]
    fn a_nanosecond_nic_clock_maps_onto_the_tsc_exactly() {
        // 1 GHz NIC, 2.5 GHz TSC: 2 NIC ticks per 5 TSC ticks.
        let nic = FakeNic {
            num: 2,
            den: 5,
            offset: 1_764_633_600_000_000_000,
            bits: 64,
        };
        let t = nic.track(10 * HZ, HZ, 5);
        let m = t.map().unwrap();
        assert_eq!(t.taken(), 5);
        assert_eq!(t.nic_hz().round(), 1e9);
        // A frame stamped 3.2 s after TSC 10 s maps to its TSC within a
        // tick (the fixed point's rounding).
        let tsc = 13 * HZ + HZ / 5;
        assert_eq!(m.tsc(nic.at(tsc)), tsc);
        assert_eq!(m.tsc(nic.at(tsc + 5)), tsc + 5);
        // Before the origin too (the difference is signed).
        assert_eq!(m.tsc(nic.at(11 * HZ)), 11 * HZ);
        // The bound: no residual, half a 2-tick bracket: 1 tick = 0.4 ns.
        assert_eq!(t.residual_ns(), 0.4);
    }

    #[test]
    fn an_unknown_unit_is_found_by_the_fit() {
        // A 156.25 MHz counter (16 TSC ticks per NIC tick).
        let nic = FakeNic {
            num: 1,
            den: 16,
            offset: 77,
            bits: 64,
        };
        let t = nic.track(HZ, HZ / 2, 8);
        assert_eq!(t.nic_hz().round(), 156_250_000.0);
        let m = t.map().unwrap();
        assert_eq!(m.mult, 16 << SHIFT);
        let tsc = 4 * HZ;
        assert_eq!(m.tsc(nic.at(tsc)), tsc);
    }

    #[test]
    fn a_32_bit_counter_wraps_and_still_maps() {
        // A 32-bit nanosecond counter wraps every 4.29 s: pairs every
        // second across two wraps, a frame stamped after the last wrap.
        let nic = FakeNic {
            num: 2,
            den: 5,
            offset: 0xFFFF_0000,
            bits: 32,
        };
        let t = nic.track(HZ, HZ, 10);
        let m = t.map().unwrap();
        assert_eq!(t.nic_hz().round(), 1e9);
        assert!(m.base_nic <= u64::from(u32::MAX));
        let wraps = (1..10u64)
            .filter(|i| nic.at((i + 1) * HZ) < nic.at(i * HZ))
            .count();
        assert_eq!(wraps, 2);
        let tsc = 10 * HZ + 12_345;
        assert_eq!(m.tsc(nic.at(tsc)), tsc);
        // A stamp just before the origin, across the wrap.
        let c = Counter::new(32).unwrap();
        assert_eq!(c.delta(0xFFFF_FFF0, 0x10), 0x20);
        assert_eq!(c.delta(0x10, 0xFFFF_FFF0), -0x20);
        // Half a wrap apart: read as behind.
        assert_eq!(c.delta(0, 1 << 31), -(1 << 31));
    }

    #[test]
    fn a_40_bit_counter_wraps_and_still_maps() {
        let nic = FakeNic {
            num: 2,
            den: 5,
            offset: (1u64 << 40) - 3_000_000_000,
            bits: 40,
        };
        let t = nic.track(HZ, HZ, 6);
        let m = t.map().unwrap();
        let tsc = 6 * HZ + 999;
        assert!(nic.at(tsc) < nic.at(HZ));
        // 999 TSC ticks are 399.6 NIC ticks, read as 399: 2.5 TSC ticks
        // of truncation, the fake counter's own.
        assert_eq!(m.tsc(nic.at(tsc)), tsc - 1);
        assert_eq!(m.tsc(nic.at(tsc + 1)), tsc + 1);
    }

    #[test]
    fn pairs_half_a_wrap_apart_are_refused() {
        let c = Counter::new(16).unwrap();
        let mut t = NicTracker::new(c, HZ);
        assert_eq!(t.push(NicPair { nic: 100, tsc: 0 }, 1), Ok(None));
        // 2^15 ticks later: half a wrap, the sign is lost.
        let far = NicPair {
            nic: 100 + (1 << 15),
            tsc: 1000,
        };
        assert_eq!(t.push(far, 1), Err(PairRefused::TooFarApart));
        // Backwards.
        let back = NicPair { nic: 90, tsc: 2000 };
        assert_eq!(t.push(back, 1), Err(PairRefused::TooFarApart));
        assert_eq!(t.taken(), 1);
        assert!(Counter::new(15).is_none());
        assert!(Counter::new(65).is_none());
    }

    #[test]
    fn skew_between_pairs_shows_in_the_residual() {
        // 1 GHz, then 10 ppm fast after the 4th pair: the map published
        // before the change misses the next pair by 10 µs × 2.5 ticks.
        let mut t = NicTracker::new(Counter::new(64).unwrap(), HZ);
        let mut nic = 1_000u64;
        for i in 0..8u64 {
            let tsc = i * HZ;
            if i > 0 {
                nic += if i > 4 { 1_000_010_000 } else { 1_000_000_000 };
            }
            t.push(NicPair { nic, tsc }, 0).unwrap();
        }
        // The map through the first five pairs misses the sixth by 10_000
        // NIC ticks (25_000 TSC ticks, 10 µs); the line through a window
        // that straddles the change still leans to the old rate and misses
        // the seventh by more: 35_714 ticks, the run's worst.
        assert_eq!(t.residual_ns(), 14_285.6);
        // The rate follows the skew: the latest window leans to 1 GHz + 10 ppm.
        assert!(t.nic_hz() > 1e9, "{}", t.nic_hz());
    }

    #[test]
    fn the_arrival_source_follows_what_is_asked_and_offered() {
        let none = NicCaps::default();
        let full = NicCaps {
            rx_timestamp: true,
            read_clock: true,
            timesync: true,
        };
        let no_clock = NicCaps {
            read_clock: false,
            ..full
        };
        let sel = |w, c| select(w, c, "p0", "net_x");
        assert_eq!(sel(Want::Auto, full), Ok(Arrival::NicRx));
        assert_eq!(sel(Want::Auto, none), Ok(Arrival::Software));
        assert_eq!(sel(Want::Auto, no_clock), Ok(Arrival::Software));
        assert_eq!(sel(Want::Nic, full), Ok(Arrival::NicRx));
        assert_eq!(sel(Want::Software, full), Ok(Arrival::Software));
        assert_eq!(sel(Want::Software, none), Ok(Arrival::Software));
        assert_eq!(
            sel(Want::Nic, none).unwrap_err(),
            "`nic` asked, but port `p0` (driver net_x) does not timestamp received \
             frames (no RTE_ETH_RX_OFFLOAD_TIMESTAMP); use `auto` or `software`"
        );
        assert!(sel(Want::Nic, no_clock)
            .unwrap_err()
            .contains("(driver net_x) timestamps frames on a clock it does not let be read"),);
        assert_eq!(Arrival::NicRx.name(), "nic_rx");
        assert_eq!(
            serde_json::to_string(&Arrival::NicRx).unwrap(),
            "\"nic_rx\""
        );
        assert_eq!(
            serde_json::to_string(&Want::Software).unwrap(),
            "\"software\""
        );
    }

    #[test]
    fn the_departure_source_follows_what_is_asked_and_offered() {
        let none = NicCaps::default();
        let sync = NicCaps {
            timesync: true,
            ..none
        };
        let sel = |w, c| select_departure(w, c, "p1", "net_ice");
        assert_eq!(sel(Want::Auto, sync), Ok(Departure::Nic));
        assert_eq!(sel(Want::Nic, sync), Ok(Departure::Nic));
        assert_eq!(sel(Want::Auto, none), Ok(Departure::Software));
        assert_eq!(sel(Want::Software, sync), Ok(Departure::Software));
        assert_eq!(sel(Want::Software, none), Ok(Departure::Software));
        assert_eq!(
            sel(Want::Nic, none).unwrap_err(),
            "`nic` asked, but port `p1` (driver net_ice) has no IEEE 1588 timesync \
             (rte_eth_timesync_enable not supported), so it latches no TX timestamps; \
             use `auto` or `software`"
        );
        // RX timestamps alone do not make TX ones.
        let rx_only = NicCaps {
            rx_timestamp: true,
            read_clock: true,
            timesync: false,
        };
        assert_eq!(sel(Want::Auto, rx_only), Ok(Departure::Software));
        assert_eq!(Departure::Nic.name(), "nic");
        assert_eq!(Departure::Software.name(), "software");
        assert_eq!(serde_json::to_string(&Departure::Nic).unwrap(), "\"nic\"");
    }

    #[test]
    fn the_map_crosses_a_shared_mapping_whole() {
        let m = NicMap {
            base_nic: 5,
            base_tsc: 1_000,
            mult: 3 << SHIFT,
            counter: Counter::new(40).unwrap(),
        };
        let back = NicMap::from_words(m.to_words(), m.counter);
        assert_eq!(back, m);
        assert_eq!(back.tsc(7), 1_006);
        assert_eq!(back.tsc(4), 997);
        let (p, half) = NicPair::bracketed(100, 9, 105);
        assert_eq!((p.tsc, half), (102, 3));
    }
}
