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
//!
//! In a virtual machine the host can also take the CPU away from the
//! guest, and the guest's scheduler does not see it: the thread counts as
//! running. A guest kernel with a paravirtual steal clock (KVM, Xen,
//! Hyper-V) counts that time per CPU as *steal* (`/proc/stat`, the eighth
//! number of a `cpuN` line, in USER_HZ ticks of 10 ms). A worker reads the
//! steal of the CPU it runs on (`/proc/thread-self/stat`, field 39) at its
//! start and end too: the time stolen from that CPU over the run counts
//! as descheduled as well. A difference of `d` ticks means between `d - 1`
//! and `d + 1` ticks were stolen (the readings fall anywhere within a
//! tick), so the lower bound, `d - 1` ticks, is what counts: a run is
//! never called descheduled for a tick boundary it happened to cross, and
//! a stall shorter than two ticks (20 ms) may not show.
#![forbid(unsafe_code)]

use std::time::Instant;

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

/// The calling thread's status line (`processor` is its 39th field).
pub const THREAD_STAT_PATH: &str = "/proc/thread-self/stat";
/// The kernel's CPU time counters, a `cpuN` line per CPU.
pub const PROC_STAT_PATH: &str = "/proc/stat";
/// Nanoseconds in one USER_HZ tick of `/proc/stat` (USER_HZ is 100 on
/// every architecture Linux runs DPDK on).
pub const TICK_NS: u64 = 10_000_000;

/// The CPU a thread last ran on, from the text of its
/// `/proc/<pid>/task/<tid>/stat`: field 39, counted after the command
/// name's closing parenthesis (the name may hold spaces and parentheses).
pub fn parse_processor(text: &str) -> Option<u32> {
    let (_, rest) = text.rsplit_once(')')?;
    // Fields 3.. follow the name: the processor is the 37th of them.
    rest.split_ascii_whitespace().nth(36)?.parse().ok()
}

/// The steal ticks of CPU `cpu` in the text of `/proc/stat`: the eighth
/// number of its `cpuN` line; `None` when the line or the field is
/// missing (a kernel before 2.6.11, or no such CPU).
pub fn parse_steal(text: &str, cpu: u32) -> Option<u64> {
    let name = format!("cpu{cpu}");
    let line = text
        .lines()
        .find(|l| l.split_ascii_whitespace().next() == Some(name.as_str()))?;
    line.split_ascii_whitespace().nth(8)?.parse().ok()
}

/// The CPU the calling thread runs on and that CPU's steal ticks now.
fn read_steal() -> Option<(u32, u64)> {
    steal_of_thread(THREAD_STAT_PATH)
}

/// The CPU of the thread whose status line is at `stat_path`, and that
/// CPU's steal ticks now.
fn steal_of_thread(stat_path: &str) -> Option<(u32, u64)> {
    let cpu = parse_processor(&std::fs::read_to_string(stat_path).ok()?)?;
    Some((cpu, read_steal_of(cpu)?))
}

/// The calling thread's kernel id (`/proc/thread-self` links to
/// `PID/task/TID`).
pub fn thread_id() -> Option<u64> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// One reading of another thread of this process, taken from the
/// reporter: its counters, its CPU's steal, and when.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    at: Instant,
    stat: SchedStat,
    steal: Option<(u32, u64)>,
}

impl Reading {
    /// Thread `tid` of this process now; `None` when it has ended or the
    /// kernel keeps no counters.
    pub fn of(tid: u64) -> Option<Reading> {
        let dir = format!("/proc/self/task/{tid}");
        let stat = parse(&std::fs::read_to_string(format!("{dir}/schedstat")).ok()?)?;
        Some(Reading {
            at: Instant::now(),
            stat,
            steal: steal_of_thread(&format!("{dir}/stat")),
        })
    }

    /// The figures from `earlier` to this reading (the steal counted when
    /// the thread stayed on one CPU).
    pub fn since(&self, earlier: &Reading) -> CpuTime {
        let wall_ns = u64::try_from(self.at.duration_since(earlier.at).as_nanos()).unwrap_or(0);
        let steal = match (earlier.steal, self.steal) {
            (Some((a, x)), Some((b, y))) if a == b => y.saturating_sub(x),
            _ => 0,
        };
        CpuTime::between(earlier.stat, self.stat, steal, wall_ns)
    }
}

/// The steal ticks of `cpu` now.
fn read_steal_of(cpu: u32) -> Option<u64> {
    parse_steal(&std::fs::read_to_string(PROC_STAT_PATH).ok()?, cpu)
}

pub use crate::stats::CpuTime;

impl CpuTime {
    /// The figures between two readings `wall_ns` apart, the steal count
    /// of the thread's CPU `steal_ticks` higher at the second.
    pub fn between(start: SchedStat, end: SchedStat, steal_ticks: u64, wall_ns: u64) -> CpuTime {
        let wait_ns = end.wait_ns.saturating_sub(start.wait_ns);
        let stolen_ns = (steal_ticks.saturating_sub(1))
            .saturating_mul(TICK_NS)
            .min(wall_ns);
        CpuTime {
            wall_ns,
            run_ns: end.run_ns.saturating_sub(start.run_ns),
            wait_ns,
            timeslices: end.timeslices.saturating_sub(start.timeslices),
            stolen_ns,
            descheduled_pct: descheduled_pct(wait_ns.saturating_add(stolen_ns), wall_ns),
        }
    }
}

/// `wait_ns` (the time kept off the CPU) as a share of `wall_ns`, in
/// percent, at most 100; 0 for an empty span.
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
    /// The thread's CPU and its steal ticks then.
    steal: Option<(u32, u64)>,
}

impl Start {
    /// Reads the calling thread's counters now (call on the worker's own
    /// thread, pinned to its CPU, before its loop).
    pub fn now() -> Start {
        Start {
            stat: read(),
            steal: read_steal(),
            at: Instant::now(),
        }
    }

    /// The figures since [`Start::now`] (call on the same thread, after
    /// its loop); `None` where the kernel keeps no counters. The steal is
    /// that of the CPU the thread ran on at the start.
    pub fn finish(&self) -> Option<CpuTime> {
        let wall_ns = u64::try_from(self.at.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let stolen = self
            .steal
            .and_then(|(cpu, before)| read_steal_of(cpu).map(|now| now.saturating_sub(before)));
        Some(CpuTime::between(
            self.stat?,
            read()?,
            stolen.unwrap_or(0),
            wall_ns,
        ))
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
        let t = CpuTime::between(start, end, 0, 1_000_000);
        assert_eq!(
            t,
            CpuTime {
                wall_ns: 1_000_000,
                run_ns: 600_000,
                wait_ns: 400_000,
                timeslices: 200,
                stolen_ns: 0,
                descheduled_pct: 40.0
            }
        );
        assert_eq!(descheduled_pct(0, 0), 0.0);
        assert_eq!(descheduled_pct(5, 4), 100.0);
    }

    #[test]
    fn stolen_ticks_count_as_descheduled() {
        let start = SchedStat {
            run_ns: 0,
            wait_ns: 0,
            timeslices: 1,
        };
        let end = SchedStat {
            run_ns: 2_000_000_000,
            wait_ns: 100_000_000,
            timeslices: 2,
        };
        // 2 s, of which 0.1 s waiting for the CPU, and the steal count 4
        // ticks higher: at least 3 ticks (30 ms) taken by the host,
        // (100 + 30) / 2000 = 6.5 %.
        let t = CpuTime::between(start, end, 4, 2_000_000_000);
        assert_eq!(t.stolen_ns, 30_000_000);
        assert_eq!(t.wait_ns, 100_000_000);
        assert_eq!(t.descheduled_pct, 6.5);
        // One tick more may be a boundary crossed with nothing stolen.
        for ticks in [0, 1] {
            let none = CpuTime::between(start, end, ticks, 2_000_000_000);
            assert_eq!(none.stolen_ns, 0, "{ticks}");
            assert_eq!(none.descheduled_pct, 5.0, "{ticks}");
        }
        // Never more than the span.
        let short = CpuTime::between(start, start, 3, 11_000_000);
        assert_eq!(short.stolen_ns, 11_000_000);
        assert_eq!(short.descheduled_pct, 100.0);
    }

    #[test]
    fn the_processor_is_field_39_after_the_name() {
        let line = "16249 (cat) R 16090 16090 1158 0 -1 4194304 125 0 0 0 0 0 0 0 20 0 1 0 \
                    796283 3133440 388 18446744073709551615 94380441325568 94380441345449 \
                    140737062467632 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94380441361456";
        assert_eq!(parse_processor(line), Some(1));
        // A name with spaces and parentheses does not shift the fields.
        let odd = line
            .replace("(cat)", "(a (b) c)")
            .replace(" 17 1 0", " 17 7 0");
        assert_eq!(parse_processor(&odd), Some(7));
        assert_eq!(parse_processor("1 (x) R 2 3"), None);
        assert_eq!(parse_processor("no name"), None);
    }

    #[test]
    fn steal_is_the_eighth_number_of_the_cpu_s_line() {
        let stat = "cpu  227074 88682 42503 1205298 1906 0 2349 11438 0 0\n\
                    cpu0 100913 42645 23151 616783 518 0 42 5685 0 0\n\
                    cpu1 126161 46037 19351 588515 1387 0 2307 5752 0 0\n\
                    cpu10 1 2 3 4 5 6 7 99 0 0\n\
                    intr 12345\n";
        assert_eq!(parse_steal(stat, 0), Some(5685));
        assert_eq!(parse_steal(stat, 1), Some(5752));
        assert_eq!(parse_steal(stat, 10), Some(99));
        assert_eq!(parse_steal(stat, 2), None);
        // A kernel that keeps no steal column.
        assert_eq!(parse_steal("cpu0 1 2 3 4 5 6 7\n", 0), None);
        assert_eq!(parse_steal("cpu0 1 2 3 4 5 6 7 x\n", 0), None);
    }

    #[test]
    fn this_thread_s_cpu_and_its_steal_can_be_read() {
        // Read between two independent readings of the same files: the
        // thread's CPU as they give it (when it did not move meanwhile)
        // and a steal count between theirs (the counter only grows).
        let independent = || {
            let stat = std::fs::read_to_string(THREAD_STAT_PATH).unwrap();
            let after = stat.rsplit_once(')').unwrap().1;
            let cpu: u32 = after.split_whitespace().nth(36).unwrap().parse().unwrap();
            let all = std::fs::read_to_string(PROC_STAT_PATH).unwrap();
            let line = (all.lines())
                .find(|l| l.starts_with(&format!("cpu{cpu} ")))
                .unwrap();
            let steal: u64 = line.split_whitespace().nth(8).unwrap().parse().unwrap();
            (cpu, steal)
        };
        for _ in 0..100 {
            let (cpu0, before) = independent();
            let (cpu, steal) = read_steal().expect("/proc/thread-self/stat and /proc/stat");
            let of = read_steal_of(cpu0).expect("the CPU's steal");
            let (cpu1, after) = independent();
            if cpu0 != cpu1 || cpu != cpu0 {
                continue; // the thread moved between the readings
            }
            assert!(
                (before..=after).contains(&steal),
                "{before} {steal} {after}"
            );
            assert!((before..=after).contains(&of), "{before} {of} {after}");
            assert_eq!(read_steal_of(u32::MAX), None, "no such CPU");
            return;
        }
        panic!("the thread moved between every pair of readings");
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
