//! Every output states the same verdict and the same state for every
//! criterion: the JSON, the CSV, the HTML report, the JUnit XML and the
//! terminal summary, for each of the seven verdict states.

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};
use scraper::{Html, Selector};

use super::format::sample;
use super::model::{Certification, Criterion};
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
    for (name, c, err) in [
        ("pass", pass, false),
        ("figures", figures, false),
        ("fail", sample::complete(), false),
        ("not_judged", open, false),
        ("doubt", doubt, false),
        ("incomplete", sample::incomplete(), false),
        ("error", error, true),
    ] {
        let (c, v) = judged(c, err);
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
