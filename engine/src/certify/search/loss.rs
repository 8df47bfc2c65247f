//! Frame loss rate (RFC 2544 section 26.3): from the upper bound down
//! in steps until two successive steps lose nothing.

use super::{Flow, Search};
use crate::certify::model::{LossCurve, LossPoint};

impl Search<'_> {
    /// The loss curve of `size` in `dir`: from the upper bound down by the
    /// step until two successive points lose nothing (or the rate would
    /// reach zero). A point the tester bounded is tried again (up to
    /// [`MAX_TRIES`](super::MAX_TRIES)); one still the tester's is kept,
    /// marked, and is not a loss-free step.
    pub(super) fn loss(&mut self, dir: Option<usize>, size: u32) -> (LossCurve, Flow<()>) {
        let mut points = Vec::new();
        let (mut zeros, mut k) = (0, 0u32);
        let mut flow = Ok(());
        let tol = self.s.loss_tolerance_pct;
        while zeros < 2 {
            let rate = self.s.upper_pct - f64::from(k) * self.s.loss_step_pct;
            if rate <= 1e-9 {
                break;
            }
            let mut tries = Vec::new();
            let t = match self.tried(
                |s| {
                    let spec = s.spec(dir, size, rate, s.s.trial_s);
                    s.trial("loss", spec, tol)
                },
                &mut tries,
            ) {
                Ok(t) => t,
                Err(h) => {
                    flow = Err(h);
                    break;
                }
            };
            tries.pop();
            zeros = if t.lost == 0 && t.tx_frames > 0 && !t.tester_bound {
                zeros + 1
            } else {
                0
            };
            points.push(LossPoint {
                rate_pct: rate,
                loss_pct: t.loss_pct,
                trial: t,
                retried: tries,
            });
            k += 1;
        }
        let curve = LossCurve {
            direction: self.label(dir),
            frame_size: size,
            points,
            complete: flow.is_ok(),
        };
        (curve, flow)
    }
}
