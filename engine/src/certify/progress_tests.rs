//! The estimate, with exact values.

use super::*;
use crate::certify::model::Trial;

const LINE: u64 = 10_000_000_000;

fn settings(tests: &[&str], sizes: &[u32]) -> Settings {
    Settings {
        tests: tests.iter().map(|t| t.to_string()).collect(),
        sizes: sizes.to_vec(),
        trial_s: 1.0,
        settle_s: 0.5,
        latency_trials: 3,
        latency_trial_s: 2.0,
        back_to_back_trials: 3,
        back_to_back_max_s: 0.01,
        restabilise_s: 0.0,
        learning: crate::certify::model::Learning::Off,
        ..Settings::default()
    }
}

#[test]
fn the_restabilise_and_learning_waits_count_in_the_time_left() {
    use crate::certify::model::Learning;
    let base = settings(&["latency"], &[64]);
    let plain = Estimator::new(&base, &["a → b".to_string()], LINE).estimate(0.0);
    // 3 latency trials of 2 s, each settled 0.5 s.
    assert_eq!(plain.left_s, 7.5);
    let waits = Settings {
        restabilise_s: 5.0,
        learning: Learning::EveryTrial,
        learning_wait_s: 2.0,
        ..base.clone()
    };
    let e = Estimator::new(&waits, &["a → b".to_string()], LINE).estimate(0.0);
    // Each trial 5 s to restabilise, 2 s to learn, 2 gaps of 10 ms.
    assert!((e.left_s - (7.5 + 3.0 * 7.02)).abs() < 1e-9, "{}", e.left_s);
    let once = Settings {
        learning: Learning::Once,
        ..waits
    };
    let e = Estimator::new(&once, &["a → b".to_string()], LINE).estimate(0.0);
    assert_eq!(e.left_s, 7.5 + 15.0);
}

/// Recovery and reset count their own trials and lengths: recovery
/// its trials of overload and reduced load at every size, reset its
/// trials at the smallest size only.
#[test]
fn recovery_and_reset_count_their_trials_and_lengths() {
    let s = Settings {
        recovery_overload_s: 3.0,
        recovery_reduced_s: 2.0,
        recovery_trials: 2,
        reset_at_s: 1.0,
        reset_trial_s: 4.0,
        reset_trials: 3,
        ..settings(&["recovery", "reset"], &[128, 64])
    };
    let keys: Vec<(String, Option<usize>, u32)> = (segments(&s, 1).into_iter())
        .map(|g| (g.test, g.direction, g.frame_size))
        .collect();
    let key = |t: &str, z: u32| (t.to_string(), Some(0), z);
    assert_eq!(
        keys,
        [key("recovery", 128), key("recovery", 64), key("reset", 64)]
    );
    let mut e = Estimator::new(&s, &labels(1), LINE);
    let at = e.estimate(0.0);
    // 2 sizes × 2 recovery trials of 3 + 2 s, 3 reset trials of 4 s,
    // each settled 0.5 s.
    assert_eq!((at.total, at.trials), (7, 2));
    assert_eq!(at.left_s, 2.0 * 2.0 * 5.5 + 3.0 * 4.5);
    assert_eq!(at.left_s, 35.5);
    run(
        &mut e,
        &s,
        "recovery",
        spec(Some(0), 128, 55.0, None),
        &trial(55.0, false, 7),
    );
    let at = e.estimate(5.5);
    assert_eq!((at.test.as_str(), at.trial, at.done), ("recovery", 1, 1));
    assert_eq!(at.left_s, 30.0);
    // Two directions: each, then the aggregate.
    let e = Estimator::new(&s, &labels(2), LINE).estimate(0.0);
    assert_eq!((e.total, e.left_s), (21, 3.0 * 35.5));
}

fn spec(dir: Option<usize>, size: u32, rate: f64, burst: Option<u64>) -> TrialSpec {
    TrialSpec {
        direction: dir,
        frame_size: size,
        rate_pct: rate,
        duration_s: 1.0,
        burst,
        settle_s: 0.5,
        ..TrialSpec::default()
    }
}

fn trial(rate: f64, passed: bool, lost: u64) -> Trial {
    Trial {
        offered_pct: rate,
        tx_frames: 1000,
        rx_frames: 1000 - lost,
        lost,
        passed,
        ..Trial::default()
    }
}

/// Feeds the start and the end of one trial.
fn run(e: &mut Estimator, s: &Settings, test: &'static str, sp: TrialSpec, t: &Trial) {
    let dirs = vec!["a → b".to_string(), "b → a".to_string()];
    let step = |trial| Step {
        test,
        spec: &sp,
        trial,
        done: 0,
        planned: 0,
        settings: s,
        directions: &dirs,
        line_bps: LINE,
    };
    e.step(&step(None));
    e.step(&step(Some(t)));
}

fn labels(n: usize) -> Vec<String> {
    ["a → b", "b → a"][..n]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn the_searches_run_per_test_size_and_direction_then_the_aggregate() {
    let s = settings(&["throughput", "loss"], &[64, 1518]);
    let g = segments(&s, 2);
    let keys: Vec<(&str, Option<usize>, u32)> = g
        .iter()
        .map(|g| (g.test.as_str(), g.direction, g.frame_size))
        .collect();
    assert_eq!(
        keys,
        [
            ("throughput", Some(0), 64),
            ("throughput", Some(1), 64),
            ("throughput", None, 64),
            ("throughput", Some(0), 1518),
            ("throughput", Some(1), 1518),
            ("throughput", None, 1518),
            ("loss", Some(0), 64),
            ("loss", Some(1), 64),
            ("loss", None, 64),
            ("loss", Some(0), 1518),
            ("loss", Some(1), 1518),
            ("loss", None, 1518),
        ]
    );
    assert_eq!(segments(&s, 1).len(), 4);
}

#[test]
fn the_counting_rules() {
    let s = settings(&["throughput"], &[64]);
    // 100 % in halvings down to 0.1 %: 100/2^10 = 0.098.
    assert_eq!(halvings(100.0, 0.1), 10);
    assert_eq!(halvings(100.0, 25.0), 2);
    assert_eq!(halvings(0.1, 0.1), 0);
    assert_eq!(full_throughput(&s), 12);
    assert_eq!(loss_steps(&s), 10);
    let s = Settings {
        loss_step_pct: 30.0,
        ..s
    };
    // 100, 70, 40, 10.
    assert_eq!(loss_steps(&s), 4);
    assert_eq!(human_duration(0.4), "0 s");
    assert_eq!(human_duration(59.6), "1 min 00 s");
    assert_eq!(human_duration(725.0), "12 min 05 s");
    assert_eq!(human_duration(12_000.0), "3 h 20 min");
    assert_eq!(human_duration(-3.0), "0 s");
}

#[test]
fn before_the_first_trial_every_throughput_search_is_a_whole_one() {
    let s = settings(&["throughput"], &[64, 1518]);
    let e = Estimator::new(&s, &labels(1), LINE);
    let x = e.estimate(0.0);
    assert_eq!((x.trial, x.trials, x.done, x.total), (0, 12, 0, 24));
    // 24 trials of 1 s and 0.5 s of settle.
    assert_eq!(x.left_s, 36.0);
    assert_eq!((x.test.as_str(), x.frame_size), ("throughput", 64));
}

#[test]
fn a_pass_at_the_upper_bound_makes_the_search_two_trials_and_the_next_alike() {
    let s = settings(&["throughput"], &[64, 1518]);
    let mut e = Estimator::new(&s, &labels(1), LINE);
    let sp = spec(Some(0), 64, 100.0, None);
    let dirs = labels(1);
    let step = |trial| Step {
        test: "throughput",
        spec: &sp,
        trial,
        done: 0,
        planned: 0,
        settings: &s,
        directions: &dirs,
        line_bps: LINE,
    };
    e.step(&step(None));
    let x = e.estimate(0.2);
    assert_eq!((x.trial, x.trials, x.done, x.total), (1, 12, 0, 24));
    assert_eq!(x.rate_pct, 100.0);
    assert_eq!(x.left_s, 36.0, "the running trial and 23 more");
    let t = trial(100.0, true, 0);
    e.step(&step(Some(&t)));
    // 1.5 s nominal ran in 2.0 s: 0.5 s of overhead per trial.
    let x = e.estimate(2.0);
    assert_eq!((x.trial, x.trials, x.done, x.total), (1, 2, 1, 14));
    assert_eq!(x.left_s, 13.0 * 2.0);
    // The confirmation passes: the next size is expected alike.
    e.step(&step(None));
    e.step(&step(Some(&t)));
    let x = e.estimate(3.0);
    assert_eq!((x.trial, x.trials, x.done, x.total), (2, 2, 2, 4));
    assert_eq!(x.left_s, 2.0 * 1.5);
    run(
        &mut e,
        &s,
        "throughput",
        spec(Some(0), 1518, 100.0, None),
        &t,
    );
    let x = e.estimate(4.5);
    assert_eq!(
        (x.frame_size, x.trial, x.trials, x.done, x.total),
        (1518, 1, 2, 3, 4)
    );
    assert_eq!(x.left_s, 1.5);
}

#[test]
fn a_failure_at_the_upper_bound_expects_the_whole_search() {
    let s = settings(&["throughput"], &[64]);
    let mut e = Estimator::new(&s, &labels(1), LINE);
    run(
        &mut e,
        &s,
        "throughput",
        spec(Some(0), 64, 100.0, None),
        &trial(100.0, false, 5),
    );
    let x = e.estimate(1.5);
    assert_eq!((x.trial, x.trials, x.done, x.total), (1, 12, 1, 12));
    assert_eq!(x.left_s, 11.0 * 1.5);
    assert!(!x.direction.is_empty());
}

#[test]
fn latency_takes_its_trials_and_none_where_throughput_passed_nothing() {
    let s = settings(&["throughput", "latency"], &[64, 1518]);
    let mut e = Estimator::new(&s, &labels(1), LINE);
    // 64 B: the upper bound fails, and so does every halving.
    let mut rate = 100.0;
    for _ in 0..12 {
        run(
            &mut e,
            &s,
            "throughput",
            spec(Some(0), 64, rate, None),
            &trial(rate, false, 1),
        );
        rate /= 2.0;
    }
    let x = e.estimate(18.0);
    assert_eq!((x.trial, x.trials, x.done), (12, 12, 12));
    // 1518 B throughput, like the last (12), then latency: 0 at 64 B, 3
    // at 1518 B.
    assert_eq!(x.total, 12 + 12 + 3);
    assert_eq!(x.left_s, 12.0 * 1.5 + 3.0 * 2.5);
}

#[test]
fn a_loss_curve_ends_after_two_loss_free_steps() {
    let s = settings(&["loss"], &[64, 128]);
    let mut e = Estimator::new(&s, &labels(1), LINE);
    assert_eq!(e.estimate(0.0).total, 20);
    run(
        &mut e,
        &s,
        "loss",
        spec(Some(0), 64, 100.0, None),
        &trial(100.0, false, 9),
    );
    let x = e.estimate(1.5);
    assert_eq!((x.trial, x.trials, x.total), (1, 3, 13));
    run(
        &mut e,
        &s,
        "loss",
        spec(Some(0), 64, 90.0, None),
        &trial(90.0, true, 0),
    );
    let x = e.estimate(3.0);
    assert_eq!((x.trial, x.trials, x.total), (2, 3, 13));
    run(
        &mut e,
        &s,
        "loss",
        spec(Some(0), 64, 80.0, None),
        &trial(80.0, true, 0),
    );
    let x = e.estimate(4.5);
    // The curve ended; the next size is expected like it: 3 trials.
    assert_eq!((x.trial, x.trials, x.total), (3, 3, 6));
    assert_eq!(x.left_s, 3.0 * 1.5);
}

#[test]
fn back_to_back_searches_and_the_aggregate() {
    let s = settings(&["back_to_back"], &[1518]);
    let max = max_burst(&s, LINE, 1518);
    assert_eq!(max, 8128);
    let mut e = Estimator::new(&s, &labels(2), LINE);
    // Three directions (two and the aggregate), three searches of 14.
    let x = e.estimate(0.0);
    assert_eq!(x.total, 3 * 3 * 14);
    // The first search's longest burst passes: one trial a search.
    let t = trial(100.0, true, 0);
    run(
        &mut e,
        &s,
        "back_to_back",
        spec(Some(0), 1518, 100.0, Some(max)),
        &t,
    );
    let x = e.estimate(0.51);
    assert_eq!((x.trial, x.trials, x.burst), (1, 3, Some(max)));
    // 3 for this row; the next rows are expected whole until a row
    // ends: 14 trials a search, the longest burst and its 13 halvings.
    assert_eq!(x.total, 3 + 42 + 42);
    let (burst, halving) = (0.01 + 0.5, 0.005 + 0.5);
    let row = 3.0 * burst + 39.0 * halving;
    assert!(
        (x.left_s - (2.0 * burst + 2.0 * row)).abs() < 1e-9,
        "{}",
        x.left_s
    );
    // The row ends; in the next one the longest burst fails.
    run(
        &mut e,
        &s,
        "back_to_back",
        spec(Some(0), 1518, 100.0, Some(max)),
        &t,
    );
    run(
        &mut e,
        &s,
        "back_to_back",
        spec(Some(0), 1518, 100.0, Some(max)),
        &t,
    );
    let bad = trial(100.0, false, 3);
    run(
        &mut e,
        &s,
        "back_to_back",
        spec(Some(1), 1518, 100.0, Some(max)),
        &bad,
    );
    let x = e.estimate(2.04);
    assert_eq!(
        (x.direction.as_str(), x.trial, x.trials),
        ("b → a", 1, 14 * 3)
    );
    // Half the longest burst passes: 4064 frames still open, 12
    // halvings, then 2 searches of 14; the aggregate row is expected
    // like the last row that ended (one trial a search).
    run(
        &mut e,
        &s,
        "back_to_back",
        spec(Some(1), 1518, 100.0, Some(4064)),
        &t,
    );
    let x = e.estimate(2.6);
    assert_eq!((x.trial, x.trials), (2, 2 + 12 + 28));
    assert_eq!(x.total, 3 + 42 + 3);
}

#[test]
fn the_plain_line_says_where_the_certification_is() {
    let s = settings(&["throughput"], &[64]);
    let mut e = Estimator::new(&s, &labels(1), LINE);
    let sp = spec(Some(0), 64, 50.0, None);
    let mut t = trial(50.0, false, 7);
    t.frame_size = 64;
    t.direction = "a → b".into();
    t.tester_bound = true;
    let dirs = labels(1);
    let st = Step {
        test: "throughput",
        spec: &sp,
        trial: Some(&t),
        done: 1,
        planned: 12,
        settings: &s,
        directions: &dirs,
        line_bps: LINE,
    };
    e.step(&st);
    let x = e.estimate(1.5);
    assert_eq!(
        plain_line(&st, &x),
        "landspeed: throughput 64 B a → b: trial 1 of ~12 (certification: 1 of ~12): \
         50.000 % of line, 1000 sent, 7 lost, fail, tester-bound (~17 s left)"
    );
    assert_eq!(
        now_text(&x),
        "throughput 64 B a → b: trial 1 of ~12, 50.000 % of line"
    );
    let start = Step { trial: None, ..st };
    assert_eq!(plain_line(&start, &x), "");
}
