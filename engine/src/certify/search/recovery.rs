//! System recovery (RFC 2544 section 26.5): an overload of 110 % of the
//! throughput, then half of it; the time from the drop to the end of the
//! loss.

use super::{mean, tester_reason, Flow, Search};
use crate::certify::model::{RateStep, RecoveryRow};
use crate::certify::round;

impl Search<'_> {
    /// System recovery of `size` in `dir` from its throughput `rate` (none
    /// without one): trials of an overload of 110 % of it (at most the
    /// line) for the settings' overload time, then half of that; each
    /// gives the time from the drop to the first frame through after the
    /// last loss. A trial the tester bounded is tried again and left out;
    /// one whose overload lost nothing is left out (the device was not
    /// overloaded).
    pub(super) fn recovery(
        &mut self,
        dir: Option<usize>,
        size: u32,
        rate: Option<f64>,
    ) -> (Option<RecoveryRow>, Flow<()>) {
        let Some(rate) = rate else {
            return (None, Ok(()));
        };
        let overload = (rate * 1.1).min(100.0);
        let reduced = overload / 2.0;
        let mut row = RecoveryRow {
            direction: self.label(dir),
            frame_size: size,
            overload_pct: overload,
            reduced_pct: reduced,
            recovery_s: Vec::new(),
            mean_s: None,
            note: None,
            trials: Vec::new(),
            complete: true,
        };
        if overload <= rate {
            row.note = Some(format!(
                "not run: the throughput is the line rate ({} % of line), so no load overloads the device",
                round::trimmed(rate)
            ));
            return (Some(row), Ok(()));
        }
        let mut flow = Ok(());
        let (over_s, after_s) = (self.s.recovery_overload_s, self.s.recovery_reduced_s);
        for _ in 0..self.s.recovery_trials {
            let mut kept = Vec::new();
            let r = self.tried(
                |s| {
                    let mut spec = s.spec(dir, size, overload, over_s + after_s);
                    spec.step = Some(RateStep {
                        after_s: over_s,
                        to_pct: reduced,
                    });
                    s.trial("recovery", spec, 100.0)
                },
                &mut kept,
            );
            if let Err(h) = r {
                row.trials.append(&mut kept);
                flow = Err(h);
                break;
            }
            let last = kept.last_mut().expect("a trial ran");
            let why = if last.tester_bound {
                Some(tester_reason(last))
            } else if last.lost == 0 {
                Some("the overload lost nothing: the device was not overloaded".to_string())
            } else if last.recovery_ns.is_none() {
                Some("no departure time of the frame that ended the loss".to_string())
            } else {
                None
            };
            match why {
                Some(w) => last.excluded = Some(format!("{w}; left out")),
                None => row.recovery_s.push(last.recovery_ns.unwrap_or(0.0) / 1e9),
            }
            row.trials.append(&mut kept);
        }
        row.mean_s = (!row.recovery_s.is_empty()).then(|| mean(row.recovery_s.iter().copied()));
        if row.mean_s.is_none() && flow.is_ok() {
            row.note = Some("no trial counted: see each trial's reason".into());
        }
        row.complete = flow.is_ok();
        (Some(row), flow)
    }
}
