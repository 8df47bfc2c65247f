//! Traffic patterns around a mean rate: constant bit rate, Poisson arrivals,
//! and on/off bursts.
//!
//! A [`Pacer`] wraps an exact [`Schedule`] at the mean rate and returns
//! absolute departure times, never relative gaps, so no pattern drifts: CBR
//! follows the schedule exactly, on/off bursts are anchored to it at every
//! burst, and Poisson gaps are exponential multiples of each frame's share
//! with the fractional part carried.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use thiserror::Error;

use super::rate::{bits_per_frame, Layer, Rate};
use super::schedule::{Schedule, ScheduleError};

/// What is wrong with a pattern.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PatternError {
    /// The pattern text could not be parsed.
    #[error(
        "cannot parse pattern `{input}`: {reason} (use `cbr`, `poisson[:SEED]` or \
         `onoff:BURST_FRAMES[:SEED]`)"
    )]
    Unparsable {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An on/off burst of zero frames.
    #[error("on/off pattern: a burst must have at least one frame")]
    EmptyBurst,
    /// The peak schedule could not be built.
    #[error(transparent)]
    Schedule(#[from] ScheduleError),
}

/// How departures are spread around the mean rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Pattern {
    /// Constant bit rate: every frame at its exact scheduled time.
    Cbr,
    /// Poisson arrivals: exponential gaps with the schedule's mean, from a
    /// seeded generator (the same seed gives the same departures).
    Poisson {
        /// Generator seed.
        seed: u64,
    },
    /// On/off bursts: `burst_frames` frames back to back at the peak (line)
    /// rate, then silence until the mean rate is met; the period is
    /// `burst_frames` frame times at the mean rate. With a seed, each burst's
    /// length is drawn uniformly from `1..=2 × burst_frames − 1` (same mean)
    /// and its silence scales with it.
    OnOff {
        /// Frames per burst (mean, when seeded).
        burst_frames: u32,
        /// Optional seed for random burst lengths.
        seed: Option<u64>,
    },
    /// A step: the mean rate for `after_ns` from the first departure,
    /// then `ppm` millionths of it, constant in each part (RFC 2544
    /// section 26.5's overload, then half of it).
    Step {
        /// Nanoseconds at the mean rate.
        after_ns: u64,
        /// The rate after the step, millionths of the mean.
        ppm: u32,
    },
}

impl Pattern {
    /// The share of the mean rate this pattern offers on average over
    /// `span_s` seconds from its first departure: 1, but for a step the
    /// mean rate up to the step and its share after it, weighed by time.
    pub fn share_over(&self, span_s: f64) -> f64 {
        match *self {
            Pattern::Step { after_ns, ppm } if span_s > 0.0 => {
                let before = (after_ns as f64 / 1e9).min(span_s);
                (before + (span_s - before) * f64::from(ppm) / 1e6) / span_s
            }
            _ => 1.0,
        }
    }

    /// The burst length that sends for `on_ns` nanoseconds at `line_bps`
    /// with frames of `frame_size_with_fcs` bytes (at least one frame).
    pub fn burst_frames_for(on_ns: u64, line_bps: u64, frame_size_with_fcs: usize) -> u32 {
        let bits = bits_per_frame(Layer::L1, frame_size_with_fcs, 0) as u128;
        let frames = on_ns as u128 * line_bps as u128 / (1_000_000_000 * bits);
        frames.clamp(1, u32::MAX as u128) as u32
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Pattern::Cbr => f.write_str("cbr"),
            Pattern::Poisson { seed } => write!(f, "poisson:{seed}"),
            Pattern::OnOff {
                burst_frames,
                seed: None,
            } => write!(f, "onoff:{burst_frames}"),
            Pattern::OnOff {
                burst_frames,
                seed: Some(s),
            } => write!(f, "onoff:{burst_frames}:{s}"),
            Pattern::Step { after_ns, ppm } => write!(f, "step:{after_ns}ns:{ppm}ppm"),
        }
    }
}

impl FromStr for Pattern {
    type Err = PatternError;

    /// Parses `cbr`, `poisson` (seed 1), `poisson:SEED`, `onoff:N` and
    /// `onoff:N:SEED`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let input = s.trim();
        let bad = |reason: &str| PatternError::Unparsable {
            input: input.to_string(),
            reason: reason.to_string(),
        };
        let mut parts = input.split(':').map(str::trim);
        let name = parts.next().unwrap_or("").to_ascii_lowercase();
        let num = |p: Option<&str>, what: &str| -> Result<Option<u64>, PatternError> {
            match p {
                None => Ok(None),
                Some(t) => t
                    .parse::<u64>()
                    .map(Some)
                    .map_err(|_| bad(&format!("{what} `{t}` is not a whole number"))),
            }
        };
        let pattern = match name.as_str() {
            "cbr" => Pattern::Cbr,
            "poisson" => Pattern::Poisson {
                seed: num(parts.next(), "seed")?.unwrap_or(1),
            },
            "onoff" | "on-off" | "on/off" => {
                let n = num(parts.next(), "burst length")?
                    .ok_or_else(|| bad("on/off needs a burst length in frames"))?;
                if n == 0 {
                    return Err(PatternError::EmptyBurst);
                }
                let burst_frames = u32::try_from(n).map_err(|_| bad("burst length too large"))?;
                Pattern::OnOff {
                    burst_frames,
                    seed: num(parts.next(), "seed")?,
                }
            }
            _ => return Err(bad("unknown pattern")),
        };
        if parts.next().is_some() {
            return Err(bad("too many `:` fields"));
        }
        Ok(pattern)
    }
}

pub use crate::rng::SplitMix64;

/// Fractional bits of a unit kept by the Poisson schedule.
const FINE_BITS: u32 = 16;

#[derive(Debug, Clone)]
enum State {
    Cbr,
    Poisson {
        rng: SplitMix64,
        /// The mean-rate schedule in units of 2^-16 of a unit.
        fine: Schedule,
        /// Fractional 2^-16 units carried between frames, in 2^-32.
        frac: u64,
    },
    OnOff {
        rng: Option<SplitMix64>,
        mean_burst: u32,
        left: u32,
        peak: Schedule,
    },
    Step {
        /// The TSC of the step.
        at: u64,
        /// The schedule after it, from `at`.
        after: Schedule,
        stepped: bool,
    },
}

/// Departure times for one stream (or one lcore's shared schedule) following
/// a [`Pattern`] around the mean rate of its [`Schedule`].
#[derive(Debug, Clone)]
pub struct Pacer {
    base: Schedule,
    state: State,
}

impl Pacer {
    /// A pacer for `pattern` around `schedule`'s mean rate. `line_bps` is the
    /// link's L1 rate, the peak rate of on/off bursts (ignored otherwise).
    pub fn new(pattern: Pattern, schedule: Schedule, line_bps: u64) -> Result<Self, PatternError> {
        let state = match pattern {
            Pattern::Cbr => State::Cbr,
            Pattern::Poisson { seed } => {
                let r = schedule.rate();
                let fine_rate =
                    Rate::new(r.per_sec() << FINE_BITS, r.layer()).map_err(ScheduleError::from)?;
                State::Poisson {
                    rng: SplitMix64::new(seed),
                    fine: Schedule::new(schedule.start(), schedule.tsc_hz(), fine_rate)?,
                    frac: 0,
                }
            }
            Pattern::OnOff { burst_frames, seed } => {
                if burst_frames == 0 {
                    return Err(PatternError::EmptyBurst);
                }
                let peak_rate = Rate::l1_bps(line_bps).map_err(ScheduleError::from)?;
                State::OnOff {
                    rng: seed.map(SplitMix64::new),
                    mean_burst: burst_frames,
                    left: 0,
                    peak: Schedule::new(schedule.start(), schedule.tsc_hz(), peak_rate)?,
                }
            }
            Pattern::Step { after_ns, ppm } => {
                let r = schedule.rate();
                let per_sec = (u128::from(r.per_sec()) * u128::from(ppm) / 1_000_000) as u64;
                let rate = Rate::new(per_sec.max(1), r.layer()).map_err(ScheduleError::from)?;
                let hz = schedule.tsc_hz();
                let at = schedule.start()
                    + (u128::from(after_ns) * u128::from(hz) / 1_000_000_000) as u64;
                State::Step {
                    at,
                    after: Schedule::new(at, hz, rate)?
                        .with_payload_overhead(schedule.payload_overhead()),
                    stepped: false,
                }
            }
        };
        Ok(Pacer {
            base: schedule,
            state,
        })
    }

    /// The departure TSC of the next frame of `frame_size_with_fcs` bytes;
    /// advances the pacer. No allocation; Poisson draws one logarithm.
    #[inline]
    pub fn next(&mut self, frame_size_with_fcs: usize) -> u64 {
        match &mut self.state {
            State::Cbr => self.base.next(frame_size_with_fcs),
            State::Poisson { rng, fine, frac } => {
                let units = self.base.units_for(frame_size_with_fcs);
                self.base.next_units(units);
                // units × Exp(1), kept to 2^-16 of a unit; the bits below
                // that are carried to the next frame so none are lost.
                let scaled = units as u128 * rng.exp_q32() as u128 + *frac as u128;
                let lost_bits = 32 - FINE_BITS;
                *frac = (scaled & ((1 << lost_bits) - 1)) as u64;
                fine.next_units((scaled >> lost_bits) as u64)
            }
            State::OnOff {
                rng,
                mean_burst,
                left,
                peak,
            } => {
                if *left == 0 {
                    *left = match rng {
                        Some(r) => {
                            let span = 2 * u64::from(*mean_burst) - 1;
                            (r.next_u64() % span) as u32 + 1
                        }
                        None => *mean_burst,
                    };
                    peak.restart(self.base.peek());
                }
                *left -= 1;
                self.base.next(frame_size_with_fcs);
                peak.next(frame_size_with_fcs)
            }
            State::Step { at, after, stepped } => {
                if !*stepped {
                    let t = self.base.next(frame_size_with_fcs);
                    if t < *at {
                        return t;
                    }
                    *stepped = true;
                }
                after.next(frame_size_with_fcs)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Pacer {
        /// The schedule at the mean rate.
        fn schedule(&self) -> &Schedule {
            &self.base
        }
    }

    const HZ: u64 = 2_500_000_000;

    fn sched(bps: u64) -> Schedule {
        Schedule::new(0, HZ, Rate::l1_bps(bps).unwrap()).unwrap()
    }

    #[test]
    fn parses_patterns() {
        assert_eq!("cbr".parse::<Pattern>().unwrap(), Pattern::Cbr);
        assert_eq!(
            "poisson".parse::<Pattern>().unwrap(),
            Pattern::Poisson { seed: 1 }
        );
        assert_eq!(
            "poisson:42".parse::<Pattern>().unwrap(),
            Pattern::Poisson { seed: 42 }
        );
        assert_eq!(
            "onoff:100:7".parse::<Pattern>().unwrap(),
            Pattern::OnOff {
                burst_frames: 100,
                seed: Some(7)
            }
        );
        assert_eq!("onoff:0".parse::<Pattern>(), Err(PatternError::EmptyBurst));
        assert!("onoff".parse::<Pattern>().is_err());
        assert!("poisson:x".parse::<Pattern>().is_err());
        assert!("zipf".parse::<Pattern>().is_err());
        for p in ["cbr", "poisson:9", "onoff:5", "onoff:5:3"] {
            assert_eq!(p.parse::<Pattern>().unwrap().to_string(), p);
        }
    }

    #[test]
    fn a_step_keeps_the_mean_rate_until_it_then_the_share_from_it_exactly() {
        // 1 Gbit/s of 1250-byte (L1: 1270 B) frames at 2.5 GHz: one every
        // 25,400 ticks; after 1 ms, half the rate: one every 50,800.
        let step = Pattern::Step {
            after_ns: 1_000_000,
            ppm: 500_000,
        };
        let mut p = Pacer::new(step, sched(1_000_000_000), 10_000_000_000).unwrap();
        let mut s = sched(1_000_000_000);
        let at = HZ / 1000;
        let mut t = Vec::new();
        loop {
            let due = p.next(1250);
            if due >= at {
                t.push(due);
                break;
            }
            assert_eq!(
                due,
                s.next(1250),
                "the mean rate's schedule before the step"
            );
        }
        assert_eq!(
            t[0], at,
            "the first frame at or after the step leaves at the step"
        );
        let mut half = Schedule::new(at, HZ, Rate::l1_bps(500_000_000).unwrap()).unwrap();
        assert_eq!(half.next(1250), at);
        for _ in 0..1000 {
            assert_eq!(p.next(1250), half.next(1250));
        }
        assert_eq!(half.peek() - at, 1001 * 50_800);
        assert_eq!(step.to_string(), "step:1000000ns:500000ppm");
    }

    #[test]
    fn a_step_s_share_of_the_mean_is_weighed_by_time() {
        let step = Pattern::Step {
            after_ns: 60_000_000_000,
            ppm: 500_000,
        };
        assert_eq!(step.share_over(60.0), 1.0);
        assert_eq!(step.share_over(30.0), 1.0);
        assert_eq!(step.share_over(120.0), 0.75);
        assert_eq!(step.share_over(0.0), 1.0);
        assert_eq!(Pattern::Cbr.share_over(10.0), 1.0);
    }

    #[test]
    fn cbr_is_the_schedule() {
        let mut p = Pacer::new(Pattern::Cbr, sched(5_000_000_000), 10_000_000_000).unwrap();
        let mut s = sched(5_000_000_000);
        for _ in 0..1000 {
            assert_eq!(p.next(9130), s.next(9130));
        }
    }

    #[test]
    fn poisson_mean_within_a_tenth_of_a_percent() {
        let rate = 5_000_000_000;
        let mut p = Pacer::new(Pattern::Poisson { seed: 7 }, sched(rate), 10_000_000_000).unwrap();
        let n = 2_000_000u64;
        let mut prev = p.next(9130);
        let mut gaps = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let t = p.next(9130);
            gaps.push((t - prev) as f64);
            prev = t;
        }
        let mean_gap = 9150.0 * 8.0 * HZ as f64 / rate as f64;
        let mean = gaps.iter().sum::<f64>() / n as f64;
        assert!(
            (mean / mean_gap - 1.0).abs() < 0.001,
            "{mean} vs {mean_gap}"
        );
        // Exponential: standard deviation equals the mean; about 36.8% of
        // gaps exceed the mean.
        let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / n as f64;
        assert!((var.sqrt() / mean - 1.0).abs() < 0.01);
        let above = gaps.iter().filter(|&&g| g > mean).count() as f64 / n as f64;
        assert!((above - (-1.0f64).exp()).abs() < 0.005, "{above}");
        // Same seed, same departures.
        let mut a = Pacer::new(Pattern::Poisson { seed: 3 }, sched(rate), 0).unwrap();
        let mut b = Pacer::new(Pattern::Poisson { seed: 3 }, sched(rate), 0).unwrap();
        for _ in 0..100 {
            assert_eq!(a.next(1518), b.next(1518));
        }
    }

    #[test]
    fn on_off_bursts_at_line_rate_keep_the_mean() {
        let line = 10_000_000_000;
        let rate = 1_000_000_000;
        let mut p = Pacer::new(
            Pattern::OnOff {
                burst_frames: 10,
                seed: None,
            },
            sched(rate),
            line,
        )
        .unwrap();
        let deps: Vec<u64> = (0..30).map(|_| p.next(9130)).collect();
        let line_gap = 9150 * 8 * HZ / line; // 18,300 ticks
        let mean_gap = 9150 * 8 * HZ / rate; // 183,000 ticks
        assert_eq!(deps[1] - deps[0], line_gap);
        assert_eq!(deps[9] - deps[0], 9 * line_gap);
        assert_eq!(deps[10], 10 * mean_gap);
        assert_eq!(deps[20], 20 * mean_gap);
        assert_eq!(p.schedule().peek(), 30 * mean_gap);
    }

    #[test]
    fn seeded_on_off_keeps_the_mean() {
        let mut p = Pacer::new(
            Pattern::OnOff {
                burst_frames: 50,
                seed: Some(11),
            },
            sched(2_000_000_000),
            10_000_000_000,
        )
        .unwrap();
        let mut last = 0;
        for _ in 0..100_000 {
            last = p.next(1518);
        }
        // Every frame advances the mean schedule; bursts start on it.
        let expect = 100_000u64 * 1538 * 8 * HZ / 2_000_000_000;
        assert!(last < expect && p.schedule().peek() == expect);
    }

    #[test]
    fn burst_length_from_time() {
        // 1 ms at 10 Gbit/s of 9130-byte frames: 136 frames.
        assert_eq!(
            Pattern::burst_frames_for(1_000_000, 10_000_000_000, 9130),
            136
        );
        assert_eq!(Pattern::burst_frames_for(1, 10_000_000_000, 9130), 1);
    }
}
