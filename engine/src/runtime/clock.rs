//! The TSC measured against the monotonic clock: readings from
//! `dpdk::tsc`, arithmetic from `pace::tsc`.
//!
//! EAL's own `rte_get_tsc_hz()` is rounded to 10 MHz (0.15 % off on a
//! 2596 MHz part); a rate meant to be right to 0.01 % needs the frequency
//! measured, which [`calibrate`] does before a run and [`hz_between`] over
//! the run itself.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::clock::nic::{Counter, NicClock, NicPair, NicTracker, PortStamps, DPDK_BITS};
use crate::clock::sync::{ClockId, KernelStatus, Pair, SharedMapping, SideClock, Tracker};
use crate::config::{ClockServo, SyncedClock};
use crate::dpdk::{kclock, tsc, DpdkError, NicClockReader};
use crate::pace::tsc::{measure_hz, TscSample};

/// Clock reads tried for one pair; the narrowest TSC bracket is kept.
const PAIR_TRIES: usize = 5;
/// Time between the two pairs a NIC clock's first map is fitted through
/// (its unit is unknown until two readings are apart).
const NIC_START_GAP: Duration = Duration::from_millis(20);

/// A TSC reading paired with the monotonic clock (the midpoint of the two
/// TSC reads bracketing the clock read; see [`TscSample::bracketed`]).
pub(super) fn sample() -> TscSample {
    let b = tsc::bracket();
    TscSample::bracketed(b.tsc_before, b.ns, b.tsc_after)
}

/// The TSC frequency in Hz between two samples (0 if they are out of
/// order, which a monotonic clock and an invariant TSC never are).
pub(super) fn hz_between(a: TscSample, b: TscSample) -> u64 {
    measure_hz(a, b).unwrap_or(0)
}

/// Measure the TSC frequency against the monotonic clock over `span`
/// (busy-waiting; 1 µs of read uncertainty over 100 ms is 10 ppm).
pub(super) fn calibrate(span: Duration) -> u64 {
    let a = sample();
    let start = Instant::now();
    while start.elapsed() < span {
        std::hint::spin_loop();
    }
    hz_between(a, sample())
}

/// One synchronised clock of a run: its pairs, the fit, the mapping the
/// workers read, and the kernel's worst view of it over the run. Read on
/// the main lcore only: at start and every report interval.
pub(crate) struct SyncClock {
    clock: SyncedClock,
    tsc_hz: u64,
    tracker: Tracker,
    shared: Arc<SharedMapping>,
    kernel: Option<KernelStatus>,
    /// Largest half-width of a pair's TSC bracket, ns.
    read_ns: f64,
    /// The PTP servo read beside the kernel, if any.
    servo: Option<super::servo::Servo>,
}

impl SyncClock {
    /// Starts tracking `clock` for a TSC of `tsc_hz`: the first pair, the
    /// kernel's status, the servo's first sample, a mapping at the
    /// measured rate published. A servo the profile names that does not
    /// answer is an error (the reason); the default socket is read only
    /// when it answers.
    pub(crate) fn start(
        clock: SyncedClock,
        servo: &ClockServo,
        tsc_hz: u64,
    ) -> Result<Self, String> {
        let servo = match servo {
            ClockServo::None => None,
            ClockServo::Auto => {
                let path = std::path::Path::new(crate::clock::ptp::DEFAULT_SOCKET);
                path.exists()
                    .then(|| super::servo::Servo::start(path).ok())
                    .flatten()
            }
            ClockServo::Ptp4l(path) => Some(
                super::servo::Servo::start(path)
                    .map_err(|e| format!("ptp4l at {}: {e}", path.display()))?,
            ),
        };
        let mut s = SyncClock {
            clock,
            tsc_hz,
            tracker: Tracker::new(tsc_hz),
            shared: Arc::new(SharedMapping::default()),
            kernel: None,
            read_ns: 0.0,
            servo,
        };
        s.pair_and_kernel();
        Ok(s)
    }

    /// The mapping the workers read.
    pub(crate) fn mapping(&self) -> Arc<SharedMapping> {
        Arc::clone(&self.shared)
    }

    /// Reads a pair and the kernel's status, fits and publishes; samples
    /// the servo if its turn has come.
    pub(crate) fn tick(&mut self) {
        self.pair_and_kernel();
        if let Some(s) = &mut self.servo {
            s.tick(false);
        }
    }

    /// Reads a pair and the kernel's status, fits and publishes.
    fn pair_and_kernel(&mut self) {
        let (pair, half) = self.pair();
        self.read_ns = self.read_ns.max(half);
        let fit = self.tracker.push(pair);
        self.shared.publish(&fit.mapping);
        let k = kclock::adjtimex()
            .map(|(st, status, est, max)| KernelStatus::from_timex(st, status, est, max))
            .unwrap_or(KernelStatus {
                synced: false,
                esterror_ns: 0.0,
                maxerror_ns: 0.0,
            });
        self.kernel = Some(self.kernel.map_or(k, |w| w.worse(k)));
    }

    /// The narrowest of [`PAIR_TRIES`] brackets as a pair, and its
    /// half-width in ns.
    fn pair(&self) -> (Pair, f64) {
        let which = match self.clock.id {
            ClockId::Realtime => kclock::Kernel::Realtime,
            ClockId::Tai => kclock::Kernel::Tai,
        };
        let best = (0..PAIR_TRIES)
            .map(|_| kclock::bracket(which))
            .min_by_key(|b| b.tsc_after.wrapping_sub(b.tsc_before))
            .expect("PAIR_TRIES > 0");
        let width = best.tsc_after.wrapping_sub(best.tsc_before);
        let pair = Pair {
            tsc: best.tsc_before + width / 2,
            ns: best.ns,
        };
        (pair, width as f64 * 1e9 / self.tsc_hz.max(1) as f64 / 2.0)
    }

    /// The clock over the run, for the result: a last pair (and servo
    /// sample) read first.
    pub(crate) fn report(&mut self) -> SideClock {
        self.pair_and_kernel();
        if let Some(s) = &mut self.servo {
            s.tick(true);
        }
        let mut c = SideClock {
            clock: self.clock.id,
            kernel: self.kernel.expect("read at start"),
            servo: self.servo.as_ref().map(super::servo::Servo::record),
            error_from: None,
            declared_error_ns: self.clock.declared_error.map(|d| d.as_nanos() as f64),
            residual_ns: self.tracker.worst_residual_ns() + self.read_ns,
            skew_ppm: self.tracker.skew_ppm(),
            pairs: self.tracker.taken(),
            nic_residual_ns: None,
        };
        c.error_from = Some(c.source());
        c
    }
}

/// One port's NIC clock mapped onto the TSC: pairs read on the main lcore
/// at start and every report interval, the fit, the map the receivers
/// read (`clock::nic`).
pub(crate) struct NicSync {
    /// Index of the port in the plan.
    pub port: usize,
    reader: NicClockReader,
    tracker: NicTracker,
    shared: Arc<SharedMapping>,
}

impl NicSync {
    /// Starts mapping port `port`'s clock, read by `reader`, onto a TSC of
    /// `tsc_hz`: two pairs [`NIC_START_GAP`] apart, the first map
    /// published.
    pub(crate) fn start(
        port: usize,
        reader: NicClockReader,
        tsc_hz: u64,
    ) -> Result<Self, DpdkError> {
        let counter = Counter::new(DPDK_BITS).expect("64 bits is a width");
        let mut s = NicSync {
            port,
            reader,
            tracker: NicTracker::new(counter, tsc_hz),
            shared: Arc::new(SharedMapping::default()),
        };
        s.read_pair()?;
        std::thread::sleep(NIC_START_GAP);
        s.read_pair()?;
        if s.tracker.map().is_none() {
            return Err(DpdkError::msg(
                format!("{}(port {})", s.reader.call(), s.reader.port_id()),
                "the NIC's clock did not advance",
            ));
        }
        Ok(s)
    }

    /// The map the receivers read.
    pub(crate) fn mapping(&self) -> Arc<SharedMapping> {
        Arc::clone(&self.shared)
    }

    /// The counter's width, as the receivers take it.
    pub(crate) fn counter(&self) -> Counter {
        Counter::new(DPDK_BITS).expect("64 bits is a width")
    }

    /// Reads a pair (the narrowest of [`PAIR_TRIES`] brackets), fits and
    /// publishes. A pair the tracker refuses is dropped.
    fn read_pair(&mut self) -> Result<(), DpdkError> {
        let mut best = None;
        for _ in 0..PAIR_TRIES {
            let b = self.reader.bracket()?;
            let w = b.tsc_after.wrapping_sub(b.tsc_before);
            if best.is_none_or(|(bw, _)| w < bw) {
                best = Some((w, b));
            }
        }
        let (_, b) = best.expect("PAIR_TRIES > 0");
        let (pair, half) = NicPair::bracketed(b.tsc_before, b.nic, b.tsc_after);
        if let Ok(Some(m)) = self.tracker.push(pair, half) {
            self.shared.publish(&m.to_words());
        }
        Ok(())
    }

    /// A pair, every report interval (a failed read is skipped).
    pub(crate) fn tick(&mut self) {
        let _ = self.read_pair();
    }

    /// The clock over the run, for the result: a last pair read first.
    pub(crate) fn report(&mut self) -> NicClock {
        self.tick();
        self.tracker.report(self.reader.call())
    }
}

/// The synchronised clocks of a run: the senders' and the receivers'
/// (each the first synced task's of its side; one process may have both),
/// and the NIC clocks its receivers take arrival times from.
#[derive(Default)]
pub(crate) struct Syncs {
    /// The clock the TX stamps carry.
    pub tx: Option<SyncClock>,
    /// The clock the receivers map their TSC onto.
    pub rx: Option<SyncClock>,
    /// The NIC clocks mapped onto the TSC, one per port whose RX
    /// timestamps are used.
    pub nic: Vec<NicSync>,
    /// The IEEE 1588 clocks mapped onto the TSC, one per port whose TX
    /// timestamps are sampled.
    pub tx_nic: Vec<NicSync>,
    /// How each receiving or sending port's timestamps were taken, by
    /// port index.
    pub stamps: Vec<(usize, PortStamps)>,
}

impl Syncs {
    /// The clocks `plan` asks for, started; a servo the profile names
    /// that does not answer is an error naming its field.
    pub(crate) fn start(plan: &crate::config::Plan, tsc_hz: u64) -> crate::Result<Self> {
        use crate::config::{Clock, TxClock};
        let tx = plan.tx.iter().enumerate().find_map(|(i, t)| match t.clock {
            TxClock::Synced(c) => Some((format!("tx[{i}].clock_servo"), c, &t.clock_servo)),
            TxClock::Tsc => None,
        });
        let rx = plan.rx.iter().enumerate().find_map(|(i, r)| match r.clock {
            Clock::Synced { clock, .. } => {
                Some((format!("rx[{i}].clock_servo"), clock, &r.clock_servo))
            }
            _ => None,
        });
        let start = |side: Option<(String, SyncedClock, &ClockServo)>| {
            side.map(|(field, c, servo)| {
                SyncClock::start(c, servo, tsc_hz).map_err(|e| super::perr(plan, &field, e))
            })
            .transpose()
        };
        Ok(Syncs {
            tx: start(tx)?,
            rx: start(rx)?,
            nic: Vec::new(),
            tx_nic: Vec::new(),
            stamps: Vec::new(),
        })
    }

    /// A pair for each clock (every report interval).
    pub(crate) fn tick(&mut self) {
        self.tx
            .iter_mut()
            .chain(self.rx.iter_mut())
            .for_each(SyncClock::tick);
        self.nic.iter_mut().for_each(NicSync::tick);
        self.tx_nic.iter_mut().for_each(NicSync::tick);
    }

    /// Writes each side's clock into `result`; a side whose clock is not
    /// synchronised says so, and its receiver's synced latency gives way
    /// to inter-arrival figures.
    pub(crate) fn record(&mut self, result: &mut crate::result::RunResult) {
        let mut problems = Vec::new();
        let mut nic_residual: Option<f64> = None;
        for n in &mut self.nic {
            let c = n.report();
            nic_residual = Some(nic_residual.unwrap_or(0.0).max(c.residual_ns));
            if let Some((_, st)) = self.stamps.iter_mut().find(|(p, _)| *p == n.port) {
                st.nic_clock = Some(c);
            }
        }
        // The sender's share of the bound from its NIC's TX timestamps:
        // the widest spread of its departure offsets and its 1588 map's
        // residual.
        let mut tx_nic_residual: Option<f64> = None;
        for n in &mut self.tx_nic {
            let c = n.report();
            tx_nic_residual = Some(tx_nic_residual.unwrap_or(0.0).max(c.residual_ns));
            if let Some((_, st)) = self.stamps.iter_mut().find(|(p, _)| *p == n.port) {
                st.tx_clock = Some(c);
            }
        }
        if let Some(r) = tx_nic_residual.as_mut() {
            let spread = (result.tx.iter().flat_map(|t| &t.streams))
                .filter_map(|s| s.departure_offset)
                .fold(0.0, |w: f64, o| w.max(o.spread_ns));
            *r += spread;
        }
        for (port, st) in &self.stamps {
            if let Some(p) = result.ports.get_mut(*port) {
                p.timestamps = Some(st.clone());
            }
        }
        if let (Some(tx), Some(rx)) = (result.tx.as_ref(), result.rx.as_mut()) {
            crate::result::correct_departures(rx, tx);
        }
        if let (Some(s), Some(tx)) = (self.tx.as_mut(), result.tx.as_mut()) {
            let mut c = s.report();
            c.nic_residual_ns = tx_nic_residual;
            if !c.synced() {
                problems.push(not_synced("sender", &c));
            }
            tx.clock = Some(c);
        }
        if let (Some(s), Some(rx)) = (self.rx.as_mut(), result.rx.as_mut()) {
            let mut c = s.report();
            c.nic_residual_ns = nic_residual;
            if c.synced() {
                rx.latency_kind = SYNCED_KIND.into();
            } else {
                problems.push(not_synced("receiver", &c));
                drop_synced_latency(rx);
            }
            rx.clock = Some(c);
        }
        for p in problems {
            result.outcome.add(p);
        }
    }
}

/// The problem of a side whose clock `c` is not synchronised: the
/// kernel says so, or else the servo was not locked.
fn not_synced(side: &str, c: &SideClock) -> crate::outcome::Problem {
    let servo = (c.kernel.synced)
        .then_some(c.servo.as_ref())
        .flatten()
        .filter(|s| !s.locked)
        .map(|s| {
            format!(
                "{} at {} is not locked: {}",
                s.daemon,
                s.socket,
                s.not_locked.as_deref().unwrap_or("no sample")
            )
        });
    crate::outcome::Problem::ClockNotSynced {
        side: side.into(),
        clock: c.clock.name().into(),
        maxerror_ns: c.kernel.maxerror_ns,
        servo,
    }
}

/// `latency_kind` of a receiver on a synchronised clock.
pub(crate) const SYNCED_KIND: &str = "one-way, from version-2 stamps on a synchronised clock \
     (bound: landspeed report TX.json RX.json)";

/// Takes the synced latency out of `rx`'s streams (its clock is not
/// synchronised): inter-arrival figures remain.
pub(crate) fn drop_synced_latency(rx: &mut crate::result::RxResult) {
    for s in &mut rx.streams {
        if s.latency_clock.as_deref() == Some("synced") {
            s.latency = None;
            s.latency_clock = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_is_plausible_and_stable() {
        let a = calibrate(Duration::from_millis(20));
        let b = calibrate(Duration::from_millis(20));
        assert!(a > 100_000_000, "TSC at {a} Hz is implausibly slow");
        let diff = a.abs_diff(b) as f64 / a as f64;
        assert!(diff < 0.01, "two calibrations differ by {diff}");
    }

    #[test]
    fn a_synced_clock_maps_the_tsc_onto_the_kernel_clock() {
        let hz = calibrate(Duration::from_millis(20));
        let mut s = SyncClock::start(
            SyncedClock {
                id: ClockId::Realtime,
                declared_error: None,
            },
            &ClockServo::None,
            hz,
        )
        .unwrap();
        let m = s.mapping().load();
        let b = kclock::bracket(kclock::Kernel::Realtime);
        let mapped = m.ns(b.tsc_before / 2 + b.tsc_after / 2);
        // Within a millisecond of the kernel's clock (the first mapping
        // runs at the calibrated rate, a few ppm off).
        assert!(mapped.abs_diff(b.ns) < 1_000_000, "{mapped} vs {}", b.ns);
        let r = s.report();
        assert_eq!(r.pairs, 2);
        assert_eq!(r.clock, ClockId::Realtime);
    }
}
