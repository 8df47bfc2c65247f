//! Which settings of a certification are below what RFC 2544 asks: each
//! becomes a line of the "not RFC-conformant" box every output shows.
//!
//! RFC 2544's numbers, by section:
//!
//! | setting                | RFC 2544                                        |
//! |------------------------|-------------------------------------------------|
//! | `trial`                | at least 60 s (24)                              |
//! | `search_trial`         | every trial at least 60 s (24)                  |
//! | `settle`               | 2 s for residual frames (23(d))                 |
//! | `restabilise`          | at least 5 s (23(e))                            |
//! | `learning`             | learning frames before each trial (23(b))       |
//! | `learning_wait`        | 2 s after the learning frames (23(b))           |
//! | `tolerance`            | no frame lost (26.1, RFC 1242 3.17)             |
//! | `latency_trial`        | at least 120 s (26.2)                           |
//! | `latency_trials`       | at least 20 (26.2)                              |
//! | `loss_step`            | at most 10 % of the maximum rate (26.3)         |
//! | `back_to_back_max`     | trials of at least 2 s (26.4)                   |
//! | `back_to_back_trials`  | at least 50 (26.4)                              |
//! | `recovery_overload`    | at least 60 s (26.5)                            |

use super::model::{Deviation, Learning, Settings};
use super::round::{duration, trimmed};

/// The largest loss step RFC 2544 section 26.3 allows, % of line; a
/// coarser step is refused unless `--quick` asks for it.
pub const MAX_LOSS_STEP_PCT: f64 = 10.0;

/// Every setting of `s` below RFC 2544's, in the order of the table
/// above, for the tests `s` runs; empty when the certification is
/// conformant.
pub fn deviations(s: &Settings) -> Vec<Deviation> {
    let mut out = trial_deviations(s);
    out.extend(test_deviations(s));
    out
}

/// The settings below what RFC 2544 asks of every trial (sections 23
/// and 24): its length, the settle and restabilise waits, learning.
fn trial_deviations(s: &Settings) -> Vec<Deviation> {
    let runs = |t: &str| s.tests.iter().any(|x| x == t);
    let searches = runs("throughput") || runs("loss");
    let mut out = Vec::new();
    add(
        &mut out,
        searches && s.trial_s < 60.0,
        "trial",
        duration(s.trial_s),
        "at least 60 s (section 24)",
    );
    if let Some(t) = s.search_trial_s {
        add(
            &mut out,
            runs("throughput") && t < 60.0,
            "search_trial",
            duration(t),
            "every trial at least 60 s, the search's too (section 24)",
        );
    }
    add(
        &mut out,
        s.settle_s < 2.0,
        "settle",
        duration(s.settle_s),
        "2 s for residual frames after each trial (section 23(d))",
    );
    add(
        &mut out,
        s.restabilise_s < 5.0,
        "restabilise",
        duration(s.restabilise_s),
        "at least 5 s for the device to restabilise after each trial (section 23(e))",
    );
    add(
        &mut out,
        s.learning != Learning::EveryTrial,
        "learning",
        s.learning.key().to_string(),
        "learning frames before each trial (section 23(b))",
    );
    add(
        &mut out,
        s.learning != Learning::Off && s.learning_wait_s < 2.0,
        "learning_wait",
        duration(s.learning_wait_s),
        "2 s for the device to learn the addresses after the learning frames (section 23(b))",
    );
    out
}

/// The settings below what RFC 2544 asks of each test (section 26), for
/// the tests `s` runs.
fn test_deviations(s: &Settings) -> Vec<Deviation> {
    let runs = |t: &str| s.tests.iter().any(|x| x == t);
    let mut out = Vec::new();
    add(
        &mut out,
        runs("throughput") && s.loss_tolerance_pct > 0.0,
        "tolerance",
        format!("{} %", trimmed(s.loss_tolerance_pct)),
        "no frame lost at the throughput rate (section 26.1; RFC 1242 3.17)",
    );
    add(
        &mut out,
        runs("latency") && s.latency_trial_s < 120.0,
        "latency_trial",
        duration(s.latency_trial_s),
        "at least 120 s (section 26.2)",
    );
    add(
        &mut out,
        runs("latency") && s.latency_trials < 20,
        "latency_trials",
        s.latency_trials.to_string(),
        "at least 20 (section 26.2)",
    );
    add(
        &mut out,
        runs("loss") && s.loss_step_pct > MAX_LOSS_STEP_PCT,
        "loss_step",
        format!("{} %", trimmed(s.loss_step_pct)),
        "at most 10 % of the maximum rate (section 26.3)",
    );
    add(
        &mut out,
        runs("back_to_back") && s.back_to_back_max_s < 2.0,
        "back_to_back_max",
        duration(s.back_to_back_max_s),
        "trials of at least 2 s (section 26.4)",
    );
    add(
        &mut out,
        runs("back_to_back") && s.back_to_back_trials < 50,
        "back_to_back_trials",
        s.back_to_back_trials.to_string(),
        "at least 50 (section 26.4)",
    );
    add(
        &mut out,
        runs("recovery") && s.recovery_overload_s < 60.0,
        "recovery_overload",
        duration(s.recovery_overload_s),
        "at least 60 s of overload (section 26.5)",
    );
    out
}

/// Adds `setting` to `out` when `on`: its value, and what RFC 2544 asks.
fn add(out: &mut Vec<Deviation>, on: bool, setting: &str, value: String, rfc: &str) {
    if on {
        out.push(Deviation {
            setting: format!("certify.{setting}"),
            value,
            rfc: rfc.to_string(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(s: &Settings) -> Vec<String> {
        deviations(s).into_iter().map(|d| d.setting).collect()
    }

    #[test]
    fn a_short_learning_wait_is_listed_unless_learning_is_off() {
        let short = Settings {
            learning_wait_s: 0.1,
            ..Settings::default()
        };
        let d = deviations(&short);
        assert_eq!(d.len(), 1);
        assert_eq!(
            d[0],
            Deviation {
                setting: "certify.learning_wait".into(),
                value: "0.1 s".into(),
                rfc: "2 s for the device to learn the addresses after the learning frames \
                      (section 23(b))"
                    .into(),
            }
        );
        let off = Settings {
            learning: Learning::Off,
            ..short
        };
        assert_eq!(keys(&off), ["certify.learning"]);
    }

    #[test]
    fn rfc_defaults_are_conformant() {
        assert!(deviations(&Settings::default()).is_empty());
        let quick = Settings {
            quick: true,
            ..Settings::default()
        };
        assert!(
            deviations(&quick).is_empty(),
            "--quick alone changes nothing"
        );
    }

    #[test]
    fn every_setting_below_the_rfc_is_listed_with_its_value_and_the_rfc_s() {
        let s = Settings {
            trial_s: 2.0,
            search_trial_s: Some(1.0),
            settle_s: 0.5,
            restabilise_s: 0.0,
            learning: Learning::Once,
            learning_wait_s: 0.1,
            loss_tolerance_pct: 0.1,
            latency_trial_s: 10.0,
            latency_trials: 3,
            loss_step_pct: 25.0,
            back_to_back_max_s: 0.05,
            back_to_back_trials: 3,
            tests: ["throughput", "latency", "loss", "back_to_back", "recovery"]
                .map(String::from)
                .to_vec(),
            recovery_overload_s: 5.0,
            ..Settings::default()
        };
        let d = deviations(&s);
        assert_eq!(
            d.iter().map(|d| d.setting.as_str()).collect::<Vec<_>>(),
            [
                "certify.trial",
                "certify.search_trial",
                "certify.settle",
                "certify.restabilise",
                "certify.learning",
                "certify.learning_wait",
                "certify.tolerance",
                "certify.latency_trial",
                "certify.latency_trials",
                "certify.loss_step",
                "certify.back_to_back_max",
                "certify.back_to_back_trials",
                "certify.recovery_overload",
            ]
        );
        assert_eq!(
            d[0],
            Deviation {
                setting: "certify.trial".into(),
                value: "2 s".into(),
                rfc: "at least 60 s (section 24)".into(),
            }
        );
        assert_eq!(d[4].value, "once");
        assert_eq!(d[5].value, "0.1 s");
        assert_eq!(d[6].value, "0.1 %");
        assert_eq!(d[9].value, "25 %");
        assert_eq!(d[11].value, "3");
    }

    #[test]
    fn the_edges_are_conformant() {
        let s = Settings {
            trial_s: 60.0,
            search_trial_s: Some(60.0),
            settle_s: 2.0,
            restabilise_s: 5.0,
            latency_trial_s: 120.0,
            latency_trials: 20,
            loss_step_pct: 10.0,
            back_to_back_max_s: 2.0,
            back_to_back_trials: 50,
            ..Settings::default()
        };
        assert!(deviations(&s).is_empty(), "{:?}", deviations(&s));
    }

    #[test]
    fn a_test_not_run_is_not_held_to_its_settings() {
        let s = Settings {
            tests: vec!["back_to_back".into()],
            trial_s: 1.0,
            search_trial_s: Some(1.0),
            loss_tolerance_pct: 1.0,
            latency_trial_s: 1.0,
            latency_trials: 1,
            loss_step_pct: 50.0,
            ..Settings::default()
        };
        assert!(keys(&s).is_empty(), "{:?}", keys(&s));
        let s = Settings {
            tests: vec!["loss".into()],
            trial_s: 1.0,
            back_to_back_trials: 1,
            back_to_back_max_s: 0.1,
            ..Settings::default()
        };
        assert_eq!(keys(&s), ["certify.trial"]);
    }
}
