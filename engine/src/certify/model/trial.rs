//! What one trial measured ([`Trial`]), each direction's share of it,
//! the learning before it, and when its loss is the sender's rather than
//! the device's ([`bunched`]).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use super::HookRun;
use crate::outcome::Problem;
use crate::pace::measure::Bucket;
use crate::report::Percentiles;

/// What one trial measured.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Trial {
    /// Direction label (one of
    /// [`Tester::directions`](super::Tester::directions), or `aggregate`).
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
    /// Frames the receiving ports took that are of no stream they check:
    /// a frame a switch flooded or delivered to a port it was not
    /// addressed to, or traffic not the tester's (0 in results written
    /// before it was kept).
    #[serde(default)]
    pub foreign: u64,
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
    /// With `per_direction`: each receiving port's foreign frames, in the
    /// ports' order (a frame a switch flooded or delivered to a port it
    /// was not addressed to shows at that port).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub foreign_at: Vec<PortFrames>,
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
    /// An address search's trial (RFC 2889 5.7, 5.8): the destination
    /// addresses its streams went to and its learning frames taught.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addresses: Option<u64>,
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
    /// Learning frames a port did not take (its TX queue stayed full, or
    /// its pool had no mbuf, for longer than a learning batch waits):
    /// the device may not know every address, and flood their frames.
    /// (Absent from results written before it was counted: 0.)
    #[serde(default)]
    pub refused: u64,
    /// Frames read off the receive queues after the wait and freed: the
    /// learning frames a device sent on (or a loop brought back), and
    /// anything else that arrived between trials.
    pub drained: u64,
    /// Seconds it took: the frames, the wait, the draining.
    pub seconds: f64,
    /// Paced learning (RFC 2889's address searches): the rate asked of
    /// the learning frames, frames/s, each address taught once; `None`
    /// when they went as fast as the ports took them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paced_fps: Option<f64>,
    /// Paced learning: the rate they went at, frames/s (the frames over
    /// the time from the first to the last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_fps: Option<f64>,
}

impl LearningRun {
    /// The trial's problem when a port refused some of these frames.
    pub fn refusal(&self) -> Option<Problem> {
        (self.refused > 0).then(|| Problem::Other {
            detail: format!(
                "{} of {} learning frames were not taken by the receiving ports' TX queues \
                 (full for {LEARNING_STALL_MS} ms): the device may not know every address, and \
                 flood their frames",
                self.refused,
                self.refused + self.frames
            ),
        })
    }
}

/// How long a batch of learning frames waits for room on its TX queue
/// (or for mbufs) without progress before its rest counts as refused, ms.
pub const LEARNING_STALL_MS: u64 = 100;
/// Learning frames each receiving port sends per address.
pub const LEARNING_FRAMES: u32 = 3;
/// Seconds between two learning frames of one address.
pub const LEARNING_GAP_S: f64 = 0.01;

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
    /// Direction label (one of
    /// [`Tester::directions`](super::Tester::directions)).
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

/// A count of frames at one port.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PortFrames {
    /// The port's name.
    pub port: String,
    /// Frames.
    pub frames: u64,
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
}
