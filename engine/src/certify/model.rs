//! The typed result of an RFC 2544 certification and of each trial in it.
//!
//! Rates are given at two layers, as RFC 2544 and the labs that use it do:
//! L1 (the frame plus preamble, start delimiter and inter-frame gap: 20
//! bytes more per frame) and L2 (the frame with its FCS). "% of line" is
//! always at L1, where 100 % is the port's line rate whatever the size.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::outcome::Problem;
use crate::pace::measure::Bucket;
use crate::report::Percentiles;
use crate::units::L1_OVERHEAD;

/// One trial the searches ask the tester to run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrialSpec {
    /// Which direction (index into [`Tester::directions`]) sends; `None`
    /// sends on every direction at once (the aggregate of a bidirectional
    /// topology).
    pub direction: Option<usize>,
    /// Ethernet frame size with FCS, bytes.
    pub frame_size: u32,
    /// Offered load in % of the line rate at L1 (0 < rate ≤ 100).
    pub rate_pct: f64,
    /// How long frames are sent, seconds (ignored when `burst` is set).
    pub duration_s: f64,
    /// Back-to-back: send exactly this many frames at line rate, then stop.
    pub burst: Option<u64>,
    /// Wait this long after the last frame before counting, seconds, so
    /// late frames are counted in this trial and never in the next.
    pub settle_s: f64,
    /// A step in the offered load (RFC 2544 section 26.5's recovery):
    /// `rate_pct` for the step's `after_s`, then its `to_pct` until the
    /// trial's end.
    pub step: Option<RateStep>,
    /// Reset the device this long into the trial (RFC 2544 section 26.6),
    /// with the profile's reset hook.
    pub reset_at_s: Option<f64>,
}

/// A step in a trial's offered load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateStep {
    /// Seconds at the trial's rate before the step.
    pub after_s: f64,
    /// The rate after the step, % of line at L1.
    pub to_pct: f64,
}

/// Runs trials: the runtime over DPDK ports, or a simulation in tests.
pub trait Tester {
    /// The directions this topology measures, e.g. `["port 0 → port 1"]`,
    /// or two for a bidirectional topology.
    fn directions(&self) -> Vec<String>;
    /// The line rate at L1 in bit/s of the sending port(s).
    fn line_bps(&self) -> u64;
    /// Send learning frames (RFC 2544 section 23(b)) before the trial
    /// `spec`: from each receiving port of its directions toward the
    /// device, with the test frames' destination address as their
    /// source, so a switch learns where that address is.
    fn learn(&mut self, spec: &TrialSpec) -> crate::Result<()>;
    /// Wait `seconds` for the device to restabilise after a trial (RFC
    /// 2544 section 23(e)); a signal cuts it short.
    fn rest(&mut self, seconds: f64);
    /// Run a device-under-test hook: `command` by `sh -c` in a process
    /// group of its own, with `env` added to its environment, killed
    /// (its whole group) after `timeout_s`; what it did, its output
    /// kept.
    fn hook(
        &mut self,
        hook: &str,
        command: &str,
        timeout_s: f64,
        env: &[(&str, String)],
    ) -> HookRun;
    /// Reset the device under test with the `reset` hook of `dut`: its
    /// run, or an error naming the hook and why it failed (or that there
    /// is none).
    fn reset_device(&mut self, dut: &DutHooks) -> crate::Result<HookRun> {
        let Some(command) = dut.reset.as_deref() else {
            return Err(crate::Error::Certify(
                "no reset hook: the profile's certify.dut has no `reset:` command".into(),
            ));
        };
        let run = self.hook(
            "reset",
            command,
            dut.timeout_s,
            &[("LANDSPEED_HOOK", "reset".into())],
        );
        match run.failure() {
            None => Ok(run),
            Some(why) => Err(crate::Error::Certify(format!(
                "certify.dut.reset `{command}` {why}{}",
                run.output_tail()
            ))),
        }
    }
    /// Run one trial and return what it measured. An error ends the
    /// certification (the results so far are still written).
    fn trial(&mut self, spec: &TrialSpec) -> crate::Result<Trial>;
    /// The receiving port of `direction` (`None`: every receiving port),
    /// as the profile names it, for messages (`port p1 received nothing`).
    fn rx_port(&self, direction: Option<usize>) -> String;
    /// True once a signal asked the certification to stop: the searches
    /// stop after the current trial and the result is marked incomplete.
    fn stopped(&self) -> bool;
}

/// What one trial measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Trial {
    /// Direction label (one of [`Tester::directions`], or `aggregate`).
    pub direction: String,
    /// Ethernet frame size with FCS, bytes.
    pub frame_size: u32,
    /// Offered load, % of line at L1.
    pub offered_pct: f64,
    /// Load the tester actually sent, % of line at L1 (below
    /// `offered_pct` when the tester could not keep up).
    pub sent_pct: f64,
    /// Frames sent in the trial (for back-to-back: the burst length).
    pub tx_frames: u64,
    /// Frames received and checked good.
    pub rx_frames: u64,
    /// Frames lost: sent and never received (after the settle time).
    pub lost: u64,
    /// `lost` as % of `tx_frames` (0 when nothing was sent).
    pub loss_pct: f64,
    /// Frames received out of order.
    pub reordered: u64,
    /// Frames received more than once.
    pub duplicated: u64,
    /// Frames received with a bad checksum, stamp or payload.
    pub corrupt: u64,
    /// One-way latency of the trial's frames (one process, one TSC), when
    /// the receiver measured it.
    pub latency: Option<Percentiles>,
    /// Seconds frames were sent.
    pub duration_s: f64,
    /// The tester itself could not offer the load (its TX missed the
    /// target, or its lcore was descheduled): a loss in this trial is not
    /// the device's.
    pub tester_bound: bool,
    /// The trial met the search's criteria (loss within the tolerance,
    /// latency bound, no corruption).
    pub passed: bool,
    /// What cast doubt on this trial (the run's problems).
    pub problems: Vec<Problem>,
    /// When every direction sent at once (the aggregate of a
    /// bidirectional topology): each direction's share of this trial's
    /// figures, in the order of the directions. Empty for a trial of one
    /// direction, and when the directions share a stream (their frames
    /// cannot be told apart).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_direction: Vec<DirectionFigures>,
    /// The sender's largest schedule error in the trial (how far behind
    /// its departure times it fell at worst), ns; 0 in results of older
    /// versions and for senders that keep no schedule.
    #[serde(default)]
    pub late_max_ns: u64,
    /// The 99.9th percentile of that schedule error, ns.
    #[serde(default)]
    pub late_p999_ns: u64,
    /// Every latency of the trial's frames, ns (the distribution
    /// `latency` summarises), so a row's figures are taken over the
    /// frames of all its trials; not written (the row's histogram is).
    #[serde(skip)]
    pub latency_hist: Option<Histogram<u64>>,
    /// Why the row leaves this trial's figures out (a latency trial that
    /// lost frames or was the tester's, a loss point or a burst the
    /// tester could not send and that was tried again); `None` when its
    /// figures count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// Where its latency's arrival times came from: `software` (the TSC
    /// read after the poll that returned the frame), `nic_rx` (the NIC's
    /// RX timestamps) or `nic_rx+software`; `None` without latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_source: Option<String>,
    /// The device-under-test hooks run around this trial, with their
    /// output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookRun>,
    /// A trial with a step in its load that lost frames: from the step to
    /// the departure of the first frame through after the last loss, ns
    /// (0 when the loss ended before the step): RFC 2544 section 26.5's
    /// recovery time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery_ns: Option<f64>,
    /// The longest time between two arrivals of a stream, ns: across a
    /// reset, RFC 2544 section 26.6's reset time (the last frame before
    /// it to the first after it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_max_ns: Option<f64>,
    /// The learning frames sent before this trial (RFC 2544 section
    /// 23(b)); `None` when none were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub learning: Option<LearningRun>,
}

/// What the learning before a trial did: the frames each receiving port
/// sent toward the device, the wait for the device to learn, and the
/// frames drained from the receive queues after it (so none counts in
/// the trial).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LearningRun {
    /// Each address taught, as `MAC from PORT` (with `in VLAN n` for a
    /// tagged stream's).
    pub addresses: Vec<String>,
    /// Learning frames sent, every port together.
    pub frames: u64,
    /// Frames read off the receive queues after the wait and freed: the
    /// learning frames a device sent on (or a loop brought back), and
    /// anything else that arrived between trials.
    pub drained: u64,
    /// Seconds it took: the frames, the wait, the draining.
    pub seconds: f64,
}

/// Learning frames each receiving port sends per address.
pub const LEARNING_FRAMES: u32 = 3;
/// Seconds between two learning frames of one address.
pub const LEARNING_GAP_S: f64 = 0.01;

/// The device-under-test hooks of a certification (`certify.dut`):
/// commands run before and after every trial, and to reset the device.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DutHooks {
    /// Run before every trial (after its learning frames).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_trial: Option<String>,
    /// Run after every trial (once its frames were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_trial: Option<String>,
    /// Run to reset the device (by the reset test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<String>,
    /// How long a hook may run before it is killed, seconds.
    pub timeout_s: f64,
    /// What a hook that fails (or hangs) does to the certification.
    pub on_failure: OnFailure,
}

/// The default [`DutHooks::timeout_s`], seconds.
pub const HOOK_TIMEOUT_S: f64 = 30.0;

impl Default for DutHooks {
    /// No hook, a 30 s limit, `stop`.
    fn default() -> Self {
        DutHooks {
            before_trial: None,
            after_trial: None,
            reset: None,
            timeout_s: HOOK_TIMEOUT_S,
            on_failure: OnFailure::Stop,
        }
    }
}

/// What a failing device-under-test hook does.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// The certification ends with an error naming the hook (its reports
    /// are still written).
    #[default]
    Stop,
    /// The trial carries a problem naming the hook, and the
    /// certification goes on.
    Continue,
}

impl OnFailure {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            OnFailure::Stop => "stop",
            OnFailure::Continue => "continue",
        }
    }
}

/// One run of a device-under-test hook (`certify.dut`): a command run
/// before or after a trial, or to reset the device.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HookRun {
    /// Which hook: `before_trial`, `after_trial` or `reset`.
    pub hook: String,
    /// The command as the profile gives it.
    pub command: String,
    /// Its exit status; `None` when it was killed (timed out or by a
    /// signal).
    pub status: Option<i32>,
    /// It ran past its time limit and was killed.
    pub timed_out: bool,
    /// Seconds it ran.
    pub seconds: f64,
    /// Its standard output and error as it wrote them (one pipe), the
    /// last 4 KiB at most.
    pub output: String,
    /// Bytes it wrote in all (more than `output` holds when it was cut
    /// to its tail).
    #[serde(default)]
    pub output_bytes: u64,
}

impl HookRun {
    /// The hook ended with status 0 in time.
    pub fn ok(&self) -> bool {
        self.status == Some(0) && !self.timed_out
    }

    /// How it failed, in words (`exited with status 3`, `ran past its
    /// time limit and was killed after 2.0 s`); `None` when it did not.
    pub fn failure(&self) -> Option<String> {
        if self.timed_out {
            return Some(format!(
                "ran past its time limit and was killed (its whole process group) after {:.1} s",
                self.seconds
            ));
        }
        match self.status {
            Some(0) => None,
            Some(n) => Some(format!("exited with status {n}")),
            None => Some("was killed by a signal".into()),
        }
    }

    /// The last line of its output as `; its output ends: ...`, empty
    /// when it wrote nothing.
    pub fn output_tail(&self) -> String {
        match self.output.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(l) => format!("; its output ends: {}", l.trim()),
            None => String::new(),
        }
    }
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
    let reasons: Vec<String> = (t.problems.iter())
        .filter_map(|p| match p {
            Problem::TargetMissed { achieved_pct, .. } => Some(format!(
                "its sender reached {achieved_pct:.1} % of the rate"
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

/// The least queueing delay [`bunched`] credits the device with, ns, when
/// its latency was not measured or was smaller: a sender later than this
/// sends its frames due meanwhile back to back, above the trial's rate.
pub const QUEUE_FLOOR_NS: u64 = 10_000;

/// Frames sent later than `ns` behind their departure times, from a
/// sender's schedule-error histogram (power-of-two buckets, each counted
/// whole when its upper bound is above `ns`: an upper estimate).
pub fn frames_later_than(buckets: &[Bucket], ns: u64) -> u64 {
    (buckets.iter())
        .filter(|b| b.le_ns > ns)
        .map(|b| b.count)
        .sum()
}

/// Whether a trial's loss may be the sender's own doing rather than the
/// device's: a sender that fell behind its schedule sends the frames due
/// meanwhile back to back when it runs again, a burst above the trial's
/// rate. A device that keeps up with the rate queues no more than that
/// burst beyond its steady load, so a burst worth more time than the
/// device's queue holds overflows it: at most the frames sent later than
/// the queue's delay are lost that way. `lost` frames after a sender
/// `late_max_ns` behind at worst, of which `late_frames` were sent more
/// than `queue_ns` late (the device's largest queueing delay seen, at
/// least [`QUEUE_FLOOR_NS`]): the loss is possibly the sender's when
/// frames were lost, the sender fell behind by more than the queue holds
/// and at least as many frames as were lost left that late. Then the
/// trial is tester-bound and the problem says why.
pub fn bunched(lost: u64, late_max_ns: u64, late_frames: u64, queue_ns: u64) -> Option<Problem> {
    let queue_ns = queue_ns.max(QUEUE_FLOOR_NS);
    (lost > 0 && late_max_ns > queue_ns && late_frames >= lost).then_some(Problem::SenderBunched {
        late_max_ns,
        late_frames,
        queue_ns,
        lost,
    })
}

/// One direction's share of a trial in which every direction sent at
/// once, told apart by the streams each direction's TX tasks send. Its
/// counts add up to the trial's, except corrupt frames whose stream could
/// not be read: those count in the trial's `corrupt` only.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct DirectionFigures {
    /// Direction label (one of [`Tester::directions`]).
    pub direction: String,
    /// Frames this direction sent.
    pub tx_frames: u64,
    /// Its frames received and checked good (once each).
    pub rx_frames: u64,
    /// Its frames sent and never received.
    pub lost: u64,
    /// `lost` as % of `tx_frames` (0 when nothing was sent).
    pub loss_pct: f64,
    /// Its frames received out of order.
    pub reordered: u64,
    /// Its frames received more than once.
    pub duplicated: u64,
    /// Its frames received corrupt.
    pub corrupt: u64,
    /// One-way latency of its frames, when the receiver measured it.
    pub latency: Option<Percentiles>,
}

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
    /// (see [`LatencyDefinition`]): `summary` less the baseline's mean
    /// and, for store-and-forward, less one frame time at line rate;
    /// `None` without a baseline (the tester's own latency cannot be
    /// taken out: `summary` is an upper bound of the device's).
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

/// Serde default of the `complete` fields: results without it ran whole.
fn yes() -> bool {
    true
}

/// Serde defaults of the recovery and reset settings.
fn sixty() -> f64 {
    60.0
}
fn thirty() -> f64 {
    30.0
}
fn ten() -> f64 {
    10.0
}
fn five() -> u32 {
    5
}
fn one() -> u32 {
    1
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

/// The settings a certification ran with (its defaults are RFC 2544's).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// Tests run, in order: `throughput`, `latency`, `loss`,
    /// `back_to_back`, `recovery`, `reset`.
    pub tests: Vec<String>,
    /// Frame sizes with FCS, bytes.
    pub sizes: Vec<u32>,
    /// Trial length, seconds: every throughput confirmation and every
    /// loss trial (RFC 2544 section 24: at least 60 s).
    pub trial_s: f64,
    /// The throughput search's own trials, seconds, when shorter than
    /// `trial_s` (the rate each search settles on is confirmed by a
    /// trial of `trial_s`); `None`: every trial lasts `trial_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_trial_s: Option<f64>,
    /// Wait after each trial before counting, seconds (late frames count
    /// in their own trial).
    pub settle_s: f64,
    /// Wait after counting before the next trial, seconds, so the device
    /// restabilises (RFC 2544 section 23(e): at least 5 s).
    #[serde(default)]
    pub restabilise_s: f64,
    /// Throughput search resolution, % of line.
    pub resolution_pct: f64,
    /// Loss accepted by the throughput search, % (0: NDR).
    pub loss_tolerance_pct: f64,
    /// Search bounds, % of line.
    pub lower_pct: f64,
    /// Search bounds, % of line.
    pub upper_pct: f64,
    /// A throughput trial whose p99 latency is above this fails like a
    /// loss, ns (other tests' trials are not held to it).
    pub max_p99_ns: Option<f64>,
    /// Latency trials per size.
    pub latency_trials: u32,
    /// Latency trial length, seconds.
    pub latency_trial_s: f64,
    /// How the device's latency is defined (RFC 1242 section 3.8).
    #[serde(default)]
    pub latency_definition: LatencyDefinition,
    /// Frame-loss step, % of line.
    pub loss_step_pct: f64,
    /// Back-to-back trials per size.
    pub back_to_back_trials: u32,
    /// Back-to-back: the longest burst tried, seconds at line rate.
    pub back_to_back_max_s: f64,
    /// When learning frames are sent (RFC 2544 section 23(b)).
    #[serde(default, deserialize_with = "learning_of")]
    pub learning: Learning,
    /// Recovery: seconds of overload before the drop (RFC 2544 section
    /// 26.5: at least 60 s).
    #[serde(default = "sixty")]
    pub recovery_overload_s: f64,
    /// Recovery: seconds at the reduced load after the drop.
    #[serde(default = "thirty")]
    pub recovery_reduced_s: f64,
    /// Recovery trials per size (RFC 2544: "a number of times").
    #[serde(default = "five")]
    pub recovery_trials: u32,
    /// Reset: seconds into the trial the device is reset.
    #[serde(default = "ten")]
    pub reset_at_s: f64,
    /// Reset: the trial's length, seconds (long enough for the device to
    /// come back).
    #[serde(default = "sixty")]
    pub reset_trial_s: f64,
    /// Reset trials.
    #[serde(default = "one")]
    pub reset_trials: u32,
    /// The wait after the learning frames, for the device to learn,
    /// seconds (RFC 2544 section 23(b): 2 s); 0 in results of older
    /// versions.
    #[serde(default)]
    pub learning_wait_s: f64,
    /// The device-under-test hooks (`certify.dut`), when the profile has
    /// any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dut: Option<DutHooks>,
    /// `--quick`: settings below RFC 2544's were asked for on purpose
    /// (they are still listed as not conformant).
    #[serde(default)]
    pub quick: bool,
    /// The IMIX the size [`IMIX`] stands for: frame sizes with FCS, sent
    /// in this order, repeating (RFC 6985's genome, spelled out); empty
    /// when the sizes name no IMIX.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imix: Vec<u32>,
    /// An asymmetric load: each direction's share of the aggregate's
    /// offered load, % (in the order of the directions); empty: every
    /// direction offers the whole load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub direction_loads: Vec<f64>,
}

/// When learning frames go out (RFC 2544 section 23(b)): from each
/// receiving port toward the device, carrying the test frames'
/// destination address as their source, so a switch knows where to
/// forward the test frames before they come.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Learning {
    /// Before every trial (a switch whose table ages out between trials
    /// would otherwise flood).
    #[default]
    EveryTrial,
    /// Once, before the first trial.
    Once,
    /// Never.
    Off,
}

impl Learning {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            Learning::EveryTrial => "every_trial",
            Learning::Once => "once",
            Learning::Off => "off",
        }
    }
}

/// `learning` as written: the key, or (results of older versions) a
/// flag: `true` sent learning frames before the first trial.
fn learning_of<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Learning, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Flag(bool),
        Key(Learning),
    }
    Ok(match Either::deserialize(d)? {
        Either::Flag(true) => Learning::Once,
        Either::Flag(false) => Learning::Off,
        Either::Key(k) => k,
    })
}

/// What a device's latency is measured between (RFC 1242 section 3.8).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LatencyDefinition {
    /// A store-and-forward device: from the last bit of the frame in to
    /// the first bit out (LIFO).
    #[default]
    StoreAndForward,
    /// A bit-forwarding device: from the first bit in to the first bit
    /// out (FIFO).
    BitForwarding,
}

impl LatencyDefinition {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            LatencyDefinition::StoreAndForward => "store_and_forward",
            LatencyDefinition::BitForwarding => "bit_forwarding",
        }
    }

    /// What it measures, in words.
    pub fn text(self) -> &'static str {
        match self {
            LatencyDefinition::StoreAndForward => {
                "store-and-forward (RFC 1242 3.8): last bit in to first bit out"
            }
            LatencyDefinition::BitForwarding => {
                "bit-forwarding (RFC 1242 3.8): first bit in to first bit out"
            }
        }
    }
}

/// The frame size that stands for the settings' IMIX (no frame is 0
/// bytes): rows and trials of the IMIX carry it, and every output names
/// it `IMIX`.
pub const IMIX: u32 = 0;

/// How the reason of a latency not measured for want of a throughput
/// rate begins (the outputs gather those under one sentence).
pub const NO_RATE: &str = "no throughput rate";

/// The six RFC 2544 tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Test {
    /// Section 26.1.
    Throughput,
    /// Section 26.2.
    Latency,
    /// Section 26.3.
    Loss,
    /// Section 26.4.
    BackToBack,
    /// Section 26.5.
    Recovery,
    /// Section 26.6.
    Reset,
}

impl Test {
    /// All six, in the RFC's order.
    pub const ALL: [Test; 6] = [
        Test::Throughput,
        Test::Latency,
        Test::Loss,
        Test::BackToBack,
        Test::Recovery,
        Test::Reset,
    ];

    /// The name the settings, the criteria and the CSV use.
    pub fn key(self) -> &'static str {
        match self {
            Test::Throughput => "throughput",
            Test::Latency => "latency",
            Test::Loss => "loss",
            Test::BackToBack => "back_to_back",
            Test::Recovery => "recovery",
            Test::Reset => "reset",
        }
    }

    /// The test by its key (`back-to-back` is taken for `back_to_back`).
    pub fn from_key(key: &str) -> Option<Test> {
        Test::ALL
            .into_iter()
            .find(|t| t.key() == key.replace('-', "_"))
    }

    /// Its title in the report.
    pub fn title(self) -> &'static str {
        match self {
            Test::Throughput => "Throughput",
            Test::Latency => "Latency",
            Test::Loss => "Frame loss rate",
            Test::BackToBack => "Back-to-back frames",
            Test::Recovery => "System recovery",
            Test::Reset => "Reset",
        }
    }

    /// Its section of RFC 2544.
    pub fn section(self) -> &'static str {
        match self {
            Test::Throughput => "26.1",
            Test::Latency => "26.2",
            Test::Loss => "26.3",
            Test::BackToBack => "26.4",
            Test::Recovery => "26.5",
            Test::Reset => "26.6",
        }
    }

    /// True when `c` holds results of this test.
    pub fn has_results(self, c: &Certification) -> bool {
        match self {
            Test::Throughput => !c.throughput.is_empty(),
            Test::Latency => !c.latency.is_empty(),
            Test::Loss => !c.loss.is_empty(),
            Test::BackToBack => !c.back_to_back.is_empty(),
            Test::Recovery => !c.recovery.is_empty(),
            Test::Reset => !c.reset.is_empty(),
        }
    }
}

/// A frame size as the outputs write it: the bytes with FCS, or `IMIX`
/// for [`IMIX`]; padded as a number is when a width is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u32);

impl Size {
    /// With its unit: `1518 B`, or `IMIX`.
    pub fn bytes(self) -> String {
        match self.0 {
            IMIX => "IMIX".to_string(),
            z => format!("{z} B"),
        }
    }
}

/// Frame sizes in words: `64, 1518 B`; `64 B, IMIX` when one is the
/// IMIX.
pub fn sizes_text(sizes: &[u32]) -> String {
    if sizes.contains(&IMIX) {
        let each: Vec<String> = sizes.iter().map(|&z| Size(z).bytes()).collect();
        return each.join(", ");
    }
    let each: Vec<String> = sizes.iter().map(u32::to_string).collect();
    format!("{} B", each.join(", "))
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IMIX => f.pad("IMIX"),
            z => std::fmt::Display::fmt(&z, f),
        }
    }
}

/// RFC 2544's frame sizes for Ethernet (section 9.1), FCS included.
pub const RFC2544_SIZES: [u32; 7] = [64, 128, 256, 512, 1024, 1280, 1518];

impl Default for Settings {
    /// RFC 2544's defaults (sections 23, 24, 26): every test, the
    /// Ethernet sizes, 60 s trials, 2 s settle and 5 s to restabilise, a
    /// 0–100 % NDR search to 0.1 %, 20 latency trials of 120 s, 10 %
    /// loss steps, 50 back-to-back trials of bursts up to 2 s, learning
    /// frames before every trial and 2 s for the device to learn them.
    fn default() -> Settings {
        Settings {
            tests: ["throughput", "latency", "loss", "back_to_back"]
                .map(String::from)
                .to_vec(),
            sizes: RFC2544_SIZES.to_vec(),
            trial_s: 60.0,
            search_trial_s: None,
            settle_s: 2.0,
            restabilise_s: 5.0,
            resolution_pct: 0.1,
            loss_tolerance_pct: 0.0,
            lower_pct: 0.0,
            upper_pct: 100.0,
            max_p99_ns: None,
            latency_trials: 20,
            latency_trial_s: 120.0,
            latency_definition: LatencyDefinition::StoreAndForward,
            loss_step_pct: 10.0,
            back_to_back_trials: 50,
            back_to_back_max_s: 2.0,
            learning: Learning::EveryTrial,
            recovery_overload_s: 60.0,
            recovery_reduced_s: 30.0,
            recovery_trials: 5,
            reset_at_s: 10.0,
            reset_trial_s: 60.0,
            reset_trials: 1,
            learning_wait_s: 2.0,
            dut: None,
            quick: false,
            imix: Vec::new(),
            direction_loads: Vec::new(),
        }
    }
}

impl Settings {
    /// How long a throughput search trial lasts, seconds.
    pub fn search_trial(&self) -> f64 {
        self.search_trial_s.unwrap_or(self.trial_s)
    }

    /// The mean frame size with FCS of `size`, bytes: itself, or for
    /// [`IMIX`] the mean of the IMIX's sizes.
    pub fn mean_bytes(&self, size: u32) -> f64 {
        if size == IMIX && !self.imix.is_empty() {
            let sum: u64 = self.imix.iter().map(|&z| u64::from(z)).sum();
            sum as f64 / self.imix.len() as f64
        } else {
            f64::from(size)
        }
    }

    /// Frames per second at `pct` % of a line of `line_bps` (L1) for
    /// frames of `size` (the IMIX's mean size for [`IMIX`]).
    pub fn fps_at(&self, line_bps: u64, size: u32, pct: f64) -> f64 {
        line_bps as f64 * pct / 100.0 / ((self.mean_bytes(size) + L1_OVERHEAD as f64) * 8.0)
    }

    /// The share (0–1) of an aggregate trial's load that direction `d`
    /// offers: 1 unless `direction_loads` says less.
    pub fn share_of(&self, d: usize) -> f64 {
        self.direction_loads.get(d).map_or(1.0, |p| p / 100.0)
    }

    /// How many directions' worth of load an aggregate trial over `n`
    /// directions offers: `n`, or the sum of the shares.
    pub fn aggregate_shares(&self, n: usize) -> f64 {
        (0..n).map(|d| self.share_of(d)).sum()
    }
}

/// One port of the tester as the certification found it when it opened
/// the port.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostPort {
    /// The profile's name for the port.
    pub name: String,
    /// The DPDK device behind it (`net_af_packet0`, `0000:03:00.0`).
    pub device: String,
    /// Its driver (`net_af_packet`, `net_ice`).
    pub driver: String,
    /// Its link as the driver reported it (`up, 10 Gbit/s, full duplex`),
    /// and the line the figures count against when the profile's `link:`
    /// sets it (`; line 100 Mbit/s (profile)`).
    pub link: String,
}

impl HostPort {
    /// [`HostPort::link`]'s text: the driver's link (`up`, its speed in
    /// Mbit/s, 0 when unknown, and duplex), then the line rate at L1 the
    /// figures count against, `profile` when the profile's `link:` set it.
    pub fn link_text(
        up: bool,
        speed_mbps: u32,
        full_duplex: bool,
        line_bps: u64,
        profile: bool,
    ) -> String {
        let driver = match (up, speed_mbps) {
            (false, _) => "down".to_string(),
            (true, 0) => "up, speed unknown".to_string(),
            (true, m) => format!(
                "up, {}, {} duplex",
                super::round::bit_rate(u64::from(m) * 1_000_000),
                if full_duplex { "full" } else { "half" }
            ),
        };
        let whose = if profile {
            " (the profile's link:)"
        } else {
            ""
        };
        format!(
            "{driver}; line {} at L1{whose}",
            super::round::bit_rate(line_bps)
        )
    }
}

/// The host the tester ran on, as the report describes it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Host {
    /// The host's name.
    pub name: String,
    /// The CPU model (`/proc/cpuinfo`'s `model name`; empty when unknown).
    pub cpu: String,
    /// CPUs online.
    pub cpus: u32,
    /// The kernel: its name and release (`Linux 6.1.0-18-amd64`).
    pub kernel: String,
    /// The tester's ports, each with its driver and link.
    pub ports: Vec<HostPort>,
}

impl Host {
    /// The CPU model named by `/proc/cpuinfo`'s text `cpuinfo` (its first
    /// `model name`, else its first `Hardware` or `cpu model` line), and
    /// how many processors it lists; empty and 0 when it names none.
    pub fn cpu_of(cpuinfo: &str) -> (String, u32) {
        let value = |key: &str| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == key).then(|| v.split_whitespace().collect::<Vec<_>>().join(" "))
            })
        };
        let model = ["model name", "Hardware", "cpu model"]
            .iter()
            .find_map(|k| value(k))
            .unwrap_or_default();
        let n = (cpuinfo.lines())
            .filter(|l| {
                l.split_once(':')
                    .is_some_and(|(k, _)| k.trim() == "processor")
            })
            .count();
        (model, n as u32)
    }
}

/// A whole certification: what every output is rendered from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Certification {
    /// landspeed's version.
    pub landspeed: String,
    /// DPDK's version.
    pub dpdk: String,
    /// The profile it ran.
    pub profile: String,
    /// What was certified, as the profile's `certify.device` describes it
    /// (model, firmware, ports: free text); `None` when it does not.
    #[serde(default)]
    pub device: Option<String>,
    /// The host the tester ran on: CPU, kernel, each port's driver and
    /// link (the versions are `landspeed` and `dpdk`).
    #[serde(default)]
    pub host: Host,
    /// When it started, UTC, RFC 3339.
    pub started: String,
    /// Topology: `one_way`, `bidirectional` or `loopback`.
    pub topology: String,
    /// The directions measured.
    pub directions: Vec<String>,
    /// Line rate at L1, bit/s.
    pub line_bps: u64,
    /// The ports, as the run saw them (name, driver).
    pub ports: Vec<String>,
    /// What it ran with.
    pub settings: Settings,
    /// Throughput per direction and size.
    pub throughput: Vec<ThroughputRow>,
    /// Latency per direction and size.
    pub latency: Vec<LatencyRow>,
    /// Frame loss curves per direction and size.
    pub loss: Vec<LossCurve>,
    /// Back-to-back per direction and size.
    pub back_to_back: Vec<BackToBackRow>,
    /// System recovery per direction and size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recovery: Vec<RecoveryRow>,
    /// Reset per direction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reset: Vec<ResetRow>,
    /// The profile's acceptance criteria and whether each was met.
    pub criteria: Vec<Criterion>,
    /// Every test ran to its end (false after a signal or an error).
    pub complete: bool,
    /// Why it stopped early, when it did.
    pub stopped_by: Option<String>,
    /// What cast doubt on the figures (tester-bound trials, link loss...).
    pub problems: Vec<Problem>,
    /// Each test the settings planned for a direction and size that has
    /// no figure, and why (see [`NotMeasured`]); empty in results of
    /// older versions.
    #[serde(default)]
    pub not_measured: Vec<NotMeasured>,
    /// Every setting below what RFC 2544 asks (a shorter trial, fewer
    /// trials, a coarser step, learning off...): the certification's
    /// figures are not RFC-conformant where this is not empty.
    #[serde(default)]
    pub nonconformant: Vec<Deviation>,
    /// How latency was timestamped, in words (where the departure and
    /// the arrival times come from).
    #[serde(default)]
    pub latency_method: String,
    /// The tester baseline the latency rows were corrected with, when
    /// the certification was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineInfo>,
    /// The verdict, as the terminal's last line, the exit status and
    /// every report state it; `None` until the certification is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictRecord>,
    /// The frames the tester sent, a line per stream: its headers,
    /// addresses, ports and how they vary (see
    /// [`super::tester::frames`]); empty in results of older versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    /// The tester's lcores: each task's role, lcore, CPU, port and
    /// queues (see [`super::tester::tasks`]); empty in results of older
    /// versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TesterTask>,
}

/// One lcore of the tester and what it did.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TesterTask {
    /// `main` (drives the trials, never sends or receives), `TX` or `RX`.
    pub role: String,
    /// Its DPDK lcore.
    pub lcore: u32,
    /// The CPU its thread is pinned to.
    pub cpu: u32,
    /// The port it sends or receives on, by the profile's name (empty
    /// for the main lcore).
    #[serde(default)]
    pub port: String,
    /// The queues of that port it uses.
    #[serde(default)]
    pub queues: Vec<u16>,
    /// The streams it sends (TX), by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<String>,
}

impl TesterTask {
    /// The task in one line: `TX lcore 1 on CPU 1: port p0 queue 0,
    /// streams s0`; `main lcore 0 on CPU 0`.
    pub fn text(&self) -> String {
        let mut s = format!("{} lcore {} on CPU {}", self.role, self.lcore, self.cpu);
        if !self.port.is_empty() {
            let q: Vec<String> = self.queues.iter().map(u16::to_string).collect();
            let queue = if self.queues.len() == 1 {
                "queue"
            } else {
                "queues"
            };
            s.push_str(&format!(": port {} {queue} {}", self.port, q.join(", ")));
        }
        if !self.streams.is_empty() {
            s.push_str(&format!(", streams {}", self.streams.join(", ")));
        }
        s
    }
}

/// One setting a certification ran with that is below RFC 2544's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Deviation {
    /// The profile's key (`certify.trial`).
    pub setting: String,
    /// What it was, in words (`2 s`).
    pub value: String,
    /// What RFC 2544 asks, in words and with its section (`at least 60 s
    /// (section 24)`).
    pub rfc: String,
}

/// The baseline a certification subtracted from its latency rows.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BaselineInfo {
    /// The file it was read from, as given.
    pub file: String,
    /// When the calibration behind it started, UTC, RFC 3339.
    pub recorded: String,
    /// The profile the calibration ran.
    pub profile: String,
}

/// A certification's verdict, as it is written to every output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct VerdictRecord {
    /// One word: `pass`, `fail`, `not_judged`, `doubt`, `figures`,
    /// `incomplete` or `error`.
    pub state: String,
    /// The verdict line, without the exit status (`FAIL: 1 of 4
    /// acceptance criteria not met`).
    pub text: String,
    /// The exit status of `landspeed rfc2544`.
    pub exit: u8,
}

/// A test the settings planned for one direction and frame size that
/// measured nothing there, and why: latency at a size whose throughput
/// search found no rate, latency whose trials timestamped no frame, a
/// test the certification stopped before (a signal or an error).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NotMeasured {
    /// The test: `throughput`, `latency`, `loss`, `back_to_back`,
    /// `recovery` or `reset`.
    pub test: String,
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// Why nothing was measured, in words.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sender's schedule-error histogram of the run in docs/lab.md
    /// ("A sender's catch-up overflows a small buffer"): 512 B at 37.5 %
    /// of line, its TX lcore's CPU taken for 20 ms, 23.49 ms behind at
    /// worst; the DUT queued 10.68 ms at most and lost 68 frames.
    fn histogram() -> Vec<Bucket> {
        [
            (1_575, 266),
            (3_150, 20_837),
            (6_301, 1_888),
            (12_602, 420),
            (25_205, 691),
            (50_412, 364),
            (100_824, 90),
            (201_649, 64),
            (403_298, 113),
            (806_598, 200),
            (1_613_197, 362),
            (3_226_394, 618),
            (6_452_789, 330),
            (12_905_579, 83),
            (25_811_158, 98),
        ]
        .into_iter()
        .map(|(le_ns, count)| Bucket { le_ns, count })
        .collect()
    }

    /// That run's figures: lateness, queueing delay (latency max less min).
    const LATE_NS: u64 = 23_492_187;
    const QUEUE_NS: u64 = 10_679_651;

    #[test]
    fn frames_later_than_counts_every_bucket_reaching_above() {
        let h = histogram();
        assert_eq!(frames_later_than(&h, QUEUE_NS), 83 + 98);
        assert_eq!(frames_later_than(&h, 12_905_579), 98);
        assert_eq!(frames_later_than(&h, 12_905_578), 181);
        assert_eq!(frames_later_than(&h, 0), 26_424);
        assert_eq!(frames_later_than(&h, 25_811_158), 0);
        assert_eq!(frames_later_than(&[], 0), 0);
    }

    #[test]
    fn a_loss_the_senders_catch_up_explains_is_the_testers() {
        let late = frames_later_than(&histogram(), QUEUE_NS);
        let p = bunched(68, LATE_NS, late, QUEUE_NS).expect("the bursts explain 68 frames");
        assert_eq!(
            p,
            Problem::SenderBunched {
                late_max_ns: LATE_NS,
                late_frames: 181,
                queue_ns: QUEUE_NS,
                lost: 68,
            }
        );
        assert_eq!(
            p.text(),
            "the sender fell up to 23.49 ms behind its schedule and caught up in bursts above \
             the trial's rate: 181 frames left more than 10.68 ms late, longer than the device \
             queued any frame, so its 68 lost frames may be those bursts', not the device's \
             (the trial is the tester's)"
        );
        assert!(
            bunched(181, LATE_NS, 181, QUEUE_NS).is_some(),
            "as many as left late"
        );
    }

    #[test]
    fn a_loss_the_catch_up_cannot_explain_is_the_devices() {
        assert_eq!(bunched(0, LATE_NS, 181, QUEUE_NS), None, "nothing lost");
        assert_eq!(
            bunched(182, LATE_NS, 181, QUEUE_NS),
            None,
            "more lost than left late"
        );
        assert_eq!(
            bunched(68, QUEUE_NS, 181, QUEUE_NS),
            None,
            "never later than the device queued"
        );
        // Above the limit: 4,611 of 28,211 frames lost at 60 % of line with
        // the DUT's queue full, a sender 3.1 ms behind at worst.
        assert_eq!(bunched(4_611, 3_146_045, 0, QUEUE_NS), None);
    }

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
        row.trials[2].problems.insert(0, missed);
        assert_eq!(
            why_tester(&row),
            "the nearest failure, at 37.500 % of line, was the tester's: its sender reached \
             96.6 % of the rate, TX lcore 1 waited for its CPU 6.4 % of the time"
        );
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

    #[test]
    fn without_a_latency_the_queue_is_taken_as_ten_microseconds() {
        assert_eq!(bunched(3, 10_000, 5, 0), None);
        assert_eq!(
            bunched(3, 10_001, 5, 0),
            Some(Problem::SenderBunched {
                late_max_ns: 10_001,
                late_frames: 5,
                queue_ns: 10_000,
                lost: 3,
            })
        );
    }

    #[test]
    fn the_cpu_model_and_count_come_from_cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)  CPU @ 2.90GHz\n\n\
                   processor\t: 1\nmodel name\t: Intel(R) Xeon(R)  CPU @ 2.90GHz\n";
        assert_eq!(
            Host::cpu_of(x86),
            ("Intel(R) Xeon(R) CPU @ 2.90GHz".to_string(), 2)
        );
        let arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nHardware\t: BCM2835\n";
        assert_eq!(Host::cpu_of(arm), ("BCM2835".to_string(), 1));
        assert_eq!(Host::cpu_of(""), (String::new(), 0));
    }

    #[test]
    fn a_link_reads_as_the_driver_and_the_profile_see_it() {
        assert_eq!(
            HostPort::link_text(true, 10_000, true, 100_000_000, true),
            "up, 10 Gbit/s, full duplex; line 100 Mbit/s at L1 (the profile's link:)"
        );
        assert_eq!(
            HostPort::link_text(true, 0, false, 25_000_000_000, false),
            "up, speed unknown; line 25 Gbit/s at L1"
        );
        assert_eq!(
            HostPort::link_text(false, 1000, false, 1_000_000_000, false),
            "down; line 1 Gbit/s at L1"
        );
    }

    #[test]
    fn the_json_holds_the_device_and_the_host_and_older_json_loads() {
        let mut c = crate::certify::search::blank(&Settings::default(), vec!["a → b".into()], 1);
        c.device = Some("SW-48".into());
        c.host.kernel = "Linux 6.1.0".into();
        c.host.ports.push(HostPort {
            name: "t0".into(),
            device: "net_af_packet0".into(),
            driver: "net_af_packet".into(),
            link: "up, 10 Gbit/s, full duplex".into(),
        });
        c.not_measured.push(NotMeasured {
            test: "latency".into(),
            direction: "a → b".into(),
            frame_size: 64,
            reason: "no throughput rate: none of the 11 throughput trial(s) at this size passed"
                .into(),
        });
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(
            v["not_measured"],
            serde_json::json!([{
                "test": "latency",
                "direction": "a → b",
                "frame_size": 64,
                "reason": "no throughput rate: none of the 11 throughput trial(s) at this size passed"
            }])
        );
        assert_eq!(v["device"], "SW-48");
        assert_eq!(v["host"]["kernel"], "Linux 6.1.0");
        assert_eq!(v["host"]["ports"][0]["driver"], "net_af_packet");
        assert_eq!(v["host"]["ports"][0]["link"], "up, 10 Gbit/s, full duplex");
        let mut old = v.clone();
        let o = old.as_object_mut().unwrap();
        o.remove("device");
        o.remove("host");
        o.remove("not_measured");
        let back: Certification = serde_json::from_value(old).unwrap();
        assert_eq!((back.device, back.host), (None, Host::default()));
        assert!(back.not_measured.is_empty());
        let again: Certification = serde_json::from_value(v).unwrap();
        assert_eq!(again, c);
    }
}
