//! Exact values for every parser and formatter of [`crate::units`].

use super::*;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn problem<T: fmt::Debug>(r: Result<T, UnitError>) -> Problem {
    r.unwrap_err().problem
}

#[test]
fn durations_with_units() {
    let ok = |s: &str| parse_duration(s).unwrap();
    assert_eq!(ok("10s"), secs(10));
    assert_eq!(ok("500ms"), Duration::from_millis(500));
    assert_eq!(ok("2m"), secs(120));
    assert_eq!(ok("2min"), secs(120));
    assert_eq!(ok("1h"), secs(3600));
    assert_eq!(ok("1.5s"), Duration::from_millis(1500));
    assert_eq!(ok(" 250us "), Duration::from_micros(250));
    assert_eq!(ok("250µs"), Duration::from_micros(250));
    assert_eq!(ok("15 ms"), Duration::from_millis(15));
    assert_eq!(ok("15MS"), Duration::from_millis(15));
    assert_eq!(ok("3 s"), secs(3));
    assert_eq!(ok("7ns"), Duration::from_nanos(7));
    assert_eq!(ok("1e6ns"), Duration::from_millis(1));
    assert_eq!(ok("1e-3s"), Duration::from_millis(1));
    assert_eq!(ok("2.5E-3s"), Duration::from_micros(2500));
    assert_eq!(ok("+4s"), secs(4));
    assert_eq!(ok(".5s"), Duration::from_millis(500));
    assert_eq!(ok("1,000ms"), secs(1));
    assert_eq!(ok("0s"), Duration::ZERO);
    assert_eq!(ok("0"), Duration::ZERO);
    // Rounded to the nearest nanosecond, halves up.
    assert_eq!(ok("1.4ns"), Duration::from_nanos(1));
    assert_eq!(ok("1.5ns"), Duration::from_nanos(2));
    assert_eq!(ok("0.0000000004s"), Duration::ZERO);
    // `m` is minutes, `ms` milliseconds.
    assert_eq!(ok("2m"), ok("120000ms"));
    assert_ne!(ok("2m"), ok("2ms"));
    assert_eq!(ok("1.s"), secs(1));
    // 24 significant digits are read exactly.
    assert_eq!(ok("1.00000000000000000000001s"), secs(1));
    // The largest: u64::MAX nanoseconds.
    // Exact up to the last nanosecond of u64 (the fields then bound it).
    let edge = read_duration("18446744073709551615ns", None).unwrap();
    assert_eq!(edge, Duration::from_nanos(u64::MAX));
}

#[test]
fn bare_durations() {
    assert_eq!(parse_duration("7"), Ok(secs(7)));
    assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
    assert_eq!(
        parse_duration_with_unit("15ms"),
        Ok(Duration::from_millis(15))
    );
    assert_eq!(parse_duration_with_unit("0"), Ok(Duration::ZERO));
    let e = parse_duration_with_unit(" 15 ").unwrap_err();
    assert_eq!(e.problem, Problem::NeedsUnit);
    assert_eq!(e.to_string(), "`15`: add a unit: 15ms or 15s");
    assert_eq!(e.reason(), "add a unit: 15ms or 15s");
}

#[test]
fn refused_durations() {
    assert_eq!(problem(parse_duration("")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("   ")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("s")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("NaN")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("inf")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("ten seconds")), Problem::NoNumber);
    assert_eq!(problem(parse_duration("-1s")), Problem::Negative);
    assert_eq!(problem(parse_duration("-0")), Problem::Negative);
    assert_eq!(problem(parse_duration("1e99s")), Problem::TooLarge);
    assert_eq!(problem(parse_duration("1e999h")), Problem::TooLarge);
    assert_eq!(
        problem(parse_duration("18446744073709551616ns")),
        Problem::TooLarge
    );
    assert_eq!(problem(parse_duration("5124096h")), Problem::TooLarge);
    assert_eq!(
        problem(parse_duration("1.0000000000000000000000001s")),
        Problem::TooManyDigits
    );
    assert_eq!(
        problem(parse_duration("1.000000000000000000000001s")),
        Problem::TooManyDigits
    );
    assert_eq!(problem(parse_duration(",000s")), Problem::NoNumber);
    assert_eq!(
        problem(parse_duration("1_,000s")),
        Problem::UnknownUnit("_,000s".into())
    );
    assert_eq!(
        problem(parse_duration("1..2s")),
        Problem::UnknownUnit(".2s".into())
    );
    assert_eq!(
        problem(parse_duration("10x")),
        Problem::UnknownUnit("x".into())
    );
    assert_eq!(
        problem(parse_duration("1_s")),
        Problem::UnknownUnit("_s".into())
    );
    // A comma is a thousands separator only before three digits.
    assert_eq!(
        problem(parse_duration("1,5s")),
        Problem::UnknownUnit(",5s".into())
    );
    assert_eq!(
        problem(parse_duration("1,5000s")),
        Problem::UnknownUnit(",5000s".into())
    );
    assert_eq!(
        problem(parse_duration("1,000.5,000s")),
        Problem::UnknownUnit(",000s".into())
    );
}

#[test]
fn duration_messages() {
    assert_eq!(
        parse_duration("soon").unwrap_err().to_string(),
        "`soon` is not a duration; write e.g. 10s, 500ms, 2m, 1h, 1.5s"
    );
    assert_eq!(
        parse_duration("5 parsecs").unwrap_err().to_string(),
        "`5 parsecs`: unknown unit `parsecs`; use ns, us, ms, s, m or h (e.g. 10s, 500ms, 2m, 1h, 1.5s)"
    );
    assert_eq!(
        parse_duration("-15ms").unwrap_err().to_string(),
        "`-15ms`: must be positive, not negative"
    );
    assert_eq!(
        parse_duration("1e99s").unwrap_err().to_string(),
        "`1e99s`: too large for a duration"
    );
}

#[test]
fn byte_counts() {
    let ok = |s: &str| parse_bytes(s).unwrap();
    assert_eq!(ok("17520"), 17_520);
    assert_eq!(ok("17,520"), 17_520);
    assert_eq!(ok("1_000_000"), 1_000_000);
    assert_eq!(ok("1,000,000 B"), 1_000_000);
    assert_eq!(ok("300B"), 300);
    assert_eq!(ok("300 bytes"), 300);
    assert_eq!(ok("64k"), 64_000);
    assert_eq!(ok("64kB"), 64_000);
    assert_eq!(ok("64KiB"), 65_536);
    assert_eq!(ok("64kib"), 65_536);
    assert_eq!(ok("4MB"), 4_000_000);
    assert_eq!(ok("4MiB"), 4_194_304);
    assert_eq!(ok("4mb"), 4_000_000);
    assert_eq!(ok("4M"), 4_000_000);
    assert_eq!(ok("625MB"), 625_000_000);
    assert_eq!(ok("1.5 GB"), 1_500_000_000);
    assert_eq!(ok("1GiB"), 1_073_741_824);
    // Exact up to u64 (the fields then bound it to 1 TiB).
    let big = |s: &str| read_bytes(s).unwrap();
    assert_eq!(big("2TB"), 2_000_000_000_000);
    assert_eq!(ok("1TiB"), 1_099_511_627_776);
    assert_eq!(ok("1e3"), 1000);
    assert_eq!(ok(" 0 "), 0);
    assert_eq!(ok("0.4"), 0);
    assert_eq!(ok("0.5"), 1);
    assert_eq!(big("16TiB"), 16 << 40);
    assert_eq!(big("18446744073709551615"), u64::MAX);
    assert_eq!(
        problem(parse_bytes("18446744073709551616")),
        Problem::TooLarge
    );
    assert_eq!(problem(parse_bytes("1e99")), Problem::TooLarge);
    assert_eq!(problem(parse_bytes("-1MB")), Problem::Negative);
    assert_eq!(problem(parse_bytes("lots")), Problem::NoNumber);
    assert_eq!(
        problem(parse_bytes("4XB")),
        Problem::UnknownUnit("XB".into())
    );
    assert_eq!(
        parse_bytes("12 furlongs").unwrap_err().to_string(),
        "`12 furlongs`: unknown unit `furlongs`; use B, kB, MB, GB, TB, KiB, MiB, GiB or TiB \
         (e.g. 17520, 64KiB, 4MB, 1GiB)"
    );
}

#[test]
fn rates() {
    let bits = |s: &str| parse_rate(s).unwrap();
    assert_eq!(bits("9.5G"), PerSec::Bits(9_500_000_000));
    assert_eq!(bits("9.5Gbps"), PerSec::Bits(9_500_000_000));
    assert_eq!(bits("9.5Gbit/s"), PerSec::Bits(9_500_000_000));
    assert_eq!(bits("9.5 Gb/s"), PerSec::Bits(9_500_000_000));
    assert_eq!(bits("9.5g"), PerSec::Bits(9_500_000_000));
    assert_eq!(bits("800M"), PerSec::Bits(800_000_000));
    assert_eq!(bits("100k"), PerSec::Bits(100_000));
    assert_eq!(bits("1T"), PerSec::Bits(1_000_000_000_000));
    assert_eq!(bits("500"), PerSec::Bits(500));
    assert_eq!(bits("500bit/s"), PerSec::Bits(500));
    assert_eq!(bits("1e9"), PerSec::Bits(1_000_000_000));
    assert_eq!(bits("0"), PerSec::Bits(0));
    assert_eq!(bits("0.0001"), PerSec::Bits(0));
    assert_eq!(bits("9.285714285G"), PerSec::Bits(9_285_714_285));
    assert_eq!(bits("136612pps"), PerSec::Frames(136_612));
    assert_eq!(bits("1.2Mpps"), PerSec::Frames(1_200_000));
    assert_eq!(bits("10 frames/s"), PerSec::Frames(10));
    assert_eq!(problem(parse_rate("1GB/s")), Problem::BytesPerSecond);
    assert_eq!(problem(parse_rate("1e99")), Problem::TooLarge);
    assert_eq!(problem(parse_rate("1e99G")), Problem::TooLarge);
    assert_eq!(
        problem(parse_rate("18446744073709551616")),
        Problem::TooLarge
    );
    assert_eq!(problem(parse_rate("-5G")), Problem::Negative);
    assert_eq!(problem(parse_rate("fast")), Problem::NoNumber);
    assert_eq!(problem(parse_rate("NaN")), Problem::NoNumber);
    assert_eq!(
        problem(parse_rate("9.5Q")),
        Problem::UnknownUnit("Q".into())
    );
    assert_eq!(
        problem(parse_rate("1.2.3G")),
        Problem::UnknownUnit(".3G".into())
    );
    assert_eq!(parse_bit_rate("7.994Gbps"), Ok(7_994_000_000));
    assert_eq!(parse_bit_rate("100Mbit/s"), Ok(100_000_000));
    assert_eq!(problem(parse_bit_rate("100pps")), Problem::FramesNotBits);
    assert_eq!(
        parse_rate("fast").unwrap_err().reason(),
        "no number; write e.g. 9.5G, 800Mbps, 136612pps"
    );
}

#[test]
fn shares_and_distances() {
    assert_eq!(parse_share_ppm("95%"), Ok(950_000));
    assert_eq!(parse_share_ppm("12.5 %"), Ok(125_000));
    assert_eq!(parse_share_ppm("100%"), Ok(1_000_000));
    assert_eq!(parse_share_ppm("0.00004%"), Ok(0));
    assert_eq!(parse_share_ppm("0.00005%"), Ok(1));
    assert_eq!(
        problem(parse_share_ppm("95")),
        Problem::UnknownUnit("".into())
    );
    assert_eq!(problem(parse_share_ppm("-5%")), Problem::Negative);
    assert_eq!(parse_distance_m("30000km"), Ok(30e6));
    assert_eq!(parse_distance_m("30,000 km"), Ok(30e6));
    assert_eq!(parse_distance_m("30000"), Ok(30e6));
    assert_eq!(parse_distance_m("1e7m"), Ok(1e7));
    assert_eq!(parse_distance_m("500m"), Ok(500.0));
    assert_eq!(parse_distance_m("1mi"), Ok(1609.344));
    assert_eq!(parse_distance_m("0.0004m"), Ok(0.0));
    assert_eq!(problem(parse_distance_m("-1km")), Problem::Negative);
    assert_eq!(problem(parse_distance_m("1e99km")), Problem::TooLarge);
    assert_eq!(
        problem(parse_distance_m("3 parsecs")),
        Problem::UnknownUnit("parsecs".into())
    );
}

#[test]
fn plain_numbers() {
    assert_eq!(parse_number("2.4"), Ok((2.4, "")));
    assert_eq!(parse_number("20,000"), Ok((20_000.0, "")));
    assert_eq!(parse_number(" 2.4 GHz "), Ok((2.4, "GHz")));
    assert_eq!(parse_number("1e3"), Ok((1000.0, "")));
    assert_eq!(parse_number("0"), Ok((0.0, "")));
    assert_eq!(parse_number("-2").unwrap_err().problem, Problem::Negative);
    assert_eq!(parse_number("NaN").unwrap_err().problem, Problem::NoNumber);
    assert_eq!(
        parse_number("x").unwrap_err().to_string(),
        "`x` is not a number; write e.g. 2.4, 20,000, 1e3"
    );
}

#[test]
fn bit_rate_formatting() {
    let exact = |v: f64| format_bit_rate(v, Digits::Exact);
    assert_eq!(exact(9_285_714_285.0), "9.285714285 Gbit/s");
    assert_eq!(exact(10e9), "10 Gbit/s");
    assert_eq!(exact(9.5e9), "9.5 Gbit/s");
    assert_eq!(exact(800e6), "800 Mbit/s");
    assert_eq!(exact(100_000.0), "100 kbit/s");
    assert_eq!(exact(1_000_001.0), "1.000001 Mbit/s");
    assert_eq!(exact(2.5e12), "2.5 Tbit/s");
    assert_eq!(exact(500.0), "500 bit/s");
    assert_eq!(exact(0.0), "0 bit/s");
    assert_eq!(exact(f64::NAN), "NaN bit/s");
    assert_eq!(exact(-5.0), "-5 bit/s");
    // Each prefix from exactly its first value.
    assert_eq!(exact(999.0), "999 bit/s");
    assert_eq!(exact(1e3), "1 kbit/s");
    assert_eq!(exact(1e6), "1 Mbit/s");
    assert_eq!(exact(1e9), "1 Gbit/s");
    assert_eq!(exact(1e12), "1 Tbit/s");
    let trimmed = |v: f64| format_bit_rate(v, Digits::Trimmed(3));
    assert_eq!(trimmed(10e9), "10 Gbit/s");
    assert_eq!(trimmed(2.5e9), "2.5 Gbit/s");
    assert_eq!(trimmed(9_953_280_000.0), "9.953 Gbit/s");
    assert_eq!(
        trimmed(9_999_900_000.0),
        "10 Gbit/s",
        "rounded, then trimmed"
    );
    assert_eq!(trimmed(1.6e12), "1.6 Tbit/s");
    assert_eq!(trimmed(64_000.0), "64 kbit/s");
    assert_eq!(trimmed(999.0), "999 bit/s");
    let fixed = |v: f64| format_bit_rate(v, Digits::Fixed(3));
    assert_eq!(fixed(9.344e6), "9.344 Mbit/s");
    assert_eq!(fixed(10e9), "10.000 Gbit/s");
    assert_eq!(fixed(280_320.0), "280.320 kbit/s");
    assert_eq!(fixed(2_000.0), "2.000 kbit/s");
    assert_eq!(fixed(999.0), "999.000 bit/s");
    assert_eq!(fixed(3.6667e12), "3.667 Tbit/s");
    assert_eq!(format_bit_rate(1.5e9, Digits::Fixed(0)), "2 Gbit/s");
    assert_eq!(gbps(63.015e9), "63.015");
    assert_eq!(gbps(9.344e6), "0.009");
}

#[test]
fn byte_formatting() {
    assert_eq!(format_bytes(999.0, Prefixes::Si), "999 B");
    assert_eq!(format_bytes(0.0, Prefixes::Si), "0 B");
    assert_eq!(format_bytes(1_000.0, Prefixes::Si), "1.0 kB");
    assert_eq!(format_bytes(17_520.0, Prefixes::Si), "17.5 kB");
    assert_eq!(format_bytes(17_520.0, Prefixes::Iec), "17.1 KiB");
    assert_eq!(format_bytes(623_600_000.0, Prefixes::Si), "623.6 MB");
    assert_eq!(format_bytes(625e6, Prefixes::Iec), "596.0 MiB");
    assert_eq!(format_bytes(1_250_000_000.0, Prefixes::Si), "1.2 GB");
    assert_eq!(format_bytes(25e9, Prefixes::Iec), "23.3 GiB");
    assert_eq!(format_bytes(1.25e12, Prefixes::Si), "1.2 TB");
    assert_eq!(format_bytes(1_099_511_627_776.0, Prefixes::Iec), "1.0 TiB");
    assert_eq!(format_bytes(1023.0, Prefixes::Iec), "1023 B");
    assert_eq!(format_bytes(1024.0, Prefixes::Iec), "1.0 KiB");
    assert_eq!(format_bytes(1e6, Prefixes::Si), "1.0 MB");
    assert_eq!(format_bytes(1e9, Prefixes::Si), "1.0 GB");
    assert_eq!(format_bytes(1e12, Prefixes::Si), "1.0 TB");
    assert_eq!(format_bytes(1_048_576.0, Prefixes::Iec), "1.0 MiB");
    assert_eq!(format_bytes(1_073_741_824.0, Prefixes::Iec), "1.0 GiB");
}

#[test]
fn duration_formatting() {
    let f = |ns: u64| format_duration(Duration::from_nanos(ns));
    assert_eq!(f(0), "0 s");
    assert_eq!(f(7), "7 ns");
    assert_eq!(f(250_000), "250 us");
    assert_eq!(f(15_000_000), "15 ms");
    assert_eq!(f(15_500_000), "15.5 ms");
    assert_eq!(f(500_000_000), "500 ms");
    assert_eq!(f(1_500_000_000), "1.5 s");
    assert_eq!(f(2_000_000_000), "2 s");
    assert_eq!(f(120_000_000_000), "120 s");
    assert_eq!(f(1_000_000_001), "1.000000001 s");
    assert_eq!(f(999), "999 ns");
    assert_eq!(f(1_000), "1 us");
    assert_eq!(f(1_000_000), "1 ms");
    assert_eq!(f(1_000_000_000), "1 s");
    assert_eq!(f(u64::MAX), "18446744073.709551615 s");
    for s in [
        "0s",
        "7ns",
        "250us",
        "15.5ms",
        "1.5s",
        "2m",
        "1h",
        "1.000000001s",
    ] {
        let d = parse_duration(s).unwrap();
        assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{s}");
    }
    assert_eq!(format_nanos(850.0), "850 ns");
    assert_eq!(format_nanos(12_345.0), "12.3 us");
    assert_eq!(format_nanos(4_560_000.0), "4.56 ms");
    assert_eq!(format_nanos(1.5e9), "1.50 s");
    assert_eq!(format_nanos(0.0), "0 ns");
    assert_eq!(format_nanos(999.0), "999 ns");
    assert_eq!(format_nanos(1e3), "1.0 us");
    assert_eq!(format_nanos(1e6), "1.00 ms");
    assert_eq!(format_nanos(1e9), "1.00 s");
}

#[test]
fn grouping() {
    assert_eq!(group(136_612.02), "136,612");
    assert_eq!(group(625e6), "625,000,000");
    assert_eq!(group(999.6), "1,000");
    assert_eq!(group(999.4), "999");
    assert_eq!(group(12.0), "12");
    assert_eq!(group(0.0), "0");
    assert_eq!(group(-0.2), "0");
    assert_eq!(group(-1234.0), "-1,234");
    assert_eq!(group(f64::NAN), "-");
    assert_eq!(group(f64::INFINITY), "-");
}

#[test]
fn every_quantity_has_one_largest_value() {
    assert_eq!(parse_duration("720h").unwrap(), MAX_DURATION);
    assert_eq!(
        problem(parse_duration("721h")),
        Problem::AboveMax("30 days (720h)".into())
    );
    assert_eq!(
        parse_duration("1e9s").unwrap_err().to_string(),
        "`1e9s`: above the largest duration accepted, 30 days (720h)"
    );
    assert_eq!(parse_bytes("1TiB").unwrap(), MAX_BYTES);
    assert_eq!(
        problem(parse_bytes("1.1TiB")),
        Problem::AboveMax("1 TiB".into())
    );
    assert_eq!(parse_rate("1.6T").unwrap(), PerSec::Bits(MAX_BIT_RATE));
    assert_eq!(
        problem(parse_bit_rate("1.7T")),
        Problem::AboveMax("1.6 Tbit/s".into())
    );
    assert_eq!(
        parse_rate("2380952380pps").unwrap(),
        PerSec::Frames(MAX_FRAME_RATE)
    );
    assert_eq!(
        problem(parse_rate("3Gpps")),
        Problem::AboveMax("2,380,952,380 frames/s".into())
    );
    assert_eq!(parse_distance_m("1000000km").unwrap(), 1e9);
    assert_eq!(
        problem(parse_distance_m("1000001km")),
        Problem::AboveMax("1,000,000 km".into())
    );
}
