//! Reset (RFC 2544 section 26.6): a stream at the throughput rate, the
//! device reset by the profile's hook during it; the longest time
//! between two arrivals.

use super::{mean, tester_reason, Flow, Search};
use crate::certify::model::{HookRun, ResetRow};
use crate::certify::round;

impl Search<'_> {
    /// Reset of the device in `dir` at `size`, at its throughput `rate`
    /// (none without one): trials in which the profile's reset hook runs
    /// the settings' reset time into the trial; each gives the longest
    /// time between two arrivals. A trial whose loss the gap does not
    /// hold (frames lost outside it: the device lost more after it came
    /// back, or never came back in the trial) is left out and says so.
    pub(super) fn reset(
        &mut self,
        dir: Option<usize>,
        size: u32,
        rate: Option<f64>,
    ) -> (Option<ResetRow>, Flow<()>) {
        let Some(rate) = rate else {
            return (None, Ok(()));
        };
        let mut row = ResetRow {
            direction: self.label(dir),
            frame_size: size,
            rate_pct: rate,
            reset_s: Vec::new(),
            mean_s: None,
            note: None,
            trials: Vec::new(),
            complete: true,
        };
        let mut flow = Ok(());
        let fps = self.s.fps_at(self.line_bps, size, rate);
        for _ in 0..self.s.reset_trials {
            let mut spec = self.spec(dir, size, rate, self.s.reset_trial_s);
            spec.reset_at_s = Some(self.s.reset_at_s);
            let mut t = match self.trial("reset", spec, 100.0) {
                Ok(t) => t,
                Err(h) => {
                    flow = Err(h);
                    break;
                }
            };
            let gap_s = t.gap_max_ns.unwrap_or(0.0) / 1e9;
            let hook = (t.hooks.iter())
                .find(|h| h.hook == "reset")
                .and_then(HookRun::failure);
            let why = if let Some(h) = hook {
                Some(format!("the reset hook {h}"))
            } else if t.tester_bound {
                Some(tester_reason(&t))
            } else if t.lost == 0 {
                Some("nothing was lost: the reset did not interrupt forwarding".to_string())
            } else if (t.lost as f64) > 1.1 * gap_s * fps + 2.0 {
                Some(format!(
                    "{} frames lost, more than the {} s gap holds at the trial's rate: the \
                     device lost frames after it came back, or did not come back before the \
                     trial's end (make certify.reset_trial longer)",
                    t.lost,
                    round::seconds(gap_s)
                ))
            } else {
                None
            };
            match why {
                Some(w) => t.excluded = Some(format!("{w}; left out")),
                None => row.reset_s.push(gap_s),
            }
            row.trials.push(t);
        }
        row.mean_s = (!row.reset_s.is_empty()).then(|| mean(row.reset_s.iter().copied()));
        if row.mean_s.is_none() && flow.is_ok() {
            row.note = Some("no trial counted: see each trial's reason".into());
        }
        row.complete = flow.is_ok();
        (Some(row), flow)
    }
}
