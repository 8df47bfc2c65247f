//! A certification's figures as text: one rounding rule per kind of figure,
//! and the records every tabular output is rendered from.
//!
//! The CSV, the HTML report, the JUnit XML and the terminal summary never
//! format a number themselves: they take the [`Record`]s of [`results`],
//! [`criteria`], [`trials`] and the others below, whose cells were
//! formatted here by [`Format`]. A cell holds the figure's *plain* text,
//! what the CSV and the JUnit XML write (a number a program reads: no
//! thousands separator, no unit); the HTML report and the terminal show
//! [`shown`] of it (`7,992,699`, `5.37 Gbit/s`), a function of the plain
//! text alone. So every output shows the same figures with the same
//! rounding, and the JSON holds the same figures unrounded.
//!
//! The rules:
//!
//! | figure                         | plain (CSV, JUnit)     | shown (HTML, terminal)          |
//! |--------------------------------|------------------------|---------------------------------|
//! | % of line                      | 2 decimals, more when the search's resolution is finer (0.01 % → 3) | the same |
//! | bit rates                      | whole bit/s            | 3 significant digits, Mbit/s below 1 Gbit/s, else Gbit/s |
//! | frames/s, frames, ns           | whole numbers          | with thousands separators       |
//! | loss %                         | `0` when nothing was lost, else 3 significant digits | the same |
//! | seconds                        | 4 significant digits   | the same                        |
//! | mean burst, frames             | 1 decimal              | with thousands separators       |
//! | flags                          | `yes` / `no`           | the same                        |
//!
//! A figure that is not a number (a mean of nothing) reads `n/a`.

use super::model::Test;
use super::model::NO_RATE;
use super::model::{
    AddressRow, BackToBackRow, Bound, Certification, Criterion, LatencyRow, LossCurve, LossPoint,
    NotMeasured, RecoveryRow, ResetRow, Settings, ThroughputRow, Trial,
};
pub use super::round::*;

/// What bound a throughput result, as the outputs name it.
pub fn bound(b: Bound) -> &'static str {
    match b {
        Bound::Device => "device",
        Bound::Line => "line",
        Bound::Tester => "tester",
        Bound::Top => "search_top",
    }
}

/// The tests a certification shows: those its settings name, then any
/// other it holds results of.
pub fn tests_of(c: &Certification) -> Vec<Test> {
    let mut out: Vec<Test> = Vec::new();
    let named = c.settings.tests.iter().filter_map(|k| Test::from_key(k));
    let found = Test::ALL.into_iter().filter(|t| t.has_results(c));
    for t in named.chain(found) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// What a certification is called in its reports: `RFC 2544
/// certification`, `RFC 2889 evaluation` when it ran RFC 2889's tests
/// only, `RFC 2544 and RFC 2889 certification` when both.
pub fn report_title(c: &Certification) -> &'static str {
    let tests = tests_of(c);
    let of_2889 = tests.iter().filter(|t| t.rfc() == "RFC 2889").count();
    match of_2889 {
        0 => "RFC 2544 certification",
        n if n == tests.len() => "RFC 2889 evaluation",
        _ => "RFC 2544 and RFC 2889 certification",
    }
}

/// What a record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A test's result for one direction and size (for the loss test: one
    /// point of its curve).
    Result,
    /// The device's latency at one direction and size, the tester's
    /// baseline taken out (only when the certification had a baseline).
    Device,
    /// One bucket of a latency row's histogram.
    Bucket,
    /// An acceptance criterion, its state and what was measured.
    Criterion,
    /// One trial.
    Trial,
    /// One direction's share of a trial in which every direction sent at
    /// once (its `trial` column numbers the aggregate trial).
    DirectionTrial,
    /// A test planned for a direction and size that measured nothing
    /// there (its `reason` column says why).
    NotMeasured,
    /// The certification's verdict: state, text and exit status.
    Verdict,
    /// A setting below what RFC 2544 asks (the "not RFC-conformant"
    /// list).
    Deviation,
    /// A fact of the tester's setup: how latency was defined and
    /// timestamped, each stream's frames, each task's lcore and CPU.
    Setup,
}

impl Kind {
    /// Its name in the CSV.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Result => "result",
            Kind::Device => "device",
            Kind::Bucket => "histogram",
            Kind::Criterion => "criterion",
            Kind::Trial => "trial",
            Kind::DirectionTrial => "trial_direction",
            Kind::NotMeasured => "not_measured",
            Kind::Verdict => "verdict",
            Kind::Deviation => "nonconformant",
            Kind::Setup => "setup",
        }
    }
}

/// A column of the records. Its CSV name is [`Column::name`], its HTML
/// heading [`Column::heading`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// The trial's number within its search (1-based).
    Trial,
    /// Rate, % of line at L1 (throughput, latency trials, loss point).
    RatePct,
    /// Rate at L1, bit/s.
    L1Bps,
    /// Rate at L2, bit/s.
    L2Bps,
    /// Frames per second.
    Fps,
    /// What bound a throughput result.
    Bound,
    /// Trials run.
    Trials,
    /// Latency: trials whose figures count (the rest were left out).
    Counted,
    /// Latency minimum, ns.
    MinNs,
    /// Latency mean, ns.
    MeanNs,
    /// Latency median, ns.
    P50Ns,
    /// Latency 99th percentile, ns.
    P99Ns,
    /// Latency 99.9th percentile, ns.
    P999Ns,
    /// Latency maximum, ns.
    MaxNs,
    /// Jitter, ns.
    JitterNs,
    /// Device latency: the tester's own mean latency taken out, ns.
    BaselineNs,
    /// Histogram bucket: its upper bound, ns.
    LeNs,
    /// Histogram bucket: frames in it.
    Frames,
    /// Frame loss rate, %.
    LossPct,
    /// Back-to-back: searches run (the RFC's trials).
    Searches,
    /// Back-to-back: each search's longest loss-free burst, frames.
    Bursts,
    /// Back-to-back: mean longest loss-free burst, frames.
    MeanFrames,
    /// Back-to-back: standard deviation of the searches' bursts, frames.
    StddevFrames,
    /// Back-to-back: the mean burst's length at line rate, seconds (RFC
    /// 9004's implied buffer time).
    MeanS,
    /// Back-to-back: RFC 9004's corrected buffer time, seconds.
    CorrectedS,
    /// Back-to-back: the throughput the correction used, frames/s.
    ThroughputFps,
    /// Back-to-back: no loss even at the longest burst tried.
    AtLimit,
    /// Recovery: the overload, % of line at L1.
    OverloadPct,
    /// Recovery: the load after the drop, % of line at L1.
    ReducedPct,
    /// Recovery and reset: the mean time of the trials that count,
    /// seconds.
    MeanTimeS,
    /// Recovery and reset: each counted trial's time, seconds.
    Times,
    /// Recovery and reset: why the row has no figure, or one to read
    /// with care.
    Note,
    /// Trial: offered load, % of line.
    OfferedPct,
    /// Trial: load sent, % of line.
    SentPct,
    /// Trial: frames sent.
    TxFrames,
    /// Trial: frames received good.
    RxFrames,
    /// Trial: frames lost.
    Lost,
    /// Trial: frames out of order.
    Reordered,
    /// Trial: frames received twice.
    Duplicated,
    /// Trial: frames corrupt.
    Corrupt,
    /// Trial: seconds sent.
    DurationS,
    /// Trial of recovery or reset: its time, seconds (recovery: from the
    /// drop to the first frame through after the last loss; reset: the
    /// longest gap between two arrivals).
    TimeS,
    /// The tester, not the device, limited the figure.
    TesterBound,
    /// Trial or criterion met.
    Passed,
    /// Criterion or verdict: its state (`pass`, `fail`, `not judged`;
    /// a verdict's key).
    State,
    /// Criterion: what was asked.
    Wanted,
    /// Criterion: what was measured.
    Measured,
    /// Trial: its problems, `; ` between them.
    Problems,
    /// Trial: why its figures were left out (and tried again).
    Excluded,
    /// Not measured: why.
    Reason,
    /// Verdict: its line, as the terminal prints it.
    Text,
    /// Verdict: the exit status.
    Exit,
    /// Deviation or setup: the setting's key.
    Setting,
    /// Deviation or setup: its value.
    Value,
    /// Deviation: what RFC 2544 asks.
    Rfc,
    /// Address searches: the addresses held (caching) or taught
    /// (learning rate); a trial's addresses.
    Addresses,
    /// Address searches: the learning rate found (learning rate) or
    /// used (caching), frames/s; a trial's learning frames' rate asked.
    LearningFps,
    /// Address searches: the range searched (`1–1024`).
    Searched,
    /// Trial: frames that reached a port they were not addressed to
    /// (flooded), every port together.
    Foreign,
}

impl Column {
    /// Every column, in the CSV's order.
    pub const ALL: [Column; 59] = [
        Column::Trial,
        Column::RatePct,
        Column::L1Bps,
        Column::L2Bps,
        Column::Fps,
        Column::Bound,
        Column::Trials,
        Column::Counted,
        Column::MinNs,
        Column::MeanNs,
        Column::P50Ns,
        Column::P99Ns,
        Column::P999Ns,
        Column::MaxNs,
        Column::JitterNs,
        Column::BaselineNs,
        Column::LeNs,
        Column::Frames,
        Column::LossPct,
        Column::Searches,
        Column::Bursts,
        Column::MeanFrames,
        Column::StddevFrames,
        Column::MeanS,
        Column::CorrectedS,
        Column::ThroughputFps,
        Column::AtLimit,
        Column::OverloadPct,
        Column::ReducedPct,
        Column::MeanTimeS,
        Column::Times,
        Column::Note,
        Column::OfferedPct,
        Column::SentPct,
        Column::TxFrames,
        Column::RxFrames,
        Column::Lost,
        Column::Reordered,
        Column::Duplicated,
        Column::Corrupt,
        Column::DurationS,
        Column::TimeS,
        Column::TesterBound,
        Column::Passed,
        Column::State,
        Column::Wanted,
        Column::Measured,
        Column::Problems,
        Column::Excluded,
        Column::Reason,
        Column::Text,
        Column::Exit,
        Column::Setting,
        Column::Value,
        Column::Rfc,
        Column::Addresses,
        Column::LearningFps,
        Column::Searched,
        Column::Foreign,
    ];

    /// Its name in the CSV header.
    pub fn name(self) -> &'static str {
        self.names().0
    }

    /// Its heading in the HTML report, unit included.
    pub fn heading(self) -> &'static str {
        self.names().1
    }

    /// The column of CSV name `name`.
    pub fn from_name(name: &str) -> Option<Column> {
        Column::ALL.into_iter().find(|c| c.name() == name)
    }

    fn names(self) -> (&'static str, &'static str) {
        match self {
            Column::Trial => ("trial", "trial"),
            Column::RatePct => ("rate_pct", "% of line"),
            Column::L1Bps => ("l1_bps", "L1 rate"),
            Column::L2Bps => ("l2_bps", "L2 rate"),
            Column::Fps => ("fps", "frames/s"),
            Column::Bound => ("bound", "bound"),
            Column::Trials => ("trials", "trials"),
            Column::Counted => ("counted", "counted"),
            Column::MinNs => ("min_ns", "min ns"),
            Column::MeanNs => ("mean_ns", "mean ns"),
            Column::P50Ns => ("p50_ns", "p50 ns"),
            Column::P99Ns => ("p99_ns", "p99 ns"),
            Column::P999Ns => ("p999_ns", "p99.9 ns"),
            Column::MaxNs => ("max_ns", "max ns"),
            Column::JitterNs => ("jitter_ns", "jitter ns"),
            Column::BaselineNs => ("baseline_ns", "tester's mean ns"),
            Column::LeNs => ("le_ns", "up to ns"),
            Column::Frames => ("frames", "frames"),
            Column::LossPct => ("loss_pct", "loss %"),
            Column::Searches => ("searches", "searches"),
            Column::Bursts => ("bursts", "each search, frames"),
            Column::MeanFrames => ("mean_frames", "mean burst, frames"),
            Column::StddevFrames => ("stddev_frames", "std. dev., frames"),
            Column::MeanS => ("mean_s", "buffer time, s"),
            Column::CorrectedS => ("corrected_s", "corrected, s"),
            Column::ThroughputFps => ("throughput_fps", "throughput used, frames/s"),
            Column::AtLimit => ("at_limit", "at limit"),
            Column::OverloadPct => ("overload_pct", "overload, % of line"),
            Column::ReducedPct => ("reduced_pct", "reduced, % of line"),
            Column::MeanTimeS => ("mean_time_s", "mean time, s"),
            Column::Times => ("times_s", "each trial, s"),
            Column::Note => ("note", "note"),
            Column::OfferedPct => ("offered_pct", "offered %"),
            Column::SentPct => ("sent_pct", "sent %"),
            Column::TxFrames => ("tx_frames", "sent"),
            Column::RxFrames => ("rx_frames", "received"),
            Column::Lost => ("lost", "lost"),
            Column::Reordered => ("reordered", "reordered"),
            Column::Duplicated => ("duplicated", "duplicated"),
            Column::Corrupt => ("corrupt", "corrupt"),
            Column::DurationS => ("duration_s", "s"),
            Column::TimeS => ("time_s", "time, s"),
            Column::TesterBound => ("tester_bound", "tester-bound"),
            Column::Passed => ("passed", "passed"),
            Column::State => ("state", "state"),
            Column::Wanted => ("wanted", "wanted"),
            Column::Measured => ("measured", "measured"),
            Column::Problems => ("problems", "problems"),
            Column::Excluded => ("excluded", "left out"),
            Column::Reason => ("reason", "reason"),
            Column::Text => ("text", "verdict"),
            Column::Exit => ("exit", "exit status"),
            Column::Setting => ("setting", "setting"),
            Column::Value => ("value", "value"),
            Column::Rfc => ("rfc", "RFC 2544 asks"),
            Column::Addresses => ("addresses", "addresses"),
            Column::LearningFps => ("learning_fps", "learning frames/s"),
            Column::Searched => ("searched", "searched"),
            Column::Foreign => ("foreign", "flooded"),
        }
    }

    /// A column of words, not figures (left-aligned in tables).
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Column::Bound
                | Column::State
                | Column::Wanted
                | Column::Measured
                | Column::Problems
                | Column::Excluded
                | Column::Reason
                | Column::Note
                | Column::Text
                | Column::Setting
                | Column::Value
                | Column::Rfc
                | Column::Searched
        )
    }
}

/// What the HTML report and the terminal show for the plain text `plain`
/// of a cell of `column` (see the module's rules): counts, frames/s and
/// nanoseconds with thousands separators, bit rates in the unit that fits
/// them, each search's burst (and each recovery or reset trial's time)
/// separated by `; `, a correction not made `–`; every other cell as it
/// is.
pub fn shown(column: Column, plain: &str) -> String {
    match column {
        // A correction not made (no device throughput to correct with).
        Column::CorrectedS | Column::ThroughputFps if plain.is_empty() => "–".to_string(),
        Column::L1Bps | Column::L2Bps => match plain.parse::<f64>() {
            Ok(x) => rate(x),
            Err(_) => plain.to_string(),
        },
        Column::Fps
        | Column::Trials
        | Column::Counted
        | Column::MinNs
        | Column::MeanNs
        | Column::P50Ns
        | Column::P99Ns
        | Column::P999Ns
        | Column::MaxNs
        | Column::JitterNs
        | Column::BaselineNs
        | Column::LeNs
        | Column::Frames
        | Column::Searches
        | Column::MeanFrames
        | Column::StddevFrames
        | Column::ThroughputFps
        | Column::TxFrames
        | Column::RxFrames
        | Column::Lost
        | Column::Reordered
        | Column::Duplicated
        | Column::Corrupt
        | Column::Addresses
        | Column::LearningFps
        | Column::Foreign => grouped(plain),
        // A range: each end grouped.
        Column::Searched => {
            let ends: Vec<String> = plain.split('–').map(grouped).collect();
            ends.join("–")
        }
        Column::Bursts | Column::Times => {
            // Grouped numbers hold commas: the list is told apart by `; `.
            let each: Vec<String> = plain.split_whitespace().map(grouped).collect();
            each.join("; ")
        }
        _ => plain.to_string(),
    }
}

/// One row of a certification's tables: what the CSV writes as a line and
/// the HTML as a table row.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The test it belongs to; `None` for a record of the whole
    /// certification (its verdict, a setting not conformant, a fact of
    /// the setup), whose test the CSV names `certification`.
    pub test: Option<Test>,
    /// What it is.
    pub kind: Kind,
    /// Direction label (empty for a record of the whole certification).
    pub direction: String,
    /// Frame size with FCS, bytes (0 for a record of the whole
    /// certification).
    pub frame_size: u32,
    /// Its figures, plain (as the CSV writes them), in the order the
    /// report shows them.
    pub cells: Vec<(Column, String)>,
}

/// The `test` column of a record of the whole certification.
pub const WHOLE: &str = "certification";

impl Record {
    fn new(test: Test, kind: Kind, direction: &str, frame_size: u32) -> Self {
        Self {
            test: Some(test),
            kind,
            direction: direction.to_string(),
            frame_size,
            cells: Vec::new(),
        }
    }

    fn whole(kind: Kind) -> Self {
        Self {
            test: None,
            kind,
            direction: String::new(),
            frame_size: 0,
            cells: Vec::new(),
        }
    }

    fn with(mut self, column: Column, text: impl Into<String>) -> Self {
        self.cells.push((column, text.into()));
        self
    }

    /// Its test's key, or [`WHOLE`].
    pub fn test_key(&self) -> &'static str {
        self.test.map_or(WHOLE, Test::key)
    }

    /// The plain text of `column`, when the record has it.
    pub fn get(&self, column: Column) -> Option<&str> {
        self.cells
            .iter()
            .find(|(c, _)| *c == column)
            .map(|(_, text)| text.as_str())
    }

    /// True when the record's figures are the tester's limit, not the
    /// device's.
    pub fn tester_bound(&self) -> bool {
        self.get(Column::TesterBound) == Some("yes") || self.get(Column::Bound) == Some("tester")
    }
}

/// The results of every test, in the order of the certification: one
/// record per direction and size (per point for the loss curves).
pub fn results(c: &Certification) -> Vec<Record> {
    let f = Format::new(c.settings.resolution_pct);
    let mut out: Vec<Record> = Vec::new();
    out.extend(c.throughput.iter().map(|r| throughput(&f, r)));
    out.extend(c.latency.iter().map(|r| latency(&f, r)));
    out.extend(c.loss.iter().flat_map(|r| loss(&f, r)));
    out.extend(c.back_to_back.iter().map(back_to_back));
    out.extend(c.recovery.iter().map(|r| recovery(&f, r)));
    out.extend(c.reset.iter().map(|r| reset(&f, r)));
    out.extend((c.address_caching.iter()).map(|r| address(Test::AddressCaching, r)));
    out.extend((c.learning_rate.iter()).map(|r| address(Test::LearningRate, r)));
    out
}

fn throughput(f: &Format, r: &ThroughputRow) -> Record {
    Record::new(Test::Throughput, Kind::Result, &r.direction, r.frame_size)
        .with(Column::RatePct, f.pct(r.rate_pct))
        .with(Column::L1Bps, bps(r.l1_bps))
        .with(Column::L2Bps, bps(r.l2_bps))
        .with(Column::Fps, whole(r.fps))
        .with(Column::Bound, bound(r.bound))
        .with(Column::Trials, r.trial_count.to_string())
}

fn latency(f: &Format, r: &LatencyRow) -> Record {
    let s = &r.summary;
    Record::new(Test::Latency, Kind::Result, &r.direction, r.frame_size)
        .with(Column::RatePct, f.pct(r.rate_pct))
        .with(Column::Trials, r.trials.len().to_string())
        .with(Column::Counted, r.counted.to_string())
        .with(Column::MinNs, whole(s.min_ns))
        .with(Column::MeanNs, whole(s.mean_ns))
        .with(Column::P50Ns, whole(s.p50_ns))
        .with(Column::P99Ns, whole(s.p99_ns))
        .with(Column::P999Ns, whole(s.p999_ns))
        .with(Column::MaxNs, whole(s.max_ns))
        .with(Column::JitterNs, whole(r.jitter_ns))
        .with(Column::TesterBound, yes_no(r.tester_bound()))
}

/// The device's latency of every row the tester's baseline corrected
/// (see [`crate::certify::latency::device`]): the baseline's mean taken
/// out, then its figures, in the order of the rows.
pub fn device_latency(c: &Certification) -> Vec<Record> {
    let f = Format::new(c.settings.resolution_pct);
    let record = |r: &LatencyRow| {
        let (b, d) = (r.baseline.as_ref()?, r.device.as_ref()?);
        Some(
            Record::new(Test::Latency, Kind::Device, &r.direction, r.frame_size)
                .with(Column::RatePct, f.pct(r.rate_pct))
                .with(Column::BaselineNs, whole(b.mean_ns))
                .with(Column::MinNs, whole(d.min_ns))
                .with(Column::MeanNs, whole(d.mean_ns))
                .with(Column::P50Ns, whole(d.p50_ns))
                .with(Column::P99Ns, whole(d.p99_ns))
                .with(Column::P999Ns, whole(d.p999_ns))
                .with(Column::MaxNs, whole(d.max_ns)),
        )
    };
    c.latency.iter().filter_map(record).collect()
}

/// Every latency row's histogram: a record per non-empty bucket (its
/// upper bound and its frames), in the order of the rows.
pub fn histograms(c: &Certification) -> Vec<Record> {
    let mut out = Vec::new();
    for r in &c.latency {
        for b in &r.histogram {
            out.push(
                Record::new(Test::Latency, Kind::Bucket, &r.direction, r.frame_size)
                    .with(Column::LeNs, b.le_ns.to_string())
                    .with(Column::Frames, b.count.to_string()),
            );
        }
    }
    out
}

fn loss(f: &Format, r: &LossCurve) -> Vec<Record> {
    let point = |p: &LossPoint| {
        Record::new(Test::Loss, Kind::Result, &r.direction, r.frame_size)
            .with(Column::RatePct, f.pct(p.rate_pct))
            .with(Column::LossPct, loss_pct(p.loss_pct))
            .with(Column::TesterBound, yes_no(p.trial.tester_bound))
    };
    r.points.iter().map(point).collect()
}

fn back_to_back(r: &BackToBackRow) -> Record {
    let bursts: Vec<String> = r.bursts.iter().map(u64::to_string).collect();
    Record::new(Test::BackToBack, Kind::Result, &r.direction, r.frame_size)
        .with(Column::Trials, r.trials.len().to_string())
        .with(Column::Searches, r.bursts.len().to_string())
        .with(Column::MeanFrames, mean_frames(r.mean_frames))
        .with(Column::StddevFrames, mean_frames(r.stddev_frames))
        .with(Column::MeanS, seconds(r.mean_s))
        .with(
            Column::CorrectedS,
            r.corrected_s.map(seconds).unwrap_or_default(),
        )
        .with(
            Column::ThroughputFps,
            r.throughput_fps.map(whole).unwrap_or_default(),
        )
        .with(Column::AtLimit, yes_no(r.at_limit))
        .with(Column::TesterBound, yes_no(r.bound == Bound::Tester))
        .with(Column::Bursts, bursts.join(" "))
}

fn recovery(f: &Format, r: &RecoveryRow) -> Record {
    Record::new(Test::Recovery, Kind::Result, &r.direction, r.frame_size)
        .with(Column::OverloadPct, f.pct(r.overload_pct))
        .with(Column::ReducedPct, f.pct(r.reduced_pct))
        .with(Column::Trials, r.trials.len().to_string())
        .with(Column::Counted, r.recovery_s.len().to_string())
        .with(Column::MeanTimeS, mean_time(r.mean_s))
        .with(Column::Times, times(&r.recovery_s))
        .with(Column::Note, r.note.clone().unwrap_or_default())
}

fn reset(f: &Format, r: &ResetRow) -> Record {
    Record::new(Test::Reset, Kind::Result, &r.direction, r.frame_size)
        .with(Column::RatePct, f.pct(r.rate_pct))
        .with(Column::Trials, r.trials.len().to_string())
        .with(Column::Counted, r.reset_s.len().to_string())
        .with(Column::MeanTimeS, mean_time(r.mean_s))
        .with(Column::Times, times(&r.reset_s))
        .with(Column::Note, r.note.clone().unwrap_or_default())
}

/// An address search's row: its figure ([`NOT_A_NUMBER`] when none
/// passed), the range searched, what bound it.
fn address(test: Test, r: &AddressRow) -> Record {
    let opt = |v: Option<f64>| v.map_or_else(|| NOT_A_NUMBER.to_string(), whole);
    let [least, most] = r.searched;
    Record::new(test, Kind::Result, &r.direction, r.frame_size)
        .with(Column::Addresses, opt(r.addresses.map(|n| n as f64)))
        .with(Column::LearningFps, opt(r.learning_fps))
        .with(
            Column::Searched,
            format!("{}–{}", whole(least), whole(most)),
        )
        .with(Column::Bound, bound(r.bound))
        .with(Column::Trials, r.trials.len().to_string())
        .with(Column::Note, r.note.clone().unwrap_or_default())
}

/// A mean time in seconds; [`NOT_A_NUMBER`] when no trial counted.
fn mean_time(mean_s: Option<f64>) -> String {
    mean_s.map_or_else(|| NOT_A_NUMBER.to_string(), seconds)
}

/// Times in seconds, separated by spaces.
fn times(each_s: &[f64]) -> String {
    let each: Vec<String> = each_s.iter().map(|&s| seconds(s)).collect();
    each.join(" ")
}

/// The verdict: one record, its state, exit status and text the
/// certification's [`crate::certify::model::VerdictRecord`] (see
/// [`super::verdict::verdict_of`]).
pub fn verdict(c: &Certification) -> Record {
    let v = super::verdict::verdict_of(c);
    Record::whole(Kind::Verdict)
        .with(Column::State, v.state)
        .with(Column::Exit, v.exit.to_string())
        .with(Column::Text, v.text)
}

/// Every setting below RFC 2544's, a record each (the
/// certification's `nonconformant`).
pub fn deviations(c: &Certification) -> Vec<Record> {
    let record = |d: &super::model::Deviation| {
        Record::whole(Kind::Deviation)
            .with(Column::Setting, d.setting.as_str())
            .with(Column::Value, d.value.as_str())
            .with(Column::Rfc, d.rfc.as_str())
    };
    c.nonconformant.iter().map(record).collect()
}

/// The facts of the tester's setup a lab reads beside the figures, as
/// key and value: `quick` (settings below RFC 2544's asked for on
/// purpose), `latency_definition` (its key), `latency_method`, the
/// `baseline` when there was one, then a `frames` record per stream and
/// a `task` record per lcore.
pub fn setup(c: &Certification) -> Vec<Record> {
    let kv = |k: &str, v: String| {
        Record::whole(Kind::Setup)
            .with(Column::Setting, k)
            .with(Column::Value, v)
    };
    let mut out = vec![
        kv("quick", yes_no(c.settings.quick).to_string()),
        kv(
            "latency_definition",
            c.settings.latency_definition.key().to_string(),
        ),
        kv("latency_method", method(c).to_string()),
    ];
    if let Some(b) = &c.baseline {
        out.push(kv("baseline", baseline_text(b)));
    }
    if let Some(t) = imix_text(&c.settings) {
        out.push(kv("imix", t));
    }
    if let Some(t) = direction_loads_text(c) {
        out.push(kv("direction_loads", t));
    }
    out.extend(c.frames.iter().map(|f| kv("frames", f.clone())));
    out.extend(c.tasks.iter().map(|t| kv("task", t.text())));
    out
}

/// What the size `IMIX` sent, in words (its sizes in order and their
/// mean); `None` without an IMIX.
pub fn imix_text(s: &Settings) -> Option<String> {
    if s.imix.is_empty() {
        return None;
    }
    let sizes: Vec<String> = s.imix.iter().map(u32::to_string).collect();
    Some(format!(
        "{} B in this order, repeating (mean {} B)",
        sizes.join(", "),
        trimmed(s.mean_bytes(super::model::IMIX))
    ))
}

/// Each direction's share of an aggregate trial's load, in words;
/// `None` when every direction offers the whole load.
pub fn direction_loads_text(c: &Certification) -> Option<String> {
    if c.settings.direction_loads.is_empty() {
        return None;
    }
    let each: Vec<String> = (c.directions.iter().enumerate())
        .map(|(d, label)| format!("{label} {} %", trimmed(c.settings.share_of(d) * 100.0)))
        .collect();
    Some(each.join(", "))
}

/// How latency was timestamped, in words; when the certification does
/// not say, that it does not.
pub fn method(c: &Certification) -> &str {
    if c.latency_method.is_empty() {
        "not recorded"
    } else {
        &c.latency_method
    }
}

/// The baseline a certification was corrected with, in words.
pub fn baseline_text(b: &super::model::BaselineInfo) -> String {
    format!(
        "{}, recorded {} by profile {}",
        b.file, b.recorded, b.profile
    )
}

/// What the latency figures are without a baseline, in words.
pub const NO_BASELINE: &str = "no tester baseline: the figures include the tester's own \
                               latency, so they are an upper bound of the device's";

/// What a test, direction and size did not measure: one record per test,
/// direction and size in its `not_measured`, the reason in [`Column::Reason`].
pub fn not_measured(c: &Certification) -> Vec<Record> {
    let record = |n: &NotMeasured| {
        let test = Test::from_key(&n.test).unwrap_or(Test::Throughput);
        Record::new(test, Kind::NotMeasured, &n.direction, n.frame_size)
            .with(Column::Reason, n.reason.as_str())
    };
    c.not_measured.iter().map(record).collect()
}
/// Why `test` measured nothing in `direction` at `size`, when the
/// certification says it did not.
pub fn why_not<'a>(
    c: &'a Certification,
    test: Test,
    direction: &str,
    size: u32,
) -> Option<&'a str> {
    (c.not_measured.iter())
        .find(|n| {
            Test::from_key(&n.test) == Some(test)
                && n.direction == direction
                && n.frame_size == size
        })
        .map(|n| n.reason.as_str())
}

/// Directions, each with the frame sizes something holds for.
type Places = Vec<(String, Vec<u32>)>;

/// The sentence that stands in for the results of `test` when it has
/// none (the terminal table says it, the HTML report says it where the
/// chart would be): `No latency measured: no frame size had a throughput
/// rate (p0 → p1 64, 1518 B: ...).`, its `not_measured` reasons
/// gathered, each after the directions and sizes it holds for. `None`
/// when the test has results.
pub fn nothing_measured(c: &Certification, test: Test) -> Option<String> {
    if test.has_results(c) {
        return None;
    }
    let what = test.title().to_lowercase();
    let mine: Vec<&NotMeasured> = (c.not_measured.iter())
        .filter(|n| Test::from_key(&n.test) == Some(test))
        .collect();
    if mine.is_empty() {
        let why = if c.complete {
            ""
        } else {
            ": the certification stopped before this test"
        };
        return Some(format!("No {what} measured{why}."));
    }
    let no_rate = mine.iter().all(|n| n.reason.starts_with(NO_RATE));
    let reason = |n: &NotMeasured| -> String {
        match n.reason.strip_prefix(NO_RATE).filter(|_| no_rate) {
            Some(rest) => rest.trim_start_matches(':').trim_start().to_string(),
            None => n.reason.clone(),
        }
    };
    // Each reason once, with the directions and sizes it holds for.
    let mut groups: Vec<(String, Places)> = Vec::new();
    for n in &mine {
        let r = reason(n);
        let at = match groups.iter_mut().position(|(g, _)| *g == r) {
            Some(i) => &mut groups[i].1,
            None => {
                groups.push((r, Vec::new()));
                &mut groups.last_mut().expect("just pushed").1
            }
        };
        match at.iter_mut().find(|(d, _)| *d == n.direction) {
            Some((_, sizes)) => sizes.push(n.frame_size),
            None => at.push((n.direction.clone(), vec![n.frame_size])),
        }
    }
    let text: Vec<String> = (groups.iter())
        .map(|(r, at)| {
            let places: Vec<String> = (at.iter())
                .map(|(d, sizes)| format!("{d} {}", super::model::sizes_text(sizes)))
                .collect();
            format!("{}: {r}", places.join(" and "))
        })
        .collect();
    Some(if no_rate {
        format!(
            "No {what} measured: no frame size had a throughput rate ({}).",
            text.join("; ")
        )
    } else {
        format!("No {what} measured: {}.", text.join("; "))
    })
}

/// The acceptance criteria, one record each: what was wanted and
/// measured, whether it was met, and its state ([`Criterion::state`]:
/// `pass`, `fail` or `not judged`, the word every output uses).
pub fn criteria(c: &Certification) -> Vec<Record> {
    c.criteria.iter().map(criterion).collect()
}

fn criterion(k: &Criterion) -> Record {
    let test = Test::from_key(&k.test).unwrap_or(Test::Throughput);
    Record::new(test, Kind::Criterion, &k.direction, k.frame_size)
        .with(Column::Wanted, k.wanted.as_str())
        .with(Column::Measured, k.measured.as_str())
        .with(Column::Passed, yes_no(k.passed))
        .with(Column::State, k.state())
}

/// Every trial of every test, in the order they ran within each search
/// (a loss point's earlier tries, which the tester bounded, before it).
pub fn trials(c: &Certification) -> Vec<Record> {
    let f = Format::new(c.settings.resolution_pct);
    let mut out = Vec::new();
    each_trial(c, |test, n, t| out.push(trial(&f, test, n, t)));
    out
}

/// Each direction's share of every trial in which every direction sent at
/// once, in the order of [`trials`]: one record per direction, numbered
/// as its trial.
pub fn direction_trials(c: &Certification) -> Vec<Record> {
    let f = Format::new(c.settings.resolution_pct);
    let mut out = Vec::new();
    each_trial(c, |test, n, t| {
        out.extend(
            t.per_direction
                .iter()
                .map(|d| direction_trial(&f, test, n, t, d)),
        );
    });
    out
}

/// Calls `f` with every trial, its test and its number (1-based) within
/// its search; a loss point's earlier tries come before its trial.
fn each_trial(c: &Certification, mut f: impl FnMut(Test, usize, &Trial)) {
    let mut add = |test: Test, list: &mut dyn Iterator<Item = &Trial>| {
        for (i, t) in list.enumerate() {
            f(test, i + 1, t);
        }
    };
    for r in &c.throughput {
        add(Test::Throughput, &mut r.trials.iter());
    }
    for r in &c.latency {
        add(Test::Latency, &mut r.trials.iter());
    }
    for r in &c.loss {
        let mut tries = (r.points.iter()).flat_map(|p| p.retried.iter().chain([&p.trial]));
        add(Test::Loss, &mut tries);
    }
    for r in &c.back_to_back {
        add(Test::BackToBack, &mut r.trials.iter());
    }
    for r in &c.recovery {
        add(Test::Recovery, &mut r.trials.iter());
    }
    for r in &c.reset {
        add(Test::Reset, &mut r.trials.iter());
    }
    for r in &c.address_caching {
        add(Test::AddressCaching, &mut r.trials.iter());
    }
    for r in &c.learning_rate {
        add(Test::LearningRate, &mut r.trials.iter());
    }
}

fn direction_trial(
    f: &Format,
    test: Test,
    n: usize,
    t: &Trial,
    d: &super::model::DirectionFigures,
) -> Record {
    let lat = |pick: fn(&crate::report::Percentiles) -> f64| {
        d.latency
            .as_ref()
            .map(|p| whole(pick(p)))
            .unwrap_or_default()
    };
    Record::new(test, Kind::DirectionTrial, &d.direction, t.frame_size)
        .with(Column::Trial, n.to_string())
        .with(Column::OfferedPct, f.pct(t.offered_pct))
        .with(Column::TxFrames, d.tx_frames.to_string())
        .with(Column::RxFrames, d.rx_frames.to_string())
        .with(Column::Lost, d.lost.to_string())
        .with(Column::LossPct, loss_pct(d.loss_pct))
        .with(Column::Reordered, d.reordered.to_string())
        .with(Column::Duplicated, d.duplicated.to_string())
        .with(Column::Corrupt, d.corrupt.to_string())
        .with(Column::MinNs, lat(|p| p.min_ns))
        .with(Column::MeanNs, lat(|p| p.mean_ns))
        .with(Column::P50Ns, lat(|p| p.p50_ns))
        .with(Column::P99Ns, lat(|p| p.p99_ns))
        .with(Column::P999Ns, lat(|p| p.p999_ns))
        .with(Column::MaxNs, lat(|p| p.max_ns))
}

fn trial(f: &Format, test: Test, n: usize, t: &Trial) -> Record {
    let lat = |pick: fn(&crate::report::Percentiles) -> f64| {
        t.latency
            .as_ref()
            .map(|p| whole(pick(p)))
            .unwrap_or_default()
    };
    let problems: Vec<String> = t.problems.iter().map(|p| p.text()).collect();
    let time_ns = match test {
        Test::Recovery => Some(t.recovery_ns),
        Test::Reset => Some(t.gap_max_ns),
        _ => None,
    };
    let record = Record::new(test, Kind::Trial, &t.direction, t.frame_size)
        .with(Column::Trial, n.to_string())
        .with(Column::OfferedPct, f.pct(t.offered_pct))
        .with(Column::SentPct, f.pct(t.sent_pct))
        .with(Column::TxFrames, t.tx_frames.to_string())
        .with(Column::RxFrames, t.rx_frames.to_string())
        .with(Column::Lost, t.lost.to_string())
        .with(Column::LossPct, loss_pct(t.loss_pct))
        .with(Column::Reordered, t.reordered.to_string())
        .with(Column::Duplicated, t.duplicated.to_string())
        .with(Column::Corrupt, t.corrupt.to_string())
        .with(Column::P50Ns, lat(|p| p.p50_ns))
        .with(Column::P99Ns, lat(|p| p.p99_ns))
        .with(Column::MaxNs, lat(|p| p.max_ns))
        .with(Column::DurationS, seconds(t.duration_s));
    // Recovery and reset trials show their time (empty when the trial
    // measured none).
    let record = match time_ns {
        Some(ns) => record.with(
            Column::TimeS,
            ns.map(|ns| seconds(ns / 1e9)).unwrap_or_default(),
        ),
        None => record,
    };
    // An address search's trial: its addresses, learning rate and the
    // frames flooded.
    let record = match t.addresses {
        Some(n) => {
            let paced = t.learning.as_ref().and_then(|l| l.paced_fps);
            record
                .with(Column::Addresses, n.to_string())
                .with(Column::LearningFps, paced.map(whole).unwrap_or_default())
                .with(Column::Foreign, t.foreign.to_string())
        }
        None => record,
    };
    record
        .with(Column::TesterBound, yes_no(t.tester_bound))
        .with(Column::Passed, yes_no(t.passed))
        .with(Column::Problems, problems.join("; "))
        .with(Column::Excluded, t.excluded.clone().unwrap_or_default())
}

/// Every trial whose figures were left out of its row, and why: its
/// test, direction, size, number within its search (as in [`trials`])
/// and reason, in the order of [`trials`].
pub fn left_out(c: &Certification) -> Vec<(Test, String, u32, usize, String)> {
    let mut out = Vec::new();
    each_trial(c, |test, n, t| {
        if let Some(why) = &t.excluded {
            out.push((test, t.direction.clone(), t.frame_size, n, why.clone()));
        }
    });
    out
}

/// The L2 rate at line rate for `frame_size` (frames with FCS), bit/s:
/// the ceiling a throughput at L2 is drawn against.
pub fn line_l2_bps(line_bps: u64, frame_size: u32) -> f64 {
    let size = f64::from(frame_size);
    line_bps as f64 * size / (size + crate::units::L1_OVERHEAD as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::sample;

    #[test]
    fn the_imix_is_named_and_spelled_out_and_direction_loads_listed() {
        use crate::certify::model::{Size, IMIX};
        assert_eq!(
            format!("{:>6}|{:<6}|", Size(IMIX), Size(64)),
            "  IMIX|64    |"
        );
        assert_eq!(
            (Size(IMIX).bytes(), Size(1518).bytes()),
            ("IMIX".into(), "1518 B".into())
        );
        let mut c = sample::bidirectional();
        assert_eq!(
            (imix_text(&c.settings), direction_loads_text(&c)),
            (None, None)
        );
        c.settings.imix = vec![64, 64, 512, 1518];
        assert_eq!(
            imix_text(&c.settings).unwrap(),
            "64, 64, 512, 1518 B in this order, repeating (mean 539.5 B)"
        );
        c.settings.direction_loads = vec![100.0, 40.0];
        let dirs = &c.directions;
        assert_eq!(
            direction_loads_text(&c).unwrap(),
            format!("{} 100 %, {} 40 %", dirs[0], dirs[1])
        );
        let keys: Vec<String> = (setup(&c).iter())
            .filter_map(|r| r.get(Column::Setting).map(String::from))
            .filter(|k| k == "imix" || k == "direction_loads")
            .collect();
        assert_eq!(keys, ["imix", "direction_loads"]);
        // Every output names the IMIX row `IMIX`, never size 0.
        c.throughput[0].frame_size = IMIX;
        let csv = crate::certify::csv::render(&c);
        let line = csv
            .lines()
            .find(|l| l.starts_with("throughput,result,"))
            .unwrap();
        assert!(line.contains(",IMIX,"), "{line}");
        let table =
            crate::certify::table::summary(&c, crate::certify::table::Verdict::of(&c, false));
        assert!(table.contains("\n    IMIX "), "{table}");
    }

    #[test]
    fn pct_decimals_follow_the_resolution() {
        assert_eq!(pct_decimals(0.1), 2);
        assert_eq!(pct_decimals(1.0), 2);
        assert_eq!(pct_decimals(0.05), 3);
        assert_eq!(pct_decimals(0.01), 3);
        assert_eq!(pct_decimals(0.001), 4);
        assert_eq!(pct_decimals(1e-9), 6);
        assert_eq!(pct_decimals(0.0), 2);
        assert_eq!(pct_decimals(-1.0), 2);
        assert_eq!(pct_decimals(f64::NAN), 2);
        let mut s = sample::complete().settings;
        s.resolution_pct = 0.01;
        assert_eq!(Format::new(s.resolution_pct).pct(99.90234375), "99.902");
        s.resolution_pct = 0.1;
        assert_eq!(Format::new(s.resolution_pct).pct(99.90234375), "99.90");
    }

    #[test]
    fn fixed_rounds_and_never_reads_minus_zero() {
        assert_eq!(fixed(53.7109375, 2), "53.71");
        assert_eq!(fixed(-0.001, 2), "0.00");
        assert_eq!(fixed(-0.0, 0), "0");
        assert_eq!(fixed(-1.5, 1), "-1.5");
        assert_eq!(fixed(-0.01, 2), "-0.01");
        assert_eq!(fixed(f64::NAN, 2), "n/a");
        assert_eq!(fixed(f64::INFINITY, 2), "n/a");
        assert_eq!(fixed(2.0, 0), "2");
    }

    #[test]
    fn significant_digits_without_exponents() {
        assert_eq!(significant(12.3456, 3), "12.3");
        assert_eq!(significant(100.0, 3), "100");
        assert_eq!(significant(1234.6, 3), "1235");
        assert_eq!(significant(1234.4, 3), "1234");
        assert_eq!(significant(0.000123456, 3), "0.000123");
        assert_eq!(significant(0.5, 3), "0.500");
        assert_eq!(significant(1.0, 3), "1.00");
        assert_eq!(significant(0.0, 3), "0");
        assert_eq!(significant(-0.25, 2), "-0.25");
        assert_eq!(significant(1e-15, 3), "0.000000000000");
        assert_eq!(significant(f64::NAN, 3), "n/a");
        assert_eq!(loss_pct(46.28906), "46.3");
        assert_eq!(loss_pct(0.0), "0");
        assert_eq!(seconds(0.0123456), "0.01235");
        assert_eq!(seconds(2.0), "2.000");
    }

    #[test]
    fn units() {
        assert_eq!(bps(5_371_093_750.4), "5371093750");
        assert_eq!(whole(7_999_999.6), "8000000");
        assert_eq!(whole(2_644.4), "2644");
        assert_eq!(mean_frames(23_474.25), "23474.2");
        assert_eq!(mean_frames(23_474.36), "23474.4");
        assert_eq!((yes_no(true), yes_no(false)), ("yes", "no"));
        assert_eq!(bound(Bound::Device), "device");
        assert_eq!(bound(Bound::Line), "line");
        assert_eq!(bound(Bound::Tester), "tester");
    }

    #[test]
    fn rates_and_durations_for_people() {
        assert_eq!(bit_rate(10_000_000_000), "10 Gbit/s");
        assert_eq!(bit_rate(2_500_000_000), "2.5 Gbit/s");
        assert_eq!(bit_rate(100_000_000_000), "100 Gbit/s");
        assert_eq!(bit_rate(1_600_000_000_000), "1.6 Tbit/s");
        assert_eq!(bit_rate(1_000_000_000_000), "1 Tbit/s");
        assert_eq!(bit_rate(100_000_000), "100 Mbit/s");
        assert_eq!(bit_rate(1_000_000), "1 Mbit/s");
        assert_eq!(bit_rate(64_000), "64 kbit/s");
        assert_eq!(bit_rate(1_000), "1 kbit/s");
        assert_eq!(bit_rate(999), "999 bit/s");
        assert_eq!(duration(60.0), "60 s");
        assert_eq!(duration(0.5), "0.5 s");
        assert_eq!(trimmed(0.125), "0.125");
        assert_eq!(trimmed(10.0), "10");
        assert_eq!(trimmed(2.50), "2.5");
        assert_eq!(trimmed(100.0), "100");
    }

    #[test]
    fn escape_covers_markup_breaks_and_forbidden_characters() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(escape("a\nb\r\tc"), "a&#10;b&#13;&#9;c");
        assert_eq!(
            escape("nul\u{0}bell\u{7}\u{FFFE}"),
            "nul\u{FFFD}bell\u{FFFD}\u{FFFD}"
        );
        assert_eq!(escape("→ µs 𝄞 \u{D7FF}\u{E000}"), "→ µs 𝄞 \u{D7FF}\u{E000}");
        assert_eq!(escape(" "), " ");
        assert_eq!(escape("\u{1F}"), "\u{FFFD}");
    }

    #[test]
    fn tests_by_key() {
        for t in Test::ALL {
            assert_eq!(Test::from_key(t.key()), Some(t));
        }
        assert_eq!(Test::from_key("back-to-back"), Some(Test::BackToBack));
        assert_eq!(Test::from_key("jitter"), None);
        let sections: Vec<&str> = Test::ALL.iter().map(|t| t.section()).collect();
        assert_eq!(
            sections,
            ["26.1", "26.2", "26.3", "26.4", "26.5", "26.6", "5.7", "5.8"]
        );
        let rfcs: Vec<&str> = Test::ALL.iter().map(|t| t.rfc()).collect();
        assert_eq!(rfcs[..6], ["RFC 2544"; 6]);
        assert_eq!(rfcs[6..], ["RFC 2889"; 2]);
        let titles: Vec<&str> = Test::ALL.iter().map(|t| t.title()).collect();
        assert_eq!(
            titles,
            [
                "Throughput",
                "Latency",
                "Frame loss rate",
                "Back-to-back frames",
                "System recovery",
                "Reset",
                "Address caching capacity",
                "Address learning rate"
            ]
        );
        let keys: Vec<&str> = Test::ALL.iter().map(|t| t.key()).collect();
        assert_eq!(
            keys,
            [
                "throughput",
                "latency",
                "loss",
                "back_to_back",
                "recovery",
                "reset",
                "address_caching",
                "learning_rate"
            ]
        );
    }

    #[test]
    fn tests_shown_are_the_settings_then_any_with_results() {
        let mut c = sample::incomplete();
        assert_eq!(tests_of(&c), Test::ALL[..4].to_vec());
        let with = sample::recovery_and_reset(c.clone());
        assert_eq!(tests_of(&with), Test::ALL[..6].to_vec());
        assert!(Test::Recovery.has_results(&with) && Test::Reset.has_results(&with));
        assert!(!Test::Recovery.has_results(&c) && !Test::Reset.has_results(&c));
        assert!(!Test::BackToBack.has_results(&c));
        c.settings.tests = vec!["loss".into(), "throughput".into(), "loss".into()];
        assert_eq!(tests_of(&c), [Test::Loss, Test::Throughput, Test::Latency]);
        let empty = Certification {
            throughput: vec![],
            latency: vec![],
            loss: vec![],
            ..c
        };
        assert_eq!(tests_of(&empty), [Test::Loss, Test::Throughput]);
        for t in Test::ALL {
            assert!(!t.has_results(&empty));
        }
    }

    #[test]
    fn records_hold_the_rounded_figures() {
        let c = sample::tester_bound();
        let r = results(&c);
        let n = |t: Test| r.iter().filter(|x| x.test == Some(t)).count();
        let points: usize = c.loss.iter().map(|l| l.points.len()).sum();
        assert_eq!(
            (n(Test::Throughput), n(Test::Latency), n(Test::BackToBack)),
            (14, 14, 14)
        );
        assert_eq!(n(Test::Loss), points);
        let t0 = &r[0];
        assert_eq!(
            (t0.kind, t0.direction.as_str(), t0.frame_size),
            (Kind::Result, sample::DIRS[0], 64)
        );
        let want = [
            (Column::RatePct, "41.11"),
            (Column::L1Bps, "4111328125"),
            (Column::L2Bps, "3132440476"),
            (Column::Fps, "6118048"),
            (Column::Bound, "tester"),
        ];
        for (col, text) in want {
            assert_eq!(t0.get(col), Some(text), "{col:?}");
        }
        assert!(t0.tester_bound());
        assert!(!r[1].tester_bound());
        assert_eq!(r[1].get(Column::Bound), Some("device"));
        assert_eq!(r[2].get(Column::Bound), Some("line"));
        assert_eq!(r[2].get(Column::RatePct), Some("100.00"));
        let lat = r.iter().find(|x| x.test == Some(Test::Latency)).unwrap();
        assert_eq!(lat.get(Column::MinNs), Some("2151"));
        assert_eq!(lat.get(Column::P999Ns), Some("17022"));
        assert_eq!(lat.get(Column::JitterNs), Some("647"));
        assert_eq!(lat.get(Column::TesterBound), Some("no"));
        assert_eq!(lat.get(Column::Bound), None);
        let b2b = r.iter().find(|x| x.test == Some(Test::BackToBack)).unwrap();
        assert_eq!(b2b.get(Column::Searches), Some("4"));
        assert_eq!(b2b.get(Column::Trials), Some("12"));
        assert_eq!(b2b.get(Column::MeanFrames), Some("234368.5"));
        assert_eq!(b2b.get(Column::AtLimit), Some("no"));
    }

    #[test]
    fn recovery_and_reset_records_hold_their_times() {
        let c = sample::recovery_and_reset(sample::complete());
        let r = results(&c);
        let mine: Vec<&Record> = (r.iter())
            .filter(|x| matches!(x.test, Some(Test::Recovery | Test::Reset)))
            .collect();
        let cells = |x: &Record| -> Vec<(Column, String)> { x.cells.clone() };
        let s = |t: &str| t.to_string();
        assert_eq!(mine.len(), 3);
        assert_eq!(
            (
                mine[0].test,
                mine[0].kind,
                mine[0].direction.as_str(),
                mine[0].frame_size
            ),
            (Some(Test::Recovery), Kind::Result, sample::DIRS[0], 64)
        );
        assert_eq!(
            cells(mine[0]),
            [
                (Column::OverloadPct, s("59.08")),
                (Column::ReducedPct, s("29.54")),
                (Column::Trials, s("2")),
                (Column::Counted, s("2")),
                (Column::MeanTimeS, s("0.0004495")),
                (Column::Times, s("0.0004470 0.0004520")),
                (Column::Note, s("")),
            ]
        );
        assert_eq!(
            cells(mine[1]),
            [
                (Column::OverloadPct, s("55.43")),
                (Column::ReducedPct, s("27.71")),
                (Column::Trials, s("1")),
                (Column::Counted, s("0")),
                (Column::MeanTimeS, s("n/a")),
                (Column::Times, s("")),
                (Column::Note, s("no trial counted: see each trial's reason")),
            ]
        );
        assert_eq!(mine[2].test, Some(Test::Reset));
        assert_eq!(
            cells(mine[2]),
            [
                (Column::RatePct, s("53.71")),
                (Column::Trials, s("2")),
                (Column::Counted, s("2")),
                (Column::MeanTimeS, s("1.008")),
                (Column::Times, s("1.006 1.009")),
                (Column::Note, s("")),
            ]
        );
        assert_eq!(shown(Column::Times, "1.006 1.009"), "1.006; 1.009");
        // Their trials, numbered per row, each with its time.
        let t: Vec<(Test, String, Option<String>, Option<String>)> = (trials(&c).iter())
            .filter(|x| matches!(x.test, Some(Test::Recovery | Test::Reset)))
            .map(|x| {
                let get = |k| x.get(k).map(str::to_string);
                (
                    x.test.unwrap(),
                    x.direction.clone(),
                    get(Column::Trial),
                    get(Column::TimeS),
                )
            })
            .collect();
        let d = |i: usize| sample::DIRS[i].to_string();
        let some = |t: &str| Some(t.to_string());
        assert_eq!(
            t,
            [
                (Test::Recovery, d(0), some("1"), some("0.0004470")),
                (Test::Recovery, d(0), some("2"), some("0.0004520")),
                (Test::Recovery, d(1), some("1"), some("")),
                (Test::Reset, d(0), some("1"), some("1.006")),
                (Test::Reset, d(0), some("2"), some("1.009")),
            ]
        );
        // Other tests' trials have no time column.
        assert!(trials(&sample::complete())
            .iter()
            .all(|x| x.get(Column::TimeS).is_none()));
        let left = left_out(&c);
        assert_eq!(
            (left[0].0, left[0].1.as_str(), left[0].2, left[0].3),
            (Test::Recovery, sample::DIRS[1], 64, 1)
        );
    }

    #[test]
    fn recovery_and_reset_say_why_they_measured_nothing() {
        let c = sample::recovery_and_reset(sample::complete());
        assert_eq!(nothing_measured(&c, Test::Recovery), None);
        assert_eq!(nothing_measured(&c, Test::Reset), None);
        let mut none = sample::complete();
        none.complete = false;
        assert_eq!(
            nothing_measured(&none, Test::Recovery).as_deref(),
            Some("No system recovery measured: the certification stopped before this test.")
        );
        none.not_measured.push(NotMeasured {
            test: "reset".into(),
            direction: sample::DIRS[0].into(),
            frame_size: 64,
            reason: "not run: the certification stopped before it: x".into(),
        });
        assert_eq!(
            nothing_measured(&none, Test::Reset).as_deref(),
            Some(
                "No reset measured: port 0 → port 1 64 B: not run: the certification stopped \
                 before it: x."
            )
        );
    }

    #[test]
    fn trial_records_number_each_search_from_one() {
        let c = sample::tester_bound();
        let t = trials(&c);
        let total: usize = c.throughput.iter().map(|r| r.trials.len()).sum::<usize>()
            + c.latency.iter().map(|r| r.trials.len()).sum::<usize>()
            + c.loss.iter().map(|r| r.points.len()).sum::<usize>()
            + c.back_to_back.iter().map(|r| r.trials.len()).sum::<usize>();
        assert_eq!(t.len(), total);
        assert_eq!(t[0].get(Column::Trial), Some("1"));
        assert_eq!(t[0].get(Column::OfferedPct), Some("100.00"));
        assert_eq!(t[0].get(Column::SentPct), Some("41.20"));
        assert_eq!(t[0].get(Column::TesterBound), Some("yes"));
        assert!(t[0].get(Column::Problems).unwrap().contains("lcore 2"));
        let first = c.throughput[0].trials.len();
        assert_eq!(t[first].get(Column::Trial), Some("1"));
        assert_eq!(
            t[first - 1].get(Column::Trial),
            Some(first.to_string().as_str())
        );
        let mut no_latency = c.throughput[1].trials[0].clone();
        no_latency.latency = None;
        let f = Format::new(c.settings.resolution_pct);
        let r = trial(&f, Test::Throughput, 3, &no_latency);
        assert_eq!(
            (r.get(Column::P50Ns), r.get(Column::Problems)),
            (Some(""), Some(""))
        );
    }

    #[test]
    fn criteria_records_keep_their_words() {
        let c = sample::complete();
        let k = criteria(&c);
        assert_eq!(k.len(), 4);
        assert_eq!(k[1].kind, Kind::Criterion);
        assert_eq!(k[1].get(Column::Passed), Some("no"));
        assert_eq!(k[1].get(Column::Wanted), Some("throughput ≥ 55 % of line"));
        assert_eq!(k[2].test, Some(Test::Latency));
        assert_eq!(k[1].get(Column::State), Some("fail"));
        assert_eq!(k[0].get(Column::State), Some("pass"));
    }

    #[test]
    fn not_measured_records_hold_each_entry_and_its_reason() {
        let c = sample::no_rate_at_64();
        let reason = "no throughput rate: none of the 12 throughput trial(s) at this size passed";
        assert_eq!(c.not_measured.len(), 1);
        assert_eq!(c.not_measured[0].reason, reason);
        let r = not_measured(&c);
        assert_eq!(r.len(), 1);
        assert_eq!(
            (
                r[0].test,
                r[0].kind,
                r[0].direction.as_str(),
                r[0].frame_size
            ),
            (Some(Test::Latency), Kind::NotMeasured, sample::DIRS[0], 64)
        );
        assert_eq!(r[0].cells, [(Column::Reason, reason.to_string())]);
        assert_eq!(
            why_not(&c, Test::Latency, sample::DIRS[0], 64),
            Some(reason)
        );
        assert_eq!(why_not(&c, Test::Latency, sample::DIRS[1], 64), None);
        assert_eq!(why_not(&c, Test::Latency, sample::DIRS[0], 128), None);
        assert_eq!(why_not(&c, Test::Throughput, sample::DIRS[0], 64), None);
        assert_eq!(nothing_measured(&c, Test::Latency), None, "it has rows");
        assert_eq!(Kind::NotMeasured.key(), "not_measured");
        assert_eq!(
            (Column::Reason.name(), Column::Reason.heading()),
            ("reason", "reason")
        );
    }

    #[test]
    fn a_test_with_no_result_says_why_in_one_sentence() {
        let mut c = sample::complete();
        c.latency.clear();
        assert_eq!(
            nothing_measured(&c, Test::Latency).as_deref(),
            Some("No latency measured.")
        );
        c.complete = false;
        assert_eq!(
            nothing_measured(&c, Test::Latency).as_deref(),
            Some("No latency measured: the certification stopped before this test.")
        );
        let entry = |dir: usize, size: u32, reason: &str| NotMeasured {
            test: "latency".into(),
            direction: sample::DIRS[dir].into(),
            frame_size: size,
            reason: reason.into(),
        };
        let a = "no throughput rate: none of the 12 throughput trial(s) at this size passed";
        let b = "no throughput rate: none of the 9 throughput trial(s) at this size passed";
        c.not_measured = vec![
            entry(0, 64, a),
            entry(0, 1518, a),
            entry(1, 64, a),
            entry(1, 128, b),
        ];
        assert_eq!(
            nothing_measured(&c, Test::Latency).as_deref(),
            Some(
                "No latency measured: no frame size had a throughput rate (port 0 → port 1 64, \
                 1518 B and port 1 → port 0 64 B: none of the 12 throughput trial(s) at this \
                 size passed; port 1 → port 0 128 B: none of the 9 throughput trial(s) at this \
                 size passed)."
            )
        );
        c.not_measured.push(entry(
            1,
            256,
            "not run: the certification stopped before it: x",
        ));
        c.not_measured.push(NotMeasured {
            test: "loss".into(),
            ..entry(0, 64, "y")
        });
        assert_eq!(
            nothing_measured(&c, Test::Latency).as_deref(),
            Some(
                "No latency measured: port 0 → port 1 64, 1518 B and port 1 → port 0 64 B: \
                 no throughput rate: none of the 12 throughput trial(s) at this size passed; \
                 port 1 → port 0 128 B: no throughput rate: none of the 9 throughput trial(s) \
                 at this size passed; port 1 → port 0 256 B: not run: the certification \
                 stopped before it: x."
            )
        );
        assert_eq!(
            nothing_measured(&sample::complete(), Test::BackToBack),
            None
        );
        c.back_to_back.clear();
        assert_eq!(
            nothing_measured(&c, Test::BackToBack).as_deref(),
            Some("No back-to-back frames measured: the certification stopped before this test.")
        );
    }

    #[test]
    fn line_rate_at_l2() {
        assert_eq!(line_l2_bps(10_000_000_000, 64), 10e9 * 64.0 / 84.0);
        assert_eq!(line_l2_bps(10_000_000_000, 1518), 10e9 * 1518.0 / 1538.0);
    }

    #[test]
    fn grouped_separates_thousands_of_plain_numbers_only() {
        assert_eq!(grouped("7992699"), "7,992,699");
        assert_eq!(grouped("234368.5"), "234,368.5");
        assert_eq!(grouped("-1234"), "-1,234");
        assert_eq!(grouped("123"), "123");
        assert_eq!(grouped("1000"), "1,000");
        assert_eq!(grouped("100000"), "100,000");
        assert_eq!(grouped("0.0000751"), "0.0000751");
        for odd in [
            "", "n/a", "1.2.3", "12a", "-", ".5", "1234.", "1 234", "12.a",
        ] {
            assert_eq!(grouped(odd), odd, "{odd:?}");
        }
    }

    #[test]
    fn a_rate_reads_in_the_unit_that_fits_it() {
        assert_eq!(rate(50e6), "50.0 Mbit/s");
        assert_eq!(rate(49_350_000.0), "49.4 Mbit/s");
        assert_eq!(rate(512e3), "0.512 Mbit/s");
        assert_eq!(rate(999.4e6), "999 Mbit/s");
        assert_eq!(rate(999.96e6), "1.00 Gbit/s");
        assert_eq!(rate(1e9), "1.00 Gbit/s");
        assert_eq!(rate(5_371_093_750.0), "5.37 Gbit/s");
        assert_eq!(rate(99.94e9), "99.9 Gbit/s");
        assert_eq!(rate(0.0), "0 Mbit/s");
        assert_eq!(rate(f64::NAN), "n/a");
        assert_eq!(bps(4_092_261_904.76), "4092261905");
    }

    #[test]
    fn shown_is_the_plain_text_as_people_read_it() {
        let cases = [
            (Column::L1Bps, "5371093750", "5.37 Gbit/s"),
            (Column::L2Bps, "50000000", "50.0 Mbit/s"),
            (Column::L2Bps, "n/a", "n/a"),
            (Column::Fps, "7992699", "7,992,699"),
            (Column::MaxNs, "63386", "63,386"),
            (Column::TxFrames, "29761905", "29,761,905"),
            (Column::MeanFrames, "234368.5", "234,368.5"),
            (Column::ThroughputFps, "7992699", "7,992,699"),
            (Column::ThroughputFps, "", "–"),
            (Column::CorrectedS, "", "–"),
            (Column::CorrectedS, "0.007290", "0.007290"),
            (Column::Bursts, "234370 234367", "234,370; 234,367"),
            (Column::Bursts, "90", "90"),
            (Column::RatePct, "1000.00", "1000.00"),
            (Column::LossPct, "46.2", "46.2"),
            (Column::Trial, "1234", "1234"),
            (Column::Problems, "a, b", "a, b"),
        ];
        for (col, plain, want) in cases {
            assert_eq!(shown(col, plain), want, "{col:?} {plain:?}");
        }
    }

    #[test]
    fn columns_by_name_and_which_are_words() {
        for col in Column::ALL {
            assert_eq!(Column::from_name(col.name()), Some(col));
        }
        assert_eq!(Column::from_name("l1_gbps"), None);
        let words: Vec<&str> = (Column::ALL.iter())
            .filter(|c| c.is_text())
            .map(|c| c.name())
            .collect();
        assert_eq!(
            words,
            [
                "bound", "note", "state", "wanted", "measured", "problems", "excluded", "reason",
                "text", "setting", "value", "rfc", "searched"
            ]
        );
    }

    #[test]
    fn the_records_of_the_whole_certification() {
        let c = sample::showcase();
        let v = verdict(&c);
        assert_eq!((v.test, v.test_key(), v.kind), (None, WHOLE, Kind::Verdict));
        assert_eq!(
            v.cells,
            [
                (Column::State, "fail".to_string()),
                (Column::Exit, "5".to_string()),
                (
                    Column::Text,
                    "FAIL: 1 of 4 acceptance criteria not met (1 more not judged: the tester's \
                     limit)"
                        .to_string()
                ),
            ]
        );
        let d = deviations(&c);
        assert_eq!(d.len(), 3);
        assert_eq!(
            d[1].cells,
            [
                (Column::Setting, "certify.latency_trials".to_string()),
                (Column::Value, "3".to_string()),
                (Column::Rfc, "at least 20 (section 26.2)".to_string()),
            ]
        );
        assert_eq!(d[0].kind, Kind::Deviation);
        let kv: Vec<(String, String)> = (setup(&c).iter())
            .map(|r| {
                assert_eq!((r.test, r.kind), (None, Kind::Setup));
                let get = |k| r.get(k).unwrap().to_string();
                (get(Column::Setting), get(Column::Value))
            })
            .collect();
        let keys: Vec<&str> = kv.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "quick",
                "latency_definition",
                "latency_method",
                "baseline",
                "frames",
                "frames",
                "task",
                "task",
                "task",
                "task",
                "task"
            ]
        );
        assert_eq!(kv[0].1, "no");
        assert_eq!(kv[1].1, "store_and_forward");
        assert_eq!(kv[2].1, c.latency_method);
        assert_eq!(
            kv[3].1,
            "tester-baseline.json, recorded 2026-11-30T19:40:00Z by profile loop \
             (configs/rfc2544.yaml, DUT bypassed)"
        );
        assert_eq!(kv[6].1, "main lcore 0 on CPU 0");
        assert_eq!(kv[7].1, "TX lcore 1 on CPU 1: port p0 queue 0, streams s0");
        let mut bare = c.clone();
        bare.latency_method.clear();
        bare.baseline = None;
        bare.settings.quick = true;
        assert_eq!(method(&bare), "not recorded");
        let keys: Vec<String> = (setup(&bare).iter())
            .map(|r| {
                format!(
                    "{}={}",
                    r.get(Column::Setting).unwrap(),
                    r.get(Column::Value).unwrap()
                )
            })
            .take(4)
            .collect();
        assert_eq!(
            keys[..3],
            [
                "quick=yes",
                "latency_definition=store_and_forward",
                "latency_method=not recorded"
            ]
        );
        assert!(keys[3].starts_with("frames="));
    }

    #[test]
    fn the_device_s_latency_and_the_histograms_are_records_of_their_rows() {
        let c = sample::showcase();
        let d = device_latency(&c);
        assert_eq!(d.len(), 7, "the rows the baseline corrected");
        assert!(d.iter().all(|r| r.direction == sample::DIRS[0]));
        assert_eq!(
            (d[0].kind, d[0].test, d[0].frame_size),
            (Kind::Device, Some(Test::Latency), 64)
        );
        let row = &c.latency[0];
        let (b, dev) = (row.baseline.unwrap(), row.device.unwrap());
        assert_eq!(
            d[0].get(Column::BaselineNs),
            Some(whole(b.mean_ns).as_str())
        );
        assert_eq!(d[0].get(Column::MeanNs), Some(whole(dev.mean_ns).as_str()));
        assert_eq!(d[0].get(Column::MinNs), Some("133"));
        assert_eq!(d[0].get(Column::MaxNs), Some(whole(dev.max_ns).as_str()));
        assert!(
            device_latency(&sample::complete()).is_empty(),
            "no baseline"
        );
        let h = histograms(&c);
        let buckets: usize = c.latency.iter().map(|r| r.histogram.len()).sum();
        assert_eq!(h.len(), buckets);
        let first = &c.latency[0].histogram[0];
        assert_eq!(
            (h[0].kind, h[0].frame_size, h[0].cells.clone()),
            (
                Kind::Bucket,
                64,
                vec![
                    (Column::LeNs, first.le_ns.to_string()),
                    (Column::Frames, first.count.to_string())
                ]
            )
        );
    }

    #[test]
    fn trials_left_out_are_listed_with_their_number_and_reason() {
        let c = sample::showcase();
        let left = left_out(&c);
        assert_eq!(left.len(), 2, "{left:?}");
        assert_eq!(
            (left[0].0, left[0].1.as_str(), left[0].2, left[0].3),
            (Test::Latency, sample::DIRS[0], 128, 1)
        );
        assert!(left[0].4.starts_with("lost 12 frame(s)"), "{}", left[0].4);
        assert_eq!((left[1].0, left[1].2, left[1].3), (Test::Loss, 64, 1));
        assert!(left[1].4.ends_with("; tried again"));
        // A loss point's earlier try comes before it, numbered in its search.
        let loss: Vec<Record> = (trials(&c).into_iter())
            .filter(|r| r.test == Some(Test::Loss) && r.direction == sample::DIRS[0])
            .take(2)
            .collect();
        let t: Vec<(Option<&str>, Option<&str>, bool, bool)> = (loss.iter())
            .map(|r| {
                let left = r.get(Column::Excluded).is_some_and(|e| !e.is_empty());
                (
                    r.get(Column::Trial),
                    r.get(Column::OfferedPct),
                    r.tester_bound(),
                    left,
                )
            })
            .collect();
        assert_eq!(
            t,
            [
                (Some("1"), Some("100.00"), true, true),
                (Some("2"), Some("100.00"), false, false)
            ]
        );
        assert!(left_out(&sample::complete()).is_empty());
    }

    #[test]
    fn column_names_are_unique_and_kinds_named() {
        let names: std::collections::HashSet<&str> = Column::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Column::ALL.len());
        let headings: std::collections::HashSet<&str> =
            Column::ALL.iter().map(|c| c.heading()).collect();
        assert_eq!(headings.len(), Column::ALL.len());
        assert_eq!(
            [Kind::Result.key(), Kind::Criterion.key(), Kind::Trial.key()],
            ["result", "criterion", "trial"]
        );
    }
}
