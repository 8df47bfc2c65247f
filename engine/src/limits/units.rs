//! Parsing of the quantities a limits query takes (durations, byte counts,
//! bit rates, distances) and the number formatting its page uses.
//!
//! Decimal prefixes are powers of 1000 (`k`, `M`, `G`, `T`), binary ones
//! powers of 1024 (`Ki`, `Mi`, `Gi`), as IEC 80000-13 has it. Every error
//! names the field it came from.

use super::LimitsError;

/// Splits `"15ms"` into `(15.0, "ms")`; the unit is trimmed and lowercase
/// comparison is left to the caller.
fn split_number<'a>(field: &'static str, text: &'a str) -> Result<(f64, &'a str), LimitsError> {
    let t = text.trim();
    let mut end = t.len();
    let mut prev: Option<char> = None;
    for (i, c) in t.char_indices() {
        let numeric = c.is_ascii_digit()
            || c == '.'
            || c == '_'
            || c == ','
            || ((c == '-' || c == '+') && (i == 0 || matches!(prev, Some('e' | 'E'))))
            || ((c == 'e' || c == 'E')
                && prev.is_some_and(|p| p.is_ascii_digit())
                && t[i + 1..].starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+'));
        if !numeric {
            end = i;
            break;
        }
        prev = Some(c);
    }
    let (num, unit) = t.split_at(end);
    let cleaned: String = num.chars().filter(|&c| c != '_' && c != ',').collect();
    if cleaned.is_empty() {
        return Err(LimitsError::invalid(field, text, "expected a number"));
    }
    let value: f64 = cleaned
        .parse()
        .map_err(|_| LimitsError::invalid(field, text, "expected a number"))?;
    if !value.is_finite() {
        return Err(LimitsError::invalid(
            field,
            text,
            "the number must be finite",
        ));
    }
    Ok((value, unit.trim()))
}

fn require_positive(field: &'static str, text: &str, v: f64) -> Result<f64, LimitsError> {
    if v > 0.0 {
        Ok(v)
    } else if v < 0.0 {
        Err(LimitsError::invalid(
            field,
            text,
            "must be positive, not negative",
        ))
    } else {
        Err(LimitsError::invalid(
            field,
            text,
            "must be greater than zero",
        ))
    }
}

/// Parses a duration such as `500ms`, `15 ms`, `0.5s`, `250us`, `1e6ns`
/// into seconds. A bare number is milliseconds (how RTTs are quoted).
/// Zero and negative durations are rejected.
pub fn parse_duration_s(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let (v, unit) = split_number(field, text)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "ms" | "msec" => 1e-3,
        "s" | "sec" => 1.0,
        "us" | "µs" | "usec" => 1e-6,
        "ns" => 1e-9,
        "min" => 60.0,
        _ => {
            return Err(LimitsError::invalid(
                field,
                text,
                "unknown unit; use s, ms, us or ns (e.g. 500ms)",
            ))
        }
    };
    require_positive(field, text, v * scale)
}

/// Parses a byte count such as `17520`, `64KiB`, `625MB`, `1GiB`, `64k`.
/// Zero and negative counts are rejected.
pub fn parse_bytes(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let (v, unit) = split_number(field, text)?;
    let u = unit.to_ascii_lowercase();
    let u = u
        .strip_suffix("bytes")
        .or_else(|| u.strip_suffix('b'))
        .unwrap_or(&u);
    let scale = match u {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        "ki" => 1024.0,
        "mi" => 1024.0 * 1024.0,
        "gi" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(LimitsError::invalid(
                field,
                text,
                "unknown unit; use B, kB, MB, GB, KiB, MiB or GiB (e.g. 64KiB)",
            ))
        }
    };
    require_positive(field, text, v * scale)
}

/// Parses a bit rate such as `10G`, `9.5G`, `100M`, `10Gbps`, `10Gbit/s`
/// into bit/s. A bare number is bit/s. Zero and negative rates are rejected.
pub fn parse_rate_bps(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let (v, unit) = split_number(field, text)?;
    let u = unit.to_ascii_lowercase();
    let u = u
        .strip_suffix("bit/s")
        .or_else(|| u.strip_suffix("bps"))
        .or_else(|| u.strip_suffix("b/s"))
        .unwrap_or(&u);
    let scale = match u {
        "" => 1.0,
        "k" => 1e3,
        "m" => 1e6,
        "g" => 1e9,
        "t" => 1e12,
        _ => {
            return Err(LimitsError::invalid(
                field,
                text,
                "unknown unit; use k, M, G or T bit/s (e.g. 10G)",
            ))
        }
    };
    require_positive(field, text, v * scale)
}

/// Parses a distance such as `30000km`, `30,000 km`, `500m`, `1e7m` into
/// metres. A bare number is kilometres. Zero and negative are rejected.
pub fn parse_distance_m(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let (v, unit) = split_number(field, text)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "km" => 1e3,
        "m" => 1.0,
        "mi" | "miles" => 1609.344,
        _ => {
            return Err(LimitsError::invalid(
                field,
                text,
                "unknown unit; use km or m (e.g. 30000km)",
            ))
        }
    };
    require_positive(field, text, v * scale)
}

/// Formats a number rounded to an integer with thousands separators:
/// `136612.02` → `"136,612"`.
pub fn group(v: f64) -> String {
    if !v.is_finite() {
        return "-".to_string();
    }
    let neg = v < 0.0;
    let digits = format!("{:.0}", v.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if neg && out != "0" {
        out.insert(0, '-');
    }
    out
}

/// Formats bit/s as Gbit/s with three decimals: `9.344e6` → `"0.009"`.
pub fn gbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e9)
}

/// Formats bit/s with an automatic prefix: `9.344e6` → `"9.344 Mbit/s"`.
pub fn rate_human(bps: f64) -> String {
    let (v, p) = if bps >= 1e12 {
        (bps / 1e12, "T")
    } else if bps >= 1e9 {
        (bps / 1e9, "G")
    } else if bps >= 1e6 {
        (bps / 1e6, "M")
    } else if bps >= 1e3 {
        (bps / 1e3, "k")
    } else {
        (bps, "")
    };
    format!("{v:.3} {p}bit/s")
}

/// Formats a byte count with decimal and binary readings:
/// `625e6` → `"625,000,000 bytes (625.0 MB, 596.0 MiB)"`.
pub fn bytes_human(bytes: f64) -> String {
    let (d, dp) = if bytes >= 1e9 {
        (bytes / 1e9, "GB")
    } else if bytes >= 1e6 {
        (bytes / 1e6, "MB")
    } else {
        (bytes / 1e3, "kB")
    };
    let (b, bp) = if bytes >= 1024.0 * 1024.0 * 1024.0 {
        (bytes / (1024.0 * 1024.0 * 1024.0), "GiB")
    } else if bytes >= 1024.0 * 1024.0 {
        (bytes / (1024.0 * 1024.0), "MiB")
    } else {
        (bytes / 1024.0, "KiB")
    };
    format!("{} bytes ({d:.1} {dp}, {b:.1} {bp})", group(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert!((parse_duration_s("rtt", "500ms").unwrap() - 0.5).abs() < 1e-12);
        assert!((parse_duration_s("rtt", "15 ms").unwrap() - 0.015).abs() < 1e-12);
        assert!((parse_duration_s("rtt", "0.5s").unwrap() - 0.5).abs() < 1e-12);
        assert!((parse_duration_s("rtt", "250us").unwrap() - 250e-6).abs() < 1e-15);
        assert!((parse_duration_s("rtt", "15").unwrap() - 0.015).abs() < 1e-12);
        assert!((parse_duration_s("rtt", "1e-3s").unwrap() - 1e-3).abs() < 1e-15);
        assert!((parse_duration_s("rtt", "1e6ns").unwrap() - 1e-3).abs() < 1e-15);
        let e = parse_duration_s("rtt", "-15ms").unwrap_err();
        assert!(e.to_string().contains("rtt"), "{e}");
        assert!(e.to_string().contains("negative"), "{e}");
        assert!(parse_duration_s("rtt", "0ms").is_err());
        assert!(parse_duration_s("rtt", "15 parsecs").is_err());
        assert!(parse_duration_s("rtt", "fast").is_err());
    }

    #[test]
    fn bytes() {
        assert_eq!(parse_bytes("window", "17520").unwrap(), 17520.0);
        assert_eq!(parse_bytes("window", "17,520").unwrap(), 17520.0);
        assert_eq!(parse_bytes("window", "64KiB").unwrap(), 65536.0);
        assert_eq!(parse_bytes("window", "625MB").unwrap(), 625e6);
        assert_eq!(parse_bytes("window", "1GiB").unwrap(), 1073741824.0);
        assert_eq!(parse_bytes("window", "64k").unwrap(), 64000.0);
        let e = parse_bytes("window", "0").unwrap_err();
        assert!(e.to_string().contains("window"), "{e}");
        assert!(parse_bytes("window", "12 furlongs").is_err());
    }

    #[test]
    fn rates_and_distances() {
        assert_eq!(parse_rate_bps("rate", "10G").unwrap(), 10e9);
        assert_eq!(parse_rate_bps("rate", "7.994Gbps").unwrap(), 7.994e9);
        assert_eq!(parse_rate_bps("rate", "100Mbit/s").unwrap(), 100e6);
        assert!(parse_rate_bps("rate", "-1G").is_err());
        assert_eq!(parse_distance_m("distance", "30000km").unwrap(), 30e6);
        assert_eq!(parse_distance_m("distance", "30,000 km").unwrap(), 30e6);
        assert_eq!(parse_distance_m("distance", "1e7m").unwrap(), 1e7);
        assert!(parse_distance_m("distance", "0km").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(group(136_612.02), "136,612");
        assert_eq!(group(625e6), "625,000,000");
        assert_eq!(group(999.6), "1,000");
        assert_eq!(group(12.0), "12");
        assert_eq!(rate_human(9.344e6), "9.344 Mbit/s");
        assert_eq!(gbps(63.015e9), "63.015");
    }
}
