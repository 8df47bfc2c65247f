//! The terminal summary of a certification: one table per test (what it
//! did not measure under it, or the sentence saying why it measured
//! nothing), the criteria, the verdict. Every figure is a field of the
//! [`Certification`] (the JSON holds the same numbers), and the verdict
//! line is the [`Verdict`] the exit status is taken from.

use std::fmt::Write as _;

use super::format::{self, Column, Record};
use super::model::Test;
use super::model::{Bound, Certification, Size};
use super::search;
pub use super::verdict::{text, verdict, verdict_of, Verdict};

/// The name of a bound in the tables.
fn bound(b: Bound) -> &'static str {
    match b {
        Bound::Device => "device",
        Bound::Line => "line",
        Bound::Tester => "TESTER",
        Bound::Top => "search top",
    }
}

/// The table of one test.
type Table = fn(&Certification, &mut String);

/// The whole summary: each test's table (what it did not measure under
/// it), the criteria, the problems, the settings below RFC 2544's, and
/// last the verdict line. The verdict is the certification's own when it
/// was judged ([`verdict_of`]), else `v`'s.
pub fn summary(c: &Certification, v: Verdict) -> String {
    let mut s = String::new();
    let tables: [(Test, Table); 8] = [
        (Test::Throughput, throughput),
        (Test::Latency, latency),
        (Test::Loss, loss),
        (Test::BackToBack, back_to_back),
        (Test::Recovery, recovery),
        (Test::Reset, reset),
        (Test::AddressCaching, address_caching),
        (Test::LearningRate, learning_rate),
    ];
    for (test, table) in tables {
        table(c, &mut s);
        unmeasured(c, test, &mut s);
    }
    criteria(c, &mut s);
    for p in &c.problems {
        let _ = writeln!(s, "warning: {}", p.text());
    }
    nonconformant(c, &mut s);
    let record = c.verdict.clone().unwrap_or_else(|| v.record(c));
    let _ = writeln!(s, "certification: {} (exit {})", record.text, record.exit);
    s
}

/// The settings below RFC 2544's, a line each, before the verdict (the
/// box every report shows near its top); nothing when there are none.
fn nonconformant(c: &Certification, s: &mut String) {
    if c.nonconformant.is_empty() {
        return;
    }
    let quick = if c.settings.quick {
        " (--quick: asked for on purpose)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "NOT RFC 2544-CONFORMANT: {} setting(s) below what RFC 2544 asks{quick}:",
        c.nonconformant.len()
    );
    for d in &c.nonconformant {
        let _ = writeln!(s, "  {}: {} (RFC 2544: {})", d.setting, d.value, d.rfc);
    }
}
/// Under a test's table: each direction and size it did not measure, and
/// why; for a test of the settings with no result at all, the one
/// sentence saying why ([`format::nothing_measured`]).
fn unmeasured(c: &Certification, test: Test, s: &mut String) {
    if !format::tests_of(c).contains(&test) {
        return;
    }
    if let Some(line) = format::nothing_measured(c, test) {
        let _ = writeln!(s, "{line}");
        return;
    }
    let mine = (c.not_measured.iter()).filter(|n| Test::from_key(&n.test) == Some(test));
    for n in mine {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} not measured: {}",
            Size(n.frame_size),
            n.direction,
            n.reason
        );
    }
}

/// A cell as the terminal shows it ([`format::shown`] of its plain
/// text); empty when the record lacks the column.
fn cell(r: &Record, col: Column) -> String {
    r.get(col)
        .map(|t| format::shown(col, t))
        .unwrap_or_default()
}

fn throughput(c: &Certification, s: &mut String) {
    if c.throughput.is_empty() {
        return;
    }
    let _ = writeln!(s, "throughput (RFC 2544 26.1)");
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>9} {:>12} {:>12} {:>12} {:>7} {:>6}",
        "size", "direction", "% line", "L1 rate", "L2 rate", "frames/s", "bound", "trials"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(Test::Throughput));
    for (r, row) in rows.zip(&c.throughput) {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>9.3} {:>12} {:>12} {:>12} {:>7} {:>6}{}",
            Size(row.frame_size),
            row.direction,
            row.rate_pct,
            cell(r, Column::L1Bps),
            cell(r, Column::L2Bps),
            cell(r, Column::Fps),
            bound(row.bound),
            cell(r, Column::Trials),
            if row.complete { "" } else { " (incomplete)" }
        );
    }
}

fn latency(c: &Certification, s: &mut String) {
    if c.latency.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "latency (RFC 2544 26.2), ns: {}; timestamps: {}",
        c.settings.latency_definition.text(),
        format::method(c)
    );
    latency_measured(c, s);
    latency_of_device(c, s);
    left_out(c, Test::Latency, s);
}

/// The figures of the latency table, in its order.
const LATENCY_COLUMNS: [Column; 7] = [
    Column::MinNs,
    Column::MeanNs,
    Column::P50Ns,
    Column::P99Ns,
    Column::P999Ns,
    Column::MaxNs,
    Column::JitterNs,
];

/// The latency the tester measured: a row per size and direction, with
/// the trials that counted.
fn latency_measured(c: &Certification, s: &mut String) {
    let cols = LATENCY_COLUMNS;
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7}",
        "size",
        "direction",
        "% line",
        "min",
        "mean",
        "p50",
        "p99",
        "p99.9",
        "max",
        "jitter",
        "counted"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(Test::Latency));
    for (r, row) in rows.zip(&c.latency) {
        let figures: Vec<String> = cols
            .iter()
            .map(|k| format!("{:>10}", cell(r, *k)))
            .collect();
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>9.3} {} {:>7}",
            Size(row.frame_size),
            row.direction,
            row.rate_pct,
            figures.join(" "),
            format!("{}/{}", row.counted, row.trials.len()),
        );
    }
}

/// The device's latency, the tester's baseline taken out; without a
/// baseline, the line that says there is none.
fn latency_of_device(c: &Certification, s: &mut String) {
    let cols = LATENCY_COLUMNS;
    let device = format::device_latency(c);
    if device.is_empty() {
        let _ = writeln!(s, "  {}", format::NO_BASELINE);
    } else {
        let _ = writeln!(
            s,
            "  the device's latency, the tester's baseline taken out ({}):",
            c.baseline
                .as_ref()
                .map(format::baseline_text)
                .unwrap_or_default()
        );
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "size", "direction", "tester", "min", "mean", "p50", "p99", "p99.9", "max"
        );
        for r in &device {
            let figures: Vec<String> = [Column::BaselineNs]
                .iter()
                .chain(&cols[..6])
                .map(|k| format!("{:>10}", cell(r, *k)))
                .collect();
            let _ = writeln!(
                s,
                "  {:>6} {:<16} {}",
                Size(r.frame_size),
                r.direction,
                figures.join(" ")
            );
        }
    }
}

fn loss(c: &Certification, s: &mut String) {
    if c.loss.is_empty() {
        return;
    }
    let _ = writeln!(s, "frame loss rate (RFC 2544 26.3), % lost at % of line");
    for r in &c.loss {
        let pts: Vec<String> = (r.points.iter())
            .map(|p| {
                let mark = if p.trial.tester_bound { "(tester)" } else { "" };
                format!("{:.1}:{}{mark}", p.rate_pct, format::loss_pct(p.loss_pct))
            })
            .collect();
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {}",
            Size(r.frame_size),
            r.direction,
            pts.join(" ")
        );
    }
}

fn back_to_back(c: &Certification, s: &mut String) {
    if c.back_to_back.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "back-to-back (RFC 2544 26.4, RFC 9004), frames and buffer time at line rate"
    );
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>12} {:>10} {:>12} {:>12} {:>8} {:>7} {:>8}",
        "size",
        "direction",
        "mean",
        "std dev",
        "buffer s",
        "corrected s",
        "limit",
        "bound",
        "searches"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(Test::BackToBack));
    for (r, row) in rows.zip(&c.back_to_back) {
        let corrected = match r.get(Column::CorrectedS) {
            Some(t) if !t.is_empty() => t.to_string(),
            _ => "-".to_string(),
        };
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>12} {:>10} {:>12} {:>12} {:>8} {:>7} {:>8}",
            Size(row.frame_size),
            row.direction,
            cell(r, Column::MeanFrames),
            cell(r, Column::StddevFrames),
            cell(r, Column::MeanS),
            corrected,
            if row.at_limit { "reached" } else { "-" },
            bound(row.bound),
            cell(r, Column::Searches)
        );
    }
}

fn recovery(c: &Certification, s: &mut String) {
    if c.recovery.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "system recovery (RFC 2544 26.5), seconds from the drop to the first frame through after \
         the last loss"
    );
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>10} {:>10} {:>10} {:>7} each trial",
        "size", "direction", "overload %", "reduced %", "mean", "counted"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(Test::Recovery));
    for (r, row) in rows.zip(&c.recovery) {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>10} {:>10} {:>10} {:>7} {}{}",
            Size(row.frame_size),
            row.direction,
            cell(r, Column::OverloadPct),
            cell(r, Column::ReducedPct),
            cell(r, Column::MeanTimeS),
            format!("{}/{}", cell(r, Column::Counted), cell(r, Column::Trials)),
            cell(r, Column::Times),
            row_end(r, row.complete)
        );
    }
    left_out(c, Test::Recovery, s);
}

fn reset(c: &Certification, s: &mut String) {
    if c.reset.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "reset (RFC 2544 26.6), seconds from the last frame before the reset to the first after it"
    );
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>9} {:>10} {:>7} each trial",
        "size", "direction", "% line", "mean", "counted"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(Test::Reset));
    for (r, row) in rows.zip(&c.reset) {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>9} {:>10} {:>7} {}{}",
            Size(row.frame_size),
            row.direction,
            cell(r, Column::RatePct),
            cell(r, Column::MeanTimeS),
            format!("{}/{}", cell(r, Column::Counted), cell(r, Column::Trials)),
            cell(r, Column::Times),
            row_end(r, row.complete)
        );
    }
    left_out(c, Test::Reset, s);
}

fn address_caching(c: &Certification, s: &mut String) {
    address_table(c, Test::AddressCaching, s);
}

fn learning_rate(c: &Certification, s: &mut String) {
    address_table(c, Test::LearningRate, s);
}

/// An address search's table: each row's figure, then its search, a
/// line per trial (its addresses, learning rate, frames and floods).
fn address_table(c: &Certification, test: Test, s: &mut String) {
    if !test.has_results(c) {
        return;
    }
    let what = match test {
        Test::AddressCaching => "the most addresses held without flooding",
        _ => "the fastest learning frames/s with every address learnt",
    };
    let _ = writeln!(
        s,
        "{} ({} {}), {what}",
        test.title().to_lowercase(),
        test.rfc(),
        test.section()
    );
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>10} {:>12} {:<16} {:<10} trials",
        "size", "direction", "addresses", "learning/s", "searched", "bound"
    );
    let records = format::results(c);
    let rows = records.iter().filter(|r| r.test == Some(test));
    let data = c.address_rows(test);
    let trials = format::trials(c);
    for (r, row) in rows.zip(data) {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>10} {:>12} {:<16} {:<10} {}{}",
            Size(r.frame_size),
            r.direction,
            cell(r, Column::Addresses),
            cell(r, Column::LearningFps),
            cell(r, Column::Searched),
            cell(r, Column::Bound),
            cell(r, Column::Trials),
            row_end(r, row.complete)
        );
        let mine = (trials.iter()).filter(|t| {
            t.test == Some(test) && t.direction == r.direction && t.frame_size == r.frame_size
        });
        for (t, trial) in mine.zip(&row.trials) {
            let n = trial.addresses.unwrap_or(0);
            let _ = writeln!(
                s,
                "    trial {:>3}: {:>10} addresses at {:>10} learning/s: {} sent, {} received, \
                 {} lost, {} flooded: {}",
                cell(t, Column::Trial),
                cell(t, Column::Addresses),
                cell(t, Column::LearningFps),
                cell(t, Column::TxFrames),
                cell(t, Column::RxFrames),
                cell(t, Column::Lost),
                cell(t, Column::Foreign),
                match trial.passed {
                    true => "held",
                    false if search::address_failure_is_testers(trial, n) => "TESTER",
                    false if trial.foreign > 0 => "flooded",
                    false => "failed",
                }
            );
        }
    }
    left_out(c, test, s);
}

/// The end of a recovery or reset row: its note, and whether a signal
/// cut it short.
fn row_end(r: &Record, complete: bool) -> String {
    let mut end = String::new();
    if let Some(note) = r.get(Column::Note).filter(|n| !n.is_empty()) {
        end.push_str(&format!(" ({note})"));
    }
    if !complete {
        end.push_str(" (incomplete)");
    }
    end
}

/// Each trial of `test` left out of its row, and why.
fn left_out(c: &Certification, test: Test, s: &mut String) {
    for (t, dir, size, n, why) in format::left_out(c) {
        if t == test {
            let _ = writeln!(s, "  {:>6} {dir:<16} trial {n} left out: {why}", Size(size));
        }
    }
}

fn criteria(c: &Certification, s: &mut String) {
    if c.criteria.is_empty() {
        return;
    }
    let _ = writeln!(s, "acceptance criteria");
    for k in &c.criteria {
        let _ = writeln!(
            s,
            "  {:<10} {:>6} {:<16} {}: {} ({})",
            k.state().to_uppercase(),
            Size(k.frame_size),
            k.direction,
            k.test,
            k.measured,
            k.wanted
        );
    }
}

/// `secs` since the Unix epoch as RFC 3339 UTC (`2026-12-01T23:46:09Z`).
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::certify::model::VerdictRecord;
    use crate::certify::sample;
    use crate::outcome::Problem;

    fn last_line(c: &Certification, error: bool) -> (String, u8) {
        let v = Verdict::of(c, error);
        let s = summary(c, v);
        (s.lines().last().unwrap().to_string(), v.exit())
    }

    /// The last line says what the exit status is, from the one verdict.
    #[test]
    fn the_verdict_line_agrees_with_the_exit_status() {
        let mut c = sample::complete();
        c.criteria.retain(|k| k.passed);
        assert_eq!(
            last_line(&c, false),
            (
                "certification: PASS: all 3 acceptance criteria met (exit 0)".into(),
                0
            )
        );
        let mut figures = c.clone();
        figures.criteria.clear();
        assert_eq!(
            last_line(&figures, false),
            (
                "certification: NO VERDICT: no acceptance criteria, figures only (exit 0)".into(),
                0
            )
        );
        let mut open = c.clone();
        open.criteria[0].judged = false;
        open.criteria[0].passed = false;
        assert_eq!(
            last_line(&open, false),
            (
                "certification: NOT JUDGED: 1 of 3 acceptance criteria could not be judged: \
                 their figures are the tester's limit (or every trial behind them was left \
                 out), not the device's (exit 3)"
                    .into(),
                3
            )
        );
        let mut both = sample::complete();
        both.criteria[0].judged = false;
        assert_eq!(
            last_line(&both, false),
            (
                "certification: FAIL: 1 of 4 acceptance criteria not met (1 more not judged: \
                 the tester's limit) (exit 5)"
                    .into(),
                5
            ),
            "a criterion the device failed decides over one not judged"
        );
        let mut doubt = c.clone();
        doubt.problems.push(Problem::TesterBound {
            test: "throughput".into(),
            direction: "port 0 → port 1".into(),
            frame_size: 64,
            figure: "41.110 % of line".into(),
            why: String::new(),
        });
        assert_eq!(
            last_line(&doubt, false),
            (
                "certification: PASS (all 3 device criteria met) but tester-bound: 1 result(s) \
                 are the tester's limit, not the device's (exit 3)"
                    .into(),
                3
            )
        );
        doubt.problems.push(Problem::Other {
            detail: "link lost".into(),
        });
        assert_eq!(
            last_line(&doubt, false).0,
            "certification: PASS (all 3 device criteria met) but tester-bound: 1 result(s) are \
             the tester's limit, not the device's, and 1 problem(s) cast doubt on the figures \
             (exit 3)"
        );
        doubt.problems.remove(0);
        doubt.criteria.clear();
        assert_eq!(
            last_line(&doubt, false),
            (
                "certification: NO VERDICT (no acceptance criteria) but 1 problem(s) cast doubt \
                 on the figures (exit 3)"
                    .into(),
                3
            )
        );
        assert_eq!(
            last_line(&sample::complete(), false),
            (
                "certification: FAIL: 1 of 4 acceptance criteria not met (exit 5)".into(),
                5
            )
        );
        let tb = sample::tester_bound();
        assert_eq!(
            Verdict::of(&tb, false),
            Verdict::Fail,
            "a failure comes first"
        );
        let mut stopped = sample::incomplete();
        assert_eq!(
            last_line(&stopped, false),
            (
                "certification: INCOMPLETE: interrupted by SIGINT during frame loss, 512 B (exit 4)"
                    .into(),
                4
            )
        );
        stopped.stopped_by = Some("port p1 received nothing".into());
        assert_eq!(
            last_line(&stopped, true),
            (
                "certification: ERROR: port p1 received nothing (exit 1)".into(),
                1
            )
        );
        stopped.stopped_by = None;
        assert_eq!(
            last_line(&stopped, false).0,
            "certification: INCOMPLETE: stopped (exit 4)"
        );
        assert_eq!(
            Verdict::of(&sample::complete(), true),
            Verdict::Error,
            "an error whatever the rows"
        );
    }

    #[test]
    fn what_was_not_measured_is_said_under_its_table() {
        let c = sample::no_rate_at_64();
        let s = summary(&c, Verdict::of(&c, false));
        assert!(
            s.contains(
                "\n      64 port 0 → port 1  not measured: no throughput rate: none of the 12 \
                 throughput trial(s) at this size passed\nframe loss rate"
            ),
            "{s}"
        );
        let mut none = c.clone();
        none.latency.clear();
        for n in &mut none.not_measured {
            n.reason = "no throughput rate: x".into();
        }
        let s = summary(&none, Verdict::of(&none, false));
        assert!(
            s.contains(
                "\nNo latency measured: no frame size had a throughput rate (port 0 → port 1 64 B: \
                 x).\nframe loss rate"
            ),
            "{s}"
        );
        assert!(!s.contains("latency (RFC 2544 26.2)"));
        let s = summary(&sample::incomplete(), Verdict::Incomplete);
        assert!(
            s.contains("\nNo back-to-back frames measured: port 0 → port 1 64, 128"),
            "{s}"
        );
        let mut only = sample::complete();
        only.settings.tests = vec!["throughput".into()];
        only.latency.clear();
        let s = summary(&only, Verdict::Pass);
        assert!(!s.contains("No latency"), "a test not asked for: {s}");
        assert!(!summary(&sample::complete(), Verdict::Fail).contains("not measured"));
    }

    /// The summary of a certification with every part: the settings
    /// below RFC 2544's before the verdict, the latency's definition and
    /// timestamps, the device's latency, a trial left out, a loss point
    /// the tester bounded, back-to-back per RFC 9004, people's numbers.
    #[test]
    fn the_summary_shows_every_part_as_people_read_it() {
        let c = crate::certify::sample::showcase();
        let s = summary(&c, Verdict::Fail);
        let lines: Vec<&str> = s.lines().collect();
        let n = lines.len();
        assert_eq!(
            lines[n - 5..],
            [
                "NOT RFC 2544-CONFORMANT: 3 setting(s) below what RFC 2544 asks:",
                "  certify.learning: off (RFC 2544: learning frames before each trial (section 23(b)))",
                "  certify.latency_trials: 3 (RFC 2544: at least 20 (section 26.2))",
                "  certify.back_to_back_trials: 4 (RFC 2544: at least 50 (section 26.4))",
                "certification: FAIL: 1 of 4 acceptance criteria not met (1 more not judged: the \
                 tester's limit) (exit 5)",
            ]
        );
        let has = |l: &str| assert!(lines.contains(&l), "{l:?} not in\n{s}");
        has("throughput (RFC 2544 26.1)");
        has("    size direction           % line      L1 rate      L2 rate     frames/s   bound trials");
        has("      64 port 0 → port 1     41.113  4.11 Gbit/s  3.13 Gbit/s    6,118,048  TESTER     12");
        has(
            "latency (RFC 2544 26.2), ns: store-and-forward (RFC 1242 3.8): last bit in to first \
             bit out; timestamps: software: the TX TSC in each frame's stamp, the RX TSC read \
             after the poll that returned it",
        );
        has("     128 port 0 → port 1     94.629      2,202      3,553      3,383      8,223     17,073     63,437        653     3/4");
        has(
            "  the device's latency, the tester's baseline taken out (tester-baseline.json, \
             recorded 2026-11-30T19:40:00Z by profile loop (configs/rfc2544.yaml, DUT bypassed)):",
        );
        has("      64 port 0 → port 1       1,951        133      1,483      1,313      6,153     15,004     61,367");
        has(
            "     128 port 0 → port 1  trial 1 left out: lost 12 frame(s) (0.0000751 %) at the \
             throughput rate; left out, tried again",
        );
        has("back-to-back (RFC 2544 26.4, RFC 9004), frames and buffer time at line rate");
        has("      64 port 0 → port 1     234,368.5        1.7      0.01575     0.007290        -  device        4");
        has("     256 port 0 → port 1   9,057,971.0        0.0        2.000            -  reached  device        4");
        let loss = lines
            .iter()
            .find(|l| l.starts_with("      64 port 0 → port 1  100.0:"))
            .unwrap();
        assert!(
            loss.starts_with("      64 port 0 → port 1  100.0:46.2 90.0:40.3"),
            "{loss}"
        );
        let mut tb = c.clone();
        tb.loss[0].points[0].trial.tester_bound = true;
        let s = summary(&tb, Verdict::Fail);
        assert!(s.contains("100.0:46.2(tester) 90.0:40.3"), "{s}");
        // Without a baseline, the figures are an upper bound, said so.
        let s = summary(&crate::certify::sample::complete(), Verdict::Fail);
        assert!(s.contains(&format!("\n  {}\n", format::NO_BASELINE)), "{s}");
        assert!(!s.contains("NOT RFC 2544-CONFORMANT") || !c.nonconformant.is_empty());
        let mut quick = crate::certify::sample::complete();
        quick.settings.quick = true;
        let s = summary(&quick, Verdict::Fail);
        assert!(s.contains("asks (--quick: asked for on purpose):\n"), "{s}");
        quick.nonconformant.clear();
        assert!(!summary(&quick, Verdict::Fail).contains("CONFORMANT"));
    }

    /// The verdict every output states is the certification's own once
    /// set, else the one it has as it stands.
    #[test]
    fn verdict_of_prefers_the_record() {
        let mut c = crate::certify::sample::complete();
        assert_eq!(verdict_of(&c), Verdict::Fail.record(&c));
        assert_eq!(
            verdict(&c, Verdict::Fail),
            "FAIL: 1 of 4 acceptance criteria not met (exit 5)"
        );
        let own = VerdictRecord {
            state: "error".into(),
            text: "ERROR: x".into(),
            exit: 1,
        };
        c.verdict = Some(own.clone());
        assert_eq!(verdict_of(&c), own);
        assert!(summary(&c, Verdict::Fail).ends_with("certification: ERROR: x (exit 1)\n"));
    }

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_168_769), "2026-12-01T23:46:09Z");
    }
}
