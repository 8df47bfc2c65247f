//! Raw profile → [`Plan`]: every semantic check, each error located at the
//! key it is about. This file checks the profile as a whole, `streams:`
//! and `run:`, and holds the checks the sections share (names, queues,
//! lcores, port and stream references, clocks, keywords); each section's
//! own checks are in its file: eal.rs, ports.rs, tx.rs, rx.rs, certify.rs.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use super::check::Checker;
use super::error::ConfigError;
use super::locate::Locator;
use super::plan::{ClockServo, EalPlan, Plan, PortPlan, RunPlan};
use super::raw::{self, Scalar};
use super::stream;
use crate::units::{format_duration, parse_duration};
use crate::wire::spec::StreamSpec;

/// The shortest `run.interval`: shorter ones print (and keep in the JSON)
/// more lines than anyone reads.
const MIN_INTERVAL: Duration = Duration::from_millis(10);

impl Checker<'_> {
    /// Check the whole profile.
    pub fn plan(&self, p: raw::Profile) -> Result<Plan, ConfigError> {
        let eal = self.eal(&p.eal)?;
        let mut ports = self.ports(&p.ports, &eal)?;
        let (streams, by_name) = self.streams(&p.streams)?;
        if p.tx.is_empty() && p.rx.is_empty() {
            return Err(self.err(
                "tx",
                "the profile has no task: add a tx: or an rx: list (or both)",
            ));
        }
        let mut lcore_users: HashMap<u32, String> = HashMap::new();
        let tx = self.tx_tasks(&p, &eal, &mut lcore_users, &mut ports, &streams, &by_name)?;
        let rx = self.rx_tasks(
            &p.rx,
            &eal,
            &mut lcore_users,
            &mut ports,
            &streams,
            &by_name,
        )?;
        let run = self.run(&p.run)?;
        let certify = self.certify(&p.certify)?;
        Ok(Plan {
            origin: self.origin.to_string(),
            lines: Locator::default(),
            eal,
            ports,
            streams,
            tx,
            rx,
            run,
            certify,
        })
    }

    /// `streams:`, with the index of each stream by name.
    fn streams(
        &self,
        list: &[raw::Stream],
    ) -> Result<(Vec<StreamSpec>, HashMap<String, usize>), ConfigError> {
        let mut streams = Vec::with_capacity(list.len());
        let mut ids: HashMap<u32, usize> = HashMap::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, s) in list.iter().enumerate() {
            let at = format!("streams[{i}]");
            let name = s.name.trim();
            self.check_name(&at, "stream", name, by_name.insert(name.to_string(), i))?;
            let id = self.stream_id(&at, i, s.id, &mut ids)?;
            streams.push(stream::build(self, &at, id, name, s)?);
        }
        for (i, s) in list.iter().enumerate() {
            if s.weight == 0 {
                return Err(self.err(
                    format!("streams[{i}].weight"),
                    "a weight must be at least 1 (it is the stream's share of its TX task's rate)",
                ));
            }
        }
        Ok((streams, by_name))
    }

    /// The name of the `kind` at `at` (a stream or a port): given, and not
    /// the name of the earlier item `earlier` of the same list.
    pub(super) fn check_name(
        &self,
        at: &str,
        kind: &str,
        name: &str,
        earlier: Option<usize>,
    ) -> Result<(), ConfigError> {
        if name.is_empty() {
            return Err(self.err(format!("{at}.name"), format!("a {kind} needs a name")));
        }
        if let Some(j) = earlier {
            return Err(self.err(
                format!("{at}.name"),
                format!("{kind} name `{name}` is already used by {kind}s[{j}]"),
            ));
        }
        Ok(())
    }

    /// The id of `streams[i]`: the one given, else its position from 1;
    /// claimed in `ids`.
    fn stream_id(
        &self,
        at: &str,
        i: usize,
        given: Option<u32>,
        ids: &mut HashMap<u32, usize>,
    ) -> Result<u32, ConfigError> {
        let id = match given {
            Some(id) => id,
            None => u32::try_from(i + 1).unwrap_or(u32::MAX),
        };
        if let Some(j) = ids.insert(id, i) {
            let field = if given.is_some() {
                format!("{at}.id")
            } else {
                at.to_string()
            };
            return Err(self.err(
                field,
                format!(
                    "stream id {id} is already used by streams[{j}] \
                     (ids default to the position in the list, from 1)"
                ),
            ));
        }
        Ok(id)
    }

    /// That `queue` is one of the `count` queues a port's `key` gives it.
    pub(super) fn queue_exists(
        &self,
        field: &str,
        pp: &PortPlan,
        key: &str,
        count: u16,
        queue: u16,
    ) -> Result<(), ConfigError> {
        if queue >= count {
            return Err(self.err(
                field,
                format!(
                    "queue {queue} does not exist: port `{}` has {key}: {count} (queues 0..={})",
                    pp.name,
                    count - 1
                ),
            ));
        }
        Ok(())
    }

    /// `{at}.clock_error`: a duration, only with a synced clock.
    pub(super) fn clock_error(
        &self,
        at: &str,
        v: Option<&Scalar>,
        synced: bool,
    ) -> Result<Option<Duration>, ConfigError> {
        let Some(v) = v else { return Ok(None) };
        let field = format!("{at}.clock_error");
        if !synced {
            return Err(self.err(
                field,
                "a clock error is declared only for a synced clock (clock: synced)",
            ));
        }
        parse_duration(v.as_str())
            .map(Some)
            .map_err(|m| self.err(field, m.to_string()))
    }

    /// `{at}.clock_servo`: `none`, `ptp4l` or `ptp4l:PATH`, only with a
    /// synced clock; absent, `ptp4l` at its default socket if it is there.
    pub(super) fn clock_servo(
        &self,
        at: &str,
        v: Option<&Scalar>,
        synced: bool,
    ) -> Result<ClockServo, ConfigError> {
        let Some(v) = v else {
            return Ok(if synced {
                ClockServo::Auto
            } else {
                ClockServo::None
            });
        };
        let field = format!("{at}.clock_servo");
        if !synced {
            return Err(self.err(
                field,
                "a clock servo is read only for a synced clock (clock: synced)",
            ));
        }
        match v.as_str() {
            "none" => Ok(ClockServo::None),
            "ptp4l" => Ok(ClockServo::Ptp4l(PathBuf::from(
                crate::clock::ptp::DEFAULT_SOCKET,
            ))),
            s => match s.strip_prefix("ptp4l:") {
                Some(path) if !path.is_empty() => Ok(ClockServo::Ptp4l(self.resolve(path))),
                Some(_) => Err(self.err(field, "`ptp4l:` needs the socket's path after it")),
                None => Err(self.err(
                    field,
                    format!("unknown clock servo `{s}`: use none, ptp4l or ptp4l:PATH"),
                )),
            },
        }
    }

    /// A key that takes one of the words in `choices`, the first when the
    /// key is absent; `what` names it in the message.
    pub(super) fn keyword<T: Copy>(
        &self,
        field: &str,
        what: &str,
        v: Option<&Scalar>,
        choices: &[(&str, T)],
    ) -> Result<T, ConfigError> {
        let Some(text) = v.map(Scalar::as_str) else {
            return Ok(choices[0].1);
        };
        if let Some(&(_, value)) = choices.iter().find(|(word, _)| *word == text) {
            return Ok(value);
        }
        let words: Vec<&str> = choices.iter().map(|(word, _)| *word).collect();
        let (last, rest) = words.split_last().unwrap_or((&"", &[]));
        Err(self.err(
            field,
            format!("unknown {what} `{text}`: use {} or {last}", rest.join(", ")),
        ))
    }

    /// Claim `lcore` for the task at `at`.
    pub(super) fn lcore(
        &self,
        eal: &EalPlan,
        users: &mut HashMap<u32, String>,
        at: &str,
        lcore: u32,
    ) -> Result<(), ConfigError> {
        let field = format!("{at}.lcore");
        if lcore == eal.main_lcore {
            return Err(self.err(
                field,
                format!(
                    "lcore {lcore} is the main lcore (the first of eal.cores), which runs the \
                     reporter: give the task another lcore from eal.cores"
                ),
            ));
        }
        if !eal.lcores.contains(&lcore) {
            return Err(self.err(
                field,
                format!("lcore {lcore} is not in eal.cores: add it there"),
            ));
        }
        if let Some(other) = users.insert(lcore, at.to_string()) {
            return Err(self.err(
                field,
                format!("lcore {lcore} already runs {other}; each lcore runs one task"),
            ));
        }
        Ok(())
    }

    /// The index of the port named `name`.
    pub(super) fn port_ref(
        &self,
        ports: &[PortPlan],
        at: &str,
        name: &str,
    ) -> Result<usize, ConfigError> {
        ports
            .iter()
            .position(|p| p.name == name.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
                self.err(
                    format!("{at}.port"),
                    format!("unknown port `{name}`: the ports are {}", known.join(", ")),
                )
            })
    }

    /// Indices of the streams named in `list`.
    pub(super) fn stream_refs(
        &self,
        by_name: &HashMap<String, usize>,
        field: &str,
        list: &[String],
    ) -> Result<Vec<usize>, ConfigError> {
        let mut out: Vec<usize> = Vec::with_capacity(list.len());
        for (k, name) in list.iter().enumerate() {
            let at = format!("{field}[{k}]");
            let Some(&s) = by_name.get(name.trim()) else {
                let mut known: Vec<(&String, &usize)> = by_name.iter().collect();
                known.sort_by_key(|(_, i)| **i);
                let known: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
                return Err(self.err(
                    at,
                    format!(
                        "unknown stream `{name}`: the streams are {}",
                        if known.is_empty() {
                            "none".to_string()
                        } else {
                            known.join(", ")
                        }
                    ),
                ));
            };
            if out.contains(&s) {
                return Err(self.err(at, format!("stream `{name}` is listed twice")));
            }
            out.push(s);
        }
        Ok(out)
    }

    /// `run:`
    fn run(&self, r: &raw::Run) -> Result<RunPlan, ConfigError> {
        let get = |key: &str, s: &Scalar, positive: bool| {
            let field = format!("run.{key}");
            let d = parse_duration(s.as_str()).map_err(|m| self.err(&field, m.to_string()))?;
            if positive && d.is_zero() {
                return Err(self.err(field, format!("{key} must be above zero")));
            }
            Ok(d)
        };
        let interval = get("interval", &r.interval, true)?;
        if interval < MIN_INTERVAL {
            return Err(self.err(
                "run.interval",
                format!(
                    "{} is shorter than the shortest report interval, {}",
                    r.interval.as_str().trim(),
                    format_duration(MIN_INTERVAL)
                ),
            ));
        }
        Ok(RunPlan {
            duration: get("duration", &r.duration, true)?,
            interval,
            start_at: None,
            until_stopped: false,
        })
    }
}

/// Grow `port`'s largest frame to cover the streams `indices`.
pub(super) fn widen_max_frame(port: &mut PortPlan, streams: &[StreamSpec], indices: &[usize]) {
    let max = indices
        .iter()
        .map(|&s| stream::max_frame(&streams[s]))
        .max()
        .unwrap_or(0);
    port.max_frame = port.max_frame.max(max);
}
