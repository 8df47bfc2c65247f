//! Every output states the same verdict and the same state for every
//! criterion: the JSON, the CSV, the HTML report, the JUnit XML and the
//! terminal summary, for each of the seven verdict states; and the same
//! figures of system recovery and reset.

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use scraper::{Html, Selector};

use super::model::{Certification, Criterion};
use super::sample;
use super::table::{self, Verdict};
use crate::outcome::Problem;

/// What one output says: the verdict (state, text, exit) and each
/// criterion's state, in the certification's order of criteria.
#[derive(Debug, PartialEq)]
struct Said {
    state: String,
    text: String,
    exit: u8,
    criteria: Vec<String>,
}

fn json(c: &Certification) -> Said {
    let v: serde_json::Value = serde_json::to_value(c).unwrap();
    let back: Certification = serde_json::from_value(v.clone()).unwrap();
    let verdict = &v["verdict"];
    Said {
        state: verdict["state"].as_str().unwrap().into(),
        text: verdict["text"].as_str().unwrap().into(),
        exit: verdict["exit"].as_u64().unwrap() as u8,
        criteria: back.criteria.iter().map(|k| k.state().into()).collect(),
    }
}

fn csv(c: &Certification) -> Said {
    let text = super::csv::render(c);
    let mut r = ::csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let lines: Vec<::csv::StringRecord> = r.records().map(|l| l.unwrap()).collect();
    let verdicts: Vec<&::csv::StringRecord> = lines.iter().filter(|l| &l[1] == "verdict").collect();
    assert_eq!(verdicts.len(), 1, "one verdict line");
    let v = verdicts[0];
    assert_eq!((&v[0], &v[2], &v[3]), ("certification", "", ""));
    Said {
        state: v[col("state")].into(),
        text: v[col("text")].into(),
        exit: v[col("exit")].parse().unwrap(),
        criteria: (lines.iter())
            .filter(|l| &l[1] == "criterion")
            .map(|l| l[col("state")].to_string())
            .collect(),
    }
}

fn html(c: &Certification) -> Said {
    let doc = Html::parse_document(&super::html::render(c));
    let sel = |s: &str| Selector::parse(s).unwrap();
    let banner = doc
        .select(&sel("#verdict"))
        .next()
        .expect("a verdict banner");
    let shown: String = banner.text().collect();
    let (text, exit) = shown
        .strip_suffix(')')
        .and_then(|s| s.rsplit_once(" (exit "))
        .expect("the banner ends with its exit status");
    let class = banner.value().attr("class").unwrap();
    let state = (class.split_whitespace())
        .find_map(|k| k.strip_prefix("v-"))
        .expect("a state class");
    Said {
        state: state.into(),
        text: text.into(),
        exit: exit.parse().unwrap(),
        criteria: (doc.select(&sel("table.criteria tbody tr td:last-child")))
            .map(|td| td.text().collect())
            .collect(),
    }
}

/// The JUnit XML's verdict properties, and each criterion's test case as
/// its child says: `<failure>` fail, `<skipped>` not judged, none pass.
fn junit(c: &Certification) -> Said {
    let xml = super::junit::render(c);
    let mut r = Reader::from_str(&xml);
    let mut props: Vec<(String, String)> = Vec::new();
    // (classname, name) of each case, and what it held.
    let mut cases: Vec<((String, String), String)> = Vec::new();
    loop {
        match r.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let attr = |key: &str| {
                    (e.attributes().map(|a| a.unwrap()))
                        .find(|a| a.key.as_ref() == key)
                        .map(|a| {
                            a.normalized_value(XmlVersion::Implicit1_0)
                                .unwrap()
                                .into_owned()
                        })
                        .unwrap_or_default()
                };
                match e.name().as_ref() {
                    "property" => props.push((attr("name"), attr("value"))),
                    "testcase" => {
                        cases.push(((attr("classname"), attr("name")), "pass".into()));
                    }
                    "failure" => cases.last_mut().unwrap().1 = "fail".into(),
                    "skipped" => cases.last_mut().unwrap().1 = "not judged".into(),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let prop = |name: &str| {
        (props.iter())
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no property {name}"))
    };
    let case = |k: &Criterion| {
        let key = (
            format!("rfc2544.{}.{}", k.test, k.direction),
            format!("{} B: {}", k.frame_size, k.wanted),
        );
        (cases.iter())
            .find(|(c, _)| *c == key)
            .map(|(_, s)| s.clone())
            .unwrap_or_else(|| panic!("no case {key:?}"))
    };
    Said {
        state: prop("verdict.state"),
        text: prop("verdict.text"),
        exit: prop("verdict.exit").parse().unwrap(),
        criteria: c.criteria.iter().map(case).collect(),
    }
}

fn terminal(c: &Certification, v: Verdict) -> Said {
    let s = table::summary(c, v);
    let last = s.lines().last().unwrap();
    let (text, exit) = last
        .strip_prefix("certification: ")
        .and_then(|l| l.strip_suffix(')'))
        .and_then(|l| l.rsplit_once(" (exit "))
        .expect("the verdict line");
    let criteria = (s.lines())
        .skip_while(|l| *l != "acceptance criteria")
        .skip(1)
        .take(c.criteria.len())
        .map(|l| {
            let state = l.trim_start().split("  ").next().unwrap().trim();
            state.to_lowercase()
        })
        .collect();
    Said {
        state: v.key().into(),
        text: text.into(),
        exit: exit.parse().unwrap(),
        criteria,
    }
}

/// A certification in each verdict state, judged as `landspeed rfc2544`
/// judges one (its verdict record set before anything is written).
fn states() -> Vec<(&'static str, Certification, Verdict)> {
    let judged = |mut c: Certification, error: bool| {
        let v = Verdict::of(&c, error);
        c.verdict = Some(v.record(&c));
        (c, v)
    };
    let mut pass = sample::complete();
    pass.criteria.retain(|k| k.passed);
    let mut figures = pass.clone();
    figures.criteria.clear();
    let mut open = pass.clone();
    open.criteria[0].judged = false;
    open.criteria[0].passed = false;
    open.criteria[0].measured =
        "not judged: tester-bound: 41.11 % of line, the tester's limit".into();
    let mut doubt = pass.clone();
    doubt.problems.push(Problem::Other {
        detail: "link p1 lost for 0.2 s".into(),
    });
    let mut error = sample::complete();
    error.complete = false;
    error.stopped_by = Some("port p1 received nothing in the first trial".into());
    let mut out = Vec::new();
    let with = sample::recovery_and_reset;
    for (name, c, err) in [
        ("pass", pass, false),
        ("figures", figures, false),
        ("fail", sample::complete(), false),
        ("not_judged", open, false),
        ("doubt", doubt, false),
        ("incomplete", sample::incomplete(), false),
        ("error", error, true),
    ] {
        let (c, v) = judged(with(c), err);
        out.push((name, c, v));
    }
    out
}

#[test]
fn every_output_states_the_same_verdict_and_criterion_states() {
    for (name, c, v) in states() {
        assert_eq!(v.key(), name, "the sample is in the state it is named for");
        let want = Said {
            state: name.into(),
            text: table::text(&c, v),
            exit: v.exit(),
            criteria: c.criteria.iter().map(|k| k.state().to_string()).collect(),
        };
        assert_eq!(json(&c), want, "JSON, {name}");
        assert_eq!(csv(&c), want, "CSV, {name}");
        assert_eq!(html(&c), want, "HTML, {name}");
        assert_eq!(junit(&c), want, "JUnit, {name}");
        assert_eq!(terminal(&c, v), want, "terminal, {name}");
    }
}

/// The states the samples cover: each of the seven, and every criterion
/// state among them.
#[test]
fn the_samples_cover_every_state() {
    let all = states();
    let names: Vec<&str> = all.iter().map(|(n, _, _)| *n).collect();
    assert_eq!(
        names,
        [
            "pass",
            "figures",
            "fail",
            "not_judged",
            "doubt",
            "incomplete",
            "error"
        ]
    );
    let mut criteria: Vec<&str> = all
        .iter()
        .flat_map(|(_, c, _)| c.criteria.iter().map(Criterion::state))
        .collect();
    criteria.sort();
    criteria.dedup();
    assert_eq!(criteria, ["fail", "not judged", "pass"]);
    let texts: Vec<String> = all.iter().map(|(_, c, v)| table::text(c, *v)).collect();
    assert_eq!(
        texts,
        [
            "PASS: all 3 acceptance criteria met",
            "NO VERDICT: no acceptance criteria, figures only",
            "FAIL: 1 of 4 acceptance criteria not met",
            "NOT JUDGED: 1 of 3 acceptance criteria could not be judged: their figures are the \
             tester's limit (or every trial behind them was left out), not the device's",
            "PASS (all 3 device criteria met) but 1 problem(s) cast doubt on the figures",
            "INCOMPLETE: interrupted by SIGINT during frame loss, 512 B",
            "ERROR: port p1 received nothing in the first trial",
        ]
    );
}

/// An output of a certification whose verdict was never set (a result of
/// an older version) states the verdict it has as it stands.
#[test]
fn without_a_verdict_record_every_output_judges_it_as_it_stands() {
    let mut c = sample::complete();
    c.verdict = None;
    let v = Verdict::of(&c, false);
    let want = Said {
        state: "fail".into(),
        text: "FAIL: 1 of 4 acceptance criteria not met".into(),
        exit: 5,
        criteria: vec!["pass".into(), "fail".into(), "pass".into(), "pass".into()],
    };
    assert_eq!(csv(&c), want);
    assert_eq!(html(&c), want);
    assert_eq!(junit(&c), want);
    assert_eq!(terminal(&c, v), want);
}

/// One row of system recovery or reset as an output shows it: test,
/// direction, size, the load (recovery: overload and reduced, `/`
/// between), the trials counted of those run, the mean time, each
/// counted trial's time, the note.
#[derive(Debug, PartialEq)]
struct Row {
    test: String,
    direction: String,
    size: u32,
    load: String,
    counted: String,
    mean: String,
    times: Vec<String>,
    note: String,
}

/// One trial of recovery or reset: test, direction, size, its number in
/// its row, its time.
type TrialTime = (String, String, u32, String, String);

fn rows_of_json(c: &Certification) -> (Vec<Row>, Vec<TrialTime>) {
    let v: serde_json::Value = serde_json::to_value(c).unwrap();
    let f = super::format::Format::new(c.settings.resolution_pct);
    let s = |x: &serde_json::Value| super::format::seconds(x.as_f64().unwrap());
    let mut rows = Vec::new();
    let mut trials = Vec::new();
    for (test, load, each, time) in [
        ("recovery", "overload_pct", "recovery_s", "recovery_ns"),
        ("reset", "rate_pct", "reset_s", "gap_max_ns"),
    ] {
        for r in v[test].as_array().unwrap() {
            let mut load = f.pct(r[load].as_f64().unwrap());
            if test == "recovery" {
                load = format!("{load}/{}", f.pct(r["reduced_pct"].as_f64().unwrap()));
            }
            let counted = r[each].as_array().unwrap();
            let run = r["trials"].as_array().unwrap();
            let (dir, size) = (
                r["direction"].as_str().unwrap(),
                r["frame_size"].as_u64().unwrap() as u32,
            );
            rows.push(Row {
                test: test.into(),
                direction: dir.into(),
                size,
                load,
                counted: format!("{}/{}", counted.len(), run.len()),
                mean: if r["mean_s"].is_null() {
                    "n/a".into()
                } else {
                    s(&r["mean_s"])
                },
                times: counted.iter().map(s).collect(),
                note: r["note"].as_str().unwrap_or_default().into(),
            });
            for (i, t) in run.iter().enumerate() {
                let time = match t[time].as_f64() {
                    Some(ns) => super::format::seconds(ns / 1e9),
                    None => String::new(),
                };
                trials.push((test.into(), dir.into(), size, (i + 1).to_string(), time));
            }
        }
    }
    (rows, trials)
}

fn rows_of_csv(c: &Certification) -> (Vec<Row>, Vec<TrialTime>) {
    let text = super::csv::render(c);
    let mut r = ::csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let lines: Vec<::csv::StringRecord> = r.records().map(|l| l.unwrap()).collect();
    let get = |l: &::csv::StringRecord, name: &str| {
        l[header.iter().position(|h| h == name).unwrap()].to_string()
    };
    let mine = |kind: &'static str| {
        (lines.iter()).filter(move |l| matches!(&l[0], "recovery" | "reset") && &l[1] == kind)
    };
    let rows = mine("result")
        .map(|l| Row {
            test: l[0].into(),
            direction: l[2].into(),
            size: l[3].parse().unwrap(),
            load: if &l[0] == "recovery" {
                format!("{}/{}", get(l, "overload_pct"), get(l, "reduced_pct"))
            } else {
                get(l, "rate_pct")
            },
            counted: format!("{}/{}", get(l, "counted"), get(l, "trials")),
            mean: get(l, "mean_time_s"),
            times: get(l, "times_s")
                .split_whitespace()
                .map(String::from)
                .collect(),
            note: get(l, "note"),
        })
        .collect();
    let trials = mine("trial")
        .map(|l| {
            (
                l[0].into(),
                l[2].into(),
                l[3].parse().unwrap(),
                get(l, "trial"),
                get(l, "time_s"),
            )
        })
        .collect();
    (rows, trials)
}

/// A list of times as the HTML and the terminal show it (`; `
/// between them).
fn listed(text: &str) -> Vec<String> {
    (text.split("; "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn rows_of_html(c: &Certification) -> (Vec<Row>, Vec<TrialTime>) {
    let doc = Html::parse_document(&super::html::render(c));
    let sel = |s: &str| Selector::parse(s).unwrap();
    let text = |e: scraper::ElementRef| e.text().collect::<String>();
    let mut rows = Vec::new();
    let mut trials = Vec::new();
    for test in ["recovery", "reset"] {
        let section = doc.select(&sel(&format!("section#{test}"))).next().unwrap();
        let dirs: Vec<String> = section.select(&sel(":scope > h3")).map(text).collect();
        let tables: Vec<_> = section.select(&sel(":scope > table")).collect();
        assert_eq!(dirs.len(), tables.len(), "{test}: a table per direction");
        for (dir, table) in dirs.iter().zip(tables) {
            let head: Vec<String> = table.select(&sel("th")).map(text).collect();
            for tr in table.select(&sel("tbody tr")) {
                let td: Vec<String> = tr.select(&sel("td")).map(text).collect();
                let get =
                    |heading: &str| td[head.iter().position(|h| h == heading).unwrap()].clone();
                rows.push(Row {
                    test: test.into(),
                    direction: dir.clone(),
                    size: td[0].parse().unwrap(),
                    load: if test == "recovery" {
                        format!(
                            "{}/{}",
                            get("overload, % of line"),
                            get("reduced, % of line")
                        )
                    } else {
                        get("% of line")
                    },
                    counted: format!("{}/{}", get("counted"), get("trials")),
                    mean: get("mean time, s"),
                    times: listed(&get("each trial, s")),
                    note: get("note"),
                });
            }
        }
        let dirs: Vec<String> = section.select(&sel("details h3")).map(text).collect();
        let tables: Vec<_> = section.select(&sel("details table.trials")).collect();
        for (dir, table) in dirs.iter().zip(tables) {
            let dir = dir.strip_suffix(": trials").unwrap();
            let head: Vec<String> = table.select(&sel("th")).map(text).collect();
            for tr in table.select(&sel("tbody tr")) {
                let td: Vec<String> = tr.select(&sel("td")).map(text).collect();
                let get =
                    |heading: &str| td[head.iter().position(|h| h == heading).unwrap()].clone();
                trials.push((
                    test.into(),
                    dir.into(),
                    td[0].parse().unwrap(),
                    get("trial"),
                    get("time, s"),
                ));
            }
        }
    }
    (rows, trials)
}

/// A JUnit test case: its suite, classname, name and properties.
type Case = (String, String, String, Vec<(String, String)>);

/// The JUnit XML's recovery and reset cases: each one's figures, as
/// the properties of its case.
fn rows_of_junit(c: &Certification) -> Vec<Row> {
    let xml = super::junit::render(c);
    let mut r = Reader::from_str(&xml);
    // (suite, classname, name, properties) of each case.
    let mut cases: Vec<Case> = Vec::new();
    let mut suite = String::new();
    loop {
        match r.read_event().unwrap() {
            Event::Eof => break,
            Event::Start(e) | Event::Empty(e) => {
                let attr = |key: &str| {
                    (e.attributes().map(|a| a.unwrap()))
                        .find(|a| a.key.as_ref() == key)
                        .map(|a| {
                            a.normalized_value(XmlVersion::Implicit1_0)
                                .unwrap()
                                .into_owned()
                        })
                        .unwrap_or_default()
                };
                match e.name().as_ref() {
                    "testsuite" => suite = attr("name"),
                    "testcase" => {
                        cases.push((suite.clone(), attr("classname"), attr("name"), Vec::new()))
                    }
                    "property" => {
                        if let Some(case) = cases.last_mut() {
                            case.3.push((attr("name"), attr("value")));
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let mut rows = Vec::new();
    for test in ["recovery", "reset"] {
        let prefix = format!("rfc2544.{test}.");
        for (s, class, name, props) in cases.iter().filter(|k| k.0 == format!("rfc2544.{test}")) {
            assert_eq!(s, &format!("rfc2544.{test}"));
            let get = |n: &str| {
                (props.iter())
                    .find(|(k, _)| k == n)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_else(|| panic!("{test} {name}: no property {n}"))
            };
            rows.push(Row {
                test: test.into(),
                direction: class.strip_prefix(&prefix).unwrap().into(),
                size: name.strip_suffix(" B").unwrap().parse().unwrap(),
                load: if test == "recovery" {
                    format!("{}/{}", get("overload_pct"), get("reduced_pct"))
                } else {
                    get("rate_pct")
                },
                counted: format!("{}/{}", get("counted"), get("trials")),
                mean: get("mean_time_s"),
                times: get("times_s")
                    .split_whitespace()
                    .map(String::from)
                    .collect(),
                note: get("note"),
            });
        }
    }
    rows
}

/// The terminal's recovery and reset tables: a row per line under each
/// table's heading, until the next line that is not a row.
fn rows_of_terminal(c: &Certification, v: Verdict) -> Vec<Row> {
    let s = table::summary(c, v);
    let mut rows = Vec::new();
    for (test, heading) in [
        ("recovery", "system recovery (RFC 2544 26.5)"),
        ("reset", "reset (RFC 2544 26.6)"),
    ] {
        let lines = (s.lines())
            .skip_while(|l| !l.starts_with(heading))
            .skip(2)
            .take_while(|l| l.starts_with("  ") && !l.contains(" left out: "));
        for l in lines {
            let (size, rest) = l.trim_start().split_once(' ').unwrap();
            let dir = (c.directions.iter())
                .find(|d| rest.starts_with(d.as_str()))
                .expect("a direction");
            let mut words = rest[dir.len()..].split_whitespace();
            let mut next = || words.next().unwrap().to_string();
            let load = if test == "recovery" {
                let over = next();
                format!("{over}/{}", next())
            } else {
                next()
            };
            let (mean, counted) = (next(), next());
            let tail: Vec<String> = words.map(String::from).collect();
            let tail = tail.join(" ");
            let (times, note) = match tail.split_once('(') {
                Some((t, n)) => (t.to_string(), n.strip_suffix(')').unwrap().to_string()),
                None => (tail.clone(), String::new()),
            };
            rows.push(Row {
                test: test.into(),
                direction: dir.clone(),
                size: size.parse().unwrap(),
                load,
                counted,
                mean,
                times: listed(&times),
                note,
            });
        }
    }
    rows
}

#[test]
fn every_output_shows_the_same_recovery_and_reset_figures() {
    let row = |test: &str,
               dir: usize,
               load: &str,
               counted: &str,
               mean: &str,
               times: &[&str],
               note: &str| Row {
        test: test.into(),
        direction: sample::DIRS[dir].into(),
        size: 64,
        load: load.into(),
        counted: counted.into(),
        mean: mean.into(),
        times: times.iter().map(|t| t.to_string()).collect(),
        note: note.into(),
    };
    let want = vec![
        row(
            "recovery",
            0,
            "59.08/29.54",
            "2/2",
            "0.0004495",
            &["0.0004470", "0.0004520"],
            "",
        ),
        row(
            "recovery",
            1,
            "55.43/27.71",
            "0/1",
            "n/a",
            &[],
            "no trial counted: see each trial's reason",
        ),
        row("reset", 0, "53.71", "2/2", "1.008", &["1.006", "1.009"], ""),
    ];
    let trial = |test: &str, dir: usize, n: &str, time: &str| -> TrialTime {
        (
            test.into(),
            sample::DIRS[dir].into(),
            64,
            n.into(),
            time.into(),
        )
    };
    let want_trials = vec![
        trial("recovery", 0, "1", "0.0004470"),
        trial("recovery", 0, "2", "0.0004520"),
        trial("recovery", 1, "1", ""),
        trial("reset", 0, "1", "1.006"),
        trial("reset", 0, "2", "1.009"),
    ];
    for (name, c, v) in states() {
        let (rows, trials) = rows_of_json(&c);
        assert_eq!(rows, want, "JSON, {name}");
        assert_eq!(trials, want_trials, "JSON trials, {name}");
        let (rows, trials) = rows_of_csv(&c);
        assert_eq!(rows, want, "CSV, {name}");
        assert_eq!(trials, want_trials, "CSV trials, {name}");
        let (rows, trials) = rows_of_html(&c);
        assert_eq!(rows, want, "HTML, {name}");
        assert_eq!(trials, want_trials, "HTML trials, {name}");
        assert_eq!(rows_of_junit(&c), want, "JUnit, {name}");
        assert_eq!(rows_of_terminal(&c, v), want, "terminal, {name}");
    }
}
