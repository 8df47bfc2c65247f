//! The lcores' shares as a run goes: each worker's descheduled share
//! (time its thread waited for a CPU, or had it stolen) and each RX
//! lcore's busy share (cycles on polls that returned frames) over the
//! latest interval. The reporter reads them, never an lcore: a worker
//! publishes its thread id once when it starts, an RX lcore its idle
//! cycles on each empty poll.

use crate::counter::{Padded, RxLive, TxLive};
use crate::dpdk::tsc;

use super::sched::{CpuTime, Reading};

/// What the previous interval left, per worker.
#[derive(Default)]
pub(super) struct Shares {
    tx: Vec<Option<Reading>>,
    rx: Vec<Option<Reading>>,
    /// Each RX lcore's idle cycles and the TSC at the previous reading.
    rx_idle: Vec<Option<(u64, u64)>>,
}

/// One interval's shares, per task, in the plan's order (`None`: not
/// known yet, or not known at all).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Now {
    pub tx_descheduled: Vec<Option<f64>>,
    pub rx_descheduled: Vec<Option<f64>>,
    pub rx_busy: Vec<Option<f64>>,
}

impl Shares {
    /// The shares since the previous call (the first call of a worker
    /// only starts its interval).
    pub(super) fn update(
        &mut self,
        tx: &[std::sync::Arc<Padded<TxLive>>],
        rx: &[std::sync::Arc<Padded<RxLive>>],
    ) -> Now {
        self.tx.resize(tx.len(), None);
        self.rx.resize(rx.len(), None);
        self.rx_idle.resize(rx.len(), None);
        let now = tsc::now();
        let mut out = Now::default();
        for (l, prev) in tx.iter().zip(&mut self.tx) {
            out.tx_descheduled.push(descheduled(prev, l.tid.get()));
        }
        for ((l, prev), idle) in rx.iter().zip(&mut self.rx).zip(&mut self.rx_idle) {
            out.rx_descheduled.push(descheduled(prev, l.tid.get()));
            let cur = (l.idle_cycles.get(), now);
            out.rx_busy.push(idle.and_then(|p| busy_share(p, cur)));
            *idle = (l.tid.get() != 0).then_some(cur);
        }
        out
    }
}

/// Thread `tid`'s descheduled share (0..=1) since `prev`, which becomes
/// the reading now; `None` before the thread started or where the kernel
/// keeps no counters.
fn descheduled(prev: &mut Option<Reading>, tid: u64) -> Option<f64> {
    if tid == 0 {
        return None;
    }
    let cur = Reading::of(tid);
    let share = match (prev.as_ref(), cur.as_ref()) {
        (Some(a), Some(b)) => Some(share_of(&b.since(a))),
        _ => None,
    };
    *prev = cur;
    share
}

/// A span's descheduled share, 0..=1.
fn share_of(c: &CpuTime) -> f64 {
    c.descheduled_pct / 100.0
}

/// The busy share (0..=1) between two `(idle cycles, TSC)` readings:
/// what of the TSC's advance was not spent on empty polls.
fn busy_share(prev: (u64, u64), cur: (u64, u64)) -> Option<f64> {
    let span = cur.1.checked_sub(prev.1).filter(|&d| d > 0)?;
    let idle = cur.0.saturating_sub(prev.0).min(span);
    Some(1.0 - idle as f64 / span as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_share_is_what_the_empty_polls_left() {
        assert_eq!(busy_share((100, 1_000), (400, 2_000)), Some(0.7));
        assert_eq!(busy_share((100, 1_000), (100, 2_000)), Some(1.0));
        // Idle cycles counted past the reading's TSC (a poll that ended
        // after it) never make the share negative.
        assert_eq!(busy_share((0, 1_000), (5_000, 2_000)), Some(0.0));
        assert_eq!(busy_share((0, 1_000), (0, 1_000)), None, "no time passed");
        assert_eq!(
            busy_share((0, 2_000), (0, 1_000)),
            None,
            "the TSC went back"
        );
    }

    #[test]
    fn a_worker_not_started_has_no_share_and_a_running_one_does() {
        let tx = vec![std::sync::Arc::new(Padded::new(TxLive::default()))];
        let rx = vec![std::sync::Arc::new(Padded::new(RxLive::default()))];
        let mut s = Shares::default();
        let first = s.update(&tx, &rx);
        assert_eq!(first.tx_descheduled, vec![None]);
        assert_eq!(
            (first.rx_descheduled.clone(), first.rx_busy.clone()),
            (vec![None], vec![None])
        );
        // This thread stands for the worker: it has started.
        let me = super::super::sched::thread_id().expect("a thread id");
        tx[0].tid.set(me);
        rx[0].tid.set(me);
        let second = s.update(&tx, &rx);
        assert_eq!(second.tx_descheduled, vec![None], "its interval starts now");
        std::thread::sleep(std::time::Duration::from_millis(5));
        rx[0].idle_cycles.set(0);
        let third = s.update(&tx, &rx);
        let d = third.tx_descheduled[0].expect("a share");
        assert!((0.0..=1.0).contains(&d), "{d}");
        assert_eq!(
            third.rx_busy,
            vec![Some(1.0)],
            "no empty poll: busy throughout"
        );
    }
}
