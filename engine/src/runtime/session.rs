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
    build_result, clock, close_ports, open_ports, perr, start_ports, timed, Meta, Outcomes, PortRt,
    Runtime, Seen, Snapshot, StopAll, Timing, Up, REPORT_POLL,
};
use crate::certify::model::{
    bunched, frames_later_than, Certification, DirectionFigures, HostPort, Tester, Trial,
    TrialSpec, IMIX, QUEUE_FLOOR_NS,
};
use crate::certify::search::{self, Step, AGGREGATE};
use crate::config::{CountFrom, Plan};
use crate::counter::{Padded, StopFlag, TxLive};
use crate::dpdk::{self, Eal, Scope};
use crate::outcome::Problem;
use crate::pace::pattern::Pattern;
use crate::pace::rate::{Layer, RateSpec};
use crate::report::Percentiles;
use crate::result::RunResult;
use crate::wire::spec::{SizeSpec, L1_OVERHEAD};
use crate::{rx, tx, Error, Result};

/// One measured direction: the port that sends and the one that receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Direction {
    /// Index of the sending port in the plan.
    pub tx_port: usize,
    /// Index of the receiving port.
    pub rx_port: usize,
}

/// The topology of a profile: its kind (`one_way`, `loopback`,
/// `bidirectional`) and its directions, or an error naming what does not
/// fit. Checked before the EAL starts.
pub fn topology(plan: &Plan) -> Result<(&'static str, Vec<Direction>)> {
    let uniq = |v: Vec<usize>| {
        let mut u: Vec<usize> = Vec::new();
        for p in v {
            if !u.contains(&p) {
                u.push(p);
            }
        }
        u
    };
    let txp = uniq(plan.tx.iter().map(|t| t.port).collect());
    let rxp = uniq(plan.rx.iter().map(|r| r.port).collect());
    let d = |tx_port, rx_port| Direction { tx_port, rx_port };
    let (kind, dirs) = match (txp.as_slice(), rxp.as_slice()) {
        ([a], [b]) if a == b => Ok(("loopback", vec![d(*a, *a)])),
        ([a], [b]) => Ok(("one_way", vec![d(*a, *b)])),
        ([a, b], [c, e]) if (a == e && b == c) || (a == c && b == e) => {
            Ok(("bidirectional", vec![d(*a, *b), d(*b, *a)]))
        }
        _ => Err(perr(
            plan,
            "tx",
            "a certification needs TX tasks on one port and RX tasks on one port (the same \
             port when it is looped back), or two ports that each send and receive",
        )),
    }?;
    let loads = plan.certify.settings.direction_loads.len();
    if loads > 0 && (dirs.len() < 2 || loads != dirs.len()) {
        return Err(perr(
            plan,
            "certify.direction_loads",
            format!(
                "gives {loads} load(s) for a {kind} topology of {} direction(s): an asymmetric \
                 load needs two ports that each send and receive, one load per direction",
                dirs.len()
            ),
        ));
    }
    Ok((kind, dirs))
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

/// Run the certification of `plan` (already checked, with
/// [`port_plan`] applied): open the runtime and the ports once, run every
/// trial the searches ask for, close. `stop` is the signal flag: the
/// searches end after the current trial once it is set; a second signal
/// cuts the trial short. The certification is returned with what it has
/// even when a trial failed (its error is the second member).
pub fn certify(
    plan: &Plan,
    stop: &StopFlag,
    progress: &mut dyn FnMut(&Step),
) -> Result<(Certification, Option<Error>)> {
    let (kind, dirs) = topology(plan)?;
    let rt = Runtime::open(plan)?;
    let ports = open_ports(&rt, plan)?;
    let (queues, ups) = start_ports(plan, &ports)?;
    let mut tester = Live {
        rt: &rt,
        base: plan,
        ports: &ports,
        ups,
        handles: Handles::new(queues),
        dirs,
        stop,
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
    cert.host.ports = (plan.ports.iter().zip(&ports).zip(&tester.ups))
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
    let leaked = close_ports(ports);
    if leaked > 0 {
        cert.problems.push(Problem::Other {
            detail: format!("{leaked} mbufs were not back in their pools after the ports closed"),
        });
    }
    Ok((cert, failed))
}

/// The [`Tester`] over the open ports.
struct Live<'a, 'q> {
    rt: &'a Runtime,
    base: &'a Plan,
    ports: &'q [PortRt<'q>],
    ups: Vec<Up>,
    handles: Handles<'q>,
    dirs: Vec<Direction>,
    stop: &'a StopFlag,
}

impl<'a: 'q, 'q> Tester for Live<'a, 'q> {
    fn directions(&self) -> Vec<String> {
        let name = |i: usize| self.base.ports[i].name.as_str();
        (self.dirs.iter())
            .map(|d| format!("{} → {}", name(d.tx_port), name(d.rx_port)))
            .collect()
    }

    fn line_bps(&self) -> u64 {
        tasks::line_bps(&self.ups[self.dirs[0].tx_port])
    }

    /// Learning frames (RFC 2544 section 23): a short run at 1 % of line
    /// at the first size, so a switch learns the addresses before the
    /// first trial; its counts are not kept.
    fn learn(&mut self, _spec: &TrialSpec) -> Result<()> {
        let s = &self.base.certify.settings;
        let spec = TrialSpec {
            direction: None,
            frame_size: s.sizes[0],
            rate_pct: 1.0,
            duration_s: (s.trial_s / 10.0).clamp(0.05, 1.0),
            burst: None,
            settle_s: s.settle_s,
            step: None,
            reset_at_s: None,
        };
        self.run_trial(&spec).map(|_| ())
    }

    fn rest(&mut self, seconds: f64) {
        sleep_unless_hurried(Duration::from_secs_f64(seconds), self.stop);
    }

    fn trial(&mut self, spec: &TrialSpec) -> Result<Trial> {
        let r = self.run_trial(spec)?;
        let labels = self.directions();
        let label = match spec.direction {
            Some(d) => labels[d].clone(),
            None => AGGREGATE.to_string(),
        };
        let mean = self.base.certify.settings.mean_bytes(spec.frame_size);
        let mut t = to_trial(&r, spec, label, self.line_bps(), self.rt.tsc_hz, mean);
        if spec.direction.is_none() && self.dirs.len() > 1 {
            if let Some(ids) = direction_streams(self.base, &self.dirs) {
                t.per_direction = per_direction(&r, &labels, &ids);
            }
        }
        Ok(t)
    }

    fn rx_port(&self, direction: Option<usize>) -> String {
        let name = |d: &Direction| self.base.ports[d.rx_port].name.clone();
        match direction {
            Some(d) => name(&self.dirs[d]),
            None => self.dirs.iter().map(name).collect::<Vec<_>>().join(", "),
        }
    }

    fn stopped(&self) -> bool {
        self.stop.stopped()
    }
}

impl<'a: 'q, 'q> Live<'a, 'q> {
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
        for s in streams {
            p.streams[s].size = size.clone();
        }
        for t in &mut p.tx {
            // As the receivers: no report loop refreshes a 1588 clock map.
            t.timestamps = crate::clock::nic::Want::Software;
        }
        for r in &mut p.rx {
            r.count_from = CountFrom::Zero;
            // A trial's NIC clock map would not be refreshed (no report
            // loop): a certification measures on the software arrival.
            r.timestamps = crate::clock::nic::Want::Software;
        }
        p.run.duration = Duration::from_secs_f64(spec.duration_s.max(0.001));
        p
    }

    /// One bounded run on the open ports; its queue handles come back.
    fn run_trial(&mut self, spec: &TrialSpec) -> Result<RunResult> {
        let plan = self.trial_plan(spec);
        let ups: Vec<Up> = (self.ports.iter().zip(&self.ups))
            .map(|(p, u)| Up {
                link_bps: u.link_bps,
                line: u.line,
                before: p.port.stats(),
            })
            .collect();
        // No template pools: a pool cannot be freed while a PMD may still
        // hold its mbufs, and one per trial would pile up.
        let rt = self.rt;
        let mut tasks = tasks::plan_tasks(
            &rt.eal,
            &plan,
            self.rt.tsc_hz,
            self.ports,
            &ups,
            &mut self.handles,
            None,
        )?;
        if let Some(n) = spec.burst {
            let k = tasks.tx.len() as u64;
            for (i, t) in tasks.tx.iter_mut().enumerate() {
                t.frame_limit = n / k + u64::from((i as u64) < n % k);
            }
        }
        let meta = Meta::of(&plan, self.ports, &self.ups, &tasks);
        let (ports, handles, stop) = (self.ports, &mut self.handles, self.stop);
        let (outcomes, timing) = dpdk::scope(&self.rt.eal, |s| {
            drive(s, &self.rt.eal, &plan, spec, tasks, handles, ports, stop)
        })?;
        let seen = Seen {
            stats: self.ports.iter().map(|p| p.port.stats()).collect(),
            problems: Vec::new(),
            errors: Vec::new(),
            control: Vec::new(),
        };
        build_result(
            &plan, self.rt, self.ports, &ups, &meta, outcomes, timing, seen,
        )
    }
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

/// Launch the receivers then the senders, wait out the trial, stop the
/// senders, wait the settle time, stop the receivers; every queue handle
/// goes back to `handles`.
#[allow(clippy::too_many_arguments)]
fn drive<'scope, 'q: 'scope>(
    s: &'scope Scope<'scope, '_>,
    eal: &Eal,
    plan: &Plan,
    spec: &TrialSpec,
    tasks: Tasks<'q>,
    handles: &mut Handles<'q>,
    ports: &[PortRt],
    stop: &StopFlag,
) -> Result<(Outcomes, Timing)> {
    let _stop_all = StopAll(Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let (stop_tx, stop_rx) = (Arc::clone(&tasks.stop_tx), Arc::clone(&tasks.stop_rx));
    let live: Vec<Arc<Padded<TxLive>>> = tasks.tx.iter().map(|t| Arc::clone(&t.live)).collect();
    let started = Instant::now();
    let t0 = clock::sample();
    let mut rxw = Vec::new();
    for (i, t) in tasks.rx.into_iter().enumerate() {
        let field = format!("rx[{i}].lcore");
        let lcore = eal
            .worker_lcore(t.lcore)
            .map_err(|e| perr(plan, &field, e))?;
        let w = s.launch(lcore, move || -> RxBack<'q> {
            let mut t = t;
            let out = timed(|| rx::run_borrowed(&mut t));
            (out, t.queues)
        });
        rxw.push(w.map_err(|e| perr(plan, &field, e))?);
    }
    let mut txw = Vec::new();
    for (i, t) in tasks.tx.into_iter().enumerate() {
        let field = format!("tx[{i}].lcore");
        let lcore = eal
            .worker_lcore(t.lcore)
            .map_err(|e| perr(plan, &field, e))?;
        let w = s.launch(lcore, move || -> TxBack<'q> {
            timed(|| tx::run_keeping_queue(t))
        });
        txw.push(w.map_err(|e| perr(plan, &field, e))?);
    }
    wait_trial(spec, &live, stop);
    stop_tx.stop();
    let index = |pid: u16| ports.iter().position(|p| p.port.id() == pid).unwrap_or(0);
    let (mut tx_out, mut tx_cpu) = (Vec::new(), Vec::new());
    for w in txw {
        let ((o, q), cpu) = w.join();
        handles.put_tx(index(q.port_id()), q);
        tx_out.push(o);
        tx_cpu.push(cpu);
    }
    let elapsed_s = started.elapsed().as_secs_f64();
    let end = clock::sample();
    sleep_unless_hurried(Duration::from_secs_f64(spec.settle_s), stop);
    stop_rx.stop();
    let (mut rx_out, mut rx_cpu) = (Vec::new(), Vec::new());
    for w in rxw {
        let ((o, cpu), qs) = w.join();
        for q in qs {
            handles.put_rx(index(q.port_id()), q);
        }
        rx_out.push(o);
        rx_cpu.push(cpu);
    }
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
    };
    Ok((outcomes, timing))
}

/// Wait out a trial: its duration, or (a burst) until the senders have
/// sent the burst, within four times its duration and a second. A second
/// signal (`hurried`) cuts it short.
fn wait_trial(spec: &TrialSpec, live: &[Arc<Padded<TxLive>>], stop: &StopFlag) {
    let start = Instant::now();
    let dur = Duration::from_secs_f64(spec.duration_s.max(0.0));
    match spec.burst {
        None => sleep_unless_hurried(dur, stop),
        Some(n) => {
            let limit = dur * 4 + Duration::from_secs(1);
            while live.iter().map(|l| l.frames.get()).sum::<u64>() < n
                && start.elapsed() < limit
                && !stop.hurried()
            {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
}

/// Sleep `d`, waking early on a second signal.
fn sleep_unless_hurried(d: Duration, stop: &StopFlag) {
    let end = Instant::now() + d;
    while !stop.hurried() {
        let now = Instant::now();
        if now >= end {
            break;
        }
        std::thread::sleep(REPORT_POLL.min(end - now));
    }
}

/// A trial's figures from its run: loss from the frames sent less the
/// distinct frames received (so a tail lost after the last frame counts),
/// the senders' shortfall, a descheduled lcore or a loss the senders'
/// catch-up bursts may explain ([`bunched`]) as `tester_bound`.
fn to_trial(
    r: &RunResult,
    spec: &TrialSpec,
    direction: String,
    line_bps: u64,
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
    let sent_pct = if span_s > 0.0 && line_bps > 0 {
        tx_frames as f64 * wire_bits / span_s / line_bps as f64 * 100.0
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
        latency,
        duration_s: span_s,
        tester_bound: missed || doubt || short_burst || bunched.is_some(),
        passed: false,
        problems,
        per_direction: Vec::new(),
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
        for x in h.iter_recorded() {
            all.saturating_record_n(x.value_iterated_to(), x.count_at_value());
        }
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

/// The stream ids each direction's TX tasks send, in the order of
/// `dirs`; `None` when two directions share a stream (their frames
/// cannot be told apart).
fn direction_streams(plan: &Plan, dirs: &[Direction]) -> Option<Vec<Vec<u32>>> {
    let ids: Vec<Vec<u32>> = (dirs.iter())
        .map(|d| {
            let tasks = plan.tx.iter().filter(|t| t.port == d.tx_port);
            let mut v: Vec<u32> = tasks
                .flat_map(|t| t.streams.iter().map(|&s| plan.streams[s].id))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let shared = (ids.iter().enumerate())
        .any(|(i, a)| ids[i + 1..].iter().any(|b| a.iter().any(|x| b.contains(x))));
    (!shared).then_some(ids)
}

/// Each direction's share of an aggregate trial `r`: its streams' frames
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
