//! TX modes, and the pure parts of gap mode: how many bytes of gap follow
//! each data frame and how they split into gap frames (whose bytes
//! `wire::pause` writes).
//!
//! In gap mode the link itself does the pacing, PSPacer-style: the TX loop
//! sends as fast as the port takes frames, but after each data frame it
//! sends gap frames that fill exactly the wire time the target rate leaves
//! idle. The next hop's MAC consumes the gap frames (PAUSE frames with zero
//! quanta), so downstream sees data frames spaced to the byte.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use thiserror::Error;

use super::rate::{bits_per_frame, Layer, Rate, MIN_FRAME_SIZE};
use crate::units::L1_OVERHEAD;

/// What is wrong with a TX mode or gap-mode input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ModeError {
    /// The mode text could not be parsed.
    #[error(
        "cannot parse TX mode `{input}`: {reason} (use `spin`, `burst N`, `gap`, \
         `gap-pause`, `gap-badfcs` or `max`)"
    )]
    Unparsable {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A burst of zero frames.
    #[error("burst size is zero; a burst sends at least one frame")]
    ZeroBurst,
    /// A burst that does not fit in the TX ring.
    #[error("burst of {burst} frames is larger than the TX ring of {ring} descriptors")]
    BurstAboveRing {
        /// Requested burst.
        burst: u16,
        /// TX ring size.
        ring: u16,
    },
    /// A target rate above the link in gap mode.
    #[error("gap mode: target rate {rate} is above the link's line rate {line} for {frame_size}-byte frames")]
    AboveLine {
        /// Target, formatted.
        rate: String,
        /// Line rate at the target's layer, formatted.
        line: String,
        /// Data frame size.
        frame_size: usize,
    },
    /// Gap frame size limits outside what Ethernet allows.
    #[error("gap frames: sizes {min}..={max} are not a legal range (at least {MIN_FRAME_SIZE}, min ≤ max)")]
    GapSizes {
        /// Smallest gap frame.
        min: usize,
        /// Largest gap frame.
        max: usize,
    },
}

/// How many of the `pending` prepared frames leave in the next `tx_burst`
/// at TSC `now`, the head's departure time having come: the mode's `group`
/// (1 in spin mode, N in `burst N`) and every further frame already due
/// (`due(k)` is the departure time of the k-th pending frame). So a loop
/// that fell behind its schedule (64-byte frames at line rate are due
/// every 67 ns) sends every due frame at once and catches up, whatever the
/// group.
#[inline]
pub fn departing(group: usize, pending: usize, now: u64, due: impl Fn(usize) -> u64) -> usize {
    let mut n = group.min(pending);
    while n < pending && due(n) <= now {
        n += 1;
    }
    n
}

/// What fills the gaps in gap mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum GapKind {
    /// IEEE 802.3x PAUSE frames with zero quanta: the next hop's MAC
    /// consumes them and pauses for zero time. Works on any full-duplex
    /// link whose transmit path lets software send ethertype 0x8808.
    Pause,
    /// Frames with a deliberately wrong FCS, which the next hop's MAC
    /// would drop. Parsed so that a run can refuse it with a clear message:
    /// it needs a port that lets software supply the FCS, which DPDK's
    /// ethdev API does not offer.
    BadFcs,
}

/// How the TX loop turns departure times into `tx_burst` calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TxMode {
    /// One frame per `tx_burst`, sent when the TSC reaches its departure.
    /// The most even spacing the CPU can give; the most calls per frame.
    Spin,
    /// N frames per `tx_burst` at the departure time of the first. Fewer
    /// calls; the NIC sends the N back to back at line rate, so spacing is
    /// even per burst, not per frame.
    Burst(u16),
    /// PSPacer-style: data frames and gap frames as fast as the port takes
    /// them; the gap frames' wire time spaces the data frames exactly.
    Gap {
        /// What fills the gaps.
        kind: GapKind,
    },
    /// As fast as the port takes frames; the schedule is still computed and
    /// the departures recorded against it.
    Max,
}

impl TxMode {
    /// Frames handed to each `tx_burst` call at a scheduled time: 1 for
    /// `spin`, N for `burst N`; for `gap` and `max`, which do not wait,
    /// `default_burst`.
    pub fn burst_size(&self, default_burst: u16) -> u16 {
        match *self {
            TxMode::Spin => 1,
            TxMode::Burst(n) => n,
            TxMode::Gap { .. } | TxMode::Max => default_burst,
        }
    }

    /// Whether the TX loop waits for each departure time.
    pub fn waits(&self) -> bool {
        matches!(self, TxMode::Spin | TxMode::Burst(_))
    }

    /// Checks the mode against a TX ring of `tx_ring_size` descriptors.
    pub fn validate(&self, tx_ring_size: u16) -> Result<(), ModeError> {
        match *self {
            TxMode::Burst(0) => Err(ModeError::ZeroBurst),
            TxMode::Burst(n) if n > tx_ring_size => Err(ModeError::BurstAboveRing {
                burst: n,
                ring: tx_ring_size,
            }),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for TxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TxMode::Spin => f.write_str("spin"),
            TxMode::Burst(n) => write!(f, "burst {n}"),
            TxMode::Gap {
                kind: GapKind::Pause,
            } => f.write_str("gap-pause"),
            TxMode::Gap {
                kind: GapKind::BadFcs,
            } => f.write_str("gap-badfcs"),
            TxMode::Max => f.write_str("max"),
        }
    }
}

impl FromStr for TxMode {
    type Err = ModeError;

    /// Parses `spin`, `burst 32`, `burst:32`, `burst=32`, `gap` (PAUSE
    /// frames), `gap-pause`, `gap-badfcs` and `max`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let input = s.trim();
        let bad = |reason: &str| ModeError::Unparsable {
            input: input.to_string(),
            reason: reason.to_string(),
        };
        let lower = input.to_ascii_lowercase();
        match lower.as_str() {
            "spin" => return Ok(TxMode::Spin),
            "gap" | "gap-pause" | "gap:pause" => {
                return Ok(TxMode::Gap {
                    kind: GapKind::Pause,
                })
            }
            "gap-badfcs" | "gap:badfcs" | "gap-bad-fcs" => {
                return Ok(TxMode::Gap {
                    kind: GapKind::BadFcs,
                })
            }
            "max" => return Ok(TxMode::Max),
            _ => {}
        }
        let Some(rest) = lower.strip_prefix("burst") else {
            return Err(bad("unknown mode"));
        };
        let rest = rest.trim_start_matches([' ', ':', '=']).trim();
        if rest.is_empty() {
            return Err(bad("burst needs a size, e.g. `burst 32`"));
        }
        let n: u16 = rest
            .parse()
            .map_err(|_| bad("burst size must be a whole number from 1 to 65535"))?;
        if n == 0 {
            return Err(ModeError::ZeroBurst);
        }
        Ok(TxMode::Burst(n))
    }
}

/// The gap frames that follow one data frame: `count` frames, the first
/// `longer` of them `len + 1` bytes and the rest `len` bytes (sizes include
/// the FCS). `count == 0` means no gap frame this time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct GapFrames {
    /// Number of gap frames.
    pub count: u32,
    /// Size of the shorter gap frames, FCS included.
    pub len: u32,
    /// How many of them are one byte longer.
    pub longer: u32,
}

impl GapFrames {
    /// Size of gap frame `i` (0-based), FCS included.
    #[inline]
    pub fn len_of(&self, i: u32) -> u32 {
        self.len + u32::from(i < self.longer)
    }

    /// Wire bytes the gap frames occupy (each frame + 20).
    pub fn wire_bytes(&self) -> u64 {
        self.count as u64 * (self.len as u64 + L1_OVERHEAD) + self.longer as u64
    }
}

/// Computes, frame by frame, the gap that makes a link of `link_bps` carry
/// data frames at a target rate. Exact: the ideal gap is a fraction of a
/// byte per frame; the fraction is carried, and wire bytes too few to form a
/// legal gap frame (less than `min_len + 20`) wait for the next data frame.
/// Over `n` frames the gap sent is within one gap frame of the ideal.
#[derive(Debug, Clone)]
pub struct GapPlanner {
    /// Whole gap bytes per data frame.
    per_frame: u64,
    /// Fractional gap per data frame, in units of 1/den byte.
    per_frame_rem: u64,
    den: u64,
    rem: u64,
    owed: u64,
    min_wire: u64,
    max_wire: u64,
}

impl GapPlanner {
    /// A planner for data frames of `frame_size_with_fcs` bytes (carrying
    /// `payload_len` payload bytes) at `target`, on a link of `link_bps`
    /// (L1), with gap frames of `min_len..=max_len` bytes (FCS included;
    /// 64 and the port's largest frame are typical).
    pub fn new(
        target: Rate,
        link_bps: u64,
        frame_size_with_fcs: usize,
        payload_len: usize,
        min_len: usize,
        max_len: usize,
    ) -> Result<Self, ModeError> {
        if min_len < MIN_FRAME_SIZE || max_len < min_len {
            return Err(ModeError::GapSizes {
                min: min_len,
                max: max_len,
            });
        }
        let units = bits_per_frame(target.layer(), frame_size_with_fcs, payload_len) as u128;
        let wire = frame_size_with_fcs as u128 + L1_OVERHEAD as u128;
        // One data frame takes units / rate seconds; the link carries
        // link × units / (8 × rate) bytes in that time, of which
        // frame + 20 are the data frame.
        let den = 8 * target.per_sec() as u128;
        let avail = link_bps as u128 * units;
        let used = wire * den;
        if units == 0 || avail < used {
            let line = super::rate::line_at_layer(
                link_bps,
                target.layer(),
                frame_size_with_fcs,
                payload_len,
            );
            return Err(ModeError::AboveLine {
                rate: target.to_string(),
                line: match target.layer() {
                    Layer::Frames => format!("{line} frames/s"),
                    l => format!("{} at {l}", super::rate::format_bps(line)),
                },
                frame_size: frame_size_with_fcs,
            });
        }
        let gap = avail - used;
        Ok(GapPlanner {
            per_frame: (gap / den) as u64,
            per_frame_rem: (gap % den) as u64,
            den: den as u64,
            rem: 0,
            owed: 0,
            min_wire: min_len as u64 + L1_OVERHEAD,
            max_wire: max_len as u64 + L1_OVERHEAD,
        })
    }

    /// The gap frames to send after the next data frame. No division by a
    /// runtime value unless gap frames are due; no allocation.
    #[inline]
    pub fn next_gap(&mut self) -> GapFrames {
        self.owed += self.per_frame;
        self.rem += self.per_frame_rem;
        if self.rem >= self.den {
            self.rem -= self.den;
            self.owed += 1;
        }
        if self.owed < self.min_wire {
            return GapFrames::default();
        }
        let plan = split_gap(self.owed, self.min_wire, self.max_wire);
        self.owed -= plan.wire_bytes();
        plan
    }
}

/// Splits `wire_bytes` of gap into as few frames as possible of
/// `min_wire..=max_wire` wire bytes each (frame + 20), sizes differing by at
/// most one byte. If the bytes cannot be covered exactly (a narrow size
/// range), as many full-size frames as fit are used and the rest is left.
pub fn split_gap(wire_bytes: u64, min_wire: u64, max_wire: u64) -> GapFrames {
    if wire_bytes < min_wire || min_wire == 0 {
        return GapFrames::default();
    }
    let fewest = wire_bytes.div_ceil(max_wire);
    let most = wire_bytes / min_wire;
    if fewest <= most {
        let per = wire_bytes / fewest;
        GapFrames {
            count: fewest as u32,
            len: (per - L1_OVERHEAD) as u32,
            longer: (wire_bytes % fewest) as u32,
        }
    } else {
        GapFrames {
            count: most as u32,
            len: (max_wire - L1_OVERHEAD) as u32,
            longer: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl GapPlanner {
        /// Ideal gap per data frame in wire bytes, as `(whole, numerator,
        /// denominator)`.
        fn gap_per_frame(&self) -> (u64, u64, u64) {
            (self.per_frame, self.per_frame_rem, self.den)
        }

        /// Gap wire bytes owed but not yet sent (fewer than one gap frame's
        /// worth, or the remainder of an inexact split).
        fn owed(&self) -> u64 {
            self.owed
        }
    }

    #[test]
    fn parses_modes() {
        assert_eq!("spin".parse::<TxMode>().unwrap(), TxMode::Spin);
        assert_eq!("burst 32".parse::<TxMode>().unwrap(), TxMode::Burst(32));
        assert_eq!("burst:32".parse::<TxMode>().unwrap(), TxMode::Burst(32));
        assert_eq!("Burst=8".parse::<TxMode>().unwrap(), TxMode::Burst(8));
        let pause = TxMode::Gap {
            kind: GapKind::Pause,
        };
        assert_eq!("gap".parse::<TxMode>().unwrap(), pause);
        assert_eq!("gap-pause".parse::<TxMode>().unwrap(), pause);
        assert_eq!(
            "gap-badfcs".parse::<TxMode>().unwrap(),
            TxMode::Gap {
                kind: GapKind::BadFcs
            }
        );
        assert_eq!("max".parse::<TxMode>().unwrap(), TxMode::Max);
        assert_eq!("burst 0".parse::<TxMode>(), Err(ModeError::ZeroBurst));
        assert!("burst".parse::<TxMode>().is_err());
        assert!("burst 70000".parse::<TxMode>().is_err());
        assert!("warp".parse::<TxMode>().is_err());
        for m in ["spin", "burst 16", "gap-pause", "gap-badfcs", "max"] {
            assert_eq!(m.parse::<TxMode>().unwrap().to_string(), m);
        }
    }

    #[test]
    fn validates_against_the_ring() {
        assert!(TxMode::Burst(32).validate(512).is_ok());
        let e = TxMode::Burst(1024).validate(512).unwrap_err();
        assert_eq!(
            e.to_string(),
            "burst of 1024 frames is larger than the TX ring of 512 descriptors"
        );
        assert!(TxMode::Spin.validate(1).is_ok());
        assert_eq!(TxMode::Burst(16).burst_size(32), 16);
        assert_eq!(TxMode::Spin.burst_size(32), 1);
        assert!(!TxMode::Max.waits());
    }

    #[test]
    fn departing_frames() {
        let dues = [100u64, 167, 234, 301, 368];
        let due = |k: usize| dues[k];
        // Spin: the head, and whatever else is due.
        assert_eq!(departing(1, 5, 100, due), 1);
        assert_eq!(departing(1, 5, 166, due), 1);
        assert_eq!(departing(1, 5, 167, due), 2);
        assert_eq!(departing(1, 5, 300, due), 3);
        assert_eq!(departing(1, 5, 10_000, due), 5);
        // Burst: the group, early frames included, and more when behind.
        assert_eq!(departing(2, 5, 100, due), 2);
        assert_eq!(departing(4, 5, 100, due), 4);
        assert_eq!(departing(2, 5, 234, due), 3);
        assert_eq!(departing(8, 5, 100, due), 5);
        assert_eq!(departing(1, 0, 100, due), 0);
    }

    /// 64-byte frames at 10 GbE line rate on a 2.6 GHz TSC (one every
    /// 174.7 ticks) from a loop whose `tx_burst` costs 120 ticks plus 40 per
    /// frame and whose batch of 32 takes 1,500 ticks to prepare: a burst
    /// of one frame takes 160 ticks, so spin mode cannot send one frame per
    /// call, falls behind and sends what is due together. Neither spin nor
    /// burst 32 falls behind: every frame leaves within a batch's
    /// preparation and a few calls of its time, and the run reaches the
    /// rate.
    #[test]
    fn line_rate_64_bytes_degrades_to_sending_every_due_frame() {
        use crate::pace::rate::Rate;
        use crate::pace::schedule::Schedule;
        let hz = 2_600_000_000u64;
        for group in [1usize, 32] {
            let rate = Rate::l1_bps(10_000_000_000).unwrap();
            let mut sched = Schedule::new(0, hz, rate).unwrap();
            let (frames, mut now, mut worst) = (200_000u64, 0u64, 0u64);
            let ahead = 32;
            let mut sent = 0u64;
            while sent < frames {
                now += 1500; // prepare a batch
                let dues: Vec<u64> = (0..ahead).map(|_| sched.next(64)).collect();
                let mut head = 0;
                while head < ahead {
                    now = now.max(dues[head]); // spin until the head is due
                    let n = departing(group, ahead - head, now, |k| dues[head + k]);
                    now += 120 + 40 * n as u64;
                    worst = worst.max(now - dues[head]);
                    head += n;
                    sent += n as u64;
                }
            }
            let achieved = frames as f64 * hz as f64 / now as f64;
            assert!(
                achieved >= 0.999 * 14_880_952.0,
                "group {group}: {achieved} frames/s"
            );
            assert!(
                worst < 6000,
                "group {group}: a frame left {worst} ticks late"
            );
        }
    }

    #[test]
    fn half_line_rate_needs_one_frame_time_of_gap() {
        let link = 10_000_000_000;
        let target = Rate::l1_bps(5_000_000_000).unwrap();
        let mut g = GapPlanner::new(target, link, 9130, 9088, 64, 9130).unwrap();
        // Gap = 9150 wire bytes = one 9130-byte gap frame.
        assert_eq!(g.gap_per_frame(), (9150, 0, 40_000_000_000));
        for _ in 0..10 {
            let f = g.next_gap();
            assert_eq!(
                f,
                GapFrames {
                    count: 1,
                    len: 9130,
                    longer: 0
                }
            );
        }
        assert_eq!(g.owed(), 0);
    }

    #[test]
    fn gap_is_exact_over_many_frames() {
        // 95% of line, 1518-byte frames: ideal gap 1538 × (1/0.95 − 1)
        // = 80.947… bytes per frame: less than a minimum frame (84), so gap
        // frames come every other data frame or so.
        let link = 10_000_000_000;
        let target = Rate::l1_bps(9_500_000_000).unwrap();
        let mut g = GapPlanner::new(target, link, 1518, 1472, 64, 1518).unwrap();
        let n = 1_000_000u64;
        let mut wire = 0u64;
        let mut frames_with_gap = 0;
        for _ in 0..n {
            let f = g.next_gap();
            for i in 0..f.count {
                assert!((64..=1518).contains(&f.len_of(i)));
            }
            frames_with_gap += u64::from(f.count > 0);
            wire += f.wire_bytes();
        }
        // Exact: the total is the floor of the ideal, less what is owed.
        let ideal = n as u128 * 1538 * 500_000_000 / 9_500_000_000;
        assert_eq!(wire as u128 + g.owed() as u128, ideal);
        assert!(g.owed() < 84);
        assert!(frames_with_gap > 0 && frames_with_gap < n);
    }

    #[test]
    fn gap_in_frames_per_second_and_errors() {
        let link = 10_000_000_000;
        // 68,306 jumbo frames/s is half of line: 9150 wire bytes of gap each.
        let mut g =
            GapPlanner::new(Rate::fps(68_306).unwrap(), link, 9130, 9088, 64, 9130).unwrap();
        let f = g.next_gap();
        assert_eq!(f.count, 1);
        assert!(f.wire_bytes() >= 9150);
        assert!(matches!(
            GapPlanner::new(Rate::fps(136_613).unwrap(), link, 9130, 9088, 64, 9130),
            Err(ModeError::AboveLine { .. })
        ));
        assert!(matches!(
            GapPlanner::new(Rate::fps(1).unwrap(), link, 9130, 9088, 60, 9130),
            Err(ModeError::GapSizes { .. })
        ));
        // At line rate there is no gap.
        let mut g =
            GapPlanner::new(Rate::l1_bps(link).unwrap(), link, 9130, 9088, 64, 9130).unwrap();
        assert_eq!(g.next_gap().count, 0);
    }

    #[test]
    fn splits_gaps() {
        assert_eq!(split_gap(83, 84, 9150), GapFrames::default());
        assert_eq!(
            split_gap(84, 84, 9150),
            GapFrames {
                count: 1,
                len: 64,
                longer: 0
            }
        );
        // 20,000 wire bytes with max 9150: 3 frames of 6666/6667 wire bytes.
        let f = split_gap(20_000, 84, 9150);
        assert_eq!(f.count, 3);
        assert_eq!(f.wire_bytes(), 20_000);
        assert_eq!((f.len_of(0), f.len_of(2)), (6647, 6646));
        // Fixed 64-byte frames only: 200 bytes → two frames, 32 left.
        let f = split_gap(200, 84, 84);
        assert_eq!((f.count, f.len, f.wire_bytes()), (2, 64, 168));
    }
}
