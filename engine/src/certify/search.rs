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
//!
//! This file is the trial driver: it runs the tests in order, each trial
//! with its restabilise wait, learning frames and hooks, and keeps the
//! rows. Each test's own search is in a file of its own under `search/`
//! (throughput.rs, latency.rs, loss.rs, back_to_back.rs, recovery.rs,
//! reset.rs); review.rs reads the rows once the trials ran.

mod address;
mod back_to_back;
mod latency;
mod loss;
mod recovery;
mod reset;
mod review;
mod throughput;

pub use address::{address_failure_is_testers, address_passes, FRAMES_PER_ADDRESS};
pub use back_to_back::{correct_back_to_back, corrected_buffer_s, sample_stddev};
pub use latency::latency_flaw;
pub use review::{
    every_trial, hook_problems, learning_problems, not_measured, row_directions, tester_problems,
};

use super::model::{
    Certification, HookRun, Learning, LearningRun, LossPoint, OnFailure, Settings, Tester, Trial,
    TrialSpec,
};
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
    let mut s = Search::new(tester, settings, progress, &cert.topology);
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
    cert.problems.extend(learning_problems(cert));
    r
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
        address_caching: Vec::new(),
        learning_rate: Vec::new(),
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
    /// What each test runs per size: each direction on its own, then
    /// all at once (`None`) when there are several; a mesh's aggregate
    /// only.
    rows: Vec<Option<usize>>,
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
        topology: &str,
    ) -> Self {
        let directions = tester.directions();
        let line_bps = tester.line_bps();
        let labels = row_directions(&directions, topology);
        let rows: Vec<Option<usize>> = (labels.iter())
            .map(|l| directions.iter().position(|d| d == l))
            .collect();
        let planned = planned_trials(s, rows.len(), line_bps);
        Search {
            heard: vec![false; directions.len() + 1],
            directions,
            rows,
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
                for dir in self.rows.clone() {
                    self.one(cert, test, dir, size)?;
                }
            }
        }
        Ok(())
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
            "address_caching" => {
                let (row, flow) = self.address_caching(dir, size);
                cert.address_caching.push(row);
                flow
            }
            "learning_rate" => {
                let taught = self.taught(cert, dir, size);
                let (row, flow) = self.learning_rate(dir, size, taught);
                cert.learning_rate.push(row);
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
        let mut problems = Vec::new();
        // An address search's trial clears the device's table, then
        // teaches it the trial's addresses, whatever the learning setting.
        let flush = match spec.addresses {
            Some(_) => self.dut_hook("flush", test, &spec),
            None => None,
        };
        if let Some((run, why)) = &flush {
            if let Some(e) = self.hook_failed(run, why.clone(), test, &spec, &mut problems) {
                return Err(Halt::Error(e));
            }
        }
        let learn = match self.s.learning {
            _ if spec.addresses.is_some() => true,
            Learning::EveryTrial => true,
            Learning::Once => !self.learned,
            Learning::Off => false,
        };
        if learn {
            self.tester.learn(&spec)?;
            self.learned = true;
        }
        let before = self.dut_hook("before_trial", test, &spec);
        if let Some((run, why)) = &before {
            if let Some(e) = self.hook_failed(run, why.clone(), test, &spec, &mut problems) {
                return Err(Halt::Error(e));
            }
        }
        self.report(test, &spec, None);
        let mut t = self.tester.trial(&spec)?;
        t.problems
            .extend(t.learning.as_ref().and_then(LearningRun::refusal));
        let p99 = if test == "throughput" {
            self.s.max_p99_ns
        } else {
            None
        };
        t.addresses = spec.addresses;
        t.passed = match spec.addresses {
            Some(n) => address_passes(&t, n),
            None => passes(&t, tolerance, p99),
        };
        let after = self.dut_hook("after_trial", test, &spec);
        if let Some((run, why)) = &after {
            self.halt = self.hook_failed(run, why.clone(), test, &spec, &mut problems);
        }
        let runs = (flush.into_iter().chain(before).chain(after)).map(|(run, _)| run);
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
            "flush" => dut.flush.as_deref(),
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
        let when = match run.hook.as_str() {
            "before_trial" | "flush" => "before",
            _ => "after",
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
            // Frames of no stream a port checks arrived instead: the
            // device delivered them elsewhere (or the streams' lists do
            // not match the cabling).
            let foreign = match t.foreign {
                0 => String::new(),
                n => format!(
                    " ({n} frames arrived that are of no stream the receiving ports check: \
                     delivered to the wrong port, or rx[].streams does not match the cabling)"
                ),
            };
            return Err(crate::Error::Certify(format!(
                "port {} received nothing of the {} frames sent in the first trial \
                 ({} at {:.1} % of line, {}){foreign}: check the cabling and that the \
                 device under test forwards; stopping rather than searching down to zero",
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
            addresses: None,
            learning_fps: None,
        }
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

    /// The addresses the learning rate test teaches at `size` in `dir`:
    /// the settings', else the capacity this certification's address
    /// caching test found there, else the caching search's most.
    fn taught(&self, cert: &Certification, dir: Option<usize>, size: u32) -> u64 {
        let a = &self.s.addresses;
        let label = self.label(dir);
        let found = (cert.address_caching.iter())
            .find(|r| r.direction == label && r.frame_size == size)
            .and_then(|r| r.addresses);
        (a.taught.or(found))
            .or(a.max)
            .unwrap_or_else(|| self.tester.destinations())
            .max(1)
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
/// longest), with `row_dirs` rows per size and test
/// ([`row_directions`]).
pub fn planned_trials(s: &Settings, row_dirs: usize, line_bps: u64) -> u32 {
    let dirs = row_dirs as u32;
    let rows = s.sizes.len() as u32 * dirs;
    let per_size = |test: &str| -> u32 {
        match test {
            "throughput" => bisect_steps((s.upper_pct - s.lower_pct) / s.resolution_pct) + 2,
            "latency" => s.latency_trials,
            "loss" => (s.upper_pct / s.loss_step_pct).ceil() as u32,
            "recovery" => s.recovery_trials,
            // One size only: its trials spread over the rows of every size.
            "reset" => (s.reset_trials * dirs).div_ceil(rows.max(1)),
            "address_caching" | "learning_rate" => address_trials(s, test, line_bps),
            _ => {
                let big = s.sizes.iter().map(|&z| max_burst(s, line_bps, z)).max();
                s.back_to_back_trials * (bisect_steps(big.unwrap_or(1) as f64) + 1)
            }
        }
    };
    s.tests.iter().map(|t| per_size(t) * rows).sum()
}

/// The trials an address search of `test` takes at most (a try again
/// aside): the top, then the halvings to one address (caching) or to
/// the resolution and the least (learning rate).
pub fn address_trials(s: &Settings, test: &str, line_bps: u64) -> u32 {
    let a = &s.addresses;
    if test == "address_caching" {
        let most = a.max.unwrap_or(1 << 20);
        return bisect_steps((most - a.min.min(most) + 1) as f64) + 1;
    }
    let most = a
        .rate_max_fps
        .unwrap_or_else(|| fps_at(line_bps, 64, 100.0));
    bisect_steps((most - a.rate_min_fps) / a.rate_resolution_fps) + 2
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
        "address_caching" => {
            if let Some(r) = cert.address_caching.last_mut() {
                r.trials.push(t);
            }
        }
        "learning_rate" => {
            if let Some(r) = cert.learning_rate.last_mut() {
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
        "address_caching" => pop(&mut cert.address_caching, |r| {
            at(&r.direction, r.frame_size) && r.trials.is_empty()
        }),
        "learning_rate" => pop(&mut cert.learning_rate, |r| {
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
