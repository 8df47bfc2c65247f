//! What a certification's rows say once its trials ran: every trial in
//! order, the hooks that failed, the tests not measured and why, and the
//! figures that are the tester's rather than the device's.

use super::{test_sizes, tester_reason, AGGREGATE};
use crate::certify::model::{
    why_tester, Bound, Certification, HookRun, NotMeasured, Settings, Test, ThroughputRow, Trial,
    MESH, NO_RATE,
};
use crate::certify::round::{self, Format};
use crate::outcome::Problem;

/// Every trial of `c`, each row's in order, test by test.
pub fn every_trial(c: &Certification) -> impl Iterator<Item = &Trial> {
    let rows = (c.throughput.iter().flat_map(|r| &r.trials))
        .chain(c.latency.iter().flat_map(|r| &r.trials))
        .chain(
            (c.loss.iter().flat_map(|r| &r.points))
                .flat_map(|p| p.retried.iter().chain(std::iter::once(&p.trial))),
        );
    rows.chain(c.back_to_back.iter().flat_map(|r| &r.trials))
}

/// One problem per device-under-test hook that failed in some trial of
/// `c`: the hook, its command, in how many of the trials that ran it,
/// and how it failed first.
pub fn hook_problems(c: &Certification) -> Vec<crate::outcome::Problem> {
    let mut out = Vec::new();
    for which in ["before_trial", "after_trial"] {
        let runs: Vec<&HookRun> = (every_trial(c).flat_map(|t| &t.hooks))
            .filter(|h| h.hook == which)
            .collect();
        let failed: Vec<&HookRun> = runs.iter().copied().filter(|h| !h.ok()).collect();
        let Some(first) = failed.first() else {
            continue;
        };
        out.push(crate::outcome::Problem::Other {
            detail: format!(
                "the device-under-test hook certify.dut.{which} `{}` failed in {} of the {} \
                 trial(s) it ran for (first: it {}): the device may not have been as the \
                 hook should have left it",
                first.command,
                failed.len(),
                runs.len(),
                first.failure().unwrap_or_default()
            ),
        });
    }
    out
}

/// One problem when the learning before some trials of `c` could not
/// hand all its frames to the port: in how many trials, and how many
/// frames the first of them lost.
pub fn learning_problems(c: &Certification) -> Vec<Problem> {
    let short: Vec<_> = (every_trial(c).filter_map(|t| t.learning.as_ref()))
        .filter(|l| l.refused > 0)
        .collect();
    let Some(first) = short.first() else {
        return Vec::new();
    };
    vec![Problem::Other {
        detail: format!(
            "the learning frames before {} trial(s) were not all sent (first: {} of {} refused \
             by a full TX queue): the device may not have learnt every address, and flooded \
             their frames",
            short.len(),
            first.refused,
            first.refused + first.frames
        ),
    }]
}

/// The directions a certification of `topology` has rows for: each of
/// `directions`, then the aggregate when there are several; a mesh's
/// aggregate only.
pub fn row_directions(directions: &[String], topology: &str) -> Vec<String> {
    if topology == MESH {
        return vec![AGGREGATE.to_string()];
    }
    let mut v = directions.to_vec();
    if v.len() > 1 {
        v.push(AGGREGATE.to_string());
    }
    v
}

/// Every test the settings of `c` planned for a direction and size that
/// has no figure in `c`, and why, in the order the tests ran: a test the
/// certification stopped before, latency at a size whose throughput
/// search found no rate, latency whose trials timestamped no frame.
pub fn not_measured(c: &Certification) -> Vec<NotMeasured> {
    let why = c.stopped_by.as_deref().unwrap_or("it was stopped");
    let not_run = format!("not run: the certification stopped before it: {why}");
    let mut out = Vec::new();
    for k in &c.settings.tests {
        // `back-to-back` is taken for `back_to_back`.
        let key: &str = match Test::from_key(k) {
            Some(t) => t.key(),
            None => k.as_str(),
        };
        for size in test_sizes(&c.settings, key) {
            for dir in row_directions(&c.directions, &c.topology) {
                let at = |d: &str, z: u32| d == dir && z == size;
                let reason = match Test::from_key(key) {
                    Some(Test::Recovery) => {
                        let row = (c.recovery.iter()).find(|r| at(&r.direction, r.frame_size));
                        match row {
                            Some(r) => r
                                .mean_s
                                .is_none()
                                .then(|| r.note.clone().unwrap_or_else(|| not_run.clone())),
                            None => rate_reason(c, &dir, size, &not_run),
                        }
                    }
                    Some(Test::Reset) => {
                        let row = (c.reset.iter()).find(|r| at(&r.direction, r.frame_size));
                        match row {
                            Some(r) => r
                                .mean_s
                                .is_none()
                                .then(|| r.note.clone().unwrap_or_else(|| not_run.clone())),
                            None => rate_reason(c, &dir, size, &not_run),
                        }
                    }
                    None => None,
                    Some(Test::Throughput) => {
                        let row = c.throughput.iter().find(|r| at(&r.direction, r.frame_size));
                        row.is_none().then(|| not_run.clone())
                    }
                    Some(Test::Latency) => latency_reason(c, &dir, size, &not_run),
                    Some(Test::Loss) => {
                        let row = c.loss.iter().find(|r| at(&r.direction, r.frame_size));
                        row.is_none().then(|| not_run.clone())
                    }
                    Some(Test::BackToBack) => {
                        let row = (c.back_to_back.iter()).find(|r| at(&r.direction, r.frame_size));
                        row.is_none().then(|| not_run.clone())
                    }
                    Some(t @ (Test::AddressCaching | Test::LearningRate)) => {
                        let rows = c.address_rows(t);
                        match rows.iter().find(|r| at(&r.direction, r.frame_size)) {
                            None => Some(not_run.clone()),
                            Some(r) if r.addresses.is_none() || r.learning_fps.is_none() => {
                                Some(r.note.clone().unwrap_or_else(|| not_run.clone()))
                            }
                            Some(_) => None,
                        }
                    }
                };
                if let Some(reason) = reason {
                    out.push(NotMeasured {
                        test: key.to_string(),
                        direction: dir.clone(),
                        frame_size: size,
                        reason,
                    });
                }
            }
        }
    }
    out
}

/// Why latency of `size` in `dir` has no figure, when it has none.
fn latency_reason(c: &Certification, dir: &str, size: u32, not_run: &str) -> Option<String> {
    let at = |d: &str, z: u32| d == dir && z == size;
    if let Some(r) = c.latency.iter().find(|r| at(&r.direction, r.frame_size)) {
        if r.summary.count > 0 {
            return None;
        }
        let left: Vec<&str> = (r.trials.iter())
            .filter_map(|t| t.excluded.as_deref())
            .collect();
        if left.len() == r.trials.len() && !left.is_empty() {
            let tester = r.trials.iter().all(|t| t.tester_bound);
            let first = left[0];
            return Some(if tester {
                format!(
                    "tester-bound: every one of its {} trial(s) was the tester's ({first})",
                    r.trials.len()
                )
            } else {
                format!(
                    "no latency figure: every one of its {} trial(s) was left out ({first})",
                    r.trials.len()
                )
            });
        }
        return Some(format!(
            "no latency figure: the receiver timestamped none of the frames of its {} trial(s)",
            r.trials.len()
        ));
    }
    rate_reason(c, dir, size, not_run)
}

/// Why a test run at the throughput rate (latency, recovery, reset) has
/// no row: the size's throughput search found no rate, or the test did
/// not run.
fn rate_reason(c: &Certification, dir: &str, size: u32, not_run: &str) -> Option<String> {
    let at = |d: &str, z: u32| d == dir && z == size;
    let tput = c.throughput.iter().find(|r| at(&r.direction, r.frame_size));
    Some(match tput {
        Some(t) if t.complete && t.rate_pct <= 0.0 => {
            format!("{NO_RATE}: {}", no_rate_why(t, &c.settings))
        }
        _ => not_run.to_string(),
    })
}

/// Why a complete throughput search found no rate: its failures were
/// the tester's; or rates passed a search trial and none held in its
/// confirming trial; or no trial passed at all.
fn no_rate_why(t: &ThroughputRow, s: &Settings) -> String {
    let n = t.trials.len();
    if t.bound == Bound::Tester {
        return format!(
            "none of the {n} throughput trial(s) at this size passed, the failures the tester's, not the device's"
        );
    }
    let mut passed: Vec<f64> = Vec::new();
    for x in t.trials.iter().filter(|x| x.passed) {
        if !passed.contains(&x.offered_pct) {
            passed.push(x.offered_pct);
        }
    }
    if passed.is_empty() {
        return format!("none of the {n} throughput trial(s) at this size passed");
    }
    let f = Format::new(s.resolution_pct);
    let rates: Vec<String> = passed.iter().map(|r| format!("{} %", f.pct(*r))).collect();
    format!(
        "no rate held: {} passed a search trial and failed its confirming trial ({} trial(s) in all)",
        rates.join(", "),
        n
    )
}

/// The problems that say which figures are the tester's and not the
/// device's: a throughput or back-to-back row it bounded, a latency row
/// whose trials it left out on every try, a loss point still its own
/// after the tries; and a latency row short of trials because the device
/// lost frames at its throughput rate on every try.
pub fn tester_problems(c: &Certification) -> Vec<Problem> {
    let f = Format::new(c.settings.resolution_pct);
    let mut out = Vec::new();
    let mut add = |test: &str, r_dir: &str, size: u32, figure: String, why: String| {
        out.push(Problem::TesterBound {
            test: test.into(),
            direction: r_dir.into(),
            frame_size: size,
            figure,
            why,
        });
    };
    for r in c.throughput.iter().filter(|r| r.bound == Bound::Tester) {
        let figure = format!("{} % of line", f.pct(r.rate_pct));
        add(
            "throughput",
            &r.direction,
            r.frame_size,
            figure,
            why_tester(r),
        );
    }
    let mut left_out = Vec::new();
    for r in c.latency.iter().filter(|r| r.complete) {
        // A trial left out and tried again until one counted is listed,
        // not a doubt; only a slot whose tries ran out leaves one.
        let given_up = r.given_up();
        if given_up.is_empty() {
            continue;
        }
        let why = (given_up.iter())
            .filter_map(|t| t.excluded.as_deref())
            .collect::<Vec<_>>()
            .join("; ");
        if r.tester_bound() {
            let asked = c.settings.latency_trials;
            let figure = format!("{} of {asked} latency trials counted", r.counted);
            add("latency", &r.direction, r.frame_size, figure, why);
        } else {
            left_out.push(Problem::LatencyLeftOut {
                direction: r.direction.clone(),
                frame_size: r.frame_size,
                counted: r.counted,
                asked: c.settings.latency_trials,
                why,
            });
        }
    }
    for r in &c.loss {
        for p in r.points.iter().filter(|p| p.trial.tester_bound) {
            let figure = format!(
                "{} % lost at {} % of line",
                round::loss_pct(p.loss_pct),
                f.pct(p.rate_pct)
            );
            add(
                "loss",
                &r.direction,
                r.frame_size,
                figure,
                tester_reason(&p.trial),
            );
        }
    }
    for r in c.back_to_back.iter().filter(|r| r.bound == Bound::Tester) {
        let figure = format!("{:.1} frames", r.mean_frames);
        let why = (r.trials.iter())
            .filter(|t| t.tester_bound && !t.passed)
            .map(tester_reason)
            .next()
            .unwrap_or_default();
        add("back_to_back", &r.direction, r.frame_size, figure, why);
    }
    out.extend(left_out);
    out
}
