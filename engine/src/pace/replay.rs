//! Bottleneck replay: what a slower link with a finite buffer would do to a
//! recorded departure trace.
//!
//! The model is a single FIFO queue in front of a link of `bottleneck_bps`:
//! a frame arriving at its trace time joins the queue if the bytes already
//! queued (frames waiting plus the one being sent, counted by frame size
//! including FCS) plus its own fit in the buffer, and is dropped otherwise
//! (tail drop). The link sends one frame at a time, each taking
//! `8 × (size + 20) / bottleneck_bps` seconds. Times are kept as exact
//! integers (ticks × bits per second), so the result is byte- and
//! tick-exact.
//!
//! This reproduces the PSPacer comparison: on/off bursts at the sender's
//! line rate overflow a router buffer that evenly paced traffic at the same
//! average rate never fills.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use thiserror::Error;

use super::rate::{format_bps, Layer, RateError, RateSpec};
use super::trace::{Trace, TraceError};
use crate::units::L1_OVERHEAD;

/// What is wrong with a replay's inputs.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplayError {
    /// The bottleneck rate is zero.
    #[error("bottleneck rate is zero; give a rate such as `500M`")]
    ZeroRate,
    /// The trace has no TSC frequency.
    #[error("trace TSC frequency is zero")]
    ZeroHz,
    /// The buffer cannot hold even the largest frame of the trace.
    #[error(
        "buffer of {buffer} bytes cannot hold a {frame}-byte frame: a bottleneck buffers at \
         least one frame (give e.g. `4MB`)"
    )]
    BufferTooSmall {
        /// The buffer asked for.
        buffer: u64,
        /// The trace's largest frame.
        frame: u32,
    },
    /// A size could not be parsed.
    #[error("cannot parse size `{input}`: {reason}")]
    Size {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
}

/// What the bottleneck did to the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayResult {
    /// Frames in the trace.
    pub frames: u64,
    /// Frames the bottleneck sent.
    pub delivered: u64,
    /// Frames dropped at the full buffer.
    pub dropped: u64,
    /// Bytes of the dropped frames (FCS included).
    pub dropped_bytes: u64,
    /// Index in the trace of the first dropped frame.
    pub first_drop: Option<u64>,
    /// Most bytes ever queued (frames waiting plus the one being sent).
    pub peak_queue_bytes: u64,
    /// Most frames ever queued.
    pub peak_queue_frames: u64,
    /// Longest time from a frame's arrival to its last bit leaving, ns.
    pub max_delay_ns: u64,
    /// Mean of that time over delivered frames, ns.
    pub mean_delay_ns: f64,
    /// Offered L1 rate: the trace's wire bits over its span (first to last
    /// departure, last frame excluded), bits per second.
    pub offered_l1_bps: f64,
    /// The bottleneck rate, bits per second (L1).
    pub bottleneck_bps: u64,
    /// The buffer, bytes.
    pub buffer_bytes: u64,
}

/// Replays `trace` through a bottleneck of `bottleneck_bps` (L1) with a
/// buffer of `buffer_bytes`, FIFO with tail drop. Frames with equal times
/// arrive in trace order.
pub fn replay(
    trace: &Trace,
    bottleneck_bps: u64,
    buffer_bytes: u64,
) -> Result<ReplayResult, ReplayError> {
    check_inputs(trace, bottleneck_bps, buffer_bytes)?;
    let mut r = ReplayResult::empty(trace.departures.len() as u64, bottleneck_bps, buffer_bytes);
    let mut link = Bottleneck::new(bottleneck_bps, trace.tsc_hz, buffer_bytes);
    let (mut max_delay, mut delay_sum) = (0u128, 0u128);
    for (i, &(tsc, len)) in trace.departures.iter().enumerate() {
        let Some(delay) = link.offer(tsc, len) else {
            r.dropped += 1;
            r.dropped_bytes = r.dropped_bytes.saturating_add(u64::from(len));
            r.first_drop.get_or_insert(i as u64);
            continue;
        };
        r.peak_queue_bytes = r.peak_queue_bytes.max(link.queued_bytes);
        r.peak_queue_frames = r.peak_queue_frames.max(link.queue.len() as u64);
        max_delay = max_delay.max(delay);
        delay_sum = delay_sum.saturating_add(delay);
        r.delivered += 1;
    }
    r.max_delay_ns = units_to_ns(max_delay, link.hz * link.bps);
    if r.delivered > 0 {
        let units_per_sec = link.hz as f64 * link.bps as f64;
        r.mean_delay_ns = delay_sum as f64 * 1e9 / units_per_sec / r.delivered as f64;
    }
    r.offered_l1_bps = offered_l1_bps(trace);
    Ok(r)
}

/// Refuses a zero rate, a zero clock and a buffer smaller than the
/// trace's largest frame.
fn check_inputs(trace: &Trace, bottleneck_bps: u64, buffer_bytes: u64) -> Result<(), ReplayError> {
    if bottleneck_bps == 0 {
        return Err(ReplayError::ZeroRate);
    }
    if trace.tsc_hz == 0 {
        return Err(ReplayError::ZeroHz);
    }
    let largest = trace
        .departures
        .iter()
        .map(|&(_, len)| len)
        .max()
        .unwrap_or(0);
    if buffer_bytes < u64::from(largest) {
        return Err(ReplayError::BufferTooSmall {
            buffer: buffer_bytes,
            frame: largest,
        });
    }
    Ok(())
}

/// `units` of `per_sec` a second, in whole nanoseconds: exact while
/// `units × 10⁹` fits, else as near as a float gets; at most `u64::MAX`
/// (585 years), whatever the trace's clock and the bottleneck's rate.
fn units_to_ns(units: u128, per_sec: u128) -> u64 {
    let ns = match units.checked_mul(1_000_000_000) {
        Some(n) => n / per_sec,
        // A float cast saturates: beyond u64::MAX it is u64::MAX.
        None => return (units as f64 * 1e9 / per_sec as f64) as u64,
    };
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// Bits on the wire for a frame of `len` bytes (FCS included): the frame
/// plus its preamble, SFD and inter-frame gap.
fn wire_bits(len: u32) -> u128 {
    8 * (len as u128 + L1_OVERHEAD as u128)
}

/// The trace's wire bits over its span (first to last departure, last
/// frame excluded), bit/s; 0 for a trace without a span.
fn offered_l1_bps(trace: &Trace) -> f64 {
    let (Some(first), Some(last)) = (trace.departures.first(), trace.departures.last()) else {
        return 0.0;
    };
    if last.0 <= first.0 {
        return 0.0;
    }
    let bits: u128 = trace.departures[..trace.departures.len() - 1]
        .iter()
        .map(|&(_, l)| wire_bits(l))
        .sum();
    let secs = (last.0 - first.0) as f64 / trace.tsc_hz as f64;
    bits as f64 / secs
}

/// The bottleneck's state: the frames queued, each with the time its last
/// bit leaves, and when the link is next free.
///
/// Time unit: 1 / (hz × bps) s. A tick is `bps` units; one bit on the
/// bottleneck is `hz` units.
struct Bottleneck {
    bps: u128,
    hz: u128,
    buffer_bytes: u64,
    /// `(finish, len)` of each frame waiting or being sent.
    queue: VecDeque<(u128, u32)>,
    /// Bytes of the frames in `queue`.
    queued_bytes: u64,
    link_free: u128,
}

impl Bottleneck {
    fn new(bps: u64, hz: u64, buffer_bytes: u64) -> Self {
        Bottleneck {
            bps: u128::from(bps),
            hz: u128::from(hz),
            buffer_bytes,
            queue: VecDeque::new(),
            queued_bytes: 0,
            link_free: 0,
        }
    }

    /// A frame of `len` bytes arriving at `tsc`: the queue first lets go of
    /// the frames sent by then; the frame is queued if it fits and its delay
    /// (arrival to last bit out, in time units) returned, else `None` (tail
    /// drop).
    fn offer(&mut self, tsc: u64, len: u32) -> Option<u128> {
        let now = u128::from(tsc) * self.bps;
        while let Some(&(finish, l)) = self.queue.front() {
            if finish > now {
                break;
            }
            self.queue.pop_front();
            self.queued_bytes -= u64::from(l);
        }
        if self.queued_bytes.saturating_add(u64::from(len)) > self.buffer_bytes {
            return None;
        }
        // Saturating: a clock near 2^64 ticks times a rate near 2^64 bit/s
        // fills the 128 bits; no real trace comes near.
        let finish = self
            .link_free
            .max(now)
            .saturating_add(wire_bits(len) * self.hz);
        self.link_free = finish;
        self.queue.push_back((finish, len));
        self.queued_bytes += u64::from(len);
        Some(finish - now)
    }
}

impl ReplayResult {
    /// A result with nothing replayed yet.
    fn empty(frames: u64, bottleneck_bps: u64, buffer_bytes: u64) -> Self {
        ReplayResult {
            frames,
            delivered: 0,
            dropped: 0,
            dropped_bytes: 0,
            first_drop: None,
            peak_queue_bytes: 0,
            peak_queue_frames: 0,
            max_delay_ns: 0,
            mean_delay_ns: 0.0,
            offered_l1_bps: 0.0,
            bottleneck_bps,
            buffer_bytes,
        }
    }

    /// The human report, a few lines.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "replay: {} frames offered at {:.3} Mbit/s (L1) into a {} bottleneck with a \
             {}-byte buffer",
            self.frames,
            self.offered_l1_bps / 1e6,
            format_bps(self.bottleneck_bps),
            self.buffer_bytes
        );
        let _ = write!(
            s,
            "  delivered {}, dropped {} ({} bytes)",
            self.delivered, self.dropped, self.dropped_bytes
        );
        if let Some(i) = self.first_drop {
            let _ = write!(s, ", first drop at frame {i}");
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  peak queue {} bytes ({} frames), delay max {:.3} ms, mean {:.3} ms",
            self.peak_queue_bytes,
            self.peak_queue_frames,
            self.max_delay_ns as f64 / 1e6,
            self.mean_delay_ns / 1e6
        );
        s
    }
}

/// What went wrong in `landspeed replay`.
#[derive(Debug, Error)]
pub enum ReplayCliError {
    /// The bottleneck rate could not be parsed.
    #[error("--bottleneck: {0}")]
    Rate(#[from] RateError),
    /// The bottleneck was not a bit rate.
    #[error(
        "--bottleneck `{0}`: give the bottleneck link's rate in bits per second, \
         such as `500M` or `1G`"
    )]
    NotABitRate(String),
    /// The buffer size or the replay inputs were wrong.
    #[error("{0}")]
    Replay(#[from] ReplayError),
    /// The trace could not be read.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// The result could not be written as JSON.
    #[error("JSON: {0}")]
    Json(String),
}

/// `landspeed replay TRACE --bottleneck RATE --buffer SIZE [--json]`: reads
/// the trace, replays it, and returns the report as text (or JSON).
/// The bottleneck is the link's bit rate (L1, the rate the link serialises
/// frames plus their 20 bytes of preamble and gap); `@L1` may be written,
/// other layers, shares of line rate and frame rates are refused.
pub fn run_cli(
    trace: &Path,
    bottleneck: &str,
    buffer: &str,
    json: bool,
) -> Result<String, ReplayCliError> {
    let bps = match bottleneck.parse::<RateSpec>()? {
        RateSpec::Absolute {
            per_sec,
            layer: None | Some(Layer::L1),
        } => per_sec,
        _ => return Err(ReplayCliError::NotABitRate(bottleneck.to_string())),
    };
    let buffer_bytes = parse_size(buffer).map_err(|e| match e {
        ReplayError::Size { input, reason } => ReplayError::Size {
            input: format!("--buffer {input}"),
            reason,
        },
        e => e,
    })?;
    let t = Trace::load(trace)?;
    let r = replay(&t, bps, buffer_bytes)?;
    if json {
        let mut text =
            serde_json::to_string_pretty(&r).map_err(|e| ReplayCliError::Json(e.to_string()))?;
        text.push('\n');
        Ok(text)
    } else {
        Ok(r.text())
    }
}

/// Parses a byte count as [`crate::units::parse_bytes`] does: a number
/// with an optional unit, `B`, SI `k`/`kB`, `M`/`MB`, `G`/`GB`, `T`/`TB`
/// (powers of 1000) or binary `KiB`, `MiB`, `GiB`, `TiB` (powers of 1024),
/// in any case; `4MB` is 4,000,000 bytes and `4MiB` 4,194,304. Fractions
/// round to the nearest byte.
pub fn parse_size(s: &str) -> Result<u64, ReplayError> {
    crate::units::parse_bytes(s).map_err(|e| ReplayError::Size {
        input: e.input.clone(),
        reason: e.reason(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pace::pattern::{Pacer, Pattern, PatternError};
    use crate::pace::rate::Rate;
    use crate::pace::schedule::Schedule;

    /// A synthetic trace of `frames` departures of `frame_size_with_fcs` bytes
    /// at mean `rate` following `pattern`, on a sender whose link runs at
    /// `line_bps` (the peak of on/off bursts), timestamped on a `tsc_hz` clock
    /// starting at 0.
    fn synthesize(
        tsc_hz: u64,
        pattern: Pattern,
        rate: Rate,
        line_bps: u64,
        frame_size_with_fcs: usize,
        payload_len: usize,
        frames: usize,
    ) -> Result<Trace, PatternError> {
        let schedule = Schedule::new(0, tsc_hz, rate)?
            .with_payload_overhead(frame_size_with_fcs.saturating_sub(payload_len) as u32);
        let mut pacer = Pacer::new(pattern, schedule, line_bps)?;
        let len = frame_size_with_fcs as u32;
        let departures = (0..frames)
            .map(|_| (pacer.next(frame_size_with_fcs), len))
            .collect();
        Ok(Trace { tsc_hz, departures })
    }

    const NS: u64 = 1_000_000_000; // 1 tick = 1 ns

    fn trace(deps: &[(u64, u32)]) -> Trace {
        Trace {
            tsc_hz: NS,
            departures: deps.to_vec(),
        }
    }

    #[test]
    fn hand_computed_small_queue() {
        // 105-byte frames are 125 wire bytes = 1000 bits = 1 µs at 1 Gbit/s.
        let t = trace(&[(0, 105), (0, 105), (0, 105), (2500, 105)]);
        let r = replay(&t, 1_000_000_000, 300).unwrap();
        assert_eq!(r.frames, 4);
        assert_eq!(r.dropped, 1);
        assert_eq!(r.first_drop, Some(2));
        assert_eq!(r.delivered, 3);
        assert_eq!(r.peak_queue_bytes, 210);
        assert_eq!(r.peak_queue_frames, 2);
        assert_eq!(r.max_delay_ns, 2000);
        assert!((r.mean_delay_ns - 4000.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn hand_computed_sustained_overload() {
        // Arrivals every 500 ns, service 1000 ns, buffer 1000 bytes (9 frames).
        // Frame k sees ceil(k/2) frames queued until the buffer fills: frames
        // 0..=16 fit, 17 is dropped, 18 fits (frame 8 leaves at 9000 ns), 19
        // is dropped.
        let deps: Vec<(u64, u32)> = (0..20).map(|k| (500 * k, 105)).collect();
        let r = replay(&trace(&deps), 1_000_000_000, 1000).unwrap();
        assert_eq!(r.dropped, 2);
        assert_eq!(r.first_drop, Some(17));
        assert_eq!(r.peak_queue_bytes, 945);
        assert_eq!(r.peak_queue_frames, 9);
        assert_eq!(r.max_delay_ns, 9000);
        assert!((r.offered_l1_bps - 2e9).abs() < 1.0);
    }

    #[test]
    fn exact_with_awkward_clocks() {
        // 3 frames of 64 bytes at 7 Mbit/s on a 2.399987654 GHz clock: the
        // second and third queue behind the first. Service = 672 bits /
        // 7e6 = 96 µs each; the third leaves 288 µs after time 0.
        let t = Trace {
            tsc_hz: 2_399_987_654,
            departures: vec![(0, 64), (1, 64), (2, 64)],
        };
        let r = replay(&t, 7_000_000, 1_000_000).unwrap();
        assert_eq!(r.dropped, 0);
        assert_eq!(r.peak_queue_frames, 3);
        // 288,000 ns minus 2 ticks (0.83 ns), rounded down.
        assert_eq!(r.max_delay_ns, 287_999);
        assert_eq!(replay(&t, 0, 1), Err(ReplayError::ZeroRate));
    }

    #[test]
    fn pspacer_effect_paced_loses_nothing_bursty_loses() {
        // A 10 GbE sender at 450 Mbit/s average into a 500 Mbit/s bottleneck
        // with a 4 MB buffer, 9130-byte frames.
        let hz = 2_500_000_000;
        let line = 10_000_000_000;
        let avg = Rate::l1_bps(450_000_000).unwrap();
        let frames = 20_000;
        let paced = synthesize(hz, Pattern::Cbr, avg, line, 9130, 9088, frames).unwrap();
        let bursty = synthesize(
            hz,
            Pattern::OnOff {
                burst_frames: 1000,
                seed: None,
            },
            avg,
            line,
            9130,
            9088,
            frames,
        )
        .unwrap();
        // Same average: each burst starts where the paced stream is.
        for k in (0..frames).step_by(1000) {
            assert_eq!(paced.departures[k], bursty.departures[k]);
        }
        let buffer = parse_size("4MB").unwrap();
        let p = replay(&paced, 500_000_000, buffer).unwrap();
        let b = replay(&bursty, 500_000_000, buffer).unwrap();
        assert_eq!(p.dropped, 0);
        assert_eq!(p.peak_queue_frames, 1);
        assert!(b.dropped > 0, "{b:?}");
        assert_eq!(b.peak_queue_bytes, 4_000_000 / 9130 * 9130);
        // Each 9.13 MB burst arrives at 10 Gbit/s and leaves at 0.5: about
        // 95% of it must queue, so roughly half of each burst is lost.
        assert!(b.dropped > frames as u64 / 3 && b.dropped < frames as u64 * 2 / 3);
        assert!((p.offered_l1_bps / 450e6 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn command_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.trace");
        trace(&[(0, 105), (0, 105), (0, 105), (2500, 105)])
            .save(&p)
            .unwrap();
        let text = run_cli(&p, "1G", "300", false).unwrap();
        assert!(
            text.contains("dropped 1 (105 bytes), first drop at frame 2"),
            "{text}"
        );
        assert!(text.contains("peak queue 210 bytes (2 frames)"), "{text}");
        let json = run_cli(&p, "1G@L1", "300B", true).unwrap();
        assert!(json.contains("\"dropped\": 1"), "{json}");
        let e = run_cli(&p, "95%", "300", false).unwrap_err().to_string();
        assert!(e.contains("--bottleneck `95%`"), "{e}");
        let e = run_cli(&p, "1G", "lots", false).unwrap_err().to_string();
        assert!(e.contains("--buffer lots"), "{e}");
        let e = run_cli(&dir.path().join("none"), "1G", "1", false).unwrap_err();
        assert!(e.to_string().contains("none"), "{e}");
    }

    #[test]
    fn parses_sizes() {
        assert_eq!(parse_size("4MB").unwrap(), 4_000_000);
        assert_eq!(parse_size("4MiB").unwrap(), 4_194_304);
        assert_eq!(parse_size("512k").unwrap(), 512_000);
        assert_eq!(parse_size("1.5 GB").unwrap(), 1_500_000_000);
        assert_eq!(parse_size("9000").unwrap(), 9000);
        assert!(parse_size("lots").is_err());
        assert!(parse_size("4XB").is_err());
        let e = parse_size("4XB").unwrap_err().to_string();
        assert!(e.contains("`4XB`"), "{e}");
    }
}
