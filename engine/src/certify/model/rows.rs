//! The rows each test adds to a certification, one per frame size and
//! direction (throughput, latency, the loss curve, back-to-back,
//! recovery, reset), what bound a figure, and the outcome of each
//! acceptance criterion.

use serde::{Deserialize, Serialize};

use super::Trial;
use crate::outcome::Problem;
use crate::pace::measure::Bucket;
use crate::report::Percentiles;

/// What bound a throughput result.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The device lost frames above this rate: the device's figure.
    Device,
    /// The line rate itself: the device forwarded everything offered.
    Line,
    /// The tester could not offer more: not the device's figure.
    Tester,
    /// An address search's top passed (RFC 2889's address caching and
    /// learning rate): the device holds at least that many addresses,
    /// or learns at least that fast; how much more was not tried.
    Top,
}

/// Throughput (RFC 2544 section 26.1) of one frame size in one direction.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ThroughputRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The highest rate with loss within the tolerance, % of line at L1.
    pub rate_pct: f64,
    /// That rate at L1, bit/s.
    pub l1_bps: f64,
    /// That rate at L2 (frames with FCS), bit/s.
    pub l2_bps: f64,
    /// That rate in frames per second.
    pub fps: f64,
    /// What bound it.
    pub bound: Bound,
    /// Trials the search ran, the confirming trial included.
    pub trial_count: u32,
    /// Every trial of the search, in order; the last is the confirmation.
    pub trials: Vec<Trial>,
    /// The search ran to its end; false when a signal stopped it (the
    /// figure is then the best rate found so far).
    #[serde(default = "yes")]
    pub complete: bool,
}

/// Why a throughput row is the tester's, in words: its nearest failure
/// (the lowest rate above the result that failed as the tester's) and
/// what made it the tester's; empty when no such trial is in the row.
pub fn why_tester(row: &ThroughputRow) -> String {
    let nearest = (row.trials.iter())
        .filter(|t| t.tester_bound && !t.passed && t.offered_pct > row.rate_pct)
        .min_by(|a, b| a.offered_pct.total_cmp(&b.offered_pct));
    let Some(t) = nearest else {
        return String::new();
    };
    let senders = (t.problems.iter())
        .filter(|p| matches!(p, Problem::TargetMissed { .. }))
        .count();
    let reasons: Vec<String> = (t.problems.iter())
        .filter_map(|p| match p {
            Problem::TargetMissed { achieved_pct, .. } if senders == 1 => Some(format!(
                "its sender reached {achieved_pct:.1} % of the rate"
            )),
            Problem::TargetMissed {
                achieved_pct,
                lcore,
                ..
            } => Some(format!(
                "TX lcore {lcore} reached {achieved_pct:.1} % of its rate"
            )),
            Problem::Descheduled {
                role,
                lcore,
                descheduled_pct,
                ..
            } => Some(format!(
                "{role} lcore {lcore} waited for its CPU {descheduled_pct:.1} % of the time"
            )),
            Problem::SenderBunched {
                late_max_ns, lost, ..
            } => Some(format!(
                "its sender fell up to {} behind its schedule and caught up in bursts, \
                 {lost} frames lost",
                crate::units::format_nanos(*late_max_ns as f64)
            )),
            _ => None,
        })
        .collect();
    let what = if reasons.is_empty() {
        "its sender sent short".to_string()
    } else {
        reasons.join(", ")
    };
    format!(
        "the nearest failure, at {:.3} % of line, was the tester's: {what}",
        t.offered_pct
    )
}

/// Latency (RFC 2544 section 26.2) of one frame size in one direction, at
/// its throughput rate.
///
/// Its figures are taken over the trials that count: a trial that lost
/// frames at the throughput rate (its frames queued behind a full buffer)
/// or that the tester bounded says nothing of the device's latency, so it
/// is left out ([`Trial::excluded`] says why), tried again, and listed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LatencyRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The rate the trials ran at, % of line at L1.
    pub rate_pct: f64,
    /// The latency the tester measured, over the frames of every trial
    /// that counts, ns: `min_ns` and `max_ns` the least and the largest
    /// of any frame, `mean_ns` the mean of the trials' means (RFC 2544
    /// section 26.2 reports the average of the trials), the percentiles
    /// and the standard deviation over all their frames together.
    pub summary: Percentiles,
    /// Jitter: the mean of the trials' latency standard deviations, ns
    /// (how far a frame's latency strays from its trial's mean).
    pub jitter_ns: f64,
    /// Every trial, the ones left out included.
    pub trials: Vec<Trial>,
    /// Every trial asked for ran; false when a signal stopped the row.
    #[serde(default = "yes")]
    pub complete: bool,
    /// Trials whose figures count (not [`Trial::excluded`]).
    #[serde(default)]
    pub counted: u32,
    /// The distribution of `summary`: every frame's latency in buckets
    /// of a quarter octave (each bound 2^¼ of the one before), empty
    /// buckets left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histogram: Vec<Bucket>,
    /// The tester's own latency at this size and rate, from the baseline
    /// the certification was given (`--baseline`); `None` without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Percentiles>,
    /// The device's latency as the certification's definition counts it
    /// (see [`LatencyDefinition`](super::LatencyDefinition)): `summary`
    /// less the baseline's mean and, for store-and-forward, less one frame
    /// time at line rate; `None` without a baseline (the tester's own
    /// latency cannot be taken out: `summary` is an upper bound of the
    /// device's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<Percentiles>,
}

/// How a latency trial left out on its last try ends its `excluded`.
pub const GIVEN_UP: &str = "no tries left";

impl LatencyRow {
    /// The trials left out on their last try: each leaves the row a
    /// trial short of the settings'.
    pub fn given_up(&self) -> Vec<&Trial> {
        (self.trials.iter())
            .filter(|t| (t.excluded.as_deref()).is_some_and(|w| w.ends_with(GIVEN_UP)))
            .collect()
    }

    /// Whether the row is short of trials because of the tester alone:
    /// some trial was given up, and the tester bounded every one that was.
    pub fn tester_bound(&self) -> bool {
        let g = self.given_up();
        !g.is_empty() && g.iter().all(|t| t.tester_bound)
    }
}

/// One point of a frame-loss curve.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LossPoint {
    /// Offered load, % of line at L1.
    pub rate_pct: f64,
    /// Frame loss rate, % of frames sent (RFC 2544 section 26.3).
    pub loss_pct: f64,
    /// The trial behind the point.
    pub trial: Trial,
    /// Earlier trials at this rate that the tester bounded (tried again
    /// until one was not, or the tries ran out), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retried: Vec<Trial>,
}

/// Frame loss rate (RFC 2544 section 26.3) of one frame size in one
/// direction: from the top rate down until two successive steps lose
/// nothing.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct LossCurve {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The points, highest rate first.
    pub points: Vec<LossPoint>,
    /// The curve reached two successive loss-free steps (or the lowest
    /// rate); false when a signal stopped it.
    #[serde(default = "yes")]
    pub complete: bool,
}

/// Back-to-back (RFC 2544 section 26.4) of one frame size in one
/// direction: the longest burst at line rate with no loss.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct BackToBackRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// Longest loss-free burst of each trial, frames.
    pub bursts: Vec<u64>,
    /// Their mean, frames.
    pub mean_frames: f64,
    /// Their standard deviation (of the searches as a sample), frames;
    /// 0 with fewer than two (RFC 9004 section 3 asks for it beside the
    /// mean).
    #[serde(default)]
    pub stddev_frames: f64,
    /// How long the mean burst lasts at line rate, seconds: the implied
    /// DUT buffer time of RFC 9004 section 3.
    pub mean_s: f64,
    /// The corrected DUT buffer time of RFC 9004 section 3, seconds: the
    /// implied time less what the device forwarded during the burst at
    /// its measured throughput, `(1 / line fps) × (mean − mean / line
    /// fps × throughput fps)`; `None` when this certification measured
    /// no throughput for the size and direction (or found it at line
    /// rate, where the burst has no limit to correct).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_s: Option<f64>,
    /// The throughput the correction used, frames/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_fps: Option<f64>,
    /// The search found no loss even at its longest burst: the figure is
    /// a lower bound (the device buffers at least this much, or forwards
    /// at line rate).
    pub at_limit: bool,
    /// Every trial of every search.
    pub trials: Vec<Trial>,
    /// What bound the figure: `line` when no burst up to the longest
    /// tried lost anything, `tester` when a failing burst was one the
    /// tester could not send at line rate (not the device's figure),
    /// else `device`.
    #[serde(default = "device")]
    pub bound: Bound,
    /// Every search asked for ran; false when a signal stopped the row.
    #[serde(default = "yes")]
    pub complete: bool,
}

/// System recovery (RFC 2544 section 26.5) of one frame size in one
/// direction: an overload of 110 % of the throughput (at most the line)
/// for a while, then half of it; the time from the drop to the last
/// frame lost, averaged over the trials.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RecoveryRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The overload, % of line at L1.
    pub overload_pct: f64,
    /// The load after the drop, % of line at L1.
    pub reduced_pct: f64,
    /// Each counted trial's recovery time, seconds.
    pub recovery_s: Vec<f64>,
    /// Their mean, seconds (`None`: no trial counted).
    pub mean_s: Option<f64>,
    /// Why the row has no figure or a figure to read with care (the
    /// overload lost nothing: the device did not overload), when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every trial (those left out marked).
    pub trials: Vec<Trial>,
    /// Every trial asked for ran.
    #[serde(default = "yes")]
    pub complete: bool,
}

/// Reset (RFC 2544 section 26.6) in one direction at the smallest frame
/// size: a stream at the throughput rate, the device reset by the
/// profile's hook during it; the time from the last frame before the
/// reset to the first after it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResetRow {
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// The load, % of line at L1.
    pub rate_pct: f64,
    /// Each counted trial's reset time, seconds.
    pub reset_s: Vec<f64>,
    /// Their mean, seconds (`None`: no trial counted).
    pub mean_s: Option<f64>,
    /// Why a trial or the row has no figure, when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every trial.
    pub trials: Vec<Trial>,
    /// Every trial asked for ran.
    #[serde(default = "yes")]
    pub complete: bool,
}

/// One of RFC 2889's address searches for one frame size (the
/// aggregate of a mesh): address caching capacity (section 5.7, a
/// binary search on the number of addresses the device holds) or
/// address learning rate (section 5.8, a binary search on the learning
/// frames' rate). A trial passes when the device's address table is
/// cleared (`certify.dut.flush`), learning frames teach it the trial's
/// addresses, and the test frames to those addresses all reach their
/// port and none is flooded (no frame foreign at any port, the
/// monitoring port's included).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AddressRow {
    /// Direction label.
    pub direction: String,
    /// Frame size of the test frames with FCS, bytes.
    pub frame_size: u32,
    /// Address caching: the most addresses the device held without
    /// flooding (`None`: not even the search's least); learning rate:
    /// the addresses each trial taught.
    pub addresses: Option<u64>,
    /// Learning rate: the fastest learning frames/s at which the device
    /// learnt every address (`None`: not even the search's least);
    /// address caching: the rate its learning frames went at.
    pub learning_fps: Option<f64>,
    /// The search's range: addresses (caching) or frames/s (learning
    /// rate), least and most.
    pub searched: [f64; 2],
    /// What bound the figure: the device (it flooded or lost frames
    /// above it), the search's top, or the tester.
    pub bound: Bound,
    /// Why the row has no figure, or what qualifies it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every trial, in the search's order (its trace).
    pub trials: Vec<Trial>,
    /// Every trial asked for ran.
    #[serde(default = "yes")]
    pub complete: bool,
}

/// Serde default of the `complete` fields: results without it ran whole.
fn yes() -> bool {
    true
}

/// Serde default of [`BackToBackRow::bound`].
fn device() -> Bound {
    Bound::Device
}

/// The outcome of one acceptance criterion of the profile.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Criterion {
    /// Which test it belongs to: `throughput`, `latency`, `loss` or
    /// `back_to_back`.
    pub test: String,
    /// Direction label.
    pub direction: String,
    /// Frame size it applies to.
    pub frame_size: u32,
    /// What was asked, in words (`throughput ≥ 95 % of line`).
    pub wanted: String,
    /// What was measured, in words (`98.2 % of line`).
    pub measured: String,
    /// Met (meaningful only when `judged`).
    pub passed: bool,
    /// It was judged: false when the figure it needs was the tester's
    /// limit (or every trial behind it was left out), so the device can
    /// be said neither to meet nor to miss it (`measured` begins `not
    /// judged:`).
    #[serde(default = "yes")]
    pub judged: bool,
}

impl Criterion {
    /// Its state in one word, as every output names it: `pass`, `fail`
    /// or `not judged`.
    pub fn state(&self) -> &'static str {
        match (self.judged, self.passed) {
            (false, _) => "not judged",
            (true, true) => "pass",
            (true, false) => "fail",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tester_bound_row_names_its_nearest_failure_and_why() {
        let bunch = Problem::SenderBunched {
            late_max_ns: 23_492_000,
            late_frames: 125,
            queue_ns: 10_680_000,
            lost: 68,
        };
        let trial = |offered_pct: f64, passed: bool, tester_bound: bool, problems| Trial {
            offered_pct,
            passed,
            tester_bound,
            problems,
            ..Trial::default()
        };
        let mut row = ThroughputRow {
            direction: "t0 → t1".into(),
            frame_size: 512,
            rate_pct: 31.25,
            l1_bps: 0.0,
            l2_bps: 0.0,
            fps: 0.0,
            bound: Bound::Tester,
            trial_count: 4,
            trials: vec![
                trial(100.0, false, false, vec![]),
                trial(37.5, false, true, vec![bunch.clone()]),
                trial(37.5, false, true, vec![bunch]),
                trial(31.25, true, false, vec![]),
            ],
            complete: true,
        };
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: its sender fell up \
             to 23.49 ms behind its schedule and caught up in bursts, 68 frames lost"
        );
        row.trials[2].problems = vec![Problem::Descheduled {
            role: "TX".into(),
            lcore: 1,
            descheduled_pct: 6.44,
            wait_ns: 0,
            stolen_ns: 0,
            wall_ns: 0,
        }];
        row.trials[1].offered_pct = 43.75;
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: TX lcore 1 waited \
             for its CPU 6.4 % of the time"
        );
        // A tester-bound failure at the result's own rate (tried again
        // there and passed) is not above the result: the nearest failure
        // stays the one above it.
        let missed = Problem::TargetMissed {
            lcore: 1,
            port: 0,
            layer: "L1".into(),
            target_per_sec: 100_000_000,
            achieved_per_sec: 96_595_739.6,
            achieved_pct: 96.5957,
            refused: 0,
            alloc_failed: 0,
        };
        row.trials
            .insert(3, trial(31.25, false, true, vec![missed.clone()]));
        assert!(why_tester(&row).starts_with("the nearest failure, at 37.500 % of line"));
        // A target missed names how much of the rate the sender reached,
        // each reason in the trial's order; no named reason: it sent short.
        row.trials[2].problems.insert(0, missed.clone());
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: its sender reached \
             96.6 % of the rate, TX lcore 1 waited for its CPU 6.4 % of the time"
        );
        // Several senders (a mesh): each named by its lcore.
        let mut other = missed;
        if let Problem::TargetMissed {
            lcore,
            achieved_pct,
            ..
        } = &mut other
        {
            (*lcore, *achieved_pct) = (2, 90.04);
        }
        let one = row.trials[2].problems.clone();
        row.trials[2].problems.insert(1, other);
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: TX lcore 1 reached \
             96.6 % of its rate, TX lcore 2 reached 90.0 % of its rate, TX lcore 1 waited for \
             its CPU 6.4 % of the time"
        );
        row.trials[2].problems = one;
        row.trials[2].problems = vec![Problem::LinkDown {
            port: "t0".into(),
            side: "TX".into(),
            down_at_s: 0.5,
            down_s: 0.1,
            outages: 1,
            down_at_end: false,
        }];
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: its sender sent short"
        );
        row.trials.truncate(1);
        assert_eq!(why_tester(&row), "");
    }
}
