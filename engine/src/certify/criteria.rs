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
//! for that test, direction and size. A throughput
//! bound by the tester is still a lower bound of the device's: it meets a
//! minimum it reaches, and fails one it does not, saying the tester bound it.

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
            for dir in super::search::row_directions(&cert.directions) {
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
/// measured`, with the reason `cert.not_measured` gives when it has one.
fn criterion(cert: &Certification, test: &str, dir: &str, size: u32, wanted: String) -> Criterion {
    let why = (cert.not_measured.iter())
        .find(|n| n.test == test && n.direction == dir && n.frame_size == size);
    let measured = match why {
        Some(n) => format!("not measured: {}", n.reason),
        None => "not measured".into(),
    };
    Criterion {
        test: test.into(),
        direction: dir.into(),
        frame_size: size,
        wanted,
        measured,
        passed: false,
    }
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
    if let Some(r) = row {
        c.passed = r.rate_pct >= min;
        c.measured = format!("{:.3} % of line", r.rate_pct);
        if r.bound == Bound::Tester {
            c.measured
                .push_str(" (bound by the tester: the device's is at least this)");
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
        c.passed = r.summary.mean_ns <= max;
        c.measured = format!("{:.0} ns", r.summary.mean_ns);
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
    let measured = at.map(|p| p.loss_pct);
    if let Some(l) = measured {
        c.passed = l <= b.loss_pct;
        c.measured = format!("{l:.3} % lost");
    }
    c
}
