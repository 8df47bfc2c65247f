//! The profile's `certify:` section: what `landspeed rfc2544` runs, with
//! RFC 2544's defaults, and the acceptance criteria. The command line's
//! `--tests`, `--sizes` and `--trial` replace the matching keys
//! ([`Plan::with_certify_overrides`]); [`Plan::check_certify`] then checks
//! the whole, before the EAL starts, blaming the key or the option.

use std::path::PathBuf;
use std::time::Duration;

use super::check::Checker;
use super::error::ConfigError;
use super::plan::{CertifyPlan, Plan};
use super::raw::{RawAddresses, RawCertify, RawCriterion, RawDut, RawImix, Scalar};
use crate::certify::criteria::{Acceptance, LossBound};
use crate::certify::model::{
    AddressSettings, DutHooks, LatencyDefinition, Learning, OnFailure, Settings, IMIX,
    RFC2544_SIZES,
};
use crate::units::parse_duration;
use crate::wire::spec::{MAC_SET_MAX, MAX_FRAME_SIZE};

/// The tests `certify.tests` may name, in the order they run.
pub const TESTS: [&str; 8] = [
    "throughput",
    "latency",
    "loss",
    "back_to_back",
    "recovery",
    "reset",
    "address_caching",
    "learning_rate",
];

/// The address searches of RFC 2889 among [`TESTS`].
pub const ADDRESS_TESTS: [&str; 2] = ["address_caching", "learning_rate"];

/// The longest `certify.device` description, characters.
pub const DEVICE_MAX: usize = 1000;

/// The longest a device-under-test hook may be given, seconds: a day.
pub const HOOK_TIMEOUT_MAX_S: f64 = 86_400.0;

/// A percentage: `95%`, `95` or `0.1 %`.
pub fn parse_pct(text: &str) -> Result<f64, String> {
    let t = text.trim();
    let n = t.strip_suffix('%').unwrap_or(t).trim();
    match n.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("`{t}` is not a percentage (e.g. 95%, 0.1%)")),
    }
}

/// Seconds of a duration.
fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

impl Checker<'_> {
    /// `certify:`, defaults filled in; cross-checks wait for the command
    /// line ([`Plan::check_certify`]).
    pub(crate) fn certify(&self, raw: &RawCertify) -> Result<CertifyPlan, ConfigError> {
        let mut s = Settings::default();
        self.certify_sizes(raw, &mut s)?;
        self.certify_durations(raw, &mut s)?;
        self.certify_bounds(raw, &mut s)?;
        s.latency_trials = raw.latency_trials.unwrap_or(s.latency_trials);
        s.back_to_back_trials = raw.back_to_back_trials.unwrap_or(s.back_to_back_trials);
        s.recovery_trials = raw.recovery_trials.unwrap_or(s.recovery_trials);
        if let Some(v) = &raw.direction_loads {
            s.direction_loads = self.direction_loads(v)?;
        }
        s.reset_trials = raw.reset_trials.unwrap_or(s.reset_trials);
        if let Some(v) = &raw.learning {
            s.learning = parse_learning(v.as_str()).map_err(|m| self.err("certify.learning", m))?;
        }
        self.certify_duration("learning_wait", &raw.learning_wait, &mut s.learning_wait_s)?;
        if let Some(d) = &raw.dut {
            s.dut = Some(self.dut(d)?);
        }
        if let Some(a) = &raw.addresses {
            s.addresses = self.addresses(a)?;
        }
        if let Some(v) = &raw.latency_definition {
            s.latency_definition = parse_definition(v.as_str())
                .map_err(|m| self.err("certify.latency_definition", m))?;
        }
        let criteria = (raw.criteria.iter().enumerate())
            .map(|(i, c)| self.criterion(i, c))
            .collect::<Result<_, _>>()?;
        let baseline = self.certify_baseline(raw.baseline.as_deref())?;
        Ok(CertifyPlan {
            device: self.certify_device(raw.device.as_deref())?,
            settings: s,
            criteria,
            baseline,
        })
    }

    /// `certify.tests`, `certify.sizes` and `certify.imix` into `s`.
    fn certify_sizes(&self, raw: &RawCertify, s: &mut Settings) -> Result<(), ConfigError> {
        if let Some(t) = &raw.tests {
            s.tests = parse_tests(t).map_err(|m| self.err("certify.tests", m))?;
        }
        if let Some(v) = &raw.sizes {
            s.sizes = (v.iter().enumerate())
                .map(|(i, x)| {
                    parse_size(x.as_str()).map_err(|m| self.err(format!("certify.sizes[{i}]"), m))
                })
                .collect::<Result<_, _>>()?;
        }
        match &raw.imix {
            Some(RawImix::Genome(g)) => {
                s.imix = parse_genome(g).map_err(|m| self.err("certify.imix", m))?;
            }
            Some(RawImix::Sizes(v)) if v.is_empty() => {
                return Err(self.err("certify.imix", "name at least one frame size"));
            }
            Some(RawImix::Sizes(v)) => s.imix = v.clone(),
            None => {}
        }
        Ok(())
    }

    /// The durations of `certify:` into `s`, from `trial` to
    /// `back_to_back_max`; a search trial left out is the trial.
    fn certify_durations(&self, raw: &RawCertify, s: &mut Settings) -> Result<(), ConfigError> {
        self.certify_duration("trial", &raw.trial, &mut s.trial_s)?;
        if raw.search_trial.is_some() {
            let mut t = s.trial_s;
            self.certify_duration("search_trial", &raw.search_trial, &mut t)?;
            s.search_trial_s = Some(t);
        }
        self.certify_duration("settle", &raw.settle, &mut s.settle_s)?;
        self.certify_duration("restabilise", &raw.restabilise, &mut s.restabilise_s)?;
        self.certify_duration(
            "recovery_overload",
            &raw.recovery_overload,
            &mut s.recovery_overload_s,
        )?;
        self.certify_duration(
            "recovery_reduced",
            &raw.recovery_reduced,
            &mut s.recovery_reduced_s,
        )?;
        self.certify_duration("reset_at", &raw.reset_at, &mut s.reset_at_s)?;
        self.certify_duration("reset_trial", &raw.reset_trial, &mut s.reset_trial_s)?;
        self.certify_duration("latency_trial", &raw.latency_trial, &mut s.latency_trial_s)?;
        self.certify_duration(
            "back_to_back_max",
            &raw.back_to_back_max,
            &mut s.back_to_back_max_s,
        )
    }

    /// `certify.KEY`, a duration, into `into` (seconds) when given.
    fn certify_duration(
        &self,
        key: &str,
        v: &Option<Scalar>,
        into: &mut f64,
    ) -> Result<(), ConfigError> {
        if let Some(v) = v {
            let d = parse_duration(v.as_str())
                .map_err(|m| self.err(format!("certify.{key}"), m.to_string()))?;
            *into = secs(d);
        }
        Ok(())
    }

    /// The search's percentages of `certify:` into `s` (resolution,
    /// tolerance, bounds, loss step) and its latency bound `max_p99`.
    fn certify_bounds(&self, raw: &RawCertify, s: &mut Settings) -> Result<(), ConfigError> {
        self.certify_pct("resolution", &raw.resolution, &mut s.resolution_pct)?;
        self.certify_pct("tolerance", &raw.tolerance, &mut s.loss_tolerance_pct)?;
        self.certify_pct("lower", &raw.lower, &mut s.lower_pct)?;
        self.certify_pct("upper", &raw.upper, &mut s.upper_pct)?;
        self.certify_pct("loss_step", &raw.loss_step, &mut s.loss_step_pct)?;
        if let Some(v) = &raw.max_p99 {
            let d = parse_duration(v.as_str())
                .map_err(|m| self.err("certify.max_p99", m.to_string()))?;
            s.max_p99_ns = Some(secs(d) * 1e9);
        }
        Ok(())
    }

    /// `certify.KEY`, a percentage, into `into` when given.
    fn certify_pct(
        &self,
        key: &str,
        v: &Option<Scalar>,
        into: &mut f64,
    ) -> Result<(), ConfigError> {
        if let Some(v) = v {
            *into = parse_pct(v.as_str()).map_err(|m| self.err(format!("certify.{key}"), m))?;
        }
        Ok(())
    }

    /// `certify.direction_loads`: each above 0 and at most 100 %.
    fn direction_loads(&self, v: &[Scalar]) -> Result<Vec<f64>, ConfigError> {
        (v.iter().enumerate())
            .map(|(i, x)| {
                let f = format!("certify.direction_loads[{i}]");
                match parse_pct(x.as_str()) {
                    Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
                    Ok(p) => Err(self.err(f, format!("{p} % must be above 0 and at most 100 %"))),
                    Err(m) => Err(self.err(f, m)),
                }
            })
            .collect()
    }

    /// `certify.baseline`: a file, resolved against the profile's folder;
    /// not blank.
    fn certify_baseline(&self, text: Option<&str>) -> Result<Option<PathBuf>, ConfigError> {
        match text.map(str::trim) {
            Some("") => Err(self.err(
                "certify.baseline",
                "is empty: name the file `landspeed rfc2544 --calibrate` wrote, or leave it out",
            )),
            Some(b) => Ok(Some(self.resolve(b))),
            None => Ok(None),
        }
    }

    /// `certify.dut`: each command not blank, a timeout above zero and at
    /// most [`HOOK_TIMEOUT_MAX_S`], `on_failure` `stop` or `continue`.
    fn dut(&self, d: &RawDut) -> Result<DutHooks, ConfigError> {
        let mut h = DutHooks::default();
        for (key, v, into) in [
            ("before_trial", &d.before_trial, &mut h.before_trial),
            ("after_trial", &d.after_trial, &mut h.after_trial),
            ("reset", &d.reset, &mut h.reset),
            ("flush", &d.flush, &mut h.flush),
        ] {
            if let Some(c) = v {
                if c.trim().is_empty() {
                    return Err(self.err(
                        format!("certify.dut.{key}"),
                        "is empty: give the command to run (by `sh -c`), or leave it out",
                    ));
                }
                *into = Some(c.trim().to_string());
            }
        }
        let hooks = [&h.before_trial, &h.after_trial, &h.reset, &h.flush];
        if hooks.iter().all(|c| c.is_none()) {
            return Err(self.err(
                "certify.dut",
                "names no hook: give before_trial:, after_trial:, reset: or flush:",
            ));
        }
        if let Some(v) = &d.timeout {
            let t = parse_duration(v.as_str())
                .map_err(|m| self.err("certify.dut.timeout", m.to_string()))?;
            let t = secs(t);
            if t <= 0.0 || t > HOOK_TIMEOUT_MAX_S {
                return Err(self.err(
                    "certify.dut.timeout",
                    format!("{t} s is outside what a hook may be given: above 0 s, at most a day (86400 s)"),
                ));
            }
            h.timeout_s = t;
        }
        if let Some(v) = &d.on_failure {
            h.on_failure =
                parse_on_failure(v.as_str()).map_err(|m| self.err("certify.dut.on_failure", m))?;
        }
        Ok(h)
    }

    /// `certify.addresses`: counts of addresses at least 1 and at most
    /// [`MAC_SET_MAX`], rates of frames/s above 0, the load above 0 and
    /// at most 100 %, the search's least below its most.
    fn addresses(&self, a: &RawAddresses) -> Result<AddressSettings, ConfigError> {
        let mut out = AddressSettings::default();
        let key = |k: &str| format!("certify.addresses.{k}");
        let count = |k: &str, v: &Option<Scalar>| -> Result<Option<u64>, ConfigError> {
            let Some(v) = v else { return Ok(None) };
            let t = v.as_str().trim().replace('_', "");
            match t.parse::<u64>() {
                Ok(n) if n >= 1 && u128::from(n) <= MAC_SET_MAX => Ok(Some(n)),
                Ok(n) => Err(self.err(
                    key(k),
                    format!("{n} addresses is outside 1 to {MAC_SET_MAX} (the most a stream's MAC set holds)"),
                )),
                Err(_) => Err(self.err(key(k), format!("`{t}` is not a whole number of addresses"))),
            }
        };
        let fps = |k: &str, v: &Option<Scalar>| -> Result<Option<f64>, ConfigError> {
            let Some(v) = v else { return Ok(None) };
            let t = v.as_str().trim();
            match t.parse::<f64>() {
                Ok(x) if x.is_finite() && x > 0.0 && x <= 1e9 => Ok(Some(x)),
                _ => Err(self.err(
                    key(k),
                    format!("`{t}` is not a rate of frames per second above 0 (and at most 1e9)"),
                )),
            }
        };
        out.min = count("min", &a.min)?.unwrap_or(out.min);
        out.max = count("max", &a.max)?;
        out.taught = count("taught", &a.taught)?;
        if let Some(max) = out.max.filter(|&m| m < out.min) {
            return Err(self.err(
                key("max"),
                format!(
                    "{max} addresses is below the least, {} (certify.addresses.min)",
                    out.min
                ),
            ));
        }
        if let Some(v) = &a.load {
            let p = parse_pct(v.as_str()).map_err(|m| self.err(key("load"), m))?;
            if p <= 0.0 || p > 100.0 {
                return Err(self.err(
                    key("load"),
                    format!("{p} % must be above 0 and at most 100 %"),
                ));
            }
            out.load_pct = p;
        }
        out.learning_fps = fps("learning_rate", &a.learning_rate)?.unwrap_or(out.learning_fps);
        out.rate_min_fps = fps("rate_min", &a.rate_min)?.unwrap_or(out.rate_min_fps);
        out.rate_max_fps = fps("rate_max", &a.rate_max)?;
        out.rate_resolution_fps =
            fps("rate_resolution", &a.rate_resolution)?.unwrap_or(out.rate_resolution_fps);
        if let Some(max) = out.rate_max_fps.filter(|&m| m <= out.rate_min_fps) {
            return Err(self.err(
                key("rate_max"),
                format!(
                    "{max} frames/s is not above the least, {} (certify.addresses.rate_min)",
                    out.rate_min_fps
                ),
            ));
        }
        Ok(out)
    }

    /// `certify.device`: free text, not blank, at most [`DEVICE_MAX`]
    /// characters; each line's ends trimmed.
    fn certify_device(&self, text: Option<&str>) -> Result<Option<String>, ConfigError> {
        let Some(text) = text else {
            return Ok(None);
        };
        let lines: Vec<&str> = text.trim().lines().map(str::trim).collect();
        let d = lines.join("\n");
        if d.is_empty() {
            return Err(self.err(
                "certify.device",
                "is empty: describe what is certified (model, firmware, ports), or leave it out",
            ));
        }
        let n = d.chars().count();
        if n > DEVICE_MAX {
            return Err(self.err(
                "certify.device",
                format!("is {n} characters long, more than {DEVICE_MAX}: keep it to the model, firmware and ports"),
            ));
        }
        Ok(Some(d))
    }

    /// `certify.criteria[i]`.
    fn criterion(&self, i: usize, c: &RawCriterion) -> Result<Acceptance, ConfigError> {
        let at = |k: &str| format!("certify.criteria[{i}].{k}");
        let pct = |k: &str, v: &Scalar| parse_pct(v.as_str()).map_err(|m| self.err(at(k), m));
        let min_throughput_pct = c
            .min_throughput
            .as_ref()
            .map(|v| pct("min_throughput", v))
            .transpose()?;
        let max_latency_ns = match &c.max_latency {
            Some(v) => Some(
                secs(
                    parse_duration(v.as_str())
                        .map_err(|m| self.err(at("max_latency"), m.to_string()))?,
                ) * 1e9,
            ),
            None => None,
        };
        let max_loss = match &c.max_loss {
            Some(l) => Some(LossBound {
                rate_pct: pct("max_loss.rate", &l.rate)?,
                loss_pct: pct("max_loss.loss", &l.loss)?,
            }),
            None => None,
        };
        if min_throughput_pct.is_none() && max_latency_ns.is_none() && max_loss.is_none() {
            return Err(self.err(
                format!("certify.criteria[{i}]"),
                "a criterion needs min_throughput:, max_latency: or max_loss:",
            ));
        }
        let sizes = (c.sizes.iter().enumerate())
            .map(|(k, x)| {
                parse_size(x.as_str()).map_err(|m| self.err(at(&format!("sizes[{k}]")), m))
            })
            .collect::<Result<_, _>>()?;
        Ok(Acceptance {
            sizes,
            min_throughput_pct,
            max_latency_ns,
            max_loss,
        })
    }
}

/// A frame size of `certify.sizes` or `--sizes`: bytes with FCS, or
/// `imix` ([`IMIX`]).
pub fn parse_size(text: &str) -> Result<u32, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("imix") {
        return Ok(IMIX);
    }
    match t.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "`{t}` is not a frame size: bytes with FCS (e.g. 64, 1518) or imix"
        )),
    }
}

/// The sizes of an RFC 6985 IMIX genome: each letter a frame of the
/// RFC 2544 sizes (a 64, b 128, c 256, d 512, e 1024, f 1280, g 1518),
/// in order, repeating.
pub fn parse_genome(text: &str) -> Result<Vec<u32>, String> {
    let g = text.trim();
    if g.is_empty() {
        return Err("the genome is empty: letters a-g, e.g. aaaaaaaddddg".into());
    }
    g.chars()
        .enumerate()
        .map(|(i, ch)| match ch.to_ascii_lowercase() {
            c @ 'a'..='g' => Ok(RFC2544_SIZES[(c as u8 - b'a') as usize]),
            _ => Err(format!(
                "`{ch}` (letter {}) is not a size of the genome: a 64, b 128, c 256, d 512, \
                 e 1024, f 1280, g 1518 (RFC 6985)",
                i + 1
            )),
        })
        .collect()
}

/// `certify.learning`: `every_trial`, `once` or `off` (`true` is
/// `every_trial`, `false` is `off`).
pub fn parse_learning(text: &str) -> Result<Learning, String> {
    match text.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "every_trial" | "true" => Ok(Learning::EveryTrial),
        "once" => Ok(Learning::Once),
        "off" | "false" => Ok(Learning::Off),
        _ => Err(format!(
            "`{}` is not a learning mode: use every_trial, once or off",
            text.trim()
        )),
    }
}

/// `certify.dut.on_failure`: `stop` or `continue`.
pub fn parse_on_failure(text: &str) -> Result<OnFailure, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "stop" => Ok(OnFailure::Stop),
        "continue" => Ok(OnFailure::Continue),
        _ => Err(format!(
            "`{}` is not what a failing hook does: use stop or continue",
            text.trim()
        )),
    }
}

/// `certify.latency_definition`: `store_and_forward` or `bit_forwarding`
/// (RFC 1242 section 3.8).
pub fn parse_definition(text: &str) -> Result<LatencyDefinition, String> {
    match text.trim().to_ascii_lowercase().replace('-', "_").as_str() {
        "store_and_forward" => Ok(LatencyDefinition::StoreAndForward),
        "bit_forwarding" => Ok(LatencyDefinition::BitForwarding),
        _ => Err(format!(
            "`{}` is not a latency definition: use store_and_forward or bit_forwarding (RFC 1242 3.8)",
            text.trim()
        )),
    }
}

/// Test names as written (`back-to-back` or `back_to_back`), in the
/// order they run, each once.
pub fn parse_tests(list: &[String]) -> Result<Vec<String>, String> {
    let mut asked = Vec::new();
    for t in list {
        let name = t.trim().to_ascii_lowercase().replace('-', "_");
        if !TESTS.contains(&name.as_str()) {
            return Err(format!(
                "unknown test `{}`: use throughput, latency, loss, back-to-back, recovery, reset, \
                 address-caching or learning-rate",
                t.trim()
            ));
        }
        asked.push(name);
    }
    if asked.is_empty() {
        return Err("name at least one test".into());
    }
    Ok(TESTS
        .iter()
        .filter(|t| asked.iter().any(|a| a == *t))
        .map(|t| t.to_string())
        .collect())
}

impl Plan {
    /// Apply `landspeed rfc2544`'s `--tests`, `--sizes`, `--trial` (each
    /// already parsed) and `--quick`: errors about them name the option.
    pub fn with_certify_overrides(
        mut self,
        tests: Option<Vec<String>>,
        sizes: Option<Vec<u32>>,
        trial: Option<Duration>,
        quick: bool,
    ) -> Plan {
        let s = &mut self.certify.settings;
        s.quick = quick;
        if let Some(t) = tests {
            s.tests = t;
            self.lines
                .overrides
                .insert("certify.tests".into(), "--tests");
        }
        if let Some(v) = sizes {
            s.sizes = v;
            self.lines
                .overrides
                .insert("certify.sizes".into(), "--sizes");
        }
        if let Some(d) = trial {
            s.trial_s = secs(d);
            self.lines
                .overrides
                .insert("certify.trial".into(), "--trial");
        }
        self
    }

    /// Check the certification against itself and the profile's streams:
    /// sizes every sending stream can carry, a trial longer than the
    /// settle time, percentages within 0–100 %, bounds in order.
    pub fn check_certify(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let err = |f: &str, m: String| Err(self.error(f, m));
        if self.tx.is_empty() || self.rx.is_empty() {
            return err(
                if self.tx.is_empty() { "tx" } else { "rx" },
                "a certification needs TX and RX tasks: the profile sends and receives the frames"
                    .into(),
            );
        }
        if s.sizes.is_empty() {
            return err("certify.sizes", "name at least one frame size".into());
        }
        if let Some(t) = self.tx.iter().position(|t| t.frames.is_some()) {
            return err(
                &format!("tx[{t}].frames"),
                "a certification sets each trial's frames itself (its rate and trial time, \
                 or the back-to-back burst): remove frames:"
                    .into(),
            );
        }
        if let Some(r) = self.rx.iter().position(|t| t.capture.is_some()) {
            return err(
                &format!("rx[{r}].capture"),
                "a certification runs many trials on its RX tasks: capture in a \
                 `landspeed run` of the profile instead"
                    .into(),
            );
        }
        self.check_departures()?;
        if s.learning != Learning::Off && !(0.0..=60.0).contains(&s.learning_wait_s) {
            return err(
                "certify.learning_wait",
                format!(
                    "{} s is longer than a learning wait needs: at most 60 s (RFC 2544 asks 2 s)",
                    s.learning_wait_s
                ),
            );
        }
        self.check_sizes()?;
        self.check_search_bounds()?;
        self.check_trial_lengths()?;
        self.check_recovery_and_reset()?;
        self.check_addresses()?;
        self.check_trial_counts()
    }

    /// The address searches (RFC 2889 5.7, 5.8): the flush hook that
    /// clears the device's table between trials, and address counts no
    /// larger than the destination MAC set of every stream sent.
    fn check_addresses(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let Some(test) = (s.tests.iter()).find(|t| ADDRESS_TESTS.contains(&t.as_str())) else {
            return Ok(());
        };
        if s.dut.as_ref().and_then(|d| d.flush.as_ref()).is_none() {
            return Err(self.error(
                "certify.tests",
                format!(
                    "the {test} test (RFC 2889) needs certify.dut.flush: the command that clears \
                     the device's address table before each trial"
                ),
            ));
        }
        let a = &s.addresses;
        for &i in self.tx.iter().flat_map(|t| &t.streams) {
            let st = &self.streams[i];
            let set = st.eth.dst.cardinality();
            for (k, n) in [("max", a.max), ("taught", a.taught), ("min", Some(a.min))] {
                if n.is_some_and(|n| u128::from(n) > set) {
                    return Err(self.error(
                        &format!("certify.addresses.{k}"),
                        format!(
                            "{} addresses, more than stream {}'s eth.dst holds ({set}): give the \
                             stream a destination range of at least that many",
                            n.unwrap_or(0),
                            st.name
                        ),
                    ));
                }
            }
            if st.eth.dst.first().is_some_and(|m| m.is_multicast()) {
                return Err(self.error(
                    &format!("streams[{i}].eth.dst"),
                    format!(
                        "is a group address: the {test} test teaches a device unicast \
                         addresses, which it learns from their frames' source"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// No TX task takes its departures from the NIC's sampled TX
    /// timestamps, which a certification's latency rows do not use.
    fn check_departures(&self) -> Result<(), ConfigError> {
        let err = |f: &str, m: String| Err(self.error(f, m));
        // Arrivals may be the NIC's (the trials keep its clock's map
        // fresh); departures are the TSC's written into the stamp.
        let nic = crate::clock::nic::Want::Nic;
        if let Some(i) = self.tx.iter().position(|t| t.timestamps == nic) {
            return err(
                &format!("tx[{i}].timestamps"),
                "a certification takes each frame's departure from the TSC written into its \
                 stamp: the NIC's sampled TX timestamps (`nic`) correct a run's latency \
                 afterwards, frame by frame, which a certification's latency rows do not; use \
                 `auto` or `software` (rx[].timestamps may be `nic`)"
                    .into(),
            );
        }
        Ok(())
    }

    /// The throughput search's percentages within 0–100 %, its bounds in
    /// order, and a loss step no coarser than RFC 2544 allows (unless
    /// `--quick`).
    fn check_search_bounds(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let err = |f: &str, m: String| Err(self.error(f, m));
        for (f, v) in [
            ("certify.tolerance", s.loss_tolerance_pct),
            ("certify.lower", s.lower_pct),
            ("certify.upper", s.upper_pct),
        ] {
            if !(0.0..=100.0).contains(&v) {
                return err(f, format!("{v} % is outside 0–100 %"));
            }
        }
        if s.lower_pct >= s.upper_pct {
            return err(
                "certify.lower",
                format!(
                    "the lower bound {} % is not below the upper bound {} %",
                    s.lower_pct, s.upper_pct
                ),
            );
        }
        for (f, v) in [
            ("certify.resolution", s.resolution_pct),
            ("certify.loss_step", s.loss_step_pct),
        ] {
            if v <= 0.0 || v > 100.0 {
                return err(f, format!("{v} % must be above 0 and at most 100 %"));
            }
        }
        let coarse = crate::certify::conformance::MAX_LOSS_STEP_PCT;
        let runs_loss = s.tests.iter().any(|t| t == "loss");
        if runs_loss && s.loss_step_pct > coarse && !s.quick {
            return err(
                "certify.loss_step",
                format!(
                    "{} % is coarser than RFC 2544 allows (at most {coarse} % of the maximum rate, \
                     section 26.3): use --quick to run it anyway, listed as not RFC-conformant",
                    s.loss_step_pct
                ),
            );
        }
        Ok(())
    }

    /// A search trial no longer than the trial, every trial longer than
    /// the settle time, and a longest burst above zero.
    fn check_trial_lengths(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let err = |f: &str, m: String| Err(self.error(f, m));
        if let Some(t) = s.search_trial_s {
            if t > s.trial_s {
                return err(
                    "certify.search_trial",
                    format!(
                        "a search trial of {t} s is longer than the trial of {} s (certify.trial): \
                         the search's trials are the short ones, the confirmation the full one",
                        s.trial_s
                    ),
                );
            }
        }
        for (f, v) in [
            ("certify.trial", s.trial_s),
            ("certify.search_trial", s.search_trial()),
            ("certify.latency_trial", s.latency_trial_s),
        ] {
            if v <= s.settle_s {
                return err(
                    f,
                    format!("a trial of {v} s is not longer than the settle time of {} s (certify.settle)", s.settle_s),
                );
            }
        }
        if s.back_to_back_max_s <= 0.0 {
            return err(
                "certify.back_to_back_max",
                "the longest burst must last above zero".into(),
            );
        }
        Ok(())
    }

    /// The reset test's hook and its reset within the trial, and the
    /// recovery test's overload and reduced load above zero.
    fn check_recovery_and_reset(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let err = |f: &str, m: String| Err(self.error(f, m));
        let resets = s.tests.iter().any(|t| t == "reset");
        if resets && s.dut.as_ref().and_then(|d| d.reset.as_ref()).is_none() {
            return err(
                "certify.tests",
                "the reset test (RFC 2544 26.6) needs certify.dut.reset: the command that \
                 resets the device under test while the frames flow"
                    .into(),
            );
        }
        if s.reset_at_s >= s.reset_trial_s {
            return err(
                "certify.reset_at",
                format!(
                    "the reset {} s into the trial is not within the trial of {} s (certify.reset_trial)",
                    s.reset_at_s, s.reset_trial_s
                ),
            );
        }
        for (f, v) in [
            ("certify.recovery_overload", s.recovery_overload_s),
            ("certify.recovery_reduced", s.recovery_reduced_s),
        ] {
            if v <= 0.0 {
                return err(f, "must last above zero".into());
            }
        }
        Ok(())
    }

    /// At least one trial of each test that counts them.
    fn check_trial_counts(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        let err = |f: &str, m: String| Err(self.error(f, m));
        for (f, n) in [
            ("certify.latency_trials", s.latency_trials),
            ("certify.back_to_back_trials", s.back_to_back_trials),
            ("certify.recovery_trials", s.recovery_trials),
            ("certify.reset_trials", s.reset_trials),
        ] {
            if n == 0 {
                return err(f, "at least one trial".into());
            }
        }
        Ok(())
    }

    /// Every size fits every stream a TX task sends: above its headers and
    /// stamp, at most the largest frame landspeed builds.
    fn check_sizes(&self) -> Result<(), ConfigError> {
        let s = &self.certify.settings;
        if s.sizes.contains(&IMIX) && s.imix.is_empty() {
            return Err(self.error(
                "certify.sizes",
                "names imix, but certify.imix does not say which: a genome (aaaaaaaddddg) or a list of sizes".to_string(),
            ));
        }
        let imix = s.imix.iter().filter(|_| s.sizes.contains(&IMIX));
        for &size in s.sizes.iter().filter(|&&z| z != IMIX).chain(imix) {
            for &si in self.tx.iter().flat_map(|t| &t.streams) {
                let st = &self.streams[si];
                let min = st.min_frame_size();
                if (size as usize) < min || size as usize > MAX_FRAME_SIZE {
                    return Err(self.error(
                        "certify.sizes",
                        format!(
                            "stream {} cannot carry {size}-byte frames: its frames take {min} to {MAX_FRAME_SIZE} bytes (headers, stamp and FCS)",
                            st.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::certify::model::{AddressSettings, OnFailure};
    use crate::config::load_str;

    /// A profile whose `certify:` section is `section`.
    fn with(section: &str) -> String {
        format!(
            "eal:\n  cores: [0, 1, 2]\n  vdevs: [net_ring0]\n\
             ports:\n  - name: p0\n    device: net_ring0\n    link: 100m\n\
             streams:\n  - name: s\n    ipv4: {{ src: 198.18.0.1, dst: 198.19.0.1 }}\n    udp: {{ src: 1, dst: 2 }}\n\
             tx:\n  - lcore: 1\n    port: p0\n    rate: line\n\
             rx:\n  - lcore: 2\n    port: p0\n\
             certify:\n{section}"
        )
    }

    #[test]
    fn a_frame_limit_is_refused() {
        let limited =
            with("  sizes: [64]\n").replace("    rate: line\n", "    rate: line\n    frames: 10\n");
        let p = load_str(&limited, "c.yaml").unwrap();
        assert_eq!(
            p.check_certify().unwrap_err().to_string(),
            "c.yaml:16: tx[0].frames: a certification sets each trial's frames itself (its rate \
             and trial time, or the back-to-back burst): remove frames:"
        );
    }

    #[test]
    fn nic_rx_timestamps_are_taken_and_nic_tx_timestamps_refused() {
        let nic_rx = with("  sizes: [64]\n").replace(
            "    port: p0\ncertify:",
            "    port: p0\n    timestamps: nic\ncertify:",
        );
        let p = load_str(&nic_rx, "c.yaml").unwrap();
        assert_eq!(p.check_certify(), Ok(()));
        let nic_tx = with("  sizes: [64]\n")
            .replace("    rate: line\n", "    rate: line\n    timestamps: nic\n");
        let p = load_str(&nic_tx, "c.yaml").unwrap();
        assert_eq!(
            p.check_certify().unwrap_err().to_string(),
            "c.yaml:16: tx[0].timestamps: a certification takes each frame's departure from \
             the TSC written into its stamp: the NIC's sampled TX timestamps (`nic`) correct a \
             run's latency afterwards, frame by frame, which a certification's latency rows do \
             not; use `auto` or `software` (rx[].timestamps may be `nic`)"
        );
        for word in ["auto", "software"] {
            let ok = with("  sizes: [64]\n").replace(
                "    rate: line\n",
                &format!("    rate: line\n    timestamps: {word}\n"),
            );
            assert!(load_str(&ok, "c.yaml").unwrap().check_certify().is_ok());
        }
    }

    #[test]
    fn dut_hooks_are_read_with_their_defaults() {
        let p = load_str(
            &with("  dut:\n    before_trial: \" bridge fdb show br0 \"\n    after_trial: tc -s qdisc\n"),
            "c.yaml",
        )
        .unwrap();
        let d = p.certify.settings.dut.unwrap();
        assert_eq!(d.before_trial.as_deref(), Some("bridge fdb show br0"));
        assert_eq!(d.after_trial.as_deref(), Some("tc -s qdisc"));
        assert_eq!(
            (d.reset, d.timeout_s, d.on_failure),
            (None, 30.0, OnFailure::Stop)
        );
        let p = load_str(
            &with("  dut:\n    reset: ./reset.sh\n    timeout: 2m\n    on_failure: Continue\n"),
            "c.yaml",
        )
        .unwrap();
        let d = p.certify.settings.dut.unwrap();
        assert_eq!((d.timeout_s, d.on_failure), (120.0, OnFailure::Continue));
        assert_eq!(
            load_str(&with("  sizes: [64]\n"), "c.yaml")
                .unwrap()
                .certify
                .settings
                .dut,
            None
        );
    }

    #[test]
    fn bad_dut_hooks_name_the_file_line_and_key() {
        let err = |section: &str| load_str(&with(section), "c.yaml").unwrap_err().to_string();
        assert_eq!(
            err("  dut:\n    before_trial: true\n    timeout: 0s\n"),
            "c.yaml:22: certify.dut.timeout: 0 s is outside what a hook may be given: above 0 s, \
             at most a day (86400 s)"
        );
        assert_eq!(
            err("  dut:\n    before_trial: true\n    timeout: soon\n"),
            "c.yaml:22: certify.dut.timeout: `soon` is not a duration; write e.g. 10s, 500ms, 2m, \
             1h, 1.5s"
        );
        assert_eq!(
            err("  dut:\n    after_trial: true\n    on_failure: retry\n"),
            "c.yaml:22: certify.dut.on_failure: `retry` is not what a failing hook does: use \
             stop or continue"
        );
        assert_eq!(
            err("  dut:\n    before_trial: \"  \"\n"),
            "c.yaml:21: certify.dut.before_trial: is empty: give the command to run (by `sh \
             -c`), or leave it out"
        );
        assert_eq!(
            err("  dut:\n    timeout: 5s\n"),
            "c.yaml:20: certify.dut: names no hook: give before_trial:, after_trial:, reset: or flush:"
        );
        let e = err("  dut:\n    before: true\n");
        assert!(e.starts_with("c.yaml:21:") && e.contains("before"), "{e}");
    }

    #[test]
    fn the_learning_wait_and_the_baseline_are_read() {
        let p = load_str(
            &with("  learning_wait: 100ms\n  baseline: loop.json\n"),
            "c.yaml",
        )
        .unwrap();
        assert_eq!(p.certify.settings.learning_wait_s, 0.1);
        assert_eq!(
            p.certify.baseline,
            Some(std::path::PathBuf::from("loop.json"))
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.yaml");
        std::fs::write(&file, with("  baseline: loop.json\n")).unwrap();
        let p = crate::config::load(&file).unwrap();
        assert_eq!(p.certify.baseline, Some(dir.path().join("loop.json")));
        assert_eq!(
            load_str(&with("  sizes: [64]\n"), "c.yaml")
                .unwrap()
                .certify
                .settings
                .learning_wait_s,
            2.0
        );
        let p = load_str(&with("  learning_wait: 2m\n"), "c.yaml").unwrap();
        assert_eq!(
            p.check_certify().unwrap_err().to_string(),
            "c.yaml:20: certify.learning_wait: 120 s is longer than a learning wait needs: at \
             most 60 s (RFC 2544 asks 2 s)"
        );
        let e = load_str(&with("  baseline: \"\"\n"), "c.yaml")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "c.yaml:20: certify.baseline: is empty: name the file `landspeed rfc2544 \
             --calibrate` wrote, or leave it out"
        );
    }

    #[test]
    fn the_device_is_kept_with_each_line_trimmed() {
        let p = load_str(
            &with("  device: |\n    Switch SW-48  \n    firmware 7.2.1\n  sizes: [64]\n"),
            "c.yaml",
        )
        .unwrap();
        assert_eq!(
            p.certify.device.as_deref(),
            Some("Switch SW-48\nfirmware 7.2.1")
        );
        let p = load_str(&with("  sizes: [64]\n"), "c.yaml").unwrap();
        assert_eq!(p.certify.device, None);
    }

    #[test]
    fn a_blank_or_overlong_device_is_refused() {
        let e = load_str(&with("  device: \"  \"\n"), "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("c.yaml:")
                && e.contains("certify.device: is empty: describe what is certified"),
            "{e}"
        );
        let long = "x".repeat(super::DEVICE_MAX + 1);
        let e = load_str(&with(&format!("  device: {long}\n")), "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("certify.device: is 1001 characters long, more than 1000"),
            "{e}"
        );
        let e = load_str(&with("  device: [a, b]\n"), "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("certify") && e.contains("device"), "{e}");
    }

    fn refused(section: &str) -> String {
        match load_str(&with(section), "c.yaml") {
            Err(e) => e.to_string(),
            Ok(p) => p.check_certify().unwrap_err().to_string(),
        }
    }

    #[test]
    fn the_new_keys_take_their_values_and_rfc_defaults() {
        use crate::certify::model::{LatencyDefinition, Learning};
        let p = load_str(&with("  sizes: [64]\n"), "c.yaml").unwrap();
        let s = &p.certify.settings;
        assert_eq!(
            (s.learning, s.restabilise_s, s.search_trial_s),
            (Learning::EveryTrial, 5.0, None)
        );
        assert_eq!(s.latency_definition, LatencyDefinition::StoreAndForward);
        assert_eq!(
            (
                s.recovery_overload_s,
                s.recovery_reduced_s,
                s.recovery_trials
            ),
            (60.0, 30.0, 5)
        );
        assert_eq!(
            (s.reset_at_s, s.reset_trial_s, s.reset_trials),
            (10.0, 60.0, 1)
        );
        let p = load_str(
            &with(
                "  sizes: [64]\n  trial: 60s\n  search_trial: 10s\n  restabilise: 1s\n  learning: once\n  \
                 latency_definition: bit-forwarding\n  recovery_overload: 2s\n  recovery_reduced: 1s\n  \
                 recovery_trials: 3\n  reset_at: 2s\n  reset_trial: 5s\n  reset_trials: 2\n  \
                 direction_loads: [100%, 40%]\n",
            ),
            "c.yaml",
        )
        .unwrap();
        let s = &p.certify.settings;
        assert_eq!(
            (s.search_trial_s, s.search_trial(), s.restabilise_s),
            (Some(10.0), 10.0, 1.0)
        );
        assert_eq!(
            (s.learning, s.latency_definition),
            (Learning::Once, LatencyDefinition::BitForwarding)
        );
        assert_eq!(
            (
                s.recovery_overload_s,
                s.recovery_reduced_s,
                s.recovery_trials
            ),
            (2.0, 1.0, 3)
        );
        assert_eq!(
            (s.reset_at_s, s.reset_trial_s, s.reset_trials),
            (2.0, 5.0, 2)
        );
        assert_eq!(s.direction_loads, [100.0, 40.0]);
        for (word, want) in [
            ("true", Learning::EveryTrial),
            ("false", Learning::Off),
            ("every-trial", Learning::EveryTrial),
            ("off", Learning::Off),
        ] {
            let p = load_str(
                &with(&format!("  sizes: [64]\n  learning: {word}\n")),
                "c.yaml",
            )
            .unwrap();
            assert_eq!(p.certify.settings.learning, want, "{word}");
        }
    }

    #[test]
    fn bad_new_keys_are_refused_naming_the_key() {
        assert_eq!(
            refused("  learning: sometimes\n"),
            "c.yaml:20: certify.learning: `sometimes` is not a learning mode: use every_trial, once or off"
        );
        assert_eq!(
            refused("  latency_definition: cut-through\n"),
            "c.yaml:20: certify.latency_definition: `cut-through` is not a latency definition: use \
             store_and_forward or bit_forwarding (RFC 1242 3.8)"
        );
        assert!(refused("  trial: 2s\n  search_trial: 3s\n").contains(
            "certify.search_trial: a search trial of 3 s is longer than the trial of 2 s"
        ));
        assert!(refused("  loss_step: 20%\n").contains(
            "certify.loss_step: 20 % is coarser than RFC 2544 allows (at most 10 % of the maximum rate, \
             section 26.3): use --quick"
        ));
        assert!(refused("  reset_at: 60s\n").contains(
            "certify.reset_at: the reset 60 s into the trial is not within the trial of 60 s"
        ));
        assert!(refused("  tests: [throughput, reset]\n")
            .contains("certify.tests: the reset test (RFC 2544 26.6) needs certify.dut.reset"));
        assert!(refused("  recovery_trials: 0\n")
            .contains("certify.recovery_trials: at least one trial"));
        assert!(refused("  direction_loads: [100%, 0%]\n")
            .contains("certify.direction_loads[1]: 0 % must be above 0 and at most 100 %"));
        assert!(refused("  direction_loads: [100%, fast]\n")
            .contains("certify.direction_loads[1]: `fast` is not a percentage"));
        let quick = load_str(&with("  loss_step: 20%\n"), "c.yaml")
            .unwrap()
            .with_certify_overrides(None, None, None, true);
        assert!(quick.check_certify().is_ok(), "--quick takes a coarse step");
    }

    #[test]
    fn an_imix_is_a_genome_or_a_list_and_imix_names_it_among_the_sizes() {
        let p = load_str(
            &with("  sizes: [64, imix]\n  imix: aaaaaaaddddg\n"),
            "c.yaml",
        )
        .unwrap();
        let s = &p.certify.settings;
        assert_eq!(s.sizes, [64, crate::certify::model::IMIX]);
        assert_eq!(
            s.imix,
            [64, 64, 64, 64, 64, 64, 64, 512, 512, 512, 512, 1518]
        );
        assert!((s.mean_bytes(0) - (7.0 * 64.0 + 4.0 * 512.0 + 1518.0) / 12.0).abs() < 1e-9);
        assert_eq!(s.mean_bytes(64), 64.0);
        assert!(p.check_certify().is_ok());
        let p = load_str(&with("  sizes: [IMIX]\n  imix: [64, 1518]\n"), "c.yaml").unwrap();
        assert_eq!(p.certify.settings.imix, [64, 1518]);
        assert_eq!(
            super::parse_genome("abcdefg").unwrap(),
            crate::certify::model::RFC2544_SIZES
        );
    }

    #[test]
    fn a_bad_imix_is_refused_naming_what_is_wrong() {
        assert!(refused("  sizes: [imix]\n")
            .contains("certify.sizes: names imix, but certify.imix does not say which"));
        assert!(refused("  sizes: [imix]\n  imix: aaxg\n")
            .contains("certify.imix: `x` (letter 3) is not a size of the genome: a 64, b 128"));
        assert!(refused("  sizes: [64, big]\n").contains(
            "certify.sizes[1]: `big` is not a frame size: bytes with FCS (e.g. 64, 1518) or imix"
        ));
        assert!(refused("  sizes: [imix]\n  imix: [64, 20000]\n")
            .contains("cannot carry 20000-byte frames"));
        assert!(refused("  sizes: [imix]\n  imix: []\n")
            .contains("certify.imix: name at least one frame size"));
    }

    #[test]
    fn the_address_settings_are_read_with_their_defaults() {
        let p = load_str(&with("  sizes: [64]\n"), "c.yaml").unwrap();
        assert_eq!(p.certify.settings.addresses, AddressSettings::default());
        let section = "  sizes: [64]\n  tests: [address-caching, learning_rate]\n  addresses:\n    \
                       min: 2\n    max: 1_024\n    load: 5%\n    learning_rate: 500\n    \
                       rate_min: 200\n    rate_max: 9000.5\n    rate_resolution: 50\n    taught: 1\n  \
                       dut:\n    flush: \" clear table \"\n";
        let text = with(section).replace(
            "dst: 198.19.0.1 }",
            "dst: 198.19.0.1 }\n    eth: { dst: \"02:00:00:aa:00:00-02:00:00:aa:03:ff\" }",
        );
        let p = load_str(&text, "c.yaml").unwrap();
        let s = &p.certify.settings;
        assert_eq!(s.tests, ["address_caching", "learning_rate"]);
        assert_eq!(
            s.addresses,
            AddressSettings {
                min: 2,
                max: Some(1024),
                load_pct: 5.0,
                learning_fps: 500.0,
                rate_min_fps: 200.0,
                rate_max_fps: Some(9000.5),
                rate_resolution_fps: 50.0,
                taught: Some(1),
            }
        );
        assert_eq!(
            s.dut.as_ref().unwrap().flush.as_deref(),
            Some("clear table")
        );
        p.check_certify().unwrap();
    }

    #[test]
    fn bad_address_settings_are_refused_naming_the_key() {
        let a = |body: &str| refused(&format!("  addresses:\n{body}"));
        assert_eq!(
            a("    min: 0\n"),
            "c.yaml:21: certify.addresses.min: 0 addresses is outside 1 to 1048576 (the most a \
             stream's MAC set holds)"
        );
        assert_eq!(
            a("    max: 1048577\n"),
            "c.yaml:21: certify.addresses.max: 1048577 addresses is outside 1 to 1048576 (the \
             most a stream's MAC set holds)"
        );
        assert_eq!(
            a("    taught: many\n"),
            "c.yaml:21: certify.addresses.taught: `many` is not a whole number of addresses"
        );
        assert_eq!(
            a("    min: 10\n    max: 9\n"),
            "c.yaml:22: certify.addresses.max: 9 addresses is below the least, 10 \
             (certify.addresses.min)"
        );
        assert_eq!(
            a("    load: 0%\n"),
            "c.yaml:21: certify.addresses.load: 0 % must be above 0 and at most 100 %"
        );
        assert_eq!(
            a("    learning_rate: -5\n"),
            "c.yaml:21: certify.addresses.learning_rate: `-5` is not a rate of frames per \
             second above 0 (and at most 1e9)"
        );
        assert_eq!(
            a("    rate_min: 500\n    rate_max: 500\n"),
            "c.yaml:22: certify.addresses.rate_max: 500 frames/s is not above the least, 500 \
             (certify.addresses.rate_min)"
        );
        assert!(a("    mystery: 1\n").contains("unknown field `mystery`"));
        // The tests need the flush hook, and addresses the streams hold.
        assert!(refused("  tests: [address_caching]\n").contains(
            "certify.tests: the address_caching test (RFC 2889) needs certify.dut.flush: the \
             command that clears the device's address table before each trial"
        ));
        let flush = "  dut:\n    flush: true\n";
        assert!(refused(&format!(
            "  tests: [learning_rate]\n{flush}  addresses:\n    taught: 2\n"
        ))
        .contains("certify.addresses.taught: 2 addresses, more than stream s's eth.dst holds (1)"));
        assert!(refused(&format!(
            "  tests: [learning_rate]\n{flush}  addresses:\n    max: 3\n"
        ))
        .contains("certify.addresses.max: 3 addresses, more than stream s's eth.dst holds (1)"));
        let group = with(&format!("  tests: [address_caching]\n{flush}")).replace(
            "dst: 198.19.0.1 }",
            "dst: 198.19.0.1 }\n    eth: { dst: \"01:00:5e:00:00:01\" }",
        );
        let e = load_str(&group, "c.yaml")
            .unwrap()
            .check_certify()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("streams[0].eth.dst: is a group address: the address_caching test"),
            "{e}"
        );
    }

    #[test]
    fn an_empty_flush_hook_and_an_empty_streams_list_name_what_to_write() {
        assert_eq!(
            refused("  dut:\n    flush: \" \"\n"),
            "c.yaml:21: certify.dut.flush: is empty: give the command to run (by `sh -c`), or \
             leave it out"
        );
        let empty = with("  sizes: [64]\n").replace(
            "    port: p0\ncertify:",
            "    port: p0\n    streams: []\ncertify:",
        );
        let e = load_str(&empty, "c.yaml").unwrap_err().to_string();
        assert_eq!(
            e,
            "c.yaml:19: rx[0].streams: an empty list expects nothing: write `auto`, name streams, \
             or `none` for a monitoring port (every frame it receives counts as foreign)"
        );
        let none = empty.replace("streams: []", "streams: none");
        let p = load_str(&none, "c.yaml").unwrap();
        assert_eq!(
            p.rx[0].streams,
            crate::config::RxStreams::Listed(Vec::new())
        );
    }
}
