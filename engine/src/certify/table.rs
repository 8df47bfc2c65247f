//! The terminal summary of a certification: one table per test, the
//! criteria, the verdict. Every figure is a field of the
//! [`Certification`] (the JSON holds the same numbers).

use std::fmt::Write as _;

use super::model::{Bound, Certification};

/// The name of a bound in the tables.
fn bound(b: Bound) -> &'static str {
    match b {
        Bound::Device => "device",
        Bound::Line => "line",
        Bound::Tester => "TESTER",
    }
}

/// The whole summary.
pub fn summary(c: &Certification) -> String {
    let mut s = String::new();
    throughput(c, &mut s);
    latency(c, &mut s);
    loss(c, &mut s);
    back_to_back(c, &mut s);
    criteria(c, &mut s);
    for p in &c.problems {
        let _ = writeln!(s, "warning: {}", p.text());
    }
    let _ = writeln!(s, "certification: {}", verdict(c));
    s
}

/// `PASS`, `FAIL` or `INCOMPLETE (why)`.
pub fn verdict(c: &Certification) -> String {
    if !c.complete {
        format!(
            "INCOMPLETE ({})",
            c.stopped_by.as_deref().unwrap_or("stopped")
        )
    } else if c.criteria.iter().all(|k| k.passed) {
        "PASS".into()
    } else {
        "FAIL".into()
    }
}

fn throughput(c: &Certification, s: &mut String) {
    if c.throughput.is_empty() {
        return;
    }
    let _ = writeln!(s, "throughput (RFC 2544 26.1)");
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>9} {:>12} {:>12} {:>14} {:>7} {:>6}",
        "size", "direction", "% line", "L1 bit/s", "L2 bit/s", "frames/s", "bound", "trials"
    );
    for r in &c.throughput {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>9.3} {:>12.0} {:>12.0} {:>14.0} {:>7} {:>6}{}",
            r.frame_size,
            r.direction,
            r.rate_pct,
            r.l1_bps,
            r.l2_bps,
            r.fps,
            bound(r.bound),
            r.trial_count,
            if r.complete { "" } else { " (incomplete)" }
        );
    }
}

fn latency(c: &Certification, s: &mut String) {
    if c.latency.is_empty() {
        return;
    }
    let _ = writeln!(s, "latency (RFC 2544 26.2), ns, mean of the trials");
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6}",
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
        "trials"
    );
    for r in &c.latency {
        let l = &r.summary;
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>9.3} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>6}",
            r.frame_size,
            r.direction,
            r.rate_pct,
            l.min_ns,
            l.mean_ns,
            l.p50_ns,
            l.p99_ns,
            l.p999_ns,
            l.max_ns,
            r.jitter_ns,
            r.trials.len()
        );
    }
}

fn loss(c: &Certification, s: &mut String) {
    if c.loss.is_empty() {
        return;
    }
    let _ = writeln!(s, "frame loss rate (RFC 2544 26.3), % lost at % of line");
    for r in &c.loss {
        let pts: Vec<String> = (r.points.iter())
            .map(|p| format!("{:.1}:{:.4}", p.rate_pct, p.loss_pct))
            .collect();
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {}",
            r.frame_size,
            r.direction,
            pts.join(" ")
        );
    }
}

fn back_to_back(c: &Certification, s: &mut String) {
    if c.back_to_back.is_empty() {
        return;
    }
    let _ = writeln!(s, "back-to-back (RFC 2544 26.4)");
    let _ = writeln!(
        s,
        "  {:>6} {:<16} {:>12} {:>12} {:>8} {:>7} {:>6}",
        "size", "direction", "mean frames", "mean s", "limit", "bound", "trials"
    );
    for r in &c.back_to_back {
        let _ = writeln!(
            s,
            "  {:>6} {:<16} {:>12.1} {:>12.6} {:>8} {:>7} {:>6}",
            r.frame_size,
            r.direction,
            r.mean_frames,
            r.mean_s,
            if r.at_limit { "reached" } else { "-" },
            bound(r.bound),
            r.bursts.len()
        );
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
            "  {} {:>6} {:<16} {}: {} ({})",
            if k.passed { "PASS" } else { "FAIL" },
            k.frame_size,
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

    #[test]
    fn rfc3339_of_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_796_168_769), "2026-12-01T23:46:09Z");
    }
}
