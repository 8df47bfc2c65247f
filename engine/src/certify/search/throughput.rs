//! Throughput (RFC 2544 section 26.1): per frame size, a binary search
//! for the highest rate whose trial loses no more than the tolerance,
//! then a confirming trial at the result.

use super::{Flow, Search, MAX_CONFIRMS};
use crate::certify::model::{Bound, ThroughputRow, Trial};

/// Where a binary search on the rate stands.
struct Bisect {
    /// Highest rate known (or assumed) to pass.
    lo: f64,
    /// Lowest rate known to fail.
    hi: f64,
    /// The highest rate seen to pass.
    best: Option<f64>,
    /// The failure at `hi` was the tester's.
    hi_tester: bool,
}

impl Search<'_> {
    /// Throughput of `size` in `dir`: the row (incomplete after a signal)
    /// and how the search ended. The aggregate's rates are the sum over
    /// the directions, each of which offered the row's % of its line.
    pub(super) fn throughput(
        &mut self,
        dir: Option<usize>,
        size: u32,
    ) -> (ThroughputRow, Flow<()>) {
        let mut trials = Vec::new();
        let mut b = Bisect {
            lo: self.s.lower_pct,
            hi: self.s.upper_pct,
            best: None,
            hi_tester: false,
        };
        let flow = self.throughput_search(dir, size, &mut b, &mut trials);
        let rate = b.best.unwrap_or(0.0);
        let bound = if b.best == Some(self.s.upper_pct) {
            Bound::Line
        } else if b.hi_tester {
            Bound::Tester
        } else {
            Bound::Device
        };
        let senders = match dir {
            Some(_) => 1.0,
            None => self.s.aggregate_shares(self.directions.len()),
        };
        let l1 = self.line_bps as f64 * rate / 100.0 * senders;
        let fps = self.s.fps_at(self.line_bps, size, rate) * senders;
        let row = ThroughputRow {
            direction: self.label(dir),
            frame_size: size,
            rate_pct: rate,
            l1_bps: l1,
            l2_bps: fps * self.s.mean_bytes(size) * 8.0,
            fps,
            bound,
            trial_count: trials.len() as u32,
            trials,
            complete: flow.is_ok(),
        };
        (row, flow)
    }

    /// Bisect, confirm; a failed confirmation searches again below it.
    /// The search's trials last the settings' search trial, the
    /// confirmation the full trial.
    fn throughput_search(
        &mut self,
        dir: Option<usize>,
        size: u32,
        b: &mut Bisect,
        trials: &mut Vec<Trial>,
    ) -> Flow<()> {
        let full = self.s.trial_s;
        for _ in 0..MAX_CONFIRMS {
            self.bisect(dir, size, b, trials)?;
            let Some(best) = b.best else {
                return Ok(());
            };
            let (passed, tester) = self.throughput_trial(dir, size, best, full, trials)?;
            if passed {
                return Ok(());
            }
            (b.lo, b.hi, b.best, b.hi_tester) = (self.s.lower_pct, best, None, tester);
        }
        Ok(())
    }

    /// The binary search proper: the upper bound first (on the first
    /// round), then halving until the span is within the resolution, then
    /// the lower bound itself when nothing above it passed.
    fn bisect(
        &mut self,
        dir: Option<usize>,
        size: u32,
        b: &mut Bisect,
        trials: &mut Vec<Trial>,
    ) -> Flow<()> {
        if trials.is_empty() {
            self.probe(dir, size, b.hi, b, trials)?;
            if b.best.is_some() {
                return Ok(());
            }
        }
        while b.hi - b.lo > self.s.resolution_pct {
            self.probe(dir, size, (b.lo + b.hi) / 2.0, b, trials)?;
        }
        let lower = self.s.lower_pct;
        if b.best.is_none() && lower > 0.0 && lower < b.hi {
            self.probe(dir, size, lower, b, trials)?;
        }
        Ok(())
    }

    /// One trial of the binary search at `rate`, moving its bounds.
    fn probe(
        &mut self,
        dir: Option<usize>,
        size: u32,
        rate: f64,
        b: &mut Bisect,
        trials: &mut Vec<Trial>,
    ) -> Flow<()> {
        let secs = self.s.search_trial();
        let (passed, tester) = self.throughput_trial(dir, size, rate, secs, trials)?;
        if passed {
            (b.lo, b.best) = (rate, Some(rate));
        } else {
            (b.hi, b.hi_tester) = (rate, tester);
        }
        Ok(())
    }

    /// A throughput trial of `secs` at `rate`, kept in `trials`: whether
    /// it passed and whether its failure was the tester's. A trial that
    /// failed as the tester's (`tester_bound`: its sender missed the
    /// rate, was descheduled or bunched its frames) says nothing of the
    /// device, so the rate is tried again (up to
    /// [`MAX_TRIES`](super::MAX_TRIES) in all) and the last trial decides.
    fn throughput_trial(
        &mut self,
        dir: Option<usize>,
        size: u32,
        rate: f64,
        secs: f64,
        trials: &mut Vec<Trial>,
    ) -> Flow<(bool, bool)> {
        let tol = self.s.loss_tolerance_pct;
        let t = self.tried(
            |s| {
                let spec = s.spec(dir, size, rate, secs);
                s.trial("throughput", spec, tol)
            },
            trials,
        )?;
        Ok((t.passed, t.tester_bound))
    }
}
