//! The searches against simulated devices whose answer is known.

use super::*;
use crate::certify::criteria::{judge, Acceptance, LossBound};
use crate::certify::model::{
    BackToBackRow, Bound, DutHooks, HookRun, LatencyRow, LossCurve, NotMeasured, OnFailure,
    RateStep, Test, ThroughputRow, NO_RATE,
};
use crate::report::Percentiles;

const LINE: u64 = 10_000_000_000;

/// A hook run the simulator saw: its name, before which trial, its
/// environment.
type HookSeen = (String, usize, Vec<(String, String)>);

/// A simulated device and tester.
struct Sim {
    directions: Vec<String>,
    /// The device forwards everything up to this rate (% of line) and
    /// loses the excess above it.
    forwards_pct: f64,
    /// The tester cannot send above this rate (% of line).
    tester_pct: f64,
    /// The device buffers bursts of this many frames at line rate.
    buffer: u64,
    /// The tester cannot send bursts longer than this at line rate.
    tester_burst: u64,
    /// Frames reordered / corrupted in every trial.
    reorder: u64,
    corrupt: u64,
    /// The receiving port receives nothing.
    silent: bool,
    /// p99 latency = base + slope × rate, ns.
    latency: (f64, f64),
    /// `stopped()` answers true once this many trials ran.
    stop_after: Option<usize>,
    /// Sizes the device forwards up to another rate (% of line) than
    /// `forwards_pct`.
    forwards_by_size: Vec<(u32, f64)>,
    /// Trials (0-based, in the order they ran) that lose one frame more
    /// than the device does: noise.
    fail_at: Vec<usize>,
    /// The trials (numbered from 0) whose sender bunched its frames: they
    /// lose 7 frames and are tester-bound.
    bunched: Vec<usize>,
    specs: Vec<TrialSpec>,
    learned: u32,
    /// Before which trial (its index in `specs`) each learning ran.
    learned_before: Vec<usize>,
    /// Trials keep their latency distribution: 98 frames at half the
    /// p99, two at the p99, one more per spike.
    hist: bool,
    /// (trial index, ns): one frame of that trial took that long.
    spikes: Vec<(usize, u64)>,
    /// Trials of `trial_s` or longer (the confirmations, when the
    /// search's are shorter) lose one frame more than the device does.
    fail_long: Option<f64>,
    /// After a step, the device loses frames for this long, ns.
    recovers_ns: f64,
    /// A reset stops forwarding for this long, seconds; with `reset_more`
    /// frames lost besides.
    reset_gap_s: f64,
    reset_more: u64,
    /// Each restabilise wait, seconds, and before which trial.
    rests: Vec<(f64, usize)>,
    /// Each hook run: its name, before which trial (its index in
    /// `specs`), its environment.
    hooks: Vec<HookSeen>,
    /// (hook, trial index): that hook exits 7 around that trial.
    hook_fails: Vec<(String, usize)>,
    /// (trial index, frames): the learning before that trial had that
    /// many of its 300 frames refused.
    learning_refused: Vec<(usize, u64)>,
    /// The device's address table holds this many addresses; the test
    /// frames to the rest are flooded (one foreign frame each).
    table: u64,
    /// The device learns addresses at most this fast, frames/s; faster,
    /// it misses the share above it (flooded).
    learns_fps: f64,
    /// The fewest destination addresses of a stream sent.
    destinations: u64,
    /// The tester sends learning frames at most this fast, frames/s.
    sends_fps: f64,
    /// (trial index, frames/s): the learning before that trial went at
    /// that rate, whatever was asked.
    sent_at: Vec<(usize, f64)>,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            directions: vec!["p0 → p1".into()],
            forwards_pct: 100.0,
            tester_pct: 100.0,
            buffer: u64::MAX,
            tester_burst: u64::MAX,
            reorder: 0,
            corrupt: 0,
            silent: false,
            latency: (1000.0, 0.0),
            stop_after: None,
            forwards_by_size: Vec::new(),
            fail_at: Vec::new(),
            bunched: Vec::new(),
            specs: Vec::new(),
            learned: 0,
            learned_before: Vec::new(),
            rests: Vec::new(),
            hooks: Vec::new(),
            hook_fails: Vec::new(),
            learning_refused: Vec::new(),
            hist: false,
            spikes: Vec::new(),
            fail_long: None,
            recovers_ns: 0.0,
            reset_gap_s: 0.0,
            reset_more: 0,
            table: u64::MAX,
            learns_fps: f64::INFINITY,
            destinations: 4096,
            sends_fps: f64::INFINITY,
            sent_at: Vec::new(),
        }
    }
}

impl Tester for Sim {
    fn directions(&self) -> Vec<String> {
        self.directions.clone()
    }
    fn line_bps(&self) -> u64 {
        LINE
    }
    fn learn(&mut self, _spec: &TrialSpec) -> crate::Result<()> {
        self.learned += 1;
        self.learned_before.push(self.specs.len());
        Ok(())
    }
    fn rest(&mut self, seconds: f64) {
        self.rests.push((seconds, self.specs.len()));
    }
    fn hook(
        &mut self,
        hook: &str,
        command: &str,
        _timeout_s: f64,
        env: &[(&str, String)],
    ) -> HookRun {
        // An after_trial hook runs once its trial is in `specs`.
        let at = match hook {
            "after_trial" => self.specs.len() - 1,
            _ => self.specs.len(),
        };
        let env = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        self.hooks.push((hook.to_string(), at, env));
        let fails = self.hook_fails.iter().any(|(h, i)| h == hook && *i == at);
        HookRun {
            hook: hook.into(),
            command: command.into(),
            status: Some(if fails { 7 } else { 0 }),
            output: format!("{hook} {at}\n"),
            ..HookRun::default()
        }
    }
    fn trial(&mut self, spec: &TrialSpec) -> crate::Result<Trial> {
        self.specs.push(spec.clone());
        let sent_pct = spec.rate_pct.min(self.tester_pct);
        let (tx, lost, tester_bound) = match spec.burst {
            Some(n) => {
                let tx = n.min(self.tester_burst);
                (tx, tx.saturating_sub(self.buffer), n > self.tester_burst)
            }
            None => {
                let tx = (fps_at(LINE, spec.frame_size, sent_pct) * spec.duration_s) as u64;
                let forwards = (self.forwards_by_size.iter())
                    .find(|(size, _)| *size == spec.frame_size)
                    .map_or(self.forwards_pct, |&(_, pct)| pct);
                let excess = (sent_pct - forwards).max(0.0) / sent_pct;
                (
                    tx,
                    (tx as f64 * excess).round() as u64,
                    spec.rate_pct > self.tester_pct,
                )
            }
        };
        let long = spec.burst.is_none() && self.fail_long.is_some_and(|d| spec.duration_s >= d);
        let noise = u64::from(self.fail_at.contains(&(self.specs.len() - 1)) || long);
        let lost = (lost + noise).min(tx);
        let rx = if self.silent {
            0
        } else {
            tx - lost - self.corrupt
        };
        let lost = if self.silent { tx } else { lost };
        let fps = fps_at(LINE, spec.frame_size, sent_pct);
        let reset_lost = match spec.reset_at_s {
            Some(_) => (self.reset_gap_s * fps).round() as u64 + self.reset_more,
            None => 0,
        };
        let (rx, lost) = (rx - reset_lost, lost + reset_lost);
        let bunched = self.bunched.contains(&(self.specs.len() - 1));
        let (rx, lost, tester_bound) = if bunched {
            (rx - 7, lost + 7, true)
        } else {
            (rx, lost, tester_bound)
        };
        // An address trial: every address unknown to the device floods
        // its frames (two per address) to the monitoring port.
        let unknown = match (spec.addresses, spec.learning_fps) {
            (Some(n), Some(fps)) => {
                let missed = (n as f64 * (1.0 - self.learns_fps / fps)).ceil().max(0.0) as u64;
                n.saturating_sub(self.table).max(missed)
            }
            _ => 0,
        };
        let p99 = self.latency.0 + self.latency.1 * spec.rate_pct;
        let (latency, latency_hist) = if self.hist {
            let mut h = crate::report::ns_histogram();
            h.record_n((p99 / 2.0) as u64, 98).unwrap();
            h.record_n(p99 as u64, 2).unwrap();
            let me = self.specs.len() - 1;
            for &(_, ns) in self.spikes.iter().filter(|(i, _)| *i == me) {
                h.record(ns).unwrap();
            }
            (Percentiles::from_ticks(&h, 1_000_000_000), Some(h))
        } else {
            let l = Percentiles {
                count: rx,
                p99_ns: p99,
                mean_ns: p99 / 2.0,
                stddev_ns: 10.0,
                ..Percentiles::default()
            };
            (l, None)
        };
        Ok(Trial {
            direction: spec
                .direction
                .map_or(AGGREGATE.into(), |d| self.directions[d].clone()),
            frame_size: spec.frame_size,
            offered_pct: spec.rate_pct,
            sent_pct,
            tx_frames: tx,
            rx_frames: rx,
            lost,
            loss_pct: if tx == 0 {
                0.0
            } else {
                lost as f64 * 100.0 / tx as f64
            },
            reordered: self.reorder,
            corrupt: if self.silent { 0 } else { self.corrupt },
            latency: Some(latency),
            latency_hist,
            recovery_ns: spec.step.filter(|_| lost > 0).map(|_| self.recovers_ns),
            gap_max_ns: Some(if spec.reset_at_s.is_some() {
                self.reset_gap_s * 1e9
            } else {
                1e9 / fps
            }),
            duration_s: spec.duration_s,
            tester_bound,
            foreign: 2 * unknown,
            learning: (self.learned_before.last() == Some(&(self.specs.len() - 1))).then(|| {
                let refused = (self.learning_refused.iter())
                    .find(|(i, _)| *i == self.specs.len() - 1)
                    .map_or(0, |&(_, n)| n);
                crate::certify::model::LearningRun {
                    frames: 300 - refused,
                    refused,
                    paced_fps: spec.learning_fps,
                    sent_fps: (self.sent_at.iter())
                        .find(|(i, _)| *i == self.specs.len() - 1)
                        .map(|&(_, f)| f)
                        .or(spec.learning_fps.map(|f| f.min(self.sends_fps))),
                    ..Default::default()
                }
            }),
            ..Trial::default()
        })
    }
    fn destinations(&self) -> u64 {
        self.destinations
    }
    fn rx_port(&self, direction: Option<usize>) -> String {
        match direction {
            Some(0) => "p1".into(),
            Some(_) => "p0".into(),
            None => "p0, p1".into(),
        }
    }
    fn stopped(&self) -> bool {
        self.stop_after.is_some_and(|n| self.specs.len() >= n)
    }
}

/// Short settings for one test on one size.
fn settings(test: &str) -> Settings {
    Settings {
        tests: vec![test.into()],
        sizes: vec![1518],
        trial_s: 1.0,
        settle_s: 0.5,
        latency_trials: 3,
        latency_trial_s: 1.0,
        back_to_back_trials: 3,
        back_to_back_max_s: 0.01,
        ..Settings::default()
    }
}

fn certify(sim: &mut Sim, s: &Settings) -> (Certification, crate::Result<()>) {
    let mut cert = blank(s, sim.directions(), LINE);
    let mut steps = 0;
    let mut started = 0;
    let r = run(sim, s, &mut cert, &mut |st: &Step| {
        if st.trial.is_none() {
            started += 1;
            assert_eq!(st.done, steps, "a trial starts after the last one ended");
            return;
        }
        steps += 1;
        assert_eq!(started, steps, "every trial that ends was started");
        assert_eq!(st.done, steps);
        assert!(st.planned >= st.done);
    });
    (cert, r)
}

#[test]
fn a_lossless_device_passes_at_the_upper_bound_and_is_confirmed() {
    let mut sim = Sim::new();
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    assert_eq!(row.rate_pct, 100.0);
    assert_eq!(row.bound, Bound::Line);
    assert_eq!(row.trial_count, 2);
    assert_eq!(row.trials.len(), 2);
    assert!(row.trials.iter().all(|t| t.passed));
    assert!(cert.complete && row.complete);
    assert_eq!(sim.learned, 2, "learning frames before each trial");
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    assert_eq!(rates, [100.0, 100.0]);
    assert_eq!(row.fps, fps_at(LINE, 1518, 100.0));
    assert_eq!(row.l1_bps, LINE as f64);
    assert_eq!(row.l2_bps, row.fps * 1518.0 * 8.0);
}

#[test]
fn a_device_that_drops_above_r_is_found_below_r_within_the_resolution() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    // 100 F, 50 F, 25 P, 37.5 P, 43.75 F, 40.625 P, 42.1875 F, 41.40625 P,
    // 41.796875 P, 41.9921875 P, 42.08984375 F: the span is 0.098 % < 0.1 %.
    assert_eq!(row.rate_pct, 41.9921875);
    assert_eq!(row.bound, Bound::Device);
    assert_eq!(row.trial_count, 12);
    let last = row.trials.last().unwrap();
    assert_eq!(last.offered_pct, 41.9921875, "the confirmation");
    assert!(last.passed);
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    assert_eq!(&rates[..5], &[100.0, 50.0, 25.0, 37.5, 43.75]);
}

#[test]
fn a_tolerance_gives_the_partial_drop_rate() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    let mut s = settings("throughput");
    s.loss_tolerance_pct = 1.0;
    s.resolution_pct = 0.01;
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    // Loss ≤ 1 % up to 42 / 0.99 = 42.4242... % of line.
    let rate = cert.throughput[0].rate_pct;
    assert!(rate > 42.0 / 0.99 - 0.01 && rate <= 42.0 / 0.99, "{rate}");
    assert!(cert.throughput[0]
        .trials
        .iter()
        .any(|t| t.passed && t.lost > 0));
}

#[test]
fn a_p99_bound_fails_a_trial_like_a_loss() {
    let mut sim = Sim::new();
    sim.latency = (1000.0, 100.0);
    let mut s = settings("throughput");
    s.max_p99_ns = Some(5000.0);
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &cert.throughput[0];
    assert!(
        row.rate_pct > 39.9 && row.rate_pct <= 40.0,
        "{}",
        row.rate_pct
    );
    assert_eq!(row.bound, Bound::Device);
    assert!(row.trials.iter().all(|t| t.lost == 0));
}

#[test]
fn a_tester_that_cannot_reach_the_rate_is_named_not_the_device() {
    let mut sim = Sim::new();
    sim.tester_pct = 30.0;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    assert!(
        row.rate_pct > 29.9 && row.rate_pct <= 30.0,
        "{}",
        row.rate_pct
    );
    assert_eq!(row.bound, Bound::Tester);
    for t in &row.trials {
        assert_eq!(t.tester_bound, t.offered_pct > 30.0);
        assert_eq!(t.lost, 0, "the device lost nothing");
        assert_eq!(t.passed, !t.tester_bound);
    }
}

#[test]
fn a_trial_the_sender_bunched_is_tried_again_at_its_rate() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    sim.bunched = vec![3];
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    // As without the bunching, with 37.5 % twice: the first lost 7 frames
    // to the sender's catch-up, the second passed and decided.
    assert_eq!(row.rate_pct, 41.9921875);
    assert_eq!(row.bound, Bound::Device);
    assert_eq!(row.trial_count, 13);
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    assert_eq!(&rates[..6], &[100.0, 50.0, 25.0, 37.5, 37.5, 43.75]);
    let (first, again) = (&row.trials[3], &row.trials[4]);
    assert_eq!(
        (first.lost, first.tester_bound, first.passed),
        (7, true, false)
    );
    assert_eq!(
        (again.lost, again.tester_bound, again.passed),
        (0, false, true)
    );
}

#[test]
fn a_rate_the_sender_bunched_twice_is_the_testers_failure() {
    let mut sim = Sim::new();
    sim.bunched = vec![0, 1];
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    // 100 % lost 7 frames to the sender twice; every lower rate passed:
    // 50, 75, 87.5, ... up to 99.90234375 and its confirmation.
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    assert_eq!(&rates[..5], &[100.0, 100.0, 50.0, 75.0, 87.5]);
    assert_eq!(row.rate_pct, 99.90234375);
    assert_eq!(
        row.bound,
        Bound::Tester,
        "the nearest failure was the tester's"
    );
    assert_eq!(row.trial_count, 13);
    assert!(row.trials[2..].iter().all(|t| t.passed));
}

#[test]
fn reordering_is_reported_and_corruption_fails_every_trial() {
    let mut sim = Sim::new();
    sim.reorder = 5;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    assert_eq!(cert.throughput[0].rate_pct, 100.0);
    assert!(cert.throughput[0].trials.iter().all(|t| t.reordered == 5));

    let mut sim = Sim::new();
    sim.corrupt = 1;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    assert_eq!(row.rate_pct, 0.0);
    assert_eq!(row.bound, Bound::Device);
    assert!(row.trials.iter().all(|t| !t.passed && t.corrupt == 1));
    // No rate passed: no confirmation; 100, then halvings to 0.098 %.
    assert_eq!(row.trial_count, 11);
}

#[test]
fn a_silent_port_stops_after_the_first_trial_naming_it() {
    let mut sim = Sim::new();
    sim.silent = true;
    let (cert, r) = certify(&mut sim, &Settings::default());
    let e = r.unwrap_err().to_string();
    assert!(e.contains("port p1 received nothing"), "{e}");
    assert!(!e.contains("of no stream"), "nothing foreign arrived: {e}");
    assert!(e.contains("1518 B") || e.contains("64 B"), "{e}");
    assert_eq!(sim.specs.len(), 1);
    assert!(!cert.complete);
    assert_eq!(cert.stopped_by.as_deref(), Some(e.as_str()));
    assert_eq!(cert.throughput.len(), 1);
    assert_eq!(cert.throughput[0].trials.len(), 1);
    assert!(!cert.throughput[0].complete);
}

#[test]
fn a_signal_mid_search_keeps_the_trials_so_far_marked_incomplete() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    sim.stop_after = Some(3);
    let mut s = settings("throughput");
    s.tests.push("loss".into());
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    assert!(!cert.complete);
    assert_eq!(cert.stopped_by.as_deref(), Some("interrupted"));
    assert_eq!(sim.specs.len(), 3);
    let row = &cert.throughput[0];
    assert_eq!(row.trials.len(), 3);
    assert!(!row.complete);
    assert_eq!(row.rate_pct, 25.0, "the best so far");
    assert!(cert.loss.is_empty(), "the next test never started");
    assert_eq!(
        cert.not_measured,
        [NotMeasured {
            test: "loss".into(),
            direction: "p0 → p1".into(),
            frame_size: 1518,
            reason: "not run: the certification stopped before it: interrupted".into(),
        }]
    );
}

/// A signal between two rows leaves no empty row: the row it stopped
/// before is not measured, as is every test after it.
#[test]
fn a_signal_between_rows_leaves_no_empty_row_and_lists_what_did_not_run() {
    let mut sim = Sim::new();
    sim.stop_after = Some(2);
    let mut s = settings("throughput");
    s.tests.push("latency".into());
    s.sizes = vec![512, 1518];
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let sizes: Vec<u32> = cert.throughput.iter().map(|r| r.frame_size).collect();
    assert_eq!(sizes, [512], "the upper bound and its confirmation");
    assert_eq!(cert.throughput[0].trials.len(), 2);
    let not_run = "not run: the certification stopped before it: interrupted";
    let got: Vec<(&str, u32, &str)> = (cert.not_measured.iter())
        .map(|n| (n.test.as_str(), n.frame_size, n.reason.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("throughput", 1518, not_run),
            ("latency", 512, not_run),
            ("latency", 1518, not_run),
        ]
    );
}

/// An error keeps the trial it ended in (a silent port's), and drops a
/// row left without any.
#[test]
fn drop_empty_pops_only_the_empty_row_of_its_test_direction_and_size() {
    let mut c = blank(&settings("throughput"), vec!["a".into()], LINE);
    let row = |size: u32, trials: usize| ThroughputRow {
        direction: "a".into(),
        frame_size: size,
        rate_pct: 0.0,
        l1_bps: 0.0,
        l2_bps: 0.0,
        fps: 0.0,
        bound: Bound::Device,
        trial_count: trials as u32,
        trials: vec![Trial::default(); trials],
        complete: false,
    };
    c.throughput = vec![row(64, 0), row(1518, 1)];
    drop_empty(&mut c, "throughput", "a", 1518);
    assert_eq!(c.throughput.len(), 2, "it has a trial");
    c.throughput.swap(0, 1);
    drop_empty(&mut c, "throughput", "b", 64);
    drop_empty(&mut c, "throughput", "a", 1518);
    assert_eq!(c.throughput.len(), 2, "another direction or size");
    drop_empty(&mut c, "throughput", "a", 64);
    assert_eq!(c.throughput.len(), 1);
    assert_eq!(c.throughput[0].frame_size, 1518);
    for test in ["latency", "loss", "back_to_back"] {
        drop_empty(&mut c, test, "a", 1518);
    }
    assert_eq!(c.throughput.len(), 1, "other tests' rows are left alone");
    // Each test's empty row is its own: dropping one leaves the others.
    c.latency = vec![LatencyRow {
        direction: "a".into(),
        frame_size: 1518,
        rate_pct: 0.0,
        summary: Percentiles::default(),
        jitter_ns: 0.0,
        trials: Vec::new(),
        complete: false,
        counted: 0,
        histogram: Vec::new(),
        baseline: None,
        device: None,
    }];
    c.loss = vec![LossCurve {
        direction: "a".into(),
        frame_size: 1518,
        points: Vec::new(),
        complete: false,
    }];
    c.back_to_back = vec![BackToBackRow {
        direction: "a".into(),
        frame_size: 1518,
        bursts: Vec::new(),
        mean_frames: 0.0,
        stddev_frames: 0.0,
        mean_s: 0.0,
        corrected_s: None,
        throughput_fps: None,
        at_limit: false,
        trials: Vec::new(),
        bound: Bound::Device,
        complete: false,
    }];
    let lens = |c: &Certification| (c.latency.len(), c.loss.len(), c.back_to_back.len());
    drop_empty(&mut c, "latency", "a", 1518);
    assert_eq!(lens(&c), (0, 1, 1));
    drop_empty(&mut c, "loss", "a", 1518);
    assert_eq!(lens(&c), (0, 0, 1));
    drop_empty(&mut c, "back_to_back", "a", 1518);
    assert_eq!(lens(&c), (0, 0, 0));
    assert_eq!(c.throughput.len(), 1);
}

#[test]
fn the_loss_curve_stops_after_two_loss_free_steps() {
    let mut sim = Sim::new();
    sim.forwards_pct = 75.0;
    let (cert, r) = certify(&mut sim, &settings("loss"));
    r.unwrap();
    let c = &cert.loss[0];
    let rates: Vec<f64> = c.points.iter().map(|p| p.rate_pct).collect();
    assert_eq!(rates, [100.0, 90.0, 80.0, 70.0, 60.0]);
    let loss: Vec<bool> = c.points.iter().map(|p| p.trial.lost > 0).collect();
    assert_eq!(loss, [true, true, true, false, false]);
    assert!((c.points[0].loss_pct - 25.0).abs() < 0.01);
    assert!(c.complete);

    let mut sim = Sim::new();
    let (cert, _) = certify(&mut sim, &settings("loss"));
    assert_eq!(cert.loss[0].points.len(), 2);
}

#[test]
fn the_loss_curve_ends_at_the_lowest_step_above_zero() {
    let mut sim = Sim::new();
    sim.forwards_pct = 5.0;
    let mut s = settings("loss");
    s.loss_step_pct = 25.0;
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let rates: Vec<f64> = cert.loss[0].points.iter().map(|p| p.rate_pct).collect();
    assert_eq!(rates, [100.0, 75.0, 50.0, 25.0]);
}

#[test]
fn back_to_back_finds_the_buffer_exactly_and_averages_the_trials() {
    let mut sim = Sim::new();
    sim.buffer = 300;
    let (cert, r) = certify(&mut sim, &settings("back_to_back"));
    r.unwrap();
    let row = &cert.back_to_back[0];
    assert_eq!(row.bursts, [300, 300, 300]);
    assert_eq!(row.mean_frames, 300.0);
    assert!(!row.at_limit);
    assert_eq!(row.bound, Bound::Device);
    assert_eq!(row.mean_s, 300.0 / fps_at(LINE, 1518, 100.0));
    assert!(sim
        .specs
        .iter()
        .all(|s| s.rate_pct == 100.0 && s.burst.is_some()));
    let max = max_burst(&settings("back_to_back"), LINE, 1518);
    assert_eq!(max, 8128, "0.01 s of 1518-byte frames at 10 Gbit/s");
    assert_eq!(sim.specs[0].burst, Some(max));
}

#[test]
fn back_to_back_at_its_limit_and_bound_by_the_tester() {
    let mut sim = Sim::new();
    let (cert, _) = certify(&mut sim, &settings("back_to_back"));
    let row = &cert.back_to_back[0];
    let max = max_burst(&settings("back_to_back"), LINE, 1518);
    assert_eq!(row.bursts, [max; 3]);
    assert!(row.at_limit);
    assert_eq!(row.bound, Bound::Line);
    assert_eq!(row.trials.len(), 3);

    let mut sim = Sim::new();
    sim.tester_burst = 1000;
    let (cert, _) = certify(&mut sim, &settings("back_to_back"));
    let row = &cert.back_to_back[0];
    assert_eq!(row.bursts, [1000; 3]);
    assert_eq!(row.bound, Bound::Tester);
}

#[test]
fn latency_runs_its_trials_at_the_throughput_rate() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    sim.latency = (1000.0, 10.0);
    let mut s = settings("throughput");
    s.tests.push("latency".into());
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let rate = cert.throughput[0].rate_pct;
    let row = &cert.latency[0];
    assert_eq!(row.rate_pct, rate);
    assert_eq!(row.trials.len(), 3);
    let lat: Vec<&TrialSpec> = sim.specs.iter().skip(12).collect();
    assert_eq!(lat.len(), 3);
    assert!(lat
        .iter()
        .all(|s| s.rate_pct == rate && s.duration_s == 1.0));
    assert_eq!(row.summary.p99_ns, 1000.0 + 10.0 * rate);
    assert_eq!(row.jitter_ns, 10.0);
    assert_eq!(
        row.summary.count,
        row.trials.iter().map(|t| t.rx_frames).sum::<u64>()
    );
}

#[test]
fn latency_without_throughput_runs_at_the_upper_bound() {
    let mut sim = Sim::new();
    let mut s = settings("latency");
    s.upper_pct = 80.0;
    let (cert, _) = certify(&mut sim, &s);
    assert_eq!(cert.latency[0].rate_pct, 80.0);
    assert!(cert.throughput.is_empty());
}

#[test]
fn bidirectional_rows_per_direction_then_aggregate() {
    let mut sim = Sim::new();
    sim.directions = vec!["p0 → p1".into(), "p1 → p0".into()];
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let dirs: Vec<&str> = cert
        .throughput
        .iter()
        .map(|r| r.direction.as_str())
        .collect();
    assert_eq!(dirs, ["p0 → p1", "p1 → p0", "aggregate"]);
    let sent: Vec<Option<usize>> = sim.specs.iter().map(|s| s.direction).collect();
    assert_eq!(sent, [Some(0), Some(0), Some(1), Some(1), None, None]);
}

#[test]
fn learning_comes_before_every_trial_once_or_never_as_asked() {
    let mut sim = Sim::new();
    let mut s = settings("loss");
    s.sizes = vec![64, 1518];
    certify(&mut sim, &s).1.unwrap();
    let n = sim.specs.len();
    assert!(n >= 4);
    assert_eq!(
        sim.learned as usize, n,
        "RFC 2544's default: before every trial"
    );
    assert_eq!(sim.learned_before, (0..n).collect::<Vec<_>>());
    let mut sim = Sim::new();
    s.learning = Learning::Once;
    certify(&mut sim, &s).1.unwrap();
    assert_eq!((sim.learned, sim.learned_before.clone()), (1, vec![0]));
    let mut sim = Sim::new();
    s.learning = Learning::Off;
    certify(&mut sim, &s).1.unwrap();
    assert_eq!(sim.learned, 0);
}

#[test]
fn the_device_restabilises_between_trials_not_before_the_first() {
    let mut sim = Sim::new();
    let s = Settings {
        restabilise_s: 5.0,
        ..settings("loss")
    };
    certify(&mut sim, &s).1.unwrap();
    let n = sim.specs.len();
    assert_eq!(
        sim.rests,
        (1..n).map(|i| (5.0, i)).collect::<Vec<_>>(),
        "5 s before every trial but the first"
    );
    let mut sim = Sim::new();
    let s = Settings {
        restabilise_s: 0.0,
        ..settings("loss")
    };
    certify(&mut sim, &s).1.unwrap();
    assert!(sim.rests.is_empty());
}

#[test]
fn every_trial_waits_the_settle_time() {
    let mut sim = Sim::new();
    sim.forwards_pct = 50.0;
    let s = Settings {
        tests: vec!["throughput".into(), "loss".into(), "back_to_back".into()],
        ..settings("throughput")
    };
    certify(&mut sim, &s).1.unwrap();
    assert!(sim
        .specs
        .iter()
        .all(|t| t.settle_s == 0.5 && t.frame_size == 1518));
}

#[test]
fn planned_trials_counts_each_search_at_its_longest() {
    let s = settings("throughput");
    // log2(100 / 0.1) = 9.97 → 10 halvings, the upper bound and the confirmation.
    assert_eq!(planned_trials(&s, 1, LINE), 12);
    assert_eq!(planned_trials(&s, 3, LINE), 36);
    let s = settings("loss");
    assert_eq!(planned_trials(&s, 1, LINE), 10);
    let s = settings("back_to_back");
    // 8128 frames: 13 halvings and the longest burst, 3 times.
    assert_eq!(planned_trials(&s, 1, LINE), 3 * 14);
    assert_eq!(planned_trials(&settings("latency"), 1, LINE), 3);
}

/// The throughput search spans the bounds only: a lower bound above 0
/// takes halvings off.
#[test]
fn planned_trials_count_the_span_between_the_bounds() {
    let mut s = settings("throughput");
    s.lower_pct = 50.0;
    // log2(50 / 0.1) = 8.97 → 9 halvings, the upper bound and the confirmation.
    assert_eq!(planned_trials(&s, 1, LINE), 11);
    (s.lower_pct, s.upper_pct, s.resolution_pct) = (60.0, 100.0, 5.0);
    // 40 / 5 = 8 → 3 halvings.
    assert_eq!(planned_trials(&s, 1, LINE), 5);
    assert_eq!(planned_trials(&s, 3, LINE), 15);
    s.lower_pct = 96.0;
    assert_eq!(
        planned_trials(&s, 1, LINE),
        2,
        "the span within the resolution"
    );
    let mut s = settings("loss");
    s.lower_pct = 50.0;
    assert_eq!(planned_trials(&s, 1, LINE), 10, "loss steps from the top");
}

#[test]
fn passes_needs_frames_no_corruption_loss_within_and_latency_within() {
    let t = Trial {
        tx_frames: 100,
        rx_frames: 99,
        lost: 1,
        loss_pct: 1.0,
        latency: Some(Percentiles {
            p99_ns: 10.0,
            ..Percentiles::default()
        }),
        ..Trial::default()
    };
    assert!(passes(&t, 1.0, None));
    assert!(!passes(&t, 0.5, None));
    assert!(passes(&t, 1.0, Some(10.0)));
    assert!(!passes(&t, 1.0, Some(9.9)));
    assert!(!passes(
        &Trial {
            latency: None,
            ..t.clone()
        },
        1.0,
        Some(10.0)
    ));
    assert!(!passes(
        &Trial {
            corrupt: 1,
            ..t.clone()
        },
        1.0,
        None
    ));
    assert!(!passes(
        &Trial {
            tester_bound: true,
            ..t.clone()
        },
        1.0,
        None
    ));
    assert!(!passes(&Trial { tx_frames: 0, ..t }, 1.0, None));
}

#[test]
fn criteria_judge_each_size_and_fail_what_was_not_measured() {
    let mut sim = Sim::new();
    sim.forwards_pct = 75.0;
    let mut s = settings("throughput");
    s.tests = ["throughput", "latency", "loss"].map(String::from).to_vec();
    s.sizes = vec![64, 1518];
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let list = [
        Acceptance {
            sizes: vec![1518],
            min_throughput_pct: Some(70.0),
            max_latency_ns: Some(600.0),
            max_loss: Some(LossBound {
                rate_pct: 80.0,
                loss_pct: 5.0,
            }),
        },
        Acceptance {
            min_throughput_pct: Some(80.0),
            max_loss: Some(LossBound {
                rate_pct: 65.0,
                loss_pct: 0.0,
            }),
            ..Acceptance::default()
        },
    ];
    let c = judge(&cert, &list);
    let got: Vec<(&str, u32, bool)> = c
        .iter()
        .map(|c| (c.test.as_str(), c.frame_size, c.passed))
        .collect();
    assert_eq!(
        got,
        [
            ("throughput", 1518, true),
            ("latency", 1518, true),
            ("loss", 1518, false),
            ("throughput", 64, false),
            ("loss", 64, true),
            ("throughput", 1518, false),
            ("loss", 1518, true),
        ]
    );
    assert_eq!(c[2].measured, "6.25 % lost");
    assert_eq!(
        c[4].measured, "0 % lost",
        "65 % lies below 70 %, a loss-free step"
    );
    let none = judge(&blank(&s, sim.directions(), LINE), &list[..1]);
    assert!(none
        .iter()
        .all(|c| !c.passed && c.measured == "not measured"));
}

/// [`Sim`] whose trials of index `fail` (0-based) lose one frame more than
/// the device would: a confirmation lost to noise.
fn sim_failing(fail: &[usize]) -> Sim {
    Sim {
        fail_at: fail.to_vec(),
        ..Sim::new()
    }
}

#[test]
fn the_lower_bound_is_tried_when_nothing_above_it_passed() {
    let mut sim = Sim::new();
    sim.forwards_pct = 30.0;
    let mut s = settings("throughput");
    (s.lower_pct, s.resolution_pct) = (50.0, 25.0);
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    // 100 F, 75 F (the span is the resolution), the lower bound F.
    assert_eq!(rates, [100.0, 75.0, 50.0]);
    let row = &cert.throughput[0];
    assert_eq!(
        (row.rate_pct, row.bound, row.trial_count),
        (0.0, Bound::Device, 3)
    );
}

#[test]
fn a_confirmation_that_fails_at_the_lower_bound_is_not_tried_again() {
    // 100 F, 75 F, 50 P, its confirmation F (noise): the search below it
    // has nowhere left to go, and no rate stands.
    let mut sim = sim_failing(&[3]);
    sim.forwards_pct = 60.0;
    let mut s = settings("throughput");
    (s.lower_pct, s.resolution_pct) = (50.0, 25.0);
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let rates: Vec<f64> = sim.specs.iter().map(|s| s.rate_pct).collect();
    assert_eq!(rates, [100.0, 75.0, 50.0, 50.0]);
    let row = &cert.throughput[0];
    assert_eq!((row.rate_pct, row.trial_count), (0.0, 4));
    assert!(row.trials[2].passed && !row.trials[3].passed);
}

#[test]
fn a_failed_confirmation_searches_again_below_it() {
    // forwards 42 %: ... the first confirmation (trial 12) fails; the
    // search starts again from the lower bound below that rate.
    let mut sim = sim_failing(&[11]);
    sim.forwards_pct = 42.0;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let row = &cert.throughput[0];
    let first = 41.9921875;
    assert_eq!(row.trials[11].offered_pct, first);
    assert!(!row.trials[11].passed);
    // Halving [0, 41.99...] to 0.1 %: 9 more trials, then the confirmation.
    assert_eq!(row.trials[12].offered_pct, first / 2.0);
    assert!(
        row.rate_pct < first && row.rate_pct > first - 0.1,
        "{}",
        row.rate_pct
    );
    let last = row.trials.last().unwrap();
    assert_eq!((last.offered_pct, last.passed), (row.rate_pct, true));
    assert_eq!(row.trial_count as usize, row.trials.len());
    assert_eq!(row.bound, Bound::Device);
}

#[test]
fn latency_runs_at_each_size_s_own_throughput() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    sim.forwards_by_size = vec![(64, 30.0)];
    let mut s = settings("throughput");
    s.tests.push("latency".into());
    s.sizes = vec![64, 1518];
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let tput: Vec<(u32, f64)> = (cert.throughput.iter())
        .map(|r| (r.frame_size, r.rate_pct))
        .collect();
    let lat: Vec<(u32, f64)> = (cert.latency.iter())
        .map(|r| (r.frame_size, r.rate_pct))
        .collect();
    assert_eq!(lat, tput);
    assert!(tput[0].1 < 30.0 && tput[1].1 > 41.9, "{tput:?}");
}

#[test]
fn no_latency_without_a_throughput_rate() {
    let mut sim = Sim::new();
    sim.corrupt = 1;
    let mut s = settings("throughput");
    s.tests.push("latency".into());
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    assert_eq!(cert.throughput[0].rate_pct, 0.0);
    assert!(cert.latency.is_empty());
    assert_eq!(sim.specs.len(), 11, "the throughput search only");
    let reason = "no throughput rate: none of the 11 throughput trial(s) at this size passed";
    assert_eq!(
        cert.not_measured,
        [NotMeasured {
            test: "latency".into(),
            direction: "p0 → p1".into(),
            frame_size: 1518,
            reason: reason.into(),
        }]
    );
    assert!(reason.starts_with(NO_RATE));
    // A criterion on the latency not measured names why: the entry of its
    // own test, direction and size, not one that shares only some of them
    // (listed first here, so that a looser match would find them).
    let mut decoyed = cert.clone();
    let decoy = |test: &str, direction: &str, frame_size: u32| NotMeasured {
        test: test.into(),
        direction: direction.into(),
        frame_size,
        reason: format!("decoy {test} {direction} {frame_size}"),
    };
    decoyed.not_measured.splice(
        0..0,
        [
            decoy("latency", "p1 → p0", 1518),
            decoy("throughput", "p0 → p1", 1518),
            decoy("latency", "p0 → p1", 64),
        ],
    );
    let list = [Acceptance {
        max_latency_ns: Some(600.0),
        ..Acceptance::default()
    }];
    for c in [&cert, &decoyed] {
        let k = judge(c, &list);
        assert_eq!(k.len(), 1);
        assert!(!k[0].passed);
        assert_eq!(k[0].measured, format!("not measured: {reason}"));
    }
    assert_eq!(
        crate::certify::format::nothing_measured(&cert, Test::Latency).as_deref(),
        Some(
            "No latency measured: no frame size had a throughput rate (p0 → p1 1518 B: \
             none of the 11 throughput trial(s) at this size passed)."
        )
    );
}

#[test]
fn no_rate_for_the_tester_s_failures_says_they_were_the_tester_s() {
    let mut sim = Sim::new();
    sim.tester_pct = 0.0;
    let mut s = settings("throughput");
    s.tests.push("latency".into());
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &cert.throughput[0];
    assert_eq!((row.rate_pct, row.bound), (0.0, Bound::Tester));
    let n = row.trials.len();
    assert_eq!(n, sim.specs.len());
    assert_eq!(cert.not_measured.len(), 1);
    assert_eq!(
        cert.not_measured[0].reason,
        format!(
            "no throughput rate: none of the {n} throughput trial(s) at this size passed, \
             the failures the tester's, not the device's"
        )
    );
}

/// Latency trials that timestamped nothing leave a row without a figure:
/// not measured, and why.
#[test]
fn latency_without_a_timestamp_is_not_measured() {
    let mut sim = Sim::new();
    let mut s = settings("latency");
    s.tests.insert(0, "throughput".into());
    let (mut cert, r) = certify(&mut sim, &s);
    r.unwrap();
    assert!(cert.not_measured.is_empty(), "{:?}", cert.not_measured);
    cert.latency[0].summary.count = 0;
    assert_eq!(
        not_measured(&cert),
        [NotMeasured {
            test: "latency".into(),
            direction: "p0 → p1".into(),
            frame_size: 1518,
            reason: "no latency figure: the receiver timestamped none of the frames of its 3 \
                     trial(s)"
                .into(),
        }]
    );
    // A throughput row that did not run to its end is not a lack of rate.
    cert.latency.clear();
    cert.throughput[0].complete = false;
    cert.stopped_by = None;
    assert_eq!(
        not_measured(&cert)[0].reason,
        "not run: the certification stopped before it: it was stopped"
    );
    cert.throughput[0].complete = true;
    cert.throughput[0].rate_pct = 0.0;
    assert!(not_measured(&cert)[0].reason.starts_with(NO_RATE));
}

/// Every test of the settings, for each direction and the aggregate,
/// when nothing ran; keys as `back-to-back` are taken for theirs.
#[test]
fn nothing_run_is_every_test_direction_and_size_not_measured() {
    let mut s = settings("throughput");
    s.tests = ["back-to-back", "loss", "jitter"]
        .map(String::from)
        .to_vec();
    s.sizes = vec![64, 1518];
    let mut c = blank(&s, vec!["a".into(), "b".into()], LINE);
    c.stopped_by = Some("interrupted by SIGINT".into());
    let got: Vec<(&str, &str, u32)> = (c.not_measured.iter())
        .map(|n| (n.test.as_str(), n.direction.as_str(), n.frame_size))
        .collect();
    assert!(got.is_empty(), "blank holds none");
    let all = not_measured(&c);
    let got: Vec<(&str, &str, u32)> = (all.iter())
        .map(|n| (n.test.as_str(), n.direction.as_str(), n.frame_size))
        .collect();
    let mut want = Vec::new();
    for t in ["back_to_back", "loss"] {
        for z in [64, 1518] {
            for d in ["a", "b", AGGREGATE] {
                want.push((t, d, z));
            }
        }
    }
    assert_eq!(got, want);
    assert!(
        all.iter()
            .all(|n| n.reason
                == "not run: the certification stopped before it: interrupted by SIGINT")
    );
}

#[test]
fn a_step_that_sent_nothing_is_not_loss_free() {
    // The tester sends nothing: every step is tried down to the lowest,
    // and the first trial is not taken for a silent port.
    let mut sim = Sim::new();
    sim.tester_pct = 0.0;
    let (cert, r) = certify(&mut sim, &settings("loss"));
    r.unwrap();
    let c = &cert.loss[0];
    assert_eq!(c.points.len(), 10);
    assert!(c.points.iter().all(|p| p.trial.tx_frames == 0));
}

#[test]
fn a_single_frame_burst_the_tester_cannot_send_is_the_tester_s() {
    let mut sim = Sim::new();
    sim.tester_burst = 0;
    let mut s = settings("back_to_back");
    s.back_to_back_max_s = 1e-12;
    assert_eq!(max_burst(&s, LINE, 1518), 1);
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &cert.back_to_back[0];
    assert_eq!(row.bursts, [0, 0, 0]);
    assert_eq!(
        row.trials.len(),
        6,
        "one burst of one frame per search, tried again as the tester's"
    );
    for pair in row.trials.chunks(2) {
        assert_eq!(
            pair[0].excluded.as_deref(),
            Some("tester-bound: its sender sent short; tried again")
        );
        assert_eq!(pair[1].excluded, None);
    }
    assert!(!row.at_limit);
    assert_eq!(row.bound, Bound::Tester);
}

#[test]
fn a_burst_lasts_its_frames_at_line_rate() {
    let mut sim = Sim::new();
    sim.buffer = 300;
    certify(&mut sim, &settings("back_to_back")).1.unwrap();
    let fps = fps_at(LINE, 1518, 100.0);
    for s in &sim.specs {
        let n = s.burst.unwrap();
        assert_eq!(s.duration_s, n as f64 / fps, "{s:?}");
    }
}

#[test]
fn a_silent_port_s_trial_stays_in_the_row_of_every_test() {
    for test in ["latency", "loss", "back_to_back"] {
        let mut sim = Sim::new();
        sim.silent = true;
        let (cert, r) = certify(&mut sim, &settings(test));
        assert!(r.is_err(), "{test}");
        let trials: Vec<Trial> = match test {
            "latency" => cert.latency[0].trials.clone(),
            "loss" => {
                let p = &cert.loss[0].points;
                assert_eq!(p.len(), 1);
                assert_eq!((p[0].rate_pct, p[0].loss_pct), (100.0, 100.0));
                assert_eq!(p[0].trial.offered_pct, 100.0);
                vec![p[0].trial.clone()]
            }
            _ => cert.back_to_back[0].trials.clone(),
        };
        assert_eq!(trials.len(), 1, "{test}");
        assert_eq!(trials[0].rx_frames, 0, "{test}");
        assert!(trials[0].tx_frames > 0, "{test}");
    }
}

#[test]
fn the_progress_display_hears_every_trial_start_and_end() {
    let mut sim = Sim::new();
    sim.forwards_pct = 42.0;
    let s = settings("throughput");
    let mut cert = blank(&s, sim.directions(), LINE);
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    run(&mut sim, &s, &mut cert, &mut |st: &Step| match st.trial {
        None => starts.push((st.done, st.spec.rate_pct)),
        Some(t) => ends.push((st.done, t.offered_pct, st.test)),
    })
    .unwrap();
    let n = sim.specs.len() as u32;
    assert_eq!(n, 12);
    let want_starts: Vec<(u32, f64)> = (0..n)
        .zip(&sim.specs)
        .map(|(i, s)| (i, s.rate_pct))
        .collect();
    assert_eq!(starts, want_starts);
    let want_ends: Vec<(u32, f64, &str)> = (1..=n)
        .zip(&sim.specs)
        .map(|(i, s)| (i, s.rate_pct, "throughput"))
        .collect();
    assert_eq!(ends, want_ends);
}

/// Settings of the latency test alone at the upper bound, `n` trials.
fn latency_only(n: u32) -> Settings {
    Settings {
        latency_trials: n,
        ..settings("latency")
    }
}

#[test]
fn the_row_s_worst_frame_is_the_worst_of_any_trial_not_a_mean_of_maxima() {
    let mut sim = Sim::new();
    sim.hist = true;
    // One trial's worst frame took 26 ms, another's 1.3 ms.
    sim.spikes = vec![(0, 26_000_000), (1, 1_300_000)];
    let (cert, r) = certify(&mut sim, &latency_only(2));
    r.unwrap();
    let row = &cert.latency[0];
    assert_eq!(row.counted, 2);
    assert!(
        (row.summary.max_ns - 26_000_000.0).abs() <= 26_000.0,
        "max {} ns: the worst frame, within the histogram's 0.1 %",
        row.summary.max_ns
    );
    assert_eq!(
        row.summary.min_ns, 500.0,
        "half the 1 µs p99, the least frame"
    );
    assert_eq!(row.summary.count, 202);
    // The percentiles are over all 202 frames: half of them at 500 ns.
    assert_eq!(row.summary.p50_ns, 500.0);
    assert_eq!(row.histogram.iter().map(|b| b.count).sum::<u64>(), 202);
    assert!(row.histogram.windows(2).all(|w| w[0].le_ns < w[1].le_ns));
}

#[test]
fn a_lossy_latency_trial_is_left_out_tried_again_and_listed() {
    let mut sim = Sim::new();
    sim.hist = true;
    // The second trial loses a frame, and its worst frame took 10 ms.
    sim.fail_at = vec![1];
    sim.spikes = vec![(1, 10_000_000)];
    let (cert, r) = certify(&mut sim, &latency_only(3));
    r.unwrap();
    let row = &cert.latency[0];
    assert_eq!(row.trials.len(), 4, "three that count and the one left out");
    assert_eq!(row.counted, 3);
    let why = row.trials[1].excluded.as_deref().unwrap();
    assert!(
        why.starts_with("lost 1 frame(s) (")
            && why.ends_with(" %) at the throughput rate; left out, tried again"),
        "{why}"
    );
    assert!(row
        .trials
        .iter()
        .enumerate()
        .all(|(i, t)| (i == 1) == t.excluded.is_some()));
    assert!(
        row.summary.max_ns < 1_100.0,
        "the lossy trial's 10 ms is not in the row: {}",
        row.summary.max_ns
    );
    assert_eq!(row.summary.count, 300);
    assert_eq!(
        tester_problems(&cert),
        [],
        "a trial tried again until one counted is listed, not a doubt"
    );
}

#[test]
fn a_latency_trial_lossy_on_every_try_is_given_up_not_counted() {
    let mut sim = Sim::new();
    sim.fail_at = vec![1, 2];
    let (cert, r) = certify(&mut sim, &latency_only(3));
    r.unwrap();
    let row = &cert.latency[0];
    let left: Vec<Option<&str>> = row.trials.iter().map(|t| t.excluded.as_deref()).collect();
    assert_eq!(row.trials.len(), 4);
    assert_eq!(left[0], None);
    assert!(left[1].unwrap().ends_with("left out, tried again"));
    assert!(left[2].unwrap().ends_with("left out, no tries left"));
    assert_eq!(left[3], None);
    assert_eq!(row.counted, 2);
    // The device lost frames at its own throughput rate on every try: a
    // doubt of its own, not the tester's.
    let p = tester_problems(&cert);
    assert_eq!(p.len(), 1, "{p:?}");
    let Problem::LatencyLeftOut {
        frame_size,
        counted,
        asked,
        why,
        ..
    } = &p[0]
    else {
        panic!("{p:?}")
    };
    assert_eq!((*frame_size, *counted, *asked), (1518, 2, 3));
    assert_eq!(why, left[2].unwrap());
    let text = p[0].text();
    assert!(
        text.starts_with("latency of 1518-byte frames (")
            && text.contains("): 2 of 3 latency trials counted; the others lost frames"),
        "{text}"
    );
}

#[test]
fn latency_the_tester_bounded_throughout_is_not_judged() {
    let mut sim = Sim::new();
    sim.tester_pct = 50.0;
    let (cert, r) = certify(&mut sim, &latency_only(2));
    r.unwrap();
    let row = &cert.latency[0];
    assert_eq!(
        (row.trials.len(), row.counted, row.summary.count),
        (4, 0, 0)
    );
    assert_eq!(cert.not_measured.len(), 1);
    assert_eq!(
        cert.not_measured[0].reason,
        "tester-bound: every one of its 4 trial(s) was the tester's (tester-bound: its sender \
         sent short; left out, tried again)"
    );
    let k = judge(
        &cert,
        &[Acceptance {
            max_latency_ns: Some(600.0),
            ..Acceptance::default()
        }],
    );
    assert_eq!((k[0].judged, k[0].passed), (false, false));
    assert!(
        k[0].measured
            .starts_with("not judged: tester-bound: every one of its 4 trial(s)"),
        "{}",
        k[0].measured
    );
    assert_eq!(k[0].state(), "not judged");
    let p = tester_problems(&cert);
    let [Problem::TesterBound { test, figure, .. }] = p.as_slice() else {
        panic!("{p:?}")
    };
    assert_eq!(
        (test.as_str(), figure.as_str()),
        ("latency", "0 of 2 latency trials counted")
    );
}

#[test]
fn a_throughput_the_tester_bounded_is_judged_only_where_the_device_s_trials_decide() {
    let min = |pct: f64| {
        [Acceptance {
            min_throughput_pct: Some(pct),
            ..Acceptance::default()
        }]
    };
    // The tester sends nothing above 0 %: no rate, every failure its own.
    let mut sim = Sim::new();
    sim.tester_pct = 0.0;
    let (cert, _) = certify(&mut sim, &settings("throughput"));
    let k = &judge(&cert, &min(50.0))[0];
    assert_eq!((k.judged, k.passed), (false, false));
    assert!(
        k.measured
            .starts_with("not judged: tester-bound: 0.00 % of line, the tester's limit"),
        "{}",
        k.measured
    );
    // The tester reaches 60 %, the device forwards all: 59.9 % passed.
    let mut sim = Sim::new();
    sim.tester_pct = 60.0;
    let (cert, _) = certify(&mut sim, &settings("throughput"));
    let row = &cert.throughput[0];
    assert_eq!(row.bound, Bound::Tester);
    assert!(
        row.rate_pct > 59.8 && row.rate_pct <= 60.0,
        "{}",
        row.rate_pct
    );
    let met = &judge(&cert, &min(50.0))[0];
    assert_eq!(
        (met.judged, met.passed),
        (true, true),
        "the device passed above 50 %"
    );
    assert!(met.measured.starts_with("at least 59."), "{}", met.measured);
    let open = &judge(&cert, &min(70.0))[0];
    assert_eq!(
        (open.judged, open.passed),
        (false, false),
        "70 % was never offered cleanly"
    );
    assert!(
        open.measured.contains("the nearest failure"),
        "{}",
        open.measured
    );
}

#[test]
fn a_loss_point_the_tester_bounded_is_tried_again_and_never_a_loss_free_step() {
    let mut sim = Sim::new();
    sim.tester_pct = 85.0;
    let (cert, r) = certify(&mut sim, &settings("loss"));
    r.unwrap();
    let c = &cert.loss[0];
    let rates: Vec<f64> = c.points.iter().map(|p| p.rate_pct).collect();
    assert_eq!(
        rates,
        [100.0, 90.0, 80.0, 70.0],
        "100 and 90 % are not loss-free steps"
    );
    for p in &c.points[..2] {
        assert!(p.trial.tester_bound);
        assert_eq!(p.retried.len(), 1);
        assert_eq!(
            p.retried[0].excluded.as_deref(),
            Some("tester-bound: its sender sent short; tried again")
        );
    }
    assert!(c.points[2..]
        .iter()
        .all(|p| !p.trial.tester_bound && p.retried.is_empty()));
    let k = judge(
        &cert,
        &[Acceptance {
            max_loss: Some(LossBound {
                rate_pct: 90.0,
                loss_pct: 1.0,
            }),
            ..Acceptance::default()
        }],
    );
    assert_eq!((k[0].judged, k[0].passed), (false, false));
    assert_eq!(
        k[0].measured,
        "not judged: tester-bound: its sender sent short (0 % lost at 90.00 % of line)"
    );
    let p = tester_problems(&cert);
    assert_eq!(p.len(), 2, "{p:?}");
    // A point the sender bunched once is tried again and counts.
    let mut sim = Sim::new();
    sim.bunched = vec![0];
    let (cert, _) = certify(&mut sim, &settings("loss"));
    let c = &cert.loss[0];
    assert_eq!(c.points.len(), 2);
    assert_eq!(c.points[0].retried.len(), 1);
    assert_eq!(
        (c.points[0].trial.lost, c.points[0].trial.tester_bound),
        (0, false)
    );
}

#[test]
fn the_p99_bound_holds_throughput_trials_only() {
    let mut sim = Sim::new();
    sim.buffer = 100;
    let s = Settings {
        tests: ["throughput", "loss", "back_to_back"]
            .map(String::from)
            .to_vec(),
        max_p99_ns: Some(500.0),
        ..settings("throughput")
    };
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    assert_eq!(
        cert.throughput[0].rate_pct, 0.0,
        "every throughput trial above 500 ns"
    );
    assert!(
        cert.loss[0].points.iter().all(|p| p.trial.passed),
        "loss is not held to it"
    );
    assert_eq!(
        cert.back_to_back[0].bursts,
        [100, 100, 100],
        "nor are bursts"
    );
}

#[test]
fn aggregate_rows_are_the_sum_over_the_directions() {
    let mut sim = Sim::new();
    sim.directions = vec!["p0 → p1".into(), "p1 → p0".into()];
    sim.forwards_pct = 50.0;
    let (cert, r) = certify(&mut sim, &settings("throughput"));
    r.unwrap();
    let one = &cert.throughput[0];
    let agg = &cert.throughput[2];
    assert_eq!(agg.direction, AGGREGATE);
    assert_eq!(agg.rate_pct, one.rate_pct);
    assert_eq!(agg.l1_bps, 2.0 * one.l1_bps);
    assert_eq!(agg.l2_bps, 2.0 * one.l2_bps);
    assert_eq!(agg.fps, 2.0 * one.fps);
    // Asymmetric: the second direction offers half of each aggregate
    // trial's load, so the aggregate carries 1.5 directions' worth.
    let mut sim = Sim::new();
    sim.directions = vec!["p0 → p1".into(), "p1 → p0".into()];
    sim.forwards_pct = 50.0;
    let s = Settings {
        direction_loads: vec![100.0, 50.0],
        ..settings("throughput")
    };
    let (cert, _) = certify(&mut sim, &s);
    let one = &cert.throughput[0];
    let agg = &cert.throughput[2];
    assert_eq!(agg.l1_bps, 1.5 * one.l1_bps);
    assert_eq!(agg.fps, 1.5 * one.fps);
    assert_eq!(
        (s.share_of(0), s.share_of(1), s.share_of(2)),
        (1.0, 0.5, 1.0)
    );
}

#[test]
fn rfc_9004_corrects_the_buffer_time_by_the_throughput() {
    assert_eq!(corrected_buffer_s(1000.0, 1e6, 5e5), 0.0005);
    assert_eq!(corrected_buffer_s(1000.0, 1e6, 1e6), 0.0);
    let mut sim = Sim::new();
    sim.forwards_pct = 50.0;
    sim.buffer = 5000;
    let s = Settings {
        tests: ["throughput", "back_to_back"].map(String::from).to_vec(),
        ..settings("throughput")
    };
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let t = &cert.throughput[0];
    let b = &cert.back_to_back[0];
    assert_eq!(b.mean_frames, 5000.0);
    assert_eq!(b.stddev_frames, 0.0);
    let line = fps_at(LINE, 1518, 100.0);
    assert_eq!(b.mean_s, 5000.0 / line);
    assert_eq!(b.throughput_fps, Some(t.fps));
    assert_eq!(b.corrected_s, Some(corrected_buffer_s(5000.0, line, t.fps)));
    assert!(b.corrected_s.unwrap() < b.mean_s && b.corrected_s.unwrap() > 0.49 * b.mean_s);
    // Without a throughput of the device's: no correction.
    let (cert, _) = certify(
        &mut Sim {
            buffer: 5000,
            ..Sim::new()
        },
        &settings("back_to_back"),
    );
    assert_eq!(
        (
            cert.back_to_back[0].corrected_s,
            cert.back_to_back[0].throughput_fps
        ),
        (None, None)
    );
}

#[test]
fn the_sample_standard_deviation_of_the_bursts() {
    let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
    assert!((sample_stddev(&v) - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    assert_eq!(sample_stddev(&[3.0]), 0.0);
    assert_eq!(sample_stddev(&[]), 0.0);
}

#[test]
fn short_search_trials_and_full_confirmations_and_why_no_rate_held() {
    let mut sim = Sim::new();
    // Every full-length trial (the confirmations) loses a frame.
    sim.fail_long = Some(1.0);
    let s = Settings {
        search_trial_s: Some(0.6),
        ..settings("throughput")
    };
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &cert.throughput[0];
    assert_eq!(row.rate_pct, 0.0);
    let durations: Vec<f64> = row.trials.iter().map(|t| t.duration_s).collect();
    assert_eq!(durations[0], 0.6, "the search starts short");
    assert_eq!(
        durations[1], 1.0,
        "100 % passed and is confirmed at full length"
    );
    let confirms = row.trials.iter().filter(|t| t.duration_s == 1.0).count();
    assert_eq!(confirms as u32, MAX_CONFIRMS);
    let mut s2 = s.clone();
    s2.tests.push("latency".into());
    let (cert, _) = certify(
        &mut Sim {
            fail_long: Some(1.0),
            ..Sim::new()
        },
        &s2,
    );
    let reason = &cert.not_measured[0].reason;
    let n = cert.throughput[0].trials.len();
    assert!(
        reason.starts_with("no throughput rate: no rate held: 100.00 %, ")
            && reason.ends_with(&format!(
                " passed a search trial and failed its confirming trial ({n} trial(s) in all)"
            )),
        "{reason}"
    );
}

/// Settings with both trial hooks, failing as `on_failure` says.
fn hooked(test: &str, on_failure: OnFailure) -> Settings {
    Settings {
        dut: Some(DutHooks {
            before_trial: Some("bridge fdb show".into()),
            after_trial: Some("tc -s qdisc".into()),
            on_failure,
            ..DutHooks::default()
        }),
        ..settings(test)
    }
}

#[test]
fn the_hooks_run_around_every_trial_and_their_runs_are_in_it() {
    let mut sim = Sim::new();
    let s = hooked("throughput", OnFailure::Stop);
    let (c, e) = run_sim_err(&mut sim, &s);
    assert!(e.is_none() && c.complete);
    let trials = &c.throughput[0].trials;
    assert_eq!(trials.len(), 2, "the upper bound and its confirmation");
    for (i, t) in trials.iter().enumerate() {
        let names: Vec<&str> = t.hooks.iter().map(|h| h.hook.as_str()).collect();
        assert_eq!(names, ["before_trial", "after_trial"]);
        assert_eq!(t.hooks[0].command, "bridge fdb show");
        assert_eq!(t.hooks[0].output, format!("before_trial {i}\n"));
        assert_eq!(t.hooks[1].output, format!("after_trial {i}\n"));
        assert!(t.problems.is_empty());
    }
    let at: Vec<(&str, usize)> = sim.hooks.iter().map(|(h, i, _)| (h.as_str(), *i)).collect();
    assert_eq!(
        at,
        [
            ("before_trial", 0),
            ("after_trial", 0),
            ("before_trial", 1),
            ("after_trial", 1)
        ]
    );
    let env: Vec<(String, String)> = sim.hooks[2].2.clone();
    let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(get("LANDSPEED_HOOK"), Some("before_trial"));
    assert_eq!(get("LANDSPEED_TEST"), Some("throughput"));
    assert_eq!(get("LANDSPEED_TRIAL"), Some("2"));
    assert_eq!(get("LANDSPEED_FRAME_SIZE"), Some("1518"));
    assert_eq!(get("LANDSPEED_RATE_PCT"), Some("100"));
    assert_eq!(get("LANDSPEED_DIRECTION"), Some("p0 → p1"));
    // The learning frames went out before the hook, once per trial.
    assert_eq!(sim.learned_before, [0, 1]);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
}

/// Runs the searches of `s` over `sim`, the error (if any) apart.
fn run_sim_err(sim: &mut Sim, s: &Settings) -> (Certification, Option<crate::Error>) {
    let mut c = blank(s, sim.directions(), sim.line_bps());
    let e = run(sim, s, &mut c, &mut |_| {}).err();
    (c, e)
}

#[test]
fn a_failing_hook_with_continue_marks_its_trial_and_the_certification_goes_on() {
    let mut sim = Sim::new();
    sim.hook_fails = vec![("before_trial".into(), 1)];
    let s = hooked("throughput", OnFailure::Continue);
    let (c, e) = run_sim_err(&mut sim, &s);
    assert!(e.is_none() && c.complete);
    let t = &c.throughput[0].trials;
    assert_eq!(t.len(), 2);
    assert!(t[0].problems.is_empty());
    assert_eq!(
        t[1].problems,
        [crate::outcome::Problem::Other {
            detail: "the device-under-test hook certify.dut.before_trial `bridge fdb show` \
                     exited with status 7 before the trial (throughput 1518 B p0 → p1 at \
                     100.000 % of line); its output ends: before_trial 1; on_failure: continue"
                .into()
        }]
    );
    assert_eq!(t[1].hooks[0].status, Some(7));
    assert_eq!(
        c.problems,
        [crate::outcome::Problem::Other {
            detail: "the device-under-test hook certify.dut.before_trial `bridge fdb show` \
                     failed in 1 of the 2 trial(s) it ran for (first: it exited with status 7): \
                     the device may not have been as the hook should have left it"
                .into()
        }]
    );
}

#[test]
fn a_failing_hook_with_stop_ends_the_certification_naming_it() {
    // Before the second trial: it never runs.
    let mut sim = Sim::new();
    sim.hook_fails = vec![("before_trial".into(), 1)];
    let s = hooked("throughput", OnFailure::Stop);
    let (c, e) = run_sim_err(&mut sim, &s);
    let e = e.expect("an error").to_string();
    assert!(
        e.contains(
            "the device-under-test hook certify.dut.before_trial `bridge fdb show` exited with \
             status 7 before the trial (throughput 1518 B p0 → p1 at 100.000 % of line); its \
             output ends: before_trial 1; certify.dut.on_failure is stop, so the certification \
             ends here"
        ),
        "{e}"
    );
    assert_eq!(sim.specs.len(), 1);
    assert!(!c.complete);
    assert_eq!(c.stopped_by.as_deref(), Some(e.as_str()));
    assert_eq!(c.throughput[0].trials.len(), 1);
    // After the first trial: it is kept, with its hooks; no other runs.
    let mut sim = Sim::new();
    sim.hook_fails = vec![("after_trial".into(), 0)];
    let (c, e) = run_sim_err(&mut sim, &s);
    let e = e.expect("an error").to_string();
    assert!(
        e.contains("`tc -s qdisc` exited with status 7 after the trial"),
        "{e}"
    );
    assert_eq!(sim.specs.len(), 1);
    let t = &c.throughput[0].trials;
    assert_eq!(t.len(), 1);
    assert_eq!(t[0].hooks.len(), 2);
    assert_eq!(t[0].problems.len(), 1);
    assert!(!c.complete);
    // After the last trial of all: the certification still ends in error.
    let mut sim = Sim::new();
    sim.hook_fails = vec![("after_trial".into(), 1)];
    let (c, e) = run_sim_err(&mut sim, &s);
    assert!(e.is_some());
    assert!(!c.complete);
    assert_eq!(c.throughput[0].trials.len(), 2);
}

#[test]
fn the_reset_hook_is_run_on_demand_and_its_failure_is_an_error() {
    let mut sim = Sim::new();
    let mut dut = DutHooks {
        reset: Some("reboot-dut".into()),
        ..DutHooks::default()
    };
    let r = sim.reset_device(&dut).unwrap();
    assert_eq!(
        (r.hook.as_str(), r.command.as_str()),
        ("reset", "reboot-dut")
    );
    sim.hook_fails = vec![("reset".into(), 0)];
    assert_eq!(
        sim.reset_device(&dut).unwrap_err().to_string(),
        "certification stopped: certify.dut.reset `reboot-dut` exited with status 7; its \
         output ends: reset 0"
    );
    dut.reset = None;
    assert!(sim
        .reset_device(&dut)
        .unwrap_err()
        .to_string()
        .contains("no reset hook"));
}

/// Settings of throughput then `test` at 1518 B.
fn after_throughput(test: &str) -> Settings {
    Settings {
        tests: vec!["throughput".into(), test.into()],
        recovery_overload_s: 2.0,
        recovery_reduced_s: 1.0,
        recovery_trials: 3,
        reset_at_s: 1.0,
        reset_trial_s: 3.0,
        reset_trials: 2,
        ..settings("throughput")
    }
}

#[test]
fn recovery_overloads_at_110_percent_then_drops_to_half_and_averages_the_trials() {
    let mut sim = Sim::new();
    sim.forwards_pct = 50.0;
    sim.recovers_ns = 1_500_000.0;
    let (cert, r) = certify(&mut sim, &after_throughput("recovery"));
    r.unwrap();
    let t = cert.throughput[0].rate_pct;
    let row = &cert.recovery[0];
    assert_eq!(row.overload_pct, t * 1.1);
    assert_eq!(row.reduced_pct, t * 1.1 / 2.0);
    let specs: Vec<&TrialSpec> = sim.specs.iter().rev().take(3).collect();
    for s in &specs {
        assert_eq!(s.rate_pct, t * 1.1);
        assert_eq!(s.duration_s, 3.0, "2 s overloaded, 1 s reduced");
        assert_eq!(
            s.step,
            Some(RateStep {
                after_s: 2.0,
                to_pct: t * 1.1 / 2.0
            })
        );
    }
    assert_eq!(row.recovery_s.len(), 3);
    assert!(row.recovery_s.iter().all(|&r| (r - 0.0015).abs() < 1e-12));
    assert!((row.mean_s.unwrap() - 0.0015).abs() < 1e-12);
    assert_eq!(row.trials.len(), 3);
    assert!(row.note.is_none());
}

#[test]
fn recovery_without_an_overload_is_not_run_and_says_why() {
    // At line rate nothing overloads the device.
    let mut sim = Sim::new();
    let (cert, r) = certify(&mut sim, &after_throughput("recovery"));
    r.unwrap();
    let row = &cert.recovery[0];
    assert!(row.trials.is_empty());
    assert_eq!(
        row.note.as_deref(),
        Some("not run: the throughput is the line rate (100 % of line), so no load overloads the device")
    );
    // An overload that loses nothing (the device's throughput was low
    // by noise) is left out.
    let mut sim = Sim::new();
    sim.forwards_pct = 100.0;
    let mut s = after_throughput("recovery");
    s.tests = vec!["recovery".into()];
    s.upper_pct = 50.0;
    let (cert, _) = certify(&mut sim, &s);
    let row = &cert.recovery[0];
    assert!((row.overload_pct - 55.0).abs() < 1e-9);
    assert!(row.recovery_s.is_empty());
    assert_eq!(row.mean_s, None);
    assert_eq!(
        row.trials[0].excluded.as_deref(),
        Some("the overload lost nothing: the device was not overloaded; left out")
    );
    assert_eq!(
        row.note.as_deref(),
        Some("no trial counted: see each trial's reason")
    );
}

#[test]
fn reset_runs_at_the_smallest_size_at_its_throughput_and_takes_the_longest_gap() {
    let mut sim = Sim::new();
    sim.forwards_pct = 50.0;
    sim.reset_gap_s = 1.0;
    let mut s = after_throughput("reset");
    s.sizes = vec![1518, 64];
    let (cert, r) = certify(&mut sim, &s);
    r.unwrap();
    assert_eq!(cert.reset.len(), 1, "one row: the smallest size");
    let row = &cert.reset[0];
    assert_eq!(row.frame_size, 64);
    let t = (cert.throughput.iter())
        .find(|r| r.frame_size == 64)
        .unwrap();
    assert_eq!(row.rate_pct, t.rate_pct);
    let resets: Vec<&TrialSpec> = sim
        .specs
        .iter()
        .filter(|s| s.reset_at_s.is_some())
        .collect();
    assert_eq!(resets.len(), 2);
    assert!(resets
        .iter()
        .all(|s| s.reset_at_s == Some(1.0) && s.duration_s == 3.0 && s.frame_size == 64));
    assert_eq!(row.reset_s, [1.0, 1.0]);
    assert_eq!(row.mean_s, Some(1.0));
    // Frames lost beyond the gap: the device did not come back in time.
    let mut sim = Sim::new();
    sim.forwards_pct = 50.0;
    sim.reset_gap_s = 1.0;
    sim.reset_more = 100_000;
    let (cert, _) = certify(&mut sim, &after_throughput("reset"));
    let row = &cert.reset[0];
    assert_eq!(row.mean_s, None);
    let why = row.trials[0].excluded.as_deref().unwrap();
    assert!(
        why.contains("more than the 1.000 s gap holds") && why.contains("certify.reset_trial"),
        "{why}"
    );
}

#[test]
fn test_sizes_are_every_size_but_the_smallest_for_reset() {
    let s = Settings {
        sizes: vec![512, 64, 1518],
        ..Settings::default()
    };
    assert_eq!(test_sizes(&s, "throughput"), [512, 64, 1518]);
    assert_eq!(test_sizes(&s, "reset"), [64]);
}

/// The problems name exactly the rows whose figure is the tester's: a
/// throughput or back-to-back row bound by it, and why from the first of
/// its trials that it bounded and that failed; never a row the device
/// bounded, whatever its trials were.
#[test]
fn tester_problems_name_each_row_the_tester_bounded_and_no_other() {
    use crate::certify::sample;
    let mut c = sample::tester_bound();
    c.problems.clear();
    // A device-bound back-to-back row with a trial the tester bounded.
    c.back_to_back[0].trials[0].tester_bound = true;
    // A back-to-back row the tester bounded: its first tester-bound
    // trial passed (no reason given from it), the second failed.
    let row = &mut c.back_to_back[2];
    row.bound = Bound::Tester;
    row.trials[0].tester_bound = true;
    row.trials[0].passed = true;
    let failed = &mut row.trials[1];
    failed.tester_bound = true;
    failed.passed = false;
    failed.problems = vec![Problem::Descheduled {
        role: "TX".into(),
        lcore: 2,
        descheduled_pct: 7.5,
        wait_ns: 450_000_000,
        stolen_ns: 0,
        wall_ns: 6_000_000_000,
    }];
    let why = tester_reason(&row.trials[1]);
    assert!(
        why.starts_with("tester-bound: TX lcore 2 was descheduled"),
        "{why}"
    );
    let (b2b_dir, b2b_size, b2b_frames) = (row.direction.clone(), row.frame_size, row.mean_frames);
    let tput = &c.throughput[0];
    assert_eq!(tput.bound, Bound::Tester);
    let (t_dir, t_size) = (tput.direction.clone(), tput.frame_size);
    assert!(c.throughput[1..].iter().all(|r| r.bound != Bound::Tester));
    let got: Vec<(String, String, u32, String, String)> = tester_problems(&c)
        .into_iter()
        .map(|p| match p {
            Problem::TesterBound {
                test,
                direction,
                frame_size,
                figure,
                why,
            } => (test, direction, frame_size, figure, why),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(
        (&got[0].0, &got[0].1, got[0].2, got[0].3.as_str()),
        (&"throughput".to_string(), &t_dir, t_size, "41.11 % of line")
    );
    assert_eq!(
        got[1],
        (
            "back_to_back".to_string(),
            b2b_dir,
            b2b_size,
            format!("{b2b_frames:.1} frames"),
            why
        )
    );
}

#[test]
fn learning_frames_a_port_refused_are_the_certifications_problem() {
    let mut sim = Sim::new();
    sim.learning_refused = vec![(1, 40), (2, 7)];
    let mut s = settings("throughput");
    s.learning = crate::certify::model::Learning::EveryTrial;
    s.sizes = vec![64, 1518];
    let (c, e) = run_sim_err(&mut sim, &s);
    assert!(e.is_none() && c.complete);
    let refused: Vec<u64> = every_trial(&c)
        .map(|t| t.learning.as_ref().map_or(u64::MAX, |l| l.refused))
        .collect();
    assert_eq!(refused, [0, 40, 7, 0]);
    assert_eq!(
        c.problems,
        [crate::outcome::Problem::Other {
            detail: "the learning frames before 2 trial(s) were not all sent (first: 40 of 300 \
                     refused by a full TX queue): the device may not have learnt every address, \
                     and flooded their frames"
                .into()
        }]
    );
    // Without a refusal, no problem.
    let mut sim = Sim::new();
    let (c, _) = run_sim_err(&mut sim, &s);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
}

/// Address settings: 1 to `max` addresses, flushed by a hook.
fn address_settings(test: &str, max: Option<u64>) -> Settings {
    let mut s = settings(test);
    s.sizes = vec![64];
    s.addresses.max = max;
    s.dut = Some(DutHooks {
        flush: Some("flush-table".into()),
        ..DutHooks::default()
    });
    s
}

#[test]
fn address_caching_finds_the_table_size_exactly_by_halving() {
    for table in [1, 2, 511, 512, 513, 1000, 1023] {
        let mut sim = Sim::new();
        sim.table = table;
        let s = address_settings("address_caching", Some(1024));
        let (c, r) = certify(&mut sim, &s);
        r.unwrap();
        let row = &c.address_caching[0];
        assert_eq!(row.addresses, Some(table), "table {table}");
        assert_eq!(row.bound, Bound::Device);
        assert_eq!(row.searched, [1.0, 1024.0]);
        assert_eq!(row.learning_fps, Some(1000.0));
        // The top first, then halvings: 1024, 512, 256 or 768...
        let tried: Vec<u64> = sim.specs.iter().map(|t| t.addresses.unwrap()).collect();
        assert_eq!(tried[0], 1024);
        assert_eq!(tried[1], 512);
        assert!(tried.len() <= 11, "table {table}: {tried:?}");
        assert!(
            tried.contains(&table) && tried.contains(&(table + 1)),
            "{tried:?}"
        );
        // Each trial: the table flushed, then learning, then the trial;
        // long enough for two frames per address at 10 % of line.
        assert_eq!(sim.learned_before, (0..tried.len()).collect::<Vec<_>>());
        let flushes: Vec<usize> = (sim.hooks.iter())
            .filter(|h| h.0 == "flush")
            .map(|h| h.1)
            .collect();
        assert_eq!(flushes, (0..tried.len()).collect::<Vec<_>>());
        for (spec, t) in sim.specs.iter().zip(&row.trials) {
            let n = spec.addresses.unwrap();
            assert_eq!(spec.rate_pct, 10.0);
            assert_eq!(spec.learning_fps, Some(1000.0));
            assert_eq!(t.addresses, Some(n));
            assert_eq!(t.passed, n <= table, "{n} addresses, table {table}");
            assert_eq!(t.foreign, 2 * n.saturating_sub(table));
            assert_eq!(t.hooks[0].hook, "flush");
            let frames = fps_at(LINE, 64, 10.0) * spec.duration_s;
            assert!(frames >= FRAMES_PER_ADDRESS * n as f64);
        }
    }
}

#[test]
fn a_table_above_the_search_says_at_least_and_none_held_says_why() {
    let mut sim = Sim::new();
    let s = address_settings("address_caching", Some(300));
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &c.address_caching[0];
    assert_eq!(
        (row.addresses, row.bound, row.trials.len()),
        (Some(300), Bound::Top, 1)
    );
    assert_eq!(
        row.note.as_deref(),
        Some("every address of the search's top was held: the device holds at least 300")
    );
    assert!(c.not_measured.is_empty());
    // The most defaults to the streams' destinations.
    let mut sim = Sim::new();
    sim.destinations = 64;
    sim.table = 0;
    let (c, r) = certify(&mut sim, &address_settings("address_caching", None));
    r.unwrap();
    let row = &c.address_caching[0];
    assert_eq!((row.addresses, row.bound), (None, Bound::Device));
    assert_eq!(row.searched, [1.0, 64.0]);
    let tried: Vec<u64> = sim.specs.iter().map(|t| t.addresses.unwrap()).collect();
    assert_eq!(tried, [64, 32, 16, 8, 4, 2, 1]);
    let why = "even 1 address(es) were not held: test frames to them were lost or flooded (see each trial)";
    assert_eq!(row.note.as_deref(), Some(why));
    assert_eq!(c.not_measured.len(), 1);
    assert_eq!(c.not_measured[0].reason, why);
}

#[test]
fn a_failure_the_tester_may_have_caused_bounds_the_capacity_as_the_testers() {
    let mut sim = Sim::new();
    sim.table = 600;
    // The trial at 1024 addresses is bunched but floods (424 addresses
    // unknown): the device's at once, not tried again. The trials at
    // 512 lose 7 frames to a bunched sender and flood nothing: the
    // tester's, tried again, and the search goes on below them.
    sim.bunched = vec![0, 1, 2];
    let s = address_settings("address_caching", Some(1024));
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &c.address_caching[0];
    let tried: Vec<u64> = sim.specs.iter().map(|t| t.addresses.unwrap()).collect();
    assert_eq!(tried[..3], [1024, 512, 512]);
    assert_eq!(row.trials[0].excluded, None);
    assert!(row.trials[0].tester_bound && !row.trials[0].passed);
    let again = row.trials[1].excluded.as_deref().unwrap();
    assert!(
        again.starts_with("tester-bound: ") && again.ends_with("; tried again"),
        "{again}"
    );
    assert_eq!(row.addresses, Some(511));
    assert_eq!(
        row.bound,
        Bound::Tester,
        "the nearest failure, 512, was the tester's"
    );
    assert!(row
        .note
        .as_deref()
        .unwrap()
        .starts_with("the nearest failure was the tester's (tester-bound: "));
    // A trial the tester bounded that floods nothing and loses nothing
    // passes on its counts.
    let mut sim = Sim::new();
    sim.tester_pct = 5.0;
    let (c, r) = certify(&mut sim, &address_settings("address_caching", Some(8)));
    r.unwrap();
    let row = &c.address_caching[0];
    assert!(row.trials[0].tester_bound && row.trials[0].passed);
    assert_eq!((row.addresses, row.bound), (Some(8), Bound::Top));
    // Every failure the tester's: the row has no figure and says why.
    let mut sim = Sim::new();
    sim.bunched = (0..40).collect();
    let (c, _) = certify(&mut sim, &address_settings("address_caching", Some(8)));
    let row = &c.address_caching[0];
    assert_eq!((row.addresses, row.bound), (None, Bound::Tester));
    assert_eq!(row.trials.len(), 2 * 4, "8, 4, 2, 1: each tried twice");
}

#[test]
fn learning_frames_refused_or_bursty_make_a_failure_the_testers() {
    let t = |refused: u64, paced: f64, sent: f64, foreign: u64| Trial {
        tx_frames: 100,
        foreign,
        learning: Some(crate::certify::model::LearningRun {
            frames: 10 - refused,
            refused,
            paced_fps: Some(paced),
            sent_fps: Some(sent),
            ..Default::default()
        }),
        ..Trial::default()
    };
    use super::address::address_failure_is_testers as testers;
    // Flooded at the rate asked: the device's.
    assert!(!testers(&t(0, 1000.0, 1000.0, 4), 10));
    assert!(!testers(&t(0, 1000.0, 1100.0, 4), 10));
    // Flooded, but the learning frames went faster than asked, or a
    // port refused some: the tester's.
    assert!(testers(&t(0, 1000.0, 1101.0, 4), 10));
    assert!(testers(&t(1, 1000.0, 1000.0, 4), 10));
    // Too few test frames for every address: the tester's.
    assert!(testers(&t(0, 1000.0, 1000.0, 0), 51));
    assert!(!testers(&t(0, 1000.0, 1000.0, 0), 50));
    assert!(address_passes(&t(0, 1000.0, 1000.0, 0), 50));
    assert!(!address_passes(&t(0, 1000.0, 1000.0, 0), 51));
    assert!(!address_passes(&t(0, 1000.0, 1000.0, 1), 50));
    assert!(!address_passes(&t(1, 1000.0, 1000.0, 0), 50));
    let lost = Trial {
        lost: 1,
        ..t(0, 1000.0, 1000.0, 0)
    };
    assert!(!address_passes(&lost, 50));
    let corrupt = Trial {
        corrupt: 1,
        ..t(0, 1000.0, 1000.0, 0)
    };
    assert!(!address_passes(&corrupt, 50));
    // Lost with the tester bounded: the tester's; without, the device's.
    assert!(!testers(&lost, 50));
    assert!(testers(
        &Trial {
            tester_bound: true,
            ..lost
        },
        50
    ));
}

#[test]
fn learning_rate_halves_to_the_resolution_and_teaches_the_capacity_found() {
    let mut sim = Sim::new();
    sim.table = 500;
    sim.learns_fps = 5_000.0;
    let mut s = address_settings("address_caching", Some(1024));
    s.tests.push("learning_rate".into());
    s.addresses.rate_max_fps = Some(20_000.0);
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    assert_eq!(c.address_caching[0].addresses, Some(500));
    let row = &c.learning_rate[0];
    assert_eq!(row.addresses, Some(500), "teaches the capacity found");
    assert_eq!(row.searched, [100.0, 20_000.0]);
    let n = c.address_caching[0].trials.len();
    let rates: Vec<f64> = sim.specs[n..]
        .iter()
        .map(|t| t.learning_fps.unwrap())
        .collect();
    assert_eq!(rates[0], 20_000.0);
    assert_eq!(rates[1], 10_050.0);
    assert!(sim.specs[n..].iter().all(|t| t.addresses == Some(500)));
    let fps = row.learning_fps.unwrap();
    assert!(fps <= 5_000.0 && fps > 5_000.0 - 100.0, "{fps}: {rates:?}");
    assert_eq!(row.bound, Bound::Device);
    for (t, &r) in row.trials.iter().zip(&rates) {
        assert_eq!(t.passed, r <= 5_000.0, "{r}");
        assert_eq!(t.learning.as_ref().unwrap().paced_fps, Some(r));
    }
    // A device that learns at no rate tried: the least tried last.
    let mut sim = Sim::new();
    sim.learns_fps = 50.0;
    let mut s = address_settings("learning_rate", Some(16));
    s.addresses.rate_max_fps = Some(1_000.0);
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &c.learning_rate[0];
    assert_eq!((row.learning_fps, row.addresses), (None, Some(16)));
    assert_eq!(sim.specs.last().unwrap().learning_fps, Some(100.0));
    assert!(row
        .note
        .as_deref()
        .unwrap()
        .starts_with("not even at 100 frames/s were the 16 address(es) learnt"));
}

#[test]
fn a_learning_rate_the_tester_could_not_send_is_given_as_the_rate_sent() {
    let mut sim = Sim::new();
    sim.sends_fps = 30_000.0;
    let mut s = address_settings("learning_rate", Some(64));
    s.addresses.rate_max_fps = Some(40_000.0);
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    let row = &c.learning_rate[0];
    assert_eq!((row.learning_fps, row.bound), (Some(30_000.0), Bound::Top));
    assert_eq!(
        row.note.as_deref(),
        Some(
            "the learning frames went at 30000 frames/s, below the 40000 asked: the figure is \
             the rate they went at; the search's top passed: the device learns at least 30000 \
             frames/s"
        )
    );
    // At 99 % of the rate asked, the rate asked stands.
    let mut sim = Sim::new();
    sim.sends_fps = 39_600.0;
    let (c, _) = certify(&mut sim, &s);
    assert_eq!(c.learning_rate[0].learning_fps, Some(40_000.0));
}

#[test]
fn a_learning_rate_search_starts_at_the_line_rate_of_learning_frames() {
    let mut sim = Sim::new();
    let (c, r) = certify(&mut sim, &address_settings("learning_rate", Some(8)));
    r.unwrap();
    let top = fps_at(LINE, 64, 100.0);
    assert_eq!(sim.specs[0].learning_fps, Some(top));
    assert_eq!(c.learning_rate[0].searched, [100.0, top]);
    assert_eq!(c.learning_rate[0].learning_fps, Some(top));
}

#[test]
fn why_an_address_failure_is_the_testers_in_words() {
    use super::address::address_tester_reason as why;
    let t = |refused: u64, paced: f64, sent: f64| Trial {
        tx_frames: 100,
        learning: Some(crate::certify::model::LearningRun {
            refused,
            paced_fps: Some(paced),
            sent_fps: Some(sent),
            ..Default::default()
        }),
        ..Trial::default()
    };
    assert_eq!(
        why(&t(3, 1000.0, 1000.0)),
        "tester-bound: 3 learning frames were refused by the port"
    );
    assert_eq!(
        why(&t(0, 1000.0, 1101.0)),
        "tester-bound: the learning frames went at 1101 frames/s, faster than the 1000 asked"
    );
    // Within 110 % of the rate asked: not bursty.
    assert_eq!(
        why(&t(0, 1000.0, 1100.0)),
        "tester-bound: 100 test frames, fewer than two per address"
    );
    assert_eq!(
        why(&t(0, 1000.0, 900.0)),
        "tester-bound: 100 test frames, fewer than two per address"
    );
    let bounded = Trial {
        tester_bound: true,
        ..t(0, 1000.0, 1000.0)
    };
    assert_eq!(why(&bounded), "tester-bound: its sender sent short");
}

#[test]
fn the_rate_sent_is_the_passing_trials_not_an_earlier_ones() {
    // 2,000 and 1,250 asked and flooded (the second sent at 950), then
    // 875 asked and held, sent at 600: the figure is the 600 of the
    // trial that held.
    let mut sim = Sim::new();
    sim.learns_fps = 1_200.0;
    sim.sent_at = vec![(1, 950.0), (2, 600.0)];
    let mut s = address_settings("learning_rate", Some(8));
    s.addresses.rate_min_fps = 500.0;
    s.addresses.rate_max_fps = Some(2_000.0);
    s.addresses.rate_resolution_fps = 600.0;
    let (c, r) = certify(&mut sim, &s);
    r.unwrap();
    let rates: Vec<f64> = sim.specs.iter().map(|t| t.learning_fps.unwrap()).collect();
    assert_eq!(rates, [2_000.0, 1_250.0, 875.0]);
    let row = &c.learning_rate[0];
    assert_eq!(row.learning_fps, Some(600.0), "{:?}", row.note);
}
