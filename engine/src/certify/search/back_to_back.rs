//! Back-to-back (RFC 2544 section 26.4): the longest burst at line rate
//! that loses nothing, by binary search on the burst length, averaged
//! over trials; and RFC 9004's correction of the buffer time it implies.

use super::{max_burst, mean, Flow, Search, AGGREGATE};
use crate::certify::model::{BackToBackRow, Bound, Certification, Trial, TrialSpec};

impl Search<'_> {
    /// Back-to-back of `size` in `dir`: a burst search per trial.
    pub(super) fn back_to_back(
        &mut self,
        dir: Option<usize>,
        size: u32,
    ) -> (BackToBackRow, Flow<()>) {
        let max = max_burst(self.s, self.line_bps, size);
        let mut trials = Vec::new();
        let mut bursts = Vec::new();
        let mut tester = false;
        let mut flow = Ok(());
        for _ in 0..self.s.back_to_back_trials {
            match self.burst_search(dir, size, max, &mut trials) {
                Ok((len, t)) => {
                    bursts.push(len);
                    tester |= t;
                }
                Err(h) => {
                    flow = Err(h);
                    break;
                }
            }
        }
        let values: Vec<f64> = bursts.iter().map(|&b| b as f64).collect();
        let mean_frames = mean(values.iter().copied());
        let at_limit = !bursts.is_empty() && bursts.iter().all(|&b| b == max);
        let bound = match (at_limit, tester) {
            (true, _) => Bound::Line,
            (false, true) => Bound::Tester,
            (false, false) => Bound::Device,
        };
        let senders = match dir {
            Some(_) => 1.0,
            None => self.s.aggregate_shares(self.directions.len()),
        };
        let row = BackToBackRow {
            direction: self.label(dir),
            frame_size: size,
            bursts,
            mean_frames,
            stddev_frames: sample_stddev(&values),
            mean_s: mean_frames / (self.s.fps_at(self.line_bps, size, 100.0) * senders),
            corrected_s: None,
            throughput_fps: None,
            at_limit,
            trials,
            bound,
            complete: flow.is_ok(),
        };
        (row, flow)
    }

    /// One back-to-back search: the longest burst, then halving the span
    /// between the longest burst that passed and the shortest that failed
    /// down to one frame. A burst the tester could not send is tried
    /// again (up to [`MAX_TRIES`](super::MAX_TRIES)). Returns the length
    /// and whether the failure it stopped below was the tester's.
    fn burst_search(
        &mut self,
        dir: Option<usize>,
        size: u32,
        max: u64,
        trials: &mut Vec<Trial>,
    ) -> Flow<(u64, bool)> {
        let (mut lo, mut hi, mut hi_tester) = (0u64, max, false);
        let first = self.tried(|s| s.burst(dir, size, max), trials)?;
        if first.passed {
            return Ok((max, false));
        }
        hi_tester |= first.tester_bound;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let t = self.tried(|s| s.burst(dir, size, mid), trials)?;
            if t.passed {
                lo = mid;
            } else {
                (hi, hi_tester) = (mid, t.tester_bound);
            }
        }
        Ok((lo, hi_tester))
    }

    /// A burst of `n` frames at line rate (nothing may be lost).
    fn burst(&mut self, dir: Option<usize>, size: u32, n: u64) -> Flow<Trial> {
        let spec = TrialSpec {
            direction: dir,
            frame_size: size,
            rate_pct: 100.0,
            duration_s: n as f64 / self.s.fps_at(self.line_bps, size, 100.0),
            burst: Some(n),
            settle_s: self.s.settle_s,
            step: None,
            reset_at_s: None,
            addresses: None,
            learning_fps: None,
        };
        self.trial("back_to_back", spec, 0.0)
    }
}

/// The corrected DUT buffer time of RFC 9004 section 3 for a mean burst
/// of `mean_frames` at a line of `line_fps` frames/s, through a device
/// whose throughput is `throughput_fps`: the implied buffer time
/// (`mean / line`) less what the device forwarded meanwhile, seconds.
pub fn corrected_buffer_s(mean_frames: f64, line_fps: f64, throughput_fps: f64) -> f64 {
    (mean_frames - mean_frames / line_fps * throughput_fps) / line_fps
}

/// The standard deviation of `v` as a sample (n − 1); 0 for fewer than
/// two values.
pub fn sample_stddev(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    let ss: f64 = v.iter().map(|x| (x - m) * (x - m)).sum();
    (ss / (v.len() - 1) as f64).sqrt()
}

/// Fills every back-to-back row's RFC 9004 correction from the
/// throughput row of its direction and size, when that row's figure is
/// the device's (a throughput at line rate leaves no burst limit to
/// correct; one the tester bounded is not the device's).
pub fn correct_back_to_back(c: &mut Certification) {
    let line = c.line_bps;
    for r in &mut c.back_to_back {
        let t = (c.throughput.iter())
            .find(|t| t.direction == r.direction && t.frame_size == r.frame_size)
            .filter(|t| t.bound == Bound::Device && t.rate_pct > 0.0);
        let senders = if r.direction == AGGREGATE {
            c.settings.aggregate_shares(c.directions.len())
        } else {
            1.0
        };
        let line_fps = c.settings.fps_at(line, r.frame_size, 100.0) * senders;
        (r.throughput_fps, r.corrected_s) = match t {
            Some(t) if r.bursts.is_empty() => (Some(t.fps), None),
            Some(t) => (
                Some(t.fps),
                Some(corrected_buffer_s(r.mean_frames, line_fps, t.fps)),
            ),
            None => (None, None),
        };
    }
}
