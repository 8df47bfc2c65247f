//! How a run ended and whether its figures can be taken as the device's.
//!
//! A figure landspeed prints is a promise: a run that missed its target,
//! lost its link, was descheduled or was interrupted says so in three
//! places that always agree: the summary (one `warning:` line per
//! [`Problem`]), the JSON (`outcome`), and the exit status
//! ([`Outcome::exit_status`], the table in docs/user-guide.md).
#![forbid(unsafe_code)]

use serde::{Deserialize, Serialize};

/// The exit statuses of `landspeed`. docs/user-guide.md lists them; a
/// change here changes that table.
pub mod exit {
    /// The run completed and nothing in [`super::Outcome`] casts doubt on
    /// its figures (or a command other than `run` succeeded).
    pub const OK: u8 = 0;
    /// An error: bad input, a device that failed, an output that could not
    /// be written. One `landspeed: error:` line on standard error.
    pub const ERROR: u8 = 1;
    /// The command line itself was wrong (clap's own status).
    pub const USAGE: u8 = 2;
    /// The run completed and its results were written, but at least one
    /// [`super::Problem`] says its figures are not a clean measurement of
    /// the device (target missed, link lost, core descheduled, ...).
    pub const SHORTFALL: u8 = 3;
    /// A signal stopped the run before its duration; the summary and the
    /// JSON were written and say `complete: false`.
    pub const INTERRUPTED: u8 = 4;
}

/// One reason the run's figures are not a clean measurement of the device.
/// Each is printed as a `warning:` line and kept in the JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// A free-form problem (kept for results written by other versions).
    Other {
        /// What went wrong, in words.
        detail: String,
    },
    /// Frames of more streams than an RX lcore tracks arrived: those
    /// streams were not checked (their loss, order and integrity are
    /// unknown; they are not counted lost).
    StreamsNotTracked {
        /// Frames of the streams not tracked.
        frames: u64,
        /// Streams not tracked (distinct ids).
        streams: u64,
        /// Streams one RX lcore tracks.
        limit: u64,
    },
}

impl Problem {
    /// The problem as one line of text, without the `warning: ` prefix.
    pub fn text(&self) -> String {
        match self {
            Problem::Other { detail } => detail.clone(),
            Problem::StreamsNotTracked {
                frames,
                streams,
                limit,
            } => format!(
                "overflow {frames} frames of {streams} streams not tracked: an RX lcore tracks at most {limit} streams, so their loss, order and integrity were not checked (spread the streams over more RX lcores or queues)"
            ),
        }
    }
}

/// How the run ended, and what casts doubt on its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The run lasted its whole duration (false when a signal stopped it).
    pub complete: bool,
    /// The signal that stopped the run early (`SIGINT`, `SIGTERM`,
    /// `SIGHUP`), if one did.
    pub interrupted_by: Option<String>,
    /// Whether every TX task reached its target rate; `None` for runs
    /// without a paced sender.
    pub target_met: Option<bool>,
    /// What casts doubt on the figures; empty for a clean run.
    pub problems: Vec<Problem>,
}

impl Default for Outcome {
    fn default() -> Self {
        Self {
            complete: true,
            interrupted_by: None,
            target_met: None,
            problems: Vec::new(),
        }
    }
}

impl Outcome {
    /// The exit status this outcome asks for: [`exit::INTERRUPTED`] before
    /// [`exit::SHORTFALL`] before [`exit::OK`].
    pub fn exit_status(&self) -> u8 {
        if !self.complete {
            exit::INTERRUPTED
        } else if !self.problems.is_empty() || self.target_met == Some(false) {
            exit::SHORTFALL
        } else {
            exit::OK
        }
    }

    /// Record a problem (once: an equal problem is not added twice).
    pub fn add(&mut self, p: Problem) {
        if !self.problems.contains(&p) {
            self.problems.push(p);
        }
    }

    /// The summary's `warning:` lines, one per problem, each ending in a
    /// newline; empty for a clean run.
    pub fn warning_lines(&self) -> String {
        let mut s = String::new();
        if let Some(sig) = &self.interrupted_by {
            s.push_str(&format!(
                "warning: the run was stopped by {sig} before its duration; its figures cover the time it ran\n"
            ));
        }
        for p in &self.problems {
            s.push_str("warning: ");
            s.push_str(&p.text());
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_run_exits_zero_and_prints_nothing() {
        let o = Outcome::default();
        assert_eq!(o.exit_status(), exit::OK);
        assert_eq!(o.warning_lines(), "");
    }

    #[test]
    fn a_missed_target_is_a_shortfall_even_without_a_problem_line() {
        let o = Outcome {
            target_met: Some(false),
            ..Outcome::default()
        };
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn interruption_wins_over_a_shortfall() {
        let mut o = Outcome {
            complete: false,
            interrupted_by: Some("SIGINT".into()),
            ..Outcome::default()
        };
        o.add(Problem::Other { detail: "x".into() });
        assert_eq!(o.exit_status(), exit::INTERRUPTED);
        assert_eq!(
            o.warning_lines(),
            "warning: the run was stopped by SIGINT before its duration; its figures cover the time it ran\nwarning: x\n"
        );
    }

    #[test]
    fn a_problem_is_recorded_once() {
        let mut o = Outcome::default();
        let p = Problem::Other {
            detail: "link down".into(),
        };
        o.add(p.clone());
        o.add(p);
        assert_eq!(o.problems.len(), 1);
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn the_json_names_each_problem_by_kind() {
        let p = Problem::Other { detail: "d".into() };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"kind":"other","detail":"d"}"#
        );
    }
}
