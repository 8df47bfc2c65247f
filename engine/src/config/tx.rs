//! The `tx:` section: each TX task's lcore, port and queue, the streams
//! it sends (each stream has one sender), its rate and layer, mode,
//! pattern, trace and clock.

use std::collections::HashMap;

use super::check::Checker;
use super::error::ConfigError;
use super::ext::{Layer, Pattern, RateSpec, TxMode};
use super::plan::{EalPlan, PortPlan, SyncedClock, TxClock, TxTaskPlan};
use super::raw::{self, scalar_text, Scalar};
use super::validate::widen_max_frame;
use super::yaml::{describe, Value};
use crate::clock::nic::Want;
use crate::clock::sync::ClockId;
use crate::units::group;
use crate::wire::spec::StreamSpec;

/// The most departures a TX task may trace (`tx[i].trace_frames`): each
/// holds 16 bytes of memory during the run, 1.6 GB at this maximum.
pub(crate) const MAX_TRACE_FRAMES: u64 = 100_000_000;

impl Checker<'_> {
    /// `tx:`; the stream weights come from `p.streams`, and each port's
    /// largest frame grows to cover what its tasks send.
    pub(super) fn tx_tasks(
        &self,
        p: &raw::Profile,
        eal: &EalPlan,
        lcore_users: &mut HashMap<u32, String>,
        ports: &mut [PortPlan],
        streams: &[StreamSpec],
        by_name: &HashMap<String, usize>,
    ) -> Result<Vec<TxTaskPlan>, ConfigError> {
        let mut tx = Vec::with_capacity(p.tx.len());
        let mut queue_users: HashMap<(usize, u16), usize> = HashMap::new();
        let mut senders: HashMap<usize, usize> = HashMap::new();
        for (t, task) in p.tx.iter().enumerate() {
            let at = format!("tx[{t}]");
            self.lcore(eal, lcore_users, &at, task.lcore)?;
            let port = self.port_ref(ports, &at, &task.port)?;
            let pp = &ports[port];
            let field = format!("{at}.queue");
            self.queue_exists(&field, pp, "tx_queues", pp.tx_queues, task.queue)?;
            if let Some(other) = queue_users.insert((port, task.queue), t) {
                return Err(self.err(
                    field,
                    format!(
                        "port `{}` queue {} is already used by tx[{other}]; \
                         each TX queue has one sender",
                        pp.name, task.queue
                    ),
                ));
            }
            let indices = self.tx_streams(&at, task.streams.as_deref(), streams, by_name)?;
            self.claim_streams(&at, task, t, &indices, streams, &mut senders)?;
            let weights = indices.iter().map(|&s| p.streams[s].weight).collect();
            let plan = self.tx_task(&at, task, pp, port, indices, weights)?;
            widen_max_frame(&mut ports[port], streams, &plan.streams);
            tx.push(plan);
        }
        Ok(tx)
    }

    /// `tx[i].streams`: the streams named, or all of them when the key is
    /// absent.
    fn tx_streams(
        &self,
        at: &str,
        list: Option<&[String]>,
        streams: &[StreamSpec],
        by_name: &HashMap<String, usize>,
    ) -> Result<Vec<usize>, ConfigError> {
        match list {
            None => {
                if streams.is_empty() {
                    return Err(self.err(at, "there are no streams to send: add a streams: list"));
                }
                Ok((0..streams.len()).collect())
            }
            Some(list) => {
                if list.is_empty() {
                    return Err(self.err(
                        format!("{at}.streams"),
                        "an empty list sends nothing: name at least one stream, \
                         or leave the key out to send all streams",
                    ));
                }
                self.stream_refs(by_name, &format!("{at}.streams"), list)
            }
        }
    }

    /// Record `tx[t]` as the sender of the streams `indices`; a stream has
    /// one sender.
    fn claim_streams(
        &self,
        at: &str,
        task: &raw::Tx,
        t: usize,
        indices: &[usize],
        streams: &[StreamSpec],
        senders: &mut HashMap<usize, usize>,
    ) -> Result<(), ConfigError> {
        for (k, &s) in indices.iter().enumerate() {
            if let Some(other) = senders.insert(s, t) {
                let field = match &task.streams {
                    Some(_) => format!("{at}.streams[{k}]"),
                    None => at.to_string(),
                };
                return Err(self.err(
                    field,
                    format!(
                        "stream `{}` is already sent by tx[{other}]; a stream belongs to \
                         one TX task (list the streams of each task)",
                        streams[s].name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The rest of a TX task on port `pp` (index `port`) sending `streams`:
    /// its rate, layer, mode, pattern and trace.
    fn tx_task(
        &self,
        at: &str,
        task: &raw::Tx,
        pp: &PortPlan,
        port: usize,
        streams: Vec<usize>,
        weights: Vec<u32>,
    ) -> Result<TxTaskPlan, ConfigError> {
        let rate: RateSpec = self.parse(&format!("{at}.rate"), task.rate.as_str())?;
        let layer = self.layer(at, &rate, task.rate.as_str(), task.layer.as_ref())?;
        let mode: TxMode = match &task.mode {
            Some(m) => self.parse(&format!("{at}.mode"), m.as_str())?,
            None => self.parse(&format!("{at}.mode"), "spin")?,
        };
        let pattern: Pattern = self.pattern(&format!("{at}.pattern"), task.pattern.as_ref())?;
        mode.validate(pp.tx_ring).map_err(|e| {
            self.err(
                format!("{at}.mode"),
                format!("{e} (port `{}`'s tx_ring)", pp.name),
            )
        })?;
        let trace = task.trace.as_deref().map(|t| self.resolve(t));
        if trace.is_some() && task.trace_frames == 0 {
            return Err(self.err(
                format!("{at}.trace_frames"),
                "trace_frames must be at least 1 when a trace file is given",
            ));
        }
        if task.trace_frames > MAX_TRACE_FRAMES {
            return Err(self.err(
                format!("{at}.trace_frames"),
                format!(
                    "{} departures are more than a trace holds: at most {} \
                     (each takes 16 bytes of memory during the run)",
                    task.trace_frames,
                    group(MAX_TRACE_FRAMES as f64)
                ),
            ));
        }
        if task.frames == Some(0) {
            return Err(self.err(
                format!("{at}.frames"),
                "a task that sends no frame: frames must be at least 1 (or absent: no limit)",
            ));
        }
        let clock = self.tx_clock(at, task)?;
        let clock_servo = self.clock_servo(
            at,
            task.clock_servo.as_ref(),
            matches!(clock, TxClock::Synced(_)),
        )?;
        let timestamps = self.keyword(
            &format!("{at}.timestamps"),
            "timestamp source",
            task.timestamps.as_ref(),
            &[
                ("auto", Want::Auto),
                ("nic", Want::Nic),
                ("software", Want::Software),
            ],
        )?;
        Ok(TxTaskPlan {
            lcore: task.lcore,
            port,
            queue: task.queue,
            weights,
            streams,
            rate,
            layer,
            mode,
            pattern,
            trace,
            trace_frames: task.trace_frames,
            frames: task.frames,
            clock,
            clock_servo,
            timestamps,
        })
    }

    /// `tx[t].clock` and `tx[t].clock_error`.
    fn tx_clock(&self, at: &str, task: &raw::Tx) -> Result<TxClock, ConfigError> {
        let id = self.keyword(
            &format!("{at}.clock"),
            "TX clock",
            task.clock.as_ref(),
            &[
                ("tsc", None),
                ("synced", Some(ClockId::Realtime)),
                ("synced-tai", Some(ClockId::Tai)),
            ],
        )?;
        let declared_error = self.clock_error(at, task.clock_error.as_ref(), id.is_some())?;
        Ok(match id {
            None => TxClock::Tsc,
            Some(id) => TxClock::Synced(SyncedClock { id, declared_error }),
        })
    }

    /// The layer of a TX task's rate: the rate's own `@layer` suffix, else
    /// `layer:`, else L1; the two must agree when both are given.
    fn layer(
        &self,
        at: &str,
        rate: &RateSpec,
        rate_text: &str,
        key: Option<&Scalar>,
    ) -> Result<Layer, ConfigError> {
        let rate_text = rate_text.trim();
        let field = format!("{at}.layer");
        let given: Option<Layer> = match key {
            Some(l) => Some(self.parse(&field, l.as_str())?),
            None => None,
        };
        let named = match rate {
            RateSpec::Absolute { layer, .. } => *layer,
            _ => None,
        };
        match (named, given) {
            (Some(n), Some(g)) if n != g => Err(self.err(
                field,
                format!("layer {g} contradicts the rate `{rate_text}`, which counts {n}: keep one"),
            )),
            (None, Some(Layer::Frames)) if matches!(rate, RateSpec::Absolute { .. }) => Err(self
                .err(
                    field,
                    format!(
                        "`{rate_text}` is a bit rate, not frames per second: write the rate as \
                         e.g. 800000pps, or choose a bit layer (l1, l2, payload)"
                    ),
                )),
            (Some(n), _) => Ok(n),
            (None, g) => Ok(g.unwrap_or(Layer::L1)),
        }
    }

    /// `tx[i].pattern`: `cbr` (default), or a one-key mapping such as
    /// `{ poisson: { seed: 1 } }`.
    fn pattern(&self, field: &str, v: Option<&Value>) -> Result<Pattern, ConfigError> {
        let text = match v {
            None | Some(Value::Null) => "cbr".to_string(),
            Some(v) => match scalar_text(v) {
                Some(t) => t,
                None => self.pattern_text(field, v)?,
            },
        };
        self.parse(field, &text)
    }

    /// The text form of a pattern written as a one-key mapping:
    /// `{ poisson: { seed: 7 } }` → `poisson:7`,
    /// `{ onoff: { burst: 100, seed: 3 } }` → `onoff:100:3`.
    fn pattern_text(&self, field: &str, v: &Value) -> Result<String, ConfigError> {
        let usage = "use cbr, { poisson: { seed: N } } or { onoff: { burst: FRAMES, seed: N } } \
                     (or the text forms poisson:N, onoff:FRAMES:N)";
        let Value::Mapping(m) = v else {
            return Err(self.err(
                field,
                format!("expected a pattern, found {}; {usage}", describe(v)),
            ));
        };
        let mut entries = m.iter();
        let (Some((name, params)), None) = (entries.next(), entries.next()) else {
            return Err(self.err(field, format!("give exactly one pattern; {usage}")));
        };
        let Some(name) = name.as_str() else {
            return Err(self.err(
                field,
                format!("unknown pattern {}; {usage}", describe(name)),
            ));
        };
        let at = format!("{field}.{name}");
        let allowed: &[&str] = match name {
            "cbr" => &[],
            "poisson" => &["seed"],
            "onoff" => &["burst", "seed"],
            _ => return Err(self.err(field, format!("unknown pattern `{name}`; {usage}"))),
        };
        let get = |key: &str| -> Result<Option<String>, ConfigError> {
            let Value::Mapping(p) = params else {
                return match params {
                    Value::Null => Ok(None),
                    other => Err(self.err(
                        &at,
                        format!(
                            "expected a mapping of {}, found {}",
                            allowed.join(", "),
                            describe(other)
                        ),
                    )),
                };
            };
            for k in p.keys() {
                let k = k.as_str().unwrap_or("?");
                if !allowed.contains(&k) {
                    return Err(self.err(
                        format!("{at}.{k}"),
                        format!("unknown key `{k}`, expected one of: {}", allowed.join(", ")),
                    ));
                }
            }
            Ok(p.get(key).and_then(scalar_text))
        };
        let seed = get("seed")?;
        Ok(match name {
            "cbr" => "cbr".into(),
            "poisson" => match seed {
                Some(s) => format!("poisson:{s}"),
                None => "poisson".into(),
            },
            _ => {
                let burst = get("burst")?.ok_or_else(|| {
                    self.err(&at, "onoff needs burst: the number of frames per burst")
                })?;
                match seed {
                    Some(s) => format!("onoff:{burst}:{s}"),
                    None => format!("onoff:{burst}"),
                }
            }
        })
    }
}
