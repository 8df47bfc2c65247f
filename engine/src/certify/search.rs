//! The RFC 2544 searches (section 26), driven over a [`Tester`].
//!
//! - throughput (26.1): per frame size, a binary search for the highest
//!   rate whose trial loses no more than the tolerance, between the lower
//!   and upper bounds, to the resolution; then one confirming trial at the
//!   result (a failed confirmation searches again below it); a trial that
//!   failed as the tester's is run once more at its rate;
//! - latency (26.2): trials at each size's throughput rate;
//! - frame loss rate (26.3): from the upper bound down in steps until two
//!   successive steps lose nothing;
//! - back-to-back (26.4): the longest burst at line rate that loses
//!   nothing, by binary search on the burst length, averaged over trials.
//!
//! A trial the tester could not offer (its `tester_bound`) never passes and
//! never counts as the device's figure: a result whose nearest failure was
//! the tester's says `bound: tester`. The first trial of each direction
//! that receives nothing at all ends the certification with an error
//! naming the port, rather than searching down to zero. A signal
//! ([`Tester::stopped`]) ends it after the current trial: the rows so far
//! are kept, the interrupted one marked `complete: false`.

use super::model::{
    BackToBackRow, Bound, Certification, HookRun, LatencyRow, Learning, LossCurve, LossPoint,
    NotMeasured, OnFailure, RateStep, RecoveryRow, ResetRow, Settings, Tester, ThroughputRow,
    Trial, TrialSpec,
};
use super::model::{Test, NO_RATE};
use super::round::{self, Format};
use crate::outcome::Problem;
use crate::units::L1_OVERHEAD;

/// Label of the aggregate direction of a bidirectional topology.
pub const AGGREGATE: &str = "aggregate";
/// Confirmations a throughput search tries before it gives up on a rate.
const MAX_CONFIRMS: u32 = 4;
/// Tries of one trial the tester bounded (or, for latency, that lost
/// frames), the first included, before its figure is left as it is.
pub const MAX_TRIES: u32 = 2;

/// What the searches report as each trial starts and as it ends (for a
/// progress display: see [`super::progress`]).
#[derive(Debug)]
pub struct Step<'a> {
    /// The test: `throughput`, `latency`, `loss` or `back_to_back`.
    pub test: &'static str,
    /// The trial asked for.
    pub spec: &'a TrialSpec,
    /// `None` as the trial starts; the trial as measured, `passed`
    /// decided, as it ends.
    pub trial: Option<&'a Trial>,
    /// Trials that ended so far in the certification (this one included
    /// once it ended).
    pub done: u32,
    /// The most trials the certification can take (every search at its
    /// longest): an upper bound, see [`planned_trials`].
    pub planned: u32,
    /// The certification's settings.
    pub settings: &'a Settings,
    /// The tester's directions.
    pub directions: &'a [String],
    /// The line rate at L1, bit/s.
    pub line_bps: u64,
}

/// Why a search ended before its end.
enum Halt {
    /// A signal asked to stop.
    Stopped,
    /// The tester failed, or a port received nothing.
    Error(crate::Error),
}

impl From<crate::Error> for Halt {
    fn from(e: crate::Error) -> Halt {
        Halt::Error(e)
    }
}

/// A search's own result: `Err(Halt::Stopped)` ends it early.
type Flow<T> = std::result::Result<T, Halt>;

/// Runs the tests of `settings` over `tester`, appending rows to `cert` as
/// each ends (so an error or a signal leaves the rows so far in it), and
/// calls `progress` as every trial starts and as it ends. On a signal `cert.complete` is
/// false and `stopped_by` says so; on an error too, and the error is
/// returned after the rows were kept.
pub fn run(
    tester: &mut dyn Tester,
    settings: &Settings,
    cert: &mut Certification,
    progress: &mut dyn FnMut(&Step),
) -> crate::Result<()> {
    let mut s = Search::new(tester, settings, progress);
    let flow = s.all(cert).and_then(|()| match s.halt.take() {
        Some(e) => Err(Halt::Error(e)),
        None => Ok(()),
    });
    let r = match flow {
        Ok(()) => {
            cert.complete = true;
            Ok(())
        }
        Err(Halt::Stopped) => {
            cert.complete = false;
            cert.stopped_by = Some("interrupted".into());
            Ok(())
        }
        Err(Halt::Error(e)) => {
            cert.complete = false;
            cert.stopped_by = Some(e.to_string());
            Err(e)
        }
    };
    correct_back_to_back(cert);
    cert.not_measured = not_measured(cert);
    cert.problems.extend(hook_problems(cert));
    r
}

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

/// The directions a certification has rows for: each of `directions`,
/// then the aggregate when there are several.
pub fn row_directions(directions: &[String]) -> Vec<String> {
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
            for dir in row_directions(&c.directions) {
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

/// A certification before its first trial: the settings and the
/// tester's directions and line rate; the caller fills in the DPDK
/// version, the profile, the start time, the topology and the ports.
pub fn blank(settings: &Settings, directions: Vec<String>, line_bps: u64) -> Certification {
    Certification {
        landspeed: env!("CARGO_PKG_VERSION").to_string(),
        dpdk: String::new(),
        profile: String::new(),
        device: None,
        host: Default::default(),
        started: String::new(),
        topology: String::new(),
        directions,
        line_bps,
        ports: Vec::new(),
        settings: settings.clone(),
        throughput: Vec::new(),
        latency: Vec::new(),
        loss: Vec::new(),
        back_to_back: Vec::new(),
        recovery: Vec::new(),
        reset: Vec::new(),
        criteria: Vec::new(),
        complete: false,
        stopped_by: None,
        problems: Vec::new(),
        not_measured: Vec::new(),
        nonconformant: super::conformance::deviations(settings),
        latency_method: String::new(),
        baseline: None,
        verdict: None,
        frames: Vec::new(),
        tasks: Vec::new(),
    }
}

/// The state of a certification between trials.
struct Search<'a> {
    tester: &'a mut dyn Tester,
    s: &'a Settings,
    progress: &'a mut dyn FnMut(&Step),
    directions: Vec<String>,
    line_bps: u64,
    done: u32,
    planned: u32,
    learned: bool,
    /// A hook that failed after a trial with `on_failure: stop`: the
    /// error the certification ends with before its next trial.
    halt: Option<crate::Error>,
    /// Directions whose first trial was checked for silence.
    heard: Vec<bool>,
    /// The trial that received nothing, to keep in its row.
    silent: Option<Trial>,
}

impl<'a> Search<'a> {
    fn new(
        tester: &'a mut dyn Tester,
        s: &'a Settings,
        progress: &'a mut dyn FnMut(&Step),
    ) -> Self {
        let directions = tester.directions();
        let line_bps = tester.line_bps();
        let planned = planned_trials(s, directions.len(), line_bps);
        Search {
            heard: vec![false; directions.len() + 1],
            directions,
            line_bps,
            tester,
            s,
            progress,
            done: 0,
            planned,
            learned: false,
            halt: None,
            silent: None,
        }
    }

    /// Every test, size and direction, in the settings' order.
    fn all(&mut self, cert: &mut Certification) -> Flow<()> {
        let tests = self.s.tests.clone();
        for test in &tests {
            for size in test_sizes(self.s, test) {
                for dir in self.direction_list() {
                    self.one(cert, test, dir, size)?;
                }
            }
        }
        Ok(())
    }

    /// Each direction on its own, then (bidirectional) all at once.
    fn direction_list(&self) -> Vec<Option<usize>> {
        let mut v: Vec<Option<usize>> = (0..self.directions.len()).map(Some).collect();
        if v.len() > 1 {
            v.push(None);
        }
        v
    }

    /// The label of a direction.
    fn label(&self, dir: Option<usize>) -> String {
        match dir {
            Some(d) => self.directions[d].clone(),
            None => AGGREGATE.to_string(),
        }
    }

    /// One test of one size in one direction; its row is kept even when a
    /// signal cut it short.
    fn one(
        &mut self,
        cert: &mut Certification,
        test: &str,
        dir: Option<usize>,
        size: u32,
    ) -> Flow<()> {
        let flow = match test {
            "throughput" => {
                let (row, flow) = self.throughput(dir, size);
                cert.throughput.push(row);
                flow
            }
            "latency" => {
                let rate = self.latency_rate(cert, dir, size);
                let (row, flow) = self.latency(dir, size, rate);
                cert.latency.extend(row);
                flow
            }
            "loss" => {
                let (row, flow) = self.loss(dir, size);
                cert.loss.push(row);
                flow
            }
            "recovery" => {
                let rate = self.latency_rate(cert, dir, size);
                let (row, flow) = self.recovery(dir, size, rate);
                cert.recovery.extend(row);
                flow
            }
            "reset" => {
                let rate = self.latency_rate(cert, dir, size);
                let (row, flow) = self.reset(dir, size, rate);
                cert.reset.extend(row);
                flow
            }
            _ => {
                let (row, flow) = self.back_to_back(dir, size);
                cert.back_to_back.push(row);
                flow
            }
        };
        if let Some(t) = self.silent.take() {
            keep_silent(cert, test, t);
        }
        if flow.is_err() {
            drop_empty(cert, test, &self.label(dir), size);
        }
        flow
    }

    /// Runs one trial and decides whether it passed (loss within
    /// `tolerance`, nothing corrupt, not tester-bound, and for throughput
    /// the p99 bound). Before it: the restabilise wait after the trial
    /// before (RFC 2544 section 23(e)), then learning frames when the
    /// settings send them before this trial.
    fn trial(&mut self, test: &'static str, spec: TrialSpec, tolerance: f64) -> Flow<Trial> {
        if let Some(e) = self.halt.take() {
            return Err(Halt::Error(e));
        }
        if self.tester.stopped() {
            return Err(Halt::Stopped);
        }
        if self.done > 0 && self.s.restabilise_s > 0.0 {
            self.tester.rest(self.s.restabilise_s);
            if self.tester.stopped() {
                return Err(Halt::Stopped);
            }
        }
        let learn = match self.s.learning {
            Learning::EveryTrial => true,
            Learning::Once => !self.learned,
            Learning::Off => false,
        };
        if learn {
            self.tester.learn(&spec)?;
            self.learned = true;
        }
        let mut problems = Vec::new();
        let before = self.dut_hook("before_trial", test, &spec);
        if let Some((run, why)) = &before {
            if let Some(e) = self.hook_failed(run, why.clone(), test, &spec, &mut problems) {
                return Err(Halt::Error(e));
            }
        }
        self.report(test, &spec, None);
        let mut t = self.tester.trial(&spec)?;
        let p99 = if test == "throughput" {
            self.s.max_p99_ns
        } else {
            None
        };
        t.passed = passes(&t, tolerance, p99);
        let after = self.dut_hook("after_trial", test, &spec);
        if let Some((run, why)) = &after {
            self.halt = self.hook_failed(run, why.clone(), test, &spec, &mut problems);
        }
        let runs = before.into_iter().chain(after).map(|(run, _)| run);
        t.hooks.extend(runs);
        t.problems.extend(problems);
        self.check_heard(&spec, &t)?;
        self.done += 1;
        self.planned = self.planned.max(self.done);
        self.report(test, &spec, Some(&t));
        Ok(t)
    }

    /// Runs the device-under-test hook `which` (`before_trial`,
    /// `after_trial`) of the settings around a trial of `test` with
    /// `spec`, when the profile has it: its run, and how it failed.
    fn dut_hook(
        &mut self,
        which: &str,
        test: &str,
        spec: &TrialSpec,
    ) -> Option<(HookRun, Option<String>)> {
        let dut = self.s.dut.as_ref()?;
        let command = match which {
            "before_trial" => dut.before_trial.as_deref(),
            _ => dut.after_trial.as_deref(),
        }?;
        let env = [
            ("LANDSPEED_HOOK", which.to_string()),
            ("LANDSPEED_TEST", test.to_string()),
            ("LANDSPEED_TRIAL", (self.done + 1).to_string()),
            ("LANDSPEED_FRAME_SIZE", spec.frame_size.to_string()),
            ("LANDSPEED_RATE_PCT", format!("{}", spec.rate_pct)),
            ("LANDSPEED_DIRECTION", self.label(spec.direction)),
        ];
        let run = self.tester.hook(which, command, dut.timeout_s, &env);
        let why = run.failure();
        Some((run, why))
    }

    /// A hook `run` that failed (`why`): the trial's problem, into
    /// `problems`; with `on_failure: stop`, the error that ends the
    /// certification.
    fn hook_failed(
        &self,
        run: &HookRun,
        why: Option<String>,
        test: &str,
        spec: &TrialSpec,
        problems: &mut Vec<crate::outcome::Problem>,
    ) -> Option<crate::Error> {
        let why = why?;
        let on_failure = self
            .s
            .dut
            .as_ref()
            .map_or(OnFailure::Stop, |d| d.on_failure);
        let when = if run.hook == "before_trial" {
            "before"
        } else {
            "after"
        };
        let what = format!(
            "the device-under-test hook certify.dut.{} `{}` {why} {when} the trial ({test} {} B \
             {} at {:.3} % of line){}",
            run.hook,
            run.command,
            spec.frame_size,
            self.label(spec.direction),
            spec.rate_pct,
            run.output_tail()
        );
        problems.push(crate::outcome::Problem::Other {
            detail: format!("{what}; on_failure: {}", on_failure.key()),
        });
        (on_failure == OnFailure::Stop).then(|| {
            crate::Error::Certify(format!(
                "{what}; certify.dut.on_failure is stop, so the certification ends here"
            ))
        })
    }

    /// Tells the progress display a trial starts (`None`) or ended.
    fn report(&mut self, test: &'static str, spec: &TrialSpec, trial: Option<&Trial>) {
        (self.progress)(&Step {
            test,
            spec,
            trial,
            done: self.done,
            planned: self.planned,
            settings: self.s,
            directions: &self.directions,
            line_bps: self.line_bps,
        });
    }

    /// The first trial of a direction that received nothing at all (no
    /// frame, good or corrupt) ends the certification: cabling or the
    /// device is down, and a search down to zero would only hide it.
    fn check_heard(&mut self, spec: &TrialSpec, t: &Trial) -> crate::Result<()> {
        let k = spec.direction.unwrap_or(self.directions.len());
        if self.heard[k] {
            return Ok(());
        }
        self.heard[k] = true;
        if t.tx_frames > 0 && t.rx_frames == 0 && t.corrupt == 0 {
            self.silent = Some(t.clone());
            return Err(crate::Error::Certify(format!(
                "port {} received nothing of the {} frames sent in the first trial \
                 ({} at {:.1} % of line, {}): check the cabling and that the device \
                 under test forwards; stopping rather than searching down to zero",
                self.tester.rx_port(spec.direction),
                t.tx_frames,
                super::model::Size(spec.frame_size).bytes(),
                spec.rate_pct,
                self.label(spec.direction)
            )));
        }
        Ok(())
    }

    /// A timed trial at `rate_pct`.
    fn spec(&self, dir: Option<usize>, size: u32, rate_pct: f64, duration_s: f64) -> TrialSpec {
        TrialSpec {
            direction: dir,
            frame_size: size,
            rate_pct,
            duration_s,
            burst: None,
            settle_s: self.s.settle_s,
            step: None,
            reset_at_s: None,
        }
    }
}

/// Whether trial `t` passed: something was sent, the tester offered the
/// load, nothing was corrupt, loss is within `tolerance` % and the p99
/// latency within `max_p99_ns` (a trial without latency figures fails a
/// latency bound: it cannot be shown to meet it).
pub fn passes(t: &Trial, tolerance: f64, max_p99_ns: Option<f64>) -> bool {
    let latency_ok = match (max_p99_ns, &t.latency) {
        (None, _) => true,
        (Some(max), Some(l)) => l.p99_ns <= max,
        (Some(_), None) => false,
    };
    t.tx_frames > 0 && !t.tester_bound && t.corrupt == 0 && t.loss_pct <= tolerance && latency_ok
}

/// Frames per second at `pct` % of a line of `line_bps` (L1) for frames of
/// `size` bytes.
pub fn fps_at(line_bps: u64, size: u32, pct: f64) -> f64 {
    line_bps as f64 * pct / 100.0 / ((f64::from(size) + L1_OVERHEAD as f64) * 8.0)
}

/// The trials a certification is expected to run (each search at its
/// longest).
pub fn planned_trials(s: &Settings, directions: usize, line_bps: u64) -> u32 {
    let rows = s.sizes.len() as u32 * (directions as u32 + u32::from(directions > 1));
    let dirs = directions as u32 + u32::from(directions > 1);
    let per_size = |test: &str| -> u32 {
        match test {
            "throughput" => bisect_steps((s.upper_pct - s.lower_pct) / s.resolution_pct) + 2,
            "latency" => s.latency_trials,
            "loss" => (s.upper_pct / s.loss_step_pct).ceil() as u32,
            "recovery" => s.recovery_trials,
            // One size only: its trials spread over the rows of every size.
            "reset" => (s.reset_trials * dirs).div_ceil(rows.max(1)),
            _ => {
                let big = s.sizes.iter().map(|&z| max_burst(s, line_bps, z)).max();
                s.back_to_back_trials * (bisect_steps(big.unwrap_or(1) as f64) + 1)
            }
        }
    };
    s.tests.iter().map(|t| per_size(t) * rows).sum()
}

/// The sizes `test` runs at: every size of the settings, but reset at the
/// smallest only (RFC 2544 section 26.6: minimum-sized frames).
pub fn test_sizes(s: &Settings, test: &str) -> Vec<u32> {
    if test == "reset" {
        s.sizes.iter().copied().min().into_iter().collect()
    } else {
        s.sizes.clone()
    }
}

/// Halvings that bring a span of `ratio` resolutions down to one.
fn bisect_steps(ratio: f64) -> u32 {
    if ratio <= 1.0 {
        0
    } else {
        ratio.log2().ceil() as u32
    }
}

/// The longest burst back-to-back tries for `size`: the settings' seconds
/// at line rate, at least one frame.
pub fn max_burst(s: &Settings, line_bps: u64, size: u32) -> u64 {
    ((s.back_to_back_max_s * s.fps_at(line_bps, size, 100.0)).ceil() as u64).max(1)
}

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
    fn throughput(&mut self, dir: Option<usize>, size: u32) -> (ThroughputRow, Flow<()>) {
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
    /// device, so the rate is tried again (up to [`MAX_TRIES`] in all) and
    /// the last trial decides.
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

    /// Runs `run` until its trial is not the tester's, [`MAX_TRIES`]
    /// times at most; every trial goes into `kept` (the ones tried again
    /// marked excluded), and the last one is returned.
    fn tried(
        &mut self,
        mut run: impl FnMut(&mut Self) -> Flow<Trial>,
        kept: &mut Vec<Trial>,
    ) -> Flow<Trial> {
        let mut tries = 0;
        loop {
            let t = run(self)?;
            tries += 1;
            if !t.tester_bound || t.passed || tries >= MAX_TRIES {
                kept.push(t.clone());
                return Ok(t);
            }
            let mut again = t;
            again.excluded = Some(format!("{}; tried again", tester_reason(&again)));
            kept.push(again);
        }
    }

    /// The rate latency runs at for `size` in `dir`: its throughput, when
    /// this certification measured it (`None` when that was zero: nothing
    /// to measure), else the upper bound.
    fn latency_rate(&self, cert: &Certification, dir: Option<usize>, size: u32) -> Option<f64> {
        let label = self.label(dir);
        let row = (cert.throughput.iter()).find(|r| r.direction == label && r.frame_size == size);
        match row {
            Some(r) if r.rate_pct > 0.0 => Some(r.rate_pct),
            Some(_) => None,
            None => Some(self.s.upper_pct),
        }
    }

    /// Latency of `size` in `dir` at `rate` (none without a rate): the
    /// settings' trials, each that lost frames (beyond the tolerance),
    /// was corrupt or was the tester's tried again (up to [`MAX_TRIES`])
    /// and left out of the figures.
    fn latency(
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
                    let then = if again {
                        "tried again"
                    } else {
                        super::model::GIVEN_UP
                    };
                    format!("{why}; left out, {then}")
                });
                trials.push(t);
                if !again {
                    break;
                }
            }
        }
        let counted: Vec<&Trial> = trials.iter().filter(|t| t.excluded.is_none()).collect();
        let (summary, jitter_ns, histogram) = super::latency::summarise(&counted);
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

    /// The loss curve of `size` in `dir`: from the upper bound down by the
    /// step until two successive points lose nothing (or the rate would
    /// reach zero). A point the tester bounded is tried again (up to
    /// [`MAX_TRIES`]); one still the tester's is kept, marked, and is
    /// not a loss-free step.
    fn loss(&mut self, dir: Option<usize>, size: u32) -> (LossCurve, Flow<()>) {
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

    /// Back-to-back of `size` in `dir`: a burst search per trial.
    fn back_to_back(&mut self, dir: Option<usize>, size: u32) -> (BackToBackRow, Flow<()>) {
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
    /// again (up to [`MAX_TRIES`]). Returns the length and whether the
    /// failure it stopped below was the tester's.
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
        };
        self.trial("back_to_back", spec, 0.0)
    }

    /// System recovery of `size` in `dir` from its throughput `rate` (none
    /// without one): trials of an overload of 110 % of it (at most the
    /// line) for the settings' overload time, then half of that; each
    /// gives the time from the drop to the first frame through after the
    /// last loss. A trial the tester bounded is tried again and left out;
    /// one whose overload lost nothing is left out (the device was not
    /// overloaded).
    fn recovery(
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

    /// Reset of the device in `dir` at `size`, at its throughput `rate`
    /// (none without one): trials in which the profile's reset hook runs
    /// the settings' reset time into the trial; each gives the longest
    /// time between two arrivals. A trial whose loss the gap does not
    /// hold (frames lost outside it: the device lost more after it came
    /// back, or never came back in the trial) is left out and says so.
    fn reset(
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

/// Why a trial is the tester's, in words: `tester-bound: ` and its first
/// problem that makes it so (a missed target, a descheduled lcore, a
/// catch-up burst), else that its sender sent short.
pub fn tester_reason(t: &Trial) -> String {
    let why = (t.problems.iter())
        .find(|p| {
            matches!(
                p,
                Problem::TargetMissed { .. }
                    | Problem::Descheduled { .. }
                    | Problem::SenderBunched { .. }
            )
        })
        .map(|p| p.text())
        .unwrap_or_else(|| "its sender sent short".into());
    format!("tester-bound: {why}")
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
            super::model::why_tester(r),
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

/// Keeps the trial that received nothing in the row of `test` it ended
/// (the last one), so the JSON shows what was sent.
fn keep_silent(cert: &mut Certification, test: &str, t: Trial) {
    match test {
        "throughput" => {
            if let Some(r) = cert.throughput.last_mut() {
                r.trials.push(t);
                r.trial_count = r.trials.len() as u32;
            }
        }
        "latency" => {
            if let Some(r) = cert.latency.last_mut() {
                r.trials.push(t);
            }
        }
        "loss" => {
            if let Some(r) = cert.loss.last_mut() {
                let (rate_pct, loss_pct) = (t.offered_pct, t.loss_pct);
                r.points.push(LossPoint {
                    rate_pct,
                    loss_pct,
                    trial: t,
                    retried: Vec::new(),
                });
            }
        }
        "recovery" => {
            if let Some(r) = cert.recovery.last_mut() {
                r.trials.push(t);
            }
        }
        "reset" => {
            if let Some(r) = cert.reset.last_mut() {
                r.trials.push(t);
            }
        }
        _ => {
            if let Some(r) = cert.back_to_back.last_mut() {
                r.trials.push(t);
            }
        }
    }
}

/// Drops the row of `test` for `dir` and `size` when a halt left it
/// without a trial: it measured nothing (and [`not_measured`] says so).
fn drop_empty(cert: &mut Certification, test: &str, dir: &str, size: u32) {
    fn pop<T>(rows: &mut Vec<T>, empty: impl Fn(&T) -> bool) {
        if rows.last().is_some_and(empty) {
            rows.pop();
        }
    }
    let at = |d: &str, z: u32| d == dir && z == size;
    match test {
        "throughput" => pop(&mut cert.throughput, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty()
        }),
        "latency" => pop(&mut cert.latency, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty()
        }),
        "loss" => pop(&mut cert.loss, |r| {
            at(&r.direction, r.frame_size) && r.points.is_empty()
        }),
        "recovery" => pop(&mut cert.recovery, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty() && r.note.is_none()
        }),
        "reset" => pop(&mut cert.reset, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty()
        }),
        _ => pop(&mut cert.back_to_back, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty()
        }),
    }
}

/// The mean of `v` (0 when empty).
fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (n, sum) = v.fold((0u32, 0.0), |(n, s), x| (n + 1, s + x));
    if n == 0 {
        0.0
    } else {
        sum / f64::from(n)
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
