//! How much of a worker's run its thread was kept off its CPU.
//!
//! A worker lcore polls without sleeping, so every nanosecond the
//! scheduler gives its CPU to another thread is time the lcore wanted to
//! run and could not. Its cycle counts (TSC deltas) then include time it
//! was not running, and its cost per frame and utilisation mean nothing.
//!
//! The kernel keeps, per thread, the time it ran on a CPU, the time it
//! spent runnable but waiting for one, and how many timeslices it got
//! (`/proc/thread-self/schedstat`, three numbers: run ns, wait ns,
//! timeslices; see the kernel's Documentation/scheduler/sched-stats).
//! A worker reads it once when it starts and once when it ends ([`Start`]),
//! never per frame; the share of its wall-clock span spent waiting is its
//! *descheduled* share. Time the thread blocked on its own (I/O in a pcap
//! device) is not counted: only waiting for a CPU is.
#![forbid(unsafe_code)]

use std::time::Instant;

use serde::{Deserialize, Serialize};

/// The calling thread's scheduler counters.
pub const SCHEDSTAT_PATH: &str = "/proc/thread-self/schedstat";

/// One reading of a thread's scheduler counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedStat {
    /// Nanoseconds the thread ran on a CPU.
    pub run_ns: u64,
    /// Nanoseconds it was runnable but waited for a CPU.
    pub wait_ns: u64,
    /// Timeslices it ran.
    pub timeslices: u64,
}

/// Parses the text of a schedstat file: exactly three unsigned integers
/// (`run_ns wait_ns timeslices`); `None` for anything else.
pub fn parse(text: &str) -> Option<SchedStat> {
    let mut words = text.split_ascii_whitespace().map(|w| w.parse::<u64>().ok());
    let stat = SchedStat {
        run_ns: words.next()??,
        wait_ns: words.next()??,
        timeslices: words.next()??,
    };
    words.next().is_none().then_some(stat)
}

/// The calling thread's counters, or `None` where the kernel does not
/// keep them (no schedstat file).
pub fn read() -> Option<SchedStat> {
    let text = std::fs::read_to_string(SCHEDSTAT_PATH).ok()?;
    parse(&text)
}

/// What a worker's thread did over its run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuTime {
    /// Wall-clock span of the worker, start to end, in ns.
    pub wall_ns: u64,
    /// Of it, ns the thread ran on its CPU.
    pub run_ns: u64,
    /// Of it, ns the thread was runnable but another thread had its CPU.
    pub wait_ns: u64,
    /// Timeslices the thread ran (1 when nothing else wanted its CPU).
    pub timeslices: u64,
    /// `wait_ns` as a share of `wall_ns`, in percent (0..=100).
    pub descheduled_pct: f64,
}

impl CpuTime {
    /// The figures between two readings `wall_ns` apart.
    pub fn between(start: SchedStat, end: SchedStat, wall_ns: u64) -> CpuTime {
        let wait_ns = end.wait_ns.saturating_sub(start.wait_ns);
        CpuTime {
            wall_ns,
            run_ns: end.run_ns.saturating_sub(start.run_ns),
            wait_ns,
            timeslices: end.timeslices.saturating_sub(start.timeslices),
            descheduled_pct: descheduled_pct(wait_ns, wall_ns),
        }
    }
}

/// `wait_ns` as a share of `wall_ns`, in percent, at most 100; 0 for an
/// empty span.
pub fn descheduled_pct(wait_ns: u64, wall_ns: u64) -> f64 {
    if wall_ns == 0 {
        0.0
    } else {
        (wait_ns as f64 * 100.0 / wall_ns as f64).min(100.0)
    }
}

/// A worker's reading at its start; [`Start::finish`] at its end.
#[derive(Clone, Copy, Debug)]
pub struct Start {
    at: Instant,
    stat: Option<SchedStat>,
}

impl Start {
    /// Reads the calling thread's counters now (call on the worker's own
    /// thread, before its loop).
    pub fn now() -> Start {
        Start {
            stat: read(),
            at: Instant::now(),
        }
    }

    /// The figures since [`Start::now`] (call on the same thread, after
    /// its loop); `None` where the kernel keeps no counters.
    pub fn finish(&self) -> Option<CpuTime> {
        let wall_ns = u64::try_from(self.at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        Some(CpuTime::between(self.stat?, read()?, wall_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_counters() {
        let s = parse("123456789 2500 17\n").unwrap();
        assert_eq!(
            s,
            SchedStat {
                run_ns: 123_456_789,
                wait_ns: 2_500,
                timeslices: 17
            }
        );
        assert_eq!(parse("0 190718 1").unwrap().wait_ns, 190_718);
    }

    #[test]
    fn refuses_anything_else() {
        for bad in ["", "1 2", "1 2 3 4", "1 -2 3", "a b c", "1 2 3x"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn descheduled_share_is_the_wait_over_the_span() {
        let start = SchedStat {
            run_ns: 1_000,
            wait_ns: 500,
            timeslices: 3,
        };
        let end = SchedStat {
            run_ns: 601_000,
            wait_ns: 400_500,
            timeslices: 203,
        };
        let t = CpuTime::between(start, end, 1_000_000);
        assert_eq!(
            t,
            CpuTime {
                wall_ns: 1_000_000,
                run_ns: 600_000,
                wait_ns: 400_000,
                timeslices: 200,
                descheduled_pct: 40.0
            }
        );
        assert_eq!(descheduled_pct(0, 0), 0.0);
        assert_eq!(descheduled_pct(5, 4), 100.0);
    }

    #[test]
    fn this_thread_can_be_read() {
        // Linux keeps the counters (CONFIG_SCHED_INFO); a thread that
        // spins for 100 ms ran (the kernel updates its run time at least
        // every scheduler tick).
        let start = Start::now();
        let spin = Instant::now();
        while spin.elapsed().as_millis() < 100 {
            std::hint::spin_loop();
        }
        let t = start.finish().expect("schedstat");
        assert!(t.run_ns > 0 && t.wall_ns >= 100_000_000, "{t:?}");
        assert!((0.0..=100.0).contains(&t.descheduled_pct));
    }
}
