//! Acceptance criteria: what a profile asks of the device per frame size,
//! judged against a certification's rows.
//!
//! - `min_throughput`: the throughput row's rate (% of line) is at least
//!   this;
//! - `max_latency`: the latency row's mean latency (RFC 2544 section
//!   26.2 reports the mean over the trials) is at most this;
//! - `max_loss`: the loss curve's loss at a rate is at most this (the
//!   curve's point at that rate, else the nearest point above it: below
//!   two loss-free steps that is a loss-free one).
//!
//! A criterion whose test did not run (or produced no row) fails: a
//! certification cannot pass on a figure it did not measure, and its
//! `measured` names the reason the certification's `not_measured` gives
//! for that test, direction and size.
//!
//! A figure the tester bounded is not the device's, so it neither meets
//! nor misses a criterion: the criterion is *not judged* (`judged:
//! false`, `measured` beginning `not judged: tester-bound`), and the
//! certification's verdict says so (exit 3). Two cases are still judged,
//! because the device's own trials decide them: a throughput bound by
//! the tester above a rate that passed at or above the minimum (the
//! device forwarded at least that much without loss: met), and a latency
//! row whose trials the tester bounded only in part (the trials that
//! count decide).

use serde::{Deserialize, Serialize};

use super::model::{Bound, Certification, Criterion};

/// One entry of the profile's `certify.criteria:` list.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Acceptance {
    /// The frame sizes it applies to (empty: every size).
    pub sizes: Vec<u32>,
    /// Minimum throughput, % of line at L1.
    pub min_throughput_pct: Option<f64>,
    /// Maximum mean latency, ns.
    pub max_latency_ns: Option<f64>,
    /// Maximum frame loss at a rate.
    pub max_loss: Option<LossBound>,
}

/// A bound on the loss curve: at most `loss_pct` % lost at `rate_pct` %.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LossBound {
    /// The offered load, % of line.
    pub rate_pct: f64,
    /// The loss allowed there, % of frames sent.
    pub loss_pct: f64,
}

/// Judge every criterion for every size it covers and every direction
/// the certification measured.
pub fn judge(cert: &Certification, list: &[Acceptance]) -> Vec<Criterion> {
    let mut out = Vec::new();
    for a in list {
        let sizes: Vec<u32> = if a.sizes.is_empty() {
            cert.settings.sizes.clone()
        } else {
            a.sizes.clone()
        };
        for &size in &sizes {
            for dir in super::search::row_directions(&cert.directions, &cert.topology) {
                if let Some(min) = a.min_throughput_pct {
                    out.push(throughput(cert, &dir, size, min));
                }
                if let Some(max) = a.max_latency_ns {
                    out.push(latency(cert, &dir, size, max));
                }
                if let Some(b) = a.max_loss {
                    out.push(loss(cert, &dir, size, b));
                }
            }
        }
    }
    out
}

/// A criterion not met for want of a figure: `measured` says `not
/// measured`, with the reason `cert.not_measured` gives when it has one
/// (a reason that is the tester's makes it not judged).
fn criterion(cert: &Certification, test: &str, dir: &str, size: u32, wanted: String) -> Criterion {
    let why = (cert.not_measured.iter())
        .find(|n| n.test == test && n.direction == dir && n.frame_size == size);
    let mut c = Criterion {
        test: test.into(),
        direction: dir.into(),
        frame_size: size,
        wanted,
        measured: "not measured".into(),
        passed: false,
        judged: true,
    };
    if let Some(n) = why {
        c.measured = format!("not measured: {}", n.reason);
        if n.reason.starts_with("tester-bound") || n.reason.contains("the tester's") {
            let why = n.reason.strip_prefix("tester-bound: ").unwrap_or(&n.reason);
            not_judged(&mut c, &format!("tester-bound: {why}"));
        } else if n.reason.contains("was left out") {
            not_judged(&mut c, &n.reason);
        }
    }
    c
}

/// Marks `c` not judged, `why` saying why (`tester-bound: ...` when the
/// figure it needs was the tester's).
fn not_judged(c: &mut Criterion, why: &str) {
    c.judged = false;
    c.passed = false;
    c.measured = format!("not judged: {why}");
}

fn throughput(cert: &Certification, dir: &str, size: u32, min: f64) -> Criterion {
    let mut c = criterion(
        cert,
        "throughput",
        dir,
        size,
        format!("throughput ≥ {min} % of line"),
    );
    let row = cert
        .throughput
        .iter()
        .find(|r| r.direction == dir && r.frame_size == size);
    let Some(r) = row else {
        return c;
    };
    let pct = super::round::Format::new(cert.settings.resolution_pct).pct(r.rate_pct);
    c.passed = r.rate_pct >= min;
    c.measured = format!("{pct} % of line");
    if r.bound == Bound::Tester {
        if c.passed {
            c.measured = format!(
                "at least {pct} % of line (the tester's limit above it; the device passed at this rate)"
            );
        } else {
            let why = super::model::why_tester(r);
            let why = if why.is_empty() {
                format!("tester-bound: {pct} % of line, the tester's limit")
            } else {
                format!("tester-bound: {pct} % of line, the tester's limit: {why}")
            };
            not_judged(&mut c, &why);
        }
    }
    c
}

fn latency(cert: &Certification, dir: &str, size: u32, max: f64) -> Criterion {
    let mut c = criterion(
        cert,
        "latency",
        dir,
        size,
        format!("mean latency ≤ {max} ns"),
    );
    let row = cert
        .latency
        .iter()
        .find(|r| r.direction == dir && r.frame_size == size);
    if let Some(r) = row.filter(|r| r.summary.count > 0) {
        // The device's latency when a baseline took the tester's out.
        let (mean, whose) = match &r.device {
            Some(d) => (
                d.mean_ns,
                " (the device's, the tester's baseline taken out)",
            ),
            None => (r.summary.mean_ns, ""),
        };
        c.passed = mean <= max;
        c.measured = format!("{mean:.0} ns{whose}");
    }
    c
}

fn loss(cert: &Certification, dir: &str, size: u32, b: LossBound) -> Criterion {
    let wanted = format!("loss ≤ {} % at {} % of line", b.loss_pct, b.rate_pct);
    let mut c = criterion(cert, "loss", dir, size, wanted);
    let curve = cert
        .loss
        .iter()
        .find(|r| r.direction == dir && r.frame_size == size);
    let Some(curve) = curve else {
        return c;
    };
    let at = (curve.points.iter())
        .filter(|p| p.rate_pct >= b.rate_pct - 1e-9)
        .min_by(|x, y| x.rate_pct.total_cmp(&y.rate_pct));
    if let Some(p) = at {
        c.passed = p.loss_pct <= b.loss_pct;
        c.measured = format!("{} % lost", super::round::loss_pct(p.loss_pct));
        if p.trial.tester_bound {
            let why = super::search::tester_reason(&p.trial);
            let why = format!(
                "{why} ({} % lost at {} % of line)",
                super::round::loss_pct(p.loss_pct),
                super::round::Format::new(cert.settings.resolution_pct).pct(p.rate_pct),
            );
            not_judged(&mut c, &why);
        }
    }
    c
}
