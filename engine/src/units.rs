//! The quantities every command and the profile take and print: durations,
//! byte counts, bit and frame rates, shares of line rate and distances.
//!
//! # Reading
//!
//! One number grammar for every quantity: an optional `+`, digits with
//! optional `_` or `,` before each group of three (`30,000`, `1_000_000`;
//! `1,5` is refused, not read as 15 or 1.5), an optional
//! fraction (`1.5`), an optional exponent (`1e6`, `2.5E-3`), then optional
//! spaces and a unit. The number is read as an exact decimal (no binary
//! floating point), scaled to the quantity's base unit in integers and
//! rounded to the nearest: whole nanoseconds, bytes, bit/s or frames/s,
//! millimetres. A minus sign, NaN, infinity, or a value beyond `u64` in the
//! base unit (`1e99`) is refused everywhere alike, with a message that
//! quotes the input. Zero is accepted here; a field that must be positive
//! says so itself.
//!
//! Every quantity has one largest value, the same for every command and
//! the profile (a figure beyond it is a typo, and would print as a
//! 20-digit figure): [`MAX_DURATION`] (30 days), [`MAX_BYTES`] (1 TiB),
//! [`MAX_BIT_RATE`] (1.6 Tbit/s, the fastest Ethernet), [`MAX_FRAME_RATE`]
//! (1.6 Tbit/s of the smallest frames on the wire) and [`MAX_DISTANCE_M`]
//! (1,000,000 km).
//!
//! | quantity | units (any case) | a bare number |
//! | --- | --- | --- |
//! | duration | `ns`, `us` (`µs`), `ms`, `s`, `m` (`min`), `h` | seconds; refused (except `0`) where the field is commonly quoted in milliseconds, `limits --rtt`: "add a unit: 15ms or 15s" |
//! | byte count | `B`; `k`, `M`, `G`, `T` (powers of 1000); `Ki`, `Mi`, `Gi`, `Ti` (powers of 1024); each with an optional `B` or `bytes` | bytes |
//! | bit rate | `k`, `M`, `G`, `T` (powers of 1000), then nothing, `bps`, `bit/s`, `bits/s`, `b/s`, `b` or `bit` | bit/s |
//! | frame rate | the same prefixes, then `pps`, `fps`, `frames/s` or `f/s` | (a bit rate) |
//! | share | a number followed by `%` | (not a share) |
//! | distance | `km`, `m`, `mi` | kilometres |
//!
//! So `m` after a duration is minutes and `ms` milliseconds; `M` after a
//! rate is mega. `4MB` is 4,000,000 bytes and `4MiB` 4,194,304. A rate unit
//! starting with a capital `B` (`1GB/s`) is refused: bytes per second are a
//! factor-of-eight trap.
//!
//! # Printing
//!
//! One formatter per quantity: [`format_duration`] (and [`format_nanos`]
//! for measured times), [`format_bytes`], [`format_bit_rate`]; [`group`]
//! writes plain counts with thousands separators ([`group_fraction`] keeps
//! decimals). Prefixes are SI (powers of 1000) unless [`Prefixes::Iec`] is
//! asked for.
#![forbid(unsafe_code)]

use std::fmt;
use std::time::Duration;

/// Bytes each frame takes on an Ethernet wire beyond the frame itself
/// (its FCS included): the preamble 7, the start-of-frame delimiter 1 and
/// the minimum inter-frame gap 12 (IEEE 802.3). **L1** rates count the
/// frame and these 20 bytes, **L2** rates the frame alone; % of line is at
/// L1, so 100 % is the port's line rate whatever the frame size. The one
/// home of this quantity: everything else names this constant.
pub const L1_OVERHEAD: u64 = 20;

/// The longest duration any field takes: 30 days.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);
/// The largest byte count any field takes: 1 TiB.
pub const MAX_BYTES: u64 = 1 << 40;
/// The largest bit rate any field takes: 1.6 Tbit/s, the fastest Ethernet.
pub const MAX_BIT_RATE: u64 = 1_600_000_000_000;
/// The largest frame rate any field takes: [`MAX_BIT_RATE`] of 64-byte
/// frames with their 20 bytes of preamble and gap (2,380,952,380 frames/s).
pub const MAX_FRAME_RATE: u64 = MAX_BIT_RATE / (8 * (64 + L1_OVERHEAD));
/// The longest distance any field takes, in metres: 1,000,000 km.
pub const MAX_DISTANCE_M: u64 = 1_000_000_000;

/// Which quantity a text was meant to be; it words the error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// A duration.
    Duration,
    /// A byte count.
    Bytes,
    /// A bit rate or a frame rate.
    Rate,
    /// A bit rate only.
    BitRate,
    /// A share of line rate, in percent.
    Share,
    /// A distance.
    Distance,
    /// A plain number.
    Number,
}

impl Quantity {
    fn name(self) -> &'static str {
        match self {
            Quantity::Duration => "duration",
            Quantity::Bytes => "byte count",
            Quantity::Rate => "rate",
            Quantity::BitRate => "bit rate",
            Quantity::Share => "share of line rate",
            Quantity::Distance => "distance",
            Quantity::Number => "number",
        }
    }

    fn examples(self) -> &'static str {
        match self {
            Quantity::Duration => "10s, 500ms, 2m, 1h, 1.5s",
            Quantity::Bytes => "17520, 64KiB, 4MB, 1GiB",
            Quantity::Rate => "9.5G, 800Mbps, 136612pps",
            Quantity::BitRate => "10G, 9.5Gbps, 100Mbit/s",
            Quantity::Share => "95%",
            Quantity::Distance => "30000km, 500m",
            Quantity::Number => "2.4, 20,000, 1e3",
        }
    }

    fn units(self) -> &'static str {
        match self {
            Quantity::Duration => "ns, us, ms, s, m or h",
            Quantity::Bytes => "B, kB, MB, GB, TB, KiB, MiB, GiB or TiB",
            Quantity::Rate => {
                "bits (`G`, `Gbps`, `Gbit/s`) or frames (`pps`), with prefix k, M, G or T"
            }
            Quantity::BitRate => "bits (`G`, `Gbps`, `Gbit/s`), with prefix k, M, G or T",
            Quantity::Share => "%",
            Quantity::Distance => "km, m or mi",
            Quantity::Number => "no unit",
        }
    }
}

/// What is wrong with a quantity's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No number where one was expected (`fast`, `NaN`, ``).
    NoNumber,
    /// A unit this quantity does not know.
    UnknownUnit(String),
    /// A negative number.
    Negative,
    /// More than 24 significant digits.
    TooManyDigits,
    /// Beyond `u64` in the base unit (`1e99`).
    TooLarge,
    /// A rate in bytes per second.
    BytesPerSecond,
    /// A frame rate where only a bit rate fits.
    FramesNotBits,
    /// A bare number in a field that needs a unit.
    NeedsUnit,
    /// Above the quantity's largest value (the text says which, with its
    /// unit: `1.6 Tbit/s`).
    AboveMax(String),
}

/// A quantity that could not be read: the text as given, what it was meant
/// to be, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitError {
    /// The text as given, trimmed.
    pub input: String,
    /// What it was meant to be.
    pub quantity: Quantity,
    /// What is wrong with it.
    pub problem: Problem,
}

impl UnitError {
    fn new(input: &str, quantity: Quantity, problem: Problem) -> Self {
        UnitError {
            input: input.trim().to_string(),
            quantity,
            problem,
        }
    }

    /// What is wrong and what to write instead, without the input: for
    /// callers that quote the input themselves (`invalid rtt `15`: …`).
    pub fn reason(&self) -> String {
        let q = self.quantity;
        match &self.problem {
            Problem::NoNumber => format!("no number; write e.g. {}", q.examples()),
            Problem::UnknownUnit(u) => format!(
                "unknown unit `{u}`; use {} (e.g. {})",
                q.units(),
                q.examples()
            ),
            Problem::Negative => "must be positive, not negative".into(),
            Problem::TooManyDigits => "the number has too many digits".into(),
            Problem::TooLarge => format!("too large for a {}", q.name()),
            Problem::BytesPerSecond => {
                "bytes per second are not accepted: give bits (e.g. `8Gbps`) or frames (`pps`)"
                    .into()
            }
            Problem::FramesNotBits => "a frame rate where a bit rate is needed (e.g. 10G)".into(),
            Problem::NeedsUnit => {
                let n = &self.input;
                format!("add a unit: {n}ms or {n}s")
            }
            Problem::AboveMax(max) => format!("above the largest {} accepted, {max}", q.name()),
        }
    }
}

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem {
            Problem::NoNumber => write!(
                f,
                "`{}` is not a {}; write e.g. {}",
                self.input,
                self.quantity.name(),
                self.quantity.examples()
            ),
            _ => write!(f, "`{}`: {}", self.input, self.reason()),
        }
    }
}

impl std::error::Error for UnitError {}

/// An exact non-negative decimal: `digits × 10^exp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    digits: u128,
    exp: i32,
}

/// Most significant digits a number may have: with the largest scale used
/// here (an hour in nanoseconds, 3.6e12) the product stays below 2^128.
const MAX_DIGITS: usize = 24;

impl Decimal {
    /// `self × scale`, rounded to the nearest whole number (halves up).
    fn scaled(self, scale: u64) -> Result<u64, Problem> {
        let v = self
            .digits
            .checked_mul(u128::from(scale))
            .ok_or(Problem::TooLarge)?;
        let v = if self.exp >= 0 {
            10u128
                .checked_pow(self.exp as u32)
                .and_then(|p| v.checked_mul(p))
                .ok_or(Problem::TooLarge)?
        } else {
            match 10u128.checked_pow(self.exp.unsigned_abs()) {
                Some(den) => (v + den / 2) / den,
                None => 0, // v < 10^38 ≤ den / 2: rounds to zero
            }
        };
        u64::try_from(v).map_err(|_| Problem::TooLarge)
    }

    /// The value as the nearest `f64`, for figures computed in floating
    /// point (infinite beyond `f64::MAX`).
    fn to_f64(self) -> f64 {
        format!("{}e{}", self.digits, self.exp)
            .parse()
            .unwrap_or(f64::INFINITY)
    }
}

/// Splits `text` into its number and its unit (trimmed, case kept).
fn split_number(text: &str) -> Result<(Decimal, &str), Problem> {
    let t = text.trim();
    let body = match t.as_bytes().first() {
        Some(b'-') => return Err(Problem::Negative),
        Some(b'+') => &t[1..],
        _ => t,
    };
    let bytes = body.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let (mut digits, mut exp, mut seen, mut frac) = (String::new(), 0i32, false, false);
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'0'..=b'9' => {
                digits.push(bytes[i] as char);
                seen = true;
                exp -= i32::from(frac);
            }
            // A thousands separator: a digit before, exactly three after.
            b'_' | b',' if !frac && i > 0 && digit(i - 1) && (1..=3).all(|k| digit(i + k)) => {
                if digit(i + 4) {
                    break;
                }
            }
            b'.' if !frac && (seen || digit(i + 1)) => frac = true,
            _ => break,
        }
        i += 1;
    }
    if !seen {
        return Err(Problem::NoNumber);
    }
    let (e, len) = exponent(&body[i..]);
    i += len;
    exp = exp.checked_add(e).ok_or(Problem::TooLarge)?;
    let d = normalise(&digits, exp)?;
    Ok((d, body[i..].trim()))
}

/// An exponent at the start of `s` (`e6`, `E-3`, `e+2`): its value and its
/// length, or `(0, 0)` when `s` does not start with one.
fn exponent(s: &str) -> (i32, usize) {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'e' | b'E')) {
        return (0, 0);
    }
    let sign_len = usize::from(matches!(b.get(1), Some(b'+' | b'-')));
    let n = b[1 + sign_len..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if n == 0 {
        return (0, 0); // `e` starts the unit
    }
    let text = &s[1 + sign_len..1 + sign_len + n];
    // Exponents beyond any u64 quantity saturate; they are refused later.
    let v = text.parse::<i32>().unwrap_or(9999).min(9999);
    let v = if b.get(1) == Some(&b'-') { -v } else { v };
    (v, 1 + sign_len + n)
}

/// `digits × 10^exp` with leading and trailing zeros taken out.
fn normalise(digits: &str, mut exp: i32) -> Result<Decimal, Problem> {
    let d = digits.trim_start_matches('0');
    let trimmed = d.trim_end_matches('0');
    exp += (d.len() - trimmed.len()) as i32;
    if trimmed.is_empty() {
        return Ok(Decimal { digits: 0, exp: 0 });
    }
    if trimmed.len() > MAX_DIGITS {
        return Err(Problem::TooManyDigits);
    }
    let digits = trimmed
        .parse::<u128>()
        .map_err(|_| Problem::TooManyDigits)?;
    Ok(Decimal { digits, exp })
}

/// Nanoseconds per duration unit (lowercase), `None` for an unknown unit.
fn duration_scale(unit: &str) -> Option<u64> {
    Some(match unit.to_lowercase().as_str() {
        "ns" | "nsec" => 1,
        "us" | "µs" | "μs" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// A duration at most [`MAX_DURATION`].
fn duration(text: &str, bare: Option<u64>) -> Result<Duration, UnitError> {
    let d = read_duration(text, bare)?;
    if d > MAX_DURATION {
        let max = Problem::AboveMax("30 days (720h)".into());
        return Err(UnitError::new(text, Quantity::Duration, max));
    }
    Ok(d)
}

/// A duration, exact up to `u64::MAX` nanoseconds; `bare` scales a number
/// without a unit (`None`: refused).
fn read_duration(text: &str, bare: Option<u64>) -> Result<Duration, UnitError> {
    let err = |p| UnitError::new(text, Quantity::Duration, p);
    let (d, unit) = split_number(text).map_err(err)?;
    let scale = match (unit, bare) {
        ("", Some(scale)) => scale,
        ("", None) if d.digits == 0 => 1,
        ("", None) => return Err(err(Problem::NeedsUnit)),
        (u, _) => duration_scale(u).ok_or_else(|| err(Problem::UnknownUnit(u.into())))?,
    };
    Ok(Duration::from_nanos(d.scaled(scale).map_err(err)?))
}

/// Parses a duration: `10s`, `500ms`, `2m`, `1h`, `1.5s`, `250 us`,
/// `1e6ns`; a bare number counts seconds (`2` is 2 s). Exact to the
/// nanosecond, rounded to the nearest. Zero is accepted.
pub fn parse_duration(text: &str) -> Result<Duration, UnitError> {
    duration(text, Some(1_000_000_000))
}

/// Parses a duration like [`parse_duration`], but refuses a bare number
/// other than `0` ("add a unit: 15ms or 15s"): for fields such as an RTT
/// that people quote in milliseconds, where seconds would mislead.
pub fn parse_duration_with_unit(text: &str) -> Result<Duration, UnitError> {
    duration(text, None)
}

/// Parses a byte count: `17520`, `17,520`, `64KiB`, `4MB`, `1.5 GB`,
/// `1GiB`, `64k`, `300B`. SI prefixes are powers of 1000, IEC ones (`Ki`,
/// `Mi`, `Gi`, `Ti`) powers of 1024; a bare number is bytes. Rounded to
/// the nearest byte. Zero is accepted.
pub fn parse_bytes(text: &str) -> Result<u64, UnitError> {
    let n = read_bytes(text)?;
    if n > MAX_BYTES {
        let max = Problem::AboveMax("1 TiB".into());
        return Err(UnitError::new(text, Quantity::Bytes, max));
    }
    Ok(n)
}

/// A byte count, exact up to `u64::MAX`.
fn read_bytes(text: &str) -> Result<u64, UnitError> {
    let err = |p| UnitError::new(text, Quantity::Bytes, p);
    let (d, unit) = split_number(text).map_err(err)?;
    let lower = unit.to_ascii_lowercase();
    let prefix = ["bytes", "byte", "b"]
        .iter()
        .find_map(|s| lower.strip_suffix(s))
        .unwrap_or(&lower);
    let scale: u64 = match prefix {
        "" => 1,
        "k" => 1_000,
        "m" => 1_000_000,
        "g" => 1_000_000_000,
        "t" => 1_000_000_000_000,
        "ki" => 1 << 10,
        "mi" => 1 << 20,
        "gi" => 1 << 30,
        "ti" => 1 << 40,
        _ => return Err(err(Problem::UnknownUnit(unit.into()))),
    };
    d.scaled(scale).map_err(err)
}

/// A rate as a number of units per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerSec {
    /// Bits per second.
    Bits(u64),
    /// Frames per second.
    Frames(u64),
}

fn rate(text: &str, quantity: Quantity) -> Result<PerSec, UnitError> {
    let err = |p| UnitError::new(text, quantity, p);
    let (d, unit) = split_number(text).map_err(err)?;
    let (scale, rest) = match unit.chars().next() {
        Some('k' | 'K') => (1_000u64, &unit[1..]),
        Some('m' | 'M') => (1_000_000, &unit[1..]),
        Some('g' | 'G') => (1_000_000_000, &unit[1..]),
        Some('t' | 'T') => (1_000_000_000_000, &unit[1..]),
        _ => (1, unit),
    };
    let frames = match rest {
        "" | "bps" | "bit/s" | "bits/s" | "b/s" | "b" | "bit" => false,
        "pps" | "fps" | "frames/s" | "f/s" => true,
        r if r.starts_with('B') => return Err(err(Problem::BytesPerSecond)),
        _ => return Err(err(Problem::UnknownUnit(unit.into()))),
    };
    let n = d.scaled(scale).map_err(err)?;
    if frames && n > MAX_FRAME_RATE {
        return Err(err(Problem::AboveMax(format!(
            "{} frames/s",
            group(MAX_FRAME_RATE as f64)
        ))));
    }
    if !frames && n > MAX_BIT_RATE {
        return Err(err(Problem::AboveMax("1.6 Tbit/s".into())));
    }
    Ok(if frames {
        PerSec::Frames(n)
    } else {
        PerSec::Bits(n)
    })
}

/// Parses a bit rate (`10G`, `9.5Gbps`, `9.5 Gb/s`, `100Mbit/s`, `800M`,
/// `100k`; a bare number is bit/s) or a frame rate (`136612pps`,
/// `1.2Mpps`). Prefixes are powers of 1000 in any case; rounded to the
/// nearest unit per second. Zero is accepted.
pub fn parse_rate(text: &str) -> Result<PerSec, UnitError> {
    rate(text, Quantity::Rate)
}

/// Parses a bit rate as [`parse_rate`] does, refusing frame rates; bit/s.
pub fn parse_bit_rate(text: &str) -> Result<u64, UnitError> {
    match rate(text, Quantity::BitRate)? {
        PerSec::Bits(n) => Ok(n),
        PerSec::Frames(_) => Err(UnitError::new(
            text,
            Quantity::BitRate,
            Problem::FramesNotBits,
        )),
    }
}

/// Parses a share such as `95%` or `12.5 %` into parts per million
/// (950,000), rounded to the nearest. The `%` is required.
pub fn parse_share_ppm(text: &str) -> Result<u64, UnitError> {
    let err = |p| UnitError::new(text, Quantity::Share, p);
    let (d, unit) = split_number(text).map_err(err)?;
    if unit != "%" {
        return Err(err(Problem::UnknownUnit(unit.into())));
    }
    d.scaled(10_000).map_err(err)
}

/// Parses a distance such as `30000km`, `30,000 km`, `500m`, `1e7m`,
/// `100mi` into metres (exact to the millimetre). A bare number is
/// kilometres. Zero is accepted.
pub fn parse_distance_m(text: &str) -> Result<f64, UnitError> {
    let err = |p| UnitError::new(text, Quantity::Distance, p);
    let (d, unit) = split_number(text).map_err(err)?;
    let mm: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "km" => 1_000_000,
        "m" => 1_000,
        "mi" | "miles" => 1_609_344,
        _ => return Err(err(Problem::UnknownUnit(unit.into()))),
    };
    let mm = d.scaled(mm).map_err(err)?;
    if mm / 1000 > MAX_DISTANCE_M {
        return Err(err(Problem::AboveMax("1,000,000 km".into())));
    }
    Ok(mm as f64 / 1e3)
}

/// Parses a plain number (`2.4`, `20,000`, `1e3`) for figures that are not
/// one of the quantities above (a clock in GHz, cycles per frame); the
/// text after the number is returned for the caller to check. Negative
/// numbers are refused, as everywhere.
pub fn parse_number(text: &str) -> Result<(f64, &str), UnitError> {
    split_number(text)
        .map(|(d, rest)| (d.to_f64(), rest))
        .map_err(|p| UnitError::new(text, Quantity::Number, p))
}

/// How many digits a formatter prints after the decimal point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    /// All of them, trailing zeros dropped, from the value rounded to a
    /// whole base unit: `9.285714285 Gbit/s`, `10 Gbit/s`. Reads back to
    /// the same value (exact for values up to 2^53).
    Exact,
    /// This many, rounded: `9.344 Mbit/s`.
    Fixed(usize),
    /// At most this many, rounded, trailing zeros dropped: `10 Gbit/s`,
    /// `2.5 Gbit/s`, `9.953 Gbit/s`.
    Trimmed(usize),
}

/// Prefixes for byte counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefixes {
    /// Powers of 1000: kB, MB, GB, TB.
    Si,
    /// Powers of 1024: KiB, MiB, GiB, TiB.
    Iec,
}

/// The largest of `steps` (divisor, prefix) that `v` reaches, else `(1, "")`.
fn prefix_for(v: f64, steps: &[(f64, &'static str)]) -> (f64, &'static str) {
    steps
        .iter()
        .copied()
        .find(|&(div, _)| v >= div)
        .unwrap_or((1.0, ""))
}

const SI_STEPS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];

/// `n / div` written exactly, trailing zeros (and a bare `.`) dropped.
fn exact_ratio(n: u64, div: u64) -> String {
    let (int, frac) = (n / div, n % div);
    if frac == 0 {
        return int.to_string();
    }
    let width = div.ilog10() as usize;
    let digits = format!("{frac:0width$}");
    format!("{int}.{}", digits.trim_end_matches('0'))
}

/// Formats a bit rate with an SI prefix: `9.5 Gbit/s`, `800 Mbit/s`,
/// `500 bit/s` ([`Digits::Exact`]: `9.285714285 Gbit/s`; `Fixed(3)`:
/// `9.344 Mbit/s`, `10.000 Gbit/s`).
pub fn format_bit_rate(bps: f64, digits: Digits) -> String {
    let (div, p) = prefix_for(bps, &SI_STEPS);
    match digits {
        Digits::Fixed(n) => format!("{:.n$} {p}bit/s", bps / div),
        Digits::Trimmed(n) => {
            let s = format!("{:.n$}", bps / div);
            let s = if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.')
            } else {
                &s
            };
            format!("{s} {p}bit/s")
        }
        Digits::Exact if bps.is_finite() && bps >= 0.0 => {
            format!("{} {p}bit/s", exact_ratio(bps.round() as u64, div as u64))
        }
        Digits::Exact => format!("{bps} bit/s"),
    }
}

/// Formats a byte count: whole bytes below the first prefix (`999 B`),
/// then one decimal (`623.6 MB`, `17.1 KiB`, `1.2 GB`).
pub fn format_bytes(bytes: f64, prefixes: Prefixes) -> String {
    const KI: f64 = 1024.0;
    let (div, p) = match prefixes {
        Prefixes::Si => prefix_for(
            bytes,
            &[(1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")],
        ),
        Prefixes::Iec => prefix_for(
            bytes,
            &[
                (KI * KI * KI * KI, "TiB"),
                (KI * KI * KI, "GiB"),
                (KI * KI, "MiB"),
                (KI, "KiB"),
            ],
        ),
    };
    if p.is_empty() {
        format!("{bytes:.0} B")
    } else {
        format!("{:.1} {p}", bytes / div)
    }
}

/// Formats a duration exactly, in the largest of s, ms, us and ns it
/// reaches: `15 ms`, `2 s`, `1.5 s`, `250 us`, `0 s`. Reads back with
/// [`parse_duration`].
pub fn format_duration(d: Duration) -> String {
    let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    if ns == 0 {
        return "0 s".into();
    }
    let (div, unit) = [(1_000_000_000, "s"), (1_000_000, "ms"), (1_000, "us")]
        .into_iter()
        .find(|&(div, _)| ns >= div)
        .unwrap_or((1, "ns"));
    format!("{} {unit}", exact_ratio(ns, div))
}

/// Formats a measured time in nanoseconds to about three significant
/// digits: `850 ns`, `12.3 us`, `4.56 ms`, `1.50 s`.
pub fn format_nanos(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// Formats a number rounded to an integer with thousands separators:
/// `136612.02` → `136,612`; `-` for NaN and infinities.
pub fn group(v: f64) -> String {
    if !v.is_finite() {
        return "-".to_string();
    }
    let digits = format!("{:.0}", v.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 && out != "0" {
        out.insert(0, '-');
    }
    out
}

/// Formats a number with thousands separators like [`group`], keeping up
/// to `decimals` decimals (rounded, trailing zeros dropped) when it is not
/// integral: `1234.5` → `1,234.5`, `239820` → `239,820`, `0.12345` with 3
/// → `0.123`; `-` for NaN and infinities.
pub fn group_fraction(v: f64, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let r = (v.abs() * scale).round() / scale;
    if !v.is_finite() || (r - r.round()).abs() < 1e-9 {
        return group(v.signum() * r);
    }
    let frac = format!("{:.decimals$}", r.fract());
    let sign = if v < 0.0 { "-" } else { "" };
    format!(
        "{sign}{}{}",
        group(r.trunc()),
        frac.trim_start_matches('0').trim_end_matches('0')
    )
}

/// The figure of a `Gbit/s` column: bit/s in Gbit/s with three decimals,
/// `9.344e6` → `0.009`.
pub fn gbps(bps: f64) -> String {
    format!("{:.3}", bps / 1e9)
}

#[cfg(test)]
mod tests;
