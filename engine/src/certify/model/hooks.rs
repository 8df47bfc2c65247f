//! The device-under-test hooks: what the profile's `certify.dut` asks
//! ([`DutHooks`]), what a failing hook does ([`OnFailure`]) and what one
//! run of a hook did ([`HookRun`]).

use serde::{Deserialize, Serialize};

/// The device-under-test hooks of a certification (`certify.dut`):
/// commands run before and after every trial, and to reset the device.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DutHooks {
    /// Run before every trial (after its learning frames).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_trial: Option<String>,
    /// Run after every trial (once its frames were counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_trial: Option<String>,
    /// Run to reset the device (by the reset test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<String>,
    /// Run to clear the device's address table before each trial of an
    /// address search (RFC 2889 5.7, 5.8), before its learning frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush: Option<String>,
    /// How long a hook may run before it is killed, seconds.
    pub timeout_s: f64,
    /// What a hook that fails (or hangs) does to the certification.
    pub on_failure: OnFailure,
}

/// The default [`DutHooks::timeout_s`], seconds.
pub const HOOK_TIMEOUT_S: f64 = 30.0;

impl Default for DutHooks {
    /// No hook, a 30 s limit, `stop`.
    fn default() -> Self {
        DutHooks {
            before_trial: None,
            after_trial: None,
            reset: None,
            flush: None,
            timeout_s: HOOK_TIMEOUT_S,
            on_failure: OnFailure::Stop,
        }
    }
}

/// What a failing device-under-test hook does.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum OnFailure {
    /// The certification ends with an error naming the hook (its reports
    /// are still written).
    #[default]
    Stop,
    /// The trial carries a problem naming the hook, and the
    /// certification goes on.
    Continue,
}

impl OnFailure {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            OnFailure::Stop => "stop",
            OnFailure::Continue => "continue",
        }
    }
}

/// One run of a device-under-test hook (`certify.dut`): a command run
/// before or after a trial, or to reset the device.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HookRun {
    /// Which hook: `before_trial`, `after_trial`, `reset` or `flush`.
    pub hook: String,
    /// The command as the profile gives it.
    pub command: String,
    /// Its exit status; `None` when it was killed (timed out or by a
    /// signal).
    pub status: Option<i32>,
    /// It ran past its time limit and was killed.
    pub timed_out: bool,
    /// Seconds it ran.
    pub seconds: f64,
    /// Its standard output and error as it wrote them (one pipe), the
    /// last 4 KiB at most.
    pub output: String,
    /// Bytes it wrote in all (more than `output` holds when it was cut
    /// to its tail).
    #[serde(default)]
    pub output_bytes: u64,
}

impl HookRun {
    /// The hook ended with status 0 in time.
    pub fn ok(&self) -> bool {
        self.status == Some(0) && !self.timed_out
    }

    /// How it failed, in words (`exited with status 3`, `ran past its
    /// time limit and was killed after 2.0 s`); `None` when it did not.
    pub fn failure(&self) -> Option<String> {
        if self.timed_out {
            return Some(format!(
                "ran past its time limit and was killed (its whole process group) after {:.1} s",
                self.seconds
            ));
        }
        match self.status {
            Some(0) => None,
            Some(n) => Some(format!("exited with status {n}")),
            None => Some("was killed by a signal".into()),
        }
    }

    /// The last line of its output as `; its output ends: ...`, empty
    /// when it wrote nothing.
    pub fn output_tail(&self) -> String {
        match self.output.lines().rev().find(|l| !l.trim().is_empty()) {
            Some(l) => format!("; its output ends: {}", l.trim()),
            None => String::new(),
        }
    }
}
