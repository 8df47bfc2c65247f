//! The TCP side of a long path: bandwidth-delay product, the throughput a
//! window allows over an RTT, the window a rate needs, RFC 7323's largest
//! window, and the Internet2 Land Speed Record metric (bandwidth × distance
//! in terabit-metres per second, distance capped at 30,000 km, a new record
//! must beat the old by 10 %).
//!
//! Units: rates in bit/s, windows in bytes, RTTs in seconds, distances in
//! metres. Every function validates its inputs and names the bad field.

use super::LimitsError;

/// Largest TCP window with window scaling: 65,535 · 2^14 bytes (RFC 7323
/// caps the shift count at 14).
pub const MAX_SCALED_WINDOW: u64 = 65_535 << 14;

/// Largest window without the window scale option.
pub const MAX_UNSCALED_WINDOW: u64 = 65_535;

/// Internet2 LSR rule: the distance counted is at most 30,000 km.
pub const LSR_MAX_DISTANCE_M: f64 = 30_000e3;

/// Internet2 LSR rule: a new record must exceed the old one by 10 %.
pub const LSR_MIN_IMPROVEMENT: f64 = 0.10;

fn positive(field: &'static str, v: f64) -> Result<f64, LimitsError> {
    if !v.is_finite() {
        Err(LimitsError::invalid(field, v, "must be a finite number"))
    } else if v < 0.0 {
        Err(LimitsError::invalid(
            field,
            v,
            "must be positive, not negative",
        ))
    } else if v == 0.0 {
        Err(LimitsError::invalid(field, v, "must be greater than zero"))
    } else {
        Ok(v)
    }
}

/// Bandwidth-delay product in bytes: rate (bit/s) × RTT (s) / 8.
pub fn bdp_bytes(rate_bps: f64, rtt_s: f64) -> Result<f64, LimitsError> {
    Ok(positive("rate", rate_bps)? * positive("rtt", rtt_s)? / 8.0)
}

/// The window (bytes) a sender needs to keep `rate_bps` in flight over
/// `rtt_s`: the bandwidth-delay product.
pub fn window_for_rate(rate_bps: f64, rtt_s: f64) -> Result<f64, LimitsError> {
    bdp_bytes(rate_bps, rtt_s)
}

/// The most a window of `window_bytes` carries over `rtt_s`, bit/s:
/// window × 8 / RTT (one window per round trip).
pub fn window_limited_bps(window_bytes: f64, rtt_s: f64) -> Result<f64, LimitsError> {
    Ok(positive("window", window_bytes)? * 8.0 / positive("rtt", rtt_s)?)
}

/// The window scale shift count (RFC 7323) a window needs: the smallest
/// `s` with 65,535 · 2^s ≥ window. `None` if even shift 14 is too small.
pub fn window_scale_needed(window_bytes: f64) -> Option<u8> {
    (0u8..=14).find(|&s| (MAX_UNSCALED_WINDOW << s) as f64 >= window_bytes)
}

/// The Land Speed Record distance: `distance_m` capped at 30,000 km.
pub fn lsr_distance_m(distance_m: f64) -> Result<f64, LimitsError> {
    Ok(positive("distance", distance_m)?.min(LSR_MAX_DISTANCE_M))
}

/// Bandwidth-distance product in terabit-metres per second (Tb·m/s):
/// rate (bit/s) × distance (m, capped at 30,000 km) / 10^12.
pub fn bandwidth_distance_tbmps(rate_bps: f64, distance_m: f64) -> Result<f64, LimitsError> {
    Ok(positive("rate", rate_bps)? * lsr_distance_m(distance_m)? / 1e12)
}

/// Whether `new_tbmps` beats the standing record `old_tbmps` by the 10 %
/// the LSR rules require.
pub fn beats_record(new_tbmps: f64, old_tbmps: f64) -> Result<bool, LimitsError> {
    let new = positive("new record", new_tbmps)?;
    let old = positive("old record", old_tbmps)?;
    // Compare with a relative tolerance so that exactly +10 % counts.
    Ok(new >= old * (1.0 + LSR_MIN_IMPROVEMENT) * (1.0 - 1e-12))
}

/// The rate (bit/s) needed over `distance_m` to beat `old_tbmps` by 10 %.
pub fn rate_to_beat_bps(old_tbmps: f64, distance_m: f64) -> Result<f64, LimitsError> {
    let old = positive("old record", old_tbmps)?;
    Ok(old * (1.0 + LSR_MIN_IMPROVEMENT) * 1e12 / lsr_distance_m(distance_m)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn textbook_window_over_rtt() {
        // 17,520-byte window over a 15 ms RTT: at most 9.344 Mbit/s.
        let bps = window_limited_bps(17_520.0, 0.015).unwrap();
        assert!((bps - 9.344e6).abs() < 1e-3, "{bps}");
    }

    #[test]
    fn textbook_bdp() {
        // 10 Gbit/s at 500 ms needs a 625 MB window.
        let w = window_for_rate(10e9, 0.5).unwrap();
        assert_eq!(w, 625e6);
        assert_eq!(bdp_bytes(10e9, 0.5).unwrap(), 625e6);
        // It fits a scaled window (shift 14 gives 1,073,725,440 bytes).
        assert_eq!(MAX_SCALED_WINDOW, 1_073_725_440);
        assert_eq!(window_scale_needed(625e6), Some(14));
        assert_eq!(window_scale_needed(65_535.0), Some(0));
        assert_eq!(window_scale_needed(2e9), None);
    }

    #[test]
    fn textbook_land_speed_record() {
        // 7.994 Gbit/s over 30,000 km: 239,820 Tb·m/s.
        let p = bandwidth_distance_tbmps(7.994e9, 30_000e3).unwrap();
        assert!((p - 239_820.0).abs() < 1e-6, "{p}");
        // Distances beyond 30,000 km count as 30,000 km.
        let capped = bandwidth_distance_tbmps(7.994e9, 40_000e3).unwrap();
        assert_eq!(capped, p);
        // Beating it needs +10 %: 263,802 Tb·m/s, 8.7934 Gbit/s at 30,000 km.
        assert!(!beats_record(263_000.0, 239_820.0).unwrap());
        assert!(beats_record(263_802.0, 239_820.0).unwrap());
        let r = rate_to_beat_bps(239_820.0, 30_000e3).unwrap();
        assert!((r - 8.7934e9).abs() < 1e3, "{r}");
        // The 2006 IPv4 record, 8.80 Gbit/s over 30,000 km, did.
        let p2006 = bandwidth_distance_tbmps(8.80e9, 30_000e3).unwrap();
        assert!(beats_record(p2006, p).unwrap());
    }

    #[test]
    fn bad_inputs_name_the_field() {
        let e = window_limited_bps(17_520.0, -0.015).unwrap_err();
        assert!(e.to_string().contains("rtt"), "{e}");
        let e = window_limited_bps(0.0, 0.015).unwrap_err();
        assert!(e.to_string().contains("window"), "{e}");
        let e = bdp_bytes(f64::NAN, 0.5).unwrap_err();
        assert!(e.to_string().contains("rate"), "{e}");
        let e = bandwidth_distance_tbmps(1e9, 0.0).unwrap_err();
        assert!(e.to_string().contains("distance"), "{e}");
    }
}
