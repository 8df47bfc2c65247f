//! The verdict of a certification: one decision, from its criteria, its
//! problems and how it ended, that gives the terminal's last line, the
//! exit status and what every report states
//! ([`Certification::verdict`]).

use super::model::{Certification, VerdictRecord};
use crate::outcome::{exit, Problem};

/// How a certification ended: what its last terminal line says, what
/// every report states, and its exit status, from one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Complete, every criterion met, no problem: exit 0.
    Pass,
    /// Complete, no acceptance criteria, no problem: figures only, no
    /// verdict on the device: exit 0.
    Figures,
    /// Complete, a criterion judged and not met: exit 5.
    Fail,
    /// Complete, no criterion failed but one could not be judged (the
    /// figure it needs was the tester's limit): exit 3.
    NotJudged,
    /// Complete, every criterion met (or none set), but a problem casts
    /// doubt on the figures (a result the tester bounded, a link
    /// lost...): exit 3.
    Doubt,
    /// A signal stopped it: exit 4.
    Incomplete,
    /// An error stopped it: exit 1.
    Error,
}

impl Verdict {
    /// The verdict of `c`; `error` when an error (not a signal) ended it.
    pub fn of(c: &Certification, error: bool) -> Verdict {
        if error {
            Verdict::Error
        } else if !c.complete {
            Verdict::Incomplete
        } else if c.criteria.iter().any(|k| k.judged && !k.passed) {
            Verdict::Fail
        } else if c.criteria.iter().any(|k| !k.judged) {
            Verdict::NotJudged
        } else if !c.problems.is_empty() {
            Verdict::Doubt
        } else if c.criteria.is_empty() {
            Verdict::Figures
        } else {
            Verdict::Pass
        }
    }

    /// The exit status of `landspeed rfc2544` for this verdict.
    pub fn exit(self) -> u8 {
        match self {
            Verdict::Pass | Verdict::Figures => exit::OK,
            Verdict::Fail => exit::FAILED,
            Verdict::NotJudged | Verdict::Doubt => exit::SHORTFALL,
            Verdict::Incomplete => exit::INTERRUPTED,
            Verdict::Error => exit::ERROR,
        }
    }

    /// Its state in one word, as the JSON, the CSV and the JUnit name it.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Figures => "figures",
            Verdict::Fail => "fail",
            Verdict::NotJudged => "not_judged",
            Verdict::Doubt => "doubt",
            Verdict::Incomplete => "incomplete",
            Verdict::Error => "error",
        }
    }

    /// The record every output writes: state, text, exit status.
    pub fn record(self, c: &Certification) -> VerdictRecord {
        VerdictRecord {
            state: self.key().into(),
            text: text(c, self),
            exit: self.exit(),
        }
    }
}

/// The verdict every output states: the certification's own
/// [`VerdictRecord`] once it was judged (`cli` sets it before writing
/// anything), else the one [`Verdict::of`] gives it as it stands.
pub fn verdict_of(c: &Certification) -> VerdictRecord {
    c.verdict
        .clone()
        .unwrap_or_else(|| Verdict::of(c, false).record(c))
}

/// The verdict line: [`text`], its exit status at the end.
pub fn verdict(c: &Certification, v: Verdict) -> String {
    format!("{} (exit {})", text(c, v), v.exit())
}

/// The verdict in words, the same in every output: `PASS: all 4
/// acceptance criteria met`, `NO VERDICT: no acceptance criteria, figures
/// only`, `FAIL: 1 of 4 acceptance criteria not met`, `NOT JUDGED: 2 of
/// 4 acceptance criteria could not be judged: their figures are the
/// tester's limit, not the device's`, `PASS (device criteria) but
/// tester-bound: ...`, `INCOMPLETE: why`, `ERROR: why`.
pub fn text(c: &Certification, v: Verdict) -> String {
    let why = c.stopped_by.as_deref().unwrap_or("stopped");
    let n = c.criteria.len();
    match v {
        Verdict::Pass => format!("PASS: all {n} acceptance criteria met"),
        Verdict::Figures => "NO VERDICT: no acceptance criteria, figures only".to_string(),
        Verdict::Fail => {
            let failed = c.criteria.iter().filter(|k| k.judged && !k.passed).count();
            let open = c.criteria.iter().filter(|k| !k.judged).count();
            let also = if open > 0 {
                format!(" ({open} more not judged: the tester's limit)")
            } else {
                String::new()
            };
            format!("FAIL: {failed} of {n} acceptance criteria not met{also}")
        }
        Verdict::NotJudged => {
            let open = c.criteria.iter().filter(|k| !k.judged).count();
            format!(
                "NOT JUDGED: {open} of {n} acceptance criteria could not be judged: their figures \
                 are the tester's limit (or every trial behind them was left out), not the device's"
            )
        }
        Verdict::Doubt => {
            let bound = (c.problems.iter())
                .filter(|p| matches!(p, Problem::TesterBound { .. }))
                .count();
            let other = c.problems.len() - bound;
            let criteria = if c.criteria.is_empty() {
                "NO VERDICT (no acceptance criteria)".to_string()
            } else {
                format!("PASS (all {n} device criteria met)")
            };
            let others = format!("{other} problem(s) cast doubt on the figures");
            let doubt = match (bound, other) {
                (0, _) => others,
                (b, 0) => format!("tester-bound: {b} result(s) are the tester's limit, not the device's"),
                (b, _) => format!(
                    "tester-bound: {b} result(s) are the tester's limit, not the device's, and {others}"
                ),
            };
            format!("{criteria} but {doubt}")
        }
        Verdict::Incomplete => format!("INCOMPLETE: {why}"),
        Verdict::Error => format!("ERROR: {why}"),
    }
}
