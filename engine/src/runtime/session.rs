//! The runtime side of a certification: one EAL, ports opened and started
//! once, and each trial a bounded run of the profile's TX and RX tasks at
//! the trial's frame size and rate (or a burst of N frames).
//!
//! Ports stay started from the first trial to the last: a real NIC
//! renegotiates its link when it is stopped and started, which takes
//! seconds and would land in a trial. So the tasks of a trial give their
//! queue handles back when they end ([`tx::run_keeping_queue`],
//! [`rx::run_borrowed`]) and the next trial's tasks are planned around the
//! same handles. Every trial plans fresh tasks: sequence numbers start at
//! 0 and every receiver counts from 0, so frames lost at the start of a
//! trial count, and late frames of one trial (the settle time lets them
//! arrive) never reach the next one's counts.
//!
//! Topologies, from the profile's TX and RX tasks: one port out and one
//! back (`one_way`), one port that sends and receives (`loopback`), two
//! ports that each send and receive (`bidirectional`: each direction on its
//! own, then both at once as the aggregate).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::tasks::{self, Handles, Tasks};
use super::{
    build_result, clock, close_ports, launch_each, open_ports, perr, start_ports, timed, Ended,
    Outcomes, PortRt, PortStart, PortsWatched, Runtime, Snapshot, Started, StopAll, TaskLayout,
    Timing, REPORT_POLL,
};
use crate::certify::model::{
    bunched, frames_later_than, Certification, DirectionFigures, HookRun, HostPort, Learning,
    LearningRun, OnFailure, PortFrames, Tester, Trial, TrialSpec, IMIX, LEARNING_FRAMES,
    LEARNING_GAP_S, LEARNING_STALL_MS, MESH, QUEUE_FLOOR_NS,
};
use crate::certify::search::{self, Step, AGGREGATE};
use crate::clock::nic::{select, Arrival, NicCaps, Want};
use crate::config::{CountFrom, Plan, RxStreams, ADDRESS_TESTS};
use crate::counter::{Padded, StopFlag, TxLive};
use crate::dpdk::{self, RxBatch, Scope, TxBatch, TxQueue, BATCH_MAX};
use crate::outcome::Problem;
use crate::pace::pattern::Pattern;
use crate::pace::rate::{Layer, RateSpec};
use crate::report::Percentiles;
use crate::result::RunResult;
use crate::units::L1_OVERHEAD;
use crate::wire::learn::{self, LearnRepr};
use crate::wire::spec::{SizeSpec, StreamSpec};
use crate::{rx, tx, Error, Result};

/// One measured direction: the port that sends and the ports that
/// receive its streams (one, but for a mesh's sender).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Direction {
    /// Index of the sending port in the plan.
    pub tx_port: usize,
    /// Indices of the receiving ports, in the plan's order.
    pub rx_ports: Vec<usize>,
}

/// The topology of a profile: its kind (`one_way`, `loopback`,
/// `bidirectional`, `mesh`) and its directions, or an error naming what
/// does not fit. Checked before the EAL starts.
///
/// A mesh is any other set of ports where every RX task lists its
/// streams: a direction per sending port, toward the ports that list its
/// streams, and the certification's rows are the aggregate only (every
/// port sending at once, RFC 2889's fully or partially meshed traffic),
/// with per-pair figures.
pub fn topology(plan: &Plan) -> Result<(&'static str, Vec<Direction>)> {
    let txp = first_seen(plan.tx.iter().map(|t| t.port));
    let rxp = first_seen(plan.rx.iter().map(|r| r.port));
    let d = |tx_port, rx_port| Direction {
        tx_port,
        rx_ports: vec![rx_port],
    };
    let (kind, dirs) = match (txp.as_slice(), rxp.as_slice()) {
        ([a], [b]) if a == b => ("loopback", vec![d(*a, *a)]),
        ([a], [b]) => ("one_way", vec![d(*a, *b)]),
        ([a, b], [c, e]) if (a == e && b == c) || (a == c && b == e) => {
            ("bidirectional", vec![d(*a, *b), d(*b, *a)])
        }
        _ => (MESH, mesh_directions(plan, &txp)?),
    };
    check_monitor(plan, kind, &dirs, &rxp)?;
    let loads = plan.certify.settings.direction_loads.len();
    if loads > 0 && (dirs.len() < 2 || loads != dirs.len()) {
        return Err(perr(
            plan,
            "certify.direction_loads",
            format!(
                "gives {loads} load(s) for a {kind} topology of {} sending port(s): an \
                 asymmetric load needs two or more ports that send, one load per sending port",
                dirs.len()
            ),
        ));
    }
    Ok((kind, dirs))
}

/// An address search (RFC 2889 5.7, 5.8) needs a mesh with a monitoring
/// port: a port with an RX task (`streams: none`) that no stream is
/// addressed to, where a frame the device floods shows.
fn check_monitor(plan: &Plan, kind: &str, dirs: &[Direction], rxp: &[usize]) -> Result<()> {
    let tests = &plan.certify.settings.tests;
    let Some(test) = (tests.iter()).find(|t| ADDRESS_TESTS.contains(&t.as_str())) else {
        return Ok(());
    };
    let reached = |q: &usize| dirs.iter().any(|d| d.rx_ports.contains(q));
    if kind == MESH && rxp.iter().any(|q| !reached(q)) {
        return Ok(());
    }
    Err(perr(
        plan,
        "rx",
        format!(
            "the {test} test (RFC 2889) needs a monitoring port, where frames the device \
             floods show: an RX task with `streams: none` on a port no stream is addressed to, \
             beside the RX tasks that list the streams they receive"
        ),
    ))
}

/// The ports of `ports`, each once, in the order first seen.
fn first_seen(ports: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut u: Vec<usize> = Vec::new();
    for p in ports {
        if !u.contains(&p) {
            u.push(p);
        }
    }
    u
}

/// The directions of a mesh: each port of `txp` toward the ports whose RX
/// tasks list its streams. Every RX task lists its streams, each stream
/// sent is listed at one port, and every sending port reaches one.
fn mesh_directions(plan: &Plan, txp: &[usize]) -> Result<Vec<Direction>> {
    let shape = "a certification needs TX tasks on one port and RX tasks on one port (the \
                 same port when it is looped back), two ports that each send and receive, or \
                 a mesh whose RX tasks each list their streams";
    if txp.is_empty() || plan.rx.is_empty() {
        return Err(perr(plan, "tx", shape));
    }
    let mut at: Vec<Option<usize>> = vec![None; plan.streams.len()];
    for (i, r) in plan.rx.iter().enumerate() {
        let RxStreams::Listed(list) = &r.streams else {
            return Err(perr(
                plan,
                &format!("rx[{i}].streams"),
                format!("is not listed: {shape}, so that each stream is counted at its port"),
            ));
        };
        for &s in list {
            match at[s] {
                Some(q) if q != r.port => {
                    return Err(perr(
                        plan,
                        &format!("rx[{i}].streams"),
                        format!(
                            "lists `{}`, which port {} receives too: in a mesh each stream is \
                             counted at the one port it is addressed to",
                            plan.streams[s].name, plan.ports[q].name
                        ),
                    ))
                }
                _ => at[s] = Some(r.port),
            }
        }
    }
    let mut dirs = Vec::new();
    for &p in txp {
        let mut rx_ports: Vec<usize> = Vec::new();
        for (i, t) in plan.tx.iter().enumerate().filter(|(_, t)| t.port == p) {
            for &s in &t.streams {
                let Some(q) = at[s] else {
                    return Err(perr(
                        plan,
                        &format!("tx[{i}].streams"),
                        format!(
                            "sends `{}`, which no RX task lists: in a mesh every stream is \
                             counted at the port it is addressed to",
                            plan.streams[s].name
                        ),
                    ));
                };
                if !rx_ports.contains(&q) {
                    rx_ports.push(q);
                }
            }
        }
        rx_ports.sort_unstable();
        dirs.push(Direction {
            tx_port: p,
            rx_ports,
        });
    }
    Ok(dirs)
}

/// The labels of `dirs` (`t0 → t1`, a mesh's `t0 → t1, t2, t3`), by the
/// ports' names in `plan`.
pub fn direction_labels(plan: &Plan, dirs: &[Direction]) -> Vec<String> {
    let name = |i: &usize| plan.ports[*i].name.as_str();
    (dirs.iter())
        .map(|d| {
            let to: Vec<&str> = d.rx_ports.iter().map(name).collect();
            format!("{} → {}", name(&d.tx_port), to.join(", "))
        })
        .collect()
}

/// Every (sending port, receiving port) pair of `dirs`, in their order.
fn pairs(dirs: &[Direction]) -> Vec<(usize, usize)> {
    (dirs.iter())
        .flat_map(|d| d.rx_ports.iter().map(move |&q| (d.tx_port, q)))
        .collect()
}

/// The label of a pair (`t0 → t1`).
fn pair_label(plan: &Plan, (p, q): (usize, usize)) -> String {
    format!("{} → {}", plan.ports[p].name, plan.ports[q].name)
}

/// The streams (indices into the plan's) port `p` sends that port `q`
/// receives: those an RX task of `q` lists, or all of `p`'s when `q`'s
/// tasks take every stream.
fn pair_streams(plan: &Plan, (p, q): (usize, usize)) -> Vec<usize> {
    let takes = |s: usize| {
        (plan.rx.iter().filter(|r| r.port == q)).any(|r| match &r.streams {
            RxStreams::Auto => true,
            RxStreams::Listed(l) => l.contains(&s),
        })
    };
    let mut v: Vec<usize> = (plan.tx.iter().filter(|t| t.port == p))
        .flat_map(|t| t.streams.iter().copied())
        .filter(|&s| takes(s))
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The plan's streams, each destination MAC set cut to its first
/// `addresses` when an address search's trial asks.
fn trial_streams(plan: &Plan, addresses: Option<u64>) -> Vec<StreamSpec> {
    let mut v = plan.streams.clone();
    if let Some(n) = addresses {
        for s in &mut v {
            s.eth.dst = s.eth.dst.first_n(u128::from(n));
        }
    }
    v
}

/// The plan a certification opens its ports for: each port's largest
/// frame raised to the largest size the certification sends.
pub fn port_plan(plan: &Plan) -> Plan {
    let mut p = plan.clone();
    let s = &p.certify.settings;
    let max = s.sizes.iter().chain(&s.imix).copied().max().unwrap_or(0);
    for port in &mut p.ports {
        port.max_frame = port.max_frame.max(max);
    }
    p
}

/// How often a NIC clock's pair is read while the main lcore waits (in a
/// trial, its settle time, the learning wait, the restabilise wait):
/// the receivers' map of its RX timestamps onto the TSC stays fresh.
const CLOCK_TICK: Duration = Duration::from_millis(250);
/// Empty polls in a row after which a receive queue counts as drained.
const DRAIN_EMPTY: u32 = 3;
/// The most bursts read off one receive queue when draining it (a port
/// that never stops receiving is left after this).
const DRAIN_MAX_BURSTS: u32 = 10_000;
/// [`LEARNING_STALL_MS`] as a duration.
const LEARNING_STALL: Duration = Duration::from_millis(LEARNING_STALL_MS);

/// Run the certification of `plan` (already checked, with
/// [`port_plan`] applied): open the runtime and the ports once, run every
/// trial the searches ask for, close. `stop` is the signal flag: the
/// searches end after the current trial once it is set; a second signal
/// cuts the trial short. With `method` (a baseline's), the ports'
/// timestamp method must be it, checked before the first trial. The
/// certification is returned with what it has even when a trial failed
/// (its error is the second member).
pub fn certify(
    plan: &Plan,
    stop: &StopFlag,
    progress: &mut dyn FnMut(&Step),
    method: Option<&str>,
) -> Result<(Certification, Option<Error>)> {
    let (kind, dirs) = topology(plan)?;
    let rt = Runtime::open(plan)?;
    let ports = open_ports(&rt, plan)?;
    let (queues, starts) = start_ports(plan, &ports)?;
    let arrivals = arrivals(plan, &ports)?;
    let predicted = crate::certify::latency::method_of(arrivals.iter().map(|a| a.0.name()))
        .unwrap_or(crate::certify::latency::SOFTWARE_METHOD);
    if let Some(m) = method {
        if m != predicted {
            return Err(Error::Certify(format!(
                "the baseline was timestamped by {m}, this certification by {predicted} (as \
                 its receiving ports offer): calibrate again with this setup"
            )));
        }
    }
    let mut tester = PortTester {
        rt: &rt,
        base: plan,
        ports: &ports,
        starts,
        handles: Handles::new(queues),
        dirs,
        stop,
        learned: None,
        nic: Vec::new(),
        reset_run: None,
    };
    let s = &plan.certify.settings;
    let mut cert = search::blank(s, tester.directions(), tester.line_bps());
    cert.dpdk = dpdk::dpdk_version().to_string();
    cert.profile = plan.origin.clone();
    cert.topology = kind.to_string();
    crate::certify::tester::describe(plan, &mut cert);
    cert.ports = (plan.ports.iter().zip(&ports))
        .map(|(pp, pr)| {
            format!(
                "{} ({}, {})",
                pp.name,
                pr.port.info().name,
                pr.port.info().driver
            )
        })
        .collect();
    cert.host.ports = (plan.ports.iter().zip(&ports).zip(&tester.starts))
        .map(|((pp, pr), up)| {
            let (l, info) = (pr.port.link(), pr.port.info());
            let line = tasks::line_bps(up);
            HostPort {
                name: pp.name.clone(),
                device: info.name.clone(),
                driver: info.driver.clone(),
                link: HostPort::link_text(
                    l.up,
                    l.speed_mbps,
                    l.full_duplex,
                    line,
                    pp.link.is_some(),
                ),
            }
        })
        .collect();
    let failed = search::run(&mut tester, s, &mut cert, progress).err();
    drop(tester);
    cert.latency_method = latency_method(&cert, predicted, &arrivals);
    let leaked = close_ports(&rt, ports);
    if leaked > 0 {
        cert.problems.push(Problem::Other {
            detail: format!("{leaked} mbufs were not back in their pools after the ports closed"),
        });
    }
    Ok((cert, failed))
}

/// Each RX task's arrival source (as its port offers and it asks), and
/// why it is the software's when it asked for the NIC's (`auto` on a
/// port without RX timestamps).
fn arrivals(plan: &Plan, ports: &[PortRt]) -> Result<Vec<(Arrival, Option<String>)>> {
    (plan.rx.iter().enumerate())
        .map(|(i, r)| {
            let port = &ports[r.port].port;
            let caps = NicCaps {
                rx_timestamp: port.offers_rx_timestamp(),
                read_clock: port.reads_clock(),
                timesync: false,
            };
            let name = &plan.ports[r.port].name;
            let driver = &port.info().driver;
            let a = select(r.timestamps, caps, name, driver)
                .map_err(|m| perr(plan, &format!("rx[{i}].timestamps"), m))?;
            let note = (a == Arrival::Software && r.timestamps != Want::Software)
                .then(|| fallback_note(i, r.timestamps, name, driver, caps.rx_timestamp));
            Ok((a, note))
        })
        .collect()
}

/// Why RX task `i`, asking `want` of port `port` (driver `driver`), takes
/// the software's arrival times: the port does not timestamp received
/// frames (`stamps` false), or its clock cannot be read.
fn fallback_note(i: usize, want: Want, port: &str, driver: &str, stamps: bool) -> String {
    let why = if stamps {
        "timestamps received frames on a clock it does not let be read"
    } else {
        "does not timestamp received frames"
    };
    format!(
        "rx[{i}].timestamps is {}, and port {port} (driver {driver}) {why}: its arrival times \
         are the software's",
        want.name()
    )
}

/// The certification's `latency_method`: the method of its trials'
/// latency (`predicted`, from the ports, when none measured any), and
/// each receiver's fallback to software timestamps.
fn latency_method(
    c: &Certification,
    predicted: &str,
    arrivals: &[(Arrival, Option<String>)],
) -> String {
    let sources = search::every_trial(c).filter_map(|t| t.latency_source.as_deref());
    let method = crate::certify::latency::method_of(sources).unwrap_or(predicted);
    let notes: Vec<&str> = arrivals.iter().filter_map(|a| a.1.as_deref()).collect();
    if notes.is_empty() {
        method.to_string()
    } else {
        format!("{method} ({})", notes.join("; "))
    }
}

/// The [`Tester`] over the open ports.
struct PortTester<'a, 'q> {
    rt: &'a Runtime,
    base: &'a Plan,
    ports: &'q [PortRt<'q>],
    starts: Vec<PortStart>,
    handles: Handles<'q>,
    dirs: Vec<Direction>,
    stop: &'a StopFlag,
    /// What the learning before the next trial did.
    learned: Option<LearningRun>,
    /// The NIC clocks whose RX timestamps the receivers use, mapped onto
    /// the TSC, carried from trial to trial.
    nic: Vec<super::clock::NicSync>,
    /// The reset hook's run during the last trial (the reset test's).
    reset_run: Option<HookRun>,
}

impl<'a: 'q, 'q> Tester for PortTester<'a, 'q> {
    fn directions(&self) -> Vec<String> {
        direction_labels(self.base, &self.dirs)
    }

    fn line_bps(&self) -> u64 {
        tasks::line_bps(&self.starts[self.dirs[0].tx_port])
    }

    /// Learning frames (RFC 2544 section 23(b)): from each receiving port
    /// of the trial's directions (of every direction when learning once),
    /// for each stream it receives, [`LEARNING_FRAMES`] frames from the
    /// stream's destination address to its source, [`LEARNING_GAP_S`]
    /// apart, sent from this lcore on the port's TX queue 0; then the
    /// settings' learning wait; then every receive queue drained, so no
    /// frame of it counts in the trial. A signal cuts the waits short.
    fn learn(&mut self, spec: &TrialSpec) -> Result<()> {
        let start = Instant::now();
        let s = &self.base.certify.settings;
        let dirs: Vec<Direction> = match (s.learning, spec.direction) {
            (Learning::EveryTrial, Some(d)) => vec![self.dirs[d].clone()],
            _ => self.dirs.clone(),
        };
        // Each receiving port teaches the streams it receives of the
        // directions into it, once per address and VLAN.
        let mut into: Vec<(usize, Vec<usize>)> = Vec::new();
        for (p, q) in pairs(&dirs) {
            let streams = pair_streams(self.base, (p, q));
            match into.iter_mut().find(|(port, _)| *port == q) {
                Some((_, v)) => v.extend(streams),
                None => into.push((q, streams)),
            }
        }
        into.sort_by_key(|(q, _)| *q);
        // An address search's trial teaches the first of each set only.
        let streams = trial_streams(self.base, spec.addresses);
        let teach: Vec<(usize, Vec<LearnRepr>)> = (into.into_iter())
            .map(|(q, v)| {
                let streams = v.into_iter().map(|i| &streams[i]);
                (q, learn::for_streams(streams))
            })
            .collect();
        let mut run = LearningRun::default();
        for (port, frames) in &teach {
            let name = &self.base.ports[*port].name;
            for r in learn::address_runs(frames) {
                let vlan = r.vlan.map_or(String::new(), |v| format!(" in VLAN {v}"));
                let what = match r.count {
                    1 => r.first.to_string(),
                    n => format!("{}–{} ({n} addresses)", r.first, r.last),
                };
                run.addresses.push(format!("{what} from {name}{vlan}"));
            }
        }
        let stop = self.stop;
        // Paced (an address search's): each address taught once.
        let rounds = match spec.learning_fps {
            Some(_) => 1,
            None => LEARNING_FRAMES,
        };
        run.paced_fps = spec.learning_fps;
        let mut sending = 0.0;
        for round in 0..rounds {
            if round > 0 {
                let gap = Duration::from_secs_f64(LEARNING_GAP_S);
                self.wait(gap, &|| stop.stopped());
            }
            for (port, frames) in &teach {
                let mut q = self.handles.tx(*port, 0).ok_or_else(|| {
                    perr(
                        self.base,
                        &format!("ports[{port}]"),
                        "its TX queue 0, which sends the learning frames, is not free",
                    )
                })?;
                let (sent, refused, took) =
                    send_learning(&mut q, frames, spec.learning_fps, &|| stop.stopped());
                run.frames += sent;
                run.refused += refused;
                sending += took;
                self.handles.put_tx(*port, q);
            }
        }
        if run.paced_fps.is_some() && run.frames > 1 && sending > 0.0 {
            run.sent_fps = Some((run.frames - 1) as f64 / sending);
        }
        let wait = Duration::from_secs_f64(s.learning_wait_s.max(0.0));
        self.wait(wait, &|| stop.stopped());
        run.drained = self.drain();
        run.seconds = start.elapsed().as_secs_f64();
        self.learned = Some(run);
        Ok(())
    }

    fn rest(&mut self, seconds: f64) {
        let stop = self.stop;
        self.wait(Duration::from_secs_f64(seconds.max(0.0)), &|| {
            stop.stopped()
        });
    }

    fn hook(
        &mut self,
        hook: &str,
        command: &str,
        timeout_s: f64,
        env: &[(&str, String)],
    ) -> HookRun {
        let stop = self.stop;
        let limit = Duration::from_secs_f64(timeout_s.max(0.0));
        crate::hook::run_hook(hook, command, limit, env, &|| stop.hurried())
    }

    fn trial(&mut self, spec: &TrialSpec) -> Result<Trial> {
        let learning = self.learned.take();
        let r = self.run_trial(spec)?;
        let labels = self.directions();
        let label = match spec.direction {
            Some(d) => labels[d].clone(),
            None => AGGREGATE.to_string(),
        };
        let mean = self.base.certify.settings.mean_bytes(spec.frame_size);
        // Every sender offered the trial's % of its own line: what they
        // sent is measured against their lines together.
        let senders = match spec.direction {
            Some(_) => 1.0,
            None => (self.base.certify.settings).aggregate_shares(self.dirs.len()),
        };
        let line = self.line_bps() as f64 * senders;
        let mut t = to_trial(&r, spec, label, line, self.rt.tsc_hz, mean);
        let pairs = pairs(&self.dirs);
        let rx_ports = first_seen(self.base.rx.iter().map(|r| r.port));
        if spec.direction.is_none() && (pairs.len() > 1 || rx_ports.len() > 1) {
            if let Some(ids) = pair_stream_ids(self.base, &pairs) {
                let labels: Vec<String> = (pairs.iter())
                    .map(|&pq| pair_label(self.base, pq))
                    .collect();
                t.per_direction = per_direction(&r, &labels, &ids);
                t.foreign_at = self.foreign_at(&r, &rx_ports);
            }
        }
        t.learning = learning;
        if let Some(run) = self.reset_run.take() {
            if let Some(why) = run.failure() {
                let what = format!(
                    "the device-under-test hook certify.dut.reset `{}` {why} during the reset \
                     trial{}",
                    run.command,
                    run.output_tail()
                );
                let dut = self.base.certify.settings.dut.as_ref();
                if dut.is_some_and(|d| d.on_failure == OnFailure::Stop) {
                    return Err(Error::Certify(format!(
                        "{what}; certify.dut.on_failure is stop, so the certification ends here"
                    )));
                }
                t.problems.push(Problem::Other { detail: what });
            }
            t.hooks.push(run);
        }
        Ok(t)
    }

    fn destinations(&self) -> u64 {
        let sent = self.base.tx.iter().flat_map(|t| t.streams.iter());
        (sent
            .map(|&i| self.base.streams[i].eth.dst.cardinality())
            .min())
        .map_or(1, |n| u64::try_from(n).unwrap_or(u64::MAX))
    }

    fn rx_port(&self, direction: Option<usize>) -> String {
        let dirs = match direction {
            Some(d) => &self.dirs[d..=d],
            None => &self.dirs[..],
        };
        let ports = first_seen(dirs.iter().flat_map(|d| d.rx_ports.iter().copied()));
        let names: Vec<&str> = (ports.iter())
            .map(|&q| self.base.ports[q].name.as_str())
            .collect();
        names.join(", ")
    }

    fn stopped(&self) -> bool {
        self.stop.stopped()
    }
}

impl<'a: 'q, 'q> PortTester<'a, 'q> {
    /// Each port of `rx_ports`'s foreign frames in trial `r` (a
    /// monitoring port's, which checks no stream, among them), in the
    /// plan's port order.
    fn foreign_at(&self, r: &RunResult, rx_ports: &[usize]) -> Vec<PortFrames> {
        let mut ports = rx_ports.to_vec();
        ports.sort_unstable();
        let tasks = r.rx.as_ref().map(|x| x.tasks.as_slice()).unwrap_or(&[]);
        (ports.into_iter())
            .map(|q| {
                let id = self.ports[q].port.id();
                PortFrames {
                    port: self.base.ports[q].name.clone(),
                    frames: (tasks.iter().filter(|t| t.port == id))
                        .map(|t| t.foreign)
                        .sum(),
                }
            })
            .collect()
    }

    /// Waits `d`, or until `done` says so, reading the NIC clocks' pairs
    /// every [`CLOCK_TICK`] meanwhile.
    fn wait(&mut self, d: Duration, done: &dyn Fn() -> bool) {
        let nic = &mut self.nic;
        sleep_ticking(d, done, &mut || nic.iter_mut().for_each(|n| n.tick()));
    }

    /// Reads every receive queue until it is empty ([`DRAIN_EMPTY`] polls
    /// a millisecond apart find nothing) and frees what it held: the
    /// frames counted.
    fn drain(&mut self) -> u64 {
        let mut batch = RxBatch::new();
        let mut drained = 0u64;
        for q in self.handles.rx_free() {
            let (mut empty, mut bursts) = (0, 0);
            while empty < DRAIN_EMPTY && bursts < DRAIN_MAX_BURSTS {
                let n = batch.receive(q, BATCH_MAX);
                batch.clear();
                bursts += 1;
                drained += n as u64;
                if n == 0 {
                    empty += 1;
                    std::thread::sleep(Duration::from_millis(1));
                } else {
                    empty = 0;
                }
            }
        }
        drained
    }

    /// The plan of one trial: the sending direction's TX tasks only, at
    /// the trial's share of line (L1) and frame size, every receiver
    /// counting from sequence 0, no traces.
    fn trial_plan(&self, spec: &TrialSpec) -> Plan {
        let mut p = self.base.clone();
        let senders: Vec<usize> = match spec.direction {
            Some(d) => vec![self.dirs[d].tx_port],
            None => self.dirs.iter().map(|d| d.tx_port).collect(),
        };
        p.tx.retain(|t| senders.contains(&t.port));
        let per_port = |port: usize| p.tx.iter().filter(|t| t.port == port).count() as f64;
        // In an aggregate trial, each direction offers its share of the
        // load (`certify.direction_loads`).
        let settings = &self.base.certify.settings;
        let load = |port: usize| match spec.direction {
            Some(_) => 1.0,
            None => (self.dirs.iter().position(|d| d.tx_port == port))
                .map_or(1.0, |d| settings.share_of(d)),
        };
        let shares: Vec<f64> =
            p.tx.iter()
                .map(|t| per_port(t.port) / load(t.port))
                .collect();
        for (t, k) in p.tx.iter_mut().zip(shares) {
            let ppm = (spec.rate_pct / k * 10_000.0)
                .round()
                .clamp(1.0, 1_000_000.0);
            t.rate = RateSpec::PercentOfLine { ppm: ppm as u32 };
            t.layer = Layer::L1;
            t.trace = None;
            if let Some(step) = spec.step {
                t.pattern = Pattern::Step {
                    after_ns: (step.after_s * 1e9) as u64,
                    ppm: (step.to_pct / spec.rate_pct * 1e6).round().clamp(1.0, 1e9) as u32,
                };
            }
        }
        let streams: Vec<usize> = p.tx.iter().flat_map(|t| t.streams.clone()).collect();
        let imix = &self.base.certify.settings.imix;
        let size = if spec.frame_size == IMIX {
            SizeSpec::Cycle(imix.iter().map(|&z| z as usize).collect())
        } else {
            SizeSpec::Fixed(spec.frame_size as usize)
        };
        p.streams = trial_streams(self.base, spec.addresses);
        for s in streams {
            p.streams[s].size = size.clone();
        }
        for t in &mut p.tx {
            // Departures are the TSC's: sampled IEEE 1588 TX timestamps are
            // not taken in a certification.
            t.timestamps = Want::Software;
        }
        for r in &mut p.rx {
            // Arrivals as the profile asks: a NIC clock's map is kept
            // fresh while the main lcore waits ([`CLOCK_TICK`]).
            r.count_from = CountFrom::Zero;
        }
        p.run.duration = Duration::from_secs_f64(spec.duration_s.max(0.001));
        p
    }

    /// One bounded run on the open ports; its queue handles come back.
    fn run_trial(&mut self, spec: &TrialSpec) -> Result<RunResult> {
        let plan = self.trial_plan(spec);
        let starts: Vec<PortStart> = (self.ports.iter().zip(&self.starts))
            .map(|(p, u)| PortStart {
                link_bps: u.link_bps,
                line: u.line,
                before: p.port.stats(),
            })
            .collect();
        // No template pools: a pool cannot be freed while a PMD may still
        // hold its mbufs, and one per trial would pile up.
        let rt = self.rt;
        let on = Started {
            plan: &plan,
            rt,
            ports: self.ports,
            starts: &starts,
        };
        let nic = std::mem::take(&mut self.nic);
        let mut tasks = tasks::plan_tasks(&rt.eal, &on, &mut self.handles, None, nic)?;
        if let Some(n) = spec.burst {
            let k = tasks.tx.len() as u64;
            for (i, t) in tasks.tx.iter_mut().enumerate() {
                t.frame_limit = n / k + u64::from((i as u64) < n % k);
            }
        }
        let meta = TaskLayout::of(&plan, self.ports, &self.starts, &tasks);
        let (handles, stop) = (&mut self.handles, self.stop);
        let mut syncs = std::mem::take(&mut tasks.syncs);
        let (outcomes, timing, reset) = dpdk::scope(&self.rt.eal, |s| {
            drive(s, &on, spec, tasks, handles, stop, &mut syncs)
        })?;
        self.reset_run = reset;
        let watched = PortsWatched {
            stats: self.ports.iter().map(|p| p.port.stats()).collect(),
            problems: Vec::new(),
            errors: Vec::new(),
            control: Vec::new(),
        };
        let ended = Ended {
            layout: meta,
            outcomes,
            timing,
            watched,
        };
        let mut r = build_result(&on, ended)?;
        syncs.record(&mut r);
        self.nic = std::mem::take(&mut syncs.nic);
        Ok(r)
    }
}

/// Hands `frames` (learning frames) to TX queue `q`, one batch at a
/// time, waiting while the queue makes progress; with `pace`, frame `k`
/// no earlier than `k / pace` seconds after the first. Returns the
/// frames the driver took, those it did not (a stall of
/// [`LEARNING_STALL`], or a stop), and the seconds from the first frame
/// taken to the last.
fn send_learning(
    q: &mut TxQueue<'_>,
    frames: &[LearnRepr],
    pace: Option<f64>,
    stopped: &dyn Fn() -> bool,
) -> (u64, u64, f64) {
    let (mut sent, mut refused) = (0u64, 0u64);
    // A large address set fills the queue (and the pool) faster than the
    // port sends: each batch waits for room while the port makes
    // progress; after one stall the rest is refused without waiting.
    let mut stalled = false;
    let start = Instant::now();
    let mut last = start;
    let mut progress = start;
    let waited = |progress: &Instant| progress.elapsed() > LEARNING_STALL || stopped();
    let mut at = 0;
    while at < frames.len() {
        // Paced: the frames due by now (at least one, waited for).
        let due = match pace {
            Some(fps) => loop {
                let due = (start.elapsed().as_secs_f64() * fps) as usize + 1;
                if due > at || stopped() {
                    break due.max(at + 1);
                }
                std::hint::spin_loop();
            },
            None => frames.len(),
        };
        let chunk = &frames[at..due.min(frames.len()).min(at + BATCH_MAX)];
        at += chunk.len();
        let mut batch = TxBatch::new(q);
        while !stalled && !batch.fill(chunk.len()) {
            stalled = waited(&progress);
            std::hint::spin_loop();
        }
        if stalled {
            refused += chunk.len() as u64;
            continue;
        }
        for (i, f) in chunk.iter().enumerate() {
            f.emit(batch.frame_mut(i, f.wire_len()));
        }
        while !batch.is_empty() {
            let n = batch.transmit(q, batch.pending());
            if n > 0 {
                sent += n as u64;
                progress = Instant::now();
                last = progress;
            } else if waited(&progress) {
                stalled = true;
                break;
            }
        }
        refused += batch.pending() as u64;
    }
    (sent, refused, (last - start).as_secs_f64())
}

/// What a trial's workers give back: outcome, thread time and queues.
type TxBack<'q> = (
    (tx::TxOutcome, dpdk::TxQueue<'q>),
    Option<super::sched::CpuTime>,
);
type RxBack<'q> = (
    (rx::RxOutcome, Option<super::sched::CpuTime>),
    Vec<dpdk::RxQueue<'q>>,
);

/// Launch the receivers then the senders, wait out the trial (running the
/// reset hook when the trial asks for it), stop the senders, wait the
/// settle time, stop the receivers; every queue handle goes back to
/// `handles`. Returns the reset hook's run with the outcomes.
fn drive<'scope, 'q: 'scope>(
    s: &'scope Scope<'scope, '_>,
    on: &Started,
    spec: &TrialSpec,
    tasks: Tasks<'q>,
    handles: &mut Handles<'q>,
    stop: &StopFlag,
    syncs: &mut clock::Syncs,
) -> Result<(Outcomes, Timing, Option<HookRun>)> {
    let (eal, plan) = (&on.rt.eal, on.plan);
    let mut tick = || syncs.nic.iter_mut().for_each(|n| n.tick());
    let _stop_all = StopAll(Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let (stop_tx, stop_rx) = (Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let live: Vec<Arc<Padded<TxLive>>> = tasks.tx.iter().map(|t| Arc::clone(&t.live)).collect();
    let started = Instant::now();
    let t0 = clock::sample();
    let rxw = launch_each(
        s,
        eal,
        plan,
        "rx",
        tasks.rx,
        |t| t.lcore,
        |mut t| -> RxBack<'q> {
            let out = timed(|| rx::run_borrowed(&mut t));
            (out, t.queues)
        },
    )?;
    let txw = launch_each(
        s,
        eal,
        plan,
        "tx",
        tasks.tx,
        |t| t.lcore,
        |t| -> TxBack<'q> { timed(|| tx::run_keeping_queue(t)) },
    )?;
    let reset = wait_or_reset(plan, spec, &live, stop, started, &mut tick);
    stop_tx.stop();
    let (tx_out, tx_cpu) = join_senders(txw, handles, on.ports);
    let elapsed_s = started.elapsed().as_secs_f64();
    let end = clock::sample();
    let settle = Duration::from_secs_f64(spec.settle_s);
    sleep_ticking(settle, &|| stop.hurried(), &mut tick);
    stop_rx.stop();
    let (rx_out, rx_cpu) = join_receivers(rxw, handles, on.ports);
    let outcomes = Outcomes {
        tx: tx_out,
        rx: rx_out,
        tx_cpu,
        rx_cpu,
    };
    let timing = Timing {
        intervals: Vec::new(),
        open: (Snapshot::default(), 0.0),
        tsc_hz_run: clock::hz_between(t0, end),
        elapsed_s,
        peer_left: None,
        syncs: clock::Syncs::default(),
        started_unix_ns: 0,
        started_tsc: 0,
    };
    Ok((outcomes, timing, reset))
}

/// The index in `ports` of the port of DPDK id `pid` (0 if none is).
fn port_index(ports: &[PortRt], pid: u16) -> usize {
    (ports.iter()).position(|p| p.port.id() == pid).unwrap_or(0)
}

/// Waits for a trial's senders; their outcomes and thread times, each
/// queue handle back in `handles`.
fn join_senders<'q>(
    txw: Vec<dpdk::Worker<'_, TxBack<'q>>>,
    handles: &mut Handles<'q>,
    ports: &[PortRt],
) -> (Vec<tx::TxOutcome>, Vec<Option<super::sched::CpuTime>>) {
    let (mut out, mut cpus) = (Vec::new(), Vec::new());
    for w in txw {
        let ((o, q), cpu) = w.join();
        handles.put_tx(port_index(ports, q.port_id()), q);
        out.push(o);
        cpus.push(cpu);
    }
    (out, cpus)
}

/// Waits for a trial's receivers; their outcomes and thread times, each
/// queue handle back in `handles`.
fn join_receivers<'q>(
    rxw: Vec<dpdk::Worker<'_, RxBack<'q>>>,
    handles: &mut Handles<'q>,
    ports: &[PortRt],
) -> (Vec<rx::RxOutcome>, Vec<Option<super::sched::CpuTime>>) {
    let (mut out, mut cpus) = (Vec::new(), Vec::new());
    for w in rxw {
        let ((o, cpu), qs) = w.join();
        for q in qs {
            handles.put_rx(port_index(ports, q.port_id()), q);
        }
        out.push(o);
        cpus.push(cpu);
    }
    (out, cpus)
}

/// Waits out a trial that started at `started`; for the reset test (RFC
/// 2544 section 26.6) runs the device's reset hook at the trial's reset
/// time while the frames flow, and returns its run.
fn wait_or_reset(
    plan: &Plan,
    spec: &TrialSpec,
    live: &[Arc<Padded<TxLive>>],
    stop: &StopFlag,
    started: Instant,
    tick: &mut dyn FnMut(),
) -> Option<HookRun> {
    let dut = plan.certify.settings.dut.as_ref();
    let hook = dut.and_then(|d| d.reset.as_deref().zip(Some(d.timeout_s)));
    let (Some(at), Some((command, limit)), None) = (spec.reset_at_s, hook, spec.burst) else {
        wait_trial(spec, live, stop, tick);
        return None;
    };
    let at = Duration::from_secs_f64(at.clamp(0.0, spec.duration_s));
    sleep_ticking(at, &|| stop.hurried(), tick);
    let env = [("LANDSPEED_HOOK", "reset".to_string())];
    let limit = Duration::from_secs_f64(limit.max(0.0));
    let run = crate::hook::run_hook("reset", command, limit, &env, &|| stop.hurried());
    let rest = Duration::from_secs_f64(spec.duration_s.max(0.0)).saturating_sub(started.elapsed());
    sleep_ticking(rest, &|| stop.hurried(), tick);
    Some(run)
}

/// Wait out a trial: its duration, or (a burst) until the senders have
/// sent the burst, within four times its duration and a second. A second
/// signal (`hurried`) cuts it short. `tick` runs every [`CLOCK_TICK`].
fn wait_trial(
    spec: &TrialSpec,
    live: &[Arc<Padded<TxLive>>],
    stop: &StopFlag,
    tick: &mut dyn FnMut(),
) {
    let start = Instant::now();
    let dur = Duration::from_secs_f64(spec.duration_s.max(0.0));
    match spec.burst {
        None => sleep_ticking(dur, &|| stop.hurried(), tick),
        Some(n) => {
            let limit = dur * 4 + Duration::from_secs(1);
            let mut next = CLOCK_TICK;
            while live.iter().map(|l| l.frames.get()).sum::<u64>() < n
                && start.elapsed() < limit
                && !stop.hurried()
            {
                if start.elapsed() >= next {
                    tick();
                    next += CLOCK_TICK;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// Sleep `d`, waking early once `done` says so (looked at every
/// [`REPORT_POLL`] at most), running `tick` every [`CLOCK_TICK`].
fn sleep_ticking(d: Duration, done: &dyn Fn() -> bool, tick: &mut dyn FnMut()) {
    let start = Instant::now();
    let end = start + d;
    let mut next = start + CLOCK_TICK;
    while !done() {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if now >= next {
            tick();
            next += CLOCK_TICK;
        }
        std::thread::sleep(
            REPORT_POLL
                .min(end - now)
                .min(next.saturating_duration_since(now)),
        );
    }
}

/// A trial's figures from its run: loss from the frames sent less the
/// distinct frames received (so a tail lost after the last frame counts),
/// the senders' shortfall, a descheduled lcore or a loss the senders'
/// catch-up bursts may explain ([`bunched`]) as `tester_bound`.
/// `line_bps` is the senders' lines together, L1 bit/s.
fn to_trial(
    r: &RunResult,
    spec: &TrialSpec,
    direction: String,
    line_bps: f64,
    hz: u64,
    mean_bytes: f64,
) -> Trial {
    let (tx_frames, span_s, missed) = match &r.tx {
        Some(t) => (
            t.frames,
            t.tasks.iter().map(|k| k.span_s).fold(0.0, f64::max),
            t.target_met == Some(false),
        ),
        None => (0, 0.0, false),
    };
    let rx = r.rx.clone().unwrap_or_default();
    let received = (rx.good + rx.corrupt).saturating_sub(rx.duplicated);
    let lost = tx_frames.saturating_sub(received);
    let wire_bits = (mean_bytes + L1_OVERHEAD as f64) * 8.0;
    let sent_pct = if span_s > 0.0 && line_bps > 0.0 {
        tx_frames as f64 * wire_bits / span_s / line_bps * 100.0
    } else {
        0.0
    };
    let doubt = r.outcome.problems.iter().any(|p| {
        matches!(
            p,
            Problem::TargetMissed { .. } | Problem::Descheduled { .. }
        )
    });
    let short_burst = spec.burst.is_some_and(|n| tx_frames < n);
    let streams: Vec<&crate::result::StreamResult> = rx.streams.iter().collect();
    let latency = merged_latency(&streams);
    let mut problems = r.outcome.problems.clone();
    let late = sender_lateness(r, latency.as_ref());
    let bunched = bunched(lost, late.max_ns, late.frames, late.queue_ns);
    problems.extend(bunched.clone());
    let early: u64 = streams.iter().map(|s| s.latency_early).sum();
    if early > 0 {
        problems.push(Problem::LatencyEarly { frames: early });
    }
    Trial {
        direction,
        frame_size: spec.frame_size,
        offered_pct: spec.rate_pct,
        sent_pct,
        tx_frames,
        rx_frames: rx.good.saturating_sub(rx.duplicated),
        lost,
        loss_pct: if tx_frames == 0 {
            0.0
        } else {
            lost as f64 * 100.0 / tx_frames as f64
        },
        reordered: rx.reordered,
        duplicated: rx.duplicated,
        corrupt: rx.corrupt,
        foreign: rx.foreign,
        latency,
        duration_s: span_s,
        tester_bound: missed || doubt || short_burst || bunched.is_some(),
        passed: false,
        problems,
        per_direction: Vec::new(),
        foreign_at: Vec::new(),
        late_max_ns: late.max_ns,
        late_p999_ns: late.p999_ns,
        latency_hist: merged_histogram(&streams),
        excluded: None,
        latency_source: latency_source(&streams),
        hooks: Vec::new(),
        recovery_ns: spec
            .step
            .and_then(|s| (lost > 0).then(|| recovery_ns(r, s.after_s, hz)).flatten()),
        gap_max_ns: (streams.iter())
            .map(|s| s.interarrival.max_ns)
            .filter(|&g| g > 0.0)
            .reduce(f64::max),
        learning: None,
        addresses: spec.addresses,
    }
}

/// From a step `after_s` into the senders' schedule to the departure of
/// the first frame through after the last loss, ns (0 when the loss
/// ended before the step); `None` when no receiver kept that departure
/// (no loss seen in sequence, or stamps not on this TSC). Over several
/// senders and streams: from the earliest step to the latest end of a
/// loss (the longest recovery).
fn recovery_ns(r: &RunResult, after_s: f64, hz: u64) -> Option<f64> {
    let tasks = r.tx.as_ref().map(|t| t.tasks.as_slice()).unwrap_or(&[]);
    let start = tasks
        .iter()
        .map(|t| t.first_due_tsc)
        .filter(|&t| t > 0)
        .min()?;
    let step = start + (after_s * hz as f64) as u64;
    let rx = r.rx.as_ref()?;
    let resumed = rx
        .streams
        .iter()
        .map(|s| s.resumed_tx_tsc)
        .max()
        .filter(|&t| t > 0)?;
    Some(resumed.saturating_sub(step) as f64 * 1e9 / hz.max(1) as f64)
}

/// Every latency of the streams' frames in one histogram, ns; `None`
/// when no stream measured latency.
fn merged_histogram(
    streams: &[&crate::result::StreamResult],
) -> Option<hdrhistogram::Histogram<u64>> {
    let mut v = streams.iter().filter_map(|s| s.latency_ns.as_ref());
    let mut all = v.next()?.clone();
    for h in v {
        crate::report::merge_ns(&mut all, h);
    }
    Some(all)
}

/// Where the streams' latency arrival times came from: one source when
/// they agree, `nic_rx+software` when they differ; `None` without
/// latency.
fn latency_source(streams: &[&crate::result::StreamResult]) -> Option<String> {
    let mut v = streams.iter().filter_map(|s| s.latency_source.clone());
    let first = v.next()?;
    Some(if v.all(|s| s == first) {
        first
    } else {
        "nic_rx+software".into()
    })
}

/// How late a trial's senders were, for [`bunched`].
struct Lateness {
    /// The largest schedule error of any TX task, ns.
    max_ns: u64,
    /// The largest 99.9th percentile of a TX task's schedule error, ns.
    p999_ns: u64,
    /// Frames sent more than `queue_ns` late, all TX tasks together.
    frames: u64,
    /// The device's largest queueing delay seen: the one-way latency's
    /// max less its min, at least [`QUEUE_FLOOR_NS`] (that when latency
    /// was not measured), ns.
    queue_ns: u64,
}

/// The senders' lateness in run `r`, against the queueing delay seen in
/// `latency`. Tasks that keep no schedule (`max`, `gap`) count as never
/// late.
fn sender_lateness(r: &RunResult, latency: Option<&Percentiles>) -> Lateness {
    let queue_ns = latency.map_or(0.0, |l| (l.max_ns - l.min_ns).max(0.0)) as u64;
    let queue_ns = queue_ns.max(QUEUE_FLOOR_NS);
    let tasks = r.tx.as_ref().map(|t| t.tasks.as_slice()).unwrap_or(&[]);
    let kept = || tasks.iter().filter(|t| t.schedule_kept);
    Lateness {
        max_ns: kept().map(|t| t.pace.error_ns.max).max().unwrap_or(0),
        p999_ns: kept().map(|t| t.pace.error_ns.p999).max().unwrap_or(0),
        frames: kept()
            .map(|t| frames_later_than(&t.pace.error_histogram, queue_ns))
            .sum(),
        queue_ns,
    }
}

/// The stream ids of each pair ([`pair_streams`]), in the order of
/// `pairs`; `None` when two pairs share a stream (their frames cannot be
/// told apart).
fn pair_stream_ids(plan: &Plan, pairs: &[(usize, usize)]) -> Option<Vec<Vec<u32>>> {
    let ids: Vec<Vec<u32>> = (pairs.iter())
        .map(|&pq| {
            let mut v: Vec<u32> = (pair_streams(plan, pq).into_iter())
                .map(|s| plan.streams[s].id)
                .collect();
            v.sort_unstable();
            v
        })
        .collect();
    let shared = (ids.iter().enumerate())
        .any(|(i, a)| ids[i + 1..].iter().any(|b| a.iter().any(|x| b.contains(x))));
    (!shared).then_some(ids)
}

/// Each pair's share of an aggregate trial `r`: its streams' frames
/// sent, and their frames received as `to_trial` counts the whole.
fn per_direction(r: &RunResult, labels: &[String], ids: &[Vec<u32>]) -> Vec<DirectionFigures> {
    let rx = r.rx.clone().unwrap_or_default();
    let tx_streams = r.tx.as_ref().map(|t| t.streams.as_slice()).unwrap_or(&[]);
    (labels.iter().zip(ids))
        .map(|(label, ids)| {
            let tx_frames: u64 = (tx_streams.iter())
                .filter(|s| ids.contains(&s.id))
                .map(|s| s.frames)
                .sum();
            let mine: Vec<&crate::result::StreamResult> =
                rx.streams.iter().filter(|s| ids.contains(&s.id)).collect();
            let sum = |f: fn(&crate::result::StreamResult) -> u64| mine.iter().map(|s| f(s)).sum();
            let corrupt: u64 = sum(|s| s.corrupt_total);
            let good: u64 = sum(|s| s.frames - s.corrupt_total);
            let duplicated: u64 = sum(|s| s.seq.duplicated);
            let lost = tx_frames.saturating_sub((good + corrupt).saturating_sub(duplicated));
            DirectionFigures {
                direction: label.clone(),
                tx_frames,
                rx_frames: good.saturating_sub(duplicated),
                lost,
                loss_pct: if tx_frames == 0 {
                    0.0
                } else {
                    lost as f64 * 100.0 / tx_frames as f64
                },
                reordered: sum(|s| s.seq.reordered),
                duplicated,
                corrupt,
                latency: merged_latency(&mine),
            }
        })
        .collect()
}

/// One latency figure for the streams: a stream's, or over several
/// streams their frame-weighted means (min of the minima, max of the
/// maxima).
fn merged_latency(streams: &[&crate::result::StreamResult]) -> Option<Percentiles> {
    let v: Vec<&Percentiles> = streams.iter().filter_map(|s| s.latency.as_ref()).collect();
    match v.as_slice() {
        [] => None,
        [one] => Some(**one),
        many => {
            let n: u64 = many.iter().map(|p| p.count).sum();
            let w = |f: fn(&Percentiles) -> f64| {
                many.iter().map(|p| f(p) * p.count as f64).sum::<f64>() / n.max(1) as f64
            };
            Some(Percentiles {
                count: n,
                min_ns: many.iter().map(|p| p.min_ns).fold(f64::INFINITY, f64::min),
                mean_ns: w(|p| p.mean_ns),
                p50_ns: w(|p| p.p50_ns),
                p99_ns: w(|p| p.p99_ns),
                p999_ns: w(|p| p.p999_ns),
                max_ns: many.iter().map(|p| p.max_ns).fold(0.0, f64::max),
                stddev_ns: w(|p| p.stddev_ns),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::latency::{NIC_RX_METHOD, SOFTWARE_METHOD};

    /// A ring mesh of `n` ports, stream `sIJ` from port `tI` to `tJ` for
    /// each pair of `pairs`, a TX task per stream on the queue toward its
    /// port, an RX task per port listing what it receives (or `rx` as
    /// given).
    fn mesh(n: usize, pairs: &[(usize, usize)], rx: Option<&str>) -> String {
        let cores: Vec<String> = (0..=pairs.len() + n).map(|c| c.to_string()).collect();
        let mut y = format!(
            "eal:\n  cores: [{}]\n  ring_mesh: {n}\nports:\n",
            cores.join(", ")
        );
        for i in 0..n {
            let rq = if pairs.iter().any(|p| p.1 == i) {
                n - 1
            } else {
                1
            };
            y += &format!(
                "  - {{ name: t{i}, device: net_ring_mesh{i}, tx_queues: {q}, rx_queues: {rq} }}\n",
                q = n - 1
            );
        }
        y += "streams:\n";
        for (i, j) in pairs {
            y += &format!(
                "  - {{ name: s{i}{j}, ipv4: {{ src: 198.18.{i}.1, dst: 198.18.{j}.1 }}, udp: \
                 {{ src: 49152, dst: 7 }} }}\n"
            );
        }
        y += "tx:\n";
        for (l, (i, j)) in pairs.iter().enumerate() {
            let q = crate::dpdk::peer_queue(*i, *j);
            y += &format!(
                "  - {{ lcore: {}, port: t{i}, queue: {q}, streams: [s{i}{j}], rate: line }}\n",
                l + 1
            );
        }
        y += "rx:\n";
        match rx {
            Some(r) => y += r,
            None => {
                for j in 0..n {
                    let s: Vec<String> = (pairs.iter().filter(|p| p.1 == j))
                        .map(|(i, j)| format!("s{i}{j}"))
                        .collect();
                    if s.is_empty() {
                        continue;
                    }
                    y += &format!(
                        "  - {{ lcore: {}, port: t{j}, queues: [{}], streams: [{}] }}\n",
                        pairs.len() + 1 + j,
                        (0..n - 1)
                            .map(|q| q.to_string())
                            .collect::<Vec<_>>()
                            .join(", "),
                        s.join(", ")
                    );
                }
            }
        }
        y
    }

    fn full(n: usize) -> Vec<(usize, usize)> {
        (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .collect()
    }

    /// Two null ports, a stream each way, and the TX and RX tasks given
    /// as `(port, stream)` pairs.
    fn two_ports(tx: &[(u8, u8)], rx: &[(u8, Option<u8>)], extra: &str) -> Plan {
        let q = |p: u8| rx.iter().filter(|r| r.0 == p).count().max(1);
        let mut y = format!(
            "eal:\n  cores: [0, 1, 2, 3, 4, 5]\n  vdevs: [net_null0, net_null1]\nports:\n  \
             - {{ name: p0, device: net_null0, rx_queues: {} }}\n  \
             - {{ name: p1, device: net_null1, rx_queues: {} }}\n",
            q(0),
            q(1)
        );
        y += "streams:\n  - { name: s0, ipv4: { src: 198.18.0.1, dst: 198.18.1.1 }, udp: { src: 1, dst: 7 } }\n  \
                     - { name: s1, ipv4: { src: 198.18.1.1, dst: 198.18.0.1 }, udp: { src: 1, dst: 7 } }\ntx:\n";
        let mut l = 1;
        for (p, st) in tx {
            y += &format!("  - {{ lcore: {l}, port: p{p}, streams: [s{st}], rate: 1G }}\n");
            l += 1;
        }
        if !rx.is_empty() {
            y += "rx:\n";
        }
        for (k, (p, st)) in rx.iter().enumerate() {
            let list = st.map_or(String::new(), |s| format!(", streams: [s{s}]"));
            let queue = rx[..k].iter().filter(|r| r.0 == *p).count();
            y += &format!("  - {{ lcore: {l}, port: p{p}, queues: [{queue}]{list} }}\n");
            l += 1;
        }
        crate::config::load_str(&(y + extra), "t.yaml").unwrap()
    }

    fn kind(plan: &Plan) -> (&'static str, Vec<String>) {
        let (k, dirs) = topology(plan).unwrap();
        (k, direction_labels(plan, &dirs))
    }

    #[test]
    fn the_tasks_make_the_topology() {
        assert_eq!(
            kind(&two_ports(&[(0, 0)], &[(0, None)], "")),
            ("loopback", vec!["p0 → p0".to_string()])
        );
        assert_eq!(
            kind(&two_ports(&[(0, 0)], &[(1, None)], "")),
            ("one_way", vec!["p0 → p1".to_string()])
        );
        let both = vec!["p0 → p1".to_string(), "p1 → p0".to_string()];
        let rx = [(1, None), (0, None)];
        assert_eq!(
            kind(&two_ports(&[(0, 0), (1, 1)], &rx, "")),
            ("bidirectional", both.clone())
        );
        let rx = [(0, None), (1, None)];
        assert_eq!(
            kind(&two_ports(&[(0, 0), (1, 1)], &rx, "")),
            ("bidirectional", both.clone())
        );
        // Two senders into one port that lists its streams: a mesh.
        let rx = [(1, Some(0)), (1, Some(1))];
        assert_eq!(
            kind(&two_ports(&[(0, 0), (1, 1)], &rx, "")),
            (MESH, vec!["p0 → p1".to_string(), "p1 → p1".to_string()])
        );
        // The same stream listed by two RX tasks of one port (its queues
        // split between lcores) is still counted at that one port.
        let rx = [(1, Some(0)), (1, Some(0))];
        let plan = two_ports(&[(0, 0)], &rx, "");
        assert_eq!(kind(&plan).0, "one_way");
        let (_, dirs) = mesh_directions(&plan, &[0]).map(|d| ("", d)).unwrap();
        assert_eq!(pairs(&dirs), [(0, 1)]);
        // No receiver: nothing to certify.
        let e = topology(&two_ports(&[(0, 0)], &[], ""))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tx: a certification needs TX tasks on one port"),
            "{e}"
        );
        // Loads: one per sending port, and only with two or more.
        let loads = "certify:\n  direction_loads: [100%, 40%]\n";
        let rx = [(1, None), (0, None)];
        let plan = two_ports(&[(0, 0), (1, 1)], &rx, loads);
        assert_eq!(topology(&plan).unwrap().1.len(), 2);
        let plan = two_ports(&[(0, 0)], &[(1, None)], loads);
        let e = topology(&plan).unwrap_err().to_string();
        assert!(
            e.contains("2 load(s) for a one_way topology of 1 sending port(s)"),
            "{e}"
        );
        let one = "certify:\n  direction_loads: [100%]\n";
        let e = topology(&two_ports(&[(0, 0)], &[(1, None)], one)).unwrap_err();
        assert!(e.to_string().contains("1 load(s) for a one_way"), "{e}");
    }

    #[test]
    fn a_full_mesh_has_a_direction_per_sender_and_every_pair() {
        let plan = crate::config::load_str(&mesh(4, &full(4), None), "m.yaml").unwrap();
        let (kind, dirs) = topology(&plan).unwrap();
        assert_eq!(kind, MESH);
        assert_eq!(
            direction_labels(&plan, &dirs),
            [
                "t0 → t1, t2, t3",
                "t1 → t0, t2, t3",
                "t2 → t0, t1, t3",
                "t3 → t0, t1, t2"
            ]
        );
        let p = pairs(&dirs);
        assert_eq!(p.len(), 12);
        assert_eq!(p[..4], [(0, 1), (0, 2), (0, 3), (1, 0)]);
        assert_eq!(pair_label(&plan, p[3]), "t1 → t0");
        let ids = pair_stream_ids(&plan, &p).unwrap();
        // Stream `sIJ` is the (I, J) pair's only stream; ids count from 1.
        for (k, (i, j)) in p.iter().enumerate() {
            let s = (plan.streams.iter()).position(|s| s.name == format!("s{i}{j}"));
            assert_eq!(ids[k], [plan.streams[s.unwrap()].id], "{i} → {j}");
            assert_eq!(pair_streams(&plan, (*i, *j)), [s.unwrap()]);
        }
        assert!(pair_streams(&plan, (0, 0)).is_empty());
    }

    #[test]
    fn a_partial_mesh_names_only_the_ports_each_sender_reaches() {
        // Many-to-one and one-to-many: t1 and t2 into t0, t0 out to t3.
        let plan = crate::config::load_str(&mesh(4, &[(1, 0), (2, 0), (0, 3)], None), "m.yaml");
        let plan = plan.unwrap();
        let (kind, dirs) = topology(&plan).unwrap();
        assert_eq!(kind, MESH);
        assert_eq!(
            direction_labels(&plan, &dirs),
            ["t1 → t0", "t2 → t0", "t0 → t3"]
        );
        assert_eq!(pairs(&dirs), [(1, 0), (2, 0), (0, 3)]);
    }

    #[test]
    fn an_address_search_needs_a_monitoring_port_of_a_mesh() {
        let tests = "certify:\n  tests: [address_caching]\n  dut: { flush: \"true\" }\n";
        // t0 to t1, and t2 listening to no stream: the monitoring port.
        let rx = "  - { lcore: 2, port: t1, queues: [0, 1], streams: [s01] }\n  \
                  - { lcore: 3, port: t2, queues: [0], streams: none }\n";
        let yaml = mesh(3, &[(0, 1)], Some(rx)) + tests;
        let plan = crate::config::load_str(&yaml, "m.yaml").unwrap();
        let (kind, dirs) = topology(&plan).unwrap();
        assert_eq!(
            (kind, dirs.len(), dirs[0].rx_ports.as_slice()),
            (MESH, 1, &[1][..])
        );
        assert_eq!(plan.rx[1].streams, RxStreams::Listed(Vec::new()));
        // Without it: refused, naming what to add.
        let rx = "  - { lcore: 2, port: t1, queues: [0, 1], streams: [s01] }\n";
        let yaml = mesh(3, &[(0, 1)], Some(rx)) + tests;
        let plan = crate::config::load_str(&yaml, "m.yaml").unwrap();
        let e = topology(&plan).unwrap_err().to_string();
        assert!(
            e.contains("m.yaml:")
                && e.contains("rx: the address_caching test (RFC 2889) needs a monitoring port"),
            "{e}"
        );
        // A one-way pair is no mesh, whatever listens.
        let yaml = mesh(2, &[(0, 1)], None) + tests;
        let plan = crate::config::load_str(&yaml, "m.yaml").unwrap();
        assert!(topology(&plan)
            .unwrap_err()
            .to_string()
            .contains("needs a monitoring port"));
        // Other tests need none.
        let yaml = mesh(2, &[(0, 1)], None);
        assert_eq!(
            topology(&crate::config::load_str(&yaml, "m.yaml").unwrap())
                .unwrap()
                .0,
            "one_way"
        );
    }

    #[test]
    fn a_mesh_refuses_what_it_cannot_count_per_port() {
        let refused = |yaml: &str, words: &[&str]| {
            let plan = crate::config::load_str(yaml, "m.yaml").unwrap();
            let e = topology(&plan).unwrap_err().to_string();
            for w in words {
                assert!(e.contains(w), "{w:?} not in {e}");
            }
        };
        // A receiver that takes every stream cannot say which port a
        // frame was addressed to.
        let rx = "  - { lcore: 4, port: t1, queues: [0, 1] }\n  \
                  - { lcore: 5, port: t2, queues: [0, 1], streams: [s02] }\n";
        refused(
            &mesh(3, &[(0, 1), (0, 2)], Some(rx)),
            &[
                "m.yaml:",
                "rx[0].streams: is not listed",
                "a mesh whose RX tasks",
            ],
        );
        // A stream counted at two ports.
        let rx = "  - { lcore: 4, port: t1, queues: [0, 1], streams: [s01] }\n  \
                  - { lcore: 5, port: t2, queues: [0, 1], streams: [s02, s01] }\n";
        refused(
            &mesh(3, &[(0, 1), (0, 2)], Some(rx)),
            &["rx[1].streams", "lists `s01`, which port t1 receives too"],
        );
        // A stream nobody counts.
        let rx = "  - { lcore: 4, port: t1, queues: [0, 1], streams: [s01] }\n  \
                  - { lcore: 5, port: t2, queues: [0, 1], streams: [s01] }\n";
        refused(
            &mesh(3, &[(0, 1), (0, 2)], Some(rx)),
            &["lists `s01`, which port t1 receives too"],
        );
        let rx = "  - { lcore: 4, port: t1, queues: [0, 1], streams: [s01] }\n  \
                  - { lcore: 5, port: t2, queues: [0, 1], streams: [s21] }\n";
        let y = mesh(3, &[(0, 1), (0, 2), (2, 1)], Some(rx));
        refused(
            &y,
            &["tx[1].streams", "sends `s02`, which no RX task lists"],
        );
        // One load per sending port.
        let y = mesh(3, &full(3), None) + "certify:\n  direction_loads: [50%, 50%]\n";
        refused(
            &y,
            &[
                "certify.direction_loads",
                "2 load(s) for a mesh topology of 3 sending port(s)",
            ],
        );
        let y = mesh(3, &full(3), None) + "certify:\n  direction_loads: [50%, 50%, 100%]\n";
        let plan = crate::config::load_str(&y, "m.yaml").unwrap();
        assert_eq!(topology(&plan).unwrap().1.len(), 3);
    }

    #[test]
    fn a_receiver_that_falls_back_to_software_says_why() {
        assert_eq!(
            fallback_note(0, Want::Auto, "p0", "net_ring", false),
            "rx[0].timestamps is auto, and port p0 (driver net_ring) does not timestamp \
             received frames: its arrival times are the software's"
        );
        assert!(fallback_note(1, Want::Auto, "p1", "net_x", true)
            .contains("timestamps received frames on a clock it does not let be read"));
        let mut c = search::blank(&Default::default(), vec!["p0 → p0".into()], 1);
        let none = [(Arrival::Software, None)];
        assert_eq!(latency_method(&c, SOFTWARE_METHOD, &none), SOFTWARE_METHOD);
        let note = [(
            Arrival::Software,
            Some("rx[0].timestamps is auto, ...".to_string()),
        )];
        assert_eq!(
            latency_method(&c, SOFTWARE_METHOD, &note),
            format!("{SOFTWARE_METHOD} (rx[0].timestamps is auto, ...)")
        );
        // The trials' sources decide over the ports' prediction.
        c.throughput.push(crate::certify::model::ThroughputRow {
            direction: "p0 → p0".into(),
            frame_size: 64,
            rate_pct: 1.0,
            l1_bps: 0.0,
            l2_bps: 0.0,
            fps: 0.0,
            bound: crate::certify::model::Bound::Device,
            trial_count: 1,
            trials: vec![Trial {
                latency_source: Some("nic_rx".into()),
                ..Trial::default()
            }],
            complete: true,
        });
        assert_eq!(latency_method(&c, SOFTWARE_METHOD, &none), NIC_RX_METHOD);
    }
}
