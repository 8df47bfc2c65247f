//! The HTML report of a certification: one self-contained file a lab hands
//! over (inline CSS, inline SVG charts, system fonts; no script and no
//! reference outside the file), readable on screen (nothing wider than
//! 1200 px: a trial list wider than the page scrolls in its own box) and
//! printed on A4 (within the page's width).
//!
//! It shows, in order: whether the certification is incomplete, the
//! verdict (the certification's own, as the terminal's last line and the
//! exit status state it), whether some test was not measured, the
//! problems and tester-bound results, the box of settings below RFC
//! 2544's; the title block (device, versions, host, topology, ports, line
//! rate, settings, the latency definition and timestamps, the tester
//! baseline, the frames sent and the tester's lcores); the acceptance
//! criteria and each one's state; what limits the figures (the problems,
//! the results the tester bounded, the trials left out); what was not
//! measured and why; then per test its chart (or, for a test with no
//! result, the sentence saying why), a table per direction (latency also
//! its definition, the device's latency with a baseline, a histogram per
//! size and its trials left out) and every trial. Its figures are the
//! [`format`] records', shown as people read them ([`format::shown`]), so
//! they are the CSV's.
//!
//! The markup is written with [`maud`]: every text is escaped by
//! construction; the charts are [`svg`]'s, inserted as they are.

use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::format::{self, Column, Record};
use super::model::Test;
use super::model::{Certification, Host, Settings, Size};
use super::svg;

/// The inline style sheet: screen, and A4 print.
const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: #111; background: #fff; margin: 24px auto; max-width: 1080px; padding: 0 16px;
  font-size: 14px; line-height: 1.4; }
h1 { font-size: 24px; margin: 0 0 2px; }
h2 { font-size: 19px; margin: 28px 0 6px; border-bottom: 2px solid #1f77b4; padding-bottom: 2px; }
h3 { font-size: 15px; margin: 14px 0 4px; }
p.sub { margin: 0 0 10px; color: #444; }
.banner { padding: 10px 14px; border-radius: 4px; font-weight: 600; margin: 10px 0; }
.banner.incomplete { background: #fff3cd; border: 2px solid #b58100; }
.banner.pass { background: #e6f4ea; border: 2px solid #1e7b34; }
.banner.fail { background: #fde8e8; border: 2px solid #b3261e; }
.banner.figures { background: #eef2fb; border: 1px solid #8899bb; }
.banner.doubt { background: #fdf0e3; border: 1px solid #c07020; font-weight: normal; }
.banner.doubt, .banner.unmeasured { overflow-wrap: anywhere; }
.banner.unmeasured { background: #fff3cd; border: 1px solid #b58100; font-weight: normal; }
.banner.v-pass { background: #e6f4ea; border: 2px solid #1e7b34; }
.banner.v-fail, .banner.v-error { background: #fde8e8; border: 2px solid #b3261e; }
.banner.v-figures { background: #eef2fb; border: 1px solid #8899bb; }
.banner.v-not_judged, .banner.v-doubt { background: #fdf0e3; border: 2px solid #c07020; }
.banner.v-incomplete { background: #fff3cd; border: 2px solid #b58100; }
.banner a { color: inherit; }
.nonconformant { border: 2px solid #b3261e; border-radius: 4px; padding: 6px 14px; margin: 10px 0; background: #fffafa; }
.nonconformant p.box-title { font-weight: 700; color: #b3261e; margin: 4px 0; }
.scroll { overflow-x: auto; max-width: 100%; }
td.t.long { min-width: 14em; max-width: 30em; overflow-wrap: anywhere; }
td.list { text-align: left; min-width: 10em; max-width: 24em; overflow-wrap: anywhere; }
td.nj { color: #8a5a00; font-weight: 600; }
.histograms { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 0 12px; }
svg.histogram { display: block; max-width: 100%; height: auto; margin: 4px 0; }
ul.left-out li { overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 6px 0 14px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #c8c8c8; padding: 3px 8px; text-align: right; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
th.t, td.t { text-align: left; }
table.meta th { text-align: left; width: 13em; }
table.meta td { text-align: left; white-space: pre-line; overflow-wrap: anywhere; }
td.t { overflow-wrap: break-word; }
table.criteria td.t:nth-child(4), table.criteria td.t:nth-child(5) { overflow-wrap: anywhere; }
table.trials, table.per-direction { font-size: 12px; }
table.trials th, table.trials td, table.per-direction th, table.per-direction td { padding: 2px 5px; }
tr.tb td, td.tb { background: repeating-linear-gradient(135deg, #ffffff 0 5px, #f6e2bd 5px 10px); }
td.yes { color: #1e7b34; font-weight: 600; }
td.no { color: #b3261e; font-weight: 600; }
td.missing { color: #8a5a00; text-align: left; font-style: italic; }
.key { display: inline-block; width: 1.4em; height: 0.9em; vertical-align: middle;
  background: repeating-linear-gradient(135deg, #ffffff 0 5px, #f6e2bd 5px 10px);
  border: 1px solid #c8c8c8; }
svg.chart, svg.pairs { display: block; max-width: 100%; height: auto; margin: 8px 0 4px; }
details { margin: 4px 0 16px; }
summary { cursor: pointer; color: #1f4f8f; }
footer { margin-top: 32px; color: #555; font-size: 12px; border-top: 1px solid #ccc; padding-top: 6px; }
@page { size: A4; margin: 14mm 12mm; }
@media print {
  body { margin: 0; max-width: none; padding: 0; font-size: 9.5pt; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  section.test { break-before: page; }
  svg.chart, svg.pairs, svg.histogram, .banner, .nonconformant, h3, tr { break-inside: avoid; }
  h2, h3 { break-after: avoid; }
  details { display: none; }
  th, td { padding: 2px 4px; }
  table { font-size: 8pt; }
  .scroll { overflow: visible; }
  .histograms { grid-template-columns: 1fr 1fr; }
  td.t.long, td.list { min-width: 0; }
}
"#;

/// The report of `c`, as one HTML5 document.
pub fn render(c: &Certification) -> String {
    let results = format::results(c);
    let trials = format::trials(c);
    let bound = tester_bound_lines(&results, &trials);
    let state = if c.complete { "" } else { " (incomplete)" };
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (format::report_title(c)) ": " (c.profile) (state) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                h1 { (format::report_title(c)) }
                p.sub { (c.profile) " · " (c.started) }
                (banners(c, bound.len()))
                (nonconformant(c))
                (title_block(c))
                (criteria(c))
                (doubts(c, &bound))
                (unmeasured(c))
                @for test in format::tests_of(c) {
                    (section(c, test, &results, &trials))
                }
                footer {
                    "Written by landspeed " (c.landspeed)
                    " from the certification's figures; the CSV and the JSON hold the same figures."
                }
            }
        }
    };
    let mut out = page.into_string();
    out.push('\n');
    out
}

/// The first screen: incomplete, then the verdict (the certification's
/// own, as the terminal's last line and the exit status state it), then
/// what was not measured and any doubt (the problems, and `bound` results
/// the tester bounded).
fn banners(c: &Certification, bound: usize) -> Markup {
    let v = super::verdict::verdict_of(c);
    let problems = c.problems.len();
    html! {
        @if !c.complete {
            div.banner.incomplete #incomplete {
                "INCOMPLETE: the certification did not run to its end ("
                (c.stopped_by.as_deref().unwrap_or("it was stopped"))
                "). The figures below are the results so far; sizes and tests not measured are marked."
            }
        }
        div.banner.verdict.(format!("v-{}", v.state)) #verdict {
            a href="#criteria" { (v.text) " (exit " (v.exit) ")" }
        }
        @if !c.not_measured.is_empty() {
            div.banner.unmeasured {
                (c.not_measured.len()) " test result(s) not measured: see "
                a href="#not-measured" { "what was not measured and why" } "."
            }
        }
        @if bound + problems > 0 {
            div.banner.doubt {
                (problems) " problem(s) and " (bound) " tester-bound result(s): see "
                a href="#doubts" { "what limits the figures" } "."
            }
        }
    }
}

/// The box near the top that lists every setting below RFC 2544's (the
/// certification's `nonconformant`): absent when there is none.
fn nonconformant(c: &Certification) -> Markup {
    let records = format::deviations(c);
    if records.is_empty() {
        return html! {};
    }
    html! {
        div.nonconformant #nonconformant {
            p.box-title {
                "Not RFC 2544-conformant: " (records.len())
                " setting(s) below what RFC 2544 asks"
            }
            @if c.settings.quick {
                p { "--quick: these settings were asked for on purpose, for a quick look; the figures are not a certification." }
            }
            table.conformance {
                thead { tr { th.t { "setting" } th.t { "value" } th.t { (Column::Rfc.heading()) } } }
                tbody {
                    @for r in &records {
                        tr {
                            @for col in [Column::Setting, Column::Value, Column::Rfc] {
                                td.t { (r.get(col).unwrap_or_default()) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The title block's device when the profile describes none.
const NO_DEVICE: &str = "not described (the profile's certify.device says what is certified)";

/// The host in one line: name, CPU model and count, kernel.
fn host_line(host: &Host) -> String {
    let cpu = if host.cpu.is_empty() {
        "CPU unknown".to_string()
    } else {
        host.cpu.clone()
    };
    let name = if host.name.is_empty() {
        String::new()
    } else {
        format!("{}: ", host.name)
    };
    let kernel = if host.kernel.is_empty() {
        "kernel unknown"
    } else {
        &host.kernel
    };
    format!("{name}{cpu} × {}, {kernel}", host.cpus)
}

/// The rows of the title block: heading, text.
fn title_rows(c: &Certification) -> Vec<(String, String)> {
    let mut rows = setup_rows(c);
    rows.extend(search_rows(&c.settings));
    rows.extend(other_settings_rows(c));
    rows.extend(method_rows(c));
    rows
}

/// The title block's rows of what was certified, and by what: the
/// device, profile, tester, host, topology, ports and line rate.
fn setup_rows(c: &Certification) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, value: String| rows.push((what.to_string(), value));
    add(
        "Device under test",
        c.device.as_deref().unwrap_or(NO_DEVICE).to_string(),
    );
    add("Profile", c.profile.clone());
    add("Started (UTC)", c.started.clone());
    add(
        "Tester",
        format!("landspeed {}, DPDK {}", c.landspeed, c.dpdk),
    );
    add("Host", host_line(&c.host));
    add("Topology", c.topology.clone());
    add("Directions", c.directions.join("; "));
    if c.host.ports.is_empty() {
        add("Ports", c.ports.join("; "));
    }
    for p in &c.host.ports {
        add(
            &format!("Port {}", p.name),
            format!("{}, {}, {}", p.device, p.driver, p.link),
        );
    }
    add(
        "Line rate",
        format!(
            "{} at L1 ({} bit/s)",
            format::bit_rate(c.line_bps),
            format::grouped(&c.line_bps.to_string())
        ),
    );
    rows
}

/// The title block's rows of the tests and how each searches: sizes,
/// trial, throughput search, latency, loss step, back-to-back.
fn search_rows(s: &Settings) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, value: String| rows.push((what.to_string(), value));
    add("Tests", s.tests.join(", "));
    let sizes: Vec<String> = s.sizes.iter().map(|x| x.to_string()).collect();
    add("Frame sizes, bytes", sizes.join(", "));
    add(
        "Trial",
        format!(
            "{}, then {} settle",
            format::duration(s.trial_s),
            format::duration(s.settle_s)
        ),
    );
    add(
        "Throughput search",
        format!(
            "{} % to {} % of line, resolution {} %, loss tolerance {} %{}",
            format::trimmed(s.lower_pct),
            format::trimmed(s.upper_pct),
            format::trimmed(s.resolution_pct),
            format::trimmed(s.loss_tolerance_pct),
            if s.loss_tolerance_pct == 0.0 {
                " (NDR)"
            } else {
                " (PDR)"
            }
        ),
    );
    add(
        "Latency bound per trial",
        s.max_p99_ns.map_or("none".to_string(), |ns| {
            format!("p99 ≤ {} ns", format::whole(ns))
        }),
    );
    add(
        "Latency",
        format!(
            "{} trials of {}",
            s.latency_trials,
            format::duration(s.latency_trial_s)
        ),
    );
    add(
        "Frame loss step",
        format!("{} % of line", format::trimmed(s.loss_step_pct)),
    );
    add(
        "Back-to-back",
        format!(
            "{} searches, longest burst {} at line rate",
            s.back_to_back_trials,
            format::duration(s.back_to_back_max_s)
        ),
    );
    rows
}

/// The title block's rows of the settings only some certifications
/// use: recovery, reset, the search's own trials, restabilise,
/// learning, IMIX, direction loads.
fn other_settings_rows(c: &Certification) -> Vec<(String, String)> {
    let s = &c.settings;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, value: String| rows.push((what.to_string(), value));
    let runs =
        |test: Test| test.has_results(c) || s.tests.iter().any(|k| Test::from_key(k) == Some(test));
    if runs(Test::Recovery) {
        add(
            "System recovery",
            format!(
                "{} trials: {} of overload, then {} at half of it",
                s.recovery_trials,
                format::duration(s.recovery_overload_s),
                format::duration(s.recovery_reduced_s)
            ),
        );
    }
    if runs(Test::Reset) {
        add(
            "Reset",
            format!(
                "{} trial(s) of {}, the device reset {} into each",
                s.reset_trials,
                format::duration(s.reset_trial_s),
                format::duration(s.reset_at_s)
            ),
        );
    }
    let a = &s.addresses;
    let flush = (s.dut.as_ref().and_then(|d| d.flush.as_deref())).unwrap_or("no flush hook");
    if runs(Test::AddressCaching) {
        let most = a.max.map_or("each stream's destinations".to_string(), |m| {
            format::grouped(&m.to_string())
        });
        add(
            "Address caching",
            format!(
                "{} to {most} addresses by halving; learning frames at {} frames/s, each \
                 address once; test frames at {} % of line, two or more per address; the \
                 table cleared before each trial by `{flush}`",
                format::grouped(&a.min.to_string()),
                format::grouped(&format::whole(a.learning_fps)),
                format::trimmed(a.load_pct)
            ),
        );
    }
    if runs(Test::LearningRate) {
        let most = a.rate_max_fps.map_or("line rate".to_string(), |m| {
            format::grouped(&format::whole(m))
        });
        let taught = a.taught.map_or(
            "the addresses the caching test held (else its most)".to_string(),
            |n| format!("{} addresses", format::grouped(&n.to_string())),
        );
        add(
            "Address learning rate",
            format!(
                "{} frames/s to {most} by halving, to {} frames/s; {taught} taught each trial; \
                 the table cleared before each trial by `{flush}`",
                format::grouped(&format::whole(a.rate_min_fps)),
                format::grouped(&format::whole(a.rate_resolution_fps))
            ),
        );
    }
    if let Some(t) = s.search_trial_s {
        add(
            "Throughput search trials",
            format!(
                "{}, the result confirmed by a trial of {}",
                format::duration(t),
                format::duration(s.trial_s)
            ),
        );
    }
    add(
        "Restabilise",
        format!("{} after each trial", format::duration(s.restabilise_s)),
    );
    add("Learning frames", s.learning.key().to_string());
    if let Some(t) = format::imix_text(s) {
        add("IMIX", t);
    }
    if let Some(t) = format::direction_loads_text(c) {
        add("Direction loads (aggregate)", t);
    }
    rows
}

/// The title block's rows of how the figures were taken: the latency
/// definition and timestamps, the baseline, `--quick`, the frames and
/// the tester's lcores.
fn method_rows(c: &Certification) -> Vec<(String, String)> {
    let s = &c.settings;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut add = |what: &str, value: String| rows.push((what.to_string(), value));
    add(
        "Latency definition",
        format!(
            "{} (certify.latency_definition: {})",
            s.latency_definition.text(),
            s.latency_definition.key()
        ),
    );
    add("Latency timestamps", format::method(c).to_string());
    add(
        "Tester baseline",
        c.baseline
            .as_ref()
            .map_or(format::NO_BASELINE.to_string(), format::baseline_text),
    );
    add(
        "Quick",
        if s.quick {
            "yes: settings below RFC 2544's asked for on purpose (--quick)"
        } else {
            "no"
        }
        .to_string(),
    );
    if !c.frames.is_empty() {
        add("Frames", c.frames.join("\n"));
    }
    if !c.tasks.is_empty() {
        let tasks: Vec<String> = c.tasks.iter().map(|t| t.text()).collect();
        add("Tester lcores", tasks.join("\n"));
    }
    rows
}

fn title_block(c: &Certification) -> Markup {
    html! {
        h2 #setup { "Device, tester and settings" }
        table.meta {
            @for (what, value) in title_rows(c) {
                tr { th { (what) } td { (value) } }
            }
        }
    }
}

/// The class of a criterion's state cell.
fn state_class(state: &str) -> &'static str {
    match state {
        "pass" => "t yes",
        "fail" => "t no",
        _ => "t nj",
    }
}

fn criteria(c: &Certification) -> Markup {
    let records = format::criteria(c);
    html! {
        h2 #criteria { "Acceptance criteria" }
        @if records.is_empty() {
            p { "The profile sets no acceptance criteria." }
        } @else {
            table.criteria {
                thead {
                    tr {
                        th.t { "test" } th.t { "direction" } th { "frame size, B" }
                        @for col in [Column::Wanted, Column::Measured, Column::State] {
                            th.t { (col.heading()) }
                        }
                    }
                }
                tbody {
                    @for r in &records {
                        @let state = r.get(Column::State).unwrap_or_default();
                        tr {
                            td.t { (r.test_key()) }
                            td.t { (r.direction) }
                            td { (Size(r.frame_size)) }
                            td.t { (r.get(Column::Wanted).unwrap_or_default()) }
                            td.t { (r.get(Column::Measured).unwrap_or_default()) }
                            td class=(state_class(state)) { (state) }
                        }
                    }
                }
            }
            p.states {
                "Each criterion's state: " strong { "pass" } " (met), " strong { "fail" } " (not met) or "
                strong { "not judged" } " (the figure it needs was the tester's limit, or every trial behind it was left out: the device neither met nor missed it)."
            }

        }
    }
}

/// The problems, and every result the tester (not the device) bounded:
/// `bound`, one line per test, direction and size (see
/// [`tester_bound_lines`]).
fn doubts(c: &Certification, bound: &[(Test, String)]) -> Markup {
    let left = format::left_out(c);
    html! {
        h2 #doubts { "What limits the figures" }
        @if c.problems.is_empty() && bound.is_empty() && left.is_empty() {
            p { "No problem was seen, and no result was bounded by the tester." }
        }
        @if !c.problems.is_empty() {
            p { "Problems seen during the certification:" }
            ul {
                @for p in &c.problems {
                    li { (p.text()) }
                }
            }
        }
        @if !bound.is_empty() {
            p {
                span.key {} " Tester-bound: the tester could not offer more, so these figures are the tester's limit, not the device's (the device did at least this much):"
            }
            ul.tester-bound {
                @for (test, text) in bound {
                    li { a href=(format!("#{}", test.key())) { (test.title()) } (text) }
                }
            }
        }
        @if !left.is_empty() {
            p { "Trials left out of the figures (each tried again where the tries allowed), and why:" }
            (left_out_list(&left))
        }
    }
}

/// A list of trials left out: test, direction, size, trial number and
/// why.
fn left_out_list(left: &[(Test, String, u32, usize, String)]) -> Markup {
    html! {
        ul.left-out {
            @for (test, dir, size, n, why) in left {
                li {
                    a href=(format!("#{}", test.key())) { (test.title()) }
                    ", " (dir) ", " (Size(*size).bytes()) ", trial " (n) ": " (why)
                }
            }
        }
    }
}

/// Every test, direction and size the certification planned and did not
/// measure, with the reason (its `not_measured`).
fn unmeasured(c: &Certification) -> Markup {
    let records = format::not_measured(c);
    html! {
        h2 #not-measured { "Not measured" }
        @if records.is_empty() {
            p { "Every test planned was measured at every size and direction." }
        } @else {
            table.not-measured {
                thead {
                    tr { th.t { "test" } th.t { "direction" } th { "frame size, B" } th.t { "reason" } }
                }
                tbody {
                    @for r in &records {
                        tr {
                            td.t { a href=(format!("#{}", r.test_key())) { (r.test_key()) } }
                            td.t { (r.direction) }
                            td { (Size(r.frame_size)) }
                            td.t { (r.get(Column::Reason).unwrap_or_default()) }
                        }
                    }
                }
            }
        }
    }
}
/// What the tester bounded, grouped: one line per test, direction and
/// size whose result is tester-bound, in the order of the results. Each
/// line is its test and the text after the test's title: the direction,
/// the size, the rate the tester bounded (throughput), and how many of
/// the row's trials were tester-bound, at which offered loads (their
/// distinct `offered %`, in the order they ran) or, for back-to-back,
/// which bursts (frames sent). The figures are the records' text, as in
/// the tables and the CSV.
fn tester_bound_lines(results: &[Record], trials: &[Record]) -> Vec<(Test, String)> {
    let key = |r: &Record| {
        (
            r.test.unwrap_or(Test::Throughput),
            r.direction.clone(),
            r.frame_size,
        )
    };
    let mut keys: Vec<(Test, String, u32)> = Vec::new();
    for r in results.iter().filter(|r| r.tester_bound()) {
        if !keys.contains(&key(r)) {
            keys.push(key(r));
        }
    }
    let line = |(test, dir, size): (Test, String, u32)| {
        let k = (test, dir.clone(), size);
        let mut parts: Vec<String> = Vec::new();
        let rate = results
            .iter()
            .find(|r| key(r) == k && r.get(Column::Bound) == Some("tester"))
            .and_then(|r| r.get(Column::RatePct));
        if let Some(rate) = rate {
            parts.push(format!("{rate} % of line, bound by the tester"));
        }
        let mine: Vec<&Record> = trials.iter().filter(|t| key(t) == k).collect();
        let bound: Vec<&Record> = mine.iter().copied().filter(|t| t.tester_bound()).collect();
        if !bound.is_empty() {
            let (col, before, after) = match test {
                Test::BackToBack => (Column::TxFrames, "bursts of ", " frames"),
                _ => (Column::OfferedPct, "at ", " % of line"),
            };
            let mut values: Vec<String> = Vec::new();
            for v in bound.iter().filter_map(|t| t.get(col)) {
                let v = format::shown(col, v);
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            // Grouped counts hold commas: those are listed with `; `.
            let sep = if col == Column::TxFrames { "; " } else { ", " };
            parts.push(format!(
                "{} of {} trials tester-bound, {before}{}{after}",
                bound.len(),
                mine.len(),
                values.join(sep)
            ));
        }
        let what = if parts.is_empty() {
            String::new()
        } else {
            format!(": {}", parts.join("; "))
        };
        (test, format!(", {dir}, {}{what}", Size(size).bytes()))
    };
    keys.into_iter().map(line).collect()
}

/// What each test's section says it measured.
fn about(test: Test) -> &'static str {
    match test {
        Test::Throughput => "The highest offered load at which the device lost no more than the tolerance, per frame size, found by binary search and confirmed by one more trial.",
        Test::Latency => "One-way latency of every frame (one process, one clock) at each size's throughput rate, over the trials that count: min and max the least and the largest of any frame, mean the mean of the trials' means (RFC 2544 averages its trials), the percentiles over all their frames; jitter is the mean of the trials' standard deviations. A trial that lost frames, received corrupt ones or was the tester's is left out, tried again and listed.",
        Test::Loss => "Frames lost, in % of frames sent, at each offered load from the top rate down until two successive steps lost nothing. Each cell is one trial.",
        Test::Recovery => "How fast the device recovers from an overload: 110 % of its throughput (at most the line) for the overload time, then half of that; each trial's time runs from the drop to the first frame through after the last loss, and the mean is over the trials that count (a trial whose overload lost nothing, or that was the tester's, is left out).",
        Test::Reset => "How long a reset of the device interrupts forwarding: a stream at the throughput rate of the smallest frame size, the device reset by the profile's reset hook during it; each trial's time is the longest gap between two arrivals, from the last frame before the reset to the first after it, and the mean is over the trials that count.",
        Test::AddressCaching => "How many addresses the device holds in its address table: a binary search on the number of destination addresses. Each trial clears the table (the profile's flush hook), teaches the device the trial's addresses with learning frames from the port they live behind, then sends test frames to them at a load the device forwards; it passes when every frame reached its port and none was flooded to another (the monitoring port's flooded frames count). The figure is the most addresses of a trial that passed; the search's trials are its trace.",
        Test::LearningRate => "How fast the device learns addresses: a binary search on the learning frames' rate. Each trial clears the table, sends one learning frame per address at the trial's rate, then test frames to those addresses; it passes when every frame reached its port and none was flooded. The figure is the fastest rate of a trial that passed; the search's trials are its trace.",
        Test::BackToBack => "The longest burst at line rate the device forwarded without loss, by binary search on the burst length, over several searches (RFC 9004): their mean and standard deviation, each search's burst, the implied buffer time (the mean burst's length at line rate) and the corrected buffer time (less what the device forwarded during the burst at its measured throughput, which is shown).",
    }
}

fn section(c: &Certification, test: Test, results: &[Record], trials: &[Record]) -> Markup {
    let mine: Vec<&Record> = results.iter().filter(|r| r.test == Some(test)).collect();
    html! {
        section.test #(test.key()) {
            h2 { (test.title()) " (" (test.rfc()) " section " (test.section()) ")" }
            p { (about(test)) }
            @match svg::chart(test, c) {
                Some(chart) => (PreEscaped(chart)),
                None => @if let Some(line) = format::nothing_measured(c, test) {
                    p.banner.incomplete.no-chart { (line) }
                },
            }
            @for m in svg::pair_matrices(c, test) {
                (PreEscaped(m))
            }
            @if mine.iter().any(|r| r.tester_bound()) {
                p { span.key {} " marks a tester-bound figure: the tester's limit, not the device's." }
            }
            @if test == Test::Latency {
                (latency_setup(c))
            }
            @for dir in directions(c, &mine) {
                @let rows: Vec<&Record> = mine.iter().copied().filter(|r| r.direction == dir).collect();
                h3 { (dir) }
                @if test == Test::Loss {
                    (loss_table(c, &dir, &rows))
                } @else {
                    (result_table(c, test, &dir, &rows))
                }
            }
            @if test == Test::Latency {
                (latency_extras(c))
            }
            (trial_tables(c, test, trials))
        }
    }
}

/// How the latency was defined and timestamped, and whether the tester's
/// own latency was taken out.
fn latency_setup(c: &Certification) -> Markup {
    let def = c.settings.latency_definition;
    let frame = match def {
        super::model::LatencyDefinition::StoreAndForward => {
            ", less one frame time at line rate (the frame's last bit reaches the device one frame time after its first leaves the tester)"
        }
        super::model::LatencyDefinition::BitForwarding => "",
    };
    html! {
        p.latency-def {
            strong { "Definition: " } (def.text()) ". "
            strong { "Timestamps: " } (format::method(c)) ". "
            @match &c.baseline {
                Some(b) => {
                    strong { "Tester baseline: " } (format::baseline_text(b))
                    ": the device's latency below is the measured latency less the tester's own mean latency" (frame) "."
                }
                None => { strong { "No tester baseline: " } "the figures include the tester's own latency, so they are an upper bound of the device's." }
            }
        }
    }
}

/// Below the latency tables: the device's latency (the baseline taken
/// out) per direction, the histograms, and the trials left out.
fn latency_extras(c: &Certification) -> Markup {
    let device = format::device_latency(c);
    let dev: Vec<&Record> = device.iter().collect();
    let left: Vec<(Test, String, u32, usize, String)> = (format::left_out(c).into_iter())
        .filter(|l| l.0 == Test::Latency)
        .collect();
    let sizes = svg::histogram_sizes(c);
    html! {
        @for dir in directions(c, &dev) {
            @let rows: Vec<&Record> = dev.iter().copied().filter(|r| r.direction == dir).collect();
            h3 { (dir) ": the device's latency, the tester's baseline taken out" }
            (result_table(c, Test::Latency, &dir, &rows))
        }
        @if !sizes.is_empty() {
            h3 { "Histograms" }
            div.histograms {
                @for size in sizes {
                    @if let Some(chart) = svg::histogram(c, size) {
                        (PreEscaped(chart))
                    }
                }
            }
        }
        @if !left.is_empty() {
            h3 { "Trials left out" }
            (left_out_list(&left))
        }
    }
}

/// The directions records name, in the certification's order.
fn directions(c: &Certification, records: &[&Record]) -> Vec<String> {
    let mut out: Vec<String> = c.directions.clone();
    for r in records {
        if !out.contains(&r.direction) {
            out.push(r.direction.clone());
        }
    }
    out.retain(|d| records.iter().any(|r| &r.direction == d));
    out
}

/// The sizes the settings planned `test` at that no record of `rows`
/// holds: not measured (reset runs at the smallest size only; a test the
/// settings did not plan misses none).
fn missing_sizes(c: &Certification, test: Test, rows: &[&Record]) -> Vec<u32> {
    let planned = (c.settings.tests.iter()).any(|k| Test::from_key(k) == Some(test));
    if !planned {
        return Vec::new();
    }
    let sizes = super::search::test_sizes(&c.settings, test.key());
    sizes
        .into_iter()
        .filter(|s| !rows.iter().any(|r| r.frame_size == *s))
        .collect()
}

fn header(columns: &[Column], first: &str) -> Markup {
    html! {
        thead {
            tr {
                th { (first) }
                @for col in columns {
                    th { (col.heading()) }
                }
            }
        }
    }
}

fn cell_class(col: Column, text: &str) -> Option<&'static str> {
    match col {
        Column::Problems | Column::Excluded | Column::Reason | Column::Note => Some("t long"),
        Column::Bursts | Column::Times => Some("list"),
        Column::Passed if text == "no" => Some("no"),
        c if c.is_text() => Some("t"),
        _ => None,
    }
}

fn cells(r: &Record) -> Markup {
    html! {
        @for (col, text) in &r.cells {
            td class=[cell_class(*col, text)] { (format::shown(*col, text)) }
        }
    }
}

fn row(r: &Record) -> Markup {
    html! {
        tr class=[r.tester_bound().then_some("tb")] {
            td { (Size(r.frame_size)) }
            (cells(r))
        }
    }
}

/// The row of a size `test` did not measure in `dir`: the reason the
/// certification gives.
fn not_measured(c: &Certification, test: Test, dir: &str, size: u32, span: usize) -> Markup {
    let why = format::why_not(c, test, dir, size).unwrap_or("the certification stopped first");
    html! {
        tr {
            td { (Size(size)) }
            td.missing colspan=(span) { "not measured: " (why) }
        }
    }
}

fn result_table(c: &Certification, test: Test, dir: &str, rows: &[&Record]) -> Markup {
    let columns: Vec<Column> = rows
        .first()
        .map(|r| r.cells.iter().map(|(c, _)| *c).collect())
        .unwrap_or_default();
    // The device's latency lists the sizes it has; the rest are said
    // in the measured table.
    let missing = match rows.first().map(|r| r.kind) {
        Some(format::Kind::Device) => Vec::new(),
        _ => missing_sizes(c, test, rows),
    };
    html! {
        table {
            (header(&columns, "frame size, B"))
            tbody {
                @for r in rows {
                    (row(r))
                }
                @for size in missing {
                    (not_measured(c, test, dir, size, columns.len()))
                }
            }
        }
    }
}

/// The loss curves of one direction: a row per size, a column per
/// offered load (highest first), each cell the loss % of that trial.
fn loss_table(c: &Certification, dir: &str, rows: &[&Record]) -> Markup {
    let mut rates: Vec<(f64, String)> = Vec::new();
    for r in rows {
        let text = r.get(Column::RatePct).unwrap_or_default();
        if !rates.iter().any(|(_, t)| t == text) {
            rates.push((text.parse().unwrap_or(f64::NAN), text.to_string()));
        }
    }
    rates.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut sizes: Vec<u32> = Vec::new();
    rows.iter().for_each(|r| {
        if !sizes.contains(&r.frame_size) {
            sizes.push(r.frame_size)
        }
    });
    html! {
        table {
            thead {
                tr { th { "frame size, B" } th colspan=(rates.len()) { "loss % at offered load, % of line:" } }
                tr {
                    th {}
                    @for (_, text) in &rates {
                        th { (text) }
                    }
                }
            }
            tbody {
                @for size in sizes {
                    tr {
                        td { (Size(size)) }
                        @for (_, rate) in &rates {
                            @let at = rows.iter().find(|r| r.frame_size == size && r.get(Column::RatePct) == Some(rate));
                            @match at {
                                Some(r) => td class=[r.tester_bound().then_some("tb")] {
                                    (r.get(Column::LossPct).unwrap_or_default())
                                },
                                None => td {},
                            }
                        }
                    }
                }
                @for size in missing_sizes(c, Test::Loss, rows) {
                    (not_measured(c, Test::Loss, dir, size, rates.len()))
                }
            }
        }
    }
}

/// Every trial of `test`, folded: a table per direction.
fn trial_tables(c: &Certification, test: Test, trials: &[Record]) -> Markup {
    let mine: Vec<&Record> = trials.iter().filter(|r| r.test == Some(test)).collect();
    if mine.is_empty() {
        return html! {};
    }
    html! {
        details {
            summary { "Every trial (" (mine.len()) ")" }
            @for dir in directions(c, &mine) {
                @let rows: Vec<&Record> = mine.iter().copied().filter(|r| r.direction == dir).collect();
                @let columns: Vec<Column> = rows[0].cells.iter().map(|(c, _)| *c).collect();
                h3 { (dir) ": trials" }
                div.scroll {
                    table.trials {
                        (header(&columns, "frame size, B"))
                        tbody {
                            @for r in rows {
                                (row(r))
                            }
                        }
                    }
                }
            }
            (direction_table(test, &format::direction_trials(c)))
        }
    }
}

/// Each direction's share of the trials of `test` in which every
/// direction sent at once: a row per trial and direction.
fn direction_table(test: Test, shares: &[Record]) -> Markup {
    let mine: Vec<&Record> = shares.iter().filter(|r| r.test == Some(test)).collect();
    let Some(first) = mine.first() else {
        return html! {};
    };
    html! {
        h3 id=(format!("{}-per-direction", test.key())) { (super::search::AGGREGATE) ": each direction" }
        div.scroll { table.per-direction {
            thead {
                tr {
                    th { "frame size, B" } th.t { "direction" }
                    @for (col, _) in &first.cells {
                        th { (col.heading()) }
                    }
                }
            }
            tbody {
                @for r in mine {
                    tr {
                        td { (Size(r.frame_size)) }
                        td.t { (r.direction) }
                        (cells(r))
                    }
                }
            }
        } }
    }
}

#[cfg(test)]
mod tests {
    use scraper::{ElementRef, Html, Selector};

    use super::*;
    use crate::certify::sample;

    fn sel(s: &str) -> Selector {
        Selector::parse(s).unwrap()
    }

    fn text(e: ElementRef) -> String {
        e.text().collect()
    }

    /// Parse, and fail on any HTML5 parse error.
    fn parse(html: &str) -> Html {
        let doc = Html::parse_document(html);
        assert!(doc.errors.is_empty(), "HTML parse errors: {:?}", doc.errors);
        doc
    }

    /// The title block as (heading, text) pairs.
    fn title_rows(html: &str) -> Vec<(String, String)> {
        let doc = parse(html);
        let tr = sel("table.meta tr");
        let rows = doc.select(&tr);
        rows.map(|r| {
            let th = r.select(&sel("th")).next().map(text).unwrap_or_default();
            let td = r.select(&sel("td")).next().map(text).unwrap_or_default();
            (th, td)
        })
        .collect()
    }

    fn row<'a>(rows: &'a [(String, String)], heading: &str) -> Option<&'a str> {
        rows.iter()
            .find(|(th, _)| th == heading)
            .map(|(_, td)| td.as_str())
    }

    #[test]
    fn the_title_block_describes_the_device_the_host_and_each_port() {
        let rows = title_rows(&render(&sample::complete()));
        let heads: Vec<&str> = rows.iter().take(9).map(|(th, _)| th.as_str()).collect();
        assert_eq!(
            heads,
            [
                "Device under test",
                "Profile",
                "Started (UTC)",
                "Tester",
                "Host",
                "Topology",
                "Directions",
                "Port p0",
                "Port p1"
            ]
        );
        assert_eq!(
            row(&rows, "Device under test"),
            Some("Example switch SW-48, firmware 7.2.1, ports 1/1 and 1/2")
        );
        assert_eq!(row(&rows, "Tester"), Some("landspeed 0.9.0, DPDK 22.11.4"));
        assert_eq!(
            row(&rows, "Host"),
            Some("tester-1: Intel(R) Xeon(R) Gold 6326 CPU @ 2.90GHz × 32, Linux 6.1.0-18-amd64")
        );
        assert_eq!(
            row(&rows, "Port p1"),
            Some("0000:3b:00.1, net_ice, up, 100 Gbit/s, full duplex")
        );
        assert_eq!(row(&rows, "Ports"), None);
    }

    #[test]
    fn an_undescribed_device_and_host_say_so() {
        let mut c = sample::complete();
        c.device = None;
        c.host = Host::default();
        let rows = title_rows(&render(&c));
        assert_eq!(
            row(&rows, "Device under test"),
            Some("not described (the profile's certify.device says what is certified)")
        );
        assert_eq!(row(&rows, "Host"), Some("CPU unknown × 0, kernel unknown"));
        assert_eq!(
            row(&rows, "Ports"),
            Some("port 0: 0000:3b:00.0 (net_ice); port 1: 0000:3b:00.1 (net_ice)")
        );
    }

    #[test]
    fn a_hostile_device_description_stays_text() {
        let mut c = sample::complete();
        c.device = Some("<script>x()</script> & \"quoted\"\nline 2".into());
        let html = render(&c);
        let doc = parse(&html);
        assert_eq!(doc.select(&sel("script")).count(), 0);
        let rows = title_rows(&html);
        assert_eq!(
            row(&rows, "Device under test"),
            Some("<script>x()</script> & \"quoted\"\nline 2")
        );
    }

    #[test]
    fn parses_without_error_and_has_one_chart_per_test() {
        for c in [
            sample::complete(),
            sample::incomplete(),
            sample::tester_bound(),
        ] {
            let html = render(&c);
            let doc = parse(&html);
            let present: Vec<Test> = Test::ALL
                .into_iter()
                .filter(|t| t.has_results(&c))
                .collect();
            assert_eq!(doc.select(&sel("svg.chart")).count(), present.len());
            for t in format::tests_of(&c) {
                let section = doc
                    .select(&sel(&format!("section#{}", t.key())))
                    .next()
                    .unwrap();
                let charts = section.select(&sel("svg.chart")).count();
                assert_eq!(charts, usize::from(present.contains(&t)), "{t:?}");
            }
            for svg in doc.select(&sel("svg.chart")) {
                let marks = svg.select(&sel("circle, rect, polyline")).count();
                assert!(
                    marks > 10,
                    "chart {:?} is nearly empty",
                    svg.value().attr("id")
                );
            }
        }
    }

    #[test]
    fn refers_to_nothing_outside_the_file() {
        let html = render(&sample::tester_bound());
        let lower = html.to_ascii_lowercase();
        for needle in [
            "http", "url(", "@import", "src=", "<script", "<link", "<img", "<iframe", "<object",
        ] {
            assert!(!lower.contains(needle), "report holds {needle:?}");
        }
        let doc = parse(&html);
        let mut anchors = 0;
        for e in doc.select(&sel("[href]")) {
            let href = e.value().attr("href").unwrap();
            assert!(href.starts_with('#') || href.starts_with("data:"), "{href}");
            if let Some(id) = href.strip_prefix('#') {
                assert_eq!(
                    doc.select(&sel(&format!("[id=\"{id}\"]"))).count(),
                    1,
                    "{href}"
                );
                anchors += 1;
            }
        }
        assert!(anchors >= 3, "{anchors}");
        let ids: Vec<&str> = doc
            .root_element()
            .descendent_elements()
            .filter_map(|e| e.value().attr("id"))
            .collect();
        let unique: std::collections::HashSet<&&str> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "ids repeat");
    }

    /// Recovery and reset have a section each, after back-to-back, with
    /// a table per direction and no chart; the report stays
    /// self-contained and every CSV figure of theirs is in it.
    #[test]
    fn recovery_and_reset_have_their_sections() {
        let c = sample::recovery_and_reset(sample::tester_bound());
        let html = render(&c);
        let lower = html.to_ascii_lowercase();
        for needle in [
            "http", "url(", "@import", "src=", "<script", "<link", "<img",
        ] {
            assert!(!lower.contains(needle), "report holds {needle:?}");
        }
        let doc = parse(&html);
        let ids: Vec<&str> = (doc.select(&sel("section.test")))
            .filter_map(|e| e.value().attr("id"))
            .collect();
        assert_eq!(
            ids,
            [
                "throughput",
                "latency",
                "loss",
                "back_to_back",
                "recovery",
                "reset"
            ]
        );
        for (key, title, tables) in [
            ("recovery", "System recovery (RFC 2544 section 26.5)", 2),
            ("reset", "Reset (RFC 2544 section 26.6)", 1),
        ] {
            let h2 = doc
                .select(&sel(&format!("section#{key} h2")))
                .next()
                .unwrap();
            assert_eq!(text(h2), title);
            let s = format!("section#{key}");
            assert_eq!(
                doc.select(&sel(&format!("{s} svg, {s} p.no-chart")))
                    .count(),
                0
            );
            assert_eq!(doc.select(&sel(&format!("{s} > table"))).count(), tables);
            assert_eq!(
                doc.select(&sel(&format!("{s} td.missing"))).count(),
                0,
                "not planned"
            );
        }
        let head: Vec<String> = doc
            .select(&sel("section#reset > table th"))
            .map(text)
            .collect();
        assert_eq!(
            head,
            [
                "frame size, B",
                "% of line",
                "trials",
                "counted",
                "mean time, s",
                "each trial, s",
                "note"
            ]
        );
        let row: Vec<String> = doc
            .select(&sel("section#reset > table tbody td"))
            .map(text)
            .collect();
        assert_eq!(row, ["64", "41.11", "2", "2", "1.008", "1.006; 1.009", ""]);
        csv_figures_in_html(c.clone());
        // Planned, reset misses no size but the smallest.
        let mut planned = c;
        planned
            .settings
            .tests
            .extend(["recovery".into(), "reset".into()]);
        let doc = parse(&render(&planned));
        assert_eq!(doc.select(&sel("section#reset td.missing")).count(), 0);
        assert_eq!(
            doc.select(&sel("section#recovery td.missing")).count(),
            6 + 6
        );
    }

    #[test]
    fn the_address_searches_have_their_sections_traces_and_the_csvs_figures() {
        let mut c = sample::address_searches(sample::incomplete());
        c.settings.tests = vec!["address_caching".into(), "learning_rate".into()];
        c.settings.sizes = vec![64];
        c.not_measured.clear();
        c.throughput.clear();
        c.latency.clear();
        c.loss.clear();
        c.back_to_back.clear();
        let html = render(&c);
        let doc = parse(&html);
        assert_eq!(
            text(doc.select(&sel("h1")).next().unwrap()),
            "RFC 2889 evaluation"
        );
        let ids: Vec<&str> = (doc.select(&sel("section.test")))
            .filter_map(|e| e.value().attr("id"))
            .collect();
        assert_eq!(ids, ["address_caching", "learning_rate"]);
        let h2: Vec<String> = doc.select(&sel("section.test h2")).map(text).collect();
        assert_eq!(
            h2,
            [
                "Address caching capacity (RFC 2889 section 5.7)",
                "Address learning rate (RFC 2889 section 5.8)"
            ]
        );
        // The trace: a dot per trial, green held, red flooded.
        let svg = doc
            .select(&sel("section#address_caching svg"))
            .next()
            .unwrap();
        let dots: Vec<&str> = (svg.select(&sel("circle")))
            .filter_map(|e| e.value().attr("fill"))
            .collect();
        assert_eq!(
            dots[..4],
            ["#d62728", "#2ca02c", "#d62728", "#d62728"],
            "{dots:?}"
        );
        let head: Vec<String> = doc
            .select(&sel("section#address_caching > table th"))
            .map(text)
            .collect();
        assert_eq!(
            head,
            [
                "frame size, B",
                "addresses",
                "learning frames/s",
                "searched",
                "bound",
                "trials",
                "note"
            ]
        );
        let row: Vec<String> = doc
            .select(&sel("section#address_caching > table tbody td"))
            .map(text)
            .collect();
        assert_eq!(row, ["64", "512", "2,000", "1–1,024", "device", "4", ""]);
        assert!(
            html.contains("Address caching"),
            "the settings name the search"
        );
        csv_figures_at_least(c.clone(), 140);
        // JUnit and the terminal say the same.
        let junit = crate::certify::junit::render(&c);
        assert!(junit.contains("name=\"RFC 2889 evaluation: "), "{junit}");
        let v = crate::certify::table::Verdict::of(&c, false);
        let table = crate::certify::table::summary(&c, v);
        assert!(
            table.contains("address caching capacity (RFC 2889 5.7)"),
            "{table}"
        );
        assert!(
            table.contains("    trial   4:        513 addresses at      2,000 learning/s: "),
            "{table}"
        );
        assert!(
            table.ends_with("28 flooded: flooded\n") || table.contains("28 flooded: flooded"),
            "{table}"
        );
    }

    /// Every figure of the CSV reads the same in the HTML: a result's in
    /// its test's section, a criterion's in the criteria table, a trial's
    /// in its test's list of trials.
    #[test]
    fn every_csv_figure_is_in_the_html_with_the_same_text() {
        csv_figures_in_html(sample::tester_bound());
        csv_figures_in_html(sample::bidirectional());
    }

    fn csv_figures_in_html(c: Certification) {
        csv_figures_at_least(c, 5_000);
    }

    /// [`csv_figures_in_html`], `least` figures checked at least.
    fn csv_figures_at_least(c: Certification, least: usize) {
        let html = render(&c);
        let doc = parse(&html);
        let cells = |scope: &str| -> std::collections::HashSet<String> {
            doc.select(&sel(scope)).map(text).collect()
        };
        let csv = crate::certify::csv::render(&c);
        let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
        let header = reader.headers().unwrap().clone();
        let mut checked = 0;
        let mut scopes = std::collections::HashMap::new();
        // The words of a whole box or block, for the lines whose figures
        // are set in a sentence or a list there.
        let block = |scope: &str| -> String {
            doc.select(&sel(scope))
                .map(text)
                .collect::<Vec<_>>()
                .join("\n")
        };
        for line in reader.records() {
            let line = line.unwrap();
            let (test, kind) = (&line[0], &line[1]);
            let scope = match kind {
                "result" | "device" => {
                    format!("section#{test} > table td, section#{test} > table th")
                }
                "criterion" => "table.criteria td".to_string(),
                "not_measured" => "table.not-measured td".to_string(),
                "nonconformant" => "#nonconformant td".to_string(),
                // Drawn, not tabled: the histogram's own test checks it.
                "histogram" => continue,
                "verdict" | "setup" => {
                    let words = block("#verdict, table.meta td");
                    for (name, field) in header.iter().zip(line.iter()).skip(4) {
                        if !field.is_empty() && name != "setting" && name != "state" {
                            assert!(words.contains(field), "{kind} {name} = {field:?}");
                            checked += 1;
                        }
                    }
                    continue;
                }
                _ => format!("section#{test} details td"),
            };
            let found = scopes.entry(scope.clone()).or_insert_with(|| cells(&scope));
            for (name, field) in header.iter().zip(line.iter()).skip(2) {
                if field.is_empty() || name == "direction" {
                    continue;
                }
                if kind == "result" && test == "loss" && name == "tester_bound" {
                    // The loss table marks a tester-bound point by its
                    // cell's hatching (class `tb`), not by a word.
                    let marked = doc.select(&sel("section#loss > table td.tb")).count() > 0;
                    assert!(field == "no" || marked);
                    continue;
                }
                if kind == "criterion" && name == "passed" {
                    // The criteria table says each one's state instead.
                    continue;
                }
                let column = Column::from_name(name);
                let shown = column.map_or(field.to_string(), |col| format::shown(col, field));
                assert!(
                    found.contains(&shown),
                    "{test} {kind} {name} = {field:?} ({shown:?}) not in {scope}"
                );
                checked += 1;
            }
        }
        assert!(checked >= least, "{checked}");
    }

    /// The aggregate's trials show each direction's share, in a row
    /// per trial and direction, with the CSV's figures.
    #[test]
    fn aggregate_trials_show_each_direction() {
        let c = sample::bidirectional();
        let doc = parse(&render(&c));
        let rows: Vec<Vec<String>> = doc
            .select(&sel(
                "section#throughput details table.per-direction tbody tr",
            ))
            .map(|tr| tr.select(&sel("td")).map(text).collect())
            .collect();
        let shares = format::direction_trials(&c);
        assert_eq!(rows.len(), shares.len());
        let n: usize = c.throughput[14..].iter().map(|r| 2 * r.trials.len()).sum();
        assert_eq!(rows.len(), n);
        let d0 = &c.throughput[14].trials[0].per_direction[0];
        assert_eq!(
            rows[0][..5],
            [
                "64",
                sample::DIRS[0],
                "1",
                "100.00",
                &format::grouped(&d0.tx_frames.to_string())
            ]
        );
        assert_eq!(rows[1][1], sample::DIRS[1]);
        for (row, r) in rows.iter().zip(&shares) {
            let cells: Vec<String> = (r.cells.iter())
                .map(|(col, t)| format::shown(*col, t))
                .collect();
            assert_eq!(row[2..], cells[..], "{row:?}");
        }
        let head: Vec<String> = doc
            .select(&sel("section#throughput details table.per-direction th"))
            .map(text)
            .collect();
        assert_eq!(
            head,
            [
                "frame size, B",
                "direction",
                "trial",
                "offered %",
                "sent",
                "received",
                "lost",
                "loss %",
                "reordered",
                "duplicated",
                "corrupt",
                "min ns",
                "mean ns",
                "p50 ns",
                "p99 ns",
                "p99.9 ns",
                "max ns"
            ]
        );
        assert_eq!(doc.select(&sel("h3#throughput-per-direction")).count(), 1);
        assert_eq!(
            doc.select(&sel("table.per-direction")).count(),
            1,
            "throughput only"
        );
        let plain = parse(&render(&sample::complete()));
        assert_eq!(plain.select(&sel("table.per-direction")).count(), 0);
    }

    #[test]
    fn tables_hold_a_row_per_size_and_direction() {
        let c = sample::complete();
        let doc = parse(&render(&c));
        for (key, tables) in [
            ("throughput", 2),
            ("latency", 2),
            ("loss", 2),
            ("back_to_back", 2),
        ] {
            let s = format!("section#{key} > table");
            assert_eq!(doc.select(&sel(&s)).count(), tables, "{key}");
            for table in doc.select(&sel(&s)) {
                let rows = table.select(&sel("tbody tr")).count();
                assert_eq!(rows, 7, "{key}");
            }
        }
        let head: Vec<String> = doc
            .select(&sel("section#throughput > table th"))
            .map(text)
            .collect();
        assert_eq!(
            head[..7],
            [
                "frame size, B",
                "% of line",
                "L1 rate",
                "L2 rate",
                "frames/s",
                "bound",
                "trials"
            ]
        );
        let head: Vec<String> = doc
            .select(&sel("section#latency > table th"))
            .map(text)
            .collect();
        assert_eq!(
            head[3..10],
            ["counted", "min ns", "mean ns", "p50 ns", "p99 ns", "p99.9 ns", "max ns"]
        );
        let first: Vec<String> = doc
            .select(&sel("section#throughput > table tbody tr td"))
            .take(7)
            .map(text)
            .collect();
        assert_eq!(
            first,
            [
                "64",
                "53.71",
                "5.37 Gbit/s",
                "4.09 Gbit/s",
                "7,992,699",
                "device",
                "12"
            ]
        );
        let verdict = text(doc.select(&sel("#verdict")).next().unwrap());
        assert_eq!(verdict, "FAIL: 1 of 4 acceptance criteria not met (exit 5)");
        assert_eq!(doc.select(&sel("#incomplete")).count(), 0);
        let loss_head: Vec<String> = doc
            .select(&sel("section#loss > table thead tr:nth-child(2) th"))
            .map(text)
            .collect();
        assert_eq!(loss_head[1..4], ["100.00", "90.00", "80.00"]);
    }

    #[test]
    fn incomplete_is_said_on_the_first_screen() {
        let c = sample::incomplete();
        let html = render(&c);
        let doc = parse(&html);
        let title = text(doc.select(&sel("title")).next().unwrap());
        assert!(title.ends_with("(incomplete)"), "{title}");
        let banner = html.find("id=\"incomplete\"").unwrap();
        assert!(banner < html.find("<h2").unwrap());
        let b = text(doc.select(&sel("#incomplete")).next().unwrap());
        assert!(
            b.contains("INCOMPLETE")
                && b.contains("interrupted by SIGINT during frame loss, 512 B"),
            "{b}"
        );
        let not_run = text(
            doc.select(&sel("section#back_to_back p.banner.no-chart"))
                .next()
                .unwrap(),
        );
        assert_eq!(
            not_run,
            "No back-to-back frames measured: port 0 → port 1 64, 128, 256, 512, 1024, 1280, \
             1518 B and port 1 → port 0 64, 128, 256, 512, 1024, 1280, 1518 B: not run: the \
             certification stopped before it: interrupted by SIGINT during frame loss, 512 B."
        );
        let missing: Vec<String> = doc
            .select(&sel("section#loss td.missing"))
            .map(text)
            .collect();
        assert_eq!(missing.len(), 4, "loss one way lacks 512..1518 B");
        assert!(missing.iter().all(|m| m
            == "not measured: not run: the certification stopped before it: interrupted by \
                SIGINT during frame loss, 512 B"));
        // The list: the 4 loss sizes of one way, the 7 of the other, the 14 back-to-back.
        let listed = doc.select(&sel("table.not-measured tbody tr")).count();
        assert_eq!(listed, 4 + 7 + 14);
        assert_eq!(listed, c.not_measured.len());
        let banner: Vec<String> = doc
            .select(&sel("div.banner.unmeasured"))
            .map(text)
            .collect();
        assert_eq!(
            banner,
            ["25 test result(s) not measured: see what was not measured and why."]
        );
    }

    /// A size latency did not measure says why in its row, in the list
    /// and on the first screen; a test with no result says why where its
    /// chart would be.
    #[test]
    fn what_was_not_measured_is_listed_with_its_reason() {
        let c = sample::no_rate_at_64();
        let reason = "no throughput rate: none of the 12 throughput trial(s) at this size passed";
        let doc = parse(&render(&c));
        let row: Vec<String> = doc
            .select(&sel("table.not-measured tbody tr td"))
            .map(text)
            .collect();
        assert_eq!(row, ["latency", sample::DIRS[0], "64", reason]);
        let link = doc.select(&sel("table.not-measured a")).next().unwrap();
        assert_eq!(link.value().attr("href"), Some("#latency"));
        let missing: Vec<String> = doc
            .select(&sel("section#latency td.missing"))
            .map(text)
            .collect();
        assert_eq!(missing, [format!("not measured: {reason}")]);
        assert_eq!(
            doc.select(&sel("div.banner.unmeasured"))
                .map(text)
                .collect::<Vec<_>>(),
            ["1 test result(s) not measured: see what was not measured and why."]
        );
        assert_eq!(doc.select(&sel("section#latency svg.chart")).count(), 1);
        csv_figures_in_html(c.clone());
        // No latency at all: 3 charts, and the sentence in the fourth's place.
        let mut none = c;
        none.latency.clear();
        none.not_measured = crate::certify::search::not_measured(&none);
        none.not_measured.retain(|n| n.direction != "aggregate");
        none.criteria.clear();
        let doc = parse(&render(&none));
        assert_eq!(doc.select(&sel("svg.chart")).count(), 3);
        assert_eq!(doc.select(&sel("section#latency svg")).count(), 0);
        let said: Vec<String> = doc
            .select(&sel("section#latency p.no-chart"))
            .map(text)
            .collect();
        assert_eq!(
            said,
            [format::nothing_measured(&none, Test::Latency).unwrap()]
        );
        assert!(said[0].starts_with(
            "No latency measured: port 0 → port 1 64 B: no throughput rate: none of the 12"
        ));
        assert_eq!(doc.select(&sel("table.not-measured tbody tr")).count(), 14);
        let plain = parse(&render(&sample::complete()));
        assert_eq!(
            plain
                .select(&sel(
                    "table.not-measured, div.banner.unmeasured, p.no-chart"
                ))
                .count(),
            0
        );
        let said = text(plain.select(&sel("h2#not-measured + p")).next().unwrap());
        assert_eq!(
            said,
            "Every test planned was measured at every size and direction."
        );
    }

    #[test]
    fn tester_bound_results_are_never_shown_as_the_device_s() {
        let doc = parse(&render(&sample::tester_bound()));
        let rows: Vec<ElementRef> = doc
            .select(&sel("section#throughput > table tr.tb"))
            .collect();
        assert_eq!(rows.len(), 1);
        let cells: Vec<String> = rows[0].select(&sel("td")).map(text).collect();
        assert_eq!(
            (cells[0].as_str(), cells[1].as_str(), cells[5].as_str()),
            ("64", "41.11", "tester")
        );
        let doubts: Vec<String> = doc.select(&sel("h2#doubts ~ ul li")).map(text).collect();
        assert!(
            doubts
                .iter()
                .any(|d| d.starts_with("TX lcore 2 was descheduled for 7.5 % of its run")),
            "{doubts:?}"
        );
        assert!(
            doubts.contains(
                &"Throughput, port 0 → port 1, 64 B: 41.11 % of line, bound by the tester; \
                  6 of 12 trials tester-bound, at 100.00, 50.00, 43.75, 42.19, 41.41, 41.21 % of line"
                    .to_string()
            ),
            "{doubts:?}"
        );
        let legend = text(doc.select(&sel("svg#chart-throughput")).next().unwrap());
        assert!(legend.contains("tester-bound: the tester's limit, not the device's"));
        let complete = parse(&render(&sample::complete()));
        assert_eq!(complete.select(&sel("tr.tb, td.tb")).count(), 0);
    }

    /// "What limits the figures" lists the problems when there are only
    /// problems, the tester-bound results when there are only those, and
    /// says that nothing was seen only when there is neither.
    #[test]
    fn doubts_list_problems_and_tester_bound_results_each_alone() {
        // The section's HTML, from its heading to the next one.
        let doubts = |c: &Certification| {
            let html = render(c);
            parse(&html);
            let start = html.find("<h2 id=\"doubts\">").expect("the section");
            let end = html[start + 1..]
                .find("<h2")
                .map_or(html.len(), |e| start + 1 + e);
            let part = &html[start..end];
            let frag = Html::parse_fragment(part);
            let items: Vec<String> = frag.select(&sel("li")).map(text).collect();
            (part.contains("No problem was seen"), items)
        };
        let (none, items) = doubts(&sample::complete());
        assert!(none && items.is_empty(), "{items:?}");

        let mut problems_only = sample::complete();
        problems_only
            .problems
            .push(crate::outcome::Problem::Descheduled {
                role: "RX".into(),
                lcore: 3,
                descheduled_pct: 9.0,
                wait_ns: 90_000_000,
                stolen_ns: 0,
                wall_ns: 1_000_000_000,
            });
        let (none, items) = doubts(&problems_only);
        assert!(!none, "a problem is not 'no problem'");
        assert_eq!(items.len(), 1, "{items:?}");
        assert!(items[0].starts_with("RX lcore 3 was descheduled for 9.0 % of its run"));

        let mut bound_only = sample::tester_bound();
        bound_only.problems.clear();
        let (none, items) = doubts(&bound_only);
        assert!(!none, "a tester-bound result is not 'nothing bounded'");
        assert_eq!(
            items,
            [
                "Throughput, port 0 → port 1, 64 B: 41.11 % of line, bound by the tester; \
              6 of 12 trials tester-bound, at 100.00, 50.00, 43.75, 42.19, 41.41, 41.21 % of line"
            ]
        );
    }

    /// The tester-bound figures of one test, direction and size make one
    /// line, their offered loads (distinct, in the order they ran) or
    /// bursts listed in it; the banner counts the lines.
    #[test]
    fn tester_bound_figures_are_grouped_per_test_direction_and_size() {
        let mut c = sample::tester_bound();
        // Latency, one way, 64 B: two of its three trials, at one rate,
        // the second left out on its last try.
        for (i, then) in [(0, "tried again"), (2, "no tries left")] {
            let t = &mut c.latency[0].trials[i];
            t.tester_bound = true;
            t.excluded = Some(format!(
                "tester-bound: its sender sent short; left out, {then}"
            ));
        }
        // The loss curve, one way, 64 B: its three highest points.
        for p in &mut c.loss[0].points[..3] {
            p.trial.tester_bound = true;
        }
        // Back-to-back, the way back, 1518 B: the first two bursts, and
        // its figure the tester's.
        for t in &mut c.back_to_back[13].trials[..2] {
            t.tester_bound = true;
        }
        c.back_to_back[13].bound = crate::certify::model::Bound::Tester;
        // Back-to-back, one way, 64 B: a burst the tester bounded, tried
        // again: the figure is the device's, so no line of its own.
        c.back_to_back[0].trials[0].tester_bound = true;
        let doc = parse(&render(&c));
        let lines: Vec<String> = doc.select(&sel("ul.tester-bound li")).map(text).collect();
        assert_eq!(
            lines,
            [
                "Throughput, port 0 → port 1, 64 B: 41.11 % of line, bound by the tester; \
                 6 of 12 trials tester-bound, at 100.00, 50.00, 43.75, 42.19, 41.41, 41.21 % of line",
                "Latency, port 0 → port 1, 64 B: 2 of 3 trials tester-bound, at 53.71 % of line",
                "Frame loss rate, port 0 → port 1, 64 B: 3 of 7 trials tester-bound, \
                 at 100.00, 90.00, 80.00 % of line",
                "Back-to-back frames, port 1 → port 0, 1518 B: 2 of 12 trials tester-bound, \
                 bursts of 1,625,488; 812,744 frames",
            ]
        );
        let links: Vec<&str> = doc
            .select(&sel("ul.tester-bound li a"))
            .map(|a| a.value().attr("href").unwrap())
            .collect();
        assert_eq!(links, ["#throughput", "#latency", "#loss", "#back_to_back"]);
        let banner: Vec<String> = doc.select(&sel("div.banner.doubt")).map(text).collect();
        assert_eq!(
            banner,
            ["1 problem(s) and 4 tester-bound result(s): see what limits the figures."]
        );
        // A tester-bound row none of whose trials the records mark names
        // only what it can.
        let results = format::results(&c);
        let lines = tester_bound_lines(&results[..1], &[]);
        assert_eq!(
            lines,
            [(
                Test::Throughput,
                ", port 0 → port 1, 64 B: 41.11 % of line, bound by the tester".to_string()
            )]
        );
        let none = tester_bound_lines(&format::results(&sample::complete()), &[]);
        assert!(none.is_empty(), "{none:?}");
    }

    #[test]
    fn hostile_names_stay_text() {
        let mut c = sample::incomplete();
        let evil = "<script>alert('x')</script> & \"quoted\"\n<b>bold</b> ]]> <!--";
        c.profile = evil.to_string();
        c.stopped_by = Some(evil.to_string());
        c.ports = vec![evil.to_string()];
        c.directions[0] = format!("a<b&\"c'\n{evil}");
        let d0 = c.directions[0].clone();
        for r in &mut c.throughput {
            if r.direction == sample::DIRS[0] {
                r.direction = d0.clone();
            }
        }
        c.criteria[0].wanted = evil.to_string();
        let html = render(&c);
        let doc = parse(&html);
        assert_eq!(doc.select(&sel("script, b")).count(), 0);
        let title = text(doc.select(&sel("title")).next().unwrap());
        assert_eq!(
            title,
            format!("RFC 2544 certification: {evil} (incomplete)")
        );
        let h3: Vec<String> = doc
            .select(&sel("section#throughput h3"))
            .map(text)
            .collect();
        assert!(h3.contains(&d0), "{h3:?}");
        let svg = text(doc.select(&sel("svg#chart-throughput")).next().unwrap());
        assert!(svg.contains(&d0));
        let cells: Vec<String> = doc.select(&sel("table.criteria td")).map(text).collect();
        assert!(cells.contains(&evil.to_string()));
    }
}

/// Writes the report of the hand-built sample to the file that
/// `LANDSPEED_SAMPLE_REPORT` names (for `scripts/report-check` and for
/// looking at the layout), labelled as a rendering sample, not a
/// measurement. Does nothing without the variable.
#[cfg(test)]
#[test]
fn writes_the_sample_report_when_asked() {
    let Some(path) = std::env::var_os("LANDSPEED_SAMPLE_REPORT") else {
        return;
    };
    let variant = std::env::var("LANDSPEED_SAMPLE_VARIANT").unwrap_or_default();
    let c = match variant.as_str() {
        "incomplete" => crate::certify::sample::incomplete(),
        "complete" => crate::certify::sample::complete(),
        "tester_bound" => crate::certify::sample::tester_bound(),
        _ => crate::certify::sample::showcase(),
    };
    let mut c = crate::certify::sample::recovery_and_reset(c);
    c.profile = "RENDERING SAMPLE, not a measurement: hand-built figures".into();
    std::fs::write(path, render(&c)).unwrap();
}
