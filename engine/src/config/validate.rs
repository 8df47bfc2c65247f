//! Raw profile → [`Plan`]: every semantic check, each error located at the
//! key it is about.

use std::collections::HashMap;
use std::hash::Hash;
use std::path::PathBuf;
use std::time::Duration;

use super::check::Checker;
use super::error::ConfigError;
use super::ext::{Bus, Layer, LinkKind, Pattern, RateSpec, TxMode};
use super::locate::Locator;
use super::plan::{
    Checksum, Clock, ClockServo, CountFrom, Device, EalPlan, Payload, Plan, PortPlan, RunPlan,
    RxStreams, RxTaskPlan, SyncedClock, TxClock, TxTaskPlan, Verify,
};
use super::raw::{self, scalar_text, Scalar};
use super::stream;
use super::yaml::{describe, Value};
use crate::clock::nic::Want;
use crate::clock::sync::ClockId;
use crate::units::{format_duration, group, parse_duration};
use crate::wire::spec::StreamSpec;

/// vdev arguments whose values are file paths, resolved against the
/// profile's folder.
const PATH_ARGS: [&str; 2] = ["tx_pcap", "rx_pcap"];

/// DPDK's limit on queues per port (`RTE_MAX_QUEUES_PER_PORT`).
const MAX_QUEUES: u16 = 1024;

/// Largest ring accepted here; the runtime adjusts rings to the device.
const MAX_RING: u16 = 32768;

/// The most departures a TX task may trace (`tx[i].trace_frames`): each
/// holds 16 bytes of memory during the run, 1.6 GB at this maximum.
pub(crate) const MAX_TRACE_FRAMES: u64 = 100_000_000;

/// The most extra cycles an RX task may spend per frame
/// (`rx[i].slowdown_cycles`): about 4 ms at 2.5 GHz, 250 frames/s.
pub(crate) const MAX_SLOWDOWN_CYCLES: u64 = 10_000_000;

/// The shortest `run.interval`: shorter ones print (and keep in the JSON)
/// more lines than anyone reads.
const MIN_INTERVAL: Duration = Duration::from_millis(10);

/// The most ports DPDK is built for (`RTE_MAX_ETHPORTS` in Debian's
/// rte_config.h; a runtime test checks the two agree): more vdevs and PCI
/// devices than this cannot all become ports.
pub(crate) const MAX_PORTS: usize = 32;

/// The most lcores (and CPUs) DPDK is built for (`RTE_MAX_LCORE` in
/// Debian's rte_build_config.h).
const MAX_LCORE: u32 = 128;

/// Log levels `--log-level` accepts by name.
const LOG_LEVELS: [&str; 8] = [
    "emergency",
    "alert",
    "critical",
    "error",
    "warning",
    "notice",
    "info",
    "debug",
];

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
    fn check_name(
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

    /// `tx:`; the stream weights come from `p.streams`, and each port's
    /// largest frame grows to cover what its tasks send.
    fn tx_tasks(
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

    /// That `queue` is one of the `count` queues a port's `key` gives it.
    fn queue_exists(
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

    /// `{at}.clock_error`: a duration, only with a synced clock.
    fn clock_error(
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
    fn clock_servo(
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

    /// `rx[r].clock` and `rx[r].clock_error`.
    fn rx_clock(&self, at: &str, task: &raw::Rx) -> Result<Clock, ConfigError> {
        let synced = |id, shared| Clock::Synced {
            clock: SyncedClock {
                id,
                declared_error: None,
            },
            shared,
        };
        let mut clock = self.keyword(
            &format!("{at}.clock"),
            "clock",
            task.clock.as_ref(),
            &[
                ("auto", Clock::Auto),
                ("shared", Clock::Shared),
                ("separate", Clock::Separate),
                ("synced", synced(ClockId::Realtime, false)),
                ("synced-tai", synced(ClockId::Tai, false)),
                ("synced+shared", synced(ClockId::Realtime, true)),
            ],
        )?;
        let is_synced = matches!(clock, Clock::Synced { .. });
        let declared = self.clock_error(at, task.clock_error.as_ref(), is_synced)?;
        if let Clock::Synced { clock: c, .. } = &mut clock {
            c.declared_error = declared;
        }
        Ok(clock)
    }

    /// `rx:`; each port's largest frame grows to cover what its tasks
    /// expect.
    fn rx_tasks(
        &self,
        tasks: &[raw::Rx],
        eal: &EalPlan,
        lcore_users: &mut HashMap<u32, String>,
        ports: &mut [PortPlan],
        streams: &[StreamSpec],
        by_name: &HashMap<String, usize>,
    ) -> Result<Vec<RxTaskPlan>, ConfigError> {
        let mut rx = Vec::with_capacity(tasks.len());
        let mut queue_users: HashMap<(usize, u16), usize> = HashMap::new();
        for (r, task) in tasks.iter().enumerate() {
            let at = format!("rx[{r}]");
            self.lcore(eal, lcore_users, &at, task.lcore)?;
            let port = self.port_ref(ports, &at, &task.port)?;
            let queues = self.rx_queues(&at, task, r, port, &ports[port], &mut queue_users)?;
            let verify = self.keyword(
                &format!("{at}.verify"),
                "verify level",
                task.verify.as_ref(),
                &[
                    ("full", Verify::Full),
                    ("stamp", Verify::Stamp),
                    ("none", Verify::None),
                ],
            )?;
            let clock = self.rx_clock(&at, task)?;
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
            let clock_servo = self.clock_servo(
                &at,
                task.clock_servo.as_ref(),
                matches!(clock, Clock::Synced { .. }),
            )?;
            let count_from = self.keyword(
                &format!("{at}.count_from"),
                "loss origin",
                task.count_from.as_ref(),
                &[
                    ("first_seen", CountFrom::FirstSeen),
                    ("zero", CountFrom::Zero),
                ],
            )?;
            let expect =
                self.rx_streams(by_name, &format!("{at}.streams"), task.streams.as_ref())?;
            // A task that learns its streams may see any of them.
            let expected: Vec<usize> = match &expect {
                RxStreams::Listed(list) => list.clone(),
                RxStreams::Auto => (0..streams.len()).collect(),
            };
            widen_max_frame(&mut ports[port], streams, &expected);
            if task.slowdown_cycles > MAX_SLOWDOWN_CYCLES {
                return Err(self.err(
                    format!("{at}.slowdown_cycles"),
                    format!(
                        "{} cycles per frame is more than the knob takes: at most {} \
                         (about 4 ms per frame at 2.5 GHz)",
                        task.slowdown_cycles,
                        group(MAX_SLOWDOWN_CYCLES as f64)
                    ),
                ));
            }
            rx.push(RxTaskPlan {
                lcore: task.lcore,
                port,
                queues,
                verify,
                slowdown_cycles: task.slowdown_cycles,
                count_from,
                streams: expect,
                clock,
                timestamps,
                clock_servo,
            });
        }
        self.every_rx_queue_polled(ports, &queue_users)?;
        Ok(rx)
    }

    /// Every RX queue of a port that an RX task reads is polled by some
    /// task: frames RSS steers to an unpolled queue would be lost unseen
    /// (and on ixgbe without `rx_drop_en` one full queue stalls the others).
    fn every_rx_queue_polled(
        &self,
        ports: &[PortPlan],
        users: &HashMap<(usize, u16), usize>,
    ) -> Result<(), ConfigError> {
        for (p, pp) in ports.iter().enumerate() {
            let read = users.keys().any(|&(port, _)| port == p);
            if let Some(q) = (0..pp.rx_queues).find(|&q| read && !users.contains_key(&(p, q))) {
                return Err(self.err(
                    format!("ports[{p}].rx_queues"),
                    format!(
                        "port `{}` has rx_queues: {} but no RX task polls queue {q}: \
                         frames the port steers there would be lost unseen; list it in \
                         an rx task's queues, or lower rx_queues",
                        pp.name, pp.rx_queues
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `rx[r].queues` of port `pp` (index `port`): the ones listed, or all
    /// of the port's; each claimed in `users`, as an RX queue has one reader.
    fn rx_queues(
        &self,
        at: &str,
        task: &raw::Rx,
        r: usize,
        port: usize,
        pp: &PortPlan,
        users: &mut HashMap<(usize, u16), usize>,
    ) -> Result<Vec<u16>, ConfigError> {
        let queues: Vec<u16> = match &task.queues {
            Some(q) => q.clone(),
            None => (0..pp.rx_queues).collect(),
        };
        if queues.is_empty() {
            return Err(self.err(
                format!("{at}.queues"),
                "an empty list polls nothing: name at least one queue, \
                 or leave the key out to poll all of the port's queues",
            ));
        }
        for (k, &q) in queues.iter().enumerate() {
            let field = if task.queues.is_some() {
                format!("{at}.queues[{k}]")
            } else {
                at.to_string()
            };
            self.queue_exists(&field, pp, "rx_queues", pp.rx_queues, q)?;
            if let Some(other) = users.insert((port, q), r) {
                let whom = if other == r {
                    "this task (listed twice)".to_string()
                } else {
                    format!("rx[{other}]")
                };
                return Err(self.err(
                    field,
                    format!(
                        "port `{}` queue {q} is already polled by {whom}; \
                         each RX queue has one reader",
                        pp.name
                    ),
                ));
            }
        }
        Ok(queues)
    }

    /// A key that takes one of the words in `choices`, the first when the
    /// key is absent; `what` names it in the message.
    fn keyword<T: Copy>(
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

    /// `eal:`
    fn eal(&self, e: &raw::Eal) -> Result<EalPlan, ConfigError> {
        self.cores(&e.cores)?;
        self.device_count(e)?;
        if !e.hugepages && e.memory_mb < 64 {
            return Err(self.err(
                "eal.memory_mb",
                format!(
                    "{} MiB is too little without hugepages: give at least 64 \
                     (pools of jumbo mbufs need a few hundred)",
                    e.memory_mb
                ),
            ));
        }
        Ok(EalPlan {
            lcores: e.cores.clone(),
            cpus: self.cpus(&e.cores, e.cpus.as_deref())?,
            main_lcore: e.cores[0],
            hugepages: e.hugepages,
            memory_mb: e.memory_mb,
            vdevs: self.vdevs(&e.vdevs)?,
            pci: self.pci(&e.pci)?,
            file_prefix: self.file_prefix(&e.file_prefix)?,
            log_level: self.log_level(&e.log_level)?,
            extra_args: self.extra_args(&e.extra_args)?,
        })
    }

    /// `eal.cores`: at least one, none twice.
    fn cores(&self, cores: &[u32]) -> Result<(), ConfigError> {
        if cores.is_empty() {
            return Err(self.err(
                "eal.cores",
                "list the lcores to use: the main lcore first, then one per task",
            ));
        }
        let mut seen: HashMap<u32, usize> = HashMap::new();
        for (i, &c) in cores.iter().enumerate() {
            self.listed_once(&mut seen, "eal.cores", i, c, format!("lcore {c}"))?;
        }
        Ok(())
    }

    /// `eal.cpus`: the CPU each lcore of `eal.cores` runs on, one per
    /// lcore; absent, each lcore runs on the CPU of its own number.
    fn cpus(&self, cores: &[u32], cpus: Option<&[u32]>) -> Result<Vec<u32>, ConfigError> {
        let Some(cpus) = cpus else {
            return Ok(cores.to_vec());
        };
        if cpus.len() != cores.len() {
            return Err(self.err(
                "eal.cpus",
                format!(
                    "{} CPUs for {} lcores: give one CPU per lcore of eal.cores, in its order",
                    cpus.len(),
                    cores.len()
                ),
            ));
        }
        if let Some((i, &c)) = cpus.iter().enumerate().find(|(_, &c)| c >= MAX_LCORE) {
            return Err(self.err(
                format!("eal.cpus[{i}]"),
                format!("CPU {c} is beyond the {MAX_LCORE} CPUs DPDK is built for (RTE_MAX_LCORE)"),
            ));
        }
        Ok(cpus.to_vec())
    }

    /// Record item `i` of `list` under `key`, `what` naming it in the error
    /// when an earlier item has the same key.
    fn listed_once<K: Eq + Hash>(
        &self,
        seen: &mut HashMap<K, usize>,
        list: &str,
        i: usize,
        key: K,
        what: String,
    ) -> Result<(), ConfigError> {
        match seen.insert(key, i) {
            Some(j) => Err(self.err(
                format!("{list}[{i}]"),
                format!("{what} is listed twice (also {list}[{j}])"),
            )),
            None => Ok(()),
        }
    }

    /// `eal.vdevs`, with file arguments resolved.
    fn vdevs(&self, list: &[String]) -> Result<Vec<String>, ConfigError> {
        let mut vdevs = Vec::with_capacity(list.len());
        let mut names: HashMap<String, usize> = HashMap::new();
        for (i, v) in list.iter().enumerate() {
            let at = format!("eal.vdevs[{i}]");
            let (name, args) = self.vdev_name(&at, v.trim())?;
            self.listed_once(
                &mut names,
                "eal.vdevs",
                i,
                name.to_string(),
                format!("vdev `{name}`"),
            )?;
            vdevs.push(self.vdev_args(&at, name, args)?);
        }
        Ok(vdevs)
    }

    /// A vdev's driver name and the arguments after it.
    fn vdev_name<'v>(
        &self,
        at: &str,
        v: &'v str,
    ) -> Result<(&'v str, Option<&'v str>), ConfigError> {
        let (name, args) = match v.split_once(',') {
            Some((n, a)) => (n.trim(), Some(a)),
            None => (v, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.err(
                at,
                format!(
                    "`{name}` is not a vdev name: give a driver name and a number, \
                     then arguments after commas (e.g. net_pcap0,tx_pcap=out.pcap)"
                ),
            ));
        }
        Ok((name, args))
    }

    /// `name` with its arguments, file paths resolved against the profile's
    /// folder.
    fn vdev_args(&self, at: &str, name: &str, args: Option<&str>) -> Result<String, ConfigError> {
        let mut full = name.to_string();
        for arg in args.into_iter().flat_map(|a| a.split(',')) {
            let arg = arg.trim();
            let arg = match arg.split_once('=') {
                Some((k, val)) if PATH_ARGS.contains(&k.trim()) => {
                    if val.trim().is_empty() {
                        return Err(self.err(at, format!("`{}=` needs a file path", k.trim())));
                    }
                    format!("{}={}", k.trim(), self.resolve(val.trim()).display())
                }
                _ => arg.to_string(),
            };
            full.push(',');
            full.push_str(&arg);
        }
        Ok(full)
    }

    /// `eal.pci`: canonical addresses, each with its arguments.
    fn pci(&self, list: &[String]) -> Result<Vec<String>, ConfigError> {
        let mut pci = Vec::with_capacity(list.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, a) in list.iter().enumerate() {
            let (addr, args) = match a.trim().split_once(',') {
                Some((x, rest)) => (x, Some(rest)),
                None => (a.trim(), None),
            };
            let canon = canonical_pci(addr).ok_or_else(|| {
                self.err(
                    format!("eal.pci[{i}]"),
                    format!("`{addr}` is not a PCI address (write e.g. 0000:03:00.0 or 03:00.0)"),
                )
            })?;
            self.listed_once(
                &mut seen,
                "eal.pci",
                i,
                canon.clone(),
                format!("PCI device {canon}"),
            )?;
            pci.push(match args {
                Some(rest) => format!("{canon},{rest}"),
                None => canon,
            });
        }
        Ok(pci)
    }

    /// `eal.file_prefix`: `auto` (`None`) or a safe name.
    fn file_prefix(&self, text: &str) -> Result<Option<String>, ConfigError> {
        match text.trim() {
            "auto" => Ok(None),
            p if !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                Ok(Some(p.to_string()))
            }
            p => Err(self.err(
                "eal.file_prefix",
                format!("`{p}`: use `auto` or letters, digits, `_` and `-` only"),
            )),
        }
    }

    /// `eal.log_level`, lowercased: a name, 1..=8 or DPDK's pattern form.
    fn log_level(&self, text: &str) -> Result<String, ConfigError> {
        let level = text.trim().to_ascii_lowercase();
        let ok_level = LOG_LEVELS.contains(&level.as_str())
            || level.parse::<u8>().is_ok_and(|n| (1..=8).contains(&n))
            || level.contains(':')
            || level.contains('=');
        if !ok_level {
            return Err(self.err(
                "eal.log_level",
                format!(
                    "unknown log level `{text}`: use one of {} (or DPDK's pattern:level form)",
                    LOG_LEVELS.join(", ")
                ),
            ));
        }
        Ok(level)
    }

    /// `ports:`
    fn ports(&self, ports: &[raw::Port], eal: &EalPlan) -> Result<Vec<PortPlan>, ConfigError> {
        if ports.is_empty() {
            return Err(self.err(
                "ports",
                "the profile has no port: add a ports: list with at least one port",
            ));
        }
        let vdev_names = device_names(&eal.vdevs);
        let pci_names = device_names(&eal.pci);
        let mut out: Vec<PortPlan> = Vec::with_capacity(ports.len());
        for (i, p) in ports.iter().enumerate() {
            let at = format!("ports[{i}]");
            let name = p.name.trim();
            self.check_name(&at, "port", name, out.iter().position(|q| q.name == name))?;
            let dev = p.device.trim();
            let device = self.device(&at, dev, &vdev_names, &pci_names)?;
            if let Some(j) = out.iter().position(|q| q.device == device) {
                return Err(self.err(
                    format!("{at}.device"),
                    format!("device `{dev}` is already used by ports[{j}]"),
                ));
            }
            out.push(self.port(&at, name, device, p)?);
        }
        Ok(out)
    }

    /// `ports[i].device`: a PCI address from `eal.pci` or a vdev from
    /// `eal.vdevs`.
    fn device(
        &self,
        at: &str,
        dev: &str,
        vdev_names: &[&str],
        pci_names: &[&str],
    ) -> Result<Device, ConfigError> {
        if let Some(canon) = canonical_pci(dev) {
            if !pci_names.contains(&canon.as_str()) {
                return Err(self.err(
                    format!("{at}.device"),
                    format!("PCI device {canon} is not in eal.pci: add it there"),
                ));
            }
            return Ok(Device::Pci(canon));
        }
        if vdev_names.contains(&dev) {
            return Ok(Device::Vdev(dev.to_string()));
        }
        let known = if vdev_names.is_empty() {
            "none".to_string()
        } else {
            vdev_names.join(", ")
        };
        Err(self.err(
            format!("{at}.device"),
            format!(
                "device `{dev}` is neither a vdev from eal.vdevs ({known}) nor a PCI \
                 address from eal.pci"
            ),
        ))
    }

    /// The settings of the port `name` on `device`: queues, rings,
    /// checksum offload, link and bus.
    fn port(
        &self,
        at: &str,
        name: &str,
        device: Device,
        p: &raw::Port,
    ) -> Result<PortPlan, ConfigError> {
        for (key, n, max, unit) in [
            ("rx_queues", p.rx_queues, MAX_QUEUES, ""),
            ("tx_queues", p.tx_queues, MAX_QUEUES, ""),
            ("rx_ring", p.rx_ring, MAX_RING, " descriptors"),
            ("tx_ring", p.tx_ring, MAX_RING, " descriptors"),
        ] {
            if n == 0 || n > max {
                return Err(self.err(
                    format!("{at}.{key}"),
                    format!("{n}{unit} is out of range 1..={max}"),
                ));
            }
        }
        let checksum: Checksum = self.parse(&format!("{at}.checksum"), p.checksum.as_str())?;
        let payload: Payload = self.parse(&format!("{at}.payload"), p.payload.as_str())?;
        let link: Option<LinkKind> = match p.link.as_str().trim() {
            "auto" => None,
            text => Some(self.parse(&format!("{at}.link"), text)?),
        };
        let bus: Option<Bus> = match &p.bus {
            None => None,
            Some(b) => Some(self.parse(&format!("{at}.bus"), b.as_str())?),
        };
        Ok(PortPlan {
            name: name.to_string(),
            device,
            rx_queues: p.rx_queues,
            tx_queues: p.tx_queues,
            rx_ring: p.rx_ring,
            tx_ring: p.tx_ring,
            checksum,
            payload,
            link,
            bus,
            promiscuous: p.promiscuous,
            max_frame: 0,
        })
    }

    /// Claim `lcore` for the task at `at`.
    fn lcore(
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

    /// The index of the port named `name`.
    fn port_ref(&self, ports: &[PortPlan], at: &str, name: &str) -> Result<usize, ConfigError> {
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
    fn stream_refs(
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

    /// `rx[i].streams`: `auto` or a list of names.
    fn rx_streams(
        &self,
        by_name: &HashMap<String, usize>,
        field: &str,
        v: Option<&Value>,
    ) -> Result<RxStreams, ConfigError> {
        match v {
            None | Some(Value::Null) => Ok(RxStreams::Auto),
            Some(Value::String(s)) if s.trim() == "auto" => Ok(RxStreams::Auto),
            Some(Value::Sequence(items)) => {
                let mut names = Vec::with_capacity(items.len());
                for (k, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => names.push(s.clone()),
                        other => {
                            return Err(self.err(
                                format!("{field}[{k}]"),
                                format!("expected a stream name, found {}", describe(other)),
                            ))
                        }
                    }
                }
                if names.is_empty() {
                    return Err(self.err(
                        field,
                        "an empty list expects nothing: write `auto` or name streams",
                    ));
                }
                Ok(RxStreams::Listed(self.stream_refs(by_name, field, &names)?))
            }
            Some(other) => Err(self.err(
                field,
                format!(
                    "expected `auto` or a list of stream names, found {}",
                    describe(other)
                ),
            )),
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
        })
    }
}

/// The device of each entry of `eal.vdevs` or `eal.pci`: the text before
/// its arguments.
fn device_names(list: &[String]) -> Vec<&str> {
    list.iter()
        .map(|v| v.split(',').next().unwrap_or(v))
        .collect()
}

/// Grow `port`'s largest frame to cover the streams `indices`.
fn widen_max_frame(port: &mut PortPlan, streams: &[StreamSpec], indices: &[usize]) {
    let max = indices
        .iter()
        .map(|&s| stream::max_frame(&streams[s]))
        .max()
        .unwrap_or(0);
    port.max_frame = port.max_frame.max(max);
}

/// `0000:03:00.0` for `0000:03:00.0` or `03:00.0` (hex digits, any case),
/// `None` when `s` is not a PCI address.
pub(crate) fn canonical_pci(s: &str) -> Option<String> {
    let s = s.trim();
    let (rest, func) = s.rsplit_once('.')?;
    let parts: Vec<&str> = rest.split(':').collect();
    let (domain, bus, dev) = match parts.as_slice() {
        [d, b, v] => (*d, *b, *v),
        [b, v] => ("0000", *b, *v),
        _ => return None,
    };
    let hex = |t: &str, max: usize| {
        !t.is_empty() && t.len() <= max && t.chars().all(|c| c.is_ascii_hexdigit())
    };
    if !(hex(domain, 8) && hex(bus, 2) && hex(dev, 2) && func.len() == 1 && hex(func, 1)) {
        return None;
    }
    let n = |t: &str| u32::from_str_radix(t, 16).ok();
    let (d, b, v, f) = (n(domain)?, n(bus)?, n(dev)?, n(func)?);
    if v > 0x1f || f > 7 {
        return None;
    }
    Some(format!("{d:04x}:{b:02x}:{v:02x}.{f:x}"))
}
