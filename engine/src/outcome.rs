//! How a run ended and whether its figures can be taken as the device's.
//!
//! A figure landspeed prints is a promise: a run that missed its target,
//! lost its link, was descheduled or was interrupted says so in three
//! places that always agree: the summary (one `warning:` line per
//! [`Problem`]), the JSON (`outcome`), and the exit status
//! ([`Outcome::exit_status`], the table in docs/user-guide.md).
#![forbid(unsafe_code)]

use std::fmt;

use serde::{Deserialize, Serialize};

/// The exit statuses of `landspeed`. docs/user-guide.md lists them; a
/// change here changes that table.
pub mod exit {
    /// The run completed and nothing in [`super::Outcome`] casts doubt on
    /// its figures (or a command other than `run` succeeded).
    pub const OK: u8 = 0;
    /// An error: bad input, a device that failed, an output that could not
    /// be written. One `landspeed: error:` line on standard error.
    pub const ERROR: u8 = 1;
    /// The command line itself was wrong (clap's own status).
    pub const USAGE: u8 = 2;
    /// The run completed and its results were written, but at least one
    /// [`super::Problem`] says its figures are not a clean measurement of
    /// the device (target missed, link lost, core descheduled, ...).
    pub const SHORTFALL: u8 = 3;
    /// A signal stopped the run before its duration; the summary and the
    /// JSON were written and say `complete: false`.
    pub const INTERRUPTED: u8 = 4;
    /// `landspeed rfc2544` completed cleanly but the device failed at
    /// least one of the profile's acceptance criteria.
    pub const FAILED: u8 = 5;
}

/// One reason the run's figures are not a clean measurement of the device.
/// Each is printed as a `warning:` line and kept in the JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Problem {
    /// A free-form problem (kept for results written by other versions).
    Other {
        /// What went wrong, in words.
        detail: String,
    },
    /// A paced TX task sent less than its target over the time it ran
    /// (its first departure time to its stop), by more than the tolerance
    /// of docs/pacing.md ("When a target counts as met").
    TargetMissed {
        /// The task's lcore.
        lcore: u32,
        /// Its DPDK port id.
        port: u16,
        /// The target's layer (`L1`, `L2`, `payload`, `frames`).
        layer: String,
        /// The target, in that layer's unit per second.
        target_per_sec: u64,
        /// What it achieved, in the same unit per second.
        achieved_per_sec: f64,
        /// Achieved ÷ target, in percent.
        achieved_pct: f64,
        /// Frames the port refused (each retried until taken or stopped).
        refused: u64,
        /// Times a batch of mbufs could not be allocated (pool empty).
        alloc_failed: u64,
    },
    /// A port's link was seen down during the run (polled by the report
    /// loop every few tens of milliseconds).
    LinkDown {
        /// The profile's name of the port.
        port: String,
        /// What the run did on it: `TX`, `RX` or `TX+RX`.
        side: String,
        /// Seconds into the run when it was first seen down.
        down_at_s: f64,
        /// Seconds it was down in all.
        down_s: f64,
        /// Times it went down.
        outages: u32,
        /// It was still down when the run ended.
        down_at_end: bool,
    },
    /// A worker lcore's thread waited for its CPU (another thread had it)
    /// for more than a few percent of its run: its cycle counts include
    /// time it did not run, so its cost per frame, its busy share and any
    /// CPU verdict built on them are not trustworthy.
    Descheduled {
        /// `TX` or `RX`.
        role: String,
        /// The lcore.
        lcore: u32,
        /// Share of its run spent waiting for a CPU, in percent.
        descheduled_pct: f64,
        /// Nanoseconds it waited.
        wait_ns: u64,
        /// Nanoseconds the virtual machine's host took its CPU (steal).
        #[serde(default)]
        stolen_ns: u64,
        /// Nanoseconds its run lasted.
        wall_ns: u64,
    },
    /// A `--capture` file is shorter than the frames its port sent need:
    /// writing it failed (a full disk, a file size limit) and the frames
    /// beyond are not in it. The pcap driver counts them as sent anyway.
    CaptureShort {
        /// The capture file.
        file: String,
        /// Frames the pcap driver counted as sent (`opackets`).
        frames_sent: u64,
        /// The file size those frames need (headers included).
        bytes_expected: u64,
        /// The file's size after the run.
        bytes_written: u64,
    },
    /// The peer of a shared-memory (memif) TX port disconnected while the
    /// run was sending: the senders stopped then, before the duration.
    PeerLeft {
        /// The port (its profile name).
        port: String,
        /// Seconds into the run when its departure was seen.
        at_s: f64,
        /// How it was learned: `notice` (the peer, a landspeed process,
        /// said it was leaving and waited for this run to stop) or `link`
        /// (the link went down); empty in results of older versions.
        #[serde(default)]
        by: String,
    },
    /// Frames of more streams than an RX lcore tracks arrived: those
    /// streams were not checked (their loss, order and integrity are
    /// unknown; they are not counted lost).
    StreamsNotTracked {
        /// Frames of the streams not tracked.
        frames: u64,
        /// Streams not tracked (distinct ids).
        streams: u64,
        /// Streams one RX lcore tracks.
        limit: u64,
    },
    /// A certification figure was capped by the tester (its TX missed the
    /// offered load or its lcore was descheduled), not by the device: the
    /// figure is a lower bound of the device's.
    TesterBound {
        /// The test: `throughput` or `back_to_back`.
        test: String,
        /// The direction measured.
        direction: String,
        /// The frame size, bytes with FCS.
        frame_size: u32,
        /// The figure, in words (`41.992 % of line`).
        figure: String,
        /// Why the nearest failure was the tester's, in words (empty in
        /// results of older versions and for back-to-back).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        why: String,
    },
    /// Frames of a certification trial arrived before their departure by
    /// the tester's clocks (the receiving core's TSC behind the sending
    /// core's, or a NIC's clock mapped onto the TSC): their latency counts
    /// as the least the clock tells, so the trial's minimum is the clocks'
    /// disagreement, not the device's.
    LatencyEarly {
        /// The frames that arrived early.
        frames: u64,
    },
    /// A certification latency row counts fewer trials than the settings
    /// asked for: a trial lost frames at the throughput rate (or came in
    /// corrupt) on every try, so it was left out. The device's own doing,
    /// not the tester's; the figures stand on the trials that counted.
    LatencyLeftOut {
        /// The direction measured.
        direction: String,
        /// The frame size, bytes with FCS (0 for IMIX).
        frame_size: u32,
        /// Trials that count.
        counted: u32,
        /// Trials the settings asked for.
        asked: u32,
        /// Why the given-up trials were left out, in words.
        why: String,
    },
    /// A certification trial lost frames after its sender fell behind
    /// its schedule by more than the device's queue holds and caught up
    /// with a burst above the trial's rate: the loss may be that burst's,
    /// so the trial is the tester's, not the device's (see
    /// [`crate::certify::model::bunched`]).
    SenderBunched {
        /// The sender's largest schedule error, ns.
        late_max_ns: u64,
        /// Frames it sent more than `queue_ns` behind their departure
        /// times.
        late_frames: u64,
        /// The device's largest queueing delay seen in the trial (its
        /// one-way latency's max less its min), at least 10 µs, ns.
        queue_ns: u64,
        /// Frames the trial lost.
        lost: u64,
    },
    /// The host's TSC is not invariant (`/proc/cpuinfo` lacks
    /// `constant_tsc` or `nonstop_tsc`): departures are scheduled and
    /// cycles counted on a clock whose rate follows the core clock or
    /// stops in idle states, so paced rates and cycles per frame may be
    /// off.
    TscNotInvariant {
        /// The flags missing, in `/proc/cpuinfo`'s spelling.
        missing: Vec<String>,
    },
    /// A physical port's 802.3x flow control could not be turned off (or
    /// its state could not be read): PAUSE frames from the peer may have
    /// throttled the tester, so a low rate or the absence of loss may be
    /// the peer's back-pressure, not the device's figure.
    FlowControlNotOff {
        /// The profile's name for the port.
        port: String,
        /// Its device (PCI address).
        device: String,
        /// Its driver.
        driver: String,
        /// What became of flow control: `not_supported` (the driver has
        /// no flow-control operations), `read_failed` or `still_on`.
        flow_control: String,
    },
    /// A port refused frames it received: it counted them malformed or
    /// too long (`ierrors`, or an extended statistic of the oversize,
    /// undersize, CRC or length class; docs/limits.md, "Port error
    /// counters"). They are neither lost in the network nor dropped by the
    /// host: a frame longer than the port's MTU or buffers, a bad cable,
    /// optics or peer.
    PortRxErrors {
        /// The profile's name for the port.
        port: String,
        /// Its driver.
        driver: String,
        /// Frames refused over the run (at least this many: the largest
        /// of the counters).
        frames: u64,
        /// The counters that say so, by name, with their counts.
        counters: Vec<(String, u64)>,
        /// Seconds into the run when the first interval that counted any
        /// began.
        #[serde(default)]
        first_s: Option<f64>,
        /// The most refused in one interval.
        #[serde(default)]
        peak_per_interval: u64,
    },
    /// A port did not send frames it was handed (`oerrors`, or a TX-error
    /// extended statistic): they count as sent by the sender but never
    /// left the port.
    PortTxErrors {
        /// The profile's name for the port.
        port: String,
        /// Its driver.
        driver: String,
        /// Frames not sent over the run.
        frames: u64,
        /// The counters that say so, by name, with their counts.
        counters: Vec<(String, u64)>,
        /// Seconds into the run when the first interval that counted any
        /// began.
        #[serde(default)]
        first_s: Option<f64>,
        /// The most in one interval.
        #[serde(default)]
        peak_per_interval: u64,
    },
    /// In gap mode the TX ports counted fewer frames sent (`opackets`,
    /// less the frames they counted as errors) than the data and gap
    /// frames handed to them: the NIC or its firmware dropped MAC control
    /// frames (ice and mlx5 firmware may drop PAUSE frames a host sends),
    /// so the gaps between data frames were not the planned ones and the
    /// paced rate was not what the summary's spacing claims.
    GapFramesUnsent {
        /// The TX ports (profile names), comma-separated.
        port: String,
        /// Their drivers, comma-separated.
        driver: String,
        /// Data frames handed to the ports.
        data_frames: u64,
        /// Gap frames handed to the ports.
        gap_frames: u64,
        /// Frames the ports counted as sent (`opackets`).
        counted: u64,
        /// Frames handed and neither counted sent nor counted as errors.
        missing: u64,
    },
    /// A side of a two-host run stamps or reads a clock the kernel does
    /// not report synchronised (`STA_UNSYNC`) and the profile declares no
    /// error for: its one-way latency is not reported (inter-arrival
    /// figures remain).
    ClockNotSynced {
        /// `sender` or `receiver`.
        side: String,
        /// The clock: `CLOCK_REALTIME` or `CLOCK_TAI`.
        clock: String,
        /// The kernel's maximum error of it, ns.
        maxerror_ns: f64,
        /// Why the PTP servo says it is not synchronised, when the kernel
        /// says it is (absent: the kernel says `STA_UNSYNC`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        servo: Option<String>,
    },
}

/// A certification row's frames in words: `1518-byte frames`, or `IMIX
/// frames` for the size 0 an IMIX row carries.
fn frames_of(frame_size: u32) -> String {
    match frame_size {
        0 => "IMIX frames".to_string(),
        z => format!("{z}-byte frames"),
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Exhaustive: a new variant must be given a group; one its group
        // does not word (its `_` arm) prints as its Debug, never as nothing.
        let text = match self {
            Problem::Other { .. }
            | Problem::TargetMissed { .. }
            | Problem::LinkDown { .. }
            | Problem::Descheduled { .. } => self.run_text(),
            Problem::CaptureShort { .. }
            | Problem::PeerLeft { .. }
            | Problem::StreamsNotTracked { .. } => self.traffic_text(),
            Problem::TesterBound { .. }
            | Problem::LatencyEarly { .. }
            | Problem::LatencyLeftOut { .. }
            | Problem::SenderBunched { .. } => self.certify_text(),
            Problem::FlowControlNotOff { .. }
            | Problem::PortRxErrors { .. }
            | Problem::PortTxErrors { .. }
            | Problem::GapFramesUnsent { .. } => self.port_text(),
            Problem::TscNotInvariant { .. } | Problem::ClockNotSynced { .. } => self.clock_text(),
        };
        match text {
            Some(t) => f.write_str(&t),
            None => write!(f, "{self:?}"),
        }
    }
}

impl Problem {
    /// The problem as one line of text, without the `warning: ` prefix.
    pub fn text(&self) -> String {
        self.to_string()
    }

    /// The text of a problem of the run's own: its target, its links, its lcores' CPUs; `None` for the others.
    fn run_text(&self) -> Option<String> {
        Some(match self {
            Problem::Other { detail } => detail.clone(),
            Problem::TargetMissed {
                lcore,
                port,
                layer,
                target_per_sec,
                achieved_per_sec,
                achieved_pct,
                refused,
                alloc_failed,
            } => format!(
                "TX lcore {lcore} (port {port}) missed its target: {target_per_sec} {layer}/s \
                 asked, {achieved_per_sec:.0} achieved ({achieved_pct:.4} %, {:.4} % short); \
                 the port refused {refused} frames, the mbuf pool was empty {alloc_failed} times",
                100.0 - achieved_pct
            ),
            Problem::LinkDown {
                port,
                side,
                down_at_s,
                down_s,
                outages,
                down_at_end,
            } => format!(
                "the link of port {port} ({side}) went down {down_at_s:.2} s into the run: \
                 down {down_s:.2} s in all, {outages} time(s){}",
                if *down_at_end {
                    ", still down at the end"
                } else {
                    ""
                }
            ),
            Problem::Descheduled {
                role,
                lcore,
                descheduled_pct,
                wait_ns,
                stolen_ns,
                wall_ns,
            } => format!(
                "{role} lcore {lcore} was descheduled for {descheduled_pct:.1} % of its run \
                 ({:.3} s of {:.3} s waiting for its CPU, which another thread had{}): \
                 its cycles per frame, its busy share and any CPU verdict are not trustworthy",
                *wait_ns as f64 / 1e9,
                *wall_ns as f64 / 1e9,
                if *stolen_ns > 0 {
                    format!(
                        ", and {:.3} s taken by the virtual machine's host",
                        *stolen_ns as f64 / 1e9
                    )
                } else {
                    String::new()
                }
            ),
            _ => return None,
        })
    }

    /// The text of a problem of what the run sent or kept: its capture, its peer, its streams; `None` for the others.
    fn traffic_text(&self) -> Option<String> {
        Some(match self {
            Problem::CaptureShort {
                file,
                frames_sent,
                bytes_expected,
                bytes_written,
            } => format!(
                "the capture {file} holds {bytes_written} of the {bytes_expected} bytes its \
                 {frames_sent} frames need: writing it failed (disk full or file size limit), \
                 the frames beyond are missing from it"
            ),
            Problem::PeerLeft { port, at_s, by } => format!(
                "the peer of port {port} disconnected {at_s:.3} s into the run{}: \
                 sending stopped there, before the run's duration",
                match by.as_str() {
                    "notice" => " (it said it was leaving)",
                    "link" => " (its link went down)",
                    _ => "",
                }
            ),
            Problem::StreamsNotTracked {
                frames,
                streams,
                limit,
            } => format!(
                "overflow {frames} frames of {streams} streams not tracked: an RX lcore tracks at most {limit} streams, so their loss, order and integrity were not checked (spread the streams over more RX lcores or queues)"
            ),
            _ => return None,
        })
    }

    /// The text of a problem of a certification trial or row: a figure the tester bounded, clocks that disagree, trials left out, a sender that bunched; `None` for the others.
    fn certify_text(&self) -> Option<String> {
        Some(match self {
            Problem::TesterBound {
                test,
                direction,
                frame_size,
                figure,
                why,
            } => {
                let frames = frames_of(*frame_size);
                let claim = match test.as_str() {
                    "throughput" | "back_to_back" => {
                        "is the tester's limit, not the device's (the tester could not offer \
                         more): the device's figure is at least this"
                    }
                    "latency" => {
                        "the others were the tester's on every try and are left out of the \
                         figures"
                    }
                    _ => "is the tester's, not the device's (tried again, still the tester's)",
                };
                let sep = if test == "latency" { ";" } else { "" };
                format!(
                    "{test} of {frames} ({direction}): {figure}{sep} {claim}{}",
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!("; {why}")
                    }
                )
            }
            Problem::LatencyEarly { frames } => format!(
                "{frames} frame(s) arrived before their departure by the tester's clocks (the \
                 receiving core's TSC behind the sending core's, or the NIC's clock mapped \
                 onto it): their latency counts as 0, so the least latency is the clocks' \
                 disagreement, not the device's (run the TX and RX lcores on cores whose \
                 TSCs agree: one socket, an invariant TSC)"
            ),
            Problem::LatencyLeftOut {
                direction,
                frame_size,
                counted,
                asked,
                why,
            } => {
                let frames = frames_of(*frame_size);
                format!(
                    "latency of {frames} ({direction}): {counted} of {asked} latency trials \
                     counted; the others lost frames at the throughput rate (or were corrupt) \
                     on every try and are left out of the figures, so the device did not \
                     carry its throughput rate cleanly every time; {why}"
                )
            }
            Problem::SenderBunched {
                late_max_ns,
                late_frames,
                queue_ns,
                lost,
            } => format!(
                "the sender fell up to {} behind its schedule and caught up in bursts above \
                 the trial's rate: {late_frames} frames left more than {} late, longer than \
                 the device queued any frame, so its {lost} lost frames may be those \
                 bursts', not the device's (the trial is the tester's)",
                crate::units::format_nanos(*late_max_ns as f64),
                crate::units::format_nanos(*queue_ns as f64),
            ),
            _ => return None,
        })
    }

    /// The text of a problem of a port: flow control, frames it refused or did not send, gap frames that never left; `None` for the others.
    fn port_text(&self) -> Option<String> {
        Some(match self {
            Problem::FlowControlNotOff {
                port,
                device,
                driver,
                flow_control,
            } => format!(
                "flow control of port {port} ({device}, {driver}) is not known to be off \
                 ({}): PAUSE frames from its peer may have throttled the sender, so a low \
                 rate or a loss of zero may be the peer's back-pressure; turn PAUSE off on \
                 the peer and the switch (`ethtool -A IFACE autoneg off rx off tx off`) and \
                 check the port's rx_xoff_packets counter",
                match flow_control.as_str() {
                    "not_supported" => "the driver has no flow-control operations",
                    "still_on" => "the driver refused to turn it off",
                    _ => "the driver could not say whether it is on",
                }
            ),
            Problem::PortRxErrors {
                port,
                driver,
                frames,
                counters,
                first_s,
                peak_per_interval,
            } => format!(
                "port {port} ({driver}) refused {frames} received frames ({}){}: it counted \
                 them malformed or too long, so they are the port's, not lost in the network; \
                 check the frame size against its MTU and its peer's, and the cable, optics \
                 and CRC counters",
                counters_text(counters),
                when_text(*first_s, *peak_per_interval)
            ),
            Problem::PortTxErrors {
                port,
                driver,
                frames,
                counters,
                first_s,
                peak_per_interval,
            } => format!(
                "port {port} ({driver}) did not send {frames} frames it was handed ({}){}: \
                 they count as sent but never left the port",
                counters_text(counters),
                when_text(*first_s, *peak_per_interval)
            ),
            Problem::GapFramesUnsent {
                port,
                driver,
                data_frames,
                gap_frames,
                counted,
                missing,
            } => format!(
                "port {port} ({driver}) counted {counted} frames sent of {data_frames} data + \
                 {gap_frames} gap frames handed to it: {missing} never left, so the NIC or its \
                 firmware dropped MAC control frames and the gaps between data frames were not \
                 the planned ones (use `mode: spin` or `burst N` on this port)"
            ),
            _ => return None,
        })
    }

    /// The text of a problem of the host's clocks: a TSC that is not invariant, a clock not synchronised; `None` for the others.
    fn clock_text(&self) -> Option<String> {
        Some(match self {
            Problem::TscNotInvariant { missing } => format!(
                "this CPU's TSC is not invariant (/proc/cpuinfo lacks {}): paced rates and \
                 cycle counts drift with the core clock and its idle states",
                missing.join(" and ")
            ),
            Problem::ClockNotSynced {
                side,
                clock,
                maxerror_ns,
                servo,
            } => format!(
                "the {side}'s {clock} is not synchronised ({}): no one-way latency, \
                 inter-arrival figures only; synchronise it (docs/two-host.md) or declare \
                 its error (clock_error)",
                match servo {
                    Some(why) => why.clone(),
                    None => format!(
                        "the kernel says STA_UNSYNC, maximum error {}",
                        crate::units::format_nanos(*maxerror_ns)
                    ),
                }
            ),
            _ => return None,
        })
    }
}

/// Named counters in words: `ierrors 5, rx_oversize_errors 5`.
fn counters_text(counters: &[(String, u64)]) -> String {
    let parts: Vec<String> = counters.iter().map(|(n, v)| format!("{n} {v}")).collect();
    parts.join(", ")
}

/// When a port's errors began and their worst interval, in words; empty
/// when they were not read per interval.
fn when_text(first_s: Option<f64>, peak: u64) -> String {
    match first_s {
        Some(s) => format!(", from {s:.2} s into the run, at most {peak} in one interval"),
        None => String::new(),
    }
}

/// How the run ended, and what casts doubt on its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The run lasted its whole duration (false when a signal stopped it).
    pub complete: bool,
    /// The signal that stopped the run early (`SIGINT`, `SIGTERM`,
    /// `SIGHUP`), if one did.
    pub interrupted_by: Option<String>,
    /// Whether every TX task reached its target rate; `None` for runs
    /// without a paced sender.
    pub target_met: Option<bool>,
    /// What casts doubt on the figures; empty for a clean run.
    pub problems: Vec<Problem>,
}

impl Default for Outcome {
    fn default() -> Self {
        Self {
            complete: true,
            interrupted_by: None,
            target_met: None,
            problems: Vec::new(),
        }
    }
}

impl Outcome {
    /// The exit status this outcome asks for: [`exit::INTERRUPTED`] before
    /// [`exit::SHORTFALL`] before [`exit::OK`].
    pub fn exit_status(&self) -> u8 {
        if !self.complete {
            exit::INTERRUPTED
        } else if !self.problems.is_empty() || self.target_met == Some(false) {
            exit::SHORTFALL
        } else {
            exit::OK
        }
    }

    /// Record a problem (once: an equal problem is not added twice).
    pub fn add(&mut self, p: Problem) {
        if !self.problems.contains(&p) {
            self.problems.push(p);
        }
    }

    /// The summary's `warning:` lines, one per problem, each ending in a
    /// newline; empty for a clean run.
    pub fn warning_lines(&self) -> String {
        let mut s = String::new();
        if let Some(sig) = &self.interrupted_by {
            s.push_str(&format!(
                "warning: the run was stopped by {sig} before its duration; its figures cover the time it ran\n"
            ));
        }
        for p in &self.problems {
            s.push_str("warning: ");
            s.push_str(&p.text());
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_run_exits_zero_and_prints_nothing() {
        let o = Outcome::default();
        assert_eq!(o.exit_status(), exit::OK);
        assert_eq!(o.warning_lines(), "");
    }

    #[test]
    fn a_missed_target_is_a_shortfall_even_without_a_problem_line() {
        let o = Outcome {
            target_met: Some(false),
            ..Outcome::default()
        };
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn interruption_wins_over_a_shortfall() {
        let mut o = Outcome {
            complete: false,
            interrupted_by: Some("SIGINT".into()),
            ..Outcome::default()
        };
        o.add(Problem::Other { detail: "x".into() });
        assert_eq!(o.exit_status(), exit::INTERRUPTED);
        assert_eq!(
            o.warning_lines(),
            "warning: the run was stopped by SIGINT before its duration; its figures cover the time it ran\nwarning: x\n"
        );
    }

    #[test]
    fn a_problem_is_recorded_once() {
        let mut o = Outcome::default();
        let p = Problem::Other {
            detail: "link down".into(),
        };
        o.add(p.clone());
        o.add(p);
        assert_eq!(o.problems.len(), 1);
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn a_missed_target_and_a_link_down_say_by_how_much_and_why() {
        let missed = Problem::TargetMissed {
            lcore: 1,
            port: 0,
            layer: "L2".into(),
            target_per_sec: 1_000_000_000,
            achieved_per_sec: 520_000_000.0,
            achieved_pct: 52.0,
            refused: 18_625_182,
            alloc_failed: 0,
        };
        assert_eq!(
            missed.text(),
            "TX lcore 1 (port 0) missed its target: 1000000000 L2/s asked, 520000000 achieved \
             (52.0000 %, 48.0000 % short); the port refused 18625182 frames, the mbuf pool was \
             empty 0 times"
        );
        let down = Problem::LinkDown {
            port: "a0".into(),
            side: "TX".into(),
            down_at_s: 2.01,
            down_s: 1.99,
            outages: 1,
            down_at_end: true,
        };
        assert_eq!(
            down.text(),
            "the link of port a0 (TX) went down 2.01 s into the run: down 1.99 s in all, \
             1 time(s), still down at the end"
        );
        assert_eq!(
            serde_json::to_value(&down).unwrap()["kind"],
            serde_json::json!("link_down")
        );
    }

    #[test]
    fn a_descheduled_lcore_says_its_cpu_figures_are_not_trustworthy() {
        let p = Problem::Descheduled {
            role: "RX".into(),
            lcore: 1,
            descheduled_pct: 48.25,
            wait_ns: 965_000_000,
            stolen_ns: 0,
            wall_ns: 2_000_000_000,
        };
        assert_eq!(
            p.text(),
            "RX lcore 1 was descheduled for 48.2 % of its run (0.965 s of 2.000 s waiting \
             for its CPU, which another thread had): its cycles per frame, its busy share and \
             any CPU verdict are not trustworthy"
        );
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"kind":"descheduled","role":"RX","lcore":1,"descheduled_pct":48.25,"wait_ns":965000000,"stolen_ns":0,"wall_ns":2000000000}"#
        );
        // A result written before steal was counted still reads.
        let old: Problem = serde_json::from_str(
            r#"{"kind":"descheduled","role":"RX","lcore":1,"descheduled_pct":48.25,"wait_ns":965000000,"wall_ns":2000000000}"#,
        )
        .unwrap();
        assert_eq!(old, p);
        let stolen = Problem::Descheduled {
            role: "TX".into(),
            lcore: 2,
            descheduled_pct: 12.0,
            wait_ns: 40_000_000,
            stolen_ns: 200_000_000,
            wall_ns: 2_000_000_000,
        };
        assert_eq!(
            stolen.text(),
            "TX lcore 2 was descheduled for 12.0 % of its run (0.040 s of 2.000 s waiting \
             for its CPU, which another thread had, and 0.200 s taken by the virtual \
             machine's host): its cycles per frame, its busy share and any CPU verdict are \
             not trustworthy"
        );
        let mut o = Outcome::default();
        o.add(p);
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn a_port_that_refused_frames_names_its_counters_and_when() {
        let p = Problem::PortRxErrors {
            port: "rx0".into(),
            driver: "net_tap".into(),
            frames: 25,
            counters: vec![("ierrors".into(), 25)],
            first_s: Some(1.5),
            peak_per_interval: 25,
        };
        assert_eq!(
            p.text(),
            "port rx0 (net_tap) refused 25 received frames (ierrors 25), from 1.50 s into the \
             run, at most 25 in one interval: it counted them malformed or too long, so they \
             are the port's, not lost in the network; check the frame size against its MTU \
             and its peer's, and the cable, optics and CRC counters"
        );
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"kind":"port_rx_errors","port":"rx0","driver":"net_tap","frames":25,"counters":[["ierrors",25]],"first_s":1.5,"peak_per_interval":25}"#
        );
        let t = Problem::PortTxErrors {
            port: "tx0".into(),
            driver: "net_pcap".into(),
            frames: 3,
            counters: vec![("oerrors".into(), 3)],
            first_s: None,
            peak_per_interval: 0,
        };
        assert_eq!(
            t.text(),
            "port tx0 (net_pcap) did not send 3 frames it was handed (oerrors 3): they count \
             as sent but never left the port"
        );
        // Written without the interval figures, it still reads.
        let old: Problem = serde_json::from_str(
            r#"{"kind":"port_tx_errors","port":"tx0","driver":"net_pcap","frames":3,"counters":[["oerrors",3]]}"#,
        )
        .unwrap();
        assert_eq!(old, t);
        let mut o = Outcome::default();
        o.add(p);
        assert_eq!(o.exit_status(), exit::SHORTFALL);
    }

    #[test]
    fn the_json_names_each_problem_by_kind() {
        let p = Problem::Other { detail: "d".into() };
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"kind":"other","detail":"d"}"#
        );
    }
}
