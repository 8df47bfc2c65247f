//! Latency (RFC 2544 section 26.2): trials at each size's throughput
//! rate, each whose figures cannot count tried again and left out.

use super::{tester_reason, Flow, Search, MAX_TRIES};
use crate::certify::model::{LatencyRow, Trial, GIVEN_UP};
use crate::certify::round;

impl Search<'_> {
    /// Latency of `size` in `dir` at `rate` (none without a rate): the
    /// settings' trials, each that lost frames (beyond the tolerance),
    /// was corrupt or was the tester's tried again (up to [`MAX_TRIES`])
    /// and left out of the figures.
    pub(super) fn latency(
        &mut self,
        dir: Option<usize>,
        size: u32,
        rate: Option<f64>,
    ) -> (Option<LatencyRow>, Flow<()>) {
        let Some(rate) = rate else {
            return (None, Ok(()));
        };
        let mut trials = Vec::new();
        let mut flow = Ok(());
        let tol = self.s.loss_tolerance_pct;
        'slots: for _ in 0..self.s.latency_trials {
            for k in 0..MAX_TRIES {
                let spec = self.spec(dir, size, rate, self.s.latency_trial_s);
                let mut t = match self.trial("latency", spec, tol) {
                    Ok(t) => t,
                    Err(h) => {
                        flow = Err(h);
                        break 'slots;
                    }
                };
                let bad = latency_flaw(&t, tol);
                let again = bad.is_some() && k + 1 < MAX_TRIES;
                t.excluded = bad.map(|why| {
                    let then = if again { "tried again" } else { GIVEN_UP };
                    format!("{why}; left out, {then}")
                });
                trials.push(t);
                if !again {
                    break;
                }
            }
        }
        let counted: Vec<&Trial> = trials.iter().filter(|t| t.excluded.is_none()).collect();
        let (summary, jitter_ns, histogram) = crate::certify::latency::summarise(&counted);
        let row = LatencyRow {
            direction: self.label(dir),
            frame_size: size,
            rate_pct: rate,
            summary,
            jitter_ns,
            counted: counted.len() as u32,
            trials,
            complete: flow.is_ok(),
            histogram,
            baseline: None,
            device: None,
        };
        (Some(row), flow)
    }
}

/// Why a latency trial's figures cannot count, when they cannot: it was
/// the tester's, it received corrupt frames, or it lost more than
/// `tolerance` % at the throughput rate (frames queued behind a full
/// buffer would stand for the device's latency); `None` when they count.
pub fn latency_flaw(t: &Trial, tolerance: f64) -> Option<String> {
    if t.tester_bound {
        Some(tester_reason(t))
    } else if t.corrupt > 0 {
        Some(format!("{} corrupt frame(s)", t.corrupt))
    } else if t.loss_pct > tolerance {
        Some(format!(
            "lost {} frame(s) ({} %) at the throughput rate",
            t.lost,
            round::loss_pct(t.loss_pct)
        ))
    } else {
        None
    }
}
