//! The human summary `landspeed run` prints after its interval lines:
//! what was sent and received, each task, the ports' set-up, the limits
//! verdict and every warning, from one [`RunResult`].

use std::fmt::Write as _;

use super::bytes_str;
use crate::limits::verdict::Verdict;
use crate::result::{
    descheduled_text, pmd_bytes_expected, reorder_detail, LineSource, PortResult, RunResult,
    RxResult, RxTaskResult, TxResult, TxTaskResult,
};
use crate::units::group;

/// The human summary printed after the interval lines.
pub fn summary(r: &RunResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - -"
    );
    if let Some(tx) = &r.tx {
        tx_lines(&mut s, tx, r.elapsed_s);
    }
    if let Some(rx) = &r.rx {
        rx_lines(&mut s, rx, r.elapsed_s);
        timestamp_lines(&mut s, &r.ports);
    }
    for p in &r.ports {
        if let Some(setup) = &p.setup {
            let _ = writeln!(s, "      port {} ({}): {}", p.name, p.driver, setup.line());
        }
    }
    if let Some(v) = &r.verdict {
        verdict_lines(&mut s, v);
    }
    if r.mbufs_leaked > 0 {
        let _ = writeln!(
            s,
            "warning: {} mbufs were not back in their pools after the ports closed",
            r.mbufs_leaked
        );
    }
    s.push_str(&r.outcome.warning_lines());
    s
}

/// The `[TX]` part of the summary.
fn tx_lines(s: &mut String, tx: &TxResult, elapsed_s: f64) {
    let _ = writeln!(
        s,
        "[TX]  0.00-{:.2} sec  {} frames  {}  L1 {:.4} Gbit/s  L2 {:.4} Gbit/s  payload {:.4} Gbit/s  {:.4} Mpps",
        elapsed_s,
        tx.frames,
        bytes_str(tx.bytes),
        tx.achieved.l1_bps / 1e9,
        tx.achieved.l2_bps / 1e9,
        tx.achieved.payload_bps / 1e9,
        tx.achieved.fps / 1e6
    );
    let _ = writeln!(
        s,
        "      PMD counted {} frames sent ({}), {}, {} errors",
        tx.pmd_frames,
        pmd_agreement(tx),
        pmd_bytes_agreement(tx),
        tx.pmd_errors
    );
    for t in &tx.tasks {
        tx_task_lines(s, t);
    }
    for st in &tx.streams {
        let _ = writeln!(
            s,
            "      stream {} ({}): {} frames, {}",
            st.id,
            st.name,
            st.frames,
            bytes_str(st.bytes)
        );
    }
}

/// How the PMD's count compares with the frames landspeed handed it: data
/// frames, and gap frames in gap mode.
fn pmd_agreement(tx: &TxResult) -> String {
    let ours = tx.frames + tx.gap_frames;
    let what = if tx.gap_frames > 0 {
        format!("{} data + {} gap frames", tx.frames, tx.gap_frames)
    } else {
        format!("{} frames", tx.frames)
    };
    if tx.pmd_frames == ours {
        if tx.gap_frames > 0 {
            format!("agrees: {what}")
        } else {
            "agrees".to_string()
        }
    } else {
        let d = tx.pmd_frames as i128 - ours as i128;
        format!("DIFFERS from {what} by {d:+}")
    }
}

/// How the PMD's byte count compares with the bytes landspeed handed it
/// (data and gap frames, less the FCS the PMD does not count).
fn pmd_bytes_agreement(tx: &TxResult) -> String {
    let ours = pmd_bytes_expected(
        tx.frames.saturating_add(tx.gap_frames),
        tx.bytes.saturating_add(tx.gap_bytes),
    );
    match tx.pmd_bytes_agree {
        None => "no bytes counted".to_string(),
        Some(true) => format!("{} bytes (agrees)", tx.pmd_bytes),
        Some(false) => {
            let d = tx.pmd_bytes as i128 - ours as i128;
            format!(
                "{} bytes (DIFFERS from {ours} without FCS by {d:+})",
                tx.pmd_bytes
            )
        }
    }
}

/// One TX lcore's lines of the summary.
fn tx_task_lines(s: &mut String, t: &TxTaskResult) {
    let _ = writeln!(
        s,
        "      lcore {} port {} queue {}: target {} {}/s, achieved {:.4} % ({:.4} Gbit/s L1, {:.0} frames/s), {:.0} cycles/frame, busy {:.1} %{}",
        t.lcore,
        t.port,
        t.queue,
        t.target_per_sec,
        t.target_layer,
        t.achieved_pct,
        t.achieved.l1_bps / 1e9,
        t.achieved.fps,
        t.cycles_per_frame,
        t.busy_pct,
        descheduled_text(&t.cpu_time)
    );
    match t.line_pct {
        Some(pct) => {
            let _ = writeln!(
                s,
                "        {pct:.3} % of the {:.3} Gbit/s line rate (L1, {})",
                t.line_bps as f64 / 1e9,
                t.line_source.as_str()
            );
        }
        None if t.line_source == LineSource::Unknown => {
            let _ = writeln!(
                s,
                "        no line rate: the port reports no link speed and the profile declares none"
            );
        }
        None => {
            let _ = writeln!(s, "        no line rate: virtual device");
        }
    }
    if t.target_met == Some(false) {
        let _ = writeln!(
            s,
            "        target missed over {:.3} s: the port refused {} frames, mbuf pool empty {} times",
            t.span_s, t.refused, t.alloc_failed
        );
    }
    if t.schedule_kept {
        let _ = writeln!(s, "        {}", t.pace.one_line());
    } else {
        let _ = writeln!(
            s,
            "        {} mode keeps no schedule: frames go as fast as the port takes them; gap mean {:.1} ns sd {:.1} ns",
            t.mode, t.pace.gap_ns.mean, t.pace.gap_ns.stddev
        );
    }
    if t.alloc_failed > 0 {
        let _ = writeln!(
            s,
            "        mbuf pool empty {} times (the PMD held every mbuf; retried)",
            t.alloc_failed
        );
    }
    if let Some(l1) = t.link_paced_l1_bps {
        let _ = writeln!(
            s,
            "        gap frames: {} ({}); on a line-rate link the data would leave at {:.4} Gbit/s L1",
            t.gap_frames,
            bytes_str(t.gap_bytes),
            l1 / 1e9
        );
    }
}

/// The `[RX]` part of the summary.
fn rx_lines(s: &mut String, rx: &RxResult, elapsed_s: f64) {
    let _ = writeln!(
        s,
        "[RX]  0.00-{:.2} sec  {} frames  {}  L2 {:.4} Gbit/s  {:.4} Mpps  good {}  lost {}  reordered {}{}  duplicated {}  corrupt {}  foreign {}",
        elapsed_s,
        rx.frames,
        bytes_str(rx.bytes),
        rx.achieved.l2_bps / 1e9,
        rx.achieved.fps / 1e6,
        rx.good,
        rx.lost,
        rx.reordered,
        reorder_detail(rx.reordered_ratio, rx.reorder_extent_max),
        rx.duplicated,
        rx.corrupt,
        rx.foreign
    );
    if rx.foreign > 0 {
        let _ = writeln!(
            s,
            "      foreign {}: {}",
            rx.foreign,
            rx.foreign_breakdown.text()
        );
    }
    if rx.overflow > 0 {
        let _ = writeln!(
            s,
            "      overflow {} frames of {} streams not tracked (an RX lcore tracks at most {} streams; not counted lost)",
            rx.overflow,
            rx.overflow_streams,
            crate::rx::MAX_STREAMS
        );
    }
    let _ = writeln!(
        s,
        "      PMD: ipackets {} imissed {} ierrors {} rx_nombuf {}",
        rx.pmd.ipackets, rx.pmd.imissed, rx.pmd.ierrors, rx.pmd.rx_nombuf
    );
    for st in &rx.streams {
        let lat = match &st.latency {
            Some(p) if p.count > 0 => match st.latency_source.as_deref() {
                Some(src) if src != "software" => format!("latency {} ({src})", p.short()),
                _ => format!("latency {}", p.short()),
            },
            _ => format!("inter-arrival {}", st.interarrival.short()),
        };
        let _ = writeln!(
            s,
            "      stream {}: {} frames, lost {}, reordered {}{}, duplicated {}, corrupt {}, {}",
            st.id,
            st.frames,
            st.seq.lost,
            st.seq.reordered,
            reorder_detail(st.seq.reordered_ratio(), st.seq.reorder_extent_max),
            st.seq.duplicated,
            st.corrupt_total,
            lat
        );
    }
    for t in &rx.tasks {
        rx_task_lines(s, t);
    }
    let _ = writeln!(s, "      latency: {}", rx.latency_kind);
}

/// One RX lcore's cost, and what its capture kept.
fn rx_task_lines(s: &mut String, t: &RxTaskResult) {
    let _ = writeln!(
        s,
        "      RX lcore {}: {:.1} cycles/frame, {:.3} cycles/byte, busy {:.1} %, could sustain {:.3} Mframes/s{}",
        t.lcore,
        t.cycles_per_frame,
        t.cycles_per_byte,
        t.utilisation_pct,
        t.max_fps / 1e6,
        descheduled_text(&t.cpu_time)
    );
    if let Some(c) = &t.capture {
        let _ = writeln!(
            s,
            "        capture: kept {} of {} frames received (at most {} bytes each) in {}",
            group(c.frames_kept as f64),
            group(c.frames_seen as f64),
            c.snap,
            c.file
        );
    }
}

/// One line per receiving port: where its arrival and departure times
/// came from, what it offered, and the NIC clock's map when used.
fn timestamp_lines(s: &mut String, ports: &[PortResult]) {
    let yn = |b: bool| if b { "yes" } else { "no" };
    for p in ports {
        let Some(t) = &p.timestamps else { continue };
        let clock = match &t.nic_clock {
            Some(c) => format!(
                "; NIC clock {:.0} Hz, map residual {:.0} ns over {} pairs",
                c.hz, c.residual_ns, c.pairs
            ),
            None => String::new(),
        };
        let tx_clock = match &t.tx_clock {
            Some(c) => format!(
                "; 1588 clock map residual {:.0} ns over {} pairs",
                c.residual_ns, c.pairs
            ),
            None => String::new(),
        };
        let probe = match t.tx_latch_probe {
            Some(false) => "; TX latch probe: nothing latched, software departures",
            _ => "",
        };
        let _ = writeln!(
            s,
            "      timestamps {}: rx {}, tx {} (asked {}{}; {} offers rx-timestamp {}, read-clock {}, timesync {}){clock}{tx_clock}{probe}",
            p.name,
            t.rx.name(),
            t.tx.name(),
            t.asked.name(),
            t.tx_asked.map_or(String::new(), |w| format!(", tx {}", w.name())),
            p.driver,
            yn(t.offered.rx_timestamp),
            yn(t.offered.read_clock),
            yn(t.offered.timesync),
        );
    }
}

/// The verdict's lines of the summary.
fn verdict_lines(s: &mut String, v: &Verdict) {
    let _ = writeln!(s, "verdict: {} bound the run", v.binding.as_str());
    let _ = writeln!(s, "      {}", v.explanation);
    for c in &v.ceilings {
        let head = c
            .headroom_pct
            .map(|h| format!("{h:+.1} % vs delivered"))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "      ceiling {:<8} {:<44} {:>12.0} frames/s {:>9.3} Gbit/s L2  {head}",
            c.limit.as_str(),
            c.name,
            c.fps,
            c.bps_l2 / 1e9
        );
    }
}
