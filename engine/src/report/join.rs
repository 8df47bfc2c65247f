//! Joining a sender's and a receiver's JSON results (separate processes or
//! hosts) into one view: offered vs delivered, loss per stream, verdict.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Serialize, Serializer};

use crate::clock::nic::Departure;
use crate::clock::sync::{bound_ns, round_to_bound, step_ns, SideClock};
use crate::limits::verdict::Observation;
use crate::limits::{Limit, Verdict};
use crate::report::Percentiles;
use crate::result::{merge_seq, RunResult, RxResult, StreamResult, TxResult};
use crate::rx::seq::{SeqCounts, SEQ_LIMIT};
use crate::{Error, Result};

/// One stream seen from both sides.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JoinedStream {
    /// Stream id.
    pub id: u32,
    /// Frames the sender's PMD took.
    pub sent: u64,
    /// Frames the receiver got (good or corrupt).
    pub received: u64,
    /// Sent but never received (`sent − unique received`).
    pub missing: u64,
    /// The receiver's sequence-gap count.
    pub lost: u64,
    /// Reordered.
    pub reordered: u64,
    /// Duplicated.
    pub duplicated: u64,
    /// Corrupt.
    pub corrupt: u64,
    /// `missing ÷ sent`, percent.
    pub loss_pct: f64,
    /// The receiver tracked more streams than it can and this one was not
    /// among them (`rx.overflow`): nothing is known of its frames, which
    /// are not counted missing. Written only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_tracked: bool,
}

/// Both sides of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Joined {
    /// Sender's result file.
    pub tx_file: String,
    /// Receiver's result file.
    pub rx_file: String,
    /// Offered L2 rate (bit/s) and frames/s.
    pub offered_l2_bps: f64,
    /// Offered frames/s.
    pub offered_fps: f64,
    /// Delivered L2 rate (bit/s).
    pub delivered_l2_bps: f64,
    /// Delivered frames/s.
    pub delivered_fps: f64,
    /// Frames sent in all.
    pub sent: u64,
    /// Frames received in all.
    pub received: u64,
    /// Per stream.
    pub streams: Vec<JoinedStream>,
    /// Whether every stream arrived complete, in order and intact.
    pub exact: bool,
    /// The receiver's verdict, as it wrote it.
    #[serde(serialize_with = "keys_sorted")]
    pub verdict: Option<Verdict>,
    /// The verdict decided again with the sender's offered rate and the
    /// frames missing between the two, on what the receiver measured (its
    /// rates, costs, counters and ceilings); `None` for a receiver's result
    /// written before it kept what it measured.
    #[serde(serialize_with = "keys_sorted")]
    pub joined_verdict: Option<Verdict>,
    /// One-way latency on the two sides' synchronised clocks, with its
    /// bound (both sides stamped and read a synced clock; else absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_way: Option<OneWay>,
}

/// One-way latency between two hosts: each side's clock, the bound, and
/// each stream's figures rounded to the bound's order.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OneWay {
    /// The sender's clock.
    pub tx_clock: SideClock,
    /// The receiver's clock.
    pub rx_clock: SideClock,
    /// The sender's share of the bound, ns (its residual and clock error).
    pub tx_error_ns: f64,
    /// The receiver's share, ns.
    pub rx_error_ns: f64,
    /// Every one-way figure is within ± this of the truth, ns: the sum of
    /// both shares.
    pub bound_ns: f64,
    /// The figures are rounded to multiples of this, ns (the power of ten
    /// at or below the bound): no digits finer than the bound allows.
    pub step_ns: f64,
    /// Both clocks synchronised (else no figures: inter-arrival only).
    pub synced: bool,
    /// Both sides name the same clock (REALTIME and TAI differ by the TAI
    /// offset: figures across them are meaningless and not given).
    pub same_clock: bool,
    /// Per stream, rounded.
    pub streams: Vec<OneWayStream>,
}

/// One stream's one-way latency, rounded to the bound's order.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OneWayStream {
    /// Stream id.
    pub id: u32,
    /// Its latency figures, ns, each a multiple of `step_ns`.
    pub latency: Percentiles,
    /// Frames that arrived before their departure by the clocks.
    pub early: u64,
    /// Where the receiver's arrival times came from (`software`,
    /// `nic_rx`, `nic_rx+software`).
    pub rx_source: String,
    /// Where the sender's departure times came from (`software`: the TSC
    /// read before `tx_burst`; `nic`: that stamp corrected by the mean
    /// offset of the NIC's sampled TX timestamps, the sender's
    /// `departure_offset`).
    pub tx_source: String,
}

/// The one-way section when both sides used synchronised clocks.
fn one_way(t: &TxResult, r: &RxResult) -> Option<OneWay> {
    let (tx_clock, rx_clock) = (t.clock.clone()?, r.clock.clone()?);
    let bound = bound_ns(&tx_clock, &rx_clock);
    let synced = tx_clock.synced() && rx_clock.synced();
    let same_clock = tx_clock.clock == rx_clock.clock;
    let streams = if synced && same_clock {
        (r.streams.iter())
            .filter(|s| s.latency_clock.as_deref() == Some("synced"))
            .filter_map(|s| {
                let off = (t.streams.iter().find(|ts| ts.id == s.id))
                    .and_then(crate::result::TxStreamResult::departure_offset_ns);
                let latency = s.latency.as_ref()?.less(off.unwrap_or(0.0));
                Some(OneWayStream {
                    id: s.id,
                    latency: rounded(&latency, bound),
                    early: s.latency_early,
                    rx_source: s
                        .latency_source
                        .clone()
                        .unwrap_or_else(|| "software".into()),
                    tx_source: match off {
                        Some(_) => Departure::Nic,
                        None => Departure::Software,
                    }
                    .name()
                    .into(),
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(OneWay {
        tx_error_ns: tx_clock.error_ns(),
        rx_error_ns: rx_clock.error_ns(),
        tx_clock,
        rx_clock,
        bound_ns: bound,
        step_ns: step_ns(bound),
        synced,
        same_clock,
        streams,
    })
}

/// `p` with every figure rounded to the order of `bound` (ns).
fn rounded(p: &Percentiles, bound: f64) -> Percentiles {
    let r = |v: f64| round_to_bound(v, bound);
    Percentiles {
        count: p.count,
        min_ns: r(p.min_ns),
        mean_ns: r(p.mean_ns),
        p50_ns: r(p.p50_ns),
        p99_ns: r(p.p99_ns),
        p999_ns: r(p.p999_ns),
        max_ns: r(p.max_ns),
        stddev_ns: r(p.stddev_ns),
    }
}

impl OneWay {
    /// The section as text.
    fn text(&self, s: &mut String) {
        let side = |c: &SideClock, e: f64| {
            format!(
                "{} ({}, error {})",
                c.clock.name(),
                c.error_source(),
                crate::units::format_nanos(e)
            )
        };
        let _ = writeln!(
            s,
            "one-way latency: sender {}, receiver {}",
            side(&self.tx_clock, self.tx_error_ns),
            side(&self.rx_clock, self.rx_error_ns)
        );
        for (who, c) in [("sender", &self.tx_clock), ("receiver", &self.rx_clock)] {
            if let Some(v) = &c.servo {
                let _ = writeln!(s, "      {who}'s {}", servo_line(v));
            }
        }
        if !self.same_clock {
            let _ = writeln!(
                s,
                "      the two sides stamp different clocks: no one-way figure (inter-arrival only)"
            );
            return;
        }
        if !self.synced {
            let _ = writeln!(
                s,
                "      a clock is not synchronised: no one-way figure (inter-arrival only)"
            );
            return;
        }
        let _ = writeln!(
            s,
            "      bound ± {}; figures rounded to {} (the bound's order)",
            crate::units::format_nanos(self.bound_ns),
            crate::units::format_nanos(self.step_ns)
        );
        for st in &self.streams {
            let early = if st.early > 0 {
                format!(
                    ", {} frames arrived before they left by the clocks",
                    st.early
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "{:>8} {}{early} (departure {}, arrival {})",
                st.id,
                st.latency.short(),
                st.tx_source,
                st.rx_source
            );
        }
    }
}

/// What a side's PTP servo said over the run, in one line.
fn servo_line(v: &crate::clock::ptp::ServoRecord) -> String {
    use crate::clock::ptp::Role;
    let role = match v.role {
        Role::Slave => format!("slave of {}", v.gm_identity),
        Role::Grandmaster => "the grandmaster".to_string(),
        Role::Unlocked => "unlocked at the last sample".to_string(),
    };
    let lock = if v.locked {
        "locked at every sample".to_string()
    } else {
        format!(
            "not locked throughout ({})",
            v.not_locked.as_deref().unwrap_or("no sample")
        )
    };
    format!(
        "{} ({}): {role}, offset up to {}, path delay up to {}, {} samples, {lock}",
        v.daemon,
        v.socket,
        crate::units::format_nanos(v.max_abs_offset_ns),
        crate::units::format_nanos(v.max_path_delay_ns),
        v.samples
    )
}

/// The verdict with its keys in alphabetical order, as `report --json`
/// has always written it.
fn keys_sorted<S: Serializer>(v: &Option<Verdict>, s: S) -> Result<S::Ok, S::Error> {
    serde_json::to_value(v)
        .map_err(serde::ser::Error::custom)?
        .serialize(s)
}

/// Read a result file written by `landspeed run --json`. Anything else is
/// refused with the file, the line and the field at fault
/// (`tx.json:3:14: tx.frames: invalid type: string "x", expected u64`).
pub fn read_result(path: &Path) -> Result<RunResult> {
    let text = crate::input::read_text(path, crate::input::MAX_RESULT_BYTES)
        .map_err(|e| Error::io(path, e))?;
    let mut de = serde_json::Deserializer::from_str(&text);
    let result = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = if e.path().iter().next().is_some() {
            e.path().to_string()
        } else {
            String::new()
        };
        Error::json(path, field, e.into_inner())
    })?;
    de.end().map_err(|e| Error::json(path, "", e))?;
    Ok(result)
}

/// Read both files and join them.
pub fn join_files(tx: &Path, rx: &Path) -> Result<Joined> {
    let t = read_result(tx)?;
    let r = read_result(rx)?;
    let tx_side = match (&t.tx, &t.rx) {
        (Some(side), _) => side,
        (None, Some(_)) => {
            let why = "is a receiver's result (an `rx` section, no `tx` section): \
                       give the sender's result first, then the receiver's";
            return Err(Error::file(tx, why));
        }
        (None, None) => {
            let why = "has no TX side (was it written by a run with TX tasks?)";
            return Err(Error::file(tx, why));
        }
    };
    let rx_side = match (&r.rx, &r.tx) {
        (Some(side), _) => side,
        (None, Some(_)) => {
            let why = "is a sender's result (a `tx` section, no `rx` section): \
                       give the sender's result first, then the receiver's";
            return Err(Error::file(rx, why));
        }
        (None, None) => {
            let why = "has no RX side (was it written by a run with RX tasks?)";
            return Err(Error::file(rx, why));
        }
    };
    check_tx(tx_side).map_err(|why| Error::file(tx, why))?;
    check_rx(rx_side).map_err(|why| Error::file(rx, why))?;
    check_against(tx_side, rx_side, tx).map_err(|why| Error::file(rx, why))?;
    check_seqs(rx_side).map_err(|why| Error::file(rx, why))?;
    // The frames the sender's ports did not send are in the sender's file.
    let observation = r.observation.clone().map(|mut o| {
        let tx_errors = (t.ports.iter()).fold(0u64, |a, p| a.saturating_add(p.errors.tx_errors));
        if tx_errors > 0 {
            o.tx_errors = tx_errors;
            o.tx_errors_by = crate::result::sum_by_name(
                (t.ports.iter())
                    .map(|p| crate::limits::port_errors::tx_errors_by(&p.errors.classes)),
            );
        }
        o
    });
    let mut joined = join(
        tx_side,
        rx_side,
        r.verdict.as_ref(),
        observation.as_ref(),
        &tx.display().to_string(),
        &rx.display().to_string(),
    );
    // Decided again, the verdict carries the receiver's qualifiers too.
    if let Some(v) = joined.joined_verdict.as_mut() {
        super::qualify::qualify(v, &r.outcome.problems);
    }
    Ok(joined)
}

/// A sender's side whose counts contradict each other: the field and why.
fn check_tx(t: &TxResult) -> std::result::Result<(), String> {
    let Some(streams) = total(t.streams.iter().map(|s| s.frames)) else {
        return Err("tx.streams: the frames of its streams add up past 2^64".into());
    };
    if streams > t.frames {
        return Err(format!(
            "tx.frames: {} frames sent in all, fewer than the {streams} its streams sent",
            t.frames
        ));
    }
    Ok(())
}

/// A receiver's side whose counts contradict each other: the field and why.
fn check_rx(r: &RxResult) -> std::result::Result<(), String> {
    for (i, s) in r.streams.iter().enumerate() {
        check_seq_bounds(i, s)?;
        if s.seq.unique > s.frames {
            return Err(format!(
                "rx.streams[{i}].unique: stream {} has {} unique frames, more than the {} frames \
                 it received",
                s.id, s.seq.unique, s.frames
            ));
        }
        if s.corrupt_total > s.frames {
            return Err(format!(
                "rx.streams[{i}].corrupt_total: stream {} has {} corrupt frames, more than the \
                 {} frames it received",
                s.id, s.corrupt_total, s.frames
            ));
        }
    }
    let Some(streams) = total(r.streams.iter().map(|s| s.frames)) else {
        return Err("rx.streams: the frames of its streams add up past 2^64".into());
    };
    if streams > r.frames {
        return Err(format!(
            "rx.frames: {} frames received in all, fewer than the {streams} of its streams",
            r.frames
        ));
    }
    if r.good > r.frames {
        return Err(format!(
            "rx.good: {} good frames, more than the {} received",
            r.good, r.frames
        ));
    }
    Ok(())
}

/// The sum of `counts`, `None` past `u64::MAX`.
fn total(mut counts: impl Iterator<Item = u64>) -> Option<u64> {
    counts.try_fold(0u64, u64::checked_add)
}

/// A receiver's stream whose sequence counts no receiver writes and that
/// would overflow merging: a sequence number at or above [`SEQ_LIMIT`],
/// unique and lost frames that add up past 2^64.
fn check_seq_bounds(i: usize, s: &StreamResult) -> std::result::Result<(), String> {
    let (q, id) = (&s.seq, s.id);
    if q.max_seq >= SEQ_LIMIT {
        return Err(format!(
            "rx.streams[{i}].max_seq: stream {id} has sequence number {}, at or above 2^63, \
             which no sender reaches",
            q.max_seq
        ));
    }
    if q.unique.checked_add(q.lost).is_none() {
        return Err(format!(
            "rx.streams[{i}].lost: stream {id} has {} unique and {} lost frames: they add up \
             past 2^64",
            q.unique, q.lost
        ));
    }
    Ok(())
}

/// [`check_seq`] on every stream of the receiver's side.
fn check_seqs(r: &RxResult) -> std::result::Result<(), String> {
    r.streams
        .iter()
        .enumerate()
        .try_for_each(|(i, s)| check_seq(i, s))
}

/// A receiver's stream whose sequence counts contradict each other: more
/// frames unique and lost than sequence numbers up to the highest, more
/// reordered than unique, more duplicated or stale than received.
fn check_seq(i: usize, s: &StreamResult) -> std::result::Result<(), String> {
    let (q, id) = (&s.seq, s.id);
    let range = if q.unique == 0 { 0 } else { q.max_seq + 1 };
    if q.unique + q.lost > range {
        return Err(format!(
            "rx.streams[{i}].lost: stream {id} has {} unique and {} lost frames, more than the \
             {range} sequence numbers up to its highest ({})",
            q.unique, q.lost, q.max_seq
        ));
    }
    if q.reordered > q.unique {
        return Err(format!(
            "rx.streams[{i}].reordered: stream {id} has {} reordered frames, more than its {} \
             unique ones",
            q.reordered, q.unique
        ));
    }
    for (field, n) in [("duplicated", q.duplicated), ("stale", q.stale)] {
        if n > s.frames {
            return Err(format!(
                "rx.streams[{i}].{field}: stream {id} has {n} {field} frames, more than the {} \
                 frames it received",
                s.frames
            ));
        }
    }
    Ok(())
}

/// A receiver that counted more distinct frames of a stream than the
/// sender (`tx_file`) sent of it: the field and which stream.
fn check_against(t: &TxResult, r: &RxResult, tx_file: &Path) -> std::result::Result<(), String> {
    for s in &t.streams {
        let got = received_of(s.id, r);
        if got.seq.unique > s.frames {
            let i = r.streams.iter().position(|x| x.id == s.id).unwrap_or(0);
            return Err(format!(
                "rx.streams[{i}].unique: stream {} has {} unique frames, more than the {} the \
                 sender sent of it ({}): are both results of the same run?",
                s.id,
                got.seq.unique,
                s.frames,
                tx_file.display()
            ));
        }
    }
    Ok(())
}

/// What the receiver counted of stream `id`: its entries merged (a file
/// may hold one per RX lcore).
struct Received {
    frames: u64,
    corrupt: u64,
    seq: SeqCounts,
}

fn received_of(id: u32, rx: &RxResult) -> Received {
    let parts: Vec<&StreamResult> = rx.streams.iter().filter(|x| x.id == id).collect();
    let seqs: Vec<SeqCounts> = parts.iter().map(|x| x.seq).collect();
    Received {
        frames: parts.iter().map(|x| x.frames).sum(),
        corrupt: parts.iter().map(|x| x.corrupt_total).sum(),
        seq: merge_seq(&seqs),
    }
}

/// One sender's stream against what the receiver counted of it.
fn join_stream(id: u32, sent: u64, rx: &RxResult) -> JoinedStream {
    let got = received_of(id, rx);
    let not_tracked = rx.overflow > 0 && !rx.streams.iter().any(|x| x.id == id);
    let missing = if not_tracked {
        0
    } else {
        sent.saturating_sub(got.seq.unique)
    };
    JoinedStream {
        id,
        sent,
        received: got.frames,
        missing,
        lost: got.seq.lost,
        reordered: got.seq.reordered,
        duplicated: got.seq.duplicated,
        corrupt: got.corrupt,
        loss_pct: if sent > 0 {
            // At most 100 %, though the float rounds above it for counts
            // past 2^53.
            (missing as f64 * 100.0 / sent as f64).min(100.0)
        } else {
            0.0
        },
        not_tracked,
    }
}

/// The verdict at the sender's offered rate: the receiver's observation
/// with the sender's rate and target, and the frames missing between the
/// two sides as lost in the network (less what the receiving port missed).
fn joined_verdict(t: &TxResult, obs: &Observation, streams: &[JoinedStream]) -> Verdict {
    let mut o = obs.clone();
    t.offer_to(&mut o);
    let missing: u64 = streams.iter().map(|s| s.missing).sum();
    // Frames the receiving port missed, dropped at a full ring or
    // refused reached it.
    o.lost_in_network = missing
        .saturating_sub(o.imissed)
        .saturating_sub(o.rx_ring_drops)
        .saturating_sub(o.rx_refused);
    let v = o.verdict();
    if t.frames == 0 {
        return Verdict {
            binding: Limit::Sender,
            explanation: "Sender-bound: the sender's result shows no frame sent, so nothing \
                          could be delivered."
                .into(),
            ..v
        };
    }
    v
}

/// Join the sender's side with the receiver's (and its verdict).
pub fn join(
    t: &TxResult,
    r: &RxResult,
    verdict: Option<&Verdict>,
    observation: Option<&Observation>,
    tx_file: &str,
    rx_file: &str,
) -> Joined {
    let streams: Vec<JoinedStream> = t
        .streams
        .iter()
        .map(|s| join_stream(s.id, s.frames, r))
        .collect();
    let exact = streams.iter().all(|s| {
        !s.not_tracked
            && s.missing == 0
            && s.received == s.sent
            && s.reordered == 0
            && s.duplicated == 0
            && s.corrupt == 0
    });
    let joined_verdict = observation.map(|o| joined_verdict(t, o, &streams));
    let one_way = one_way(t, r);
    Joined {
        tx_file: tx_file.to_string(),
        rx_file: rx_file.to_string(),
        offered_l2_bps: t.achieved.l2_bps,
        offered_fps: t.achieved.fps,
        delivered_l2_bps: r.achieved.l2_bps,
        delivered_fps: r.achieved.fps,
        sent: t.frames,
        received: r.frames,
        streams,
        exact,
        verdict: verdict.cloned(),
        joined_verdict,
        one_way,
    }
}

impl Joined {
    /// The joined report as text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "sender   {}: {} frames, {:.4} Gbit/s L2, {:.0} frames/s",
            self.tx_file,
            self.sent,
            self.offered_l2_bps / 1e9,
            self.offered_fps
        );
        let _ = writeln!(
            s,
            "receiver {}: {} frames, {:.4} Gbit/s L2, {:.0} frames/s",
            self.rx_file,
            self.received,
            self.delivered_l2_bps / 1e9,
            self.delivered_fps
        );
        let _ = writeln!(
            s,
            "{:>8} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9}",
            "stream", "sent", "received", "missing", "reordered", "duplicated", "corrupt", "loss %"
        );
        for st in self.streams.iter().filter(|st| !st.not_tracked) {
            let _ = writeln!(
                s,
                "{:>8} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9.4}",
                st.id,
                st.sent,
                st.received,
                st.missing,
                st.reordered,
                st.duplicated,
                st.corrupt,
                st.loss_pct
            );
        }
        let untracked = self.streams.iter().filter(|st| st.not_tracked);
        let (n, frames) = untracked.fold((0, 0), |(n, f), st| (n + 1, f + st.sent));
        if n > 0 {
            let _ = writeln!(
                s,
                "{n} streams ({frames} frames sent) were not tracked by the receiver (more streams than it tracks): not checked, not counted missing"
            );
        }
        let _ = writeln!(
            s,
            "{}",
            if self.exact {
                "every frame sent arrived once, in order, intact"
            } else {
                "frames were lost, reordered, duplicated or corrupted (see above)"
            }
        );
        if let Some(o) = &self.one_way {
            o.text(&mut s);
        }
        if let Some(v) = &self.joined_verdict {
            let b = v.binding.as_str();
            let _ = writeln!(s, "verdict (at the sender's rate): {b} bound the run");
            let _ = writeln!(s, "      {}", v.explanation);
        } else if self.sent > 0 && self.streams.iter().all(|st| st.received == 0) {
            // The receiver's own verdict did not know the offered rate: it
            // may read "offered rate delivered" of a receiver that got
            // nothing.
            let _ = writeln!(
                s,
                "verdict: none of the {} frames sent arrived (the receiver's own verdict, made \
                 without the sender's rate, does not apply)",
                self.sent
            );
        } else if let Some(v) = &self.verdict {
            let b = v.binding.as_str();
            let _ = writeln!(s, "verdict (receiver's): {b} bound the run");
            let _ = writeln!(s, "      {}", v.explanation);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limit;
    use crate::pace::measure::LayerRates;
    use crate::report::Percentiles;
    use crate::result::StreamResult;
    use crate::result::TxStreamResult;
    use crate::rx::seq::SeqCounts;
    use crate::rx::CorruptCounts;

    #[test]
    fn a_sides_servo_is_one_line_of_the_one_way_section() {
        use crate::clock::ptp::{Role, ServoRecord};
        let mut v = ServoRecord {
            samples: 4,
            locked: true,
            role: Role::Slave,
            gm_identity: "5ad2a5.fffe.5804bc".into(),
            max_abs_offset_ns: 137.0,
            max_path_delay_ns: 2_369.0,
            ..ServoRecord::new("ptp4l", "/var/run/ptp4l")
        };
        assert_eq!(
            servo_line(&v),
            "ptp4l (/var/run/ptp4l): slave of 5ad2a5.fffe.5804bc, offset up to 137 ns, \
             path delay up to 2.4 us, 4 samples, locked at every sample"
        );
        v.locked = false;
        v.role = Role::Unlocked;
        v.not_locked = Some(
            "port 1 UNCALIBRATED, grandmaster 5ad2a5.fffe.5804bc: the servo has not locked".into(),
        );
        assert_eq!(
            servo_line(&v),
            "ptp4l (/var/run/ptp4l): unlocked at the last sample, offset up to 137 ns, path \
             delay up to 2.4 us, 4 samples, not locked throughout (port 1 UNCALIBRATED, \
             grandmaster 5ad2a5.fffe.5804bc: the servo has not locked)"
        );
    }

    fn rates(l2_bps: f64, fps: f64) -> LayerRates {
        LayerRates {
            l2_bps,
            fps,
            ..LayerRates::default()
        }
    }

    /// A sender's side: `(id, frames)` per stream.
    fn tx(frames: u64, achieved: LayerRates, streams: &[(u32, u64)]) -> TxResult {
        TxResult {
            frames,
            bytes: 0,
            gap_frames: 0,
            pmd_frames: 0,
            pmd_agrees: true,
            gap_bytes: 0,
            pmd_bytes: 0,
            pmd_bytes_agree: None,
            target_met: None,
            pmd_errors: 0,
            achieved,
            tasks: Vec::new(),
            streams: streams
                .iter()
                .map(|&(id, frames)| TxStreamResult {
                    id,
                    name: String::new(),
                    frames,
                    bytes: 0,
                    payload_bytes: 0,
                    departure_offset: None,
                })
                .collect(),
            clock: None,
        }
    }

    /// A receiver's stream: frames, unique, lost, reordered, duplicated,
    /// corrupt (sequence numbers from 0).
    fn stream(
        id: u32,
        [frames, unique, lost, reordered, duplicated, corrupt]: [u64; 6],
    ) -> StreamResult {
        StreamResult {
            id,
            frames,
            bytes: 0,
            seq: SeqCounts {
                unique,
                lost,
                reordered,
                duplicated,
                // As a receiver counts: its range is its unique and lost.
                max_seq: (unique + lost).saturating_sub(1),
                ..SeqCounts::default()
            },
            corrupt: CorruptCounts::default(),
            corrupt_total: corrupt,
            latency: None,
            latency_clock: None,
            latency_early: 0,
            latency_source: None,
            latency_nic: 0,
            departure_source: None,
            latency_ns: None,
            resumed_tx_tsc: 0,
            interarrival: Percentiles::default(),
            span_s: 0.0,
            achieved: Default::default(),
            arrivals_unix_ns: None,
            arrivals_tsc: [0, 0],
        }
    }

    /// The receiver's side.
    fn rx(frames: u64, achieved: LayerRates, streams: Vec<StreamResult>) -> RxResult {
        RxResult {
            frames,
            achieved,
            streams,
            ..RxResult::default()
        }
    }

    /// A side's clock, synchronised, with `nic_residual_ns` (the TX
    /// side: the spread of its departure offsets and its 1588 map's
    /// residual) and 100 ns of declared error.
    fn side(nic_residual_ns: Option<f64>) -> crate::clock::sync::SideClock {
        use crate::clock::sync::{ClockId, KernelStatus, SideClock};
        SideClock {
            clock: ClockId::Tai,
            kernel: KernelStatus {
                synced: true,
                esterror_ns: 0.0,
                maxerror_ns: 0.0,
            },
            servo: None,
            error_from: None,
            declared_error_ns: Some(100.0),
            residual_ns: 0.0,
            skew_ppm: 0.0,
            pairs: 2,
            nic_residual_ns,
        }
    }

    #[test]
    fn a_sampled_tx_offset_moves_the_one_way_latency_by_exactly_itself() {
        use crate::clock::txstamp::StreamOffsets;
        let lat = Percentiles {
            count: 10,
            min_ns: 120_000.0,
            mean_ns: 125_000.0,
            p50_ns: 124_000.0,
            p99_ns: 131_000.0,
            p999_ns: 132_000.0,
            max_ns: 133_000.0,
            stddev_ns: 2_000.0,
        };
        let mut st = stream(1, [10, 10, 0, 0, 0, 0]);
        st.latency = Some(lat);
        st.latency_clock = Some("synced".into());
        let mut r = rx(10, rates(1e9, 1e5), vec![st]);
        r.clock = Some(side(None));
        let mut t = tx(10, rates(1e9, 1e5), &[(1, 10)]);
        t.clock = Some(side(None));
        let plain = join(&t, &r, None, None, "tx.json", "rx.json")
            .one_way
            .unwrap();
        assert_eq!(plain.bound_ns, 200.0);
        assert_eq!(plain.streams[0].latency, lat);
        assert_eq!(plain.streams[0].tx_source, "software");
        // The NIC latched departures 3 µs after the stamps (± 40 ns): the
        // latency is 3 µs less, to the ns; the spread and the 1588 map's
        // 20 ns residual widen the sender's share of the bound.
        t.streams[0].departure_offset = Some(StreamOffsets {
            samples: 25,
            min_ns: 2_960.0,
            mean_ns: 3_000.0,
            max_ns: 3_040.0,
            spread_ns: 80.0,
        });
        t.clock = Some(side(Some(100.0)));
        let nic = join(&t, &r, None, None, "tx.json", "rx.json")
            .one_way
            .unwrap();
        assert_eq!(nic.bound_ns, 300.0);
        assert_eq!(nic.tx_error_ns, 200.0);
        assert_eq!(nic.streams[0].tx_source, "nic");
        let l = nic.streams[0].latency;
        assert_eq!(
            (l.min_ns, l.mean_ns, l.p50_ns, l.p99_ns, l.p999_ns, l.max_ns),
            (117_000.0, 122_000.0, 121_000.0, 128_000.0, 129_000.0, 130_000.0)
        );
        assert_eq!((l.count, l.stddev_ns), (10, 2_000.0));
        // No sample kept: no correction, the software source.
        t.streams[0].departure_offset = Some(StreamOffsets::default());
        let none = join(&t, &r, None, None, "tx.json", "rx.json")
            .one_way
            .unwrap();
        assert_eq!(none.streams[0].latency, lat);
        assert_eq!(none.streams[0].tx_source, "software");
    }

    #[test]
    fn one_process_latency_is_corrected_by_the_mean_departure_offset() {
        use crate::clock::txstamp::StreamOffsets;
        let lat = Percentiles {
            count: 4,
            min_ns: 5_000.0,
            mean_ns: 6_000.0,
            p50_ns: 6_000.0,
            p99_ns: 7_000.0,
            p999_ns: 7_000.0,
            max_ns: 7_000.0,
            stddev_ns: 500.0,
        };
        let with = |id, clock: &str| {
            let mut s = stream(id, [4, 4, 0, 0, 0, 0]);
            s.latency = Some(lat);
            s.latency_clock = Some(clock.into());
            s.departure_source = Some("software".into());
            s
        };
        let mut r = rx(
            12,
            rates(1e9, 1e5),
            vec![with(1, "tsc"), with(2, "tsc"), with(3, "synced")],
        );
        let mut t = tx(12, rates(1e9, 1e5), &[(1, 4), (2, 4), (3, 4)]);
        let off = Some(StreamOffsets {
            samples: 3,
            min_ns: 1_200.0,
            mean_ns: 1_250.0,
            max_ns: 1_300.0,
            spread_ns: 100.0,
        });
        t.streams[0].departure_offset = off;
        t.streams[2].departure_offset = off;
        crate::result::correct_departures(&mut r, &t);
        // Stream 1: sampled, on the shared TSC: every figure 1.25 µs less.
        assert_eq!(r.streams[0].latency, Some(lat.less(1_250.0)));
        assert_eq!(r.streams[0].latency.unwrap().min_ns, 3_750.0);
        assert_eq!(r.streams[0].departure_source.as_deref(), Some("nic"));
        // Stream 2: not sampled.
        assert_eq!(r.streams[1].latency, Some(lat));
        assert_eq!(r.streams[1].departure_source.as_deref(), Some("software"));
        // Stream 3: on synchronised clocks, corrected by `landspeed report`.
        assert_eq!(r.streams[2].latency, Some(lat));
        assert_eq!(r.streams[2].departure_source.as_deref(), Some("software"));
    }

    #[test]
    fn joins_streams_and_counts_missing() {
        let t = tx(300, rates(5e9, 68000.0), &[(1, 100), (2, 200)]);
        let r = rx(
            295,
            rates(4.9e9, 67000.0),
            vec![
                stream(1, [100, 100, 0, 0, 0, 0]),
                stream(2, [195, 195, 5, 1, 0, 0]),
            ],
        );
        let v = Verdict {
            binding: Limit::Cpu,
            ceilings: Vec::new(),
            explanation: "CPU-bound: 40,000 cycles/frame".into(),
        };
        let j = join(&t, &r, Some(&v), None, "tx.json", "rx.json");
        assert_eq!(
            j.streams[0],
            JoinedStream {
                id: 1,
                sent: 100,
                received: 100,
                missing: 0,
                lost: 0,
                reordered: 0,
                duplicated: 0,
                corrupt: 0,
                loss_pct: 0.0,
                not_tracked: false,
            }
        );
        assert_eq!(j.streams[1].missing, 5);
        assert_eq!(j.streams[1].loss_pct, 2.5);
        assert!(!j.exact);
        assert!(j.text().contains("verdict (receiver's): cpu bound the run"));
        assert!(j.text().contains("CPU-bound: 40,000 cycles/frame"));
    }

    #[test]
    fn exact_when_everything_arrived() {
        let t = tx(10, LayerRates::default(), &[(7, 10)]);
        let r = rx(
            10,
            LayerRates::default(),
            vec![stream(7, [10, 10, 0, 0, 0, 0])],
        );
        assert!(join(&t, &r, None, None, "a", "b").exact);
    }

    #[test]
    fn the_verdict_is_written_with_its_keys_sorted() {
        let t = tx(0, LayerRates::default(), &[]);
        let r = rx(0, LayerRates::default(), Vec::new());
        let v = Verdict {
            binding: Limit::None,
            ceilings: Vec::new(),
            explanation: "e".into(),
        };
        let j = serde_json::to_string(&join(&t, &r, Some(&v), None, "a", "b")).unwrap();
        assert!(j.ends_with(
            r#""verdict":{"binding":"none","ceilings":[],"explanation":"e"},"joined_verdict":null}"#
        ));
        let j = serde_json::to_string(&join(&t, &r, None, None, "a", "b")).unwrap();
        assert!(
            j.ends_with(r#""verdict":null,"joined_verdict":null}"#),
            "{j}"
        );
    }

    /// The error `join_files` gives when `tx_text` is the sender's file.
    fn sender_file_error(tx_text: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&a, tx_text).unwrap();
        std::fs::write(&b, "{}").unwrap();
        let e = join_files(&a, &b).expect_err("the sender's file is malformed");
        e.to_string()
            .replace(&dir.path().display().to_string(), "DIR")
    }

    #[test]
    fn a_malformed_result_names_the_file_and_the_field() {
        assert_eq!(
            sender_file_error(r#"{"tx": 5, "rx": "x"}"#),
            "DIR/a.json:1:8: tx: invalid type: integer `5`, expected struct TxResult"
        );
        assert_eq!(
            sender_file_error("{\"tx\": {\"frames\": \"many\"}}"),
            "DIR/a.json:1:24: tx.frames: invalid type: string \"many\", expected u64"
        );
        let e = sender_file_error("{\"tx\": {\"streams\": [{\"id\": 1}]}}");
        assert!(e.starts_with("DIR/a.json:1:"), "{e}");
        assert!(e.contains(": tx.streams[0]: missing field `name`"), "{e}");
        assert_eq!(
            sender_file_error("<html>\n"),
            "DIR/a.json:1:1: not a landspeed result: expected value"
        );
        assert_eq!(
            sender_file_error("{}"),
            "DIR/a.json:1:2: not a landspeed result: missing field `landspeed`"
        );
    }

    /// What a receiver measured: 1000-byte frames at `fps`, nothing else.
    fn observed(fps: f64) -> Observation {
        Observation {
            frame_size: 1000,
            delivered_fps: fps,
            delivered_bps: fps * 8000.0,
            tsc_hz: 2e9,
            ..Observation::default()
        }
    }

    #[test]
    fn the_verdict_is_decided_at_the_senders_rate() {
        let mut t = tx(1000, rates(8e6, 1000.0), &[(1, 1000)]);
        let r = rx(
            1000,
            rates(8e6, 1000.0),
            vec![stream(1, [1000, 1000, 0, 0, 0, 0])],
        );
        let j = join(&t, &r, None, Some(&observed(1000.0)), "a", "b");
        let v = j.joined_verdict.expect("decided again");
        assert_eq!(v.binding, Limit::None, "{}", v.explanation);
        assert!(
            v.explanation.starts_with(
                "Offered rate delivered: 0.008 Gbit/s (1,000 frames/s) of 0.008 Gbit/s (1,000 frames/s)"
            ),
            "{}",
            v.explanation
        );
        // Nothing arrived of what was sent: never "offered rate delivered".
        let none = rx(0, LayerRates::default(), Vec::new());
        let j = join(&t, &none, None, Some(&observed(0.0)), "a", "b");
        let v = j.joined_verdict.expect("decided again");
        assert_eq!(v.binding, Limit::Network, "{}", v.explanation);
        assert!(
            v.explanation
                .contains("1,000 frames never reached the port"),
            "{}",
            v.explanation
        );
        // The same without the receiver's observation: its own verdict is
        // not repeated.
        let own = Verdict {
            binding: Limit::None,
            ceilings: Vec::new(),
            explanation: "Offered rate delivered: 0.000 Gbit/s of an unknown rate".into(),
        };
        let text = join(&t, &none, Some(&own), None, "a", "b").text();
        assert!(
            text.ends_with("verdict: none of the 1000 frames sent arrived (the receiver's own verdict, made without the sender's rate, does not apply)\n"),
            "{text}"
        );
        // Nothing arrived because the receiving port refused every frame:
        // the port's, not the network's.
        let mut refusing = observed(0.0);
        refusing.rx_refused = 1000;
        refusing.rx_refused_by = vec![("ierrors".into(), 1000)];
        let j = join(&t, &none, None, Some(&refusing), "a", "b");
        let v = j.joined_verdict.expect("decided again");
        assert_eq!(v.binding, Limit::Port, "{}", v.explanation);
        assert!(
            v.explanation.contains(
                "the receiving port refused 1,000 frames (ierrors 1,000): it counted them \
                 malformed or too long"
            ),
            "{}",
            v.explanation
        );
        assert!(
            v.explanation.contains("lost in network 0,"),
            "{}",
            v.explanation
        );
        // A sender that sent nothing.
        t = tx(0, LayerRates::default(), &[(1, 0)]);
        let j = join(&t, &none, None, Some(&observed(0.0)), "a", "b");
        assert_eq!(j.joined_verdict.unwrap().binding, Limit::Sender);
    }

    #[test]
    fn entries_of_one_stream_are_merged() {
        // A result with one entry per RX lcore for stream 3: 0..=9 seen as
        // 0..=4 on one lcore and 5..=9 on the other.
        let t = tx(10, LayerRates::default(), &[(3, 10)]);
        let mut a = stream(3, [5, 5, 0, 0, 0, 1]);
        a.seq.max_seq = 4;
        let mut b = stream(3, [5, 5, 5, 0, 1, 0]);
        b.seq.max_seq = 9;
        let r = rx(10, LayerRates::default(), vec![a, b]);
        let j = join(&t, &r, None, None, "a", "b");
        assert_eq!(
            j.streams[0],
            JoinedStream {
                id: 3,
                sent: 10,
                received: 10,
                missing: 0,
                lost: 0,
                reordered: 0,
                duplicated: 1,
                corrupt: 1,
                loss_pct: 0.0,
                not_tracked: false,
            }
        );
    }

    #[test]
    fn more_unique_frames_than_sent_is_refused() {
        let t = tx(10, LayerRates::default(), &[(1, 10), (2, 5)]);
        let r = rx(
            16,
            LayerRates::default(),
            vec![
                stream(1, [10, 10, 0, 0, 0, 0]),
                stream(2, [6, 6, 0, 0, 0, 0]),
            ],
        );
        assert_eq!(check_rx(&r), Ok(()));
        assert_eq!(
            check_against(&t, &r, Path::new("tx.json")),
            Err(
                "rx.streams[1].unique: stream 2 has 6 unique frames, more than the 5 the sender \
                 sent of it (tx.json): are both results of the same run?"
                    .into()
            )
        );
        assert_eq!(
            check_tx(&t),
            Err("tx.frames: 10 frames sent in all, fewer than the 15 its streams sent".into())
        );
    }

    #[test]
    fn streams_the_receiver_could_not_track_are_not_missing() {
        let t = tx(300, rates(5e9, 68000.0), &[(1, 100), (2, 200)]);
        let mut r = rx(
            100,
            rates(5e9, 68000.0),
            vec![stream(1, [100, 100, 0, 0, 0, 0])],
        );
        r.overflow = 200;
        r.overflow_streams = 1;
        let j = join(&t, &r, None, None, "a", "b");
        assert!(j.streams[1].not_tracked);
        assert_eq!((j.streams[1].missing, j.streams[1].loss_pct), (0, 0.0));
        assert!(!j.streams[0].not_tracked);
        assert!(!j.exact);
        let text = j.text();
        assert!(
            text.contains("1 streams (200 frames sent) were not tracked by the receiver"),
            "{text}"
        );
        assert!(!text.contains("100.0000"), "{text}");
    }
}
