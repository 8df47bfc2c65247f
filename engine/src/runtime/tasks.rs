//! Planning the tasks of a run: one TX or RX task per worker lcore, each
//! built around the queue handles it alone may use, with its rate resolved
//! against the link and its frame builders ready.

use std::sync::Arc;

use crate::config::{Clock, Plan, RxStreams};
use crate::counter::{Padded, RxLive, StopFlag, TxLive};
use crate::dpdk::{Eal, Queues, RxQueue, TemplatePool, TxQueue};
use crate::pace::mode::{GapKind, GapPlanner, TxMode};
use crate::pace::pattern::Pattern;
use crate::pace::rate::{bits_per_frame, check_against_line, Layer, Rate, RateSpec};
use crate::pace::schedule::Interleave;
use crate::result::LineSource;
use crate::rx::RxTask;
use crate::tx::{self, TxTask};
use crate::wire::builder::{FrameBuilder, SHARED_FILL_SEED};
use crate::wire::fill::FillPattern;
use crate::wire::pause::{self, PauseTx};
use crate::wire::spec::{SizeSpec, FCS_LEN};
use crate::wire::CsumMode;
use crate::Result;

use super::{perr, PortRt, PortStart, Started};

/// What an absolute rate is checked against on a port with no line rate
/// (no speed reported, no `link:` declared): no line limits it.
const NO_LINE_BPS: u64 = u64::MAX;
/// Smallest gap frame: the minimum Ethernet frame, FCS included.
const MIN_GAP_FRAME: usize = 64;
/// Largest gap frame: the largest untagged standard frame, which every
/// port and switch accepts (a port taking less caps it lower).
const MAX_GAP_FRAME: usize = 1518;

/// The queue handles of every started port, by port index and queue id,
/// each taken by at most one task.
pub(super) struct Handles<'q> {
    tx: Vec<Vec<Option<TxQueue<'q>>>>,
    rx: Vec<Vec<Option<RxQueue<'q>>>>,
}

impl<'q> Handles<'q> {
    /// The handles of each port's start, in port order.
    pub(super) fn new(queues: Vec<Queues<'q>>) -> Self {
        let (mut tx, mut rx) = (Vec::new(), Vec::new());
        for q in queues {
            tx.push(q.tx.into_iter().map(Some).collect());
            rx.push(q.rx.into_iter().map(Some).collect());
        }
        Handles { tx, rx }
    }

    /// Takes TX queue `queue` of port `port`, if no task took it.
    pub(super) fn tx(&mut self, port: usize, queue: u16) -> Option<TxQueue<'q>> {
        self.tx.get_mut(port)?.get_mut(usize::from(queue))?.take()
    }

    /// Takes RX queue `queue` of port `port`, if no task took it.
    pub(super) fn rx(&mut self, port: usize, queue: u16) -> Option<RxQueue<'q>> {
        self.rx.get_mut(port)?.get_mut(usize::from(queue))?.take()
    }

    /// Takes back the TX queue `q` of port index `port` after a run.
    pub(super) fn put_tx(&mut self, port: usize, q: TxQueue<'q>) {
        let id = usize::from(q.id());
        self.tx[port][id] = Some(q);
    }

    /// Every RX queue no task holds, port by port.
    pub(super) fn rx_free(&mut self) -> impl Iterator<Item = &mut RxQueue<'q>> {
        self.rx.iter_mut().flatten().filter_map(Option::as_mut)
    }

    /// Takes back the RX queue `q` of port index `port` after a run.
    pub(super) fn put_rx(&mut self, port: usize, q: RxQueue<'q>) {
        let id = usize::from(q.id());
        self.rx[port][id] = Some(q);
    }
}

/// The tasks of a run and their stop signals: senders stop first,
/// receivers once the frames in flight have arrived.
pub(super) struct Tasks<'q> {
    /// One per TX lcore, in the plan's order.
    pub tx: Vec<TxTask<'q>>,
    /// One per RX lcore, in the plan's order.
    pub rx: Vec<RxTask<'q>>,
    /// Stops the senders.
    pub stop_tx: Arc<StopFlag>,
    /// Stops the receivers.
    pub stop_rx: Arc<StopFlag>,
    /// The synchronised clocks the tasks stamp or measure on.
    pub syncs: super::clock::Syncs,
}

/// Every task of the plan, on the ports opened and started for it
/// (`on`). `nic` are NIC clocks already mapped onto the TSC (a
/// certification's, carried from trial to trial): a receiver on their
/// port takes its map from them.
pub(super) fn plan_tasks<'e: 'q, 'q>(
    eal: &'e Eal,
    on: &Started,
    handles: &mut Handles<'q>,
    tx_pools: Option<&mut Vec<Arc<TemplatePool<'e>>>>,
    nic: Vec<super::clock::NicSync>,
) -> Result<Tasks<'q>> {
    let (plan, tsc_hz) = (on.plan, on.rt.tsc_hz);
    let stop_tx = Arc::new(StopFlag::default());
    let stop_rx = Arc::new(StopFlag::default());
    let mut syncs = super::clock::Syncs::start(plan, tsc_hz)?;
    syncs.nic = nic;
    let shared = TxShared {
        eal,
        fill: shared_fill(plan),
        stop: Arc::clone(&stop_tx),
    };
    let mut tx = tx_tasks(on, handles, &shared, tx_pools, &mut syncs)?;
    check_port_lines(plan, &tx)?;
    let mut rx = rx_tasks(on, handles, &stop_rx, &syncs)?;
    nic_stamps(plan, tsc_hz, on.ports, &mut rx, &mut syncs)?;
    for (task, t) in tx.iter_mut().zip(&plan.tx) {
        if let (crate::config::TxClock::Synced(_), Some(s)) = (t.clock, &syncs.tx) {
            task.clock = Some(s.mapping());
            for b in &mut task.builders {
                b.set_stamp_time(crate::wire::stamp::StampTime::ClockNs);
            }
        }
    }
    Ok(Tasks {
        tx,
        rx,
        stop_tx,
        stop_rx,
        syncs,
    })
}

/// The TX tasks of the plan, each on its queue, its departure source
/// chosen (and recorded in `syncs`); a task whose departures the NIC
/// stamps gets no template pool.
fn tx_tasks<'e: 'q, 'q>(
    on: &Started,
    handles: &mut Handles<'q>,
    shared: &TxShared<'e>,
    mut tx_pools: Option<&mut Vec<Arc<TemplatePool<'e>>>>,
    syncs: &mut super::clock::Syncs,
) -> Result<Vec<TxTask<'q>>> {
    let plan = on.plan;
    let mut tx = Vec::new();
    for (ti, t) in plan.tx.iter().enumerate() {
        let mut queue = handles.tx(t.port, t.queue).ok_or_else(|| {
            perr(
                plan,
                &format!("tx[{ti}].queue"),
                format!(
                    "TX queue {} is not configured or another task uses it",
                    t.queue
                ),
            )
        })?;
        let pr = &on.ports[t.port];
        let stamps = tx_departure(plan, ti, on.rt.tsc_hz, pr, &mut queue, syncs)?;
        let pools = tx_pools.as_deref_mut().filter(|_| stamps.is_none());
        let mut task = tx_task(on, ti, queue, shared, pools)?;
        task.stamps = stamps;
        tx.push(task);
    }
    Ok(tx)
}

/// The RX tasks of the plan, each on its queues, stopped by `stop_rx`, on
/// the synchronised clock where `syncs` has one.
fn rx_tasks<'q>(
    on: &Started,
    handles: &mut Handles<'q>,
    stop_rx: &Arc<StopFlag>,
    syncs: &super::clock::Syncs,
) -> Result<Vec<RxTask<'q>>> {
    let plan = on.plan;
    let mut rx = Vec::new();
    for (ri, r) in plan.rx.iter().enumerate() {
        let mut queues = Vec::new();
        for &q in &r.queues {
            queues.push(handles.rx(r.port, q).ok_or_else(|| {
                perr(
                    plan,
                    &format!("rx[{ri}].queues"),
                    format!("RX queue {q} is not configured or another task uses it"),
                )
            })?);
        }
        let mut task = rx_task(plan, ri, on.rt.tsc_hz, &on.ports[r.port], queues, stop_rx);
        task.clock = syncs.rx.as_ref().map(super::clock::SyncClock::mapping);
        rx.push(task);
    }
    Ok(rx)
}

/// TX task `ti`'s departure source, from what its port `pr` offers and
/// what the task asks (`tx[].timestamps`), recorded in `syncs` for the
/// result. For the NIC's: the port's IEEE 1588 latch enabled and its
/// clock mapped onto the TSC (`syncs.tx_nic`), which the task samples
/// with; its frames then come from the port's pool (the caller keeps no
/// template pools for it).
fn tx_departure(
    plan: &Plan,
    ti: usize,
    tsc_hz: u64,
    pr: &PortRt,
    queue: &mut TxQueue<'_>,
    syncs: &mut super::clock::Syncs,
) -> Result<Option<crate::tx::TxStamps>> {
    use crate::clock::nic::{select_departure, Departure, Want};
    use crate::dpdk::{NicClockReader, TxLatch};
    let t = &plan.tx[ti];
    let at = format!("tx[{ti}].timestamps");
    let port = &pr.port;
    let k = port_stamps(syncs, t.port, port);
    let st = &mut syncs.stamps[k].1;
    let (name, driver) = (&plan.ports[t.port].name, &port.info().driver);
    let dep =
        select_departure(t.timestamps, st.offered, name, driver).map_err(|m| perr(plan, &at, m))?;
    let rank = |w: Option<Want>| match w {
        None => 0,
        Some(Want::Software) => 1,
        Some(Want::Auto) => 2,
        Some(Want::Nic) => 3,
    };
    if rank(Some(t.timestamps)) > rank(st.tx_asked) {
        st.tx_asked = Some(t.timestamps);
    }
    if dep != Departure::Nic {
        return Ok(None);
    }
    let latch = TxLatch::enable(port).map_err(|e| perr(plan, &at, e))?;
    // The latch proves itself once per port: one control frame, marked.
    let latched = *st
        .tx_latch_probe
        .get_or_insert_with(|| probe_latch(&latch, queue, port));
    let dep = crate::clock::nic::after_probe(t.timestamps, dep, latched, name, driver)
        .map_err(|m| perr(plan, &at, m))?;
    if dep != Departure::Nic {
        let _ = port.timesync_disable();
        return Ok(None);
    }
    st.tx = Departure::Nic;
    let reader = || NicClockReader::timesync(port);
    let n = nic_sync(&mut syncs.tx_nic, t.port, reader, tsc_hz).map_err(|e| perr(plan, &at, e))?;
    Ok(Some(crate::tx::TxStamps {
        latch,
        map: n.mapping(),
        counter: n.counter(),
    }))
}

/// Whether `port`'s TX latch stamps a marked control frame sent on
/// `queue` (within the probe's wait).
fn probe_latch(
    latch: &crate::dpdk::TxLatch,
    queue: &mut TxQueue<'_>,
    port: &crate::dpdk::Port,
) -> bool {
    let mut probe = [0u8; crate::wire::control::LEN];
    let mac = crate::wire::MacAddr(port.info().mac);
    crate::wire::control::emit(&mut probe, crate::wire::control::Kind::Probe, mac);
    let wait = std::time::Duration::from_millis(crate::clock::nic::LATCH_PROBE_MS);
    latch.probe(queue, &probe, wait)
}

/// The index in `syncs.stamps` of port `pi`'s timestamp record, made the
/// first time a task of the port asks (what `port` offers, nothing asked,
/// software both ways).
fn port_stamps(syncs: &mut super::clock::Syncs, pi: usize, port: &crate::dpdk::Port) -> usize {
    use crate::clock::nic::{Arrival, Departure, NicCaps, PortStamps, Want};
    if let Some(k) = syncs.stamps.iter().position(|(p, _)| *p == pi) {
        return k;
    }
    let offered = NicCaps {
        rx_timestamp: port.offers_rx_timestamp(),
        read_clock: port.reads_clock(),
        timesync: port.offers_timesync(),
    };
    syncs.stamps.push((
        pi,
        PortStamps {
            asked: Want::Software,
            offered,
            rx: Arrival::Software,
            tx: Departure::Software,
            tx_asked: None,
            nic_clock: None,
            tx_clock: None,
            tx_latch_probe: None,
        },
    ));
    syncs.stamps.len() - 1
}

/// Port `pi`'s NIC clock mapped onto a TSC of `tsc_hz` in `list`: the one
/// started before, or one started now with the clock `reader` reads.
fn nic_sync(
    list: &mut Vec<super::clock::NicSync>,
    pi: usize,
    reader: impl FnOnce() -> crate::dpdk::NicClockReader,
    tsc_hz: u64,
) -> std::result::Result<&super::clock::NicSync, crate::dpdk::DpdkError> {
    let k = match list.iter().position(|n| n.port == pi) {
        Some(k) => k,
        None => {
            list.push(super::clock::NicSync::start(pi, reader(), tsc_hz)?);
            list.len() - 1
        }
    };
    Ok(&list[k])
}

/// Each RX task's arrival source, from what its port offers and what the
/// task asks (`rx[].timestamps`); the NIC clocks of the ports whose RX
/// timestamps are used, started; each receiving port's choice recorded
/// in `syncs` for the result.
fn nic_stamps(
    plan: &Plan,
    tsc_hz: u64,
    ports: &[PortRt],
    rx: &mut [RxTask<'_>],
    syncs: &mut super::clock::Syncs,
) -> Result<()> {
    use crate::clock::nic::{select, Arrival, Want};
    use crate::dpdk::{NicClockReader, RxStampField};
    let rank = |w: Want| match w {
        Want::Software => 0,
        Want::Auto => 1,
        Want::Nic => 2,
    };
    let mut field = None;
    for (ri, (r, task)) in plan.rx.iter().zip(rx.iter_mut()).enumerate() {
        let at = format!("rx[{ri}].timestamps");
        let port = &ports[r.port].port;
        let k = port_stamps(syncs, r.port, port);
        let st = &mut syncs.stamps[k].1;
        let arrival = select(
            r.timestamps,
            st.offered,
            &plan.ports[r.port].name,
            &port.info().driver,
        )
        .map_err(|m| perr(plan, &at, m))?;
        if rank(r.timestamps) > rank(st.asked) {
            st.asked = r.timestamps;
        }
        if arrival != Arrival::NicRx {
            continue;
        }
        st.rx = Arrival::NicRx;
        let f = match field {
            Some(f) => f,
            None => *field.insert(RxStampField::register().map_err(|e| perr(plan, &at, e))?),
        };
        let reader = || NicClockReader::of(port);
        let n = nic_sync(&mut syncs.nic, r.port, reader, tsc_hz).map_err(|e| perr(plan, &at, e))?;
        task.nic = Some(crate::rx::NicStamps {
            field: f,
            map: n.mapping(),
            counter: n.counter(),
        });
    }
    Ok(())
}

/// A port's line rate in bit/s and where it comes from: the profile's
/// `link:` (`declared`, bit/s), else the speed the driver reports once the
/// link is up (`reported_mbps`, 0 when it reports none); never a guess.
pub(super) fn port_line(declared: Option<u64>, reported_mbps: u32) -> (u64, LineSource) {
    match declared {
        Some(bps) => (bps, LineSource::Declared),
        None if reported_mbps > 0 => (u64::from(reported_mbps) * 1_000_000, LineSource::Reported),
        None => (0, LineSource::Unknown),
    }
}

/// The rate the port's link is taken to have (0: none known).
pub(super) fn line_bps(up: &PortStart) -> u64 {
    up.link_bps
}

/// The line task `ti` runs against: its port's, or, when the port has
/// none, [`NO_LINE_BPS`] for a rate that does not depend on the line. A
/// rate relative to the line (`line`, `%`), gap mode and line-rate bursts
/// need the line: without one they are refused, naming the port.
fn task_line(plan: &Plan, ti: usize, up: &PortStart, device: &str) -> Result<u64> {
    let t = &plan.tx[ti];
    if up.link_bps > 0 {
        return Ok(up.link_bps);
    }
    let needs = if matches!(t.rate, RateSpec::Line | RateSpec::PercentOfLine { .. }) {
        Some(("rate", format!("`{}` is relative to the line", t.rate)))
    } else if matches!(t.mode, TxMode::Gap { .. }) {
        Some(("mode", "gap mode plans gap frames on the line".to_string()))
    } else if matches!(t.pattern, Pattern::OnOff { .. }) {
        Some((
            "pattern",
            "on/off bursts are sent at the line rate".to_string(),
        ))
    } else {
        None
    };
    match needs {
        Some((field, why)) => Err(perr(
            plan,
            &format!("tx[{ti}].{field}"),
            format!(
                "{why}, and port {} ({device}) has no known line rate: its driver reports \
                 no link speed and the profile declares none; declare it with `link:` on the \
                 port (e.g. `link: 10g`) or give an absolute rate",
                plan.ports[t.port].name
            ),
        )),
        None => Ok(NO_LINE_BPS),
    }
}

/// TX task `ti`: its rate, builders and gap planners, on `queue`.
fn tx_task<'e: 'q, 'q>(
    on: &Started,
    ti: usize,
    queue: TxQueue<'q>,
    shared: &TxShared<'e>,
    tx_pools: Option<&mut Vec<Arc<TemplatePool<'e>>>>,
) -> Result<TxTask<'q>> {
    let (plan, tsc_hz) = (on.plan, on.rt.tsc_hz);
    let t = &plan.tx[ti];
    let (pr, up) = (&on.ports[t.port], &on.starts[t.port]);
    let line = task_line(plan, ti, up, &pr.port.info().name)?;
    let rate = tx_rate(plan, ti, line)?;
    let link_bps = line_bps(up);
    check_payload_layer(plan, ti)?;
    let csum = if pr.tx_offload {
        CsumMode::Offload
    } else {
        CsumMode::Software
    };
    let mut builders = Vec::new();
    for &s in &t.streams {
        builders.push(
            FrameBuilder::with_fill(&plan.streams[s], csum, Arc::clone(&shared.fill))
                .map_err(|e| perr(plan, &format!("streams[{s}].{}", e.field), e.message))?,
        );
    }
    let payload = crate::tx_payload::for_task(plan, ti, &queue, &builders, pr.payload)?;
    let info = pr.port.info();
    let ring = super::devices::clamp_ring(plan.ports[t.port].tx_ring, info.tx_ring);
    // Without a place to keep template pools (a certification's trials,
    // or a task whose departures are sampled), the port's pool is used
    // and headers are written per frame.
    let shape = task_shape(plan, ti, tx_pools.is_some(), false);
    check_fast_free(plan, ti, shape, pr.port.fast_free())?;
    let pools = match tx_pools.filter(|_| shape.uses_templates()) {
        Some(keep) => {
            let pools = tx::template_pools(
                shared.eal,
                &format!("ls_tx{ti}"),
                &builders,
                ring,
                info.socket,
            )
            .map_err(|e| perr(plan, &format!("tx[{ti}]"), e))?;
            keep.extend(pools.iter().flatten().cloned());
            pools
        }
        None => builders.iter().map(|_| None).collect(),
    };
    Ok(TxTask {
        payload,
        lcore: t.lcore,
        queue,
        builders,
        pools,
        interleave: interleave(plan, ti, rate)?,
        stream_ids: t.streams.iter().map(|&s| plan.streams[s].id).collect(),
        rate,
        mode: t.mode,
        pattern: t.pattern,
        tsc_hz,
        line_bps: link_bps,
        gap: gap_planners(plan, ti, rate, link_bps, pr)?,
        offload: pr.tx_offload,
        trace_frames: if t.trace.is_some() { t.trace_frames } else { 0 },
        live: Arc::new(Padded::new(TxLive::default())),
        stop: Arc::clone(&shared.stop),
        peer: None,
        frame_limit: t.frames.unwrap_or(u64::MAX),
        clock: None,
        stamps: None,
    })
}

/// The pool shape of TX task `ti` ([`tx::TaskShape`]) when the runtime
/// does or does not keep template pools and its departures are or are not
/// sampled.
fn task_shape(plan: &Plan, ti: usize, templates_kept: bool, stamped: bool) -> tx::TaskShape {
    let t = &plan.tx[ti];
    tx::TaskShape {
        streams: t.streams.len(),
        gap: matches!(t.mode, TxMode::Gap { .. }),
        templates_kept,
        stamped,
    }
}

/// Whether every TX queue of port `i` sends the mbufs of one pool only,
/// whatever its task turns out to be (templates kept or not, departures
/// sampled or not): then fast free is safe on the port
/// ([`tx::fast_free_safe`]). Decided before the port is configured, from
/// the most pools each of its tasks can use.
pub(super) fn port_one_pool(plan: &Plan, i: usize) -> bool {
    (0..plan.tx.len())
        .filter(|&ti| plan.tx[ti].port == i)
        .all(|ti| tx::fast_free_safe(task_shape(plan, ti, true, false).pools_bound()))
}

/// A task of `shape` on a port whose TX queues free fast (`fast_free`)
/// must send the mbufs of one pool: the port's set-up and the task's
/// pools must agree, or another stream's headers would go out.
fn check_fast_free(plan: &Plan, ti: usize, shape: tx::TaskShape, fast_free: bool) -> Result<()> {
    if fast_free && !tx::fast_free_safe(shape.pools()) {
        return Err(perr(
            plan,
            &format!("tx[{ti}]"),
            format!(
                "internal: the port frees sent mbufs fast (one pool per queue) but this task's \
                 frames come from {} pools",
                shape.pools()
            ),
        ));
    }
    Ok(())
}

/// What every TX task of a run shares: the EAL (for its streams' pools),
/// the fill pattern and the stop.
struct TxShared<'q> {
    eal: &'q Eal,
    fill: Arc<FillPattern>,
    stop: Arc<StopFlag>,
}

/// One fill pattern for every stream the plan sends, sized for the
/// largest fill (streams differ by the offset they copy from).
fn shared_fill(plan: &Plan) -> Arc<FillPattern> {
    let max_fill = plan.tx.iter().flat_map(|t| &t.streams);
    let max_fill = max_fill
        .map(|&s| FrameBuilder::max_fill(&plan.streams[s]))
        .max()
        .unwrap_or(0);
    Arc::new(FillPattern::new(SHARED_FILL_SEED, max_fill))
}

/// Which stream of task `ti` sends each frame: the weights share `rate`
/// at its layer, each frame counted for its bits there (one unit per
/// frame for a frames/s rate).
fn interleave(plan: &Plan, ti: usize, rate: Rate) -> Result<Interleave> {
    let t = &plan.tx[ti];
    let streams: Vec<(u64, Vec<u64>)> = (t.streams.iter().zip(&t.weights))
        .map(|(&s, &w)| {
            let spec = &plan.streams[s];
            let units = spec.frame_sizes().into_iter().map(|size| {
                let payload = size - FCS_LEN - spec.header_len();
                bits_per_frame(rate.layer(), size, payload)
            });
            (u64::from(w), units.collect())
        })
        .collect();
    Interleave::new(&streams).map_err(|e| perr(plan, &format!("tx[{ti}].streams"), e))
}

/// Task `ti`'s rate resolved against the link, checked for every frame
/// size of its streams.
fn tx_rate(plan: &Plan, ti: usize, link_bps: u64) -> Result<Rate> {
    let t = &plan.tx[ti];
    let field = format!("tx[{ti}].rate");
    let rate = t
        .rate
        .resolve(link_bps, t.layer)
        .map_err(|e| perr(plan, &field, e))?;
    for &s in &t.streams {
        let spec = &plan.streams[s];
        for size in spec.frame_sizes() {
            let payload = size - FCS_LEN - spec.header_len();
            check_against_line(&rate, link_bps, size, payload).map_err(|e| {
                perr(
                    plan,
                    &field,
                    format!("{e} (stream {}, {size}-byte frames)", spec.name),
                )
            })?;
        }
    }
    Ok(rate)
}

/// The share of its port's line (L1) that TX task `ti` takes at `rate`
/// with its smallest share of any of its frame sizes: what it takes at
/// the least, whatever its weights pick.
fn line_share(plan: &Plan, ti: usize, rate: &Rate, link_bps: u64) -> f64 {
    let t = &plan.tx[ti];
    let sizes = t.streams.iter().flat_map(|&s| {
        let spec = &plan.streams[s];
        spec.frame_sizes()
            .into_iter()
            .map(move |size| (size, size - FCS_LEN - spec.header_len()))
    });
    sizes
        .map(|(size, payload)| {
            let l1 = bits_per_frame(Layer::L1, size, payload) as f64;
            let units = bits_per_frame(rate.layer(), size, payload) as f64;
            rate.per_sec() as f64 * l1 / units / link_bps.max(1) as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// The TX tasks of one port share its line: each task's rate is its own,
/// and together they may not ask more than the line carries.
fn check_port_lines(plan: &Plan, tx: &[TxTask]) -> Result<()> {
    for port in 0..plan.ports.len() {
        let mine: Vec<usize> = (0..plan.tx.len())
            .filter(|&ti| plan.tx[ti].port == port)
            .collect();
        if mine.len() < 2 || tx[mine[0]].line_bps == 0 {
            continue;
        }
        let shares: Vec<f64> = mine
            .iter()
            .map(|&ti| line_share(plan, ti, &tx[ti].rate, tx[ti].line_bps))
            .collect();
        let total: f64 = shares.iter().sum();
        if total > 1.0 + LINE_SHARE_SLACK {
            let each: Vec<String> = (mine.iter().zip(&shares))
                .map(|(ti, s)| format!("tx[{ti}] {:.1} %", s * 100.0))
                .collect();
            let last = mine[mine.len() - 1];
            return Err(perr(
                plan,
                &format!("tx[{last}].rate"),
                format!(
                    "the TX tasks of port `{}` together ask {:.1} % of its {} line ({}): \
                     each task's rate is its own, and the tasks of one port share its line",
                    plan.ports[port].name,
                    total * 100.0,
                    crate::pace::rate::format_bps(tx[last].line_bps),
                    each.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// Rounding allowed when the shares of one port's tasks add up to its
/// whole line (two tasks at `50%` each).
const LINE_SHARE_SLACK: f64 = 1e-9;

/// A payload-layer rate counts payload bytes: every stream of the task
/// must have the same header length.
fn check_payload_layer(plan: &Plan, ti: usize) -> Result<()> {
    let t = &plan.tx[ti];
    if t.layer != Layer::Payload {
        return Ok(());
    }
    let hdr = |s: usize| plan.streams[s].header_len();
    let first = t.streams[0];
    match t.streams.iter().find(|&&s| hdr(s) != hdr(first)) {
        Some(&other) => Err(perr(
            plan,
            &format!("tx[{ti}].layer"),
            format!(
                "a payload-layer rate needs streams with the same headers in one task: {} has {} header bytes, {} has {}",
                plan.streams[first].name,
                hdr(first),
                plan.streams[other].name,
                hdr(other)
            ),
        )),
        None => Ok(()),
    }
}

/// Gap mode's planners, one per stream, and the PAUSE frames' source MAC;
/// `None` in the other modes.
fn gap_planners(
    plan: &Plan,
    ti: usize,
    rate: Rate,
    link_bps: u64,
    pr: &PortRt,
) -> Result<Option<(Vec<GapPlanner>, [u8; 6])>> {
    let t = &plan.tx[ti];
    let info = pr.port.info();
    match t.mode {
        TxMode::Gap {
            kind: GapKind::BadFcs,
        } => Err(perr(
            plan,
            &format!("tx[{ti}].mode"),
            format!(
                "gap frames with a bad FCS need a port that lets software supply the FCS, \
                 and DPDK's ethdev API offers no such control on {} ({}): use `gap` (PAUSE frames)",
                info.name, info.driver
            ),
        )),
        TxMode::Gap {
            kind: GapKind::Pause,
        } => {
            refuse_dropped_pause(plan, ti, pr)?;
            let mut planners = Vec::new();
            for &s in &t.streams {
                let spec = &plan.streams[s];
                let SizeSpec::Fixed(size) = spec.size else {
                    return Err(perr(
                        plan,
                        &format!("streams[{s}].frame_size"),
                        format!(
                            "gap mode needs one fixed frame size per stream ({} cycles sizes)",
                            spec.name
                        ),
                    ));
                };
                let payload = size - FCS_LEN - spec.header_len();
                let max_gap = (info.max_rx_pktlen as usize).clamp(MIN_GAP_FRAME, MAX_GAP_FRAME);
                planners.push(
                    GapPlanner::new(rate, link_bps, size, payload, MIN_GAP_FRAME, max_gap)
                        .map_err(|e| perr(plan, &format!("tx[{ti}].mode"), e))?,
                );
            }
            Ok(Some((planners, info.mac)))
        }
        _ => Ok(None),
    }
}

/// Gap mode on a port whose driver drops transmitted PAUSE frames
/// ([`pause::tx_fate`]): refused before any traffic, naming the port, its
/// driver, what the driver does, and the pacing to use instead.
fn refuse_dropped_pause(plan: &Plan, ti: usize, pr: &PortRt) -> Result<()> {
    let info = pr.port.info();
    match pause::tx_fate(&info.driver) {
        PauseTx::Sent => Ok(()),
        PauseTx::Dropped { why } => Err(perr(
            plan,
            &format!("tx[{ti}].mode"),
            format!(
                "gap mode cannot pace port `{}` ({}, driver {}): {why}, so its gap frames \
                 would never reach the wire and the data would leave at line rate; \
                 pace by the TSC instead: `mode: spin` (or `burst N`)",
                plan.ports[plan.tx[ti].port].name, info.name, info.driver
            ),
        )),
    }
}

/// RX task `ri`, polling `queues`.
fn rx_task<'q>(
    plan: &Plan,
    ri: usize,
    tsc_hz: u64,
    pr: &PortRt,
    queues: Vec<RxQueue<'q>>,
    stop: &Arc<StopFlag>,
) -> RxTask<'q> {
    let r = &plan.rx[ri];
    let shared_tsc = match r.clock {
        Clock::Auto => !plan.tx.is_empty(),
        Clock::Shared => true,
        Clock::Separate => false,
        Clock::Synced { shared, .. } => shared,
    };
    let expected: Option<Vec<u32>> = match &r.streams {
        RxStreams::Auto => None,
        RxStreams::Listed(v) => Some(v.iter().map(|&s| plan.streams[s].id).collect()),
    };
    // Accumulators for every stream of the profile, made ready here so
    // that a new stream's first frame allocates nothing.
    let pool = match r.verify {
        crate::config::Verify::None => 0,
        _ => plan.streams.len(),
    };
    RxTask {
        lcore: r.lcore,
        queues,
        verify: match r.verify {
            crate::config::Verify::Full => crate::rx::Verify::Full,
            crate::config::Verify::Stamp => crate::rx::Verify::Stamp,
            crate::config::Verify::None => crate::rx::Verify::CountOnly,
        },
        hw_csum: pr.port.info().rx_checksum_offload(),
        slowdown_cycles: r.slowdown_cycles,
        count_from: match r.count_from {
            crate::config::CountFrom::FirstSeen => crate::rx::seq::CountFrom::FirstSeen,
            crate::config::CountFrom::Zero => crate::rx::seq::CountFrom::Seq(0),
        },
        expected,
        pool: crate::rx::StreamPool::new(pool, tsc_hz),
        shared_tsc,
        tsc_hz,
        clock: None,
        live: Arc::new(Padded::new(RxLive::default())),
        stop: Arc::clone(stop),
        peer: None,
        nic: None,
        capture: r.capture.as_ref().map(|c| capture(c, tsc_hz)),
    }
}

/// The memory of a capture, taken now, with the wall clock and the TSC
/// read together to time its frames.
fn capture(c: &crate::config::CapturePlan, tsc_hz: u64) -> Box<crate::rx::capture::Capture> {
    use crate::rx::capture::{Capture, Keep};
    let wall = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let keep = match c.keep {
        crate::config::CaptureKeep::First => Keep::First,
        crate::config::CaptureKeep::Last => Keep::Last,
    };
    Box::new(Capture::new(
        c.frames,
        c.snap,
        keep,
        (wall, crate::dpdk::tsc::now()),
        tsc_hz,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_declared_or_reported_never_invented() {
        let g10 = 10_000_000_000;
        assert_eq!(port_line(Some(g10), 0), (g10, LineSource::Declared));
        assert_eq!(port_line(Some(g10), 25_000), (g10, LineSource::Declared));
        assert_eq!(
            port_line(None, 25_000),
            (25_000_000_000, LineSource::Reported)
        );
        assert_eq!(port_line(None, 0), (0, LineSource::Unknown));
    }

    fn plan_with(tx: &str) -> Plan {
        let yaml = format!(
            "eal: {{ cores: [0, 1], vdevs: [net_null0] }}\n\
             ports: [ {{ name: p0, device: net_null0 }} ]\n\
             streams: [ {{ name: s, frame_size: 1518 }} ]\n\
             tx: [ {{ lcore: 1, port: p0, {tx} }} ]\n"
        );
        crate::config::load_str(&yaml, "t.yaml").unwrap()
    }

    /// A plan whose one TX task sends `streams` streams of 1518 bytes, in
    /// gap mode or not.
    fn plan_of_shape(streams: usize, gap: bool) -> Plan {
        let names: Vec<String> = (0..streams).map(|k| format!("s{k}")).collect();
        let defs: Vec<String> = names
            .iter()
            .map(|n| format!("{{ name: {n}, frame_size: 1518 }}"))
            .collect();
        let mode = if gap { "mode: gap, " } else { "" };
        let yaml = format!(
            "eal: {{ cores: [0, 1], vdevs: [net_null0] }}\n\
             ports: [ {{ name: p0, device: net_null0, link: 10g }} ]\n\
             streams: [ {} ]\n\
             tx: [ {{ lcore: 1, port: p0, {mode}rate: 1G, streams: [{}] }} ]\n",
            defs.join(", "),
            names.join(", ")
        );
        crate::config::load_str(&yaml, "t.yaml").unwrap()
    }

    /// For every task shape, the port's fast free (decided before the
    /// port is configured, from the plan) and the pools the task then
    /// sends from agree: fast free only where every possible task sends
    /// from one pool, whether templates are kept (a run) or not (a
    /// certification) and whether departures are sampled or not.
    #[test]
    fn fast_free_and_the_task_pools_agree_for_every_shape() {
        let mut one_pool_ports = Vec::new();
        for streams in 1..=tx::TEMPLATE_POOLS_MAX + 2 {
            for gap in [false, true] {
                let plan = plan_of_shape(streams, gap);
                let fast_free = port_one_pool(&plan, 0);
                for kept in [false, true] {
                    for stamped in [false, true] {
                        let shape = task_shape(&plan, 0, kept, stamped);
                        assert_eq!((shape.streams, shape.gap), (streams, gap));
                        let ok = check_fast_free(&plan, 0, shape, fast_free);
                        assert!(ok.is_ok(), "{shape:?} fast free {fast_free}");
                        if fast_free {
                            assert_eq!(shape.pools(), 1, "{shape:?}");
                        }
                    }
                }
                if fast_free {
                    one_pool_ports.push((streams, gap));
                }
            }
        }
        // One stream without gap frames, or more streams than get
        // template pools (all from the port's pool, gap frames too).
        assert_eq!(
            one_pool_ports,
            vec![(1, false), (9, false), (9, true), (10, false), (10, true)]
        );
        // A port set up for fast free refuses a task of several pools.
        let plan = plan_of_shape(2, false);
        let shape = task_shape(&plan, 0, true, false);
        let err = check_fast_free(&plan, 0, shape, true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "t.yaml:4: tx[0]: internal: the port frees sent mbufs fast (one pool per queue) but \
             this task's frames come from 2 pools"
        );
        assert!(check_fast_free(&plan, 0, shape, false).is_ok());
    }

    /// A port with no TX task, or TX tasks on other ports only, frees
    /// fast; one shared by two tasks of one pool each does too, and one
    /// task of two pools takes it away.
    #[test]
    fn fast_free_per_port_over_its_tasks() {
        let yaml = "eal: { cores: [0, 1, 2], vdevs: [net_null0, net_null1] }\n\
             ports: [ { name: p0, device: net_null0, tx_queues: 2 }, { name: p1, device: net_null1 } ]\n\
             streams: [ { name: a }, { name: b }, { name: c } ]\n\
             tx: [ { lcore: 1, port: p0, queue: 0, rate: 1G, streams: [a] },\n\
                   { lcore: 2, port: p0, queue: 1, rate: 1G, streams: [b] } ]\n";
        let plan = crate::config::load_str(yaml, "t.yaml").unwrap();
        assert!(port_one_pool(&plan, 0));
        assert!(port_one_pool(&plan, 1));
        let yaml = yaml.replace("streams: [b]", "streams: [b, c]");
        let plan = crate::config::load_str(&yaml, "t.yaml").unwrap();
        assert!(!port_one_pool(&plan, 0));
        assert!(port_one_pool(&plan, 1));
    }

    fn up(link_bps: u64) -> PortStart {
        PortStart {
            link_bps,
            line: port_line(None, (link_bps / 1_000_000) as u32).1,
            before: Default::default(),
        }
    }

    #[test]
    fn without_a_line_only_an_absolute_rate_runs() {
        let dev = "net_null0";
        let err = |tx: &str| {
            task_line(&plan_with(tx), 0, &up(0), dev)
                .unwrap_err()
                .to_string()
        };
        let e = err("rate: 95%");
        assert!(e.starts_with("t.yaml:4: tx[0].rate: `95%` is relative to the line, and port p0 (net_null0) has no known line rate"), "{e}");
        assert!(e.contains("declare it with `link:`"), "{e}");
        assert!(err("rate: line").contains("tx[0].rate: `line` is relative"));
        assert!(err("rate: 1G, mode: gap").contains("tx[0].mode: gap mode"));
        assert!(err("rate: 1G, pattern: \"onoff:8\"").contains("tx[0].pattern: on/off"));
        let p = plan_with("rate: 1G");
        assert_eq!(task_line(&p, 0, &up(0), dev).unwrap(), NO_LINE_BPS);
        assert_eq!(
            task_line(&p, 0, &up(1_000_000_000), dev).unwrap(),
            1_000_000_000
        );
        let p = plan_with("rate: 95%");
        assert_eq!(
            task_line(&p, 0, &up(25_000_000_000), dev).unwrap(),
            25_000_000_000
        );
    }
}
