//! The JUnit XML of a certification, so a CI system shows each frame size
//! as a test case.
//!
//! - A `<testsuite>` per test (`rfc2544.throughput`, ...), and one more,
//!   `rfc2544.certification`, whose single case `complete` is an error
//!   when the certification stopped early (its problems in `system-err`).
//!   Its properties state the verdict (`verdict.state`, `verdict.text`,
//!   `verdict.exit`: the terminal's last line and the exit status), each
//!   setting below RFC 2544's (`nonconformant.certify.trial`, its value
//!   and what the RFC asks) and the tester's setup (`quick`,
//!   `latency_definition`, `latency_method`, `baseline`, `frames.N`,
//!   `task.N`). The latency suite's properties repeat the latency
//!   definition, the timestamp method and the baseline.
//! - In a test's suite, per direction and frame size: a `<testcase>` per
//!   acceptance criterion, as its state says: met passes, not met is a
//!   `<failure>` (wanted against measured), *not judged* (the figure it
//!   needs was the tester's limit) is `<skipped>` with the reason, never
//!   a pass or a failure; with no criterion there, one passing case
//!   carrying the measured figures as properties (the device's latency,
//!   with a baseline, as `device.*`) and in `system-out`; a size the test
//!   did not measure is `skipped`, its message the reason the
//!   certification's `not_measured` gives (the certification stopped
//!   before it, no throughput rate to run latency at, ...).
//!
//! The figures are the [`format`] records' plain text, as in the CSV.

use std::fmt::Write as _;

use super::format::{self, escape, Column, Kind, Record};
use super::model::Test;
use super::model::{Certification, Criterion, Size};

/// Counts of one suite (or of all).
#[derive(Default, Clone, Copy)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.tests += o.tests;
        self.failures += o.failures;
        self.errors += o.errors;
        self.skipped += o.skipped;
    }

    fn attrs(self) -> String {
        format!(
            r#"tests="{}" failures="{}" errors="{}" skipped="{}""#,
            self.tests, self.failures, self.errors, self.skipped
        )
    }
}

/// The JUnit XML of `c`.
pub fn render(c: &Certification) -> String {
    let results = format::results(c);
    let mut total = Counts::default();
    let mut suites = String::new();
    let device = format::device_latency(c);
    for test in format::tests_of(c) {
        let (body, counts) = suite(c, test, &results, &device);
        total.add(counts);
        let props = if test == Test::Latency {
            properties(&latency_setup(c), "    ")
        } else {
            String::new()
        };
        let _ = write!(
            suites,
            "  <testsuite name=\"rfc2544.{}\" {} timestamp=\"{}\">\n{props}{body}  </testsuite>\n",
            test.key(),
            counts.attrs(),
            escape(&c.started)
        );
    }
    let (body, counts) = completeness(c);
    total.add(counts);
    let props = properties(&certification_properties(c), "    ");
    let _ = write!(
        suites,
        "  <testsuite name=\"rfc2544.certification\" {} timestamp=\"{}\">\n{props}{body}  </testsuite>\n",
        counts.attrs(),
        escape(&c.started)
    );
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}: {}\" {}>\n{suites}</testsuites>\n",
        super::format::report_title(c),
        escape(&c.profile),
        total.attrs()
    )
}

/// A `<properties>` element of `(name, value)` pairs, indented by
/// `indent`; nothing when there are none.
fn properties(list: &[(String, String)], indent: &str) -> String {
    if list.is_empty() {
        return String::new();
    }
    let mut out = format!("{indent}<properties>\n");
    for (name, value) in list {
        let _ = writeln!(
            out,
            "{indent}  <property name=\"{}\" value=\"{}\"/>",
            escape(name),
            escape(value)
        );
    }
    let _ = writeln!(out, "{indent}</properties>");
    out
}

/// The certification suite's properties: the verdict, each setting below
/// RFC 2544's, then the setup's facts (a fact that repeats numbered from
/// 1: `frames.1`, `frames.2`).
fn certification_properties(c: &Certification) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let v = format::verdict(c);
    for (col, text) in &v.cells {
        out.push((format!("verdict.{}", col.name()), text.clone()));
    }
    for d in format::deviations(c) {
        let get = |col| d.get(col).unwrap_or_default().to_string();
        out.push((
            format!("nonconformant.{}", get(Column::Setting)),
            format!("{} (RFC 2544: {})", get(Column::Value), get(Column::Rfc)),
        ));
    }
    out.extend(setup_pairs(&format::setup(c)));
    out
}

/// The setup records as property pairs, a key that repeats numbered.
fn setup_pairs(records: &[Record]) -> Vec<(String, String)> {
    let key = |r: &Record| r.get(Column::Setting).unwrap_or_default().to_string();
    let mut out = Vec::new();
    for r in records {
        let k = key(r);
        let repeats = records.iter().filter(|x| key(x) == k).count() > 1;
        let name = if repeats {
            let n = out
                .iter()
                .filter(|(name, _): &&(String, String)| name.starts_with(&format!("{k}.")))
                .count();
            format!("{k}.{}", n + 1)
        } else {
            k
        };
        out.push((name, r.get(Column::Value).unwrap_or_default().to_string()));
    }
    out
}

/// The latency suite's properties: how latency was defined and
/// timestamped, and the baseline.
fn latency_setup(c: &Certification) -> Vec<(String, String)> {
    let keys = ["latency_definition", "latency_method", "baseline"];
    let mine: Vec<Record> = (format::setup(c).into_iter())
        .filter(|r| keys.contains(&r.get(Column::Setting).unwrap_or_default()))
        .collect();
    setup_pairs(&mine)
}

/// The (direction, size) pairs of a test: the results', the criteria's,
/// and those the settings planned, in the certification's order.
fn cases(
    c: &Certification,
    test: Test,
    results: &[&Record],
    criteria: &[&Criterion],
) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut add = |d: &str, s: u32| {
        if !out.iter().any(|(od, os)| od == d && *os == s) {
            out.push((d.to_string(), s));
        }
    };
    let planned = (c.settings.tests.iter()).any(|k| Test::from_key(k) == Some(test));
    for d in &c.directions {
        // Reset runs at the smallest size only.
        for s in super::search::test_sizes(&c.settings, test.key()) {
            if planned {
                add(d, s);
            }
        }
    }
    results.iter().for_each(|r| add(&r.direction, r.frame_size));
    (c.not_measured.iter())
        .filter(|n| Test::from_key(&n.test) == Some(test))
        .for_each(|n| add(&n.direction, n.frame_size));
    criteria
        .iter()
        .for_each(|k| add(&k.direction, k.frame_size));
    out
}

fn suite(c: &Certification, test: Test, results: &[Record], device: &[Record]) -> (String, Counts) {
    let mine: Vec<&Record> = (results.iter().chain(device))
        .filter(|r| r.test == Some(test))
        .collect();
    let criteria: Vec<&Criterion> = c
        .criteria
        .iter()
        .filter(|k| Test::from_key(&k.test) == Some(test))
        .collect();
    let mut body = String::new();
    let mut counts = Counts::default();
    for (dir, size) in cases(c, test, &mine, &criteria) {
        let class = format!("rfc2544.{}.{}", test.key(), dir);
        let here: Vec<&&Criterion> = criteria
            .iter()
            .filter(|k| k.direction == dir && k.frame_size == size)
            .collect();
        let rows: Vec<&Record> = mine
            .iter()
            .copied()
            .filter(|r| r.direction == dir && r.frame_size == size)
            .collect();
        counts.tests += here.len().max(1);
        if !here.is_empty() {
            for k in here {
                match k.state() {
                    "fail" => counts.failures += 1,
                    "not judged" => counts.skipped += 1,
                    _ => {}
                }
                criterion_case(&mut body, &class, k, &rows);
            }
        } else if !rows.is_empty() {
            figures_case(&mut body, &class, size, &rows);
        } else {
            counts.skipped += 1;
            let why = format::why_not(c, test, &dir, size)
                .unwrap_or("not measured: the certification stopped first");
            let _ = writeln!(
                body,
                "    <testcase classname=\"{}\" name=\"{}\">\n      <skipped message=\"{}\"/>\n    </testcase>",
                escape(&class),
                Size(size).bytes(),
                escape(why)
            );
        }
    }
    (body, counts)
}

fn criterion_case(body: &mut String, class: &str, k: &Criterion, rows: &[&Record]) {
    let name = format!("{}: {}", Size(k.frame_size).bytes(), k.wanted);
    let _ = writeln!(
        body,
        "    <testcase classname=\"{}\" name=\"{}\">",
        escape(class),
        escape(&name)
    );
    if !k.judged {
        let _ = writeln!(
            body,
            "      <skipped message=\"{}\"/>",
            escape(&format!("{}: {}", k.wanted, k.measured))
        );
    } else if !k.passed {
        let message = format!("wanted {}, measured {}", k.wanted, k.measured);
        let text = format!("wanted: {}\nmeasured: {}", k.wanted, k.measured);
        let _ = writeln!(
            body,
            "      <failure message=\"{}\" type=\"criterion\">{}</failure>",
            escape(&message),
            text_escape(&text)
        );
    }
    let mut out = format!("state: {}\nmeasured: {}\n", k.state(), k.measured);
    out.push_str(&figures_text(rows));
    let _ = writeln!(
        body,
        "      <system-out>{}</system-out>\n    </testcase>",
        text_escape(&out)
    );
}

fn figures_case(body: &mut String, class: &str, size: u32, rows: &[&Record]) {
    let _ = writeln!(
        body,
        "    <testcase classname=\"{}\" name=\"{}\">\n      <properties>",
        escape(class),
        Size(size).bytes()
    );
    let results = rows.iter().filter(|r| r.kind == Kind::Result).count();
    for (i, r) in rows.iter().enumerate() {
        // A loss curve has a row per point: number the points' properties;
        // the device's latency is `device.*`.
        let (prefix, suffix) = match r.kind {
            Kind::Device => ("device.", String::new()),
            _ if results > 1 => ("", format!(".{}", i + 1)),
            _ => ("", String::new()),
        };
        for (col, text) in &r.cells {
            let _ = writeln!(
                body,
                "        <property name=\"{prefix}{}{suffix}\" value=\"{}\"/>",
                col.name(),
                escape(text)
            );
        }
    }
    let _ = writeln!(
        body,
        "      </properties>\n      <system-out>{}</system-out>\n    </testcase>",
        text_escape(&figures_text(rows))
    );
}

/// The figures of `rows`, a line each: `name=value ...`, and a line
/// saying so when the tester bounded them.
fn figures_text(rows: &[&Record]) -> String {
    let mut out = String::new();
    for r in rows {
        let prefix = if r.kind == Kind::Device {
            "device."
        } else {
            ""
        };
        let cells: Vec<String> = r
            .cells
            .iter()
            .map(|(c, t)| format!("{prefix}{}={t}", c.name()))
            .collect();
        out.push_str(&cells.join(" "));
        out.push('\n');
        if r.tester_bound() {
            out.push_str("tester-bound: this figure is the tester's limit, not the device's\n");
        }
    }
    out
}

/// Escaped element text, line breaks kept as they are.
fn text_escape(text: &str) -> String {
    escape(text).replace("&#10;", "\n")
}

/// The `rfc2544.certification` suite: complete or not, and the problems.
fn completeness(c: &Certification) -> (String, Counts) {
    let mut body =
        String::from("    <testcase classname=\"rfc2544.certification\" name=\"complete\">\n");
    let counts = Counts {
        tests: 1,
        errors: usize::from(!c.complete),
        ..Counts::default()
    };
    if !c.complete {
        let why = c.stopped_by.as_deref().unwrap_or("it was stopped");
        let message = format!("the certification did not run to its end: {why}");
        let _ = writeln!(
            body,
            "      <error message=\"{}\" type=\"incomplete\"/>",
            escape(&message)
        );
    }
    body.push_str("    </testcase>\n");
    let v = super::verdict::verdict_of(c);
    let _ = writeln!(
        body,
        "    <system-out>certification: {} (exit {})</system-out>",
        text_escape(&v.text),
        v.exit
    );
    if !c.problems.is_empty() {
        let lines: Vec<String> = c.problems.iter().map(|p| p.text()).collect();
        let _ = writeln!(
            body,
            "    <system-err>{}</system-err>",
            text_escape(&lines.join("\n"))
        );
    }
    (body, counts)
}

#[cfg(test)]
mod tests {
    use quick_xml::events::Event;
    use quick_xml::{Reader, XmlVersion};

    use super::*;
    use crate::certify::sample;

    /// What the XML holds, read by an XML parser.
    #[derive(Debug, Default)]
    struct Read {
        suites: Vec<(String, Vec<(String, String)>)>,
        cases: Vec<(String, String)>,
        failures: Vec<String>,
        skipped: usize,
        skips: Vec<String>,
        errors: usize,
        root: Vec<(String, String)>,
        text: String,
    }

    fn attrs(e: &quick_xml::events::BytesStart) -> Vec<(String, String)> {
        e.attributes()
            .map(|a| {
                let a = a.unwrap();
                let key = a.key.as_ref().to_string();
                (
                    key,
                    a.normalized_value(XmlVersion::Implicit1_0)
                        .unwrap()
                        .into_owned(),
                )
            })
            .collect()
    }

    fn get(attrs: &[(String, String)], key: &str) -> String {
        attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    fn read(xml: &str) -> Read {
        let mut r = Reader::from_str(xml);
        let mut out = Read::default();
        loop {
            match r.read_event().unwrap() {
                Event::Eof => break,
                Event::Start(e) | Event::Empty(e) => {
                    let a = attrs(&e);
                    match e.name().as_ref() {
                        "testsuites" => out.root = a,
                        "testsuite" => out.suites.push((get(&a, "name"), a)),
                        "testcase" => out.cases.push((get(&a, "classname"), get(&a, "name"))),
                        "failure" => out.failures.push(get(&a, "message")),
                        "skipped" => {
                            out.skipped += 1;
                            out.skips.push(get(&a, "message"));
                        }
                        "error" => out.errors += 1,
                        _ => {}
                    }
                }
                Event::Text(t) => out.text.push_str(&t.xml10_content()),
                Event::GeneralRef(g) => match g.resolve_char_ref().unwrap() {
                    Some(ch) => out.text.push(ch),
                    None => {
                        let name = g.xml10_content();
                        out.text
                            .push_str(quick_xml::escape::resolve_predefined_entity(&name).unwrap());
                    }
                },
                _ => {}
            }
        }
        out
    }

    fn count(attrs: &[(String, String)], key: &str) -> usize {
        get(attrs, key).parse().unwrap()
    }

    #[test]
    fn a_case_per_criterion_or_size_and_the_failure_says_wanted_and_measured() {
        let x = read(&render(&sample::complete()));
        assert_eq!(x.suites.len(), 5);
        assert_eq!(x.cases.len(), 4 * 14 + 1);
        assert_eq!(
            x.failures,
            ["wanted throughput ≥ 55 % of line, measured 50.34 % of line"]
        );
        assert_eq!((x.skipped, x.errors), (0, 0));
        assert_eq!(
            (
                count(&x.root, "tests"),
                count(&x.root, "failures"),
                count(&x.root, "errors")
            ),
            (57, 1, 0)
        );
        let (name, a) = &x.suites[0];
        assert_eq!(
            (name.as_str(), count(a, "tests"), count(a, "failures")),
            ("rfc2544.throughput", 14, 1)
        );
        assert_eq!(
            x.cases[0],
            (
                "rfc2544.throughput.port 0 → port 1".into(),
                "64 B: throughput ≥ 50 % of line".into()
            )
        );
        assert_eq!(
            x.cases[1],
            ("rfc2544.throughput.port 0 → port 1".into(), "128 B".into())
        );
        assert!(x.text.contains(
            "rate_pct=53.71 l1_bps=5371093750 l2_bps=4092261905 fps=7992699 bound=device trials=12"
        ));
        assert!(x
            .text
            .contains("wanted: throughput ≥ 55 % of line\nmeasured: 50.34 % of line"));
    }

    #[test]
    fn incomplete_skips_what_did_not_run_and_errors_once() {
        let x = read(&render(&sample::incomplete()));
        assert_eq!(x.cases.len(), 4 * 14 + 1);
        assert_eq!(x.skipped, 11 + 14);
        assert_eq!(x.errors, 1);
        assert_eq!(count(&x.root, "skipped"), 25);
        assert_eq!(count(&x.root, "errors"), 1);
        let (_, b2b) = &x.suites[3];
        assert_eq!((count(b2b, "tests"), count(b2b, "skipped")), (14, 14));
        assert!(
            x.skips.iter().all(|m| m
                == "not run: the certification stopped before it: interrupted by SIGINT during \
                    frame loss, 512 B"),
            "{:?}",
            x.skips
        );
    }

    #[test]
    fn a_size_not_measured_is_skipped_with_its_reason() {
        let x = read(&render(&sample::no_rate_at_64()));
        assert_eq!(
            x.skips,
            ["no throughput rate: none of the 12 throughput trial(s) at this size passed"]
        );
        let (name, lat) = &x.suites[1];
        assert_eq!(name, "rfc2544.latency");
        assert_eq!((count(lat, "tests"), count(lat, "skipped")), (14, 1));
        // An aggregate entry is a case of its own.
        let mut c = sample::no_rate_at_64();
        c.not_measured[0].direction = "aggregate".into();
        let x = read(&render(&c));
        assert!(x
            .cases
            .contains(&("rfc2544.latency.aggregate".into(), "64 B".into())));
        assert_eq!(x.skips.len(), 2, "the aggregate's and port 0 → port 1's");
    }

    #[test]
    fn tester_bound_figures_say_so() {
        let x = read(&render(&sample::tester_bound()));
        assert!(x.text.contains("bound=tester"));
        assert!(x
            .text
            .contains("tester-bound: this figure is the tester's limit, not the device's"));
        assert!(
            x.text.contains("TX lcore 2 was descheduled"),
            "the problem is in system-err"
        );
    }

    #[test]
    fn hostile_names_stay_escaped() {
        let mut c = sample::incomplete();
        let evil = "<x a=\"1\">&amp; 'q' ]]> \n\t\u{1}";
        c.profile = evil.into();
        c.stopped_by = Some(evil.into());
        c.criteria[1].wanted = evil.into();
        c.criteria[1].measured = evil.into();
        let x = read(&render(&c));
        let clean = evil.replace('\u{1}', "\u{FFFD}");
        assert_eq!(
            get(&x.root, "name"),
            format!("RFC 2544 certification: {clean}")
        );
        assert_eq!(x.failures, [format!("wanted {clean}, measured {clean}")]);
        assert!(x.cases.iter().any(|(_, n)| *n == format!("64 B: {clean}")));
    }
}
