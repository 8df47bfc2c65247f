//! YAML profile → validated [`Plan`].
//!
//! A profile names the EAL settings, ports, streams, TX and RX tasks and
//! the run's length (see `docs/profile.md`). [`load`] reads and checks it;
//! every error is one [`ConfigError`] line, `file:line: field.path:
//! message`. Pure: no DPDK.

#![forbid(unsafe_code)]

mod certify;
mod check;
mod eal;
mod error;
mod ext;
mod locate;
mod plan;
mod ports;
mod raw;
mod rx;
mod stream;
mod tx;
mod validate;
mod yaml;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use crate::units::parse_duration;
pub use certify::{parse_size, parse_tests, ADDRESS_TESTS};
#[cfg(test)]
pub(crate) use eal::MAX_PORTS;
pub use error::ConfigError;
#[cfg(test)]
use plan::RunPlan;
pub use plan::{
    CaptureKeep, CapturePlan, Checksum, Clock, ClockServo, CountFrom, Device, Payload, Plan,
    PortPlan, RxStreams, SyncedClock, TxClock, Verify, DEFAULT_DPDK_LOG, FULL_DPDK_LOG,
};

use check::Checker;
use ext::{Layer, RateSpec};
use locate::Locator;

/// The built-in profile: one TX task on a `net_null0` vdev, no hugepages.
pub const DEFAULT_PROFILE: &str = include_str!("../../../configs/null.yaml");

/// The origin [`load_default`] reports in messages and in [`Plan::origin`].
pub const DEFAULT_ORIGIN: &str = "configs/null.yaml (built in)";

/// Read and check the profile at `path`. Relative paths inside it
/// (`tx_pcap=`, `rx_pcap=`, `trace:`) are resolved against the profile's
/// folder.
pub fn load(path: &Path) -> Result<Plan, ConfigError> {
    let origin = path.display().to_string();
    let text = crate::input::read_text(path, crate::input::MAX_PROFILE_BYTES).map_err(|e| {
        ConfigError::new(&origin, None, None, format!("cannot read the profile: {e}"))
    })?;
    let base = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf);
    load_in(&text, &origin, base)
}

/// Check the profile `text`; `origin` names it in messages. Relative
/// paths inside it stay relative to the working directory.
pub fn load_str(text: &str, origin: &str) -> Result<Plan, ConfigError> {
    load_in(text, origin, None)
}

/// The built-in profile ([`DEFAULT_PROFILE`]), checked.
pub fn load_default() -> Result<Plan, ConfigError> {
    load_str(DEFAULT_PROFILE, DEFAULT_ORIGIN)
}

/// Check `text`, resolving relative paths against `base` when given.
fn load_in(text: &str, origin: &str, base: Option<PathBuf>) -> Result<Plan, ConfigError> {
    let root =
        yaml::parse(text).map_err(|e| ConfigError::new(origin, Some(e.line), None, e.message))?;
    let root = match root {
        Some(root) if !is_blank(text) => root,
        _ => {
            return Err(ConfigError::new(
                origin,
                None,
                None,
                "the profile is empty: it needs eal:, ports: and a tx: or rx: list",
            ))
        }
    };
    let profile: raw::Profile =
        yaml::from_node(&root).map_err(|e| ConfigError::from_de(origin, e))?;
    let checker = Checker {
        origin,
        locator: Locator::new(&root),
        base,
    };
    let mut plan = checker.plan(profile)?;
    plan.lines = checker.locator;
    Ok(plan)
}

/// True when `text` holds nothing but blank lines, comments and `---`.
fn is_blank(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || l == "---" || l == "..."
    })
}

/// Where command-line overrides come from, in messages.
const CLI_ORIGIN: &str = "command line";

impl Plan {
    /// An error about `field` (a path such as `tx[0].rate`) found after
    /// loading, e.g. against the device at run time: it names the file and
    /// the field's line, like every other profile error.
    /// A field the command line replaced (`--rate`, `--duration`) blames
    /// that option instead, naming the field and profile it replaced.
    pub fn error(&self, field: &str, message: impl Into<String>) -> ConfigError {
        if let Some(&option) = self.lines.overrides.get(field) {
            let message = format!("{} (for {field} of {})", message.into(), self.origin);
            return ConfigError::new(CLI_ORIGIN, None, Some(option.into()), message);
        }
        let line = self.lines.line(field);
        ConfigError::new(&self.origin, line, Some(field.to_string()), message)
    }

    /// Apply the command line's `--duration` and `--rate`. A rate replaces
    /// the rate of every TX task: a share of line rate (`95%`, `line`) is
    /// split evenly among the tasks of each port, a bit or frame rate
    /// evenly among all TX tasks. A rate that names its layer (`4G@L2`,
    /// `800000pps`) also sets the tasks' layer. Errors name the option.
    pub fn with_overrides(
        mut self,
        duration: Option<Duration>,
        rate: Option<RateSpec>,
    ) -> Result<Plan, ConfigError> {
        if let Some(d) = duration {
            if d.is_zero() {
                return Err(ConfigError::new(
                    CLI_ORIGIN,
                    None,
                    Some("--duration".into()),
                    "the duration must be above zero",
                ));
            }
            self.run.duration = d;
            self.lines
                .overrides
                .insert("run.duration".into(), "--duration");
        }
        if let Some(rate) = rate {
            if self.tx.is_empty() {
                return Err(ConfigError::new(
                    CLI_ORIGIN,
                    None,
                    Some("--rate".into()),
                    format!("the profile {} has no TX task to apply it to", self.origin),
                ));
            }
            let all = self.tx.len();
            for t in 0..self.tx.len() {
                let same_port = self.tx.iter().filter(|o| o.port == self.tx[t].port).count();
                let split = ext::split_rate(&rate, all, same_port)
                    .map_err(|m| ConfigError::new(CLI_ORIGIN, None, Some("--rate".into()), m))?;
                self.lines
                    .overrides
                    .insert(format!("tx[{t}].rate"), "--rate");
                let task = &mut self.tx[t];
                task.rate = split;
                // A rate that names its layer sets it; a bit rate that names
                // none cannot count frames, so it counts the wire (L1).
                match rate {
                    RateSpec::Absolute { layer: Some(l), .. } => task.layer = l,
                    RateSpec::Absolute { layer: None, .. } if task.layer == Layer::Frames => {
                        task.layer = Layer::L1
                    }
                    _ => {}
                }
            }
        }
        Ok(self)
    }
}
