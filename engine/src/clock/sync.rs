//! The TSC mapped onto a synchronised clock: pairs, the fit, its
//! residual, the kernel's error estimate, the one-way bound, and the
//! mapping a worker reads without a lock.
//!
//! A [`Pair`] is one TSC reading matched with one reading of the clock
//! (the midpoint of two TSC reads around the clock read). The [`Tracker`]
//! keeps the latest [`WINDOW`] pairs and fits a straight line through them
//! (least squares): its slope follows the TSC's drift against the
//! disciplined clock, its largest deviation is the mapping's residual.
//! The resulting [`Mapping`] turns a TSC value into clock nanoseconds with
//! one 64×64→128-bit multiply and a shift.

use std::sync::atomic::{fence, AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use super::ptp::ServoRecord;

/// Pairs the fit runs over: the latest ones, so that the slope follows
/// the drift of the last [`WINDOW`] report intervals.
pub const WINDOW: usize = 16;
/// Fixed-point bits of [`Mapping::mult`].
pub const SHIFT: u32 = 32;
/// `STA_UNSYNC` in `timex.status`: the kernel's clock is not disciplined.
pub const STA_UNSYNC: i32 = 0x0040;
/// `TIME_ERROR`, the state `adjtimex` returns for an unsynchronised clock.
pub const TIME_ERROR: i32 = 5;

/// The clock the stamps are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockId {
    /// CLOCK_REALTIME (UTC; what chrony and phc2sys discipline by default).
    Realtime,
    /// CLOCK_TAI (CLOCK_REALTIME plus the kernel's TAI offset).
    Tai,
}

impl ClockId {
    /// The clock's name as the kernel calls it.
    pub fn name(self) -> &'static str {
        match self {
            ClockId::Realtime => "CLOCK_REALTIME",
            ClockId::Tai => "CLOCK_TAI",
        }
    }
}

/// A TSC value and the clock's reading at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// TSC ticks.
    pub tsc: u64,
    /// Clock nanoseconds (since the epoch of the clock).
    pub ns: u64,
}

/// TSC → clock nanoseconds: `base_ns + ((tsc − base_tsc) × mult) >> SHIFT`
/// (rounded to the nearest nanosecond),
/// with the difference signed, so a TSC read just before a newer mapping
/// was published maps correctly too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mapping {
    /// TSC at the mapping's origin.
    pub base_tsc: u64,
    /// Clock nanoseconds at `base_tsc`.
    pub base_ns: u64,
    /// Nanoseconds per tick, times 2^[`SHIFT`].
    pub mult: u64,
}

impl Mapping {
    /// A mapping through `p` at `ns_per_tick`.
    pub fn through(p: Pair, ns_per_tick: f64) -> Self {
        Mapping {
            base_tsc: p.tsc,
            base_ns: p.ns,
            mult: (ns_per_tick * (1u64 << SHIFT) as f64).round() as u64,
        }
    }

    /// The clock nanoseconds of TSC value `tsc`.
    #[inline(always)]
    pub fn ns(&self, tsc: u64) -> u64 {
        let d = tsc.wrapping_sub(self.base_tsc) as i64;
        let off = (i128::from(d) * i128::from(self.mult) + (1 << (SHIFT - 1))) >> SHIFT;
        self.base_ns.wrapping_add_signed(off as i64)
    }

    /// The same mapping moved by `offset_ns` (a clock read that many
    /// nanoseconds later).
    #[cfg(test)]
    pub fn shifted(&self, offset_ns: i64) -> Self {
        Mapping {
            base_ns: self.base_ns.wrapping_add_signed(offset_ns),
            ..*self
        }
    }

    /// Nanoseconds per tick.
    pub fn ns_per_tick(&self) -> f64 {
        self.mult as f64 / (1u64 << SHIFT) as f64
    }
}

/// The line fitted through some pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fit {
    /// The mapping the line gives, through its value at the latest pair.
    pub mapping: Mapping,
    /// Largest distance of a pair from the line, ns (0 for fewer than
    /// three pairs: two points always fit).
    pub residual_ns: f64,
    /// Pairs fitted.
    pub pairs: usize,
}

impl Fit {
    /// The TSC's rate against the clock, in ppm off `nominal_hz` (positive:
    /// the clock runs faster than `nominal_hz` says).
    pub fn skew_ppm(&self, nominal_hz: u64) -> f64 {
        if nominal_hz == 0 {
            return 0.0;
        }
        (self.mapping.ns_per_tick() * nominal_hz as f64 / 1e9 - 1.0) * 1e6
    }
}

/// Fits `ns = a + b × tsc` through `pairs` (least squares, relative to the
/// first pair so that f64 keeps its precision); `nominal_hz` gives the
/// slope of a single pair. `None` without pairs.
pub fn fit(pairs: &[Pair], nominal_hz: u64) -> Option<Fit> {
    let first = *pairs.first()?;
    let last = *pairs.last()?;
    let xy: Vec<(f64, f64)> = pairs
        .iter()
        .map(|p| {
            (
                p.tsc.wrapping_sub(first.tsc) as i64 as f64,
                p.ns.wrapping_sub(first.ns) as i64 as f64,
            )
        })
        .collect();
    let n = xy.len() as f64;
    let (mx, my) = (
        xy.iter().map(|v| v.0).sum::<f64>() / n,
        xy.iter().map(|v| v.1).sum::<f64>() / n,
    );
    let sxx: f64 = xy.iter().map(|v| (v.0 - mx) * (v.0 - mx)).sum();
    let sxy: f64 = xy.iter().map(|v| (v.0 - mx) * (v.1 - my)).sum();
    let slope = if sxx > 0.0 {
        sxy / sxx
    } else if nominal_hz > 0 {
        1e9 / nominal_hz as f64
    } else {
        0.0
    };
    let at = |x: f64| my + slope * (x - mx);
    let residual_ns = if pairs.len() < 3 {
        0.0
    } else {
        xy.iter().map(|v| (v.1 - at(v.0)).abs()).fold(0.0, f64::max)
    };
    let x_last = last.tsc.wrapping_sub(first.tsc) as i64 as f64;
    let base = Pair {
        tsc: last.tsc,
        ns: first.ns.wrapping_add_signed(at(x_last).round() as i64),
    };
    Some(Fit {
        mapping: Mapping::through(base, slope),
        residual_ns,
        pairs: pairs.len(),
    })
}

/// The latest [`WINDOW`] pairs of one run and the fit through them.
///
/// Its residual is the larger of two figures: how far a pair lies from
/// the line fitted through the window, and how far a new pair lies from
/// the mapping published before it (what frames stamped just before the
/// new pair were off by: the drift the previous fit did not foresee).
#[derive(Debug, Clone)]
pub struct Tracker {
    pairs: Vec<Pair>,
    nominal_hz: u64,
    /// Largest residual of any fit of the run, ns.
    worst_residual_ns: f64,
    taken: u64,
    last: Option<Fit>,
}

impl Tracker {
    /// A tracker for a TSC of about `nominal_hz`.
    pub fn new(nominal_hz: u64) -> Self {
        Tracker {
            pairs: Vec::with_capacity(WINDOW + 1),
            nominal_hz,
            worst_residual_ns: 0.0,
            taken: 0,
            last: None,
        }
    }

    /// Adds a pair and fits the window again.
    pub fn push(&mut self, p: Pair) -> Fit {
        if let Some(prev) = &self.last {
            let predicted = prev.mapping.ns(p.tsc).wrapping_sub(p.ns) as i64;
            self.worst_residual_ns = self.worst_residual_ns.max(predicted.unsigned_abs() as f64);
        }
        if self.pairs.len() == WINDOW {
            self.pairs.remove(0);
        }
        self.pairs.push(p);
        self.taken += 1;
        let f = fit(&self.pairs, self.nominal_hz).expect("one pair at least");
        self.worst_residual_ns = self.worst_residual_ns.max(f.residual_ns);
        self.last = Some(f);
        f
    }

    /// The TSC's skew against the clock, ppm off the nominal rate, by the
    /// latest fit.
    pub fn skew_ppm(&self) -> f64 {
        self.last.map_or(0.0, |f| f.skew_ppm(self.nominal_hz))
    }

    /// Largest residual of the run's fits, ns.
    pub fn worst_residual_ns(&self) -> f64 {
        self.worst_residual_ns
    }

    /// Pairs taken over the run.
    pub fn taken(&self) -> u64 {
        self.taken
    }
}

/// What the kernel says of its clock (`adjtimex`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct KernelStatus {
    /// Not `STA_UNSYNC` and not `TIME_ERROR`: something disciplines it.
    pub synced: bool,
    /// `esterror`: estimated error, ns.
    pub esterror_ns: f64,
    /// `maxerror`: maximum error, ns (grows by 500 ppm while undisciplined).
    pub maxerror_ns: f64,
}

impl KernelStatus {
    /// From `adjtimex`'s return `state`, `status` and its errors in µs.
    pub fn from_timex(state: i32, status: i32, esterror_us: i64, maxerror_us: i64) -> Self {
        KernelStatus {
            synced: state != TIME_ERROR && status & STA_UNSYNC == 0,
            esterror_ns: esterror_us.max(0) as f64 * 1e3,
            maxerror_ns: maxerror_us.max(0) as f64 * 1e3,
        }
    }

    /// The worse of two readings (the run's clock is as good as its worst
    /// moment).
    pub fn worse(self, o: KernelStatus) -> KernelStatus {
        KernelStatus {
            synced: self.synced && o.synced,
            esterror_ns: self.esterror_ns.max(o.esterror_ns),
            maxerror_ns: self.maxerror_ns.max(o.maxerror_ns),
        }
    }
}

/// One side's clock over a run, as its result records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SideClock {
    /// The clock the stamps are in.
    pub clock: ClockId,
    /// The kernel's view, the worst of the run's readings.
    pub kernel: KernelStatus,
    /// What the PTP servo said over the run, when one was read
    /// (`clock_servo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servo: Option<ServoRecord>,
    /// Where the clock's share of the bound came from (written from
    /// [`SideClock::source`]; absent in results of older versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_from: Option<ErrorSource>,
    /// An error the profile declares for this clock (`clock_error`), used
    /// in place of the kernel's.
    #[serde(default)]
    pub declared_error_ns: Option<f64>,
    /// Largest residual of the TSC mapping's fits, ns.
    pub residual_ns: f64,
    /// The TSC's skew against the clock, ppm off the run's `tsc_hz`.
    pub skew_ppm: f64,
    /// Pairs read over the run.
    pub pairs: u64,
    /// The residual of the NIC → TSC map, ns, when this side's arrival
    /// times came from NIC timestamps (`clock::nic`); it adds to the
    /// side's error.
    #[serde(default)]
    pub nic_residual_ns: Option<f64>,
}

impl SideClock {
    /// The clock is synchronised: the profile declares its error, or the
    /// kernel says so and the PTP servo, when read, was locked at every
    /// sample.
    pub fn synced(&self) -> bool {
        self.declared_error_ns.is_some()
            || (self.kernel.synced && self.servo.as_ref().is_none_or(|s| s.locked))
    }

    /// This side's share of the one-way bound, ns: the mapping's residual
    /// (and the NIC map's, when NIC timestamps were used) plus the clock's
    /// error: declared; else, synchronised, the kernel's estimate plus the
    /// servo's largest offset and path delay when it was read; else the
    /// kernel's maximum error.
    pub fn error_ns(&self) -> f64 {
        let clock = match self.declared_error_ns {
            Some(e) => e,
            None if self.synced() => {
                self.kernel.esterror_ns + self.servo.as_ref().map_or(0.0, ServoRecord::error_ns)
            }
            None => self.kernel.maxerror_ns,
        };
        self.residual_ns + self.nic_residual_ns.unwrap_or(0.0) + clock
    }

    /// Where the clock's share of the bound comes from.
    pub fn source(&self) -> ErrorSource {
        match (self.declared_error_ns, &self.servo) {
            (Some(_), _) => ErrorSource::Declared,
            (None, Some(_)) => ErrorSource::Ptp4l,
            (None, None) => ErrorSource::Adjtimex,
        }
    }

    /// Where the clock's error comes from, in words.
    pub fn error_source(&self) -> &'static str {
        match (self.source(), self.synced()) {
            (ErrorSource::Declared, _) => "declared by the profile",
            (ErrorSource::Ptp4l, true) => "ptp4l offset and path delay, kernel esterror",
            (ErrorSource::Ptp4l, false) if !self.kernel.synced => {
                "kernel maxerror (not synchronised)"
            }
            (ErrorSource::Ptp4l, false) => "kernel maxerror (ptp4l not locked)",
            (ErrorSource::Adjtimex, true) => "kernel esterror",
            (ErrorSource::Adjtimex, false) => "kernel maxerror (not synchronised)",
        }
    }
}

/// Where a side's clock error comes from (JSON `error_from`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorSource {
    /// `clock_error` of the profile.
    Declared,
    /// The kernel's `adjtimex` (status, esterror, maxerror).
    Adjtimex,
    /// `ptp4l`'s servo (offset, path delay, lock) with the kernel's view.
    Ptp4l,
}

/// The bound on a one-way figure from stamps on `tx`'s clock read on
/// `rx`'s: the sum of both sides' errors, ns.
pub fn bound_ns(tx: &SideClock, rx: &SideClock) -> f64 {
    tx.error_ns() + rx.error_ns()
}

/// The step figures within `bound_ns` are printed to: the power of ten
/// at or below the bound, at least 1 ns.
pub fn step_ns(bound_ns: f64) -> f64 {
    if bound_ns.is_nan() || bound_ns < 1.0 || bound_ns.is_infinite() {
        return 1.0;
    }
    10f64.powi(bound_ns.log10().floor() as i32)
}

/// `v_ns` rounded to the nearest multiple of [`step_ns`]`(bound_ns)`.
pub fn round_to_bound(v_ns: f64, bound_ns: f64) -> f64 {
    let step = step_ns(bound_ns);
    (v_ns / step).round() * step
}

/// One-way latency, ns, of a frame stamped at `tx_tsc` by a sender whose
/// mapping is `tx` and received at `rx_tsc` by one whose mapping is `rx`
/// (negative when the clocks disagree by more than the path takes): what
/// the RX path computes, the sender's half carried in the stamp.
#[cfg(test)]
pub fn one_way_ns(tx: &Mapping, tx_tsc: u64, rx: &Mapping, rx_tsc: u64) -> i64 {
    rx.ns(rx_tsc).wrapping_sub(tx.ns(tx_tsc)) as i64
}

/// A [`Mapping`] the main lcore publishes and workers read without a lock
/// (a seqlock over atomics: the writer makes the count odd, stores, makes
/// it even; a reader retries while it is odd or changed).
#[derive(Debug, Default)]
pub struct SharedMapping {
    seq: AtomicU64,
    base_tsc: AtomicU64,
    base_ns: AtomicU64,
    mult: AtomicU64,
}

impl SharedMapping {
    /// A shared mapping holding `m`.
    #[cfg(test)]
    pub fn new(m: Mapping) -> Self {
        let s = SharedMapping::default();
        s.publish(&m);
        s
    }

    /// Replaces the mapping (one writer: the main lcore).
    pub fn publish(&self, m: &Mapping) {
        let s = self.seq.load(Ordering::Relaxed);
        self.seq.store(s.wrapping_add(1), Ordering::Relaxed);
        fence(Ordering::Release);
        self.base_tsc.store(m.base_tsc, Ordering::Relaxed);
        self.base_ns.store(m.base_ns, Ordering::Relaxed);
        self.mult.store(m.mult, Ordering::Relaxed);
        self.seq.store(s.wrapping_add(2), Ordering::Release);
    }

    /// The latest mapping published.
    #[inline(always)]
    pub fn load(&self) -> Mapping {
        loop {
            let s = self.seq.load(Ordering::Acquire);
            let m = Mapping {
                base_tsc: self.base_tsc.load(Ordering::Relaxed),
                base_ns: self.base_ns.load(Ordering::Relaxed),
                mult: self.mult.load(Ordering::Relaxed),
            };
            fence(Ordering::Acquire);
            if s & 1 == 0 && self.seq.load(Ordering::Relaxed) == s {
                return m;
            }
            std::hint::spin_loop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ: u64 = 2_500_000_000;

    /// Pairs every second for `n` seconds of a TSC at `HZ` whose clock
    /// runs `ppm` fast, starting at clock `t0`.
    fn pairs(n: u64, ppm: f64, t0: u64) -> Vec<Pair> {
        (0..n)
            .map(|i| {
                let tsc = 1_000_000 + i * HZ;
                let ns = t0 + ((i * HZ) as f64 * 1e9 / HZ as f64 * (1.0 + ppm * 1e-6)) as u64;
                Pair { tsc, ns }
            })
            .collect()
    }

    fn side(synced: bool, residual_ns: f64) -> SideClock {
        SideClock {
            clock: ClockId::Realtime,
            kernel: KernelStatus {
                synced,
                esterror_ns: 2_000.0,
                maxerror_ns: 16_000_000_000.0,
            },
            servo: None,
            error_from: None,
            declared_error_ns: None,
            residual_ns,
            skew_ppm: 0.0,
            pairs: 2,
            nic_residual_ns: None,
        }
    }

    #[test]
    fn a_shifted_mapping_moves_the_latency_by_exactly_its_offset() {
        let t0 = 1_764_633_600_000_000_000; // 2025-12-02 in ns
        let tx = fit(&pairs(5, 3.0, t0), HZ).unwrap().mapping;
        let rx = fit(&pairs(5, -7.0, t0), HZ).unwrap().mapping;
        let (tx_tsc, rx_tsc) = (3 * HZ + 17, 3 * HZ + 17 + 25_000);
        let base = one_way_ns(&tx, tx_tsc, &rx, rx_tsc);
        for off in [1i64, 999, 1_000_000, -12_345, 2_000_000_000] {
            let moved = one_way_ns(&tx, tx_tsc, &rx.shifted(off), rx_tsc);
            assert_eq!(moved - base, off, "receiver shifted by {off}");
            let moved = one_way_ns(&tx.shifted(off), tx_tsc, &rx, rx_tsc);
            assert_eq!(base - moved, off, "sender shifted by {off}");
        }
        // The pairs themselves shifted: the fit moves by the offset too.
        let shifted = pairs(5, -7.0, t0 + 4_321);
        let rx2 = fit(&shifted, HZ).unwrap().mapping;
        assert_eq!(one_way_ns(&tx, tx_tsc, &rx2, rx_tsc) - base, 4_321);
    }

    #[test]
    fn a_skew_of_n_ppm_is_fitted_to_within_a_thousandth_of_a_ppm() {
        for ppm in [-50.0, -1.5, 0.0, 2.0, 100.0] {
            let f = fit(&pairs(10, ppm, 5_000), HZ).unwrap();
            assert!(
                (f.skew_ppm(HZ) - ppm).abs() < 1e-3,
                "{ppm} ppm fitted as {}",
                f.skew_ppm(HZ)
            );
            assert!(f.residual_ns < 2.0, "residual {}", f.residual_ns);
        }
    }

    #[test]
    fn drift_between_calibrations_is_tracked_by_the_window() {
        // 20 s at +10 ppm, then the clock's discipline steers it to -10.
        let mut t = Tracker::new(HZ);
        let mut last = Pair { tsc: 0, ns: 0 };
        let mut f = None;
        for i in 0..40u64 {
            let ppm = if i < 20 { 10.0 } else { -10.0 };
            let p = if i == 0 {
                Pair { tsc: 0, ns: 1_000 }
            } else {
                Pair {
                    tsc: last.tsc + HZ,
                    ns: last.ns + (1e9 * (1.0 + ppm * 1e-6)) as u64,
                }
            };
            last = p;
            f = Some(t.push(p));
        }
        let f = f.unwrap();
        assert!((f.skew_ppm(HZ) + 10.0).abs() < 1e-3, "{}", f.skew_ppm(HZ));
        // The mapping goes through the latest pair.
        assert!(f.mapping.ns(last.tsc).abs_diff(last.ns) <= 1);
        assert_eq!(t.taken(), 40);
        // The window that straddled the change saw a residual.
        assert!(t.worst_residual_ns() > 1_000.0, "{}", t.worst_residual_ns());
    }

    #[test]
    fn a_residual_is_the_largest_distance_from_the_line() {
        let mut p = pairs(5, 0.0, 0);
        p[2].ns += 300; // one pair read 300 ns late
        let f = fit(&p, HZ).unwrap();
        // The line moves 300/5 towards the late pair: 240 ns from it.
        assert!((f.residual_ns - 240.0).abs() < 1.0, "{}", f.residual_ns);
        assert_eq!(fit(&p[..2], HZ).unwrap().residual_ns, 0.0);
        // One pair: the nominal rate.
        let one = fit(&p[..1], HZ).unwrap();
        assert_eq!(one.mapping.ns(p[0].tsc + HZ), p[0].ns + 1_000_000_000);
        assert!(fit(&[], HZ).is_none());
    }

    #[test]
    fn the_bound_grows_when_a_side_is_not_synchronised() {
        let (a, b) = (side(true, 150.0), side(true, 50.0));
        assert_eq!(bound_ns(&a, &b), 150.0 + 2_000.0 + 50.0 + 2_000.0);
        let unsynced = side(false, 50.0);
        assert!(!unsynced.synced());
        assert_eq!(bound_ns(&a, &unsynced), 2_150.0 + 16_000_000_050.0);
        assert!(bound_ns(&a, &unsynced) > bound_ns(&a, &b));
        let declared = SideClock {
            declared_error_ns: Some(1_000.0),
            ..unsynced.clone()
        };
        assert!(declared.synced());
        assert_eq!(declared.error_ns(), 1_050.0);
        assert_eq!(declared.error_source(), "declared by the profile");
        assert_eq!(declared.source(), ErrorSource::Declared);
        assert_eq!(a.source(), ErrorSource::Adjtimex);
        assert_eq!(a.error_source(), "kernel esterror");
        assert_eq!(
            unsynced.error_source(),
            "kernel maxerror (not synchronised)"
        );
        // Arrivals from NIC timestamps: the NIC map's residual joins.
        let nic = SideClock {
            nic_residual_ns: Some(35.0),
            ..side(true, 150.0)
        };
        assert_eq!(nic.error_ns(), 150.0 + 35.0 + 2_000.0);
        assert_eq!(bound_ns(&nic, &b), 2_185.0 + 2_050.0);
    }

    /// A servo record locked (or not) at offsets up to `offset_ns` and
    /// path delays up to `delay_ns`.
    fn servo(locked: bool, offset_ns: f64, delay_ns: f64) -> ServoRecord {
        ServoRecord {
            locked,
            max_abs_offset_ns: offset_ns,
            max_path_delay_ns: delay_ns,
            samples: 3,
            ..ServoRecord::new("ptp4l", "/var/run/ptp4l")
        }
    }

    #[test]
    fn a_locked_servo_adds_its_offset_and_path_delay_to_the_bound() {
        let ptp = SideClock {
            servo: Some(servo(true, 40.0, 2_369.0)),
            ..side(true, 7.0)
        };
        assert!(ptp.synced());
        assert_eq!(ptp.error_ns(), 7.0 + 2_000.0 + 40.0 + 2_369.0);
        assert_eq!(ptp.source(), ErrorSource::Ptp4l);
        assert_eq!(
            ptp.error_source(),
            "ptp4l offset and path delay, kernel esterror"
        );
        assert_eq!(bound_ns(&ptp, &side(true, 3.0)), 4_416.0 + 2_003.0);
        // Not locked: not synchronised, whatever the kernel says.
        let unlocked = SideClock {
            servo: Some(servo(false, 40.0, 2_369.0)),
            ..side(true, 7.0)
        };
        assert!(!unlocked.synced());
        assert_eq!(unlocked.error_ns(), 7.0 + 16_000_000_000.0);
        assert_eq!(
            unlocked.error_source(),
            "kernel maxerror (ptp4l not locked)"
        );
        // Locked, but the kernel's clock is not disciplined.
        let free = SideClock {
            servo: Some(servo(true, 40.0, 2_369.0)),
            ..side(false, 7.0)
        };
        assert!(!free.synced());
        assert_eq!(free.error_source(), "kernel maxerror (not synchronised)");
        // A declared error stands in for everything.
        let declared = SideClock {
            declared_error_ns: Some(100.0),
            ..unlocked
        };
        assert!(declared.synced());
        assert_eq!(declared.error_ns(), 107.0);
        assert_eq!(declared.source(), ErrorSource::Declared);
    }

    #[test]
    fn clocks_are_named_as_the_kernel_names_them() {
        assert_eq!(ClockId::Realtime.name(), "CLOCK_REALTIME");
        assert_eq!(ClockId::Tai.name(), "CLOCK_TAI");
    }

    #[test]
    fn three_pairs_have_a_residual_and_one_without_a_rate_is_flat() {
        // On the line but the last, 500 ns late: the least-squares line
        // takes a third of it at the middle pair, 166.7 ns from it.
        let p = [
            Pair { tsc: 0, ns: 0 },
            Pair {
                tsc: HZ,
                ns: 1_000_000_000,
            },
            Pair {
                tsc: 2 * HZ,
                ns: 2_000_000_500,
            },
        ];
        let f = fit(&p, HZ).unwrap();
        assert!(
            (f.residual_ns - 500.0 / 3.0).abs() < 1e-3,
            "{}",
            f.residual_ns
        );
        assert_eq!(f.pairs, 3);
        // One pair and no nominal rate: a flat mapping, not a division by 0.
        let flat = fit(&p[..1], 0).unwrap();
        assert_eq!(flat.mapping.mult, 0);
        assert_eq!(flat.mapping.ns(12_345), 0);
        assert_eq!(flat.skew_ppm(0), 0.0);
    }

    #[test]
    fn a_tracker_counts_how_far_a_new_pair_lies_from_the_previous_mapping() {
        let mut t = Tracker::new(HZ);
        assert_eq!(t.skew_ppm(), 0.0, "no fit yet");
        t.push(Pair { tsc: 0, ns: 0 });
        t.push(Pair {
            tsc: HZ,
            ns: 1_000_000_000,
        });
        assert_eq!(t.worst_residual_ns(), 0.0);
        // The mapping through the first two predicts 2e9 for the third.
        let f = t.push(Pair {
            tsc: 2 * HZ,
            ns: 2_000_000_500,
        });
        assert_eq!(t.worst_residual_ns(), 500.0);
        assert!((f.residual_ns - 500.0 / 3.0).abs() < 1e-3);
        assert_eq!(t.taken(), 3);
        // The line rises 250 ns a second faster: 0.25 ppm fast.
        assert!((t.skew_ppm() - 0.25).abs() < 1e-3, "{}", t.skew_ppm());
        assert_eq!(t.skew_ppm(), f.skew_ppm(HZ));
    }

    #[test]
    fn rounding_to_the_bound_is_exact() {
        assert_eq!(step_ns(0.3), 1.0);
        assert_eq!(step_ns(f64::NAN), 1.0);
        assert_eq!(step_ns(f64::INFINITY), 1.0);
        assert_eq!(step_ns(1.0), 1.0);
        assert_eq!(step_ns(999.0), 100.0);
        assert_eq!(step_ns(1_000.0), 1_000.0);
        assert_eq!(step_ns(4_150.0), 1_000.0);
        assert_eq!(step_ns(2_500_000.0), 1_000_000.0);
        assert_eq!(round_to_bound(25_432.7, 4_150.0), 25_000.0);
        assert_eq!(round_to_bound(25_500.0, 4_150.0), 26_000.0);
        assert_eq!(round_to_bound(1_234_567.0, 2_500_000.0), 1_000_000.0);
        assert_eq!(round_to_bound(12.4, 0.5), 12.0);
        assert_eq!(round_to_bound(-3_600.0, 1_000.0), -4_000.0);
    }

    #[test]
    fn kernel_status_reads_the_unsync_bit_and_the_error_state() {
        let k = KernelStatus::from_timex(0, 0x2001, 12, 400);
        assert!(k.synced);
        assert_eq!((k.esterror_ns, k.maxerror_ns), (12_000.0, 400_000.0));
        assert!(!KernelStatus::from_timex(0, STA_UNSYNC, 0, 0).synced);
        assert!(!KernelStatus::from_timex(TIME_ERROR, 0, 0, 0).synced);
        let w = k.worse(KernelStatus::from_timex(5, 0x40, 16_000_000, 16_000_000));
        assert!(!w.synced);
        assert_eq!(w.maxerror_ns, 16e9);
    }

    #[test]
    fn a_published_mapping_is_read_whole() {
        let m = Mapping::through(Pair { tsc: 10, ns: 20 }, 0.4);
        let s = SharedMapping::new(m);
        assert_eq!(s.load(), m);
        let n = m.shifted(5);
        s.publish(&n);
        assert_eq!(s.load(), n);
        assert_eq!(n.ns(10 + 1_000), 20 + 5 + 400);
        // Before the origin: the difference is signed.
        assert_eq!(n.ns(0), 25 - 4);
    }
}
