//! The report's charts, drawn as inline SVG by the report itself (no
//! script, no font, no reference outside the element): one per test.
//!
//! - throughput: L2 Gbit/s per frame size, against the line rate's L2
//!   ceiling for that size;
//! - latency: per frame size a box from p50 to p99, a whisker from min to
//!   max, a dash at p99.9 and a dot at the mean (log scale when the figures
//!   span more than a factor of 20);
//! - loss: frame loss % against offered load, one line per size, the loss
//!   axis always 0–100 % (RFC 2544 section 26.3 asks for the whole
//!   scale, so a small loss looks small);
//! - back-to-back: the mean longest loss-free burst per frame size (log
//!   scale when the bursts span more than a factor of 20).
//!
//! - latency histograms ([`histogram`]): per frame size, the share of
//!   frames in each quarter-octave bucket against the latency on a
//!   logarithmic axis, a line per direction.
//! - port-to-port heat maps ([`pair_matrices`]): per frame size, the
//!   frame loss of each (sending port, receiving port) pair in the trial
//!   of the highest offered load where every port sent at once.
//!
//! Directions are told apart by colour (by dash in the loss chart, where
//! colour tells the sizes apart); a figure the tester bounded is drawn
//! hollow and says so in the legend.

use std::fmt::Write as _;

use super::format::{self, escape};
use super::model::Test;
use super::model::{Bound, Certification, DirectionFigures, LatencyRow, Size, Trial};

/// Colours of the directions (and of the sizes in the loss chart).
const PALETTE: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];
/// Dashes of the directions in the loss chart.
const DASHES: [&str; 4] = ["", "7 4", "2 3", "9 3 2 3"];
/// Chart width, px (the viewBox: the chart scales down to the page).
const WIDTH: f64 = 760.0;
/// Plot area: left, top, right edges and height, px.
const LEFT: f64 = 72.0;
const TOP: f64 = 34.0;
const RIGHT: f64 = 740.0;
const PLOT_H: f64 = 280.0;
/// Above this ratio of largest to smallest figure, an axis is logarithmic.
const LOG_RATIO: f64 = 20.0;
/// The grey of axes, grid and the line-rate ceiling.
const GREY: &str = "#888888";

/// The chart of `test`, or `None` when the certification holds no result
/// of it or the test has no chart (recovery and reset: a few times
/// each, their table says it all).
pub fn chart(test: Test, c: &Certification) -> Option<String> {
    if !test.has_results(c) {
        return None;
    }
    match test {
        Test::Throughput => Some(throughput(c)),
        Test::Latency => Some(latency(c)),
        Test::Loss => Some(loss(c)),
        Test::BackToBack => Some(back_to_back(c)),
        Test::AddressCaching | Test::LearningRate => Some(address_trace(c, test)),
        Test::Recovery | Test::Reset => None,
    }
}

/// An axis's scale: maps a figure to a fraction of the axis (0 at its
/// start), clamped to the axis.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    Linear(f64, f64),
    Log(f64, f64),
}

impl Scale {
    fn frac(self, v: f64) -> f64 {
        let f = match self {
            Scale::Linear(lo, hi) => (v - lo) / (hi - lo),
            Scale::Log(lo, hi) => (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10()),
        };
        if f.is_finite() {
            f.clamp(0.0, 1.0)
        } else {
            0.0
        }
    }
}

/// An axis: its scale, its ticks (figure and label) and its title.
struct Axis {
    scale: Scale,
    ticks: Vec<(f64, String)>,
    title: String,
}

/// Round ticks covering `lo..=hi`: steps of 1, 2 or 5 times a power of
/// ten, about `target` of them, the first at or below `lo` and the last
/// at or above `hi`. Returns the ticks and the step.
pub(crate) fn nice_ticks(lo: f64, hi: f64, target: usize) -> (Vec<f64>, f64) {
    let (lo, hi) = if hi > lo { (lo, hi) } else { (lo, lo + 1.0) };
    let raw = (hi - lo) / target.max(2) as f64;
    let power = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| *s >= raw * 0.999)
        .unwrap_or(10.0 * power);
    let first = (lo / step + 1e-9).floor() as i64;
    let last = (hi / step - 1e-9).ceil() as i64;
    let ticks = (first..=last).map(|i| i as f64 * step).collect();
    (ticks, step)
}

/// Decimals a tick label needs at `step`.
fn step_decimals(step: f64) -> usize {
    (-step.log10().floor()).max(0.0) as usize
}

/// A linear axis from 0 (or `lo`) to `hi`, labels by `label`.
fn linear_axis(lo: f64, hi: f64, title: &str, label: impl Fn(f64, usize) -> String) -> Axis {
    let (ticks, step) = nice_ticks(lo, hi, 6);
    let decimals = step_decimals(step);
    let lo = ticks.first().copied().unwrap_or(lo);
    let hi = ticks.last().copied().unwrap_or(hi);
    Axis {
        scale: Scale::Linear(lo, hi),
        ticks: ticks.iter().map(|t| (*t, label(*t, decimals))).collect(),
        title: title.to_string(),
    }
}

/// A logarithmic axis over whole decades covering `lo..=hi` (both > 0),
/// with 2 and 5 between decades when it spans no more than two.
fn log_axis(lo: f64, hi: f64, title: &str, label: impl Fn(f64) -> String) -> Axis {
    let first = lo.log10().floor() as i32;
    let last = (hi.log10().ceil() as i32).max(first + 1);
    let mults: &[f64] = if last - first <= 2 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut ticks = Vec::new();
    for k in first..=last {
        for m in mults {
            let v = m * 10f64.powi(k);
            if v <= 10f64.powi(last) * 1.000_001 {
                ticks.push((v, label(v)));
            }
        }
    }
    Axis {
        scale: Scale::Log(10f64.powi(first), 10f64.powi(last)),
        ticks,
        title: title.to_string(),
    }
}

/// A positive range spanning more than [`LOG_RATIO`] wants a log axis.
fn wants_log(values: &[f64]) -> Option<(f64, f64)> {
    let pos: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(0.0, f64::max);
    (lo.is_finite() && hi / lo > LOG_RATIO).then_some((lo, hi))
}

/// A time in ns for an axis: `500 ns`, `12.5 µs`, `2 ms`.
fn time_label(ns: f64) -> String {
    let (scale, unit) = match ns.abs() {
        x if x >= 1e9 => (1e9, "s"),
        x if x >= 1e6 => (1e6, "ms"),
        x if x >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    };
    if ns == 0.0 {
        return "0".to_string();
    }
    format!("{} {unit}", format::trimmed(ns / scale))
}

/// A count for an axis: `500`, `20k`, `1.5M`.
fn count_label(n: f64) -> String {
    match n.abs() {
        x if x >= 1e9 => format!("{}G", format::trimmed(n / 1e9)),
        x if x >= 1e6 => format!("{}M", format::trimmed(n / 1e6)),
        x if x >= 1e3 => format!("{}k", format::trimmed(n / 1e3)),
        _ => format::trimmed(n),
    }
}

/// What a legend entry shows before its label.
enum Swatch {
    /// A line in a colour and dash.
    Line(&'static str, &'static str),
    /// A dot, filled or hollow.
    Dot(&'static str, bool),
    /// A filled square.
    Square(&'static str),
    /// A bar drawn dashed and pale (a lower bound).
    PaleBar(&'static str),
}

/// The SVG being drawn: its elements, and its height once the legend is
/// placed.
struct Canvas {
    body: String,
    height: f64,
    /// Every text's size is multiplied by this (a chart shown smaller
    /// than its width keeps its text legible).
    font: f64,
}

impl Canvas {
    fn new() -> Self {
        Self {
            body: String::new(),
            height: TOP + PLOT_H,
            font: 1.0,
        }
    }

    fn line(&mut self, a: (f64, f64), b: (f64, f64), stroke: &str, width: f64, dash: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{stroke}" stroke-width="{width}"{}/>"#,
            a.0,
            a.1,
            b.0,
            b.1,
            dash_attr(dash)
        );
    }

    fn polyline(&mut self, points: &[(f64, f64)], stroke: &str, dash: &str) {
        if points.len() < 2 {
            return;
        }
        let pts: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = write!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="2"{}/>"#,
            pts.join(" "),
            dash_attr(dash)
        );
    }

    fn dot(&mut self, at: (f64, f64), r: f64, colour: &str, hollow: bool) {
        let fill = if hollow { "#ffffff" } else { colour };
        let _ = write!(
            self.body,
            r#"<circle cx="{:.1}" cy="{:.1}" r="{r}" fill="{fill}" stroke="{colour}" stroke-width="2"/>"#,
            at.0, at.1
        );
    }

    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, colour: &str, pale: bool) {
        let (opacity, dash) = if pale { (0.3, "4 2") } else { (0.85, "") };
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{colour}" fill-opacity="{opacity}" stroke="{colour}" stroke-width="1.5"{}/>"#,
            w.max(0.0),
            h.max(0.0),
            dash_attr(dash)
        );
    }

    /// Text at `at`, anchored `start`, `middle` or `end`.
    fn text(&mut self, at: (f64, f64), anchor: &str, size: u32, text: &str) {
        let size = (f64::from(size) * self.font).round();
        let _ = write!(
            self.body,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            at.0,
            at.1,
            escape(text)
        );
    }

    /// The chart's title, its y axis (grid, ticks, labels and title) and
    /// the frame of the plot area.
    fn frame(&mut self, title: &str, y: &Axis) {
        self.text((WIDTH / 2.0, 20.0), "middle", 15, title);
        for (v, label) in &y.ticks {
            let py = y_of(y, *v);
            self.line((LEFT, py), (RIGHT, py), "#e3e3e3", 1.0, "");
            self.text((LEFT - 6.0, py + 4.0), "end", 11, label);
        }
        let mid = TOP + PLOT_H / 2.0;
        let x = (10.0 * self.font + 4.0).round();
        let _ = write!(
            self.body,
            r#"<text x="{x}" y="{mid:.1}" text-anchor="middle" font-size="{}" transform="rotate(-90 {x} {mid:.1})">{}</text>"#,
            (12.0 * self.font).round(),
            escape(&y.title)
        );
        let bottom = TOP + PLOT_H;
        self.line((LEFT, TOP), (LEFT, bottom), GREY, 1.0, "");
        self.line((LEFT, bottom), (RIGHT, bottom), GREY, 1.0, "");
    }

    /// A category x axis: one label per category, and the axis title.
    fn categories(&mut self, labels: &[String], title: &str) {
        let bottom = TOP + PLOT_H;
        for (i, label) in labels.iter().enumerate() {
            let x = cat_x(i, labels.len());
            self.line((x, bottom), (x, bottom + 4.0), GREY, 1.0, "");
            self.text((x, bottom + 17.0), "middle", 11, label);
        }
        self.text(((LEFT + RIGHT) / 2.0, bottom + 36.0), "middle", 12, title);
    }

    /// A value x axis with its ticks (and vertical grid) and title.
    fn x_axis(&mut self, x: &Axis) {
        let bottom = TOP + PLOT_H;
        for (v, label) in &x.ticks {
            let px = x_of(x, *v);
            self.line((px, TOP), (px, bottom), "#eeeeee", 1.0, "");
            self.line((px, bottom), (px, bottom + 4.0), GREY, 1.0, "");
            // Kept inside the chart: an edge tick's label is moved in.
            let half = 3.4 * self.font * label.chars().count() as f64 + 2.0;
            let at = px.clamp(half, WIDTH - half);
            self.text((at, bottom + 6.0 + 11.0 * self.font), "middle", 11, label);
        }
        self.text(
            ((LEFT + RIGHT) / 2.0, bottom + 20.0 + 16.0 * self.font),
            "middle",
            12,
            &x.title,
        );
    }

    /// The legend, in rows under the x axis title.
    fn legend(&mut self, items: &[(Swatch, String)]) {
        self.legend_at(TOP + PLOT_H + 40.0 + 18.0 * self.font, items);
    }

    /// The legend, its first line at `y`.
    fn legend_at(&mut self, y: f64, items: &[(Swatch, String)]) {
        let mut x = LEFT;
        let mut y = y;
        for (swatch, label) in items {
            let w = 30.0 + 6.6 * self.font * label.chars().count() as f64 + 18.0;
            if x + w > RIGHT + 10.0 && x > LEFT {
                x = LEFT;
                y += 18.0 * self.font;
            }
            self.swatch(swatch, (x, y - 4.0));
            self.text((x + 28.0, y), "start", 11, label);
            x += w;
        }
        self.height = y + 12.0;
    }

    fn swatch(&mut self, swatch: &Swatch, at: (f64, f64)) {
        let (x, y) = at;
        match swatch {
            Swatch::Line(colour, dash) => self.line((x, y), (x + 22.0, y), colour, 2.0, dash),
            Swatch::Dot(colour, hollow) => self.dot((x + 11.0, y), 4.0, colour, *hollow),
            Swatch::Square(colour) => self.rect(x + 5.0, y - 6.0, 12.0, 12.0, colour, false),
            Swatch::PaleBar(colour) => self.rect(x + 5.0, y - 6.0, 12.0, 12.0, colour, true),
        }
    }

    /// The whole `<svg>` element of `test`'s chart, labelled by `title`.
    fn finish(self, test: Test, title: &str) -> String {
        self.finish_as("chart", &format!("chart-{}", test.key()), title)
    }

    /// The whole `<svg>` element, of class `class` and id `id`, labelled
    /// by `title`.
    fn finish_as(self, class: &str, id: &str, title: &str) -> String {
        let h = self.height.ceil();
        format!(
            concat!(
                r#"<svg class="{class}" id="{id}" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-labelledby="{id}-title" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">"#,
                r#"<title id="{id}-title">{title}</title>"#,
                r##"<rect x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>"##,
                "{body}</svg>"
            ),
            class = class,
            id = escape(id),
            w = WIDTH,
            h = h,
            title = escape(title),
            body = self.body
        )
    }
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(r#" stroke-dasharray="{dash}""#)
    }
}

/// The pixel y of figure `v` on axis `y`.
fn y_of(y: &Axis, v: f64) -> f64 {
    TOP + PLOT_H * (1.0 - y.scale.frac(v))
}

/// The pixel x of figure `v` on axis `x`.
fn x_of(x: &Axis, v: f64) -> f64 {
    LEFT + (RIGHT - LEFT) * x.scale.frac(v)
}

/// The pixel x of the centre of category `i` of `n`.
fn cat_x(i: usize, n: usize) -> f64 {
    LEFT + (RIGHT - LEFT) * (i as f64 + 0.5) / n.max(1) as f64
}

/// Width of one category, px.
fn cat_w(n: usize) -> f64 {
    (RIGHT - LEFT) / n.max(1) as f64
}

/// The frame sizes to draw: the settings' sizes, then any other size a
/// result holds, in order.
fn sizes(c: &Certification, found: impl Iterator<Item = u32>) -> Vec<u32> {
    let mut out = c.settings.sizes.clone();
    for s in found {
        if !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

fn size_labels(sizes: &[u32]) -> Vec<String> {
    sizes.iter().map(|&s| Size(s).to_string()).collect()
}

/// The colour of direction `d`.
fn colour(d: usize) -> &'static str {
    PALETTE[d % PALETTE.len()]
}

/// The index of `label` among the certification's directions (a label
/// not listed, e.g. `aggregate`, comes after them).
fn direction_index(c: &Certification, label: &str) -> usize {
    c.directions
        .iter()
        .position(|d| d == label)
        .unwrap_or(c.directions.len())
}

/// The directions the rows of a test name, in the certification's order.
fn directions_of<'a>(c: &Certification, labels: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in labels {
        if !out.contains(l) {
            out.push(l.clone());
        }
    }
    out.sort_by_key(|l| direction_index(c, l));
    out
}

/// The horizontal offset of direction `j` of `n` within a category.
fn offset(j: usize, n: usize, spacing: f64) -> f64 {
    (j as f64 - (n as f64 - 1.0) / 2.0) * spacing
}

/// Throughput: L2 Gbit/s per size and direction, against the L2 ceiling.
fn throughput(c: &Certification) -> String {
    let sizes = sizes(c, c.throughput.iter().map(|r| r.frame_size));
    let dirs = directions_of(c, c.throughput.iter().map(|r| &r.direction));
    let ceilings: Vec<f64> = sizes
        .iter()
        .map(|s| format::line_l2_bps(c.line_bps, *s) / 1e9)
        .collect();
    let top = c
        .throughput
        .iter()
        .map(|r| r.l2_bps / 1e9)
        .chain(ceilings.iter().copied());
    let hi = top.fold(0.0, f64::max);
    let y = linear_axis(0.0, hi, "throughput, L2 Gbit/s", format::fixed);
    let mut cv = Canvas::new();
    cv.frame("Throughput per frame size (L2), against line rate", &y);
    let half = cat_w(sizes.len()) * 0.42;
    for (i, ceiling) in ceilings.iter().enumerate() {
        let (x, py) = (cat_x(i, sizes.len()), y_of(&y, *ceiling));
        cv.line((x - half, py), (x + half, py), GREY, 2.0, "5 3");
    }
    let mut hollow_seen = false;
    for (j, dir) in dirs.iter().enumerate() {
        let rows = c.throughput.iter().filter(|r| &r.direction == dir);
        let mut points = Vec::new();
        let mut marks = Vec::new();
        for r in rows {
            let Some(i) = sizes.iter().position(|s| *s == r.frame_size) else {
                continue;
            };
            let at = (
                cat_x(i, sizes.len()) + offset(j, dirs.len(), 9.0),
                y_of(&y, r.l2_bps / 1e9),
            );
            points.push(at);
            marks.push((at, r.bound == Bound::Tester));
        }
        cv.polyline(&points, colour(j), "");
        for (at, hollow) in marks {
            hollow_seen |= hollow;
            cv.dot(at, 4.5, colour(j), hollow);
        }
    }
    cv.categories(&size_labels(&sizes), "frame size, bytes");
    let mut items: Vec<(Swatch, String)> = Vec::new();
    items.push((Swatch::Line(GREY, "5 3"), "line rate at L2".to_string()));
    for (j, dir) in dirs.iter().enumerate() {
        items.push((Swatch::Dot(colour(j), false), dir.clone()));
    }
    if hollow_seen {
        items.push((
            Swatch::Dot(GREY, true),
            "tester-bound: the tester's limit, not the device's".into(),
        ));
    }
    cv.legend(&items);
    cv.finish(Test::Throughput, "Throughput per frame size")
}

/// Latency: per size and direction a box p50–p99, whisker min–max, dash
/// at p99.9, dot at the mean.
fn latency(c: &Certification) -> String {
    let sizes = sizes(c, c.latency.iter().map(|r| r.frame_size));
    let dirs = directions_of(c, c.latency.iter().map(|r| &r.direction));
    let figures: Vec<f64> = c
        .latency
        .iter()
        .flat_map(|r| [r.summary.min_ns, r.summary.max_ns])
        .collect();
    let title = "one-way latency";
    let y = match wants_log(&figures) {
        Some((lo, hi)) => log_axis(lo, hi, &format!("{title} (log scale)"), time_label),
        None => {
            let hi = figures.iter().copied().fold(0.0, f64::max);
            linear_axis(0.0, hi, title, |v, _| time_label(v))
        }
    };
    let mut cv = Canvas::new();
    cv.frame("Latency per frame size, at each size's throughput rate", &y);
    let mut hollow_seen = false;
    for (j, dir) in dirs.iter().enumerate() {
        for r in c.latency.iter().filter(|r| &r.direction == dir) {
            let Some(i) = sizes.iter().position(|s| *s == r.frame_size) else {
                continue;
            };
            let x = cat_x(i, sizes.len()) + offset(j, dirs.len(), 22.0);
            let s = &r.summary;
            let tester = r.tester_bound();
            hollow_seen |= tester;
            cv.line(
                (x, y_of(&y, s.min_ns)),
                (x, y_of(&y, s.max_ns)),
                colour(j),
                1.5,
                "",
            );
            let (top, bottom) = (y_of(&y, s.p99_ns), y_of(&y, s.p50_ns));
            cv.rect(
                x - 6.0,
                top,
                12.0,
                (bottom - top).max(1.5),
                colour(j),
                tester,
            );
            let p999 = y_of(&y, s.p999_ns);
            cv.line((x - 7.0, p999), (x + 7.0, p999), colour(j), 2.0, "");
            cv.dot((x, y_of(&y, s.mean_ns)), 2.5, "#000000", false);
        }
    }
    cv.categories(&size_labels(&sizes), "frame size, bytes");
    let mut items: Vec<(Swatch, String)> = Vec::new();
    for (j, dir) in dirs.iter().enumerate() {
        items.push((Swatch::Square(colour(j)), dir.clone()));
    }
    items.push((
        Swatch::Line(GREY, ""),
        "box p50–p99, whisker min–max, dash p99.9".into(),
    ));
    items.push((Swatch::Dot("#000000", false), "mean".into()));
    if hollow_seen {
        items.push((
            Swatch::PaleBar(GREY),
            "pale: short of trials, the tester's on every try".into(),
        ));
    }
    cv.legend(&items);
    cv.finish(Test::Latency, "Latency per frame size")
}

/// Loss: loss % against offered load, a line per size (colour) and
/// direction (dash).
fn loss(c: &Certification) -> String {
    let sizes = sizes(c, c.loss.iter().map(|r| r.frame_size));
    let dirs = directions_of(c, c.loss.iter().map(|r| &r.direction));
    let points = || c.loss.iter().flat_map(|r| r.points.iter());
    let lowest = points().map(|p| p.rate_pct).fold(100.0, f64::min);
    let highest = points()
        .map(|p| p.rate_pct)
        .fold(0.0, f64::max)
        .max(lowest + 1.0);
    let x = linear_axis(
        lowest.min(0.0),
        highest,
        "offered load, % of line (L1)",
        format::fixed,
    );
    let y = linear_axis(0.0, 100.0, "frame loss, % of frames sent", |v, d| {
        format::fixed(v, d)
    });
    let mut cv = Canvas::new();
    cv.frame("Frame loss rate against offered load", &y);
    cv.x_axis(&x);
    let mut hollow_seen = false;
    for curve in &c.loss {
        let i = sizes
            .iter()
            .position(|s| *s == curve.frame_size)
            .unwrap_or(0);
        let j = dirs.iter().position(|d| *d == curve.direction).unwrap_or(0);
        let at = |p: &super::model::LossPoint| (x_of(&x, p.rate_pct), y_of(&y, p.loss_pct));
        let line: Vec<(f64, f64)> = curve.points.iter().map(at).collect();
        cv.polyline(&line, colour(i), DASHES[j % DASHES.len()]);
        for p in &curve.points {
            hollow_seen |= p.trial.tester_bound;
            cv.dot(at(p), 3.0, colour(i), p.trial.tester_bound);
        }
    }
    let mut items: Vec<(Swatch, String)> = Vec::new();
    for (i, s) in sizes.iter().enumerate() {
        items.push((Swatch::Square(colour(i)), Size(*s).bytes()));
    }
    if dirs.len() > 1 {
        for (j, dir) in dirs.iter().enumerate() {
            items.push((
                Swatch::Line("#333333", DASHES[j % DASHES.len()]),
                dir.clone(),
            ));
        }
    }
    if hollow_seen {
        items.push((
            Swatch::Dot(GREY, true),
            "tester-bound point: not the device's".into(),
        ));
    }
    cv.legend(&items);
    cv.finish(Test::Loss, "Frame loss rate against offered load")
}

/// Back-to-back: the mean longest loss-free burst per size and direction.
fn back_to_back(c: &Certification) -> String {
    let sizes = sizes(c, c.back_to_back.iter().map(|r| r.frame_size));
    let dirs = directions_of(c, c.back_to_back.iter().map(|r| &r.direction));
    let figures: Vec<f64> = c.back_to_back.iter().map(|r| r.mean_frames).collect();
    let title = "mean loss-free burst, frames";
    let y = match wants_log(&figures) {
        Some((lo, hi)) => log_axis(lo, hi, &format!("{title} (log scale)"), count_label),
        None => {
            let hi = figures.iter().copied().fold(0.0, f64::max);
            linear_axis(0.0, hi, title, |v, _| count_label(v))
        }
    };
    let mut cv = Canvas::new();
    cv.frame("Back-to-back: longest burst at line rate without loss", &y);
    let bar = (cat_w(sizes.len()) * 0.7 / dirs.len().max(1) as f64).min(36.0);
    let bottom = TOP + PLOT_H;
    let mut pale_seen = false;
    for (j, dir) in dirs.iter().enumerate() {
        for r in c.back_to_back.iter().filter(|r| &r.direction == dir) {
            let Some(i) = sizes.iter().position(|s| *s == r.frame_size) else {
                continue;
            };
            let x = cat_x(i, sizes.len()) + offset(j, dirs.len(), bar);
            let top = y_of(&y, r.mean_frames);
            let pale = r.at_limit || r.bound == Bound::Tester;
            pale_seen |= pale;
            cv.rect(
                x - bar / 2.0 + 1.0,
                top,
                bar - 2.0,
                bottom - top,
                colour(j),
                pale,
            );
            if r.at_limit {
                cv.text((x, top - 4.0), "middle", 11, "≥");
            }
        }
    }
    cv.categories(&size_labels(&sizes), "frame size, bytes");
    let mut items: Vec<(Swatch, String)> = Vec::new();
    for (j, dir) in dirs.iter().enumerate() {
        items.push((Swatch::Square(colour(j)), dir.clone()));
    }
    if pale_seen {
        let text = "pale, ≥: a lower bound (no loss at the longest burst tried) or tester-bound";
        items.push((Swatch::PaleBar(GREY), text.into()));
    }
    cv.legend(&items);
    cv.finish(Test::BackToBack, "Back-to-back burst per frame size")
}

/// The search trace of an address test (RFC 2889 5.7, 5.8): each
/// trial's addresses (caching) or learning rate (learning rate) in the
/// order the search ran them, a line per row (dashed by size), each
/// trial a dot: green where the device held every address, red where
/// frames were flooded or lost, hollow grey where the failure was the
/// tester's ([`super::search::address_failure_is_testers`]).
fn address_trace(c: &Certification, test: Test) -> String {
    let rows = c.address_rows(test);
    let value = |t: &Trial| match test {
        Test::AddressCaching => t.addresses.unwrap_or(0) as f64,
        _ => (t.learning.as_ref())
            .and_then(|l| l.paced_fps)
            .unwrap_or(0.0),
    };
    let title = match test {
        Test::AddressCaching => "addresses",
        _ => "learning frames/s",
    };
    let figures: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.trials.iter().map(value))
        .collect();
    let y = match wants_log(&figures) {
        Some((lo, hi)) => log_axis(lo, hi, &format!("{title} (log scale)"), count_label),
        None => {
            let hi = figures.iter().copied().fold(1.0, f64::max);
            linear_axis(0.0, hi, title, |v, _| count_label(v))
        }
    };
    let most = rows.iter().map(|r| r.trials.len()).max().unwrap_or(1);
    let x = linear_axis(
        1.0,
        most.max(2) as f64,
        "trial, in the search's order",
        |v, _| format::trimmed(v),
    );
    let mut cv = Canvas::new();
    cv.frame(&format!("{}: the search's trials", test.title()), &y);
    cv.x_axis(&x);
    let (mut held, mut failed, mut tester) = (false, false, false);
    for (j, r) in rows.iter().enumerate() {
        let at = |(i, t): (usize, &Trial)| (x_of(&x, (i + 1) as f64), y_of(&y, value(t)));
        let points: Vec<(f64, f64)> = r.trials.iter().enumerate().map(at).collect();
        cv.polyline(&points, GREY, DASHES[j % DASHES.len()]);
        for (i, t) in r.trials.iter().enumerate() {
            let testers =
                !t.passed && super::search::address_failure_is_testers(t, t.addresses.unwrap_or(0));
            let (colour, hollow) = match (t.passed, testers) {
                (true, _) => (PALETTE[2], false),
                (false, true) => (GREY, true),
                (false, false) => (PALETTE[1], false),
            };
            held |= t.passed;
            tester |= testers;
            failed |= !t.passed && !testers;
            cv.dot(at((i, t)), 4.5, colour, hollow);
        }
    }
    let mut items: Vec<(Swatch, String)> = Vec::new();
    if rows.len() > 1 {
        for (j, r) in rows.iter().enumerate() {
            let dash = DASHES[j % DASHES.len()];
            items.push((Swatch::Line(GREY, dash), Size(r.frame_size).bytes()));
        }
    }
    if held {
        let text = "every address held: each frame reached its port, none flooded";
        items.push((Swatch::Dot(PALETTE[2], false), text.into()));
    }
    if failed {
        let text = "frames flooded to another port or lost";
        items.push((Swatch::Dot(PALETTE[1], false), text.into()));
    }
    if tester {
        items.push((
            Swatch::Dot(GREY, true),
            "tester-bound: not the device's".into(),
        ));
    }
    cv.legend(&items);
    cv.finish(test, &format!("{} search trace", test.title()))
}

/// The frame sizes whose latency rows hold a histogram, in the order of
/// the rows.
pub fn histogram_sizes(c: &Certification) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for r in c.latency.iter().filter(|r| !r.histogram.is_empty()) {
        if !out.contains(&r.frame_size) {
            out.push(r.frame_size);
        }
    }
    out
}

/// The latency histogram of frame size `size`: for each direction whose
/// latency row at that size holds one, the share of its frames in each
/// quarter-octave bucket (a step line, each bucket from its lower bound,
/// its upper bound over [`super::latency::BUCKET_RATIO`], to its upper
/// bound) against the latency on a logarithmic axis spanning every
/// row's buckets, so the sizes' charts compare. `None` when no row at
/// that size has a histogram. Its id is `histogram-SIZE`.
pub fn histogram(c: &Certification, size: u32) -> Option<String> {
    let rows: Vec<&LatencyRow> = (c.latency.iter())
        .filter(|r| r.frame_size == size && !r.histogram.is_empty())
        .collect();
    if rows.is_empty() {
        return None;
    }
    let x = histogram_axis(c);
    let top = rows
        .iter()
        .flat_map(|r| bucket_shares(r))
        .map(|(_, p)| p)
        .fold(1.0, f64::max);
    let y = linear_axis(0.0, top, "% of frames", format::fixed);
    let dirs = directions_of(c, rows.iter().map(|r| &r.direction));
    let mut cv = Canvas::new();
    cv.font = 1.5;
    cv.frame(&format!("Latency histogram, {}", Size(size).bytes()), &y);
    cv.x_axis(&x);
    for r in &rows {
        let j = dirs.iter().position(|d| *d == r.direction).unwrap_or(0);
        let points = histogram_steps(r, &x, &y);
        cv.polyline(&points, colour(j), DASHES[j % DASHES.len()]);
        for v in [r.summary.min_ns, r.summary.max_ns] {
            let px = x_of(&x, v);
            cv.line(
                (px, TOP + PLOT_H),
                (px, TOP + PLOT_H - 8.0),
                colour(j),
                2.0,
                "",
            );
        }
    }
    let mut items: Vec<(Swatch, String)> = Vec::new();
    for (j, dir) in dirs.iter().enumerate() {
        items.push((
            Swatch::Line(colour(j), DASHES[j % DASHES.len()]),
            dir.clone(),
        ));
    }
    items.push((Swatch::Line(GREY, ""), "ticks: least, largest frame".into()));
    cv.legend(&items);
    Some(cv.finish_as(
        "histogram",
        &format!("histogram-{size}"),
        &format!("Latency histogram, {}", Size(size).bytes()),
    ))
}

/// Each pair's cell in a heat map, px at most.
const CELL_MAX: f64 = 110.0;
/// The width of the heat map's row labels, px.
const PAIR_LABEL_W: f64 = 120.0;

/// The trials of `test` at `size`, in the order they ran.
fn trials_at(c: &Certification, test: Test, size: u32) -> Vec<&Trial> {
    let at = |z: u32| z == size;
    match test {
        Test::Throughput => (c.throughput.iter().filter(|r| at(r.frame_size)))
            .flat_map(|r| &r.trials)
            .collect(),
        Test::Latency => (c.latency.iter().filter(|r| at(r.frame_size)))
            .flat_map(|r| &r.trials)
            .collect(),
        Test::Loss => (c.loss.iter().filter(|r| at(r.frame_size)))
            .flat_map(|r| r.points.iter().map(|p| &p.trial))
            .collect(),
        Test::BackToBack => (c.back_to_back.iter().filter(|r| at(r.frame_size)))
            .flat_map(|r| &r.trials)
            .collect(),
        Test::Recovery | Test::Reset | Test::AddressCaching | Test::LearningRate => Vec::new(),
    }
}

/// The port-to-port heat maps of `test`: per frame size whose trials
/// carry per-pair figures (every port sending at once, two pairs or
/// more), the pairs' frame loss in the trial of the highest offered load
/// (the last such trial on a tie), senders down, receivers across. A
/// pair without loss is green, a lossy one orange to dark red as its loss
/// grows (on a log scale from 0.001 % to 100 %), a pair that sent nothing
/// grey. Each id is `pairs-TEST-SIZE`.
pub fn pair_matrices(c: &Certification, test: Test) -> Vec<String> {
    let mut out = Vec::new();
    for &size in &c.settings.sizes {
        let trials = trials_at(c, test, size);
        let best =
            (trials.iter())
                .filter(|t| t.per_direction.len() > 1)
                .fold(None::<&&Trial>, |b, t| match b {
                    Some(b) if b.offered_pct > t.offered_pct => Some(b),
                    _ => Some(t),
                });
        if let Some(t) = best {
            out.push(pair_matrix(test, size, t));
        }
    }
    out
}

/// The sending and receiving port of a pair's label (`t0 → t1`).
fn pair_ends(label: &str) -> (&str, &str) {
    label.split_once(" → ").unwrap_or((label, ""))
}

/// The fill of a pair's cell and the colour of its text.
fn pair_fill(d: &DirectionFigures) -> (String, &'static str) {
    if d.tx_frames == 0 {
        return ("#eeeeee".into(), "#555555");
    }
    if d.lost == 0 && d.corrupt == 0 {
        return ("#cdebc5".into(), "#1b4d1b");
    }
    // 0.001 % → 0, 100 % → 1: light orange (253, 208, 162) to dark red
    // (165, 15, 21).
    let f = ((d.loss_pct.max(0.001).log10() + 3.0) / 5.0).clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * f).round() as u8;
    let fill = format!(
        "#{:02x}{:02x}{:02x}",
        mix(253.0, 165.0),
        mix(208.0, 15.0),
        mix(162.0, 21.0)
    );
    (fill, if f > 0.5 { "#ffffff" } else { "#3a1a00" })
}

/// One heat map: the pairs of trial `t` of `test` at `size`.
fn pair_matrix(test: Test, size: u32, t: &Trial) -> String {
    // The senders in the pairs' order (the plan's), then the ports that
    // only receive.
    let mut ports: Vec<&str> = Vec::new();
    let ends = t.per_direction.iter().map(|d| pair_ends(&d.direction));
    for p in ends.clone().map(|e| e.0).chain(ends.map(|e| e.1)) {
        if !ports.contains(&p) {
            ports.push(p);
        }
    }
    let n = ports.len() as f64;
    let cell = ((WIDTH - PAIR_LABEL_W - 20.0) / n).min(CELL_MAX);
    let (x0, y0) = (PAIR_LABEL_W, TOP + 40.0);
    let title = format!(
        "Port-to-port frame loss, {}, each port at {} % of line{}",
        Size(size).bytes(),
        format::fixed(t.offered_pct, 3),
        if t.tester_bound {
            " (tester-bound)"
        } else {
            ""
        }
    );
    let mut cv = Canvas::new();
    cv.text((WIDTH / 2.0, 20.0), "middle", 15, &title);
    cv.text(
        (x0 + cell * n / 2.0, TOP + 12.0),
        "middle",
        12,
        "received by",
    );
    for (j, p) in ports.iter().enumerate() {
        let cx = x0 + cell * (j as f64 + 0.5);
        cv.text((cx, y0 - 8.0), "middle", 12, p);
        let cy = y0 + cell * (j as f64 + 0.5);
        cv.text((x0 - 8.0, cy + 4.0), "end", 12, &format!("from {p}"));
    }
    for (i, a) in ports.iter().enumerate() {
        for (j, b) in ports.iter().enumerate() {
            let d = (t.per_direction.iter()).find(|d| pair_ends(&d.direction) == (*a, *b));
            let at = (x0 + cell * j as f64, y0 + cell * i as f64);
            pair_cell(&mut cv, at, cell, d);
        }
    }
    let bottom = foreign_row(&mut cv, t, &ports, (x0, y0 + cell * n), cell);
    let items = [
        (Swatch::Square("#cdebc5"), "no frame lost".to_string()),
        (
            Swatch::Square("#f3a36a"),
            "frames lost (darker: more)".to_string(),
        ),
        (Swatch::Square("#eeeeee"), "nothing sent".to_string()),
    ];
    cv.legend_at(bottom + 28.0, &items);
    cv.finish_as("pairs", &format!("pairs-{}-{size}", test.key()), &title)
}

/// A tile of a heat map at `at`, `w` × `h`: its fill, a tooltip and a
/// line of text (`size` px) in `ink` at its middle, `sub` below it.
struct Tile<'a> {
    fill: &'a str,
    ink: &'a str,
    tip: String,
    text: String,
    size: u32,
    sub: Option<String>,
}

impl Canvas {
    fn tile(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), t: &Tile) {
        let _ = write!(
            self.body,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" fill="{}" stroke="#ffffff" stroke-width="2"><title>{}</title></rect>"##,
            t.fill,
            escape(&t.tip)
        );
        let (mid, ink) = (x + w / 2.0, t.ink);
        let base = y + h / 2.0 + if t.sub.is_some() { 0.0 } else { 4.0 };
        let _ = write!(
            self.body,
            r#"<text x="{mid:.1}" y="{base:.1}" text-anchor="middle" font-size="{}" fill="{ink}">{}</text>"#,
            t.size,
            escape(&t.text)
        );
        if let Some(sub) = &t.sub {
            let _ = write!(
                self.body,
                r#"<text x="{mid:.1}" y="{:.1}" text-anchor="middle" font-size="10" fill="{ink}">{}</text>"#,
                base + 15.0,
                escape(sub)
            );
        }
    }
}

/// One pair's cell of a heat map at `at` (white where there is no pair).
fn pair_cell(cv: &mut Canvas, (x, y): (f64, f64), cell: f64, d: Option<&DirectionFigures>) {
    let Some(d) = d else {
        let _ = write!(
            cv.body,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{cell:.1}" height="{cell:.1}" fill="#ffffff" stroke="#dddddd"/>"##
        );
        return;
    };
    let (fill, ink) = pair_fill(d);
    let text = if d.tx_frames == 0 {
        "no frames".to_string()
    } else if d.lost == 0 {
        "0 %".to_string()
    } else {
        format!("{} %", format::fixed(d.loss_pct, 3))
    };
    let tip = format!(
        "{}: {} sent, {} received, {} lost ({} %), {} corrupt",
        d.direction,
        d.tx_frames,
        d.rx_frames,
        d.lost,
        format::fixed(d.loss_pct, 3),
        d.corrupt
    );
    let sub = Some(format!("{} of {}", d.rx_frames, d.tx_frames));
    let tile = Tile {
        fill: &fill,
        ink,
        tip,
        text,
        size: 13,
        sub,
    };
    cv.tile((x, y), (cell, cell), &tile);
}

/// Under a heat map's grid from `(x0, top)`, each receiving port's
/// foreign frames (what a switch flooded there, or sent to a port it was
/// not addressed to) under its column; returns the row's bottom (`top`
/// when the trial has none).
fn foreign_row(
    cv: &mut Canvas,
    t: &Trial,
    ports: &[&str],
    (x0, top): (f64, f64),
    cell: f64,
) -> f64 {
    if t.foreign_at.is_empty() {
        return top;
    }
    let (y, h) = (top + 6.0, 30.0);
    cv.text((x0 - 8.0, y + h / 2.0 + 4.0), "end", 12, "foreign");
    for (j, p) in ports.iter().enumerate() {
        let Some(f) = t.foreign_at.iter().find(|f| f.port == *p) else {
            continue;
        };
        let (fill, ink) = if f.frames == 0 {
            ("#cdebc5", "#1b4d1b")
        } else {
            ("#f3a36a", "#3a1a00")
        };
        let tile = Tile {
            fill,
            ink,
            tip: format!(
                "{p}: {} frames of no stream it checks (flooded, misdelivered or not the tester's)",
                f.frames
            ),
            text: format!("{} foreign", f.frames),
            size: 11,
            sub: None,
        };
        cv.tile((x0 + cell * j as f64, y), (cell, h), &tile);
    }
    y + h
}

/// The latency axis of every histogram: logarithmic, from the lowest
/// bucket's lower bound (at least 1 ns) to the highest bucket's upper
/// bound (at least a decade above), over every row's buckets.
fn histogram_axis(c: &Certification) -> Axis {
    let ratio = super::latency::BUCKET_RATIO;
    let all = c.latency.iter().flat_map(|r| r.histogram.iter());
    let lo = all
        .clone()
        .map(|b| b.le_ns as f64 / ratio)
        .fold(f64::INFINITY, f64::min)
        .max(1.0);
    let hi = all.map(|b| b.le_ns as f64).fold(lo * 10.0, f64::max);
    log_axis(
        lo,
        hi,
        "one-way latency (log scale; buckets of a quarter octave)",
        time_label,
    )
}

/// Each bucket of `r`'s histogram: its upper bound, ns, and its share of
/// the row's frames, %.
fn bucket_shares(r: &LatencyRow) -> Vec<(f64, f64)> {
    let total: u64 = r.histogram.iter().map(|b| b.count).sum();
    (r.histogram.iter())
        .map(|b| (b.le_ns as f64, b.count as f64 * 100.0 / total.max(1) as f64))
        .collect()
}

/// The step line of `r`'s histogram on the axes `x` and `y`: each bucket
/// flat from its lower to its upper bound, down to the axis between
/// buckets that are not adjacent and at both ends.
fn histogram_steps(r: &LatencyRow, x: &Axis, y: &Axis) -> Vec<(f64, f64)> {
    let ratio = super::latency::BUCKET_RATIO;
    let mut points = Vec::new();
    let mut prev_hi: Option<f64> = None;
    for (le, pct) in bucket_shares(r) {
        let from = le / ratio;
        // Back to the axis between buckets that are not adjacent.
        if prev_hi.is_none_or(|p| (from - p).abs() > p * 1e-3) {
            if let Some(p) = prev_hi {
                points.push((x_of(x, p), y_of(y, 0.0)));
            }
            points.push((x_of(x, from), y_of(y, 0.0)));
        }
        points.push((x_of(x, from), y_of(y, pct)));
        points.push((x_of(x, le), y_of(y, pct)));
        prev_hi = Some(le);
    }
    if let Some(p) = prev_hi {
        points.push((x_of(x, p), y_of(y, 0.0)));
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(label: &str, tx: u64, lost: u64) -> DirectionFigures {
        DirectionFigures {
            direction: label.into(),
            tx_frames: tx,
            rx_frames: tx - lost,
            lost,
            loss_pct: if tx == 0 {
                0.0
            } else {
                lost as f64 * 100.0 / tx as f64
            },
            reordered: 0,
            duplicated: 0,
            corrupt: 0,
            latency: None,
        }
    }

    #[test]
    fn a_heat_map_shows_each_pair_of_the_highest_load() {
        let s = crate::certify::model::Settings {
            sizes: vec![64, 1518],
            ..Default::default()
        };
        let mut c = crate::certify::search::blank(&s, vec!["mesh".into()], 100_000_000);
        let trial = |pct: f64, pairs: Vec<DirectionFigures>| Trial {
            offered_pct: pct,
            per_direction: pairs,
            ..Trial::default()
        };
        let high = vec![
            pair("t0 → t2", 1000, 0),
            pair("t1 → t2", 1000, 10),
            pair("t2 → t0", 0, 0),
        ];
        let row = crate::certify::model::ThroughputRow {
            direction: "aggregate".into(),
            frame_size: 64,
            rate_pct: 50.0,
            l1_bps: 0.0,
            l2_bps: 0.0,
            fps: 0.0,
            bound: Bound::Device,
            trial_count: 3,
            trials: vec![
                trial(100.0, high),
                trial(50.0, vec![pair("t0 → t2", 500, 0), pair("t1 → t2", 500, 0)]),
                // One pair only: nothing to map.
                trial(25.0, vec![pair("t0 → t2", 500, 0)]),
            ],
            complete: true,
        };
        c.throughput.push(row);
        assert!(pair_matrices(&c, Test::Loss).is_empty());
        let maps = pair_matrices(&c, Test::Throughput);
        assert_eq!(maps.len(), 1, "1518 B has no row");
        let m = &maps[0];
        assert!(
            m.starts_with(r#"<svg class="pairs" id="pairs-throughput-64""#),
            "{m}"
        );
        assert!(m.contains("Port-to-port frame loss, 64 B, each port at 100.000 % of line"));
        // Ports in the order the pairs name them; a cell per pair, white
        // cells where no pair is.
        let cells = m.matches("<rect x=").count();
        assert_eq!(cells, 1 + 9 + 3, "the page, 3 × 3 cells, 3 swatches: {m}");
        let at = |t: &str| m.find(&format!(">{t}</text>")).unwrap();
        assert!(at("from t0") < at("from t1") && at("from t1") < at("from t2"));
        assert!(m.contains(
            "<title>t1 → t2: 1000 sent, 990 received, 10 lost (1.000 %), 0 corrupt</title>"
        ));
        // 1 %: 0.6 of the way from light orange to dark red, white ink.
        assert_eq!(
            pair_fill(&high_pair(10)),
            ("#c85c4d".to_string(), "#ffffff")
        );
        assert_eq!(pair_fill(&high_pair(0)).0, "#cdebc5");
        assert_eq!(pair_fill(&pair("t2 → t0", 0, 0)).0, "#eeeeee");
        assert_eq!(pair_fill(&high_pair(1000)).0, "#a50f15");
        assert!(m.contains(">1.000 %</text>"), "{m}");
        assert!(m.contains(">0 %</text>"), "{m}");
        assert!(m.contains(">no frames</text>"), "{m}");
        assert!(m.contains(">990 of 1000</text>"), "{m}");
        assert!(m.contains(">from t1</text>"), "{m}");
        assert!(
            !m.contains(" foreign</text>"),
            "no foreign row without counts: {m}"
        );
        // The receiving ports' foreign frames, under their columns.
        c.throughput[0].trials[0].foreign_at = vec![
            crate::certify::model::PortFrames {
                port: "t0".into(),
                frames: 0,
            },
            crate::certify::model::PortFrames {
                port: "t2".into(),
                frames: 7,
            },
        ];
        let m = &pair_matrices(&c, Test::Throughput)[0];
        assert_eq!(m.matches("<rect x=").count(), 1 + 9 + 2 + 3, "{m}");
        assert!(
            m.contains(r##"fill="#f3a36a" stroke="#ffffff" stroke-width="2"><title>t2: 7 frames"##),
            "{m}"
        );
        assert!(
            m.contains(r##"fill="#cdebc5" stroke="#ffffff" stroke-width="2"><title>t0: 0 frames"##),
            "{m}"
        );
        assert!(
            m.contains(">7 foreign</text>") && m.contains(">0 foreign</text>"),
            "{m}"
        );
        // Halfway up the scale (0.316 % lost) the ink is still dark.
        let mut half = high_pair(3);
        half.loss_pct = 10f64.powf(-0.5);
        assert_eq!(pair_fill(&half).1, "#3a1a00");
        // A size whose trials each have one pair: nothing to map.
        let mut one = c.throughput[0].clone();
        one.frame_size = 1518;
        one.trials = vec![trial(100.0, vec![pair("t0 → t2", 500, 0)])];
        c.throughput.push(one);
        assert_eq!(pair_matrices(&c, Test::Throughput).len(), 1);
        // A trial the tester bounded says so in the title.
        c.throughput[0].trials[0].tester_bound = true;
        let m = &pair_matrices(&c, Test::Throughput)[0];
        assert!(m.contains("each port at 100.000 % of line (tester-bound)</text>"));
        c.throughput[0].trials[0].tester_bound = false;
        // Equal loads: the later trial.
        c.throughput[0].trials[1].offered_pct = 100.0;
        let m = &pair_matrices(&c, Test::Throughput)[0];
        assert!(m.contains(">500 of 500</text>"), "{m}");
    }

    fn high_pair(lost: u64) -> DirectionFigures {
        pair("t1 → t2", 1000, lost)
    }

    #[test]
    fn ticks_are_round_and_cover_the_range() {
        let (t, step) = nice_ticks(0.0, 9.87, 6);
        assert_eq!(step, 2.0);
        assert_eq!(t, vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        let (t, step) = nice_ticks(0.0, 1.0, 6);
        assert_eq!(step, 0.2);
        assert_eq!(t.len(), 6);
        assert!((t[5] - 1.0).abs() < 1e-12);
        let (t, step) = nice_ticks(0.0, 100.0, 6);
        assert_eq!((step, t.len()), (20.0, 6));
        let (t, step) = nice_ticks(0.0, 0.0, 6);
        assert_eq!(
            (step, t.first().copied(), t.last().copied()),
            (0.2, Some(0.0), Some(1.0))
        );
    }

    #[test]
    fn tick_labels_have_the_step_s_decimals() {
        let y = linear_axis(0.0, 1.0, "t", format::fixed);
        let labels: Vec<&str> = y.ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
    }

    #[test]
    fn log_axis_spans_whole_decades() {
        let a = log_axis(3_000.0, 2_500_000.0, "t", time_label);
        assert_eq!(a.scale, Scale::Log(1e3, 1e7));
        let labels: Vec<&str> = a.ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["1 µs", "10 µs", "100 µs", "1 ms", "10 ms"]);
        let a = log_axis(20.0, 900.0, "t", count_label);
        let labels: Vec<&str> = a.ticks.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels, ["10", "20", "50", "100", "200", "500", "1k"]);
    }

    #[test]
    fn log_only_when_the_range_is_wide() {
        assert_eq!(wants_log(&[10.0, 150.0]), None);
        assert_eq!(wants_log(&[10.0, 250.0, 0.0]), Some((10.0, 250.0)));
        assert_eq!(wants_log(&[0.0, f64::NAN]), None);
    }

    /// A row is drawn pale when its figure is a lower bound or the
    /// tester's, never for a trial the tester bounded and that was tried
    /// again.
    #[test]
    fn only_a_figure_the_tester_bounded_is_pale() {
        use crate::certify::sample;
        let pale = |svg: &str| svg.matches("stroke-dasharray=\"4 2\"").count();
        let mut c = sample::complete();
        for r in &mut c.back_to_back {
            r.at_limit = false;
        }
        c.back_to_back[0].trials[0].tester_bound = true;
        c.latency[0].trials[0].tester_bound = true;
        c.latency[0].trials[0].excluded = Some("tester-bound; left out, tried again".into());
        let (b2b, lat) = (back_to_back(&c), latency(&c));
        assert_eq!((pale(&b2b), pale(&lat)), (0, 0), "{b2b}");
        c.back_to_back[0].bound = Bound::Tester;
        c.latency[0].trials[0].excluded = Some("tester-bound; left out, no tries left".into());
        let (b2b, lat) = (back_to_back(&c), latency(&c));
        assert!(pale(&b2b) >= 1 && pale(&lat) >= 1, "{b2b}\n{lat}");
        assert!(lat.contains("short of trials, the tester"), "{lat}");
    }

    #[test]
    fn scales_map_and_clamp() {
        assert_eq!(Scale::Linear(0.0, 10.0).frac(5.0), 0.5);
        assert_eq!(Scale::Linear(0.0, 10.0).frac(20.0), 1.0);
        assert!((Scale::Log(1.0, 100.0).frac(10.0) - 0.5).abs() < 1e-12);
        assert_eq!(Scale::Log(1.0, 100.0).frac(0.0), 0.0);
    }
}
