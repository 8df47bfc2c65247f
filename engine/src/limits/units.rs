//! The quantities a limits query takes, read by [`crate::units`] (the
//! parser every command and the profile use) into the `f64` figures the
//! model computes with, and the number formatting its page uses.
//!
//! Every error names the option it came from; every value must be above
//! zero. A bare `--rtt` is refused ("add a unit: 15ms or 15s"): RTTs are
//! quoted in milliseconds by habit, and elsewhere a bare duration counts
//! seconds.

use super::LimitsError;
use crate::units::{self, Digits, Prefixes, UnitError};

pub use crate::units::{gbps, group};

fn invalid(field: &'static str, e: UnitError) -> LimitsError {
    LimitsError::invalid(field, e.input.clone(), e.reason())
}

fn require_positive(field: &'static str, text: &str, v: f64) -> Result<f64, LimitsError> {
    if v > 0.0 {
        Ok(v)
    } else {
        Err(LimitsError::invalid(
            field,
            text.trim(),
            "must be greater than zero",
        ))
    }
}

/// Parses a duration such as `500ms`, `15 ms`, `0.5s`, `250us`, `1e6ns`,
/// `2m` into seconds. A bare number is refused: write the unit. Zero is
/// rejected.
pub fn parse_duration_s(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let d = units::parse_duration_with_unit(text).map_err(|e| invalid(field, e))?;
    require_positive(field, text, d.as_secs_f64())
}

/// Parses a byte count such as `17520`, `64KiB`, `625MB`, `1GiB`, `64k`.
/// Zero is rejected.
pub fn parse_bytes(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let b = units::parse_bytes(text).map_err(|e| invalid(field, e))?;
    require_positive(field, text, b as f64)
}

/// Parses a bit rate such as `10G`, `9.5G`, `100M`, `10Gbps`, `10Gbit/s`
/// into bit/s. A bare number is bit/s. Zero is rejected.
pub fn parse_rate_bps(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let bps = units::parse_bit_rate(text).map_err(|e| invalid(field, e))?;
    require_positive(field, text, bps as f64)
}

/// Parses a distance such as `30000km`, `30,000 km`, `500m`, `1e7m` into
/// metres. A bare number is kilometres. Zero is rejected.
pub fn parse_distance_m(field: &'static str, text: &str) -> Result<f64, LimitsError> {
    let m = units::parse_distance_m(text).map_err(|e| invalid(field, e))?;
    require_positive(field, text, m)
}

/// Parses a positive plain number, optionally followed by `unit` (any
/// case): `2.4`, `2.4GHz`, `20,000`.
pub fn parse_positive(field: &'static str, text: &str, unit: &str) -> Result<f64, LimitsError> {
    let (v, rest) = units::parse_number(text).map_err(|e| invalid(field, e))?;
    if !rest.is_empty() && !rest.eq_ignore_ascii_case(unit) {
        let reason = if unit.is_empty() {
            "expected a plain number".to_string()
        } else {
            format!("expected a number, optionally followed by {unit}")
        };
        return Err(LimitsError::invalid(field, text.trim(), reason));
    }
    if !v.is_finite() {
        return Err(LimitsError::invalid(field, text.trim(), "must be finite"));
    }
    require_positive(field, text, v)
}

/// Formats bit/s with an automatic prefix and three decimals:
/// `9.344e6` → `"9.344 Mbit/s"`.
pub fn rate_human(bps: f64) -> String {
    units::format_bit_rate(bps, Digits::Fixed(3))
}

/// Formats a byte count with decimal and binary readings:
/// `625e6` → `"625,000,000 bytes (625.0 MB, 596.0 MiB)"`.
pub fn bytes_human(bytes: f64) -> String {
    format!(
        "{} bytes ({}, {})",
        group(bytes),
        units::format_bytes(bytes, Prefixes::Si),
        units::format_bytes(bytes, Prefixes::Iec)
    )
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
        assert!((parse_duration_s("rtt", "1e-3s").unwrap() - 1e-3).abs() < 1e-15);
        assert!((parse_duration_s("rtt", "1e6ns").unwrap() - 1e-3).abs() < 1e-15);
        assert_eq!(parse_duration_s("rtt", "2m").unwrap(), 120.0);
        assert_eq!(parse_duration_s("rtt", "1min").unwrap(), 60.0);
        // A bare RTT is refused, naming the units to add.
        let e = parse_duration_s("rtt", "15").unwrap_err();
        assert_eq!(e.to_string(), "invalid rtt `15`: add a unit: 15ms or 15s");
        let e = parse_duration_s("rtt", "-15ms").unwrap_err();
        assert!(e.to_string().contains("rtt"), "{e}");
        assert!(e.to_string().contains("negative"), "{e}");
        assert_eq!(
            e.to_string(),
            "invalid rtt `-15ms`: must be positive, not negative"
        );
        let e = parse_duration_s("rtt", "0").unwrap_err();
        assert_eq!(e.to_string(), "invalid rtt `0`: must be greater than zero");
        assert!(parse_duration_s("rtt", "0ms").is_err());
        assert!(parse_duration_s("rtt", "15 parsecs").is_err());
        assert!(parse_duration_s("rtt", "fast").is_err());
        assert!(parse_duration_s("rtt", "1e99s").is_err());
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
        assert!(parse_bytes("window", "1e99").is_err());
    }

    #[test]
    fn rates_and_distances() {
        assert_eq!(parse_rate_bps("rate", "10G").unwrap(), 10e9);
        assert_eq!(parse_rate_bps("rate", "7.994Gbps").unwrap(), 7.994e9);
        assert_eq!(parse_rate_bps("rate", "100Mbit/s").unwrap(), 100e6);
        assert!(parse_rate_bps("rate", "-1G").is_err());
        // The same bound as `run --rate`: at most u64::MAX bit/s.
        let e = parse_rate_bps("rate", "1e99").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid rate `1e99`: too large for a bit rate"
        );
        assert!(parse_rate_bps("rate", "100pps").is_err());
        assert_eq!(parse_distance_m("distance", "30000km").unwrap(), 30e6);
        assert_eq!(parse_distance_m("distance", "30,000 km").unwrap(), 30e6);
        assert_eq!(parse_distance_m("distance", "1e7m").unwrap(), 1e7);
        assert!(parse_distance_m("distance", "0km").is_err());
    }

    #[test]
    fn plain_numbers() {
        assert_eq!(parse_positive("cpu-ghz", "2.4", "GHz").unwrap(), 2.4);
        assert_eq!(parse_positive("cpu-ghz", "2.4GHz", "GHz").unwrap(), 2.4);
        assert_eq!(parse_positive("cpu-ghz", "2.4 ghz", "GHz").unwrap(), 2.4);
        assert_eq!(parse_positive("cycles", "20,000", "").unwrap(), 20_000.0);
        assert!(parse_positive("cpu-ghz", "-2", "GHz").is_err());
        assert!(parse_positive("cpu-ghz", "0", "GHz").is_err());
        assert!(parse_positive("cpu-ghz", "2.4MHz", "GHz").is_err());
        assert!(parse_positive("cpu-ghz", "inf", "GHz").is_err());
    }

    #[test]
    fn formatting() {
        assert_eq!(group(136_612.02), "136,612");
        assert_eq!(group(625e6), "625,000,000");
        assert_eq!(group(999.6), "1,000");
        assert_eq!(group(12.0), "12");
        assert_eq!(rate_human(9.344e6), "9.344 Mbit/s");
        assert_eq!(gbps(63.015e9), "63.015");
        assert_eq!(
            bytes_human(625e6),
            "625,000,000 bytes (625.0 MB, 596.0 MiB)"
        );
        assert_eq!(bytes_human(17_520.0), "17,520 bytes (17.5 kB, 17.1 KiB)");
    }
}
