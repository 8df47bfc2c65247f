//! Human durations: `10s`, `500ms`, `2m`, `1h`, `1.5s`.

use std::time::Duration;

/// Units accepted after the number, longest first so `ms` wins over `m`.
/// Each with its length in nanoseconds.
const UNITS: [(&str, u64); 6] = [
    ("ns", 1),
    ("us", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Parse a duration: a non-negative decimal number followed by a unit,
/// `ns`, `us`, `ms`, `s`, `m` or `h` (`10s`, `500ms`, `2m`, `1h`, `1.5s`);
/// a bare number counts seconds. Zero is accepted here; callers that need
/// a positive duration check for it.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty duration; write e.g. 10s, 500ms, 2m, 1h".into());
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim_start());
    if number.is_empty() {
        return Err(format!(
            "`{s}` is not a duration; write e.g. 10s, 500ms, 2m, 1h, 1.5s"
        ));
    }
    let scale = if unit.is_empty() {
        1_000_000_000
    } else {
        match UNITS.iter().find(|(name, _)| *name == unit) {
            Some(&(_, scale)) => scale,
            None => {
                return Err(format!(
                    "`{s}`: unknown unit `{unit}`; use ns, us, ms, s, m or h (e.g. 10s, 500ms)"
                ))
            }
        }
    };
    let not_a_duration = || format!("`{s}` is not a duration; write e.g. 10s, 500ms, 2m, 1h, 1.5s");
    let too_long = || format!("`{s}` is too long");
    if let Ok(whole) = number.parse::<u64>() {
        // Exact for whole numbers.
        let ns = whole.checked_mul(scale).ok_or_else(too_long)?;
        return Ok(Duration::from_nanos(ns));
    }
    let value: f64 = number.parse().map_err(|_| not_a_duration())?;
    let ns = (value * scale as f64).round();
    if !ns.is_finite() || ns >= u64::MAX as f64 {
        return Err(too_long());
    }
    Ok(Duration::from_nanos(ns as u64))
}

/// Format a duration the way [`parse_duration`] reads it back.
pub fn format_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        return "0s".into();
    }
    // The largest unit that divides the duration exactly.
    for &(name, unit) in UNITS.iter().rev() {
        let unit = u128::from(unit);
        let whole = ns / unit;
        if whole * unit == ns {
            return format!("{whole}{name}");
        }
    }
    format!("{ns}ns")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_forms() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration(" 250us "), Ok(Duration::from_micros(250)));
        assert_eq!(parse_duration("7"), Ok(Duration::from_secs(7)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("3 s"), Ok(Duration::from_secs(3)));
    }

    #[test]
    fn rejected_forms() {
        for bad in ["", "s", "10x", "-1s", "1..2s", "ten seconds", "1e999h"] {
            assert!(parse_duration(bad).is_err(), "{bad} accepted");
        }
        assert!(parse_duration("10x")
            .unwrap_err()
            .contains("unknown unit `x`"));
    }

    #[test]
    fn format_round_trips() {
        for s in ["0s", "10s", "500ms", "2m", "1h", "1500ms", "250us", "7ns"] {
            assert_eq!(format_duration(parse_duration(s).unwrap()), s);
        }
    }
}
